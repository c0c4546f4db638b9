/*
 * fixtures.c — models with known answers, written with tflite_writer.
 *
 * Each named fixture is a small builder over the writer; its comment lists
 * the tensors (id name [shape] role) and the lifetimes the graph analysis
 * must find, so tests can assert exact values.  The random DAG and the KWS
 * example are generated from a fixed PRNG (splitmix64), never from the
 * clock, so their bytes are reproducible.
 *
 * The KWS example is calibrated like a post-training-quantised model: the
 * float network (synthetic He-uniform weights) runs on synthetic int8
 * features; the min/max of every activation (plus 10% headroom) gives its
 * scale and zero point;
 * weights are quantised per output channel, biases to int32 at
 * input_scale * weight_scale.  Generation uses only +, -, *, / and
 * comparisons on floats (no libm), in a fixed order, so the bytes are the
 * same with every IEEE-754 compiler setting that does not reassociate or
 * contract (expf appears only in fx_kws_stats_run, a check).
 *
 * Nothing here uses cmocka: mkmodel links this file too.
 */
#include "fixtures.h"

#include "tflite_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* splitmix64: small, fast, and the same everywhere. */
typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static int32_t rng_int(rng *r, int32_t lo, int32_t hi) {
  return lo + (int32_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Uniform float in [-1, 1), from 24 random bits (exact in a float). */
static float rng_sym(rng *r) {
  return (float)(int32_t)(rng_next(r) >> 40) / 8388608.0f - 1.0f;
}

/* An int8 activation [1, n]. */
static int32_t act(mp_tfw *w, const char *name, int32_t n) {
  return (int32_t)mp_tfw_add_simple_tensor(w, name, MP_DTYPE_INT8, 2, (const int32_t[]){1, n});
}

/* A constant tensor over a new buffer of `size` bytes (deterministic
 * content). */
static int32_t constant(mp_tfw *w, const char *name, int32_t dtype, uint32_t rank,
                        const int32_t *shape, const void *data, size_t size) {
  mp_tfw_tensor t = {.name = name, .dtype = dtype, .rank = rank, .shape = shape};
  t.buffer = mp_tfw_add_buffer(w, data, size);
  return (int32_t)mp_tfw_add_tensor(w, &t);
}

/* An int8 constant of `n` bytes filled with a ramp. */
static int32_t const_i8(mp_tfw *w, const char *name, uint32_t rank, const int32_t *shape,
                        size_t n) {
  int8_t *d = calloc(n ? n : 1, 1);
  if (!d) return -1;
  for (size_t i = 0; i < n; i++) d[i] = (int8_t)((i * 7) % 251 - 125);
  int32_t t = constant(w, name, MP_DTYPE_INT8, rank, shape, d, n);
  free(d);
  return t;
}

static int32_t const_i32(mp_tfw *w, const char *name, uint32_t rank, const int32_t *shape,
                         const int32_t *values, size_t n) {
  uint8_t le[64];
  if (n * 4 > sizeof le) return -1;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) le[4 * i + (size_t)k] = (uint8_t)((uint32_t)values[i] >> (8 * k));
  return constant(w, name, MP_DTYPE_INT32, rank, shape, le, n * 4);
}

static uint32_t op(mp_tfw *w, int32_t code, uint32_t n_in, const int32_t *in, uint32_t n_out,
                   const int32_t *out) {
  mp_tfw_op o = {.builtin_code = code, .n_inputs = n_in, .inputs = in, .n_outputs = n_out,
                 .outputs = out};
  return mp_tfw_add_op(w, &o);
}

/* A count and a literal list of tensor ids: IDS(0, 1) -> 2, {0, 1}. */
#define N_IDS(...) (uint32_t)(sizeof((const int32_t[]){__VA_ARGS__}) / sizeof(int32_t))
#define IDS(...) N_IDS(__VA_ARGS__), (const int32_t[]){__VA_ARGS__}
#define IDS_IN(...) .n_inputs = N_IDS(__VA_ARGS__), .inputs = (const int32_t[]){__VA_ARGS__}

/* ------------------------------------------------------------------------ */
/* Named fixtures                                                           */
/* ------------------------------------------------------------------------ */

/* tiny: the small model of the reader's truncation tests.
 *   0 input  [1,8]   scratch, per-tensor quant 0.5/-3       [0,0]
 *   1 fc/w   [4,8]   constant (32 B), per-channel quant dim 0
 *   2 fc/b   [4]     int32 constant (16 B)
 *   3 fc/out [1,4]   scratch over an empty buffer (not 0)   [0,1]
 *   4 probs  [1,4]   scratch, quant 1/256 -128              [1,1]
 * ops: 0 FULLY_CONNECTED(0,1,2)->3 (options), 1 SOFTMAX(3)->4 (beta 1).
 * Description "tiny fixture"; metadata "min_runtime_version" -> buffer 4.
 * lb 32 (16+16 at both ops). */
static void build_tiny(mp_tfw *w, bool external) {
  mp_tfw_set_description(w, "tiny fixture");
  mp_tfw_add_subgraph(w, "main");
  float in_scale = 0.5f, out_scale = 1.0f / 256.0f;
  int64_t in_zp = -3, out_zp = -128;
  mp_tfw_tensor in = {.name = "input", .dtype = MP_DTYPE_INT8, .rank = 2,
                      .shape = (const int32_t[]){1, 8}, .has_quant = true,
                      .quant = {1, &in_scale, 1, &in_zp, 0}};
  mp_tfw_add_tensor(w, &in);
  int8_t wd[32];
  for (int i = 0; i < 32; i++) wd[i] = (int8_t)(i * 9 - 100);
  float wscale[4] = {0.01f, 0.02f, 0.03f, 0.04f};
  int64_t wzp[4] = {0, 0, 0, 0};
  mp_tfw_tensor wt = {.name = "fc/w", .dtype = MP_DTYPE_INT8, .rank = 2,
                      .shape = (const int32_t[]){4, 8}, .has_quant = true,
                      .quant = {4, wscale, 4, wzp, 0}};
  wt.buffer = external ? mp_tfw_add_external_buffer(w, wd, sizeof wd)
                       : mp_tfw_add_buffer(w, wd, sizeof wd);
  mp_tfw_add_tensor(w, &wt);
  const_i32(w, "fc/b", 1, (const int32_t[]){4}, (const int32_t[]){100, -200, 300, -400}, 4);
  mp_tfw_tensor h = {.name = "fc/out", .dtype = MP_DTYPE_INT8, .rank = 2,
                     .shape = (const int32_t[]){1, 4}};
  h.buffer = mp_tfw_add_buffer(w, NULL, 0);
  mp_tfw_add_tensor(w, &h);
  mp_tfw_tensor out = {.name = "probs", .dtype = MP_DTYPE_INT8, .rank = 2,
                       .shape = (const int32_t[]){1, 4}, .has_quant = true,
                       .quant = {1, &out_scale, 1, &out_zp, 0}};
  mp_tfw_add_tensor(w, &out);
  mp_tfw_option fc_opts[] = {{.field = 0, .type = MP_TFW_I8, .i = 0},
                             {.field = 2, .type = MP_TFW_BOOL, .i = 0}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_FULLY_CONNECTED, .version = 4, IDS_IN(0, 1, 2),
                                .n_outputs = 1, .outputs = (const int32_t[]){3},
                                .options_type = MP_TFW_OPT_FULLY_CONNECTED, .n_options = 2,
                                .options = fc_opts});
  mp_tfw_option sm_opts[] = {{.field = 0, .type = MP_TFW_F32, .f = 1.0f}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SOFTMAX, .version = 2, IDS_IN(3),
                                .n_outputs = 1, .outputs = (const int32_t[]){4},
                                .options_type = MP_TFW_OPT_SOFTMAX, .n_options = 1,
                                .options = sm_opts});
  mp_tfw_set_io(w, IDS(0), IDS(4));
  uint32_t mb = mp_tfw_add_buffer(w, "1.14.0", 6);
  mp_tfw_add_metadata(w, "min_runtime_version", mb);
}

static void build_tiny_inline(mp_tfw *w) { build_tiny(w, false); }

/* external_weights: tiny, but fc/w's 32 bytes sit after the flatbuffer
 * (Buffer.offset/size).  Same tensors, lifetimes and lb as tiny. */
static void build_external(mp_tfw *w) { build_tiny(w, true); }

/* multi_subgraph: two subgraphs with different answers.
 * Subgraph 0 "main": 0 x [1,32], 1 y [1,32]; op 0 RELU(0)->1.
 *   x [0,0], y [0,0]; lb 64.
 * Subgraph 1 "body": 0 a, 1 b, 2 c, 3 d, all [1,64];
 *   ops 0 RELU(0)->1, 1 TANH(1)->2, 2 GELU(2)->3 (builtin code 150: its
 *   deprecated_builtin_code is 127).
 *   a [0,0], b [0,1], c [1,2], d [2,2]; lb 128. */
static void build_multi_subgraph(mp_tfw *w) {
  mp_tfw_add_subgraph(w, "main");
  act(w, "x", 32);
  act(w, "y", 32);
  op(w, FX_RELU, IDS(0), IDS(1));
  mp_tfw_set_io(w, IDS(0), IDS(1));
  mp_tfw_add_subgraph(w, "body");
  act(w, "a", 64);
  act(w, "b", 64);
  act(w, "c", 64);
  act(w, "d", 64);
  op(w, FX_RELU, IDS(0), IDS(1));
  op(w, FX_TANH, IDS(1), IDS(2));
  op(w, FX_GELU, IDS(2), IDS(3));
  mp_tfw_set_io(w, IDS(0), IDS(3));
}

/* variable: a state tensor updated every run.
 *   0 in [1,16] scratch [0,1]; 1 state [1,16] is_variable -> persistent;
 *   2 sum [1,16] scratch [0,2]; 3 out [1,16] scratch [2,2].
 * ops: 0 ADD(0,1)->2, 1 MUL(2,0)->1 (writes the state), 2 RELU(2)->3.
 * lb 32 at every op (the state is not scratch); persistent 16 bytes. */
static void build_variable(mp_tfw *w) {
  act(w, "in", 16);
  mp_tfw_tensor st = {.name = "state", .dtype = MP_DTYPE_INT8, .rank = 2,
                      .shape = (const int32_t[]){1, 16}, .is_variable = true};
  mp_tfw_add_tensor(w, &st);
  act(w, "sum", 16);
  act(w, "out", 16);
  op(w, FX_ADD, IDS(0, 1), IDS(2));
  op(w, FX_MUL, IDS(2, 0), IDS(1));
  op(w, FX_RELU, IDS(2), IDS(3));
  mp_tfw_set_io(w, IDS(0), IDS(3));
}

/* state_zero_points: variable tensors that TFLM does not start at zero
 * bytes (mp_graph_state_init_byte): an int8 state starts at its zero
 * point, any other type at 0 whatever its zero point.
 *   0 in [1,16] int8 (0.25, 3) scratch [0,1];
 *   1 hidden [1,16] int8 (0.25, -4) is_variable: starts as 16 bytes -4;
 *   2 cell [1,8] int16 (1/4096, 7) is_variable: starts at 0;
 *   3 sum [1,16] int8 (0.25, 3) scratch [0,2]; 4 out [1,16] int8 [2,2].
 * ops: 0 ADD(0,1)->3, 1 ADD(3,0)->1 (writes the hidden state), 2 RELU(3)->4,
 * 3 MUL(2,2)->2 (writes the cell state).  lb 32; persistent 32 bytes. */
static void build_state_zero_points(mp_tfw *w) {
  static const float s8 = 0.25f, s16 = 1.0f / 4096.0f;
  static const int64_t z_in = 3, z_hidden = -4, z_cell = 7;
  const mp_quant q_in = {1, &s8, 1, &z_in, 0};
  mp_tfw_add_tensor(w, &(mp_tfw_tensor){.name = "in", .dtype = MP_DTYPE_INT8, .rank = 2,
                                        .shape = (const int32_t[]){1, 16}, .has_quant = true,
                                        .quant = q_in});
  mp_tfw_add_tensor(w, &(mp_tfw_tensor){.name = "hidden", .dtype = MP_DTYPE_INT8, .rank = 2,
                                        .shape = (const int32_t[]){1, 16}, .is_variable = true,
                                        .has_quant = true, .quant = {1, &s8, 1, &z_hidden, 0}});
  mp_tfw_add_tensor(w, &(mp_tfw_tensor){.name = "cell", .dtype = MP_DTYPE_INT16, .rank = 2,
                                        .shape = (const int32_t[]){1, 8}, .is_variable = true,
                                        .has_quant = true, .quant = {1, &s16, 1, &z_cell, 0}});
  mp_tfw_add_tensor(w, &(mp_tfw_tensor){.name = "sum", .dtype = MP_DTYPE_INT8, .rank = 2,
                                        .shape = (const int32_t[]){1, 16}, .has_quant = true,
                                        .quant = q_in});
  mp_tfw_add_tensor(w, &(mp_tfw_tensor){.name = "out", .dtype = MP_DTYPE_INT8, .rank = 2,
                                        .shape = (const int32_t[]){1, 16}, .has_quant = true,
                                        .quant = q_in});
  op(w, FX_ADD, IDS(0, 1), IDS(3));
  op(w, FX_ADD, IDS(3, 0), IDS(1));
  op(w, FX_RELU, IDS(3), IDS(4));
  op(w, FX_MUL, IDS(2, 2), IDS(2));
  mp_tfw_set_io(w, IDS(0), IDS(4));
}

/* zero_size: 0 in [1,8] [0,0]; 1 empty [1,0] (graph input, 0 bytes, no
 * slot) [0,0]; 2 out [1,8] [0,0].  op 0 CONCATENATION(0,1)->2.  lb 32. */
static void build_zero_size(mp_tfw *w) {
  act(w, "in", 8);
  act(w, "empty", 0);
  act(w, "out", 8);
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I32, .i = 1}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_CONCATENATION, IDS_IN(0, 1), .n_outputs = 1,
                                .outputs = (const int32_t[]){2},
                                .options_type = MP_TFW_OPT_CONCATENATION, .n_options = 1,
                                .options = o});
  mp_tfw_set_io(w, IDS(0, 1), IDS(2));
}

/* unread_output: 0 axis int32 [] constant (4 B); 1 in [1,32] [0,0];
 * 2 a [1,16] [0,1]; 3 b [1,16] never read, not an output: [0,0];
 * 4 out [1,16] [1,1].
 * ops: 0 SPLIT(0,1)->2,3, 1 RELU(2)->4.  lb 64 (op 0: 32+16+16). */
static void build_unread_output(mp_tfw *w) {
  const_i32(w, "axis", 0, NULL, (const int32_t[]){1}, 1);
  act(w, "in", 32);
  act(w, "a", 16);
  act(w, "b", 16);
  act(w, "out", 16);
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I32, .i = 2}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SPLIT, IDS_IN(0, 1), .n_outputs = 2,
                                .outputs = (const int32_t[]){2, 3},
                                .options_type = MP_TFW_OPT_SPLIT, .n_options = 1, .options = o});
  op(w, FX_RELU, IDS(2), IDS(4));
  mp_tfw_set_io(w, IDS(1), IDS(4));
}

/* late_input: 0 x [1,16] [0,0]; 1 late [1,48] graph input first read by
 * op 3: [0,3]; 2 t1 [1,16] [0,1]; 3 t2 [1,16] [1,2]; 4 t3 [1,16] [2,3];
 * 5 out [1,64] [3,3].
 * ops: 0 RELU(0)->2, 1 RELU(2)->3, 2 RELU(3)->4, 3 CONCATENATION(4,1)->5.
 * lb 128 at op 3 (48+16+64); 80 at ops 0-2. */
static void build_late_input(mp_tfw *w) {
  act(w, "x", 16);
  act(w, "late", 48);
  act(w, "t1", 16);
  act(w, "t2", 16);
  act(w, "t3", 16);
  act(w, "out", 64);
  op(w, FX_RELU, IDS(0), IDS(2));
  op(w, FX_RELU, IDS(2), IDS(3));
  op(w, FX_RELU, IDS(3), IDS(4));
  op(w, FX_CONCATENATION, IDS(4, 1), IDS(5));
  mp_tfw_set_io(w, IDS(0, 1), IDS(5));
}

/* view_chain: three views in a row collapse onto one root.
 *   0 in [1,8] [0,0]; 1 w1 int8 [32,8] constant; 2 a [1,32] [0,1] root;
 *   3 shape int32 [3] constant {1,4,8}; 4 b [1,4,8] [1,2] alias of 2;
 *   5 c [4,8] [2,3] alias of 2; 6 axis int32 [] constant {2};
 *   7 d [4,8,1] [3,4] alias of 2; 8 w2 int8 [4,32] constant;
 *   9 out [1,4] [4,4].
 * ops: 0 FULLY_CONNECTED(0,1,-1)->2, 1 RESHAPE(2,3)->4, 2 SQUEEZE(4)->5,
 *   3 EXPAND_DIMS(5,6)->7, 4 FULLY_CONNECTED(7,8,-1)->9.
 * Storage of 2 (and of 4, 5, 7): [0,4].  Slots: 0, 2, 9 (6 without
 * aliasing).  lb 48 (op 0: 16+32; op 4: 32+16); no alias 64 (op 1: a+b). */
static void build_view_chain(mp_tfw *w) {
  act(w, "in", 8);
  const_i8(w, "w1", 2, (const int32_t[]){32, 8}, 256);
  act(w, "a", 32);
  const_i32(w, "shape", 1, (const int32_t[]){3}, (const int32_t[]){1, 4, 8}, 3);
  mp_tfw_add_simple_tensor(w, "b", MP_DTYPE_INT8, 3, (const int32_t[]){1, 4, 8});
  mp_tfw_add_simple_tensor(w, "c", MP_DTYPE_INT8, 2, (const int32_t[]){4, 8});
  const_i32(w, "axis", 0, NULL, (const int32_t[]){2}, 1);
  mp_tfw_add_simple_tensor(w, "d", MP_DTYPE_INT8, 3, (const int32_t[]){4, 8, 1});
  const_i8(w, "w2", 2, (const int32_t[]){4, 32}, 128);
  act(w, "out", 4);
  op(w, FX_FULLY_CONNECTED, IDS(0, 1, -1), IDS(2));
  mp_tfw_option ro[] = {{.field = 0, .type = MP_TFW_I32_VEC, .n_vec = 3,
                         .vec = (const int32_t[]){1, 4, 8}}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RESHAPE, IDS_IN(2, 3), .n_outputs = 1,
                                .outputs = (const int32_t[]){4},
                                .options_type = MP_TFW_OPT_RESHAPE, .n_options = 1,
                                .options = ro});
  mp_tfw_option so[] = {{.field = 0, .type = MP_TFW_I32_VEC, .n_vec = 1,
                         .vec = (const int32_t[]){0}}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SQUEEZE, IDS_IN(4), .n_outputs = 1,
                                .outputs = (const int32_t[]){5},
                                .options_type = MP_TFW_OPT_SQUEEZE, .n_options = 1,
                                .options = so});
  op(w, FX_EXPAND_DIMS, IDS(5, 6), IDS(7));
  op(w, FX_FULLY_CONNECTED, IDS(7, 8, -1), IDS(9));
  mp_tfw_set_io(w, IDS(0), IDS(9));
}

/* view_of_constant: 0 in [1,16] [0,1]; 1 table int8 [16] constant;
 * 2 shape int32 [2] constant {1,16}; 3 view [1,16], no alias (its input
 * is a constant): computed at convert time, a constant; 4 out [1,16]
 * [1,1].  ops: 0 RESHAPE(1,2)->3 (folded), 1 ADD(0,3)->4.  lb 32 (op 1:
 * 16+16). */
static void build_view_of_constant(mp_tfw *w) {
  act(w, "in", 16);
  const_i8(w, "table", 1, (const int32_t[]){16}, 16);
  const_i32(w, "shape", 1, (const int32_t[]){2}, (const int32_t[]){1, 16}, 2);
  act(w, "view", 16);
  act(w, "out", 16);
  op(w, FX_RESHAPE, IDS(1, 2), IDS(3));
  op(w, FX_ADD, IDS(0, 3), IDS(4));
  mp_tfw_set_io(w, IDS(0), IDS(4));
}

/* optional_input: 0 in [1,8] [0,0]; 1 w int8 [4,8] constant; 2 out [1,4]
 * [0,0].  op 0 FULLY_CONNECTED(0,1,-1)->2 (no bias).  lb 32. */
static void build_optional_input(mp_tfw *w) {
  act(w, "in", 8);
  const_i8(w, "w", 2, (const int32_t[]){4, 8}, 32);
  act(w, "out", 4);
  op(w, FX_FULLY_CONNECTED, IDS(0, 1, -1), IDS(2));
  mp_tfw_set_io(w, IDS(0), IDS(2));
}

/* intermediates: 0 in [1,8] [0,0]; 1 w int8 [4,8] constant;
 * 2 gate [1,64] intermediate of op 0: [0,0]; 3 cell [1,32] intermediate
 * of op 0: [0,0]; 4 h [1,4] [0,1]; 5 out [1,4] [1,1].
 * ops: 0 UNIDIRECTIONAL_SEQUENCE_LSTM(0,1,-1) intermediates (2,3) -> 4,
 *   1 RELU(4)->5.  lb 128 (op 0: 16+64+32+16). */
static void build_intermediates(mp_tfw *w) {
  act(w, "in", 8);
  const_i8(w, "w", 2, (const int32_t[]){4, 8}, 32);
  act(w, "gate", 64);
  act(w, "cell", 32);
  act(w, "h", 4);
  act(w, "out", 4);
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_UNIDIRECTIONAL_SEQUENCE_LSTM, IDS_IN(0, 1, -1),
                                .n_outputs = 1, .outputs = (const int32_t[]){4},
                                .n_intermediates = 2, .intermediates = (const int32_t[]){2, 3}});
  op(w, FX_RELU, IDS(4), IDS(5));
  mp_tfw_set_io(w, IDS(0), IDS(5));
}

/* written_twice: 0 in [1,8]; 1 a [1,8].  ops 0 RELU(0)->1, 1 TANH(0)->1.
 * The model parses; mp_graph_build fails with MP_ERR_MODEL: "tensor 1 'a'
 * is written by operator 0 and again by operator 1". */
static void build_written_twice(mp_tfw *w) {
  act(w, "in", 8);
  act(w, "a", 8);
  op(w, FX_RELU, IDS(0), IDS(1));
  op(w, FX_TANH, IDS(0), IDS(1));
  mp_tfw_set_io(w, IDS(0), IDS(1));
}

/* writes_constant: 0 in [1,8]; 1 weights int8 [1,8] constant.
 * op 0 RELU(0)->1.  mp_graph_build fails with MP_ERR_MODEL: "operator 0
 * (RELU) writes tensor 1 'weights', which is a constant". */
static void build_writes_constant(mp_tfw *w) {
  act(w, "in", 8);
  const_i8(w, "weights", 2, (const int32_t[]){1, 8}, 8);
  op(w, FX_RELU, IDS(0), IDS(1));
  mp_tfw_set_io(w, IDS(0), IDS(1));
}

/* dynamic_shape: 0 in [1,8]; 1 out [-1,8] (dynamic batch, shape_signature
 * [-1,8]).  op 0 RELU(0)->1.  The model parses; mp_graph_build fails with
 * MP_ERR_UNSUPPORTED: "tensor 1 'out' has dynamic shape (dimension 0 is
 * -1); memplan needs static shapes". */
static void build_dynamic_shape(mp_tfw *w) {
  act(w, "in", 8);
  mp_tfw_tensor t = {.name = "out", .dtype = MP_DTYPE_INT8, .rank = 2,
                     .shape = (const int32_t[]){-1, 8}, .has_shape_signature = true,
                     .shape_signature = (const int32_t[]){-1, 8}};
  mp_tfw_add_tensor(w, &t);
  op(w, FX_RELU, IDS(0), IDS(1));
  mp_tfw_set_io(w, IDS(0), IDS(1));
}

/* custom_ops: float32 0 in [1,16]; op 0 ADD(0,0)->1, op 1 CUSTOM
 * "MP_FX_CUSTOM"(1)->2, op 2 the same custom operator (2)->3.  A custom
 * operator never has one of memplan's kernels: convert lists ops 1 and 2
 * as unsupported, and with --allow-unsupported the module runs op 0 and
 * stops at op 1. */
static void build_custom_ops(mp_tfw *w) {
  for (int i = 0; i < 4; i++) {
    static const char *const names[] = {"in", "sum", "custom1", "custom2"};
    mp_tfw_add_simple_tensor(w, names[i], MP_DTYPE_FLOAT32, 2, (const int32_t[]){1, 16});
  }
  op(w, FX_ADD, IDS(0, 0), IDS(1));
  for (int32_t i = 1; i < 3; i++)
    mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_CUSTOM, .custom_code = "MP_FX_CUSTOM",
                                  .n_inputs = 1, .inputs = (const int32_t[]){i}, .n_outputs = 1,
                                  .outputs = (const int32_t[]){i + 1}});
  mp_tfw_set_io(w, IDS(0), IDS(3));
}

/* A flexbuffer map of n integer (or, with is_bool, bool) values, keys in
 * name order, as TFLM's Signal operators read their custom options:
 * values in 2-byte slots, keys and their vector in bytes.  Its size. */
static uint32_t flex_map(uint8_t *buf, const char *const *keys, const int32_t *vals,
                         const bool *is_bool, uint32_t n) {
  uint32_t at = 0, key_at[8];
  for (uint32_t i = 0; i < n; i++) {
    key_at[i] = at;
    size_t len = strlen(keys[i]) + 1;
    memcpy(buf + at, keys[i], len);
    at += (uint32_t)len;
  }
  buf[at++] = (uint8_t)n; /* the keys vector: its size, then byte offsets */
  const uint32_t keys_vec = at;
  for (uint32_t i = 0; i < n; i++, at++) buf[at] = (uint8_t)(at - key_at[i]);
  const uint32_t prefix[3] = {at - keys_vec, 1, n}; /* keys offset, key width, size */
  for (uint32_t i = 0; i < 3; i++, at += 2) {
    buf[at] = (uint8_t)(prefix[i] & 0xff);
    buf[at + 1] = (uint8_t)(prefix[i] >> 8);
  }
  const uint32_t values = at;
  for (uint32_t i = 0; i < n; i++, at += 2) {
    buf[at] = (uint8_t)((uint32_t)vals[i] & 0xff);
    buf[at + 1] = (uint8_t)((uint32_t)vals[i] >> 8);
  }
  for (uint32_t i = 0; i < n; i++) /* INT or BOOL, 2 bytes wide */
    buf[at++] = (uint8_t)(((is_bool && is_bool[i] ? 26 : 1) << 2) | 1);
  buf[at] = (uint8_t)(at - values); /* the root: the map, 2-byte slots */
  at++;
  buf[at++] = (uint8_t)((9 << 2) | 1);
  buf[at++] = 1;
  return at;
}

static void signal_op(mp_tfw *w, const char *code, const char *const *keys, const int32_t *vals,
                      const bool *is_bool, uint32_t n, uint32_t n_in, const int32_t *ins,
                      uint32_t n_out, const int32_t *outs) {
  uint8_t opts[256];
  uint32_t size = flex_map(opts, keys, vals, is_bool, n);
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_CUSTOM, .custom_code = code, .n_inputs = n_in,
                                .inputs = ins, .n_outputs = n_out, .outputs = outs,
                                .custom_options_size = size, .custom_options = opts});
}

