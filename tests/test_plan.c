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

#include "fixtures.h"
#include "tflite_writer.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static mp_platform platform(uint64_t dtcm, uint64_t sram) {
  mp_platform p;
  mp_platform_init(&p, "test");
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

/* Memory args naming `planner`, arenas allocated, in_place off. */
static mp_memory_args args(const char *planner) { return tu_args(planner, false); }

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
    if (tu_skip_refused(names[i], TU_STAGE_PLAN)) continue;
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


/* ---- fixtures: constants, pins, persistent, spill order ---- */

static bool load_fx(const char *name, loaded *l) {
  memset(l, 0, sizeof *l);
  uint8_t *bytes = NULL;
  size_t size = 0;
  mp_status st = strcmp(name, "kws") ? fx_build(name, &bytes, &size) : fx_kws(&bytes, &size);
  assert_int_equal(st, MP_OK);
  assert_int_equal(mp_model_parse(bytes, size, name, NULL, &l->m), MP_OK);
  free(bytes);
  assert_int_equal(mp_graph_build(l->m, 0, NULL, NULL, &l->g), MP_OK);
  return true;
}

static mp_rule rule(int32_t type, mp_attributes at) {
  mp_rule r;
  memset(&r, 0, sizeof r);
  r.type = type;
  r.attributes = at;
  return r;
}

static uint64_t constant_bytes(const mp_graph *g) {
  uint64_t n = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++)
    if (g->tensors[t].role == MP_ROLE_CONSTANT && g->tensors[t].used)
      n += (g->tensors[t].size + 15) / 16 * 16;
  return n;
}

static void constants_pinned_to_mram_are_cold_and_read_in_place(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_rule r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_MRAM, false, MP_MEM_DTCM});
  a.rules = &r;
  a.n_rules = 1;
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  const mp_arena *k = find_arena(p, MP_ROLE_CONSTANT, MP_MEM_MRAM);
  assert_non_null(k);
  assert_false(k->is_staged);
  assert_int_equal(k->source_memory, MP_MEM_MRAM);
  assert_int_equal(k->total_size, constant_bytes(l.g));
  assert_null(find_arena(p, MP_ROLE_CONSTANT, MP_MEM_DTCM));
  assert_int_equal(p->memories[MP_MEM_MRAM].constant, k->total_size);
  assert_int_equal(p->memories[MP_MEM_DTCM].constant, 0);
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *x = mp_plan_get_allocation(p, t);
    if (x && x->binding.role == MP_ROLE_CONSTANT) {
      assert_int_equal(x->memory, MP_MEM_MRAM);
      assert_int_equal(x->binding.source_memory, MP_MEM_MRAM);
      assert_true(x->pinned);
    }
  }
  mp_plan_free(&p);
  unload(&l);
}

static void staged_constants_count_in_both_the_source_and_the_runtime_memory(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_rule r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_MRAM, true, MP_MEM_DTCM});
  a.rules = &r;
  a.n_rules = 1;
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  const mp_arena *k = find_arena(p, MP_ROLE_CONSTANT, MP_MEM_DTCM);
  assert_non_null(k);
  assert_true(k->is_staged);
  assert_int_equal(k->source_memory, MP_MEM_MRAM);
  assert_null(find_arena(p, MP_ROLE_CONSTANT, MP_MEM_MRAM));
  /* the runtime copy counts in dtcm, the source blob in mram */
  assert_int_equal(p->memories[MP_MEM_DTCM].constant, k->total_size);
  assert_int_equal(p->memories[MP_MEM_MRAM].staged_source, k->total_size);
  assert_int_equal(p->memories[MP_MEM_MRAM].used, k->total_size);
  char sym[128];
  assert_string_equal(mp_arena_symbol(p, "kws", k, false, sym, sizeof sym), "kws_arena_const_dtcm_buffer");
  assert_string_equal(mp_arena_symbol(p, "kws", k, true, sym, sizeof sym), "kws_arena_const_dtcm__source");
  mp_plan_free(&p);
  unload(&l);
}

static void a_staged_source_blob_counts_against_its_budget(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  /* sram holds the staged sources; a budget below them must fail */
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_rule r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_SRAM, true, MP_MEM_DTCM});
  a.rules = &r;
  a.n_rules = 1;
  mp_constraint k = {MP_MEM_SRAM, true, 1024, 0};
  a.constraints = &k;
  a.n_constraints = 1;
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_ERR_NOFIT);
  assert_null(p);
  assert_true(tu_diags_has(&d, "does not fit in sram: budget 1024 bytes"));
  assert_true(tu_diags_has(&d, "short by"));
  unload(&l);
}

