/*
 * test_emit.c — the C module emitter (mp_emit_module): what the header and
 * sources say (symbols, macros, region order, the plan hash), constants
 * byte for byte, sidecar blobs without allocate_arenas, determinism, and
 * that a failure writes nothing.
 *
 * Uses memplan's own models (the bundled KWS example and the fixtures), so
 * it never skips.  Running the emitted modules is the emit proof's job
 * (tests/suite_emit_proof.sh); here one module is compiled as C99 with
 * -Wpedantic as well.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emit/emit.h"
#include "fixtures.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A model planned and ready to emit. */
typedef struct emitted {
  mp_model *m;
  mp_graph *g;
  mp_plan *p;
  mp_rule rules[1];
  mp_config cfg;
  char dir[300];
  char tmp[256];
} emitted;

enum { COLD, STAGED, ALL_DTCM };

/* Plan `model` ("kws" or a fixture name) with constants cold in mram,
 * staged mram -> dtcm, or everything in dtcm, into <tmp>/out. */
/* Write the application source `src` to app.c in the test's folder (its
 * path to `path`). */
static void write_app(const emitted *e, const char *src, char *path, size_t n) {
  snprintf(path, n, "%s/app.c", e->tmp);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(src, f);
  fclose(f);
}

/* Build app.c from `src` with the module and its kernels, pedantic C99,
 * and run it: it must exit 0. */
static void run_app(const emitted *e, const char *src) {
  char path[400];
  write_app(e, src, path, sizeof path);
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude "
                             "-Ikernels -DKWS_WITH_KERNELS=1 '%s/app.c' src/kws_model.c "
                             "src/kws_arenas.c kernels/*.c -lm -o '%s/app' && '%s/app'",
                             e->dir, e->tmp, e->tmp, e->tmp),
                   0);
}

static void plan_model(emitted *e, const char *model, int consts, bool allocate) {
  memset(e, 0, sizeof *e);
  uint8_t *bytes = NULL;
  size_t size = 0;
  if (!strcmp(model, "kws"))
    assert_int_equal(fx_kws(&bytes, &size), MP_OK);
  else
    assert_int_equal(fx_build(model, &bytes, &size), MP_OK);
  assert_int_equal(mp_model_parse(bytes, size, model, NULL, &e->m), MP_OK);
  free(bytes);
  assert_int_equal(mp_graph_build(e->m, 0, NULL, NULL, &e->g), MP_OK);
  mp_platform pf;
  assert_true(mp_platform_builtin("apollo510_evb", &pf));
  e->rules[0].type = consts == ALL_DTCM ? MP_RULE_ANY_TYPE : MP_ROLE_CONSTANT;
  e->rules[0].attributes.has_memory = true;
  e->rules[0].attributes.memory = consts == ALL_DTCM ? MP_MEM_DTCM : MP_MEM_MRAM;
  if (consts == STAGED) {
    e->rules[0].attributes.has_constant_destination_memory = true;
    e->rules[0].attributes.constant_destination_memory = MP_MEM_DTCM;
  }
  e->cfg.platform = pf;
  e->cfg.memory.planner = (char *)"greedy";
  e->cfg.memory.rules = e->rules;
  e->cfg.memory.n_rules = 1;
  e->cfg.memory.allocate_arenas = allocate;
  e->cfg.memory.dump_residency_json = true;
  assert_int_equal(mp_plan_build(e->g, &pf, &e->cfg.memory, NULL, &e->p), MP_OK);
  assert_int_equal(mp_plan_verify(e->p, NULL), MP_OK);
  const char *t = tu_tmpdir();
  assert_non_null(t);
  snprintf(e->tmp, sizeof e->tmp, "%s", t);
  snprintf(e->dir, sizeof e->dir, "%s/out", e->tmp);
  e->cfg.module_path = e->dir;
  e->cfg.prefix = (char *)"kws";
  e->cfg.module_name = (char *)"kws_nn";
}

/* A memory's name in upper case, as the emitted macros spell it. */
static const char *upper(const mp_plan *p, mp_memory m) {
  static char buf[MP_MEMORY_NAME_MAX];
  const char *nm = mp_platform_memory_name(&p->platform, m);
  size_t i = 0;
  for (; nm[i] && i + 1 < sizeof buf; i++) buf[i] = (char)(nm[i] >= 'a' && nm[i] <= 'z' ? nm[i] - 32 : nm[i]);
  buf[i] = '\0';
  return buf;
}

static void emit_ok(emitted *e) {
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_emit_module(e->p, &e->cfg, &d.sink), MP_OK);
}

static void done(emitted *e) {
  tu_rmtree(e->tmp);
  mp_plan_free(&e->p);
  mp_graph_free(&e->g);
  mp_model_free(&e->m);
}

static char *read_out(const emitted *e, const char *rel) {
  char path[400];
  snprintf(path, sizeof path, "%s/%s", e->dir, rel);
  return tu_read_text(path, NULL);
}

static bool exists(const emitted *e, const char *rel) {
  char path[400];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", e->dir, rel);
  return stat(path, &st) == 0;
}

static const mp_arena *arena(const mp_plan *p, mp_role role, mp_memory m, uint32_t *index) {
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == role && p->arenas[i].memory == m) {
      if (index) *index = i;
      return &p->arenas[i];
    }
  return NULL;
}

/* The bytes a constant arena must hold, built here from the model's own
 * buffers and the plan's offsets. */
static uint8_t *expected_blob(const emitted *e, uint32_t ai) {
  const mp_arena *a = &e->p->arenas[ai];
  uint8_t *b = calloc(1, (size_t)a->total_size);
  const mp_subgraph_def *sg = &e->m->subgraphs[0];
  for (uint32_t t = 0; t < e->p->n_allocs; t++) {
    const mp_allocation *al = mp_plan_get_allocation(e->p, t);
    if (!al || al->arena != ai) continue;
    const mp_buffer_def *buf = &e->m->buffers[sg->tensors[t].buffer];
    assert_true(al->offset + buf->size <= a->total_size);
    memcpy(b + al->offset, buf->data, (size_t)buf->size);
  }
  return b;
}

/* The initialiser of array `symbol` in C text, parsed back to bytes. */
static uint8_t *parse_array(const char *text, const char *symbol, size_t *n) {
  char key[200];
  snprintf(key, sizeof key, "%s[", symbol);
  const char *s = strstr(text, key);
  assert_non_null(s);
  s = strstr(s, "= {");
  assert_non_null(s);
  const char *end = strstr(s, "};");
  uint8_t *out = malloc((size_t)(end - s));
  *n = 0;
  for (const char *c = s; c < end; c++) {
    if (c[0] == '/' && c[1] == '*') {
      c = strstr(c, "*/") + 1;
      continue;
    }
    if (c[0] == '0' && c[1] == 'x') {
      out[(*n)++] = (uint8_t)strtoul(c, NULL, 16);
      c += 3;
    }
  }
  return out;
}

/* ---- the header ------------------------------------------------------------ */

