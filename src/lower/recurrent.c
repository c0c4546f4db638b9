/*
 * lower_recurrent.c — lowering of the stateful operators, SVDF and
 * UNIDIRECTIONAL_SEQUENCE_LSTM, onto runtime/kernels/ref/mpk_recurrent.c.
 *
 * As for every operator, the preparation TensorFlow Lite Micro does in
 * the kernels' Prepare happens here, with the same float and double
 * expressions: SVDF's two effective scales; the LSTM's eight fully
 * connected multipliers into the gates' fixed Q3.12 scale, the three
 * elementwise products between gates (Q0.15) and states, the cell
 * state's power-of-two exponent and its quantised clip.
 *
 * The state tensors must be the model's variable tensors: the plan keeps
 * them in the persistent arena (zeroed by context_init, kept between
 * runs), which is what makes a stream of runs see its history.  An
 * operator whose state is not variable is unsupported: its "state" would
 * be scratch, rewritten by other operators between runs.
 *
 * float32 SVDF and LSTM run the same walk in float; the float SVDF applies
 * every fused activation TFLite Micro does (TANH and SIGN_BIT included).
 * No model or corpus case runs them: tests/test_kernels.c checks the
 * float SVDF against its definition, tests/test_golden.c the float LSTM
 * against TFLM's int8 LSTM.
 *
 * The 16x8 LSTM (int16 activations, int8 weights, int64 biases, int16
 * cell state) is the same preparation with the activations' dtype
 * changed; its activations must be symmetric (zero points 0: TFLM's
 * int16 fully connected layers take no input offset).  No model or corpus
 * case runs it: tests/test_lstm16.c checks it against the int8 LSTM on
 * LSTMs both express exactly, its gates against the 16x8
 * FULLY_CONNECTED, and its outputs against the float LSTM.
 *
 * Not here: hybrid (float with int8 weights) SVDFs, which TFLite Micro's
 * PrepareSvdf refuses too, and hybrid LSTMs, which it runs as float32
 * LSTMs over the int8 weights' bytes (no answer to match); CIFG,
 * peephole, projection and layer-norm LSTMs (reported as unsupported).
 */
#include "lower/common.h"
#include "lower/families.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* BuiltinOptions union type ids. */
enum { OPT_SVDF = 6, OPT_UNIDIRECTIONAL_SEQUENCE_LSTM = 71 };
enum { ACT_TANH = 4, ACT_SIGN_BIT = 5 };

static const fdesc svdf_shape_fields[] = {F_I32(mpk_svdf_shape, batches),
                                          F_I32(mpk_svdf_shape, input_size),
                                          F_I32(mpk_svdf_shape, num_filters),
                                          F_I32(mpk_svdf_shape, num_units),
                                          F_I32(mpk_svdf_shape, rank),
                                          F_I32(mpk_svdf_shape, memory_size),
                                          F_END};

static const fdesc lstm_shape_fields[] = {
    F_I32(mpk_lstm_shape, time_major), F_I32(mpk_lstm_shape, batches),
    F_I32(mpk_lstm_shape, time_steps), F_I32(mpk_lstm_shape, input_size),
    F_I32(mpk_lstm_shape, state_size), F_END};

const fdesc mp_lower_svdf_s8_fields[] = {F_SUB(mpk_svdf_s8_params, shape, svdf_shape_fields),
                                         F_I32(mpk_svdf_s8_params, state_type),
                                         F_I32(mpk_svdf_s8_params, input_zero_point),
                                         F_I32(mpk_svdf_s8_params, state_zero_point),
                                         F_I32(mpk_svdf_s8_params, output_zero_point),
                                         F_I32(mpk_svdf_s8_params, feature_multiplier),
                                         F_I32(mpk_svdf_s8_params, feature_shift),
                                         F_I32(mpk_svdf_s8_params, time_multiplier),
                                         F_I32(mpk_svdf_s8_params, time_shift),
                                         F_END};

const fdesc mp_lower_svdf_f32_fields[] = {F_SUB(mpk_svdf_f32_params, shape, svdf_shape_fields),
                                          F_I32(mpk_svdf_f32_params, activation), F_END};

const fdesc mp_lower_lstm_f32_fields[] = {F_SUB(mpk_lstm_f32_params, shape, lstm_shape_fields),
                                          F_F32(mpk_lstm_f32_params, cell_clip), F_END};

