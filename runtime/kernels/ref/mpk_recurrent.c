/*
 * mpk_recurrent.c — SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM, int8 (and the
 * 16x8 LSTM), with the arithmetic of TensorFlow Lite Micro's reference
 * kernels.
 *
 * SVDF keeps a sliding window of `memory_size` feature activations per
 * filter in its state: each run shifts the window by one, computes the
 * newest column from the input, and reduces the window against the time
 * weights.
 *
 * The LSTM is TFLite Micro's integer LSTM: each gate is two fully
 * connected layers (input and hidden state) requantised to int16 Q3.12,
 * added with saturation and passed through the int16 logistic or tanh
 * (mpk_act.h's table lookups, as TFLite's) to Q0.15; the cell
 * state is int16 at a power-of-two scale; the hidden state is int8.  The
 * 16x8 LSTM is the same walk with int16 input, hidden state and output:
 * one step function serves both, parameterised on the activation's
 * element size, whose fully connected layers accumulate in int64 with
 * int64 biases (TFLite's 16x8 FullyConnected).  The state tensors are the
 * caller's persistent buffers, updated in place.
 */
#include "mpk.h"
#include "mpk_act.h"
#include "mpk_fixed.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* SVDF                                                                     */
/* ------------------------------------------------------------------------ */

static int svdf_shape_ok(const mpk_svdf_shape *s, const void *scratch) {
  return s->batches > 0 && s->input_size > 0 && s->num_filters > 0 && s->num_units > 0 &&
         s->rank > 0 && s->memory_size > 0 && s->num_units * s->rank == s->num_filters && scratch;
}

static int32_t state_at(const void *s, int32_t type, int32_t i) {
  return type == MPK_TYPE_INT16 ? ((const int16_t *)s)[i] : ((const int8_t *)s)[i];
}

MPK_API int32_t mpk_svdf_s8(const mpk_svdf_s8_params *p, const int8_t *input,
                            const int8_t *weights_feature, const void *weights_time,
                            const int32_t *bias, void *state, int8_t *output, void *scratch) {
  const mpk_svdf_shape *sh = &p->shape;
  const int32_t nb = sh->batches, ni = sh->input_size, nf = sh->num_filters, nu = sh->num_units;
  const int32_t rank = sh->rank, nm = sh->memory_size, type = p->state_type;
  if (!svdf_shape_ok(sh, scratch) || (type != MPK_TYPE_INT8 && type != MPK_TYPE_INT16))
    return MPK_ERR_PARAMS;
  const size_t es = type == MPK_TYPE_INT16 ? 2 : 1;
  const int32_t smin = type == MPK_TYPE_INT16 ? -32768 : -128;
  const int32_t smax = type == MPK_TYPE_INT16 ? 32767 : 127;
  int32_t *acc = scratch;         /* batches x num_filters */
  int32_t *units = acc + nb * nf; /* batches x num_units */

  /* the window moves by one element; the last column is rewritten below */
  memmove(state, (uint8_t *)state + es, ((size_t)nb * (size_t)nf * (size_t)nm - 1) * es);

  for (int32_t b = 0; b < nb; b++) {
    const int8_t *in = input + b * ni;
    for (int32_t f = 0; f < nf; f++) {
      const int8_t *w = weights_feature + f * ni;
      int32_t dot = 0;
      for (int32_t i = 0; i < ni; i++)
        dot += (int32_t)w[i] * ((int32_t)in[i] - p->input_zero_point);
      dot = mpk_mbqm(dot, p->feature_multiplier, p->feature_shift) + p->state_zero_point;
      dot = mpk_clamp_i32(dot, smin, smax);
      int32_t at = (b * nf + f) * nm + nm - 1;
      if (type == MPK_TYPE_INT16)
        ((int16_t *)state)[at] = (int16_t)dot;
      else
        ((int8_t *)state)[at] = (int8_t)dot;
    }
  }

  for (int32_t b = 0; b < nb; b++) {
    for (int32_t f = 0; f < nf; f++) {
      int32_t sum = 0;
      int32_t row = (b * nf + f) * nm;
      for (int32_t m = 0; m < nm; m++)
        sum += state_at(weights_time, type, f * nm + m) *
               (state_at(state, type, row + m) - p->state_zero_point);
      acc[b * nf + f] = sum;
    }
  }

  for (int32_t b = 0; b < nb; b++) {
    for (int32_t u = 0; u < nu; u++) {
      int32_t sum = bias ? bias[u] : 0;
      for (int32_t r = 0; r < rank; r++)
        sum += acc[b * nf + u * rank + r];
      units[b * nu + u] = sum;
    }
  }
  for (int32_t i = 0; i < nb * nu; i++) {
    int32_t v = mpk_mbqm(units[i], p->time_multiplier, p->time_shift) + p->output_zero_point;
    output[i] = (int8_t)mpk_clamp_i32(v, -128, 127);
  }
  return MPK_OK;
}

