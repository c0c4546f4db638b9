/*
 * bench.c — memplan's benchmark: planner quality and speed, side by side,
 * in one run (not a test; `make bench` runs it through bench/run.sh).
 *
 *   build/release/bench [--out FILE] [--models DIR] [--example FILE]...
 *                       [--runs N] [--sizes 1000,10000,100000]
 *                       [--hard-count N] [--hard-n-min N] [--hard-n-max N]
 *                       [--exact-ms MS] [--scale-exact-ms MS]
 *                       [--compiler TEXT] [--flags TEXT] [--before FILE]
 *                       [--minimalloc DIR] [--minimalloc-bin PATH] [--smoke]
 *
 * Writes one Markdown page (stdout without --out):
 *   - the machine, compiler, flags and date, and the targets with
 *     a PASS/FAIL mark;
 *   - corpus: every model of --models (default ../shared/models) and each
 *     --example (default examples/kws/kws.tflite), planned the way
 *     memplan plans a scratch arena: subgraph 0, view aliasing on, the
 *     tensors mp_graph_needs_slot selects, sizes rounded up to 16 bytes,
 *     alignment 16, lifetimes g->storage, through mp_solve;
 *   - scale: the synthetic families of synth.h at each size, every
 *     measurement in a forked child that reports its wall times and its
 *     peak RSS above its own baseline (the high-water mark is reset with
 *     /proc/self/clear_refs once the problem is built);
 *   - hill_climb's rate at 100 buffers;
 *   - hard instances: hardgen rectangles (optimum H by construction), per
 *     planner the fraction packed at H, the overshoot and the times;
 *   - MiniMalloc's public challenging instances (--minimalloc DIR or
 *     $MINIMALLOC_DIR: the eleven files A.1048576.csv ... K.1048576.csv of
 *     its asplos2024 benchmarks, capacity in the file name), exact with that
 *     capacity; with a MiniMalloc binary (--minimalloc-bin PATH or
 *     $MINIMALLOC_BIN) each instance is also solved by MiniMalloc, side by
 *     side in the same run, both timed as medians of wall time, and the
 *     ratio is reported; without one, memplan's times alone, and no target
 *     is judged against anyone else's numbers.  The instances are not part
 *     of the repository; without the folder the section says so.
 *   - memory.patch: every corpus model and held-out network with
 *     memory.in_place and memory.patch auto against its in-place plan, and
 *     the patch targets (the MobileNetV2 224's scratch, models at 192x192
 *     or more against their tensor-level bound);
 * Times are medians of --runs runs (wall clock, CLOCK_MONOTONIC, in
 * process), with CPU time beside them.  Every layout goes through this
 * file's own overlap check (a sweep over time, no code shared with the
 * planners); an invalid one aborts the run.  --smoke shrinks everything to
 * seconds for the test suite.
 */
#include "hardgen.h"
#include "memplan.h"
#include "planners/hill_climb.h"
#include "synth.h"
#include "util/file.h"
#include "util/util.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 64
#define MAX_HELD_OUT 64 /* --held-out models */
/* A scale cell stops repeating its run once its runs took this long. */
#define CELL_SECONDS 8.0
/* A run with time_limit_ms t must return within t + 10 % + 50 ms. */
#define LIMIT_SLACK(t_ms) ((double)(t_ms) * 1.1e-3 + 0.05)
#define MAX_SIZES 8
#define HARD_H (UINT64_C(1) << 20)
/* exact's default time_limit_ms (planner_exact.c) */
#define EXACT_DEFAULT_MS 10000
/* The coarse hard instances: sizes in multiples of this (H / 256), so that
 * many pieces have equal sizes, the kind of instance a search finds slow. */
#define COARSE_UNIT 4096u
/* The grid hard instances: lifetimes start and end on multiples of this
 * many steps, so many buffers share a lifetime. */
#define GRID_TIME_UNIT 16u

/* ---- clocks and statistics ------------------------------------------------ */

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The p-quantile (0 <= p <= 1) of v[0..n), nearest rank; sorts v. */
static double quantile(double *v, size_t n, double p) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

static double median(double *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the layout check ------------------------------------------------------ */

static const mp_item *chk_items;
static const uint64_t *chk_off;

static int cmp_by_start(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  if (chk_items[i].start != chk_items[j].start) return chk_items[i].start < chk_items[j].start ? -1 : 1;
  return (i > j) - (i < j);
}

static int cmp_by_off(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  if (chk_off[i] != chk_off[j]) return chk_off[i] < chk_off[j] ? -1 : 1;
  return (i > j) - (i < j);
}

/* True when every offset is aligned and no two items live at a common time
 * share a byte; *height gets max(offset + size).  A sweep over the start
 * times: the items live at a start time are sorted by offset and adjacent
 * ones compared (two overlapping intervals imply an overlapping adjacent
 * pair). */
static bool check_layout(const mp_item *it, size_t n, const uint64_t *off, uint64_t *height) {
  uint32_t *by_start = malloc((n ? n : 1) * sizeof *by_start);
  uint32_t *live = malloc((n ? n : 1) * sizeof *live);
  uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
  bool ok = by_start && live && tmp;
  uint64_t h = 0;
  for (size_t i = 0; ok && i < n; i++) {
    if (it[i].align > 1 && off[i] % it[i].align) ok = false;
    if (off[i] + it[i].size > h) h = off[i] + it[i].size;
    by_start[i] = (uint32_t)i;
  }
  chk_items = it;
  chk_off = off;
  if (ok) qsort(by_start, n, sizeof *by_start, cmp_by_start);
  size_t n_live = 0;
  for (size_t k = 0; ok && k < n;) {
    int32_t t = it[by_start[k]].start;
    size_t w = 0;
    for (size_t q = 0; q < n_live; q++)
      if (it[live[q]].end >= t) live[w++] = live[q];
    n_live = w;
    for (; k < n && it[by_start[k]].start == t; k++)
      if (it[by_start[k]].size) live[n_live++] = by_start[k];
    memcpy(tmp, live, n_live * sizeof *tmp);
    qsort(tmp, n_live, sizeof *tmp, cmp_by_off);
    for (size_t q = 1; q < n_live; q++)
      if (off[tmp[q - 1]] + it[tmp[q - 1]].size > off[tmp[q]]) ok = false;
  }
  free(by_start);
  free(live);
  free(tmp);
  *height = h;
  return ok;
}

/* ---- planner configurations -------------------------------------------------- */

typedef struct cfg {
  const char *label;   /* as shown */
  const char *planner; /* the table's name */
  int64_t iterations;  /* hill_climb: 0 = default */
  int64_t time_ms;     /* exact: time_limit_ms, 0 = default */
  bool no_tail;        /* hill_climb without its exact tail */
  int64_t capacity;    /* exact: its capacity option, 0 = minimise */
} cfg;

typedef struct outcome {
  mp_status st;
  uint64_t height, lower_bound, proven_lower, proven_upper, iterations;
  bool timed_out;
  double wall, cpu; /* seconds */
} outcome;

static int64_t hc_default_iterations(void) {
  return mp_option_get(mp_planner_find("hill_climb"), NULL, 0, "iterations", 2000);
}

/* Run configuration c on p once; offsets to off.  Exits on an invalid
 * layout: a benchmark of a wrong answer is worthless. */
static outcome run_cfg(const cfg *c, const mp_problem *p, uint64_t *off) {
  outcome o = {0};
  const mp_planner *pl = mp_planner_find(c->planner);
  char k_it[] = "iterations", k_ms[] = "time_limit_ms", k_cap[] = "capacity";
  mp_option opts[3];
  uint32_t n_opts = 0;
  if (c->iterations) opts[n_opts++] = (mp_option){k_it, c->iterations};
  if (c->time_ms) opts[n_opts++] = (mp_option){k_ms, c->time_ms};
  if (c->capacity) opts[n_opts++] = (mp_option){k_cap, c->capacity};
  mp_solution sol = {.offsets = off};
  double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  if (c->no_tail) {
    sol.lower_bound = mp_problem_lower_bound(p);
    o.st = mp_hill_climb_run(p, opts, n_opts, &(mp_hill_climb_limits){.exact_tail = false}, &sol, NULL, NULL);
  } else {
    o.st = mp_solve(pl, p, opts, n_opts, &sol, NULL);
  }
  o.wall = clock_s(CLOCK_MONOTONIC) - w0;
  o.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  if (o.st != MP_OK) {
    fprintf(stderr, "bench: %s failed: %s\n", c->label, mp_status_str(o.st));
    exit(1);
  }
  uint64_t h = 0;
  if (!check_layout(p->items, p->n, off, &h)) {
    fprintf(stderr, "bench: %s produced an invalid layout (%zu items)\n", c->label, p->n);
    exit(1);
  }
  o.height = h;
  o.lower_bound = sol.lower_bound;
  o.proven_lower = c->no_tail ? sol.lower_bound : sol.proven_lower;
  o.proven_upper = c->no_tail ? h : sol.proven_upper;
  o.iterations = sol.iterations;
  o.timed_out = sol.timed_out;
  return o;
}

/* ---- machine ------------------------------------------------------------------ */

static void cpu_model(char *out, size_t n) {
  snprintf(out, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    char *v = strchr(line, ':');
    if (!v) break;
    v++;
    while (*v == ' ' || *v == '\t') v++;
    v[strcspn(v, "\n")] = 0;
    snprintf(out, n, "%s", v);
    break;
  }
  fclose(f);
}

static void os_name(char *out, size_t n) {
  struct utsname u;
  char pretty[600] = "";
  FILE *f = fopen("/etc/os-release", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "PRETTY_NAME=", 12)) {
        char *v = line + 12;
        v[strcspn(v, "\n")] = 0;
        if (*v == '"') v++;
        size_t l = strlen(v);
        if (l && v[l - 1] == '"') v[l - 1] = 0;
        snprintf(pretty, sizeof pretty, "%s, ", v);
      }
    fclose(f);
  }
  if (uname(&u) == 0)
    snprintf(out, n, "%.300s%.64s %.100s %.64s", pretty, u.sysname, u.release, u.machine);
  else
    snprintf(out, n, "%.300sunknown", pretty);
}

static void load_avg(char *out, size_t n) {
  double l[3];
  if (getloadavg(l, 3) == 3)
    snprintf(out, n, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  else
    snprintf(out, n, "unknown");
}

/* ---- peak memory of a child -------------------------------------------------- */

/* VmHWM of this process in KiB, or -1. */
static long vm_hwm_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long v = -1;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) v = strtol(line + 6, NULL, 10);
  fclose(f);
  return v;
}

/* Reset the high-water mark to the current RSS (Linux >= 4.0). */
static bool reset_hwm(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  bool ok = fputs("5", f) >= 0;
  return fclose(f) == 0 && ok;
}

static long maxrss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* ---- the report ------------------------------------------------------------- */

typedef struct opts {
  const char *out, *models, *compiler, *flags, *before, *minimalloc, *minimalloc_bin;
  const char *examples[16];
  int n_examples;
  const char *held_out[MAX_HELD_OUT]; /* in-place section only: models nobody tuned for */
  int n_held_out;
  int runs;
  size_t sizes[MAX_SIZES];
  int n_sizes;
  uint32_t hard_count, hard_nmin, hard_nmax;
  int64_t exact_ms, scale_exact_ms;
  bool smoke;
  unsigned only; /* --only: the sections to run (a mask of SEC_*), 0 = all */
} opts;

