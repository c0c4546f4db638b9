/*
 * mpk_fc.c — FULLY_CONNECTED, int8, 16x8 (int16 activations, int8 weights,
 * int64 biases, 64-bit accumulators) and float32.
 *
 * output[b][o] = act(sum_d (filter[o][d] + filter_offset) *
 *                          (input[b][d] + input_offset) + bias[o])
 * with the int8 result requantised per tensor or per output channel, as in
 * TFLite Micro's reference kernel.  The input is read flat: batch b starts
 * at b * accum_depth whatever the input's rank (the lowering checked that
 * the element counts agree).
 */
#include "mpk.h"
#include "mpk_fixed.h"

/* The walk of both integer kernels: ACC_T accumulates the products, then
 * STORE(acc, output_index, o) requantises it with the bias. */
#define FC_WALK(p, ACC_T, STORE)                                                                   \
  for (int32_t b = 0; b < (p)->batches; b++) {                                                     \
    const int32_t in0 = b * (p)->accum_depth, out0 = b * (p)->out_depth;                           \
    for (int32_t o = 0; o < (p)->out_depth; o++) {                                                 \
      const int8_t *f = filter + o * (p)->accum_depth;                                             \
      ACC_T acc = 0;                                                                               \
      for (int32_t d = 0; d < (p)->accum_depth; d++)                                               \
        acc += ((int32_t)f[d] + (p)->q.filter_offset) *                                            \
               ((int32_t)input[in0 + d] + (p)->q.input_offset);                                    \
      STORE(acc, out0 + o, o);                                                                     \
    }                                                                                              \
  }

static int fc_ok(const mpk_fc_s8_params *p) {
  return p->batches > 0 && p->accum_depth > 0 && p->out_depth > 0;
}

MPK_API int32_t mpk_fully_connected_s8(const mpk_fc_s8_params *p, const int8_t *input,
                                       const int8_t *filter, const int32_t *bias, int8_t *output,
                                       void *scratch) {
  (void)scratch;
  if (!fc_ok(p)) return MPK_ERR_PARAMS;
#define STORE_S8(acc, i, o)                                                                        \
  output[i] = (int8_t)mpk_requant_i32(&p->q, acc + (bias ? bias[o] : 0), o)
  FC_WALK(p, int32_t, STORE_S8)
#undef STORE_S8
  return MPK_OK;
}

/* 16x8: int16 input (offset 0), int64 bias, TFLite's 64-bit requantisation. */
MPK_API int32_t mpk_fully_connected_s16(const mpk_fc_s8_params *p, const int16_t *input,
                                        const int8_t *filter, const int64_t *bias, int16_t *output,
                                        void *scratch) {
  (void)scratch;
  if (!fc_ok(p)) return MPK_ERR_PARAMS;
#define STORE_S16(acc, i, o)                                                                       \
  output[i] = (int16_t)mpk_requant_i64(&p->q, acc + (bias ? bias[o] : 0), o)
  FC_WALK(p, int64_t, STORE_S16)
#undef STORE_S16
  return MPK_OK;
}

MPK_API int32_t mpk_fully_connected_f32(const mpk_fc_f32_params *p, const float *input,
                                        const float *filter, const float *bias, float *output,
                                        void *scratch) {
  (void)scratch;
  if (p->batches <= 0 || p->accum_depth <= 0 || p->out_depth <= 0) return MPK_ERR_PARAMS;
  for (int32_t b = 0; b < p->batches; b++) {
    const float *in = input + b * p->accum_depth;
    for (int32_t o = 0; o < p->out_depth; o++) {
      const float *f = filter + o * p->accum_depth;
      float acc = 0.0f;
      for (int32_t d = 0; d < p->accum_depth; d++)
        acc += in[d] * f[d];
      acc += bias ? bias[o] : 0.0f;
      if (acc < p->act_min) acc = p->act_min;
      if (acc > p->act_max) acc = p->act_max;
      output[b * p->out_depth + o] = acc;
    }
  }
  return MPK_OK;
}

/* Overlap contract (mpk.h).  Batch row b reads input bytes
 * [b * accum_depth, (b + 1) * accum_depth) * in_bytes for every one of its
 * outputs, and writes output bytes [b, b + 1) * out_depth * out_bytes while
 * doing so; later rows read higher.  Row b's writes are safe when they end
 * at or below the start of its own input row: I - O >= (b + 1) * out_row -
 * b * in_row for every b, whose largest value is at the first row when the
 * input row is the wider and at the last row otherwise. */
int64_t mpk_fully_connected_overlap_gap(int32_t batches, int32_t accum_depth, int32_t out_depth,
                                        int32_t in_bytes, int32_t out_bytes) {
  if (batches <= 0 || accum_depth <= 0 || out_depth <= 0 || in_bytes <= 0 || out_bytes <= 0)
    return MPK_NO_OVERLAP;
  const int64_t in_row = (int64_t)accum_depth * in_bytes, out_row = (int64_t)out_depth * out_bytes;
  const int64_t first = out_row,
                last = (int64_t)batches * out_row - (int64_t)(batches - 1) * in_row;
  return first > last ? first : last;
}

MPK_API int32_t mpk_fully_connected_s8_init(const mpk_fc_s8_params *p, const int8_t *input,
                                            const int8_t *filter, const int32_t *bias,
                                            int8_t *output, void *persistent) {
  (void)input;
  (void)output;
  (void)persistent;
  if (p->batches <= 0 || p->accum_depth <= 0 || p->out_depth <= 0) return MPK_ERR_PARAMS;
  if (!filter) return MPK_ERR_CONSTANT;
  if (bias && ((uintptr_t)bias & 3u) != 0) return MPK_ERR_CONSTANT;
  return MPK_OK;
}