/* ------------------------------------------------------------------------ */
/* LSTM                                                                     */
/* ------------------------------------------------------------------------ */

/* One gate's fully connected layer over `rows` batch rows of x (int8 or
 * int16 as es says):
 *   out[b][s] = clamp16(requantise(sum_i w[s][i] * (x[b][i] + x_offset) + bias[s])).
 * int8 activations accumulate in int32 with int32 biases and TFLite's
 * int32 MultiplyByQuantizedMultiplier; int16 ones (16x8, symmetric: no
 * offset) in int64 with int64 biases and its int64 form. */
static inline void gate_fc(int32_t rows, int32_t depth, int32_t outs, size_t es, const void *x,
                    int32_t x_offset, const int8_t *w, const void *bias, int32_t multiplier,
                    int32_t shift, int16_t *out) {
  for (int32_t b = 0; b < rows; b++) {
    for (int32_t s = 0; s < outs; s++) {
      const int8_t *ws = w + s * depth;
      int32_t v;
      if (es == 1) {
        const int8_t *xb = (const int8_t *)x + b * depth;
        int32_t acc = 0;
        for (int32_t i = 0; i < depth; i++)
          acc += (int32_t)ws[i] * ((int32_t)xb[i] + x_offset);
        if (bias) acc += ((const int32_t *)bias)[s];
        v = mpk_mbqm(acc, multiplier, shift);
      } else {
        const int16_t *xb = (const int16_t *)x + b * depth;
        int64_t acc = 0;
        for (int32_t i = 0; i < depth; i++)
          acc += (int32_t)ws[i] * (int32_t)xb[i];
        if (bias) acc += ((const int64_t *)bias)[s];
        v = mpk_mbqm64(acc, multiplier, shift);
      }
      out[b * outs + s] = (int16_t)mpk_clamp_i32(v, -32768, 32767);
    }
  }
}

/* out = clamp(offset + mbqm(a * b)) elementwise, to int16 or int8. */
static void mul_s16(int32_t n, const int16_t *a, const int16_t *b, int32_t multiplier,
                    int32_t shift, int16_t *out) {
  for (int32_t i = 0; i < n; i++)
    out[i] = (int16_t)mpk_clamp_i32(mpk_mbqm((int32_t)a[i] * (int32_t)b[i], multiplier, shift),
                                    -32768, 32767);
}

/* One run of an LSTM kernel: its params, shape and constants, the batch
 * rows a step covers and the four gate buffers of scratch. */
typedef struct lstm_step {
  const void *p; /* mpk_lstm_s8_params or mpk_lstm_f32_params */
  const mpk_lstm_shape *s;
  const void *const *k;
  int32_t rows; /* batch rows per step */
  void *buf[4];
} lstm_step;

/* One time step over st->rows batch rows: x the step's input, h and c the
 * rows' hidden and cell states, y the step's output. */
typedef void lstm_step_fn(const lstm_step *st, const void *x, void *h, void *c, void *y);

/* Checks the shape and constants and carves the gate buffers (elements
 * of gate_bytes) out of scratch; false on bad params. */
