/*
 * test_platform.c — memory names and the built-in platforms of the README,
 * byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <string.h>

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static void memory_names_round_trip(void **state) {
  (void)state;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    mp_memory back;
    assert_true(mp_memory_from_name(mp_memory_name((mp_memory)m), &back));
    assert_int_equal(back, m);
  }
  assert_string_equal(mp_memory_name(MP_MEM_DTCM), "dtcm");
  assert_string_equal(mp_memory_name(MP_MEM_PSRAM), "psram");
}

static void memory_names_are_case_insensitive_on_input(void **state) {
  (void)state;
  mp_memory m = MP_MEM_COUNT;
  assert_true(mp_memory_from_name("DTCM", &m));
  assert_int_equal(m, MP_MEM_DTCM);
  assert_true(mp_memory_from_name("Sram", &m));
  assert_int_equal(m, MP_MEM_SRAM);
  assert_true(mp_memory_from_name("mRAM", &m));
  assert_int_equal(m, MP_MEM_MRAM);
}

static void unknown_memory_names_are_rejected(void **state) {
  (void)state;
  mp_memory m = MP_MEM_COUNT;
  assert_false(mp_memory_from_name("flash", &m));
  assert_false(mp_memory_from_name("", &m));
  assert_false(mp_memory_from_name("dtcm ", &m));
  assert_false(mp_memory_from_name("dtc", &m));
  assert_false(mp_memory_from_name(NULL, &m));
  assert_int_equal(m, MP_MEM_COUNT);
}

static void only_mram_is_read_only(void **state) {
  (void)state;
  assert_false(mp_memory_writable(MP_MEM_MRAM));
  assert_true(mp_memory_writable(MP_MEM_DTCM));
  assert_true(mp_memory_writable(MP_MEM_ITCM));
  assert_true(mp_memory_writable(MP_MEM_SRAM));
  assert_true(mp_memory_writable(MP_MEM_PSRAM));
}

static void builtin_names_are_the_four_of_the_spec(void **state) {
  (void)state;
  const char *const *n = mp_platform_builtin_names();
  assert_string_equal(n[0], "apollo510_evb");
  assert_string_equal(n[1], "apollo4p_evb");
  assert_string_equal(n[2], "apollo330p_evb");
  assert_string_equal(n[3], "apollo3p_evb");
  assert_null(n[4]);
  assert_true(mp_platform_builtin(MP_DEFAULT_PLATFORM, NULL));
}

/* Sizes indexed by mp_memory; 0 = absent. */
static void check(const char *name, uint64_t dtcm, uint64_t itcm, uint64_t mram, uint64_t psram,
                  uint64_t sram, const mp_memory *order, uint32_t n_order) {
  mp_platform p;
  memset(&p, 0xa5, sizeof p);
  assert_true(mp_platform_builtin(name, &p));
  assert_string_equal(p.name, name);
  const uint64_t want[MP_MEM_COUNT] = {dtcm, itcm, mram, psram, sram};
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    assert_int_equal(p.present[m], want[m] != 0);
    assert_int_equal(p.size[m], want[m]);
  }
  assert_int_equal(p.min_alignment, 16);
  assert_int_equal(p.n_order, n_order);
  for (uint32_t i = 0; i < n_order; i++) assert_int_equal(p.order[i], order[i]);
}

static void apollo510_evb_has_five_banks_and_prefers_dtcm_sram_psram_mram(void **state) {
  (void)state;
  const mp_memory order[] = {MP_MEM_DTCM, MP_MEM_SRAM, MP_MEM_PSRAM, MP_MEM_MRAM};
  check("apollo510_evb", 512 * KIB, 256 * KIB, 4 * MIB, 64 * MIB, 3 * MIB, order, 4);
}

static void apollo4p_evb_matches_the_spec(void **state) {
  (void)state;
  const mp_memory order[] = {MP_MEM_DTCM, MP_MEM_SRAM, MP_MEM_MRAM};
  check("apollo4p_evb", 384 * KIB, 0, 2000 * KIB, 0, 1 * MIB, order, 3);
}

static void apollo330p_evb_matches_the_spec(void **state) {
  (void)state;
  const mp_memory order[] = {MP_MEM_DTCM, MP_MEM_SRAM, MP_MEM_MRAM};
  check("apollo330p_evb", 240 * KIB, 0, 1984 * KIB, 0, 1792 * KIB, order, 3);
}

static void apollo3p_evb_matches_the_spec(void **state) {
  (void)state;
  const mp_memory order[] = {MP_MEM_DTCM, MP_MEM_SRAM, MP_MEM_MRAM};
  check("apollo3p_evb", 64 * KIB, 0, 2000 * KIB, 0, 700 * KIB, order, 3);
}

static void unknown_platform_names_are_not_found(void **state) {
  (void)state;
  mp_platform p;
  assert_false(mp_platform_builtin("apollo510", &p));
  assert_false(mp_platform_builtin("APOLLO510_EVB", &p));
  assert_false(mp_platform_builtin("", &p));
  assert_false(mp_platform_builtin(NULL, &p));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(memory_names_round_trip),
      cmocka_unit_test(memory_names_are_case_insensitive_on_input),
      cmocka_unit_test(unknown_memory_names_are_rejected),
      cmocka_unit_test(only_mram_is_read_only),
      cmocka_unit_test(builtin_names_are_the_four_of_the_spec),
      cmocka_unit_test(apollo510_evb_has_five_banks_and_prefers_dtcm_sram_psram_mram),
      cmocka_unit_test(apollo4p_evb_matches_the_spec),
      cmocka_unit_test(apollo330p_evb_matches_the_spec),
      cmocka_unit_test(apollo3p_evb_matches_the_spec),
      cmocka_unit_test(unknown_platform_names_are_not_found),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
