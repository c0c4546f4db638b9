/*
 * test_config.c — the configuration surface: YAML file, command-line
 * overrides, defaults, platforms, planner options, constraints, rulesets,
 * --help, and one table of bad configs whose every message (key path and
 * suggestion) is checked, both through the library and through
 * `memplan convert` (exit status 2, output folder untouched).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "testutil.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------ */

#define MAX_REC 64

/* Every diagnostic, with its key path and position. */
typedef struct rec {
  mp_diag_sink sink;
  unsigned n, errors, warnings;
  struct {
    mp_severity sev;
    char key[256];
    char msg[1024];
    char file[256];
    char source[512];
    uint32_t line, column;
  } d[MAX_REC];
} rec;

static void record(void *user, const mp_diag *d) {
  rec *r = user;
  if (d->severity == MP_SEV_ERROR) r->errors++;
  if (d->severity == MP_SEV_WARNING) r->warnings++;
  if (getenv("TU_VERBOSE")) fprintf(stderr, "  [diag] %s\n", d->message);
  if (r->n >= MAX_REC) return;
  r->d[r->n].sev = d->severity;
  snprintf(r->d[r->n].key, sizeof r->d[0].key, "%s", d->key_path ? d->key_path : "");
  snprintf(r->d[r->n].msg, sizeof r->d[0].msg, "%s", d->message);
  snprintf(r->d[r->n].file, sizeof r->d[0].file, "%s", d->file ? d->file : "");
  snprintf(r->d[r->n].source, sizeof r->d[0].source, "%s", d->source_line ? d->source_line : "");
  r->d[r->n].line = d->line;
  r->d[r->n].column = d->column;
  r->n++;
}

static void rec_init(rec *r) {
  memset(r, 0, sizeof *r);
  r->sink.fn = record;
  r->sink.user = r;
}

/* The first recorded diagnostic with this key path and message part, or -1. */
static int rec_find(const rec *r, const char *key, const char *part) {
  for (unsigned i = 0; i < r->n; i++)
    if ((!key || !strcmp(r->d[i].key, key)) && strstr(r->d[i].msg, part)) return (int)i;
  return -1;
}

static void rec_dump(const rec *r) {
  for (unsigned i = 0; i < r->n; i++)
    print_message("    [%s] %s:%u:%u: %s\n", r->d[i].key, r->d[i].file, r->d[i].line,
                  r->d[i].column, r->d[i].msg);
}

/* Load YAML text as the file "cfg/config.yaml" plus CLI arguments
 * (NULL-terminated, without the command name). */
static mp_status load(const char *yaml, const char *const *args, rec *r, mp_config **out) {
  char *argv[32] = {(char *)"convert"};
  int argc = 1;
  for (size_t i = 0; args && args[i] && argc < 31; i++) argv[argc++] = (char *)(uintptr_t)args[i];
  rec_init(r);
  return mp_config_from_text(yaml, yaml ? strlen(yaml) : 0, "cfg/config.yaml", argc, argv,
                             &r->sink, out);
}

/* The same with the whole config on the command line. */
static mp_status load_args(const char *const *args, rec *r, mp_config **out) {
  char *argv[32] = {(char *)"convert"};
  int argc = 1;
  for (size_t i = 0; args && args[i] && argc < 31; i++) argv[argc++] = (char *)(uintptr_t)args[i];
  rec_init(r);
  return mp_config_from_args(argc, argv, &r->sink, out);
}

static const mp_option *option(const mp_config *c, const char *key) {
  for (uint32_t i = 0; i < c->memory.n_options; i++)
    if (!strcmp(c->memory.options[i].key, key)) return &c->memory.options[i];
  return NULL;
}

/* Absolute path of the memplan binary ($MEMPLAN, else build/asan/memplan),
 * or NULL. */
static const char *memplan_binary(void) {
  static char buf[1024];
  const char *m = getenv("MEMPLAN");
  if (!(m && *m)) m = "build/asan/memplan";
  if (access(m, X_OK) != 0) return NULL;
  if (m[0] == '/') return m;
  char cwd[900];
  if (!getcwd(cwd, sizeof cwd)) return NULL;
  snprintf(buf, sizeof buf, "%s/%s", cwd, m);
  return buf;
}

/* ---- defaults and paths ----------------------------------------------------------- */

static void a_minimal_config_gets_the_documented_defaults(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: models/KWS-ref.v2.tflite}\n", NULL, &r, &c), MP_OK);
  assert_int_equal(r.n, 0);
  assert_string_equal(c->config_path, "cfg/config.yaml");
  assert_string_equal(c->model_path, "cfg/models/KWS-ref.v2.tflite");
  assert_int_equal(c->subgraph, 0);
  assert_string_equal(c->model_name, "KWS-ref.v2");
  assert_string_equal(c->prefix, "kws_ref_v2");
  assert_string_equal(c->module_name, "kws_ref_v2");
  assert_string_equal(c->module_path, "cfg/out");
  assert_int_equal(c->verbose, 1);
  assert_string_equal(c->platform.name, "apollo510_evb");
  assert_int_equal(c->target, MP_TARGET_GENERIC);
  assert_string_equal(c->memory.planner, "greedy");
  assert_int_equal(c->memory.n_options, 0);
  assert_int_equal(c->memory.n_constraints, 0);
  assert_int_equal(c->memory.n_rules, 0);
  assert_true(c->memory.allocate_arenas);
  assert_true(c->memory.auto_hydrate_constants);
  assert_false(c->memory.dump_residency_json);
  assert_int_equal(c->memory.op_order, MP_OP_ORDER_MODEL);
  assert_null(c->report_path);
  assert_false(c->allow_unsupported);
  mp_config_free(&c);
  assert_null(c);
}

static void a_prefix_made_from_a_name_is_a_c_identifier(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite, name: 2nd-Model}\n", NULL, &r, &c), MP_OK);
  assert_string_equal(c->model_name, "2nd-Model");
  assert_string_equal(c->prefix, "m_2nd_model");
  mp_config_free(&c);
  assert_int_equal(load("model: {path: int.tflite}\n", NULL, &r, &c), MP_OK);
  assert_string_equal(c->prefix, "int_model");
  mp_config_free(&c);
}

static void relative_paths_in_a_file_resolve_against_its_folder(void **state) {
  (void)state;
  const char *dir = tu_tmpdir();
  assert_non_null(dir);
  char path[512];
  snprintf(path, sizeof path, "%s/sub", dir);
  assert_int_equal(mkdir(path, 0777), 0);
  snprintf(path, sizeof path, "%s/sub/c.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("model: {path: ../m.tflite}\nmodule: {path: gen}\n", f);
  fclose(f);
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--path", path, NULL};
  assert_int_equal(load_args(args, &r, &c), MP_OK);
  char want[600];
  snprintf(want, sizeof want, "%s/sub/../m.tflite", dir);
  assert_string_equal(c->model_path, want);
  snprintf(want, sizeof want, "%s/sub/gen", dir);
  assert_string_equal(c->module_path, want);
  assert_string_equal(c->config_path, path);
  mp_config_free(&c);
  tu_rmtree(dir);
}

static void absolute_paths_are_kept(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: /data/m.tflite}\nmodule: {path: /tmp/o}\n", NULL, &r, &c),
                   MP_OK);
  assert_string_equal(c->model_path, "/data/m.tflite");
  assert_string_equal(c->module_path, "/tmp/o");
  mp_config_free(&c);
}

static void paths_given_on_the_command_line_resolve_against_the_cwd(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--model.path", "here/m.tflite", "--module.path", "o", NULL};
  assert_int_equal(load("model: {path: x.tflite}\n", args, &r, &c), MP_OK);
  assert_string_equal(c->model_path, "here/m.tflite");
  assert_string_equal(c->module_path, "o");
  assert_string_equal(c->model_name, "m");
  mp_config_free(&c);
}

static void the_whole_config_can_be_given_on_the_command_line(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--model.path", "m.tflite", "--model.subgraph", "2", "--module.prefix",
                        "kws", "--platform", "apollo4p_evb", "--memory.planner", "greedy_by_size",
                        "--memory.dump-residency-json", "--verbose", "0", "--report", "r.html",
                        "--allow-unsupported", NULL};
  assert_int_equal(load_args(args, &r, &c), MP_OK);
  assert_null(c->config_path);
  assert_string_equal(c->model_path, "m.tflite");
  assert_int_equal(c->subgraph, 2);
  assert_string_equal(c->prefix, "kws");
  assert_string_equal(c->module_name, "kws");
  assert_string_equal(c->module_path, "out");
  assert_string_equal(c->platform.name, "apollo4p_evb");
  assert_string_equal(c->memory.planner, "greedy_by_size");
  assert_true(c->memory.dump_residency_json);
  assert_int_equal(c->verbose, 0);
  assert_string_equal(c->report_path, "r.html");
  assert_true(c->allow_unsupported);
  mp_config_free(&c);
}

