/*
 * mpk_reduce.h — the reductions' part of the kernel ABI (mpk.h includes
 * it): SUM, REDUCE_MAX and REDUCE_MIN over any set of axes, ARG_MAX and
 * ARG_MIN along one axis.
 */
#ifndef MPK_REDUCE_H
#define MPK_REDUCE_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

#define MPK_RED_SUM 0
#define MPK_RED_MAX 1
#define MPK_RED_MIN 2

/* SUM, REDUCE_MAX or REDUCE_MIN of int8 / int16 / float32 (type, MPK_TYPE_*): each
 * input element (walked in row-major order over in_dims) goes to output
 * element sum(coord[d] * out_strides[d]) (reduced axes have stride 0).
 * Quantised SUM adds in int32 scratch (out_size entries, 4-byte aligned)
 * and writes clamp(mbqm(sum - input_sum_offset, multiplier, shift) +
 * output_zero_point), input_sum_offset being the input zero point times
 * the elements per output; REDUCE_MAX and REDUCE_MIN compare stored
 * integers, starting from the type's lowest (highest) value (float32:
 * -FLT_MAX, FLT_MAX), as TFLite Micro's reducers do. */
typedef struct mpk_reduce_params {
  int32_t op, type;
  int32_t in_dims[MPK_MAX_DIMS];
  int32_t out_strides[MPK_MAX_DIMS];
  int32_t out_size;
  int32_t input_sum_offset, output_zero_point;
  int32_t multiplier, shift;
} mpk_reduce_params;

/* ARG_MAX (is_min 0) / ARG_MIN (is_min 1): output[o][i] = the first
 * index along the axis of the largest (smallest) input[o][.][i], each
 * element replacing the best so far only when strictly greater (less);
 * int32 output. */
typedef struct mpk_arg_max_params {
  int32_t type; /* MPK_TYPE_INT8, MPK_TYPE_INT16, MPK_TYPE_FLOAT32 */
  int32_t outer, axis_size, inner;
  int32_t is_min;
} mpk_arg_max_params;

MPK_API int32_t mpk_reduce(const mpk_reduce_params *p, const void *input, void *output,
                           void *scratch);
MPK_API int32_t mpk_arg_max(const mpk_arg_max_params *p, const void *input, int32_t *output,
                            void *scratch);

#endif /* MPK_REDUCE_H */