typedef struct targets {
  int corpus_models, corpus_at_lb;
  double plan100k_worst_s; /* greedy / greedy_by_size at the largest size, not random */
  double plan100k_worst_cpu_s, random100k_by_size_cpu_s; /* their CPU medians */
  size_t plan100k_n;
  double random100k_by_size_s; /* greedy_by_size on random at the largest size */
  double wide100k_by_size_s, wide100k_by_size_cpu_s; /* and on random_wide */
  int limit_runs, limit_over;  /* runs with a time limit, and those that overran it */
  char limit_worst[160];       /* the worst overrun (or closest call) */
  double limit_worst_ratio;
  double rate_min;          /* hill_climb iterations/s at 100, end to end */
  int exact_models, exact_proven;
  double exact_corpus_worst_s;
  uint32_t hard_total, hard_exact_at_h;
  double random10k_exact_ratio;   /* exact at its default limit on random 10k; 0 = not run */
  uint64_t cnn_exact_h, cnn_hc_h; /* exact (default limit) and hill_climb at the largest cnn */
  size_t cnn_n;
  uint32_t coarse_total, coarse_at_h; /* coarse hard instances: exact with capacity H */
  double coarse_max_s;
  uint32_t grid_total, grid_at_h; /* grid hard instances: exact with capacity H */
  int mm_total, mm_solved, mm_compared, mm_faster; /* MiniMalloc's instances: exact with
                                                      their capacity, and those with a
                                                      MiniMalloc time it beats or equals */
  double mm_sum_s, mm_ref_sum_s; /* exact's total, and MiniMalloc's over the same runs */
  char mm_slowest[160];          /* the instance with the worst ratio to MiniMalloc */
  int ip_models, ip_plans, ip_within_lb; /* in place: plans at or below the tensor-level bound */
  int ip_hc_within_lb;           /* hill_climb's among them */
  char ip_above[512];            /* the plans above it: planner, model, bytes */
  int ip_vww_total, ip_vww_ok;  /* int8 VWW and person detection plans <= 40960 B */
  int ip_mnv2_total, ip_mnv2_ok; /* MobileNetV2s with PADs: best plan >= 45 % below the bound */
  double ip_time_ratio;         /* worst median plan time, in place / plain */
  int pt_models, pt_not_above;  /* memory.patch auto: models, those at or below in place */
  char pt_above[256];           /* the models above it */
  int pt_hires, pt_hires_third; /* inputs >= 192x192, those at most a third of the bound */
  char pt_hires_worst[160];
  bool pt_mnv2;                 /* the MobileNetV2 224 int8 held-out network was planned */
  uint64_t pt_mnv2_bytes;       /* its scratch with memory.patch auto, input included */
  double pt_mnv2_macs;          /* its halos' extra multiply-accumulates, percent */
  char pt_mnv2_stage[96];
} targets;

static const char *pass(bool ok) { return ok ? "**PASS**" : "**FAIL**"; }

/* "123.4" for milliseconds with sensible precision. */
static void fmt_ms(char *b, size_t n, double s) {
  double ms = s * 1e3;
  if (ms < 1)
    snprintf(b, n, "%.3f", ms);
  else if (ms < 100)
    snprintf(b, n, "%.2f", ms);
  else
    snprintf(b, n, "%.0f", ms);
}

/* ---- corpus ------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Paths of the corpus: every .tflite of dir (sorted), then the examples. */
static size_t corpus_paths(const opts *o, char **paths, size_t max, bool *have_dir) {
  size_t n = 0;
  *have_dir = false;
  DIR *d = o->models ? opendir(o->models) : NULL;
  if (d) {
    *have_dir = true;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
      size_t l = strlen(de->d_name);
      if (l <= 7 || strcmp(de->d_name + l - 7, ".tflite")) continue;
      size_t need = strlen(o->models) + l + 2;
      paths[n] = malloc(need);
      snprintf(paths[n], need, "%s/%s", o->models, de->d_name);
      n++;
    }
    closedir(d);
    qsort(paths, n, sizeof *paths, cmp_str);
  }
  for (int e = 0; e < o->n_examples && n < max; e++) paths[n++] = strdup(o->examples[e]);
  return n;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static void corpus_section(const opts *o, mp_buf *b, targets *tg) {
  int64_t hc_it = hc_default_iterations();
  const cfg cfgs[] = {
      {"greedy", "greedy", 0, 0, false, 0},
      {"greedy_by_size", "greedy_by_size", 0, 0, false, 0},
      {"hill_climb", "hill_climb", 0, 0, false, 0},
      {"hill_climb 10x", "hill_climb", 10 * hc_it, 0, false, 0},
      {"exact", "exact", 0, 0, false, 0},
  };
  enum { NC = sizeof cfgs / sizeof cfgs[0] };
  char *paths[256];
  bool have_dir;
  size_t np = corpus_paths(o, paths, 256, &have_dir);

  mp_buf_printf(b, "## Corpus\n\n");
  if (!have_dir)
    mp_buf_printf(b, "NOTICE: the model folder `%s` is absent; only memplan's own examples "
                     "are measured.\n\n",
                  o->models ? o->models : "(none)");
  mp_buf_printf(b,
                "Each model's scratch arena as memplan plans it: subgraph 0, view aliasing on, "
                "the tensors that need a slot, sizes rounded up to 16 bytes, alignment 16, "
                "storage lifetimes, through `mp_solve`.  The lower bound is `memplan "
                "inspect`'s (`mp_graph_lower_bound(g, 16)`).  Cells: scratch high-water mark "
                "in bytes (ratio to the lower bound).  hill_climb 10x: `iterations` = %lld.  "
                "exact: default options (time_limit_ms 10000); \"proven\" says whether it "
                "proved its result optimal.\n\n",
                (long long)(10 * hc_it));
  mp_buf_puts(b, "| model | ops | scratch tensors | lower bound |");
  for (int c = 0; c < NC; c++) mp_buf_printf(b, " %s |", cfgs[c].label);
  mp_buf_puts(b, " exact proven |\n|---|---:|---:|---:|");
  for (int c = 0; c < NC; c++) mp_buf_puts(b, "---:|");
  mp_buf_puts(b, "---|\n");

  mp_buf times;
  mp_buf_init(&times);
  mp_buf_printf(&times, "Median plan time in ms over %d runs (wall clock; CPU time in "
                        "parentheses), runs of all planners interleaved:\n\n| model |",
                o->runs);
  for (int c = 0; c < NC; c++) mp_buf_printf(&times, " %s |", cfgs[c].label);
  mp_buf_puts(&times, "\n|---|");
  for (int c = 0; c < NC; c++) mp_buf_puts(&times, "---:|");
  mp_buf_puts(&times, "\n");

  for (size_t m = 0; m < np; m++) {
    mp_model *model = NULL;
    mp_graph *g = NULL;
    const char *name = base_name(paths[m]);
    if (mp_model_load(paths[m], NULL, &model) != MP_OK ||
        mp_graph_build(model, 0, NULL, NULL, &g) != MP_OK) {
      mp_buf_printf(b, "| %s | could not be loaded |\n", name);
      mp_model_free(&model);
      free(paths[m]);
      continue;
    }
    mp_item *items = calloc(g->n_tensors + 1, sizeof *items);
    uint64_t *off = calloc(g->n_tensors + 1, sizeof *off);
    size_t n = mp_graph_scratch_items(g, 16, items);
    mp_problem p = {n, items, 0};
    uint64_t lb = mp_graph_lower_bound(g, 16);
    if (lb != mp_problem_lower_bound(&p)) {
      fprintf(stderr, "bench: %s: lower bounds disagree\n", name);
      exit(1);
    }
    double wall[NC][MAX_RUNS], cpu[NC][MAX_RUNS];
    outcome last[NC];
    for (int r = 0; r < o->runs; r++)
      for (int c = 0; c < NC; c++) {
        last[c] = run_cfg(&cfgs[c], &p, off);
        wall[c][r] = last[c].wall;
        cpu[c][r] = last[c].cpu;
      }
    mp_buf_printf(b, "| %s | %u | %zu | %llu |", name, g->n_ops, n, (unsigned long long)lb);
    for (int c = 0; c < NC; c++)
      mp_buf_printf(b, " %llu (%.3f) |", (unsigned long long)last[c].height,
                    lb ? (double)last[c].height / (double)lb : 1.0);
    const outcome *ex = &last[NC - 1];
    if (ex->proven_lower == ex->proven_upper)
      mp_buf_puts(b, " optimal |\n");
    else
      mp_buf_printf(b, " [%llu, %llu]%s |\n", (unsigned long long)ex->proven_lower,
                    (unsigned long long)ex->proven_upper, ex->timed_out ? " (time limit)" : "");
    mp_buf_printf(&times, "| %s |", name);
    for (int c = 0; c < NC; c++) {
      char w[32], u[32];
      double mw = median(wall[c], (size_t)o->runs), mc = median(cpu[c], (size_t)o->runs);
      fmt_ms(w, sizeof w, mw);
      fmt_ms(u, sizeof u, mc);
      mp_buf_printf(&times, " %s (%s) |", w, u);
      if (c == NC - 1 && mw > tg->exact_corpus_worst_s) tg->exact_corpus_worst_s = mw;
    }
    mp_buf_puts(&times, "\n");
    tg->corpus_models++;
    tg->corpus_at_lb += last[2].height == lb;
    tg->exact_models++;
    tg->exact_proven += ex->proven_lower == ex->proven_upper;
    free(items);
    free(off);
    mp_graph_free(&g);
    mp_model_free(&model);
    free(paths[m]);
  }
  mp_buf_puts(b, "\n");
  mp_buf_append(b, times.data ? times.data : "", times.len);
  mp_buf_puts(b, "\n");
  mp_buf_free(&times);
}

/* ---- in place ---------------------------------------------------------------- */

/* One plan on pf through the plan driver as convert makes it
 * (mp_plan_build_rewritten): of g, the model's graph, with in_place off;
 * with it on, of gf, the graph with its PADs folded and its views made,
 * and of g too when the library plans that.  Its scratch arenas' size (0
 * when it has none), the plan verified.  Wall time of the planning call in
 * *wall: the verification is left out on both sides. */
static uint64_t plan_scratch(const mp_graph *g, const mp_graph *gf, const mp_platform *pf,
                             const char *planner, bool in_place, double *wall) {
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  char name[32];
  snprintf(name, sizeof name, "%s", planner);
  a.planner = name;
  a.allocate_arenas = true;
  a.in_place = in_place;
  const mp_graph *what = in_place ? gf : g, *plain = in_place && mp_graph_rewritten(gf) ? g : NULL;
  mp_plan *p = NULL;
  double t0 = clock_s(CLOCK_MONOTONIC);
  mp_status st = mp_plan_build_rewritten(what, plain, pf, &a, NULL, &p);
  *wall = clock_s(CLOCK_MONOTONIC) - t0;
  if (st != MP_OK || mp_plan_verify(p, NULL) != MP_OK) {
    fprintf(stderr, "bench: %s plan (in_place %d) failed or did not verify\n", planner, in_place);
    exit(1);
  }
  uint64_t size = mp_plan_scratch_bytes(p);
  mp_plan_free(&p);
  return size;
}

/* One writable 64 MiB bank and a read-only one for the constants: a model
 * whose scratch does not fit apollo510_evb's dtcm is planned here, since a
 * plan split across two banks is a sum of two arenas, not a peak. */
static mp_platform one_bank(void) {
  mp_platform pf;
  mp_platform_init(&pf, "one_bank");
  pf.present[MP_MEM_SRAM] = pf.present[MP_MEM_MRAM] = true;
  pf.size[MP_MEM_SRAM] = pf.size[MP_MEM_MRAM] = UINT64_C(64) << 20;
  pf.n_order = 2;
  pf.order[0] = MP_MEM_SRAM;
  pf.order[1] = MP_MEM_MRAM;
  return pf;
}

