/*
 * cmd_profile.c — `memplan profile --path CONFIG.yaml [--board BOARD]
 * [--input FILE]... [--json] [--keep DIR] [--KEY VALUE ...]`.
 *
 * Converts the config's model as `convert` does (into a temporary folder,
 * for the board's core unless --module.target says otherwise), builds the
 * module with a bare-metal harness (profile_harness.c) for an emulated
 * board with the cross toolchain, runs it once on QEMU with the model's
 * inputs (pseudo-random, or the files given) and prints, per operator, the
 * kernel it runs, its instructions and its share of the run; then the
 * total, the image's code, read-only and RAM sizes and the stack's
 * high-water mark.  --json prints the same as one JSON object.  When the
 * module runs a patched stage (memory.patch), the same profile runs again
 * with memory.patch off and the stage's and the run's instructions are
 * printed against the unpatched module's: the halos' cost.  When it runs
 * depthwise convolutions channel by channel (memory.in_place size), the
 * same profile runs again with memory.in_place speed and the run's
 * instructions and the scratch bytes are printed against speed's: the
 * price of the smaller arena.
 *
 * The figures are instructions, not cycles: QEMU's -icount counts one per
 * instruction whatever it costs on silicon.  On hardware the module's
 * per-operator callback gives the same table with a cycle counter
 * (docs/FIRMWARE.md).
 *
 * Not here: several models (`models:`), more than one run, or boards other
 * than QEMU's mps3-an547, mps2-an386 and mps2-an500.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "cli.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_INPUTS 16

/* snprintf into a path buffer; false when it does not fit. */
static bool fmt_path(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fmt_path(char *out, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(out, n, fmt, ap);
  va_end(ap);
  return k >= 0 && (size_t)k < n;
}

/* Is `tool` on the PATH? */
static bool on_path(const char *tool) {
  const char *path = getenv("PATH");
  if (!path) return false;
  char buf[PATH_MAX];
  for (const char *p = path; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, tool) < (int)sizeof buf &&
        access(buf, X_OK) == 0)
      return true;
    p += n + (e ? 1 : 0);
  }
  return false;
}

/* Run argv with stdout and stderr to `log` (appended); its exit status, or
 * -1 when it could not start or was killed. */
static int run(char *const argv[], const char *log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run argv with stdout to `out` and stderr to `err` (both truncated). */
static int run_split(char *const argv[], const char *out, const char *err) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0) _exit(127);
    dup2(fo, 1);
    dup2(fe, 2);
    close(fo);
    close(fe);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* This program again, as a child: the same profile with --json, without
 * --keep and without the options named in `drop` (NULL-terminated; each
 * in both forms, "--X V" and "--X=V"), then `key value` (the later
 * override wins).  The child's JSON (dir/name.json, its messages in
 * dir/name.log) loaded, or NULL when it failed. */
static json_t *profile_again(int argc, char **argv, const char *dir, const char *const *drop,
                             char *key, char *value, const char *name) {
  char **a = calloc((size_t)argc + 8, sizeof *a);
  if (!a) return NULL;
  int n = 0;
  a[n++] = "/proc/self/exe";
  a[n++] = "profile";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) continue;
    if (!strcmp(argv[i], "--keep")) {
      i++;
      continue;
    }
    bool dropped = false;
    for (const char *const *d = drop; d && *d && !dropped; d++) {
      size_t len = strlen(*d);
      if (!strcmp(argv[i], *d) && i + 1 < argc) {
        i++;
        dropped = true;
      } else if (!strncmp(argv[i], *d, len) && argv[i][len] == '=') {
        dropped = true;
      }
    }
    if (!dropped) a[n++] = argv[i];
  }
  a[n++] = key;
  a[n++] = value;
  a[n++] = "--json";
  a[n] = NULL;
  char out[2 * PATH_MAX], err[2 * PATH_MAX];
  (void)fmt_path(out, sizeof out, "%s/%s.json", dir, name);
  (void)fmt_path(err, sizeof err, "%s/%s.log", dir, name);
  int rc = run_split(a, out, err);
  free(a);
  json_error_t je;
  return rc == 0 ? json_load_file(out, 0, &je) : NULL;
}

/* The patched stages' cost: the same profile with memory.patch off, against
 * the patched run.  The operators keep their indices (a stage only makes
 * its later operators no-ops), so each stage's operators are summed in both
 * runs.  A chain of stages (planner.patch and its next_stages) has a line
 * each. */
#define MAX_STAGES 16

typedef struct halo_stage {
  long long first, last, rows, cols, head;
  double extra_macs_percent;
  unsigned long long stage, base_stage;
} halo_stage;

typedef struct halo_cost {
  bool have;
  uint32_t n;
  halo_stage s[MAX_STAGES];
  unsigned long long base_run;
} halo_cost;

