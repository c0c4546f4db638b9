/*
 * test_exact.c — the exact planner, its entry for other planners
 * (mp_exact_improve) and the hard-instance generator.
 *
 * Every layout goes through this file's own checker (pairwise overlap and
 * alignment; no code shared with the planners).  Optima are known either by
 * brute force (small random problems: every aligned offset of every item is
 * tried) or by construction (hardgen cuts a full H x T rectangle, so the
 * optimum is H).  Proofs are checked both ways: at the optimum a layout is
 * found, one byte (or one granule) below it the planner proves that none
 * exists.  Time-limit tests use limits small enough that the search cannot
 * finish, and check that the call returns promptly with a valid layout and
 * an honest interval.  The corpus test skips with a notice when
 * ../shared/models is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout_check.h"
#include "testutil.h"

#include "planners/exact.h"
#include "hardgen.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- helpers ---------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t next_rand(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* A clock the test controls (mp_clock_set): each read advances it by
 * `step_ns`, so a time limit is reached after a known number of the
 * planner's own looks at the clock, however fast or loaded the machine.
 * `late` counts the looks after `deadline_ns` (0: not counting). */
static struct {
  uint64_t now_ns, step_ns, deadline_ns, reads, late;
} fake;

static uint64_t fake_clock(void) {
  fake.now_ns += fake.step_ns;
  fake.reads++;
  if (fake.deadline_ns && fake.now_ns >= fake.deadline_ns) fake.late++;
  return fake.now_ns;
}

/* Install the fake clock at 1 s, stepping `step_ns` a read, with the
 * deadline `limit_ms` after its first read. */
static void fake_clock_start(uint64_t step_ns, uint64_t limit_ms) {
  memset(&fake, 0, sizeof fake);
  fake.now_ns = 1000000000u;
  fake.step_ns = step_ns;
  fake.deadline_ns = limit_ms ? fake.now_ns + step_ns + limit_ms * 1000000u : 0;
  mp_clock_set(fake_clock);
}


/* The optimum by brute force: every aligned offset below the best height
 * so far, item by item, with the overlap test written out again. */
static uint64_t bf_best;

static void bf(const mp_item *it, size_t n, uint64_t *off, size_t k, uint64_t h) {
  if (h >= bf_best) return;
  if (k == n) {
    bf_best = h;
    return;
  }
  for (uint64_t o = 0; o + it[k].size < bf_best || (it[k].size == 0 && o == 0);
       o += it[k].align) {
    bool ok = true;
    for (size_t j = 0; j < k && ok; j++)
      if (it[j].start <= it[k].end && it[k].start <= it[j].end && off[j] < o + it[k].size &&
          o < off[j] + it[j].size && it[j].size && it[k].size)
        ok = false;
    if (ok) {
      off[k] = o;
      bf(it, n, off, k + 1, h > o + it[k].size ? h : o + it[k].size);
    }
    if (it[k].size == 0) break;
  }
}

static uint64_t brute_optimum(const mp_item *it, size_t n) {
  uint64_t off[16];
  bf_best = 0;
  for (size_t i = 0; i < n; i++) bf_best += it[i].size + it[i].align;
  bf_best += 1;
  bf(it, n, off, 0, 0);
  return bf_best;
}

/* A random small problem: up to `maxn` items over a few time steps, sizes
 * a few alignment units, alignments 1, 2 or 4, sometimes a zero size. */
static size_t random_problem(mp_item *it, size_t maxn) {
  size_t n = 1 + (size_t)(next_rand() % maxn);
  for (size_t i = 0; i < n; i++) {
    uint32_t a = 1u << (next_rand() % 3);
    int32_t s = (int32_t)(next_rand() % 6);
    int32_t e = s + (int32_t)(next_rand() % 4);
    uint64_t size = (next_rand() % 11 == 0) ? 0 : (1 + next_rand() % 4) * a;
    it[i] = (mp_item){size, s, e, a, (uint32_t)i};
  }
  return n;
}

typedef struct result {
  mp_status st;
  mp_solution sol;
  double ms;
} result;

