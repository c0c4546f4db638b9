/*
 * mpk_conv_fast.c — the specialised int8 CONV_2D and DEPTHWISE_CONV_2D
 * kernels a module built for a Cortex-M target runs (module.target), with
 * Helium, DSP and portable inner loops (mpk_simd.h).
 *
 * The one idea: the lowering knows the filter at convert time, so it folds
 * the input offset into the bias (mpk_conv_s8_fast_params); what is left is
 * a matrix multiply of int8 filter rows with int8 input columns.  A tap in
 * the padding reads the input zero point, which with the folded bias adds
 * exactly nothing, as the reference kernels' skipped tap does.  Outputs are
 * the reference kernels' bytes (mpk_conv.c) on every path.
 *
 *   mpk_conv2d_s8_1x1      a 1x1 filter, no padding: the column of an output
 *                          pixel is its input pixel, read in place;
 *   mpk_conv2d_s8_im2col   any other filter: the columns of two output
 *                          pixels are gathered into the op-local scratch;
 *   mpk_depthwise_conv2d_s8_fast  any filter size and depth multiplier:
 *                          output channels are the vector lanes (4 per
 *                          Helium vector, requantised four at a time) when
 *                          the multiplier is 1 or there is one input
 *                          channel; portable C otherwise.
 *
 * Iteration order (for the in-place contracts): every kernel walks output
 * pixels in raster order (batch, row, column), two at a time for the
 * convolutions; a pixel's outputs, all its channels, are written after the
 * input window of that pixel (and of its partner) has been read, and
 * nothing is read back from the output.
 *
 * Not here: grouped convolutions (the lowering keeps the reference kernel
 * for those).
 */
#include "mpk.h"
#include "mpk_simd.h"

static int fast_geom_ok(const mpk_conv_geom *g) {
  return g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c > 0 && g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 &&
         g->stride_w > 0 && g->dilation_h > 0 && g->dilation_w > 0;
}

/* Output pixel `i` (raster index within a batch) as its input pixel's
 * offset, for a 1x1 filter without padding. */
static const int8_t *pixel_1x1(const mpk_conv_geom *g, const int8_t *in_batch, int32_t i) {
  int32_t oy = i / g->out_w, ox = i - oy * g->out_w;
  return in_batch + ((size_t)(oy * g->stride_h) * (size_t)g->in_w + (size_t)(ox * g->stride_w)) *
                        (size_t)g->in_c;
}

MPK_API int32_t mpk_conv2d_s8_1x1(const mpk_conv_s8_fast_params *p, const int8_t *input,
                                  const int8_t *filter, const int32_t *bias, int8_t *output,
                                  void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)bias;
  (void)scratch;
  if (!fast_geom_ok(g) || g->filter_h != 1 || g->filter_w != 1 || g->filter_c != g->in_c ||
      g->pad_h != 0 || g->pad_w != 0 || !p->folded_bias)
    return MPK_ERR_PARAMS;
  const int32_t pixels = g->out_h * g->out_w;
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    int8_t *out_b = output + (size_t)b * (size_t)pixels * (size_t)g->out_c;
    int32_t i = 0;
    for (; i + 2 <= pixels; i += 2)
      mpk_matmul_s8(filter, p->folded_bias, &p->q, g->out_c, g->in_c, pixel_1x1(g, in_b, i),
                    pixel_1x1(g, in_b, i + 1), out_b + (size_t)i * (size_t)g->out_c,
                    out_b + (size_t)(i + 1) * (size_t)g->out_c);
    if (i < pixels)
      mpk_matmul_s8(filter, p->folded_bias, &p->q, g->out_c, g->in_c, pixel_1x1(g, in_b, i), NULL,
                    out_b + (size_t)i * (size_t)g->out_c, NULL);
  }
  return MPK_OK;
}

/* The column of output pixel (oy, ox): the filter window's input rows in
 * filter order [fy][fx][in_c], the input zero point where the window
 * leaves the input. */
static void gather(const mpk_conv_geom *g, const int8_t *in_b, int32_t oy, int32_t ox, int8_t zp,
                   int8_t *col) {
  const int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
  const size_t c = (size_t)g->in_c;
  for (int32_t fy = 0; fy < g->filter_h; fy++) {
    const int32_t iy = y0 + g->dilation_h * fy;
    for (int32_t fx = 0; fx < g->filter_w; fx++, col += c) {
      const int32_t ix = x0 + g->dilation_w * fx;
      if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w)
        memset(col, zp, c);
      else
        memcpy(col, in_b + ((size_t)iy * (size_t)g->in_w + (size_t)ix) * c, c);
    }
  }
}

