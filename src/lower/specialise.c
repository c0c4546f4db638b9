/*
 * specialise.c — ahead-of-time specialisation of the int8 filter
 * operators, ADD, MUL, the pools and SOFTMAX for a Cortex-M target
 * (module.target): which specialised kernel of runtime/kernels/cm/mpk_*.c
 * runs an operator, and the constants it needs.
 *
 * The one idea: the filter is known at convert time, so the input offset's
 * share of every accumulator, input_offset * sum(filter row), is folded
 * into the bias here, once; the kernels' inner loops are then plain int8
 * dot products, which Helium and the DSP extension do 16 or 2 at a time.
 * The folded bias is computed modulo 2^32, as the device's int32
 * accumulators wrap, so the outputs stay the reference kernels' bytes.
 *
 * The choice, per operator, after mp_lower_op picked the reference kernel:
 *   CONV_2D, groups of 1:   a 1x1 filter without padding -> conv2d_s8_1x1
 *                           (the input pixel is the column, no scratch);
 *                           any other filter -> conv2d_s8_im2col, with an
 *                           op-local scratch of two columns
 *                           (2 * filter_h * filter_w * in_c bytes);
 *   DEPTHWISE_CONV_2D                     -> depthwise_conv2d_s8_fast;
 *   FULLY_CONNECTED, filter zero point 0  -> fully_connected_s8_fast;
 *   ADD, int8, no broadcasting            -> add_s8_fast (same params);
 *   MUL, int8, no broadcasting            -> mul_s8_fast (same params);
 *   AVERAGE_POOL_2D, MAX_POOL_2D, int8    -> avg/max_pool2d_s8_fast (same
 *                                            params);
 *   CONV_2D (groups of 1), DEPTHWISE_CONV_2D, FULLY_CONNECTED, 16x8
 *                                         -> the *_s16_fast kernels (same
 *                           params; the convolution's im2col column of
 *                           filter_h * filter_w * in_c int16 in scratch);
 *   SVDF, int8 (int8 or int16 state)      -> svdf_s8_fast, the zero points'
 *                           shares and the bias folded per filter / unit;
 *   UNIDIRECTIONAL_SEQUENCE_LSTM, int8    -> lstm_s8_fast, the offsets'
 *                           shares folded into each gate's biases, no
 *                           scratch;
 *   UNIDIRECTIONAL_SEQUENCE_LSTM, 16x8    -> lstm_s16_fast (same params
 *                           and int64 biases), no scratch;
 *   DEPTHWISE_CONV_2D, int8, channel by channel (memory.in_place)
 *                                         -> depthwise_conv2d_s8_serial_fast
 *                           (same params, temporary and contract);
 *   SOFTMAX, int8 -> int8                 -> softmax_s8_fast, with the
 *                           reference's exponential of each of the 256
 *                           possible differences to the row maximum as a
 *                           constant table (1 KiB);
 *   LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU, RELU (requantising) and
 *   QUANTIZE, int8 -> int8                -> lut_s8: an int8 input has 256
 *                           values, so the reference kernel runs here on
 *                           each of them and the device looks its output
 *                           up in a constant table (1 KiB) instead of
 *                           computing it: a few instructions per element
 *                           instead of tens to hundreds, the same bytes.
 * Everything else (float, grouped convolutions, a filter or bias that is
 * not a constant, a 16x8 convolution writing a strided slice of an elided
 * CONCATENATION's output) keeps its reference kernel; the specialised int8
 * kernels take the reference geometry's output strides as they are.  Each specialised kernel
 * declares its own overlap contract for memory.in_place (the reference
 * kernel's does not carry over: the loops differ).
 * The same choice is made for every Cortex-M target: the kernels carry
 * their Helium, DSP and portable paths and the compiler picks one.
 */
/* strong references: the kernels this file runs on the host must be
 * linked in (mpk.h declares them weak for modules built without them) */
#define MPK_API
#include "lower/common.h"
#include "lower/families.h"
#include "mpk_fixed.h"

#include <string.h>

/* The specialised kernels' own params (the others take the reference
 * kernel's). */
const fdesc mp_lower_conv_s8_fast_fields[] = {
    F_SUB(mpk_conv_s8_fast_params, geom, mp_lower_geom_fields),
    F_SUB(mpk_conv_s8_fast_params, q, mp_lower_requant_fields),
    F_PTR(mpk_conv_s8_fast_params, folded_bias, "folded_bias"),
    F_I32(mpk_conv_s8_fast_params, col_len), F_END};