static void a_positional_tflite_is_the_model_and_another_the_config(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"net.tflite", NULL};
  assert_int_equal(load_args(args, &r, &c), MP_OK);
  assert_string_equal(c->model_path, "net.tflite");
  mp_config_free(&c);
  const char *two[] = {"a.yaml", "b.yaml", NULL};
  assert_int_not_equal(load_args(two, &r, &c), MP_OK);
  assert_true(rec_find(&r, NULL, "more than one config given ('a.yaml' and 'b.yaml')") >= 0);
}

/* ---- the command line ---------------------------------------------------------------- */

static void the_command_line_overrides_the_file(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--memory.planner", "greedy_by_size", "--verbose=2", "--model.subgraph",
                        "1", NULL};
  assert_int_equal(load("model: {path: m.tflite, subgraph: 0}\nmemory: {planner: greedy}\n"
                        "verbose: 0\n",
                        args, &r, &c),
                   MP_OK);
  assert_string_equal(c->memory.planner, "greedy_by_size");
  assert_int_equal(c->verbose, 2);
  assert_int_equal(c->subgraph, 1);
  mp_config_free(&c);
}

static void module_target_names_a_core_and_unknown_ones_are_refused(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *m4[] = {"--module.target", "cortex-m4", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nmodule: {target: cortex-m55}\n", m4, &r, &c),
                   MP_OK);
  assert_int_equal(c->target, MP_TARGET_CORTEX_M4);
  mp_config_free(&c);
  for (int t = 0; t < MP_TARGET_COUNT; t++) {
    mp_target got;
    assert_true(mp_target_find(mp_target_name((mp_target)t), &got));
    assert_int_equal(got, t);
  }
  assert_int_equal(load("model: {path: m.tflite}\nmodule: {target: riscv}\n", NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_int_equal(r.errors, 1);
  assert_string_equal(r.d[0].key, "module.target");
  assert_int_equal(r.d[0].line, 2);
  assert_int_equal(r.d[0].column, 18);
  assert_string_equal(r.d[0].msg, "unknown target 'riscv' (targets: generic, cortex-m4, "
                                  "cortex-m7, cortex-m33 and cortex-m55)");
  assert_int_equal(load("model: {path: m.tflite}\nmodule: {target: [cortex-m4]}\n", NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_non_null(strstr(r.d[0].msg, "must be a string"));
}

static void module_tables_memory_names_a_memory_of_the_platform(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\n", NULL, &r, &c), MP_OK);
  assert_false(c->has_tables_memory);
  mp_config_free(&c);
  const char *dtcm[] = {"--module.tables_memory", "dtcm", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nmodule: {tables_memory: mram}\n", dtcm, &r, &c),
                   MP_OK);
  assert_true(c->has_tables_memory);
  assert_int_equal(c->tables_memory, MP_MEM_DTCM);
  mp_config_free(&c);
  assert_int_equal(load("model: {path: m.tflite}\nmodule: {tables_memory: flsh}\n", NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_int_equal(r.errors, 1);
  assert_string_equal(r.d[0].key, "module.tables_memory");
  assert_int_equal(r.d[0].line, 2);
  assert_non_null(strstr(r.d[0].msg, "unknown memory"));
}

static void models_lists_several_models_with_their_own_prefixes(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("models:\n  - {path: kws.tflite}\n  - {path: vww-96.tflite, subgraph: 1}\n"
                        "  - {path: x.tflite, name: ad, prefix: ad01}\nmodule: {path: out}\n",
                        NULL, &r, &c),
                   MP_OK);
  assert_int_equal(c->n_models, 3);
  assert_string_equal(c->models[0].prefix, "kws");
  assert_string_equal(c->models[1].prefix, "vww_96");
  assert_int_equal(c->models[1].subgraph, 1);
  assert_string_equal(c->models[2].name, "ad");
  assert_string_equal(c->models[2].prefix, "ad01");
  assert_non_null(strstr(c->models[0].path, "kws.tflite"));
  assert_string_equal(c->prefix, "shared"); /* the shared arenas' prefix */
  mp_config_free(&c);
  assert_int_equal(load("models: [{path: a.tflite}]\nmodule: {prefix: pair}\n", NULL, &r, &c), MP_OK);
  assert_string_equal(c->prefix, "pair");
  mp_config_free(&c);
  /* two models of one prefix; model and models; a model without a path */
  assert_int_equal(load("models:\n  - {path: a/kws.tflite}\n  - {path: b/kws.tflite}\n", NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_int_equal(r.errors, 1);
  assert_string_equal(r.d[0].key, "models[1]");
  assert_non_null(strstr(r.d[0].msg, "has the prefix 'kws' of models[0]"));
  assert_int_equal(load("model: {path: a.tflite}\nmodels: [{path: b.tflite}]\n", NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_non_null(strstr(r.d[0].msg, "either 'model' or 'models'"));
  assert_int_equal(load("models: [{name: x}]\n", NULL, &r, &c), MP_ERR_CONFIG);
  assert_string_equal(r.d[0].key, "models[0]");
  assert_non_null(strstr(r.d[0].msg, "needs a 'path'"));
  assert_int_equal(load("models: []\n", NULL, &r, &c), MP_ERR_CONFIG);
  assert_non_null(strstr(r.d[0].msg, "non-empty list"));
  assert_int_equal(load("models: [{path: a.tflite, prefx: a}]\n", NULL, &r, &c), MP_ERR_CONFIG);
  assert_non_null(strstr(r.d[0].msg, "unknown key 'models[0].prefx'"));
}

static void the_last_of_two_overrides_wins(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--memory.planner", "greedy_by_size", "--memory.planner", "greedy", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", args, &r, &c), MP_OK);
  assert_string_equal(c->memory.planner, "greedy");
  mp_config_free(&c);
}

static void kebab_and_snake_case_name_the_same_key(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--memory.dump_residency_json", "--memory.allocate-arenas", "false", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nmemory:\n  dump-residency-json: false\n"
                        "  allocate_arenas: true\n",
                        args, &r, &c),
                   MP_OK);
  assert_true(c->memory.dump_residency_json);
  assert_false(c->memory.allocate_arenas);
  mp_config_free(&c);
  /* both spellings in one mapping are one key given twice */
  assert_int_equal(load("model: {path: m.tflite}\nmemory:\n  allocate-arenas: false\n"
                        "  allocate_arenas: true\n",
                        NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_true(rec_find(&r, "memory.allocate_arenas", "duplicate key 'memory.allocate_arenas' "
                                                     "(first given at line 3)") >= 0);
}

static void the_operator_order_is_model_or_min_peak_from_the_file_or_the_command_line(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nmemory: {op_order: min_peak}\n", NULL, &r, &c),
                   MP_OK);
  assert_int_equal(c->memory.op_order, MP_OP_ORDER_MIN_PEAK);
  mp_config_free(&c);
  const char *a[] = {"--memory.op-order", "model", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nmemory: {op_order: min_peak}\n", a, &r, &c),
                   MP_OK);
  assert_int_equal(c->memory.op_order, MP_OP_ORDER_MODEL);
  mp_config_free(&c);
}

/* memory.in_place: a boolean (true is size), speed or size, from the file
 * or the command line, where a bare flag still means true. */
static void in_place_is_a_boolean_speed_or_size(void **state) {
  (void)state;
  static const struct {
    const char *yaml, *arg[4]; /* NULL-terminated */
    mp_in_place_mode mode;
  } cases[] = {
      {"memory: {in_place: false}\n", {0}, MP_IN_PLACE_OFF},
      {"memory: {in_place: true}\n", {0}, MP_IN_PLACE_SIZE},
      {"memory: {in_place: yes}\n", {0}, MP_IN_PLACE_SIZE},
      {"memory: {in_place: size}\n", {0}, MP_IN_PLACE_SIZE},
      {"memory: {in_place: speed}\n", {0}, MP_IN_PLACE_SPEED},
      {"memory: {in_place: \"Speed\"}\n", {0}, MP_IN_PLACE_SPEED},
      {"", {"--memory.in_place=speed"}, MP_IN_PLACE_SPEED},
      {"", {"--memory.in-place", "size"}, MP_IN_PLACE_SIZE},
      {"", {"--memory.in_place"}, MP_IN_PLACE_SIZE},
      {"", {"--memory.in_place", "--memory.planner", "greedy"}, MP_IN_PLACE_SIZE},
      {"memory: {in_place: speed}\n", {"--memory.no-in-place"}, MP_IN_PLACE_OFF},
      {"memory: {in_place: speed}\n", {"--memory.in_place=true"}, MP_IN_PLACE_SIZE},
      {"memory: {in_place: size}\n", {"--memory.in_place", "speed"}, MP_IN_PLACE_SPEED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char yaml[256];
    snprintf(yaml, sizeof yaml, "model: {path: m.tflite}\n%s", cases[i].yaml);
    rec r;
    mp_config *c = NULL;
    mp_status st = load(yaml, cases[i].arg, &r, &c);
    if (st != MP_OK) rec_dump(&r);
    assert_int_equal(st, MP_OK);
    if (c->memory.in_place_mode != cases[i].mode)
      print_message("case %zu: mode %d, want %d\n", i, c->memory.in_place_mode, cases[i].mode);
    assert_int_equal(c->memory.in_place_mode, cases[i].mode);
    assert_int_equal(c->memory.in_place, cases[i].mode != MP_IN_PLACE_OFF);
    mp_config_free(&c);
  }
  /* a bad value: the key path, its line and column, the accepted values */
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nmemory:\n  planner: greedy\n  in_place: fastest\n",
                        NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_null(c);
  int at = rec_find(&r, "memory.in_place", "must be false, true, speed or size, not 'fastest'");
  if (at < 0) rec_dump(&r);
  assert_true(at >= 0);
  assert_int_equal(r.d[at].line, 4);
  assert_int_equal(r.d[at].column, 13);
  assert_int_equal(load("model: {path: m.tflite}\nmemory: {in_place: sise}\n", NULL, &r, &c),
                   MP_ERR_CONFIG);
  at = rec_find(&r, "memory.in_place", "did you mean 'size'?");
  assert_true(at >= 0);
  assert_int_equal(r.d[at].line, 2);
  assert_int_equal(r.d[at].column, 20);
  const char *a[] = {"--memory.in_place=2", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", a, &r, &c), MP_ERR_CONFIG);
  assert_true(rec_find(&r, "memory.in_place", "false, true, speed or size") >= 0);
}

static void booleans_take_no_prefix_and_an_optional_value(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *a1[] = {"--memory.no-allocate-arenas", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", a1, &r, &c), MP_OK);
  assert_false(c->memory.allocate_arenas);
  mp_config_free(&c);
  const char *a2[] = {"--memory.allocate-arenas", "false", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", a2, &r, &c), MP_OK);
  assert_false(c->memory.allocate_arenas);
  mp_config_free(&c);
  const char *a3[] = {"--memory.allocate-arenas=no", "--memory.allocate-arenas", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", a3, &r, &c), MP_OK);
  assert_true(c->memory.allocate_arenas);
  mp_config_free(&c);
  /* a bare flag does not swallow the positional after it */
  const char *a4[] = {"--memory.dump-residency-json", "m.tflite", NULL};
  assert_int_equal(load_args(a4, &r, &c), MP_OK);
  assert_true(c->memory.dump_residency_json);
  assert_string_equal(c->model_path, "m.tflite");
  mp_config_free(&c);
}

static void planner_options_come_as_a_json_object_or_one_by_one(void **state) {
  (void)state;
  /* hill_climb is one of the planners memplan ships: not finding it is a
   * failure, not a reason to skip */
  const mp_planner *hc = mp_planner_find("hill_climb");
  assert_non_null(hc);
  rec r;
  mp_config *c = NULL;
  const char *a1[] = {"--memory.planner", "hill_climb", "--memory.planner-options",
                      "{\"iterations\": 2000, \"max-stall-iterations\": 7}", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", a1, &r, &c), MP_OK);
  assert_int_equal(c->memory.n_options, 2);
  assert_string_equal(c->memory.options[0].key, "iterations");
  assert_int_equal(c->memory.options[0].value, 2000);
  assert_string_equal(c->memory.options[1].key, "max_stall_iterations");
  assert_int_equal(c->memory.options[1].value, 7);
  mp_config_free(&c);
  const char *a2[] = {"--memory.planner-options.seed", "42", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nmemory:\n  planner: hill_climb\n"
                        "  planner_options: {iterations: 10}\n",
                        a2, &r, &c),
                   MP_OK);
  assert_int_equal(c->memory.n_options, 2);
  assert_int_equal(option(c, "iterations")->value, 10);
  assert_int_equal(option(c, "seed")->value, 42);
  mp_config_free(&c);
}

static void planner_options_are_checked_against_the_planner_table(void **state) {
  (void)state;
  /* every planner of the table: each of its options at min and max is
   * accepted, one past either end is not */
  for (uint32_t p = 0; p < mp_planner_count(); p++) {
    const mp_planner *pl = mp_planner_at(p);
    for (uint32_t o = 0; o < pl->n_options; o++) {
      const mp_option_spec *os = &pl->options[o];
      char yaml[512];
      rec r;
      mp_config *c = NULL;
      snprintf(yaml, sizeof yaml,
               "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: {%s: %lld}}\n",
               pl->name, os->key, (long long)os->max);
      assert_int_equal(load(yaml, NULL, &r, &c), MP_OK);
      assert_int_equal(option(c, os->key)->value, os->max);
      mp_config_free(&c);
      snprintf(yaml, sizeof yaml,
               "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: {%s: %lld}}\n",
               pl->name, os->key, (long long)os->min);
      assert_int_equal(load(yaml, NULL, &r, &c), MP_OK);
      mp_config_free(&c);
      if (os->min > INT64_MIN) {
        snprintf(yaml, sizeof yaml,
                 "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: {%s: %lld}}\n",
                 pl->name, os->key, (long long)os->min - 1);
        assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
      }
      if (os->max < INT64_MAX) {
        snprintf(yaml, sizeof yaml,
                 "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: {%s: %lld}}\n",
                 pl->name, os->key, (long long)os->max + 1);
        assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
      } else {
        snprintf(yaml, sizeof yaml,
                 "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: {%s: "
                 "9223372036854775808}}\n",
                 pl->name, os->key);
        assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
      }
    }
  }
}

static void greedy_and_greedy_by_size_accept_no_options(void **state) {
  (void)state;
  const char *names[] = {"greedy", "greedy_by_size"};
  for (int i = 0; i < 2; i++) {
    const mp_planner *pl = mp_planner_find(names[i]);
    if (!pl) continue;
    assert_int_equal(pl->n_options, 0);
    char yaml[256];
    snprintf(yaml, sizeof yaml, "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: "
                                "{iterations: 5}}\n", names[i]);
    rec r;
    mp_config *c = NULL;
    assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
    char want[128];
    snprintf(want, sizeof want, "planner '%s' accepts no options", names[i]);
    assert_true(rec_find(&r, "memory.planner_options.iterations", want) >= 0);
    /* an empty mapping is fine */
    snprintf(yaml, sizeof yaml, "model: {path: m.tflite}\nmemory: {planner: %s, planner_options: "
                                "{}}\n", names[i]);
    assert_int_equal(load(yaml, NULL, &r, &c), MP_OK);
    mp_config_free(&c);
  }
}

static void hill_climb_options_must_be_non_negative_integers(void **state) {
  (void)state;
  assert_non_null(mp_planner_find("hill_climb"));
  const char *bad[] = {"iterations: -1", "seed: -3", "max_stall_iterations: -1",
                       "iterations: 1.5", "seed: \"7\"", "iterations: true", "seed: [1]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char yaml[256];
    snprintf(yaml, sizeof yaml,
             "model: {path: m.tflite}\nmemory: {planner: hill_climb, planner_options: {%s}}\n",
             bad[i]);
    rec r;
    mp_config *c = NULL;
    assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
    assert_int_equal(r.errors, 1);
    assert_true(strstr(r.d[0].msg, "non-negative integer") || strstr(r.d[0].msg, "an integer"));
  }
}

static void constraints_come_as_a_json_list_with_max_size_defaulting_to_the_platform(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--memory.constraints",
                        "[{\"name\":\"sram\",\"max_size\":262144,\"arena_alignment\":32},"
                        " {\"name\":\"DTCM\"}]",
                        NULL};
  assert_int_equal(load("model: {path: m.tflite}\nplatform: apollo4p_evb\n", args, &r, &c), MP_OK);
  assert_int_equal(c->memory.n_constraints, 2);
  assert_int_equal(c->memory.constraints[0].name, MP_MEM_SRAM);
  assert_true(c->memory.constraints[0].has_max_size);
  assert_int_equal(c->memory.constraints[0].max_size, 262144);
  assert_int_equal(c->memory.constraints[0].arena_alignment, 32);
  assert_int_equal(c->memory.constraints[1].name, MP_MEM_DTCM);
  assert_false(c->memory.constraints[1].has_max_size);
  assert_int_equal(c->memory.constraints[1].max_size, 384 * 1024);
  assert_int_equal(c->memory.constraints[1].arena_alignment, 0);
  mp_config_free(&c);
}

static void sizes_take_binary_suffixes(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nmemory:\n  constraints:\n"
                        "    - {name: dtcm, max_size: 256KiB}\n    - {name: sram, max_size: 2M}\n"
                        "    - {name: psram, max_size: 0x100}\n",
                        NULL, &r, &c),
                   MP_OK);
  assert_int_equal(c->memory.constraints[0].max_size, 262144);
  assert_int_equal(c->memory.constraints[1].max_size, 2 * 1024 * 1024);
  assert_int_equal(c->memory.constraints[2].max_size, 256);
  mp_config_free(&c);
}

static void rulesets_come_as_a_json_list_and_keep_where_they_came_from(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--memory.tensors",
                        "[{\"type\":\"constant\",\"id\":[\"12\",\"w\"],"
                        "\"attributes\":{\"memory\":\"mram\",\"constant_destination_memory\":\"dtcm\"}}]",
                        NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", args, &r, &c), MP_OK);
  assert_int_equal(c->memory.n_rules, 1);
  const mp_rule *k = &c->memory.rules[0];
  assert_int_equal(k->type, MP_ROLE_CONSTANT);
  assert_int_equal(k->n_ids, 2);
  assert_string_equal(k->ids[0], "12");
  assert_string_equal(k->ids[1], "w");
  assert_true(k->attributes.has_memory);
  assert_int_equal(k->attributes.memory, MP_MEM_MRAM);
  assert_true(k->attributes.has_constant_destination_memory);
  assert_int_equal(k->attributes.constant_destination_memory, MP_MEM_DTCM);
  assert_string_equal(k->where, "--memory.tensors[0]");
  assert_string_equal(k->key_path, "memory.tensors[0]");
  assert_null(k->file);
  mp_config_free(&c);
}

static void rulesets_in_a_file_record_line_and_column(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\n"
                        "memory:\n"
                        "  tensors:\n"
                        "    - type: \"*\"\n"
                        "      attributes: {memory: sram}\n"
                        "    - id: [3, conv]\n"
                        "      type: scratch\n",
                        NULL, &r, &c),
                   MP_OK);
  assert_int_equal(c->memory.n_rules, 2);
  const mp_rule *a = &c->memory.rules[0], *b = &c->memory.rules[1];
  assert_int_equal(a->type, MP_RULE_ANY_TYPE);
  assert_int_equal(a->n_ids, 0);
  assert_null(a->ids);
  assert_string_equal(a->where, "cfg/config.yaml:4:7");
  assert_string_equal(a->file, "cfg/config.yaml");
  assert_int_equal(a->line, 4);
  assert_int_equal(a->column, 7);
  assert_string_equal(a->source_line, "    - type: \"*\"");
  assert_int_equal(b->type, MP_ROLE_SCRATCH);
  assert_int_equal(b->n_ids, 2);
  assert_string_equal(b->ids[0], "3");
  assert_string_equal(b->ids[1], "conv");
  assert_int_equal(b->id_line[1], 6);
  assert_int_equal(b->id_column[1], 15);
  assert_false(b->attributes.has_memory);
  mp_config_free(&c);
}

/* ---- platforms -------------------------------------------------------------------------- */

static void inline_fields_override_a_builtin(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nplatform:\n  name: apollo4p_evb\n"
                        "  memories: {dtcm: 128KiB, psram: 8MiB}\n  min_alignment: 32\n",
                        NULL, &r, &c),
                   MP_OK);
  const mp_platform *p = &c->platform;
  assert_string_equal(p->name, "apollo4p_evb");
  assert_int_equal(p->size[MP_MEM_DTCM], 131072);
  assert_int_equal(p->size[MP_MEM_SRAM], 1024 * 1024);
  assert_int_equal(p->size[MP_MEM_MRAM], 2000 * 1024);
  assert_true(p->present[MP_MEM_PSRAM]);
  assert_int_equal(p->size[MP_MEM_PSRAM], 8 * 1024 * 1024);
  assert_int_equal(p->min_alignment, 32);
  assert_int_equal(p->n_order, 4);
  assert_int_equal(p->order[2], MP_MEM_PSRAM);
  mp_config_free(&c);
}

static void an_inline_platform_without_a_builtin_name_has_only_its_memories(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nplatform:\n  name: my_board\n"
                        "  memories: {SRAM: 1MiB, mram: 2MiB, itcm: 4096}\n"
                        "  preferred_memory_order: [sram, itcm]\n",
                        NULL, &r, &c),
                   MP_OK);
  const mp_platform *p = &c->platform;
  assert_string_equal(p->name, "my_board");
  assert_false(p->present[MP_MEM_DTCM]);
  assert_true(p->present[MP_MEM_SRAM]);
  assert_int_equal(p->min_alignment, 16);
  assert_int_equal(p->n_order, 2);
  assert_int_equal(p->order[0], MP_MEM_SRAM);
  assert_int_equal(p->order[1], MP_MEM_ITCM);
  mp_config_free(&c);
}

static void memories_without_a_platform_name_override_the_default_platform(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  mp_platform want;
  assert_true(mp_platform_builtin(MP_DEFAULT_PLATFORM, &want));
  assert_int_equal(load("model: {path: m.tflite}\nplatform: {memories: {sram: 1024}}\n", NULL, &r,
                        &c),
                   MP_OK);
  want.size[MP_MEM_SRAM] = 1024;
  assert_memory_equal(&c->platform, &want, sizeof want);
  mp_config_free(&c);
  /* a lone min_alignment keeps the default platform too */
  assert_int_equal(load("model: {path: m.tflite}\nplatform: {min_alignment: 32}\n", NULL, &r, &c),
                   MP_OK);
  assert_true(mp_platform_builtin(MP_DEFAULT_PLATFORM, &want));
  want.min_alignment = 32;
  assert_memory_equal(&c->platform, &want, sizeof want);
  mp_config_free(&c);
  /* one memory from the command line changes that memory and keeps the rest */
  const char *args[] = {"--platform.memories.dtcm", "64KiB", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", args, &r, &c), MP_OK);
  assert_true(mp_platform_builtin(MP_DEFAULT_PLATFORM, &want));
  want.size[MP_MEM_DTCM] = 64 * 1024;
  assert_memory_equal(&c->platform, &want, sizeof want);
  mp_config_free(&c);
}

static void memories_may_have_any_c_identifier_name_and_several_may_be_read_only(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nplatform:\n  name: h7_board\n  memories:\n"
                        "    DTCM: 128KiB\n    axi_sram: {size: 512KiB, alignment: 32}\n"
                        "    flash: {size: 2MiB, read_only: true}\n"
                        "    qspi: {size: 16MiB, read_only: true}\n"
                        "memory:\n  constraints: [{name: AXI_SRAM, max_size: 256KiB}]\n"
                        "  tensors:\n    - {type: constant, attributes: {memory: qspi, "
                        "constant_destination_memory: axi_sram}}\n",
                        NULL, &r, &c),
                   MP_OK);
  const mp_platform *p = &c->platform;
  mp_memory axi, flash, qspi;
  assert_true(mp_platform_find_memory(p, "axi_sram", &axi));
  assert_true(mp_platform_find_memory(p, "flash", &flash));
  assert_true(mp_platform_find_memory(p, "qspi", &qspi));
  assert_int_equal(p->size[axi], 512 * 1024);
  assert_int_equal(p->alignment[axi], 32);
  assert_false(p->read_only[axi]);
  assert_true(p->read_only[flash] && p->read_only[qspi]);
  assert_int_equal(p->size[qspi], 16 * 1024 * 1024);
  /* the default order: dtcm, the other writable memories, the read-only ones by name */
  assert_int_equal(p->n_order, 4);
  assert_int_equal(p->order[0], MP_MEM_DTCM);
  assert_int_equal(p->order[1], axi);
  assert_int_equal(p->order[2], flash);
  assert_int_equal(p->order[3], qspi);
  assert_int_equal(c->memory.constraints[0].name, axi);
  assert_int_equal(c->memory.rules[0].attributes.memory, qspi);
  assert_int_equal(c->memory.rules[0].attributes.constant_destination_memory, axi);
  mp_config_free(&c);
  /* a field of a memory is changed on its own; an added memory joins the order */
  const char *args[] = {"--platform.memories.mram", "{\"read_only\": true, \"alignment\": 64}",
                        "--platform.memories.ext_ram", "8MiB", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nplatform: apollo4p_evb\n", args, &r, &c), MP_OK);
  p = &c->platform;
  assert_int_equal(p->size[MP_MEM_MRAM], 2000 * 1024);
  assert_int_equal(p->alignment[MP_MEM_MRAM], 64);
  mp_memory ext;
  assert_true(mp_platform_find_memory(p, "ext_ram", &ext));
  assert_int_equal(p->n_order, 4);
  assert_int_equal(p->order[2], ext);
  assert_int_equal(p->order[3], MP_MEM_MRAM);
  mp_config_free(&c);
}

static void a_platform_may_live_in_its_own_file_and_the_config_overrides_it(void **state) {
  (void)state;
  const char *dir = tu_tmpdir();
  assert_non_null(dir);
  char path[512], cfg[512];
  snprintf(path, sizeof path, "%s/board.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("name: my_h7\nmin_alignment: 32\nmemories:\n  dtcm: 128KiB\n"
        "  axi_sram: {size: 512KiB, alignment: 32}\n  flash: {size: 2MiB, read_only: true}\n"
        "preferred_memory_order: [axi_sram, dtcm, flash]\n",
        f);
  fclose(f);
  snprintf(cfg, sizeof cfg, "%s/config.yaml", dir);
  const char *yaml = "model: {path: m.tflite}\nplatform: {file: board.yaml, memories: {dtcm: 64KiB}}\n";
  rec r;
  rec_init(&r);
  mp_config *c = NULL;
  char *argv[] = {(char *)"convert", NULL};
  assert_int_equal(mp_config_from_text(yaml, strlen(yaml), cfg, 1, argv, &r.sink, &c), MP_OK);
  const mp_platform *p = &c->platform;
  assert_string_equal(p->name, "my_h7");
  assert_int_equal(p->min_alignment, 32);
  assert_int_equal(p->size[MP_MEM_DTCM], 64 * 1024);
  mp_memory axi, flash;
  assert_true(mp_platform_find_memory(p, "axi_sram", &axi));
  assert_true(mp_platform_find_memory(p, "flash", &flash));
  assert_int_equal(p->size[axi], 512 * 1024);
  assert_true(p->read_only[flash]);
  assert_false(p->present[MP_MEM_SRAM]);
  assert_int_equal(p->n_order, 3);
  assert_int_equal(p->order[0], axi);
  mp_config_free(&c);
  /* an error inside the file names the file, its line and the key */
  f = fopen(path, "w");
  assert_non_null(f);
  fputs("name: my_h7\nmemories:\n  dtcm: lots\n", f);
  fclose(f);
  rec_init(&r);
  assert_int_equal(mp_config_from_text(yaml, strlen(yaml), cfg, 1, argv, &r.sink, &c),
                   MP_ERR_CONFIG);
  int i = rec_find(&r, "platform.memories.dtcm", "must be a size in bytes");
  assert_true(i >= 0);
  assert_non_null(strstr(r.d[i].file, "board.yaml"));
  assert_int_equal(r.d[i].line, 3);
  tu_rmtree(dir);
}

static void a_memory_name_close_to_an_existing_one_warns(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nplatform: {memories: {dtmc: 64KiB}}\n", NULL, &r, &c),
                   MP_OK);
  assert_int_equal(r.warnings, 1);
  assert_true(rec_find(&r, "platform.memories.dtmc", "adds a memory 'dtmc' to platform "
                                                     "'apollo510_evb' \xe2\x80\x94 did you mean 'dtcm'?") >= 0);
  mp_config_free(&c);
  /* numbered banks are siblings, not typos */
  assert_int_equal(load("model: {path: m.tflite}\nplatform: {name: stm32h743, memories: {sram5: 4KiB}}\n",
                        NULL, &r, &c),
                   MP_OK);
  assert_int_equal(r.warnings, 0);
  mp_config_free(&c);
}

static void null_removes_a_memory_of_a_builtin(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nplatform: {name: apollo510_evb, memories: "
                        "{psram: null}}\n",
                        NULL, &r, &c),
                   MP_OK);
  assert_false(c->platform.present[MP_MEM_PSRAM]);
  assert_int_equal(c->platform.n_order, 3);
  mp_config_free(&c);
}

