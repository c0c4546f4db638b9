/*
 * semihost.h — the two Arm semihosting calls the emit proof needs on the
 * target: print a line on the host's console, and exit QEMU with a status.
 */
#ifndef SEMIHOST_H
#define SEMIHOST_H

/* Print `s` and a newline (SYS_WRITE0). */
void semihost_puts(const char *s);
/* Stop the emulator with exit status `code` (SYS_EXIT_EXTENDED). */
void semihost_exit(int code) __attribute__((noreturn));

#endif
