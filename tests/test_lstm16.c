/*
 * test_lstm16.c — the 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 input,
 * hidden state and output, int8 weights, int64 biases, int16 cell state:
 * TFLite Micro's EvalLstm<int16_t, int8_t, int16_t, int64_t>), lowered
 * from models written with memplan's own model writer and run through the
 * reference kernel.
 *
 * No corpus case runs a 16x8 LSTM, so its answers are checked against the
 * two LSTM kernels that are checked otherwise (the int8 one matches TFLM
 * on every int8 LSTM case of the conformance corpus, the float one tracks
 * it, tests/test_golden.c):
 *  - an LSTM whose int8 and 16x8 forms compute the same integers (zero
 *    points 0, int8-range inputs, scales that make every requantisation
 *    of the gates exact in both the int32 and the int64 rounding) must
 *    give the int8 kernel's cell state, hidden state and outputs bit for
 *    bit, over many steps, batch- and time-major, with and without a
 *    cell clip, on garbage scratch;
 *  - an LSTM of ordinary scales must track the float32 LSTM run on its
 *    dequantised weights, biases and inputs within a stated tolerance
 *    over 64 steps;
 *  - its gates must be the activations of the 16x8 FULLY_CONNECTED's
 *    outputs (mpk_fully_connected_s16, which matches TFLM on the corpus's
 *    int16 cases): the int64 requantisation, which the two checks above
 *    cannot tell from the int32 one;
 *  - what TFLM does not run as 16x8 is refused, naming why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* strong references: the kernels come from libmemplan.a (see mpk.h) */
#define MPK_API
#include "lower/lower.h"
#include "mpk_act.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { UNIDIRECTIONAL_SEQUENCE_LSTM = 44, OPT_LSTM = 71 };

static uint32_t rng_next(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}
static int32_t rng_int(uint32_t *s, int32_t lo, int32_t hi) {
  return lo + (int32_t)(rng_next(s) % (uint32_t)(hi - lo + 1));
}

/* An LSTM's sizes, quantisation and integer data (activations as int32,
 * written as int8 or int16). */
typedef struct lstm_case {
  int32_t batches, steps, inputs, units;
  bool time_major;
  float cell_clip;
  float in_scale, hidden_scale, cell_scale;
  float w_scale[8];
  int8_t *w[8];       /* [units][inputs] for 0..3, [units][units] for 4..7 */
  int64_t *bias[4];   /* [units] */
  int32_t *input;     /* [batches * steps * inputs], in the input's layout */
  int32_t zero_point; /* of input, hidden state and output */
  bool cifg;          /* drop the input gate's weights and bias */
} lstm_case;

typedef struct built {
  mp_model *m;
  mp_graph *g;
} built;

static int32_t add(mp_tfw *w, const char *name, int32_t dtype, uint32_t rank, const int32_t *shape,
                   float scale, int64_t zp, const void *data, size_t bytes, bool variable) {
  mp_tfw_tensor t = {.name = name,
                     .dtype = dtype,
                     .rank = rank,
                     .shape = shape,
                     .is_variable = variable,
                     .has_quant = true};
  t.quant = (mp_quant){1, &scale, 1, &zp, 0};
  if (data) t.buffer = mp_tfw_add_buffer(w, data, bytes);
  return (int32_t)mp_tfw_add_tensor(w, &t);
}

/* The model of c, its activations `adt` (int8 or int16): the biases are
 * written int32 for int8 and int64 for int16 (as `bias_dt` says when
 * not 0). */
