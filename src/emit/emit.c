/*
 * emit.c — mp_emit_module: a verified plan in, the C module out.
 *
 * The one idea: gather first, format second, write last.  The emitter
 * gathers what the module says into an emit_ctx (the regions in id order,
 * the bytes of every constant arena at its planned offsets, the kernel of
 * every operator), has one part per file (parts.h) format it into memory
 * with the helpers of text.c, and only
 * when every file is complete hands them, with the reports, to output.c,
 * which writes them all or nothing.
 *
 * Region ids: arena i of the plan is region i (the residency report's
 * region_id); the source blobs of staged constant arenas follow in arena
 * order (the report's source_region_id).
 *
 * The emitter trusts the plan: it does not verify it (mp_plan_verify does,
 * before).  It does check what it needs to write sound C: a C-identifier
 * prefix, constant bytes inside their arena, sizes that fit 32 bits.
 * Output depends only on the plan, the config and the model: no clock, no
 * addresses, no absolute paths.
 */
#include "emit/emit.h"
#include "emit/parts.h"
#include "emit/text.h"

#include "util/diag.h"
#include "emit/output.h"
#include "emit/report.h"
#include "plan/symbols.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static mp_loc noloc(void) { return MP_LOC_NONE; }

/* ---- gathering ----------------------------------------------------------- */

static bool valid_prefix(const char *s) { return emit_is_identifier(s, MP_PREFIX_MAX); }

static const char *role_enum(mp_role r) {
  return r == MP_ROLE_SCRATCH ? "SCRATCH" : r == MP_ROLE_PERSISTENT ? "PERSISTENT" : "CONST";
}

/* The bytes of constant arena `ai`: every constant at its planned offset,
 * zero padding between.  NULL (with a diagnostic) when a constant has no
 * data or does not fit. */
static uint8_t *constant_bytes(emit_ctx *e, uint32_t ai, mp_status *st) {
  const mp_plan *p = e->plan;
  const mp_arena *a = &p->arenas[ai];
  uint8_t *bytes = mp_pool_alloc(e->pool, (size_t)a->total_size, 1);
  if (!bytes) {
    *st = MP_ERR_NOMEM;
    return NULL;
  }
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *al = &p->allocs[t];
    if (!al->placed || al->arena != ai || al->alias_of >= 0) continue;
    const mp_tensor *x = &e->g->tensors[t];
    if (al->size > 0 && !x->data) {
      mp_error(e->dx, noloc(), "cannot emit constant tensor %u '%s': it has no data in the model",
               t, x->name);
      *st = MP_ERR_INTERNAL;
      return NULL;
    }
    if (al->offset > a->total_size || al->size > a->total_size - al->offset) {
      mp_error(e->dx, noloc(), "cannot emit constant tensor %u '%s': [%llu, %llu) lies outside "
               "its %llu-byte arena", t, x->name, (unsigned long long)al->offset,
               (unsigned long long)(al->offset + al->size), (unsigned long long)a->total_size);
      *st = MP_ERR_INTERNAL;
      return NULL;
    }
    if (al->size) memcpy(bytes + al->offset, x->data, (size_t)al->size);
  }
  return bytes;
}

