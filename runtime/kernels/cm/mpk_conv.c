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
 *                          Helium, multiplier 1: eight channels at a time
 *                          widened to int16, the even and odd channels'
 *                          products in two int32x4 accumulators held in
 *                          registers over the whole window (a 3x3 window
 *                          wholly in the input straight through), and
 *                          requantised as vectors (with a shorter sequence
 *                          when every channel's shift is a right shift);
 *                          Helium, one input channel: four outputs as the
 *                          lanes of a vector; DSP and portable, multiplier
 *                          1: four channels in four registers; one at a
 *                          time otherwise.
 *
 * DEPTHWISE_CONV_2D does without im2col: a pixel whose window lies in the
 * input uses the folded bias; one at the border starts from the model's
 * bias and adds the input offset, over the taps in the input only.
 *
 * Iteration order (for the in-place contracts, at the end of this file):
 * every kernel walks output pixels in raster order (batch, row, column),
 * two at a time for the convolutions, and nothing is read back from the
 * output.  The 1x1 kernel writes a pair's outputs while it still reads the
 * pair's input pixels (in place, for every block of output channels); the
 * im2col kernel has gathered both columns into its scratch before it writes
 * anything of the pair; the depthwise kernel writes a pixel's channels, four
 * or one at a time, while it still reads that pixel's window for the next
 * ones, as the reference kernel does.
 *
 * Outputs are written at the geometry's output strides (mpk_conv_geom),
 * packed NHWC unless it gives others: each pixel's out_c channels at its
 * own place, never more (the vector stores are predicated to out_c).
 *
 * Not here: grouped convolutions (the lowering keeps the reference kernel
 * for those).
 */
#include "mpk.h"
#include "mpk_simd.h"

static int fast_geom_ok(const mpk_conv_geom *g) {
  return mpk_out_strides_ok(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c > 0 && g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 &&
         g->stride_w > 0 && g->dilation_h > 0 && g->dilation_w > 0;
}

/* Where output pixel `i` (raster index within a batch) starts in its
 * batch's output, at the geometry's output strides (mpk_conv_geom). */
static size_t out_at(const mpk_conv_geom *g, const mpk_out_strides *os, int32_t i) {
  const int32_t oy = i / g->out_w;
  return (size_t)oy * (size_t)os->row + (size_t)(i - oy * g->out_w) * (size_t)os->pixel;
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
  const mpk_out_strides os = mpk_geom_out_strides(g);
  const int rs = mpk_requant_rs(&p->q, g->out_c);
#if defined(MPK_DSP)
  /* DSP, right shifts only and rows in pairs: mpk_matmul2x2_rs_dsp */
  const int pairs_rs = rs && !(g->out_c & 1);
#endif
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    int8_t *out_b = output + (size_t)b * (size_t)os.batch;
    int32_t i = 0;
    for (; i + 2 <= pixels; i += 2) {
#if defined(MPK_DSP)
      if (pairs_rs) {
        mpk_matmul2x2_rs_dsp(filter, p->folded_bias, &p->q, g->out_c, g->in_c,
                             pixel_1x1(g, in_b, i), pixel_1x1(g, in_b, i + 1),
                             out_b + out_at(g, &os, i), out_b + out_at(g, &os, i + 1));
        continue;
      }
#endif
      mpk_matmul_s8_conv(filter, p->folded_bias, &p->q, g->out_c, g->in_c, pixel_1x1(g, in_b, i),
                    pixel_1x1(g, in_b, i + 1), out_b + out_at(g, &os, i),
                    out_b + out_at(g, &os, i + 1), rs);
    }
    if (i < pixels)
      mpk_matmul_s8_conv(filter, p->folded_bias, &p->q, g->out_c, g->in_c, pixel_1x1(g, in_b, i), NULL,
                    out_b + out_at(g, &os, i), NULL, rs);
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
  const int row_whole = g->dilation_w == 1 && x0 >= 0 && x0 + g->filter_w <= g->in_w;
  for (int32_t fy = 0; fy < g->filter_h; fy++) {
    const int32_t iy = y0 + g->dilation_h * fy;
    if (row_whole && iy >= 0 && iy < g->in_h) {
      /* the filter row's taps are contiguous in the input */
      const size_t n = (size_t)g->filter_w * c;
      memcpy(col, in_b + ((size_t)iy * (size_t)g->in_w + (size_t)x0) * c, n);
      col += n;
      continue;
    }
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
  const mpk_out_strides os = mpk_geom_out_strides(g);
  const int rs = mpk_requant_rs(&p->q, g->out_c);
#if defined(MPK_DSP)
  const int pairs_rs = rs && !(g->out_c & 1);
#endif
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    int8_t *out_b = output + (size_t)b * (size_t)os.batch;
    for (int32_t i = 0; i < pixels; i += 2) {
      const int two = i + 1 < pixels;
      gather(g, in_b, i / g->out_w, i % g->out_w, zp, col0);
      if (two) gather(g, in_b, (i + 1) / g->out_w, (i + 1) % g->out_w, zp, col1);
#if defined(MPK_DSP)
      if (two && pairs_rs) {
        mpk_matmul2x2_rs_dsp(filter, p->folded_bias, &p->q, g->out_c, p->col_len, col0, col1,
                             out_b + out_at(g, &os, i), out_b + out_at(g, &os, i + 1));
        continue;
      }
#endif
      mpk_matmul_s8_conv(filter, p->folded_bias, &p->q, g->out_c, p->col_len, col0, two ? col1 : NULL,
                    out_b + out_at(g, &os, i), two ? out_b + out_at(g, &os, i + 1) : NULL, rs);
    }
  }
  return MPK_OK;
}

/* The taps of one output pixel's window that lie in the input: rows
 * fy0 <= fy < fy1 and columns fx0 <= fx < fx1 of the filter; `first` is
 * the input at tap (fy0, fx0); `whole` when no tap is in the padding. */
typedef struct window {
  int32_t fy0, fy1, fx0, fx1;
  const int8_t *first;
  int whole;
} window;

static window window_of(const mpk_conv_geom *g, const int8_t *in_b, int32_t y0, int32_t x0) {
  window w;
  mpk_tap_range(y0, g->dilation_h, g->filter_h, g->in_h, &w.fy0, &w.fy1);
  mpk_tap_range(x0, g->dilation_w, g->filter_w, g->in_w, &w.fx0, &w.fx1);
  w.whole = w.fy0 == 0 && w.fy1 == g->filter_h && w.fx0 == 0 && w.fx1 == g->filter_w;
  w.first = in_b + ((size_t)(y0 + g->dilation_h * w.fy0) * (size_t)g->in_w +
                    (size_t)(x0 + g->dilation_w * w.fx0)) * (size_t)g->in_c;
  return w;
}

#if defined(MPK_MVE)
/* Output channels c .. c+3 of one pixel: lanes are 4 input channels
 * (multiplier 1) or 4 outputs of the one input channel (in_c 1). */
static void dw_lanes(const mpk_conv_s8_fast_params *p, const int8_t *filter, const int32_t *bias,
                     const window *w, int32_t c, int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const mpk_requant *q = &p->q;
  const int32_t ch = g->out_c, off = w->whole ? 0 : q->input_offset;
  const int per_lane = g->depth_multiplier == 1;
  const size_t col = (size_t)g->dilation_w * (size_t)g->in_c;
  const size_t row = (size_t)g->dilation_h * (size_t)g->in_w * (size_t)g->in_c;
  mve_pred16_t pr = vctp32q((uint32_t)(ch - c));
  int32x4_t acc = w->whole ? vldrwq_z_s32(p->folded_bias + c, pr)
                  : bias   ? vldrwq_z_s32(bias + c, pr)
                           : vdupq_n_s32(0);
  const int8_t *xr = per_lane ? w->first + c : w->first;
  for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row) {
    const int8_t *x = xr, *f = filter + ((size_t)fy * (size_t)g->filter_w + (size_t)w->fx0) * (size_t)ch + c;
    for (int32_t fx = w->fx0; fx < w->fx1; fx++, f += ch, x += col) {
      int32x4_t vf = vldrbq_z_s32(f, pr);
      acc = per_lane ? vaddq_s32(acc, vmulq_s32(vf, vaddq_n_s32(vldrbq_z_s32(x, pr), off)))
                     : vmlaq_n_s32(acc, vf, *x + off);
    }
  }
  mpk_requant_store_x4(q, acc, c, ch, out);
}
#endif

#if defined(MPK_MVE)
/* One input channel (in_c 1, depth multiplier out_c: what converters
 * write for a first layer of one channel): output channels c .. c+7 of
 * one pixel in two accumulators, each tap's input loaded once and
 * multiplied into both, no predicates (c + 8 <= out_c). */
static MPK_NOINLINE void dw_c1_x8(const mpk_conv_s8_fast_params *p, const int8_t *filter, const int32_t *bias,
                     const window *w, int32_t c, int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t ch = g->out_c, off = w->whole ? 0 : p->q.input_offset;
  const size_t col = (size_t)g->dilation_w, row = (size_t)g->dilation_h * (size_t)g->in_w;
  const int32_t taps = w->fx1 - w->fx0;
  int32x4_t a0, a1;
  if (w->whole) {
    a0 = vldrwq_s32(p->folded_bias + c);
    a1 = vldrwq_s32(p->folded_bias + c + 4);
  } else if (bias) {
    a0 = vldrwq_s32(bias + c);
    a1 = vldrwq_s32(bias + c + 4);
  } else {
    a0 = a1 = vdupq_n_s32(0);
  }
  const int8_t *xr = w->first;
  for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row) {
    const int8_t *x = xr, *f = filter + ((size_t)fy * (size_t)g->filter_w + (size_t)w->fx0) * (size_t)ch + c;
    for (int32_t k = 0; k < taps; k++, f += ch, x += col) {
      const int32_t v = *x + off;
      a0 = vmlaq_n_s32(a0, vldrbq_s32(f), v);
      a1 = vmlaq_n_s32(a1, vldrbq_s32(f + 4), v);
    }
  }
  mpk_requant_store_x4(&p->q, a0, c, ch, out);
  mpk_requant_store_x4(&p->q, a1, c + 4, ch, out);
}