/* The stage operator i belongs to, or NULL. */
static const halo_stage *stage_of(const halo_cost *h, long long i) {
  for (uint32_t k = 0; h->have && k < h->n; k++)
    if (i >= h->s[k].first && i <= h->s[k].last) return &h->s[k];
  return NULL;
}

static void stage_read(halo_stage *s, const json_t *j) {
  s->first = json_integer_value(json_object_get(j, "first_op"));
  s->last = json_integer_value(json_object_get(j, "last_op"));
  s->rows = json_integer_value(json_object_get(j, "rows"));
  s->head = json_integer_value(json_object_get(j, "run_by_op"));
  s->cols = json_integer_value(json_object_get(j, "cols"));
  s->extra_macs_percent = json_number_value(json_object_get(j, "extra_macs_percent"));
}

static bool profile_unpatched(int argc, char **argv, const char *dir, const json_t *patch,
                              halo_cost *h) {
  static const char *const drop[] = {"--memory.patch", "--memory-patch", NULL};
  json_t *j = profile_again(argc, argv, dir, drop, "--memory.patch", "off", "unpatched");
  if (!j) return false;
  const json_t *next = json_object_get(patch, "next_stages");
  h->n = 0;
  stage_read(&h->s[h->n++], patch);
  for (size_t k = 0; k < json_array_size(next) && h->n < MAX_STAGES; k++)
    stage_read(&h->s[h->n++], json_array_get(next, k));
  h->base_run = (unsigned long long)json_integer_value(json_object_get(j, "instructions_run"));
  json_t *ops = json_object_get(j, "ops");
  for (uint32_t k = 0; k < h->n; k++) {
    halo_stage *s = &h->s[k];
    s->base_stage = 0;
    for (size_t i = 0; i < json_array_size(ops); i++)
      if ((long long)i >= s->first && (long long)i <= s->last)
        s->base_stage += (unsigned long long)json_integer_value(
            json_object_get(json_array_get(ops, i), "instructions"));
  }
  json_decref(j);
  h->have = h->base_run > 0;
  return h->have;
}

/* One stage's figures in the profile's JSON. */
static json_t *stage_json(const halo_stage *s) {
  json_t *jp = json_object();
  json_object_set_new(jp, "first_op", json_integer(s->first));
  json_object_set_new(jp, "last_op", json_integer(s->last));
  json_object_set_new(jp, "rows", json_integer(s->rows));
  json_object_set_new(jp, "cols", json_integer(s->cols));
  json_object_set_new(jp, "stage_instructions", json_integer((json_int_t)s->stage));
  json_object_set_new(jp, "unpatched_stage_instructions", json_integer((json_int_t)s->base_stage));
  json_object_set_new(jp, "extra_macs_percent", json_real(s->extra_macs_percent));
  return jp;
}

/* memory.in_place size's price: when the module runs depthwise
 * convolutions channel by channel (the residency report's
 * planner.channel_serial), the same profile with memory.in_place speed
 * (the later override wins), against this run, with the scratch bytes the
 * report gives for both. */
typedef struct serial_cost {
  bool have;
  const json_t *ops;        /* the channel-serial operators (the report's) */
  unsigned long long scratch, speed_scratch, speed_run;
} serial_cost;

