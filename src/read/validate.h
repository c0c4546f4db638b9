/*
 * validate.h — the consistency check every model passes before any stage
 * uses it (validate.c).
 */
#ifndef MP_VALIDATE_H
#define MP_VALIDATE_H

#include "memplan.h"

/* Check what the reader cannot check field by field: every tensor's shape,
 * element count and quantisation, and every constant's bytes against its
 * shape, in every subgraph.  Reports the first inconsistency to dx with
 * the tensor, the field and the byte offset of its table, and returns
 * false.  The reader (mp_model_parse) calls it last, so a model that loads
 * has passed it. */
bool mp_model_validate(const mp_model *m, const mp_diag_sink *dx);

#endif /* MP_VALIDATE_H */
