/*
 * patch_search.c — memory.patch auto: which stage to run tile by tile, on
 * which tile grid.
 *
 * With auto, the
 * candidate stages from the model's first operator (mp_patch_candidates)
 * are tried on tile grids of 2x2 to 8x8: each on a fresh build of the
 * graph, ranked by its lower bound, the best few planned with the
 * configured planner; the smallest plan (of equal ones, the one with the
 * fewest multiply-accumulates) is kept only when it needs less scratch
 * than the graph unpatched, so auto never costs bytes.
 */
#include "memplan.h"

#include <stdlib.h>

/* The grids auto tries, n x n tiles. */
static const uint32_t grids[] = {2, 3, 4, 5, 6, 7, 8};
/* How many of the best-bounded stages auto plans in full. */
#define PLANNED 6

typedef struct search {
  const mp_platform *pf;
  const mp_memory_args *mem;
} search;

static bool plan_scratch(const search *cfg, const mp_graph *g, uint64_t *bytes) {
  mp_plan *p = NULL;
  *bytes = 0;
  if (mp_plan_build(g, cfg->pf, cfg->mem, NULL, &p) != MP_OK) return false;
  *bytes = mp_plan_scratch_bytes(p);
  mp_plan_free(&p);
  return true;
}

/* A fresh copy of g, built as g was (rewrites, order, target, kernels). */
static mp_status rebuild(const search *cfg, const mp_graph *g, bool allow_unsupported,
                         mp_graph **out) {
  *out = NULL;
  uint32_t *order = NULL;
  if (g->reordered) {
    order = malloc((g->n_ops ? g->n_ops : 1) * sizeof *order);
    if (!order) return MP_ERR_NOMEM;
    for (uint32_t i = 0; i < g->n_ops; i++) order[i] = g->ops[i].model_index;
  }
  /* the rewrites as the graph has them (memory.in_place) */
  mp_graph_options go = {.alias_views = true, .fold_pads = cfg->mem->in_place,
                         .sub_views = cfg->mem->in_place,
                         .serial_depthwise = g->serial_depthwise,
                         .fast_kernels = g->fast_kernels,
                         .caller_io = cfg->mem->io_caller, .order = order};
  mp_status st = mp_graph_build(g->model, g->subgraph, &go, NULL, out);
  if (st == MP_OK) {
    (*out)->target = g->target;
    st = mp_kernels_prepare(*out, allow_unsupported, NULL);
    (*out)->order = g->order;
  }
  free(order);
  if (st != MP_OK) mp_graph_free(out);
  return st;
}

typedef struct trial {
  uint32_t last, grid;
  uint64_t bound;
} trial;

static int cmp_trial(const void *a, const void *b) {
  const trial *x = a, *y = b;
  if (x->bound != y->bound) return x->bound < y->bound ? -1 : 1;
  if (x->last != y->last) return x->last < y->last ? -1 : 1;
  return (x->grid > y->grid) - (x->grid < y->grid);
}

static uint32_t align_of(const search *cfg) {
  return cfg->pf->min_alignment ? cfg->pf->min_alignment : 1;
}

static uint64_t bound_of(const search *cfg, const mp_graph *g) {
  uint32_t align = align_of(cfg);
  return cfg->mem->in_place ? mp_graph_inplace_bound(g, align) : mp_graph_lower_bound(g, align);
}

static mp_status patch_auto(const search *cfg, bool allow_unsupported, const mp_graph *g,
                            mp_graph **out) {
  *out = NULL;
  uint32_t *lasts = NULL;
  size_t nl = 0;
  mp_status st = mp_patch_candidates(g, &lasts, &nl);
  if (st != MP_OK || nl == 0) return st;
  size_t ng = sizeof grids / sizeof *grids;
  trial *tr = malloc(nl * ng * sizeof *tr);
  size_t nt = 0;
  if (!tr) {
    free(lasts);
    return MP_ERR_NOMEM;
  }
  for (size_t i = 0; i < nl && st == MP_OK; i++)
    for (size_t k = 0; k < ng && st == MP_OK; k++) {
      mp_graph *c = NULL;
      st = rebuild(cfg, g, allow_unsupported, &c);
      if (st != MP_OK) break;
      if (mp_graph_patch(c, 0, lasts[i], grids[k], grids[k], NULL) == MP_OK)
        tr[nt++] = (trial){lasts[i], grids[k], bound_of(cfg, c)};
      mp_graph_free(&c);
    }
  free(lasts);
  if (st != MP_OK || nt == 0) {
    free(tr);
    return st;
  }
  qsort(tr, nt, sizeof *tr, cmp_trial);
  uint64_t base = 0, best = 0;
  if (!plan_scratch(cfg, g, &base)) base = UINT64_MAX;
  mp_graph *keep = NULL;
  uint64_t best_macs = 0;
  for (size_t i = 0; i < nt && i < PLANNED && st == MP_OK; i++) {
    mp_graph *c = NULL;
    uint64_t s = 0;
    st = rebuild(cfg, g, allow_unsupported, &c);
    if (st != MP_OK) break;
    if (mp_graph_patch(c, 0, tr[i].last, tr[i].grid, tr[i].grid, NULL) == MP_OK &&
        plan_scratch(cfg, c, &s) && s < base) {
      /* the least scratch; of equal plans, the fewest recomputed halos */
      mp_patch_info pi;
      mp_graph_patch_info(c, &pi);
      if (!keep || s < best || (s == best && pi.macs_patched < best_macs)) {
        mp_graph_free(&keep);
        keep = c;
        best = s;
        best_macs = pi.macs_patched;
        continue;
      }
    }
    mp_graph_free(&c);
  }
  free(tr);
  if (st != MP_OK) {
    mp_graph_free(&keep);
    return st;
  }
  if (keep) {
    mp_graph_patch_baseline(keep, base, mp_graph_lower_bound(g, align_of(cfg)),
                            mp_graph_inplace_bound(g, align_of(cfg)), true, (uint32_t)nt);
    *out = keep;
  }
  return MP_OK;
}

mp_status mp_patch_search(const mp_graph *g, const mp_platform *pf, const mp_memory_args *mem,
                          bool allow_unsupported, mp_graph **out) {
  search c = {pf, mem};
  return patch_auto(&c, allow_unsupported, g, out);
}

mp_status mp_patch_stage_baseline(mp_graph *g, const mp_platform *pf, const mp_memory_args *mem,
                                  uint32_t first, uint32_t last, uint32_t rows, uint32_t cols,
                                  const mp_diag_sink *dx) {
  search c = {pf, mem};
  uint64_t base = 0, tl = mp_graph_lower_bound(g, align_of(&c)),
           ip = mp_graph_inplace_bound(g, align_of(&c));
  bool planned = plan_scratch(&c, g, &base);
  mp_status st = mp_graph_patch(g, first, last, rows, cols, dx);
  if (st == MP_OK && planned) mp_graph_patch_baseline(g, base, tl, ip, false, 1);
  return st;
}
