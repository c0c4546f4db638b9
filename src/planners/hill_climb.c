/*
 * planner_hill_climb.c — `hill_climb`: local search over placement orders,
 * then a bounded exact search.
 *
 * An order of the items decodes to a layout; the search walks over orders
 * and keeps the best layout seen.  Two decoders give two neighbourhoods:
 *   - skyline (most moves): keep the top of what is placed per time step
 *     (the skyline) and fill its leftmost lowest point with the first item,
 *     in the order, that starts there and fits the flat stretch; when none
 *     does, raise the stretch to its lower neighbour (that space is lost).
 *     Its layouts have no holes, which tightly packed problems need and
 *     largest-first first fit misses.  The order in which it picked the
 *     items decodes to the same layout again, so the search keeps that.
 *   - first fit (FF_SHARE of the moves): the seeds' hill climb on
 *     first-fit orders (firstfit.h), which lowers the peak of large,
 *     loosely packed problems in a few moves.
 *
 * Algorithm:
 *   1. Start from the first-fit layouts of the greedy_by_size order (the
 *      seeds' starting point) and of the greedy order, and above
 *      MP_SKYLINE_START_ITEMS buffers the skyline construction
 *      (skyline.h); keep the lowest (the earlier on ties).  Stop at once
 *      at the lower bound, and stop here when `iterations` is 0.
 *   2. Skyline search: decode the greedy_by_size order.  First-fit search:
 *      start from the best layout so far, packed (step 5).
 *   3. Each iteration draws, from the planner's own PRNG (splitmix64
 *      seeded by `seed`), one move of one of the two searches:
 *        skyline (12/16): move a block of 2..BLOCK_MAX consecutive entries
 *          elsewhere (10/16), promote an item at the peak (offset + size ==
 *          height) to a random earlier position, move one entry, or swap
 *          two (2/16 each, with the block moves sharing the rest);
 *        first fit (4/16): promote a peak item (1/2), swap (1/4), move (1/4).
 *      Both re-decode incrementally from the first changed position (the
 *      skyline decoder undoes its later picks on a trail, the first-fit
 *      engine its later placements) and give up as soon as the partial
 *      layout is already worse than the current one.
 *   4. Skyline layouts compare by height, then by their area (bytes x time
 *      steps) above the lower bound, which guides the search across
 *      plateaus of equal height; first-fit layouts by height.  Equal
 *      layouts are accepted (sideways moves).  After KICK_AFTER skyline
 *      moves without a better current layout, the skyline search restarts
 *      from its best order shaken by 2-5 random swaps.
 *   5. Each new lowest skyline layout is packed with first fit in offset
 *      order (no item moves up) and, if that beats the best layout, it
 *      becomes the best and the first-fit search continues from it.
 *   6. Stop after `iterations` moves, after WORK_PER_ITERATION x
 *      `iterations` placements (large problems make fewer moves), after
 *      `max_stall_iterations` consecutive moves without a new best (0, the
 *      default: no such limit), or as soon as the best height equals the
 *      lower bound, which no layout can beat.
 *   7. Exact tail: if the best layout is still above the lower bound, run
 *      the exact search (exact.h) from it, bounded by
 *      EXACT_NODES_PER_ITERATION x `iterations` search nodes (no clock, no
 *      randomness, so the seed means what it meant).  It returns a layout
 *      no worse, and may prove it optimal (sol->proven_lower then rises to
 *      the height).  On problems too large for it, it keeps the layout.
 * The result is never worse than greedy_by_size, nor than greedy.
 *
 * Deterministic: the same problem and options give the same offsets on
 * every machine; no clock, no addresses, no rand().  sol->iterations
 * reports the moves made.  Zero-size items take offset 0 and no part in
 * the skyline search.  mp_hill_climb_run (planner_hill_climb.h) runs it
 * without the exact tail, for the benchmark.
 */
#include "planners/hill_climb.h"

#include "planners/exact.h"
#include "planners/firstfit.h"
#include "planners/skyline.h"
#include "planners/skytree.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const mp_planner mp_planner_hill_climb;

enum { DEFAULT_ITERATIONS = 2000, DEFAULT_SEED = 0, DEFAULT_STALL = 0 };

#define WORK_PER_ITERATION MP_HILL_CLIMB_WORK_PER_ITERATION
/* Engine query cost (mp_firstfit_cost) that counts as one unit of work:
 * placements among few live items cost a few dozen and barely count; on
 * problems where thousands of long-lived items overlap, a placement costs
 * thousands, and the work bound then stops the search after a few seconds
 * instead of minutes. */
#define FF_COST_PER_WORK 256u

/* Sixteenths of the iterations that are first-fit moves. */
#define FF_SHARE 4u
/* Longest block a skyline block move takes (and at most half the items). */
#define BLOCK_MAX 60u
/* Moves without a better current layout before a restart from the best. */
#define KICK_AFTER 200u
#define EXACT_NODES_PER_ITERATION MP_HILL_CLIMB_EXACT_NODES_PER_ITERATION