/* block_move: DEPTH_TO_SPACE and SPACE_TO_DEPTH (block 2), both ways, and
 * MIRROR_PAD in both modes.
 *   0 x   int8 [1,2,2,8] (0.05, -3)  -> 0 DEPTH_TO_SPACE -> 1 d [1,4,4,2]
 *   1 d                              -> 1 SPACE_TO_DEPTH -> 2 y [1,2,2,8] = x
 *   3 f   float32 [1,4,4,1]          -> 2 SPACE_TO_DEPTH -> 4 g [1,2,2,4]
 *   2 y, 5 p [[0,0],[1,1],[1,0],[0,0]] -> 3 MIRROR_PAD REFLECT -> 7 z [1,4,3,8]
 *   4 g, 6 q [[0,0],[2,2],[0,2],[0,0]] (int64) -> 4 MIRROR_PAD SYMMETRIC
 *                                                -> 8 h [1,6,4,4]
 * and the other data-movement operators (block 9 [2,2]; paddings / crops
 * 10 [[1,1],[0,2]], 13 zero):
 *   2 y                  -> 5 SPACE_TO_BATCH_ND -> 11 s int8 [4,2,2,8]
 *   11 s                 -> 6 BATCH_TO_SPACE_ND -> 12 b int8 [1,2,2,8] = y
 *   3 f                  -> 7 SPACE_TO_BATCH_ND -> 14 u float32 [4,2,2,1]
 *   14 u, 15 axes [1,2]  -> 8 REVERSE_V2        -> 16 r [4,2,2,1]
 *   0 x, 17 ix int32 [3,3] (an input)  -> 9 GATHER_ND -> 18 gn int8 [3,8]
 *   12 b, 19 [2,2,2,8]   -> 10 BROADCAST_TO     -> 20 bc int8 [2,2,2,8]
 *   21 dims [2,3], 22 v float32 scalar (an input) -> 11 FILL -> 23 fl [2,3]
 *   4 g                  -> 12 ZEROS_LIKE       -> 24 zl [1,2,2,4]
 *   25 ids int32 [3] (an input), 26 table float32 [4,2] -> 13
 *                           EMBEDDING_LOOKUP    -> 27 el [3,2]
 * GATHER_ND's and EMBEDDING_LOOKUP's indices come in at run time, so any
 * value must be safe (out of range: the module's error status). */
static void build_block_move(mp_tfw *w) {
  static const float scale = 0.05f;
  static const int64_t zp = -3;
  const char *const names[3] = {"x", "d", "y"};
  const int32_t shapes[3][4] = {{1, 2, 2, 8}, {1, 4, 4, 2}, {1, 2, 2, 8}};
  for (int i = 0; i < 3; i++) {
    mp_tfw_tensor t = {.name = names[i], .dtype = MP_DTYPE_INT8, .rank = 4, .shape = shapes[i],
                       .has_quant = true};
    t.quant = (mp_quant){1, &scale, 1, &zp, 0};
    mp_tfw_add_tensor(w, &t);
  }
  mp_tfw_add_simple_tensor(w, "f", MP_DTYPE_FLOAT32, 4, (const int32_t[]){1, 4, 4, 1});
  mp_tfw_add_simple_tensor(w, "g", MP_DTYPE_FLOAT32, 4, (const int32_t[]){1, 2, 2, 4});
  const mp_tfw_option block = {.field = 0, .type = MP_TFW_I32, .i = 2};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_DEPTH_TO_SPACE, IDS_IN(0), .n_outputs = 1,
                                .outputs = (const int32_t[]){1}, .options_type = 94,
                                .n_options = 1, .options = &block});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SPACE_TO_DEPTH, IDS_IN(1), .n_outputs = 1,
                                .outputs = (const int32_t[]){2}, .options_type = 19,
                                .n_options = 1, .options = &block});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SPACE_TO_DEPTH, IDS_IN(3), .n_outputs = 1,
                                .outputs = (const int32_t[]){4}, .options_type = 19,
                                .n_options = 1, .options = &block});
  static const int32_t p[8] = {0, 0, 1, 1, 1, 0, 0, 0};
  static const int64_t q[8] = {0, 0, 2, 2, 0, 2, 0, 0};
  const_i32(w, "p", 2, (const int32_t[]){4, 2}, p, 8);
  constant(w, "q", MP_DTYPE_INT64, 2, (const int32_t[]){4, 2}, q, sizeof q);
  mp_tfw_tensor z = {.name = "z", .dtype = MP_DTYPE_INT8, .rank = 4,
                     .shape = (const int32_t[]){1, 4, 3, 8}, .has_quant = true};
  z.quant = (mp_quant){1, &scale, 1, &zp, 0};
  mp_tfw_add_tensor(w, &z);
  mp_tfw_add_simple_tensor(w, "h", MP_DTYPE_FLOAT32, 4, (const int32_t[]){1, 6, 4, 4});
  const mp_tfw_option reflect = {.field = 0, .type = MP_TFW_I8, .i = 0};
  const mp_tfw_option symmetric = {.field = 0, .type = MP_TFW_I8, .i = 1};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_MIRROR_PAD, IDS_IN(2, 5), .n_outputs = 1,
                                .outputs = (const int32_t[]){7}, .options_type = 77,
                                .n_options = 1, .options = &reflect});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_MIRROR_PAD, IDS_IN(4, 6), .n_outputs = 1,
                                .outputs = (const int32_t[]){8}, .options_type = 77,
                                .n_options = 1, .options = &symmetric});
  const_i32(w, "block", 1, (const int32_t[]){2}, (const int32_t[]){2, 2}, 2);
  const_i32(w, "pads", 2, (const int32_t[]){2, 2}, (const int32_t[]){1, 1, 0, 2}, 4);
  const char *const qnames[2] = {"s", "b"};
  const int32_t qshapes[2][4] = {{4, 2, 2, 8}, {1, 2, 2, 8}};
  for (int i = 0; i < 2; i++) {
    mp_tfw_tensor t = {.name = qnames[i], .dtype = MP_DTYPE_INT8, .rank = 4, .shape = qshapes[i],
                       .has_quant = true};
    t.quant = (mp_quant){1, &scale, 1, &zp, 0};
    mp_tfw_add_tensor(w, &t);
  }
  const_i32(w, "zero", 2, (const int32_t[]){2, 2}, (const int32_t[]){0, 0, 0, 0}, 4);
  mp_tfw_add_simple_tensor(w, "u", MP_DTYPE_FLOAT32, 4, (const int32_t[]){4, 2, 2, 1});
  const_i32(w, "axes", 1, (const int32_t[]){2}, (const int32_t[]){1, 2}, 2);
  mp_tfw_add_simple_tensor(w, "r", MP_DTYPE_FLOAT32, 4, (const int32_t[]){4, 2, 2, 1});
  mp_tfw_add_simple_tensor(w, "ix", MP_DTYPE_INT32, 2, (const int32_t[]){3, 3});
  mp_tfw_tensor gn = {.name = "gn", .dtype = MP_DTYPE_INT8, .rank = 2,
                      .shape = (const int32_t[]){3, 8}, .has_quant = true};
  gn.quant = (mp_quant){1, &scale, 1, &zp, 0};
  mp_tfw_add_tensor(w, &gn);
  const_i32(w, "to", 1, (const int32_t[]){4}, (const int32_t[]){2, 2, 2, 8}, 4);
  mp_tfw_tensor bc = {.name = "bc", .dtype = MP_DTYPE_INT8, .rank = 4,
                      .shape = (const int32_t[]){2, 2, 2, 8}, .has_quant = true};
  bc.quant = (mp_quant){1, &scale, 1, &zp, 0};
  mp_tfw_add_tensor(w, &bc);
  const_i32(w, "dims", 1, (const int32_t[]){2}, (const int32_t[]){2, 3}, 2);
  mp_tfw_add_simple_tensor(w, "v", MP_DTYPE_FLOAT32, 0, NULL);
  mp_tfw_add_simple_tensor(w, "fl", MP_DTYPE_FLOAT32, 2, (const int32_t[]){2, 3});
  mp_tfw_add_simple_tensor(w, "zl", MP_DTYPE_FLOAT32, 4, (const int32_t[]){1, 2, 2, 4});
  mp_tfw_add_simple_tensor(w, "ids", MP_DTYPE_INT32, 1, (const int32_t[]){3});
  static const float table[8] = {0.5f, -1.0f, 2.0f, 3.5f, -4.0f, 0.25f, 8.0f, -0.75f};
  constant(w, "table", MP_DTYPE_FLOAT32, 2, (const int32_t[]){4, 2}, table, sizeof table);
  mp_tfw_add_simple_tensor(w, "el", MP_DTYPE_FLOAT32, 2, (const int32_t[]){3, 2});
  op(w, FX_SPACE_TO_BATCH_ND, IDS(2, 9, 10), IDS(11));
  op(w, FX_BATCH_TO_SPACE_ND, IDS(11, 9, 10), IDS(12));
  op(w, FX_SPACE_TO_BATCH_ND, IDS(3, 9, 13), IDS(14));
  op(w, FX_REVERSE_V2, IDS(14, 15), IDS(16));
  op(w, FX_GATHER_ND, IDS(0, 17), IDS(18));
  op(w, FX_BROADCAST_TO, IDS(12, 19), IDS(20));
  op(w, FX_FILL, IDS(21, 22), IDS(23));
  op(w, FX_ZEROS_LIKE, IDS(4), IDS(24));
  op(w, FX_EMBEDDING_LOOKUP, IDS(25, 26), IDS(27));
  mp_tfw_set_io(w, IDS(0, 3, 17, 22, 25), IDS(7, 8, 16, 18, 20, 23, 24, 27));
}

/* signal_stream: a streaming audio front end's state-keeping Signal
 * operators on int16 x[8], each call the next 8 samples: 0 SignalDelay
 * (delay_length 8) x -> delayed[8]; 1 SignalFramer (frame_size 16,
 * frame_step 8, prefill) x -> frames[1,16], framed (bool); 2
 * SignalOverlapAdd (frame_step 8) frames -> ola[8]; 3 SignalStacker (8
 * channels, left context 1, right 0, step 1) delayed -> stack[16],
 * stacked (bool); 4 SignalRfft and 5 SignalIrfft (fft_length 16) frames
 * -> spectrum[1,18] -> back[1,16].  Framing with prefill and overlap-
 * adding frames twice their step apart gives twice the input one call
 * late, so ola is 2 * delayed; back is frames / 16 (KISS FFT's fixed
 * point scales each transform by its length) within rounding; ops 0-3
 * keep state between runs, which reset_state clears. */
static void build_signal_stream(mp_tfw *w) {
  static const char *const names[] = {"x",     "delayed", "frames",   "framed", "ola",
                                      "stack", "stacked", "spectrum", "back"};
  static const int32_t dtypes[] = {MP_DTYPE_INT16, MP_DTYPE_INT16, MP_DTYPE_INT16,
                                   MP_DTYPE_BOOL,  MP_DTYPE_INT16, MP_DTYPE_INT16,
                                   MP_DTYPE_BOOL,  MP_DTYPE_INT16, MP_DTYPE_INT16};
  static const uint32_t ranks[] = {1, 1, 2, 0, 1, 1, 0, 2, 2};
  static const int32_t shapes[][2] = {{8}, {8}, {1, 16}, {0}, {8}, {16}, {0}, {1, 18}, {1, 16}};
  for (int i = 0; i < 9; i++) mp_tfw_add_simple_tensor(w, names[i], dtypes[i], ranks[i], shapes[i]);
  signal_op(w, "SignalDelay", (const char *const[]){"delay_length"}, (const int32_t[]){8}, NULL, 1,
            IDS(0), IDS(1));
  signal_op(w, "SignalFramer", (const char *const[]){"frame_size", "frame_step", "prefill"},
            (const int32_t[]){16, 8, 1}, (const bool[]){false, false, true}, 3, IDS(0), IDS(2, 3));
  signal_op(w, "SignalOverlapAdd", (const char *const[]){"T", "frame_step"},
            (const int32_t[]){MP_DTYPE_INT16, 8}, NULL, 2, IDS(2), IDS(4));
  signal_op(w, "SignalStacker",
            (const char *const[]){"num_channels", "stacker_left_context", "stacker_right_context",
                                  "stacker_step"},
            (const int32_t[]){8, 1, 0, 1}, NULL, 4, IDS(1), IDS(5, 6));
  signal_op(w, "SignalRfft", (const char *const[]){"T", "fft_length"},
            (const int32_t[]){MP_DTYPE_INT16, 16}, NULL, 2, IDS(2), IDS(7));
  signal_op(w, "SignalIrfft", (const char *const[]){"T", "fft_length"},
            (const int32_t[]){MP_DTYPE_INT16, 16}, NULL, 2, IDS(7), IDS(8));
  mp_tfw_set_io(w, IDS(0), IDS(1, 4, 3, 5, 6, 8));
}

/* A quantised tensor of padded_block. */
static int32_t block_tensor(mp_tfw *w, const char *name, int32_t dtype, uint32_t rank,
                       const int32_t *shape, float scale, int64_t zp, const void *data,
                       size_t bytes) {
  mp_tfw_tensor t = {.name = name, .dtype = dtype, .rank = rank, .shape = shape, .has_quant = true,
                     .quant = {1, &scale, 1, &zp, 0}};
  if (data) t.buffer = mp_tfw_add_buffer(w, data, bytes);
  return (int32_t)mp_tfw_add_tensor(w, &t);
}

/* A MobileNetV2-style block as a PyTorch conversion writes it: a 1x1
 * expansion 8 -> 48 channels at 56x56, an explicit PAD, a VALID 3x3
 * depthwise convolution and a 1x1 projection back to 8 channels. */
static void build_padded_block(mp_tfw *w) {
  static int8_t w1[48 * 8], wdw[9 * 48], w3[8 * 48];
  static int32_t b1[48], bdw[48], b3[8];
  for (int i = 0; i < 48 * 8; i++) w1[i] = w3[i] = (int8_t)((i * 37) % 255 - 127);
  for (int i = 0; i < 9 * 48; i++) wdw[i] = (int8_t)((i * 53) % 255 - 127);
  const int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0};
  const int32_t s_in[4] = {1, 56, 56, 8}, s_a[4] = {1, 56, 56, 48}, s_p[4] = {1, 58, 58, 48},
                s_w1[4] = {48, 1, 1, 8}, s_wdw[4] = {1, 3, 3, 48}, s_w3[4] = {8, 1, 1, 48},
                s_b48[1] = {48}, s_b8[1] = {8}, s_pads[2] = {4, 2};
  int32_t x = block_tensor(w, "input", MP_DTYPE_INT8, 4, s_in, 0.05f, -1, NULL, 0);
  int32_t tw1 = block_tensor(w, "w1", MP_DTYPE_INT8, 4, s_w1, 0.01f, 0, w1, sizeof w1);
  int32_t tb1 = block_tensor(w, "b1", MP_DTYPE_INT32, 1, s_b48, 0.0005f, 0, b1, sizeof b1);
  int32_t a1 = block_tensor(w, "expand", MP_DTYPE_INT8, 4, s_a, 0.1f, -5, NULL, 0);
  mp_tfw_tensor tp = {.name = "pads", .dtype = MP_DTYPE_INT32, .rank = 2, .shape = s_pads};
  tp.buffer = mp_tfw_add_buffer(w, pads, sizeof pads);
  int32_t tpads = (int32_t)mp_tfw_add_tensor(w, &tp);
  int32_t p1 = block_tensor(w, "padded", MP_DTYPE_INT8, 4, s_p, 0.1f, -5, NULL, 0);
  int32_t twd = block_tensor(w, "wdw", MP_DTYPE_INT8, 4, s_wdw, 0.01f, 0, wdw, sizeof wdw);
  int32_t tbd = block_tensor(w, "bdw", MP_DTYPE_INT32, 1, s_b48, 0.001f, 0, bdw, sizeof bdw);
  int32_t a2 = block_tensor(w, "depthwise", MP_DTYPE_INT8, 4, s_a, 0.1f, -5, NULL, 0);
  int32_t tw3 = block_tensor(w, "w3", MP_DTYPE_INT8, 4, s_w3, 0.01f, 0, w3, sizeof w3);
  int32_t tb3 = block_tensor(w, "b3", MP_DTYPE_INT32, 1, s_b8, 0.001f, 0, b3, sizeof b3);
  int32_t y = block_tensor(w, "project", MP_DTYPE_INT8, 4, s_in, 0.05f, 3, NULL, 0);
  const mp_tfw_option conv_opts[] = {{0, MP_TFW_I8, 1, 0, 0, NULL}, {1, MP_TFW_I32, 1, 0, 0, NULL},
                                     {2, MP_TFW_I32, 1, 0, 0, NULL}, {3, MP_TFW_I8, 0, 0, 0, NULL}};
  const mp_tfw_option dw_opts[] = {{0, MP_TFW_I8, 1, 0, 0, NULL}, {1, MP_TFW_I32, 1, 0, 0, NULL},
                                   {2, MP_TFW_I32, 1, 0, 0, NULL}, {3, MP_TFW_I32, 1, 0, 0, NULL},
                                   {4, MP_TFW_I8, 0, 0, 0, NULL}};
  int32_t i0[3] = {x, tw1, tb1}, i1[2] = {a1, tpads}, i2[3] = {p1, twd, tbd}, i3[3] = {a2, tw3, tb3};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 3, .n_inputs = 3, .inputs = i0, .n_outputs = 1,
                                .outputs = &a1, .options_type = MP_TFW_OPT_CONV2D, .n_options = 4,
                                .options = conv_opts});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 34, .n_inputs = 2, .inputs = i1, .n_outputs = 1,
                                .outputs = &p1});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 4, .n_inputs = 3, .inputs = i2, .n_outputs = 1,
                                .outputs = &a2, .options_type = MP_TFW_OPT_DEPTHWISE_CONV2D,
                                .n_options = 5, .options = dw_opts});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 3, .n_inputs = 3, .inputs = i3, .n_outputs = 1,
                                .outputs = &y, .options_type = MP_TFW_OPT_CONV2D, .n_options = 4,
                                .options = conv_opts});
  mp_tfw_set_io(w, 1, &x, 1, &y);
}

/* ---- PAD folding (memory.in_place) ------------------------------------- */

/* A builder of PAD + convolution chains: NHWC activations, random filters
 * and biases from a fixed seed. */
typedef struct padb {
  mp_tfw *w;
  rng r;
  bool f32;
  bool s16; /* 16x8: int16 activations (zero point 0), int8 filters, int64 biases */
} padb;

static int32_t pb_act(padb *b, const char *name, int32_t h, int32_t wd, int32_t c, float scale,
                      int64_t zp) {
  const int32_t shape[4] = {1, h, wd, c};
  if (b->f32) return (int32_t)mp_tfw_add_simple_tensor(b->w, name, MP_DTYPE_FLOAT32, 4, shape);
  if (b->s16) return block_tensor(b->w, name, MP_DTYPE_INT16, 4, shape, scale, 0, NULL, 0);
  return block_tensor(b->w, name, MP_DTYPE_INT8, 4, shape, scale, zp, NULL, 0);
}

/* PAD (value_zp < -128: PAD; else PADV2 with that value) of x [1,h,w,c]
 * by top, bottom, left, right rows and columns, into a tensor of x's
 * quantisation. */
static int32_t pb_pad(padb *b, int32_t x, const int32_t shape[4], const int32_t pad[4],
                      float scale, int64_t zp, int32_t v2_value, int32_t *out_shape) {
  const int32_t pads[8] = {0, 0, pad[0], pad[1], pad[2], pad[3], 0, 0}, s_pads[2] = {4, 2};
  mp_tfw_tensor tp = {.name = "paddings", .dtype = MP_DTYPE_INT32, .rank = 2, .shape = s_pads};
  tp.buffer = mp_tfw_add_buffer(b->w, pads, sizeof pads);
  int32_t tpads = (int32_t)mp_tfw_add_tensor(b->w, &tp);
  out_shape[0] = 1;
  out_shape[1] = shape[1] + pad[0] + pad[1];
  out_shape[2] = shape[2] + pad[2] + pad[3];
  out_shape[3] = shape[3];
  int32_t y = pb_act(b, "padded", out_shape[1], out_shape[2], out_shape[3], scale, zp);
  int32_t ins[3] = {x, tpads, -1};
  uint32_t n_in = 2;
  if (v2_value >= -128) {
    const int32_t one[1] = {1};
    int8_t v8 = (int8_t)v2_value;
    float vf = (float)v2_value;
    mp_tfw_tensor tv = {.name = "pad_value", .dtype = b->f32 ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT8,
                        .rank = 1, .shape = one};
    if (!b->f32) {
      tv.has_quant = true;
      tv.quant = (mp_quant){1, &scale, 1, &zp, 0};
    }
    tv.buffer = b->f32 ? mp_tfw_add_buffer(b->w, &vf, sizeof vf) : mp_tfw_add_buffer(b->w, &v8, 1);
    ins[2] = (int32_t)mp_tfw_add_tensor(b->w, &tv);
    n_in = 3;
  }
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = n_in == 3 ? 60 : FX_PAD, .n_inputs = n_in,
                                   .inputs = ins, .n_outputs = 1, .outputs = &y});
  return y;
}

/* A CONV_2D (depth_multiplier 0) or DEPTHWISE_CONV_2D of x [1,h,w,c] into
 * a new tensor out_shape. */
static int32_t pb_conv(padb *b, int32_t x, int32_t in_c, int32_t fh, int32_t fw, int32_t dm,
                       int32_t out_c, bool same, int32_t stride, int32_t dil, int32_t act,
                       float in_scale, const int32_t out_shape[4], float out_scale,
                       int64_t out_zp) {
  size_t taps = (size_t)fh * fw * (dm ? 1 : in_c) * out_c;
  const int32_t s_f[4] = {dm ? 1 : out_c, fh, fw, dm ? out_c : in_c}, s_b[1] = {out_c};
  int32_t tf, tb;
  if (b->f32) {
    float *f = malloc(taps * sizeof *f), *bias = malloc((size_t)out_c * sizeof *bias);
    for (size_t i = 0; i < taps; i++) f[i] = rng_sym(&b->r) * 0.5f;
    for (int32_t i = 0; i < out_c; i++) bias[i] = rng_sym(&b->r) * 0.25f;
    mp_tfw_tensor t = {.name = "filter", .dtype = MP_DTYPE_FLOAT32, .rank = 4, .shape = s_f};
    t.buffer = mp_tfw_add_buffer(b->w, f, taps * sizeof *f);
    tf = (int32_t)mp_tfw_add_tensor(b->w, &t);
    mp_tfw_tensor tbias = {.name = "bias", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = s_b};
    tbias.buffer = mp_tfw_add_buffer(b->w, bias, (size_t)out_c * sizeof *bias);
    tb = (int32_t)mp_tfw_add_tensor(b->w, &tbias);
    free(f);
    free(bias);
  } else if (b->s16) {
    int8_t *f = malloc(taps);
    int64_t *bias = malloc((size_t)out_c * sizeof *bias);
    for (size_t i = 0; i < taps; i++) f[i] = (int8_t)rng_int(&b->r, -127, 127);
    for (int32_t i = 0; i < out_c; i++) bias[i] = rng_int(&b->r, -200000, 200000);
    tf = block_tensor(b->w, "filter", MP_DTYPE_INT8, 4, s_f, 0.01f, 0, f, taps);
    tb = block_tensor(b->w, "bias", MP_DTYPE_INT64, 1, s_b, in_scale * 0.01f, 0, bias,
                      (size_t)out_c * sizeof *bias);
    free(f);
    free(bias);
  } else {
    int8_t *f = malloc(taps);
    int32_t *bias = malloc((size_t)out_c * sizeof *bias);
    for (size_t i = 0; i < taps; i++) f[i] = (int8_t)rng_int(&b->r, -127, 127);
    for (int32_t i = 0; i < out_c; i++) bias[i] = rng_int(&b->r, -2000, 2000);
    tf = block_tensor(b->w, "filter", MP_DTYPE_INT8, 4, s_f, 0.01f, 0, f, taps);
    tb = block_tensor(b->w, "bias", MP_DTYPE_INT32, 1, s_b, in_scale * 0.01f, 0, bias,
                      (size_t)out_c * sizeof *bias);
    free(f);
    free(bias);
  }
  int32_t y = pb_act(b, dm ? "depthwise" : "conv", out_shape[1], out_shape[2], out_shape[3],
                     out_scale, out_zp);
  const mp_tfw_option conv_opts[] = {{0, MP_TFW_I8, same ? 0 : 1, 0, 0, NULL},
                                     {1, MP_TFW_I32, stride, 0, 0, NULL},
                                     {2, MP_TFW_I32, stride, 0, 0, NULL},
                                     {3, MP_TFW_I8, act, 0, 0, NULL},
                                     {4, MP_TFW_I32, dil, 0, 0, NULL},
                                     {5, MP_TFW_I32, dil, 0, 0, NULL}};
  const mp_tfw_option dw_opts[] = {{0, MP_TFW_I8, same ? 0 : 1, 0, 0, NULL},
                                   {1, MP_TFW_I32, stride, 0, 0, NULL},
                                   {2, MP_TFW_I32, stride, 0, 0, NULL},
                                   {3, MP_TFW_I32, dm, 0, 0, NULL},
                                   {4, MP_TFW_I8, act, 0, 0, NULL},
                                   {5, MP_TFW_I32, dil, 0, 0, NULL},
                                   {6, MP_TFW_I32, dil, 0, 0, NULL}};
  int32_t ins[3] = {x, tf, tb};
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = dm ? FX_DEPTHWISE_CONV_2D : FX_CONV_2D,
                                   .n_inputs = 3, .inputs = ins, .n_outputs = 1, .outputs = &y,
                                   .options_type = dm ? MP_TFW_OPT_DEPTHWISE_CONV2D
                                                      : MP_TFW_OPT_CONV2D,
                                   .n_options = dm ? 7 : 6, .options = dm ? dw_opts : conv_opts});
  return y;
}

/* int8 PAD / PADV2 + convolution chain, 1x9x11x4 in; the three PADs of
 * ops 0, 2 and 4 fold, those of ops 6 (value 7, not the zero point) and
 * 8 (a graph output) do not, and neither does op 10's (a PADV2 whose
 * output two convolutions read), while op 13's bottom / right padding
 * before a 1x1 convolution folds:
 *   0 PAD (1,1,1,1)       -> [1,11,13,4]  1 CONV 3x3 VALID 4->6
 *   2 PADV2 (0,1,0,1) zp  -> [1,10,12,6]  3 DEPTHWISE 3x3 stride 2 VALID
 *   4 PAD (2,0,1,3)       -> [1,6,9,6]    5 CONV 3x3 SAME dilation 2 6->5, RELU
 *   6 PADV2 (1,1,1,1) 7   -> [1,8,11,5]   7 DEPTHWISE 3x3 VALID x2 -> [1,6,9,10]
 *   8 PAD (1,1,1,1)       -> [1,8,11,10]  9 CONV 3x3 VALID 10->4
 *  10 PADV2 (1,1,1,1) zp  -> [1,8,11,4]  11 and 12: DEPTHWISE 3x3 VALID of it
 *  13 PAD (0,1,0,2) of 11 -> [1,7,11,4]  14 CONV 1x1 4->3
 * outputs: op 14's, op 8's and op 12's. */
