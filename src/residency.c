/*
 * residency.c — what a plan says, for people and for tools: the arena
 * symbols of the emitted module, the residency report (SPEC §7,
 * `<prefix>_residency.json`) and the summary table the verbose log prints.
 *
 * Both views are built from the same plan fields in the same order, so the
 * JSON "mirrors the verbose log summary" (seeds, dump_residency_json).
 * Determinism: objects keep insertion order, numbers are integers, and
 * nothing depends on addresses or the clock.
 */
#include "lower.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

const char *mp_arena_symbol(const char *prefix, const mp_arena *a, bool source, char *buf,
                            size_t n) {
  const char *mem = mp_memory_name(a->memory);
  switch (a->role) {
  case MP_ROLE_SCRATCH: snprintf(buf, n, "%s_arena_%s_buffer", prefix, mem); break;
  case MP_ROLE_PERSISTENT: snprintf(buf, n, "%s_arena_persistent_%s_buffer", prefix, mem); break;
  default:
    if (!a->is_staged)
      snprintf(buf, n, "%s_arena_const_%s__blob", prefix, mem);
    else
      snprintf(buf, n, "%s_arena_const_%s_%s", prefix, mem, source ? "_source" : "buffer");
    break;
  }
  return buf;
}

static json_t *jint(uint64_t v) { return json_integer((json_int_t)v); }

