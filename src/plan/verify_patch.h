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

#endif /* MP_VERIFY_PATCH_H */