static void build_pad_conv(mp_tfw *w) {
  padb b = {w, {0x9adf01d}, false, false};
  int32_t s[4], sp[4];
  int32_t x = pb_act(&b, "input", 9, 11, 4, 0.05f, -3);
  memcpy(s, (const int32_t[]){1, 9, 11, 4}, sizeof s);
  int32_t p = pb_pad(&b, x, s, (const int32_t[]){1, 1, 1, 1}, 0.05f, -3, -999, sp);
  memcpy(s, (const int32_t[]){1, 9, 11, 6}, sizeof s);
  int32_t y = pb_conv(&b, p, 4, 3, 3, 0, 6, false, 1, 1, 0, 0.05f, s, 0.1f, 2);
  p = pb_pad(&b, y, s, (const int32_t[]){0, 1, 0, 1}, 0.1f, 2, 2, sp);
  memcpy(s, (const int32_t[]){1, 4, 5, 6}, sizeof s);
  y = pb_conv(&b, p, 6, 3, 3, 1, 6, false, 2, 1, 0, 0.1f, s, 0.08f, -4);
  p = pb_pad(&b, y, s, (const int32_t[]){2, 0, 1, 3}, 0.08f, -4, -999, sp);
  memcpy(s, (const int32_t[]){1, 6, 9, 5}, sizeof s);
  y = pb_conv(&b, p, 6, 3, 3, 0, 5, true, 1, 2, 1, 0.08f, s, 0.06f, -128);
  p = pb_pad(&b, y, s, (const int32_t[]){1, 1, 1, 1}, 0.06f, -128, 7, sp);
  memcpy(s, (const int32_t[]){1, 6, 9, 10}, sizeof s);
  y = pb_conv(&b, p, 5, 3, 3, 2, 10, false, 1, 1, 0, 0.06f, s, 0.07f, 1);
  int32_t out8 = pb_pad(&b, y, s, (const int32_t[]){1, 1, 1, 1}, 0.07f, 1, -999, sp);
  memcpy(s, (const int32_t[]){1, 6, 9, 4}, sizeof s);
  y = pb_conv(&b, out8, 10, 3, 3, 0, 4, false, 1, 1, 0, 0.07f, s, 0.09f, 0);
  p = pb_pad(&b, y, s, (const int32_t[]){1, 1, 1, 1}, 0.09f, 0, 0, sp);
  int32_t y11 = pb_conv(&b, p, 4, 3, 3, 1, 4, false, 1, 1, 0, 0.09f, s, 0.05f, 5);
  int32_t out12 = pb_conv(&b, p, 4, 3, 3, 1, 4, false, 1, 1, 0, 0.09f, s, 0.05f, -5);
  p = pb_pad(&b, y11, s, (const int32_t[]){0, 1, 0, 2}, 0.05f, 5, -999, sp);
  memcpy(s, (const int32_t[]){1, 7, 11, 3}, sizeof s);
  y = pb_conv(&b, p, 4, 1, 1, 0, 3, false, 1, 1, 0, 0.05f, s, 0.04f, -7);
  mp_tfw_set_io(w, 1, &x, 3, (const int32_t[]){y, out8, out12});
}

/* float32 PAD + convolution chain, 1x8x8x3 in; both PADs fold:
 *   0 PAD (1,2,2,1) -> [1,11,11,3]  1 DEPTHWISE 3x3 stride 2 VALID x2 -> [1,5,5,6]
 *   2 PADV2 (1,1,1,1) 0.0 -> [1,7,7,6]  3 CONV 3x3 VALID 6->4, RELU6 */
static void build_pad_conv_f32(mp_tfw *w) {
  padb b = {w, {0xf32f01d}, true, false};
  int32_t s[4], sp[4];
  int32_t x = pb_act(&b, "input", 8, 8, 3, 0, 0);
  memcpy(s, (const int32_t[]){1, 8, 8, 3}, sizeof s);
  int32_t p = pb_pad(&b, x, s, (const int32_t[]){1, 2, 2, 1}, 0, 0, -999, sp);
  memcpy(s, (const int32_t[]){1, 5, 5, 6}, sizeof s);
  int32_t y = pb_conv(&b, p, 3, 3, 3, 2, 6, false, 2, 1, 0, 0, s, 0, 0);
  p = pb_pad(&b, y, s, (const int32_t[]){1, 1, 1, 1}, 0, 0, 0, sp);
  memcpy(s, (const int32_t[]){1, 5, 5, 4}, sizeof s);
  y = pb_conv(&b, p, 6, 3, 3, 0, 4, false, 1, 1, 3, 0, s, 0, 0);
  mp_tfw_set_io(w, 1, &x, 1, &y);
}

/* 16x8 PAD + convolution chain, 1x7x7x3 in (zero points 0); both PADs
 * fold:
 *   0 PAD (1,1,2,0) -> [1,9,9,3]  1 CONV 3x3 stride 2 VALID 3->4 -> [1,4,4,4]
 *   2 PAD (0,2,1,1) -> [1,6,6,4]  3 DEPTHWISE 3x3 VALID -> [1,4,4,4] */
static void build_pad_conv_s16(mp_tfw *w) {
  padb b = {w, {0x516f01d}, false, true};
  int32_t s[4], sp[4];
  int32_t x = pb_act(&b, "input", 7, 7, 3, 0.002f, 0);
  memcpy(s, (const int32_t[]){1, 7, 7, 3}, sizeof s);
  int32_t p = pb_pad(&b, x, s, (const int32_t[]){1, 1, 2, 0}, 0.002f, 0, -999, sp);
  memcpy(s, (const int32_t[]){1, 4, 4, 4}, sizeof s);
  int32_t y = pb_conv(&b, p, 3, 3, 3, 0, 4, false, 2, 1, 0, 0.002f, s, 0.004f, 0);
  p = pb_pad(&b, y, s, (const int32_t[]){0, 2, 1, 1}, 0.004f, 0, -999, sp);
  y = pb_conv(&b, p, 4, 3, 3, 1, 4, false, 1, 1, 0, 0.004f, s, 0.003f, 0);
  mp_tfw_set_io(w, 1, &x, 1, &y);
}

/* A MAX_POOL_2D (or AVERAGE_POOL_2D) k x k with that stride of x, SAME or
 * VALID (pb_pool), into a new tensor out_shape of x's quantisation. */
static int32_t pb_pool_padded(padb *b, int32_t x, bool is_max, int32_t k, int32_t stride,
                              bool same, const int32_t out_shape[4], float scale, int64_t zp) {
  int32_t y = pb_act(b, is_max ? "maxpool" : "avgpool", out_shape[1], out_shape[2], out_shape[3],
                     scale, zp);
  const mp_tfw_option o[] = {{0, MP_TFW_I8, same ? 0 : 1, 0, 0, NULL},
                             {1, MP_TFW_I32, stride, 0, 0, NULL},
                             {2, MP_TFW_I32, stride, 0, 0, NULL},
                             {3, MP_TFW_I32, k, 0, 0, NULL},
                             {4, MP_TFW_I32, k, 0, 0, NULL},
                             {5, MP_TFW_I8, 0, 0, 0, NULL}};
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = is_max ? 17 : FX_AVERAGE_POOL_2D, IDS_IN(x),
                                   .n_outputs = 1, .outputs = &y,
                                   .options_type = MP_TFW_OPT_POOL2D, .n_options = 6,
                                   .options = o});
  return y;
}

static int32_t pb_pool(padb *b, int32_t x, bool is_max, int32_t k, int32_t stride,
                       const int32_t out_shape[4], float scale, int64_t zp) {
  return pb_pool_padded(b, x, is_max, k, stride, false, out_shape, scale, zp);
}

/* int8 PAD / PADV2 + pooling: x [1,9,9,4] (zero point -128, as after a
 * ReLU) and x2 [1,8,8,4] (zero point 0) in.  The PADs of ops 0, 2 and 6
 * fold into their max pools (the pad value -128 never raises a maximum);
 * those of op 4 (a PAD of x2: its value 0 can) and op 8 (an AVERAGE_POOL_2D
 * counts the padded taps) do not:
 *   0 PAD x (1,1,1,1)         -> [1,11,11,4]  1 MAX_POOL 3x3 s2 -> [1,5,5,4]
 *   2 PAD (0,1,0,1)           -> [1,6,6,4]    3 MAX_POOL 2x2 s2 -> [1,3,3,4]
 *   4 PAD x2 (1,1,1,1)        -> [1,10,10,4]  5 MAX_POOL 3x3 s1 -> [1,8,8,4]
 *   6 PADV2 x2 (2,0,1,1) -128 -> [1,10,10,4]  7 MAX_POOL 3x3 s1 -> [1,8,8,4]
 *   8 PAD of 3 (1,1,1,1)      -> [1,5,5,4]    9 AVERAGE_POOL 3x3 s1 -> [1,3,3,4]
 * outputs: ops 5, 7 and 9's. */
static void build_pad_pool(mp_tfw *w) {
  padb b = {w, {0x9adb001}, false, false};
  int32_t s[4], sp[4];
  int32_t x = pb_act(&b, "input", 9, 9, 4, 0.05f, -128);
  int32_t x2 = pb_act(&b, "input2", 8, 8, 4, 0.04f, 0);
  memcpy(s, (const int32_t[]){1, 9, 9, 4}, sizeof s);
  int32_t p = pb_pad(&b, x, s, (const int32_t[]){1, 1, 1, 1}, 0.05f, -128, -999, sp);
  memcpy(s, (const int32_t[]){1, 5, 5, 4}, sizeof s);
  int32_t y = pb_pool(&b, p, true, 3, 2, s, 0.05f, -128);
  p = pb_pad(&b, y, s, (const int32_t[]){0, 1, 0, 1}, 0.05f, -128, -999, sp);
  memcpy(s, (const int32_t[]){1, 3, 3, 4}, sizeof s);
  int32_t y3 = pb_pool(&b, p, true, 2, 2, s, 0.05f, -128);
  memcpy(s, (const int32_t[]){1, 8, 8, 4}, sizeof s);
  p = pb_pad(&b, x2, s, (const int32_t[]){1, 1, 1, 1}, 0.04f, 0, -999, sp);
  int32_t out5 = pb_pool(&b, p, true, 3, 1, s, 0.04f, 0);
  p = pb_pad(&b, x2, s, (const int32_t[]){2, 0, 1, 1}, 0.04f, 0, -128, sp);
  int32_t out7 = pb_pool(&b, p, true, 3, 1, s, 0.04f, 0);
  memcpy(s, (const int32_t[]){1, 3, 3, 4}, sizeof s);
  p = pb_pad(&b, y3, s, (const int32_t[]){1, 1, 1, 1}, 0.05f, -128, -999, sp);
  int32_t out9 = pb_pool(&b, p, false, 3, 1, s, 0.05f, -128);
  mp_tfw_set_io(w, 2, (const int32_t[]){x, x2}, 3, (const int32_t[]){out5, out7, out9});
}

/* float32 PADV2 / PAD + MAX_POOL_2D, x [1,7,7,3] in: op 0's PADV2 of -inf
 * folds, op 2's PAD (+0.0, which can win a maximum) does not:
 *   0 PADV2 (1,1,1,1) -inf -> [1,9,9,3]  1 MAX_POOL 3x3 s2 -> [1,4,4,3]
 *   2 PAD (1,1,1,1)        -> [1,6,6,3]  3 MAX_POOL 3x3 s1 -> [1,4,4,3] */
static void build_pad_pool_f32(mp_tfw *w) {
  padb b = {w, {0xf32b001}, true, false};
  int32_t x = pb_act(&b, "input", 7, 7, 3, 0, 0);
  const int32_t pads[8] = {0, 0, 1, 1, 1, 1, 0, 0}, s_pads[2] = {4, 2};
  int32_t tp = constant(w, "paddings", MP_DTYPE_INT32, 2, s_pads, pads, sizeof pads);
  const float ninf = -INFINITY;
  int32_t tv = constant(w, "pad_value", MP_DTYPE_FLOAT32, 1, (const int32_t[]){1}, &ninf,
                        sizeof ninf);
  int32_t p = pb_act(&b, "padded", 9, 9, 3, 0, 0);
  op(w, 60, IDS(x, tp, tv), IDS(p));
  int32_t s[4] = {1, 4, 4, 3}, sp[4];
  int32_t y = pb_pool(&b, p, true, 3, 2, s, 0, 0);
  p = pb_pad(&b, y, s, (const int32_t[]){1, 1, 1, 1}, 0, 0, -999, sp);
  y = pb_pool(&b, p, true, 3, 1, s, 0, 0);
  mp_tfw_set_io(w, 1, &x, 1, &y);
}

/* A SLICE of x [1,h,w,c] from begin b[4] of size sz[4]. */
static int32_t pb_slice(padb *b, int32_t x, const int32_t begin[4], const int32_t size[4],
                        float scale, int64_t zp) {
  const int32_t s4[1] = {4};
  mp_tfw_tensor tb = {.name = "begin", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = s4};
  tb.buffer = mp_tfw_add_buffer(b->w, begin, 4 * sizeof(int32_t));
  int32_t tbegin = (int32_t)mp_tfw_add_tensor(b->w, &tb);
  mp_tfw_tensor ts = {.name = "size", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = s4};
  ts.buffer = mp_tfw_add_buffer(b->w, size, 4 * sizeof(int32_t));
  int32_t tsize = (int32_t)mp_tfw_add_tensor(b->w, &ts);
  int32_t y = pb_act(b, "slice", size[1], size[2], size[3], scale, zp);
  int32_t ins[3] = {x, tbegin, tsize};
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = 65, .n_inputs = 3, .inputs = ins,
                                   .n_outputs = 1, .outputs = &y});
  return y;
}

/* int8 SLICEs between convolutions, 1x8x6x4 in: the slices' outputs may
 * overlap the inputs they read last (the strided copy's contract):
 *   0 CONV 3x3 SAME 4->4 -> [1,8,6,4]
 *   1 SLICE rows 2..5 (the outermost axis: one block) -> [1,4,6,4]
 *   2 CONV 3x3 SAME 4->4 -> [1,4,6,4]
 *   3 SLICE columns 1..4 (strided) -> [1,4,4,4]
 *   4 CONV 1x1 4->4 -> [1,4,4,4] */
static void build_slices(mp_tfw *w) {
  padb b = {w, {0x511ce5}, false, false};
  int32_t s[4];
  int32_t x = pb_act(&b, "input", 8, 6, 4, 0.05f, -3);
  memcpy(s, (const int32_t[]){1, 8, 6, 4}, sizeof s);
  int32_t y = pb_conv(&b, x, 4, 3, 3, 0, 4, true, 1, 1, 0, 0.05f, s, 0.1f, 2);
  y = pb_slice(&b, y, (const int32_t[]){0, 2, 0, 0}, (const int32_t[]){1, 4, 6, 4}, 0.1f, 2);
  memcpy(s, (const int32_t[]){1, 4, 6, 4}, sizeof s);
  y = pb_conv(&b, y, 4, 3, 3, 0, 4, true, 1, 1, 0, 0.1f, s, 0.08f, -1);
  y = pb_slice(&b, y, (const int32_t[]){0, 0, 1, 0}, (const int32_t[]){1, 4, 4, 4}, 0.08f, -1);
  memcpy(s, (const int32_t[]){1, 4, 4, 4}, sizeof s);
  y = pb_conv(&b, y, 4, 1, 1, 0, 4, false, 1, 1, 0, 0.08f, s, 0.06f, 0);
  mp_tfw_set_io(w, 1, &x, 1, &y);
}

/* ---- Held-out networks (memory.in_place at model scale) --------------- */

/* Whole networks in the shapes converters write, none of them tuned for
 * memplan: a MobileNetV2 as PyTorch converters (onnx2tf, ai-edge-torch)
 * write it, with an explicit PAD before the stem and every 3x3 depthwise
 * convolution; a MobileNetV1 visual wake words model in float32; a ResNet
 * with stride-2 1x1 shortcuts; an inception-style model with concatenated
 * branches, a depth multiplier of 2 and a dilated convolution; and a 16x8
 * model.  Weights are deterministic pseudo-random draws (He-uniform, so
 * activations keep their range from layer to layer), int8 filters are
 * quantised per output channel, biases at input scale x filter scale. */
typedef enum nkind { NK_I8, NK_F32, NK_S16 } nkind;

typedef struct net {
  mp_tfw *w;
  rng r;
  nkind k;
  int conv_bias16; /* NK_S16 CONV_2D's bias: 0 int64, 32 int32, -1 none */
} net;

/* An activation tensor: id, NHWC shape, quantisation. */
typedef struct nt {
  int32_t id, h, wd, c;
  float scale;
  int64_t zp;
} nt;

/* Quantisation of a ReLU6 output ([0, 6]) and of a linear one. */
#define NET_LINEAR 0.08f

static nt net_act(net *n, const char *name, int32_t h, int32_t wd, int32_t c, bool relu6,
                  float lin_scale) {
  nt t = {-1, h, wd, c, lin_scale, 0};
  if (relu6) {
    t.scale = n->k == NK_S16 ? 6.0f / 32767.0f : 6.0f / 255.0f;
    t.zp = n->k == NK_S16 ? 0 : -128;
  }
  const int32_t s4[4] = {1, h, wd, c}, s2[2] = {1, c};
  bool flat = h == 0;
  uint32_t rank = flat ? 2 : 4;
  const int32_t *shape = flat ? s2 : s4;
  if (n->k == NK_F32) {
    t.id = (int32_t)mp_tfw_add_simple_tensor(n->w, name, MP_DTYPE_FLOAT32, rank, shape);
  } else {
    mp_tfw_tensor d = {.name = name, .dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8,
                       .rank = rank, .shape = shape, .has_quant = true,
                       .quant = {1, &t.scale, 1, &t.zp, 0}};
    t.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
  }
  return t;
}

/* Filter [o, kh, kw, i] (or [1, kh, kw, c] for a depthwise one, quantised
 * along axis 3) of `channels` output channels with fan-in `fan_in`, and its
 * bias; ids in *f and *b. */
static void net_weights(net *n, const int32_t shape[4], int32_t channels, int32_t fan_in,
                        bool depthwise, float in_scale, int32_t *f, int32_t *b) {
  size_t taps = (size_t)shape[0] * shape[1] * shape[2] * shape[3];
  float limit = sqrtf(6.0f / (float)fan_in);
  const int32_t s_b[1] = {channels};
  if (n->k == NK_F32) {
    float *wv = malloc(taps * sizeof *wv), *bv = malloc((size_t)channels * sizeof *bv);
    for (size_t i = 0; i < taps; i++) wv[i] = rng_sym(&n->r) * limit;
    for (int32_t i = 0; i < channels; i++) bv[i] = rng_sym(&n->r) * 0.1f;
    *f = constant(n->w, "filter", MP_DTYPE_FLOAT32, 4, shape, wv, taps * sizeof *wv);
    *b = constant(n->w, "bias", MP_DTYPE_FLOAT32, 1, s_b, bv, (size_t)channels * sizeof *bv);
    free(wv);
    free(bv);
    return;
  }
  int8_t *wv = malloc(taps);
  float *ws = malloc((size_t)channels * sizeof *ws), *bs = malloc((size_t)channels * sizeof *bs);
  int64_t *zps = calloc((size_t)channels, sizeof *zps);
  bool b32 = n->k == NK_S16 && !depthwise && n->conv_bias16 == 32;
  size_t bsize = n->k == NK_S16 && !b32 ? 8 : 4;
  uint8_t *bv = malloc((size_t)channels * bsize);
  for (size_t i = 0; i < taps; i++) wv[i] = (int8_t)rng_int(&n->r, -127, 127);
  for (int32_t c = 0; c < channels; c++) {
    ws[c] = limit / 127.0f * (0.75f + 0.25f * (rng_sym(&n->r) + 1.0f));
    bs[c] = in_scale * ws[c];
    float real = rng_sym(&n->r) * 0.1f;
    int64_t q = (int64_t)(real / bs[c] + (real < 0 ? -0.5f : 0.5f));
    for (size_t k = 0; k < bsize; k++) bv[(size_t)c * bsize + k] = (uint8_t)((uint64_t)q >> (8 * k));
  }
  mp_tfw_tensor tf = {.name = "filter", .dtype = MP_DTYPE_INT8, .rank = 4, .shape = shape,
                      .has_quant = true,
                      .quant = {(uint32_t)channels, ws, (uint32_t)channels, zps,
                                depthwise ? 3 : 0}};
  tf.buffer = mp_tfw_add_buffer(n->w, wv, taps);
  *f = (int32_t)mp_tfw_add_tensor(n->w, &tf);
  mp_tfw_tensor tb = {.name = "bias",
                      .dtype = n->k == NK_S16 && !b32 ? MP_DTYPE_INT64 : MP_DTYPE_INT32,
                      .rank = 1, .shape = s_b, .has_quant = true,
                      .quant = {(uint32_t)channels, bs, (uint32_t)channels, zps, 0}};
  *b = -1; /* an optional input left out */
  if (n->k != NK_S16 || depthwise || n->conv_bias16 != -1) {
    tb.buffer = mp_tfw_add_buffer(n->w, bv, (size_t)channels * bsize);
    *b = (int32_t)mp_tfw_add_tensor(n->w, &tb);
  }
  free(wv);
  free(ws);
  free(bs);
  free(zps);
  free(bv);
}

/* Output size of a window: SAME or VALID. */
static int32_t net_out(int32_t in, int32_t k, int32_t stride, int32_t dil, bool same) {
  return same ? (in + stride - 1) / stride : (in - (k - 1) * dil - 1) / stride + 1;
}

/* CONV_2D (dm 0) or DEPTHWISE_CONV_2D (depth multiplier dm) of x, kh x kw. */
static nt net_conv_hw(net *n, nt x, int32_t dm, int32_t out_c, int32_t kh, int32_t kw,
                      int32_t stride, bool same, int32_t dil, bool relu6, float lin_scale) {
  if (dm) out_c = x.c * dm;
  const int32_t s_f[4] = {dm ? 1 : out_c, kh, kw, dm ? out_c : x.c};
  int32_t f, b;
  net_weights(n, s_f, out_c, kh * kw * (dm ? 1 : x.c), dm != 0, x.scale, &f, &b);
  nt y = net_act(n, dm ? "depthwise" : "conv", net_out(x.h, kh, stride, dil, same),
                 net_out(x.wd, kw, stride, dil, same), out_c, relu6, lin_scale);
  int64_t act = relu6 ? 3 : 0;
  const mp_tfw_option conv_opts[] = {{0, MP_TFW_I8, same ? 0 : 1, 0, 0, NULL},
                                     {1, MP_TFW_I32, stride, 0, 0, NULL},
                                     {2, MP_TFW_I32, stride, 0, 0, NULL},
                                     {3, MP_TFW_I8, act, 0, 0, NULL},
                                     {4, MP_TFW_I32, dil, 0, 0, NULL},
                                     {5, MP_TFW_I32, dil, 0, 0, NULL}};
  const mp_tfw_option dw_opts[] = {{0, MP_TFW_I8, same ? 0 : 1, 0, 0, NULL},
                                   {1, MP_TFW_I32, stride, 0, 0, NULL},
                                   {2, MP_TFW_I32, stride, 0, 0, NULL},
                                   {3, MP_TFW_I32, dm, 0, 0, NULL},
                                   {4, MP_TFW_I8, act, 0, 0, NULL},
                                   {5, MP_TFW_I32, dil, 0, 0, NULL},
                                   {6, MP_TFW_I32, dil, 0, 0, NULL}};
  int32_t ins[3] = {x.id, f, b};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = dm ? FX_DEPTHWISE_CONV_2D : FX_CONV_2D,
                                   .n_inputs = 3, .inputs = ins, .n_outputs = 1, .outputs = &y.id,
                                   .options_type = dm ? MP_TFW_OPT_DEPTHWISE_CONV2D
                                                      : MP_TFW_OPT_CONV2D,
                                   .n_options = dm ? 7 : 6, .options = dm ? dw_opts : conv_opts});
  return y;
}

/* CONV_2D (dm 0) or DEPTHWISE_CONV_2D (depth multiplier dm) of x, k x k. */
static nt net_conv(net *n, nt x, int32_t dm, int32_t out_c, int32_t k, int32_t stride, bool same,
                   int32_t dil, bool relu6, float lin_scale) {
  return net_conv_hw(n, x, dm, out_c, k, k, stride, same, dil, relu6, lin_scale);
}

/* PAD (v2 false) or PADV2 with constant `value` (int8: a quantised value
 * in the input's quantisation; float32: value itself) of x by top, bottom,
 * left, right, into a tensor of the input's quantisation. */
static nt net_pad_v(net *n, nt x, int32_t top, int32_t bottom, int32_t left, int32_t right,
                    bool v2, int32_t value) {
  const int32_t pads[8] = {0, 0, top, bottom, left, right, 0, 0}, s_pads[2] = {4, 2};
  int32_t tp = constant(n->w, "paddings", MP_DTYPE_INT32, 2, s_pads, pads, sizeof pads);
  nt y = x;
  y.h += top + bottom;
  y.wd += left + right;
  if (n->k == NK_F32) {
    y.id = (int32_t)mp_tfw_add_simple_tensor(n->w, "padded", MP_DTYPE_FLOAT32, 4,
                                             (const int32_t[]){1, y.h, y.wd, y.c});
  } else {
    mp_tfw_tensor d = {.name = "padded", .dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8,
                       .rank = 4, .shape = (const int32_t[]){1, y.h, y.wd, y.c},
                       .has_quant = true, .quant = {1, &y.scale, 1, &y.zp, 0}};
    y.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
  }
  if (!v2) {
    op(n->w, FX_PAD, IDS(x.id, tp), IDS(y.id));
    return y;
  }
  mp_tfw_tensor tv = {.name = "pad_value", .rank = 1, .shape = (const int32_t[]){1}};
  float vf = (float)value;
  int8_t v8 = (int8_t)value;
  int16_t v16 = (int16_t)value;
  uint8_t le16[2] = {(uint8_t)((uint16_t)v16 & 0xff), (uint8_t)((uint16_t)v16 >> 8)};
  if (n->k == NK_F32) {
    tv.dtype = MP_DTYPE_FLOAT32;
    tv.buffer = mp_tfw_add_buffer(n->w, &vf, sizeof vf);
  } else {
    tv.dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8;
    tv.has_quant = true;
    tv.quant = (mp_quant){1, &x.scale, 1, &x.zp, 0};
    tv.buffer = n->k == NK_S16 ? mp_tfw_add_buffer(n->w, le16, 2) : mp_tfw_add_buffer(n->w, &v8, 1);
  }
  int32_t tval = (int32_t)mp_tfw_add_tensor(n->w, &tv);
  op(n->w, 60, IDS(x.id, tp, tval), IDS(y.id));
  return y;
}

/* PAD of x by top, bottom, left, right: an explicit PAD with the input's
 * quantisation (the pad value is its zero point). */
static nt net_pad(net *n, nt x, int32_t top, int32_t bottom, int32_t left, int32_t right) {
  return net_pad_v(n, x, top, bottom, left, right, false, 0);
}

/* A k x k convolution with PyTorch's symmetric padding (k / 2) written as
 * an explicit PAD and a VALID convolution. */
static nt net_pconv(net *n, nt x, int32_t dm, int32_t out_c, int32_t k, int32_t stride,
                    bool relu6) {
  nt p = net_pad(n, x, k / 2, k / 2, k / 2, k / 2);
  return net_conv(n, p, dm, out_c, k, stride, false, 1, relu6, NET_LINEAR);
}

