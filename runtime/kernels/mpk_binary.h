/*
 * mpk_binary.h — the elementwise binary operators' part of the kernel ABI
 * (mpk.h includes it): SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
 * PRELU, DIV and int16 ADD, with broadcasting (mpk_broadcast), quantised (int8, int16) and
 * float32; the comparisons, the logical operators, SELECT / SELECT_V2,
 * FLOOR_DIV, FLOOR_MOD and ADD_N.
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

/* The comparisons (mpk_compare): bool output, one byte per element
 * (0 or 1). */
#define MPK_CMP_EQUAL 0
#define MPK_CMP_NOT_EQUAL 1
#define MPK_CMP_LESS 2
#define MPK_CMP_LESS_EQUAL 3
#define MPK_CMP_GREATER 4
#define MPK_CMP_GREATER_EQUAL 5

/* output[i] = x1 op x2 of int8, int32 or float32 inputs (type, MPK_TYPE_*
 * or MPK_TYPE_FLOAT32).  int8 compares the inputs rescaled as TFLite
 * Micro's comparisons do: x = mbqm((q + in_offset) * 2^left_shift,
 * in_multiplier, in_shift) for each input (shift <= 0), then the int32
 * values; int32 and float32 compare the values. */
typedef struct mpk_compare_params {
  mpk_broadcast b;
  int32_t op, type;
  int32_t left_shift;
  int32_t in1_offset, in1_multiplier, in1_shift;
  int32_t in2_offset, in2_multiplier, in2_shift;
} mpk_compare_params;

/* LOGICAL_AND, LOGICAL_OR (two inputs, broadcast) and LOGICAL_NOT (input
 * 2 NULL, elementwise): bool bytes, any non-zero byte true; 0 or 1 out. */
#define MPK_LOGICAL_AND 0
#define MPK_LOGICAL_OR 1
#define MPK_LOGICAL_NOT 2
typedef struct mpk_logical_params {
  mpk_broadcast b;
  int32_t op;
} mpk_logical_params;

/* SELECT / SELECT_V2: output[i] = condition[ic] ? x[ix] : y[iy], elements
 * of elem_size bytes (1, 2 or 4), the three inputs walked over the output
 * dims with their own strides (0 on a broadcast axis; for SELECT's rank-1
 * condition, stride 1 on the first axis of x); elementwise: all indices
 * are i. */
typedef struct mpk_select_params {
  int32_t elementwise, size, elem_size;
  int32_t dims[MPK_MAX_DIMS];
  int32_t cond_strides[MPK_MAX_DIMS];
  int32_t x_strides[MPK_MAX_DIMS];
  int32_t y_strides[MPK_MAX_DIMS];
} mpk_select_params;

/* FLOOR_DIV and FLOOR_MOD (mpk_floor_div_mod) of int32 or float32. */
#define MPK_FLOOR_DIV 0
#define MPK_FLOOR_MOD 1
/* The status of a FLOOR_DIV with a zero divisor (float32: +0 or -0), or of
 * an int32 FLOOR_MOD with one; nothing is written.  TFLite Micro checks
 * every divisor of FLOOR_DIV before it computes and fails the same way. */
#define MPK_ERR_DIV_ZERO 5

/* FLOOR_DIV: floor(x1 / x2), the quotient computed in double (as
 * TensorFlow Lite's reference FloorDiv does), then converted (int32: an
 * out-of-range quotient, only INT32_MIN / -1, saturates to INT32_MAX);
 * FLOOR_MOD: the truncated remainder (fmodf, int32 %; INT32_MIN % -1 is
 * 0) plus x2 when it is non-zero and its sign differs from x2's. */
typedef struct mpk_floor_params {
  mpk_broadcast b;
  int32_t op, type; /* MPK_FLOOR_*, MPK_TYPE_INT32 or MPK_TYPE_FLOAT32 */
  int32_t in2_size; /* the divisors checked for zero: input 2's elements */
} mpk_floor_params;

/* ADD_N: output[i] = ((0 + in[0][i]) + in[1][i]) + ... of n_inputs
 * tensors of `size` int32 (wrapping) or float32 elements. */
typedef struct mpk_add_n_params {
  int32_t type, n_inputs, size;
} mpk_add_n_params;

MPK_API int32_t mpk_compare(const mpk_compare_params *p, const void *input1, const void *input2,
                            uint8_t *output, void *scratch);
MPK_API int32_t mpk_logical(const mpk_logical_params *p, const uint8_t *input1,
                            const uint8_t *input2, uint8_t *output, void *scratch);
MPK_API int32_t mpk_select(const mpk_select_params *p, const uint8_t *condition, const void *x,
                           const void *y, void *output, void *scratch);
MPK_API int32_t mpk_floor_div_mod(const mpk_floor_params *p, const void *input1,
                                  const void *input2, void *output, void *scratch);
MPK_API int32_t mpk_add_n(const mpk_add_n_params *p, const void *const *inputs, void *output,
                          void *scratch);

#endif /* MPK_BINARY_H */
