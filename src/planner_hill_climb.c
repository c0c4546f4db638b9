/*
 * planner_hill_climb.c — `hill_climb`: local search over greedy_by_size
 * placement orders.
 *
 * A placement order determines a layout (first fit, firstfit.h), so the
 * search walks over orders and keeps the best layout seen.
 *
 * Algorithm:
 *   1. Start from the greedy_by_size order and its layout; that is the
 *      current and the best solution, so the result is never worse than
 *      greedy_by_size.  Stop at once if it reaches the lower bound.
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
 * Deterministic: the same problem and options give the same offsets; no
 * clock, no addresses, no rand().  sol->iterations reports the moves made.
 */
#include "firstfit.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

extern const mp_planner mp_planner_hill_climb;

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
