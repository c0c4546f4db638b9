/*
 * mpk_unary.c — the elementwise unary operators: RELU, RELU6, LEAKY_RELU,
 * TANH and HARD_SWISH on int8 / int16 / float32, EXP on float32, RSQRT on
 * int16 and float32 (int8 RSQRT is a table the lowering computes), ABS on
 * int8, int16 and float32; RELU_0_TO_1, ELU, NEG, SQUARE, SQRT, LOG, SIN,
 * COS, FLOOR, CEIL and ROUND on float32, and LOG_SOFTMAX and
 * L2_NORMALIZATION row by row on float32; DEQUANTIZE and CAST.
 *
 * The quantised paths are TFLite Micro's reference arithmetic: RELU and
 * LEAKY_RELU requantise (LEAKY_RELU with one multiplier per sign), RELU6
 * clamps the stored integers, TANH int8 is gemmlowp's fixed-point tanh on
 * a Q4 input (as LOGISTIC is), TANH and LOGISTIC int16 TFLite's table
 * lookup with interpolation, HARD_SWISH int8 TFLite's int16 fixed point
 * with its two rounding variants, ABS int8 / int16 TFLM's requantisation
 * of |x - zero point|.  The float paths are the plain formulas in float
 * with C's functions (TFLM's std:: ones), ROUND TFLite's own rounding.
 */
#include "mpk.h"
#include "mpk_act.h"
#include "mpk_fixed.h"

#include <float.h>
#include <math.h>

/* ---- int16 fixed point of HARD_SWISH --------------------------------------- */

static int32_t clamp16(int64_t v) { return v < -32768 ? -32768 : v > 32767 ? 32767 : (int32_t)v; }

/* round(a * b / 2^15), saturating -1 * -1 (gemmlowp, int16). */
static int32_t srdhm16(int32_t a, int32_t b) {
  if (a == b && a == -32768) return 32767;
  int32_t ab = a * b;
  int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (int16_t)((ab + nudge) / (1 << 15));
}

/* a * b / 2^15 truncated, saturating -1 * -1 (TFLite's
 * SaturatingDoublingHighMul). */
static int32_t sdhm16(int32_t a, int32_t b) {
  if (a == b && a == -32768) return 32767;
  return (int16_t)((a * b) / (1 << 15));
}

static int32_t hard_swish_s8_one(const mpk_unary_q_params *p, int32_t x) {
  const int32_t relu_exp = p->shift2;
  int32_t in = (int16_t)(x - p->input_zero_point);
  int32_t hires = (int16_t)(in * (1 << 7));
  int32_t pre_out = srdhm16(hires, p->multiplier);
  int32_t reluish = hires;
  if (relu_exp > 0) reluish = clamp16((int64_t)reluish * ((int64_t)1 << (relu_exp - 1)));
  reluish = srdhm16(reluish, p->multiplier2);
  if (relu_exp > 0) reluish = clamp16((int64_t)reluish * 2);
  if (relu_exp < 0) reluish = mpk_rdbpot(reluish, -relu_exp);
  reluish = (int16_t)((reluish + (1 << 15)) >> 1);
  int32_t out = mpk_rdbpot(sdhm16(reluish, pre_out), -p->shift);
  out = (int16_t)(out + p->output_zero_point);
  return mpk_clamp_i32(out, -128, 127);
}

/* ---- kernels ------------------------------------------------------------------ */

static int32_t unary_q_one(const mpk_unary_q_params *p, int32_t x) {
  int32_t v = x - p->input_zero_point;
  switch (p->op) {
  case MPK_UN_RELU: v = p->output_zero_point + mpk_mbqm(v, p->multiplier, p->shift); break;
  case MPK_UN_CLAMP: v = x; break;
  case MPK_UN_LEAKY_RELU:
    v = p->output_zero_point +
        (v >= 0 ? mpk_mbqm(v, p->multiplier, p->shift) : mpk_mbqm(v, p->multiplier2, p->shift2));
    break;
  case MPK_UN_TANH:
    if (v <= -p->input_range_radius) return -128;
    if (v >= p->input_range_radius) return 127;
    v = mpk_rdbpot(mpk_tanh_fixed(mpk_mbqm(v, p->multiplier, p->shift), 4), 31 - 7);
    break;
  case MPK_UN_ABS: {
    /* int64: no sum overflows whatever the multiplier */
    int64_t a = v < 0 ? -(int64_t)v : v;
    if (p->multiplier) a = mpk_mbqm((int32_t)a, p->multiplier, p->shift);
    a += p->output_zero_point;
    return a < p->act_min ? p->act_min : a > p->act_max ? p->act_max : (int32_t)a;
  }
  default: return hard_swish_s8_one(p, x);
  }
  return mpk_clamp_i32(v, p->act_min, p->act_max);
}

