/*
 * test_model.c — the bounds-checked reader (src/read/model.c, src/read/flatbuf.c) on
 * malformed input: every truncation of a small model, corrupted offsets,
 * vtables, vector and string lengths, and out-of-range tensor, buffer and
 * opcode indices.  Each must give MP_ERR_MODEL with one error naming what
 * is wrong and the byte offset where, and no crash or leak under ASan.
 * Also what the reader must accept (optional inputs, absent fields,
 * external buffers) and the work budget against amplification.
 *
 * Corruptions are made by navigating a valid fixture with flatbuf.c's own
 * primitives (to find the bytes) and patching them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "read/flatbuf.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

typedef struct blob {
  uint8_t *b;
  size_t n;
} blob;

static blob fixture(const char *name) {
  blob x;
  assert_int_equal(fx_build(name, &x.b, &x.n), MP_OK);
  return x;
}

static blob finish(mp_tfw *w) {
  blob x;
  assert_int_equal(mp_tfw_finish(w, &x.b, &x.n), MP_OK);
  mp_tfw_free(&w);
  return x;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Parse; the model (if any) is freed at once. */
static mp_status parse(const blob *x, size_t n, tu_diags *d) {
  mp_model *m = NULL;
  tu_diags_init(d);
  mp_status st = mp_model_parse(x->b, n, "m.tflite", &d->sink, &m);
  if (st == MP_OK) assert_non_null(m);
  else assert_null(m);
  mp_model_free(&m);
  return st;
}

/* The parse fails with exactly one error: `msg` at byte `offset`. */
static void expect_error(const blob *x, int64_t offset, const char *msg) {
  tu_diags d;
  mp_status st = parse(x, x->n, &d);
  char want[1024];
  snprintf(want, sizeof want, "error: %s\n", msg);
  if (st != MP_ERR_MODEL || d.n_errors != 1 || strcmp(d.text, want) != 0 ||
      d.last_byte_offset != offset)
    fail_msg("status %d, %u errors, offset %lld (want %lld)\n got: %s want: %s", st, d.n_errors,
             (long long)d.last_byte_offset, (long long)offset, d.text, want);
}

/* Navigation over a valid file. */
typedef struct nav {
  fb_file f;
  fb_table root;
} nav;

static void nav_init(nav *v, const blob *x) {
  fb_init(&v->f, x->b, x->n, "nav", NULL);
  assert_true(fb_root(&v->f, "TFL3", &v->root));
}

/* Position of field `id` of table t (must be present). */
static uint32_t field_pos(const fb_table *t, uint32_t id) {
  uint32_t pos;
  assert_true(fb_field(t, id, 1, &pos));
  assert_true(pos != 0);
  return pos;
}

/* Element i of the vector-of-tables field `id` of t. */
static fb_table child(nav *v, const fb_table *t, uint32_t id, uint32_t i) {
  fb_vec vec;
  fb_table out;
  assert_true(fb_vector(t, id, 4, &vec));
  assert_true(i < vec.len);
  assert_true(fb_vec_table(&v->f, &vec, i, "nav", &out));
  return out;
}

/* Position of the length word of the vector field `id` of t. */
static uint32_t vector_len_pos(const fb_table *t, uint32_t id) {
  fb_vec vec;
  assert_true(fb_vector(t, id, 1, &vec));
  assert_true(vec.pos != 0);
  return vec.pos - 4;
}

enum { ROOT_SUBGRAPHS = 2, ROOT_DESCRIPTION = 3, ROOT_BUFFERS = 4, ROOT_METADATA = 6 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OPERATORS = 3 };
enum { T_SHAPE = 0, T_NAME = 3, T_SHAPE_SIGNATURE = 7 };
enum { BUF_OFFSET = 1 };

/* ---- truncation and corruption sweeps ----------------------------------- */

