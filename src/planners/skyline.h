/*
 * skyline.h — the skyline construction, a start for the search planners on
 * dense problems (internal).
 *
 * First fit places buffers in a fixed order, each at the lowest hole that
 * takes it.  The skyline construction turns this around: it keeps, for
 * every stretch of time, the height below which everything is taken (the
 * skyline), and repeatedly fills the lowest stretch of it with the unplaced
 * buffer that fits there and matters most, the one whose lifetime reaches
 * the time with the most bytes still to place (then the longer lifetime,
 * then the larger size).  A stretch that no unplaced buffer fits is raised
 * to its lower neighbour, which wastes that gap.  On problems where many
 * buffers are live at once and few times are distinct, this packs far
 * tighter than first fit of any fixed order (random lifetimes over 50
 * steps: within 0.1 % of the lower bound at 10 000 buffers, where the best
 * first-fit order stops 1.1 % above it).
 *
 * skyline.c gives the cost and what it does not do.
 */
#ifndef MP_SKYLINE_H
#define MP_SKYLINE_H

#include "memplan.h"

/* The search planners start from the skyline on problems above this many
 * buffers (below, their plans stay those of the greedy starts and the
 * search, as they were before the skyline existed). */
#define MP_SKYLINE_START_ITEMS 256u

/* Lay out items[0..n) (start <= end, power-of-two align) and write
 * offsets[0..n): a valid layout, every offset a multiple of its item's
 * align, no two items with intersecting lifetimes sharing a byte.
 * `work_limit` bounds the candidates looked at over the whole run (0 = no
 * bound; the count does not depend on the machine) and `deadline_ms` is a
 * CLOCK_MONOTONIC deadline in milliseconds (0 = none); when either stops the
 * run, *cut is set and offsets[] is not a layout.  Returns MP_ERR_NOMEM or
 * MP_OK; owns nothing on return. */
mp_status mp_skyline_solve(const mp_item *items, size_t n, uint64_t *offsets, uint64_t work_limit,
                           uint64_t deadline_ms, bool *cut);

#endif /* MP_SKYLINE_H */
