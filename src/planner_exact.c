/*
 * planner_exact.c — `exact`: the lowest height it can prove, or a proven
 * interval on the optimum when time runs out.
 *
 * Algorithm:
 *   1. Run the heuristics of the table (greedy_by_size, greedy, and
 *      hill_climb when the time limit is at least HILL_CLIMB_MIN_MS and the
 *      others missed the lower bound) and keep the lowest layout: the
 *      incumbent, and the first upper bound.
 *   2. Hand it to the exact search (exact.c): branch and bound over
 *      canonical layouts, which probes the capacity "lower bound" first and
 *      then bisects between the proven lower bound and the best height,
 *      until they meet or the time limit is reached.
 *   3. Report the best layout, [proven_lower, proven_upper] and whether the
 *      time limit cut the search.
 * With the `capacity` option (`memplan solve --capacity` sets it) the
 * planner answers a yes/no question instead: the first layout within the
 * capacity, or a proof (proven_lower > capacity) that there is none; then
 * it spends the time left on the lowest layout above the capacity and
 * returns it with MP_OK, like any planner whose plan does not fit.
 *
 * It is never the default.  The time limit bounds everything but the two
 * greedy starts (O(n log n), milliseconds at 100k buffers of a typical
 * graph, under a second on dense ones): hill_climb runs only when half the
 * time left covers its setup, with a deadline at that half; the search
 * gets the rest.
 * p->capacity is not a target: exact always minimises unless its own
 * `capacity` option is set.
 */
#include "exact.h"
#include "firstfit.h"
#include "planner_hill_climb.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const mp_planner mp_planner_exact;

/* hill_climb joins the start heuristics from this time limit up, and only
 * when half the time left covers HILL_CLIMB_SETUP_RUNS greedy_by_size runs:
 * before its first move it lays the problem out about that many times,
 * which on a large, dense problem takes longer than a short limit allows
 * (its moves stop at the deadline; its setup cannot). */
#define HILL_CLIMB_MIN_MS 200u
/* hill_climb's iterations when no search follows it: its deadline, not
 * its work bound, ends it, or HILL_CLIMB_ALONE_STALL moves in a row that
 * find nothing better. */
#define HILL_CLIMB_ALONE_ITERATIONS 100000000
#define HILL_CLIMB_ALONE_STALL 4000
/* The pressure start runs above this many buffers (below, the search and
 * hill_climb do better, and plans of models stay as they were). */
#define PRESSURE_MIN_ITEMS 256u
#define HILL_CLIMB_SETUP_RUNS 4u

static const mp_option_spec exact_options[] = {
    {"time_limit_ms", 1, 86400000, 10000, true,
     "Wall-clock limit of the search in milliseconds. When it is reached the "
     "best layout found is returned with the proven interval on the optimum."},
    {"capacity", 0, INT64_MAX, 0, true,
     "Find any layout of at most this many bytes, or prove that none exists, "
     "instead of minimising the height (0: minimise)."},
    {"node_limit", 0, INT64_MAX, 0, true,
     "Stop after this many search nodes (0: no limit). A node limit, unlike "
     "the time limit, gives the same result on every machine."},
};

/* Height of a layout. */
static uint64_t height_of(const mp_problem *p, const uint64_t *off) {
  uint64_t h = 0;
  for (size_t i = 0; i < p->n; i++) h = mp_max_u64(h, off[i] + p->items[i].size);
  return h;
}

