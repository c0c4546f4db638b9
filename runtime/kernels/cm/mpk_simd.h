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

#include "mpk.h"
#include "mpk_fixed.h"

#include <stdint.h>
#include <string.h>

/* A helper whose constant arguments must specialise its body (a flag
 * tested in an inner loop): inlined into each caller; a loop nest kept
 * out of its caller, so that the caller's live values do not crowd it
 * out of registers (MAYBE_UNUSED: a header function some files do not
 * call). */
#if defined(__GNUC__)
#define MPK_ALWAYS_INLINE inline __attribute__((always_inline))
#define MPK_NOINLINE __attribute__((noinline))
#define MPK_NOINLINE_MAYBE_UNUSED __attribute__((noinline, unused))
#else
#define MPK_ALWAYS_INLINE inline
#define MPK_NOINLINE
#define MPK_NOINLINE_MAYBE_UNUSED inline
#endif

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define MPK_MVE 1
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#define MPK_DSP 1
#include <arm_acle.h>
/* Bytes 0 and 2 of w, and bytes 1 and 3, each pair sign-extended to two
 * int16 halves.  SXTB16 rotates its operand for free; the compiler does
 * not fold a separate rotate into it, so the second form is written out. */
static inline int32_t mpk_even16(uint32_t w) { return (int32_t)__sxtb16(w); }
static inline int32_t mpk_odd16(uint32_t w) {
  int32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
  return r;
}
/* acc + bytes 1 and 3 of w sign-extended, as two int16 halves (SXTAB16
 * with its free rotate). */
static inline uint32_t mpk_add_odd16(uint32_t acc, uint32_t w) {
  uint32_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(acc), "r"(w));
  return r;
}
/* The byte-wise signed maximum and minimum of a and b: SSUB8 sets the GE
 * flag of each byte where a >= b and SEL picks by them; one asm statement,
 * so nothing can come between the two. */
static inline uint32_t mpk_max4_s8(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b));
  return r;
}
static inline uint32_t mpk_min4_s8(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("ssub8 %0, %1, %2\n\tsel %0, %2, %1" : "=&r"(r) : "r"(a), "r"(b));
  return r;
}
#endif

#if defined(MPK_DSP)
/* mpk_dot_2x2 when the second row and the second column each lie k bytes
 * after the first (rows of a [rows][k] filter; the two columns of an
 * im2col pair, or two neighbouring input pixels of a 1x1 convolution), for
 * the whole words of n <= k: one running pointer per operand and k as the
 * offset of both, so that the four accumulators, the widened column words
 * and the pointers keep to registers (written as one asm loop: the
 * compiler's own allocation spills a pointer and the loop bound).  The
 * loop's end is read from memory into a word free at that point: 13
 * registers, which a build with a frame pointer (-O0,
 * -fno-omit-frame-pointer: r7 taken) still has; eight elements a turn pay
 * for that load.
 * Returns how many elements it did (a multiple of 8). */
static inline int32_t mpk_dot_2x2_k(const int8_t *f, const int8_t *c, int32_t k, int32_t n,
                                    int32_t acc[4]) {
  const int32_t whole = n & ~7;
  if (whole == 0) return 0;
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  const int8_t *const end = c + whole;
  uint32_t w0, w1, c0e, c1e, t, u;
  __asm__ volatile("1:\n\t"
                   "ldr %[w1], [%[c], %[k]]\n\t"
                   "ldr %[w0], [%[c]], #4\n\t"
                   "sxtb16 %[c0e], %[w0]\n\t"
                   "sxtb16 %[w0], %[w0], ror #8\n\t"
                   "sxtb16 %[c1e], %[w1]\n\t"
                   "sxtb16 %[w1], %[w1], ror #8\n\t"
                   "ldr %[t], [%[f], %[k]]\n\t"
                   "sxtb16 %[u], %[t]\n\t"
                   "sxtb16 %[t], %[t], ror #8\n\t"
                   "smlad %[a2], %[u], %[c0e], %[a2]\n\t"
                   "smlad %[a3], %[u], %[c1e], %[a3]\n\t"
                   "smlad %[a2], %[t], %[w0], %[a2]\n\t"
                   "smlad %[a3], %[t], %[w1], %[a3]\n\t"
                   "ldr %[t], [%[f]], #4\n\t"
                   "sxtb16 %[u], %[t]\n\t"
                   "sxtb16 %[t], %[t], ror #8\n\t"
                   "smlad %[a0], %[u], %[c0e], %[a0]\n\t"
                   "smlad %[a1], %[u], %[c1e], %[a1]\n\t"
                   "smlad %[a0], %[t], %[w0], %[a0]\n\t"
                   "smlad %[a1], %[t], %[w1], %[a1]\n\t"
                   "ldr %[w1], [%[c], %[k]]\n\t"
                   "ldr %[w0], [%[c]], #4\n\t"
                   "sxtb16 %[c0e], %[w0]\n\t"
                   "sxtb16 %[w0], %[w0], ror #8\n\t"
                   "sxtb16 %[c1e], %[w1]\n\t"
                   "sxtb16 %[w1], %[w1], ror #8\n\t"
                   "ldr %[t], [%[f], %[k]]\n\t"
                   "sxtb16 %[u], %[t]\n\t"
                   "sxtb16 %[t], %[t], ror #8\n\t"
                   "smlad %[a2], %[u], %[c0e], %[a2]\n\t"
                   "smlad %[a3], %[u], %[c1e], %[a3]\n\t"
                   "smlad %[a2], %[t], %[w0], %[a2]\n\t"
                   "smlad %[a3], %[t], %[w1], %[a3]\n\t"
                   "ldr %[t], [%[f]], #4\n\t"
                   "sxtb16 %[u], %[t]\n\t"
                   "sxtb16 %[t], %[t], ror #8\n\t"
                   "smlad %[a0], %[u], %[c0e], %[a0]\n\t"
                   "smlad %[a1], %[u], %[c1e], %[a1]\n\t"
                   "smlad %[a0], %[t], %[w0], %[a0]\n\t"
                   "smlad %[a1], %[t], %[w1], %[a1]\n\t"
                   "ldr %[u], %[end]\n\t"
                   "cmp %[c], %[u]\n\t"
                   "bne 1b"
                   : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [c] "+r"(c),
                     [f] "+r"(f), [w0] "=&r"(w0), [w1] "=&r"(w1), [c0e] "=&r"(c0e),
                     [c1e] "=&r"(c1e), [t] "=&r"(t), [u] "=&r"(u)
                   : [k] "r"(k), [end] "m"(end)
                   : "cc", "memory");
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
  return whole;
}
#endif