static void two_sources_for_one_constant_arena_are_an_error_naming_both_tensors(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_rule r[2];
  r[0] = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_MRAM, true, MP_MEM_DTCM});
  r[1] = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_SRAM, true, MP_MEM_DTCM});
  char id[16];
  snprintf(id, sizeof id, "%u", 1u); /* some constant of the KWS model */
  uint32_t cid = 0;
  for (uint32_t t = 0; t < l.g->n_tensors; t++)
    if (l.g->tensors[t].role == MP_ROLE_CONSTANT && l.g->tensors[t].used) cid = t;
  snprintf(id, sizeof id, "%u", cid);
  char *ids[1] = {id};
  r[1].ids = ids;
  r[1].n_ids = 1;
  a.rules = r;
  a.n_rules = 2;
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "exactly one source memory"));
  char want[64];
  snprintf(want, sizeof want, "tensor %u '%s'", cid, l.g->tensors[cid].name);
  assert_true(tu_diags_has(&d, want));
  unload(&l);
}

static void a_pinned_scratch_tensor_that_does_not_fit_names_tensor_memory_budget_and_shortfall(
    void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  char id[16];
  snprintf(id, sizeof id, "%d", FX_KWS_CONV0_OUT);
  char *ids[1] = {id};
  mp_rule r = rule(MP_ROLE_SCRATCH, (mp_attributes){true, MP_MEM_SRAM, false, MP_MEM_DTCM});
  r.ids = ids;
  r.n_ids = 1;
  a.rules = &r;
  a.n_rules = 1;
  mp_constraint k[2] = {{MP_MEM_DTCM, false, 0, 0}, {MP_MEM_SRAM, true, 4096, 0}};
  a.constraints = k;
  a.n_constraints = 2;
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_ERR_NOFIT);
  char want[128];
  snprintf(want, sizeof want, "scratch tensor %d '%s' (8000 bytes, live over ops 0-1) does not fit in sram", FX_KWS_CONV0_OUT,
           l.g->tensors[FX_KWS_CONV0_OUT].name);
  assert_true(tu_diags_has(&d, want));
  assert_true(tu_diags_has(&d, "budget 4096 bytes"));
  assert_true(tu_diags_has(&d, "short by 3904 bytes"));
  assert_true(tu_diags_has(&d, "memory.constraints"));
  unload(&l);
}

static void a_pinned_scratch_tensor_lands_in_its_memory_and_the_rest_stays_preferred(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy_by_size");
  char id[16];
  snprintf(id, sizeof id, "%d", FX_KWS_CONV0_OUT);
  char *ids[1] = {id};
  mp_rule r = rule(MP_ROLE_SCRATCH, (mp_attributes){true, MP_MEM_SRAM, false, MP_MEM_DTCM});
  r.ids = ids;
  r.n_ids = 1;
  a.rules = &r;
  a.n_rules = 1;
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  assert_int_equal(mp_plan_get_allocation(p, FX_KWS_CONV0_OUT)->memory, MP_MEM_SRAM);
  assert_true(mp_plan_get_allocation(p, FX_KWS_CONV0_OUT)->pinned);
  assert_int_equal(mp_plan_get_allocation(p, FX_KWS_INPUT)->memory, MP_MEM_DTCM);
  assert_int_equal(mp_plan_get_allocation(p, FX_KWS_OUTPUT)->memory, MP_MEM_DTCM);
  /* the reasons: the pin names its ruleset; the rest are preferred */
  const mp_placement_reason *why = &mp_plan_get_allocation(p, FX_KWS_CONV0_OUT)->reason;
  assert_int_equal(why->kind, MP_REASON_PINNED);
  assert_int_equal(why->rule, 0);
  char text[128];
  assert_string_equal(mp_reason_text(NULL, why, -1, text, sizeof text),
                      "pinned by rule 0 (memory.tensors)");
  assert_int_equal(mp_plan_get_allocation(p, FX_KWS_INPUT)->reason.kind, MP_REASON_PREFERRED);
  mp_plan_free(&p);
  unload(&l);
}

static void the_constraint_order_is_the_preference_order(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_constraint k[1] = {{MP_MEM_SRAM, false, 0, 0}}; /* sram first, dtcm after */
  a.constraints = k;
  a.n_constraints = 1;
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  assert_non_null(find_arena(p, MP_ROLE_SCRATCH, MP_MEM_SRAM));
  assert_null(find_arena(p, MP_ROLE_SCRATCH, MP_MEM_DTCM));
  assert_non_null(find_arena(p, MP_ROLE_CONSTANT, MP_MEM_SRAM));
  assert_int_equal(p->memories[MP_MEM_DTCM].used, 0);
  mp_plan_free(&p);
  unload(&l);
}