/* ADD of a and b, ReLU fused when relu. */
static nt net_add(net *n, nt a, nt b, bool relu, float scale) {
  nt y = net_act(n, "add", a.h, a.wd, a.c, false, scale);
  if (relu && n->k != NK_F32) y.zp = n->k == NK_S16 ? 0 : -128;
  if (relu && n->k == NK_I8) {
    /* the ReLU output range [0, 256 * scale): a new tensor with zp -128 */
    mp_tfw_tensor d = {.name = "add_relu", .dtype = MP_DTYPE_INT8, .rank = 4,
                       .shape = (const int32_t[]){1, a.h, a.wd, a.c}, .has_quant = true,
                       .quant = {1, &y.scale, 1, &y.zp, 0}};
    y.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
  }
  const mp_tfw_option o[] = {{0, MP_TFW_I8, relu ? 1 : 0, 0, 0, NULL},
                             {1, MP_TFW_BOOL, 0, 0, 0, NULL}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_ADD, IDS_IN(a.id, b.id), .n_outputs = 1,
                                   .outputs = &y.id, .options_type = MP_TFW_OPT_ADD,
                                   .n_options = 2, .options = o});
  return y;
}

/* CONCATENATION of the branches on the channel axis (all of one
 * quantisation, as TFLite requires). */
static nt net_concat(net *n, const nt *x, uint32_t count) {
  int32_t c = 0, ins[8];
  for (uint32_t i = 0; i < count; i++) {
    c += x[i].c;
    ins[i] = x[i].id;
  }
  nt y = net_act(n, "concat", x[0].h, x[0].wd, c, false, x[0].scale);
  if (n->k != NK_F32) y.zp = x[0].zp;
  if (n->k == NK_I8 && y.zp != 0) {
    mp_tfw_tensor d = {.name = "concat", .dtype = MP_DTYPE_INT8, .rank = 4,
                       .shape = (const int32_t[]){1, y.h, y.wd, c}, .has_quant = true,
                       .quant = {1, &y.scale, 1, &y.zp, 0}};
    y.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
  }
  const mp_tfw_option o[] = {{0, MP_TFW_I32, 3, 0, 0, NULL}, {1, MP_TFW_I8, 0, 0, 0, NULL}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_CONCATENATION, .n_inputs = count,
                                   .inputs = ins, .n_outputs = 1, .outputs = &y.id,
                                   .options_type = MP_TFW_OPT_CONCATENATION, .n_options = 2,
                                   .options = o});
  return y;
}

/* FULLY_CONNECTED of the flat g [1, g.c] to `out` features (per-tensor
 * filter), ReLU fused when relu, its output `name` at out_scale. */
static nt net_fc(net *n, nt g, int32_t out, bool relu, const char *name, float out_scale) {
  /* FULLY_CONNECTED: per-tensor filter [out, c] */
  int32_t f, b;
  const int32_t s_f[2] = {out, g.c}, s_b[1] = {out};
  float limit = sqrtf(6.0f / (float)g.c);
  size_t taps = (size_t)out * g.c;
  nt logits = {-1, 0, 0, out, out_scale, -128};
  if (relu && n->k == NK_I8) { /* the ReLU output range [0, 256 * scale): zp -128 */
    mp_tfw_tensor d = {.name = name, .dtype = MP_DTYPE_INT8, .rank = 2,
                       .shape = (const int32_t[]){1, out}, .has_quant = true,
                       .quant = {1, &logits.scale, 1, &logits.zp, 0}};
    logits.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
  } else {
    logits = net_act(n, name, 0, 0, out, false, out_scale);
  }
  if (n->k == NK_F32) {
    float *wv = malloc(taps * sizeof *wv), *bv = malloc((size_t)out * sizeof *bv);
    for (size_t i = 0; i < taps; i++) wv[i] = rng_sym(&n->r) * limit;
    for (int32_t i = 0; i < out; i++) bv[i] = rng_sym(&n->r) * 0.1f;
    f = constant(n->w, "fc/w", MP_DTYPE_FLOAT32, 2, s_f, wv, taps * sizeof *wv);
    b = constant(n->w, "fc/b", MP_DTYPE_FLOAT32, 1, s_b, bv, (size_t)out * sizeof *bv);
    free(wv);
    free(bv);
  } else {
    int8_t *wv = malloc(taps);
    for (size_t i = 0; i < taps; i++) wv[i] = (int8_t)rng_int(&n->r, -127, 127);
    float ws = limit / 127.0f, bsc = ws * g.scale;
    int64_t zp0 = 0;
    mp_tfw_tensor tf = {.name = "fc/w", .dtype = MP_DTYPE_INT8, .rank = 2, .shape = s_f,
                        .has_quant = true, .quant = {1, &ws, 1, &zp0, 0}};
    tf.buffer = mp_tfw_add_buffer(n->w, wv, taps);
    f = (int32_t)mp_tfw_add_tensor(n->w, &tf);
    size_t bsize = n->k == NK_S16 ? 8 : 4;
    uint8_t *bv = calloc((size_t)out, bsize);
    for (int32_t c = 0; c < out; c++) {
      int64_t q = rng_int(&n->r, -1000, 1000);
      for (size_t k = 0; k < bsize; k++) bv[(size_t)c * bsize + k] = (uint8_t)((uint64_t)q >> (8 * k));
    }
    mp_tfw_tensor tb = {.name = "fc/b", .dtype = n->k == NK_S16 ? MP_DTYPE_INT64 : MP_DTYPE_INT32,
                        .rank = 1, .shape = s_b, .has_quant = true, .quant = {1, &bsc, 1, &zp0, 0}};
    tb.buffer = mp_tfw_add_buffer(n->w, bv, (size_t)out * bsize);
    b = (int32_t)mp_tfw_add_tensor(n->w, &tb);
    free(wv);
    free(bv);
  }
  const mp_tfw_option fo[] = {{0, MP_TFW_I8, relu ? 1 : 0, 0, 0, NULL},
                              {2, MP_TFW_BOOL, 0, 0, 0, NULL}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_FULLY_CONNECTED, IDS_IN(g.id, f, b),
                                   .n_outputs = 1, .outputs = &logits.id,
                                   .options_type = MP_TFW_OPT_FULLY_CONNECTED, .n_options = 2,
                                   .options = fo});
  return logits;
}

/* SOFTMAX of the flat logits [1, c] into probabilities (int8: 1/256, zero
 * point -128; int16: 1/32768, 0), returning their tensor id. */
static int32_t net_softmax(net *n, nt logits) {
  int32_t classes = logits.c;
  float ps = n->k == NK_S16 ? 1.0f / 32768.0f : 1.0f / 256.0f;
  int64_t pzp = n->k == NK_S16 ? 0 : -128;
  int32_t probs;
  if (n->k == NK_F32) {
    probs = (int32_t)mp_tfw_add_simple_tensor(n->w, "probs", MP_DTYPE_FLOAT32, 2,
                                              (const int32_t[]){1, classes});
  } else {
    mp_tfw_tensor d = {.name = "probs", .dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8,
                       .rank = 2, .shape = (const int32_t[]){1, classes}, .has_quant = true,
                       .quant = {1, &ps, 1, &pzp, 0}};
    probs = (int32_t)mp_tfw_add_tensor(n->w, &d);
  }
  const mp_tfw_option so[] = {{0, MP_TFW_F32, 0, 1.0f, 0, NULL}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_SOFTMAX, IDS_IN(logits.id), .n_outputs = 1,
                                   .outputs = &probs, .options_type = MP_TFW_OPT_SOFTMAX,
                                   .n_options = 1, .options = so});
  return probs;
}

/* The classifier head: global average (MEAN over H and W, or a whole-
 * window AVERAGE_POOL_2D and a RESHAPE), FULLY_CONNECTED to `classes`,
 * SOFTMAX.  Returns the probabilities' tensor id. */
static int32_t net_head(net *n, nt x, bool mean, int32_t classes) {
  nt g = x;
  if (mean) {
    g = net_act(n, "mean", 0, 0, x.c, false, x.scale);
    g.zp = x.zp;
    if (n->k == NK_I8 && g.zp != 0) {
      mp_tfw_tensor d = {.name = "mean", .dtype = MP_DTYPE_INT8, .rank = 2,
                         .shape = (const int32_t[]){1, x.c}, .has_quant = true,
                         .quant = {1, &g.scale, 1, &g.zp, 0}};
      g.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
    }
    int32_t ax = constant(n->w, "axes", MP_DTYPE_INT32, 1, (const int32_t[]){2},
                          (const int32_t[]){1, 2}, 8);
    const mp_tfw_option o[] = {{0, MP_TFW_BOOL, 0, 0, 0, NULL}};
    mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = 40, IDS_IN(x.id, ax), .n_outputs = 1,
                                     .outputs = &g.id, .options_type = 27, .n_options = 1,
                                     .options = o});
  } else {
    nt p = x;
    p.h = p.wd = 1;
    if (n->k == NK_F32) {
      p.id = (int32_t)mp_tfw_add_simple_tensor(n->w, "pool", MP_DTYPE_FLOAT32, 4,
                                               (const int32_t[]){1, 1, 1, x.c});
    } else {
      mp_tfw_tensor d = {.name = "pool", .dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8,
                         .rank = 4, .shape = (const int32_t[]){1, 1, 1, x.c}, .has_quant = true,
                         .quant = {1, &p.scale, 1, &p.zp, 0}};
      p.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
    }
    const mp_tfw_option o[] = {{0, MP_TFW_I8, 1, 0, 0, NULL},    {1, MP_TFW_I32, 1, 0, 0, NULL},
                               {2, MP_TFW_I32, 1, 0, 0, NULL},    {3, MP_TFW_I32, x.wd, 0, 0, NULL},
                               {4, MP_TFW_I32, x.h, 0, 0, NULL},  {5, MP_TFW_I8, 0, 0, 0, NULL}};
    mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_AVERAGE_POOL_2D, IDS_IN(x.id),
                                     .n_outputs = 1, .outputs = &p.id,
                                     .options_type = MP_TFW_OPT_POOL2D, .n_options = 6,
                                     .options = o});
    g = p;
    g.h = 0;
    if (n->k == NK_F32) {
      g.id = (int32_t)mp_tfw_add_simple_tensor(n->w, "flat", MP_DTYPE_FLOAT32, 2,
                                               (const int32_t[]){1, x.c});
    } else {
      mp_tfw_tensor d = {.name = "flat", .dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8,
                         .rank = 2, .shape = (const int32_t[]){1, x.c}, .has_quant = true,
                         .quant = {1, &g.scale, 1, &g.zp, 0}};
      g.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
    }
    int32_t shp = constant(n->w, "shape", MP_DTYPE_INT32, 1, (const int32_t[]){2},
                           (const int32_t[]){1, x.c}, 8);
    const mp_tfw_option ro[] = {{0, MP_TFW_I32_VEC, 0, 0, 2, (const int32_t[]){1, x.c}}};
    mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_RESHAPE, IDS_IN(p.id, shp),
                                     .n_outputs = 1, .outputs = &g.id,
                                     .options_type = MP_TFW_OPT_RESHAPE, .n_options = 1,
                                     .options = ro});
  }
  return net_softmax(n, net_fc(n, g, classes, false, "logits", 0.25f));
}

/* The graph input of a network, x, remembered in *in. */
static nt net_input(net *n, int32_t h, int32_t wd, int32_t c, float scale, int32_t *in) {
  nt x = net_act(n, "input", h, wd, c, false, scale);
  *in = x.id;
  return x;
}

/* The classifier head on x and the graph's inputs and outputs. */
static void net_finish(net *n, nt x, bool mean, int32_t classes, int32_t in) {
  int32_t probs = net_head(n, x, mean, classes);
  mp_tfw_set_io(n->w, 1, &in, 1, &probs);
}

/* A MobileNetV2's channel count: c x width rounded to a multiple of 8,
 * never more than 10 % below c x width (torchvision's _make_divisible). */
static int32_t mnv2_channels(float c) {
  int32_t v = ((int32_t)(c + 4.0f) / 8) * 8;
  if (v < 8) v = 8;
  if ((float)v < 0.9f * c) v += 8;
  return v;
}

/* How a converter writes a MobileNetV2's padding. */
typedef enum mnv2_style {
  MNV2_TORCH, /* PyTorch (onnx2tf, ai-edge-torch): PAD (1,1,1,1) + VALID before every 3x3 */
  MNV2_TF,    /* TF / Keras with padding='same': no PAD, SAME 3x3s, stride-2 depthwise SAME */
  MNV2_KERAS  /* keras.applications: ZeroPadding2D ((0,1),(0,1)) + VALID before the stride-2
               * 3x3s (the stem a PAD, the depthwise ones PADV2 with the zero point), SAME
               * stride-1 depthwise */
} mnv2_style;

/* A 3x3 convolution (dm 0) or depthwise one of a MobileNetV2, ReLU6, padded
 * in `style`. */
static nt mnv2_conv3(net *n, nt x, mnv2_style style, int32_t dm, int32_t out_c, int32_t stride) {
  if (style == MNV2_TORCH) return net_pconv(n, x, dm, out_c, 3, stride, true);
  if (style == MNV2_TF || stride == 1) return net_conv(n, x, dm, out_c, 3, stride, true, 1, true, 0);
  nt p = net_pad_v(n, x, 0, 1, 0, 1, dm != 0, n->k == NK_F32 ? 0 : (int32_t)x.zp);
  return net_conv(n, p, dm, out_c, 3, stride, false, 1, true, 0);
}

/* MobileNetV2 (torchvision's) at size x size x 3, width multiplier
 * `width`, padded as `style` says: 3x3 stride-2 stem, 17 inverted residual
 * blocks (1x1 expansion, ReLU6; 3x3 depthwise, ReLU6; linear 1x1
 * projection; ADD when the block keeps its shape), a 1x1 convolution to
 * 1280 channels, MEAN over H and W, FULLY_CONNECTED, SOFTMAX. */
static void build_mobilenet_v2(mp_tfw *w, nkind k, int32_t size, float width, int32_t classes,
                               mnv2_style style) {
  net n = {w, {0x3b2e7a11u + (uint64_t)size + 0x100u * (uint64_t)style}, k, 0};
  static const int32_t cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int32_t in;
  nt x = net_input(&n, size, size, 3, 1.0f / 64.0f, &in);
  x = mnv2_conv3(&n, x, style, 0, mnv2_channels(32.0f * width), 2);
  for (int b = 0; b < 7; b++) {
    int32_t out_c = mnv2_channels((float)cfg[b][1] * width);
    for (int r = 0; r < cfg[b][2]; r++) {
      int32_t stride = r == 0 ? cfg[b][3] : 1;
      nt h = x;
      if (cfg[b][0] != 1) h = net_conv(&n, h, 0, x.c * cfg[b][0], 1, 1, false, 1, true, 0);
      h = mnv2_conv3(&n, h, style, 1, 0, stride);
      h = net_conv(&n, h, 0, out_c, 1, 1, false, 1, false, NET_LINEAR);
      x = stride == 1 && out_c == x.c ? net_add(&n, x, h, false, NET_LINEAR * 1.5f) : h;
    }
  }
  x = net_conv(&n, x, 0, width > 1.0f ? mnv2_channels(1280.0f * width) : 1280, 1, 1, false, 1,
               true, 0);
  net_finish(&n, x, true, classes, in);
}

static void build_mnv2_224(mp_tfw *w) { build_mobilenet_v2(w, NK_I8, 224, 1.0f, 1000, MNV2_TORCH); }
static void build_mnv2_224_f32(mp_tfw *w) {
  build_mobilenet_v2(w, NK_F32, 224, 1.0f, 1000, MNV2_TORCH);
}
static void build_mnv2_96(mp_tfw *w) { build_mobilenet_v2(w, NK_I8, 96, 0.35f, 10, MNV2_TORCH); }
static void build_mnv2_96_f32(mp_tfw *w) {
  build_mobilenet_v2(w, NK_F32, 96, 0.35f, 10, MNV2_TORCH);
}
static void build_mnv2_96_tf(mp_tfw *w) { build_mobilenet_v2(w, NK_I8, 96, 0.35f, 10, MNV2_TF); }
static void build_mnv2_96_keras(mp_tfw *w) {
  build_mobilenet_v2(w, NK_I8, 96, 0.35f, 10, MNV2_KERAS);
}
static void build_mnv2_96_keras_f32(mp_tfw *w) {
  build_mobilenet_v2(w, NK_F32, 96, 0.35f, 10, MNV2_KERAS);
}

/* Visual wake words in float32: MobileNetV1 alpha 0.25 at 96x96x3 like
 * MLPerf Tiny's VWW model: 3x3 stride-2 stem, 13 depthwise-separable
 * blocks (SAME 3x3 depthwise + 1x1, ReLU6), AVERAGE_POOL_2D over the 3x3
 * map, RESHAPE, FULLY_CONNECTED to 2, SOFTMAX. */
static void build_vww_f32(mp_tfw *w) {
  net n = {w, {0x0f32a77u}, NK_F32, 0};
  static const int32_t blocks[13][2] = {{16, 1}, {32, 2}, {32, 1}, {64, 2}, {64, 1},
                                        {128, 2}, {128, 1}, {128, 1}, {128, 1}, {128, 1},
                                        {128, 1}, {256, 2}, {256, 1}};
  int32_t in;
  nt x = net_input(&n, 96, 96, 3, 0, &in);
  x = net_conv(&n, x, 0, 8, 3, 2, true, 1, true, 0);
  for (int b = 0; b < 13; b++) {
    x = net_conv(&n, x, 1, 0, 3, blocks[b][1], true, 1, true, 0);
    x = net_conv(&n, x, 0, blocks[b][0], 1, 1, false, 1, true, 0);
  }
  net_finish(&n, x, false, 2, in);
}

/* An int8 ResNet at 48x48x3: a SAME 3x3 stem (16, ReLU), three stages of
 * basic blocks (16, 32, 64 channels); a stage's first block halves the
 * map with an explicit PAD + VALID 3x3 stride-2 convolution and a stride-2
 * 1x1 shortcut convolution; ADD with ReLU fused; AVERAGE_POOL_2D, RESHAPE,
 * FULLY_CONNECTED to 10, SOFTMAX. */
static void build_resnet(mp_tfw *w) {
  net n = {w, {0x7e5e7u}, NK_I8, 0};
  int32_t in;
  nt x = net_input(&n, 48, 48, 3, 1.0f / 64.0f, &in);
  x = net_conv(&n, x, 0, 16, 3, 1, true, 1, true, 0);
  for (int s = 0; s < 3; s++) {
    int32_t c = 16 << s;
    for (int r = 0; r < 2; r++) {
      nt h, sc = x;
      if (s > 0 && r == 0) {
        h = net_pconv(&n, x, 0, c, 3, 2, true);
        sc = net_conv(&n, x, 0, c, 1, 2, false, 1, false, NET_LINEAR);
      } else {
        h = net_conv(&n, x, 0, c, 3, 1, true, 1, true, 0);
      }
      h = net_conv(&n, h, 0, c, 3, 1, true, 1, false, NET_LINEAR);
      x = net_add(&n, sc, h, true, NET_LINEAR);
    }
  }
  net_finish(&n, x, false, 10, in);
}

/* An int8 inception-style model at 40x40x8: a 1x1 stem (16, ReLU6); two
 * modules of three concatenated branches (a 1x1; a depthwise 3x3 with
 * depth multiplier 2, whose 32-channel output is the module's peak, and a
 * 1x1 back to 16; a SAME 3x3 convolution with dilation 2) joined by a PAD
 * + VALID 3x3 stride-2 depthwise convolution; MEAN, FULLY_CONNECTED to
 * 10, SOFTMAX. */
static void build_branches(mp_tfw *w) {
  net n = {w, {0xb7a9c4u}, NK_I8, 0};
  int32_t in;
  nt x = net_input(&n, 40, 40, 8, 1.0f / 64.0f, &in);
  x = net_conv(&n, x, 0, 16, 1, 1, false, 1, true, 0);
  for (int m = 0; m < 2; m++) {
    nt br[3];
    br[0] = net_conv(&n, x, 0, 16, 1, 1, false, 1, true, 0);
    br[1] = net_conv(&n, x, 2, 0, 3, 1, true, 1, true, 0);
    br[1] = net_conv(&n, br[1], 0, 16, 1, 1, false, 1, true, 0);
    br[2] = net_conv(&n, x, 0, 16, 3, 1, true, 2, true, 0);
    x = net_concat(&n, br, 3);
    if (m == 0) {
      x = net_pconv(&n, x, 1, 0, 3, 2, true);
      x = net_conv(&n, x, 0, 16, 1, 1, false, 1, true, 0);
    }
  }
  net_finish(&n, x, true, 10, in);
}

/* A 16x8 model (int16 activations, int8 filters) at 32x32x4: PAD + VALID
 * 3x3 stride-2 stem (16, ReLU6), two depthwise-separable blocks (SAME 3x3
 * depthwise, 1x1 to 32 and 48), the second halving the map with a PAD +
 * VALID stride-2 depthwise; AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED to
 * 10, SOFTMAX (int16). */
/* 16x8 convolutions without a bias and with an int32 one (TFLM runs both
 * with an int32 accumulator) between ones with int64 biases, 24x24x8. */
static void build_s16_bias(mp_tfw *w) {
  net n = {w, {0xb1a5u}, NK_S16, -1};
  int32_t in;
  nt x = net_input(&n, 24, 24, 8, 1.0f / 8192.0f, &in);
  x = net_conv(&n, x, 0, 16, 3, 1, true, 1, true, 0);
  n.conv_bias16 = 0;
  x = net_conv(&n, x, 1, 0, 3, 2, true, 1, true, 0);
  n.conv_bias16 = 32;
  x = net_conv(&n, x, 0, 24, 1, 1, false, 1, true, 0);
  n.conv_bias16 = -1;
  x = net_conv(&n, x, 0, 20, 3, 2, true, 1, true, 0);
  n.conv_bias16 = 0;
  net_finish(&n, x, false, 10, in);
}

static void build_s16_net(mp_tfw *w) {
  net n = {w, {0x516516u}, NK_S16, 0};
  int32_t in;
  nt x = net_input(&n, 32, 32, 4, 1.0f / 8192.0f, &in);
  x = net_pconv(&n, x, 0, 16, 3, 2, true);
  x = net_conv(&n, x, 1, 0, 3, 1, true, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, true, 0);
  x = net_pconv(&n, x, 1, 0, 3, 2, true);
  x = net_conv(&n, x, 0, 48, 1, 1, false, 1, true, 0);
  net_finish(&n, x, false, 10, in);
}

/* PADs written with the value a converter gives them, int8 at 32x32x3:
 * PAD (0,1,0,1) + VALID 3x3 stride-2 convolution to 16 (folds); PADV2
 * (1,1,1,1) with the zero point + 9 + VALID 3x3 depthwise (does not fold:
 * its border is not zero); a linear 1x1 convolution to 32 (zero point 0);
 * PADV2 (1,1,1,1) with -128, as a max pool's padding is written, + VALID
 * 3x3 depthwise (does not fold); a 1x1 convolution to 32, ReLU6; PADV2
 * (0,1,0,1) with the zero point + VALID 3x3 stride-2 depthwise (folds);
 * MEAN, FULLY_CONNECTED to 10, SOFTMAX.  2 of 4 PADs fold. */
static void build_pad_values(mp_tfw *w) {
  net n = {w, {0x9ad7a1u}, NK_I8, 0};
  int32_t in;
  nt x = net_input(&n, 32, 32, 3, 1.0f / 64.0f, &in);
  x = net_pad(&n, x, 0, 1, 0, 1);
  x = net_conv(&n, x, 0, 16, 3, 2, false, 1, true, 0);
  x = net_pad_v(&n, x, 1, 1, 1, 1, true, (int32_t)x.zp + 9);
  x = net_conv(&n, x, 1, 0, 3, 1, false, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, false, NET_LINEAR);
  x = net_pad_v(&n, x, 1, 1, 1, 1, true, -128);
  x = net_conv(&n, x, 1, 0, 3, 1, false, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, true, 0);
  x = net_pad_v(&n, x, 0, 1, 0, 1, true, (int32_t)x.zp);
  x = net_conv(&n, x, 1, 0, 3, 2, false, 1, true, 0);
  net_finish(&n, x, true, 10, in);
}

/* A DS-CNN keyword spotter as Arm's model zoo trains it (int8, 49x10x1
 * MFCC input): a SAME 10x4 stride-2 convolution to 64 (ReLU6), four
 * depthwise-separable blocks (SAME 3x3 depthwise, 1x1 to 64, ReLU6), a
 * whole-map AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED to 12, SOFTMAX. */
static void build_ds_cnn(mp_tfw *w) {
  net n = {w, {0xd5c22u}, NK_I8, 0};
  int32_t in;
  nt x = net_input(&n, 49, 10, 1, 1.0f / 64.0f, &in);
  x = net_conv_hw(&n, x, 0, 64, 10, 4, 2, true, 1, true, 0);
  for (int b = 0; b < 4; b++) {
    x = net_conv(&n, x, 1, 0, 3, 1, true, 1, true, 0);
    x = net_conv(&n, x, 0, 64, 1, 1, false, 1, true, 0);
  }
  net_finish(&n, x, false, 12, in);
}

/* An int8 model with float32 input and output, as TFLite's converter
 * writes one without inference_input_type: QUANTIZE of the float 32x32x3
 * input, SAME 3x3 stride-2 convolution to 16, two depthwise-separable
 * blocks (the second stride 2), MEAN, FULLY_CONNECTED to 10, SOFTMAX,
 * DEQUANTIZE to float32. */
static void build_float_io(mp_tfw *w) {
  net n = {w, {0xf10a7u}, NK_I8, 0};
  int32_t in = (int32_t)mp_tfw_add_simple_tensor(w, "input", MP_DTYPE_FLOAT32, 4,
                                                 (const int32_t[]){1, 32, 32, 3});
  nt x = net_act(&n, "input_q", 32, 32, 3, false, 1.0f / 64.0f);
  op(w, 114, IDS(in), IDS(x.id));
  x = net_conv(&n, x, 0, 16, 3, 2, true, 1, true, 0);
  x = net_conv(&n, x, 1, 0, 3, 1, true, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, true, 0);
  x = net_conv(&n, x, 1, 0, 3, 2, true, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, true, 0);
  int32_t probs = net_head(&n, x, true, 10);
  int32_t out = (int32_t)mp_tfw_add_simple_tensor(w, "output", MP_DTYPE_FLOAT32, 2,
                                                  (const int32_t[]){1, 10});
  op(w, 6, IDS(probs), IDS(out));
  mp_tfw_set_io(w, 1, &in, 1, &out);
}

/* A 16x8 residual model at 24x24x8: a SAME 3x3 convolution to 16
 * (ReLU6), a residual block (SAME 3x3, ReLU6; SAME 3x3, linear at another
 * scale; ADD with ReLU, inputs and output at three scales), PADV2 (1,1,1,1)
 * with the zero point + VALID 3x3 stride-2 depthwise, 1x1 to 32, MEAN,
 * FULLY_CONNECTED to 10, SOFTMAX (int16). */
static void build_s16_res(mp_tfw *w) {
  net n = {w, {0x516addu}, NK_S16, 0};
  int32_t in;
  nt x = net_input(&n, 24, 24, 8, 1.0f / 8192.0f, &in);
  x = net_conv(&n, x, 0, 16, 3, 1, true, 1, true, 0);
  nt h = net_conv(&n, x, 0, 16, 3, 1, true, 1, true, 0);
  h = net_conv(&n, h, 0, 16, 3, 1, true, 1, false, 1.0f / 2048.0f);
  x = net_add(&n, x, h, true, 1.0f / 4096.0f);
  x = net_pad_v(&n, x, 1, 1, 1, 1, true, 0);
  x = net_conv(&n, x, 1, 0, 3, 2, false, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, true, 0);
  net_finish(&n, x, true, 10, in);
}

