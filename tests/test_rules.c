/*
 * test_rules.c — resolution of the tensor attribute rulesets (README, "Rulesets"):
 * specificity, order, field-by-field merging, id matching and the errors
 * that need the model.  The graphs are small hand-made ones (only ids,
 * names and roles matter here), plus the KWS reference model when the
 * shared models are present.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* input -> conv(conv_w, conv_b) -> conv_out -> add(state) -> output */
static mp_tensor tensors[] = {
    {.id = 0, .name = "input", .role = MP_ROLE_SCRATCH},
    {.id = 1, .name = "conv_w", .role = MP_ROLE_CONSTANT},
    {.id = 2, .name = "conv_b", .role = MP_ROLE_CONSTANT},
    {.id = 3, .name = "conv_out", .role = MP_ROLE_SCRATCH},
    {.id = 4, .name = "state", .role = MP_ROLE_PERSISTENT},
    {.id = 5, .name = "sequential/dense/MatMul;sequential/dense/BiasAdd", .role = MP_ROLE_SCRATCH},
};
#define N_T 6

static mp_graph graph(void) {
  mp_graph g = {0};
  g.n_tensors = g.n_model_tensors = N_T;
  g.tensors = tensors;
  return g;
}

/* Resolve the rulesets of a `memory:` section (YAML) on apollo510_evb. */
static mp_status resolve(const char *memory_yaml, mp_attributes *out, tu_diags *d,
                         const mp_rule **by) {
  char yaml[2048];
  snprintf(yaml, sizeof yaml, "model: {path: m.tflite}\nmemory:\n%s", memory_yaml);
  tu_diags_init(d);
  mp_config *c = NULL;
  char *argv[] = {(char *)"convert", NULL};
  mp_status st = mp_config_from_text(yaml, strlen(yaml), "rules.yaml", 1, argv, &d->sink, &c);
  if (st != MP_OK) {
    print_message("config: %s\n", d->text);
    return st;
  }
  mp_graph g = graph();
  const mp_rule *from[N_T];
  st = mp_rules_resolve_traced(&g, &c->platform, &c->memory, &d->sink, out, from, NULL);
  /* by[] is only meaningful while c lives: report the index instead */
  for (int t = 0; by && t < N_T; t++)
    by[t] = from[t] ? (const mp_rule *)(uintptr_t)(from[t] - c->memory.rules + 1) : NULL;
  mp_config_free(&c);
  return st;
}

/* 1-based index of the ruleset that decided tensor t's memory, 0 = none. */
static size_t rule_no(const mp_rule *const *by, int t) { return (size_t)(uintptr_t)by[t]; }

static void no_rulesets_pin_nothing(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  planner: greedy\n", a, &d, NULL), MP_OK);
  for (int t = 0; t < N_T; t++) {
    assert_false(a[t].has_memory);
    assert_false(a[t].has_constant_destination_memory);
  }
}

static void a_type_star_ruleset_without_ids_applies_to_every_tensor(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {type: \"*\", attributes: {memory: sram}}\n", a, &d,
                           NULL),
                   MP_OK);
  for (int t = 0; t < N_T; t++) {
    assert_true(a[t].has_memory);
    assert_int_equal(a[t].memory, MP_MEM_SRAM);
  }
}

static void a_ruleset_without_type_is_type_star(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {attributes: {memory: psram}}\n", a, &d, NULL), MP_OK);
  for (int t = 0; t < N_T; t++) assert_int_equal(a[t].memory, MP_MEM_PSRAM);
}

static void a_typed_ruleset_applies_only_to_its_role(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {type: persistent, attributes: {memory: sram}}\n", a,
                           &d, NULL),
                   MP_OK);
  for (int t = 0; t < N_T; t++) assert_int_equal(a[t].has_memory, t == 4);
}

static void a_typed_ruleset_beats_type_star_in_either_order(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  const char *orders[] = {
      "  tensors:\n    - {type: \"*\", attributes: {memory: sram}}\n"
      "    - {type: scratch, attributes: {memory: dtcm}}\n",
      "  tensors:\n    - {type: scratch, attributes: {memory: dtcm}}\n"
      "    - {type: \"*\", attributes: {memory: sram}}\n"};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(resolve(orders[i], a, &d, NULL), MP_OK);
    assert_int_equal(a[0].memory, MP_MEM_DTCM);
    assert_int_equal(a[3].memory, MP_MEM_DTCM);
    assert_int_equal(a[1].memory, MP_MEM_SRAM);
    assert_int_equal(a[4].memory, MP_MEM_SRAM);
  }
}

static void an_id_beats_a_type_in_either_order(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  const char *orders[] = {
      "  tensors:\n    - {id: [\"3\"], attributes: {memory: psram}}\n"
      "    - {type: scratch, attributes: {memory: dtcm}}\n",
      "  tensors:\n    - {type: scratch, attributes: {memory: dtcm}}\n"
      "    - {id: [\"3\"], attributes: {memory: psram}}\n"};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(resolve(orders[i], a, &d, NULL), MP_OK);
    assert_int_equal(a[3].memory, MP_MEM_PSRAM);
    assert_int_equal(a[0].memory, MP_MEM_DTCM);
  }
}

