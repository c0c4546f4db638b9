/*
 * matmul.c — lowering of BATCH_MATMUL (int8, int16, float32) onto
 * runtime/kernels/ref/mpk_matmul.c.
 *
 * Batch dimensions broadcast as TensorFlow Lite Micro's Prepare allows
 * (equal, or 1 on one side; ranks 2 to 5, the shorter operand extended
 * with leading 1s); the int8 multiplier is GetQuantizedConvolution-
 * Multipler's (the scale product in float), and so is int16's, whose
 * zero points TensorFlow Lite Micro requires to be 0.
 *
 * Not here: hybrid (float with int8 operands) and int32 outputs, which
 * TensorFlow Lite Micro refuses too.
 */
#include "lower/common.h"
#include "lower/families.h"

enum { OPT_BATCH_MATMUL = 101 };

const fdesc mp_lower_batch_matmul_fields[] = {
    F_I32X6(mpk_batch_matmul_params, batch_dims),  F_I32X6(mpk_batch_matmul_params, lhs_strides),
    F_I32X6(mpk_batch_matmul_params, rhs_strides), F_I32(mpk_batch_matmul_params, rows),
    F_I32(mpk_batch_matmul_params, cols),          F_I32(mpk_batch_matmul_params, depth),
    F_I32(mpk_batch_matmul_params, adj_x),         F_I32(mpk_batch_matmul_params, adj_y),
    F_I32(mpk_batch_matmul_params, lhs_offset),    F_I32(mpk_batch_matmul_params, rhs_offset),
    F_I32(mpk_batch_matmul_params, output_offset), F_I32(mpk_batch_matmul_params, multiplier),
    F_I32(mpk_batch_matmul_params, shift),         F_END};

/* Dimension d of t's shape extended to rank r with leading 1s. */
static int32_t ext_dim(const mp_lower_ctx *c, int32_t t, uint32_t r, uint32_t d) {
  uint32_t tr = rank(c, t);
  return d < r - tr ? 1 : dim(c, t, d - (r - tr));
}

