/*
 * cmd_report.c — write the HTML plan report for `memplan plan --report`
 * (`memplan convert --report` has the emitter write it with the module).
 *
 * The page itself is built by the library (mp_report_html, report_html.c);
 * this file only picks the symbol prefix from the config, writes the file
 * atomically and maps the status to an exit code.
 */
#include "cli.h"

int cmd_report_write(const mp_plan *plan, const mp_config *cfg, const char *path, cli *c);

/* Write the report of `plan` to `path`; a CLI exit code.  The file appears
 * whole or not at all; a write failure is reported naming the path. */
int cmd_report_write(const mp_plan *plan, const mp_config *cfg, const char *path, cli *c) {
  const char *prefix = cfg && cfg->prefix ? cfg->prefix : "model";
  mp_status st = mp_report_html_write(plan, prefix, path, &c->sink);
  if (st == MP_OK && c->verbose >= 2) fprintf(stderr, "memplan: wrote the plan report %s\n", path);
  return cli_exit_code(st);
}
