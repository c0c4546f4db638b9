/*
 * progress.c — the planners' progress clock (see progress.h).
 */
#include "util/progress.h"

#include "util/util.h"

#include <string.h>

static uint64_t interval_ns(const mp_progress_clock *c) {
  return (uint64_t)(c->sink->interval_ms ? c->sink->interval_ms : 1000u) * 1000000u;
}

void mp_progress_begin(mp_progress_clock *c, const mp_progress_sink *sink, const char *planner) {
  memset(c, 0, sizeof *c);
  c->now.planner = planner;
  if (!sink || !sink->fn) return;
  c->sink = sink;
  c->t0_ns = mp_now_ns();
  c->next_ns = c->t0_ns + interval_ns(c);
}

static void send(mp_progress_clock *c, uint64_t t) {
  c->now.elapsed_s = (double)(t - c->t0_ns) * 1e-9;
  c->sink->fn(c->sink->user, &c->now);
  c->reported = true;
}

void mp_progress_update(mp_progress_clock *c, uint64_t best_height, uint64_t proven_lower,
                        uint64_t moves, uint64_t nodes) {
  if (!c || !c->sink) return;
  if (best_height != MP_PROGRESS_KEEP) c->now.best_height = best_height;
  if (proven_lower != MP_PROGRESS_KEEP) c->now.proven_lower = proven_lower;
  if (moves != MP_PROGRESS_KEEP) c->now.moves = moves;
  if (nodes != MP_PROGRESS_KEEP) c->now.nodes = nodes;
  uint64_t t = mp_now_ns();
  if (t < c->next_ns) return;
  /* the next report an interval from now, however late this one is */
  c->next_ns = t + interval_ns(c);
  send(c, t);
}

void mp_progress_end(mp_progress_clock *c) {
  if (!c || !c->sink || !c->reported) return;
  c->now.done = true;
  send(c, mp_now_ns());
  c->sink = NULL;
}