static bool profile_speed(int argc, char **argv, const char *dir, const json_t *cs,
                          serial_cost *s) {
  json_t *j = profile_again(argc, argv, dir, NULL, "--memory.in_place", "speed", "speed");
  if (!j) return false;
  s->ops = json_object_get(cs, "ops");
  s->scratch = (unsigned long long)json_integer_value(json_object_get(cs, "scratch"));
  s->speed_scratch = (unsigned long long)json_integer_value(json_object_get(cs, "speed_scratch"));
  s->speed_run = (unsigned long long)json_integer_value(json_object_get(j, "instructions_run"));
  json_decref(j);
  s->have = s->speed_run > 0;
  return s->have;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static bool write_text(const char *dir, const char *name, const char *text) {
  char path[2 * PATH_MAX];
  (void)fmt_path(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

/* The module's prefix: NAME of the one include/NAME_model.h. */
static bool find_prefix(const char *mod, char *prefix, size_t n) {
  char cmd[2 * PATH_MAX];
  (void)fmt_path(cmd, sizeof cmd, "%s/include", mod);
  DIR *d = opendir(cmd);
  if (!d) return false;
  bool found = false;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l > 8 && !strcmp(e->d_name + l - 8, "_model.h") && l - 8 < n) {
      snprintf(prefix, n, "%.*s", (int)(l - 8), e->d_name);
      found = true;
    }
  }
  closedir(d);
  return found;
}

/* A path the harness may quote in C: absolute, printable, no quote or
 * backslash. */
static bool plain_path(const char *p) {
  if (p[0] != '/') return false;
  for (; *p; p++)
    if (!isprint((unsigned char)*p) || *p == '"' || *p == '\\' || *p == '?') return false;
  return true;
}

typedef struct prof {
  unsigned long long calib, init, run, stack, stack_reserved;
  unsigned long long op[4096];
  uint32_t n_ops;
  int run_status;
  bool have_run;
  long long bad_input;              /* the input whose file had the wrong size, or -1 */
  unsigned long long bad_input_size; /* the bytes it takes */
} prof;

static bool read_output(const char *path, prof *r) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  char line[256];
  memset(r, 0, sizeof *r);
  r->bad_input = -1;
  while (fgets(line, sizeof line, f)) {
    char what[16];
    unsigned long long a, b;
    if (sscanf(line, "PROF %15s %llu %llu", what, &a, &b) != 3) continue;
    if (!strcmp(what, "CALIB")) r->calib = a;
    else if (!strcmp(what, "INIT")) r->init = a;
    else if (!strcmp(what, "RUN")) r->run = a, r->run_status = (int)b, r->have_run = true;
    else if (!strcmp(what, "STACK")) r->stack = a, r->stack_reserved = b;
    else if (!strcmp(what, "BADINPUT")) r->bad_input = (long long)a, r->bad_input_size = b;
    else if (!strcmp(what, "OP") && a < 4096) {
      r->op[a] = b;
      if (a + 1 > r->n_ops) r->n_ops = (uint32_t)a + 1;
    }
  }
  fclose(f);
  return r->calib > 0 && r->have_run;
}

/* Sizes of the image by section (arm-none-eabi-size -A). */
typedef struct sizes {
  unsigned long long text, rodata, data, bss;
} sizes;

static bool read_sizes(const char *path, sizes *s) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  char name[128];
  unsigned long long size, addr;
  char line[256];
  memset(s, 0, sizeof *s);
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "%127s %llu %llu", name, &size, &addr) != 3) continue;
    if (!strcmp(name, ".text")) s->text += size;
    else if (!strncmp(name, ".rodata", 7) || !strncmp(name, ".ARM", 4) ||
             !strcmp(name, ".init_array") || !strcmp(name, ".fini_array"))
      s->rodata += size;
    else if (!strcmp(name, ".data")) s->data += size;
    else if (!strcmp(name, ".bss")) s->bss += size;
  }
  fclose(f);
  return s->text > 0;
}

static unsigned long long instr(const prof *r, unsigned long long ticks) {
  return (unsigned long long)((long double)ticks * 2000000.0L / (long double)r->calib + 0.5L);
}

static void put_thousands(char *buf, size_t n, unsigned long long v) {
  char raw[32];
  snprintf(raw, sizeof raw, "%llu", v);
  size_t l = strlen(raw), k = 0;
  for (size_t i = 0; i < l && k + 2 < n; i++) {
    if (i && (l - i) % 3 == 0) buf[k++] = ',';
    buf[k++] = raw[i];
  }
  buf[k] = '\0';
}

static int usage_error(const char *fmt, const char *arg) {
  return cli_usage_error("profile", fmt, arg);
}

