/*
 * testutil.c — shared test helpers (see testutil.h).
 */
#include "testutil.h"
#include "tflite_writer.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* b: the caller's static buffer of 4096 bytes */
static const char *shared_dir(const char *env, const char *sub, bool *warned, char *b) {
  const char *e = getenv(env);
  if (e && *e) {
    snprintf(b, 4096, "%s", e);
  } else {
    /* tests run from the repository root */
    snprintf(b, 4096, "../shared/%s", sub);
  }
  if (is_dir(b)) return b;
  if (!*warned) {
    fprintf(stderr, "NOTICE: %s not found: skipping the tests that need the shared %s\n", b, sub);
    *warned = true;
  }
  return NULL;
}

const char *tu_models_dir(void) {
  static bool warned;
  static char buf[4096];
  return shared_dir("MEMPLAN_MODELS", "models", &warned, buf);
}

const char *tu_golden_dir(void) {
  static bool warned;
  static char buf[4096];
  return shared_dir("MEMPLAN_GOLDEN", "golden", &warned, buf);
}

const char *tu_conformance_dir(void) {
  static bool warned;
  static char buf[4096];
  return shared_dir("MEMPLAN_CONFORMANCE", "conformance", &warned, buf);
}

const char *tu_model_path(const char *name) {
  static char buf[4096];
  const char *d = tu_models_dir();
  if (!d) return NULL;
  snprintf(buf, sizeof buf, "%s/%s.tflite", d, name);
  return buf;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *const *tu_model_names(void) {
  static char names[64][256];
  static const char *list[65];
  static bool done;
  const char *d = tu_models_dir();
  if (!d) return NULL;
  if (done) return list;
  DIR *dir = opendir(d);
  size_t n = 0;
  struct dirent *e;
  while (dir && (e = readdir(dir)) && n < 64) {
    size_t l = strlen(e->d_name);
    if (l > 7 && !strcmp(e->d_name + l - 7, ".tflite") && l - 7 < sizeof names[0]) {
      memcpy(names[n], e->d_name, l - 7);
      names[n][l - 7] = '\0';
      list[n] = names[n];
      n++;
    }
  }
  if (dir) closedir(dir);
  qsort(list, n, sizeof list[0], cmp_str);
  list[n] = NULL;
  done = true;
  return list;
}

static void record(void *user, const mp_diag *d) {
  tu_diags *r = user;
  const char *sev = d->severity == MP_SEV_ERROR ? "error" : d->severity == MP_SEV_WARNING ? "warning" : "note";
  if (d->severity == MP_SEV_ERROR) r->n_errors++;
  if (d->severity == MP_SEV_WARNING) r->n_warnings++;
  r->last_byte_offset = d->byte_offset;
  r->last_line = d->line;
  r->last_column = d->column;
  int n = snprintf(r->text + r->len, sizeof r->text - r->len, "%s: %s%s%s\n", sev,
                   d->key_path ? d->key_path : "", d->key_path ? ": " : "", d->message);
  if (n > 0) r->len = r->len + (size_t)n < sizeof r->text ? r->len + (size_t)n : sizeof r->text - 1;
  if (getenv("TU_VERBOSE")) fprintf(stderr, "  [diag] %s: %s\n", sev, d->message);
}

void tu_diags_init(tu_diags *d) {
  memset(d, 0, sizeof *d);
  d->sink.fn = record;
  d->sink.user = d;
  d->last_byte_offset = -1;
}

bool tu_diags_has(const tu_diags *d, const char *needle) { return strstr(d->text, needle) != NULL; }

const char *tu_tmpdir(void) {
  static char buf[256];
  const char *base = getenv("TMPDIR");
  snprintf(buf, sizeof buf, "%s/memplan-test-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(buf)) return NULL;
  return buf;
}

void tu_rmtree(const char *path) {
  if (!path || !*path || !strcmp(path, "/")) return;
  tu_system("rm -rf '%s'", path);
}

char *tu_read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)(n < 0 ? 0 : n) + 1);
  size_t got = b && n > 0 ? fread(b, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!b) return NULL;
  b[got] = '\0';
  if (len) *len = got;
  return b;
}

int tu_system(const char *fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int rc = system(cmd);
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + (WIFSIGNALED(rc) ? WTERMSIG(rc) : 0);
}

mp_model *tu_written(mp_tfw *w, const char *name, tu_diags *d) {
  uint8_t *bytes = NULL;
  size_t size = 0;
  mp_status st = mp_tfw_finish(w, &bytes, &size);
  mp_tfw_free(&w);
  if (st != MP_OK) fail_msg("the model writer failed on %s (status %d)", name, (int)st);
  tu_diags own;
  if (!d) {
    tu_diags_init(&own);
    d = &own;
  }
  mp_model *m = NULL;
  st = mp_model_parse(bytes, size, name, &d->sink, &m);
  free(bytes);
  if (st != MP_OK) fail_msg("%s does not parse: %s", name, d->text);
  return m;
}

