/*
 * firstfit_sweep.c — first fit in start order, in one pass over time, and
 * the one-shot solve that picks it (mp_firstfit_solve, firstfit.h).
 *
 * The one idea: when items come in start order, the placed items that
 * overlap a new one are exactly those still live at its start, and those
 * are pairwise disjoint in offset.  A sweep keeps just them, in a treap of
 * spans (spans.h) whose nodes also know the widest gap between
 * consecutive spans below them, so the lowest gap that fits is found in
 * O(log n) however many items are live.  Items leave the treap when the
 * sweep passes their end (a heap by end).  Same offsets as the general
 * engine (firstfit.c); mp_firstfit_solve picks the sweep when the order is
 * sorted by start, which is the greedy planner's, and the problem is
 * larger than the engine's scan handles best.
 *
 * It keeps no undo and answers no queries: a placement that must be taken
 * back, or an order not sorted by start, goes to the engine.
 */
#include "planners/firstfit.h"
#include "planners/spans.h"

#include "util/util.h"

#include <stdlib.h>

/* Up to MP_FIRSTFIT_SMALL_N items the engine's scan of one offset-sorted
 * array is as fast as the sweep. */

typedef struct sweep {
  mp_span_node *t;
  int32_t root;
} sweep;

static void tinsert(sweep *sw, int32_t v) {
  int32_t l, r;
  mp_spans_split(sw->t, sw->root, sw->t[v].off, &l, &r);
  sw->root = mp_spans_merge(sw->t, mp_spans_merge(sw->t, l, v), r);
}

static void tremove(sweep *sw, int32_t v) {
  int32_t l, mid, r;
  mp_spans_split(sw->t, sw->root, sw->t[v].off, &l, &mid);
  mp_spans_split(sw->t, mid, sw->t[v].top, &mid, &r); /* mid holds v alone */
  sw->root = mp_spans_merge(sw->t, l, r);
}

/* Lowest aligned x >= lo_bound where [x, x + size) fits in a gap of
 * subtree v, the gap before its first span starting at lo_bound; UINT64_MAX
 * when none does (the space above the subtree is the caller's). */
static uint64_t tsearch(const mp_span_node *t, int32_t v, uint64_t lo_bound, uint64_t size,
                        uint64_t align) {
  if (v < 0) return UINT64_MAX;
  const mp_span_node *x = &t[v];
  if (x->min_off - lo_bound < size && x->gap < size) return UINT64_MAX;
  uint64_t r = tsearch(t, x->left, lo_bound, size, align);
  if (r != UINT64_MAX) return r;
  uint64_t from = x->left >= 0 ? t[x->left].max_top : lo_bound;
  uint64_t a = mp_align_up(from, align);
  if (a + size <= x->off) return a;
  return tsearch(t, x->right, x->top, size, align);
}

typedef struct ending {
  int32_t end;
  uint32_t item;
} ending;

static bool ends_before(ending a, ending b) {
  return a.end < b.end || (a.end == b.end && a.item < b.item);
}

static void heap_push(ending *h, size_t *n, ending e) {
  size_t i = (*n)++;
  while (i > 0 && ends_before(e, h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = e;
}

static ending heap_pop(ending *h, size_t *n) {
  ending top = h[0], last = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && ends_before(h[c + 1], h[c])) c++;
    if (!ends_before(h[c], last)) break;
    h[i] = h[c];
    i = c;
  }
  if (*n) h[i] = last;
  return top;
}

static mp_status sweep_solve(const mp_item *items, size_t n, const uint32_t *order,
                             uint64_t *offsets) {
  sweep sw = {malloc((n ? n : 1) * sizeof(mp_span_node)), -1};
  ending *heap = malloc((n ? n : 1) * sizeof *heap);
  if (!sw.t || !heap) {
    free(sw.t);
    free(heap);
    return MP_ERR_NOMEM;
  }
  size_t nh = 0;
  uint64_t prio = 0x2545f4914f6cdd1dULL;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = order[k];
    const mp_item *it = &items[i];
    while (nh && heap[0].end < it->start) tremove(&sw, (int32_t)heap_pop(heap, &nh).item);
    if (it->size == 0) {
      offsets[i] = 0;
      continue;
    }
    uint64_t align = it->align ? it->align : 1;
    uint64_t x = tsearch(sw.t, sw.root, 0, it->size, align);
    if (x == UINT64_MAX) x = sw.root < 0 ? 0 : mp_align_up(sw.t[sw.root].max_top, align);
    offsets[i] = x;
    /* xorshift priorities: deterministic, and a balanced treap on average */
    prio ^= prio << 13;
    prio ^= prio >> 7;
    prio ^= prio << 17;
    sw.t[i] = (mp_span_node){x, x + it->size, 0, 0, 0, (uint32_t)(prio >> 32), -1, -1};
    mp_spans_fix(sw.t, (int32_t)i);
    tinsert(&sw, (int32_t)i);
    heap_push(heap, &nh, (ending){it->end, i});
  }
  free(sw.t);
  free(heap);
  return MP_OK;
}

mp_status mp_firstfit_solve_until(const mp_item *items, size_t n, const uint32_t *order,
                                  uint64_t *offsets, uint64_t deadline_ms, bool *cut) {
  *cut = false;
  bool by_start = true;
  for (size_t k = 1; k < n && by_start; k++)
    by_start = items[order[k - 1]].start <= items[order[k]].start;
  if (by_start && n > MP_FIRSTFIT_SMALL_N && n <= INT32_MAX) return sweep_solve(items, n, order, offsets);
  mp_firstfit *ff = NULL;
  mp_status st = mp_firstfit_new(items, n, &ff);
  if (st != MP_OK) return st;
  mp_firstfit_no_undo(ff);
  *cut = mp_firstfit_run_until(ff, order, n, 0, offsets, deadline_ms) == UINT64_MAX;
  mp_firstfit_free(&ff);
  return MP_OK;
}

mp_status mp_firstfit_solve(const mp_item *items, size_t n, const uint32_t *order,
                            uint64_t *offsets) {
  bool cut;
  return mp_firstfit_solve_until(items, n, order, offsets, 0, &cut);
}