static void platform_fields_can_be_overridden_one_by_one_on_the_command_line(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--platform.min-alignment", "64", "--platform.memories.dtcm", "100000",
                        "--platform.preferred-memory-order", "sram,dtcm,mram", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nplatform: apollo3p_evb\n", args, &r, &c), MP_OK);
  assert_string_equal(c->platform.name, "apollo3p_evb");
  assert_int_equal(c->platform.min_alignment, 64);
  assert_int_equal(c->platform.size[MP_MEM_DTCM], 100000);
  assert_int_equal(c->platform.order[0], MP_MEM_SRAM);
  assert_int_equal(c->platform.order[1], MP_MEM_DTCM);
  mp_config_free(&c);
  /* --platform NAME replaces the file's whole platform */
  const char *a2[] = {"--platform", "apollo330p_evb", NULL};
  assert_int_equal(load("model: {path: m.tflite}\nplatform: {name: apollo3p_evb, min_alignment: "
                        "64}\n",
                        a2, &r, &c),
                   MP_OK);
  assert_string_equal(c->platform.name, "apollo330p_evb");
  assert_int_equal(c->platform.min_alignment, 16);
  mp_config_free(&c);
}

static void no_platform_means_the_default_builtin(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\n", NULL, &r, &c), MP_OK);
  mp_platform want;
  assert_true(mp_platform_builtin(MP_DEFAULT_PLATFORM, &want));
  assert_memory_equal(&c->platform, &want, sizeof want);
  mp_config_free(&c);
}