static const mp_option_spec hill_climb_options[] = {
    {"iterations", 0, 100000000, DEFAULT_ITERATIONS, true,
     "Maximum number of moves (order perturbations) to evaluate; the exact "
     "search that may follow is bounded by 5 nodes per iteration."},
    {"seed", 0, INT64_MAX, DEFAULT_SEED, true,
     "Seed of the planner's own pseudo-random generator; the same seed gives "
     "the same plan."},
    {"max_stall_iterations", 0, 100000000, DEFAULT_STALL, true,
     "Stop after this many consecutive moves without a new best layout "
     "(0: no limit)."},
    {"time_limit_ms", 0, 86400000, 0, true,
     "Wall-clock limit of the whole run in milliseconds, starts included "
     "(0: none). A run it cuts returns its best layout so far and depends on "
     "the machine's speed; without it the same seed gives the same plan."},
};

/* splitmix64: small, fast, and the same on every platform. */
static uint64_t next_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the modulo bias is irrelevant here). */
static size_t rand_below(uint64_t *state, size_t n) { return (size_t)(next_rand(state) % n); }

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}


/* ---- the skyline decoder ---------------------------------------------------
 *
 * Time is compressed to the ranks of the distinct start times of the items
 * it holds (the same overlaps).  The skyline is one value per rank, kept in
 * the segment tree the skyline construction uses too (skytree.c: minima
 * and maxima with lazy assignment), so the leftmost lowest rank, the end of
 * the flat stretch there, and raising a whole stretch each cost O(log T).
 * A rank no unplaced item covers is a wall (WALL): never the lowest
 * point, and it ends every stretch.  Items are bucketed by their first
 * rank: the candidates at rank L are bucket L.
 * Picks and raises go on a trail, and mark[k] is the trail length after k
 * picks, so undoing to k picks is exact.  Both change a flat stretch, so
 * an entry only needs the range and the height it had: undoing a raise
 * assigns that height back, undoing a pick also gives the ranks their
 * cover back. */

#define WALL UINT64_MAX

typedef struct trail_ent {
  uint32_t a, b;  /* the ranks changed */
  uint64_t y;     /* their height before */
  bool pick;      /* a pick (covers changed too), else a raise */
} trail_ent;

typedef struct skyline {
  const mp_item *items;
  uint32_t m;          /* items it holds */
  uint32_t *item;      /* their indices into items */
  uint32_t T;          /* ranks */
  uint32_t *lo, *hi;   /* per held item: its inclusive rank interval */
  uint32_t *b_off, *bucket; /* held items by first rank */
  mp_skytree tree;     /* the skyline per rank (skytree.c), leaves at M + rank */
  uint32_t *cover;     /* per rank: unplaced items covering it */
  uint64_t target;     /* the area measure counts what lies above it */
  /* the decoding: k picks done */
  uint32_t steps;
  uint8_t *done;       /* per held item */
  uint64_t *off;       /* per held item, valid once picked */
  uint32_t *trace;     /* trace[k]: the held item picked k-th */
  size_t *mark;        /* mark[k]: trail length after k picks */
  uint64_t *h_at;      /* h_at[k]: height after k picks */
  uint64_t *a_at;      /* a_at[k]: area above target after k picks */
  trail_ent *trail;
  size_t n_trail, cap_trail;
  bool nomem;          /* the trail could not grow */
  uint64_t work;       /* picks and raises done, over the whole search */
  uint64_t deadline_ms; /* CLOCK_MONOTONIC, 0 = none */
} skyline;

static void trail_push(skyline *k, trail_ent e) {
  if (k->n_trail == k->cap_trail) {
    size_t cap = k->cap_trail ? 2 * k->cap_trail : 1024;
    trail_ent *t = realloc(k->trail, cap * sizeof *t);
    if (!t) {
      k->nomem = true;
      return;
    }
    k->trail = t;
    k->cap_trail = cap;
  }
  k->trail[k->n_trail++] = e;
}

static void sky_assign(skyline *k, uint32_t a, uint32_t b, uint64_t v) {
  mp_skytree_set(&k->tree, a, b, v, 0);
}

static void sky_free(skyline *k) {
  if (!k) return;
  free(k->item);
  free(k->lo);
  free(k->hi);
  free(k->b_off);
  free(k->bucket);
  mp_skytree_free(&k->tree);
  free(k->cover);
  free(k->done);
  free(k->off);
  free(k->trace);
  free(k->mark);
  free(k->h_at);
  free(k->a_at);
  free(k->trail);
  memset(k, 0, sizeof *k);
}

