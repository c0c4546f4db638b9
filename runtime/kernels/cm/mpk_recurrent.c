/*
 * mpk_recurrent_fast.c — the specialised int8 SVDF and LSTM, and 16x8
 * LSTM, a module built for a Cortex-M target runs (module.target), with Helium, DSP and portable
 * inner loops (mpk_simd.h).  Outputs and states are the reference kernels'
 * bytes (mpk_recurrent.c) on every path.
 *
 * The one idea: the weights are constants, so the lowering folds every
 * zero point's share of the products into biases at convert time
 * (mpk_svdf_s8_fast_params, mpk_lstm_s8_fast_params); what is left are
 * plain dot products, which Helium does 16 (int8) or 8 (int16) at a time.
 *
 *   mpk_svdf_s8_fast   the feature products four filters at a time (one
 *                      input block loaded for four rows, the four sums
 *                      requantised as one vector); then each filter's
 *                      window shifted by one element and reduced against
 *                      its time weights in the same pass (the reference
 *                      moves the whole state first, then reads it again);
 *   mpk_lstm_s8_fast   four cells at a time: their four gates' input and
 *                      recurrent products, requantised, added and
 *                      activated as vectors (the int16 logistic and tanh
 *                      by table gathers), then the cell and hidden state of
 *                      the four cells, so that no gate is ever stored.  The
 *                      new hidden state goes to the step's output and is
 *                      copied into the state when the row's step is done
 *                      (every cell's products read the old one).
 *
 *   mpk_lstm_s16_fast  the 16x8 LSTM in the same loop, parameterised on
 *                      the activations' element size: int16 inputs and
 *                      hidden state, each gate's products in int64 (Helium
 *                      VMLALDAV) from the operator's int64 biases (no zero
 *                      point to fold), TFLite's int64 requantisation per
 *                      cell.
 *
 * Not here: hybrid or float recurrent operators (reference kernels), and
 * any in-place contract (these operators have none).
 */
#include "mpk.h"
#include "mpk_act.h"
#include "mpk_simd.h"

/* ---- shared --------------------------------------------------------------- */

#if defined(MPK_MVE)
/* The sums of four int8 rows w0 .. w3 against x over n elements, as the
 * lanes of one vector: each 16-byte block of x loaded once for the four
 * rows, a last block of fewer under a predicate (its lanes past n read
 * nothing and add 0). */
static MPK_ALWAYS_INLINE int32x4_t dot4_mve(const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                            const int8_t *w3, const int8_t *x, int32_t n) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, i = 0;
  for (; i + 16 <= n; i += 16) {
    const int8x16_t v = vldrbq_s8(x + i);
    a0 = vmladavaq_s8(a0, vldrbq_s8(w0 + i), v);
    a1 = vmladavaq_s8(a1, vldrbq_s8(w1 + i), v);
    a2 = vmladavaq_s8(a2, vldrbq_s8(w2 + i), v);
    a3 = vmladavaq_s8(a3, vldrbq_s8(w3 + i), v);
  }
  if (i < n) {
    const mve_pred16_t pk = vctp8q((uint32_t)(n - i));
    const int8x16_t v = vldrbq_z_s8(x + i, pk);
    a0 = vmladavaq_s8(a0, vldrbq_z_s8(w0 + i, pk), v);
    a1 = vmladavaq_s8(a1, vldrbq_z_s8(w1 + i, pk), v);
    a2 = vmladavaq_s8(a2, vldrbq_z_s8(w2 + i, pk), v);
    a3 = vmladavaq_s8(a3, vldrbq_z_s8(w3 + i, pk), v);
  }
  int32x4_t acc = vdupq_n_s32(a0);
  acc = vsetq_lane_s32(a1, acc, 1);
  acc = vsetq_lane_s32(a2, acc, 2);
  return vsetq_lane_s32(a3, acc, 3);
}

/* Rows r .. r+3 of a [rows][n] matrix against x, from the bias at b + r:
 * rows past the last read the group's first row again (their lanes are
 * never stored). */
