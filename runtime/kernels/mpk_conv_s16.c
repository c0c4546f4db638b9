/*
 * mpk_conv_s16.c — CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, 16x8:
 * int16 activations, int8 weights, int64 biases, as TFLite Micro's
 * reference kernels compute them: the products accumulate in 64 bits, the
 * bias is added, and TFLite's 64-bit MultiplyByQuantizedMultiplier (a
 * Q15-rounded multiplier, one rounding shift) requantises per output
 * channel before the clamp.  The loops are mpk_conv.c's.
 */
#include "mpk.h"
#include "mpk_fixed.h"

static int16_t requant16(const mpk_requant *q, int64_t acc, int32_t channel) {
  int32_t i = q->per_channel ? channel : 0;
  int32_t v = mpk_mbqm64(acc, q->multiplier[i], q->shift[i]) + q->output_offset;
  return (int16_t)mpk_clamp_i32(v, q->act_min, q->act_max);
}

static int geom_ok(const mpk_conv_geom *g) {
  return g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c > 0 && g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 &&
         g->stride_w > 0 && g->dilation_h > 0 && g->dilation_w > 0;
}

MPK_API int32_t mpk_conv2d_s16(const mpk_conv_s8_params *p, const int16_t *input,
                               const int8_t *filter, const int64_t *bias, int16_t *output,
                               void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!geom_ok(g) || g->filter_c <= 0 || g->in_c % g->filter_c != 0) return MPK_ERR_PARAMS;
  const int32_t groups = g->in_c / g->filter_c;
  if (g->out_c % groups != 0) return MPK_ERR_PARAMS;
  const int32_t per_group = g->out_c / groups;
  for (int32_t b = 0; b < g->batches; b++) {
    for (int32_t oy = 0; oy < g->out_h; oy++) {
      const int32_t y0 = oy * g->stride_h - g->pad_h;
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const int32_t x0 = ox * g->stride_w - g->pad_w;
        int16_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_c;
        for (int32_t oc = 0; oc < g->out_c; oc++) {
          const int32_t group = oc / per_group;
          int64_t acc = 0;
          for (int32_t fy = 0; fy < g->filter_h; fy++) {
            const int32_t iy = y0 + g->dilation_h * fy;
            if (iy < 0 || iy >= g->in_h) continue;
            for (int32_t fx = 0; fx < g->filter_w; fx++) {
              const int32_t ix = x0 + g->dilation_w * fx;
              if (ix < 0 || ix >= g->in_w) continue;
              const int16_t *in =
                  input + ((b * g->in_h + iy) * g->in_w + ix) * g->in_c + group * g->filter_c;
              const int8_t *f = filter + ((oc * g->filter_h + fy) * g->filter_w + fx) * g->filter_c;
              for (int32_t ic = 0; ic < g->filter_c; ic++)
                acc += (int32_t)f[ic] * (int32_t)in[ic];
            }
          }
          if (bias) acc += bias[oc];
          out[oc] = requant16(&p->q, acc, oc);
        }
      }
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_s16(const mpk_conv_s8_params *p, const int16_t *input,
                                         const int8_t *filter, const int64_t *bias, int16_t *output,
                                         void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!geom_ok(g) || g->depth_multiplier <= 0 || g->out_c != g->in_c * g->depth_multiplier)
    return MPK_ERR_PARAMS;
  for (int32_t b = 0; b < g->batches; b++) {
    for (int32_t oy = 0; oy < g->out_h; oy++) {
      const int32_t y0 = oy * g->stride_h - g->pad_h;
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const int32_t x0 = ox * g->stride_w - g->pad_w;
        int16_t *out = output + ((b * g->out_h + oy) * g->out_w + ox) * g->out_c;
        for (int32_t oc = 0; oc < g->out_c; oc++) {
          const int32_t ic = oc / g->depth_multiplier;
          int64_t acc = 0;
          for (int32_t fy = 0; fy < g->filter_h; fy++) {
            const int32_t iy = y0 + g->dilation_h * fy;
            if (iy < 0 || iy >= g->in_h) continue;
            for (int32_t fx = 0; fx < g->filter_w; fx++) {
              const int32_t ix = x0 + g->dilation_w * fx;
              if (ix < 0 || ix >= g->in_w) continue;
              acc += (int32_t)filter[(fy * g->filter_w + fx) * g->out_c + oc] *
                     (int32_t)input[((b * g->in_h + iy) * g->in_w + ix) * g->in_c + ic];
            }
          }
          if (bias) acc += bias[oc];
          out[oc] = requant16(&p->q, acc, oc);
        }
      }
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_fully_connected_s16(const mpk_fc_s8_params *p, const int16_t *input,
                                        const int8_t *filter, const int64_t *bias, int16_t *output,
                                        void *scratch) {
  (void)scratch;
  if (p->batches <= 0 || p->accum_depth <= 0 || p->out_depth <= 0) return MPK_ERR_PARAMS;
  const mpk_requant *q = &p->q;
  for (int32_t b = 0; b < p->batches; b++) {
    const int16_t *in = input + b * p->accum_depth;
    for (int32_t o = 0; o < p->out_depth; o++) {
      const int8_t *f = filter + o * p->accum_depth;
      int64_t acc = 0;
      for (int32_t d = 0; d < p->accum_depth; d++)
        acc += ((int32_t)f[d] + q->filter_offset) * ((int32_t)in[d] + q->input_offset);
      if (bias) acc += bias[o];
      output[b * p->out_depth + o] = requant16(q, acc, o);
    }
  }
  return MPK_OK;
}
