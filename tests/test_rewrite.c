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
#include "lower/lower.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <math.h>

#include <stdio.h>
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
  /* 16x8: PAD (1,1,2,0) before a stride-2 VALID convolution */
  build(&b, "pad_conv_s16", true, MP_TARGET_GENERIC);
  assert_int_equal(b.g->n_folded_pads, 2);
  assert_int_equal(mp_lower_op(b.g, 1, &lo, NULL), MP_OK);
  assert_int_equal(lo.kernel, MP_K_CONV2D_S16);
  assert_int_equal(lo.params.conv_s8.geom.pad_h, 1);
  assert_int_equal(lo.params.conv_s8.geom.pad_w, 2);
  assert_int_equal(lo.params.conv_s8.geom.in_w, 7);
  assert_int_equal(lo.params.conv_s8.geom.out_w, 4);
  mp_lower_free(&lo);
  unbuild(&b);
}

/* pad_pool (fixtures.c): the PADs of ops 0, 2 and 6 fold into the max
 * pools of ops 1, 3 and 7; op 4's (value 0, which can win a maximum) and
 * op 8's (before an AVERAGE_POOL_2D) stay. */
static void a_pad_folds_into_a_max_pool_only_when_its_value_never_wins(void **state) {
  (void)state;
  static const int32_t pool_into[10] = {1, -1, 3, -1, -1, -1, 7, -1, -1, -1};
  built b;
  build(&b, "pad_pool", true, MP_TARGET_GENERIC);
  assert_int_equal(b.g->n_ops, 10);
  assert_int_equal(b.g->n_folded_pads, 3);
  for (uint32_t o = 0; o < 10; o++) {
    assert_int_equal(b.g->ops[o].folded_into, pool_into[o]);
    if (pool_into[o] >= 0) assert_int_equal(b.g->ops[pool_into[o]].folded_pad, (int32_t)o);
  }
  assert_string_equal(mp_folded_pad_readers(b.g), "their max pools");
  /* the pool reads the unpadded input with the PAD's rows and columns as
   * its own top / left padding; the bottom / right follow from the sizes */
  static const struct {
    uint32_t op;
    int32_t in_h, in_w, pad_h, pad_w, out_h, out_w;
  } want[] = {{1, 9, 9, 1, 1, 5, 5}, {3, 5, 5, 0, 0, 3, 3}, {7, 8, 8, 2, 1, 8, 8}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    mp_lowered_op lo;
    assert_int_equal(mp_lower_op(b.g, want[i].op, &lo, NULL), MP_OK);
    assert_int_equal(lo.kernel, MP_K_MAX_POOL2D_S8);
    const mpk_conv_geom *g = &lo.params.pool_s8.geom;
    assert_int_equal(g->in_h, want[i].in_h);
    assert_int_equal(g->in_w, want[i].in_w);
    assert_int_equal(g->pad_h, want[i].pad_h);
    assert_int_equal(g->pad_w, want[i].pad_w);
    assert_int_equal(g->out_h, want[i].out_h);
    assert_int_equal(g->out_w, want[i].out_w);
    mp_lower_free(&lo);
  }
  unbuild(&b);
  /* float32: the PADV2 of -inf folds, the PAD of +0.0 does not */
  build(&b, "pad_pool_f32", true, MP_TARGET_GENERIC);
  assert_int_equal(b.g->n_folded_pads, 1);
  assert_int_equal(b.g->ops[0].folded_into, 1);
  assert_int_equal(b.g->ops[2].folded_into, -1);
  assert_false(b.g->ops[2].is_view);
  assert_string_equal(mp_folded_pad_readers(b.g), "its max pool");
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(b.g, 1, &lo, NULL), MP_OK);
  assert_int_equal(lo.kernel, MP_K_MAX_POOL2D_F32);
  assert_int_equal(lo.params.pool_f32.geom.in_h, 7);
  assert_int_equal(lo.params.pool_f32.geom.pad_h, 1);
  mp_lower_free(&lo);
  unbuild(&b);
  /* the PyTorch-style ResNet: the stem's max pool and every convolution */
  build(&b, "resnet_pt_64", true, MP_TARGET_CORTEX_M55);
  assert_int_equal(b.g->n_folded_pads, 10);
  assert_string_equal(mp_folded_pad_readers(b.g), "their convolutions and max pools");
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