static const fdesc lstm_gate_fields[] = {
    F_I32(mpk_lstm_gate, in_multiplier), F_I32(mpk_lstm_gate, in_shift),
    F_I32(mpk_lstm_gate, rec_multiplier), F_I32(mpk_lstm_gate, rec_shift), F_END};

const fdesc mp_lower_lstm_s8_fields[] = {F_SUB(mpk_lstm_s8_params, shape, lstm_shape_fields),
                                         F_I32(mpk_lstm_s8_params, input_offset),
                                         F_I32(mpk_lstm_s8_params, hidden_offset),
                                         F_I32(mpk_lstm_s8_params, hidden_zero_point),
                                         F_SUB(mpk_lstm_s8_params, gate[0], lstm_gate_fields),
                                         F_SUB(mpk_lstm_s8_params, gate[1], lstm_gate_fields),
                                         F_SUB(mpk_lstm_s8_params, gate[2], lstm_gate_fields),
                                         F_SUB(mpk_lstm_s8_params, gate[3], lstm_gate_fields),
                                         F_I32(mpk_lstm_s8_params, cell_activation),
                                         F_I32(mpk_lstm_s8_params, forget_cell_multiplier),
                                         F_I32(mpk_lstm_s8_params, forget_cell_shift),
                                         F_I32(mpk_lstm_s8_params, input_cell_multiplier),
                                         F_I32(mpk_lstm_s8_params, input_cell_shift),
                                         F_I32(mpk_lstm_s8_params, hidden_multiplier),
                                         F_I32(mpk_lstm_s8_params, hidden_shift),
                                         F_I32(mpk_lstm_s8_params, cell_clip),
                                         F_I32(mpk_lstm_s8_params, cell_tanh_multiplier),
                                         F_I32(mpk_lstm_s8_params, cell_tanh_shift),
                                         F_END};

/* The specialised kernels' params (specialise.c): the reference params
 * and the folded biases. */
const fdesc mp_lower_svdf_s8_fast_fields[] = {
    F_SUB(mpk_svdf_s8_fast_params, ref, mp_lower_svdf_s8_fields),
    F_PTR(mpk_svdf_s8_fast_params, feature_bias, "feature_bias"),
    F_PTR(mpk_svdf_s8_fast_params, unit_bias, "unit_bias"), F_END};
const fdesc mp_lower_lstm_s8_fast_fields[] = {
    F_SUB(mpk_lstm_s8_fast_params, ref, mp_lower_lstm_s8_fields),
    F_PTR(mpk_lstm_s8_fast_params, in_bias, "in_bias"),
    F_PTR(mpk_lstm_s8_fast_params, rec_bias, "rec_bias"), F_END};

static bool is_variable(const mp_lower_ctx *c, int32_t t) {
  return c->g->tensors[t].role == MP_ROLE_PERSISTENT;
}

/* A tensor of type dt with one scale and zero point. */
static bool per_tensor(const mp_lower_ctx *c, int32_t t, int32_t dt, float *scale, int32_t *zp) {
  return dtype(c, t) == dt && quant(c, t, scale, zp) && tdef(c, t)->quant.n_scale == 1;
}

/* ---- SVDF ---------------------------------------------------------------- */

