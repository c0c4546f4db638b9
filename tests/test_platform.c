/*
 * test_platform.c — memory tables (the seed memories' fixed slots, named
 * memories, read-only ones) and the built-in platforms, byte for byte.
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

static void the_seed_memories_keep_their_slots_and_names(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("apollo4p_evb", &p));
  static const char *const names[] = {"dtcm", "itcm", "mram", "psram", "sram"};
  for (int m = 0; m < MP_MEM_FIRST_NAMED; m++) {
    mp_memory back = MP_MEM_COUNT;
    assert_string_equal(mp_platform_memory_name(&p, (mp_memory)m), names[m]);
    assert_true(mp_platform_find_memory(&p, names[m], &back));
    assert_int_equal(back, m);
  }
  /* absent seed memories still resolve by name */
  assert_false(p.present[MP_MEM_ITCM]);
  assert_string_equal(mp_platform_memory_name(&p, (mp_memory)MP_MEM_COUNT), "?");
}

static void memory_names_are_case_insensitive_on_input(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("stm32h743", &p));
  mp_memory m = MP_MEM_COUNT;
  assert_true(mp_platform_find_memory(&p, "DTCM", &m));
  assert_int_equal(m, MP_MEM_DTCM);
  assert_true(mp_platform_find_memory(&p, "Axi_SRAM", &m));
  assert_string_equal(mp_platform_memory_name(&p, m), "axi_sram");
  assert_true(m >= MP_MEM_FIRST_NAMED);
}

static void unknown_memory_names_are_rejected(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("apollo510_evb", &p));
  mp_memory m = MP_MEM_COUNT;
  assert_false(mp_platform_find_memory(&p, "flash", &m));
  assert_false(mp_platform_find_memory(&p, "", &m));
  assert_false(mp_platform_find_memory(&p, "dtcm ", &m));
  assert_false(mp_platform_find_memory(&p, "dtc", &m));
  assert_false(mp_platform_find_memory(&p, NULL, &m));
  assert_int_equal(m, MP_MEM_COUNT);
}

static void mram_and_flash_are_read_only_the_rest_writable(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("apollo510_evb", &p));
  assert_false(mp_platform_writable(&p, MP_MEM_MRAM));
  assert_true(mp_platform_writable(&p, MP_MEM_DTCM));
  assert_true(mp_platform_writable(&p, MP_MEM_ITCM));
  assert_true(mp_platform_writable(&p, MP_MEM_SRAM));
  assert_true(mp_platform_writable(&p, MP_MEM_PSRAM));
  assert_true(mp_platform_builtin("stm32h743", &p));
  mp_memory flash;
  assert_true(mp_platform_find_memory(&p, "flash", &flash));
  assert_false(mp_platform_writable(&p, flash));
  assert_false(mp_platform_writable(&p, MP_MEM_SRAM)); /* absent */
}

static void added_memories_are_lower_case_identifiers_and_the_table_is_bounded(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("apollo3p_evb", &p));
  mp_memory m, again;
  assert_true(mp_platform_add_memory(&p, "SDRAM", &m));
  assert_string_equal(mp_platform_memory_name(&p, m), "sdram");
  assert_false(p.present[m]);
  assert_true(mp_platform_add_memory(&p, "sdram", &again));
  assert_int_equal(again, m);
  assert_false(mp_platform_add_memory(&p, "2fast", &m));
  assert_false(mp_platform_add_memory(&p, "a-b", &m));
  assert_false(mp_platform_add_memory(&p, "", &m));
  char name[16];
  uint32_t added = 1;
  for (uint32_t i = 0; i < MP_MEM_COUNT; i++) {
    snprintf(name, sizeof name, "bank%u", i);
    if (mp_platform_add_memory(&p, name, &m)) added++;
  }
  assert_int_equal(added, MP_MEM_COUNT - MP_MEM_FIRST_NAMED);
  assert_int_equal(p.n_memories, MP_MEM_COUNT);
}

static void memories_list_by_name(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("stm32h743", &p));
  mp_memory out[MP_MEM_COUNT];
  uint32_t n = mp_platform_by_name(&p, out);
  static const char *const want[] = {"axi_sram", "dtcm", "flash", "itcm",
                                     "sram1",    "sram2", "sram3", "sram4"};
  assert_int_equal(n, 8);
  for (uint32_t i = 0; i < n; i++) assert_string_equal(mp_platform_memory_name(&p, out[i]), want[i]);
}

static void builtin_names_are_the_ambiq_boards_then_the_others(void **state) {
  (void)state;
  const char *const *n = mp_platform_builtin_names();
  static const char *const want[] = {"apollo510_evb", "apollo4p_evb",  "apollo330p_evb",
                                     "apollo3p_evb",  "stm32h743",     "imxrt1060_evk",
                                     "esp32s3_devkitc"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    assert_string_equal(n[i], want[i]);
    assert_true(mp_platform_builtin(n[i], NULL));
  }
  assert_null(n[sizeof want / sizeof want[0]]);
  assert_true(mp_platform_builtin(MP_DEFAULT_PLATFORM, NULL));
}