/* Run `exact` with the given options (key/value pairs, NULL-terminated). */
static result run_exact(const mp_item *it, size_t n, uint64_t *off, char *k1, int64_t v1,
                        char *k2, int64_t v2) {
  mp_option opts[2];
  uint32_t no = 0;
  if (k1) opts[no++] = (mp_option){k1, v1};
  if (k2) opts[no++] = (mp_option){k2, v2};
  mp_problem p = {n, it, 0};
  result r;
  memset(&r, 0, sizeof r);
  r.sol.offsets = off;
  r.st = mp_solve(mp_planner_find("exact"), &p, opts, no, &r.sol, NULL);
  return r;
}

static mp_item *hard_instance(uint32_t n, uint64_t seed, uint64_t *truth) {
  mp_item *it = calloc(n, sizeof *it);
  assert_non_null(it);
  mp_hardgen_params hp = {n, 1u << 20, 4 * n, 16, seed, 1};
  assert_int_equal(mp_hardgen_make(&hp, it, truth, NULL), MP_OK);
  return it;
}

/* ---- the planner ------------------------------------------------------------ */

static void exact_is_in_the_planner_table_with_its_options(void **state) {
  (void)state;
  const mp_planner *pl = mp_planner_find("exact");
  assert_non_null(pl);
  assert_string_equal(mp_planner_at(mp_planner_count() - 1)->name, "exact");
  assert_int_equal(mp_option_get(pl, NULL, 0, "time_limit_ms", -1), 10000);
  assert_int_equal(mp_option_get(pl, NULL, 0, "capacity", -1), 0);
  assert_int_equal(mp_option_get(pl, NULL, 0, "node_limit", -1), 0);
  for (uint32_t i = 0; i < pl->n_options; i++) {
    assert_true(pl->options[i].min >= 0);
    assert_true(pl->options[i].def >= pl->options[i].min);
    assert_true(pl->options[i].def <= pl->options[i].max);
  }
}

static void exact_finds_the_brute_force_optimum_of_small_problems(void **state) {
  (void)state;
  rng_state = 7;
  for (int trial = 0; trial < 400; trial++) {
    mp_item it[8];
    uint64_t off[8];
    size_t n = random_problem(it, 7);
    uint64_t opt = brute_optimum(it, n);
    result r = run_exact(it, n, off, "time_limit_ms", 20000, NULL, 0);
    assert_int_equal(r.st, MP_OK);
    assert_int_equal(tu_check_layout(it, n, off), r.sol.height);
    assert_int_equal(r.sol.height, opt);
    assert_int_equal(r.sol.proven_lower, opt);
    assert_int_equal(r.sol.proven_upper, opt);
    assert_false(r.sol.timed_out);
  }
}

static void a_capacity_below_the_optimum_is_proven_infeasible(void **state) {
  (void)state;
  rng_state = 11;
  int proofs = 0;
  for (int trial = 0; trial < 300; trial++) {
    mp_item it[8];
    uint64_t off[8];
    size_t n = random_problem(it, 7);
    uint64_t opt = brute_optimum(it, n);
    if (opt == 0) continue;
    /* one byte below: no layout, and the planner says so */
    result r = run_exact(it, n, off, "capacity", (int64_t)opt - 1, "time_limit_ms", 20000);
    assert_int_equal(r.st, MP_OK);
    uint64_t h = tu_check_layout(it, n, off);
    assert_int_equal(h, r.sol.height);
    assert_true(r.sol.height > opt - 1);
    assert_true(r.sol.proven_lower > opt - 1);
    assert_true(r.sol.proven_lower <= opt);
    assert_false(r.sol.timed_out);
    proofs++;
    /* at the optimum: a layout within it */
    r = run_exact(it, n, off, "capacity", (int64_t)opt, "time_limit_ms", 20000);
    assert_int_equal(r.st, MP_OK);
    assert_true(tu_check_layout(it, n, off) <= opt);
  }
  assert_true(proofs > 250);
}

static void an_optimum_above_the_lower_bound_is_proven(void **state) {
  (void)state;
  /* found by a random search: the live sum peaks at 20, but no layout is
   * lower than 21 */
  mp_item it[8] = {
      {4, 0, 2, 1, 0}, {7, 0, 1, 1, 1}, {4, 1, 1, 1, 2}, {8, 3, 5, 1, 3},
      {8, 2, 4, 1, 4}, {8, 0, 0, 1, 5}, {2, 1, 2, 1, 6}, {3, 1, 3, 1, 7},
  };
  uint64_t off[8];
  mp_problem p = {8, it, 0};
  assert_int_equal(mp_problem_lower_bound(&p), 20);
  assert_int_equal(brute_optimum(it, 8), 21);
  result r = run_exact(it, 8, off, NULL, 0, NULL, 0);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(tu_check_layout(it, 8, off), 21);
  assert_int_equal(r.sol.lower_bound, 20);
  assert_int_equal(r.sol.proven_lower, 21);
  assert_int_equal(r.sol.proven_upper, 21);
  assert_false(r.sol.timed_out);
  /* asked for 20, it proves that 20 is impossible */
  r = run_exact(it, 8, off, "capacity", 20, NULL, 0);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(r.sol.proven_lower, 21);
  assert_int_equal(tu_check_layout(it, 8, off), r.sol.height);
}