/* One PAD into one 3x3 VALID convolution, 1x6x6x2 -> 1x6x6x2, with one
 * thing changed: what must keep the PAD. */
typedef struct variant {
  bool f32;
  int32_t pads[8];      /* [dim][before, after] */
  float out_scale;      /* the PAD output's scale (int8) */
  int64_t out_zp;       /* its zero point */
  bool nan_filter;      /* float: one filter value NaN */
  bool into_pool;       /* an AVERAGE_POOL_2D reads the padded tensor */
  bool pad_is_output;   /* the padded tensor is a graph output too */
} variant;

static int32_t folds_of(const variant *v) {
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  mp_tfw_add_subgraph(w, "main");
  int32_t dt = v->f32 ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT8;
  float s_in = 0.05f;
  int64_t z_in = -3, z_f = 0, z_b = 0;
  float s_f = 0.01f, s_b = s_in * s_f;
  const int32_t sh_in[4] = {1, 4, 4, 2};
  int32_t ph = 4 + v->pads[2] + v->pads[3], pw = 4 + v->pads[4] + v->pads[5];
  const int32_t sh_p[4] = {1 + v->pads[0] + v->pads[1], ph, pw, 2 + v->pads[6] + v->pads[7]};
  const int32_t sh_out[4] = {sh_p[0], ph - 2, pw - 2, v->into_pool ? sh_p[3] : 2};
  const int32_t sh_f[4] = {2, 3, 3, sh_p[3]}, sh_b[1] = {2}, sh_pads[2] = {4, 2};
  mp_tfw_tensor t = {.name = "in", .dtype = dt, .rank = 4, .shape = sh_in};
  if (!v->f32) t.has_quant = true, t.quant = (mp_quant){1, &s_in, 1, &z_in, 0};
  /* quantisation parameters on float tensors, which their kernels ignore */
  float one = 1.0f;
  int64_t zero = 0;
  if (v->f32) t.has_quant = true, t.quant = (mp_quant){1, &one, 1, &zero, 0};
  int32_t x = (int32_t)mp_tfw_add_tensor(w, &t);
  mp_tfw_tensor tp = {.name = "paddings", .dtype = MP_DTYPE_INT32, .rank = 2, .shape = sh_pads};
  tp.buffer = mp_tfw_add_buffer(w, v->pads, 8 * sizeof(int32_t));
  int32_t pads = (int32_t)mp_tfw_add_tensor(w, &tp);
  t.name = "padded";
  t.shape = sh_p;
  float s_p = v->out_scale;
  int64_t z_p = v->out_zp;
  if (!v->f32) t.quant = (mp_quant){1, &s_p, 1, &z_p, 0};
  int32_t p = (int32_t)mp_tfw_add_tensor(w, &t);
  float ff[54];
  int8_t fq[54];
  size_t taps = 2u * 9u * (size_t)sh_p[3];
  int32_t bq[2] = {0, 0};
  float bf[2] = {0, 0};
  for (int i = 0; i < 54; i++) {
    ff[i] = (float)(i % 7) - 3.0f;
    fq[i] = (int8_t)(i * 5 - 90);
  }
  if (v->nan_filter) ff[4] = NAN;
  mp_tfw_tensor tf = {.name = "filter", .dtype = dt, .rank = 4, .shape = sh_f};
  if (!v->f32) tf.has_quant = true, tf.quant = (mp_quant){1, &s_f, 1, &z_f, 0};
  tf.buffer = v->f32 ? mp_tfw_add_buffer(w, ff, taps * sizeof *ff) : mp_tfw_add_buffer(w, fq, taps);
  int32_t f = (int32_t)mp_tfw_add_tensor(w, &tf);
  mp_tfw_tensor tb = {.name = "bias", .dtype = v->f32 ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT32,
                      .rank = 1, .shape = sh_b};
  if (!v->f32) tb.has_quant = true, tb.quant = (mp_quant){1, &s_b, 1, &z_b, 0};
  tb.buffer = v->f32 ? mp_tfw_add_buffer(w, bf, sizeof bf) : mp_tfw_add_buffer(w, bq, sizeof bq);
  int32_t b = (int32_t)mp_tfw_add_tensor(w, &tb);
  t.name = "out";
  t.shape = sh_out;
  if (!v->f32) t.quant = (mp_quant){1, &s_p, 1, &z_p, 0};
  int32_t y = (int32_t)mp_tfw_add_tensor(w, &t);
  int32_t i0[2] = {x, pads}, i1[3] = {p, f, b};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_PAD, .n_inputs = 2, .inputs = i0,
                                .n_outputs = 1, .outputs = &p});
  const mp_tfw_option conv_opts[] = {{0, MP_TFW_I8, 1, 0, 0, NULL},
                                     {1, MP_TFW_I32, 1, 0, 0, NULL},
                                     {2, MP_TFW_I32, 1, 0, 0, NULL}};
  const mp_tfw_option pool_opts[] = {{0, MP_TFW_I8, 1, 0, 0, NULL}, {1, MP_TFW_I32, 1, 0, 0, NULL},
                                     {2, MP_TFW_I32, 1, 0, 0, NULL}, {3, MP_TFW_I32, 3, 0, 0, NULL},
                                     {4, MP_TFW_I32, 3, 0, 0, NULL}};
  if (v->into_pool)
    mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_AVERAGE_POOL_2D, .n_inputs = 1,
                                  .inputs = &p, .n_outputs = 1, .outputs = &y,
                                  .options_type = MP_TFW_OPT_POOL2D, .n_options = 5,
                                  .options = pool_opts});
  else
    mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_CONV_2D, .n_inputs = 3, .inputs = i1,
                                  .n_outputs = 1, .outputs = &y,
                                  .options_type = MP_TFW_OPT_CONV2D, .n_options = 3,
                                  .options = conv_opts});
  int32_t outs[2] = {y, p};
  mp_tfw_set_io(w, 1, &x, v->pad_is_output ? 2 : 1, outs);
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = tu_written(w, "v.tflite", &d);
  mp_graph *g = NULL;
  mp_graph_options o = {.alias_views = true, .fold_pads = true};
  mp_status st = mp_graph_build(m, 0, &o, &d.sink, &g);
  if (st != MP_OK) fprintf(stderr, "%s", d.text);
  assert_int_equal(st, MP_OK);
  int32_t n = (int32_t)g->n_folded_pads;
  /* whatever folds, the graph still lowers */
  st = mp_kernels_prepare(g, false, &d.sink);
  if (st != MP_OK) fprintf(stderr, "%s", d.text);
  assert_int_equal(st, MP_OK);
  mp_graph_free(&g);
  mp_model_free(&m);
  return n;
}

