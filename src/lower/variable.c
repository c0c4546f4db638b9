/*
 * variable.c — lowering of the resource-variable operators: CALL_ONCE,
 * VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE.
 *
 * The graph has already made each variable a persistent tensor (its first
 * handle, src/graph/resources.c) with its start value, and run the init
 * subgraph of every CALL_ONCE at convert time.  So CALL_ONCE and VAR_HANDLE
 * run nothing, READ_VARIABLE is a copy (mpk_copy) from the variable to its
 * output and ASSIGN_VARIABLE a copy from its value into the variable, in
 * operator order, as TensorFlow Lite Micro's kernels memcpy them.  A copy,
 * not a view: a read's value must not change when a later ASSIGN writes the
 * variable.
 *
 * It refuses, naming the variable: a variable nothing assigns (no type nor
 * shape), a read or assign whose byte size differs from the variable's,
 * and what the graph recorded as the operator's refusal (a CALL_ONCE whose
 * init subgraph computes).
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

/* The tensor holding the variable of handle `h`, or -1 (reason set) when
 * it has no storage. */
static int32_t variable_of(mp_lower_ctx *c, int32_t h, mp_status *st) {
  *st = MP_OK;
  if (h < 0 || (uint32_t)h >= c->g->n_model_tensors || c->g->tensors[h].variable < 0) {
    *st = mp_lower_malformed(c, "its input 0 is not a VAR_HANDLE's output");
    return -1;
  }
  int32_t v = c->g->tensors[h].variable;
  if (c->g->tensors[v].size == 0) {
    *st = mp_lower_unsupported(c, "variable '%s' is never assigned, so its type and shape "
                                  "are unknown", c->g->tensors[v].name);
    return -1;
  }
  return v;
}

static mp_status copy(mp_lower_ctx *c, int32_t from, int32_t to) {
  uint64_t bytes = c->g->tensors[to].size;
  if (c->g->tensors[from].size != bytes || c->g->tensors[from].dtype != c->g->tensors[to].dtype)
    return mp_lower_unsupported(c, "it copies %s[%llu bytes] to %s[%llu bytes]",
                                mp_dtype_name(c->g->tensors[from].dtype),
                                (unsigned long long)c->g->tensors[from].size,
                                mp_dtype_name(c->g->tensors[to].dtype),
                                (unsigned long long)bytes);
  if (bytes > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "more than 2 GiB");
  c->lo->params.copy.bytes = (int32_t)bytes;
  mp_lower_set_kernel(c, MP_K_COPY);
  mp_lower_add_arg(c, from, false, "const void *");
  mp_lower_add_arg(c, to, true, "void *");
  return MP_OK;
}

static mp_status noop(mp_lower_ctx *c) {
  c->lo->supported = true;
  c->lo->noop = true;
  c->lo->kernel = MP_K_NONE;
  return MP_OK;
}

mp_status mp_lower_variable(mp_lower_ctx *c) {
  if (c->op->refusal) return mp_lower_unsupported(c, "%s", c->op->refusal);
  mp_status st;
  int32_t v;
  switch (c->op->builtin_code) {
  case OP_CALL_ONCE: return noop(c);
  case OP_VAR_HANDLE:
    if (c->op->n_outputs < 1) return mp_lower_malformed(c, "has no output");
    v = variable_of(c, c->op->outputs[0], &st);
    return v < 0 ? st : noop(c);
  case OP_READ_VARIABLE:
    if (c->op->n_inputs < 1 || c->op->n_outputs < 1 || c->op->outputs[0] < 0)
      return mp_lower_malformed(c, "needs a handle and an output");
    v = variable_of(c, c->op->inputs[0], &st);
    return v < 0 ? st : copy(c, v, c->op->outputs[0]);
  case OP_ASSIGN_VARIABLE:
    if (c->op->n_inputs < 2 || c->op->inputs[1] < 0)
      return mp_lower_malformed(c, "needs a handle and a value");
    v = variable_of(c, c->op->inputs[0], &st);
    return v < 0 ? st : copy(c, c->op->inputs[1], v);
  default: return mp_lower_unsupported(c, "not a resource-variable operator");
  }
}
