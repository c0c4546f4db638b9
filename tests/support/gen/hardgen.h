/*
 * hardgen.h — hard offset-assignment instances with a known optimum, for
 * tests and benchmarks (internal header).
 *
 * An instance is made by cutting a full rectangle of height H (bytes) by T
 * (time steps) into n pieces; each piece is one buffer.  The pieces tile the
 * rectangle, so at every time step the live sizes sum to exactly H: the
 * lower bound is H and the construction reaches it, so the optimum is H.
 * Nothing is left over to absorb a mistake, which is what makes the
 * instances hard for first-fit heuristics.
 */
#ifndef MP_HARDGEN_H
#define MP_HARDGEN_H

#include "memplan.h"
#include "util/util.h"

typedef struct mp_hardgen_params {
  uint32_t n;      /* buffers, >= 1 */
  uint64_t height; /* H, a multiple of unit and >= n * unit */
  uint32_t span;   /* T: time steps, >= n */
  uint32_t unit;   /* sizes are multiples of it (power of two; 1 = any size) */
  uint64_t seed;   /* the same parameters give the same instance */
  uint32_t time_unit; /* cuts across time fall on multiples of it (0 or 1: any
                         step); a coarse grid gives many buffers the same
                         lifetime, as in compiler-made instances */
} mp_hardgen_params;

/* Cut the H x T rectangle into prm->n pieces by recursive guillotine cuts:
 * repeatedly pick a piece (with probability proportional to its area) and
 * cut it across time or across space (the longer side, relative to T and H,
 * is more likely), at a uniform position.  A piece of full height H is
 * never cut across time, so the instance does not fall apart into
 * independent halves.  Cuts fall on multiples of prm->unit across space and
 * of prm->time_unit across time.  The pieces are shuffled; items[i] gets id i, align 1
 * and the inclusive lifetime [t0, t1 - 1] of its piece; `offsets` (may be
 * NULL) receives the construction's layout, of height exactly H.  Fails with
 * MP_ERR_CONFIG (and a diagnostic) on parameters that cannot give n pieces. */
mp_status mp_hardgen_make(const mp_hardgen_params *prm, mp_item *items, uint64_t *offsets,
                          const mp_diag_sink *dx);

/* Append the problem as the CSV `memplan solve` reads: a header
 * `id,lower,upper,size` and one row per item with the half-open lifetime
 * [start, end + 1). */
void mp_hardgen_write_csv(const mp_item *items, size_t n, mp_buf *out);

#endif /* MP_HARDGEN_H */
