/*
 * order.c — memory.op_order in the commands that plan (convert, plan).
 *
 * With min_peak the graph, built and prepared in the model's order, is
 * searched for a better topological order (mp_order_search); when one is
 * found the graph is built again in it, so that lifetimes, views, folded
 * PADs, op-local scratch and the kernels' contracts all follow the order
 * the module will run.  The rebuilt graph is kept only when its own bound
 * (recomputed by the library, not taken from the search) is strictly
 * below the model order's: the order never costs bytes.
 */
#include "cli.h"

#include <stdlib.h>

/* The scratch bytes of g's plan with cfg's planner; false when it does not
 * plan (does not fit, say). */
static bool plan_scratch(const mp_config *cfg, const mp_graph *g, uint64_t *bytes) {
  mp_plan *p = NULL;
  *bytes = 0;
  if (mp_plan_build(g, &cfg->platform, &cfg->memory, NULL, &p) != MP_OK) return false;
  *bytes = mp_plan_scratch_bytes(p);
  mp_plan_free(&p);
  return true;
}

static uint64_t graph_bound(const mp_graph *g, uint32_t align, bool in_place) {
  return in_place ? mp_graph_inplace_bound(g, align) : mp_graph_lower_bound(g, align);
}

mp_status cli_order_graph(const mp_config *cfg, bool rewrite, bool allow_unsupported,
                          mp_graph **g) {
  if (cfg->memory.op_order != MP_OP_ORDER_MIN_PEAK || !*g) return MP_OK;
  mp_graph *old = *g;
  uint32_t align = cfg->platform.min_alignment ? cfg->platform.min_alignment : 1;
  bool ip = cfg->memory.in_place;
  uint32_t *order = malloc((old->n_ops ? old->n_ops : 1) * sizeof *order);
  if (!order) return MP_ERR_NOMEM;
  mp_order_result r;
  mp_status st = mp_order_search(old, align, ip, 0, order, &r);
  mp_graph *ng = NULL;
  if (st == MP_OK && r.moved) {
    mp_graph_options go = {.alias_views = true, .fold_pads = rewrite, .sub_views = rewrite,
                           .serial_depthwise = old->serial_depthwise,
                           .fast_kernels = old->fast_kernels,
                           .caller_io = cfg->memory.io_caller, .order = order};
    /* the model built once already: its diagnostics are not repeated */
    st = mp_graph_build(old->model, old->subgraph, &go, NULL, &ng);
    if (st == MP_OK) {
      ng->target = old->target;
      st = mp_kernels_prepare(ng, allow_unsupported, NULL);
    }
  }
  free(order);
  if (st != MP_OK) {
    mp_graph_free(&ng);
    return st;
  }
  r.model_bound = graph_bound(old, align, ip);
  uint64_t nb = ng ? graph_bound(ng, align, ip) : r.model_bound;
  if (ng && nb < r.model_bound) {
    uint64_t sm = 0, so = 0;
    bool pm = plan_scratch(cfg, old, &sm), po = plan_scratch(cfg, ng, &so);
    if (pm && (!po || so >= sm)) { /* the planner does no better in the new order */
      r.planner_kept_model = true;
      r.found_bound = nb;
      r.model_scratch = sm;
      r.found_scratch = po ? so : 0;
      mp_graph_free(&ng);
    }
  }
  if (ng && nb < r.model_bound) {
    r.bound = nb;
    ng->order = r;
    mp_graph_free(g);
    *g = ng;
  } else {
    mp_graph_free(&ng);
    r.bound = r.model_bound;
    r.moved = 0;
    old->order = r;
  }
  return MP_OK;
}
