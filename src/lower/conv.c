/*
 * conv.c — CONV_2D and DEPTHWISE_CONV_2D onto runtime/kernels/ref/
 * mpk_conv.c (int8, 16x8 in 64 bits or, for a CONV_2D without a bias or
 * with an int32 one, in 32 bits as TFLite Micro runs it, float32) and, for a depthwise convolution that
 * memory.in_place runs channel by channel, mpk_conv_serial.c.
 *
 * The one idea: the window geometry, the padding TFLite computes and the
 * per-channel requantisation are found once here (common.c); the kernels
 * only loop.  A convolution that reads a folded PAD's input (rewrite.c)
 * gets the PAD's rows and columns as padding of its own.
 *
 * Not here: the Cortex-M kernels (specialise.c picks them afterwards),
 * hybrid (float input, int8 filter) convolutions.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include <string.h>

/* BuiltinOptions union type ids. */
enum { OPT_CONV2D = 1, OPT_DEPTHWISE_CONV2D = 2 };

const fdesc mp_lower_conv_s8_fields[] = {F_SUB(mpk_conv_s8_params, geom, mp_lower_geom_fields),
                                       F_SUB(mpk_conv_s8_params, q, mp_lower_requant_fields), F_END};
const fdesc mp_lower_conv_f32_fields[] = {F_SUB(mpk_conv_f32_params, geom, mp_lower_geom_fields),
                                        F_F32(mpk_conv_f32_params, act_min),
                                        F_F32(mpk_conv_f32_params, act_max), F_END};

/* A depthwise convolution that memory.in_place chose to run channel by
 * channel (mp_op.channel_serial): the serial kernel k, its one-channel
 * temporary and its contract replace the reference kernel's, the
 * arguments staying as they are.  Nothing when the geometry is not one the
 * serial kernel runs. */
static void serial_depthwise(mp_lower_ctx *c, const mpk_conv_geom *g, mp_kernel k, int32_t elem) {
  mpk_overlap ov = mpk_depthwise_conv2d_serial_overlap(g, elem);
  int64_t tmp = mpk_depthwise_conv2d_serial_scratch(g, elem);
  if (!c->op->channel_serial || ov.min_gap == MPK_NO_OVERLAP || tmp <= 0) return;
  mp_lower_use_kernel(c->lo, k);
  mp_lower_add_overlap_period(c->lo, 0, 3, ov);
  c->lo->scratch_bytes = (uint64_t)tmp;
  c->lo->scratch_align = (uint32_t)elem;
}

/* A 16x8 CONV_2D that TFLite Micro runs in 32 bits: int16 input and
 * output, int8 filter, no bias or an int32 one. */
static bool conv_s16_acc32(const mp_lower_ctx *c, int32_t in, int32_t filter, int32_t bias,
                           int32_t out) {
  return dtype(c, in) == MP_DTYPE_INT16 && dtype(c, filter) == MP_DTYPE_INT8 &&
         dtype(c, out) == MP_DTYPE_INT16 && (bias < 0 || dtype(c, bias) == MP_DTYPE_INT32);
}

