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

#include <math.h>

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

/* ---- comparisons, logical operators, SELECT, FLOOR_DIV / FLOOR_MOD, ADD_N */

static int compare_i32(int32_t op, int32_t a, int32_t b) {
  switch (op) {
  case MPK_CMP_EQUAL: return a == b;
  case MPK_CMP_NOT_EQUAL: return a != b;
  case MPK_CMP_LESS: return a < b;
  case MPK_CMP_LESS_EQUAL: return a <= b;
  case MPK_CMP_GREATER: return a > b;
  default: return a >= b;
  }
}

static int compare_f32(int32_t op, float a, float b) {
  switch (op) {
  case MPK_CMP_EQUAL: return a == b;
  case MPK_CMP_NOT_EQUAL: return a != b;
  case MPK_CMP_LESS: return a < b;
  case MPK_CMP_LESS_EQUAL: return a <= b;
  case MPK_CMP_GREATER: return a > b;
  default: return a >= b;
  }
}

MPK_API int32_t mpk_compare(const mpk_compare_params *p, const void *input1, const void *input2,
                            uint8_t *output, void *scratch) {
  (void)scratch;
  if (!mpk_bcast_ok(&p->b) || p->op < MPK_CMP_EQUAL || p->op > MPK_CMP_GREATER_EQUAL ||
      (p->type != MPK_TYPE_INT8 && p->type != MPK_TYPE_INT32 && p->type != MPK_TYPE_FLOAT32) ||
      (p->type == MPK_TYPE_INT8 &&
       (p->left_shift < 0 || p->left_shift > 8 || p->in1_shift > 0 || p->in2_shift > 0 ||
        p->in1_shift < -31 || p->in2_shift < -31)))
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    int r;
    if (p->type == MPK_TYPE_FLOAT32) {
      r = compare_f32(p->op, ((const float *)input1)[i1], ((const float *)input2)[i2]);
    } else if (p->type == MPK_TYPE_INT32) {
      r = compare_i32(p->op, ((const int32_t *)input1)[i1], ((const int32_t *)input2)[i2]);
    } else {
      int32_t a = (((const int8_t *)input1)[i1] + p->in1_offset) * (1 << p->left_shift);
      int32_t b = (((const int8_t *)input2)[i2] + p->in2_offset) * (1 << p->left_shift);
      r = compare_i32(p->op, mpk_mbqm(a, p->in1_multiplier, p->in1_shift),
                      mpk_mbqm(b, p->in2_multiplier, p->in2_shift));
    }
    output[i] = (uint8_t)r;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_logical(const mpk_logical_params *p, const uint8_t *input1,
                            const uint8_t *input2, uint8_t *output, void *scratch) {
  (void)scratch;
  if (!mpk_bcast_ok(&p->b) || p->op < MPK_LOGICAL_AND || p->op > MPK_LOGICAL_NOT ||
      (p->op == MPK_LOGICAL_NOT && !p->b.elementwise))
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    int a = input1[i1] != 0, r;
    if (p->op == MPK_LOGICAL_NOT)
      r = !a;
    else if (p->op == MPK_LOGICAL_AND)
      r = a && input2[i2] != 0;
    else
      r = a || input2[i2] != 0;
    output[i] = (uint8_t)r;
  }
  return MPK_OK;
}