static void every_truncation_of_a_small_model_is_rejected_with_an_offset(void **state) {
  (void)state;
  blob x = fixture("tiny");
  size_t first_ok = x.n;
  for (size_t len = 0; len < x.n; len++) {
    /* a copy of exactly `len` bytes, so ASan sees a read past its end */
    blob cut = {malloc(len ? len : 1), len};
    memcpy(cut.b, x.b, len);
    tu_diags d;
    mp_status st = parse(&cut, len, &d);
    free(cut.b);
    if (st == MP_OK) {
      if (first_ok == x.n) first_ok = len;
      continue;
    }
    /* once the needed bytes are all there, no shorter cut may pass */
    assert_int_equal(first_ok, x.n);
    assert_int_equal(st, MP_ERR_MODEL);
    assert_int_equal(d.n_errors, 1);
    assert_true(d.last_byte_offset >= 0);
    /* the offset names a place of the intact file (a reference may point
     * past the cut) */
    assert_true((uint64_t)d.last_byte_offset < x.n);
    assert_true(d.len > strlen("error: \n"));
  }
  /* only the alignment padding after the last buffer's data may go */
  assert_true(x.n - first_ok < 16);
  free(x.b);
}

/* Parse `x` with one byte changed at every position, and every subgraph
 * of whatever parses through the graph analysis: no crash, and every
 * reader error has a byte offset. */
static void sweep_single_bytes(const char *name, const uint8_t *values, size_t n_values) {
  blob x = fixture(name);
  for (size_t i = 0; i < x.n; i++) {
    uint8_t keep = x.b[i];
    for (size_t k = 0; k < n_values; k++) {
      x.b[i] = values[k] == 0xff ? (uint8_t)~keep : values[k];
      if (x.b[i] == keep) continue;
      tu_diags d;
      tu_diags_init(&d);
      mp_model *m = NULL;
      mp_status st = mp_model_parse(x.b, x.n, name, &d.sink, &m);
      if (st != MP_OK) {
        assert_int_equal(st, MP_ERR_MODEL);
        assert_true(d.n_errors >= 1 && d.last_byte_offset >= 0);
        continue;
      }
      for (uint32_t s = 0; s < m->n_subgraphs; s++) {
        mp_graph *g = NULL;
        if (mp_graph_build(m, s, NULL, &d.sink, &g) == MP_OK) (void)mp_graph_lower_bound(g, 16);
        mp_graph_free(&g);
      }
      mp_model_free(&m);
    }
    x.b[i] = keep;
  }
  free(x.b);
}

static void every_single_byte_corruption_is_handled_without_a_crash(void **state) {
  (void)state;
  static const uint8_t values[] = {0x00, 0xff /* complement */, 0x01, 0x7f, 0x80};
  sweep_single_bytes("tiny", values, sizeof values);
  sweep_single_bytes("view_chain", values, sizeof values);
  sweep_single_bytes("multi_subgraph", values, sizeof values);
}

static void random_multi_byte_corruptions_are_handled_without_a_crash(void **state) {
  (void)state;
  blob x = fixture("intermediates");
  uint64_t s = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    blob y = {malloc(x.n), x.n};
    memcpy(y.b, x.b, x.n);
    for (int k = 0; k < 4; k++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      y.b[(s >> 33) % y.n] = (uint8_t)(s >> 20);
    }
    tu_diags d;
    tu_diags_init(&d);
    mp_model *m = NULL;
    if (mp_model_parse(y.b, y.n, "r", &d.sink, &m) == MP_OK) {
      mp_graph *g = NULL;
      if (mp_graph_build(m, 0, NULL, &d.sink, &g) == MP_OK) (void)mp_graph_lower_bound(g, 16);
      mp_graph_free(&g);
      mp_model_free(&m);
    } else {
      assert_true(d.last_byte_offset >= 0);
    }
    free(y.b);
  }
  free(x.b);
}

/* ---- header, offsets and vtables --------------------------------------- */

static void a_file_shorter_than_a_header_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  for (size_t n = 0; n < 8; n++) {
    blob cut = {x.b, n};
    char msg[80];
    snprintf(msg, sizeof msg, "file is %zu bytes, too short to be a flatbuffer", n);
    cut.n = n;
    expect_error(&cut, 0, msg);
  }
  free(x.b);
}