/* Two branches from the graph input and three graph outputs, int8 at
 * 32x32x4: a SAME 3x3 stride-2 convolution to 16 (linear, scale 0.05) and
 * a SAME 3x3 stride-2 depthwise + 1x1 to 16 (linear, scale 0.09) both
 * read the input; ADD with ReLU at scale 0.07; a SAME 3x3 stride-2
 * convolution to 32 (ReLU6), the feature map, is a graph output and feeds
 * two heads: MEAN + FULLY_CONNECTED to 10 + SOFTMAX, and AVERAGE_POOL_2D +
 * RESHAPE + FULLY_CONNECTED to 4 + SOFTMAX. */
static void build_two_heads(mp_tfw *w) {
  net n = {w, {0x2ead5u}, NK_I8, 0};
  int32_t in;
  nt x = net_input(&n, 32, 32, 4, 1.0f / 64.0f, &in);
  nt a = net_conv(&n, x, 0, 16, 3, 2, true, 1, false, 0.05f);
  nt b = net_conv(&n, x, 1, 0, 3, 2, true, 1, true, 0);
  b = net_conv(&n, b, 0, 16, 1, 1, false, 1, false, 0.09f);
  x = net_add(&n, a, b, true, 0.07f);
  x = net_conv(&n, x, 0, 32, 3, 2, true, 1, true, 0);
  int32_t outs[3] = {net_head(&n, x, true, 10), net_head(&n, x, false, 4), x.id};
  mp_tfw_set_io(w, 1, &in, 3, outs);
}

/* A small MobileNetV1-like stack at 64x64 whose peak memory.patch auto
 * cuts with a chain of patched stages: the quick profile of a chain. */
static void build_patch_chain(mp_tfw *w) {
  net n = {w, {0xc4a1u}, NK_I8, 0};
  int32_t in;
  nt x = net_input(&n, 64, 64, 3, 1.0f / 64.0f, &in);
  x = net_conv(&n, x, 0, 16, 3, 1, true, 1, true, 0);
  x = net_conv(&n, x, 1, 0, 3, 1, true, 1, true, 0);
  x = net_conv(&n, x, 0, 8, 1, 1, false, 1, false, 0.05f);
  x = net_conv(&n, x, 1, 0, 3, 2, true, 1, true, 0);
  x = net_conv(&n, x, 0, 48, 1, 1, false, 1, true, 0);
  x = net_conv(&n, x, 1, 0, 3, 1, true, 1, true, 0);
  x = net_conv(&n, x, 0, 16, 1, 1, false, 1, false, 0.05f);
  x = net_conv(&n, x, 1, 0, 3, 2, true, 1, true, 0);
  x = net_conv(&n, x, 0, 32, 1, 1, false, 1, true, 0);
  int32_t out = net_head(&n, x, true, 10);
  mp_tfw_set_io(w, 1, &in, 1, &out);
}

/* An int8 SVDF of x [1, x.c]: `filters` filters of rank `rank` over
 * `memory` frames, its state (and time weights) int16 when s16, else int8;
 * scales chosen from the spread of the sums (uniform int8 draws), so that
 * the state and the output keep a useful range. */
static nt net_svdf(net *n, nt x, int32_t filters, int32_t rank, int32_t memory, bool s16) {
  int32_t units = filters / rank, sdt = s16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8;
  size_t esz = s16 ? 2 : 1, nf = (size_t)filters * (size_t)x.c, nt_ = (size_t)filters * memory;
  float sf = 1.0f / 127.0f, swt = 1.0f / 127.0f;
  /* a feature sum spreads as sqrt(c) * 73 * 73; keep it ~512 (int16) or ~16 */
  float sstate = x.scale * sf * sqrtf((float)x.c) * 73.0f * 73.0f / (s16 ? 512.0f : 16.0f);
  float sout = sstate * swt * sqrtf((float)memory * rank) * (s16 ? 512.0f : 16.0f) * 73.0f / 40.0f;
  int64_t zp0 = 0;
  int8_t *wf = malloc(nf);
  uint8_t *wt = malloc(nt_ * esz);
  int32_t *bv = malloc((size_t)units * sizeof *bv);
  for (size_t i = 0; i < nf; i++) wf[i] = (int8_t)rng_int(&n->r, -127, 127);
  for (size_t i = 0; i < nt_; i++) {
    int32_t v = rng_int(&n->r, -127, 127);
    for (size_t k = 0; k < esz; k++) wt[i * esz + k] = (uint8_t)((uint32_t)v >> (8 * k));
  }
  for (int32_t i = 0; i < units; i++) bv[i] = rng_int(&n->r, -500, 500);
  mp_tfw_tensor tf = {.name = "svdf/feature", .dtype = MP_DTYPE_INT8, .rank = 2,
                      .shape = (const int32_t[]){filters, x.c}, .has_quant = true,
                      .quant = {1, &sf, 1, &zp0, 0}};
  tf.buffer = mp_tfw_add_buffer(n->w, wf, nf);
  mp_tfw_tensor tt = {.name = "svdf/time", .dtype = sdt, .rank = 2,
                      .shape = (const int32_t[]){filters, memory}, .has_quant = true,
                      .quant = {1, &swt, 1, &zp0, 0}};
  tt.buffer = mp_tfw_add_buffer(n->w, wt, nt_ * esz);
  float sb = x.scale * sf;
  mp_tfw_tensor tb = {.name = "svdf/bias", .dtype = MP_DTYPE_INT32, .rank = 1,
                      .shape = (const int32_t[]){units}, .has_quant = true,
                      .quant = {1, &sb, 1, &zp0, 0}};
  tb.buffer = mp_tfw_add_buffer(n->w, bv, (size_t)units * sizeof *bv);
  mp_tfw_tensor ts = {.name = "svdf/state", .dtype = sdt, .rank = 2,
                      .shape = (const int32_t[]){1, memory * filters}, .is_variable = true,
                      .has_quant = true, .quant = {1, &sstate, 1, &zp0, 0}};
  int32_t ins[5] = {x.id, (int32_t)mp_tfw_add_tensor(n->w, &tf),
                    (int32_t)mp_tfw_add_tensor(n->w, &tt), (int32_t)mp_tfw_add_tensor(n->w, &tb),
                    (int32_t)mp_tfw_add_tensor(n->w, &ts)};
  free(wf);
  free(wt);
  free(bv);
  nt y = net_act(n, "svdf", 0, 0, units, false, sout);
  const mp_tfw_option o[] = {{0, MP_TFW_I32, rank, 0, 0, NULL}, {1, MP_TFW_I8, 1, 0, 0, NULL},
                             {2, MP_TFW_BOOL, 0, 0, 0, NULL}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = 27, .n_inputs = 5, .inputs = ins,
                                   .n_outputs = 1, .outputs = &y.id, .options_type = 6,
                                   .n_options = 3, .options = o});
  return y;
}

/* An int8 SVDF keyword spotter fed one 40-feature frame per run: SVDF (64
 * filters of rank 1 over 8 frames, int16 state), FULLY_CONNECTED to 32
 * (ReLU), SVDF (32 filters of rank 2 over 4 frames, int8 state),
 * FULLY_CONNECTED to 12, SOFTMAX.  Its state persists from run to run. */
static void build_svdf_kws(mp_tfw *w) {
  net n = {w, {0x5fdfu}, NK_I8, 0};
  int32_t in;
  nt x = net_act(&n, "input", 0, 0, 40, false, 1.0f / 64.0f);
  in = x.id;
  x = net_svdf(&n, x, 64, 1, 8, true);
  x = net_fc(&n, x, 32, true, "fc", 0.05f);
  x = net_svdf(&n, x, 32, 2, 4, false);
  nt logits = net_fc(&n, x, 12, false, "logits", 0.25f);
  int32_t probs = net_softmax(&n, logits);
  mp_tfw_set_io(w, 1, &in, 1, &probs);
}

/* A PyTorch max pool with padding as converters write it: a PAD of x by
 * `pad` all round (int8: PAD, whose value is x's zero point, -128 after a
 * ReLU; float32: PADV2 of -inf, since PAD's +0.0 could win a maximum) and a
 * VALID k x k MAX_POOL_2D with that stride. */
static nt net_maxpool(net *n, nt x, int32_t k, int32_t stride, int32_t pad) {
  nt p;
  if (n->k == NK_F32) {
    const int32_t pads[8] = {0, 0, pad, pad, pad, pad, 0, 0}, s_pads[2] = {4, 2};
    int32_t tp = constant(n->w, "paddings", MP_DTYPE_INT32, 2, s_pads, pads, sizeof pads);
    const float ninf = -INFINITY;
    int32_t tv = constant(n->w, "pad_value", MP_DTYPE_FLOAT32, 1, (const int32_t[]){1}, &ninf,
                          sizeof ninf);
    p = x;
    p.h += 2 * pad;
    p.wd += 2 * pad;
    p.id = (int32_t)mp_tfw_add_simple_tensor(n->w, "padded", MP_DTYPE_FLOAT32, 4,
                                             (const int32_t[]){1, p.h, p.wd, p.c});
    op(n->w, 60, IDS(x.id, tp, tv), IDS(p.id));
  } else {
    p = net_pad(n, x, pad, pad, pad, pad);
  }
  nt y = p;
  y.h = net_out(p.h, k, stride, 1, false);
  y.wd = net_out(p.wd, k, stride, 1, false);
  if (n->k == NK_F32) {
    y.id = (int32_t)mp_tfw_add_simple_tensor(n->w, "maxpool", MP_DTYPE_FLOAT32, 4,
                                             (const int32_t[]){1, y.h, y.wd, y.c});
  } else {
    mp_tfw_tensor d = {.name = "maxpool", .dtype = n->k == NK_S16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8,
                       .rank = 4, .shape = (const int32_t[]){1, y.h, y.wd, y.c},
                       .has_quant = true, .quant = {1, &y.scale, 1, &y.zp, 0}};
    y.id = (int32_t)mp_tfw_add_tensor(n->w, &d);
  }
  const mp_tfw_option o[] = {{0, MP_TFW_I8, 1, 0, 0, NULL}, {1, MP_TFW_I32, stride, 0, 0, NULL},
                             {2, MP_TFW_I32, stride, 0, 0, NULL},
                             {3, MP_TFW_I32, k, 0, 0, NULL},
                             {4, MP_TFW_I32, k, 0, 0, NULL},
                             {5, MP_TFW_I8, 0, 0, 0, NULL}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = 17, IDS_IN(p.id), .n_outputs = 1,
                                   .outputs = &y.id, .options_type = MP_TFW_OPT_POOL2D,
                                   .n_options = 6, .options = o});
  return y;
}

/* A PyTorch-converted ResNet at 64x64x3: its stem a PAD 3 + VALID 7x7
 * stride-2 convolution (32, ReLU6) and a padded 3x3 stride-2 max pool
 * (net_maxpool: the stem's output and its padded copy, live at once, are
 * the model's peak); two stages of two basic blocks (PAD + VALID 3x3
 * convolutions, ADD + ReLU skips), the second at 64 channels with a
 * stride-2 1x1 shortcut; MEAN, FULLY_CONNECTED to 10, SOFTMAX. */
static void build_resnet_pt(mp_tfw *w, nkind k) {
  net n = {w, {0x9e5718u}, k, 0};
  int32_t in;
  nt x = net_input(&n, 64, 64, 3, 1.0f / 64.0f, &in);
  x = net_pad(&n, x, 3, 3, 3, 3);
  x = net_conv(&n, x, 0, 32, 7, 2, false, 1, true, 0);
  x = net_maxpool(&n, x, 3, 2, 1);
  for (int s = 0; s < 2; s++) {
    int32_t c = 32 << s;
    for (int r = 0; r < 2; r++) {
      nt sc = x, h;
      if (s > 0 && r == 0) {
        h = net_pconv(&n, x, 0, c, 3, 2, true);
        sc = net_conv(&n, x, 0, c, 1, 2, false, 1, false, NET_LINEAR);
      } else {
        h = net_pconv(&n, x, 0, c, 3, 1, true);
      }
      h = net_pconv(&n, h, 0, c, 3, 1, false);
      x = net_add(&n, sc, h, true, NET_LINEAR);
    }
  }
  net_finish(&n, x, true, 10, in);
}
static void build_resnet_pt_64(mp_tfw *w) { build_resnet_pt(w, NK_I8); }
static void build_resnet_pt_64_f32(mp_tfw *w) { build_resnet_pt(w, NK_F32); }

/* An int8 UNIDIRECTIONAL_SEQUENCE_LSTM (TFLM's integer LSTM: int8 input,
 * weights and hidden state, int16 cell state at 2^-11; no peephole,
 * projection or layer normalisation) of x [1, steps, x.c] with `units`
 * units, batch-major; returns its output [1, steps, units] (the hidden
 * state's quantisation) as a flat nt of steps * units features.  With s16
 * the 16x8 LSTM: int16 input, hidden state (2^-15) and output, int8
 * weights, int64 biases. */
static nt net_lstm(net *n, int32_t x, int32_t steps, int32_t features, float in_scale,
                   int32_t units, bool s16) {
  const int32_t adt = s16 ? MP_DTYPE_INT16 : MP_DTYPE_INT8;
  int32_t ins[24];
  for (int k = 0; k < 24; k++) ins[k] = -1;
  ins[0] = x;
  int64_t zp0 = 0;
  for (int k = 1; k <= 8; k++) {
    int32_t cols = k <= 4 ? features : units;
    size_t taps = (size_t)units * (size_t)cols;
    int8_t *wv = malloc(taps);
    for (size_t i = 0; i < taps; i++) wv[i] = (int8_t)rng_int(&n->r, -127, 127);
    float ws = sqrtf(3.0f / (float)cols) / 127.0f;
    mp_tfw_tensor t = {.name = k <= 4 ? "lstm/input_weights" : "lstm/recurrent_weights",
                       .dtype = MP_DTYPE_INT8, .rank = 2,
                       .shape = (const int32_t[]){units, cols}, .has_quant = true,
                       .quant = {1, &ws, 1, &zp0, 0}};
    t.buffer = mp_tfw_add_buffer(n->w, wv, taps);
    ins[k] = (int32_t)mp_tfw_add_tensor(n->w, &t);
    free(wv);
  }
  for (int k = 12; k <= 15; k++) {
    int64_t *bv = malloc((size_t)units * sizeof *bv);
    int32_t *b32 = malloc((size_t)units * sizeof *b32);
    /* the forget gate's bias leans positive, as trained LSTMs' do; 16x8
     * biases are at the input's finer scale */
    const int32_t reach = s16 ? 300000 : 2000;
    for (int32_t i = 0; i < units; i++) {
      bv[i] = rng_int(&n->r, -reach, reach) + (k == 13 ? 2 * reach : 0);
      b32[i] = (int32_t)bv[i];
    }
    float bs = in_scale / 127.0f;
    mp_tfw_tensor t = {.name = "lstm/bias", .dtype = s16 ? MP_DTYPE_INT64 : MP_DTYPE_INT32,
                       .rank = 1, .shape = (const int32_t[]){units}, .has_quant = true,
                       .quant = {1, &bs, 1, &zp0, 0}};
    t.buffer = s16 ? mp_tfw_add_buffer(n->w, bv, (size_t)units * sizeof *bv)
                   : mp_tfw_add_buffer(n->w, b32, (size_t)units * sizeof *b32);
    ins[k] = (int32_t)mp_tfw_add_tensor(n->w, &t);
    free(bv);
    free(b32);
  }
  float hs = s16 ? 1.0f / 32768.0f : 1.0f / 128.0f, cs = 1.0f / 2048.0f;
  int64_t hz = 0;
  mp_tfw_tensor th = {.name = "lstm/hidden_state", .dtype = adt, .rank = 2,
                      .shape = (const int32_t[]){1, units}, .is_variable = true,
                      .has_quant = true, .quant = {1, &hs, 1, &hz, 0}};
  ins[18] = (int32_t)mp_tfw_add_tensor(n->w, &th);
  mp_tfw_tensor tc = {.name = "lstm/cell_state", .dtype = MP_DTYPE_INT16, .rank = 2,
                      .shape = (const int32_t[]){1, units}, .is_variable = true,
                      .has_quant = true, .quant = {1, &cs, 1, &zp0, 0}};
  ins[19] = (int32_t)mp_tfw_add_tensor(n->w, &tc);
  nt y = {-1, 0, 0, steps * units, hs, hz};
  mp_tfw_tensor to = {.name = "lstm", .dtype = adt, .rank = 3,
                      .shape = (const int32_t[]){1, steps, units}, .has_quant = true,
                      .quant = {1, &hs, 1, &hz, 0}};
  int32_t out = (int32_t)mp_tfw_add_tensor(n->w, &to);
  const mp_tfw_option o[] = {{0, MP_TFW_I8, 4, 0, 0, NULL},     /* TANH */
                             {1, MP_TFW_F32, 0, 10.0f, 0, NULL}, /* cell_clip */
                             {2, MP_TFW_F32, 0, 0.0f, 0, NULL},
                             {3, MP_TFW_BOOL, 0, 0, 0, NULL}};   /* batch-major */
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_UNIDIRECTIONAL_SEQUENCE_LSTM,
                                   .n_inputs = 24, .inputs = ins, .n_outputs = 1,
                                   .outputs = &out, .options_type = 71, .n_options = 4,
                                   .options = o});
  /* RESHAPE to [1, steps * units] for the classifier */
  y.id = (int32_t)mp_tfw_add_tensor(
      n->w, &(mp_tfw_tensor){.name = "lstm/flat", .dtype = adt, .rank = 2,
                             .shape = (const int32_t[]){1, steps * units}, .has_quant = true,
                             .quant = {1, &hs, 1, &hz, 0}});
  int32_t shp = constant(n->w, "shape", MP_DTYPE_INT32, 1, (const int32_t[]){2},
                         (const int32_t[]){1, steps * units}, 8);
  const mp_tfw_option ro[] = {{0, MP_TFW_I32_VEC, 0, 0, 2, (const int32_t[]){1, steps * units}}};
  mp_tfw_add_op(n->w, &(mp_tfw_op){.builtin_code = FX_RESHAPE, IDS_IN(out, shp), .n_outputs = 1,
                                   .outputs = &y.id, .options_type = MP_TFW_OPT_RESHAPE,
                                   .n_options = 1, .options = ro});
  return y;
}

/* A tiny int8 LSTM classifier fed 8 steps of 12 features per run: a
 * FULLY_CONNECTED-free front (the LSTM reads the input), an
 * UNIDIRECTIONAL_SEQUENCE_LSTM of 16 units, RESHAPE, FULLY_CONNECTED to 6,
 * SOFTMAX.  Its hidden and cell states persist from run to run. */
static void build_lstm_8x12(mp_tfw *w) {
  net n = {w, {0x157e8u}, NK_I8, 0};
  float si = 1.0f / 64.0f;
  int64_t zi = 3;
  int32_t in = (int32_t)mp_tfw_add_tensor(
      w, &(mp_tfw_tensor){.name = "input", .dtype = MP_DTYPE_INT8, .rank = 3,
                          .shape = (const int32_t[]){1, 8, 12}, .has_quant = true,
                          .quant = {1, &si, 1, &zi, 0}});
  nt x = net_lstm(&n, in, 8, 12, si, 16, false);
  nt logits = net_fc(&n, x, 6, false, "logits", 0.1f);
  int32_t probs = net_softmax(&n, logits);
  mp_tfw_set_io(w, 1, &in, 1, &probs);
}

/* A 16x8 LSTM alone: int16 input [1, 8, 12] at 2^-12 (zero point 0, as
 * 16x8 activations are), the LSTM of 13 units (neither the 12 inputs nor
 * the 13 units fill the Helium kernel's blocks of 8 elements and 4
 * cells), RESHAPE of its int16 output to [1, 104], the graph output.  Its
 * hidden and cell states persist from run to run. */
static void build_lstm16_8x12(mp_tfw *w) {
  net n = {w, {0x16e8u}, NK_S16, 0};
  float si = 1.0f / 4096.0f;
  int64_t zi = 0;
  int32_t in = (int32_t)mp_tfw_add_tensor(
      w, &(mp_tfw_tensor){.name = "input", .dtype = MP_DTYPE_INT16, .rank = 3,
                          .shape = (const int32_t[]){1, 8, 12}, .has_quant = true,
                          .quant = {1, &si, 1, &zi, 0}});
  nt x = net_lstm(&n, in, 8, 12, si, 13, true);
  mp_tfw_set_io(w, 1, &in, 1, &x.id);
}

static const struct {
  const char *name;
  void (*build)(mp_tfw *w);
} nets[] = {
    {"mobilenet_v2_96_035", build_mnv2_96},
    {"patch_chain_64", build_patch_chain},
    {"mobilenet_v2_96_035_f32", build_mnv2_96_f32},
    {"vww_96_f32", build_vww_f32},
    {"resnet_48", build_resnet},
    {"branches_40", build_branches},
    {"s16_net_32", build_s16_net},
    {"s16_bias_24", build_s16_bias},
    {"resnet_pt_64", build_resnet_pt_64},
    {"resnet_pt_64_f32", build_resnet_pt_64_f32},
    {"mobilenet_v2_224", build_mnv2_224},
    {"mobilenet_v2_224_f32", build_mnv2_224_f32},
    {"mobilenet_v2_96_035_tf", build_mnv2_96_tf},
    {"mobilenet_v2_96_035_keras", build_mnv2_96_keras},
    {"mobilenet_v2_96_035_keras_f32", build_mnv2_96_keras_f32},
    {"pad_values_32", build_pad_values},
    {"ds_cnn_kws", build_ds_cnn},
    {"float_io_32", build_float_io},
    {"s16_res_24", build_s16_res},
    {"two_heads_32", build_two_heads},
    {"svdf_kws", build_svdf_kws},
    {"lstm_8x12", build_lstm_8x12},
    {"lstm16_8x12", build_lstm16_8x12},
};
#define N_NETS (sizeof nets / sizeof nets[0])

/* ---- the operator order (memory.op_order) ------------------------------ */

/* A 1x1 CONV_2D (VALID, stride 1) of x [1,8,8,in_c] into out_c channels;
 * custom: a CUSTOM operator from x to a tensor of that shape instead. */
static int32_t ob_conv(padb *b, int32_t x, int32_t in_c, int32_t out_c, float in_scale,
                       float out_scale, int64_t out_zp, bool custom) {
  const int32_t s[4] = {1, 8, 8, out_c};
  if (!custom)
    return pb_conv(b, x, in_c, 1, 1, 0, out_c, false, 1, 1, 0, in_scale, s, out_scale, out_zp);
  int32_t y = pb_act(b, "custom", 8, 8, out_c, out_scale, out_zp);
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = FX_CUSTOM, .custom_code = "MP_FX_CUSTOM",
                                   .n_inputs = 1, .inputs = &x, .n_outputs = 1, .outputs = &y});
  return y;
}

/* branch_add: two branches of 1x1 convolutions (int8, 8x8 pixels) from
 * one input x [1,8,8,8] (512 B), joined by an ADD:
 *   0 CONV x  8->64 -> a0 [1,8,8,64] 4096 B   (branch A, wide)
 *   1 CONV a0 64->8 -> a1 [1,8,8,8]   512 B
 *   2 CONV x  8->1  -> b0 [1,8,8,1]    64 B   (branch B, narrow)
 *   3 CONV b0 1->8  -> b1 [1,8,8,8]   512 B
 *   4 ADD a1 + b1   -> y  [1,8,8,8]   512 B
 * In the model's order op 1 holds x (op 2 still reads it), a0 and a1: lb
 * 5120.  Running op 2 before op 1 ends x early: 2,0,1,3,4 (or 0,2,1,3,4)
 * peaks at 4672 (x + b0 + a0, then b0 + a0 + a1), the lowest of any
 * order, since op 0's step holds x and a0 and one more tensor: b0 at best. */
static void build_branch_add(mp_tfw *w) {
  padb b = {w, {0x0bad0add}, false, false};
  int32_t x = pb_act(&b, "input", 8, 8, 8, 0.05f, -3);
  int32_t a0 = ob_conv(&b, x, 8, 64, 0.05f, 0.1f, 2, false);
  int32_t a1 = ob_conv(&b, a0, 64, 8, 0.1f, 0.08f, -1, false);
  int32_t b0 = ob_conv(&b, x, 8, 1, 0.05f, 0.07f, 1, false);
  int32_t b1 = ob_conv(&b, b0, 1, 8, 0.07f, 0.06f, 0, false);
  int32_t y = pb_act(&b, "sum", 8, 8, 8, 0.1f, -2);
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I8, .i = 0 /* NONE */}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_ADD, IDS_IN(a1, b1), .n_outputs = 1,
                                .outputs = &y, .options_type = MP_TFW_OPT_ADD, .n_options = 1,
                                .options = o});
  mp_tfw_set_io(w, 1, &x, 1, &y);
}

/* branch_concat (and branch_custom): one branch of 1x1 convolutions per
 * graph input x1, x2 [1,8,8,1] (64 B each), concatenated on channels
 * (int8, one quantisation at the join):
 *   0 CONV x1 1->32  -> a0 [1,8,8,32] 2048 B
 *   1 CONV a0 32->8  -> a1 [1,8,8,8]   512 B
 *   2 CONV x2 1->64  -> b0 [1,8,8,64] 4096 B
 *   3 CONV b0 64->1  -> b1 [1,8,8,1]    64 B
 *   4 CONCATENATION(a1, b1) axis 3 -> y [1,8,8,9] 576 B
 * Model order: ops 2 and 3 run while a1 waits: lb 4672 (a1 + x2 + b0).
 * Branch B first (2,3,0,1,4): 4224 at ops 2 and 3 (x1 + x2 + b0, then
 * x1 + b0 + b1), the lowest of any order.  branch_custom makes ops 1 and
 * 2 CUSTOM operators, whose order is fixed: op 1 runs before op 2, so the
 * model's order (4672) is the best there is. */
static void branch_concat(mp_tfw *w, bool custom) {
  padb b = {w, {0x0bc0c47}, false, false};
  int32_t x1 = pb_act(&b, "input1", 8, 8, 1, 0.05f, -3);
  int32_t x2 = pb_act(&b, "input2", 8, 8, 1, 0.04f, 5);
  int32_t a0 = ob_conv(&b, x1, 1, 32, 0.05f, 0.1f, 2, false);
  int32_t a1 = ob_conv(&b, a0, 32, 8, 0.1f, 0.08f, -1, custom);
  int32_t b0 = ob_conv(&b, x2, 1, 64, 0.04f, 0.07f, 1, custom);
  int32_t b1 = ob_conv(&b, b0, 64, 1, 0.07f, 0.08f, -1, false);
  int32_t y = pb_act(&b, "concat", 8, 8, 9, 0.08f, -1);
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I32, .i = 3}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_CONCATENATION, IDS_IN(a1, b1), .n_outputs = 1,
                                .outputs = &y, .options_type = MP_TFW_OPT_CONCATENATION,
                                .n_options = 1, .options = o});
  mp_tfw_set_io(w, IDS(x1, x2), 1, &y);
}
static void build_branch_concat(mp_tfw *w) { branch_concat(w, false); }
static void build_branch_custom(mp_tfw *w) { branch_concat(w, true); }