/* Sizes indexed by mp_memory; 0 = absent. */
static void check(const char *name, uint64_t dtcm, uint64_t itcm, uint64_t mram, uint64_t psram,
                  uint64_t sram, const mp_memory *order, uint32_t n_order) {
  mp_platform p;
  memset(&p, 0xa5, sizeof p);
  assert_true(mp_platform_builtin(name, &p));
  assert_string_equal(p.name, name);
  const uint64_t want[MP_MEM_FIRST_NAMED] = {dtcm, itcm, mram, psram, sram};
  assert_int_equal(p.n_memories, MP_MEM_FIRST_NAMED);
  for (int m = 0; m < MP_MEM_FIRST_NAMED; m++) {
    assert_int_equal(p.present[m], want[m] != 0);
    assert_int_equal(p.size[m], want[m]);
    assert_int_equal(p.read_only[m], m == MP_MEM_MRAM);
    assert_int_equal(p.alignment[m], 0);
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

/* One memory of a built-in: its size, whether read-only, its alignment. */
static void check_memory(const mp_platform *p, const char *name, uint64_t size, bool ro,
                         uint32_t align) {
  mp_memory m;
  if (!mp_platform_find_memory(p, name, &m)) fail_msg("%s has no memory %s", p->name, name);
  assert_true(p->present[m]);
  assert_int_equal(p->size[m], size);
  assert_int_equal(p->read_only[m], ro);
  assert_int_equal(p->alignment[m], align);
}

static void check_order(const mp_platform *p, const char *const *names, uint32_t n) {
  assert_int_equal(p->n_order, n);
  for (uint32_t i = 0; i < n; i++) assert_string_equal(mp_platform_memory_name(p, p->order[i]), names[i]);
}

static uint32_t count_present(const mp_platform *p) {
  uint32_t n = 0;
  for (int m = 0; m < MP_MEM_COUNT; m++) n += p->present[m];
  return n;
}

static void stm32h743_has_the_reference_manuals_banks(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("stm32h743", &p));
  check_memory(&p, "itcm", 64 * KIB, false, 0);
  check_memory(&p, "dtcm", 128 * KIB, false, 0);
  check_memory(&p, "axi_sram", 512 * KIB, false, 32);
  check_memory(&p, "sram1", 128 * KIB, false, 32);
  check_memory(&p, "sram2", 128 * KIB, false, 32);
  check_memory(&p, "sram3", 32 * KIB, false, 32);
  check_memory(&p, "sram4", 64 * KIB, false, 32);
  check_memory(&p, "flash", 2 * MIB, true, 0);
  assert_int_equal(count_present(&p), 8);
  static const char *const order[] = {"dtcm", "axi_sram", "sram1", "sram2", "sram3", "sram4", "flash"};
  check_order(&p, order, 7);
}

static void imxrt1060_evk_has_flexram_ocram_and_flexspi_flash(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("imxrt1060_evk", &p));
  check_memory(&p, "itcm", 128 * KIB, false, 0);
  check_memory(&p, "dtcm", 128 * KIB, false, 0);
  check_memory(&p, "ocram", 768 * KIB, false, 32);
  check_memory(&p, "flash", 8 * MIB, true, 0);
  assert_int_equal(count_present(&p), 4);
  static const char *const order[] = {"dtcm", "ocram", "flash"};
  check_order(&p, order, 3);
}

static void esp32s3_devkitc_has_sram_psram_and_flash(void **state) {
  (void)state;
  mp_platform p;
  assert_true(mp_platform_builtin("esp32s3_devkitc", &p));
  check_memory(&p, "sram", 512 * KIB, false, 0);
  check_memory(&p, "psram", 8 * MIB, false, 0);
  check_memory(&p, "flash", 8 * MIB, true, 0);
  assert_int_equal(count_present(&p), 3);
  static const char *const order[] = {"sram", "psram", "flash"};
  check_order(&p, order, 3);
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
      cmocka_unit_test(the_seed_memories_keep_their_slots_and_names),
      cmocka_unit_test(memory_names_are_case_insensitive_on_input),
      cmocka_unit_test(unknown_memory_names_are_rejected),
      cmocka_unit_test(mram_and_flash_are_read_only_the_rest_writable),
      cmocka_unit_test(added_memories_are_lower_case_identifiers_and_the_table_is_bounded),
      cmocka_unit_test(memories_list_by_name),
      cmocka_unit_test(builtin_names_are_the_ambiq_boards_then_the_others),
      cmocka_unit_test(apollo510_evb_has_five_banks_and_prefers_dtcm_sram_psram_mram),
      cmocka_unit_test(apollo4p_evb_matches_the_spec),
      cmocka_unit_test(apollo330p_evb_matches_the_spec),
      cmocka_unit_test(apollo3p_evb_matches_the_spec),
      cmocka_unit_test(stm32h743_has_the_reference_manuals_banks),
      cmocka_unit_test(imxrt1060_evk_has_flexram_ocram_and_flexspi_flash),
      cmocka_unit_test(esp32s3_devkitc_has_sram_psram_and_flash),
      cmocka_unit_test(unknown_platform_names_are_not_found),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
