/*
 * mpk_binary.c — SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE (int8,
 * int16, float32) and DIV (float32), with broadcasting.
 *
 * The integer arithmetic is TFLite Micro's reference: SUB and
 * SQUARED_DIFFERENCE bring both inputs to a common scale with bits of
 * headroom before subtracting (as ADD does), MUL multiplies the offset
 * inputs and requantises the product once, MAXIMUM and MINIMUM compare the
 * stored integers.  One kernel per element type walks the output; the
 * operation is a params field, chosen at convert time.
 */
#include "mpk.h"
#include "mpk_broadcast.h"
#include "mpk_fixed.h"

static int32_t binary_q_one(const mpk_binary_q_params *p, int32_t x1, int32_t x2) {
  int32_t v;
  switch (p->op) {
  case MPK_BIN_MUL:
    v = mpk_mbqm((x1 + p->in1_offset) * (x2 + p->in2_offset), p->out_multiplier, p->out_shift) +
        p->out_offset;
    break;
  case MPK_BIN_MAXIMUM: v = x1 > x2 ? x1 : x2; break;
  case MPK_BIN_MINIMUM: v = x1 < x2 ? x1 : x2; break;
  case MPK_BIN_PRELU:
    v = x1 + p->in1_offset;
    v = (v >= 0 ? mpk_mbqm(v, p->in1_multiplier, p->in1_shift)
                : mpk_mbqm(v * (x2 + p->in2_offset), p->out_multiplier, p->out_shift)) +
        p->out_offset;
    break;
  default: { /* ADD, SUB, SQUARED_DIFFERENCE */
    int32_t s1 = mpk_shl_wrap(x1 + p->in1_offset, p->left_shift);
    int32_t s2 = mpk_shl_wrap(x2 + p->in2_offset, p->left_shift);
    int32_t r1 = mpk_mbqm(s1, p->in1_multiplier, p->in1_shift);
    int32_t r2 = mpk_mbqm(s2, p->in2_multiplier, p->in2_shift);
    int32_t d = p->op == MPK_BIN_ADD ? r1 + r2 : r1 - r2;
    if (p->op == MPK_BIN_SQUARED_DIFFERENCE) d = (int32_t)((uint32_t)d * (uint32_t)d);
    v = mpk_mbqm(d, p->out_multiplier, p->out_shift) + p->out_offset;
    break;
  }
  }
  return mpk_clamp_i32(v, p->act_min, p->act_max);
}

MPK_API int32_t mpk_binary_q(const mpk_binary_q_params *p, const void *input1, const void *input2,
                             void *output, void *scratch) {
  (void)scratch;
  if (!mpk_bcast_ok(&p->b) || (p->type != MPK_TYPE_INT8 && p->type != MPK_TYPE_INT16) ||
      p->op < MPK_BIN_SUB || p->op > MPK_BIN_PRELU || p->op == MPK_BIN_DIV)
    return MPK_ERR_PARAMS;
  const int wide = p->type == MPK_TYPE_INT16;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    if (wide)
      ((int16_t *)output)[i] =
          (int16_t)binary_q_one(p, ((const int16_t *)input1)[i1], ((const int16_t *)input2)[i2]);
    else
      ((int8_t *)output)[i] =
          (int8_t)binary_q_one(p, ((const int8_t *)input1)[i1], ((const int8_t *)input2)[i2]);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_binary_f32(const mpk_binary_f32_params *p, const float *input1,
                               const float *input2, float *output, void *scratch) {
  (void)scratch;
  if (!mpk_bcast_ok(&p->b) || p->op < MPK_BIN_SUB || p->op > MPK_BIN_PRELU || p->op == MPK_BIN_ADD)
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    float a = input1[i1], b = input2[i2], v;
    switch (p->op) {
    case MPK_BIN_SUB: v = a - b; break;
    case MPK_BIN_MUL: v = a * b; break;
    case MPK_BIN_MAXIMUM: v = a > b ? a : b; break;
    case MPK_BIN_MINIMUM: v = a < b ? a : b; break;
    case MPK_BIN_SQUARED_DIFFERENCE: v = (a - b) * (a - b); break;
    case MPK_BIN_PRELU: v = a >= 0.0f ? a : a * b; break;
    default: v = a / b; break;
    }
    if (v < p->act_min) v = p->act_min;
    if (v > p->act_max) v = p->act_max;
    output[i] = v;
  }
  return MPK_OK;
}