/* ---- sub-tensor views and elided concatenations (memory.in_place) ------ */

/* A constant int32 vector of n entries. */
static int32_t pb_ints(padb *b, const char *name, const int32_t *v, int32_t n) {
  const int32_t s1[1] = {n};
  mp_tfw_tensor t = {.name = name, .dtype = MP_DTYPE_INT32, .rank = 1, .shape = s1};
  t.buffer = mp_tfw_add_buffer(b->w, v, (size_t)n * sizeof(int32_t));
  return (int32_t)mp_tfw_add_tensor(b->w, &t);
}

/* An activation of any rank (quantised 0.1 / 2 unless float32). */
static int32_t pb_tensor(padb *b, const char *name, uint32_t rank, const int32_t *shape) {
  if (b->f32) return (int32_t)mp_tfw_add_simple_tensor(b->w, name, MP_DTYPE_FLOAT32, rank, shape);
  if (b->s16) return block_tensor(b->w, name, MP_DTYPE_INT16, rank, shape, 0.1f, 0, NULL, 0);
  return block_tensor(b->w, name, MP_DTYPE_INT8, rank, shape, 0.1f, 2, NULL, 0);
}

/* A 1x1 CONV_2D c -> c of x [1,h,w,c], quantisation 0.1 / 2 kept. */
static int32_t pb_conv1(padb *b, int32_t x, int32_t h, int32_t wd, int32_t c) {
  const int32_t s[4] = {1, h, wd, c};
  return pb_conv(b, x, c, 1, 1, 0, c, false, 1, 1, 0, 0.1f, s, 0.1f, 2);
}

/* SPLIT (sizes NULL: n equal parts) or SPLIT_V of x along `axis` into the
 * given output shapes (rank 4). */
static void pb_split(padb *b, int32_t x, int32_t axis, const int32_t *sizes, uint32_t n,
                     const int32_t (*shapes)[4], int32_t *outs) {
  for (uint32_t i = 0; i < n; i++) outs[i] = pb_tensor(b, "split", 4, shapes[i]);
  int32_t ta = pb_ints(b, "axis", &axis, 1);
  const mp_tfw_option o[] = {{0, MP_TFW_I32, n, 0, 0, NULL}};
  if (!sizes) {
    int32_t ins[2] = {ta, x};
    mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = FX_SPLIT, .n_inputs = 2, .inputs = ins,
                                     .n_outputs = n, .outputs = outs,
                                     .options_type = MP_TFW_OPT_SPLIT, .n_options = 1,
                                     .options = o});
  } else {
    int32_t ins[3] = {x, pb_ints(b, "size_splits", sizes, (int32_t)n), ta};
    mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = 102, .n_inputs = 3, .inputs = ins,
                                     .n_outputs = n, .outputs = outs, .options_type = 79,
                                     .n_options = 1, .options = o});
  }
}

/* CONCATENATION (pack false) or PACK of n tensors along `axis` into `shape`. */
static int32_t pb_concat(padb *b, const int32_t *ins, uint32_t n, int32_t axis, bool pack,
                         uint32_t rank, const int32_t *shape) {
  int32_t y = pb_tensor(b, pack ? "pack" : "concat", rank, shape);
  const mp_tfw_option oc[] = {{0, MP_TFW_I32, axis, 0, 0, NULL}, {1, MP_TFW_I8, 0, 0, 0, NULL}};
  const mp_tfw_option op_[] = {{0, MP_TFW_I32, n, 0, 0, NULL}, {1, MP_TFW_I32, axis, 0, 0, NULL}};
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = pack ? 83 : FX_CONCATENATION, .n_inputs = n,
                                   .inputs = ins, .n_outputs = 1, .outputs = &y,
                                   .options_type = pack ? 59 : MP_TFW_OPT_CONCATENATION,
                                   .n_options = 2, .options = pack ? op_ : oc});
  return y;
}

/* STRIDED_SLICE of x (rank 4) from begin to end by strides, shrink mask
 * `shrink`, into `shape`. */
static int32_t pb_strided(padb *b, int32_t x, const int32_t *begin, const int32_t *end,
                          const int32_t *strides, int32_t shrink, uint32_t rank,
                          const int32_t *shape) {
  int32_t y = pb_tensor(b, "strided_slice", rank, shape);
  int32_t ins[4] = {x, pb_ints(b, "begin", begin, 4), pb_ints(b, "end", end, 4),
                    pb_ints(b, "strides", strides, 4)};
  const mp_tfw_option o[] = {{4, MP_TFW_I32, shrink, 0, 0, NULL}};
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = 45, .n_inputs = 4, .inputs = ins,
                                   .n_outputs = 1, .outputs = &y, .options_type = 32,
                                   .n_options = 1, .options = o});
  return y;
}

/* int8 views and concatenations on [1,8,6,4] activations (one
 * quantisation, 0.1 / 2, so that every concatenation is a byte copy):
 *   0 CONV 3x3 SAME -> a [1,8,6,4]
 *   1 SPLIT axis 1 (rows) -> s0, s1 [1,4,6,4]: views of a
 *   2 CONV 1x1 s0 -> c0 [1,4,6,4]
 *   3 STRIDED_SLICE rows 1..2 of s1 -> t [1,2,6,4]: a view of a view
 *   4 CONV 1x1 t -> c1 [1,2,6,4]      5 CONV 1x1 s1 -> c2 [1,4,6,4]
 *   6 CONCATENATION axis 1 (c0, c1, c2) -> cat [1,10,6,4]: elided
 *   7 CONV 1x1 c1 -> d [1,2,6,4]: a concatenation input read again after it
 *   8 SPLIT_V axis 3 (channels 1 + 3) of cat: not a view (60 rows of each)
 *   9 CONCATENATION axis 3 (v1, v0) -> e [1,10,6,4]: not elided (axis 3)
 *  10 STRIDED_SLICE of e, every second row -> f [1,5,6,4]: not a view
 *  11 CONCATENATION axis 1 (f, d) -> g [1,7,6,4]: elided
 *  12 SLICE rows 0..5 of g -> h [1,6,6,4]: a view at offset 0, smaller
 *  13 CONV 1x1 h -> out0 (graph output)
 *  14 CONCATENATION axis 1 (s1, s0) -> k [1,8,6,4]: fed by a split's views,
 *     not elided       15 CONV 1x1 k -> out1 (graph output) */
static void build_views(mp_tfw *w) {
  padb b = {w, {0x7e1e5}, false, false};
  const int32_t s86[4] = {1, 8, 6, 4};
  int32_t x = pb_act(&b, "input", 8, 6, 4, 0.1f, 2);
  int32_t a = pb_conv(&b, x, 4, 3, 3, 0, 4, true, 1, 1, 0, 0.1f, s86, 0.1f, 2);
  int32_t s[2];
  pb_split(&b, a, 1, NULL, 2, (const int32_t[][4]){{1, 4, 6, 4}, {1, 4, 6, 4}}, s);
  int32_t c0 = pb_conv1(&b, s[0], 4, 6, 4);
  int32_t t = pb_strided(&b, s[1], (const int32_t[]){0, 1, 0, 0}, (const int32_t[]){1, 3, 6, 4},
                         (const int32_t[]){1, 1, 1, 1}, 0, 4, (const int32_t[]){1, 2, 6, 4});
  int32_t c1 = pb_conv1(&b, t, 2, 6, 4);
  int32_t c2 = pb_conv1(&b, s[1], 4, 6, 4);
  int32_t cat = pb_concat(&b, (const int32_t[]){c0, c1, c2}, 3, 1, false, 4,
                          (const int32_t[]){1, 10, 6, 4});
  int32_t d = pb_conv1(&b, c1, 2, 6, 4);
  int32_t v[2];
  pb_split(&b, cat, 3, (const int32_t[]){1, 3}, 2,
           (const int32_t[][4]){{1, 10, 6, 1}, {1, 10, 6, 3}}, v);
  int32_t e = pb_concat(&b, (const int32_t[]){v[1], v[0]}, 2, 3, false, 4,
                        (const int32_t[]){1, 10, 6, 4});
  int32_t f = pb_strided(&b, e, (const int32_t[]){0, 0, 0, 0}, (const int32_t[]){1, 10, 6, 4},
                         (const int32_t[]){1, 2, 1, 1}, 0, 4, (const int32_t[]){1, 5, 6, 4});
  int32_t g = pb_concat(&b, (const int32_t[]){f, d}, 2, 1, false, 4, (const int32_t[]){1, 7, 6, 4});
  int32_t h = pb_slice(&b, g, (const int32_t[]){0, 0, 0, 0}, (const int32_t[]){1, 6, 6, 4}, 0.1f, 2);
  int32_t out[2];
  out[0] = pb_conv1(&b, h, 6, 6, 4);
  int32_t k = pb_concat(&b, (const int32_t[]){s[1], s[0]}, 2, 1, false, 4, s86);
  out[1] = pb_conv1(&b, k, 8, 6, 4);
  mp_tfw_set_io(w, 1, &x, 2, out);
}

/* float32 views: UNPACK, PACK, a STRIDED_SLICE with a shrunk axis, a
 * channel SPLIT and CONCATENATION that stay copies; [1,4,6,4] activations:
 *   0 CONV 3x3 SAME -> a [1,4,6,4]
 *   1 UNPACK axis 1 -> u0..u3 [1,6,4]: views of a
 *   2 ADD u0 + u1 -> p0     3 ADD u2 + u3 -> p1     4 ADD u1 + u2 -> p2
 *   5 PACK axis 1 (p0, p1, p2) -> pk [1,3,6,4]: elided
 *   6 CONV 1x1 pk -> y [1,3,6,4]
 *   7 SPLIT axis 3 (2 + 2 channels) of y: not a view
 *   8 CONCATENATION axis 3 (y1, y0) -> z [1,3,6,4]: not elided
 *   9 CONV 1x1 z -> out0
 *  10 STRIDED_SLICE row 2 of a, axis 1 shrunk -> r [1,6,4]: a view of a
 *  11 ADD r + p2 -> out1 */
static void build_views_f32(mp_tfw *w) {
  padb b = {w, {0xf32e5}, true, false};
  const int32_t s46[4] = {1, 4, 6, 4}, s3[3] = {1, 6, 4};
  int32_t x = pb_act(&b, "input", 4, 6, 4, 0, 0);
  int32_t a = pb_conv(&b, x, 4, 3, 3, 0, 4, true, 1, 1, 0, 0, s46, 0, 0);
  int32_t u[4];
  for (int i = 0; i < 4; i++) u[i] = pb_tensor(&b, "unpack", 3, s3);
  const mp_tfw_option ou[] = {{0, MP_TFW_I32, 4, 0, 0, NULL}, {1, MP_TFW_I32, 1, 0, 0, NULL}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 88, .n_inputs = 1, .inputs = &a, .n_outputs = 4,
                                .outputs = u, .options_type = 64, .n_options = 2, .options = ou});
  int32_t p[3];
  const int32_t pairs[3][2] = {{0, 1}, {2, 3}, {1, 2}};
  for (int i = 0; i < 3; i++) {
    p[i] = pb_tensor(&b, "add", 3, s3);
    int32_t ins[2] = {u[pairs[i][0]], u[pairs[i][1]]};
    mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_ADD, .n_inputs = 2, .inputs = ins,
                                  .n_outputs = 1, .outputs = &p[i]});
  }
  int32_t pk = pb_concat(&b, p, 3, 1, true, 4, (const int32_t[]){1, 3, 6, 4});
  const int32_t s36[4] = {1, 3, 6, 4};
  int32_t y = pb_conv(&b, pk, 4, 1, 1, 0, 4, false, 1, 1, 0, 0, s36, 0, 0);
  int32_t ys[2];
  pb_split(&b, y, 3, NULL, 2, (const int32_t[][4]){{1, 3, 6, 2}, {1, 3, 6, 2}}, ys);
  int32_t z = pb_concat(&b, (const int32_t[]){ys[1], ys[0]}, 2, 3, false, 4, s36);
  int32_t out[2];
  out[0] = pb_conv(&b, z, 4, 1, 1, 0, 4, false, 1, 1, 0, 0, s36, 0, 0);
  int32_t r = pb_strided(&b, a, (const int32_t[]){0, 2, 0, 0}, (const int32_t[]){1, 3, 6, 4},
                         (const int32_t[]){1, 1, 1, 1}, 2, 3, s3);
  out[1] = pb_tensor(&b, "add", 3, s3);
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_ADD, .n_inputs = 2,
                                .inputs = (const int32_t[]){r, p[2]}, .n_outputs = 1,
                                .outputs = &out[1]});
  mp_tfw_set_io(w, 1, &x, 2, out);
}

/* A FULLY_CONNECTED of x [1,in] into a new [1,out] (quantisation 0.1 / 2). */
static int32_t pb_fc(padb *b, int32_t x, int32_t in, int32_t out) {
  int8_t *f = malloc((size_t)in * out);
  int32_t *bias = malloc((size_t)out * sizeof *bias);
  for (int32_t i = 0; i < in * out; i++) f[i] = (int8_t)rng_int(&b->r, -127, 127);
  for (int32_t i = 0; i < out; i++) bias[i] = rng_int(&b->r, -2000, 2000);
  int32_t tf = block_tensor(b->w, "weights", MP_DTYPE_INT8, 2, (const int32_t[]){out, in}, 0.002f,
                            0, f, (size_t)in * out);
  int32_t tb = block_tensor(b->w, "bias", MP_DTYPE_INT32, 1, (const int32_t[]){out}, 0.0002f, 0,
                            bias, (size_t)out * sizeof *bias);
  free(f);
  free(bias);
  int32_t y = pb_tensor(b, "fc", 2, (const int32_t[]){1, out});
  const mp_tfw_option o[] = {{0, MP_TFW_I8, 0, 0, 0, NULL}, {2, MP_TFW_BOOL, 0, 0, 0, NULL}};
  int32_t ins[3] = {x, tf, tb};
  mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = FX_FULLY_CONNECTED, .version = 4,
                                   .n_inputs = 3, .inputs = ins, .n_outputs = 1, .outputs = &y,
                                   .options_type = MP_TFW_OPT_FULLY_CONNECTED, .n_options = 2,
                                   .options = o});
  return y;
}

/* heads' side graph (after op 9): the comparisons, the logical operators, SELECT
 * and SELECT_V2, FLOOR_DIV, FLOOR_MOD, ADD_N, REDUCE_MIN and ARG_MIN, with
 * bool tensors between them and one bool graph output.  Inputs f float32
 * [2,3], k int32 [2,3], q int8 [2,3] (0.05, -3); constants cf float32 [3],
 * ci int32 [1], r int8 [3] (0.1, 2), cd float32 [3] (no zero), axis [1].
 *   LESS f, cf -> l;  LESS_EQUAL f, cf -> le;  GREATER_EQUAL k, ci -> ge;
 *   NOT_EQUAL k, ci -> ne;  EQUAL q, r -> e;  GREATER q, r -> gt  (bool [2,3])
 *   LOGICAL_AND l, ge -> a1;  LOGICAL_OR a1, e -> o1;  LOGICAL_NOT o1 -> n1
 *   LOGICAL_OR ne, le -> o2 (graph output);  LOGICAL_AND o2, gt -> a2
 *   SELECT_V2 n1, f, cf -> sf [2,3];  SELECT a2, k, k -> sk [2,3]
 *   FLOOR_DIV sf, cd -> fd;  FLOOR_MOD k, ci -> fm;  ADD_N fm, sk, k -> an
 *   REDUCE_MIN f over axis 1 -> rm [2];  ARG_MIN f over axis 1 -> am [2];
 *   REDUCE_MIN q over axis 1 -> qm int8 [2]
 * graph outputs o2, fd, an, rm, am, qm. */
static void heads_side(mp_tfw *w, int32_t in[3], int32_t out[6]) {
  static const int32_t s23[2] = {2, 3}, s3[1] = {3}, s1[1] = {1}, s2[1] = {2};
  static const float cf[3] = {0.5f, -1.0f, 2.0f}, cd[3] = {1.5f, -0.75f, 4.0f};
  static const int8_t r8[3] = {-20, 5, 30};
  static const float qs = 0.05f, rs = 0.1f;
  static const int64_t qz = -3, rz = 2;
  in[0] = (int32_t)mp_tfw_add_simple_tensor(w, "side/f", MP_DTYPE_FLOAT32, 2, s23);
  in[1] = (int32_t)mp_tfw_add_simple_tensor(w, "side/k", MP_DTYPE_INT32, 2, s23);
  mp_tfw_tensor qt = {.name = "side/q", .dtype = MP_DTYPE_INT8, .rank = 2, .shape = s23,
                      .has_quant = true, .quant = {1, &qs, 1, &qz, 0}};
  in[2] = (int32_t)mp_tfw_add_tensor(w, &qt);
  int32_t f = in[0], k = in[1], q = in[2];
  int32_t tcf = constant(w, "side/cf", MP_DTYPE_FLOAT32, 1, s3, cf, sizeof cf);
  int32_t tcd = constant(w, "side/cd", MP_DTYPE_FLOAT32, 1, s3, cd, sizeof cd);
  int32_t tci = const_i32(w, "side/ci", 1, s1, (const int32_t[]){3}, 1);
  int32_t axis = const_i32(w, "side/axis", 1, s1, (const int32_t[]){1}, 1);
  mp_tfw_tensor rt = {.name = "side/r", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = s3,
                      .has_quant = true, .quant = {1, &rs, 1, &rz, 0}};
  rt.buffer = mp_tfw_add_buffer(w, r8, sizeof r8);
  int32_t r = (int32_t)mp_tfw_add_tensor(w, &rt);
  static const char *const bools[11] = {"side/l",  "side/le", "side/ge", "side/ne",
                                        "side/e",  "side/gt", "side/a1", "side/o1",
                                        "side/n1", "side/o2", "side/a2"};
  int32_t b[11];
  for (int i = 0; i < 11; i++)
    b[i] = (int32_t)mp_tfw_add_simple_tensor(w, bools[i], MP_DTYPE_BOOL, 2, s23);
  op(w, FX_LESS, IDS(f, tcf), IDS(b[0]));
  op(w, FX_LESS_EQUAL, IDS(f, tcf), IDS(b[1]));
  op(w, FX_GREATER_EQUAL, IDS(k, tci), IDS(b[2]));
  op(w, FX_NOT_EQUAL, IDS(k, tci), IDS(b[3]));
  op(w, FX_EQUAL, IDS(q, r), IDS(b[4]));
  op(w, FX_GREATER, IDS(q, r), IDS(b[5]));
  op(w, FX_LOGICAL_AND, IDS(b[0], b[2]), IDS(b[6]));
  op(w, FX_LOGICAL_OR, IDS(b[6], b[4]), IDS(b[7]));
  op(w, FX_LOGICAL_NOT, IDS(b[7]), IDS(b[8]));
  op(w, FX_LOGICAL_OR, IDS(b[3], b[1]), IDS(b[9]));
  op(w, FX_LOGICAL_AND, IDS(b[9], b[5]), IDS(b[10]));
  int32_t sf = (int32_t)mp_tfw_add_simple_tensor(w, "side/sf", MP_DTYPE_FLOAT32, 2, s23);
  int32_t sk = (int32_t)mp_tfw_add_simple_tensor(w, "side/sk", MP_DTYPE_INT32, 2, s23);
  int32_t fd = (int32_t)mp_tfw_add_simple_tensor(w, "side/fd", MP_DTYPE_FLOAT32, 2, s23);
  int32_t fm = (int32_t)mp_tfw_add_simple_tensor(w, "side/fm", MP_DTYPE_INT32, 2, s23);
  int32_t an = (int32_t)mp_tfw_add_simple_tensor(w, "side/an", MP_DTYPE_INT32, 2, s23);
  int32_t rm = (int32_t)mp_tfw_add_simple_tensor(w, "side/rm", MP_DTYPE_FLOAT32, 1, s2);
  int32_t am = (int32_t)mp_tfw_add_simple_tensor(w, "side/am", MP_DTYPE_INT32, 1, s2);
  mp_tfw_tensor qmt = {.name = "side/qm", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = s2,
                       .has_quant = true, .quant = {1, &qs, 1, &qz, 0}};
  int32_t qm = (int32_t)mp_tfw_add_tensor(w, &qmt);
  op(w, FX_SELECT_V2, IDS(b[8], f, tcf), IDS(sf));
  op(w, FX_SELECT, IDS(b[10], k, k), IDS(sk));
  op(w, FX_FLOOR_DIV, IDS(sf, tcd), IDS(fd));
  op(w, FX_FLOOR_MOD, IDS(k, tci), IDS(fm));
  op(w, FX_ADD_N, IDS(fm, sk, k), IDS(an));
  op(w, FX_REDUCE_MIN, IDS(f, axis), IDS(rm));
  op(w, FX_ARG_MIN, IDS(f, axis), IDS(am));
  op(w, FX_REDUCE_MIN, IDS(q, axis), IDS(qm));
  out[0] = b[9], out[1] = fd, out[2] = an, out[3] = rm, out[4] = am, out[5] = qm;
}

/* int8 heads on [1,n] vectors, where views pay: three FULLY_CONNECTED
 * heads of one input concatenated (the heads write into the
 * concatenation), and a SPLIT of a vector into three heads:
 *   0..2 FC x [1,256] -> h0, h1, h2 [1,256]
 *   3 CONCATENATION axis 1 -> c [1,768]: elided
 *   4 FC c -> y [1,384]
 *   5 SPLIT axis 1 -> y0, y1, y2 [1,128]: views of y
 *   6..8 FC y_i -> z_i [1,64]
 *   9 CONCATENATION axis 1 (z0, z1, z2) -> out [1,192] (graph output):
 *     elided, under memory.io arena
 * and heads_side's operators from three more inputs to six more outputs
 * (ops 10 on). */
static void build_heads(mp_tfw *w) {
  padb b = {w, {0x4ead5}, false, false};
  int32_t x = pb_tensor(&b, "input", 2, (const int32_t[]){1, 256});
  int32_t h[3];
  for (int i = 0; i < 3; i++) h[i] = pb_fc(&b, x, 256, 256);
  int32_t c = pb_concat(&b, h, 3, 1, false, 2, (const int32_t[]){1, 768});
  int32_t y = pb_fc(&b, c, 768, 384);
  int32_t ys[3];
  for (int i = 0; i < 3; i++) ys[i] = pb_tensor(&b, "split", 2, (const int32_t[]){1, 128});
  int32_t axis = 1, ta = pb_ints(&b, "axis", &axis, 1);
  const mp_tfw_option os[] = {{0, MP_TFW_I32, 3, 0, 0, NULL}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SPLIT, .n_inputs = 2,
                                .inputs = (const int32_t[]){ta, y}, .n_outputs = 3, .outputs = ys,
                                .options_type = MP_TFW_OPT_SPLIT, .n_options = 1, .options = os});
  int32_t z[3];
  for (int i = 0; i < 3; i++) z[i] = pb_fc(&b, ys[i], 128, 64);
  int32_t out = pb_concat(&b, z, 3, 1, false, 2, (const int32_t[]){1, 192});
  int32_t side_in[3], side_out[6];
  heads_side(w, side_in, side_out);
  mp_tfw_set_io(w, 4, (const int32_t[]){x, side_in[0], side_in[1], side_in[2]}, 7,
                (const int32_t[]){out, side_out[0], side_out[1], side_out[2], side_out[3],
                                  side_out[4], side_out[5]});
}

/* ---- concatenations along inner axes (memory.in_place) ------------------ */

/* Fire and inception modules, whose branches are concatenated along the
 * channels (one quantisation, 0.1 / 2, so that each concatenation is a byte
 * copy), int8 or float32:
 *   0 CONV 1x1 input [1,12,12,8] -> sq [1,12,12,4]  (squeeze)
 *   1 CONV 1x1 sq -> e1 [1,12,12,12]   2 CONV 3x3 SAME sq -> e3 [1,12,12,12]
 *   3 CONCATENATION axis 3 (e1, e3) -> fire [1,12,12,24]: elided, each
 *     expand writes every 24-channel pixel's 12 channels
 *   4 MAX_POOL 3x3 stride 2 fire -> p [1,6,6,24]
 *   5 CONV 1x1 p -> b0 [1,6,6,8]
 *   6 DEPTHWISE 3x3 SAME p, multiplier 1 -> b1 [1,6,6,24]
 *   7 AVG_POOL 3x3 stride 1 p -> b2 [1,6,6,24]
 *   8 CONCATENATION axis 3 (b0, b1, b2) -> inc [1,6,6,56]: elided
 *   9 CONV 1x1 inc -> c [1,6,6,8]
 *  10 CONV 1x1 c -> u [1,6,6,8]
 *  11 CONCATENATION axis 3 (u, c) -> k [1,6,6,16]: not elided (c is read
 *     by 10 too)
 *  12 CONV 1x1 k -> w0 [1,6,6,8]     13 CONV 1x1 k -> w1 [1,6,6,8]
 *  14 CONCATENATION axis 2 (w0, w1) -> wide [1,6,12,8]: elided, each
 *     writes half of every image row
 *  15 CONV 1x1 wide -> out [1,6,12,4]
 *  16.. the elementwise math operators, one after the other, each into a
 *     new [1,6,12,4] (the last: the graph output): float32 ABS, NEG,
 *     SQUARE, SQRT, LOG, SIN, COS, FLOOR, CEIL, ROUND, RELU_N1_TO_1,
 *     RELU_0_TO_1, ELU, LOG_SOFTMAX, L2_NORMALIZATION; int8 ABS (to 0.05 /
 *     -128: rescaled), RELU_N1_TO_1 (1/64, 0), RELU_0_TO_1 (1/128, -128) */
static int32_t math_tail(padb *b, int32_t x) {
  /* BuiltinOperator codes: ABS 101, NEG 59, SQUARE 92, SQRT 75, LOG 73,
   * SIN 66, COS 108, FLOOR 8, CEIL 104, ROUND 116, RELU_N1_TO_1 20,
   * RELU_0_TO_1 152, ELU 111, LOG_SOFTMAX 50, L2_NORMALIZATION 11 */
  static const int32_t float_ops[] = {101, 59, 92, 75, 73, 66, 108, 8, 104, 116, 20, 152, 111, 50, 11};
  static const int32_t int8_ops[] = {101, 20, 152};
  static const float scales[] = {0.05f, 1.0f / 64, 1.0f / 128};
  static const int64_t zps[] = {-128, 0, -128};
  const int32_t s[4] = {1, 6, 12, 4};
  size_t n = b->f32 ? sizeof float_ops / sizeof float_ops[0] : sizeof int8_ops / sizeof int8_ops[0];
  for (size_t i = 0; i < n; i++) {
    int32_t y = b->f32 ? pb_tensor(b, "math", 4, s)
                       : block_tensor(b->w, "math", MP_DTYPE_INT8, 4, s, scales[i], zps[i], NULL, 0);
    mp_tfw_add_op(b->w, &(mp_tfw_op){.builtin_code = b->f32 ? float_ops[i] : int8_ops[i],
                                     .n_inputs = 1, .inputs = &x, .n_outputs = 1, .outputs = &y});
    x = y;
  }
  return x;
}