static void constructed_hard_instances_are_packed_at_exactly_h(void **state) {
  (void)state;
  static const struct {
    uint32_t n;
    uint64_t seed;
  } cases[] = {{40, 1}, {60, 2}, {80, 3}, {100, 4}, {120, 5}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    uint32_t n = cases[c].n;
    uint64_t *truth = calloc(n, sizeof *truth);
    uint64_t *off = calloc(n, sizeof *off);
    mp_item *it = hard_instance(n, cases[c].seed, truth);
    assert_int_equal(tu_check_layout(it, n, truth), 1u << 20);
    result r = run_exact(it, n, off, "time_limit_ms", 60000, NULL, 0);
    assert_int_equal(r.st, MP_OK);
    assert_int_equal(tu_check_layout(it, n, off), r.sol.height);
    assert_int_equal(r.sol.height, 1u << 20);
    assert_int_equal(r.sol.proven_lower, 1u << 20);
    assert_int_equal(r.sol.proven_upper, 1u << 20);
    assert_false(r.sol.timed_out);
    free(it);
    free(truth);
    free(off);
  }
}

static void one_granule_below_h_a_hard_instance_is_infeasible_at_once(void **state) {
  (void)state;
  uint64_t off[60];
  mp_item *it = hard_instance(60, 9, NULL);
  /* below the lower bound: proven without search */
  result r = run_exact(it, 60, off, "capacity", (1 << 20) - 16, "time_limit_ms", 60000);
  assert_int_equal(r.st, MP_OK);
  assert_true(r.sol.proven_lower > (1u << 20) - 16);
  assert_false(r.sol.timed_out);
  assert_int_equal(tu_check_layout(it, 60, off), r.sol.height);
  free(it);
}

static void a_tiny_time_limit_returns_promptly_with_a_valid_layout(void **state) {
  (void)state;
  uint32_t n = 500;
  uint64_t *off = calloc(n, sizeof *off);
  mp_item *it = hard_instance(n, 12345, NULL);
  fake_clock_start(50000, 1); /* 20 looks at the clock make the 1 ms */
  result r = run_exact(it, n, off, "time_limit_ms", 1, NULL, 0);
  mp_clock_set(NULL);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(tu_check_layout(it, n, off), r.sol.height);
  assert_true(r.sol.timed_out);
  assert_true(r.sol.proven_lower <= r.sol.proven_upper);
  assert_int_equal(r.sol.proven_upper, r.sol.height);
  assert_true(r.sol.proven_lower >= r.sol.lower_bound);
  assert_true(r.sol.proven_lower <= 1u << 20); /* honest: the optimum is H */
  /* the limit passed, and every loop that looked at the clock after it
   * stopped at that look: a handful of looks, not the rest of a search */
  assert_true(fake.late >= 1);
  assert_true(fake.late <= 16);
  free(it);
  free(off);
}

static void a_time_limit_is_kept_on_a_search_that_cannot_finish(void **state) {
  (void)state;
  /* a capacity below H but above the lower bound's proof: the search must
   * run out of time (or prove it) and return inside the limit */
  uint32_t n = 300;
  uint64_t *off = calloc(n, sizeof *off);
  mp_item *it = hard_instance(n, 777, NULL);
  /* disturb the instance so that H is no longer reachable for sure: grow
   * one item; the lower bound rises by at most its growth */
  it[0].size += 16;
  fake_clock_start(1000000, 200); /* 1 ms a look: 200 looks make the limit */
  result r = run_exact(it, n, off, "time_limit_ms", 200, NULL, 0);
  mp_clock_set(NULL);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(tu_check_layout(it, n, off), r.sol.height);
  assert_true(r.sol.proven_lower <= r.sol.proven_upper);
  assert_true(r.sol.proven_lower >= r.sol.lower_bound);
  if (r.sol.proven_lower < r.sol.proven_upper) {
    assert_true(r.sol.timed_out);
    assert_true(fake.late >= 1);
  }
  assert_true(fake.late <= 16);
  free(it);
  free(off);
}

