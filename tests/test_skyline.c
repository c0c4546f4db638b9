/*
 * test_skyline.c — the skyline construction (src/planners/skyline.c), a start of
 * the exact planner.
 *
 * Every layout goes through the tests' own layout check (tests/support).
 * A small problem is checked offset by offset against the rules of
 * skyline.c worked by hand; the others check what the construction
 * promises: valid, aligned, deterministic, cut by its work limit and its
 * deadline, and on the dense random family far tighter than first fit;
 * and hill_climb, which starts from it above MP_SKYLINE_START_ITEMS
 * buffers, is never above it and still deterministic.
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
#include "planners/skyline.h"
#include "synth.h"

#include <stdlib.h>
#include <string.h>

static uint64_t solve_ok(const mp_item *it, size_t n, uint64_t *off) {
  bool cut = true;
  assert_int_equal(mp_skyline_solve(it, n, off, 0, 0, &cut), MP_OK);
  assert_false(cut);
  return tu_check_layout(it, n, off);
}

static void a_small_problem_gets_the_offsets_the_rules_give(void **state) {
  (void)state;
  /* A lives over [0, 1], B over [0], C over [1]: the run [0, 1] is at 0;
   * A and C hold the most bytes still to place (48 each) and A lives
   * longer, so A goes first at 0; then B and C tie on everything but
   * their lo, and B (lo 0) goes at 32; C then fills the lowest segment at
   * 32.  Height 48, the lower bound. */
  mp_item it[] = {{32, 0, 1, 16, 0}, {16, 0, 0, 16, 1}, {16, 1, 1, 16, 2}};
  uint64_t off[3];
  assert_int_equal(solve_ok(it, 3, off), 48);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 32);
  assert_int_equal(off[2], 32);
}

static void a_stretch_nothing_fits_is_raised_to_its_lower_neighbour(void **state) {
  (void)state;
  /* A over [0, 1] and B over [1, 2] tie on everything but their lo: A goes
   * first at 0.  The lowest stretch is then time 2 alone, at 0, and no
   * buffer lies inside it (B starts at 1): it is raised to its neighbour's
   * 32, and B goes on the flat 32 over [1, 2]. */
  mp_item it[] = {{32, 0, 1, 16, 0}, {32, 1, 2, 16, 1}};
  uint64_t off[2];
  assert_int_equal(solve_ok(it, 2, off), 64);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 32);
}

static void offsets_keep_every_alignment(void **state) {
  (void)state;
  enum { N = 300 };
  mp_item it[N];
  uint64_t off[N], s = 7;
  for (size_t i = 0; i < N; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int32_t t = (int32_t)((s >> 33) % 40);
    uint32_t al = 1u << ((s >> 20) % 8);
    it[i] = (mp_item){1 + (s >> 40) % 3000, t, t + (int32_t)((s >> 50) % 12), al, (uint32_t)i};
  }
  uint64_t h = solve_ok(it, N, off); /* tu_check_layout asserts the alignment */
  mp_problem p = {N, it, 0};
  assert_true(h >= mp_problem_lower_bound(&p));
}

static void every_synthetic_family_and_hard_instance_is_laid_out_validly(void **state) {
  (void)state;
  size_t n = 3000;
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *off = calloc(n, sizeof *off), *again = calloc(n, sizeof *again);
  for (int f = 0; f < MP_SYNTH_COUNT; f++) {
    mp_synth_make((mp_synth_family)f, n, 11 + (uint64_t)f, it);
    uint64_t h = solve_ok(it, n, off);
    mp_problem p = {n, it, 0};
    assert_true(h >= mp_problem_lower_bound(&p));
    solve_ok(it, n, again);
    assert_memory_equal(off, again, n * sizeof *off); /* the same layout every time */
  }
  for (uint32_t k = 0; k < 4; k++) {
    mp_hardgen_params prm = {100 + 50 * k, 1u << 20, 4 * (100 + 50 * k), 16, 1000003u + k, 1};
    assert_int_equal(mp_hardgen_make(&prm, it, NULL, NULL), MP_OK);
    assert_true(solve_ok(it, prm.n, off) >= prm.height);
  }
  free(it);
  free(off);
  free(again);
}

