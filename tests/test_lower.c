/*
 * test_lower.c — the compile-time lowering (src/lower/) on small models
 * written with memplan's own model writer: that each operator's options
 * and quantisation turn into the params TFLite Micro's Prepare would
 * compute (padding, QuantizeMultiplier's multipliers and shifts, activation
 * ranges, broadcast strides, the softmax and logistic constants), that the
 * call is described right (kernel, argument order and C types, scratch),
 * that what memplan cannot run is reported with a reason and what is
 * malformed is an error, and that the params print as the expected C.
 *
 * Expected multipliers were computed independently (Python's frexp on the
 * same float32 scales); the formulas are TFLite's.  Several lowered ops are
 * also run through the kernels, with garbage in scratch and outputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* strong references: the kernels come from libmemplan.a (see mpk.h) */
#define MPK_API
#include "lower/lower.h"
#include "fixtures.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  ADD = 0,
  AVERAGE_POOL_2D = 1,
  CONCATENATION = 2,
  CONV_2D = 3,
  DEPTHWISE_CONV_2D = 4,
  FULLY_CONNECTED = 9,
  LOGISTIC = 14,
  MAX_POOL_2D = 17,
  CUSTOM = 32,
  RESHAPE = 22,
  SOFTMAX = 25,
  PAD = 34,
  TRANSPOSE = 39,
  MEAN = 40,
  UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
  RELU_OP = 19,
  RELU6_OP = 21,
  MAXIMUM_OP = 55,
  MINIMUM_OP = 57,
  PADV2 = 60,
  QUANTIZE = 114,
  SHAPE_OP = 77,
  BATCH_MATMUL_OP = 126,
  RSQRT_OP = 76,
  DEPTH_TO_SPACE_OP = 5,
  SPACE_TO_DEPTH_OP = 26,
  MIRROR_PAD_OP = 100,
  LESS_OP = 58,
  GREATER_OP = 61,
  GREATER_EQUAL_OP = 62,
  LESS_EQUAL_OP = 63,
  SELECT_OP = 64,
  EQUAL_OP = 71,
  NOT_EQUAL_OP = 72,
  ARG_MAX_OP = 56,
  ARG_MIN_OP = 79,
  LOGICAL_OR_OP = 84,
  LOGICAL_AND_OP = 86,
  LOGICAL_NOT_OP = 87,
  REDUCE_MAX_OP = 82,
  REDUCE_MIN_OP = 89,
  FLOOR_DIV_OP = 90,
  FLOOR_MOD_OP = 95,
  ADD_N_OP = 106,
  SELECT_V2_OP = 123,
  ABS_OP = 101,
  NEG_OP = 59,
  SQUARE_OP = 92,
  SQRT_OP = 75,
  LOG_OP = 73,
  SIN_OP = 66,
  COS_OP = 108,
  FLOOR_OP = 8,
  CEIL_OP = 104,
  ROUND_OP = 116,
  RELU_N1_TO_1_OP = 20,
  RELU_0_TO_1_OP = 152,
  ELU_OP = 111,
  LOG_SOFTMAX_OP = 50,
  L2_NORMALIZATION_OP = 11,
  EMBEDDING_LOOKUP_OP = 7,
  BATCH_TO_SPACE_ND_OP = 37,
  SPACE_TO_BATCH_ND_OP = 38,
  ZEROS_LIKE_OP = 93,
  FILL_OP = 94,
  REVERSE_V2_OP = 105,
  GATHER_ND_OP = 107,
  BROADCAST_TO_OP = 130,
};
enum { OPT_BATCH_MATMUL = 101, OPT_SPACE_TO_DEPTH = 19, OPT_DEPTH_TO_SPACE = 94, OPT_MIRROR_PAD = 77 };
enum { OPT_L2_NORM = 12 };

/* ------------------------------------------------------------------------ */
/* Building small models                                                    */
/* ------------------------------------------------------------------------ */

typedef struct spec {
  const char *name;
  int32_t dtype;
  uint32_t rank;
  int32_t shape[6];
  uint32_t n_scale; /* 0: no quantisation */
  float scale[8];
  int64_t zp;
  const void *data; /* constant bytes, or NULL */
  size_t bytes;
} spec;

static int32_t add_tensor(mp_tfw *w, const spec *s) {
  int64_t zps[8] = {0};
  for (uint32_t i = 0; i < 8; i++)
    zps[i] = s->zp;
  mp_tfw_tensor t = {.name = s->name, .dtype = s->dtype, .rank = s->rank, .shape = s->shape};
  if (s->data) t.buffer = mp_tfw_add_buffer(w, s->data, s->bytes);
  if (s->n_scale) {
    t.has_quant = true;
    t.quant = (mp_quant){s->n_scale, s->scale, s->n_scale, zps, 0};
  }
  return (int32_t)mp_tfw_add_tensor(w, &t);
}

typedef struct built {
  mp_model *m;
  mp_graph *g;
} built;

static void finish(mp_tfw *w, int32_t n_in, const int32_t *in, int32_t n_out, const int32_t *out,
                   built *b) {
  mp_tfw_set_io(w, (uint32_t)n_in, in, (uint32_t)n_out, out);
  tu_diags d;
  tu_diags_init(&d);
  b->m = tu_written(w, "test.tflite", &d);
  assert_int_equal(mp_graph_build(b->m, 0, NULL, &d.sink, &b->g), MP_OK);
}

static void drop(built *b) {
  mp_graph_free(&b->g);
  mp_model_free(&b->m);
}

static void add_op(mp_tfw *w, int32_t code, uint32_t n_in, const int32_t *in, int32_t out,
                   uint8_t opt_type, uint32_t n_opts, const mp_tfw_option *opts) {
  mp_tfw_op op = {.builtin_code = code,
                  .n_inputs = n_in,
                  .inputs = in,
                  .n_outputs = 1,
                  .outputs = (const int32_t[]){out},
                  .options_type = opt_type,
                  .n_options = n_opts,
                  .options = opts};
  mp_tfw_add_op(w, &op);
}

/* Lower op 0 of a one-op model; asserts MP_OK. */
static void lower0(built *b, mp_lowered_op *lo) {
  tu_diags d;
  tu_diags_init(&d);
  if (mp_lower_op(b->g, 0, lo, &d.sink) != MP_OK) fail_msg("lowering failed: %s", d.text);
}

static mp_tfw_option i8opt(uint16_t field, int64_t v) {
  return (mp_tfw_option){.field = field, .type = MP_TFW_I8, .i = v};
}
static mp_tfw_option i32opt(uint16_t field, int64_t v) {
  return (mp_tfw_option){.field = field, .type = MP_TFW_I32, .i = v};
}

/* A conv model: input [1,5,5,2] (0.5, -1), filter [3,3,3,2] with three
 * per-channel scales, bias [3], output [1,out,out,3] (1.0, 2). */
static void conv_model_dilated(built *b, int64_t padding, int64_t stride, int64_t act,
                               int32_t out_hw, int32_t in_dtype, int64_t dilation) {
  static int8_t filter[3 * 3 * 3 * 2];
  static int32_t bias[3] = {10, -20, 30};
  for (size_t i = 0; i < sizeof filter; i++)
    filter[i] = (int8_t)(i % 7 - 3);
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = in_dtype,
                                     .rank = 4,
                                     .shape = {1, 5, 5, 2},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = -1});
  int32_t f = add_tensor(w, &(spec){.name = "filter",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 4,
                                    .shape = {3, 3, 3, 2},
                                    .n_scale = 3,
                                    .scale = {0.25f, 0.125f, 1.0f / 3.0f},
                                    .zp = 0,
                                    .data = filter,
                                    .bytes = sizeof filter});
  int32_t bi = add_tensor(w, &(spec){.name = "bias",
                                     .dtype = MP_DTYPE_INT32,
                                     .rank = 1,
                                     .shape = {3},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0,
                                     .data = bias,
                                     .bytes = sizeof bias});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = in_dtype,
                                      .rank = 4,
                                      .shape = {1, out_hw, out_hw, 3},
                                      .n_scale = 1,
                                      .scale = {1.0f},
                                      .zp = 2});
  mp_tfw_option o[] = {i8opt(0, padding),    i32opt(1, stride),   i32opt(2, stride),
                       i8opt(3, act),        i32opt(4, dilation), i32opt(5, dilation)};
  add_op(w, CONV_2D, 3, (const int32_t[]){in, f, bi}, out, MP_TFW_OPT_CONV2D, 6, o);
  finish(w, 1, &in, 1, &out, b);
}

static void conv_model(built *b, int64_t padding, int64_t stride, int64_t act, int32_t out_hw,
                       int32_t in_dtype) {
  conv_model_dilated(b, padding, stride, act, out_hw, in_dtype, 1);
}

/* ------------------------------------------------------------------------ */
/* Convolutions and fully connected                                         */
/* ------------------------------------------------------------------------ */

static void conv_lowering_precomputes_padding_multipliers_and_relu6(void **state) {
  (void)state;
  built b;
  conv_model(&b, 0 /* SAME */, 2, 3 /* RELU6 */, 3, MP_DTYPE_INT8);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_true(lo.supported);
  assert_false(lo.noop);
  assert_int_equal(lo.kernel, MP_K_CONV2D_S8);
  assert_string_equal(lo.fn, "mpk_conv2d_s8");
  assert_string_equal(lo.init_fn, "mpk_conv2d_s8_init");
  assert_string_equal(lo.params_type, "mpk_conv_s8_params");
  const mpk_conv_s8_params *p = &lo.params.conv_s8;
  assert_int_equal(p->geom.out_h, 3);
  assert_int_equal(p->geom.filter_c, 2);
  assert_int_equal(p->geom.pad_h, 1); /* total (3-1)*2 + 3 - 5 = 2 */
  assert_int_equal(p->geom.pad_w, 1);
  assert_int_equal(p->geom.stride_h, 2);
  assert_int_equal(p->geom.dilation_w, 1);
  assert_int_equal(p->q.input_offset, 1);
  assert_int_equal(p->q.output_offset, 2);
  assert_int_equal(p->q.act_min, 2); /* quantize(0) = 2 */
  assert_int_equal(p->q.act_max, 8); /* quantize(6) = 8 */
  assert_int_equal(p->q.per_channel, 1);
  assert_int_equal(p->q.multiplier[0], 1073741824); /* 0.125 */
  assert_int_equal(p->q.shift[0], -2);
  assert_int_equal(p->q.multiplier[1], 1073741824); /* 0.0625 */
  assert_int_equal(p->q.shift[1], -3);
  assert_int_equal(p->q.multiplier[2], 1431655808); /* 0.5 * (float)1/3 */
  assert_int_equal(p->q.shift[2], -2);
  assert_int_equal(lo.n_args, 4);
  assert_int_equal(lo.args[0].tensor, 0);
  assert_string_equal(lo.args[0].ctype, "const int8_t *");
  assert_int_equal(lo.args[2].tensor, 2);
  assert_string_equal(lo.args[2].ctype, "const int32_t *");
  assert_true(lo.args[3].is_output);
  assert_string_equal(lo.args[3].ctype, "int8_t *");
  assert_int_equal(lo.scratch_bytes, 0);
  mp_buf t;
  mp_buf_init(&t);
  mp_lower_params_c(&lo, "m_op0", &t);
  assert_non_null(strstr(mp_buf_str(&t), "static const int32_t m_op0_multiplier[3] = "
                                         "{1073741824, 1073741824, 1431655808};\n"));
  assert_non_null(strstr(mp_buf_str(&t), "static const int32_t m_op0_shift[3] = {-2, -3, -2};\n"));
  assert_non_null(strstr(mp_buf_str(&t), "static const mpk_conv_s8_params m_op0 = {\n"));
  assert_non_null(strstr(mp_buf_str(&t), ".pad_h = 1, .pad_w = 1}"));
  assert_non_null(strstr(mp_buf_str(&t), ".multiplier = m_op0_multiplier, .shift = m_op0_shift}"));
  mp_buf_free(&t);
  mp_lower_free(&lo);
  assert_int_equal(lo.n_arrays, 0);
  drop(&b);
}

static void conv_with_a_wrong_output_shape_is_a_model_error(void **state) {
  (void)state;
  built b;
  conv_model(&b, 1 /* VALID */, 1, 0, 4, MP_DTYPE_INT8); /* VALID gives 3x3 */
  tu_diags d;
  tu_diags_init(&d);
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_ERR_MODEL);
  assert_true(
      tu_diags_has(&d, "operator 0 (CONV_2D): output is 1x4x4 but VALID padding gives 1x3x3"));
  assert_false(lo.supported);
  tu_diags_init(&d);
  assert_int_equal(mp_lower_check_all(b.g, &d.sink), MP_ERR_MODEL);
  drop(&b);
}

static void conv_with_the_largest_stride_lowers_without_overflow(void **state) {
  (void)state;
  built b;
  /* SAME: ceil(5 / (2^31 - 1)) = 1; TFLite's int arithmetic would overflow */
  conv_model(&b, 0, INT32_MAX, 0, 1, MP_DTYPE_INT8);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_true(lo.supported);
  assert_int_equal(lo.params.conv_s8.geom.out_h, 1);
  assert_int_equal(lo.params.conv_s8.geom.pad_h, 0);
  mp_lower_free(&lo);
  drop(&b);
}

static void conv_whose_window_reaches_beyond_32_bits_is_a_model_error(void **state) {
  (void)state;
  built b;
  /* (3 - 1) * (2^31 - 1) + 1 overflows int32: it was UB in conv_pad */
  conv_model_dilated(&b, 0, 1, 0, 5, MP_DTYPE_INT8, INT32_MAX);
  tu_diags d;
  tu_diags_init(&d);
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_ERR_MODEL);
  if (!tu_diags_has(&d, "operator 0 (CONV_2D): window 3x3 with strides (1, 1) and dilations "
                        "(2147483647, 2147483647) reaches row 4294967298"))
    fail_msg("got: %s", d.text);
  mp_lower_free(&lo);
  drop(&b);
}

static void a_malformed_operator_fails_kernel_preparation_even_when_unsupported_is_allowed(
    void **state) {
  (void)state;
  built b;
  conv_model(&b, 1 /* VALID */, 1, 0, 4, MP_DTYPE_INT8); /* VALID gives 3x3 */
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_kernels_prepare(b.g, true, &d.sink), MP_ERR_MODEL);
  assert_int_equal(d.n_errors, 1); /* an error, not a warning a quiet caller drops */
  assert_true(tu_diags_has(&d, "error: operator 0 (CONV_2D): output is 1x4x4"));
  drop(&b);
}

static void conv_with_tanh_or_int16_is_unsupported_with_a_reason(void **state) {
  (void)state;
  built b;
  mp_lowered_op lo;
  for (int64_t act = 4 /* TANH */; act <= 5 /* SIGN_BIT */; act++) {
    conv_model(&b, 0, 2, act, 3, MP_DTYPE_INT8);
    lower0(&b, &lo);
    assert_false(lo.supported);
    char want[160];
    snprintf(want, sizeof want,
             "fused activation %s on a quantised operator (TensorFlow Lite Micro refuses it too)",
             act == 4 ? "TANH" : "SIGN_BIT");
    assert_string_equal(lo.reason, want);
    assert_int_equal(lo.n_arrays, 0); /* half-built params dropped */
    drop(&b);
  }
  /* a 16x8 convolution with an int32 bias runs (in 32 bits, as TensorFlow
   * Lite Micro runs it), but not with these int16 zero points */
  conv_model(&b, 0, 2, 0, 3, MP_DTYPE_INT16);
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "int16 tensors with a non-zero zero point");
  drop(&b);
}

static void depthwise_lowering_derives_the_depth_multiplier_and_dilation(void **state) {
  (void)state;
  static int8_t filter[3 * 3 * 4];
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 4,
                                     .shape = {1, 7, 7, 2},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = 0});
  int32_t f = add_tensor(w, &(spec){.name = "f",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 4,
                                    .shape = {1, 3, 3, 4},
                                    .n_scale = 1,
                                    .scale = {0.25f},
                                    .zp = 0,
                                    .data = filter,
                                    .bytes = sizeof filter});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 4,
                                      .shape = {1, 3, 3, 4},
                                      .n_scale = 1,
                                      .scale = {0.5f},
                                      .zp = 0});
  mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i32opt(3, 2),
                       i8opt(4, 1), i32opt(5, 2), i32opt(6, 2)};
  add_op(w, DEPTHWISE_CONV_2D, 3, (const int32_t[]){in, f, -1}, out, MP_TFW_OPT_DEPTHWISE_CONV2D, 7,
         o);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_DEPTHWISE_CONV2D_S8);
  const mpk_conv_s8_params *p = &lo.params.conv_s8;
  assert_int_equal(p->geom.depth_multiplier, 2);
  assert_int_equal(p->geom.dilation_h, 2);
  assert_int_equal(p->geom.pad_h, 0);
  assert_int_equal(p->q.act_min, 0); /* RELU */
  assert_int_equal(p->q.act_max, 127);
  assert_int_equal(p->q.per_channel, 1); /* per-tensor broadcast to every channel */
  assert_int_equal(lo.arrays[0].n, 4);
  assert_int_equal(p->q.multiplier[3], 1073741824); /* 0.25 */
  assert_int_equal(p->q.shift[3], -1);
  assert_int_equal(lo.args[2].tensor, -1); /* no bias: NULL */
  mp_lower_free(&lo);
  drop(&b);
}

static void fully_connected_takes_the_scale_product_in_float(void **state) {
  (void)state;
  static int8_t filter[2 * 3] = {1, 2, 3, 4, 5, 6};
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {1, 3},
                                     .n_scale = 1,
                                     .scale = {0.1f},
                                     .zp = 5});
  int32_t f = add_tensor(w, &(spec){.name = "f",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 2,
                                    .shape = {2, 3},
                                    .n_scale = 1,
                                    .scale = {0.2f},
                                    .zp = 0,
                                    .data = filter,
                                    .bytes = 6});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 2,
                                      .shape = {1, 2},
                                      .n_scale = 1,
                                      .scale = {0.3f},
                                      .zp = -7});
  mp_tfw_option o[] = {i8opt(0, 0)};
  add_op(w, FULLY_CONNECTED, 3, (const int32_t[]){in, f, -1}, out, MP_TFW_OPT_FULLY_CONNECTED, 1,
         o);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_FULLY_CONNECTED_S8);
  const mpk_fc_s8_params *p = &lo.params.fc_s8;
  assert_int_equal(p->batches, 1);
  assert_int_equal(p->accum_depth, 3);
  assert_int_equal(p->out_depth, 2);
  assert_int_equal(p->q.per_channel, 0);
  /* (double)(0.1f * 0.2f) / 0.3f; the double product would give 1145324601 */
  assert_int_equal(p->q.multiplier[0], 1145324648);
  assert_int_equal(p->q.shift[0], -3);
  assert_int_equal(p->q.input_offset, -5);
  assert_int_equal(p->q.output_offset, -7);
  assert_int_equal(lo.arrays[0].n, 1);
  /* run it: inputs {6,7,8} -> {1,2,3} after the offset */
  const int8_t x[3] = {6, 7, 8};
  int8_t y[2] = {99, 99};
  assert_int_equal(mpk_fully_connected_s8(p, x, filter, NULL, y, NULL), MPK_OK);
  /* 14 * 0.0666667 = 0.93 -> 1 - 7 = -6; 32 * 0.0667 = 2.13 -> 2 - 7 = -5 */
  assert_int_equal(y[0], -6);
  assert_int_equal(y[1], -5);
  mp_lower_free(&lo);
  drop(&b);
}

/* A float FULLY_CONNECTED [1, 2] x [1, 2] fusing activation `act`. */
static void float_fc_model(built *b, int64_t act) {
  static float filter[2] = {1.0f, -1.0f};
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_FLOAT32,
                                     .rank = 2,
                                     .shape = {1, 2},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0});
  int32_t f = add_tensor(w, &(spec){.name = "f",
                                    .dtype = MP_DTYPE_FLOAT32,
                                    .rank = 2,
                                    .shape = {1, 2},
                                    .n_scale = 0,
                                    .scale = {0},
                                    .zp = 0,
                                    .data = filter,
                                    .bytes = 8});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_FLOAT32,
                                      .rank = 2,
                                      .shape = {1, 1},
                                      .n_scale = 0,
                                      .scale = {0},
                                      .zp = 0});
  mp_tfw_option o[] = {i8opt(0, act)};
  add_op(w, FULLY_CONNECTED, 2, (const int32_t[]){in, f}, out, MP_TFW_OPT_FULLY_CONNECTED, 1, o);
  finish(w, 1, &in, 1, &out, b);
}

static void float_fully_connected_prints_the_float_range(void **state) {
  (void)state;
  built b;
  float_fc_model(&b, 0);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_FULLY_CONNECTED_F32);
  assert_true(lo.params.fc_f32.act_min == -FLT_MAX);
  assert_int_equal(lo.args[2].tensor, -1); /* two inputs: no bias */
  mp_buf t;
  mp_buf_init(&t);
  mp_lower_params_c(&lo, "fc", &t);
  assert_string_equal(mp_buf_str(&t), "static const mpk_fc_f32_params fc = {\n"
                                      "    .batches = 1,\n"
                                      "    .accum_depth = 2,\n"
                                      "    .out_depth = 1,\n"
                                      "    .act_min = -3.40282347e+38f,\n"
                                      "    .act_max = 3.40282347e+38f,\n"
                                      "};\n");
  mp_buf_free(&t);
  mp_lower_free(&lo);
  drop(&b);
}

/* A float operator fusing TANH or SIGN_BIT runs as TensorFlow Lite Micro
 * and LiteRT run it: those activations have no range, so nothing is
 * clamped and the lowered params are those of no activation. */
static void float_fully_connected_with_tanh_or_sign_bit_clamps_nothing(void **state) {
  (void)state;
  built b;
  mp_lowered_op lo;
  float_fc_model(&b, 0);
  lower0(&b, &lo);
  mp_buf none;
  mp_buf_init(&none);
  mp_lower_params_c(&lo, "fc", &none);
  mp_lower_free(&lo);
  drop(&b);
  for (int64_t act = 4 /* TANH */; act <= 5 /* SIGN_BIT */; act++) {
    float_fc_model(&b, act);
    lower0(&b, &lo);
    assert_true(lo.supported);
    assert_int_equal(lo.kernel, MP_K_FULLY_CONNECTED_F32);
    mp_buf t;
    mp_buf_init(&t);
    mp_lower_params_c(&lo, "fc", &t);
    assert_string_equal(mp_buf_str(&t), mp_buf_str(&none));
    const float x[2] = {-3.0f, 2.5f};
    float y = 0.0f;
    assert_int_equal(mpk_fully_connected_f32(&lo.params.fc_f32, x, (const float[]){1.0f, -1.0f},
                                             NULL, &y, NULL),
                     MPK_OK);
    assert_true(y == -5.5f); /* neither tanh(-5.5) nor the sign bit */
    mp_buf_free(&t);
    mp_lower_free(&lo);
    drop(&b);
  }
  mp_buf_free(&none);
}

/* ------------------------------------------------------------------------ */
/* Pooling, add, softmax, logistic, quantize                                */
/* ------------------------------------------------------------------------ */