static void the_same_options_give_the_same_offsets(void **state) {
  (void)state;
  uint32_t n = 200;
  uint64_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  mp_item *it = hard_instance(n, 31, NULL);
  /* a node limit: deterministic even when it cuts the search */
  result ra = run_exact(it, n, a, "node_limit", 3000, NULL, 0);
  result rb = run_exact(it, n, b, "node_limit", 3000, NULL, 0);
  assert_int_equal(ra.st, MP_OK);
  assert_int_equal(rb.st, MP_OK);
  assert_memory_equal(a, b, n * sizeof *a);
  assert_int_equal(ra.sol.iterations, rb.sol.iterations);
  assert_int_equal(ra.sol.proven_lower, rb.sol.proven_lower);
  tu_check_layout(it, n, a);
  /* a search that finishes is deterministic under a time limit too */
  ra = run_exact(it, n, a, "time_limit_ms", 60000, NULL, 0);
  rb = run_exact(it, n, b, "time_limit_ms", 60000, NULL, 0);
  if (!ra.sol.timed_out && !rb.sol.timed_out) assert_memory_equal(a, b, n * sizeof *a);
  free(it);
  free(a);
  free(b);
}

static void independent_components_are_solved_separately(void **state) {
  (void)state;
  /* two hard instances, the second shifted in time after the first: the
   * optimum is the larger H */
  uint32_t n1 = 50, n2 = 50;
  mp_item *a = hard_instance(n1, 41, NULL), *b = hard_instance(n2, 42, NULL);
  mp_item it[100];
  uint64_t off[100];
  for (uint32_t i = 0; i < n1; i++) it[i] = a[i];
  for (uint32_t i = 0; i < n2; i++) {
    it[n1 + i] = b[i];
    it[n1 + i].start += 1000;
    it[n1 + i].end += 1000;
    it[n1 + i].size /= 2; /* this half is H/2 high */
    it[n1 + i].id = n1 + i;
  }
  result r = run_exact(it, 100, off, "time_limit_ms", 60000, NULL, 0);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(tu_check_layout(it, 100, off), 1u << 20);
  assert_int_equal(r.sol.proven_lower, 1u << 20);
  assert_int_equal(r.sol.proven_upper, 1u << 20);
  free(a);
  free(b);
}

static void every_corpus_arena_is_proven_optimal(void **state) {
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
    result r = run_exact(it, n, off, "time_limit_ms", 10000, NULL, 0);
    assert_int_equal(r.st, MP_OK);
    assert_int_equal(tu_check_layout(it, n, off), r.sol.height);
    assert_int_equal(r.sol.proven_lower, r.sol.proven_upper);
    assert_int_equal(r.sol.height, r.sol.proven_upper);
    assert_false(r.sol.timed_out);
    free(it);
    free(off);
    mp_graph_free(&g);
    mp_model_free(&model);
  }
}

static void empty_and_zero_size_problems_are_solved_at_height_zero(void **state) {
  (void)state;
  uint64_t off[3] = {7, 7, 7};
  result r = run_exact(NULL, 0, off, NULL, 0, NULL, 0);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(r.sol.height, 0);
  assert_int_equal(r.sol.proven_lower, 0);
  assert_int_equal(r.sol.proven_upper, 0);
  mp_item z[3] = {{0, 0, 4, 16, 0}, {0, 1, 2, 1, 1}, {0, 0, 0, 4, 2}};
  r = run_exact(z, 3, off, NULL, 0, NULL, 0);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(tu_check_layout(z, 3, off), 0);
  assert_int_equal(r.sol.proven_upper, 0);
}

