/*
 * elementwise.c — ADD (int8, float32; with broadcasting), QUANTIZE (float
 * to integer, and the integer requantisations) and LOGISTIC (int8,
 * float32) onto runtime/kernels/ref/mpk_elementwise.c.
 *
 * The one idea: each operator's Prepare in TensorFlow Lite Micro is redone
 * here with its own arithmetic (ADD's double scale ratios with 20 bits of
 * headroom, LOGISTIC's Q4 input multiplier from frexp), so the kernels'
 * integer outputs are TFLM's.
 *
 * Not here: int16 ADD (binary.c) and int16 LOGISTIC (unary.c's table).
 */
#include "lower/common.h"
#include "lower/families.h"

#include <math.h>

/* BuiltinOptions union type id. */
enum { OPT_ADD = 11 };

const fdesc mp_lower_add_s8_fields[] = {F_SUB(mpk_add_s8_params, b, mp_lower_bcast_fields),
                                      F_I32(mpk_add_s8_params, left_shift),
                                      F_I32(mpk_add_s8_params, in1_offset),
                                      F_I32(mpk_add_s8_params, in1_multiplier),
                                      F_I32(mpk_add_s8_params, in1_shift),
                                      F_I32(mpk_add_s8_params, in2_offset),
                                      F_I32(mpk_add_s8_params, in2_multiplier),
                                      F_I32(mpk_add_s8_params, in2_shift),
                                      F_I32(mpk_add_s8_params, out_offset),
                                      F_I32(mpk_add_s8_params, out_multiplier),
                                      F_I32(mpk_add_s8_params, out_shift),
                                      F_I32(mpk_add_s8_params, act_min),
                                      F_I32(mpk_add_s8_params, act_max),
                                      F_END};
const fdesc mp_lower_add_f32_fields[] = {F_SUB(mpk_add_f32_params, b, mp_lower_bcast_fields),
                                       F_F32(mpk_add_f32_params, act_min),
                                       F_F32(mpk_add_f32_params, act_max), F_END};

const fdesc mp_lower_quantize_fields[] = {
    F_I32(mpk_quantize_params, size), F_I32(mpk_quantize_params, out_type),
    F_F32(mpk_quantize_params, scale), F_I32(mpk_quantize_params, zero_point), F_END};
const fdesc mp_lower_requantize_fields[] = {F_I32(mpk_requantize_params, size),
                                          F_I32(mpk_requantize_params, in_type),
                                          F_I32(mpk_requantize_params, out_type),
                                          F_I32(mpk_requantize_params, input_zero_point),
                                          F_I32(mpk_requantize_params, output_zero_point),
                                          F_I32(mpk_requantize_params, multiplier),
                                          F_I32(mpk_requantize_params, shift),
                                          F_END};

const fdesc mp_lower_logistic_s8_fields[] = {F_I32(mpk_logistic_s8_params, size),
                                           F_I32(mpk_logistic_s8_params, input_zero_point),
                                           F_I32(mpk_logistic_s8_params, input_range_radius),
                                           F_I32(mpk_logistic_s8_params, input_multiplier),
                                           F_I32(mpk_logistic_s8_params, input_left_shift),
                                           F_END};
const fdesc mp_lower_logistic_f32_fields[] = {F_I32(mpk_logistic_f32_params, size), F_END};

