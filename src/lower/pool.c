/*
 * pool.c — AVERAGE_POOL_2D and MAX_POOL_2D onto runtime/kernels/ref/
 * mpk_pool.c (int8, int16, float32).
 *
 * The one idea: a pool is a window operator without a filter: the same
 * geometry as a convolution (common.c), a window from the options, and the
 * fused activation as the output's clamp.
 *
 * Not here: L2_POOL_2D, pools that change the depth.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include <string.h>

/* BuiltinOptions union type id. */
enum { OPT_POOL2D = 5 };

const fdesc mp_lower_pool_s8_fields[] = {F_SUB(mpk_pool_s8_params, geom, mp_lower_geom_fields),
                                       F_I32(mpk_pool_s8_params, act_min),
                                       F_I32(mpk_pool_s8_params, act_max), F_END};
const fdesc mp_lower_pool_f32_fields[] = {F_SUB(mpk_pool_f32_params, geom, mp_lower_geom_fields),
                                        F_F32(mpk_pool_f32_params, act_min),
                                        F_F32(mpk_pool_f32_params, act_max), F_END};

mp_status mp_lower_pool(mp_lower_ctx *c) {
  bool is_max = c->op->builtin_code == OP_MAX_POOL_2D;
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_POOL2D, "Pool2DOptions", &o);
  if (st != MP_OK) return st;
  int32_t padding = mp_lower_opt_i8(&o, 0, 0), stride_w = mp_lower_opt_i32(&o, 1, 0), stride_h = mp_lower_opt_i32(&o, 2, 0);
  int32_t fw = mp_lower_opt_i32(&o, 3, 0), fh = mp_lower_opt_i32(&o, 4, 0), act = mp_lower_opt_i8(&o, 5, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (fw <= 0 || fh <= 0) return mp_lower_malformed(c, "pool window %dx%d must be positive", fh, fw);
  int32_t dti = dtype(c, in), dto = dtype(c, out);
  bool s8 = dti == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8;
  bool s16 = dti == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16;
  bool f32 = dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32;
  if (!s8 && !s16 && !f32)
    return mp_lower_unsupported(c, "input %s, output %s (supported: int8, int16 or float32)", mp_dtype_name(dti),
                       mp_dtype_name(dto));
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.filter_h = fh;
  g.filter_w = fw;
  st = mp_lower_spatial_folded(c, &g, in, out, padding, stride_h, stride_w, 1, 1);
  if (st != MP_OK || c->lo->reason[0]) return st;
  g.dilation_h = g.dilation_w = 1;
  if (g.in_c != g.out_c) return mp_lower_malformed(c, "pooling changes depth %d to %d", g.in_c, g.out_c);
  if ((st = mp_lower_out_strides(c, out, &g)) != MP_OK || c->lo->reason[0]) return st;
  if (s8 || s16) {
    mpk_pool_s8_params *p = &c->lo->params.pool_s8;
    float scale;
    int32_t zp;
    if (!quant(c, out, &scale, &zp))
      return mp_lower_unsupported(c, "%s output without quantisation", mp_dtype_name(dto));
    if (!mp_lower_act_range_q(act, scale, zp, s16 ? -32768 : -128, s16 ? 32767 : 127, &p->act_min,
                     &p->act_max))
      return mp_lower_unsupported(c, MP_LOWER_ACT_Q_REFUSED, mp_lower_act_name(act));
    p->geom = g;
    if (s16) {
      mp_lower_set_kernel(c, is_max ? MP_K_MAX_POOL2D_S16 : MP_K_AVG_POOL2D_S16);
      mp_lower_add_arg(c, in, false, "const int16_t *");
      mp_lower_add_arg(c, out, true, "int16_t *");
    } else {
      mp_lower_set_kernel(c, is_max ? MP_K_MAX_POOL2D_S8 : MP_K_AVG_POOL2D_S8);
      mp_lower_add_arg(c, in, false, "const int8_t *");
      mp_lower_add_arg(c, out, true, "int8_t *");
    }
    mp_lower_add_overlap(c->lo, 0, 1, mpk_pool2d_overlap_gap(&g, s16 ? 2 : 1, s16 ? 2 : 1));
  } else {
    mpk_pool_f32_params *p = &c->lo->params.pool_f32;
    if (!mp_lower_act_range_f(act, &p->act_min, &p->act_max))
      return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
    p->geom = g;
    mp_lower_set_kernel(c, is_max ? MP_K_MAX_POOL2D_F32 : MP_K_AVG_POOL2D_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    mp_lower_add_overlap(c->lo, 0, 1, mpk_pool2d_overlap_gap(&g, 4, 4));
  }
  return MP_OK;
}
