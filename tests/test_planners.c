/*
 * test_planners.c — the single-arena planners (greedy, greedy_by_size,
 * hill_climb), the first-fit engine they share, and planner options.
 *
 * Layouts are checked by this file's own overlap checker (pairwise, no
 * code shared with the planners or the plan verifier).  Exact offsets are
 * asserted where the definition determines them; greedy and
 * greedy_by_size are compared with a naive O(n^2) first fit written here
 * from their definitions; hill_climb is compared with the best first-fit
 * order found by trying every permutation of small problems.  The corpus
 * test plans every shared model's scratch tensors and skips with a notice
 * when ../shared/models is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout_check.h"
#include "testutil.h"

#include "planners/firstfit.h"
#include "hardgen.h"
#include "planners/hill_climb.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t next_rand(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t rand_below(uint64_t n) { return next_rand() % n; }

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }


/* Max over time of the live sum, computed per time step. */
static uint64_t naive_lower_bound(const mp_item *it, size_t n) {
  int32_t tmax = 0;
  for (size_t i = 0; i < n; i++)
    if (it[i].end > tmax) tmax = it[i].end;
  uint64_t best = 0;
  for (int32_t t = 0; t <= tmax; t++) {
    uint64_t live = 0;
    for (size_t i = 0; i < n; i++)
      if (it[i].start <= t && t <= it[i].end) live += it[i].size;
    if (live > best) best = live;
  }
  return best;
}

/* First fit by definition: each item of `order` at the lowest aligned
 * offset clear of every earlier item it overlaps in time.  O(n^2) per
 * item, no index.  Returns the height. */
static uint64_t naive_first_fit(const mp_item *it, size_t n, const uint32_t *order,
                                uint64_t *off) {
  bool *placed = calloc(n ? n : 1, 1);
  uint64_t h = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = order[k];
    uint64_t x = 0;
    for (bool moved = true; moved && it[i].size;) {
      moved = false;
      for (size_t j = 0; j < n; j++) {
        if (!placed[j] || !it[j].size) continue;
        bool time = it[i].start <= it[j].end && it[j].start <= it[i].end;
        if (time && x < off[j] + it[j].size && off[j] < x + it[i].size) {
          x = round_up(off[j] + it[j].size, it[i].align);
          moved = true;
        }
      }
    }
    off[i] = x;
    placed[i] = true;
    if (x + it[i].size > h) h = x + it[i].size;
  }
  free(placed);
  return h;
}

static const mp_item *g_items;

static int cmp_def_start(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  const mp_item *x = &g_items[i], *y = &g_items[j];
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (i > j) - (i < j);
}

static int cmp_def_size(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  const mp_item *x = &g_items[i], *y = &g_items[j];
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  int64_t lx = (int64_t)x->end - x->start, ly = (int64_t)y->end - y->start;
  if (lx != ly) return lx > ly ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (i > j) - (i < j);
}

/* The orders of greedy and greedy_by_size, from their definitions. */
static void definition_order(const mp_item *it, size_t n, bool by_size, uint32_t *order) {
  for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  g_items = it;
  qsort(order, n, sizeof *order, by_size ? cmp_def_size : cmp_def_start);
}

/* The lowest first-fit height over every order of a small problem. */
static uint64_t best_over_orders(const mp_item *it, size_t n) {
  uint32_t perm[8] = {0};
  uint64_t off[8], best = UINT64_MAX;
  for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
  /* Heap's algorithm */
  size_t c[8] = {0};
  uint64_t h = naive_first_fit(it, n, perm, off);
  best = h < best ? h : best;
  for (size_t i = 1; i < n;) {
    if (c[i] < i) {
      size_t a = i % 2 ? c[i] : 0;
      uint32_t t = perm[a];
      perm[a] = perm[i];
      perm[i] = t;
      h = naive_first_fit(it, n, perm, off);
      best = h < best ? h : best;
      c[i]++;
      i = 1;
    } else {
      c[i] = 0;
      i++;
    }
  }
  return best;
}

static mp_solution run(const char *planner, const mp_item *it, size_t n, uint64_t *off,
                       const mp_option *opts, uint32_t n_opts) {
  const mp_planner *pl = mp_planner_find(planner);
  assert_non_null(pl);
  mp_problem p = {n, it, 0};
  mp_solution sol = {.offsets = off};
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_solve(pl, &p, opts, n_opts, &sol, &d.sink), MP_OK);
  assert_int_equal(d.n_errors, 0);
  assert_int_equal(tu_check_layout(it, n, off), sol.height);
  assert_true(sol.height >= sol.lower_bound);
  assert_int_equal(sol.lower_bound, naive_lower_bound(it, n));
  return sol;
}

static const char *const heuristic[] = {"greedy", "greedy_by_size", "hill_climb"};
#define N_HEURISTIC (sizeof heuristic / sizeof heuristic[0])

static void assert_offsets(const uint64_t *got, const uint64_t *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i])
      fail_msg("item %zu: offset %llu, expected %llu", i, (unsigned long long)got[i],
               (unsigned long long)want[i]);
}

/* Random problem: n items over [0, tmax], sizes multiples of their align. */
static void random_problem(mp_item *it, size_t n, int32_t tmax, uint64_t max_units,
                           bool mixed_align) {
  static const uint32_t aligns[] = {1, 16, 32, 64};
  for (size_t i = 0; i < n; i++) {
    int32_t s = (int32_t)rand_below((uint64_t)tmax + 1);
    int32_t e = s + (int32_t)rand_below((uint64_t)(tmax - s) + 1);
    uint32_t a = mixed_align ? aligns[rand_below(4)] : 16;
    uint64_t size = round_up(1 + rand_below(max_units * 16), a);
    it[i] = (mp_item){size, s, e, a, (uint32_t)i};
  }
}

/* ---- the table -------------------------------------------------------------- */

static void the_table_lists_the_heuristics_first_in_order(void **state) {
  (void)state;
  assert_true(mp_planner_count() >= 3);
  for (uint32_t i = 0; i < N_HEURISTIC; i++) assert_string_equal(mp_planner_at(i)->name, heuristic[i]);
  assert_null(mp_planner_at(mp_planner_count()));
  assert_null(mp_planner_find("greedy_by_sizes"));
  assert_int_equal(mp_planner_find("greedy")->n_options, 0);
  assert_int_equal(mp_planner_find("greedy_by_size")->n_options, 0);
}

static void hill_climb_documents_its_four_options(void **state) {
  (void)state;
  const mp_planner *pl = mp_planner_find("hill_climb");
  assert_int_equal(pl->n_options, 4);
  const char *keys[] = {"iterations", "seed", "max_stall_iterations", "time_limit_ms"};
  const int64_t defs[] = {2000, 0, 0, 0};
  for (uint32_t k = 0; k < 4; k++) {
    assert_string_equal(pl->options[k].key, keys[k]);
    assert_true(pl->options[k].has_default);
    assert_int_equal(pl->options[k].def, defs[k]);
    assert_int_equal(pl->options[k].min, 0);
    assert_true(pl->options[k].max >= 100000);
    assert_true(strlen(pl->options[k].help) > 10);
  }
  assert_int_equal(mp_option_get(pl, NULL, 0, "iterations", -1), 2000);
}

/* ---- hand-built problems ------------------------------------------------------ */

static void every_planner_accepts_zero_items(void **state) {
  (void)state;
  uint64_t off[1] = {77};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    mp_solution s = run(heuristic[k], NULL, 0, off, NULL, 0);
    assert_int_equal(s.height, 0);
    assert_int_equal(s.lower_bound, 0);
  }
}

