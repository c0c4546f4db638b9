/*
 * fold.c — memory.in_place's rewrites in the commands that plan (convert,
 * plan): the graph without them, which mp_plan_build_rewritten plans too
 * when the rewritten plan may be beaten, and the summary line saying that
 * the rewrites were not kept.
 */
#include "cli.h"

#include <stdio.h>

mp_status cli_plain_graph(const mp_config *cfg, const mp_model *m, const mp_graph *g,
                          bool allow_unsupported, mp_graph **plain) {
  *plain = NULL;
  if (!mp_graph_rewritten(g)) return MP_OK;
  mp_status st = mp_graph_build(m, cfg->subgraph, NULL, NULL, plain);
  if (st == MP_OK) {
    (*plain)->target = cfg->target;
    st = mp_kernels_prepare(*plain, allow_unsupported, NULL);
  }
  if (st == MP_OK) st = cli_order_graph(cfg, false, allow_unsupported, plain);
  return st;
}

void cli_print_fold_note(const mp_plan *p, const mp_config *cfg) {
  uint64_t saved = p->rewrites.saved;
  uint32_t pads = p->rewrites.n_folded_pads, views = p->rewrites.n_view_ops,
           concats = p->rewrites.n_elided_concats;
  if (!saved) return;
  if (views || concats) {
    printf("rewrites: not kept (%u PAD%s folded, %u view%s, %u CONCATENATION%s elided): without "
           "them, planner %s needs %llu bytes less scratch\n", pads, pads == 1 ? "" : "s", views,
           views == 1 ? "" : "s", concats, concats == 1 ? "" : "s", cfg->memory.planner,
           (unsigned long long)saved);
    return;
  }
  printf("rewrites: %u PAD%s not folded: without folding, planner %s needs %llu bytes less "
         "scratch\n", pads, pads == 1 ? "" : "s", cfg->memory.planner, (unsigned long long)saved);
}
