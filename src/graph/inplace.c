/*
 * inplace.c — in-place planning: below the tensor-level bound, without
 * touching the planners.
 *
 * A kernel declares, per (input, output) pair, how its output may overlap
 * an input it is still reading (runtime/kernels/mpk.h, "Overlap
 * contracts"): offset(input) - offset(output) >= gap.  Such an overlap can
 * only be used at the operator where the input is read for the last time
 * and the output is born, so their lifetimes meet there alone.
 *
 * The one idea: an allowed overlap fixes two slots' relative offset, so the
 * two become one composite buffer — members at fixed offsets from its base,
 * exactly like a view alias shares its root's storage — and every planner
 * places the composite as an ordinary buffer of its extent, live over its
 * members' joint lifetime.  Within a composite, two members that are live
 * at once are disjoint or an allowed pair honouring its gap; members that
 * are never live together may share bytes freely.
 *
 * Grouping, step by step:
 *   1. start with every slot alone; the profile is, per operator, the sum of
 *      the extents of the buffers live there (the planners' lower bound);
 *   2. at the profile's peak operator, merge the two buffers of a pair
 *      there, choosing the relative offset that gives the smallest extent
 *      among the tight overlap and the offsets where one member touches
 *      another (each checked against every member live at the same time);
 *   3. a composite reserves its extent over its whole lifetime, which can
 *      raise the profile elsewhere (an expanding 1x1 convolution's composite
 *      is as large as its output, already while its input is being made):
 *      at the new peak, merge in another buffer live there — a pair first,
 *      else any buffer that fits in the composite's dead bytes — until the
 *      peak is below the old one (keep all) or no merge helps (undo all);
 *   4. repeat from 2 until the peak stops falling;
 *   5. compact each composite: lower its top member, moving one member out
 *      of its way when needed (compact, below).
 * So merges never raise the buffers' lower bound above the tensor-level one.
 * A cascade may take many steps: in a MobileNetV2 every block's tensors
 * must join the composite before the peak falls.
 * The work is bounded (a budget of profile evaluations scaled to the graph).
 *
 * This file does not place buffers (the planners do) and does not check a
 * plan (verify.c does, from the kernels' contracts, independently).
 */
#include "graph/inplace.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static int32_t root_of(const mp_graph *g, uint32_t t) {
  return g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : (int32_t)t;
}

/* Does root r's storage hold a graph output (r itself or a view of it)? */
static bool holds_output(const mp_graph *g, uint32_t r) {
  for (uint32_t k = 0; k < g->n_outputs; k++) {
    int32_t t = g->outputs[k];
    if (t >= 0 && (uint32_t)t < g->n_tensors && root_of(g, (uint32_t)t) == (int32_t)r) return true;
  }
  return false;
}

static int cmp_pair(const void *a, const void *b) {
  const mp_inplace_pair *x = a, *y = b;
  if (x->op != y->op) return x->op < y->op ? -1 : 1;
  if (x->in != y->in) return x->in < y->in ? -1 : 1;
  return (x->out > y->out) - (x->out < y->out);
}

mp_status mp_inplace_pairs(const mp_graph *g, mp_inplace_pair **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (g->n_overlaps == 0) return MP_OK;
  mp_inplace_pair *v = malloc(g->n_overlaps * sizeof *v);
  if (!v) return MP_ERR_NOMEM;
  size_t k = 0;
  for (uint32_t i = 0; i < g->n_overlaps; i++) {
    const mp_overlap *ov = &g->overlaps[i];
    uint32_t in = (uint32_t)root_of(g, ov->input), o = (uint32_t)root_of(g, ov->output);
    if (in == o || !mp_graph_needs_slot(g, in) || !mp_graph_needs_slot(g, o)) continue;
    /* a root holding sub-tensor views is several tensors' bytes at once */
    if (g->tensors[in].has_subviews || g->tensors[o].has_subviews) continue;
    if (g->storage[in].end_op != (int32_t)ov->op || g->storage[o].start_op != (int32_t)ov->op)
      continue;
    /* a graph output's bytes outlive the last operator, which may read it */
    if (holds_output(g, in)) continue;
    v[k++] = (mp_inplace_pair){ov->op, in, o, ov->min_gap, ov->period > 1 ? ov->period : 1};
  }
  if (k == 0) {
    free(v);
    return MP_OK;
  }
  /* lowering records them operator by operator: often sorted already */
  bool sorted = true;
  for (size_t i = 1; i < k && sorted; i++) sorted = cmp_pair(&v[i - 1], &v[i]) <= 0;
  if (!sorted) qsort(v, k, sizeof *v, cmp_pair);
  /* the same pair through two views of one root, now adjacent: keep the
   * larger gap and both periods */
  size_t u = 0;
  for (size_t i = 0; i < k; i++)
    if (u && !cmp_pair(&v[u - 1], &v[i])) {
      if (v[i].gap > v[u - 1].gap) v[u - 1].gap = v[i].gap;
      v[u - 1].period = mp_lcm64(v[u - 1].period, v[i].period);
    } else {
      v[u++] = v[i];
    }
  k = u;
  *out = v;
  *n = k;
  return MP_OK;
}

/* The smallest multiple of a (a power of two) at or above v, and at or
 * below v, for signed v. */
