/*
 * eval.c — running a lowered operator on the host, at convert time, with
 * the same reference kernel the emitted module would call
 * (runtime/kernels/ref, linked into the library).
 *
 * The one idea: constant folding (src/graph/fold.c) must give exactly the
 * bytes the device would compute, so it does not reimplement an operator:
 * it lowers it as usual and calls the kernel function with the lowered
 * params (their arrays already point at the lowered op's own data) and the
 * tensors' bytes, following the calling convention of lower.h.
 *
 * It covers the data-movement, conversion and elementwise kernels, the
 * ones a constant subgraph (shape arithmetic, constant conversions) uses;
 * any other kernel is MP_ERR_UNSUPPORTED and the operator then runs on the
 * device as before.  It has no init hooks and no op-local scratch above
 * what the caller passes.
 */
/* strong references: the kernels this file runs on the host must be
 * linked in (mpk.h declares them weak for modules built without them) */
#define MPK_API
#include "lower/lower.h"

#include "mpk_binary.h"
#include "mpk_slice.h"
#include "mpk_unary.h"

mp_status mp_lower_eval(const mp_lowered_op *lo, void *const *args, void *scratch) {
  if (!lo->supported || lo->noop) return MP_ERR_UNSUPPORTED;
  const mp_kparams *p = &lo->params;
  int32_t st;
  /* every kernel here takes (params, in..., out, scratch) */
  switch (lo->kernel) {
  case MP_K_COPY:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_copy(&p->copy, args[0], args[1], scratch);
    break;
  case MP_K_STRIDED_COPY:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_strided_copy(&p->strided_copy, args[0], args[1], scratch);
    break;
  case MP_K_SHAPE:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_shape(&p->shape, args[0], args[1], scratch);
    break;
  case MP_K_CAST:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_cast(&p->cast, args[0], args[1], scratch);
    break;
  case MP_K_TRANSPOSE:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_transpose(&p->transpose, args[0], args[1], scratch);
    break;
  case MP_K_PAD:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_pad(&p->pad, args[0], args[1], scratch);
    break;
  case MP_K_REQUANTIZE:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_requantize(&p->requantize, args[0], args[1], scratch);
    break;
  case MP_K_UNARY_Q:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_unary_q(&p->unary_q, args[0], args[1], scratch);
    break;
  case MP_K_LOGISTIC_S8:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_logistic_s8(&p->logistic_s8, args[0], args[1], scratch);
    break;
  case MP_K_LUT_S8:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_lut_s8(&p->lut_s8, args[0], args[1], scratch);
    break;
  case MP_K_UNARY_F32:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_unary_f32(&p->unary_f32, args[0], args[1], scratch);
    break;
  case MP_K_CONCAT:
    if (lo->n_args != 2 || lo->args[0].kind != MP_LARG_TENSOR_ARRAY) return MP_ERR_INTERNAL;
    st = mpk_concat(&p->concat, (const void *const *)args[0], args[1], scratch);
    break;
  case MP_K_BINARY_Q:
    if (lo->n_args != 3) return MP_ERR_INTERNAL;
    st = mpk_binary_q(&p->binary_q, args[0], args[1], args[2], scratch);
    break;
  case MP_K_BINARY_F32:
    if (lo->n_args != 3) return MP_ERR_INTERNAL;
    st = mpk_binary_f32(&p->binary_f32, args[0], args[1], args[2], scratch);
    break;
  case MP_K_GATHER:
    if (lo->n_args != 3) return MP_ERR_INTERNAL;
    st = mpk_gather(&p->gather, args[0], args[1], args[2], scratch);
    break;
  case MP_K_GATHER_ND:
    if (lo->n_args != 3) return MP_ERR_INTERNAL;
    st = mpk_gather_nd(&p->gather_nd, args[0], args[1], args[2], scratch);
    break;
  case MP_K_SPACE_BATCH:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_space_batch(&p->space_batch, args[0], args[1], scratch);
    break;
  case MP_K_ZEROS:
    if (lo->n_args != 2) return MP_ERR_INTERNAL;
    st = mpk_zeros(&p->zeros, args[0], args[1], scratch);
    break;
  default: return MP_ERR_UNSUPPORTED;
  }
  return st == MPK_OK ? MP_OK : MP_ERR_INTERNAL;
}
