/*
 * verify_patch.h — the verifier's check of a patched stage (memory.patch).
 * Internal to the library; mp_plan_verify calls it.
 */
#ifndef MP_VERIFY_PATCH_H
#define MP_VERIFY_PATCH_H

#include "memplan.h"

/* Check p's patched stage, if any (verify_patch.c): MP_OK, or
 * MP_ERR_VERIFY with a diagnostic naming the tile and the operator. */
mp_status mp_verify_patch(const mp_plan *p, const mp_diag_sink *dx);

/* May the patched stage run by operator `op` write its output `out` (a
 * root) at offset(in) - offset(out) = d from its input `in`?  Replays the
 * module's tile calls in order: no byte a tile writes of the output may be
 * an input byte that tile (while it writes) or a later tile reads.  *ok
 * false when it may not (or op runs no stage, or in / out are not its
 * input and output), with the first clash in why. */
void mp_verify_patch_overlap(const mp_graph *g, int32_t op, uint32_t in, uint32_t out, int64_t d,
                             bool *ok, char *why, size_t nwhy);

#endif /* MP_VERIFY_PATCH_H */
