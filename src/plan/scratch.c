/*
 * scratch.c — step 3 of the plan driver (plan.c): every scratch tensor
 * placed, by the selected planner, in the memories of the preference
 * order.  When the first writable memory cannot hold them all, tensors are
 * assigned to memories by first fit in the planner's visit order, spilling
 * to the next memory, and each memory's arena is laid out again.
 *
 * In-place planning (memory.in_place): before step 3, the kernels' overlap
 * contracts group scratch slots into composite buffers (inplace.c), which
 * the planner places like any buffer; each member then sits at its fixed
 * offset from its composite's base.  When that layout ends above the
 * tensor-level bound, the plain layout is planned too and the smaller one
 * kept; when both are above it and the arena lies in one memory, the
 * planners greedy_by_size, greedy and hill_climb lay it out too, in that
 * order, until one reaches the bound, and the smallest layout is kept
 * (mp_plan.in_place_layout says whose), so in_place never ends above the
 * bound where a planner reaches it.  The overlap pairs and the composites
 * are found once per plan, whichever planners then lay them out.
 *
 * It does not place persistent tensors or constants, and never checks its
 * own result (verify.c does).
 */
#include "util/diag.h"
#include "planners/firstfit.h"
#include "plan/planctx.h"

#include <stdlib.h>
#include <string.h>

/* ---- scratch ------------------------------------------------------------- */

typedef struct sitem {
  uint32_t t; /* tensor id (a composite: its representative) */
  int32_t start, end;
  uint64_t size;  /* unaligned bytes (a composite: its extent) */
  uint32_t align; /* a composite's alignment, 0 = the tensor's */
  int pinned;     /* memory or NO_MEM */
  int bank;       /* chosen memory */
  uint64_t offset;
  mp_placement_reason spill; /* kind SPILLED when it left the preferred memory */
} sitem;

static uint32_t item_align(const planctx *c, const sitem *it, mp_memory m) {
  uint32_t a = slot_align(c, &c->g->tensors[it->t], m);
  return it->align > a ? it->align : a;
}

/* Largest scratch height memory m can take with everything else there. */
static uint64_t scratch_capacity(planctx *c, mp_memory m) {
  uint64_t saved = c->scratch_h[m];
  c->scratch_h[m] = 0;
  uint64_t used = usage_total(plan_mem_usage(c, m));
  c->scratch_h[m] = saved;
  if (used >= c->budget[m]) return 0;
  return mp_align_down(c->budget[m] - used, arena_align(c, m));
}

static bool visit_by_start(const mp_planner *pl) { return !strcmp(pl->name, "greedy"); }

/* Run the planner on the items assigned to memory m; on success store the
 * layout if it fits in `cap`. Returns false when it did not fit. */
static mp_status solve_bank(planctx *c, sitem *items, size_t n, mp_memory m, uint64_t cap,
                            bool *fit) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    k += items[i].bank == (int)m;
  *fit = true;
  if (k == 0) return MP_OK;
  mp_item *pi = calloc(k, sizeof *pi);
  size_t *map = calloc(k, sizeof *map);
  uint64_t *offs = calloc(k, sizeof *offs);
  if (!pi || !map || !offs) {
    free(pi);
    free(map);
    free(offs);
    return MP_ERR_NOMEM;
  }
  k = 0;
  for (size_t i = 0; i < n; i++) {
    if (items[i].bank != (int)m) continue;
    uint32_t a = item_align(c, &items[i], m);
    pi[k] = (mp_item){mp_align_up(items[i].size, a), items[i].start, items[i].end, a, items[i].t};
    map[k++] = i;
  }
  mp_problem p = {k, pi, cap};
  mp_solution sol;
  memset(&sol, 0, sizeof sol);
  sol.offsets = offs;
  sol.progress = c->mem->progress;
  mp_status st = mp_solve(c->planner, &p, c->options, c->n_options, &sol, c->dx);
  if (st == MP_OK) {
    c->scratch_lb[m] = sol.lower_bound;
    if (sol.height <= cap) {
      for (size_t i = 0; i < k; i++)
        items[map[i]].offset = offs[i];
      c->scratch_h[m] = sol.height;
      c->scratch_n[m] = (uint32_t)k;
      c->proven_lo[m] = sol.proven_lower;
      c->proven_hi[m] = sol.proven_upper;
      c->timed_out[m] = sol.timed_out;
    } else {
      *fit = false;
    }
  }
  free(pi);
  free(map);
  free(offs);
  return st;
}

static uint64_t items_lower_bound(const planctx *c, const sitem *items, size_t n, mp_memory m);

