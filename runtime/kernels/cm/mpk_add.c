/*
 * mpk_add_fast.c — the specialised int8 ADD a module built for a Cortex-M
 * target runs (module.target) when both inputs have the output's shape:
 * the reference kernel's arithmetic (mpk_elementwise.c, TFLite's
 * quantised add) with the rescales done by mpk_mbqm_fast, or four lanes at
 * a time with Helium (mpk_mbqm_x4).  When every rescale is a right shift
 * or none, as the quantised add's scales give, a shorter sequence: the
 * input offset and the left shift as one multiply-add, each rescale a
 * high multiply and (for a shift below 0) one rounding shift, the
 * multipliers and shifts as scalars.  The same bytes on every path.
 *
 * Iteration order (for the in-place contract at the end of this file):
 * elements in increasing order, four at a time on Helium; the four outputs
 * from element i are written after elements i to i+3 of both inputs were
 * read, and nothing below i + 4 is read again.
 */
#include "mpk.h"
#include "mpk_simd.h"

/* Whether every rescale is a right shift or none (-31 <= shift <= 0, as
 * the quantised add's scales give: the input of the larger scale has
 * shift 0), with multipliers that are not negative and a left shift
 * below 31. */
static int right_shifts(const mpk_add_s8_params *p) {
  return p->left_shift >= 0 && p->left_shift < 31 && p->in1_shift <= 0 && p->in1_shift >= -31 &&
         p->in2_shift <= 0 && p->in2_shift >= -31 && p->out_shift <= 0 && p->out_shift >= -31 &&
         p->in1_multiplier >= 0 && p->in2_multiplier >= 0 && p->out_multiplier >= 0;
}

#if defined(MPK_MVE)
/* mpk_mbqm of four lanes by a scalar multiplier m and shift s with
 * -31 <= s <= 0: VQRDMULH, then for s < 0 a negative value lowered by one
 * and VRSHL by s (mpk_mbqm_x4's sequence without its left shift); `z`
 * says s is 0 (a constant in each specialisation). */
static MPK_ALWAYS_INLINE int32x4_t add_mbqm(int32x4_t x, int32_t m, int32_t s, const int z) {
  x = vqrdmulhq_n_s32(x, m);
  return z ? x : vrshlq_n_s32(vqaddq_s32(x, vshrq_n_s32(x, 31)), s);
}

/* The right-shift ADD (right_shifts) from element i on, z1, z2, zo saying
 * which shifts are 0: (x + offset) << left as one VMLA of the constant
 * offset << left, the three rescales by add_mbqm with the multipliers and
 * shifts as scalars; four elements per step, a last step of fewer under a
 * predicate.  The params are read into locals first (an int8 store may
 * alias them). */
static MPK_ALWAYS_INLINE void add_rs(const mpk_add_s8_params *p, const int8_t *input1,
                                     const int8_t *input2, int8_t *output, const int z1,
                                     const int z2, const int zo) {
  const int32_t scale = (int32_t)(1u << p->left_shift);
  const int32x4_t c1 = vdupq_n_s32(mpk_shl_wrap(p->in1_offset, p->left_shift));
  const int32x4_t c2 = vdupq_n_s32(mpk_shl_wrap(p->in2_offset, p->left_shift));
  const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
  const int32_t m1 = p->in1_multiplier, m2 = p->in2_multiplier, mo = p->out_multiplier;
  const int32_t s1 = p->in1_shift, s2 = p->in2_shift, so = p->out_shift, oo = p->out_offset;
  const int32_t n = p->b.size;
#define MPK_ADD4(LOAD, STORE)                                                              \
  do {                                                                                     \
    const int32x4_t x1 = add_mbqm(vmlaq_n_s32(c1, LOAD(input1 + i), scale), m1, s1, z1);   \
    const int32x4_t x2 = add_mbqm(vmlaq_n_s32(c2, LOAD(input2 + i), scale), m2, s2, z2);   \
    const int32x4_t v = vaddq_n_s32(add_mbqm(vaddq_s32(x1, x2), mo, so, zo), oo);          \
    STORE(output + i, vminq_s32(vmaxq_s32(v, lo), hi));                                    \
  } while (0)
#define MPK_LOAD4(a) vldrbq_s32(a)
#define MPK_LOAD4P(a) vldrbq_z_s32(a, pr)
#define MPK_STORE4P(a, v) vstrbq_p_s32(a, v, pr)
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) MPK_ADD4(MPK_LOAD4, vstrbq_s32);
  if (i < n) {
    const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
    MPK_ADD4(MPK_LOAD4P, MPK_STORE4P);
  }
#undef MPK_ADD4
#undef MPK_LOAD4
#undef MPK_LOAD4P
#undef MPK_STORE4P
}
#endif

