/*
 * test_patch.c — patch-based inference (memory.patch): a stage run tile by
 * tile gives the whole layers' bytes (also with its output over the input
 * rows no later tile reads), plans below the unpatched in-place plan, and
 * the verifier refuses tiles that miss a pixel, write one twice, read what
 * their tile did not write, or write input bytes a later tile reads; a
 * graph runs several stages one after the other, each checked alike.
 *
 * The tiled result is checked against the unpatched one by running the
 * reference kernels here, layer by layer on whole tensors and then tile by
 * tile with the calls the module makes (mp_patch_tile_call), on random
 * inputs; the emitted modules are compared against plain ones in
 * tests/suite_rewrite.sh and against TFLM in the conformance suite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "testutil.h"

#define MPK_API /* strong declarations: the kernels come from libmemplan.a */
#include "mpk.h"
#include "config/config.h"
#include "graph/patch.h"
#include "graph/storage.h"
#include "lower/lower.h"
#include "plan/verify_patch.h"

#include <stdlib.h>
#include <string.h>

typedef struct built {
  mp_model *m;
  mp_graph *g;
} built;

/* Net `name` built as memory.in_place builds it, patched on ops first ..
 * last with r x c tiles (no patch when r is 0); *st gets the patch's
 * status. */
static built build_for(const char *name, mp_target target, uint32_t first, uint32_t last,
                       uint32_t r, uint32_t c, tu_diags *d, mp_status *st) {
  built b = {fx_model(name), NULL};
  assert_non_null(b.m);
  mp_graph_options go = {.alias_views = true, .fold_pads = true, .sub_views = true,
                         .serial_depthwise = true};
  assert_int_equal(mp_graph_build(b.m, 0, &go, NULL, &b.g), MP_OK);
  b.g->target = target;
  assert_int_equal(mp_kernels_prepare(b.g, false, NULL), MP_OK);
  *st = r ? mp_graph_patch(b.g, first, last, r, c, d ? &d->sink : NULL) : MP_OK;
  return b;
}

static built build(const char *name, uint32_t first, uint32_t last, uint32_t r, uint32_t c,
                   tu_diags *d, mp_status *st) {
  return build_for(name, MP_TARGET_GENERIC, first, last, r, c, d, st);
}

static void unbuild(built *b) {
  mp_graph_free(&b->g);
  mp_model_free(&b->m);
}

static uint64_t plan_scratch(const mp_graph *g, mp_status *verified) {
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = tu_args("greedy", true);
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
  *verified = mp_plan_verify(p, NULL);
  uint64_t s = mp_plan_scratch_bytes(p);
  mp_plan_free(&p);
  return s;
}

static void a_patched_stage_plans_below_the_in_place_plan_and_verifies(void **state) {
  (void)state;
  mp_status st, v;
  built plain = build("mobilenet_v2_96_035", 0, 0, 0, 0, NULL, &st);
  uint64_t base = plan_scratch(plain.g, &v);
  assert_int_equal(v, MP_OK);
  built b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  assert_int_equal(st, MP_OK);
  const mp_patch *p = b.g->patch;
  assert_non_null(p);
  assert_int_equal(p->rows * p->cols, 9);
  assert_true(p->n_layers >= 10);
  /* the intermediates have no storage: only the tile buffers */
  for (uint32_t k = 1; k + 1 < p->n_tensors; k++)
    assert_false(mp_graph_needs_slot(b.g, (uint32_t)p->tensors[k].tensor));
  assert_true(mp_graph_needs_slot(b.g, (uint32_t)p->scratch_tensor));
  assert_true(p->macs_patched > p->macs); /* the halos cost arithmetic */
  uint64_t s = plan_scratch(b.g, &v);
  assert_int_equal(v, MP_OK);
  assert_true(s < base);
  unbuild(&b);
  unbuild(&plain);
}

/* One bank of 64 MiB (the 224x224 networks' platform in docs/INPLACE.md). */
static mp_platform one_bank(void) {
  mp_platform pf;
  mp_platform_init(&pf, "one_bank");
  static const char *const names[] = {"sram", "mram"};
  for (size_t i = 0; i < 2; i++) {
    mp_memory m;
    assert_true(mp_platform_find_memory(&pf, names[i], &m));
    pf.present[m] = true;
    pf.size[m] = (uint64_t)64 << 20;
  }
  mp_platform_default_order(&pf);
  return pf;
}

/* A patched graph's plan is asked down to its in-place bound: where the
 * requested planner (greedy) ends above it, the other planners lay the
 * arena out too.  The MobileNetV2 at 224x224 on three stages: greedy
 * leaves the 14x14 blocks after them at 188,160 bytes, hill_climb reaches
 * the bound. */