static void every_planner_puts_one_item_at_offset_zero(void **state) {
  (void)state;
  mp_item it[] = {{48, 3, 7, 16, 9}};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[1] = {123};
    mp_solution s = run(heuristic[k], it, 1, off, NULL, 0);
    assert_int_equal(off[0], 0);
    assert_int_equal(s.height, 48);
    assert_int_equal(s.lower_bound, 48);
  }
}

static void every_planner_reuses_one_slot_for_disjoint_lifetimes(void **state) {
  (void)state;
  mp_item it[] = {{64, 0, 1, 16, 0}, {32, 2, 2, 16, 1}, {64, 3, 5, 16, 2}, {16, 6, 6, 16, 3}};
  const uint64_t want[] = {0, 0, 0, 0};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[4];
    mp_solution s = run(heuristic[k], it, 4, off, NULL, 0);
    assert_offsets(off, want, 4);
    assert_int_equal(s.height, 64);
  }
}

static void every_planner_alternates_two_slots_along_a_chain(void **state) {
  (void)state;
  /* op i writes tensor i, op i + 1 reads it */
  mp_item it[] = {{32, 0, 1, 16, 0}, {32, 1, 2, 16, 1}, {32, 2, 3, 16, 2}, {32, 3, 4, 16, 3}};
  const uint64_t want[] = {0, 32, 0, 32};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[4];
    mp_solution s = run(heuristic[k], it, 4, off, NULL, 0);
    assert_offsets(off, want, 4);
    assert_int_equal(s.height, 64);
    assert_int_equal(s.lower_bound, 64);
  }
}

static void identical_items_stack_in_id_order(void **state) {
  (void)state;
  /* ids deliberately not in index order */
  mp_item it[] = {{16, 2, 4, 16, 7}, {16, 2, 4, 16, 3}, {16, 2, 4, 16, 5}};
  const uint64_t want[] = {32, 0, 16};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[3];
    mp_solution s = run(heuristic[k], it, 3, off, NULL, 0);
    assert_offsets(off, want, 3);
    assert_int_equal(s.height, 48);
  }
}

static void equal_items_with_equal_ids_keep_their_input_order(void **state) {
  (void)state;
  mp_item it[] = {{16, 0, 1, 16, 1}, {16, 0, 1, 16, 1}};
  const uint64_t want[] = {0, 16};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[2];
    run(heuristic[k], it, 2, off, NULL, 0);
    assert_offsets(off, want, 2);
  }
}

/* greedy places the small long-lived item 1 low at op 0 and must put the
 * big item 3 above it at op 2; largest-first places item 3 first. */
static const mp_item start_order_trap[] = {
    {32, 0, 0, 16, 0}, {16, 0, 2, 16, 1}, {16, 1, 1, 16, 2}, {48, 2, 2, 16, 3}};

static void greedy_places_in_start_order(void **state) {
  (void)state;
  uint64_t off[4];
  mp_solution s = run("greedy", start_order_trap, 4, off, NULL, 0);
  const uint64_t want[] = {0, 32, 0, 48};
  assert_offsets(off, want, 4);
  assert_int_equal(s.height, 96);
  assert_int_equal(s.lower_bound, 64);
}

static void greedy_by_size_places_largest_first(void **state) {
  (void)state;
  uint64_t off[4];
  mp_solution s = run("greedy_by_size", start_order_trap, 4, off, NULL, 0);
  const uint64_t want[] = {0, 48, 0, 0};
  assert_offsets(off, want, 4);
  assert_int_equal(s.height, 64);
}

static void greedy_by_size_prefers_the_longer_lifetime_on_equal_sizes(void **state) {
  (void)state;
  /* both 32 bytes; item 1 lives longer, so it is placed first, at 0 */
  mp_item it[] = {{32, 1, 1, 16, 0}, {32, 0, 3, 16, 1}};
  uint64_t off[2];
  run("greedy_by_size", it, 2, off, NULL, 0);
  const uint64_t want[] = {32, 0};
  assert_offsets(off, want, 2);
  /* equal lengths: the earlier start first */
  mp_item it2[] = {{32, 2, 3, 16, 0}, {32, 1, 2, 16, 1}};
  run("greedy_by_size", it2, 2, off, NULL, 0);
  const uint64_t want2[] = {32, 0};
  assert_offsets(off, want2, 2);
}

static void greedy_breaks_start_ties_by_size_then_id(void **state) {
  (void)state;
  mp_item it[] = {{16, 0, 1, 16, 2}, {48, 0, 1, 16, 9}, {16, 0, 1, 16, 1}};
  uint64_t off[3];
  run("greedy", it, 3, off, NULL, 0);
  const uint64_t want[] = {64, 0, 48};
  assert_offsets(off, want, 3);
}

static void offsets_respect_each_items_alignment(void **state) {
  (void)state;
  /* a 16-byte item first, then 64-aligned ones must skip to 64 */
  mp_item it[] = {{16, 0, 2, 16, 0}, {64, 1, 2, 64, 1}, {128, 2, 3, 64, 2}, {32, 3, 3, 32, 3}};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[4];
    run(heuristic[k], it, 4, off, NULL, 0);
  }
  uint64_t off[4];
  mp_solution s = run("greedy", it, 4, off, NULL, 0);
  const uint64_t want[] = {0, 64, 128, 0};
  assert_offsets(off, want, 4);
  assert_int_equal(s.height, 256);
}

static void alignment_gaps_are_reused_by_smaller_alignments(void **state) {
  (void)state;
  /* item 0 takes [0, 16); item 1 (align 64) skips to 64; item 2 (align 16,
   * 48 bytes) fits exactly in the gap [16, 64) */
  mp_item it[] = {{16, 0, 2, 16, 0}, {64, 1, 2, 64, 1}, {48, 2, 2, 16, 2}};
  uint64_t off[3];
  mp_solution s = run("greedy", it, 3, off, NULL, 0);
  const uint64_t want[] = {0, 64, 16};
  assert_offsets(off, want, 3);
  assert_int_equal(s.height, 128);
}

static void zero_size_items_go_to_offset_zero_and_block_nothing(void **state) {
  (void)state;
  mp_item it[] = {{0, 0, 3, 1, 0}, {32, 0, 3, 16, 1}, {0, 1, 1, 1, 2}, {16, 1, 2, 16, 3}};
  for (size_t k = 0; k < N_HEURISTIC; k++) {
    uint64_t off[4];
    mp_solution s = run(heuristic[k], it, 4, off, NULL, 0);
    assert_int_equal(off[0], 0);
    assert_int_equal(off[2], 0);
    assert_int_equal(s.height, 48);
  }
}

static void sizes_need_not_be_powers_of_two_without_alignment(void **state) {
  (void)state;
  mp_item it[] = {{7, 0, 1, 1, 0}, {5, 1, 2, 1, 1}, {3, 0, 2, 1, 2}};
  uint64_t off[3];
  mp_solution s = run("greedy", it, 3, off, NULL, 0);
  /* start order: items 0 and 2 at op 0 (7 before 3), then item 1 */
  const uint64_t want[] = {0, 10, 7};
  assert_offsets(off, want, 3);
  assert_int_equal(s.height, 15);
}

/* greedy_by_size needs 128 here; the order 0, 4, 3, 1, 2 packs it in the
 * lower bound, 112. */