static void inplace_section(const opts *o, mp_buf *b, targets *tg) {
  static const char *const planners[] = {"greedy", "greedy_by_size", "hill_climb", "exact"};
  enum { NP = 4 };
  char *paths[256];
  bool have_dir;
  size_t np = corpus_paths(o, paths, 256, &have_dir), n_corpus = np;
  for (int e = 0; e < o->n_held_out && np < 256; e++) paths[np++] = strdup(o->held_out[e]);
  mp_platform apollo, big = one_bank();
  if (!mp_platform_builtin("apollo510_evb", &apollo)) exit(1);
  mp_buf_printf(b, "## In place (memory.in_place)\n\n");
  mp_buf_printf(b,
                "Each model through the plan driver (`mp_plan_build`, platform apollo510_evb, "
                "defaults) after `mp_kernels_prepare`, so op-local scratch counts; every plan "
                "verified.  *tensor-level*: the lower bound without shared bytes; *in-place*: "
                "the in-place bound (`mp_graph_inplace_bound(g, 16)`: the live sum less what the "
                "kernels' overlap contracts let outputs share with their inputs; of the graph "
                "with its PADs folded, or not, whichever is lower); then each "
                "planner's scratch arena with `in_place: true`, as convert plans it "
                "(`mp_plan_build_rewritten`: PADs folded, the unfolded graph's plan kept when "
                "smaller, and another planner's layout when the planner's own ends above the "
                "tensor-level bound; ratio to the "
                "tensor-level bound).  TFLM's own arena for these models is not measured on this machine "
                "(no TFLM build here).  Plan time: median over %d runs of the whole "
                "planning call (in place: `mp_plan_build_rewritten`, both graphs' plans when "
                "it makes both, and the unfolded graph's in-place bound that decides it), in "
                "place against plain, and their ratio, "
                "measured side by side; on neither side is the plan's verification counted.  "
                "Below the "
                "corpus, memplan's held-out networks (`mkmodel --list-nets`: whole models in "
                "the shapes converters write, none tuned for memplan; a PyTorch-style "
                "MobileNetV2 with an explicit PAD before every 3x3 convolution among them); "
                "one whose tensor-level bound exceeds apollo510_evb's dtcm is planned on one "
                "64 MiB bank (*one bank*), since a plan split across banks is a sum of "
                "arenas, not a peak.  The tensor-level bound is the model's as written (PADs "
                "not folded).\n\n",
                o->runs);
  mp_buf_puts(b, "| model | tensor-level | in-place |");
  for (int k = 0; k < NP; k++) mp_buf_printf(b, " %s |", planners[k]);
  mp_buf_puts(b, " greedy time plain / in place (ms) | hill_climb time plain / in place (ms) |\n"
                 "|---|---:|---:|");
  for (int k = 0; k < NP; k++) mp_buf_puts(b, "---:|");
  mp_buf_puts(b, "---:|---:|\n");
  for (size_t m = 0; m < np; m++) {
    mp_model *model = NULL;
    mp_graph *g = NULL, *gf = NULL;
    const char *name = base_name(paths[m]);
    const mp_graph_options fold = {.alias_views = true, .fold_pads = true, .sub_views = true,
                                   .serial_depthwise = true};
    if (mp_model_load(paths[m], NULL, &model) != MP_OK ||
        mp_graph_build(model, 0, NULL, NULL, &g) != MP_OK ||
        mp_kernels_prepare(g, true, NULL) != MP_OK ||
        mp_graph_build(model, 0, &fold, NULL, &gf) != MP_OK ||
        mp_kernels_prepare(gf, true, NULL) != MP_OK) {
      mp_buf_printf(b, "| %s | could not be loaded |\n", name);
      mp_graph_free(&g);
      mp_graph_free(&gf);
      mp_model_free(&model);
      free(paths[m]);
      continue;
    }
    uint64_t lb = mp_graph_lower_bound(g, 16), ib = mp_graph_inplace_bound(g, 16);
    uint64_t ibf = mp_graph_inplace_bound(gf, 16);
    if (ibf < ib) ib = ibf;
    const mp_platform *pf = m >= n_corpus && lb > 512 * 1024 ? &big : &apollo;
    mp_buf_printf(b, "| %s%s | %llu | %llu |", name, pf == &big ? " (one bank)" : "",
                  (unsigned long long)lb, (unsigned long long)ib);
    bool vww = (strstr(name, "vww") || strstr(name, "person_detect")) && strstr(name, "int8");
    /* the target is about explicit PADs: a TF-style MobileNetV2 has none */
    bool mnv2 = !strncmp(name, "mobilenet_v2", 12) && gf->n_folded_pads > 0;
    uint64_t best = UINT64_MAX;
    tg->ip_models++;
    for (int k = 0; k < NP; k++) {
      double w;
      uint64_t h = plan_scratch(g, gf, pf, planners[k], true, &w);
      mp_buf_printf(b, " %llu (%.3f) |", (unsigned long long)h, lb ? (double)h / (double)lb : 1.0);
      tg->ip_plans++;
      tg->ip_within_lb += h <= lb;
      if (!strcmp(planners[k], "hill_climb")) tg->ip_hc_within_lb += h <= lb;
      if (h > lb) {
        size_t used = strlen(tg->ip_above);
        double w0;
        uint64_t h0 = plan_scratch(g, gf, pf, planners[k], false, &w0);
        snprintf(tg->ip_above + used, sizeof tg->ip_above - used, "%s%s on %s: %llu (%llu without)",
                 used ? "; " : "", planners[k], name, (unsigned long long)h,
                 (unsigned long long)h0);
      }
      if (h < best) best = h;
      if (vww) {
        tg->ip_vww_total++;
        tg->ip_vww_ok += h <= 40960;
      }
    }
    if (mnv2) {
      tg->ip_mnv2_total++;
      tg->ip_mnv2_ok += (double)best <= 0.55 * (double)lb;
    }
    for (int k = 0; k < 3; k += 2) {
      double plain[MAX_RUNS], inpl[MAX_RUNS];
      for (int r = 0; r < o->runs; r++) {
        plan_scratch(g, gf, pf, planners[k], false, &plain[r]);
        plan_scratch(g, gf, pf, planners[k], true, &inpl[r]);
      }
      double mp = median(plain, (size_t)o->runs), mi = median(inpl, (size_t)o->runs);
      char a[32], c[32];
      fmt_ms(a, sizeof a, mp);
      fmt_ms(c, sizeof c, mi);
      mp_buf_printf(b, " %s / %s (%.2fx) |", a, c, mp > 0 ? mi / mp : 0.0);
      if (mp > 0 && mi / mp > tg->ip_time_ratio) tg->ip_time_ratio = mi / mp;
    }
    mp_buf_puts(b, "\n");
    mp_graph_free(&g);
    mp_graph_free(&gf);
    mp_model_free(&model);
    free(paths[m]);
  }
  mp_buf_puts(b, "\n");
}

/* ---- memory.patch ------------------------------------------------------------ */

/* Scratch of g's in-place greedy plan (mp_plan_build, as memory.patch auto
 * plans its candidates), verified; 0 when it fails. */
static uint64_t patched_scratch(const mp_graph *g, const mp_platform *pf) {
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  char name[] = "greedy";
  a.planner = name;
  a.allocate_arenas = true;
  a.in_place = true;
  mp_plan *p = NULL;
  uint64_t s = 0;
  if (mp_plan_build(g, pf, &a, NULL, &p) == MP_OK && mp_plan_verify(p, NULL) == MP_OK)
    s = mp_plan_scratch_bytes(p);
  mp_plan_free(&p);
  return s;
}

static void patch_section(const opts *o, mp_buf *b, targets *tg) {
  char *paths[256];
  bool have_dir;
  size_t np = corpus_paths(o, paths, 256, &have_dir), n_corpus = np;
  for (int e = 0; e < o->n_held_out && np < 256; e++) paths[np++] = strdup(o->held_out[e]);
  mp_platform apollo, big = one_bank();
  if (!mp_platform_builtin("apollo510_evb", &apollo)) exit(1);
  mp_buf_printf(b, "## Patch-based inference (memory.patch)\n\n");
  mp_buf_puts(b,
              "Each model with `memory.in_place: true` and greedy, as convert plans it (PADs "
              "folded; the platform as in the in-place section): *in place* is the in-place "
              "plan's scratch (`mp_plan_build_rewritten`), *patched* the plan memory.patch auto "
              "keeps (`mp_patch_search`, then `mp_plan_build`, verified), \"-\" when it keeps "
              "none; the graph input counts in both.  *stage*: the operators run tile by tile and "
              "the grid; *extra MACs*: the halos' recomputation as a share of the model's "
              "multiply-accumulates (instructions on a core: `memplan profile`).\n\n"
              "| model | input | tensor-level | in place | patched | stage | extra MACs |\n"
              "|---|---|---:|---:|---:|---|---:|\n");
  for (size_t m = 0; m < np; m++) {
    mp_model *model = NULL;
    mp_graph *gf = NULL, *g = NULL, *pg = NULL;
    const char *name = base_name(paths[m]);
    const mp_graph_options fold = {.alias_views = true, .fold_pads = true, .sub_views = true,
                                   .serial_depthwise = true};
    if (mp_model_load(paths[m], NULL, &model) != MP_OK ||
        mp_graph_build(model, 0, NULL, NULL, &g) != MP_OK ||
        mp_kernels_prepare(g, true, NULL) != MP_OK ||
        mp_graph_build(model, 0, &fold, NULL, &gf) != MP_OK ||
        mp_kernels_prepare(gf, true, NULL) != MP_OK) {
      mp_buf_printf(b, "| %s | could not be loaded |\n", name);
      mp_graph_free(&g);
      mp_graph_free(&gf);
      mp_model_free(&model);
      free(paths[m]);
      continue;
    }
    uint64_t lb = mp_graph_lower_bound(g, 16);
    const mp_platform *pf = m >= n_corpus && lb > 512 * 1024 ? &big : &apollo;
    double w;
    uint64_t base = plan_scratch(g, gf, pf, "greedy", true, &w), patched = base;
    mp_memory_args a;
    memset(&a, 0, sizeof a);
    char pl[] = "greedy";
    a.planner = pl;
    a.allocate_arenas = true;
    a.in_place = true;
    mp_patch_info pi;
    memset(&pi, 0, sizeof pi);
    bool kept = mp_patch_search(gf, pf, &a, true, &pg) == MP_OK && pg;
    if (kept) {
      mp_graph_patch_info(pg, &pi);
      patched = patched_scratch(pg, pf);
      if (!patched) {
        fprintf(stderr, "bench: %s: the patched plan failed or did not verify\n", name);
        exit(1);
      }
    }
    /* the graph input's height and width (NHWC) */
    int32_t ih = 0, iw = 0;
    if (g->n_inputs && g->inputs[0] >= 0) {
      const mp_tensor *x = &g->tensors[g->inputs[0]];
      if (x->rank == 4) ih = x->shape[1], iw = x->shape[2];
    }
    char in[32] = "-";
    if (ih) snprintf(in, sizeof in, "%dx%d", ih, iw);
    mp_buf_printf(b, "| %s%s | %s | %llu | %llu |", name, pf == &big ? " (one bank)" : "", in,
                  (unsigned long long)lb, (unsigned long long)base);
    if (kept)
      mp_buf_printf(b, " %llu (%.3f) | ops %u..%u, %ux%u | +%.2f %% |\n",
                    (unsigned long long)patched, lb ? (double)patched / (double)lb : 1.0,
                    pi.first, pi.last, pi.rows, pi.cols, pi.extra_macs_bp / 100.0);
    else
      mp_buf_puts(b, " - | | |\n");
    tg->pt_models++;
    if (patched <= base) tg->pt_not_above++;
    else {
      size_t used = strlen(tg->pt_above);
      snprintf(tg->pt_above + used, sizeof tg->pt_above - used, "%s%s (%llu > %llu)",
               used ? "; " : "", name, (unsigned long long)patched, (unsigned long long)base);
    }
    if (ih >= 192 && iw >= 192) {
      tg->pt_hires++;
      tg->pt_hires_third += 3 * patched <= lb;
      double r = lb ? (double)patched / (double)lb : 1.0;
      if (!tg->pt_hires_worst[0] || r > atof(strrchr(tg->pt_hires_worst, ' ') + 1))
        snprintf(tg->pt_hires_worst, sizeof tg->pt_hires_worst, "%s %.3f", name, r);
    }
    if (strstr(name, "mobilenet_v2_224") && !strstr(name, "f32")) {
      tg->pt_mnv2 = true;
      tg->pt_mnv2_bytes = patched;
      tg->pt_mnv2_macs = pi.extra_macs_bp / 100.0;
      if (kept)
        snprintf(tg->pt_mnv2_stage, sizeof tg->pt_mnv2_stage, "operators %u..%u on %ux%u tiles",
                 pi.first, pi.last, pi.rows, pi.cols);
    }
    mp_graph_free(&pg);
    mp_graph_free(&g);
    mp_graph_free(&gf);
    mp_model_free(&model);
    free(paths[m]);
  }
  mp_buf_puts(b, "\n");
}

/* ---- scale ------------------------------------------------------------------- */

typedef struct child_result {
  int ok;
  int runs;
  double wall[MAX_RUNS], cpu[MAX_RUNS];
  uint64_t height, lower_bound, iterations;
  long peak_kib;   /* above the baseline */
  int hwm_method;  /* 1: VmHWM reset with clear_refs, 0: ru_maxrss */
} child_result;

/* In a forked child: build the problem, reset the high-water mark, run c
 * `runs` times, report through the pipe. */
static void scale_child(int fd, mp_synth_family f, size_t n, const cfg *c, int runs) {
  child_result res = {0};
  mp_item *items = calloc(n ? n : 1, sizeof *items);
  uint64_t *off = calloc(n ? n : 1, sizeof *off);
  mp_synth_make(f, n, 0x5eed0000u + (uint64_t)f * 1000003u + n, items);
  mp_problem p = {n, items, 0};
  long base;
  if (reset_hwm() && (base = vm_hwm_kib()) >= 0) {
    res.hwm_method = 1;
  } else {
    base = maxrss_kib();
  }
  outcome out = {0};
  double spent = 0;
  int done = 0;
  while (done < runs) {
    out = run_cfg(c, &p, off);
    res.wall[done] = out.wall;
    res.cpu[done] = out.cpu;
    done++;
    /* slow cells take fewer runs: a median of at least one, within
     * CELL_SECONDS */
    if ((spent += out.wall) > CELL_SECONDS) break;
  }
  runs = done;
  long peak = res.hwm_method ? vm_hwm_kib() : maxrss_kib();
  res.peak_kib = peak - base;
  res.runs = runs;
  res.height = out.height;
  res.lower_bound = out.lower_bound;
  res.iterations = out.iterations;
  res.ok = 1;
  if (write(fd, &res, sizeof res) != (ssize_t)sizeof res) _exit(3);
  free(items);
  free(off);
  _exit(0);
}

