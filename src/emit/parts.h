/*
 * parts.h — the parts of the C module emitter, each formatting one file
 * (or the kernel glue) from the emit context (text.h):
 *   header.c    include/<p>_model.h   types, macros, the API
 *   source.c    src/<p>_model.c       tensor/op/region tables, runtime
 *   arenas.c    src/<p>_arenas.c      arena symbols, constant bytes
 *   build.c     CMakeLists.txt, module.mk
 *   kernels.c   the per-op kernel glue (from the lowering, src/lower/lower.h)
 *   patch.c     the glue of a patched stage (memory.patch)
 *   runtime.sh  the kernel runtime files every module with kernels carries
 * The driver (emit.c) calls them; they call only text.c.
 */
#ifndef MP_EMIT_PARTS_H
#define MP_EMIT_PARTS_H

#include "emit/text.h"

/* The writers.  Each appends one file's complete text to `b`. */
void emit_header(const emit_ctx *e, mp_buf *b);
void emit_source(const emit_ctx *e, mp_buf *b);
void emit_arenas(const emit_ctx *e, mp_buf *b);
void emit_cmake(const emit_ctx *e, mp_buf *b);
void emit_makefile(const emit_ctx *e, mp_buf *b);

/* Lower every operator and write the kernel glue into e->glue; fills
 * e->kernels.  Fails on a malformed operator or on a kernel need the plan
 * does not cover (op-local scratch that was not planned). */
mp_status emit_kernels_prepare(emit_ctx *e);

/* The glue of operator op, the head of g's patched stage (memory.patch,
 * emit/patch.c): its params, per-tile tables and op<op>_run; marks k. */
mp_status emit_patch_stage(emit_ctx *e, emit_kernel *k, uint32_t op);

/* The kernel runtime files the module carries (mpk.h and its sources)
 * when any operator calls a built-in kernel. */
typedef struct emit_file {
  const char *name;         /* "mpk.h" */
  const char *text;
} emit_file;
uint32_t emit_runtime_count(void);
const emit_file *emit_runtime_at(uint32_t i);

#endif /* MP_EMIT_PARTS_H */