/* ---- deprecation, errors and their places ------------------------------------------------ */

static void auto_hydrate_constants_warns_once_and_changes_nothing(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL, *base = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nmemory: {auto_hydrate_constants: false}\n", NULL,
                        &r, &c),
                   MP_OK);
  assert_int_equal(r.errors, 0);
  assert_int_equal(r.warnings, 1);
  assert_null(strchr(r.d[0].msg, '\n'));
  assert_string_equal(r.d[0].key, "memory.auto_hydrate_constants");
  assert_non_null(strstr(r.d[0].msg, "deprecated"));
  assert_int_equal(r.d[0].line, 2);
  assert_false(c->memory.auto_hydrate_constants);
  assert_int_equal(load("model: {path: m.tflite}\n", NULL, &r, &base), MP_OK);
  /* nothing else differs */
  assert_memory_equal(&c->platform, &base->platform, sizeof base->platform);
  assert_int_equal(c->memory.allocate_arenas, base->memory.allocate_arenas);
  assert_int_equal(c->memory.dump_residency_json, base->memory.dump_residency_json);
  mp_config_free(&c);
  mp_config_free(&base);
}

static void malformed_yaml_reports_line_and_column(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nmemory:\n  planner: [greedy\n  x: 1\n", NULL,
                        &r, &c),
                   MP_ERR_CONFIG);
  assert_null(c);
  assert_int_equal(r.errors, 1);
  assert_non_null(strstr(r.d[0].msg, "malformed YAML"));
  assert_string_equal(r.d[0].file, "cfg/config.yaml");
  assert_int_equal(r.d[0].line, 4);
  assert_int_equal(r.d[0].column, 4);
  assert_string_equal(r.d[0].source, "  x: 1");
}

