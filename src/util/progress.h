/*
 * progress.h — how the planners report progress (internal header).
 *
 * A planner that can run long keeps one mp_progress_clock per run and
 * updates it with its figures as it goes; the clock calls the caller's
 * mp_progress_sink (memplan.h) when the sink's interval has passed, and
 * mp_progress_end sends the final report when an earlier one was sent.
 * Planners that call other planners (exact's hill_climb start,
 * hill_climb's exact tail) hand their clock on, so one run makes one
 * stream of reports under the name of the planner the caller chose.
 * With no sink every call returns at once.  The clock never influences a
 * planner's decisions: results stay deterministic.
 */
#ifndef MP_PROGRESS_H
#define MP_PROGRESS_H

#include "memplan.h"

typedef struct mp_progress_clock {
  const mp_progress_sink *sink; /* NULL: no reports */
  uint64_t t0_ns, next_ns;
  bool reported;
  mp_progress now;              /* the latest figures */
} mp_progress_clock;

/* Start a run of `planner` (a static string) reporting to `sink` (may be
 * NULL). */
void mp_progress_begin(mp_progress_clock *c, const mp_progress_sink *sink, const char *planner);

/* The latest figures; reports when the interval has passed.  A field left
 * at MP_PROGRESS_KEEP keeps its previous value. */
#define MP_PROGRESS_KEEP UINT64_MAX
void mp_progress_update(mp_progress_clock *c, uint64_t best_height, uint64_t proven_lower,
                        uint64_t moves, uint64_t nodes);

/* The final report (only when an earlier one was sent). */
void mp_progress_end(mp_progress_clock *c);

#endif /* MP_PROGRESS_H */
