/*
 * test_views.c — sub-tensor views and elided concatenations
 * (mp_graph_options.sub_views, on with memory.in_place): which SPLIT,
 * SPLIT_V, UNPACK, SLICE, STRIDED_SLICE, CONCATENATION and PACK operators
 * become views and which must not, where each view lies in its root (the
 * offsets are worked out here by hand from the fixtures' shapes), that
 * every planner's plan of them verifies, and that the verifier rejects a
 * view placed anywhere but where its operator's geometry puts it, even
 * when the plan's own alias record agrees with the wrong place.
 *
 * That the modules give the bytes of the modules without views is
 * tests/suite_rewrite.sh's job (it runs them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "graph/inplace.h"
#include "lower/lower.h"
#include "graph/rewrite.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct built {
  mp_model *m;
  mp_graph *g;
} built;

/* views: 0 none; 1 as mp_graph_build makes them (selected by the in-place
 * bound); 2 every view that can be made. */
static void build(built *b, const char *fixture, int views) {
  memset(b, 0, sizeof *b);
  b->m = fx_model(fixture);
  assert_non_null(b->m);
  mp_graph_options o = {.alias_views = true, .sub_views = views == 1};
  assert_int_equal(mp_graph_build(b->m, 0, &o, NULL, &b->g), MP_OK);
  if (views == 2) assert_int_equal(mp_graph_views(b->g, false, true), MP_OK);
  assert_int_equal(mp_kernels_prepare(b->g, false, NULL), MP_OK);
}

static void unbuild(built *b) {
  mp_graph_free(&b->g);
  mp_model_free(&b->m);
}

/* The tensor operator o writes (k-th output) or reads (k-th input). */
static int32_t out_of(const mp_graph *g, uint32_t o, uint32_t k) { return g->ops[o].outputs[k]; }
static int32_t in_of(const mp_graph *g, uint32_t o, uint32_t k) { return g->ops[o].inputs[k]; }

static void is_view_at(const mp_graph *g, int32_t t, int32_t root, uint64_t at) {
  assert_int_equal(g->tensors[t].alias_of, root);
  assert_int_equal(g->tensors[t].alias_offset, at);
  assert_int_equal(g->storage[t].start_op, g->storage[root].start_op);
  assert_int_equal(g->storage[t].end_op, g->storage[root].end_op);
}

/* views (fixtures.c): ops 1 (SPLIT rows), 3 (STRIDED_SLICE rows of a split
 * output), 6 and 11 (CONCATENATION rows) and 12 (SLICE rows) become views;
 * 8 (SPLIT_V channels), 9 (CONCATENATION channels), 10 (step 2) and 14 (a
 * concatenation of a split's views) do not.  Rows of [1,h,6,4] int8 are
 * 24 bytes. */
static void every_contiguous_copy_becomes_a_view_and_no_other(void **state) {
  (void)state;
  built b;
  build(&b, "views", 2);
  const mp_graph *g = b.g;
  const bool view[16] = {0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0};
  for (uint32_t o = 0; o < 16; o++) assert_int_equal(g->ops[o].is_view, view[o]);
  assert_int_equal(g->n_view_ops, 3);
  assert_int_equal(g->n_elided_concats, 2);
  int32_t a = out_of(g, 0, 0), cat = out_of(g, 6, 0), gg = out_of(g, 11, 0);
  is_view_at(g, out_of(g, 1, 0), a, 0);
  is_view_at(g, out_of(g, 1, 1), a, 4 * 24);
  is_view_at(g, out_of(g, 3, 0), a, 4 * 24 + 24); /* row 1 of the second half */
  is_view_at(g, in_of(g, 6, 0), cat, 0);
  is_view_at(g, in_of(g, 6, 1), cat, 4 * 24);
  is_view_at(g, in_of(g, 6, 2), cat, 6 * 24);
  is_view_at(g, in_of(g, 11, 0), gg, 0);
  is_view_at(g, in_of(g, 11, 1), gg, 5 * 24);
  is_view_at(g, out_of(g, 12, 0), gg, 0); /* the first 6 of 7 rows */
  assert_true(g->tensors[a].has_subviews && g->tensors[cat].has_subviews &&
              g->tensors[gg].has_subviews);
  /* the refusals keep their own storage (op 10's output, a copy, is then
   * an input of op 11's elided concatenation) */
  for (uint32_t o = 8; o <= 9; o++) assert_int_equal(g->tensors[out_of(g, o, 0)].alias_of, -1);
  assert_int_equal(g->tensors[out_of(g, 14, 0)].alias_of, -1);
  /* the elided concatenation's storage starts with its first input's
   * producer and lasts while any view is read (op 7 reads its input c1) */
  assert_int_equal(g->storage[cat].start_op, 2);
  assert_true(g->storage[cat].end_op >= 8);
  assert_int_equal(mp_view_copy_bytes(g), (4 + 4 + 2 + 10 + 7 + 6) * 24);
  unbuild(&b);
}