static void a_tab_gets_a_hint(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model:\n\tpath: m.tflite\n", NULL, &r, &c), MP_ERR_CONFIG);
  assert_true(rec_find(&r, NULL, "YAML indents with spaces, not tabs") >= 0);
  assert_int_equal(r.d[0].line, 2);
}

static void malformed_json_on_the_command_line_reports_the_column(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--memory.planner-options", "{\"iterations\": 20,}", NULL};
  assert_int_equal(load("model: {path: m.tflite}\n", args, &r, &c), MP_ERR_CONFIG);
  assert_int_equal(r.errors, 1);
  assert_non_null(strstr(r.d[0].msg, "argument '--memory.planner-options': malformed JSON"));
  assert_string_equal(r.d[0].key, "memory.planner_options");
  assert_int_equal(r.d[0].column, 19);
  assert_string_equal(r.d[0].source, "{\"iterations\": 20,}");
}

static void every_error_is_reported_in_the_order_of_the_file(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("verbos: 1\n"
                        "model: {path: m.tflite, subgraf: 0}\n"
                        "memory:\n"
                        "  planer: greedy\n"
                        "modul: {}\n",
                        NULL, &r, &c),
                   MP_ERR_CONFIG);
  assert_int_equal(r.errors, 4);
  assert_string_equal(r.d[0].key, "verbos");
  assert_string_equal(r.d[1].key, "model.subgraf");
  assert_string_equal(r.d[2].key, "memory.planer");
  assert_string_equal(r.d[3].key, "modul");
  assert_int_equal(r.d[1].line, 2);
  assert_int_equal(r.d[1].column, 25);
}