static MPK_ALWAYS_INLINE int32x4_t rows4_mve(const int8_t *w, int32_t rows, int32_t n,
                                             const int8_t *x, const int32_t *b, int32_t r,
                                             mve_pred16_t pr) {
  const int8_t *w0 = w + (size_t)r * (size_t)n;
  const int8_t *w1 = r + 1 < rows ? w0 + n : w0;
  const int8_t *w2 = r + 2 < rows ? w0 + 2 * n : w0;
  const int8_t *w3 = r + 3 < rows ? w0 + 3 * n : w0;
  return vaddq_s32(dot4_mve(w0, w1, w2, w3, x, n), vldrwq_z_s32(b + r, pr));
}

static MPK_ALWAYS_INLINE int32x4_t clamp_x4(int32x4_t v, int32_t lo, int32_t hi) {
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}
#endif

/* ---- SVDF ----------------------------------------------------------------- */

/* The window of one filter moved by one element, its newest element set
 * to v, and its sum of products with the time weights w (the state and
 * the weights of one element type: int16 with wide 1, int8 otherwise). */
static MPK_ALWAYS_INLINE int32_t window_dot(void *row_v, const void *w_v, int32_t nm, int32_t v,
                                            const int wide) {
  const int32_t n = nm - 1;
  int32_t acc = 0, m = 0;
#if defined(MPK_MVE)
  if (wide) {
    int16_t *row = row_v;
    const int16_t *w = w_v;
    for (; m + 8 <= n; m += 8) {
      const int16x8_t s = vldrhq_s16(row + m + 1);
      vstrhq_s16(row + m, s);
      acc = vmladavaq_s16(acc, vldrhq_s16(w + m), s);
    }
    if (m < n) {
      const mve_pred16_t pk = vctp16q((uint32_t)(n - m));
      const int16x8_t s = vldrhq_z_s16(row + m + 1, pk);
      vstrhq_p_s16(row + m, s, pk);
      acc = vmladavaq_s16(acc, vldrhq_z_s16(w + m, pk), s);
    }
  } else {
    int8_t *row = row_v;
    const int8_t *w = w_v;
    for (; m + 8 <= n; m += 8) {
      const int16x8_t s = vldrbq_s16(row + m + 1);
      vstrbq_s16(row + m, s);
      acc = vmladavaq_s16(acc, vldrbq_s16(w + m), s);
    }
    if (m < n) {
      const mve_pred16_t pk = vctp16q((uint32_t)(n - m));
      const int16x8_t s = vldrbq_z_s16(row + m + 1, pk);
      vstrbq_p_s16(row + m, s, pk);
      acc = vmladavaq_s16(acc, vldrbq_z_s16(w + m, pk), s);
    }
  }
#else
  if (wide) {
    int16_t *row = row_v;
    const int16_t *w = w_v;
    for (; m < n; m++) {
      const int32_t s = row[m + 1];
      row[m] = (int16_t)s;
      acc += w[m] * s;
    }
  } else {
    int8_t *row = row_v;
    const int8_t *w = w_v;
    for (; m < n; m++) {
      const int32_t s = row[m + 1];
      row[m] = (int8_t)s;
      acc += w[m] * s;
    }
  }
#endif
  if (wide) {
    ((int16_t *)row_v)[n] = (int16_t)v;
    return acc + ((const int16_t *)w_v)[n] * v;
  }
  ((int8_t *)row_v)[n] = (int8_t)v;
  return acc + ((const int8_t *)w_v)[n] * v;
}

/* One batch row: the newest state values of every filter into nv, then
 * each unit's windows reduced and requantised into out. */
