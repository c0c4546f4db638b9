/*
 * mpk_matmul.c — BATCH_MATMUL, int8, int16 and float32, in TFLite
 * Micro's reference order: each output element sums over the depth in
 * increasing order; the integer sum (int32 for int8, int64 for int16) is
 * requantised once.
 */
#include "mpk.h"
#include "mpk_fixed.h"

/* The batch walk: for output matrix `b`, the lhs and rhs matrix indices. */
static void batch_of(const mpk_batch_matmul_params *p, int32_t b, int32_t *l, int32_t *r) {
  int32_t li = 0, ri = 0;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    int32_t coord = b % p->batch_dims[d];
    b /= p->batch_dims[d];
    li += coord * p->lhs_strides[d];
    ri += coord * p->rhs_strides[d];
  }
  *l = li;
  *r = ri;
}

static int32_t n_batches(const mpk_batch_matmul_params *p) {
  int32_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    n = p->batch_dims[d] > 0 && n >= 0 ? n * p->batch_dims[d] : -1;
  return p->rows > 0 && p->cols > 0 && p->depth > 0 ? n : -1;
}

/* Element (i, k) of lhs and (k, j) of rhs within one matrix. */
static int32_t lhs_at(const mpk_batch_matmul_params *p, int32_t i, int32_t k) {
  return p->adj_x ? k * p->rows + i : i * p->depth + k;
}
static int32_t rhs_at(const mpk_batch_matmul_params *p, int32_t k, int32_t j) {
  return p->adj_y ? j * p->depth + k : k * p->cols + j;
}

/* The walk of both kernels over the output matrices and their elements:
 * an ACC_T accumulator per element, PRODUCT(lhs_value, rhs_value) added
 * over the depth in increasing order, STORE(acc) the element's value. */
#define MATMUL_WALK(p, T, ACC_T, PRODUCT, STORE)                                                   \
  const int32_t nb = n_batches(p), lsz = (p)->rows * (p)->depth, rsz = (p)->depth * (p)->cols;     \
  if (nb < 0) return MPK_ERR_PARAMS;                                                               \
  for (int32_t b = 0; b < nb; b++) {                                                               \
    int32_t li, ri;                                                                                \
    batch_of(p, b, &li, &ri);                                                                      \
    const T *l = lhs + li * lsz, *r = rhs + ri * rsz;                                              \
    T *out = output + b * (p)->rows * (p)->cols;                                                   \
    for (int32_t i = 0; i < (p)->rows; i++)                                                        \
      for (int32_t j = 0; j < (p)->cols; j++) {                                                    \
        ACC_T acc = 0;                                                                             \
        for (int32_t k = 0; k < (p)->depth; k++)                                                   \
          acc += PRODUCT(l[lhs_at(p, i, k)], r[rhs_at(p, k, j)]);                                  \
        out[i * (p)->cols + j] = STORE(acc);                                                       \
      }                                                                                            \
  }

MPK_API int32_t mpk_batch_matmul_s8(const mpk_batch_matmul_params *p, const int8_t *lhs,
                                    const int8_t *rhs, int8_t *output, void *scratch) {
  (void)scratch;
#define PRODUCT_S8(x, y) ((int32_t)(x) + p->lhs_offset) * ((int32_t)(y) + p->rhs_offset)
#define STORE_S8(acc)                                                                              \
  ((int8_t)mpk_clamp_i32(mpk_mbqm(acc, p->multiplier, p->shift) + p->output_offset, -128, 127))
  MATMUL_WALK(p, int8_t, int32_t, PRODUCT_S8, STORE_S8)
#undef PRODUCT_S8
#undef STORE_S8
  return MPK_OK;
}

MPK_API int32_t mpk_batch_matmul_s16(const mpk_batch_matmul_params *p, const int16_t *lhs,
                                     const int16_t *rhs, int16_t *output, void *scratch) {
  (void)scratch;
#define PRODUCT_S16(x, y) ((int64_t)(x) + p->lhs_offset) * ((int64_t)(y) + p->rhs_offset)
#define STORE_S16(acc)                                                                             \
  ((int16_t)mpk_clamp_i32(mpk_mbqm64(acc, p->multiplier, p->shift) + p->output_offset, -32768,     \
                          32767))
  MATMUL_WALK(p, int16_t, int64_t, PRODUCT_S16, STORE_S16)
#undef PRODUCT_S16
#undef STORE_S16
  return MPK_OK;
}

MPK_API int32_t mpk_batch_matmul_f32(const mpk_batch_matmul_params *p, const float *lhs,
                                     const float *rhs, float *output, void *scratch) {
  (void)scratch;
#define PRODUCT_F32(x, y) (x) * (y)
#define STORE_F32(acc) (acc)
  MATMUL_WALK(p, float, float, PRODUCT_F32, STORE_F32)
#undef PRODUCT_F32
#undef STORE_F32
  return MPK_OK;
}