static void fire(mp_tfw *w, bool f32) {
  padb b = {w, {0xf14e}, f32, false};
  const float q = f32 ? 0 : 0.1f;
  int32_t x = pb_act(&b, "input", 12, 12, 8, 0.1f, 2);
  int32_t sq = pb_conv(&b, x, 8, 1, 1, 0, 4, false, 1, 1, 1, q, (const int32_t[]){1, 12, 12, 4},
                       q, 2);
  int32_t e[2];
  e[0] = pb_conv(&b, sq, 4, 1, 1, 0, 12, false, 1, 1, 1, q, (const int32_t[]){1, 12, 12, 12}, q,
                 2);
  e[1] = pb_conv(&b, sq, 4, 3, 3, 0, 12, true, 1, 1, 1, q, (const int32_t[]){1, 12, 12, 12}, q,
                 2);
  int32_t fr = pb_concat(&b, e, 2, 3, false, 4, (const int32_t[]){1, 12, 12, 24});
  int32_t p = pb_pool_padded(&b, fr, true, 3, 2, true, (const int32_t[]){1, 6, 6, 24}, 0.1f, 2);
  int32_t br[3];
  br[0] = pb_conv(&b, p, 24, 1, 1, 0, 8, false, 1, 1, 0, q, (const int32_t[]){1, 6, 6, 8}, q, 2);
  br[1] = pb_conv(&b, p, 24, 3, 3, 1, 24, true, 1, 1, 3, q, (const int32_t[]){1, 6, 6, 24}, q, 2);
  br[2] = pb_pool_padded(&b, p, false, 3, 1, true, (const int32_t[]){1, 6, 6, 24}, 0.1f, 2);
  int32_t inc = pb_concat(&b, br, 3, -1, false, 4, (const int32_t[]){1, 6, 6, 56});
  int32_t c = pb_conv(&b, inc, 56, 1, 1, 0, 8, false, 1, 1, 0, q, (const int32_t[]){1, 6, 6, 8},
                      q, 2);
  int32_t u = pb_conv1(&b, c, 6, 6, 8);
  int32_t k = pb_concat(&b, (const int32_t[]){u, c}, 2, 3, false, 4, (const int32_t[]){1, 6, 6, 16});
  int32_t wv[2];
  for (int i = 0; i < 2; i++)
    wv[i] = pb_conv(&b, k, 16, 1, 1, 0, 8, false, 1, 1, 0, q, (const int32_t[]){1, 6, 6, 8}, q, 2);
  int32_t wide = pb_concat(&b, wv, 2, 2, false, 4, (const int32_t[]){1, 6, 12, 8});
  int32_t out = pb_conv(&b, wide, 8, 1, 1, 0, 4, false, 1, 1, 0, q,
                        (const int32_t[]){1, 6, 12, 4}, q, 2);
  out = math_tail(&b, out);
  mp_tfw_set_io(w, 1, &x, 1, &out);
}
static void build_fire(mp_tfw *w) { fire(w, false); }

/* fire_s16: a 16x8 fire module (zero points 0, every scale 0.1):
 *   0 CONV 1x1 4->6 -> [1,6,6,6]   1 CONV 3x3 SAME 4->6 -> [1,6,6,6]
 *   2 CONCATENATION along channels -> [1,6,6,12]   3 CONV 1x1 12->4.
 * memory.in_place size elides the concatenation (ops 0 and 1 write its
 * rows, on their reference kernels on a Cortex-M target); speed keeps it,
 * and ops 0 and 1 their specialised kernels. */
static void build_fire_s16(mp_tfw *w) {
  padb b = {w, {0xf1516}, false, true};
  int32_t x = pb_act(&b, "input", 6, 6, 4, 0.1f, 0);
  int32_t e[2];
  e[0] = pb_conv(&b, x, 4, 1, 1, 0, 6, false, 1, 1, 0, 0.1f, (const int32_t[]){1, 6, 6, 6}, 0.1f, 0);
  e[1] = pb_conv(&b, x, 4, 3, 3, 0, 6, true, 1, 1, 0, 0.1f, (const int32_t[]){1, 6, 6, 6}, 0.1f, 0);
  int32_t c = pb_concat(&b, e, 2, 3, false, 4, (const int32_t[]){1, 6, 6, 12});
  int32_t out =
      pb_conv(&b, c, 12, 1, 1, 0, 4, false, 1, 1, 0, 0.1f, (const int32_t[]){1, 6, 6, 4}, 0.1f, 0);
  mp_tfw_set_io(w, 1, &x, 1, &out);
}
static void build_fire_f32(mp_tfw *w) { fire(w, true); }

/* long_names: a converter's scoped name of 199 characters, for messages
 * and reports that must shorten it.
 *   0 x [1,1024]; 1 the long name [1,1024]; 2 out [1,1024].
 *   ops: 0 RELU(0)->1, 1 RELU(1)->2.
 *   x [0,0], the long one [0,1], out [1,1]; lb 2048 at both ops. */
static void build_long_names(mp_tfw *w) {
  static char longname[256];
  size_t k = 0;
  const char *parts[] = {"functional_1/", "streaming_keyword_encoder_block_3/",
                         "depthwise_separable_convolution_residual_branch/",
                         "batch_normalization_fused_with_relu6_activation/",
                         "quantize_dequantize_wrapper_for_int8_export/", "Relu6;output"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    size_t l = strlen(parts[i]);
    memcpy(longname + k, parts[i], l);
    k += l;
  }
  longname[k] = '\0';
  act(w, "x", 1024);
  act(w, longname, 1024);
  act(w, "out", 1024);
  op(w, FX_RELU, IDS(0), IDS(1));
  op(w, FX_RELU, IDS(1), IDS(2));
  mp_tfw_set_io(w, IDS(0), IDS(2));
}

static const struct {
  const char *name;
  void (*build)(mp_tfw *w);
} fixtures[] = {
    {"tiny", build_tiny_inline},
    {"multi_subgraph", build_multi_subgraph},
    {"variable", build_variable},
    {"state_zero_points", build_state_zero_points},
    {"zero_size", build_zero_size},
    {"unread_output", build_unread_output},
    {"late_input", build_late_input},
    {"view_chain", build_view_chain},
    {"view_of_constant", build_view_of_constant},
    {"optional_input", build_optional_input},
    {"intermediates", build_intermediates},
    {"external_weights", build_external},
    {"written_twice", build_written_twice},
    {"writes_constant", build_writes_constant},
    {"dynamic_shape", build_dynamic_shape},
    {"custom_ops", build_custom_ops},
    {"padded_block", build_padded_block},
    {"pad_conv", build_pad_conv},
    {"pad_pool", build_pad_pool},
    {"pad_pool_f32", build_pad_pool_f32},
    {"pad_conv_f32", build_pad_conv_f32},
    {"pad_conv_s16", build_pad_conv_s16},
    {"slices", build_slices},
    {"branch_add", build_branch_add},
    {"branch_concat", build_branch_concat},
    {"branch_custom", build_branch_custom},
    {"views", build_views},
    {"views_f32", build_views_f32},
    {"heads", build_heads},
    {"fire", build_fire},
    {"fire_f32", build_fire_f32},
    {"fire_s16", build_fire_s16},
    {"long_names", build_long_names},
    {"signal_stream", build_signal_stream},
    {"block_move", build_block_move},
};
#define N_FIXTURES (sizeof fixtures / sizeof fixtures[0])

const char *const *fx_names(void) {
  static const char *names[N_FIXTURES + 1];
  for (size_t i = 0; i < N_FIXTURES; i++) names[i] = fixtures[i].name;
  names[N_FIXTURES] = NULL;
  return names;
}

const char *const *fx_net_names(void) {
  static const char *names[N_NETS + 1];
  for (size_t i = 0; i < N_NETS; i++) names[i] = nets[i].name;
  names[N_NETS] = NULL;
  return names;
}

/* fx_hostile_names: every name written through fx_hostile_name. */
static bool hostile_names;

void fx_hostile_names(bool on) { hostile_names = on; }

/* Text a name may carry to break out of a C comment or string, splice a
 * line, form a trigraph, move a terminal's cursor or reverse the text's
 * direction; each would put a canary into the module (a negative array
 * size, an #error) were it to become code. */
static const char *const HOSTILE[] = {
    "*/ typedef char memplan_injected[-1]; /*",
    "*\\\n#error memplan_injected\n",
    "?\?/\n#error memplan_injected_trigraph\n",
    "\\\n#error memplan_injected_splice\n",
    "/* \"); typedef char memplan_injected_q[-1]; (\"",
    "\xe2\x80\xae\xe2\x81\xa6rlo",
    "\x1b[31m\x1b]0;title\x07\r\n",
    "\xc2\x9b\x32J\xc2\x85", /* CSI 2J, NEL */
    "%s%n%x",
    "</script><script>alert(1)</script>&amp;\"'",
    "\xff\xfe\xc0\xaf",
    "?\?=?\?(?\?)?\?<?\?>?\?!?\?'?\?-",
};

const char *fx_hostile_name(void *user, const char *name, char *buf, size_t size) {
  (void)user;
  uint32_t h = 2166136261u; /* FNV-1a: the same name always gets the same tokens */
  for (const char *c = name; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
  size_t n = sizeof HOSTILE / sizeof HOSTILE[0];
  snprintf(buf, size, "%s%s%s", HOSTILE[h % n], name, HOSTILE[(h / 7 + 1) % n]);
  return buf;
}

static mp_status build_with(void (*build)(mp_tfw *w), uint8_t **bytes, size_t *size) {
  mp_tfw *w = mp_tfw_new();
  if (!w) return MP_ERR_NOMEM;
  if (hostile_names) mp_tfw_set_rename(w, fx_hostile_name, NULL);
  build(w);
  mp_status st = mp_tfw_finish(w, bytes, size);
  mp_tfw_free(&w);
  return st;
}

mp_status fx_build(const char *name, uint8_t **bytes, size_t *size) {
  *bytes = NULL;
  *size = 0;
  for (size_t i = 0; i < N_FIXTURES; i++)
    if (!strcmp(name, fixtures[i].name)) return build_with(fixtures[i].build, bytes, size);
  for (size_t i = 0; i < N_NETS; i++)
    if (!strcmp(name, nets[i].name)) return build_with(nets[i].build, bytes, size);
  return MP_ERR_CONFIG;
}

mp_model *fx_model(const char *name) {
  uint8_t *b;
  size_t n;
  mp_status st = fx_build(name, &b, &n);
  if (st != MP_OK) {
    fprintf(stderr, "fixture '%s': %s\n", name, mp_status_str(st));
    return NULL;
  }
  mp_model *m = NULL;
  st = mp_model_parse(b, n, name, NULL, &m);
  free(b);
  if (st != MP_OK) fprintf(stderr, "fixture '%s' does not parse: %s\n", name, mp_status_str(st));
  return m;
}

/* ------------------------------------------------------------------------ */
/* Random DAGs                                                              */
/* ------------------------------------------------------------------------ */

/* Largest activation of a random DAG, in bytes (elements of int8). */
#define RND_MAX_ELEMS 4096

/* Activation quantisation of random DAGs: one generic scale, and the fixed
 * output parameters the int8 LOGISTIC and TANH kernels require. */
typedef enum rnd_quant { RQ_GENERIC, RQ_LOGISTIC, RQ_TANH } rnd_quant;

typedef struct rnd_graph {
  mp_tfw *w;
  rng r;
  uint32_t n, cap;       /* activation tensors so far */
  uint32_t n_tensors;    /* every tensor so far: the next tensor's id */
  int32_t *id;           /* tensor id of activation k */
  int32_t *elems;        /* its element count */
  uint8_t *rank;         /* 1 ([n]) or 2 ([1,n]) */
  uint32_t *reads;       /* how many ops read it */
  bool *is_input;
  uint32_t n_inputs;
  int32_t *inputs;
  int32_t axis[3];       /* SPLIT axis constant per rank (last axis), or -1 */
} rnd_graph;

/* A new activation of n elements and rank 1 or 2; returns its index k. */
static uint32_t rnd_act(rnd_graph *g, int32_t n, uint8_t rank, rnd_quant q) {
  static const float scales[] = {0.05f, 1.0f / 256.0f, 1.0f / 128.0f};
  static const int64_t zps[] = {0, -128, 0};
  char name[32];
  snprintf(name, sizeof name, "t%u", g->n_tensors++);
  mp_tfw_tensor t = {.name = name, .dtype = MP_DTYPE_INT8, .rank = rank,
                     .shape = rank == 1 ? (const int32_t[]){n} : (const int32_t[]){1, n},
                     .has_quant = true, .quant = {1, &scales[q], 1, &zps[q], 0}};
  uint32_t k = g->n++;
  g->id[k] = (int32_t)mp_tfw_add_tensor(g->w, &t);
  g->elems[k] = n;
  g->rank[k] = rank;
  g->reads[k] = 0;
  g->is_input[k] = false;
  return k;
}

static uint32_t rnd_new_input(rnd_graph *g) {
  uint32_t k = rnd_act(g, rng_int(&g->r, 1, 1024), 2, RQ_GENERIC);
  g->is_input[k] = true;
  g->inputs[g->n_inputs++] = g->id[k];
  return k;
}

/* An input for the next op: mostly a recent activation, sometimes one from
 * far back (a skip connection), now and then a graph input read late. */
static uint32_t rnd_pick(rnd_graph *g) {
  int32_t c = rng_int(&g->r, 0, 99);
  if (c < 4) return rnd_new_input(g);
  if (c < 74) {
    uint32_t recent = g->n < 4 ? g->n : 4;
    return g->n - 1 - (uint32_t)rng_int(&g->r, 0, (int32_t)recent - 1);
  }
  return (uint32_t)rng_int(&g->r, 0, (int32_t)g->n - 1);
}

/* Add op `code` reading `in` (activations), then `extra` (constants), and
 * writing `out`, with the given options. */
static void rnd_op(rnd_graph *g, int32_t code, uint32_t n_in, const uint32_t *in,
                   uint32_t n_extra, const int32_t *extra, uint32_t n_out, const uint32_t *out,
                   uint8_t options_type, uint32_t n_options, const mp_tfw_option *options) {
  int32_t ins[8], outs[2];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n_in; i++) {
    ins[k++] = g->id[in[i]];
    g->reads[in[i]]++;
  }
  for (uint32_t i = 0; i < n_extra; i++) ins[k++] = extra[i];
  for (uint32_t i = 0; i < n_out; i++) outs[i] = g->id[out[i]];
  mp_tfw_op o = {.builtin_code = code, .n_inputs = k, .inputs = ins, .n_outputs = n_out,
                 .outputs = outs, .options_type = options_type, .n_options = n_options,
                 .options = options};
  mp_tfw_add_op(g->w, &o);
}

/* Ops of random DAGs, each well-formed for TFLite's shape rules: int8
 * activations [1,n] or [n], elementwise ops keep the shape, ADD/MUL take a
 * partner of the same element count (broadcast [n] + [1,n]), CONCATENATION
 * and SPLIT work on the last axis of same-rank tensors, PAD pads the last
 * axis, RESHAPE switches between [1,n] and [n] (a view). */
static void rnd_step(rnd_graph *g) {
  static const int32_t unary[] = {FX_RELU, FX_TANH, FX_LOGISTIC};
  uint32_t a = rnd_pick(g);
  int32_t n = g->elems[a];
  uint8_t rank = g->rank[a];
  int32_t c = rng_int(&g->r, 0, 99);
  if (c >= 30 && c < 50) { /* ADD / MUL with a partner of the same size */
    uint32_t match[16], n_match = 0;
    for (uint32_t k = g->n; k-- > 0 && n_match < 16;)
      if (k != a && g->elems[k] == n) match[n_match++] = k;
    if (n_match > 0) {
      uint32_t in[2] = {a, match[rng_int(&g->r, 0, (int32_t)n_match - 1)]};
      uint8_t r = g->rank[in[1]] > rank ? g->rank[in[1]] : rank;
      uint32_t out = rnd_act(g, n, r, RQ_GENERIC);
      mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I8, .i = 0 /* NONE */}};
      rnd_op(g, c < 40 ? FX_ADD : FX_MUL, 2, in, 0, NULL, 1, &out,
             c < 40 ? MP_TFW_OPT_ADD : MP_TFW_OPT_MUL, 1, o);
      return;
    }
  } else if (c >= 50 && c < 62) { /* CONCATENATION of 2 or 3 on the last axis */
    uint32_t in[3] = {a, rnd_pick(g), 0};
    uint32_t n_in = 2;
    if (rng_int(&g->r, 0, 1)) in[n_in++] = rnd_pick(g);
    int32_t sum = 0;
    bool same_rank = true;
    for (uint32_t i = 0; i < n_in; i++) {
      sum += g->elems[in[i]];
      same_rank &= g->rank[in[i]] == rank;
    }
    if (same_rank && sum <= RND_MAX_ELEMS) {
      uint32_t out = rnd_act(g, sum, rank, RQ_GENERIC);
      mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I32, .i = rank - 1},
                           {.field = 1, .type = MP_TFW_I8, .i = 0}};
      rnd_op(g, FX_CONCATENATION, n_in, in, 0, NULL, 1, &out, MP_TFW_OPT_CONCATENATION, 2, o);
      return;
    }
  } else if (c >= 62 && c < 74) { /* SPLIT in two halves on the last axis */
    if (n >= 2 && n % 2 == 0) {
      if (g->axis[rank] < 0) {
        g->axis[rank] = const_i32(g->w, rank == 1 ? "axis0" : "axis1", 0, NULL,
                                  (const int32_t[]){rank - 1}, 1);
        g->n_tensors++;
      }
      uint32_t out[2] = {rnd_act(g, n / 2, rank, RQ_GENERIC), rnd_act(g, n / 2, rank, RQ_GENERIC)};
      /* SPLIT reads (axis, input): the constant comes first */
      int32_t ins[2] = {g->axis[rank], g->id[a]};
      int32_t outs[2] = {g->id[out[0]], g->id[out[1]]};
      g->reads[a]++;
      mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I32, .i = 2}};
      mp_tfw_op op_def = {.builtin_code = FX_SPLIT, .n_inputs = 2, .inputs = ins, .n_outputs = 2,
                          .outputs = outs, .options_type = MP_TFW_OPT_SPLIT, .n_options = 1,
                          .options = o};
      mp_tfw_add_op(g->w, &op_def);
      return;
    }
  } else if (c >= 74 && c < 84) { /* PAD at the end of the last axis */
    int32_t p = rng_int(&g->r, 1, 64);
    if (n + p <= RND_MAX_ELEMS) {
      char name[32];
      snprintf(name, sizeof name, "pad%u", g->n_tensors++);
      int32_t pads = rank == 1 ? const_i32(g->w, name, 2, (const int32_t[]){1, 2},
                                           (const int32_t[]){0, p}, 2)
                               : const_i32(g->w, name, 2, (const int32_t[]){2, 2},
                                           (const int32_t[]){0, 0, 0, p}, 4);
      uint32_t out = rnd_act(g, n + p, rank, RQ_GENERIC);
      rnd_op(g, FX_PAD, 1, &a, 1, &pads, 1, &out, 0, 0, NULL);
      return;
    }
  } else if (c >= 84) { /* RESHAPE [1,n] <-> [n]: a view */
    uint8_t r = rank == 1 ? 2 : 1;
    uint32_t out = rnd_act(g, n, r, RQ_GENERIC);
    mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_I32_VEC, .n_vec = r,
                          .vec = r == 1 ? (const int32_t[]){n} : (const int32_t[]){1, n}}};
    rnd_op(g, FX_RESHAPE, 1, &a, 0, NULL, 1, &out, MP_TFW_OPT_RESHAPE, 1, o);
    return;
  }
  int32_t u = rng_int(&g->r, 0, 2);
  uint32_t out = rnd_act(g, n, rank,
                         unary[u] == FX_LOGISTIC ? RQ_LOGISTIC
                         : unary[u] == FX_TANH   ? RQ_TANH
                                                 : RQ_GENERIC);
  rnd_op(g, unary[u], 1, &a, 0, NULL, 1, &out, 0, 0, NULL);
}

mp_status fx_random(uint64_t seed, uint32_t n_ops, uint8_t **bytes, size_t *size) {
  *bytes = NULL;
  *size = 0;
  if (n_ops == 0 || n_ops > 100000) return MP_ERR_CONFIG;
  rnd_graph g;
  memset(&g, 0, sizeof g);
  g.r.s = seed;
  g.axis[0] = g.axis[1] = g.axis[2] = -1;
  g.cap = 6 * n_ops + 8; /* per op: <= 2 outputs and 3 late inputs */
  g.id = calloc(g.cap, sizeof *g.id);
  g.elems = calloc(g.cap, sizeof *g.elems);
  g.rank = calloc(g.cap, sizeof *g.rank);
  g.reads = calloc(g.cap, sizeof *g.reads);
  g.is_input = calloc(g.cap, sizeof *g.is_input);
  g.inputs = calloc(g.cap, sizeof *g.inputs);
  int32_t *outputs = calloc(g.cap, sizeof *outputs);
  g.w = mp_tfw_new();
  mp_status st = MP_ERR_NOMEM;
  if (g.id && g.elems && g.rank && g.reads && g.is_input && g.inputs && outputs && g.w) {
    char desc[64];
    snprintf(desc, sizeof desc, "random DAG seed %llu ops %u", (unsigned long long)seed, n_ops);
    mp_tfw_set_description(g.w, desc);
    mp_tfw_add_subgraph(g.w, "random");
    uint32_t first = (uint32_t)rng_int(&g.r, 1, 2);
    for (uint32_t i = 0; i < first; i++) rnd_new_input(&g);
    for (uint32_t i = 0; i < n_ops; i++) rnd_step(&g);
    /* Sinks: the last op's outputs and most others are graph outputs; a
     * few stay unread (their lifetime is their producer alone). */
    uint32_t n_out = 0;
    for (uint32_t k = 0; k < g.n; k++) {
      if (g.reads[k] || g.is_input[k]) continue;
      bool last = k + 2 >= g.n;
      if (last || rng_int(&g.r, 0, 4) != 0) outputs[n_out++] = g.id[k];
    }
    mp_tfw_set_io(g.w, g.n_inputs, g.inputs, n_out, outputs);
    st = mp_tfw_finish(g.w, bytes, size);
  }
  mp_tfw_free(&g.w);
  free(g.id);
  free(g.elems);
  free(g.rank);
  free(g.reads);
  free(g.is_input);
  free(g.inputs);
  free(outputs);
  return st;
}

/* ------------------------------------------------------------------------ */
/* The KWS example                                                          */
/* ------------------------------------------------------------------------ */

enum { KWS_H = 49, KWS_W = 10, KWS_OH = 25, KWS_OW = 5, KWS_C = 64, KWS_CLASSES = 12,
       KWS_BLOCKS = 4, KWS_POS = KWS_OH * KWS_OW, KWS_ACT = KWS_POS * KWS_C };

/* Input quantisation (the feature frontend's): x = 0.5 * (q - 80). */
#define KWS_IN_SCALE 0.5f
#define KWS_IN_ZP 80
/* Calibration inputs (seeds 1..N). */
#define KWS_CALIBRATION 16

/* Float weights, laid out as the model stores them: conv OHWI, depthwise
 * 1HWC, fully connected [out][in]. */
typedef struct kws_net {
  float conv0_w[KWS_C * 10 * 4], conv0_b[KWS_C];
  float dw_w[KWS_BLOCKS][9 * KWS_C], dw_b[KWS_BLOCKS][KWS_C];
  float pw_w[KWS_BLOCKS][KWS_C * KWS_C], pw_b[KWS_BLOCKS][KWS_C];
  float fc_w[KWS_CLASSES * KWS_C], fc_b[KWS_CLASSES];
} kws_net;

/* Activations of one inference: conv0, then dw/pw of each block. */
typedef struct kws_acts {
  float a[1 + 2 * KWS_BLOCKS][KWS_ACT];
  float pool[KWS_C];
  float logits[KWS_CLASSES];
} kws_acts;

/* Synthetic MFCC-like int8 features: feature 0 (energy) low, the others
 * around the zero point, each a bounded random walk over time. */
static void kws_features(uint64_t seed, int8_t q[KWS_H * KWS_W]) {
  rng r = {seed * 0x2545f4914f6cdd1dULL + 0x6b7773ULL};
  int32_t base[KWS_W], v[KWS_W];
  for (int f = 0; f < KWS_W; f++) {
    base[f] = f == 0 ? -100 : rng_int(&r, 50, 110);
    v[f] = base[f];
  }
  for (int t = 0; t < KWS_H; t++) {
    for (int f = 0; f < KWS_W; f++) {
      v[f] += rng_int(&r, -8, 8);
      if (v[f] < base[f] - 30) v[f] = base[f] - 30;
      if (v[f] > base[f] + 30) v[f] = base[f] + 30;
      if (v[f] < -128) v[f] = -128;
      if (v[f] > 127) v[f] = 127;
      q[t * KWS_W + f] = (int8_t)v[f];
    }
  }
}

/* SAME-padded convolution, NHWC, batch 1, weights OHWI. */
static void conv2d(const float *in, int h, int w, int cin, const float *wt, const float *b,
                   int cout, int kh, int kw, int sh, int sw, float *out) {
  int oh = (h + sh - 1) / sh, ow = (w + sw - 1) / sw;
  int pad_h = (oh - 1) * sh + kh - h, pad_w = (ow - 1) * sw + kw - w;
  int top = pad_h > 0 ? pad_h / 2 : 0, left = pad_w > 0 ? pad_w / 2 : 0;
  for (int oy = 0; oy < oh; oy++)
    for (int ox = 0; ox < ow; ox++)
      for (int oc = 0; oc < cout; oc++) {
        float acc = b[oc];
        for (int ky = 0; ky < kh; ky++) {
          int iy = oy * sh + ky - top;
          if (iy < 0 || iy >= h) continue;
          for (int kx = 0; kx < kw; kx++) {
            int ix = ox * sw + kx - left;
            if (ix < 0 || ix >= w) continue;
            for (int ic = 0; ic < cin; ic++)
              acc += in[(iy * w + ix) * cin + ic] * wt[((oc * kh + ky) * kw + kx) * cin + ic];
          }
        }
        out[(oy * ow + ox) * cout + oc] = acc > 0.0f ? acc : 0.0f; /* RELU */
      }
}

/* SAME-padded 3x3 depthwise convolution, stride 1, multiplier 1, RELU. */
static void dwconv3(const float *in, int h, int w, int c, const float *wt, const float *b,
                    float *out) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int ch = 0; ch < c; ch++) {
        float acc = b[ch];
        for (int ky = 0; ky < 3; ky++) {
          int iy = y + ky - 1;
          if (iy < 0 || iy >= h) continue;
          for (int kx = 0; kx < 3; kx++) {
            int ix = x + kx - 1;
            if (ix < 0 || ix >= w) continue;
            acc += in[(iy * w + ix) * c + ch] * wt[(ky * 3 + kx) * c + ch];
          }
        }
        out[(y * w + x) * c + ch] = acc > 0.0f ? acc : 0.0f;
      }
}

static void kws_forward(const kws_net *n, float in_scale, int32_t in_zp, const int8_t *q,
                        kws_acts *a) {
  float x[KWS_H * KWS_W];
  for (int i = 0; i < KWS_H * KWS_W; i++) x[i] = in_scale * (float)(q[i] - in_zp);
  conv2d(x, KWS_H, KWS_W, 1, n->conv0_w, n->conv0_b, KWS_C, 10, 4, 2, 2, a->a[0]);
  for (int b = 0; b < KWS_BLOCKS; b++) {
    dwconv3(a->a[2 * b], KWS_OH, KWS_OW, KWS_C, n->dw_w[b], n->dw_b[b], a->a[2 * b + 1]);
    conv2d(a->a[2 * b + 1], KWS_OH, KWS_OW, KWS_C, n->pw_w[b], n->pw_b[b], KWS_C, 1, 1, 1, 1,
           a->a[2 * b + 2]);
  }
  const float *last = a->a[2 * KWS_BLOCKS];
  for (int c = 0; c < KWS_C; c++) {
    float s = 0.0f;
    for (int p = 0; p < KWS_POS; p++) s += last[p * KWS_C + c];
    a->pool[c] = s / (float)KWS_POS;
  }
  for (int o = 0; o < KWS_CLASSES; o++) {
    float acc = n->fc_b[o];
    for (int i = 0; i < KWS_C; i++) acc += a->pool[i] * n->fc_w[o * KWS_C + i];
    a->logits[o] = acc;
  }
}

