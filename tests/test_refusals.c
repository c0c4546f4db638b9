/*
 * test_refusals.c — the expected refusals check that the corpus tests rely
 * on (testutil.h's tu_refusal_check over tests/expected_refusals.txt), on
 * memplan's own models in a models folder of its own: a listed refusal
 * that happens as listed is skipped, and every way the list can be wrong
 * fails — a model that plans or converts now, one refused at another
 * stage, one refused with another message, a malformed line.  Never skips.
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
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];

static void write_file(const char *name, const void *data, size_t n) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
}

/* ---- hybrid recurrent operators -------------------------------------------
 * float32 activations with int8 weights, as a converter's dynamic-range
 * quantisation writes them. */

/* A tensor of the hybrid models: int8 ones are constants (weights) with a
 * scale, float32 ones are constants when `data` is given, variables when
 * `variable`. */
static int32_t hy_tensor(mp_tfw *w, const char *name, int32_t dtype, uint32_t rank,
                         const int32_t *shape, const void *data, size_t bytes, bool variable) {
  static float scale = 0.05f;
  static int64_t zp = 0;
  mp_tfw_tensor t = {.name = name, .dtype = dtype, .rank = rank, .shape = shape,
                     .is_variable = variable};
  if (data) t.buffer = mp_tfw_add_buffer(w, data, bytes);
  if (dtype == MP_DTYPE_INT8) {
    t.has_quant = true;
    t.quant = (mp_quant){1, &scale, 1, &zp, 0};
  }
  return (int32_t)mp_tfw_add_tensor(w, &t);
}

static mp_status write_model(mp_tfw *w, const char *name) {
  uint8_t *b = NULL;
  size_t n = 0;
  mp_status st = mp_tfw_finish(w, &b, &n);
  mp_tfw_free(&w);
  if (st != MP_OK) return st;
  write_file(name, b, n);
  free(b);
  return MP_OK;
}

/* SVDF: input [1, 4], 4 filters of rank 1 over 3 frames; int8 feature
 * and time weights, float32 bias, state and output. */
static mp_status hybrid_svdf(void) {
  static const int8_t wf[16] = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16};
  static const int8_t wt[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  static const float bias[4] = {0.5f, -0.5f, 0.25f, -0.25f};
  mp_tfw *w = mp_tfw_new();
  if (!w) return MP_ERR_NOMEM;
  int32_t in = hy_tensor(w, "in", MP_DTYPE_FLOAT32, 2, (const int32_t[]){1, 4}, NULL, 0, false);
  int32_t ins[5] = {
      in, hy_tensor(w, "feature", MP_DTYPE_INT8, 2, (const int32_t[]){4, 4}, wf, 16, false),
      hy_tensor(w, "time", MP_DTYPE_INT8, 2, (const int32_t[]){4, 3}, wt, 12, false),
      hy_tensor(w, "bias", MP_DTYPE_FLOAT32, 1, (const int32_t[]){4}, bias, 16, false),
      hy_tensor(w, "state", MP_DTYPE_FLOAT32, 2, (const int32_t[]){1, 12}, NULL, 0, true)};
  int32_t out = hy_tensor(w, "out", MP_DTYPE_FLOAT32, 2, (const int32_t[]){1, 4}, NULL, 0, false);
  const mp_tfw_option o[] = {{0, MP_TFW_I32, 1, 0, 0, NULL}, {1, MP_TFW_I8, 0, 0, 0, NULL}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 27 /* SVDF */, .n_inputs = 5, .inputs = ins,
                                .n_outputs = 1, .outputs = &out, .options_type = 6,
                                .n_options = 2, .options = o});
  mp_tfw_set_io(w, 1, &in, 1, &out);
  return write_model(w, "hybrid_svdf.tflite");
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM: input [1, 2, 3] batch-major, 2 units; its
 * eight weights int8, biases, states and output float32; 24 inputs, the
 * peephole, projection and layer norm ones left out. */