mp_memory_args tu_args(const char *planner, bool in_place) {
  static char name[32];
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  snprintf(name, sizeof name, "%s", planner);
  a.planner = name;
  a.allocate_arenas = true;
  a.in_place = in_place;
  return a;
}

/* ---- the expected refusals ------------------------------------------------ */

#define MAX_REFUSALS 64

static struct {
  char name[128];
  tu_stage stage;
  char message[512];
} refusals[MAX_REFUSALS];
static size_t n_refusals;

/* Read the model lines of the list once; a malformed line ends the
 * program (the list is part of the tests). */
static void load_refusals(void) {
  static char loaded[4096];
  const char *path = getenv("MEMPLAN_EXPECTED_REFUSALS");
  if (!path || !*path) path = "tests/expected_refusals.txt";
  if (!strcmp(loaded, path)) return; /* read already */
  snprintf(loaded, sizeof loaded, "%s", path);
  n_refusals = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot read the expected refusals\n", path);
    exit(2);
  }
  char line[1024];
  unsigned lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
      line[--len] = '\0';
    char kind[16], name[128], stage[16];
    int used = 0;
    if (!len || line[0] == '#' || sscanf(line, "%15s", kind) != 1 || strcmp(kind, "model")) continue;
    if (sscanf(line, "%15s %127s %15s %n", kind, name, stage, &used) != 3 || !line[used] ||
        (strcmp(stage, "plan") && strcmp(stage, "convert")) || n_refusals == MAX_REFUSALS) {
      fprintf(stderr, "%s:%u: expected 'model NAME plan|convert MESSAGE'\n", path, lineno);
      exit(2);
    }
    snprintf(refusals[n_refusals].name, sizeof refusals[0].name, "%s", name);
    refusals[n_refusals].stage = strcmp(stage, "plan") ? TU_STAGE_CONVERT : TU_STAGE_PLAN;
    snprintf(refusals[n_refusals].message, sizeof refusals[0].message, "%s", line + used);
    n_refusals++;
  }
  fclose(f);
}

tu_stage tu_refusal_of(const char *name, const char **message) {
  load_refusals();
  for (size_t i = 0; i < n_refusals; i++)
    if (!strcmp(refusals[i].name, name)) {
      if (message) *message = refusals[i].message;
      return refusals[i].stage;
    }
  if (message) *message = NULL;
  return TU_STAGE_NONE;
}

/* The first error a recorder holds, without "error: ", or "". */
static const char *first_error(const tu_diags *d, char *buf, size_t n) {
  const char *e = strstr(d->text, "error: ");
  while (e && e != d->text && e[-1] != '\n') e = strstr(e + 1, "error: ");
  buf[0] = '\0';
  if (!e) return buf;
  e += strlen("error: ");
  size_t len = strcspn(e, "\n");
  snprintf(buf, n, "%.*s", (int)len, e);
  return buf;
}

int tu_refusal_check(const char *name, tu_stage stage, char *why, size_t n) {
  const char *message = NULL;
  tu_stage listed = tu_refusal_of(name, &message);
  if (listed == TU_STAGE_NONE || listed > stage) return 0;
  const char *path = tu_model_path(name);
  const char *what = listed == TU_STAGE_PLAN ? "plan" : "convert";
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = NULL;
  mp_graph *g = NULL;
  char got[1024];
  int verdict = -1;
  if (!path || mp_model_load(path, &d.sink, &m) != MP_OK) {
    snprintf(why, n, "%s is listed as refused at %s, but it does not even load: %s", name, what,
             first_error(&d, got, sizeof got));
    return -1;
  }
  mp_status st = mp_graph_build(m, 0, NULL, &d.sink, &g);
  if (st == MP_OK && listed == TU_STAGE_CONVERT) {
    tu_diags_init(&d);
    st = mp_kernels_prepare(g, false, &d.sink); /* as convert checks the operators */
  }
  first_error(&d, got, sizeof got);
  if (st == MP_OK)
    snprintf(why, n, "%s is listed as refused at %s (\"%s\"), but memplan gets past %s now: "
                     "delete its line from the expected refusals", name, what, message, what);
  else if (listed == TU_STAGE_CONVERT && !g)
    snprintf(why, n, "%s is listed as refused at convert, but its graph cannot even be built: %s",
             name, got);
  else if (strncmp(got, message, strlen(message)) != 0)
    snprintf(why, n, "%s is listed as refused at %s with \"%s\", but memplan says \"%s\"", name,
             what, message, got);
  else {
    snprintf(why, n, "%s: %s", what, got);
    verdict = 1;
  }
  mp_graph_free(&g);
  mp_model_free(&m);
  return verdict;
}
