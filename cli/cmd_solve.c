/*
 * cmd_solve.c — `memplan solve PROBLEM.csv [--planner P] [--planner-options
 * JSON] [--capacity BYTES] [--alignment N] [-o OUT.csv] [--verbose]
 * [--progress | --quiet]`.
 *
 * A plain offset-assignment entry point: memplan's planners on a problem
 * that is not a TFLite model (another framework's buffers, an instance
 * suite).  The library reads the CSV (mp_csv_problem_read), validates the
 * planner options (mp_planner_options_from_json), plans (mp_solve) and
 * formats the answer (mp_csv_solution_text); this file parses argv, checks
 * the answer independently before printing it, and maps the outcome to an
 * exit status: 0 solved, 1 above --capacity, 2 bad usage or input, 3 a
 * planner bug.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f) {
  fputs("usage: memplan solve PROBLEM.csv [options]\n"
        "\n"
        "Assign an offset to every buffer of an offset-assignment problem (static\n"
        "memory allocation) with memplan's planners.\n"
        "\n"
        "PROBLEM.csv has the header id,lower,upper,size: each buffer is live over the\n"
        "half-open interval [lower, upper) and needs `size` bytes; two buffers may\n"
        "share bytes only when their intervals are disjoint (MiniMalloc's names\n"
        "buffer,start,end,size are read too, and the output then uses them).  '-'\n"
        "reads standard input.  Blank lines and lines starting with '#' are ignored.\n"
        "\n"
        "  --planner P             the planner (default greedy), one of:\n",
        f);
  for (uint32_t i = 0; i < mp_planner_count(); i++) {
    const mp_planner *pl = mp_planner_at(i);
    fprintf(f, "                            %s", pl->name);
    for (uint32_t k = 0; k < pl->n_options; k++)
      fprintf(f, "%s%s=%lld", k ? ", " : " (options: ", pl->options[k].key,
              (long long)pl->options[k].def);
    fputs(pl->n_options ? ")\n" : "\n", f);
  }
  fputs("  --planner-options JSON  planner tunables, e.g. '{\"iterations\": 2000}'\n"
        "  --capacity BYTES        fail (exit status 1) when the height exceeds BYTES\n"
        "  --alignment N           offsets are multiples of N and sizes are rounded up\n"
        "                          to N (a power of two; default 1: no alignment)\n"
        "  -o, --output OUT.csv    write the solution to OUT.csv instead of standard\n"
        "                          output (then standard output gets the height line)\n"
        "  --verbose               say on stderr what the run did: planner, height,\n"
        "                          bounds, work and time (and show its progress)\n"
        "  --progress              show the progress of a run longer than a second on\n"
        "                          stderr even when it is not a terminal\n"
        "  -q, --quiet             no progress, even on a terminal\n"
        "\n"
        "Output: the header id,lower,upper,size,offset, every row as read with its\n"
        "offset, then the line '# height=H lower_bound=L planner=P'.  The exact\n"
        "planner adds '# proven_lower=A proven_upper=B optimal=yes|no timed_out=yes|no':\n"
        "the optimum lies in [A, B]; with --capacity it searches for a layout within\n"
        "it (or proves that none exists) instead of minimising.  When a time limit\n"
        "left no room for greedy_by_size, the usual start, a last line\n"
        "'# start=greedy' says the run started from start-order greedy.\n"
        "\n"
        "A run longer than a second shows its progress on stderr when stderr is a\n"
        "terminal: elapsed time, best height, proven bound, nodes or moves.\n"
        "\n"
        "exit status: 0 solved; 1 the height exceeds --capacity; 2 bad usage or a bad\n"
        "problem file (rows are reported as FILE:LINE); 3 internal error.\n",
        f);
}

typedef struct span {
  uint64_t off, top;
} span;

typedef struct event {
  int32_t t;
  uint32_t i;
  bool add;
} event;

static int cmp_event(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->add != y->add) return x->add ? 1 : -1; /* removals first: ends are exclusive here */
  return (x->i > y->i) - (x->i < y->i);
}