/* acc[0] += f0.c0, acc[1] += f0.c1, acc[2] += f1.c0, acc[3] += f1.c1 over
 * n int8 elements: two filter rows against two columns, each value loaded
 * once for two products. */
static inline void mpk_dot_2x2(const int8_t *f0, const int8_t *f1, const int8_t *c0,
                               const int8_t *c1, int32_t n, int32_t acc[4]) {
  int32_t k = 0;
#if defined(MPK_DSP)
  if ((uintptr_t)c1 - (uintptr_t)c0 == (uintptr_t)(f1 - f0) && f1 - f0 >= n)
    k = mpk_dot_2x2_k(f0, c0, (int32_t)(f1 - f0), n, acc);
#endif
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
#if defined(MPK_DSP)
  for (; k + 4 <= n; k += 4) {
    uint32_t w;
    memcpy(&w, f0 + k, 4);
    int32_t f0e = mpk_even16(w), f0o = mpk_odd16(w);
    memcpy(&w, f1 + k, 4);
    int32_t f1e = mpk_even16(w), f1o = mpk_odd16(w);
    memcpy(&w, c0 + k, 4);
    int32_t c0e = mpk_even16(w), c0o = mpk_odd16(w);
    memcpy(&w, c1 + k, 4);
    int32_t c1e = mpk_even16(w), c1o = mpk_odd16(w);
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
#if defined(MPK_DSP)
  for (; k + 4 <= n; k += 4) {
    uint32_t w;
    memcpy(&w, c + k, 4);
    int32_t ce = mpk_even16(w), co = mpk_odd16(w);
    memcpy(&w, f0 + k, 4);
    a0 = __smlad(mpk_even16(w), ce, __smlad(mpk_odd16(w), co, a0));
    memcpy(&w, f1 + k, 4);
    a1 = __smlad(mpk_even16(w), ce, __smlad(mpk_odd16(w), co, a1));
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

#if defined(MPK_DSP)
/* acc[i] += f_i.c for four filter rows against one column: each column
 * word is widened once for four rows. */
static inline void mpk_dot_4x1_dsp(const int8_t *f0, const int8_t *f1, const int8_t *f2,
                                   const int8_t *f3, const int8_t *c, int32_t n, int32_t acc[4]) {
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  int32_t k = 0;
  for (; k + 4 <= n; k += 4) {
    uint32_t w;
    memcpy(&w, c + k, 4);
    const int32_t ce = mpk_even16(w), co = mpk_odd16(w);
    memcpy(&w, f0 + k, 4);
    a0 = __smlad(mpk_even16(w), ce, __smlad(mpk_odd16(w), co, a0));
    memcpy(&w, f1 + k, 4);
    a1 = __smlad(mpk_even16(w), ce, __smlad(mpk_odd16(w), co, a1));
    memcpy(&w, f2 + k, 4);
    a2 = __smlad(mpk_even16(w), ce, __smlad(mpk_odd16(w), co, a2));
    memcpy(&w, f3 + k, 4);
    a3 = __smlad(mpk_even16(w), ce, __smlad(mpk_odd16(w), co, a3));
  }
  for (; k < n; k++) {
    const int32_t x = c[k];
    a0 += f0[k] * x;
    a1 += f1[k] * x;
    a2 += f2[k] * x;
    a3 += f3[k] * x;
  }
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
}
#endif

/* acc + f.c over n int8 elements. */
static inline int32_t mpk_dot_1x1(const int8_t *f, const int8_t *c, int32_t n, int32_t acc) {
  int32_t k = 0;
#if defined(MPK_DSP)
  for (; k + 4 <= n; k += 4) {
    uint32_t w, x;
    memcpy(&w, f + k, 4);
    memcpy(&x, c + k, 4);
    acc = __smlad(mpk_even16(w), mpk_even16(x),
                  __smlad(mpk_odd16(w), mpk_odd16(x), acc));
  }
#endif
  for (; k < n; k++)
    acc += f[k] * c[k];
  return acc;
}

/* mpk_mbqm in fewer instructions, with the same result for every input.
 * The rounding doubling high multiply trunc((ab + nudge) / 2^31), nudge
 * 2^30 for ab >= 0 and 1 - 2^30 below, is floor((ab + 2^30) / 2^31) in
 * both cases (for ab < 0, trunc(x / 2^31) = floor((x + 2^31 - 1) / 2^31)):
 * one 64-bit product and a constant shift.  The rounding right shift is
 * mpk_rdbpot's, in 32 bits (its mask needs no 64-bit shift for r <= 31). */
static inline int32_t mpk_mbqm_fast(int32_t x, int32_t multiplier, int32_t shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  const int32_t a = mpk_shl_wrap(x, left);
  const int32_t y = a == MPK_I32_MIN && multiplier == MPK_I32_MIN
                        ? MPK_I32_MAX
                        : (int32_t)(((int64_t)a * multiplier + ((int64_t)1 << 30)) >> 31);
  const int32_t mask = (int32_t)((1u << right) - 1u);
  const int32_t remainder = y & mask, threshold = (mask >> 1) + (y < 0 ? 1 : 0);
  return (y >> right) + (remainder > threshold ? 1 : 0);
}

/* The taps of a window along one axis that lie in the input: the filter
 * taps f with 0 <= o + d * f < n, as [*lo, *hi) within [0, taps) (empty
 * when *lo == *hi). */
static inline void mpk_tap_range(int32_t o, int32_t d, int32_t taps, int32_t n, int32_t *lo,
                                 int32_t *hi) {
  *lo = o >= 0 ? 0 : (-o + d - 1) / d;
  *hi = n - 1 - o < 0 ? 0 : (n - 1 - o) / d + 1;
  if (*hi > taps) *hi = taps;
  if (*lo > *hi) *lo = *hi;
}

/* The requantisation of one accumulator of output channel `ch`. */
static inline int8_t mpk_requant_one(const mpk_requant *q, int32_t acc, int32_t ch) {
  int32_t i = q->per_channel ? ch : 0;
  int32_t v = mpk_mbqm_fast(acc, q->multiplier[i], q->shift[i]) + q->output_offset;
  return (int8_t)mpk_clamp_i32(v, q->act_min, q->act_max);
}

/* Whether the requantisation is per channel with every one of the n
 * channels' shifts a right shift (-31 <= shift <= -1), as the int8
 * per-channel quantisation gives almost always: mpk_mbqm then needs no
 * left shift and no test of the right one.  Checked once per call (with
 * a multiplier that is not negative, as the quantisation gives, so that
 * the doubling high multiply never saturates).  A channel whose
 * multiplier is 0 (a channel the quantisation found dead: its scale is 0,
 * and its shift 0 as a rule) passes whatever its shift: mpk_mbqm gives 0
 * for it, and so do the vector sequences (VQRDMULH by 0 is 0, and 0
 * stays 0 through the correction and any rounding shift). */
#if defined(MPK_MVE)
static inline int mpk_requant_rs(const mpk_requant *q, int32_t n) {
  if (!q->per_channel) return 0;
  for (int32_t i = 0; i < n; i++)
    if ((q->shift[i] > -1 || q->shift[i] < -31 || q->multiplier[i] < 0) &&
        q->multiplier[i] != 0)
      return 0;
  return 1;
}
#else
/* DSP and portable: per channel or per tensor, every multiplier in
 * (2^30, 2^31) (the quantisation's normalised range, 2^30 itself left
 * out) and every shift in [-31, -2], for mpk_mbqm_r2. */
static inline int mpk_requant_rs(const mpk_requant *q, int32_t n) {
  for (int32_t i = 0; i < (q->per_channel ? n : 1); i++)
    if (q->shift[i] > -2 || q->shift[i] < -31 || q->multiplier[i] <= (1 << 30)) return 0;
  return 1;
}
#endif

/* mpk_mbqm for a right shift or none (-31 <= shift <= 0) and a multiplier that
 * is not negative: the rounding doubling high multiply as one 64-bit
 * product and a constant shift (it cannot saturate), then mpk_rdbpot's
 * rounding right shift. */
static inline int32_t mpk_mbqm_rs(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t y = (int32_t)(((int64_t)x * multiplier + ((int64_t)1 << 30)) >> 31);
  const int right = -shift;
  if (right == 0) return y;
  const int32_t mask = (int32_t)((1u << right) - 1u);
  const int32_t remainder = y & mask, threshold = (mask >> 1) + (y < 0 ? 1 : 0);
  return (y >> right) + (remainder > threshold ? 1 : 0);
}

/* mpk_mbqm for 2^30 < m < 2^31 and a right shift e = -shift of 2 to 31,
 * in one 64-bit multiply-add and one shift.  mpk_mbqm is rdbpot(y, e)
 * with y = floor((x m + 2^30) / 2^31); rdbpot(y, e) is
 * floor((y + 2^(e-1) - [y < 0]) / 2^e), and nested floors of divisions
 * compose, so the result is floor((x m + 2^30 + 2^(30+e) - [y < 0] 2^31)
 * / 2^(31+e)).  For such m, y < 0 exactly when x < 0 (x <= -1 gives
 * x m + 2^30 < 0; x >= 0 does not).  So the addend is +-2^30 (the sign
 * of x) plus 2^(e-2) in the high word, and the result the high word of
 * the sum shifted right by e - 1; no step can overflow (|x m| < 2^62). */
static inline int32_t mpk_mbqm_r2(int32_t x, int32_t m, int32_t shift) {
  const int32_t e2 = -shift - 2;
  const int64_t lo = x < 0 ? -(1 << 30) : (1 << 30);
  const int64_t s = (int64_t)x * m + lo;
  return ((int32_t)(s >> 32) + (1 << e2)) >> (e2 + 1);
}
#if !defined(MPK_MVE)
/* DSP and portable: a channel of mpk_requant_rs (per channel or per
 * tensor), by mpk_mbqm_r2. */
static inline int8_t mpk_requant_rs_one(const mpk_requant *q, int32_t acc, int32_t ch) {
  const int32_t i = q->per_channel ? ch : 0;
  const int32_t v = mpk_mbqm_r2(acc, q->multiplier[i], q->shift[i]) + q->output_offset;
  return (int8_t)mpk_clamp_i32(v, q->act_min, q->act_max);
}
#endif

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


#if defined(MPK_MVE)
/* The requantisation of the accumulators of channels r .. r+3 (those
 * below n), stored as int8 at o + r. */
static inline void mpk_requant_store_x4(const mpk_requant *q, int32x4_t acc, int32_t r, int32_t n,
                                        int8_t *o) {
  mve_pred16_t pr = vctp32q((uint32_t)(n - r));
  int32x4_t mult, shift;
  if (q->per_channel) {
    mult = vldrwq_z_s32(q->multiplier + r, pr);
    shift = vldrwq_z_s32(q->shift + r, pr);
  } else {
    mult = vdupq_n_s32(q->multiplier[0]);
    shift = vdupq_n_s32(q->shift[0]);
  }
  int32x4_t v = vaddq_n_s32(mpk_mbqm_x4(acc, mult, shift), q->output_offset);
  v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(q->act_min)), vdupq_n_s32(q->act_max));
  vstrbq_p_s32(o + r, v, pr);
}

/* The same from four scalar accumulators. */
static inline void mpk_requant_store4(const mpk_requant *q, int32_t a0, int32_t a1, int32_t a2,
                                      int32_t a3, int32_t r, int32_t rows, int8_t *o) {
  int32x4_t acc = vdupq_n_s32(a0);
  acc = vsetq_lane_s32(a1, acc, 1);
  acc = vsetq_lane_s32(a2, acc, 2);
  acc = vsetq_lane_s32(a3, acc, 3);
  mpk_requant_store_x4(q, acc, r, rows, o);
}

/* mpk_requant_store_x4 of four whole rows, out of line (the general
 * sequence, which the short one leaves to the rare requantisations with
 * left shifts). */
static MPK_NOINLINE void mpk_requant_store_x4_call(const mpk_requant *q, int32x4_t acc,
                                                    int32_t r, int8_t *o) {
  mpk_requant_store_x4(q, acc, r, r + 4, o);
}

/* The four accumulators a0 .. a3 of rows r .. r+3 (all below `rows`)
 * plus their folded biases, requantised and stored as int8 at o + r.
 * With rs (every row's shift a right shift, mpk_requant_rs) the sequence
 * is mpk_mbqm_x4's without its left shift and right-shift test: VQRDMULH,
 * a negative value lowered by one, VRSHL by the (negative) shift. */
static inline void mpk_requant_store4_full(const mpk_requant *q, const int32_t *fbias, int32_t a0,
                                           int32_t a1, int32_t a2, int32_t a3, int32_t r,
                                           int rs, int8_t *o) {
  int32x4_t acc = vdupq_n_s32(a0);
  acc = vsetq_lane_s32(a1, acc, 1);
  acc = vsetq_lane_s32(a2, acc, 2);
  acc = vsetq_lane_s32(a3, acc, 3);
  acc = vaddq_s32(acc, vldrwq_s32(fbias + r));
  if (!rs) {
    mpk_requant_store_x4_call(q, acc, r, o);
    return;
  }
  int32x4_t y = vqrdmulhq_s32(acc, vldrwq_s32(q->multiplier + r));
  y = vqaddq_s32(y, vshrq_n_s32(y, 31));
  y = vaddq_n_s32(vrshlq_s32(y, vldrwq_s32(q->shift + r)), q->output_offset);
  y = vminq_s32(vmaxq_s32(y, vdupq_n_s32(q->act_min)), vdupq_n_s32(q->act_max));
  vstrbq_s32(o + r, y);
}

/* Two rows against two columns over n int8 elements (a predicated last
 * block for n not a multiple of 16), each 16-byte block loaded once for
 * two products: a row f0 and a row f1, 2 * k bytes apart, against the
 * columns c0 and c1.  The four sums go into lanes lo and lo + 2 of va
 * (column c0) and vb (column c1), row f0 in lane lo: VMOV of two
 * general registers into two lanes. */
#define MPK_DOT2X2_LANES(F0, F1, LO)                                                       \
  do {                                                                                     \
    const int8_t *p0_ = (F0), *p1_ = (F1), *x0_ = c0, *x1_ = c1;                            \
    int32_t a0_ = 0, a1_ = 0, b0_ = 0, b1_ = 0;                                            \
    for (int32_t i_ = nb; i_ > 0; i_--) {                                                  \
      const int8x16_t v0_ = vldrbq_s8(x0_), v1_ = vldrbq_s8(x1_);                          \
      const int8x16_t w0_ = vldrbq_s8(p0_), w1_ = vldrbq_s8(p1_);                          \
      a0_ = vmladavaq_s8(a0_, w0_, v0_);                                                   \
      a1_ = vmladavaq_s8(a1_, w1_, v0_);                                                   \
      b0_ = vmladavaq_s8(b0_, w0_, v1_);                                                   \
      b1_ = vmladavaq_s8(b1_, w1_, v1_);                                                   \
      x0_ += 16, x1_ += 16, p0_ += 16, p1_ += 16;                                          \
    }                                                                                      \
    if (tail) {                                                                            \
      const int8x16_t v0_ = vldrbq_z_s8(x0_, pk), v1_ = vldrbq_z_s8(x1_, pk);              \
      const int8x16_t w0_ = vldrbq_z_s8(p0_, pk), w1_ = vldrbq_z_s8(p1_, pk);              \
      a0_ = vmladavaq_s8(a0_, w0_, v0_);                                                   \
      a1_ = vmladavaq_s8(a1_, w1_, v0_);                                                   \
      b0_ = vmladavaq_s8(b0_, w0_, v1_);                                                   \
      b1_ = vmladavaq_s8(b1_, w1_, v1_);                                                   \
    }                                                                                      \
    va = vsetq_lane_s32(a1_, vsetq_lane_s32(a0_, va, LO), (LO) + 2);                       \
    vb = vsetq_lane_s32(b1_, vsetq_lane_s32(b0_, vb, LO), (LO) + 2);                       \
  } while (0)

/* Two columns against the rows of the filter, four rows at a time (the
 * whole groups of four; returns where the rest starts): rows r and r+2,
 * then r+1 and r+3, against both columns (MPK_DOT2X2_LANES), so that the
 * four sums of each column land in the lanes of one vector, which gets
 * the folded biases and is requantised and stored at once.  One function
 * with its loops inline: no call or memory round trip per row pair. */
static MPK_NOINLINE int32_t mpk_matmul4x2_mve(const int8_t *filter, const int32_t *fbias,
                                              const mpk_requant *q, int32_t rows, int32_t k,
                                              const int8_t *c0, const int8_t *c1, int8_t *o0,
                                              int8_t *o1, int rs) {
  const int32_t nb = k >> 4, tail = k & 15;
  const mve_pred16_t pk = vctp8q((uint32_t)tail);
  /* the params in locals: the int8 stores may alias them */
  const int32_t *const mp = q->multiplier, *const sp = q->shift, oo = q->output_offset;
  const int32x4_t lo = vdupq_n_s32(q->act_min), hi = vdupq_n_s32(q->act_max);
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const int8_t *f = filter + (size_t)r * (size_t)k;
    int32x4_t va = vdupq_n_s32(0), vb = va;
    MPK_DOT2X2_LANES(f, f + 2 * (size_t)k, 0);
    MPK_DOT2X2_LANES(f + k, f + 3 * (size_t)k, 1);
    const int32x4_t bias = vldrwq_s32(fbias + r);
    va = vaddq_s32(va, bias);
    vb = vaddq_s32(vb, bias);
    if (!rs) {
      mpk_requant_store_x4_call(q, va, r, o0);
      mpk_requant_store_x4_call(q, vb, r, o1);
      continue;
    }
    const int32x4_t m = vldrwq_s32(mp + r), sh = vldrwq_s32(sp + r);
    va = vqrdmulhq_s32(va, m);
    vb = vqrdmulhq_s32(vb, m);
    va = vqaddq_s32(va, vshrq_n_s32(va, 31));
    vb = vqaddq_s32(vb, vshrq_n_s32(vb, 31));
    va = vaddq_n_s32(vrshlq_s32(va, sh), oo);
    vb = vaddq_n_s32(vrshlq_s32(vb, sh), oo);
    vstrbq_s32(o0 + r, vminq_s32(vmaxq_s32(va, lo), hi));
    vstrbq_s32(o1 + r, vminq_s32(vmaxq_s32(vb, lo), hi));
  }
  return r;
}
#undef MPK_DOT2X2_LANES

