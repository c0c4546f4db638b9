/*
 * mpk_conv_serial_fast.c — the channel-serial DEPTHWISE_CONV_2D (depth
 * multiplier 1, int8) of memory.in_place for a Cortex-M target, with a
 * Helium path and a DSP / portable one (mpk_simd.h).
 *
 * The same walk as the reference kernel (ref/mpk_conv_serial.c), so the
 * same overlap contract and the same one-channel temporary: for channel c,
 * every output pixel of channel c is computed from input channel c into
 * the temporary, then the temporary is written to output channel c.  Only
 * how a channel is computed changes.
 *
 * The one idea: within one channel the window's taps are a handful of
 * constants, so the input offset's share is folded once per channel and
 * per run of rows: a pixel whose taps are all in the input starts from
 * bias + input_offset * (sum of the taps it uses) and adds plain products.
 *   Helium: four output pixels of the channel as the lanes of a vector,
 *           along a row or, when that fills the lanes better (a narrow
 *           feature map), down a column; each tap is one gather load of
 *           the four inputs (VLDRB gather, the channel's stride apart) and
 *           one VMLA by the tap's filter value; the lane axis's border is
 *           a predicate per tap (a lane in the padding reads the input
 *           zero point, which adds nothing net of the folded share), the
 *           other axis's border is skipped with its share; requantised as
 *           a vector, stored to the temporary by a scatter; the temporary
 *           reaches the output eight pixels per scatter store.
 *   DSP and portable: one pixel at a time, its taps in registers (a 3x3
 *           window straight through), the border pixels the reference
 *           way (the offset added per tap).
 * Every path adds the reference kernel's taps with int32 wrap-around and
 * requantises with the reference rounding, so the bytes are the reference
 * kernel's.
 *
 * Not here: the 16x8 and float channel-serial kernels (the reference ones
 * run), a window of more than MPK_SERIAL_MAX_TAPS taps (the portable loop
 * runs it, one tap at a time).
 */
#include "mpk.h"
#include "mpk_simd.h"

/* The largest window whose taps a channel holds in a local table. */
#define MPK_SERIAL_MAX_TAPS 64

