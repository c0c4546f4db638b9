/*
 * test_tflite_writer.c — the model writer, checked through the reader:
 * every field written comes back from mp_model_parse with the same value,
 * buffer data is 16-byte aligned, opcodes carry both code fields, builtin
 * options tables hold exactly the given fields, and output is
 * deterministic.
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

static mp_model *finish_and_parse(mp_tfw *w, tu_diags *d) {
  uint8_t *b;
  size_t n;
  assert_int_equal(mp_tfw_finish(w, &b, &n), MP_OK);
  mp_model *m = NULL;
  mp_status st = mp_model_parse(b, n, "written", &d->sink, &m);
  free(b);
  if (st != MP_OK) fail_msg("parse failed: %s", d->text);
  return m;
}

/* The everything-model: two subgraphs, quantisation, options, metadata,
 * inline, empty and external buffers. */
static mp_tfw *everything(void) {
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  mp_tfw_set_description(w, "round trip");
  /* int8[5,1,3]: 15 bytes (the reader checks a constant's size) */
  uint8_t data[15] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  assert_int_equal(mp_tfw_add_buffer(w, data, 15), 1);
  assert_int_equal(mp_tfw_add_buffer(w, NULL, 0), 2);
  assert_int_equal(mp_tfw_add_external_buffer(w, data, 3), 3);
  assert_int_equal(mp_tfw_add_subgraph(w, "first"), 0);
  float scales[3] = {0.25f, 0.5f, 1.5f};
  int64_t zps[3] = {-1, 0, 7};
  mp_tfw_tensor t0 = {.name = "quantised", .dtype = MP_DTYPE_INT8, .rank = 3,
                      .shape = (const int32_t[]){5, 1, 3}, .buffer = 1, .has_quant = true,
                      .quant = {3, scales, 3, zps, 2}};
  assert_int_equal(mp_tfw_add_tensor(w, &t0), 0);
  mp_tfw_tensor t1 = {.name = "state", .dtype = MP_DTYPE_INT16, .rank = 2,
                      .shape = (const int32_t[]){1, 4}, .is_variable = true,
                      .has_shape_signature = true,
                      .shape_signature = (const int32_t[]){-1, 4}};
  assert_int_equal(mp_tfw_add_tensor(w, &t1), 1);
  mp_tfw_tensor t2 = {.name = NULL, .dtype = MP_DTYPE_FLOAT32, .rank = 0, .buffer = 2};
  assert_int_equal(mp_tfw_add_tensor(w, &t2), 2);
  mp_tfw_tensor t3 = {.name = "ext", .dtype = MP_DTYPE_UINT8, .rank = 1,
                      .shape = (const int32_t[]){3}, .buffer = 3};
  assert_int_equal(mp_tfw_add_tensor(w, &t3), 3);
  mp_tfw_option conv[] = {{.field = 0, .type = MP_TFW_I8, .i = 1},
                          {.field = 1, .type = MP_TFW_I32, .i = 2},
                          {.field = 2, .type = MP_TFW_I32, .i = 3},
                          {.field = 3, .type = MP_TFW_I8, .i = 1},
                          {.field = 4, .type = MP_TFW_I32, .i = 1},
                          {.field = 5, .type = MP_TFW_I32, .i = 1}};
  uint8_t custom[3] = {9, 8, 7};
  mp_tfw_op op0 = {.builtin_code = FX_CONV_2D, .version = 3, .n_inputs = 3,
                   .inputs = (const int32_t[]){1, 0, -1}, .n_outputs = 1,
                   .outputs = (const int32_t[]){2}, .n_intermediates = 1,
                   .intermediates = (const int32_t[]){3}, .options_type = MP_TFW_OPT_CONV2D,
                   .n_options = 6, .options = conv, .custom_options_size = 3,
                   .custom_options = custom};
  assert_int_equal(mp_tfw_add_op(w, &op0), 0);
  mp_tfw_op op1 = {.builtin_code = 32, .custom_code = "MyOp", .n_inputs = 1,
                   .inputs = (const int32_t[]){2}, .n_outputs = 2,
                   .outputs = (const int32_t[]){3, -1}};
  assert_int_equal(mp_tfw_add_op(w, &op1), 1);
  mp_tfw_set_io(w, 1, (const int32_t[]){1}, 1, (const int32_t[]){3});
  assert_int_equal(mp_tfw_add_subgraph(w, "second"), 1);
  mp_tfw_add_simple_tensor(w, "x", MP_DTYPE_INT8, 2, (const int32_t[]){2, 2});
  mp_tfw_add_simple_tensor(w, "y", MP_DTYPE_INT8, 2, (const int32_t[]){2, 2});
  mp_tfw_op op2 = {.builtin_code = FX_GELU, .n_inputs = 1, .inputs = (const int32_t[]){0},
                   .n_outputs = 1, .outputs = (const int32_t[]){1}};
  mp_tfw_add_op(w, &op2);
  mp_tfw_set_io(w, 1, (const int32_t[]){0}, 1, (const int32_t[]){1});
  mp_tfw_add_metadata(w, "meta", 1);
  return w;
}