static void a_wrong_file_identifier_is_named(void **state) {
  (void)state;
  blob x = fixture("tiny");
  memcpy(x.b + 4, "AB\x01" "D", 4);
  expect_error(&x, 4, "not a TFLite model: file identifier is 'AB?D', expected 'TFL3'");
  free(x.b);
}

static void a_root_offset_outside_the_file_or_misaligned_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  char msg[128];
  put_u32(x.b, (uint32_t)x.n + 8);
  snprintf(msg, sizeof msg, "model: table offset %zu is outside the file", x.n + 8);
  expect_error(&x, (int64_t)x.n + 8, msg);
  put_u32(x.b, 18);
  expect_error(&x, 18, "model: table offset 18 is misaligned");
  free(x.b);
}

static void a_vtable_outside_the_file_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  uint32_t pos = v.root.pos;
  int64_t vt = (int64_t)x.n + 2;
  put_u32(x.b + pos, (uint32_t)(int32_t)(pos - vt));
  char msg[128];
  snprintf(msg, sizeof msg, "model: vtable offset %lld is outside the file", (long long)vt);
  expect_error(&x, pos, msg);
  /* and before the start of the file */
  put_u32(x.b + pos, pos + 2);
  expect_error(&x, pos, "model: vtable offset -2 is outside the file");
  free(x.b);
}

static void a_malformed_or_truncated_vtable_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  uint32_t vt = v.root.vt;
  x.b[vt] = 3;
  x.b[vt + 1] = 0;
  expect_error(&x, vt, "model: vtable of 3 bytes is malformed");
  x.b[vt] = 0xfe;
  x.b[vt + 1] = 0xff;
  expect_error(&x, vt, "model: vtable of 65534 bytes is truncated by the end of the file");
  free(x.b);
}

static void a_table_larger_than_the_file_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  x.b[v.root.vt + 2] = 0xff;
  x.b[v.root.vt + 3] = 0xff;
  expect_error(&x, v.root.pos, "model: table of 65535 bytes extends past the end of the file");
  free(x.b);
}

static void a_field_outside_its_table_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  uint16_t size = v.root.tbl_size;
  /* field 2 (subgraphs) placed at the table's end */
  x.b[v.root.vt + 8] = (uint8_t)size;
  x.b[v.root.vt + 9] = (uint8_t)(size >> 8);
  char msg[128];
  snprintf(msg, sizeof msg, "model: field 2 at offset %u lies outside its %u-byte table", size,
           size);
  expect_error(&x, v.root.vt + 8, msg);
  free(x.b);
}

static void an_offset_field_pointing_past_the_end_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  uint32_t p = field_pos(&v.root, ROOT_DESCRIPTION);
  put_u32(x.b + p, (uint32_t)x.n - p + 4);
  char msg[160];
  snprintf(msg, sizeof msg, "model: description points to byte %zu, past the end of the file "
                            "(%zu bytes)", x.n + 4, x.n);
  expect_error(&x, p, msg);
  free(x.b);
}

static void an_element_offset_pointing_past_the_end_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  fb_vec sv;
  assert_true(fb_vector(&v.root, ROOT_SUBGRAPHS, 4, &sv));
  put_u32(x.b + sv.pos, (uint32_t)x.n);
  char msg[160];
  snprintf(msg, sizeof msg, "subgraphs[0]: offset points to byte %zu, past the end of the file "
                            "(%zu bytes)", x.n + sv.pos, x.n);
  expect_error(&x, sv.pos, msg);
  free(x.b);
}

static void a_vector_longer_than_the_file_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  uint32_t lp = vector_len_pos(&v.root, ROOT_SUBGRAPHS);
  put_u32(x.b + lp, 0x10000000u);
  char msg[160];
  snprintf(msg, sizeof msg, "model: subgraphs has 268435456 elements of 4 bytes, running past "
                            "the end of the file (%zu bytes)", x.n);
  expect_error(&x, lp, msg);
  /* the largest length: the byte count must not wrap around */
  put_u32(x.b + lp, 0xffffffffu);
  snprintf(msg, sizeof msg, "model: subgraphs has 4294967295 elements of 4 bytes, running past "
                            "the end of the file (%zu bytes)", x.n);
  expect_error(&x, lp, msg);
  free(x.b);
}

