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

static uint64_t elapsed_ms(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  int64_t ms = (int64_t)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
  return ms > 0 ? (uint64_t)ms : 0;
}

/* Height of a layout. */
static uint64_t height_of(const mp_problem *p, const uint64_t *off) {
  uint64_t h = 0;
  for (size_t i = 0; i < p->n; i++) h = mp_max_u64(h, off[i] + p->items[i].size);
  return h;
}

static mp_status exact_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                             mp_solution *sol, const mp_diag_sink *dx) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  const mp_planner *self = &mp_planner_exact;
  uint64_t limit_ms = (uint64_t)mp_option_get(self, opts, n_opts, "time_limit_ms", 10000);
  uint64_t capacity = (uint64_t)mp_option_get(self, opts, n_opts, "capacity", 0);
  uint64_t node_limit = (uint64_t)mp_option_get(self, opts, n_opts, "node_limit", 0);

  /* 1. the incumbent: the lowest of the heuristics.  hill_climb (which
   * may itself call the search for a few thousand nodes) only runs when
   * the limit leaves room for it: it is not interruptible. */
  static const char *const starts[] = {"greedy_by_size", "greedy", "hill_climb"};
  uint64_t *tmp = malloc((p->n ? p->n : 1) * sizeof *tmp);
  if (!tmp) return MP_ERR_NOMEM;
  bool have = false;
  uint64_t best_h = 0, by_size_ms = 0;
  bool start_cut = false;
  for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
    const mp_planner *h = mp_planner_find(starts[s]);
    if (!h) continue;
    if (!strcmp(starts[s], "hill_climb") &&
        (limit_ms < HILL_CLIMB_MIN_MS || best_h == mp_problem_lower_bound(p) ||
         (limit_ms > elapsed_ms(&t0) ? limit_ms - elapsed_ms(&t0) : 0) / 2 <
             HILL_CLIMB_SETUP_RUNS * (by_size_ms + 1)))
      continue;
    mp_solution hs = {.offsets = tmp};
    mp_status st;
    if (!strcmp(starts[s], "hill_climb")) {
      /* hill_climb may take seconds on large problems: give it at most half
       * of what is left, so the search keeps the rest and the limit holds */
      uint64_t left = limit_ms > elapsed_ms(&t0) ? limit_ms - elapsed_ms(&t0) : 0;
      mp_hill_climb_limits lim = {true, mp_hill_climb_now_ms() + left / 2};
      hs.lower_bound = mp_problem_lower_bound(p);
      st = mp_hill_climb_run(p, NULL, 0, &lim, &hs, NULL, dx);
      if (st == MP_OK) hs.height = height_of(p, tmp);
      start_cut = hs.timed_out; /* its deadline made the start timing-dependent */
    } else {
      uint64_t t = elapsed_ms(&t0);
      st = mp_solve(h, p, NULL, 0, &hs, dx);
      if (!strcmp(starts[s], "greedy_by_size")) by_size_ms = elapsed_ms(&t0) - t;
    }
    if (st != MP_OK) {
      free(tmp);
      return st;
    }
    if (!have || hs.height < best_h) {
      memcpy(sol->offsets, tmp, p->n * sizeof *tmp);
      best_h = hs.height;
      have = true;
    }
  }
  free(tmp);
  if (!have) return MP_ERR_INTERNAL; /* the table always holds greedy */

  /* 2. the search, in what is left of the time limit */
  uint64_t spent = elapsed_ms(&t0);
  mp_exact_result res;
  if (spent < limit_ms) {
    mp_exact_params prm = {
        .time_limit_ms = limit_ms - spent, .node_limit = node_limit, .capacity = capacity};
    mp_status st = mp_exact_improve(p, sol->offsets, &prm, &res, dx);
    if (st != MP_OK) return st;
  } else {
    memset(&res, 0, sizeof res);
    res.height = height_of(p, sol->offsets);
    res.proven_lower = mp_problem_lower_bound(p);
    res.proven_upper = res.height;
    res.timed_out = true;
  }

  /* 3. the interval (mp_solve recomputes height and clamps the bounds) */
  sol->proven_lower = res.proven_lower;
  sol->proven_upper = res.proven_upper;
  sol->timed_out = res.timed_out || start_cut;
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
