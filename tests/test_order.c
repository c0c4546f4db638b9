/*
 * test_order.c — memory.op_order: min_peak.  The search's figures against
 * orders computed by hand (memplan's branch fixtures) and against every
 * topological order of small random graphs; chains and stateful graphs
 * keep their order; the graph built in the order found has the bound the
 * search promised; the verifier refuses an order that breaks a dependence
 * or the order of stateful operators.
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

/* g built from m in `order` (NULL: the model's), kernels prepared. */
static mp_graph *graph(const mp_model *m, const uint32_t *order, bool fold) {
  mp_graph_options o = {.alias_views = true, .fold_pads = fold, .order = order};
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, &o, NULL, &g), MP_OK);
  assert_int_equal(mp_kernels_prepare(g, true, NULL), MP_OK);
  return g;
}

static uint64_t bound(const mp_graph *g, bool in_place) {
  return in_place ? mp_graph_inplace_bound(g, 16) : mp_graph_lower_bound(g, 16);
}

/* Search g's model's orders; check the order is valid and that the graph
 * built in it has the bound found.  Returns the result, *order kept. */
static mp_order_result search(const mp_model *m, bool in_place, uint64_t budget, uint32_t *order) {
  mp_graph *g = graph(m, NULL, in_place);
  mp_order_result r;
  assert_int_equal(mp_order_search(g, 16, in_place, budget, order, &r), MP_OK);
  assert_true(r.searched);
  /* the search's own figure for the model's order is the library's */
  assert_int_equal(r.model_bound, bound(g, in_place));
  assert_true(r.bound <= r.model_bound);
  char why[240];
  assert_true(mp_order_check(g, why, sizeof why));
  mp_graph *h = graph(m, order, in_place);
  if (!mp_order_check(h, why, sizeof why)) fail_msg("order refused: %s", why);
  assert_int_equal(bound(h, in_place), r.bound);
  assert_int_equal(h->reordered, r.moved > 0);
  uint32_t moved = 0;
  for (uint32_t p = 0; p < h->n_ops; p++) {
    assert_int_equal(h->ops[p].index, p);
    assert_int_equal(h->ops[p].model_index, order[p]);
    moved += order[p] != p;
  }
  assert_int_equal(moved, r.moved);
  mp_graph_free(&h);
  mp_graph_free(&g);
  return r;
}

static void two_branches_joined_by_add_run_the_narrow_branch_first(void **state) {
  (void)state;
  mp_model *m = fx_model("branch_add");
  uint32_t order[5];
  /* by hand (fixtures.c): 5120 in the model's order, 4672 at best */
  mp_order_result r = search(m, false, 0, order);
  assert_int_equal(r.model_bound, 5120);
  assert_int_equal(r.bound, 4672);
  assert_true(r.exact);
  /* op 2 (the narrow branch's first convolution) before op 1 */
  uint32_t at1 = 0, at2 = 0;
  for (uint32_t p = 0; p < 5; p++) {
    if (order[p] == 1) at1 = p;
    if (order[p] == 2) at2 = p;
  }
  assert_true(at2 < at1);
  assert_int_equal(order[4], 4);
  mp_model_free(&m);
}

static void branches_joined_by_concatenation_run_the_wide_intermediate_first(void **state) {
  (void)state;
  mp_model *m = fx_model("branch_concat");
  uint32_t order[5];
  mp_order_result r = search(m, false, 0, order);
  assert_int_equal(r.model_bound, 4672);
  assert_int_equal(r.bound, 4224);
  assert_true(r.exact);
  /* the one best order: branch B whole, then branch A */
  const uint32_t want[5] = {2, 3, 0, 1, 4};
  assert_memory_equal(order, want, sizeof want);
  assert_int_equal(r.moved, 4);
  /* in place too, and never above the tensor-level figure */
  mp_order_result ri = search(m, true, 0, order);
  assert_true(ri.bound < ri.model_bound);
  assert_true(ri.bound <= r.bound);
  mp_model_free(&m);
}

