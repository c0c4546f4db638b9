/*
 * mpk_binary.h — the elementwise binary operators' part of the kernel ABI
 * (mpk.h includes it): SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
 * PRELU, DIV and int16 ADD, with broadcasting (mpk_broadcast), quantised (int8, int16) and
 * float32.
 */
#ifndef MPK_BINARY_H
#define MPK_BINARY_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* The operation of a binary kernel. */
#define MPK_BIN_SUB 0
#define MPK_BIN_MUL 1
#define MPK_BIN_MAXIMUM 2
#define MPK_BIN_MINIMUM 3
#define MPK_BIN_SQUARED_DIFFERENCE 4
#define MPK_BIN_DIV 5   /* float32 only */
#define MPK_BIN_ADD 6   /* int16 only (int8 and float32 ADD: mpk_add_*) */
#define MPK_BIN_PRELU 7 /* input 2 is alpha */

/* Quantised binary operator on int8 or int16 (type, MPK_TYPE_*):
 *   ADD, SUB, SQUARED_DIFFERENCE: both inputs offset, shifted left by
 *     left_shift, scaled to a common scale (in*_multiplier / shift),
 *     added or subtracted (and squared), scaled to the output;
 *   MUL: out = mbqm((x1 + in1_offset) * (x2 + in2_offset)) + out_offset;
 *   MAXIMUM, MINIMUM: of the stored integers (the inputs and the output
 *     share their quantisation);
 *   PRELU: v = x1 + in1_offset; v >= 0 ? mbqm(v, in1_multiplier,
 *     in1_shift) : mbqm(v * (x2 + in2_offset), out_multiplier, out_shift);
 *     plus out_offset;
 * then clamped to [act_min, act_max]. */
typedef struct mpk_binary_q_params {
  mpk_broadcast b;
  int32_t op;
  int32_t type;
  int32_t left_shift;
  int32_t in1_offset, in1_multiplier, in1_shift;
  int32_t in2_offset, in2_multiplier, in2_shift;
  int32_t out_offset, out_multiplier, out_shift;
  int32_t act_min, act_max;
} mpk_binary_q_params;

/* float32: out = clamp(x1 op x2, act_min, act_max); PRELU: x1 >= 0 ? x1 :
 * x1 * x2. */
typedef struct mpk_binary_f32_params {
  mpk_broadcast b;
  int32_t op;
  float act_min, act_max;
} mpk_binary_f32_params;

MPK_API int32_t mpk_binary_q(const mpk_binary_q_params *p, const void *input1, const void *input2,
                             void *output, void *scratch);
MPK_API int32_t mpk_binary_f32(const mpk_binary_f32_params *p, const float *input1,
                               const float *input2, float *output, void *scratch);

/* The specialised int8 MUL of a Cortex-M target (mpk_mul_fast.c): MUL
 * without broadcasting (b.elementwise 1, op MPK_BIN_MUL, type
 * MPK_TYPE_INT8), the same bytes as mpk_binary_q; its overlap contract
 * (mpk.h, "Overlap contracts") for either input. */
MPK_API int32_t mpk_mul_s8_fast(const mpk_binary_q_params *p, const int8_t *input1,
                                const int8_t *input2, int8_t *output, void *scratch);
int64_t mpk_mul_s8_fast_overlap_gap(int32_t size);

#endif /* MPK_BINARY_H */