static void a_pad_stays_unless_its_convolution_adds_exactly_what_it_wrote(void **state) {
  (void)state;
  const variant base = {false, {0, 0, 1, 1, 1, 1, 0, 0}, 0.05f, -3, false, false, false};
  variant v = base;
  assert_int_equal(folds_of(&v), 1);
  v.f32 = true;
  assert_int_equal(folds_of(&v), 1);
  v.nan_filter = true; /* 0 * NaN is no zero */
  assert_int_equal(folds_of(&v), 0);
  v = base;
  v.out_zp = -2; /* pads with -2, the convolution would add -3's zero */
  assert_int_equal(folds_of(&v), 0);
  v = base;
  v.out_scale = 0.06f; /* the PAD requantises nothing, but says so differently */
  assert_int_equal(folds_of(&v), 0);
  v = base;
  memcpy(v.pads, (const int32_t[]){0, 0, 1, 1, 1, 1, 1, 0}, sizeof v.pads); /* channels */
  assert_int_equal(folds_of(&v), 0);
  v = base;
  memcpy(v.pads, (const int32_t[]){0, 0, 2, 0, 0, 3, 0, 0}, sizeof v.pads); /* asymmetric */
  assert_int_equal(folds_of(&v), 1);
  v = base;
  v.into_pool = true; /* pooling is no convolution: an average counts its taps */
  assert_int_equal(folds_of(&v), 0);
  v = base;
  v.pad_is_output = true;
  assert_int_equal(folds_of(&v), 0);
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
      cmocka_unit_test(a_pad_stays_unless_its_convolution_adds_exactly_what_it_wrote),
      cmocka_unit_test(random_graphs_with_pads_on_their_last_axis_fold_nothing),
      cmocka_unit_test(a_pad_folds_into_a_max_pool_only_when_its_value_never_wins),
      cmocka_unit_test(the_padded_block_needs_under_half_its_tensor_level_bound_with_every_planner),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