static MPK_ALWAYS_INLINE void svdf_row(const mpk_svdf_s8_fast_params *p, const int8_t *in,
                                       const int8_t *wf, const void *wt, void *state,
                                       int8_t *out, int32_t *nv, const int wide) {
  const mpk_svdf_s8_params *r = &p->ref;
  const int32_t ni = r->shape.input_size, nf = r->shape.num_filters, nu = r->shape.num_units;
  const int32_t rank = r->shape.rank, nm = r->shape.memory_size;
  const int32_t smin = wide ? -32768 : -128, smax = wide ? 32767 : 127;
  const int32_t fm = r->feature_multiplier, fs = r->feature_shift, szp = r->state_zero_point;
  int32_t f = 0;
#if defined(MPK_MVE)
  const int32x4_t vm = vdupq_n_s32(fm), vs = vdupq_n_s32(fs);
  for (; f < nf; f += 4) {
    const mve_pred16_t pr = vctp32q((uint32_t)(nf - f));
    const int32x4_t acc = rows4_mve(wf, nf, ni, in, p->feature_bias, f, pr);
    vstrwq_p_s32(nv + f, clamp_x4(vaddq_n_s32(mpk_mbqm_x4(acc, vm, vs), szp), smin, smax), pr);
  }
#else
  for (; f < nf; f++) {
    const int32_t acc = mpk_dot_1x1(wf + (size_t)f * (size_t)ni, in, ni, p->feature_bias[f]);
    nv[f] = mpk_clamp_i32(mpk_mbqm_fast(acc, fm, fs) + szp, smin, smax);
  }
#endif
  const size_t es = wide ? 2 : 1;
  for (int32_t u = 0; u < nu; u++) {
    int32_t sum = p->unit_bias[u];
    for (int32_t k = 0; k < rank; k++) {
      const int32_t fi = u * rank + k;
      sum += window_dot((uint8_t *)state + (size_t)fi * (size_t)nm * es,
                        (const uint8_t *)wt + (size_t)fi * (size_t)nm * es, nm, nv[fi], wide);
    }
    const int32_t v = mpk_mbqm_fast(sum, r->time_multiplier, r->time_shift) + r->output_zero_point;
    out[u] = (int8_t)mpk_clamp_i32(v, -128, 127);
  }
}

static MPK_NOINLINE void svdf_row16(const mpk_svdf_s8_fast_params *p, const int8_t *in,
                                    const int8_t *wf, const void *wt, void *state, int8_t *out,
                                    int32_t *nv) {
  svdf_row(p, in, wf, wt, state, out, nv, 1);
}
static MPK_NOINLINE void svdf_row8(const mpk_svdf_s8_fast_params *p, const int8_t *in,
                                   const int8_t *wf, const void *wt, void *state, int8_t *out,
                                   int32_t *nv) {
  svdf_row(p, in, wf, wt, state, out, nv, 0);
}

MPK_API int32_t mpk_svdf_s8_fast(const mpk_svdf_s8_fast_params *p, const int8_t *input,
                                 const int8_t *weights_feature, const void *weights_time,
                                 const int32_t *bias, void *state, int8_t *output, void *scratch) {
  const mpk_svdf_shape *s = &p->ref.shape;
  (void)bias;
  if (s->batches <= 0 || s->input_size <= 0 || s->num_filters <= 0 || s->num_units <= 0 ||
      s->rank <= 0 || s->memory_size <= 0 || s->num_units * s->rank != s->num_filters ||
      !scratch || !p->feature_bias || !p->unit_bias ||
      (p->ref.state_type != MPK_TYPE_INT8 && p->ref.state_type != MPK_TYPE_INT16))
    return MPK_ERR_PARAMS;
  const int wide = p->ref.state_type == MPK_TYPE_INT16;
  const size_t row = (size_t)s->num_filters * (size_t)s->memory_size * (wide ? 2u : 1u);
  for (int32_t b = 0; b < s->batches; b++) {
    const int8_t *in = input + (size_t)b * (size_t)s->input_size;
    void *st = (uint8_t *)state + (size_t)b * row;
    int8_t *out = output + (size_t)b * (size_t)s->num_units;
    if (wide)
      svdf_row16(p, in, weights_feature, weights_time, st, out, scratch);
    else
      svdf_row8(p, in, weights_feature, weights_time, st, out, scratch);
  }
  return MPK_OK;
}

