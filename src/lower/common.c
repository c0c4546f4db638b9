/*
 * common.c — what every operator family's lowering shares: the lowered
 * op's arguments, arrays and overlap contracts, the operator's options,
 * and TFLite's preparation arithmetic (QuantizeMultiplier, activation
 * ranges, window geometry and padding, the filter requantisation, the
 * broadcast walk, constant index vectors).
 *
 * The one idea: a family file (src/lower/<family>.c) states only what is
 * particular to its operators; every formula two families use is here,
 * once, written as TensorFlow Lite Micro's Prepare computes it.
 *
 * This file knows no operator family and no kernel table: it calls nothing
 * of the other lowering files, which all call it.
 */
#include "lower/common.h"
#include "read/opcodes.h"

#include "util/diag.h"
#include "mpk_fixed.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ActivationFunctionType and Padding. */
enum { ACT_NONE = 0, ACT_RELU = 1, ACT_RELU_N1_TO_1 = 2, ACT_RELU6 = 3, ACT_TANH = 4, ACT_SIGN_BIT = 5 };
enum { PAD_SAME = 0, PAD_VALID = 1 };

/* ------------------------------------------------------------------------ */
/* Field descriptions that several params structs embed                     */
/* ------------------------------------------------------------------------ */

const fdesc mp_lower_geom_fields[] = {F_I32(mpk_conv_geom, batches),
                                    F_I32(mpk_conv_geom, in_h),
                                    F_I32(mpk_conv_geom, in_w),
                                    F_I32(mpk_conv_geom, in_c),
                                    F_I32(mpk_conv_geom, out_h),
                                    F_I32(mpk_conv_geom, out_w),
                                    F_I32(mpk_conv_geom, out_c),
                                    F_I32(mpk_conv_geom, filter_h),
                                    F_I32(mpk_conv_geom, filter_w),
                                    F_I32(mpk_conv_geom, filter_c),
                                    F_I32(mpk_conv_geom, depth_multiplier),
                                    F_I32(mpk_conv_geom, stride_h),
                                    F_I32(mpk_conv_geom, stride_w),
                                    F_I32(mpk_conv_geom, dilation_h),
                                    F_I32(mpk_conv_geom, dilation_w),
                                    F_I32(mpk_conv_geom, pad_h),
                                    F_I32(mpk_conv_geom, pad_w),
                                    F_I32_NZ(mpk_conv_geom, out_pixel_stride),
                                    F_I32_NZ(mpk_conv_geom, out_row_stride),
                                    F_I32_NZ(mpk_conv_geom, out_batch_stride),
                                    F_END};

const fdesc mp_lower_requant_fields[] = {F_I32(mpk_requant, input_offset),
                                       F_I32(mpk_requant, filter_offset),
                                       F_I32(mpk_requant, output_offset),
                                       F_I32(mpk_requant, act_min),
                                       F_I32(mpk_requant, act_max),
                                       F_I32(mpk_requant, per_channel),
                                       F_PTR(mpk_requant, multiplier, "multiplier"),
                                       F_PTR(mpk_requant, shift, "shift"),
                                       F_END};

const fdesc mp_lower_bcast_fields[] = {
    F_I32(mpk_broadcast, elementwise),   F_I32(mpk_broadcast, size),
    F_I32X6(mpk_broadcast, dims),        F_I32X6(mpk_broadcast, in1_strides),
    F_I32X6(mpk_broadcast, in2_strides), F_END};


/* ------------------------------------------------------------------------ */
/* Filling the lowered op                                                   */
/* ------------------------------------------------------------------------ */

static mp_loc model_loc(const mp_lower_ctx *c) {
  return (mp_loc){c->g->model->path, 0, 0, -1, NULL, NULL};
}

static mp_status vunsupported(mp_lower_ctx *c, const char *fmt, va_list ap) {
  vsnprintf(c->lo->reason, sizeof c->lo->reason, fmt, ap);
  c->lo->supported = false;
  c->lo->kernel = MP_K_NONE;
  return MP_OK;
}

mp_status mp_lower_unsupported(mp_lower_ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_status st = vunsupported(c, fmt, ap);
  va_end(ap);
  return st;
}

mp_status mp_lower_malformed(mp_lower_ctx *c, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mp_error(c->dx, model_loc(c), "operator %u (%s): %s", c->op->model_index, c->op->name, msg);
  return MP_ERR_MODEL;
}