static void a_string_longer_than_the_file_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  fb_table sg = child(&v, &v.root, ROOT_SUBGRAPHS, 0);
  fb_table t1 = child(&v, &sg, SG_TENSORS, 1);
  uint32_t lp = vector_len_pos(&t1, T_NAME);
  put_u32(x.b + lp, 70000);
  char msg[160];
  snprintf(msg, sizeof msg, "subgraphs[0].tensors[1]: name is 70000 bytes long, running past "
                            "the end of the file (%zu bytes)", x.n);
  expect_error(&x, lp, msg);
  free(x.b);
}

static void a_vector_length_cut_by_the_end_of_the_file_is_rejected(void **state) {
  (void)state;
  blob x = fixture("tiny");
  nav v;
  nav_init(&v, &x);
  uint32_t p = field_pos(&v.root, ROOT_DESCRIPTION);
  put_u32(x.b + p, (uint32_t)x.n - 2 - p);
  char msg[160];
  snprintf(msg, sizeof msg, "model: length of description is truncated by the end of the file");
  expect_error(&x, (int64_t)x.n - 2, msg);
  free(x.b);
}

/* ---- indices and values ------------------------------------------------- */

/* A tiny model written with the writer, with one thing wrong. */
typedef enum bad {
  BAD_NONE,
  BAD_TENSOR_BUFFER,
  BAD_OP_INPUT,
  BAD_OP_OUTPUT,
  BAD_OP_INTERMEDIATE,
  BAD_SUBGRAPH_INPUT,
  BAD_SUBGRAPH_OUTPUT,
  BAD_OPCODE_INDEX,
  BAD_METADATA_BUFFER,
  BAD_TENSOR_TYPE,
  BAD_RANK,
  BAD_NEGATIVE_CODE,
} bad;

static blob small_model(bad what) {
  mp_tfw *w = mp_tfw_new();
  int32_t shape17[17];
  for (int i = 0; i < 17; i++) shape17[i] = 1;
  uint32_t opc = what == BAD_NEGATIVE_CODE ? mp_tfw_add_opcode_raw(w, -3, -5, NULL, 1)
                                           : mp_tfw_add_opcode_raw(w, 19, 19, NULL, 1);
  uint8_t data[4] = {1, 2, 3, 4};
  mp_tfw_add_buffer(w, data, 4);
  mp_tfw_add_subgraph(w, "g");
  mp_tfw_tensor in = {.name = "in", .dtype = what == BAD_TENSOR_TYPE ? 42 : MP_DTYPE_INT8,
                      .rank = what == BAD_RANK ? 17 : 2,
                      .shape = what == BAD_RANK ? shape17 : (const int32_t[]){1, 4}};
  mp_tfw_add_tensor(w, &in);
  mp_tfw_tensor k = {.name = "k", .dtype = MP_DTYPE_INT8, .rank = 1,
                     .shape = (const int32_t[]){4},
                     .buffer = what == BAD_TENSOR_BUFFER ? 99 : 1};
  mp_tfw_add_tensor(w, &k);
  mp_tfw_add_simple_tensor(w, "out", MP_DTYPE_INT8, 2, (const int32_t[]){1, 4});
  mp_tfw_op op = {.has_opcode_index = true, .opcode_index = what == BAD_OPCODE_INDEX ? 5 : opc,
                  .n_inputs = 3,
                  .inputs = (const int32_t[]){0, what == BAD_OP_INPUT ? 77 : 1, -1},
                  .n_outputs = 1, .outputs = (const int32_t[]){what == BAD_OP_OUTPUT ? -2 : 2},
                  .n_intermediates = what == BAD_OP_INTERMEDIATE ? 1 : 0,
                  .intermediates = (const int32_t[]){3}};
  mp_tfw_add_op(w, &op);
  mp_tfw_set_io(w, 1, (const int32_t[]){what == BAD_SUBGRAPH_INPUT ? -1 : 0}, 1,
                (const int32_t[]){what == BAD_SUBGRAPH_OUTPUT ? 3 : 2});
  mp_tfw_add_metadata(w, "info", what == BAD_METADATA_BUFFER ? 9 : 1);
  return finish(w);
}