/* A decoder over the items of non-zero size; nothing picked yet. */
static mp_status sky_init(skyline *k, const mp_item *items, size_t n, uint64_t target) {
  memset(k, 0, sizeof *k);
  k->items = items;
  k->target = target;
  uint32_t m = 0;
  for (size_t i = 0; i < n; i++) m += items[i].size != 0;
  k->m = m;
  size_t mm = m ? m : 1;
  int32_t *times = malloc(mm * sizeof *times);
  k->item = malloc(mm * sizeof *k->item);
  k->lo = malloc(mm * sizeof *k->lo);
  k->hi = malloc(mm * sizeof *k->hi);
  k->done = calloc(mm, 1);
  k->off = calloc(mm, sizeof *k->off);
  k->trace = malloc(mm * sizeof *k->trace);
  k->mark = calloc(mm + 1, sizeof *k->mark);
  k->h_at = calloc(mm + 1, sizeof *k->h_at);
  k->a_at = calloc(mm + 1, sizeof *k->a_at);
  if (!times || !k->item || !k->lo || !k->hi || !k->done || !k->off || !k->trace || !k->mark ||
      !k->h_at || !k->a_at)
    goto nomem;
  m = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].size) {
      times[m] = items[i].start;
      k->item[m++] = (uint32_t)i;
    }
  qsort(times, m, sizeof *times, mp_cmp_i32);
  uint32_t T = 0;
  for (uint32_t i = 0; i < m; i++)
    if (T == 0 || times[T - 1] != times[i]) times[T++] = times[i];
  k->T = T;
  if (mp_skytree_init(&k->tree, T, false) != MP_OK) goto nomem;
  k->cover = calloc(T ? T : 1, sizeof *k->cover);
  k->b_off = calloc((size_t)T + 2, sizeof *k->b_off);
  k->bucket = malloc(mm * sizeof *k->bucket);
  if (!k->cover || !k->b_off || !k->bucket) goto nomem;
  for (uint32_t j = 0; j < m; j++) {
    const mp_item *it = &items[k->item[j]];
    /* ranks of the last distinct start times <= the item's start and end */
    k->lo[j] = (uint32_t)mp_count_le_i32(times, T, it->start) - 1;
    k->hi[j] = (uint32_t)mp_count_le_i32(times, T, it->end) - 1;
    k->b_off[k->lo[j] + 1]++;
    for (uint32_t t = k->lo[j]; t <= k->hi[j]; t++) k->cover[t]++;
  }
  for (uint32_t t = 0; t < T; t++) k->b_off[t + 1] += k->b_off[t];
  for (uint32_t j = 0; j < m; j++) k->bucket[k->b_off[k->lo[j]]++] = j;
  for (uint32_t t = T; t > 0; t--) k->b_off[t] = k->b_off[t - 1];
  k->b_off[0] = 0;
  /* every rank is some held item's start: all at 0, no walls yet; the
   * padding leaves beyond T are walls */
  mp_skytree *tr = &k->tree;
  for (size_t x = tr->M; x < 2 * tr->M; x++) tr->mn[x] = tr->mx[x] = x - tr->M < T ? 0 : WALL;
  mp_skytree_pull_all(tr);
  free(times);
  return MP_OK;
nomem:
  free(times);
  sky_free(k);
  return MP_ERR_NOMEM;
}

/* Undo picks (and the raises after them) until `steps` remain. */
static void sky_undo(skyline *k, uint32_t steps) {
  if (steps > k->steps) steps = k->steps;
  for (uint32_t s = k->steps; s > steps; s--) k->done[k->trace[s - 1]] = 0;
  while (k->n_trail > k->mark[steps]) {
    const trail_ent *e = &k->trail[--k->n_trail];
    if (e->pick)
      for (uint32_t t = e->a; t <= e->b; t++) k->cover[t]++;
    sky_assign(k, e->a, e->b, e->y);
  }
  k->steps = steps;
}

/* Bytes x time steps of held item j at offset y that lie above the target. */
static uint64_t area_above(const skyline *k, uint32_t j, uint64_t y) {
  const mp_item *it = &k->items[k->item[j]];
  uint64_t top = y + it->size;
  if (top <= k->target) return 0;
  uint64_t low = y > k->target ? y : k->target;
  return sat_mul(top - low, (uint64_t)((int64_t)it->end - it->start + 1));
}

typedef enum { DECODE_DONE, DECODE_WORSE, DECODE_NOMEM, DECODE_CUT } decode_result;

static bool past_ms(uint64_t deadline_ms);

/* Continue the decoding with the priorities pos[] (pos[j]: position of held
 * item j in the order) until every item is picked.  Gives up with
 * DECODE_WORSE as soon as the partial layout is worse than (max_h, max_a):
 * higher than max_h, or as high with more area. */
static decode_result sky_decode(skyline *k, const uint32_t *pos, uint64_t max_h, uint64_t max_a) {
  while (k->steps < k->m) {
    if (++k->work % 256 == 0 && past_ms(k->deadline_ms)) return DECODE_CUT;
    uint64_t y = mp_skytree_min(&k->tree);
    uint32_t L = (uint32_t)mp_skytree_lowest(&k->tree);
    size_t above = mp_skytree_first_above(&k->tree, L + 1, y);
    uint32_t R = (uint32_t)(above < k->T ? above : k->T) - 1;
    uint32_t pick = UINT32_MAX;
    for (uint32_t e = k->b_off[L]; e < k->b_off[L + 1]; e++) {
      uint32_t j = k->bucket[e];
      if (k->done[j] || k->hi[j] > R) continue;
      if (pick == UINT32_MAX || pos[j] < pos[pick]) pick = j;
    }
    if (pick == UINT32_MAX) {
      /* nothing fits the stretch: an unplaced item covering L reaches a
       * higher neighbour (walls are covered by nothing), so raise it to
       * the lower one */
      uint64_t up = L > 0 ? mp_skytree_at(&k->tree, L - 1) : WALL;
      if (R + 1 < k->T) up = mp_min_u64(up, mp_skytree_at(&k->tree, R + 1));
      trail_push(k, (trail_ent){L, R, y, false});
      if (k->nomem) return DECODE_NOMEM;
      sky_assign(k, L, R, up);
      continue;
    }
    const mp_item *it = &k->items[k->item[pick]];
    uint64_t at = mp_align_up(y, it->align ? it->align : 1), top = at + it->size;
    uint32_t a = k->lo[pick], b = k->hi[pick];
    trail_push(k, (trail_ent){a, b, y, true});
    if (k->nomem) return DECODE_NOMEM;
    sky_assign(k, a, b, top);
    for (uint32_t t = a; t <= b; t++)
      if (--k->cover[t] == 0) sky_assign(k, t, t, WALL);
    k->done[pick] = 1;
    k->off[pick] = at;
    uint32_t s = k->steps++;
    k->trace[s] = pick;
    k->mark[s + 1] = k->n_trail;
    k->h_at[s + 1] = mp_max_u64(k->h_at[s], top);
    k->a_at[s + 1] = sat_add(k->a_at[s], area_above(k, pick, at));
    if (k->h_at[s + 1] > max_h || (k->h_at[s + 1] == max_h && k->a_at[s + 1] > max_a))
      return DECODE_WORSE;
  }
  return DECODE_DONE;
}