static void build(const lstm_case *c, int32_t adt, int32_t bias_dt, built *b) {
  const int32_t bdt = bias_dt ? bias_dt : adt == MP_DTYPE_INT8 ? MP_DTYPE_INT32 : MP_DTYPE_INT64;
  mp_tfw *w = mp_tfw_new();
  int32_t ins[24];
  for (int i = 0; i < 24; i++)
    ins[i] = -1;
  int32_t d0 = c->time_major ? c->steps : c->batches, d1 = c->time_major ? c->batches : c->steps;
  ins[0] = add(w, "input", adt, 3, (const int32_t[]){d0, d1, c->inputs}, c->in_scale, c->zero_point,
               NULL, 0, false);
  for (int k = 0; k < 8; k++) {
    if (c->cifg && (k == 0 || k == 4)) continue;
    int32_t cols = k < 4 ? c->inputs : c->units;
    ins[1 + k] = add(w, k < 4 ? "input_weights" : "recurrent_weights", MP_DTYPE_INT8, 2,
                     (const int32_t[]){c->units, cols}, c->w_scale[k], 0, c->w[k],
                     (size_t)c->units * (size_t)cols, false);
  }
  for (int g = 0; g < 4; g++) {
    if (c->cifg && g == 0) continue;
    int32_t b32[64];
    const void *data = c->bias[g];
    size_t bytes = (size_t)c->units * 8u;
    if (bdt == MP_DTYPE_INT32) {
      for (int32_t i = 0; i < c->units; i++)
        b32[i] = (int32_t)c->bias[g][i];
      data = b32;
      bytes = (size_t)c->units * 4u;
    }
    ins[12 + g] = add(w, "bias", bdt, 1, (const int32_t[]){c->units}, c->in_scale * c->w_scale[g],
                      0, data, bytes, false);
  }
  ins[18] = add(w, "hidden_state", adt, 2, (const int32_t[]){c->batches, c->units}, c->hidden_scale,
                c->zero_point, NULL, 0, true);
  ins[19] = add(w, "cell_state", MP_DTYPE_INT16, 2, (const int32_t[]){c->batches, c->units},
                c->cell_scale, 0, NULL, 0, true);
  int32_t out = add(w, "output", adt, 3, (const int32_t[]){d0, d1, c->units}, c->hidden_scale,
                    c->zero_point, NULL, 0, false);
  const mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I8, .i = 4}, /* TANH */
                             {.field = 1, .type = MP_TFW_F32, .f = c->cell_clip},
                             {.field = 2, .type = MP_TFW_F32, .f = 0.0f},
                             {.field = 3, .type = MP_TFW_BOOL, .i = c->time_major}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = UNIDIRECTIONAL_SEQUENCE_LSTM,
                                .n_inputs = 24,
                                .inputs = ins,
                                .n_outputs = 1,
                                .outputs = &out,
                                .options_type = OPT_LSTM,
                                .n_options = 4,
                                .options = o});
  mp_tfw_set_io(w, 1, &ins[0], 1, &out);
  tu_diags d;
  tu_diags_init(&d);
  b->m = tu_written(w, "lstm.tflite", &d);
  assert_int_equal(mp_graph_build(b->m, 0, NULL, &d.sink, &b->g), MP_OK);
}

static void drop(built *b) {
  mp_graph_free(&b->g);
  mp_model_free(&b->m);
}

static void lower(const lstm_case *c, int32_t adt, int32_t bias_dt, mp_lowered_op *lo) {
  built b;
  build(c, adt, bias_dt, &b);
  tu_diags d;
  tu_diags_init(&d);
  if (mp_lower_op(b.g, 0, lo, &d.sink) != MP_OK) fail_msg("lowering failed: %s", d.text);
  drop(&b);
}