static bool scale_measure(mp_synth_family f, size_t n, const cfg *c, int runs, child_result *res) {
  int fds[2];
  memset(res, 0, sizeof *res);
  if (pipe(fds)) return false;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(fds[0]);
    scale_child(fds[1], f, n, c, runs);
  }
  close(fds[1]);
  size_t got = 0;
  while (got < sizeof *res) {
    ssize_t k = read(fds[0], (char *)res + got, sizeof *res - got);
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return got == sizeof *res && res->ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A run of configuration c with wall time `wall` against its time limit. */
static void check_limit(targets *tg, const cfg *c, int64_t limit_ms, double wall, const char *where) {
  if (limit_ms <= 0) return;
  double allowed = LIMIT_SLACK(limit_ms), ratio = wall / allowed;
  tg->limit_runs++;
  if (wall > allowed) tg->limit_over++;
  if (ratio > tg->limit_worst_ratio) {
    tg->limit_worst_ratio = ratio;
    snprintf(tg->limit_worst, sizeof tg->limit_worst, "%s %s: %.0f ms for a %lld ms limit", c->label,
             where, wall * 1e3, (long long)limit_ms);
  }
}

static void scale_section(const opts *o, mp_buf *b, targets *tg) {
  static const mp_synth_family fams[] = {MP_SYNTH_CHAIN, MP_SYNTH_CNN, MP_SYNTH_TRANSFORMER,
                                         MP_SYNTH_RANDOM, MP_SYNTH_RANDOM_WIDE};
  enum { NF = sizeof fams / sizeof fams[0] };
  char ms[64];
  snprintf(ms, sizeof ms, "time_limit_ms %lld", (long long)o->scale_exact_ms);
  const cfg cfgs[] = {
      {"greedy", "greedy", 0, 0, false, 0},
      {"greedy_by_size", "greedy_by_size", 0, 0, false, 0},
      {"hill_climb", "hill_climb", 0, 0, false, 0},
      {"hill_climb, limited", "hill_climb", 0, o->scale_exact_ms, false, 0},
      {"exact", "exact", 0, o->scale_exact_ms, false, 0},
      {"exact, default", "exact", 0, EXACT_DEFAULT_MS, false, 0},
  };
  char ms_def[64];
  snprintf(ms_def, sizeof ms_def, "time_limit_ms %d (its default)", EXACT_DEFAULT_MS);
  const char *budget[] = {"-", "-", "defaults", ms, ms, ms_def};
  int64_t it = hc_default_iterations();
  enum { NC = sizeof cfgs / sizeof cfgs[0] };
  double exponent[NF][NC];
  mp_buf_printf(b, "## Scale\n\n");
  mp_buf_printf(b,
                "Synthetic problems (tests/support/gen/synth.c, fixed seeds): **chain** (tensor i live over "
                "ops [i, i+1]), **cnn** (residual stages: block inputs live until the block's "
                "add, op-local scratch), **transformer** (12-op layers, many small short-lived "
                "tensors, a residual stream per layer, one long-lived cache in eight layers), "
                "**random** (random lifetimes over 50 steps, sizes 16 B to 16 KiB: dense, "
                "about a third of the buffers live at once), **random_wide** (random lifetimes "
                "spread over n / 5 distinct times, exponential lengths of mean n / 250 steps, "
                "sizes 16 B to 200 KB in three mixes: about n / 50 buffers live at once, a "
                "layout fragmented differently at every time).  "
                "Sizes rounded up to 16, alignment 16.  Each cell is measured in its own forked "
                "process: the problem is built, the RSS high-water mark is reset, then the "
                "planner runs %d times (fewer when the runs pass %.0f s: *runs* says how many); "
                "*peak MiB* is the high-water mark above that baseline "
                "(the planner's own memory).  *growth* is the median time divided by the median "
                "time at the previous size (10x fewer items: linear growth is 10x, n log n about "
                "13x).  *max ms* is the slowest run; with a time limit t every run must return "
                "within t + 10 %% + 50 ms, and a run that does not is marked **over**.  "
                "Budgets: hill_climb runs its defaults (its work bound, `iterations` %lld, "
                "bounds it to %lld placements and an exact tail of at most %lld nodes; large "
                "problems make fewer moves; above 256 buffers it starts from the skyline "
                "construction too), and again with %s; exact runs with %s and with its default "
                "limit at every size: the limit bounds everything it does, starts included "
                "(above 256 buffers start-order greedy, then the skyline until half of it, "
                "greedy_by_size until three quarters, the pressure order until seven eighths, "
                "then hill_climb under a deadline); it searches no component above %u buffers, "
                "so at 10k and 100k its result is its best start's and hill_climb's.\n\n",
                o->runs, CELL_SECONDS, (long long)it,
                (long long)(MP_HILL_CLIMB_WORK_PER_ITERATION * it),
                (long long)(MP_HILL_CLIMB_EXACT_NODES_PER_ITERATION * it), ms, ms, 4096u);
  mp_buf_puts(b, "| family | items | planner | budget | runs | median ms | cpu ms | max ms | growth "
                 "| peak MiB | height / lower bound | moves / nodes |\n|---|---:|---|---|---:|---:|"
                 "---:|---:|---:|---:|---:|---:|\n");
  for (size_t fi = 0; fi < NF; fi++) {
    for (int c = 0; c < NC; c++) {
      double prev = 0, first = 0;
      size_t prev_n = 0, first_n = 0;
      exponent[fi][c] = -1;
      for (int si = 0; si < o->n_sizes; si++) {
        size_t n = o->sizes[si];
        child_result res;
        if (!scale_measure(fams[fi], n, &cfgs[c], o->runs, &res)) {
          mp_buf_printf(b, "| %s | %zu | %s | %s | failed | | | | | | | |\n",
                        mp_synth_name(fams[fi]), n, cfgs[c].label, budget[c]);
          continue;
        }
        double mw = median(res.wall, (size_t)res.runs), mc = median(res.cpu, (size_t)res.runs);
        double mx = 0;
        char where[64];
        snprintf(where, sizeof where, "on %s %zu", mp_synth_name(fams[fi]), n);
        for (int r = 0; r < res.runs; r++) {
          if (res.wall[r] > mx) mx = res.wall[r];
          check_limit(tg, &cfgs[c], cfgs[c].time_ms, res.wall[r], where);
        }
        bool over = cfgs[c].time_ms > 0 && mx > LIMIT_SLACK(cfgs[c].time_ms);
        char w[32], u[32], x[48], gr[32] = "-";
        fmt_ms(w, sizeof w, mw);
        fmt_ms(u, sizeof u, mc);
        fmt_ms(x, sizeof x - 12, mx);
        if (over) strcat(x, " **over**");
        if (prev > 0 && prev_n > 0)
          snprintf(gr, sizeof gr, "%.1fx / %zux", mw / prev, n / prev_n);
        mp_buf_printf(b, "| %s | %zu | %s | %s | %d | %s | %s | %s | %s | %.1f | %.4f | %llu |\n",
                      mp_synth_name(fams[fi]), n, cfgs[c].label, budget[c], res.runs, w, u, x, gr,
                      (double)res.peak_kib / 1024.0,
                      res.lower_bound ? (double)res.height / (double)res.lower_bound : 1.0,
                      (unsigned long long)res.iterations);
        if (c == NC - 1 && fams[fi] == MP_SYNTH_RANDOM && n == 10000)
          tg->random10k_exact_ratio =
              res.lower_bound ? (double)res.height / (double)res.lower_bound : 1.0;
        if (fams[fi] == MP_SYNTH_CNN && si == o->n_sizes - 1) {
          if (c == 2) tg->cnn_hc_h = res.height;
          if (c == NC - 1) tg->cnn_exact_h = res.height;
          tg->cnn_n = n;
        }
        if (c < 2 && si == o->n_sizes - 1) {
          if (fams[fi] == MP_SYNTH_RANDOM) {
            if (c == 1) {
              tg->random100k_by_size_s = mw;
              tg->random100k_by_size_cpu_s = mc;
            }
          } else if (fams[fi] == MP_SYNTH_RANDOM_WIDE) {
            if (c == 1) {
              tg->wide100k_by_size_s = mw;
              tg->wide100k_by_size_cpu_s = mc;
            }
          } else if (mw > tg->plan100k_worst_s) {
            tg->plan100k_worst_s = mw;
            tg->plan100k_worst_cpu_s = mc;
          }
          tg->plan100k_n = n;
        }
        if (first_n == 0 && mw > 0) {
          first = mw;
          first_n = n;
        } else if (mw > 0 && n > first_n) {
          exponent[fi][c] = log(mw / first) / log((double)n / (double)first_n);
        }
        prev = mw;
        prev_n = n;
        fflush(stdout);
      }
    }
  }
  mp_buf_printf(b, "\nGrowth exponent e of each planner's median time (time ~ n^e, from the "
                   "smallest to the largest size; 1 is linear; a time limit flattens it):\n\n"
                   "| family |");
  for (int c = 0; c < NC; c++) mp_buf_printf(b, " %s |", cfgs[c].label);
  mp_buf_puts(b, "\n|---|");
  for (int c = 0; c < NC; c++) mp_buf_puts(b, "---:|");
  mp_buf_puts(b, "\n");
  for (size_t fi = 0; fi < NF; fi++) {
    mp_buf_printf(b, "| %s |", mp_synth_name(fams[fi]));
    for (int c = 0; c < NC; c++)
      if (exponent[fi][c] >= -0.5)
        mp_buf_printf(b, " %.2f |", exponent[fi][c]);
      else
        mp_buf_puts(b, " - |");
    mp_buf_puts(b, "\n");
  }
  mp_buf_puts(b, "\n");
}

/* ---- hill_climb's rate ------------------------------------------------------- */

static void rate_section(const opts *o, mp_buf *b, targets *tg) {
  int64_t it = (o->smoke ? 1 : 10) * hc_default_iterations();
  mp_buf_printf(b, "## hill_climb rate at 100 buffers\n\n");
  mp_buf_printf(b,
                "hill_climb with `iterations` = %lld (and `max_stall_iterations` 0, its "
                "default) on 100-buffer problems that the starting layouts leave above the "
                "lower bound (the graph-shaped families reach it before any move): the "
                "synthetic `random` family (random lifetimes over 50 steps, sizes 16 B to "
                "16 KiB), which hill_climb packs at the lower bound before its last move, and "
                "two more draws of it where one buffer in four is aligned to 4 KiB, which puts "
                "the lower bound out of reach, so that every move is made.  The rate counts "
                "the moves made.  "
                "*search* is the local search alone, *end to end* includes the exact tail "
                "(up to %u nodes per iteration).  Medians of %d runs.\n\n",
                (long long)it, MP_HILL_CLIMB_EXACT_NODES_PER_ITERATION, o->runs);
  mp_buf_puts(b, "| problem | lower bound | height (search) | height (end to end) | moves | "
                 "search ms | moves/s (search) | end-to-end ms | moves/s (end to end) |\n"
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  tg->rate_min = -1;
  for (int k = 0; k < 3; k++) {
    size_t n = 100;
    mp_item items[100];
    uint64_t off[100];
    char name[64];
    mp_synth_make(MP_SYNTH_RANDOM, n, 0xbe4c0003u + (uint64_t)k, items);
    if (k == 0) {
      snprintf(name, sizeof name, "random");
    } else {
      /* one buffer in four aligned to 4 KiB: the lower bound is out of
       * reach, so every move is made */
      for (size_t i = 0; i < n; i += 4) items[i].align = 4096;
      snprintf(name, sizeof name, "random, 4 KiB-aligned buffers #%d", k);
    }
    mp_problem p = {n, items, 0};
    const cfg search = {"hill_climb (search)", "hill_climb", it, 0, true, 0};
    const cfg full = {"hill_climb", "hill_climb", it, 0, false, 0};
    double ws[MAX_RUNS], wf[MAX_RUNS];
    outcome os = {0}, of = {0};
    for (int r = 0; r < o->runs; r++) {
      os = run_cfg(&search, &p, off);
      of = run_cfg(&full, &p, off);
      ws[r] = os.wall;
      wf[r] = of.wall;
    }
    double ms = median(ws, (size_t)o->runs), mf = median(wf, (size_t)o->runs);
    double rs = ms > 0 ? (double)os.iterations / ms : 0, rf = mf > 0 ? (double)of.iterations / mf : 0;
    char a[32], c[32];
    fmt_ms(a, sizeof a, ms);
    fmt_ms(c, sizeof c, mf);
    mp_buf_printf(b, "| %s | %llu | %llu | %llu | %llu | %s | %.0f | %s | %.0f |\n", name,
                  (unsigned long long)os.lower_bound, (unsigned long long)os.height,
                  (unsigned long long)of.height, (unsigned long long)os.iterations, a, rs, c, rf);
    if (of.iterations > 0 && (tg->rate_min < 0 || rf < tg->rate_min)) tg->rate_min = rf;
  }
  mp_buf_puts(b, "\n");
}

/* ---- hard instances ---------------------------------------------------------- */

typedef struct hard_stats {
  uint32_t at_h;
  double over_sum, over_max;
  double secs[1024];
  uint32_t n;
  uint32_t timed_out;
} hard_stats;

/* Run configuration c on hard instance k (whose optimum is HARD_H), check
 * it against its time limit and add it to s. */
static outcome run_hard(const cfg *c, const mp_problem *p, uint64_t *off, const char *kind,
                        uint32_t k, targets *tg, hard_stats *s) {
  outcome r = run_cfg(c, p, off);
  char where[64];
  snprintf(where, sizeof where, "on %s %u", kind, k);
  check_limit(tg, c, c->time_ms, r.wall, where);
  double over = (double)r.height / (double)HARD_H - 1;
  s->at_h += r.height == HARD_H;
  s->over_sum += over;
  if (over > s->over_max) s->over_max = over;
  if (s->n < sizeof s->secs / sizeof s->secs[0]) s->secs[s->n++] = r.wall;
  s->timed_out += r.timed_out;
  return r;
}

/* The summary row of one configuration over a set of hard instances. */
static void hard_row(mp_buf *b, const char *label, const char *budget, hard_stats *s) {
  double med = quantile(s->secs, s->n, 0.5), p90 = quantile(s->secs, s->n, 0.9),
         mx = quantile(s->secs, s->n, 1.0);
  mp_buf_printf(b, "| %s | %s | %u / %u (%.0f %%) | %.2f %% | %.2f %% | %.3f | %.3f | %.3f |\n",
                label, budget, s->at_h, s->n, s->n ? 100.0 * s->at_h / s->n : 0,
                s->n ? 100 * s->over_sum / s->n : 0, 100 * s->over_max, med, p90, mx);
}

/* A folded table: `rows` under a <details> summary. */
static void put_details(mp_buf *b, const char *summary, const mp_buf *rows) {
  mp_buf_printf(b, "<details><summary>%s</summary>\n\n", summary);
  mp_buf_append(b, rows->data ? rows->data : "", rows->len);
  mp_buf_puts(b, "\n</details>\n\n");
}

static void hard_section(const opts *o, mp_buf *b, targets *tg) {
  int64_t hc_it = hc_default_iterations();
  char ms[64];
  snprintf(ms, sizeof ms, "time_limit_ms %lld", (long long)o->exact_ms);
  const cfg cfgs[] = {
      {"greedy", "greedy", 0, 0, false, 0},
      {"greedy_by_size", "greedy_by_size", 0, 0, false, 0},
      {"hill_climb, local search alone", "hill_climb", 0, 0, true, 0},
      {"hill_climb", "hill_climb", 0, 0, false, 0},
      {"hill_climb 10x, local search alone", "hill_climb", 10 * hc_it, 0, true, 0},
      {"hill_climb 10x", "hill_climb", 10 * hc_it, 0, false, 0},
      {"exact", "exact", 0, o->exact_ms, false, 0},
  };
  char b1[96], b2[96], b3[96], b4[96];
  snprintf(b1, sizeof b1, "iterations %lld, no exact tail", (long long)hc_it);
  int64_t tail = MP_HILL_CLIMB_EXACT_NODES_PER_ITERATION;
  snprintf(b2, sizeof b2, "defaults: iterations %lld, exact tail of %lld nodes", (long long)hc_it,
           (long long)(tail * hc_it));
  snprintf(b3, sizeof b3, "iterations %lld, no exact tail", (long long)(10 * hc_it));
  snprintf(b4, sizeof b4, "iterations %lld, exact tail of %lld nodes", (long long)(10 * hc_it),
           (long long)(10 * tail * hc_it));
  const char *budget[] = {"-", "-", b1, b2, b3, b4, ms};
  enum { NC = sizeof cfgs / sizeof cfgs[0] };
  uint32_t count = o->hard_count > 1024 ? 1024 : o->hard_count;
  hard_stats *st = calloc(NC, sizeof *st);
  mp_buf rows;
  mp_buf_init(&rows);
  mp_buf_puts(&rows, "| # | n |");
  for (int c = 0; c < NC; c++) mp_buf_printf(&rows, " %s |", cfgs[c].label);
  mp_buf_puts(&rows, " exact s |\n|---:|---:|");
  for (int c = 0; c < NC; c++) mp_buf_puts(&rows, "---:|");
  mp_buf_puts(&rows, "---:|\n");
  uint32_t largest = 0;
  for (uint32_t k = 0; k < count; k++) {
    uint32_t n = count > 1 ? o->hard_nmin + (uint32_t)((uint64_t)(o->hard_nmax - o->hard_nmin) *
                                                      k / (count - 1))
                           : o->hard_nmin;
    mp_hardgen_params hp = {n, HARD_H, 4 * n, 16, 1000003u + k, 1};
    mp_item *items = calloc(n, sizeof *items);
    uint64_t *off = calloc(n, sizeof *off);
    if (mp_hardgen_make(&hp, items, NULL, NULL) != MP_OK) {
      fprintf(stderr, "bench: hardgen failed for n=%u\n", n);
      exit(1);
    }
    if (n > largest) largest = n;
    mp_problem p = {n, items, 0};
    mp_buf_printf(&rows, "| %u | %u |", k, n);
    double exact_s = 0;
    for (int c = 0; c < NC; c++) {
      outcome r = run_hard(&cfgs[c], &p, off, "hard instance", k, tg, &st[c]);
      mp_buf_printf(&rows, " %.4f |", (double)r.height / (double)HARD_H);
      if (c == NC - 1) exact_s = r.wall;
    }
    mp_buf_printf(&rows, " %.3f |\n", exact_s);
    free(items);
    free(off);
    fflush(stdout);
  }
  mp_buf_printf(b, "## Hard instances\n\n");
  mp_buf_printf(b,
                "%u instances from hardgen (tests/support/gen/hardgen.c): a full rectangle of height H = "
                "2^20 bytes and T = 4n time steps cut into n pieces, n spread evenly over "
                "[%u, %u], sizes multiples of 16, alignment 1, seeds 1000003 + k (the same "
                "instances as `exactbench`).  The pieces tile the rectangle, so the optimum is "
                "exactly H.  *at H*: instances packed at exactly H; overshoot: height / H - 1.  "
                "hill_climb runs with seed 0.\n\n",
                count, o->hard_nmin, o->hard_nmax);
  mp_buf_puts(b, "| planner | budget | at H | mean overshoot | max overshoot | median s | p90 s "
                 "| max s |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (int c = 0; c < NC; c++) hard_row(b, cfgs[c].label, budget[c], &st[c]);
  const hard_stats *ex = &st[NC - 1];
  mp_buf_printf(b, "\nexact: %u of %u instances hit the %lld ms time limit.\n", ex->timed_out,
                ex->n, (long long)o->exact_ms);
  /* peak memory of exact on the largest instance, in a child */
  if (largest) {
    int fds[2];
    child_result res = {0};
    if (!pipe(fds)) {
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        uint32_t n = largest;
        mp_hardgen_params hp = {n, HARD_H, 4 * n, 16, 1000003u + (count ? count - 1 : 0), 1};
        mp_item *items = calloc(n, sizeof *items);
        uint64_t *off = calloc(n, sizeof *off);
        mp_hardgen_make(&hp, items, NULL, NULL);
        mp_problem p = {n, items, 0};
        long base;
        if (reset_hwm() && (base = vm_hwm_kib()) >= 0)
          res.hwm_method = 1;
        else
          base = maxrss_kib();
        outcome r = run_cfg(&cfgs[NC - 1], &p, off);
        res.peak_kib = (res.hwm_method ? vm_hwm_kib() : maxrss_kib()) - base;
        res.wall[0] = r.wall;
        res.ok = 1;
        if (write(fds[1], &res, sizeof res) != (ssize_t)sizeof res) _exit(3);
        _exit(0);
      }
      close(fds[1]);
      size_t got = 0;
      while (pid > 0 && got < sizeof res) {
        ssize_t k = read(fds[0], (char *)&res + got, sizeof res - got);
        if (k <= 0) break;
        got += (size_t)k;
      }
      close(fds[0]);
      if (pid > 0) waitpid(pid, NULL, 0);
      if (got == sizeof res && res.ok)
        mp_buf_printf(b, "Peak memory of exact on the largest instance (n = %u): %.1f MiB above "
                         "the process's baseline.\n",
                      largest, (double)res.peak_kib / 1024.0);
    }
  }
  /* what the tail and 10x buy */
  mp_buf_printf(b,
                "\nWhat the exact tail buys: with the default budget, %u instances at H "
                "instead of %u (mean overshoot %.2f %% instead of %.2f %%); with 10x iterations "
                "%u instead of %u (%.2f %% instead of %.2f %%).  What 10x iterations buy: the "
                "local search alone goes from %u to %u instances at H (%.2f %% to %.2f %% mean "
                "overshoot), hill_climb as a whole from %u to %u (%.2f %% to %.2f %%).\n\n",
                st[3].at_h, st[2].at_h, 100 * st[3].over_sum / (st[3].n ? st[3].n : 1),
                100 * st[2].over_sum / (st[2].n ? st[2].n : 1), st[5].at_h, st[4].at_h,
                100 * st[5].over_sum / (st[5].n ? st[5].n : 1),
                100 * st[4].over_sum / (st[4].n ? st[4].n : 1), st[2].at_h, st[4].at_h,
                100 * st[2].over_sum / (st[2].n ? st[2].n : 1),
                100 * st[4].over_sum / (st[4].n ? st[4].n : 1), st[3].at_h, st[5].at_h,
                100 * st[3].over_sum / (st[3].n ? st[3].n : 1),
                100 * st[5].over_sum / (st[5].n ? st[5].n : 1));
  put_details(b, "Per instance: height / H, and exact's time", &rows);
  tg->hard_total = ex->n;
  tg->hard_exact_at_h = ex->at_h;
  mp_buf_free(&rows);
  free(st);
}

/* ---- main ------------------------------------------------------------------- */

static int parse_sizes(const char *s, size_t *out, int max) {
  int n = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *t = strtok(buf, ","); t && n < max; t = strtok(NULL, ",")) out[n++] = strtoull(t, NULL, 10);
  return n;
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench [--out FILE] [--models DIR] [--example FILE]... [--held-out FILE]...\n"
          "             [--runs N]\n"
          "             [--sizes 1000,10000,100000] [--hard-count N] [--hard-n-min N]\n"
          "             [--hard-n-max N] [--exact-ms MS] [--scale-exact-ms MS]\n"
          "             [--compiler TEXT] [--flags TEXT] [--before FILE]\n"
          "             [--minimalloc DIR] [--minimalloc-bin PATH] [--smoke] [--only SECTION,...]\n"
          "--only runs the named sections (corpus, in-place, scale, rate, hard, coarse, grid,\n"
          "minimalloc, patch) and rewrites only them and their targets rows in the --out page,\n"
          "keeping the rest of it as it is.\n");
}