static void a_patched_plan_is_asked_down_to_its_in_place_bound(void **state) {
  (void)state;
  mp_status st;
  built b = build("mobilenet_v2_224", 0, 8, 16, 16, NULL, &st);
  assert_int_equal(st, MP_OK);
  assert_int_equal(mp_graph_patch(b.g, 9, 17, 4, 8, NULL), MP_OK);
  assert_int_equal(mp_graph_patch(b.g, 18, 31, 2, 3, NULL), MP_OK);
  mp_platform pf = one_bank();
  mp_memory_args a = tu_args("greedy", true);
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(b.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  uint64_t bound = mp_graph_inplace_bound(b.g, pf.min_alignment);
  assert_int_equal(bound, 163840);
  assert_int_equal(mp_plan_scratch_bytes(p), bound);
  assert_true(p->in_place_layout.requested_scratch > bound);
  assert_int_equal(p->in_place_layout.inplace_bound, bound);
  assert_string_equal(p->in_place_layout.planner, "hill_climb");
  mp_plan_free(&p);
  unbuild(&b);
  /* unpatched, the tensor-level bound stays the mark: greedy's layout kept */
  built plain = build("mobilenet_v2_224", 0, 0, 0, 0, NULL, &st);
  assert_int_equal(mp_plan_build(plain.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(p->in_place_layout.inplace_bound, 0);
  assert_int_equal(p->in_place_layout.planner[0], 0);
  mp_plan_free(&p);
  unbuild(&plain);
}

/* memory.patch auto refines the kept stages' grids by the plan: on the
 * MobileNetV2 at 224x224 it reaches the bound of 163,840 bytes (the
 * whole input beside the first stage's tile buffers) with greedy
 * requested, and no grid of the refinement's with fewer
 * multiply-accumulates plans as small. */
static void auto_refines_the_grids_by_the_plan(void **state) {
  (void)state;
  mp_status st;
  built b = build("mobilenet_v2_224", 0, 0, 0, 0, NULL, &st);
  mp_platform pf = one_bank();
  mp_memory_args a = tu_args("greedy", true);
  mp_graph *pg = NULL;
  assert_int_equal(mp_patch_search(b.g, &pf, &a, false, &pg), MP_OK);
  assert_non_null(pg);
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(pg, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  assert_true(mp_plan_scratch_bytes(p) <= 163840);
  mp_plan_free(&p);
  uint64_t extra = 0;
  uint32_t n = 0;
  for (const mp_patch *q = pg->patch; q; q = q->next, n++) extra += q->macs_patched - q->macs;
  assert_true(n >= 2);
  /* at most 13 % more multiply-accumulates than the model's */
  assert_true(extra * 100 <= pg->patch->model_macs * 13);
  mp_graph_free(&pg);
  unbuild(&b);
}

/* memory.patch auto patches copies of one build (mp_graph_clone), its
 * lowerings kept (mp_patch_memo): a copy patched on two stages holds what
 * a build patched alike holds (tensors, operators, overlap contracts,
 * storage, the stages' figures and plan), and the graph copied stays as
 * it was. */
static void a_copy_patched_is_a_build_patched(void **state) {
  (void)state;
  mp_status st, v;
  built a = build("mobilenet_v2_96_035", 0, 8, 12, 12, NULL, &st);
  assert_int_equal(st, MP_OK);
  assert_int_equal(mp_graph_patch(a.g, 9, 16, 2, 2, NULL), MP_OK);
  built b = build("mobilenet_v2_96_035", 0, 0, 0, 0, NULL, &st);
  uint32_t nt = b.g->n_tensors, nv = b.g->n_overlaps;
  mp_op *ops = malloc(b.g->n_ops * sizeof *ops);
  mp_overlap *ov = malloc(nv * sizeof *ov);
  assert_true(ops && ov);
  memcpy(ops, b.g->ops, b.g->n_ops * sizeof *ops);
  memcpy(ov, b.g->overlaps, nv * sizeof *ov);
  /* a first copy patched on other grids fills the memo the second reuses */
  mp_patch_memo *memo = NULL;
  assert_int_equal(mp_patch_memo_new(b.g, &memo), MP_OK);
  mp_graph *c = NULL;
  assert_int_equal(mp_graph_clone(b.g, &c), MP_OK);
  assert_int_equal(mp_graph_patch_memo(c, 0, 8, 3, 3, NULL, memo), MP_OK);
  assert_int_equal(mp_graph_patch_memo(c, 9, 16, 3, 4, NULL, memo), MP_OK);
  mp_graph_free(&c);
  assert_int_equal(mp_graph_clone(b.g, &c), MP_OK);
  assert_int_equal(mp_graph_patch_memo(c, 0, 8, 12, 12, NULL, memo), MP_OK);
  assert_int_equal(mp_graph_patch_memo(c, 9, 16, 2, 2, NULL, memo), MP_OK);
  /* the copy patched: as the build patched */
  assert_int_equal(c->n_tensors, a.g->n_tensors);
  assert_int_equal(c->n_overlaps, a.g->n_overlaps);
  for (uint32_t i = 0; i < c->n_overlaps; i++) {
    const mp_overlap *x = &c->overlaps[i], *y = &a.g->overlaps[i];
    assert_true(x->op == y->op && x->input == y->input && x->output == y->output &&
                x->min_gap == y->min_gap && x->period == y->period);
  }
  assert_memory_equal(c->storage, a.g->storage, c->n_tensors * sizeof *c->storage);
  for (uint32_t t = 0; t < c->n_tensors; t++) {
    const mp_tensor *x = &c->tensors[t], *y = &a.g->tensors[t];
    assert_string_equal(x->name, y->name);
    assert_true(x->size == y->size && x->role == y->role && x->used == y->used &&
                x->producer == y->producer && x->alias_of == y->alias_of &&
                x->local_op == y->local_op && x->align_hint == y->align_hint);
    assert_memory_equal(&x->lifetime, &y->lifetime, sizeof x->lifetime);
  }
  for (uint32_t o = 0; o < c->n_ops; o++) {
    const mp_op *x = &c->ops[o], *y = &a.g->ops[o];
    assert_true(x->folded_into == y->folded_into && x->is_view == y->is_view &&
                x->patch_head == y->patch_head && x->channel_serial == y->channel_serial &&
                x->n_outputs == y->n_outputs);
    for (uint32_t k = 0; k < x->n_outputs; k++) assert_int_equal(x->outputs[k], y->outputs[k]);
  }
  assert_int_equal(c->n_serial_ops, a.g->n_serial_ops);
  const mp_patch *p = c->patch, *q = a.g->patch;
  for (; p && q; p = p->next, q = q->next) {
    assert_true(p->scratch_bytes == q->scratch_bytes && p->macs_patched == q->macs_patched &&
                p->model_macs == q->model_macs && p->out_gap == q->out_gap &&
                p->scratch_tensor == q->scratch_tensor);
    for (uint32_t l = 0; l < p->n_layers; l++)
      assert_int_equal(p->layers[l].run_kernel, q->layers[l].run_kernel);
  }
  assert_true(!p && !q);
  assert_int_equal(plan_scratch(c, &v), plan_scratch(a.g, &st));
  assert_int_equal(v, MP_OK);
  /* the graph copied: untouched */
  assert_null(b.g->patch);
  assert_int_equal(b.g->n_tensors, nt);
  assert_int_equal(b.g->n_overlaps, nv);
  assert_memory_equal(b.g->ops, ops, b.g->n_ops * sizeof *ops);
  assert_memory_equal(b.g->overlaps, ov, nv * sizeof *ov);
  /* a patched graph is not copied */
  mp_graph *d = NULL;
  assert_int_equal(mp_graph_clone(c, &d), MP_ERR_INTERNAL);
  assert_null(d);
  mp_graph_free(&c);
  /* a memo of another target's build is not used: a Cortex-M55 stage
   * calls its own kernels */
  built m = build_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 0, 8, 12, 12, NULL, &st);
  assert_int_equal(st, MP_OK);
  mp_graph_options go = {.alias_views = true, .fold_pads = true, .sub_views = true,
                         .serial_depthwise = true};
  mp_graph *n = NULL; /* of the model the memo's build is of */
  assert_int_equal(mp_graph_build(b.m, 0, &go, NULL, &n), MP_OK);
  n->target = MP_TARGET_CORTEX_M55;
  assert_int_equal(mp_kernels_prepare(n, false, NULL), MP_OK);
  assert_int_equal(mp_graph_patch_memo(n, 0, 8, 12, 12, NULL, memo), MP_OK);
  for (uint32_t l = 0; l < m.g->patch->n_layers; l++)
    assert_int_equal(n->patch->layers[l].run_kernel, m.g->patch->layers[l].run_kernel);
  assert_int_not_equal(n->patch->layers[0].run_kernel, a.g->patch->layers[0].run_kernel);
  mp_patch_memo_free(&memo);
  mp_graph_free(&n);
  unbuild(&m);
  free(ops);
  free(ov);
  unbuild(&a);
  unbuild(&b);
}

/* ---- running the stage on the host ---------------------------------------- */

static int32_t run_layer(const mp_lowered_op *lo, const mp_kparams *kp, const void *in1,
                         const void *in2, const mp_graph *g, void *out, void *scratch) {
  const void *w = NULL, *bias = NULL;
  uint32_t nc = 0;
  for (uint32_t k = 0; k < lo->n_args; k++) {
    int32_t t = lo->args[k].tensor;
    if (t < 0 || lo->args[k].is_output || g->tensors[t].role != MP_ROLE_CONSTANT) continue;
    if (nc++ == 0)
      w = g->tensors[t].data;
    else
      bias = g->tensors[t].data;
  }
  switch (lo->kernel) {
  case MP_K_CONV2D_S8: return mpk_conv2d_s8(&kp->conv_s8, in1, w, bias, out, NULL);
  case MP_K_DEPTHWISE_CONV2D_S8: return mpk_depthwise_conv2d_s8(&kp->conv_s8, in1, w, bias, out, NULL);
  case MP_K_CONV2D_F32: return mpk_conv2d_f32(&kp->conv_f32, in1, w, bias, out, NULL);
  case MP_K_DEPTHWISE_CONV2D_F32:
    return mpk_depthwise_conv2d_f32(&kp->conv_f32, in1, w, bias, out, NULL);
  case MP_K_ADD_S8: return mpk_add_s8(&kp->add_s8, in1, in2, out, NULL);
  case MP_K_ADD_F32: return mpk_add_f32(&kp->add_f32, in1, in2, out, NULL);
  /* the specialised kernels a Cortex-M stage calls (their portable paths) */
  case MP_K_CONV2D_S8_1X1: return mpk_conv2d_s8_1x1(&kp->conv_s8_fast, in1, w, bias, out, scratch);
  case MP_K_CONV2D_S8_IM2COL:
    return mpk_conv2d_s8_im2col(&kp->conv_s8_fast, in1, w, bias, out, scratch);
  case MP_K_DEPTHWISE_CONV2D_S8_FAST:
    return mpk_depthwise_conv2d_s8_fast(&kp->conv_s8_fast, in1, w, bias, out, scratch);
  case MP_K_ADD_S8_FAST: return mpk_add_s8_fast(&kp->add_s8, in1, in2, out, scratch);
  default: fail_msg("kernel %s not run by this test", lo->fn); return 1;
  }
}

static size_t bytes_of(const mp_patch_tensor *x) {
  return (size_t)x->h * (size_t)x->w * (size_t)x->c * (size_t)x->elem;
}

/* The stage of `name` whole and tiled on the same random input: equal
 * output bytes.  over_input: the tiled run's output lies over its input
 * in one buffer, as far below it as the stage's overlap contract allows. */
static void stage_run(const built *bb, const mp_patch *p, bool over_input) {
  built b = *bb;
  mp_lowered_op *lo = calloc(p->n_layers, sizeof *lo), *run = calloc(p->n_layers, sizeof *run);
  assert_non_null(run);
  uint8_t **whole = calloc(p->n_tensors, sizeof *whole);
  assert_non_null(lo);
  assert_non_null(whole);
  for (uint32_t k = 0; k < p->n_tensors; k++) {
    whole[k] = malloc(bytes_of(&p->tensors[k]));
    assert_non_null(whole[k]);
  }
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < bytes_of(&p->tensors[0]); i++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    whole[0][i] = (uint8_t)(seed >> 56);
  }
  if (p->tensors[0].elem == 4) /* float32: finite values */
    for (size_t i = 0; i < bytes_of(&p->tensors[0]) / 4; i++)
      ((float *)whole[0])[i] = (float)((int)(whole[0][i * 4] % 200) - 100) / 50.0f;
  for (uint32_t l = 0; l < p->n_layers; l++) {
    assert_int_equal(mp_patch_lower_layer(b.g, p, l, &lo[l]), MP_OK);
    assert_int_equal(mp_patch_lower_run(b.g, p, l, &run[l]), MP_OK);
    /* the module calls the function of the kernel run here */
    assert_string_equal(run[l].fn, mp_kernel_fn(run[l].kernel));
    const mp_patch_layer *ly = &p->layers[l];
    assert_int_equal(run_layer(&lo[l], &lo[l].params, whole[ly->in[0]],
                               ly->n_in > 1 ? whole[ly->in[1]] : NULL, b.g, whole[l + 1], NULL),
                     MPK_OK);
  }
  /* tiled: the stage input whole, the output written tile by tile over
   * garbage, each intermediate in its tile buffer */
  size_t ny = bytes_of(&p->tensors[p->n_tensors - 1]), nx = bytes_of(&p->tensors[0]);
  uint8_t *tiles = malloc(p->scratch_bytes + 1), *shared = NULL, *out, *in = whole[0];
  assert_non_null(tiles);
  if (over_input) {
    /* input at base + gap, output at base: the output's first bytes below
     * the input, the rest over it */
    assert_true(p->has_out_gap);
    assert_true(p->out_gap > 0 && (size_t)p->out_gap < nx);
    size_t d = (size_t)p->out_gap, n = d + nx > ny ? d + nx : ny;
    shared = malloc(n);
    assert_non_null(shared);
    memset(shared, 0xa5, n);
    memcpy(shared + d, whole[0], nx);
    out = shared;
    in = shared + d;
  } else {
    out = malloc(ny);
    assert_non_null(out);
    memset(out, 0xa5, ny);
  }
  for (uint32_t t = 0; t < p->n_tiles; t++) {
    memset(tiles, 0x5a, p->scratch_bytes + 1);
    for (uint32_t l = 0; l < p->n_layers; l++) {
      const mp_patch_layer *ly = &p->layers[l];
      mp_patch_call call;
      mp_patch_tile_call(p, t, l, &call);
      if (call.skip) continue;
      int32_t e = p->tensors[l + 1].elem;
      uint8_t *ob = l + 1 == p->n_tensors - 1 ? out : tiles + p->tensors[l + 1].offset;
      uint8_t *ib[2];
      for (uint32_t i = 0; i < ly->n_in; i++)
        ib[i] = ly->in[i] == 0 ? in : tiles + p->tensors[ly->in[i]].offset;
      mp_kparams q = run[l].params;
      void *ks = run[l].scratch_bytes ? tiles + p->kernel_scratch_offset : NULL;
      if (ly->window) {
        memcpy(&q, &call.geom, sizeof call.geom); /* geom leads every window params struct */
        assert_int_equal(run_layer(&run[l], &q, ib[0], NULL, b.g, ob + call.out_off * e, ks), MPK_OK);
      } else {
        q.add_s8.b.size = call.row_elems;
        for (int32_t row = 0; row < call.rows; row++)
          assert_int_equal(run_layer(&run[l], &q, ib[0] + (call.in_off[0] + row * call.in_row_stride[0]) * e,
                                     ib[1] + (call.in_off[1] + row * call.in_row_stride[1]) * e, b.g,
                                     ob + (call.out_off + row * call.out_row_stride) * e, ks),
                           MPK_OK);
      }
    }
  }
  assert_memory_equal(out, whole[p->n_tensors - 1], ny);
  for (uint32_t l = 0; l < p->n_layers; l++) {
    mp_lower_free(&lo[l]);
    mp_lower_free(&run[l]);
  }
  free(run);
  for (uint32_t k = 0; k < p->n_tensors; k++) free(whole[k]);
  free(whole);
  free(lo);
  if (!shared) free(out);
  free(shared);
  free(tiles);
}

static void tiled_run_for(const char *name, mp_target target, uint32_t last, uint32_t r,
                          uint32_t c, bool over_input) {
  mp_status st;
  built b = build_for(name, target, 0, last, r, c, NULL, &st);
  assert_int_equal(st, MP_OK);
  stage_run(&b, b.g->patch, over_input);
  unbuild(&b);
}

static void tiled_run(const char *name, uint32_t last, uint32_t r, uint32_t c, bool over_input) {
  tiled_run_for(name, MP_TARGET_GENERIC, last, r, c, over_input);
}

static void tiled_equals_whole(const char *name, uint32_t last, uint32_t r, uint32_t c) {
  tiled_run(name, last, r, c, false);
}

/* For a Cortex-M target the tiles call the specialised kernels (the 1x1
 * convolution only on unpadded windows, else im2col with its columns
 * after the tile buffers): the reference layers' bytes all the same. */
static void cortex_m_tiles_call_the_specialised_kernels_and_give_the_same_bytes(void **state) {
  (void)state;
  mp_status st;
  built b = build_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 0, 17, 3, 3, NULL, &st);
  assert_int_equal(st, MP_OK);
  const mp_patch *p = b.g->patch;
  uint32_t fast = 0, im2col = 0;
  for (uint32_t l = 0; l < p->n_layers; l++) {
    mp_kernel k = p->layers[l].run_kernel;
    fast += k != p->layers[l].kernel;
    im2col += k == MP_K_CONV2D_S8_IM2COL;
    if (k == MP_K_CONV2D_S8_1X1) assert_true(p->layers[l].direct);
  }
  assert_true(fast == p->n_layers);
  assert_true(im2col >= 1); /* the stem reads the whole input through padded windows */
  assert_true(p->kernel_scratch_bytes > 0);
  unbuild(&b);
  tiled_run_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 17, 3, 3, false);
  tiled_run_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 17, 2, 5, true);
  tiled_run_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 31, 4, 3, true);
  tiled_run_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 8, 7, 7, false);
  /* float32 has no specialised kernel: the reference ones */
  b = build_for("mobilenet_v2_96_035_f32", MP_TARGET_CORTEX_M55, 0, 17, 3, 2, NULL, &st);
  assert_int_equal(st, MP_OK);
  for (uint32_t l = 0; l < b.g->patch->n_layers; l++)
    assert_int_equal(b.g->patch->layers[l].run_kernel, b.g->patch->layers[l].kernel);
  unbuild(&b);
  tiled_run_for("mobilenet_v2_96_035_f32", MP_TARGET_CORTEX_M55, 17, 3, 2, true);
}

