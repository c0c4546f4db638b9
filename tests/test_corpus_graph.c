/*
 * test_corpus_graph.c — the reader and the lifetime analysis on the shared
 * real models: every model loads and analyses (but those the expected
 * refusals list as refused at plan, which must be refused so), and the
 * known lower bounds (16-byte alignment, no view aliasing) come out
 * exactly.  Skips with a notice when
 * ../shared/models is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <string.h>

static const struct {
  const char *name;
  uint64_t lower_bound_no_alias;
} known[] = {
    {"mlperf_kws_ref_int8", 16000},   {"mlperf_vww_96_int8", 55296},
    {"mlperf_ic_resnet_int8", 49152}, {"mlperf_ad01_int8", 768},
    {"tflm_person_detect_int8", 55296}, {"tflm_micro_speech_int8", 5968},
};

static void every_corpus_model_loads_and_analyses(void **state) {
  (void)state;
  const char *const *names = tu_model_names();
  if (!names) skip();
  for (size_t i = 0; names[i]; i++) {
    if (tu_skip_refused(names[i], TU_STAGE_PLAN)) continue;
    tu_diags d;
    tu_diags_init(&d);
    mp_model *m = NULL;
    if (mp_model_load(tu_model_path(names[i]), &d.sink, &m) != MP_OK)
      fail_msg("%s: %s", names[i], d.text);
    assert_true(m->n_subgraphs >= 1);
    mp_graph *g = NULL;
    if (mp_graph_build(m, 0, NULL, &d.sink, &g) != MP_OK) {
      mp_model_free(&m);
      fail_msg("%s: %s", names[i], d.text);
    }
    assert_int_equal(g->n_ops, m->subgraphs[0].n_ops);
    /* every op's output is produced by that op, but an operator computed
     * at convert time, whose outputs are constants */
    for (uint32_t o = 0; o < g->n_ops; o++)
      for (uint32_t k = 0; k < g->ops[o].n_outputs && !g->ops[o].const_folded; k++) {
        int32_t t = g->ops[o].outputs[k];
        if (t >= 0) assert_int_equal(g->tensors[t].producer, (int32_t)o);
      }
    /* graph inputs start at 0, outputs end at the last op */
    for (uint32_t k = 0; k < g->n_inputs; k++)
      assert_int_equal(g->storage[g->inputs[k]].start_op, 0);
    for (uint32_t k = 0; k < g->n_outputs; k++)
      assert_int_equal(g->storage[g->outputs[k]].end_op, (int32_t)g->n_ops - 1);
    mp_graph_free(&g);
    assert_null(g);
    mp_model_free(&m);
    assert_null(m);
  }
}

static void known_lower_bounds_match_without_aliasing(void **state) {
  (void)state;
  if (!tu_models_dir()) skip();
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    mp_model *m = NULL;
    mp_graph *g = NULL, *ga = NULL;
    assert_int_equal(mp_model_load(tu_model_path(known[i].name), NULL, &m), MP_OK);
    mp_graph_options no_alias = {.alias_views = false};
    assert_int_equal(mp_graph_build(m, 0, &no_alias, NULL, &g), MP_OK);
    assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &ga), MP_OK);
    print_message("%-26s %llu\n", known[i].name,
                  (unsigned long long)mp_graph_lower_bound(g, 16));
    assert_int_equal(mp_graph_lower_bound(g, 16), known[i].lower_bound_no_alias);
    /* aliasing can only lower it */
    assert_true(mp_graph_lower_bound(ga, 16) <= known[i].lower_bound_no_alias);
    mp_graph_free(&ga);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
}

static void micro_speech_reshape_is_an_alias_with_merged_lifetime(void **state) {
  (void)state;
  if (!tu_models_dir()) skip();
  mp_model *m = NULL;
  mp_graph *g = NULL;
  assert_int_equal(mp_model_load(tu_model_path("tflm_micro_speech_int8"), NULL, &m), MP_OK);
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  /* op 0 is RESHAPE 3 -> 4; tensor 4 is read by op 1 */
  assert_string_equal(g->ops[0].name, "RESHAPE");
  assert_true(g->ops[0].is_view);
  assert_int_equal(g->tensors[4].alias_of, 3);
  assert_int_equal(g->tensors[3].alias_of, -1);
  assert_int_equal(g->storage[3].start_op, 0);
  assert_int_equal(g->storage[3].end_op, 1);
  assert_int_equal(g->storage[4].end_op, 1);
  assert_false(mp_graph_needs_slot(g, 4));
  assert_true(mp_graph_needs_slot(g, 3));
  mp_graph_free(&g);
  mp_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_corpus_model_loads_and_analyses),
      cmocka_unit_test(known_lower_bounds_match_without_aliasing),
      cmocka_unit_test(micro_speech_reshape_is_an_alias_with_merged_lifetime),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
