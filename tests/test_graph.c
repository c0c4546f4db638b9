/*
 * test_graph.c — lifetimes (inclusive operator intervals), view aliasing, roles, sizes, op-local
 * scratch and the scratch lower bound, on the fixtures of
 * tests/support/gen/fixtures.c whose exact answers are documented there, and
 * on random DAGs checked against an independent re-derivation of the
 * contract.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

typedef struct fx {
  mp_model *m;
  mp_graph *g;
} fx;

static fx load(const char *name, uint32_t subgraph, bool alias) {
  fx f = {fx_model(name), NULL};
  assert_non_null(f.m);
  mp_graph_options opt = {.alias_views = alias};
  tu_diags d;
  tu_diags_init(&d);
  if (mp_graph_build(f.m, subgraph, &opt, &d.sink, &f.g) != MP_OK)
    fail_msg("%s: %s", name, d.text);
  return f;
}

static void unload(fx *f) {
  mp_graph_free(&f->g);
  assert_null(f->g);
  mp_model_free(&f->m);
}

static mp_model *parse_writer(mp_tfw *w) {
  uint8_t *b;
  size_t n;
  assert_int_equal(mp_tfw_finish(w, &b, &n), MP_OK);
  mp_tfw_free(&w);
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(b, n, "inline", NULL, &m), MP_OK);
  free(b);
  return m;
}

/* Own lifetime of tensor t is [start, end]. */
#define LIFE(g, t, s, e)                                  \
  do {                                                    \
    assert_int_equal((g)->tensors[t].lifetime.start_op, s); \
    assert_int_equal((g)->tensors[t].lifetime.end_op, e);   \
  } while (0)

/* ---- lifetimes ---------------------------------------------------------- */

static void lifetimes_run_from_producer_to_last_reader(void **state) {
  (void)state;
  fx f = load("late_input", 0, true);
  LIFE(f.g, 0, 0, 0);
  LIFE(f.g, 2, 0, 1);
  LIFE(f.g, 3, 1, 2);
  LIFE(f.g, 4, 2, 3);
  LIFE(f.g, 5, 3, 3);
  assert_int_equal(f.g->tensors[2].producer, 0);
  assert_int_equal(f.g->tensors[5].producer, 3);
  assert_int_equal(f.g->tensors[0].producer, -1);
  unload(&f);
}

static void a_graph_input_first_read_late_lives_from_op_zero(void **state) {
  (void)state;
  fx f = load("late_input", 0, true);
  LIFE(f.g, 1, 0, 3);
  assert_true(f.g->tensors[1].is_input);
  assert_false(f.g->tensors[1].is_output);
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 128);
  unload(&f);
}

static void an_output_never_read_lives_only_at_its_producer(void **state) {
  (void)state;
  fx f = load("unread_output", 0, true);
  LIFE(f.g, 3, 0, 0);
  assert_true(f.g->tensors[3].used);
  assert_true(mp_graph_needs_slot(f.g, 3));
  LIFE(f.g, 1, 0, 0);
  LIFE(f.g, 2, 0, 1);
  LIFE(f.g, 4, 1, 1);
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 64);
  unload(&f);
}

static void a_graph_output_lives_until_the_last_op(void **state) {
  (void)state;
  /* op 0 RELU(in)->early (a graph output), op 1 TANH(in)->late, op 2
   * RELU(late)->last */
  mp_tfw *w = mp_tfw_new();
  for (int i = 0; i < 4; i++)
    mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 2, (const int32_t[]){1, 8});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RELU, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}, .n_outputs = 1,
                                .outputs = (const int32_t[]){1}});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_TANH, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}, .n_outputs = 1,
                                .outputs = (const int32_t[]){2}});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RELU, .n_inputs = 1,
                                .inputs = (const int32_t[]){2}, .n_outputs = 1,
                                .outputs = (const int32_t[]){3}});
  mp_tfw_set_io(w, 1, (const int32_t[]){0}, 2, (const int32_t[]){1, 3});
  mp_model *m = parse_writer(w);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  LIFE(g, 0, 0, 1);
  LIFE(g, 1, 0, 2);
  LIFE(g, 2, 1, 2);
  LIFE(g, 3, 2, 2);
  assert_true(g->tensors[1].is_output);
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void intermediates_live_over_their_op_alone(void **state) {
  (void)state;
  fx f = load("intermediates", 0, true);
  LIFE(f.g, 2, 0, 0);
  LIFE(f.g, 3, 0, 0);
  LIFE(f.g, 4, 0, 1);
  assert_int_equal(f.g->ops[0].n_intermediates, 2);
  assert_true(mp_graph_needs_slot(f.g, 2));
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 128);
  unload(&f);
}