static void the_header_carries_the_plan_hash_counts_and_every_region_with_size_and_alignment(
    void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", STAGED, true);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(h);
  char want[256];
  snprintf(want, sizeof want, "#define KWS_PLAN_HASH 0x%016llxULL\n", (unsigned long long)e.p->hash);
  assert_non_null(strstr(h, want));
  assert_non_null(strstr(h, "#define KWS_NUM_OPS 13u\n"));
  assert_non_null(strstr(h, "#define KWS_NUM_TENSORS 35u\n"));
  assert_non_null(strstr(h, "#define KWS_NUM_INPUTS 1u\n#define KWS_NUM_OUTPUTS 1u\n"));
  /* scratch, then the staged constants, then their source blob */
  uint32_t is, ic;
  const mp_arena *s = arena(e.p, MP_ROLE_SCRATCH, MP_MEM_DTCM, &is);
  const mp_arena *c = arena(e.p, MP_ROLE_CONSTANT, MP_MEM_DTCM, &ic);
  assert_non_null(s);
  assert_non_null(c);
  assert_true(c->is_staged);
  assert_int_equal(e.p->n_arenas, 2);
  assert_non_null(strstr(h, "  KWS_REGION_SCRATCH_DTCM = 0, /* scratch arena in dtcm: "
                            "kws_arena_dtcm_buffer */\n"));
  assert_non_null(strstr(h, "  KWS_REGION_CONST_DTCM = 1, /* staged constants in dtcm: "
                            "kws_arena_const_dtcm_buffer */\n"));
  assert_non_null(strstr(h, "  KWS_REGION_CONST_DTCM_SOURCE = 2, /* source blob of "
                            "KWS_REGION_CONST_DTCM, in mram: kws_arena_const_dtcm__source */\n"));
  assert_non_null(strstr(h, "  KWS_NUM_REGIONS = 3\n"));
  snprintf(want, sizeof want, "#define KWS_REGION_SCRATCH_DTCM_SIZE %lluu\n#define "
                              "KWS_REGION_SCRATCH_DTCM_ALIGN %uu\n",
           (unsigned long long)s->total_size, s->alignment);
  assert_non_null(strstr(h, want));
  snprintf(want, sizeof want, "#define KWS_REGION_CONST_DTCM_SOURCE_SIZE %lluu\n",
           (unsigned long long)c->total_size);
  assert_non_null(strstr(h, want));
  assert_non_null(strstr(h, "extern uint8_t kws_arena_dtcm_buffer[KWS_REGION_SCRATCH_DTCM_SIZE];"));
  assert_non_null(strstr(h, "extern const uint8_t "
                            "kws_arena_const_dtcm__source[KWS_REGION_CONST_DTCM_SOURCE_SIZE];"));
  free(h);
  done(&e);
}

static void the_header_declares_the_whole_api_returning_int32(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  static const char *const decls[] = {
      "int32_t kws_bind_arena(kws_arena_region_t region, void *buf, size_t size);",
      "int32_t kws_bind_arenas(const kws_arena_binding_t *bindings, size_t count);",
      "int32_t kws_context_init(kws_model_context_t *ctx);",
      "int32_t kws_hydrate_constants(kws_model_context_t *ctx);",
      "int32_t kws_hydrate_constants_default(kws_model_context_t *ctx);",
      "int32_t kws_model_init_checked(kws_model_context_t *ctx, uint64_t header_plan_hash);",
      "static inline int32_t kws_model_init(kws_model_context_t *ctx) {\n"
      "  return kws_model_init_checked(ctx, KWS_PLAN_HASH);\n}",
      "int32_t kws_model_run(kws_model_context_t *ctx);",
      "int32_t kws_reset_state(kws_model_context_t *ctx);",
      "  kws_io_t inputs[1];",
      "  kws_io_t outputs[1];",
      "  kws_op_callback_t callback;",
      "  void *user_data;",
      "#define KWS_MODEL_CONTEXT_INIT \\\n"
      "  {.plan_hash = KWS_PLAN_HASH, .failed_op = -1, .failed_region = -1}",
      "  int32_t failed_region;",
      "#ifndef KWS_PUT_IN_DTCM\n#define KWS_PUT_IN_DTCM\n#endif",
      "#ifndef KWS_PUT_CONST_IN_MRAM\n#define KWS_PUT_CONST_IN_MRAM\n#endif",
      "KWS_STATUS_PLAN_MISMATCH = -6,",
      "KWS_STATUS_UNSUPPORTED_OP = -9,",
      "KWS_STATUS_DUPLICATE_REGION = -11,",
      "KWS_STATUS_BUFFER_OVERLAP = -12,",
      "KWS_STATUS_REBOUND = -13,",
  };
  for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++) {
    if (!strstr(h, decls[i])) fail_msg("missing from the header: %s", decls[i]);
  }
  /* only the macros a region uses: mram holds no writable arena, dtcm no blob */
  assert_null(strstr(h, "KWS_PUT_IN_MRAM"));
  assert_null(strstr(h, "KWS_PUT_CONST_IN_DTCM"));
  char *src = read_out(&e, "src/kws_model.c");
  assert_non_null(strstr(src, "KWS_WEAK int32_t kws_hydrate_constants(kws_model_context_t *ctx) {"));
  /* model_init: context_init, then hydrate, then the operator init loop */
  const char *mi = strstr(src, "int32_t kws_model_init_checked(kws_model_context_t *ctx, "
                                "uint64_t header_plan_hash) {");
  assert_non_null(mi);
  const char *a = strstr(mi, "kws_context_init(ctx)"), *b = strstr(mi, "kws_hydrate_constants(ctx)"),
             *c = strstr(mi, "call_kernel(ctx, i, KWS_PHASE_INIT)");
  assert_true(a && b && c && a < b && b < c);
  free(src);
  free(h);
  done(&e);
}

/* ---- sources --------------------------------------------------------------- */

/* True when src has `head` &op_names[N]`tail`, and the op_names table's
 * string at N is `name`: an op row's name or params type. */
static bool op_row_names(const char *src, const char *head, const char *name, const char *tail,
                         const char *all) {
  char want[200];
  snprintf(want, sizeof want, "%s&op_names[", head);
  const char *at = strstr(src, want);
  if (!at) return false;
  unsigned off = 0;
  int used = 0;
  if (sscanf(at + strlen(want), "%u]%n", &off, &used) != 1 || used == 0) return false;
  if (strncmp(at + strlen(want) + used, tail, strlen(tail)) != 0) return false;
  snprintf(want, sizeof want, "\"%s\" \"\\0\" /* %u */\n", name, off);
  return strstr(all, want) != NULL;
}

static void tensor_descriptors_are_region_offset_size_dtype_shape_of_the_plan(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  emit_ok(&e);
  char *src = read_out(&e, "src/kws_model.c");
  const mp_allocation *in = mp_plan_get_allocation(e.p, 0);
  const mp_allocation *w = mp_plan_get_allocation(e.p, 1);
  char want[200];
  snprintf(want, sizeof want, "{KWS_REGION_SCRATCH_DTCM, %lluu, 490u, KWS_DTYPE_INT8, 4u, "
                              "&tensor_shapes[0]},", (unsigned long long)in->offset);
  assert_non_null(strstr(src, want));
  snprintf(want, sizeof want, "{KWS_REGION_CONST_MRAM, %lluu, %lluu, KWS_DTYPE_INT8, 4u, "
                              "&tensor_shapes[4]},", (unsigned long long)w->offset,
           (unsigned long long)w->size);
  assert_non_null(strstr(src, want));
  /* no per-tensor symbols: tensors live only in the descriptor table */
  assert_null(strstr(src, "kws_tensor_0"));
  /* the aliased RESHAPE is a view with no kernel */
  assert_true(op_row_names(src, "{10u, 22, ", "RESHAPE", ", 1u, 2u, 1u,", src));
  assert_non_null(strstr(src, "{NULL, NULL}, /* 10 RESHAPE: aliased view, a no-op */"));
  /* the glue calls the lowered kernel with the planned tensors */
  assert_non_null(strstr(src, "return mpk_conv2d_s8(&op0_params,\n      (const int8_t "
                              "*)tensor_ptr(0),"));
  assert_non_null(strstr(src, "if (KERNEL_MISSING(mpk_conv2d_s8)) return KWS_STATUS_UNSUPPORTED_OP;"));
  free(src);
  done(&e);
}

