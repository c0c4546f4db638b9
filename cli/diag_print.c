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
  /* file names, messages and source lines carry model names, config
   * values and paths: shown escaped, never as terminal control */
  char *file = d->file ? mp_printable(d->file) : NULL;
  char *msg = mp_printable(d->message);
  if (file && d->line) {
    if (d->column)
      fprintf(stderr, "%s:%u:%u: ", file, d->line, d->column);
    else
      fprintf(stderr, "%s:%u: ", file, d->line);
  } else if (file && d->byte_offset >= 0) {
    fprintf(stderr, "%s: byte %lld: ", file, (long long)d->byte_offset);
  } else if (file) {
    fprintf(stderr, "%s: ", file);
  } else {
    fprintf(stderr, "memplan: ");
  }
  fprintf(stderr, "%s: %s\n", sev, msg ? msg : "(out of memory)");
  free(file);
  free(msg);
  if (d->source_line) {
    char *line = mp_printable(d->source_line);
    fprintf(stderr, "  %s\n", line ? line : "?");
    if (d->column && line) {
      /* the caret under the column of the line as shown: the width of its
       * escaped prefix (the line may be cut short of the column) */
      size_t n = 0;
      while (n + 1 < d->column && d->source_line[n]) n++;
      char *head = malloc(n + 1);
      char *shown = NULL;
      if (head) {
        memcpy(head, d->source_line, n);
        head[n] = '\0';
        shown = mp_printable(head);
      }
      fputs("  ", stderr);
      for (const char *q = shown ? shown : ""; *q; q++)
        if (((unsigned char)*q & 0xc0) != 0x80) fputc(*q == '\t' ? '\t' : ' ', stderr);
      fputs("^\n", stderr);
      free(shown);
      free(head);
    }
    free(line);
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
