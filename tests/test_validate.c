/*
 * test_validate.c — the model validator (src/read/validate.c), which the reader
 * runs last: a model whose values contradict each other never loads.
 * Each case writes a small model with memplan's own writer, one value
 * wrong, and asserts MP_ERR_MODEL with one error naming the subgraph, the
 * tensor, the field and the byte offset of the tensor's table.  The same
 * model with the value right must load, so each case shows the check is
 * the one that fired.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "read/flatbuf.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A one-op model: input x int8[1,4], one constant `c` as described, and
 * output y; the op is a custom one, so only the validator looks at `c`. */
typedef struct cspec {
  int32_t dtype;
  uint32_t rank;
  int32_t shape[4];
  size_t bytes;             /* constant bytes, 0 = no buffer */
  uint32_t n_scale;
  float scale[4];
  uint32_t n_zp;
  int64_t zp[4];
  int32_t qdim;
} cspec;

static mp_status load(const cspec *c, tu_diags *d, uint32_t *tensor_pos) {
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  static uint8_t zeros[4096];
  assert_true(c->bytes <= sizeof zeros);
  mp_tfw_add_simple_tensor(w, "x", MP_DTYPE_INT8, 2, (const int32_t[]){1, 4});
  mp_tfw_tensor t = {.name = "c", .dtype = c->dtype, .rank = c->rank, .shape = c->shape};
  if (c->bytes) t.buffer = mp_tfw_add_buffer(w, zeros, c->bytes);
  if (c->n_scale || c->n_zp) {
    t.has_quant = true;
    t.quant = (mp_quant){c->n_scale, c->scale, c->n_zp, c->zp, c->qdim};
  }
  mp_tfw_add_tensor(w, &t);
  mp_tfw_add_simple_tensor(w, "y", MP_DTYPE_INT8, 2, (const int32_t[]){1, 4});
  mp_tfw_op op = {.builtin_code = 32, .custom_code = "Mine", .n_inputs = 2,
                  .inputs = (const int32_t[]){0, 1}, .n_outputs = 1,
                  .outputs = (const int32_t[]){2}};
  mp_tfw_add_op(w, &op);
  mp_tfw_set_io(w, 1, (const int32_t[]){0}, 1, (const int32_t[]){2});
  uint8_t *bytes;
  size_t size;
  assert_int_equal(mp_tfw_finish(w, &bytes, &size), MP_OK);
  mp_tfw_free(&w);
  /* where tensor 1's table starts, found with the flatbuffer primitives */
  fb_file f;
  fb_init(&f, bytes, size, "v.tflite", NULL);
  fb_table root, sg, tt;
  fb_vec sgs, tensors;
  assert_true(fb_root(&f, "TFL3", &root));
  assert_true(fb_vector(&root, 2, 4, &sgs));
  assert_true(fb_vec_table(&f, &sgs, 0, "sg", &sg));
  assert_true(fb_vector(&sg, 0, 4, &tensors));
  assert_true(fb_vec_table(&f, &tensors, 1, "t", &tt));
  *tensor_pos = tt.pos;
  tu_diags_init(d);
  mp_model *m = NULL;
  mp_status st = mp_model_parse(bytes, size, "v.tflite", &d->sink, &m);
  if (st == MP_OK) assert_non_null(m);
  mp_model_free(&m);
  free(bytes);
  return st;
}

/* `bad` must fail naming `msg` at tensor 1's table; `good` must load. */
static void expect_rejected(const cspec *bad, const cspec *good, const char *msg) {
  tu_diags d;
  uint32_t pos;
  assert_int_equal(load(good, &d, &pos), MP_OK);
  assert_int_equal(d.n_errors, 0);
  assert_int_equal(load(bad, &d, &pos), MP_ERR_MODEL);
  assert_int_equal(d.n_errors, 1);
  if (!tu_diags_has(&d, msg)) fail_msg("want '%s', got: %s", msg, d.text);
  assert_true(tu_diags_has(&d, "subgraphs[0].tensors[1] 'c': "));
  assert_int_equal(d.last_byte_offset, (int64_t)pos);
}

static void a_constant_shorter_than_its_shape_is_rejected(void **state) {
  (void)state;
  /* the CONV_2D bias of the field report: int32[64] with 8 bytes */
  cspec good = {.dtype = MP_DTYPE_INT32, .rank = 1, .shape = {64}, .bytes = 256};
  cspec bad = good;
  bad.bytes = 8;
  expect_rejected(&bad, &good, "buffer: buffer 1 holds 8 bytes, but int32[64] needs 256");
}