static void every_arena_symbol_is_defined_with_its_size_alignment_and_placement(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "variable", STAGED, true);
  emit_ok(&e);
  char *a = read_out(&e, "src/kws_arenas.c");
  assert_non_null(a);
  for (uint32_t i = 0; i < e.p->n_arenas; i++) {
    const mp_arena *ar = &e.p->arenas[i];
    char sym[160], want[400];
    mp_arena_symbol(e.p, "kws", ar, false, sym, sizeof sym);
    const char *mem = upper(e.p, ar->memory);
    if (ar->role == MP_ROLE_PERSISTENT)
      snprintf(want, sizeof want, "KWS_PUT_IN_%s KWS_ALIGNED(%u) uint8_t %s[KWS_REGION_PERSISTENT_%s_SIZE];",
               mem, ar->alignment, sym, mem);
    else if (ar->role == MP_ROLE_SCRATCH)
      snprintf(want, sizeof want, "KWS_PUT_IN_%s KWS_ALIGNED(%u) uint8_t %s[KWS_REGION_SCRATCH_%s_SIZE];",
               mem, ar->alignment, sym, mem);
    else
      snprintf(want, sizeof want, "KWS_PUT_IN_%s KWS_ALIGNED(%u) uint8_t %s[KWS_REGION_CONST_%s_SIZE];",
               mem, ar->alignment, sym, mem);
    if (!strstr(a, want)) fail_msg("missing: %s", want);
    if (ar->is_staged) {
      mp_arena_symbol(e.p, "kws", ar, true, sym, sizeof sym);
      snprintf(want, sizeof want, "KWS_PUT_CONST_IN_%s KWS_ALIGNED(%u) const uint8_t %s[", 
               upper(e.p, ar->source_memory), ar->alignment, sym);
      if (!strstr(a, want)) fail_msg("missing: %s", want);
    }
  }
  assert_non_null(arena(e.p, MP_ROLE_PERSISTENT, MP_MEM_DTCM, NULL));
  char *src = read_out(&e, "src/kws_model.c");
  assert_non_null(strstr(src, "memset(arena_buffers[KWS_REGION_PERSISTENT_DTCM].rw, 0, "
                              "KWS_REGION_PERSISTENT_DTCM_SIZE);"));
  free(src);
  free(a);
  done(&e);
  /* the weak hydrate copies each staged arena from its source */
  plan_model(&e, "kws", STAGED, true);
  emit_ok(&e);
  src = read_out(&e, "src/kws_model.c");
  assert_non_null(strstr(src, "memcpy(arena_buffers[KWS_REGION_CONST_DTCM].rw, "
                              "arena_buffers[KWS_REGION_CONST_DTCM_SOURCE].ro, KWS_REGION_CONST_DTCM_SIZE);"));
  free(src);
  done(&e);
}

/* A program over the state_zero_points module: model_init and reset_state
 * start the int8 hidden state (tensor 1) at its zero point -4 and the int16
 * cell state (tensor 2, zero point 7) at 0, as TFLM does, over garbage. */
static const char STATE_APP[] =
    "#include \"kws_model.h\"\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "#define CHECK(c) do { if (!(c)) { printf(\"failed: %s\\n\", #c); return 1; } } while (0)\n"
    "static int all(const void *p, size_t n, unsigned v) {\n"
    "  const unsigned char *b = (const unsigned char *)p;\n"
    "  size_t i;\n"
    "  for (i = 0; i < n; i++) if (b[i] != v) return 0;\n"
    "  return p != NULL;\n"
    "}\n"
    "int main(void) {\n"
    "  static kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;\n"
    "  memset(kws_arena_buffer(KWS_REGION_PERSISTENT_DTCM), 0x5a, KWS_REGION_PERSISTENT_DTCM_SIZE);\n"
    "  CHECK(kws_reset_state(&ctx) == KWS_STATUS_NOT_INITIALISED);\n"
    "  CHECK(kws_model_init(&ctx) == KWS_STATUS_OK);\n"
    "  CHECK(kws_tensors[1].size == 16u && kws_tensors[2].size == 16u);\n"
    "  CHECK(all(kws_tensor_data(1), 16, 0xfc));\n"
    "  CHECK(all(kws_tensor_data(2), 16, 0x00));\n"
    "  memset(kws_tensor_data(1), 0x11, 16);\n"
    "  memset(kws_tensor_data(2), 0x22, 16);\n"
    "  CHECK(kws_reset_state(&ctx) == KWS_STATUS_OK);\n"
    "  CHECK(all(kws_tensor_data(1), 16, 0xfc));\n"
    "  CHECK(all(kws_tensor_data(2), 16, 0x00));\n"
    "  memset(kws_tensor_data(1), 0x33, 16);\n"
    "  CHECK(kws_model_init(&ctx) == KWS_STATUS_OK);\n"
    "  CHECK(all(kws_tensor_data(1), 16, 0xfc));\n"
    "  return 0;\n"
    "}\n";

static void model_init_and_reset_state_start_int8_states_at_their_zero_point(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "state_zero_points", COLD, true);
  emit_ok(&e);
  char *src = read_out(&e, "src/kws_model.c");
  assert_non_null(src);
  /* in context_init and in reset_state, after the arena's memset */
  const char *want = "memset(tensor_ptr(1), 0xfc, 16u); /* 1 'hidden': its zero point, as TFLM "
                     "starts a variable */";
  const char *first = strstr(src, want);
  assert_non_null(first);
  assert_non_null(strstr(first + 1, want));
  assert_null(strstr(src, "memset(tensor_ptr(2)"));
  free(src);
  run_app(&e, STATE_APP);
  done(&e);
}

static void constant_blobs_are_the_models_bytes_at_their_planned_offsets(void **state) {
  (void)state;
  for (int consts = COLD; consts <= ALL_DTCM; consts++) {
    emitted e;
    plan_model(&e, "kws", consts, true);
    emit_ok(&e);
    char *a = read_out(&e, "src/kws_arenas.c");
    uint32_t ai;
    const mp_arena *c = arena(e.p, MP_ROLE_CONSTANT, consts == COLD ? MP_MEM_MRAM : MP_MEM_DTCM, &ai);
    assert_non_null(c);
    char sym[160];
    mp_arena_symbol(e.p, "kws", c, c->is_staged, sym, sizeof sym);
    size_t n;
    uint8_t *got = parse_array(a, sym, &n);
    uint8_t *want = expected_blob(&e, ai);
    assert_int_equal(n, c->total_size);
    assert_memory_equal(got, want, n);
    free(got);
    free(want);
    free(a);
    done(&e);
  }
}

/* ---- allocate_arenas: false ------------------------------------------------- */

static void without_allocate_arenas_no_arena_is_defined_and_blobs_are_sidecar_files(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", STAGED, false);
  emit_ok(&e);
  assert_false(exists(&e, "src/kws_arenas.c"));
  char *h = read_out(&e, "include/kws_model.h");
  assert_null(strstr(h, "extern uint8_t kws_arena_"));
  assert_null(strstr(h, "extern const uint8_t kws_arena_"));
  assert_non_null(strstr(h, "#define KWS_ALLOCATE_ARENAS 0\n"));
  assert_non_null(strstr(h, "KWS_REGION_CONST_DTCM_SOURCE = 2, /* source blob of "
                            "KWS_REGION_CONST_DTCM, in mram: bind the bytes of "
                            "data/kws_arena_const_dtcm__source.bin */"));
  char *src = read_out(&e, "src/kws_model.c");
  assert_non_null(strstr(src, "static region_base arena_buffers[KWS_NUM_REGIONS];\n"));
  assert_null(strstr(src, "kws_arena_dtcm_buffer"));
  char *mk = read_out(&e, "module.mk");
  assert_null(strstr(mk, "_arenas.c"));
  uint32_t ai;
  const mp_arena *c = arena(e.p, MP_ROLE_CONSTANT, MP_MEM_DTCM, &ai);
  char path[400];
  snprintf(path, sizeof path, "%s/data/kws_arena_const_dtcm__source.bin", e.dir);
  size_t n = 0;
  char *bin = tu_read_text(path, &n);
  assert_non_null(bin);
  assert_int_equal(n, c->total_size);
  uint8_t *want = expected_blob(&e, ai);
  assert_memory_equal(bin, want, n);
  free(want);
  free(bin);
  free(mk);
  free(src);
  free(h);
  done(&e);
}

