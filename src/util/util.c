/*
 * util.c — pool allocator, string buffer, hashing and file helpers.
 *
 * The pool is a linked list of malloc'd blocks; large requests get a block of
 * their own.  Nothing is freed individually: the owner frees the pool.  This
 * trades a little memory for cleanup that cannot leak.
 */
#include "util/util.h"


#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL_BLOCK 65536u
#define POOL_ALIGN 16u

typedef struct pool_block {
  struct pool_block *next;
  size_t used;
  size_t cap;
  /* data follows, aligned to POOL_ALIGN */
} pool_block;

struct mp_pool {
  pool_block *head;
};

static size_t header_size(void) { return (size_t)mp_align_up(sizeof(pool_block), POOL_ALIGN); }

mp_pool *mp_pool_new(void) { return calloc(1, sizeof(mp_pool)); }

void *mp_pool_alloc(mp_pool *p, size_t n, size_t size) {
  if (!p) return NULL;
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  if (bytes > SIZE_MAX - POOL_ALIGN) return NULL;
  bytes = (size_t)mp_align_up(bytes ? bytes : 1, POOL_ALIGN);
  pool_block *b = p->head;
  if (!b || b->cap - b->used < bytes) {
    size_t cap = bytes > POOL_BLOCK / 4 ? bytes : POOL_BLOCK;
    if (cap > SIZE_MAX - header_size()) return NULL;
    pool_block *nb = malloc(header_size() + cap);
    if (!nb) return NULL;
    nb->used = 0;
    nb->cap = cap;
    if (bytes > POOL_BLOCK / 4 && b) {
      /* keep the current block for small requests: insert behind it */
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      p->head = nb;
    }
    b = nb;
  }
  void *mem = (char *)b + header_size() + b->used;
  b->used += bytes;
  memset(mem, 0, bytes);
  return mem;
}