static void a_constant_longer_than_its_shape_is_rejected(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_INT8, .rank = 2, .shape = {3, 5}, .bytes = 15};
  cspec bad = good;
  bad.bytes = 16;
  expect_rejected(&bad, &good, "buffer 1 holds 16 bytes, but int8[3,5] needs 15");
}

static void packed_int4_constants_count_half_bytes(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_INT4, .rank = 1, .shape = {5}, .bytes = 3};
  cspec bad = good;
  bad.bytes = 5;
  expect_rejected(&bad, &good, "buffer 1 holds 5 bytes, but int4[5] needs 3");
}

static void extreme_filter_dimensions_are_rejected_before_any_arithmetic(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_INT8, .rank = 4, .shape = {1, 3, 3, 2}, .bytes = 18};
  cspec bad = good;
  bad.shape[1] = 2147483647;
  expect_rejected(&bad, &good, "int8[1,2147483647,3,2] needs 12884901882");
  bad.shape[1] = INT32_MIN;
  expect_rejected(&bad, &good, "shape: dimension 1 is -2147483648 (a size, or -1 for unknown)");
  bad.shape[1] = -1;
  expect_rejected(&bad, &good, "int8[1,-1,3,2] has an unknown dimension but constant bytes");
}

static void a_shape_beyond_64_bits_is_rejected(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_FLOAT32, .rank = 4, .shape = {4, 4, 4, 4}};
  cspec bad = good;
  for (int i = 0; i < 4; i++) bad.shape[i] = 2147483647;
  expect_rejected(&bad, &good, "has more than 2^57 elements");
}

static void non_finite_or_negative_scales_are_rejected(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_INT8, .rank = 2, .shape = {1, 4}, .n_scale = 1,
                .scale = {0.5f}, .n_zp = 1};
  cspec bad = good;
  bad.scale[0] = NAN;
  expect_rejected(&bad, &good, "quantization.scale: scale[0] is nan");
  bad.scale[0] = INFINITY;
  expect_rejected(&bad, &good, "scale[0] is inf (must be finite and not negative)");
  bad.scale[0] = -0.5f;
  expect_rejected(&bad, &good, "scale[0] is -0.5");
}

static void zero_points_outside_the_type_are_rejected(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_INT8, .rank = 2, .shape = {1, 4}, .n_scale = 1,
                .scale = {0.5f}, .n_zp = 1, .zp = {-128}};
  cspec bad = good;
  bad.zp[0] = 128;
  expect_rejected(&bad, &good,
                  "quantization.zero_point: zero_point[0] is 128, outside [-128, 127] of int8");
  bad.dtype = MP_DTYPE_INT32;
  bad.zp[0] = INT64_C(1) << 40;
  good.dtype = MP_DTYPE_INT32;
  expect_rejected(&bad, &good, "outside [-2147483647, 2147483647] of int32");
}

static void per_channel_scales_must_match_their_dimension(void **state) {
  (void)state;
  cspec good = {.dtype = MP_DTYPE_INT8, .rank = 4, .shape = {3, 1, 1, 2}, .bytes = 6,
                .n_scale = 3, .scale = {1, 2, 3}, .n_zp = 3, .qdim = 0};
  cspec bad = good;
  bad.qdim = 3;
  expect_rejected(&bad, &good, "3 per-channel scales for dimension 3 of int8[3,1,1,2]");
  bad.qdim = 7;
  expect_rejected(&bad, &good, "quantized_dimension: 7 is not a dimension of int8[3,1,1,2]");
  bad = good;
  bad.n_zp = 2;
  expect_rejected(&bad, &good, "quantization.zero_point: 2 zero points for 3 scales");
}

static void a_bias_quantised_along_its_filter_dimension_loads(void **state) {
  (void)state;
  /* converters write int32[3] biases with the filter's quantized_dimension */
  cspec c = {.dtype = MP_DTYPE_INT32, .rank = 1, .shape = {3}, .bytes = 12, .n_scale = 3,
             .scale = {1, 2, 3}, .n_zp = 3, .qdim = 3};
  tu_diags d;
  uint32_t pos;
  assert_int_equal(load(&c, &d, &pos), MP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_constant_shorter_than_its_shape_is_rejected),
      cmocka_unit_test(a_constant_longer_than_its_shape_is_rejected),
      cmocka_unit_test(packed_int4_constants_count_half_bytes),
      cmocka_unit_test(extreme_filter_dimensions_are_rejected_before_any_arithmetic),
      cmocka_unit_test(a_shape_beyond_64_bits_is_rejected),
      cmocka_unit_test(non_finite_or_negative_scales_are_rejected),
      cmocka_unit_test(zero_points_outside_the_type_are_rejected),
      cmocka_unit_test(per_channel_scales_must_match_their_dimension),
      cmocka_unit_test(a_bias_quantised_along_its_filter_dimension_loads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
