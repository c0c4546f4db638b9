/*
 * fold.c — PAD folding in the commands that plan (convert, plan).
 *
 * With memory.in_place the graph folds PADs into their convolutions
 * (mp_graph_options.fold_pads).  Folding never raises the tensor-level
 * bound, since a PAD's padded copy is larger than its input, but it
 * lengthens the input's lifetime, and a heuristic planner can place the
 * folded graph worse.  So the commands plan the model both ways and keep
 * the folded plan unless the unfolded one needs less scratch: in_place
 * never costs bytes.  The second run is skipped when the folded plan is
 * already at or below the unfolded graph's in-place bound.
 */
#include "cli.h"

#include <stdio.h>

mp_status cli_plan_folded(cli *c, const mp_config *cfg, const mp_graph *g, const mp_graph *plain,
                          mp_plan **out, uint64_t *saved) {
  mp_memory_args mem = cfg->memory;
  mem.progress = c->progress;
  *saved = 0;
  mp_status st = mp_plan_build(g, &cfg->platform, &mem, &c->sink, out);
  if (st != MP_OK || !plain || !cli_rewritten(g)) return st;
  /* no plan of the unfolded graph is below its in-place bound (at byte
   * alignment, a floor for every alignment and every split into banks):
   * a folded plan at or under it needs no second planner run */
  uint64_t a = mp_plan_scratch_bytes(*out);
  if (a <= mp_graph_inplace_bound(plain, 1)) return MP_OK;
  mp_plan *alt = NULL;
  /* the unfolded plan's diagnostics are the folded one's: not repeated */
  if (mp_plan_build(plain, &cfg->platform, &mem, NULL, &alt) != MP_OK) return MP_OK;
  uint64_t b = mp_plan_scratch_bytes(alt);
  if (b < a) {
    *saved = a - b;
    mp_plan_free(out);
    *out = alt;
  } else {
    mp_plan_free(&alt);
  }
  return MP_OK;
}

mp_status cli_plain_graph(const mp_config *cfg, const mp_model *m, const mp_graph *g,
                          bool allow_unsupported, mp_graph **plain) {
  *plain = NULL;
  if (!cli_rewritten(g)) return MP_OK;
  mp_status st = mp_graph_build(m, cfg->subgraph, NULL, NULL, plain);
  if (st == MP_OK) {
    (*plain)->target = cfg->target;
    st = mp_kernels_prepare(*plain, allow_unsupported, NULL);
  }
  if (st == MP_OK) st = cli_order_graph(cfg, false, allow_unsupported, plain);
  return st;
}

void cli_print_fold_note(const mp_graph *g, const mp_config *cfg, uint64_t saved) {
  if (!saved) return;
  if (g->n_view_ops || g->n_elided_concats) {
    printf("rewrites: not kept (%u PAD%s folded, %u view%s, %u CONCATENATION%s elided): without "
           "them, planner %s needs %llu bytes less scratch\n", g->n_folded_pads,
           g->n_folded_pads == 1 ? "" : "s", g->n_view_ops, g->n_view_ops == 1 ? "" : "s",
           g->n_elided_concats, g->n_elided_concats == 1 ? "" : "s", cfg->memory.planner,
           (unsigned long long)saved);
    return;
  }
  printf("rewrites: %u PAD%s not folded: without folding, planner %s needs %llu bytes less "
         "scratch\n", g->n_folded_pads, g->n_folded_pads == 1 ? "" : "s", cfg->memory.planner,
         (unsigned long long)saved);
}