static const mp_item by_size_trap[] = {
    {64, 0, 1, 1, 0}, {48, 2, 3, 1, 1}, {32, 1, 3, 1, 2}, {32, 3, 3, 1, 3}, {48, 0, 0, 1, 4}};

static void hill_climb_improves_on_greedy_by_size(void **state) {
  (void)state;
  uint64_t off[5];
  mp_solution g = run("greedy_by_size", by_size_trap, 5, off, NULL, 0);
  const uint64_t want[] = {0, 0, 64, 96, 64};
  assert_offsets(off, want, 5);
  assert_int_equal(g.height, 128);
  assert_int_equal(g.lower_bound, 112);
  mp_solution h = run("hill_climb", by_size_trap, 5, off, NULL, 0);
  assert_int_equal(h.height, 112);
  /* it stopped at the lower bound, long before the 2000 iterations */
  assert_true(h.iterations >= 1);
  assert_true(h.iterations < 2000);
  assert_int_equal(h.proven_lower, 112);
  assert_int_equal(h.proven_upper, 112);
}

static void hill_climb_does_nothing_when_greedy_by_size_is_at_the_bound(void **state) {
  (void)state;
  uint64_t a[4], b[4];
  run("greedy_by_size", start_order_trap, 4, a, NULL, 0);
  mp_solution h = run("hill_climb", start_order_trap, 4, b, NULL, 0);
  assert_int_equal(h.iterations, 0);
  assert_offsets(b, a, 4);
}

static void hill_climb_with_zero_iterations_is_greedy_by_size(void **state) {
  (void)state;
  uint64_t a[5], b[5];
  char key[] = "iterations";
  mp_option o = {key, 0};
  run("greedy_by_size", by_size_trap, 5, a, NULL, 0);
  mp_solution h = run("hill_climb", by_size_trap, 5, b, &o, 1);
  assert_int_equal(h.iterations, 0);
  assert_offsets(b, a, 5);
}

/* ---- random problems ---------------------------------------------------------- */

static void greedy_and_greedy_by_size_match_their_definitions(void **state) {
  (void)state;
  rng_state = 42;
  for (int trial = 0; trial < 300; trial++) {
    size_t n = 1 + (size_t)rand_below(40);
    mp_item it[40];
    random_problem(it, n, 1 + (int32_t)rand_below(30), 1 + rand_below(8), trial % 2);
    for (int by_size = 0; by_size < 2; by_size++) {
      uint32_t order[40];
      uint64_t want[40], got[40];
      definition_order(it, n, by_size, order);
      uint64_t h = naive_first_fit(it, n, order, want);
      mp_solution s = run(by_size ? "greedy_by_size" : "greedy", it, n, got, NULL, 0);
      assert_offsets(got, want, n);
      assert_int_equal(s.height, h);
    }
  }
}

static void greedy_matches_its_definition_on_large_problems(void **state) {
  (void)state;
  /* big enough for the start-order sweep; mixed alignments, zero sizes,
   * equal starts, deep stacks of long-lived items */
  rng_state = 77;
  enum { N = 2500 };
  mp_item *it = calloc(N, sizeof *it);
  uint64_t *want = calloc(N, sizeof *want), *got = calloc(N, sizeof *got);
  uint32_t *order = calloc(N, sizeof *order);
  static const uint32_t aligns[] = {1, 16, 64, 256};
  for (size_t i = 0; i < N; i++) {
    int32_t s = (int32_t)rand_below(600);
    int32_t len = rand_below(8) == 0 ? (int32_t)rand_below(500) : (int32_t)rand_below(3);
    uint32_t a = aligns[rand_below(4)];
    uint64_t size = rand_below(50) == 0 ? 0 : round_up(1 + rand_below(3000), a);
    it[i] = (mp_item){size, s, s + len, a, (uint32_t)rand_below(100)};
  }
  definition_order(it, N, false, order);
  uint64_t h = naive_first_fit(it, N, order, want);
  mp_solution sol = run("greedy", it, N, got, NULL, 0);
  assert_offsets(got, want, N);
  assert_int_equal(sol.height, h);
  free(it);
  free(want);
  free(got);
  free(order);
}

static void hill_climb_finds_the_best_first_fit_order_of_small_problems(void **state) {
  (void)state;
  rng_state = 7;
  int reached = 0, trials = 150;
  for (int trial = 0; trial < trials; trial++) {
    size_t n = 2 + (size_t)rand_below(5); /* up to 6 items: 720 orders */
    mp_item it[8];
    random_problem(it, n, 4, 4, false);
    uint64_t best = best_over_orders(it, n);
    uint64_t off[8];
    for (size_t k = 0; k < N_HEURISTIC; k++) {
      mp_solution s = run(heuristic[k], it, n, off, NULL, 0);
      assert_true(s.height >= best); /* all three are first fit of some order */
      assert_true(best >= s.lower_bound);
    }
    mp_solution h = run("hill_climb", it, n, off, NULL, 0);
    /* hill_climb only ever produces first-fit layouts of some order */
    assert_true(h.height >= best);
    reached += h.height == best;
  }
  print_message("hill_climb reached the best order on %d of %d problems\n", reached, trials);
  assert_int_equal(reached, trials);
}

static void hill_climb_is_never_worse_than_greedy_by_size(void **state) {
  (void)state;
  rng_state = 99;
  for (int trial = 0; trial < 40; trial++) {
    size_t n = 10 + (size_t)rand_below(50);
    mp_item it[64];
    random_problem(it, n, 20, 16, trial % 3 == 0);
    uint64_t a[64], b[64];
    mp_solution g = run("greedy_by_size", it, n, a, NULL, 0);
    char k1[] = "iterations", k2[] = "seed";
    mp_option o[] = {{k1, 300}, {k2, (int64_t)trial}};
    mp_solution h = run("hill_climb", it, n, b, o, 2);
    assert_true(h.height <= g.height);
  }
}

static void hill_climb_is_deterministic_for_a_seed(void **state) {
  (void)state;
  rng_state = 5;
  mp_item it[60];
  random_problem(it, 60, 25, 16, true);
  char k1[] = "seed", k2[] = "iterations";
  int differ = 0;
  for (int64_t seed = 0; seed < 4; seed++) {
    mp_option o[] = {{k1, seed}, {k2, 400}};
    uint64_t a[60], b[60], c[60];
    mp_solution s1 = run("hill_climb", it, 60, a, o, 2);
    mp_solution s2 = run("hill_climb", it, 60, b, o, 2);
    assert_offsets(b, a, 60);
    assert_int_equal(s1.iterations, s2.iterations);
    mp_option o2[] = {{k1, seed + 100}, {k2, 400}};
    run("hill_climb", it, 60, c, o2, 2);
    differ += memcmp(a, c, sizeof a) != 0;
  }
  /* another seed walks another path */
  assert_true(differ > 0);
}

static void hill_climb_stops_after_max_stall_iterations(void **state) {
  (void)state;
  /* a random problem that no order packs at the lower bound (checked
   * below), so only the stall limit or the iteration count can stop it */
  rng_state = 11;
  mp_item it[40];
  random_problem(it, 40, 12, 16, false);
  char k1[] = "iterations", k2[] = "max_stall_iterations";
  mp_option o[] = {{k1, 100000}, {k2, 25}};
  uint64_t off[40];
  mp_solution s = run("hill_climb", it, 40, off, o, 2);
  if (s.height > s.lower_bound) {
    assert_true(s.iterations >= 25);
    assert_true(s.iterations < 100000);
  }
  mp_option o1[] = {{k1, 10}, {k2, 0}};
  s = run("hill_climb", it, 40, off, o1, 2);
  if (s.height > s.lower_bound) assert_int_equal(s.iterations, 10);
}