static void spilling_follows_the_preference_order_and_never_exceeds_a_budget(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  /* three writable banks; the first two too small for the whole arena */
  mp_platform pf = platform(512 * 1024, 3 << 20);
  pf.present[MP_MEM_PSRAM] = true;
  pf.size[MP_MEM_PSRAM] = 1 << 20;
  pf.n_order = 4;
  pf.order[2] = MP_MEM_PSRAM;
  pf.order[3] = MP_MEM_MRAM;
  mp_memory_args a = args("greedy");
  mp_constraint k[3] = {{MP_MEM_SRAM, true, 4096, 0}, {MP_MEM_DTCM, true, 8192, 0},
                        {MP_MEM_PSRAM, false, 0, 0}};
  a.constraints = k;
  a.n_constraints = 3;
  mp_rule r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_MRAM, false, MP_MEM_DTCM});
  a.rules = &r;
  a.n_rules = 1;
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  const mp_arena *s0 = find_arena(p, MP_ROLE_SCRATCH, MP_MEM_SRAM);
  const mp_arena *s1 = find_arena(p, MP_ROLE_SCRATCH, MP_MEM_DTCM);
  const mp_arena *s2 = find_arena(p, MP_ROLE_SCRATCH, MP_MEM_PSRAM);
  assert_non_null(s0);
  assert_non_null(s1);
  assert_non_null(s2);
  assert_true(s0->total_size <= 4096 && s1->total_size <= 8192);
  /* the small tensors fit sram; of each pair of live 8000-byte activations
   * one lands in dtcm and the other spills on to psram */
  assert_int_equal(mp_plan_get_allocation(p, FX_KWS_INPUT)->memory, MP_MEM_SRAM);
  assert_int_equal(s1->total_size, 8000);
  assert_int_equal(s2->total_size, 8000);
  /* every scratch tensor outside sram says it spilled from sram, at an op
   * of its lifetime where sram's 4096 bytes could not take it as well */
  uint32_t spilled = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *al = &p->allocs[t];
    if (!al->placed || al->binding.role != MP_ROLE_SCRATCH || al->alias_of >= 0) continue;
    if (al->memory == MP_MEM_SRAM) {
      assert_int_equal(al->reason.kind, MP_REASON_PREFERRED);
      continue;
    }
    spilled++;
    assert_int_equal(al->reason.kind, MP_REASON_SPILLED);
    assert_int_equal(al->reason.spilled_from, MP_MEM_SRAM);
    assert_int_equal(al->reason.full_capacity, 4096);
    assert_in_range(al->reason.full_at_op, p->lifetimes[t].start_op, p->lifetimes[t].end_op);
    assert_true(al->reason.full_live + al->slot_size > 4096);
  }
  assert_true(spilled >= 2);
  /* constants pinned by a ruleset built in code: no file to name */
  const mp_placement_reason *c0 = NULL;
  for (uint32_t t = 0; t < p->n_allocs && !c0; t++)
    if (p->allocs[t].placed && p->allocs[t].binding.role == MP_ROLE_CONSTANT)
      c0 = &p->allocs[t].reason;
  assert_non_null(c0);
  assert_int_equal(c0->kind, MP_REASON_PINNED);
  assert_null(c0->rule_file);
  mp_plan_free(&p);
  unload(&l);
}

static void persistent_tensors_get_a_zeroed_whole_program_arena(void **state) {
  (void)state;
  loaded l;
  load_fx("variable", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_plan *p = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &p), MP_OK);
  assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
  const mp_arena *pa = find_arena(p, MP_ROLE_PERSISTENT, MP_MEM_DTCM);
  assert_non_null(pa);
  assert_int_equal(pa->used, pa->total_size);
  uint32_t n = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *x = mp_plan_get_allocation(p, t);
    if (x && x->binding.role == MP_ROLE_PERSISTENT) {
      n++;
      assert_int_equal(l.g->tensors[t].role, MP_ROLE_PERSISTENT);
      assert_int_equal(x->arena, (uint32_t)(pa - p->arenas));
    }
  }
  assert_true(n >= 1);
  /* region order: scratch arenas, then persistent, then constant */
  for (uint32_t i = 1; i < p->n_arenas; i++)
    assert_true(p->arenas[i - 1].role < p->arenas[i].role ||
                (p->arenas[i - 1].role == p->arenas[i].role &&
                 p->arenas[i - 1].memory < p->arenas[i].memory));
  mp_plan_free(&p);
  unload(&l);
}