static void pooling_lowers_window_padding_and_activation(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_FLOAT32,
                                     .rank = 4,
                                     .shape = {1, 5, 5, 3},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_FLOAT32,
                                      .rank = 4,
                                      .shape = {1, 3, 3, 3},
                                      .n_scale = 0,
                                      .scale = {0},
                                      .zp = 0});
  mp_tfw_option o[] = {i8opt(0, 0),  i32opt(1, 2), i32opt(2, 2),
                       i32opt(3, 2), i32opt(4, 2), i8opt(5, 1)};
  add_op(w, MAX_POOL_2D, 1, &in, out, MP_TFW_OPT_POOL2D, 6, o);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_MAX_POOL2D_F32);
  const mpk_pool_f32_params *p = &lo.params.pool_f32;
  assert_int_equal(p->geom.filter_h, 2);
  assert_int_equal(p->geom.pad_h, 0); /* total (3-1)*2 + 2 - 5 = 1: all at the bottom */
  assert_true(p->act_min == 0.0f && p->act_max == FLT_MAX);
  mp_lower_free(&lo);
  drop(&b);
}

/* int16 pooling: the int16 kernels, the RELU6 bound in int16 steps. */
static void int16_pooling_lowers_to_the_int16_kernels_with_an_int16_range(void **state) {
  (void)state;
  for (int is_max = 0; is_max < 2; is_max++) {
    mp_tfw *w = mp_tfw_new();
    spec t = {.name = "in",
              .dtype = MP_DTYPE_INT16,
              .rank = 4,
              .shape = {1, 4, 4, 2},
              .n_scale = 1,
              .scale = {1.0f / 4096.0f},
              .zp = 0};
    int32_t in = add_tensor(w, &t);
    t.name = "out";
    t.shape[1] = t.shape[2] = 2;
    int32_t out = add_tensor(w, &t);
    mp_tfw_option o[] = {i8opt(0, 1 /* VALID */), i32opt(1, 2), i32opt(2, 2),
                         i32opt(3, 2),           i32opt(4, 2), i8opt(5, 3 /* RELU6 */)};
    add_op(w, is_max ? MAX_POOL_2D : AVERAGE_POOL_2D, 1, &in, out, MP_TFW_OPT_POOL2D, 6, o);
    built b;
    finish(w, 1, &in, 1, &out, &b);
    mp_lowered_op lo;
    lower0(&b, &lo);
    assert_true(lo.supported);
    assert_int_equal(lo.kernel, is_max ? MP_K_MAX_POOL2D_S16 : MP_K_AVG_POOL2D_S16);
    assert_string_equal(lo.args[0].ctype, "const int16_t *");
    assert_int_equal(lo.params.pool_s8.act_min, 0);
    assert_int_equal(lo.params.pool_s8.act_max, 24576); /* 6 * 4096 */
    mp_lower_free(&lo);
    drop(&b);
  }
}

/* int16 RELU, RELU6, MAXIMUM and MINIMUM (zero points 0, one scale) have
 * no conformance case: over the whole int16 range their lowered kernels
 * must give the definitions, max(x, 0), clamp(x, 0, 6 / scale) and the
 * larger or smaller element. */
static void int16_relu_relu6_maximum_minimum_follow_their_definitions(void **state) {
  (void)state;
  enum { N = 64 };
  const float scale = 1.0f / 1024.0f; /* 6.0 is 6144 */
  int16_t x[N], y[N], out[N];
  for (int i = 0; i < N; i++) {
    x[i] = (int16_t)((i * 1031) % 65536 - 32768);
    y[i] = (int16_t)((i * 2741 + 17) % 65536 - 32768);
  }
  const int32_t codes[4] = {RELU_OP, RELU6_OP, MAXIMUM_OP, MINIMUM_OP};
  for (int k = 0; k < 4; k++) {
    bool binary = codes[k] == MAXIMUM_OP || codes[k] == MINIMUM_OP;
    mp_tfw *w = mp_tfw_new();
    spec t = {.name = "a",
              .dtype = MP_DTYPE_INT16,
              .rank = 2,
              .shape = {4, 16},
              .n_scale = 1,
              .scale = {scale},
              .zp = 0};
    int32_t ins[2];
    ins[0] = add_tensor(w, &t);
    t.name = "b";
    ins[1] = binary ? add_tensor(w, &t) : -1;
    t.name = "out";
    int32_t out_t = add_tensor(w, &t);
    add_op(w, codes[k], binary ? 2 : 1, ins, out_t, 0, 0, NULL);
    built b;
    finish(w, binary ? 2 : 1, ins, 1, &out_t, &b);
    mp_lowered_op lo;
    lower0(&b, &lo);
    if (!lo.supported) fail_msg("int16 operator %d refused: %s", codes[k], lo.reason);
    memset(out, 0x5A, sizeof out);
    if (binary)
      assert_int_equal(mpk_binary_q(&lo.params.binary_q, x, y, out, NULL), MPK_OK);
    else
      assert_int_equal(mpk_unary_q(&lo.params.unary_q, x, out, NULL), MPK_OK);
    int n_clipped = 0;
    for (int i = 0; i < N; i++) {
      int32_t want;
      switch (codes[k]) {
      case RELU_OP: want = x[i] > 0 ? x[i] : 0; break;
      case RELU6_OP: want = x[i] < 0 ? 0 : x[i] > 6144 ? 6144 : x[i]; break;
      case MAXIMUM_OP: want = x[i] > y[i] ? x[i] : y[i]; break;
      default: want = x[i] < y[i] ? x[i] : y[i]; break;
      }
      n_clipped += want != x[i];
      if (out[i] != want)
        fail_msg("int16 operator %d, element %d (%d, %d): %d, the definition gives %d", codes[k],
                 i, x[i], y[i], out[i], want);
    }
    assert_true(n_clipped > 0 && n_clipped < N); /* both branches taken */
    mp_lower_free(&lo);
    drop(&b);
  }
}

static void add_lowering_rescales_both_inputs_and_broadcasts(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t a = add_tensor(w, &(spec){.name = "a",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 4,
                                    .shape = {1, 2, 2, 3},
                                    .n_scale = 1,
                                    .scale = {0.5f},
                                    .zp = 1});
  int32_t c = add_tensor(w, &(spec){.name = "c",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 1,
                                    .shape = {3},
                                    .n_scale = 1,
                                    .scale = {0.25f},
                                    .zp = -2});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 4,
                                      .shape = {1, 2, 2, 3},
                                      .n_scale = 1,
                                      .scale = {1.0f},
                                      .zp = 0});
  mp_tfw_option o[] = {i8opt(0, 0)};
  add_op(w, ADD, 2, (const int32_t[]){a, c}, out, MP_TFW_OPT_ADD, 1, o);
  built b;
  finish(w, 1, &a, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_ADD_S8);
  const mpk_add_s8_params *p = &lo.params.add_s8;
  assert_int_equal(p->left_shift, 20);
  assert_int_equal(p->in1_offset, -1);
  assert_int_equal(p->in2_offset, 2);
  assert_int_equal(p->in1_multiplier, 1 << 30); /* 0.5 / 1.0 */
  assert_int_equal(p->in1_shift, 0);
  assert_int_equal(p->in2_multiplier, 1 << 30); /* 0.25 / 1.0 */
  assert_int_equal(p->in2_shift, -1);
  assert_int_equal(p->out_multiplier, 1 << 30); /* 1.0 / (2^20 * 1.0) */
  assert_int_equal(p->out_shift, -19);
  assert_int_equal(p->b.elementwise, 0);
  assert_int_equal(p->b.size, 12);
  const int32_t dims[6] = {1, 1, 1, 2, 2, 3}, s1[6] = {0, 0, 0, 6, 3, 1},
                s2[6] = {0, 0, 0, 0, 0, 1};
  assert_memory_equal(p->b.dims, dims, sizeof dims);
  assert_memory_equal(p->b.in1_strides, s1, sizeof s1);
  assert_memory_equal(p->b.in2_strides, s2, sizeof s2);
  /* a = 3 (1.0), c = 2 (1.0) -> 2.0 */
  int8_t x[12], y[3] = {2, 2, 2}, z[12];
  memset(x, 3, sizeof x);
  assert_int_equal(mpk_add_s8(p, x, y, z, NULL), MPK_OK);
  for (int i = 0; i < 12; i++)
    assert_int_equal(z[i], 2);
  mp_lower_free(&lo);
  drop(&b);
}

static void softmax_lowering_prints_the_exact_params(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {1, 4},
                                     .n_scale = 1,
                                     .scale = {0.0625f},
                                     .zp = 3});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 2,
                                      .shape = {1, 4},
                                      .n_scale = 1,
                                      .scale = {1.0f / 256},
                                      .zp = -128});
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_F32, .f = 1.0f}};
  add_op(w, SOFTMAX, 1, &in, out, MP_TFW_OPT_SOFTMAX, 1, o);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  mp_buf t;
  mp_buf_init(&t);
  mp_lower_params_c(&lo, "sm", &t);
  /* beta * scale * 2^26 = 2^22 = 0.5 * 2^23; radius floor(31 * 2^26 / 2^23) */
  assert_string_equal(mp_buf_str(&t), "static const mpk_softmax_s8_params sm = {\n"
                                      "    .outer = 1,\n"
                                      "    .depth = 4,\n"
                                      "    .input_multiplier = 1073741824,\n"
                                      "    .input_left_shift = 23,\n"
                                      "    .diff_min = -248,\n"
                                      "};\n");
  mp_buf_free(&t);
  mp_lower_free(&lo);
  drop(&b);
}

static void softmax_with_a_foreign_output_scale_is_unsupported(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {1, 4},
                                     .n_scale = 1,
                                     .scale = {0.0625f},
                                     .zp = 3});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 2,
                                      .shape = {1, 4},
                                      .n_scale = 1,
                                      .scale = {1.0f / 128},
                                      .zp = -128});
  add_op(w, SOFTMAX, 1, &in, out, MP_TFW_OPT_SOFTMAX, 0, NULL);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "int8 output must have scale 1/256 and zero point -128");
  drop(&b);
}

static void logistic_lowering_uses_frexp_and_the_q4_radius(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {1, 3},
                                     .n_scale = 1,
                                     .scale = {0.0625f},
                                     .zp = 3});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 2,
                                      .shape = {1, 3},
                                      .n_scale = 1,
                                      .scale = {1.0f / 256},
                                      .zp = -128});
  add_op(w, LOGISTIC, 1, &in, out, 0, 0, NULL);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_LOGISTIC_S8);
  const mpk_logistic_s8_params *p = &lo.params.logistic_s8;
  assert_int_equal(p->size, 3);
  assert_int_equal(p->input_zero_point, 3);
  assert_int_equal(p->input_multiplier, 1 << 30);
  assert_int_equal(p->input_left_shift, 24);
  assert_int_equal(p->input_range_radius, 120);
  drop(&b);
}

static void quantize_lowers_float_and_integer_inputs(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t x = add_tensor(w, &(spec){.name = "x",
                                    .dtype = MP_DTYPE_FLOAT32,
                                    .rank = 2,
                                    .shape = {1, 4},
                                    .n_scale = 0,
                                    .scale = {0},
                                    .zp = 0});
  int32_t q = add_tensor(w, &(spec){.name = "q",
                                    .dtype = MP_DTYPE_INT16,
                                    .rank = 2,
                                    .shape = {1, 4},
                                    .n_scale = 1,
                                    .scale = {0.5f},
                                    .zp = 0});
  int32_t r = add_tensor(w, &(spec){.name = "r",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 2,
                                    .shape = {1, 4},
                                    .n_scale = 1,
                                    .scale = {0.75f},
                                    .zp = -3});
  int32_t u = add_tensor(w, &(spec){.name = "u",
                                    .dtype = MP_DTYPE_INT32,
                                    .rank = 2,
                                    .shape = {1, 4},
                                    .n_scale = 1,
                                    .scale = {0.75f},
                                    .zp = 0});
  add_op(w, QUANTIZE, 1, &x, q, 0, 0, NULL);
  add_op(w, QUANTIZE, 1, &q, r, 0, 0, NULL);
  add_op(w, QUANTIZE, 1, &r, u, 0, 0, NULL);
  built b;
  finish(w, 1, &x, 1, &u, &b);
  tu_diags d;
  tu_diags_init(&d);
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_OK);
  assert_int_equal(lo.kernel, MP_K_QUANTIZE_F32);
  assert_int_equal(lo.params.quantize.out_type, MPK_TYPE_INT16);
  assert_true(lo.params.quantize.scale == 0.5f);
  assert_int_equal(mp_lower_op(b.g, 1, &lo, &d.sink), MP_OK);
  assert_int_equal(lo.kernel, MP_K_REQUANTIZE);
  const mpk_requantize_params *p = &lo.params.requantize;
  assert_int_equal(p->in_type, MPK_TYPE_INT16);
  assert_int_equal(p->out_type, MPK_TYPE_INT8);
  assert_int_equal(p->multiplier, 1431655765); /* 0.5 / 0.75 */
  assert_int_equal(p->shift, 0);
  assert_int_equal(p->output_zero_point, -3);
  assert_int_equal(mp_lower_op(b.g, 2, &lo, &d.sink), MP_OK);
  assert_int_equal(lo.kernel, MP_K_REQUANTIZE);
  assert_int_equal(lo.params.requantize.out_type, MPK_TYPE_INT32);
  drop(&b);
}

/* ------------------------------------------------------------------------ */
/* Data movement and mean                                                   */
/* ------------------------------------------------------------------------ */

static void mean_asks_for_int32_scratch_and_runs_on_garbage(void **state) {
  (void)state;
  static const int32_t axes[2] = {1, 2};
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 4,
                                     .shape = {1, 2, 2, 3},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = 2});
  int32_t ax = add_tensor(w, &(spec){.name = "axes",
                                     .dtype = MP_DTYPE_INT32,
                                     .rank = 1,
                                     .shape = {2},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0,
                                     .data = axes,
                                     .bytes = 8});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 4,
                                      .shape = {1, 1, 1, 3},
                                      .n_scale = 1,
                                      .scale = {0.25f},
                                      .zp = -1});
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_BOOL, .i = 1}};
  add_op(w, MEAN, 2, (const int32_t[]){in, ax}, out, 27 /* ReducerOptions */, 1, o);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_int_equal(lo.kernel, MP_K_MEAN_S8);
  assert_int_equal(lo.scratch_bytes, 12);
  assert_int_equal(lo.scratch_align, 4);
  const mpk_mean_s8_params *p = &lo.params.mean_s8;
  assert_int_equal(p->count, 4);
  assert_int_equal(p->out_size, 3);
  /* 0.5 / 0.25 = 2 = 2^30 * 2^2 / 2^31; the division by 4 folds into the
   * multiplier's shift: 2^30 << 2 / 4 = 2^30, shift 2 - 2 */
  assert_int_equal(p->multiplier, 1 << 30);
  assert_int_equal(p->shift, 0);
  assert_int_equal(p->input_zero_point, 2);
  assert_int_equal(p->output_zero_point, -1);
  const int32_t strides[6] = {0, 0, 0, 0, 0, 1};
  assert_memory_equal(p->out_strides, strides, sizeof strides);
  /* the planner's view: an op-local scratch tensor live over [0, 0] */
  uint32_t id = 0;
  assert_int_equal(
      mp_graph_add_local(b.g, 0, lo.scratch_bytes, lo.scratch_align, "op0_scratch", &id), MP_OK);
  assert_int_equal(b.g->tensors[id].size, 12);
  assert_int_equal(b.g->storage[id].start_op, 0);
  assert_int_equal(b.g->storage[id].end_op, 0);
  /* channel c holds c+2 everywhere (real value c * 0.5): mean c * 0.5 */
  int8_t x[12], y[3];
  for (int i = 0; i < 12; i++)
    x[i] = (int8_t)(i % 3 + 2);
  int32_t scratch[3];
  memset(scratch, 0x5A, sizeof scratch);
  memset(y, 0x5A, sizeof y);
  assert_int_equal(mpk_mean_s8(p, x, y, scratch), MPK_OK);
  assert_int_equal(y[0], -1); /* 0.0 */
  assert_int_equal(y[1], 1);  /* 0.5 / 0.25 - 1 */
  assert_int_equal(y[2], 3);  /* 1.0 / 0.25 - 1 */
  drop(&b);
}

static void pad_and_transpose_and_concat_lower_to_byte_movers(void **state) {
  (void)state;
  static const int32_t pads[4] = {1, 0, 0, 2};
  static const int32_t perm[3] = {2, 0, 1};
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {2, 3},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = -5});
  int32_t pd = add_tensor(w, &(spec){.name = "pads",
                                     .dtype = MP_DTYPE_INT32,
                                     .rank = 2,
                                     .shape = {2, 2},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0,
                                     .data = pads,
                                     .bytes = 16});
  int32_t po = add_tensor(w, &(spec){.name = "padded",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {3, 5},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = -5});
  int32_t t3 = add_tensor(w, &(spec){.name = "t3",
                                     .dtype = MP_DTYPE_FLOAT32,
                                     .rank = 3,
                                     .shape = {2, 3, 4},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0});
  int32_t pm = add_tensor(w, &(spec){.name = "perm",
                                     .dtype = MP_DTYPE_INT32,
                                     .rank = 1,
                                     .shape = {3},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0,
                                     .data = perm,
                                     .bytes = 12});
  int32_t to = add_tensor(w, &(spec){.name = "tout",
                                     .dtype = MP_DTYPE_FLOAT32,
                                     .rank = 3,
                                     .shape = {4, 2, 3},
                                     .n_scale = 0,
                                     .scale = {0},
                                     .zp = 0});
  int32_t c1 = add_tensor(w, &(spec){.name = "c1",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {3, 2},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = -5});
  int32_t co = add_tensor(w, &(spec){.name = "cout",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {3, 7},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = -5});
  int32_t c2 = add_tensor(w, &(spec){.name = "c2",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {3, 2},
                                     .n_scale = 1,
                                     .scale = {0.25f},
                                     .zp = -5});
  int32_t co2 = add_tensor(w, &(spec){.name = "cout2",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 2,
                                      .shape = {3, 7},
                                      .n_scale = 1,
                                      .scale = {0.5f},
                                      .zp = -5});
  add_op(w, PAD, 2, (const int32_t[]){in, pd}, po, 0, 0, NULL);
  add_op(w, TRANSPOSE, 2, (const int32_t[]){t3, pm}, to, 0, 0, NULL);
  mp_tfw_option ax[] = {i32opt(0, -1), i8opt(1, 0)};
  add_op(w, CONCATENATION, 2, (const int32_t[]){c1, po}, co, MP_TFW_OPT_CONCATENATION, 2, ax);
  add_op(w, CONCATENATION, 2, (const int32_t[]){c2, po}, co2, MP_TFW_OPT_CONCATENATION, 2, ax);
  built b;
  finish(w, 3, (const int32_t[]){in, t3, c1}, 2, (const int32_t[]){co, to}, &b);
  tu_diags d;
  tu_diags_init(&d);
  mp_lowered_op lo;
  assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_OK);
  assert_int_equal(lo.kernel, MP_K_PAD);
  const mpk_pad_params *pp = &lo.params.pad;
  assert_int_equal(pp->elem_size, 1);
  assert_int_equal(pp->before[4], 1);
  assert_int_equal(pp->before[5], 0);
  assert_int_equal(pp->out_dims[5], 5);
  assert_int_equal((int8_t)pp->value[0], -5); /* PAD pads with the zero point */
  assert_int_equal(mp_lower_op(b.g, 1, &lo, &d.sink), MP_OK);
  assert_int_equal(lo.kernel, MP_K_TRANSPOSE);
  const int32_t od[6] = {1, 1, 1, 4, 2, 3}, is[6] = {0, 0, 0, 1, 12, 4};
  assert_memory_equal(lo.params.transpose.out_dims, od, sizeof od);
  assert_memory_equal(lo.params.transpose.in_strides, is, sizeof is);
  assert_int_equal(lo.params.transpose.elem_size, 4);
  assert_int_equal(mp_lower_op(b.g, 2, &lo, &d.sink), MP_OK);
  assert_int_equal(lo.kernel, MP_K_CONCAT);
  assert_int_equal(lo.params.concat.outer, 3);
  assert_int_equal(lo.params.concat.input_bytes[0], 2);
  assert_int_equal(lo.params.concat.input_bytes[1], 5);
  assert_int_equal(lo.args[0].kind, MP_LARG_TENSOR_ARRAY);
  assert_int_equal(lo.args[0].n_tensors, 2);
  assert_int_equal(lo.args[0].tensors[1], po);
  assert_string_equal(lo.args[0].ctype, "const void *const *");
  mp_lower_free(&lo);
  assert_int_equal(mp_lower_op(b.g, 3, &lo, &d.sink), MP_OK);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "input 0 is quantised differently from the output");
  drop(&b);
}

/* ------------------------------------------------------------------------ */
/* Views, unknown operators, and the all-at-once check                      */
/* ------------------------------------------------------------------------ */

static void reshape_of_a_constant_is_a_copy(void **state) {
  (void)state;
  static const int8_t data[6] = {1, 2, 3, 4, 5, 6};
  static const int32_t shape[2] = {3, 2};
  mp_tfw *w = mp_tfw_new();
  int32_t c = add_tensor(w, &(spec){.name = "c",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 2,
                                    .shape = {2, 3},
                                    .n_scale = 0,
                                    .scale = {0},
                                    .zp = 0,
                                    .data = data,
                                    .bytes = 6});
  int32_t s = add_tensor(w, &(spec){.name = "s",
                                    .dtype = MP_DTYPE_INT32,
                                    .rank = 1,
                                    .shape = {2},
                                    .n_scale = 0,
                                    .scale = {0},
                                    .zp = 0,
                                    .data = shape,
                                    .bytes = 8});
  int32_t out = add_tensor(w, &(spec){.name = "out",
                                      .dtype = MP_DTYPE_INT8,
                                      .rank = 2,
                                      .shape = {3, 2},
                                      .n_scale = 0,
                                      .scale = {0},
                                      .zp = 0});
  add_op(w, RESHAPE, 2, (const int32_t[]){c, s}, out, 0, 0, NULL);
  built b;
  finish(w, 0, NULL, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_false(b.g->ops[0].is_view); /* the input is a constant: no alias */
  assert_int_equal(lo.kernel, MP_K_COPY);
  assert_int_equal(lo.params.copy.bytes, 6);
  assert_string_equal(lo.fn, "mpk_copy");
  drop(&b);
}

/* int16 BATCH_MATMUL has no case in the conformance corpus, so its
 * arithmetic is checked against the 16x8 FULLY_CONNECTED, which matches
 * TFLM's outputs there: lhs [3, K] times rhs [4, K] with adj_y is the
 * FULLY_CONNECTED of input [3, K] and weights [4, K] when the rhs values
 * fit in int8, bit for bit.  Row 0 of both is all at the top of its range,
 * so its sums need more than 32 bits (an int32 accumulator would wrap and
 * give -32768 where the result saturates at 32767). */
enum { BMM_K = 700 };
static void bmm16_models(built *bmm, built *fc, int16_t *lhs, int16_t *rhs16, int8_t *rhs8) {
  uint32_t seed = 12345u;
  for (int i = 0; i < 3 * BMM_K; i++) {
    seed = seed * 1664525u + 1013904223u;
    lhs[i] = i < BMM_K ? 32767 : (int16_t)(seed >> 16);
  }
  for (int i = 0; i < 4 * BMM_K; i++) {
    seed = seed * 1664525u + 1013904223u;
    rhs8[i] = i < BMM_K ? 127 : (int8_t)((int32_t)((seed >> 16) % 255u) - 127);
    rhs16[i] = rhs8[i];
  }
  for (int k = 0; k < 2; k++) {
    bool is_fc = k == 1;
    mp_tfw *w = mp_tfw_new();
    int32_t in = add_tensor(w, &(spec){.name = "lhs", .dtype = MP_DTYPE_INT16, .rank = 2,
                                       .shape = {3, BMM_K}, .n_scale = 1, .scale = {3e-4f}});
    int32_t r = add_tensor(w, &(spec){.name = "rhs", .dtype = is_fc ? MP_DTYPE_INT8 : MP_DTYPE_INT16,
                                      .rank = 2, .shape = {4, BMM_K}, .n_scale = 1,
                                      .scale = {0.01f}, .data = is_fc ? (const void *)rhs8 : rhs16,
                                      .bytes = is_fc ? 4u * BMM_K : 8u * BMM_K});
    int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = MP_DTYPE_INT16, .rank = 2,
                                        .shape = {3, 4}, .n_scale = 1, .scale = {0.01f}});
    if (is_fc) {
      mp_tfw_option o[] = {i8opt(0, 0)};
      add_op(w, FULLY_CONNECTED, 3, (const int32_t[]){in, r, -1}, out, MP_TFW_OPT_FULLY_CONNECTED,
             1, o);
    } else {
      mp_tfw_option o[] = {{.field = 1, .type = MP_TFW_BOOL, .i = 1}}; /* adj_y */
      add_op(w, BATCH_MATMUL_OP, 2, (const int32_t[]){in, r}, out, OPT_BATCH_MATMUL, 1, o);
    }
    finish(w, 1, &in, 1, &out, is_fc ? fc : bmm);
  }
}