/* views_f32: UNPACK rows (96 bytes each), PACK of three ADDs, and a
 * STRIDED_SLICE of row 2 with the axis shrunk; the channel SPLIT and
 * CONCATENATION stay copies. */
static void unpack_pack_and_a_shrinking_slice_become_views(void **state) {
  (void)state;
  built b;
  build(&b, "views_f32", 2);
  const mp_graph *g = b.g;
  int32_t a = out_of(g, 0, 0), pk = out_of(g, 5, 0);
  for (uint32_t k = 0; k < 4; k++) is_view_at(g, out_of(g, 1, k), a, 96 * k);
  for (uint32_t k = 0; k < 3; k++) is_view_at(g, in_of(g, 5, k), pk, 96 * k);
  is_view_at(g, out_of(g, 10, 0), a, 2 * 96);
  assert_false(g->ops[7].is_view);
  assert_false(g->ops[8].is_view);
  assert_int_equal(g->n_view_ops, 2);
  assert_int_equal(g->n_elided_concats, 1);
  unbuild(&b);
}

/* Without sub_views nothing changes; with it mp_graph_build keeps a view
 * only where it does not raise the in-place bound: all of views_f32's
 * views raise it (the slice of row 2 keeps its 384-byte root alive until
 * the last operator), the selection does not. */
static void views_are_kept_only_where_they_do_not_raise_the_in_place_bound(void **state) {
  (void)state;
  built off, all, sel;
  build(&off, "views_f32", 0);
  build(&all, "views_f32", 2);
  build(&sel, "views_f32", 1);
  for (uint32_t o = 0; o < off.g->n_ops; o++)
    if (off.g->ops[o].builtin_code != FX_RESHAPE) assert_false(off.g->ops[o].is_view);
  assert_int_equal(off.g->n_view_ops + off.g->n_elided_concats, 0);
  uint64_t b_off = mp_graph_inplace_bound(off.g, 16), b_all = mp_graph_inplace_bound(all.g, 16),
           b_sel = mp_graph_inplace_bound(sel.g, 16);
  assert_true(b_sel <= b_off);
  assert_true(b_sel <= b_all);
  assert_true(b_all > b_off); /* so the choice matters */
  unbuild(&off);
  unbuild(&all);
  unbuild(&sel);
}

static mp_plan *plan_of(const mp_graph *g, const char *planner) {
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = tu_args(planner, true);
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
  return p;
}

static void every_planner_places_views_in_their_roots_and_the_plans_verify(void **state) {
  (void)state;
  const char *fx[] = {"views", "views_f32", "fire", "fire_f32"};
  for (int f = 0; f < 4; f++) {
    built b;
    build(&b, fx[f], 2);
    for (uint32_t k = 0; k < mp_planner_count(); k++) {
      mp_plan *p = plan_of(b.g, mp_planner_at(k)->name);
      tu_diags d;
      tu_diags_init(&d);
      assert_int_equal(mp_plan_verify(p, &d.sink), MP_OK);
      for (uint32_t t = 0; t < p->n_allocs; t++) {
        const mp_allocation *a = &p->allocs[t];
        if (!a->placed || a->alias_of < 0) continue;
        const mp_allocation *r = &p->allocs[a->alias_of];
        assert_int_equal(a->offset, r->offset + b.g->tensors[t].alias_offset);
        assert_int_equal(a->alias_offset, b.g->tensors[t].alias_offset);
        assert_true(a->offset + a->size <= r->offset + r->size);
        assert_int_equal(a->offset % a->align, 0);
      }
      mp_plan_free(&p);
    }
    unbuild(&b);
  }
}

/* A view moved by 4 bytes, with its alias record moved along so that the
 * plan agrees with itself: the verifier recomputes the place from the
 * operator and names it. */
