/*
 * fc.c — FULLY_CONNECTED onto runtime/kernels/ref/mpk_fc.c (int8, 16x8,
 * float32).
 *
 * The one idea: every leading dimension of the input is a batch; the
 * filter's rows are the outputs, its columns the accumulation depth, and
 * TFLite's per-tensor (or per-channel) multipliers are computed here.
 *
 * Not here: shuffled weight formats, hybrid (float input, int8 filter)
 * layers, keep_num_dims (it only shapes the output).
 */
#include "lower/common.h"
#include "lower/families.h"

/* BuiltinOptions union type id. */
enum { OPT_FULLY_CONNECTED = 8 };

const fdesc mp_lower_fc_s8_fields[] = {
    F_I32(mpk_fc_s8_params, batches), F_I32(mpk_fc_s8_params, accum_depth),
    F_I32(mpk_fc_s8_params, out_depth), F_SUB(mpk_fc_s8_params, q, mp_lower_requant_fields), F_END};
const fdesc mp_lower_fc_f32_fields[] = {
    F_I32(mpk_fc_f32_params, batches),   F_I32(mpk_fc_f32_params, accum_depth),
    F_I32(mpk_fc_f32_params, out_depth), F_F32(mpk_fc_f32_params, act_min),
    F_F32(mpk_fc_f32_params, act_max),   F_END};

mp_status mp_lower_fc(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), filter = in_t(c, 1), bias = in_t(c, 2), out = out_t(c, 0);
  if (in < 0 || filter < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, a filter and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_FULLY_CONNECTED, "FullyConnectedOptions", &o);
  if (st != MP_OK) return st;
  int32_t act = mp_lower_opt_i8(&o, 0, 0), weights_format = mp_lower_opt_i8(&o, 1, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (weights_format != 0) return mp_lower_unsupported(c, "shuffled weights format %d", weights_format);
  if (rank(c, filter) != 2) return mp_lower_malformed(c, "filter must have rank 2");
  bool s8 = false, s16 = mp_lower_filter_is_s16(c, in, filter, bias, out);
  if (!s16 && (st = mp_lower_filter_types(c, in, filter, bias, out, &s8)) != MP_OK) return st;
  int32_t n_in, n_filter, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, filter, &n_filter) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  int32_t out_depth = dim(c, filter, 0), accum = dim(c, filter, 1);
  if (rank(c, out) < 1 || dim(c, out, rank(c, out) - 1) != out_depth || out_depth <= 0 ||
      accum <= 0)
    return mp_lower_malformed(c, "output's last dimension must be the filter's %d rows", out_depth);
  uint64_t batches = elems(c, out) / (uint64_t)out_depth;
  if (elems(c, in) != batches * (uint64_t)accum || batches > (uint64_t)INT32_MAX)
    return mp_lower_malformed(c, "input has %llu elements, expected %llu x %d",
                     (unsigned long long)elems(c, in), (unsigned long long)batches, accum);
  if (bias >= 0 && elems(c, bias) != (uint64_t)out_depth)
    return mp_lower_malformed(c, "bias has %llu elements for %d outputs", (unsigned long long)elems(c, bias),
                     out_depth);
  if (s8 || s16) {
    mpk_fc_s8_params *p = &c->lo->params.fc_s8;
    p->batches = (int32_t)batches;
    p->accum_depth = accum;
    p->out_depth = out_depth;
    st = mp_lower_conv_requant(c, in, filter, out, act, out_depth, false, &p->q);
    if (st != MP_OK) return st;
    if (c->lo->reason[0]) return MP_OK;
    float fs = 0.0f;
    int32_t fzp = 0;
    (void)quant(c, filter, &fs, &fzp);
    if (p->q.per_channel && fzp != 0)
      return mp_lower_unsupported(c, "per-channel int8 filter with a non-zero zero point");
    p->q.filter_offset = -fzp;
    if (s16) {
      st = mp_lower_s16_acc_check(c, "", filter, bias, out_depth, accum, accum, 1, -fzp);
      if (st != MP_OK || c->lo->reason[0]) return st;
      mp_lower_set_kernel(c, MP_K_FULLY_CONNECTED_S16);
      mp_lower_add_arg(c, in, false, "const int16_t *");
      mp_lower_add_arg(c, filter, false, "const int8_t *");
      mp_lower_add_arg(c, bias, false, "const int64_t *");
      mp_lower_add_arg(c, out, true, "int16_t *");
      /* the int8 kernel's walk (mpk_fc.c), over 2-byte elements */
      mp_lower_add_overlap(c->lo, 0, 3, mpk_fully_connected_overlap_gap(p->batches, accum, out_depth, 2, 2));
      return MP_OK;
    }
    mp_lower_set_kernel(c, MP_K_FULLY_CONNECTED_S8);
    mp_lower_add_arg(c, in, false, "const int8_t *");
    mp_lower_add_arg(c, filter, false, "const int8_t *");
    mp_lower_add_arg(c, bias, false, "const int32_t *");
    mp_lower_add_arg(c, out, true, "int8_t *");
    mp_lower_add_overlap(c->lo, 0, 3, mpk_fully_connected_overlap_gap(p->batches, accum, out_depth, 1, 1));
  } else {
    mpk_fc_f32_params *p = &c->lo->params.fc_f32;
    p->batches = (int32_t)batches;
    p->accum_depth = accum;
    p->out_depth = out_depth;
    if (!mp_lower_act_range_f(act, &p->act_min, &p->act_max))
      return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
    mp_lower_set_kernel(c, MP_K_FULLY_CONNECTED_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, filter, false, "const float *");
    mp_lower_add_arg(c, bias, false, "const float *");
    mp_lower_add_arg(c, out, true, "float *");
    mp_lower_add_overlap(c->lo, 0, 3, mpk_fully_connected_overlap_gap(p->batches, accum, out_depth, 4, 4));
  }
  return MP_OK;
}