static void int16_batch_matmul_matches_the_16x8_fully_connected(void **state) {
  (void)state;
  static int16_t lhs[3 * BMM_K], rhs16[4 * BMM_K];
  static int8_t rhs8[4 * BMM_K];
  built bmm, fc;
  bmm16_models(&bmm, &fc, lhs, rhs16, rhs8);
  mp_lowered_op lb, lf;
  lower0(&bmm, &lb);
  lower0(&fc, &lf);
  assert_true(lb.supported);
  assert_int_equal(lb.kernel, MP_K_BATCH_MATMUL_S16);
  assert_string_equal(lb.fn, "mpk_batch_matmul_s16");
  assert_string_equal(lb.args[0].ctype, "const int16_t *");
  assert_string_equal(lb.args[2].ctype, "int16_t *");
  assert_int_equal(lf.kernel, MP_K_FULLY_CONNECTED_S16);
  int16_t yb[12], yf[12];
  memset(yb, 0x5a, sizeof yb);
  memset(yf, 0xa5, sizeof yf);
  assert_int_equal(mpk_batch_matmul_s16(&lb.params.batch_matmul, lhs, rhs16, yb, NULL), MPK_OK);
  assert_int_equal(lf.scratch_bytes, 0);
  assert_int_equal(mpk_fully_connected_s16(&lf.params.fc_s8, lhs, rhs8, NULL, yf, NULL), MPK_OK);
  assert_memory_equal(yb, yf, sizeof yb);
  assert_int_equal(yb[0], 32767); /* row 0: 700 * 32767 * 127 > 2^31 */
  int distinct = 0; /* the other rows are not all saturated */
  for (int i = 4; i < 12; i++) distinct += yb[i] != 32767 && yb[i] != -32768;
  assert_true(distinct >= 4);
  mp_lower_free(&lb);
  mp_lower_free(&lf);
  drop(&bmm);
  drop(&fc);
}

/* int16 BATCH_MATMUL with a non-zero zero point: TFLM refuses it, and so
 * does the lowering, naming them. */
static void int16_batch_matmul_needs_zero_points_0(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t a = add_tensor(w, &(spec){.name = "a", .dtype = MP_DTYPE_INT16, .rank = 2,
                                    .shape = {2, 3}, .n_scale = 1, .scale = {0.5f}, .zp = 4});
  int32_t bb = add_tensor(w, &(spec){.name = "b", .dtype = MP_DTYPE_INT16, .rank = 2,
                                     .shape = {3, 2}, .n_scale = 1, .scale = {0.5f}});
  int32_t out = add_tensor(w, &(spec){.name = "o", .dtype = MP_DTYPE_INT16, .rank = 2,
                                      .shape = {2, 2}, .n_scale = 1, .scale = {0.5f}});
  add_op(w, BATCH_MATMUL_OP, 2, (const int32_t[]){a, bb}, out, 0, 0, NULL);
  built b;
  finish(w, 2, (const int32_t[]){a, bb}, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "int16 zero points 4, 0 and 0"));
  drop(&b);
}

/* A RSQRT of `n` elements of `dtype`, scales si -> so, zero points 0. */
static void rsqrt_model(built *b, int32_t dtype, float si, float so) {
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "x", .dtype = dtype, .rank = 1, .shape = {256},
                                     .n_scale = 1, .scale = {si}});
  int32_t out = add_tensor(w, &(spec){.name = "y", .dtype = dtype, .rank = 1, .shape = {256},
                                      .n_scale = 1, .scale = {so}});
  add_op(w, RSQRT_OP, 1, &in, out, 0, 0, NULL);
  finish(w, 1, &in, 1, &out, b);
}

/* int16 RSQRT has no case in the conformance corpus; it runs the int8
 * RSQRT's arithmetic (which matches TFLM's 21 int8 cases) per element.
 * On the inputs both types hold, with scales where the results fit in
 * int8 too, the two agree value for value; 0 and below give the int16
 * maximum, as TFLM gives its type's maximum for 0. */
static void int16_rsqrt_matches_the_int8_rsqrt_where_both_reach(void **state) {
  (void)state;
  built b8, b16;
  rsqrt_model(&b8, MP_DTYPE_INT8, 0.02f, 0.05f);
  rsqrt_model(&b16, MP_DTYPE_INT16, 0.02f, 0.05f);
  mp_lowered_op l8, l16;
  lower0(&b8, &l8);
  lower0(&b16, &l16);
  assert_int_equal(l8.kernel, MP_K_LUT_S8);
  assert_int_equal(l16.kernel, MP_K_UNARY_Q);
  int8_t x8[256], y8[256];
  int16_t x16[256], y16[256];
  for (int i = 0; i < 256; i++) {
    x8[i] = (int8_t)(i / 2); /* 0 .. 127: the domain, each value twice */
    x16[i] = x8[i];
  }
  memset(y16, 0x5a, sizeof y16);
  assert_int_equal(mpk_lut_s8(&l8.params.lut_s8, x8, y8, NULL), MPK_OK);
  assert_int_equal(mpk_unary_q(&l16.params.unary_q, x16, y16, NULL), MPK_OK);
  int compared = 0;
  for (int i = 0; i < 256; i++) {
    int x = x16[i];
    if (x == 0) {
      assert_int_equal(y8[i], 127);
      assert_int_equal(y16[i], 32767);
    } else if (y8[i] < 127) {
      if (y16[i] != y8[i]) fail_msg("x = %d: int16 %d, int8 %d", x, y16[i], y8[i]);
      compared++;
    } else {
      assert_true(y16[i] >= 127); /* saturated in int8 only */
    }
  }
  assert_true(compared >= 240);
  /* below the zero point: outside the domain for both, as in TFLM */
  x8[7] = -1;
  x16[7] = -1;
  assert_int_equal(mpk_lut_s8(&l8.params.lut_s8, x8, y8, NULL), MPK_ERR_DOMAIN);
  assert_int_equal(mpk_unary_q(&l16.params.unary_q, x16, y16, NULL), MPK_ERR_DOMAIN);
  mp_lower_free(&l8);
  mp_lower_free(&l16);
  drop(&b8);
  drop(&b16);
  /* a non-zero int16 zero point: refused, as TFLM refuses it */
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "x", .dtype = MP_DTYPE_INT16, .rank = 1,
                                     .shape = {4}, .n_scale = 1, .scale = {0.5f}, .zp = 3});
  int32_t out = add_tensor(w, &(spec){.name = "y", .dtype = MP_DTYPE_INT16, .rank = 1,
                                      .shape = {4}, .n_scale = 1, .scale = {0.5f}});
  add_op(w, RSQRT_OP, 1, &in, out, 0, 0, NULL);
  finish(w, 1, &in, 1, &out, &b16);
  lower0(&b16, &l16);
  assert_false(l16.supported);
  assert_non_null(strstr(l16.reason, "non-zero zero point"));
  drop(&b16);
}

/* A SHAPE of input shape `in` into an output of type out_dtype and
 * `out_n` elements, the output a graph output (so nothing folds it). */
static void shape_model(built *b, uint32_t in_rank, const int32_t *in_shape, int32_t out_dtype,
                        int32_t out_n) {
  mp_tfw *w = mp_tfw_new();
  spec si = {.name = "x", .dtype = MP_DTYPE_INT8, .rank = in_rank, .n_scale = 1,
             .scale = {0.5f}, .zp = 3};
  memcpy(si.shape, in_shape, in_rank * sizeof *in_shape);
  int32_t x = add_tensor(w, &si);
  int32_t out = add_tensor(w, &(spec){.name = "s", .dtype = out_dtype, .rank = 1,
                                      .shape = {out_n}});
  add_op(w, SHAPE_OP, 1, &x, out, 0, 0, NULL);
  finish(w, 1, &x, 1, &out, b);
}

/* A SHAPE whose output is a graph output is not folded: it runs mpk_shape,
 * which writes the input's dimensions whatever the input bytes are. */
static void shape_into_a_graph_output_runs_a_kernel(void **state) {
  (void)state;
  built b;
  shape_model(&b, 4, (const int32_t[]){1, 5, 8, 3}, MP_DTYPE_INT32, 4);
  assert_false(b.g->ops[0].const_folded);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_true(lo.supported);
  assert_int_equal(lo.kernel, MP_K_SHAPE);
  assert_string_equal(lo.fn, "mpk_shape");
  assert_int_equal(lo.n_args, 2);
  assert_int_equal(lo.args[0].tensor, b.g->ops[0].inputs[0]);
  assert_false(lo.args[0].is_output);
  assert_int_equal(lo.args[1].tensor, b.g->ops[0].outputs[0]);
  assert_true(lo.args[1].is_output);
  assert_string_equal(lo.args[1].ctype, "int32_t *");
  assert_int_equal(lo.scratch_bytes, 0);
  int8_t in[120];
  memset(in, 0x5a, sizeof in);
  int32_t out[6] = {-7, -7, -7, -7, -7, -7};
  assert_int_equal(mpk_shape(&lo.params.shape, in, out, NULL), MPK_OK);
  const int32_t want[6] = {1, 5, 8, 3, -7, -7};
  assert_memory_equal(out, want, sizeof want);
  mp_lower_free(&lo);
  drop(&b);

  /* int64 output: refused, as TFLM refuses it */
  shape_model(&b, 2, (const int32_t[]){2, 6}, MP_DTYPE_INT64, 2);
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "int64 output"));
  drop(&b);

  /* an output that is not the input's rank long: the model is wrong */
  shape_model(&b, 3, (const int32_t[]){2, 6, 4}, MP_DTYPE_INT32, 2);
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_ERR_MODEL);
  assert_false(lo.supported);
  assert_true(tu_diags_has(&d, "output must be a vector of 3 elements"));
  drop(&b);
}

/* A SHAPE that only feeds another operator is computed at convert time,
 * by the same lowering and kernel: its output becomes the constant
 * dimensions, and the RESHAPE reading it copies the input. */
static void shape_inside_the_graph_folds_through_its_kernel(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t x = add_tensor(w, &(spec){.name = "x", .dtype = MP_DTYPE_FLOAT32, .rank = 3,
                                    .shape = {2, 7, 3}});
  int32_t s = add_tensor(w, &(spec){.name = "s", .dtype = MP_DTYPE_INT32, .rank = 1,
                                    .shape = {3}});
  int32_t y = add_tensor(w, &(spec){.name = "y", .dtype = MP_DTYPE_FLOAT32, .rank = 3,
                                    .shape = {2, 7, 3}});
  add_op(w, SHAPE_OP, 1, &x, s, 0, 0, NULL);
  add_op(w, RESHAPE, 2, (const int32_t[]){x, s}, y, 0, 0, NULL);
  built b;
  finish(w, 1, &x, 1, &y, &b);
  assert_true(b.g->ops[0].const_folded);
  assert_int_equal(b.g->n_const_folded, 1);
  const mp_tensor *st = &b.g->tensors[s];
  assert_int_equal(st->role, MP_ROLE_CONSTANT);
  assert_non_null(st->data);
  int32_t got[3];
  memcpy(got, st->data, sizeof got);
  const int32_t want[3] = {2, 7, 3};
  assert_memory_equal(got, want, sizeof want);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_true(lo.noop);
  drop(&b);
}

static void check_all_lists_every_unsupported_operator(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  int32_t a = add_tensor(w, &(spec){.name = "a",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 2,
                                    .shape = {1, 4},
                                    .n_scale = 1,
                                    .scale = {0.5f},
                                    .zp = 0});
  int32_t m1 = add_tensor(w, &(spec){.name = "m1",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {1, 4},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = 0});
  int32_t m2 = add_tensor(w, &(spec){.name = "m2",
                                     .dtype = MP_DTYPE_INT8,
                                     .rank = 2,
                                     .shape = {1, 4},
                                     .n_scale = 1,
                                     .scale = {0.5f},
                                     .zp = 0});
  int32_t s = add_tensor(w, &(spec){.name = "s",
                                    .dtype = MP_DTYPE_INT8,
                                    .rank = 2,
                                    .shape = {1, 4},
                                    .n_scale = 1,
                                    .scale = {1.0f / 256},
                                    .zp = -128});
  /* two custom operators: memplan never has a kernel for one */
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = CUSTOM, .custom_code = "MP_TEST_CUSTOM",
                                .n_inputs = 2, .inputs = (const int32_t[]){a, a}, .n_outputs = 1,
                                .outputs = (const int32_t[]){m1}});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = CUSTOM, .custom_code = "MP_TEST_CUSTOM",
                                .n_inputs = 2, .inputs = (const int32_t[]){m1, a}, .n_outputs = 1,
                                .outputs = (const int32_t[]){m2}});
  add_op(w, SOFTMAX, 1, &m2, s, MP_TFW_OPT_SOFTMAX, 0, NULL);
  built b;
  finish(w, 1, &a, 1, &s, &b);
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_lower_check_all(b.g, &d.sink), MP_ERR_UNSUPPORTED);
  assert_true(tu_diags_has(&d, "operator 0 (MP_TEST_CUSTOM) is not supported: memplan has no "
                               "kernel for MP_TEST_CUSTOM; reads 0 'a' int8[1,4], 0 'a' "
                               "int8[1,4]; writes 1 'm1' int8[1,4]"));
  assert_true(tu_diags_has(&d, "operator 1 (MP_TEST_CUSTOM) is not supported"));
  /* beta 0 (the schema default) makes the softmax unsupported too */
  assert_true(tu_diags_has(&d, "operator 2 (SOFTMAX) is not supported: beta * input scale too "
                               "small"));
  assert_true(tu_diags_has(&d, "3 of 3 operators are not supported (MP_TEST_CUSTOM, SOFTMAX)"));
  assert_int_equal(d.n_errors, 4);
  drop(&b);
}

static void kernel_names_cover_every_kernel(void **state) {
  (void)state;
  assert_string_equal(mp_kernel_fn(MP_K_NONE), "");
  for (int k = 1; k < MP_K_COUNT; k++) {
    const char *fn = mp_kernel_fn((mp_kernel)k);
    assert_true(strncmp(fn, "mpk_", 4) == 0);
  }
  assert_string_equal(mp_kernel_fn(MP_K_COUNT), "");
}

/* Every fixture and a few random DAGs: every op lowers to a kernel, to
 * "unsupported", or to a model error, never to a crash (ASan / UBSan). */
static void lowering_survives_every_fixture_and_random_graphs(void **state) {
  (void)state;
  uint32_t ops = 0, supported = 0;
  const char *const *names = fx_names();
  for (size_t i = 0; names[i]; i++) {
    mp_model *m = fx_model(names[i]);
    if (!m) continue; /* a fixture that must not parse */
    mp_graph *g = NULL;
    if (mp_graph_build(m, 0, NULL, NULL, &g) == MP_OK) {
      for (uint32_t o = 0; o < g->n_ops; o++, ops++) {
        mp_lowered_op lo;
        mp_status st = mp_lower_op(g, o, &lo, NULL);
        assert_true(st == MP_OK || st == MP_ERR_MODEL);
        supported += lo.supported;
        mp_lower_free(&lo);
      }
      mp_status st = mp_lower_check_all(g, NULL);
      assert_true(st == MP_OK || st == MP_ERR_UNSUPPORTED || st == MP_ERR_MODEL);
    }
    mp_graph_free(&g);
    mp_model_free(&m);
  }
  for (uint64_t seed = 1; seed <= 8; seed++) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fx_random(seed, 200, &bytes, &size), MP_OK);
    mp_model *m = NULL;
    mp_graph *g = NULL;
    assert_int_equal(mp_model_parse(bytes, size, "random", NULL, &m), MP_OK);
    free(bytes);
    assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
    for (uint32_t o = 0; o < g->n_ops; o++, ops++) {
      mp_lowered_op lo;
      mp_status st = mp_lower_op(g, o, &lo, NULL);
      assert_true(st == MP_OK || st == MP_ERR_MODEL);
      supported += lo.supported;
      mp_lower_free(&lo);
    }
    mp_graph_free(&g);
    mp_model_free(&m);
  }
  print_message("%u ops lowered, %u supported\n", ops, supported);
  assert_true(ops > 1000);
  assert_true(supported > 0);
}

/* ------------------------------------------------------------------------ */
/* Readying a graph for planning                                            */
/* ------------------------------------------------------------------------ */

static void kernels_prepare_adds_the_mean_scratch_and_the_plan_places_it(void **state) {
  (void)state;
  static const int32_t axes[2] = {1, 2};
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in", .dtype = MP_DTYPE_INT8, .rank = 4,
                                     .shape = {1, 8, 8, 16}, .n_scale = 1, .scale = {0.5f},
                                     .zp = 2});
  int32_t ax = add_tensor(w, &(spec){.name = "axes", .dtype = MP_DTYPE_INT32, .rank = 1,
                                     .shape = {2}, .n_scale = 0, .scale = {0}, .zp = 0,
                                     .data = axes, .bytes = 8});
  int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = MP_DTYPE_INT8, .rank = 4,
                                      .shape = {1, 1, 1, 16}, .n_scale = 1, .scale = {0.25f},
                                      .zp = -1});
  mp_tfw_option o[] = {{.field = 0, .type = MP_TFW_BOOL, .i = 1}};
  add_op(w, MEAN, 2, (const int32_t[]){in, ax}, out, 27 /* ReducerOptions */, 1, o);
  built b;
  finish(w, 1, &in, 1, &out, &b);
  uint64_t before = mp_graph_lower_bound(b.g, 16);
  assert_int_equal(before, 1024 + 16);
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_kernels_prepare(b.g, false, &d.sink), MP_OK);
  assert_int_equal(d.n_errors, 0);
  /* one op-local int32 accumulator per output element, live over [0, 0] */
  assert_int_equal(b.g->n_tensors, b.g->n_model_tensors + 1);
  const mp_tensor *s = &b.g->tensors[b.g->n_model_tensors];
  assert_int_equal(s->local_op, 0);
  assert_int_equal(s->size, 16 * 4);
  assert_string_equal(s->name, "op0_scratch");
  assert_int_equal(b.g->storage[s->id].start_op, 0);
  assert_int_equal(b.g->storage[s->id].end_op, 0);
  assert_int_equal(mp_graph_lower_bound(b.g, 16), before + 64);
  /* idempotent: a second call adds nothing */
  assert_int_equal(mp_kernels_prepare(b.g, false, &d.sink), MP_OK);
  assert_int_equal(b.g->n_tensors, b.g->n_model_tensors + 1);
  /* the planner places it beside the others */
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  char planner[] = "greedy";
  a.planner = planner;
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(b.g, &pf, &a, &d.sink, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_OK);
  const mp_allocation *al = mp_plan_get_allocation(p, s->id);
  assert_non_null(al);
  assert_int_equal(al->binding.role, MP_ROLE_SCRATCH);
  assert_int_equal(p->arenas[al->arena].lower_bound, before + 64);
  mp_plan_free(&p);
  drop(&b);
}

/* LSTM variants, as the converter writes them. */
enum { LSTM_CIFG = 1, LSTM_PEEPHOLE = 2, LSTM_PROJECTION = 4, LSTM_LAYER_NORM = 8 };

/* A one-step UNIDIRECTIONAL_SEQUENCE_LSTM of 2 cells over 2 inputs, int8
 * (int16 cell state, int32 biases) or float32, with the variant's optional
 * inputs present: CIFG drops the input gate's weights and bias, a
 * peephole adds the cell-to-gate vectors, a projection its [2, 2] matrix,
 * layer normalisation the per-gate coefficients. */
static void lstm_model(built *b, int32_t dt, int variant) {
  static int8_t w8[4] = {1, -2, 3, -4};
  static float wf[4] = {0.5f, -0.25f, 0.75f, -1.0f};
  static int32_t b32[2] = {10, -10};
  static float bf[2] = {0.1f, -0.1f};
  static int16_t v16[2] = {3, -3};
  static float vf[2] = {0.5f, 0.25f};
  const bool q = dt == MP_DTYPE_INT8;
  mp_tfw *w = mp_tfw_new();
  int32_t ins[24];
  for (int i = 0; i < 24; i++)
    ins[i] = -1;
  ins[0] = add_tensor(w, &(spec){.name = "in", .dtype = dt, .rank = 3, .shape = {1, 1, 2},
                                 .n_scale = q, .scale = {0.5f}, .zp = 0});
  for (int k = 1; k <= 23; k++) {
    bool want = (k >= 1 && k <= 8) || (k >= 12 && k <= 15);
    if (variant & LSTM_PEEPHOLE) want = want || (k >= 9 && k <= 11);
    if (variant & LSTM_PROJECTION) want = want || k == 16;
    if (variant & LSTM_LAYER_NORM) want = want || k >= 20;
    if ((variant & LSTM_CIFG) && (k == 1 || k == 5 || k == 9 || k == 12 || k == 20)) want = false;
    if (!want) continue;
    bool matrix = k <= 8 || k == 16, bias = k >= 12 && k <= 15;
    spec t = {.name = "k", .dtype = dt, .rank = matrix ? 2 : 1, .shape = {2, 2},
              .n_scale = q, .scale = {0.0625f}, .zp = 0};
    if (matrix) {
      t.data = q ? (const void *)w8 : (const void *)wf;
      t.bytes = q ? sizeof w8 : sizeof wf;
    } else if (bias) {
      t.dtype = q ? MP_DTYPE_INT32 : dt;
      t.data = q ? (const void *)b32 : (const void *)bf;
      t.bytes = sizeof b32;
    } else { /* peephole and layer-norm vectors */
      t.dtype = q ? MP_DTYPE_INT16 : dt;
      t.data = q ? (const void *)v16 : (const void *)vf;
      t.bytes = q ? sizeof v16 : sizeof vf;
    }
    ins[k] = add_tensor(w, &t);
  }
  for (int k = 18; k <= 19; k++) {
    int64_t zp = 0;
    float scale = k == 18 ? 0.5f : 1.0f / 2048.0f;
    mp_tfw_tensor t = {.name = k == 18 ? "hidden" : "cell",
                       .dtype = q && k == 19 ? MP_DTYPE_INT16 : dt,
                       .rank = 2,
                       .shape = (const int32_t[]){1, 2},
                       .is_variable = true,
                       .has_quant = q,
                       .quant = (mp_quant){1, &scale, 1, &zp, 0}};
    ins[k] = (int32_t)mp_tfw_add_tensor(w, &t);
  }
  int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = dt, .rank = 3, .shape = {1, 1, 2},
                                      .n_scale = q, .scale = {0.5f}, .zp = 0});
  mp_tfw_option o[] = {i8opt(0, 4 /* TANH */)};
  add_op(w, UNIDIRECTIONAL_SEQUENCE_LSTM, 24, ins, out, 71, 1, o);
  finish(w, 1, &ins[0], 1, &out, b);
}