/* ---- coarse hard instances --------------------------------------------------- */

/* hardgen instances whose sizes are multiples of COARSE_UNIT: few distinct
 * sizes, many pieces of the same size, which is what makes a search slow
 * (symmetric branches).  exact answers the question a capacity asks (as
 * MiniMalloc does) and minimises; hill_climb for comparison. */
static void coarse_section(const opts *o, mp_buf *b, targets *tg) {
  char ms[64], cap[96];
  snprintf(ms, sizeof ms, "time_limit_ms %lld", (long long)o->exact_ms);
  snprintf(cap, sizeof cap, "capacity H, time_limit_ms %lld", (long long)o->exact_ms);
  const cfg cfgs[] = {
      {"hill_climb", "hill_climb", 0, 0, false, 0},
      {"exact, capacity H", "exact", 0, o->exact_ms, false, (int64_t)HARD_H},
      {"exact", "exact", 0, o->exact_ms, false, 0},
  };
  const char *budget[] = {"defaults", cap, ms};
  enum { NC = sizeof cfgs / sizeof cfgs[0] };
  uint32_t count = o->hard_count < 20 ? o->hard_count : 20, nmin = 100, nmax = 250;
  hard_stats *st = calloc(NC, sizeof *st);
  mp_buf rows;
  mp_buf_init(&rows);
  mp_buf_puts(&rows, "| # | n | distinct sizes |");
  for (int c = 0; c < NC; c++) mp_buf_printf(&rows, " %s: height / H, s |", cfgs[c].label);
  mp_buf_puts(&rows, "\n|---:|---:|---:|");
  for (int c = 0; c < NC; c++) mp_buf_puts(&rows, "---:|");
  mp_buf_puts(&rows, "\n");
  for (uint32_t k = 0; k < count; k++) {
    uint32_t n = count > 1 ? nmin + (uint32_t)((uint64_t)(nmax - nmin) * k / (count - 1)) : nmin;
    mp_hardgen_params hp = {n, HARD_H, 4 * n, COARSE_UNIT, 2000003u + k, 1};
    mp_item *items = calloc(n, sizeof *items);
    uint64_t *off = calloc(n, sizeof *off);
    if (mp_hardgen_make(&hp, items, NULL, NULL) != MP_OK) {
      fprintf(stderr, "bench: hardgen failed for n=%u (coarse)\n", n);
      exit(1);
    }
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t j = 0;
      while (j < i && items[j].size != items[i].size) j++;
      distinct += j == i;
    }
    mp_problem p = {n, items, 0};
    mp_buf_printf(&rows, "| %u | %u | %u |", k, n, distinct);
    for (int c = 0; c < NC; c++) {
      outcome r = run_hard(&cfgs[c], &p, off, "coarse hard instance", k, tg, &st[c]);
      mp_buf_printf(&rows, " %.4f, %.3f |", (double)r.height / (double)HARD_H, r.wall);
    }
    mp_buf_puts(&rows, "\n");
    free(items);
    free(off);
    fflush(stdout);
  }
  mp_buf_printf(b, "## Coarse hard instances\n\n");
  mp_buf_printf(b,
                "%u instances from hardgen as above, but with sizes in multiples of %u bytes "
                "(H / %u), n spread evenly over [%u, %u], seeds 2000003 + k: few distinct "
                "sizes and many equal pieces, the style of instance on which a search meets "
                "many symmetric branches.  The optimum is exactly H.  *exact, capacity H* "
                "answers the question MiniMalloc answers (a layout within H, or a proof that "
                "none exists); *exact* minimises.\n\n",
                count, COARSE_UNIT, (unsigned)(HARD_H / COARSE_UNIT), nmin, nmax);
  mp_buf_puts(b, "| planner | budget | at H | mean overshoot | max overshoot | median s | p90 s "
                 "| max s |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (int c = 0; c < NC; c++) hard_row(b, cfgs[c].label, budget[c], &st[c]);
  mp_buf_puts(b, "\n");
  put_details(b, "Per instance", &rows);
  tg->coarse_total = st[1].n;
  tg->coarse_at_h = st[1].at_h;
  tg->coarse_max_s = quantile(st[1].secs, st[1].n, 1.0);
  mp_buf_free(&rows);
  free(st);
}

