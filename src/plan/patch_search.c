/*
 * patch_search.c — memory.patch auto: which stage to run tile by tile, on
 * which tile grid.
 *
 * With auto, the
 * candidate stages from the model's first operator (mp_patch_candidates)
 * are tried on tile grids of 2x2 to 8x8: each on a fresh copy of the
 * graph, ranked by its lower bound, the best few planned with the
 * configured planner; the smallest plan (of equal ones, the one with the
 * fewest multiply-accumulates) is kept only when it needs less scratch
 * than the graph unpatched, so auto never costs bytes.
 *
 * Speed: the graph is built as the caller's was once, and every candidate
 * patches a copy of that build (mp_graph_clone); the lowerings the
 * candidates repeat are kept in a memo (mp_patch_memo).  Both give what a
 * new build would, so the choice is the same; the graph returned is built
 * anew with the stages kept, owning all it holds.
 */
#include "memplan.h"

#include "graph/patch.h"
#include "graph/storage.h"

#include <stdlib.h>
#include <string.h>

/* The grids auto tries, n x n tiles. */
static const uint32_t grids[] = {2, 3, 4, 5, 6, 7, 8};
/* How many of the best-bounded stages auto plans in full. */
#define PLANNED 6

typedef struct search {
  const mp_platform *pf;
  const mp_memory_args *mem;
  /* the graph rebuilt once (rebuild); every candidate starts from a copy */
  mp_graph *base;
  mp_patch_memo *memo; /* the lowerings the candidates' stages repeat */
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

/* A fresh copy of g as rebuild gives it, for a candidate: a copy of the
 * graph rebuilt once (the build is the same every time), owning what the
 * stages change.  It shares the rest with cfg->base: the graph the search
 * returns is rebuilt on its own (own_graph). */
static mp_status fresh(const search *cfg, mp_graph **out) {
  return mp_graph_clone(cfg->base, out);
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

/* ---- a chain of stages --------------------------------------------------
 *
 * One stage from the first operator cannot lower every peak: a stage ending
 * early leaves the feature maps after it whole, one ending late has large
 * tile buffers beside its input.  A chain runs several stages one after the
 * other, each ending at a lower resolution than it starts.  Each stage is
 * judged by the peak over its own operators (mp_graph_peak_between), on a
 * graph where it is the only stage (the stages' peaks hardly depend on one
 * another); the chain is built greedily, stage after stage: first each
 * stage with the least peak, then, with that chain's bound as the ceiling,
 * each with the fewest multiply-accumulates among those under it, and only
 * while the operators left exceed it.  Both chains are planned in full. */

/* The grids a chain's stages try, n x n tiles. */
static const uint32_t chain_grids[] = {2, 3, 4, 6, 8, 12, 16};
#define MAX_STAGES 4

typedef struct pick {
  uint32_t first, last, grid;
  uint64_t peak, extra; /* its operators' peak; its halos' multiply-accumulates */
} pick;

typedef struct step_trials { /* the stages from one first operator */
  uint32_t first;
  pick *t;
  size_t n;
} step_trials;

typedef struct memo {
  step_trials s[MAX_STAGES * 2 + 2];
  size_t n;
  uint32_t tried;
} memo;

static void memo_free(memo *m) {
  for (size_t i = 0; i < m->n; i++) free(m->s[i].t);
  m->n = 0;
}

/* The stages from operator `first`, each alone on a fresh copy of g,
 * ending at most two halvings of the resolution (16x fewer pixels) below
 * their input. */
static mp_status trials_from(const search *cfg, const mp_graph *g, uint32_t first, memo *m,
                             const step_trials **out) {
  *out = NULL;
  for (size_t i = 0; i < m->n; i++)
    if (m->s[i].first == first) {
      *out = &m->s[i];
      return MP_OK;
    }
  if (m->n == sizeof m->s / sizeof *m->s) return MP_OK;
  uint32_t *lasts = NULL;
  size_t nl = 0;
  mp_status st = mp_patch_candidates(g, first, &lasts, &nl);
  if (st != MP_OK) return st;
  size_t ng = sizeof chain_grids / sizeof *chain_grids;
  step_trials *s = &m->s[m->n];
  s->first = first;
  s->n = 0;
  s->t = malloc((nl ? nl : 1) * ng * sizeof *s->t);
  if (!s->t) {
    free(lasts);
    return MP_ERR_NOMEM;
  }
  m->n++;
  uint32_t align = align_of(cfg);
  bool deep = false;
  for (size_t i = 0; i < nl && !deep && st == MP_OK; i++)
    for (size_t k = 0; k < ng && st == MP_OK; k++) {
      mp_graph *c = NULL;
      st = fresh(cfg, &c);
      if (st != MP_OK) break;
      m->tried++;
      if (mp_graph_patch_memo(c, first, lasts[i], chain_grids[k], chain_grids[k], NULL,
                              cfg->memo) == MP_OK) {
        const mp_patch *p = c->patch;
        const mp_patch_tensor *x = &p->tensors[0], *y = &p->tensors[p->n_tensors - 1];
        if ((int64_t)y->h * y->w * 16 < (int64_t)x->h * x->w) {
          deep = true; /* later candidates end lower still */
          mp_graph_free(&c);
          break;
        }
        s->t[s->n++] = (pick){first, lasts[i], chain_grids[k],
                              mp_graph_peak_between(c, align, cfg->mem->in_place, first, lasts[i]),
                              p->macs_patched > p->macs ? p->macs_patched - p->macs : 0};
      }
      mp_graph_free(&c);
    }
  free(lasts);
  *out = s;
  return st;
}

/* A fresh copy of g with the chain's stages. */
static mp_status build_chain(const search *cfg, const pick *chain, uint32_t n, mp_graph **out) {
  mp_status st = fresh(cfg, out);
  for (uint32_t i = 0; i < n && st == MP_OK; i++)
    if (mp_graph_patch_memo(*out, chain[i].first, chain[i].last, chain[i].grid, chain[i].grid,
                            NULL, cfg->memo) != MP_OK)
      st = MP_ERR_INTERNAL;
  if (st != MP_OK) mp_graph_free(out);
  return st;
}

/* A chain built stage after stage: with ceiling UINT64_MAX each stage has
 * the least peak (of equal ones the fewest halos) and is kept while it
 * lowers the operators left; else each has the fewest halos among those
 * at or under the ceiling, and stages are added while the operators left
 * exceed it. */
static mp_status greedy_chain(const search *cfg, const mp_graph *g, uint64_t ceiling, memo *m,
                              pick *chain, uint32_t *n) {
  *n = 0;
  uint32_t first = 0, align = align_of(cfg);
  mp_status st = MP_OK;
  while (*n < MAX_STAGES && first < g->n_ops) {
    mp_graph *cur = NULL;
    if ((st = build_chain(cfg, chain, *n, &cur)) != MP_OK) return st;
    uint64_t rest = mp_graph_peak_between(cur, align, cfg->mem->in_place, first, g->n_ops - 1);
    mp_graph_free(&cur);
    if (ceiling != UINT64_MAX && rest <= ceiling) break;
    const step_trials *s = NULL;
    if ((st = trials_from(cfg, g, first, m, &s)) != MP_OK) return st;
    const pick *best = NULL;
    for (size_t i = 0; s && i < s->n; i++) {
      const pick *t = &s->t[i];
      if (ceiling == UINT64_MAX) {
        if (!best || t->peak < best->peak || (t->peak == best->peak && t->extra < best->extra))
          best = t;
      } else if (t->peak <= ceiling && (!best || t->extra < best->extra)) {
        best = t;
      }
    }
    if (!best || best->peak >= rest) break;
    chain[(*n)++] = *best;
    first = best->last + 1;
  }
  return st;
}

static uint64_t chain_extra(const mp_graph *g) {
  uint64_t e = 0;
  for (const mp_patch *p = g->patch; p; p = p->next)
    e += p->macs_patched > p->macs ? p->macs_patched - p->macs : 0;
  return e;
}

/* Plan the chains (the least peaks, then the fewest halos under their
 * bound); *keep becomes the better of it and *keep when it needs less
 * scratch than *best (of equal plans, fewer halos). */
static mp_status chain_auto(const search *cfg, const mp_graph *g, mp_graph **keep, uint64_t *best,
                            uint32_t *tried) {
  memo m;
  memset(&m, 0, sizeof m);
  pick chain[MAX_STAGES];
  uint32_t n = 0;
  uint64_t ceiling = UINT64_MAX;
  mp_status st = MP_OK;
  for (int pass = 0; pass < 2 && st == MP_OK; pass++) {
    st = greedy_chain(cfg, g, ceiling, &m, chain, &n);
    if (st != MP_OK || n < 2) break; /* one stage: the search above tried it */
    mp_graph *c = NULL;
    if ((st = build_chain(cfg, chain, n, &c)) != MP_OK) break;
    ceiling = bound_of(cfg, c);
    uint64_t s = 0;
    if (plan_scratch(cfg, c, &s) &&
        (s < *best || (s == *best && *keep && chain_extra(c) < chain_extra(*keep)))) {
      mp_graph_free(keep);
      *keep = c;
      *best = s;
    } else {
      mp_graph_free(&c);
    }
  }
  *tried += m.tried;
  memo_free(&m);
  return st;
}

/* ---- the grids, refined by the plan --------------------------------------
 *
 * The stages are chosen by their peaks, on square grids; the plan of the
 * whole graph is what counts.  So the kept stages' grids are refined, stage
 * after stage: every rows x cols grid below with fewer multiply-accumulates
 * than the stages have, tried in that order (those whose bound is above the
 * kept plan's scratch skipped), and the first whose plan needs no more
 * scratch replaces the grid; rounds repeat while a grid changes. */

static const uint32_t refine_sides[] = {2, 3, 4, 6, 8, 12, 16};
#define REFINE_ROUNDS 3

typedef struct stage_grid {
  uint32_t first, last, rows, cols;
} stage_grid;

typedef struct grid_try {
  uint64_t extra;
  uint32_t rows, cols;
} grid_try;

static int cmp_grid_try(const void *a, const void *b) {
  const grid_try *x = a, *y = b;
  if (x->extra != y->extra) return x->extra < y->extra ? -1 : 1;
  if (x->rows * x->cols != y->rows * y->cols) return x->rows * x->cols < y->rows * y->cols ? -1 : 1;
  if (x->rows != y->rows) return x->rows < y->rows ? -1 : 1;
  return (x->cols > y->cols) - (x->cols < y->cols);
}

/* A fresh copy of g with the stages s[0 .. n). */
static mp_status build_grids(const search *cfg, const stage_grid *s, uint32_t n,
                             mp_graph **out) {
  mp_status st = fresh(cfg, out);
  for (uint32_t i = 0; i < n && st == MP_OK; i++)
    if (mp_graph_patch_memo(*out, s[i].first, s[i].last, s[i].rows, s[i].cols, NULL, cfg->memo) !=
        MP_OK)
      st = MP_ERR_CONFIG;
  if (st != MP_OK) mp_graph_free(out);
  return st;
}

static mp_status refine_grids(const search *cfg, mp_graph **keep, uint64_t *best, uint32_t *tried) {
  stage_grid s[MAX_STAGES];
  uint32_t n = 0;
  for (const mp_patch *p = (*keep)->patch; p; p = p->next) {
    if (n == MAX_STAGES) return MP_OK;
    s[n++] = (stage_grid){p->first, p->last, p->rows, p->cols};
  }
  size_t ns = sizeof refine_sides / sizeof *refine_sides;
  grid_try *t = malloc(ns * ns * sizeof *t);
  if (!t) return MP_ERR_NOMEM;
  mp_status st = MP_OK;
  bool changed = true;
  for (int round = 0; round < REFINE_ROUNDS && changed && st == MP_OK; round++) {
    changed = false;
    for (uint32_t i = 0; i < n && st == MP_OK; i++) {
      uint64_t have = chain_extra(*keep);
      stage_grid was = s[i];
      size_t nt = 0;
      for (size_t r = 0; r < ns && st == MP_OK; r++)
        for (size_t k = 0; k < ns && st == MP_OK; k++) {
          if (refine_sides[r] == was.rows && refine_sides[k] == was.cols) continue;
          s[i].rows = refine_sides[r];
          s[i].cols = refine_sides[k];
          mp_graph *c = NULL;
          st = build_grids(cfg, s, n, &c);
          if (st == MP_ERR_CONFIG) { /* no stage on that grid */
            st = MP_OK;
            continue;
          }
          if (st != MP_OK) break;
          (*tried)++;
          uint64_t e = chain_extra(c);
          if (e < have && bound_of(cfg, c) <= *best)
            t[nt++] = (grid_try){e, s[i].rows, s[i].cols};
          mp_graph_free(&c);
        }
      qsort(t, nt, sizeof *t, cmp_grid_try);
      s[i] = was;
      for (size_t q = 0; q < nt && st == MP_OK; q++) {
        s[i].rows = t[q].rows;
        s[i].cols = t[q].cols;
        mp_graph *c = NULL;
        st = build_grids(cfg, s, n, &c);
        if (st == MP_ERR_CONFIG) st = MP_OK; /* built above: not expected */
        if (!c) {
          s[i] = was;
          continue;
        }
        uint64_t b = 0;
        if (plan_scratch(cfg, c, &b) && b <= *best) {
          mp_graph_free(keep);
          *keep = c;
          *best = b;
          changed = true;
          break;
        }
        mp_graph_free(&c);
        s[i] = was;
      }
    }
  }
  free(t);
  return st;
}

/* The graph the search returns: g rebuilt with keep's stages, owning all
 * it holds (keep shares the rebuilt graph's arrays, fresh). */
static mp_status own_graph(const search *cfg, bool allow_unsupported, const mp_graph *g,
                           const mp_graph *keep, mp_graph **out) {
  mp_status st = rebuild(cfg, g, allow_unsupported, out);
  for (const mp_patch *p = keep->patch; p && st == MP_OK; p = p->next)
    if (mp_graph_patch(*out, p->first, p->last, p->rows, p->cols, NULL) != MP_OK)
      st = MP_ERR_INTERNAL;
  if (st != MP_OK) mp_graph_free(out);
  return st;
}

static mp_status patch_auto(search *cfg, bool allow_unsupported, const mp_graph *g,
                            mp_graph **out) {
  *out = NULL;
  uint32_t *lasts = NULL;
  size_t nl = 0;
  mp_status st = mp_patch_candidates(g, 0, &lasts, &nl);
  if (st != MP_OK || nl == 0) return st;
  if ((st = rebuild(cfg, g, allow_unsupported, &cfg->base)) != MP_OK ||
      (st = mp_patch_memo_new(cfg->base, &cfg->memo)) != MP_OK) {
    free(lasts);
    return st;
  }
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
      st = fresh(cfg, &c);
      if (st != MP_OK) break;
      if (mp_graph_patch_memo(c, 0, lasts[i], grids[k], grids[k], NULL, cfg->memo) == MP_OK)
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
    st = fresh(cfg, &c);
    if (st != MP_OK) break;
    if (mp_graph_patch_memo(c, 0, tr[i].last, tr[i].grid, tr[i].grid, NULL, cfg->memo) == MP_OK &&
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
  uint32_t tried = (uint32_t)nt;
  if (st == MP_OK) {
    if (!keep) best = base;
    st = chain_auto(cfg, g, &keep, &best, &tried);
  }
  if (st == MP_OK && keep) st = refine_grids(cfg, &keep, &best, &tried);
  mp_graph *own = NULL;
  if (st == MP_OK && keep) st = own_graph(cfg, allow_unsupported, g, keep, &own);
  mp_graph_free(&keep);
  if (st != MP_OK) return st;
  if (own) {
    mp_graph_patch_baseline(own, base, mp_graph_lower_bound(g, align_of(cfg)),
                            mp_graph_inplace_bound(g, align_of(cfg)), true, tried);
    *out = own;
  }
  return MP_OK;
}

mp_status mp_patch_search(const mp_graph *g, const mp_platform *pf, const mp_memory_args *mem,
                          bool allow_unsupported, mp_graph **out) {
  search c = {pf, mem, NULL, NULL};
  mp_status st = patch_auto(&c, allow_unsupported, g, out);
  mp_patch_memo_free(&c.memo);
  mp_graph_free(&c.base);
  return st;
}

mp_status mp_patch_stage_baseline(mp_graph *g, const mp_platform *pf, const mp_memory_args *mem,
                                  uint32_t first, uint32_t last, uint32_t rows, uint32_t cols,
                                  const mp_diag_sink *dx) {
  search c = {pf, mem, NULL, NULL};
  uint64_t base = 0, tl = mp_graph_lower_bound(g, align_of(&c)),
           ip = mp_graph_inplace_bound(g, align_of(&c));
  bool planned = plan_scratch(&c, g, &base);
  mp_status st = mp_graph_patch(g, first, last, rows, cols, dx);
  if (st == MP_OK && planned) mp_graph_patch_baseline(g, base, tl, ip, false, 1);
  return st;
}