static int lstm_start(const void *p, const mpk_lstm_shape *s, const void *const *constants,
                      void *scratch, size_t gate_bytes, lstm_step *st) {
  if (s->batches <= 0 || s->time_steps <= 0 || s->input_size <= 0 || s->state_size <= 0 ||
      !scratch || !constants)
    return 0;
  for (int k = 0; k < 8; k++)
    if (!constants[k]) return 0;
  st->p = p;
  st->s = s;
  st->k = constants;
  st->rows = s->time_major ? s->batches : 1;
  for (int k = 0; k < 4; k++)
    st->buf[k] =
        (uint8_t *)scratch + (size_t)k * (size_t)st->rows * (size_t)s->state_size * gate_bytes;
  return 1;
}

/* The walk of both LSTMs: time-major inputs run every batch row in each
 * step, batch-major ones batch by batch.  Element sizes: in_bytes of the
 * input, h_bytes of the hidden state and the output, c_bytes of the cell. */
static void lstm_walk(const lstm_step *st, lstm_step_fn *step, const void *input, size_t in_bytes,
                      void *hidden, size_t h_bytes, void *cell, size_t c_bytes, void *output) {
  const mpk_lstm_shape *s = st->s;
  const size_t nb = (size_t)s->batches, nt = (size_t)s->time_steps, ni = (size_t)s->input_size,
               ns = (size_t)s->state_size;
  const uint8_t *in = input;
  uint8_t *h = hidden, *c = cell, *out = output;
  if (s->time_major) {
    for (size_t t = 0; t < nt; t++)
      step(st, in + t * nb * ni * in_bytes, h, c, out + t * nb * ns * h_bytes);
  } else {
    for (size_t b = 0; b < nb; b++)
      for (size_t t = 0; t < nt; t++)
        step(st, in + (b * nt + t) * ni * in_bytes, h + b * ns * h_bytes, c + b * ns * c_bytes,
             out + (b * nt + t) * ns * h_bytes);
  }
}

/* gate = activation(fc(input) + fc(hidden)), into `out`, using buf[3]. */
static inline void gate(const lstm_step *st, size_t es, int32_t g, const void *x, const void *h,
                        int32_t activation, int16_t *out) {
  const mpk_lstm_s8_params *p = st->p;
  const int32_t ni = st->s->input_size, ns = st->s->state_size, n = st->rows * ns;
  const mpk_lstm_gate *q = &p->gate[g];
  int16_t *tmp = st->buf[3];
  gate_fc(st->rows, ni, ns, es, x, p->input_offset, st->k[g], st->k[11 + g], q->in_multiplier,
          q->in_shift, out);
  gate_fc(st->rows, ns, ns, es, h, p->hidden_offset, st->k[4 + g], NULL, q->rec_multiplier,
          q->rec_shift, tmp);
  for (int32_t i = 0; i < n; i++)
    out[i] = (int16_t)mpk_clamp_i32((int32_t)out[i] + (int32_t)tmp[i], -32768, 32767);
  if (activation == MPK_LSTM_SIGMOID)
    mpk_logistic_s16(0, 0, n, out, out);
  else
    mpk_tanh_s16(0, 0, n, out, out); /* Q3.12 input: 3 * 2^0 */
}

/* One step of the integer LSTM, int8 or int16 activations (es bytes): the
 * gates, the cell and the hidden state, which is the step's output. */