static void every_field_round_trips_through_the_reader(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = everything();
  mp_model *m = finish_and_parse(w, &d);
  mp_tfw_free(&w);
  assert_null(w);
  assert_int_equal(m->version, 3);
  assert_string_equal(m->description, "round trip");
  /* buffers: 0 sentinel, 1 inline, 2 empty, 3 external */
  assert_int_equal(m->n_buffers, 4);
  assert_int_equal(m->buffers[0].size, 0);
  assert_null(m->buffers[0].data);
  assert_int_equal(m->buffers[1].size, 15);
  assert_memory_equal(m->buffers[1].data, ((const uint8_t[]){1, 2, 3, 4, 5}), 5);
  assert_false(m->buffers[1].external);
  assert_int_equal(m->buffers[2].size, 0);
  assert_true(m->buffers[3].external);
  assert_int_equal(m->buffers[3].size, 3);
  assert_memory_equal(m->buffers[3].data, ((const uint8_t[]){1, 2, 3}), 3);
  assert_int_equal(m->buffers[3].file_offset % 16, 0);
  /* opcodes: CONV_2D v3, custom MyOp, GELU */
  assert_int_equal(m->n_opcodes, 3);
  assert_int_equal(m->opcodes[0].builtin_code, 3);
  assert_int_equal(m->opcodes[0].deprecated_builtin_code, 3);
  assert_int_equal(m->opcodes[0].version, 3);
  assert_null(m->opcodes[0].custom_code);
  assert_int_equal(m->opcodes[1].resolved_code, 32);
  assert_string_equal(m->opcodes[1].custom_code, "MyOp");
  assert_int_equal(m->opcodes[1].version, 1);
  assert_int_equal(m->opcodes[2].builtin_code, 150);
  assert_int_equal(m->opcodes[2].deprecated_builtin_code, 127);
  assert_int_equal(m->opcodes[2].resolved_code, 150);
  /* subgraph 0 */
  assert_int_equal(m->n_subgraphs, 2);
  const mp_subgraph_def *s = &m->subgraphs[0];
  assert_string_equal(s->name, "first");
  assert_int_equal(s->n_tensors, 4);
  const mp_tensor_def *t = &s->tensors[0];
  assert_string_equal(t->name, "quantised");
  assert_int_equal(t->dtype, MP_DTYPE_INT8);
  assert_int_equal(t->rank, 3);
  assert_memory_equal(t->shape, ((const int32_t[]){5, 1, 3}), 12);
  assert_int_equal(t->buffer, 1);
  assert_false(t->is_variable);
  assert_true(t->has_quant);
  assert_int_equal(t->quant.n_scale, 3);
  assert_true(t->quant.scale[0] == 0.25f && t->quant.scale[1] == 0.5f &&
              t->quant.scale[2] == 1.5f);
  assert_int_equal(t->quant.n_zero_point, 3);
  assert_int_equal(t->quant.zero_point[0], -1);
  assert_int_equal(t->quant.zero_point[2], 7);
  assert_int_equal(t->quant.quantized_dimension, 2);
  assert_false(t->has_shape_signature);
  t = &s->tensors[1];
  assert_string_equal(t->name, "state");
  assert_int_equal(t->dtype, MP_DTYPE_INT16);
  assert_true(t->is_variable);
  assert_false(t->has_quant);
  assert_true(t->has_shape_signature);
  assert_int_equal(t->shape_signature[0], -1);
  assert_int_equal(t->shape_signature[1], 4);
  t = &s->tensors[2];
  assert_string_equal(t->name, "");
  assert_int_equal(t->dtype, MP_DTYPE_FLOAT32);
  assert_int_equal(t->rank, 0);
  assert_int_equal(t->buffer, 2);
  assert_int_equal(s->tensors[3].buffer, 3);
  assert_int_equal(s->n_ops, 2);
  const mp_op_def *o = &s->ops[0];
  assert_int_equal(o->opcode_index, 0);
  assert_int_equal(o->builtin_code, 3);
  assert_int_equal(o->n_inputs, 3);
  assert_memory_equal(o->inputs, ((const int32_t[]){1, 0, -1}), 12);
  assert_int_equal(o->n_outputs, 1);
  assert_int_equal(o->outputs[0], 2);
  assert_int_equal(o->n_intermediates, 1);
  assert_int_equal(o->intermediates[0], 3);
  assert_int_equal(o->builtin_options_type, MP_TFW_OPT_CONV2D);
  assert_true(o->builtin_options_pos > 0);
  assert_int_equal(o->custom_options_size, 3);
  assert_memory_equal(o->custom_options, ((const uint8_t[]){9, 8, 7}), 3);
  o = &s->ops[1];
  assert_int_equal(o->opcode_index, 1);
  assert_string_equal(o->custom_code, "MyOp");
  assert_int_equal(o->n_outputs, 2);
  assert_int_equal(o->outputs[1], -1);
  assert_int_equal(o->builtin_options_type, 0);
  assert_int_equal(o->builtin_options_pos, 0);
  assert_int_equal(o->n_intermediates, 0);
  assert_int_equal(s->n_inputs, 1);
  assert_int_equal(s->inputs[0], 1);
  assert_int_equal(s->n_outputs, 1);
  assert_int_equal(s->outputs[0], 3);
  /* subgraph 1 */
  s = &m->subgraphs[1];
  assert_string_equal(s->name, "second");
  assert_int_equal(s->n_tensors, 2);
  assert_int_equal(s->n_ops, 1);
  assert_int_equal(s->ops[0].opcode_index, 2);
  assert_int_equal(s->ops[0].builtin_code, 150);
  /* metadata */
  assert_int_equal(m->n_metadata, 1);
  assert_string_equal(m->metadata[0].name, "meta");
  assert_int_equal(m->metadata[0].buffer, 1);
  mp_model_free(&m);
}

