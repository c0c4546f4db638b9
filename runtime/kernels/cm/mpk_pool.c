/*
 * mpk_pool_fast.c — the specialised int8 AVERAGE_POOL_2D and MAX_POOL_2D a
 * module built for a Cortex-M target runs (module.target): the reference
 * kernels' arithmetic (mpk_pool.c: the window clipped to the input, the
 * average rounded half away from zero over the taps inside, the maximum
 * from -128, both clamped to the activation) with the channels of a pixel
 * in blocks held in registers over the whole window:
 *
 *   max pool   Helium: 16 channels per VMAX; DSP: 4 per SSUB8 + SEL (the
 *              byte-wise signed compare sets the GE flags SEL reads);
 *   avg pool   Helium: 8 channels per widening load and int16 add when
 *              the window has at most 255 taps (so that no lane can
 *              overflow), else 4 per int32 add, divided by the tap count
 *              as a multiply-high by its reciprocal (exact, below); DSP: 4 channels in two registers of int16 halves
 *              (SXTAB16) when the window has at most 256 taps, so that no
 *              half can overflow; portable C otherwise, one channel at a
 *              time.
 *
 * The division: for a count of taps d >= 2 and u = |sum| + d / 2, with
 * M = floor((2^32 - 1) / d) + 1 = ceil(2^32 / d) and e = M d - 2^32 < d,
 * floor(u M / 2^32) = floor(u / d) whenever u e < 2^32 (write u = q d + r:
 * u M / 2^32 = q + (r + u e / 2^32) / d, and r <= d - 1).  |sum| <= 128 d,
 * so u < 129 d and d < 5760 is enough; a larger window divides per lane.
 *
 * Iteration order (for the in-place contracts, at the end of this file):
 * output pixels in raster order; a pixel's channels are written block by
 * block while its window is still read for the next block; nothing is
 * read back from the output.  Outputs go at the geometry's output strides
 * (mpk_conv_geom), packed NHWC by default.
 */
#include "mpk.h"
#include "mpk_simd.h"

static int pool_geom_ok(const mpk_conv_geom *g) {
  return mpk_out_strides_ok(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c == g->in_c && g->filter_h > 0 && g->filter_w > 0 &&
         g->stride_h > 0 && g->stride_w > 0;
}

/* The window of output pixel (oy, ox) clipped to the input: rows
 * [fy0, fy1) and columns [fx0, fx1) of the filter, `first` the input at
 * tap (fy0, fx0); empty when fy0 >= fy1 or fx0 >= fx1. */
typedef struct pwin {
  int32_t fy0, fy1, fx0, fx1;
  const int8_t *first;
} pwin;

static pwin clip(const mpk_conv_geom *g, const int8_t *in_b, int32_t oy, int32_t ox) {
  pwin w;
  const int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
  w.fy0 = mpk_max_i32(0, -y0);
  w.fy1 = mpk_min_i32(g->filter_h, g->in_h - y0);
  w.fx0 = mpk_max_i32(0, -x0);
  w.fx1 = mpk_min_i32(g->filter_w, g->in_w - x0);
  w.first = in_b + ((size_t)(y0 + w.fy0) * (size_t)g->in_w + (size_t)(x0 + w.fx0)) * (size_t)g->in_c;
  return w;
}

/* The reference's rounded average of `acc` over `count` taps. */
static int32_t average(int32_t acc, int32_t count) {
  return acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
}

/* One pixel of the average, channels c0 .. in_c - 1, one at a time. */
static void avg_scalar(const mpk_pool_s8_params *p, const pwin *w, int32_t c0, int32_t count,
                       int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const size_t row = (size_t)g->in_w * (size_t)g->in_c, col = (size_t)g->in_c;
  for (int32_t c = c0; c < g->in_c; c++) {
    int32_t acc = 0;
    const int8_t *xr = w->first + c;
    for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row) {
      const int8_t *x = xr;
      for (int32_t fx = w->fx0; fx < w->fx1; fx++, x += col) acc += *x;
    }
    out[c] = (int8_t)mpk_clamp_i32(average(acc, count), p->act_min, p->act_max);
  }
}

