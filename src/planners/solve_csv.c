/*
 * solve_csv.c — offset-assignment problems in the interchange CSV
 * (`id,lower,upper,size`, each buffer live over [lower, upper)), read into
 * planner items, and solutions written back with an `offset` column.
 * MiniMalloc's current names for the same columns, `buffer,start,end,size`,
 * are read too, and the solution then uses them.
 *
 * The reader is strict and says where: every bad row is reported with its
 * file, line and column (an unknown or missing column, a field that is not
 * an integer, upper <= lower, a duplicate id), so a user of another
 * framework sees exactly which buffer the export got wrong.  Half-open
 * intervals become the planners' inclusive ones, [lower, upper - 1]; times
 * outside int32 (or negative) are replaced by their ranks, which keeps
 * exactly the same pairs overlapping.
 *
 * It does not plan (mp_solve does) and does not print (diagnostics go to
 * the caller's sink; the text is returned to the caller).
 */
#include "util/diag.h"
#include "util/file.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Sizes above this are surely a mistake (and would risk overflow). */
#define CSV_MAX_SIZE (UINT64_C(1) << 56)
/* Stop reporting after this many bad rows. */
#define CSV_MAX_ERRORS 20u

enum { COL_ID, COL_LOWER, COL_UPPER, COL_SIZE, COL_OFFSET, COL_COUNT };
static const char *const col_names[COL_COUNT] = {"id", "lower", "upper", "size", "offset"};
/* The same columns under MiniMalloc's current names (NULL: no other name). */
static const char *const col_alias[COL_COUNT] = {"buffer", "start", "end", NULL, NULL};

typedef struct reader {
  const char *name;
  const mp_diag_sink *dx;
  uint32_t n_errors;
  const char *line;     /* current line (not NUL-terminated) */
  size_t line_len;
  uint32_t line_no;
  char text[512];       /* the current line, NUL-terminated (maybe cut) */
} reader;

static void set_line(reader *r, const char *line, size_t len, uint32_t no) {
  r->line = line;
  r->line_len = len;
  r->line_no = no;
  size_t k = len < sizeof r->text - 1 ? len : sizeof r->text - 1;
  memcpy(r->text, line, k);
  r->text[k] = '\0';
}

/* Report an error at column `col` (1-based, 0 = whole line) of the current
 * line. */
static void row_error(reader *r, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void row_error(reader *r, uint32_t col, const char *fmt, ...) {
  r->n_errors++;
  if (r->n_errors > CSV_MAX_ERRORS) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (col > strlen(r->text) + 1) col = 0; /* beyond the kept part of a long line */
  mp_loc loc = {r->name, r->line_no, col, -1, NULL, r->text};
  if (r->n_errors == CSV_MAX_ERRORS)
    mp_error(r->dx, loc, "%s (too many errors, stopping here)", msg);
  else
    mp_error(r->dx, loc, "%s", msg);
}

typedef struct field {
  const char *s;  /* trimmed */
  size_t len;
  uint32_t col;   /* 1-based column of the field's first character */
} field;

/* Split the current line at commas into at most `max` trimmed fields;
 * returns how many there are (may exceed max: the rest are not stored). */
static size_t split_fields(const reader *r, field *f, size_t max) {
  size_t n = 0, start = 0;
  for (size_t i = 0; i <= r->line_len; i++) {
    if (i < r->line_len && r->line[i] != ',') continue;
    size_t a = start, b = i;
    while (a < b && (r->line[a] == ' ' || r->line[a] == '\t')) a++;
    while (b > a && (r->line[b - 1] == ' ' || r->line[b - 1] == '\t')) b--;
    if (n < max) f[n] = (field){r->line + a, b - a, (uint32_t)a + 1};
    n++;
    start = i + 1;
  }
  return n;
}

static bool field_is(const field *f, const char *name) {
  size_t k = strlen(name);
  if (f->len != k) return false;
  for (size_t i = 0; i < k; i++) {
    char c = f->s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != name[i]) return false;
  }
  return true;
}