static void switching_allocate_arenas_removes_the_files_of_the_other_mode(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", STAGED, true);
  emit_ok(&e);
  assert_true(exists(&e, "src/kws_arenas.c"));
  e.cfg.memory.allocate_arenas = false;
  emit_ok(&e);
  assert_false(exists(&e, "src/kws_arenas.c"));
  assert_true(exists(&e, "data/kws_arena_const_dtcm__source.bin"));
  e.cfg.memory.allocate_arenas = true;
  emit_ok(&e);
  assert_true(exists(&e, "src/kws_arenas.c"));
  assert_false(exists(&e, "data"));
  done(&e);
}

/* ---- determinism and failure ------------------------------------------------- */

static void emitting_twice_gives_byte_identical_files(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", STAGED, true);
  emit_ok(&e);
  char first[320];
  snprintf(first, sizeof first, "%s/first", e.tmp);
  assert_int_equal(tu_system("mv '%s' '%s'", e.dir, first), 0);
  emit_ok(&e);
  assert_int_equal(tu_system("diff -r '%s' '%s' >/dev/null", first, e.dir), 0);
  assert_true(exists(&e, "kws_residency.json"));
  assert_true(exists(&e, "kernels/mpk.h"));
  done(&e);
}

static void a_prefix_that_is_no_c_identifier_is_refused_and_nothing_is_written(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  e.cfg.prefix = (char *)"2kws-x";
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_emit_module(e.p, &e.cfg, &d.sink), MP_ERR_CONFIG);
  assert_true(tu_diags_has(&d, "module.prefix '2kws-x' is not a C identifier"));
  struct stat st;
  assert_int_not_equal(stat(e.dir, &st), 0);
  done(&e);
}

static void a_plan_that_cannot_be_emitted_leaves_the_old_module_untouched(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  emit_ok(&e);
  char *before = read_out(&e, "src/kws_arenas.c");
  char *hbefore = read_out(&e, "include/kws_model.h");
  /* a constant pushed past the end of its arena: no blob can hold it */
  uint32_t ai = UINT32_MAX;
  const mp_arena *c = arena(e.p, MP_ROLE_CONSTANT, MP_MEM_MRAM, &ai);
  assert_non_null(c);
  for (uint32_t t = 0; t < e.p->n_allocs; t++)
    if (e.p->allocs[t].placed && e.p->allocs[t].arena == ai) {
      e.p->allocs[t].offset = c->total_size;
      break;
    }
  e.p->hash ^= 1; /* every file would change */
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_emit_module(e.p, &e.cfg, &d.sink), MP_ERR_INTERNAL);
  assert_true(tu_diags_has(&d, "lies outside its"));
  char *after = read_out(&e, "src/kws_arenas.c");
  char *hafter = read_out(&e, "include/kws_model.h");
  assert_string_equal(before, after);
  assert_string_equal(hbefore, hafter);
  free(before);
  free(after);
  free(hbefore);
  free(hafter);
  done(&e);
}

/* ---- text safety and compilation -------------------------------------------- */

static void names_cannot_end_a_comment_splice_a_line_or_form_a_trigraph(void **state) {
  (void)state;
  mp_buf b;
  mp_buf_init(&b);
  emit_comment_text(&b, "a*/b?\?/c\\\n", 100);
  assert_null(strstr(b.data, "*/"));
  assert_null(strstr(b.data, "??"));
  assert_null(strstr(b.data, "\\"));
  assert_null(strchr(b.data, '\n'));
  mp_buf_free(&b);
  mp_buf_init(&b);
  emit_c_string(&b, "x\"?\?/\n");
  assert_string_equal(b.data, "\"x\\\"\\?\\?/\\012\"");
  mp_buf_free(&b);
}

/* Every hostile token a name can carry, alone, doubled, and between the
 * characters a comment puts around it: the comment text never ends or opens
 * a comment, splices a line, forms a trigraph or carries a byte outside
 * printable ASCII, wherever the name is cut. */
static void no_name_can_end_or_open_a_comment(void **state) {
  (void)state;
  static const char *const tokens[] = {"*/", "/*", "*\\", "*\\\n", "\\", "\\\n", "?\?/", "?\?=", "?\?'",
                                       "?\?(", "//", "*", "/", "\xe2\x80\xae", "\x1b[31m", "\r",
                                       "\x7f", "\xc2\x9b", "\"", "'"};
  size_t n = sizeof tokens / sizeof tokens[0];
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      char name[64];
      snprintf(name, sizeof name, "%sx%s%s", tokens[i], tokens[j], tokens[i]);
      for (size_t max = 1; max <= strlen(name) + 1; max++) {
        mp_buf b;
        mp_buf_init(&b);
        /* the text between the comment opener and a star, as a worst case */
        mp_buf_puts(&b, "/* *");
        emit_comment_text(&b, name, max);
        mp_buf_puts(&b, "* */");
        const char *t = b.data + 2, *end = b.data + b.len - 2;
        assert_true(b.data != NULL);
        for (const char *c = t; c + 1 < end; c++) {
          if ((c[0] == '*' && c[1] == '/') || (c[0] == '/' && c[1] == '*') ||
              (c[0] == '?' && c[1] == '?')) {
            print_error("name '%s' (max %zu) gives %s\n", name, max, b.data);
            fail();
          }
        }
        for (const char *c = b.data; *c; c++) assert_true(*c >= 32 && *c <= 126 && *c != '\\');
        mp_buf_free(&b);
      }
    }
}

/* A C string literal carries any bytes, and only as bytes: the same
 * bytes back when the literal is compiled (checked by reading it back
 * as C does). */
static void string_literals_hold_any_bytes(void **state) {
  (void)state;
  const char *name = "a\"b\\c?\?/d*/e/*f\x1b[0m\xe2\x80\xae\x01\x7f\xff" "0123";
  mp_buf b;
  mp_buf_init(&b);
  emit_c_string(&b, name);
  const char *s = b.data;
  assert_int_equal(*s++, '"');
  char back[64];
  size_t k = 0;
  while (*s && *s != '"') {
    assert_true(*s >= 32 && *s <= 126);
    if (*s != '\\') {
      assert_false(s[0] == '?' && s[1] == '?');
      back[k++] = *s++;
      continue;
    }
    s++;
    if (*s >= '0' && *s <= '7') {
      int v = 0;
      for (int d = 0; d < 3 && *s >= '0' && *s <= '7'; d++) v = v * 8 + (*s++ - '0');
      back[k++] = (char)v;
    } else {
      assert_non_null(strchr("\"\\?", *s));
      back[k++] = *s++;
    }
  }
  back[k] = '\0';
  assert_string_equal(s, "\"");
  assert_string_equal(back, name);
  mp_buf_free(&b);
}

static void operators_without_a_kernel_are_listed_in_the_header(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "custom_ops", COLD, true);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(strstr(h, " * Operators without a built-in kernel (2):\n"
                            " *   op 1 MP_FX_CUSTOM: memplan has no kernel for MP_FX_CUSTOM\n"
                            " *   op 2 MP_FX_CUSTOM: memplan has no kernel for MP_FX_CUSTOM\n"));
  free(h);
  done(&e);
}

static void the_module_compiles_as_pedantic_c99_for_the_host(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", STAGED, true);
  emit_ok(&e);
  /* kernels as weak references (linked or not), and as plain ones */
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude "
                             "-Ikernels -c src/kws_model.c -o '%s/m.o' && cc -std=c99 -Wall -Wextra "
                             "-Wpedantic -Werror -Iinclude -Ikernels -DKWS_WITH_KERNELS=1 -c "
                             "src/kws_model.c -o '%s/m.o' && cc -std=c99 -Wall -Wextra "
                             "-Wpedantic -Werror -Iinclude -c src/kws_arenas.c -o '%s/a.o'",
                             e.dir, e.tmp, e.tmp, e.tmp),
                   0);
  done(&e);
}

