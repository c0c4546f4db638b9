/*
 * host_main.c — the emit proof on the host: run the probe of every module
 * linked into this binary (built with ASan and UBSan), then the golden run
 * of every module linked with its kernels (one list or the other is empty,
 * see registry_*.c), each followed by its wrong-kernel test.  Arguments,
 * when given, select modules by name (golden modules by model name too).
 * Exit status 1 when any module fails.
 */
#include "golden.h"
#include "probe.h"

#include <stdio.h>
#include <string.h>

extern const probe_module *const probe_modules[];
extern const golden_module *const golden_modules[];

/* The host has no instruction clock: golden.c counts on the target only. */
int golden_clock(uint64_t *ticks) {
  (void)ticks;
  return 0;
}

void probe_print(const char *line) {
  puts(line);
  fflush(stdout);
}

static int chosen(int argc, char **argv, const char *name) {
  int yes = argc < 2;
  for (int i = 1; i < argc; i++) yes |= !strcmp(argv[i], name);
  return yes;
}

int main(int argc, char **argv) {
  int n = 0, failed = 0;
  for (const probe_module *const *m = probe_modules; *m; m++)
    if (chosen(argc, argv, (*m)->name)) {
      n++;
      failed += probe_module_run(*m);
    }
  for (const golden_module *const *g = golden_modules; *g; g++)
    if (chosen(argc, argv, (*g)->name) || chosen(argc, argv, (*g)->model->name)) {
      n++;
      failed += golden_module_run(*g);
      failed += golden_module_wrong_kernel(*g);
      failed += golden_module_uninit_kernel(*g);
    }
  printf("host: %d modules, %d failed\n", n, failed);
  return failed ? 1 : 0;
}
