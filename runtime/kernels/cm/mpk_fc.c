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
 */
#include "mpk.h"
#include "mpk_simd.h"

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
  if (b < p->batches)
    mpk_matmul_s8(filter, p->folded_bias, &p->q, p->out_depth, p->accum_depth, input + b * k,
                  NULL, output + b * n, NULL, rs);
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