const fdesc mp_lower_softmax_s8_fast_fields[] = {
    F_I32(mpk_softmax_s8_fast_params, outer), F_I32(mpk_softmax_s8_fast_params, depth),
    F_PTR(mpk_softmax_s8_fast_params, exp_table, "exp_table"), F_END};
const fdesc mp_lower_fc_s8_fast_fields[] = {
    F_I32(mpk_fc_s8_fast_params, batches), F_I32(mpk_fc_s8_fast_params, accum_depth),
    F_I32(mpk_fc_s8_fast_params, out_depth), F_SUB(mpk_fc_s8_fast_params, q, mp_lower_requant_fields),
    F_PTR(mpk_fc_s8_fast_params, folded_bias, "folded_bias"), F_END};

/* A constant int8 tensor's bytes, or NULL. */
static const int8_t *const_s8(const mp_graph *g, int32_t t) {
  return t >= 0 ? (const int8_t *)g->tensors[t].data : NULL;
}

/* bias[i] of a constant int32 bias (little-endian), 0 without a bias. */
static uint32_t bias_at(const uint8_t *bias, uint32_t i) {
  if (!bias) return 0;
  const uint8_t *b = bias + 4u * i;
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The model's filter and bias constants of a filter op (args 1 and 2), or
 * false when one of them is not a constant. */
static bool filter_bias(const mp_graph *g, const mp_lowered_op *lo, const int8_t **filter,
                        const uint8_t **bias) {
  int32_t ft = lo->args[1].tensor, bt = lo->args[2].tensor;
  *filter = const_s8(g, ft);
  *bias = bt >= 0 ? g->tensors[bt].data : NULL;
  return *filter && (bt < 0 || *bias);
}

/* folded[r] = bias[r] + input_offset * sum of filter[r * row_stride + k *
 * tap_stride] over k < taps, modulo 2^32. */
static int32_t *fold(mp_lowered_op *lo, const int8_t *filter, const uint8_t *bias,
                     int32_t input_offset, uint32_t rows, uint32_t taps, size_t row_stride,
                     size_t tap_stride) {
  int32_t *fb = mp_lower_add_array(lo, "folded_bias", rows);
  if (!fb) return NULL;
  for (uint32_t r = 0; r < rows; r++) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < taps; k++)
      sum += (uint32_t)(int32_t)filter[r * row_stride + k * tap_stride];
    uint32_t v = bias_at(bias, r) + (uint32_t)input_offset * sum;
    memcpy(&fb[r], &v, sizeof v);
  }
  return fb;
}

static mp_status specialise_conv(const mp_graph *g, mp_lowered_op *lo, bool depthwise) {
  const int8_t *filter;
  const uint8_t *bias;
  if (!filter_bias(g, lo, &filter, &bias)) return MP_OK;
  mpk_conv_s8_params ref = lo->params.conv_s8;
  const mpk_conv_geom *gm = &ref.geom;
  mp_kernel k;
  int32_t col_len = 0;
  int32_t *fb;
  if (depthwise) {
    k = MP_K_DEPTHWISE_CONV2D_S8_FAST;
    fb = fold(lo, filter, bias, ref.q.input_offset, (uint32_t)gm->out_c,
              (uint32_t)(gm->filter_h * gm->filter_w), 1, (size_t)gm->out_c);
  } else {
    if (gm->filter_c != gm->in_c) return MP_OK; /* grouped */
    uint64_t taps = (uint64_t)gm->filter_h * (uint64_t)gm->filter_w * (uint64_t)gm->in_c;
    if (taps > (uint64_t)INT32_MAX / 2) return MP_OK;
    col_len = (int32_t)taps;
    /* direct: every output pixel's one tap inside the input (no padding on
     * any side; a folded PAD can leave some at the bottom / right only) */
    bool direct = gm->filter_h == 1 && gm->filter_w == 1 && gm->pad_h == 0 && gm->pad_w == 0 &&
                  (int64_t)(gm->out_h - 1) * gm->stride_h < gm->in_h &&
                  (int64_t)(gm->out_w - 1) * gm->stride_w < gm->in_w;
    k = direct ? MP_K_CONV2D_S8_1X1 : MP_K_CONV2D_S8_IM2COL;
    fb = fold(lo, filter, bias, ref.q.input_offset, (uint32_t)gm->out_c, (uint32_t)col_len,
              (size_t)col_len, 1);
    if (!direct) {
      lo->scratch_bytes = 2u * (uint64_t)col_len;
      lo->scratch_align = 4;
    }
  }
  if (!fb) return MP_ERR_NOMEM;
  memset(&lo->params, 0, sizeof lo->params);
  mpk_conv_s8_fast_params *p = &lo->params.conv_s8_fast;
  p->geom = ref.geom;
  p->q = ref.q;
  p->folded_bias = fb;
  p->col_len = col_len;
  mp_lower_use_kernel(lo, k);
  /* input (arg 0) and output (arg 3): the specialised loop's contract */
  mp_lower_add_overlap(lo, 0, 3,
                       depthwise ? mpk_depthwise_conv2d_s8_fast_overlap_gap(&p->geom)
                       : k == MP_K_CONV2D_S8_1X1 ? mpk_conv2d_s8_1x1_overlap_gap(&p->geom)
                                                 : mpk_conv2d_s8_im2col_overlap_gap(&p->geom));
  return MP_OK;
}

