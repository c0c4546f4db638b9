/*
 * lower_transpose_conv.c — lowering of TRANSPOSE_CONV (int8, 16x8,
 * float32) onto runtime/kernels/ref/mpk_transpose_conv.c.
 *
 * As TensorFlow Lite Micro's Prepare does: the padding is that of the
 * forward convolution whose input is this operator's output (the output
 * size drives it), and the multipliers are PopulateConvolutionQuantization-
 * Params' per output channel (input scale x filter scale / output scale in
 * double).  The output size is the output tensor's static shape, as TFLM
 * takes it: the output-shape input, never read, may be anything (a graph
 * input included); a constant one must equal that shape.
 *
 * Not here: fused activations other than NONE, int16 biases of 16x8
 * models (int64 only), non-zero filter zero points.
 */
#include "lower/common.h"
#include "lower/families.h"

#include <string.h>

enum { OPT_TRANSPOSE_CONV = 49 };
enum { PAD_SAME = 0, PAD_VALID = 1 };

const fdesc mp_lower_transpose_conv_fields[] = {
    F_SUB(mpk_transpose_conv_params, geom, mp_lower_geom_fields),
    F_I32(mpk_transpose_conv_params, input_offset),
    F_I32(mpk_transpose_conv_params, output_offset),
    F_I32(mpk_transpose_conv_params, act_min),
    F_I32(mpk_transpose_conv_params, act_max),
    F_PTR(mpk_transpose_conv_params, multiplier, "multiplier"),
    F_PTR(mpk_transpose_conv_params, shift, "shift"),
    F_END};

/* ComputePaddingHeightWidth of the forward convolution over `size`. */
static int32_t forward_pad(int32_t padding, int32_t size, int32_t filter, int32_t stride) {
  int32_t out =
      padding == PAD_SAME ? (size + stride - 1) / stride : (size + stride - filter) / stride;
  int32_t total = (out - 1) * stride + filter - size;
  return total > 0 ? total / 2 : 0;
}

/* The filter operators' requantisation, per output channel. */
static mp_status requant(mp_lower_ctx *c, int32_t in, int32_t filter, int32_t out,
                         mpk_transpose_conv_params *p) {
  mpk_requant q;
  mp_status st = mp_lower_conv_requant(c, in, filter, out, 0, p->geom.out_c, true, &q);
  if (st != MP_OK || c->lo->reason[0]) return st;
  p->multiplier = q.multiplier;
  p->shift = q.shift;
  p->input_offset = q.input_offset;
  p->output_offset = q.output_offset;
  p->act_min = q.act_min;
  p->act_max = q.act_max;
  return MP_OK;
}

