/*
 * mpk_fixed.h — the fixed-point arithmetic the int8 kernels share, with the
 * exact rounding of gemmlowp and TFLite's double-rounding
 * MultiplyByQuantizedMultiplier (the default of TFLite Micro builds).
 *
 * Everything here is a static inline function of int32 values; Q-formats
 * are written Qm (m integer bits, 31 - m fractional bits).  Shifts of
 * negative values are arithmetic (every compiler memplan targets does so);
 * left shifts that TFLite writes as `x * (1 << n)` are done on unsigned
 * values so that they wrap instead of being undefined.
 *
 * Internal to the kernel library (and its tests); not part of the ABI.
 */
#ifndef MPK_FIXED_H
#define MPK_FIXED_H

#include <stdint.h>

#include "mpk.h"

#define MPK_I32_MIN (-2147483647 - 1)
#define MPK_I32_MAX 2147483647

static inline int32_t mpk_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
static inline int32_t mpk_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
static inline int32_t mpk_clamp_i32(int32_t x, int32_t lo, int32_t hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

/* x * 2^n, wrapping like the two's-complement hardware does. */
static inline int32_t mpk_shl_wrap(int32_t x, int n) { return (int32_t)((uint32_t)x << n); }

/* round(a * b / 2^31), saturating the one overflow (-1 * -1). */
static inline int32_t mpk_srdhm(int32_t a, int32_t b) {
  if (a == b && a == MPK_I32_MIN) return MPK_I32_MAX;
  int64_t ab = (int64_t)a * (int64_t)b;
  int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* x / 2^exponent rounded to nearest, ties away from zero; 0 <= exponent <= 31. */
static inline int32_t mpk_rdbpot(int32_t x, int exponent) {
  int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
  int32_t remainder = x & mask;
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* TFLite's MultiplyByQuantizedMultiplier: x * multiplier / 2^31 * 2^shift. */
static inline int32_t mpk_mbqm(int32_t x, int32_t multiplier, int32_t shift) {
  int left = shift > 0 ? shift : 0;
  int right = shift > 0 ? 0 : -shift;
  return mpk_rdbpot(mpk_srdhm(mpk_shl_wrap(x, left), multiplier), right);
}

/* TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator (the
 * 16x8 kernels): the multiplier rounded to Q15, one rounding shift. */
static inline int32_t mpk_mbqm64(int64_t x, int32_t multiplier, int32_t shift) {
  int32_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  int total_shift = 15 - shift;
  x = x * (int64_t)reduced + ((int64_t)1 << (total_shift - 1));
  return (int32_t)(x >> total_shift);
}

/* The requantisation of the filter kernels' accumulators (mpk_requant of
 * mpk.h): output channel `channel`'s multiplier and shift (the first when
 * per tensor), the output offset, the activation's clamp.  The int32 form
 * is int8's; the int64 form the 16x8 kernels'. */
static inline int32_t mpk_requant_i32(const mpk_requant *q, int32_t acc, int32_t channel) {
  int32_t i = q->per_channel ? channel : 0;
  int32_t v = mpk_mbqm(acc, q->multiplier[i], q->shift[i]) + q->output_offset;
  return mpk_clamp_i32(v, q->act_min, q->act_max);
}

static inline int32_t mpk_requant_i64(const mpk_requant *q, int64_t acc, int32_t channel) {
  int32_t i = q->per_channel ? channel : 0;
  int32_t v = mpk_mbqm64(acc, q->multiplier[i], q->shift[i]) + q->output_offset;
  return mpk_clamp_i32(v, q->act_min, q->act_max);
}

/* The output strides of a window kernel (mpk_conv_geom): the ones the
 * geometry gives, packed NHWC where it gives 0.  mpk_out_strides_ok: each
 * stride at least the extent of what it steps over, so that no two outputs
 * land on one element. */
typedef struct mpk_out_strides {
  int32_t pixel, row, batch;
} mpk_out_strides;

static inline mpk_out_strides mpk_geom_out_strides(const mpk_conv_geom *g) {
  mpk_out_strides s;
  s.pixel = g->out_pixel_stride ? g->out_pixel_stride : g->out_c;
  s.row = g->out_row_stride ? g->out_row_stride : g->out_w * s.pixel;
  s.batch = g->out_batch_stride ? g->out_batch_stride : g->out_h * s.row;
  return s;
}

static inline int mpk_out_strides_ok(const mpk_conv_geom *g) {
  if (g->out_pixel_stride < 0 || g->out_row_stride < 0 || g->out_batch_stride < 0) return 0;
  mpk_out_strides s = mpk_geom_out_strides(g);
  return s.pixel >= g->out_c && (int64_t)s.row >= (int64_t)g->out_w * s.pixel &&
         (int64_t)s.batch >= (int64_t)g->out_h * s.row &&
         (int64_t)s.batch * g->batches <= 0x7fffffff;
}

/* A geometry that writes its output packed (the kernels without strides). */
static inline int mpk_out_packed(const mpk_conv_geom *g) {
  return g->out_pixel_stride == 0 && g->out_row_stride == 0 && g->out_batch_stride == 0;
}

/* x * 2^exponent for exponent > 0, saturating (gemmlowp's
 * SaturatingRoundingMultiplyByPOT with a positive exponent). */
static inline int32_t mpk_sat_shl(int32_t x, int exponent) {
  int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
  if (x > threshold) return MPK_I32_MAX;
  if (x < -threshold) return MPK_I32_MIN;
  return mpk_shl_wrap(x, exponent);
}

/* gemmlowp Rescale: change a value's integer bits from `src` to `dst`. */
static inline int32_t mpk_rescale(int32_t x, int src, int dst) {
  int e = src - dst;
  if (e > 0) return mpk_sat_shl(x, e);
  if (e < 0) return mpk_rdbpot(x, -e);
  return x;
}

/* (a + b) / 2 rounded away from zero. */
static inline int32_t mpk_rounding_half_sum(int32_t a, int32_t b) {
  int64_t sum = (int64_t)a + (int64_t)b;
  int64_t sign = sum >= 0 ? 1 : -1;
  return (int32_t)((sum + sign) / 2);
}

/* Leading zero bits of x (32 for 0). */
static inline int mpk_clz32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
  return x ? __builtin_clz(x) : 32;
#else
  int n = 0;
  if (!x) return 32;
  while (!(x & 0x80000000u)) {
    x <<= 1;
    n++;
  }
  return n;
#endif
}

/* exp(a) for a in [-1/4, 0), a and result Q0. */
static inline int32_t mpk_exp_quarter(int32_t a) {
  const int32_t constant_term = 1895147668; /* exp(-1/8) */
  const int32_t constant_1_over_3 = 715827883;
  int32_t x = a + (1 << 28); /* a + 1/8: Taylor expansion around -1/8 */
  int32_t x2 = mpk_srdhm(x, x);
  int32_t x3 = mpk_srdhm(x2, x);
  int32_t x4 = mpk_srdhm(x2, x2);
  int32_t x4_over_4 = mpk_rdbpot(x4, 2);
  int32_t poly = mpk_rdbpot(mpk_srdhm(x4_over_4 + x3, constant_1_over_3) + x2, 1);
  return constant_term + mpk_srdhm(constant_term, x + poly);
}

/* exp(a) for a <= 0; a is Q(integer_bits), the result Q0. */
static inline int32_t mpk_exp_on_negative_values(int32_t a, int integer_bits) {
  /* exp(-2^k) in Q0 for k = -2 .. 4 */
  static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308,
                                    39332535,   720401,     242};
  const int frac = 31 - integer_bits;
  const int32_t one_quarter = (int32_t)1 << (frac - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_quarter = (a & mask) - one_quarter;
  int32_t result = mpk_exp_quarter(mpk_rescale(a_mod_quarter_minus_quarter, integer_bits, 0));
  const int32_t remainder = a_mod_quarter_minus_quarter - a;
  for (int k = -2; k <= 4; k++) {
    if (integer_bits > k && (remainder & ((int32_t)1 << (frac + k))))
      result = mpk_srdhm(result, barrel[k + 2]);
  }
  if (integer_bits > 5) {
    const int32_t clamp = -((int32_t)1 << (36 - integer_bits)); /* -32 */
    if (a < clamp) result = 0;
  }
  if (a == 0) result = MPK_I32_MAX;
  return result;
}

/* 2 / (1 + a) for a in [0, 1) by Newton-Raphson; a Q0, result Q2. */
static inline int32_t mpk_two_over_one_plus_x(int32_t a) {
  const int32_t c48_over_17 = 1515870810;     /* Q2 */
  const int32_t cneg32_over_17 = -1010580540; /* Q2 */
  const int32_t one_q2 = 1 << 29;
  int32_t half_denominator = mpk_rounding_half_sum(a, MPK_I32_MAX);
  int32_t x = c48_over_17 + mpk_srdhm(half_denominator, cneg32_over_17);
  for (int i = 0; i < 3; i++) {
    int32_t half_denominator_times_x = mpk_srdhm(half_denominator, x);
    int32_t one_minus = one_q2 - half_denominator_times_x;
    x = x + mpk_rescale(mpk_srdhm(x, one_minus), 4, 2);
  }
  return x;
}

/* 1 / (1 + a) for a in [0, 1); a and result Q0. */
static inline int32_t mpk_one_over_one_plus_x(int32_t a) {
  return mpk_rescale(mpk_two_over_one_plus_x(a), 1, 0); /* x/2 seen as Q1, then Q0 */
}

/* (1 - a) / (1 + a) for a in [0, 1); a and result Q0. */
static inline int32_t mpk_one_minus_x_over_one_plus_x(int32_t a) {
  return mpk_rescale(mpk_two_over_one_plus_x(a) - (1 << 29), 2, 0);
}

/* logistic(a); a is Q(integer_bits), the result Q0. */
static inline int32_t mpk_logistic_fixed(int32_t a, int integer_bits) {
  if (a == 0) return 1 << 30;
  int32_t abs_a = a > 0 ? a : (int32_t)(0u - (uint32_t)a);
  int32_t pos = mpk_one_over_one_plus_x(
      mpk_exp_on_negative_values((int32_t)(0u - (uint32_t)abs_a), integer_bits));
  return a > 0 ? pos : MPK_I32_MAX - pos;
}

/* tanh(a); a is Q(integer_bits), the result Q0 (gemmlowp's tanh: the
 * negative half through exp(2a) read as Q(integer_bits + 1)). */
static inline int32_t mpk_tanh_fixed(int32_t a, int integer_bits) {
  if (a == 0) return 0;
  int32_t neg = a < 0 ? a : (int32_t)(0u - (uint32_t)a);
  int32_t t = mpk_one_minus_x_over_one_plus_x(mpk_exp_on_negative_values(neg, integer_bits + 1));
  return a < 0 ? (int32_t)(0u - (uint32_t)t) : t;
}

/* GetInvSqrtQuantizedMultiplierExp: 1 / sqrt(x) for x > 1 by gemmlowp's
 * Newton-Raphson in Q3, as a Q31 multiplier and a left shift. */
static inline void mpk_inv_sqrt(int32_t x, int32_t *m, int32_t *shift) {
  if (x <= 1) {
    *m = INT32_MAX;
    *shift = 0;
    return;
  }
  int32_t s = 11;
  while (x >= (1 << 29)) {
    x /= 4;
    s++;
  }
  int lz = 0;
  for (uint32_t v = (uint32_t)x; !(v & 0x80000000u); v <<= 1)
    lz++;
  int pairs = (lz - 1) / 2 - 1;
  s -= pairs;
  x <<= 2 * pairs;
  const int32_t in = x >> 1, half_in = mpk_rdbpot(in, 1);
  const int32_t half_three = (1 << 28) + (1 << 27); /* 1.5 in Q3 */
  int32_t r = 1 << 28;                              /* 1 in Q3 */
  for (int i = 0; i < 5; i++) {
    int32_t r3 = mpk_rescale(mpk_srdhm(mpk_srdhm(r, r), r), 9, 3);
    r = mpk_rescale(mpk_srdhm(half_three, r) - mpk_srdhm(half_in, r3), 6, 3);
  }
  r = mpk_srdhm(r, 1518500250); /* x sqrt(2) / 2 */
  if (s < 0) {
    r = (int32_t)((uint32_t)r << -s);
    s = 0;
  }
  *m = r;
  *shift = -s; /* kReverseShift */
}

/* TFLite's RsqrtEvalQuantized for v = x - input_zero_point > 0: 1 /
 * sqrt(v) as a multiplier (kept an integer by a 2^20 factor), then the
 * output multiplier; the caller adds the output zero point and clamps. */
static inline int32_t mpk_rsqrt_q(int32_t v, int32_t multiplier, int32_t shift) {
  const int32_t k_shift = 20;
  int32_t im, is;
  mpk_inv_sqrt(v, &im, &is);
  int32_t data = mpk_mbqm(1, im, is + k_shift);
  return mpk_mbqm(data, multiplier, shift - k_shift);
}

/* TFLite's GetReciprocal: 1 / x for x in Q(integer_digits), returned Q0
 * scaled by 2^-num_bits_over_unit. */
static inline int32_t mpk_reciprocal(int32_t x, int integer_digits, int *num_bits_over_unit) {
  int headroom_plus_one = mpk_clz32((uint32_t)x);
  if (headroom_plus_one > 31) headroom_plus_one = 31; /* x == 0: never for softmax */
  *num_bits_over_unit = integer_digits - headroom_plus_one;
  int32_t shifted_minus_one = (int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31));
  return mpk_one_over_one_plus_x(shifted_minus_one);
}

#endif /* MPK_FIXED_H */