static void arenas_and_blobs_of_one_memory_take_separate_sections(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", ALL_DTCM, true);
  emit_ok(&e);
  char *a = read_out(&e, "src/kws_arenas.c");
  assert_non_null(strstr(a, "KWS_PUT_IN_DTCM KWS_ALIGNED(16) uint8_t kws_arena_dtcm_buffer["));
  assert_non_null(strstr(a, "KWS_PUT_CONST_IN_DTCM KWS_ALIGNED(16) const uint8_t "
                            "kws_arena_const_dtcm__blob["));
  free(a);
  /* a .bss.* section for the arenas alone: no section type conflict with the
   * const blob, and no bytes in the object file for the zeroed arena */
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Werror -Iinclude "
                             "-D'KWS_PUT_IN_DTCM=__attribute__((section(\".bss.dtcm\")))' "
                             "-D'KWS_PUT_CONST_IN_DTCM=__attribute__((section(\".rodata.dtcm\")))' "
                             "-c src/kws_arenas.c -o '%s/a.o' && "
                             "objdump -h '%s/a.o' | grep -A1 ' .bss.dtcm ' | grep -q ALLOC && "
                             "! objdump -h '%s/a.o' | grep -A1 ' .bss.dtcm ' | grep -q CONTENTS",
                             e.dir, e.tmp, e.tmp, e.tmp),
                   0);
  done(&e);
}

static void the_header_names_each_inputs_and_outputs_type_shape_and_quantisation(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(strstr(h, "/* Input 0: tensor 0 'input', int8 [1,49,10,1], 490 bytes */\n"
                            "#define KWS_INPUT0_TENSOR 0u\n"
                            "#define KWS_INPUT0_DTYPE KWS_DTYPE_INT8\n"
                            "#define KWS_INPUT0_SIZE 490u\n"
                            "#define KWS_INPUT0_ELEMENTS 490u\n"
                            "#define KWS_INPUT0_ALIGN 1u\n"
                            "#define KWS_INPUT0_RANK 4u\n"
                            "#define KWS_INPUT0_SHAPE {1, 49, 10, 1}\n"
                            "#define KWS_INPUT0_DIM0 1\n"
                            "#define KWS_INPUT0_DIM1 49\n"
                            "#define KWS_INPUT0_DIM2 10\n"
                            "#define KWS_INPUT0_DIM3 1\n"
                            "#define KWS_INPUT0_QUANTISED 1\n"
                            "#define KWS_INPUT0_SCALE 0.5f\n"
                            "#define KWS_INPUT0_ZERO_POINT 80\n"
                            "#define KWS_INPUT0_QUANTISE(x) kws_quantise_int8((x), "
                            "KWS_INPUT0_SCALE, KWS_INPUT0_ZERO_POINT)\n"));
  assert_non_null(strstr(h, "#define KWS_OUTPUT0_SCALE 0.00390625f\n"
                            "#define KWS_OUTPUT0_ZERO_POINT (-128)\n"
                            "#define KWS_OUTPUT0_DEQUANTISE(q) kws_dequantise_int8((q), "
                            "KWS_OUTPUT0_SCALE, KWS_OUTPUT0_ZERO_POINT)\n"));
  /* only the helpers of the types the I/O has */
  assert_non_null(strstr(h, "static inline int8_t kws_quantise_int8(float x, float scale, "));
  assert_null(strstr(h, "kws_quantise_uint8"));
  free(h);
  done(&e);
}

static void tensors_without_per_tensor_quantisation_say_so_and_get_no_helper(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "intermediates", COLD, true);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(strstr(h, "#define KWS_INPUT0_QUANTISED 0\n#define KWS_INPUT0_SCALE 0.0f\n"
                            "#define KWS_INPUT0_ZERO_POINT 0\n"));
  assert_null(strstr(h, "_QUANTISE("));
  assert_null(strstr(h, "kws_quantise_"));
  free(h);
  done(&e);
}

/* A program against the emitted KWS module: ctx.inputs[0] / outputs[0]
 * describe the tensors as the header's constants do, the helpers round
 * half away from zero and saturate, and a quantised input runs. */
static const char QUANT_APP[] =
    "#include \"kws_model.h\"\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "#define CHECK(c) do { if (!(c)) { printf(\"failed: %s\\n\", #c); return 1; } } while (0)\n"
    "int main(void) {\n"
    "  static kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;\n"
    "  static const int32_t shape[KWS_INPUT0_RANK] = KWS_INPUT0_SHAPE;\n"
    "  int8_t *in;\n"
    "  float zero = 0.0f, sum = 0.0f;\n"
    "  uint32_t k;\n"
    "  CHECK(kws_model_init(&ctx) == KWS_STATUS_OK);\n"
    "  CHECK(ctx.inputs[0].tensor == KWS_INPUT0_TENSOR && ctx.outputs[0].tensor == KWS_OUTPUT0_TENSOR);\n"
    "  CHECK(ctx.inputs[0].dtype == KWS_INPUT0_DTYPE && ctx.inputs[0].rank == KWS_INPUT0_RANK);\n"
    "  CHECK(ctx.inputs[0].size == KWS_INPUT0_SIZE && ctx.outputs[0].size == KWS_OUTPUT0_SIZE);\n"
    "  CHECK(memcmp(ctx.inputs[0].shape, shape, sizeof shape) == 0);\n"
    "  CHECK(ctx.inputs[0].scale == KWS_INPUT0_SCALE && ctx.inputs[0].zero_point == KWS_INPUT0_ZERO_POINT);\n"
    "  CHECK(ctx.outputs[0].scale == KWS_OUTPUT0_SCALE && ctx.outputs[0].zero_point == KWS_OUTPUT0_ZERO_POINT);\n"
    "  CHECK(ctx.outputs[0].shape[1] == KWS_OUTPUT0_DIM1);\n"
    /* scale 0.5, zero point 80 */
    "  CHECK(KWS_INPUT0_QUANTISE(0.0f) == 80);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(0.25f) == 81);\n"   /* 0.5 rounds up */
    "  CHECK(KWS_INPUT0_QUANTISE(-0.25f) == 79);\n"  /* -0.5 rounds down */
    "  CHECK(KWS_INPUT0_QUANTISE(0.2f) == 80);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(-0.3f) == 79);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(23.5f) == 127);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(24.0f) == 127);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(-104.0f) == -128);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(1e30f) == 127 && KWS_INPUT0_QUANTISE(-1e30f) == -128);\n"
    "  CHECK(KWS_INPUT0_QUANTISE(zero / zero) == 80);\n"
    /* scale 1/256, zero point -128 */
    "  CHECK(KWS_OUTPUT0_DEQUANTISE(-128) == 0.0f);\n"
    "  CHECK(KWS_OUTPUT0_DEQUANTISE(127) == 0.99609375f);\n"
    "  CHECK(KWS_OUTPUT0_DEQUANTISE(0) == 0.5f);\n"
    "  in = (int8_t *)ctx.inputs[0].data;\n"
    "  for (k = 0; k < KWS_INPUT0_ELEMENTS; k++) in[k] = KWS_INPUT0_QUANTISE((float)(k % 7) - 3.0f);\n"
    "  CHECK(kws_model_run(&ctx) == KWS_STATUS_OK);\n"
    "  for (k = 0; k < KWS_OUTPUT0_ELEMENTS; k++)\n"
    "    sum += KWS_OUTPUT0_DEQUANTISE(((const int8_t *)ctx.outputs[0].data)[k]);\n"
    "  CHECK(sum > 0.9f && sum < 1.1f);\n" /* softmax scores */
    "  return 0;\n"
    "}\n";

static void the_io_descriptors_and_quantise_helpers_work_in_a_host_program(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  emit_ok(&e);
  run_app(&e, QUANT_APP);
  done(&e);
}

