/*
 * exactbench.c — benchmark of the `exact` planner (not a test).
 *
 *   build/release/exactbench [--count 40] [--n-min 100] [--n-max 500]
 *                            [--time-ms 10000] [--seed 1] [--unit 16]
 *                            [--models DIR] [--corpus-ms 1000]
 *                            [--write-csv DIR] [--only K] [--no-hard]
 *                            [--no-corpus] [--time-unit 1]
 *
 * Part 1, hard instances: `count` instances from hardgen (a full H x T
 * rectangle cut into n pieces, n spread evenly over [n-min, n-max],
 * H = 2^20, T = 4 n, sizes multiples of `unit`; with --time-unit, T is
 * rounded up to a multiple of it and lifetimes start and end on that grid),
 * so the optimum is H by
 * construction.  Each is solved by exact with time_limit_ms = time-ms and
 * by greedy_by_size for comparison.  Prints one line per instance (time is
 * the whole planner call, start heuristics included; nodes are the exact
 * search's own, not those of hill_climb's exact tail) and the fraction
 * packed at exactly H, the time distribution (median, p90, max) and the
 * peak RSS of the process (getrusage).
 *
 * Part 2, corpus arenas: every model in DIR (default ../shared/models);
 * items are the tensors that need a scratch slot (mp_graph_needs_slot),
 * size rounded up to 16, alignment 16, lifetime g->storage[t].  Prints the
 * proven interval and the time per arena.
 *
 * Every layout is checked here by an overlap / alignment check that shares
 * no code with the planner.  --write-csv writes each hard instance as
 * DIR/hard_<k>_n<n>.csv for `memplan solve`; --only K runs instance K alone
 * (for a clean peak RSS).
 */
#include "hardgen.h"
#include "memplan.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* An independent check: aligned offsets, no two overlapping items share a
 * byte.  O(n^2), fine at benchmark sizes.  Returns the height or 0 on a
 * violation (printed). */
static uint64_t check_layout(const mp_item *it, size_t n, const uint64_t *off) {
  uint64_t h = 0;
  for (size_t i = 0; i < n; i++) {
    if (off[i] % it[i].align) {
      printf("  INVALID: item %u misaligned\n", it[i].id);
      return 0;
    }
    if (off[i] + it[i].size > h) h = off[i] + it[i].size;
    for (size_t j = i + 1; j < n; j++) {
      bool t = it[i].start <= it[j].end && it[j].start <= it[i].end;
      bool s = off[i] < off[j] + it[j].size && off[j] < off[i] + it[i].size;
      if (t && s && it[i].size && it[j].size) {
        printf("  INVALID: items %u and %u overlap\n", it[i].id, it[j].id);
        return 0;
      }
    }
  }
  return h;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double p) {
  if (n == 0) return 0;
  qsort(v, n, sizeof *v, cmp_double);
  size_t k = (size_t)(p * (double)(n - 1) + 0.5);
  return v[k];
}

static long peak_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

typedef struct run_out {
  uint64_t height, lower, upper, nodes;
  bool timed_out, valid;
  double secs;
} run_out;

static run_out run_planner(const char *name, const mp_item *items, size_t n, uint64_t time_ms) {
  run_out r = {0};
  const mp_planner *pl = mp_planner_find(name);
  uint64_t *off = calloc(n ? n : 1, sizeof *off);
  mp_problem p = {n, items, 0};
  mp_option opt = {(char *)"time_limit_ms", (int64_t)time_ms};
  mp_solution sol = {.offsets = off};
  double t0 = now_s();
  mp_status st = mp_solve(pl, &p, &opt, strcmp(name, "exact") ? 0 : 1, &sol, NULL);
  r.secs = now_s() - t0;
  if (st == MP_OK) {
    r.height = sol.height;
    r.lower = sol.proven_lower;
    r.upper = sol.proven_upper;
    r.nodes = sol.iterations;
    r.timed_out = sol.timed_out;
    r.valid = check_layout(items, n, off) == sol.height && sol.proven_lower <= sol.proven_upper &&
              sol.proven_upper == sol.height;
  } else {
    printf("  %s failed: %s\n", name, mp_status_str(st));
  }
  free(off);
  return r;
}

