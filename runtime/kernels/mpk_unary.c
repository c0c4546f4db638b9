/*
 * mpk_unary.c — the elementwise unary operators: RELU, RELU6, LEAKY_RELU,
 * TANH and HARD_SWISH on int8 / int16 / float32, EXP and RSQRT on float32,
 * DEQUANTIZE and CAST.
 *
 * The quantised paths are TFLite Micro's reference arithmetic: RELU and
 * LEAKY_RELU requantise (LEAKY_RELU with one multiplier per sign), RELU6
 * clamps the stored integers, TANH int8 is gemmlowp's fixed-point tanh on
 * a Q4 input (as LOGISTIC is), TANH and LOGISTIC int16 TFLite's table
 * lookup with interpolation, HARD_SWISH int8 TFLite's int16 fixed point
 * with its two rounding variants.  The float paths are the plain formulas
 * in float.
 */
#include "mpk.h"
#include "mpk_fixed.h"

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

/* ------------------------------------------------------------------------ */
/* int16 logistic and tanh by table lookup                                  */
/* ------------------------------------------------------------------------ */

/* TFLite's table of the logistic function in 0.16 fixed point: entry k
 * is close to 65536 / (1 + exp(-k / 24)) (within 1 below k = 100; the tail
 * is tuned for interpolation).  The int16 logistic and tanh interpolate
 * between its entries; bit-exactness with TFLite needs these values. */
static const uint16_t sigmoid_table[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

/* The input scaled by multiplier / 2^shift with rounding; multiplier 0
 * means the power-of-two case, 3 * 2^shift. */
static int32_t lut_input(int16_t x, int32_t multiplier, int32_t shift) {
  if (multiplier == 0) {
    multiplier = 3 * (1 << shift);
    shift = 0;
  }
  int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  return ((int32_t)x * multiplier + round) >> shift;
}

MPK_API void mpk_logistic_s16_lut(int32_t multiplier, int32_t shift, int32_t size,
                                  const int16_t *in, int16_t *out) {
  for (int32_t i = 0; i < size; i++) {
    int32_t x = lut_input(in[i], multiplier, shift);
    uint32_t ax = (uint32_t)(x < 0 ? -x : x);
    uint32_t hi = ax >> 9, r;
    if (hi >= 255) {
      r = 0x7FFFu << 10;
    } else {
      uint32_t a = sigmoid_table[hi], b = sigmoid_table[hi + 1];
      r = (a << 9) + (ax & 0x1FFu) * (b - a);
    }
    r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
    out[i] = (int16_t)(r >> 10);
  }
}

/* tanh(x) = 2 logistic(2x) - 1: the same table, read at twice the rate. */
MPK_API void mpk_tanh_s16_lut(int32_t multiplier, int32_t shift, int32_t size, const int16_t *in,
                              int16_t *out) {
  for (int32_t i = 0; i < size; i++) {
    int32_t x = lut_input(in[i], multiplier, shift);
    uint32_t ax = (uint32_t)(x < 0 ? -x : x);
    uint32_t hi = ax >> 8;
    int32_t r;
    if (hi >= 255) {
      r = (int32_t)(0xFFFFu << 8);
    } else {
      uint32_t a = sigmoid_table[hi], b = sigmoid_table[hi + 1];
      r = (int32_t)((a << 8) + (ax & 0xFFu) * (b - a));
    }
    r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    out[i] = (int16_t)(r >> 8);
  }
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
  default: return hard_swish_s8_one(p, x);
  }
  return mpk_clamp_i32(v, p->act_min, p->act_max);
}