static int cmp_span(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The largest free gap below `cap` that the items already in bank m leave
 * over the ops [start, end]: what first fit had for a slot there.  The
 * first `k` entries of `visit` are the items placed so far; bi holds their
 * aligned sizes for m. */
static uint64_t largest_gap(const sitem *items, const mp_item *bi, const uint32_t *visit, size_t k,
                            int m, int32_t start, int32_t end, uint64_t cap) {
  uint64_t *span = malloc((k ? k : 1) * 2 * sizeof *span);
  if (!span) return 0;
  size_t ns = 0;
  for (size_t j = 0; j < k; j++) {
    const sitem *y = &items[visit[j]];
    if (y->bank != m || y->end < start || end < y->start) continue;
    span[2 * ns] = y->offset;
    span[2 * ns + 1] = y->offset + bi[visit[j]].size;
    ns++;
  }
  qsort(span, ns, 2 * sizeof *span, cmp_span);
  uint64_t best = 0, at = 0;
  for (size_t j = 0; j < ns && at < cap; j++) {
    uint64_t lo = span[2 * j] < cap ? span[2 * j] : cap;
    if (lo > at && lo - at > best) best = lo - at;
    if (span[2 * j + 1] > at) at = span[2 * j + 1];
  }
  if (cap > at && cap - at > best) best = cap - at;
  free(span);
  return best;
}

/* A scratch item that fits in no memory it may take: an error with what
 * the scratch needs (the most bytes live at once, of the items pinned to
 * its memory or of all) against what the memories have free. */
static void scratch_nofit(planctx *c, const sitem *items, size_t n, const sitem *it,
                          const uint64_t *cap) {
  const mp_tensor *t = &c->g->tensors[it->t];
  char nb[72];
  const char *name = mp_name_middle(t->name, 60, nb, sizeof nb);
  sitem *sub = malloc((n ? n : 1) * sizeof *sub);
  size_t k = 0;
  for (size_t i = 0; sub && i < n; i++)
    if (it->pinned == NO_MEM || items[i].pinned == it->pinned) sub[k++] = items[i];
  if (it->pinned != NO_MEM) {
    mp_memory m = (mp_memory)it->pinned;
    uint64_t lb = sub ? items_lower_bound(c, sub, k, m) : 0;
    char raise[192], hint[448];
    plan_raise_hint(c, m, lb > cap[m] ? lb - cap[m] : 0, raise, sizeof raise);
    mp_memory o = plan_room_elsewhere(c, m, lb, false, true);
    if (o != MP_MEM_COUNT)
      snprintf(hint, sizeof hint,
               "%s; or pin the scratch to %s, which has %llu bytes free, or "
               "unpin it so it can spill.",
               raise, mem_name(c, o), (unsigned long long)plan_mem_free(c, o));
    else
      snprintf(hint, sizeof hint, "%s; or unpin it so it can spill.", raise);
    char all[128] = "";
    if (k > 1)
      snprintf(all, sizeof all,
               "the %zu scratch tensors pinned there need at least %llu bytes "
               "live at once, and ",
               k, (unsigned long long)lb);
    mp_error(c->dx, noloc(),
             "scratch tensor %u '%s' (%llu bytes, live over ops %d-%d) does not fit in %s: %s%s "
             "leaves %llu bytes for scratch (budget %llu bytes); short by %s%llu bytes. %s",
             it->t, name, (unsigned long long)it->size, it->start, it->end, mem_name(c, m), all,
             mem_name(c, m), (unsigned long long)cap[m], (unsigned long long)c->budget[m],
             k > 1 ? "at least " : "", (unsigned long long)(lb > cap[m] ? lb - cap[m] : 0), hint);
  } else {
    mp_buf fr;
    mp_buf_init(&fr);
    uint64_t all = 0, lb = 0;
    for (uint32_t b = 0; b < c->n_order; b++) {
      mp_memory m = c->order[b];
      if (!writable(c, m) || c->pinned_only[m]) continue;
      if (!lb && sub) lb = items_lower_bound(c, sub, k, m);
      all += cap[m];
      mp_buf_printf(&fr, "%s%s %llu", fr.len ? ", " : "", mem_name(c, m),
                    (unsigned long long)cap[m]);
    }
    bool can_raise = false, others = false;
    for (uint32_t b = 0; b < c->n_order; b++) {
      mp_memory m = c->order[b];
      if (!writable(c, m) || c->pinned_only[m]) continue;
      can_raise |= c->budget[m] < c->pf->size[m];
      others |= usage_total(plan_mem_usage(c, m)) > mp_align_up(c->scratch_h[m], arena_align(c, m));
    }
    mp_error(c->dx, noloc(),
             "scratch tensor %u '%s' (%llu bytes, live over ops %d-%d) does not fit in any "
             "writable memory: the activations need at least %llu bytes live at once, the "
             "writable memories leave %llu bytes for scratch in all (%s), and first fit found no "
             "gap of %llu bytes in any of them at that point. %s%s",
             it->t, name, (unsigned long long)it->size, it->start, it->end, (unsigned long long)lb,
             (unsigned long long)all, fr.data ? mp_buf_str(&fr) : "", (unsigned long long)it->size,
             can_raise ? "Raise a max_size in memory.constraints (up to the platform's size)"
                       : "Every writable memory is at the platform's full size",
             others ? ", or move constants and state out of the writable memories."
                    : "; memory.in_place lets outputs share bytes with their inputs.");
    mp_buf_free(&fr);
  }
  free(sub);
}

/* Assign items to memories by first fit in the planner's visit order
 * (pinned items first), spilling down the preference order: one first-fit
 * engine per memory, each over the items sized for that memory's slot
 * alignment.  Fills items[].bank and offsets. */
static mp_status assign_banks(planctx *c, sitem *items, size_t n, const uint64_t *cap) {
  mp_item *bi[MP_MEM_COUNT] = {NULL};
  mp_firstfit *ff[MP_MEM_COUNT] = {NULL};
  uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
  uint32_t *visit = malloc((n ? n : 1) * sizeof *visit);
  /* live scratch bytes per op in the preferred memory, to say where it was
   * full when a tensor spills */
  size_t n_ops = c->g->n_ops ? c->g->n_ops : 1;
  uint64_t *live = calloc(n_ops, sizeof *live);
  mp_status st = ord && visit && live ? MP_OK : MP_ERR_NOMEM;
  mp_memory any = MP_MEM_COUNT;
  for (uint32_t b = 0; b < c->n_order && st == MP_OK; b++) {
    mp_memory m = c->order[b];
    if (!writable(c, m)) continue;
    bi[m] = malloc((n ? n : 1) * sizeof(mp_item));
    if (!bi[m]) {
      st = MP_ERR_NOMEM;
      break;
    }
    for (size_t i = 0; i < n; i++) {
      uint32_t al = item_align(c, &items[i], m);
      bi[m][i] =
          (mp_item){mp_align_up(items[i].size, al), items[i].start, items[i].end, al, items[i].t};
    }
    st = mp_firstfit_new(bi[m], n, &ff[m]);
    if (any == MP_MEM_COUNT) any = m;
  }
  if (st == MP_OK && any != MP_MEM_COUNT)
    st = visit_by_start(c->planner) ? mp_firstfit_order_by_start(bi[any], n, ord)
                                    : mp_firstfit_order_by_size(bi[any], n, ord);
  if (st == MP_OK) {
    /* pinned items first, each group keeping the planner's order */
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
      for (size_t i = 0; i < n; i++)
        if ((items[ord[i]].pinned != NO_MEM) == (pass == 0)) visit[k++] = ord[i];
  }
  for (size_t k = 0; k < n && st == MP_OK; k++) {
    sitem *it = &items[visit[k]];
    it->bank = NO_MEM;
    for (uint32_t b = 0; b < c->n_order && it->bank == NO_MEM; b++) {
      mp_memory m = c->order[b];
      if (!ff[m] || cap[m] == 0) continue; /* a 0 limit would mean "none" to the engine */
      if (it->pinned != NO_MEM && it->pinned != (int)m) continue;
      if (it->pinned == NO_MEM && c->pinned_only[m]) continue;
      if (mp_firstfit_place(ff[m], visit[k], cap[m], &it->offset)) it->bank = (int)m;
    }
    if (it->bank != NO_MEM && it->pinned == NO_MEM && any != MP_MEM_COUNT && it->bank != (int)any) {
      /* spilled: the op of its lifetime where the preferred memory was fullest */
      mp_placement_reason r = {.kind = MP_REASON_SPILLED,
                               .rule = -1,
                               .spilled_from = any,
                               .full_at_op = -1,
                               .full_capacity = cap[any]};
      if (cap[any]) {
        r.needed = bi[any][visit[k]].size;
        r.largest_gap =
            largest_gap(items, bi[any], visit, k, (int)any, it->start, it->end, cap[any]);
      }
      if (cap[any] == 0) {
        r.full_live = usage_total(plan_mem_usage(c, any));
        r.full_capacity = c->budget[any];
      }
      for (int32_t op = it->start; cap[any] && op <= it->end && op >= 0 && (size_t)op < n_ops; op++)
        if (r.full_at_op < 0 || live[op] > r.full_live) {
          r.full_at_op = op;
          r.full_live = live[op];
        }
      it->spill = r;
    }
    if (it->bank == (int)any)
      for (int32_t op = it->start; op <= it->end && op >= 0 && (size_t)op < n_ops; op++)
        live[op] += bi[any][visit[k]].size;
    if (it->bank != NO_MEM) continue;
    for (int m = 0; m < MP_MEM_COUNT; m++)
      c->scratch_h[m] = ff[m] ? mp_firstfit_height(ff[m]) : 0;
    scratch_nofit(c, items, n, it, cap);
    st = MP_ERR_NOFIT;
  }
  if (st == MP_OK)
    for (int m = 0; m < MP_MEM_COUNT; m++)
      c->scratch_h[m] = ff[m] ? mp_firstfit_height(ff[m]) : 0;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    mp_firstfit_free(&ff[m]);
    free(bi[m]);
  }
  free(ord);
  free(visit);
  free(live);
  return st;
}