/* ---- LSTM ----------------------------------------------------------------- */

#if defined(MPK_MVE)
/* TFLite's int16 logistic (tanh 0) or tanh (tanh 1) of four int16 values
 * held as int32 lanes, as mpk_act.h computes them one at a time: the input
 * scaled by m / 2^s with rounding, the table's two knots gathered, the
 * interpolation, the saturated end and the sign's reflection selected by
 * predicates. */
static MPK_ALWAYS_INLINE int32x4_t lut_x4(int32x4_t x16, int32_t m, int32_t s, int32_t round,
                                          const int tanh) {
  const int32x4_t x =
      vshlq_s32(vaddq_n_s32(vmulq_n_s32(x16, m), round), vdupq_n_s32(-s));
  const uint32x4_t ax = vreinterpretq_u32_s32(vabsq_s32(x));
  const uint32x4_t hi = tanh ? vshrq_n_u32(ax, 8) : vshrq_n_u32(ax, 9);
  const mve_pred16_t sat = vcmphiq_n_u32(hi, 254);
  const uint32x4_t at = vminq_u32(hi, vdupq_n_u32(254));
  const uint32x4_t a = vldrhq_gather_shifted_offset_u32(mpk_sigmoid_table, at);
  const uint32x4_t b = vldrhq_gather_shifted_offset_u32(mpk_sigmoid_table + 1, at);
  const uint32x4_t frac = vandq_u32(ax, vdupq_n_u32(tanh ? 0xFFu : 0x1FFu));
  uint32x4_t r = vaddq_u32(tanh ? vshlq_n_u32(a, 8) : vshlq_n_u32(a, 9),
                           vmulq_u32(frac, vsubq_u32(b, a)));
  r = vpselq_u32(vdupq_n_u32(tanh ? 0xFFFFu << 8 : 0x7FFFu << 10), r, sat);
  const mve_pred16_t pos = vcmpgeq_n_s32(x, 0);
  if (tanh) {
    const int32x4_t ri = vreinterpretq_s32_u32(r);
    const int32x4_t up = vaddq_n_s32(ri, -(1 << 23) + (1 << 7));
    const int32x4_t dn = vsubq_s32(vdupq_n_s32((1 << 23) + (1 << 7) - 1), ri);
    return vshrq_n_s32(vpselq_s32(up, dn, pos), 8);
  }
  const uint32x4_t up = vaddq_n_u32(r, 1u << 9);
  const uint32x4_t dn = vsubq_u32(vdupq_n_u32((1u << 25) + (1u << 9) - 1u), r);
  return vreinterpretq_s32_u32(vshrq_n_u32(vpselq_u32(up, dn, pos), 10));
}

/* The 16x8 gates' products: rows r .. r+3 of an int8 [rows][n] matrix
 * against the int16 x, each in an int64 accumulator (VMLALDAV, 8 elements
 * at a time, the last block under a predicate) from its int64 bias (none:
 * NULL), requantised by TFLite's int64 MultiplyByQuantizedMultiplier and
 * saturated to int16, as the lanes of one vector; rows past the last are
 * 0 (their lanes are never stored). */
static MPK_ALWAYS_INLINE int32x4_t rows4_s16_mve(const int8_t *w, int32_t rows, int32_t n,
                                                 const int16_t *x, const int64_t *b, int32_t r,
                                                 int32_t m, int32_t sh) {
  int32_t v[4] = {0, 0, 0, 0};
  for (int32_t j = 0; j < 4 && r + j < rows; j++) {
    const int8_t *wj = w + (size_t)(r + j) * (size_t)n;
    int64_t acc = 0;
    for (int32_t i = 0; i < n; i += 8) {
      const mve_pred16_t pk = vctp16q((uint32_t)(n - i));
      acc = vmlaldavaq_p_s16(acc, vldrbq_z_s16(wj + i, pk), vldrhq_z_s16(x + i, pk), pk);
    }
    if (b) acc += b[r + j];
    v[j] = mpk_clamp_i32(mpk_mbqm64(acc, m, sh), -32768, 32767);
  }
  return vldrwq_s32(v);
}

