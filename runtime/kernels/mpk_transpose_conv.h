/*
 * mpk_transpose_conv.h — TRANSPOSE_CONV's part of the kernel ABI (mpk.h
 * includes it): int8 (per-channel), 16x8 (int16 activations, int8
 * weights, int64 bias) and float32, NHWC, filter [out_c, h, w, in_c].
 */
#ifndef MPK_TRANSPOSE_CONV_H
#define MPK_TRANSPOSE_CONV_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* Input element (b, y, x, ic) adds input * filter[oc][fy][fx][ic] into
 * output element (b, y * stride_h - pad_h + fy, x * stride_w - pad_w + fx,
 * oc) when it lies inside the output; then the bias is added and the
 * quantised kernels requantise per output channel (multiplier / shift
 * arrays of out_c entries) and clamp to [act_min, act_max].  The geometry
 * is the convolutions' (filter_c = in_c, unit dilation, no depth
 * multiplier), the padding that of the forward convolution. */
typedef struct mpk_transpose_conv_params {
  mpk_conv_geom geom;
  int32_t input_offset, output_offset; /* minus the input zero point; the output's */
  int32_t act_min, act_max;
  const int32_t *multiplier, *shift;
} mpk_transpose_conv_params;

/* scratch: out elements int32 (4-byte aligned). */
MPK_API int32_t mpk_transpose_conv_s8(const mpk_transpose_conv_params *p, const int8_t *input,
                                      const int8_t *filter, const int32_t *bias, int8_t *output,
                                      void *scratch);
/* scratch: out elements int64 (8-byte aligned). */
MPK_API int32_t mpk_transpose_conv_s16(const mpk_transpose_conv_params *p, const int16_t *input,
                                       const int8_t *filter, const int64_t *bias, int16_t *output,
                                       void *scratch);
MPK_API int32_t mpk_transpose_conv_f32(const mpk_transpose_conv_params *p, const float *input,
                                       const float *filter, const float *bias, float *output,
                                       void *scratch);

#endif /* MPK_TRANSPOSE_CONV_H */