static void identical_buffers_are_stacked_once_not_in_every_order(void **state) {
  (void)state;
  /* the instance of an_optimum_above_the_lower_bound_is_proven in 16-byte
   * units, plus six identical buffers live all the time: the optimum is 27
   * units against a bound of 26.  The proof tries the six in one order
   * only (in every order it takes millions of nodes) */
  mp_item it[14] = {
      {4, 0, 2, 1, 0}, {7, 0, 1, 1, 1}, {4, 1, 1, 1, 2}, {8, 3, 5, 1, 3},
      {8, 2, 4, 1, 4}, {8, 0, 0, 1, 5}, {2, 1, 2, 1, 6}, {3, 1, 3, 1, 7},
  };
  for (uint32_t i = 0; i < 8; i++) {
    it[i].size *= 16;
    it[i].align = 16;
  }
  for (uint32_t i = 8; i < 14; i++) it[i] = (mp_item){16, 0, 5, 16, i};
  uint64_t off[14];
  result r = run_exact(it, 14, off, "time_limit_ms", 20000, NULL, 0);
  assert_int_equal(r.st, MP_OK);
  assert_int_equal(tu_check_layout(it, 14, off), 27 * 16);
  assert_int_equal(r.sol.lower_bound, 26 * 16);
  assert_int_equal(r.sol.proven_lower, 27 * 16);
  assert_false(r.sol.timed_out);
  assert_true(r.sol.iterations < 5000);
}

/* ---- the entry for other planners --------------------------------------------- */

static void improve_never_returns_a_worse_layout(void **state) {
  (void)state;
  uint32_t n = 150;
  mp_item *it = hard_instance(n, 55, NULL);
  uint64_t *off = calloc(n, sizeof *off);
  mp_problem p = {n, it, 0};
  mp_solution sol = {.offsets = off};
  assert_int_equal(mp_solve(mp_planner_find("greedy"), &p, NULL, 0, &sol, NULL), MP_OK);
  uint64_t start = sol.height;
  mp_exact_params prm = {.node_limit = 20000};
  mp_exact_result res;
  assert_int_equal(mp_exact_improve(&p, off, &prm, &res, NULL), MP_OK);
  uint64_t h = tu_check_layout(it, n, off);
  assert_int_equal(h, res.height);
  assert_true(h <= start);
  assert_true(res.proven_lower <= res.proven_upper);
  assert_int_equal(res.proven_upper, h);
  assert_true(res.nodes <= 20000 + 1);
  free(it);
  free(off);
}

static void improve_rejects_an_invalid_start_layout(void **state) {
  (void)state;
  mp_item it[2] = {{16, 0, 3, 16, 0}, {16, 2, 5, 16, 1}};
  uint64_t off[2] = {0, 0}; /* both at 0 while both live at 2 and 3 */
  mp_problem p = {2, it, 0};
  mp_exact_params prm = {.time_limit_ms = 1000};
  mp_exact_result res;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_exact_improve(&p, off, &prm, &res, &d.sink), MP_ERR_INTERNAL);
  assert_true(tu_diags_has(&d, "overlaps items 0 and 1"));
  assert_int_equal(off[0], 0);
  assert_int_equal(off[1], 0);
  uint64_t mis[2] = {8, 32}; /* 8 is not a multiple of 16 */
  tu_diags_init(&d);
  assert_int_equal(mp_exact_improve(&p, mis, &prm, &res, &d.sink), MP_ERR_INTERNAL);
  assert_true(tu_diags_has(&d, "not a multiple"));
}

static void improve_with_a_node_limit_is_deterministic(void **state) {
  (void)state;
  uint32_t n = 250;
  mp_item *it = hard_instance(n, 77, NULL);
  uint64_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  mp_problem p = {n, it, 0};
  mp_solution sol = {.offsets = a};
  assert_int_equal(mp_solve(mp_planner_find("greedy"), &p, NULL, 0, &sol, NULL), MP_OK);
  memcpy(b, a, n * sizeof *a);
  mp_exact_params prm = {.node_limit = 5000};
  mp_exact_result ra, rb;
  assert_int_equal(mp_exact_improve(&p, a, &prm, &ra, NULL), MP_OK);
  assert_int_equal(mp_exact_improve(&p, b, &prm, &rb, NULL), MP_OK);
  assert_memory_equal(a, b, n * sizeof *a);
  assert_int_equal(ra.nodes, rb.nodes);
  tu_check_layout(it, n, a);
  free(it);
  free(a);
  free(b);
}

/* A deadline that passes while the components are being built leaves the
 * given layout, with the lower bound the caller passed and an honest
 * interval. */