/* mpk_mbqm on four lanes with the per-lane multiplier m and shift s:
 * mpk_mbqm_x4's arithmetic with the left and right shifts taken from s by
 * one VMAX and one VMIN.  y >> 31 & -right >> 31 is -1 exactly when
 * y < 0 and the right shift is not 0, the lanes mpk_mbqm_x4 lowers by one
 * before its rounding shift. */
static inline int32x4_t dw_mbqm_x4(int32x4_t acc, int32x4_t m, int32x4_t s) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t nright = vminq_s32(s, zero);
  int32x4_t y = vqrdmulhq_s32(vshlq_s32(acc, vmaxq_s32(s, zero)), m);
  y = vqaddq_s32(y, vandq_s32(vshrq_n_s32(y, 31), vshrq_n_s32(nright, 31)));
  return vrshlq_s32(y, nright);
}

/* The even and the odd channels' requantised values, in channel order as
 * eight int16 lanes: each narrowed with saturation (VQMOVNB / VQMOVNT),
 * then the output offset added with saturation and the activation bounds
 * applied on all eight lanes at once.  Saturating to int16 first changes
 * nothing: the bounds lie within int8, and a value the saturation moved is
 * still beyond them after the offset (|output_offset| <= 128). */
static inline int16x8_t dw_requant8(const mpk_requant *q, int32x4_t ve, int32x4_t vo) {
  int16x8_t o = vqmovnbq_s32(vdupq_n_s16(0), ve);
  o = vqmovntq_s32(o, vo);
  o = vqaddq_n_s16(o, (int16_t)q->output_offset);
  o = vmaxq_s16(o, vdupq_n_s16((int16_t)q->act_min));
  return vminq_s16(o, vdupq_n_s16((int16_t)q->act_max));
}