/* Random weights and biases in the ranges given; inputs in +-in_max. */
static void fill(lstm_case *c, uint32_t seed, int32_t w_max, int32_t b_max, int32_t in_max) {
  uint32_t r = seed;
  for (int k = 0; k < 8; k++) {
    size_t n = (size_t)c->units * (size_t)(k < 4 ? c->inputs : c->units);
    c->w[k] = malloc(n);
    assert_non_null(c->w[k]);
    for (size_t i = 0; i < n; i++)
      c->w[k][i] = (int8_t)rng_int(&r, -w_max, w_max);
  }
  for (int g = 0; g < 4; g++) {
    c->bias[g] = malloc((size_t)c->units * sizeof(int64_t));
    assert_non_null(c->bias[g]);
    for (int32_t i = 0; i < c->units; i++) /* the forget gate leans open */
      c->bias[g][i] = rng_int(&r, -b_max, b_max) + (g == MPK_LSTM_FORGET_GATE ? b_max : 0);
  }
  size_t n = (size_t)c->batches * (size_t)c->steps * (size_t)c->inputs;
  c->input = malloc(n * sizeof(int32_t));
  assert_non_null(c->input);
  for (size_t i = 0; i < n; i++)
    c->input[i] = rng_int(&r, -in_max, in_max);
}

static void release(lstm_case *c) {
  for (int k = 0; k < 8; k++)
    free(c->w[k]);
  for (int g = 0; g < 4; g++)
    free(c->bias[g]);
  free(c->input);
}

/* One run of the lowered LSTM over c's input, the states starting at 0:
 * the output, hidden and cell states as int32 (outputs and hidden of
 * batches * steps * units and batches * units; cell of batches * units). */
typedef struct lstm_run {
  int32_t *out, *hidden, *cell;
} lstm_run;

static void run(const lstm_case *c, const mp_lowered_op *lo, lstm_run *res) {
  const bool s16 = lo->kernel == MP_K_LSTM_S16;
  const size_t es = s16 ? 2 : 1;
  const size_t n_in = (size_t)c->batches * (size_t)c->steps * (size_t)c->inputs;
  const size_t n_out = (size_t)c->batches * (size_t)c->steps * (size_t)c->units;
  const size_t n_state = (size_t)c->batches * (size_t)c->units;
  uint8_t *in = malloc(n_in * es), *out = malloc(n_out * es), *hidden = calloc(n_state, es);
  int16_t *cell = calloc(n_state, sizeof(int16_t));
  uint8_t *scratch = malloc((size_t)lo->scratch_bytes);
  int32_t b32[4][64];
  const void *k[15] = {NULL};
  assert_true(in && out && hidden && cell && scratch);
  memset(out, 0xA5, n_out * es); /* garbage, as an arena holds */
  memset(scratch, 0x5A, (size_t)lo->scratch_bytes);
  for (size_t i = 0; i < n_in; i++) {
    if (s16)
      ((int16_t *)in)[i] = (int16_t)c->input[i];
    else
      ((int8_t *)in)[i] = (int8_t)c->input[i];
  }
  for (int j = 0; j < 8; j++)
    k[j] = c->w[j];
  for (int g = 0; g < 4; g++) {
    for (int32_t i = 0; i < c->units; i++)
      b32[g][i] = (int32_t)c->bias[g][i];
    k[11 + g] = s16 ? (const void *)c->bias[g] : (const void *)b32[g];
  }
  int32_t st = s16 ? mpk_lstm_s16(&lo->params.lstm_s8, (const int16_t *)in, k, (int16_t *)hidden,
                                  cell, (int16_t *)out, scratch)
                   : mpk_lstm_s8(&lo->params.lstm_s8, (const int8_t *)in, k, (int8_t *)hidden, cell,
                                 (int8_t *)out, scratch);
  assert_int_equal(st, MPK_OK);
  res->out = malloc(n_out * sizeof(int32_t));
  res->hidden = malloc(n_state * sizeof(int32_t));
  res->cell = malloc(n_state * sizeof(int32_t));
  assert_true(res->out && res->hidden && res->cell);
  for (size_t i = 0; i < n_out; i++)
    res->out[i] = s16 ? ((int16_t *)out)[i] : ((int8_t *)out)[i];
  for (size_t i = 0; i < n_state; i++) {
    res->hidden[i] = s16 ? ((int16_t *)hidden)[i] : ((int8_t *)hidden)[i];
    res->cell[i] = cell[i];
  }
  free(in);
  free(out);
  free(hidden);
  free(cell);
  free(scratch);
}

