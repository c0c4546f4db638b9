/*
 * mpk_act.h — activation functions two kernel files share (the unary
 * operators and the LSTM): TFLite's int16 logistic and tanh by table
 * lookup, and its float logistic.  Internal to the kernel library; static
 * inline, so no kernel reaches another file's function through a weak
 * reference (which a static library would not resolve).
 */
#ifndef MPK_ACT_H
#define MPK_ACT_H

#include <math.h>
#include <stdint.h>

/* TFLite's table of the logistic function in 0.16 fixed point, the knots
 * of a piecewise-linear sigmoid on x = k / 24: the least-squares
 * continuous piecewise-linear fit of 65536 / (1 + exp(-x)) over [0, 255/24]
 * with these knots, rounded, gives 244 of the 256 entries; the other 12
 * (11 fit values with fractions between .50 and .68 that the table rounds
 * down, and the last, saturated at 65535) differ by one.  So the values
 * cannot be computed from the definition alone, and bit-exactness with
 * TFLite's int16 logistic and tanh, which interpolate between them, needs
 * these very numbers. */
static const uint16_t mpk_sigmoid_table[256] = {
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
static inline int32_t mpk_lut_input(int16_t x, int32_t multiplier, int32_t shift) {
  if (multiplier == 0) {
    multiplier = 3 * (1 << shift);
    shift = 0;
  }
  int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  return ((int32_t)x * multiplier + round) >> shift;
}

static inline void mpk_logistic_s16(int32_t multiplier, int32_t shift, int32_t size,
                                    const int16_t *in, int16_t *out) {
  for (int32_t i = 0; i < size; i++) {
    int32_t x = mpk_lut_input(in[i], multiplier, shift);
    uint32_t ax = (uint32_t)(x < 0 ? -x : x);
    uint32_t hi = ax >> 9, r;
    if (hi >= 255) {
      r = 0x7FFFu << 10;
    } else {
      uint32_t a = mpk_sigmoid_table[hi], b = mpk_sigmoid_table[hi + 1];
      r = (a << 9) + (ax & 0x1FFu) * (b - a);
    }
    r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
    out[i] = (int16_t)(r >> 10);
  }
}

/* tanh(x) = 2 logistic(2x) - 1: the same table, read at twice the rate. */
static inline void mpk_tanh_s16(int32_t multiplier, int32_t shift, int32_t size, const int16_t *in,
                                int16_t *out) {
  for (int32_t i = 0; i < size; i++) {
    int32_t x = mpk_lut_input(in[i], multiplier, shift);
    uint32_t ax = (uint32_t)(x < 0 ? -x : x);
    uint32_t hi = ax >> 8;
    int32_t r;
    if (hi >= 255) {
      r = (int32_t)(0xFFFFu << 8);
    } else {
      uint32_t a = mpk_sigmoid_table[hi], b = mpk_sigmoid_table[hi + 1];
      r = (int32_t)((a << 8) + (ax & 0xFFu) * (b - a));
    }
    r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    out[i] = (int16_t)(r >> 8);
  }
}

/* TFLite's float logistic: 1 beyond its upper cutoff, exp(x) below its
 * lower one. */
static inline float mpk_logistic_f32_one(float x) {
  const float upper = 16.619047164916992188f, lower = -9.0f;
  if (x > upper) return 1.0f;
  if (x < lower) return expf(x);
  return 1.0f / (1.0f + expf(-x));
}

#endif /* MPK_ACT_H */
