/*
 * exact.h — the exact offset-assignment search behind the `exact` planner,
 * and its entry for other planners (internal header).
 *
 * mp_exact_improve takes a valid layout of a problem, searches for the
 * lowest height it can reach, and proves an interval [proven_lower,
 * proven_upper] on the optimum.  It never returns a layout worse than the
 * one it was given.  The search is a depth-first branch and bound over
 * "canonical" layouts (src/planners/exact.c explains the algorithm); it stops at a
 * wall-clock limit, at a node limit, or when lower == upper.
 *
 * Calling it from another planner (hill_climb):
 *   - pass the planner's finished layout in `offsets`; on return `offsets`
 *     holds the best layout found (the input when nothing better exists);
 *   - for a result that is deterministic for the same inputs, bound the
 *     search with `node_limit` only (time_limit_ms = 0): node counts do not
 *     depend on the machine.  A time limit is a safety net; when it cuts the
 *     search the result may differ from run to run (res->timed_out says so);
 *   - the search uses no random generator (its restarts perturb rankings by
 *     hashes), so it does not disturb a caller's seed;
 *   - it does not call other planners, so a planner may call it freely.
 *   A node costs roughly 5-10 us on problems of a few hundred buffers
 *   (less on small ones): a budget of 10 000 nodes is 50-100 ms.
 *   hill_climb uses it as its "exact tail" (5 nodes per iteration).
 */
#ifndef MP_EXACT_H
#define MP_EXACT_H

#include "memplan.h"
#include "util/progress.h"

/* Components above this many buffers are not searched (their layout is
 * kept; res->skipped). */
#define MP_EXACT_MAX_SEARCH_ITEMS 4096u

typedef struct mp_exact_params {
  uint64_t time_limit_ms; /* wall-clock limit; 0 = none (with node_limit 0 too, the
                             search runs until the interval closes) */
  uint64_t node_limit;    /* search nodes over the whole call; 0 = none */
  uint64_t capacity;      /* 0: minimise the height.  Else stop at the first
                             layout of height <= capacity, or prove none exists */
  mp_progress_clock *progress; /* optional: the caller's progress clock; the
                             search adds its nodes to the clock's count */
  uint64_t lower_bound;   /* mp_problem_lower_bound(p) when the caller knows it
                             (0: computed here) */
} mp_exact_params;

typedef struct mp_exact_result {
  uint64_t height;        /* of the layout left in `offsets` */
  uint64_t lower_bound;   /* max over time of the live sum */
  uint64_t proven_lower;  /* lower <= OPT; > capacity proves a capacity infeasible */
  uint64_t proven_upper;  /* OPT <= upper (== height) */
  bool timed_out;         /* a time or node limit cut the search */
  bool skipped;           /* the problem was too large to search (memory cap);
                             the interval is then [lower_bound or better, height] */
  uint64_t nodes;         /* search nodes visited */
  uint32_t probes;        /* capacity probes run */
} mp_exact_result;

/* Improve the layout `offsets` (p->n entries, a valid layout of p on entry:
 * aligned, no two lifetime-overlapping items sharing a byte) within the
 * limits of `prm`.  On return `offsets` holds the best layout found and
 * `res` the proven interval.  p->capacity is ignored; prm->capacity is the
 * target.  Fails with MP_ERR_INTERNAL (and a diagnostic) when the given
 * layout is invalid, MP_ERR_NOMEM when memory runs out; `offsets` is left
 * unchanged on failure.  Memory use is bounded: problems whose overlap
 * graph exceeds a fixed cap are not searched (res->skipped). */
mp_status mp_exact_improve(const mp_problem *p, uint64_t *offsets, const mp_exact_params *prm,
                           mp_exact_result *res, const mp_diag_sink *dx);

#endif /* MP_EXACT_H */