/* ---- hill_climb's skyline search and exact tail ------------------------------------ */

/* hill_climb without its exact tail (mp_hill_climb_run), checked like run(). */
static mp_solution run_search(const mp_item *it, size_t n, uint64_t *off, const mp_option *opts,
                              uint32_t n_opts, mp_hill_climb_report *rep) {
  mp_problem p = {n, it, 0};
  mp_solution sol = {.offsets = off};
  sol.lower_bound = naive_lower_bound(it, n);
  assert_int_equal(mp_hill_climb_run(&p, opts, n_opts, &(mp_hill_climb_limits){.exact_tail = false}, &sol, rep, NULL), MP_OK);
  sol.height = tu_check_layout(it, n, off);
  return sol;
}

static void hill_climb_packs_cut_rectangles_at_their_optimum(void **state) {
  (void)state;
  /* hardgen's pieces tile an H x T rectangle: the optimum is H, which
   * greedy_by_size misses by far on every one of these */
  static const uint32_t sizes[] = {40, 60, 80, 100};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    uint32_t n = sizes[k];
    mp_hardgen_params hp = {n, 1u << 16, 4 * n, 16, 100 + k, 1};
    mp_item *it = calloc(n, sizeof *it);
    uint64_t *off = calloc(n, sizeof *off);
    assert_int_equal(mp_hardgen_make(&hp, it, NULL, NULL), MP_OK);
    mp_solution g = run("greedy_by_size", it, n, off, NULL, 0);
    assert_true(g.height > hp.height);
    mp_solution h = run("hill_climb", it, n, off, NULL, 0);
    assert_int_equal(h.lower_bound, hp.height);
    assert_int_equal(h.height, hp.height);
    assert_int_equal(h.proven_lower, hp.height);
    free(it);
    free(off);
  }
}

static void hill_climb_with_a_past_deadline_stops_at_its_first_layout_and_says_so(void **state) {
  (void)state;
  /* the exact planner gives hill_climb a deadline; once it has passed, the
   * run returns the lower of its two greedy starts at once (greedy_by_size
   * on a tie), marked timed out */
  enum { N = 200 };
  mp_hardgen_params hp = {N, 1u << 20, 4 * N, 16, 77, 1};
  mp_item it[N];
  uint64_t a[N], b[N], c[N];
  assert_int_equal(mp_hardgen_make(&hp, it, NULL, NULL), MP_OK);
  mp_problem p = {N, it, 0};
  mp_solution sol = {.offsets = a};
  mp_hill_climb_limits lim = {.exact_tail = true, .deadline_ms = 1}; /* 1 ms after the clock's epoch: long past */
  assert_int_equal(mp_hill_climb_run(&p, NULL, 0, &lim, &sol, NULL, NULL), MP_OK);
  assert_true(sol.timed_out);
  assert_int_equal(sol.iterations, 0);
  mp_solution g = run("greedy_by_size", it, N, b, NULL, 0);
  mp_solution s = run("greedy", it, N, c, NULL, 0);
  assert_memory_equal(a, s.height < g.height ? c : b, sizeof a);
  assert_int_equal(tu_check_layout(it, N, a), s.height < g.height ? s.height : g.height);
  /* without a deadline the same run is not marked */
  mp_solution full = run("hill_climb", it, N, a, NULL, 0);
  assert_false(full.timed_out);
  assert_true(full.height < g.height);
}

static void hill_climb_is_byte_identical_for_a_seed_on_a_hard_instance(void **state) {
  (void)state;
  enum { N = 150 };
  mp_hardgen_params hp = {N, 1u << 20, 4 * N, 16, 4242, 1};
  mp_item it[N];
  uint64_t a[N], b[N];
  assert_int_equal(mp_hardgen_make(&hp, it, NULL, NULL), MP_OK);
  char k1[] = "seed", k2[] = "iterations";
  for (int64_t seed = 0; seed < 3; seed++) {
    mp_option o[] = {{k1, seed}, {k2, 300}};
    mp_solution s1 = run("hill_climb", it, N, a, o, 2);
    mp_solution s2 = run("hill_climb", it, N, b, o, 2);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(s1.iterations, s2.iterations);
    assert_int_equal(s1.proven_lower, s2.proven_lower);
  }
}

static void hill_climb_proves_small_results_optimal_with_its_exact_tail(void **state) {
  (void)state;
  /* small problems whose best first-fit order (the optimum) is above the
   * lower bound: the local search cannot know it has found the optimum,
   * the exact tail proves it */
  rng_state = 31;
  int found = 0;
  for (int trial = 0; trial < 20000 && found < 25; trial++) {
    size_t n = 4 + (size_t)rand_below(3);
    mp_item it[8];
    random_problem(it, n, 3, 8, true);
    uint64_t best = best_over_orders(it, n), off[8];
    if (best == naive_lower_bound(it, n)) continue;
    mp_solution h = run("hill_climb", it, n, off, NULL, 0);
    assert_int_equal(h.height, best);
    assert_int_equal(h.proven_lower, best);
    found++;
  }
  assert_int_equal(found, 25);
}

static void hill_climb_without_iterations_runs_no_exact_tail(void **state) {
  (void)state;
  /* two 16-byte buffers aligned to 64 that overlap: 80 bytes, bound 32 */
  const mp_item it[] = {{16, 0, 1, 64, 0}, {16, 1, 2, 64, 1}};
  uint64_t off[2];
  char key[] = "iterations";
  mp_option o = {key, 0};
  mp_solution h = run("hill_climb", it, 2, off, &o, 1);
  assert_int_equal(h.height, 80);
  assert_int_equal(h.proven_lower, 32);
  h = run("hill_climb", it, 2, off, NULL, 0);
  assert_int_equal(h.height, 80);
  assert_int_equal(h.proven_lower, 80);
}

static void the_exact_tail_never_makes_hill_climb_worse(void **state) {
  (void)state;
  rng_state = 17;
  for (int trial = 0; trial < 30; trial++) {
    size_t n = 20 + (size_t)rand_below(40);
    mp_item it[64];
    random_problem(it, n, 15, 16, trial % 2 == 0);
    uint64_t a[64], b[64], c[64];
    char k1[] = "iterations", k2[] = "seed";
    mp_option o[] = {{k1, 200}, {k2, (int64_t)trial}};
    mp_hill_climb_report rep;
    mp_solution s = run_search(it, n, a, o, 2, &rep);
    mp_solution h = run("hill_climb", it, n, b, o, 2);
    mp_solution g = run("greedy_by_size", it, n, c, NULL, 0);
    assert_int_equal(rep.search_height, s.height);
    assert_true(s.height <= g.height);
    assert_true(h.height <= s.height);
    /* the same local search: the tail starts from its layout */
    assert_int_equal(h.iterations, s.iterations);
  }
}

static void hill_climb_makes_fewer_moves_on_large_problems(void **state) {
  (void)state;
  /* the work bound: at most 1000 placements per iteration in all, and a
   * move on 20 000 items costs thousands */
  enum { N = 20000 };
  mp_item *it = calloc(N, sizeof *it);
  uint64_t *off = calloc(N, sizeof *off);
  mp_synth_make(MP_SYNTH_TRANSFORMER, N, 5, it);
  for (size_t i = 0; i < N; i++) it[i].align = 4096; /* the lower bound is out of reach */
  char k1[] = "iterations";
  mp_option o[] = {{k1, 50}};
  mp_hill_climb_report rep;
  mp_solution s = run_search(it, N, off, o, 1, &rep);
  assert_true(s.height > s.lower_bound);
  assert_true(s.iterations >= 1);
  assert_true(s.iterations < 50);
  free(it);
  free(off);
}