/* One tap of eight channels: the input and filter bytes at x and f
 * widened to int16 (VLDRB.S16), the even channels' products added to ae
 * and the odd channels' to ao (VMULLB / VMULLT, exact).  With border 1
 * the input offset is added first (x + input_offset fits an int16 lane).
 * LOADX / LOADF are the two loads, predicated or not. */
#define MPK_DW_TAP(LOADX, LOADF)                                                           \
  do {                                                                                     \
    int16x8_t vx_ = LOADX;                                                                 \
    if (border) vx_ = vaddq_n_s16(vx_, off);                                               \
    const int16x8_t vf_ = LOADF;                                                           \
    ae = vaddq_s32(ae, vmullbq_int_s16(vx_, vf_));                                         \
    ao = vaddq_s32(ao, vmulltq_int_s16(vx_, vf_));                                         \
  } while (0)

/* The taps of the window in the input for eight channels (MPK_DW_TAP):
 * a whole 3x3 window (k3 1) straight through, any other by its loops. */
#define MPK_DW_TAPS(LX, LF)                                                                \
  if (k3) {                                                                                \
    const int8_t *x = xr, *f = fr;                                                         \
    for (int fy = 0; fy < 3; fy++) {                                                       \
      MPK_DW_TAP(LX, LF);                                                                  \
      x += col, f += ch;                                                                   \
      MPK_DW_TAP(LX, LF);                                                                  \
      x += col, f += ch;                                                                   \
      MPK_DW_TAP(LX, LF);                                                                  \
      x += skip, f += ch;                                                                  \
    }                                                                                      \
  } else {                                                                                 \
    for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row, fr += frow) {                  \
      const int8_t *x = xr, *f = fr;                                                       \
      for (int32_t fx = w->fx0; fx < w->fx1; fx++, x += col, f += ch) MPK_DW_TAP(LX, LF);  \
    }                                                                                      \
  }