/* One or two columns of k <= 32 bytes against the whole groups of four
 * rows (returns where the rest starts): each column is one vector (two 0)
 * or two (two 1), loaded once under a predicate (its lanes from k on are 0), so
 * a filter row may be loaded as whole vectors, its lanes past k (the next
 * row's bytes) adding nothing; only where such a load would pass the
 * filter's end is it predicated too. */
#define MPK_SHORT_ROWS(LOAD)                                                               \
  do {                                                                                     \
    const int8x16_t w0 = LOAD(f, pa), w1 = LOAD(f + k, pa);                                \
    const int8x16_t w2 = LOAD(f + 2 * k, pa), w3 = LOAD(f + 3 * k, pa);                    \
    a0 = vmladavq_s8(w0, v0), a1 = vmladavq_s8(w1, v0);                                    \
    a2 = vmladavq_s8(w2, v0), a3 = vmladavq_s8(w3, v0);                                    \
    if (c1)                                                                                \
      b0 = vmladavq_s8(w0, v1), b1 = vmladavq_s8(w1, v1), b2 = vmladavq_s8(w2, v1),        \
      b3 = vmladavq_s8(w3, v1);                                                            \
    if (two) {                                                                             \
      const int8x16_t x0 = LOAD(f + 16, pb), x1 = LOAD(f + k + 16, pb);                    \
      const int8x16_t x2 = LOAD(f + 2 * k + 16, pb), x3 = LOAD(f + 3 * k + 16, pb);        \
      a0 = vmladavaq_s8(a0, x0, u0), a1 = vmladavaq_s8(a1, x1, u0);                        \
      a2 = vmladavaq_s8(a2, x2, u0), a3 = vmladavaq_s8(a3, x3, u0);                        \
      if (c1)                                                                              \
        b0 = vmladavaq_s8(b0, x0, u1), b1 = vmladavaq_s8(b1, x1, u1),                      \
        b2 = vmladavaq_s8(b2, x2, u1), b3 = vmladavaq_s8(b3, x3, u1);                      \
    }                                                                                      \
  } while (0)
