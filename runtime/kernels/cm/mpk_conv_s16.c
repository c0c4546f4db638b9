/*
 * mpk_conv_s16_fast.c — the specialised 16x8 CONV_2D, DEPTHWISE_CONV_2D
 * and FULLY_CONNECTED a module built for a Cortex-M target runs
 * (module.target): int16 activations (zero point 0), int8 weights (zero
 * point 0), int64 biases and accumulators, the reference kernels'
 * requantisation (mpk_requant_i64) and so their bytes (mpk_conv.c,
 * mpk_fc.c), with the reference kernels' params.  A CONV_2D without a bias
 * or with an int32 one (mpk_conv2d_s16_acc32_fast) takes the same 64-bit
 * dot products modulo 2^32: the int32 sums of mpk_conv2d_s16_acc32, which
 * wrap as TFLite Micro's do, then the int8 requantisation.
 *
 * The one idea: every output is a dot product of int16 inputs with int8
 * weights, summed in 64 bits.  Helium multiplies eight pairs and adds them
 * to a 64-bit accumulator per VMLALDAVA (the weights widened as they are
 * loaded); the DSP extension two pairs per SMLALD, after SXTB16 widens the
 * weights' even and odd bytes and the inputs are paired to match; portable
 * C one at a time.  A convolution's column is its input pixel, read in
 * place, for a 1x1 filter without padding, and otherwise gathered into the
 * op-local scratch (filter_h * filter_w * in_c int16, zero in the padding:
 * the input zero point is 0).  The depthwise kernel sums four channels per
 * Helium vector in 32-bit lanes when the filter has at most 511 taps (each
 * product is below 2^22 in magnitude, so 511 of them fit), then adds the
 * bias and requantises in 64 bits; one channel at a time otherwise.
 *
 * Iteration order: outputs in storage order, each written after the
 * products it sums; no overlap contract (the reference 16x8 kernels have
 * none, and neither do these).
 */
#include "mpk.h"
#include "mpk_simd.h"

/* sum of x[i] * f[i] over i < n, in 64 bits */
static int64_t dot_s16x8(const int16_t *x, const int8_t *f, int32_t n) {
  int64_t acc = 0;
  int32_t i = 0;
#if defined(MPK_MVE)
  for (; i < n; i += 8) {
    mve_pred16_t pr = vctp16q((uint32_t)(n - i));
    acc = vmlaldavaq_s16(acc, vldrhq_z_s16(x + i, pr), vldrbq_z_s16(f + i, pr));
  }
#elif defined(MPK_DSP)
  for (; i + 4 <= n; i += 4) {
    uint32_t xa, xb, fw;
    memcpy(&xa, x + i, 4);
    memcpy(&xb, x + i + 2, 4);
    memcpy(&fw, f + i, 4);
    /* x0, x2 and x1, x3 against the weights' bytes 0, 2 and 1, 3 */
    const uint32_t xe = (xa & 0xFFFFu) | (xb << 16), xo = (xa >> 16) | (xb & 0xFFFF0000u);
    acc = __smlald((int32_t)xe, mpk_even16(fw), acc);
    acc = __smlald((int32_t)xo, mpk_odd16(fw), acc);
  }
#endif
  for (; i < n; i++) acc += (int32_t)x[i] * f[i];
  return acc;
}

static int16_t out_s16(const mpk_requant *q, int64_t acc, const int64_t *bias, int32_t o) {
  return (int16_t)mpk_requant_i64(q, acc + (bias ? bias[o] : 0), o);
}

/* the 32-bit form (mpk_conv2d_s16_acc32): the sum taken modulo 2^32, as
 * TFLite Micro's int32 accumulator wraps, plus the int32 bias */
static int16_t out_s16_acc32(const mpk_requant *q, int64_t acc, const int32_t *bias, int32_t o) {
  const uint32_t sum = (uint32_t)(uint64_t)acc + (bias ? (uint32_t)bias[o] : 0u);
  return (int16_t)mpk_requant_i32(q, (int32_t)sum, o);
}

static int offsets_zero(const mpk_requant *q) {
  return q->input_offset == 0 && q->filter_offset == 0 && q->output_offset == 0;
}

MPK_API int32_t mpk_fully_connected_s16_fast(const mpk_fc_s8_params *p, const int16_t *input,
                                             const int8_t *filter, const int64_t *bias,
                                             int16_t *output, void *scratch) {
  (void)scratch;
  if (p->batches <= 0 || p->accum_depth <= 0 || p->out_depth <= 0 || !offsets_zero(&p->q))
    return MPK_ERR_PARAMS;
  const size_t k = (size_t)p->accum_depth;
  for (int32_t b = 0; b < p->batches; b++) {
    const int16_t *x = input + (size_t)b * k;
    int16_t *out = output + (size_t)b * (size_t)p->out_depth;
    for (int32_t o = 0; o < p->out_depth; o++)
      out[o] = out_s16(&p->q, dot_s16x8(x, filter + (size_t)o * k, p->accum_depth), bias, o);
  }
  return MPK_OK;
}