char *mp_pool_strndup(mp_pool *p, const char *s, size_t n) {
  if (!s) return NULL;
  char *d = mp_pool_alloc(p, n + 1, 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *mp_pool_strdup(mp_pool *p, const char *s) {
  return s ? mp_pool_strndup(p, s, strlen(s)) : NULL;
}

char *mp_pool_printf(mp_pool *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *d = mp_pool_alloc(p, (size_t)n + 1, 1);
  if (!d) return NULL;
  va_start(ap, fmt);
  vsnprintf(d, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return d;
}

void mp_pool_free(mp_pool **pp) {
  if (!pp || !*pp) return;
  pool_block *b = (*pp)->head;
  while (b) {
    pool_block *n = b->next;
    free(b);
    b = n;
  }
  free(*pp);
  *pp = NULL;
}

/* ---- mp_buf -------------------------------------------------------------- */

void mp_buf_init(mp_buf *b) { memset(b, 0, sizeof(*b)); }

static bool buf_reserve(mp_buf *b, size_t extra) {
  if (b->failed) return false;
  if (extra > SIZE_MAX - b->len - 1) {
    b->failed = true;
    return false;
  }
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  char *d = realloc(b->data, cap);
  if (!d) {
    b->failed = true;
    return false;
  }
  b->data = d;
  b->cap = cap;
  return true;
}

void mp_buf_append(mp_buf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void mp_buf_puts(mp_buf *b, const char *s) { mp_buf_append(b, s, strlen(s)); }
void mp_buf_putc(mp_buf *b, char c) { mp_buf_append(b, &c, 1); }

void mp_buf_vprintf(mp_buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    b->failed = true;
    return;
  }
  if (!buf_reserve(b, (size_t)n)) return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void mp_buf_printf(mp_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

const char *mp_buf_str(const mp_buf *b) { return b->data ? b->data : ""; }

void mp_buf_free(mp_buf *b) {
  free(b->data);
  memset(b, 0, sizeof(*b));
}

/* ---- misc ---------------------------------------------------------------- */

uint64_t mp_fnv1a(uint64_t h, const void *data, size_t n) {
  const uint8_t *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static char fold(char c) { return c == '-' ? '_' : (char)tolower((unsigned char)c); }

size_t mp_edit_distance(const char *a, const char *b, size_t cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > cap || lb > cap) return SIZE_MAX;
  size_t local[3][129], *heap = NULL;
  size_t *prev2 = local[0], *prev = local[1], *cur = local[2];
  if (lb > 128) {
    heap = malloc(3 * (lb + 1) * sizeof *heap);
    if (!heap) return SIZE_MAX;
    prev2 = heap, prev = heap + lb + 1, cur = heap + 2 * (lb + 1);
  }
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = prev[j - 1] + (fold(a[i - 1]) != fold(b[j - 1]));
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      size_t m = sub < del ? sub : del;
      m = m < ins ? m : ins;
      /* a swap of two neighbours is one edit */
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]) &&
          prev2[j - 2] + 1 < m)
        m = prev2[j - 2] + 1;
      cur[j] = m;
    }
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  size_t d = prev[lb];
  free(heap);
  return d;
}

int mp_cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int mp_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

size_t mp_count_le_i32(const int32_t *t, size_t m, int32_t v) {
  size_t a = 0, b = m;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (t[mid] <= v)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

size_t mp_count_le_i64(const int64_t *t, size_t m, int64_t v) {
  size_t a = 0, b = m;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (t[mid] <= v)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

static bool folded_prefix(const char *pre, const char *s) {
  for (; *pre; pre++, s++)
    if (!*s || fold(*pre) != fold(*s)) return false;
  return true;
}

const char *mp_suggest(const char *word, const char *const *cands, size_t n) {
  if (!word || !*word) return NULL;
  size_t wl = strlen(word);
  const char *best = NULL;
  size_t best_d = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (!cands[i]) continue;
    size_t d = mp_edit_distance(word, cands[i], 128);
    if (d < best_d) {
      best_d = d;
      best = cands[i];
    }
  }
  /* close: a third of the word's letters wrong at most (one for short words) */
  size_t limit = wl / 3 > 1 ? wl / 3 : 1;
  if (best && best_d <= limit && best_d < strlen(best)) return best;
  /* a truncated or extended name ("apollo510" for "apollo510_evb") */
  if (wl >= 4)
    for (size_t i = 0; i < n; i++)
      if (cands[i] && (folded_prefix(word, cands[i]) || folded_prefix(cands[i], word)) &&
          strlen(cands[i]) >= 4)
        return cands[i];
  return NULL;
}

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The clock every deadline and progress report reads; tests replace it
 * (mp_clock_set) to check time limits without depending on the machine's
 * speed. */
static uint64_t (*clock_ns)(void) = monotonic_ns;

void mp_clock_set(uint64_t (*now_ns)(void)) { clock_ns = now_ns ? now_ns : monotonic_ns; }

uint64_t mp_now_ns(void) { return clock_ns(); }

uint64_t mp_now_ms(void) { return clock_ns() / 1000000u; }

const char *mp_name_middle(const char *s, size_t w, char *buf, size_t n) {
  size_t l = strlen(s);
  if (l <= w || w < 8 || w + 1 > n) return s;
  size_t head = (w - 3) / 2, tail = w - 3 - head;
  /* back off to a character boundary at both cuts */
  while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80) head--;
  const char *t = s + l - tail;
  while (*t && ((unsigned char)*t & 0xc0) == 0x80) t++;
  snprintf(buf, n, "%.*s...%s", (int)head, s, t);
  return buf;
}

/* ---- text shown on a terminal ---------------------------------------------- */

size_t mp_utf8_char(const unsigned char *s, size_t n, bool *hidden) {
  *hidden = false;
  if (n == 0) return 0;
  unsigned char c = s[0];
  size_t len;
  uint32_t v, min;
  if (c < 0x80) {
    *hidden = c < 0x20 || c == 0x7f;
    return 1;
  }
  if (c >= 0xc2 && c <= 0xdf) len = 2, v = c & 0x1fu, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, v = c & 0x0fu, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, v = c & 0x07u, min = 0x10000;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    v = v << 6 | (s[i] & 0x3fu);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  /* C1 controls, and what reorders or hides text: the bidirectional
   * controls, zero-width marks, line and paragraph separators */
  *hidden = v <= 0x9f || v == 0x061c || v == 0x200b || (v >= 0x200e && v <= 0x200f) ||
            (v >= 0x2028 && v <= 0x202e) || (v >= 0x2066 && v <= 0x2069) || v == 0xfeff;
  return len;
}

char *mp_printable(const char *s) {
  if (!s) s = "";
  mp_buf b;
  mp_buf_init(&b);
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s);
  while (*p) {
    bool hidden;
    size_t n = mp_utf8_char(p, left, &hidden);
    if (n == 1 && hidden && *p != '\t') {
      mp_buf_printf(&b, "\\x%02x", *p);
    } else if (n == 0) {
      mp_buf_printf(&b, "\\x%02x", *p);
      n = 1;
    } else if (hidden && n > 1) {
      uint32_t v = n == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu)
                          : (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
      mp_buf_printf(&b, "\\u{%04x}", (unsigned)v);
    } else {
      mp_buf_append(&b, (const char *)p, n);
    }
    p += n;
    left -= n;
  }
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  char *out = strdup(mp_buf_str(&b));
  mp_buf_free(&b);
  return out;
}