static void a_missing_file_is_an_io_error(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  const char *args[] = {"--path", "/nonexistent/memplan/c.yaml", NULL};
  assert_int_equal(load_args(args, &r, &c), MP_ERR_IO);
  assert_null(c);
  assert_true(rec_find(&r, NULL, "cannot open") >= 0);
}

static void after_fifty_errors_the_rest_are_counted(void **state) {
  (void)state;
  char yaml[4096] = "model: {path: m.tflite}\n";
  for (int i = 0; i < 60; i++) {
    char line[32];
    snprintf(line, sizeof line, "bogus%d: 1\n", i);
    strcat(yaml, line);
  }
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
  assert_int_equal(r.errors, 51);
  assert_string_equal(r.d[50].msg, "10 more errors not shown");
}

static void a_huge_list_is_refused(void **state) {
  (void)state;
  size_t cap = 32 + (CFG_MAX_ITEMS + 1) * 3;
  char *yaml = malloc(cap);
  assert_non_null(yaml);
  strcpy(yaml, "model: {path: m.tflite}\nx: [");
  size_t len = strlen(yaml);
  for (unsigned i = 0; i <= CFG_MAX_ITEMS; i++) {
    memcpy(yaml + len, "1,", 2);
    len += 2;
  }
  memcpy(yaml + len, "1]\n", 4);
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load(yaml, NULL, &r, &c), MP_ERR_CONFIG);
  assert_true(rec_find(&r, "x", "more than 10000 entries in one list") >= 0);
  free(yaml);
}

static void a_null_ruleset_type_means_every_type(void **state) {
  (void)state;
  rec r;
  mp_config *c = NULL;
  assert_int_equal(load("model: {path: m.tflite}\nmemory: {tensors: [{type: null, attributes: "
                        "{memory: sram}}]}\n",
                        NULL, &r, &c),
                   MP_OK);
  assert_int_equal(c->memory.rules[0].type, MP_RULE_ANY_TYPE);
  mp_config_free(&c);
}

static void help_lists_every_key_with_type_default_and_meaning(void **state) {
  (void)state;
  char *h = mp_config_help_text();
  assert_non_null(h);
  size_t n;
  const cfg_key *k = cfg_keys(&n);
  assert_true(n >= 25);
  for (size_t i = 0; i < n; i++) {
    char cli[128];
    size_t j = 0;
    if (!strchr(k[i].path, '[')) {
      cli[j++] = '-';
      cli[j++] = '-';
      for (const char *p = k[i].path; *p && j < sizeof cli - 1; p++) cli[j++] = *p == '_' ? '-' : *p;
    } else {
      j = (size_t)snprintf(cli, sizeof cli, "%s", k[i].path);
    }
    cli[j] = '\0';
    char line[256];
    snprintf(line, sizeof line, "\n  %s  (%s", cli, k[i].type_name);
    if (!strstr(h, line)) print_message("missing from --help: %s\n", line + 1);
    assert_non_null(strstr(h, line));
    assert_non_null(k[i].help);
    assert_true(strlen(k[i].help) > 10);
  }
  /* meanings from the seeds */
  assert_non_null(strstr(h, "Memory planner strategy. Defaults to greedy"));
  assert_non_null(strstr(h, "Memory constraints (ordered by preference)."));
  assert_non_null(strstr(h, "default: true)"));
  for (uint32_t p = 0; p < mp_planner_count(); p++) {
    const mp_planner *pl = mp_planner_at(p);
    assert_non_null(strstr(h, pl->name));
    for (uint32_t o = 0; o < pl->n_options; o++) assert_non_null(strstr(h, pl->options[o].key));
  }
  for (const char *const *b = mp_platform_builtin_names(); *b; b++) assert_non_null(strstr(h, *b));
  free(h);
}

static void suggestions_are_offered_only_when_close(void **state) {
  (void)state;
  const char *c[] = {"planner", "planner_options", "constraints", "tensors"};
  assert_string_equal(mp_suggest("planer", c, 4), "planner");
  assert_string_equal(mp_suggest("Planner", c, 4), "planner");
  assert_string_equal(mp_suggest("planner-option", c, 4), "planner_options");
  assert_string_equal(mp_suggest("tensros", c, 4), "tensors");
  assert_null(mp_suggest("x", c, 4));
  assert_null(mp_suggest("verbose", c, 4));
  assert_null(mp_suggest("", c, 4));
  assert_string_equal(mp_planner_suggest("gredy"), "greedy");
  assert_string_equal(mp_planner_suggest("HILL-CLIMB"), "hill_climb");
  assert_string_equal(mp_planner_suggest("greedy_by_szie"), "greedy_by_size");
  assert_null(mp_planner_suggest("annealing"));
}

/* The one edit distance behind every suggestion: folded, swaps count once,
 * long names (tensor names) measured whole, and a cap. */
static void edit_distance_folds_counts_swaps_and_caps(void **state) {
  (void)state;
  assert_int_equal(mp_edit_distance("memory", "memory", 64), 0);
  assert_int_equal(mp_edit_distance("memroy", "memory", 64), 1);
  assert_int_equal(mp_edit_distance("Planner-Options", "planner_options", 64), 0);
  assert_int_equal(mp_edit_distance("", "abc", 64), 3);
  assert_int_equal(mp_edit_distance("kitten", "sitting", 64), 3);
  char a[301], b[301];
  memset(a, 'x', 300);
  memcpy(b, a, 300);
  a[300] = b[300] = '\0';
  b[150] = 'y';
  b[299] = 'z';
  assert_int_equal(mp_edit_distance(a, b, 300), 2);
  assert_int_equal(mp_edit_distance(a, b, 299), SIZE_MAX);
  assert_int_equal(mp_edit_distance("xy", b, 300), 298); /* 298 inserts, "y" matches */
}

/* ---- the table of bad configs ---------------------------------------------------------------- */

typedef struct bad_case {
  const char *yaml;        /* model: {path: m.tflite} is prepended unless it names a model */
  const char *args[4];     /* extra CLI arguments */
  const char *key;         /* exact key path of the error; NULL: none */
  const char *text;        /* part of the message: the value, the suggestion */
} bad_case;