static mp_status specialise_fc(const mp_graph *g, mp_lowered_op *lo) {
  const int8_t *filter;
  const uint8_t *bias;
  if (!filter_bias(g, lo, &filter, &bias)) return MP_OK;
  mpk_fc_s8_params ref = lo->params.fc_s8;
  if (ref.q.filter_offset != 0) return MP_OK;
  int32_t *fb = fold(lo, filter, bias, ref.q.input_offset, (uint32_t)ref.out_depth,
                     (uint32_t)ref.accum_depth, (size_t)ref.accum_depth, 1);
  if (!fb) return MP_ERR_NOMEM;
  memset(&lo->params, 0, sizeof lo->params);
  mpk_fc_s8_fast_params *p = &lo->params.fc_s8_fast;
  p->batches = ref.batches;
  p->accum_depth = ref.accum_depth;
  p->out_depth = ref.out_depth;
  p->q = ref.q;
  p->folded_bias = fb;
  mp_lower_use_kernel(lo, MP_K_FULLY_CONNECTED_S8_FAST);
  mp_lower_add_overlap(lo, 0, 3,
                       mpk_fully_connected_s8_fast_overlap_gap(p->batches, p->accum_depth,
                                                               p->out_depth));
  return MP_OK;
}

/* SOFTMAX int8 -> int8: the reference's exponential of every possible
 * difference to the row maximum, as a constant table. */
static mp_status specialise_softmax(mp_lowered_op *lo) {
  const mpk_softmax_s8_params ref = lo->params.softmax_s8;
  int32_t *table = mp_lower_add_array(lo, "exp_table", 256);
  if (!table) return MP_ERR_NOMEM;
  mpk_softmax_s8_exp_table(&ref, table);
  memset(&lo->params, 0, sizeof lo->params);
  mpk_softmax_s8_fast_params *p = &lo->params.softmax_s8_fast;
  p->outer = ref.outer;
  p->depth = ref.depth;
  p->exp_table = table;
  mp_lower_use_kernel(lo, MP_K_SOFTMAX_S8_FAST);
  return MP_OK;
}

/* An int8 -> int8 elementwise operator as a table of its 256 outputs,
 * each computed by the reference kernel the operator lowered to (run here,
 * on the host: the same integer arithmetic), looked up by mpk_lut_s8.
 * RELU6 and RELU_N1_TO_1 of the stored integers (a clamp) stay: the
 * lookup would be no faster. */
