/*
 * test_residency.c — the pieces of the residency report and the summary
 * that are easy to get subtly wrong: the checksums (against published test
 * vectors), the names cut for table columns, the placement-reason texts, the
 * headroom units and the hint that names a better planner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "testutil.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static void sha256_matches_the_fips_180_test_vectors(void **state) {
  (void)state;
  char hex[65];
  mp_sha256_hex("", 0, hex);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  mp_sha256_hex("abc", 3, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes */
  mp_sha256_hex(two, strlen(two), hex);
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* a million 'a': many blocks */
  char *m = malloc(1000000);
  assert_non_null(m);
  memset(m, 'a', 1000000);
  mp_sha256_hex(m, 1000000, hex);
  free(m);
  assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  /* 64 bytes: the padding takes a block of its own */
  char b64[64];
  memset(b64, 'x', sizeof b64);
  mp_sha256_hex(b64, sizeof b64, hex);
  assert_string_equal(hex, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}

static void crc32_is_zlibs(void **state) {
  (void)state;
  assert_int_equal(mp_crc32("", 0), 0);
  assert_int_equal(mp_crc32("123456789", 9), 0xCBF43926u);
  assert_int_equal(mp_crc32("The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
}

static void long_names_keep_their_end_or_their_first_fused_part(void **state) {
  (void)state;
  char a[64], b[64];
  assert_string_equal(mp_name_fit("short", 20, a, sizeof a), "short");
  /* person detection's names: cut from the left at 32 columns, these read
   * "depthwise/depthwise_weights/read" alike */
  const char *x = "MobilenetV1/MobilenetV1/Conv2d_10_depthwise/depthwise_weights/read";
  const char *y = "MobilenetV1/MobilenetV1/Conv2d_11_depthwise/depthwise_weights/read";
  mp_name_fit(x, 48, a, sizeof a);
  mp_name_fit(y, 48, b, sizeof b);
  assert_int_equal(strlen(a), 48);
  assert_string_not_equal(a, b);
  assert_string_equal(a, "...V1/Conv2d_10_depthwise/depthwise_weights/read");
  /* fused names keep their first part */
  assert_string_equal(mp_name_fit("model/activation_21/Relu;model/batch_normalization_21/"
                                  "FusedBatchNormV3;model/depthwise_conv2d_10/depthwise",
                                  48, a, sizeof a),
                      "model/activation_21/Relu;...");
  /* never inside a UTF-8 character: 10 two-byte characters in 12 bytes
   * keep "..." and four whole characters */
  const char *u = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
  assert_string_equal(mp_name_fit(u, 12, a, sizeof a), "...\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
}

static void each_reason_reads_as_a_sentence(void **state) {
  (void)state;
  char t[128];
  mp_placement_reason r = {.kind = MP_REASON_PINNED, .rule = 2, .rule_key = "memory.tensors[2]",
                           .rule_file = "config.yaml", .rule_line = 14, .rule_column = 7};
  assert_string_equal(mp_reason_text(NULL, &r, -1, t, sizeof t), "pinned by rule 2 (config.yaml:14)");
  r.rule_file = NULL;
  assert_string_equal(mp_reason_text(NULL, &r, -1, t, sizeof t), "pinned by rule 2 (memory.tensors[2])");
  r = (mp_placement_reason){.kind = MP_REASON_SPILLED, .spilled_from = MP_MEM_DTCM,
                            .full_at_op = 5, .full_live = 8000, .full_capacity = 8192};
  assert_string_equal(mp_reason_text(NULL, &r, -1, t, sizeof t),
                      "spilled from dtcm: full at op 5 (8000 of 8192 B live)");
  r.full_at_op = -1;
  assert_string_equal(mp_reason_text(NULL, &r, -1, t, sizeof t),
                      "spilled from dtcm: 8000 of its 8192 B budget in use");
  r = (mp_placement_reason){.kind = MP_REASON_PREFERRED};
  assert_string_equal(mp_reason_text(NULL, &r, -1, t, sizeof t), "first in preference order");
  r.kind = MP_REASON_ALIAS;
  assert_string_equal(mp_reason_text(NULL, &r, 28, t, sizeof t), "alias of tensor 28");
  assert_string_equal(mp_reason_name(MP_REASON_SPILLED), "spilled");
}

typedef struct loaded {
  mp_model *m;
  mp_graph *g;
  mp_plan *p;
} loaded;

static void plan_kws(loaded *l, const char *planner, uint64_t dtcm_budget) {
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_int_equal(fx_kws(&bytes, &size), MP_OK);
  assert_int_equal(mp_model_parse(bytes, size, "kws", NULL, &l->m), MP_OK);
  free(bytes);
  assert_int_equal(mp_graph_build(l->m, 0, NULL, NULL, &l->g), MP_OK);
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = tu_args(planner, false);
  a.allocate_arenas = false;
  mp_constraint k[1] = {{MP_MEM_DTCM, true, dtcm_budget, 0}};
  a.constraints = k;
  a.n_constraints = 1;
  assert_int_equal(mp_plan_build(l->g, &pf, &a, NULL, &l->p), MP_OK);
  assert_int_equal(mp_plan_verify(l->p, NULL), MP_OK);
}

static void unload(loaded *l) {
  mp_plan_free(&l->p);
  mp_graph_free(&l->g);
  mp_model_free(&l->m);
}

static void headroom_is_in_mib_beside_mib_budgets(void **state) {
  (void)state;
  loaded l;
  plan_kws(&l, "greedy", 524288);
  char *s = mp_plan_summary(l.p, "kws", 1);
  assert_non_null(s);
  /* psram: 64 MiB free; mram: 4 MiB free; dtcm: KiB */
  assert_non_null(strstr(s, "64.00 MiB\n"));
  assert_non_null(strstr(s, " 4.00 MiB\n"));
  assert_null(strstr(s, "4096.0 KiB"));
  assert_non_null(strstr(s, "472.6 KiB\n"));
  free(s);
  unload(&l);
}

static void no_hint_when_the_plan_is_at_its_lower_bound(void **state) {
  (void)state;
  loaded l;
  plan_kws(&l, "greedy", 524288);
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  mp_plan_hint_result h;
  assert_int_equal(mp_plan_hint(l.p, &a, &h), MP_OK);
  assert_false(h.found);
  assert_int_equal(h.scratch, 16000);
  unload(&l);
}

static void the_hint_names_a_planner_that_needs_fewer_bytes(void **state) {
  (void)state;
  uint8_t *bytes = NULL;
  size_t size = 0;
  loaded l;
  memset(&l, 0, sizeof l);
  /* random DAG 5: greedy 14352 B against a lower bound of 12048 B */
  assert_int_equal(fx_random(5, 24, &bytes, &size), MP_OK);
  assert_int_equal(mp_model_parse(bytes, size, "r5", NULL, &l.m), MP_OK);
  free(bytes);
  assert_int_equal(mp_graph_build(l.m, 0, NULL, NULL, &l.g), MP_OK);
  assert_int_equal(mp_kernels_prepare(l.g, true, NULL), MP_OK);
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &l.p), MP_OK);
  mp_plan_hint_result h;
  assert_int_equal(mp_plan_hint(l.p, &a, &h), MP_OK);
  assert_true(h.found);
  assert_int_equal(h.scratch, 14352);
  assert_string_equal(h.planner, "hill_climb");
  assert_int_equal(h.alt_scratch, 12048);
  assert_int_equal(h.saved, 14352 - 12048);
  assert_true(h.reaches_bound);
  /* and the hinted planner really plans that */
  mp_plan *q = NULL;
  char name[] = "hill_climb";
  a.planner = name;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &q), MP_OK);
  assert_int_equal(mp_plan_verify(q, NULL), MP_OK);
  assert_int_equal(q->arenas[0].total_size, 12048);
  mp_plan_free(&q);
  unload(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sha256_matches_the_fips_180_test_vectors),
      cmocka_unit_test(crc32_is_zlibs),
      cmocka_unit_test(long_names_keep_their_end_or_their_first_fused_part),
      cmocka_unit_test(each_reason_reads_as_a_sentence),
      cmocka_unit_test(headroom_is_in_mib_beside_mib_budgets),
      cmocka_unit_test(no_hint_when_the_plan_is_at_its_lower_bound),
      cmocka_unit_test(the_hint_names_a_planner_that_needs_fewer_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
