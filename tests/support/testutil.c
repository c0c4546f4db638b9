/*
 * testutil.c — shared test helpers (see testutil.h).
 */
#include "testutil.h"

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