/* Every channel of one pixel, depth multiplier 1, eight at a time
 * (MPK_DW_TAPS), each group requantised as two vectors of four, the even
 * and the odd channels, whose multipliers, shifts and starting
 * accumulators are loaded de-interleaved (VLD2; a last group of fewer
 * than eight gathers them with offsets 0, 2, 4, 6 and 1, 3, 5, 7 and
 * loads and stores under a predicate, so that nothing past out_c is
 * touched), then put back into channel order (dw_requant8) and stored as
 * eight bytes.  The accumulators start at acc0: the folded bias for a
 * window wholly in the input (border 0: the taps are plain products), the
 * model's bias (or 0) for one that leaves it (border 1).  Channels are
 * written in increasing order, each group after its taps are read. */
static MPK_ALWAYS_INLINE int32_t dw_pixel8(const mpk_conv_s8_fast_params *p,
                                           const int8_t *filter, const int32_t *acc0,
                                           const window *w, const int border, const int k3,
                                           const int rs, int32_t c, const int whole_only,
                                           int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const mpk_requant *q = &p->q;
  const int32_t ch = g->out_c;
  const size_t col = (size_t)g->dilation_w * (size_t)g->in_c;
  const size_t row = (size_t)g->dilation_h * (size_t)g->in_w * (size_t)g->in_c;
  const size_t frow = (size_t)g->filter_w * (size_t)ch, skip = row - 2 * col;
  const int16_t off = (int16_t)q->input_offset;
  const int8_t *f0 = filter + ((size_t)w->fy0 * (size_t)g->filter_w + (size_t)w->fx0) * (size_t)ch;
  for (; c + 8 <= ch; c += 8) {
    int32x4_t ae = vdupq_n_s32(0), ao = ae;
    if (acc0) {
      const int32x4x2_t a = vld2q_s32(acc0 + c);
      ae = a.val[0];
      ao = a.val[1];
    }
    const int8_t *xr = w->first + c, *fr = f0 + c;
    MPK_DW_TAPS(vldrbq_s16(x), vldrbq_s16(f))
    int16x8_t o;
    if (rs) {
      /* per-channel right shifts only: y = VQRDMULH(acc, m), lowered by
       * one where negative, then VRSHL by the (negative) shift */
      const int32x4x2_t m = vld2q_s32(q->multiplier + c);
      ae = vqrdmulhq_s32(ae, m.val[0]);
      ao = vqrdmulhq_s32(ao, m.val[1]);
      ae = vqaddq_s32(ae, vshrq_n_s32(ae, 31));
      ao = vqaddq_s32(ao, vshrq_n_s32(ao, 31));
      const int32x4x2_t sh = vld2q_s32(q->shift + c);
      o = dw_requant8(q, vrshlq_s32(ae, sh.val[0]), vrshlq_s32(ao, sh.val[1]));
    } else if (q->per_channel) {
      const int32x4x2_t m = vld2q_s32(q->multiplier + c), sh = vld2q_s32(q->shift + c);
      o = dw_requant8(q, dw_mbqm_x4(ae, m.val[0], sh.val[0]), dw_mbqm_x4(ao, m.val[1], sh.val[1]));
    } else {
      const int32x4_t m = vdupq_n_s32(q->multiplier[0]), sh = vdupq_n_s32(q->shift[0]);
      o = dw_requant8(q, dw_mbqm_x4(ae, m, sh), dw_mbqm_x4(ao, m, sh));
    }
    vstrbq_s16(out + c, o);
  }
  if (!whole_only && c < ch) {
    const int32_t rem = ch - c;
    const uint32x4_t ev = vidupq_n_u32(0, 2), od = vidupq_n_u32(1, 2);
    const mve_pred16_t pe = vctp32q((uint32_t)(rem + 1) >> 1), po = vctp32q((uint32_t)rem >> 1);
    const mve_pred16_t p16 = vctp16q((uint32_t)rem);
    int32x4_t ae = acc0 ? vldrwq_gather_shifted_offset_z_s32(acc0 + c, ev, pe) : vdupq_n_s32(0);
    int32x4_t ao = acc0 ? vldrwq_gather_shifted_offset_z_s32(acc0 + c, od, po) : vdupq_n_s32(0);
    const int8_t *xr = w->first + c, *fr = f0 + c;
    MPK_DW_TAPS(vldrbq_z_s16(x, p16), vldrbq_z_s16(f, p16))
    int32x4_t me, mo, se, so;
    if (q->per_channel) {
      me = vldrwq_gather_shifted_offset_z_s32(q->multiplier + c, ev, pe);
      mo = vldrwq_gather_shifted_offset_z_s32(q->multiplier + c, od, po);
      se = vldrwq_gather_shifted_offset_z_s32(q->shift + c, ev, pe);
      so = vldrwq_gather_shifted_offset_z_s32(q->shift + c, od, po);
    } else {
      me = mo = vdupq_n_s32(q->multiplier[0]);
      se = so = vdupq_n_s32(q->shift[0]);
    }
    vstrbq_p_s16(out + c, dw_requant8(q, dw_mbqm_x4(ae, me, se), dw_mbqm_x4(ao, mo, so)), p16);
    c = ch;
  }
  return c;
}
#undef MPK_DW_TAPS
#undef MPK_DW_TAP

