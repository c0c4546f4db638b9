/*
 * spans.c — treaps of disjoint spans, the index behind the first-fit
 * engine's block sets and its sweep (spans.h).
 *
 * The one idea: the spans are disjoint, so the offset alone orders them,
 * and each node keeps its subtree's lowest offset, highest top and widest
 * gap between consecutive spans; a search for the lowest gap a size fits
 * in skips every subtree whose widest gap is too narrow, so it costs one
 * descent, O(log n) on average (random priorities).
 *
 * It allocates nothing (the caller owns the node array and the
 * priorities) and knows nothing of time: which spans share a treap is the
 * engine's business.
 */
#include "planners/spans.h"

#include "util/util.h"

#define NONE UINT64_MAX

void mp_spans_fix(mp_span_node *t, int32_t v) {
  mp_span_node *x = &t[v];
  x->min_off = x->off;
  x->max_top = x->top;
  x->gap = 0;
  if (x->left >= 0) {
    const mp_span_node *l = &t[x->left];
    x->min_off = l->min_off;
    x->gap = mp_max_u64(l->gap, x->off - l->max_top);
  }
  if (x->right >= 0) {
    const mp_span_node *r = &t[x->right];
    x->max_top = r->max_top;
    x->gap = mp_max_u64(x->gap, mp_max_u64(r->gap, r->min_off - x->top));
  }
}

/* Spans are disjoint, so the offset alone orders them. */
void mp_spans_split(mp_span_node *t, int32_t v, uint64_t off, int32_t *l, int32_t *r) {
  if (v < 0) {
    *l = *r = -1;
    return;
  }
  if (t[v].off < off) {
    mp_spans_split(t, t[v].right, off, &t[v].right, r);
    *l = v;
  } else {
    mp_spans_split(t, t[v].left, off, l, &t[v].left);
    *r = v;
  }
  mp_spans_fix(t, v);
}

int32_t mp_spans_merge(mp_span_node *t, int32_t a, int32_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (t[a].prio > t[b].prio) {
    t[a].right = mp_spans_merge(t, t[a].right, b);
    mp_spans_fix(t, a);
    return a;
  }
  t[b].left = mp_spans_merge(t, a, t[b].left);
  mp_spans_fix(t, b);
  return b;
}

/* Split v into the spans whose top is below `top` (*l) and the rest (*r). */
void mp_spans_split_top(mp_span_node *t, int32_t v, uint64_t top, int32_t *l, int32_t *r) {
  if (v < 0) {
    *l = *r = -1;
    return;
  }
  if (t[v].top < top) {
    mp_spans_split_top(t, t[v].right, top, &t[v].right, r);
    *l = v;
  } else {
    mp_spans_split_top(t, t[v].left, top, l, &t[v].left);
    *r = v;
  }
  mp_spans_fix(t, v);
}

/* Insert node x (a single span, disjoint from the others) into subtree v;
 * returns the new root. */
int32_t mp_spans_insert(mp_span_node *t, int32_t v, int32_t x) {
  if (v < 0) return x;
  if (t[x].prio > t[v].prio) {
    mp_spans_split(t, v, t[x].off, &t[x].left, &t[x].right);
    mp_spans_fix(t, x);
    return x;
  }
  if (t[x].off < t[v].off)
    t[v].left = mp_spans_insert(t, t[v].left, x);
  else
    t[v].right = mp_spans_insert(t, t[v].right, x);
  mp_spans_fix(t, v);
  return v;
}

/* Take the span at offset `off` out of subtree v; returns the new root. */
int32_t mp_spans_remove_at(mp_span_node *t, int32_t v, uint64_t off) {
  if (t[v].off == off) return mp_spans_merge(t, t[v].left, t[v].right);
  if (off < t[v].off)
    t[v].left = mp_spans_remove_at(t, t[v].left, off);
  else
    t[v].right = mp_spans_remove_at(t, t[v].right, off);
  mp_spans_fix(t, v);
  return v;
}

/* Refresh the subtree figures on the path from v to the span at `off`
 * (after that span grew without passing its neighbours). */
void mp_spans_fix_path(mp_span_node *t, int32_t v, uint64_t off) {
  if (t[v].off != off) mp_spans_fix_path(t, off < t[v].off ? t[v].left : t[v].right, off);
  mp_spans_fix(t, v);
}

/* The lowest aligned y >= x such that [y, y + size) lies in a gap of
 * subtree v (the gap before its first span starts at `from`), or NONE;
 * the space above its last span is the caller's. */
uint64_t mp_spans_lowest(const mp_span_node *t, int32_t v, uint64_t from, uint64_t x,
                         uint64_t size, uint64_t align) {
  if (v < 0) return NONE;
  const mp_span_node *n = &t[v];
  if (n->max_top <= x) return NONE; /* every gap in it ends below x */
  uint64_t lo = from > x ? from : x;
  if ((n->min_off <= lo || n->min_off - lo < size) && n->gap < size) return NONE;
  uint64_t r = mp_spans_lowest(t, n->left, from, x, size, align);
  if (r != NONE) return r;
  uint64_t g0 = n->left >= 0 ? t[n->left].max_top : from;
  uint64_t y = mp_align_up(g0 > x ? g0 : x, align);
  if (y <= n->off && n->off - y >= size) return y;
  return mp_spans_lowest(t, n->right, n->top, x, size, align);
}
