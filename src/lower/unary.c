/*
 * lower_unary.c — lowering of the elementwise unary operators (RELU,
 * RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU, TANH, HARD_SWISH, ELU, EXP,
 * RSQRT, ABS, NEG, SQUARE, SQRT, LOG, SIN, COS, FLOOR, CEIL, ROUND,
 * DEQUANTIZE, CAST) and the row-wise LOG_SOFTMAX and L2_NORMALIZATION onto
 * runtime/kernels/ref/mpk_unary.c.
 *
 * Each quantised operator gets what TensorFlow Lite Micro's Prepare
 * computes, with the same float and double expressions: RELU's
 * requantisation and clamp (CalculateReluOpData), RELU6's bounds in the
 * input's integers (FloatToQuantizedType), LEAKY_RELU's two multipliers,
 * TANH's Q4 input scaling and radius, HARD_SWISH's int16 multipliers
 * (DownScaleInt32ToInt16Multiplier), ABS's requantisation
 * (PrepareAbsRsqrt: none when the scales are equal), RELU_N1_TO_1's and
 * RELU_0_TO_1's multiplier and bounds (TFLite's ReluPrepare and
 * QuantizedReluX; TFLM has no kernel for either).
 *
 * LOGISTIC comes here for int16 only (src/lower/elementwise.c lowers int8 and
 * float32).
 * int8 RSQRT becomes a table of its 256 results, computed here;
 * int16 RSQRT runs the same arithmetic per element on the device.
 * Not here: int16 HARD_SWISH, int8 and int16 EXP, NEG, SQUARE, SQRT, LOG,
 * SIN, COS, FLOOR, CEIL, ROUND (TFLM runs them on float32 only); int8 ELU,
 * LOG_SOFTMAX and L2_NORMALIZATION (TFLM's integer algorithms, not
 * reproduced here); int16 ABS without quantisation parameters.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include "mpk_fixed.h"

#include <math.h>

enum { OPT_LEAKY_RELU = 75, OPT_L2_NORM = 12 };

const fdesc mp_lower_unary_q_fields[] = {F_I32(mpk_unary_q_params, op),
                                         F_I32(mpk_unary_q_params, type),
                                         F_I32(mpk_unary_q_params, size),
                                         F_I32(mpk_unary_q_params, input_zero_point),
                                         F_I32(mpk_unary_q_params, output_zero_point),
                                         F_I32(mpk_unary_q_params, multiplier),
                                         F_I32(mpk_unary_q_params, shift),
                                         F_I32(mpk_unary_q_params, multiplier2),
                                         F_I32(mpk_unary_q_params, shift2),
                                         F_I32(mpk_unary_q_params, input_range_radius),
                                         F_I32(mpk_unary_q_params, act_min),
                                         F_I32(mpk_unary_q_params, act_max),
                                         F_END};
const fdesc mp_lower_unary_f32_fields[] = {F_I32(mpk_unary_f32_params, op),
                                           F_I32(mpk_unary_f32_params, size),
                                           F_F32(mpk_unary_f32_params, alpha),
                                           F_I32(mpk_unary_f32_params, depth), F_END};
const fdesc mp_lower_lut_s8_fields[] = {F_I32(mpk_lut_s8_params, size),
                                        F_I32(mpk_lut_s8_params, min_input),
                                        F_PTR(mpk_lut_s8_params, table, "table"), F_END};
const fdesc mp_lower_dequantize_fields[] = {
    F_I32(mpk_dequantize_params, size), F_I32(mpk_dequantize_params, in_type),
    F_F32(mpk_dequantize_params, scale), F_I32(mpk_dequantize_params, zero_point), F_END};
const fdesc mp_lower_cast_fields[] = {F_I32(mpk_cast_params, size), F_I32(mpk_cast_params, in_type),
                                      F_I32(mpk_cast_params, out_type), F_END};

/* The CAST / DEQUANTIZE element type code, -1 for the others. */
static int32_t elem_type(int32_t dt) {
  switch (dt) {
  case MP_DTYPE_INT8: return MPK_TYPE_INT8;
  case MP_DTYPE_INT16: return MPK_TYPE_INT16;
  case MP_DTYPE_INT32: return MPK_TYPE_INT32;
  case MP_DTYPE_UINT32: return MPK_TYPE_UINT32;
  case MP_DTYPE_FLOAT32: return MPK_TYPE_FLOAT32;
  case MP_DTYPE_BOOL: return MPK_TYPE_BOOL;
  default: return -1;
  }
}