/* The specialisations, each a function of its own so that its loops get
 * the registers: the whole groups of eight of a whole 3x3 window and of a
 * window leaving the input, with right shifts only (the common layers),
 * each returning where the rest starts; and any window from channel c on,
 * with the general requantisation and the border flag tested per tap
 * (the rest, and the rarer layers: less code). */
static MPK_NOINLINE int32_t dw_whole8_3x3_rs(const mpk_conv_s8_fast_params *p,
                                             const int8_t *filter, const window *w, int8_t *out) {
  return dw_pixel8(p, filter, p->folded_bias, w, 0, 1, 1, 0, 1, out);
}
static MPK_NOINLINE int32_t dw_border8_rs(const mpk_conv_s8_fast_params *p, const int8_t *filter,
                                          const int32_t *bias, const window *w, int8_t *out) {
  return dw_pixel8(p, filter, bias, w, 1, 0, 1, 0, 1, out);
}
static MPK_NOINLINE void dw_any8(const mpk_conv_s8_fast_params *p, const int8_t *filter,
                                 const int32_t *bias, const window *w, int32_t c, int8_t *out) {
  const int border = !w->whole;
  dw_pixel8(p, filter, border ? bias : p->folded_bias, w, border, 0, 0, c, 0, out);
}
#endif

#if !defined(MPK_MVE)
/* One tap of four channels c .. c+3 into a0 .. a3 (DSP: one word of input
 * and one of filter, each widened in pairs by SXTB16, SMLABB / SMLATT per
 * channel; with border 1 the input offset is added to both halves first).
 * x and f point at the tap's channel c. */
#if defined(MPK_DSP)
#define MPK_DW_TAP4(x, f)                                                                  \
  do {                                                                                     \
    uint32_t xw_, fw_;                                                                     \
    memcpy(&xw_, x, 4);                                                                    \
    memcpy(&fw_, f, 4);                                                                    \
    int32_t xe_ = mpk_even16(xw_), xo_ = mpk_odd16(xw_);                                   \
    if (border) xe_ = (int32_t)__sadd16(xe_, off2), xo_ = (int32_t)__sadd16(xo_, off2);    \
    const int32_t fe_ = mpk_even16(fw_), fo_ = mpk_odd16(fw_);                             \
    a0 = __smlabb(xe_, fe_, a0);                                                           \
    a1 = __smlabb(xo_, fo_, a1);                                                           \
    a2 = __smlatt(xe_, fe_, a2);                                                           \
    a3 = __smlatt(xo_, fo_, a3);                                                           \
  } while (0)
#else
#define MPK_DW_TAP4(x, f)                                                                  \
  do {                                                                                     \
    a0 += (f)[0] * ((x)[0] + off);                                                         \
    a1 += (f)[1] * ((x)[1] + off);                                                         \
    a2 += (f)[2] * ((x)[2] + off);                                                         \
    a3 += (f)[3] * ((x)[3] + off);                                                         \
  } while (0)
#endif

/* One input channel (in_c 1, depth multiplier out_c): output channels
 * c .. c+3 of one pixel in four accumulators, each tap's input loaded
 * once (DSP: the filter word widened in pairs by SXTB16, then SMLABB /
 * SMLATB by the input per channel); c + 4 <= out_c. */
static MPK_NOINLINE void dw_c1_x4(const mpk_conv_s8_fast_params *p, const int8_t *filter, const int32_t *bias,
                     const window *w, int32_t c, int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t ch = g->out_c, off = w->whole ? 0 : p->q.input_offset;
  const size_t col = (size_t)g->dilation_w, row = (size_t)g->dilation_h * (size_t)g->in_w;
  const int32_t taps = w->fx1 - w->fx0;
  const int32_t *b0 = w->whole ? p->folded_bias : bias;
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  if (b0) a0 = b0[c], a1 = b0[c + 1], a2 = b0[c + 2], a3 = b0[c + 3];
  const int8_t *xr = w->first;
  for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row) {
    const int8_t *x = xr, *f = filter + ((size_t)fy * (size_t)g->filter_w + (size_t)w->fx0) * (size_t)ch + c;
    for (int32_t k = 0; k < taps; k++, f += ch, x += col) {
      const int32_t v = *x + off;
#if defined(MPK_DSP)
      uint32_t fw;
      memcpy(&fw, f, 4);
      const int32_t fe = mpk_even16(fw), fo = mpk_odd16(fw);
      a0 = __smlabb(fe, v, a0);
      a1 = __smlabb(fo, v, a1);
      a2 = __smlatb(fe, v, a2);
      a3 = __smlatb(fo, v, a3);
#else
      a0 += f[0] * v;
      a1 += f[1] * v;
      a2 += f[2] * v;
      a3 += f[3] * v;
#endif
    }
  }
  out[c] = mpk_requant_one(&p->q, a0, c);
  out[c + 1] = mpk_requant_one(&p->q, a1, c + 1);
  out[c + 2] = mpk_requant_one(&p->q, a2, c + 2);
  out[c + 3] = mpk_requant_one(&p->q, a3, c + 3);
}

