/*
 * speed.c — the price of memory.in_place size in the commands that plan
 * (convert, plan): when the plan runs depthwise convolutions channel by
 * channel, the same model is planned again as memory.in_place speed (no
 * channel-serial kernel), and its scratch recorded in the plan, so that
 * the summary and the residency JSON give the bytes the faster kernels
 * would need.
 */
#include "cli.h"

mp_status cli_speed_scratch(const mp_config *cfg, const mp_model *m, bool allow_unsupported,
                            mp_plan *p) {
  if (cfg->memory.in_place_mode != MP_IN_PLACE_SIZE || !p->graph->n_serial_ops) return MP_OK;
  /* the build convert does, its diagnostics already given */
  mp_graph_options go = {.alias_views = true, .fold_pads = true, .sub_views = true,
                         .fast_kernels = cfg->target != MP_TARGET_GENERIC,
                         .caller_io = cfg->memory.io_caller};
  mp_graph *g = NULL, *plain = NULL;
  mp_plan *sp = NULL;
  mp_status st = mp_graph_build(m, cfg->subgraph, &go, NULL, &g);
  if (st == MP_OK) {
    g->target = cfg->target;
    st = mp_kernels_prepare(g, allow_unsupported, NULL);
  }
  if (st == MP_OK) st = cli_order_graph(cfg, true, allow_unsupported, &g);
  if (st == MP_OK) st = cli_patch_graph(cfg, allow_unsupported, NULL, &g);
  if (st == MP_OK) st = cli_plain_graph(cfg, m, g, allow_unsupported, &plain);
  mp_memory_args mem = cfg->memory;
  mem.in_place_mode = MP_IN_PLACE_SPEED;
  mem.progress = NULL;
  if (st == MP_OK) st = mp_plan_build_rewritten(g, plain, &cfg->platform, &mem, NULL, &sp);
  if (st == MP_OK) p->speed_scratch = mp_plan_scratch_bytes(sp);
  mp_plan_free(&sp);
  mp_graph_free(&plain);
  mp_graph_free(&g);
  /* without the figure the summary only names the operators */
  return st == MP_ERR_NOMEM ? st : MP_OK;
}