/* DownScaleInt32ToInt16Multiplier: a Q31 multiplier rounded to Q15. */
static int32_t q15_multiplier(int32_t m) {
  if (m >= INT32_MAX - (1 << 15)) return 32767;
  return (m + (1 << 15)) >> 16;
}

/* The Q4 input scaling of TFLite's int8 TANH and LOGISTIC: a frexp
 * multiplier of input_scale * 2^27, and the radius beyond which the
 * function saturates (CalculateInputRadius). */
static bool q4_input(float in_scale, int32_t *multiplier, int32_t *shift, int32_t *radius) {
  int e = 0;
  double q = frexp((double)in_scale * (double)(1 << (31 - 4)), &e);
  int64_t m = (int64_t)round(q * (double)(1LL << 31));
  if (e < 0) return false; /* TFLM's radius overflows an int */
  if (e > 30) {
    /* a radius of 0 (CalculateInputRadius floors 15 * 2^27 / 2^e): TFLM's
     * kernel is a step function, the zero point and below the minimum,
     * everything above the maximum, and never rescales */
    *multiplier = 0;
    *shift = 0;
    *radius = 0;
    return true;
  }
  if (m >= (1LL << 31)) return false;
  *multiplier = (int32_t)m;
  *shift = e;
  *radius = (int32_t)floor(1.0 * ((1 << 4) - 1) * (double)(1LL << (31 - 4)) / ldexp(1.0, e));
  return true;
}

/* CheckedLog2: log2(x) rounded (in float, as TFLite), and whether x is
 * a power of two to 1e-3 in the exponent. */
static bool checked_log2(float x, int *log2) {
  float l = logf(x) * (1.0f / logf(2.0f)), r = roundf(l);
  *log2 = (int)r;
  return fabsf(l - r) < 1e-3f;
}

/* int16 TANH / LOGISTIC (the table lookup): CalculateArithmeticOpData's
 * input scaling to 1 / (3 * 4096), or a plain shift for a power-of-two
 * input scale; the output must be Q0.15 (scale 2^-15). */
static mp_status lut16(mp_lower_ctx *c, bool logistic, float si, float so, mpk_unary_q_params *p) {
  int in_log2, out_log2;
  bool pot = checked_log2(si, &in_log2);
  int shift = (15 - 3) + in_log2;
  pot = pot && (shift == 0 || (!logistic && shift == 1));
  if (pot) {
    p->multiplier = 0;
  } else {
    double m = (double)si * 4096.0 * 3.0;
    shift = 0;
    while (m <= 32767.0 / 2.0 && shift <= 30) {
      shift++;
      m = m * 2.0;
    }
    if (m > 32767.0) return mp_lower_unsupported(c, "input scale %g too large", (double)si);
    p->multiplier = (int32_t)m;
  }
  p->shift = shift;
  if (!checked_log2(so, &out_log2) || out_log2 != -15)
    return mp_lower_unsupported(c, "int16 output scale %g (must be 2^-15)", (double)so);
  p->op = logistic ? MPK_UN_LOGISTIC : MPK_UN_TANH;
  return MP_OK;
}

/* Quantised RSQRT, with TFLite's RsqrtEvalQuantized arithmetic
 * (mpk_rsqrt_q; SetRsqrtOutputMultiplier: the square root and the product
 * in float, the reciprocal in double).  int8: its 256 results as a table;
 * int16 (zero points 0, as TFLite requires): computed per element. */