static int64_t ceil_to(int64_t v, uint32_t a) {
  int64_t r = v % (int64_t)a;
  if (r < 0) r += a;
  return r ? v + ((int64_t)a - r) : v;
}
static int64_t floor_to(int64_t v, uint32_t a) {
  int64_t r = v % (int64_t)a;
  if (r < 0) r += a;
  return v - r;
}

/* The step of offsets a pair's two slots can differ by: a multiple of the
 * contract's period and of the slots' alignment. */
static uint32_t step_of(int64_t period, uint32_t a) {
  int64_t l = mp_lcm64(period, a ? a : 1);
  return l > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)l;
}

uint64_t mp_inplace_max_share(uint64_t si, uint64_t so, int64_t gap, int64_t period, uint32_t a) {
  a = step_of(period, a);
  int64_t d = ceil_to(gap, a);
  if (d <= 0) return si < so ? si : so; /* d = 0 is allowed */
  if ((uint64_t)d >= so) return 0;
  uint64_t room = so - (uint64_t)d;
  return room < si ? room : si;
}

/* The least offset(in) - offset(out) pair p allows unless its output lies
 * wholly above its input (offset(out) >= offset(in) + si): an overlap
 * honouring the gap, or the output wholly below the input (>= so).  Offsets
 * are multiples of a. */
static int64_t least_step(uint64_t si, uint64_t so, int64_t gap, int64_t period, uint32_t a) {
  uint32_t l = step_of(period, a);
  int64_t above = a - (int64_t)si; /* the first offset not wholly above */
  int64_t d = ceil_to(gap, l), first = ceil_to(above, l);
  if (d < first) d = first; /* the first overlap the period allows */
  if (d > (int64_t)so) d = (int64_t)so;
  return d > above ? d : above;
}

/* What the pairs at one operator can share at most: per output, the sum of
 * what its inputs can share, capped at the output's size (its inputs are
 * disjoint from one another).  Pairs i..j-1 are that operator's; pair
 * `skip` shares nothing (SIZE_MAX: none skipped). */
static uint64_t op_share(const mp_inplace_pair *pairs, size_t i, size_t j, const int32_t *slot_of,
                         const mp_inplace_slot *slots, size_t skip) {
  uint64_t total = 0;
  for (size_t a = i; a < j; a++) {
    int32_t so = slot_of[pairs[a].out];
    bool seen = false;
    for (size_t b = i; b < a; b++) seen |= pairs[b].out == pairs[a].out;
    if (so < 0 || seen) continue;
    uint64_t cap = slots[so].size, sum = 0;
    for (size_t b = a; b < j; b++) {
      int32_t si = slot_of[pairs[b].in];
      if (pairs[b].out != pairs[a].out || si < 0 || b == skip) continue;
      uint32_t al = slots[si].align < slots[so].align ? slots[si].align : slots[so].align;
      sum += mp_inplace_max_share(slots[si].size, slots[so].size, pairs[b].gap, pairs[b].period,
                                  al ? al : 1);
    }
    total += sum < cap ? sum : cap;
  }
  return total;
}

/* The chains' bound with the pairs whose cut[] is set cut.  Each pair not
 * cut fixes offset(in) - offset(out) >= its least step, so along a chain of
 * pairs t0 -> t1 -> ... -> tk the offsets fall by the sum of the steps and
 * the arena holds at least size(t0) + that sum: the longest path in the
 * pairs' graph (acyclic: a pair's output is born where its input dies),
 * from the latest operator back. */