static void tiles_give_the_whole_layers_bytes_int8_edges_included(void **state) {
  (void)state;
  /* uneven grids: tiles of different sizes, edges against the padding */
  tiled_equals_whole("mobilenet_v2_96_035", 17, 3, 3);
  tiled_equals_whole("mobilenet_v2_96_035", 17, 2, 5);
  tiled_equals_whole("mobilenet_v2_96_035", 31, 4, 3);
  tiled_equals_whole("mobilenet_v2_96_035", 8, 7, 7);
}

static void tiles_give_the_whole_layers_bytes_float32(void **state) {
  (void)state;
  tiled_equals_whole("mobilenet_v2_96_035_f32", 17, 3, 2);
}

/* The stage's output written over the input rows no later tile reads:
 * the declared gap is less than the input, and tiles run that close give
 * the whole layers' bytes. */
static void tiles_overwrite_input_rows_no_later_tile_reads(void **state) {
  (void)state;
  tiled_run("mobilenet_v2_96_035", 17, 3, 3, true);
  tiled_run("mobilenet_v2_96_035", 31, 4, 3, true);
  tiled_run("mobilenet_v2_96_035", 8, 7, 7, true);
  tiled_run("mobilenet_v2_96_035_f32", 17, 3, 2, true);
}

/* ---- stages one after the other --------------------------------------------- */