static mp_status lower_rsqrt(mp_lower_ctx *c, int32_t in, int32_t out, int32_t size, bool wide) {
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "%s tensors without quantisation parameters",
                                wide ? "int16" : "int8");
  int32_t m, shift;
  float denominator = sqrtf(si) * so;
  mp_lower_quantize_multiplier(c, 1.0 / (double)denominator, &m, &shift);
  if (wide) {
    if (zi != 0 || zo != 0) return mp_lower_unsupported(c, "int16 tensors with a non-zero zero point");
    mpk_unary_q_params *p = &c->lo->params.unary_q;
    p->op = MPK_UN_RSQRT;
    p->type = MPK_TYPE_INT16;
    p->size = size;
    p->multiplier = m;
    p->shift = shift;
    p->act_min = -32768;
    p->act_max = 32767;
    mp_lower_set_kernel(c, MP_K_UNARY_Q);
    mp_lower_add_arg(c, in, false, "const void *");
    mp_lower_add_arg(c, out, true, "void *");
    return MP_OK;
  }
  int32_t *table = mp_lower_add_array(c->lo, "table", 256);
  if (!table) return MP_ERR_NOMEM;
  for (int32_t x = -128; x < 128; x++) {
    int32_t v = x - zi;
    /* v == 0: the largest output; v < 0 is outside the domain */
    table[x + 128] = v <= 0 ? 127 : mpk_clamp_i32(mpk_rsqrt_q(v, m, shift) + zo, -128, 127);
  }
  mpk_lut_s8_params *p = &c->lo->params.lut_s8;
  p->size = size;
  p->min_input = zi < -128 ? -128 : zi > 127 ? 128 : zi;
  p->table = table;
  mp_lower_set_kernel(c, MP_K_LUT_S8);
  mp_lower_add_arg(c, in, false, "const int8_t *");
  mp_lower_add_arg(c, out, true, "int8_t *");
  return MP_OK;
}