static mp_status specialise_lut(mp_lowered_op *lo) {
  /* the lowered op run as it is (mp_lower_eval) on all 256 values: a copy
   * whose element count is 256 */
  mp_lowered_op all = *lo;
  int32_t *count;
  switch (lo->kernel) {
  case MP_K_LOGISTIC_S8: count = &all.params.logistic_s8.size; break;
  case MP_K_UNARY_Q:
    if (lo->params.unary_q.type != MPK_TYPE_INT8 || lo->params.unary_q.op == MPK_UN_CLAMP)
      return MP_OK;
    count = &all.params.unary_q.size;
    break;
  case MP_K_REQUANTIZE:
    if (lo->params.requantize.in_type != MPK_TYPE_INT8 ||
        lo->params.requantize.out_type != MPK_TYPE_INT8)
      return MP_OK;
    count = &all.params.requantize.size;
    break;
  default: return MP_OK;
  }
  const int32_t size = *count;
  *count = 256;
  int8_t x[256], y[256];
  for (int32_t i = 0; i < 256; i++) x[i] = (int8_t)(i - 128);
  void *args[2] = {x, y};
  if (size < 0 || mp_lower_eval(&all, args, NULL) != MP_OK)
    return MP_OK; /* keep the reference kernel */
  int32_t *table = mp_lower_add_array(lo, "table", 256);
  if (!table) return MP_ERR_NOMEM;
  for (int32_t i = 0; i < 256; i++) table[i] = y[i];
  memset(&lo->params, 0, sizeof lo->params);
  mpk_lut_s8_params *p = &lo->params.lut_s8;
  p->size = size;
  p->min_input = -128;
  p->table = table;
  mp_lower_use_kernel(lo, MP_K_LUT_S8);
  /* element i is read before it is written, one at a time */
  mp_lower_add_overlap(lo, 0, 1, mpk_elementwise_overlap_gap(size, 1, 1));
  return MP_OK;
}

/* The 16x8 filter operators (a CONV_2D in either form, 64 or 32 bits):
 * the same params; a convolution of groups of 1 gathers its columns into filter_h * filter_w * in_c int16 of scratch
 * unless it reads them in place.  Offsets other than 0 (which the 16x8
 * quantisation does not produce) keep the reference kernel. */
static mp_status specialise_s16(mp_lowered_op *lo) {
  const mpk_requant *q =
      lo->kernel == MP_K_FULLY_CONNECTED_S16 ? &lo->params.fc_s8.q : &lo->params.conv_s8.q;
  if (q->input_offset != 0 || q->filter_offset != 0 || q->output_offset != 0) return MP_OK;
  if (lo->kernel == MP_K_FULLY_CONNECTED_S16) {
    mp_lower_use_kernel(lo, MP_K_FULLY_CONNECTED_S16_FAST);
    return MP_OK;
  }
  if (lo->kernel == MP_K_DEPTHWISE_CONV2D_S16) {
    mp_lower_use_kernel(lo, MP_K_DEPTHWISE_CONV2D_S16_FAST);
    return MP_OK;
  }
  const mpk_conv_geom *gm = &lo->params.conv_s8.geom;
  if (gm->filter_c != gm->in_c) return MP_OK; /* grouped */
  const uint64_t taps = (uint64_t)gm->filter_h * (uint64_t)gm->filter_w * (uint64_t)gm->in_c;
  if (taps > (uint64_t)INT32_MAX / 2) return MP_OK;
  mp_lower_use_kernel(lo, lo->kernel == MP_K_CONV2D_S16_ACC32 ? MP_K_CONV2D_S16_ACC32_FAST
                                                               : MP_K_CONV2D_S16_FAST);
  if (!mpk_conv2d_s16_fast_direct(gm)) {
    lo->scratch_bytes = 2u * taps;
    lo->scratch_align = 4;
  }
  return MP_OK;
}

/* An element of a constant int8 or int16 (little-endian) tensor. */
static int32_t const_at(const uint8_t *d, bool wide, size_t i) {
  return wide ? (int32_t)(int16_t)(uint16_t)(d[2 * i] | d[2 * i + 1] << 8) : (int8_t)d[i];
}

/* SVDF int8: the input zero point's share of the feature products per
 * filter, the state zero point's share of the time products and the bias
 * per unit, folded (mpk_svdf_s8_fast_params); op-local scratch for one
 * batch row's newest state values. */
