/*
 * mpk_transpose_conv.c — TRANSPOSE_CONV with TFLite Micro's reference
 * "scatter" order: every input element adds its products into the output
 * positions it reaches (the float kernel accumulates in the output itself,
 * the quantised ones in int32 / int64 scratch), the bias comes last.
 */
#include "mpk.h"
#include "mpk_fixed.h"

static int tconv_ok(const mpk_conv_geom *g) {
  return mpk_out_packed(g) && g->batches >= 0 && g->in_h >= 0 && g->in_w >= 0 && g->in_c > 0 && g->out_h >= 0 &&
         g->out_w >= 0 && g->out_c > 0 && g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 &&
         g->stride_w > 0;
}

/* The scatter loop, shared by the three kernels: ACC(out_index, in_value,
 * filter_value) adds one product. */
#define TCONV_SCATTER(g, input, filter, ACC)                                                       \
  for (int32_t b = 0; b < (g)->batches; b++)                                                       \
    for (int32_t iy = 0; iy < (g)->in_h; iy++)                                                     \
      for (int32_t ix = 0; ix < (g)->in_w; ix++)                                                   \
        for (int32_t ic = 0; ic < (g)->in_c; ic++) {                                               \
          const int32_t oy0 = iy * (g)->stride_h - (g)->pad_h,                                     \
                        ox0 = ix * (g)->stride_w - (g)->pad_w;                                     \
          for (int32_t fy = 0; fy < (g)->filter_h; fy++)                                           \
            for (int32_t fx = 0; fx < (g)->filter_w; fx++)                                         \
              for (int32_t oc = 0; oc < (g)->out_c; oc++) {                                        \
                const int32_t oy = oy0 + fy, ox = ox0 + fx;                                        \
                if (oy < 0 || oy >= (g)->out_h || ox < 0 || ox >= (g)->out_w) continue;            \
                ACC((((b * (g)->out_h + oy) * (g)->out_w + ox) * (g)->out_c + oc),                 \
                    (input)[((b * (g)->in_h + iy) * (g)->in_w + ix) * (g)->in_c + ic],             \
                    (filter)[((oc * (g)->filter_h + fy) * (g)->filter_w + fx) * (g)->in_c + ic]);  \
              }                                                                                    \
        }

MPK_API int32_t mpk_transpose_conv_s8(const mpk_transpose_conv_params *p, const int8_t *input,
                                      const int8_t *filter, const int32_t *bias, int8_t *output,
                                      void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  if (!tconv_ok(g) || !scratch) return MPK_ERR_PARAMS;
  int32_t *acc = scratch;
  const int32_t n = g->batches * g->out_h * g->out_w * g->out_c;
  for (int32_t i = 0; i < n; i++)
    acc[i] = 0;
#define ACC_S8(o, x, w) acc[o] += ((int32_t)(x) + p->input_offset) * (int32_t)(w)
  TCONV_SCATTER(g, input, filter, ACC_S8)
#undef ACC_S8
  for (int32_t i = 0; i < n; i++) {
    int32_t oc = i % g->out_c, v = acc[i] + (bias ? bias[oc] : 0);
    v = mpk_mbqm(v, p->multiplier[oc], p->shift[oc]) + p->output_offset;
    output[i] = (int8_t)mpk_clamp_i32(v, p->act_min, p->act_max);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_transpose_conv_s16(const mpk_transpose_conv_params *p, const int16_t *input,
                                       const int8_t *filter, const int64_t *bias, int16_t *output,
                                       void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  if (!tconv_ok(g) || !scratch) return MPK_ERR_PARAMS;
  int64_t *acc = scratch;
  const int32_t n = g->batches * g->out_h * g->out_w * g->out_c;
  for (int32_t i = 0; i < n; i++)
    acc[i] = 0;
#define ACC_S16(o, x, w) acc[o] += (int64_t)(x) * (int64_t)(w)
  TCONV_SCATTER(g, input, filter, ACC_S16)
#undef ACC_S16
  for (int32_t i = 0; i < n; i++) {
    int32_t oc = i % g->out_c;
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
  const mpk_conv_geom *g = &p->geom;
  if (!tconv_ok(g)) return MPK_ERR_PARAMS;
  const int32_t n = g->batches * g->out_h * g->out_w * g->out_c;
  for (int32_t i = 0; i < n; i++)
    output[i] = 0.0f;
#define ACC_F32(o, x, w) output[o] += (x) * (w)
  TCONV_SCATTER(g, input, filter, ACC_F32)
#undef ACC_F32
  if (bias)
    for (int32_t i = 0; i < n; i++)
      output[i] += bias[i % g->out_c];
  return MPK_OK;
}