static mp_status lower_quantized(mp_lower_ctx *c, int32_t code, int32_t in, int32_t out,
                                 int32_t size) {
  int32_t dt = dtype(c, in);
  bool wide = dt == MP_DTYPE_INT16;
  int32_t qmin = wide ? -32768 : -128, qmax = wide ? 32767 : 127;
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "%s tensors without quantisation parameters", mp_dtype_name(dt));
  if (code == OP_NEG || code == OP_SQUARE || code == OP_SQRT || code == OP_LOG || code == OP_SIN ||
      code == OP_COS || code == OP_FLOOR || code == OP_CEIL || code == OP_ROUND)
    return mp_lower_unsupported(c, "%s %s (TFLM runs it on float32 only)", mp_dtype_name(dt),
                                c->op->name);
  if (wide && (zi != 0 || zo != 0))
    return mp_lower_unsupported(c, "int16 tensors with a non-zero zero point");
  mpk_unary_q_params *p = &c->lo->params.unary_q;
  p->type = wide ? MPK_TYPE_INT16 : MPK_TYPE_INT8;
  p->size = size;
  p->input_zero_point = zi;
  p->output_zero_point = zo;
  p->act_min = qmin;
  p->act_max = qmax;
  switch (code) {
  case OP_RELU: /* CalculateReluOpData */
    p->op = MPK_UN_RELU;
    mp_lower_quantize_multiplier(c, (double)si / (double)so, &p->multiplier, &p->shift);
    p->act_min = zo > qmin ? zo : qmin;
    break;
  case OP_RELU6: { /* Relu6Prepare: the stored integers of 0 and 6 */
    p->op = MPK_UN_CLAMP;
    int32_t six = (int32_t)roundf(6.0f / si) + zi;
    p->act_min = zi;
    p->act_max = six < qmin ? qmin : six > qmax ? qmax : six;
    break;
  }
  case OP_LEAKY_RELU: {
    mp_lower_opts o;
    mp_status st = mp_lower_open_opts(c, OPT_LEAKY_RELU, "LeakyReluOptions", &o);
    if (st != MP_OK) return st;
    float alpha = mp_lower_opt_f32(&o, 0, 0.0f);
    if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
    p->op = MPK_UN_LEAKY_RELU;
    mp_lower_quantize_multiplier(c, (double)(si / so), &p->multiplier, &p->shift);
    mp_lower_quantize_multiplier(c, (double)(si * alpha / so), &p->multiplier2, &p->shift2);
    break;
  }
  case OP_TANH:
    if (wide) {
      mp_status st = lut16(c, false, si, so, p);
      if (st != MP_OK || c->lo->reason[0]) return st;
      break;
    }
    if (zo != 0 || so != 1.0f / 128)
      return mp_lower_unsupported(c, "int8 output must have scale 1/128 and zero point 0");
    p->op = MPK_UN_TANH;
    if (!q4_input(si, &p->multiplier, &p->shift, &p->input_range_radius))
      return mp_lower_unsupported(c, "input scale out of range");
    break;
  case OP_HARD_SWISH: { /* HardSwishPrepare */
    if (wide) return mp_lower_unsupported(c, "int16 HARD_SWISH");
    p->op = MPK_UN_HARD_SWISH;
    float hires = (1.0f / 128.0f) * si, reluish = 3.0f / 32768.0f;
    int32_t m;
    mp_lower_quantize_multiplier(c, (double)(hires / so), &m, &p->shift);
    p->multiplier = q15_multiplier(m);
    if (p->shift > 0) return mp_lower_unsupported(c, "output scale too small for the input's");
    mp_lower_quantize_multiplier(c, (double)(hires / reluish), &m, &p->shift2);
    p->multiplier2 = q15_multiplier(m);
    break;
  }
  case OP_ABS: /* PrepareAbsRsqrt, AbsEvalQuantized */
    p->op = MPK_UN_ABS;
    p->multiplier = 0;
    p->shift = 0;
    if (si != so) {
      mp_lower_quantize_multiplier(c, (double)si / (double)so, &p->multiplier, &p->shift);
      if (p->multiplier == 0) return mp_lower_unsupported(c, "input to output scale ratio out of range");
    }
    break;
  case OP_RELU_N1_TO_1:
  case OP_RELU_0_TO_1: { /* TFLite's ReluPrepare and QuantizedReluX */
    if (wide) return mp_lower_unsupported(c, "int16 %s (TFLite runs int8 and float32)", c->op->name);
    float lo = code == OP_RELU_N1_TO_1 ? -1.0f : 0.0f;
    float q_lo = roundf(lo / so), q_hi = roundf(1.0f / so);
    if (!(q_hi < 65536.0f))
      return mp_lower_unsupported(c, "output scale %g too small for the bounds", (double)so);
    p->op = MPK_UN_RELU;
    mp_lower_quantize_multiplier(c, (double)(si / so), &p->multiplier, &p->shift);
    int32_t amin = zo + (int32_t)q_lo, amax = zo + (int32_t)q_hi;
    p->act_min = amin > qmin ? amin : qmin;
    p->act_max = amax < qmax ? amax : qmax;
    break;
  }
  case OP_ELU:
    return mp_lower_unsupported(c, "%s ELU: TFLM's lookup table is not reproduced (supported: float32)",
                                mp_dtype_name(dt));
  case OP_LOG_SOFTMAX:
  case OP_L2_NORMALIZATION:
    return mp_lower_unsupported(c,
                                "%s %s: TFLM's integer algorithm is not reproduced (supported: float32)",
                                mp_dtype_name(dt), c->op->name);
  case OP_LOGISTIC: /* int16 only: elementwise.c lowers int8 and float32 */
  {
    if (!wide) return mp_lower_unsupported(c, "%s LOGISTIC", mp_dtype_name(dt));
    mp_status st = lut16(c, true, si, so, p);
    if (st != MP_OK || c->lo->reason[0]) return st;
    break;
  }
  default:
    return mp_lower_unsupported(c, "%s on %s (supported: float32)", c->op->name, mp_dtype_name(dt));
  }
  mp_lower_set_kernel(c, MP_K_UNARY_Q);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_float(mp_lower_ctx *c, int32_t code, int32_t in, int32_t out, int32_t size) {
  mpk_unary_f32_params *p = &c->lo->params.unary_f32;
  p->size = size;
  p->depth = 0;
  if (code == OP_LOG_SOFTMAX || code == OP_L2_NORMALIZATION) {
    /* over the last axis, each row on its own */
    if (rank(c, in) == 0) return mp_lower_unsupported(c, "a rank-0 input");
    p->depth = dim(c, in, rank(c, in) - 1);
    if (p->depth <= 0) return mp_lower_unsupported(c, "a last axis of size %d", (int)p->depth);
  }
  switch (code) {
  case OP_RELU: p->op = MPK_UN_RELU; break;
  case OP_RELU6: p->op = MPK_UN_RELU6; break;
  case OP_TANH: p->op = MPK_UN_TANH; break;
  case OP_HARD_SWISH: p->op = MPK_UN_HARD_SWISH; break;
  case OP_EXP: p->op = MPK_UN_EXP; break;
  case OP_RSQRT: p->op = MPK_UN_RSQRT; break;
  case OP_ABS: p->op = MPK_UN_ABS; break;
  case OP_NEG: p->op = MPK_UN_NEG; break;
  case OP_SQUARE: p->op = MPK_UN_SQUARE; break;
  case OP_SQRT: p->op = MPK_UN_SQRT; break;
  case OP_LOG: p->op = MPK_UN_LOG; break;
  case OP_SIN: p->op = MPK_UN_SIN; break;
  case OP_COS: p->op = MPK_UN_COS; break;
  case OP_FLOOR: p->op = MPK_UN_FLOOR; break;
  case OP_CEIL: p->op = MPK_UN_CEIL; break;
  case OP_ROUND: p->op = MPK_UN_ROUND; break;
  case OP_RELU_N1_TO_1: p->op = MPK_UN_RELU_N1_TO_1; break;
  case OP_RELU_0_TO_1: p->op = MPK_UN_RELU_0_TO_1; break;
  case OP_ELU: p->op = MPK_UN_ELU; break;
  case OP_LOG_SOFTMAX: p->op = MPK_UN_LOG_SOFTMAX; break;
  case OP_L2_NORMALIZATION: {
    mp_lower_opts o;
    mp_status st = mp_lower_open_opts(c, OPT_L2_NORM, "L2NormOptions", &o);
    if (st != MP_OK) return st;
    int32_t act = mp_lower_opt_i8(&o, 0, 0);
    if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
    if (act != 0)
      return mp_lower_unsupported(c, "fused activation %s (supported: NONE)", mp_lower_act_name(act));
    p->op = MPK_UN_L2_NORMALIZATION;
    break;
  }
  default: { /* LEAKY_RELU */
    mp_lower_opts o;
    mp_status st = mp_lower_open_opts(c, OPT_LEAKY_RELU, "LeakyReluOptions", &o);
    if (st != MP_OK) return st;
    p->alpha = mp_lower_opt_f32(&o, 0, 0.0f);
    if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
    p->op = MPK_UN_LEAKY_RELU;
    break;
  }
  }
  mp_lower_set_kernel(c, MP_K_UNARY_F32);
  mp_lower_add_arg(c, in, false, "const float *");
  mp_lower_add_arg(c, out, true, "float *");
  return MP_OK;
}