static uint64_t chain_bound(const mp_inplace_pair *pairs, size_t n_pairs, const int32_t *slot_of,
                            const mp_inplace_slot *slots, size_t n_slots, const int64_t *step,
                            const bool *cut, int64_t *best) {
  for (size_t i = 0; i < n_slots; i++) best[i] = 0;
  for (size_t k = n_pairs; k-- > 0;) {
    int32_t si = slot_of[pairs[k].in], so = slot_of[pairs[k].out];
    if (si < 0 || so < 0 || cut[k]) continue;
    int64_t v = step[k] + best[so];
    if (v > best[si]) best[si] = v;
  }
  int64_t top = 0;
  for (size_t i = 0; i < n_slots; i++)
    if ((int64_t)slots[i].size + best[i] > top) top = (int64_t)slots[i].size + best[i];
  return (uint64_t)top;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The in-place bound is the larger of two truths about any plan:
 *   - per operator: the live sum less the most its pairs can share;
 *   - per chain of pairs: a kernel lets its output overlap its input only
 *     at or below some offset (a positive gap: the output starts below the
 *     input), so a chain of such operators walks down the arena, and a
 *     plan that uses every pair of a chain needs the chain's fall on top of
 *     its first tensor (a DS-CNN: each depthwise and 1x1 convolution moves
 *     its output a row or a pixel below its input, 2 KiB over eight
 *     operators, past the largest single operator's live sum).  A plan can
 *     break a chain only by putting a pair's output wholly above its input,
 *     which costs that operator its pair's share: its "cut cost".
 * So the bound is the least, over thresholds T, of T and the chains' bound
 * with every pair whose cut cost is at most T cut (cutting more only
 * lowers the chains' bound, which is therefore monotone in T). */
uint64_t mp_inplace_bound(const mp_graph *g, const mp_inplace_pair *pairs, size_t n_pairs,
                          const mp_inplace_slot *slots, size_t n_slots) {
  uint32_t n = g->n_ops > 0 ? g->n_ops : 1;
  int64_t *diff = calloc((size_t)n + 1, sizeof *diff);
  int64_t *live = calloc(n, sizeof *live);
  int64_t *save = calloc(n, sizeof *save);
  int32_t *slot_of = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *slot_of);
  size_t np = n_pairs ? n_pairs : 1;
  int64_t *step = malloc(np * sizeof *step);
  uint64_t *cost = malloc(np * sizeof *cost), *sorted = malloc(np * sizeof *sorted);
  bool *cut = calloc(np, sizeof *cut);
  int64_t *best = malloc((n_slots ? n_slots : 1) * sizeof *best);
  uint64_t bound = 0;
  if (!diff || !live || !save || !slot_of || !step || !cost || !sorted || !cut || !best) goto done;
  for (uint32_t t = 0; t < g->n_tensors; t++) slot_of[t] = -1;
  for (size_t i = 0; i < n_slots; i++) {
    slot_of[slots[i].t] = (int32_t)i;
    diff[slots[i].start] += (int64_t)slots[i].size;
    diff[slots[i].end + 1] -= (int64_t)slots[i].size;
  }
  int64_t run = 0;
  for (uint32_t op = 0; op < n; op++) live[op] = run += diff[op];
  for (size_t i = 0; i < n_pairs;) {
    size_t j = i;
    while (j < n_pairs && pairs[j].op == pairs[i].op) j++;
    save[pairs[i].op] = (int64_t)op_share(pairs, i, j, slot_of, slots, SIZE_MAX);
    i = j;
  }
  for (uint32_t op = 0; op < n; op++)
    if (live[op] - save[op] > (int64_t)bound) bound = (uint64_t)(live[op] - save[op]);
  if (n_pairs == 0) goto done;
  for (size_t i = 0; i < n_pairs;) {
    size_t j = i;
    while (j < n_pairs && pairs[j].op == pairs[i].op) j++;
    for (size_t k = i; k < j; k++) {
      int32_t si = slot_of[pairs[k].in], so = slot_of[pairs[k].out];
      step[k] = 0;
      cost[k] = 0;
      if (si < 0 || so < 0) continue;
      uint32_t al = slots[si].align < slots[so].align ? slots[si].align : slots[so].align;
      step[k] = least_step(slots[si].size, slots[so].size, pairs[k].gap, pairs[k].period,
                           al ? al : 1);
      cost[k] = (uint64_t)(live[pairs[k].op] - (int64_t)op_share(pairs, i, j, slot_of, slots, k));
    }
    i = j;
  }
  /* the chains' bound at threshold T, then the least max(T, it): at T =
   * the operators' bound (cutting every pair that costs no more), else by
   * bisection over the cut costs above it */
  for (size_t k = 0; k < n_pairs; k++) cut[k] = cost[k] <= bound;
  uint64_t answer = chain_bound(pairs, n_pairs, slot_of, slots, n_slots, step, cut, best);
  if (answer > bound) {
    size_t m = 0;
    for (size_t k = 0; k < n_pairs; k++)
      if (cost[k] > bound) sorted[m++] = cost[k];
    qsort(sorted, m, sizeof *sorted, cmp_u64);
    size_t lo = 0, hi = m;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      uint64_t T = sorted[mid];
      for (size_t k = 0; k < n_pairs; k++) cut[k] = cost[k] <= T;
      uint64_t c = chain_bound(pairs, n_pairs, slot_of, slots, n_slots, step, cut, best);
      if ((c > T ? c : T) < answer) answer = c > T ? c : T;
      if (c > T) lo = mid + 1; /* the chains still dominate: cut more */
      else hi = mid;
    }
  }
  bound = answer > bound ? answer : bound;
done:
  free(diff);
  free(live);
  free(save);
  free(slot_of);
  free(step);
  free(cost);
  free(sorted);
  free(cut);
  free(best);
  return bound;
}

uint64_t mp_graph_inplace_bound(const mp_graph *g, uint32_t alignment) {
  mp_inplace_pair *pairs = NULL;
  size_t np = 0;
  mp_inplace_slot *slots = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *slots);
  if (!slots || mp_inplace_pairs(g, &pairs, &np) != MP_OK) {
    free(slots);
    return mp_graph_lower_bound(g, alignment);
  }
  size_t n = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    if (!mp_graph_needs_slot(g, t)) continue;
    uint32_t a = alignment > g->tensors[t].align_hint ? alignment : g->tensors[t].align_hint;
    if (a == 0) a = 1;
    slots[n++] = (mp_inplace_slot){t, mp_align_up(g->tensors[t].size, a), a,
                                   g->storage[t].start_op, g->storage[t].end_op, 0, 0};
  }
  uint64_t b = mp_inplace_bound(g, pairs, np, slots, n);
  free(pairs);
  free(slots);
  return b;
}