void mp_lower_add_arg(mp_lower_ctx *c, int32_t tensor, bool is_output, const char *ctype) {
  mp_lower_arg *a = &c->lo->args[c->lo->n_args++];
  a->kind = MP_LARG_TENSOR;
  a->is_output = is_output;
  a->tensor = tensor;
  a->ctype = ctype;
}

void mp_lower_add_array_arg(mp_lower_ctx *c, const int32_t *tensors, uint32_t n, const char *ctype) {
  mp_lower_arg *a = &c->lo->args[c->lo->n_args++];
  a->kind = MP_LARG_TENSOR_ARRAY;
  a->tensor = -1;
  a->n_tensors = n;
  a->tensors = tensors;
  a->ctype = ctype;
}

int32_t *mp_lower_add_array(mp_lowered_op *lo, const char *name, uint32_t n) {
  if (lo->n_arrays >= MP_LOWER_MAX_ARRAYS) return NULL;
  mp_lower_array *a = &lo->arrays[lo->n_arrays];
  a->data = calloc(n ? n : 1, sizeof(int32_t));
  if (!a->data) return NULL;
  a->name = name;
  a->n = n;
  lo->n_arrays++;
  return a->data;
}

/* Declare the kernel's overlap contract for (input arg, output arg), the
 * gap coming from the kernel's own contract function (mpk.h). */
void mp_lower_add_overlap(mp_lowered_op *lo, uint32_t in_arg, uint32_t out_arg, int64_t gap) {
  mp_lower_add_overlap_period(lo, in_arg, out_arg, (mpk_overlap){gap, 1});
}

void mp_lower_add_overlap_period(mp_lowered_op *lo, uint32_t in_arg, uint32_t out_arg,
                                 mpk_overlap ov) {
  if (ov.min_gap == MPK_NO_OVERLAP || ov.period < 1 || lo->n_overlaps >= MP_LOWER_MAX_OVERLAPS)
    return;
  lo->overlaps[lo->n_overlaps++] = (mp_lower_overlap){in_arg, out_arg, ov.min_gap, ov.period};
}

/* Bytes of one element of tensor t (0 for sub-byte or unsized types). */
static int32_t elem_bytes(const mp_lower_ctx *c, int32_t t) { return (int32_t)(mp_dtype_bits(dtype(c, t)) / 8); }

void mp_lower_elementwise_overlap(mp_lower_ctx *c, uint32_t k, int32_t t, uint32_t o,
                                  int32_t out) {
  int32_t n;
  if (elems(c, t) != elems(c, out) || !elems_i32(c, out, &n)) return;
  mp_lower_add_overlap(c->lo, k, o, mpk_elementwise_overlap_gap(n, elem_bytes(c, t), elem_bytes(c, out)));
}

void mp_lower_binary_args(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out, const char *in_ctype,
                          const char *out_ctype) {
  mp_lower_add_arg(c, a, false, in_ctype);
  mp_lower_add_arg(c, b, false, in_ctype);
  mp_lower_add_arg(c, out, true, out_ctype);
  mp_lower_elementwise_overlap(c, 0, a, 2, out);
  mp_lower_elementwise_overlap(c, 1, b, 2, out);
}

void mp_lower_use_kernel(mp_lowered_op *lo, mp_kernel k) {
  /* overlap contracts belong to a kernel's loops: a new kernel starts
   * without any (its lowering declares its own) */
  lo->n_overlaps = 0;
  lo->kernel = k;
  lo->supported = true;
}

void mp_lower_set_kernel(mp_lower_ctx *c, mp_kernel k) {
  if (c->lo->reason[0]) return; /* a helper found it unsupported: stays so */
  mp_lower_use_kernel(c->lo, k);
}

int32_t mp_lower_state_of(const mp_graph *g, uint32_t op) {
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
    if (g->tensors[t].local_op == (int32_t)op && g->tensors[t].role == MP_ROLE_PERSISTENT)
      return (int32_t)t;
  return -1;
}