/* Parse a decimal integer (optional sign when `sign`) of the whole field. */
static bool parse_int(const field *f, bool sign, int64_t *out) {
  size_t i = 0;
  bool neg = false;
  if (sign && f->len > 0 && (f->s[0] == '-' || f->s[0] == '+')) {
    neg = f->s[0] == '-';
    i = 1;
  }
  if (i == f->len) return false;
  uint64_t v = 0;
  for (; i < f->len; i++) {
    char c = f->s[i];
    if (c < '0' || c > '9') return false;
    uint64_t d = (uint64_t)(c - '0');
    if (v > ((uint64_t)INT64_MAX - d) / 10) return false; /* beyond int64: refused, never wrapped */
    v = v * 10 + d;
  }
  *out = neg ? -(int64_t)v : (int64_t)v;
  return true;
}

static const char *const *g_ids; /* qsort context, set and used under one call */

static int cmp_id(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  int c = strcmp(g_ids[i], g_ids[j]);
  if (c) return c;
  return (i > j) - (i < j);
}

typedef struct dup {
  uint32_t row, first;
} dup;

static int cmp_dup(const void *a, const void *b) {
  const dup *x = a, *y = b;
  return (x->row > y->row) - (x->row < y->row);
}

/* Replace the rows' times by ranks when they do not fit the items. */
static mp_status set_times(mp_csv_problem *p) {
  bool raw = true;
  for (size_t i = 0; i < p->n && raw; i++)
    raw = p->lower[i] >= 0 && p->upper[i] <= INT32_MAX;
  if (raw) {
    for (size_t i = 0; i < p->n; i++) {
      p->items[i].start = (int32_t)p->lower[i];
      p->items[i].end = (int32_t)(p->upper[i] - 1);
    }
    return MP_OK;
  }
  int64_t *t = malloc(2 * p->n * sizeof *t);
  if (!t) return MP_ERR_NOMEM;
  for (size_t i = 0; i < p->n; i++) {
    t[2 * i] = p->lower[i];
    t[2 * i + 1] = p->upper[i];
  }
  qsort(t, 2 * p->n, sizeof *t, mp_cmp_i64);
  size_t m = 0;
  for (size_t i = 0; i < 2 * p->n; i++)
    if (m == 0 || t[m - 1] != t[i]) t[m++] = t[i];
  for (size_t i = 0; i < p->n; i++) {
    int64_t *lo = bsearch(&p->lower[i], t, m, sizeof *t, mp_cmp_i64);
    int64_t *up = bsearch(&p->upper[i], t, m, sizeof *t, mp_cmp_i64);
    p->items[i].start = (int32_t)(lo - t);
    p->items[i].end = (int32_t)(up - t) - 1;
  }
  free(t);
  return MP_OK;
}

/* Report every id that repeats an earlier row's, in line order. */
static mp_status check_ids(mp_csv_problem *p, reader *r) {
  if (p->n < 2) return MP_OK;
  uint32_t *idx = malloc(p->n * sizeof *idx);
  dup *d = malloc(p->n * sizeof *d);
  if (!idx || !d) {
    free(idx);
    free(d);
    return MP_ERR_NOMEM;
  }
  for (size_t i = 0; i < p->n; i++) idx[i] = (uint32_t)i;
  g_ids = p->ids;
  qsort(idx, p->n, sizeof *idx, cmp_id);
  size_t nd = 0;
  for (size_t i = 1, first = 0; i < p->n; i++) {
    if (strcmp(p->ids[idx[i]], p->ids[idx[first]])) {
      first = i;
      continue;
    }
    d[nd++] = (dup){idx[i], idx[first]};
  }
  qsort(d, nd, sizeof *d, cmp_dup);
  for (size_t i = 0; i < nd; i++) {
    mp_loc loc = {r->name, p->lines[d[i].row], 0, -1, NULL, NULL};
    r->n_errors++;
    if (r->n_errors <= CSV_MAX_ERRORS)
      mp_error(r->dx, loc, "duplicate id '%s' (first on line %u)", p->ids[d[i].row],
               p->lines[d[i].first]);
  }
  free(idx);
  free(d);
  return MP_OK;
}

