/*
 * lower_resize.c — lowering of RESIZE_NEAREST_NEIGHBOR and
 * RESIZE_BILINEAR onto runtime/kernels/ref/mpk_resize.c.
 *
 * The size input must be a constant that agrees with the output's
 * declared NHWC shape; align_corners and half_pixel_centers come from the
 * options.  The quantised resizes copy or interpolate stored integers, so
 * input and output must share their quantisation.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

enum { OPT_RESIZE_BILINEAR = 15, OPT_RESIZE_NEAREST_NEIGHBOR = 74 };

const fdesc mp_lower_resize_fields[] = {F_I32(mpk_resize_params, elem_size),
                                        F_I32(mpk_resize_params, batches),
                                        F_I32(mpk_resize_params, in_h),
                                        F_I32(mpk_resize_params, in_w),
                                        F_I32(mpk_resize_params, depth),
                                        F_I32(mpk_resize_params, out_h),
                                        F_I32(mpk_resize_params, out_w),
                                        F_I32(mpk_resize_params, align_corners),
                                        F_I32(mpk_resize_params, half_pixel_centers),
                                        F_END};

mp_status mp_lower_resize(mp_lower_ctx *c) {
  bool bilinear = c->op->builtin_code == OP_RESIZE_BILINEAR;
  int32_t in = in_t(c, 0), size = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || size < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, a size and an output");
  mp_lower_opts o;
  mp_status st = bilinear ? mp_lower_open_opts(c, OPT_RESIZE_BILINEAR, "ResizeBilinearOptions", &o)
                          : mp_lower_open_opts(c, OPT_RESIZE_NEAREST_NEIGHBOR,
                                               "ResizeNearestNeighborOptions", &o);
  if (st != MP_OK) return st;
  bool align = mp_lower_opt_bool(&o, bilinear ? 2 : 0, false);
  bool half = mp_lower_opt_bool(&o, bilinear ? 3 : 1, false);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (rank(c, in) != 4 || rank(c, out) != 4)
    return mp_lower_malformed(c, "input and output must be NHWC (rank 4)");
  int64_t hw[2];
  uint32_t n = 0;
  if (!mp_lower_const_ints(c, size, hw, 2, &n) || n != 2)
    return mp_lower_unsupported(c, "the size must be a constant of two elements");
  if (hw[0] != dim(c, out, 1) || hw[1] != dim(c, out, 2) || dim(c, in, 0) != dim(c, out, 0) ||
      dim(c, in, 3) != dim(c, out, 3) || hw[0] <= 0 || hw[1] <= 0 || dim(c, in, 1) <= 0 ||
      dim(c, in, 2) <= 0)
    return mp_lower_malformed(c, "size [%lld, %lld] and the output's shape do not agree",
                              (long long)hw[0], (long long)hw[1]);
  int32_t n_in, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  int32_t dt = dtype(c, in);
  if (dtype(c, out) != dt) return mp_lower_malformed(c, "input and output types differ");
  float si, so;
  int32_t zi, zo;
  if ((dt == MP_DTYPE_INT8 || dt == MP_DTYPE_INT16) && quant(c, in, &si, &zi) &&
      quant(c, out, &so, &zo) && (si != so || zi != zo))
    return mp_lower_unsupported(c, "input and output quantised differently");
  mpk_resize_params *p = &c->lo->params.resize;
  p->elem_size = mp_lower_elem_size(dt);
  p->batches = dim(c, in, 0);
  p->in_h = dim(c, in, 1);
  p->in_w = dim(c, in, 2);
  p->depth = dim(c, in, 3);
  p->out_h = (int32_t)hw[0];
  p->out_w = (int32_t)hw[1];
  p->align_corners = align;
  p->half_pixel_centers = half;
  if (!bilinear) {
    if (p->elem_size != 1 && p->elem_size != 2 && p->elem_size != 4)
      return mp_lower_unsupported(c, "element type %s", mp_dtype_name(dt));
    mp_lower_set_kernel(c, MP_K_RESIZE_NEAREST);
    mp_lower_add_arg(c, in, false, "const void *");
    mp_lower_add_arg(c, out, true, "void *");
  } else if (dt == MP_DTYPE_INT8) {
    mp_lower_set_kernel(c, MP_K_RESIZE_BILINEAR_S8);
    mp_lower_add_arg(c, in, false, "const int8_t *");
    mp_lower_add_arg(c, out, true, "int8_t *");
  } else if (dt == MP_DTYPE_FLOAT32) {
    mp_lower_set_kernel(c, MP_K_RESIZE_BILINEAR_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
  } else {
    return mp_lower_unsupported(c, "element type %s (supported: int8, float32)", mp_dtype_name(dt));
  }
  return MP_OK;
}