/* Lay out scratch items: the whole arena in the first writable memory when
 * it fits (and nothing is pinned), else assignment to banks by first fit
 * and each bank laid out again.  Fills items[].bank and offset and the
 * per-memory scratch figures of c. */
static mp_status layout_scratch(planctx *c, sitem *items, size_t n) {
  bool any_pinned = false;
  for (size_t i = 0; i < n; i++)
    any_pinned |= items[i].pinned != NO_MEM;
  uint64_t cap[MP_MEM_COUNT] = {0};
  for (uint32_t b = 0; b < c->n_order; b++)
    cap[c->order[b]] = scratch_capacity(c, c->order[b]);
  mp_memory first = MP_MEM_COUNT;
  for (uint32_t b = 0; b < c->n_order && first == MP_MEM_COUNT; b++)
    if (writable(c, c->order[b])) first = c->order[b];
  mp_status st = MP_OK;
  bool fit = false;
  if (first == MP_MEM_COUNT) {
    mp_error(c->dx, noloc(), "the platform has no writable memory for scratch tensors");
    return MP_ERR_CONFIG;
  }
  if (!any_pinned) {
    /* common case: the whole scratch arena in the first writable memory */
    for (size_t i = 0; i < n; i++)
      items[i].bank = (int)first;
    st = solve_bank(c, items, n, first, cap[first], &fit);
  }
  if (st == MP_OK && !fit) {
    memset(c->scratch_h, 0, sizeof c->scratch_h);
    st = assign_banks(c, items, n, cap);
    if (st == MP_OK) {
      /* lay each memory's arena out again with the planner; keep the
       * assignment layout when the planner's is not better */
      for (uint32_t b = 0; b < c->n_order && st == MP_OK; b++) {
        mp_memory m = c->order[b];
        uint64_t h = c->scratch_h[m];
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
          k += items[i].bank == (int)m;
        if (k == 0) continue;
        uint64_t *keep = malloc(n * sizeof *keep);
        if (!keep) {
          st = MP_ERR_NOMEM;
          break;
        }
        for (size_t i = 0; i < n; i++)
          keep[i] = items[i].offset;
        bool ok;
        st = solve_bank(c, items, n, m, h, &ok);
        if (st == MP_OK && !ok) {
          for (size_t i = 0; i < n; i++)
            items[i].offset = keep[i];
          c->scratch_h[m] = h;
          c->scratch_n[m] = (uint32_t)k;
          c->proven_lo[m] = c->scratch_lb[m];
          c->proven_hi[m] = h;
          c->timed_out[m] = false;
        }
        free(keep);
      }
    }
  }
  return st;
}