/* TFLite Micro runs the standard LSTM only; the variants a converted
 * model may hold are refused, naming the feature, never run wrongly. */
static void lstm_variants_are_refused_naming_the_feature(void **state) {
  (void)state;
  static const struct {
    int variant;
    const char *reason;
  } cases[] = {{0, NULL},
               {LSTM_CIFG, "a coupled input and forget gate (CIFG)"},
               {LSTM_PEEPHOLE, "peephole connections"},
               {LSTM_CIFG | LSTM_PEEPHOLE, "peephole connections"},
               {LSTM_PROJECTION, "a projection layer"},
               {LSTM_LAYER_NORM, "layer normalisation"}};
  const int32_t dts[2] = {MP_DTYPE_INT8, MP_DTYPE_FLOAT32};
  for (int d = 0; d < 2; d++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      built b;
      lstm_model(&b, dts[d], cases[i].variant);
      mp_lowered_op lo;
      lower0(&b, &lo);
      if (!cases[i].reason) {
        if (!lo.supported) fail_msg("standard %s LSTM refused: %s", mp_dtype_name(dts[d]), lo.reason);
        assert_int_equal(lo.kernel, d == 0 ? MP_K_LSTM_S8 : MP_K_LSTM_F32);
      } else {
        assert_false(lo.supported);
        if (strcmp(lo.reason, cases[i].reason) != 0)
          fail_msg("%s LSTM variant %d: \"%s\", want \"%s\"", mp_dtype_name(dts[d]),
                   cases[i].variant, lo.reason, cases[i].reason);
      }
      mp_lower_free(&lo);
      drop(&b);
    }
}

static void kernels_prepare_lists_every_unsupported_op_or_warns_when_allowed(void **state) {
  (void)state;
  mp_model *m = fx_model("intermediates"); /* an LSTM: no kernel */
  assert_non_null(m);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_kernels_prepare(g, false, &d.sink), MP_ERR_UNSUPPORTED);
  assert_true(tu_diags_has(&d, "error: operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM) is not supported"));
  assert_true(tu_diags_has(&d, "reads "));
  assert_true(tu_diags_has(&d, "writes "));
  assert_true(tu_diags_has(&d, "--allow-unsupported"));
  tu_diags_init(&d);
  assert_int_equal(mp_kernels_prepare(g, true, &d.sink), MP_OK);
  assert_int_equal(d.n_errors, 0);
  assert_true(d.n_warnings >= 2);
  assert_true(tu_diags_has(&d, "warning: operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM) is not supported"));
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* ------------------------------------------------------------------------ */
/* 16x8 biases: TFLite's 64-bit requantisation range                        */
/* ------------------------------------------------------------------------ */

enum { TRANSPOSE_CONV_OP = 67, OPT_TRANSPOSE_CONV = 49 };

/* A 16x8 filter operator with two output channels: channel c's weight k
 * is filter[c * cstride + k * estride], and the input element it
 * multiplies is x[k] (x[k * 2 + c] for the depthwise convolution). */
typedef struct s16_case {
  int32_t code;
  uint32_t in_rank;
  int32_t in_shape[4], f_shape[4], out_shape[4];
  int32_t taps, cstride, estride;
} s16_case;

static const int8_t s16_filter[8] = {127, -128, 5, -3, 0, 100, -77, 64};

static int32_t s16_at(const s16_case *k, int32_t c, int32_t t) {
  return k->code == DEPTHWISE_CONV_2D ? t * 2 + c : t;
}

static void s16_model(built *b, const s16_case *k, const int64_t bias[2]) {
  mp_tfw *w = mp_tfw_new();
  const uint32_t out_rank = k->code == FULLY_CONNECTED ? 2 : 4;
  const int32_t n_f = k->f_shape[0] * k->f_shape[1] * (k->code == FULLY_CONNECTED ? 1 : k->f_shape[2] * k->f_shape[3]);
  int32_t shape = -1;
  if (k->code == TRANSPOSE_CONV_OP)
    shape = add_tensor(w, &(spec){.name = "shape", .dtype = MP_DTYPE_INT32, .rank = 1,
                                  .shape = {4}, .data = k->out_shape, .bytes = 16});
  spec si = {.name = "in", .dtype = MP_DTYPE_INT16, .rank = k->in_rank, .n_scale = 1,
             .scale = {0.5f}};
  spec sf = {.name = "filter", .dtype = MP_DTYPE_INT8, .rank = out_rank, .n_scale = 1,
             .scale = {0.25f}, .data = s16_filter, .bytes = (size_t)n_f};
  spec so = {.name = "out", .dtype = MP_DTYPE_INT16, .rank = out_rank, .n_scale = 1,
             .scale = {0.5f}};
  memcpy(si.shape, k->in_shape, sizeof k->in_shape);
  memcpy(sf.shape, k->f_shape, sizeof k->f_shape);
  memcpy(so.shape, k->out_shape, sizeof k->out_shape);
  int32_t in = add_tensor(w, &si), f = add_tensor(w, &sf), out = add_tensor(w, &so);
  int32_t bi = add_tensor(w, &(spec){.name = "bias", .dtype = MP_DTYPE_INT64, .rank = 1,
                                     .shape = {2}, .data = bias, .bytes = 16});
  if (k->code == FULLY_CONNECTED) {
    mp_tfw_option o[] = {i8opt(0, 0)};
    add_op(w, FULLY_CONNECTED, 3, (const int32_t[]){in, f, bi}, out, MP_TFW_OPT_FULLY_CONNECTED,
           1, o);
  } else if (k->code == CONV_2D) {
    mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i8opt(3, 0)};
    add_op(w, CONV_2D, 3, (const int32_t[]){in, f, bi}, out, MP_TFW_OPT_CONV2D, 4, o);
  } else if (k->code == DEPTHWISE_CONV_2D) {
    mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i32opt(3, 1), i8opt(4, 0)};
    add_op(w, DEPTHWISE_CONV_2D, 3, (const int32_t[]){in, f, bi}, out,
           MP_TFW_OPT_DEPTHWISE_CONV2D, 5, o);
  } else {
    mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i8opt(3, 0)};
    add_op(w, TRANSPOSE_CONV_OP, 4, (const int32_t[]){shape, f, in, bi}, out,
           OPT_TRANSPOSE_CONV, 4, o);
  }
  finish(w, 1, &in, 1, &out, b);
}

/* TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator, as its
 * common.cc writes it (x within [-2^47, 2^47), shift below 8). */
static int32_t tflite_mbqm64(int64_t x, int32_t m, int32_t shift) {
  const int64_t reduced = m < 0x7FFF0000 ? (m + (1 << 15)) >> 16 : 0x7FFF;
  const int64_t total_shift = 15 - shift;
  return (int32_t)((x * reduced + ((int64_t)1 << (total_shift - 1))) >> total_shift);
}

/* The lowered operator over x, against the sums computed here. */
static void s16_run(const s16_case *k, const mp_lowered_op *lo, const int16_t *x,
                    const int64_t bias[2], int64_t acc_want[2]) {
  int16_t out[2], fast[2];
  int64_t scratch[16]; /* the transpose convolution's sums, the fast convolution's columns */
  int32_t st = -1, st_fast = MPK_OK;
  if (k->code == FULLY_CONNECTED) {
    st = mpk_fully_connected_s16(&lo->params.fc_s8, x, s16_filter, bias, out, NULL);
    st_fast = mpk_fully_connected_s16_fast(&lo->params.fc_s8, x, s16_filter, bias, fast, scratch);
  } else if (k->code == CONV_2D) {
    st = mpk_conv2d_s16(&lo->params.conv_s8, x, s16_filter, bias, out, NULL);
    st_fast = mpk_conv2d_s16_fast(&lo->params.conv_s8, x, s16_filter, bias, fast, scratch);
  } else if (k->code == DEPTHWISE_CONV_2D) {
    st = mpk_depthwise_conv2d_s16(&lo->params.conv_s8, x, s16_filter, bias, out, NULL);
    st_fast = mpk_depthwise_conv2d_s16_fast(&lo->params.conv_s8, x, s16_filter, bias, fast,
                                            scratch);
  } else {
    st = mpk_transpose_conv_s16(&lo->params.transpose_conv, x, s16_filter, bias, out, scratch);
    memcpy(fast, out, sizeof out);
  }
  if (st != MPK_OK || st_fast != MPK_OK)
    fail_msg("operator %d: kernel status %d, fast %d", k->code, st, st_fast);
  for (int32_t c = 0; c < 2; c++) {
    int64_t acc = bias[c];
    for (int32_t t = 0; t < k->taps; t++)
      acc += (int64_t)s16_filter[c * k->cstride + t * k->estride] * x[s16_at(k, c, t)];
    if (acc_want[c] != INT64_MIN) assert_true(acc == acc_want[c]);
    const int32_t m = k->code == TRANSPOSE_CONV_OP ? lo->params.transpose_conv.multiplier[c]
                      : k->code == FULLY_CONNECTED ? lo->params.fc_s8.q.multiplier[0]
                                                   : lo->params.conv_s8.q.multiplier[c];
    const int32_t sh = k->code == TRANSPOSE_CONV_OP ? lo->params.transpose_conv.shift[c]
                       : k->code == FULLY_CONNECTED ? lo->params.fc_s8.q.shift[0]
                                                    : lo->params.conv_s8.q.shift[c];
    int32_t v = tflite_mbqm64(acc, m, sh);
    v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
    if (out[c] != v || fast[c] != v)
      fail_msg("operator %d channel %d: accumulator %lld gives %d (fast %d), TFLite %d", k->code,
               c, (long long)acc, out[c], fast[c], v);
  }
}

static void sixteen_by_eight_biases_are_taken_up_to_the_requantisation_range(void **state) {
  (void)state;
  static const s16_case cases[] = {
      {FULLY_CONNECTED, 2, {1, 4}, {2, 4}, {1, 2}, 4, 4, 1},
      {CONV_2D, 4, {1, 1, 2, 2}, {2, 1, 2, 2}, {1, 1, 1, 2}, 4, 4, 1},
      {DEPTHWISE_CONV_2D, 4, {1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1, 1, 2}, 2, 1, 2},
      {TRANSPOSE_CONV_OP, 4, {1, 1, 1, 2}, {2, 1, 1, 2}, {1, 1, 1, 2}, 2, 2, 1},
  };
  const int64_t top = ((int64_t)1 << 47) - 1, bottom = -((int64_t)1 << 47);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const s16_case *k = &cases[i];
    /* each channel's extreme sums, over every corner of the int16 box */
    int64_t hi[2] = {INT64_MIN, INT64_MIN}, lo_sum[2] = {INT64_MAX, INT64_MAX};
    for (int32_t c = 0; c < 2; c++)
      for (uint32_t corner = 0; corner < (1u << k->taps); corner++) {
        int64_t s = 0;
        for (int32_t t = 0; t < k->taps; t++)
          s += (int64_t)s16_filter[c * k->cstride + t * k->estride] *
               ((corner >> t & 1u) ? 32767 : -32768);
        hi[c] = s > hi[c] ? s : hi[c];
        lo_sum[c] = s < lo_sum[c] ? s : lo_sum[c];
      }
    /* just inside: channel 0 can reach 2^47 - 1, channel 1 -2^47 */
    int64_t bias[2] = {top - hi[0], bottom - lo_sum[1]};
    built b;
    s16_model(&b, k, bias);
    mp_lowered_op lo;
    lower0(&b, &lo);
    if (!lo.supported) fail_msg("operator %d just inside the range: %s", k->code, lo.reason);
    int16_t x[4] = {0, 0, 0, 0};
    for (int32_t t = 0; t < k->taps; t++)
      x[s16_at(k, 0, t)] = s16_filter[t * k->estride] > 0 ? 32767 : -32768;
    s16_run(k, &lo, x, bias, (int64_t[]){top, INT64_MIN});
    memset(x, 0, sizeof x);
    for (int32_t t = 0; t < k->taps; t++)
      x[s16_at(k, 1, t)] = s16_filter[k->cstride + t * k->estride] > 0 ? -32768 : 32767;
    s16_run(k, &lo, x, bias, (int64_t[]){INT64_MIN, bottom});
    mp_lower_free(&lo);
    drop(&b);
    /* one beyond, on either side */
    for (int side = 0; side < 2; side++) {
      int64_t out_bias[2] = {bias[0] + (side == 0), bias[1] - (side == 1)};
      s16_model(&b, k, out_bias);
      lower0(&b, &lo);
      assert_false(lo.supported);
      char want[192];
      snprintf(want, sizeof want,
               "output channel %d: int64 bias %lld plus sums in [%lld, %lld] leaves [-2^47, "
               "2^47), the range of TFLite's 64-bit requantisation",
               side, (long long)out_bias[side], (long long)lo_sum[side], (long long)hi[side]);
      if (strcmp(lo.reason, want) != 0)
        fail_msg("operator %d: \"%s\", want \"%s\"", k->code, lo.reason, want);
      mp_lower_free(&lo);
      drop(&b);
    }
  }
}

/* TFLite Micro's CONV_2D runs a 16x8 convolution without a bias or with
 * an int32 one with an int32 accumulator and the int8 requantisation, and
 * one with an int64 bias in 64 bits; its DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED and TRANSPOSE_CONV run every 16x8 case in 64 bits (and
 * take no int32 bias).  bias_dtype -1: none. */
static void s16_bias_model(built *b, int32_t code, int32_t bias_dtype) {
  static const int8_t f[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  static const int64_t b64[2] = {100, -100};
  static const int32_t b32[2] = {100, -100}, out_shape[4] = {1, 1, 1, 2};
  mp_tfw *w = mp_tfw_new();
  const bool fc = code == FULLY_CONNECTED, dw = code == DEPTHWISE_CONV_2D,
             tc = code == TRANSPOSE_CONV_OP;
  int32_t shape = tc ? add_tensor(w, &(spec){.name = "shape", .dtype = MP_DTYPE_INT32, .rank = 1,
                                             .shape = {4}, .data = out_shape, .bytes = 16})
                     : -1;
  spec si = {.name = "in", .dtype = MP_DTYPE_INT16, .rank = fc ? 2 : 4,
             .shape = {1, 1, tc ? 1 : 2, 2}, .n_scale = 1, .scale = {0.5f}};
  if (fc) si.shape[0] = 1, si.shape[1] = 4;
  spec sf = {.name = "filter", .dtype = MP_DTYPE_INT8, .rank = fc ? 2 : 4,
             .shape = {dw ? 1 : 2, 1, tc ? 1 : 2, dw ? 2 : tc ? 2 : 2}, .n_scale = 1,
             .scale = {0.25f}, .data = f, .bytes = tc || dw ? 4 : 8};
  if (fc) sf.shape[0] = 2, sf.shape[1] = 4, sf.bytes = 8;
  spec so = {.name = "out", .dtype = MP_DTYPE_INT16, .rank = fc ? 2 : 4, .shape = {1, 1, 1, 2},
             .n_scale = 1, .scale = {0.5f}};
  if (fc) so.shape[0] = 1, so.shape[1] = 2;
  int32_t in = add_tensor(w, &si), fi = add_tensor(w, &sf), out = add_tensor(w, &so);
  int32_t bi = bias_dtype < 0 ? -1
               : add_tensor(w, &(spec){.name = "bias", .dtype = bias_dtype, .rank = 1,
                                       .shape = {2},
                                       .data = bias_dtype == MP_DTYPE_INT64 ? (const void *)b64
                                                                            : (const void *)b32,
                                       .bytes = bias_dtype == MP_DTYPE_INT64 ? 16u : 8u});
  if (fc) {
    add_op(w, FULLY_CONNECTED, 3, (const int32_t[]){in, fi, bi}, out, MP_TFW_OPT_FULLY_CONNECTED,
           1, (mp_tfw_option[]){i8opt(0, 0)});
  } else if (code == CONV_2D) {
    mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i8opt(3, 0)};
    add_op(w, CONV_2D, 3, (const int32_t[]){in, fi, bi}, out, MP_TFW_OPT_CONV2D, 4, o);
  } else if (dw) {
    mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i32opt(3, 1), i8opt(4, 0)};
    add_op(w, DEPTHWISE_CONV_2D, 3, (const int32_t[]){in, fi, bi}, out,
           MP_TFW_OPT_DEPTHWISE_CONV2D, 5, o);
  } else {
    mp_tfw_option o[] = {i8opt(0, 1), i32opt(1, 1), i32opt(2, 1), i8opt(3, 0)};
    add_op(w, TRANSPOSE_CONV_OP, 4, (const int32_t[]){shape, fi, in, bi}, out,
           OPT_TRANSPOSE_CONV, 4, o);
  }
  finish(w, 1, &in, 1, &out, b);
}

static void conv16_without_or_with_an_int32_bias_runs_in_32_bits(void **state) {
  (void)state;
  static const struct {
    int32_t code, bias_dtype;
    mp_kernel generic, m55; /* MP_K_NONE: refused */
  } cases[] = {
      {CONV_2D, -1, MP_K_CONV2D_S16_ACC32, MP_K_CONV2D_S16_ACC32_FAST},
      {CONV_2D, MP_DTYPE_INT32, MP_K_CONV2D_S16_ACC32, MP_K_CONV2D_S16_ACC32_FAST},
      {CONV_2D, MP_DTYPE_INT64, MP_K_CONV2D_S16, MP_K_CONV2D_S16_FAST},
      {DEPTHWISE_CONV_2D, -1, MP_K_DEPTHWISE_CONV2D_S16, MP_K_DEPTHWISE_CONV2D_S16_FAST},
      {DEPTHWISE_CONV_2D, MP_DTYPE_INT32, MP_K_NONE, MP_K_NONE},
      {FULLY_CONNECTED, -1, MP_K_FULLY_CONNECTED_S16, MP_K_FULLY_CONNECTED_S16_FAST},
      {FULLY_CONNECTED, MP_DTYPE_INT32, MP_K_NONE, MP_K_NONE},
      {TRANSPOSE_CONV_OP, -1, MP_K_TRANSPOSE_CONV_S16, MP_K_TRANSPOSE_CONV_S16},
      {TRANSPOSE_CONV_OP, MP_DTYPE_INT32, MP_K_NONE, MP_K_NONE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int t = 0; t < 2; t++) {
      built b;
      s16_bias_model(&b, cases[i].code, cases[i].bias_dtype);
      b.g->target = t ? MP_TARGET_CORTEX_M55 : MP_TARGET_GENERIC;
      mp_lowered_op lo;
      lower0(&b, &lo);
      const mp_kernel want = t ? cases[i].m55 : cases[i].generic;
      if (want == MP_K_NONE) {
        if (lo.supported) fail_msg("case %zu: lowered to %s, want a refusal", i, lo.fn);
      } else {
        if (!lo.supported) fail_msg("case %zu target %d: %s", i, t, lo.reason);
        if (lo.kernel != want)
          fail_msg("case %zu target %d: %s, want %s", i, t, lo.fn, mp_kernel_fn(want));
        if (want == MP_K_CONV2D_S16_ACC32 || want == MP_K_CONV2D_S16_ACC32_FAST) {
          assert_string_equal(lo.args[2].ctype, "const int32_t *");
          assert_int_equal(lo.args[2].tensor, cases[i].bias_dtype < 0 ? -1 : 3);
        }
      }
      mp_lower_free(&lo);
      drop(&b);
    }
}

/* An int8 -> int8 elementwise operator on a Cortex-M target becomes a
 * lookup of its 256 outputs (mpk_lut_s8); on the generic target it keeps
 * its reference kernel.  Both lowerings run on every int8 value, as an
 * array of all 256 and in place: the lookup gives the reference kernel's
 * bytes.  (TFLM's own outputs for these operators are the conformance
 * suite's, on the Cortex-M55.)  A clamp of the stored integers (RELU6 at
 * one scale) keeps its kernel. */
static void int8_elementwise_ops_become_a_table_on_cortex_m(void **state) {
  (void)state;
  static const struct {
    int32_t code;
    float si, so;
    int64_t zi, zo;
    bool lut;
  } cases[] = {
      {LOGISTIC, 0.1f, 1.0f / 256.0f, 3, -128, true},
      {LOGISTIC, 0.0002f, 1.0f / 256.0f, -7, -128, true},
      {28 /* TANH */, 0.05f, 1.0f / 128.0f, -1, 0, true},
      {117 /* HARD_SWISH */, 0.04f, 0.03f, 10, -20, true},
      {QUANTIZE, 0.5f, 0.3f, 5, -9, true},
      {RELU_OP, 0.2f, 0.1f, -3, -128, true},
      {RELU6_OP, 0.05f, 0.05f, -128, -128, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int8_t ref[256], got[256], x[256];
    for (int t = 0; t < 2; t++) {
      mp_tfw *w = mp_tfw_new();
      int32_t in = add_tensor(w, &(spec){.name = "in", .dtype = MP_DTYPE_INT8, .rank = 2,
                                         .shape = {16, 16}, .n_scale = 1, .scale = {cases[i].si},
                                         .zp = cases[i].zi});
      int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = MP_DTYPE_INT8, .rank = 2,
                                          .shape = {16, 16}, .n_scale = 1, .scale = {cases[i].so},
                                          .zp = cases[i].zo});
      add_op(w, cases[i].code, 1, &in, out, 0, 0, NULL);
      built b;
      finish(w, 1, &in, 1, &out, &b);
      b.g->target = t ? MP_TARGET_CORTEX_M55 : MP_TARGET_GENERIC;
      mp_lowered_op lo;
      lower0(&b, &lo);
      if (!lo.supported) fail_msg("case %zu: %s", i, lo.reason);
      bool is_lut = lo.kernel == MP_K_LUT_S8;
      if (is_lut != (t && cases[i].lut))
        fail_msg("case %zu target %d: lowered to %s", i, t, lo.fn);
      for (int32_t v = 0; v < 256; v++) x[v] = (int8_t)(127 - v);
      int8_t *y = t ? got : ref;
      void *args[2] = {x, y};
      assert_int_equal(mp_lower_eval(&lo, args, NULL), MP_OK);
      if (is_lut) {
        /* in place: each element read before it is written */
        assert_int_equal(lo.n_overlaps, 1);
        int8_t z[256];
        memcpy(z, x, sizeof z);
        assert_int_equal(mpk_lut_s8(&lo.params.lut_s8, z, z, NULL), MPK_OK);
        assert_memory_equal(z, got, sizeof z);
      }
      mp_lower_free(&lo);
      drop(&b);
    }
    for (int32_t v = 0; v < 256; v++)
      if (got[v] != ref[v])
        fail_msg("case %zu: input %d gives %d, the reference kernel %d", i, x[v], got[v], ref[v]);
  }
}

