/*
 * planner_greedy.c — `greedy`, the default planner: first fit in
 * lifetime-start order.
 *
 * Algorithm:
 *   1. Order the items by start op; ties: larger size first, then lower id
 *      (then input position, so equal items keep their input order).
 *   2. Place each item, in that order, at the lowest offset that is a
 *      multiple of its alignment and overlaps no already placed item whose
 *      lifetime intersects its own (the shared first-fit engine,
 *      firstfit.h).
 *
 * It is the seeds' only non-experimental strategy and the most predictable
 * one: a tensor's slot depends only on the tensors placed before it.  It
 * takes no options.  O(n log n) plus the engine's cost per placement.
 */
#include "planners/firstfit.h"
#include "util/util.h"

#include <stdlib.h>

static mp_status greedy_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                              mp_solution *sol, const mp_diag_sink *dx) {
  (void)opts;
  (void)n_opts;
  (void)dx;
  uint32_t *order = malloc((p->n ? p->n : 1) * sizeof *order);
  if (!order) return MP_ERR_NOMEM;
  mp_status st = mp_firstfit_order_by_start(p->items, p->n, order);
  if (st == MP_OK) st = mp_firstfit_solve(p->items, p->n, order, sol->offsets);
  free(order);
  sol->iterations = 1;
  return st;
}

const mp_planner mp_planner_greedy = {
    .name = "greedy",
    .help = "First fit in lifetime-start order. The default, and the only "
            "non-experimental strategy.",
    .n_options = 0,
    .options = NULL,
    .solve = greedy_solve,
};