/* ---- the engine ---------------------------------------------------------------- */

/* Place, undo a random tail, re-place it in another order, many times;
 * every state must equal a fresh naive first fit of the same order. */
static void check_undo(mp_item *it, size_t n, const char *mode) {
  uint32_t *order = calloc(n, sizeof *order);
  uint64_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  definition_order(it, n, true, order);
  mp_firstfit *ff = NULL;
  assert_int_equal(mp_firstfit_new_as(it, n, mode, &ff), MP_OK);
  assert_string_equal(mp_firstfit_mode(ff), mode);
  uint64_t h = mp_firstfit_run(ff, order, n, 0, a);
  assert_int_equal(h, naive_first_fit(it, n, order, b));
  assert_offsets(a, b, n);
  for (int round = 0; round < 20; round++) {
    size_t keep = (size_t)rand_below(n);
    mp_firstfit_truncate(ff, keep);
    assert_int_equal(mp_firstfit_count(ff), keep);
    assert_int_equal(mp_firstfit_height(ff), mp_firstfit_height_at(ff, keep));
    for (size_t k = keep; k + 1 < n; k += 2) {
      uint32_t t = order[k];
      order[k] = order[k + 1];
      order[k + 1] = t;
    }
    h = mp_firstfit_run(ff, order + keep, n - keep, keep, a);
    assert_int_equal(h, naive_first_fit(it, n, order, b));
    for (size_t k = 0; k < n; k++) assert_int_equal(mp_firstfit_offset(ff, order[k]), b[order[k]]);
    assert_int_equal(mp_firstfit_placed_at(ff, n - 1), order[n - 1]);
  }
  mp_firstfit_free(&ff);
  assert_null(ff);
  free(order);
  free(a);
  free(b);
}

static void engine_undo_restores_the_exact_earlier_state(void **state) {
  (void)state;
  /* dense: every item overlaps many others (the scan) */
  rng_state = 3;
  mp_item dense[300];
  random_problem(dense, 300, 60, 32, true);
  check_undo(dense, 300, "scan");
  /* sparse and long: the tree */
  enum { N = 1500 };
  mp_item *sparse = calloc(N, sizeof *sparse);
  for (size_t i = 0; i < N; i++) {
    int32_t s = (int32_t)rand_below(1000);
    int32_t len = rand_below(30) == 0 ? (int32_t)rand_below(400) : (int32_t)rand_below(5);
    sparse[i] = (mp_item){16 * (1 + rand_below(64)), s, s + len, 16 << rand_below(3), (uint32_t)i};
    sparse[i].size = round_up(sparse[i].size, sparse[i].align);
  }
  check_undo(sparse, N, "tree");
  check_undo(sparse, N, "buckets");
  free(sparse);
  /* dense and above the scan's size: the tree, every item meeting a third
   * of the others, mixed alignments (many merged blocks and joins) */
  enum { D = 1400 };
  mp_item *dense2 = calloc(D, sizeof *dense2);
  random_problem(dense2, D, 40, 64, true);
  check_undo(dense2, D, "tree");
  free(dense2);
}

static void engine_without_undo_trail_still_truncates_exactly(void **state) {
  (void)state;
  /* an engine told to keep no trail places the kept items again */
  rng_state = 77;
  enum { N = 1200 };
  mp_item *it = calloc(N, sizeof *it);
  uint64_t *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
  uint32_t *order = calloc(N, sizeof *order);
  random_problem(it, N, 500, 32, false);
  definition_order(it, N, true, order);
  mp_firstfit *ff = NULL;
  assert_int_equal(mp_firstfit_new_as(it, N, "tree", &ff), MP_OK);
  assert_string_equal(mp_firstfit_mode(ff), "tree");
  mp_firstfit_no_undo(ff);
  mp_firstfit_run(ff, order, N, 0, a);
  naive_first_fit(it, N, order, b);
  assert_offsets(a, b, N);
  mp_firstfit_truncate(ff, N / 3);
  assert_int_equal(mp_firstfit_count(ff), N / 3);
  for (size_t k = N / 3; k + 1 < N; k += 2) {
    uint32_t t = order[k];
    order[k] = order[k + 1];
    order[k + 1] = t;
  }
  uint64_t h = mp_firstfit_run(ff, order + N / 3, N - N / 3, N / 3, a);
  assert_int_equal(h, naive_first_fit(it, N, order, b));
  assert_offsets(a, b, N);
  mp_firstfit_free(&ff);
  free(it);
  free(a);
  free(b);
  free(order);
}

/* The lowest aligned offset of item i clear of the placed items it meets
 * in time, by definition. */
static uint64_t naive_find(const mp_item *it, size_t n, const bool *placed, const uint64_t *off,
                           uint32_t i) {
  uint64_t x = 0;
  for (bool moved = true; moved && it[i].size;) {
    moved = false;
    for (size_t j = 0; j < n; j++) {
      if (!placed[j] || !it[j].size) continue;
      bool time = it[i].start <= it[j].end && it[j].start <= it[i].end;
      if (time && x < off[j] + it[j].size && off[j] < x + it[i].size) {
        x = round_up(off[j] + it[j].size, it[i].align);
        moved = true;
      }
    }
  }
  return x;
}

static void engine_tree_with_a_limit_places_what_fits_below_it(void **state) {
  (void)state;
  /* bank spilling on a large arena: once the limit binds, some items fail
   * and change nothing, the others land where first fit puts them; the
   * tree and the buckets alike */
  static const char *const modes[] = {"tree", "buckets"};
  enum { N = 1500 };
  mp_item *it = calloc(N, sizeof *it);
  uint32_t *order = calloc(N, sizeof *order);
  uint64_t *off = calloc(N, sizeof *off);
  bool *placed = calloc(N, sizeof *placed);
  for (int m = 0; m < 2; m++) {
    rng_state = 91;
    random_problem(it, N, 3000, 64, true);
    definition_order(it, N, true, order);
    memset(placed, 0, N * sizeof *placed);
    mp_firstfit *ff = NULL;
    assert_int_equal(mp_firstfit_new_as(it, N, modes[m], &ff), MP_OK);
    assert_string_equal(mp_firstfit_mode(ff), modes[m]);
    uint64_t limit = 0;
    size_t n_placed = 0, n_failed = 0;
    for (size_t k = 0; k < N; k++) {
      uint32_t i = order[k];
      if (k == 100) limit = mp_firstfit_height(ff) + 256; /* from here on some fail */
      uint64_t want = naive_find(it, N, placed, off, i), got = 0;
      bool fits = limit == 0 || want + it[i].size <= limit;
      assert_int_equal(mp_firstfit_place(ff, i, limit, &got), fits);
      if (fits) {
        assert_int_equal(got, want);
        off[i] = got;
        placed[i] = true;
        n_placed++;
      } else {
        n_failed++;
      }
      assert_int_equal(mp_firstfit_count(ff), n_placed);
    }
    assert_true(n_failed > 0);
    assert_true(mp_firstfit_height(ff) <= limit);
    mp_firstfit_free(&ff);
  }
  free(it);
  free(order);
  free(off);
  free(placed);
}

