/*
 * semihost.c — Arm semihosting (BKPT 0xAB on M-profile): SYS_WRITE0 to
 * print, SYS_EXIT_EXTENDED to end the run with the proof's status, which
 * QEMU (-semihosting) turns into its own exit status.
 */
#include "semihost.h"

#include <stdint.h>

#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uintptr_t semihost_call(uint32_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = (uintptr_t)arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void semihost_puts(const char *s) {
  semihost_call(SYS_WRITE0, s);
  semihost_call(SYS_WRITE0, "\n");
}

void semihost_exit(int code) {
  uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)code};
  semihost_call(SYS_EXIT_EXTENDED, block);
  for (;;) {
  }
}