static void memories_of_any_name_become_regions_symbols_and_placement_macros(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  mp_plan_free(&e.p);
  /* kws on the STM32H743: activations in AXI SRAM, weights read in place from flash */
  mp_platform pf;
  assert_true(mp_platform_builtin("stm32h743", &pf));
  mp_memory axi, flash;
  assert_true(mp_platform_find_memory(&pf, "axi_sram", &axi));
  assert_true(mp_platform_find_memory(&pf, "flash", &flash));
  mp_rule rules[2];
  memset(rules, 0, sizeof rules);
  rules[0].type = MP_ROLE_SCRATCH;
  rules[0].attributes = (mp_attributes){.has_memory = true, .memory = axi};
  rules[1].type = MP_ROLE_CONSTANT;
  rules[1].attributes = (mp_attributes){.has_memory = true, .memory = flash};
  e.cfg.platform = pf;
  e.cfg.memory.rules = rules;
  e.cfg.memory.n_rules = 2;
  assert_int_equal(mp_plan_build(e.g, &pf, &e.cfg.memory, NULL, &e.p), MP_OK);
  assert_int_equal(mp_plan_verify(e.p, NULL), MP_OK);
  /* regions by role, then memory name */
  assert_int_equal(e.p->n_arenas, 2);
  assert_int_equal(e.p->arenas[0].memory, axi);
  assert_int_equal(e.p->arenas[0].alignment, 32); /* the bank's alignment */
  assert_int_equal(e.p->arenas[1].memory, flash);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(strstr(h, "  KWS_REGION_SCRATCH_AXI_SRAM = 0, /* scratch arena in axi_sram: "
                            "kws_arena_axi_sram_buffer */\n"));
  assert_non_null(strstr(h, "  KWS_REGION_CONST_FLASH = 1, /* cold constants in flash: "
                            "kws_arena_const_flash__blob */\n"));
  assert_non_null(strstr(h, "#define KWS_REGION_SCRATCH_AXI_SRAM_ALIGN 32u\n"));
  free(h);
  char *a = read_out(&e, "src/kws_arenas.c");
  assert_non_null(strstr(a, "KWS_PUT_IN_AXI_SRAM KWS_ALIGNED(32) uint8_t kws_arena_axi_sram_buffer["));
  free(a);
  char *j = read_out(&e, "kws_residency.json");
  assert_non_null(strstr(j, "\"memory\": \"axi_sram\""));
  assert_non_null(strstr(j, "\"memory\": \"flash\",\n      \"read_only\": true"));
  free(j);
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude "
                             "-Ikernels -DKWS_WITH_KERNELS=1 -c src/kws_model.c -o '%s/m.o' && "
                             "cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude -c "
                             "src/kws_arenas.c -o '%s/a.o'",
                             e.dir, e.tmp, e.tmp),
                   0);
  done(&e);
}

static void crc32_is_zlibs(void **state) {
  (void)state;
  assert_int_equal(emit_crc32((const uint8_t *)"123456789", 9), 0xCBF43926u); /* the check value */
  assert_int_equal(emit_crc32(NULL, 0), 0);
}

/* A host program binding the sidecars of a staged KWS module: the CRC-32
 * check of hydrate_constants passes with the right bytes, and with one
 * byte changed init fails, naming the region. */
static const char CRC_APP[] =
    "#include \"kws_model.h\"\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "static uint8_t scratch[KWS_REGION_SCRATCH_DTCM_SIZE] __attribute__((aligned(64)));\n"
    "static uint8_t staged[KWS_REGION_CONST_DTCM_SIZE] __attribute__((aligned(64)));\n"
    "static uint8_t source[KWS_REGION_CONST_DTCM_SOURCE_SIZE] __attribute__((aligned(64)));\n"
    "int main(int argc, char **argv) {\n"
    "  kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;\n"
    "  uint32_t region = 99;\n"
    "  FILE *f = fopen(argv[1], \"rb\");\n"
    "  if (!f || fread(source, 1, sizeof source, f) != sizeof source) return 10;\n"
    "  fclose(f);\n"
    "  if (argc > 2) source[atoi(argv[2])] ^= 1;\n"
    "  kws_arena_binding_t b[3] = {{KWS_REGION_SCRATCH_DTCM, scratch, sizeof scratch},\n"
    "                              {KWS_REGION_CONST_DTCM, staged, sizeof staged},\n"
    "                              {KWS_REGION_CONST_DTCM_SOURCE, source, sizeof source}};\n"
    "  if (kws_bind_arenas(b, 3) != KWS_STATUS_OK) return 11;\n"
    "  int32_t st = kws_model_init(&ctx);\n"
    "  int32_t chk = kws_check_constants(&region);\n"
    "  printf(\"%s %d %s %u\\n\", kws_status_str(st), (int)ctx.error_code, kws_status_str(chk),\n"
    "         (unsigned)region);\n"
    "  return 0;\n"
    "}\n";

static void sidecars_carry_a_crc32_that_hydrate_constants_can_check(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", STAGED, false);
  emit_ok(&e);
  char path[400];
  snprintf(path, sizeof path, "%s/data/kws_arena_const_dtcm__source.bin", e.dir);
  size_t n = 0;
  char *bin = tu_read_text(path, &n);
  assert_non_null(bin);
  char *h = read_out(&e, "include/kws_model.h");
  char want[200];
  snprintf(want, sizeof want, "#define KWS_REGION_CONST_DTCM_SOURCE_CRC32 0x%08xu\n",
           (unsigned)emit_crc32((const uint8_t *)bin, n));
  assert_non_null(strstr(h, want));
  assert_null(strstr(h, "KWS_REGION_SCRATCH_DTCM_CRC32")); /* arenas have no bytes */
  free(h);
  free(bin);
  write_app(&e, CRC_APP, path, sizeof path);
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Werror -Iinclude -Ikernels "
                             "-DKWS_WITH_KERNELS=1 -DKWS_CHECK_CONSTANTS=1 '%s/app.c' "
                             "src/kws_model.c kernels/*.c -lm -o '%s/app' && "
                             "'%s/app' data/kws_arena_const_dtcm__source.bin > '%s/good' && "
                             "'%s/app' data/kws_arena_const_dtcm__source.bin 100 > '%s/bad'",
                             e.dir, e.tmp, e.tmp, e.tmp, e.tmp, e.tmp, e.tmp),
                   0);
  snprintf(path, sizeof path, "%s/good", e.tmp);
  char *good = tu_read_text(path, NULL);
  snprintf(path, sizeof path, "%s/bad", e.tmp);
  char *bad = tu_read_text(path, NULL);
  assert_string_equal(good, "KWS_STATUS_OK 0 KWS_STATUS_OK 2\n");
  assert_string_equal(bad, "KWS_STATUS_HYDRATE_FAILED -14 KWS_STATUS_BAD_CONSTANTS 2\n");
  free(good);
  free(bad);
  done(&e);
}

/* A kernel hook that runs SOFTMAX itself from op->params and the tensor
 * descriptors, and checks every other operator's params: the outputs
 * equal the built-in run's. */