/* TFLite's 64-bit requantisation shifts right by 15 - shift: a 16x8 scale
 * of 2^7 or more is refused; so is an int16 BATCH_MATMUL deep enough for
 * its sums to reach 2^47. */
static void sixteen_bit_requantisation_limits_are_refused_by_name(void **state) {
  (void)state;
  static const int8_t f[4] = {1, 2, 3, 4};
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in", .dtype = MP_DTYPE_INT16, .rank = 2,
                                     .shape = {1, 2}, .n_scale = 1, .scale = {1.0f}});
  int32_t fi = add_tensor(w, &(spec){.name = "f", .dtype = MP_DTYPE_INT8, .rank = 2,
                                     .shape = {2, 2}, .n_scale = 1, .scale = {1.0f},
                                     .data = f, .bytes = 4});
  int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = MP_DTYPE_INT16, .rank = 2,
                                      .shape = {1, 2}, .n_scale = 1, .scale = {1.0f / 256.0f}});
  add_op(w, FULLY_CONNECTED, 3, (const int32_t[]){in, fi, -1}, out, MP_TFW_OPT_FULLY_CONNECTED, 1,
         (mp_tfw_option[]){i8opt(0, 0)});
  built b;
  finish(w, 1, &in, 1, &out, &b);
  mp_lowered_op lo;
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "output channel 0: a 16x8 scale of 2^7 or more");
  mp_lower_free(&lo);
  drop(&b);

  for (int32_t depth = 131071; depth <= 131072; depth++) {
    w = mp_tfw_new();
    int32_t l = add_tensor(w, &(spec){.name = "l", .dtype = MP_DTYPE_INT16, .rank = 2,
                                      .shape = {1, depth}, .n_scale = 1, .scale = {1.0f}});
    int32_t r = add_tensor(w, &(spec){.name = "r", .dtype = MP_DTYPE_INT16, .rank = 2,
                                      .shape = {depth, 1}, .n_scale = 1, .scale = {1.0f}});
    int32_t o = add_tensor(w, &(spec){.name = "o", .dtype = MP_DTYPE_INT16, .rank = 2,
                                      .shape = {1, 1}, .n_scale = 1, .scale = {1.0f}});
    add_op(w, BATCH_MATMUL_OP, 2, (const int32_t[]){l, r}, o, 0, 0, NULL);
    finish(w, 2, (const int32_t[]){l, r}, 1, &o, &b);
    lower0(&b, &lo);
    if (depth == 131071) {
      assert_true(lo.supported);
    } else {
      assert_false(lo.supported);
      assert_string_equal(lo.reason,
                          "int16 depth 131072: sums of products reach 2^47, beyond the range of "
                          "TFLite's 64-bit requantisation (depth 131071 at most)");
    }
    mp_lower_free(&lo);
    drop(&b);
  }
}

/* ------------------------------------------------------------------------ */
/* DEPTH_TO_SPACE and SPACE_TO_DEPTH                                        */
/* ------------------------------------------------------------------------ */

/* A one-op DEPTH_TO_SPACE or SPACE_TO_DEPTH model, input scale 0.5 zero
 * point 3 and output scale `so` (quantised types only). */
static void block_model(built *b, int32_t code, int32_t dt, const int32_t *ish,
                        const int32_t *osh, int64_t block, float so) {
  bool q = dt != MP_DTYPE_FLOAT32;
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in", .dtype = dt, .rank = 4,
                                     .shape = {ish[0], ish[1], ish[2], ish[3]},
                                     .n_scale = q ? 1 : 0, .scale = {0.5f}, .zp = 3});
  int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = dt, .rank = 4,
                                      .shape = {osh[0], osh[1], osh[2], osh[3]},
                                      .n_scale = q ? 1 : 0, .scale = {so}, .zp = 3});
  mp_tfw_option bs = i32opt(0, block);
  add_op(w, code, 1, &in, out, code == DEPTH_TO_SPACE_OP ? OPT_DEPTH_TO_SPACE : OPT_SPACE_TO_DEPTH,
         1, &bs);
  finish(w, 1, &in, 1, &out, b);
}

/* Lower the model and run its kernel on `in` (n elements of es bytes). */
static void run_block_model(built *b, const void *in, void *out, size_t bytes) {
  mp_lowered_op lo;
  lower0(b, &lo);
  assert_true(lo.supported);
  assert_int_equal(lo.kernel, MP_K_STRIDED_COPY);
  assert_int_equal(lo.n_args, 2);
  memset(out, 0x5a, bytes);
  assert_int_equal(mpk_strided_copy(&lo.params.strided_copy, in, out, NULL), MPK_OK);
  mp_lower_free(&lo);
}

static void depth_to_space_and_space_to_depth_move_blocks(void **state) {
  (void)state;
  /* DEPTH_TO_SPACE, block 2, [1,1,2,4] -> [1,2,4,1]:
   *   out[0][i][2w + j][0] = in[0][0][w][2i + j]
   * in[0][0][w][c] = 10w + c, so output row i = 0 reads channels 0, 1 of
   * w = 0 then of w = 1: 0 1 10 11; row i = 1 channels 2, 3: 2 3 12 13.
   * SPACE_TO_DEPTH of that output gives the input back. */
  static const int32_t packed[8] = {0, 1, 2, 3, 10, 11, 12, 13};
  static const int32_t spread[8] = {0, 1, 10, 11, 2, 3, 12, 13};
  static const int32_t dts[3] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_FLOAT32};
  for (int t = 0; t < 3; t++) {
    for (int dir = 0; dir < 2; dir++) {
      bool d2s = dir == 0;
      const int32_t *src = d2s ? packed : spread, *want = d2s ? spread : packed;
      union {
        int8_t i8[8];
        int16_t i16[8];
        float f32[8];
      } in, out, exp;
      for (int k = 0; k < 8; k++) {
        if (dts[t] == MP_DTYPE_INT8) {
          in.i8[k] = (int8_t)src[k];
          exp.i8[k] = (int8_t)want[k];
        } else if (dts[t] == MP_DTYPE_INT16) {
          in.i16[k] = (int16_t)(src[k] * 1000);
          exp.i16[k] = (int16_t)(want[k] * 1000);
        } else {
          in.f32[k] = (float)src[k] + 0.25f;
          exp.f32[k] = (float)want[k] + 0.25f;
        }
      }
      built b;
      block_model(&b, d2s ? DEPTH_TO_SPACE_OP : SPACE_TO_DEPTH_OP, dts[t],
                  d2s ? (const int32_t[]){1, 1, 2, 4} : (const int32_t[]){1, 2, 4, 1},
                  d2s ? (const int32_t[]){1, 2, 4, 1} : (const int32_t[]){1, 1, 2, 4}, 2, 0.5f);
      size_t bytes = 8 * (size_t)(dts[t] == MP_DTYPE_INT8 ? 1 : dts[t] == MP_DTYPE_INT16 ? 2 : 4);
      run_block_model(&b, &in, &out, sizeof out);
      assert_memory_equal(&out, &exp, bytes);
      drop(&b);
    }
  }

  /* SPACE_TO_DEPTH, float32, block 2, [1,2,4,2] -> [1,1,2,8]:
   *   out[0][0][w][(2i + j)*2 + k] = in[0][i][2w + j][k]
   * with in[0][h][x][k] = 100h + 10x + k: for w = 0, (i, j) = (0,0) (0,1)
   * (1,0) (1,1) read x = 0, 1, 0, 1 of rows 0, 0, 1, 1; for w = 1 x = 2, 3. */
  {
    float in[16], out[16];
    for (int h = 0; h < 2; h++)
      for (int x = 0; x < 4; x++)
        for (int k = 0; k < 2; k++)
          in[(h * 4 + x) * 2 + k] = (float)(100 * h + 10 * x + k);
    static const float want[16] = {0,  1,  10, 11, 100, 101, 110, 111,
                                   20, 21, 30, 31, 120, 121, 130, 131};
    built b;
    block_model(&b, SPACE_TO_DEPTH_OP, MP_DTYPE_FLOAT32, (const int32_t[]){1, 2, 4, 2},
                (const int32_t[]){1, 1, 2, 8}, 2, 0.5f);
    run_block_model(&b, in, out, sizeof out);
    assert_memory_equal(out, want, sizeof want);
    drop(&b);
    /* and DEPTH_TO_SPACE takes it back */
    float back[16];
    block_model(&b, DEPTH_TO_SPACE_OP, MP_DTYPE_FLOAT32, (const int32_t[]){1, 1, 2, 8},
                (const int32_t[]){1, 2, 4, 2}, 2, 0.5f);
    run_block_model(&b, want, back, sizeof back);
    assert_memory_equal(back, in, sizeof in);
    drop(&b);
  }
}

static void depth_to_space_refusals_name_the_reason(void **state) {
  (void)state;
  built b;
  mp_lowered_op lo;
  /* a rescale is no data movement */
  block_model(&b, DEPTH_TO_SPACE_OP, MP_DTYPE_INT8, (const int32_t[]){1, 1, 2, 4},
              (const int32_t[]){1, 2, 4, 1}, 2, 0.25f);
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "input scale 0.5 zero point 3, output scale 0.25 zero point 3: a "
                                 "data-movement operator needs one quantisation on both sides");
  mp_lower_free(&lo);
  drop(&b);
  block_model(&b, SPACE_TO_DEPTH_OP, MP_DTYPE_INT32, (const int32_t[]){1, 2, 4, 1},
              (const int32_t[]){1, 1, 2, 4}, 2, 0.5f);
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "element type int32 (supported: int8, int16, float32)");
  mp_lower_free(&lo);
  drop(&b);
  /* model errors: block_size 0, channels not a multiple of 4, heights not
   * a multiple of the block, an output shape the operator does not give */
  struct {
    int32_t code, ish[4], osh[4];
    int64_t block;
  } bad[] = {
      {DEPTH_TO_SPACE_OP, {1, 1, 2, 4}, {1, 2, 4, 1}, 0},
      {DEPTH_TO_SPACE_OP, {1, 1, 2, 6}, {1, 2, 4, 1}, 2},
      {SPACE_TO_DEPTH_OP, {1, 3, 4, 1}, {1, 1, 2, 4}, 2},
      {SPACE_TO_DEPTH_OP, {1, 2, 4, 1}, {1, 2, 1, 4}, 2},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    block_model(&b, bad[k].code, MP_DTYPE_FLOAT32, bad[k].ish, bad[k].osh, bad[k].block, 0.5f);
    tu_diags d;
    tu_diags_init(&d);
    assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_ERR_MODEL);
    mp_lower_free(&lo);
    drop(&b);
  }
}

/* A one-op MIRROR_PAD model: input [2,3], paddings [[1,1],[2,2]] (int32,
 * or int64 when wide) unless `pads` is given, output [4,7]; quantised
 * types: input scale 0.5 zero point 3, output scale `so`. */
static void mirror_model(built *b, int32_t dt, int64_t mode, bool wide, const int32_t *pads,
                         const int32_t *osh, float so) {
  static const int32_t pad32[4] = {1, 1, 2, 2};
  static const int64_t pad64[4] = {1, 1, 2, 2};
  bool q = dt != MP_DTYPE_FLOAT32;
  mp_tfw *w = mp_tfw_new();
  int32_t in = add_tensor(w, &(spec){.name = "in", .dtype = dt, .rank = 2, .shape = {2, 3},
                                     .n_scale = q ? 1 : 0, .scale = {0.5f}, .zp = 3});
  int32_t pd = add_tensor(w, &(spec){.name = "pads", .dtype = wide ? MP_DTYPE_INT64 : MP_DTYPE_INT32,
                                     .rank = 2, .shape = {2, 2},
                                     .data = pads ? (const void *)pads
                                                  : wide ? (const void *)pad64 : (const void *)pad32,
                                     .bytes = wide ? 32 : 16});
  int32_t out = add_tensor(w, &(spec){.name = "out", .dtype = dt, .rank = 2,
                                      .shape = {osh ? osh[0] : 4, osh ? osh[1] : 7},
                                      .n_scale = q ? 1 : 0, .scale = {so}, .zp = 3});
  mp_tfw_option m = i8opt(0, mode);
  add_op(w, MIRROR_PAD_OP, 2, (const int32_t[]){in, pd}, out, OPT_MIRROR_PAD, 1, &m);
  finish(w, 1, &in, 1, &out, b);
}

static void mirror_pad_reflects_or_repeats_the_edge(void **state) {
  (void)state;
  /* TensorFlow's tf.pad example: t = [[1,2,3],[4,5,6]], paddings
   * [[1,1],[2,2]].  REFLECT mirrors about the edge element (rows -1, 2 ->
   * 1, 0; columns -2, -1, 3, 4 -> 2, 1, 1, 0); SYMMETRIC repeats it (rows
   * -1, 2 -> 0, 1; columns -2, -1, 3, 4 -> 1, 0, 2, 1). */
  static const int32_t t[6] = {1, 2, 3, 4, 5, 6};
  static const int32_t reflect[28] = {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1,
                                      6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1};
  static const int32_t symmetric[28] = {2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2,
                                        5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5};
  static const int32_t dts[3] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_FLOAT32};
  for (int k = 0; k < 3; k++) {
    for (int mode = 0; mode < 2; mode++) {
      const int32_t *want = mode == 0 ? reflect : symmetric;
      union {
        int8_t i8[28];
        int16_t i16[28];
        float f32[28];
      } in, out, exp;
      memset(&in, 0, sizeof in);
      memset(&exp, 0, sizeof exp);
      for (int i = 0; i < 28; i++) {
        if (dts[k] == MP_DTYPE_INT8) {
          if (i < 6) in.i8[i] = (int8_t)t[i];
          exp.i8[i] = (int8_t)want[i];
        } else if (dts[k] == MP_DTYPE_INT16) {
          if (i < 6) in.i16[i] = (int16_t)(t[i] * 1000);
          exp.i16[i] = (int16_t)(want[i] * 1000);
        } else {
          if (i < 6) in.f32[i] = (float)t[i] + 0.5f;
          exp.f32[i] = (float)want[i] + 0.5f;
        }
      }
      built b;
      mirror_model(&b, dts[k], mode, k == 1, NULL, NULL, 0.5f);
      mp_lowered_op lo;
      lower0(&b, &lo);
      assert_true(lo.supported);
      assert_int_equal(lo.kernel, MP_K_MIRROR_PAD);
      assert_int_equal(lo.n_args, 2);
      memset(&out, 0x5a, sizeof out);
      assert_int_equal(mpk_mirror_pad(&lo.params.mirror_pad, &in, &out, NULL), MPK_OK);
      size_t es = dts[k] == MP_DTYPE_INT8 ? 1 : dts[k] == MP_DTYPE_INT16 ? 2 : 4;
      assert_memory_equal(&out, &exp, 28 * es);
      mp_lower_free(&lo);
      drop(&b);
    }
  }
}

static void mirror_pad_refusals_name_the_reason(void **state) {
  (void)state;
  built b;
  mp_lowered_op lo;
  mirror_model(&b, MP_DTYPE_INT8, 0, false, NULL, NULL, 0.25f);
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "input scale 0.5 zero point 3, output scale 0.25 zero point 3: a "
                                 "data-movement operator needs one quantisation on both sides");
  mp_lower_free(&lo);
  drop(&b);
  mirror_model(&b, MP_DTYPE_INT32, 0, false, NULL, NULL, 0.5f);
  lower0(&b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "element type int32 (supported: int8, int16, float32)");
  mp_lower_free(&lo);
  drop(&b);
  /* columns of 3: REFLECT pads at most 2, SYMMETRIC 3; mode 2 is no mode */
  static const int32_t three[4] = {0, 0, 3, 0};
  mirror_model(&b, MP_DTYPE_FLOAT32, 1, false, three, (const int32_t[]){2, 6}, 0.5f);
  lower0(&b, &lo);
  assert_true(lo.supported);
  mp_lower_free(&lo);
  drop(&b);
  struct {
    int64_t mode;
    const int32_t *pads;
  } bad[] = {{0, three}, {2, NULL}};
  for (size_t k = 0; k < 2; k++) {
    mirror_model(&b, MP_DTYPE_FLOAT32, bad[k].mode, false, bad[k].pads,
                 bad[k].pads ? (const int32_t[]){2, 6} : NULL, 0.5f);
    tu_diags d;
    tu_diags_init(&d);
    assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_ERR_MODEL);
    mp_lower_free(&lo);
    drop(&b);
  }
}

/* A one-op elementwise model: input and output [rows, cols] of `dt`;
 * quantised when si > 0 (input si / zi, output so / zo); L2_NORMALIZATION
 * with fused activation `act`. */
static void unary_math_model(built *b, int32_t code, int32_t dt, int32_t rows, int32_t cols,
                             float si, int64_t zi, float so, int64_t zo, int64_t act) {
  mp_tfw *w = mp_tfw_new();
  bool q = si > 0.0f;
  int32_t in = add_tensor(w, &(spec){.name = "x", .dtype = dt, .rank = 2, .shape = {rows, cols},
                                     .n_scale = q ? 1 : 0, .scale = {si}, .zp = zi});
  int32_t out = add_tensor(w, &(spec){.name = "y", .dtype = dt, .rank = 2, .shape = {rows, cols},
                                      .n_scale = q ? 1 : 0, .scale = {so}, .zp = zo});
  mp_tfw_option a = i8opt(0, act);
  if (code == L2_NORMALIZATION_OP)
    add_op(w, code, 1, &in, out, OPT_L2_NORM, 1, &a);
  else
    add_op(w, code, 1, &in, out, 0, 0, NULL);
  finish(w, 1, &in, 1, &out, b);
}

/* Bit for bit, but any NaN for a NaN. */
static bool same_float(float got, float want) {
  if (isnan(want)) return isnan(got);
  return memcmp(&got, &want, sizeof got) == 0;
}

/* The float32 operators on values worked out from their definitions
 * (TensorFlow's op docs; TFLM's reference kernels call the C library's
 * float functions): signed zeros, infinities, NaN, a negative SQRT / LOG
 * input, and ROUND's half-way cases, which go to the even neighbour
 * (TFLite's RoundToNearest: -0.5 and -0.25 give +0, -0 stays -0). */
