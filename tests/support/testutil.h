/*
 * testutil.h — helpers shared by the test programs.
 *
 * Tests include <stdarg.h>, <stddef.h>, <setjmp.h>, <stdint.h> and
 * <cmocka.h> themselves (cmocka's documented order) and this header.
 */
#ifndef MP_TESTUTIL_H
#define MP_TESTUTIL_H

#include "memplan.h"

#include <stdio.h>

/* Folder of the shared real models (../shared/models from the repository
 * root, or $MEMPLAN_MODELS), or NULL when absent; prints the skip notice
 * once per program when absent. */
const char *tu_models_dir(void);
/* Same for ../shared/golden ($MEMPLAN_GOLDEN). */
const char *tu_golden_dir(void);
/* Same for ../shared/conformance ($MEMPLAN_CONFORMANCE): single-operator
 * models with TFLM's outputs (see tests/suite_conformance.sh). */
const char *tu_conformance_dir(void);

/* Path of a shared model by base name ("mlperf_kws_ref_int8"), in a static
 * buffer, or NULL when the folder is absent. */
const char *tu_model_path(const char *name);

/* Names of every *.tflite in the models folder (sorted), NULL-terminated;
 * static storage; NULL when the folder is absent. */
const char *const *tu_model_names(void);

/* The expected refusals (tests/expected_refusals.txt, or
 * $MEMPLAN_EXPECTED_REFUSALS): the corpus models memplan cannot plan or
 * convert yet, with the message it gives. */
typedef enum tu_stage {
  TU_STAGE_NONE = 0,    /* not listed: every stage must work */
  TU_STAGE_PLAN = 1,    /* the graph cannot be built: `memplan plan` refuses it */
  TU_STAGE_CONVERT = 2  /* it plans; `memplan convert` refuses an operator */
} tu_stage;

/* The listed stage of corpus model `name` (TU_STAGE_NONE when it is not
 * listed) and, unless NULL, its message.  Aborts the program on a
 * malformed list. */
tu_stage tu_refusal_of(const char *name, const char **message);

/* For a test that needs corpus model `name` through `stage`: 0 when the
 * list does not refuse it there (run it); 1 when it is listed at `stage` or
 * before and memplan refuses it at exactly the listed stage with an error
 * that begins with the listed message (skip it); -1 otherwise (the model
 * now gets further, or is refused elsewhere or with another message), with
 * what happened in why[0..n). */
int tu_refusal_check(const char *name, tu_stage stage, char *why, size_t n);

#ifdef cmocka_unit_test
/* In a test: true when `name` is refused as listed at `stage` or before
 * (skip it); fails the test when the list says so but memplan does
 * otherwise. */
static inline bool tu_skip_refused(const char *name, tu_stage stage) {
  char why[2048];
  int r = tu_refusal_check(name, stage, why, sizeof why);
  if (r < 0) fail_msg("%s", why);
  if (r > 0) print_message("%-28s refused as expected: %s\n", name, why);
  return r > 0;
}
#endif

/* A diagnostics recorder: collects every message, one per line, as
 * "severity: [key_path: ]message". */
typedef struct tu_diags {
  mp_diag_sink sink;
  char text[16384];
  size_t len;
  unsigned n_errors;
  unsigned n_warnings;
  int64_t last_byte_offset;
  uint32_t last_line, last_column;
} tu_diags;

void tu_diags_init(tu_diags *d);
/* True when some recorded message contains `needle`. */
bool tu_diags_has(const tu_diags *d, const char *needle);

/* A fresh temporary directory (mkdtemp) in a static buffer. */
const char *tu_tmpdir(void);
/* Remove a directory tree (best effort). */
void tu_rmtree(const char *path);
/* Read a whole file (malloc'd, NUL-terminated) or NULL. */
char *tu_read_text(const char *path, size_t *len);
/* Memory args that name `planner` (copied into a static buffer, so the
 * args stay valid until the next call), allocate the arenas, and set
 * in_place; every other field zero. */
mp_memory_args tu_args(const char *planner, bool in_place);

struct mp_tfw;
/* Finish the model w holds (w is freed) and parse it as `name`; the model.
 * Its diagnostics go to *d when d is given. A model that cannot be written
 * or does not parse fails the test, with the parser's messages. */
mp_model *tu_written(struct mp_tfw *w, const char *name, tu_diags *d);

/* Run a shell command, return its exit status (-1 on failure to run). */
int tu_system(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