int cmd_profile(cli *c, int argc, char **argv) {
  const char *board_name = "mps3-an547", *keep = NULL;
  const char *inputs[MAX_INPUTS];
  size_t n_inputs = 0;
  bool json = false, has_target = false;
  char **rest = calloc((size_t)argc + 16, sizeof *rest);
  if (!rest) return CLI_EXIT_BUG;
  int nr = 0;
  rest[nr++] = "convert";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: memplan profile --path CONFIG.yaml [--board BOARD] [--input FILE]...\n"
             "                       [--json] [--keep DIR] [--KEY VALUE ...]\n\n"
             "Builds the config's module for an emulated board with arm-none-eabi-gcc,\n"
             "runs it once on QEMU (-icount) and prints each operator's kernel,\n"
             "instructions and share, the total, the code, read-only and RAM sizes and\n"
             "the stack's high-water mark.  Instructions, not cycles.  A module with a\n"
             "patched stage (memory.patch) is profiled again with memory.patch off, and\n"
             "the stage's and the run's instructions are compared; one whose depthwise\n"
             "convolutions run channel by channel (memory.in_place size) is profiled\n"
             "again with memory.in_place speed, and the scratch it saves is set against\n"
             "the instructions it costs.\n\n"
             "  --board B    %s (default mps3-an547); the module is\n"
             "               converted for the board's core unless --module.target is given\n"
             "  --input F    the bytes of graph input i (once per input, in order); default\n"
             "               pseudo-random bytes\n"
             "  --json       the same as one JSON object\n"
             "  --keep DIR   keep the module, the harness and the image in DIR\n"
             "The other options are convert's (memplan help convert).\n",
             cli_profile_board_names());
      free(rest);
      return CLI_EXIT_OK;
    }
    if (!strcmp(a, "--json")) {
      json = true;
      continue;
    }
    if (!strcmp(a, "--board") || !strcmp(a, "--input") || !strcmp(a, "--keep")) {
      if (i + 1 >= argc) {
        free(rest);
        return usage_error("%s needs a value", a);
      }
      const char *v = argv[++i];
      if (!strcmp(a, "--board")) board_name = v;
      else if (!strcmp(a, "--keep")) keep = v;
      else if (n_inputs == MAX_INPUTS) {
        free(rest);
        return usage_error("more than 16 --input files%s", "");
      } else inputs[n_inputs++] = v;
      continue;
    }
    if (!strcmp(a, "--module.target") || !strcmp(a, "--module-target")) has_target = true;
    if (!strcmp(a, "--module.path") || !strcmp(a, "--module-path")) {
      free(rest);
      return usage_error("%s: profile converts into a folder of its own (--keep DIR keeps it)", a);
    }
    rest[nr++] = argv[i];
  }
  const cli_profile_board *board = cli_profile_board_find(board_name);
  if (!board) {
    fprintf(stderr, "memplan profile: unknown board '%s' (boards: %s)\n", board_name,
            cli_profile_board_names());
    free(rest);
    return CLI_EXIT_USAGE;
  }
  /* the tools, before anything is converted */
  static const struct {
    const char *tool, *package;
  } tools[] = {{"arm-none-eabi-gcc", "gcc-arm-none-eabi and libnewlib-arm-none-eabi"},
               {"arm-none-eabi-size", "binutils-arm-none-eabi"},
               {"qemu-system-arm", "qemu-system-arm"}};
  for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++)
    if (!on_path(tools[t].tool)) {
      fprintf(stderr,
              "memplan profile: %s not found: install the Debian package%s %s "
              "(apt-get install %s)\n",
              tools[t].tool, strchr(tools[t].package, ' ') ? "s" : "", tools[t].package,
              tools[t].package);
      free(rest);
      return CLI_EXIT_USAGE;
    }
  char abs_inputs[MAX_INPUTS][PATH_MAX];
  const char *input_ptrs[MAX_INPUTS];
  for (size_t i = 0; i < n_inputs; i++) {
    errno = 0;
    if (!realpath(inputs[i], abs_inputs[i]) || !plain_path(abs_inputs[i])) {
      fprintf(stderr, "memplan profile: --input %s: %s\n", inputs[i],
              errno ? strerror(errno) : "a path with quotes, backslashes or non-ASCII bytes");
      free(rest);
      return CLI_EXIT_USAGE;
    }
    input_ptrs[i] = abs_inputs[i];
  }

  char dir[PATH_MAX];
  if (keep) {
    if (mkdir(keep, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "memplan profile: --keep %s: %s\n", keep, strerror(errno));
      free(rest);
      return CLI_EXIT_USAGE;
    }
    if (!realpath(keep, dir)) {
      free(rest);
      return CLI_EXIT_USAGE;
    }
  } else {
    const char *tmp = getenv("TMPDIR");
    (void)fmt_path(dir, sizeof dir, "%s/memplan-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "memplan profile: cannot create a temporary folder: %s\n", strerror(errno));
      free(rest);
      return CLI_EXIT_USAGE;
    }
  }
  char mod[2 * PATH_MAX], log[2 * PATH_MAX], out[2 * PATH_MAX], elf[2 * PATH_MAX];
  (void)fmt_path(mod, sizeof mod, "%s/module", dir);
  (void)fmt_path(log, sizeof log, "%s/build.log", dir);
  (void)fmt_path(out, sizeof out, "%s/run.log", dir);
  (void)fmt_path(elf, sizeof elf, "%s/profile.elf", dir);
  rest[nr++] = "--module.path";
  rest[nr++] = mod;
  char target[32];
  snprintf(target, sizeof target, "%s", board->target);
  if (!has_target) {
    rest[nr++] = "--module.target";
    rest[nr++] = target;
  }
  rest[nr++] = "--memory.dump-residency-json";
  rest[nr++] = "--verbose";
  rest[nr++] = "0";
  rest[nr] = NULL;

  int rc = CLI_EXIT_OK;
  /* convert, its summary kept off standard output */
  fflush(stdout);
  int saved = dup(1), null = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null >= 0) dup2(null, 1);
  if (null >= 0) close(null);
  rc = cmd_convert(c, nr, rest);
  fflush(stdout);
  if (saved >= 0) {
    dup2(saved, 1);
    close(saved);
  }
  free(rest);
  char p[128], P[128];
  json_t *res = NULL;
  if (rc == CLI_EXIT_OK && !find_prefix(mod, p, sizeof p)) {
    fprintf(stderr, "memplan profile: convert wrote no module header in %s\n", mod);
    rc = CLI_EXIT_BUG;
  }
  if (rc == CLI_EXIT_OK) {
    for (size_t i = 0; i <= strlen(p); i++) P[i] = (char)toupper((unsigned char)p[i]);
    char path[2 * PATH_MAX];
    (void)fmt_path(path, sizeof path, "%s/%s_residency.json", mod, p);
    json_error_t err;
    res = json_load_file(path, 0, &err);
    if (!res) {
      fprintf(stderr, "memplan profile: %s: %s\n", path, err.text);
      rc = CLI_EXIT_BUG;
    }
  }
  size_t n_model_inputs = res ? json_array_size(json_object_get(res, "inputs")) : 0;
  if (rc == CLI_EXIT_OK && n_inputs && n_inputs != n_model_inputs) {
    fprintf(stderr, "memplan profile: %zu --input files for a model of %zu inputs\n", n_inputs,
            n_model_inputs);
    rc = CLI_EXIT_USAGE;
  }
  /* the harness, the build, the run */
  if (rc == CLI_EXIT_OK) {
    char main_path[2 * PATH_MAX];
    (void)fmt_path(main_path, sizeof main_path, "%s/prof_main.c", dir);
    FILE *f = fopen(main_path, "w");
    bool ok = f != NULL;
    if (f) {
      cli_profile_main_c(f, p, P, input_ptrs, n_inputs);
      ok = fclose(f) == 0;
    }
    ok = ok && write_text(dir, "prof_startup.c", cli_profile_startup_c()) &&
         write_text(dir, "prof_semihost.h", cli_profile_semihost_h()) &&
         write_text(dir, "prof_semihost.c", cli_profile_semihost_c()) &&
         write_text(dir, "link.ld", board->ld);
    if (!ok) {
      fprintf(stderr, "memplan profile: cannot write the harness in %s\n", dir);
      rc = CLI_EXIT_USAGE;
    }
  }
  if (rc == CLI_EXIT_OK) {
    /* arm-none-eabi-gcc FLAGS... sources... */
    char *args[512];
    int na = 0;
    char flags[256], inc1[2 * PATH_MAX], inc2[2 * PATH_MAX], def[160], ld[2 * PATH_MAX],
        map[2 * PATH_MAX];
    snprintf(flags, sizeof flags, "%s", board->cflags);
    args[na++] = "arm-none-eabi-gcc";
    for (char *t = strtok(flags, " "); t && na < 16; t = strtok(NULL, " ")) args[na++] = t;
    (void)fmt_path(inc1, sizeof inc1, "-I%s/include", mod);
    (void)fmt_path(inc2, sizeof inc2, "-I%s/kernels", mod);
    (void)fmt_path(def, sizeof def, "-D%s_WITH_KERNELS=1", P);
    (void)fmt_path(ld, sizeof ld, "-T%s/link.ld", dir);
    (void)fmt_path(map, sizeof map, "-Wl,-Map=%s/profile.map", dir);
    char *fixed[] = {"-std=c99", "-O2", "-ffunction-sections", "-fdata-sections", inc1, inc2, def,
                     "-nostartfiles", "--specs=nosys.specs", "-Wl,--gc-sections", ld, map, "-o",
                     elf};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) args[na++] = fixed[i];
    char *srcs[400];
    int ns = 0;
    const char *own[] = {"prof_main.c", "prof_startup.c", "prof_semihost.c"};
    char buf[3 * PATH_MAX];
    for (size_t i = 0; i < 3; i++) {
      (void)fmt_path(buf, sizeof buf, "%s/%s", dir, own[i]);
      srcs[ns++] = strdup(buf);
    }
    const char *sub[] = {"src", "kernels"};
    for (size_t k = 0; k < 2; k++) {
      char d[2 * PATH_MAX];
      (void)fmt_path(d, sizeof d, "%s/%s", mod, sub[k]);
      DIR *dd = opendir(d);
      struct dirent *e;
      char *names[400];
      int nn = 0;
      while (dd && (e = readdir(dd)) && nn < 380) {
        size_t l = strlen(e->d_name);
        if (l > 2 && !strcmp(e->d_name + l - 2, ".c")) names[nn++] = strdup(e->d_name);
      }
      if (dd) closedir(dd);
      for (int i = 0; i < nn; i++) {
        (void)fmt_path(buf, sizeof buf, "%s/%s", d, names[i]);
        if (ns < 400) srcs[ns++] = strdup(buf);
        free(names[i]);
      }
    }
    for (int i = 0; i < ns && na < 500; i++) args[na++] = srcs[i];
    args[na++] = "-lm";
    args[na] = NULL;
    int brc = run(args, log);
    for (int i = 0; i < ns; i++) free(srcs[i]);
    if (brc != 0) {
      fprintf(stderr, "memplan profile: the build for %s failed (log: %s)\n", board->name, log);
      keep = keep ? keep : dir;
      rc = CLI_EXIT_BUG;
    }
  }
  sizes sz;
  prof r;
  if (rc == CLI_EXIT_OK) {
    char szlog[2 * PATH_MAX];
    (void)fmt_path(szlog, sizeof szlog, "%s/size.txt", dir);
    char *sargs[] = {"arm-none-eabi-size", "-A", elf, NULL};
    char machine[32];
    snprintf(machine, sizeof machine, "%s", board->name);
    char *qargs[] = {"timeout", "600", "qemu-system-arm", "-M", machine,
                     "-nographic", "-semihosting", "-icount", "shift=0", "-kernel", elf, NULL};
    int qrc = run(qargs, out);
    bool have = read_output(out, &r);
    if (run(sargs, szlog) != 0 || !read_sizes(szlog, &sz)) {
      fprintf(stderr, "memplan profile: arm-none-eabi-size failed on %s\n", elf);
      rc = CLI_EXIT_BUG;
    } else if (r.bad_input >= 0 && r.bad_input < (long long)n_inputs) {
      fprintf(stderr, "memplan profile: --input %s: input %lld takes %llu bytes, not the file's size\n",
              inputs[r.bad_input], r.bad_input, r.bad_input_size);
      rc = CLI_EXIT_USAGE;
    } else if (qrc != 0 || !have || r.run_status != 0) {
      fprintf(stderr, "memplan profile: the run on %s failed (exit %d; log: %s)\n", board->name,
              qrc, out);
      keep = keep ? keep : dir;
      rc = CLI_EXIT_FAIL;
    }
  }
  halo_cost hc;
  memset(&hc, 0, sizeof hc);
  if (rc == CLI_EXIT_OK) {
    /* a patched stage: the same module unpatched, for the halos' cost */
    const json_t *patch = json_object_get(json_object_get(res, "planner"), "patch");
    if (patch && !profile_unpatched(argc, argv, dir, patch, &hc)) {
      fprintf(stderr, "memplan profile: the run with memory.patch off failed (log: %s/unpatched.log)\n",
              dir);
      keep = keep ? keep : dir;
      rc = CLI_EXIT_FAIL;
    }
  }
  serial_cost sc;
  memset(&sc, 0, sizeof sc);
  const char *ip_mode = json_string_value(json_object_get(json_object_get(res, "planner"), "in_place_mode"));
  if (rc == CLI_EXIT_OK) {
    /* depthwise convolutions channel by channel: the same module with
     * memory.in_place speed, for their price in instructions */
    const json_t *cs = json_object_get(json_object_get(res, "planner"), "channel_serial");
    if (cs && !profile_speed(argc, argv, dir, cs, &sc)) {
      fprintf(stderr, "memplan profile: the run with memory.in_place speed failed (log: %s/speed.log)\n",
              dir);
      keep = keep ? keep : dir;
      rc = CLI_EXIT_FAIL;
    }
  }
  if (rc == CLI_EXIT_OK) {
    json_t *ops = json_object_get(res, "ops");
    size_t n_ops = json_array_size(ops);
    unsigned long long total = instr(&r, r.run), sum = 0;
    for (uint32_t i = 0; i < r.n_ops; i++) sum += instr(&r, r.op[i]);
    for (uint32_t k = 0; hc.have && k < hc.n; k++)
      for (uint32_t i = 0; i < r.n_ops; i++)
        if ((long long)i >= hc.s[k].first && (long long)i <= hc.s[k].last)
          hc.s[k].stage += instr(&r, r.op[i]);
    json_t *jm = json_object_get(res, "model");
    const char *model_file = json_string_value(json_object_get(jm, "file"));
    if (json) {
      json_t *o = json_object();
      json_object_set_new(o, "board", json_string(board->name));
      json_object_set_new(o, "core", json_string(board->core));
      json_object_set_new(o, "target", json_string(has_target ? "as configured" : board->target));
      json_object_set_new(o, "model", json_string(model_file ? model_file : ""));
      json_object_set_new(o, "inputs", json_string(n_inputs ? "files" : "pseudo-random"));
      json_object_set_new(o, "unit", json_string("instructions (QEMU -icount), not cycles"));
      json_t *jops = json_array();
      for (size_t i = 0; i < n_ops && i < r.n_ops; i++) {
        json_t *op = json_array_get(ops, i), *jo = json_object();
        json_object_set_new(jo, "index", json_integer((json_int_t)i));
        json_object_set(jo, "operator", json_object_get(op, "operator"));
        json_object_set(jo, "kernel", json_object_get(op, "kernel"));
        json_object_set_new(jo, "instructions", json_integer((json_int_t)instr(&r, r.op[i])));
        json_object_set_new(jo, "share",
                            json_real(total ? (double)instr(&r, r.op[i]) / (double)total : 0));
        json_array_append_new(jops, jo);
      }
      json_object_set_new(o, "ops", jops);
      json_object_set_new(o, "instructions_ops", json_integer((json_int_t)sum));
      json_object_set_new(o, "instructions_run", json_integer((json_int_t)total));
      json_object_set_new(o, "instructions_init", json_integer((json_int_t)instr(&r, r.init)));
      json_t *js = json_object();
      json_object_set_new(js, "text", json_integer((json_int_t)sz.text));
      json_object_set_new(js, "rodata", json_integer((json_int_t)sz.rodata));
      json_object_set_new(js, "data", json_integer((json_int_t)sz.data));
      json_object_set_new(js, "bss", json_integer((json_int_t)sz.bss));
      json_object_set_new(o, "image_bytes", js);
      json_object_set_new(o, "stack_bytes", json_integer((json_int_t)r.stack));
      if (hc.have) {
        /* the first stage's figures at the top (as the residency report's
         * planner.patch), the later ones in next_stages, the run's beside */
        json_t *jp = stage_json(&hc.s[0]);
        double macs = 0;
        for (uint32_t k = 0; k < hc.n; k++) macs += hc.s[k].extra_macs_percent;
        if (hc.n > 1) {
          json_t *a = json_array();
          for (uint32_t k = 1; k < hc.n; k++) json_array_append_new(a, stage_json(&hc.s[k]));
          json_object_set_new(jp, "next_stages", a);
        }
        json_object_set_new(jp, "unpatched_instructions_run", json_integer((json_int_t)hc.base_run));
        json_object_set_new(jp, "extra_instructions_percent",
                            json_real(100.0 * ((double)total - (double)hc.base_run) /
                                      (double)hc.base_run));
        json_object_set_new(jp, "extra_macs_percent_all_stages", json_real(macs));
        json_object_set_new(o, "patch", jp);
      }
      json_object_set_new(o, "in_place_mode", json_string(ip_mode ? ip_mode : "false"));
      if (sc.have) {
        json_t *ji = json_object();
        json_object_set_new(ji, "mode", json_string("size"));
        json_object_set_new(ji, "channel_serial_ops", json_deep_copy(sc.ops));
        json_object_set_new(ji, "scratch", json_integer((json_int_t)sc.scratch));
        if (sc.speed_scratch) {
          json_object_set_new(ji, "speed_scratch", json_integer((json_int_t)sc.speed_scratch));
          json_object_set_new(ji, "saved_bytes",
                              json_integer((json_int_t)sc.speed_scratch - (json_int_t)sc.scratch));
        }
        json_object_set_new(ji, "speed_instructions_run", json_integer((json_int_t)sc.speed_run));
        json_object_set_new(ji, "extra_instructions",
                            json_integer((json_int_t)total - (json_int_t)sc.speed_run));
        json_object_set_new(ji, "extra_instructions_percent",
                            json_real(100.0 * ((double)total - (double)sc.speed_run) /
                                      (double)sc.speed_run));
        json_object_set_new(o, "in_place", ji);
      }
      char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
      if (text) puts(text);
      free(text);
      json_decref(o);
    } else {
      printf("profile   %s on %s (%s), %s, %s inputs\n", model_file ? model_file : "model",
             board->name, board->core,
             has_target ? "module.target as given" : board->target,
             n_inputs ? "the given" : "pseudo-random");
      /* the operator column as wide as its longest name, 22 to 40 */
      int ow = 22;
      for (size_t i = 0; i < n_ops && i < r.n_ops; i++) {
        const char *nm = json_string_value(json_object_get(json_array_get(ops, i), "operator"));
        size_t l = nm ? strlen(nm) : 0;
        if (l > (size_t)ow) ow = l > 40 ? 40 : (int)l;
      }
      printf("%-4s %-*s %-32s %14s %7s\n", "op", ow, "operator", "kernel", "instructions", "share");
      for (size_t i = 0; i < n_ops && i < r.n_ops; i++) {
        json_t *op = json_array_get(ops, i);
        const char *k = json_string_value(json_object_get(op, "kernel"));
        char tiled[64];
        json_t *fi = json_object_get(op, "folded_into");
        const halo_stage *in_stage = stage_of(&hc, (long long)i);
        /* a folded PAD names its operator; a stage's layers are "folded" into its head */
        if (!k && json_is_integer(fi) && (!in_stage || json_integer_value(fi) != in_stage->head)) {
          snprintf(tiled, sizeof tiled, "(folded into op %lld)", (long long)json_integer_value(fi));
          k = tiled;
        } else if (!k && in_stage) {
          if ((long long)i == in_stage->head)
            snprintf(tiled, sizeof tiled, "patched stage %lldx%lld", in_stage->rows,
                     in_stage->cols);
          else
            snprintf(tiled, sizeof tiled, "(tile by tile in op %lld)", in_stage->head);
          k = tiled;
        }
        char num[32];
        unsigned long long v = instr(&r, r.op[i]);
        put_thousands(num, sizeof num, v);
        printf("%-4zu %-*.*s %-32.32s %14s %6.1f%%\n", i, ow, ow,
               json_string_value(json_object_get(op, "operator")), k ? k : "(view, no code)", num,
               total ? 100.0 * (double)v / (double)total : 0.0);
      }
      char a[32], b[32], i0[32];
      put_thousands(a, sizeof a, total);
      put_thousands(b, sizeof b, total - (sum < total ? sum : total));
      put_thousands(i0, sizeof i0, instr(&r, r.init));
      printf("total     %s instructions per inference (model_run; %s of them between the\n"
             "          operators: the run loop and this profile's callback); model_init %s\n",
             a, b, i0);
      printf("image     code %llu B (.text), read-only %llu B (.rodata, weights included), RAM "
             "%llu B (.data %llu, .bss %llu: arenas included)\n",
             sz.text, sz.rodata, sz.data + sz.bss, sz.data, sz.bss);
      printf("stack     %llu B high-water mark (of %llu B reserved)\n", r.stack, r.stack_reserved);
      if (hc.have) {
        char s1[32], s2[32], s3[32];
        double macs = 0;
        for (uint32_t k = 0; k < hc.n; k++) {
          const halo_stage *s = &hc.s[k];
          put_thousands(s1, sizeof s1, s->stage);
          put_thousands(s2, sizeof s2, s->base_stage);
          printf("%soperators %lld .. %lld tile by tile on %lld x %lld tiles: %s instructions, "
                 "against %s\n          unpatched (memory.patch off); the halos recompute "
                 "%+.2f %% of the model's multiply-accumulates\n",
                 k ? "          " : "patch     ", s->first, s->last, s->rows, s->cols, s1, s2,
                 s->extra_macs_percent);
          macs += s->extra_macs_percent;
        }
        put_thousands(s3, sizeof s3, hc.base_run);
        printf("          the run %s instructions against %s unpatched (%+.1f %%)", a, s3,
               100.0 * ((double)total - (double)hc.base_run) / (double)hc.base_run);
        if (hc.n > 1)
          printf(";\n          the %u stages recompute %+.2f %% of the model's multiply-accumulates",
                 hc.n, macs);
        printf("\n");
      }
      if (sc.have) {
        char ops_s[256] = "", s1[32], s2[32], s3[32], s4[32];
        size_t k = 0;
        for (size_t i = 0; i < json_array_size(sc.ops) && k + 24 < sizeof ops_s; i++)
          k += (size_t)snprintf(ops_s + k, sizeof ops_s - k, "%s%lld", i ? ", " : "",
                                (long long)json_integer_value(json_array_get(sc.ops, i)));
        long long extra = (long long)total - (long long)sc.speed_run;
        put_thousands(s1, sizeof s1, (unsigned long long)(extra < 0 ? -extra : extra));
        put_thousands(s2, sizeof s2, sc.speed_run);
        put_thousands(s3, sizeof s3, sc.scratch);
        put_thousands(s4, sizeof s4, sc.speed_scratch);
        if (sc.speed_scratch > sc.scratch) {
          char s5[32];
          put_thousands(s5, sizeof s5, sc.speed_scratch - sc.scratch);
          printf("in_place  size saves %s B over speed (%s against %s B of scratch) for %s%s\n"
                 "          instructions (%+.1f %%; speed runs %s): op%s %s channel by channel\n",
                 s5, s3, s4, extra < 0 ? "-" : "+", s1,
                 100.0 * (double)extra / (double)sc.speed_run, s2,
                 json_array_size(sc.ops) > 1 ? "s" : "", ops_s);
        } else {
          printf("in_place  size: op%s %s channel by channel, %s%s instructions (%+.1f %%) against "
                 "speed's %s\n",
                 json_array_size(sc.ops) > 1 ? "s" : "", ops_s, extra < 0 ? "-" : "+", s1,
                 100.0 * (double)extra / (double)sc.speed_run, s2);
        }
      }
      printf("note      instructions, not cycles: QEMU -icount counts one per instruction, with "
             "no\n          wait states or caches, and an MVE or SIMD instruction counts as one\n");
    }
  }
  json_decref(res);
  if (!keep) nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  else if (rc != CLI_EXIT_OK)
    fprintf(stderr, "memplan profile: the module, the harness and the logs are in %s\n", keep);
  return rc;
}
