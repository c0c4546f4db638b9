/* Temporary: commands not built yet. */
#include "cli.h"
int cmd_plan(cli *c, int argc, char **argv) { (void)c; (void)argc; (void)argv; return cli_usage_error("plan", "not implemented yet"); }
int cmd_convert(cli *c, int argc, char **argv) { (void)c; (void)argc; (void)argv; return cli_usage_error("convert", "not implemented yet"); }
int cmd_solve(cli *c, int argc, char **argv) { (void)c; (void)argc; (void)argv; return cli_usage_error("solve", "not implemented yet"); }
