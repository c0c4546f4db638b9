/*
 * mpk_matmul.h — BATCH_MATMUL's part of the kernel ABI (mpk.h includes
 * it): int8, int16 and float32, with adj_x / adj_y and broadcast batch
 * dimensions.
 */
#ifndef MPK_MATMUL_H
#define MPK_MATMUL_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* For every batch index (walked over batch_dims in order) the product of
 * lhs [rows, depth] (stored [depth, rows] when adj_x) and rhs [depth, cols]
 * (stored [cols, depth] when adj_y) into out [rows, cols]; lhs_strides /
 * rhs_strides step whole matrices per batch dimension (0 where that
 * operand is broadcast).  int8: acc = sum (lhs + lhs_offset) * (rhs +
 * rhs_offset), out = clamp(mbqm(acc) + output_offset).  int16: the same
 * with an int64 accumulator and the 16x8 kernels' int64 requantisation;
 * TFLite requires the offsets to be 0 there. */
typedef struct mpk_batch_matmul_params {
  int32_t batch_dims[MPK_MAX_DIMS];
  int32_t lhs_strides[MPK_MAX_DIMS], rhs_strides[MPK_MAX_DIMS];
  int32_t rows, cols, depth, adj_x, adj_y;
  int32_t lhs_offset, rhs_offset, output_offset;
  int32_t multiplier, shift;
} mpk_batch_matmul_params;

MPK_API int32_t mpk_batch_matmul_s8(const mpk_batch_matmul_params *p, const int8_t *lhs,
                                    const int8_t *rhs, int8_t *output, void *scratch);
MPK_API int32_t mpk_batch_matmul_s16(const mpk_batch_matmul_params *p, const int16_t *lhs,
                                     const int16_t *rhs, int16_t *output, void *scratch);
MPK_API int32_t mpk_batch_matmul_f32(const mpk_batch_matmul_params *p, const float *lhs,
                                     const float *rhs, float *output, void *scratch);

#endif /* MPK_MATMUL_H */