uint64_t mp_graph_peak_between(const mp_graph *g, uint32_t alignment, bool in_place, uint32_t op0,
                               uint32_t op1) {
  uint32_t n = g->n_ops > 0 ? g->n_ops : 1;
  mp_inplace_pair *pairs = NULL;
  size_t np = 0;
  mp_inplace_slot *slots = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *slots);
  int32_t *slot_of = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *slot_of);
  int64_t *diff = calloc((size_t)n + 1, sizeof *diff);
  uint64_t peak = 0;
  if (!slots || !slot_of || !diff || (in_place && mp_inplace_pairs(g, &pairs, &np) != MP_OK))
    goto done;
  size_t ns = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    slot_of[t] = -1;
    if (!mp_graph_needs_slot(g, t)) continue;
    uint32_t a = alignment > g->tensors[t].align_hint ? alignment : g->tensors[t].align_hint;
    if (a == 0) a = 1;
    slots[ns] = (mp_inplace_slot){t, mp_align_up(g->tensors[t].size, a), a,
                                  g->storage[t].start_op, g->storage[t].end_op, 0, 0};
    slot_of[t] = (int32_t)ns;
    diff[slots[ns].start] += (int64_t)slots[ns].size;
    diff[slots[ns].end + 1] -= (int64_t)slots[ns].size;
    ns++;
  }
  int64_t run = 0;
  size_t i = 0;
  for (uint32_t op = 0; op < n && op <= op1; op++) {
    run += diff[op];
    int64_t save = 0;
    while (i < np && pairs[i].op < op) i++;
    size_t j = i;
    while (j < np && pairs[j].op == op) j++;
    if (j > i) save = (int64_t)op_share(pairs, i, j, slot_of, slots, SIZE_MAX);
    if (op >= op0 && run - save > (int64_t)peak) peak = (uint64_t)(run - save);
  }
done:
  free(pairs);
  free(slots);
  free(slot_of);
  free(diff);
  return peak;
}

/* ---- grouping ------------------------------------------------------------ */

typedef struct gctx {
  const mp_inplace_pair *pairs;
  size_t n_pairs;
  mp_inplace_slot *s;
  size_t n;
  uint32_t n_ops;
  int32_t *slot_of;     /* tensor -> slot */
  uint32_t *next;       /* member list of each composite, UINT32_MAX ends */
  uint64_t *extent;     /* per representative slot */
  uint32_t *galign;
  int32_t *gstart, *gend;
  int64_t *diff;        /* the composites' live sums as differences, kept by merge_at */
  size_t *pair_at;      /* first pair of each op (n_ops + 1 entries) */
} gctx;

#define END UINT32_MAX

static bool live_together(const mp_inplace_slot *a, const mp_inplace_slot *b) {
  return a->start <= b->end && b->start <= a->end;
}

/* The pair joining slots a and b, or NULL. */
static const mp_inplace_pair *pair_of(const gctx *c, uint32_t a, uint32_t b) {
  uint32_t ta = c->s[a].t, tb = c->s[b].t;
  /* a pair lives at the op where one ends and the other starts */
  int32_t op = c->s[a].end == c->s[b].start ? c->s[a].end : c->s[b].end;
  if (op < 0 || (uint32_t)op >= c->n_ops) return NULL;
  for (size_t i = c->pair_at[op]; i < c->pair_at[op + 1]; i++) {
    const mp_inplace_pair *p = &c->pairs[i];
    if ((p->in == ta && p->out == tb) || (p->in == tb && p->out == ta)) return p;
  }
  return NULL;
}

/* May slot a at byte offset oa and slot b at ob coexist? */
static bool coexist(const gctx *c, uint32_t a, int64_t oa, uint32_t b, int64_t ob) {
  const mp_inplace_slot *x = &c->s[a], *y = &c->s[b];
  if (!live_together(x, y)) return true;
  if (oa + (int64_t)x->size <= ob || ob + (int64_t)y->size <= oa) return true;
  const mp_inplace_pair *p = pair_of(c, a, b);
  if (!p) return false;
  int64_t d = p->in == x->t ? oa - ob : ob - oa;
  return d >= p->gap && d % p->period == 0;
}

/* Is composite B at offset delta against composite A valid? */
static bool fits_at(const gctx *c, uint32_t A, uint32_t B, int64_t delta) {
  if (c->gend[A] < c->gstart[B] || c->gend[B] < c->gstart[A]) return true; /* never live together */
  for (uint32_t a = A; a != END; a = c->next[a]) {
    const mp_inplace_slot *x = &c->s[a];
    if (x->end < c->gstart[B] || c->gend[B] < x->start) continue; /* live with no member of B */
    for (uint32_t b = B; b != END; b = c->next[b])
      if (live_together(x, &c->s[b]) &&
          !coexist(c, a, (int64_t)x->rel, b, (int64_t)c->s[b].rel + delta))
        return false;
  }
  return true;
}

static uint64_t merged_extent(const gctx *c, uint32_t A, uint32_t B, int64_t delta) {
  int64_t lo = delta < 0 ? delta : 0;
  int64_t hi = (int64_t)c->extent[A];
  if (delta + (int64_t)c->extent[B] > hi) hi = delta + (int64_t)c->extent[B];
  return (uint64_t)(hi - lo);
}

/* The best offset of composite B against A: the smallest extent, then the
 * smallest |delta|, then the smaller delta.  False when none is valid.  A
 * candidate is checked (fits_at, the costly part) only when it would beat
 * the best so far. */