static void optional_inputs_left_out_are_skipped(void **state) {
  (void)state;
  fx f = load("optional_input", 0, true);
  assert_int_equal(f.g->ops[0].inputs[2], -1);
  LIFE(f.g, 0, 0, 0);
  LIFE(f.g, 2, 0, 0);
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 32);
  unload(&f);
}

/* ---- roles and sizes ---------------------------------------------------- */

static void constants_are_tensors_with_data_and_empty_buffers_are_scratch(void **state) {
  (void)state;
  fx f = load("tiny", 0, true);
  static const mp_role roles[] = {MP_ROLE_SCRATCH, MP_ROLE_CONSTANT, MP_ROLE_CONSTANT,
                                  MP_ROLE_SCRATCH, MP_ROLE_SCRATCH};
  static const uint64_t sizes[] = {8, 32, 16, 4, 4};
  for (uint32_t t = 0; t < 5; t++) {
    assert_int_equal(f.g->tensors[t].role, roles[t]);
    assert_int_equal(f.g->tensors[t].size, sizes[t]);
    assert_int_equal(mp_graph_needs_slot(f.g, t), roles[t] == MP_ROLE_SCRATCH);
  }
  /* tensor 3 has a buffer of its own, but an empty one */
  assert_int_equal(f.m->subgraphs[0].tensors[3].buffer, 3);
  assert_ptr_equal(f.g->tensors[1].data, f.m->buffers[1].data);
  assert_null(f.g->tensors[3].data);
  assert_string_equal(mp_role_name(MP_ROLE_CONSTANT), "constant");
  unload(&f);
}

static void variable_tensors_are_persistent_and_outside_the_bound(void **state) {
  (void)state;
  fx f = load("variable", 0, true);
  assert_int_equal(f.g->tensors[1].role, MP_ROLE_PERSISTENT);
  assert_string_equal(mp_role_name(f.g->tensors[1].role), "persistent");
  assert_false(mp_graph_needs_slot(f.g, 1));
  assert_int_equal(f.g->tensors[1].size, 16);
  assert_int_equal(f.g->tensors[1].producer, 1); /* the state update */
  LIFE(f.g, 0, 0, 1);
  LIFE(f.g, 2, 0, 2);
  LIFE(f.g, 3, 2, 2);
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 32);
  unload(&f);
}

static void zero_size_tensors_need_no_slot(void **state) {
  (void)state;
  fx f = load("zero_size", 0, true);
  assert_int_equal(f.g->tensors[1].size, 0);
  assert_true(f.g->tensors[1].used);
  assert_false(mp_graph_needs_slot(f.g, 1));
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 32);
  unload(&f);
}