/* The per-memory scratch figures of a layout, to compare two of them. */
typedef struct scratch_state {
  uint64_t h[MP_MEM_COUNT], lb[MP_MEM_COUNT], lo[MP_MEM_COUNT], hi[MP_MEM_COUNT];
  uint32_t n[MP_MEM_COUNT];
  bool timed_out[MP_MEM_COUNT];
} scratch_state;

static void get_state(const planctx *c, scratch_state *s) {
  memcpy(s->h, c->scratch_h, sizeof s->h);
  memcpy(s->lb, c->scratch_lb, sizeof s->lb);
  memcpy(s->lo, c->proven_lo, sizeof s->lo);
  memcpy(s->hi, c->proven_hi, sizeof s->hi);
  memcpy(s->n, c->scratch_n, sizeof s->n);
  memcpy(s->timed_out, c->timed_out, sizeof s->timed_out);
}

static void set_state(planctx *c, const scratch_state *s) {
  memcpy(c->scratch_h, s->h, sizeof s->h);
  memcpy(c->scratch_lb, s->lb, sizeof s->lb);
  memcpy(c->proven_lo, s->lo, sizeof s->lo);
  memcpy(c->proven_hi, s->hi, sizeof s->hi);
  memcpy(c->scratch_n, s->n, sizeof s->n);
  memcpy(c->timed_out, s->timed_out, sizeof s->timed_out);
}

static uint64_t total_height(const planctx *c) {
  uint64_t h = 0;
  for (int m = 0; m < MP_MEM_COUNT; m++)
    h += mp_align_up(c->scratch_h[m], arena_align(c, (mp_memory)m));
  return h;
}

/* A tensor's slot alignment in whichever writable memory it lands. */
static uint32_t any_slot_align(const planctx *c, const mp_tensor *t) {
  uint32_t a = 1;
  for (uint32_t b = 0; b < c->n_order; b++)
    if (writable(c, c->order[b])) {
      uint32_t x = slot_align(c, t, c->order[b]);
      if (x > a) a = x;
    }
  return a;
}

/* May item x at offset ox and item y at oy of one bank coexist in an
 * in-place layout: never live together, disjoint, or a pair whose contract
 * the two offsets honour?  pair_at indexes `pairs` by operator. */
