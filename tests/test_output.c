/*
 * test_output.c — writing a module folder all at once (src/emit/output.c): a
 * commit into a new folder and into an existing one, the manifest and what
 * the next commit removes by it (and what it never removes), and every
 * failure leaving the folder, the extra file and the folder's parents as
 * they were, with no staging folder behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/output.h"
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[256];

static const char *at(const char *rel) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", base, rel);
  return buf[k];
}

static bool exists(const char *rel) {
  struct stat st;
  return stat(at(rel), &st) == 0;
}

static char *text(const char *rel) { return tu_read_text(at(rel), NULL); }

static void put(const char *rel, const char *s) {
  FILE *f = fopen(at(rel), "wb");
  assert_non_null(f);
  fputs(s, f);
  fclose(f);
}

/* Entries of `base` other than the ones named (a staging folder left
 * behind would show here). */
static int others(const char *keep1, const char *keep2) {
  DIR *d = opendir(base);
  assert_non_null(d);
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    if ((keep1 && !strcmp(de->d_name, keep1)) || (keep2 && !strcmp(de->d_name, keep2))) continue;
    size_t l = strlen(de->d_name);
    if (l > 13 && !strcmp(de->d_name + l - 13, ".memplan-lock")) continue; /* the folder's lock */
    n++;
  }
  closedir(d);
  return n;
}

static void fresh(void) {
  const char *t = tu_tmpdir();
  assert_non_null(t);
  snprintf(base, sizeof base, "%s", t);
}

static mp_status write_module(const char *dir, const char *const *files, size_t n,
                              const char *extra, tu_diags *d) {
  tu_diags_init(d);
  mp_out *o = NULL;
  mp_status st = mp_out_begin(at(dir), &d->sink, &o);
  for (size_t i = 0; i < n && st == MP_OK; i++) st = mp_out_add(o, files[i], files[i], strlen(files[i]));
  if (st == MP_OK && extra) st = mp_out_add_extra(o, at(extra), "report", 6);
  if (st == MP_OK) st = mp_out_commit(o);
  mp_out_free(&o);
  return st;
}

static void a_new_folder_appears_whole_with_its_manifest(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *files[] = {"include/a_model.h", "src/a_model.c", "module.mk"};
  assert_int_equal(write_module("out", files, 3, "r.html", &d), MP_OK);
  char *h = text("out/include/a_model.h"), *m = text("out/" MP_OUT_MANIFEST), *r = text("r.html");
  assert_string_equal(h, "include/a_model.h");
  assert_string_equal(r, "report");
  assert_non_null(strstr(m, "\ninclude/a_model.h\nsrc/a_model.c\nmodule.mk\n"));
  assert_int_equal(others("out", "r.html"), 0);
  free(h);
  free(m);
  free(r);
  tu_rmtree(base);
}

static void the_next_commit_removes_only_what_the_manifest_lists(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *first[] = {"include/a_model.h", "src/a_model.c", "data/a_blob.bin"};
  assert_int_equal(write_module("out", first, 3, NULL, &d), MP_OK);
  put("out/notes.txt", "mine");
  put("victim.txt", "keep");
  /* a hand-edited manifest naming files outside the folder */
  FILE *f = fopen(at("out/" MP_OUT_MANIFEST), "ab");
  assert_non_null(f);
  fputs("../victim.txt\n/etc/hostname\nsrc/../../victim.txt\nnotes.txt/\n", f);
  fclose(f);
  const char *second[] = {"include/b_model.h", "src/b_model.c"};
  assert_int_equal(write_module("out", second, 2, NULL, &d), MP_OK);
  assert_false(exists("out/include/a_model.h"));
  assert_false(exists("out/src/a_model.c"));
  assert_false(exists("out/data")); /* emptied, so removed */
  assert_true(exists("out/include/b_model.h"));
  assert_true(exists("out/notes.txt"));
  assert_true(exists("victim.txt"));
  char *m = text("out/" MP_OUT_MANIFEST);
  assert_null(strstr(m, "a_model"));
  free(m);
  assert_int_equal(others("out", "victim.txt"), 0);
  tu_rmtree(base);
}

static void a_folder_in_the_way_fails_before_any_file_moves(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *files[] = {"include/a_model.h", "kernels/mpk_conv.c"};
  assert_int_equal(write_module("out", files, 2, NULL, &d), MP_OK);
  put("out/include/a_model.h", "old header");
  assert_int_equal(unlink(at("out/kernels/mpk_conv.c")), 0);
  assert_int_equal(mkdir(at("out/kernels/mpk_conv.c"), 0777), 0);
  assert_int_equal(write_module("out", files, 2, "r.html", &d), MP_ERR_IO);
  assert_true(tu_diags_has(&d, "where the module needs a file"));
  char *h = text("out/include/a_model.h");
  assert_string_equal(h, "old header"); /* not replaced */
  free(h);
  assert_false(exists("r.html"));
  assert_int_equal(others("out", NULL), 0);
  tu_rmtree(base);
}