mp_status mp_residency_json(const mp_plan *p, const char *prefix, char **out) {
  *out = NULL;
  const mp_graph *g = p->graph;
  json_t *root = json_object();
  if (!root) return MP_ERR_NOMEM;
  json_object_set_new(root, "schema", json_string("memplan.residency/1"));
  json_t *model = json_object();
  json_object_set_new(model, "path", json_string(mp_model_file_name(g->model)));
  json_object_set_new(model, "subgraph", jint(g->subgraph));
  json_object_set_new(model, "ops", jint(g->n_ops));
  json_object_set_new(model, "tensors", jint(g->n_tensors));
  json_object_set_new(root, "model", model);
  json_t *planner = json_object();
  json_object_set_new(planner, "name", json_string(p->planner));
  json_t *opts = json_object();
  const mp_planner *pl = mp_planner_find(p->planner);
  for (uint32_t i = 0; pl && i < pl->n_options; i++) {
    const char *k = pl->options[i].key;
    bool given = false;
    for (uint32_t j = 0; j < p->n_options; j++) given |= !strcmp(p->options[j].key, k);
    if (given || pl->options[i].has_default)
      json_object_set_new(opts, k, json_integer(mp_option_get(pl, p->options, p->n_options, k, 0)));
  }
  json_object_set_new(planner, "options", opts);
  json_object_set_new(root, "planner", planner);
  json_t *plat = json_object();
  json_object_set_new(plat, "name", json_string(p->platform.name));
  json_object_set_new(plat, "min_alignment", jint(p->platform.min_alignment));
  json_object_set_new(root, "platform", plat);
  char hash[24];
  snprintf(hash, sizeof hash, "0x%016llx", (unsigned long long)p->hash);
  json_object_set_new(root, "plan_hash", json_string(hash));

  json_t *arenas = json_array();
  /* An emitted module binds the source blob of staged arena i as its own
   * region, numbered after every arena in arena order (emit.c). */
  uint32_t next_source = p->n_arenas;
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    char sym[160];
    json_t *ja = json_object();
    json_object_set_new(ja, "region_id", jint(i));
    json_object_set_new(ja, "symbol", json_string(mp_arena_symbol(prefix, a, false, sym, sizeof sym)));
    if (a->is_staged) {
      json_object_set_new(ja, "source_symbol",
                          json_string(mp_arena_symbol(prefix, a, true, sym, sizeof sym)));
      json_object_set_new(ja, "source_region_id", jint(next_source++));
    }
    json_object_set_new(ja, "role", json_string(mp_role_name(a->role)));
    json_object_set_new(ja, "memory", json_string(mp_memory_name(a->memory)));
    json_object_set_new(ja, "source_memory", json_string(mp_memory_name(a->source_memory)));
    json_object_set_new(ja, "staged", json_boolean(a->is_staged));
    json_object_set_new(ja, "size", jint(a->total_size));
    json_object_set_new(ja, "used", jint(a->used));
    json_object_set_new(ja, "alignment", jint(a->alignment));
    json_object_set_new(ja, "tensors", jint(a->n_tensors));
    if (a->role == MP_ROLE_SCRATCH) {
      json_object_set_new(ja, "lower_bound", jint(a->lower_bound));
      json_t *proof = json_object();
      json_object_set_new(proof, "lower", jint(a->proven_lower));
      json_object_set_new(proof, "upper", jint(a->proven_upper));
      json_object_set_new(proof, "optimal", json_boolean(a->proven_lower == a->proven_upper));
      json_object_set_new(proof, "timed_out", json_boolean(a->timed_out));
      json_object_set_new(ja, "optimum", proof);
    }
    json_array_append_new(arenas, ja);
  }
  json_object_set_new(root, "arenas", arenas);

  json_t *tensors = json_array();
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (!a->placed) continue;
    const mp_tensor *x = &g->tensors[t];
    json_t *jt = json_object();
    json_object_set_new(jt, "id", jint(t));
    json_object_set_new(jt, "name", json_string(x->name));
    json_object_set_new(jt, "role", json_string(mp_role_name(a->binding.role)));
    json_object_set_new(jt, "memory", json_string(mp_memory_name(a->memory)));
    json_object_set_new(jt, "source_memory", json_string(mp_memory_name(a->binding.source_memory)));
    json_object_set_new(jt, "region_id", jint(a->arena));
    json_object_set_new(jt, "offset", jint(a->offset));
    json_object_set_new(jt, "size", jint(a->size));
    bool scratch = a->binding.role == MP_ROLE_SCRATCH;
    json_object_set_new(jt, "start_op", scratch ? json_integer(p->lifetimes[t].start_op) : json_null());
    json_object_set_new(jt, "end_op", scratch ? json_integer(p->lifetimes[t].end_op) : json_null());
    json_object_set_new(jt, "alias_of", a->alias_of >= 0 ? json_integer(a->alias_of) : json_null());
    if (x->local_op >= 0) json_object_set_new(jt, "local_to_op", json_integer(x->local_op));
    json_object_set_new(jt, "pinned", json_boolean(a->pinned));
    json_array_append_new(tensors, jt);
  }
  json_object_set_new(root, "tensors", tensors);

  json_t *mems = json_array();
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    const mp_memory_usage *u = &p->memories[m];
    if (!u->present) continue;
    json_t *jm = json_object();
    json_object_set_new(jm, "memory", json_string(mp_memory_name((mp_memory)m)));
    json_object_set_new(jm, "budget", jint(u->budget));
    json_object_set_new(jm, "used", jint(u->used));
    json_object_set_new(jm, "scratch", jint(u->scratch));
    json_object_set_new(jm, "persistent", jint(u->persistent));
    json_object_set_new(jm, "constant", jint(u->constant));
    json_object_set_new(jm, "staged_source", jint(u->staged_source));
    json_array_append_new(mems, jm);
  }
  json_object_set_new(root, "memories", mems);
  char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(root);
  if (!s) return MP_ERR_NOMEM;
  size_t n = strlen(s);
  char *r = malloc(n + 2);
  if (!r) {
    free(s);
    return MP_ERR_NOMEM;
  }
  memcpy(r, s, n);
  r[n] = '\n';
  r[n + 1] = '\0';
  free(s);
  *out = r;
  return MP_OK;
}

static void human_bytes(uint64_t v, char *buf, size_t n) {
  if (v >= 1024 * 1024 && v % 1024 == 0)
    snprintf(buf, n, "%.1f MiB", (double)v / (1024.0 * 1024.0));
  else if (v >= 1024)
    snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
  else
    snprintf(buf, n, "%llu B", (unsigned long long)v);
}

/* The kernel every operator runs, as the lowering chose it for the
 * graph's target, and the op-local scratch it asked for. */
static void put_kernels(mp_buf *b, const mp_graph *g) {
  mp_buf_printf(b, "\nkernels for target %s\n%-4s %-20s %-30s %10s\n", mp_target_name(g->target),
                "op", "operator", "kernel", "scratch");
  for (uint32_t o = 0; o < g->n_ops; o++) {
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, o, &lo, NULL);
    const char *k = st != MP_OK || !lo.supported ? "(unsupported)"
                    : lo.noop                    ? "(view, no code)"
                                                 : lo.fn;
    mp_buf_printf(b, "%-4u %-20s %-30s %10llu\n", o, g->ops[o].name, k,
                  (unsigned long long)(st == MP_OK && lo.supported ? lo.scratch_bytes : 0));
    mp_lower_free(&lo);
  }
}

