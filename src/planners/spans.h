/*
 * spans.h — treaps of disjoint spans [off, top): nodes in one array,
 * linked by index (-1: none), ordered by offset, each knowing its
 * subtree's lowest offset, highest top and widest gap between consecutive
 * spans (spans.c).  The first-fit engine's block sets (firstfit.c) and its
 * sweep (firstfit_sweep.c) keep their spans in them.
 */
#ifndef MP_SPANS_H
#define MP_SPANS_H

#include <stdint.h>

typedef struct mp_span_node {
  uint64_t off, top;       /* this span */
  uint64_t min_off, max_top; /* of the subtree */
  uint64_t gap;            /* widest gap between consecutive spans of the subtree */
  uint32_t prio;
  int32_t left, right;
} mp_span_node;

/* Recompute node v's subtree figures from its children. */
void mp_spans_fix(mp_span_node *t, int32_t v);
/* Split v into the spans below offset `off` (*l) and the rest (*r). */
void mp_spans_split(mp_span_node *t, int32_t v, uint64_t off, int32_t *l, int32_t *r);
/* Join two treaps, every span of a below every span of b; the new root. */
int32_t mp_spans_merge(mp_span_node *t, int32_t a, int32_t b);
/* Split v into the spans whose top is below `top` (*l) and the rest (*r). */
void mp_spans_split_top(mp_span_node *t, int32_t v, uint64_t top, int32_t *l, int32_t *r);
/* Insert node x (a single span, disjoint from the others) into subtree v;
 * returns the new root. */
int32_t mp_spans_insert(mp_span_node *t, int32_t v, int32_t x);
/* Take the span at offset `off` out of subtree v; returns the new root. */
int32_t mp_spans_remove_at(mp_span_node *t, int32_t v, uint64_t off);
/* Refresh the subtree figures on the path from v to the span at `off`
 * (after that span grew without passing its neighbours). */
void mp_spans_fix_path(mp_span_node *t, int32_t v, uint64_t off);
/* The lowest aligned y >= x such that [y, y + size) lies in a gap of
 * subtree v (the gap before its first span starts at `from`), or
 * UINT64_MAX; the space above its last span is the caller's. */
uint64_t mp_spans_lowest(const mp_span_node *t, int32_t v, uint64_t from, uint64_t x,
                         uint64_t size, uint64_t align);

#endif
