/*
 * planner_hill_climb.c — `hill_climb`: local search over greedy_by_size
 * placement orders.
 *
 * A placement order determines a layout (first fit, firstfit.h), so the
 * search walks over orders and keeps the best layout seen.
 *
 * Algorithm:
 *   1. Start from the greedy_by_size order and its layout.  If that is
 *      above the lower bound, also decode two more orders and start from
 *      the lowest of the three (greedy_by_size wins ties): the greedy
 *      (start) order, and a skyline order (below) for up to
 *      SKYLINE_MAX_N items.  The result is therefore never worse than
 *      greedy_by_size, nor than greedy.  Stop at once at the lower bound.
 *   2. Each iteration perturbs the current order with one move, drawn
 *      from the planner's own PRNG (splitmix64 seeded by `seed`):
 *        - promote (1/2): an item whose slot touches the current peak
 *          (offset + size == height) moves to a random earlier position;
 *        - swap (1/4): two random positions exchange their items;
 *        - move (1/4): a random item moves to a random position.
 *   3. Re-evaluate incrementally: the layout of the positions before the
 *      first changed one is unchanged, so the engine undoes only the later
 *      placements and re-places from there, with the current height as a
 *      limit; the first item that does not fit below it rejects the move.
 *   4. Accept the move when the new height is not above the current one
 *      (sideways moves let the search cross plateaus); a strictly lower
 *      height than the best so far becomes the new best.
 *   5. Stop after `iterations` moves, after `max_stall_iterations`
 *      consecutive moves without a new best (0: no such limit), or as soon
 *      as the best height equals the lower bound, which no layout can beat.
 *
 * The skyline order fills memory bottom-up: repeatedly take the lowest
 * point of the skyline (the top of what is placed, per time step), and put
 * there the unplaced item that fits the flat stretch around it, preferring
 * one that starts where the stretch starts, then the largest, then the
 * longest-lived; when none fits, raise the stretch to its lower neighbour
 * (that space is lost).  Its layout is only used for its order (items by
 * offset), which first fit then decodes no higher.  It leaves no holes,
 * which is what tightly packed problems need and what largest-first misses
 * (on cut-rectangle instances it halves the distance to the optimum).
 *
 * Deterministic: the same problem and options give the same offsets; no
 * clock, no addresses, no rand().  sol->iterations reports the moves made.
 */
#include "firstfit.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

extern const mp_planner mp_planner_hill_climb;

/* The skyline start costs O(n (n + T)); beyond this many items it is
 * skipped (local search over that many items is slow anyway). */
#define SKYLINE_MAX_N 4096u

enum { DEFAULT_ITERATIONS = 2000, DEFAULT_SEED = 0, DEFAULT_STALL = 500 };

