/*
 * synth.h — synthetic offset-assignment problems shaped like real graphs,
 * for benchmarks (internal header; planbench and bench use it).
 *
 * Each family imitates the lifetimes of one kind of network at any size:
 *   chain        op i produces tensor i, op i + 1 consumes it: [i, i + 1];
 *   cnn          a residual CNN: stages of shrinking feature maps, every
 *                block's input is also read by the block's add three to
 *                six ops later (skip connection), a few op-local buffers;
 *   transformer  layers of 12 ops with many small short-lived tensors, a
 *                residual stream per layer, and in one layer in eight a
 *                long-lived tensor (a cache) that stays live to a random
 *                later layer;
 *   random       not a graph: random intervals over 50 steps with random
 *                sizes, which first fit of the simple orders leaves well
 *                above the lower bound (it measures local search on moves
 *                rather than on an early stop);
 *   random_wide  random lifetimes spread over many distinct times: starts
 *                uniform over max(10, n / 5) steps, lengths exponential
 *                with a mean of a fiftieth of that, sizes drawn from three
 *                mixes (up to 4 KiB, multiples of 16 up to 1 KiB, up to
 *                200 KB); about n / 50 buffers live at any time, each over
 *                its own handful of distinct times, which is what makes
 *                first fit by size work hard (a fragmented layout that
 *                differs from one time to the next).
 * Sizes are rounded up to 16 bytes and every item has alignment 16.
 *
 * The one idea: a generator is a pure function of (family, n, seed) — its
 * own splitmix64 stream, no global state — so every run and every machine
 * sees the same problems.  It does not read models and checks nothing.
 */
#ifndef MP_SYNTH_H
#define MP_SYNTH_H

#include "memplan.h"

typedef enum mp_synth_family {
  MP_SYNTH_CHAIN = 0,
  MP_SYNTH_CNN = 1,
  MP_SYNTH_TRANSFORMER = 2,
  MP_SYNTH_RANDOM = 3,
  MP_SYNTH_RANDOM_WIDE = 4,
  MP_SYNTH_COUNT = 5
} mp_synth_family;

/* "chain", "cnn", "transformer", "random", "random_wide"; "unknown" when
 * out of range. */
const char *mp_synth_name(mp_synth_family f);

/* Write exactly n items of family f to items[0..n) (item i has id i).  The
 * same (f, n, seed) always gives the same items. */
void mp_synth_make(mp_synth_family f, size_t n, uint64_t seed, mp_item *items);

#endif /* MP_SYNTH_H */