MPK_API int32_t mpk_avg_pool2d_s8_fast(const mpk_pool_s8_params *p, const int8_t *input,
                                       int8_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!pool_geom_ok(g)) return MPK_ERR_PARAMS;
  const mpk_out_strides os = mpk_geom_out_strides(g);
  const size_t row = (size_t)g->in_w * (size_t)g->in_c;
#if defined(MPK_MVE) || defined(MPK_DSP)
  const size_t col = (size_t)g->in_c;
#endif
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * row;
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const pwin w = clip(g, in_b, oy, ox);
        if (w.fy1 <= w.fy0 || w.fx1 <= w.fx0) return MPK_ERR_PARAMS;
        const int32_t count = (w.fy1 - w.fy0) * (w.fx1 - w.fx0);
        int8_t *out = output + (size_t)b * (size_t)os.batch + (size_t)oy * (size_t)os.row +
                      (size_t)ox * (size_t)os.pixel;
        int32_t c = 0;
#if defined(MPK_MVE)
        if (count >= 2 && count <= 255) {
          /* eight channels per int16 lane group: |sum| <= 128 * 255 fits */
          const uint32x4_t m = vdupq_n_u32(0xFFFFFFFFu / (uint32_t)count + 1u);
          const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
          for (; c < g->in_c; c += 8) {
            const mve_pred16_t pr = vctp16q((uint32_t)(g->in_c - c));
            int16x8_t acc = vdupq_n_s16(0);
            const int8_t *xr = w.first + c;
            for (int32_t fy = w.fy0; fy < w.fy1; fy++, xr += row) {
              const int8_t *x = xr;
              for (int32_t fx = w.fx0; fx < w.fx1; fx++, x += col)
                acc = vaddq_s16(acc, vldrbq_z_s16(x, pr));
            }
            /* the even and the odd lanes widened, divided as below */
            int32x4_t qv[2];
            for (int h = 0; h < 2; h++) {
              const int32x4_t a = h ? vmovltq_s16(acc) : vmovlbq_s16(acc);
              const uint32x4_t u = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(a), count / 2));
              int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(u, m));
              q = vpselq_s32(vnegq_s32(q), q, vcmpltq_n_s32(a, 0));
              qv[h] = vminq_s32(vmaxq_s32(q, lo), hi);
            }
            vstrbq_p_s16(out + c, vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), qv[0]), qv[1]), pr);
          }
        } else if (count >= 2 && count < 5760) {
          const uint32_t m = 0xFFFFFFFFu / (uint32_t)count + 1u;
          const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
          for (; c < g->in_c; c += 4) {
            mve_pred16_t pr = vctp32q((uint32_t)(g->in_c - c));
            int32x4_t acc = vdupq_n_s32(0);
            const int8_t *xr = w.first + c;
            for (int32_t fy = w.fy0; fy < w.fy1; fy++, xr += row) {
              const int8_t *x = xr;
              for (int32_t fx = w.fx0; fx < w.fx1; fx++, x += col)
                acc = vaddq_s32(acc, vldrbq_z_s32(x, pr));
            }
            uint32x4_t u = vreinterpretq_u32_s32(vaddq_n_s32(vabsq_s32(acc), count / 2));
            int32x4_t q = vreinterpretq_s32_u32(vmulhq_u32(u, vdupq_n_u32(m)));
            q = vpselq_s32(vnegq_s32(q), q, vcmpltq_n_s32(acc, 0));
            vstrbq_p_s32(out + c, vminq_s32(vmaxq_s32(q, lo), hi), pr);
          }
        }