static void a_persistent_tensor_pinned_to_read_only_memory_is_refused(void **state) {
  (void)state;
  loaded l;
  load_fx("variable", &l);
  mp_platform pf = platform(512 * 1024, 3 << 20);
  mp_memory_args a = args("greedy");
  mp_rule r = rule(MP_ROLE_PERSISTENT, (mp_attributes){true, MP_MEM_MRAM, false, MP_MEM_DTCM});
  a.rules = &r;
  a.n_rules = 1;
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_not_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_OK);
  assert_true(tu_diags_has(&d, "read-only"));
  unload(&l);
}

static void every_planner_gives_a_verified_plan_on_every_fixture_and_random_dags(void **state) {
  (void)state;
  const char *const *names = fx_names();
  mp_platform pf = platform(512 * 1024, 3 << 20);
  for (size_t i = 0; names[i]; i++) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fx_build(names[i], &bytes, &size), MP_OK);
    mp_model *m = NULL;
    assert_int_equal(mp_model_parse(bytes, size, names[i], NULL, &m), MP_OK);
    free(bytes);
    mp_graph *g = NULL;
    if (mp_graph_build(m, 0, NULL, NULL, &g) != MP_OK) { /* the deliberately broken ones */
      mp_model_free(&m);
      continue;
    }
    for (uint32_t k = 0; k < mp_planner_count(); k++) {
      mp_memory_args a = args(mp_planner_at(k)->name);
      mp_plan *p = NULL;
      assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
      assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
      mp_plan_free(&p);
    }
    mp_graph_free(&g);
    mp_model_free(&m);
  }
  for (uint64_t seed = 1; seed <= 6; seed++) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_int_equal(fx_random(seed, 60, &bytes, &size), MP_OK);
    loaded l;
    assert_int_equal(mp_model_parse(bytes, size, "random", NULL, &l.m), MP_OK);
    free(bytes);
    assert_int_equal(mp_graph_build(l.m, 0, NULL, NULL, &l.g), MP_OK);
    /* tight dtcm: forces spilling on most seeds */
    mp_platform tight = platform(4096, 3 << 20);
    for (uint32_t k = 0; k < mp_planner_count(); k++) {
      mp_memory_args a = args(mp_planner_at(k)->name);
      mp_plan *p = NULL;
      assert_int_equal(mp_plan_build(l.g, &tight, &a, NULL, &p), MP_OK);
      assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
      assert_true(p->memories[MP_MEM_DTCM].used <= 4096);
      mp_plan_free(&p);
    }
    unload(&l);
  }
}

static void constants_cold_in_ram_count_a_load_image_and_warn_once_naming_the_rule(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = args("greedy");
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  /* no rule: the weights become a const blob in dtcm */
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_OK);
  const mp_arena *k = find_arena(p, MP_ROLE_CONSTANT, MP_MEM_DTCM);
  assert_non_null(k);
  assert_false(k->is_staged);
  assert_int_equal(p->memories[MP_MEM_DTCM].load_image, k->total_size);
  assert_int_equal(p->memories[MP_MEM_MRAM].load_image, 0);
  assert_int_equal(d.n_warnings, 1);
  char want[400];
  snprintf(want, sizeof want, "(%llu bytes: %llu in dtcm) are cold in RAM: they need a %llu-byte "
           "load image in non-volatile memory and a copy at boot; to read them in place from "
           "mram, add the ruleset {type: constant, attributes: {memory: mram}} to memory.tensors",
           (unsigned long long)k->total_size, (unsigned long long)k->total_size,
           (unsigned long long)k->total_size);
  assert_true(tu_diags_has(&d, want));
  char *sum = mp_plan_summary(p, "kws", 1);
  snprintf(want, sizeof want, "load image %llu bytes in non-volatile memory for the read-only "
           "blobs in RAM (dtcm %llu), copied from there at boot\n",
           (unsigned long long)k->total_size, (unsigned long long)k->total_size);
  assert_non_null(strstr(sum, want));
  free(sum);
  char *json = NULL;
  assert_int_equal(mp_residency_json(p, "kws", &json), MP_OK);
  snprintf(want, sizeof want, "\"staged_source\": 0,\n      \"load_image\": %llu\n",
           (unsigned long long)k->total_size);
  assert_non_null(strstr(json, want));
  free(json);
  mp_plan_free(&p);
  /* cold in mram (read in place) or staged from mram: no load image, no warning */
  mp_rule r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_MRAM, false, 0});
  a.rules = &r;
  a.n_rules = 1;
  for (int staged = 0; staged < 2; staged++) {
    r.attributes.has_constant_destination_memory = staged;
    r.attributes.constant_destination_memory = MP_MEM_DTCM;
    tu_diags_init(&d);
    assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_OK);
    for (int m = 0; m < MP_MEM_COUNT; m++) assert_int_equal(p->memories[m].load_image, 0);
    assert_int_equal(d.n_warnings, 0);
    char *s2 = mp_plan_summary(p, "kws", 1);
    assert_null(strstr(s2, "load image"));
    free(s2);
    mp_plan_free(&p);
  }
  /* pinned to dtcm by a rule: the engineer's choice, counted but not warned about */
  r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_DTCM, false, 0});
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &p), MP_OK);
  assert_int_equal(d.n_warnings, 0);
  assert_true(p->memories[MP_MEM_DTCM].load_image > 0);
  mp_plan_free(&p);
  /* a platform without read-only storage has nothing better to offer */
  mp_platform ram_only = platform(512 * 1024, 1 << 20);
  ram_only.present[MP_MEM_MRAM] = false;
  ram_only.n_order = 2;
  a.n_rules = 0;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &ram_only, &a, &d.sink, &p), MP_OK);
  assert_int_equal(d.n_warnings, 0);
  assert_true(p->memories[MP_MEM_DTCM].load_image > 0);
  mp_plan_free(&p);
  unload(&l);
}

