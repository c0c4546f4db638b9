/*
 * mpk_fc_fast.c — the specialised int8 FULLY_CONNECTED kernel a module
 * built for a Cortex-M target runs (module.target): the matrix-multiply
 * core of mpk_simd.h (Helium, DSP or portable inner loops) with the input
 * offset folded into the bias at convert time, so the output is
 * act(requant(folded_bias[o] + filter[o] . input[b])): the reference
 * kernel's bytes (mpk_fc.c).  The lowering uses it when the filter's zero
 * point is 0 (every int8 model of the corpus); else the reference runs.
 *
 * Iteration order (for the in-place contract at the end of this file):
 * batches in pairs, and for each pair every output row in increasing order;
 * a pair's outputs are written while both its input rows are still read.
 * A last single batch (the only one of most layers) with a per-tensor
 * requantisation by a right shift runs by its own Helium loop
 * (fc_column_pt), in the same order.
 */
#include "mpk.h"
#include "mpk_simd.h"

#if defined(MPK_MVE)
/* Whether a per-tensor requantisation has a right shift (-31 <= shift <=
 * -1) and a multiplier that is not negative, or a multiplier of 0: the
 * short sequence of fc_column_pt applies (see mpk_requant_rs). */
static int per_tensor_rs(const mpk_requant *q) {
  const int32_t m = q->multiplier[0], s = q->shift[0];
  return !q->per_channel && (m == 0 || (m > 0 && s <= -1 && s >= -31));
}

/* The sums of rows f0 .. f3 against the column c of k bytes, as the lanes
 * of one vector.  short_k: k <= 16, the column already in c0 with its
 * lanes from k on 0, each row one whole load (its lanes past k, the next
 * row's bytes, add nothing); else the whole blocks of 16 (kb bytes), then
 * the last k - kb under the predicate pk unless whole (kb == k). */
static MPK_ALWAYS_INLINE int32x4_t fc_sums4(const int8_t *f0, const int8_t *f1, const int8_t *f2,
                                            const int8_t *f3, const int8_t *c, int8x16_t c0,
                                            int32_t kb, mve_pred16_t pk, const int short_k,
                                            const int whole) {
  int32_t a0, a1, a2, a3;
  if (short_k) {
    a0 = vmladavq_s8(vldrbq_s8(f0), c0), a1 = vmladavq_s8(vldrbq_s8(f1), c0);
    a2 = vmladavq_s8(vldrbq_s8(f2), c0), a3 = vmladavq_s8(vldrbq_s8(f3), c0);
  } else {
    a0 = a1 = a2 = a3 = 0;
    for (int32_t i = kb >> 4; i > 0; i--) {
      const int8x16_t vc = vldrbq_s8(c);
      a0 = vmladavaq_s8(a0, vldrbq_s8(f0), vc);
      a1 = vmladavaq_s8(a1, vldrbq_s8(f1), vc);
      a2 = vmladavaq_s8(a2, vldrbq_s8(f2), vc);
      a3 = vmladavaq_s8(a3, vldrbq_s8(f3), vc);
      c += 16, f0 += 16, f1 += 16, f2 += 16, f3 += 16;
    }
    if (!whole) {
      const int8x16_t vc = vldrbq_z_s8(c, pk);
      a0 = vmladavaq_s8(a0, vldrbq_z_s8(f0, pk), vc);
      a1 = vmladavaq_s8(a1, vldrbq_z_s8(f1, pk), vc);
      a2 = vmladavaq_s8(a2, vldrbq_z_s8(f2, pk), vc);
      a3 = vmladavaq_s8(a3, vldrbq_z_s8(f3, pk), vc);
    }
  }
  int32x4_t v = vdupq_n_s32(a0);
  v = vsetq_lane_s32(a1, v, 1);
  v = vsetq_lane_s32(a2, v, 2);
  return vsetq_lane_s32(a3, v, 3);
}

/* One input row against every filter row, per-tensor requantisation with
 * a right shift (per_tensor_rs): rows four at a time (fc_sums4: each
 * 16-byte block of the column loaded once for the four, VMLADAVA per row;
 * a column of at most 16 bytes loaded once, and the rows as whole vectors
 * up to the last group whose loads stay in the filter), the four sums with their
 * folded biases requantised as one vector: VQRDMULH, a negative value
 * lowered by one, VRSHL by the shift (the multiplier and shift broadcast
 * once), the offset and the clamp, four bytes stored.  The last rows
 * (fewer than four) read row r again for the missing ones and store only
 * the real ones, under a predicate. */
#define FC_STORE4(V, PRED)                                                                 \
  do {                                                                                     \
    int32x4_t v_ = vqrdmulhq_s32(V, m);                                                    \
    v_ = vqaddq_s32(v_, vshrq_n_s32(v_, 31));                                              \
    v_ = vminq_s32(vmaxq_s32(vaddq_n_s32(vrshlq_s32(v_, sh), oo), lo), hi);                \
    PRED;                                                                                  \
  } while (0)