static void a_deadline_before_the_search_keeps_the_given_layout(void **state) {
  (void)state;
  uint32_t n = 400000; /* sorting them takes longer than the 1 ms limit */
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *off = calloc(n, sizeof *off);
  assert_non_null(it);
  assert_non_null(off);
  for (uint32_t i = 0; i < n; i++) {
    it[i] = (mp_item){16, (int32_t)(i / 2), (int32_t)(i / 2) + 1, 16, i};
    off[i] = 16 * (uint64_t)(i % 4);
  }
  mp_problem p = {n, it, 0};
  mp_exact_params prm = {.time_limit_ms = 1, .lower_bound = 64};
  mp_exact_result res;
  assert_int_equal(mp_exact_improve(&p, off, &prm, &res, NULL), MP_OK);
  assert_true(res.timed_out);
  assert_int_equal(res.lower_bound, 64);
  assert_int_equal(res.height, 64);
  assert_int_equal(res.proven_upper, 64);
  assert_int_equal(res.proven_lower, 64);
  for (uint32_t i = 0; i < n; i++) assert_int_equal(off[i], 16 * (uint64_t)(i % 4));
  free(it);
  free(off);
}

static void a_component_too_large_to_search_is_returned_as_given(void **state) {
  (void)state;
  /* a chain of 5000 buffers, each overlapping the next: one component,
   * above the search's size cap.  Stacked one above the other it is valid
   * but 2500 times too high; the interval stays honest. */
  uint32_t n = 5000;
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *off = calloc(n, sizeof *off);
  for (uint32_t i = 0; i < n; i++) {
    it[i] = (mp_item){16, (int32_t)i, (int32_t)i + 1, 16, i};
    off[i] = 16 * (uint64_t)i;
  }
  mp_problem p = {n, it, 0};
  mp_exact_params prm = {.time_limit_ms = 1000};
  mp_exact_result res;
  fake_clock_start(1000000, 1000); /* 1 ms a look */
  assert_int_equal(mp_exact_improve(&p, off, &prm, &res, NULL), MP_OK);
  mp_clock_set(NULL);
  /* skipped at once: far fewer looks at the clock than the limit's 1000 */
  assert_true(fake.late == 0);
  assert_true(fake.reads < 100);
  assert_true(res.skipped);
  assert_int_equal(res.height, 16 * (uint64_t)n);
  assert_int_equal(res.proven_upper, 16 * (uint64_t)n);
  assert_int_equal(res.proven_lower, 32);
  for (uint32_t i = 0; i < n; i++) assert_int_equal(off[i], 16 * (uint64_t)i);
  free(it);
  free(off);
}

/* ---- the generator -------------------------------------------------------------- */

static void hardgen_pieces_tile_the_rectangle(void **state) {
  (void)state;
  for (uint32_t n = 1; n <= 120; n += 17) {
    uint64_t *truth = calloc(n, sizeof *truth);
    mp_item *it = hard_instance(n, n, truth);
    mp_problem p = {n, it, 0};
    /* the pieces never overlap and fill every time step up to H exactly */
    assert_int_equal(tu_check_layout(it, n, truth), 1u << 20);
    assert_int_equal(mp_problem_lower_bound(&p), 1u << 20);
    uint64_t area = 0;
    for (uint32_t i = 0; i < n; i++) {
      assert_int_equal(it[i].id, i);
      assert_int_equal(it[i].align, 1);
      assert_true(it[i].size % 16 == 0 && it[i].size > 0);
      assert_true(it[i].start >= 0 && it[i].end < (int32_t)(4 * n) && it[i].start <= it[i].end);
      area += it[i].size * (uint64_t)(it[i].end - it[i].start + 1);
    }
    assert_int_equal(area, (uint64_t)(1u << 20) * 4 * n);
    free(it);
    free(truth);
  }
}

/* With a time grid every lifetime starts and ends on it, so many buffers
 * share a lifetime; the pieces still tile the rectangle. */
