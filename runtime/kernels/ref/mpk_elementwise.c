/*
 * mpk_elementwise.c — ADD (with broadcasting), LOGISTIC, and QUANTIZE
 * (float to integer, and integer to integer requantisation).
 *
 * ADD int8 follows TFLite: both inputs are offset, shifted left by
 * `left_shift` bits of headroom, scaled to a common scale (twice the larger
 * input scale), summed, and scaled to the output.  Broadcasting walks the
 * output over MPK_MAX_DIMS dims with per-input strides that are 0 along
 * broadcast dimensions; the lowering folds every shape into that form.
 *
 * LOGISTIC int8 evaluates gemmlowp's fixed-point logistic on a Q4 input and
 * saturates outside the input radius, exactly as TFLite's reference does.
 */
#include "mpk.h"
#include "mpk_broadcast.h"
#include "mpk_fixed.h"

#include <math.h>

static int32_t add_s8_one(const mpk_add_s8_params *p, int32_t x1, int32_t x2) {
  int32_t s1 = mpk_shl_wrap(x1 + p->in1_offset, p->left_shift);
  int32_t s2 = mpk_shl_wrap(x2 + p->in2_offset, p->left_shift);
  int32_t r1 = mpk_mbqm(s1, p->in1_multiplier, p->in1_shift);
  int32_t r2 = mpk_mbqm(s2, p->in2_multiplier, p->in2_shift);
  int32_t out = mpk_mbqm(r1 + r2, p->out_multiplier, p->out_shift) + p->out_offset;
  return mpk_clamp_i32(out, p->act_min, p->act_max);
}