/* Every whole group of four channels of one pixel, depth multiplier 1
 * (the caller does the rest): four accumulators in registers over the
 * window's taps (a whole 3x3 window of dilation 1, k3 1, straight
 * through), starting at
 * acc0 (the folded bias, border 0) or the model's bias or 0 (border 1,
 * each tap adds the input offset), then requantised (mpk_requant_rs_one
 * when every shift is a right shift, rs 1).  Channels are written in
 * increasing order, each group after its taps are read.  Returns where
 * the rest starts. */
static MPK_ALWAYS_INLINE int32_t dw_pixel4(const mpk_conv_s8_fast_params *p,
                                           const int8_t *filter, const int32_t *acc0,
                                           const window *w, const int border, const int k3,
                                           const int rs, int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const mpk_requant *q = &p->q;
  const int32_t ch = g->out_c, off = border ? q->input_offset : 0;
  const size_t col = (size_t)g->dilation_w * (size_t)g->in_c;
  const size_t row = (size_t)g->dilation_h * (size_t)g->in_w * (size_t)g->in_c;
  const size_t frow = (size_t)g->filter_w * (size_t)ch;
#if defined(MPK_DSP)
  const int32_t off2 = (int32_t)(((uint32_t)off & 0xFFFFu) | ((uint32_t)off << 16));
#endif
  const int8_t *f0 = filter + ((size_t)w->fy0 * (size_t)g->filter_w + (size_t)w->fx0) * (size_t)ch;
  int32_t c = 0;
  for (; c + 4 <= ch; c += 4) {
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (acc0) a0 = acc0[c], a1 = acc0[c + 1], a2 = acc0[c + 2], a3 = acc0[c + 3];
    if (k3) {
      /* the column step is ch (dilation 1, multiplier 1): one stride
       * register for both pointers, the nine taps written out */
      const int8_t *x = w->first + c, *f = f0 + c;
      MPK_DW_TAP4(x, f);
      MPK_DW_TAP4(x + ch, f + ch);
      MPK_DW_TAP4(x + 2 * ch, f + 2 * ch);
      x += row, f += 3 * ch;
      MPK_DW_TAP4(x, f);
      MPK_DW_TAP4(x + ch, f + ch);
      MPK_DW_TAP4(x + 2 * ch, f + 2 * ch);
      x += row, f += 3 * ch;
      MPK_DW_TAP4(x, f);
      MPK_DW_TAP4(x + ch, f + ch);
      MPK_DW_TAP4(x + 2 * ch, f + 2 * ch);
    } else {
      const int8_t *xr = w->first + c, *fr = f0 + c;
      for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row, fr += frow) {
        const int8_t *x = xr, *f = fr;
        for (int32_t fx = w->fx0; fx < w->fx1; fx++, x += col, f += ch) MPK_DW_TAP4(x, f);
      }
    }
    if (rs) {
      /* per channel (the depthwise quantisation), by mpk_mbqm_r2 */
      const int32_t oo = q->output_offset, lo = q->act_min, hi = q->act_max;
      const int32_t *m = q->multiplier + c, *sh = q->shift + c;
      a0 = mpk_clamp_i32(mpk_mbqm_r2(a0, m[0], sh[0]) + oo, lo, hi);
      a1 = mpk_clamp_i32(mpk_mbqm_r2(a1, m[1], sh[1]) + oo, lo, hi);
      a2 = mpk_clamp_i32(mpk_mbqm_r2(a2, m[2], sh[2]) + oo, lo, hi);
      a3 = mpk_clamp_i32(mpk_mbqm_r2(a3, m[3], sh[3]) + oo, lo, hi);
      out[c] = (int8_t)a0;
      out[c + 1] = (int8_t)a1;
      out[c + 2] = (int8_t)a2;
      out[c + 3] = (int8_t)a3;
    } else {
      out[c] = mpk_requant_one(q, a0, c);
      out[c + 1] = mpk_requant_one(q, a1, c + 1);
      out[c + 2] = mpk_requant_one(q, a2, c + 2);
      out[c + 3] = mpk_requant_one(q, a3, c + 3);
    }
  }
  return c;
}
#undef MPK_DW_TAP4