#elif defined(MPK_DSP)
        if (count <= 256)
          for (; c + 4 <= g->in_c; c += 4) {
            /* channels c, c+2 and c+1, c+3 as int16 halves */
            uint32_t even = 0, odd = 0;
            const int8_t *xr = w.first + c;
            for (int32_t fy = w.fy0; fy < w.fy1; fy++, xr += row) {
              const int8_t *x = xr;
              for (int32_t fx = w.fx0; fx < w.fx1; fx++, x += col) {
                uint32_t v;
                memcpy(&v, x, 4);
                even = (uint32_t)__sxtab16((int32_t)even, (int32_t)v);
                odd = mpk_add_odd16(odd, v);
              }
            }
            out[c] = (int8_t)mpk_clamp_i32(average((int16_t)even, count), p->act_min, p->act_max);
            out[c + 1] = (int8_t)mpk_clamp_i32(average((int16_t)odd, count), p->act_min, p->act_max);
            out[c + 2] = (int8_t)mpk_clamp_i32(average((int16_t)(even >> 16), count), p->act_min,
                                               p->act_max);
            out[c + 3] = (int8_t)mpk_clamp_i32(average((int16_t)(odd >> 16), count), p->act_min,
                                               p->act_max);
          }
#endif
        if (c < g->in_c) avg_scalar(p, &w, c, count, out);
      }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_max_pool2d_s8_fast(const mpk_pool_s8_params *p, const int8_t *input,
                                       int8_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!pool_geom_ok(g)) return MPK_ERR_PARAMS;
  const mpk_out_strides os = mpk_geom_out_strides(g);
  const size_t row = (size_t)g->in_w * (size_t)g->in_c, col = (size_t)g->in_c;
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * row;
    for (int32_t oy = 0; oy < g->out_h; oy++)
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const pwin w = clip(g, in_b, oy, ox);
        int8_t *out = output + (size_t)b * (size_t)os.batch + (size_t)oy * (size_t)os.row +
                      (size_t)ox * (size_t)os.pixel;
        int32_t c = 0;
#if defined(MPK_MVE)
        const int8x16_t lo = vdupq_n_s8((int8_t)p->act_min), hi = vdupq_n_s8((int8_t)p->act_max);
        for (; c < g->in_c; c += 16) {
          mve_pred16_t pr = vctp8q((uint32_t)(g->in_c - c));
          int8x16_t m = vdupq_n_s8(-128);
          const int8_t *xr = w.first + c;
          for (int32_t fy = w.fy0; fy < w.fy1; fy++, xr += row) {
            const int8_t *x = xr;
            for (int32_t fx = w.fx0; fx < w.fx1; fx++, x += col) m = vmaxq_s8(m, vldrbq_z_s8(x, pr));
          }
          vstrbq_p_s8(out + c, vminq_s8(vmaxq_s8(m, lo), hi), pr);
        }
#elif defined(MPK_DSP)
        const uint32_t lo = 0x01010101u * (uint8_t)p->act_min, hi = 0x01010101u * (uint8_t)p->act_max;
        for (; c + 4 <= g->in_c; c += 4) {
          uint32_t m = 0x80808080u;
          const int8_t *xr = w.first + c;
          for (int32_t fy = w.fy0; fy < w.fy1; fy++, xr += row) {
            const int8_t *x = xr;
            for (int32_t fx = w.fx0; fx < w.fx1; fx++, x += col) {
              uint32_t v;
              memcpy(&v, x, 4);
              m = mpk_max4_s8(v, m);
            }
          }
          m = mpk_min4_s8(mpk_max4_s8(m, lo), hi);
          memcpy(out + c, &m, 4);
        }
#endif
        for (; c < g->in_c; c++) {
          int32_t m = -128;
          const int8_t *xr = w.first + c;
          for (int32_t fy = w.fy0; fy < w.fy1; fy++, xr += row) {
            const int8_t *x = xr;
            for (int32_t fx = w.fx0; fx < w.fx1; fx++, x += col) m = *x > m ? *x : m;
          }
          out[c] = (int8_t)mpk_clamp_i32(m, p->act_min, p->act_max);
        }
      }
  }
  return MPK_OK;
}

/* Overlap contract (mpk.h), both kernels: the reference pooling order
 * (mpk_pool.c) — each pixel's channels written while its window, which
 * starts at the same first tap, is still read for the next ones — so the
 * reference contract for int8 in and out. */
int64_t mpk_pool2d_s8_fast_overlap_gap(const mpk_conv_geom *g) {
  if (!pool_geom_ok(g)) return MPK_NO_OVERLAP;
  return mpk_pool2d_overlap_gap(g, 1, 1);
}