static bool best_offset(const gctx *c, uint32_t A, uint32_t B, int64_t *out) {
  uint32_t al = c->galign[A] > c->galign[B] ? c->galign[A] : c->galign[B];
  bool found = false;
  int64_t best = 0;
  uint64_t best_ext = 0;
#define TRY(dv)                                                                                    \
  do {                                                                                             \
    int64_t d_ = (dv);                                                                             \
    uint64_t e_ = merged_extent(c, A, B, d_);                                                      \
    int64_t ad_ = d_ < 0 ? -d_ : d_, ab_ = best < 0 ? -best : best;                                \
    if (!found || e_ < best_ext || (e_ == best_ext && (ad_ < ab_ || (ad_ == ab_ && d_ < best)))) { \
      if (!fits_at(c, A, B, d_)) break;                                                            \
      found = true;                                                                                \
      best = d_;                                                                                   \
      best_ext = e_;                                                                               \
    }                                                                                              \
  } while (0)
  TRY(0);
  for (uint32_t a = A; a != END; a = c->next[a]) {
    const mp_inplace_slot *x = &c->s[a];
    if (x->end < c->gstart[B] || c->gend[B] < x->start) continue; /* live with no member of B */
    for (uint32_t b = B; b != END; b = c->next[b]) {
      const mp_inplace_slot *y = &c->s[b];
      if (!live_together(x, y)) continue;
      int64_t ra = (int64_t)x->rel, rb = (int64_t)y->rel;
      TRY(ceil_to(ra + (int64_t)x->size - rb, al));  /* b just above a */
      TRY(floor_to(ra - (int64_t)y->size - rb, al)); /* b just below a */
      const mp_inplace_pair *p = pair_of(c, a, b);
      if (!p) continue;
      if (p->period <= 1) {
        if (p->in == x->t)
          TRY(floor_to(ra - rb - p->gap, al)); /* out = b, as high as the gap allows */
        else
          TRY(ceil_to(p->gap + ra - rb, al)); /* in = b, as low as the gap allows */
        continue;
      }
      /* a period: d = offset(in) - offset(out) a multiple of l; b exactly
       * on a, or B's top at A's top, or B's bottom at A's bottom (each
       * moved inwards to the next d allowed) */
      int64_t l = mp_lcm64(p->period, al), top = (int64_t)c->extent[A] - (int64_t)c->extent[B];
      int64_t dv[3];
      if (p->in == x->t) { /* delta = ra - rb - d */
        dv[0] = 0;
        dv[1] = ceil_to(ra - rb - top, (uint32_t)l);
        dv[2] = floor_to(ra - rb, (uint32_t)l);
      } else { /* delta = rb... d = rb + delta - ra */
        dv[0] = 0;
        dv[1] = floor_to(rb + top - ra, (uint32_t)l);
        dv[2] = ceil_to(rb - ra, (uint32_t)l);
      }
      for (int k = 0; k < 3; k++) {
        if (dv[k] < p->gap) continue;
        int64_t delta = p->in == x->t ? ra - rb - dv[k] : dv[k] + ra - rb;
        if (delta % al == 0) TRY(delta);
      }
    }
  }
#undef TRY
  *out = best;
  return found;
}

/* Composite R's extent added to (sign 1) or taken from (-1) the live sums. */
static void add_live(gctx *c, uint32_t R, int64_t sign) {
  c->diff[c->gstart[R]] += sign * (int64_t)c->extent[R];
  c->diff[c->gend[R] + 1] -= sign * (int64_t)c->extent[R];
}

static void merge_at(gctx *c, uint32_t A, uint32_t B, int64_t delta) {
  uint64_t ext = merged_extent(c, A, B, delta);
  add_live(c, A, -1);
  add_live(c, B, -1);
  int64_t shift_a = delta < 0 ? -delta : 0, shift_b = delta < 0 ? 0 : delta;
  for (uint32_t a = A; a != END; a = c->next[a]) c->s[a].rel += (uint64_t)shift_a;
  for (uint32_t b = B; b != END; b = c->next[b]) c->s[b].rel += (uint64_t)shift_b;
  uint32_t R = A < B ? A : B, O = A < B ? B : A;
  /* splice O's members after R's */
  uint32_t last = R;
  while (c->next[last] != END) last = c->next[last];
  c->next[last] = O;
  for (uint32_t m = O; m != END; m = c->next[m]) c->s[m].group = R;
  c->extent[R] = ext;
  c->galign[R] = c->galign[A] > c->galign[B] ? c->galign[A] : c->galign[B];
  c->gstart[R] = c->gstart[A] < c->gstart[B] ? c->gstart[A] : c->gstart[B];
  c->gend[R] = c->gend[A] > c->gend[B] ? c->gend[A] : c->gend[B];
  add_live(c, R, 1);
}

/* The profile's peak and the first operator reaching it. */
static int64_t profile(const gctx *c, uint32_t *at) {
  int64_t live = 0, best = -1;
  for (uint32_t op = 0; op < c->n_ops; op++) {
    live += c->diff[op];
    if (live > best) {
      best = live;
      *at = op;
    }
  }
  return best;
}

/* Saved grouping state, to undo a cascade. */
typedef struct gsave {
  uint64_t *rel, *extent;
  uint32_t *group, *next, *galign;
  int32_t *gstart, *gend;
  int64_t *diff;
} gsave;