MPK_API int32_t mpk_add_s8_fast(const mpk_add_s8_params *p, const int8_t *input1,
                                const int8_t *input2, int8_t *output, void *scratch) {
  (void)scratch;
  if (!p->b.elementwise || p->b.size < 0) return MPK_ERR_PARAMS;
  int32_t i = 0;
#if defined(MPK_MVE)
  if (right_shifts(p) && p->out_shift < 0 && (p->in1_shift < 0 || p->in2_shift < 0)) {
    /* one input's shift is 0 as a rule (the larger scale), or neither */
    if (p->in2_shift == 0 && p->in1_shift < 0)
      add_rs(p, input1, input2, output, 0, 1, 0);
    else if (p->in1_shift == 0 && p->in2_shift < 0)
      add_rs(p, input1, input2, output, 1, 0, 0);
    else
      add_rs(p, input1, input2, output, 0, 0, 0 /* both below 0 */);
    return MPK_OK;
  }
  const int32x4_t left = vdupq_n_s32(p->left_shift);
  const int32x4_t m1 = vdupq_n_s32(p->in1_multiplier), s1 = vdupq_n_s32(p->in1_shift);
  const int32x4_t m2 = vdupq_n_s32(p->in2_multiplier), s2 = vdupq_n_s32(p->in2_shift);
  const int32x4_t mo = vdupq_n_s32(p->out_multiplier), so = vdupq_n_s32(p->out_shift);
  const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
  for (; i < p->b.size; i += 4) {
    mve_pred16_t pr = vctp32q((uint32_t)(p->b.size - i));
    int32x4_t x1 = vshlq_s32(vaddq_n_s32(vldrbq_z_s32(input1 + i, pr), p->in1_offset), left);
    int32x4_t x2 = vshlq_s32(vaddq_n_s32(vldrbq_z_s32(input2 + i, pr), p->in2_offset), left);
    int32x4_t sum = vaddq_s32(mpk_mbqm_x4(x1, m1, s1), mpk_mbqm_x4(x2, m2, s2));
    int32x4_t v = vaddq_n_s32(mpk_mbqm_x4(sum, mo, so), p->out_offset);
    vstrbq_p_s32(output + i, vminq_s32(vmaxq_s32(v, lo), hi), pr);
  }
#else
  if (right_shifts(p)) {
    /* every rescale a right shift or none: (x + offset) << left as one
     * multiply-add of the constant offset << left, each mpk_mbqm as
     * mpk_mbqm_rs (or the high multiply alone for shift 0); the params as
     * locals (an int8 store may alias them) */
    const int32_t scale = (int32_t)(1u << p->left_shift);
    const int32_t c1 = mpk_shl_wrap(p->in1_offset, p->left_shift);
    const int32_t c2 = mpk_shl_wrap(p->in2_offset, p->left_shift);
    const int32_t m1 = p->in1_multiplier, m2 = p->in2_multiplier, mo = p->out_multiplier;
    const int32_t s1 = p->in1_shift, s2 = p->in2_shift, so = p->out_shift, oo = p->out_offset;
    const int32_t lo = p->act_min, hi = p->act_max, n = p->b.size;
    for (; i < n; i++) {
      const int32_t x1 = (int32_t)((uint32_t)input1[i] * (uint32_t)scale + (uint32_t)c1);
      const int32_t x2 = (int32_t)((uint32_t)input2[i] * (uint32_t)scale + (uint32_t)c2);
      const int32_t v = mpk_mbqm_rs(mpk_mbqm_rs(x1, m1, s1) + mpk_mbqm_rs(x2, m2, s2), mo, so) + oo;
      output[i] = (int8_t)mpk_clamp_i32(v, lo, hi);
    }
    return MPK_OK;
  }
#endif
  for (; i < p->b.size; i++) {
    int32_t x1 = mpk_shl_wrap(input1[i] + p->in1_offset, p->left_shift);
    int32_t x2 = mpk_shl_wrap(input2[i] + p->in2_offset, p->left_shift);
    int32_t sum = mpk_mbqm_fast(x1, p->in1_multiplier, p->in1_shift) +
                  mpk_mbqm_fast(x2, p->in2_multiplier, p->in2_shift);
    int32_t v = mpk_mbqm_fast(sum, p->out_multiplier, p->out_shift) + p->out_offset;
    output[i] = (int8_t)mpk_clamp_i32(v, p->act_min, p->act_max);
  }
  return MPK_OK;
}

/* Overlap contract (mpk.h), for either input.  When the outputs up to
 * element j (exclusive, j a multiple of 4 or the size) are written, the
 * input still to be read starts at element j: safe when O + j <= I + j, so
 * the output may start at its input or below it (gap 0), the reference
 * contract of an int8 elementwise kernel (mpk_elementwise.c). */
int64_t mpk_add_s8_fast_overlap_gap(int32_t size) {
  if (size <= 0) return MPK_NO_OVERLAP;
  return mpk_elementwise_overlap_gap(size, 1, 1);
}
