/*
 * fold.c — constant folding at convert time: an operator whose result the
 * model already fixes is computed once, on the host, and its outputs become
 * constants.
 *
 * Which operators: a SHAPE (with int32 output: TFLM refuses int64), whose
 * result is its input's static shape whatever the input holds; and any
 * operator whose inputs are all constants, once the operators before it
 * were folded, so that chains such as converted Keras models' SHAPE ->
 * STRIDED_SLICE -> PACK -> RESHAPE shape arithmetic fold through.  The one
 * idea: the result comes from the operator's own lowering and reference
 * kernel (mp_lower_eval; mpk_shape for SHAPE), so it is the bytes the
 * device would compute, never a second implementation.
 *
 * What it does not fold: an operator whose kernel mp_lower_eval does not
 * run (it then runs on the device as before), one the lowering refuses,
 * one writing a graph output or a variable, resource-variable and custom
 * operators, and a result larger than both 64 bytes and the constant
 * inputs it is computed from (a DEQUANTIZE of int8 weights would store
 * four times their bytes; it keeps running on the device instead).
 */
#include "graph/rewrite.h"
#include "lower/lower.h"
#include "read/opcodes.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A folded result is kept up to this size even when its constant inputs
 * are smaller: shape vectors, scalars. */
#define SMALL_RESULT 64

static bool foldable_code(int32_t code) {
  switch (code) {
  case OP_CUSTOM:
  case OP_CALL_ONCE:
  case OP_VAR_HANDLE:
  case OP_READ_VARIABLE:
  case OP_ASSIGN_VARIABLE:
    return false;
  default:
    return true;
  }
}

/* The outputs of op may become constants: scratch tensors with a static
 * size that no subgraph output is. */
static bool outputs_ok(const mp_graph *g, const mp_op *op) {
  if (op->n_outputs == 0) return false;
  for (uint32_t k = 0; k < op->n_outputs; k++) {
    int32_t t = op->outputs[k];
    if (t < 0) return false;
    const mp_tensor *x = &g->tensors[t];
    if (x->role != MP_ROLE_SCRATCH || x->is_output || x->size == 0 || x->variable >= 0)
      return false;
  }
  return true;
}

/* Every input constant (SHAPE: its input's shape is, the bytes need not
 * be: mpk_shape does not read them); the result from its kernel. */
static mp_status fold_kernel(mp_graph *g, uint32_t o, bool *folded) {
  mp_op *op = &g->ops[o];
  uint64_t in_bytes = 0, out_bytes = 0;
  bool any_in = false;
  const bool reads_shape_only = op->builtin_code == OP_SHAPE;
  *folded = false;
  for (uint32_t k = 0; k < op->n_inputs; k++) {
    int32_t t = op->inputs[k];
    if (t < 0) continue;
    if (!reads_shape_only && (g->tensors[t].role != MP_ROLE_CONSTANT || !g->tensors[t].data))
      return MP_OK;
    in_bytes += g->tensors[t].size;
    any_in = true;
  }
  for (uint32_t k = 0; k < op->n_outputs; k++) out_bytes += g->tensors[op->outputs[k]].size;
  if (!any_in || (out_bytes > SMALL_RESULT && out_bytes > in_bytes)) return MP_OK;

  mp_lowered_op lo;
  mp_status st = mp_lower_op(g, o, &lo, NULL);
  if (st == MP_ERR_NOMEM) return st;
  if (st != MP_OK || !lo.supported || lo.noop) {
    mp_lower_free(&lo);
    return MP_OK;
  }
  void *args[MP_LOWER_MAX_ARGS] = {0};
  const void **arrays[MP_LOWER_MAX_ARGS] = {0};
  uint8_t *outs[MP_LOWER_MAX_ARGS] = {0};
  void *scratch = NULL;
  bool ok = true;
  for (uint32_t k = 0; k < lo.n_args && ok; k++) {
    const mp_lower_arg *a = &lo.args[k];
    if (a->kind == MP_LARG_TENSOR_ARRAY) {
      if (a->is_output) {
        ok = false; /* several outputs through one array: not folded */
        break;
      }
      arrays[k] = calloc(a->n_tensors ? a->n_tensors : 1, sizeof(void *));
      if (!arrays[k]) {
        st = MP_ERR_NOMEM;
        ok = false;
        break;
      }
      for (uint32_t i = 0; i < a->n_tensors; i++)
        arrays[k][i] = a->tensors[i] >= 0 ? g->tensors[a->tensors[i]].data : NULL;
      args[k] = (void *)arrays[k];
    } else if (a->tensor < 0) {
      args[k] = NULL;
    } else if (a->is_output) {
      const mp_tensor *x = &g->tensors[a->tensor];
      bool is_op_output = false;
      for (uint32_t j = 0; j < op->n_outputs; j++) is_op_output |= op->outputs[j] == a->tensor;
      if (!is_op_output || x->size == 0) {
        ok = false;
        break;
      }
      outs[k] = mp_pool_alloc(g->pool, x->size, 1);
      if (!outs[k]) {
        st = MP_ERR_NOMEM;
        ok = false;
        break;
      }
      args[k] = outs[k];
    } else {
      args[k] = (void *)(uintptr_t)g->tensors[a->tensor].data; /* read only */
    }
  }
  if (ok && lo.scratch_bytes) {
    scratch = calloc(1, (size_t)lo.scratch_bytes);
    if (!scratch) {
      st = MP_ERR_NOMEM;
      ok = false;
    }
  }
  if (ok && mp_lower_eval(&lo, args, scratch) == MP_OK) {
    /* every output of the op must have been written by one output arg */
    uint32_t written = 0;
    for (uint32_t k = 0; k < lo.n_args; k++)
      if (outs[k]) written++;
    if (written == op->n_outputs) {
      for (uint32_t k = 0; k < lo.n_args; k++)
        if (outs[k]) g->tensors[lo.args[k].tensor].data = outs[k];
      *folded = true;
    }
  }
  free(scratch);
  for (uint32_t k = 0; k < MP_LOWER_MAX_ARGS; k++) free(arrays[k]);
  mp_lower_free(&lo);
  return st == MP_ERR_NOMEM ? st : MP_OK;
}

mp_status mp_graph_fold_constants(mp_graph *g, bool *changed) {
  *changed = false;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    mp_op *op = &g->ops[o];
    if (op->is_view || op->folded_into >= 0 || op->folded_pad >= 0 || op->refusal ||
        op->const_folded || !foldable_code(op->builtin_code) || !outputs_ok(g, op))
      continue;
    bool folded = false;
    mp_status st = fold_kernel(g, o, &folded);
    if (st != MP_OK) return st;
    if (!folded) continue;
    op->const_folded = true;
    for (uint32_t k = 0; k < op->n_outputs; k++) {
      mp_tensor *x = &g->tensors[op->outputs[k]];
      x->role = MP_ROLE_CONSTANT;
      g->const_folded_bytes += x->size;
    }
    g->n_const_folded++;
    *changed = true;
  }
  return MP_OK;
}