/* An independent check of the planner's answer (it shares nothing with the
 * planners): every offset aligned, and no two buffers that are live at the
 * same time overlap.  A sweep over time keeps the live buffers sorted by
 * offset; a newcomer only needs checking against its two neighbours.
 * Returns false and prints the offending pair on a violation. */
static bool check_solution(const mp_csv_problem *p, const mp_solution *sol) {
  const mp_item *it = p->items;
  for (size_t i = 0; i < p->n; i++)
    if (sol->offsets[i] % it[i].align) {
      fprintf(stderr, "memplan solve: internal error: buffer '%s' at offset %llu is not aligned to %u\n",
              p->ids[i], (unsigned long long)sol->offsets[i], it[i].align);
      return false;
    }
  event *ev = malloc((2 * p->n + 1) * sizeof *ev);
  uint32_t *live = malloc((p->n + 1) * sizeof *live);
  bool ok = ev && live;
  if (!ok) fputs("memplan solve: out of memory while checking the solution\n", stderr);
  size_t ne = 0, nl = 0;
  for (size_t i = 0; ok && i < p->n; i++) {
    if (it[i].size == 0) continue;
    ev[ne++] = (event){it[i].start, (uint32_t)i, true};
    ev[ne++] = (event){it[i].end + 1, (uint32_t)i, false}; /* end is inclusive */
  }
  if (ok) qsort(ev, ne, sizeof *ev, cmp_event);
  for (size_t k = 0; ok && k < ne; k++) {
    uint32_t i = ev[k].i;
    uint64_t off = sol->offsets[i];
    /* position among the live buffers, by offset (then index) */
    size_t a = 0, b = nl;
    while (a < b) {
      size_t mid = a + (b - a) / 2;
      uint64_t mo = sol->offsets[live[mid]];
      if (mo < off || (mo == off && live[mid] < i))
        a = mid + 1;
      else
        b = mid;
    }
    if (!ev[k].add) {
      memmove(live + a, live + a + 1, (nl - a - 1) * sizeof *live);
      nl--;
      continue;
    }
    uint32_t other = UINT32_MAX;
    if (a > 0 && sol->offsets[live[a - 1]] + it[live[a - 1]].size > off) other = live[a - 1];
    if (a < nl && off + it[i].size > sol->offsets[live[a]]) other = live[a];
    if (other != UINT32_MAX) {
      fprintf(stderr,
              "memplan solve: internal error: buffers '%s' (line %u) and '%s' (line %u) are live "
              "at the same time and overlap\n",
              p->ids[i], p->lines[i], p->ids[other], p->lines[other]);
      ok = false;
      break;
    }
    memmove(live + a + 1, live + a, (nl - a) * sizeof *live);
    live[a] = i;
    nl++;
  }
  free(ev);
  free(live);
  return ok;
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "memplan solve: error: cannot write '%s'\n", path);
    return CLI_EXIT_USAGE;
  }
  size_t len = strlen(text);
  bool ok = fwrite(text, 1, len, f) == len;
  ok = (fclose(f) == 0) && ok;
  if (!ok) {
    fprintf(stderr, "memplan solve: error: writing '%s' failed\n", path);
    remove(path);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

/* Read all of standard input; NULL on failure. */
static char *read_stdin(size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, stdin);
    n += got;
    if (n < cap) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      return NULL;
    }
    buf = nb;
    cap *= 2;
  }
  if (buf && ferror(stdin)) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* --verbose: what the run did, on stderr. */