static void run_free(lstm_run *r) {
  free(r->out);
  free(r->hidden);
  free(r->cell);
}

/* ---- 16x8 = int8 where both compute the same integers -------------------- */

/* Scales 2^-6 for the input, hidden state and weights make every gate's
 * fully connected layers requantise by exactly 1 (2^-12 onto Q3.12), where
 * TFLite's int32 and int64 MultiplyByQuantizedMultiplier both are exact;
 * the hidden state (|h| <= 64 at 2^-6) fits int8.  So the 16x8 kernel,
 * given the int8 LSTM's integers widened, must reproduce it exactly. */
static void lstm16_matches_the_int8_lstm_bit_for_bit(void **state) {
  (void)state;
  static const struct {
    bool time_major;
    float clip;
    int32_t batches, steps, inputs, units;
  } shapes[] = {{false, 0.0f, 2, 24, 5, 4},
                {true, 0.0f, 3, 20, 3, 6},
                {false, 1.5f, 1, 40, 7, 3},
                {true, 2.0f, 2, 32, 4, 5}};
  int32_t widest_cell = 0, nonzero_hidden = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    lstm_case c = {.batches = shapes[s].batches,
                   .steps = shapes[s].steps,
                   .inputs = shapes[s].inputs,
                   .units = shapes[s].units,
                   .time_major = shapes[s].time_major,
                   .cell_clip = shapes[s].clip,
                   .in_scale = 1.0f / 64.0f,
                   .hidden_scale = 1.0f / 64.0f,
                   .cell_scale = 1.0f / 2048.0f};
    for (int k = 0; k < 8; k++)
      c.w_scale[k] = 1.0f / 64.0f;
    fill(&c, 0x16a8u + (uint32_t)s, 24, 3000, 64);
    mp_lowered_op l8, l16;
    lower(&c, MP_DTYPE_INT8, 0, &l8);
    lower(&c, MP_DTYPE_INT16, 0, &l16);
    if (!l8.supported) fail_msg("int8 LSTM refused: %s", l8.reason);
    if (!l16.supported) fail_msg("16x8 LSTM refused: %s", l16.reason);
    assert_int_equal(l8.kernel, MP_K_LSTM_S8);
    assert_int_equal(l16.kernel, MP_K_LSTM_S16);
    assert_int_equal(l16.scratch_bytes, l8.scratch_bytes);
    /* the same preparation: every multiplier, shift and clip */
    assert_memory_equal(&l16.params.lstm_s8, &l8.params.lstm_s8, sizeof(mpk_lstm_s8_params));
    assert_int_equal(l16.params.lstm_s8.gate[0].in_multiplier, 1 << 30);
    lstm_run r8, r16;
    run(&c, &l8, &r8);
    run(&c, &l16, &r16);
    const size_t n_out = (size_t)c.batches * (size_t)c.steps * (size_t)c.units;
    const size_t n_state = (size_t)c.batches * (size_t)c.units;
    for (size_t i = 0; i < n_out; i++)
      if (r16.out[i] != r8.out[i])
        fail_msg("shape %zu output %zu: 16x8 %d, int8 %d", s, i, r16.out[i], r8.out[i]);
    for (size_t i = 0; i < n_state; i++) {
      if (r16.hidden[i] != r8.hidden[i] || r16.cell[i] != r8.cell[i])
        fail_msg("shape %zu state %zu: 16x8 hidden %d cell %d, int8 hidden %d cell %d", s, i,
                 r16.hidden[i], r16.cell[i], r8.hidden[i], r8.cell[i]);
      if (abs(r8.cell[i]) > widest_cell) widest_cell = abs(r8.cell[i]);
    }
    for (size_t i = 0; i < n_out; i++)
      nonzero_hidden += r8.out[i] != 0;
    run_free(&r8);
    run_free(&r16);
    mp_lower_free(&l8);
    mp_lower_free(&l16);
    release(&c);
  }
  /* the runs exercise the cell and the gates, not a constant */
  print_message("16x8 = int8: widest cell %d, %d nonzero outputs\n", widest_cell, nonzero_hidden);
  assert_true(widest_cell > 2048);
  assert_true(nonzero_hidden > 100);
}