static void sizes_follow_dtype_bits_and_static_shape(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "f32", MP_DTYPE_FLOAT32, 2, (const int32_t[]){2, 3});
  mp_tfw_add_simple_tensor(w, "i4", MP_DTYPE_INT4, 1, (const int32_t[]){3});
  mp_tfw_add_simple_tensor(w, "scalar", MP_DTYPE_INT16, 0, NULL);
  mp_tfw_add_simple_tensor(w, "c64", MP_DTYPE_COMPLEX64, 1, (const int32_t[]){2});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_ADD, .n_inputs = 4,
                                .inputs = (const int32_t[]){0, 1, 2, 3}});
  mp_model *m = parse_writer(w);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[0].size, 24);
  assert_int_equal(g->tensors[1].size, 2); /* 12 bits, rounded up */
  assert_int_equal(g->tensors[2].size, 2);
  assert_int_equal(g->tensors[3].size, 16);
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void a_dynamic_shape_is_unsupported_only_when_the_tensor_is_used(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "dyn", MP_DTYPE_INT8, 2, (const int32_t[]){-1, 4});
  mp_tfw_add_simple_tensor(w, "unused", MP_DTYPE_INT8, 2, (const int32_t[]){-1, 4});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RELU, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}});
  mp_model *m = parse_writer(w);
  tu_diags d;
  tu_diags_init(&d);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, &d.sink, &g), MP_ERR_UNSUPPORTED);
  assert_null(g);
  assert_string_equal(d.text, "error: tensor 0 'dyn' has dynamic shape (dimension 0 is -1); "
                              "memplan needs static shapes\n");
  mp_model_free(&m);

  w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "x", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  mp_tfw_add_simple_tensor(w, "unused", MP_DTYPE_STRING, 2, (const int32_t[]){-1, 4});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RELU, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}});
  m = parse_writer(w);
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_false(g->tensors[1].used);
  assert_false(mp_graph_needs_slot(g, 1));
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void tensors_beyond_4_gib_are_unsupported_and_sums_cannot_overflow(void **state) {
  (void)state;
  /* regression: eight complex128 [2^28, 2^28] outputs (2^60 bytes each)
   * overflowed the signed live sum of the lower bound */
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "in", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  for (int i = 0; i < 8; i++)
    mp_tfw_add_simple_tensor(w, "huge", MP_DTYPE_COMPLEX128, 2,
                             (const int32_t[]){1 << 28, 1 << 28});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SPLIT, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}, .n_outputs = 8,
                                .outputs = (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8}});
  mp_model *m = parse_writer(w);
  tu_diags d;
  tu_diags_init(&d);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, &d.sink, &g), MP_ERR_UNSUPPORTED);
  assert_null(g);
  assert_string_equal(d.text, "error: tensor 1 'huge' is 1152921504606846976 bytes; memplan "
                              "plans tensors of up to 4 GiB\n");
  mp_model_free(&m);
  /* 4 GiB exactly is still planned; unused giants do not matter */
  w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "in", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  mp_tfw_add_simple_tensor(w, "big", MP_DTYPE_INT32, 2, (const int32_t[]){1 << 15, 1 << 15});
  mp_tfw_add_simple_tensor(w, "unused", MP_DTYPE_COMPLEX128, 2,
                           (const int32_t[]){1 << 28, 1 << 28});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RELU, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}, .n_outputs = 1,
                                .outputs = (const int32_t[]){1}});
  m = parse_writer(w);
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[1].size, 4294967296ULL);
  assert_int_equal(mp_graph_lower_bound(g, 16), 4294967296ULL + 16);
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* ---- aliasing ----------------------------------------------------------- */

static void a_chain_of_views_collapses_onto_one_root_with_merged_lifetime(void **state) {
  (void)state;
  fx f = load("view_chain", 0, true);
  mp_graph *g = f.g;
  assert_int_equal(g->tensors[2].alias_of, -1);
  assert_int_equal(g->tensors[4].alias_of, 2);
  assert_int_equal(g->tensors[5].alias_of, 2);
  assert_int_equal(g->tensors[7].alias_of, 2);
  assert_false(g->ops[0].is_view);
  assert_true(g->ops[1].is_view);
  assert_true(g->ops[2].is_view);
  assert_true(g->ops[3].is_view);
  assert_false(g->ops[4].is_view);
  /* own lifetimes stay; storage lifetimes are the merged one */
  LIFE(g, 2, 0, 1);
  LIFE(g, 4, 1, 2);
  LIFE(g, 5, 2, 3);
  LIFE(g, 7, 3, 4);
  static const uint32_t chain[] = {2, 4, 5, 7};
  for (int k = 0; k < 4; k++) {
    assert_int_equal(g->storage[chain[k]].tensor_id, chain[k]);
    assert_int_equal(g->storage[chain[k]].start_op, 0);
    assert_int_equal(g->storage[chain[k]].end_op, 4);
  }
  uint32_t slots = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) slots += mp_graph_needs_slot(g, t);
  assert_int_equal(slots, 3);
  assert_true(mp_graph_needs_slot(g, 0) && mp_graph_needs_slot(g, 2) && mp_graph_needs_slot(g, 9));
  assert_int_equal(mp_graph_lower_bound(g, 16), 48);
  assert_int_equal(mp_graph_lower_bound(g, 1), 40);
  unload(&f);
}

