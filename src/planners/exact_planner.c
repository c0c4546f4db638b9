/*
 * planner_exact.c — `exact`: the lowest height it can prove, or a proven
 * interval on the optimum when time runs out.
 *
 * Algorithm:
 *   1. Run the start heuristics and keep the lowest layout: the incumbent,
 *      and the first upper bound.  Up to SKYLINE_FIRST_ITEMS buffers they
 *      are greedy_by_size and greedy; above, start-order greedy (a sweep
 *      that always finishes), the skyline construction (skyline.h, the
 *      tightest on dense problems), greedy_by_size and the pressure order,
 *      each under its share of the time limit.  Then hill_climb, when the
 *      time limit is at least HILL_CLIMB_MIN_MS and the others missed the
 *      lower bound.
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
 * returns it with MP_OK, like any planner whose plan does not fit.  With a
 * capacity hill_climb does not run: the search at the capacity answers the
 * question itself, most often in a fraction of the time hill_climb would
 * take (MiniMalloc's challenging instance J: 0.14 s of CPU instead of
 * 0.7 s, with the same search nodes).
 *
 * It is never the default.  The time limit bounds everything it does,
 * starts included: the skyline gets until half of it, greedy_by_size
 * until three quarters, the pressure order until seven eighths (a start
 * its deadline stops is dropped; when neither the skyline nor
 * greedy_by_size finished, sol->cheap_start says that the layout comes
 * from start-order greedy); hill_climb runs only when half the time left
 * covers its setup, with a deadline at that half; the search gets the
 * rest, when it covers the search's setup (about the time the start-order
 * sweep took: both sort the buffers).
 * p->capacity is not a target: exact always minimises unless its own
 * `capacity` option is set.
 */
#include "planners/exact.h"
#include "planners/firstfit.h"
#include "planners/hill_climb.h"
#include "planners/skyline.h"
#include "util/util.h"

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
/* Above this many buffers the skyline is the first start after greedy: on
 * dense problems it alone comes near the lower bound, and on large ones
 * greedy_by_size may not leave it time.  Below, the starts are the two
 * greedy orders and the plans of models stay as they were. */
#define SKYLINE_FIRST_ITEMS MP_SKYLINE_START_ITEMS

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

/* Copy the layout `cand` to `best` when it is lower than *best_h. */
static void keep_if_lower(const mp_problem *p, const uint64_t *cand, uint64_t *best,
                          uint64_t *best_h) {
  uint64_t h = height_of(p, cand);
  if (h < *best_h) {
    *best_h = h;
    memcpy(best, cand, p->n * sizeof *cand);
  }
}