/* ---- 16x8 against the float32 LSTM -------------------------------------- */

/* Ordinary scales: inputs in [-1, 1] at 2^-15 (int16), weights int8 at
 * max/127, the hidden state at 2^-15, the cell at 2^-11.  The float32
 * kernel run on the dequantised weights, biases and inputs gives the
 * reference; the 16x8 output and cell state must stay within LSTM16_TOL
 * (0.003, a third of an int8 output step at 2^-7) of it
 * over all 64 steps.  The tolerance covers the Q3.12 gates, the int16
 * logistic and tanh and the 2^-11 cell; an indexing or gate-order error
 * shows as errors of 0.1 and more. */
#define LSTM16_TOL 0.003

static void lstm16_tracks_the_float_lstm(void **state) {
  (void)state;
  static const struct {
    bool time_major;
    int32_t batches, steps, inputs, units;
  } shapes[] = {{false, 2, 64, 6, 5}, {true, 3, 64, 4, 8}};
  double worst_out = 0.0, worst_cell = 0.0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    lstm_case c = {.batches = shapes[s].batches,
                   .steps = shapes[s].steps,
                   .inputs = shapes[s].inputs,
                   .units = shapes[s].units,
                   .time_major = shapes[s].time_major,
                   .in_scale = 1.0f / 32768.0f,
                   .hidden_scale = 1.0f / 32768.0f,
                   .cell_scale = 1.0f / 2048.0f};
    /* weights of up to about 0.8 at the input, 0.5 recurrent */
    for (int k = 0; k < 8; k++)
      c.w_scale[k] = (k < 4 ? 0.8f : 0.5f) / 127.0f * (1.0f + 0.1f * (float)(k % 4));
    fill(&c, 0xf1a7u + (uint32_t)s, 127, 0, 32767);
    /* biases of up to +-0.3 (the forget gate's +1), at in_scale * w_scale */
    uint32_t r = 0xb1a5u + (uint32_t)s;
    for (int g = 0; g < 4; g++) {
      double bs = (double)(c.in_scale * c.w_scale[g]);
      for (int32_t i = 0; i < c.units; i++) {
        double v = (double)rng_int(&r, -300, 300) / 1000.0 + (g == 1 ? 1.0 : 0.0);
        c.bias[g][i] = (int64_t)llround(v / bs);
      }
    }
    mp_lowered_op l16;
    lower(&c, MP_DTYPE_INT16, 0, &l16);
    if (!l16.supported) fail_msg("16x8 LSTM refused: %s", l16.reason);
    assert_int_equal(l16.kernel, MP_K_LSTM_S16);
    lstm_run r16;
    run(&c, &l16, &r16);

    /* the float LSTM on the same numbers dequantised */
    const size_t n_in = (size_t)c.batches * (size_t)c.steps * (size_t)c.inputs;
    const size_t n_out = (size_t)c.batches * (size_t)c.steps * (size_t)c.units;
    const size_t n_state = (size_t)c.batches * (size_t)c.units;
    float *fin = malloc(n_in * sizeof(float)), *fout = malloc(n_out * sizeof(float));
    float *fh = calloc(n_state, sizeof(float)), *fc = calloc(n_state, sizeof(float));
    float *fscratch = malloc(4u * n_state * sizeof(float));
    float *fw[8], *fb[4];
    const void *k[15] = {NULL};
    assert_true(fin && fout && fh && fc && fscratch);
    for (size_t i = 0; i < n_in; i++)
      fin[i] = (float)c.input[i] * c.in_scale;
    for (int j = 0; j < 8; j++) {
      size_t n = (size_t)c.units * (size_t)(j < 4 ? c.inputs : c.units);
      fw[j] = malloc(n * sizeof(float));
      assert_non_null(fw[j]);
      for (size_t i = 0; i < n; i++)
        fw[j][i] = (float)c.w[j][i] * c.w_scale[j];
      k[j] = fw[j];
    }
    for (int g = 0; g < 4; g++) {
      fb[g] = malloc((size_t)c.units * sizeof(float));
      assert_non_null(fb[g]);
      for (int32_t i = 0; i < c.units; i++)
        fb[g][i] = (float)((double)c.bias[g][i] * (double)c.in_scale * (double)c.w_scale[g]);
      k[11 + g] = fb[g];
    }
    mpk_lstm_f32_params fp = {l16.params.lstm_s8.shape, 0.0f};
    assert_int_equal(mpk_lstm_f32(&fp, fin, k, fh, fc, fout, fscratch), MPK_OK);
    for (size_t i = 0; i < n_out; i++) {
      double e = fabs((double)r16.out[i] * (double)c.hidden_scale - (double)fout[i]);
      if (e > worst_out) worst_out = e;
    }
    for (size_t i = 0; i < n_state; i++) {
      double e = fabs((double)r16.cell[i] * (double)c.cell_scale - (double)fc[i]);
      if (e > worst_cell) worst_cell = e;
    }
    /* the run is not trivial: the cell grows past 1 somewhere */
    double widest = 0.0;
    for (size_t i = 0; i < n_state; i++)
      if (fabs((double)fc[i]) > widest) widest = fabs((double)fc[i]);
    assert_true(widest > 0.5);
    for (int j = 0; j < 8; j++)
      free(fw[j]);
    for (int g = 0; g < 4; g++)
      free(fb[g]);
    free(fin);
    free(fout);
    free(fh);
    free(fc);
    free(fscratch);
    run_free(&r16);
    mp_lower_free(&l16);
    release(&c);
  }
  print_message("16x8 vs float32 LSTM over 64 steps: output %.5f, cell %.5f at most (tolerance "
                "%.3f)\n",
                worst_out, worst_cell, LSTM16_TOL);
  assert_true(worst_out <= LSTM16_TOL);
  assert_true(worst_cell <= LSTM16_TOL);
}