MPK_API int32_t mpk_select(const mpk_select_params *p, const uint8_t *condition, const void *x,
                           const void *y, void *output, void *scratch) {
  (void)scratch;
  const int32_t es = p->elem_size;
  if (p->size < 0 || (es != 1 && es != 2 && es != 4)) return MPK_ERR_PARAMS;
  if (!p->elementwise) {
    int32_t n = 1;
    for (int d = 0; d < MPK_MAX_DIMS; d++) {
      if (p->dims[d] <= 0) return MPK_ERR_PARAMS;
      n *= p->dims[d];
    }
    if (n != p->size) return MPK_ERR_PARAMS;
  }
  for (int32_t i = 0; i < p->size; i++) {
    int32_t ic = i, ix = i, iy = i;
    if (!p->elementwise) {
      int32_t rest = i;
      ic = ix = iy = 0;
      for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
        int32_t coord = rest % p->dims[d];
        rest /= p->dims[d];
        ic += coord * p->cond_strides[d];
        ix += coord * p->x_strides[d];
        iy += coord * p->y_strides[d];
      }
    }
    const uint8_t *from =
        condition[ic] ? (const uint8_t *)x + (size_t)ix * (size_t)es
                      : (const uint8_t *)y + (size_t)iy * (size_t)es;
    uint8_t *to = (uint8_t *)output + (size_t)i * (size_t)es;
    for (int32_t k = 0; k < es; k++)
      to[k] = from[k];
  }
  return MPK_OK;
}

static int32_t floor_div_i32(int32_t a, int32_t b) {
  double q = floor((double)a / (double)b);
  return q > 2147483647.0 ? MPK_I32_MAX : (int32_t)q; /* only INT32_MIN / -1 */
}

static int32_t floor_mod_i32(int32_t a, int32_t b) {
  int32_t r = b == -1 ? 0 : a % b; /* INT32_MIN % -1 would trap */
  return r != 0 && ((b < 0) != (r < 0)) ? r + b : r;
}

static float floor_mod_f32(float a, float b) {
  float r = fmodf(a, b);
  return r != 0.0f && ((b < 0.0f) != (r < 0.0f)) ? r + b : r;
}

MPK_API int32_t mpk_floor_div_mod(const mpk_floor_params *p, const void *input1,
                                  const void *input2, void *output, void *scratch) {
  (void)scratch;
  const int is_f32 = p->type == MPK_TYPE_FLOAT32;
  if (!mpk_bcast_ok(&p->b) || (p->op != MPK_FLOOR_DIV && p->op != MPK_FLOOR_MOD) ||
      (!is_f32 && p->type != MPK_TYPE_INT32) || p->in2_size < 0)
    return MPK_ERR_PARAMS;
  if (p->op == MPK_FLOOR_DIV || !is_f32)
    for (int32_t i = 0; i < p->in2_size; i++)
      if (is_f32 ? ((const float *)input2)[i] == 0.0f : ((const int32_t *)input2)[i] == 0)
        return MPK_ERR_DIV_ZERO;
  for (int32_t i = 0; i < p->b.size; i++) {
    int32_t i1 = i, i2 = i;
    if (!p->b.elementwise) mpk_bcast_index(&p->b, i, &i1, &i2);
    if (is_f32) {
      float a = ((const float *)input1)[i1], b = ((const float *)input2)[i2];
      ((float *)output)[i] =
          p->op == MPK_FLOOR_DIV ? (float)floor((double)a / (double)b) : floor_mod_f32(a, b);
    } else {
      int32_t a = ((const int32_t *)input1)[i1], b = ((const int32_t *)input2)[i2];
      ((int32_t *)output)[i] = p->op == MPK_FLOOR_DIV ? floor_div_i32(a, b) : floor_mod_i32(a, b);
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_add_n(const mpk_add_n_params *p, const void *const *inputs, void *output,
                          void *scratch) {
  (void)scratch;
  if (p->n_inputs < 1 || p->size < 0 || (p->type != MPK_TYPE_INT32 && p->type != MPK_TYPE_FLOAT32))
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    if (p->type == MPK_TYPE_FLOAT32) {
      float v = 0.0f;
      for (int32_t k = 0; k < p->n_inputs; k++)
        v += ((const float *)inputs[k])[i];
      ((float *)output)[i] = v;
    } else {
      uint32_t v = 0;
      for (int32_t k = 0; k < p->n_inputs; k++)
        v += (uint32_t)((const int32_t *)inputs[k])[i];
      ((int32_t *)output)[i] = (int32_t)v;
    }
  }
  return MPK_OK;
}