static bool may_coexist(const sitem *x, uint64_t ox, uint64_t sx, const sitem *y, uint64_t sy,
                        const mp_inplace_pair *pairs, const size_t *pair_at, uint32_t n_ops) {
  if (x->end < y->start || y->end < x->start) return true;
  if (ox + sx <= y->offset || y->offset + sy <= ox) return true;
  int32_t op = x->end == y->start ? x->end : y->end == x->start ? y->end : -1;
  if (op < 0 || (uint32_t)op >= n_ops) return false;
  for (size_t k = pair_at[op]; k < pair_at[op + 1]; k++) {
    const mp_inplace_pair *q = &pairs[k];
    int64_t d;
    if (q->in == x->t && q->out == y->t)
      d = (int64_t)ox - (int64_t)y->offset;
    else if (q->in == y->t && q->out == x->t)
      d = (int64_t)y->offset - (int64_t)ox;
    else
      continue;
    return d >= q->gap && d % q->period == 0;
  }
  return false;
}

/* After the planner: a composite reserves its extent over its whole
 * lifetime, so the planner may leave a buffer on top that would fit over
 * the input its kernel allows, or in bytes a composite holds but does not
 * use at that time (a stride-2 shortcut's output above its block's
 * composite while it could lie over the block's output).  So, per bank,
 * the slot that ends highest moves to the lowest offset below where it
 * coexists with every other slot (0, just above or below a slot live with
 * it, or at a pair's gap), until the top slot cannot move.  Offsets only
 * fall, and are kept only when the bank's height does; work is bounded. */
static void drop_tops(planctx *c, sitem *items, size_t n, const mp_inplace_pair *pairs, size_t np) {
  uint32_t n_ops = c->g->n_ops;
  size_t *pair_at = calloc((size_t)n_ops + 2, sizeof *pair_at);
  uint64_t *sz = malloc((n ? n : 1) * sizeof *sz), *keep = malloc((n ? n : 1) * sizeof *keep);
  int64_t *cand = malloc((4 * n + 2) * sizeof *cand);
  if (!pair_at || !sz || !keep || !cand) goto done;
  for (size_t k = 0; k < np; k++)
    pair_at[pairs[k].op + 1]++;
  for (uint32_t op = 0; op < n_ops; op++)
    pair_at[op + 1] += pair_at[op];
  uint64_t budget = 4000000;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    bool any = false;
    for (size_t i = 0; i < n; i++) {
      if (items[i].bank != m) continue;
      uint32_t a = item_align(c, &items[i], (mp_memory)m);
      sz[i] = mp_align_up(items[i].size, a);
      any = true;
    }
    if (!any) continue;
    uint64_t h0 = 0;
    for (size_t i = 0; i < n; i++) {
      keep[i] = items[i].offset;
      if (items[i].bank == m && items[i].offset + sz[i] > h0) h0 = items[i].offset + sz[i];
    }
    for (;;) {
      size_t top = SIZE_MAX;
      uint64_t hi = 0;
      for (size_t i = 0; i < n; i++)
        if (items[i].bank == m && items[i].offset + sz[i] > hi) {
          hi = items[i].offset + sz[i];
          top = i;
        }
      if (top == SIZE_MAX) break; /* moving within its bank keeps a pinned slot pinned */
      sitem *x = &items[top];
      uint32_t a = item_align(c, x, (mp_memory)m);
      size_t k = 0;
      cand[k++] = 0;
      for (size_t j = 0; j < n; j++) {
        const sitem *y = &items[j];
        if (j == top || y->bank != m || x->end < y->start || y->end < x->start) continue;
        cand[k++] = (int64_t)mp_align_up(y->offset + sz[j], a);
        if (y->offset >= sz[top]) cand[k++] = (int64_t)mp_align_down(y->offset - sz[top], a);
        cand[k++] = (int64_t)mp_align_down(y->offset, a); /* on it, where a pair allows */
      }
      /* ascending, distinct, below the current offset */
      for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
          int64_t t = cand[j - 1];
          cand[j - 1] = cand[j];
          cand[j] = t;
        }
      bool moved = false;
      for (size_t i = 0; i < k && !moved && budget; i++) {
        if (cand[i] >= (int64_t)x->offset || (i && cand[i] == cand[i - 1])) continue;
        bool ok = true;
        for (size_t j = 0; j < n && ok; j++) {
          if (j == top || items[j].bank != m) continue;
          if (budget) budget--;
          ok = may_coexist(x, (uint64_t)cand[i], sz[top], &items[j], sz[j], pairs, pair_at, n_ops);
        }
        if (ok) {
          x->offset = (uint64_t)cand[i];
          moved = true;
        }
      }
      if (!moved) break;
    }
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
      if (items[i].bank == m && items[i].offset + sz[i] > h) h = items[i].offset + sz[i];
    if (h < h0 && h < c->scratch_h[m]) {
      c->scratch_h[m] = h;
    } else {
      for (size_t i = 0; i < n; i++)
        if (items[i].bank == m) items[i].offset = keep[i];
    }
  }
done:
  free(pair_at);
  free(sz);
  free(keep);
  free(cand);
}

/* The kernels' overlap pairs of c's graph (mp_inplace_pairs), found once
 * per plan. */
mp_status plan_get_pairs(planctx *c) {
  if (c->have_pairs) return MP_OK;
  mp_status st = mp_inplace_pairs(c->g, &c->pairs, &c->n_pairs);
  c->have_pairs = st == MP_OK;
  return st;
}