char *mp_plan_summary(const mp_plan *p, const char *prefix, int verbose) {
  mp_buf b;
  mp_buf_init(&b);
  const mp_graph *g = p->graph;
  mp_buf_printf(&b, "plan      %s, planner %s", g->model->path, p->planner);
  for (uint32_t i = 0; i < p->n_options; i++)
    mp_buf_printf(&b, "%s%s=%lld", i ? ", " : " (", p->options[i].key,
                  (long long)p->options[i].value);
  mp_buf_printf(&b, "%s, platform %s, hash 0x%016llx\n", p->n_options ? ")" : "",
                p->platform.name, (unsigned long long)p->hash);
  mp_buf_printf(&b, "\n%-3s %-38s %-10s %-6s %-6s %10s %10s %11s %s\n", "id", "arena", "role",
                "memory", "source", "size", "used", "lower bound", "tensors");
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    char sym[160], lb[48] = "-";
    mp_arena_symbol(prefix, a, false, sym, sizeof sym);
    if (a->role == MP_ROLE_SCRATCH) {
      snprintf(lb, sizeof lb, "%llu", (unsigned long long)a->lower_bound);
      if (a->total_size == a->lower_bound) snprintf(lb, sizeof lb, "%llu =", (unsigned long long)a->lower_bound);
    }
    mp_buf_printf(&b, "%-3u %-38s %-10s %-6s %-6s %10llu %10llu %11s %u\n", i, sym,
                  mp_role_name(a->role), mp_memory_name(a->memory),
                  mp_memory_name(a->source_memory), (unsigned long long)a->total_size,
                  (unsigned long long)a->used, lb, a->n_tensors);
  }
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->role != MP_ROLE_SCRATCH || a->total_size == a->lower_bound) continue;
    if (a->proven_lower == a->proven_upper)
      mp_buf_printf(&b, "arena %u: %llu bytes is proven optimal (the lower bound %llu cannot be "
                        "reached)\n", i, (unsigned long long)a->proven_upper,
                    (unsigned long long)a->lower_bound);
    else if (a->proven_lower > a->lower_bound || a->timed_out)
      mp_buf_printf(&b, "arena %u: the optimum lies in [%llu, %llu]%s\n", i,
                    (unsigned long long)a->proven_lower, (unsigned long long)a->proven_upper,
                    a->timed_out ? " (the time limit cut the search)" : "");
  }
  mp_buf_printf(&b, "\n%-6s %10s %10s %10s %10s %10s %10s %12s\n", "memory", "budget", "used",
                "scratch", "persistent", "constant", "staged src", "headroom");
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    const mp_memory_usage *u = &p->memories[m];
    if (!u->present) continue;
    char hb[32];
    human_bytes(u->budget - u->used, hb, sizeof hb);
    mp_buf_printf(&b, "%-6s %10llu %10llu %10llu %10llu %10llu %10llu %12s\n",
                  mp_memory_name((mp_memory)m), (unsigned long long)u->budget,
                  (unsigned long long)u->used, (unsigned long long)u->scratch,
                  (unsigned long long)u->persistent, (unsigned long long)u->constant,
                  (unsigned long long)u->staged_source, hb);
  }
  put_kernels(&b, g);
  if (verbose >= 2) {
    mp_buf_printf(&b, "\n%4s  %-32s %-10s %-6s %-6s %8s %8s %-11s %s\n", "id", "tensor", "role",
                  "memory", "source", "offset", "size", "lifetime", "alias_of");
    for (uint32_t t = 0; t < p->n_allocs; t++) {
      const mp_allocation *a = &p->allocs[t];
      if (!a->placed) continue;
      const char *nm = g->tensors[t].name;
      size_t nl = strlen(nm);
      char life[32] = "program", alias[16] = "";
      if (a->binding.role == MP_ROLE_SCRATCH)
        snprintf(life, sizeof life, "[%d, %d]", p->lifetimes[t].start_op, p->lifetimes[t].end_op);
      if (a->alias_of >= 0) snprintf(alias, sizeof alias, "%d", a->alias_of);
      mp_buf_printf(&b, "%4u  %-32s %-10s %-6s %-6s %8llu %8llu %-11s %s\n", t,
                    nl > 32 ? nm + nl - 32 : nm, mp_role_name(a->binding.role),
                    mp_memory_name(a->memory), mp_memory_name(a->binding.source_memory),
                    (unsigned long long)a->offset, (unsigned long long)a->size, life, alias);
    }
  }
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  return b.data ? b.data : calloc(1, 1);
}
