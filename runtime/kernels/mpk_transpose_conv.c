/*
 * mpk_transpose_conv.c — TRANSPOSE_CONV with TFLite Micro's reference
 * "scatter" order: every input element adds its products into the output
 * positions it reaches (the float kernel accumulates in the output itself,
 * the quantised ones in int32 / int64 scratch), the bias comes last.
 */
#include "mpk.h"
#include "mpk_fixed.h"

static int tconv_ok(const mpk_transpose_conv_params *p) {
  return p->batches >= 0 && p->in_h >= 0 && p->in_w >= 0 && p->in_c > 0 && p->out_h >= 0 &&
         p->out_w >= 0 && p->out_c > 0 && p->filter_h > 0 && p->filter_w > 0 && p->stride_h > 0 &&
         p->stride_w > 0;
}

/* The scatter loop, shared by the three kernels: ACC(out_index, in_value,
 * filter_value) adds one product. */
#define TCONV_SCATTER(p, input, filter, ACC)                                                       \
  for (int32_t b = 0; b < (p)->batches; b++)                                                       \
    for (int32_t iy = 0; iy < (p)->in_h; iy++)                                                     \
      for (int32_t ix = 0; ix < (p)->in_w; ix++)                                                   \
        for (int32_t ic = 0; ic < (p)->in_c; ic++) {                                               \
          const int32_t oy0 = iy * (p)->stride_h - (p)->pad_h,                                     \
                        ox0 = ix * (p)->stride_w - (p)->pad_w;                                     \
          for (int32_t fy = 0; fy < (p)->filter_h; fy++)                                           \
            for (int32_t fx = 0; fx < (p)->filter_w; fx++)                                         \
              for (int32_t oc = 0; oc < (p)->out_c; oc++) {                                        \
                const int32_t oy = oy0 + fy, ox = ox0 + fx;                                        \
                if (oy < 0 || oy >= (p)->out_h || ox < 0 || ox >= (p)->out_w) continue;            \
                ACC((((b * (p)->out_h + oy) * (p)->out_w + ox) * (p)->out_c + oc),                 \
                    (input)[((b * (p)->in_h + iy) * (p)->in_w + ix) * (p)->in_c + ic],             \
                    (filter)[((oc * (p)->filter_h + fy) * (p)->filter_w + fx) * (p)->in_c + ic]);  \
              }                                                                                    \
        }

MPK_API int32_t mpk_transpose_conv_s8(const mpk_transpose_conv_params *p, const int8_t *input,
                                      const int8_t *filter, const int32_t *bias, int8_t *output,
                                      void *scratch) {
  if (!tconv_ok(p) || !scratch) return MPK_ERR_PARAMS;
  int32_t *acc = scratch;
  const int32_t n = p->batches * p->out_h * p->out_w * p->out_c;
  for (int32_t i = 0; i < n; i++)
    acc[i] = 0;
#define ACC_S8(o, x, w) acc[o] += ((int32_t)(x) + p->input_offset) * (int32_t)(w)
  TCONV_SCATTER(p, input, filter, ACC_S8)
#undef ACC_S8
  for (int32_t i = 0; i < n; i++) {
    int32_t oc = i % p->out_c, v = acc[i] + (bias ? bias[oc] : 0);
    v = mpk_mbqm(v, p->multiplier[oc], p->shift[oc]) + p->output_offset;
    output[i] = (int8_t)mpk_clamp_i32(v, p->act_min, p->act_max);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_transpose_conv_s16(const mpk_transpose_conv_params *p, const int16_t *input,
                                       const int8_t *filter, const int64_t *bias, int16_t *output,
                                       void *scratch) {
  if (!tconv_ok(p) || !scratch) return MPK_ERR_PARAMS;
  int64_t *acc = scratch;
  const int32_t n = p->batches * p->out_h * p->out_w * p->out_c;
  for (int32_t i = 0; i < n; i++)
    acc[i] = 0;
#define ACC_S16(o, x, w) acc[o] += (int64_t)(x) * (int64_t)(w)
  TCONV_SCATTER(p, input, filter, ACC_S16)
#undef ACC_S16
  for (int32_t i = 0; i < n; i++) {
    int32_t oc = i % p->out_c;
    int64_t v = acc[i] + (bias ? bias[oc] : 0);
    int32_t r = mpk_mbqm64(v, p->multiplier[oc], p->shift[oc]) + p->output_offset;
    output[i] = (int16_t)mpk_clamp_i32(r, p->act_min, p->act_max);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_transpose_conv_f32(const mpk_transpose_conv_params *p, const float *input,
                                       const float *filter, const float *bias, float *output,
                                       void *scratch) {
  (void)scratch;
  if (!tconv_ok(p)) return MPK_ERR_PARAMS;
  const int32_t n = p->batches * p->out_h * p->out_w * p->out_c;
  for (int32_t i = 0; i < n; i++)
    output[i] = 0.0f;
#define ACC_F32(o, x, w) output[o] += (x) * (w)
  TCONV_SCATTER(p, input, filter, ACC_F32)
#undef ACC_F32
  if (bias)
    for (int32_t i = 0; i < n; i++)
      output[i] += bias[i % p->out_c];
  return MPK_OK;
}