static void type_and_id_beat_id_alone_in_either_order(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  const char *orders[] = {
      "  tensors:\n    - {type: constant, id: [conv_w], attributes: {memory: mram}}\n"
      "    - {id: [conv_w, conv_b], attributes: {memory: sram}}\n",
      "  tensors:\n    - {id: [conv_w, conv_b], attributes: {memory: sram}}\n"
      "    - {type: constant, id: [conv_w], attributes: {memory: mram}}\n"};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(resolve(orders[i], a, &d, NULL), MP_OK);
    assert_int_equal(a[1].memory, MP_MEM_MRAM);
    assert_int_equal(a[2].memory, MP_MEM_SRAM);
  }
}

static void the_later_ruleset_wins_a_tie(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  const mp_rule *by[N_T];
  assert_int_equal(resolve("  tensors:\n"
                           "    - {type: scratch, attributes: {memory: dtcm}}\n"
                           "    - {type: scratch, attributes: {memory: sram}}\n",
                           a, &d, by),
                   MP_OK);
  assert_int_equal(a[0].memory, MP_MEM_SRAM);
  assert_int_equal(rule_no(by, 0), 2);
}

static void fields_merge_one_by_one(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  /* the general rule sets both fields, the specific one only memory */
  assert_int_equal(resolve("  tensors:\n"
                           "    - {type: constant, id: [\"1\"], attributes: {memory: psram}}\n"
                           "    - {type: constant, attributes: {memory: mram, "
                           "constant_destination_memory: sram}}\n",
                           a, &d, NULL),
                   MP_OK);
  assert_int_equal(a[1].memory, MP_MEM_PSRAM);
  assert_true(a[1].has_constant_destination_memory);
  assert_int_equal(a[1].constant_destination_memory, MP_MEM_SRAM);
  assert_int_equal(a[2].memory, MP_MEM_MRAM);
  assert_int_equal(a[2].constant_destination_memory, MP_MEM_SRAM);
}

static void a_ruleset_without_memory_does_not_pin(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {type: constant, attributes: "
                           "{constant_destination_memory: dtcm}}\n",
                           a, &d, NULL),
                   MP_OK);
  assert_false(a[1].has_memory);
  assert_true(a[1].has_constant_destination_memory);
}

static void ids_are_indices_as_text_or_names(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {id: [0, \"4\", conv_out, "
                           "\"sequential/dense/MatMul;sequential/dense/BiasAdd\"], "
                           "attributes: {memory: sram}}\n",
                           a, &d, NULL),
                   MP_OK);
  bool want[N_T] = {true, false, false, true, true, true};
  for (int t = 0; t < N_T; t++) assert_int_equal(a[t].has_memory, want[t]);
}

static void an_id_matching_no_tensor_names_the_ruleset_and_suggests_a_name(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - type: constant\n      id: [conv_w, conv_ww]\n"
                           "      attributes: {memory: mram}\n",
                           a, &d, NULL),
                   MP_ERR_CONFIG);
  assert_int_equal(d.n_errors, 1);
  assert_true(tu_diags_has(&d, "memory.tensors[0]: memory.tensors[0]: id 'conv_ww' matches no "
                               "tensor \xe2\x80\x94 did you mean 'conv_w'?"));
  /* points at the id itself */
  assert_int_equal(d.last_line, 5);
  assert_int_equal(d.last_column, 20);
}

static void a_part_of_a_long_name_suggests_the_whole_name(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {id: [dense/MatMul], attributes: {memory: sram}}\n",
                           a, &d, NULL),
                   MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "did you mean 'sequential/dense/MatMul;sequential/dense/BiasAdd'?"));
}

static void an_index_out_of_range_says_how_many_tensors_there_are(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {id: [\"99\"], attributes: {memory: sram}}\n", a, &d,
                           NULL),
                   MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "id '99' matches no tensor: subgraph 0 has tensors 0 to 5"));
}

static void an_id_of_another_type_is_an_error(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {type: scratch, id: [conv_w], attributes: {memory: "
                           "sram}}\n",
                           a, &d, NULL),
                   MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "id 'conv_w' is tensor 1 'conv_w', a constant tensor, but the "
                               "ruleset's type is 'scratch'"));
}

static void read_only_memory_for_activations_names_the_ruleset_and_tensor(void **state) {
  (void)state;
  mp_attributes a[N_T];
  tu_diags d;
  assert_int_equal(resolve("  tensors:\n    - {type: \"*\", attributes: {memory: mram}}\n", a, &d,
                           NULL),
                   MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "memory.tensors[0] pins scratch tensor 0 'input' to mram, which is "
                               "read-only"));
}