/* One LSTM step of one batch row, four cells at a time (see the top):
 * es 1, the int8 LSTM (x, h and y int8, the folded int32 biases ib and
 * rb); es 2, the 16x8 LSTM (int16, the operator's int64 biases in k). */
static MPK_ALWAYS_INLINE void lstm_row(const mpk_lstm_s8_params *r, const int32_t *ib,
                                       const int32_t *rb, const void *const *k, const void *x,
                                       void *h, int16_t *c, void *y, const int es) {
  const int32_t ni = r->shape.input_size, ns = r->shape.state_size;
  /* the cell state's tanh input scaling (mpk_lut_input) */
  int32_t tm = r->cell_tanh_multiplier, ts = r->cell_tanh_shift;
  if (tm == 0) tm = 3 * (1 << ts), ts = 0;
  const int32_t tr = ts > 0 ? 1 << (ts - 1) : 0;
  const int cell_tanh = r->cell_activation != MPK_LSTM_SIGMOID;
  for (int32_t s = 0; s < ns; s += 4) {
    const mve_pred16_t pr = vctp32q((uint32_t)(ns - s));
    int32x4_t gv[4];
    for (int g = 0; g < 4; g++) {
      const mpk_lstm_gate *q = &r->gate[g];
      int32x4_t a, b;
      if (es == 1) {
        const int32x4_t vi = rows4_mve(k[g], ns, ni, x, ib + g * ns, s, pr);
        const int32x4_t vr = rows4_mve(k[4 + g], ns, ns, h, rb + g * ns, s, pr);
        a = clamp_x4(mpk_mbqm_x4(vi, vdupq_n_s32(q->in_multiplier), vdupq_n_s32(q->in_shift)),
                     -32768, 32767);
        b = clamp_x4(mpk_mbqm_x4(vr, vdupq_n_s32(q->rec_multiplier), vdupq_n_s32(q->rec_shift)),
                     -32768, 32767);
      } else {
        a = rows4_s16_mve(k[g], ns, ni, x, k[11 + g], s, q->in_multiplier, q->in_shift);
        b = rows4_s16_mve(k[4 + g], ns, ns, h, NULL, s, q->rec_multiplier, q->rec_shift);
      }
      const int32x4_t v = clamp_x4(vaddq_s32(a, b), -32768, 32767);
      /* the gates' Q3.12 input: mpk_lut_input with multiplier 0, shift 0 */
      gv[g] = g == MPK_LSTM_CELL_GATE && cell_tanh ? lut_x4(v, 3, 0, 0, 1) : lut_x4(v, 3, 0, 0, 0);
    }
    const int32x4_t cv = vldrhq_z_s32(c + s, pr);
    const int32x4_t fc = clamp_x4(mpk_mbqm_x4(vmulq_s32(gv[MPK_LSTM_FORGET_GATE], cv),
                                              vdupq_n_s32(r->forget_cell_multiplier),
                                              vdupq_n_s32(r->forget_cell_shift)),
                                  -32768, 32767);
    const int32x4_t ic = clamp_x4(
        mpk_mbqm_x4(vmulq_s32(gv[MPK_LSTM_INPUT_GATE], gv[MPK_LSTM_CELL_GATE]),
                    vdupq_n_s32(r->input_cell_multiplier), vdupq_n_s32(r->input_cell_shift)),
        -32768, 32767);
    int32x4_t cn = clamp_x4(vaddq_s32(fc, ic), -32768, 32767);
    if (r->cell_clip > 0) cn = clamp_x4(cn, -r->cell_clip, r->cell_clip);
    vstrhq_p_s32(c + s, cn, pr);
    const int32x4_t t = lut_x4(cn, tm, ts, tr, 1);
    const int32x4_t hv = vaddq_n_s32(mpk_mbqm_x4(vmulq_s32(t, gv[MPK_LSTM_OUTPUT_GATE]),
                                                 vdupq_n_s32(r->hidden_multiplier),
                                                 vdupq_n_s32(r->hidden_shift)),
                                     r->hidden_zero_point);
    if (es == 1)
      vstrbq_p_s32((int8_t *)y + s, clamp_x4(hv, -128, 127), pr);
    else
      vstrhq_p_s32((int16_t *)y + s, clamp_x4(hv, -32768, 32767), pr);
  }
  memcpy(h, y, (size_t)ns * (size_t)es);
}
#else
/* clamp16(mbqm(acc)) */
static inline int32_t sat16_mbqm(int32_t acc, int32_t m, int32_t s) {
  return mpk_clamp_i32(mpk_mbqm_fast(acc, m, s), -32768, 32767);
}