/* Two writers staged: out_a with its file names as contents, out_b "new". */
static void stage_two(mp_out **o, const char *const *a_files, const char *const *b_files,
                      tu_diags *d) {
  assert_int_equal(mp_out_begin(at("out_a"), &d->sink, &o[0]), MP_OK);
  assert_int_equal(mp_out_begin(at("out_b"), &d->sink, &o[1]), MP_OK);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(mp_out_add(o[0], a_files[i], a_files[i], strlen(a_files[i])), MP_OK);
    assert_int_equal(mp_out_add(o[1], b_files[i], "new", 3), MP_OK);
  }
}

/* Several module folders committed as one (a models: list): the second
 * one's destination blocked, so neither the new first folder appears nor
 * the existing second one changes. */
static void several_folders_change_together_or_not_at_all(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *b_files[] = {"include/b_model.h", "src/b_model.c"};
  assert_int_equal(write_module("out_b", b_files, 2, NULL, &d), MP_OK);
  put("out_b/include/b_model.h", "old b header");
  assert_int_equal(unlink(at("out_b/src/b_model.c")), 0);
  assert_int_equal(mkdir(at("out_b/src/b_model.c"), 0777), 0);

  tu_diags_init(&d);
  mp_out *o[2] = {NULL, NULL};
  const char *a_files[] = {"include/a_model.h", "src/a_model.c"};
  stage_two(o, a_files, b_files, &d);
  assert_int_equal(mp_out_commit_all(o, 2), MP_ERR_IO);
  assert_true(tu_diags_has(&d, "where the module needs a file"));
  mp_out_free(&o[0]);
  mp_out_free(&o[1]);
  assert_false(exists("out_a"));
  char *h = text("out_b/include/b_model.h");
  assert_string_equal(h, "old b header");
  free(h);
  assert_int_equal(others("out_b", NULL), 0); /* no staging folder left */

  /* with the way clear, both appear */
  assert_int_equal(rmdir(at("out_b/src/b_model.c")), 0);
  tu_diags_init(&d);
  stage_two(o, a_files, b_files, &d);
  assert_int_equal(mp_out_commit_all(o, 2), MP_OK);
  mp_out_free(&o[0]);
  mp_out_free(&o[1]);
  h = text("out_b/include/b_model.h");
  assert_string_equal(h, "new");
  free(h);
  assert_true(exists("out_a/src/a_model.c"));
  assert_true(exists("out_a/" MP_OUT_MANIFEST));
  assert_int_equal(others("out_a", "out_b"), 0);
  tu_rmtree(base);
}

static void an_extra_file_in_a_missing_folder_fails_and_writes_nothing(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *files[] = {"module.mk"};
  assert_int_equal(write_module("new/deep/out", files, 1, "nodir/r.html", &d), MP_ERR_IO);
  assert_true(tu_diags_has(&d, "cannot write"));
  assert_false(exists("new")); /* the parents begin created are gone again */
  assert_int_equal(others(NULL, NULL), 0);
  tu_rmtree(base);
}

static void a_module_path_that_is_a_file_fails(void **state) {
  (void)state;
  fresh();
  put("out", "a file");
  tu_diags d;
  const char *files[] = {"module.mk"};
  assert_int_equal(write_module("out", files, 1, NULL, &d), MP_ERR_IO);
  assert_true(tu_diags_has(&d, "module.path is not a folder"));
  char *t = text("out");
  assert_string_equal(t, "a file");
  free(t);
  assert_int_equal(others("out", NULL), 0);
  tu_rmtree(base);
}

static void names_that_leave_the_folder_are_refused(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  tu_diags_init(&d);
  static const char *const bad[] = {"../x", "/etc/x", "a//b", "a/./b", "", "a/", MP_OUT_MANIFEST};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mp_out *o = NULL;
    assert_int_equal(mp_out_begin(at("out"), &d.sink, &o), MP_OK);
    assert_int_equal(mp_out_add(o, bad[i], "x", 1), MP_ERR_INTERNAL);
    assert_int_equal(mp_out_commit(o), MP_ERR_IO); /* sticky */
    mp_out_free(&o);
  }
  assert_int_equal(others(NULL, NULL), 0);
  tu_rmtree(base);
}