static const mp_option_spec hill_climb_options[] = {
    {"iterations", 0, 100000000, DEFAULT_ITERATIONS, true,
     "Maximum number of moves (order perturbations) to evaluate."},
    {"seed", 0, INT64_MAX, DEFAULT_SEED, true,
     "Seed of the planner's own pseudo-random generator; the same seed gives "
     "the same plan."},
    {"max_stall_iterations", 0, 100000000, DEFAULT_STALL, true,
     "Stop after this many consecutive moves without a new best height "
     "(0: no limit)."},
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

/* ---- the skyline order ---------------------------------------------------- */

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Rank of the last of the sorted distinct times t[0..m) that is <= v. */
static uint32_t time_rank(const int32_t *t, size_t m, int32_t v) {
  size_t a = 0, b = m;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (t[mid] <= v)
      a = mid + 1;
    else
      b = mid;
  }
  return (uint32_t)a - 1;
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

/* Is item i a better pick than item j for the stretch starting at rank L? */
static bool better_pick(const mp_item *it, const uint32_t *lo, const uint32_t *hi, size_t i,
                        size_t j, uint32_t L) {
  bool il = lo[i] == L, jl = lo[j] == L;
  if (il != jl) return il;
  if (it[i].size != it[j].size) return it[i].size > it[j].size;
  if (hi[i] - lo[i] != hi[j] - lo[j]) return hi[i] - lo[i] > hi[j] - lo[j];
  return i < j;
}

/* Write the skyline order (see the file comment) of items[0..n) to order. */
static mp_status skyline_order(const mp_item *it, size_t n, uint32_t *order) {
  int32_t *times = malloc(n * sizeof *times);
  uint32_t *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
  by_offset *placed = malloc(n * sizeof *placed);
  uint64_t *sky = calloc(n, sizeof *sky);
  uint32_t *cover = calloc(n, sizeof *cover); /* unplaced items live at each rank */
  bool *done = calloc(n, sizeof *done);
  mp_status st = times && lo && hi && placed && sky && cover && done ? MP_OK : MP_ERR_NOMEM;
  if (st != MP_OK) goto out;
  /* time steps: the ranks of the distinct starts (the same overlaps) */
  for (size_t i = 0; i < n; i++) times[i] = it[i].start;
  qsort(times, n, sizeof *times, cmp_i32);
  size_t T = 0;
  for (size_t i = 0; i < n; i++)
    if (T == 0 || times[T - 1] != times[i]) times[T++] = times[i];
  for (size_t i = 0; i < n; i++) {
    lo[i] = time_rank(times, T, it[i].start);
    hi[i] = time_rank(times, T, it[i].end);
    for (uint32_t t = lo[i]; t <= hi[i]; t++) cover[t]++;
  }
  /* a rank no unplaced item covers is a wall: never the lowest point */
  for (size_t t = 0; t < T; t++)
    if (!cover[t]) sky[t] = UINT64_MAX;
  for (size_t left = n; left > 0;) {
    size_t low = 0;
    for (size_t t = 1; t < T; t++)
      if (sky[t] < sky[low]) low = t;
    uint64_t y = sky[low];
    uint32_t L = (uint32_t)low, R = (uint32_t)low;
    while (L > 0 && sky[L - 1] == y) L--;
    while (R + 1 < T && sky[R + 1] == y) R++;
    size_t pick = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
      if (done[i] || lo[i] < L || hi[i] > R || lo[i] > low || hi[i] < low) continue;
      if (pick == SIZE_MAX || better_pick(it, lo, hi, i, pick, L)) pick = i;
    }
    if (pick == SIZE_MAX) {
      /* nothing fits the stretch: an item covering `low` reaches a higher
       * neighbour (walls are covered by nothing), so raise it to the lower one */
      uint64_t up = UINT64_MAX;
      if (L > 0) up = sky[L - 1];
      if (R + 1 < T && sky[R + 1] < up) up = sky[R + 1];
      for (uint32_t t = L; t <= R; t++) sky[t] = up;
      continue;
    }
    placed[n - left] = (by_offset){y, (uint32_t)pick};
    done[pick] = true;
    left--;
    for (uint32_t t = lo[pick]; t <= hi[pick]; t++) {
      sky[t] = y + it[pick].size;
      if (--cover[t] == 0) sky[t] = UINT64_MAX;
    }
  }
  qsort(placed, n, sizeof *placed, cmp_by_offset);
  for (size_t i = 0; i < n; i++) order[i] = placed[i].index;
out:
  free(times);
  free(lo);
  free(hi);
  free(placed);
  free(sky);
  free(cover);
  free(done);
  return st;
}

typedef struct search {
  const mp_problem *p;
  mp_firstfit *ff;
  uint32_t *order;    /* current order */
  uint64_t *cur_off;  /* layout of the current order */
  uint64_t cur_h;
  size_t valid;       /* the engine holds order[0..valid) placed */
  uint32_t *peak;     /* scratch: items touching the current peak */
} search;

/* Re-place order[from..n) (from <= valid) with the current height as a
 * limit.  Returns true with all items placed when the height stays at or
 * below it; false as soon as one item does not fit. */
static bool evaluate(search *s, size_t from) {
  mp_firstfit_truncate(s->ff, from);
  for (size_t k = from; k < s->p->n; k++) {
    if (!mp_firstfit_place(s->ff, s->order[k], s->cur_h, NULL)) {
      s->valid = k;
      return false;
    }
  }
  s->valid = s->p->n;
  return true;
}