/* Rules built in code: the platform checks the config loader does for files. */
static void rules_built_in_code_are_checked_against_the_platform(void **state) {
  (void)state;
  mp_graph g = graph();
  mp_platform p;
  assert_true(mp_platform_builtin("apollo3p_evb", &p));
  mp_attributes a[N_T];
  char *ids[] = {(char *)"conv_w"};
  mp_rule r = {.type = MP_ROLE_CONSTANT, .n_ids = 1, .ids = ids, .key_path = "memory.tensors[0]"};
  mp_memory_args mem = {.n_rules = 1, .rules = &r};
  tu_diags d;

  r.attributes = (mp_attributes){.has_memory = true, .memory = MP_MEM_PSRAM};
  tu_diags_init(&d);
  assert_int_equal(mp_rules_resolve(&g, &p, &mem, &d.sink, a), MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "memory psram is not a memory of platform 'apollo3p_evb'"));

  r.attributes = (mp_attributes){.has_memory = true, .memory = MP_MEM_SRAM,
                                 .has_constant_destination_memory = true,
                                 .constant_destination_memory = MP_MEM_MRAM};
  tu_diags_init(&d);
  assert_int_equal(mp_rules_resolve(&g, &p, &mem, &d.sink, a), MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "constant_destination_memory mram is read-only"));

  r.attributes = (mp_attributes){.has_memory = true, .memory = MP_MEM_MRAM,
                                 .has_constant_destination_memory = true,
                                 .constant_destination_memory = MP_MEM_DTCM};
  tu_diags_init(&d);
  assert_int_equal(mp_rules_resolve(&g, &p, &mem, &d.sink, a), MP_OK);
  assert_int_equal(d.n_errors, 0);
  assert_int_equal(a[1].memory, MP_MEM_MRAM);
  assert_int_equal(a[1].constant_destination_memory, MP_MEM_DTCM);
  assert_false(a[2].has_memory);
}

static void rules_resolve_on_a_real_model(void **state) {
  (void)state;
  const char *path = tu_model_path("mlperf_kws_ref_int8");
  if (!path) skip();
  mp_model *m = NULL;
  mp_graph *g = NULL;
  assert_int_equal(mp_model_load(path, NULL, &m), MP_OK);
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  char yaml[512];
  snprintf(yaml, sizeof yaml,
           "model: {path: m.tflite}\nmemory:\n  tensors:\n"
           "    - {type: constant, attributes: {memory: mram, constant_destination_memory: sram}}\n"
           "    - {id: [\"%s\", \"0\"], attributes: {memory: sram}}\n",
           g->tensors[20].name);
  tu_diags d;
  tu_diags_init(&d);
  mp_config *c = NULL;
  char *argv[] = {(char *)"convert", NULL};
  assert_int_equal(mp_config_from_text(yaml, strlen(yaml), "kws.yaml", 1, argv, &d.sink, &c), MP_OK);
  mp_attributes *a = calloc(g->n_tensors, sizeof *a);
  assert_int_equal(mp_rules_resolve(g, &c->platform, &c->memory, &d.sink, a), MP_OK);
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    if (t == 0 || t == 20) {
      assert_int_equal(a[t].memory, MP_MEM_SRAM);
    } else if (x->role == MP_ROLE_CONSTANT) {
      assert_int_equal(a[t].memory, MP_MEM_MRAM);
    } else {
      assert_false(a[t].has_memory);
    }
    assert_int_equal(a[t].has_constant_destination_memory, x->role == MP_ROLE_CONSTANT);
  }
  free(a);
  mp_config_free(&c);
  mp_graph_free(&g);
  mp_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_rulesets_pin_nothing),
      cmocka_unit_test(a_type_star_ruleset_without_ids_applies_to_every_tensor),
      cmocka_unit_test(a_ruleset_without_type_is_type_star),
      cmocka_unit_test(a_typed_ruleset_applies_only_to_its_role),
      cmocka_unit_test(a_typed_ruleset_beats_type_star_in_either_order),
      cmocka_unit_test(an_id_beats_a_type_in_either_order),
      cmocka_unit_test(type_and_id_beat_id_alone_in_either_order),
      cmocka_unit_test(the_later_ruleset_wins_a_tie),
      cmocka_unit_test(fields_merge_one_by_one),
      cmocka_unit_test(a_ruleset_without_memory_does_not_pin),
      cmocka_unit_test(ids_are_indices_as_text_or_names),
      cmocka_unit_test(an_id_matching_no_tensor_names_the_ruleset_and_suggests_a_name),
      cmocka_unit_test(a_part_of_a_long_name_suggests_the_whole_name),
      cmocka_unit_test(an_index_out_of_range_says_how_many_tensors_there_are),
      cmocka_unit_test(an_id_of_another_type_is_an_error),
      cmocka_unit_test(read_only_memory_for_activations_names_the_ruleset_and_tensor),
      cmocka_unit_test(rules_built_in_code_are_checked_against_the_platform),
      cmocka_unit_test(rules_resolve_on_a_real_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