static mp_status gather_regions(emit_ctx *e) {
  const mp_plan *p = e->plan;
  uint32_t n = p->n_arenas;
  for (uint32_t i = 0; i < p->n_arenas; i++) e->n_staged += p->arenas[i].is_staged;
  n += e->n_staged;
  uint32_t n_io = e->io_caller ? e->g->n_inputs + e->g->n_outputs : 0;
  if (n + n_io >= EMIT_NO_REGION) {
    mp_error(e->dx, noloc(), "cannot emit %u regions and %u caller buffers (at most %u in all)",
             n, n_io, EMIT_NO_REGION - 1);
    return MP_ERR_INTERNAL;
  }
  e->regions = mp_pool_alloc(e->pool, n ? n : 1, sizeof(emit_region));
  if (!e->regions) return MP_ERR_NOMEM;
  e->n_regions = n;
  uint32_t next_source = p->n_arenas;
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->total_size == 0 || a->total_size > UINT32_MAX) {
      mp_error(e->dx, noloc(), "cannot emit the %s %s arena of %llu bytes (1 to 2^32-1 bytes)",
               mp_role_name(a->role), emit_mem_name(e, a->memory),
               (unsigned long long)a->total_size);
      return MP_ERR_UNSUPPORTED;
    }
    emit_region *r = &e->regions[i];
    r->id = i;
    r->arena = i;
    r->a = a;
    r->memory = a->memory;
    r->size = a->total_size;
    r->align = a->alignment;
    snprintf(r->enum_name, sizeof r->enum_name, "%s_REGION_%s_%s", e->up, role_enum(a->role),
             emit_mem_upper(e, a->memory));
    mp_arena_symbol(e->plan, e->prefix, a, false, r->symbol, sizeof r->symbol);
    const mp_shared_scratch *sh = e->cfg->shared;
    if (sh && a->role == MP_ROLE_SCRATCH && sh->size[a->memory] >= a->total_size) {
      r->shared = true;
      r->shared_define = sh->owner[a->memory] == sh->self;
      r->shared_size = sh->size[a->memory];
      mp_module_arena_symbol(p, e->prefix, sh, a, r->symbol, sizeof r->symbol);
      snprintf(r->shared_size_macro, sizeof r->shared_size_macro, "%s_SHARED_SCRATCH_%s_SIZE",
               e->up, emit_mem_upper(e, a->memory));
    }
    const uint8_t *bytes = NULL;
    if (a->role == MP_ROLE_CONSTANT) {
      mp_status st = MP_OK;
      bytes = constant_bytes(e, i, &st);
      if (!bytes) return st;
    }
    if (a->role == MP_ROLE_CONSTANT && !a->is_staged) {
      r->is_const = r->has_bytes = true;
      r->bytes = bytes;
    }
    if (a->is_staged) {
      emit_region *s = &e->regions[next_source];
      s->id = next_source++;
      s->arena = i;
      s->a = a;
      s->is_source = s->is_const = s->has_bytes = true;
      s->memory = a->source_memory;
      s->size = a->total_size;
      s->align = a->alignment;
      s->bytes = bytes;
      snprintf(s->enum_name, sizeof s->enum_name, "%s_REGION_CONST_%s_SOURCE", e->up,
               emit_mem_upper(e, a->memory));
      mp_arena_symbol(e->plan, e->prefix, a, true, s->symbol, sizeof s->symbol);
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (e->regions[i].has_bytes) {
      snprintf(e->regions[i].file, sizeof e->regions[i].file, "data/%s.bin",
               e->regions[i].symbol);
      e->regions[i].crc32 = emit_crc32(e->regions[i].bytes, e->regions[i].size);
    }
  return MP_OK;
}

/* ---- the module's own tables --------------------------------------------- */

/* Where the read-only tables live: module.tables_memory, else the
 * platform's first read-only memory by name (where .rodata goes). */
static void tables_memory(emit_ctx *e) {
  mp_module_tables *t = &e->tables->t;
  const mp_platform *pf = &e->plan->platform;
  if (e->cfg->has_tables_memory && pf->present[e->cfg->tables_memory]) {
    t->has_memory = true;
    t->memory = e->cfg->tables_memory;
    snprintf(e->table_macro, sizeof e->table_macro, "%s_PUT_CONST_IN_%s ", e->up,
             emit_mem_upper(e, t->memory));
    return;
  }
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n = mp_platform_by_name(pf, by_name);
  for (uint32_t k = 0; k < n; k++)
    if (pf->present[by_name[k]] && pf->read_only[by_name[k]]) {
      t->has_memory = true;
      t->memory = by_name[k];
      return;
    }
}

void mp_module_tables_free(mp_module_tables *t) {
  if (!t) return;
  free(t->items);
  memset(t, 0, sizeof *t);
}

/* ---- writing ------------------------------------------------------------- */

typedef struct out_file {
  char *rel;                /* inside the module folder */
  const void *data;
  size_t size;
} out_file;

/* Stage every file, and the HTML report when the config asks for one, and
 * commit them together: all appear, or nothing changes. */
/* Stage every file; commit them unless `staged` is given, which then takes
 * the writer. */
static mp_status write_all(const emit_ctx *e, const out_file *files, size_t n, mp_out **staged) {
  char *html = NULL;
  mp_status st = MP_OK;
  if (e->cfg->report_path)
    st = mp_report_html_module(e->plan, e->prefix, &e->tables->t, e->cfg->shared, &html);
  mp_out *o = NULL;
  if (st == MP_OK) st = mp_out_begin(e->dir, e->dx, &o);
  if (st == MP_OK) mp_out_force(o, e->cfg->force);
  for (size_t i = 0; i < n && st == MP_OK; i++)
    st = mp_out_add(o, files[i].rel, files[i].data, files[i].size);
  if (st == MP_OK && html) st = mp_out_add_extra(o, e->cfg->report_path, html, strlen(html));
  if (st == MP_OK && staged) {
    *staged = o;
    o = NULL;
  } else if (st == MP_OK) {
    st = mp_out_commit(o);
  }
  mp_out_free(&o);
  free(html);
  return st;
}