static inline void step(const lstm_step *st, size_t es, const void *x, void *h, void *cv,
                        void *y) {
  const mpk_lstm_s8_params *p = st->p;
  int16_t *c = cv;
  const int32_t n = st->rows * st->s->state_size;
  int16_t *forget = st->buf[0], *input = st->buf[1], *cell = st->buf[2];
  gate(st, es, MPK_LSTM_FORGET_GATE, x, h, MPK_LSTM_SIGMOID, forget);
  gate(st, es, MPK_LSTM_INPUT_GATE, x, h, MPK_LSTM_SIGMOID, input);
  gate(st, es, MPK_LSTM_CELL_GATE, x, h, p->cell_activation, cell);
  /* cell = forget * cell + input * cell gate, clipped */
  mul_s16(n, forget, c, p->forget_cell_multiplier, p->forget_cell_shift, c);
  mul_s16(n, input, cell, p->input_cell_multiplier, p->input_cell_shift, input);
  for (int32_t i = 0; i < n; i++) {
    int32_t v = mpk_clamp_i32((int32_t)c[i] + (int32_t)input[i], -32768, 32767);
    if (p->cell_clip > 0) v = mpk_clamp_i32(v, -p->cell_clip, p->cell_clip);
    c[i] = (int16_t)v;
  }
  /* hidden = tanh(cell) * output gate, to the activation type */
  int16_t *output = st->buf[1], *tanh_cell = st->buf[0];
  gate(st, es, MPK_LSTM_OUTPUT_GATE, x, h, MPK_LSTM_SIGMOID, output);
  mpk_tanh_s16(p->cell_tanh_multiplier, p->cell_tanh_shift, n, c, tanh_cell);
  const int32_t hmin = es == 1 ? -128 : -32768, hmax = es == 1 ? 127 : 32767;
  for (int32_t i = 0; i < n; i++) {
    int32_t v = mpk_mbqm((int32_t)tanh_cell[i] * (int32_t)output[i], p->hidden_multiplier,
                         p->hidden_shift) +
                p->hidden_zero_point;
    v = mpk_clamp_i32(v, hmin, hmax);
    if (es == 1)
      ((int8_t *)h)[i] = (int8_t)v;
    else
      ((int16_t *)h)[i] = (int16_t)v;
  }
  memcpy(y, h, (size_t)n * es);
}

/* step with the element size a constant, for each activation type */
static void step_s8(const lstm_step *st, const void *x, void *h, void *c, void *y) {
  step(st, 1, x, h, c, y);
}
static void step_s16(const lstm_step *st, const void *x, void *h, void *c, void *y) {
  step(st, 2, x, h, c, y);
}

/* Both integer LSTMs: es bytes per input, hidden state and output element. */
static int32_t lstm_integer(const mpk_lstm_s8_params *p, size_t es, const void *input,
                            const void *const *constants, void *hidden, int16_t *cell,
                            void *output, void *scratch) {
  lstm_step st;
  if (!lstm_start(p, &p->shape, constants, scratch, sizeof(int16_t), &st)) return MPK_ERR_PARAMS;
  lstm_walk(&st, es == 1 ? step_s8 : step_s16, input, es, hidden, es, cell, sizeof(int16_t),
            output);
  return MPK_OK;
}

MPK_API int32_t mpk_lstm_s8(const mpk_lstm_s8_params *p, const int8_t *input,
                            const void *const *constants, int8_t *hidden, int16_t *cell,
                            int8_t *output, void *scratch) {
  return lstm_integer(p, 1, input, constants, hidden, cell, output, scratch);
}

MPK_API int32_t mpk_lstm_s16(const mpk_lstm_s8_params *p, const int16_t *input,
                             const void *const *constants, int16_t *hidden, int16_t *cell,
                             int16_t *output, void *scratch) {
  return lstm_integer(p, 2, input, constants, hidden, cell, output, scratch);
}

/* ------------------------------------------------------------------------ */
/* float32                                                                  */
/* ------------------------------------------------------------------------ */

static float activate_f32(int32_t act, float x) {
  switch (act) {
  case MPK_ACT_RELU: return x < 0.0f ? 0.0f : x;
  case MPK_ACT_RELU_N1_TO_1: return x > 1.0f ? 1.0f : x < -1.0f ? -1.0f : x;
  case MPK_ACT_RELU6: return x > 6.0f ? 6.0f : x < 0.0f ? 0.0f : x;
  case MPK_ACT_TANH: return tanhf(x);
  case MPK_ACT_SIGN_BIT: return signbit(x) ? 1.0f : 0.0f;
  default: return x;
  }
}

