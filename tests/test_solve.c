/*
 * test_solve.c — the CSV form of offset-assignment problems behind
 * `memplan solve` (src/planners/solve_csv.c): reading rows into planner items, the
 * errors a bad row gets (with its line), and the solution text.  The
 * command itself is covered by tests/suite_cli_solve.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static mp_csv_problem *parse_ok(const char *text, uint32_t alignment) {
  tu_diags d;
  tu_diags_init(&d);
  mp_csv_problem *p = NULL;
  mp_status st = mp_csv_problem_parse(text, strlen(text), "p.csv", alignment, &d.sink, &p);
  if (st != MP_OK) fail_msg("parse failed: %s", d.text);
  assert_int_equal(d.n_errors, 0);
  return p;
}

/* Parse text that must fail; returns the recorded diagnostics. */
static tu_diags parse_bad(const char *text, mp_status want) {
  tu_diags d;
  tu_diags_init(&d);
  mp_csv_problem *p = NULL;
  assert_int_equal(mp_csv_problem_parse(text, strlen(text), "p.csv", 1, &d.sink, &p), want);
  assert_null(p);
  assert_true(d.n_errors > 0);
  return d;
}

static void rows_become_items_with_inclusive_lifetimes(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("id,lower,upper,size\n"
                               "a,0,2,100\n"
                               "b,1,3,50\n"
                               "conv_out,3,4,7\n",
                               1);
  assert_int_equal(p->n, 3);
  assert_string_equal(p->ids[2], "conv_out");
  assert_int_equal(p->items[0].start, 0);
  assert_int_equal(p->items[0].end, 1); /* [0, 2) is ops 0 and 1 */
  assert_int_equal(p->items[1].start, 1);
  assert_int_equal(p->items[1].end, 2);
  assert_int_equal(p->items[2].size, 7);
  assert_int_equal(p->items[2].align, 1);
  assert_int_equal(p->items[2].id, 2);
  assert_int_equal(p->lines[2], 4);
  assert_int_equal(p->lower[1], 1);
  assert_int_equal(p->upper[1], 3);
  /* b and conv_out touch at 3 but do not overlap: [1, 3) and [3, 4) */
  assert_true(p->items[1].end < p->items[2].start);
  mp_csv_problem_free(&p);
  assert_null(p);
}

static void alignment_rounds_sizes_and_aligns_offsets(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("id,lower,upper,size\nx,0,1,17\ny,0,1,32\nz,0,1,0\n", 16);
  assert_int_equal(p->items[0].size, 32);
  assert_int_equal(p->items[0].align, 16);
  assert_int_equal(p->sizes[0], 17); /* as written, for the output */
  assert_int_equal(p->items[1].size, 32);
  assert_int_equal(p->items[2].size, 0);
  assert_int_equal(p->alignment, 16);
  mp_csv_problem_free(&p);
}

static void columns_may_come_in_any_order_and_offsets_are_ignored(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("# exported by some framework\r\n"
                               "\r\n"
                               " Size , upper,lower ,id,offset\r\n"
                               "  64 ,5, 2 ,t0,128\r\n"
                               "# a comment between rows\n"
                               "\n"
                               "8,9,0,t1,0\n",
                               1);
  assert_int_equal(p->n, 2);
  assert_string_equal(p->ids[0], "t0");
  assert_int_equal(p->items[0].size, 64);
  assert_int_equal(p->items[0].start, 2);
  assert_int_equal(p->items[0].end, 4);
  assert_int_equal(p->lines[0], 4);
  assert_int_equal(p->lines[1], 7);
  mp_csv_problem_free(&p);
}

static void times_outside_int32_become_ranks_with_the_same_overlaps(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("id,lower,upper,size\n"
                               "a,-5,10000000000,1\n"
                               "b,10000000000,10000000001,1\n"
                               "c,-7,-5,1\n"
                               "d,-6,-4,1\n",
                               1);
  /* distinct values: -7 -6 -5 -4 1e10 1e10+1 -> ranks 0..5 */
  const int32_t start[] = {2, 4, 0, 1}, end[] = {3, 4, 1, 2};
  for (size_t i = 0; i < 4; i++) {
    assert_int_equal(p->items[i].start, start[i]);
    assert_int_equal(p->items[i].end, end[i]);
  }
  assert_int_equal(p->lower[0], -5);
  assert_int_equal(p->upper[0], 10000000000LL);
  /* a and b touch (no overlap), c and d overlap, d and a overlap */
  assert_true(p->items[0].end < p->items[1].start);
  assert_true(p->items[3].start <= p->items[2].end);
  assert_true(p->items[0].start <= p->items[3].end);
  assert_false(p->items[2].end >= p->items[0].start);
  mp_csv_problem_free(&p);
}