static void save_state(const gctx *c, gsave *v) {
  for (size_t i = 0; i < c->n; i++) {
    v->rel[i] = c->s[i].rel;
    v->group[i] = c->s[i].group;
  }
  memcpy(v->next, c->next, c->n * sizeof *c->next);
  memcpy(v->extent, c->extent, c->n * sizeof *c->extent);
  memcpy(v->galign, c->galign, c->n * sizeof *c->galign);
  memcpy(v->gstart, c->gstart, c->n * sizeof *c->gstart);
  memcpy(v->gend, c->gend, c->n * sizeof *c->gend);
  memcpy(v->diff, c->diff, ((size_t)c->n_ops + 1) * sizeof *c->diff);
}

static void restore_state(gctx *c, const gsave *v) {
  for (size_t i = 0; i < c->n; i++) {
    c->s[i].rel = v->rel[i];
    c->s[i].group = v->group[i];
  }
  memcpy(c->next, v->next, c->n * sizeof *c->next);
  memcpy(c->extent, v->extent, c->n * sizeof *c->extent);
  memcpy(c->galign, v->galign, c->n * sizeof *c->galign);
  memcpy(c->gstart, v->gstart, c->n * sizeof *c->gstart);
  memcpy(c->gend, v->gend, c->n * sizeof *c->gend);
  memcpy(c->diff, v->diff, ((size_t)c->n_ops + 1) * sizeof *c->diff);
}

/* Composites live at op j, with their sizes. */
static bool group_live_at(const gctx *c, uint32_t R, uint32_t j) {
  return c->gstart[R] <= (int32_t)j && (int32_t)j <= c->gend[R];
}

/* The most a merge of A and B can save: the smaller extent (the merged
 * one is at least the larger).  A merge that cannot beat the best gain so
 * far is not tried. */
static int64_t gain_cap(const gctx *c, uint32_t A, uint32_t B) {
  return (int64_t)(c->extent[A] < c->extent[B] ? c->extent[A] : c->extent[B]);
}

/* Merge two composites live at op j so that op j's live sum falls the
 * most: the pairs at j first, then any composite live there into the one
 * grown last.  False when no merge lowers it. */
static bool relieve(gctx *c, uint32_t j, uint32_t grown) {
  uint32_t bestA = END, bestB = END;
  int64_t best_d = 0, best_gain = 0;
  for (size_t i = c->pair_at[j]; i < c->pair_at[j + 1]; i++) {
    int32_t si = c->slot_of[c->pairs[i].in], so = c->slot_of[c->pairs[i].out];
    if (si < 0 || so < 0) continue;
    uint32_t A = c->s[si].group, B = c->s[so].group;
    if (A == B || gain_cap(c, A, B) <= best_gain) continue;
    int64_t d;
    if (!best_offset(c, A, B, &d)) continue;
    int64_t gain = (int64_t)(c->extent[A] + c->extent[B]) - (int64_t)merged_extent(c, A, B, d);
    if (gain > best_gain) {
      best_gain = gain;
      bestA = A;
      bestB = B;
      best_d = d;
    }
  }
  if (grown != END) {
    uint32_t G = c->s[grown].group;
    for (size_t i = 0; i < c->n; i++) {
      if (c->s[i].group != i || i == G || !group_live_at(c, (uint32_t)i, j) ||
          gain_cap(c, G, (uint32_t)i) <= best_gain)
        continue;
      int64_t d;
      if (!best_offset(c, G, (uint32_t)i, &d)) continue;
      int64_t gain =
          (int64_t)(c->extent[G] + c->extent[i]) - (int64_t)merged_extent(c, G, (uint32_t)i, d);
      if (gain > best_gain) {
        best_gain = gain;
        bestA = G;
        bestB = (uint32_t)i;
        best_d = d;
      }
    }
  }
  if (bestA == END) return false;
  merge_at(c, bestA, bestB, best_d);
  return true;
}

#define CASCADE_STEPS 256

/* Compaction, after grouping: the merges fix members' offsets in the order
 * they happen, so a member merged early can sit where a later one needs to
 * go (a block's output, live until its residual ADD, just above the
 * convolution output it was made from, where the next block's depthwise
 * output would overlap its own input).  So, per composite, the member that
 * reaches highest tries the offsets below it, lowest first, where it
 * touches a member live with it, sits at a pair's gap, or at 0; it moves
 * to the first where it coexists with every other member, or where a
 * single member is in its way and that one can move to such an offset of
 * its own under the next highest end.  Until no move lowers the top.
 * Extents only fall, so the profile does too.  Work is bounded by *budget
 * coexistence checks. */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Candidate offsets of member x ending at most at cap, ascending, into v
 * (room for 4 per member + 2); returns how many. */
static size_t candidates(const gctx *c, uint32_t R, uint32_t x, int64_t cap, int64_t *v) {
  uint32_t al = c->galign[R];
  const mp_inplace_slot *s = &c->s[x];
  size_t k = 0;
#define PUT(dv)                                                               \
  do {                                                                        \
    int64_t d_ = (dv);                                                        \
    if (d_ >= 0 && d_ + (int64_t)s->size <= cap) v[k++] = d_;                 \
  } while (0)
  PUT(0);
  PUT(floor_to(cap - (int64_t)s->size, al));
  for (uint32_t b = R; b != END; b = c->next[b]) {
    if (b == x || !live_together(s, &c->s[b])) continue;
    int64_t rb = (int64_t)c->s[b].rel;
    PUT(ceil_to(rb + (int64_t)c->s[b].size, al));
    PUT(floor_to(rb - (int64_t)s->size, al));
    const mp_inplace_pair *p = pair_of(c, x, b);
    if (p && p->period <= 1)
      PUT(p->in == s->t ? ceil_to(rb + p->gap, al) : floor_to(rb - p->gap, al));
    if (p && p->period > 1) {
      /* exactly on b, and the lowest offset the period allows */
      int64_t l = mp_lcm64(p->period, al);
      PUT(rb);
      if (p->in == s->t) {
        int64_t d = ceil_to(p->gap > -rb ? p->gap : -rb, (uint32_t)l);
        PUT(rb + d);
      } else {
        PUT(rb - floor_to(rb, (uint32_t)l));
      }
    }
  }
#undef PUT
  qsort(v, k, sizeof *v, cmp_i64);
  return k;
}