/* ---- MiniMalloc's challenging instances ------------------------------------- */

/* MiniMalloc solving `file` with `capacity`, as a whole process: its wall
 * time in seconds, or -1 when it does not run or exits non-zero (its
 * output goes to a temporary file, removed). */
static double minimalloc_run_s(const char *bin, const char *file, uint64_t capacity) {
  char cap[48], in[4200], out[64];
  snprintf(cap, sizeof cap, "--capacity=%llu", (unsigned long long)capacity);
  snprintf(in, sizeof in, "--input=%s", file);
  char tmp[] = "/tmp/bench-mm-XXXXXX";
  int fd = mkstemp(tmp);
  if (fd < 0) return -1;
  close(fd);
  snprintf(out, sizeof out, "--output=%s", tmp);
  double t0 = clock_s(CLOCK_MONOTONIC);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1), dup2(null, 2);
    execl(bin, bin, cap, in, out, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0;
  double t = clock_s(CLOCK_MONOTONIC) - t0;
  unlink(tmp);
  return ok ? t : -1;
}

/* The capacity in a MiniMalloc benchmark file name, NAME.CAPACITY.csv; 0
 * when there is none. */
static uint64_t mm_capacity(const char *file) {
  const char *dot = strchr(file, '.');
  if (!dot) return 0;
  char *end = NULL;
  unsigned long long v = strtoull(dot + 1, &end, 10);
  return end && !strcmp(end, ".csv") ? (uint64_t)v : 0;
}

static void minimalloc_section(const opts *o, mp_buf *b, targets *tg) {
  const char *dir = o->minimalloc ? o->minimalloc : getenv("MINIMALLOC_DIR");
  const char *bin = o->minimalloc_bin ? o->minimalloc_bin : getenv("MINIMALLOC_BIN");
  if (bin && !*bin) bin = NULL;
  mp_buf_puts(b, "## MiniMalloc's challenging instances\n\n");
  DIR *d = dir && *dir ? opendir(dir) : NULL;
  char *names[64];
  size_t nn = 0;
  for (struct dirent *e; d && (e = readdir(d)) && nn < 64;)
    if (mm_capacity(e->d_name)) names[nn++] = strdup(e->d_name);
  if (d) closedir(d);
  if (nn == 0) {
    fprintf(stderr, "NOTICE: MiniMalloc's challenging instances not found (%s%s); set "
                    "MINIMALLOC_DIR or pass --minimalloc DIR to measure them\n",
            dir && *dir ? "no NAME.CAPACITY.csv in " : "MINIMALLOC_DIR is not set",
            dir && *dir ? dir : "");
    mp_buf_puts(b, "Not measured: the instances are not part of the repository; set "
                   "MINIMALLOC_DIR (or pass --minimalloc DIR) to the folder holding "
                   "MiniMalloc's benchmarks/asplos2024/*.csv.\n\n");
    return;
  }
  qsort(names, nn, sizeof *names, cmp_str);
  mp_buf_printf(b,
                "The %zu public instances of MiniMalloc's benchmarks/asplos2024 folder (read from "
                "MINIMALLOC_DIR or --minimalloc, not part of the repository), each solved by exact with the "
                "capacity in its name (%s) and its default time limit, as MiniMalloc solves them: "
                "a layout within the capacity, or a proof that none exists.  Medians of %d runs, "
                "the whole planner call (start heuristics included).  %s\n\n",
                nn, "the `capacity` option", o->runs,
                bin ? "*MiniMalloc s*: MiniMalloc (`--minimalloc-bin`) on the same instance "
                      "with the same capacity, in the same run, as a whole process (its start "
                      "and its file I/O included): the median of as many runs; *ratio*: "
                      "memplan's median over MiniMalloc's."
                    : "MiniMalloc was not run beside it (pass `--minimalloc-bin PATH` or set "
                      "MINIMALLOC_BIN to compare): memplan's times alone.");
  mp_buf_puts(b, "| instance | buffers | capacity | lower bound | height | proven | nodes | "
                 "median s | cpu s | MiniMalloc s | ratio |\n"
                 "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
  double worst = 0;
  for (size_t k = 0; k < nn; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    mp_csv_problem *cp = NULL;
    if (mp_csv_problem_read(path, 1, NULL, &cp) != MP_OK) {
      fprintf(stderr, "bench: cannot read %s\n", path);
      exit(1);
    }
    uint64_t capacity = mm_capacity(names[k]);
    mp_problem p = {cp->n, cp->items, 0};
    uint64_t *off = calloc(cp->n ? cp->n : 1, sizeof *off);
    cfg c = {"exact, capacity", "exact", 0, 0, false, (int64_t)capacity};
    double wall[MAX_RUNS], cpu[MAX_RUNS];
    outcome r = {0};
    for (int i = 0; i < o->runs; i++) {
      r = run_cfg(&c, &p, off);
      wall[i] = r.wall;
      cpu[i] = r.cpu;
      char where[96];
      snprintf(where, sizeof where, "on MiniMalloc's %s", names[k]);
      check_limit(tg, &c, EXACT_DEFAULT_MS, r.wall, where);
    }
    double med = median(wall, (size_t)o->runs), mcpu = median(cpu, (size_t)o->runs);
    char inst[64];
    snprintf(inst, sizeof inst, "%.*s", (int)(strchr(names[k], '.') - names[k]), names[k]);
    const char *proven = r.height <= capacity ? "fits"
                         : r.proven_lower > capacity ? "no layout fits" : "unknown";
    tg->mm_total++;
    tg->mm_solved += r.height <= capacity || r.proven_lower > capacity;
    tg->mm_sum_s += med;
    double ref = 0;
    if (bin) {
      double mm[MAX_RUNS];
      for (int i = 0; i < o->runs; i++)
        if ((mm[i] = minimalloc_run_s(bin, path, capacity)) < 0) {
          fprintf(stderr, "bench: %s did not solve %s\n", bin, path);
          exit(1);
        }
      ref = median(mm, (size_t)o->runs);
      tg->mm_ref_sum_s += ref;
    }
    char refs[32] = "-", ratio[32] = "-";
    if (ref > 0) {
      snprintf(refs, sizeof refs, "%.3f", ref);
      snprintf(ratio, sizeof ratio, "%.2f", med / ref);
      tg->mm_compared++;
      tg->mm_faster += med <= ref;
      if (med / ref > worst) {
        worst = med / ref;
        snprintf(tg->mm_slowest, sizeof tg->mm_slowest, "%s: %.3f s against %.3f s", inst, med,
                 ref);
      }
    }
    mp_buf_printf(b, "| %s | %zu | %llu | %llu | %llu | %s | %llu | %.3f | %.3f | %s | %s |\n",
                  inst, cp->n, (unsigned long long)capacity, (unsigned long long)r.lower_bound,
                  (unsigned long long)r.height, proven, (unsigned long long)r.iterations, med,
                  mcpu, refs, ratio);
    free(off);
    mp_csv_problem_free(&cp);
    free(names[k]);
    fflush(stdout);
  }
  if (bin)
    mp_buf_printf(b, "\nTotal: exact %.2f s, MiniMalloc %.2f s for the %d instances.\n\n",
                  tg->mm_sum_s, tg->mm_ref_sum_s, tg->mm_total);
  else
    mp_buf_printf(b, "\nTotal: exact %.2f s for the %d instances.\n\n", tg->mm_sum_s,
                  tg->mm_total);
}

/* ---- grid hard instances ------------------------------------------------------ */

/* hardgen instances whose lifetimes start and end on a grid of
 * GRID_TIME_UNIT steps: many buffers share a lifetime, as in the problems a
 * compiler makes (MiniMalloc's instances have the same trait), and exact is
 * slow on them.  exact answers the capacity question only: each instance
 * may take the whole time limit. */
static void grid_section(const opts *o, mp_buf *b, targets *tg) {
  char cap[96];
  snprintf(cap, sizeof cap, "capacity H, time_limit_ms %lld", (long long)o->exact_ms);
  const cfg c = {"exact, capacity H", "exact", 0, o->exact_ms, false, (int64_t)HARD_H};
  uint32_t count = o->hard_count < 20 ? o->hard_count : 20, nmin = 100, nmax = 300;
  if (o->smoke) nmin = 20, nmax = 40;
  hard_stats *st = calloc(1, sizeof *st);
  mp_buf rows;
  mp_buf_init(&rows);
  mp_buf_puts(&rows, "| # | n | distinct lifetimes | distinct sizes | height / H | nodes | s |\n"
                     "|---:|---:|---:|---:|---:|---:|---:|\n");
  for (uint32_t k = 0; k < count; k++) {
    uint32_t n = count > 1 ? nmin + (uint32_t)((uint64_t)(nmax - nmin) * k / (count - 1)) : nmin;
    uint32_t span = (4 * n + GRID_TIME_UNIT - 1) / GRID_TIME_UNIT * GRID_TIME_UNIT;
    mp_hardgen_params hp = {n, HARD_H, span, 16, 3000003u + k, GRID_TIME_UNIT};
    mp_item *items = calloc(n, sizeof *items);
    uint64_t *off = calloc(n, sizeof *off);
    if (mp_hardgen_make(&hp, items, NULL, NULL) != MP_OK) {
      fprintf(stderr, "bench: hardgen failed for n=%u (grid)\n", n);
      exit(1);
    }
    uint32_t lives = 0, sizes = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t j = 0, q = 0;
      while (j < i && (items[j].start != items[i].start || items[j].end != items[i].end)) j++;
      while (q < i && items[q].size != items[i].size) q++;
      lives += j == i;
      sizes += q == i;
    }
    mp_problem p = {n, items, 0};
    outcome r = run_hard(&c, &p, off, "grid hard instance", k, tg, st);
    mp_buf_printf(&rows, "| %u | %u | %u | %u | %.4f | %llu | %.3f |\n", k, n, lives, sizes,
                  (double)r.height / (double)HARD_H, (unsigned long long)r.iterations, r.wall);
    free(items);
    free(off);
    fflush(stdout);
  }
  mp_buf_printf(b, "## Grid hard instances\n\n");
  mp_buf_printf(b,
                "%u instances from hardgen as above (sizes in multiples of 16 bytes), but with "
                "every cut across time on a grid of %u steps, n spread evenly over [%u, %u], "
                "seeds 3000003 + k: many buffers share a lifetime, as in the problems compilers "
                "make, and exact finds them hard.  The optimum is exactly H.  exact answers the "
                "capacity question (a layout within H, or a proof that none exists).\n\n",
                count, GRID_TIME_UNIT, nmin, nmax);
  mp_buf_puts(b, "| planner | budget | at H | mean overshoot | max overshoot | median s | p90 s "
                 "| max s |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  hard_row(b, c.label, cap, st);
  mp_buf_printf(b, "\nexact: %u of %u instances hit the %lld ms time limit.\n", st->timed_out,
                st->n, (long long)o->exact_ms);
  mp_buf_puts(b, "\n");
  put_details(b, "Per instance", &rows);
  tg->grid_total = st->n;
  tg->grid_at_h = st->at_h;
  mp_buf_free(&rows);
  free(st);
}

/* ---- sections ----------------------------------------------------------------- */

/* The page's sections, in page order.  --only runs some of them and keeps
 * the others, and their targets rows, as the page already has them. */
enum {
  SEC_CORPUS = 1u << 0,
  SEC_INPLACE = 1u << 1,
  SEC_SCALE = 1u << 2,
  SEC_RATE = 1u << 3,
  SEC_HARD = 1u << 4,
  SEC_COARSE = 1u << 5,
  SEC_GRID = 1u << 6,
  SEC_MINIMALLOC = 1u << 7,
  SEC_PATCH = 1u << 8,
  SEC_ALL = (1u << 9) - 1,
};

static const struct {
  const char *name;    /* for --only */
  const char *heading; /* how its part of the page starts */
  void (*fn)(const opts *o, mp_buf *b, targets *tg);
} sections[] = {
    {"corpus", "## Corpus\n", corpus_section},
    {"in-place", "## In place", inplace_section},
    {"scale", "## Scale\n", scale_section},
    {"rate", "## hill_climb rate", rate_section},
    {"hard", "## Hard instances\n", hard_section},
    {"coarse", "## Coarse hard instances\n", coarse_section},
    {"grid", "## Grid hard instances\n", grid_section},
    {"minimalloc", "## MiniMalloc's", minimalloc_section},
    {"patch", "## Patch-based inference", patch_section},
};
enum { N_SECTIONS = sizeof sections / sizeof sections[0] };

/* The targets table's rows, in page order, by how their first cell starts,
 * with the sections whose measurements they report: a row is taken from a
 * run of some sections only when every one of those ran. */
static const struct {
  const char *key;
  unsigned from;
} target_rows[] = {
    {"| hill_climb reaches the lower bound", SEC_CORPUS},
    {"| greedy and greedy_by_size plan 100k", SEC_SCALE},
    {"| greedy_by_size plans the dense random", SEC_SCALE},
    {"| greedy_by_size plans the random_wide", SEC_SCALE},
    {"| every run with time_limit_ms", SEC_SCALE | SEC_HARD | SEC_COARSE | SEC_GRID | SEC_MINIMALLOC},
    {"| hill_climb >= 10 000", SEC_RATE},
    {"| exact (issue 9): every corpus arena", SEC_CORPUS},
    {"| exact (issue 9): >= 95", SEC_HARD},
    {"| exact at its default limit packs random", SEC_SCALE},
    {"| exact at its default limit is no worse", SEC_SCALE},
    {"| exact with capacity H packs every coarse", SEC_COARSE},
    {"| exact with capacity H on the grid", SEC_GRID},
    {"| exact with MiniMalloc's capacity", SEC_MINIMALLOC},
    {"| exact with the capacity at least as fast as MiniMalloc", SEC_MINIMALLOC},
    {"| exact at least as fast as MiniMalloc", SEC_MINIMALLOC},
    {"| in place:", SEC_INPLACE},
    {"| patch:", SEC_PATCH},
};

/* --only's list ("in-place,corpus") as a mask; 0 on an unknown name. */
static unsigned parse_sections(const char *v) {
  unsigned mask = 0;
  while (*v) {
    size_t l = strcspn(v, ",");
    unsigned bit = 0;
    for (int k = 0; k < N_SECTIONS; k++)
      if (strlen(sections[k].name) == l && !strncmp(v, sections[k].name, l)) bit = 1u << k;
    if (!bit) return 0;
    mask |= bit;
    v += l + (v[l] == ',');
  }
  return mask;
}

/* The part of `page` from the line that starts with `heading` to the next
 * "## " line (or the end): its start in *at and its length; false when the
 * page has no such part. */
static bool page_part(const char *page, const char *heading, const char **at, size_t *len) {
  for (const char *p = page; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, heading, strlen(heading))) continue;
    const char *e = strchr(p, '\n');
    while (e && strncmp(e + 1, "## ", 3)) e = strchr(e + 1, '\n');
    *at = p;
    *len = e ? (size_t)(e + 1 - p) : strlen(p);
    return true;
  }
  return false;
}

