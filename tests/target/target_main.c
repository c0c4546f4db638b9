/*
 * target_main.c — the emit proof on the emulated Cortex-M55: run the probe
 * of every module linked into this image, then the golden run of every
 * module linked with its kernels, and report through semihosting.  The
 * exit status is the number of failed modules (capped at 100).
 */
#include "golden.h"
#include "probe.h"
#include "semihost.h"

#include <stdio.h>

extern const probe_module *const probe_modules[];
extern const golden_module *const golden_modules[];

void probe_print(const char *line) { semihost_puts(line); }

int main(void) {
  int n = 0, failed = 0;
  for (const probe_module *const *m = probe_modules; *m; m++, n++) failed += probe_module_run(*m);
  for (const golden_module *const *g = golden_modules; *g; g++, n++) failed += golden_module_run(*g);
  char line[80];
  snprintf(line, sizeof line, "target: %d modules, %d failed", n, failed);
  semihost_puts(line);
  return failed > 100 ? 100 : failed;
}