static void engine_place_with_a_limit_fails_without_changing_anything(void **state) {
  (void)state;
  mp_item it[] = {{64, 0, 3, 16, 0}, {32, 1, 2, 16, 1}, {32, 2, 2, 16, 2}};
  mp_firstfit *ff = NULL;
  assert_int_equal(mp_firstfit_new(it, 3, &ff), MP_OK);
  uint64_t off = 0;
  assert_true(mp_firstfit_place(ff, 0, 100, &off));
  assert_int_equal(off, 0);
  /* item 1 needs [64, 96): fits below 96, not below 95 */
  assert_false(mp_firstfit_place(ff, 1, 95, &off));
  assert_int_equal(mp_firstfit_count(ff), 1);
  assert_int_equal(mp_firstfit_height(ff), 64);
  assert_true(mp_firstfit_find(ff, 1, 96, &off));
  assert_int_equal(off, 64);
  assert_true(mp_firstfit_place(ff, 1, 0, &off));
  assert_false(mp_firstfit_place(ff, 2, 127, &off));
  assert_true(mp_firstfit_place(ff, 2, 128, &off));
  assert_int_equal(off, 96);
  /* an item bigger than the limit never fits */
  mp_firstfit_truncate(ff, 0);
  assert_false(mp_firstfit_find(ff, 0, 63, &off));
  mp_firstfit_free(&ff);
}

static void engine_matches_the_naive_first_fit_with_long_lived_items(void **state) {
  (void)state;
  /* many short items and some long ones over a long time axis, so that the
   * engine's subtree unions are built and used */
  rng_state = 2024;
  enum { N = 3000 };
  mp_item *it = calloc(N, sizeof *it);
  uint64_t *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
  uint32_t *order = calloc(N, sizeof *order);
  for (size_t i = 0; i < N; i++) {
    int32_t s = (int32_t)rand_below(2000);
    int32_t len = rand_below(20) == 0 ? (int32_t)rand_below(1500) : (int32_t)rand_below(4);
    uint64_t size = 16 * (1 + rand_below(rand_below(20) == 0 ? 8 : 256));
    it[i] = (mp_item){size, s, s + len, 16, (uint32_t)i};
  }
  for (int by_size = 0; by_size < 2; by_size++) {
    definition_order(it, N, by_size, order);
    assert_int_equal(mp_firstfit_solve(it, N, order, a), MP_OK);
    naive_first_fit(it, N, order, b);
    assert_offsets(a, b, N);
    /* the tree's subtree unions, forced */
    mp_firstfit *ff = NULL;
    assert_int_equal(mp_firstfit_new_as(it, N, "tree", &ff), MP_OK);
    mp_firstfit_run(ff, order, N, 0, a);
    assert_offsets(a, b, N);
    mp_firstfit_free(&ff);
  }
  free(it);
  free(a);
  free(b);
  free(order);
}

static void the_wide_random_family_is_deterministic_valid_and_spread_over_many_times(
    void **state) {
  (void)state;
  /* random_wide: starts over n / 5 steps, exponential lengths of mean
   * n / 250 + 1, sizes up to 200 KB; the same seed gives the same items */
  enum { N = 5000 };
  const int32_t steps = N / 5;
  mp_item *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
  uint64_t *off = calloc(N, sizeof *off), *want = calloc(N, sizeof *want);
  uint32_t *order = calloc(N, sizeof *order);
  bool *seen = calloc((size_t)steps, sizeof *seen);
  mp_synth_make(MP_SYNTH_RANDOM_WIDE, N, 9, a);
  mp_synth_make(MP_SYNTH_RANDOM_WIDE, N, 9, b);
  assert_memory_equal(a, b, N * sizeof *a);
  mp_synth_make(MP_SYNTH_RANDOM_WIDE, N, 10, b);
  assert_true(memcmp(a, b, N * sizeof *a) != 0);
  assert_string_equal(mp_synth_name(MP_SYNTH_RANDOM_WIDE), "random_wide");
  uint64_t total_len = 0, big = 0;
  int32_t distinct = 0;
  for (size_t i = 0; i < N; i++) {
    assert_int_equal(a[i].id, i);
    assert_int_equal(a[i].align, 16);
    assert_true(a[i].size >= 16 && a[i].size <= 200000 && a[i].size % 16 == 0);
    assert_true(a[i].start >= 0 && a[i].start < steps && a[i].end > a[i].start);
    total_len += (uint64_t)(a[i].end - a[i].start);
    big += a[i].size > 4096;
    if (!seen[a[i].start]) distinct++;
    seen[a[i].start] = true;
  }
  /* nearly every step starts a buffer; lengths average 1 + steps / 50 + 1
   * (the end is one past the start plus the exponential draw) */
  assert_true(distinct > steps * 9 / 10);
  double mean = (double)total_len / N, expect = 1.0 + steps / 50 + 1;
  assert_true(mean > 0.9 * expect && mean < 1.1 * expect);
  /* a third of the draws come from the mix up to 200 KB */
  assert_true(big > N / 5 && big < N / 2);
  /* greedy_by_size lays it out exactly as first fit by definition */
  definition_order(a, N, true, order);
  assert_int_equal(mp_firstfit_solve(a, N, order, off), MP_OK);
  naive_first_fit(a, N, order, want);
  assert_offsets(off, want, N);
  tu_check_layout(a, N, off);
  free(a);
  free(b);
  free(off);
  free(want);
  free(order);
  free(seen);
}

/* Every index of the engine (the one array, the buckets, the tree) on one
 * problem, against first fit by definition: both planner orders, then
 * undo of a random tail and a re-placement in another order, a few times.
 * Zero-size items and mixed alignments included. */
static void check_every_mode(mp_item *it, size_t n) {
  static const char *const modes[] = {"scan", "buckets", "tree"};
  enum { NM = 3 };
  uint32_t *order = calloc(n, sizeof *order);
  uint64_t *got = calloc(n, sizeof *got), *want = calloc(n, sizeof *want);
  for (int by_size = 0; by_size < 2; by_size++) {
    definition_order(it, n, by_size, order);
    uint64_t h = naive_first_fit(it, n, order, want);
    mp_firstfit *ff[NM] = {NULL};
    for (int m = 0; m < NM; m++) {
      assert_int_equal(mp_firstfit_new_as(it, n, modes[m], &ff[m]), MP_OK);
      assert_string_equal(mp_firstfit_mode(ff[m]), modes[m]);
      assert_int_equal(mp_firstfit_run(ff[m], order, n, 0, got), h);
      assert_offsets(got, want, n);
    }
    /* the one-shot solve, whichever index it picks */
    assert_int_equal(mp_firstfit_solve(it, n, order, got), MP_OK);
    assert_offsets(got, want, n);
    for (int round = 0; round < 3; round++) {
      size_t keep = (size_t)rand_below(n);
      for (size_t k = keep; k + 1 < n; k += 2) {
        uint32_t t = order[k];
        order[k] = order[k + 1];
        order[k + 1] = t;
      }
      h = naive_first_fit(it, n, order, want);
      for (int m = 0; m < NM; m++) {
        mp_firstfit_truncate(ff[m], keep);
        assert_int_equal(mp_firstfit_run(ff[m], order + keep, n - keep, keep, NULL), h);
        for (size_t k = 0; k < n; k++)
          assert_int_equal(mp_firstfit_offset(ff[m], order[k]), want[order[k]]);
      }
    }
    for (int m = 0; m < NM; m++) mp_firstfit_free(&ff[m]);
  }
  free(order);
  free(got);
  free(want);
}

