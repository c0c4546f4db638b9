/*
 * target_main.c — the emit proof on the emulated Cortex-M55: run the probe
 * of every module linked into this image, then the golden run and the
 * wrong-kernel test of every module linked with its kernels, and report
 * through semihosting.  The exit status is the number of failed modules
 * (capped at 100).
 *
 * An image with golden modules also starts SysTick (processor clock,
 * interrupt on wrap: startup.c counts the wraps) as golden.c's clock.
 * Under QEMU's -icount shift=0 virtual time follows the instructions
 * executed, so ticks are instructions times a fixed ratio: the image
 * prints "GOLDEN CALIB ticks 2000000", the ticks of a loop of exactly
 * 2,000,000 instructions (1,000,000 x subs + bne), to convert them.
 */
#include "golden.h"
#include "probe.h"
#include "semihost.h"

#include <stdio.h>

extern const probe_module *const probe_modules[];
extern const golden_module *const golden_modules[];
extern volatile uint32_t systick_wraps;

#define SYST ((volatile uint32_t *)0xE000E010u) /* CSR, RVR, CVR */
#define ICSR (*(volatile uint32_t *)0xE000ED04u)
#define PENDSTSET (1u << 26)
#define PENDSTCLR (1u << 25)

void probe_print(const char *line) { semihost_puts(line); }

static int clock_on;

/* Wraps counted so far plus the counter's progress; a wrap whose
 * interrupt is still pending (the counter just reloaded) counts too. */
int golden_clock(uint64_t *ticks) {
  uint32_t w, v, pending;
  if (!clock_on) return 0;
  do {
    w = systick_wraps;
    v = SYST[2];
    pending = ICSR & PENDSTSET;
  } while (w != systick_wraps);
  if (pending && v > 0x800000u) w++;
  *ticks = (uint64_t)w * 0x1000000u + (0xFFFFFFu - v);
  return 1;
}

static void calibrate(void) {
  uint64_t t0, t1;
  uint32_t r = 1000000u;
  SYST[1] = 0xFFFFFFu;
  SYST[2] = 0;
  SYST[0] = 7u;           /* enable, interrupt, processor clock */
  while (SYST[2] == 0u) { /* until the first reload */
  }
  ICSR = PENDSTCLR;
  systick_wraps = 0;
  clock_on = 1;
  golden_clock(&t0);
  __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(r));
  golden_clock(&t1);
  char line[80];
  snprintf(line, sizeof line, "GOLDEN CALIB %lu 2000000", (unsigned long)(t1 - t0));
  semihost_puts(line);
}

int main(void) {
  int n = 0, failed = 0;
  for (const probe_module *const *m = probe_modules; *m; m++, n++)
    failed += probe_module_run(*m);
  if (golden_modules[0]) calibrate();
  for (const golden_module *const *g = golden_modules; *g; g++, n++) {
    failed += golden_module_run(*g);
    failed += golden_module_wrong_kernel(*g);
    failed += golden_module_uninit_kernel(*g);
  }
  char line[80];
  snprintf(line, sizeof line, "target: %d modules, %d failed", n, failed);
  semihost_puts(line);
  return failed > 100 ? 100 : failed;
}
