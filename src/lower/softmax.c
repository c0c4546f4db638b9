/*
 * softmax.c — SOFTMAX onto runtime/kernels/ref/mpk_softmax.c: int8 to int8
 * or int16, and float32, over rows of the last dimension.
 *
 * The one idea: PreprocessSoftmaxScaling with 5 integer bits and the input
 * radius are computed here from beta and the input scale, as TFLM's
 * Prepare does; the output quantisation TFLM requires (1/256 or 1/65536)
 * is checked, not assumed.
 *
 * Not here: int16 to int16 (unary.c's tables), LOG_SOFTMAX (unary.c, float32).
 */
#include "lower/common.h"
#include "lower/families.h"

#include <math.h>

/* BuiltinOptions union type id. */
enum { OPT_SOFTMAX = 9 };

const fdesc mp_lower_softmax_s8_fields[] = {F_I32(mpk_softmax_s8_params, outer),
                                          F_I32(mpk_softmax_s8_params, depth),
                                          F_I32(mpk_softmax_s8_params, input_multiplier),
                                          F_I32(mpk_softmax_s8_params, input_left_shift),
                                          F_I32(mpk_softmax_s8_params, diff_min),
                                          F_END};
const fdesc mp_lower_softmax_f32_fields[] = {F_I32(mpk_softmax_f32_params, outer),
                                           F_I32(mpk_softmax_f32_params, depth),
                                           F_F32(mpk_softmax_f32_params, beta), F_END};

mp_status mp_lower_softmax(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_SOFTMAX, "SoftmaxOptions", &o);
  if (st != MP_OK) return st;
  float beta = mp_lower_opt_f32(&o, 0, 0.0f);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (rank(c, in) < 1 || elems(c, in) != elems(c, out))
    return mp_lower_malformed(c, "input and output differ in size");
  int32_t depth = dim(c, in, rank(c, in) - 1), total;
  if (depth <= 0 || !elems_i32(c, in, &total)) return mp_lower_malformed(c, "empty or huge last dimension");
  int32_t dti = dtype(c, in), dto = dtype(c, out);
  if (dti == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16)
    return mp_lower_softmax_s16(c, beta, total / depth, depth); /* src/lower/unary.c */
  if (dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32) {
    mpk_softmax_f32_params *p = &c->lo->params.softmax_f32;
    p->outer = total / depth;
    p->depth = depth;
    p->beta = beta;
    mp_lower_set_kernel(c, MP_K_SOFTMAX_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    return MP_OK;
  }
  if (dti != MP_DTYPE_INT8 || (dto != MP_DTYPE_INT8 && dto != MP_DTYPE_INT16))
    return mp_lower_unsupported(c, "input %s, output %s (supported: int8 to int8 or int16, float32)",
                       mp_dtype_name(dti), mp_dtype_name(dto));
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "int8 tensors without quantisation parameters");
  if (dto == MP_DTYPE_INT8 && (zo != -128 || so != 1.0f / 256))
    return mp_lower_unsupported(c, "int8 output must have scale 1/256 and zero point -128");
  if (dto == MP_DTYPE_INT16 && (zo != -32768 || fabsf(so - 1.0f / 65536) > 0.001f * (1.0f / 65536)))
    return mp_lower_unsupported(c, "int16 output must have scale 1/65536 and zero point -32768");
  /* PreprocessSoftmaxScaling with 5 integer bits, then CalculateInputRadius */
  mpk_softmax_s8_params *p = &c->lo->params.softmax_s8;
  double real = (double)beta * (double)si * (double)(1 << (31 - 5));
  double max_real = (double)((1LL << 31) - 1);
  if (real > max_real) real = max_real;
  if (!(real > 1.0)) return mp_lower_unsupported(c, "beta * input scale too small");
  mp_lower_quantize_multiplier(c, real, &p->input_multiplier, &p->input_left_shift);
  double radius =
      floor(1.0 * ((1 << 5) - 1) * (double)(1LL << (31 - 5)) / ldexp(1.0, p->input_left_shift));
  p->diff_min = -(int32_t)radius;
  p->outer = total / depth;
  p->depth = depth;
  mp_lower_set_kernel(c, dto == MP_DTYPE_INT8 ? MP_K_SOFTMAX_S8 : MP_K_SOFTMAX_S8_S16);
  mp_lower_add_arg(c, in, false, "const int8_t *");
  mp_lower_add_arg(c, out, true, dto == MP_DTYPE_INT8 ? "int8_t *" : "int16_t *");
  return MP_OK;
}
