/*
 * mpk_conv_s16.h — the 16x8 filter operators' part of the kernel ABI
 * (mpk.h includes it): CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with
 * int16 activations (zero point 0), int8 weights and int64 biases (a
 * CONV_2D also without a bias or with an int32 one, in 32 bits).  Their
 * params are the int8 kernels' (mpk_conv_s8_params, mpk_fc_s8_params);
 * input_offset and output_offset are 0 and the bounds are int16's.
 */
#ifndef MPK_CONV_S16_H
#define MPK_CONV_S16_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

MPK_API int32_t mpk_conv2d_s16(const mpk_conv_s8_params *p, const int16_t *input,
                               const int8_t *filter, const int64_t *bias, int16_t *output,
                               void *scratch);
/* A 16x8 CONV_2D without a bias or with an int32 one, as TensorFlow Lite
 * Micro runs it: an int32 accumulator (wrapping), the int32 bias, the int8
 * kernels' requantisation (mpk_requant_i32), the int16 clamp. */
MPK_API int32_t mpk_conv2d_s16_acc32(const mpk_conv_s8_params *p, const int16_t *input,
                                     const int8_t *filter, const int32_t *bias, int16_t *output,
                                     void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_s16(const mpk_conv_s8_params *p, const int16_t *input,
                                         const int8_t *filter, const int64_t *bias, int16_t *output,
                                         void *scratch);
MPK_API int32_t mpk_fully_connected_s16(const mpk_fc_s8_params *p, const int16_t *input,
                                        const int8_t *filter, const int64_t *bias, int16_t *output,
                                        void *scratch);

/* The specialised 16x8 kernels of a Cortex-M target (mpk_conv_s16_fast.c):
 * the same params and bytes; input, filter and output offsets 0; groups of
 * 1 for CONV_2D (either form), whose scratch is filter_h * filter_w * in_c int16 unless
 * mpk_conv2d_s16_fast_direct (a 1x1 filter without padding) says it reads
 * its input in place.  No overlap contracts. */
MPK_API int32_t mpk_conv2d_s16_fast(const mpk_conv_s8_params *p, const int16_t *input,
                                    const int8_t *filter, const int64_t *bias, int16_t *output,
                                    void *scratch);
MPK_API int32_t mpk_conv2d_s16_acc32_fast(const mpk_conv_s8_params *p, const int16_t *input,
                                          const int8_t *filter, const int32_t *bias,
                                          int16_t *output, void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_s16_fast(const mpk_conv_s8_params *p, const int16_t *input,
                                              const int8_t *filter, const int64_t *bias,
                                              int16_t *output, void *scratch);
MPK_API int32_t mpk_fully_connected_s16_fast(const mpk_fc_s8_params *p, const int16_t *input,
                                             const int8_t *filter, const int64_t *bias,
                                             int16_t *output, void *scratch);
int mpk_conv2d_s16_fast_direct(const mpk_conv_geom *g);

#endif /* MPK_CONV_S16_H */