static void with_caller_io_the_inputs_and_outputs_are_not_planned(void **state) {
  (void)state;
  loaded l;
  load_fx("kws", &l);
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  mp_memory_args a = args("greedy");
  mp_rule r = rule(MP_ROLE_CONSTANT, (mp_attributes){true, MP_MEM_MRAM, false, 0});
  a.rules = &r;
  a.n_rules = 1;
  mp_plan *arena = NULL, *caller = NULL;
  assert_int_equal(mp_plan_build(l.g, &pf, &a, NULL, &arena), MP_OK);
  a.io_caller = true;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(l.g, &pf, &a, &d.sink, &caller), MP_OK);
  assert_int_equal(mp_plan_verify(caller, &d.sink), MP_OK);
  const mp_graph *g = l.g;
  for (uint32_t k = 0; k < g->n_inputs + g->n_outputs; k++) {
    int32_t t = k < g->n_inputs ? g->inputs[k] : g->outputs[k - g->n_inputs];
    assert_false(caller->allocs[t].placed);
    assert_int_equal(caller->allocs[t].caller_io, (int32_t)k);
    assert_true(arena->allocs[t].placed);
    assert_int_equal(arena->allocs[t].caller_io, -1);
  }
  const mp_arena *sa = find_arena(arena, MP_ROLE_SCRATCH, MP_MEM_DTCM);
  const mp_arena *sc = find_arena(caller, MP_ROLE_SCRATCH, MP_MEM_DTCM);
  assert_int_equal(sc->n_tensors, sa->n_tensors - g->n_inputs - g->n_outputs);
  assert_true(sc->total_size <= sa->total_size);
  assert_true(caller->hash != arena->hash);
  /* the verifier refuses a caller buffer given to a tensor it does not hold */
  int32_t other = -1;
  for (uint32_t t = 0; t < caller->n_allocs && other < 0; t++)
    if (caller->allocs[t].placed && caller->allocs[t].binding.role == MP_ROLE_SCRATCH) other = (int32_t)t;
  caller->allocs[other].placed = false;
  caller->allocs[other].caller_io = 0;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_verify(caller, &d.sink), MP_ERR_VERIFY);
  assert_true(tu_diags_has(&d, "is given caller buffer 0, which does not hold it"));
  mp_plan_free(&arena);
  mp_plan_free(&caller);
  unload(&l);
}

static void caller_io_refuses_an_output_that_is_a_view_of_an_input(void **state) {
  (void)state;
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  mp_tfw_add_subgraph(w, "main");
  mp_tfw_add_simple_tensor(w, "in", MP_DTYPE_INT8, 2, (const int32_t[]){1, 8});
  uint8_t shape[8] = {2, 0, 0, 0, 4, 0, 0, 0};
  mp_tfw_tensor st = {.name = "shape", .dtype = MP_DTYPE_INT32, .rank = 1,
                      .shape = (const int32_t[]){2}};
  st.buffer = mp_tfw_add_buffer(w, shape, sizeof shape);
  mp_tfw_add_tensor(w, &st);
  mp_tfw_add_simple_tensor(w, "out", MP_DTYPE_INT8, 2, (const int32_t[]){2, 4});
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = FX_RESHAPE, .n_inputs = 2,
                                .inputs = (const int32_t[]){0, 1}, .n_outputs = 1,
                                .outputs = (const int32_t[]){2}});
  mp_tfw_set_io(w, 1, (const int32_t[]){0}, 1, (const int32_t[]){2});
  mp_model *m = tu_written(w, "reshape", NULL);
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(g->tensors[2].alias_of, 0);
  mp_platform pf = platform(64 * 1024, 1 << 20);
  mp_memory_args a = args("greedy");
  a.io_caller = true;
  mp_plan *p = NULL;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_plan_build(g, &pf, &a, &d.sink, &p), MP_ERR_UNSUPPORTED);
  assert_null(p);
  assert_true(tu_diags_has(&d, "memory.io caller: input 0 (tensor 0 'in') and output 0 share their "
                               "bytes"));
  a.io_caller = false;
  assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
  mp_plan_free(&p);
  mp_graph_free(&g);
  mp_model_free(&m);
}