#define MPK_LOAD_WHOLE(p, pr) vldrbq_s8(p)
static MPK_ALWAYS_INLINE int32_t mpk_matmul_short_mve(const int8_t *filter,
                                                     const int32_t *fbias, const mpk_requant *q,
                                                     int32_t rows, int32_t k, const int8_t *c0,
                                                     const int8_t *c1, int8_t *o0, int8_t *o1,
                                                     int rs, const int two) {
  const mve_pred16_t pa = vctp8q((uint32_t)(two ? 16 : k));
  const mve_pred16_t pb = vctp8q((uint32_t)(two ? k - 16 : 0));
  const int8x16_t v0 = vldrbq_z_s8(c0, pa), v1 = c1 ? vldrbq_z_s8(c1, pa) : v0;
  const int8x16_t u0 = two ? vldrbq_z_s8(c0 + 16, pb) : v0;
  const int8x16_t u1 = two && c1 ? vldrbq_z_s8(c1 + 16, pb) : u0;
  const size_t total = (size_t)rows * (size_t)k, last = (size_t)(two ? 32 : 16);
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const int8_t *f = filter + (size_t)r * (size_t)k;
    int32_t a0, a1, a2, a3, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    if ((size_t)(r + 3) * (size_t)k + last <= total)
      MPK_SHORT_ROWS(MPK_LOAD_WHOLE);
    else
      MPK_SHORT_ROWS(vldrbq_z_s8);
    mpk_requant_store4_full(q, fbias, a0, a1, a2, a3, r, rs, o0);
    if (c1) mpk_requant_store4_full(q, fbias, b0, b1, b2, b3, r, rs, o1);
  }
  return r;
}
#undef MPK_LOAD_WHOLE
#undef MPK_SHORT_ROWS

