/*
 * progress.c — the CLI's progress printer.
 *
 * Long planner runs (hill_climb, exact) report where they stand through
 * the library's progress callback (mp_progress_sink); this file prints
 * those reports on stderr:
 *   - on a terminal, one status line rewritten in place four times a
 *     second, ended with a newline when the run ends;
 *   - elsewhere (a CI log, with --progress), one line a second.
 * Nothing is printed during a run's first second, so short runs stay
 * silent.  By default it prints only when stderr is a terminal;
 * --progress forces it, --quiet silences it.
 *
 *   memplan: exact 3.0 s: best 1048576 B, bound 1040000 B (0.82 % above), 51200 nodes
 */
#include "cli.h"

#include <string.h>
#include <unistd.h>

/* Runs shorter than this print nothing. */
#define QUIET_FIRST_S 1.0

static void print_progress(void *user, const mp_progress *p) {
  cli *c = user;
  if (!p->done && p->elapsed_s < QUIET_FIRST_S) return;
  if (p->done && !c->progress_printed) return;
  char line[256];
  int k = snprintf(line, sizeof line, "memplan: %s %s%.1f s", p->planner,
                   p->done ? "finished in " : "", p->elapsed_s);
  if (p->best_height) {
    k += snprintf(line + k, sizeof line - (size_t)k, ": best %llu B, bound %llu B",
                  (unsigned long long)p->best_height, (unsigned long long)p->proven_lower);
    if (p->proven_lower >= p->best_height)
      k += snprintf(line + k, sizeof line - (size_t)k, " (optimal)");
    else if (p->proven_lower)
      k += snprintf(line + k, sizeof line - (size_t)k, " (%.2f %% above)",
                    100.0 * (double)(p->best_height - p->proven_lower) / (double)p->proven_lower);
  }
  if (p->moves) k += snprintf(line + k, sizeof line - (size_t)k, ", %llu moves", (unsigned long long)p->moves);
  if (p->nodes) snprintf(line + k, sizeof line - (size_t)k, ", %llu nodes", (unsigned long long)p->nodes);
  if (c->progress_tty) {
    /* rewrite the status line; clear what a longer one left */
    fprintf(stderr, "\r%s\033[K%s", line, p->done ? "\n" : "");
  } else {
    fprintf(stderr, "%s\n", line);
  }
  fflush(stderr);
  c->progress_printed = !p->done;
}

void cli_progress_set(cli *c, cli_progress_mode mode) {
  c->progress_tty = isatty(fileno(stderr)) != 0;
  bool on = mode == CLI_PROGRESS_ON || (mode == CLI_PROGRESS_AUTO && c->progress_tty);
  c->progress_sink = (mp_progress_sink){print_progress, c, c->progress_tty ? 250u : 1000u};
  c->progress = on ? &c->progress_sink : NULL;
  c->progress_printed = false;
}

cli_progress_mode cli_progress_take_flags(int *argc, char **argv) {
  cli_progress_mode mode = CLI_PROGRESS_AUTO;
  int w = 1;
  for (int i = 1; i < *argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--progress")) {
      if (mode != CLI_PROGRESS_OFF) mode = CLI_PROGRESS_ON;
      continue; /* the commands never see it */
    }
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) mode = CLI_PROGRESS_OFF;
    argv[w++] = argv[i];
  }
  *argc = w;
  argv[w] = NULL;
  return mode;
}