/* ---- the search ------------------------------------------------------------ */

typedef struct search {
  skyline k;
  uint32_t m;
  uint32_t *order;    /* the order being tried (held items) */
  uint32_t *cur;      /* the current order: its own decoding's trace */
  uint32_t *pos;      /* pos[j]: position of held item j in `order` */
  uint64_t cur_h, cur_a;
  uint32_t valid;     /* the decoder holds the picks of cur[0..valid) */
  uint32_t *pick;     /* scratch: positions of peak items */
  uint32_t *tmp;      /* scratch for block moves */
  uint64_t rng;
} search;

/* Move the entry at position `from` to position `to`, shifting the ones in
 * between. */
static void move_entry(uint32_t *order, size_t from, size_t to) {
  uint32_t v = order[from];
  if (from < to)
    memmove(order + from, order + from + 1, (to - from) * sizeof *order);
  else if (to < from)
    memmove(order + to + 1, order + to, (from - to) * sizeof *order);
  order[to] = v;
}

/* Move the `len` entries at `from` so that they start at `to` (to + len <= n). */
static void move_block(uint32_t *order, uint32_t *tmp, size_t from, size_t len, size_t to) {
  if (from == to || len == 0) return;
  memcpy(tmp, order + from, len * sizeof *order);
  if (from < to)
    memmove(order + from, order + from + len, (to - from) * sizeof *order);
  else
    memmove(order + to + len, order + to, (from - to) * sizeof *order);
  memcpy(order + to, tmp, len * sizeof *order);
}

/* One random move of `order` (== cur); returns the first position it
 * changed, or m when it changed nothing. */
static uint32_t propose(search *s) {
  uint32_t m = s->m;
  uint64_t r = next_rand(&s->rng) % 16;
  if (r < 2) {
    /* an item at the peak moves to a random earlier position */
    size_t n_peak = 0;
    for (uint32_t q = 1; q < m; q++) {
      uint32_t j = s->cur[q];
      if (s->k.off[j] + s->k.items[s->k.item[j]].size == s->cur_h) s->pick[n_peak++] = q;
    }
    if (n_peak == 0) return m;
    size_t a = s->pick[rand_below(&s->rng, n_peak)];
    size_t b = rand_below(&s->rng, a);
    move_entry(s->order, a, b);
    return (uint32_t)b;
  }
  size_t a = rand_below(&s->rng, m), b = rand_below(&s->rng, m);
  if (r < 4) {
    uint32_t t = s->order[a];
    s->order[a] = s->order[b];
    s->order[b] = t;
    return a == b ? m : (uint32_t)(a < b ? a : b);
  }
  if (r < 6) {
    move_entry(s->order, a, b);
    return a == b ? m : (uint32_t)(a < b ? a : b);
  }
  /* a block of 2..BLOCK_MAX entries moves elsewhere */
  size_t most = mp_min_u64(BLOCK_MAX, m / 2);
  if (most < 2) return m;
  size_t len = 2 + rand_below(&s->rng, most - 1);
  a = rand_below(&s->rng, m - len + 1);
  b = rand_below(&s->rng, m - len + 1);
  move_block(s->order, s->tmp, a, len, b);
  return a == b ? m : (uint32_t)(a < b ? a : b);
}

/* Decode `order` from position `from` (<= valid) against the current
 * layout.  On DECODE_DONE with a layout no worse, it becomes current (the
 * order is replaced by the decoder's trace) and the function returns true;
 * otherwise the order is taken back and it returns false.  `force`
 * accepts whatever comes out.  *st gets MP_ERR_NOMEM when the trail could
 * not grow. */
static bool try_order(search *s, uint32_t from, bool force, mp_status *st) {
  /* (a decoding the deadline cuts is taken back like a worse one) */
  uint32_t m = s->m;

  for (uint32_t q = from; q < m; q++) s->pos[s->order[q]] = q;
  sky_undo(&s->k, from);
  decode_result r = sky_decode(&s->k, s->pos, force ? UINT64_MAX : s->cur_h,
                               force ? UINT64_MAX : s->cur_a);
  if (r == DECODE_DONE) {
    memcpy(s->cur + from, s->k.trace + from, (m - from) * sizeof *s->cur);
    memcpy(s->order + from, s->cur + from, (m - from) * sizeof *s->order);
    for (uint32_t q = from; q < m; q++) s->pos[s->cur[q]] = q;
    s->cur_h = s->k.h_at[m];
    s->cur_a = s->k.a_at[m];
    s->valid = m;
    return true;
  }
  if (r == DECODE_NOMEM) *st = MP_ERR_NOMEM;
  memcpy(s->order + from, s->cur + from, (m - from) * sizeof *s->order);
  for (uint32_t q = from; q < m; q++) s->pos[s->order[q]] = q;
  s->valid = from;
  return false;
}

