/*
 * semihost.h — the Arm semihosting calls the target runs need: print a
 * line on the host's console, exit QEMU with a status, read a host file.
 */
#ifndef SEMIHOST_H
#define SEMIHOST_H

#include <stdint.h>

/* Print `s` and a newline (SYS_WRITE0). */
void semihost_puts(const char *s);
/* Stop the emulator with exit status `code` (SYS_EXIT_EXTENDED). */
void semihost_exit(int code) __attribute__((noreturn));

/* Read the host file `path` whole into buf (at most cap bytes): its size,
 * or -1 when it cannot be opened or read or is larger than cap. */
long semihost_read_file(const char *path, void *buf, uint32_t cap);

#endif
