/*
 * test_rewrite.c — PAD folding (mp_graph_options.fold_pads, on with
 * memory.in_place): which PADs fold and which must not, what the graph
 * then holds (the PAD touches nothing, the convolution reads the PAD's
 * input), the geometry the convolution's kernel gets, the bounds, and the
 * padded MobileNetV2 block's plans.
 *
 * That the folded modules give the unfolded modules' bytes is
 * tests/suite_rewrite.sh's job (it runs them); this file uses memplan's
 * own fixtures, so it never skips.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "lower.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct built {
  mp_model *m;
  mp_graph *g;
} built;

static void build(built *b, const char *fixture, bool fold, mp_target target) {
  memset(b, 0, sizeof *b);
  b->m = fx_model(fixture);
  assert_non_null(b->m);
  mp_graph_options o = {.alias_views = true, .fold_pads = fold};
  assert_int_equal(mp_graph_build(b->m, 0, &o, NULL, &b->g), MP_OK);
  b->g->target = target;
  assert_int_equal(mp_kernels_prepare(b->g, false, NULL), MP_OK);
}

static void unbuild(built *b) {
  mp_graph_free(&b->g);
  mp_model_free(&b->m);
}

/* pad_conv (fixtures.c): the PADs of ops 0, 2, 4 and 13 fold into ops 1,
 * 3, 5 and 14; op 6 (PADV2 with 7, not the zero point), op 8 (its output
 * is a graph output) and op 10 (two convolutions read its output) stay. */
static const int32_t into[15] = {1, -1, 3, -1, 5, -1, -1, -1, -1, -1, -1, -1, -1, 14, -1};

static void pads_fold_exactly_where_the_conditions_hold_and_only_when_asked(void **state) {
  (void)state;
  built off, on;
  build(&off, "pad_conv", false, MP_TARGET_GENERIC);
  build(&on, "pad_conv", true, MP_TARGET_GENERIC);
  assert_int_equal(off.g->n_ops, 15);
  assert_int_equal(off.g->n_folded_pads, 0);
  assert_int_equal(on.g->n_folded_pads, 4);
  for (uint32_t o = 0; o < 15; o++) {
    assert_int_equal(off.g->ops[o].folded_into, -1);
    assert_int_equal(off.g->ops[o].folded_pad, -1);
    assert_int_equal(on.g->ops[o].folded_into, into[o]);
    if (into[o] >= 0) {
      assert_true(on.g->ops[o].is_view);
      assert_int_equal(on.g->ops[into[o]].folded_pad, (int32_t)o);
    }
    /* a PAD that does not fold still runs its kernel */
    if (into[o] < 0 && (on.g->ops[o].builtin_code == 34 || on.g->ops[o].builtin_code == 60))
      assert_false(on.g->ops[o].is_view);
  }
  unbuild(&off);
  unbuild(&on);
}

static void a_folded_pad_touches_nothing_and_its_convolution_reads_the_pads_input(void **state) {
  (void)state;
  built off, on;
  build(&off, "pad_conv", false, MP_TARGET_GENERIC);
  build(&on, "pad_conv", true, MP_TARGET_GENERIC);
  uint64_t padded = 0;
  for (uint32_t o = 0; o < 15; o++) {
    if (into[o] < 0) continue;
    const mp_op *pad = &on.g->ops[o], *conv = &on.g->ops[into[o]];
    int32_t in = pad->inputs[0], out = pad->outputs[0], paddings = pad->inputs[1];
    assert_int_equal(conv->inputs[0], in);
    assert_int_equal(off.g->ops[into[o]].inputs[0], out); /* the model is untouched */
    assert_int_equal(conv->inputs[1], off.g->ops[into[o]].inputs[1]);
    assert_false(on.g->tensors[out].used);
    assert_false(mp_graph_needs_slot(on.g, (uint32_t)out));
    assert_int_equal(on.g->tensors[out].producer, -1);
    assert_false(on.g->tensors[paddings].used);
    assert_true(off.g->tensors[paddings].used);
    /* the input now lives until the convolution, and no longer */
    assert_int_equal(off.g->storage[in].end_op, (int32_t)o);
    assert_int_equal(on.g->storage[in].end_op, into[o]);
    padded += off.g->tensors[out].size;
  }
  assert_int_equal(padded, 11 * 13 * 4 + 10 * 12 * 6 + 6 * 9 * 6 + 7 * 11 * 4);
  /* the lower bound never rises: each padded copy is larger than its input */
  assert_true(mp_graph_lower_bound(on.g, 16) <= mp_graph_lower_bound(off.g, 16));
  unbuild(&off);
  unbuild(&on);
}