/* ---- the gates are the 16x8 FULLY_CONNECTED's --------------------------- */

/* The gates' fully connected layers must be TFLM's 16x8 FULLY_CONNECTED
 * (int64 accumulator and bias, the multiplier rounded to 16 bits), whose
 * reference kernel matches TFLM on the corpus's int16 cases; the int32
 * rounding of the int8 LSTM differs from it by one in a few percent of
 * values at ordinary scales.  One batch-major step from a given state,
 * with the input zero and no biases (the gate is the recurrent layer
 * alone) or the hidden state zero (the input layer alone): the cell gate
 * and the output gate the kernel leaves in its scratch (buffers 2 and 1,
 * as TFLM's LstmStep leaves them) must be mpk_tanh_s16 and
 * mpk_logistic_s16 of mpk_fully_connected_s16's output. */
static void lstm16_gates_are_the_16x8_fully_connected(void **state) {
  (void)state;
  int32_t checked = 0, saturated = 0;
  for (int trial = 0; trial < 8; trial++) {
    const bool recurrent = trial % 2 == 1;
    lstm_case c = {.batches = 1,
                   .steps = 1,
                   .inputs = 24,
                   .units = 32,
                   .in_scale = 1.0f / 30000.0f,
                   .hidden_scale = 1.0f / 31000.0f,
                   .cell_scale = 1.0f / 2048.0f};
    for (int k = 0; k < 8; k++)
      c.w_scale[k] = (0.011f + 0.0007f * (float)k) * (1.0f + 0.13f * (float)trial);
    fill(&c, 0x9a7e0u + (uint32_t)trial, 127, 200000, 32767);
    uint32_t r = 0x5eedu + (uint32_t)trial;
    int16_t h0[32], *h = calloc(32, sizeof(int16_t)), *x = malloc(24 * sizeof(int16_t));
    int16_t cell[32] = {0}, out[32];
    assert_true(h && x);
    for (int i = 0; i < 32; i++)
      h0[i] = (int16_t)(recurrent ? rng_int(&r, -32767, 32767) : 0);
    for (int i = 0; i < 24; i++)
      x[i] = (int16_t)(recurrent ? 0 : c.input[i]);
    if (recurrent)
      for (int g = 0; g < 4; g++)
        memset(c.bias[g], 0, (size_t)c.units * sizeof(int64_t));
    memcpy(h, h0, sizeof h0);
    mp_lowered_op lo;
    lower(&c, MP_DTYPE_INT16, 0, &lo);
    if (!lo.supported) fail_msg("16x8 LSTM refused: %s", lo.reason);
    const mpk_lstm_s8_params *p = &lo.params.lstm_s8;
    const void *k[15] = {NULL};
    for (int j = 0; j < 8; j++)
      k[j] = c.w[j];
    for (int g = 0; g < 4; g++)
      k[11 + g] = c.bias[g];
    int16_t *scratch = malloc((size_t)lo.scratch_bytes);
    assert_non_null(scratch);
    memset(scratch, 0x5A, (size_t)lo.scratch_bytes);
    assert_int_equal(mpk_lstm_s16(p, x, k, h, cell, out, scratch), MPK_OK);
    static const struct {
      int gate, buffer;
    } seen[] = {{MPK_LSTM_CELL_GATE, 2}, {MPK_LSTM_OUTPUT_GATE, 1}};
    for (int v = 0; v < 2; v++) {
      const int g = seen[v].gate;
      const int32_t m = recurrent ? p->gate[g].rec_multiplier : p->gate[g].in_multiplier;
      const int32_t sh = recurrent ? p->gate[g].rec_shift : p->gate[g].in_shift;
      mpk_fc_s8_params fc = {
          1, recurrent ? c.units : c.inputs, c.units, {0, 0, 0, -32768, 32767, 0, &m, &sh}};
      int16_t pre[32], want[32];
      assert_int_equal(mpk_fully_connected_s16(&fc, recurrent ? h0 : x,
                                               c.w[g + (recurrent ? 4 : 0)],
                                               recurrent ? NULL : c.bias[g], pre, NULL),
                       MPK_OK);
      if (g == MPK_LSTM_CELL_GATE)
        mpk_tanh_s16(0, 0, c.units, pre, want);
      else
        mpk_logistic_s16(0, 0, c.units, pre, want);
      const int16_t *got = scratch + (size_t)seen[v].buffer * (size_t)c.units;
      for (int32_t i = 0; i < c.units; i++) {
        if (got[i] != want[i])
          fail_msg("trial %d (%s layer) gate %d unit %d: %d, the 16x8 FULLY_CONNECTED gives %d "
                   "(before the activation %d)",
                   trial, recurrent ? "recurrent" : "input", g, i, got[i], want[i], pre[i]);
        saturated += pre[i] == 32767 || pre[i] == -32768;
        checked++;
      }
    }
    free(scratch);
    free(h);
    free(x);
    mp_lower_free(&lo);
    release(&c);
  }
  print_message("16x8 gates = the 16x8 FULLY_CONNECTED: %d gate values, %d saturated\n", checked,
                saturated);
  assert_true(saturated < checked / 4);
}

