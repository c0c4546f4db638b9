/*
 * symbols.c — the C names of a plan's arenas: one symbol per arena, by its
 * role and memory (<p>_arena_<mem>_buffer for scratch,
 * <p>_arena_persistent_<mem>_buffer, <p>_arena_const_<mem>__blob for a cold
 * constant arena, <p>_arena_const_<mem>_buffer hydrated from
 * <p>_arena_const_<mem>__source for a staged one), and the shared buffer
 * that several models' scratch arenas bind to.  The emitter, the reports
 * and the multi-model check all name arenas through these.
 */
#include "plan/symbols.h"

#include <stdio.h>

const char *mp_arena_symbol(const mp_plan *p, const char *prefix, const mp_arena *a, bool source,
                            char *buf, size_t n) {
  const char *mem = mp_platform_memory_name(&p->platform, a->memory);
  switch (a->role) {
  case MP_ROLE_SCRATCH: snprintf(buf, n, "%s_arena_%s_buffer", prefix, mem); break;
  case MP_ROLE_PERSISTENT: snprintf(buf, n, "%s_arena_persistent_%s_buffer", prefix, mem); break;
  default:
    if (!a->is_staged)
      snprintf(buf, n, "%s_arena_const_%s__blob", prefix, mem);
    else
      snprintf(buf, n, "%s_arena_const_%s_%s", prefix, mem, source ? "_source" : "buffer");
    break;
  }
  return buf;
}

const char *mp_shared_symbol(const mp_shared_scratch *s, const mp_platform *pf, mp_memory m,
                             char *buf, size_t n) {
  snprintf(buf, n, "%s_arena_%s_buffer", s->prefix, mp_platform_memory_name(pf, m));
  return buf;
}

const char *mp_module_arena_symbol(const mp_plan *p, const char *prefix,
                                   const mp_shared_scratch *shared, const mp_arena *a, char *buf,
                                   size_t n) {
  if (shared && a->role == MP_ROLE_SCRATCH && shared->size[a->memory] >= a->total_size)
    return mp_shared_symbol(shared, &p->platform, a->memory, buf, n);
  return mp_arena_symbol(p, prefix, a, false, buf, n);
}