static mpk_conv_geom geom_of(const mp_graph *g, uint32_t op, mp_kernel *k) {
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(g, op, &lo, NULL), MP_OK);
  assert_true(lo.supported);
  *k = lo.kernel;
  mpk_conv_geom gm = lo.kernel == MP_K_CONV2D_S8_IM2COL || lo.kernel == MP_K_CONV2D_S8_1X1 ||
                             lo.kernel == MP_K_DEPTHWISE_CONV2D_S8_FAST
                         ? lo.params.conv_s8_fast.geom
                         : lo.params.conv_s8.geom;
  mp_lower_free(&lo);
  return gm;
}

static void the_convolution_takes_the_pads_rows_and_columns_as_its_own_padding(void **state) {
  (void)state;
  built b;
  build(&b, "pad_conv", true, MP_TARGET_GENERIC);
  mp_kernel k;
  /* op 1: VALID 3x3 after PAD (1,1,1,1): the input's own 9x11, padding 1 */
  mpk_conv_geom g = geom_of(b.g, 1, &k);
  assert_int_equal(k, MP_K_CONV2D_S8);
  assert_int_equal(g.in_h, 9);
  assert_int_equal(g.in_w, 11);
  assert_int_equal(g.pad_h, 1);
  assert_int_equal(g.pad_w, 1);
  assert_int_equal(g.out_h, 9);
  assert_int_equal(g.out_w, 11);
  /* op 3: stride 2 VALID after PAD (0,1,0,1): bottom / right only */
  g = geom_of(b.g, 3, &k);
  assert_int_equal(k, MP_K_DEPTHWISE_CONV2D_S8);
  assert_int_equal(g.in_h, 9);
  assert_int_equal(g.in_w, 11);
  assert_int_equal(g.pad_h, 0);
  assert_int_equal(g.pad_w, 0);
  assert_int_equal(g.out_h, 4);
  assert_int_equal(g.out_w, 5);
  /* op 5: SAME, dilation 2 on the padded 6x9 (its own padding 2, 2) after
   * PAD (2,0,1,3): the unpadded 4x5 with padding 4, 3 */
  g = geom_of(b.g, 5, &k);
  assert_int_equal(g.in_h, 4);
  assert_int_equal(g.in_w, 5);
  assert_int_equal(g.pad_h, 2 + 2);
  assert_int_equal(g.pad_w, 2 + 1);
  assert_int_equal(g.out_h, 6);
  assert_int_equal(g.out_w, 9);
  /* op 14: a 1x1 convolution after PAD (0,1,0,2): output 7x11 from 6x9 */
  g = geom_of(b.g, 14, &k);
  assert_int_equal(g.in_h, 6);
  assert_int_equal(g.in_w, 9);
  assert_int_equal(g.pad_h, 0);
  assert_int_equal(g.pad_w, 0);
  assert_int_equal(g.out_h, 7);
  assert_int_equal(g.out_w, 11);
  unbuild(&b);
  /* on a Cortex-M target the 1x1 convolution with padding at the bottom /
   * right is no direct 1x1 (which reads one input pixel per output pixel) */
  build(&b, "pad_conv", true, MP_TARGET_CORTEX_M55);
  g = geom_of(b.g, 14, &k);
  assert_int_equal(k, MP_K_CONV2D_S8_IM2COL);
  assert_int_equal(g.out_h, 7);
  unbuild(&b);
  build(&b, "padded_block", true, MP_TARGET_CORTEX_M55);
  geom_of(b.g, 0, &k);
  assert_int_equal(k, MP_K_CONV2D_S8_1X1);
  unbuild(&b);
}