MPK_API int32_t mpk_svdf_f32(const mpk_svdf_f32_params *p, const float *input,
                             const float *weights_feature, const float *weights_time,
                             const float *bias, float *state, float *output, void *scratch) {
  const mpk_svdf_shape *sh = &p->shape;
  const int32_t nb = sh->batches, ni = sh->input_size, nf = sh->num_filters, nu = sh->num_units;
  const int32_t rank = sh->rank, nm = sh->memory_size;
  if (!svdf_shape_ok(sh, scratch)) return MPK_ERR_PARAMS;
  float *acc = scratch; /* batches x num_filters */
  memmove(state, state + 1, ((size_t)nb * (size_t)nf * (size_t)nm - 1) * sizeof(float));
  for (int32_t b = 0; b < nb; b++)
    for (int32_t f = 0; f < nf; f++) {
      float dot = 0.0f;
      for (int32_t i = 0; i < ni; i++)
        dot += weights_feature[f * ni + i] * input[b * ni + i];
      state[(b * nf + f) * nm + nm - 1] = dot;
    }
  for (int32_t b = 0; b < nb; b++)
    for (int32_t f = 0; f < nf; f++) {
      float sum = 0.0f;
      for (int32_t m = 0; m < nm; m++)
        sum += weights_time[f * nm + m] * state[(b * nf + f) * nm + m];
      acc[b * nf + f] = sum;
    }
  for (int32_t b = 0; b < nb; b++)
    for (int32_t u = 0; u < nu; u++) {
      float v = bias ? bias[u] : 0.0f;
      for (int32_t r = 0; r < rank; r++)
        v += acc[b * nf + u * rank + r];
      output[b * nu + u] = activate_f32(p->activation, v);
    }
  return MPK_OK;
}

/* out[b][s] = sum_i w[s][i] * x[b][i] (+ bias[s]), in float. */
static void gate_fc_f32(int32_t rows, int32_t depth, int32_t outs, const float *x, const float *w,
                        const float *bias, float *out) {
  for (int32_t b = 0; b < rows; b++)
    for (int32_t s = 0; s < outs; s++) {
      float total = 0.0f;
      for (int32_t i = 0; i < depth; i++)
        total += x[b * depth + i] * w[s * depth + i];
      out[b * outs + s] = total + (bias ? bias[s] : 0.0f);
    }
}

static void gate_f32(const lstm_step *st, int32_t g, const float *x, const float *h, int sigmoid,
                     float *out) {
  const int32_t ni = st->s->input_size, ns = st->s->state_size, n = st->rows * ns;
  float *tmp = st->buf[3];
  gate_fc_f32(st->rows, ni, ns, x, st->k[g], st->k[11 + g], out);
  gate_fc_f32(st->rows, ns, ns, h, st->k[4 + g], NULL, tmp);
  for (int32_t i = 0; i < n; i++)
    out[i] = out[i] + tmp[i];
  for (int32_t i = 0; i < n; i++)
    out[i] = sigmoid ? mpk_logistic_f32_one(out[i]) : tanhf(out[i]);
}

static void step_f32(const lstm_step *st, const void *xv, void *hv, void *cv, void *yv) {
  const mpk_lstm_f32_params *p = st->p;
  const float *x = xv;
  float *h = hv, *c = cv, *y = yv;
  const int32_t n = st->rows * st->s->state_size;
  float *forget = st->buf[0], *input = st->buf[1], *cell = st->buf[2];
  gate_f32(st, MPK_LSTM_FORGET_GATE, x, h, 1, forget);
  gate_f32(st, MPK_LSTM_INPUT_GATE, x, h, 1, input);
  gate_f32(st, MPK_LSTM_CELL_GATE, x, h, 0, cell);
  for (int32_t i = 0; i < n; i++) {
    float v = forget[i] * c[i] + input[i] * cell[i];
    if (p->cell_clip > 0.0f)
      v = v > p->cell_clip ? p->cell_clip : v < -p->cell_clip ? -p->cell_clip : v;
    c[i] = v;
  }
  float *output = st->buf[1];
  gate_f32(st, MPK_LSTM_OUTPUT_GATE, x, h, 1, output);
  for (int32_t i = 0; i < n; i++)
    h[i] = tanhf(c[i]) * output[i];
  memcpy(y, h, (size_t)n * sizeof(float));
}

MPK_API int32_t mpk_lstm_f32(const mpk_lstm_f32_params *p, const float *input,
                             const void *const *constants, float *hidden, float *cell,
                             float *output, void *scratch) {
  lstm_step st;
  if (!lstm_start(p, &p->shape, constants, scratch, sizeof(float), &st)) return MPK_ERR_PARAMS;
  lstm_walk(&st, step_f32, input, sizeof(float), hidden, sizeof(float), cell, sizeof(float),
            output);
  return MPK_OK;
}