/* The 16x8 gates' products: an int8 row against the int16 x in int64,
 * from its int64 bias, TFLite's int64 requantisation, saturated to int16. */
static inline int32_t sat16_dot_s16(const int8_t *w, const int16_t *x, int32_t n, int64_t acc,
                                    int32_t m, int32_t s) {
  for (int32_t i = 0; i < n; i++)
    acc += (int32_t)w[i] * (int32_t)x[i];
  return mpk_clamp_i32(mpk_mbqm64(acc, m, s), -32768, 32767);
}

/* One LSTM step of one batch row, one cell at a time: its four gates'
 * products (int8, DSP: two int8 pairs per SMLAD; 16x8: int64
 * accumulators), then its cell and hidden state; mpk_act.h's table
 * lookups one value at a time.  es as the Helium form's. */
static MPK_ALWAYS_INLINE void lstm_row(const mpk_lstm_s8_params *r, const int32_t *ib,
                                       const int32_t *rb, const void *const *k, const void *x,
                                       void *h, int16_t *c, void *y, const int es) {
  const int32_t ni = r->shape.input_size, ns = r->shape.state_size;
  for (int32_t s = 0; s < ns; s++) {
    int16_t gv[4];
    for (int g = 0; g < 4; g++) {
      const mpk_lstm_gate *q = &r->gate[g];
      const int8_t *wi = (const int8_t *)k[g] + (size_t)s * (size_t)ni;
      const int8_t *wr = (const int8_t *)k[4 + g] + (size_t)s * (size_t)ns;
      int32_t a, b;
      if (es == 1) {
        a = sat16_mbqm(mpk_dot_1x1(wi, x, ni, ib[g * ns + s]), q->in_multiplier, q->in_shift);
        b = sat16_mbqm(mpk_dot_1x1(wr, h, ns, rb[g * ns + s]), q->rec_multiplier, q->rec_shift);
      } else {
        a = sat16_dot_s16(wi, x, ni, ((const int64_t *)k[11 + g])[s], q->in_multiplier,
                          q->in_shift);
        b = sat16_dot_s16(wr, h, ns, 0, q->rec_multiplier, q->rec_shift);
      }
      const int16_t v = (int16_t)mpk_clamp_i32(a + b, -32768, 32767);
      if (g == MPK_LSTM_CELL_GATE && r->cell_activation != MPK_LSTM_SIGMOID)
        mpk_tanh_s16(0, 0, 1, &v, &gv[g]);
      else
        mpk_logistic_s16(0, 0, 1, &v, &gv[g]);
    }
    const int32_t fc = sat16_mbqm(gv[MPK_LSTM_FORGET_GATE] * c[s], r->forget_cell_multiplier,
                                  r->forget_cell_shift);
    const int32_t ic = sat16_mbqm(gv[MPK_LSTM_INPUT_GATE] * gv[MPK_LSTM_CELL_GATE],
                                  r->input_cell_multiplier, r->input_cell_shift);
    int32_t cn = mpk_clamp_i32(fc + ic, -32768, 32767);
    if (r->cell_clip > 0) cn = mpk_clamp_i32(cn, -r->cell_clip, r->cell_clip);
    c[s] = (int16_t)cn;
    int16_t t;
    mpk_tanh_s16(r->cell_tanh_multiplier, r->cell_tanh_shift, 1, &c[s], &t);
    const int32_t hv = mpk_mbqm_fast(t * gv[MPK_LSTM_OUTPUT_GATE], r->hidden_multiplier,
                                     r->hidden_shift) +
                       r->hidden_zero_point;
    if (es == 1)
      ((int8_t *)y)[s] = (int8_t)mpk_clamp_i32(hv, -128, 127);
    else
      ((int16_t *)y)[s] = (int16_t)mpk_clamp_i32(hv, -32768, 32767);
  }
  memcpy(h, y, (size_t)ns * (size_t)es);
}
#endif

