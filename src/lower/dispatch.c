/*
 * dispatch.c — from a model operator to a call of one of memplan's kernels,
 * with every parameter computed here, at convert time: the dispatcher.
 *
 * The one idea: do on the host, once, exactly the preparation TensorFlow
 * Lite Micro does in each kernel's Prepare — the same double/float
 * expressions, QuantizeMultiplier with its rounding, the same padding and
 * activation-range formulas — and hand the device only the results.  The
 * kernels (runtime/kernels) then only loop, and their int8 outputs are
 * bit-exact with TFLM.
 *
 * This file holds the operator table: each supported builtin code names
 * the entry point of its family (src/lower/<family>.c, lower/families.h),
 * which checks what the kernel can do (dtypes, quantisation, fused
 * activation, static parameters) and fills the params.  What a family
 * cannot do is reported as "unsupported" with a reason, never as an
 * error: mp_lower_check_all lists every such operator at once.  Options
 * that do not validate and shapes that contradict the operator are model
 * errors.  After the family, mp_lower_op specialises the kernel for a
 * Cortex-M target (specialise.c) and names it from the kernel table
 * (params.c).
 *
 * This file does not place tensors or scratch (the planner does), change
 * the graph (graph/kernels.c adds the op-local scratch) or write modules
 * (the emitter does).
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include "util/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The operator table                                                       */
/* ------------------------------------------------------------------------ */

typedef mp_status mp_lower_fn(mp_lower_ctx *c);

/* builtin code -> its family's entry point; a code without a row has no
 * kernel.  A new operator is one row here (and its family's file pair). */
static mp_lower_fn *const families[] = {
    [OP_CONV_2D] = mp_lower_conv,
    [OP_DEPTHWISE_CONV_2D] = mp_lower_conv,
    [OP_FULLY_CONNECTED] = mp_lower_fc,
    [OP_AVERAGE_POOL_2D] = mp_lower_pool,
    [OP_MAX_POOL_2D] = mp_lower_pool,
    [OP_ADD] = mp_lower_add,
    [OP_QUANTIZE] = mp_lower_quantize,
    [OP_LOGISTIC] = mp_lower_logistic,
    [OP_SOFTMAX] = mp_lower_softmax,
    [OP_RESHAPE] = mp_lower_view,
    [OP_SQUEEZE] = mp_lower_view,
    [OP_EXPAND_DIMS] = mp_lower_view,
    [OP_BITCAST] = mp_lower_view,
    [OP_PAD] = mp_lower_pad,
    [OP_PADV2] = mp_lower_pad,
    [OP_TRANSPOSE] = mp_lower_transpose,
    [OP_CONCATENATION] = mp_lower_concat,
    [OP_MEAN] = mp_lower_mean,
    [OP_SVDF] = mp_lower_svdf,
    [OP_UNIDIRECTIONAL_SEQUENCE_LSTM] = mp_lower_lstm,
    [OP_SUB] = mp_lower_binary,
    [OP_MUL] = mp_lower_binary,
    [OP_DIV] = mp_lower_binary,
    [OP_MAXIMUM] = mp_lower_binary,
    [OP_MINIMUM] = mp_lower_binary,
    [OP_PRELU] = mp_lower_binary,
    [OP_SQUARED_DIFFERENCE] = mp_lower_binary,
    [OP_EQUAL] = mp_lower_binary,
    [OP_NOT_EQUAL] = mp_lower_binary,
    [OP_LESS] = mp_lower_binary,
    [OP_LESS_EQUAL] = mp_lower_binary,
    [OP_GREATER] = mp_lower_binary,
    [OP_GREATER_EQUAL] = mp_lower_binary,
    [OP_LOGICAL_AND] = mp_lower_binary,
    [OP_LOGICAL_OR] = mp_lower_binary,
    [OP_LOGICAL_NOT] = mp_lower_binary,
    [OP_SELECT] = mp_lower_binary,
    [OP_SELECT_V2] = mp_lower_binary,
    [OP_FLOOR_DIV] = mp_lower_binary,
    [OP_FLOOR_MOD] = mp_lower_binary,
    [OP_ADD_N] = mp_lower_binary,
    [OP_DEQUANTIZE] = mp_lower_unary,
    [OP_RELU] = mp_lower_unary,
    [OP_RELU6] = mp_lower_unary,
    [OP_TANH] = mp_lower_unary,
    [OP_EXP] = mp_lower_unary,
    [OP_CAST] = mp_lower_unary,
    [OP_RSQRT] = mp_lower_unary,
    [OP_LEAKY_RELU] = mp_lower_unary,
    [OP_HARD_SWISH] = mp_lower_unary,
    [OP_ABS] = mp_lower_unary,
    [OP_NEG] = mp_lower_unary,
    [OP_SQUARE] = mp_lower_unary,
    [OP_SQRT] = mp_lower_unary,
    [OP_LOG] = mp_lower_unary,
    [OP_SIN] = mp_lower_unary,
    [OP_COS] = mp_lower_unary,
    [OP_FLOOR] = mp_lower_unary,
    [OP_CEIL] = mp_lower_unary,
    [OP_ROUND] = mp_lower_unary,
    [OP_RELU_N1_TO_1] = mp_lower_unary,
    [OP_RELU_0_TO_1] = mp_lower_unary,
    [OP_ELU] = mp_lower_unary,
    [OP_LOG_SOFTMAX] = mp_lower_unary,
    [OP_L2_NORMALIZATION] = mp_lower_unary,
    [OP_GATHER] = mp_lower_slice,
    [OP_STRIDED_SLICE] = mp_lower_slice,
    [OP_SPLIT] = mp_lower_slice,
    [OP_SLICE] = mp_lower_slice,
    [OP_PACK] = mp_lower_slice,
    [OP_UNPACK] = mp_lower_slice,
    [OP_SPLIT_V] = mp_lower_slice,
    [OP_DEPTH_TO_SPACE] = mp_lower_slice,
    [OP_SPACE_TO_DEPTH] = mp_lower_slice,
    [OP_MIRROR_PAD] = mp_lower_slice,
    [OP_SPACE_TO_BATCH_ND] = mp_lower_slice,
    [OP_BATCH_TO_SPACE_ND] = mp_lower_slice,
    [OP_REVERSE_V2] = mp_lower_slice,
    [OP_GATHER_ND] = mp_lower_slice,
    [OP_BROADCAST_TO] = mp_lower_slice,
    [OP_FILL] = mp_lower_slice,
    [OP_ZEROS_LIKE] = mp_lower_slice,
    [OP_EMBEDDING_LOOKUP] = mp_lower_slice,
    [OP_RESIZE_BILINEAR] = mp_lower_resize,
    [OP_RESIZE_NEAREST_NEIGHBOR] = mp_lower_resize,
    [OP_ARG_MAX] = mp_lower_reduce,
    [OP_SUM] = mp_lower_reduce,
    [OP_REDUCE_MAX] = mp_lower_reduce,
    [OP_REDUCE_MIN] = mp_lower_reduce,
    [OP_ARG_MIN] = mp_lower_reduce,
    [OP_TRANSPOSE_CONV] = mp_lower_transpose_conv,
    [OP_BATCH_MATMUL] = mp_lower_batch_matmul,
    [OP_SHAPE] = mp_lower_shape,
    [OP_CUSTOM] = mp_lower_signal,
    [OP_CALL_ONCE] = mp_lower_variable,
    [OP_VAR_HANDLE] = mp_lower_variable,
    [OP_READ_VARIABLE] = mp_lower_variable,
    [OP_ASSIGN_VARIABLE] = mp_lower_variable,
};

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