mp_status mp_lower_batch_matmul(mp_lower_ctx *c) {
  int32_t lhs = in_t(c, 0), rhs = in_t(c, 1), out = out_t(c, 0);
  if (lhs < 0 || rhs < 0 || out < 0) return mp_lower_malformed(c, "needs two inputs and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_BATCH_MATMUL, "BatchMatMulOptions", &o);
  if (st != MP_OK) return st;
  bool adj_x = mp_lower_opt_bool(&o, 0, false), adj_y = mp_lower_opt_bool(&o, 1, false);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  uint32_t rl = rank(c, lhs), rr = rank(c, rhs), r = rl > rr ? rl : rr;
  if (rl < 2 || rr < 2 || r > 5)
    return mp_lower_unsupported(c, "ranks %u and %u (supported: 2 to 5)", rl, rr);
  int32_t n_l, n_r, n_o;
  if (!elems_i32(c, lhs, &n_l) || !elems_i32(c, rhs, &n_r) || !elems_i32(c, out, &n_o))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  mpk_batch_matmul_params *p = &c->lo->params.batch_matmul;
  int32_t l0 = ext_dim(c, lhs, r, r - 2), l1 = ext_dim(c, lhs, r, r - 1);
  int32_t r0 = ext_dim(c, rhs, r, r - 2), r1 = ext_dim(c, rhs, r, r - 1);
  p->rows = adj_x ? l1 : l0;
  p->depth = adj_x ? l0 : l1;
  p->cols = adj_y ? r0 : r1;
  p->adj_x = adj_x;
  p->adj_y = adj_y;
  if ((adj_y ? r1 : r0) != p->depth)
    return mp_lower_malformed(c, "depths %d and %d differ", p->depth, adj_y ? r1 : r0);
  /* batch dimensions, right-aligned in the kernel's MPK_MAX_DIMS */
  int32_t ls = 1, rs = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    p->batch_dims[d] = 1;
    p->lhs_strides[d] = p->rhs_strides[d] = 0;
  }
  uint32_t nbd = r - 2;
  uint64_t batches = 1;
  for (int d = (int)nbd - 1; d >= 0; d--) {
    int32_t a = ext_dim(c, lhs, r, (uint32_t)d), b = ext_dim(c, rhs, r, (uint32_t)d);
    if (a != b && a != 1 && b != 1)
      return mp_lower_malformed(c, "batch dimension %d: %d and %d do not broadcast", d, a, b);
    int32_t n = a > b ? a : b;
    uint32_t k = MPK_MAX_DIMS - nbd + (uint32_t)d;
    p->batch_dims[k] = n;
    p->lhs_strides[k] = a == 1 ? 0 : ls;
    p->rhs_strides[k] = b == 1 ? 0 : rs;
    ls *= a;
    rs *= b;
    batches *= (uint64_t)n;
    if (rank(c, out) != r || dim(c, out, (uint32_t)d) != n)
      return mp_lower_malformed(c, "output batch dimension %d is not %d", d, n);
  }
  if (rank(c, out) != r || dim(c, out, r - 2) != p->rows || dim(c, out, r - 1) != p->cols ||
      elems(c, out) != batches * (uint64_t)p->rows * (uint64_t)p->cols)
    return mp_lower_malformed(c, "output is not [..., %d, %d]", p->rows, p->cols);
  int32_t dt = dtype(c, lhs);
  if (dt == MP_DTYPE_FLOAT32 && dtype(c, rhs) == dt && dtype(c, out) == dt) {
    mp_lower_set_kernel(c, MP_K_BATCH_MATMUL_F32);
    mp_lower_add_arg(c, lhs, false, "const float *");
    mp_lower_add_arg(c, rhs, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    return MP_OK;
  }
  bool wide = dt == MP_DTYPE_INT16;
  if ((dt != MP_DTYPE_INT8 && !wide) || dtype(c, rhs) != dt || dtype(c, out) != dt)
    return mp_lower_unsupported(c,
                                "inputs %s and %s, output %s (supported: int8, int16, float32)",
                                mp_dtype_name(dt), mp_dtype_name(dtype(c, rhs)),
                                mp_dtype_name(dtype(c, out)));
  float sl, sr, so;
  int32_t zl, zr, zo;
  if (!quant(c, lhs, &sl, &zl) || !quant(c, rhs, &sr, &zr) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "%s tensors without quantisation parameters",
                                mp_dtype_name(dt));
  if (wide && (zl != 0 || zr != 0 || zo != 0))
    return mp_lower_unsupported(c, "int16 zero points %d, %d and %d (TensorFlow Lite Micro "
                                   "requires 0)",
                                (int)zl, (int)zr, (int)zo);
  float product = sl * sr;
  mp_lower_quantize_multiplier(c, (double)product / (double)so, &p->multiplier, &p->shift);
  p->lhs_offset = -zl;
  p->rhs_offset = -zr;
  p->output_offset = zo;
  if (wide) {
    /* TFLite's 64-bit requantisation takes its accumulator within
     * [-2^47, 2^47) and shifts below 8: 131072 products of -32768 by
     * -32768 make 2^47 */
    if (p->depth > 131071)
      return mp_lower_unsupported(c, "int16 depth %d: sums of products reach 2^47, beyond the "
                                     "range of TFLite's 64-bit requantisation (depth 131071 at "
                                     "most)",
                                  p->depth);
    if (p->shift >= 8) return mp_lower_unsupported(c, "an int16 scale of 2^7 or more");
    mp_lower_set_kernel(c, MP_K_BATCH_MATMUL_S16);
    mp_lower_add_arg(c, lhs, false, "const int16_t *");
    mp_lower_add_arg(c, rhs, false, "const int16_t *");
    mp_lower_add_arg(c, out, true, "int16_t *");
    return MP_OK;
  }
  mp_lower_set_kernel(c, MP_K_BATCH_MATMUL_S8);
  mp_lower_add_arg(c, lhs, false, "const int8_t *");
  mp_lower_add_arg(c, rhs, false, "const int8_t *");
  mp_lower_add_arg(c, out, true, "int8_t *");
  return MP_OK;
}