/* One column of 32 < k <= 64 bytes against the whole groups of four rows
 * (returns where the rest starts): the column is held in nb = 3 or 4
 * vectors, loaded once (the last under a predicate, its lanes past k 0),
 * so that each row is nb loads and nb VMLADAVA; a row's last block is
 * loaded whole where the load stays in the filter. */
#define MPK_COL_ROW(A, F, LOAD)                                                            \
  do {                                                                                     \
    A = vmladavq_s8(vldrbq_s8(F), x0);                                                     \
    A = vmladavaq_s8(A, vldrbq_s8((F) + 16), x1);                                          \
    if (nb == 3)                                                                           \
      A = vmladavaq_s8(A, LOAD((F) + 32, pl), x2);                                         \
    else                                                                                   \
      A = vmladavaq_s8(vmladavaq_s8(A, vldrbq_s8((F) + 32), x2), LOAD((F) + 48, pl), x3);  \
  } while (0)
#define MPK_LOAD_WHOLE(p, pr) vldrbq_s8(p)
static MPK_ALWAYS_INLINE int32_t mpk_matmul_col_mve(const int8_t *filter, const int32_t *fbias,
                                                   const mpk_requant *q, int32_t rows,
                                                   int32_t k, const int8_t *c, int8_t *o,
                                                   int rs, const int nb) {
  const mve_pred16_t pl = vctp8q((uint32_t)(k - 16 * (nb - 1)));
  const int8x16_t x0 = vldrbq_s8(c), x1 = vldrbq_s8(c + 16);
  const int8x16_t x2 = nb == 3 ? vldrbq_z_s8(c + 32, pl) : vldrbq_s8(c + 32);
  const int8x16_t x3 = nb == 3 ? x2 : vldrbq_z_s8(c + 48, pl);
  const size_t total = (size_t)rows * (size_t)k, span = (size_t)(16 * nb);
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const int8_t *f = filter + (size_t)r * (size_t)k;
    int32_t a0, a1, a2, a3;
    if ((size_t)(r + 3) * (size_t)k + span <= total) {
      MPK_COL_ROW(a0, f, MPK_LOAD_WHOLE);
      MPK_COL_ROW(a1, f + k, MPK_LOAD_WHOLE);
      MPK_COL_ROW(a2, f + 2 * k, MPK_LOAD_WHOLE);
      MPK_COL_ROW(a3, f + 3 * k, MPK_LOAD_WHOLE);
    } else {
      MPK_COL_ROW(a0, f, vldrbq_z_s8);
      MPK_COL_ROW(a1, f + k, vldrbq_z_s8);
      MPK_COL_ROW(a2, f + 2 * k, vldrbq_z_s8);
      MPK_COL_ROW(a3, f + 3 * k, vldrbq_z_s8);
    }
    mpk_requant_store4_full(q, fbias, a0, a1, a2, a3, r, rs, o);
  }
  return r;
}
#undef MPK_LOAD_WHOLE
#undef MPK_COL_ROW

