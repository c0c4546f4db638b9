/*
 * mpk_simd.h — the inner loops of the specialised kernels, one path per
 * instruction set, chosen by the compiler's predefined macros:
 *
 *   __ARM_FEATURE_MVE      Helium (Cortex-M55): 16 int8 products summed per
 *                          VMLADAVA, tails with predicated loads (an
 *                          inactive lane reads no memory);
 *   __ARM_FEATURE_DSP      the DSP extension (Cortex-M4, M7, M33): SXTB16
 *                          widens two int8 to two int16, SMLAD adds two
 *                          products per instruction;
 *   neither                portable C.
 *
 * Every path computes the same int32 sums: integer addition wraps alike in
 * any order (the DSP and MVE instructions keep the low 32 bits), so the
 * kernels' bytes do not depend on the path.  Written from Arm's ACLE and
 * MVE intrinsics documentation (arm_acle.h, arm_mve.h).
 *
 * Internal to the kernel library; not part of the ABI.
 */
#ifndef MPK_SIMD_H
#define MPK_SIMD_H

#include "mpk_fixed.h"

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define MPK_MVE 1
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#define MPK_DSP 1
#include <arm_acle.h>
/* the odd bytes of w as the even ones (the compiler emits SXTB16's
 * rotation or a ROR) */
static inline uint32_t mpk_ror8(uint32_t w) { return (w >> 8) | (w << 24); }
#endif

/* acc[0] += f0.c0, acc[1] += f0.c1, acc[2] += f1.c0, acc[3] += f1.c1 over
 * n int8 elements: two filter rows against two columns, each value loaded
 * once for two products. */
static inline void mpk_dot_2x2(const int8_t *f0, const int8_t *f1, const int8_t *c0,
                               const int8_t *c1, int32_t n, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  int32_t k = 0;
#if defined(MPK_MVE)
  for (; k + 16 <= n; k += 16) {
    int8x16_t vf0 = vldrbq_s8(f0 + k), vf1 = vldrbq_s8(f1 + k);
    int8x16_t vc0 = vldrbq_s8(c0 + k), vc1 = vldrbq_s8(c1 + k);
    a0 = vmladavaq_s8(a0, vf0, vc0);
    a1 = vmladavaq_s8(a1, vf0, vc1);
    a2 = vmladavaq_s8(a2, vf1, vc0);
    a3 = vmladavaq_s8(a3, vf1, vc1);
  }
  if (k < n) {
    mve_pred16_t pr = vctp8q((uint32_t)(n - k));
    int8x16_t vf0 = vldrbq_z_s8(f0 + k, pr), vf1 = vldrbq_z_s8(f1 + k, pr);
    int8x16_t vc0 = vldrbq_z_s8(c0 + k, pr), vc1 = vldrbq_z_s8(c1 + k, pr);
    a0 = vmladavaq_s8(a0, vf0, vc0);
    a1 = vmladavaq_s8(a1, vf0, vc1);
    a2 = vmladavaq_s8(a2, vf1, vc0);
    a3 = vmladavaq_s8(a3, vf1, vc1);
    k = n;
  }
#elif defined(MPK_DSP)
  for (; k + 4 <= n; k += 4) {
    uint32_t w;
    memcpy(&w, f0 + k, 4);
    int32_t f0e = (int32_t)__sxtb16(w), f0o = (int32_t)__sxtb16(mpk_ror8(w));
    memcpy(&w, f1 + k, 4);
    int32_t f1e = (int32_t)__sxtb16(w), f1o = (int32_t)__sxtb16(mpk_ror8(w));
    memcpy(&w, c0 + k, 4);
    int32_t c0e = (int32_t)__sxtb16(w), c0o = (int32_t)__sxtb16(mpk_ror8(w));
    memcpy(&w, c1 + k, 4);
    int32_t c1e = (int32_t)__sxtb16(w), c1o = (int32_t)__sxtb16(mpk_ror8(w));
    a0 = __smlad(f0e, c0e, __smlad(f0o, c0o, a0));
    a1 = __smlad(f0e, c1e, __smlad(f0o, c1o, a1));
    a2 = __smlad(f1e, c0e, __smlad(f1o, c0o, a2));
    a3 = __smlad(f1e, c1e, __smlad(f1o, c1o, a3));
  }
#endif
  for (; k < n; k++) {
    int32_t x0 = c0[k], x1 = c1[k], w0 = f0[k], w1 = f1[k];
    a0 += w0 * x0;
    a1 += w0 * x1;
    a2 += w1 * x0;
    a3 += w1 * x1;
  }
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
}

/* acc[0] += f0.c, acc[1] += f1.c: two filter rows against one column. */
static inline void mpk_dot_2x1(const int8_t *f0, const int8_t *f1, const int8_t *c, int32_t n,
                               int32_t acc[2]) {
  int32_t a0 = acc[0], a1 = acc[1];
  int32_t k = 0;
#if defined(MPK_MVE)
  for (; k + 16 <= n; k += 16) {
    int8x16_t vc = vldrbq_s8(c + k);
    a0 = vmladavaq_s8(a0, vldrbq_s8(f0 + k), vc);
    a1 = vmladavaq_s8(a1, vldrbq_s8(f1 + k), vc);
  }
  if (k < n) {
    mve_pred16_t pr = vctp8q((uint32_t)(n - k));
    int8x16_t vc = vldrbq_z_s8(c + k, pr);
    a0 = vmladavaq_s8(a0, vldrbq_z_s8(f0 + k, pr), vc);
    a1 = vmladavaq_s8(a1, vldrbq_z_s8(f1 + k, pr), vc);
    k = n;
  }
#elif defined(MPK_DSP)
  for (; k + 4 <= n; k += 4) {
    uint32_t w;
    memcpy(&w, c + k, 4);
    int32_t ce = (int32_t)__sxtb16(w), co = (int32_t)__sxtb16(mpk_ror8(w));
    memcpy(&w, f0 + k, 4);
    a0 = __smlad((int32_t)__sxtb16(w), ce, __smlad((int32_t)__sxtb16(mpk_ror8(w)), co, a0));
    memcpy(&w, f1 + k, 4);
    a1 = __smlad((int32_t)__sxtb16(w), ce, __smlad((int32_t)__sxtb16(mpk_ror8(w)), co, a1));
  }
#endif
  for (; k < n; k++) {
    int32_t x = c[k];
    a0 += f0[k] * x;
    a1 += f1[k] * x;
  }
  acc[0] = a0;
  acc[1] = a1;
}

