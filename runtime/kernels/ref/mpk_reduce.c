/*
 * mpk_reduce.c — SUM, REDUCE_MAX and REDUCE_MIN over any axes, ARG_MAX
 * and ARG_MIN, for int8,
 * int16 and float32, in TFLite Micro's reference order: the input is
 * walked once in row-major order, each element folded into its output
 * (so float sums round as TFLite's do).  Quantised SUM requantises the
 * int32 sums once.
 */
#include "mpk.h"
#include "mpk_fixed.h"

#include <float.h>

static int32_t read_int(const void *in, int32_t type, int32_t i) {
  return type == MPK_TYPE_INT16 ? ((const int16_t *)in)[i] : ((const int8_t *)in)[i];
}

MPK_API int32_t mpk_reduce(const mpk_reduce_params *p, const void *input, void *output,
                           void *scratch) {
  const int32_t type = p->type;
  const int is_float = type == MPK_TYPE_FLOAT32;
  if ((type != MPK_TYPE_INT8 && type != MPK_TYPE_INT16 && !is_float) || p->out_size < 0 ||
      (p->op != MPK_RED_SUM && p->op != MPK_RED_MAX && p->op != MPK_RED_MIN) ||
      (p->op == MPK_RED_SUM && !is_float && !scratch))
    return MPK_ERR_PARAMS;
  int32_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (p->in_dims[d] < 0) return MPK_ERR_PARAMS;
    n *= p->in_dims[d];
  }
  float *outf = output;
  int32_t *acc = scratch;
  const int32_t lowest = type == MPK_TYPE_INT16 ? -32768 : -128;
  const int32_t highest = type == MPK_TYPE_INT16 ? 32767 : 127;
  const int is_min = p->op == MPK_RED_MIN;
  for (int32_t o = 0; o < p->out_size; o++) {
    if (is_float)
      outf[o] = p->op == MPK_RED_SUM ? 0.0f : is_min ? FLT_MAX : -FLT_MAX;
    else if (p->op == MPK_RED_SUM)
      acc[o] = 0;
    else if (type == MPK_TYPE_INT16)
      ((int16_t *)output)[o] = (int16_t)(is_min ? highest : lowest);
    else
      ((int8_t *)output)[o] = (int8_t)(is_min ? highest : lowest);
  }
  int32_t coord[MPK_MAX_DIMS] = {0};
  int32_t at = 0;
  for (int32_t i = 0; i < n; i++) {
    if (is_float) {
      float x = ((const float *)input)[i];
      outf[at] = p->op == MPK_RED_SUM ? x + outf[at]
                 : is_min             ? (x < outf[at] ? x : outf[at])
                                      : (x > outf[at] ? x : outf[at]);
    } else if (p->op == MPK_RED_SUM) {
      acc[at] += read_int(input, type, i);
    } else {
      int32_t x = read_int(input, type, i), cur = read_int(output, type, at);
      if (is_min ? x < cur : x > cur) {
        if (type == MPK_TYPE_INT16)
          ((int16_t *)output)[at] = (int16_t)x;
        else
          ((int8_t *)output)[at] = (int8_t)x;
      }
    }
    for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) { /* odometer step */
      at += p->out_strides[d];
      if (++coord[d] < p->in_dims[d]) break;
      at -= p->out_strides[d] * p->in_dims[d];
      coord[d] = 0;
    }
  }
  if (p->op == MPK_RED_SUM && !is_float) {
    for (int32_t o = 0; o < p->out_size; o++) {
      int32_t v =
          mpk_mbqm(acc[o] - p->input_sum_offset, p->multiplier, p->shift) + p->output_zero_point;
      v = mpk_clamp_i32(v, lowest, highest);
      if (type == MPK_TYPE_INT16)
        ((int16_t *)output)[o] = (int16_t)v;
      else
        ((int8_t *)output)[o] = (int8_t)v;
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_arg_max(const mpk_arg_max_params *p, const void *input, int32_t *output,
                            void *scratch) {
  (void)scratch;
  if (p->outer < 0 || p->axis_size <= 0 || p->inner < 0 || (p->is_min != 0 && p->is_min != 1))
    return MPK_ERR_PARAMS;
  const int is_min = p->is_min;
  for (int32_t o = 0; o < p->outer; o++) {
    for (int32_t in = 0; in < p->inner; in++) {
      int32_t base = o * p->axis_size * p->inner + in, best = 0;
      if (p->type == MPK_TYPE_FLOAT32) {
        const float *x = input;
        float m = x[base];
        for (int32_t k = 1; k < p->axis_size; k++)
          if (is_min ? x[base + k * p->inner] < m : x[base + k * p->inner] > m)
            m = x[base + k * p->inner], best = k;
      } else {
        int32_t m = read_int(input, p->type, base);
        for (int32_t k = 1; k < p->axis_size; k++) {
          int32_t v = read_int(input, p->type, base + k * p->inner);
          if (is_min ? v < m : v > m) m = v, best = k;
        }
      }
      output[o * p->inner + in] = best;
    }
  }
  return MPK_OK;
}