static mp_status verify_after(built *b, tu_diags *d);

/* A graph may run several stages, each starting after the one before
 * ends: each runs tile by tile to its whole layers' bytes (also over its
 * own input), the plan verifies, the reports find each operator's stage,
 * and a stage that does not start after the last one is refused. */
static void stages_run_one_after_the_other(void **state) {
  (void)state;
  static const mp_target targets[] = {MP_TARGET_GENERIC, MP_TARGET_CORTEX_M55};
  for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
    mp_status st, v;
    tu_diags d;
    built b = build_for("mobilenet_v2_96_035", targets[k], 0, 8, 4, 4, NULL, &st);
    assert_int_equal(st, MP_OK);
    assert_int_equal(mp_graph_patch(b.g, 9, 17, 3, 3, NULL), MP_OK);
    assert_int_equal(mp_graph_patch(b.g, 18, 31, 2, 3, NULL), MP_OK);
    const mp_patch *s1 = b.g->patch, *s2 = s1->next, *s3 = s2 ? s2->next : NULL;
    assert_non_null(s3);
    assert_null(s3->next);
    /* each stage reads the one before's output */
    assert_int_equal(s2->tensors[0].tensor, s1->tensors[s1->n_tensors - 1].tensor);
    assert_int_equal(s3->tensors[0].tensor, s2->tensors[s2->n_tensors - 1].tensor);
    assert_ptr_equal(mp_patch_at(b.g, 3), s1);
    assert_ptr_equal(mp_patch_at(b.g, 9), s2);
    assert_ptr_equal(mp_patch_at(b.g, 20), s3);
    assert_null(mp_patch_at(b.g, 32));
    assert_true(b.g->ops[s2->head].patch_head && b.g->ops[s3->head].patch_head);
    /* the model's multiply-accumulates are the same for every stage */
    assert_int_equal(s1->model_macs, s2->model_macs);
    assert_int_equal(s2->model_macs, s3->model_macs);
    for (const mp_patch *p = s1; p; p = p->next) {
      for (uint32_t l = 0; l < p->n_layers; l++) {
        mp_lowered_op lo;
        assert_int_equal(mp_patch_lower_layer(b.g, p, l, &lo), MP_OK);
        mp_lower_free(&lo);
      }
      stage_run(&b, p, false);
      if (p->has_out_gap) stage_run(&b, p, true);
    }
    /* a stage's layer asked of another stage */
    mp_lowered_op lo;
    assert_int_equal(mp_patch_lower_layer(b.g, NULL, 0, &lo), MP_ERR_INTERNAL);
    uint64_t s = plan_scratch(b.g, &v);
    assert_int_equal(v, MP_OK);
    assert_true(s > 0);
    /* a stage inside or before the last one */
    tu_diags_init(&d);
    assert_int_equal(mp_graph_patch(b.g, 20, 31, 2, 2, &d.sink), MP_ERR_CONFIG);
    assert_true(tu_diags_has(&d, "stages follow each other"));
    tu_diags_init(&d);
    assert_int_equal(mp_graph_patch(b.g, 0, 8, 2, 2, &d.sink), MP_ERR_CONFIG);
    assert_null(s3->next);
    unbuild(&b);
  }
}

