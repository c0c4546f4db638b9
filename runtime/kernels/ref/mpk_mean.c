/*
 * mpk_mean.c — MEAN over any set of axes, int8, int16 and float32.
 *
 * One pass over the input adds every element into its output's
 * accumulator (output index = sum of coord * out_stride, stride 0 along the
 * reduced axes); a second pass turns sums into means.  For int8 that second
 * pass is TFLite Micro's integer arithmetic (QuantizedMeanOrSum, the same
 * for int8 and int16):
 *   out = clamp(MultiplyByQuantizedMultiplier(sum - input_zp * count,
 *                                             multiplier, shift) + output_zp)
 * where the multiplier already holds 1 / count (src/lower.c folds it in
 * as TFLite does).  The subtraction wraps in 32 bits like TFLite's.
 *
 * The integer accumulators live in the op's scratch (out_size int32s), which
 * is cleared here first: scratch holds garbage on entry.
 */
#include "mpk.h"
#include "mpk_fixed.h"

static int walk_ok(const int32_t *dims, const int32_t *strides, int32_t out_size) {
  if (out_size < 0) return 0;
  int64_t last = 0;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (dims[d] < 0 || strides[d] < 0) return 0;
    if (dims[d] > 0) last += (int64_t)(dims[d] - 1) * strides[d];
  }
  return last < (int64_t)out_size || out_size == 0;
}

static int32_t in_count(const int32_t *dims) {
  int32_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    n *= dims[d];
  return n;
}

/* Output index of input element i. */
static int32_t out_index(const int32_t *dims, const int32_t *strides, int32_t i) {
  int32_t o = 0;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    o += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return o;
}

/* The integer MEAN of both widths (wide: int16 elements, else int8).  The
 * sums wrap in 32 bits like TFLite's int32 accumulators; unsigned adds
 * keep that defined for a reduction long enough to overflow. */
static int32_t mean_q(const mpk_mean_s8_params *p, const void *input, void *output, int wide,
                      void *scratch) {
  int32_t *sum = (int32_t *)scratch;
  if (!walk_ok(p->in_dims, p->out_strides, p->out_size) || p->count <= 0 ||
      (p->out_size > 0 && !sum) || p->shift < -31 || p->shift > 31)
    return MPK_ERR_PARAMS;
  for (int32_t o = 0; o < p->out_size; o++)
    sum[o] = 0;
  const int32_t n = in_count(p->in_dims);
  const int8_t *in8 = (const int8_t *)input;
  const int16_t *in16 = (const int16_t *)input;
  for (int32_t i = 0; i < n; i++) {
    int32_t *acc = &sum[out_index(p->in_dims, p->out_strides, i)];
    *acc = (int32_t)((uint32_t)*acc + (uint32_t)(wide ? (int32_t)in16[i] : (int32_t)in8[i]));
  }
  const uint32_t offset = (uint32_t)p->input_zero_point * (uint32_t)p->count;
  const int32_t lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
  for (int32_t o = 0; o < p->out_size; o++) {
    int32_t shifted = (int32_t)((uint32_t)sum[o] - offset);
    int32_t r = mpk_mbqm(shifted, p->multiplier, p->shift) + p->output_zero_point;
    r = mpk_clamp_i32(r, lo, hi);
    if (wide)
      ((int16_t *)output)[o] = (int16_t)r;
    else
      ((int8_t *)output)[o] = (int8_t)r;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_mean_s8(const mpk_mean_s8_params *p, const int8_t *input, int8_t *output,
                            void *scratch) {
  return mean_q(p, input, output, 0, scratch);
}

MPK_API int32_t mpk_mean_s16(const mpk_mean_s8_params *p, const int16_t *input, int16_t *output,
                             void *scratch) {
  return mean_q(p, input, output, 1, scratch);
}

MPK_API int32_t mpk_mean_f32(const mpk_mean_f32_params *p, const float *input, float *output,
                             void *scratch) {
  (void)scratch;
  if (!walk_ok(p->in_dims, p->out_strides, p->out_size) || p->count <= 0) return MPK_ERR_PARAMS;
  for (int32_t o = 0; o < p->out_size; o++)
    output[o] = 0.0f;
  const int32_t n = in_count(p->in_dims);
  for (int32_t i = 0; i < n; i++)
    output[out_index(p->in_dims, p->out_strides, i)] += input[i];
  for (int32_t o = 0; o < p->out_size; o++)
    output[o] = output[o] / (float)p->count;
  return MPK_OK;
}