static MPK_NOINLINE void lstm_row8(const mpk_lstm_s8_fast_params *p, const void *const *k,
                                   const void *x, void *h, int16_t *c, void *y) {
  lstm_row(&p->ref, p->in_bias, p->rec_bias, k, x, h, c, y, 1);
}
static MPK_NOINLINE void lstm_row16(const mpk_lstm_s8_params *p, const void *const *k,
                                    const void *x, void *h, int16_t *c, void *y) {
  lstm_row(p, NULL, NULL, k, x, h, c, y, 2);
}

/* Both LSTMs' walk (mpk_recurrent.c's): time-major inputs run every batch
 * row in each step, batch-major ones batch by batch, each row's step on
 * its own; es bytes per input, hidden and output element. */
static int32_t lstm_walk(const mpk_lstm_s8_fast_params *p8, const mpk_lstm_s8_params *p16,
                         const void *input, const void *const *constants, void *hidden,
                         int16_t *cell, void *output) {
  const mpk_lstm_s8_params *r = p8 ? &p8->ref : p16;
  const mpk_lstm_shape *s = &r->shape;
  if (s->batches <= 0 || s->time_steps <= 0 || s->input_size <= 0 || s->state_size <= 0 ||
      !constants || (p8 && (!p8->in_bias || !p8->rec_bias)))
    return MPK_ERR_PARAMS;
  for (int g = 0; g < 8; g++)
    if (!constants[g]) return MPK_ERR_PARAMS;
  if (!p8)
    for (int g = 11; g < 15; g++)
      if (!constants[g]) return MPK_ERR_PARAMS;
  const size_t es = p8 ? 1u : 2u;
  const size_t nb = (size_t)s->batches, nt = (size_t)s->time_steps, ni = (size_t)s->input_size,
               ns = (size_t)s->state_size;
  for (size_t a = 0; a < (s->time_major ? nt : nb); a++)
    for (size_t b = 0; b < (s->time_major ? nb : nt); b++) {
      const size_t t = s->time_major ? a : b, row = s->time_major ? b : a;
      const size_t at = s->time_major ? t * nb + row : row * nt + t;
      const uint8_t *x = (const uint8_t *)input + at * ni * es;
      uint8_t *h = (uint8_t *)hidden + row * ns * es, *y = (uint8_t *)output + at * ns * es;
      if (p8)
        lstm_row8(p8, constants, x, h, cell + row * ns, y);
      else
        lstm_row16(p16, constants, x, h, cell + row * ns, y);
    }
  return MPK_OK;
}

MPK_API int32_t mpk_lstm_s8_fast(const mpk_lstm_s8_fast_params *p, const int8_t *input,
                                 const void *const *constants, int8_t *hidden, int16_t *cell,
                                 int8_t *output, void *scratch) {
  (void)scratch;
  return lstm_walk(p, NULL, input, constants, hidden, cell, output);
}

MPK_API int32_t mpk_lstm_s16_fast(const mpk_lstm_s8_params *p, const int16_t *input,
                                  const void *const *constants, int16_t *hidden, int16_t *cell,
                                  int16_t *output, void *scratch) {
  (void)scratch;
  return lstm_walk(NULL, p, input, constants, hidden, cell, output);
}