/* acc + f.c over n int8 elements. */
static inline int32_t mpk_dot_1x1(const int8_t *f, const int8_t *c, int32_t n, int32_t acc) {
  int32_t k = 0;
#if defined(MPK_MVE)
  for (; k + 16 <= n; k += 16)
    acc = vmladavaq_s8(acc, vldrbq_s8(f + k), vldrbq_s8(c + k));
  if (k < n) {
    mve_pred16_t pr = vctp8q((uint32_t)(n - k));
    acc = vmladavaq_s8(acc, vldrbq_z_s8(f + k, pr), vldrbq_z_s8(c + k, pr));
    k = n;
  }
#elif defined(MPK_DSP)
  for (; k + 4 <= n; k += 4) {
    uint32_t w, x;
    memcpy(&w, f + k, 4);
    memcpy(&x, c + k, 4);
    acc = __smlad((int32_t)__sxtb16(w), (int32_t)__sxtb16(x),
                  __smlad((int32_t)__sxtb16(mpk_ror8(w)), (int32_t)__sxtb16(mpk_ror8(x)), acc));
  }
#endif
  for (; k < n; k++)
    acc += f[k] * c[k];
  return acc;
}

/* The requantisation of one accumulator of output channel `ch`. */
static inline int8_t mpk_requant_one(const mpk_requant *q, int32_t acc, int32_t ch) {
  int32_t i = q->per_channel ? ch : 0;
  int32_t v = mpk_mbqm(acc, q->multiplier[i], q->shift[i]) + q->output_offset;
  return (int8_t)mpk_clamp_i32(v, q->act_min, q->act_max);
}

/* The matrix-multiply core of the 1x1, im2col and fully connected kernels:
 * o0[r] = requant(fbias[r] + filter row r . c0) for every row r < rows of
 * the [rows][k] filter, and the same into o1 from c1 when c1 is not NULL.
 * Rows go in pairs, so each column byte loaded serves two rows and each
 * filter byte two columns.  Writes o0[r] and o1[r] in increasing r and
 * reads c0 and c1 again for every row pair, so an output may not overlap
 * a column; no output byte is read. */
static inline void mpk_matmul_s8(const int8_t *filter, const int32_t *fbias, const mpk_requant *q,
                                 int32_t rows, int32_t k, const int8_t *c0, const int8_t *c1,
                                 int8_t *o0, int8_t *o1) {
  int32_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const int8_t *f0 = filter + (size_t)r * (size_t)k, *f1 = f0 + k;
    if (c1) {
      int32_t acc[4] = {fbias[r], fbias[r], fbias[r + 1], fbias[r + 1]};
      mpk_dot_2x2(f0, f1, c0, c1, k, acc);
      o0[r] = mpk_requant_one(q, acc[0], r);
      o1[r] = mpk_requant_one(q, acc[1], r);
      o0[r + 1] = mpk_requant_one(q, acc[2], r + 1);
      o1[r + 1] = mpk_requant_one(q, acc[3], r + 1);
    } else {
      int32_t acc[2] = {fbias[r], fbias[r + 1]};
      mpk_dot_2x1(f0, f1, c0, k, acc);
      o0[r] = mpk_requant_one(q, acc[0], r);
      o0[r + 1] = mpk_requant_one(q, acc[1], r + 1);
    }
  }
  if (r < rows) {
    const int8_t *f = filter + (size_t)r * (size_t)k;
    if (c1) {
      int32_t acc[2] = {fbias[r], fbias[r]};
      mpk_dot_2x1(c0, c1, f, k, acc);
      o0[r] = mpk_requant_one(q, acc[0], r);
      o1[r] = mpk_requant_one(q, acc[1], r);
    } else {
      o0[r] = mpk_requant_one(q, mpk_dot_1x1(f, c0, k, fbias[r]), r);
    }
  }
}

#if defined(MPK_MVE)
/* mpk_mbqm on four lanes, exactly: VQRDMULH is the saturating rounding
 * doubling high multiply; VRSHL by -e rounds ties up, so a negative value
 * is first lowered by one (saturating) when e > 0, which turns the tie
 * rounding away from zero as mpk_rdbpot does and changes nothing else. */
static inline int32x4_t mpk_mbqm_x4(int32x4_t x, int32x4_t mult, int32x4_t shift) {
  const int32x4_t zero = vdupq_n_s32(0), one = vdupq_n_s32(1);
  int32x4_t left = vmaxq_s32(shift, zero);
  int32x4_t right = vmaxq_s32(vnegq_s32(shift), zero);
  int32x4_t y = vqrdmulhq_s32(vshlq_s32(x, left), mult);
  int32x4_t fix = vandq_s32(vshrq_n_s32(y, 31), vminq_s32(right, one));
  return vrshlq_s32(vqsubq_s32(y, fix), vnegq_s32(right));
}
#endif

#endif /* MPK_SIMD_H */
