/*
 * report_facts.c — what the two halves of the HTML report share
 * (report_facts.h): escaping, byte formats, the slot kinds and the plan
 * facts a picture needs.
 *
 * The one idea: both halves draw from the same few facts, computed once
 * and escaped once, so the table, the bars and the timelines cannot
 * disagree about a tensor.  This file writes no part of the page itself.
 */
#include "emit/report_facts.h"

#include <string.h>

const report_kind_style report_kinds[K_COUNT] = {
    {"act", "activation", "#0072B2", "#ffffff", "", ""},
    {"in", "graph input", "#E69F00", "#000000",
     "<path d='M-1,1 l2,-2 M0,8 l8,-8 M7,9 l2,-2' stroke='#000' stroke-opacity='.35' "
     "stroke-width='1.6'/>",
     "graph input"},
    {"out", "graph output", "#D55E00", "#ffffff",
     "<path d='M0,0 L8,8 M8,0 L0,8' stroke='#fff' stroke-opacity='.45' stroke-width='1.2'/>",
     "graph output"},
    {"local", "op-local scratch", "#CC79A7", "#000000",
     "<circle cx='4' cy='4' r='1.5' fill='#000' fill-opacity='.35'/>", "op-local"},
    {"pers", "persistent state", "#009E73", "#ffffff",
     "<path d='M2,0 v8 M6,0 v8' stroke='#fff' stroke-opacity='.3' stroke-width='1'/>", ""},
    {"const", "constant, read in place", "#F0E442", "#000000", "", ""},
    {"staged", "constant, staged copy", "#56B4E9", "#000000",
     "<path d='M0,2 h8 M0,6 h8' stroke='#000' stroke-opacity='.25' stroke-width='1'/>",
     "staged copy"},
};
/* ---- text ---------------------------------------------------------------- */

/* Decode one UTF-8 character of s[0..n); returns its byte length (>= 1) and
 * sets *cp, or U+FFFD for an invalid, overlong or surrogate sequence. */
static size_t u8_next(const unsigned char *s, size_t n, uint32_t *cp) {
  uint32_t c = s[0];
  size_t len = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
  *cp = 0xFFFD;
  if (len == 0 || len > n) return 1;
  if (len == 1) {
    *cp = c;
    return 1;
  }
  uint32_t v = c & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 1;
    v = (v << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 1;
  *cp = v;
  return len;
}

/* Append one code point, escaped for HTML text and attribute values. */
static void put_cp(mp_buf *b, uint32_t cp) {
  switch (cp) {
  case '&': mp_buf_puts(b, "&amp;"); return;
  case '<': mp_buf_puts(b, "&lt;"); return;
  case '>': mp_buf_puts(b, "&gt;"); return;
  case '"': mp_buf_puts(b, "&quot;"); return;
  case '\'': mp_buf_puts(b, "&#39;"); return;
  default: break;
  }
  if (cp < 0x20 || cp == 0x7F) cp = 0xFFFD;
  char u[4];
  if (cp < 0x80) {
    mp_buf_putc(b, (char)cp);
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    mp_buf_append(b, u, 2);
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    mp_buf_append(b, u, 3);
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    mp_buf_append(b, u, 4);
  }
}

/* Append the first n bytes of s escaped (see put_cp). */
void report_esc_n(mp_buf *b, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    i += u8_next(u + i, n - i, &cp);
    put_cp(b, cp);
  }
}

void report_esc(mp_buf *b, const char *s) { report_esc_n(b, s ? s : "", s ? strlen(s) : 0); }

size_t report_u8_count(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; c++) {
    uint32_t cp;
    i += u8_next((const unsigned char *)s + i, n - i, &cp);
  }
  return c;
}

/* Append a label of at most `max` characters for a tensor name: the part
 * before the first ';' (TFLite joins fused names with it), and when that is
 * still too long its tail after an ellipsis (the tail holds the layer). */
void report_esc_label(mp_buf *b, const char *s, size_t max) {
  const char *semi = strchr(s, ';');
  size_t n = semi ? (size_t)(semi - s) : strlen(s);
  if (n == 0) n = strlen(s);
  size_t count = report_u8_count(s, n);
  if (max == 0) return;
  if (count <= max) {
    report_esc_n(b, s, n);
    return;
  }
  size_t skip = count - (max - 1), i = 0;
  for (size_t k = 0; k < skip; k++) {
    uint32_t cp;
    i += u8_next((const unsigned char *)s + i, n - i, &cp);
  }
  /* start the tail at a path separator when one is near: "…/conv_3/Relu" */
  const char *slash = memchr(s + i, '/', n - i);
  if (slash && (size_t)(slash - (s + i)) * 2 <= n - i && (size_t)(slash - s) + 1 < n)
    i = (size_t)(slash - s);
  mp_buf_puts(b, "\xE2\x80\xA6"); /* U+2026 */
  report_esc_n(b, s + i, n - i);
}

/* "54.0 KiB", "512 KiB", "96 B", "4 MiB" — short byte counts for labels. */
const char *report_hb(char *buf, size_t n, uint64_t v) {
  if (v >= 1024ull * 1024 && v % (1024ull * 1024) == 0)
    snprintf(buf, n, "%llu MiB", (unsigned long long)(v >> 20));
  else if (v >= 1024ull * 1024)
    snprintf(buf, n, "%.2f MiB", (double)v / (1024.0 * 1024.0));
  else if (v >= 1024 && v % 1024 == 0)
    snprintf(buf, n, "%llu KiB", (unsigned long long)(v >> 10));
  else if (v >= 1024)
    snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
  else
    snprintf(buf, n, "%llu B", (unsigned long long)v);
  return buf;
}

