/*
 * planbench.c — micro benchmark of the single-arena planners (not a test).
 *
 *   build/release/planbench [--runs N] [--sizes 1000,10000,100000]
 *                           [--planners greedy,greedy_by_size,hill_climb]
 *                           [--hill-climb-max N]
 *   build/release/planbench --csv FAMILY N SEED
 *
 * Generates synthetic offset-assignment problems in four families and
 * prints, per family, size and planner, the median wall time of N runs
 * (in-process, monotonic clock) and the height over the lower bound; then
 * hill_climb's rate in iterations per second on 100-item problems.
 * hill_climb costs O(iterations x n) placements, about a minute at 100 000
 * items with the default options, so sizes above --hill-climb-max (default
 * 10000) skip it unless asked for.
 *
 * Families: chain, cnn, transformer, random and random_wide of
 * tests/support/gen/synth.h (sizes rounded up to 16 bytes, alignment 16).
 *
 * --csv writes the problem (FAMILY, N, SEED) of synth.h to stdout in the
 * CSV `memplan solve` reads, and does nothing else: the way to hand a
 * synthetic problem to the CLI.
 *
 * The generators are pure functions of their seeds, so the problems are
 * the same on every run and machine.  Not part of the test
 * suite: it prints numbers, it checks nothing but the planners' status.
 */
#include "hardgen.h"
#include "memplan.h"
#include "synth.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct gen {
  mp_item *items;
  size_t n;
} gen;

typedef struct family {
  const char *name;
  mp_synth_family f;
} family;

static const family families[] = {
    {"chain", MP_SYNTH_CHAIN},
    {"cnn", MP_SYNTH_CNN},
    {"transformer", MP_SYNTH_TRANSFORMER},
    {"random", MP_SYNTH_RANDOM},
    {"random_wide", MP_SYNTH_RANDOM_WIDE},
};

