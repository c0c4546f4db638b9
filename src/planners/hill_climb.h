/*
 * planner_hill_climb.h — hill_climb's internal entry, for the benchmark
 * (internal header).
 *
 * The planner table runs hill_climb with its exact tail (the bounded
 * exact search it may run when the local search ends above the lower
 * bound; planner_hill_climb.c explains both).  The benchmark also wants
 * the local search alone, to measure what the tail buys, and the height
 * the local search reached before the tail.
 */
#ifndef MP_PLANNER_HILL_CLIMB_H
#define MP_PLANNER_HILL_CLIMB_H

#include "memplan.h"
#include "util/progress.h"

/* The exact tail's node budget per iteration: 5 x `iterations` nodes in
 * all (10 000 with the defaults; milliseconds on a few hundred buffers). */
#define MP_HILL_CLIMB_EXACT_NODES_PER_ITERATION 5u
/* Placements (decoding steps) allowed per iteration over the whole search:
 * a move re-places the items after the first position it changes, so it
 * costs up to n placements.  Below ~1000 items this never binds; above, it
 * keeps the time per iteration what it is at ~1000 items, and a large
 * problem makes fewer moves. */
#define MP_HILL_CLIMB_WORK_PER_ITERATION 1000u

typedef struct mp_hill_climb_report {
  uint64_t search_height; /* height after the local search, before the tail */
  uint64_t exact_nodes;   /* nodes the exact tail visited (0: it did not run) */
  bool exact_proved;      /* the tail proved its result optimal */
} mp_hill_climb_report;

/* How a caller bounds a run beyond the options. */
typedef struct mp_hill_climb_limits {
  bool exact_tail;        /* run the exact tail (the planner table does) */
  /* CLOCK_MONOTONIC deadline in milliseconds, 0 = none.  Checked before
   * every move and before the tail; a run that reaches it stops with its
   * best layout so far (then the result depends on the machine's speed).
   * The exact planner sets it so that its start heuristic cannot overrun
   * exact's time limit; the planner table never does. */
  uint64_t deadline_ms;
  /* Optional: the caller's progress clock (exact's), updated instead of
   * hill_climb's own. */
  mp_progress_clock *progress;
  /* Optional: the caller's best layout and its height, no worse than the
   * greedy_by_size layout (exact's best start), used instead of computing
   * greedy_by_size again. */
  const uint64_t *start;
  uint64_t start_height;
} mp_hill_climb_limits;

/* hill_climb with options `opts` as the planner table runs it, bounded by
 * `lim` (NULL: the table's run: tail on, no deadline).  `rep` may be NULL.
 * Fills sol like mp_solve's planner call (sol->lower_bound may be preset);
 * sol->timed_out says when a deadline (the limits' or the `time_limit_ms`
 * option's) cut the run, sol->cheap_start when it cut the greedy_by_size
 * start and the run started from start-order greedy. */
mp_status mp_hill_climb_run(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                            const mp_hill_climb_limits *lim, mp_solution *sol,
                            mp_hill_climb_report *rep, const mp_diag_sink *dx);

#endif /* MP_PLANNER_HILL_CLIMB_H */
