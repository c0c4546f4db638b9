/*
 * conform_main.c — the conformance run on the host and on the emulated
 * Cortex-M55 (built with -DCONF_TARGET): run every case linked into the
 * program (conf_cases[], from the generated registry) against the corpus
 * at conf_root and print one line per case, then "conformance: N cases,
 * M failed".  On the host, arguments select cases by folder prefix
 * ("mean_int8/" or "mean_int8/003").  Exit status: the number of failed
 * cases, capped at 100.
 */
#include "conform.h"

#include <stdio.h>
#include <string.h>

extern const conf_case *const conf_cases[];
extern const char conf_root[];

#ifdef CONF_TARGET
#include "semihost.h"

long conf_read_file(const char *path, void *buf, uint32_t cap) {
  return semihost_read_file(path, buf, cap);
}
void conf_print(const char *line) { semihost_puts(line); }
#define WHERE "target"
#else
long conf_read_file(const char *path, void *buf, uint32_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(buf, 1, cap, f);
  int more = fgetc(f) != EOF, err = ferror(f);
  fclose(f);
  return more || err ? -1 : (long)n;
}
void conf_print(const char *line) {
  puts(line);
  fflush(stdout);
}
#define WHERE "host"
#endif

static int chosen(int argc, char **argv, const char *folder) {
  int yes = argc < 2;
  for (int i = 1; i < argc; i++) yes |= !strncmp(folder, argv[i], strlen(argv[i]));
  return yes;
}

#ifdef CONF_TARGET
int main(void) {
  int argc = 0;
  char **argv = NULL;
#else
int main(int argc, char **argv) {
#endif
  int n = 0, failed = 0;
  for (const conf_case *const *c = conf_cases; *c; c++) {
    if (!chosen(argc, argv, (*c)->folder)) continue;
    n++;
    failed += conf_case_run(*c, conf_root);
  }
  char line[80];
  snprintf(line, sizeof line, "conformance " WHERE ": %d cases, %d failed", n, failed);
  conf_print(line);
  return failed > 100 ? 100 : failed;
}