static int s16_geom_ok(const mpk_conv_geom *g) {
  return mpk_out_packed(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c > 0 && g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 &&
         g->stride_w > 0 && g->dilation_h > 0 && g->dilation_w > 0;
}

/* Does a 16x8 CONV_2D read its columns in place (a 1x1 filter, no
 * padding)?  Otherwise it gathers them into filter_h * filter_w * in_c
 * int16 of scratch. */
int mpk_conv2d_s16_fast_direct(const mpk_conv_geom *g) {
  return g->filter_h == 1 && g->filter_w == 1 && g->pad_h == 0 && g->pad_w == 0;
}

/* Both forms of the 16x8 CONV_2D: int64 sums and biases (bias32 NULL and
 * acc32 0), or 32-bit ones (acc32 1, bias32 the int32 bias or NULL). */
static int32_t conv2d_s16_fast(const mpk_conv_s8_params *p, const int16_t *input,
                               const int8_t *filter, const int64_t *bias, const int32_t *bias32,
                               int acc32, int16_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int direct = mpk_conv2d_s16_fast_direct(g);
  if (!s16_geom_ok(g) || g->filter_c != g->in_c || !offsets_zero(&p->q) || (!direct && !scratch))
    return MPK_ERR_PARAMS;
  const int32_t k = g->filter_h * g->filter_w * g->in_c;
  const size_t c = (size_t)g->in_c;
  int16_t *col = scratch;
  for (int32_t b = 0; b < g->batches; b++) {
    const int16_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * c;
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
        const int16_t *x;
        if (direct) {
          x = in_b + ((size_t)y0 * (size_t)g->in_w + (size_t)x0) * c;
        } else {
          int16_t *d = col;
          for (int32_t fy = 0; fy < g->filter_h; fy++) {
            const int32_t iy = y0 + g->dilation_h * fy;
            for (int32_t fx = 0; fx < g->filter_w; fx++, d += c) {
              const int32_t ix = x0 + g->dilation_w * fx;
              if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w)
                memset(d, 0, c * sizeof *d);
              else
                memcpy(d, in_b + ((size_t)iy * (size_t)g->in_w + (size_t)ix) * c, c * sizeof *d);
            }
          }
          x = col;
        }
        int16_t *out = output + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * (size_t)g->out_c;
        for (int32_t o = 0; o < g->out_c; o++) {
          const int64_t sum = dot_s16x8(x, filter + (size_t)o * (size_t)k, k);
          out[o] = acc32 ? out_s16_acc32(&p->q, sum, bias32, o) : out_s16(&p->q, sum, bias, o);
        }
      }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_conv2d_s16_fast(const mpk_conv_s8_params *p, const int16_t *input,
                                    const int8_t *filter, const int64_t *bias, int16_t *output,
                                    void *scratch) {
  return conv2d_s16_fast(p, input, filter, bias, NULL, 0, output, scratch);
}

MPK_API int32_t mpk_conv2d_s16_acc32_fast(const mpk_conv_s8_params *p, const int16_t *input,
                                          const int8_t *filter, const int32_t *bias,
                                          int16_t *output, void *scratch) {
  return conv2d_s16_fast(p, input, filter, NULL, bias, 1, output, scratch);
}

MPK_API int32_t mpk_depthwise_conv2d_s16_fast(const mpk_conv_s8_params *p, const int16_t *input,
                                              const int8_t *filter, const int64_t *bias,
                                              int16_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!s16_geom_ok(g) || g->depth_multiplier < 1 || g->out_c != g->in_c * g->depth_multiplier ||
      !offsets_zero(&p->q))
    return MPK_ERR_PARAMS;
  const int32_t ch = g->out_c, dm = g->depth_multiplier;
  const size_t row = (size_t)g->in_w * (size_t)g->in_c;
  for (int32_t b = 0; b < g->batches; b++) {
    const int16_t *in_b = input + (size_t)b * (size_t)g->in_h * row;
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
        int16_t *out = output + (((size_t)b * (size_t)g->out_h + (size_t)oy) * (size_t)g->out_w +
                                 (size_t)ox) * (size_t)ch;
        int32_t fy0, fy1, fx0, fx1;
        mpk_tap_range(y0, g->dilation_h, g->filter_h, g->in_h, &fy0, &fy1);
        mpk_tap_range(x0, g->dilation_w, g->filter_w, g->in_w, &fx0, &fx1);
        int32_t c = 0;
#if defined(MPK_MVE)
        if (dm == 1 && g->filter_h * g->filter_w <= 511)
          for (; c < ch; c += 4) {
            mve_pred16_t pr = vctp32q((uint32_t)(ch - c));
            int32x4_t acc = vdupq_n_s32(0);
            for (int32_t fy = fy0; fy < fy1; fy++)
              for (int32_t fx = fx0; fx < fx1; fx++) {
                const int16_t *x = in_b + (size_t)(y0 + g->dilation_h * fy) * row +
                                   (size_t)(x0 + g->dilation_w * fx) * (size_t)g->in_c + c;
                const int8_t *f = filter + ((size_t)fy * (size_t)g->filter_w + (size_t)fx) * (size_t)ch + c;
                acc = vaddq_s32(acc, vmulq_s32(vldrhq_z_s32(x, pr), vldrbq_z_s32(f, pr)));
              }
            int32_t lanes[4];
            vstrwq_s32(lanes, acc);
            for (int32_t j = 0; j < 4 && c + j < ch; j++)
              out[c + j] = out_s16(&p->q, lanes[j], bias, c + j);
          }
#endif
        for (; c < ch; c++) {
          const int32_t ic = c / dm;
          int64_t acc = 0;
          for (int32_t fy = fy0; fy < fy1; fy++)
            for (int32_t fx = fx0; fx < fx1; fx++)
              acc += (int32_t)in_b[(size_t)(y0 + g->dilation_h * fy) * row +
                                   (size_t)(x0 + g->dilation_w * fx) * (size_t)g->in_c + (size_t)ic] *
                     filter[((size_t)fy * (size_t)g->filter_w + (size_t)fx) * (size_t)ch + (size_t)c];
          out[c] = out_s16(&p->q, acc, bias, c);
        }
      }
  }
  return MPK_OK;
}