/* ---- what is refused ---------------------------------------------------- */

/* The extreme of gate g's input-layer sum for unit u over int16 inputs:
 * the largest (side 1) or the smallest (side -1). */
static int64_t input_layer_sum(const lstm_case *c, int g, int32_t u, int side) {
  int64_t s = 0;
  for (int32_t i = 0; i < c->inputs; i++) {
    int64_t v = c->w[g][(size_t)u * (size_t)c->inputs + (size_t)i];
    if (side > 0)
      s += v > 0 ? v * 32767 : -v * 32768;
    else
      s -= v > 0 ? v * 32768 : -v * 32767;
  }
  return s;
}

static void lstm16_refusals_name_the_reason(void **state) {
  (void)state;
  lstm_case base = {.batches = 1,
                    .steps = 2,
                    .inputs = 3,
                    .units = 2,
                    .in_scale = 1.0f / 64.0f,
                    .hidden_scale = 1.0f / 64.0f,
                    .cell_scale = 1.0f / 2048.0f};
  for (int k = 0; k < 8; k++)
    base.w_scale[k] = 1.0f / 64.0f;
  fill(&base, 7u, 10, 100, 10);
  static const struct {
    int what;
    const char *reason;
  } cases[] = {
      {0, "16x8 with a non-zero zero point (input 5, hidden state 5, output 5)"},
      {1, "gate 0: weights must be per-tensor int8, the bias int64"},
      {2, "a coupled input and forget gate (CIFG)"},
      {3, "gate 0: a 16x8 scale of 2^7 or more"},
      {4, "gate 2: output channel 1: int64 bias %lld plus sums in [%lld, %lld] leaves "
          "[-2^47, 2^47), the range of TFLite's 64-bit requantisation"},
      {5, "gate 3: output channel 0: int64 bias %lld plus sums in [%lld, %lld] leaves "
          "[-2^47, 2^47), the range of TFLite's 64-bit requantisation"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lstm_case c = base;
    int32_t bias_dt = 0;
    if (cases[i].what == 0) c.zero_point = 5;
    if (cases[i].what == 1) bias_dt = MP_DTYPE_INT32;
    if (cases[i].what == 2) c.cifg = true;
    if (cases[i].what == 3) c.w_scale[0] = 8.0f; /* 2^-6 * 8 / 2^-12 = 2^9 */
    const int64_t saved[2] = {base.bias[2][1], base.bias[3][0]};
    /* the input layer's accumulator leaves [-2^47, 2^47) by one */
    char want[256];
    snprintf(want, sizeof want, "%s", cases[i].reason);
    if (cases[i].what >= 4) {
      const int g = cases[i].what == 4 ? 2 : 3, u = cases[i].what == 4 ? 1 : 0;
      const int64_t lo_sum = input_layer_sum(&base, g, u, -1), hi_sum = input_layer_sum(&base, g, u, 1);
      int64_t *b = &base.bias[g][u];
      *b = cases[i].what == 4 ? ((int64_t)1 << 47) - hi_sum : -((int64_t)1 << 47) - lo_sum - 1;
      snprintf(want, sizeof want, cases[i].reason, (long long)*b, (long long)lo_sum,
               (long long)hi_sum);
    }
    mp_lowered_op lo;
    lower(&c, MP_DTYPE_INT16, bias_dt, &lo);
    assert_false(lo.supported);
    if (strcmp(lo.reason, want) != 0) fail_msg("case %zu: \"%s\", want \"%s\"", i, lo.reason, want);
    if (cases[i].what >= 4) {
      /* one less and the bias is taken */
      mp_lower_free(&lo);
      if (cases[i].what == 4) base.bias[2][1]--;
      if (cases[i].what == 5) base.bias[3][0]++;
      lower(&c, MP_DTYPE_INT16, bias_dt, &lo);
      if (!lo.supported) fail_msg("case %zu, just inside: \"%s\"", i, lo.reason);
    }
    mp_lower_free(&lo);
    base.bias[2][1] = saved[0];
    base.bias[3][0] = saved[1];
  }
  release(&base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lstm16_matches_the_int8_lstm_bit_for_bit),
      cmocka_unit_test(lstm16_tracks_the_float_lstm),
      cmocka_unit_test(lstm16_gates_are_the_16x8_fully_connected),
      cmocka_unit_test(lstm16_refusals_name_the_reason),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
