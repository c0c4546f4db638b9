/*
 * mpk_mul_fast.c — the specialised int8 MUL a module built for a Cortex-M
 * target runs (module.target) when both inputs have the output's shape:
 * the reference kernel's arithmetic (mpk_binary.c, TFLite's quantised
 * multiply: out = mbqm((x1 + in1_offset) * (x2 + in2_offset)) + out_offset,
 * clamped) with the rescale done by mpk_mbqm_fast, or four lanes at a time
 * with Helium (mpk_mbqm_x4).  The same bytes on every path.
 *
 * Iteration order (for the in-place contract at the end of this file):
 * elements in increasing order, four at a time on Helium; the four outputs
 * from element i are written after elements i to i+3 of both inputs were
 * read, and nothing below i + 4 is read again.
 */
#include "mpk.h"
#include "mpk_simd.h"

MPK_API int32_t mpk_mul_s8_fast(const mpk_binary_q_params *p, const int8_t *input1,
                                const int8_t *input2, int8_t *output, void *scratch) {
  (void)scratch;
  if (!p->b.elementwise || p->b.size < 0 || p->op != MPK_BIN_MUL || p->type != MPK_TYPE_INT8)
    return MPK_ERR_PARAMS;
  int32_t i = 0;
#if defined(MPK_MVE)
  const int32x4_t mo = vdupq_n_s32(p->out_multiplier), so = vdupq_n_s32(p->out_shift);
  const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
  for (; i < p->b.size; i += 4) {
    mve_pred16_t pr = vctp32q((uint32_t)(p->b.size - i));
    int32x4_t x1 = vaddq_n_s32(vldrbq_z_s32(input1 + i, pr), p->in1_offset);
    int32x4_t x2 = vaddq_n_s32(vldrbq_z_s32(input2 + i, pr), p->in2_offset);
    int32x4_t v = vaddq_n_s32(mpk_mbqm_x4(vmulq_s32(x1, x2), mo, so), p->out_offset);
    vstrbq_p_s32(output + i, vminq_s32(vmaxq_s32(v, lo), hi), pr);
  }
#endif
  for (; i < p->b.size; i++) {
    int32_t prod = (input1[i] + p->in1_offset) * (input2[i] + p->in2_offset);
    int32_t v = mpk_mbqm_fast(prod, p->out_multiplier, p->out_shift) + p->out_offset;
    output[i] = (int8_t)mpk_clamp_i32(v, p->act_min, p->act_max);
  }
  return MPK_OK;
}

/* Overlap contract (mpk.h), for either input: when the outputs up to
 * element j (exclusive) are written, the input still to be read starts at
 * element j, so the output may start at its input or below it (gap 0). */
int64_t mpk_mul_s8_fast_overlap_gap(int32_t size) {
  if (size <= 0) return MPK_NO_OVERLAP;
  return mpk_elementwise_overlap_gap(size, 1, 1);
}