static void float_unary_math_matches_worked_values(void **state) {
  (void)state;
  static const struct {
    int32_t code;
    int32_t n;
    float in[13], want[13];
  } cases[] = {
      {ABS_OP, 4, {-0.0f, -2.5f, 3.0f, -INFINITY}, {0.0f, 2.5f, 3.0f, INFINITY}},
      {NEG_OP, 4, {0.0f, -2.5f, 3.0f, INFINITY}, {-0.0f, 2.5f, -3.0f, -INFINITY}},
      {SQUARE_OP, 4, {-3.0f, 0.5f, -0.0f, 1e20f}, {9.0f, 0.25f, 0.0f, INFINITY}},
      {SQRT_OP, 4, {4.0f, 0.25f, -0.0f, -1.0f}, {2.0f, 0.5f, -0.0f, NAN}},
      {LOG_OP, 4, {1.0f, 0.0f, -1.0f, INFINITY}, {0.0f, -INFINITY, NAN, INFINITY}},
      {SIN_OP, 4, {0.0f, -0.0f, INFINITY, NAN}, {0.0f, -0.0f, NAN, NAN}},
      {COS_OP, 4, {0.0f, -0.0f, INFINITY, -INFINITY}, {1.0f, 1.0f, NAN, NAN}},
      {FLOOR_OP, 4, {-0.5f, 2.5f, -0.0f, -3.0f}, {-1.0f, 2.0f, -0.0f, -3.0f}},
      {CEIL_OP, 4, {-0.5f, 2.5f, -0.0f, 1.25f}, {-0.0f, 3.0f, -0.0f, 2.0f}},
      {ROUND_OP,
       13,
       {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, -0.25f, -0.0f, 3.7f, -3.7f, 1e30f, INFINITY,
        -INFINITY},
       {0.0f, 2.0f, 2.0f, 0.0f, -2.0f, -2.0f, 0.0f, -0.0f, 4.0f, -4.0f, 1e30f, INFINITY,
        -INFINITY}},
      {RELU_N1_TO_1_OP, 4, {-2.0f, -0.5f, 0.75f, 3.0f}, {-1.0f, -0.5f, 0.75f, 1.0f}},
      {RELU_0_TO_1_OP, 4, {-2.0f, -0.0f, 0.75f, 3.0f}, {0.0f, -0.0f, 0.75f, 1.0f}},
      /* x < 0: expm1(x), which is -1 at -inf and rounds to -1 at -100 */
      {ELU_OP, 4, {2.0f, -0.0f, -INFINITY, -100.0f}, {2.0f, -0.0f, -1.0f, -1.0f}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    built b;
    unary_math_model(&b, cases[k].code, MP_DTYPE_FLOAT32, 1, cases[k].n, 0.0f, 0, 0.0f, 0, 0);
    mp_lowered_op lo;
    lower0(&b, &lo);
    assert_true(lo.supported);
    assert_int_equal(lo.kernel, MP_K_UNARY_F32);
    float out[13];
    memset(out, 0x5a, sizeof out);
    assert_int_equal(mpk_unary_f32(&lo.params.unary_f32, cases[k].in, out, NULL), MPK_OK);
    for (int32_t i = 0; i < cases[k].n; i++)
      if (!same_float(out[i], cases[k].want[i]))
        fail_msg("op %d element %d: got %a, want %a", cases[k].code, i, (double)out[i],
                 (double)cases[k].want[i]);
    mp_lower_free(&lo);
    drop(&b);
  }
}

/* LOG_SOFTMAX and L2_NORMALIZATION, row by row over the last axis.
 * LOG_SOFTMAX of [1, 1] is -log 2 each; of [3, -inf] is [0, -inf] (the sum
 * exp(0) + exp(-inf) is exactly 1).  L2_NORMALIZATION of [3, 4] is
 * [3/5, 4/5]; of [0, 0] stays 0 (the norm floored at 1e-6); of [-1e-7, 0]
 * is [-1e-7 / 1e-6, 0]. */
static void float_row_ops_work_row_by_row(void **state) {
  (void)state;
  built b;
  mp_lowered_op lo;
  unary_math_model(&b, LOG_SOFTMAX_OP, MP_DTYPE_FLOAT32, 2, 2, 0.0f, 0, 0.0f, 0, 0);
  lower0(&b, &lo);
  assert_true(lo.supported);
  assert_int_equal(lo.params.unary_f32.depth, 2);
  const float ls_in[4] = {1.0f, 1.0f, 3.0f, -INFINITY};
  const float ls_want[4] = {-logf(2.0f), -logf(2.0f), 0.0f, -INFINITY};
  float out[6];
  assert_int_equal(mpk_unary_f32(&lo.params.unary_f32, ls_in, out, NULL), MPK_OK);
  for (int i = 0; i < 4; i++) assert_true(same_float(out[i], ls_want[i]));
  /* a row length the size is no multiple of is refused by the kernel */
  mpk_unary_f32_params bad = lo.params.unary_f32;
  bad.depth = 3;
  assert_int_equal(mpk_unary_f32(&bad, ls_in, out, NULL), MPK_ERR_PARAMS);
  bad.depth = 0;
  assert_int_equal(mpk_unary_f32(&bad, ls_in, out, NULL), MPK_ERR_PARAMS);
  mp_lower_free(&lo);
  drop(&b);
  unary_math_model(&b, L2_NORMALIZATION_OP, MP_DTYPE_FLOAT32, 3, 2, 0.0f, 0, 0.0f, 0, 0);
  lower0(&b, &lo);
  assert_true(lo.supported);
  const float l2_in[6] = {3.0f, 4.0f, 0.0f, 0.0f, -1e-7f, 0.0f};
  const float l2_want[6] = {0.6f, 0.8f, 0.0f, 0.0f, -1e-7f / 1e-6f, 0.0f};
  assert_int_equal(mpk_unary_f32(&lo.params.unary_f32, l2_in, out, NULL), MPK_OK);
  for (int i = 0; i < 6; i++) assert_true(same_float(out[i], l2_want[i]));
  mp_lower_free(&lo);
  drop(&b);
}

/* Quantised ABS (TFLM's AbsEvalQuantized): |x - in_zp|, requantised only
 * when the scales differ, + out_zp, saturated: |-128| is 128, which int8
 * holds as 127.  RELU_N1_TO_1 / RELU_0_TO_1 int8 (TFLite's QuantizedReluX):
 * requantise, then clamp to the output's integers of -1 (0) and 1. */
static void quantized_abs_and_relu_bounds_match_worked_values(void **state) {
  (void)state;
  static const struct {
    int32_t code, dt;
    float si;
    int64_t zi;
    float so;
    int64_t zo;
    int32_t in[5], want[5];
  } cases[] = {
      /* one scale: no rescale */
      {ABS_OP, MP_DTYPE_INT8, 0.5f, 0, 0.5f, 0, {-128, -1, 0, 127, -127}, {127, 1, 0, 127, 127}},
      /* zero points: |-128 - 10| - 128 = 10, |10 - 10| - 128, |127 - 10| - 128 */
      {ABS_OP, MP_DTYPE_INT8, 0.5f, 10, 0.5f, -128, {-128, 10, 127, 9, 11}, {10, -128, -11, -127, -127}},
      /* scale ratio 2: 3 -> 6, 100 -> 200 saturates */
      {ABS_OP, MP_DTYPE_INT8, 0.5f, 0, 0.25f, 0, {-3, -100, 50, 0, -128}, {6, 127, 100, 0, 127}},
      /* ratio 1/2: 1.5 and 0.5 round away from zero */
      {ABS_OP, MP_DTYPE_INT8, 0.25f, 0, 0.5f, 0, {-3, -1, 4, -128, 0}, {2, 1, 2, 64, 0}},
      {ABS_OP, MP_DTYPE_INT16, 0.5f, 0, 0.5f, 0, {-32768, -5, 32767, 0, 1}, {32767, 5, 32767, 0, 1}},
      /* [-1, 1] at 1/64: [-64, 64] */
      {RELU_N1_TO_1_OP, MP_DTYPE_INT8, 1.0f / 64, 0, 1.0f / 64, 0, {-128, -64, -10, 70, 127},
       {-64, -64, -10, 64, 64}},
      /* ratio 2, output zero point 10: bounds [-54, 74] */
      {RELU_N1_TO_1_OP, MP_DTYPE_INT8, 1.0f / 32, 0, 1.0f / 64, 10, {-10, 50, -100, 0, 32},
       {-10, 74, -54, 10, 74}},
      /* [0, 1] at 1/100, zero points -128: bounds [-128, -28] */
      {RELU_0_TO_1_OP, MP_DTYPE_INT8, 0.01f, -128, 0.01f, -128, {-128, 0, -60, 127, -29},
       {-128, -28, -60, -28, -29}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    built b;
    unary_math_model(&b, cases[k].code, cases[k].dt, 1, 5, cases[k].si, cases[k].zi, cases[k].so,
                     cases[k].zo, 0);
    mp_lowered_op lo;
    lower0(&b, &lo);
    assert_true(lo.supported);
    assert_int_equal(lo.kernel, MP_K_UNARY_Q);
    bool wide = cases[k].dt == MP_DTYPE_INT16;
    int8_t i8[5], o8[5];
    int16_t i16[5], o16[5];
    for (int i = 0; i < 5; i++) i8[i] = (int8_t)cases[k].in[i], i16[i] = (int16_t)cases[k].in[i];
    assert_int_equal(mpk_unary_q(&lo.params.unary_q, wide ? (void *)i16 : (void *)i8,
                                 wide ? (void *)o16 : (void *)o8, NULL),
                     MPK_OK);
    for (int i = 0; i < 5; i++) {
      int32_t got = wide ? o16[i] : o8[i];
      if (got != cases[k].want[i])
        fail_msg("case %zu element %d: got %d, want %d", k, i, (int)got, (int)cases[k].want[i]);
    }
    mp_lower_free(&lo);
    drop(&b);
  }
}

static void unary_math_refusals_name_the_reason(void **state) {
  (void)state;
  static const struct {
    int32_t code, dt;
    bool q;
    int64_t act;
    const char *reason;
  } cases[] = {
      {NEG_OP, MP_DTYPE_INT8, true, 0, "int8 NEG (TFLM runs it on float32 only)"},
      {ROUND_OP, MP_DTYPE_INT16, true, 0, "int16 ROUND (TFLM runs it on float32 only)"},
      {SQRT_OP, MP_DTYPE_INT8, true, 0, "int8 SQRT (TFLM runs it on float32 only)"},
      {ELU_OP, MP_DTYPE_INT8, true, 0,
       "int8 ELU: TFLM's lookup table is not reproduced (supported: float32)"},
      {LOG_SOFTMAX_OP, MP_DTYPE_INT8, true, 0,
       "int8 LOG_SOFTMAX: TFLM's integer algorithm is not reproduced (supported: float32)"},
      {L2_NORMALIZATION_OP, MP_DTYPE_INT8, true, 0,
       "int8 L2_NORMALIZATION: TFLM's integer algorithm is not reproduced (supported: float32)"},
      {RELU_N1_TO_1_OP, MP_DTYPE_INT16, true, 0, "int16 RELU_N1_TO_1 (TFLite runs int8 and float32)"},
      {ABS_OP, MP_DTYPE_INT16, false, 0, "int16 tensors without quantisation parameters"},
      {L2_NORMALIZATION_OP, MP_DTYPE_FLOAT32, false, 1, "fused activation RELU (supported: NONE)"},
      {SIN_OP, MP_DTYPE_INT32, false, 0,
       "input int32, output int32 (supported: int8, int16 or float32)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    built b;
    unary_math_model(&b, cases[k].code, cases[k].dt, 1, 4, cases[k].q ? 0.5f : 0.0f, 0,
                     cases[k].q ? 0.5f : 0.0f, 0, cases[k].act);
    mp_lowered_op lo;
    lower0(&b, &lo);
    assert_false(lo.supported);
    assert_string_equal(lo.reason, cases[k].reason);
    mp_lower_free(&lo);
    drop(&b);
  }
}

/* ------------------------------------------------------------------------ */
/* SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, REVERSE_V2, GATHER_ND,             */
/* BROADCAST_TO, FILL, ZEROS_LIKE, EMBEDDING_LOOKUP                         */
/* ------------------------------------------------------------------------ */

/* Element bytes of the types below. */
static size_t mv_es(int32_t dt) {
  return dt == MP_DTYPE_INT8 ? 1 : dt == MP_DTYPE_INT16 ? 2 : dt == MP_DTYPE_INT64 ? 8 : 4;
}

/* v[0..n) as elements of dt in buf: int8 as is, int16 times 300, int32
 * times 100000, int64 times 2^40, float32 plus 0.25. */
static void mv_put(int32_t dt, const int32_t *v, int n, void *buf) {
  for (int i = 0; i < n; i++) {
    if (dt == MP_DTYPE_INT8) {
      ((int8_t *)buf)[i] = (int8_t)v[i];
    } else if (dt == MP_DTYPE_INT16) {
      ((int16_t *)buf)[i] = (int16_t)(v[i] * 300);
    } else if (dt == MP_DTYPE_INT32) {
      ((int32_t *)buf)[i] = v[i] * 100000;
    } else if (dt == MP_DTYPE_INT64) {
      ((int64_t *)buf)[i] = (int64_t)v[i] << 40;
    } else {
      ((float *)buf)[i] = (float)v[i] + 0.25f;
    }
  }
}

/* A one-op model: data tensors x (input; constant when xdata), the
 * constant int32 operand tensors c[0..nc) and output y; quantised types
 * take scale 0.5 and zero point zp on x and y. */
typedef struct mv_const {
  uint32_t rank;
  int32_t shape[3];
  const int32_t *v;
  int32_t dt; /* 0: int32 */
} mv_const;

typedef struct mv_op {
  int32_t code, dt;
  bool other_y; /* y of type ydt, not dt */
  int32_t ydt;
  uint32_t xr, yr;
  int32_t xs[6], ys[6];
  int64_t zp;
  uint32_t nc;
  mv_const c[2];
  bool x_second; /* x after the operands (FILL's value, EMBEDDING_LOOKUP's values) */
  const void *xdata;
  size_t xbytes;
} mv_op;

static void mv_model(built *b, const mv_op *m) {
  mp_tfw *w = mp_tfw_new();
  bool q = m->dt == MP_DTYPE_INT8 || m->dt == MP_DTYPE_INT16;
  int32_t ydt = m->other_y ? m->ydt : m->dt;
  bool qy = ydt == MP_DTYPE_INT8 || ydt == MP_DTYPE_INT16;
  spec xs = {.name = "x",
             .dtype = m->dt,
             .rank = m->xr,
             .n_scale = q ? 1 : 0,
             .scale = {0.5f},
             .zp = m->zp,
             .data = m->xdata,
             .bytes = m->xbytes};
  memcpy(xs.shape, m->xs, sizeof xs.shape);
  int32_t ids[3], n = 0, ins[3], ni = 0;
  if (!m->x_second) {
    ids[n++] = add_tensor(w, &xs);
    if (!m->xdata) ins[ni++] = ids[n - 1];
  }
  for (uint32_t k = 0; k < m->nc; k++) {
    uint64_t cnt = 1;
    for (uint32_t d = 0; d < m->c[k].rank; d++)
      cnt *= (uint64_t)m->c[k].shape[d];
    int32_t cdt = m->c[k].dt ? m->c[k].dt : MP_DTYPE_INT32;
    spec cs = {.name = k ? "c1" : "c0",
               .dtype = cdt,
               .rank = m->c[k].rank,
               .data = m->c[k].v,
               .bytes = cnt * 4};
    memcpy(cs.shape, m->c[k].shape, sizeof m->c[k].shape);
    ids[n++] = add_tensor(w, &cs);
    if (!m->c[k].v) ins[ni++] = ids[n - 1];
  }
  if (m->x_second) {
    ids[n++] = add_tensor(w, &xs);
    if (!m->xdata) ins[ni++] = ids[n - 1];
  }
  spec ys = {.name = "y",
             .dtype = ydt,
             .rank = m->yr,
             .n_scale = qy ? 1 : 0,
             .scale = {0.5f},
             .zp = m->zp};
  memcpy(ys.shape, m->ys, sizeof ys.shape);
  int32_t y = add_tensor(w, &ys);
  add_op(w, m->code, (uint32_t)n, ids, y, 0, 0, NULL);
  finish(w, ni, ins, 1, &y, b);
}

/* Lower m and run its kernel on x (and the runtime operand a, if any);
 * the kernel's status. */
static int32_t mv_run(const mv_op *m, const void *x, const void *a, void *y, mp_lowered_op *lo) {
  built b;
  mv_model(&b, m);
  lower0(&b, lo);
  int32_t st = -100;
  if (!a && m->nc) a = m->c[0].v; /* constant indices: the kernel reads the constant */
  if (lo->supported) {
    const mp_kparams *p = &lo->params;
    switch (lo->kernel) {
    case MP_K_STRIDED_COPY: st = mpk_strided_copy(&p->strided_copy, x, y, NULL); break;
    case MP_K_SPACE_BATCH: st = mpk_space_batch(&p->space_batch, x, y, NULL); break;
    case MP_K_ZEROS: st = mpk_zeros(&p->zeros, x, y, NULL); break;
    case MP_K_GATHER_ND: st = mpk_gather_nd(&p->gather_nd, x, a, y, NULL); break;
    case MP_K_GATHER: st = mpk_gather(&p->gather, x, a, y, NULL); break;
    default: fail_msg("unexpected kernel %d", (int)lo->kernel);
    }
  }
  drop(&b);
  return st;
}

/* The refusal reason of m (supported false), or a model error when
 * reason is NULL. */
static void mv_refused(const mv_op *m, const char *reason) {
  built b;
  mp_lowered_op lo;
  mv_model(&b, m);
  if (reason) {
    lower0(&b, &lo);
    assert_false(lo.supported);
    assert_string_equal(lo.reason, reason);
  } else {
    tu_diags d;
    tu_diags_init(&d);
    assert_int_equal(mp_lower_op(b.g, 0, &lo, &d.sink), MP_ERR_MODEL);
  }
  mp_lower_free(&lo);
  drop(&b);
}

/* Run m on x values xv (n_x) and compare with want (n_y) in m->dt. */
static void mv_check(const mv_op *m, const int32_t *xv, int n_x, const int32_t *want, int n_y,
                     mp_kernel kernel) {
  union {
    int64_t i64[64];
    float f[128];
  } x, y, exp;
  memset(&x, 0, sizeof x);
  memset(&exp, 0, sizeof exp);
  mv_put(m->dt, xv, n_x, &x);
  mv_put(m->dt, want, n_y, &exp);
  memset(&y, 0x5a, sizeof y);
  mp_lowered_op lo;
  assert_int_equal(mv_run(m, &x, NULL, &y, &lo), MPK_OK);
  assert_int_equal(lo.kernel, kernel);
  assert_memory_equal(&y, &exp, (size_t)n_y * mv_es(m->dt));
  mp_lower_free(&lo);
}

static const int32_t mv_types[3] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_FLOAT32};

static void space_to_batch_and_back_follow_tensorflows_examples(void **state) {
  (void)state;
  /* tf.space_to_batch_nd's documented example with paddings: x [2,2,4,1]
   * = 1..16, block_shape [2,2], paddings [[0,0],[2,0]] -> [8,1,3,1], each
   * output batch (i*2 + j)*2 + n holding rows i, columns j - 2, j, j + 2
   * of batch n (column -2 and -1 the padding, here 0) */
  static const int32_t x16[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static const int32_t block[2] = {2, 2}, pads[4] = {0, 0, 2, 0};
  static const int32_t s2b[24] = {0, 1, 3, 0, 9,  11, 0, 2, 4, 0, 10, 12,
                                  0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16};
  /* the example without padding: x [1,4,4,1] = 1..16 -> [4,2,2,1] */
  static const int32_t s2b_plain[16] = {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16};
  static const int32_t zero[4] = {0, 0, 0, 0};
  /* 3-D [1,4,1] = 1..4, block [2], paddings [[1,1]]: padded 0 1 2 3 4 0,
   * rows 0, 2, 4 and 1, 3, 5 -> [2,3,1] */
  static const int32_t s2b_3d[6] = {0, 2, 4, 1, 3, 0};
  static const int32_t one_blk[1] = {2}, one_pad[2] = {1, 1};
  for (int k = 0; k < 3; k++) {
    int32_t dt = mv_types[k];
    /* int8 pads with the output zero point: -3 stands for the padding's 0 */
    int64_t zp = dt == MP_DTYPE_INT8 ? -3 : 0;
    int32_t pad = (int32_t)zp, s2b_zp[24];
    for (int i = 0; i < 24; i++)
      s2b_zp[i] = s2b[i] == 0 ? pad : s2b[i];
    mv_op m = {.code = SPACE_TO_BATCH_ND_OP,
               .dt = dt,
               .xr = 4,
               .xs = {2, 2, 4, 1},
               .yr = 4,
               .ys = {8, 1, 3, 1},
               .zp = zp,
               .nc = 2,
               .c = {{1, {2}, block, 0}, {2, {2, 2}, pads, 0}}};
    if (dt == MP_DTYPE_INT16) {
      /* int16: the zero point's bits; 0 whatever the x300 scaling */
      mv_check(&m, x16, 16, s2b, 24, MP_K_SPACE_BATCH);
    } else if (dt == MP_DTYPE_FLOAT32) {
      /* float32 pads 0.0f, which mv_put would write as 0.25 */
      union {
        float f[24];
      } x, y;
      mv_put(dt, x16, 16, &x);
      memset(&y, 0x5a, sizeof y);
      mp_lowered_op lo;
      assert_int_equal(mv_run(&m, &x, NULL, &y, &lo), MPK_OK);
      for (int i = 0; i < 24; i++)
        assert_true(y.f[i] == (s2b[i] ? (float)s2b[i] + 0.25f : 0.0f));
      mp_lower_free(&lo);
    } else {
      mv_check(&m, x16, 16, s2b_zp, 24, MP_K_SPACE_BATCH);
    }
    /* BATCH_TO_SPACE_ND with those crops undoes it */
    mv_op back = {.code = BATCH_TO_SPACE_ND_OP,
                  .dt = dt,
                  .xr = 4,
                  .xs = {8, 1, 3, 1},
                  .yr = 4,
                  .ys = {2, 2, 4, 1},
                  .zp = zp,
                  .nc = 2,
                  .c = {{1, {2}, block, 0}, {2, {2, 2}, pads, 0}}};
    mv_check(&back, s2b_zp, 24, x16, 16, MP_K_SPACE_BATCH);
    mv_op plain = {.code = SPACE_TO_BATCH_ND_OP,
                   .dt = dt,
                   .xr = 4,
                   .xs = {1, 4, 4, 1},
                   .yr = 4,
                   .ys = {4, 2, 2, 1},
                   .zp = zp,
                   .nc = 2,
                   .c = {{1, {2}, block, 0}, {2, {2, 2}, zero, 0}}};
    mv_check(&plain, x16, 16, s2b_plain, 16, MP_K_SPACE_BATCH);
    mv_op plain_back = {.code = BATCH_TO_SPACE_ND_OP,
                        .dt = dt,
                        .xr = 4,
                        .xs = {4, 2, 2, 1},
                        .yr = 4,
                        .ys = {1, 4, 4, 1},
                        .zp = zp,
                        .nc = 2,
                        .c = {{1, {2}, block, 0}, {2, {2, 2}, zero, 0}}};
    mv_check(&plain_back, s2b_plain, 16, x16, 16, MP_K_SPACE_BATCH);
    if (dt != MP_DTYPE_FLOAT32) {
      int32_t w3[6];
      for (int i = 0; i < 6; i++)
        w3[i] = s2b_3d[i] == 0 ? pad : s2b_3d[i];
      mv_op m3 = {.code = SPACE_TO_BATCH_ND_OP,
                  .dt = dt,
                  .xr = 3,
                  .xs = {1, 4, 1},
                  .yr = 3,
                  .ys = {2, 3, 1},
                  .zp = zp,
                  .nc = 2,
                  .c = {{1, {1}, one_blk, 0}, {2, {1, 2}, one_pad, 0}}};
      mv_check(&m3, x16, 4, w3, 6, MP_K_SPACE_BATCH);
      mv_op b3 = {.code = BATCH_TO_SPACE_ND_OP,
                  .dt = dt,
                  .xr = 3,
                  .xs = {2, 3, 1},
                  .yr = 3,
                  .ys = {1, 4, 1},
                  .zp = zp,
                  .nc = 2,
                  .c = {{1, {1}, one_blk, 0}, {2, {1, 2}, one_pad, 0}}};
      mv_check(&b3, w3, 6, x16, 4, MP_K_SPACE_BATCH);
    }
  }
}

static void space_to_batch_refusals_name_the_reason(void **state) {
  (void)state;
  static const int32_t block[2] = {2, 2}, pads[4] = {0, 0, 2, 0}, three[2] = {3, 2},
                       neg[4] = {0, 0, -2, 4}, zero[4] = {0, 0, 0, 0};
  mv_op m = {.code = SPACE_TO_BATCH_ND_OP,
             .dt = MP_DTYPE_INT32,
             .xr = 4,
             .xs = {2, 2, 4, 1},
             .yr = 4,
             .ys = {8, 1, 3, 1},
             .nc = 2,
             .c = {{1, {2}, block, 0}, {2, {2, 2}, pads, 0}}};
  mv_refused(&m, "element type int32 (supported: int8, int16, float32)");
  m.dt = MP_DTYPE_INT8, m.other_y = true, m.ydt = MP_DTYPE_INT16;
  mv_refused(&m, NULL); /* int8 in, int16 out */
  m.dt = MP_DTYPE_FLOAT32, m.other_y = false;
  m.c[0].v = NULL; /* a block_shape computed at run time */
  mv_refused(&m, "block_shape and paddings must be constant int32/int64 tensors");
  m.c[0].v = three; /* padded height 2 is no multiple of 3 */
  mv_refused(&m, NULL);
  m.c[0].v = block, m.c[1].v = neg; /* a negative padding */
  mv_refused(&m, NULL);
  m.c[1].v = pads, m.ys[0] = 4; /* an output the operator does not give */
  mv_refused(&m, NULL);
  mv_op b = {.code = BATCH_TO_SPACE_ND_OP,
             .dt = MP_DTYPE_FLOAT32,
             .xr = 4,
             .xs = {6, 1, 1, 1},
             .yr = 4,
             .ys = {1, 2, 2, 1},
             .nc = 2,
             .c = {{1, {2}, block, 0}, {2, {2, 2}, zero, 0}}};
  mv_refused(&b, NULL); /* 6 batches are no multiple of 2 x 2 */
  mv_op r5 = {.code = SPACE_TO_BATCH_ND_OP,
              .dt = MP_DTYPE_FLOAT32,
              .xr = 5,
              .xs = {1, 2, 2, 2, 1},
              .yr = 5,
              .ys = {4, 1, 1, 2, 1},
              .nc = 2,
              .c = {{1, {2}, block, 0}, {2, {2, 2}, zero, 0}}};
  mv_refused(&r5, "rank 5 (supported: 3 and 4, as TFLM)");
}

static void reverse_v2_follows_tensorflows_example(void **state) {
  (void)state;
  /* tf.reverse's example: t [1,2,3,4] = 0..23; axis [-1] reverses every
   * row of 4; axes [1, 2] take t[0][1 - a][2 - b][:] */
  int32_t t[24];
  for (int i = 0; i < 24; i++)
    t[i] = i;
  static const int32_t last[24] = {3,  2,  1,  0,  7,  6,  5,  4,  11, 10, 9,  8,
                                   15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20};
  static const int32_t mid[24] = {20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15,
                                  8,  9,  10, 11, 4,  5,  6,  7,  0,  1,  2,  3};
  static const int32_t ax_last[1] = {-1}, ax_mid[2] = {1, 2}, ax_twice[2] = {1, -3},
                       ax_far[1] = {4};
  static const int32_t types[4] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_INT32, MP_DTYPE_FLOAT32};
  for (int k = 0; k < 4; k++) {
    mv_op m = {.code = REVERSE_V2_OP,
               .dt = types[k],
               .xr = 4,
               .xs = {1, 2, 3, 4},
               .yr = 4,
               .ys = {1, 2, 3, 4},
               .nc = 1,
               .c = {{1, {1}, ax_last, 0}}};
    mv_check(&m, t, 24, last, 24, MP_K_STRIDED_COPY);
    m.c[0] = (mv_const){1, {2}, ax_mid, 0};
    mv_check(&m, t, 24, mid, 24, MP_K_STRIDED_COPY);
  }
  mv_op m = {.code = REVERSE_V2_OP,
             .dt = MP_DTYPE_INT64,
             .xr = 4,
             .xs = {1, 2, 3, 4},
             .yr = 4,
             .ys = {1, 2, 3, 4},
             .nc = 1,
             .c = {{1, {1}, ax_last, 0}}};
  mv_refused(&m, "element type int64 (supported: int8, int16, int32, float32)");
  m.dt = MP_DTYPE_FLOAT32;
  m.c[0] = (mv_const){1, {2}, ax_twice, 0};
  mv_refused(&m, NULL); /* axis 1 twice */
  m.c[0] = (mv_const){1, {1}, ax_far, 0};
  mv_refused(&m, NULL); /* axis 4 of rank 4 */
  m.c[0] = (mv_const){1, {1}, NULL, 0};
  mv_refused(&m, "the axis must be a constant int32/int64 vector");
}

static void gather_nd_follows_tensorflows_examples_and_checks_indices(void **state) {
  (void)state;
  /* tf.gather_nd's examples with a=1, b=2, c=3, d=4 (and a0..d1 = 1..8):
   * params [[a,b],[c,d]], indices [[0,0],[1,1]] -> [a,d]; indices
   * [[1],[0]] -> [[c,d],[a,b]]; params [[[a0,b0],[c0,d0]],[[a1,b1],
   * [c1,d1]]], indices [[0,1],[1,0]] -> [[c0,d0],[a1,b1]] */
  static const int32_t p2[4] = {1, 2, 3, 4}, p3[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const int32_t i_pairs[4] = {0, 0, 1, 1}, i_rows[2] = {1, 0}, i_3d[4] = {0, 1, 1, 0};
  static const int32_t w_pairs[2] = {1, 4}, w_rows[4] = {3, 4, 1, 2}, w_3d[4] = {3, 4, 5, 6};
  static const int32_t types[4] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_INT32, MP_DTYPE_FLOAT32};
  for (int k = 0; k < 4; k++) {
    int32_t dt = types[k];
    mv_op m = {.code = GATHER_ND_OP,
               .dt = dt,
               .xr = 2,
               .xs = {2, 2},
               .yr = 1,
               .ys = {2},
               .nc = 1,
               .c = {{2, {2, 2}, i_pairs, 0}}};
    mv_check(&m, p2, 4, w_pairs, 2, MP_K_GATHER_ND);
    mv_op r = {.code = GATHER_ND_OP,
               .dt = dt,
               .xr = 2,
               .xs = {2, 2},
               .yr = 2,
               .ys = {2, 2},
               .nc = 1,
               .c = {{2, {2, 1}, i_rows, 0}}};
    mv_check(&r, p2, 4, w_rows, 4, MP_K_GATHER_ND);
    mv_op t = {.code = GATHER_ND_OP,
               .dt = dt,
               .xr = 3,
               .xs = {2, 2, 2},
               .yr = 2,
               .ys = {2, 2},
               .nc = 1,
               .c = {{2, {2, 2}, i_3d, 0}}};
    mv_check(&t, p3, 8, w_3d, 4, MP_K_GATHER_ND);
  }
  /* indices at run time: a slice outside params is MPK_ERR_INDEX, as
   * TFLM returns an error, whatever the index holds (TFLM's check is on
   * the flat position: [0, 2] of [2,2,2] reads a1, b1 there too) */
  mv_op m = {.code = GATHER_ND_OP,
             .dt = MP_DTYPE_INT8,
             .xr = 3,
             .xs = {2, 2, 2},
             .yr = 2,
             .ys = {1, 2},
             .nc = 1,
             .c = {{2, {1, 2}, NULL, 0}}};
  const int8_t params[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  struct {
    int32_t idx[2], st;
    int8_t want[2];
  } run[] = {{{1, 1}, MPK_OK, {7, 8}},
             {{0, 2}, MPK_OK, {5, 6}},
             {{2, 0}, MPK_ERR_INDEX, {0, 0}},
             {{-1, 0}, MPK_ERR_INDEX, {0, 0}},
             {{0, -1}, MPK_ERR_INDEX, {0, 0}},
             {{INT32_MAX, INT32_MAX}, MPK_ERR_INDEX, {0, 0}}};
  for (size_t k = 0; k < sizeof run / sizeof run[0]; k++) {
    int8_t y[2] = {0, 0};
    mp_lowered_op lo;
    assert_int_equal(mv_run(&m, params, run[k].idx, y, &lo), run[k].st);
    assert_int_equal(lo.n_args, 3);
    if (run[k].st == MPK_OK) assert_memory_equal(y, run[k].want, 2);
    mp_lower_free(&lo);
  }
  /* constant indices outside params: a model error */
  static const int32_t far[2] = {2, 0};
  m.c[0].v = far;
  mv_refused(&m, NULL);
  m.c[0].v = NULL;
  m.c[0].dt = MP_DTYPE_INT64;
  mv_refused(&m, "int64 indices (supported: int32, as TFLM)");
  mv_op bad = {.code = GATHER_ND_OP,
               .dt = MP_DTYPE_INT8,
               .xr = 1,
               .xs = {4},
               .yr = 1,
               .ys = {1},
               .nc = 1,
               .c = {{2, {1, 2}, NULL, 0}}};
  mv_refused(&bad, NULL); /* index depth 2 for params of rank 1 */
}

static void broadcast_to_fill_and_zeros_like_write_their_definitions(void **state) {
  (void)state;
  /* tf.broadcast_to's example: [1,2,3] to [3,3]; a [3,1] column to
   * [2,3,2] repeats each element along the last axis and the whole along
   * the first */
  static const int32_t row[3] = {1, 2, 3}, s33[2] = {3, 3}, s232[3] = {2, 3, 2};
  static const int32_t w33[9] = {1, 2, 3, 1, 2, 3, 1, 2, 3};
  static const int32_t w232[12] = {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3};
  static const int32_t types[4] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_INT32, MP_DTYPE_FLOAT32};
  for (int k = 0; k < 4; k++) {
    mv_op m = {.code = BROADCAST_TO_OP,
               .dt = types[k],
               .xr = 1,
               .xs = {3},
               .yr = 2,
               .ys = {3, 3},
               .nc = 1,
               .c = {{1, {2}, s33, 0}}};
    mv_check(&m, row, 3, w33, 9, MP_K_STRIDED_COPY);
    mv_op c = {.code = BROADCAST_TO_OP,
               .dt = types[k],
               .xr = 2,
               .xs = {3, 1},
               .yr = 3,
               .ys = {2, 3, 2},
               .nc = 1,
               .c = {{1, {3}, s232, 0}}};
    mv_check(&c, row, 3, w232, 12, MP_K_STRIDED_COPY);
  }
  static const int32_t s23[2] = {2, 3};
  mv_op nb = {.code = BROADCAST_TO_OP,
              .dt = MP_DTYPE_FLOAT32,
              .xr = 1,
              .xs = {2},
              .yr = 2,
              .ys = {2, 3},
              .nc = 1,
              .c = {{1, {2}, s23, 0}}};
  mv_refused(&nb, NULL); /* 2 does not broadcast to 3 */
  nb.xs[0] = 3, nb.c[0].v = s33;
  mv_refused(&nb, NULL); /* the shape is not the output's */
  /* tf.fill([2, 3], 9): the scalar value (at run time) in every element */
  static const int32_t nine[1] = {9}, w_fill[6] = {9, 9, 9, 9, 9, 9};
  static const int32_t fill_types[3] = {MP_DTYPE_INT8, MP_DTYPE_INT32, MP_DTYPE_FLOAT32};
  for (int k = 0; k < 3; k++) {
    mv_op f = {.code = FILL_OP,
               .dt = fill_types[k],
               .xr = 0,
               .yr = 2,
               .ys = {2, 3},
               .nc = 1,
               .c = {{1, {2}, s23, 0}},
               .x_second = true};
    mv_check(&f, nine, 1, w_fill, 6, MP_K_STRIDED_COPY);
  }
  mv_op f = {.code = FILL_OP,
             .dt = MP_DTYPE_INT16,
             .xr = 0,
             .yr = 2,
             .ys = {2, 3},
             .nc = 1,
             .c = {{1, {2}, s23, 0}},
             .x_second = true};
  mv_refused(&f, "element type int16 (supported: int8, int32, float32, as TFLM)");
  f.dt = MP_DTYPE_FLOAT32, f.ys[1] = 4;
  mv_refused(&f, NULL); /* dims [2,3], output [2,4] */
  f.ys[1] = 3, f.c[0].v = NULL;
  mv_refused(&f, "dims must be a constant int32/int64 vector");
  /* tf.zeros_like([[1,2,3],[4,5,6]]): zeros of that shape; int8 writes
   * the byte 0 whatever its zero point, as TFLM does */
  static const int32_t x6[6] = {1, 2, 3, 4, 5, 6}, z6[6] = {0, 0, 0, 0, 0, 0};
  static const int32_t zl_types[4] = {MP_DTYPE_INT8, MP_DTYPE_INT32, MP_DTYPE_INT64,
                                      MP_DTYPE_FLOAT32};
  for (int k = 0; k < 4; k++) {
    mv_op z = {.code = ZEROS_LIKE_OP,
               .dt = zl_types[k],
               .xr = 2,
               .xs = {2, 3},
               .yr = 2,
               .ys = {2, 3},
               .zp = 5};
    if (zl_types[k] == MP_DTYPE_FLOAT32) {
      union {
        float f[6];
      } x, y, want;
      mv_put(MP_DTYPE_FLOAT32, x6, 6, &x);
      memset(&want, 0, sizeof want);
      memset(&y, 0x5a, sizeof y);
      mp_lowered_op lo;
      assert_int_equal(mv_run(&z, &x, NULL, &y, &lo), MPK_OK);
      assert_memory_equal(&y, &want, sizeof want);
      mp_lower_free(&lo);
    } else {
      mv_check(&z, x6, 6, z6, 6, MP_K_ZEROS);
    }
  }
  mv_op z = {
      .code = ZEROS_LIKE_OP, .dt = MP_DTYPE_INT16, .xr = 2, .xs = {2, 3}, .yr = 2, .ys = {2, 3}};
  mv_refused(&z, "element type int16 (supported: int8, int32, int64, float32, as TFLM)");
}

static void embedding_lookup_gathers_rows_and_checks_ids(void **state) {
  (void)state;
  /* values [[1,2],[3,4],[5,6]], ids [2,0,2] -> [[5,6],[1,2],[5,6]]; an id
   * outside [0, 3) is MPK_ERR_INDEX, as TFLM returns an error */
  static const int32_t v[6] = {1, 2, 3, 4, 5, 6}, want[6] = {5, 6, 1, 2, 5, 6};
  static const int32_t types[2] = {MP_DTYPE_INT8, MP_DTYPE_FLOAT32};
  for (int k = 0; k < 2; k++) {
    mv_op m = {.code = EMBEDDING_LOOKUP_OP,
               .dt = types[k],
               .xr = 2,
               .xs = {3, 2},
               .yr = 2,
               .ys = {3, 2},
               .nc = 1,
               .c = {{1, {3}, NULL, 0}},
               .x_second = true};
    union {
      float f[6];
    } x, y, exp;
    memset(&exp, 0, sizeof exp);
    mv_put(types[k], v, 6, &x);
    mv_put(types[k], want, 6, &exp);
    const int32_t ids[3] = {2, 0, 2};
    memset(&y, 0, sizeof y);
    mp_lowered_op lo;
    assert_int_equal(mv_run(&m, &x, ids, &y, &lo), MPK_OK);
    assert_int_equal(lo.kernel, MP_K_GATHER);
    assert_memory_equal(&y, &exp, 6 * mv_es(types[k]));
    mp_lower_free(&lo);
    const int32_t bad[2][3] = {{0, 3, 1}, {-1, 0, 0}};
    for (int b = 0; b < 2; b++) {
      assert_int_equal(mv_run(&m, &x, bad[b], &y, &lo), MPK_ERR_INDEX);
      mp_lower_free(&lo);
    }
  }
  mv_op h = {.code = EMBEDDING_LOOKUP_OP,
             .dt = MP_DTYPE_INT8,
             .other_y = true,
             .ydt = MP_DTYPE_FLOAT32,
             .xr = 2,
             .xs = {3, 2},
             .yr = 2,
             .ys = {3, 2},
             .nc = 1,
             .c = {{1, {3}, NULL, 0}},
             .x_second = true};
  mv_refused(&h, "int8 values into a float32 output (the dequantising lookup)");
  h.dt = MP_DTYPE_INT16, h.other_y = false;
  mv_refused(&h, "element type int16 (supported: int8, float32)");
  h.dt = MP_DTYPE_FLOAT32, h.ys[0] = 2;
  mv_refused(&h, NULL); /* 2 rows for 3 ids */
}

/* Constant inputs: REVERSE_V2 and GATHER_ND fold at convert time through
 * their kernels: [3, 2] reversed is [2, 3], gathered by [[1], [0]] back
 * to [3, 2], the shape a RESHAPE then takes. */
static void constant_movement_folds_through_its_kernels(void **state) {
  (void)state;
  static const int32_t v[2] = {3, 2}, axis[1] = {0}, idx[2] = {1, 0};
  mp_tfw *w = mp_tfw_new();
  int32_t x =
      add_tensor(w, &(spec){.name = "x", .dtype = MP_DTYPE_FLOAT32, .rank = 2, .shape = {2, 3}});
  int32_t c = add_tensor(
      w, &(spec){
             .name = "c", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {2}, .data = v, .bytes = 8});
  int32_t a = add_tensor(
      w,
      &(spec){
          .name = "a", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {1}, .data = axis, .bytes = 4});
  int32_t r = add_tensor(w, &(spec){.name = "r", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {2}});
  int32_t i = add_tensor(w, &(spec){.name = "i",
                                    .dtype = MP_DTYPE_INT32,
                                    .rank = 2,
                                    .shape = {2, 1},
                                    .data = idx,
                                    .bytes = 8});
  int32_t s = add_tensor(w, &(spec){.name = "s", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {2}});
  int32_t y =
      add_tensor(w, &(spec){.name = "y", .dtype = MP_DTYPE_FLOAT32, .rank = 2, .shape = {3, 2}});
  add_op(w, REVERSE_V2_OP, 2, (const int32_t[]){c, a}, r, 0, 0, NULL);
  add_op(w, GATHER_ND_OP, 2, (const int32_t[]){r, i}, s, 0, 0, NULL);
  add_op(w, RESHAPE, 2, (const int32_t[]){x, s}, y, 0, 0, NULL);
  built b;
  finish(w, 1, &x, 1, &y, &b);
  assert_true(b.g->ops[0].const_folded);
  assert_true(b.g->ops[1].const_folded);
  int32_t got[2];
  assert_non_null(b.g->tensors[r].data);
  memcpy(got, b.g->tensors[r].data, sizeof got);
  assert_int_equal(got[0], 2);
  assert_int_equal(got[1], 3);
  assert_non_null(b.g->tensors[s].data);
  memcpy(got, b.g->tensors[s].data, sizeof got);
  assert_int_equal(got[0], 3);
  assert_int_equal(got[1], 2);
  drop(&b);
}

/* A one-op model of `code`: n inputs and one output as given (a spec
 * with data is a constant). */
static void one_op(built *b, int32_t code, uint32_t n, const spec *ins, const spec *out) {
  mp_tfw *w = mp_tfw_new();
  int32_t ids[8], n_act = 0, acts[8];
  for (uint32_t i = 0; i < n; i++) {
    ids[i] = add_tensor(w, &ins[i]);
    if (!ins[i].data) acts[n_act++] = ids[i];
  }
  int32_t o = add_tensor(w, out);
  add_op(w, code, n, ids, o, 0, 0, NULL);
  finish(w, n_act, acts, 1, &o, b);
}

/* Lower a one-op model and expect it supported by kernel k. */
static void lower_k(built *b, mp_lowered_op *lo, mp_kernel k) {
  lower0(b, lo);
  if (!lo->supported) fail_msg("refused: %s", lo->reason);
  assert_int_equal(lo->kernel, k);
}

/* Lower a one-op model and expect the refusal `reason`. */
static void expect_refusal(built *b, const char *reason) {
  mp_lowered_op lo;
  lower0(b, &lo);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, reason);
  mp_lower_free(&lo);
  drop(b);
}

static void reduce_min_and_arg_min_take_the_first_smallest(void **state) {
  (void)state;
  static const int32_t axis1[1] = {1};
  /* x = [[3, -1, 2, -1], [0.5, 7, -4, 8]]: REDUCE_MIN over axis 1 gives
   * [-1, -4]; ARG_MIN the first smallest, [1, 2]; ARG_MAX [0, 3]. */
  static const float xf[8] = {3, -1, 2, -1, 0.5f, 7, -4, 8};
  static const int8_t x8[8] = {3, -1, 2, -1, 5, 7, -4, 8};
  static const int16_t x16[8] = {300, -100, 200, -100, 5, 700, -400, 800};
  const int32_t dts[3] = {MP_DTYPE_FLOAT32, MP_DTYPE_INT8, MP_DTYPE_INT16};
  const void *xs[3] = {xf, x8, x16};
  for (int k = 0; k < 3; k++) {
    bool q = dts[k] != MP_DTYPE_FLOAT32;
    spec ins[2] = {{.name = "x", .dtype = dts[k], .rank = 2, .shape = {2, 4},
                    .n_scale = q ? 1 : 0, .scale = {0.5f}, .zp = 1},
                   {.name = "axis", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {1},
                    .data = axis1, .bytes = 4}};
    spec out = {.name = "y", .dtype = dts[k], .rank = 1, .shape = {2},
                .n_scale = q ? 1 : 0, .scale = {0.5f}, .zp = 1};
    built b;
    mp_lowered_op lo;
    one_op(&b, REDUCE_MIN_OP, 2, ins, &out);
    lower_k(&b, &lo, MP_K_REDUCE);
    union {
      float f[2];
      int8_t i8[2];
      int16_t i16[2];
    } y;
    assert_int_equal(mpk_reduce(&lo.params.reduce, xs[k], &y, NULL), MPK_OK);
    if (k == 0) {
      assert_true(y.f[0] == -1.0f && y.f[1] == -4.0f);
    } else if (k == 1) {
      assert_int_equal(y.i8[0], -1);
      assert_int_equal(y.i8[1], -4);
    } else {
      assert_int_equal(y.i16[0], -100);
      assert_int_equal(y.i16[1], -400);
    }
    mp_lower_free(&lo);
    drop(&b);
    for (int is_min = 0; is_min < 2; is_min++) {
      spec idx = {.name = "i", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {2}};
      one_op(&b, is_min ? ARG_MIN_OP : ARG_MAX_OP, 2, ins, &idx);
      lower_k(&b, &lo, MP_K_ARG_MAX);
      int32_t got[2] = {-9, -9};
      assert_int_equal(mpk_arg_max(&lo.params.arg_max, xs[k], got, NULL), MPK_OK);
      assert_int_equal(got[0], is_min ? 1 : 0);
      assert_int_equal(got[1], is_min ? 2 : 3);
      mp_lower_free(&lo);
      drop(&b);
    }
  }
  /* REDUCE_MIN of stored integers: input and output share a quantisation */
  spec ins[2] = {{.name = "x", .dtype = MP_DTYPE_INT8, .rank = 2, .shape = {2, 4}, .n_scale = 1,
                  .scale = {0.5f}, .zp = 1},
                 {.name = "axis", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {1}, .data = axis1,
                  .bytes = 4}};
  spec out = {.name = "y", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
              .scale = {0.25f}, .zp = 1};
  built b;
  one_op(&b, REDUCE_MIN_OP, 2, ins, &out);
  expect_refusal(&b, "input and output quantised differently");
  ins[0].dtype = out.dtype = MP_DTYPE_INT32;
  one_op(&b, REDUCE_MIN_OP, 2, ins, &out);
  expect_refusal(&b, "input int32, output int32 (supported: int8, int16, float32)");
}

static void comparisons_broadcast_and_rescale_int8(void **state) {
  (void)state;
  /* a [2,3] against b [3] (broadcast over rows), each operator: */
  static const int32_t ai[6] = {1, 5, -3, 4, 4, 9}, bi[3] = {1, 4, 0};
  static const float af[6] = {1, 5, -3, 4, 4, 9}, bf[3] = {1, 4, 0};
  static const int32_t codes[6] = {EQUAL_OP, NOT_EQUAL_OP, LESS_OP, LESS_EQUAL_OP, GREATER_OP,
                                   GREATER_EQUAL_OP};
  static const uint8_t want[6][6] = {{1, 0, 0, 0, 1, 0}, {0, 1, 1, 1, 0, 1}, {0, 0, 1, 0, 0, 0},
                                     {1, 0, 1, 0, 1, 0}, {0, 1, 0, 1, 0, 1}, {1, 1, 0, 1, 1, 1}};
  for (int t = 0; t < 2; t++) {
    int32_t dt = t ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT32;
    for (int k = 0; k < 6; k++) {
      spec ins[2] = {{.name = "a", .dtype = dt, .rank = 2, .shape = {2, 3}},
                     {.name = "b", .dtype = dt, .rank = 1, .shape = {3}}};
      spec out = {.name = "y", .dtype = MP_DTYPE_BOOL, .rank = 2, .shape = {2, 3}};
      built b;
      mp_lowered_op lo;
      one_op(&b, codes[k], 2, ins, &out);
      lower_k(&b, &lo, MP_K_COMPARE);
      uint8_t y[6];
      memset(y, 0x77, sizeof y);
      assert_int_equal(mpk_compare(&lo.params.compare, t ? (const void *)af : (const void *)ai,
                                   t ? (const void *)bf : (const void *)bi, y, NULL),
                       MPK_OK);
      assert_memory_equal(y, want[k], 6);
      mp_lower_free(&lo);
      drop(&b);
    }
  }
  /* int8 compares real values: a (0.5, zero point 0) holds 2 (1.0) and 3
   * (1.5), b (0.25, zero point 2) holds 6 (1.0) and 7 (1.25): a == b at
   * element 0, a > b at element 1, though the stored 3 < 7.  Each input
   * is (q - zp) * 256 scaled by its scale: 512 * 0.5 = 256 and 1024 *
   * 0.25 = 256; 768 * 0.5 = 384 and 1280 * 0.25 = 320. */
  static const int8_t a8[2] = {2, 3}, b8[2] = {6, 7};
  static const uint8_t eq8[2] = {1, 0}, gt8[2] = {0, 1};
  for (int k = 0; k < 2; k++) {
    spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                    .scale = {0.5f}, .zp = 0},
                   {.name = "b", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                    .scale = {0.25f}, .zp = 2}};
    spec out = {.name = "y", .dtype = MP_DTYPE_BOOL, .rank = 1, .shape = {2}};
    built b;
    mp_lowered_op lo;
    one_op(&b, k ? GREATER_OP : EQUAL_OP, 2, ins, &out);
    lower_k(&b, &lo, MP_K_COMPARE);
    assert_int_equal(lo.params.compare.left_shift, 8);
    assert_int_equal(lo.params.compare.in1_multiplier, 1 << 30);
    assert_int_equal(lo.params.compare.in1_shift, 0);
    assert_int_equal(lo.params.compare.in2_shift, -1);
    assert_int_equal(lo.params.compare.in2_offset, -2);
    uint8_t y[2];
    assert_int_equal(mpk_compare(&lo.params.compare, a8, b8, y, NULL), MPK_OK);
    assert_memory_equal(y, k ? gt8 : eq8, 2);
    mp_lower_free(&lo);
    drop(&b);
  }
  /* refusals: a scale TFLM's QuantizeMultiplierSmallerThanOneExp rejects,
   * int16, a non-bool output, a broadcast of rank 5 */
  spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                  .scale = {1.0f}},
                 {.name = "b", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                  .scale = {0.5f}}};
  spec out = {.name = "y", .dtype = MP_DTYPE_BOOL, .rank = 1, .shape = {2}};
  built b;
  one_op(&b, LESS_OP, 2, ins, &out);
  expect_refusal(&b, "an int8 input scale of 1 or more (1, 0.5): TFLite Micro's comparisons take "
                     "scales below 1");
  ins[0].dtype = ins[1].dtype = MP_DTYPE_INT16;
  one_op(&b, LESS_OP, 2, ins, &out);
  expect_refusal(&b, "inputs int16 and int16, output bool (supported: int8, int32 or float32 "
                     "inputs of one type, bool output)");
  ins[0].dtype = ins[1].dtype = MP_DTYPE_FLOAT32;
  out.dtype = MP_DTYPE_FLOAT32;
  one_op(&b, LESS_OP, 2, ins, &out);
  expect_refusal(&b, "inputs float32 and float32, output float32 (supported: int8, int32 or "
                     "float32 inputs of one type, bool output)");
  spec i5[2] = {{.name = "a", .dtype = MP_DTYPE_FLOAT32, .rank = 5, .shape = {1, 1, 1, 2, 3}},
                {.name = "b", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = {3}}};
  spec o5 = {.name = "y", .dtype = MP_DTYPE_BOOL, .rank = 5, .shape = {1, 1, 1, 2, 3}};
  one_op(&b, EQUAL_OP, 2, i5, &o5);
  expect_refusal(&b, "broadcasting of rank above 4 (TFLite Micro's limit)");
  /* shapes that differ only by a leading 1 still take TFLM's 4-D
   * broadcast; equal shapes of rank 5 go element by element */
  i5[1].rank = 4;
  memcpy(i5[1].shape, (const int32_t[]){1, 1, 2, 3}, 4 * sizeof(int32_t));
  one_op(&b, EQUAL_OP, 2, i5, &o5);
  expect_refusal(&b, "broadcasting of rank above 4 (TFLite Micro's limit)");
  i5[1] = i5[0];
  i5[1].name = "b";
  one_op(&b, EQUAL_OP, 2, i5, &o5);
  mp_lowered_op lo5;
  lower_k(&b, &lo5, MP_K_COMPARE);
  assert_int_equal(lo5.params.compare.b.elementwise, 1);
  mp_lower_free(&lo5);
  drop(&b);
}