static const bad_case bad[] = {
    /* unknown keys, at every depth, with a suggestion */
    {"modle: {path: m.tflite}\n", {0}, "modle", "unknown key 'modle' \xe2\x80\x94 did you mean 'model'?"},
    {"memory: {planer: greedy}\n", {0}, "memory.planer",
     "unknown key 'memory.planer' \xe2\x80\x94 did you mean 'memory.planner'?"},
    {"planner: greedy\n", {0}, "planner", "unknown key 'planner' \xe2\x80\x94 did you mean 'memory.planner'?"},
    {"model: {path: m.tflite, subgraf: 1}\n", {0}, "model.subgraf",
     "did you mean 'model.subgraph'?"},
    {"module: {prefx: kws}\n", {0}, "module.prefx", "did you mean 'module.prefix'?"},
    {"memory: {constraints: [{name: dtcm, max_sise: 1}]}\n", {0}, "memory.constraints[0].max_sise",
     "did you mean 'memory.constraints[0].max_size'?"},
    {"memory: {tensors: [{ids: [1]}]}\n", {0}, "memory.tensors[0].ids",
     "did you mean 'memory.tensors[0].id'?"},
    {"memory: {tensors: [{attributes: {memroy: sram}}]}\n", {0}, "memory.tensors[0].attributes.memroy",
     "did you mean 'memory.tensors[0].attributes.memory'?"},
    {"memory: {tensors: [{attributes: {constant_destination: sram}}]}\n", {0},
     "memory.tensors[0].attributes.constant_destination",
     "did you mean 'memory.tensors[0].attributes.constant_destination_memory'?"},
    {"platform: {name: apollo4p_evb, min_aligment: 32}\n", {0}, "platform.min_aligment",
     "did you mean 'platform.min_alignment'?"},
    {"", {"--memory.planer", "greedy"}, "memory.planer",
     "argument '--memory.planer': unknown key 'memory.planer' \xe2\x80\x94 did you mean 'memory.planner'?"},
    {"", {"--memory.allocate-arena"}, "memory.allocate-arena",
     "did you mean 'memory.allocate_arenas'?"},
    /* planners and their options */
    {"memory: {planner: hill_climbing}\n", {0}, "memory.planner",
     "unknown planner 'hill_climbing' \xe2\x80\x94 did you mean 'hill_climb'?"},
    {"memory: {planner: gredy}\n", {0}, "memory.planner", "did you mean 'greedy'?"},
    {"memory: {planner: greedy, planner_options: {iterations: 5}}\n", {0},
     "memory.planner_options.iterations",
     "planner 'greedy' accepts no options ('iterations' is an option of hill_climb)"},
    {"memory: {planner: greedy_by_size, planner_options: {seed: 1}}\n", {0},
     "memory.planner_options.seed", "planner 'greedy_by_size' accepts no options"},
    {"memory: {planner: hill_climb, planner_options: {iteratons: 5}}\n", {0},
     "memory.planner_options.iteratons", "did you mean 'memory.planner_options.iterations'?"},
    {"memory: {planner: hill_climb, planner_options: {iterations: -1}}\n", {0},
     "memory.planner_options.iterations", "must be a non-negative integer, not -1"},
    {"memory: {planner: hill_climb, planner_options: {seed: abc}}\n", {0},
     "memory.planner_options.seed", "not 'abc'"},
    {"", {"--memory.planner", "hill_climb", "--memory.planner-options", "{\"max_stall\": 3}"},
     "memory.planner_options.max_stall", "did you mean 'memory.planner_options.max_stall_iterations'?"},
    {"memory: {planner_options: [1]}\n", {0}, "memory.planner_options", "must be a mapping, not a list"},
    /* constraints */
    {"memory: {constraints: [{name: dctm}]}\n", {0}, "memory.constraints[0].name",
     "unknown memory 'dctm' \xe2\x80\x94 did you mean 'dtcm'?"},
    {"platform: apollo4p_evb\nmemory: {constraints: [{name: psram}]}\n", {0},
     "memory.constraints[0].name", "is psram, which platform 'apollo4p_evb' does not have"},
    {"memory:\n  constraints:\n    - {name: dtcm}\n    - {name: DTCM}\n", {0},
     "memory.constraints[1].name", "a second constraint for dtcm (the first is memory.constraints[0], line 4)"},
    {"memory: {constraints: [{name: dtcm, max_size: -1}]}\n", {0}, "memory.constraints[0].max_size",
     "must be a non-negative size in bytes, not -1"},
    {"memory: {constraints: [{name: sram, max_size: 2000000000000}]}\n", {0},
     "memory.constraints[0].max_size", "more than 2^40"},
    {"memory: {constraints: [{name: dtcm, max_size: 600000}]}\n", {0},
     "memory.constraints[0].max_size", "more than the 524288 bytes of dtcm on 'apollo510_evb'"},
    {"memory: {constraints: [{name: dtcm, arena_alignment: 24}]}\n", {0},
     "memory.constraints[0].arena_alignment", "must be a power of two from 1 to 4096, not 24"},
    {"memory: {constraints: [{name: dtcm, arena_alignment: 8192}]}\n", {0},
     "memory.constraints[0].arena_alignment", "must be a power of two from 1 to 4096, not 8192"},
    {"memory: {constraints: [{max_size: 10}]}\n", {0}, "memory.constraints[0]", "needs a 'name'"},
    {"memory: {constraints: {name: dtcm}}\n", {0}, "memory.constraints", "must be a list"},
    {"", {"--memory.constraints", "[{\"name\": \"dtcm\", \"max_size\": 12,]"}, "memory.constraints",
     "malformed JSON"},
    /* rulesets */
    {"memory: {tensors: [{type: constants}]}\n", {0}, "memory.tensors[0].type",
     "unknown tensor type 'constants' \xe2\x80\x94 did you mean 'constant'?"},
    {"memory: {tensors: [{attributes: {memory: sarm}}]}\n", {0}, "memory.tensors[0].attributes.memory",
     "unknown memory 'sarm' \xe2\x80\x94 did you mean 'sram'?"},
    {"memory: {tensors: [{type: constant, attributes: {constant_destination_memory: mram}}]}\n", {0},
     "memory.tensors[0].attributes.constant_destination_memory", "is mram, which is read-only"},
    {"memory: {tensors: [{type: scratch, attributes: {memory: mram}}]}\n", {0},
     "memory.tensors[0].attributes.memory", "is mram, which is read-only: scratch tensors need"},
    {"platform: apollo3p_evb\nmemory: {tensors: [{attributes: {memory: itcm}}]}\n", {0},
     "memory.tensors[0].attributes.memory", "is itcm, which platform 'apollo3p_evb' does not have"},
    {"memory: {tensors: [{id: []}]}\n", {0}, "memory.tensors[0].id", "is an empty list"},
    {"memory: {tensors: [{id: [-4]}]}\n", {0}, "memory.tensors[0].id[0]", "cannot be negative (-4)"},
    /* platforms */
    {"platform: apollo510\n", {0}, "platform", "unknown platform 'apollo510' \xe2\x80\x94 did you mean 'apollo510_evb'?"},
    {"", {"--platform", "apolo4p_evb"}, "platform", "did you mean 'apollo4p_evb'?"},
    {"platform: {name: apollo4p_evb, min_alignment: 3}\n", {0}, "platform.min_alignment",
     "must be a power of two from 1 to 4096, not 3"},
    {"platform: {name: apollo4p_evb, memories: {fl-sh: 1}}\n", {0}, "platform.memories.fl-sh",
     "memory name 'fl-sh' must be a C identifier"},
    {"platform: {memories: {2fast: 1}}\n", {0}, "platform.memories.2fast",
     "must be a C identifier of at most 31 characters"},
    {"platform: {memories: {ext: {read_only: true}}}\n", {0}, "platform.memories.ext",
     "needs a 'size': the platform has no ext to start from"},
    {"platform: {memories: {sram: {size: 1KiB, speed: 3}}}\n", {0},
     "platform.memories.sram.speed", "unknown key 'platform.memories.sram.speed'"},
    {"platform: {memories: {sram: {size: 1KiB, alignment: 24}}}\n", {0},
     "platform.memories.sram.alignment", "must be a power of two"},
    {"platform: {file: no_such_board.yaml}\n", {0}, "platform.file", "cannot read"},
    {"platform: {name: apollo4p_evb, file: b.yaml}\n", {0}, "platform.name",
     "'platform.name' and 'platform.file' both choose the platform"},
    {"memory: {tensors: [{attributes: {memory: flash}}]}\n", {0},
     "memory.tensors[0].attributes.memory", "unknown memory 'flash' (platform 'apollo510_evb' has dtcm, itcm, mram, psram and sram)"},
    {"platform: {name: apollo4p_evb, memories: {dtcm: -5}}\n", {0}, "platform.memories.dtcm",
     "must be a non-negative size in bytes, not -5"},
    {"platform: {name: board}\n", {0}, "platform.name", "unknown platform 'board'"},
    {"platform: {name: board, memories: {mram: 1024}}\n", {0}, "platform.memories",
     "has no writable memory (every memory it has is read-only)"},
    {"platform: {name: apollo4p_evb, preferred_memory_order: [dtcm, dtcm]}\n", {0},
     "platform.preferred_memory_order[1]", "names dtcm twice"},
    /* model, module, verbose, booleans */
    {"model: {path: m.tflite, subgraph: one}\n", {0}, "model.subgraph",
     "must be a non-negative integer, not 'one'"},
    {"model: {path: m.tflite, subgraph: -1}\n", {0}, "model.subgraph", "not -1"},
    {"model: {subgraph: 0}\n", {0}, "model.path", "missing 'model.path'"},
    {"module: {prefix: my-model}\n", {0}, "module.prefix", "must be a C identifier"},
    {"module: {prefix: int}\n", {0}, "module.prefix", "must not be the C keyword 'int'"},
    {"module: {name: ../x}\n", {0}, "module.name", "must be a plain name"},
    {"memory: {allocate_arenas: maybe}\n", {0}, "memory.allocate_arenas", "must be true or false, not 'maybe'"},
    {"", {"--memory.allocate-arenas=maybe"}, "memory.allocate_arenas", "takes true or false, not 'maybe'"},
    {"verbose: 9\n", {0}, "verbose", "must be an integer from 0 to 3, not 9"},
    {"memory: fast\n", {0}, "memory", "'memory' must be a mapping, not 'fast'"},
    {"memory:\n  planner: greedy\n  planner: hill_climb\n", {0}, "memory.planner",
     "duplicate key 'memory.planner' (first given at line 3)"},
    {"memory: {planner: [greedy\n", {0}, NULL, "malformed YAML"},
    {"memory: {io: dma}\n", {0}, "memory.io", "'memory.io' must be arena or caller, not 'dma'"},
    {"memory: {op_order: min_peek}\n", {0}, "memory.op_order",
     "unknown operator order 'min_peek' \xE2\x80\x94 did you mean 'min_peak'?"},
    {"memory: {op_order: fastest}\n", {0}, "memory.op_order",
     "'memory.op_order' must be model or min_peak, not 'fastest'"},
    {"", {"--memory.op_order=minpeak"}, "memory.op_order", "did you mean 'min_peak'?"},
    {"memory: {in_place: fast}\n", {0}, "memory.in_place",
     "'memory.in_place' must be false, true, speed or size, not 'fast'"},
    {"memory: {in_place: [speed]}\n", {0}, "memory.in_place",
     "'memory.in_place' must be false, true, speed or size, not a list"},
    {"", {"--memory.in_place=spede"}, "memory.in_place", "did you mean 'speed'?"},
};