static void the_folded_pads_op_lowers_to_nothing(void **state) {
  (void)state;
  built b;
  build(&b, "pad_conv_f32", true, MP_TARGET_GENERIC);
  assert_int_equal(b.g->n_folded_pads, 2);
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(b.g, 0, &lo, NULL), MP_OK);
  assert_true(lo.supported);
  assert_true(lo.noop);
  assert_null(lo.fn);
  mp_lower_free(&lo);
  assert_int_equal(mp_lower_op(b.g, 1, &lo, NULL), MP_OK);
  assert_int_equal(lo.kernel, MP_K_DEPTHWISE_CONV2D_F32);
  assert_int_equal(lo.params.conv_f32.geom.pad_h, 1);
  assert_int_equal(lo.params.conv_f32.geom.pad_w, 2);
  assert_int_equal(lo.params.conv_f32.geom.in_h, 8);
  mp_lower_free(&lo);
  unbuild(&b);
}

static void random_graphs_with_pads_on_their_last_axis_fold_nothing(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fx_random(seed, 200, &bytes, &size), MP_OK);
    mp_model *m = NULL;
    mp_graph *g = NULL;
    assert_int_equal(mp_model_parse(bytes, size, "r.tflite", NULL, &m), MP_OK);
    mp_graph_options o = {.alias_views = true, .fold_pads = true};
    assert_int_equal(mp_graph_build(m, 0, &o, NULL, &g), MP_OK);
    assert_int_equal(g->n_folded_pads, 0);
    for (uint32_t i = 0; i < g->n_ops; i++) assert_int_equal(g->ops[i].folded_into, -1);
    mp_graph_free(&g);
    mp_model_free(&m);
    free(bytes);
  }
}

static const mp_arena *scratch_arena(const mp_plan *p) {
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == MP_ROLE_SCRATCH) return &p->arenas[i];
  return NULL;
}

static void the_padded_block_needs_under_half_its_tensor_level_bound_with_every_planner(
    void **state) {
  (void)state;
  built off, on;
  build(&off, "padded_block", false, MP_TARGET_GENERIC);
  build(&on, "padded_block", true, MP_TARGET_GENERIC);
  const uint64_t bound = 150528 + 161472; /* the expansion and its padded copy */
  assert_int_equal(mp_graph_lower_bound(off.g, 16), bound);
  /* folded: the expansion and the depthwise output, 56x56x48 each */
  assert_int_equal(mp_graph_lower_bound(on.g, 16), 2 * 150528);
  assert_true(mp_graph_inplace_bound(on.g, 16) < mp_graph_inplace_bound(off.g, 16));
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  for (uint32_t k = 0; k < mp_planner_count(); k++) {
    mp_memory_args a;
    memset(&a, 0, sizeof a);
    char name[32];
    snprintf(name, sizeof name, "%s", mp_planner_at(k)->name);
    a.planner = name;
    a.allocate_arenas = true;
    a.in_place = true;
    mp_plan *p = NULL;
    assert_int_equal(mp_plan_build(on.g, &pf, &a, NULL, &p), MP_OK);
    assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
    const mp_arena *s = scratch_arena(p);
    /* no plan is below the depthwise output alone, or below the bound */
    assert_true(s->total_size >= 150528);
    assert_true(s->total_size >= s->inplace_bound);
    assert_true(s->total_size * 2 <= bound);
    mp_plan_free(&p);
  }
  unbuild(&off);
  unbuild(&on);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pads_fold_exactly_where_the_conditions_hold_and_only_when_asked),
      cmocka_unit_test(a_folded_pad_touches_nothing_and_its_convolution_reads_the_pads_input),
      cmocka_unit_test(the_convolution_takes_the_pads_rows_and_columns_as_its_own_padding),
      cmocka_unit_test(the_folded_pads_op_lowers_to_nothing),
      cmocka_unit_test(random_graphs_with_pads_on_their_last_axis_fold_nothing),
      cmocka_unit_test(the_padded_block_needs_under_half_its_tensor_level_bound_with_every_planner),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
