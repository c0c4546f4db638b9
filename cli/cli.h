/*
 * cli.h — shared pieces of the memplan command-line tool.
 *
 * The CLI is a thin shell over libmemplan's public API: it parses argv,
 * installs a diagnostics printer, calls the library and maps statuses to
 * exit codes.  Each subcommand lives in its own cmd_*.c.
 */
#ifndef MP_CLI_H
#define MP_CLI_H

#include "memplan.h"

#include <stdio.h>

/* Exit codes of the memplan tool (documented in the README). */
enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_FAIL = 1,     /* valid input, but the answer is "no": does not fit,
                            above capacity, unsupported operators */
  CLI_EXIT_USAGE = 2,    /* bad usage, config, model or I/O */
  CLI_EXIT_BUG = 3,      /* the verifier or an internal check failed */
};

typedef struct cli {
  mp_diag_sink sink;     /* prints to stderr */
  unsigned n_errors;
  unsigned n_warnings;
  int verbose;
  /* progress of long planner runs (progress.c): `progress` is what the
   * commands hand to the library, NULL when nothing is to be printed */
  const mp_progress_sink *progress;
  mp_progress_sink progress_sink;
  bool progress_tty;     /* stderr is a terminal: rewrite one line */
  bool progress_printed; /* a line of the current run is out */
} cli;

typedef enum cli_progress_mode {
  CLI_PROGRESS_AUTO,     /* print when stderr is a terminal (the default) */
  CLI_PROGRESS_ON,       /* --progress: print anyway */
  CLI_PROGRESS_OFF,      /* --quiet: never print */
} cli_progress_mode;

/* Install the progress printer (c->progress) for `mode`. */
void cli_progress_set(cli *c, cli_progress_mode mode);

/* The progress flags of a command line: removes --progress from argv (the
 * commands never see it) and leaves --quiet / -q, which the commands also
 * read, in place. */
cli_progress_mode cli_progress_take_flags(int *argc, char **argv);

void cli_init(cli *c);
int cli_exit_code(mp_status st);

/* Print a usage error ("memplan inspect: ...") and return CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a non-negative integer argument; false on junk or overflow. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* Print the summary's hint line (nothing when no other planner beats the
 * plan); `flag` is how the command selects a planner ("--planner"). */
void cli_print_hint(const mp_plan *plan, const mp_memory_args *mem, const char *flag);

/* When memory.in_place rewrote g (mp_graph_rewritten): *plain, the model's
 * graph without the rewrites (kernels prepared, in the best order when
 * memory.op_order asks), for mp_plan_build_rewritten; else *plain stays
 * NULL.  Its diagnostics are g's: not repeated. */
mp_status cli_plain_graph(const mp_config *cfg, const mp_model *m, const mp_graph *g,
                          bool allow_unsupported, mp_graph **plain);

/* memory.op_order min_peak: *g (built in the model's order, with the
 * memory.in_place rewrites when `rewrite`, kernels prepared) replaced by the
 * graph built in the best order found, when its bound is strictly lower;
 * g->order records the search. */
/* memory.patch: the stage given applied to *g, or with auto the best stage
 * found, kept only when it plans smaller (cli/patch.c). */
mp_status cli_patch_graph(const mp_config *cfg, bool allow_unsupported, const mp_diag_sink *dx,
                          mp_graph **g);

mp_status cli_order_graph(const mp_config *cfg, bool rewrite, bool allow_unsupported,
                          mp_graph **g);

/* memory.in_place size with depthwise convolutions run channel by channel
 * (p->graph->n_serial_ops): p->speed_scratch, the scratch the same model
 * needs planned as memory.in_place speed (cli/speed.c); nothing otherwise.
 * Fails only with MP_ERR_NOMEM. */
mp_status cli_speed_scratch(const mp_config *cfg, const mp_model *m, bool allow_unsupported,
                            mp_plan *p);

/* The summary line saying that memory.in_place's rewrites were not kept
 * (p->rewrites.saved; nothing when they were). */
void cli_print_fold_note(const mp_plan *p, const mp_config *cfg);

/* An emulated board `memplan profile` builds for (profile_harness.c). */
typedef struct cli_profile_board {
  const char *name;     /* QEMU's machine: "mps3-an547" */
  const char *core;     /* "Cortex-M55" */
  const char *target;   /* the module.target it implies: "cortex-m55" */
  const char *cflags;   /* arm-none-eabi-gcc's -mcpu and float flags */
  const char *ld;       /* the linker script */
} cli_profile_board;

const cli_profile_board *cli_profile_board_find(const char *name);
const char *cli_profile_board_names(void);
const char *cli_profile_startup_c(void);
const char *cli_profile_semihost_h(void);
const char *cli_profile_semihost_c(void);
void cli_profile_main_c(FILE *f, const char *p, const char *P, const char *const *files,
                        size_t n_files);

int cmd_inspect(cli *c, int argc, char **argv);
int cmd_plan(cli *c, int argc, char **argv);
int cmd_convert(cli *c, int argc, char **argv);
int cmd_solve(cli *c, int argc, char **argv);
int cmd_profile(cli *c, int argc, char **argv);

#endif /* MP_CLI_H */
