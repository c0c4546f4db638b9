/*
 * mpk_fc_fast.c — the specialised int8 FULLY_CONNECTED kernel a module
 * built for a Cortex-M target runs (module.target): the matrix-multiply
 * core of mpk_simd.h (Helium, DSP or portable inner loops) with the input
 * offset folded into the bias at convert time, so the output is
 * act(requant(folded_bias[o] + filter[o] . input[b])): the reference
 * kernel's bytes (mpk_fc.c).  The lowering uses it when the filter's zero
 * point is 0 (every int8 model of the corpus); else the reference runs.
 *
 * Iteration order (for the in-place contracts): batches in pairs, and for
 * each pair every output row in increasing order; a batch's outputs are
 * written while its input row is still read, so the output may not overlap
 * the input.
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
  int32_t b = 0;
  for (; b + 2 <= p->batches; b += 2)
    mpk_matmul_s8(filter, p->folded_bias, &p->q, p->out_depth, p->accum_depth, input + b * k,
                  input + (b + 1) * k, output + b * n, output + (b + 1) * n);
  if (b < p->batches)
    mpk_matmul_s8(filter, p->folded_bias, &p->q, p->out_depth, p->accum_depth, input + b * k,
                  NULL, output + b * n, NULL);
  return MPK_OK;
}