MPK_API int32_t mpk_conv2d_s8_im2col(const mpk_conv_s8_fast_params *p, const int8_t *input,
                                     const int8_t *filter, const int32_t *bias, int8_t *output,
                                     void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)bias;
  if (!fast_geom_ok(g) || g->filter_c != g->in_c || !p->folded_bias || !scratch ||
      p->col_len != g->filter_h * g->filter_w * g->in_c)
    return MPK_ERR_PARAMS;
  int8_t *col0 = scratch, *col1 = col0 + p->col_len;
  const int8_t zp = (int8_t)(-p->q.input_offset);
  const int32_t pixels = g->out_h * g->out_w;
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    int8_t *out_b = output + (size_t)b * (size_t)pixels * (size_t)g->out_c;
    for (int32_t i = 0; i < pixels; i += 2) {
      const int two = i + 1 < pixels;
      gather(g, in_b, i / g->out_w, i % g->out_w, zp, col0);
      if (two) gather(g, in_b, (i + 1) / g->out_w, (i + 1) % g->out_w, zp, col1);
      mpk_matmul_s8(filter, p->folded_bias, &p->q, g->out_c, p->col_len, col0, two ? col1 : NULL,
                    out_b + (size_t)i * (size_t)g->out_c,
                    two ? out_b + (size_t)(i + 1) * (size_t)g->out_c : NULL);
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_s8_fast(const mpk_conv_s8_fast_params *p,
                                             const int8_t *input, const int8_t *filter,
                                             const int32_t *bias, int8_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)bias;
  (void)scratch;
  if (!fast_geom_ok(g) || g->depth_multiplier < 1 ||
      g->out_c != g->in_c * g->depth_multiplier || !p->folded_bias)
    return MPK_ERR_PARAMS;
  const int32_t ch = g->out_c, in_c = g->in_c, dm = g->depth_multiplier;
  const int32_t zp = -p->q.input_offset;
  const mpk_requant *q = &p->q;
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)in_c;
    for (int32_t oy = 0; oy < g->out_h; oy++) {
      const int32_t y0 = oy * g->stride_h - g->pad_h;
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const int32_t x0 = ox * g->stride_w - g->pad_w;
        int8_t *out = output + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                (size_t)ox) * (size_t)ch;
#if defined(MPK_MVE)
        /* lanes are output channels: 4 input channels (multiplier 1), or
         * 4 outputs of the one input channel */
        for (int32_t c = 0; (dm == 1 || in_c == 1) && c < ch; c += 4) {
          mve_pred16_t pr = vctp32q((uint32_t)(ch - c));
          int32x4_t acc = vldrwq_z_s32(p->folded_bias + c, pr);
          const int8_t *f = filter + c;
          for (int32_t fy = 0; fy < g->filter_h; fy++) {
            const int32_t iy = y0 + g->dilation_h * fy;
            for (int32_t fx = 0; fx < g->filter_w; fx++, f += ch) {
              const int32_t ix = x0 + g->dilation_w * fx;
              int32x4_t vf = vldrbq_z_s32(f, pr);
              if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w) {
                acc = vmlaq_n_s32(acc, vf, zp);
              } else {
                const int8_t *x = in_b + ((size_t)iy * (size_t)g->in_w + (size_t)ix) * (size_t)in_c;
                if (dm == 1)
                  acc = vaddq_s32(acc, vmulq_s32(vf, vldrbq_z_s32(x + c, pr)));
                else
                  acc = vmlaq_n_s32(acc, vf, *x);
              }
            }
          }
          int32x4_t mult, shift;
          if (q->per_channel) {
            mult = vldrwq_z_s32(q->multiplier + c, pr);
            shift = vldrwq_z_s32(q->shift + c, pr);
          } else {
            mult = vdupq_n_s32(q->multiplier[0]);
            shift = vdupq_n_s32(q->shift[0]);
          }
          int32x4_t v = vaddq_n_s32(mpk_mbqm_x4(acc, mult, shift), q->output_offset);
          v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(q->act_min)), vdupq_n_s32(q->act_max));
          vstrbq_p_s32(out + c, v, pr);
        }
        if (dm == 1 || in_c == 1) continue;
#endif
        for (int32_t c = 0; c < ch; c++) {
          const int32_t ic = c / dm;
          int32_t acc = p->folded_bias[c];
          const int8_t *f = filter + c;
          for (int32_t fy = 0; fy < g->filter_h; fy++) {
            const int32_t iy = y0 + g->dilation_h * fy;
            for (int32_t fx = 0; fx < g->filter_w; fx++, f += ch) {
              const int32_t ix = x0 + g->dilation_w * fx;
              if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w)
                acc += *f * zp;
              else
                acc += *f * in_b[((size_t)iy * (size_t)g->in_w + (size_t)ix) * (size_t)in_c + ic];
            }
          }
          out[c] = mpk_requant_one(q, acc, c);
        }
      }
    }
  }
  return MPK_OK;
}