static void stateful_operators_keep_their_order_and_so_the_model_order_stays(void **state) {
  (void)state;
  /* branch_concat with ops 1 and 2 CUSTOM: they keep their order, and
   * with op 1 before op 2 no order is below the model's */
  mp_model *m = fx_model("branch_custom");
  uint32_t order[5];
  mp_order_result r = search(m, false, 0, order);
  assert_int_equal(r.model_bound, 4672);
  assert_int_equal(r.bound, 4672);
  assert_int_equal(r.moved, 0);
  assert_true(r.exact);
  for (uint32_t p = 0; p < 5; p++) assert_int_equal(order[p], p);
  mp_graph *g = graph(m, NULL, false);
  assert_true(mp_op_is_barrier(g, 1));
  assert_true(mp_op_is_barrier(g, 2));
  assert_false(mp_op_is_barrier(g, 0));
  mp_graph_free(&g);
  mp_model_free(&m);
  /* a persistent state tensor makes its operators barriers */
  m = fx_model("variable");
  g = graph(m, NULL, false);
  bool any = false;
  for (uint32_t o = 0; o < g->n_ops; o++) any |= mp_op_is_barrier(g, o);
  assert_true(any);
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void a_chain_keeps_its_order(void **state) {
  (void)state;
  const char *chains[] = {"tiny", "zero_size", "padded_block", "pad_conv_s16", "slices"};
  for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
    mp_model *m = fx_model(chains[i]);
    mp_graph *g = graph(m, NULL, false);
    uint32_t *order = calloc(g->n_ops, sizeof *order);
    for (int ip = 0; ip < 2; ip++) {
      mp_order_result r = search(m, ip, 0, order);
      assert_int_equal(r.moved, 0);
      assert_true(r.exact);
      for (uint32_t p = 0; p < g->n_ops; p++) assert_int_equal(order[p], p);
    }
    free(order);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
}

static void a_graph_without_operators_has_nothing_to_order(void **state) {
  (void)state;
  /* one tensor, both the graph's input and its output, and no operator */
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  int32_t t = (int32_t)mp_tfw_add_simple_tensor(w, "io", MP_DTYPE_INT8, 2, (const int32_t[]){1, 8});
  mp_tfw_set_io(w, 1, &t, 1, &t);
  mp_model *m = tu_written(w, "empty", NULL);
  mp_graph *g = graph(m, NULL, false);
  assert_int_equal(g->n_ops, 0);
  uint32_t order[1] = {0};
  mp_order_result r;
  assert_int_equal(mp_order_search(g, 16, false, 0, order, &r), MP_OK);
  assert_int_equal(r.moved, 0);
  assert_true(r.exact);
  assert_int_equal(r.bound, r.model_bound);
  char why[240];
  assert_true(mp_order_check(g, why, sizeof why));
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* ---- against every topological order of small graphs ------------------- */

typedef struct brute {
  const mp_model *m;
  uint32_t n;
  uint32_t *pred_mask; /* per op: bit k set when op k must run before it */
  uint32_t order[16];
  uint64_t best;
  uint64_t orders;
} brute;

static void enumerate(brute *b, uint32_t done, uint32_t k) {
  if (k == b->n) {
    mp_graph_options o = {.alias_views = true, .order = b->order};
    mp_graph *g = NULL;
    assert_int_equal(mp_graph_build(b->m, 0, &o, NULL, &g), MP_OK);
    uint64_t v = mp_graph_lower_bound(g, 16);
    if (v < b->best) b->best = v;
    b->orders++;
    mp_graph_free(&g);
    return;
  }
  for (uint32_t v = 0; v < b->n; v++) {
    if ((done >> v) & 1u || (b->pred_mask[v] & ~done)) continue;
    b->order[k] = v;
    enumerate(b, done | (1u << v), k + 1);
  }
}

static void the_search_finds_the_lowest_bound_of_every_topological_order(void **state) {
  (void)state;
  unsigned improved = 0, tested = 0;
  for (uint64_t seed = 1; seed <= 24; seed++) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fx_random(seed, 8, &bytes, &size), MP_OK);
    mp_model *m = NULL;
    assert_int_equal(mp_model_parse(bytes, size, "random", NULL, &m), MP_OK);
    free(bytes);
    mp_graph *g = NULL;
    assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
    uint32_t n = g->n_ops;
    assert_true(n <= 16);
    /* the dependences, by hand from the operators' tensor lists */
    uint32_t pm[16] = {0};
    for (uint32_t r = 0; r < n; r++)
      for (uint32_t k = 0; k < g->ops[r].def->n_inputs; k++) {
        int32_t t = g->ops[r].def->inputs[k];
        for (uint32_t w = 0; t >= 0 && w < n; w++)
          for (uint32_t q = 0; q < g->ops[w].def->n_outputs; q++)
            if (g->ops[w].def->outputs[q] == t && w != r) pm[r] |= 1u << w;
      }
    brute b = {m, n, pm, {0}, UINT64_MAX, 0};
    enumerate(&b, 0, 0);
    mp_order_result r;
    uint32_t order[16];
    assert_int_equal(mp_order_search(g, 16, false, 0, order, &r), MP_OK);
    assert_true(r.exact);
    assert_int_equal(r.bound, b.best);
    assert_true(b.orders >= 1);
    improved += r.bound < r.model_bound;
    tested++;
    mp_graph_free(&g);
    mp_model_free(&m);
  }
  /* the random graphs branch: some gain from reordering */
  print_message("  %u of %u random graphs have a better order\n", improved, tested);
  assert_true(improved >= 1);
}