/* Append the lines of the targets part of `page` that start with `key`. */
static void put_rows(mp_buf *b, const char *page, const char *key) {
  const char *t;
  size_t len;
  if (!page_part(page, "## Targets", &t, &len)) return;
  for (const char *p = t, *end = t + len; p < end;) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    size_t l = e ? (size_t)(e + 1 - p) : (size_t)(end - p);
    if (!strncmp(p, key, strlen(key))) mp_buf_append(b, p, l);
    p += l;
  }
}

/* A run of some sections (--only): the page `old` with those sections and
 * their targets rows replaced by this run's (`page`, written as a whole run
 * writes it), every other part kept as it is; `note` joins the header's
 * list, and `mark` goes under the heading of each section this run wrote.
 * False when `old` is not a page of this benchmark. */
static bool merge_page(mp_buf *b, const char *old, const char *page, unsigned ran,
                       const char *note, const char *mark) {
  const char *t, *at;
  size_t len;
  if (!page_part(old, "## Targets", &t, &len)) return false;
  /* the header, with the note after the last line of its list */
  const char *head_end = t;
  for (const char *p = old; p && p < t; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (!strncmp(p, "- ", 2)) head_end = strchr(p, '\n') + 1;
  mp_buf_append(b, old, (size_t)(head_end - old));
  mp_buf_printf(b, "%s\n", note);
  mp_buf_append(b, head_end, (size_t)(t - head_end));
  mp_buf_puts(b, "## Targets\n\n| target | measured | |\n|---|---|---|\n");
  for (size_t k = 0; k < sizeof target_rows / sizeof target_rows[0]; k++)
    put_rows(b, (target_rows[k].from & ~ran) ? old : page, target_rows[k].key);
  mp_buf_puts(b, "\n");
  for (int k = 0; k < N_SECTIONS; k++) {
    bool fresh = ran & (1u << k);
    if (!page_part(fresh ? page : old, sections[k].heading, &at, &len)) continue;
    if (fresh) {
      /* the heading line and its blank line, the mark, the rest */
      const char *body = strstr(at, "\n\n");
      size_t h = body && body < at + len ? (size_t)(body + 2 - at) : len;
      mp_buf_append(b, at, h);
      mp_buf_printf(b, "%s\n\n", mark);
      mp_buf_append(b, at + h, len - h);
    } else {
      mp_buf_append(b, at, len);
    }
  }
  /* the recorded comparison at the end, as this run appends it */
  if (page_part(page, "## Before", &at, &len) || page_part(old, "## Before", &at, &len))
    mp_buf_append(b, at, len);
  return true;
}

int main(int argc, char **argv) {
  opts o = {.models = "../shared/models",
            .runs = 5,
            .hard_count = 40,
            .hard_nmin = 100,
            .hard_nmax = 500,
            .exact_ms = 10000,
            .scale_exact_ms = 1000};
  o.n_sizes = parse_sizes("1000,10000,100000", o.sizes, MAX_SIZES);
  bool sizes_set = false, runs_set = false, models_set = false;
  const char *only_arg = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--smoke")) {
      o.smoke = true;
      continue;
    }
    if (i + 1 >= argc) {
      usage();
      return 2;
    }
    const char *v = argv[++i];
    if (!strcmp(a, "--out")) o.out = v;
    else if (!strcmp(a, "--models")) o.models = v, models_set = true;
    else if (!strcmp(a, "--example") && o.n_examples < 16) o.examples[o.n_examples++] = v;
    else if (!strcmp(a, "--held-out")) {
      if (o.n_held_out == MAX_HELD_OUT) {
        fprintf(stderr, "bench: more than %d --held-out models\n", MAX_HELD_OUT);
        return 2;
      }
      o.held_out[o.n_held_out++] = v;
    }
    else if (!strcmp(a, "--runs")) o.runs = atoi(v), runs_set = true;
    else if (!strcmp(a, "--sizes")) o.n_sizes = parse_sizes(v, o.sizes, MAX_SIZES), sizes_set = true;
    else if (!strcmp(a, "--hard-count")) o.hard_count = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--hard-n-min")) o.hard_nmin = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--hard-n-max")) o.hard_nmax = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--exact-ms")) o.exact_ms = strtoll(v, NULL, 10);
    else if (!strcmp(a, "--scale-exact-ms")) o.scale_exact_ms = strtoll(v, NULL, 10);
    else if (!strcmp(a, "--compiler")) o.compiler = v;
    else if (!strcmp(a, "--flags")) o.flags = v;
    else if (!strcmp(a, "--before")) o.before = v;
    else if (!strcmp(a, "--minimalloc")) o.minimalloc = v;
    else if (!strcmp(a, "--minimalloc-bin")) o.minimalloc_bin = v;
    else if (!strcmp(a, "--only")) {
      if (!(o.only = parse_sections(v))) {
        fprintf(stderr, "bench: --only %s: not a list of sections (corpus, in-place, scale, "
                        "rate, hard, coarse, grid, minimalloc, patch)\n", v);
        return 2;
      }
      only_arg = v;
    } else {
      usage();
      return 2;
    }
  }
  if (o.smoke) {
    /* seconds, even under sanitizers: the tables, not the numbers */
    if (!runs_set) o.runs = 1;
    if (!sizes_set) o.n_sizes = parse_sizes("100,1000", o.sizes, MAX_SIZES);
    if (!models_set) o.models = NULL;
    o.hard_count = 3;
    o.hard_nmin = 20;
    o.hard_nmax = 40;
    o.exact_ms = 200;
    o.scale_exact_ms = 100;
  }
  if (o.only && !o.out) {
    fprintf(stderr, "bench: --only rewrites part of a page: give it with --out FILE\n");
    return 2;
  }
  if (o.n_examples == 0) o.examples[o.n_examples++] = "examples/kws/kws.tflite";
  if (o.runs < 1) o.runs = 1;
  if (o.runs > MAX_RUNS) o.runs = MAX_RUNS;
  if (o.n_sizes < 1 || o.hard_count < 1 || o.hard_nmin < 1 || o.hard_nmax < o.hard_nmin ||
      o.exact_ms < 1 || o.scale_exact_ms < 1) {
    usage();
    return 2;
  }

  char cpu[256], os[700], load0[64], load1[64], date[64];
  cpu_model(cpu, sizeof cpu);
  os_name(os, sizeof os);
  load_avg(load0, sizeof load0);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  double t0 = clock_s(CLOCK_MONOTONIC);

  targets tg = {0};
  mp_buf parts[N_SECTIONS];
  unsigned run = o.only ? o.only : SEC_ALL;
  for (int k = 0; k < N_SECTIONS; k++) {
    mp_buf_init(&parts[k]);
    /* a smoke run measures MiniMalloc's instances only when asked */
    if (!(run & (1u << k)) || ((1u << k) == SEC_MINIMALLOC && o.smoke && !o.minimalloc)) continue;
    fprintf(stderr, "bench: %s\n", sections[k].name);
    sections[k].fn(&o, &parts[k], &tg);
  }
  load_avg(load1, sizeof load1);
  double total = clock_s(CLOCK_MONOTONIC) - t0;

  mp_buf b;
  mp_buf_init(&b);
  mp_buf_printf(&b, "# memplan benchmark results%s\n\n", o.smoke ? " (smoke run: tiny sizes)" : "");
  mp_buf_printf(&b, "Written by `make bench` (bench/run.sh, tools/bench.c); do not edit by hand.\n\n");
  mp_buf_printf(&b, "- date: %s; the run took %.0f s\n", date, total);
  mp_buf_printf(&b, "- machine: %s, %ld cores online (%ld configured)\n", cpu,
                sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF));
  mp_buf_printf(&b, "- OS: %s\n", os);