void plan_composites_free(composites *cp) {
  free(cp->ci);
  free(cp->of);
  free(cp->slot_item);
  free(cp->rel);
  memset(cp, 0, sizeof *cp);
}

static mp_status composites_build(planctx *c, const sitem *items, size_t n, composites *cp) {
  const mp_graph *g = c->g;
  memset(cp, 0, sizeof *cp);
  mp_status st = plan_get_pairs(c);
  if (st != MP_OK || c->n_pairs == 0) return st;
  /* a composite lies in one memory: a pair groups two tensors only when
   * both are pinned to the same memory or neither is pinned */
  int *pin = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *pin);
  mp_inplace_pair *pairs = malloc(c->n_pairs * sizeof *pairs);
  size_t np = 0;
  if (!pin || !pairs) {
    free(pin);
    free(pairs);
    return MP_ERR_NOMEM;
  }
  for (uint32_t t = 0; t < g->n_tensors; t++)
    pin[t] = NO_MEM;
  for (size_t i = 0; i < n; i++)
    pin[items[i].t] = items[i].pinned;
  for (size_t k = 0; k < c->n_pairs; k++)
    if (pin[c->pairs[k].in] == pin[c->pairs[k].out]) pairs[np++] = c->pairs[k];
  mp_inplace_slot *slots = malloc(n * sizeof *slots);
  size_t *comp_item = malloc(n * sizeof *comp_item);
  cp->slot_item = malloc(n * sizeof *cp->slot_item);
  cp->rel = malloc(n * sizeof *cp->rel);
  cp->ci = malloc(n * sizeof *cp->ci);
  cp->of = malloc(n * sizeof *cp->of); /* item -> its composite item */
  mp_inplace_composite *comps = NULL;
  size_t nc = 0, ns = 0, k = 0;
  if (!slots || !comp_item || !cp->slot_item || !cp->rel || !cp->ci || !cp->of) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    const mp_tensor *t = &g->tensors[items[i].t];
    uint32_t a = items[i].pinned != NO_MEM ? slot_align(c, t, (mp_memory)items[i].pinned)
                                           : any_slot_align(c, t);
    slots[ns] = (mp_inplace_slot){
        items[i].t, mp_align_up(items[i].size, a), a, items[i].start, items[i].end, 0, 0};
    cp->slot_item[ns++] = i;
  }
  st = mp_inplace_build(g, pairs, np, slots, ns, &comps, &nc);
  if (st != MP_OK || nc == 0) goto done;
  for (size_t i = 0; i < n; i++)
    cp->of[i] = SIZE_MAX;
  for (size_t q = 0; q < nc; q++) {
    const mp_inplace_composite *cm = &comps[q];
    comp_item[cm->slot] = k;
    sitem it;
    memset(&it, 0, sizeof it);
    it.t = slots[cm->slot].t;
    it.start = cm->start;
    it.end = cm->end;
    it.size = cm->extent;
    it.align = cm->align;
    it.pinned = pin[it.t]; /* its members' memory: pairs join only equal pins */
    it.bank = NO_MEM;
    cp->ci[k++] = it;
  }
  for (size_t q = 0; q < ns; q++) {
    bool in_comp = slots[q].group != q;
    for (size_t r = 0; r < nc && !in_comp; r++)
      in_comp = comps[r].slot == q;
    if (in_comp) cp->of[cp->slot_item[q]] = comp_item[slots[q].group];
    cp->rel[q] = slots[q].rel;
  }
  for (size_t i = 0; i < n; i++)
    if (cp->of[i] == SIZE_MAX) {
      cp->of[i] = k;
      cp->ci[k++] = items[i];
    }
  cp->n_comp = nc;
  cp->k = k;
  cp->ns = ns;
done:
  free(pin);
  free(pairs);
  free(slots);
  free(comp_item);
  free(comps);
  if (st != MP_OK || nc == 0) {
    plan_composites_free(cp);
    cp->st = st;
  }
  return st;
}

/* In-place layout with the current planner: the composite problem (built
 * on the first call of a plan) laid out.  On success items[i] gets its
 * bank and offset (a member's: its composite's plus its relative offset)
 * and *used tells whether any composite was formed. */
static mp_status layout_in_place(planctx *c, sitem *items, size_t n, bool *used) {
  composites *cp = &c->comp;
  *used = false;
  if (!c->have_comp) {
    mp_status st = composites_build(c, items, n, cp);
    if (st == MP_ERR_NOMEM) return st;
    c->have_comp = true;
  }
  if (cp->st != MP_OK) return cp->st;
  if (cp->n_comp == 0) return MP_OK;
  sitem *ci = malloc(cp->k * sizeof *ci);
  if (!ci) return MP_ERR_NOMEM;
  memcpy(ci, cp->ci, cp->k * sizeof *ci);
  /* lay out quietly: a composite layout that does not fit falls back to the
   * plain one, which reports its own errors */
  const mp_diag_sink *dx = c->dx;
  c->dx = NULL;
  mp_status st = layout_scratch(c, ci, cp->k);
  c->dx = dx;
  if (st == MP_OK) {
    for (size_t q = 0; q < cp->ns; q++) {
      sitem *it = &items[cp->slot_item[q]];
      const sitem *host = &ci[cp->of[cp->slot_item[q]]];
      it->bank = host->bank;
      it->offset = host->offset + cp->rel[q];
      it->spill = host->spill;
    }
    drop_tops(c, items, n, c->pairs, c->n_pairs);
    *used = true;
  }
  free(ci);
  return st;
}