static void the_verifier_rejects_a_view_moved_from_where_its_operator_puts_it(void **state) {
  (void)state;
  built b;
  build(&b, "views", 2);
  const int32_t moved[3] = {out_of(b.g, 1, 0), in_of(b.g, 6, 1), out_of(b.g, 12, 0)};
  const char *op[3] = {"operator 1 (SPLIT)", "operator 6 (CONCATENATION)", "operator 12 (SLICE)"};
  for (int i = 0; i < 3; i++) {
    mp_plan *p = plan_of(b.g, "greedy");
    mp_allocation *a = &p->allocs[moved[i]];
    a->offset += 4;
    a->binding.offset += 4;
    a->alias_offset += 4;
    a->align = 4; /* as aligned as such an offset allows */
    a->slot_size = (a->size + 3) / 4 * 4;
    tu_diags d;
    tu_diags_init(&d);
    assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
    assert_true(tu_diags_has(&d, op[i]));
    assert_true(tu_diags_has(&d, "but the plan puts it elsewhere"));
    mp_plan_free(&p);
  }
  unbuild(&b);
}

/* A root with sub-tensor views takes part in no in-place overlap: the
 * graph offers none, and the verifier refuses one. */
static void a_root_with_sub_views_takes_part_in_no_in_place_overlap(void **state) {
  (void)state;
  built b;
  build(&b, "views", 2);
  mp_inplace_pair *pairs = NULL;
  size_t n = 0;
  assert_int_equal(mp_inplace_pairs(b.g, &pairs, &n), MP_OK);
  for (size_t i = 0; i < n; i++) {
    assert_false(b.g->tensors[pairs[i].in].has_subviews);
    assert_false(b.g->tensors[pairs[i].out].has_subviews);
  }
  free(pairs);
  /* op 0's output (the split's root) placed over its input: refused */
  mp_plan *p = plan_of(b.g, "greedy");
  int32_t a = out_of(b.g, 0, 0), x = in_of(b.g, 0, 0);
  mp_allocation *ra = &p->allocs[a];
  int64_t shift = (int64_t)p->allocs[x].offset - (int64_t)ra->offset;
  for (uint32_t t = 0; t < p->n_allocs; t++)
    if (t == (uint32_t)a || p->allocs[t].alias_of == a) {
      p->allocs[t].offset = (uint64_t)((int64_t)p->allocs[t].offset + shift);
      p->allocs[t].binding.offset = p->allocs[t].offset;
    }
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "holds sub-tensor views"));
  mp_plan_free(&p);
  unbuild(&b);
}

/* heads: the last CONCATENATION's output is the graph output.  With
 * memory.io arena its inputs are written into it; with memory.io caller
 * (the application's own buffer) it stays a copy, and so does nothing else. */
static void a_graph_output_joins_a_view_only_when_it_lives_in_the_arena(void **state) {
  (void)state;
  for (int caller = 0; caller < 2; caller++) {
    mp_model *m = fx_model("heads");
    assert_non_null(m);
    mp_graph_options o = {.alias_views = true, .sub_views = true, .caller_io = caller == 1};
    mp_graph *g = NULL;
    assert_int_equal(mp_graph_build(m, 0, &o, NULL, &g), MP_OK);
    int32_t out = g->outputs[0];
    assert_int_equal(g->ops[9].is_view, caller == 0);
    assert_int_equal(g->n_elided_concats, caller == 0 ? 2 : 1);
    assert_int_equal(g->n_view_ops, 1);
    for (uint32_t t = 0; t < g->n_tensors; t++)
      if (g->tensors[t].alias_of == out) assert_int_equal(caller, 0);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
}

/* A strided view: rows of `row` bytes, `stride` apart, from byte `at` of root. */
static void is_strided_at(const mp_graph *g, int32_t t, int32_t root, uint64_t at, uint64_t row,
                          uint64_t stride) {
  is_view_at(g, t, root, at);
  assert_int_equal(g->tensors[t].alias_row, row);
  assert_int_equal(g->tensors[t].alias_stride, stride);
}

/* The output strides op o's lowered window kernel writes at. */
static mpk_conv_geom geom_of(const mp_graph *g, uint32_t o) {
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(g, o, &lo, NULL), MP_OK);
  assert_true(lo.supported);
  const mpk_conv_geom *w = mp_lower_window_geom(&lo);
  assert_non_null(w);
  mpk_conv_geom gm = *w;
  mp_lower_free(&lo);
  return gm;
}