static void logical_operators_broadcast_bools(void **state) {
  (void)state;
  /* a [2,2] = [[1,0],[1,1]] against b [2] = [0,1]; NOT of a */
  static const uint8_t a[4] = {1, 0, 1, 1}, bv[2] = {0, 1};
  static const uint8_t and_[4] = {0, 0, 0, 1}, or_[4] = {1, 1, 1, 1}, not_[4] = {0, 1, 0, 0};
  for (int k = 0; k < 3; k++) {
    spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_BOOL, .rank = 2, .shape = {2, 2}},
                   {.name = "b", .dtype = MP_DTYPE_BOOL, .rank = 1, .shape = {2}}};
    spec out = {.name = "y", .dtype = MP_DTYPE_BOOL, .rank = 2, .shape = {2, 2}};
    built b;
    mp_lowered_op lo;
    one_op(&b, k == 0 ? LOGICAL_AND_OP : k == 1 ? LOGICAL_OR_OP : LOGICAL_NOT_OP, k == 2 ? 1 : 2,
           ins, &out);
    lower_k(&b, &lo, MP_K_LOGICAL);
    uint8_t y[4];
    assert_int_equal(mpk_logical(&lo.params.logical, a, k == 2 ? NULL : bv, y, NULL), MPK_OK);
    assert_memory_equal(y, k == 0 ? and_ : k == 1 ? or_ : not_, 4);
    mp_lower_free(&lo);
    drop(&b);
  }
  spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                  .scale = {0.5f}},
                 {.name = "b", .dtype = MP_DTYPE_BOOL, .rank = 1, .shape = {2}}};
  spec out = {.name = "y", .dtype = MP_DTYPE_BOOL, .rank = 1, .shape = {2}};
  built b;
  one_op(&b, LOGICAL_OR_OP, 2, ins, &out);
  expect_refusal(&b, "int8 input, bool output (supported: bool)");
}