/* Everything of mp_emit_module but the writing: the files go to fn when
 * given, else to write_all (staged into *staged when that is given). */
static mp_status emit_run(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx,
                          emit_file_fn fn, void *user, mp_module_tables *tables_out,
                          mp_out **staged) {
  if (!p || !cfg || !cfg->module_path || !*cfg->module_path) {
    mp_error(dx, noloc(), "mp_emit_module: no plan, config or module.path");
    return MP_ERR_CONFIG;
  }
  if (!valid_prefix(cfg->prefix)) {
    mp_error(dx, (mp_loc){NULL, 0, 0, -1, "module.prefix", NULL},
             "module.prefix '%s' is not a C identifier of at most 48 characters",
             cfg->prefix ? cfg->prefix : "");
    return MP_ERR_CONFIG;
  }
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    const char *nm = mp_platform_memory_name(&p->platform, (mp_memory)m);
    if (p->platform.present[m] && !emit_is_identifier(nm, MP_MEMORY_NAME_MAX - 1)) {
      mp_error(dx, noloc(), "memory name '%s' of platform '%s' is not a C identifier: it names "
               "the module's arena symbols", nm, p->platform.name);
      return MP_ERR_CONFIG;
    }
  }
  emit_ctx e;
  memset(&e, 0, sizeof e);
  e.plan = p;
  e.g = p->graph;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    const char *nm = mp_platform_memory_name(&p->platform, (mp_memory)m);
    for (size_t i = 0; nm[i] && i + 1 < MP_MEMORY_NAME_MAX; i++)
      e.mem_upper[m][i] = (char)toupper((unsigned char)nm[i]);
  }
  e.cfg = cfg;
  e.dx = dx;
  e.prefix = cfg->prefix;
  e.allocate = cfg->memory.allocate_arenas;
  e.io_caller = cfg->memory.io_caller;
  for (size_t i = 0; cfg->prefix[i]; i++) e.up[i] = (char)toupper((unsigned char)cfg->prefix[i]);
  e.pool = mp_pool_new();
  mp_buf_init(&e.glue);
  if (!e.pool) return MP_ERR_NOMEM;
  emit_tables tables;
  memset(&tables, 0, sizeof tables);
  e.tables = &tables;
  tables_memory(&e);
  size_t dl = strlen(cfg->module_path);
  while (dl > 1 && cfg->module_path[dl - 1] == '/') dl--;
  e.dir = mp_pool_strndup(e.pool, cfg->module_path, dl);
  e.module_name = cfg->module_name && *cfg->module_name
                      ? cfg->module_name
                      : mp_pool_printf(e.pool, "%s_model", cfg->prefix);

  enum { F_HEADER, F_SOURCE, F_ARENAS, F_CMAKE, F_MK, F_N };
  mp_buf text[F_N];
  for (int i = 0; i < F_N; i++) mp_buf_init(&text[i]);
  out_file *files = NULL;
  size_t nf = 0;
  char *json = NULL;
  mp_status st = e.module_name && e.dir ? gather_regions(&e) : MP_ERR_NOMEM;
  if (st == MP_OK) st = emit_kernels_prepare(&e);
  if (st == MP_OK) {
    emit_header(&e, &text[F_HEADER]);
    emit_source(&e, &text[F_SOURCE]);
    if (e.allocate) emit_arenas(&e, &text[F_ARENAS]);
    emit_cmake(&e, &text[F_CMAKE]);
    emit_makefile(&e, &text[F_MK]);
    for (int i = 0; i < F_N; i++)
      if (text[i].failed) st = MP_ERR_NOMEM;
    if (e.glue.failed || tables.failed) st = MP_ERR_NOMEM;
  }
  if (st == MP_OK) {
    size_t cap = F_N + 1 + e.n_regions + emit_runtime_count();
    files = mp_pool_alloc(e.pool, cap, sizeof *files);
    if (!files) st = MP_ERR_NOMEM;
  }
  if (st == MP_OK) {
    files[nf++] = (out_file){mp_pool_printf(e.pool, "include/%s_model.h", e.prefix),
                             text[F_HEADER].data, text[F_HEADER].len};
    files[nf++] = (out_file){mp_pool_printf(e.pool, "src/%s_model.c", e.prefix),
                             text[F_SOURCE].data, text[F_SOURCE].len};
    if (e.allocate)
      files[nf++] = (out_file){mp_pool_printf(e.pool, "src/%s_arenas.c", e.prefix),
                               text[F_ARENAS].data, text[F_ARENAS].len};
    files[nf++] = (out_file){(char *)"CMakeLists.txt", text[F_CMAKE].data, text[F_CMAKE].len};
    files[nf++] = (out_file){(char *)"module.mk", text[F_MK].data, text[F_MK].len};
    if (e.n_with_kernel > 0)
      for (uint32_t i = 0; i < emit_runtime_count(); i++) {
        const emit_file *rf = emit_runtime_at(i);
        files[nf++] = (out_file){mp_pool_printf(e.pool, "kernels/%s", rf->name), rf->text,
                                 strlen(rf->text)};
      }
    if (!e.allocate)
      for (uint32_t r = 0; r < e.n_regions; r++)
        if (e.regions[r].has_bytes)
          files[nf++] = (out_file){e.regions[r].file, e.regions[r].bytes,
                                   (size_t)e.regions[r].size};
    if (cfg->memory.dump_residency_json) {
      mp_sidecar *side = mp_pool_alloc(e.pool, e.n_regions, sizeof *side);
      uint32_t ns = 0;
      for (uint32_t r = 0; side && !e.allocate && r < e.n_regions; r++)
        if (e.regions[r].has_bytes)
          side[ns++] = (mp_sidecar){e.regions[r].file, e.regions[r].id, e.regions[r].symbol,
                                    e.regions[r].bytes, e.regions[r].size};
      st = side ? mp_residency_json_files(p, cfg->prefix, side, ns, &tables.t, cfg->shared, &json)
                : MP_ERR_NOMEM;
      if (st == MP_OK)
        files[nf++] = (out_file){mp_pool_printf(e.pool, "%s_residency.json", e.prefix), json,
                                 strlen(json)};
    }
    for (size_t i = 0; i < nf; i++)
      if (!files[i].rel) st = MP_ERR_NOMEM;
  }
  if (st == MP_OK && fn)
    for (size_t i = 0; i < nf && st == MP_OK; i++)
      st = fn(user, files[i].rel, files[i].data, files[i].size);
  else if (st == MP_OK)
    st = write_all(&e, files, nf, staged);
  for (int i = 0; i < F_N; i++) mp_buf_free(&text[i]);
  free(json);
  mp_buf_free(&e.glue);
  mp_pool_free(&e.pool);
  if (st == MP_OK && tables_out)
    *tables_out = tables.t;
  else
    mp_module_tables_free(&tables.t);
  return st;
}