/* ---- the first-fit search ----------------------------------------------------
 *
 * The seeds' hill climb, kept as a second neighbourhood: the current order
 * decodes by first fit (firstfit.h); a move promotes an item at the peak
 * to an earlier position (1/2), swaps two entries (1/4) or moves one
 * (1/4); the engine re-places only from the first changed position, with
 * the current height as a limit, so a move that would raise the height is
 * rejected at the first item that does not fit.  Equal heights are
 * accepted.  It is what lowers the peak of large, loosely packed problems
 * in a few moves, where the skyline search needs many. */

typedef struct ffsearch {
  const mp_item *items;
  size_t n;
  mp_firstfit *ff;
  uint32_t *order;  /* the current order */
  uint64_t *off;    /* its layout */
  uint64_t h;       /* its height */
  size_t valid;     /* the engine holds order[0..valid) placed */
  uint32_t *peak;   /* scratch: positions of peak items */
  uint64_t work;    /* placements done */
  uint64_t deadline_ms; /* CLOCK_MONOTONIC, 0 = none */
  bool cut;         /* the deadline stopped the last decoding: the engine no
                       longer holds this order's layout */
} ffsearch;

/* Make `order` (all n items) current. */
static void ff_adopt(ffsearch *f, const uint32_t *order) {
  memcpy(f->order, order, f->n * sizeof *order);
  f->h = mp_firstfit_run_until(f->ff, f->order, f->n, 0, f->off, f->deadline_ms);
  f->valid = f->n;
  f->cut = f->h == UINT64_MAX;
}

/* One move; returns true when it lowered the height. */
static bool ff_move(ffsearch *f, uint64_t *rng) {
  size_t n = f->n;
  if (f->cut) return false;
  uint64_t kind = next_rand(rng) % 4;
  size_t a = rand_below(rng, n), b = rand_below(rng, n);
  if (kind < 2) {
    size_t n_peak = 0;
    for (size_t k = 1; k < n; k++) {
      uint32_t i = f->order[k];
      if (f->off[i] + f->items[i].size == f->h) f->peak[n_peak++] = (uint32_t)k;
    }
    if (n_peak > 0) {
      a = f->peak[rand_below(rng, n_peak)];
      b = rand_below(rng, a);
    }
  }
  if (a == b) return false;
  bool swap = kind == 2;
  if (swap) {
    uint32_t t = f->order[a];
    f->order[a] = f->order[b];
    f->order[b] = t;
  } else {
    move_entry(f->order, a, b);
  }
  size_t first = a < b ? a : b, from = first < f->valid ? first : f->valid;
  mp_firstfit_truncate(f->ff, from);
  for (size_t k = from; k < n; k++) {
    f->work++;
    bool cut = (k - from) % 256 == 255 && past_ms(f->deadline_ms);
    if (cut || !mp_firstfit_place(f->ff, f->order[k], f->h, NULL)) {
      /* reject: restore the order; the engine keeps the shared prefix */
      if (swap) {
        uint32_t t = f->order[a];
        f->order[a] = f->order[b];
        f->order[b] = t;
      } else {
        move_entry(f->order, b, a);
      }
      f->valid = k < first ? k : first;
      return false;
    }
  }
  for (size_t k = from; k < n; k++) f->off[f->order[k]] = mp_firstfit_offset(f->ff, f->order[k]);
  uint64_t h = mp_firstfit_height(f->ff);
  bool lower = h < f->h;
  f->h = h;
  f->valid = n;
  return lower;
}

/* ---- packing and the driver ------------------------------------------------- */

/* First-fit layout of `order` (all n items) into off; returns its height. */
static uint64_t first_fit(mp_firstfit *ff, const uint32_t *order, size_t n, uint64_t *off) {
  return mp_firstfit_run(ff, order, n, 0, off);
}

typedef struct by_offset {
  uint64_t offset;
  uint32_t index;
} by_offset;

static int cmp_by_offset(const void *a, const void *b) {
  const by_offset *x = a, *y = b;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Pack the layout `off` with first fit in offset order: every item lands
 * at or below its offset in `off` (the items before it in that order sit
 * below it, and only move down).  Writes the order to order[0..n), the
 * packed layout to out, and its height to *height. */

/* With a deadline (0 = none) the packing gives up when it is reached:
 * *height is then UINT64_MAX and `out` is not a layout. */
static mp_status pack(mp_firstfit *ff, const mp_item *items, size_t n, const uint64_t *off,
                      uint32_t *order, uint64_t *out, uint64_t *height, uint64_t deadline_ms) {
  by_offset *b = malloc((n ? n : 1) * sizeof *b);
  if (!b) return MP_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) b[i] = (by_offset){items[i].size ? off[i] : 0, (uint32_t)i};
  qsort(b, n, sizeof *b, cmp_by_offset);
  for (size_t i = 0; i < n; i++) order[i] = b[i].index;
  free(b);
  if (deadline_ms == 0) {
    *height = first_fit(ff, order, n, out);
    return MP_OK;
  }
  mp_firstfit_truncate(ff, 0);
  for (size_t i = 0; i < n; i++) {
    if (i % 256 == 0 && past_ms(deadline_ms)) {
      *height = UINT64_MAX;
      return MP_OK;
    }
    mp_firstfit_place(ff, order[i], 0, &out[order[i]]);
  }
  *height = mp_firstfit_height(ff);
  return MP_OK;
}