MPK_API int32_t mpk_unary_q(const mpk_unary_q_params *p, const void *input, void *output,
                            void *scratch) {
  (void)scratch;
  const int wide = p->type == MPK_TYPE_INT16;
  if (p->size < 0 || (p->type != MPK_TYPE_INT8 && !wide) ||
      !(p->op <= MPK_UN_HARD_SWISH || p->op == MPK_UN_ABS ||
        (wide && (p->op == MPK_UN_LOGISTIC || p->op == MPK_UN_RSQRT))) ||
      (wide && p->op == MPK_UN_HARD_SWISH) || (!wide && p->op == MPK_UN_LOGISTIC) || p->op < 0)
    return MPK_ERR_PARAMS;
  if (wide && p->op == MPK_UN_TANH) {
    mpk_tanh_s16(p->multiplier, p->shift, p->size, input, output);
  } else if (wide && p->op == MPK_UN_LOGISTIC) {
    mpk_logistic_s16(p->multiplier, p->shift, p->size, input, output);
  } else if (wide && p->op == MPK_UN_RSQRT) { /* int8 RSQRT is a table: mpk_lut_s8 */
    for (int32_t i = 0; i < p->size; i++) {
      int32_t v = ((const int16_t *)input)[i] - p->input_zero_point;
      if (v < 0) return MPK_ERR_DOMAIN; /* TFLite fails there too */
      /* 0: the largest output, as TFLite gives */
      v = v == 0 ? p->act_max : p->output_zero_point + mpk_rsqrt_q(v, p->multiplier, p->shift);
      ((int16_t *)output)[i] = (int16_t)mpk_clamp_i32(v, p->act_min, p->act_max);
    }
  } else if (wide) {
    for (int32_t i = 0; i < p->size; i++)
      ((int16_t *)output)[i] = (int16_t)unary_q_one(p, ((const int16_t *)input)[i]);
  } else {
    for (int32_t i = 0; i < p->size; i++)
      ((int8_t *)output)[i] = (int8_t)unary_q_one(p, ((const int8_t *)input)[i]);
  }
  return MPK_OK;
}

/* TFLite's RoundToNearest: half-way cases to the even neighbour, on
 * floor(x) and x - floor(x) (both exact), so -0.5 and -0.25 give +0 where
 * rintf gives -0; an infinity or a NaN comes back as it went in. */
static float round_half_even(float x) {
  float f = floorf(x), d = x - f;
  if (d < 0.5f || (d == 0.5f && fmodf(f, 2.0f) == 0.0f)) return f;
  return f + 1.0f;
}

static float unary_f32_one(int32_t op, float alpha, float x) {
  switch (op) {
  case MPK_UN_RELU: return x < 0.0f ? 0.0f : x;
  case MPK_UN_RELU6: return x > 6.0f ? 6.0f : x < 0.0f ? 0.0f : x;
  case MPK_UN_RELU_N1_TO_1: return x > 1.0f ? 1.0f : x < -1.0f ? -1.0f : x;
  case MPK_UN_RELU_0_TO_1: return x > 1.0f ? 1.0f : x < 0.0f ? 0.0f : x;
  case MPK_UN_LEAKY_RELU: return x > 0.0f ? x : x * alpha;
  case MPK_UN_TANH: return tanhf(x);
  case MPK_UN_HARD_SWISH: {
    float r = x + 3.0f;
    r = r < 0.0f ? 0.0f : r;
    r = r > 6.0f ? 6.0f : r;
    return x * r / 6.0f;
  }
  case MPK_UN_EXP: return expf(x);
  case MPK_UN_RSQRT: return 1.0f / sqrtf(x);
  case MPK_UN_ABS: return fabsf(x);
  case MPK_UN_NEG: return -x;
  case MPK_UN_SQUARE: return x * x;
  case MPK_UN_SQRT: return sqrtf(x);
  case MPK_UN_LOG: return logf(x);
  case MPK_UN_SIN: return sinf(x);
  case MPK_UN_COS: return cosf(x);
  case MPK_UN_FLOOR: return floorf(x);
  case MPK_UN_CEIL: return ceilf(x);
  case MPK_UN_ROUND: return round_half_even(x);
  default: return x < 0.0f ? expm1f(x) : x; /* ELU */
  }
}