static mp_status exact_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                             mp_solution *sol, const mp_diag_sink *dx) {
  uint64_t t0 = mp_now_ms();
  const mp_planner *self = &mp_planner_exact;
  uint64_t limit_ms = (uint64_t)mp_option_get(self, opts, n_opts, "time_limit_ms", 10000);
  uint64_t capacity = (uint64_t)mp_option_get(self, opts, n_opts, "capacity", 0);
  uint64_t node_limit = (uint64_t)mp_option_get(self, opts, n_opts, "node_limit", 0);
  /* mp_solve has the lower bound already (it costs a sort: on a large
   * problem, time the limit must cover) */
  uint64_t deadline = t0 + limit_ms, lb = sol->lower_bound ? sol->lower_bound
                                                           : mp_problem_lower_bound(p);
  size_t n = p->n, nn = n ? n : 1;
  mp_progress_clock clk;
  mp_progress_begin(&clk, sol->progress, "exact");

  /* 1. the incumbent: the lowest of the start heuristics, all within the
   * time limit.  Above SKYLINE_FIRST_ITEMS buffers, start-order greedy
   * first (a sweep, O(n log n): it always finishes, so there is a layout
   * whatever the limit), then the skyline until half of the limit,
   * greedy_by_size until three quarters and the pressure order until
   * seven eighths; below, greedy_by_size and greedy, as they always were
   * (hill_climb and the search do the rest there).  When
   * neither the skyline nor greedy_by_size finished in time, the result
   * says that it started from start-order greedy. */
  uint64_t *tmp = malloc(nn * sizeof *tmp);
  uint32_t *order = malloc(nn * sizeof *order);
  mp_status st = tmp && order ? MP_OK : MP_ERR_NOMEM;
  bool sky_first = n > SKYLINE_FIRST_ITEMS, by_size_cut = false, sky_cut = false;
  bool sky_done = false, start_cut = false;
  uint64_t best_h = UINT64_MAX, by_size_ms = 0, greedy_ms = 0;
  for (int step = 0; step < 4 && st == MP_OK && best_h > lb; step++) {
    /* the starts in their order: 0 greedy, 1 skyline, 2 greedy_by_size,
     * 3 the pressure order (firstfit.h) */
    static const int big[4] = {0, 1, 2, 3}, small[4] = {2, 0, -1, -1};
    int kind = sky_first ? big[step] : small[step];
    /* on a large problem a start whose share of the limit is already spent
     * is not begun (its setup alone would run past the limit on a loaded
     * machine) */
    static const uint32_t share8[4] = {8, 4, 6, 7}; /* its deadline, in eighths of the limit */
    uint64_t until = kind >= 0 ? t0 + limit_ms / 8 * share8[kind] : 0;
    bool c = false;
    if (sky_first && kind > 0 && mp_now_ms() >= until) {
      if (kind == 1) sky_cut = true;
      if (kind == 2) by_size_cut = true;
      continue;
    }
    if (kind == 0) {
      uint64_t t1 = mp_now_ms();
      st = mp_firstfit_order_by_start(p->items, n, order);
      if (st == MP_OK) st = mp_firstfit_solve(p->items, n, order, tmp);
      greedy_ms = mp_now_ms() - t1;
    } else if (kind == 1) {
      st = mp_skyline_solve(p->items, n, tmp, 0, until, &c);
      sky_cut = c;
      sky_done = !c;
    } else if (kind == 2) {
      uint64_t t1 = mp_now_ms();
      st = mp_firstfit_order_by_size(p->items, n, order);
      if (st == MP_OK)
        st = mp_firstfit_solve_until(p->items, n, order, tmp, until, &c);
      by_size_cut = c;
      by_size_ms = mp_now_ms() - t1;
    } else if (kind == 3 && !by_size_cut) {
      st = mp_firstfit_order_by_pressure(p->items, n, order);
      if (st == MP_OK)
        st = mp_firstfit_solve_until(p->items, n, order, tmp, until, &c);
    } else {
      continue;
    }
    if (st == MP_OK && !c) keep_if_lower(p, tmp, sol->offsets, &best_h);
  }
  sol->cheap_start = by_size_cut && !sky_done;
  free(order);
  if (st != MP_OK) {
    free(tmp);
    return st;
  }
  mp_progress_update(&clk, best_h, lb, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP);

  /* hill_climb, when the limit leaves room for it: until half of what is
   * left when the search can follow, else (above the search's size) until
   * the limit itself */
  uint64_t now = mp_now_ms(), left = deadline > now ? deadline - now : 0;
  bool searchable = n <= MP_EXACT_MAX_SEARCH_ITEMS;
  uint64_t hc_left = searchable ? left / 2 : left;
  if (!by_size_cut && best_h > lb && !capacity && limit_ms >= HILL_CLIMB_MIN_MS &&
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
      free(tmp);
      return st;
    }
    start_cut = hs.timed_out; /* its deadline made the start timing-dependent */
    if (height_of(p, tmp) < best_h) {
      best_h = height_of(p, tmp);
      memcpy(sol->offsets, tmp, n * sizeof *tmp);
    }
  }
  free(tmp);
  mp_progress_update(&clk, best_h, lb, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP);

  /* 2. the search, in what is left of the time limit, if that covers its
   * setup (sorts of the buffers, about what the start-order sweep took) */
  now = mp_now_ms();
  mp_exact_result res;
  if (now + greedy_ms < deadline && best_h > lb) {
    mp_exact_params prm = {.time_limit_ms = deadline - now,
                           .node_limit = node_limit,
                           .capacity = capacity,
                           .progress = &clk,
                           .lower_bound = lb};
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
  sol->timed_out = res.timed_out || start_cut || by_size_cut || sky_cut;
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