/* "55,296" — exact byte counts with thousands separators. */
const char *report_gb(char *buf, size_t n, uint64_t v) {
  char d[32];
  int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
  size_t o = 0;
  for (int i = 0; i < len && o + 2 < n; i++) {
    if (i > 0 && (len - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = d[i];
  }
  buf[o] = '\0';
  return buf;
}

void report_shape_str(const mp_tensor *t, char *buf, size_t n) {
  size_t len = (size_t)snprintf(buf, n, "%s[", mp_dtype_name(t->dtype));
  for (uint32_t d = 0; d < t->rank && len < n; d++)
    len += (size_t)snprintf(buf + len, n - len, d ? ",%d" : "%d", t->shape[d]);
  if (len < n) snprintf(buf + len, n - len, "]");
}

static kind tensor_kind(const report *r, uint32_t t) {
  const mp_allocation *a = &r->p->allocs[t];
  const mp_tensor *x = &r->g->tensors[t];
  if (a->binding.role == MP_ROLE_PERSISTENT) return K_PERS;
  if (a->binding.role == MP_ROLE_CONSTANT)
    return a->binding.source_memory != a->memory ? K_STAGED : K_CONST;
  if (x->is_input) return K_IN;
  if (x->is_output) return K_OUT;
  if (x->local_op >= 0 || x->producer < 0) return K_LOCAL;
  return K_ACT;
}

/* Kind of every tensor; a root takes input/output from any of its aliases,
 * since its slot is then that I/O buffer. */
void report_compute_kinds(report *r) {
  for (uint32_t t = 0; t < r->p->n_allocs; t++)
    r->kinds[t] = tensor_kind(r, t);
  for (uint32_t t = 0; t < r->p->n_allocs; t++) {
    int32_t root = r->p->allocs[t].alias_of;
    if (root < 0 || (uint32_t)root >= r->p->n_allocs) continue;
    const mp_tensor *x = &r->g->tensors[t];
    if (r->kinds[root] == K_ACT && x->is_output) r->kinds[root] = K_OUT;
    if ((r->kinds[root] == K_ACT || r->kinds[root] == K_OUT) && x->is_input) r->kinds[root] = K_IN;
  }
}

/* True when allocation t is a slot of arena ai (a placed non-alias). */
bool report_is_slot(const report *r, uint32_t t, uint32_t ai) {
  const mp_allocation *a = &r->p->allocs[t];
  return a->placed && a->alias_of < 0 && a->arena == ai;
}

/* Inclusive op columns of allocation t's rectangle. */
void report_slot_cols(const report *r, uint32_t t, uint32_t *c0, uint32_t *c1) {
  const mp_allocation *a = &r->p->allocs[t];
  *c0 = 0;
  *c1 = r->n_cols - 1;
  if (a->binding.role != MP_ROLE_SCRATCH) return;
  const mp_lifetime *lt = &r->p->lifetimes[t];
  if (lt->start_op < 0) return;
  *c0 = (uint32_t)lt->start_op < r->n_cols ? (uint32_t)lt->start_op : r->n_cols - 1;
  *c1 = lt->end_op >= lt->start_op && (uint32_t)lt->end_op < r->n_cols ? (uint32_t)lt->end_op
                                                                       : r->n_cols - 1;
  if (*c1 < *c0) *c1 = *c0;
}

/* Bytes the arena may grow to: its memory's budget less everything else
 * resident in that memory. */
uint64_t report_arena_budget(const mp_plan *p, const mp_arena *a) {
  const mp_memory_usage *u = &p->memories[a->memory];
  uint64_t others = u->used > a->total_size ? u->used - a->total_size : 0;
  return u->budget > others ? u->budget - others : 0;
}

/* "= lower bound", "+4.0 KiB (+8.1%)" */
void report_put_gap(mp_buf *b, uint64_t v, uint64_t lb) {
  char s[32];
  if (v < lb) { /* in place: tensors share bytes */
    double pct = 100.0 * (double)(lb - v) / (double)lb;
    mp_buf_printf(b, "<span class=\"ok\">&minus;%s (&minus;%.1f%%) in place</span>",
                  report_hb(s, sizeof s, lb - v), pct);
    return;
  }
  if (v == lb) {
    mp_buf_puts(b, "<span class=\"ok\">at the lower bound</span>");
    return;
  }
  double pct = lb ? 100.0 * (double)(v - lb) / (double)lb : 100.0;
  mp_buf_printf(b, "<span class=\"warn\">+%s (+%.1f%%)</span>", report_hb(s, sizeof s, v - lb), pct);
}

/* What is known of the smallest possible arena: optimal (at the lower bound
 * or proven by a search), an interval a search narrowed, or nothing beyond
 * the lower bound (the heuristics do not search). */
void report_put_proof(mp_buf *b, const mp_arena *a) {
  char s1[32], s2[32];
  if (a->proven_lower == a->proven_upper)
    mp_buf_printf(b, "<span class=\"ok\">optimal</span> (%s B)",
                  report_gb(s1, sizeof s1, a->proven_upper));
  else if (a->proven_lower > a->lower_bound || a->timed_out)
    mp_buf_printf(b, "optimum in [%s, %s] B", report_gb(s1, sizeof s1, a->proven_lower),
                  report_gb(s2, sizeof s2, a->proven_upper));
  else
    mp_buf_puts(b, "<span title=\"the heuristic planners do not search for a proof; the "
                   "exact planner does\">not proven</span>");
  if (a->timed_out) mp_buf_puts(b, " <span class=\"warn\">timed out</span>");
}