/* Does member x fit at d against every other member (skip aside)?  The
 * one in its way in *blocker when exactly one is (*n_block counts up to 2). */
static bool fits_members(const gctx *c, uint32_t R, uint32_t x, int64_t d, uint32_t *blocker,
                         int *n_block, uint64_t *budget) {
  *n_block = 0;
  for (uint32_t b = R; b != END; b = c->next[b]) {
    if (b == x) continue;
    if (*budget == 0) {
      *n_block = 2;
      return false;
    }
    --*budget;
    if (coexist(c, x, d, b, (int64_t)c->s[b].rel)) continue;
    *blocker = b;
    if (++*n_block > 1) return false;
  }
  return *n_block == 0;
}

/* Lower the top member of composite R once; false when it cannot. */
static bool lower_top(gctx *c, uint32_t R, int64_t *va, int64_t *vb, uint64_t *budget) {
  uint32_t top = END;
  uint64_t hi = 0, second = 0;
  for (uint32_t m = R; m != END; m = c->next[m]) {
    uint64_t e = c->s[m].rel + c->s[m].size;
    if (e > hi) {
      second = hi;
      hi = e;
      top = m;
    } else if (e > second) {
      second = e;
    }
  }
  if (top == END) return false;
  uint64_t old = c->s[top].rel;
  int64_t under = second < hi ? (int64_t)second : (int64_t)hi - 1;
  size_t na = candidates(c, R, top, (int64_t)hi - 1, va);
  for (size_t i = 0; i < na && *budget; i++) {
    if (va[i] >= (int64_t)old || (i && va[i] == va[i - 1])) continue;
    uint32_t blk = END;
    int nblk;
    if (fits_members(c, R, top, va[i], &blk, &nblk, budget)) {
      c->s[top].rel = (uint64_t)va[i];
      return true;
    }
    if (nblk != 1) continue;
    /* the one in the way moves, under the next highest end */
    c->s[top].rel = (uint64_t)va[i];
    uint64_t bold = c->s[blk].rel;
    size_t nb = candidates(c, R, blk, under, vb);
    for (size_t j = 0; j < nb && *budget; j++) {
      uint32_t b2;
      int n2;
      if (vb[j] == (int64_t)bold || (j && vb[j] == vb[j - 1])) continue;
      if (fits_members(c, R, blk, vb[j], &b2, &n2, budget)) {
        c->s[blk].rel = (uint64_t)vb[j];
        return true;
      }
    }
    c->s[top].rel = old;
  }
  return false;
}

static void compact(gctx *c, uint32_t R, uint64_t *budget) {
  size_t m = 0;
  for (uint32_t x = R; x != END; x = c->next[x]) m++;
  int64_t *va = malloc((4 * m + 2) * sizeof *va), *vb = malloc((4 * m + 2) * sizeof *vb);
  if (va && vb)
    while (*budget && lower_top(c, R, va, vb, budget)) {
      uint64_t lo = UINT64_MAX, ext = 0;
      for (uint32_t x = R; x != END; x = c->next[x])
        if (c->s[x].rel < lo) lo = c->s[x].rel;
      lo = (uint64_t)floor_to((int64_t)lo, c->galign[R]);
      for (uint32_t x = R; x != END; x = c->next[x]) {
        c->s[x].rel -= lo;
        if (c->s[x].rel + c->s[x].size > ext) ext = c->s[x].rel + c->s[x].size;
      }
      c->extent[R] = ext;
    }
  free(va);
  free(vb);
}