mp_status mp_lower_svdf(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), wf = in_t(c, 1), wt = in_t(c, 2), bias = in_t(c, 3), state = in_t(c, 4),
          out = out_t(c, 0);
  if (in < 0 || wf < 0 || wt < 0 || state < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, feature and time weights, a state and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_SVDF, "SVDFOptions", &o);
  if (st != MP_OK) return st;
  int32_t svdf_rank = mp_lower_opt_i32(&o, 0, 0);
  int32_t act = mp_lower_opt_i8(&o, 1, 0); /* float only: int8 clamps to int8 whatever it is */
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (rank(c, in) != 2 || rank(c, wf) != 2 || rank(c, wt) != 2 || rank(c, state) != 2 ||
      rank(c, out) != 2)
    return mp_lower_malformed(c, "input, weights, state and output must have rank 2");
  int32_t batches = dim(c, in, 0), input_size = dim(c, in, 1);
  int32_t filters = dim(c, wf, 0), memory = dim(c, wt, 1);
  if (svdf_rank <= 0 || filters <= 0 || filters % svdf_rank != 0)
    return mp_lower_malformed(c, "rank %d does not divide the %d filters", svdf_rank, filters);
  int32_t units = filters / svdf_rank;
  if (batches <= 0 || input_size <= 0 || memory <= 0 || dim(c, wf, 1) != input_size ||
      dim(c, wt, 0) != filters || dim(c, out, 0) != batches || dim(c, out, 1) != units ||
      dim(c, state, 0) != batches || (int64_t)dim(c, state, 1) != (int64_t)memory * filters ||
      (bias >= 0 && elems(c, bias) != (uint64_t)units))
    return mp_lower_malformed(c,
                              "shapes do not agree: input [%d, %d], %d filters of memory %d, "
                              "%d units",
                              batches, input_size, filters, memory, units);
  const mpk_svdf_shape shape = {batches, input_size, filters, units, svdf_rank, memory};
  if (dtype(c, in) == MP_DTYPE_FLOAT32) {
    int32_t f = MP_DTYPE_FLOAT32;
    /* PrepareSvdf: float32 input takes float32 weights, bias, state and
     * output, or the model fails to prepare */
    if (dtype(c, wf) != f || dtype(c, wt) != f || dtype(c, state) != f || dtype(c, out) != f ||
        (bias >= 0 && dtype(c, bias) != f)) {
      bool hybrid = dtype(c, wf) == MP_DTYPE_INT8 || dtype(c, wt) == MP_DTYPE_INT8;
      return mp_lower_unsupported(c,
                                  "float32 input with %s feature weights, %s time weights, %s "
                                  "state, %s output (%sTensorFlow Lite Micro refuses it too)",
                                  mp_dtype_name(dtype(c, wf)), mp_dtype_name(dtype(c, wt)),
                                  mp_dtype_name(dtype(c, state)), mp_dtype_name(dtype(c, out)),
                                  hybrid ? "hybrid SVDF: " : "");
    }
    if (act < 0 || act > ACT_SIGN_BIT)
      return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
    if (!is_variable(c, state))
      return mp_lower_unsupported(c, "its state (input 4) is not a variable tensor");
    mpk_svdf_f32_params *p = &c->lo->params.svdf_f32;
    p->shape = shape;
    p->activation = act; /* MPK_ACT_* are ActivationFunctionType's values */
    mp_lower_set_kernel(c, MP_K_SVDF_F32);
    mp_lower_add_arg(c, in, false, "const float *");
    mp_lower_add_arg(c, wf, false, "const float *");
    mp_lower_add_arg(c, wt, false, "const float *");
    mp_lower_add_arg(c, bias, false, "const float *");
    mp_lower_add_arg(c, state, true, "float *");
    mp_lower_add_arg(c, out, true, "float *");
    c->lo->scratch_bytes = (uint64_t)batches * (uint64_t)filters * 4u;
    c->lo->scratch_align = 4;
    return MP_OK;
  }
  float si, sf, st_s, swt, so;
  int32_t zi, zf, zs, zwt, zo;
  int32_t dts = dtype(c, state);
  if (!per_tensor(c, in, MP_DTYPE_INT8, &si, &zi) || !per_tensor(c, wf, MP_DTYPE_INT8, &sf, &zf) ||
      !per_tensor(c, out, MP_DTYPE_INT8, &so, &zo) ||
      (dts != MP_DTYPE_INT8 && dts != MP_DTYPE_INT16) || !per_tensor(c, state, dts, &st_s, &zs) ||
      !per_tensor(c, wt, dts, &swt, &zwt) || (bias >= 0 && dtype(c, bias) != MP_DTYPE_INT32))
    return mp_lower_unsupported(
        c,
        "input %s, feature weights %s, time weights %s, state %s, output %s (supported: int8 "
        "with int8 or int16 time weights and state, int32 bias, per-tensor quantisation)",
        mp_dtype_name(dtype(c, in)), mp_dtype_name(dtype(c, wf)), mp_dtype_name(dtype(c, wt)),
        mp_dtype_name(dts), mp_dtype_name(dtype(c, out)));
  if (!is_variable(c, state))
    return mp_lower_unsupported(c, "its state (input 4) is not a variable tensor");
  if (!is_const(c, wf) || !is_const(c, wt) || (bias >= 0 && !is_const(c, bias)))
    return mp_lower_unsupported(c, "weights and bias must be constants");
  mpk_svdf_s8_params *p = &c->lo->params.svdf_s8;
  p->shape = shape;
  p->state_type = dts == MP_DTYPE_INT16 ? MPK_TYPE_INT16 : MPK_TYPE_INT8;
  p->input_zero_point = zi;
  p->state_zero_point = zs;
  p->output_zero_point = zo;
  /* PrepareSvdf: both scales are float expressions widened to double */
  float scale1 = si * sf / st_s, scale2 = st_s * swt / so;
  mp_lower_quantize_multiplier(c, (double)scale1, &p->feature_multiplier, &p->feature_shift);
  mp_lower_quantize_multiplier(c, (double)scale2, &p->time_multiplier, &p->time_shift);
  mp_lower_set_kernel(c, MP_K_SVDF_S8);
  mp_lower_add_arg(c, in, false, "const int8_t *");
  mp_lower_add_arg(c, wf, false, "const int8_t *");
  mp_lower_add_arg(c, wt, false, "const void *");
  mp_lower_add_arg(c, bias, false, "const int32_t *");
  mp_lower_add_arg(c, state, true, "void *");
  mp_lower_add_arg(c, out, true, "int8_t *");
  c->lo->scratch_bytes = (uint64_t)batches * (uint64_t)(filters + units) * 4u;
  c->lo->scratch_align = 4;
  return MP_OK;
}