static void a_header_alone_is_an_empty_problem(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("id,lower,upper,size\n", 1);
  assert_int_equal(p->n, 0);
  uint64_t off[1];
  mp_problem prob = {p->n, p->items, 0};
  mp_solution sol = {.offsets = off};
  assert_int_equal(mp_solve(mp_planner_find("greedy"), &prob, NULL, 0, &sol, NULL), MP_OK);
  char *text = mp_csv_solution_text(p, &sol, "greedy");
  assert_string_equal(text, "id,lower,upper,size,offset\n# height=0 lower_bound=0 planner=greedy\n");
  free(text);
  mp_csv_problem_free(&p);
}

/* MiniMalloc's current benchmark files name the columns buffer,start,end,size;
 * they mean id,lower,upper,size and the solution keeps the names. */
static void minimalloc_column_names_are_read_and_kept(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("buffer,start,end,size\nb0,0,3,4\nb1,3,9,4\nb2,0,9,4\n", 1);
  assert_int_equal(p->n, 3);
  assert_true(p->start_end_names);
  assert_string_equal(p->ids[1], "b1");
  assert_int_equal(p->items[1].start, 3);
  assert_int_equal(p->items[1].end, 8);
  assert_true(p->items[0].end < p->items[1].start); /* [0, 3) and [3, 9) touch */
  uint64_t off[3];
  mp_problem prob = {p->n, p->items, 0};
  mp_solution sol = {.offsets = off};
  assert_int_equal(mp_solve(mp_planner_find("greedy"), &prob, NULL, 0, &sol, NULL), MP_OK);
  char *text = mp_csv_solution_text(p, &sol, "greedy");
  assert_non_null(strstr(text, "buffer,start,end,size,offset\nb0,0,3,4,"));
  free(text);
  mp_csv_problem_free(&p);
  /* the two namings do not mix into a duplicate */
  tu_diags d = parse_bad("id,buffer,lower,upper,size\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "appears twice"));
  p = parse_ok("id,lower,upper,size\na,0,1,4\n", 1);
  assert_false(p->start_end_names);
  mp_csv_problem_free(&p);
}

static void bad_rows_are_reported_with_their_line_and_column(void **state) {
  (void)state;
  tu_diags d = parse_bad("id,lower,upper,size\n"
                         "a,0,2,100\n"
                         "b,x,3,50\n",
                         MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "'lower' must be an integer, not 'x'"));
  assert_int_equal(d.last_line, 3);
  assert_int_equal(d.last_column, 3);

  d = parse_bad("id,lower,upper,size\na,4,4,1\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "'upper' (4) must be greater than 'lower' (4)"));
  assert_int_equal(d.last_line, 2);

  d = parse_bad("id,lower,upper,size\na,0,1,-3\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "'size' must be a non-negative integer, not '-3'"));

  d = parse_bad("id,lower,upper,size\na,0,1,12abc\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "not '12abc'"));

  d = parse_bad("id,lower,upper,size\na,0,1\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "3 fields; the header has 4"));
  assert_int_equal(d.last_line, 2);

  d = parse_bad("id,lower,upper,size\n,0,1,4\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "empty id"));

  d = parse_bad("id,lower,upper,size\n\"a\",0,1,4\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "quoted fields are not supported"));

  d = parse_bad("id,lower,upper,size\na,0,99999999999999999999,4\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "'upper' must be an integer"));

  d = parse_bad("id,lower,upper,size\na,0,1,72057594037927937\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "too large"));
}

static void every_bad_row_is_reported_not_just_the_first(void **state) {
  (void)state;
  tu_diags d = parse_bad("id,lower,upper,size\n"
                         "a,0,1,1\n"
                         "b,1,0,1\n"
                         "c,0,1,1\n"
                         "d,0,1,zz\n",
                         MP_ERR_MODEL);
  assert_int_equal(d.n_errors, 2);
  assert_int_equal(d.last_line, 5);
}

static void reporting_stops_after_twenty_bad_rows(void **state) {
  (void)state;
  char text[4096] = "id,lower,upper,size\n";
  for (int i = 0; i < 50; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "r%d,1,1,1\n", i);
  tu_diags d = parse_bad(text, MP_ERR_MODEL);
  assert_int_equal(d.n_errors, 20);
  assert_true(tu_diags_has(&d, "too many errors"));
}

static void header_problems_are_reported(void **state) {
  (void)state;
  tu_diags d = parse_bad("id,lower,uper,size\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "unknown column 'uper' in the header"));
  assert_int_equal(d.last_line, 1);
  assert_int_equal(d.last_column, 10);
  d = parse_bad("id,lower,size\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "the header has no 'upper' column"));
  d = parse_bad("id,lower,upper,size,size\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "column 'size' appears twice"));
  d = parse_bad("", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "empty problem"));
  d = parse_bad("# only a comment\n\n", MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "empty problem"));
}

static void duplicate_ids_name_the_first_line(void **state) {
  (void)state;
  tu_diags d = parse_bad("id,lower,upper,size\n"
                         "a,0,1,1\n"
                         "b,0,1,1\n"
                         "a,2,3,1\n"
                         "b,2,3,1\n",
                         MP_ERR_MODEL);
  assert_int_equal(d.n_errors, 2);
  assert_true(tu_diags_has(&d, "duplicate id 'a' (first on line 2)\n"
                               "error: duplicate id 'b' (first on line 3)"));
  assert_int_equal(d.last_line, 5);
}

static void a_bad_alignment_is_refused(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_csv_problem *p = NULL;
  const char *t = "id,lower,upper,size\n";
  assert_int_equal(mp_csv_problem_parse(t, strlen(t), "p.csv", 24, &d.sink, &p), MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "not a power of two"));
}

static void binary_input_is_refused(void **state) {
  (void)state;
  const char text[] = "id,lower,upper,size\na,0,1,\0\n";
  tu_diags d;
  tu_diags_init(&d);
  mp_csv_problem *p = NULL;
  assert_int_equal(mp_csv_problem_parse(text, sizeof text - 1, "p.csv", 1, &d.sink, &p),
                   MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "NUL byte"));
}

static void a_missing_file_is_an_io_error(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_csv_problem *p = NULL;
  assert_int_equal(mp_csv_problem_read("/nonexistent/p.csv", 1, &d.sink, &p), MP_ERR_IO);
  assert_null(p);
}

static void the_solution_text_adds_offsets_and_the_height(void **state) {
  (void)state;
  const char *in = "id,lower,upper,size\n"
                   "a,0,2,100\n"
                   "b,1,3,50\n"
                   "c,2,4,100\n";
  mp_csv_problem *p = parse_ok(in, 1);
  uint64_t off[3];
  mp_problem prob = {p->n, p->items, 0};
  mp_solution sol = {.offsets = off};
  assert_int_equal(mp_solve(mp_planner_find("greedy"), &prob, NULL, 0, &sol, NULL), MP_OK);
  char *text = mp_csv_solution_text(p, &sol, "greedy");
  assert_string_equal(text, "id,lower,upper,size,offset\n"
                            "a,0,2,100,0\n"
                            "b,1,3,50,100\n"
                            "c,2,4,100,0\n"
                            "# height=150 lower_bound=150 planner=greedy\n");
  /* and it reads back as the same problem */
  mp_csv_problem *q = parse_ok(text, 1);
  assert_int_equal(q->n, 3);
  for (size_t i = 0; i < 3; i++) {
    assert_string_equal(q->ids[i], p->ids[i]);
    assert_memory_equal(&q->items[i], &p->items[i], sizeof p->items[i]);
  }
  free(text);
  mp_csv_problem_free(&q);
  mp_csv_problem_free(&p);
}

static void the_solution_keeps_sizes_as_written_under_alignment(void **state) {
  (void)state;
  mp_csv_problem *p = parse_ok("id,lower,upper,size\nx,0,1,17\ny,0,1,5\n", 16);
  uint64_t off[2];
  mp_problem prob = {p->n, p->items, 0};
  mp_solution sol = {.offsets = off};
  assert_int_equal(mp_solve(mp_planner_find("greedy_by_size"), &prob, NULL, 0, &sol, NULL), MP_OK);
  char *text = mp_csv_solution_text(p, &sol, "greedy_by_size");
  assert_string_equal(text, "id,lower,upper,size,offset\n"
                            "x,0,1,17,0\n"
                            "y,0,1,5,32\n"
                            "# height=48 lower_bound=48 planner=greedy_by_size\n");
  free(text);
  mp_csv_problem_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rows_become_items_with_inclusive_lifetimes),
      cmocka_unit_test(alignment_rounds_sizes_and_aligns_offsets),
      cmocka_unit_test(columns_may_come_in_any_order_and_offsets_are_ignored),
      cmocka_unit_test(times_outside_int32_become_ranks_with_the_same_overlaps),
      cmocka_unit_test(a_header_alone_is_an_empty_problem),
      cmocka_unit_test(minimalloc_column_names_are_read_and_kept),
      cmocka_unit_test(bad_rows_are_reported_with_their_line_and_column),
      cmocka_unit_test(every_bad_row_is_reported_not_just_the_first),
      cmocka_unit_test(reporting_stops_after_twenty_bad_rows),
      cmocka_unit_test(header_problems_are_reported),
      cmocka_unit_test(duplicate_ids_name_the_first_line),
      cmocka_unit_test(a_bad_alignment_is_refused),
      cmocka_unit_test(binary_input_is_refused),
      cmocka_unit_test(a_missing_file_is_an_io_error),
      cmocka_unit_test(the_solution_text_adds_offsets_and_the_height),
      cmocka_unit_test(the_solution_keeps_sizes_as_written_under_alignment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