/* A fixture's graph as memory.in_place builds it (PADs folded, views) and
 * as written, kernels prepared. */
typedef struct rewritten_pair {
  uint8_t *bytes;
  mp_model *m;
  mp_graph *g, *plain;
} rewritten_pair;

static rewritten_pair rewritten_fixture(const char *name) {
  const mp_graph_options rw = {.alias_views = true, .fold_pads = true, .sub_views = true};
  rewritten_pair r = {0};
  size_t size = 0;
  assert_int_equal(fx_build(name, &r.bytes, &size), MP_OK);
  assert_int_equal(mp_model_parse(r.bytes, size, name, NULL, &r.m), MP_OK);
  assert_int_equal(mp_graph_build(r.m, 0, &rw, NULL, &r.g), MP_OK);
  assert_int_equal(mp_graph_build(r.m, 0, NULL, NULL, &r.plain), MP_OK);
  assert_int_equal(mp_kernels_prepare(r.g, false, NULL), MP_OK);
  assert_int_equal(mp_kernels_prepare(r.plain, false, NULL), MP_OK);
  return r;
}

static void rewritten_free(rewritten_pair *r) {
  mp_graph_free(&r->g);
  mp_graph_free(&r->plain);
  mp_model_free(&r->m);
  free(r->bytes);
}

/* memory.in_place's rewrites never cost bytes: mp_plan_build_rewritten
 * keeps the rewritten graph's plan unless the graph without the rewrites
 * plans smaller, and says which it kept and what that saved.  With scratch
 * split between dtcm (1 KiB) and sram, greedy places views_f32 worse
 * rewritten than as written. */
static void a_rewritten_graph_is_planned_as_the_smaller_of_both_ways(void **state) {
  (void)state;
  static const char *const names[] = {"pad_conv",     "views", "views_f32", "branches_40",
                                      "padded_block", "heads"};
  mp_constraint split[2] = {{.name = MP_MEM_DTCM, .has_max_size = true, .max_size = 1024},
                            {.name = MP_MEM_SRAM}};
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  unsigned kept_plain = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    rewritten_pair rp = rewritten_fixture(names[i]);
    mp_graph *g = rp.g, *plain = rp.plain;
    assert_true(mp_graph_rewritten(g));
    assert_false(mp_graph_rewritten(plain));
    for (uint32_t k = 0; k < 2 * mp_planner_count(); k++) {
      char pname[32];
      snprintf(pname, sizeof pname, "%s", mp_planner_at(k / 2)->name);
      mp_memory_args a = {.planner = pname, .allocate_arenas = true, .in_place = true};
      if (k % 2) {
        a.n_constraints = 2;
        a.constraints = split;
      }
      mp_plan *pg = NULL, *pp = NULL, *p = NULL;
      assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &pg), MP_OK);
      assert_int_equal(mp_plan_build(plain, &pf, &a, NULL, &pp), MP_OK);
      assert_int_equal(mp_plan_build_rewritten(g, plain, &pf, &a, NULL, &p), MP_OK);
      assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
      uint64_t sg = mp_plan_scratch_bytes(pg), sp = mp_plan_scratch_bytes(pp);
      assert_int_equal(p->rewrites.n_folded_pads, g->n_folded_pads);
      assert_int_equal(p->rewrites.n_view_ops, g->n_view_ops);
      assert_int_equal(p->rewrites.n_elided_concats, g->n_elided_concats);
      if (sp < sg) {
        /* the rewritten plan is above the plain graph's in-place bound */
        assert_true(p->rewrites.plain_planned);
        assert_ptr_equal(p->graph, plain);
        assert_int_equal(p->rewrites.saved, sg - sp);
        assert_int_equal(mp_plan_scratch_bytes(p), sp);
        assert_int_equal(p->hash, pp->hash);
        kept_plain++;
      } else {
        assert_ptr_equal(p->graph, g);
        assert_int_equal(p->rewrites.saved, 0);
        assert_int_equal(p->hash, pg->hash);
        /* not planned only when no plan of the plain graph could be smaller */
        if (!p->rewrites.plain_planned) assert_true(sg <= mp_graph_inplace_bound(plain, 1));
      }
      mp_plan_free(&p);
      /* without the plain graph: the rewritten graph's plan */
      assert_int_equal(mp_plan_build_rewritten(g, NULL, &pf, &a, NULL, &p), MP_OK);
      assert_int_equal(p->hash, pg->hash);
      assert_false(p->rewrites.plain_planned);
      assert_int_equal(p->rewrites.saved, 0);
      mp_plan_free(&p);
      mp_plan_free(&pg);
      mp_plan_free(&pp);
    }
    rewritten_free(&rp);
  }
  /* greedy on views_f32, split, at least */
  assert_true(kept_plain >= 1);
}

