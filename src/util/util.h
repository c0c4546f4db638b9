/*
 * util.h — small shared helpers: a per-object pool allocator, a growable
 * string buffer, alignment arithmetic, did-you-mean suggestions and a
 * clock (file I/O is util/file.h).
 *
 * The pool is what keeps ownership simple: every object the library returns
 * (model, graph, config, plan) owns one pool, allocates everything it holds
 * from it, and frees it in one call.  Allocation failure is reported, never
 * ignored: mp_pool_alloc returns NULL and callers turn that into
 * MP_ERR_NOMEM.
 */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include "memplan.h"

#include <stdarg.h>
#include <stdio.h>

/* ---- pool ---------------------------------------------------------------- */

typedef struct mp_pool mp_pool;

mp_pool *mp_pool_new(void);
/* Zeroed, 16-byte aligned memory owned by the pool; NULL on failure or when
 * n * size overflows. n == 0 returns a valid non-NULL pointer. */
void *mp_pool_alloc(mp_pool *p, size_t n, size_t size);
/* A copy of `s` (NULL -> NULL) / of the first n bytes plus a NUL. */
char *mp_pool_strdup(mp_pool *p, const char *s);
char *mp_pool_strndup(mp_pool *p, const char *s, size_t n);
char *mp_pool_printf(mp_pool *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mp_pool_free(mp_pool **p);

/* ---- string buffer ------------------------------------------------------- */

typedef struct mp_buf {
  char *data;     /* NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t cap;
  bool failed;    /* an allocation failed; further appends are ignored */
} mp_buf;

void mp_buf_init(mp_buf *b);
void mp_buf_append(mp_buf *b, const char *s, size_t n);
void mp_buf_puts(mp_buf *b, const char *s);
void mp_buf_putc(mp_buf *b, char c);
void mp_buf_printf(mp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mp_buf_vprintf(mp_buf *b, const char *fmt, va_list ap);
/* The text so far ("" when empty); valid until the next append. */
const char *mp_buf_str(const mp_buf *b);
void mp_buf_free(mp_buf *b);

/* ---- arithmetic ---------------------------------------------------------- */

static inline uint64_t mp_align_up(uint64_t v, uint64_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

/* The least common multiple of two positive periods (an overlap contract's
 * period and an alignment); 1 when either is below 1. */
static inline int64_t mp_lcm64(int64_t a, int64_t b) {
  if (a < 1 || b < 1) return a < 1 ? (b < 1 ? 1 : b) : a;
  int64_t x = a, y = b;
  while (y) {
    int64_t r = x % y;
    x = y;
    y = r;
  }
  return a / x * b;
}
static inline uint64_t mp_align_down(uint64_t v, uint64_t a) {
  return a <= 1 ? v : v / a * a;
}
static inline bool mp_is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
static inline uint64_t mp_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t mp_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* FNV-1a 64-bit, for plan hashes. */
uint64_t mp_fnv1a(uint64_t h, const void *data, size_t n);

/* qsort / bsearch comparators of int32_t and int64_t values, ascending. */
int mp_cmp_i32(const void *a, const void *b);
int mp_cmp_i64(const void *a, const void *b);

/* How many elements of the ascending t[0..m) are <= v: the index of the
 * first one greater than v. */
size_t mp_count_le_i32(const int32_t *t, size_t m, int32_t v);
size_t mp_count_le_i64(const int64_t *t, size_t m, int64_t v);
#define MP_FNV_INIT 0xcbf29ce484222325ULL

/* ---- digests (digest.c) ------------------------------------------------- */

/* CRC-32 as zlib computes it (reflected 0xEDB88320, init and xor ~0). */
uint32_t mp_crc32(const void *data, size_t n);
/* SHA-256 of n bytes as 64 lower-case hex digits and a NUL. */
void mp_sha256_hex(const void *data, size_t n, char out[65]);

/* Edit distance for did-you-mean suggestions: case-insensitive, '-' equal
 * to '_', a swap of two neighbours counting as one edit ("memroy" is one
 * edit from "memory").  SIZE_MAX when either string is longer than `cap`
 * (or out of memory). */
size_t mp_edit_distance(const char *a, const char *b, size_t cap);

/* The length (1 to 4) of the valid UTF-8 character at s[0..n), or 0 when
 * s[0] starts none (overlong forms, surrogates, code points above
 * U+10FFFF); *hidden when it is one a terminal acts on or that reorders or
 * hides text (C0 and C1 controls, DEL, bidirectional controls, zero-width
 * marks, line separators), which no name should show as it is. */
size_t mp_utf8_char(const unsigned char *s, size_t n, bool *hidden);

/* The closest of `cands` to `word` (case-insensitive, '-' == '_') when it is
 * close enough to be a useful hint, else NULL.  Ties go to the first. */
const char *mp_suggest(const char *word, const char *const *cands, size_t n);

/* `s` shortened to at most `w` bytes for a message: its start and its end
 * around "...", never cutting a UTF-8 character; `s` itself when it fits
 * (or w < 8, or buf cannot hold w bytes).  Returns s or buf. */
const char *mp_name_middle(const char *s, size_t w, char *buf, size_t n);

/* The clock of every deadline and progress report: CLOCK_MONOTONIC, in
 * nanoseconds and in milliseconds. */
uint64_t mp_now_ns(void);
uint64_t mp_now_ms(void);
/* Replace that clock (a test's own, so that a time limit is checked by the
 * planner's deadline logic rather than by the machine's speed); NULL
 * restores CLOCK_MONOTONIC.  Not thread-safe: set it before planning. */
void mp_clock_set(uint64_t (*now_ns)(void));

#endif /* MP_UTIL_H */