/* ---- UNIDIRECTIONAL_SEQUENCE_LSTM ----------------------------------------- */

/* The operator's inputs (lstm_shared.h's numbering). */
enum {
  L_INPUT = 0,
  L_INPUT_WEIGHTS = 1,     /* 1..4: input-to-{input, forget, cell, output} */
  L_RECURRENT_WEIGHTS = 5, /* 5..8 */
  L_PEEPHOLE = 9,          /* 9..11 */
  L_BIAS = 12,             /* 12..15 */
  L_PROJECTION = 16,       /* 16, 17 */
  L_HIDDEN = 18,
  L_CELL = 19,
  L_LAYER_NORM = 20, /* 20..23 */
  L_COUNT = 24
};

/* QuantizeMultiplier of TFLite's GetQuantizedConvolutionMultipler: the
 * scale product in float, the division in double. */
static void fc_multiplier(mp_lower_ctx *c, float in_scale, float w_scale, float out_scale,
                          int32_t *m, int32_t *s) {
  float product = in_scale * w_scale;
  mp_lower_quantize_multiplier(c, (double)product / (double)out_scale, m, s);
}

/* CreateInterGateMulParams: the product and the division in double. */
static void mul_multiplier(mp_lower_ctx *c, float a, float b, float out, int32_t *m, int32_t *s) {
  mp_lower_quantize_multiplier(c, (double)a * (double)b / (double)out, m, s);
}

/* The batch rows one step covers: all of them when time-major. */
static uint64_t lstm_rows(const mpk_lstm_shape *s) {
  return s->time_major ? (uint64_t)s->batches : 1u;
}

/* The float32 LSTM: every tensor float32, the shapes checked by the
 * caller. */