static void every_engine_index_gives_the_naive_first_fit_on_every_family(void **state) {
  (void)state;
  enum { N = 900 };
  mp_item *it = calloc(N, sizeof *it);
  rng_state = 4242;
  for (int f = 0; f < MP_SYNTH_COUNT; f++) {
    for (uint64_t seed = 1; seed <= 2; seed++) {
      mp_synth_make((mp_synth_family)f, N, 100 * seed + (uint64_t)f, it);
      check_every_mode(it, N);
    }
  }
  /* random intervals with mixed alignments and some empty items, over a
   * short and a long time axis */
  for (int k = 0; k < 2; k++) {
    random_problem(it, N, k ? 3000 : 60, 64, true);
    for (size_t i = 0; i < N; i += 37) it[i].size = 0;
    check_every_mode(it, N);
  }
  free(it);
}

/* ---- time limits and the pressure order -------------------------------------- */

static void a_cut_greedy_by_size_start_falls_back_to_greedy_and_says_so(void **state) {
  (void)state;
  /* 20k dense buffers cannot be laid out largest first in a millisecond:
   * exact and hill_climb with a 1 ms limit start from start-order greedy
   * (a sweep that always finishes) and say so */
  enum { N = 20000 };
  mp_item *it = calloc(N, sizeof *it);
  uint64_t *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
  mp_synth_make(MP_SYNTH_RANDOM, N, 7, it);
  mp_solution g = run("greedy", it, N, b, NULL, 0);
  char k_ms[] = "time_limit_ms";
  mp_option one_ms = {k_ms, 1};
  const char *planners[] = {"exact", "hill_climb"};
  for (int k = 0; k < 2; k++) {
    mp_solution s = run(planners[k], it, N, a, &one_ms, 1);
    assert_true(s.cheap_start);
    assert_true(s.timed_out);
    assert_int_equal(s.height, g.height);
    assert_memory_equal(a, b, N * sizeof *a);
    assert_true(s.proven_lower <= s.height);
  }
  free(it);
  free(a);
  free(b);
}

static void the_pressure_order_puts_the_peak_first_and_is_a_permutation(void **state) {
  (void)state;
  /* three buffers at the peak (t = 5), one big buffer at a quiet time: the
   * peak goes first, largest first, the quiet one last despite its size */
  mp_item it[] = {
      {1024, 0, 1, 16, 0}, /* quiet: alone at t = 0..1 */
      {256, 4, 6, 16, 1},  {512, 5, 5, 16, 2}, {1024, 3, 5, 16, 3},
      {128, 8, 9, 16, 4}, /* quiet and small */
  };
  uint32_t order[5];
  assert_int_equal(mp_firstfit_order_by_pressure(it, 5, order), MP_OK);
  const uint32_t want[] = {3, 2, 1, 0, 4};
  assert_memory_equal(order, want, sizeof want);
  /* a permutation on a large problem, and the same twice */
  enum { N = 5000 };
  mp_item *big = calloc(N, sizeof *big);
  uint32_t *o1 = calloc(N, sizeof *o1), *o2 = calloc(N, sizeof *o2);
  bool *seen = calloc(N, sizeof *seen);
  mp_synth_make(MP_SYNTH_RANDOM, N, 3, big);
  assert_int_equal(mp_firstfit_order_by_pressure(big, N, o1), MP_OK);
  assert_int_equal(mp_firstfit_order_by_pressure(big, N, o2), MP_OK);
  assert_memory_equal(o1, o2, N * sizeof *o1);
  for (size_t i = 0; i < N; i++) {
    assert_true(o1[i] < N);
    assert_false(seen[o1[i]]);
    seen[o1[i]] = true;
  }
  free(big);
  free(o1);
  free(o2);
  free(seen);
}

static void the_pressure_order_packs_a_dense_problem_tighter_than_by_size(void **state) {
  (void)state;
  /* 10k dense buffers over 50 steps: first fit in the pressure order ends
   * well below largest first (exact uses it as a start) */
  enum { N = 10000 };
  mp_item *it = calloc(N, sizeof *it);
  uint64_t *a = calloc(N, sizeof *a);
  uint32_t *order = calloc(N, sizeof *order);
  mp_synth_make(MP_SYNTH_RANDOM, N, 11, it);
  mp_solution by_size = run("greedy_by_size", it, N, a, NULL, 0);
  assert_int_equal(mp_firstfit_order_by_pressure(it, N, order), MP_OK);
  assert_int_equal(mp_firstfit_solve(it, N, order, a), MP_OK);
  uint64_t h = tu_check_layout(it, N, a);
  assert_true(h < by_size.height);
  /* at least half of greedy_by_size's excess over the lower bound goes */
  assert_true(h - by_size.lower_bound < (by_size.height - by_size.lower_bound) / 2);
  free(it);
  free(a);
  free(order);
}

/* ---- options as JSON -------------------------------------------------------------- */

static void planner_options_parse_from_json(void **state) {
  (void)state;
  const mp_planner *pl = mp_planner_find("hill_climb");
  mp_option *o = NULL;
  uint32_t n = 9;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_planner_options_from_json(pl, "{\"iterations\": 5000, \"seed\": 3}", "--x",
                                                &d.sink, &o, &n),
                   MP_OK);
  assert_int_equal(n, 2);
  assert_string_equal(o[0].key, "iterations");
  assert_int_equal(o[0].value, 5000);
  assert_int_equal(mp_option_get(pl, o, n, "seed", -1), 3);
  assert_int_equal(mp_option_get(pl, o, n, "max_stall_iterations", -1), 0);
  mp_options_free(&o);
  assert_null(o);
  assert_int_equal(mp_planner_options_from_json(pl, "{}", "--x", &d.sink, &o, &n), MP_OK);
  assert_int_equal(n, 0);
  assert_null(o);
}

static void planner_option_errors_name_the_key(void **state) {
  (void)state;
  const mp_planner *hc = mp_planner_find("hill_climb"), *g = mp_planner_find("greedy");
  const struct {
    const mp_planner **pl;
    const char *json, *needle;
  } cases[] = {
      {&hc, "{\"iteratons\": 5}", "unknown key 'iteratons' \xe2\x80\x94 did you mean 'iterations'?"},
      {&hc, "{\"max_stal\": 5}", "did you mean 'max_stall_iterations'?"},
      {&hc, "{\"colour\": 5}", "unknown key 'colour' (planner 'hill_climb' accepts 'iterations'"},
      {&hc, "{\"seed\": -1}", "'seed' must be a non-negative integer, not -1"},
      {&hc, "{\"iterations\": \"many\"}", "'iterations' must be an integer from 0 to"},
      {&hc, "{\"iterations\": 2.5}", "not 2.5"},
      {&hc, "{\"iterations\": 100000001}", "'iterations' must be an integer from 0 to 100000000"},
      {&hc, "[1, 2]", "must be a JSON object"},
      {&hc, "{\"seed\": ", "not valid JSON"},
      {&g, "{\"seed\": 1}", "unknown key 'seed': planner 'greedy' accepts no options"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tu_diags d;
    tu_diags_init(&d);
    mp_option *o = NULL;
    uint32_t n = 0;
    assert_int_equal(mp_planner_options_from_json(*cases[i].pl, cases[i].json, "--planner-options",
                                                  &d.sink, &o, &n),
                     MP_ERR_CONFIG);
    assert_null(o);
    if (!tu_diags_has(&d, cases[i].needle)) fail_msg("%s: got %s", cases[i].json, d.text);
    assert_true(tu_diags_has(&d, "--planner-options"));
  }
}

static void solve_rejects_sizes_that_could_overflow(void **state) {
  (void)state;
  mp_item it[] = {{UINT64_C(1) << 61, 0, 0, 1, 0}, {UINT64_C(1) << 61, 0, 0, 1, 1}};
  uint64_t off[2];
  mp_problem p = {2, it, 0};
  mp_solution s = {.offsets = off};
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_solve(mp_planner_find("greedy"), &p, NULL, 0, &s, &d.sink),
                   MP_ERR_UNSUPPORTED);
  assert_true(tu_diags_has(&d, "too large"));
}