/* The specialisations of the short-column paths, each a function of its
 * own so that its vectors and accumulators keep to registers. */
static MPK_NOINLINE int32_t mpk_matmul_short1_mve(const int8_t *filter, const int32_t *fbias,
                                                  const mpk_requant *q, int32_t rows, int32_t k,
                                                  const int8_t *c0, const int8_t *c1, int8_t *o0,
                                                  int8_t *o1, int rs) {
  return mpk_matmul_short_mve(filter, fbias, q, rows, k, c0, c1, o0, o1, rs, 0);
}
static MPK_NOINLINE int32_t mpk_matmul_short2_mve(const int8_t *filter, const int32_t *fbias,
                                                  const mpk_requant *q, int32_t rows, int32_t k,
                                                  const int8_t *c0, const int8_t *c1, int8_t *o0,
                                                  int8_t *o1, int rs) {
  return mpk_matmul_short_mve(filter, fbias, q, rows, k, c0, c1, o0, o1, rs, 1);
}
static MPK_NOINLINE int32_t mpk_matmul_col3_mve(const int8_t *filter, const int32_t *fbias,
                                                const mpk_requant *q, int32_t rows, int32_t k,
                                                const int8_t *c, int8_t *o, int rs) {
  return mpk_matmul_col_mve(filter, fbias, q, rows, k, c, o, rs, 3);
}
static MPK_NOINLINE int32_t mpk_matmul_col4_mve(const int8_t *filter, const int32_t *fbias,
                                                const mpk_requant *q, int32_t rows, int32_t k,
                                                const int8_t *c, int8_t *o, int rs) {
  return mpk_matmul_col_mve(filter, fbias, q, rows, k, c, o, rs, 4);
}

/* One column against the rows of the filter from row r on, four at a time: each
 * 16-byte block of the column loaded once for the four rows (VMLADAVA
 * per row); whole groups of four without a predicate or a test, a last
 * group of fewer rows reads row r again for the missing ones and stores
 * only the real ones. */
static inline void mpk_matmul4_mve(const int8_t *filter, const int32_t *fbias,
                                   const mpk_requant *q, int32_t rows, int32_t k,
                                   const int8_t *c, int8_t *o, int rs, int32_t r) {
  const int32_t kb = k & ~15;
  const mve_pred16_t pk = vctp8q((uint32_t)(k - kb));
  for (; r + 4 <= rows; r += 4) {
    const int8_t *f0 = filter + (size_t)r * (size_t)k, *f1 = f0 + k, *f2 = f1 + k, *f3 = f2 + k;
    const int8_t *cc = c;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t i = 0; i < kb; i += 16) {
      const int8x16_t vc = vldrbq_s8(cc);
      a0 = vmladavaq_s8(a0, vldrbq_s8(f0), vc);
      a1 = vmladavaq_s8(a1, vldrbq_s8(f1), vc);
      a2 = vmladavaq_s8(a2, vldrbq_s8(f2), vc);
      a3 = vmladavaq_s8(a3, vldrbq_s8(f3), vc);
      cc += 16, f0 += 16, f1 += 16, f2 += 16, f3 += 16;
    }
    if (kb < k) {
      const int8x16_t vc = vldrbq_z_s8(cc, pk);
      a0 = vmladavaq_s8(a0, vldrbq_z_s8(f0, pk), vc);
      a1 = vmladavaq_s8(a1, vldrbq_z_s8(f1, pk), vc);
      a2 = vmladavaq_s8(a2, vldrbq_z_s8(f2, pk), vc);
      a3 = vmladavaq_s8(a3, vldrbq_z_s8(f3, pk), vc);
    }
    mpk_requant_store4_full(q, fbias, a0, a1, a2, a3, r, rs, o);
  }
  if (r < rows) {
    const int8_t *f0 = filter + (size_t)r * (size_t)k;
    const int8_t *f1 = r + 1 < rows ? f0 + k : f0;
    const int8_t *f2 = r + 2 < rows ? f0 + 2 * k : f0;
    int32_t a0 = fbias[r], a1 = r + 1 < rows ? fbias[r + 1] : 0;
    int32_t a2 = r + 2 < rows ? fbias[r + 2] : 0;
    int32_t i = 0;
    for (; i + 16 <= k; i += 16) {
      int8x16_t vc = vldrbq_s8(c + i);
      a0 = vmladavaq_s8(a0, vldrbq_s8(f0 + i), vc);
      a1 = vmladavaq_s8(a1, vldrbq_s8(f1 + i), vc);
      a2 = vmladavaq_s8(a2, vldrbq_s8(f2 + i), vc);
    }
    if (i < k) {
      int8x16_t vc = vldrbq_z_s8(c + i, pk);
      a0 = vmladavaq_s8(a0, vldrbq_z_s8(f0 + i, pk), vc);
      a1 = vmladavaq_s8(a1, vldrbq_z_s8(f1 + i, pk), vc);
      a2 = vmladavaq_s8(a2, vldrbq_z_s8(f2 + i, pk), vc);
    }
    mpk_requant_store4(q, a0, a1, a2, 0, r, rows, o);
  }
}
#endif

