/*
 * test_example_kws.c — the bundled example, examples/kws/kws.tflite: it is
 * exactly what the generator writes today (in-process and through the
 * mkmodel program), it has the DS-CNN topology and lifetimes of MLPerf
 * Tiny KWS, and its quantisation parameters are consistent and fit the
 * data (a float run of the dequantised network on held-out synthetic
 * features stays inside every int8 range).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE "examples/kws/kws.tflite"

static void the_committed_example_is_exactly_what_the_generator_writes(void **state) {
  (void)state;
  size_t n_file;
  char *file = tu_read_text(EXAMPLE, &n_file);
  assert_non_null(file);
  uint8_t *b;
  size_t n;
  assert_int_equal(fx_kws(&b, &n), MP_OK);
  assert_int_equal(n, n_file);
  assert_memory_equal(b, file, n);
  free(b);
  free(file);
}

static void mkmodel_kws_writes_the_committed_example(void **state) {
  (void)state;
  const char *build = getenv("MEMPLAN_BUILD");
  if (!build) {
    print_message("NOTICE: MEMPLAN_BUILD not set (run through tests/run.sh): skipping\n");
    skip();
  }
  const char *dir = tu_tmpdir();
  assert_non_null(dir);
  assert_int_equal(tu_system("'%s/mkmodel' kws '%s/kws.tflite'", build, dir), 0);
  assert_int_equal(tu_system("cmp -s '%s/kws.tflite' " EXAMPLE, dir), 0);
  tu_rmtree(dir);
}

static void the_example_has_the_ds_cnn_topology_and_lifetimes(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = NULL;
  assert_int_equal(mp_model_load(EXAMPLE, &d.sink, &m), MP_OK);
  static const int32_t codes[] = {3, 4, 3, 4, 3, 4, 3, 4, 3, 1, 22, 9, 25};
  const mp_subgraph_def *s = &m->subgraphs[0];
  assert_int_equal(m->n_subgraphs, 1);
  assert_int_equal(s->n_ops, FX_KWS_N_OPS);
  assert_int_equal(s->n_tensors, FX_KWS_N_TENSORS);
  for (uint32_t o = 0; o < FX_KWS_N_OPS; o++) assert_int_equal(s->ops[o].builtin_code, codes[o]);
  const mp_tensor_def *in = &s->tensors[FX_KWS_INPUT];
  assert_int_equal(in->dtype, MP_DTYPE_INT8);
  assert_memory_equal(in->shape, ((const int32_t[]){1, 49, 10, 1}), 16);
  assert_memory_equal(s->tensors[FX_KWS_CONV0_OUT].shape, ((const int32_t[]){1, 25, 5, 64}), 16);
  assert_memory_equal(s->tensors[FX_KWS_OUTPUT].shape, ((const int32_t[]){1, 12}), 8);
  assert_int_equal(s->n_inputs, 1);
  assert_int_equal(s->inputs[0], FX_KWS_INPUT);
  assert_int_equal(s->outputs[0], FX_KWS_OUTPUT);

  mp_graph *g = NULL, *na = NULL;
  mp_graph_options no_alias = {.alias_views = false};
  assert_int_equal(mp_graph_build(m, 0, NULL, &d.sink, &g), MP_OK);
  assert_int_equal(mp_graph_build(m, 0, &no_alias, &d.sink, &na), MP_OK);
  assert_int_equal(mp_graph_lower_bound(g, 16), 16000);
  assert_int_equal(mp_graph_lower_bound(na, 16), 16000);
  /* activations: op k writes the one read by op k + 1 */
  for (uint32_t o = 0; o + 1 < FX_KWS_N_OPS; o++) {
    int32_t t = s->ops[o].outputs[0];
    assert_int_equal(g->tensors[t].lifetime.start_op, (int32_t)o);
    assert_int_equal(g->tensors[t].lifetime.end_op, (int32_t)o + 1);
  }
  assert_int_equal(g->tensors[FX_KWS_INPUT].lifetime.start_op, 0);
  assert_int_equal(g->tensors[FX_KWS_INPUT].lifetime.end_op, 0);
  assert_int_equal(g->tensors[FX_KWS_RESHAPE_OUT].alias_of, FX_KWS_POOL_OUT);
  assert_int_equal(g->storage[FX_KWS_POOL_OUT].start_op, 9);
  assert_int_equal(g->storage[FX_KWS_POOL_OUT].end_op, 11);
  uint32_t consts = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) consts += g->tensors[t].role == MP_ROLE_CONSTANT;
  assert_int_equal(consts, 21);
  mp_graph_free(&na);
  mp_graph_free(&g);
  mp_model_free(&m);
}

static bool close_to(float a, float b) { return fabsf(a - b) <= 1e-6f * fabsf(b); }