/* Byte offset of table `kind` ("tensor", "op", "subgraph", "metadata",
 * "opcode") index i (of subgraph 0) in x. */
static uint32_t table_pos(const blob *x, const char *kind, uint32_t i) {
  nav v;
  nav_init(&v, x);
  fb_table sg = child(&v, &v.root, ROOT_SUBGRAPHS, 0), t;
  if (!strcmp(kind, "tensor")) t = child(&v, &sg, SG_TENSORS, i);
  else if (!strcmp(kind, "op")) t = child(&v, &sg, SG_OPERATORS, i);
  else if (!strcmp(kind, "metadata")) t = child(&v, &v.root, ROOT_METADATA, i);
  else if (!strcmp(kind, "opcode")) t = child(&v, &v.root, 1, i);
  else t = sg;
  return t.pos;
}

static void check_bad(bad what, const char *kind, uint32_t i, const char *msg) {
  blob x = small_model(what);
  expect_error(&x, table_pos(&x, kind, i), msg);
  free(x.b);
}

static void out_of_range_indices_are_named_with_their_table(void **state) {
  (void)state;
  check_bad(BAD_TENSOR_BUFFER, "tensor", 1,
            "subgraphs[0].tensors[1] 'k': buffer index 99 out of range (model has 2 buffers)");
  check_bad(BAD_OP_INPUT, "op", 0, "subgraphs[0].operators[0].inputs[1]: tensor index 77 out of "
                                   "range (subgraph has 3 tensors)");
  check_bad(BAD_OP_OUTPUT, "op", 0, "subgraphs[0].operators[0].outputs[0]: tensor index -2 out of "
                                    "range (subgraph has 3 tensors)");
  check_bad(BAD_OP_INTERMEDIATE, "op", 0, "subgraphs[0].operators[0].intermediates[0]: tensor "
                                          "index 3 out of range (subgraph has 3 tensors)");
  check_bad(BAD_SUBGRAPH_INPUT, "subgraph", 0,
            "subgraphs[0].inputs[0]: tensor index -1 out of range (subgraph has 3 tensors)");
  check_bad(BAD_SUBGRAPH_OUTPUT, "subgraph", 0,
            "subgraphs[0].outputs[0]: tensor index 3 out of range (subgraph has 3 tensors)");
  check_bad(BAD_OPCODE_INDEX, "op", 0, "subgraphs[0].operators[0]: opcode_index 5 out of range "
                                       "(model has 1 operator codes)");
  check_bad(BAD_METADATA_BUFFER, "metadata", 0,
            "metadata[0] 'info': buffer index 9 out of range (model has 2 buffers)");
}

static void impossible_tensor_types_ranks_and_codes_are_rejected(void **state) {
  (void)state;
  check_bad(BAD_TENSOR_TYPE, "tensor", 0, "subgraphs[0].tensors[0] 'in': unknown tensor type 42");
  blob x = small_model(BAD_RANK);
  tu_diags d;
  assert_int_equal(parse(&x, x.n, &d), MP_ERR_MODEL);
  assert_string_equal(d.text, "error: subgraphs[0].tensors[0] 'in': rank 17 exceeds 16\n");
  free(x.b);
  check_bad(BAD_NEGATIVE_CODE, "opcode", 0, "operator_codes[0]: negative builtin code -3");
}