/* The verifier checks every stage, not only the first. */
static void the_verifier_checks_the_later_stages_too(void **state) {
  (void)state;
  mp_status st;
  tu_diags d;
  built b = build("mobilenet_v2_96_035", 0, 8, 4, 4, NULL, &st);
  assert_int_equal(mp_graph_patch(b.g, 9, 17, 3, 3, NULL), MP_OK);
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_OK);
  mp_patch *p = b.g->patch->next;
  p->need[(size_t)4 * p->n_tensors + p->n_tensors - 1].y1--;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "no tile writes pixel") || tu_diags_has(&d, "reads pixels"));
  unbuild(&b);
  /* the second stage's output closer to its input than its tiles allow:
   * the overlap check finds that stage by its operator and refuses */
  b = build("mobilenet_v2_96_035", 0, 8, 4, 4, NULL, &st);
  assert_int_equal(mp_graph_patch(b.g, 9, 17, 3, 3, NULL), MP_OK);
  p = b.g->patch->next;
  assert_true(p->has_out_gap && p->out_gap > 0);
  uint32_t in = (uint32_t)p->tensors[0].tensor, out = (uint32_t)p->tensors[p->n_tensors - 1].tensor;
  bool ok = true;
  char why[512];
  mp_verify_patch_overlap(b.g, (int32_t)p->head, in, out, p->out_gap - 1, &ok, why, sizeof why);
  assert_false(ok);
  if (!strstr(why, "of the patched stage run by operator 9")) fail_msg("%s", why);
  mp_verify_patch_overlap(b.g, (int32_t)p->head, in, out, p->out_gap, &ok, why, sizeof why);
  assert_true(ok);
  /* the first stage's operator does not run the second */
  mp_verify_patch_overlap(b.g, (int32_t)b.g->patch->head, in, out, p->out_gap, &ok, why, sizeof why);
  assert_false(ok);
  unbuild(&b);
}