mp_status mp_csv_problem_parse(const char *text, size_t len, const char *name,
                               uint32_t alignment, const mp_diag_sink *dx,
                               mp_csv_problem **out) {
  *out = NULL;
  if (alignment == 0) alignment = 1;
  mp_loc file_loc = {name, 0, 0, -1, NULL, NULL};
  if (!mp_is_pow2(alignment)) {
    mp_error(dx, file_loc, "alignment %u is not a power of two", alignment);
    return MP_ERR_CONFIG;
  }
  /* rows: at most one per newline, plus one */
  size_t cap = 1;
  for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
  mp_pool *pool = mp_pool_new();
  mp_csv_problem *p = pool ? mp_pool_alloc(pool, 1, sizeof *p) : NULL;
  if (!p) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  p->pool = pool;
  p->path = mp_pool_strdup(pool, name);
  p->alignment = alignment;
  p->items = mp_pool_alloc(pool, cap, sizeof *p->items);
  p->ids = mp_pool_alloc(pool, cap, sizeof *p->ids);
  p->lower = mp_pool_alloc(pool, cap, sizeof *p->lower);
  p->upper = mp_pool_alloc(pool, cap, sizeof *p->upper);
  p->sizes = mp_pool_alloc(pool, cap, sizeof *p->sizes);
  p->lines = mp_pool_alloc(pool, cap, sizeof *p->lines);
  if (!p->path || !p->items || !p->ids || !p->lower || !p->upper || !p->sizes || !p->lines) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }

  reader r = {.name = name, .dx = dx};
  int col_of[COL_COUNT] = {-1, -1, -1, -1, -1}; /* header position of each column */
  size_t n_cols = 0;
  bool have_header = false;
  mp_status st = MP_OK;
  uint32_t line_no = 0;
  for (size_t pos = 0; pos < len && r.n_errors < CSV_MAX_ERRORS && st == MP_OK;) {
    size_t end = pos;
    while (end < len && text[end] != '\n') end++;
    size_t next = end + 1, l = end - pos;
    if (l > 0 && text[pos + l - 1] == '\r') l--;
    line_no++;
    set_line(&r, text + pos, l, line_no);
    pos = next;
    /* blank lines and comments */
    size_t a = 0;
    while (a < l && (r.line[a] == ' ' || r.line[a] == '\t')) a++;
    if (a == l || r.line[a] == '#') continue;
    if (memchr(r.line, '\0', l)) {
      row_error(&r, 0, "the line contains a NUL byte (not a text CSV file?)");
      st = MP_ERR_MODEL;
      break;
    }
    field f[COL_COUNT + 1];
    size_t nf = split_fields(&r, f, COL_COUNT + 1);
    if (!have_header) {
      have_header = true;
      n_cols = nf;
      bool ok = true;
      if (nf > COL_COUNT) {
        row_error(&r, 0, "the header has %zu columns; expected id,lower,upper,size", nf);
        ok = false;
      }
      for (size_t k = 0; ok && k < nf; k++) {
        int c = -1;
        for (int j = 0; j < COL_COUNT && c < 0; j++)
          if (field_is(&f[k], col_names[j])) {
            c = j;
          } else if (col_alias[j] && field_is(&f[k], col_alias[j])) {
            c = j;
            p->start_end_names = true;
          }
        if (c < 0) {
          row_error(&r, f[k].col, "unknown column '%.*s' in the header (expected id,lower,upper,size)",
                    (int)f[k].len, f[k].s);
          ok = false;
        } else if (col_of[c] >= 0) {
          row_error(&r, f[k].col, "column '%s' appears twice in the header", col_names[c]);
          ok = false;
        } else {
          col_of[c] = (int)k;
        }
      }
      for (int j = 0; ok && j < COL_OFFSET; j++)
        if (col_of[j] < 0) {
          row_error(&r, 0, "the header has no '%s' column (expected id,lower,upper,size)",
                    col_names[j]);
          ok = false;
        }
      if (!ok) st = MP_ERR_MODEL;
      continue;
    }
    if (nf != n_cols) {
      row_error(&r, 0, "%zu fields; the header has %zu (id,lower,upper,size)", nf, n_cols);
      continue;
    }
    const field *fid = &f[col_of[COL_ID]], *flo = &f[col_of[COL_LOWER]],
                *fup = &f[col_of[COL_UPPER]], *fsz = &f[col_of[COL_SIZE]];
    bool ok = true;
    int64_t lo = 0, up = 0, sz = 0;
    if (fid->len == 0) {
      row_error(&r, fid->col, "empty id");
      ok = false;
    } else if (fid->s[0] == '"') {
      row_error(&r, fid->col, "quoted fields are not supported; write the id without quotes");
      ok = false;
    }
    if (!parse_int(flo, true, &lo)) {
      row_error(&r, flo->col, "'lower' must be an integer, not '%.*s'", (int)flo->len, flo->s);
      ok = false;
    }
    if (!parse_int(fup, true, &up)) {
      row_error(&r, fup->col, "'upper' must be an integer, not '%.*s'", (int)fup->len, fup->s);
      ok = false;
    }
    if (!parse_int(fsz, false, &sz)) {
      row_error(&r, fsz->col, "'size' must be a non-negative integer, not '%.*s'", (int)fsz->len,
                fsz->s);
      ok = false;
    } else if ((uint64_t)sz > CSV_MAX_SIZE) {
      row_error(&r, fsz->col, "'size' %lld is too large (at most 2^56 bytes)", (long long)sz);
      ok = false;
    }
    if (ok && up <= lo) {
      row_error(&r, fup->col,
                "'upper' (%lld) must be greater than 'lower' (%lld): the buffer is live over "
                "[lower, upper)",
                (long long)up, (long long)lo);
      ok = false;
    }
    if (!ok) continue;
    size_t i = p->n++;
    p->ids[i] = mp_pool_strndup(pool, fid->s, fid->len);
    if (!p->ids[i]) {
      st = MP_ERR_NOMEM;
      break;
    }
    p->lower[i] = lo;
    p->upper[i] = up;
    p->sizes[i] = (uint64_t)sz;
    p->lines[i] = line_no;
    p->items[i] = (mp_item){mp_align_up((uint64_t)sz, alignment), 0, 0, alignment, (uint32_t)i};
  }
  if (st == MP_OK && !have_header) {
    mp_error(dx, file_loc, "empty problem: expected a header id,lower,upper,size");
    st = MP_ERR_MODEL;
  }
  if (st == MP_OK && r.n_errors < CSV_MAX_ERRORS) st = check_ids(p, &r);
  if (st == MP_OK && r.n_errors) st = MP_ERR_MODEL;
  if (st == MP_OK) st = set_times(p);
  if (st != MP_OK) {
    mp_pool_free(&pool);
    return st;
  }
  *out = p;
  return MP_OK;
}