static int serial_fast_ok(const mpk_conv_geom *g) {
  return mpk_out_packed(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 &&
         g->out_h > 0 && g->out_w > 0 && g->out_c == g->in_c && g->depth_multiplier == 1 &&
         g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 && g->stride_w > 0 &&
         g->dilation_h > 0 && g->dilation_w > 0;
}

/* The requantisation of channel c: the multiplier and the shift split
 * into a left and a right amount (mpk_mbqm). */
typedef struct chan_q {
  int32_t mult, left, right, out_off, lo, hi;
} chan_q;

static chan_q chan_q_of(const mpk_requant *q, int32_t c) {
  const int32_t i = q->per_channel ? c : 0;
  chan_q r;
  r.mult = q->multiplier[i];
  r.left = q->shift[i] > 0 ? q->shift[i] : 0;
  r.right = q->shift[i] > 0 ? 0 : -q->shift[i];
  r.out_off = q->output_offset;
  r.lo = q->act_min;
  r.hi = q->act_max;
  return r;
}

static inline int8_t requant_scalar(const chan_q *k, int32_t acc) {
  int32_t v;
  if (k->left == 0 && k->mult >= 0 && k->right <= 31)
    v = mpk_mbqm_rs(acc, k->mult, -k->right);
  else
    v = mpk_mbqm(acc, k->mult, k->left - k->right);
  return (int8_t)mpk_clamp_i32(v + k->out_off, k->lo, k->hi);
}

/* bias + off * taps modulo 2^32, as the int32 accumulators wrap. */
static inline int32_t folded(int32_t bias, int32_t off, int32_t taps) {
  return (int32_t)((uint32_t)bias + (uint32_t)off * (uint32_t)taps);
}

#if defined(MPK_MVE)
/* One axis of the window walk: output and input sizes, stride, dilation,
 * padding, taps; and the steps of one index along it in the input
 * (elements), in the channel's tap table and in the temporary. */
typedef struct axis {
  int32_t out, in, stride, dil, pad, taps;
  int32_t in_step, tap_step, tmp_step;
} axis;

/* mpk_mbqm on four lanes for one channel (mpk_mbqm_x4 with its
 * multiplier and shift scalar), the output offset and the clamp (lo, hi:
 * the bounds as vectors). */
static inline int32x4_t requant_x4(int32x4_t acc, int32_t mult, int32_t left, int32_t right,
                                   int32_t out_off, int32x4_t lo, int32x4_t hi) {
  if (left) acc = vshlq_r_s32(acc, left);
  int32x4_t y = vqrdmulhq_n_s32(acc, mult);
  if (right) {
    y = vqaddq_s32(y, vshrq_n_s32(y, 31));
    y = vrshlq_n_s32(y, -right);
  }
  return vminq_s32(vmaxq_s32(vaddq_n_s32(y, out_off), lo), hi);
}

/* What a group of lanes needs (channel_mve's, in one place): the lane
 * geometry and the channel's requantisation. */
typedef struct lanes {
  uint32x4_t s0, s1;  /* the lanes' offsets in the input, lanes 0-3 and 4-7 */
  uint32x4_t w0, w1;  /* their offsets in the temporary */
  uint32x4_t in_lim;  /* the input's size along the lane axis */
  int32x4_t zp;       /* the input zero point */
  int32x4_t lo, hi;   /* the activation bounds */
  int32_t mult, left, right, out_off;
  chan_q q;           /* the same, for one output at a time */
  int32_t stride, dil, in, taps, tap_a, tap_b, a_ts, b_ts;
  size_t a_step;
} lanes;

/* One tap for the group's lanes: lanes 0-3 (and 4-7 with two) at offsets
 * s0 (s1) from x, times the filter value f; with all, every lane is real
 * (no predicate). */
#define MPK_SERIAL_TAP(x, f)                                                               \
  do {                                                                                     \
    if (all) {                                                                             \
      acc0 = vmlaq_n_s32(acc0, vldrbq_gather_offset_s32(x, L->s0), f);                     \
      acc1 = vmlaq_n_s32(acc1, vldrbq_gather_offset_s32(x, L->s1), f);                     \
    } else {                                                                               \
      acc0 = vmlaq_n_s32(acc0, vldrbq_gather_offset_z_s32(x, L->s0, t0), f);               \
      if (two) acc1 = vmlaq_n_s32(acc1, vldrbq_gather_offset_z_s32(x, L->s1, t1), f);      \
    }                                                                                      \
  } while (0)

/* One group of n lanes (all: n is 8 and every lane's window is in the
 * input along the lane axis; two: n > 4) whose first lane's window starts
 * at s along the lane axis, over `rows` rows of the other axis from row
 * (the input at its first row, lane-axis index 0) and fb (the filter at
 * that row), from acc: summed, requantised and stored at t in the
 * temporary.  A tap whose lanes are all in the input is plain products;
 * one with lanes in the padding reads the zero point there. */
static MPK_ALWAYS_INLINE void group_lanes(const lanes *L, const int8_t *row, const int32_t *fb,
                                          int32_t rows, int32_t n, int32_t s, int32_t acc,
                                          int8_t *t, const int all, const int two) {
  const mve_pred16_t t0 = vctp32q((uint32_t)n), t1 = vctp32q((uint32_t)(n > 4 ? n - 4 : 0));
  int32x4_t acc0 = vdupq_n_s32(acc), acc1 = acc0;
  if (all || (s >= 0 && (n - 1) * L->stride + s + (L->taps - 1) * L->dil < L->in)) {
    const int8_t *xr = row + (size_t)s * L->a_step;
    const int32_t *fr = fb;
    if (L->taps == 3) {
      const int32_t ta = L->tap_a;
      for (int32_t r = 0; r < rows; r++, xr += L->tap_b, fr += L->b_ts) {
        const int32_t f0 = fr[0], f1 = fr[L->a_ts], f2 = fr[2 * L->a_ts];
        MPK_SERIAL_TAP(xr, f0);
        MPK_SERIAL_TAP(xr + ta, f1);
        MPK_SERIAL_TAP(xr + 2 * ta, f2);
      }
    } else {
      for (int32_t r = 0; r < rows; r++, xr += L->tap_b, fr += L->b_ts) {
        const int8_t *x = xr;
        for (int32_t ka = 0; ka < L->taps; ka++, x += L->tap_a) MPK_SERIAL_TAP(x, fr[ka * L->a_ts]);
      }
    }
  } else {
    const uint32x4_t lane = vidupq_n_u32(0, 1);
    int32x4_t p0 = vaddq_n_s32(vreinterpretq_s32_u32(vmulq_n_u32(lane, (uint32_t)L->stride)), s);
    int32x4_t p1 = vaddq_n_s32(p0, 4 * L->stride);
    for (int32_t ka = 0; ka < L->taps; ka++) {
      const uint32x4_t u0 = vreinterpretq_u32_s32(p0), u1 = vreinterpretq_u32_s32(p1);
      const mve_pred16_t i0 = vcmphiq_m_u32(L->in_lim, u0, t0);
      const mve_pred16_t i1 = two ? vcmphiq_m_u32(L->in_lim, u1, t1) : 0;
      const int32_t *fr = fb + ka * L->a_ts;
      if (i0 == t0 && (!two || i1 == t1)) {
        /* this tap of every lane in the input */
        const int8_t *xa = row + (size_t)(s + ka * L->dil) * L->a_step;
        for (int32_t r = 0; r < rows; r++, xa += L->tap_b, fr += L->b_ts) MPK_SERIAL_TAP(xa, *fr);
      } else {
        const uint32x4_t g0 = vmulq_n_u32(u0, (uint32_t)L->a_step);
        const uint32x4_t g1 = vmulq_n_u32(u1, (uint32_t)L->a_step);
        const int8_t *x = row;
        for (int32_t r = 0; r < rows; r++, x += L->tap_b, fr += L->b_ts) {
          const int32_t f = *fr;
          acc0 = vmlaq_n_s32(acc0, vpselq_s32(vldrbq_gather_offset_z_s32(x, g0, i0), L->zp, i0), f);
          if (two)
            acc1 = vmlaq_n_s32(acc1, vpselq_s32(vldrbq_gather_offset_z_s32(x, g1, i1), L->zp, i1), f);
        }
      }
      p0 = vaddq_n_s32(p0, L->dil);
      p1 = vaddq_n_s32(p1, L->dil);
    }
  }
  vstrbq_scatter_offset_p_s32(
      t, L->w0, requant_x4(acc0, L->mult, L->left, L->right, L->out_off, L->lo, L->hi), t0);
  if (two)
    vstrbq_scatter_offset_p_s32(
        t, L->w1, requant_x4(acc1, L->mult, L->left, L->right, L->out_off, L->lo, L->hi), t1);
}
#undef MPK_SERIAL_TAP

/* group_lanes for eight lanes wholly in the input, and for any group. */
static MPK_NOINLINE void group8_inner(const lanes *L, const int8_t *row, const int32_t *fb,
                                      int32_t rows, int32_t s, int32_t acc, int8_t *t) {
  group_lanes(L, row, fb, rows, 8, s, acc, t, 1, 1);
}
static MPK_NOINLINE void group_any(const lanes *L, const int8_t *row, const int32_t *fb,
                                   int32_t rows, int32_t n, int32_t s, int32_t acc, int8_t *t) {
  if (n > 4)
    group_lanes(L, row, fb, rows, n, s, acc, t, 0, 1);
  else
    group_lanes(L, row, fb, rows, n, s, acc, t, 0, 0);
}

/* One output of a line whose window leaves the input along the lane
 * axis (its first tap at s), one tap at a time as the reference kernel
 * adds them: the model's bias, then filter * (input + offset) over the
 * taps in the input. */
static MPK_NOINLINE int8_t edge_pixel(const lanes *L, const int8_t *row, const int32_t *fb,
                                      int32_t rows, int32_t s, int32_t bias, int32_t off) {
  int32_t k0, k1;
  if (L->dil == 1) { /* no division */
    k0 = s < 0 ? -s : 0;
    k1 = L->in - s < L->taps ? L->in - s : L->taps;
    if (k0 > k1) k0 = k1;
  } else {
    mpk_tap_range(s, L->dil, L->taps, L->in, &k0, &k1);
  }
  int32_t acc = bias;
  if (L->taps == 3 && k1 - k0 == 2) {
    /* a 3-tap window missing one end: two taps per row straight through */
    const int8_t *xr = row + (size_t)(s + k0 * L->dil) * L->a_step;
    const size_t second = (size_t)L->tap_a;
    const int32_t *fr = fb + k0 * L->a_ts, fs = L->a_ts;
    for (int32_t r = 0; r < rows; r++, xr += L->tap_b, fr += L->b_ts)
      acc += fr[0] * (xr[0] + off) + fr[fs] * (xr[second] + off);
    return requant_scalar(&L->q, acc);
  }
  const int8_t *xr = row + (size_t)(s + k0 * L->dil) * L->a_step;
  const int32_t *fr = fb + k0 * L->a_ts;
  for (int32_t r = 0; r < rows; r++, xr += L->tap_b, fr += L->b_ts) {
    const int8_t *x = xr;
    for (int32_t ka = k0; ka < k1; ka++, x += L->tap_a) acc += fr[(ka - k0) * L->a_ts] * (*x + off);
  }
  return requant_scalar(&L->q, acc);
}

/* Channel c of one batch into the temporary tmp (raster order): lanes
 * along axis a, eight at a time (the last group of a line moved back to
 * end at its end, recomputing some lanes, when the line has eight),
 * rows along axis b.  base is the batch's input at channel c, ft the
 * channel's taps ([fy][fx]), bsum[kb] the sum of the taps of row kb of
 * axis b, bias the model's bias of the channel (0 without). */
static MPK_NOINLINE void channel_mve(const axis *a, const axis *b, const int8_t *base,
                                     const int32_t *ft, const int32_t *bsum, int32_t bias,
                                     int32_t off, const chan_q *k, int8_t *tmp) {
  const uint32x4_t lane = vidupq_n_u32(0, 1);
  const uint32_t lane_step = (uint32_t)(a->stride * a->in_step);
  lanes L;
  L.s0 = vmulq_n_u32(lane, lane_step);
  L.s1 = vaddq_n_u32(L.s0, 4u * lane_step);
  L.w0 = vmulq_n_u32(lane, (uint32_t)a->tmp_step);
  L.w1 = vaddq_n_u32(L.w0, 4u * (uint32_t)a->tmp_step);
  L.in_lim = vdupq_n_u32((uint32_t)a->in);
  L.zp = vdupq_n_s32(-off);
  L.lo = vdupq_n_s32(k->lo);
  L.hi = vdupq_n_s32(k->hi);
  L.mult = k->mult;
  L.left = k->left;
  L.right = k->right;
  L.out_off = k->out_off;
  L.q = *k;
  L.stride = a->stride;
  L.dil = a->dil;
  L.in = a->in;
  L.taps = a->taps;
  L.tap_a = a->dil * a->in_step;
  L.tap_b = b->dil * b->in_step;
  L.a_ts = a->tap_step;
  L.b_ts = b->tap_step;
  L.a_step = (size_t)a->in_step;
  const int32_t a_out = a->out;
  /* [ia0, ia1): the outputs whose windows lie in the input along axis a */
  int32_t ia0 = (a->pad + a->stride - 1) / a->stride;
  if (ia0 > a_out) ia0 = a_out;
  const int32_t last = a->in - 1 - (a->taps - 1) * a->dil + a->pad;
  int32_t ia1 = last < 0 ? 0 : last / a->stride + 1;
  if (ia1 > a_out) ia1 = a_out;
  if (ia1 < ia0) ia1 = ia0;
  int32_t full = 0;
  for (int32_t kb = 0; kb < b->taps; kb++) full += bsum[kb];
  const int32_t acc_full = folded(bias, off, full);
  for (int32_t ob = 0; ob < b->out; ob++) {
    const int32_t o = ob * b->stride - b->pad;
    int32_t kb0, kb1;
    mpk_tap_range(o, b->dil, b->taps, b->in, &kb0, &kb1);
    int32_t acc_row = acc_full;
    if (kb0 != 0 || kb1 != b->taps) {
      int32_t part = 0;
      for (int32_t kb = kb0; kb < kb1; kb++) part += bsum[kb];
      acc_row = folded(bias, off, part);
    }
    /* the input at axis-b index of tap kb0, axis-a index 0 */
    const int8_t *row = base + (kb0 < kb1 ? (size_t)(o + b->dil * kb0) * (size_t)b->in_step : 0);
    const int32_t *fb = ft + kb0 * L.b_ts;
    const int32_t rows = kb1 - kb0;
    int8_t *t_row = tmp + (size_t)ob * (size_t)b->tmp_step;
    /* the lines' ends whose windows leave the input, one at a time */
    for (int32_t oa = ia0 > 0 ? 0 : ia1; oa < a_out; oa = oa + 1 == ia0 ? ia1 : oa + 1)
      t_row[(size_t)oa * (size_t)a->tmp_step] =
          edge_pixel(&L, row, fb, rows, oa * L.stride - a->pad, bias, off);
    /* the rest eight at a time, the last group moved back to end at ia1 */
    const int32_t len = ia1 - ia0;
    for (int32_t oa = ia0; oa < ia1; oa += 8) {
      const int32_t at = len >= 8 && oa + 8 > ia1 ? ia1 - 8 : oa;
      const int32_t s = at * L.stride - a->pad;
      int8_t *t = t_row + (size_t)at * (size_t)a->tmp_step;
      if (len >= 8)
        group8_inner(&L, row, fb, rows, s, acc_row, t);
      else
        group_any(&L, row, fb, rows, len, s, acc_row, t);
    }
  }
}

/* The temporary (n pixels of one channel) into channel c of the output,
 * eight pixels per scatter store (VSTRB.16, the channel count apart). */
static void channel_out_mve(const int8_t *tmp, int32_t n, int32_t ch, int8_t *out) {
  if ((int64_t)ch * 7 <= 65535) {
    const uint16x8_t step = vmulq_n_u16(vidupq_n_u16(0, 1), (uint16_t)ch);
    for (int32_t i = 0; i < n; i += 8, tmp += 8, out += (size_t)8 * (size_t)ch) {
      const mve_pred16_t pr = vctp16q((uint32_t)(n - i));
      vstrbq_scatter_offset_p_s16(out, step, vldrbq_z_s16(tmp, pr), pr);
    }
    return;
  }
  for (int32_t i = 0; i < n; i++) out[(size_t)i * (size_t)ch] = tmp[i];
}
#endif

#if !defined(MPK_MVE)
/* One output pixel whose window leaves the input along x (its first tap
 * at column x0), over the rows fy0 .. fy1 from row: the model's bias, then
 * filter * (input + offset) over the taps in the input, as the reference
 * kernel adds them. */
static MPK_NOINLINE int32_t edge_acc(const mpk_conv_geom *g, const int8_t *row, const int32_t *ft,
                                     int32_t fy0, int32_t fy1, int32_t x0, int32_t bias,
                                     int32_t off) {
  const int32_t C = g->in_c, fw = g->filter_w;
  const size_t col = (size_t)g->dilation_w * (size_t)C;
  const size_t rowstep = (size_t)g->dilation_h * (size_t)g->in_w * (size_t)C;
  int32_t fx0, fx1;
  mpk_tap_range(x0, g->dilation_w, fw, g->in_w, &fx0, &fx1);
  int32_t acc = bias;
  const int8_t *x = row + (size_t)(x0 + g->dilation_w * fx0) * (size_t)C;
  const int32_t *fr = ft + fy0 * fw;
  for (int32_t fy = fy0; fy < fy1; fy++, x += rowstep, fr += fw) {
    const int8_t *xx = x;
    for (int32_t fx = fx0; fx < fx1; fx++, xx += col) acc += fr[fx] * (*xx + off);
  }
  return acc;
}

/* One channel of one batch, one pixel at a time: taps ft ([fy][fx]),
 * rsum[fy] the sum of row fy's taps.  A pixel whose window is in the
 * input along x starts from the folded share of its rows and adds plain
 * products (a 3x3 window of dilation 1 wholly in the input straight
 * through); the pixels at the ends of a row whose windows leave the input
 * along x add the offset per tap (edge_acc).  [ix0, ix1): the columns
 * whose windows lie in the input along x. */
static MPK_NOINLINE void channel_scalar(const mpk_conv_geom *g, const int8_t *base,
                                        const int32_t *ft, const int32_t *rsum, int32_t bias,
                                        int32_t off, const chan_q *k, int32_t ix0, int32_t ix1,
                                        int8_t *tmp) {
  const int32_t C = g->in_c, fw = g->filter_w;
  const size_t rowstep = (size_t)g->dilation_h * (size_t)g->in_w * (size_t)C;
  const size_t col = (size_t)g->dilation_w * (size_t)C;
  const size_t xstep = (size_t)g->stride_w * (size_t)C;
  const int k3 = g->filter_h == 3 && fw == 3 && g->dilation_w == 1 && g->dilation_h == 1;
  const int rs = k->left == 0 && k->mult >= 0 && k->right <= 31;
  const int32_t mult = k->mult, out_off = k->out_off, lo = k->lo, hi = k->hi;
  const int32_t f0 = ft[0], f1 = fw > 1 ? ft[1] : 0, f2 = fw > 2 ? ft[2] : 0;
  const int32_t f3 = k3 ? ft[3] : 0, f4 = k3 ? ft[4] : 0, f5 = k3 ? ft[5] : 0;
  const int32_t f6 = k3 ? ft[6] : 0, f7 = k3 ? ft[7] : 0, f8 = k3 ? ft[8] : 0;
#define MPK_SERIAL_OUT(acc)                                                                \
  (rs ? (int8_t)mpk_clamp_i32(mpk_mbqm_rs(acc, mult, -k->right) + out_off, lo, hi)         \
      : requant_scalar(k, acc))
  int32_t full = 0;
  for (int32_t fy = 0; fy < g->filter_h; fy++) full += rsum[fy];
  for (int32_t oy = 0; oy < g->out_h; oy++, tmp += g->out_w) {
    const int32_t y0 = oy * g->stride_h - g->pad_h;
    int32_t fy0, fy1;
    mpk_tap_range(y0, g->dilation_h, g->filter_h, g->in_h, &fy0, &fy1);
    const int whole_y = fy0 == 0 && fy1 == g->filter_h;
    int32_t acc_row = folded(bias, off, full);
    if (!whole_y) {
      int32_t part = 0;
      for (int32_t fy = fy0; fy < fy1; fy++) part += rsum[fy];
      acc_row = folded(bias, off, part);
    }
    const int8_t *row =
        base + (fy0 < fy1 ? (size_t)(y0 + g->dilation_h * fy0) * (size_t)g->in_w * (size_t)C : 0);
    for (int32_t ox = ix0 > 0 ? 0 : ix1; ox < g->out_w; ox = ox + 1 == ix0 ? ix1 : ox + 1) {
      const int32_t x0 = ox * g->stride_w - g->pad_w;
      int32_t acc;
      if (k3) {
        /* taps fx0 <= fx < fx1 of each row, as the reference adds them */
        const int32_t fx0 = x0 < 0 ? -x0 : 0;
        const int32_t fx1 = g->in_w - x0 < 3 ? g->in_w - x0 : 3;
        const int8_t *r = row;
        const int32_t *fr = ft + fy0 * 3;
        acc = bias;
        for (int32_t fy = fy0; fy < fy1; fy++, r += rowstep, fr += 3) {
          if (fx0 == 0 && fx1 > 0) acc += fr[0] * (r[(size_t)x0 * (size_t)C] + off);
          if (fx0 <= 1 && fx1 > 1) acc += fr[1] * (r[(size_t)(x0 + 1) * (size_t)C] + off);
          if (fx1 > 2) acc += fr[2] * (r[(size_t)(x0 + 2) * (size_t)C] + off);
        }
      } else {
        acc = edge_acc(g, row, ft, fy0, fy1, x0, bias, off);
      }
      tmp[ox] = MPK_SERIAL_OUT(acc);
    }
    if (ix1 <= ix0) continue;
    const int8_t *x = row + (size_t)(ix0 * g->stride_w - g->pad_w) * (size_t)C;
    if (k3 && whole_y) {
      for (int32_t ox = ix0; ox < ix1; ox++, x += xstep) {
        const int8_t *x1 = x + rowstep, *x2 = x1 + rowstep;
        int32_t acc = acc_row;
        acc += f0 * x[0] + f1 * x[C] + f2 * x[2 * C];
        acc += f3 * x1[0] + f4 * x1[C] + f5 * x1[2 * C];
        acc += f6 * x2[0] + f7 * x2[C] + f8 * x2[2 * C];
        tmp[ox] = MPK_SERIAL_OUT(acc);
      }
    } else {
      for (int32_t ox = ix0; ox < ix1; ox++, x += xstep) {
        int32_t acc = acc_row;
        const int8_t *xr = x;
        const int32_t *fr = ft + fy0 * fw;
        for (int32_t fy = fy0; fy < fy1; fy++, xr += rowstep, fr += fw) {
          const int8_t *xx = xr;
          for (int32_t fx = 0; fx < fw; fx++, xx += col) acc += fr[fx] * *xx;
        }
        tmp[ox] = MPK_SERIAL_OUT(acc);
      }
    }
  }
#undef MPK_SERIAL_OUT
}
#endif

/* A window of more taps than the table holds: the reference loop. */
static void channel_any(const mpk_conv_geom *g, const int8_t *base, const int8_t *filter,
                        int32_t c, int32_t bias, int32_t off, const chan_q *k, int8_t *tmp) {
  const int32_t C = g->in_c;
  for (int32_t oy = 0; oy < g->out_h; oy++) {
    const int32_t y0 = oy * g->stride_h - g->pad_h;
    for (int32_t ox = 0; ox < g->out_w; ox++) {
      const int32_t x0 = ox * g->stride_w - g->pad_w;
      int32_t acc = bias;
      for (int32_t fy = 0; fy < g->filter_h; fy++) {
        const int32_t iy = y0 + g->dilation_h * fy;
        if (iy < 0 || iy >= g->in_h) continue;
        for (int32_t fx = 0; fx < g->filter_w; fx++) {
          const int32_t ix = x0 + g->dilation_w * fx;
          if (ix < 0 || ix >= g->in_w) continue;
          acc += filter[(size_t)(fy * g->filter_w + fx) * (size_t)C + (size_t)c] *
                 (base[((size_t)iy * (size_t)g->in_w + (size_t)ix) * (size_t)C] + off);
        }
      }
      *tmp++ = requant_scalar(k, acc);
    }
  }
}

MPK_API int32_t mpk_depthwise_conv2d_s8_serial_fast(const mpk_conv_s8_params *p,
                                                    const int8_t *input, const int8_t *filter,
                                                    const int32_t *bias, int8_t *output,
                                                    void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  if (!serial_fast_ok(g) || !scratch) return MPK_ERR_PARAMS;
  int8_t *tmp = scratch;
  const int32_t C = g->in_c, taps = g->filter_h * g->filter_w, off = p->q.input_offset;
  const int32_t pixels = g->out_h * g->out_w, in_pixels = g->in_h * g->in_w;
  const int table = taps <= MPK_SERIAL_MAX_TAPS;
  int32_t ft[MPK_SERIAL_MAX_TAPS], rsum[MPK_SERIAL_MAX_TAPS], csum[MPK_SERIAL_MAX_TAPS];
#if defined(MPK_MVE)
  /* lanes down the columns when that takes fewer groups of eight */
  const int32_t by_row = g->out_h * ((g->out_w + 7) / 8), by_col = g->out_w * ((g->out_h + 7) / 8);
  const int down = by_col < by_row;
  const axis ax = {g->out_w, g->in_w, g->stride_w, g->dilation_w, g->pad_w, g->filter_w,
                   C, 1, 1};
  const axis ay = {g->out_h, g->in_h, g->stride_h, g->dilation_h, g->pad_h, g->filter_h,
                   g->in_w * C, g->filter_w, g->out_w};
#else
  (void)csum;
  /* [ix0, ix1): the columns whose windows lie in the input along x */
  int32_t ix0 = (g->pad_w + g->stride_w - 1) / g->stride_w;
  if (ix0 > g->out_w) ix0 = g->out_w;
  const int32_t last = g->in_w - 1 - (g->filter_w - 1) * g->dilation_w + g->pad_w;
  int32_t ix1 = last < 0 ? 0 : last / g->stride_w + 1;
  if (ix1 > g->out_w) ix1 = g->out_w;
  if (ix1 < ix0) ix1 = ix0;
#endif
  for (int32_t c = 0; c < C; c++) {
    const chan_q k = chan_q_of(&p->q, c);
    const int32_t b_c = bias ? bias[c] : 0;
    if (table) {
      for (int32_t i = 0; i < taps; i++) ft[i] = filter[(size_t)i * (size_t)C + (size_t)c];
      for (int32_t fy = 0; fy < g->filter_h; fy++) {
        int32_t s = 0;
        for (int32_t fx = 0; fx < g->filter_w; fx++) s += ft[fy * g->filter_w + fx];
        rsum[fy] = s;
      }
#if defined(MPK_MVE)
      for (int32_t fx = 0; fx < g->filter_w; fx++) {
        int32_t s = 0;
        for (int32_t fy = 0; fy < g->filter_h; fy++) s += ft[fy * g->filter_w + fx];
        csum[fx] = s;
      }
#endif
    }
    for (int32_t b = 0; b < g->batches; b++) {
      const int8_t *base = input + (size_t)b * (size_t)in_pixels * (size_t)C + (size_t)c;
      int8_t *t = tmp + (size_t)b * (size_t)pixels;
      if (!table)
        channel_any(g, base, filter, c, b_c, off, &k, t);
      else
#if defined(MPK_MVE)
        if (down)
          channel_mve(&ay, &ax, base, ft, csum, b_c, off, &k, t);
        else
          channel_mve(&ax, &ay, base, ft, rsum, b_c, off, &k, t);
#else
        channel_scalar(g, base, ft, rsum, b_c, off, &k, ix0, ix1, t);
#endif
    }
    /* channel c's inputs are all read: its outputs may land on them */
#if defined(MPK_MVE)
    channel_out_mve(tmp, g->batches * pixels, C, output + c);
#else
    {
      int8_t *o = output + c;
      const int8_t *t = tmp;
      int32_t i = g->batches * pixels;
      for (; i >= 4; i -= 4, t += 4, o += (size_t)4 * (size_t)C) {
        o[0] = t[0];
        o[C] = t[1];
        o[2 * C] = t[2];
        o[3 * C] = t[3];
      }
      for (; i > 0; i--, o += C) *o = *t++;
    }
#endif
  }
  return MPK_OK;
}