/* The tensor-level bound of the scratch items in memory m: the most bytes
 * live at once, each item in its own slot (aligned for m), the sum aligned
 * to m's arena.  One pass over a count per operator. */
static uint64_t items_lower_bound(const planctx *c, const sitem *items, size_t n, mp_memory m) {
  int32_t last = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].end > last) last = items[i].end;
  int64_t *delta = calloc((size_t)last + 2, sizeof *delta);
  if (!delta) return 0; /* no bound: nothing is above it */
  for (size_t i = 0; i < n; i++) {
    if (items[i].start < 0 || items[i].end < items[i].start) continue;
    int64_t sz = (int64_t)mp_align_up(items[i].size, item_align(c, &items[i], m));
    delta[items[i].start] += sz;
    delta[items[i].end + 1] -= sz;
  }
  int64_t live = 0, best = 0;
  for (int32_t t = 0; t <= last; t++) {
    live += delta[t];
    if (live > best) best = live;
  }
  free(delta);
  return mp_align_up((uint64_t)best, arena_align(c, m));
}

/* The in-place bound of the scratch items in memory m (mp_inplace_bound
 * over the kernels' overlap pairs), the sum aligned to m's arena; 0 when
 * it cannot be found. */
static uint64_t items_inplace_bound(planctx *c, const sitem *items, size_t n, mp_memory m) {
  if (plan_get_pairs(c) != MP_OK) return 0;
  mp_inplace_slot *slots = malloc((n ? n : 1) * sizeof *slots);
  if (!slots) return 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t a = item_align(c, &items[i], m);
    slots[i] = (mp_inplace_slot){items[i].t, mp_align_up(items[i].size, a), a,
                                 items[i].start, items[i].end, 0, 0};
  }
  uint64_t b = mp_inplace_bound(c->g, c->pairs, c->n_pairs, slots, n);
  free(slots);
  return mp_align_up(b, arena_align(c, m));
}

/* One planner's in-place layout, from the scratch state `before`: the
 * composites of the kernels' overlap contracts (layout_in_place); when
 * that ends above the tensor-level bound lb, or forms no composite, the
 * plain layout too, the smaller kept (the composite one on a tie).  On
 * success items[] and c's scratch figures hold the layout. */
static mp_status layout_one(planctx *c, sitem *items, size_t n, uint64_t lb,
                            const scratch_state *before) {
  bool placed = false;
  set_state(c, before);
  mp_status st = layout_in_place(c, items, n, &placed);
  if (st == MP_ERR_NOMEM) return st;
  if (st != MP_OK) {
    set_state(c, before);
    placed = false;
  }
  if (!placed) return layout_scratch(c, items, n);
  if (total_height(c) <= lb) return MP_OK;
  scratch_state with;
  get_state(c, &with);
  sitem *keep = malloc(n * sizeof *keep);
  if (!keep) return MP_ERR_NOMEM;
  memcpy(keep, items, n * sizeof *keep);
  uint64_t h_with = total_height(c);
  set_state(c, before);
  st = layout_scratch(c, items, n);
  if (st == MP_ERR_NOMEM) {
    free(keep);
    return st;
  }
  /* the plain layout not smaller, or not fitting where the composite one did */
  if (st != MP_OK || total_height(c) >= h_with) {
    memcpy(items, keep, n * sizeof *keep);
    set_state(c, &with);
  }
  free(keep);
  return MP_OK;
}

/* The planners memory.in_place asks, in this order, when the requested
 * planner's layout ends above the tensor-level bound: the cheap ones
 * first, each with its defaults. */
static const char *const in_place_fallbacks[] = {"greedy_by_size", "greedy", "hill_climb"};

/* Every item in one memory: the tensor-level bound is then that arena's. */
static bool one_bank(const sitem *items, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (items[i].bank != items[0].bank) return false;
  return true;
}

/* memory.in_place: the requested planner's layout (layout_one); when it
 * lies in one memory above its tensor-level bound, the in_place_fallbacks
 * planners lay the arena out too, until one reaches the bound, and the
 * smallest layout is kept (the earliest on a tie, the requested planner's
 * first).  The plan records whose layout it kept and why. */
