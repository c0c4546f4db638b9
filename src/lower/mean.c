/*
 * mean.c — MEAN onto runtime/kernels/ref/mpk_mean.c (int8, int16, float32)
 * over any set of constant axes.
 *
 * The one idea: the reduction is an output stride of 0 along each reduced
 * dimension, and TFLite's MEAN rescaling folds 1 / count into the
 * multiplier by an integer division (mean_multiplier), which rounds
 * differently from the multiplier of scale / count: the kernel must round
 * like TFLite, so the lowering computes it TFLite's way.
 *
 * Not here: SUM and REDUCE_MAX (reduce.c), axes that are not constant.
 */
#include "lower/common.h"
#include "lower/families.h"

#include <string.h>

/* BuiltinOptions union type id. */
enum { OPT_REDUCER = 27 };

const fdesc mp_lower_mean_s8_fields[] = {F_I32X6(mpk_mean_s8_params, in_dims),
                                       F_I32X6(mpk_mean_s8_params, out_strides),
                                       F_I32(mpk_mean_s8_params, out_size),
                                       F_I32(mpk_mean_s8_params, count),
                                       F_I32(mpk_mean_s8_params, input_zero_point),
                                       F_I32(mpk_mean_s8_params, output_zero_point),
                                       F_I32(mpk_mean_s8_params, multiplier),
                                       F_I32(mpk_mean_s8_params, shift),
                                       F_END};
const fdesc mp_lower_mean_f32_fields[] = {
    F_I32X6(mpk_mean_f32_params, in_dims), F_I32X6(mpk_mean_f32_params, out_strides),
    F_I32(mpk_mean_f32_params, out_size), F_I32(mpk_mean_f32_params, count), F_END};

/* TFLite's MEAN rescaling: QuantizeMultiplier(real), then 1 / count
 * folded into the multiplier by an integer division after a left shift of
 * s = min(floor(log2 count), 32, 31 + shift) bits, which the shift gives
 * back.  It is not the multiplier of real / count: the two round
 * differently, and the kernel must round like TFLite. */
static void mean_multiplier(mp_lower_ctx *c, double real, int32_t count, int32_t *qm, int32_t *shift) {
  mp_lower_quantize_multiplier(c, real, qm, shift);
  int s = 0;
  while (s < 32 && ((int64_t)count >> (s + 1)) > 0)
    s++;
  if (s > 31 + *shift) s = 31 + *shift;
  *qm = (int32_t)(((int64_t)*qm << s) / count);
  *shift -= s;
}

mp_status mp_lower_mean(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), axis = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || axis < 0 || out < 0) return mp_lower_malformed(c, "needs an input, axes and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_REDUCER, "ReducerOptions", &o);
  if (st != MP_OK) return st;
  (void)mp_lower_opt_bool(&o, 0, false); /* keep_dims only shapes the output */
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  uint32_t r = rank(c, in), n = 0;
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  int64_t ax[16];
  if (!mp_lower_const_ints(c, axis, ax, 16, &n)) return mp_lower_unsupported(c, "axes are not a constant tensor");
  bool reduced[MPK_MAX_DIMS] = {false};
  for (uint32_t i = 0; i < n; i++) {
    int64_t a = ax[i] < 0 ? ax[i] + r : ax[i];
    if (a < 0 || a >= r) return mp_lower_malformed(c, "axis %lld out of range", (long long)ax[i]);
    reduced[MPK_MAX_DIMS - r + a] = true;
  }
  int32_t dims[MPK_MAX_DIMS], strides[MPK_MAX_DIMS];
  if (!mp_lower_extend_shape(c, in, dims)) return mp_lower_unsupported(c, "more than 2^31 elements");
  int32_t s = 1, count = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    if (reduced[d]) {
      strides[d] = 0;
      count *= dims[d];
    } else if (dims[d] == 1) {
      strides[d] = 0; /* a unit dimension never moves */
    } else {
      strides[d] = s;
      s *= dims[d];
    }
  }
  if ((uint64_t)s != elems(c, out))
    return mp_lower_malformed(c, "output has %llu elements, the reduction gives %d",
                     (unsigned long long)elems(c, out), s);
  if (count <= 0) return mp_lower_unsupported(c, "empty reduction");
  int32_t dt = dtype(c, in);
  if (dt == MP_DTYPE_FLOAT32 && dtype(c, out) == MP_DTYPE_FLOAT32) {
    mpk_mean_f32_params *p = &c->lo->params.mean_f32;
    memcpy(p->in_dims, dims, sizeof dims);
    memcpy(p->out_strides, strides, sizeof strides);
    p->out_size = s;
    p->count = count;
    mp_lower_set_kernel(c, MP_K_MEAN_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    return MP_OK;
  }
  bool wide = dt == MP_DTYPE_INT16;
  if ((dt != MP_DTYPE_INT8 && !wide) || dtype(c, out) != dt)
    return mp_lower_unsupported(c, "input %s, output %s (supported: int8, int16, float32)", mp_dtype_name(dt),
                       mp_dtype_name(dtype(c, out)));
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "%s tensors without quantisation parameters", mp_dtype_name(dt));
  mpk_mean_s8_params *p = &c->lo->params.mean_s8;
  memcpy(p->in_dims, dims, sizeof dims);
  memcpy(p->out_strides, strides, sizeof strides);
  p->out_size = s;
  p->count = count;
  p->input_zero_point = zi;
  p->output_zero_point = zo;
  mean_multiplier(c, (double)si / (double)so, count, &p->multiplier, &p->shift);
  mp_lower_set_kernel(c, wide ? MP_K_MEAN_S16 : MP_K_MEAN_S8);
  mp_lower_add_arg(c, in, false, wide ? "const int16_t *" : "const int8_t *");
  mp_lower_add_arg(c, out, true, wide ? "int16_t *" : "int8_t *");
  c->lo->scratch_bytes = (uint64_t)s * sizeof(int32_t);
  c->lo->scratch_align = 4;
  return MP_OK;
}