mp_status mp_emit_module(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx) {
  return emit_run(p, cfg, dx, NULL, NULL, NULL, NULL);
}

mp_status mp_emit_modules(const mp_plan *const *plans, const mp_config *cfgs, uint32_t n,
                          mp_shared_scratch *shared, const mp_diag_sink *dx) {
  if (!plans || !cfgs || n == 0) return MP_ERR_INTERNAL;
  mp_out **outs = calloc(n, sizeof *outs);
  if (!outs) return MP_ERR_NOMEM;
  mp_status st = MP_OK;
  for (uint32_t i = 0; i < n && st == MP_OK; i++) {
    if (shared) shared->self = i;
    st = emit_run(plans[i], &cfgs[i], dx, NULL, NULL, NULL, &outs[i]);
  }
  if (st == MP_OK) st = mp_out_commit_all(outs, n);
  for (uint32_t i = 0; i < n; i++) mp_out_free(&outs[i]);
  free(outs);
  return st;
}

static mp_status discard(void *user, const char *rel, const void *data, size_t size) {
  (void)user, (void)rel, (void)data, (void)size;
  return MP_OK;
}

mp_status mp_module_tables_measure(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx,
                                   mp_module_tables *out) {
  if (!out) return MP_ERR_INTERNAL;
  memset(out, 0, sizeof *out);
  if (!cfg) return MP_ERR_CONFIG;
  mp_config c = *cfg;
  c.report_path = NULL;
  c.memory.dump_residency_json = false;
  return emit_run(p, &c, dx, discard, NULL, out, NULL);
}

mp_status emit_module_files(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx,
                            emit_file_fn fn, void *user) {
  if (!fn) return MP_ERR_INTERNAL;
  return emit_run(p, cfg, dx, fn, user, NULL, NULL);
}
