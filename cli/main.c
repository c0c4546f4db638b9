/*
 * main.c — `memplan`: dispatch to a subcommand.
 */
#include "cli.h"

#include <string.h>

static void usage(FILE *f) {
  fputs("usage: memplan <command> [options]\n"
        "\n"
        "memplan is an ahead-of-time memory planner for TinyML models: it places\n"
        "every tensor of a .tflite model in static arenas across a microcontroller's\n"
        "memory banks and emits a standalone C module.\n"
        "\n"
        "commands:\n"
        "  convert --path CONFIG.yaml [--key value ...]\n"
        "                      plan a model from a config and emit the C module\n"
        "  plan MODEL.tflite   plan with the default platform, print the summary\n"
        "  inspect MODEL.tflite\n"
        "                      show ops, tensors, lifetimes, aliases, lower bound\n"
        "  solve PROBLEM.csv   offset assignment for an id,lower,upper,size CSV\n"
        "\n"
        "'memplan <command> --help' describes a command; 'memplan convert --help'\n"
        "lists every configuration key.\n"
        "\n"
        "exit status: 0 success; 1 the plan does not fit, exceeds the capacity or\n"
        "the model has unsupported operators; 2 bad usage, config, model or file;\n"
        "3 internal error (please report it).\n",
        f);
}

int main(int argc, char **argv) {
  cli c;
  cli_init(&c);
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    if (argc > 2 || !strcmp(cmd, "--help")) {
      /* `memplan --help` also lists the configuration keys */
      char *args[] = {argv[0], (char *)"--help", NULL};
      fputs("\n", stdout);
      return cmd_convert(&c, 2, args);
    }
    return CLI_EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("memplan %s\n", MP_VERSION);
    return CLI_EXIT_OK;
  }
  if (!strcmp(cmd, "inspect")) return cmd_inspect(&c, argc - 1, argv + 1);
  if (!strcmp(cmd, "plan")) return cmd_plan(&c, argc - 1, argv + 1);
  if (!strcmp(cmd, "convert")) return cmd_convert(&c, argc - 1, argv + 1);
  if (!strcmp(cmd, "solve")) return cmd_solve(&c, argc - 1, argv + 1);
  return cli_usage_error(NULL, "unknown command '%s' (commands: convert, plan, inspect, solve)",
                         cmd);
}
