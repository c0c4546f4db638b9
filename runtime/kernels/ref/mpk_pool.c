/*
 * mpk_pool.c — AVERAGE_POOL_2D and MAX_POOL_2D, int8, int16 and float32.
 *
 * The window is clipped to the input (padding is not counted, as in TFLite):
 * the average divides by the number of taps inside the input, rounding half
 * away from zero in integer arithmetic; the maximum starts from the type's
 * lowest value.  Both clamp to the fused activation's range.  Input and
 * output share their quantisation, so no rescaling happens.  The output is
 * written at the geometry's output strides (mpk_conv_geom), packed NHWC by
 * default.
 */
#include "mpk.h"
#include "mpk_fixed.h"

/* The clipped window of output pixel (oy, ox). */
typedef struct window {
  int32_t y0, x0; /* input origin */
  int32_t fy0, fy1, fx0, fx1;
} window;

static window clip(const mpk_conv_geom *g, int32_t oy, int32_t ox) {
  window w;
  w.y0 = oy * g->stride_h - g->pad_h;
  w.x0 = ox * g->stride_w - g->pad_w;
  w.fy0 = mpk_max_i32(0, -w.y0);
  w.fy1 = mpk_min_i32(g->filter_h, g->in_h - w.y0);
  w.fx0 = mpk_max_i32(0, -w.x0);
  w.fx1 = mpk_min_i32(g->filter_w, g->in_w - w.x0);
  return w;
}

static int geom_ok(const mpk_conv_geom *g) {
  return mpk_out_strides_ok(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c == g->in_c && g->filter_h > 0 && g->filter_w > 0 &&
         g->stride_h > 0 && g->stride_w > 0;
}

/* Input element i of an integer pool (wide: int16, else int8). */
static int32_t q_at(const void *input, int wide, int32_t i) {
  return wide ? ((const int16_t *)input)[i] : ((const int8_t *)input)[i];
}

static void q_store(void *output, int wide, int32_t i, int32_t v) {
  if (wide)
    ((int16_t *)output)[i] = (int16_t)v;
  else
    ((int8_t *)output)[i] = (int8_t)v;
}

/* The integer pools of both widths: TFLite Micro's int8 and int16 kernels
 * are the same arithmetic over their own ranges. */
static int32_t pool_q(const mpk_pool_s8_params *p, const void *input, void *output, int wide,
                      int is_max) {
  const mpk_conv_geom *g = &p->geom;
  if (!geom_ok(g)) return MPK_ERR_PARAMS;
  const mpk_out_strides os = mpk_geom_out_strides(g);
  const int32_t lowest = wide ? -32768 : -128;
  for (int32_t b = 0; b < g->batches; b++)
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        window w = clip(g, oy, ox);
        int32_t count = (w.fy1 - w.fy0) * (w.fx1 - w.fx0);
        if (!is_max && (w.fy1 <= w.fy0 || w.fx1 <= w.fx0)) return MPK_ERR_PARAMS;
        for (int32_t c = 0; c < g->in_c; c++) {
          int32_t acc = is_max ? lowest : 0;
          for (int32_t fy = w.fy0; fy < w.fy1; fy++)
            for (int32_t fx = w.fx0; fx < w.fx1; fx++) {
              int32_t x = q_at(input, wide,
                               ((b * g->in_h + w.y0 + fy) * g->in_w + w.x0 + fx) * g->in_c + c);
              acc = is_max ? mpk_max_i32(acc, x) : acc + x;
            }
          if (!is_max) acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          q_store(output, wide, b * os.batch + oy * os.row + ox * os.pixel + c,
                  mpk_clamp_i32(acc, p->act_min, p->act_max));
        }
      }
  return MPK_OK;
}

MPK_API int32_t mpk_avg_pool2d_s8(const mpk_pool_s8_params *p, const int8_t *input, int8_t *output,
                                  void *scratch) {
  (void)scratch;
  return pool_q(p, input, output, 0, 0);
}

MPK_API int32_t mpk_avg_pool2d_s16(const mpk_pool_s8_params *p, const int16_t *input,
                                   int16_t *output, void *scratch) {
  (void)scratch;
  return pool_q(p, input, output, 1, 0);
}

MPK_API int32_t mpk_max_pool2d_s8(const mpk_pool_s8_params *p, const int8_t *input, int8_t *output,
                                  void *scratch) {
  (void)scratch;
  return pool_q(p, input, output, 0, 1);
}

MPK_API int32_t mpk_max_pool2d_s16(const mpk_pool_s8_params *p, const int16_t *input,
                                   int16_t *output, void *scratch) {
  (void)scratch;
  return pool_q(p, input, output, 1, 1);
}

MPK_API int32_t mpk_avg_pool2d_f32(const mpk_pool_f32_params *p, const float *input, float *output,
                                   void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!geom_ok(g)) return MPK_ERR_PARAMS;
  const mpk_out_strides os = mpk_geom_out_strides(g);
  for (int32_t b = 0; b < g->batches; b++)
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        window w = clip(g, oy, ox);
        int32_t count = (w.fy1 - w.fy0) * (w.fx1 - w.fx0);
        if (w.fy1 <= w.fy0 || w.fx1 <= w.fx0) return MPK_ERR_PARAMS;
        for (int32_t c = 0; c < g->in_c; c++) {
          float acc = 0.0f;
          for (int32_t fy = w.fy0; fy < w.fy1; fy++)
            for (int32_t fx = w.fx0; fx < w.fx1; fx++)
              acc += input[((b * g->in_h + w.y0 + fy) * g->in_w + w.x0 + fx) * g->in_c + c];
          float v = acc / (float)count;
          if (v < p->act_min) v = p->act_min;
          if (v > p->act_max) v = p->act_max;
          output[b * os.batch + oy * os.row + ox * os.pixel + c] = v;
        }
      }
  return MPK_OK;
}

MPK_API int32_t mpk_max_pool2d_f32(const mpk_pool_f32_params *p, const float *input, float *output,
                                   void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!geom_ok(g)) return MPK_ERR_PARAMS;
  const mpk_out_strides os = mpk_geom_out_strides(g);
  for (int32_t b = 0; b < g->batches; b++)
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        window w = clip(g, oy, ox);
        for (int32_t c = 0; c < g->in_c; c++) {
          float m = -3.40282347e+38f;
          for (int32_t fy = w.fy0; fy < w.fy1; fy++)
            for (int32_t fx = w.fx0; fx < w.fx1; fx++) {
              float v = input[((b * g->in_h + w.y0 + fy) * g->in_w + w.x0 + fx) * g->in_c + c];
              if (v > m) m = v;
            }
          if (m < p->act_min) m = p->act_min;
          if (m > p->act_max) m = p->act_max;
          output[b * os.batch + oy * os.row + ox * os.pixel + c] = m;
        }
      }
  return MPK_OK;
}

/* Overlap contract (mpk.h): the convolutions' (mpk_conv.c).  Pooling visits
 * its output pixels in the same order, writes each pixel's channels in turn
 * while re-reading the window for the next one, and its window clipped to
 * the input starts at the same first tap, with unit dilation. */
int64_t mpk_pool2d_overlap_gap(const mpk_conv_geom *g, int32_t in_bytes, int32_t out_bytes) {
  mpk_conv_geom u = *g;
  u.dilation_h = u.dilation_w = 1;
  return mpk_conv2d_overlap_gap(&u, in_bytes, out_bytes);
}
