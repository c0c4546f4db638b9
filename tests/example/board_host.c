/*
 * board_host.c — the example's board.h on the host: board_puts prints to
 * stdout and board_exit exits, so examples/m55_kws/main.c runs unchanged
 * beside its Cortex-M55 build and the two outputs can be compared.
 */
#include "board.h"

#include <stdio.h>
#include <stdlib.h>

void board_puts(const char *s) { puts(s); }

void board_exit(int status) { exit(status); }