/* fire, fire_f32 (fixtures.c): the channel concatenations 3 (two expands,
 * 12 + 12 of 24 channels) and 8 (a 1x1, a depthwise and an average pool:
 * 8 + 24 + 24 of 56) and the column concatenation 14 (6 + 6 of 12 columns
 * of 8 channels) are elided, their producers writing at output strides;
 * 11 is partly: its input u is written into it, its input c (read by op 10
 * too) is copied by the kernel, which still runs. */
static void concatenations_along_inner_axes_become_strided_views(void **state) {
  (void)state;
  for (int f = 0; f < 2; f++) {
    built b;
    build(&b, f ? "fire_f32" : "fire", 2);
    const mp_graph *g = b.g;
    const uint64_t e = f ? 4 : 1;
    for (uint32_t o = 0; o < g->n_ops; o++)
      assert_int_equal(g->ops[o].is_view, o == 3 || o == 8 || o == 14);
    assert_int_equal(g->n_elided_concats, 3);
    assert_int_equal(g->n_view_ops, 0);
    int32_t fire = out_of(g, 3, 0), inc = out_of(g, 8, 0), wide = out_of(g, 14, 0);
    is_strided_at(g, in_of(g, 3, 0), fire, 0, 12 * e, 24 * e);
    is_strided_at(g, in_of(g, 3, 1), fire, 12 * e, 12 * e, 24 * e);
    is_strided_at(g, in_of(g, 8, 0), inc, 0, 8 * e, 56 * e);
    is_strided_at(g, in_of(g, 8, 1), inc, 8 * e, 24 * e, 56 * e);
    is_strided_at(g, in_of(g, 8, 2), inc, 32 * e, 24 * e, 56 * e);
    is_strided_at(g, in_of(g, 14, 0), wide, 0, 6 * 8 * e, 12 * 8 * e);
    is_strided_at(g, in_of(g, 14, 1), wide, 6 * 8 * e, 6 * 8 * e, 12 * 8 * e);
    int32_t k11 = out_of(g, 11, 0);
    is_strided_at(g, in_of(g, 11, 0), k11, 0, 8 * e, 16 * e);
    assert_int_equal(g->tensors[in_of(g, 11, 1)].alias_of, -1);
    assert_int_equal(g->n_partial_concats, 1);
    {
      mp_lowered_op lo;
      assert_int_equal(mp_lower_op(g, 11, &lo, NULL), MP_OK);
      assert_int_equal(lo.kernel, MP_K_CONCAT);
      assert_non_null(lo.params.concat.in_place);
      assert_int_equal(lo.params.concat.in_place[0], 1);
      assert_int_equal(lo.params.concat.in_place[1], 0);
      mp_lower_free(&lo);
    }
    assert_true(g->tensors[fire].has_subviews && g->tensors[inc].has_subviews &&
                g->tensors[wide].has_subviews);
    /* the producers' strides, in elements: a pixel of the output for the
     * channel slices, an image row for the column slices */
    const uint32_t pixel_ops[6] = {1, 2, 5, 6, 7, 10};
    const int32_t pixel[6] = {24, 24, 56, 56, 56, 16};
    for (int i = 0; i < 6; i++) {
      mpk_conv_geom gm = geom_of(g, pixel_ops[i]);
      assert_int_equal(gm.out_pixel_stride, pixel[i]);
      assert_int_equal(gm.out_row_stride, 0);
      assert_int_equal(gm.out_batch_stride, 0);
    }
    for (uint32_t o = 12; o <= 13; o++) {
      mpk_conv_geom gm = geom_of(g, o);
      assert_int_equal(gm.out_pixel_stride, 0);
      assert_int_equal(gm.out_row_stride, 12 * 8);
    }
    /* and a producer outside an elided concatenation writes packed */
    mpk_conv_geom gm = geom_of(g, 9);
    assert_int_equal(gm.out_pixel_stride + gm.out_row_stride + gm.out_batch_stride, 0);
    assert_int_equal(mp_view_copy_bytes(g), (12 * 12 * 24 + 6 * 6 * 56 + 6 * 12 * 8 + 6 * 6 * 8) * e);
    unbuild(&b);
  }
}

/* A strided view moved by one element, or given another stride, with the
 * plan's alias record moved along: the verifier re-derives the rows from
 * the concatenation and names it. */
