/*
 * board.c — board_puts and board_exit over Arm semihosting (BKPT 0xAB):
 * SYS_WRITE0 prints a string, SYS_EXIT_EXTENDED ends the run with a status.
 * On real hardware without a debugger attached, replace these with a UART
 * and a reset.
 */
#include "board.h"

#include <stdint.h>

static uintptr_t semihosting(uint32_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = (uintptr_t)arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void board_puts(const char *s) {
  semihosting(0x04u, s);    /* SYS_WRITE0 */
  semihosting(0x04u, "\n");
}

void board_exit(int status) {
  /* ADP_Stopped_ApplicationExit and the status */
  uint32_t block[2] = {0x20026u, (uint32_t)status};
  semihosting(0x20u, block); /* SYS_EXIT_EXTENDED */
  for (;;) {
  }
}