static mp_status exact_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                             mp_solution *sol, const mp_diag_sink *dx) {
  uint64_t t0 = mp_hill_climb_now_ms();
  const mp_planner *self = &mp_planner_exact;
  uint64_t limit_ms = (uint64_t)mp_option_get(self, opts, n_opts, "time_limit_ms", 10000);
  uint64_t capacity = (uint64_t)mp_option_get(self, opts, n_opts, "capacity", 0);
  uint64_t node_limit = (uint64_t)mp_option_get(self, opts, n_opts, "node_limit", 0);
  uint64_t deadline = t0 + limit_ms, lb = mp_problem_lower_bound(p);
  size_t n = p->n, nn = n ? n : 1;
  mp_progress_clock clk;
  mp_progress_begin(&clk, sol->progress, "exact");

  /* 1. the incumbent: the lowest of the start heuristics, all within the
   * time limit.  greedy_by_size gets until half of it (on a large, dense
   * problem it may not finish: then start-order greedy, a sweep that
   * always does, stands in for it and the result says so). */
  uint64_t *by_size = malloc(nn * sizeof *by_size), *tmp = malloc(nn * sizeof *tmp);
  uint32_t *order = malloc(nn * sizeof *order);
  mp_status st = by_size && tmp && order ? MP_OK : MP_ERR_NOMEM;
  bool cut = false, start_cut = false;
  uint64_t best_h = UINT64_MAX;
  if (st == MP_OK) st = mp_firstfit_order_by_size(p->items, n, order);
  if (st == MP_OK) st = mp_firstfit_solve_until(p->items, n, order, by_size, t0 + limit_ms / 2, &cut);
  if (st == MP_OK && !cut) {
    best_h = height_of(p, by_size);
    memcpy(sol->offsets, by_size, n * sizeof *by_size);
  }
  sol->cheap_start = cut;
  uint64_t by_size_ms = mp_hill_climb_now_ms() - t0;
  if (st == MP_OK && best_h > lb) {
    st = mp_firstfit_order_by_start(p->items, n, order);
    if (st == MP_OK) st = mp_firstfit_solve(p->items, n, order, tmp);
    if (st == MP_OK && height_of(p, tmp) < best_h) {
      best_h = height_of(p, tmp);
      memcpy(sol->offsets, tmp, n * sizeof *tmp);
    }
  }
  /* the pressure order (firstfit.h), which packs dense problems tighter
   * than both, until three quarters of the limit */
  if (st == MP_OK && best_h > lb && !cut && n > PRESSURE_MIN_ITEMS) {
    bool pcut = false;
    st = mp_firstfit_order_by_pressure(p->items, n, order);
    if (st == MP_OK)
      st = mp_firstfit_solve_until(p->items, n, order, tmp, t0 + limit_ms / 4 * 3, &pcut);
    if (st == MP_OK && !pcut && height_of(p, tmp) < best_h) {
      best_h = height_of(p, tmp);
      memcpy(sol->offsets, tmp, n * sizeof *tmp);
    }
  }
  free(order);
  if (st != MP_OK) {
    free(by_size);
    free(tmp);
    return st;
  }
  mp_progress_update(&clk, best_h, lb, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP);

  /* hill_climb, when the limit leaves room for it: until half of what is
   * left when the search can follow, else (above the search's size) until
   * the limit itself */
  uint64_t now = mp_hill_climb_now_ms(), left = deadline > now ? deadline - now : 0;
  bool searchable = n <= MP_EXACT_MAX_SEARCH_ITEMS;
  uint64_t hc_left = searchable ? left / 2 : left;
  if (!cut && best_h > lb && limit_ms >= HILL_CLIMB_MIN_MS &&
      hc_left >= HILL_CLIMB_SETUP_RUNS * (by_size_ms + 1)) {
    mp_hill_climb_limits lim = {.exact_tail = true,
                                .deadline_ms = now + hc_left,
                                .progress = &clk,
                                .start = sol->offsets,
                                .start_height = best_h};
    mp_solution hs = {.offsets = tmp, .lower_bound = lb};
    /* when no search follows, hill_climb's moves may use all the time */
    char k_it[] = "iterations", k_stall[] = "max_stall_iterations";
    mp_option more[] = {{k_it, HILL_CLIMB_ALONE_ITERATIONS}, {k_stall, HILL_CLIMB_ALONE_STALL}};
    st = mp_hill_climb_run(p, searchable ? NULL : more, searchable ? 0 : 2, &lim, &hs, NULL, dx);
    if (st != MP_OK) {
      free(by_size);
      free(tmp);
      return st;
    }
    start_cut = hs.timed_out; /* its deadline made the start timing-dependent */
    if (height_of(p, tmp) < best_h) {
      best_h = height_of(p, tmp);
      memcpy(sol->offsets, tmp, n * sizeof *tmp);
    }
  }
  free(by_size);
  free(tmp);
  mp_progress_update(&clk, best_h, lb, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP);

  /* 2. the search, in what is left of the time limit */
  now = mp_hill_climb_now_ms();
  mp_exact_result res;
  if (now < deadline && best_h > lb) {
    mp_exact_params prm = {.time_limit_ms = deadline - now,
                           .node_limit = node_limit,
                           .capacity = capacity,
                           .progress = &clk};
    st = mp_exact_improve(p, sol->offsets, &prm, &res, dx);
    if (st != MP_OK) return st;
  } else {
    memset(&res, 0, sizeof res);
    res.height = height_of(p, sol->offsets);
    res.proven_lower = lb;
    res.proven_upper = res.height;
    res.timed_out = res.height > lb;
  }
  mp_progress_update(&clk, res.height, res.proven_lower, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP);
  mp_progress_end(&clk);

  /* 3. the interval (mp_solve recomputes height and clamps the bounds) */
  sol->proven_lower = res.proven_lower;
  sol->proven_upper = res.proven_upper;
  sol->timed_out = res.timed_out || start_cut || cut;
  sol->iterations = res.nodes;
  return MP_OK;
}

const mp_planner mp_planner_exact = {
    .name = "exact",
    .help = "Branch-and-bound search for the lowest height: returns the best "
            "layout found and a proven interval [lower, upper] on the optimum "
            "(lower == upper when the search finished within time_limit_ms). "
            "Experimental; never the default.",
    .n_options = sizeof exact_options / sizeof exact_options[0],
    .options = exact_options,
    .solve = exact_solve,
};
