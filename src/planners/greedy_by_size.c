/*
 * planner_greedy_by_size.c — `greedy_by_size`: first fit, largest first.
 *
 * Algorithm:
 *   1. Order the items by size, largest first; ties: longer lifetime
 *      (end - start) first, then earlier start, then lower id (then input
 *      position).
 *   2. Place each item, in that order, at the lowest offset that is a
 *      multiple of its alignment and overlaps no already placed item whose
 *      lifetime intersects its own (the shared first-fit engine,
 *      firstfit.h).
 *
 * Placing the big tensors first lets the small ones fill the gaps between
 * them, which usually gives a lower high-water mark than start order on
 * models with very different tensor sizes.  Experimental in the seeds,
 * opt-in, no options.  O(n log n) plus the engine's cost per placement.
 */
#include "planners/firstfit.h"
#include "util/util.h"

#include <stdlib.h>

static mp_status greedy_by_size_solve(const mp_problem *p, const mp_option *opts,
                                      uint32_t n_opts, mp_solution *sol,
                                      const mp_diag_sink *dx) {
  (void)opts;
  (void)n_opts;
  (void)dx;
  uint32_t *order = malloc((p->n ? p->n : 1) * sizeof *order);
  if (!order) return MP_ERR_NOMEM;
  mp_status st = mp_firstfit_order_by_size(p->items, p->n, order);
  if (st == MP_OK) st = mp_firstfit_solve(p->items, p->n, order, sol->offsets);
  free(order);
  sol->iterations = 1;
  return st;
}

const mp_planner mp_planner_greedy_by_size = {
    .name = "greedy_by_size",
    .help = "First fit, largest first (ties: longer lifetime, earlier start, "
            "lower id). Experimental; typically a lower scratch high-water mark "
            "on models with heterogeneous tensor sizes.",
    .n_options = 0,
    .options = NULL,
    .solve = greedy_by_size_solve,
};
