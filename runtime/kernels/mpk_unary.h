/*
 * mpk_unary.h — the elementwise unary operators' part of the kernel ABI
 * (mpk.h includes it): RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU,
 * TANH, HARD_SWISH, EXP, RSQRT, ABS, NEG, SQUARE, SQRT, LOG, SIN, COS,
 * FLOOR, CEIL, ROUND, ELU, LOG_SOFTMAX, L2_NORMALIZATION, DEQUANTIZE and
 * CAST, and the table lookup of an int8 operator.
 */
#ifndef MPK_UNARY_H
#define MPK_UNARY_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* Element types beyond mpk.h's integer MPK_TYPE_* (CAST). */
#define MPK_TYPE_FLOAT32 4
#define MPK_TYPE_BOOL 5
#define MPK_TYPE_UINT32 6

/* The operation of a unary kernel. */
#define MPK_UN_RELU 0       /* int: requantise, clamp to [act_min, act_max] */
#define MPK_UN_CLAMP 1      /* int: the stored integer clamped (RELU6, RELU_N1_TO_1) */
#define MPK_UN_LEAKY_RELU 2 /* int: two requantisations by the input's sign */
#define MPK_UN_TANH 3       /* int8: gemmlowp's fixed-point tanh */
#define MPK_UN_HARD_SWISH 4 /* int8: TFLite's int16 fixed-point hard swish */
#define MPK_UN_RELU6 5      /* float32 only, as the ones below */
#define MPK_UN_RELU_N1_TO_1 6
#define MPK_UN_EXP 7
#define MPK_UN_RSQRT 8 /* and int16: TFLite's RsqrtEvalQuantized (mpk_rsqrt_q) */
#define MPK_UN_LOGISTIC 9 /* int16 only (int8, float32 LOGISTIC: mpk_logistic_*) */
#define MPK_UN_ABS 10 /* and int8, int16: |x - in_zp| requantised (multiplier 0: not) */
#define MPK_UN_NEG 11 /* float32 only, as the ones below */
#define MPK_UN_SQUARE 12
#define MPK_UN_SQRT 13
#define MPK_UN_LOG 14
#define MPK_UN_SIN 15
#define MPK_UN_COS 16
#define MPK_UN_FLOOR 17
#define MPK_UN_CEIL 18
#define MPK_UN_ROUND 19 /* half to even, TFLite's way (-0.5 gives +0) */
#define MPK_UN_RELU_0_TO_1 20
#define MPK_UN_ELU 21
#define MPK_UN_LOG_SOFTMAX 22 /* over rows of `depth` elements */
#define MPK_UN_L2_NORMALIZATION 23 /* over rows of `depth` elements */

/* Quantised unary operator on int8 or int16 (type).  Per op:
 *   RELU: clamp(out_zp + mbqm(x - in_zp, multiplier, shift));
 *   CLAMP: clamp(x), the bounds in the input's own integers;
 *   LEAKY_RELU: out_zp + mbqm(x - in_zp, multiplier / multiplier2 for
 *     x - in_zp >= 0 / < 0), clamped;
 *   TANH int8: x - in_zp outside +-input_range_radius saturates, else
 *     mbqm(x - in_zp, multiplier, shift) is the Q4 input of tanh, whose Q0
 *     result is rounded to 1/128 steps;
 *   TANH, LOGISTIC int16: the table lookups below, Q0.15 out;
 *   HARD_SWISH: multiplier / shift the int16 output multiplier and
 *     exponent, multiplier2 / shift2 the int16 "reluish" ones;
 *   ABS: |x - in_zp|, times mbqm(multiplier, shift) unless multiplier is
 *     0 (equal scales), + out_zp, clamped. */
typedef struct mpk_unary_q_params {
  int32_t op, type, size;
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier, shift;
  int32_t multiplier2, shift2;
  int32_t input_range_radius;
  int32_t act_min, act_max;
} mpk_unary_q_params;

/* float32: RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU (alpha),
 * TANH, HARD_SWISH, EXP, RSQRT, ABS, NEG, SQUARE, SQRT, LOG, SIN, COS,
 * FLOOR, CEIL, ROUND, ELU, each element on its own (C's float functions:
 * a NaN, an infinity or a negative SQRT / LOG input gives what they
 * give); LOG_SOFTMAX and L2_NORMALIZATION over each row of `depth`
 * elements (size a multiple of depth; depth 0 for the others). */
typedef struct mpk_unary_f32_params {
  int32_t op, size;
  float alpha;
  int32_t depth;
} mpk_unary_f32_params;

/* DEQUANTIZE int8 / int16 -> float32: scale * (x - zero_point). */
typedef struct mpk_dequantize_params {
  int32_t size, in_type;
  float scale;
  int32_t zero_point;
} mpk_dequantize_params;

/* CAST between int8, int16, int32, uint32, float32 and bool (MPK_TYPE_*):
 * C's conversion of each element, integers wrapping (float to integer
 * truncates; float to uint32 through int64, 0 out of its range, as the
 * x86-64 hosts TFLM runs on convert). */
typedef struct mpk_cast_params {
  int32_t size, in_type, out_type;
} mpk_cast_params;

/* An int8 operator given as a table of its 256 results (int8 RSQRT, computed
 * at convert time); inputs below `min_input` are outside its domain. */
typedef struct mpk_lut_s8_params {
  int32_t size;
  int32_t min_input;
  const int32_t *table; /* table[x + 128] */
} mpk_lut_s8_params;

/* SOFTMAX int16 (TFLite's SoftmaxInt16): input differences to the row's
 * maximum scaled by multiplier / shift into [-10, 0], exp by a 513-entry
 * table, the sum's reciprocal by another; tables of int16 values stored as
 * int32.  Output Q0.15. */
typedef struct mpk_softmax_s16_params {
  int32_t outer, depth;
  int32_t input_multiplier, input_shift;
  const int32_t *exp_table, *recip_table;
} mpk_softmax_s16_params;

MPK_API int32_t mpk_softmax_s16(const mpk_softmax_s16_params *p, const int16_t *input,
                                int16_t *output, void *scratch);

/* A data-dependent failure: an input outside the operator's domain. */
#define MPK_ERR_DOMAIN 4

/* MPK_ERR_DOMAIN, the output partly written, when an input is below
 * min_input. */
MPK_API int32_t mpk_lut_s8(const mpk_lut_s8_params *p, const int8_t *input, int8_t *output,
                           void *scratch);
MPK_API int32_t mpk_unary_q(const mpk_unary_q_params *p, const void *input, void *output,
                            void *scratch);
MPK_API int32_t mpk_unary_f32(const mpk_unary_f32_params *p, const float *input, float *output,
                              void *scratch);
MPK_API int32_t mpk_dequantize(const mpk_dequantize_params *p, const void *input, float *output,
                               void *scratch);
MPK_API int32_t mpk_cast(const mpk_cast_params *p, const void *input, void *output, void *scratch);

#endif /* MPK_UNARY_H */