mp_status mp_lower_unary(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0), size;
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  if (elems(c, in) != elems(c, out))
    return mp_lower_malformed(c, "input and output differ in size");
  if (!elems_i32(c, in, &size)) return mp_lower_unsupported(c, "more than 2^31 elements");
  int32_t code = c->op->builtin_code, dti = dtype(c, in), dto = dtype(c, out);
  if (code == OP_CAST) {
    int32_t ti = elem_type(dti), to = elem_type(dto);
    if (ti < 0 || to < 0)
      return mp_lower_unsupported(c, "%s to %s (supported: int8, int16, int32, uint32, float32, bool)",
                                  mp_dtype_name(dti), mp_dtype_name(dto));
    mpk_cast_params *p = &c->lo->params.cast;
    p->size = size;
    p->in_type = ti;
    p->out_type = to;
    mp_lower_set_kernel(c, MP_K_CAST);
    mp_lower_add_arg(c, in, false, "const void *");
    mp_lower_add_arg(c, out, true, "void *");
    return MP_OK;
  }
  if (code == OP_DEQUANTIZE) {
    float s;
    int32_t zp;
    if ((dti != MP_DTYPE_INT8 && dti != MP_DTYPE_INT16) || dto != MP_DTYPE_FLOAT32)
      return mp_lower_unsupported(c, "%s to %s (supported: int8 or int16 to float32)",
                                  mp_dtype_name(dti), mp_dtype_name(dto));
    if (!quant(c, in, &s, &zp) || tdef(c, in)->quant.n_scale != 1)
      return mp_lower_unsupported(c, "input without per-tensor quantisation");
    mpk_dequantize_params *p = &c->lo->params.dequantize;
    p->size = size;
    p->in_type = elem_type(dti);
    p->scale = s;
    p->zero_point = zp;
    mp_lower_set_kernel(c, MP_K_DEQUANTIZE);
    mp_lower_add_arg(c, in, false, "const void *");
    mp_lower_add_arg(c, out, true, "float *");
    return MP_OK;
  }
  if (dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32)
    return lower_float(c, code, in, out, size);
  if (code == OP_RSQRT && dti == dto && (dti == MP_DTYPE_INT8 || dti == MP_DTYPE_INT16))
    return lower_rsqrt(c, in, out, size, dti == MP_DTYPE_INT16);
  if (dti == dto && (dti == MP_DTYPE_INT8 || dti == MP_DTYPE_INT16))
    return lower_quantized(c, code, in, out, size);
  return mp_lower_unsupported(c, "input %s, output %s (supported: int8, int16 or float32)",
                              mp_dtype_name(dti), mp_dtype_name(dto));
}