/* ---- refusals --------------------------------------------------------------- */

static void a_range_that_is_no_stage_is_refused_with_the_reason(void **state) {
  (void)state;
  tu_diags d;
  mp_status st;
  tu_diags_init(&d);
  built b = build("mobilenet_v2_96_035", 0, 0, 0, 0, NULL, &st);
  uint32_t n = b.g->n_ops;
  unbuild(&b);
  b = build("mobilenet_v2_96_035", 0, n - 1, 2, 2, &d, &st);
  assert_int_equal(st, MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "MEAN") || tu_diags_has(&d, "FULLY_CONNECTED"));
  assert_null(b.g->patch);
  unbuild(&b);
  /* a stage whose intermediate is read after it */
  tu_diags_init(&d);
  b = build("mobilenet_v2_96_035", 0, 12, 2, 2, &d, &st); /* op 13 ADDs op 9's output */
  assert_int_equal(st, MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "end the stage at it"));
  unbuild(&b);
  tu_diags_init(&d);
  b = build("mobilenet_v2_96_035", 0, 17, 13, 13, &d, &st);
  assert_int_equal(st, MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "more tiles than pixels"));
  unbuild(&b);
  tu_diags_init(&d);
  b = build("mobilenet_v2_96_035", 5, 3, 2, 2, &d, &st);
  assert_int_equal(st, MP_ERR_CONFIG);
  unbuild(&b);
}

