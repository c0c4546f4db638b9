/*
 * planner_greedy.c — `greedy`, the default planner: first fit in
 * lifetime-start order.
 *
 * Algorithm:
 *   1. Sort the items by start op (ties: larger first, then id).
 *   2. For each item in that order, look at the already placed items whose
 *      lifetimes overlap it, sorted by offset, and take the lowest aligned
 *      offset where it fits between them.
 *
 * This is the simple O(n^2) form; it is replaced by an indexed version when
 * measured too slow.
 */
#include "util.h"

#include <stdlib.h>

typedef struct ord {
  const mp_item *it;
  size_t idx;
} ord;

static int cmp_start(const void *a, const void *b) {
  const mp_item *x = ((const ord *)a)->it, *y = ((const ord *)b)->it;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

typedef struct span {
  uint64_t lo, hi;
} span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

static mp_status greedy_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                              mp_solution *sol, const mp_diag_sink *dx) {
  (void)opts;
  (void)n_opts;
  (void)dx;
  ord *o = malloc((p->n ? p->n : 1) * sizeof *o);
  span *busy = malloc((p->n ? p->n : 1) * sizeof *busy);
  bool *placed = calloc(p->n ? p->n : 1, 1);
  if (!o || !busy || !placed) {
    free(o);
    free(busy);
    free(placed);
    return MP_ERR_NOMEM;
  }
  for (size_t i = 0; i < p->n; i++) o[i] = (ord){&p->items[i], i};
  qsort(o, p->n, sizeof *o, cmp_start);
  for (size_t k = 0; k < p->n; k++) {
    const mp_item *it = o[k].it;
    size_t nb = 0;
    for (size_t j = 0; j < p->n; j++) {
      if (!placed[j]) continue;
      const mp_item *q = &p->items[j];
      if (q->start <= it->end && it->start <= q->end)
        busy[nb++] = (span){sol->offsets[j], sol->offsets[j] + q->size};
    }
    qsort(busy, nb, sizeof *busy, cmp_span);
    uint64_t off = 0;
    for (size_t j = 0; j < nb; j++) {
      off = mp_align_up(off, it->align);
      if (off + it->size <= busy[j].lo) break;
      if (busy[j].hi > off) off = busy[j].hi;
    }
    sol->offsets[o[k].idx] = mp_align_up(off, it->align);
    placed[o[k].idx] = true;
  }
  free(o);
  free(busy);
  free(placed);
  return MP_OK;
}

const mp_planner mp_planner_greedy = {
    .name = "greedy",
    .help = "First fit in lifetime-start order. The default, and the only "
            "non-experimental strategy.",
    .n_options = 0,
    .options = NULL,
    .solve = greedy_solve,
};