static void an_uncommitted_writer_leaves_nothing(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  tu_diags_init(&d);
  mp_out *o = NULL;
  assert_int_equal(mp_out_begin(at("a/b/out"), &d.sink, &o), MP_OK);
  assert_int_equal(mp_out_add(o, "src/x.c", "x", 1), MP_OK);
  assert_int_equal(mp_out_add_extra(o, at("r.html"), "r", 1), MP_OK);
  mp_out_free(&o);
  assert_null(o);
  assert_int_equal(others(NULL, NULL), 0);
  tu_rmtree(base);
}


/* A manifest entry below a link the user put in the folder: the link is
 * kept as a link, and nothing it points to is removed or read. */
static void a_link_in_the_folder_is_never_followed(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *first[] = {"include/a_model.h"};
  assert_int_equal(write_module("out", first, 1, NULL, &d), MP_OK);
  assert_int_equal(mkdir(at("elsewhere"), 0777), 0);
  put("elsewhere/file.txt", "keep");
  assert_int_equal(symlink("../elsewhere", at("out/link")), 0);
  FILE *f = fopen(at("out/" MP_OUT_MANIFEST), "ab");
  assert_non_null(f);
  fputs("link/file.txt\n", f);
  fclose(f);
  const char *second[] = {"include/b_model.h"};
  assert_int_equal(write_module("out", second, 1, NULL, &d), MP_OK);
  char *t = text("elsewhere/file.txt");
  assert_string_equal(t, "keep");
  free(t);
  struct stat st;
  assert_int_equal(lstat(at("out/link"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_false(exists("out/include/a_model.h"));
  tu_rmtree(base);
}

/* A file memplan did not write where the module needs one: nothing
 * changes and the file is named, unless forced; other files of the user
 * are kept either way. */
static void a_foreign_file_is_never_clobbered_unless_forced(void **state) {
  (void)state;
  fresh();
  assert_int_equal(mkdir(at("out"), 0777), 0);
  put("out/CMakeLists.txt", "mine");
  put("out/main.c", "my main");
  tu_diags d;
  const char *files[] = {"include/a_model.h", "CMakeLists.txt"};
  assert_int_equal(write_module("out", files, 2, NULL, &d), MP_ERR_IO);
  assert_true(tu_diags_has(&d, "memplan did not write this file"));
  assert_true(tu_diags_has(&d, "--force"));
  char *t = text("out/CMakeLists.txt");
  assert_string_equal(t, "mine");
  free(t);
  assert_false(exists("out/include"));
  assert_int_equal(others("out", NULL), 0);

  tu_diags_init(&d);
  mp_out *o = NULL;
  assert_int_equal(mp_out_begin(at("out"), &d.sink, &o), MP_OK);
  mp_out_force(o, true);
  for (int i = 0; i < 2; i++) assert_int_equal(mp_out_add(o, files[i], "new", 3), MP_OK);
  assert_int_equal(mp_out_commit(o), MP_OK);
  mp_out_free(&o);
  t = text("out/CMakeLists.txt");
  assert_string_equal(t, "new");
  free(t);
  t = text("out/main.c");
  assert_string_equal(t, "my main");
  free(t);
  assert_int_equal(others("out", NULL), 0);
  tu_rmtree(base);
}

/* What a killed convert leaves beside the folder is removed by the next
 * one, which says so. */
static void the_next_writer_removes_a_stale_staging_folder(void **state) {
  (void)state;
  fresh();
  tu_diags d;
  const char *files[] = {"module.mk"};
  assert_int_equal(write_module("out", files, 1, NULL, &d), MP_OK);
  assert_int_equal(mkdir(at(".out.memplan-AbC123"), 0777), 0);
  put(".out.memplan-AbC123/module.mk", "half");
  assert_int_equal(write_module("out", files, 1, NULL, &d), MP_OK);
  assert_true(tu_diags_has(&d, "left by an interrupted convert"));
  assert_false(exists(".out.memplan-AbC123"));
  assert_int_equal(others("out", NULL), 0);
  tu_rmtree(base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_new_folder_appears_whole_with_its_manifest),
      cmocka_unit_test(the_next_commit_removes_only_what_the_manifest_lists),
      cmocka_unit_test(a_folder_in_the_way_fails_before_any_file_moves),
      cmocka_unit_test(several_folders_change_together_or_not_at_all),
      cmocka_unit_test(an_extra_file_in_a_missing_folder_fails_and_writes_nothing),
      cmocka_unit_test(a_module_path_that_is_a_file_fails),
      cmocka_unit_test(names_that_leave_the_folder_are_refused),
      cmocka_unit_test(an_uncommitted_writer_leaves_nothing),
      cmocka_unit_test(a_link_in_the_folder_is_never_followed),
      cmocka_unit_test(a_foreign_file_is_never_clobbered_unless_forced),
      cmocka_unit_test(the_next_writer_removes_a_stale_staging_folder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