static void a_shape_signature_of_another_rank_is_rejected(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  mp_tfw_tensor t = {.name = "s", .dtype = MP_DTYPE_INT8, .rank = 2,
                     .shape = (const int32_t[]){1, 4}, .has_shape_signature = true,
                     .shape_signature = (const int32_t[]){-1, 4}};
  mp_tfw_add_tensor(w, &t);
  blob x = finish(w);
  nav v;
  nav_init(&v, &x);
  fb_table sg = child(&v, &v.root, ROOT_SUBGRAPHS, 0);
  fb_table t0 = child(&v, &sg, SG_TENSORS, 0);
  put_u32(x.b + vector_len_pos(&t0, T_SHAPE_SIGNATURE), 1);
  expect_error(&x, t0.pos, "subgraphs[0].tensors[0] 's': shape_signature has 1 entries but shape "
                           "has 2");
  free(x.b);
}

static void external_buffer_data_outside_the_file_is_rejected(void **state) {
  (void)state;
  blob x = fixture("external_weights");
  nav v;
  nav_init(&v, &x);
  fb_table b1 = child(&v, &v.root, ROOT_BUFFERS, 1);
  uint32_t p;
  assert_true(fb_field(&b1, BUF_OFFSET, 8, &p));
  uint64_t off = fb_load_u64(x.b + p);
  assert_true(off > 1 && off % 16 == 0);
  put_u32(x.b + p, (uint32_t)x.n - 31); /* 32 bytes from here run one past the end */
  char msg[160];
  snprintf(msg, sizeof msg, "buffers[1]: external data at offset %zu size 32 lies outside the "
                            "file (%zu bytes)", x.n - 31, x.n);
  expect_error(&x, b1.pos, msg);
  free(x.b);
}

static void a_model_referencing_one_large_string_many_times_is_refused(void **state) {
  (void)state;
  /* 4096 tensors; then every entry of the tensors vector is made to point
   * at tensor 0, whose name is 64 KiB: 256 MiB of names from a file of
   * about 200 KiB.  The work budget stops it. */
  mp_tfw *w = mp_tfw_new();
  char *big = malloc(65537);
  memset(big, 'n', 65536);
  big[65536] = '\0';
  mp_tfw_add_simple_tensor(w, big, MP_DTYPE_INT8, 1, (const int32_t[]){4});
  free(big);
  for (int i = 1; i < 4096; i++)
    mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  blob x = finish(w);
  nav v;
  nav_init(&v, &x);
  fb_table sg = child(&v, &v.root, ROOT_SUBGRAPHS, 0);
  fb_vec tv;
  assert_true(fb_vector(&sg, SG_TENSORS, 4, &tv));
  uint32_t t0 = tv.pos + fb_load_u32(x.b + tv.pos);
  for (uint32_t i = 1; i < tv.len; i++) {
    uint32_t at = tv.pos + 4 * i;
    if (t0 > at) put_u32(x.b + at, t0 - at);
  }
  tu_diags d;
  assert_int_equal(parse(&x, x.n, &d), MP_ERR_MODEL);
  char msg[160];
  snprintf(msg, sizeof msg, "model references the same data too many times for its size (%zu "
                            "bytes): refusing to expand it", x.n);
  assert_true(tu_diags_has(&d, msg));
  assert_int_equal(d.n_errors, 1);
  free(x.b);
}

/* ---- what the reader accepts ------------------------------------------- */

static void optional_inputs_and_outputs_stay_minus_one(void **state) {
  (void)state;
  mp_model *m = fx_model("view_chain");
  assert_non_null(m);
  const mp_op_def *op = &m->subgraphs[0].ops[0];
  assert_int_equal(op->n_inputs, 3);
  assert_int_equal(op->inputs[2], -1);
  mp_model_free(&m);
  blob x = small_model(BAD_NONE);
  tu_diags d;
  assert_int_equal(parse(&x, x.n, &d), MP_OK);
  free(x.b);
}

