/*
 * host_main.c — the emit proof on the host: run the probe of every module
 * linked into this binary (built with ASan and UBSan).  Arguments, when
 * given, select modules by name.  Exit status 1 when any module fails.
 */
#include "probe.h"

#include <stdio.h>
#include <string.h>

extern const probe_module *const probe_modules[];

void probe_print(const char *line) {
  puts(line);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int n = 0, failed = 0;
  for (const probe_module *const *m = probe_modules; *m; m++) {
    int chosen = argc < 2;
    for (int i = 1; i < argc; i++) chosen |= !strcmp(argv[i], (*m)->name);
    if (!chosen) continue;
    n++;
    failed += probe_module_run(*m);
  }
  printf("host: %d modules, %d failed\n", n, failed);
  return failed ? 1 : 0;
}