/* He-uniform weights with a per-output-channel gain in [0.5, 2), so that
 * per-channel scales differ as in trained models.  `limit` is
 * sqrt(6 / fan_in), given as a constant to keep libm out. */
static void kws_init(float *w, int n, int channels, bool channel_last, float limit, rng *r) {
  float gain[KWS_C];
  for (int c = 0; c < channels; c++) gain[c] = 1.25f + 0.75f * rng_sym(r);
  for (int i = 0; i < n; i++) {
    int c = channel_last ? i % channels : i / (n / channels);
    w[i] = limit * gain[c] * rng_sym(r);
  }
}

static void kws_weights(kws_net *n) {
  rng r = {0x4b5753ULL}; /* "KWS" */
  kws_init(n->conv0_w, KWS_C * 40, KWS_C, false, 0.38729833f /* sqrt(6/40) */, &r);
  for (int c = 0; c < KWS_C; c++) n->conv0_b[c] = 0.5f * rng_sym(&r);
  for (int b = 0; b < KWS_BLOCKS; b++) {
    kws_init(n->dw_w[b], 9 * KWS_C, KWS_C, true, 0.81649658f /* sqrt(6/9) */, &r);
    for (int c = 0; c < KWS_C; c++) n->dw_b[b][c] = 0.1f * rng_sym(&r);
    kws_init(n->pw_w[b], KWS_C * KWS_C, KWS_C, false, 0.30618622f /* sqrt(6/64) */, &r);
    for (int c = 0; c < KWS_C; c++) n->pw_b[b][c] = 0.1f * rng_sym(&r);
  }
  kws_init(n->fc_w, KWS_CLASSES * KWS_C, KWS_CLASSES, false, 0.30618622f, &r);
  for (int c = 0; c < KWS_CLASSES; c++) n->fc_b[c] = 0.1f * rng_sym(&r);
}

/* Round half away from zero, saturating to [lo, hi]. */
static int64_t quantize(float v, int64_t lo, int64_t hi) {
  float r = v >= 0.0f ? v + 0.5f : v - 0.5f;
  if (r <= (float)lo) return lo;
  if (r >= (float)hi) return hi;
  return (int64_t)r;
}

/* Headroom over the calibrated range, so that inputs a little beyond the
 * calibration set do not clip. */
#define KWS_HEADROOM 1.1f

/* Asymmetric int8 parameters covering [lo, hi] plus headroom (widened to
 * include 0). */
static void act_quant(float lo, float hi, float *scale, int64_t *zp) {
  lo *= KWS_HEADROOM;
  hi *= KWS_HEADROOM;
  if (lo > 0.0f) lo = 0.0f;
  if (hi < 0.0f) hi = 0.0f;
  *scale = hi > lo ? (hi - lo) / 255.0f : 1.0f / 255.0f;
  *zp = quantize(-128.0f - lo / *scale, -128, 127);
}

typedef struct kws_writer {
  mp_tfw *w;
  float in_scale;   /* scale of the activation feeding the current layer */
  int64_t in_zp;
} kws_writer;

/* Quantise `n` weights per channel (symmetric int8) and add the tensor;
 * scales[] receives the per-channel scales. */
static int32_t kws_weight_tensor(kws_writer *k, const char *name, const float *w, int n,
                                 int channels, int32_t qdim, bool channel_last, uint32_t rank,
                                 const int32_t *shape, float *scales) {
  int8_t *q = calloc((size_t)n, 1);
  int64_t zp[KWS_C];
  if (!q) return -1;
  for (int c = 0; c < channels; c++) {
    float m = 0.0f;
    for (int i = 0; i < n; i++) {
      int ch = channel_last ? i % channels : i / (n / channels);
      float v = w[i] < 0.0f ? -w[i] : w[i];
      if (ch == c && v > m) m = v;
    }
    scales[c] = m > 0.0f ? m / 127.0f : 1.0f;
    zp[c] = 0;
  }
  for (int i = 0; i < n; i++) {
    int ch = channel_last ? i % channels : i / (n / channels);
    q[i] = (int8_t)quantize(w[i] / scales[ch], -127, 127);
  }
  mp_tfw_tensor t = {.name = name, .dtype = MP_DTYPE_INT8, .rank = rank, .shape = shape,
                     .has_quant = true,
                     .quant = {(uint32_t)channels, scales, (uint32_t)channels, zp, qdim}};
  t.buffer = mp_tfw_add_buffer(k->w, q, (size_t)n);
  free(q);
  return (int32_t)mp_tfw_add_tensor(k->w, &t);
}

/* `n` int32 biases, value c at in_scale * weight_scale[c] (or [0] when
 * the weights have one scale). */
static int32_t kws_bias_tensor(kws_writer *k, const char *name, const float *b, int n,
                               int n_scales, const float *wscales) {
  uint8_t le[KWS_C * 4];
  float scales[KWS_C];
  int64_t zp[KWS_C];
  for (int c = 0; c < n_scales; c++) {
    scales[c] = k->in_scale * wscales[c];
    zp[c] = 0;
  }
  for (int c = 0; c < n; c++) {
    float sc = scales[n_scales == 1 ? 0 : c];
    uint32_t v = (uint32_t)(int32_t)quantize(b[c] / sc, INT32_MIN, INT32_MAX);
    for (int j = 0; j < 4; j++) le[4 * c + j] = (uint8_t)(v >> (8 * j));
  }
  mp_tfw_tensor t = {.name = name, .dtype = MP_DTYPE_INT32, .rank = 1,
                     .shape = (const int32_t[]){n}, .has_quant = true,
                     .quant = {(uint32_t)n_scales, scales, (uint32_t)n_scales, zp, 0}};
  t.buffer = mp_tfw_add_buffer(k->w, le, (size_t)n * 4);
  return (int32_t)mp_tfw_add_tensor(k->w, &t);
}

/* An int8 activation [1,h,w,c] with the given parameters; it becomes the
 * input of the next layer. */
static int32_t kws_act_tensor(kws_writer *k, const char *name, uint32_t rank,
                              const int32_t *shape, float scale, int64_t zp) {
  mp_tfw_tensor t = {.name = name, .dtype = MP_DTYPE_INT8, .rank = rank, .shape = shape,
                     .has_quant = true, .quant = {1, &scale, 1, &zp, 0}};
  k->in_scale = scale;
  k->in_zp = zp;
  return (int32_t)mp_tfw_add_tensor(k->w, &t);
}

static void kws_conv_op(kws_writer *k, int32_t code, int32_t in, int32_t wt, int32_t b,
                        int32_t out, int32_t stride) {
  mp_tfw_option conv[] = {{.field = 0, .type = MP_TFW_I8, .i = 0 /* SAME */},
                          {.field = 1, .type = MP_TFW_I32, .i = stride},
                          {.field = 2, .type = MP_TFW_I32, .i = stride},
                          {.field = 3, .type = MP_TFW_I8, .i = 1 /* RELU */},
                          {.field = 4, .type = MP_TFW_I32, .i = 1},
                          {.field = 5, .type = MP_TFW_I32, .i = 1}};
  mp_tfw_option dw[] = {{.field = 0, .type = MP_TFW_I8, .i = 0 /* SAME */},
                        {.field = 1, .type = MP_TFW_I32, .i = stride},
                        {.field = 2, .type = MP_TFW_I32, .i = stride},
                        {.field = 3, .type = MP_TFW_I32, .i = 1 /* depth_multiplier */},
                        {.field = 4, .type = MP_TFW_I8, .i = 1 /* RELU */},
                        {.field = 5, .type = MP_TFW_I32, .i = 1},
                        {.field = 6, .type = MP_TFW_I32, .i = 1}};
  bool is_dw = code == FX_DEPTHWISE_CONV_2D;
  mp_tfw_op o = {.builtin_code = code, .version = 3, .n_inputs = 3,
                 .inputs = (const int32_t[]){in, wt, b}, .n_outputs = 1,
                 .outputs = (const int32_t[]){out},
                 .options_type = is_dw ? MP_TFW_OPT_DEPTHWISE_CONV2D : MP_TFW_OPT_CONV2D,
                 .n_options = is_dw ? 7 : 6, .options = is_dw ? dw : conv};
  mp_tfw_add_op(k->w, &o);
}

static void kws_model(mp_tfw *w, const kws_net *n, const float lo[], const float hi[]) {
  kws_writer k = {w, KWS_IN_SCALE, KWS_IN_ZP};
  char name[64];
  float ws[KWS_C], s;
  int64_t zp;
  mp_tfw_set_description(w, "memplan example: DS-CNN keyword spotting (synthetic weights)");
  mp_tfw_add_subgraph(w, "main");
  int32_t x = kws_act_tensor(&k, "input", 4, (const int32_t[]){1, KWS_H, KWS_W, 1},
                             KWS_IN_SCALE, KWS_IN_ZP);
  int32_t wt = kws_weight_tensor(&k, "conv0/weights", n->conv0_w, KWS_C * 40, KWS_C, 0, false, 4,
                                 (const int32_t[]){KWS_C, 10, 4, 1}, ws);
  int32_t b = kws_bias_tensor(&k, "conv0/bias", n->conv0_b, KWS_C, KWS_C, ws);
  act_quant(lo[0], hi[0], &s, &zp);
  int32_t y = kws_act_tensor(&k, "conv0/relu", 4, (const int32_t[]){1, KWS_OH, KWS_OW, KWS_C}, s,
                             zp);
  kws_conv_op(&k, FX_CONV_2D, x, wt, b, y, 2);
  for (int blk = 0; blk < KWS_BLOCKS; blk++) {
    x = y;
    snprintf(name, sizeof name, "dw%d/weights", blk + 1);
    wt = kws_weight_tensor(&k, name, n->dw_w[blk], 9 * KWS_C, KWS_C, 3, true, 4,
                           (const int32_t[]){1, 3, 3, KWS_C}, ws);
    snprintf(name, sizeof name, "dw%d/bias", blk + 1);
    b = kws_bias_tensor(&k, name, n->dw_b[blk], KWS_C, KWS_C, ws);
    snprintf(name, sizeof name, "dw%d/relu", blk + 1);
    act_quant(lo[1 + 2 * blk], hi[1 + 2 * blk], &s, &zp);
    y = kws_act_tensor(&k, name, 4, (const int32_t[]){1, KWS_OH, KWS_OW, KWS_C}, s, zp);
    kws_conv_op(&k, FX_DEPTHWISE_CONV_2D, x, wt, b, y, 1);
    x = y;
    snprintf(name, sizeof name, "pw%d/weights", blk + 1);
    wt = kws_weight_tensor(&k, name, n->pw_w[blk], KWS_C * KWS_C, KWS_C, 0, false, 4,
                           (const int32_t[]){KWS_C, 1, 1, KWS_C}, ws);
    snprintf(name, sizeof name, "pw%d/bias", blk + 1);
    b = kws_bias_tensor(&k, name, n->pw_b[blk], KWS_C, KWS_C, ws);
    snprintf(name, sizeof name, "pw%d/relu", blk + 1);
    act_quant(lo[2 + 2 * blk], hi[2 + 2 * blk], &s, &zp);
    y = kws_act_tensor(&k, name, 4, (const int32_t[]){1, KWS_OH, KWS_OW, KWS_C}, s, zp);
    kws_conv_op(&k, FX_CONV_2D, x, wt, b, y, 1);
  }
  /* average pooling and flatten keep their input's parameters */
  float ps = k.in_scale;
  int64_t pz = k.in_zp;
  x = y;
  y = kws_act_tensor(&k, "pool/avg", 4, (const int32_t[]){1, 1, 1, KWS_C}, ps, pz);
  mp_tfw_option pool[] = {{.field = 0, .type = MP_TFW_I8, .i = 1 /* VALID */},
                          {.field = 1, .type = MP_TFW_I32, .i = KWS_OW},
                          {.field = 2, .type = MP_TFW_I32, .i = KWS_OH},
                          {.field = 3, .type = MP_TFW_I32, .i = KWS_OW},
                          {.field = 4, .type = MP_TFW_I32, .i = KWS_OH},
                          {.field = 5, .type = MP_TFW_I8, .i = 0}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_AVERAGE_POOL_2D, .version = 2,
                                IDS_IN(x), .n_outputs = 1, .outputs = (const int32_t[]){y},
                                .options_type = MP_TFW_OPT_POOL2D, .n_options = 6,
                                .options = pool});
  x = y;
  int32_t shape = const_i32(w, "flatten/shape", 1, (const int32_t[]){2},
                            (const int32_t[]){-1, KWS_C}, 2);
  y = kws_act_tensor(&k, "flatten/reshape", 2, (const int32_t[]){1, KWS_C}, ps, pz);
  mp_tfw_option rs[] = {{.field = 0, .type = MP_TFW_I32_VEC, .n_vec = 2,
                         .vec = (const int32_t[]){1, KWS_C}}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RESHAPE, IDS_IN(x, shape), .n_outputs = 1,
                                .outputs = (const int32_t[]){y},
                                .options_type = MP_TFW_OPT_RESHAPE, .n_options = 1,
                                .options = rs});
  x = y;
  wt = kws_weight_tensor(&k, "fc/weights", n->fc_w, KWS_CLASSES * KWS_C, 1, 0, false, 2,
                         (const int32_t[]){KWS_CLASSES, KWS_C}, ws);
  b = kws_bias_tensor(&k, "fc/bias", n->fc_b, KWS_CLASSES, 1, ws);
  act_quant(lo[1 + 2 * KWS_BLOCKS], hi[1 + 2 * KWS_BLOCKS], &s, &zp);
  y = kws_act_tensor(&k, "fc/logits", 2, (const int32_t[]){1, KWS_CLASSES}, s, zp);
  mp_tfw_option fc[] = {{.field = 0, .type = MP_TFW_I8, .i = 0},
                        {.field = 1, .type = MP_TFW_I8, .i = 0},
                        {.field = 2, .type = MP_TFW_BOOL, .i = 0},
                        {.field = 3, .type = MP_TFW_BOOL, .i = 0}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_FULLY_CONNECTED, .version = 4,
                                IDS_IN(x, wt, b), .n_outputs = 1,
                                .outputs = (const int32_t[]){y},
                                .options_type = MP_TFW_OPT_FULLY_CONNECTED, .n_options = 4,
                                .options = fc});
  x = y;
  y = kws_act_tensor(&k, "softmax", 2, (const int32_t[]){1, KWS_CLASSES}, 1.0f / 256.0f, -128);
  mp_tfw_option sm[] = {{.field = 0, .type = MP_TFW_F32, .f = 1.0f}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_SOFTMAX, .version = 2, IDS_IN(x),
                                .n_outputs = 1, .outputs = (const int32_t[]){y},
                                .options_type = MP_TFW_OPT_SOFTMAX, .n_options = 1,
                                .options = sm});
  mp_tfw_set_io(w, IDS(FX_KWS_INPUT), IDS(y));
  static const char gen[] = "memplan mkmodel kws 1";
  mp_tfw_add_metadata(w, "memplan_generator", mp_tfw_add_buffer(w, gen, sizeof gen - 1));
}

/* Scale a layer (weights, biases and the outputs already computed from
 * them: exact, since RELU(f * z) = f * RELU(z) for f > 0) so that the
 * largest |output| over the calibration batch is `target`; then record the
 * output range. */
static void kws_normalize(float *out, size_t n_out, float *w, int n_w, float *b, int n_b,
                          float target, float *lo, float *hi) {
  float m = 0.0f;
  for (size_t i = 0; i < n_out; i++) {
    float v = out[i] < 0.0f ? -out[i] : out[i];
    if (v > m) m = v;
  }
  float f = m > 0.0f ? target / m : 1.0f;
  for (int i = 0; i < n_w; i++) w[i] *= f;
  for (int i = 0; i < n_b; i++) b[i] *= f;
  *lo = *hi = 0.0f;
  for (size_t i = 0; i < n_out; i++) {
    out[i] *= f;
    if (out[i] < *lo) *lo = out[i];
    if (out[i] > *hi) *hi = out[i];
  }
}

/* Calibrate: run the network layer by layer over the whole calibration
 * batch, normalising each layer to a realistic range (the max of a RELU
 * output between 6 and 20, as in trained KWS models; logits within +-6 so
 * the softmax is not one-hot), and keep every activation's min/max.
 * lo/hi index: 0 conv0, 1 + 2b dw of block b, 2 + 2b pw, 2 * BLOCKS + 1
 * logits.  False when out of memory. */
static bool kws_calibrate(kws_net *n, float *lo, float *hi) {
  enum { B = KWS_CALIBRATION };
  float *x = calloc((size_t)B * KWS_H * KWS_W, sizeof(float));
  float *cur = calloc((size_t)B * KWS_ACT, sizeof(float));
  float *nxt = calloc((size_t)B * KWS_ACT, sizeof(float));
  float *pool = calloc((size_t)B * KWS_C, sizeof(float));
  float *logits = calloc((size_t)B * KWS_CLASSES, sizeof(float));
  bool ok = x && cur && nxt && pool && logits;
  if (ok) {
    rng r = {0x63616c6962ULL}; /* "calib": the per-layer targets */
    for (int s = 0; s < B; s++) {
      int8_t q[KWS_H * KWS_W];
      kws_features((uint64_t)s + 1, q);
      for (int i = 0; i < KWS_H * KWS_W; i++)
        x[s * KWS_H * KWS_W + i] = KWS_IN_SCALE * (float)(q[i] - KWS_IN_ZP);
    }
    for (int s = 0; s < B; s++)
      conv2d(x + s * KWS_H * KWS_W, KWS_H, KWS_W, 1, n->conv0_w, n->conv0_b, KWS_C, 10, 4, 2, 2,
             cur + (size_t)s * KWS_ACT);
    kws_normalize(cur, (size_t)B * KWS_ACT, n->conv0_w, KWS_C * 40, n->conv0_b, KWS_C,
                  (float)rng_int(&r, 6, 20), &lo[0], &hi[0]);
    for (int blk = 0; blk < KWS_BLOCKS; blk++) {
      for (int s = 0; s < B; s++)
        dwconv3(cur + (size_t)s * KWS_ACT, KWS_OH, KWS_OW, KWS_C, n->dw_w[blk], n->dw_b[blk],
                nxt + (size_t)s * KWS_ACT);
      kws_normalize(nxt, (size_t)B * KWS_ACT, n->dw_w[blk], 9 * KWS_C, n->dw_b[blk], KWS_C,
                    (float)rng_int(&r, 6, 20), &lo[1 + 2 * blk], &hi[1 + 2 * blk]);
      for (int s = 0; s < B; s++)
        conv2d(nxt + (size_t)s * KWS_ACT, KWS_OH, KWS_OW, KWS_C, n->pw_w[blk], n->pw_b[blk],
               KWS_C, 1, 1, 1, 1, cur + (size_t)s * KWS_ACT);
      kws_normalize(cur, (size_t)B * KWS_ACT, n->pw_w[blk], KWS_C * KWS_C, n->pw_b[blk], KWS_C,
                    (float)rng_int(&r, 6, 20), &lo[2 + 2 * blk], &hi[2 + 2 * blk]);
    }
    for (int s = 0; s < B; s++)
      for (int c = 0; c < KWS_C; c++) {
        float sum = 0.0f;
        for (int p = 0; p < KWS_POS; p++) sum += cur[(size_t)s * KWS_ACT + p * KWS_C + c];
        pool[s * KWS_C + c] = sum / (float)KWS_POS;
      }
    for (int s = 0; s < B; s++)
      for (int o = 0; o < KWS_CLASSES; o++) {
        float acc = n->fc_b[o];
        for (int i = 0; i < KWS_C; i++) acc += pool[s * KWS_C + i] * n->fc_w[o * KWS_C + i];
        logits[s * KWS_CLASSES + o] = acc;
      }
    kws_normalize(logits, (size_t)B * KWS_CLASSES, n->fc_w, KWS_CLASSES * KWS_C, n->fc_b,
                  KWS_CLASSES, 6.0f, &lo[2 * KWS_BLOCKS + 1], &hi[2 * KWS_BLOCKS + 1]);
  }
  free(x);
  free(cur);
  free(nxt);
  free(pool);
  free(logits);
  return ok;
}

mp_status fx_kws(uint8_t **bytes, size_t *size) {
  *bytes = NULL;
  *size = 0;
  kws_net *n = calloc(1, sizeof *n);
  mp_tfw *w = mp_tfw_new();
  float lo[2 * KWS_BLOCKS + 2], hi[2 * KWS_BLOCKS + 2];
  mp_status st = MP_ERR_NOMEM;
  if (w && hostile_names) mp_tfw_set_rename(w, fx_hostile_name, NULL);
  if (n && w) {
    kws_weights(n);
    if (kws_calibrate(n, lo, hi)) {
      kws_model(w, n, lo, hi);
      st = mp_tfw_finish(w, bytes, size);
    }
  }
  mp_tfw_free(&w);
  free(n);
  return st;
}

/* ---- checking a KWS model's quantisation ---- */

/* Dequantise constant tensor t into `out` (n values); false when the
 * tensor does not look like the expected one. */
static bool dequant(const mp_model *m, uint32_t t, int32_t dtype, uint32_t n, float *out) {
  const mp_subgraph_def *sg = &m->subgraphs[0];
  const mp_tensor_def *td = &sg->tensors[t];
  const mp_buffer_def *b = &m->buffers[td->buffer];
  uint32_t esize = dtype == MP_DTYPE_INT8 ? 1 : 4;
  if (td->dtype != dtype || b->size != (uint64_t)n * esize || !td->has_quant ||
      td->quant.n_scale == 0)
    return false;
  int32_t qd = td->quant.quantized_dimension;
  uint32_t inner = 1, dim = 1;
  if (td->quant.n_scale > 1) {
    if (qd < 0 || (uint32_t)qd >= td->rank || (uint32_t)td->shape[qd] != td->quant.n_scale)
      return false;
    for (uint32_t d = (uint32_t)qd + 1; d < td->rank; d++) inner *= (uint32_t)td->shape[d];
    dim = (uint32_t)td->shape[qd];
  }
  for (uint32_t i = 0; i < n; i++) {
    int32_t q = dtype == MP_DTYPE_INT8
                    ? (int8_t)b->data[i]
                    : (int32_t)((uint32_t)b->data[4 * i] | (uint32_t)b->data[4 * i + 1] << 8 |
                                (uint32_t)b->data[4 * i + 2] << 16 |
                                (uint32_t)b->data[4 * i + 3] << 24);
    uint32_t ch = td->quant.n_scale > 1 ? (i / inner) % dim : 0;
    out[i] = (float)q * td->quant.scale[ch];
  }
  return true;
}

static void count(const mp_model *m, uint32_t t, const float *v, uint32_t n, fx_kws_stats *s) {
  const mp_tensor_def *td = &m->subgraphs[0].tensors[t];
  float scale = td->quant.n_scale ? td->quant.scale[0] : 1.0f;
  int64_t zp = td->quant.n_zero_point ? td->quant.zero_point[0] : 0;
  s->q_min[t] = INT32_MAX;
  s->q_max[t] = INT32_MIN;
  for (uint32_t i = 0; i < n; i++) {
    int32_t q = (int32_t)(quantize(v[i] / scale, -100000, 100000) + zp);
    if (q < -128 || q > 127) s->n_clipped[t]++;
    if (q < s->q_min[t]) s->q_min[t] = q;
    if (q > s->q_max[t]) s->q_max[t] = q;
  }
  s->n_values[t] = n;
}

bool fx_kws_stats_run(const mp_model *m, uint64_t seed, fx_kws_stats *out) {
  static const int32_t codes[FX_KWS_N_OPS] = {3, 4, 3, 4, 3, 4, 3, 4, 3, 1, 22, 9, 25};
  memset(out, 0, sizeof *out);
  if (m->n_subgraphs < 1 || m->subgraphs[0].n_tensors != FX_KWS_N_TENSORS ||
      m->subgraphs[0].n_ops != FX_KWS_N_OPS)
    return false;
  for (uint32_t o = 0; o < FX_KWS_N_OPS; o++)
    if (m->subgraphs[0].ops[o].builtin_code != codes[o]) return false;
  const mp_tensor_def *in = &m->subgraphs[0].tensors[FX_KWS_INPUT];
  if (!in->has_quant || in->quant.n_scale != 1 || in->quant.n_zero_point != 1) return false;
  kws_net *n = calloc(1, sizeof *n);
  kws_acts *a = calloc(1, sizeof *a);
  bool ok = n && a;
  ok = ok && dequant(m, 1, MP_DTYPE_INT8, KWS_C * 40, n->conv0_w) &&
       dequant(m, 2, MP_DTYPE_INT32, KWS_C, n->conv0_b);
  for (uint32_t blk = 0; ok && blk < KWS_BLOCKS; blk++)
    ok = dequant(m, 4 + 6 * blk, MP_DTYPE_INT8, 9 * KWS_C, n->dw_w[blk]) &&
         dequant(m, 5 + 6 * blk, MP_DTYPE_INT32, KWS_C, n->dw_b[blk]) &&
         dequant(m, 7 + 6 * blk, MP_DTYPE_INT8, KWS_C * KWS_C, n->pw_w[blk]) &&
         dequant(m, 8 + 6 * blk, MP_DTYPE_INT32, KWS_C, n->pw_b[blk]);
  ok = ok && dequant(m, 31, MP_DTYPE_INT8, KWS_CLASSES * KWS_C, n->fc_w) &&
       dequant(m, 32, MP_DTYPE_INT32, KWS_CLASSES, n->fc_b);
  if (ok) {
    int8_t q[KWS_H * KWS_W];
    kws_features(seed, q);
    kws_forward(n, in->quant.scale[0], (int32_t)in->quant.zero_point[0], q, a);
    float x[KWS_H * KWS_W];
    for (int i = 0; i < KWS_H * KWS_W; i++)
      x[i] = in->quant.scale[0] * (float)(q[i] - in->quant.zero_point[0]);
    count(m, FX_KWS_INPUT, x, KWS_H * KWS_W, out);
    for (uint32_t l = 0; l <= 2 * KWS_BLOCKS; l++) count(m, 3 + 3 * l, a->a[l], KWS_ACT, out);
    count(m, FX_KWS_POOL_OUT, a->pool, KWS_C, out);
    count(m, FX_KWS_RESHAPE_OUT, a->pool, KWS_C, out);
    count(m, FX_KWS_LOGITS, a->logits, KWS_CLASSES, out);
    float mx = a->logits[0], sum = 0.0f;
    for (int i = 1; i < KWS_CLASSES; i++)
      if (a->logits[i] > mx) mx = a->logits[i];
    for (int i = 0; i < KWS_CLASSES; i++) sum += out->probs[i] = expf(a->logits[i] - mx);
    for (int i = 0; i < KWS_CLASSES; i++) out->probs[i] /= sum;
    count(m, FX_KWS_OUTPUT, out->probs, KWS_CLASSES, out);
  }
  free(a);
  free(n);
  return ok;
}