/* The skyline layout of the decoder's current picks as offsets of all n
 * items (zero-size items at 0). */
static void sky_layout(const skyline *k, size_t n, uint64_t *off) {
  memset(off, 0, n * sizeof *off);
  for (uint32_t j = 0; j < k->m; j++) off[k->item[j]] = k->off[j];
}

/* Everything one run holds; freed by run_free. */
typedef struct run {
  search s;
  ffsearch f;
  mp_firstfit *ff;     /* one-shot decoding: starts and packing */
  uint32_t *order;     /* scratch orders of all n items */
  uint64_t *sky_off;   /* the best skyline layout */
  uint64_t *tmp;
  uint32_t *best_order; /* the best skyline order (held items) */
  uint64_t deadline_ms; /* CLOCK_MONOTONIC, 0 = none (mp_hill_climb_limits) */
} run;

static void run_free(run *r) {
  sky_free(&r->s.k);
  free(r->s.order);
  free(r->s.cur);
  free(r->s.pos);
  free(r->s.pick);
  free(r->s.tmp);
  mp_firstfit_free(&r->f.ff);
  free(r->f.order);
  free(r->f.off);
  free(r->f.peak);
  mp_firstfit_free(&r->ff);
  free(r->order);
  free(r->sky_off);
  free(r->tmp);
  free(r->best_order);
}

/* Pack the best skyline layout; when that beats *best_h it becomes the
 * result, and the first-fit search continues from it. */
static mp_status take_packed(run *r, const mp_item *items, size_t n, uint64_t *best_h,
                             uint64_t *best_off) {
  uint64_t h;
  if (past_ms(r->deadline_ms)) return MP_OK;
  mp_status st = pack(r->ff, items, n, r->sky_off, r->order, r->tmp, &h, r->deadline_ms);
  if (st == MP_OK && h < *best_h) {
    *best_h = h;
    memcpy(best_off, r->tmp, n * sizeof *r->tmp);
    if (r->f.ff && !past_ms(r->deadline_ms)) ff_adopt(&r->f, r->order);
  }
  return st;
}

static bool past_ms(uint64_t deadline_ms) {
  return deadline_ms != 0 && mp_now_ms() >= deadline_ms;
}

/* True when a deadline is set and reached (the run then stops early). */
static bool past(uint64_t deadline_ms, mp_solution *sol) {
  if (!past_ms(deadline_ms)) return false;
  sol->timed_out = true;
  return true;
}

/* Start-order greedy's layout of p in off[] and its height in *h. */
static mp_status start_order_layout(const mp_problem *p, uint64_t *off, uint64_t *h) {
  uint32_t *order = malloc((p->n ? p->n : 1) * sizeof *order);
  mp_status st = order ? mp_firstfit_order_by_start(p->items, p->n, order) : MP_ERR_NOMEM;
  if (st == MP_OK) st = mp_firstfit_solve(p->items, p->n, order, off);
  free(order);
  *h = 0;
  for (size_t i = 0; st == MP_OK && i < p->n; i++) *h = mp_max_u64(*h, off[i] + p->items[i].size);
  return st;
}

