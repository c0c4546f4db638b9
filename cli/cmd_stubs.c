/* Temporary: commands not built yet. */
#include "cli.h"
int cmd_solve(cli *c, int argc, char **argv) { (void)c; (void)argc; (void)argv; return cli_usage_error("solve", "not implemented yet"); }

int cmd_report_write(const mp_plan *plan, const mp_config *cfg, const char *path, cli *c);
int cmd_report_write(const mp_plan *plan, const mp_config *cfg, const char *path, cli *c) { (void)plan; (void)cfg; (void)c; fprintf(stderr, "memplan: error: the HTML report (%s) is not built yet\n", path); return CLI_EXIT_USAGE; }