/* One row of LOG_SOFTMAX (TFLite's reference: the maximum from the lowest
 * float, the sum of exp(x - max) in float, x - max - log(sum)) or of
 * L2_NORMALIZATION (x / max(sqrt(sum of squares), 1e-6)). */
static void unary_f32_row(int32_t op, int32_t depth, const float *in, float *out) {
  if (op == MPK_UN_LOG_SOFTMAX) {
    float max = -FLT_MAX, sum = 0.0f;
    for (int32_t k = 0; k < depth; k++)
      max = max < in[k] ? in[k] : max;
    for (int32_t k = 0; k < depth; k++)
      sum += expf(in[k] - max);
    float log_sum = logf(sum);
    for (int32_t k = 0; k < depth; k++)
      out[k] = in[k] - max - log_sum;
    return;
  }
  float sq = 0.0f;
  for (int32_t k = 0; k < depth; k++)
    sq += in[k] * in[k];
  float norm = sqrtf(sq);
  norm = norm < 1e-6f ? 1e-6f : norm;
  for (int32_t k = 0; k < depth; k++)
    out[k] = in[k] / norm;
}

MPK_API int32_t mpk_unary_f32(const mpk_unary_f32_params *p, const float *input, float *output,
                              void *scratch) {
  (void)scratch;
  const int rows = p->op == MPK_UN_LOG_SOFTMAX || p->op == MPK_UN_L2_NORMALIZATION;
  if (p->size < 0 || p->op < MPK_UN_RELU || p->op > MPK_UN_L2_NORMALIZATION ||
      p->op == MPK_UN_CLAMP || p->op == MPK_UN_LOGISTIC ||
      (rows && (p->depth <= 0 || p->size % p->depth != 0)))
    return MPK_ERR_PARAMS;
  if (rows) {
    for (int32_t r = 0; r < p->size; r += p->depth)
      unary_f32_row(p->op, p->depth, input + r, output + r);
    return MPK_OK;
  }
  for (int32_t i = 0; i < p->size; i++)
    output[i] = unary_f32_one(p->op, p->alpha, input[i]);
  return MPK_OK;
}

MPK_API int32_t mpk_dequantize(const mpk_dequantize_params *p, const void *input, float *output,
                               void *scratch) {
  (void)scratch;
  if (p->size < 0 || (p->in_type != MPK_TYPE_INT8 && p->in_type != MPK_TYPE_INT16))
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    int32_t x =
        p->in_type == MPK_TYPE_INT16 ? ((const int16_t *)input)[i] : ((const int8_t *)input)[i];
    output[i] = p->scale * (float)(x - p->zero_point); /* exact product, rounded once */
  }
  return MPK_OK;
}

/* One element of a CAST, read as an integer or a float. */
typedef struct cast_value {
  int is_float;
  int64_t i;
  float f;
} cast_value;

static cast_value cast_read(const void *in, int32_t type, int32_t k) {
  cast_value v = {0, 0, 0.0f};
  switch (type) {
  case MPK_TYPE_INT8: v.i = ((const int8_t *)in)[k]; break;
  case MPK_TYPE_UINT8: v.i = ((const uint8_t *)in)[k]; break;
  case MPK_TYPE_INT16: v.i = ((const int16_t *)in)[k]; break;
  case MPK_TYPE_INT32: v.i = ((const int32_t *)in)[k]; break;
  case MPK_TYPE_UINT32: v.i = ((const uint32_t *)in)[k]; break;
  case MPK_TYPE_BOOL: v.i = ((const uint8_t *)in)[k] != 0; break;
  default: v.is_float = 1, v.f = ((const float *)in)[k]; break;
  }
  return v;
}