static mp_status hybrid_lstm(void) {
  static const int8_t wi[6] = {1, -2, 3, -4, 5, -6}, wr[4] = {7, -8, 9, -10};
  static const float bias[2] = {0.5f, -0.5f};
  mp_tfw *w = mp_tfw_new();
  if (!w) return MP_ERR_NOMEM;
  int32_t ins[24];
  for (int k = 0; k < 24; k++)
    ins[k] = -1;
  ins[0] = hy_tensor(w, "in", MP_DTYPE_FLOAT32, 3, (const int32_t[]){1, 2, 3}, NULL, 0, false);
  for (int k = 1; k <= 4; k++)
    ins[k] = hy_tensor(w, "w_in", MP_DTYPE_INT8, 2, (const int32_t[]){2, 3}, wi, 6, false);
  for (int k = 5; k <= 8; k++)
    ins[k] = hy_tensor(w, "w_rec", MP_DTYPE_INT8, 2, (const int32_t[]){2, 2}, wr, 4, false);
  for (int k = 12; k <= 15; k++)
    ins[k] = hy_tensor(w, "bias", MP_DTYPE_FLOAT32, 1, (const int32_t[]){2}, bias, 8, false);
  ins[18] = hy_tensor(w, "hidden", MP_DTYPE_FLOAT32, 2, (const int32_t[]){1, 2}, NULL, 0, true);
  ins[19] = hy_tensor(w, "cell", MP_DTYPE_FLOAT32, 2, (const int32_t[]){1, 2}, NULL, 0, true);
  int32_t out =
      hy_tensor(w, "out", MP_DTYPE_FLOAT32, 3, (const int32_t[]){1, 2, 2}, NULL, 0, false);
  const mp_tfw_option o[] = {{0, MP_TFW_I8, 4 /* TANH */, 0, 0, NULL},
                             {1, MP_TFW_F32, 0, 0.0f, 0, NULL},
                             {2, MP_TFW_F32, 0, 0.0f, 0, NULL},
                             {3, MP_TFW_BOOL, 0, 0, 0, NULL}};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 44 /* UNIDIRECTIONAL_SEQUENCE_LSTM */,
                                .n_inputs = 24, .inputs = ins, .n_outputs = 1, .outputs = &out,
                                .options_type = 71, .n_options = 4, .options = o});
  mp_tfw_set_io(w, 1, &ins[0], 1, &out);
  return write_model(w, "hybrid_lstm.tflite");
}

/* A models folder: dynamic_shape (its graph cannot be built), custom_ops
 * (two operators without a kernel), kws (converts), hybrid_svdf and
 * hybrid_lstm (refused at convert); the list `name`. */
static int setup(void **state) {
  (void)state;
  const char *t = tu_tmpdir();
  if (!t) return -1;
  snprintf(dir, sizeof dir, "%s", t);
  const char *fx[] = {"dynamic_shape", "custom_ops"};
  for (size_t i = 0; i < 2; i++) {
    uint8_t *b = NULL;
    size_t n = 0;
    if (fx_build(fx[i], &b, &n) != MP_OK) return -1;
    char name[64];
    snprintf(name, sizeof name, "%s.tflite", fx[i]);
    write_file(name, b, n);
    free(b);
  }
  uint8_t *b = NULL;
  size_t n = 0;
  if (fx_kws(&b, &n) != MP_OK) return -1;
  write_file("kws.tflite", b, n);
  free(b);
  if (hybrid_svdf() != MP_OK || hybrid_lstm() != MP_OK) return -1;
  setenv("MEMPLAN_MODELS", dir, 1);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tu_rmtree(dir);
  unsetenv("MEMPLAN_EXPECTED_REFUSALS");
  return 0;
}

/* Use the list `text`, written as <dir>/<file>. */
static void use_list(const char *file, const char *text) {
  write_file(file, text, strlen(text));
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  setenv("MEMPLAN_EXPECTED_REFUSALS", path, 1);
}

static const char DYN[] = "tensor 1 'out' has dynamic shape (dimension 0 is -1)";
static const char CUSTOM[] =
    "operator 1 (MP_FX_CUSTOM) is not supported: memplan has no kernel for MP_FX_CUSTOM";

static void a_listed_refusal_that_happens_as_listed_is_skipped(void **state) {
  (void)state;
  char list[512], why[2048];
  snprintf(list, sizeof list,
           "# a comment\n\nmodel dynamic_shape plan %s\nmodel custom_ops convert %s\n"
           "case SHAPE int8 SHAPE: no kernel\n", DYN, CUSTOM);
  use_list("good.txt", list);
  const char *msg = NULL;
  assert_int_equal(tu_refusal_of("custom_ops", &msg), TU_STAGE_CONVERT);
  assert_string_equal(msg, CUSTOM);
  assert_int_equal(tu_refusal_of("kws", &msg), TU_STAGE_NONE);
  assert_null(msg);
  /* refused at plan: every stage skips it */
  assert_int_equal(tu_refusal_check("dynamic_shape", TU_STAGE_PLAN, why, sizeof why), 1);
  assert_non_null(strstr(why, DYN));
  assert_int_equal(tu_refusal_check("dynamic_shape", TU_STAGE_CONVERT, why, sizeof why), 1);
  /* refused at convert: a test that only plans runs it */
  assert_int_equal(tu_refusal_check("custom_ops", TU_STAGE_PLAN, why, sizeof why), 0);
  assert_int_equal(tu_refusal_check("custom_ops", TU_STAGE_CONVERT, why, sizeof why), 1);
  assert_non_null(strstr(why, CUSTOM));
  /* not listed: run it */
  assert_int_equal(tu_refusal_check("kws", TU_STAGE_CONVERT, why, sizeof why), 0);
}