static void without_aliasing_every_view_output_is_its_own_slot(void **state) {
  (void)state;
  fx f = load("view_chain", 0, false);
  uint32_t slots = 0;
  for (uint32_t t = 0; t < f.g->n_tensors; t++) {
    assert_int_equal(f.g->tensors[t].alias_of, -1);
    slots += mp_graph_needs_slot(f.g, t);
  }
  for (uint32_t o = 0; o < f.g->n_ops; o++) assert_false(f.g->ops[o].is_view);
  assert_int_equal(slots, 6);
  assert_int_equal(f.g->storage[2].end_op, 1);
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 64);
  unload(&f);
}

/* A RESHAPE of a constant is no alias: it is computed at convert time, its
 * output a constant holding the input's bytes, and it runs nothing. */
static void a_view_of_a_constant_is_folded_into_a_constant(void **state) {
  (void)state;
  fx f = load("view_of_constant", 0, true);
  assert_int_equal(f.g->tensors[3].alias_of, -1);
  assert_false(f.g->ops[0].is_view);
  assert_true(f.g->ops[0].const_folded);
  assert_int_equal(f.g->n_const_folded, 1);
  assert_int_equal(f.g->tensors[3].role, MP_ROLE_CONSTANT);
  assert_non_null(f.g->tensors[3].data);
  assert_memory_equal(f.g->tensors[3].data, f.g->tensors[1].data, 16);
  assert_false(mp_graph_needs_slot(f.g, 3));
  LIFE(f.g, 0, 0, 1);
  /* op 1 alone: the input and the output */
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 32);
  unload(&f);
}

static void a_view_that_changes_the_byte_size_is_not_an_alias(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "in", MP_DTYPE_INT8, 2, (const int32_t[]){1, 16});
  mp_tfw_add_simple_tensor(w, "wide", MP_DTYPE_INT16, 2, (const int32_t[]){1, 16});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RESHAPE, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}, .n_outputs = 1,
                                .outputs = (const int32_t[]){1}});
  mp_tfw_set_io(w, 1, (const int32_t[]){0}, 1, (const int32_t[]){1});
  mp_model *m = parse_writer(w);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[1].alias_of, -1);
  assert_false(g->ops[0].is_view);
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void the_example_reshape_aliases_the_pooling_output(void **state) {
  (void)state;
  mp_model *m = NULL;
  assert_int_equal(mp_model_load("examples/kws/kws.tflite", NULL, &m), MP_OK);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[FX_KWS_RESHAPE_OUT].alias_of, FX_KWS_POOL_OUT);
  assert_true(g->ops[10].is_view);
  assert_int_equal(g->storage[FX_KWS_POOL_OUT].end_op, 11);
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* ---- lower bound and op-local scratch ---------------------------------- */

static void the_lower_bound_rounds_every_slot_to_the_alignment(void **state) {
  (void)state;
  fx f = load("late_input", 0, true);
  assert_int_equal(mp_graph_lower_bound(f.g, 1), 128);  /* op 3: 48 + 16 + 64 */
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 128);
  assert_int_equal(mp_graph_lower_bound(f.g, 64), 192); /* three 64-byte slots */
  assert_int_equal(mp_graph_lower_bound(f.g, 256), 768);
  unload(&f);
}

