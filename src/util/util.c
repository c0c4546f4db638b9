/*
 * util.c — pool allocator, string buffer, hashing and file helpers.
 *
 * The pool is a linked list of malloc'd blocks; large requests get a block of
 * their own.  Nothing is freed individually: the owner frees the pool.  This
 * trades a little memory for cleanup that cannot leak.
 */
#include "util.h"

#include "diag.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

mp_status mp_read_file(const char *path, uint8_t **data, size_t *size,
                       const mp_diag_sink *dx) {
  *data = NULL;
  *size = 0;
  /* O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer;
   * anything but a regular file is refused before a byte is read. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot open: %s", strerror(errno));
    return MP_ERR_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "not a regular file");
    close(fd);
    return MP_ERR_IO;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot open: %s", strerror(errno));
    close(fd);
    return MP_ERR_IO;
  }
  size_t cap = st.st_size > 0 ? (size_t)st.st_size : 0;
  uint8_t *buf = malloc(cap ? cap : 1);
  if (!buf) {
    fclose(f);
    return MP_ERR_NOMEM;
  }
  size_t n = fread(buf, 1, cap, f);
  bool err = ferror(f);
  fclose(f);
  if (err || n != cap) {
    free(buf);
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "read error");
    return MP_ERR_IO;
  }
  *data = buf;
  *size = n;
  return MP_OK;
}

mp_status mp_write_file(const char *path, const void *data, size_t size,
                        const mp_diag_sink *dx) {
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 16);
  if (!tmp) return MP_ERR_NOMEM;
  snprintf(tmp, pl + 16, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot write: %s", strerror(errno));
    free(tmp);
    return MP_ERR_IO;
  }
  bool ok = fwrite(data, 1, size, f) == size;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot write: %s", strerror(errno));
    remove(tmp);
    free(tmp);
    return MP_ERR_IO;
  }
  free(tmp);
  return MP_OK;
}

mp_status mp_make_dirs(const char *path, const mp_diag_sink *dx) {
  size_t n = strlen(path);
  char *p = malloc(n + 1);
  if (!p) return MP_ERR_NOMEM;
  memcpy(p, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] == '/' || p[i] == '\0') {
      char c = p[i];
      p[i] = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot create directory: %s",
                 strerror(errno));
        free(p);
        return MP_ERR_IO;
      }
      p[i] = c;
    }
  }
  struct stat st;
  bool ok = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  free(p);
  if (!ok) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "not a directory");
    return MP_ERR_IO;
  }
  return MP_OK;
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
