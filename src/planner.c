/*
 * planner.c — the planner table and what every planner shares: option
 * lookup, the lower bound of a problem, and mp_solve's bookkeeping.
 *
 * A planner is one file defining one `const mp_planner` (name, help, option
 * schema, solve function) and one row in the table below.  The table order
 * is the order `--help` lists them in.
 */
#include "util.h"

#include <stdlib.h>
#include <string.h>

extern const mp_planner mp_planner_greedy;

static const mp_planner *const planners[] = {
    &mp_planner_greedy,
};

uint32_t mp_planner_count(void) { return (uint32_t)(sizeof planners / sizeof planners[0]); }

const mp_planner *mp_planner_at(uint32_t i) { return i < mp_planner_count() ? planners[i] : NULL; }

const mp_planner *mp_planner_find(const char *name) {
  for (uint32_t i = 0; name && i < mp_planner_count(); i++)
    if (!strcmp(planners[i]->name, name)) return planners[i];
  return NULL;
}

int64_t mp_option_get(const mp_planner *pl, const mp_option *opts, uint32_t n_opts,
                      const char *key, int64_t fallback) {
  for (uint32_t i = 0; i < n_opts; i++)
    if (!strcmp(opts[i].key, key)) return opts[i].value;
  for (uint32_t i = 0; pl && i < pl->n_options; i++)
    if (!strcmp(pl->options[i].key, key) && pl->options[i].has_default) return pl->options[i].def;
  return fallback;
}

typedef struct event {
  int32_t t;
  int64_t delta;
} event;

static int cmp_event(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  /* removals (negative) after additions at the same time: both are live */
  return (x->delta < y->delta) - (x->delta > y->delta);
}

uint64_t mp_problem_lower_bound(const mp_problem *p) {
  if (p->n == 0) return 0;
  event *ev = malloc(2 * p->n * sizeof *ev);
  if (!ev) return 0;
  for (size_t i = 0; i < p->n; i++) {
    ev[2 * i] = (event){p->items[i].start, (int64_t)p->items[i].size};
    /* inclusive end: the item stops being live at end + 1 */
    ev[2 * i + 1] = (event){p->items[i].end + 1, -(int64_t)p->items[i].size};
  }
  qsort(ev, 2 * p->n, sizeof *ev, cmp_event);
  int64_t live = 0, best = 0;
  for (size_t i = 0; i < 2 * p->n; i++) {
    live += ev[i].delta;
    if (live > best) best = live;
  }
  free(ev);
  return (uint64_t)best;
}

mp_status mp_solve(const mp_planner *pl, const mp_problem *p, const mp_option *opts,
                   uint32_t n_opts, mp_solution *sol, const mp_diag_sink *dx) {
  uint64_t *offsets = sol->offsets;
  memset(sol, 0, sizeof *sol);
  sol->offsets = offsets;
  sol->lower_bound = mp_problem_lower_bound(p);
  for (size_t i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->start > it->end || it->start < 0 || !mp_is_pow2(it->align)) return MP_ERR_INTERNAL;
  }
  mp_status st = pl->solve(p, opts, n_opts, sol, dx);
  if (st != MP_OK) return st;
  uint64_t h = 0;
  for (size_t i = 0; i < p->n; i++) h = mp_max_u64(h, sol->offsets[i] + p->items[i].size);
  sol->height = h;
  if (sol->proven_upper == 0 || sol->proven_upper > h) sol->proven_upper = h;
  if (sol->proven_lower < sol->lower_bound) sol->proven_lower = sol->lower_bound;
  return MP_OK;
}
