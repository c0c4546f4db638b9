/*
 * semihost.c — Arm semihosting (BKPT 0xAB on M-profile): SYS_WRITE0 to
 * print, SYS_EXIT_EXTENDED to end the run with the proof's status, which
 * QEMU (-semihosting) turns into its own exit status, and SYS_OPEN,
 * SYS_FLEN, SYS_READ and SYS_CLOSE to read a file of the host (the
 * conformance run reads the corpus so, instead of linking it in).
 */
#include "semihost.h"

#include <stdint.h>

#define SYS_OPEN 0x01u
#define SYS_CLOSE 0x02u
#define SYS_WRITE0 0x04u
#define SYS_READ 0x06u
#define SYS_FLEN 0x0Cu
#define MODE_RB 1u /* fopen mode "rb" */
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

long semihost_read_file(const char *path, void *buf, uint32_t cap) {
  uint32_t len = 0;
  while (path[len]) len++;
  uintptr_t open_args[3] = {(uintptr_t)path, MODE_RB, len};
  intptr_t h = (intptr_t)semihost_call(SYS_OPEN, open_args);
  if (h < 0) return -1;
  uintptr_t flen_args[1] = {(uintptr_t)h};
  intptr_t size = (intptr_t)semihost_call(SYS_FLEN, flen_args);
  long result = -1;
  if (size >= 0 && (uintptr_t)size <= cap) {
    uintptr_t read_args[3] = {(uintptr_t)h, (uintptr_t)buf, (uintptr_t)size};
    /* SYS_READ returns the number of bytes it did not read */
    if (semihost_call(SYS_READ, read_args) == 0) result = (long)size;
  }
  semihost_call(SYS_CLOSE, flen_args);
  return result;
}