void mp_lower_free(mp_lowered_op *lo) {
  if (!lo) return;
  for (uint32_t i = 0; i < lo->n_arrays; i++)
    free(lo->arrays[i].data);
  memset(lo, 0, sizeof *lo);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

/* Open the op's options table, which must be of union type `type` when
 * present.  Absent options read as the schema defaults. */
mp_status mp_lower_open_opts(mp_lower_ctx *c, uint8_t type, const char *what, mp_lower_opts *o) {
  memset(o, 0, sizeof *o);
  o->ok = true;
  const mp_op_def *od = c->op->def;
  if (od->builtin_options_pos == 0) return MP_OK;
  if (od->builtin_options_type != type)
    return mp_lower_malformed(c, "builtin options have union type %u, expected %s (%u)",
                     od->builtin_options_type, what, type);
  const mp_model *m = c->g->model;
  fb_init(&o->f, m->bytes, m->size, m->path, c->dx);
  if (!fb_table_at(&o->f, od->builtin_options_pos, what, &o->t))
    return mp_lower_malformed(c, "its %s table does not validate", what);
  o->present = true;
  return MP_OK;
}

int32_t mp_lower_opt_i32(mp_lower_opts *o, uint32_t id, int32_t def) {
  int32_t v = def;
  if (o->present && !fb_i32(&o->t, id, def, &v)) o->ok = false;
  return v;
}
int32_t mp_lower_opt_i8(mp_lower_opts *o, uint32_t id, int8_t def) {
  int8_t v = def;
  if (o->present && !fb_i8(&o->t, id, def, &v)) o->ok = false;
  return v;
}
bool mp_lower_opt_bool(mp_lower_opts *o, uint32_t id, bool def) {
  uint8_t v = def;
  if (o->present && !fb_u8(&o->t, id, def, &v)) o->ok = false;
  return v != 0;
}
float mp_lower_opt_f32(mp_lower_opts *o, uint32_t id, float def) {
  float v = def;
  if (o->present && !fb_f32(&o->t, id, def, &v)) o->ok = false;
  return v;
}

/* ------------------------------------------------------------------------ */
/* TFLite's preparation arithmetic                                          */
/* ------------------------------------------------------------------------ */

/* QuantizeMultiplier: m = q * 2^shift with q in [0.5, 1) as Q31.  A ratio
 * of scales that is not finite or needs a shift above 31 has no such form
 * (TFLite asserts): it marks the op malformed and yields 0. */
void mp_lower_quantize_multiplier(mp_lower_ctx *c, double m, int32_t *qm, int32_t *shift) {
  if (!isfinite(m) || m < 0.0 || m >= 2147483648.0) {
    c->bad_multiplier = true;
    m = 0.0;
  }
  if (m == 0.0) {
    *qm = 0;
    *shift = 0;
    return;
  }
  int e = 0;
  double q = frexp(m, &e);
  int64_t qf = (int64_t)round(q * (double)(1LL << 31));
  if (qf == (1LL << 31)) {
    qf /= 2;
    e++;
  }
  if (e < -31) { /* flushes to zero, as TFLite does */
    e = 0;
    qf = 0;
  }
  *qm = (int32_t)qf;
  *shift = e;
}


/* CalculateActivationRangeQuantized; false for activations without a
 * range (TANH, SIGN_BIT), which TensorFlow Lite Micro refuses on quantised
 * operators. */
/* zp + round(f / scale) in float, as TFLite computes it, clamped to
 * [qmin, qmax] before it becomes an int (a tiny scale gives infinity). */
static int32_t quantize_clamped(float f, float scale, int32_t zp, int32_t qmin, int32_t qmax) {
  double v = (double)zp + (double)roundf(f / scale);
  if (!(v > (double)qmin)) return qmin; /* NaN too */
  if (v > (double)qmax) return qmax;
  return (int32_t)v;
}

bool mp_lower_act_range_q(int32_t act, float scale, int32_t zp, int32_t qmin, int32_t qmax,
                        int32_t *lo, int32_t *hi) {
#define QUANTIZE(f) quantize_clamped((f), scale, zp, qmin, qmax)
  switch (act) {
  case ACT_NONE: *lo = qmin, *hi = qmax; return true;
  case ACT_RELU:
    *lo = QUANTIZE(0.0f) > qmin ? QUANTIZE(0.0f) : qmin;
    *hi = qmax;
    return true;
  case ACT_RELU6:
    *lo = QUANTIZE(0.0f) > qmin ? QUANTIZE(0.0f) : qmin;
    *hi = QUANTIZE(6.0f) < qmax ? QUANTIZE(6.0f) : qmax;
    return true;
  case ACT_RELU_N1_TO_1:
    *lo = QUANTIZE(-1.0f) > qmin ? QUANTIZE(-1.0f) : qmin;
    *hi = QUANTIZE(1.0f) < qmax ? QUANTIZE(1.0f) : qmax;
    return true;
  default: return false;
  }
#undef QUANTIZE
}

/* CalculateActivationRange: TANH and SIGN_BIT have no range, so a float
 * operator that fuses one clamps nothing, as TensorFlow Lite Micro and
 * LiteRT run it (only SVDF applies them, src/lower/recurrent.c). */
bool mp_lower_act_range_f(int32_t act, float *lo, float *hi) {
  switch (act) {
  case ACT_NONE:
  case ACT_TANH:
  case ACT_SIGN_BIT: *lo = -FLT_MAX, *hi = FLT_MAX; return true;
  case ACT_RELU: *lo = 0.0f, *hi = FLT_MAX; return true;
  case ACT_RELU6: *lo = 0.0f, *hi = 6.0f; return true;
  case ACT_RELU_N1_TO_1: *lo = -1.0f, *hi = 1.0f; return true;
  default: return false;
  }
}

const char *mp_lower_act_name(int32_t act) {
  static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
  return act >= 0 && act <= 5 ? names[act] : "unknown";
}

/* ComputeOutSize / ComputePaddingWithOffset of TFLite, in 64-bit
 * arithmetic: the operands are int32 from the model, so no intermediate
 * overflows; spatial() checks that the results fit the kernels' int32. */
static int64_t conv_out_size(int32_t padding, int32_t in, int32_t filter, int32_t stride,
                             int32_t dilation) {
  int64_t eff = ((int64_t)filter - 1) * dilation + 1;
  if (stride <= 0) return 0;
  return padding == PAD_SAME ? ((int64_t)in + stride - 1) / stride
                             : ((int64_t)in + stride - eff) / stride;
}

static int64_t conv_pad(int32_t stride, int32_t dilation, int32_t in, int32_t filter, int64_t out) {
  int64_t eff = ((int64_t)filter - 1) * dilation + 1;
  int64_t total = (out - 1) * stride + eff - in;
  return total > 0 ? total / 2 : 0;
}

const mpk_conv_geom *mp_lower_window_geom(const mp_lowered_op *lo) {
  if (!lo->supported) return NULL;
  switch (lo->kernel) {
  case MP_K_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_S8:
  case MP_K_CONV2D_S16:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_CONV2D_S16_FAST:
  case MP_K_CONV2D_S16_ACC32:
  case MP_K_CONV2D_S16_ACC32_FAST:
  case MP_K_DEPTHWISE_CONV2D_S16_FAST: return &lo->params.conv_s8.geom;
  case MP_K_CONV2D_F32:
  case MP_K_DEPTHWISE_CONV2D_F32: return &lo->params.conv_f32.geom;
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST: return &lo->params.conv_s8_fast.geom;
  case MP_K_AVG_POOL2D_S8:
  case MP_K_MAX_POOL2D_S8:
  case MP_K_AVG_POOL2D_S16:
  case MP_K_MAX_POOL2D_S16:
  case MP_K_AVG_POOL2D_S8_FAST:
  case MP_K_MAX_POOL2D_S8_FAST: return &lo->params.pool_s8.geom;
  case MP_K_AVG_POOL2D_F32:
  case MP_K_MAX_POOL2D_F32: return &lo->params.pool_f32.geom;
  default: return NULL;
  }
}

bool mp_lower_view_strides(mpk_conv_geom *g, uint64_t elem, uint64_t row, uint64_t stride) {
  if (elem == 0 || row == 0 || row % elem || stride % elem || stride / elem > INT32_MAX ||
      g->out_c <= 0 || g->out_w <= 0 || g->out_h <= 0)
    return false;
  const uint64_t r = row / elem, s = stride / elem;
  const uint64_t pixel = (uint64_t)g->out_c, line = pixel * (uint64_t)g->out_w,
                 image = line * (uint64_t)g->out_h;
  g->out_pixel_stride = g->out_row_stride = g->out_batch_stride = 0;
  if (r == pixel)
    g->out_pixel_stride = (int32_t)s;
  else if (r == line)
    g->out_row_stride = (int32_t)s;
  else if (r == image)
    g->out_batch_stride = (int32_t)s;
  else
    return false;
  return mpk_out_strides_ok(g);
}

void mp_lower_nhwc_geom(const mp_lower_ctx *c, int32_t in, int32_t out, int32_t stride_h, int32_t stride_w,
                        mpk_conv_geom *g) {
  g->batches = dim(c, in, 0);
  g->in_h = dim(c, in, 1);
  g->in_w = dim(c, in, 2);
  g->in_c = dim(c, in, 3);
  g->out_h = dim(c, out, 1);
  g->out_w = dim(c, out, 2);
  g->out_c = dim(c, out, 3);
  g->stride_h = stride_h;
  g->stride_w = stride_w;
}

/* The output strides of a window kernel whose output `out` is a strided
 * view (views.c); nothing for any other output. */
mp_status mp_lower_out_strides(mp_lower_ctx *c, int32_t out, mpk_conv_geom *g) {
  const mp_tensor *x = &c->g->tensors[out];
  if (x->alias_of < 0 || x->alias_stride == 0) return MP_OK;
  if (!mp_lower_view_strides(g, mp_dtype_align(x->dtype), x->alias_row, x->alias_stride))
    return mp_lower_unsupported(c, "its output is a strided view (rows of %llu bytes, %llu apart) that "
                          "its kernel cannot write",
                       (unsigned long long)x->alias_row, (unsigned long long)x->alias_stride);
  return MP_OK;
}

/* Fill the spatial part of a geometry from padding/stride/dilation and the
 * NHWC input and output; checks the output size TFLite would compute, and
 * that every index the kernels compute, up to (out - 1) * stride + (filter
 * - 1) * dilation, fits in int32. */
static mp_status spatial(mp_lower_ctx *c, mpk_conv_geom *g, int32_t in, int32_t out, int32_t padding,
                         int32_t stride_h, int32_t stride_w, int32_t dil_h, int32_t dil_w) {
  if (rank(c, in) != 4 || rank(c, out) != 4)
    return mp_lower_malformed(c, "input and output must have rank 4 (have %u and %u)", rank(c, in),
                     rank(c, out));
  int32_t n_in, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  if (padding != PAD_SAME && padding != PAD_VALID)
    return mp_lower_malformed(c, "unknown padding %d", padding);
  if (stride_h <= 0 || stride_w <= 0 || dil_h <= 0 || dil_w <= 0)
    return mp_lower_malformed(c, "strides (%d, %d) and dilations (%d, %d) must be positive", stride_h,
                     stride_w, dil_h, dil_w);
  mp_lower_nhwc_geom(c, in, out, stride_h, stride_w, g);
  g->dilation_h = dil_h;
  g->dilation_w = dil_w;
  for (uint32_t d = 0; d < 4; d++)
    if (dim(c, in, d) <= 0 || dim(c, out, d) <= 0)
      return mp_lower_malformed(c,
                       "input [%d,%d,%d,%d] and output [%d,%d,%d,%d] need positive "
                       "dimensions",
                       dim(c, in, 0), dim(c, in, 1), dim(c, in, 2), dim(c, in, 3), dim(c, out, 0),
                       dim(c, out, 1), dim(c, out, 2), dim(c, out, 3));
  if (g->filter_h <= 0 || g->filter_w <= 0)
    return mp_lower_malformed(c, "filter window %dx%d must be positive", g->filter_h, g->filter_w);
  int64_t oh = conv_out_size(padding, g->in_h, g->filter_h, stride_h, dil_h);
  int64_t ow = conv_out_size(padding, g->in_w, g->filter_w, stride_w, dil_w);
  if (oh != g->out_h || ow != g->out_w || dim(c, out, 0) != g->batches)
    return mp_lower_malformed(c, "output is %dx%dx%d but %s padding gives %dx%lldx%lld", dim(c, out, 0),
                     g->out_h, g->out_w, padding == PAD_SAME ? "SAME" : "VALID", g->batches,
                     (long long)oh, (long long)ow);
  int64_t reach_h = (oh - 1) * stride_h + ((int64_t)g->filter_h - 1) * dil_h;
  int64_t reach_w = (ow - 1) * stride_w + ((int64_t)g->filter_w - 1) * dil_w;
  if (reach_h > INT32_MAX || reach_w > INT32_MAX)
    return mp_lower_malformed(c,
                     "window %dx%d with strides (%d, %d) and dilations (%d, %d) reaches "
                     "row %lld, column %lld: beyond 32-bit indexing",
                     g->filter_h, g->filter_w, stride_h, stride_w, dil_h, dil_w, (long long)reach_h,
                     (long long)reach_w);
  g->pad_h = (int32_t)conv_pad(stride_h, dil_h, g->in_h, g->filter_h, oh);
  g->pad_w = (int32_t)conv_pad(stride_w, dil_w, g->in_w, g->filter_w, ow);
  return MP_OK;
}

/* Per-channel (or broadcast per-tensor) multipliers of a conv-like op,
 * as PopulateConvolutionQuantizationParams computes them. */
mp_status mp_lower_conv_requant(mp_lower_ctx *c, int32_t in, int32_t filter, int32_t out, int32_t act,
                              int32_t channels, bool always_per_channel, mpk_requant *q) {
  float in_scale, out_scale, f_scale;
  int32_t in_zp, out_zp, f_zp;
  if (!quant(c, in, &in_scale, &in_zp) || !quant(c, out, &out_scale, &out_zp) ||
      !quant(c, filter, &f_scale, &f_zp))
    return mp_lower_unsupported(c, "int8 tensors without quantisation parameters");
  const mp_quant *fq = &tdef(c, filter)->quant;
  bool per_channel = fq->n_scale > 1;
  if (per_channel && fq->n_scale != (uint32_t)channels)
    return mp_lower_malformed(c, "filter has %u scales for %d output channels", fq->n_scale, channels);
  for (uint32_t i = 0; i < fq->n_zero_point; i++)
    if (fq->zero_point[i] != 0 && !(c->op->builtin_code == OP_FULLY_CONNECTED && !per_channel))
      return mp_lower_unsupported(c, "int8 filter with a non-zero zero point");
  bool wide = dtype(c, out) == MP_DTYPE_INT16; /* 16x8 */
  if (!mp_lower_act_range_q(act, out_scale, out_zp, wide ? -32768 : -128, wide ? 32767 : 127, &q->act_min,
                   &q->act_max))
    return mp_lower_unsupported(c, MP_LOWER_ACT_Q_REFUSED, mp_lower_act_name(act));
  if (wide && (in_zp != 0 || out_zp != 0))
    return mp_lower_unsupported(c, "int16 tensors with a non-zero zero point");
  q->input_offset = -in_zp;
  q->output_offset = out_zp;
  uint32_t n = (per_channel || always_per_channel) ? (uint32_t)channels : 1;
  int32_t *mult = mp_lower_add_array(c->lo, "multiplier", n);
  int32_t *shift = mult ? mp_lower_add_array(c->lo, "shift", n) : NULL;
  if (!shift) return MP_ERR_NOMEM;
  for (uint32_t i = 0; i < n; i++) {
    double real;
    if (per_channel || always_per_channel) {
      double fs = (double)(per_channel ? fq->scale[i] : fq->scale[0]);
      real = (double)in_scale * fs / (double)out_scale;
    } else {
      /* GetQuantizedConvolutionMultipler: the product is taken in float */
      float product = in_scale * f_scale;
      real = (double)product / (double)out_scale;
    }
    mp_lower_quantize_multiplier(c, real, &mult[i], &shift[i]);
    /* TFLite's 64-bit MultiplyByQuantizedMultiplier takes shifts below 8
     * (it shifts right by 15 - shift, rounding by half of that) */
    if (wide && shift[i] >= 8)
      return mp_lower_unsupported(c, "output channel %u: a 16x8 scale of 2^7 or more", i);
  }
  q->per_channel = n > 1 || always_per_channel;
  q->multiplier = mult;
  q->shift = shift;
  return MP_OK;
}

/* ------------------------------------------------------------------------ */
/* Filter operators, shapes and constants                                   */
/* ------------------------------------------------------------------------ */

/* The element types a filter operator (CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED) runs with: all int8 with an int32 bias (*s8 = true) or
 * all float32; anything else is unsupported. */
mp_status mp_lower_filter_types(mp_lower_ctx *c, int32_t in, int32_t filter, int32_t bias, int32_t out,
                              bool *s8) {
  int32_t dti = dtype(c, in), dtf = dtype(c, filter), dto = dtype(c, out);
  int32_t dtb = bias >= 0 ? dtype(c, bias) : -1;
  *s8 = dti == MP_DTYPE_INT8 && dtf == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8 &&
        (bias < 0 || dtb == MP_DTYPE_INT32);
  bool f32 = dti == MP_DTYPE_FLOAT32 && dtf == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32 &&
             (bias < 0 || dtb == MP_DTYPE_FLOAT32);
  if (*s8 || f32) return MP_OK;
  return mp_lower_unsupported(c,
                     "input %s, filter %s, bias %s, output %s (supported: all int8 with int32 "
                     "bias, or all float32)",
                     mp_dtype_name(dti), mp_dtype_name(dtf), bias >= 0 ? mp_dtype_name(dtb) : "none", mp_dtype_name(dto));
}

/* 16x8: int16 input and output, int8 filter, int64 bias (or none). */
bool mp_lower_filter_is_s16(const mp_lower_ctx *c, int32_t in, int32_t filter, int32_t bias, int32_t out) {
  return dtype(c, in) == MP_DTYPE_INT16 && dtype(c, filter) == MP_DTYPE_INT8 &&
         dtype(c, out) == MP_DTYPE_INT16 && (bias < 0 || dtype(c, bias) == MP_DTYPE_INT64);
}

/* Little-endian int64 element i of a constant tensor's bytes. */
static int64_t const_i64(const uint8_t *d, uint64_t i) {
  uint64_t u = 0;
  for (int j = 7; j >= 0; j--)
    u = u << 8 | d[i * 8u + (uint64_t)j];
  return (int64_t)u;
}

mp_status mp_lower_s16_acc_check(mp_lower_ctx *c, const char *what, int32_t weights,
                                 int32_t bias, int32_t channels, int32_t count,
                                 int32_t channel_stride, int32_t elem_stride,
                                 int32_t weight_offset) {
  const int64_t top = ((int64_t)1 << 47) - 1, bottom = -((int64_t)1 << 47);
  if (bias >= 0 && !is_const(c, bias))
    return mp_lower_unsupported(c, "%sa 16x8 bias that is not a constant (its accumulator "
                                   "range cannot be checked)", what);
  const int8_t *w = is_const(c, weights) ? (const int8_t *)c->g->tensors[weights].data : NULL;
  const uint8_t *b = bias >= 0 ? c->g->tensors[bias].data : NULL;
  for (int32_t ch = 0; ch < channels; ch++) {
    /* the sum's extremes over int16 inputs: each product's own, whose
     * range holds 0 (a tap in the padding adds nothing) */
    int64_t hi = 0, lo = 0;
    for (int32_t k = 0; k < count; k++) {
      int64_t v = w ? (int64_t)w[(int64_t)ch * channel_stride + (int64_t)k * elem_stride] +
                          weight_offset
                    : 128 + (weight_offset < 0 ? -(int64_t)weight_offset : weight_offset);
      if (!w) {
        hi += v * 32768;
        lo -= v * 32768;
      } else if (v > 0) {
        hi += v * 32767;
        lo -= v * 32768;
      } else {
        hi -= v * 32768;
        lo += v * 32767;
      }
    }
    int64_t bv = b ? const_i64(b, (uint64_t)ch) : 0;
    /* hi and lo are within +-2^55: the bounds below do not overflow */
    if (bv > top - hi || bv < bottom - lo)
      return mp_lower_unsupported(c,
                                  "%soutput channel %d: int64 bias %lld plus sums in [%lld, "
                                  "%lld] leaves [-2^47, 2^47), the range of TFLite's 64-bit "
                                  "requantisation",
                                  what, ch, (long long)bv, (long long)lo, (long long)hi);
  }
  return MP_OK;
}

/* spatial() of an operator that may read a folded PAD's input (rewrite.c):
 * the window geometry is the model's, on the padded tensor; the kernel
 * reads the unpadded one, the PAD's rows and columns joining its own top /
 * left padding (the bottom / right follow from the sizes). */
mp_status mp_lower_spatial_folded(mp_lower_ctx *c, mpk_conv_geom *g, int32_t in, int32_t out,
                                int32_t padding, int32_t stride_h, int32_t stride_w,
                                int32_t dil_h, int32_t dil_w) {
  const int32_t *fp = c->op->folded_pad >= 0 ? c->op->fold_pad : NULL;
  int32_t shape_of = fp ? c->g->ops[c->op->folded_pad].outputs[0] : in;
  mp_status st = spatial(c, g, shape_of, out, padding, stride_h, stride_w, dil_h, dil_w);
  if (st != MP_OK || c->lo->reason[0] || !fp) return st;
  g->in_h -= fp[0] + fp[1];
  g->in_w -= fp[2] + fp[3];
  g->pad_h += fp[0];
  g->pad_w += fp[2];
  if (g->in_h != dim(c, in, 1) || g->in_w != dim(c, in, 2) || g->in_c != dim(c, in, 3) ||
      g->batches != dim(c, in, 0))
    return mp_lower_malformed(c, "its folded PAD's input does not match the padded shape");
  return MP_OK;
}

/* Extend a tensor's shape to MPK_MAX_DIMS with leading 1s; false when the
 * rank is too high or the element count does not fit the kernels' int32
 * index arithmetic. */
bool mp_lower_extend_shape(const mp_lower_ctx *c, int32_t t, int32_t dims[MPK_MAX_DIMS]) {
  uint32_t r = rank(c, t);
  int32_t n;
  if (r > MPK_MAX_DIMS || !elems_i32(c, t, &n)) return false;
  for (uint32_t d = 0; d < MPK_MAX_DIMS; d++)
    dims[d] = 1;
  for (uint32_t d = 0; d < r; d++)
    dims[MPK_MAX_DIMS - r + d] = dim(c, t, d) > 0 ? dim(c, t, d) : 0;
  return true;
}

/* Row-major element strides of extended dims. */
void mp_lower_strides_of(const int32_t dims[MPK_MAX_DIMS], int32_t strides[MPK_MAX_DIMS]) {
  int32_t s = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

mp_status mp_lower_broadcast(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out, mpk_broadcast *bc) {
  int32_t da[MPK_MAX_DIMS], db[MPK_MAX_DIMS], dout[MPK_MAX_DIMS], sa[MPK_MAX_DIMS],
      sb[MPK_MAX_DIMS];
  if (!mp_lower_extend_shape(c, a, da) || !mp_lower_extend_shape(c, b, db) || !mp_lower_extend_shape(c, out, dout))
    return mp_lower_unsupported(c, "rank above %d or more than 2^31 elements", MPK_MAX_DIMS);
  if (!elems_i32(c, out, &bc->size)) return mp_lower_unsupported(c, "more than 2^31 elements");
  mp_lower_strides_of(da, sa);
  mp_lower_strides_of(db, sb);
  bool same = rank(c, a) == rank(c, b);
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (da[d] != db[d]) same = false;
    if ((da[d] != dout[d] && da[d] != 1) || (db[d] != dout[d] && db[d] != 1))
      return mp_lower_malformed(c, "shapes do not broadcast to the output");
    bc->dims[d] = dout[d];
    bc->in1_strides[d] = da[d] == 1 ? 0 : sa[d];
    bc->in2_strides[d] = db[d] == 1 ? 0 : sb[d];
  }
  for (int d = 0; same && d < MPK_MAX_DIMS; d++)
    if (da[d] != dout[d]) return mp_lower_malformed(c, "inputs of equal shape but a different output");
  /* elementwise when nothing repeats: both inputs have the output's shape
   * once extended with leading 1s ([288] + [1,288]), so flat index i is
   * element i of each, as the broadcasting loop would walk them */
  bool flat = true;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    if (da[d] != dout[d] || db[d] != dout[d]) flat = false;
  bc->elementwise = flat;
  return MP_OK;
}

/* Bytes per element of the data-movement kernels; 0 when unsupported. */
int32_t mp_lower_elem_size(int32_t dt) {
  uint32_t bits = mp_dtype_bits(dt);
  return bits >= 8 && bits % 8 == 0 && bits <= 64 ? (int32_t)(bits / 8) : 0;
}

/* A constant int32 (or int64) vector tensor, read into v. */
bool mp_lower_const_ints(const mp_lower_ctx *c, int32_t t, int64_t *v, uint32_t max, uint32_t *n) {
  if (t < 0 || !is_const(c, t)) return false;
  int32_t dt = dtype(c, t);
  uint64_t count = elems(c, t);
  uint32_t w = dt == MP_DTYPE_INT32 ? 4 : dt == MP_DTYPE_INT64 ? 8 : 0;
  if (!w || count > max || c->g->tensors[t].size < count * w) return false;
  const uint8_t *p = c->g->tensors[t].data;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t x = 0;
    for (uint32_t k = 0; k < w; k++)
      x |= (uint64_t)p[i * w + k] << (8 * k);
    v[i] = w == 4 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
  }
  *n = (uint32_t)count;
  return true;
}