static mp_status lower_lstm_f32(mp_lower_ctx *c, const mpk_lstm_shape *shape, float cell_clip,
                                int32_t act) {
  int32_t in = in_t(c, L_INPUT), hidden = in_t(c, L_HIDDEN), cell = in_t(c, L_CELL),
          out = out_t(c, 0);
  /* TFLite Micro picks its LSTM by the input's type alone: with float32
   * input it runs the float32 LSTM, whatever the weights are, and reads
   * int8 weights as float32 (past their end).  There is no answer to
   * match: a hybrid LSTM is refused. */
  for (int k = L_INPUT_WEIGHTS; k < L_PEEPHOLE; k++) {
    int32_t t = in_t(c, (uint32_t)k);
    if (dtype(c, t) == MP_DTYPE_INT8)
      return mp_lower_unsupported(c,
                                  "float32 input with int8 weights (input %d), a hybrid LSTM: "
                                  "TensorFlow Lite Micro runs its float32 LSTM on the int8 bytes, "
                                  "reading past them",
                                  k);
  }
  for (int k = L_INPUT; k < L_LAYER_NORM; k++) {
    int32_t t = in_t(c, (uint32_t)k);
    if (t >= 0 && dtype(c, t) != MP_DTYPE_FLOAT32)
      return mp_lower_unsupported(c, "float32 input with %s input %d", mp_dtype_name(dtype(c, t)),
                                  k);
  }
  if (dtype(c, out) != MP_DTYPE_FLOAT32)
    return mp_lower_unsupported(c, "float32 input, other output");
  if (!is_variable(c, hidden) || !is_variable(c, cell))
    return mp_lower_unsupported(c, "its hidden and cell states are not variable tensors");
  if (act != ACT_TANH)
    return mp_lower_unsupported(c, "cell activation %s (supported: TANH)", mp_lower_act_name(act));
  for (int k = L_INPUT_WEIGHTS; k < L_PROJECTION; k++) {
    int32_t t = in_t(c, (uint32_t)k);
    if (t >= 0 && !is_const(c, t))
      return mp_lower_unsupported(c, "weights and biases must be constants");
  }
  mpk_lstm_f32_params *p = &c->lo->params.lstm_f32;
  p->shape = *shape;
  p->cell_clip = cell_clip;
  mp_lower_set_kernel(c, MP_K_LSTM_F32);
  mp_lower_add_arg(c, in, false, "const float *");
  mp_lower_add_array_arg(c, &c->op->inputs[L_INPUT_WEIGHTS], L_PROJECTION - L_INPUT_WEIGHTS,
                         "const void *const *");
  mp_lower_add_arg(c, hidden, true, "float *");
  mp_lower_add_arg(c, cell, true, "float *");
  mp_lower_add_arg(c, out, true, "float *");
  c->lo->scratch_bytes = 4u * lstm_rows(shape) * (uint64_t)shape->state_size * 4u;
  c->lo->scratch_align = 4;
  return MP_OK;
}

