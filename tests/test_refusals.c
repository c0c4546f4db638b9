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

/* A models folder: dynamic_shape (its graph cannot be built), custom_ops
 * (two operators without a kernel) and kws (converts); the list `name`. */
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_listed_refusal_that_happens_as_listed_is_skipped),
      cmocka_unit_test(a_model_that_gets_further_than_listed_fails),
      cmocka_unit_test(a_refusal_at_another_stage_or_with_another_message_fails),
      cmocka_unit_test(a_malformed_list_ends_the_program),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
