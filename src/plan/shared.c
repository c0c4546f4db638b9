/*
 * shared.c — scratch shared between the modules of several models
 * (models: [...]).
 *
 * Models that never run at the same time need their activations at
 * different times, so one scratch buffer per memory can serve them all:
 * as large as the largest of their scratch arenas there, and aligned for
 * the strictest.  Each model keeps its own plan (its tensors' offsets are
 * inside its own arena, which fits the shared buffer), its persistent
 * arenas (state survives the other models' runs) and its constants.  The
 * first model with a scratch arena in a memory defines the shared buffer
 * in its module; the others' modules bind to it (src/emit*.c).
 *
 * What a memory must hold is then the shared buffer plus every model's
 * persistent and constant arenas there: mp_shared_scratch_build checks it.
 * The CLI plans the models as one problem first (each beside the others'
 * arenas, mp_memory_args.reserved), so that check fails only when the
 * models cannot be placed together.
 */
#include "memplan.h"

#include "plan/symbols.h"
#include "util/diag.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void mp_shared_scratch_free(mp_shared_scratch *s) {
  if (!s) return;
  free(s->models);
  memset(s, 0, sizeof *s);
}

mp_status mp_shared_scratch_build(const mp_plan *const *plans, const char *const *prefixes,
                                  uint32_t n, const char *prefix, const mp_diag_sink *dx,
                                  mp_shared_scratch *out) {
  memset(out, 0, sizeof *out);
  if (n == 0 || !plans || !prefixes || !prefix) return MP_ERR_INTERNAL;
  out->prefix = prefix;
  out->n_models = n;
  out->models = calloc(n, sizeof *out->models);
  if (!out->models) return MP_ERR_NOMEM;
  uint64_t others[MP_MEM_COUNT] = {0}; /* every plan's persistent and constant bytes */
  bool have[MP_MEM_COUNT] = {false};
  for (uint32_t i = 0; i < n; i++) {
    const mp_plan *p = plans[i];
    out->models[i].prefix = prefixes[i];
    for (uint32_t a = 0; a < p->n_arenas; a++) {
      const mp_arena *ar = &p->arenas[a];
      if (ar->role != MP_ROLE_SCRATCH) continue;
      mp_memory m = ar->memory;
      out->models[i].scratch[m] += ar->total_size;
      if (!have[m]) out->owner[m] = i;
      have[m] = true;
      if (ar->alignment > out->align[m]) out->align[m] = ar->alignment;
    }
    for (int m = 0; m < MP_MEM_COUNT; m++) {
      const mp_memory_usage *u = &p->memories[m];
      others[m] += u->persistent + u->constant + u->staged_source;
      if (out->models[i].scratch[m] > out->size[m]) out->size[m] = out->models[i].scratch[m];
    }
  }
  const mp_platform *pf = &plans[0]->platform;
  mp_status st = MP_OK;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    const mp_memory_usage *u = &plans[0]->memories[m];
    if (!u->present) continue;
    uint64_t need = out->size[m] + others[m];
    out->held[m] = need;
    if (need <= u->budget) continue;
    mp_error(dx, MP_LOC_NONE,
             "%s cannot hold the shared scratch (%llu bytes) and the models' persistent and "
             "constant arenas there (%llu bytes): %llu bytes against a budget of %llu, %llu "
             "short; give the constants another memory with a ruleset",
             mp_platform_memory_name(pf, (mp_memory)m), (unsigned long long)out->size[m],
             (unsigned long long)others[m], (unsigned long long)need,
             (unsigned long long)u->budget, (unsigned long long)(need - u->budget));
    st = MP_ERR_NOFIT;
  }
  if (st != MP_OK) mp_shared_scratch_free(out);
  return st;
}

char *mp_shared_scratch_summary(const mp_shared_scratch *s, const mp_platform *pf) {
  mp_buf b;
  mp_buf_init(&b);
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n_mem = mp_platform_by_name(pf, by_name);
  for (uint32_t k = 0; k < n_mem; k++) {
    mp_memory m = by_name[k];
    if (!s->size[m]) continue;
    char sym[160];
    mp_buf_printf(&b, "shared    %s scratch %llu bytes (%s, defined by %s):",
                  mp_platform_memory_name(pf, m), (unsigned long long)s->size[m],
                  mp_shared_symbol(s, pf, m, sym, sizeof sym), s->models[s->owner[m]].prefix);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < s->n_models; i++) {
      mp_buf_printf(&b, "%s %s %llu", i ? "," : "", s->models[i].prefix,
                    (unsigned long long)s->models[i].scratch[m]);
      sum += s->models[i].scratch[m];
    }
    mp_buf_printf(&b, "; %llu bytes saved against one arena each\n",
                  (unsigned long long)(sum - s->size[m]));
  }
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  return b.data ? b.data : calloc(1, 1);
}