mp_status mp_lower_lstm(mp_lower_ctx *c) {
  /* 20 inputs: a model of the schema before layer normalisation */
  if ((c->op->n_inputs != L_COUNT && c->op->n_inputs != L_LAYER_NORM) || c->op->n_outputs != 1)
    return mp_lower_unsupported(c,
                                "%u inputs and %u outputs (supported: 24 or 20 inputs, 1 output)",
                                c->op->n_inputs, c->op->n_outputs);
  int32_t in = in_t(c, L_INPUT), hidden = in_t(c, L_HIDDEN), cell = in_t(c, L_CELL),
          out = out_t(c, 0);
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_UNIDIRECTIONAL_SEQUENCE_LSTM,
                                    "UnidirectionalSequenceLSTMOptions", &o);
  if (st != MP_OK) return st;
  int32_t act = mp_lower_opt_i8(&o, 0, 0);
  float cell_clip = mp_lower_opt_f32(&o, 1, 0.0f), proj_clip = mp_lower_opt_f32(&o, 2, 0.0f);
  bool time_major = mp_lower_opt_bool(&o, 3, false);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  (void)proj_clip; /* no projection */
  for (int k = L_PEEPHOLE; k < L_BIAS; k++)
    if (in_t(c, (uint32_t)k) >= 0) return mp_lower_unsupported(c, "peephole connections");
  if (in_t(c, L_PROJECTION) >= 0 || in_t(c, L_PROJECTION + 1) >= 0)
    return mp_lower_unsupported(c, "a projection layer");
  for (int k = L_LAYER_NORM; k < L_COUNT; k++)
    if (in_t(c, (uint32_t)k) >= 0) return mp_lower_unsupported(c, "layer normalisation");
  if (in < 0 || hidden < 0 || cell < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, hidden and cell states and an output");
  for (int k = L_INPUT_WEIGHTS; k < L_PEEPHOLE; k++)
    if (in_t(c, (uint32_t)k) < 0)
      return mp_lower_unsupported(c, "a coupled input and forget gate (CIFG)");
  for (int k = L_BIAS; k < L_PROJECTION; k++)
    if (in_t(c, (uint32_t)k) < 0) return mp_lower_unsupported(c, "a gate without bias");
  if (rank(c, in) != 3 || rank(c, out) != 3)
    return mp_lower_malformed(c, "input and output must have rank 3");
  int32_t batches = dim(c, in, time_major ? 1 : 0), steps = dim(c, in, time_major ? 0 : 1);
  int32_t input_size = dim(c, in, 2);
  int32_t w0 = in_t(c, L_INPUT_WEIGHTS);
  int32_t state_size = rank(c, w0) == 2 ? dim(c, w0, 0) : 0;
  if (batches <= 0 || steps <= 0 || input_size <= 0 || state_size <= 0 ||
      dim(c, out, 0) != dim(c, in, 0) || dim(c, out, 1) != dim(c, in, 1) ||
      dim(c, out, 2) != state_size ||
      elems(c, hidden) != (uint64_t)batches * (uint64_t)state_size ||
      elems(c, cell) != (uint64_t)batches * (uint64_t)state_size)
    return mp_lower_malformed(c, "shapes do not agree: input %s-major [%d, %d, %d], state %d",
                              time_major ? "time" : "batch", dim(c, in, 0), dim(c, in, 1),
                              input_size, state_size);
  for (int k = L_INPUT_WEIGHTS; k < L_PEEPHOLE; k++) {
    int32_t w = in_t(c, (uint32_t)k);
    int32_t cols = k < L_RECURRENT_WEIGHTS ? input_size : state_size;
    if (rank(c, w) != 2 || dim(c, w, 0) != state_size || dim(c, w, 1) != cols)
      return mp_lower_malformed(c, "weights %d must be [%d, %d]", k, state_size, cols);
  }
  for (int k = L_BIAS; k < L_PROJECTION; k++)
    if (elems(c, in_t(c, (uint32_t)k)) != (uint64_t)state_size)
      return mp_lower_malformed(c, "bias %d must have %d elements", k, state_size);
  const mpk_lstm_shape shape = {time_major, batches, steps, input_size, state_size};
  if (dtype(c, in) == MP_DTYPE_FLOAT32) return lower_lstm_f32(c, &shape, cell_clip, act);

  /* int8 activations, or int16 ones with int8 weights (16x8): TFLite
   * Micro's two integer LSTMs, with an int16 cell state */
  const bool s16 = dtype(c, in) == MP_DTYPE_INT16;
  const int32_t adt = s16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8;
  float si, sh, sc, so;
  int32_t zi, zh, zc, zo;
  if (!per_tensor(c, in, adt, &si, &zi) || !per_tensor(c, hidden, adt, &sh, &zh) ||
      !per_tensor(c, cell, MP_DTYPE_INT16, &sc, &zc) || !per_tensor(c, out, adt, &so, &zo))
    return mp_lower_unsupported(c,
                                "input %s, hidden state %s, cell state %s, output %s "
                                "(supported: int8, int8, int16, int8 or, 16x8, int16, int16, "
                                "int16, int16; per-tensor quantised)",
                                mp_dtype_name(dtype(c, in)), mp_dtype_name(dtype(c, hidden)),
                                mp_dtype_name(dtype(c, cell)), mp_dtype_name(dtype(c, out)));
  /* TFLM's 16x8 fully connected layers take no input offset: its int16
   * activations are symmetric */
  if (s16 && (zi != 0 || zh != 0 || zo != 0))
    return mp_lower_unsupported(c,
                                "16x8 with a non-zero zero point (input %d, hidden state %d, "
                                "output %d)",
                                zi, zh, zo);
  if (!is_variable(c, hidden) || !is_variable(c, cell))
    return mp_lower_unsupported(c, "its hidden and cell states are not variable tensors");
  if (act != ACT_TANH)
    return mp_lower_unsupported(c, "cell activation %s (supported: TANH)", mp_lower_act_name(act));

  mpk_lstm_s8_params *p = &c->lo->params.lstm_s8;
  const float gate_scale = 1.0f / 4096.0f;       /* Q3.12, the gates before activation */
  const float activated_scale = 1.0f / 32768.0f; /* Q0.15, after */
  for (int g = 0; g < 4; g++) {
    int32_t wi = in_t(c, (uint32_t)(L_INPUT_WEIGHTS + g)),
            wr = in_t(c, (uint32_t)(L_RECURRENT_WEIGHTS + g));
    int32_t b = in_t(c, (uint32_t)(L_BIAS + g));
    float swi, swr;
    int32_t zwi, zwr;
    if (!per_tensor(c, wi, MP_DTYPE_INT8, &swi, &zwi) ||
        !per_tensor(c, wr, MP_DTYPE_INT8, &swr, &zwr) ||
        dtype(c, b) != (s16 ? MP_DTYPE_INT64 : MP_DTYPE_INT32))
      return mp_lower_unsupported(c, "gate %d: weights must be per-tensor int8, the bias %s", g,
                                  s16 ? "int64" : "int32");
    if (zwi != 0 || zwr != 0) return mp_lower_unsupported(c, "weights with a non-zero zero point");
    if (!is_const(c, wi) || !is_const(c, wr) || !is_const(c, b))
      return mp_lower_unsupported(c, "weights and biases must be constants");
    /* TFLite's int64 requantisation takes its accumulator within
     * [-2^47, 2^47): the input layer's with its bias, the recurrent
     * layer's (no bias) */
    if (s16) {
      char what[24];
      snprintf(what, sizeof what, "gate %d: ", g);
      if ((st = mp_lower_s16_acc_check(c, what, wi, b, state_size, input_size, input_size, 1,
                                       0)) != MP_OK ||
          c->lo->reason[0] ||
          (st = mp_lower_s16_acc_check(c, what, wr, -1, state_size, state_size, state_size, 1,
                                       0)) != MP_OK ||
          c->lo->reason[0])
        return st;
    }
    fc_multiplier(c, si, swi, gate_scale, &p->gate[g].in_multiplier, &p->gate[g].in_shift);
    fc_multiplier(c, sh, swr, gate_scale, &p->gate[g].rec_multiplier, &p->gate[g].rec_shift);
    /* the int64 requantisation shifts right by 15 - shift: TFLite takes
     * shifts below 8 */
    if (s16 && (p->gate[g].in_shift >= 8 || p->gate[g].rec_shift >= 8))
      return mp_lower_unsupported(c, "gate %d: a 16x8 scale of 2^7 or more", g);
  }
  p->shape = shape;
  p->input_offset = -zi;
  p->hidden_offset = -zh;
  p->hidden_zero_point = zh;
  p->cell_activation = MPK_LSTM_TANH;
  mul_multiplier(c, activated_scale, sc, sc, &p->forget_cell_multiplier, &p->forget_cell_shift);
  mul_multiplier(c, activated_scale, activated_scale, sc, &p->input_cell_multiplier,
                 &p->input_cell_shift);
  mul_multiplier(c, activated_scale, activated_scale, sh, &p->hidden_multiplier, &p->hidden_shift);
  /* CreateLstmCellStateInfo: the cell scale's power of two (CheckedLog2,
   * rounded in float) and the clip in cell units */
  int power = (int)roundf(logf(sc) * (1.0f / logf(2.0f)));
  double clip = (double)cell_clip / (double)sc;
  p->cell_clip = cell_clip > 0.0f ? (int32_t)(int16_t)fmin(fmax(clip, -32768.0), 32767.0) : 0;
  int tanh_shift = 15 + power - 3;
  p->cell_tanh_multiplier = tanh_shift < 0 ? 3 : 0;
  p->cell_tanh_shift = tanh_shift < 0 ? -tanh_shift : tanh_shift;
  if (p->cell_tanh_shift > 20) return mp_lower_unsupported(c, "cell state scale 2^%d", power);

  mp_lower_set_kernel(c, s16 ? MP_K_LSTM_S16 : MP_K_LSTM_S8);
  mp_lower_add_arg(c, in, false, s16 ? "const int16_t *" : "const int8_t *");
  mp_lower_add_array_arg(c, &c->op->inputs[L_INPUT_WEIGHTS], L_PROJECTION - L_INPUT_WEIGHTS,
                         "const void *const *");
  mp_lower_add_arg(c, hidden, true, s16 ? "int16_t *" : "int8_t *");
  mp_lower_add_arg(c, cell, true, "int16_t *");
  mp_lower_add_arg(c, out, true, s16 ? "int16_t *" : "int8_t *");
  c->lo->scratch_bytes = 4u * lstm_rows(&shape) * (uint64_t)state_size * 2u;
  c->lo->scratch_align = 4;
  return MP_OK;
}
