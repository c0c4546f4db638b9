/*
 * test_plan.c — the plan driver and the verifier: banks, budgets, spilling,
 * alignment, determinism, and the verifier catching corrupted plans.
 *
 * Uses the shared corpus (skipped with a notice when absent) and the
 * project's own fixture models.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static mp_platform platform(uint64_t dtcm, uint64_t sram) {
  mp_platform p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "test");
  p.present[MP_MEM_DTCM] = true;
  p.size[MP_MEM_DTCM] = dtcm;
  p.present[MP_MEM_SRAM] = true;
  p.size[MP_MEM_SRAM] = sram;
  p.present[MP_MEM_MRAM] = true;
  p.size[MP_MEM_MRAM] = 4u << 20;
  p.min_alignment = 16;
  p.n_order = 3;
  p.order[0] = MP_MEM_DTCM;
  p.order[1] = MP_MEM_SRAM;
  p.order[2] = MP_MEM_MRAM;
  return p;
}

static char planner_name[32];

/* Memory args naming `planner` (copied into a static buffer). */
static mp_memory_args args(const char *planner) {
  mp_memory_args a;
  memset(&a, 0, sizeof a);
  snprintf(planner_name, sizeof planner_name, "%s", planner);
  a.planner = planner_name;
  a.allocate_arenas = true;
  return a;
}

typedef struct loaded {
  mp_model *m;
  mp_graph *g;
} loaded;

static bool load(const char *name, loaded *l) {
  memset(l, 0, sizeof *l);
  const char *path = tu_model_path(name);
  if (!path) return false;
  assert_int_equal(mp_model_load(path, NULL, &l->m), MP_OK);
  assert_int_equal(mp_graph_build(l->m, 0, NULL, NULL, &l->g), MP_OK);
  return true;
}

static void unload(loaded *l) {
  mp_graph_free(&l->g);
  mp_model_free(&l->m);
}

static const mp_arena *find_arena(const mp_plan *p, mp_role role, mp_memory m) {
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == role && p->arenas[i].memory == m) return &p->arenas[i];
  return NULL;
}

static void every_planner_plans_every_corpus_model_and_the_verifier_agrees(void **state) {
  (void)state;
  const char *const *names = tu_model_names();
  if (!names) skip();
  mp_platform pf = platform(512 * 1024, 3 << 20);
  for (size_t i = 0; names[i]; i++) {
    loaded l;
    load(names[i], &l);
    for (uint32_t k = 0; k < mp_planner_count(); k++) {
      const mp_planner *pl = mp_planner_at(k);
      if (!strcmp(pl->name, "exact")) continue; /* covered by its own tests */
      mp_memory_args a = args(pl->name);
      mp_plan *p = NULL;
      tu_diags d;
      tu_diags_init(&d);
      assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_OK);
      assert_int_equal(mp_plan_verify(p, &d.sink), MP_OK);
      const mp_arena *s = find_arena(p, MP_ROLE_SCRATCH, MP_MEM_DTCM);
      if (s) {
        assert_true(s->total_size >= s->lower_bound);
        assert_int_equal(s->lower_bound, mp_graph_lower_bound(l.g, 16));
      }
      mp_plan_free(&p);
      assert_null(p);
    }
    unload(&l);
  }
}

static void a_tight_dtcm_budget_spills_scratch_to_sram(void **state) {
  (void)state;
  loaded l;
  if (!load("mlperf_kws_ref_int8", &l)) skip();
  /* constants of kws are ~50 KB: put dtcm at 56 KiB so scratch must spill */
  mp_platform pf = platform(512 * 1024, 1 << 20);
  mp_memory_args a = args("greedy");
  mp_constraint k = {MP_MEM_DTCM, true, 8 * 1024, 0};
  a.constraints = &k;
  a.n_constraints = 1;
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_OK);
  const mp_arena *ds = find_arena(p, MP_ROLE_SCRATCH, MP_MEM_DTCM);
  const mp_arena *ss = find_arena(p, MP_ROLE_SCRATCH, MP_MEM_SRAM);
  assert_non_null(ds);
  assert_non_null(ss);
  assert_true(p->memories[MP_MEM_DTCM].used <= 8 * 1024);
  /* the constants no longer fit dtcm next to the scratch arena: they moved on */
  assert_non_null(find_arena(p, MP_ROLE_CONSTANT, MP_MEM_SRAM));
  mp_plan_free(&p);
  unload(&l);
}