static mp_status layout_in_place_best(planctx *c, sitem *items, size_t n, mp_memory first) {
  scratch_state before;
  get_state(c, &before);
  /* the bound in the memory the arena lands in: the one every item is
   * pinned to, if any, else the first writable one */
  mp_memory where = first;
  if (n && items[0].pinned != NO_MEM) {
    where = (mp_memory)items[0].pinned;
    for (size_t i = 1; i < n; i++)
      if (items[i].pinned != items[0].pinned) where = first;
  }
  uint64_t lb = items_lower_bound(c, items, n, where), tl = lb;
  /* a patched graph (memory.patch): its tile buffers and its stages'
   * overlaps leave the tensor-level bound far above what a layout reaches,
   * so the other planners are asked down to the in-place bound */
  uint64_t ib = c->g->patch ? items_inplace_bound(c, items, n, where) : 0;
  if (ib && ib < lb) lb = ib;
  mp_status st = layout_one(c, items, n, lb, &before);
  if (st != MP_OK || total_height(c) <= lb || !one_bank(items, n)) return st;
  mp_plan *p = c->plan;
  p->in_place_layout.requested_scratch = total_height(c);
  p->in_place_layout.tensor_level_bound = tl;
  p->in_place_layout.inplace_bound = lb < tl ? lb : 0;
  sitem *best = malloc(n * sizeof *best), *fresh = malloc(n * sizeof *fresh);
  if (!best || !fresh) {
    free(best);
    free(fresh);
    return MP_ERR_NOMEM;
  }
  memcpy(best, items, n * sizeof *best);
  /* each planner starts from the items as they were, no bank, offset or
   * spill of an earlier layout */
  memcpy(fresh, items, n * sizeof *fresh);
  for (size_t i = 0; i < n; i++) {
    fresh[i].bank = NO_MEM;
    fresh[i].offset = 0;
    memset(&fresh[i].spill, 0, sizeof fresh[i].spill);
  }
  scratch_state best_state;
  get_state(c, &best_state);
  uint64_t best_h = total_height(c);
  const mp_planner *requested = c->planner;
  const mp_diag_sink *dx = c->dx;
  c->dx = NULL; /* the requested planner's layout fits: the others' errors are moot */
  c->options = NULL;
  c->n_options = 0;
  for (size_t k = 0; k < sizeof in_place_fallbacks / sizeof *in_place_fallbacks && best_h > lb;
       k++) {
    const mp_planner *pl = mp_planner_find(in_place_fallbacks[k]);
    if (!pl || pl == requested) continue;
    c->planner = pl;
    memcpy(items, fresh, n * sizeof *items);
    st = layout_one(c, items, n, lb, &before);
    if (st == MP_ERR_NOMEM) break;
    st = MP_OK;
    p->in_place_layout.n_tried++;
    if (total_height(c) < best_h) {
      best_h = total_height(c);
      memcpy(best, items, n * sizeof *best);
      get_state(c, &best_state);
      snprintf(p->in_place_layout.planner, sizeof p->in_place_layout.planner, "%s", pl->name);
    }
  }
  c->planner = requested;
  c->options = c->mem->options;
  c->n_options = c->mem->n_options;
  c->dx = dx;
  memcpy(items, best, n * sizeof *best);
  set_state(c, &best_state);
  free(best);
  free(fresh);
  return st;
}

mp_status plan_place_scratch(planctx *c) {
  const mp_graph *g = c->g;
  size_t n = 0;
  for (uint32_t i = 0; i < g->n_tensors; i++)
    n += mp_graph_needs_slot(g, i) && c->caller_io[i] < 0;
  if (n == 0) return MP_OK;
  sitem *items = calloc(n, sizeof *items);
  if (!items) return MP_ERR_NOMEM;
  n = 0;
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    if (!mp_graph_needs_slot(g, i) || c->caller_io[i] >= 0) continue;
    sitem *it = &items[n++];
    it->t = i;
    it->start = g->storage[i].start_op;
    it->end = g->storage[i].end_op;
    it->size = g->tensors[i].size;
    it->pinned = c->attrs[i].has_memory ? (int)c->attrs[i].memory : NO_MEM;
    if (it->pinned != NO_MEM) {
      if (!writable(c, (mp_memory)it->pinned)) {
        mp_error(c->dx, noloc(),
                 "scratch tensor %u '%s' is pinned to %s, which is read-only; "
                 "activations need writable memory",
                 i, g->tensors[i].name, mem_name(c, (mp_memory)it->pinned));
        free(items);
        return MP_ERR_CONFIG;
      }
    }
  }
  mp_memory first = c->order[0];
  for (uint32_t b = 0; b < c->n_order; b++)
    if (writable(c, c->order[b])) {
      first = c->order[b];
      break;
    }
  mp_status st =
      c->mem->in_place ? layout_in_place_best(c, items, n, first) : layout_scratch(c, items, n);
  for (size_t i = 0; st == MP_OK && i < n; i++) {
    const mp_tensor *t = &g->tensors[items[i].t];
    plan_set_alloc(c, t, MP_ROLE_SCRATCH, (mp_memory)items[i].bank, (mp_memory)items[i].bank,
                   items[i].offset, items[i].pinned != NO_MEM);
    if (items[i].spill.kind == MP_REASON_SPILLED) c->plan->allocs[t->id].reason = items[i].spill;
  }
  free(items);
  return st;
}