static mp_status specialise_svdf(const mp_graph *g, mp_lowered_op *lo) {
  const mpk_svdf_s8_params ref = lo->params.svdf_s8;
  const mpk_svdf_shape *sh = &ref.shape;
  const int8_t *wf = const_s8(g, lo->args[1].tensor);
  const uint8_t *wt = lo->args[2].tensor >= 0 ? g->tensors[lo->args[2].tensor].data : NULL;
  const uint8_t *bias = lo->args[3].tensor >= 0 ? g->tensors[lo->args[3].tensor].data : NULL;
  if (!wf || !wt || (lo->args[3].tensor >= 0 && !bias)) return MP_OK;
  const bool wide = ref.state_type == MPK_TYPE_INT16;
  int32_t *fb = mp_lower_add_array(lo, "feature_bias", (uint32_t)sh->num_filters);
  int32_t *ub = mp_lower_add_array(lo, "unit_bias", (uint32_t)sh->num_units);
  if (!fb || !ub) return MP_ERR_NOMEM;
  for (int32_t f = 0; f < sh->num_filters; f++) {
    uint32_t sum = 0;
    for (int32_t i = 0; i < sh->input_size; i++)
      sum += (uint32_t)(int32_t)wf[(size_t)f * (size_t)sh->input_size + (size_t)i];
    const uint32_t v = 0u - (uint32_t)ref.input_zero_point * sum;
    memcpy(&fb[f], &v, sizeof v);
  }
  const size_t per_unit = (size_t)sh->rank * (size_t)sh->memory_size;
  for (int32_t u = 0; u < sh->num_units; u++) {
    uint32_t sum = 0;
    for (size_t i = 0; i < per_unit; i++)
      sum += (uint32_t)const_at(wt, wide, (size_t)u * per_unit + i);
    const uint32_t v = bias_at(bias, (uint32_t)u) - (uint32_t)ref.state_zero_point * sum;
    memcpy(&ub[u], &v, sizeof v);
  }
  memset(&lo->params, 0, sizeof lo->params);
  mpk_svdf_s8_fast_params *p = &lo->params.svdf_s8_fast;
  p->ref = ref;
  p->feature_bias = fb;
  p->unit_bias = ub;
  lo->scratch_bytes = (uint64_t)sh->num_filters * 4u;
  lo->scratch_align = 4;
  mp_lower_use_kernel(lo, MP_K_SVDF_S8_FAST);
  return MP_OK;
}

/* LSTM int8: per gate and cell, the bias with the input offset's share of
 * the input products, and the hidden offset's share of the recurrent ones
 * (mpk_lstm_s8_fast_params); no scratch (no gate is stored). */
static mp_status specialise_lstm(const mp_graph *g, mp_lowered_op *lo) {
  const mpk_lstm_s8_params ref = lo->params.lstm_s8;
  const mp_lower_arg *k = &lo->args[1];
  if (k->kind != MP_LARG_TENSOR_ARRAY || k->n_tensors < 15) return MP_OK;
  const int32_t ns = ref.shape.state_size, ni = ref.shape.input_size;
  for (uint32_t i = 0; i < 15; i++)
    if ((i < 8 || i >= 11) && (k->tensors[i] < 0 || !g->tensors[k->tensors[i]].data)) return MP_OK;
  int32_t *ib = mp_lower_add_array(lo, "in_bias", 4u * (uint32_t)ns);
  int32_t *rb = mp_lower_add_array(lo, "rec_bias", 4u * (uint32_t)ns);
  if (!ib || !rb) return MP_ERR_NOMEM;
  for (int gate = 0; gate < 4; gate++) {
    const int8_t *wi = const_s8(g, k->tensors[gate]), *wr = const_s8(g, k->tensors[4 + gate]);
    const uint8_t *bias = g->tensors[k->tensors[11 + gate]].data;
    for (int32_t s = 0; s < ns; s++) {
      uint32_t si = 0, sr = 0;
      for (int32_t i = 0; i < ni; i++) si += (uint32_t)(int32_t)wi[(size_t)s * (size_t)ni + (size_t)i];
      for (int32_t i = 0; i < ns; i++) sr += (uint32_t)(int32_t)wr[(size_t)s * (size_t)ns + (size_t)i];
      const uint32_t vi = bias_at(bias, (uint32_t)s) + (uint32_t)ref.input_offset * si;
      const uint32_t vr = (uint32_t)ref.hidden_offset * sr;
      memcpy(&ib[gate * ns + s], &vi, sizeof vi);
      memcpy(&rb[gate * ns + s], &vr, sizeof vr);
    }
  }
  memset(&lo->params, 0, sizeof lo->params);
  mpk_lstm_s8_fast_params *p = &lo->params.lstm_s8_fast;
  p->ref = ref;
  p->in_bias = ib;
  p->rec_bias = rb;
  lo->scratch_bytes = 0;
  mp_lower_use_kernel(lo, MP_K_LSTM_S8_FAST);
  return MP_OK;
}

/* DEPTHWISE_CONV_2D int8 that memory.in_place runs channel by channel:
 * the same params, temporary and overlap contract (the walk is the
 * same), the Cortex-M loops. */