static void the_plan_json_is_byte_identical_across_runs(void **state) {
  (void)state;
  loaded l;
  if (!load("mlperf_vww_96_int8", &l)) skip();
  mp_platform pf = platform(512 * 1024, 3 << 20);
  char *first = NULL;
  for (int run = 0; run < 3; run++) {
    mp_memory_args a = args(mp_planner_find("hill_climb") ? "hill_climb" : "greedy");
    mp_plan *p = NULL;
    assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
    char *js = NULL;
    assert_int_equal(mp_residency_json(p, "vww", &js), MP_OK);
    if (!first)
      first = js;
    else {
      assert_string_equal(first, js);
      free(js);
    }
    mp_plan_free(&p);
  }
  assert_non_null(strstr(first, "\"schema\": \"memplan.residency/1\""));
  free(first);
  unload(&l);
}

static void arena_alignment_is_applied_to_the_base_and_every_slot(void **state) {
  (void)state;
  loaded l;
  if (!load("tflm_micro_speech_int8", &l)) skip();
  for (uint32_t al = 32; al <= 64; al *= 2) {
    mp_platform pf = platform(512 * 1024, 3 << 20);
    mp_memory_args a = args("greedy");
    mp_constraint k = {MP_MEM_DTCM, false, 0, al};
    a.constraints = &k;
    a.n_constraints = 1;
    mp_plan *p = NULL;
    assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
    assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
    for (uint32_t i = 0; i < p->n_arenas; i++) {
      if (p->arenas[i].memory != MP_MEM_DTCM) continue;
      assert_int_equal(p->arenas[i].alignment, al);
      assert_int_equal(p->arenas[i].total_size % al, 0);
    }
    for (uint32_t t = 0; t < p->n_allocs; t++) {
      const mp_allocation *x = mp_plan_get_allocation(p, t);
      if (!x || x->memory != MP_MEM_DTCM) continue;
      assert_int_equal(x->offset % al, 0);
      assert_int_equal(x->align, al);
    }
    mp_plan_free(&p);
  }
  unload(&l);
}

static void get_allocation_fails_cleanly_on_an_unknown_id(void **state) {
  (void)state;
  loaded l;
  if (!load("tflm_hello_world_int8", &l)) skip();
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_null(mp_plan_get_allocation(p, 100000));
  assert_null(mp_plan_get_allocation(NULL, 0));
  assert_non_null(mp_plan_get_allocation(p, (uint32_t)l.g->inputs[0]));
  mp_plan_free(&p);
  unload(&l);
}

/* ---- the verifier fails, naming the pair, on corrupted plans ---- */

static mp_plan *plan_of(loaded *l, const char *name) {
  if (!load(name, l)) return NULL;
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l->g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  return p;
}

static void the_verifier_names_two_live_tensors_forced_to_overlap(void **state) {
  (void)state;
  loaded l;
  mp_plan *p = plan_of(&l, "mlperf_kws_ref_int8");
  if (!p) skip();
  /* find two scratch slots live at the same op with different offsets */
  uint32_t a = UINT32_MAX, b = UINT32_MAX;
  for (uint32_t i = 0; i < p->n_allocs && b == UINT32_MAX; i++)
    for (uint32_t j = i + 1; j < p->n_allocs && b == UINT32_MAX; j++) {
      const mp_allocation *x = mp_plan_get_allocation(p, i), *y = mp_plan_get_allocation(p, j);
      if (!x || !y || x->alias_of >= 0 || y->alias_of >= 0 ||
          x->binding.role != MP_ROLE_SCRATCH || y->binding.role != MP_ROLE_SCRATCH ||
          x->arena != y->arena || !mp_lifetime_overlaps(&p->lifetimes[i], &p->lifetimes[j]))
        continue;
      a = i;
      b = j;
    }
  assert_int_not_equal(b, UINT32_MAX);
  p->allocs[b].offset = p->allocs[a].offset;
  p->allocs[b].binding.offset = p->allocs[a].offset;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  char na[64], nb[64];
  snprintf(na, sizeof na, "%u '%s'", a, l.g->tensors[a].name);
  snprintf(nb, sizeof nb, "%u '%s'", b, l.g->tensors[b].name);
  assert_true(tu_diags_has(&d, na));
  assert_true(tu_diags_has(&d, nb));
  assert_true(tu_diags_has(&d, "overlap"));
  mp_plan_free(&p);
  unload(&l);
}