static void opcodes_carry_both_code_fields_with_deprecated_capped_at_127(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  static const int32_t codes[] = {0, 3, 126, 127, 128, 150, 207};
  for (uint32_t i = 0; i < 7; i++) {
    mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 1, (const int32_t[]){4});
    mp_tfw_op o = {.builtin_code = codes[i], .n_outputs = 1,
                   .outputs = (const int32_t[]){(int32_t)i}};
    assert_int_equal(mp_tfw_add_op(w, &o), i);
  }
  mp_model *m = finish_and_parse(w, &d);
  assert_int_equal(m->n_opcodes, 7);
  for (uint32_t i = 0; i < 7; i++) {
    assert_int_equal(m->opcodes[i].builtin_code, codes[i]);
    assert_int_equal(m->opcodes[i].deprecated_builtin_code, codes[i] < 127 ? codes[i] : 127);
    assert_int_equal(m->opcodes[i].resolved_code, codes[i]);
    assert_int_equal(m->subgraphs[0].ops[i].builtin_code, codes[i]);
  }
  mp_model_free(&m);
  mp_tfw_free(&w);
}

static void ops_share_an_opcode_only_when_code_custom_code_and_version_match(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  const mp_tfw_op ops[] = {
      {.builtin_code = FX_RELU},                     /* opcode 0 */
      {.builtin_code = FX_RELU, .version = 1},       /* 0: version 0 means 1 */
      {.builtin_code = FX_RELU, .version = 2},       /* 1 */
      {.builtin_code = 32, .custom_code = "A"},      /* 2 */
      {.builtin_code = 32, .custom_code = "B"},      /* 3 */
      {.builtin_code = 32, .custom_code = "A"},      /* 2 */
      {.builtin_code = FX_TANH, .has_opcode_index = true, .opcode_index = 9}, /* as given */
  };
  static const uint32_t want[] = {0, 0, 1, 2, 3, 2, 9};
  for (uint32_t i = 0; i < 7; i++) mp_tfw_add_op(w, &ops[i]);
  mp_tfw_add_opcode_raw(w, 19, 0, NULL, 1); /* 4: an old-style code, only deprecated set */
  uint8_t *b;
  size_t n;
  assert_int_equal(mp_tfw_finish(w, &b, &n), MP_OK);
  mp_model *m = NULL;
  /* opcode_index 9 is out of range: the writer writes it, the reader refuses */
  assert_int_equal(mp_model_parse(b, n, "w", &d.sink, &m), MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "subgraphs[0].operators[6]: opcode_index 9 out of range (model "
                               "has 5 operator codes)"));
  free(b);
  mp_tfw_free(&w);

  /* the same without the bad index, to read the table back */
  w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  for (uint32_t i = 0; i < 6; i++) mp_tfw_add_op(w, &ops[i]);
  mp_tfw_add_opcode_raw(w, 19, 0, NULL, 1);
  mp_model *mm = finish_and_parse(w, &d);
  assert_int_equal(mm->n_opcodes, 5);
  for (uint32_t i = 0; i < 6; i++) assert_int_equal(mm->subgraphs[0].ops[i].opcode_index, want[i]);
  assert_int_equal(mm->opcodes[1].version, 2);
  assert_string_equal(mm->opcodes[3].custom_code, "B");
  assert_int_equal(mm->opcodes[4].deprecated_builtin_code, 19);
  assert_int_equal(mm->opcodes[4].builtin_code, 0);
  assert_int_equal(mm->opcodes[4].resolved_code, 19); /* max of the two fields */
  mp_model_free(&mm);
  mp_tfw_free(&w);
}