static mp_status specialise_serial(mp_lowered_op *lo) {
  const mpk_overlap ov = mpk_depthwise_conv2d_serial_overlap(&lo->params.conv_s8.geom, 1);
  mp_lower_use_kernel(lo, MP_K_DEPTHWISE_CONV2D_S8_SERIAL_FAST);
  mp_lower_add_overlap_period(lo, 0, 3, ov);
  return MP_OK;
}

/* Does a 16x8 convolution write a strided output (an input of an elided
 * CONCATENATION)?  The specialised 16x8 kernels write packed outputs only;
 * the int8 ones take the reference kernel's output strides. */
static bool strided_output(const mp_lowered_op *lo) {
  switch (lo->kernel) {
  case MP_K_CONV2D_S16:
  case MP_K_CONV2D_S16_ACC32:
  case MP_K_DEPTHWISE_CONV2D_S16: return !mpk_out_packed(&lo->params.conv_s8.geom);
  default: return false;
  }
}

mp_status mp_lower_specialise(const mp_graph *g, mp_lowered_op *lo) {
  if (g->target == MP_TARGET_GENERIC || !lo->supported || strided_output(lo)) return MP_OK;
  switch (lo->kernel) {
  case MP_K_CONV2D_S8: return lo->n_args < 3 ? MP_OK : specialise_conv(g, lo, false);
  case MP_K_DEPTHWISE_CONV2D_S8: return lo->n_args < 3 ? MP_OK : specialise_conv(g, lo, true);
  case MP_K_FULLY_CONNECTED_S8: return lo->n_args < 3 ? MP_OK : specialise_fc(g, lo);
  case MP_K_BINARY_Q:
    /* MUL of two int8 tensors of the output's shape: the same params */
    if (lo->params.binary_q.op == MPK_BIN_MUL && lo->params.binary_q.type == MPK_TYPE_INT8 &&
        lo->params.binary_q.b.elementwise) {
      mp_lower_use_kernel(lo, MP_K_MUL_S8_FAST);
      mp_lower_add_overlap(lo, 0, 2, mpk_mul_s8_fast_overlap_gap(lo->params.binary_q.b.size));
      mp_lower_add_overlap(lo, 1, 2, mpk_mul_s8_fast_overlap_gap(lo->params.binary_q.b.size));
    }
    return MP_OK;
  case MP_K_AVG_POOL2D_S8:
  case MP_K_MAX_POOL2D_S8:
    mp_lower_use_kernel(lo, lo->kernel == MP_K_AVG_POOL2D_S8 ? MP_K_AVG_POOL2D_S8_FAST
                                                             : MP_K_MAX_POOL2D_S8_FAST);
    mp_lower_add_overlap(lo, 0, 1, mpk_pool2d_s8_fast_overlap_gap(&lo->params.pool_s8.geom));
    return MP_OK;
  case MP_K_SOFTMAX_S8: return specialise_softmax(lo);
  case MP_K_LOGISTIC_S8:
  case MP_K_UNARY_Q:
  case MP_K_REQUANTIZE: return specialise_lut(lo);
  case MP_K_SVDF_S8: return lo->n_args < 6 ? MP_OK : specialise_svdf(g, lo);
  case MP_K_LSTM_S8: return lo->n_args < 5 ? MP_OK : specialise_lstm(g, lo);
  case MP_K_LSTM_S16:
    /* the same params and constants (the int64 biases; no zero point to
     * fold); no gate is stored */
    lo->scratch_bytes = 0;
    mp_lower_use_kernel(lo, MP_K_LSTM_S16_FAST);
    return MP_OK;
  case MP_K_DEPTHWISE_CONV2D_S8_SERIAL: return specialise_serial(lo);
  case MP_K_CONV2D_S16:
  case MP_K_CONV2D_S16_ACC32:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_FULLY_CONNECTED_S16: return specialise_s16(lo);
  case MP_K_ADD_S8:
    /* the same params; the specialised loop has no broadcasting */
    if (lo->params.add_s8.b.elementwise) {
      mp_lower_use_kernel(lo, MP_K_ADD_S8_FAST);
      /* both inputs (args 0 and 1) have the output's (arg 2) size */
      mp_lower_add_overlap(lo, 0, 2, mpk_add_s8_fast_overlap_gap(lo->params.add_s8.b.size));
      mp_lower_add_overlap(lo, 1, 2, mpk_add_s8_fast_overlap_gap(lo->params.add_s8.b.size));
    }
    return MP_OK;
  default: return MP_OK;
  }
}