static void a_small_budget_still_gives_a_valid_order_never_worse(void **state) {
  (void)state;
  static const struct { uint64_t seed; uint32_t ops; } cases[] = {{3, 60}, {7, 240}, {11, 400}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fx_random(cases[i].seed, cases[i].ops, &bytes, &size), MP_OK);
    mp_model *m = NULL;
    assert_int_equal(mp_model_parse(bytes, size, "random", NULL, &m), MP_OK);
    free(bytes);
    uint32_t *order = calloc(cases[i].ops + 1, sizeof *order);
    mp_order_result wide = search(m, false, 0, order);
    mp_order_result narrow = search(m, false, 64, order);
    /* a one-state-per-step beam is a greedy walk: no better than the full search */
    mp_order_result one = search(m, false, 1, order);
    assert_true(narrow.bound <= narrow.model_bound);
    assert_true(one.bound <= one.model_bound);
    if (wide.exact) assert_true(wide.bound <= narrow.bound && wide.bound <= one.bound);
    /* the same inputs give the same order */
    uint32_t *again = calloc(cases[i].ops + 1, sizeof *again);
    search(m, false, 64, again);
    search(m, false, 64, order);
    assert_memory_equal(order, again, cases[i].ops * sizeof *order);
    free(again);
    free(order);
    mp_model_free(&m);
  }
}

/* ---- the verifier ------------------------------------------------------- */

static mp_platform platform(void) {
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  return pf;
}

static void the_verifier_refuses_an_order_that_breaks_a_dependence_or_a_barrier(void **state) {
  (void)state;
  mp_platform pf = platform();
  mp_memory_args a = {.planner = (char *)"greedy", .allocate_arenas = true};
  char why[240];
  /* branch_add with its ADD first: reads tensors not yet written */
  mp_model *m = fx_model("branch_add");
  const uint32_t bad[5] = {4, 0, 1, 2, 3};
  mp_graph *g = graph(m, bad, false);
  assert_false(mp_order_check(g, why, sizeof why));
  assert_non_null(strstr(why, "reads tensor"));
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "operator order is not valid"));
  mp_plan_free(&p);
  mp_graph_free(&g);
  /* a valid order verifies */
  const uint32_t good[5] = {2, 0, 1, 3, 4};
  g = graph(m, good, false);
  assert_true(mp_order_check(g, why, sizeof why));
  assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  /* the plan's lifetimes are checked against the order run: a lifetime
   * of the model's order is refused in this one */
  mp_graph *model = graph(m, NULL, false);
  mp_lifetime *saved = p->lifetimes;
  p->lifetimes = model->storage;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  p->lifetimes = saved;
  mp_graph_free(&model);
  mp_plan_free(&p);
  mp_graph_free(&g);
  mp_model_free(&m);
  /* branch_custom with its CUSTOM ops swapped: topological, but the
   * stateful operators run out of model order */
  m = fx_model("branch_custom");
  const uint32_t swapped[5] = {0, 2, 1, 3, 4};
  g = graph(m, swapped, false);
  assert_false(mp_order_check(g, why, sizeof why));
  assert_non_null(strstr(why, "side effects or state"));
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void a_bad_order_is_refused_by_the_graph(void **state) {
  (void)state;
  mp_model *m = fx_model("branch_add");
  const uint32_t dup[5] = {0, 0, 1, 2, 3};
  mp_graph_options o = {.alias_views = true, .order = dup};
  mp_graph *g = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_not_equal(mp_graph_build(m, 0, &o, &d.sink, &g), MP_OK);
  assert_null(g);
  assert_true(tu_diags_has(&d, "not a permutation"));
  mp_model_free(&m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_branches_joined_by_add_run_the_narrow_branch_first),
      cmocka_unit_test(branches_joined_by_concatenation_run_the_wide_intermediate_first),
      cmocka_unit_test(stateful_operators_keep_their_order_and_so_the_model_order_stays),
      cmocka_unit_test(a_chain_keeps_its_order),
      cmocka_unit_test(a_graph_without_operators_has_nothing_to_order),
      cmocka_unit_test(the_search_finds_the_lowest_bound_of_every_topological_order),
      cmocka_unit_test(a_small_budget_still_gives_a_valid_order_never_worse),
      cmocka_unit_test(the_verifier_refuses_an_order_that_breaks_a_dependence_or_a_barrier),
      cmocka_unit_test(a_bad_order_is_refused_by_the_graph),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