static void each_bad_config_names_its_key_and_teaches_the_fix(void **state) {
  (void)state;
  size_t n = sizeof bad / sizeof bad[0];
  assert_true(n >= 30);
  const char *dir = tu_tmpdir();
  assert_non_null(dir);
  const char *bin = memplan_binary();
  if (!bin) fprintf(stderr, "NOTICE: no memplan binary: bad configs checked through the library only\n");
  unsigned failures = 0;
  for (size_t i = 0; i < n; i++) {
    const bad_case *b = &bad[i];
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "%s%s", strstr(b->yaml, "model:") ? "" : "model: {path: m.tflite}\n",
             b->yaml);
    rec r;
    mp_config *c = NULL;
    const char *args[5] = {b->args[0], b->args[1], b->args[2], b->args[3], NULL};
    mp_status st = load(yaml, args, &r, &c);
    int at = rec_find(&r, b->key ? b->key : "", b->text);
    if (st != MP_ERR_CONFIG || c || at < 0) {
      print_message("case %zu: status %d, want key '%s' and '%s'; got:\n", i, st,
                    b->key ? b->key : "", b->text);
      rec_dump(&r);
      failures++;
      mp_config_free(&c);
      continue;
    }
    if (!bin) continue;
    /* the same through memplan convert: exit 2, message on stderr, no output */
    char cfg[512], quoted[4][512] = {{0}};
    snprintf(cfg, sizeof cfg, "%s/case.yaml", dir);
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    fputs(yaml, f); /* module.path defaults to out/ beside the config */
    fclose(f);
    for (int k = 0; k < 4 && b->args[k]; k++) {
      size_t q = 0;
      quoted[k][q++] = '\'';
      for (const char *p = b->args[k]; *p && q < sizeof quoted[k] - 6; p++) {
        if (*p == '\'') {
          memcpy(quoted[k] + q, "'\\''", 4);
          q += 4;
        } else {
          quoted[k][q++] = *p;
        }
      }
      quoted[k][q++] = '\'';
      quoted[k][q] = '\0';
    }
    int rc = tu_system("cd '%s' && '%s' convert --path case.yaml %s %s %s %s >stdout.txt "
                       "2>stderr.txt",
                       dir, bin, quoted[0], quoted[1], quoted[2], quoted[3]);
    char errp[600], outp[600];
    snprintf(errp, sizeof errp, "%s/stderr.txt", dir);
    snprintf(outp, sizeof outp, "%s/out", dir);
    char *err = tu_read_text(errp, NULL);
    struct stat sb;
    bool out_exists = stat(outp, &sb) == 0;
    if (rc != 2 || !err || !strstr(err, b->text) || out_exists) {
      print_message("case %zu via memplan: exit %d, out %s, stderr:\n%s\n", i, rc,
                    out_exists ? "WRITTEN" : "untouched", err ? err : "(none)");
      failures++;
    }
    free(err);
  }
  tu_rmtree(dir);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_minimal_config_gets_the_documented_defaults),
      cmocka_unit_test(the_operator_order_is_model_or_min_peak_from_the_file_or_the_command_line),
      cmocka_unit_test(a_prefix_made_from_a_name_is_a_c_identifier),
      cmocka_unit_test(relative_paths_in_a_file_resolve_against_its_folder),
      cmocka_unit_test(absolute_paths_are_kept),
      cmocka_unit_test(paths_given_on_the_command_line_resolve_against_the_cwd),
      cmocka_unit_test(the_whole_config_can_be_given_on_the_command_line),
      cmocka_unit_test(a_positional_tflite_is_the_model_and_another_the_config),
      cmocka_unit_test(the_command_line_overrides_the_file),
      cmocka_unit_test(module_target_names_a_core_and_unknown_ones_are_refused),
      cmocka_unit_test(module_tables_memory_names_a_memory_of_the_platform),
      cmocka_unit_test(models_lists_several_models_with_their_own_prefixes),
      cmocka_unit_test(the_last_of_two_overrides_wins),
      cmocka_unit_test(kebab_and_snake_case_name_the_same_key),
      cmocka_unit_test(in_place_is_a_boolean_speed_or_size),
      cmocka_unit_test(booleans_take_no_prefix_and_an_optional_value),
      cmocka_unit_test(planner_options_come_as_a_json_object_or_one_by_one),
      cmocka_unit_test(planner_options_are_checked_against_the_planner_table),
      cmocka_unit_test(greedy_and_greedy_by_size_accept_no_options),
      cmocka_unit_test(hill_climb_options_must_be_non_negative_integers),
      cmocka_unit_test(constraints_come_as_a_json_list_with_max_size_defaulting_to_the_platform),
      cmocka_unit_test(sizes_take_binary_suffixes),
      cmocka_unit_test(rulesets_come_as_a_json_list_and_keep_where_they_came_from),
      cmocka_unit_test(rulesets_in_a_file_record_line_and_column),
      cmocka_unit_test(inline_fields_override_a_builtin),
      cmocka_unit_test(an_inline_platform_without_a_builtin_name_has_only_its_memories),
      cmocka_unit_test(memories_without_a_platform_name_override_the_default_platform),
      cmocka_unit_test(memories_may_have_any_c_identifier_name_and_several_may_be_read_only),
      cmocka_unit_test(a_platform_may_live_in_its_own_file_and_the_config_overrides_it),
      cmocka_unit_test(a_memory_name_close_to_an_existing_one_warns),
      cmocka_unit_test(null_removes_a_memory_of_a_builtin),
      cmocka_unit_test(platform_fields_can_be_overridden_one_by_one_on_the_command_line),
      cmocka_unit_test(no_platform_means_the_default_builtin),
      cmocka_unit_test(auto_hydrate_constants_warns_once_and_changes_nothing),
      cmocka_unit_test(malformed_yaml_reports_line_and_column),
      cmocka_unit_test(a_tab_gets_a_hint),
      cmocka_unit_test(malformed_json_on_the_command_line_reports_the_column),
      cmocka_unit_test(every_error_is_reported_in_the_order_of_the_file),
      cmocka_unit_test(a_missing_file_is_an_io_error),
      cmocka_unit_test(after_fifty_errors_the_rest_are_counted),
      cmocka_unit_test(a_huge_list_is_refused),
      cmocka_unit_test(a_null_ruleset_type_means_every_type),
      cmocka_unit_test(help_lists_every_key_with_type_default_and_meaning),
      cmocka_unit_test(suggestions_are_offered_only_when_close),
      cmocka_unit_test(edit_distance_folds_counts_swaps_and_caps),
      cmocka_unit_test(each_bad_config_names_its_key_and_teaches_the_fix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