static void buffer_data_starts_16_byte_aligned_in_the_file(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  uint8_t data[100];
  for (int i = 0; i < 100; i++) data[i] = (uint8_t)i;
  static const size_t sizes[] = {1, 3, 16, 17, 31, 64, 99, 2};
  for (uint32_t i = 0; i < 8; i++) {
    mp_tfw_add_buffer(w, data, sizes[i]);
    mp_tfw_add_simple_tensor(w, "odd name to shift things", MP_DTYPE_INT8, 1,
                             (const int32_t[]){(int32_t)sizes[i]});
  }
  mp_model *m = finish_and_parse(w, &d);
  assert_int_equal(m->n_buffers, 9);
  for (uint32_t i = 1; i < 9; i++) {
    assert_int_equal(m->buffers[i].size, sizes[i - 1]);
    assert_int_equal(m->buffers[i].file_offset % 16, 0);
    assert_ptr_equal(m->buffers[i].data, m->bytes + m->buffers[i].file_offset);
    assert_memory_equal(m->buffers[i].data, data, sizes[i - 1]);
  }
  /* the file itself is padded to the largest alignment used */
  assert_int_equal(m->size % 16, 0);
  mp_model_free(&m);
  mp_tfw_free(&w);
}

static void builtin_options_table_holds_exactly_the_given_fields(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  mp_tfw_option o[] = {
      {.field = 0, .type = MP_TFW_I8, .i = -2},
      {.field = 1, .type = MP_TFW_BOOL, .i = 1},
      {.field = 2, .type = MP_TFW_U16, .i = 0xbeef},
      {.field = 3, .type = MP_TFW_I32, .i = 0}, /* a default value is still written */
      {.field = 4, .type = MP_TFW_I64, .i = -5000000000LL},
      {.field = 5, .type = MP_TFW_F32, .f = 0.125f},
      {.field = 7, .type = MP_TFW_I32_VEC, .n_vec = 3, .vec = (const int32_t[]){1, -1, 64}},
      {.field = 8, .type = MP_TFW_U8, .i = 200},
  };
  mp_tfw_op op = {.builtin_code = FX_RESHAPE, .n_inputs = 1, .inputs = (const int32_t[]){0},
                  .options_type = MP_TFW_OPT_RESHAPE, .n_options = 8, .options = o};
  mp_tfw_add_op(w, &op);
  mp_model *m = finish_and_parse(w, &d);
  const mp_op_def *od = &m->subgraphs[0].ops[0];
  assert_int_equal(od->builtin_options_type, MP_TFW_OPT_RESHAPE);
  fb_file f;
  fb_init(&f, m->bytes, m->size, "t", &d.sink);
  fb_table t;
  assert_true(fb_table_at(&f, od->builtin_options_pos, "options", &t));
  assert_int_equal(t.vt_size, 4 + 2 * 9); /* fields 0..8 */
  int8_t i8;
  uint8_t u8;
  int32_t i32;
  uint32_t pos;
  float f32;
  uint64_t u64;
  assert_true(fb_i8(&t, 0, 0, &i8));
  assert_int_equal(i8, -2);
  assert_true(fb_u8(&t, 1, 0, &u8));
  assert_int_equal(u8, 1);
  assert_true(fb_field(&t, 2, 2, &pos));
  assert_int_equal(fb_load_u16(m->bytes + pos), 0xbeef);
  assert_true(fb_field(&t, 3, 4, &pos));
  assert_true(pos != 0);
  assert_true(fb_i32(&t, 3, 77, &i32));
  assert_int_equal(i32, 0);
  assert_true(fb_u64(&t, 4, 0, &u64));
  assert_int_equal((int64_t)u64, -5000000000LL);
  assert_int_equal(pos % 4, 0);
  assert_true(fb_field(&t, 4, 8, &pos));
  assert_int_equal(pos % 8, 0);
  assert_true(fb_f32(&t, 5, 0, &f32));
  assert_true(f32 == 0.125f);
  assert_true(fb_field(&t, 6, 4, &pos));
  assert_int_equal(pos, 0); /* not given: absent */
  fb_vec v;
  assert_true(fb_vector(&t, 7, 4, &v));
  assert_int_equal(v.len, 3);
  assert_int_equal((int32_t)fb_load_u32(m->bytes + v.pos + 8), 64);
  assert_int_equal((int32_t)fb_load_u32(m->bytes + v.pos + 4), -1);
  assert_true(fb_u8(&t, 8, 0, &u8));
  assert_int_equal(u8, 200);
  mp_model_free(&m);
  mp_tfw_free(&w);
}

