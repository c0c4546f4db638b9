/*
 * board.h — the two things the example needs from its board: print a line,
 * and stop with a status.  board.c does both with Arm semihosting, which
 * QEMU (and a debugger) turns into console output and an exit status.
 */
#ifndef BOARD_H
#define BOARD_H

void board_puts(const char *s);
void board_exit(int status) __attribute__((noreturn));

#endif
