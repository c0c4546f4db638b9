/*
 * mpk_mean.c — MEAN over any set of axes, int8 and float32.
 *
 * One pass over the input adds every element into its output's
 * accumulator (output index = sum of coord * out_stride, stride 0 along the
 * reduced axes); a second pass turns sums into means.  For int8 that second
 * pass is TFLite Micro's reference arithmetic, which is float:
 *   out = clamp(round(sum / count * scale + bias) + output_zero_point)
 * with scale = input_scale / output_scale and bias = -input_zp * scale.
 * The product goes through a volatile so that no compiler fuses it with
 * the addition into an FMA: the result must round exactly like the
 * reference on every core.
 *
 * The int8 accumulators live in the op's scratch (out_size int32s), which
 * is cleared here first: scratch holds garbage on entry.
 */
#include "mpk.h"

#include <math.h>

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

MPK_API int32_t mpk_mean_s8(const mpk_mean_s8_params *p, const int8_t *input, int8_t *output,
                            void *scratch) {
  int32_t *sum = (int32_t *)scratch;
  if (!walk_ok(p->in_dims, p->out_strides, p->out_size) || p->count <= 0 ||
      (p->out_size > 0 && !sum))
    return MPK_ERR_PARAMS;
  for (int32_t o = 0; o < p->out_size; o++)
    sum[o] = 0;
  const int32_t n = in_count(p->in_dims);
  for (int32_t i = 0; i < n; i++)
    sum[out_index(p->in_dims, p->out_strides, i)] += input[i];
  for (int32_t o = 0; o < p->out_size; o++) {
    float mean = (float)sum[o] / (float)p->count;
    volatile float scaled = mean * p->scale;
    float r = roundf(scaled + p->bias) + (float)p->output_zero_point;
    if (r > 127.0f) r = 127.0f;
    if (r < -128.0f) r = -128.0f;
    output[o] = (int8_t)r;
  }
  return MPK_OK;
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