#if defined(MPK_DSP)
/* mpk_mbqm_r2 with the row's constants taken out (rnd = 2^(e-2) and
 * sh = e - 1 for the right shift e = -shift), then the output offset and
 * the clamp, as int8.  The 64-bit addend +-2^30 is built from the sign
 * word: its high word is x >> 31 and its low word 2^30 plus that word's
 * low bit shifted to the top (0xC0000000 for -2^30), and SMLAL adds
 * x * m to it. */
static inline int8_t mpk_requant_r2_pre(int32_t x, int32_t m, int32_t rnd, int32_t sh,
                                        int32_t off, int32_t amin, int32_t amax) {
  int32_t hi = x >> 31;
  uint32_t lo = 0x40000000u + ((uint32_t)hi << 31);
  __asm__("smlal %0, %1, %2, %3" : "+r"(lo), "+r"(hi) : "r"(x), "r"(m));
  int32_t v = ((hi + rnd) >> sh) + off;
  v = v < amin ? amin : v;
  return (int8_t)(v > amax ? amax : v);
}

/* Two columns against the rows of the filter, rows in pairs (returns
 * where the rest starts), every row's requantisation mpk_mbqm_r2's
 * (mpk_requant_rs): the four sums of a pair of rows by mpk_dot_2x2_k's
 * asm loop, which wants the second column k bytes after the first (two
 * neighbouring pixels of a 1x1 convolution of stride 1, an im2col pair):
 * other columns of at most 32 bytes are copied side by side onto the
 * stack first (a strided 1x1 convolution), longer ones take the C loop.
 * Each row's rounding constants are computed once for both columns.
 * The convolutions call it themselves for their pairs of pixels (an even
 * out_c), so that mpk_matmul_s8_conv, which keeps the other layers,
 * stays as it was. */
static MPK_NOINLINE_MAYBE_UNUSED int32_t mpk_matmul2x2_rs_dsp(const int8_t *filter,
                                                              const int32_t *fbias,
                                                              const mpk_requant *q, int32_t rows,
                                                              int32_t k, const int8_t *c0,
                                                              const int8_t *c1, int8_t *o0,
                                                              int8_t *o1) {
  const int32_t off = q->output_offset, amin = q->act_min, amax = q->act_max;
  const int32_t *const mp = q->multiplier, *const sp = q->shift;
  const int32_t pcm = q->per_channel ? -1 : 0;
  int8_t pair[64];
  if ((uintptr_t)c1 - (uintptr_t)c0 != (uintptr_t)k && k <= 32) {
    memcpy(pair, c0, (size_t)k);
    memcpy(pair + k, c1, (size_t)k);
    c0 = pair, c1 = pair + k;
  }
  const int same = (uintptr_t)c1 - (uintptr_t)c0 == (uintptr_t)k;
  int32_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const int8_t *f0 = filter + (size_t)r * (size_t)k, *f1 = f0 + k;
    int32_t acc[4] = {fbias[r], fbias[r], fbias[r + 1], fbias[r + 1]};
    int32_t n = same ? mpk_dot_2x2_k(f0, c0, k, k, acc) : 0;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (; n + 4 <= k; n += 4) {
      uint32_t w;
      memcpy(&w, c0 + n, 4);
      const int32_t c0e = mpk_even16(w), c0o = mpk_odd16(w);
      memcpy(&w, c1 + n, 4);
      const int32_t c1e = mpk_even16(w), c1o = mpk_odd16(w);
      memcpy(&w, f0 + n, 4);
      int32_t fe = mpk_even16(w), fo = mpk_odd16(w);
      a0 = __smlad(fe, c0e, __smlad(fo, c0o, a0));
      a1 = __smlad(fe, c1e, __smlad(fo, c1o, a1));
      memcpy(&w, f1 + n, 4);
      fe = mpk_even16(w), fo = mpk_odd16(w);
      a2 = __smlad(fe, c0e, __smlad(fo, c0o, a2));
      a3 = __smlad(fe, c1e, __smlad(fo, c1o, a3));
    }
    for (; n < k; n++) {
      const int32_t x0 = c0[n], x1 = c1[n], w0 = f0[n], w1 = f1[n];
      a0 += w0 * x0, a1 += w0 * x1, a2 += w1 * x0, a3 += w1 * x1;
    }
    const int32_t ma = mp[r & pcm], ea = -sp[r & pcm] - 2;
    const int32_t mb = mp[(r + 1) & pcm], eb = -sp[(r + 1) & pcm] - 2;
    const int32_t ra = 1 << ea, rb = 1 << eb;
    o0[r] = mpk_requant_r2_pre(a0, ma, ra, ea + 1, off, amin, amax);
    o1[r] = mpk_requant_r2_pre(a1, ma, ra, ea + 1, off, amin, amax);
    o0[r + 1] = mpk_requant_r2_pre(a2, mb, rb, eb + 1, off, amin, amax);
    o1[r + 1] = mpk_requant_r2_pre(a3, mb, rb, eb + 1, off, amin, amax);
  }
  return r;
}
#endif

/* The matrix-multiply core of the 1x1, im2col and fully connected kernels:
 * o0[r] = requant(fbias[r] + filter row r . c0) for every row r < rows of
 * the [rows][k] filter, and the same into o1 from c1 when c1 is not NULL.
 * DSP and portable: rows go in pairs against both columns, so each column
 * byte loaded serves two rows and each filter byte two columns (DSP, one
 * column: rows in fours).  Helium:
 * rows go in fours against one column, then the other, so that the four
 * accumulators are requantised as one vector.  Outputs are written in
 * increasing r and the columns read again for every row group, so an
 * output may not overlap a column; no output byte is read.  rs: every
 * row's shift is a right shift (mpk_requant_rs). */
