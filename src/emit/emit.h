/*
 * emit.h — the C module emitter's driver (emit.c), for the fuzzer and the
 * tests: the files a convert would write, handed over in memory.
 *
 * The emitter is in parts: emit.c gathers the context and drives the
 * parts (parts.h), which format it with the helpers of text.h.  Nothing is
 * written until every file's text is complete, so a failure leaves the
 * module folder as it was.
 */
#ifndef MP_EMIT_H
#define MP_EMIT_H

#include "emit/parts.h"

/* The files mp_emit_module would write, handed to fn one by one (a path
 * inside the module folder, the bytes) instead of written: nothing touches
 * the disk, and cfg->report_path is ignored.  For the fuzzer and tests.
 * Stops at the first status fn returns other than MP_OK. */
typedef mp_status (*emit_file_fn)(void *user, const char *rel, const void *data, size_t size);
mp_status emit_module_files(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx,
                            emit_file_fn fn, void *user);

#endif /* MP_EMIT_H */
