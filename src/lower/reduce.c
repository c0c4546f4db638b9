/*
 * lower_reduce.c — lowering of SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX and
 * ARG_MIN onto runtime/kernels/ref/mpk_reduce.c.
 *
 * The axes must be constants.  SUM's quantised result requantises the
 * int32 sum less count input zero points by in_scale / out_scale (one
 * QuantizeMultiplier, as TFLite Micro's PrepareMeanOrSum).  REDUCE_MAX and
 * REDUCE_MIN compare stored integers, so input and output must share their
 * quantisation.
 *
 * Not here: MEAN (src/lower/mean.c), REDUCE_PROD, int64 ARG_MAX and
 * ARG_MIN outputs.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include <string.h>

enum { OPT_REDUCER = 27 };

const fdesc mp_lower_reduce_fields[] = {F_I32(mpk_reduce_params, op),
                                        F_I32(mpk_reduce_params, type),
                                        F_I32X6(mpk_reduce_params, in_dims),
                                        F_I32X6(mpk_reduce_params, out_strides),
                                        F_I32(mpk_reduce_params, out_size),
                                        F_I32(mpk_reduce_params, input_sum_offset),
                                        F_I32(mpk_reduce_params, output_zero_point),
                                        F_I32(mpk_reduce_params, multiplier),
                                        F_I32(mpk_reduce_params, shift),
                                        F_END};
const fdesc mp_lower_arg_max_fields[] = {
    F_I32(mpk_arg_max_params, type), F_I32(mpk_arg_max_params, outer),
    F_I32(mpk_arg_max_params, axis_size), F_I32(mpk_arg_max_params, inner),
    F_I32(mpk_arg_max_params, is_min), F_END};

static int32_t value_type(int32_t dt) {
  return dt == MP_DTYPE_INT8      ? MPK_TYPE_INT8
         : dt == MP_DTYPE_INT16   ? MPK_TYPE_INT16
         : dt == MP_DTYPE_FLOAT32 ? MPK_TYPE_FLOAT32
                                  : -1;
}

static mp_status lower_sum_max(mp_lower_ctx *c, int32_t op) {
  bool is_sum = op == MPK_RED_SUM;
  int32_t in = in_t(c, 0), axis = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || axis < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, axes and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_REDUCER, "ReducerOptions", &o);
  if (st != MP_OK) return st;
  (void)mp_lower_opt_bool(&o, 0, false); /* keep_dims only shapes the output */
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  int32_t dt = dtype(c, in), type = value_type(dt);
  if (type < 0 || dtype(c, out) != dt)
    return mp_lower_unsupported(c, "input %s, output %s (supported: int8, int16, float32)",
                                mp_dtype_name(dt), mp_dtype_name(dtype(c, out)));
  uint32_t r = rank(c, in), n = 0;
  int32_t n_in;
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!elems_i32(c, in, &n_in)) return mp_lower_unsupported(c, "more than 2^31 elements");
  int64_t ax[16];
  if (!mp_lower_const_ints(c, axis, ax, 16, &n))
    return mp_lower_unsupported(c, "axes are not a constant tensor");
  bool reduced[MPK_MAX_DIMS] = {false};
  for (uint32_t i = 0; i < n; i++) {
    int64_t a = ax[i] < 0 ? ax[i] + r : ax[i];
    if (a < 0 || a >= r) return mp_lower_malformed(c, "axis %lld out of range", (long long)ax[i]);
    reduced[MPK_MAX_DIMS - r + a] = true;
  }
  mpk_reduce_params *p = &c->lo->params.reduce;
  int32_t s = 1, count = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    int32_t size = d >= (int)(MPK_MAX_DIMS - r) ? dim(c, in, (uint32_t)d - (MPK_MAX_DIMS - r)) : 1;
    p->in_dims[d] = size;
    if (reduced[d]) {
      p->out_strides[d] = 0;
      count *= size;
    } else {
      p->out_strides[d] = size == 1 ? 0 : s; /* a unit dimension never moves */
      s *= size;
    }
  }
  if ((uint64_t)s != elems(c, out))
    return mp_lower_malformed(c, "output has %llu elements, the reduction gives %d",
                              (unsigned long long)elems(c, out), s);
  if (count <= 0 || s <= 0) return mp_lower_unsupported(c, "empty reduction");
  p->op = op;
  p->type = type;
  p->out_size = s;
  if (type != MPK_TYPE_FLOAT32) {
    float si, so;
    int32_t zi, zo;
    if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
      return mp_lower_unsupported(c, "%s tensors without quantisation parameters",
                                  mp_dtype_name(dt));
    if (!is_sum && (si != so || zi != zo))
      return mp_lower_unsupported(c, "input and output quantised differently");
    p->output_zero_point = zo;
    p->input_sum_offset = zi * count;
    mp_lower_quantize_multiplier(c, (double)si / (double)so, &p->multiplier, &p->shift);
    if (is_sum) {
      c->lo->scratch_bytes = (uint64_t)s * 4u;
      c->lo->scratch_align = 4;
    }
  }
  mp_lower_set_kernel(c, MP_K_REDUCE);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_arg_max(mp_lower_ctx *c, bool is_min) {
  int32_t in = in_t(c, 0), axis = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || axis < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, an axis and an output");
  int32_t type = value_type(dtype(c, in));
  if (type < 0) return mp_lower_unsupported(c, "input %s", mp_dtype_name(dtype(c, in)));
  if (dtype(c, out) != MP_DTYPE_INT32)
    return mp_lower_unsupported(c, "%s output (supported: int32)", mp_dtype_name(dtype(c, out)));
  int64_t a;
  uint32_t n = 0;
  if (!mp_lower_const_ints(c, axis, &a, 1, &n) || n != 1)
    return mp_lower_unsupported(c, "the axis must be a constant");
  uint32_t r = rank(c, in);
  if (a < 0) a += r;
  if (a < 0 || a >= r) return mp_lower_malformed(c, "axis out of range");
  uint64_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < (uint32_t)a; d++)
    outer *= (uint64_t)dim(c, in, d);
  for (uint32_t d = (uint32_t)a + 1; d < r; d++)
    inner *= (uint64_t)dim(c, in, d);
  if (elems(c, out) != outer * inner || dim(c, in, (uint32_t)a) <= 0)
    return mp_lower_malformed(c, "output has %llu elements, expected %llu",
                              (unsigned long long)elems(c, out),
                              (unsigned long long)(outer * inner));
  if (elems(c, in) > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "more than 2^31 elements");
  mpk_arg_max_params *p = &c->lo->params.arg_max;
  p->type = type;
  p->outer = (int32_t)outer;
  p->axis_size = dim(c, in, (uint32_t)a);
  p->inner = (int32_t)inner;
  p->is_min = is_min;
  mp_lower_set_kernel(c, MP_K_ARG_MAX);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "int32_t *");
  return MP_OK;
}

mp_status mp_lower_reduce(mp_lower_ctx *c) {
  switch (c->op->builtin_code) {
  case OP_SUM: return lower_sum_max(c, MPK_RED_SUM);
  case OP_REDUCE_MAX: return lower_sum_max(c, MPK_RED_MAX);
  case OP_REDUCE_MIN: return lower_sum_max(c, MPK_RED_MIN);
  case OP_ARG_MIN: return lower_arg_max(c, true);
  default: return lower_arg_max(c, false);
  }
}
