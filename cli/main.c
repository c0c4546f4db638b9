/*
 * main.c — `memplan`: dispatch to a subcommand.
 */
#include "cli.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
  fputs("usage: memplan <command> [options]\n"
        "       memplan help <command> | memplan <command> --help\n"
        "       memplan --version\n"
        "\n"
        "memplan is an ahead-of-time memory planner for TinyML models: it places\n"
        "every tensor of a .tflite model in static arenas across a microcontroller's\n"
        "memory banks and emits a standalone C module.\n"
        "\n"
        "commands:\n"
        "  convert --path CONFIG.yaml [--KEY VALUE ...]\n"
        "                      plan a model from a config and emit the C module\n"
        "  plan MODEL.tflite   plan with the default platform, print the summary\n"
        "  inspect MODEL.tflite\n"
        "                      show ops, tensors, lifetimes, aliases, lower bound\n"
        "  solve PROBLEM.csv   offset assignment for an id,lower,upper,size CSV\n"
        "  profile --path CONFIG.yaml [--board BOARD]\n"
        "                      build the module for an emulated Cortex-M board, run it\n"
        "                      on QEMU and print each operator's instructions\n"
        "\n"
        "planners: greedy (the default) and the experimental greedy_by_size,\n"
        "hill_climb and exact.  When the chosen planner ends above the lower bound,\n"
        "the summary names the best other one (--quiet drops that hint).\n"
        "\n"
        "'memplan help convert' lists every configuration key; 'man memplan' has it\n"
        "all.\n"
        "\n"
        "exit status: 0 success; 1 the plan does not fit, exceeds the capacity or\n"
        "the model has unsupported operators; 2 bad usage, config, model or file;\n"
        "3 internal error (please report it).\n",
        f);
}

typedef int (*command_fn)(cli *c, int argc, char **argv);

static const struct {
  const char *name;
  command_fn run;
} commands[] = {
    {"convert", cmd_convert},
    {"plan", cmd_plan},
    {"inspect", cmd_inspect},
    {"solve", cmd_solve},
    {"profile", cmd_profile},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static command_fn find_command(const char *name) {
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (!strcmp(commands[i].name, name)) return commands[i].run;
  return NULL;
}

/* SIGINT and SIGTERM: no staging folder left behind, the module folder as
 * it was (or as the swap made it), and the shell's exit status 128 + the
 * signal (130, 143). */
static void on_signal(int sig) {
  mp_emit_interrupted();
  _exit(128 + sig);
}

int main(int argc, char **argv) {
  cli c;
  cli_init(&c);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  cli_progress_set(&c, cli_progress_take_flags(&argc, argv));
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
    printf("memplan %s\n", MP_VERSION);
    return CLI_EXIT_OK;
  }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (argc == 2 || strcmp(cmd, "help")) {
      usage(stdout);
      return CLI_EXIT_OK;
    }
    /* `memplan help CMD` is `memplan CMD --help` */
    command_fn run = find_command(argv[2]);
    if (!run)
      return cli_usage_error(NULL, "no help for '%s' (commands: convert, plan, inspect, solve)",
                             argv[2]);
    char *args[] = {argv[2], (char *)"--help", NULL};
    return run(&c, 2, args);
  }
  command_fn run = find_command(cmd);
  if (run) return run(&c, argc - 1, argv + 1);
  return cli_usage_error(NULL, "unknown command '%s' (commands: convert, plan, inspect, solve)",
                         cmd);
}