/* With memory.in_place, no scratch arena in one memory ends above its
 * tensor-level bound when another planner reaches it: greedy lays these
 * fixtures out above the bound (with in_place off too), and the plan keeps
 * greedy_by_size's layout, saying so.  With in_place off, greedy's layout
 * is the plan, byte for byte. */
static void in_place_keeps_another_planners_layout_when_greedys_is_above_the_bound(void **state) {
  (void)state;
  static const char *const names[] = {"views", "views_f32"};
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    rewritten_pair rp = rewritten_fixture(names[i]);
    mp_graph *g = rp.g, *plain = rp.plain;
    char greedy[] = "greedy";
    mp_memory_args a = {.planner = greedy, .allocate_arenas = true, .in_place = true};
    mp_plan *p = NULL;
    assert_int_equal(mp_plan_build(g, &pf, &a, NULL, &p), MP_OK);
    assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
    const mp_arena *s = NULL;
    for (uint32_t k = 0; k < p->n_arenas; k++)
      if (p->arenas[k].role == MP_ROLE_SCRATCH) s = &p->arenas[k];
    assert_non_null(s);
    /* greedy's own layout was above the bound; the one kept is not */
    assert_true(p->in_place_layout.requested_scratch > p->in_place_layout.tensor_level_bound);
    assert_int_equal(p->in_place_layout.tensor_level_bound, s->lower_bound);
    assert_true(s->total_size <= s->lower_bound);
    assert_string_equal(p->in_place_layout.planner, "greedy_by_size");
    assert_string_equal(p->planner, "greedy");
    char *sum = mp_plan_summary(p, "t", 1);
    assert_non_null(strstr(sum, "greedy_by_size's layout kept"));
    free(sum);
    char *json = NULL;
    assert_int_equal(mp_residency_json(p, "t", &json), MP_OK);
    assert_non_null(strstr(json, "\"kept\": \"greedy_by_size\""));
    free(json);
    mp_plan_free(&p);
    /* as convert plans it, the graph without the rewrites too */
    assert_int_equal(mp_plan_build_rewritten(g, plain, &pf, &a, NULL, &p), MP_OK);
    for (uint32_t k = 0; k < p->n_arenas; k++)
      if (p->arenas[k].role == MP_ROLE_SCRATCH)
        assert_true(p->arenas[k].total_size <= mp_graph_lower_bound(plain, 16));
    mp_plan_free(&p);
    /* in_place off: greedy's layout, nothing else tried */
    a.in_place = false;
    mp_plan *q = NULL;
    assert_int_equal(mp_plan_build(plain, &pf, &a, NULL, &q), MP_OK);
    assert_int_equal(q->in_place_layout.requested_scratch, 0);
    assert_string_equal(q->in_place_layout.planner, "");
    mp_item *items = calloc(plain->n_tensors, sizeof *items);
    uint64_t *off = calloc(plain->n_tensors, sizeof *off);
    size_t ni = mp_graph_scratch_items(plain, 16, items);
    mp_problem pr = {ni, items, 0};
    mp_solution sol = {.offsets = off};
    assert_int_equal(mp_solve(mp_planner_find("greedy"), &pr, NULL, 0, &sol, NULL), MP_OK);
    for (size_t k = 0; k < ni; k++)
      assert_int_equal(q->allocs[items[k].id].offset, off[k]);
    free(items);
    free(off);
    mp_plan_free(&q);
    rewritten_free(&rp);
  }
}

/* In place, a graph output keeps its bytes to the end of the run: the
 * application reads it after the last operator, even when that operator
 * reads it for the last time and its kernel would let its own output
 * overwrite it.  A random DAG run in its min_peak order ends with such an
 * operator (an ADD reading the root of two graph outputs); hill_climb laid
 * its output over them before, and the verifier let it through. */