static void print_run(const mp_planner *pl, size_t n, const mp_solution *sol, double secs) {
  fprintf(stderr, "memplan solve: %s on %zu buffers: height %llu B, lower bound %llu B", pl->name,
          n, (unsigned long long)sol->height, (unsigned long long)sol->lower_bound);
  if (sol->lower_bound)
    fprintf(stderr, " (%.4f x)", (double)sol->height / (double)sol->lower_bound);
  if (sol->proven_lower > sol->lower_bound || sol->proven_lower == sol->height)
    fprintf(stderr, ", proven %s", sol->proven_lower == sol->proven_upper ? "optimal" : "above");
  if (sol->proven_lower != sol->proven_upper && sol->proven_lower > sol->lower_bound)
    fprintf(stderr, " %llu B", (unsigned long long)sol->proven_lower);
  fprintf(stderr, ", %llu %s%s%s, %.3f s\n", (unsigned long long)sol->iterations,
          !strcmp(pl->name, "exact") ? "nodes" : !strcmp(pl->name, "hill_climb") ? "moves" : "passes",
          sol->timed_out ? ", cut by its time or node limit" : "",
          sol->cheap_start ? ", started from greedy (no time for greedy_by_size)" : "", secs);
}

int cmd_solve(cli *c, int argc, char **argv) {
  const char *path = NULL, *planner = "greedy", *options = NULL, *out_path = NULL;
  uint64_t capacity = 0, alignment = 1;
  bool has_capacity = false, verbose = false, quiet = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return CLI_EXIT_OK;
    }
    if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
      verbose = true;
      continue;
    }
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = true;
      continue;
    }
    bool takes_value = !strcmp(a, "--planner") || !strcmp(a, "--planner-options") ||
                       !strcmp(a, "--capacity") || !strcmp(a, "--alignment") ||
                       !strcmp(a, "-o") || !strcmp(a, "--output");
    if (takes_value) {
      if (i + 1 >= argc) return cli_usage_error("solve", "%s needs a value", a);
      const char *v = argv[++i];
      if (!strcmp(a, "--planner")) {
        planner = v;
      } else if (!strcmp(a, "--planner-options")) {
        options = v;
      } else if (!strcmp(a, "--capacity")) {
        if (!cli_parse_u64(v, &capacity) || capacity == 0)
          return cli_usage_error("solve", "--capacity must be a positive number of bytes, not '%s'", v);
        has_capacity = true;
      } else if (!strcmp(a, "--alignment")) {
        if (!cli_parse_u64(v, &alignment) || alignment == 0 || alignment > (UINT64_C(1) << 30) ||
            (alignment & (alignment - 1)))
          return cli_usage_error("solve", "--alignment must be a power of two up to 2^30, not '%s'", v);
      } else {
        out_path = v;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      return cli_usage_error("solve", "unknown option '%s'", a);
    } else if (!path) {
      path = a;
    } else {
      return cli_usage_error("solve", "more than one problem given ('%s' and '%s')", path, a);
    }
  }
  if (!path) return cli_usage_error("solve", "no problem file given");
  if (verbose && !quiet && !c->progress) cli_progress_set(c, CLI_PROGRESS_ON);
  const mp_planner *pl = mp_planner_find(planner);
  if (!pl) {
    char names[512] = "";
    for (uint32_t i = 0; i < mp_planner_count(); i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
               mp_planner_at(i)->name);
    const char *best = mp_planner_suggest(planner);
    if (best)
      return cli_usage_error("solve", "unknown planner '%s' \xe2\x80\x94 did you mean '%s'? (planners: %s)",
                             planner, best, names);
    return cli_usage_error("solve", "unknown planner '%s' (planners: %s)", planner, names);
  }

  mp_option *opts = NULL;
  uint32_t n_opts = 0;
  mp_csv_problem *prob = NULL;
  uint64_t *offsets = NULL;
  char *text = NULL;
  int rc = CLI_EXIT_OK;
  mp_status st = MP_OK;
  if (options) st = mp_planner_options_from_json(pl, options, "--planner-options", &c->sink, &opts, &n_opts);
  if (st == MP_OK) {
    if (!strcmp(path, "-")) {
      size_t len = 0;
      char *in = read_stdin(&len);
      if (!in) {
        fputs("memplan solve: error: cannot read standard input\n", stderr);
        st = MP_ERR_IO;
      } else {
        st = mp_csv_problem_parse(in, len, "<stdin>", (uint32_t)alignment, &c->sink, &prob);
        free(in);
      }
    } else {
      st = mp_csv_problem_read(path, (uint32_t)alignment, &c->sink, &prob);
    }
  }
  mp_solution sol;
  memset(&sol, 0, sizeof sol);
  if (st == MP_OK) {
    offsets = malloc((prob->n ? prob->n : 1) * sizeof *offsets);
    if (!offsets) st = MP_ERR_NOMEM;
  }
  /* A planner with a `capacity` option (exact) takes --capacity as its
   * target unless the options already set one: it then looks for a layout
   * within it, or proves there is none, instead of minimising. */
  mp_option *call_opts = opts;
  uint32_t n_call = n_opts;
  bool has_cap_opt = false, sets_cap = false;
  for (uint32_t k = 0; k < pl->n_options; k++) has_cap_opt |= !strcmp(pl->options[k].key, "capacity");
  for (uint32_t k = 0; k < n_opts; k++) sets_cap |= !strcmp(opts[k].key, "capacity");
  if (st == MP_OK && has_capacity && has_cap_opt && !sets_cap) {
    call_opts = malloc((n_opts + 1) * sizeof *call_opts);
    if (!call_opts) {
      st = MP_ERR_NOMEM;
    } else {
      for (uint32_t k = 0; k < n_opts; k++) call_opts[k] = opts[k];
      call_opts[n_opts] = (mp_option){(char *)"capacity", (int64_t)capacity};
      n_call = n_opts + 1;
    }
  }
  if (st == MP_OK) {
    mp_problem p = {prob->n, prob->items, capacity};
    sol.offsets = offsets;
    sol.progress = c->progress;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = mp_solve(pl, &p, call_opts, n_call, &sol, &c->sink);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st == MP_OK && verbose)
      print_run(pl, prob->n, &sol,
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
  }
  if (call_opts != opts) free(call_opts);
  if (st != MP_OK) {
    rc = cli_exit_code(st);
  } else if (!check_solution(prob, &sol)) {
    rc = CLI_EXIT_BUG;
  } else if (has_capacity && sol.height > capacity) {
    fprintf(stderr,
            "memplan solve: error: height %llu exceeds the capacity %llu by %llu bytes "
            "(lower bound %llu, planner %s)\n",
            (unsigned long long)sol.height, (unsigned long long)capacity,
            (unsigned long long)(sol.height - capacity), (unsigned long long)sol.lower_bound,
            pl->name);
    if (sol.lower_bound > capacity)
      fputs("memplan solve: note: the lower bound is above the capacity: no layout fits\n", stderr);
    else if (sol.proven_lower > capacity)
      fprintf(stderr,
              "memplan solve: note: planner %s proved that no layout fits: every layout is at "
              "least %llu bytes high\n",
              pl->name, (unsigned long long)sol.proven_lower);
    rc = CLI_EXIT_FAIL;
  } else {
    text = mp_csv_solution_text(prob, &sol, pl->name);
    if (!text) {
      fputs("memplan solve: error: out of memory\n", stderr);
      rc = CLI_EXIT_USAGE;
    } else if (out_path) {
      rc = write_text(out_path, text);
      if (rc == CLI_EXIT_OK) {
        printf("# height=%llu lower_bound=%llu planner=%s\n", (unsigned long long)sol.height,
               (unsigned long long)sol.lower_bound, pl->name);
        if (!strcmp(pl->name, "exact"))
          printf("# proven_lower=%llu proven_upper=%llu optimal=%s timed_out=%s\n",
                 (unsigned long long)sol.proven_lower, (unsigned long long)sol.proven_upper,
                 sol.proven_lower == sol.proven_upper ? "yes" : "no",
                 sol.timed_out ? "yes" : "no");
        if (sol.cheap_start) printf("# start=greedy\n");
      }
    } else {
      fputs(text, stdout);
    }
  }
  free(text);
  free(offsets);
  mp_csv_problem_free(&prob);
  mp_options_free(&opts);
  return rc;
}