static MPK_ALWAYS_INLINE void mpk_matmul_s8_paths(const int8_t *filter, const int32_t *fbias,
                                                   const mpk_requant *q, int32_t rows,
                                                   int32_t k, const int8_t *c0,
                                                   const int8_t *c1, int8_t *o0, int8_t *o1,
                                                   int rs, const int short_paths) {
#if !defined(MPK_MVE)
  (void)short_paths;
#endif
#if defined(MPK_MVE)
  /* four rows per column: one vector of accumulators, requantised at once */
  if (short_paths && k <= 32) {
    /* short columns: one or two vectors each */
    const int32_t r = k <= 16 ? mpk_matmul_short1_mve(filter, fbias, q, rows, k, c0, c1, o0, o1, rs)
                              : mpk_matmul_short2_mve(filter, fbias, q, rows, k, c0, c1, o0, o1, rs);
    if (r < rows) {
      mpk_matmul4_mve(filter, fbias, q, rows, k, c0, o0, rs, r);
      if (c1) mpk_matmul4_mve(filter, fbias, q, rows, k, c1, o1, rs, r);
    }
    return;
  }
  if (short_paths && k <= 64) {
    /* a column of three or four vectors, one column at a time */
    for (int j = 0; j < 2; j++) {
      const int8_t *c = j ? c1 : c0;
      int8_t *o = j ? o1 : o0;
      if (!c) break;
      const int32_t r = k <= 48 ? mpk_matmul_col3_mve(filter, fbias, q, rows, k, c, o, rs)
                                : mpk_matmul_col4_mve(filter, fbias, q, rows, k, c, o, rs);
      if (r < rows) mpk_matmul4_mve(filter, fbias, q, rows, k, c, o, rs, r);
    }
    return;
  }
  if (c1) {
    /* both columns for the whole groups of four rows, then the rest */
    const int32_t r = mpk_matmul4x2_mve(filter, fbias, q, rows, k, c0, c1, o0, o1, rs);
    if (r < rows) {
      mpk_matmul4_mve(filter, fbias, q, rows, k, c0, o0, rs, r);
      mpk_matmul4_mve(filter, fbias, q, rows, k, c1, o1, rs, r);
    }
    return;
  }
  mpk_matmul4_mve(filter, fbias, q, rows, k, c0, o0, rs, 0);
#else
  /* the short sequence when every row's shift is a right shift
   * (mpk_mbqm_r2); each row's multiplier and shift read once for both
   * columns, the params read into locals first (an int8 store may alias
   * them) */
  const int32_t off = q->output_offset, amin = q->act_min, amax = q->act_max;
  const int32_t *const mp = q->multiplier, *const sp = q->shift;
  const int32_t pcm = q->per_channel ? -1 : 0;
#define MPK_ROW(m_, s_, r_) const int32_t m_ = mp[(r_) & pcm], s_ = sp[(r_) & pcm]
#define MPK_RQ(acc, m_, s_)                                                                 \
  (int8_t) mpk_clamp_i32((rs ? mpk_mbqm_r2(acc, m_, s_) : mpk_mbqm_fast(acc, m_, s_)) + off, \
                         amin, amax)
  int32_t r = 0;
#if defined(MPK_DSP)
  /* one column (a fully connected layer's single batch): rows in fours */
  for (; !c1 && r + 4 <= rows; r += 4) {
    const int8_t *f0 = filter + (size_t)r * (size_t)k;
    int32_t acc[4] = {fbias[r], fbias[r + 1], fbias[r + 2], fbias[r + 3]};
    mpk_dot_4x1_dsp(f0, f0 + k, f0 + 2 * k, f0 + 3 * k, c0, k, acc);
    for (int j = 0; j < 4; j++) {
      MPK_ROW(m, s, r + j);
      o0[r + j] = MPK_RQ(acc[j], m, s);
    }
  }
#endif
  for (; r + 2 <= rows; r += 2) {
    const int8_t *f0 = filter + (size_t)r * (size_t)k, *f1 = f0 + k;
    MPK_ROW(ma, sa, r);
    MPK_ROW(mb, sb, r + 1);
    if (c1) {
      int32_t acc[4] = {fbias[r], fbias[r], fbias[r + 1], fbias[r + 1]};
      mpk_dot_2x2(f0, f1, c0, c1, k, acc);
      o0[r] = MPK_RQ(acc[0], ma, sa);
      o1[r] = MPK_RQ(acc[1], ma, sa);
      o0[r + 1] = MPK_RQ(acc[2], mb, sb);
      o1[r + 1] = MPK_RQ(acc[3], mb, sb);
    } else {
      int32_t acc[2] = {fbias[r], fbias[r + 1]};
      mpk_dot_2x1(f0, f1, c0, k, acc);
      o0[r] = MPK_RQ(acc[0], ma, sa);
      o0[r + 1] = MPK_RQ(acc[1], mb, sb);
    }
  }
  if (r < rows) {
    const int8_t *f = filter + (size_t)r * (size_t)k;
    MPK_ROW(m, s, r);
    if (c1) {
      int32_t acc[2] = {fbias[r], fbias[r]};
      mpk_dot_2x1(c0, c1, f, k, acc);
      o0[r] = MPK_RQ(acc[0], m, s);
      o1[r] = MPK_RQ(acc[1], m, s);
    } else {
      o0[r] = MPK_RQ(mpk_dot_1x1(f, c0, k, fbias[r]), m, s);
    }
  }
#undef MPK_ROW
#undef MPK_RQ
#endif
}

/* The matrix multiply of FULLY_CONNECTED (its Helium path without the
 * short-column ones, which its layers rarely need: less code) and of the
 * convolutions (all of them), one function each per file. */
static MPK_NOINLINE_MAYBE_UNUSED void mpk_matmul_s8(const int8_t *filter, const int32_t *fbias,
                                       const mpk_requant *q, int32_t rows, int32_t k,
                                       const int8_t *c0, const int8_t *c1, int8_t *o0, int8_t *o1,
                                       int rs) {
  mpk_matmul_s8_paths(filter, fbias, q, rows, k, c0, c1, o0, o1, rs, 0);
}
static MPK_NOINLINE_MAYBE_UNUSED void mpk_matmul_s8_conv(const int8_t *filter, const int32_t *fbias,
                                            const mpk_requant *q, int32_t rows, int32_t k,
                                            const int8_t *c0, const int8_t *c1, int8_t *o0,
                                            int8_t *o1, int rs) {
  mpk_matmul_s8_paths(filter, fbias, q, rows, k, c0, c1, o0, o1, rs, 1);
}

#endif /* MPK_SIMD_H */