mp_status mp_lower_transpose_conv(mp_lower_ctx *c) {
  int32_t shape = in_t(c, 0), filter = in_t(c, 1), in = in_t(c, 2), bias = in_t(c, 3),
          out = out_t(c, 0);
  if (shape < 0 || filter < 0 || in < 0 || out < 0)
    return mp_lower_malformed(c, "needs an output shape, a filter, an input and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_TRANSPOSE_CONV, "TransposeConvOptions", &o);
  if (st != MP_OK) return st;
  int32_t padding = mp_lower_opt_i8(&o, 0, 0), stride_w = mp_lower_opt_i32(&o, 1, 0),
          stride_h = mp_lower_opt_i32(&o, 2, 0), act = mp_lower_opt_i8(&o, 3, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (act != 0) return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
  if (padding != PAD_SAME && padding != PAD_VALID)
    return mp_lower_malformed(c, "unknown padding %d", padding);
  if (stride_w <= 0 || stride_h <= 0)
    return mp_lower_malformed(c, "strides (%d, %d) must be positive", stride_h, stride_w);
  if (rank(c, in) != 4 || rank(c, out) != 4 || rank(c, filter) != 4)
    return mp_lower_malformed(c, "input, filter and output must have rank 4");
  int64_t os[4];
  uint32_t n = 0;
  /* TFLM's Prepare takes the shape from the output tensor and never reads
   * this input; a constant one must agree with it */
  if (is_const(c, shape)) {
    if (!mp_lower_const_ints(c, shape, os, 4, &n) || n != 4)
      return mp_lower_unsupported(c, "the output shape is not a vector of four integers");
    for (uint32_t d = 0; d < 4; d++)
      if (os[d] != dim(c, out, d))
        return mp_lower_malformed(c,
                                  "output shape input and output tensor differ on dimension %u", d);
  }
  mpk_transpose_conv_params *p = &c->lo->params.transpose_conv;
  memset(p, 0, sizeof *p);
  mpk_conv_geom *g = &p->geom;
  mp_lower_nhwc_geom(c, in, out, stride_h, stride_w, g);
  g->filter_h = dim(c, filter, 1);
  g->filter_w = dim(c, filter, 2);
  g->filter_c = g->in_c;
  g->dilation_h = g->dilation_w = 1;
  if (dim(c, filter, 0) != g->out_c || dim(c, filter, 3) != g->in_c ||
      dim(c, out, 0) != g->batches || g->filter_h <= 0 || g->filter_w <= 0 || g->in_c <= 0 ||
      g->out_c <= 0)
    return mp_lower_malformed(c, "filter [%d, %d, %d, %d] does not map %d to %d channels",
                              dim(c, filter, 0), g->filter_h, g->filter_w, dim(c, filter, 3),
                              g->in_c, g->out_c);
  if (bias >= 0 && elems(c, bias) != (uint64_t)g->out_c)
    return mp_lower_malformed(c, "bias has %llu elements for %d output channels",
                              (unsigned long long)elems(c, bias), g->out_c);
  int32_t n_out, n_in;
  if (!elems_i32(c, out, &n_out) || !elems_i32(c, in, &n_in))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  g->pad_h = forward_pad(padding, g->out_h, g->filter_h, stride_h);
  g->pad_w = forward_pad(padding, g->out_w, g->filter_w, stride_w);
  int32_t dti = dtype(c, in), dtf = dtype(c, filter), dto = dtype(c, out);
  int32_t dtb = bias >= 0 ? dtype(c, bias) : -1;
  if (dti == MP_DTYPE_FLOAT32 && dtf == dti && dto == dti && (bias < 0 || dtb == dti)) {
    mp_lower_set_kernel(c, MP_K_TRANSPOSE_CONV_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, filter, false, "const float *");
    mp_lower_add_arg(c, bias, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    return MP_OK;
  }
  bool s8 = dti == MP_DTYPE_INT8 && dto == dti && (bias < 0 || dtb == MP_DTYPE_INT32);
  bool s16 = dti == MP_DTYPE_INT16 && dto == dti && (bias < 0 || dtb == MP_DTYPE_INT64);
  if (dtf != MP_DTYPE_INT8 || (!s8 && !s16))
    return mp_lower_unsupported(
        c,
        "input %s, filter %s, bias %s, output %s (supported: int8 with int32 "
        "bias, int16 with int8 filter and int64 bias, float32)",
        mp_dtype_name(dti), mp_dtype_name(dtf), bias >= 0 ? mp_dtype_name(dtb) : "none",
        mp_dtype_name(dto));
  if ((st = requant(c, in, filter, out, p)) != MP_OK || c->lo->reason[0]) return st;
  /* each filter element reaches an output element at most once */
  const int32_t taps = g->filter_h * g->filter_w * g->in_c;
  if (s16 && ((st = mp_lower_s16_acc_check(c, "", filter, bias, g->out_c, taps, taps, 1, 0)) !=
                  MP_OK ||
              c->lo->reason[0]))
    return st;
  mp_lower_set_kernel(c, s16 ? MP_K_TRANSPOSE_CONV_S16 : MP_K_TRANSPOSE_CONV_S8);
  mp_lower_add_arg(c, in, false, s16 ? "const int16_t *" : "const int8_t *");
  mp_lower_add_arg(c, filter, false, "const int8_t *");
  mp_lower_add_arg(c, bias, false, s16 ? "const int64_t *" : "const int32_t *");
  mp_lower_add_arg(c, out, true, s16 ? "int16_t *" : "int8_t *");
  c->lo->scratch_bytes = (uint64_t)n_out * (s16 ? 8u : 4u);
  c->lo->scratch_align = s16 ? 8 : 4;
  return MP_OK;
}