static void in_place_never_writes_over_a_graph_output(void **state) {
  (void)state;
  uint8_t *bytes = NULL;
  size_t size = 0;
  mp_model *m = NULL;
  mp_graph *g = NULL, *h = NULL;
  assert_int_equal(fx_random(7, 240, &bytes, &size), MP_OK);
  assert_int_equal(mp_model_parse(bytes, size, "random240", NULL, &m), MP_OK);
  assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
  assert_int_equal(mp_kernels_prepare(g, true, NULL), MP_OK);
  uint32_t *order = malloc(g->n_ops * sizeof *order);
  mp_order_result r;
  assert_int_equal(mp_order_search(g, 16, false, 0, order, &r), MP_OK);
  const mp_graph_options o = {.alias_views = true, .order = order};
  assert_int_equal(mp_graph_build(m, 0, &o, NULL, &h), MP_OK);
  assert_int_equal(mp_kernels_prepare(h, true, NULL), MP_OK);
  /* the contract that would overwrite a graph output at the last operator */
  int32_t last = (int32_t)h->n_ops - 1, in = -1, out = -1;
  for (uint32_t k = 0; k < h->n_overlaps; k++) {
    int32_t ri = h->tensors[h->overlaps[k].input].alias_of;
    if (ri < 0) ri = (int32_t)h->overlaps[k].input;
    for (uint32_t j = 0; j < h->n_outputs; j++) {
      int32_t t = h->outputs[j], rt = h->tensors[t].alias_of >= 0 ? h->tensors[t].alias_of : t;
      if ((int32_t)h->overlaps[k].op == last && rt == ri && h->overlaps[k].min_gap <= 0) {
        in = ri;
        out = (int32_t)h->overlaps[k].output;
      }
    }
  }
  assert_true(in >= 0 && out >= 0);
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  for (uint32_t k = 0; k < mp_planner_count(); k++) {
    char pname[32];
    snprintf(pname, sizeof pname, "%s", mp_planner_at(k)->name);
    mp_memory_args a = {.planner = pname, .allocate_arenas = true, .in_place = true};
    mp_plan *p = NULL;
    assert_int_equal(mp_plan_build(h, &pf, &a, NULL, &p), MP_OK);
    assert_int_equal(mp_plan_verify(p, NULL), MP_OK);
    /* the output's bytes lie clear of the input's */
    const mp_allocation *ai = &p->allocs[in], *ao = &p->allocs[out];
    assert_true(ao->offset >= ai->offset + ai->slot_size || ai->offset >= ao->offset + ao->slot_size);
    if (k == 0) {
      /* moved over it, where the kernel's contract alone would allow it:
       * the verifier refuses, naming the graph output */
      p->allocs[out].offset = p->allocs[out].binding.offset = ai->offset;
      tu_diags d;
      tu_diags_init(&d);
      assert_int_equal(mp_plan_verify(p, &d.sink), MP_ERR_VERIFY);
      assert_true(tu_diags_has(&d, "holds a graph output"));
    }
    mp_plan_free(&p);
  }
  free(order);
  mp_graph_free(&h);
  mp_graph_free(&g);
  mp_model_free(&m);
  free(bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(with_caller_io_the_inputs_and_outputs_are_not_planned),
      cmocka_unit_test(caller_io_refuses_an_output_that_is_a_view_of_an_input),
      cmocka_unit_test(constants_cold_in_ram_count_a_load_image_and_warn_once_naming_the_rule),
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
      cmocka_unit_test(constants_pinned_to_mram_are_cold_and_read_in_place),
      cmocka_unit_test(staged_constants_count_in_both_the_source_and_the_runtime_memory),
      cmocka_unit_test(a_staged_source_blob_counts_against_its_budget),
      cmocka_unit_test(two_sources_for_one_constant_arena_are_an_error_naming_both_tensors),
      cmocka_unit_test(a_pinned_scratch_tensor_that_does_not_fit_names_tensor_memory_budget_and_shortfall),
      cmocka_unit_test(a_pinned_scratch_tensor_lands_in_its_memory_and_the_rest_stays_preferred),
      cmocka_unit_test(the_constraint_order_is_the_preference_order),
      cmocka_unit_test(spilling_follows_the_preference_order_and_never_exceeds_a_budget),
      cmocka_unit_test(persistent_tensors_get_a_zeroed_whole_program_arena),
      cmocka_unit_test(a_persistent_tensor_pinned_to_read_only_memory_is_refused),
      cmocka_unit_test(every_planner_gives_a_verified_plan_on_every_fixture_and_random_dags),
      cmocka_unit_test(a_rewritten_graph_is_planned_as_the_smaller_of_both_ways),
      cmocka_unit_test(in_place_keeps_another_planners_layout_when_greedys_is_above_the_bound),
      cmocka_unit_test(in_place_never_writes_over_a_graph_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