/* Could operator op run channel by channel (mp_op.channel_serial)? */
bool mp_lower_serial_candidate(const mp_graph *g, uint32_t op) {
  if (op >= g->n_ops || g->ops[op].builtin_code != OP_DEPTHWISE_CONV_2D) return false;
  mp_lowered_op lo;
  bool ok = false;
  if (mp_lower_op(g, op, &lo, NULL) == MP_OK && lo.supported) {
    const mpk_conv_geom *cg = mp_lower_window_geom(&lo);
    int32_t out = g->ops[op].n_outputs ? g->ops[op].outputs[0] : -1;
    int32_t e = out >= 0 ? (int32_t)(mp_dtype_bits(g->tensors[out].dtype) / 8) : 0;
    ok = cg && mpk_depthwise_conv2d_serial_scratch(cg, e) > 0;
  }
  mp_lower_free(&lo);
  return ok;
}

mp_status mp_lower_op(const mp_graph *g, uint32_t op, mp_lowered_op *out, const mp_diag_sink *dx) {
  memset(out, 0, sizeof *out);
  if (op >= g->n_ops) return MP_ERR_INTERNAL;
  mp_lower_ctx c = {g, &g->ops[op], &g->model->subgraphs[g->subgraph], out, dx, false};
  out->op = op;
  out->op_name = c.op->name;
  if (c.op->folded_into >= 0 || c.op->const_folded) {
    /* a PAD folded into its convolution or max pool (rewrite.c), or an
     * operator computed at convert time (fold.c): nothing runs */
    out->supported = true;
    out->noop = true;
    return MP_OK;
  }
  if (c.op->patch_head) {
    /* runs a patched stage (graph/patch.h): the emitter writes its loop */
    out->supported = true;
    out->fn = "patched stage";
    return MP_OK;
  }
  int32_t code = c.op->builtin_code;
  mp_lower_fn *lower = code >= 0 && (size_t)code < sizeof families / sizeof families[0]
                           ? families[code]
                           : NULL;
  mp_status st = lower ? lower(&c)
                       : mp_lower_unsupported(&c, "memplan has no kernel for %s", c.op->name);
  if (st == MP_OK && out->supported && c.bad_multiplier)
    st = mp_lower_malformed(&c, "its quantisation scales give a rescale factor with no 32-bit "
                       "fixed-point form");
  if (st == MP_OK && out->supported && g->target != MP_TARGET_GENERIC)
    st = mp_lower_specialise(g, out);
  if (st == MP_OK) mp_lower_name_kernel(out);
  if (st != MP_OK || !out->supported) {
    /* keep the reason, drop any half-built params */
    char reason[sizeof out->reason];
    memcpy(reason, out->reason, sizeof reason);
    const char *name = out->op_name;
    mp_lower_free(out);
    out->op = op;
    out->op_name = name;
    memcpy(out->reason, reason, sizeof reason);
    if (st == MP_OK && !out->reason[0]) snprintf(out->reason, sizeof out->reason, "unsupported");
  }
  return st;
}