mp_status mp_inplace_build(const mp_graph *g, const mp_inplace_pair *pairs, size_t n_pairs,
                           mp_inplace_slot *slots, size_t n_slots, mp_inplace_composite **groups,
                           size_t *n_groups) {
  *groups = NULL;
  *n_groups = 0;
  for (size_t i = 0; i < n_slots; i++) {
    slots[i].group = (uint32_t)i;
    slots[i].rel = 0;
  }
  if (n_pairs == 0 || n_slots < 2 || g->n_ops == 0) return MP_OK;
  gctx c = {pairs, n_pairs, slots, n_slots, g->n_ops, NULL, NULL, NULL,
            NULL,  NULL,    NULL,  NULL,    NULL};
  gsave sv = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  mp_status st = MP_ERR_NOMEM;
  size_t n = n_slots;
  c.slot_of = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *c.slot_of);
  c.next = malloc(n * sizeof *c.next);
  c.extent = malloc(n * sizeof *c.extent);
  c.galign = malloc(n * sizeof *c.galign);
  c.gstart = malloc(n * sizeof *c.gstart);
  c.gend = malloc(n * sizeof *c.gend);
  c.diff = calloc((size_t)g->n_ops + 1, sizeof *c.diff);
  c.pair_at = calloc((size_t)g->n_ops + 1, sizeof *c.pair_at);
  sv.rel = malloc(n * sizeof *sv.rel);
  sv.extent = malloc(n * sizeof *sv.extent);
  sv.group = malloc(n * sizeof *sv.group);
  sv.next = malloc(n * sizeof *sv.next);
  sv.galign = malloc(n * sizeof *sv.galign);
  sv.gstart = malloc(n * sizeof *sv.gstart);
  sv.gend = malloc(n * sizeof *sv.gend);
  sv.diff = malloc(((size_t)g->n_ops + 1) * sizeof *sv.diff);
  if (!c.slot_of || !c.next || !c.extent || !c.galign || !c.gstart || !c.gend || !c.diff ||
      !c.pair_at || !sv.rel || !sv.extent || !sv.group || !sv.next || !sv.galign ||
      !sv.gstart || !sv.gend || !sv.diff)
    goto done;
  for (uint32_t t = 0; t < g->n_tensors; t++) c.slot_of[t] = -1;
  for (size_t i = 0; i < n; i++) {
    c.slot_of[slots[i].t] = (int32_t)i;
    c.next[i] = END;
    c.extent[i] = slots[i].size;
    c.galign[i] = slots[i].align ? slots[i].align : 1;
    c.gstart[i] = slots[i].start;
    c.gend[i] = slots[i].end;
    add_live(&c, (uint32_t)i, 1);
  }
  /* pairs are sorted by op: pair_at[op] .. pair_at[op + 1] */
  for (size_t i = 0; i < n_pairs; i++) c.pair_at[pairs[i].op + 1]++;
  for (uint32_t op = 0; op < g->n_ops; op++) c.pair_at[op + 1] += c.pair_at[op];

  /* a budget of profile evaluations: ~50M slot-or-op visits in all */
  uint64_t budget = UINT64_C(50000000) / ((uint64_t)n + g->n_ops + 1);
  if (budget < 64) budget = 64;
  uint64_t evals = 0;
  for (;;) {
    uint32_t jstar = 0;
    int64_t peak = profile(&c, &jstar);
    evals++;
    bool improved = false;
    for (size_t i = c.pair_at[jstar]; i < c.pair_at[jstar + 1] && !improved; i++) {
      int32_t si = c.slot_of[pairs[i].in], so = c.slot_of[pairs[i].out];
      if (si < 0 || so < 0 || slots[si].group == slots[so].group) continue;
      if (evals >= budget) break;
      save_state(&c, &sv);
      int64_t d;
      uint32_t A = slots[si].group, B = slots[so].group;
      bool ok = best_offset(&c, A, B, &d);
      if (ok) merge_at(&c, A, B, d);
      for (int step = 0; ok && step < CASCADE_STEPS && evals < budget; step++) {
        uint32_t j = 0;
        int64_t np = profile(&c, &j);
        evals++;
        if (np < peak) {
          improved = true;
          break;
        }
        ok = relieve(&c, j, (uint32_t)so);
      }
      if (!improved) restore_state(&c, &sv);
    }
    /* no pair at the peak helps: pack the buffers live there into the dead
     * bytes of a composite live there (a channel-serial depthwise
     * convolution's temporary under the rows its composite's chain left
     * free), at each new peak, until the peak falls */
    for (size_t r = 0; r < n && !improved && evals < budget; r++) {
      if (slots[r].group != r || c.next[r] == END || !group_live_at(&c, (uint32_t)r, jstar))
        continue;
      save_state(&c, &sv);
      uint32_t j = jstar;
      for (int step = 0; step < CASCADE_STEPS && evals < budget; step++) {
        if (!relieve(&c, j, (uint32_t)r)) break;
        int64_t np = profile(&c, &j);
        evals++;
        if (np < peak) {
          improved = true;
          break;
        }
      }
      if (!improved) restore_state(&c, &sv);
    }
    if (!improved) break;
  }
  uint64_t work = UINT64_C(20000000);
  for (size_t i = 0; i < n; i++)
    if (slots[i].group == i && c.next[i] != END) compact(&c, (uint32_t)i, &work);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += slots[i].group == i && c.next[i] != END;
  st = MP_OK;
  if (k) {
    mp_inplace_composite *v = malloc(k * sizeof *v);
    if (!v) {
      st = MP_ERR_NOMEM;
      goto done;
    }
    k = 0;
    for (size_t i = 0; i < n; i++)
      if (slots[i].group == i && c.next[i] != END)
        v[k++] = (mp_inplace_composite){(uint32_t)i, c.extent[i], c.galign[i], c.gstart[i], c.gend[i]};
    *groups = v;
    *n_groups = k;
  }
done:
  if (st != MP_OK)
    for (size_t i = 0; i < n_slots; i++) {
      slots[i].group = (uint32_t)i;
      slots[i].rel = 0;
    }
  free(c.slot_of);
  free(c.next);
  free(c.extent);
  free(c.galign);
  free(c.gstart);
  free(c.gend);
  free(c.diff);
  free(c.pair_at);
  free(sv.rel);
  free(sv.extent);
  free(sv.group);
  free(sv.next);
  free(sv.galign);
  free(sv.gstart);
  free(sv.gend);
  free(sv.diff);
  return st;
}