#ifdef __VERSION__
  mp_buf_printf(&b, "- compiler: %s\n", o.compiler ? o.compiler : __VERSION__);
#else
  mp_buf_printf(&b, "- compiler: %s\n", o.compiler ? o.compiler : "unknown");
#endif
  mp_buf_printf(&b, "- flags: `%s`\n", o.flags ? o.flags : "(not given)");
  mp_buf_printf(&b, "- memplan %s; load average %s at the start, %s at the end\n\n", MP_VERSION,
                load0, load1);
  mp_buf_printf(&b,
                "**The machine is shared and noisy**: other jobs run beside the benchmark, so "
                "wall times can stretch (the CPU times beside them are less affected).  Times "
                "are medians of %d runs measured side by side in this one run; compare them "
                "within this page, not across runs.\n\n",
                o.runs);

  mp_buf_printf(&b, "## Targets\n\n| target | measured | |\n|---|---|---|\n");
  mp_buf_printf(&b, "| hill_climb reaches the lower bound on every corpus model | %d of %d | %s |\n",
                tg.corpus_at_lb, tg.corpus_models,
                pass(tg.corpus_models > 0 && tg.corpus_at_lb == tg.corpus_models));
  if (tg.plan100k_n >= 100000) {
    mp_buf_printf(&b,
                  "| greedy and greedy_by_size plan 100k tensors in < 1 s (chain, cnn, "
                  "transformer) | slowest median %.0f ms, %.0f ms of CPU (of 3 families x 2 "
                  "planners at %zu items) | %s |\n",
                  tg.plan100k_worst_s * 1e3, tg.plan100k_worst_cpu_s * 1e3, tg.plan100k_n,
                  pass(tg.plan100k_worst_s < 1.0));
    mp_buf_printf(&b,
                  "| greedy_by_size plans the dense random family at 100k in <= 2 s | median "
                  "%.0f ms, %.0f ms of CPU | %s |\n",
                  tg.random100k_by_size_s * 1e3, tg.random100k_by_size_cpu_s * 1e3,
                  pass(tg.random100k_by_size_s <= 2.0));
    mp_buf_printf(&b,
                  "| greedy_by_size plans the random_wide family (many distinct times) at 100k "
                  "in <= 2 s | median %.0f ms, %.0f ms of CPU | %s |\n",
                  tg.wide100k_by_size_s * 1e3, tg.wide100k_by_size_cpu_s * 1e3,
                  pass(tg.wide100k_by_size_s <= 2.0));
  } else {
    mp_buf_printf(&b,
                  "| greedy and greedy_by_size plan 100k tensors in < 1 s | not measured (largest "
                  "size %zu) | - |\n",
                  tg.plan100k_n);
  }
  mp_buf_printf(&b,
                "| every run with time_limit_ms t returns within t + 10 %% + 50 ms (exact and "
                "hill_climb at scale, exact on the hard instances) | %d of %d runs over; "
                "closest: %s (%.0f %% of the allowance) | %s |\n",
                tg.limit_over, tg.limit_runs, tg.limit_worst[0] ? tg.limit_worst : "-",
                100 * tg.limit_worst_ratio, pass(tg.limit_runs > 0 && tg.limit_over == 0));
  mp_buf_printf(&b, "| hill_climb >= 10 000 iterations/s at 100 tensors | slowest %.0f moves/s "
                    "(end to end, exact tail included) | %s |\n",
                tg.rate_min, pass(tg.rate_min >= 10000));
  mp_buf_printf(&b, "| exact (issue 9): every corpus arena proven optimal in < 100 ms | %d of %d "
                    "proven, slowest %.3f ms | %s |\n",
                tg.exact_proven, tg.exact_models, tg.exact_corpus_worst_s * 1e3,
                pass(tg.exact_models > 0 && tg.exact_proven == tg.exact_models &&
                     tg.exact_corpus_worst_s < 0.1));
  mp_buf_printf(&b, "| exact (issue 9): >= 95 %% of hard instances packed at H within %lld ms | "
                    "%u of %u (%.0f %%) | %s |\n",
                (long long)o.exact_ms, tg.hard_exact_at_h, tg.hard_total,
                tg.hard_total ? 100.0 * tg.hard_exact_at_h / tg.hard_total : 0,
                pass(tg.hard_total > 0 && tg.hard_exact_at_h * 100 >= 95 * tg.hard_total));
  if (tg.random10k_exact_ratio > 0)
    mp_buf_printf(&b, "| exact at its default limit packs random 10k within 1.0077 x the lower "
                      "bound | %.4f | %s |\n",
                  tg.random10k_exact_ratio, pass(tg.random10k_exact_ratio <= 1.0077));
  if (tg.cnn_n >= 100000 && tg.cnn_hc_h && tg.cnn_exact_h)
    mp_buf_printf(&b, "| exact at its default limit is no worse than hill_climb at cnn %zu | "
                      "exact %llu B, hill_climb %llu B | %s |\n",
                  tg.cnn_n, (unsigned long long)tg.cnn_exact_h, (unsigned long long)tg.cnn_hc_h,
                  pass(tg.cnn_exact_h <= tg.cnn_hc_h));
  if (tg.coarse_total)
    mp_buf_printf(&b, "| exact with capacity H packs every coarse hard instance (many equal sizes) "
                      "at H | %u of %u, slowest %.3f s | %s |\n",
                  tg.coarse_at_h, tg.coarse_total, tg.coarse_max_s,
                  pass(tg.coarse_at_h == tg.coarse_total));
  if (tg.grid_total)
    mp_buf_printf(&b, "| exact with capacity H on the grid hard instances (many buffers share a "
                      "lifetime): packed at H within %lld ms | %u of %u | measured (no target) |\n",
                  (long long)o.exact_ms, tg.grid_at_h, tg.grid_total);
  if (tg.mm_total) {
    mp_buf_printf(&b, "| exact with MiniMalloc's capacity answers each of its challenging instances "
                      "| %d of %d | %s |\n",
                  tg.mm_solved, tg.mm_total, pass(tg.mm_solved == tg.mm_total));
    if (tg.mm_compared)
      mp_buf_printf(&b, "| exact with the capacity at least as fast as MiniMalloc, side by side, on "
                        "each challenging instance and in total | %d of %d; slowest ratio %s; "
                        "total %.2f s against %.2f s | %s |\n",
                    tg.mm_faster, tg.mm_compared, tg.mm_slowest[0] ? tg.mm_slowest : "-",
                    tg.mm_sum_s, tg.mm_ref_sum_s,
                    pass(tg.mm_faster == tg.mm_compared && tg.mm_sum_s <= tg.mm_ref_sum_s));
    else
      mp_buf_puts(&b, "| exact with the capacity at least as fast as MiniMalloc | not measured "
                      "(MiniMalloc not run beside it: --minimalloc-bin) | - |\n");
  } else {
    mp_buf_puts(&b, "| exact at least as fast as MiniMalloc on each of its challenging instances | "
                    "not measured (set MINIMALLOC_DIR) | - |\n");
  }
  mp_buf_printf(&b, "| in place: int8 VWW and person detection scratch <= 40 960 B, every planner | "
                    "%d of %d plans | %s |\n",
                tg.ip_vww_ok, tg.ip_vww_total, pass(tg.ip_vww_total > 0 && tg.ip_vww_ok == tg.ip_vww_total));
  mp_buf_printf(&b, "| in place: MobileNetV2 with explicit PADs >= 45 %% below its tensor-level "
                    "bound (best planner) | %d of %d models | %s |\n",
                tg.ip_mnv2_ok, tg.ip_mnv2_total,
                pass(tg.ip_mnv2_total > 0 && tg.ip_mnv2_ok == tg.ip_mnv2_total));
  mp_buf_printf(&b, "| in place: hill_climb at or below the tensor-level bound on every model | "
                    "%d of %d | %s |\n",
                tg.ip_hc_within_lb, tg.ip_models,
                pass(tg.ip_models > 0 && tg.ip_hc_within_lb == tg.ip_models));
  mp_buf_printf(&b, "| in place: no plan above the tensor-level bound, every planner and model | "
                    "%d of %d plans%s%s | %s |\n",
                tg.ip_within_lb, tg.ip_plans, tg.ip_above[0] ? "; above: " : "", tg.ip_above,
                pass(tg.ip_plans > 0 && tg.ip_within_lb == tg.ip_plans));
  mp_buf_printf(&b, "| in place: planning time within 2x of plain (greedy, hill_climb) | worst "
                    "median ratio %.2f | %s |\n\n",
                tg.ip_time_ratio, pass(tg.ip_models > 0 && tg.ip_time_ratio <= 2.0));
  /* the in-place rows end the table with a blank line: the patch rows go before it */
  if (b.len && b.data[b.len - 1] == '\n' && b.len > 1 && b.data[b.len - 2] == '\n') b.len--;
  mp_buf_printf(&b, "| patch: no model above its in-place plan with memory.patch auto (greedy) | "
                    "%d of %d%s%s | %s |\n",
                tg.pt_not_above, tg.pt_models, tg.pt_above[0] ? "; above: " : "", tg.pt_above,
                pass(tg.pt_models > 0 && tg.pt_not_above == tg.pt_models));
  if (tg.pt_mnv2)
    mp_buf_printf(&b, "| patch: MobileNetV2 224x224 int8 scratch, input included, <= 163 840 B "
                      "(below MCUNetV2's 172 KiB) | %llu B, %s, +%.2f %% MACs | %s |\n",
                  (unsigned long long)tg.pt_mnv2_bytes,
                  tg.pt_mnv2_stage[0] ? tg.pt_mnv2_stage : "no stage", tg.pt_mnv2_macs,
                  pass(tg.pt_mnv2_bytes <= 163840));
  else
    mp_buf_puts(&b, "| patch: MobileNetV2 224x224 int8 scratch, input included, <= 163 840 B | "
                    "not measured (no held-out mobilenet_v2_224) | - |\n");
  mp_buf_printf(&b, "| patch: models at 192x192 or more at most a third of their tensor-level "
                    "bound | %d of %d%s%s | %s |\n",
                tg.pt_hires_third, tg.pt_hires, tg.pt_hires_worst[0] ? "; worst " : "",
                tg.pt_hires_worst, tg.pt_hires ? pass(tg.pt_hires_third == tg.pt_hires) : "-");
  mp_buf_puts(&b, "| patch: the halos' recomputation at most 15 % more instructions on the "
                  "Cortex-M55 | not measured here (`memplan profile`, README) | - |\n\n");

  for (int k = 0; k < N_SECTIONS; k++)
    mp_buf_append(&b, parts[k].data ? parts[k].data : "", parts[k].len);
  if (o.before) {
    uint8_t *text = NULL;
    size_t len = 0;
    if (mp_read_file(o.before, &text, &len, NULL) == MP_OK) {
      mp_buf_append(&b, (const char *)text, len);
      free(text);
    }
  }
  int rc = 0;
  if (o.only && !b.failed) {
    /* keep every other section of the page as it is */
    uint8_t *text = NULL;
    size_t len = 0;
    char *old = NULL;
    if (mp_read_file(o.out, &text, &len, NULL) == MP_OK && (old = malloc(len + 1))) {
      memcpy(old, text, len);
      old[len] = '\0';
    }
    free(text);
    mp_buf m;
    mp_buf_init(&m);
    char note[512], mark[256];
    snprintf(note, sizeof note,
             "- %s: a run of some sections only (`--only %s`, %.1f s, load average %s at the "
             "start, %s at the end, medians of %d runs) regenerated them and their targets rows; "
             "every other section and row is as the runs above left it",
             date, only_arg, total, load0, load1, o.runs);
    snprintf(mark, sizeof mark,
             "*Regenerated %s by a run of some sections only (`--only %s`); the header lists "
             "when the rest of the page was measured.*", date, only_arg);
    if (!old || !merge_page(&m, old, b.data ? b.data : "", o.only, note, mark)) {
      fprintf(stderr, "bench: --only keeps the other sections of the page it rewrites: %s is "
                      "missing or not a page of this benchmark\n", o.out);
      rc = 1;
    }
    free(old);
    mp_buf_free(&b);
    b = m;
  }
  if (rc) {
    /* said above; nothing written */
  } else if (b.failed) {
    fprintf(stderr, "bench: out of memory\n");
    rc = 1;
  } else if (o.out) {
    if (mp_write_file(o.out, b.data, b.len, NULL) != MP_OK) {
      fprintf(stderr, "bench: cannot write %s\n", o.out);
      rc = 1;
    } else {
      fprintf(stderr, "bench: wrote %s\n", o.out);
    }
  } else {
    fwrite(b.data, 1, b.len, stdout);
  }
  mp_buf_free(&b);
  for (int k = 0; k < N_SECTIONS; k++) mp_buf_free(&parts[k]);
  return rc;
}