static void a_model_that_gets_further_than_listed_fails(void **state) {
  (void)state;
  char why[2048];
  use_list("stale.txt", "model kws convert operator 0 (CONV_2D) is not supported\n"
                        "model custom_ops plan operator 1 (MP_FX_CUSTOM)\n");
  assert_int_equal(tu_refusal_check("kws", TU_STAGE_CONVERT, why, sizeof why), -1);
  assert_non_null(strstr(why, "delete its line"));
  assert_int_equal(tu_refusal_check("custom_ops", TU_STAGE_PLAN, why, sizeof why), -1);
  assert_non_null(strstr(why, "memplan gets past plan now"));
}

static void a_refusal_at_another_stage_or_with_another_message_fails(void **state) {
  (void)state;
  char list[512], why[2048];
  snprintf(list, sizeof list, "model dynamic_shape convert %s\n"
                              "model custom_ops convert operator 2 (MP_FX_CUSTOM) is not supported\n",
           DYN);
  use_list("wrong.txt", list);
  assert_int_equal(tu_refusal_check("dynamic_shape", TU_STAGE_CONVERT, why, sizeof why), -1);
  assert_non_null(strstr(why, "its graph cannot even be built"));
  /* the first error is operator 1's, not operator 2's */
  assert_int_equal(tu_refusal_check("custom_ops", TU_STAGE_CONVERT, why, sizeof why), -1);
  assert_non_null(strstr(why, "but memplan says \"operator 1 (MP_FX_CUSTOM)"));
}

/* tu_refusal_of in a child: a malformed list ends the program. */
static int child_status(const char *file, const char *text) {
  use_list(file, text);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    (void)tu_refusal_of("kws", NULL);
    _exit(0);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void a_malformed_list_ends_the_program(void **state) {
  (void)state;
  assert_int_equal(child_status("ok.txt", "model kws convert some message\n"), 0);
  assert_int_equal(child_status("stage.txt", "model kws later some message\n"), 2);
  assert_int_equal(child_status("short.txt", "model kws plan\n"), 2);
  setenv("MEMPLAN_EXPECTED_REFUSALS", "/nonexistent/refusals.txt", 1);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    (void)tu_refusal_of("kws", NULL);
    _exit(0);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
}

/* What TFLite Micro does with a hybrid SVDF or LSTM, in convert's words:
 * its PrepareSvdf refuses the SVDF; its LSTM, chosen by the input's type
 * alone, would run the float32 kernel over the int8 weights' bytes. */
static const char SVDF_WHY[] =
    "operator 0 (SVDF) is not supported: float32 input with int8 feature weights, int8 time "
    "weights, float32 state, float32 output (hybrid SVDF: TensorFlow Lite Micro refuses it too)";
static const char LSTM_WHY[] =
    "operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM) is not supported: float32 input with int8 weights "
    "(input 1), a hybrid LSTM: TensorFlow Lite Micro runs its float32 LSTM on the int8 bytes, "
    "reading past them";

static void hybrid_svdf_and_lstm_are_refused_saying_what_tflm_does(void **state) {
  (void)state;
  char list[1024], why[2048];
  snprintf(list, sizeof list, "model hybrid_svdf convert %s\nmodel hybrid_lstm convert %s\n",
           SVDF_WHY, LSTM_WHY);
  use_list("hybrid.txt", list);
  const char *names[] = {"hybrid_svdf", "hybrid_lstm"};
  for (size_t i = 0; i < 2; i++) {
    /* the graph plans; the operator is refused, with the whole reason */
    assert_int_equal(tu_refusal_check(names[i], TU_STAGE_PLAN, why, sizeof why), 0);
    if (tu_refusal_check(names[i], TU_STAGE_CONVERT, why, sizeof why) != 1)
      fail_msg("%s: %s", names[i], why);
    assert_non_null(strstr(why, i ? LSTM_WHY : SVDF_WHY));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hybrid_svdf_and_lstm_are_refused_saying_what_tflm_does),
      cmocka_unit_test(a_listed_refusal_that_happens_as_listed_is_skipped),
      cmocka_unit_test(a_model_that_gets_further_than_listed_fails),
      cmocka_unit_test(a_refusal_at_another_stage_or_with_another_message_fails),
      cmocka_unit_test(a_malformed_list_ends_the_program),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