static void op_local_scratch_lives_at_its_op_and_counts_in_the_bound(void **state) {
  (void)state;
  fx f = load("late_input", 0, true);
  mp_graph *g = f.g;
  uint32_t id = 0, id2 = 0;
  assert_int_equal(mp_graph_add_local(g, 1, 100, 32, "im2col", &id), MP_OK);
  assert_int_equal(id, 6);
  assert_int_equal(g->n_model_tensors, 6);
  assert_int_equal(g->n_tensors, 7);
  const mp_tensor *t = &g->tensors[id];
  assert_string_equal(t->name, "im2col");
  assert_int_equal(t->role, MP_ROLE_SCRATCH);
  assert_int_equal(t->local_op, 1);
  assert_int_equal(t->align_hint, 32);
  assert_int_equal(t->size, 100);
  LIFE(g, 6, 1, 1);
  assert_int_equal(g->storage[6].start_op, 1);
  assert_int_equal(g->storage[6].end_op, 1);
  assert_true(mp_graph_needs_slot(g, 6));
  /* op 1: late 48 + t1 16 + t2 16 + 100 rounded to its 32-byte hint = 208 */
  assert_int_equal(mp_graph_lower_bound(g, 16), 208);
  /* model tensors keep their values after the arrays grew */
  LIFE(g, 1, 0, 3);
  assert_int_equal(g->storage[1].end_op, 3);
  assert_int_equal(mp_graph_add_local(g, 3, 8, 0, NULL, &id2), MP_OK);
  assert_int_equal(id2, 7);
  assert_string_equal(g->tensors[7].name, "");
  assert_int_equal(mp_graph_lower_bound(g, 16), 208); /* op 3: 128 + 16 */
  assert_int_equal(mp_graph_add_local(g, 4, 8, 0, "bad", &id2), MP_ERR_INTERNAL);
  assert_int_equal(g->n_tensors, 8);
  unload(&f);
}

/* ---- subgraphs and errors ---------------------------------------------- */

static void selecting_subgraph_one_analyses_that_subgraph(void **state) {
  (void)state;
  fx f = load("multi_subgraph", 1, true);
  assert_int_equal(f.g->subgraph, 1);
  assert_int_equal(f.g->n_ops, 3);
  assert_int_equal(f.g->n_tensors, 4);
  LIFE(f.g, 0, 0, 0);
  LIFE(f.g, 1, 0, 1);
  LIFE(f.g, 2, 1, 2);
  LIFE(f.g, 3, 2, 2);
  assert_string_equal(f.g->ops[2].name, "GELU");
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 128);
  unload(&f);
  f = load("multi_subgraph", 0, true);
  assert_int_equal(f.g->n_ops, 1);
  assert_int_equal(mp_graph_lower_bound(f.g, 16), 64);
  unload(&f);
}

static void a_subgraph_index_out_of_range_is_an_error(void **state) {
  (void)state;
  mp_model *m = fx_model("multi_subgraph");
  tu_diags d;
  tu_diags_init(&d);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 2, NULL, &d.sink, &g), MP_ERR_CONFIG);
  assert_null(g);
  assert_string_equal(d.text, "error: subgraph 2 does not exist (model has 2 subgraphs)\n");
  mp_model_free(&m);
}

static void a_tensor_written_twice_is_an_error(void **state) {
  (void)state;
  mp_model *m = fx_model("written_twice");
  tu_diags d;
  tu_diags_init(&d);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, &d.sink, &g), MP_ERR_MODEL);
  assert_null(g);
  assert_string_equal(d.text,
                      "error: tensor 1 'a' is written by operator 0 and again by operator 1\n");
  mp_model_free(&m);
}

static void an_op_writing_a_constant_is_an_error(void **state) {
  (void)state;
  mp_model *m = fx_model("writes_constant");
  tu_diags d;
  tu_diags_init(&d);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, &d.sink, &g), MP_ERR_MODEL);
  assert_null(g);
  assert_string_equal(d.text,
                      "error: operator 0 (RELU) writes tensor 1 'weights', which is a constant\n");
  mp_model_free(&m);
}

static void a_subgraph_without_operators_builds(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "passthrough", MP_DTYPE_INT8, 1, (const int32_t[]){8});
  mp_tfw_set_io(w, 1, (const int32_t[]){0}, 1, (const int32_t[]){0});
  mp_model *m = parse_writer(w);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->n_ops, 0);
  LIFE(g, 0, 0, 0);
  assert_int_equal(mp_graph_lower_bound(g, 16), 16);
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* ---- the TensorLifetime API -------------------------------------------- */