static int write_csv(const char *dir, uint32_t k, const mp_item *items, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/hard_%02u_n%zu.csv", dir, k, n);
  mp_buf b;
  mp_buf_init(&b);
  mp_hardgen_write_csv(items, n, &b);
  FILE *f = fopen(path, "w");
  if (!f || fwrite(mp_buf_str(&b), 1, b.len, f) != b.len) {
    fprintf(stderr, "exactbench: cannot write %s\n", path);
    if (f) fclose(f);
    mp_buf_free(&b);
    return 1;
  }
  fclose(f);
  mp_buf_free(&b);
  return 0;
}

static int hard_part(uint32_t count, uint32_t nmin, uint32_t nmax, uint64_t time_ms, uint64_t seed,
                     uint32_t unit, uint32_t time_unit, const char *csv_dir, int only) {
  printf("## Hard instances (optimum H = 2^20 by construction), exact time limit %llu ms\n\n",
         (unsigned long long)time_ms);
  printf("| # | n | greedy_by_size/H | exact height/H | proven [lower, upper] | timed out | "
         "nodes | time s |\n|---|---|---|---|---|---|---|---|\n");
  double *times = calloc(count, sizeof *times);
  uint32_t at_h = 0, ran = 0, gbs_at_h = 0;
  double gbs_over = 0;
  for (uint32_t k = 0; k < count; k++) {
    if (only >= 0 && (uint32_t)only != k) continue;
    uint32_t n = count > 1 ? nmin + (uint32_t)((uint64_t)(nmax - nmin) * k / (count - 1)) : nmin;
    uint32_t tu = time_unit ? time_unit : 1, span = (4 * n + tu - 1) / tu * tu;
    mp_hardgen_params hp = {n, 1u << 20, span, unit, seed * 1000003u + k, tu};
    mp_item *items = calloc(n, sizeof *items);
    if (mp_hardgen_make(&hp, items, NULL, NULL) != MP_OK) {
      printf("generator failed\n");
      return 1;
    }
    if (csv_dir && write_csv(csv_dir, k, items, n)) return 1;
    run_out g = run_planner("greedy_by_size", items, n, time_ms);
    run_out e = run_planner("exact", items, n, time_ms);
    if (!g.valid || !e.valid) {
      printf("INVALID layout on instance %u\n", k);
      return 1;
    }
    printf("| %u | %u | %.4f | %.4f | [%llu, %llu] | %s | %llu | %.3f |\n", k, n,
           (double)g.height / (double)hp.height, (double)e.height / (double)hp.height,
           (unsigned long long)e.lower, (unsigned long long)e.upper, e.timed_out ? "yes" : "no",
           (unsigned long long)e.nodes, e.secs);
    fflush(stdout);
    times[ran++] = e.secs;
    if (e.height == hp.height) at_h++;
    if (g.height == hp.height) gbs_at_h++;
    gbs_over += (double)g.height / (double)hp.height - 1;
    free(items);
  }
  printf("\nexact packed %u / %u at exactly H (%.1f %%); greedy_by_size %u / %u "
         "(mean overshoot %.2f %%)\n",
         at_h, ran, ran ? 100.0 * at_h / ran : 0, gbs_at_h, ran, ran ? 100 * gbs_over / ran : 0);
  printf("exact time: median %.3f s, p90 %.3f s, max %.3f s\n", pct(times, ran, 0.5),
         pct(times, ran, 0.9), pct(times, ran, 1.0));
  printf("peak RSS of the process: %ld KiB\n\n", peak_rss_kib());
  free(times);
  return 0;
}