static void the_same_calls_give_the_same_bytes_and_finish_can_repeat(void **state) {
  (void)state;
  mp_tfw *w1 = everything(), *w2 = everything();
  uint8_t *a, *b, *c;
  size_t na, nb, nc;
  assert_int_equal(mp_tfw_finish(w1, &a, &na), MP_OK);
  assert_int_equal(mp_tfw_finish(w2, &b, &nb), MP_OK);
  assert_int_equal(mp_tfw_finish(w1, &c, &nc), MP_OK);
  assert_int_equal(na, nb);
  assert_memory_equal(a, b, na);
  assert_int_equal(na, nc);
  assert_memory_equal(a, c, na);
  assert_memory_equal(a + 4, "TFL3", 4);
  free(a);
  free(b);
  free(c);
  mp_tfw_free(&w1);
  mp_tfw_free(&w2);
}

static void a_writer_without_subgraphs_writes_a_model_the_reader_rejects(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  uint8_t *b;
  size_t n;
  assert_int_equal(mp_tfw_finish(w, &b, &n), MP_OK);
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(b, n, "empty", &d.sink, &m), MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "model has no subgraphs"));
  assert_true(d.last_byte_offset > 0);
  free(b);
  mp_tfw_free(&w);
}

static void a_version_other_than_3_is_written_as_given(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  mp_tfw_set_version(w, 2);
  mp_tfw_add_subgraph(w, "s");
  uint8_t *b;
  size_t n;
  assert_int_equal(mp_tfw_finish(w, &b, &n), MP_OK);
  mp_model *m = NULL;
  assert_int_equal(mp_model_parse(b, n, "v2", &d.sink, &m), MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "unsupported schema version 2 (memplan reads version 3)"));
  free(b);
  mp_tfw_free(&w);
}