static void hardgen_cuts_time_on_its_grid(void **state) {
  (void)state;
  uint32_t n = 150, tu = 40;
  mp_item *it = calloc(n, sizeof *it);
  uint64_t *truth = calloc(n, sizeof *truth);
  assert_non_null(it);
  assert_non_null(truth);
  mp_hardgen_params hp = {n, 1u << 20, 4 * n, 4096, 31, tu};
  assert_int_equal(mp_hardgen_make(&hp, it, truth, NULL), MP_OK);
  assert_int_equal(tu_check_layout(it, n, truth), 1u << 20);
  uint32_t shared = 0;
  for (uint32_t i = 0; i < n; i++) {
    assert_int_equal(it[i].start % tu, 0);
    assert_int_equal((it[i].end + 1) % tu, 0);
    assert_int_equal(it[i].size % 4096, 0);
    for (uint32_t j = 0; j < i; j++)
      if (it[j].start == it[i].start && it[j].end == it[i].end) {
        shared++;
        break;
      }
  }
  /* 15 grid steps for 150 buffers: most share their lifetime with another */
  assert_true(shared > n / 2);
  free(it);
  free(truth);
}

static void hardgen_is_a_function_of_its_parameters(void **state) {
  (void)state;
  mp_item *a = hard_instance(100, 5, NULL), *b = hard_instance(100, 5, NULL);
  mp_item *c = hard_instance(100, 6, NULL);
  assert_memory_equal(a, b, 100 * sizeof *a);
  assert_memory_not_equal(a, c, 100 * sizeof *a);
  free(a);
  free(b);
  free(c);
}

static void hardgen_rejects_parameters_that_cannot_give_n_pieces(void **state) {
  (void)state;
  mp_item it[8];
  tu_diags d;
  tu_diags_init(&d);
  mp_hardgen_params bad[] = {
      {0, 1024, 10, 16, 1, 1},  /* no pieces */
      {8, 64, 10, 16, 1, 1},    /* 64 / 16 < 8 */
      {8, 1024, 4, 16, 1, 1},   /* span < n */
      {8, 1024, 10, 24, 1, 1},  /* unit not a power of two */
      {8, 1000, 10, 16, 1, 1},  /* height not a multiple of unit */
      {8, 1024, 10, 16, 1, 4},  /* time unit not dividing the span */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(mp_hardgen_make(&bad[i], it, NULL, &d.sink), MP_ERR_CONFIG);
  assert_int_equal(d.n_errors, 6);
}

static void hardgen_writes_the_solve_csv_format(void **state) {
  (void)state;
  mp_item it[3] = {{32, 0, 2, 1, 0}, {16, 3, 3, 1, 1}, {48, 1, 5, 1, 2}};
  mp_buf b;
  mp_buf_init(&b);
  mp_hardgen_write_csv(it, 3, &b);
  assert_string_equal(mp_buf_str(&b), "id,lower,upper,size\n0,0,3,32\n1,3,4,16\n2,1,6,48\n");
  mp_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exact_is_in_the_planner_table_with_its_options),
      cmocka_unit_test(exact_finds_the_brute_force_optimum_of_small_problems),
      cmocka_unit_test(a_capacity_below_the_optimum_is_proven_infeasible),
      cmocka_unit_test(an_optimum_above_the_lower_bound_is_proven),
      cmocka_unit_test(constructed_hard_instances_are_packed_at_exactly_h),
      cmocka_unit_test(one_granule_below_h_a_hard_instance_is_infeasible_at_once),
      cmocka_unit_test(a_tiny_time_limit_returns_promptly_with_a_valid_layout),
      cmocka_unit_test(a_time_limit_is_kept_on_a_search_that_cannot_finish),
      cmocka_unit_test(the_same_options_give_the_same_offsets),
      cmocka_unit_test(independent_components_are_solved_separately),
      cmocka_unit_test(every_corpus_arena_is_proven_optimal),
      cmocka_unit_test(empty_and_zero_size_problems_are_solved_at_height_zero),
      cmocka_unit_test(identical_buffers_are_stacked_once_not_in_every_order),
      cmocka_unit_test(improve_never_returns_a_worse_layout),
      cmocka_unit_test(improve_rejects_an_invalid_start_layout),
      cmocka_unit_test(improve_with_a_node_limit_is_deterministic),
      cmocka_unit_test(a_component_too_large_to_search_is_returned_as_given),
      cmocka_unit_test(a_deadline_before_the_search_keeps_the_given_layout),
      cmocka_unit_test(hardgen_pieces_tile_the_rectangle),
      cmocka_unit_test(hardgen_cuts_time_on_its_grid),
      cmocka_unit_test(hardgen_is_a_function_of_its_parameters),
      cmocka_unit_test(hardgen_rejects_parameters_that_cannot_give_n_pieces),
      cmocka_unit_test(hardgen_writes_the_solve_csv_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