/* "12 'conv2d/Conv2D' int8[1,32,32,16]" */
static void describe_tensor(const mp_graph *g, int32_t t, mp_buf *b) {
  if (t < 0) {
    mp_buf_puts(b, "(none)");
    return;
  }
  const mp_tensor *x = &g->tensors[t];
  mp_buf_printf(b, "%d", t);
  if (x->name && x->name[0]) mp_buf_printf(b, " '%s'", x->name);
  mp_buf_printf(b, " %s[", mp_dtype_name(x->dtype));
  for (uint32_t d = 0; d < x->rank; d++)
    mp_buf_printf(b, "%s%d", d ? "," : "", x->shape[d]);
  mp_buf_putc(b, ']');
}

mp_status mp_lower_check_all_to(const mp_graph *g, const mp_diag_sink *dx, const mp_diag_sink *udx) {
  uint32_t n_bad = 0, n_names = 0;
  mp_status worst = MP_OK;
  const char **names = calloc(g->n_ops ? g->n_ops : 1, sizeof *names);
  if (!names) return MP_ERR_NOMEM;
  mp_loc loc = {g->model->path, 0, 0, -1, NULL, NULL};
  for (uint32_t i = 0; i < g->n_ops; i++) {
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, i, &lo, dx);
    if (st != MP_OK) {
      worst = st;
      mp_lower_free(&lo);
      continue;
    }
    if (!lo.supported) {
      const mp_op *op = &g->ops[i];
      mp_buf b;
      mp_buf_init(&b);
      mp_buf_printf(&b, "operator %u (%s) is not supported: %s; reads ", op->model_index, op->name, lo.reason);
      for (uint32_t k = 0; k < op->n_inputs; k++) {
        if (k) mp_buf_puts(&b, ", ");
        describe_tensor(g, op->inputs[k], &b);
      }
      if (op->n_inputs == 0) mp_buf_puts(&b, "nothing");
      mp_buf_puts(&b, "; writes ");
      for (uint32_t k = 0; k < op->n_outputs; k++) {
        if (k) mp_buf_puts(&b, ", ");
        describe_tensor(g, op->outputs[k], &b);
      }
      mp_error(udx, loc, "%s", b.failed ? "out of memory" : mp_buf_str(&b));
      mp_buf_free(&b);
      bool seen = false;
      for (uint32_t k = 0; k < n_names; k++)
        if (!strcmp(names[k], op->name)) seen = true;
      if (!seen) names[n_names++] = op->name;
      n_bad++;
    }
    mp_lower_free(&lo);
  }
  if (n_bad) {
    mp_buf list;
    mp_buf_init(&list);
    for (uint32_t k = 0; k < n_names; k++)
      mp_buf_printf(&list, "%s%s", k ? ", " : "", names[k]);
    mp_error(udx, loc,
             "%u of %u operators are not supported (%s); memplan's kernels cannot run this "
             "model",
             n_bad, g->n_ops, mp_buf_str(&list));
    mp_buf_free(&list);
  }
  free(names);
  if (worst != MP_OK) return worst;
  return n_bad ? MP_ERR_UNSUPPORTED : MP_OK;
}

mp_status mp_lower_check_all(const mp_graph *g, const mp_diag_sink *dx) {
  return mp_lower_check_all_to(g, dx, dx);
}