static void the_verifier_rejects_a_misaligned_slot(void **state) {
  (void)state;
  loaded l;
  mp_plan *p = plan_of(&l, "tflm_micro_speech_int8");
  if (!p) skip();
  uint32_t t = (uint32_t)l.g->outputs[0];
  p->allocs[t].offset += 4;
  p->allocs[t].binding.offset += 4;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "not aligned"));
  mp_plan_free(&p);
  unload(&l);
}

static void the_verifier_rejects_a_slot_outside_its_arena(void **state) {
  (void)state;
  loaded l;
  mp_plan *p = plan_of(&l, "tflm_micro_speech_int8");
  if (!p) skip();
  uint32_t t = (uint32_t)l.g->outputs[0];
  uint64_t off = p->arenas[p->allocs[t].arena].total_size;
  p->allocs[t].offset = off;
  p->allocs[t].binding.offset = off;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "outside its"));
  mp_plan_free(&p);
  unload(&l);
}

static void the_verifier_rejects_an_alias_that_does_not_share_storage(void **state) {
  (void)state;
  loaded l;
  mp_plan *p = plan_of(&l, "tflm_micro_speech_int8");
  if (!p) skip();
  /* tensor 4 is a RESHAPE view of tensor 3 */
  assert_int_equal(p->allocs[4].alias_of, 3);
  p->allocs[4].offset += 16;
  p->allocs[4].binding.offset += 16;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "does not share"));
  mp_plan_free(&p);
  unload(&l);
}

static void the_verifier_rejects_a_memory_over_budget(void **state) {
  (void)state;
  loaded l;
  mp_plan *p = plan_of(&l, "tflm_micro_speech_int8");
  if (!p) skip();
  p->memories[MP_MEM_DTCM].budget = p->memories[MP_MEM_DTCM].used - 16;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "over its budget"));
  mp_plan_free(&p);
  unload(&l);
}

static void the_verifier_rejects_a_constant_arena_with_two_sources(void **state) {
  (void)state;
  loaded l;
  mp_plan *p = plan_of(&l, "tflm_micro_speech_int8");
  if (!p) skip();
  for (uint32_t t = 0; t < p->n_allocs; t++)
    if (p->allocs[t].placed && p->allocs[t].binding.role == MP_ROLE_CONSTANT) {
      p->allocs[t].binding.source_memory = MP_MEM_MRAM;
      break;
    }
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "disagrees with its arena"));
  mp_plan_free(&p);
  unload(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_planner_plans_every_corpus_model_and_the_verifier_agrees),
      cmocka_unit_test(a_tight_dtcm_budget_spills_scratch_to_sram),
      cmocka_unit_test(the_plan_json_is_byte_identical_across_runs),
      cmocka_unit_test(arena_alignment_is_applied_to_the_base_and_every_slot),
      cmocka_unit_test(get_allocation_fails_cleanly_on_an_unknown_id),
      cmocka_unit_test(the_verifier_names_two_live_tensors_forced_to_overlap),
      cmocka_unit_test(the_verifier_rejects_a_misaligned_slot),
      cmocka_unit_test(the_verifier_rejects_a_slot_outside_its_arena),
      cmocka_unit_test(the_verifier_rejects_an_alias_that_does_not_share_storage),
      cmocka_unit_test(the_verifier_rejects_a_memory_over_budget),
      cmocka_unit_test(the_verifier_rejects_a_constant_arena_with_two_sources),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