static int corpus_part(const char *dir, uint64_t time_ms) {
  DIR *d = opendir(dir);
  if (!d) {
    printf("NOTICE: %s not found; corpus part skipped\n", dir);
    return 0;
  }
  char *names[256];
  size_t nn = 0;
  struct dirent *de;
  while ((de = readdir(d)) && nn < 256) {
    size_t l = strlen(de->d_name);
    if (l > 7 && !strcmp(de->d_name + l - 7, ".tflite")) names[nn++] = strdup(de->d_name);
  }
  closedir(d);
  for (size_t i = 0; i < nn; i++)
    for (size_t j = i + 1; j < nn; j++)
      if (strcmp(names[i], names[j]) > 0) {
        char *t = names[i];
        names[i] = names[j];
        names[j] = t;
      }
  printf("## Corpus scratch arenas (16-byte slots), exact time limit %llu ms\n\n",
         (unsigned long long)time_ms);
  printf("| model | slots | lower bound | greedy_by_size | exact [lower, upper] | optimal | "
         "time ms |\n|---|---|---|---|---|---|---|\n");
  uint32_t proven = 0, total = 0;
  double worst = 0;
  for (size_t i = 0; i < nn; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    mp_model *m = NULL;
    mp_graph *g = NULL;
    if (mp_model_load(path, NULL, &m) != MP_OK || mp_graph_build(m, 0, NULL, NULL, &g) != MP_OK) {
      printf("| %s | load failed | | | | | |\n", names[i]);
      mp_model_free(&m);
      free(names[i]);
      continue;
    }
    mp_item *items = calloc(g->n_tensors ? g->n_tensors : 1, sizeof *items);
    size_t n = mp_graph_scratch_items(g, 16, items);
    mp_problem p = {n, items, 0};
    run_out gb = run_planner("greedy_by_size", items, n, time_ms);
    run_out e = run_planner("exact", items, n, time_ms);
    if (!e.valid) {
      printf("INVALID layout on %s\n", names[i]);
      return 1;
    }
    bool opt = e.lower == e.upper;
    total++;
    proven += opt;
    if (e.secs > worst) worst = e.secs;
    printf("| %s | %zu | %llu | %llu | [%llu, %llu] | %s | %.2f |\n", names[i], n,
           (unsigned long long)mp_problem_lower_bound(&p), (unsigned long long)gb.height,
           (unsigned long long)e.lower, (unsigned long long)e.upper, opt ? "yes" : "no",
           e.secs * 1000);
    free(items);
    mp_graph_free(&g);
    mp_model_free(&m);
    free(names[i]);
  }
  printf("\n%u / %u corpus arenas proven optimal; slowest %.2f ms\n", proven, total, worst * 1000);
  return 0;
}

int main(int argc, char **argv) {
  uint32_t count = 40, nmin = 100, nmax = 500, unit = 16, time_unit = 1;
  uint64_t time_ms = 10000, seed = 1, corpus_ms = 1000;
  const char *models = "../shared/models", *csv_dir = NULL;
  int only = -1;
  bool hard = true, corpus = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-hard") || !strcmp(a, "--no-corpus")) {
      if (!strcmp(a, "--no-hard")) hard = false;
      else corpus = false;
      continue;
    }
    if (!v) {
      fprintf(stderr, "exactbench: %s needs a value\n", a);
      return 2;
    }
    i++;
    if (!strcmp(a, "--count")) count = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--n-min")) nmin = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--n-max")) nmax = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--time-ms")) time_ms = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--corpus-ms")) corpus_ms = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--unit")) unit = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--time-unit")) time_unit = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(a, "--models")) models = v;
    else if (!strcmp(a, "--write-csv")) csv_dir = v;
    else if (!strcmp(a, "--only")) only = atoi(v);
    else {
      fprintf(stderr, "exactbench: unknown option %s\n", a);
      return 2;
    }
  }
  if (count == 0 || nmin == 0 || nmax < nmin) {
    fprintf(stderr, "exactbench: need count >= 1 and 1 <= n-min <= n-max\n");
    return 2;
  }
  printf("# exactbench (memplan %s)\n\n", MP_VERSION);
  if (hard && hard_part(count, nmin, nmax, time_ms, seed, unit, time_unit, csv_dir, only)) return 1;
  if (only < 0 && corpus && corpus_part(models, corpus_ms)) return 1;
  return 0;
}