/* ---- the verifier ----------------------------------------------------------- */

static mp_status verify_after(built *b, tu_diags *d) {
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = tu_args("greedy", true);
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(b->g, &pf, &a, NULL, &p), MP_OK);
  mp_status st = mp_plan_verify(p, &d->sink);
  mp_plan_free(&p);
  return st;
}

static void the_verifier_refuses_a_missed_pixel_an_unwritten_read_and_a_clobbered_buffer(void **state) {
  (void)state;
  mp_status st;
  tu_diags d;
  /* a tile that writes one row less of the stage output */
  built b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  mp_patch *p = b.g->patch;
  p->need[(size_t)4 * p->n_tensors + p->n_tensors - 1].y1--;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "no tile writes pixel") || tu_diags_has(&d, "reads pixels"));
  unbuild(&b);
  /* a tile that computes one column less of an intermediate its next
   * layer reads */
  b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  p = b.g->patch;
  p->need[(size_t)4 * p->n_tensors + 3].x1--;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "tile 4"));
  unbuild(&b);
  /* two tile buffers live together in the same bytes */
  b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  p = b.g->patch;
  p->tensors[2].offset = p->tensors[1].offset;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "which it reads"));
  unbuild(&b);
  /* a buffer overwritten before its last reader: op 8's output (stage
   * tensor 6), read by op 9 and again by the ADD of op 13, under the buffer
   * of op 11's output (stage tensor 8) */
  b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  p = b.g->patch;
  p->tensors[8].offset = p->tensors[6].offset;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "overwrote since"));
  unbuild(&b);
  /* two tiles writing the same output rows */
  b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  p = b.g->patch;
  p->need[(size_t)4 * p->n_tensors + p->n_tensors - 1].y0--;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  unbuild(&b);
  /* a Cortex-M stage whose stem (padded windows) claims the 1x1 kernel */
  b = build_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 0, 17, 3, 3, NULL, &st);
  p = b.g->patch;
  assert_int_equal(p->layers[0].run_kernel, MP_K_CONV2D_S8_IM2COL);
  p->layers[0].run_kernel = MP_K_CONV2D_S8_1X1;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "the kernel its tiles call"));
  unbuild(&b);
  /* its im2col columns over a tile buffer */
  b = build_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 0, 17, 3, 3, NULL, &st);
  p = b.g->patch;
  p->kernel_scratch_offset = p->tensors[1].offset;
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "overlaps tensor"));
  unbuild(&b);
  b = build_for("mobilenet_v2_96_035", MP_TARGET_CORTEX_M55, 0, 17, 3, 3, NULL, &st);
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_OK);
  unbuild(&b);
  /* untouched, it verifies */
  b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  tu_diags_init(&d);
  assert_int_equal(verify_after(&b, &d), MP_OK);
  unbuild(&b);
}

