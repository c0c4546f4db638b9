/*
 * mpk_softmax.c — SOFTMAX over the last dimension: int8 input with int8 or
 * int16 output (gemmlowp fixed point, bit-exact with TFLite Micro), and
 * float32.
 *
 * Per row: differences to the row maximum are scaled by beta * input_scale
 * into Q5 (the multiplier and shift come from the lowering), exponentiated
 * with exp_on_negative_values, summed in Q12, inverted once with a
 * Newton-Raphson reciprocal, and each exp is multiplied by the reciprocal
 * and shifted down to the output's 1/256 (int8) or 1/65536 (int16) steps.
 * Differences below diff_min contribute nothing and give the lowest
 * output, as in the reference.
 */
#include "mpk.h"
#include "mpk_fixed.h"

#include <math.h>

/* exp(x - max) in Q0 for one input, or -1 when below diff_min. */
static int32_t scaled_exp(const mpk_softmax_s8_params *p, int32_t diff) {
  if (diff < p->diff_min) return -1;
  int32_t rescaled = mpk_srdhm(mpk_shl_wrap(diff, p->input_left_shift), p->input_multiplier);
  return mpk_exp_on_negative_values(rescaled, 5);
}

/* One row; out_bits is 8 or 16, out_min the output type's lowest value. */
static int32_t softmax_row(const mpk_softmax_s8_params *p, const int8_t *in, void *out,
                           int out_bits) {
  int32_t max = -128;
  for (int32_t c = 0; c < p->depth; c++)
    max = mpk_max_i32(max, in[c]);
  int32_t sum = 0; /* Q12 */
  for (int32_t c = 0; c < p->depth; c++) {
    int32_t e = scaled_exp(p, (int32_t)in[c] - max);
    if (e >= 0) sum += mpk_rdbpot(e, 12);
  }
  int bits_over_unit = 0;
  int32_t scale = mpk_reciprocal(sum, 12, &bits_over_unit);
  int exponent = bits_over_unit + 31 - out_bits;
  if (exponent < 0 || exponent > 31) return MPK_ERR_PARAMS;
  const int32_t out_min = out_bits == 8 ? -128 : -32768;
  const int32_t out_max = out_bits == 8 ? 127 : 32767;
  for (int32_t c = 0; c < p->depth; c++) {
    int32_t e = scaled_exp(p, (int32_t)in[c] - max);
    int32_t v = out_min;
    if (e >= 0)
      v = mpk_clamp_i32(mpk_rdbpot(mpk_srdhm(scale, e), exponent) + out_min, out_min, out_max);
    if (out_bits == 8)
      ((int8_t *)out)[c] = (int8_t)v;
    else
      ((int16_t *)out)[c] = (int16_t)v;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_softmax_s8(const mpk_softmax_s8_params *p, const int8_t *input, int8_t *output,
                               void *scratch) {
  (void)scratch;
  if (p->outer < 0 || p->depth <= 0) return MPK_ERR_PARAMS;
  for (int32_t r = 0; r < p->outer; r++) {
    int32_t st = softmax_row(p, input + r * p->depth, output + r * p->depth, 8);
    if (st != MPK_OK) return st;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_softmax_s8_s16(const mpk_softmax_s8_params *p, const int8_t *input,
                                   int16_t *output, void *scratch) {
  (void)scratch;
  if (p->outer < 0 || p->depth <= 0) return MPK_ERR_PARAMS;
  for (int32_t r = 0; r < p->outer; r++) {
    int32_t st = softmax_row(p, input + r * p->depth, output + r * p->depth, 16);
    if (st != MPK_OK) return st;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_softmax_f32(const mpk_softmax_f32_params *p, const float *input, float *output,
                                void *scratch) {
  (void)scratch;
  if (p->outer < 0 || p->depth <= 0) return MPK_ERR_PARAMS;
  for (int32_t r = 0; r < p->outer; r++) {
    const float *in = input + r * p->depth;
    float *out = output + r * p->depth;
    float max = in[0];
    for (int32_t c = 1; c < p->depth; c++)
      if (in[c] > max) max = in[c];
    float sum = 0.0f;
    for (int32_t c = 0; c < p->depth; c++) {
      out[c] = expf((in[c] - max) * p->beta);
      sum += out[c];
    }
    for (int32_t c = 0; c < p->depth; c++)
      out[c] = out[c] / sum;
  }
  return MPK_OK;
}