static const char HOOK_APP[] =
    "#include \"kws_model.h\"\n"
    "#include \"mpk.h\"\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "static int softmax_runs, bad;\n"
    "static int32_t hook(struct kws_model_context_t *ctx, const kws_op_t *op, kws_kernel_phase_t ph) {\n"
    "  (void)ctx;\n"
    "  if (op->params == NULL || op->params_type == NULL) bad++;\n"
    "  if (op->builtin != 25 || ph != KWS_PHASE_RUN) return KWS_KERNEL_DEFAULT;\n"
    "  if (strcmp(op->params_type, \"mpk_softmax_s8_params\") != 0) bad++;\n"
    "  const kws_tensor_t *in = &kws_tensors[op->inputs[0]], *out = &kws_tensors[op->outputs[0]];\n"
    "  if (in->dtype != KWS_DTYPE_INT8 || out->size != KWS_OUTPUT0_SIZE) bad++;\n"
    "  softmax_runs++;\n"
    "  return mpk_softmax_s8((const mpk_softmax_s8_params *)op->params,\n"
    "                        (const int8_t *)kws_tensor_data((uint32_t)op->inputs[0]),\n"
    "                        (int8_t *)kws_tensor_data((uint32_t)op->outputs[0]), NULL);\n"
    "}\n"
    "int main(void) {\n"
    "  kws_model_context_t a = KWS_MODEL_CONTEXT_INIT, b = KWS_MODEL_CONTEXT_INIT;\n"
    "  int8_t want[KWS_OUTPUT0_SIZE];\n"
    "  uint32_t k;\n"
    "  if (kws_model_init(&a) != KWS_STATUS_OK) return 1;\n"
    "  for (k = 0; k < KWS_INPUT0_SIZE; k++) ((int8_t *)a.inputs[0].data)[k] = (int8_t)(k * 37u);\n"
    "  if (kws_model_run(&a) != KWS_STATUS_OK) return 2;\n"
    "  memcpy(want, a.outputs[0].data, sizeof want);\n"
    "  memset(a.outputs[0].data, 0x55, sizeof want);\n"
    "  b.kernel_hook = hook;\n"
    "  if (kws_model_init(&b) != KWS_STATUS_OK) return 3;\n"
    "  for (k = 0; k < KWS_INPUT0_SIZE; k++) ((int8_t *)b.inputs[0].data)[k] = (int8_t)(k * 37u);\n"
    "  if (kws_model_run(&b) != KWS_STATUS_OK) return 4;\n"
    "  if (memcmp(want, b.outputs[0].data, sizeof want) != 0) return 5;\n"
    "  printf(\"%d %d\\n\", softmax_runs, bad);\n"
    "  return 0;\n"
    "}\n";

static void a_kernel_hook_gets_the_params_and_tensors_to_run_an_operator_itself(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  emit_ok(&e);
  char *src = read_out(&e, "src/kws_model.c");
  const char *row = strstr(src, "{12u, 25, ");
  assert_non_null(row);
  assert_true(op_row_names(row, "{12u, 25, ", "SOFTMAX",
                           ", 0u, 1u, 1u, &op_tensors[45], &op_tensors[46], -1, &op12_params, ",
                           src));
  const char *pt = strstr(row, "&op12_params, ") + strlen("&op12_params, ");
  assert_true(op_row_names(pt, "", "mpk_softmax_s8_params", "},\n", src));
  free(src);
  char path[400];
  write_app(&e, HOOK_APP, path, sizeof path);
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Werror -Iinclude -Ikernels "
                             "-DKWS_WITH_KERNELS=1 '%s/app.c' src/kws_model.c src/kws_arenas.c "
                             "kernels/*.c -lm -o '%s/app' && '%s/app' > '%s/hook.txt'",
                             e.dir, e.tmp, e.tmp, e.tmp, e.tmp),
                   0);
  snprintf(path, sizeof path, "%s/hook.txt", e.tmp);
  char *out = tu_read_text(path, NULL);
  assert_string_equal(out, "1 0\n"); /* one softmax run by the hook; every op had its params */
  free(out);
  done(&e);
}

/* One run of KWS on a fixed input, the scores printed: with memory.io
 * caller (CALLER defined) from the application's own buffers, checked for
 * NULL and short buffers first. */
static const char IO_APP[] =
    "#include \"kws_model.h\"\n"
    "#include <stdio.h>\n"
    "int main(void) {\n"
    "  static kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;\n"
    "  uint32_t k;\n"
    "  if (kws_model_init(&ctx) != KWS_STATUS_OK) return 1;\n"
    "#ifdef CALLER\n"
    "  static int8_t in[KWS_INPUT0_SIZE], out[KWS_OUTPUT0_SIZE];\n"
    "  if (ctx.inputs[0].data != NULL || ctx.inputs[0].size != KWS_INPUT0_SIZE) return 2;\n"
    "  int32_t st = kws_model_run(&ctx);\n"
    "  printf(\"%s %d\\n\", kws_status_str(st), (int)ctx.error_code);\n"
    "  ctx.inputs[0].data = in;\n"
    "  ctx.outputs[0].data = out;\n"
    "  ctx.outputs[0].size = sizeof out - 1;\n"
    "  st = kws_model_run(&ctx);\n"
    "  printf(\"%s %d\\n\", kws_status_str(st), (int)ctx.error_code);\n"
    "  ctx.outputs[0].size = sizeof out;\n"
    "#else\n"
    "  int8_t *in = ctx.inputs[0].data;\n"
    "  const int8_t *out = ctx.outputs[0].data;\n"
    "#endif\n"
    "  for (k = 0; k < KWS_INPUT0_SIZE; k++) in[k] = (int8_t)(k * 29u + 3u);\n"
    "  if (kws_model_run(&ctx) != KWS_STATUS_OK) return 3;\n"
    "  for (k = 0; k < KWS_OUTPUT0_SIZE; k++) printf(\"%d \", out[k]);\n"
    "  printf(\"\\n\");\n"
    "  return 0;\n"
    "}\n";

static void with_caller_io_the_module_runs_on_the_applications_buffers_and_checks_them(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  char arena_dir[400];
  snprintf(arena_dir, sizeof arena_dir, "%s/arena", e.tmp);
  e.cfg.module_path = arena_dir;
  emit_ok(&e);
  mp_plan_free(&e.p);
  e.cfg.memory.io_caller = true;
  e.cfg.module_path = e.dir;
  assert_int_equal(mp_plan_build(e.g, &e.cfg.platform, &e.cfg.memory, NULL, &e.p), MP_OK);
  emit_ok(&e);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(strstr(h, "#define KWS_IO_CALLER 1\n"));
  assert_non_null(strstr(h, "#define KWS_INPUT0_ALIGN 1u\n"));
  assert_non_null(strstr(h, "KWS_STATUS_BAD_IO = -15"));
  free(h);
  char *src = read_out(&e, "src/kws_model.c");
  char want[120];
  snprintf(want, sizeof want, "{(uint8_t)(KWS_NUM_REGIONS + 0), 0u, 490u, KWS_DTYPE_INT8");
  assert_non_null(strstr(src, want));
  free(src);
  char *j = read_out(&e, "kws_residency.json");
  assert_non_null(strstr(j, "\"io\": \"caller\""));
  assert_non_null(strstr(j, "\"region_id\": null,\n      \"offset\": null,\n      \"caller_buffer\": 0\n"));
  free(j);
  char path[400];
  write_app(&e, IO_APP, path, sizeof path);
  assert_int_equal(tu_system("cd '%s' && cc -std=c99 -Wall -Wextra -Werror -Iinclude -Ikernels "
                             "-DKWS_WITH_KERNELS=1 '%s/app.c' src/*.c kernels/*.c -lm -o '%s/a' && "
                             "'%s/a' > '%s/a.txt' && cd '%s' && cc -std=c99 -Wall -Wextra -Werror "
                             "-Iinclude -Ikernels -DKWS_WITH_KERNELS=1 -DCALLER '%s/app.c' src/*.c "
                             "kernels/*.c -lm -o '%s/c' && '%s/c' > '%s/c.txt'",
                             arena_dir, e.tmp, e.tmp, e.tmp, e.tmp, e.dir, e.tmp, e.tmp, e.tmp,
                             e.tmp),
                   0);
  snprintf(path, sizeof path, "%s/a.txt", e.tmp);
  char *a = tu_read_text(path, NULL);
  snprintf(path, sizeof path, "%s/c.txt", e.tmp);
  char *c = tu_read_text(path, NULL);
  assert_non_null(a);
  assert_non_null(c);
  char expect[600];
  snprintf(expect, sizeof expect, "KWS_STATUS_BAD_IO 0\nKWS_STATUS_BAD_IO 1\n%s", a);
  assert_string_equal(c, expect);
  free(a);
  free(c);
  done(&e);
}