static void an_options_field_id_beyond_the_table_limit_fails_at_finish(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  mp_tfw_option o = {.field = 64, .type = MP_TFW_I32, .i = 1};
  mp_tfw_op op = {.builtin_code = FX_RELU, .options_type = 1, .n_options = 1, .options = &o};
  mp_tfw_add_op(w, &op);
  /* later calls are ignored, the first failure is kept */
  mp_tfw_add_simple_tensor(w, "t", MP_DTYPE_INT8, 1, (const int32_t[]){4});
  uint8_t *b = (uint8_t *)"x";
  size_t n = 1;
  assert_int_equal(mp_tfw_finish(w, &b, &n), MP_ERR_INTERNAL);
  assert_null(b);
  assert_int_equal(n, 0);
  mp_tfw_free(&w);
}

static void tensors_without_a_subgraph_create_subgraph_zero(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_tfw *w = mp_tfw_new();
  assert_int_equal(mp_tfw_add_simple_tensor(w, "a", MP_DTYPE_INT8, 1, (const int32_t[]){4}), 0);
  mp_tfw_add_subgraph(w, "later");
  mp_tfw_select_subgraph(w, 0);
  assert_int_equal(mp_tfw_add_simple_tensor(w, "b", MP_DTYPE_INT8, 1, (const int32_t[]){4}), 1);
  mp_model *m = finish_and_parse(w, &d);
  assert_int_equal(m->n_subgraphs, 2);
  assert_string_equal(m->subgraphs[0].name, "");
  assert_int_equal(m->subgraphs[0].n_tensors, 2);
  assert_string_equal(m->subgraphs[1].name, "later");
  assert_int_equal(m->subgraphs[1].n_tensors, 0);
  mp_model_free(&m);
  mp_tfw_free(&w);
}

static void every_fixture_and_random_dags_parse_and_are_deterministic(void **state) {
  (void)state;
  for (const char *const *name = fx_names(); *name; name++) {
    uint8_t *a, *b;
    size_t na, nb;
    assert_int_equal(fx_build(*name, &a, &na), MP_OK);
    assert_int_equal(fx_build(*name, &b, &nb), MP_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    mp_model *m = NULL;
    tu_diags d;
    tu_diags_init(&d);
    if (mp_model_parse(a, na, *name, &d.sink, &m) != MP_OK) fail_msg("%s: %s", *name, d.text);
    mp_model_free(&m);
    free(a);
    free(b);
  }
  uint8_t *x;
  size_t nx;
  assert_int_equal(fx_build("no such fixture", &x, &nx), MP_ERR_CONFIG);
  for (uint64_t seed = 0; seed < 20; seed++) {
    uint8_t *a, *b;
    size_t na, nb;
    assert_int_equal(fx_random(seed, 40, &a, &na), MP_OK);
    assert_int_equal(fx_random(seed, 40, &b, &nb), MP_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    mp_model *m = NULL;
    assert_int_equal(mp_model_parse(a, na, "random", NULL, &m), MP_OK);
    assert_int_equal(m->subgraphs[0].n_ops, 40);
    mp_model_free(&m);
    free(a);
    free(b);
  }
  assert_int_equal(fx_random(1, 0, &x, &nx), MP_ERR_CONFIG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_field_round_trips_through_the_reader),
      cmocka_unit_test(opcodes_carry_both_code_fields_with_deprecated_capped_at_127),
      cmocka_unit_test(ops_share_an_opcode_only_when_code_custom_code_and_version_match),
      cmocka_unit_test(buffer_data_starts_16_byte_aligned_in_the_file),
      cmocka_unit_test(builtin_options_table_holds_exactly_the_given_fields),
      cmocka_unit_test(the_same_calls_give_the_same_bytes_and_finish_can_repeat),
      cmocka_unit_test(a_writer_without_subgraphs_writes_a_model_the_reader_rejects),
      cmocka_unit_test(a_version_other_than_3_is_written_as_given),
      cmocka_unit_test(an_options_field_id_beyond_the_table_limit_fails_at_finish),
      cmocka_unit_test(tensors_without_a_subgraph_create_subgraph_zero),
      cmocka_unit_test(every_fixture_and_random_dags_parse_and_are_deterministic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