static void the_verifier_rejects_a_strided_view_off_its_rows(void **state) {
  (void)state;
  built b;
  build(&b, "fire", 2);
  for (int how = 0; how < 4; how++) {
    /* the last: the input a partly elided concatenation leaves in place */
    const int32_t t = how < 3 ? in_of(b.g, 8, 1) : in_of(b.g, 11, 0);
    mp_plan *p = plan_of(b.g, "greedy");
    tu_diags d;
    tu_diags_init(&d);
    assert_int_equal(mp_plan_verify(p, &d.sink), MP_OK);
    mp_allocation *a = &p->allocs[t];
    if (how == 0 || how == 3) {
      a->offset += 1;
      a->binding.offset += 1;
      a->alias_offset += 1;
      a->align = 1;
      a->slot_size = a->size;
    } else if (how == 1) {
      a->alias_stride += 8;
    } else {
      a->alias_row -= 8;
    }
    tu_diags_init(&d);
    assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
    assert_true(tu_diags_has(&d, how < 3 ? "operator 8 (CONCATENATION)" : "operator 11 (CONCATENATION)"));
    assert_true(tu_diags_has(&d, "but the plan puts it elsewhere"));
    mp_plan_free(&p);
  }
  /* a partly elided concatenation whose kernel would copy an input that is
   * already in its output (the graph's view record no longer the
   * lowering's slice): refused */
  mp_plan *p = plan_of(b.g, "greedy");
  const int32_t u = in_of(b.g, 11, 0);
  b.g->tensors[u].alias_row += 1;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "operator 11 (CONCATENATION) runs, but inputs of it are views of "
                               "its output that its kernel would copy"));
  b.g->tensors[u].alias_row -= 1;
  mp_plan_free(&p);
  unbuild(&b);
}

/* The reports give a strided view's rows: the residency JSON its
 * alias_row and alias_stride, the HTML map a rectangle over its rows'
 * span with both as attributes and a title in words. */
static void the_reports_give_a_strided_views_rows(void **state) {
  (void)state;
  built b;
  build(&b, "fire", 2);
  mp_plan *p = plan_of(b.g, "greedy");
  const int32_t t = in_of(b.g, 8, 1); /* rows of 24 bytes, 56 apart, from byte 8 */
  char *json = NULL, *html = NULL;
  assert_int_equal(mp_residency_json(p, "fx", &json), MP_OK);
  assert_int_equal(mp_report_html(p, "fx", &html), MP_OK);
  char key[200];
  snprintf(key, sizeof key, "\"alias_offset\": 8,\n      \"alias_row\": 24,\n      "
                            "\"alias_stride\": 56");
  assert_non_null(strstr(json, key));
  snprintf(key, sizeof key, "data-tensor=\"%d\" data-alias-of=\"%d\" data-alias-offset=\"8\"", t,
           out_of(b.g, 8, 0));
  const char *r = strstr(html, key);
  assert_non_null(r);
  assert_non_null(strstr(r, "data-alias-row=\"24\" data-alias-stride=\"56\""));
  assert_non_null(strstr(html, "a strided view: 36 rows of 24 bytes, 56 apart, from byte 8"));
  /* a view that is one run carries neither */
  free(json);
  free(html);
  mp_plan_free(&p);
  unbuild(&b);
  build(&b, "views", 2);
  p = plan_of(b.g, "greedy");
  assert_int_equal(mp_residency_json(p, "fx", &json), MP_OK);
  assert_int_equal(mp_report_html(p, "fx", &html), MP_OK);
  assert_null(strstr(json, "alias_row"));
  assert_null(strstr(html, "data-alias-row"));
  free(json);
  free(html);
  mp_plan_free(&p);
  unbuild(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_contiguous_copy_becomes_a_view_and_no_other),
      cmocka_unit_test(unpack_pack_and_a_shrinking_slice_become_views),
      cmocka_unit_test(views_are_kept_only_where_they_do_not_raise_the_in_place_bound),
      cmocka_unit_test(every_planner_places_views_in_their_roots_and_the_plans_verify),
      cmocka_unit_test(the_verifier_rejects_a_view_moved_from_where_its_operator_puts_it),
      cmocka_unit_test(a_root_with_sub_views_takes_part_in_no_in_place_overlap),
      cmocka_unit_test(a_graph_output_joins_a_view_only_when_it_lives_in_the_arena),
      cmocka_unit_test(concatenations_along_inner_axes_become_strided_views),
      cmocka_unit_test(the_verifier_rejects_a_strided_view_off_its_rows),
      cmocka_unit_test(the_reports_give_a_strided_views_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