/* ---- int16 SOFTMAX --------------------------------------------------------- */

const fdesc mp_lower_softmax_s16_fields[] = {
    F_I32(mpk_softmax_s16_params, outer),
    F_I32(mpk_softmax_s16_params, depth),
    F_I32(mpk_softmax_s16_params, input_multiplier),
    F_I32(mpk_softmax_s16_params, input_shift),
    F_PTR(mpk_softmax_s16_params, exp_table, "exp_table"),
    F_PTR(mpk_softmax_s16_params, recip_table, "recip_table"),
    F_END};

static float exp_f(float x) { return expf(x); }
static float one_over_one_plus_x(float x) { return 1.0f / (1.0f + x); }

/* TFLite's gen_lut for an int16 table: 512 samples of func over [lo, hi]
 * with output range [-1, 1], each biased by half its midpoint
 * interpolation error, and the value at hi last; in float. */
static void gen_lut16(float (*func)(float), float lo, float hi, int32_t *lut) {
  const float step = (hi - lo) / 512, half = step / 2, scale = 65536.0f / 2.0f;
  for (int i = 0; i < 512; i++) {
    float v = func(lo + (float)i * step), mid = func(lo + (float)i * step + half);
    float next = func(lo + (float)(i + 1) * step);
    float sample = roundf(v * scale);
    float interp = roundf((next * scale + roundf(v * scale)) / 2);
    float bias = roundf((interp - roundf(mid * scale)) / 2);
    float x = sample - bias;
    lut[i] = (int32_t)(x < -32768.0f ? -32768.0f : x > 32767.0f ? 32767.0f : x);
  }
  float last = roundf(func(hi) * scale);
  lut[512] = (int32_t)(last < -32768.0f ? -32768.0f : last > 32767.0f ? 32767.0f : last);
}

mp_status mp_lower_softmax_s16(mp_lower_ctx *c, float beta, int32_t outer, int32_t depth) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "int16 tensors without quantisation parameters");
  if (zi != 0 || zo != 0 || fabsf(so - 1.0f / 32768) > 1e-3f * (1.0f / 32768))
    return mp_lower_unsupported(c, "int16 SOFTMAX needs zero points 0 and output scale 1/32768");
  mpk_softmax_s16_params *p = &c->lo->params.softmax_s16;
  p->outer = outer;
  p->depth = depth;
  /* SoftmaxPrepare: the input scaled so that 10.0 spans the int16 range */
  float scaled = si * beta;
  mp_lower_quantize_multiplier(c, (double)scaled / (10.0 / 65535.0), &p->input_multiplier,
                               &p->input_shift);
  int32_t *e = mp_lower_add_array(c->lo, "exp_table", 513);
  int32_t *r = e ? mp_lower_add_array(c->lo, "recip_table", 513) : NULL;
  if (!r) return MP_ERR_NOMEM;
  gen_lut16(exp_f, -10.0f, 0.0f, e);
  gen_lut16(one_over_one_plus_x, 0.0f, 1.0f, r);
  p->exp_table = e;
  p->recip_table = r;
  mp_lower_set_kernel(c, MP_K_SOFTMAX_S16);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  return MP_OK;
}