mp_status mp_lower_add(mp_lower_ctx *c) {
  int32_t a = in_t(c, 0), b = in_t(c, 1), out = out_t(c, 0);
  if (a < 0 || b < 0 || out < 0) return mp_lower_malformed(c, "needs two inputs and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_ADD, "AddOptions", &o);
  if (st != MP_OK) return st;
  int32_t act = mp_lower_opt_i8(&o, 0, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  int32_t dta = dtype(c, a), dtb = dtype(c, b), dto = dtype(c, out);
  bool s8 = dta == MP_DTYPE_INT8 && dtb == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8;
  bool f32 = dta == MP_DTYPE_FLOAT32 && dtb == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32;
  if (dta == MP_DTYPE_INT16 && dtb == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16)
    return mp_lower_binary(c); /* 16x8: the binary family's quantised kernel */
  if (!s8 && !f32)
    return mp_lower_unsupported(c, "inputs %s and %s, output %s (supported: int8, int16 or float32)",
                       mp_dtype_name(dta), mp_dtype_name(dtb), mp_dtype_name(dto));
  if (s8) {
    mpk_add_s8_params *p = &c->lo->params.add_s8;
    st = mp_lower_broadcast(c, a, b, out, &p->b);
    if (st != MP_OK || c->lo->reason[0]) return st;
    float s1, s2, so;
    int32_t z1, z2, zo;
    if (!quant(c, a, &s1, &z1) || !quant(c, b, &s2, &z2) || !quant(c, out, &so, &zo))
      return mp_lower_unsupported(c, "int8 tensors without quantisation parameters");
    p->left_shift = 20;
    p->in1_offset = -z1;
    p->in2_offset = -z2;
    p->out_offset = zo;
    double twice_max = 2 * (double)(s1 > s2 ? s1 : s2);
    double r1 = (double)s1 / twice_max, r2 = (double)s2 / twice_max;
    double ro = twice_max / ((double)(1 << p->left_shift) * (double)so);
    mp_lower_quantize_multiplier(c, r1, &p->in1_multiplier, &p->in1_shift);
    mp_lower_quantize_multiplier(c, r2, &p->in2_multiplier, &p->in2_shift);
    mp_lower_quantize_multiplier(c, ro, &p->out_multiplier, &p->out_shift);
    if (p->in1_shift > 0 || p->in2_shift > 0 || p->out_shift > 0)
      return mp_lower_unsupported(c, "output scale too small for the inputs' (rescale above 1)");
    if (!mp_lower_act_range_q(act, so, zo, -128, 127, &p->act_min, &p->act_max))
      return mp_lower_unsupported(c, MP_LOWER_ACT_Q_REFUSED, mp_lower_act_name(act));
    mp_lower_set_kernel(c, MP_K_ADD_S8);
    mp_lower_binary_args(c, a, b, out, "const int8_t *", "int8_t *");
  } else {
    mpk_add_f32_params *p = &c->lo->params.add_f32;
    st = mp_lower_broadcast(c, a, b, out, &p->b);
    if (st != MP_OK || c->lo->reason[0]) return st;
    if (!mp_lower_act_range_f(act, &p->act_min, &p->act_max))
      return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
    mp_lower_set_kernel(c, MP_K_ADD_F32);
    mp_lower_binary_args(c, a, b, out, "const float *", "float *");
  }
  return MP_OK;
}

static int32_t mpk_type(int32_t dt) {
  switch (dt) {
  case MP_DTYPE_INT8: return MPK_TYPE_INT8;
  case MP_DTYPE_UINT8: return MPK_TYPE_UINT8;
  case MP_DTYPE_INT16: return MPK_TYPE_INT16;
  case MP_DTYPE_INT32: return MPK_TYPE_INT32;
  default: return -1;
  }
}

mp_status mp_lower_quantize(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  int32_t dti = dtype(c, in), dto = dtype(c, out), size;
  if (elems(c, in) != elems(c, out) || !elems_i32(c, in, &size))
    return mp_lower_malformed(c, "input and output differ in size");
  float so, si;
  int32_t zo, zi;
  if (!quant(c, out, &so, &zo)) return mp_lower_unsupported(c, "output without quantisation parameters");
  if (tdef(c, out)->quant.n_scale > 1) return mp_lower_unsupported(c, "per-channel output quantisation");
  if (dti == MP_DTYPE_FLOAT32) {
    if (dto != MP_DTYPE_INT8 && dto != MP_DTYPE_INT16)
      return mp_lower_unsupported(c, "float32 to %s (supported: int8, int16)", mp_dtype_name(dto));
    mpk_quantize_params *p = &c->lo->params.quantize;
    p->size = size;
    p->out_type = mpk_type(dto);
    p->scale = so;
    p->zero_point = zo;
    mp_lower_set_kernel(c, MP_K_QUANTIZE_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, out, true, "void *");
    mp_lower_elementwise_overlap(c, 0, in, 1, out);
    return MP_OK;
  }
  /* the integer pairs TFLite Micro requantizes */
  static const int32_t pairs[][2] = {
      {MP_DTYPE_INT16, MP_DTYPE_INT8},  {MP_DTYPE_INT8, MP_DTYPE_INT8},
      {MP_DTYPE_INT8, MP_DTYPE_UINT8},  {MP_DTYPE_UINT8, MP_DTYPE_INT8},
      {MP_DTYPE_INT8, MP_DTYPE_INT16},  {MP_DTYPE_INT8, MP_DTYPE_INT32},
      {MP_DTYPE_INT16, MP_DTYPE_INT16}, {MP_DTYPE_INT16, MP_DTYPE_INT32},
      {MP_DTYPE_INT32, MP_DTYPE_INT8},  {MP_DTYPE_INT32, MP_DTYPE_INT16}};
  bool ok = false;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (pairs[i][0] == dti && pairs[i][1] == dto) ok = true;
  if (!ok) return mp_lower_unsupported(c, "%s to %s", mp_dtype_name(dti), mp_dtype_name(dto));
  if (!quant(c, in, &si, &zi)) return mp_lower_unsupported(c, "input without quantisation parameters");
  mpk_requantize_params *p = &c->lo->params.requantize;
  p->size = size;
  p->in_type = mpk_type(dti);
  p->out_type = mpk_type(dto);
  p->input_zero_point = zi;
  p->output_zero_point = zo;
  mp_lower_quantize_multiplier(c, (double)si / (double)so, &p->multiplier, &p->shift);
  mp_lower_set_kernel(c, MP_K_REQUANTIZE);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  mp_lower_elementwise_overlap(c, 0, in, 1, out);
  return MP_OK;
}

mp_status mp_lower_logistic(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0), size;
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  if (elems(c, in) != elems(c, out) || !elems_i32(c, in, &size))
    return mp_lower_malformed(c, "input and output differ in size");
  int32_t dti = dtype(c, in), dto = dtype(c, out);
  if (dti == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16)
    return mp_lower_unary(c); /* 16x8: the table lookup of the unary family */
  if (dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32) {
    c->lo->params.logistic_f32.size = size;
    mp_lower_set_kernel(c, MP_K_LOGISTIC_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    mp_lower_elementwise_overlap(c, 0, in, 1, out);
    return MP_OK;
  }
  if (dti != MP_DTYPE_INT8 || dto != MP_DTYPE_INT8)
    return mp_lower_unsupported(c, "input %s, output %s (supported: int8, float32)", mp_dtype_name(dti),
                       mp_dtype_name(dto));
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "int8 tensors without quantisation parameters");
  if (zo != -128) return mp_lower_unsupported(c, "int8 output zero point %d (must be -128)", zo);
  /* input scaled to Q4 with a frexp multiplier, as LogisticPrepare does */
  mpk_logistic_s8_params *p = &c->lo->params.logistic_s8;
  double real = (double)si * (double)(1 << (31 - 4));
  int e = 0;
  double q = frexp(real, &e);
  int64_t m = (int64_t)round(q * (double)(1LL << 31));
  if (e < 0 || (e <= 30 && m >= (1LL << 31)))
    return mp_lower_unsupported(c, "input scale %g out of range", (double)si);
  p->size = size;
  p->input_zero_point = zi;
  /* e > 30: a radius of 0, a step function that never rescales (TFLM) */
  p->input_multiplier = e > 30 ? 0 : (int32_t)m;
  p->input_left_shift = e > 30 ? 0 : e;
  p->input_range_radius =
      e > 30 ? 0
             : (int32_t)floor(1.0 * ((1 << 4) - 1) * (double)(1LL << (31 - 4)) / ldexp(1.0, e));
  mp_lower_set_kernel(c, MP_K_LOGISTIC_S8);
  mp_lower_add_arg(c, in, false, "const int8_t *");
  mp_lower_add_arg(c, out, true, "int8_t *");
  mp_lower_elementwise_overlap(c, 0, in, 1, out);
  return MP_OK;
}