static void select_picks_x_or_y_with_broadcasting(void **state) {
  (void)state;
  /* SELECT_V2: condition [2,1] = [[1],[0]], x [2,3] = 1..6, y [3] =
   * [-1,-2,-3]: row 0 from x, row 1 from y -> [1,2,3,-1,-2,-3].  SELECT:
   * a rank-1 condition [2] = [0,1] over x's rows, y [2,3] = -1..-6 ->
   * [-1,-2,-3,4,5,6].  Equal shapes go element by element. */
  static const int32_t dts[4] = {MP_DTYPE_INT8, MP_DTYPE_INT16, MP_DTYPE_INT32, MP_DTYPE_FLOAT32};
  static const uint8_t c21[2] = {1, 0}, c2[2] = {0, 1}, c6[6] = {1, 0, 0, 1, 0, 1};
  static const int32_t want_v2[6] = {1, 2, 3, -1, -2, -3}, want_v1[6] = {-1, -2, -3, 4, 5, 6};
  static const int32_t want_eq[6] = {1, -2, -3, 4, -5, 6};
  for (int k = 0; k < 4; k++) {
    int32_t dt = dts[k];
    size_t es = k == 0 ? 1 : k == 1 ? 2 : 4;
    bool q = k < 2;
    for (int form = 0; form < 3; form++) {
      union {
        int8_t i8[6];
        int16_t i16[6];
        int32_t i32[6];
        float f[6];
      } x, y, got, want;
      for (int i = 0; i < 6; i++) {
        int32_t xv = i + 1, yv = form == 0 ? -(i % 3) - 1 : -i - 1;
        int32_t wv = form == 0 ? want_v2[i] : form == 1 ? want_v1[i] : want_eq[i];
        if (k == 0) x.i8[i] = (int8_t)xv, y.i8[i] = (int8_t)yv, want.i8[i] = (int8_t)wv;
        if (k == 1) x.i16[i] = (int16_t)(xv * 1000), y.i16[i] = (int16_t)(yv * 1000),
                    want.i16[i] = (int16_t)(wv * 1000);
        if (k == 2) x.i32[i] = xv * 100000, y.i32[i] = yv * 100000, want.i32[i] = wv * 100000;
        if (k == 3) x.f[i] = (float)xv + 0.25f, y.f[i] = (float)yv + 0.25f,
                    want.f[i] = (float)wv + 0.25f;
      }
      spec ins[3] = {{.name = "c", .dtype = MP_DTYPE_BOOL, .rank = form == 1 ? 1u : 2u,
                      .shape = {2, form == 2 ? 3 : 1}},
                     {.name = "x", .dtype = dt, .rank = 2, .shape = {2, 3}, .n_scale = q ? 1 : 0,
                      .scale = {0.5f}},
                     {.name = "y", .dtype = dt, .rank = form == 0 ? 1u : 2u,
                      .shape = {form == 0 ? 3 : 2, 3}, .n_scale = q ? 1 : 0, .scale = {0.25f}}};
      spec out = {.name = "o", .dtype = dt, .rank = 2, .shape = {2, 3}, .n_scale = q ? 1 : 0,
                  .scale = {0.5f}};
      built b;
      mp_lowered_op lo;
      one_op(&b, form == 1 ? SELECT_OP : SELECT_V2_OP, 3, ins, &out);
      lower_k(&b, &lo, MP_K_SELECT);
      assert_int_equal(lo.params.select.elementwise, form == 2);
      memset(&got, 0x5a, sizeof got);
      assert_int_equal(mpk_select(&lo.params.select, form == 0 ? c21 : form == 1 ? c2 : c6, &x,
                                  &y, &got, NULL),
                       MPK_OK);
      assert_memory_equal(&got, &want, 6 * es);
      mp_lower_free(&lo);
      drop(&b);
    }
  }
  spec ins[3] = {{.name = "c", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                  .scale = {1.0f}},
                 {.name = "x", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = {2}},
                 {.name = "y", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = {2}}};
  spec out = {.name = "o", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = {2}};
  built b;
  one_op(&b, SELECT_V2_OP, 3, ins, &out);
  expect_refusal(&b, "condition int8, inputs float32 and float32, output float32 (supported: a "
                     "bool condition; int8, int16, int32 or float32 of one type)");
  spec i6[3] = {{.name = "c", .dtype = MP_DTYPE_BOOL, .rank = 6, .shape = {1, 1, 1, 1, 2, 1}},
                {.name = "x", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = {3}},
                {.name = "y", .dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = {3}}};
  spec o6 = {.name = "o", .dtype = MP_DTYPE_FLOAT32, .rank = 6, .shape = {1, 1, 1, 1, 2, 3}};
  one_op(&b, SELECT_V2_OP, 3, i6, &o6);
  expect_refusal(&b, "broadcasting of rank above 5 (TFLite Micro's limit)");
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void floor_div_and_floor_mod_round_toward_minus_infinity(void **state) {
  (void)state;
  /* int32: floor(7 / 2) = 3, floor(-7 / 2) = -4, floor(7 / -2) = -4,
   * floor(-7 / -2) = 3, floor(-6 / 3) = -2; the remainders take the
   * divisor's sign: 7 mod 2 = 1, -7 mod 2 = 1, 7 mod -2 = -1, -7 mod -2 =
   * -1, -6 mod 3 = 0.  INT32_MIN / -1 (2^31) saturates, INT32_MIN mod -1
   * is 0. */
  static const int32_t a[6] = {7, -7, 7, -7, -6, INT32_MIN}, d[6] = {2, 2, -2, -2, 3, -1};
  static const int32_t div_want[6] = {3, -4, -4, 3, -2, INT32_MAX}, mod_want[6] = {1, 1, -1, -1, 0, 0};
  /* float32: 7.5 and -7.5 over 2 and -2: floor division 3, -4, -4, 3;
   * remainders 1.5, 0.5, -0.5, -1.5; -4 mod 2 is fmodf's -0 (kept: a zero
   * remainder is never moved); 5 over 0.5: 10, remainder +0. */
  static const float af[6] = {7.5f, -7.5f, 7.5f, -7.5f, -4.0f, 5.0f},
                     df[6] = {2, 2, -2, -2, 2, 0.5f};
  static const float fdiv_want[6] = {3, -4, -4, 3, -2, 10}, fmod_want[6] = {1.5f, 0.5f, -0.5f, -1.5f,
                                                                          -0.0f, 0.0f};
  for (int t = 0; t < 2; t++) {
    int32_t dt = t ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT32;
    for (int m = 0; m < 2; m++) {
      spec ins[2] = {{.name = "a", .dtype = dt, .rank = 1, .shape = {6}},
                     {.name = "d", .dtype = dt, .rank = 1, .shape = {6}}};
      spec out = {.name = "y", .dtype = dt, .rank = 1, .shape = {6}};
      built b;
      mp_lowered_op lo;
      one_op(&b, m ? FLOOR_MOD_OP : FLOOR_DIV_OP, 2, ins, &out);
      lower_k(&b, &lo, MP_K_FLOOR);
      assert_int_equal(lo.params.floor.in2_size, 6);
      union {
        int32_t i[6];
        float f[6];
      } y;
      assert_int_equal(mpk_floor_div_mod(&lo.params.floor, t ? (const void *)af : (const void *)a,
                                         t ? (const void *)df : (const void *)d, &y, NULL),
                       MPK_OK);
      for (int i = 0; i < 6; i++) {
        if (t)
          assert_int_equal(f32_bits(y.f[i]), f32_bits(m ? fmod_want[i] : fdiv_want[i]));
        else
          assert_int_equal(y.i[i], m ? mod_want[i] : div_want[i]);
      }
      /* a zero divisor (float32: -0 too) is the module status
       * MPK_ERR_DIV_ZERO, nothing written; float32 FLOOR_MOD gives NaN */
      union {
        int32_t i[6];
        float f[6];
      } dz, y2;
      memcpy(&dz, t ? (const void *)df : (const void *)d, sizeof dz);
      if (t)
        dz.f[3] = -0.0f;
      else
        dz.i[3] = 0;
      memset(&y2, 0x5a, sizeof y2);
      int32_t st = mpk_floor_div_mod(&lo.params.floor, t ? (const void *)af : (const void *)a, &dz,
                                     &y2, NULL);
      if (t && m) {
        assert_int_equal(st, MPK_OK);
        assert_true(y2.f[3] != y2.f[3]);
      } else {
        assert_int_equal(st, MPK_ERR_DIV_ZERO);
        for (int i = 0; i < 6; i++) assert_int_equal((uint32_t)y2.i[i], 0x5a5a5a5au);
      }
      mp_lower_free(&lo);
      drop(&b);
    }
  }
  /* broadcasting: [2,2] by a scalar-like [1] divisor -3: -7, -1, 0, 8 ->
   * floor division 2, 0, 0, -3; remainders -1, -1, 0, -1 */
  static const int32_t bx[4] = {-7, -1, 0, 8}, bd[1] = {-3};
  static const int32_t bdiv[4] = {2, 0, 0, -3}, bmod[4] = {-1, -1, 0, -1};
  for (int m = 0; m < 2; m++) {
    spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_INT32, .rank = 2, .shape = {2, 2}},
                   {.name = "d", .dtype = MP_DTYPE_INT32, .rank = 1, .shape = {1}}};
    spec out = {.name = "y", .dtype = MP_DTYPE_INT32, .rank = 2, .shape = {2, 2}};
    built b;
    mp_lowered_op lo;
    one_op(&b, m ? FLOOR_MOD_OP : FLOOR_DIV_OP, 2, ins, &out);
    lower_k(&b, &lo, MP_K_FLOOR);
    int32_t y[4];
    assert_int_equal(mpk_floor_div_mod(&lo.params.floor, bx, bd, y, NULL), MPK_OK);
    assert_memory_equal(y, m ? bmod : bdiv, sizeof y);
    mp_lower_free(&lo);
    drop(&b);
  }
  spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                  .scale = {0.5f}},
                 {.name = "d", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
                  .scale = {0.5f}}};
  spec out = {.name = "y", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {2}, .n_scale = 1,
              .scale = {0.5f}};
  built b;
  one_op(&b, FLOOR_DIV_OP, 2, ins, &out);
  expect_refusal(&b, "inputs int8 and int8, output int8 (supported: int32 or float32)");
}

static void add_n_sums_in_input_order(void **state) {
  (void)state;
  /* int32 wraps: INT32_MAX + 1 + 0 = INT32_MIN; float32 starts from +0,
   * so -0 + -0 + -0 gives +0, and 1e8 + 1 - 1e8 = 0 (the 1 is lost in the
   * first sum) */
  static const int32_t i0[3] = {INT32_MAX, 5, -2}, i1[3] = {1, 6, -3}, i2[3] = {0, 7, -4};
  static const int32_t iwant[3] = {INT32_MIN, 18, -9};
  static const float f0[3] = {-0.0f, 1e8f, 0.5f}, f1[3] = {-0.0f, 1.0f, 0.25f},
                     f2[3] = {-0.0f, -1e8f, 0.125f};
  static const float fwant[3] = {0.0f, 0.0f, 0.875f};
  for (int t = 0; t < 2; t++) {
    int32_t dt = t ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT32;
    spec ins[3] = {{.name = "a", .dtype = dt, .rank = 1, .shape = {3}},
                   {.name = "b", .dtype = dt, .rank = 1, .shape = {3}},
                   {.name = "c", .dtype = dt, .rank = 1, .shape = {3}}};
    spec out = {.name = "y", .dtype = dt, .rank = 1, .shape = {3}};
    built b;
    mp_lowered_op lo;
    one_op(&b, ADD_N_OP, 3, ins, &out);
    lower_k(&b, &lo, MP_K_ADD_N);
    assert_int_equal(lo.params.add_n.n_inputs, 3);
    const void *in[3] = {t ? (const void *)f0 : (const void *)i0,
                         t ? (const void *)f1 : (const void *)i1,
                         t ? (const void *)f2 : (const void *)i2};
    union {
      int32_t i[3];
      float f[3];
    } y;
    assert_int_equal(mpk_add_n(&lo.params.add_n, in, &y, NULL), MPK_OK);
    for (int i = 0; i < 3; i++) {
      if (t)
        assert_int_equal(f32_bits(y.f[i]), f32_bits(fwant[i]));
      else
        assert_int_equal(y.i[i], iwant[i]);
    }
    mp_lower_free(&lo);
    drop(&b);
  }
  spec ins[2] = {{.name = "a", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {3}, .n_scale = 1,
                  .scale = {0.5f}},
                 {.name = "b", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {3}, .n_scale = 1,
                  .scale = {0.5f}}};
  spec out = {.name = "y", .dtype = MP_DTYPE_INT8, .rank = 1, .shape = {3}, .n_scale = 1,
              .scale = {0.5f}};
  built b;
  one_op(&b, ADD_N_OP, 2, ins, &out);
  expect_refusal(&b, "int8 output (supported: int32 or float32)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(conv_lowering_precomputes_padding_multipliers_and_relu6),
      cmocka_unit_test(conv_with_a_wrong_output_shape_is_a_model_error),
      cmocka_unit_test(conv_with_the_largest_stride_lowers_without_overflow),
      cmocka_unit_test(conv_whose_window_reaches_beyond_32_bits_is_a_model_error),
      cmocka_unit_test(a_malformed_operator_fails_kernel_preparation_even_when_unsupported_is_allowed),
      cmocka_unit_test(conv_with_tanh_or_int16_is_unsupported_with_a_reason),
      cmocka_unit_test(depthwise_lowering_derives_the_depth_multiplier_and_dilation),
      cmocka_unit_test(fully_connected_takes_the_scale_product_in_float),
      cmocka_unit_test(float_fully_connected_prints_the_float_range),
      cmocka_unit_test(float_fully_connected_with_tanh_or_sign_bit_clamps_nothing),
      cmocka_unit_test(pooling_lowers_window_padding_and_activation),
      cmocka_unit_test(int16_pooling_lowers_to_the_int16_kernels_with_an_int16_range),
      cmocka_unit_test(int16_relu_relu6_maximum_minimum_follow_their_definitions),
      cmocka_unit_test(add_lowering_rescales_both_inputs_and_broadcasts),
      cmocka_unit_test(softmax_lowering_prints_the_exact_params),
      cmocka_unit_test(softmax_with_a_foreign_output_scale_is_unsupported),
      cmocka_unit_test(logistic_lowering_uses_frexp_and_the_q4_radius),
      cmocka_unit_test(quantize_lowers_float_and_integer_inputs),
      cmocka_unit_test(mean_asks_for_int32_scratch_and_runs_on_garbage),
      cmocka_unit_test(kernels_prepare_adds_the_mean_scratch_and_the_plan_places_it),
      cmocka_unit_test(lstm_variants_are_refused_naming_the_feature),
      cmocka_unit_test(kernels_prepare_lists_every_unsupported_op_or_warns_when_allowed),
      cmocka_unit_test(pad_and_transpose_and_concat_lower_to_byte_movers),
      cmocka_unit_test(reshape_of_a_constant_is_a_copy),
      cmocka_unit_test(int16_batch_matmul_matches_the_16x8_fully_connected),
      cmocka_unit_test(int16_batch_matmul_needs_zero_points_0),
      cmocka_unit_test(int16_rsqrt_matches_the_int8_rsqrt_where_both_reach),
      cmocka_unit_test(shape_into_a_graph_output_runs_a_kernel),
      cmocka_unit_test(shape_inside_the_graph_folds_through_its_kernel),
      cmocka_unit_test(check_all_lists_every_unsupported_operator),
      cmocka_unit_test(kernel_names_cover_every_kernel),
      cmocka_unit_test(sixteen_by_eight_biases_are_taken_up_to_the_requantisation_range),
      cmocka_unit_test(conv16_without_or_with_an_int32_bias_runs_in_32_bits),
      cmocka_unit_test(int8_elementwise_ops_become_a_table_on_cortex_m),
      cmocka_unit_test(sixteen_bit_requantisation_limits_are_refused_by_name),
      cmocka_unit_test(lowering_survives_every_fixture_and_random_graphs),
      cmocka_unit_test(depth_to_space_and_space_to_depth_move_blocks),
      cmocka_unit_test(depth_to_space_refusals_name_the_reason),
      cmocka_unit_test(mirror_pad_reflects_or_repeats_the_edge),
      cmocka_unit_test(mirror_pad_refusals_name_the_reason),
      cmocka_unit_test(float_unary_math_matches_worked_values),
      cmocka_unit_test(float_row_ops_work_row_by_row),
      cmocka_unit_test(quantized_abs_and_relu_bounds_match_worked_values),
      cmocka_unit_test(unary_math_refusals_name_the_reason),
      cmocka_unit_test(space_to_batch_and_back_follow_tensorflows_examples),
      cmocka_unit_test(space_to_batch_refusals_name_the_reason),
      cmocka_unit_test(reverse_v2_follows_tensorflows_example),
      cmocka_unit_test(gather_nd_follows_tensorflows_examples_and_checks_indices),
      cmocka_unit_test(broadcast_to_fill_and_zeros_like_write_their_definitions),
      cmocka_unit_test(embedding_lookup_gathers_rows_and_checks_ids),
      cmocka_unit_test(constant_movement_folds_through_its_kernels),
      cmocka_unit_test(reduce_min_and_arg_min_take_the_first_smallest),
      cmocka_unit_test(comparisons_broadcast_and_rescale_int8),
      cmocka_unit_test(logical_operators_broadcast_bools),
      cmocka_unit_test(select_picks_x_or_y_with_broadcasting),
      cmocka_unit_test(floor_div_and_floor_mod_round_toward_minus_infinity),
      cmocka_unit_test(add_n_sums_in_input_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