/* ---- the corpus ------------------------------------------------------------------- */

static void corpus_models_reach_the_lower_bound_with_hill_climb(void **state) {
  (void)state;
  const char *const *names = tu_model_names();
  if (!names) skip();
  for (size_t m = 0; names[m]; m++) {
    if (tu_skip_refused(names[m], TU_STAGE_PLAN)) continue;
    mp_model *model = NULL;
    mp_graph *g = NULL;
    assert_int_equal(mp_model_load(tu_model_path(names[m]), NULL, &model), MP_OK);
    assert_int_equal(mp_graph_build(model, 0, NULL, NULL, &g), MP_OK);
    mp_item *it = calloc(g->n_tensors + 1, sizeof *it);
    uint64_t *off = calloc(g->n_tensors + 1, sizeof *off);
    size_t n = mp_graph_scratch_items(g, 16, it);
    uint64_t lb = mp_graph_lower_bound(g, 16);
    mp_solution gr = run("greedy", it, n, off, NULL, 0);
    mp_solution gs = run("greedy_by_size", it, n, off, NULL, 0);
    mp_solution hc = run("hill_climb", it, n, off, NULL, 0);
    print_message("%-34s %3zu slots  lb %7llu  greedy %7llu  by_size %7llu  hill_climb %7llu "
                  "(%llu iterations)\n",
                  names[m], n, (unsigned long long)lb, (unsigned long long)gr.height,
                  (unsigned long long)gs.height, (unsigned long long)hc.height,
                  (unsigned long long)hc.iterations);
    assert_int_equal(gr.lower_bound, lb);
    assert_int_equal(hc.height, lb);
    assert_true(hc.height <= gs.height);
    free(it);
    free(off);
    mp_graph_free(&g);
    mp_model_free(&model);
  }
}

static void vww_packs_at_the_known_optimum_below_tflm(void **state) {
  (void)state;
  if (!tu_models_dir()) skip();
  mp_model *model = NULL;
  mp_graph *g = NULL;
  assert_int_equal(mp_model_load(tu_model_path("mlperf_vww_96_int8"), NULL, &model), MP_OK);
  mp_graph_options no_alias = {.alias_views = false};
  for (int alias = 0; alias < 2; alias++) {
    assert_int_equal(mp_graph_build(model, 0, alias ? NULL : &no_alias, NULL, &g), MP_OK);
    mp_item it[256];
    uint64_t off[256];
    assert_true(g->n_tensors <= 256);
    size_t n = mp_graph_scratch_items(g, 16, it);
    mp_solution gs = run("greedy_by_size", it, n, off, NULL, 0);
    mp_solution hc = run("hill_climb", it, n, off, NULL, 0);
    assert_true(gs.height <= 73728); /* TFLite Micro's greedy planner */
    assert_int_equal(hc.height, 55296);
    mp_graph_free(&g);
  }
  mp_model_free(&model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_table_lists_the_heuristics_first_in_order),
      cmocka_unit_test(hill_climb_documents_its_four_options),
      cmocka_unit_test(every_planner_accepts_zero_items),
      cmocka_unit_test(every_planner_puts_one_item_at_offset_zero),
      cmocka_unit_test(every_planner_reuses_one_slot_for_disjoint_lifetimes),
      cmocka_unit_test(every_planner_alternates_two_slots_along_a_chain),
      cmocka_unit_test(identical_items_stack_in_id_order),
      cmocka_unit_test(equal_items_with_equal_ids_keep_their_input_order),
      cmocka_unit_test(greedy_places_in_start_order),
      cmocka_unit_test(greedy_by_size_places_largest_first),
      cmocka_unit_test(greedy_by_size_prefers_the_longer_lifetime_on_equal_sizes),
      cmocka_unit_test(greedy_breaks_start_ties_by_size_then_id),
      cmocka_unit_test(offsets_respect_each_items_alignment),
      cmocka_unit_test(alignment_gaps_are_reused_by_smaller_alignments),
      cmocka_unit_test(zero_size_items_go_to_offset_zero_and_block_nothing),
      cmocka_unit_test(sizes_need_not_be_powers_of_two_without_alignment),
      cmocka_unit_test(hill_climb_improves_on_greedy_by_size),
      cmocka_unit_test(hill_climb_does_nothing_when_greedy_by_size_is_at_the_bound),
      cmocka_unit_test(hill_climb_with_zero_iterations_is_greedy_by_size),
      cmocka_unit_test(greedy_and_greedy_by_size_match_their_definitions),
      cmocka_unit_test(greedy_matches_its_definition_on_large_problems),
      cmocka_unit_test(hill_climb_finds_the_best_first_fit_order_of_small_problems),
      cmocka_unit_test(hill_climb_is_never_worse_than_greedy_by_size),
      cmocka_unit_test(hill_climb_is_deterministic_for_a_seed),
      cmocka_unit_test(hill_climb_stops_after_max_stall_iterations),
      cmocka_unit_test(hill_climb_packs_cut_rectangles_at_their_optimum),
      cmocka_unit_test(hill_climb_is_byte_identical_for_a_seed_on_a_hard_instance),
      cmocka_unit_test(hill_climb_with_a_past_deadline_stops_at_its_first_layout_and_says_so),
      cmocka_unit_test(hill_climb_proves_small_results_optimal_with_its_exact_tail),
      cmocka_unit_test(hill_climb_without_iterations_runs_no_exact_tail),
      cmocka_unit_test(the_exact_tail_never_makes_hill_climb_worse),
      cmocka_unit_test(hill_climb_makes_fewer_moves_on_large_problems),
      cmocka_unit_test(engine_undo_restores_the_exact_earlier_state),
      cmocka_unit_test(engine_place_with_a_limit_fails_without_changing_anything),
      cmocka_unit_test(engine_without_undo_trail_still_truncates_exactly),
      cmocka_unit_test(a_cut_greedy_by_size_start_falls_back_to_greedy_and_says_so),
      cmocka_unit_test(the_pressure_order_puts_the_peak_first_and_is_a_permutation),
      cmocka_unit_test(the_pressure_order_packs_a_dense_problem_tighter_than_by_size),
      cmocka_unit_test(engine_tree_with_a_limit_places_what_fits_below_it),
      cmocka_unit_test(engine_matches_the_naive_first_fit_with_long_lived_items),
      cmocka_unit_test(the_wide_random_family_is_deterministic_valid_and_spread_over_many_times),
      cmocka_unit_test(every_engine_index_gives_the_naive_first_fit_on_every_family),
      cmocka_unit_test(planner_options_parse_from_json),
      cmocka_unit_test(planner_option_errors_name_the_key),
      cmocka_unit_test(solve_rejects_sizes_that_could_overflow),
      cmocka_unit_test(corpus_models_reach_the_lower_bound_with_hill_climb),
      cmocka_unit_test(vww_packs_at_the_known_optimum_below_tflm),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