MPK_API int32_t mpk_unary_q(const mpk_unary_q_params *p, const void *input, void *output,
                            void *scratch) {
  (void)scratch;
  const int wide = p->type == MPK_TYPE_INT16;
  if (p->size < 0 || (p->type != MPK_TYPE_INT8 && !wide) ||
      !(p->op <= MPK_UN_HARD_SWISH || (wide && p->op == MPK_UN_LOGISTIC)) ||
      (wide && p->op == MPK_UN_HARD_SWISH) || (!wide && p->op == MPK_UN_LOGISTIC) || p->op < 0)
    return MPK_ERR_PARAMS;
  if (wide && p->op == MPK_UN_TANH) {
    mpk_tanh_s16_lut(p->multiplier, p->shift, p->size, input, output);
  } else if (wide && p->op == MPK_UN_LOGISTIC) {
    mpk_logistic_s16_lut(p->multiplier, p->shift, p->size, input, output);
  } else if (wide) {
    for (int32_t i = 0; i < p->size; i++)
      ((int16_t *)output)[i] = (int16_t)unary_q_one(p, ((const int16_t *)input)[i]);
  } else {
    for (int32_t i = 0; i < p->size; i++)
      ((int8_t *)output)[i] = (int8_t)unary_q_one(p, ((const int8_t *)input)[i]);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_unary_f32(const mpk_unary_f32_params *p, const float *input, float *output,
                              void *scratch) {
  (void)scratch;
  if (p->size < 0 || p->op < MPK_UN_RELU || p->op > MPK_UN_RSQRT || p->op == MPK_UN_CLAMP)
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    float x = input[i], v;
    switch (p->op) {
    case MPK_UN_RELU: v = x < 0.0f ? 0.0f : x; break;
    case MPK_UN_RELU6: v = x > 6.0f ? 6.0f : x < 0.0f ? 0.0f : x; break;
    case MPK_UN_RELU_N1_TO_1: v = x > 1.0f ? 1.0f : x < -1.0f ? -1.0f : x; break;
    case MPK_UN_LEAKY_RELU: v = x > 0.0f ? x : x * p->alpha; break;
    case MPK_UN_TANH: v = tanhf(x); break;
    case MPK_UN_HARD_SWISH: {
      float r = x + 3.0f;
      r = r < 0.0f ? 0.0f : r;
      r = r > 6.0f ? 6.0f : r;
      v = x * r / 6.0f;
      break;
    }
    case MPK_UN_EXP: v = expf(x); break;
    default: v = 1.0f / sqrtf(x); break;
    }
    output[i] = v;
  }
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
  case MPK_TYPE_BOOL: v.i = ((const uint8_t *)in)[k] != 0; break;
  default: v.is_float = 1, v.f = ((const float *)in)[k]; break;
  }
  return v;
}

static void cast_write(void *out, int32_t type, int32_t k, cast_value v) {
  /* float to integer: truncated toward zero through int32, as the hosts
   * TFLite runs on convert */
  int64_t i = v.i;
  if (v.is_float)
    i = v.f >= 2147483648.0f || v.f < -2147483648.0f || v.f != v.f ? INT32_MIN : (int32_t)v.f;
  switch (type) {
  case MPK_TYPE_INT8: ((int8_t *)out)[k] = (int8_t)(uint8_t)(uint64_t)i; break;
  case MPK_TYPE_UINT8: ((uint8_t *)out)[k] = (uint8_t)(uint64_t)i; break;
  case MPK_TYPE_INT16: ((int16_t *)out)[k] = (int16_t)(uint16_t)(uint64_t)i; break;
  case MPK_TYPE_INT32: ((int32_t *)out)[k] = (int32_t)(uint32_t)(uint64_t)i; break;
  case MPK_TYPE_BOOL: ((uint8_t *)out)[k] = v.is_float ? v.f != 0.0f : v.i != 0; break;
  default: ((float *)out)[k] = v.is_float ? v.f : (float)v.i; break;
  }
}

MPK_API int32_t mpk_cast(const mpk_cast_params *p, const void *input, void *output, void *scratch) {
  (void)scratch;
  if (p->size < 0 || p->in_type < 0 || p->in_type > MPK_TYPE_BOOL || p->out_type < 0 ||
      p->out_type > MPK_TYPE_BOOL)
    return MPK_ERR_PARAMS;
  for (int32_t k = 0; k < p->size; k++)
    cast_write(output, p->out_type, k, cast_read(input, p->in_type, k));
  return MPK_OK;
}