static void dense_random_lifetimes_pack_near_the_lower_bound(void **state) {
  (void)state;
  /* 10 000 random lifetimes over 50 steps: largest-first first fit stops
   * 2.3 % above the lower bound; the skyline within 0.2 % */
  size_t n = 10000;
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *off = calloc(n, sizeof *off);
  uint32_t *order = calloc(n, sizeof *order);
  mp_synth_make(MP_SYNTH_RANDOM, n, 0x5eed0000u + 3u * 1000003u + n, it);
  mp_problem p = {n, it, 0};
  uint64_t lb = mp_problem_lower_bound(&p), h = solve_ok(it, n, off);
  assert_true(h * 1000 <= lb * 1002);
  assert_int_equal(mp_firstfit_order_by_size(it, n, order), MP_OK);
  assert_int_equal(mp_firstfit_solve(it, n, order, off), MP_OK);
  assert_true(h < tu_check_layout(it, n, off));
  free(it);
  free(off);
  free(order);
}

static void the_work_limit_and_the_deadline_cut_the_run(void **state) {
  (void)state;
  size_t n = 5000;
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *off = calloc(n, sizeof *off);
  mp_synth_make(MP_SYNTH_RANDOM, n, 5, it);
  bool cut = false;
  assert_int_equal(mp_skyline_solve(it, n, off, 100, 0, &cut), MP_OK);
  assert_true(cut);
  cut = false;
  /* 1 ms after the clock's origin: long past */
  assert_int_equal(mp_skyline_solve(it, n, off, 0, 1, &cut), MP_OK);
  assert_true(cut);
  free(it);
  free(off);
}

static void hill_climb_starts_no_higher_than_the_skyline_and_stays_deterministic(void **state) {
  (void)state;
  size_t n = 2000; /* above MP_SKYLINE_START_ITEMS */
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *sky = calloc(n, sizeof *sky), *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  mp_synth_make(MP_SYNTH_RANDOM, n, 77, it);
  uint64_t h = solve_ok(it, n, sky);
  const mp_planner *hc = mp_planner_find("hill_climb");
  char k_it[] = "iterations", k_seed[] = "seed";
  mp_option opts[] = {{k_it, 20}, {k_seed, 3}};
  mp_problem p = {n, it, 0};
  mp_solution sa = {.offsets = a}, sb = {.offsets = b};
  assert_int_equal(mp_solve(hc, &p, opts, 2, &sa, NULL), MP_OK);
  assert_int_equal(mp_solve(hc, &p, opts, 2, &sb, NULL), MP_OK);
  assert_true(tu_check_layout(it, n, a) <= h);
  assert_int_equal(sa.height, sb.height);
  assert_memory_equal(a, b, n * sizeof *a);
  free(it);
  free(sky);
  free(a);
  free(b);
}

static void empty_and_zero_size_problems_take_offset_zero(void **state) {
  (void)state;
  uint64_t off[3] = {5, 5, 5};
  bool cut = true;
  assert_int_equal(mp_skyline_solve(NULL, 0, off, 0, 0, &cut), MP_OK);
  assert_false(cut);
  mp_item it[] = {{0, 0, 4, 16, 0}, {48, 1, 2, 16, 1}, {0, 2, 2, 1, 2}};
  assert_int_equal(solve_ok(it, 3, off), 48);
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 0);
  assert_int_equal(off[2], 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_small_problem_gets_the_offsets_the_rules_give),
      cmocka_unit_test(a_stretch_nothing_fits_is_raised_to_its_lower_neighbour),
      cmocka_unit_test(offsets_keep_every_alignment),
      cmocka_unit_test(every_synthetic_family_and_hard_instance_is_laid_out_validly),
      cmocka_unit_test(dense_random_lifetimes_pack_near_the_lower_bound),
      cmocka_unit_test(the_work_limit_and_the_deadline_cut_the_run),
      cmocka_unit_test(hill_climb_starts_no_higher_than_the_skyline_and_stays_deterministic),
      cmocka_unit_test(empty_and_zero_size_problems_take_offset_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