static void absent_fields_read_as_the_schema_defaults(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  /* a float32 tensor on buffer 0 without a name: type, buffer and name
   * fields are all left out of the table */
  mp_tfw_tensor t = {.dtype = MP_DTYPE_FLOAT32, .rank = 1, .shape = (const int32_t[]){3}};
  mp_tfw_add_tensor(w, &t);
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 0, .n_inputs = 1,
                                .inputs = (const int32_t[]){0}});
  blob x = finish(w);
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(x.b, x.n, "d", NULL, &m), MP_OK);
  const mp_tensor_def *td = &m->subgraphs[0].tensors[0];
  assert_int_equal(td->dtype, MP_DTYPE_FLOAT32);
  assert_int_equal(td->buffer, 0);
  assert_string_equal(td->name, "");
  assert_false(td->is_variable);
  assert_false(td->has_quant);
  assert_string_equal(m->description, "");
  assert_string_equal(m->subgraphs[0].name, "");
  assert_int_equal(m->opcodes[0].version, 1);
  assert_int_equal(m->opcodes[0].resolved_code, 0);
  assert_int_equal(m->subgraphs[0].ops[0].opcode_index, 0);
  assert_int_equal(m->n_metadata, 0);
  mp_model_free(&m);
  free(x.b);
}

static void a_model_without_buffers_may_use_buffer_zero(void **state) {
  (void)state;
  blob x = fixture("multi_subgraph");
  nav v;
  nav_init(&v, &x);
  put_u32(x.b + vector_len_pos(&v.root, ROOT_BUFFERS), 0);
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(x.b, x.n, "nb", NULL, &m), MP_OK);
  assert_int_equal(m->n_buffers, 0);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 1, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[0].role, MP_ROLE_SCRATCH);
  mp_graph_free(&g);
  mp_model_free(&m);
  free(x.b);
}

static void external_buffers_point_into_the_file(void **state) {
  (void)state;
  mp_model *m = fx_model("external_weights");
  assert_non_null(m);
  const mp_buffer_def *b = &m->buffers[1];
  assert_true(b->external);
  assert_int_equal(b->size, 32);
  assert_int_equal(b->file_offset % 16, 0);
  assert_ptr_equal(b->data, m->bytes + b->file_offset);
  assert_int_equal((int8_t)b->data[0], -100);
  assert_int_equal((int8_t)b->data[1], -91);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[1].role, MP_ROLE_CONSTANT);
  assert_int_equal(g->tensors[1].size, 32);
  assert_ptr_equal(g->tensors[1].data, b->data);
  mp_graph_free(&g);
  mp_model_free(&m);
}

static void the_model_keeps_its_own_copy_of_the_bytes(void **state) {
  (void)state;
  blob x = fixture("tiny");
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(x.b, x.n, "copy", NULL, &m), MP_OK);
  memset(x.b, 0, x.n);
  free(x.b);
  assert_string_equal(m->description, "tiny fixture");
  assert_string_equal(m->path, "copy");
  assert_int_equal(m->buffers[1].size, 32);
  assert_int_equal((int8_t)m->buffers[1].data[0], -100);
  mp_model_free(&m);
  assert_null(m);
  mp_model_free(&m); /* a second free is harmless */
  mp_model_free(NULL);
}

static void a_missing_file_is_an_io_error_naming_the_path(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = (mp_model *)&d; /* must be reset to NULL */
  assert_int_equal(mp_model_load("/nonexistent/model.tflite", &d.sink, &m), MP_ERR_IO);
  assert_null(m);
  assert_int_equal(d.n_errors, 1);
}

static void metadata_and_description_are_read(void **state) {
  (void)state;
  mp_model *m = fx_model("tiny");
  assert_non_null(m);
  assert_string_equal(m->description, "tiny fixture");
  assert_int_equal(m->n_metadata, 1);
  assert_string_equal(m->metadata[0].name, "min_runtime_version");
  assert_int_equal(m->metadata[0].buffer, 4);
  assert_int_equal(m->buffers[4].size, 6);
  assert_memory_equal(m->buffers[4].data, "1.14.0", 6);
  const mp_tensor_def *w = &m->subgraphs[0].tensors[1];
  assert_int_equal(w->quant.n_scale, 4);
  assert_true(w->quant.scale[3] == 0.04f);
  assert_int_equal(m->subgraphs[0].ops[1].builtin_options_type, MP_TFW_OPT_SOFTMAX);
  mp_model_free(&m);
}

