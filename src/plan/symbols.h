/*
 * symbols.h — the C names of a plan's arenas in the emitted module
 * (symbols.c).
 */
#ifndef MP_SYMBOLS_H
#define MP_SYMBOLS_H

#include "memplan.h"

/* The symbol arena a has in the module: the shared buffer for a scratch
 * arena of a models: config (shared non-NULL), else mp_arena_symbol's. */
const char *mp_module_arena_symbol(const mp_plan *p, const char *prefix,
                                   const mp_shared_scratch *shared, const mp_arena *a, char *buf,
                                   size_t n);

#endif /* MP_SYMBOLS_H */