mp_status mp_csv_problem_read(const char *path, uint32_t alignment, const mp_diag_sink *dx,
                              mp_csv_problem **out) {
  *out = NULL;
  uint8_t *data = NULL;
  size_t size = 0;
  mp_status st = mp_read_file(path, &data, &size, dx);
  if (st != MP_OK) return st;
  st = mp_csv_problem_parse((const char *)data, size, path, alignment, dx, out);
  free(data);
  return st;
}

void mp_csv_problem_free(mp_csv_problem **p) {
  if (!p || !*p) return;
  mp_pool *pool = (*p)->pool;
  mp_pool_free(&pool);
  *p = NULL;
}

char *mp_csv_solution_text(const mp_csv_problem *p, const mp_solution *sol,
                           const char *planner) {
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_puts(&b, p->start_end_names ? "buffer,start,end,size,offset\n"
                                      : "id,lower,upper,size,offset\n");
  for (size_t i = 0; i < p->n; i++)
    mp_buf_printf(&b, "%s,%lld,%lld,%llu,%llu\n", p->ids[i], (long long)p->lower[i],
                  (long long)p->upper[i], (unsigned long long)p->sizes[i],
                  (unsigned long long)sol->offsets[i]);
  mp_buf_printf(&b, "# height=%llu lower_bound=%llu planner=%s\n",
                (unsigned long long)sol->height, (unsigned long long)sol->lower_bound,
                planner ? planner : "");
  /* the exact planner also proves an interval on the optimum */
  if (planner && !strcmp(planner, "exact"))
    mp_buf_printf(&b, "# proven_lower=%llu proven_upper=%llu optimal=%s timed_out=%s\n",
                  (unsigned long long)sol->proven_lower, (unsigned long long)sol->proven_upper,
                  sol->proven_lower == sol->proven_upper ? "yes" : "no",
                  sol->timed_out ? "yes" : "no");
  /* a time limit left no room for greedy_by_size: the run began from greedy */
  if (sol->cheap_start) mp_buf_puts(&b, "# start=greedy\n");
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  return b.data;
}
