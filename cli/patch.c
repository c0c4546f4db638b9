/*
 * patch.c — memory.patch in the commands that plan (convert, plan): a stage
 * given in the config is applied to the graph (an operator range that is no
 * stage is an error naming why); with auto, the library's search replaces
 * the graph with a patched one when that plans smaller.
 */
#include "cli.h"

mp_status cli_patch_graph(const mp_config *cfg, bool allow_unsupported, const mp_diag_sink *dx,
                          mp_graph **g) {
  const mp_memory_args *m = &cfg->memory;
  if (m->patch == MP_PATCH_OFF || !*g) return MP_OK;
  if (m->patch == MP_PATCH_STAGE)
    return mp_patch_stage_baseline(*g, &cfg->platform, m, m->patch_first, m->patch_last,
                                   m->patch_rows, m->patch_cols, dx);
  mp_graph *found = NULL;
  mp_status st = mp_patch_search(*g, &cfg->platform, m, allow_unsupported, &found);
  if (st == MP_OK && found) {
    mp_graph_free(g);
    *g = found;
  }
  return st;
}