static void cast_write(void *out, int32_t type, int32_t k, cast_value v) {
  /* float to integer: truncated toward zero through int32, as the hosts
   * TFLite runs on convert */
  int64_t i = v.i;
  if (v.is_float && type == MPK_TYPE_UINT32)
    i = v.f >= 9223372036854775808.0f || v.f < -9223372036854775808.0f || v.f != v.f ? 0
                                                                                  : (int64_t)v.f;
  else if (v.is_float)
    i = v.f >= 2147483648.0f || v.f < -2147483648.0f || v.f != v.f ? INT32_MIN : (int32_t)v.f;
  switch (type) {
  case MPK_TYPE_INT8: ((int8_t *)out)[k] = (int8_t)(uint8_t)(uint64_t)i; break;
  case MPK_TYPE_UINT8: ((uint8_t *)out)[k] = (uint8_t)(uint64_t)i; break;
  case MPK_TYPE_INT16: ((int16_t *)out)[k] = (int16_t)(uint16_t)(uint64_t)i; break;
  case MPK_TYPE_INT32: ((int32_t *)out)[k] = (int32_t)(uint32_t)(uint64_t)i; break;
  case MPK_TYPE_UINT32: ((uint32_t *)out)[k] = (uint32_t)(uint64_t)i; break;
  case MPK_TYPE_BOOL: ((uint8_t *)out)[k] = v.is_float ? v.f != 0.0f : v.i != 0; break;
  default: ((float *)out)[k] = v.is_float ? v.f : (float)v.i; break;
  }
}

MPK_API int32_t mpk_cast(const mpk_cast_params *p, const void *input, void *output, void *scratch) {
  (void)scratch;
  if (p->size < 0 || p->in_type < 0 || p->in_type > MPK_TYPE_UINT32 || p->out_type < 0 ||
      p->out_type > MPK_TYPE_UINT32)
    return MPK_ERR_PARAMS;
  for (int32_t k = 0; k < p->size; k++)
    cast_write(output, p->out_type, k, cast_read(input, p->in_type, k));
  return MPK_OK;
}

MPK_API int32_t mpk_lut_s8(const mpk_lut_s8_params *p, const int8_t *input, int8_t *output,
                           void *scratch) {
  (void)scratch;
  if (p->size < 0 || !p->table) return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    if (input[i] < p->min_input) return MPK_ERR_DOMAIN;
    output[i] = (int8_t)p->table[input[i] + 128];
  }
  return MPK_OK;
}

/* TFLite's lut_lookup: 512 intervals over the int16 range, linear
 * interpolation rounded to Q0.15. */
static int16_t lut513(int16_t v, const int32_t *lut) {
  int32_t index = 256 + (v >> 7), offset = v & 0x7f;
  int32_t base = (int16_t)lut[index], slope = (int16_t)((int16_t)lut[index + 1] - base);
  return (int16_t)(base + ((slope * offset + 64) >> 7));
}

MPK_API int32_t mpk_softmax_s16(const mpk_softmax_s16_params *p, const int16_t *input,
                                int16_t *output, void *scratch) {
  (void)scratch;
  if (p->outer < 0 || p->depth <= 0 || !p->exp_table || !p->recip_table) return MPK_ERR_PARAMS;
  for (int32_t r = 0; r < p->outer; r++) {
    const int16_t *in = input + r * p->depth;
    int16_t *out = output + r * p->depth; /* holds the exps first */
    int32_t max = -32768, sum = 0;
    for (int32_t k = 0; k < p->depth; k++)
      max = in[k] > max ? in[k] : max;
    for (int32_t k = 0; k < p->depth; k++) {
      int32_t d = mpk_mbqm(in[k] - max, p->input_multiplier, p->input_shift) + 32767;
      out[k] = lut513((int16_t)mpk_clamp_i32(d, -32768, 32767), p->exp_table);
      sum += out[k];
    }
    int headroom = mpk_clz32((uint32_t)sum);
    int32_t shifted = (int32_t)((((int64_t)sum << (headroom - 1)) + (1 << 13)) >> 14);
    /* x = sum - 1 in Q0.16, recentred onto the table's int16 range */
    int32_t x = shifted - ((1 << 15) + (1 << 16));
    int16_t recip = lut513((int16_t)mpk_clamp_i32(x, -32768, 32767), p->recip_table);
    int right = 31 - headroom;
    int64_t round = (int64_t)1 << (right - 1);
    for (int32_t k = 0; k < p->depth; k++) {
      int32_t v = (int32_t)(((int64_t)out[k] * (int64_t)recip + round) >> right);
      out[k] = (int16_t)mpk_clamp_i32(v, 0, 32767);
    }
  }
  return MPK_OK;
}