MPK_API int32_t mpk_add_s8(const mpk_add_s8_params *p, const int8_t *input1, const int8_t *input2,
                           int8_t *output, void *scratch) {
  (void)scratch;
  if (!mpk_bcast_ok(&p->b)) return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    output[i] = (int8_t)add_s8_one(p, input1[i1], input2[i2]);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_add_f32(const mpk_add_f32_params *p, const float *input1, const float *input2,
                            float *output, void *scratch) {
  (void)scratch;
  if (!mpk_bcast_ok(&p->b)) return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    float v = input1[i1] + input2[i2];
    if (v < p->act_min) v = p->act_min;
    if (v > p->act_max) v = p->act_max;
    output[i] = v;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_logistic_s8(const mpk_logistic_s8_params *p, const int8_t *input,
                                int8_t *output, void *scratch) {
  (void)scratch;
  if (p->size < 0) return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    int32_t x = (int32_t)input[i] - p->input_zero_point;
    if (x <= -p->input_range_radius) {
      output[i] = -128;
    } else if (x >= p->input_range_radius) {
      output[i] = 127;
    } else {
      int32_t q4 = mpk_mbqm(x, p->input_multiplier, p->input_left_shift);
      int32_t q0 = mpk_logistic_fixed(q4, 4);
      int32_t v = mpk_rdbpot(q0, 31 - 8) - 128; /* Q0 -> 1/256 steps, zero point -128 */
      output[i] = (int8_t)mpk_clamp_i32(v, -128, 127);
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_logistic_f32(const mpk_logistic_f32_params *p, const float *input,
                                 float *output, void *scratch) {
  (void)scratch;
  if (p->size < 0) return MPK_ERR_PARAMS;
  /* TFLite's cutoffs: beyond them the result is 1 or exp(x) in float. */
  const float upper = 16.619047164916992188f, lower = -9.0f;
  for (int32_t i = 0; i < p->size; i++) {
    float x = input[i];
    if (x > upper)
      output[i] = 1.0f;
    else if (x < lower)
      output[i] = expf(x);
    else
      output[i] = 1.0f / (1.0f + expf(-x));
  }
  return MPK_OK;
}

static int32_t type_min(int32_t type) {
  switch (type) {
  case MPK_TYPE_INT8: return -128;
  case MPK_TYPE_UINT8: return 0;
  case MPK_TYPE_INT16: return -32768;
  default: return MPK_I32_MIN;
  }
}

static int32_t type_max(int32_t type) {
  switch (type) {
  case MPK_TYPE_INT8: return 127;
  case MPK_TYPE_UINT8: return 255;
  case MPK_TYPE_INT16: return 32767;
  default: return MPK_I32_MAX;
  }
}

static int32_t load(const void *base, int32_t type, int32_t i) {
  switch (type) {
  case MPK_TYPE_INT8: return ((const int8_t *)base)[i];
  case MPK_TYPE_UINT8: return ((const uint8_t *)base)[i];
  case MPK_TYPE_INT16: return ((const int16_t *)base)[i];
  default: return ((const int32_t *)base)[i];
  }
}

static void store(void *base, int32_t type, int32_t i, int32_t v) {
  switch (type) {
  case MPK_TYPE_INT8: ((int8_t *)base)[i] = (int8_t)v; break;
  case MPK_TYPE_UINT8: ((uint8_t *)base)[i] = (uint8_t)v; break;
  case MPK_TYPE_INT16: ((int16_t *)base)[i] = (int16_t)v; break;
  default: ((int32_t *)base)[i] = v; break;
  }
}

static int type_ok(int32_t type) { return type >= MPK_TYPE_INT8 && type <= MPK_TYPE_INT32; }

MPK_API int32_t mpk_quantize_f32(const mpk_quantize_params *p, const float *input, void *output,
                                 void *scratch) {
  (void)scratch;
  if (p->size < 0 || (p->out_type != MPK_TYPE_INT8 && p->out_type != MPK_TYPE_INT16))
    return MPK_ERR_PARAMS;
  /* the params in locals (the output could alias them), one loop per type */
  const int32_t lo = type_min(p->out_type), hi = type_max(p->out_type), n = p->size;
  const int32_t zp = p->zero_point;
  const float scale = p->scale;
  int8_t *o8 = p->out_type == MPK_TYPE_INT8 ? (int8_t *)output : NULL;
  int16_t *o16 = o8 ? NULL : (int16_t *)output;
  for (int32_t i = 0; i < n; i++) {
    float r = roundf(input[i] / scale);
    /* keep the conversion defined; anything this large saturates anyway */
    if (r > 1e9f) r = 1e9f;
    if (r < -1e9f) r = -1e9f;
    const int32_t v = mpk_clamp_i32((int32_t)r + zp, lo, hi);
    if (o8)
      o8[i] = (int8_t)v;
    else
      o16[i] = (int16_t)v;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_requantize(const mpk_requantize_params *p, const void *input, void *output,
                               void *scratch) {
  (void)scratch;
  if (p->size < 0 || !type_ok(p->in_type) || !type_ok(p->out_type)) return MPK_ERR_PARAMS;
  const int32_t lo = type_min(p->out_type), hi = type_max(p->out_type);
  for (int32_t i = 0; i < p->size; i++) {
    int32_t x = load(input, p->in_type, i) - p->input_zero_point;
    int32_t v = mpk_mbqm(x, p->multiplier, p->shift) + p->output_zero_point;
    store(output, p->out_type, i, mpk_clamp_i32(v, lo, hi));
  }
  return MPK_OK;
}

/* Overlap contract of ADD (for an input of the output's shape), LOGISTIC,
 * QUANTIZE and requantisation (mpk.h).  Each loop reads element i of the
 * input, then writes element i of the output, for i = 0, 1, ...: once
 * output element i is written the unread input starts at element i + 1.
 * The write is safe when O + (i + 1) * out_bytes <= I + (i + 1) * in_bytes,
 * i.e. I - O >= (i + 1) * (out_bytes - in_bytes) for every i < size: a
 * same-size element (int8 -> int8) may be rewritten in place (gap 0), a
 * widening one (int8 -> int16) needs the output to start size * (out - in)
 * bytes below the input, and a narrowing one (float -> int8) may start up
 * to in - out bytes above it. */
int64_t mpk_elementwise_overlap_gap(int32_t size, int32_t in_bytes, int32_t out_bytes) {
  if (size <= 0 || in_bytes <= 0 || out_bytes <= 0) return MPK_NO_OVERLAP;
  const int64_t step = (int64_t)out_bytes - in_bytes;
  return step > 0 ? step * size : step;
}