/* The specialisations, each a function of its own: a whole 3x3 window
 * with right shifts only, any whole window, a window that leaves the
 * input (right shifts only, or any). */
static MPK_NOINLINE int32_t dw_whole4_3x3_rs(const mpk_conv_s8_fast_params *p,
                                             const int8_t *filter, const window *w, int8_t *out) {
  return dw_pixel4(p, filter, p->folded_bias, w, 0, 1, 1, out);
}
static MPK_NOINLINE int32_t dw_whole4(const mpk_conv_s8_fast_params *p, const int8_t *filter,
                                      const window *w, int8_t *out) {
  return dw_pixel4(p, filter, p->folded_bias, w, 0, 0, 0, out);
}
static MPK_NOINLINE int32_t dw_border4_rs(const mpk_conv_s8_fast_params *p,
                                          const int8_t *filter, const int32_t *bias,
                                          const window *w, int8_t *out) {
  return dw_pixel4(p, filter, bias, w, 1, 0, 1, out);
}
static MPK_NOINLINE int32_t dw_border4(const mpk_conv_s8_fast_params *p, const int8_t *filter,
                                       const int32_t *bias, const window *w, int8_t *out) {
  return dw_pixel4(p, filter, bias, w, 1, 0, 0, out);
}
#endif

/* Output channels from c0 on of one pixel, one at a time. */
static void dw_scalar(const mpk_conv_s8_fast_params *p, const int8_t *filter, const int32_t *bias,
                      const window *w, int32_t c0, int8_t *out) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t ch = g->out_c, dm = g->depth_multiplier;
  const int32_t off = w->whole ? 0 : p->q.input_offset;
  const size_t col = (size_t)g->dilation_w * (size_t)g->in_c;
  const size_t row = (size_t)g->dilation_h * (size_t)g->in_w * (size_t)g->in_c;
  for (int32_t ic = c0 / dm, c = c0; ic < g->in_c; ic++) {
    for (int32_t m = c - ic * dm; m < dm; m++, c++) {
      int32_t acc = w->whole ? p->folded_bias[c] : bias ? bias[c] : 0;
      const int8_t *xr = w->first + ic;
      for (int32_t fy = w->fy0; fy < w->fy1; fy++, xr += row) {
        const int8_t *x = xr;
        const int8_t *f = filter + ((size_t)fy * (size_t)g->filter_w + (size_t)w->fx0) * (size_t)ch + c;
        for (int32_t fx = w->fx0; fx < w->fx1; fx++, f += ch, x += col)
          acc += *f * (*x + off);
      }
      out[c] = mpk_requant_one(&p->q, acc, c);
    }
  }
}

MPK_API int32_t mpk_depthwise_conv2d_s8_fast(const mpk_conv_s8_fast_params *p,
                                             const int8_t *input, const int8_t *filter,
                                             const int32_t *bias, int8_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!fast_geom_ok(g) || g->depth_multiplier < 1 ||
      g->out_c != g->in_c * g->depth_multiplier || !p->folded_bias)
    return MPK_ERR_PARAMS;
  const mpk_out_strides os = mpk_geom_out_strides(g);
  const int rs = g->depth_multiplier == 1 && mpk_requant_rs(&p->q, g->out_c);
  const int k3rs = rs && g->filter_h == 3 && g->filter_w == 3 && g->dilation_w == 1;
  for (int32_t b = 0; b < g->batches; b++) {
    const int8_t *in_b = input + (size_t)b * (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    for (int32_t oy = 0; oy < g->out_h; oy++) {
      const int32_t y0 = oy * g->stride_h - g->pad_h;
      for (int32_t ox = 0; ox < g->out_w; ox++) {
        const window w = window_of(g, in_b, y0, ox * g->stride_w - g->pad_w);
        int8_t *out = output + (size_t)b * (size_t)os.batch + (size_t)oy * (size_t)os.row +
                      (size_t)ox * (size_t)os.pixel;
        int32_t c = 0;
#if defined(MPK_MVE)
        if (g->depth_multiplier == 1) {
          if (w.whole && k3rs)
            c = dw_whole8_3x3_rs(p, filter, &w, out);
          else if (!w.whole && rs)
            c = dw_border8_rs(p, filter, bias, &w, out);
          if (c < g->out_c) dw_any8(p, filter, bias, &w, c, out);
          c = g->out_c;
        } else if (g->in_c == 1) {
          for (; c + 8 <= g->out_c; c += 8) dw_c1_x8(p, filter, bias, &w, c, out);
          for (; c < g->out_c; c += 4) dw_lanes(p, filter, bias, &w, c, out);
        }
#else
        if (g->depth_multiplier == 1) {
          if (w.whole && k3rs)
            c = dw_whole4_3x3_rs(p, filter, &w, out);
          else if (w.whole)
            c = dw_whole4(p, filter, &w, out);
          else if (rs)
            c = dw_border4_rs(p, filter, bias, &w, out);
          else
            c = dw_border4(p, filter, bias, &w, out);
        } else if (g->in_c == 1)
          for (; c + 4 <= g->out_c; c += 4) dw_c1_x4(p, filter, bias, &w, c, out);
#endif
        if (c < g->out_c) dw_scalar(p, filter, bias, &w, c, out);
      }
    }
  }
  return MPK_OK;
}