static void names_are_made_printable_and_valid_utf8(void **state) {
  (void)state;
  /* regression: a name that is not UTF-8 made `inspect --json` drop the
   * key, and control characters reached the terminal */
  mp_tfw *w = mp_tfw_new();
  mp_tfw_set_description(w, "line\nbreak");
  mp_tfw_add_simple_tensor(w, "bad\xff\xfename\x1b[31m", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  mp_tfw_add_simple_tensor(w, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", MP_DTYPE_INT8, 1,
                           (const int32_t[]){4});
  mp_tfw_add_simple_tensor(w, "over\xc0\xaflong sur\xed\xa0\x80 cut\xe2\x82", MP_DTYPE_INT8, 1,
                           (const int32_t[]){4});
  mp_tfw_add_simple_tensor(w, "del\x7f max\xf4\x90\x80\x80", MP_DTYPE_INT8, 1,
                           (const int32_t[]){4});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 32, .custom_code = "\xc3(op", .n_inputs = 1,
                                .inputs = (const int32_t[]){0}});
  blob x = finish(w);
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(x.b, x.n, "names", NULL, &m), MP_OK);
  assert_string_equal(m->description, "line?break");
  const mp_tensor_def *t = m->subgraphs[0].tensors;
  assert_string_equal(t[0].name, "bad??name?[31m");
  assert_string_equal(t[1].name, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* valid: kept */
  assert_string_equal(t[2].name, "over??long sur??? cut??");
  assert_string_equal(t[3].name, "del? max????");
  assert_string_equal(m->opcodes[0].custom_code, "?(op");
  mp_model_free(&m);
  free(x.b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_truncation_of_a_small_model_is_rejected_with_an_offset),
      cmocka_unit_test(every_single_byte_corruption_is_handled_without_a_crash),
      cmocka_unit_test(random_multi_byte_corruptions_are_handled_without_a_crash),
      cmocka_unit_test(a_file_shorter_than_a_header_is_rejected),
      cmocka_unit_test(a_wrong_file_identifier_is_named),
      cmocka_unit_test(a_root_offset_outside_the_file_or_misaligned_is_rejected),
      cmocka_unit_test(a_vtable_outside_the_file_is_rejected),
      cmocka_unit_test(a_malformed_or_truncated_vtable_is_rejected),
      cmocka_unit_test(a_table_larger_than_the_file_is_rejected),
      cmocka_unit_test(a_field_outside_its_table_is_rejected),
      cmocka_unit_test(an_offset_field_pointing_past_the_end_is_rejected),
      cmocka_unit_test(an_element_offset_pointing_past_the_end_is_rejected),
      cmocka_unit_test(a_vector_longer_than_the_file_is_rejected),
      cmocka_unit_test(a_string_longer_than_the_file_is_rejected),
      cmocka_unit_test(a_vector_length_cut_by_the_end_of_the_file_is_rejected),
      cmocka_unit_test(out_of_range_indices_are_named_with_their_table),
      cmocka_unit_test(impossible_tensor_types_ranks_and_codes_are_rejected),
      cmocka_unit_test(a_shape_signature_of_another_rank_is_rejected),
      cmocka_unit_test(external_buffer_data_outside_the_file_is_rejected),
      cmocka_unit_test(a_model_referencing_one_large_string_many_times_is_refused),
      cmocka_unit_test(optional_inputs_and_outputs_stay_minus_one),
      cmocka_unit_test(absent_fields_read_as_the_schema_defaults),
      cmocka_unit_test(a_model_without_buffers_may_use_buffer_zero),
      cmocka_unit_test(external_buffers_point_into_the_file),
      cmocka_unit_test(the_model_keeps_its_own_copy_of_the_bytes),
      cmocka_unit_test(a_missing_file_is_an_io_error_naming_the_path),
      cmocka_unit_test(metadata_and_description_are_read),
      cmocka_unit_test(names_are_made_printable_and_valid_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