static MPK_NOINLINE void fc_column_pt(const int8_t *filter, const int32_t *fbias,
                                      const mpk_requant *q, int32_t rows, int32_t k,
                                      const int8_t *c, int8_t *o) {
  const int32_t kb = k & ~15;
  const mve_pred16_t pk = vctp8q((uint32_t)(k - kb));
  const int32x4_t m = vdupq_n_s32(q->multiplier[0]), sh = vdupq_n_s32(q->shift[0]);
  const int32x4_t lo = vdupq_n_s32(q->act_min), hi = vdupq_n_s32(q->act_max);
  const int32_t oo = q->output_offset;
  const int8x16_t c0 = vldrbq_z_s8(c, pk); /* the whole column when k <= 16 */
  /* the groups whose rows may be loaded whole (k <= 16: until a load of
   * 16 bytes at row r + 3 would pass the filter's end) */
  const int32_t groups = rows / 4;
  int32_t whole = groups;
  if (kb == 0)
    while (whole > 0 && (size_t)(4 * whole - 1) * (size_t)k + 16 > (size_t)rows * (size_t)k)
      whole--;
  int32_t r = 0;
  const size_t k4 = 4 * (size_t)k;
  const int8_t *f = filter;
  for (; r < 4 * whole && kb == 0; r += 4, f += k4) {
    const int32x4_t v = vaddq_s32(fc_sums4(f, f + k, f + 2 * k, f + 3 * k, c, c0, kb, pk, 1, 0),
                                  vldrwq_s32(fbias + r));
    FC_STORE4(v, vstrbq_s32(o + r, v_));
  }
  for (; r < 4 * groups; r += 4, f += k4) {
    const int32x4_t v = vaddq_s32(
        fc_sums4(f, f + k, f + 2 * k, f + 3 * k, c, c0, kb, pk, 0, kb == k),
        vldrwq_s32(fbias + r));
    FC_STORE4(v, vstrbq_s32(o + r, v_));
  }
  if (r < rows) {
    const int32_t n = rows - r;
    const mve_pred16_t pr = vctp32q((uint32_t)n);
    const int8_t *f1 = n > 1 ? f + k : f, *f2 = n > 2 ? f + 2 * k : f;
    const int32x4_t v = vaddq_s32(fc_sums4(f, f1, f2, f, c, c0, kb, pk, 0, kb == k),
                                  vldrwq_z_s32(fbias + r, pr));
    FC_STORE4(v, vstrbq_p_s32(o + r, v_, pr));
  }
}
#undef FC_STORE4
#endif

MPK_API int32_t mpk_fully_connected_s8_fast(const mpk_fc_s8_fast_params *p, const int8_t *input,
                                            const int8_t *filter, const int32_t *bias,
                                            int8_t *output, void *scratch) {
  (void)bias;
  (void)scratch;
  if (p->batches <= 0 || p->accum_depth <= 0 || p->out_depth <= 0 || !p->folded_bias ||
      p->q.filter_offset != 0)
    return MPK_ERR_PARAMS;
  const size_t k = (size_t)p->accum_depth, n = (size_t)p->out_depth;
  const int rs = mpk_requant_rs(&p->q, p->out_depth);
  int32_t b = 0;
  for (; b + 2 <= p->batches; b += 2)
    mpk_matmul_s8(filter, p->folded_bias, &p->q, p->out_depth, p->accum_depth, input + b * k,
                  input + (b + 1) * k, output + b * n, output + (b + 1) * n, rs);
  if (b < p->batches) {
#if defined(MPK_MVE)
    if (per_tensor_rs(&p->q)) {
      fc_column_pt(filter, p->folded_bias, &p->q, p->out_depth, p->accum_depth, input + b * k,
                   output + b * n);
      return MPK_OK;
    }
#endif
    mpk_matmul_s8(filter, p->folded_bias, &p->q, p->out_depth, p->accum_depth, input + b * k,
                  NULL, output + b * n, NULL, rs);
  }
  return MPK_OK;
}

/* Overlap contract (mpk.h).  When the pair of batches ending at batch E
 * (exclusive; the last pair may be a single batch) is written, its writes
 * end at E * out_depth and the input still to be read starts at the pair's
 * first row, S * accum_depth.  They are safe when
 * O + E * out_depth <= I + S * accum_depth for every pair: the gap is the
 * largest E * out_depth - S * accum_depth (two output rows for the first
 * pair when the input row is the wider; the last pair's when it is not). */
int64_t mpk_fully_connected_s8_fast_overlap_gap(int32_t batches, int32_t accum_depth,
                                                int32_t out_depth) {
  if (batches <= 0 || accum_depth <= 0 || out_depth <= 0) return MPK_NO_OVERLAP;
  int64_t gap = INT64_MIN;
  for (int32_t s = 0; s < batches; s += 2) {
    const int32_t e = s + 2 < batches ? s + 2 : batches;
    const int64_t d = (int64_t)e * out_depth - (int64_t)s * accum_depth;
    if (d > gap) gap = d;
  }
  return gap;
}