/* ---- overlap contracts (mpk.h) ------------------------------------------ */

/* The lowest input byte the window of output pixel (b, oy, ox) reads: its
 * first tap inside the input, channel 0; -1 when every tap is in the
 * padding (nothing is read). */
static int64_t lowest_read(const mpk_conv_geom *g, int32_t b, int32_t oy, int32_t ox) {
  int32_t fy0, fy1, fx0, fx1;
  const int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
  mpk_tap_range(y0, g->dilation_h, g->filter_h, g->in_h, &fy0, &fy1);
  mpk_tap_range(x0, g->dilation_w, g->filter_w, g->in_w, &fx0, &fx1);
  if (fy0 >= fy1 || fx0 >= fx1) return -1;
  return (((int64_t)b * g->in_h + y0 + (int64_t)g->dilation_h * fy0) * g->in_w + x0 +
          (int64_t)g->dilation_w * fx0) *
         g->in_c;
}

/* The gap of a kernel that visits the output pixels of each batch in steps
 * of `step` consecutive pixels (raster order) and writes a step's outputs
 * either while still reading the step's windows (read_first 0) or after
 * reading all of them (read_first 1).  When the step ending at pixel E
 * (exclusive, counted over all batches) is written, its writes end at
 * W = E * out_c, and the input still to be read starts at the lowest byte
 * of the windows from the step's first pixel on (read_first 0) or from the
 * next step's on (read_first 1).  The writes are safe when
 * O + W <= I + that byte for every step: the gap is the largest difference.
 * The suffix minimum is taken walking the steps backwards. */
static int64_t steps_gap(const mpk_conv_geom *g, int32_t step, int read_first) {
  if (!fast_geom_ok(g) || !mpk_out_packed(g)) return MPK_NO_OVERLAP;
  const int32_t pixels = g->out_h * g->out_w;
  int64_t after = INT64_MAX, gap = INT64_MIN;
  for (int32_t b = g->batches - 1; b >= 0; b--)
    for (int32_t s = (pixels - 1) / step * step; s >= 0; s -= step) {
      const int32_t e = s + step < pixels ? s + step : pixels;
      int64_t from = after;
      for (int32_t i = s; i < e; i++) {
        const int64_t r = lowest_read(g, b, i / g->out_w, i % g->out_w);
        if (r >= 0 && r < from) from = r;
      }
      const int64_t unread = read_first ? after : from;
      after = from;
      if (unread == INT64_MAX) continue; /* nothing is read from here on */
      const int64_t w = ((int64_t)b * pixels + e) * g->out_c;
      if (w - unread > gap) gap = w - unread;
    }
  return gap == INT64_MIN ? INT64_MIN / 2 : gap;
}

/* mpk_conv2d_s8_1x1: pixels in pairs, each pair's outputs written while
 * its two input pixels are still read for the next block of channels. */
int64_t mpk_conv2d_s8_1x1_overlap_gap(const mpk_conv_geom *g) { return steps_gap(g, 2, 0); }

/* mpk_conv2d_s8_im2col: pixels in pairs, both windows gathered into the
 * scratch before the pair is written, so a pair's outputs may cover its
 * own windows, not the next pair's. */
int64_t mpk_conv2d_s8_im2col_overlap_gap(const mpk_conv_geom *g) { return steps_gap(g, 2, 1); }

/* mpk_depthwise_conv2d_s8_fast: one pixel at a time, its channels written
 * while its window is still read: the reference order, so the reference
 * contract (mpk_conv.c) for int8 in and out. */
int64_t mpk_depthwise_conv2d_s8_fast_overlap_gap(const mpk_conv_geom *g) {
  if (!fast_geom_ok(g)) return MPK_NO_OVERLAP;
  return mpk_conv2d_overlap_gap(g, 1, 1);
}