/* In place, the plan lays the stage's output over its input (the
 * stage's step needs less than input + output + tile buffers), and the
 * verifier refuses the output moved closer to the input than the tiles
 * allow, naming the tile that would clobber a later tile's input. */
static void the_output_lies_over_the_input_and_the_verifier_replays_the_tiles(void **state) {
  (void)state;
  mp_status st;
  tu_diags d;
  built b = build("mobilenet_v2_96_035", 0, 17, 3, 3, NULL, &st);
  assert_int_equal(st, MP_OK);
  const mp_patch *s = b.g->patch;
  assert_true(s->has_out_gap);
  uint32_t in = (uint32_t)s->tensors[0].tensor, out = (uint32_t)s->tensors[s->n_tensors - 1].tensor;
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = tu_args("greedy", true);
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(b.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  const mp_allocation *ai = &p->allocs[in], *ao = &p->allocs[out];
  assert_int_equal(ai->arena, ao->arena);
  assert_true(ao->offset < ai->offset + ai->size && ai->offset < ao->offset + ao->size);
  int64_t dd = (int64_t)ai->offset - (int64_t)ao->offset;
  assert_true(dd >= s->out_gap);
  /* closer than the contract allows, by less than the 16-byte alignment */
  int64_t under = (s->out_gap - 1) / 16 * 16, at = (s->out_gap + 15) / 16 * 16;
  assert_true(s->out_gap > 0 && (int64_t)ai->offset >= at);
  p->allocs[out].offset = (uint64_t)((int64_t)ai->offset - under);
  p->allocs[out].binding.offset = p->allocs[out].offset;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  if (!tu_diags_has(&d, "that tile")) fail_msg("%s", d.text);
  /* at the contract's gap, aligned, it holds */
  p->allocs[out].offset = (uint64_t)((int64_t)ai->offset - at);
  p->allocs[out].binding.offset = p->allocs[out].offset;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_OK);
  mp_plan_free(&p);
  unbuild(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_patched_stage_plans_below_the_in_place_plan_and_verifies),
      cmocka_unit_test(a_patched_plan_is_asked_down_to_its_in_place_bound),
      cmocka_unit_test(auto_refines_the_grids_by_the_plan),
      cmocka_unit_test(a_copy_patched_is_a_build_patched),
      cmocka_unit_test(tiles_give_the_whole_layers_bytes_int8_edges_included),
      cmocka_unit_test(tiles_give_the_whole_layers_bytes_float32),
      cmocka_unit_test(tiles_overwrite_input_rows_no_later_tile_reads),
      cmocka_unit_test(cortex_m_tiles_call_the_specialised_kernels_and_give_the_same_bytes),
      cmocka_unit_test(the_output_lies_over_the_input_and_the_verifier_replays_the_tiles),
      cmocka_unit_test(a_range_that_is_no_stage_is_refused_with_the_reason),
      cmocka_unit_test(the_verifier_refuses_a_missed_pixel_an_unwritten_read_and_a_clobbered_buffer),
      cmocka_unit_test(stages_run_one_after_the_other),
      cmocka_unit_test(the_verifier_checks_the_later_stages_too),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
