/*
 * mpk_softmax_fast.c — the specialised int8 -> int8 SOFTMAX a module built
 * for a Cortex-M target runs (module.target).
 *
 * The one idea: an int8 input differs from its row's maximum by one of 256
 * values, so exp_on_negative_values of every possible difference, the
 * costly part of the reference kernel (mpk_softmax.c), is evaluated at
 * convert time into a table of 256 int32 (mpk_softmax_s8_exp_table, the
 * reference's own arithmetic, -1 below diff_min).  The kernel then finds
 * the row's maximum, sums the table's entries in Q12, takes the reference's
 * reciprocal once per row and scales each entry by it: the reference's
 * bytes on every path.  With Helium the maximum is taken 16 lanes at a
 * time, the table read by gather loads four entries at a time, and the
 * rounding doubling high multiply and rounding shifts done with
 * VQRDMULH and VRSHL (exact here: every value they see is >= 0).
 *
 * Iteration order: a row's input is read three times (maximum, sum,
 * output) before and while its output is written; no overlap contract (the
 * planner never shares its bytes).
 */
#include "mpk.h"
#include "mpk_simd.h"

void mpk_softmax_s8_exp_table(const mpk_softmax_s8_params *p, int32_t table[256]) {
  for (int32_t k = 0; k < 256; k++) {
    const int32_t diff = -k;
    table[k] = diff < p->diff_min ? -1
                                  : mpk_exp_on_negative_values(
                                        mpk_srdhm(mpk_shl_wrap(diff, p->input_left_shift),
                                                  p->input_multiplier),
                                        5);
  }
}

static int32_t row_max(const int8_t *in, int32_t n) {
  int32_t c = 0, max = -128;
#if defined(MPK_MVE)
  int8_t m = -128;
  for (; c < n; c += 16) m = vmaxvq_p_s8(m, vldrbq_z_s8(in + c, vctp8q((uint32_t)(n - c))),
                                        vctp8q((uint32_t)(n - c)));
  max = m;
#endif
  for (; c < n; c++) max = in[c] > max ? in[c] : max;
  return max;
}

MPK_API int32_t mpk_softmax_s8_fast(const mpk_softmax_s8_fast_params *p, const int8_t *input,
                                    int8_t *output, void *scratch) {
  (void)scratch;
  if (p->outer < 0 || p->depth <= 0 || !p->exp_table) return MPK_ERR_PARAMS;
  const int32_t *t = p->exp_table;
  for (int32_t r = 0; r < p->outer; r++) {
    const int8_t *in = input + (size_t)r * (size_t)p->depth;
    int8_t *out = output + (size_t)r * (size_t)p->depth;
    const int32_t n = p->depth, max = row_max(in, n);
    int32_t sum = 0, c = 0; /* Q12 */
#if defined(MPK_MVE)
    for (; c < n; c += 4) {
      mve_pred16_t pr = vctp32q((uint32_t)(n - c));
      uint32x4_t k = vreinterpretq_u32_s32(vsubq_s32(vdupq_n_s32(max), vldrbq_z_s32(in + c, pr)));
      int32x4_t e = vldrwq_gather_shifted_offset_z_s32(t, k, pr);
      mve_pred16_t live = vcmpgeq_m_n_s32(e, 0, pr);
      sum = vaddvaq_p_s32(sum, vrshrq_n_s32(e, 12), live);
    }
#endif
    for (; c < n; c++) {
      const int32_t e = t[max - in[c]];
      if (e >= 0) sum += mpk_rdbpot(e, 12);
    }
    int bits_over_unit = 0;
    const int32_t scale = mpk_reciprocal(sum, 12, &bits_over_unit);
    const int exponent = bits_over_unit + 31 - 8;
    if (exponent < 0 || exponent > 31) return MPK_ERR_PARAMS;
    c = 0;
#if defined(MPK_MVE)
    const int32x4_t down = vdupq_n_s32(-exponent), lo = vdupq_n_s32(-128);
    for (; c < n; c += 4) {
      mve_pred16_t pr = vctp32q((uint32_t)(n - c));
      uint32x4_t k = vreinterpretq_u32_s32(vsubq_s32(vdupq_n_s32(max), vldrbq_z_s32(in + c, pr)));
      int32x4_t e = vldrwq_gather_shifted_offset_z_s32(t, k, pr);
      int32x4_t v = vaddq_n_s32(vrshlq_s32(vqrdmulhq_n_s32(e, scale), down), -128);
      v = vminq_s32(vmaxq_s32(v, lo), vdupq_n_s32(127));
      v = vpselq_s32(v, lo, vcmpgeq_n_s32(e, 0));
      vstrbq_p_s32(out + c, v, pr);
    }
#endif
    for (; c < n; c++) {
      const int32_t e = t[max - in[c]];
      out[c] = (int8_t)(e < 0 ? -128
                              : mpk_clamp_i32(mpk_rdbpot(mpk_srdhm(scale, e), exponent) - 128,
                                              -128, 127));
    }
  }
  return MPK_OK;
}