static void lifetimes_add_ops_merge_and_overlap(void **state) {
  (void)state;
  mp_lifetime a = {7, -1, -1}, b = {8, -1, -1};
  assert_false(mp_lifetime_overlaps(&a, &b));
  mp_lifetime_merge(&a, &b); /* merging a never-live one changes nothing */
  assert_int_equal(a.start_op, -1);
  mp_lifetime_add_op(&a, 5);
  assert_int_equal(a.start_op, 5);
  assert_int_equal(a.end_op, 5);
  mp_lifetime_add_op(&a, 2);
  mp_lifetime_add_op(&a, 3);
  assert_int_equal(a.start_op, 2);
  assert_int_equal(a.end_op, 5);
  assert_false(mp_lifetime_overlaps(&a, &b));
  mp_lifetime_add_op(&b, 6);
  assert_false(mp_lifetime_overlaps(&a, &b));
  mp_lifetime_add_op(&b, 5); /* [5,6] touches [2,5] at 5 */
  assert_true(mp_lifetime_overlaps(&a, &b));
  assert_true(mp_lifetime_overlaps(&b, &a));
  mp_lifetime_merge(&a, &b);
  assert_int_equal(a.start_op, 2);
  assert_int_equal(a.end_op, 6);
  assert_int_equal(a.tensor_id, 7);
}

/* ---- random DAGs against an independent derivation ---------------------- */