mp_status mp_lower_conv(mp_lower_ctx *c) {
  bool depthwise = c->op->builtin_code == OP_DEPTHWISE_CONV_2D;
  int32_t in = in_t(c, 0), filter = in_t(c, 1), bias = in_t(c, 2), out = out_t(c, 0);
  if (in < 0 || filter < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, a filter and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, depthwise ? OPT_DEPTHWISE_CONV2D : OPT_CONV2D,
                           depthwise ? "DepthwiseConv2DOptions" : "Conv2DOptions", &o);
  if (st != MP_OK) return st;
  int32_t padding = mp_lower_opt_i8(&o, 0, 0), stride_w = mp_lower_opt_i32(&o, 1, 0), stride_h = mp_lower_opt_i32(&o, 2, 0);
  int32_t act = mp_lower_opt_i8(&o, depthwise ? 4 : 3, 0);
  int32_t dil_w = mp_lower_opt_i32(&o, depthwise ? 5 : 4, 1), dil_h = mp_lower_opt_i32(&o, depthwise ? 6 : 5, 1);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (rank(c, filter) != 4) return mp_lower_malformed(c, "filter must have rank 4");

  /* TFLite Micro's CONV_2D runs a 16x8 convolution without a bias or with
   * an int32 one with an int32 accumulator and the int8 requantisation;
   * with an int64 bias, and its DEPTHWISE_CONV_2D always, in 64 bits */
  const bool acc32 = !depthwise && conv_s16_acc32(c, in, filter, bias, out);
  bool s8 = false, s16 = acc32 || mp_lower_filter_is_s16(c, in, filter, bias, out);
  if (!s16 && (st = mp_lower_filter_types(c, in, filter, bias, out, &s8)) != MP_OK) return st;

  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.filter_h = dim(c, filter, 1);
  g.filter_w = dim(c, filter, 2);
  st = mp_lower_spatial_folded(c, &g, in, out, padding, stride_h, stride_w, dil_h, dil_w);
  if (st != MP_OK || c->lo->reason[0]) return st;
  if (depthwise) {
    if (dim(c, filter, 0) != 1 || dim(c, filter, 3) != g.out_c)
      return mp_lower_malformed(c, "depthwise filter must be [1, h, w, %d]", g.out_c);
    if (g.in_c <= 0 || g.out_c % g.in_c != 0)
      return mp_lower_malformed(c, "output channels %d are not a multiple of input channels %d", g.out_c,
                       g.in_c);
    g.depth_multiplier = g.out_c / g.in_c;
  } else {
    g.filter_c = dim(c, filter, 3);
    if (dim(c, filter, 0) != g.out_c)
      return mp_lower_malformed(c, "filter has %d output channels, output has %d", dim(c, filter, 0),
                       g.out_c);
    if (g.filter_c <= 0 || g.in_c % g.filter_c != 0 || g.out_c % (g.in_c / g.filter_c) != 0)
      return mp_lower_malformed(c, "filter depth %d does not divide input depth %d into groups", g.filter_c,
                       g.in_c);
  }
  if (bias >= 0 && elems(c, bias) != (uint64_t)g.out_c)
    return mp_lower_malformed(c, "bias has %llu elements for %d output channels",
                     (unsigned long long)elems(c, bias), g.out_c);
  if ((st = mp_lower_out_strides(c, out, &g)) != MP_OK || c->lo->reason[0]) return st;

  if (s8 || s16) {
    mpk_conv_s8_params *p = &c->lo->params.conv_s8;
    p->geom = g;
    st = mp_lower_conv_requant(c, in, filter, out, act, g.out_c, true, &p->q);
    if (st != MP_OK) return st;
    if (c->lo->reason[0]) return MP_OK;
    if (acc32) {
      /* the int32 sum wraps, so no bias is out of range */
      mp_lower_set_kernel(c, MP_K_CONV2D_S16_ACC32);
      mp_lower_add_arg(c, in, false, "const int16_t *");
      mp_lower_add_arg(c, filter, false, "const int8_t *");
      mp_lower_add_arg(c, bias, false, "const int32_t *");
      mp_lower_add_arg(c, out, true, "int16_t *");
      mp_lower_add_overlap(c->lo, 0, 3, mpk_conv2d_overlap_gap(&g, 2, 2));
      return MP_OK;
    }
    if (s16) {
      /* a depthwise channel's taps are out_c apart; a convolution's are
       * its filter row */
      const int32_t taps = g.filter_h * g.filter_w * (depthwise ? 1 : g.filter_c);
      st = depthwise ? mp_lower_s16_acc_check(c, "", filter, bias, g.out_c, taps, 1, g.out_c, 0)
                     : mp_lower_s16_acc_check(c, "", filter, bias, g.out_c, taps, taps, 1, 0);
      if (st != MP_OK || c->lo->reason[0]) return st;
      mp_lower_set_kernel(c, depthwise ? MP_K_DEPTHWISE_CONV2D_S16 : MP_K_CONV2D_S16);
      mp_lower_add_arg(c, in, false, "const int16_t *");
      mp_lower_add_arg(c, filter, false, "const int8_t *");
      mp_lower_add_arg(c, bias, false, "const int64_t *");
      mp_lower_add_arg(c, out, true, "int16_t *");
      /* the int8 kernels' walk (mpk_conv.c), over 2-byte elements */
      mp_lower_add_overlap(c->lo, 0, 3, mpk_conv2d_overlap_gap(&g, 2, 2));
      if (depthwise) serial_depthwise(c, &g, MP_K_DEPTHWISE_CONV2D_S16_SERIAL, 2);
      return MP_OK;
    }
    mp_lower_set_kernel(c, depthwise ? MP_K_DEPTHWISE_CONV2D_S8 : MP_K_CONV2D_S8);
    mp_lower_add_arg(c, in, false, "const int8_t *");
    mp_lower_add_arg(c, filter, false, "const int8_t *");
    mp_lower_add_arg(c, bias, false, "const int32_t *");
    mp_lower_add_arg(c, out, true, "int8_t *");
    mp_lower_add_overlap(c->lo, 0, 3, mpk_conv2d_overlap_gap(&g, 1, 1));
    if (depthwise) serial_depthwise(c, &g, MP_K_DEPTHWISE_CONV2D_S8_SERIAL, 1);
  } else {
    mpk_conv_f32_params *p = &c->lo->params.conv_f32;
    p->geom = g;
    if (!mp_lower_act_range_f(act, &p->act_min, &p->act_max))
      return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
    mp_lower_set_kernel(c, depthwise ? MP_K_DEPTHWISE_CONV2D_F32 : MP_K_CONV2D_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, filter, false, "const float *");
    mp_lower_add_arg(c, bias, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    mp_lower_add_overlap(c->lo, 0, 3, mpk_conv2d_overlap_gap(&g, 4, 4));
    if (depthwise) serial_depthwise(c, &g, MP_K_DEPTHWISE_CONV2D_F32_SERIAL, 4);
  }
  return MP_OK;
}