static mp_status hill_climb_solve(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                                  mp_solution *sol, const mp_diag_sink *dx) {
  (void)dx;
  const mp_planner *self = &mp_planner_hill_climb;
  uint64_t iterations = (uint64_t)mp_option_get(self, opts, n_opts, "iterations", DEFAULT_ITERATIONS);
  uint64_t rng = (uint64_t)mp_option_get(self, opts, n_opts, "seed", DEFAULT_SEED);
  uint64_t max_stall =
      (uint64_t)mp_option_get(self, opts, n_opts, "max_stall_iterations", DEFAULT_STALL);
  size_t n = p->n;
  uint64_t lb = sol->lower_bound ? sol->lower_bound : mp_problem_lower_bound(p);

  search s = {.p = p};
  size_t nn = n ? n : 1;
  s.order = malloc(nn * sizeof *s.order);
  s.cur_off = malloc(nn * sizeof *s.cur_off);
  s.peak = malloc(nn * sizeof *s.peak);
  mp_status st = (s.order && s.cur_off && s.peak) ? MP_OK : MP_ERR_NOMEM;
  if (st == MP_OK) st = mp_firstfit_order_by_size(p->items, n, s.order);
  if (st == MP_OK) st = mp_firstfit_new(p->items, n, &s.ff);
  if (st != MP_OK) goto out;

  s.cur_h = mp_firstfit_run(s.ff, s.order, n, 0, s.cur_off);
  if (s.cur_h > lb && n >= 2) {
    /* other starting orders; the engine ends up holding the chosen one */
    uint32_t *alt = malloc(n * sizeof *alt);
    if (!alt) {
      st = MP_ERR_NOMEM;
      goto out;
    }
    for (int k = 0; k < 2 && st == MP_OK; k++) {
      if (k == 0)
        st = mp_firstfit_order_by_start(p->items, n, alt);
      else if (n <= SKYLINE_MAX_N)
        st = skyline_order(p->items, n, alt);
      else
        break;
      if (st != MP_OK) break;
      uint64_t h = mp_firstfit_run(s.ff, alt, n, 0, NULL);
      if (h < s.cur_h) {
        memcpy(s.order, alt, n * sizeof *alt);
        s.cur_h = h;
      }
    }
    free(alt);
    if (st != MP_OK) goto out;
    s.cur_h = mp_firstfit_run(s.ff, s.order, n, 0, s.cur_off);
  }
  s.valid = n;
  memcpy(sol->offsets, s.cur_off, n * sizeof *s.cur_off);
  uint64_t best_h = s.cur_h, stall = 0, it = 0;

  while (it < iterations && best_h > lb && n >= 2 && (max_stall == 0 || stall < max_stall)) {
    it++;
    /* 1. propose a move; remember how to undo it */
    uint64_t kind = next_rand(&rng) % 4;
    size_t a = rand_below(&rng, n), b = rand_below(&rng, n);
    bool swap = false;
    if (kind < 2) {
      size_t n_peak = 0;
      for (size_t k = 0; k < n; k++) {
        uint32_t i = s.order[k];
        if (k > 0 && s.cur_off[i] + p->items[i].size == s.cur_h) s.peak[n_peak++] = (uint32_t)k;
      }
      if (n_peak > 0) {
        a = s.peak[rand_below(&rng, n_peak)];
        b = rand_below(&rng, a);
      }
    } else if (kind == 2) {
      swap = true;
    }
    if (a == b) {
      stall++;
      continue;
    }
    if (swap) {
      uint32_t t = s.order[a];
      s.order[a] = s.order[b];
      s.order[b] = t;
    } else {
      move_entry(s.order, a, b);
    }
    size_t first = a < b ? a : b;

    /* 2. evaluate from the first changed position */
    if (evaluate(&s, first < s.valid ? first : s.valid)) {
      for (size_t k = first; k < n; k++)
        s.cur_off[s.order[k]] = mp_firstfit_offset(s.ff, s.order[k]);
      s.cur_h = mp_firstfit_height(s.ff);
      if (s.cur_h < best_h) {
        best_h = s.cur_h;
        memcpy(sol->offsets, s.cur_off, n * sizeof *s.cur_off);
        stall = 0;
        continue;
      }
    } else {
      /* 3. reject: restore the order; the engine keeps the shared prefix */
      if (swap) {
        uint32_t t = s.order[a];
        s.order[a] = s.order[b];
        s.order[b] = t;
      } else {
        move_entry(s.order, b, a);
      }
      if (s.valid > first) s.valid = first;
    }
    stall++;
  }
  sol->iterations = it;
out:
  mp_firstfit_free(&s.ff);
  free(s.order);
  free(s.cur_off);
  free(s.peak);
  return st;
}

const mp_planner mp_planner_hill_climb = {
    .name = "hill_climb",
    .help = "Local search over greedy_by_size placement orders; never worse than "
            "greedy_by_size, the same plan for the same seed, stops early at the "
            "lower bound. Experimental.",
    .n_options = sizeof hill_climb_options / sizeof hill_climb_options[0],
    .options = hill_climb_options,
    .solve = hill_climb_solve,
};