/* The module's own tables: measured on the module in memory, the same in
 * the residency report, attributed to the platform's read-only memory by
 * default and to module.tables_memory (with its placement macro and a load
 * image when it is RAM) when given. */
static void the_module_tables_are_counted_per_memory(void **state) {
  (void)state;
  emitted e;
  plan_model(&e, "kws", COLD, true);
  mp_module_tables t;
  assert_int_equal(mp_module_tables_measure(e.p, &e.cfg, NULL, &t), MP_OK);
  assert_true(t.has_memory);
  assert_int_equal(t.memory, MP_MEM_MRAM); /* apollo510's one read-only memory */
  uint64_t sum[3] = {0, 0, 0}, params = 0;
  uint32_t n_params = 0;
  bool tensors = false;
  for (uint32_t i = 0; i < t.n_items; i++) {
    sum[t.items[i].section] += t.items[i].size;
    if (t.items[i].params) params += t.items[i].size;
    if (t.items[i].params && !strchr(strchr(t.items[i].symbol, '_') + 1, '_')) n_params++;
    if (!strcmp(t.items[i].symbol, "kws_tensors")) {
      tensors = true;
      assert_int_equal(t.items[i].size, 20u * e.g->n_tensors);
    }
  }
  assert_true(tensors);
  assert_int_equal(sum[MP_TABLE_RODATA], t.rodata);
  assert_int_equal(sum[MP_TABLE_DATA], t.data);
  assert_int_equal(sum[MP_TABLE_BSS], t.bss);
  assert_int_equal(params, t.params);
  assert_int_equal(n_params, 12); /* every op but the RESHAPE view has a params struct */
  assert_true(t.params > 0 && t.params < t.rodata);
  char *sum_text = mp_module_tables_summary(e.p, &t);
  char want[200];
  snprintf(want, sizeof want, "tables    %llu bytes read-only in mram (kernel params %llu)",
           (unsigned long long)t.rodata, (unsigned long long)t.params);
  assert_non_null(strstr(sum_text, want));
  free(sum_text);
  char html_path[320];
  snprintf(html_path, sizeof html_path, "%s/r.html", e.tmp);
  e.cfg.report_path = html_path;
  emit_ok(&e);
  char *html = tu_read_text(html_path, NULL);
  assert_non_null(html);
  snprintf(want, sizeof want, "data-tables=\"%llu\"><span class=\"name\">mram</span>",
           (unsigned long long)t.rodata);
  assert_non_null(strstr(html, want)); /* the HTML counts them on mram's bank */
  assert_non_null(strstr(html, "data-tables=\"0\"><span class=\"name\">dtcm</span>"));
  free(html);
  e.cfg.report_path = NULL;
  char *json = read_out(&e, "kws_residency.json");
  snprintf(want, sizeof want, "\"memory\": \"mram\",\n    \"target_bits\": 32,\n    \"rodata\": %llu,",
           (unsigned long long)t.rodata);
  assert_non_null(strstr(json, want));
  snprintf(want, sizeof want, "\"load_image\": 0,\n      \"tables\": %llu\n",
           (unsigned long long)t.rodata);
  assert_non_null(strstr(json, want)); /* mram's entry */
  free(json);
  char *src = read_out(&e, "src/kws_model.c");
  assert_null(strstr(src, "PUT_CONST_IN_MRAM static")); /* plain .rodata by default */
  free(src);
  uint64_t rodata = t.rodata;
  mp_module_tables_free(&t);

  /* in dtcm: that memory's macro defines them, and they need a load image */
  e.cfg.has_tables_memory = true;
  e.cfg.tables_memory = MP_MEM_DTCM;
  assert_int_equal(mp_module_tables_measure(e.p, &e.cfg, NULL, &t), MP_OK);
  assert_int_equal(t.memory, MP_MEM_DTCM);
  assert_int_equal(t.rodata, rodata);
  sum_text = mp_module_tables_summary(e.p, &t);
  assert_non_null(strstr(sum_text, "dtcm is RAM: the read-only tables need a load image"));
  free(sum_text);
  emit_ok(&e);
  src = read_out(&e, "src/kws_model.c");
  assert_non_null(strstr(src, "KWS_PUT_CONST_IN_DTCM static const region_need regions["));
  assert_non_null(strstr(src, "KWS_PUT_CONST_IN_DTCM static const mpk_conv_s8_params op0_params"));
  assert_non_null(strstr(src, "KWS_PUT_CONST_IN_DTCM static const int32_t op0_params_multiplier["));
  assert_non_null(strstr(src, "KWS_PUT_CONST_IN_DTCM const kws_tensor_t kws_tensors["));
  assert_null(strstr(src, "KWS_PUT_CONST_IN_DTCM static region_base")); /* writable: no macro */
  free(src);
  char *h = read_out(&e, "include/kws_model.h");
  assert_non_null(strstr(h, "#ifndef KWS_PUT_CONST_IN_DTCM\n#define KWS_PUT_CONST_IN_DTCM\n#endif"));
  free(h);
  json = read_out(&e, "kws_residency.json");
  snprintf(want, sizeof want, "\"memory\": \"dtcm\",\n      \"read_only\": false,");
  const char *dtcm = strstr(json, want);
  assert_non_null(dtcm);
  snprintf(want, sizeof want, "\"load_image\": %llu,\n      \"tables\": %llu\n",
           (unsigned long long)(e.p->memories[MP_MEM_DTCM].load_image + rodata),
           (unsigned long long)rodata);
  assert_non_null(strstr(dtcm, want));
  free(json);
  mp_module_tables_free(&t);
  done(&e);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(with_caller_io_the_module_runs_on_the_applications_buffers_and_checks_them),
      cmocka_unit_test(a_kernel_hook_gets_the_params_and_tensors_to_run_an_operator_itself),
      cmocka_unit_test(crc32_is_zlibs),
      cmocka_unit_test(sidecars_carry_a_crc32_that_hydrate_constants_can_check),
      cmocka_unit_test(
          the_header_carries_the_plan_hash_counts_and_every_region_with_size_and_alignment),
      cmocka_unit_test(the_header_declares_the_whole_api_returning_int32),
      cmocka_unit_test(tensor_descriptors_are_region_offset_size_dtype_shape_of_the_plan),
      cmocka_unit_test(every_arena_symbol_is_defined_with_its_size_alignment_and_placement),
      cmocka_unit_test(model_init_and_reset_state_start_int8_states_at_their_zero_point),
      cmocka_unit_test(constant_blobs_are_the_models_bytes_at_their_planned_offsets),
      cmocka_unit_test(without_allocate_arenas_no_arena_is_defined_and_blobs_are_sidecar_files),
      cmocka_unit_test(switching_allocate_arenas_removes_the_files_of_the_other_mode),
      cmocka_unit_test(emitting_twice_gives_byte_identical_files),
      cmocka_unit_test(a_prefix_that_is_no_c_identifier_is_refused_and_nothing_is_written),
      cmocka_unit_test(a_plan_that_cannot_be_emitted_leaves_the_old_module_untouched),
      cmocka_unit_test(names_cannot_end_a_comment_splice_a_line_or_form_a_trigraph),
      cmocka_unit_test(no_name_can_end_or_open_a_comment),
      cmocka_unit_test(string_literals_hold_any_bytes),
      cmocka_unit_test(operators_without_a_kernel_are_listed_in_the_header),
      cmocka_unit_test(the_module_compiles_as_pedantic_c99_for_the_host),
      cmocka_unit_test(arenas_and_blobs_of_one_memory_take_separate_sections),
      cmocka_unit_test(the_header_names_each_inputs_and_outputs_type_shape_and_quantisation),
      cmocka_unit_test(tensors_without_per_tensor_quantisation_say_so_and_get_no_helper),
      cmocka_unit_test(the_io_descriptors_and_quantise_helpers_work_in_a_host_program),
      cmocka_unit_test(memories_of_any_name_become_regions_symbols_and_placement_macros),
      cmocka_unit_test(the_module_tables_are_counted_per_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
