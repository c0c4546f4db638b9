/*
 * mpk_conv_serial.h — DEPTHWISE_CONV_2D channel by channel (depth
 * multiplier 1), for memory.in_place: the output may lie over its input at
 * any whole number of channels' strides, exactly on it included.
 */
#ifndef MPK_CONV_SERIAL_H
#define MPK_CONV_SERIAL_H

/* An overlap contract with a period: with the input at byte I and the
 * output at byte O of one arena, the output may overlap the input whenever
 * I - O >= min_gap and I - O is a multiple of period (1: any). */
typedef struct mpk_overlap {
  int64_t min_gap;
  int64_t period;
} mpk_overlap;

/* Channel-serial depthwise convolution: for each channel c, every output
 * pixel of channel c is computed from input channel c into `scratch`
 * (batches * out_h * out_w elements), then copied to the output.  The same
 * arithmetic as mpk_depthwise_conv2d_s8 / _s16 / _f32, tap for tap, so the
 * same bytes; slower (the output is written at a stride of out_c).  Needs a
 * depth multiplier of 1 and a packed output. */
MPK_API int32_t mpk_depthwise_conv2d_s8_serial(const mpk_conv_s8_params *p, const int8_t *input,
                                               const int8_t *filter, const int32_t *bias,
                                               int8_t *output, void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_s16_serial(const mpk_conv_s8_params *p,
                                                const int16_t *input, const int8_t *filter,
                                                const int64_t *bias, int16_t *output,
                                                void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_f32_serial(const mpk_conv_f32_params *p, const float *input,
                                                const float *filter, const float *bias,
                                                float *output, void *scratch);

/* The same kernel for a Cortex-M target (cm/mpk_conv_serial.c, with a
 * Helium path): the same params, temporary, walk and overlap contract,
 * int8 only. */
MPK_API int32_t mpk_depthwise_conv2d_s8_serial_fast(const mpk_conv_s8_params *p,
                                                    const int8_t *input, const int8_t *filter,
                                                    const int32_t *bias, int8_t *output,
                                                    void *scratch);

/* Its scratch: one channel of the output, in bytes (0 when the geometry
 * is not one the kernel runs). */
int64_t mpk_depthwise_conv2d_serial_scratch(const mpk_conv_geom *g, int32_t elem_bytes);

/* Its overlap contract (elements of elem_bytes in and out): any overlap at
 * a multiple of one pixel's channels, out_c * elem_bytes bytes; min_gap
 * MPK_NO_OVERLAP when the geometry is not one the kernel runs. */
mpk_overlap mpk_depthwise_conv2d_serial_overlap(const mpk_conv_geom *g, int32_t elem_bytes);

#endif /* MPK_CONV_SERIAL_H */