mp_status mp_hill_climb_run(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                            const mp_hill_climb_limits *lim, mp_solution *sol,
                            mp_hill_climb_report *rep, const mp_diag_sink *dx) {
  const mp_planner *self = &mp_planner_hill_climb;
  bool exact_tail = lim ? lim->exact_tail : true;
  uint64_t deadline = lim ? lim->deadline_ms : 0;
  uint64_t iterations = (uint64_t)mp_option_get(self, opts, n_opts, "iterations", DEFAULT_ITERATIONS);
  uint64_t seed = (uint64_t)mp_option_get(self, opts, n_opts, "seed", DEFAULT_SEED);
  uint64_t max_stall =
      (uint64_t)mp_option_get(self, opts, n_opts, "max_stall_iterations", DEFAULT_STALL);
  uint64_t limit_ms = (uint64_t)mp_option_get(self, opts, n_opts, "time_limit_ms", 0);
  if (limit_ms) {
    uint64_t own = mp_now_ms() + limit_ms;
    if (!deadline || own < deadline) deadline = own;
  }
  size_t n = p->n, nn = n ? n : 1;
  uint64_t lb = sol->lower_bound ? sol->lower_bound : mp_problem_lower_bound(p);
  mp_hill_climb_report dummy;
  if (!rep) rep = &dummy;
  memset(rep, 0, sizeof *rep);
  mp_progress_clock own_clock, *clk = lim && lim->progress ? lim->progress : &own_clock;
  if (clk == &own_clock) mp_progress_begin(&own_clock, sol->progress, "hill_climb");

  run r = {.s = {.rng = seed}, .deadline_ms = deadline};
  search *s = &r.s;
  r.order = malloc(nn * sizeof *r.order);
  r.sky_off = malloc(nn * sizeof *r.sky_off);
  r.tmp = malloc(nn * sizeof *r.tmp);
  mp_status st = r.order && r.sky_off && r.tmp ? MP_OK : MP_ERR_NOMEM;
  if (st == MP_OK) st = mp_firstfit_new(p->items, n, &r.ff);
  if (st == MP_OK) st = mp_firstfit_order_by_size(p->items, n, r.order);
  if (st != MP_OK) goto out;

  /* 1. the starting layouts: greedy_by_size (or the caller's best), made here
   * within the deadline), then start-order greedy (a sweep, O(n log n)),
   * which stands in for greedy_by_size when the deadline cut that.  Under a
   * deadline the sweep runs first, so that nothing is left to run after
   * the deadline cuts greedy_by_size (the result is the same either way). */
  uint64_t best_h, greedy_h = UINT64_MAX;
  bool sweep_first = deadline && n >= 2 && !(lim && lim->start);
  if (sweep_first && (st = start_order_layout(p, r.tmp, &greedy_h)) != MP_OK) goto out;
  if (lim && lim->start) {
    memcpy(sol->offsets, lim->start, n * sizeof *sol->offsets);
    best_h = lim->start_height;
  } else {
    best_h = mp_firstfit_run_until(r.ff, r.order, n, 0, sol->offsets, deadline);
  }
  if (best_h == UINT64_MAX) {
    sol->cheap_start = true;
    sol->timed_out = true;
  }
  if (best_h > lb && n >= 2 && (sweep_first || sol->cheap_start || !past(deadline, sol))) {
    if (!sweep_first && (st = start_order_layout(p, r.tmp, &greedy_h)) != MP_OK) goto out;
    if (greedy_h < best_h) {
      best_h = greedy_h;
      memcpy(sol->offsets, r.tmp, n * sizeof *r.tmp);
    }
  }
  /* above MP_SKYLINE_START_ITEMS buffers, the skyline construction
   * (skyline.h) too: on dense problems it starts the search near the lower
   * bound */
  if (best_h > lb && n > MP_SKYLINE_START_ITEMS && !sol->cheap_start && !past(deadline, sol)) {
    bool cut = false;
    if ((st = mp_skyline_solve(p->items, n, r.tmp, 0, deadline, &cut)) != MP_OK) goto out;
    uint64_t h = 0;
    for (size_t i = 0; i < n && !cut; i++) h = mp_max_u64(h, r.tmp[i] + p->items[i].size);
    if (cut) {
      sol->timed_out = true;
    } else if (h < best_h) {
      best_h = h;
      memcpy(sol->offsets, r.tmp, n * sizeof *r.tmp);
    }
  }
  mp_progress_update(clk, best_h, lb, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP);
  if (sol->cheap_start) goto done;
  rep->search_height = best_h;
  if (best_h <= lb || n < 2 || iterations == 0) goto tail;

  /* 2. the skyline search starts from the greedy_by_size order */
  if (past(deadline, sol)) goto tail;
  if ((st = sky_init(&s->k, p->items, n, lb)) != MP_OK) goto out;
  s->k.deadline_ms = deadline;
  uint32_t m = s->m = s->k.m;
  size_t mm = m ? m : 1;
  s->order = malloc(mm * sizeof *s->order);
  s->cur = malloc(mm * sizeof *s->cur);
  s->pos = malloc(mm * sizeof *s->pos);
  s->pick = malloc(mm * sizeof *s->pick);
  s->tmp = malloc(mm * sizeof *s->tmp);
  r.best_order = malloc(mm * sizeof *r.best_order);
  r.f = (ffsearch){.items = p->items, .n = n, .deadline_ms = deadline};
  r.f.order = malloc(nn * sizeof *r.f.order);
  r.f.off = malloc(nn * sizeof *r.f.off);
  r.f.peak = malloc(nn * sizeof *r.f.peak);
  if (!s->order || !s->cur || !s->pos || !s->pick || !s->tmp || !r.best_order || !r.f.order ||
      !r.f.off || !r.f.peak) {
    st = MP_ERR_NOMEM;
    goto out;
  }
  {
    /* held items in greedy_by_size order (r.order still holds it); the
     * first-fit search's scratch maps items to held indices meanwhile */
    uint32_t q = 0, *held = r.f.peak;
    for (uint32_t j = 0; j < m; j++) held[s->k.item[j]] = j;
    for (size_t k = 0; k < n; k++)
      if (p->items[r.order[k]].size) s->order[q++] = held[r.order[k]];
  }
  memcpy(s->cur, s->order, mm * sizeof *s->cur);
  if (!try_order(s, 0, true, &st) && st == MP_OK) {
    /* only the deadline stops a forced decoding */
    sol->timed_out = true;
    goto tail;
  }
  if (st != MP_OK) goto out;
  uint64_t sky_h = s->cur_h, sky_a = s->cur_a;
  memcpy(r.best_order, s->cur, mm * sizeof *r.best_order);
  sky_layout(&s->k, n, r.sky_off);
  if ((st = take_packed(&r, p->items, n, &best_h, sol->offsets)) != MP_OK) goto out;

  /* 3. the first-fit search starts from the best layout so far */
  if (past(deadline, sol)) goto tail;
  if ((st = mp_firstfit_new(p->items, n, &r.f.ff)) != MP_OK) goto out;
  if ((st = pack(r.ff, p->items, n, sol->offsets, r.order, r.tmp, &r.f.h, deadline)) != MP_OK)
    goto out;
  if (r.f.h == UINT64_MAX || past(deadline, sol)) goto tail;
  ff_adopt(&r.f, r.order);
  if (r.f.cut) {
    sol->timed_out = true;
    goto tail;
  }
  if (r.f.h < best_h) {
    best_h = r.f.h;
    memcpy(sol->offsets, r.f.off, n * sizeof *r.f.off);
  }

  uint64_t stall = 0, idle = 0, it = 0, work_limit = sat_mul(iterations, WORK_PER_ITERATION);
  while (it < iterations && best_h > lb && m >= 2 && (max_stall == 0 || stall < max_stall) &&
         s->k.work + r.f.work +
                 (mp_firstfit_cost(r.f.ff) + mp_firstfit_cost(r.ff)) / FF_COST_PER_WORK <
             work_limit &&
         !past(deadline, sol)) {
    it++;
    stall++;
    mp_progress_update(clk, best_h, lb, it, MP_PROGRESS_KEEP);
    if (next_rand(&s->rng) % 16 < FF_SHARE) {
      if (ff_move(&r.f, &s->rng) && r.f.h < best_h) {
        best_h = r.f.h;
        memcpy(sol->offsets, r.f.off, n * sizeof *r.f.off);
        stall = 0;
      }
      continue;
    }
    uint32_t first;
    bool force = false;
    if (idle >= KICK_AFTER) {
      /* restart from the best order, shaken by 2-5 random swaps */
      memcpy(s->order, r.best_order, mm * sizeof *s->order);
      memcpy(s->cur, r.best_order, mm * sizeof *s->cur);
      for (size_t q = 2 + rand_below(&s->rng, 4); q > 0; q--) {
        size_t a = rand_below(&s->rng, m), b = rand_below(&s->rng, m);
        uint32_t t = s->order[a];
        s->order[a] = s->order[b];
        s->order[b] = t;
      }
      first = 0;
      force = true;
      idle = 0;
    } else {
      first = propose(s);
      if (first >= m) {
        idle++;
        continue;
      }
      if (first > s->valid) first = s->valid;
    }
    uint64_t old_h = s->cur_h, old_a = s->cur_a;
    bool ok = try_order(s, first, force, &st);
    if (st != MP_OK) goto out;
    if (!ok) {
      idle++;
      continue;
    }
    if (!force) idle = s->cur_h < old_h || s->cur_a < old_a ? 0 : idle + 1;
    if (s->cur_h < sky_h || (s->cur_h == sky_h && s->cur_a < sky_a)) {
      bool lower = s->cur_h < sky_h;
      sky_h = s->cur_h;
      sky_a = s->cur_a;
      memcpy(r.best_order, s->cur, mm * sizeof *r.best_order);
      sky_layout(&s->k, n, r.sky_off);
      stall = 0;
      if (lower && (st = take_packed(&r, p->items, n, &best_h, sol->offsets)) != MP_OK) goto out;
    }
  }
  sol->iterations = it;

  /* 6. the best skyline layout, packed */
  if ((st = take_packed(&r, p->items, n, &best_h, sol->offsets)) != MP_OK) goto out;
  rep->search_height = best_h;

tail:
  /* 7. the exact tail */
  if (exact_tail && best_h > lb && iterations > 0 && !past(deadline, sol)) {
    uint64_t now = deadline ? mp_now_ms() : 0;
    mp_exact_params prm = {.time_limit_ms = deadline ? (deadline > now ? deadline - now : 1) : 0,
                           .node_limit = sat_mul(iterations, EXACT_NODES_PER_ITERATION),
                           .capacity = 0,
                           .progress = clk,
                           .lower_bound = lb};
    mp_exact_result res;
    st = mp_exact_improve(p, sol->offsets, &prm, &res, dx);
    if (st != MP_OK) goto out;
    rep->exact_nodes = res.nodes;
    rep->exact_proved = res.proven_lower == res.proven_upper;
    sol->proven_lower = res.proven_lower;
    if (res.timed_out && deadline && past_ms(deadline)) sol->timed_out = true;
  }
done:
  if (clk == &own_clock) mp_progress_end(&own_clock);
out:
  run_free(&r);
  return st;
}

static mp_status hill_climb_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                                  mp_solution *sol, const mp_diag_sink *dx) {
  return mp_hill_climb_run(p, opts, n_opts, NULL, sol, NULL, dx);
}

const mp_planner mp_planner_hill_climb = {
    .name = "hill_climb",
    .help = "Local search over placement orders, decoded bottom-up (a skyline fill); "
            "if it ends above the lower bound, a bounded exact search "
            "(5 nodes per iteration) follows. Never worse than greedy_by_size, "
            "the same plan for the same seed, stops early at the lower bound. "
            "Experimental.",
    .n_options = sizeof hill_climb_options / sizeof hill_climb_options[0],
    .options = hill_climb_options,
    .solve = hill_climb_solve,
};