static void random_dags_follow_the_lifetime_contract(void **state) {
  (void)state;
  for (uint64_t seed = 0; seed < 60; seed++) {
    uint8_t *b;
    size_t n;
    assert_int_equal(fx_random(seed, 10 + (uint32_t)seed * 3, &b, &n), MP_OK);
    mp_model *m = NULL;
    assert_int_equal(mp_model_parse(b, n, "random", NULL, &m), MP_OK);
    free(b);
    const mp_subgraph_def *s = &m->subgraphs[0];
    mp_graph *g = NULL, *na = NULL;
    mp_graph_options no_alias = {.alias_views = false};
    assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
    assert_int_equal(mp_graph_build(m, 0, &no_alias, NULL, &na), MP_OK);
    int32_t last = (int32_t)s->n_ops - 1;
    for (uint32_t t = 0; t < s->n_tensors; t++) {
      /* the lifetime rule, re-derived from the operator lists */
      int32_t start = -1, end = -1;
      bool input = false, output = false;
      for (uint32_t k = 0; k < s->n_inputs; k++) input |= s->inputs[k] == (int32_t)t;
      for (uint32_t k = 0; k < s->n_outputs; k++) output |= s->outputs[k] == (int32_t)t;
      if (input) start = 0;
      for (uint32_t o = 0; o < s->n_ops; o++) {
        for (uint32_t k = 0; k < s->ops[o].n_outputs; k++)
          if (s->ops[o].outputs[k] == (int32_t)t && start < 0) start = (int32_t)o;
        for (uint32_t k = 0; k < s->ops[o].n_inputs; k++)
          if (s->ops[o].inputs[k] == (int32_t)t) end = (int32_t)o;
      }
      if (output) end = last;
      if (end < 0) end = start; /* produced and never read */
      if (g->tensors[t].role != MP_ROLE_SCRATCH) continue;
      assert_int_equal(g->tensors[t].lifetime.start_op, start);
      assert_int_equal(g->tensors[t].lifetime.end_op, end);
      assert_true(g->tensors[t].used);
    }
    /* the bound: the largest live sum over ops, counted slot by slot */
    for (int pass = 0; pass < 2; pass++) {
      const mp_graph *x = pass ? na : g;
      uint64_t best = 0;
      for (uint32_t o = 0; o < x->n_ops; o++) {
        uint64_t live = 0;
        for (uint32_t t = 0; t < x->n_tensors; t++) {
          if (x->tensors[t].role != MP_ROLE_SCRATCH || x->tensors[t].alias_of >= 0 ||
              x->tensors[t].size == 0)
            continue;
          const mp_lifetime *lt = &x->storage[t];
          if (lt->start_op <= (int32_t)o && (int32_t)o <= lt->end_op)
            live += (x->tensors[t].size + 15) / 16 * 16;
        }
        if (live > best) best = live;
      }
      assert_int_equal(mp_graph_lower_bound(x, 16), best);
    }
    /* aliasing only ever lowers it; a root's storage covers its aliases */
    assert_true(mp_graph_lower_bound(g, 16) <= mp_graph_lower_bound(na, 16));
    for (uint32_t t = 0; t < g->n_tensors; t++) {
      int32_t r = g->tensors[t].alias_of;
      if (r < 0) continue;
      assert_int_equal(g->tensors[r].alias_of, -1);
      assert_int_equal(g->tensors[r].size, g->tensors[t].size);
      assert_true(g->storage[r].start_op <= g->tensors[t].lifetime.start_op);
      assert_true(g->storage[r].end_op >= g->tensors[t].lifetime.end_op);
    }
    mp_graph_free(&na);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
}

static void scratch_items_are_the_slots_and_give_the_same_lower_bound(void **state) {
  (void)state;
  const char *const *names = fx_names();
  for (size_t i = 0; names[i]; i++) {
    mp_model *m = fx_model(names[i]);
    assert_non_null(m);
    mp_graph *g = NULL;
    if (mp_graph_build(m, 0, NULL, NULL, &g) != MP_OK) { /* the invalid fixtures */
      mp_model_free(&m);
      continue;
    }
    mp_item *it = calloc(g->n_tensors + 1, sizeof *it);
    size_t n = mp_graph_scratch_items(g, 16, it), slots = 0;
    for (uint32_t t = 0; t < g->n_tensors; t++) slots += mp_graph_needs_slot(g, t);
    assert_int_equal(n, slots);
    for (size_t k = 0; k < n; k++) {
      assert_true(mp_graph_needs_slot(g, it[k].id));
      assert_int_equal(it[k].size % it[k].align, 0);
      assert_true(it[k].size >= g->tensors[it[k].id].size);
      assert_int_equal(it[k].start, g->storage[it[k].id].start_op);
      assert_int_equal(it[k].end, g->storage[it[k].id].end_op);
    }
    mp_problem p = {n, it, 0};
    assert_int_equal(mp_problem_lower_bound(&p), mp_graph_lower_bound(g, 16));
    free(it);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
}

/* mww_vad_v2_int8 (ESPHome's streaming VAD): four resource variables, a
 * CALL_ONCE init subgraph assigning each its start value.  Each variable's
 * first handle becomes a persistent tensor of the assigned value's type and
 * shape, starting at the bytes the init subgraph assigns. */
static void resource_variables_become_persistent_tensors_started_by_the_init_subgraph(
    void **state) {
  (void)state;
  const char *path = tu_model_path("mww_vad_v2_int8");
  if (!path) skip();
  mp_model *m = NULL;
  assert_int_equal(mp_model_load(path, NULL, &m), MP_OK);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  const mp_subgraph_def *init = &m->subgraphs[1];
  uint32_t n_vars = 0;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    if (op->builtin_code != 143 /* READ_VARIABLE */) continue;
    const mp_tensor *h = &g->tensors[op->inputs[0]];
    assert_int_equal(h->variable, (int32_t)h->id);
    assert_int_equal(h->role, MP_ROLE_PERSISTENT);
    /* the type and shape of what the read gives */
    const mp_tensor *out = &g->tensors[op->outputs[0]];
    assert_int_equal(h->dtype, out->dtype);
    assert_int_equal(h->size, out->size);
    assert_int_equal(h->rank, out->rank);
    assert_memory_equal(h->shape, out->shape, h->rank * sizeof(int32_t));
    /* the start value: the constant one of the init subgraph's
     * ASSIGN_VARIABLEs assigns (the four variables differ in size) */
    assert_non_null(h->state_init);
    bool found = false;
    for (uint32_t k = 0; k < init->n_ops; k++) {
      const mp_op_def *od = &init->ops[k];
      if (od->builtin_code != 144) continue;
      const mp_buffer_def *b = &m->buffers[init->tensors[od->inputs[1]].buffer];
      if (b->data == h->state_init && b->size == h->size) found = true;
    }
    assert_true(found);
    n_vars++;
  }
  assert_int_equal(n_vars, 4);
  /* a variable takes no scratch: the lower bound counts only the reads */
  for (uint32_t t = 0; t < g->n_tensors; t++)
    if (g->tensors[t].variable >= 0) assert_false(mp_graph_needs_slot(g, t));
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* A variable nothing initialises starts as TFLM starts it: every byte the
 * (int8) zero point of the value first assigned to it. */
static void a_variable_without_init_subgraph_starts_at_its_values_zero_point(void **state) {
  (void)state;
  const char *dir = tu_conformance_dir();
  if (!dir) skip();
  char path[1024];
  snprintf(path, sizeof path, "%s/resource_variables_int8/002/model.tflite", dir);
  mp_model *m = NULL;
  assert_int_equal(mp_model_load(path, NULL, &m), MP_OK);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  const mp_subgraph_def *sg = &m->subgraphs[0];
  uint32_t n_assigns = 0;
  for (uint32_t o = 0; o < sg->n_ops; o++) {
    const mp_op_def *od = &sg->ops[o];
    if (od->builtin_code != 144 /* ASSIGN_VARIABLE */) continue;
    const mp_tensor *v = &g->tensors[g->tensors[od->inputs[0]].variable];
    const mp_tensor_def *val = &sg->tensors[od->inputs[1]];
    assert_int_equal(v->role, MP_ROLE_PERSISTENT);
    assert_null(v->state_init);
    assert_true(val->has_quant);
    assert_int_equal((int8_t)v->state_init_byte, (int8_t)val->quant.zero_point[0]);
    n_assigns++;
  }
  assert_true(n_assigns >= 2);
  mp_graph_free(&g);
  mp_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lifetimes_run_from_producer_to_last_reader),
      cmocka_unit_test(resource_variables_become_persistent_tensors_started_by_the_init_subgraph),
      cmocka_unit_test(a_variable_without_init_subgraph_starts_at_its_values_zero_point),
      cmocka_unit_test(scratch_items_are_the_slots_and_give_the_same_lower_bound),
      cmocka_unit_test(a_graph_input_first_read_late_lives_from_op_zero),
      cmocka_unit_test(an_output_never_read_lives_only_at_its_producer),
      cmocka_unit_test(a_graph_output_lives_until_the_last_op),
      cmocka_unit_test(intermediates_live_over_their_op_alone),
      cmocka_unit_test(optional_inputs_left_out_are_skipped),
      cmocka_unit_test(constants_are_tensors_with_data_and_empty_buffers_are_scratch),
      cmocka_unit_test(variable_tensors_are_persistent_and_outside_the_bound),
      cmocka_unit_test(zero_size_tensors_need_no_slot),
      cmocka_unit_test(sizes_follow_dtype_bits_and_static_shape),
      cmocka_unit_test(a_dynamic_shape_is_unsupported_only_when_the_tensor_is_used),
      cmocka_unit_test(tensors_beyond_4_gib_are_unsupported_and_sums_cannot_overflow),
      cmocka_unit_test(a_chain_of_views_collapses_onto_one_root_with_merged_lifetime),
      cmocka_unit_test(without_aliasing_every_view_output_is_its_own_slot),
      cmocka_unit_test(a_view_of_a_constant_is_folded_into_a_constant),
      cmocka_unit_test(a_view_that_changes_the_byte_size_is_not_an_alias),
      cmocka_unit_test(the_example_reshape_aliases_the_pooling_output),
      cmocka_unit_test(the_lower_bound_rounds_every_slot_to_the_alignment),
      cmocka_unit_test(op_local_scratch_lives_at_its_op_and_counts_in_the_bound),
      cmocka_unit_test(selecting_subgraph_one_analyses_that_subgraph),
      cmocka_unit_test(a_subgraph_index_out_of_range_is_an_error),
      cmocka_unit_test(a_tensor_written_twice_is_an_error),
      cmocka_unit_test(an_op_writing_a_constant_is_an_error),
      cmocka_unit_test(a_subgraph_without_operators_builds),
      cmocka_unit_test(lifetimes_add_ops_merge_and_overlap),
      cmocka_unit_test(random_dags_follow_the_lifetime_contract),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