static void the_quantisation_parameters_are_consistent(void **state) {
  (void)state;
  mp_model *m = NULL;
  assert_int_equal(mp_model_load(EXAMPLE, NULL, &m), MP_OK);
  const mp_tensor_def *t = m->subgraphs[0].tensors;
  /* every conv: input activation, per-channel weights, int32 bias at
   * input_scale * weight_scale[c], output activation */
  for (uint32_t o = 0; o < 9; o++) {
    const mp_op_def *op = &m->subgraphs[0].ops[o];
    const mp_tensor_def *x = &t[op->inputs[0]], *w = &t[op->inputs[1]], *b = &t[op->inputs[2]],
                        *y = &t[op->outputs[0]];
    assert_int_equal(w->dtype, MP_DTYPE_INT8);
    assert_int_equal(b->dtype, MP_DTYPE_INT32);
    assert_int_equal(w->quant.n_scale, 64);
    assert_int_equal(w->quant.n_zero_point, 64);
    assert_int_equal(w->quant.quantized_dimension, op->builtin_code == 4 ? 3 : 0);
    assert_int_equal(b->quant.n_scale, 64);
    for (uint32_t c = 0; c < 64; c++) {
      assert_int_equal(w->quant.zero_point[c], 0);
      assert_int_equal(b->quant.zero_point[c], 0);
      assert_true(w->quant.scale[c] > 0.0f);
      assert_true(close_to(b->quant.scale[c], x->quant.scale[0] * w->quant.scale[c]));
    }
    /* RELU outputs: the zero point is the bottom of the range */
    assert_int_equal(y->quant.n_scale, 1);
    assert_int_equal(y->quant.zero_point[0], -128);
    assert_true(y->quant.scale[0] > 0.01f && y->quant.scale[0] < 0.1f);
  }
  /* pooling and flatten keep the parameters of their input */
  assert_true(t[28].quant.scale[0] == t[27].quant.scale[0]);
  assert_true(t[30].quant.scale[0] == t[27].quant.scale[0]);
  assert_int_equal(t[30].quant.zero_point[0], t[27].quant.zero_point[0]);
  /* fully connected: per-tensor weights, bias at input * weight scale */
  assert_int_equal(t[31].quant.n_scale, 1);
  assert_true(close_to(t[32].quant.scale[0], t[30].quant.scale[0] * t[31].quant.scale[0]));
  /* softmax output: 1/256, -128 */
  assert_true(t[FX_KWS_OUTPUT].quant.scale[0] == 1.0f / 256.0f);
  assert_int_equal(t[FX_KWS_OUTPUT].quant.zero_point[0], -128);
  mp_model_free(&m);
}

static void held_out_inputs_stay_inside_every_int8_range(void **state) {
  (void)state;
  mp_model *m = NULL;
  assert_int_equal(mp_model_load(EXAMPLE, NULL, &m), MP_OK);
  for (uint64_t seed = 1000; seed < 1004; seed++) {
    fx_kws_stats s;
    assert_true(fx_kws_stats_run(m, seed, &s));
    for (uint32_t t = 0; t < FX_KWS_N_TENSORS; t++) {
      if (!s.n_values[t] || t == FX_KWS_OUTPUT) continue;
      /* at most 0.1% beyond the range, and no more than 10% beyond it */
      if (s.n_clipped[t] * 1000 > s.n_values[t] || s.q_max[t] > 140 || s.q_min[t] < -140)
        fail_msg("seed %llu tensor %u: %u of %u clipped, q in [%d, %d]",
                 (unsigned long long)seed, t, s.n_clipped[t], s.n_values[t], s.q_min[t],
                 s.q_max[t]);
    }
    /* the conv activations use a good part of their range (more than a
     * quarter: calibration covers the loudest of 16 inputs) */
    for (uint32_t t = FX_KWS_CONV0_OUT; t <= 27; t += 3) assert_true(s.q_max[t] >= -64);
    /* the classifier is not one-hot: some class leads, others keep mass */
    float best = 0.0f, sum = 0.0f;
    for (int c = 0; c < 12; c++) {
      sum += s.probs[c];
      if (s.probs[c] > best) best = s.probs[c];
    }
    assert_true(fabsf(sum - 1.0f) < 1e-4f);
    assert_true(best > 0.2f && best < 0.99f);
  }
  mp_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_committed_example_is_exactly_what_the_generator_writes),
      cmocka_unit_test(mkmodel_kws_writes_the_committed_example),
      cmocka_unit_test(the_example_has_the_ds_cnn_topology_and_lifetimes),
      cmocka_unit_test(the_quantisation_parameters_are_consistent),
      cmocka_unit_test(held_out_inputs_stay_inside_every_int8_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