/* --csv FAMILY N SEED: the problem as `memplan solve` CSV on stdout. */
static int write_csv(const char *name, const char *n_str, const char *seed_str) {
  int f = 0;
  while (f < MP_SYNTH_COUNT && strcmp(mp_synth_name((mp_synth_family)f), name)) f++;
  char *e1, *e2;
  size_t n = (size_t)strtoull(n_str, &e1, 10);
  uint64_t seed = strtoull(seed_str, &e2, 0);
  if (f == MP_SYNTH_COUNT || *e1 || *e2 || n == 0) {
    fprintf(stderr, "planbench: --csv needs a family (chain, cnn, transformer, random, "
                    "random_wide), a positive count and a seed\n");
    return 2;
  }
  mp_item *items = calloc(n, sizeof *items);
  mp_buf b = {0};
  if (!items) return 1;
  mp_synth_make((mp_synth_family)f, n, seed, items);
  mp_hardgen_write_csv(items, n, &b);
  int rc = b.failed || fwrite(b.data, 1, b.len, stdout) != b.len ? 1 : 0;
  mp_buf_free(&b);
  free(items);
  return rc;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared machine the wall time also counts
 * the time other processes held the cores. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Split a comma list into at most `max` entries (the string is modified). */
static int split(char *s, char **out, int max) {
  int n = 0;
  for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
  return n;
}

int main(int argc, char **argv) {
  int runs = 5;
  size_t hc_max = 10000;
  char sizes_buf[256] = "1000,10000,100000";
  char planners_buf[256] = "greedy,greedy_by_size,hill_climb";
  if (argc == 5 && !strcmp(argv[1], "--csv")) return write_csv(argv[2], argv[3], argv[4]);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
      snprintf(sizes_buf, sizeof sizes_buf, "%s", argv[++i]);
    else if (!strcmp(argv[i], "--planners") && i + 1 < argc)
      snprintf(planners_buf, sizeof planners_buf, "%s", argv[++i]);
    else if (!strcmp(argv[i], "--hill-climb-max") && i + 1 < argc)
      hc_max = (size_t)strtoull(argv[++i], NULL, 10);
    else {
      fprintf(stderr,
              "usage: planbench [--runs N] [--sizes 1000,10000,100000] "
              "[--planners greedy,greedy_by_size,hill_climb] [--hill-climb-max N]\n"
              "       planbench --csv FAMILY N SEED\n");
      return 2;
    }
  }
  if (runs < 1) runs = 1;
  char *size_str[16], *planner_str[16];
  int n_sizes = split(sizes_buf, size_str, 16), n_planners = split(planners_buf, planner_str, 16);

  printf("planbench: median of %d runs, wall time in-process (CLOCK_MONOTONIC)\n", runs);
#ifdef __VERSION__
  printf("compiler: %s%s\n", __VERSION__,
#ifdef __OPTIMIZE__
         ", optimized"
#else
         ", not optimized"
#endif
  );
#endif
  printf("%-12s %8s %-16s %12s %12s %12s %12s %8s %10s\n", "family", "items", "planner",
         "median_ms", "cpu_ms", "height", "lower_bound", "ratio", "iterations");
  double *t = malloc((size_t)runs * sizeof *t), *c = malloc((size_t)runs * sizeof *c);
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
    for (int si = 0; si < n_sizes; si++) {
      size_t n = (size_t)strtoull(size_str[si], NULL, 10);
      gen g = {calloc(n ? n : 1, sizeof(mp_item)), n};
      mp_synth_make(families[f].f, n, 0x5eed0000u + f * 1000003u + n, g.items);
      mp_problem p = {g.n, g.items, 0};
      uint64_t *off = malloc((g.n ? g.n : 1) * sizeof *off);
      for (int pi = 0; pi < n_planners; pi++) {
        const mp_planner *pl = mp_planner_find(planner_str[pi]);
        if (!pl) {
          fprintf(stderr, "planbench: unknown planner '%s'\n", planner_str[pi]);
          return 2;
        }
        mp_solution sol = {.offsets = off};
        if (!strcmp(pl->name, "hill_climb") && g.n > hc_max) {
          printf("%-12s %8zu %-16s %12s %12s   (skipped: above --hill-climb-max %zu)\n",
                 families[f].name, g.n, pl->name, "-", "-", hc_max);
          continue;
        }
        for (int r = 0; r < runs; r++) {
          double t0 = now_s(), c0 = cpu_s();
          mp_status st = mp_solve(pl, &p, NULL, 0, &sol, NULL);
          t[r] = now_s() - t0;
          c[r] = cpu_s() - c0;
          if (st != MP_OK) {
            fprintf(stderr, "planbench: %s failed: %s\n", pl->name, mp_status_str(st));
            return 1;
          }
        }
        printf("%-12s %8zu %-16s %12.3f %12.3f %12llu %12llu %8.4f %10llu\n", families[f].name,
               g.n, pl->name, median(t, runs) * 1e3, median(c, runs) * 1e3,
               (unsigned long long)sol.height,
               (unsigned long long)sol.lower_bound,
               sol.lower_bound ? (double)sol.height / (double)sol.lower_bound : 1.0,
               (unsigned long long)sol.iterations);
        fflush(stdout);
      }
      free(off);
      free(g.items);
    }
  }

  /* hill_climb's rate: a fixed number of moves with the stall limit off, on
   * 100-item problems of each family (the early stop at the lower bound
   * can end a run sooner; the rate counts the moves actually made) */
  static const family rate_families[] = {
      {"chain", MP_SYNTH_CHAIN},
      {"cnn", MP_SYNTH_CNN},
      {"transformer", MP_SYNTH_TRANSFORMER},
      {"random", MP_SYNTH_RANDOM},
  };
  const mp_planner *hc = mp_planner_find("hill_climb");
  printf("\nhill_climb rate at 100 items (iterations=20000, max_stall_iterations=0)\n");
  printf("%-12s %8s %12s %12s %12s %12s %14s %14s\n", "family", "items", "height",
         "lower_bound", "iterations", "median_ms", "iterations/s", "per_cpu_s");
  for (size_t f = 0; hc && f < sizeof rate_families / sizeof rate_families[0]; f++) {
    size_t n = 100;
    gen g = {calloc(n, sizeof(mp_item)), n};
    mp_synth_make(rate_families[f].f, n, 0xbe4c0000u + f, g.items);
    mp_problem p = {g.n, g.items, 0};
    uint64_t *off = malloc(g.n * sizeof *off);
    char k1[] = "iterations", k2[] = "max_stall_iterations";
    mp_option opts[] = {{k1, 20000}, {k2, 0}};
    mp_solution sol = {.offsets = off};
    double rate[64], cpu_rate[64];
    int r_runs = runs < 64 ? runs : 64;
    for (int r = 0; r < r_runs; r++) {
      double t0 = now_s(), c0 = cpu_s();
      mp_solve(hc, &p, opts, 2, &sol, NULL);
      t[r] = now_s() - t0;
      rate[r] = (double)sol.iterations / t[r];
      cpu_rate[r] = (double)sol.iterations / (cpu_s() - c0);
    }
    printf("%-12s %8zu %12llu %12llu %12llu %12.3f %14.0f %14.0f\n", rate_families[f].name, g.n,
           (unsigned long long)sol.height, (unsigned long long)sol.lower_bound,
           (unsigned long long)sol.iterations, median(t, r_runs) * 1e3, median(rate, r_runs),
           median(cpu_rate, r_runs));
    free(off);
    free(g.items);
  }
  free(t);
  free(c);
  return 0;
}
