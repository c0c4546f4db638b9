/*
 * diag_print.c — the CLI's diagnostics printer.
 *
 * Formats like a compiler: "config.yaml:12:7: error: message", then the
 * offending line and a caret under the column when the library supplied
 * them; "model.tflite: byte 1234: error: ..." for binary files.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void print_diag(void *user, const mp_diag *d) {
  cli *c = user;
  const char *sev = d->severity == MP_SEV_ERROR     ? "error"
                    : d->severity == MP_SEV_WARNING ? "warning"
                                                    : "note";
  if (d->severity == MP_SEV_ERROR) c->n_errors++;
  if (d->severity == MP_SEV_WARNING) c->n_warnings++;
  if (d->file && d->line) {
    if (d->column)
      fprintf(stderr, "%s:%u:%u: ", d->file, d->line, d->column);
    else
      fprintf(stderr, "%s:%u: ", d->file, d->line);
  } else if (d->file && d->byte_offset >= 0) {
    fprintf(stderr, "%s: byte %lld: ", d->file, (long long)d->byte_offset);
  } else if (d->file) {
    fprintf(stderr, "%s: ", d->file);
  } else {
    fprintf(stderr, "memplan: ");
  }
  fprintf(stderr, "%s: %s\n", sev, d->message);
  if (d->source_line) {
    fprintf(stderr, "  %s\n", d->source_line);
    if (d->column) {
      fputs("  ", stderr);
      /* the line may be cut short of the column: stop at its end */
      for (uint32_t i = 1; i < d->column && d->source_line[i - 1]; i++)
        fputc(d->source_line[i - 1] == '\t' ? '\t' : ' ', stderr);
      fputs("^\n", stderr);
    }
  }
}

void cli_init(cli *c) {
  memset(c, 0, sizeof *c);
  c->sink.fn = print_diag;
  c->sink.user = c;
  c->verbose = 1;
}

int cli_exit_code(mp_status st) {
  switch (st) {
  case MP_OK: return CLI_EXIT_OK;
  case MP_ERR_NOFIT:
  case MP_ERR_UNSUPPORTED: return CLI_EXIT_FAIL;
  case MP_ERR_VERIFY:
  case MP_ERR_INTERNAL: return CLI_EXIT_BUG;
  default: return CLI_EXIT_USAGE;
  }
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "memplan%s%s: error: ", cmd ? " " : "", cmd ? cmd : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n(run 'memplan %s%s--help' for usage)\n", cmd ? cmd : "", cmd ? " " : "");
  return CLI_EXIT_USAGE;
}

bool cli_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-' || *s == '+') return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return false;
  *out = v;
  return true;
}
