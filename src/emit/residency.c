/*
 * residency.c — what a plan says, for people and for tools: the arena
 * symbols of the emitted module, the residency report
 * (`<prefix>_residency.json`, documented field by field in
 * docs/residency.md and docs/residency.schema.json) and the summary table
 * the verbose log prints.
 *
 * Both views are built from the same plan fields in the same order, so the
 * JSON "mirrors the verbose log summary" (seeds, dump_residency_json).
 * Determinism: objects keep insertion order, numbers are integers except
 * quantisation scales (printed with 9 significant digits, which round-trip
 * a float32), and nothing depends on addresses or the clock.
 */
#include "lower/lower.h"
#include "graph/rewrite.h"
#include "graph/patch.h"
#include "emit/report.h"
#include "plan/symbols.h"
#include "util/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

const char *mp_reason_name(mp_reason_kind k) {
  switch (k) {
  case MP_REASON_PREFERRED: return "preferred";
  case MP_REASON_SPILLED: return "spilled";
  case MP_REASON_PINNED: return "pinned";
  case MP_REASON_ALIAS: return "alias";
  default: return "none";
  }
}

const char *mp_reason_text(const mp_platform *pf, const mp_placement_reason *r, int32_t alias_of,
                           char *buf, size_t n) {
  switch (r->kind) {
  case MP_REASON_PREFERRED: snprintf(buf, n, "first in preference order"); break;
  case MP_REASON_ALIAS: snprintf(buf, n, "alias of tensor %d", alias_of); break;
  case MP_REASON_PINNED:
    if (r->rule < 0)
      snprintf(buf, n, "pinned");
    else if (r->rule_file && r->rule_line)
      snprintf(buf, n, "pinned by rule %d (%s:%u)", r->rule, r->rule_file, r->rule_line);
    else
      snprintf(buf, n, "pinned by rule %d (%s)", r->rule,
               r->rule_key ? r->rule_key : "memory.tensors");
    break;
  case MP_REASON_SPILLED:
    if (r->full_at_op >= 0 && r->needed)
      /* first fit needs one gap the slot's size: say so, with the figures,
       * rather than calling a memory full that had bytes free */
      snprintf(buf, n, "spilled from %s: no free gap of %llu B (largest %llu B; at op %d, %llu "
                       "of %llu B live)",
               mp_platform_memory_name(pf, r->spilled_from), (unsigned long long)r->needed,
               (unsigned long long)r->largest_gap, r->full_at_op,
               (unsigned long long)r->full_live, (unsigned long long)r->full_capacity);
    else if (r->full_at_op >= 0)
      snprintf(buf, n, "spilled from %s: full at op %d (%llu of %llu B live)",
               mp_platform_memory_name(pf, r->spilled_from), r->full_at_op, (unsigned long long)r->full_live,
               (unsigned long long)r->full_capacity);
    else
      snprintf(buf, n, "spilled from %s: %llu of its %llu B budget in use",
               mp_platform_memory_name(pf, r->spilled_from), (unsigned long long)r->full_live,
               (unsigned long long)r->full_capacity);
    break;
  default: snprintf(buf, n, "not placed"); break;
  }
  return buf;
}

static json_t *jint(uint64_t v) { return json_integer((json_int_t)v); }

static json_t *int_list(const int32_t *v, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n; i++) json_array_append_new(a, json_integer(v[i]));
  return a;
}

/* The model tensor behind graph tensor t, NULL for op-local scratch. */
static const mp_tensor_def *tensor_def(const mp_graph *g, uint32_t t) {
  if (t >= g->n_model_tensors || g->subgraph >= g->model->n_subgraphs) return NULL;
  const mp_subgraph_def *sg = &g->model->subgraphs[g->subgraph];
  return t < sg->n_tensors ? &sg->tensors[t] : NULL;
}

static json_t *quant_json(const mp_tensor_def *d) {
  if (!d || !d->has_quant) return json_null();
  json_t *q = json_object();
  json_t *sc = json_array(), *zp = json_array();
  for (uint32_t i = 0; i < d->quant.n_scale; i++)
    json_array_append_new(sc, json_real(d->quant.scale[i]));
  for (uint32_t i = 0; i < d->quant.n_zero_point; i++)
    json_array_append_new(zp, json_integer((json_int_t)d->quant.zero_point[i]));
  json_object_set_new(q, "scale", sc);
  json_object_set_new(q, "zero_point", zp);
  json_object_set_new(q, "quantized_dimension", json_integer(d->quant.quantized_dimension));
  return q;
}

static json_t *reason_json(const mp_plan *p, const mp_allocation *a) {
  const mp_placement_reason *r = &a->reason;
  char text[256];
  json_t *j = json_object();
  json_object_set_new(j, "kind", json_string(mp_reason_name(r->kind)));
  json_object_set_new(j, "text", json_string(mp_reason_text(&p->platform, r, a->alias_of, text, sizeof text)));
  if (r->kind == MP_REASON_PINNED) {
    json_t *k = json_object();
    json_object_set_new(k, "index", r->rule >= 0 ? json_integer(r->rule) : json_null());
    json_object_set_new(k, "key_path", r->rule_key ? json_string(r->rule_key) : json_null());
    json_object_set_new(k, "file", r->rule_file ? json_string(r->rule_file) : json_null());
    json_object_set_new(k, "line", r->rule_line ? jint(r->rule_line) : json_null());
    json_object_set_new(k, "column", r->rule_column ? jint(r->rule_column) : json_null());
    json_object_set_new(j, "rule", k);
  }
  if (r->kind == MP_REASON_SPILLED) {
    json_t *s = json_object();
    json_object_set_new(s, "memory", json_string(mp_platform_memory_name(&p->platform, r->spilled_from)));
    json_object_set_new(s, "at_op", r->full_at_op >= 0 ? json_integer(r->full_at_op) : json_null());
    json_object_set_new(s, "in_use", jint(r->full_live));
    json_object_set_new(s, "capacity", jint(r->full_capacity));
    if (r->needed) {
      json_object_set_new(s, "needed", jint(r->needed));
      json_object_set_new(s, "largest_gap", jint(r->largest_gap));
    }
    json_object_set_new(j, "spilled_from", s);
  }
  if (r->kind == MP_REASON_ALIAS) json_object_set_new(j, "alias_of", json_integer(a->alias_of));
  return j;
}

/* The graph inputs (or outputs) as the emitted module's ctx.inputs[i]
 * (ctx.outputs[j]) describe them. */
static json_t *io_array(const mp_plan *p, bool inputs) {
  const mp_graph *g = p->graph;
  uint32_t n = inputs ? g->n_inputs : g->n_outputs;
  const int32_t *ids = inputs ? g->inputs : g->outputs;
  json_t *arr = json_array();
  for (uint32_t i = 0; i < n; i++) {
    const mp_tensor *t = &g->tensors[ids[i]];
    const mp_allocation *a = &p->allocs[ids[i]];
    mp_io_quant q = mp_graph_tensor_quant(g, (uint32_t)ids[i]);
    json_t *jo = json_object();
    json_object_set_new(jo, "index", jint(i));
    json_object_set_new(jo, "tensor", jint((uint32_t)ids[i]));
    json_object_set_new(jo, "name", json_string(t->name));
    json_object_set_new(jo, "dtype", json_string(mp_dtype_name(t->dtype)));
    json_t *sh = json_array();
    for (uint32_t d = 0; d < t->rank; d++) json_array_append_new(sh, json_integer(t->shape[d]));
    json_object_set_new(jo, "shape", sh);
    json_object_set_new(jo, "size", jint(t->size));
    json_object_set_new(jo, "quantised", json_boolean(q.quantised));
    json_object_set_new(jo, "scale", q.quantised ? json_real((double)q.scale) : json_null());
    json_object_set_new(jo, "zero_point", q.quantised ? json_integer(q.zero_point) : json_null());
    json_object_set_new(jo, "region_id", a->placed ? jint(a->arena) : json_null());
    json_object_set_new(jo, "offset", a->placed ? jint(a->offset) : json_null());
    if (a->caller_io >= 0) json_object_set_new(jo, "caller_buffer", jint((uint32_t)a->caller_io));
    json_array_append_new(arr, jo);
  }
  return arr;
}

mp_status mp_residency_json(const mp_plan *p, const char *prefix, char **out) {
  return mp_residency_json_files(p, prefix, NULL, 0, NULL, NULL, out);
}

/* Bytes of the module's read-only tables in memory m, and what of them
 * needs a load image (the tables' memory is RAM). */
static uint64_t tables_in(const mp_plan *p, const mp_module_tables *t, mp_memory m,
                          uint64_t *load) {
  *load = 0;
  if (!t || !t->has_memory || t->memory != m) return 0;
  if (!p->platform.read_only[m]) *load = t->rodata;
  return t->rodata;
}

static const char *const SECTION_NAMES[3] = {"rodata", "data", "bss"};

static json_t *tables_json(const mp_plan *p, const mp_module_tables *t) {
  json_t *jt = json_object();
  json_object_set_new(jt, "memory", t->has_memory ? json_string(mp_platform_memory_name(
                                                        &p->platform, t->memory))
                                                  : json_null());
  json_object_set_new(jt, "target_bits", jint(32));
  json_object_set_new(jt, "rodata", jint(t->rodata));
  json_object_set_new(jt, "params", jint(t->params));
  json_object_set_new(jt, "data", jint(t->data));
  json_object_set_new(jt, "bss", jint(t->bss));
  json_t *items = json_array();
  for (uint32_t i = 0; i < t->n_items; i++) {
    json_t *ji = json_object();
    json_object_set_new(ji, "symbol", json_string(t->items[i].symbol));
    json_object_set_new(ji, "section", json_string(SECTION_NAMES[t->items[i].section]));
    json_object_set_new(ji, "size", jint(t->items[i].size));
    json_object_set_new(ji, "params", json_boolean(t->items[i].params));
    json_array_append_new(items, ji);
  }
  json_object_set_new(jt, "items", items);
  return jt;
}

/* A scratch arena bound to the buffer it shares with other models. */
static json_t *shared_json(const mp_shared_scratch *s, mp_memory m) {
  json_t *js = json_object();
  json_object_set_new(js, "size", jint(s->size[m]));
  json_object_set_new(js, "alignment", jint(s->align[m]));
  json_object_set_new(js, "defined_here", json_boolean(s->owner[m] == s->self));
  json_t *needs = json_array();
  for (uint32_t i = 0; i < s->n_models; i++) {
    json_t *jn = json_object();
    json_object_set_new(jn, "prefix", json_string(s->models[i].prefix));
    json_object_set_new(jn, "size", jint(s->models[i].scratch[m]));
    json_array_append_new(needs, jn);
  }
  json_object_set_new(js, "needs", needs);
  return js;
}

mp_status mp_residency_json_files(const mp_plan *p, const char *prefix, const mp_sidecar *files,
                                  uint32_t n_files, const mp_module_tables *tables,
                                  const mp_shared_scratch *shared, char **out) {
  *out = NULL;
  const mp_graph *g = p->graph;
  json_t *root = json_object();
  if (!root) return MP_ERR_NOMEM;
  json_object_set_new(root, "schema", json_string("memplan.residency/1"));
  json_t *gen = json_object();
  json_object_set_new(gen, "name", json_string("memplan"));
  json_object_set_new(gen, "version", json_string(MP_VERSION));
  json_object_set_new(root, "generator", gen);
  json_t *model = json_object();
  char sha[65];
  mp_sha256_hex(g->model->bytes, g->model->size, sha);
  json_object_set_new(model, "path", json_string(mp_model_file_name(g->model)));
  json_object_set_new(model, "file", json_string(mp_model_file_name(g->model)));
  json_object_set_new(model, "sha256", json_string(sha));
  json_object_set_new(model, "size", jint(g->model->size));
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
  if (p->in_place) {
    json_object_set_new(planner, "in_place", json_true());
    json_object_set_new(planner, "in_place_mode",
                        json_string(mp_in_place_mode_name(p->in_place_mode)));
  }
  if (p->graph->n_serial_ops) {
    /* memory.in_place size: the depthwise convolutions run channel by
     * channel, and the scratch speed needs without them */
    json_t *cs = json_object(), *ops = json_array();
    for (uint32_t o = 0; o < p->graph->n_ops; o++)
      if (p->graph->ops[o].channel_serial) json_array_append_new(ops, jint(o));
    json_object_set_new(cs, "ops", ops);
    json_object_set_new(cs, "inplace_bound_before", jint(p->graph->serial_bound_before));
    json_object_set_new(cs, "inplace_bound", jint(p->graph->serial_bound));
    json_object_set_new(cs, "scratch", jint(mp_plan_scratch_bytes(p)));
    if (p->speed_scratch) json_object_set_new(cs, "speed_scratch", jint(p->speed_scratch));
    json_object_set_new(planner, "channel_serial", cs);
  }
  if (p->rewrites.saved) {
    /* the graph without memory.in_place's rewrites planned smaller */
    json_t *nk = json_object();
    json_object_set_new(nk, "pads_folded", jint(p->rewrites.n_folded_pads));
    json_object_set_new(nk, "views", jint(p->rewrites.n_view_ops));
    json_object_set_new(nk, "concats_elided", jint(p->rewrites.n_elided_concats));
    json_object_set_new(nk, "saved_bytes", jint(p->rewrites.saved));
    json_object_set_new(planner, "rewrites_not_kept", nk);
  }
  if (p->in_place_layout.requested_scratch) {
    /* the requested planner's layout was above the tensor-level bound */
    json_t *il = json_object();
    json_object_set_new(il, "requested_planner_scratch", jint(p->in_place_layout.requested_scratch));
    json_object_set_new(il, "tensor_level_bound", jint(p->in_place_layout.tensor_level_bound));
    if (p->in_place_layout.inplace_bound)
      json_object_set_new(il, "inplace_bound", jint(p->in_place_layout.inplace_bound));
    json_object_set_new(il, "planners_tried", jint(p->in_place_layout.n_tried));
    json_object_set_new(il, "kept", json_string(p->in_place_layout.planner[0]
                                                    ? p->in_place_layout.planner
                                                    : p->planner));
    json_object_set_new(planner, "in_place_layout", il);
  }
  const mp_graph *gr = p->graph;
  if (gr->n_folded_pads || gr->n_view_ops || gr->n_elided_concats || gr->n_partial_concats) {
    json_t *rw = json_object();
    json_object_set_new(rw, "pads_folded", jint(gr->n_folded_pads));
    json_object_set_new(rw, "padded_bytes", jint(mp_folded_pad_bytes(gr)));
    json_object_set_new(rw, "views", jint(gr->n_view_ops));
    json_object_set_new(rw, "concats_elided", jint(gr->n_elided_concats));
    if (gr->n_partial_concats)
      json_object_set_new(rw, "concats_partly_elided", jint(gr->n_partial_concats));
    json_object_set_new(rw, "view_bytes", jint(mp_view_copy_bytes(gr)));
    json_object_set_new(planner, "rewrites", rw);
  }
  const mp_order_result *orr = &p->graph->order;
  if (orr->searched) {
    json_t *jo = json_object();
    json_object_set_new(jo, "name", json_string("min_peak"));
    json_object_set_new(jo, "changed", json_boolean(p->graph->reordered));
    json_object_set_new(jo, "moved", jint(orr->moved));
    json_object_set_new(jo, "bound_kind", json_string(orr->in_place ? "in_place" : "tensor"));
    json_object_set_new(jo, "model_order_bound", jint(orr->model_bound));
    json_object_set_new(jo, "bound", jint(orr->bound));
    json_object_set_new(jo, "exact", json_boolean(orr->exact));
    if (orr->planner_kept_model) {
      json_t *pk = json_object();
      json_object_set_new(pk, "found_bound", jint(orr->found_bound));
      json_object_set_new(pk, "found_order_scratch", jint(orr->found_scratch));
      json_object_set_new(pk, "model_order_scratch", jint(orr->model_scratch));
      json_object_set_new(jo, "planner_kept_model_order", pk);
    }
    json_object_set_new(planner, "op_order", jo);
  }
  json_t *patch = emit_patch_json(p);
  if (patch) json_object_set_new(planner, "patch", patch);
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
    bool sh = shared && a->role == MP_ROLE_SCRATCH && shared->size[a->memory] >= a->total_size;
    json_object_set_new(ja, "symbol",
                        json_string(mp_module_arena_symbol(p, prefix, shared, a, sym, sizeof sym)));
    if (a->is_staged) {
      json_object_set_new(ja, "source_symbol",
                          json_string(mp_arena_symbol(p, prefix, a, true, sym, sizeof sym)));
      json_object_set_new(ja, "source_region_id", jint(next_source++));
    }
    json_object_set_new(ja, "role", json_string(mp_role_name(a->role)));
    json_object_set_new(ja, "memory", json_string(mp_platform_memory_name(&p->platform, a->memory)));
    json_object_set_new(ja, "source_memory", json_string(mp_platform_memory_name(&p->platform, a->source_memory)));
    json_object_set_new(ja, "staged", json_boolean(a->is_staged));
    json_object_set_new(ja, "size", jint(a->total_size));
    json_object_set_new(ja, "used", jint(a->used));
    json_object_set_new(ja, "alignment", jint(a->alignment));
    json_object_set_new(ja, "tensors", jint(a->n_tensors));
    if (a->role == MP_ROLE_SCRATCH) {
      json_object_set_new(ja, "lower_bound", jint(a->lower_bound));
      if (p->in_place) json_object_set_new(ja, "inplace_bound", jint(a->inplace_bound));
      json_t *proof = json_object();
      json_object_set_new(proof, "lower", jint(a->proven_lower));
      json_object_set_new(proof, "upper", jint(a->proven_upper));
      json_object_set_new(proof, "optimal", json_boolean(a->proven_lower == a->proven_upper));
      json_object_set_new(proof, "timed_out", json_boolean(a->timed_out));
      json_object_set_new(ja, "optimum", proof);
    }
    if (sh) json_object_set_new(ja, "shared", shared_json(shared, a->memory));
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
    json_object_set_new(jt, "dtype", json_string(mp_dtype_name(x->dtype)));
    json_object_set_new(jt, "shape", int_list(x->shape, x->shape ? x->rank : 0));
    json_object_set_new(jt, "quantization", quant_json(tensor_def(g, t)));
    json_object_set_new(jt, "role", json_string(mp_role_name(a->binding.role)));
    json_object_set_new(jt, "memory", json_string(mp_platform_memory_name(&p->platform, a->memory)));
    json_object_set_new(jt, "source_memory", json_string(mp_platform_memory_name(&p->platform, a->binding.source_memory)));
    json_object_set_new(jt, "region_id", jint(a->arena));
    json_object_set_new(jt, "offset", jint(a->offset));
    json_object_set_new(jt, "size", jint(a->size));
    bool scratch = a->binding.role == MP_ROLE_SCRATCH;
    json_object_set_new(jt, "start_op", scratch ? json_integer(p->lifetimes[t].start_op) : json_null());
    json_object_set_new(jt, "end_op", scratch ? json_integer(p->lifetimes[t].end_op) : json_null());
    json_object_set_new(jt, "alias_of", a->alias_of >= 0 ? json_integer(a->alias_of) : json_null());
    if (a->alias_of >= 0) json_object_set_new(jt, "alias_offset", jint(a->alias_offset));
    if (a->alias_of >= 0 && a->alias_stride) {
      json_object_set_new(jt, "alias_row", jint(a->alias_row));
      json_object_set_new(jt, "alias_stride", jint(a->alias_stride));
    }
    if (x->local_op >= 0) json_object_set_new(jt, "local_to_op", json_integer(x->local_op));
    json_object_set_new(jt, "pinned", json_boolean(a->pinned));
    json_object_set_new(jt, "placement_reason", reason_json(p, a));
    if (p->in_place && scratch && a->alias_of < 0) {
      /* the slots this one shares bytes with while both are live */
      json_t *sh = json_array();
      for (uint32_t u = 0; u < p->n_allocs; u++) {
        const mp_allocation *b = &p->allocs[u];
        if (u == t || !b->placed || b->alias_of >= 0 || b->arena != a->arena) continue;
        if (!mp_lifetime_overlaps(&p->lifetimes[t], &p->lifetimes[u])) continue;
        if (b->offset < a->offset + a->slot_size && a->offset < b->offset + b->slot_size)
          json_array_append_new(sh, jint(u));
      }
      if (json_array_size(sh)) json_object_set_new(jt, "shares_bytes_with", sh);
      else json_decref(sh);
    }
    json_array_append_new(tensors, jt);
  }
  json_object_set_new(root, "tensors", tensors);
  bool caller = false;
  for (uint32_t t = 0; t < p->n_allocs; t++) caller |= p->allocs[t].caller_io >= 0;
  json_object_set_new(root, "io", json_string(caller ? "caller" : "arena"));
  json_object_set_new(root, "inputs", io_array(p, true));
  json_object_set_new(root, "outputs", io_array(p, false));

  json_t *ops = json_array();
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *o = &g->ops[i];
    json_t *jo = json_object();
    json_object_set_new(jo, "index", jint(o->index));
    if (g->reordered) json_object_set_new(jo, "model_index", jint(o->model_index));
    json_object_set_new(jo, "operator", json_string(o->name));
    json_object_set_new(jo, "inputs", int_list(o->inputs, o->n_inputs));
    json_object_set_new(jo, "outputs", int_list(o->outputs, o->n_outputs));
    json_object_set_new(jo, "view", json_boolean(o->is_view));
    /* the kernel function the module calls, as the lowering chose it for
     * the target (null: a view, a folded PAD, no kernel, or a patched
     * stage, which planner.patch describes) */
    mp_lowered_op lo;
    bool runs = mp_lower_op(g, i, &lo, NULL) == MP_OK && lo.supported && !lo.noop && !o->is_view &&
                o->folded_into < 0 && !o->patch_head;
    json_object_set_new(jo, "kernel", runs ? json_string(lo.fn) : json_null());
    mp_lower_free(&lo);
    if (o->folded_into >= 0) json_object_set_new(jo, "folded_into", jint((uint64_t)o->folded_into));
    if (o->folded_pad >= 0) json_object_set_new(jo, "folded_pad", jint((uint64_t)o->folded_pad));
    if (o->const_folded) json_object_set_new(jo, "const_folded", json_true());
    json_array_append_new(ops, jo);
  }
  json_object_set_new(root, "ops", ops);

  json_t *mems = json_array();
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n_mem = mp_platform_by_name(&p->platform, by_name);
  for (uint32_t k = 0; k < n_mem; k++) {
    mp_memory m = by_name[k];
    const mp_memory_usage *u = &p->memories[m];
    if (!u->present) continue;
    json_t *jm = json_object();
    json_object_set_new(jm, "memory", json_string(mp_platform_memory_name(&p->platform, m)));
    json_object_set_new(jm, "read_only", json_boolean(p->platform.read_only[m]));
    json_object_set_new(jm, "budget", jint(u->budget));
    json_object_set_new(jm, "used", jint(u->used));
    json_object_set_new(jm, "scratch", jint(u->scratch));
    json_object_set_new(jm, "persistent", jint(u->persistent));
    json_object_set_new(jm, "constant", jint(u->constant));
    json_object_set_new(jm, "staged_source", jint(u->staged_source));
    uint64_t tload = 0, tb = tables_in(p, tables, m, &tload);
    json_object_set_new(jm, "load_image", jint(u->load_image + tload));
    if (tables) json_object_set_new(jm, "tables", jint(tb));
    json_array_append_new(mems, jm);
  }
  json_object_set_new(root, "memories", mems);
  if (tables) json_object_set_new(root, "module_tables", tables_json(p, tables));

  json_t *side = json_array();
  for (uint32_t i = 0; i < n_files; i++) {
    json_t *jf = json_object();
    json_object_set_new(jf, "file", json_string(files[i].file));
    json_object_set_new(jf, "region_id", jint(files[i].region_id));
    json_object_set_new(jf, "symbol", json_string(files[i].symbol));
    json_object_set_new(jf, "size", jint(files[i].size));
    json_object_set_new(jf, "crc32", jint(mp_crc32(files[i].bytes, (size_t)files[i].size)));
    json_array_append_new(side, jf);
  }
  json_object_set_new(root, "sidecars", side);
  char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
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
  if (v >= 1024 * 1024)
    snprintf(buf, n, "%.2f MiB", (double)v / (1024.0 * 1024.0));
  else if (v >= 1024)
    snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
  else
    snprintf(buf, n, "%llu B", (unsigned long long)v);
}

/* The kernel every operator runs, as the lowering chose it for the
 * graph's target, and the op-local scratch it asked for. */
static void put_kernels(mp_buf *b, const mp_plan *p) {
  const mp_graph *g = p->graph;
  /* in another order than the model's, each operator's model index too */
  /* the operator column as wide as its longest name
   * (UNIDIRECTIONAL_SEQUENCE_LSTM), at least 20 */
  int ow = 20;
  for (uint32_t o = 0; o < g->n_ops; o++)
    if (g->ops[o].name && strlen(g->ops[o].name) > (size_t)ow && strlen(g->ops[o].name) < 64)
      ow = (int)strlen(g->ops[o].name);
  mp_buf_printf(b, "\nkernels for target %s%s\n%-4s %s%-*s %-30s %10s\n", mp_target_name(g->target),
                g->reordered ? ", in the order run (memory.op_order)" : "", "op",
                g->reordered ? "model " : "", ow, "operator", "kernel", "scratch");
  for (uint32_t o = 0; o < g->n_ops; o++) {
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, o, &lo, NULL);
    char folded[40], tiled[40];
    snprintf(folded, sizeof folded, "(folded into op %d)", g->ops[o].folded_into);
    const char *pl = emit_patch_label(g, o, tiled, sizeof tiled);
    uint64_t local = st == MP_OK && lo.supported ? lo.scratch_bytes : 0;
    const mp_patch *ps = g->ops[o].patch_head ? mp_patch_at(g, o) : NULL;
    if (ps) local = g->tensors[ps->scratch_tensor].size;
    const char *k = st != MP_OK || !lo.supported ? "(unsupported)"
                    : pl ? pl
                    : g->ops[o].folded_into >= 0 ? folded
                    : lo.noop || g->ops[o].is_view ? "(view, no code)"
                                                 : lo.fn;
    mp_buf_printf(b, "%-4u ", o);
    if (g->reordered) mp_buf_printf(b, "%-5u ", g->ops[o].model_index);
    mp_buf_printf(b, "%-*s %-30s %10llu\n", ow, g->ops[o].name, k, (unsigned long long)local);
    mp_lower_free(&lo);
  }
  if (g->n_serial_ops) {
    mp_buf_printf(b, "channel by channel (memory.in_place): op%s", g->n_serial_ops > 1 ? "s" : "");
    const char *sep = " ";
    for (uint32_t o = 0; o < g->n_ops; o++)
      if (g->ops[o].channel_serial) {
        mp_buf_printf(b, "%s%u", sep, o);
        sep = ", ";
      }
    mp_buf_printf(b, ": each output lies on its input, with a one-channel temporary (the "
                     "scratch above), which lowers the in-place bound from %llu to %llu bytes; "
                     "slower than the depthwise kernel%s in pixel order (strided writes)",
                  (unsigned long long)g->serial_bound_before, (unsigned long long)g->serial_bound,
                  g->n_serial_ops > 1 ? "s" : "");
    uint64_t sc = mp_plan_scratch_bytes(p), sp = p->speed_scratch;
    if (sp > sc)
      mp_buf_printf(b, "; memory.in_place: speed keeps their pixel-order kernels and needs %llu bytes of "
                       "scratch, %llu more than these %llu",
                    (unsigned long long)sp, (unsigned long long)(sp - sc), (unsigned long long)sc);
    else if (sp)
      mp_buf_printf(b, "; memory.in_place: speed keeps their pixel-order kernels and needs %llu bytes of "
                       "scratch, no more than these %llu",
                    (unsigned long long)sp, (unsigned long long)sc);
    mp_buf_puts(b, "\n");
  }
}

const char *mp_name_fit(const char *s, size_t w, char *buf, size_t n) {
  size_t l = strlen(s);
  if (l <= w || w < 8 || w + 1 > n) return s;
  /* a converter's fused name "a/b/Relu;a/c/BiasAdd;...": its first part
   * names the op's output */
  const char *semi = strchr(s, ';');
  if (semi && (size_t)(semi - s) + 4 <= w) {
    snprintf(buf, n, "%.*s;...", (int)(semi - s), s);
    return buf;
  }
  /* else its end: scopes repeat at the front ("model/model/..."), the layer
   * and the tensor's own name are at the back; never inside a UTF-8
   * character */
  const char *t = s + l - (w - 3);
  while (*t && ((unsigned char)*t & 0xc0) == 0x80) t++;
  snprintf(buf, n, "...%s", t);
  return buf;
}

/* w, within [lo, hi]. */
static size_t clamp_width(size_t w, size_t lo, size_t hi) { return w < lo ? lo : w > hi ? hi : w; }

#define NAME_MAX_COLS 48

/* verbose >= 3: per operator, what each memory holding scratch has in use:
 * the scratch bytes live at that op plus its persistent, constant and staged
 * arenas, against its budget. */
static void fill_over_time(mp_buf *b, const mp_plan *p) {
  const mp_graph *g = p->graph;
  int mems[MP_MEM_COUNT];
  int nm = 0;
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    if (p->arenas[i].role != MP_ROLE_SCRATCH) continue;
    bool seen = false;
    for (int k = 0; k < nm; k++) seen |= mems[k] == (int)p->arenas[i].memory;
    if (!seen) mems[nm++] = (int)p->arenas[i].memory;
  }
  if (nm == 0 || g->n_ops == 0) return;
  uint64_t *live = calloc((size_t)g->n_ops * (size_t)nm, sizeof *live);
  if (!live) {
    b->failed = true;
    return;
  }
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (!a->placed || a->binding.role != MP_ROLE_SCRATCH || a->alias_of >= 0) continue;
    int k = 0;
    while (k < nm && mems[k] != (int)a->memory) k++;
    if (k == nm) continue;
    for (int32_t op = p->lifetimes[t].start_op; op >= 0 && op <= p->lifetimes[t].end_op &&
                                                (uint32_t)op < g->n_ops; op++)
      live[(size_t)op * (size_t)nm + (size_t)k] += a->slot_size;
  }
  size_t ow = 8;
  for (uint32_t i = 0; i < g->n_ops; i++) ow = mp_max_u64(ow, strlen(g->ops[i].name));
  ow = clamp_width(ow, 8, 24);
  mp_buf_printf(b, "\nmemory fill by operator (scratch live at the op + the memory's other "
                   "arenas, of its budget):\n%4s  %-*s", "op", (int)ow, "operator");
  /* each memory's name over its bytes column; a row's cell is 31 wide */
  for (int k = 0; k < nm; k++)
    mp_buf_printf(b, "  %10s%s", mp_platform_memory_name(&p->platform, (mp_memory)mems[k]), k + 1 < nm ? "                   " : "");
  mp_buf_putc(b, '\n');
  for (uint32_t i = 0; i < g->n_ops; i++) {
    char nb[64];
    mp_buf_printf(b, "%4u  %-*s", i, (int)ow, mp_name_fit(g->ops[i].name, ow, nb, sizeof nb));
    for (int k = 0; k < nm; k++) {
      const mp_memory_usage *u = &p->memories[mems[k]];
      uint64_t used = live[(size_t)i * (size_t)nm + (size_t)k] + u->persistent + u->constant +
                      u->staged_source;
      double frac = u->budget ? (double)used / (double)u->budget : 0.0;
      char bar[11];
      int fill = (int)(frac * 10.0 + 0.5);
      if (fill > 10) fill = 10;
      if (fill == 0 && used > 0) fill = 1;
      for (int j = 0; j < 10; j++) bar[j] = j < fill ? '#' : '.';
      bar[10] = '\0';
      mp_buf_printf(b, "  %10llu %5.1f %% %s", (unsigned long long)used, 100.0 * frac, bar);
    }
    mp_buf_putc(b, '\n');
  }
  free(live);
}

/* memory.op_order min_peak: one line, the order changed or kept. */
static void summary_order(mp_buf *b, const mp_graph *g) {
  const mp_order_result *r = &g->order;
  if (!r->searched) return;
  const char *what = r->in_place ? "in-place bound" : "tensor-level bound";
  if (g->reordered)
    mp_buf_printf(b, "order: min_peak, %u of %u operators moved: the %s falls from %llu to %llu "
                     "bytes (-%llu)%s\n", r->moved, g->n_ops, what,
                  (unsigned long long)r->model_bound, (unsigned long long)r->bound,
                  (unsigned long long)(r->model_bound - r->bound),
                  r->exact ? ", the lowest of any order" : "");
  else if (r->planner_kept_model)
    mp_buf_printf(b, "order: min_peak, the model's order kept: an order with a %s of %llu "
                     "bytes (model order: %llu) was found, but the planner needs %llu bytes of "
                     "scratch in it against %llu in the model's order\n", what,
                  (unsigned long long)r->found_bound, (unsigned long long)r->model_bound,
                  (unsigned long long)r->found_scratch, (unsigned long long)r->model_scratch);
  else
    mp_buf_printf(b, "order: min_peak, the model's order kept: %s%s %llu bytes\n",
                  r->exact ? "no order has a lower " : "no order found with a lower ", what,
                  (unsigned long long)r->model_bound);
}

/* The tensor-level bound of scratch arena i without the one-channel
 * temporaries of the depthwise convolutions memory.in_place runs channel
 * by channel: the figure the plan of the same model without in_place
 * gives, so the summary can name both.  0 when there are none. */
static uint64_t bound_without_serial_temps(const mp_plan *p, uint32_t i) {
  const mp_graph *g = p->graph;
  if (!g->n_serial_ops || !g->n_ops) return 0;
  int64_t *delta = calloc((size_t)g->n_ops + 1, sizeof *delta);
  if (!delta) return 0;
  bool any = false;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *al = &p->allocs[t];
    if (!al->placed || al->arena != i || al->alias_of >= 0) continue;
    int32_t lo = g->tensors[t].local_op;
    if (lo >= 0 && (uint32_t)lo < g->n_ops && g->ops[lo].channel_serial) {
      any = true;
      continue;
    }
    int32_t s0 = g->storage[t].start_op, e0 = g->storage[t].end_op;
    if (s0 < 0 || e0 < s0 || (uint32_t)e0 >= g->n_ops) continue;
    delta[s0] += (int64_t)al->slot_size;
    delta[e0 + 1] -= (int64_t)al->slot_size;
  }
  int64_t live = 0, best = 0;
  for (uint32_t op = 0; op < g->n_ops; op++) {
    live += delta[op];
    if (live > best) best = live;
  }
  free(delta);
  uint64_t a = p->arenas[i].alignment ? p->arenas[i].alignment : 1;
  return any ? ((uint64_t)best + a - 1) / a * a : 0;
}

/* memory.in_place: one line when the requested planner's layout ended
 * above the tensor-level bound and other planners laid the arena out. */
static void summary_in_place_layout(mp_buf *b, const mp_plan *p) {
  const uint64_t req = p->in_place_layout.requested_scratch,
                 lb = p->in_place_layout.inplace_bound ? p->in_place_layout.inplace_bound
                                                       : p->in_place_layout.tensor_level_bound;
  if (!req) return;
  mp_buf_printf(b, "in place: planner %s's layout needs %llu bytes of scratch, above the "
                   "%s bound of %llu; ", p->planner, (unsigned long long)req,
                p->in_place_layout.inplace_bound ? "in-place (memory.patch)" : "tensor-level",
                (unsigned long long)lb);
  if (p->in_place_layout.planner[0])
    mp_buf_printf(b, "%s's layout kept, %llu bytes%s\n", p->in_place_layout.planner,
                  (unsigned long long)mp_plan_scratch_bytes(p),
                  mp_plan_scratch_bytes(p) == lb   ? ", at the bound"
                  : mp_plan_scratch_bytes(p) < lb ? ", below the bound"
                                                  : "");
  else
    mp_buf_printf(b, "%u other planner%s did no better, its layout kept\n",
                  p->in_place_layout.n_tried, p->in_place_layout.n_tried == 1 ? "" : "s");
}

char *mp_plan_summary(const mp_plan *p, const char *prefix, int verbose) {
  return mp_plan_summary_shared(p, prefix, verbose, NULL);
}

char *mp_plan_summary_shared(const mp_plan *p, const char *prefix, int verbose,
                             const mp_shared_scratch *shared) {
  mp_buf b;
  mp_buf_init(&b);
  const mp_graph *g = p->graph;
  const mp_platform *pf = &p->platform;
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n_mem = mp_platform_by_name(pf, by_name);
  int mw = 6; /* the memory columns: as wide as the longest name */
  for (uint32_t k = 0; k < n_mem; k++)
    if ((int)strlen(mp_platform_memory_name(pf, by_name[k])) > mw)
      mw = (int)strlen(mp_platform_memory_name(pf, by_name[k]));
  char *shown_path = mp_printable(g->model->path), *shown_pf = mp_printable(p->platform.name);
  mp_buf_printf(&b, "plan      %s, planner %s", shown_path ? shown_path : "?", p->planner);
  for (uint32_t i = 0; i < p->n_options; i++)
    mp_buf_printf(&b, "%s%s=%lld", i ? ", " : " (", p->options[i].key,
                  (long long)p->options[i].value);
  mp_buf_printf(&b, "%s, platform %s, hash 0x%016llx\n", p->n_options ? ")" : "",
                shown_pf ? shown_pf : "?", (unsigned long long)p->hash);
  free(shown_path);
  free(shown_pf);
  /* the arena column is as wide as the longest symbol */
  size_t aw = 0;
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    char sym[160];
    aw = mp_max_u64(aw, strlen(mp_module_arena_symbol(p, prefix, shared, &p->arenas[i], sym,
                                                      sizeof sym)));
  }
  aw = clamp_width(aw, 38, 160);
  mp_buf_printf(&b, "\n%-3s %-*s %-10s %-*s %-*s %10s %10s %11s %s\n", "id", (int)aw, "arena",
                "role", mw, "memory", mw, "source", "size", "used", "lower bound", "tensors");
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    char sym[160], lb[48] = "-";
    mp_module_arena_symbol(p, prefix, shared, a, sym, sizeof sym);
    if (a->role == MP_ROLE_SCRATCH) {
      /* in place, the bound that holds is the in-place one (the line below
       * the table gives the tensor-level bound beside it) */
      uint64_t bound = p->in_place ? a->inplace_bound : a->lower_bound;
      snprintf(lb, sizeof lb, a->total_size == bound ? "%llu =" : "%llu",
               (unsigned long long)bound);
    }
    mp_buf_printf(&b, "%-3u %-*s %-10s %-*s %-*s %10llu %10llu %11s %u\n", i, (int)aw, sym,
                  mp_role_name(a->role), mw, mp_platform_memory_name(pf, a->memory), mw,
                  mp_platform_memory_name(pf, a->source_memory), (unsigned long long)a->total_size,
                  (unsigned long long)a->used, lb, a->n_tensors);
  }
  if (p->in_place)
    mp_buf_printf(&b, "in place  memory.in_place: %s\n",
                  p->in_place_mode == MP_IN_PLACE_SPEED
                      ? "speed, every operator keeps its fastest kernel (no depthwise convolution "
                        "runs channel by channel)"
                      : "size, the smallest scratch (a depthwise convolution runs channel by "
                        "channel, slower, where that lowers the in-place bound)");
  for (uint32_t i = 0; p->in_place && i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->role != MP_ROLE_SCRATCH) continue;
    uint64_t tl = a->lower_bound, sz = a->total_size;
    char delta[96];
    if (sz < tl)
      snprintf(delta, sizeof delta, "%llu bytes (%.1f %%) below", (unsigned long long)(tl - sz),
               100.0 * (double)(tl - sz) / (double)tl);
    else if (sz > tl)
      snprintf(delta, sizeof delta, "%llu bytes above", (unsigned long long)(sz - tl));
    else
      snprintf(delta, sizeof delta, "at");
    /* both bounds are the planned graph's: with PADs folded or views
     * made, not the model's as written (inspect gives that one) */
    bool rw = g->n_folded_pads || g->n_view_ops || g->n_elided_concats || g->n_partial_concats;
    /* the channel-by-channel temporaries raise this graph's tensor-level
     * bound above the plain plan's: name both figures */
    char serial[160] = "";
    uint64_t plain = bound_without_serial_temps(p, i);
    if (plain && plain != tl)
      snprintf(serial, sizeof serial, "; %llu without the one-channel temporaries of the "
                                      "depthwise convolutions run channel by channel",
               (unsigned long long)plain);
    mp_buf_printf(&b, "arena %u: in place, %llu bytes against an in-place bound of %llu: %s the "
                      "tensor-level bound of %llu%s (outputs sharing no byte with their "
                      "inputs%s)\n",
                  i, (unsigned long long)sz, (unsigned long long)a->inplace_bound, delta,
                  (unsigned long long)tl, rw ? " after the rewrites below" : "", serial);
  }
  summary_in_place_layout(&b, p);
  if (g->n_folded_pads) {
    char nb[32];
    human_bytes(mp_folded_pad_bytes(g), nb, sizeof nb);
    mp_buf_printf(&b, "rewrites: %u PAD%s folded into %s: %s of padded copies not stored\n",
                  g->n_folded_pads, g->n_folded_pads == 1 ? "" : "s", mp_folded_pad_readers(g),
                  nb);
  }
  if (g->n_view_ops || g->n_elided_concats || g->n_partial_concats) {
    char nb[32], part[96] = "";
    human_bytes(mp_view_copy_bytes(g), nb, sizeof nb);
    if (g->n_partial_concats)
      snprintf(part, sizeof part, ", %u partly (the other inputs copied)", g->n_partial_concats);
    mp_buf_printf(&b, "rewrites: %u view%s (SPLIT, SLICE and kin: outputs are bytes of their "
                      "input), %u CONCATENATION%s elided (producers write into the output)%s: %s "
                      "of copies not made\n", g->n_view_ops, g->n_view_ops == 1 ? "" : "s",
                  g->n_elided_concats, g->n_elided_concats == 1 ? "" : "s", part, nb);
  }
  if (g->n_const_folded) {
    /* "folded: 3 operators computed at convert time (12 SHAPE, 13 ...)" */
    char nb[32];
    human_bytes(g->const_folded_bytes, nb, sizeof nb);
    mp_buf_printf(&b, "folded: %u operator%s computed at convert time, %s of constants (",
                  g->n_const_folded, g->n_const_folded == 1 ? "" : "s", nb);
    uint32_t shown = 0;
    for (uint32_t o = 0; o < g->n_ops; o++) {
      if (!g->ops[o].const_folded) continue;
      if (shown == 8) {
        mp_buf_puts(&b, ", ...");
        break;
      }
      mp_buf_printf(&b, "%s%u %s", shown ? ", " : "", g->ops[o].model_index, g->ops[o].name);
      shown++;
    }
    mp_buf_puts(&b, ")\n");
  }
  summary_order(&b, g);
  emit_patch_summary(&b, p);
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->role != MP_ROLE_SCRATCH || a->total_size == a->lower_bound) continue;
    if (p->in_place && a->total_size < a->lower_bound) continue;
    if (a->proven_lower == a->proven_upper)
      mp_buf_printf(&b, "arena %u: %llu bytes is proven optimal (the lower bound %llu cannot be "
                        "reached)\n", i, (unsigned long long)a->proven_upper,
                    (unsigned long long)a->lower_bound);
    else if (a->proven_lower > a->lower_bound || a->timed_out)
      mp_buf_printf(&b, "arena %u: the optimum lies in [%llu, %llu]%s\n", i,
                    (unsigned long long)a->proven_lower, (unsigned long long)a->proven_upper,
                    a->timed_out ? " (the time limit cut the search)" : "");
  }
  mp_buf_printf(&b, "\n%-*s %10s %10s %10s %10s %10s %10s %12s\n", mw, "memory", "budget", "used",
                "scratch", "persistent", "constant", "staged src", "headroom");
  for (uint32_t k = 0; k < n_mem; k++) {
    mp_memory m = by_name[k];
    const mp_memory_usage *u = &p->memories[m];
    if (!u->present) continue;
    char hb[32];
    /* sharing scratch with other models: what is left after all of them */
    uint64_t held = shared ? shared->held[m] : u->used;
    human_bytes(u->budget > held ? u->budget - held : 0, hb, sizeof hb);
    mp_buf_printf(&b, "%-*s %10llu %10llu %10llu %10llu %10llu %10llu %12s\n", mw,
                  mp_platform_memory_name(pf, m), (unsigned long long)u->budget,
                  (unsigned long long)u->used, (unsigned long long)u->scratch,
                  (unsigned long long)u->persistent, (unsigned long long)u->constant,
                  (unsigned long long)u->staged_source, hb);
  }
  /* models: [...]: which figure is which */
  for (uint32_t k = 0; shared && k < n_mem; k++) {
    mp_memory m = by_name[k];
    const mp_memory_usage *u = &p->memories[m];
    if (!u->present || !shared->held[m]) continue;
    char sym[160];
    if (shared->size[m])
      mp_buf_printf(&b, "shared    %s: this model's %llu B of scratch lie in the %llu B shared "
                        "buffer (%s); %s holds %llu of its %llu B for all the models (the shared "
                        "buffer and every model's persistent and constant arenas)\n",
                    mp_platform_memory_name(pf, m), (unsigned long long)u->scratch,
                    (unsigned long long)shared->size[m],
                    mp_shared_symbol(shared, pf, m, sym, sizeof sym),
                    mp_platform_memory_name(pf, m), (unsigned long long)shared->held[m],
                    (unsigned long long)u->budget);
    else if (shared->held[m] != u->used)
      mp_buf_printf(&b, "shared    %s holds %llu of its %llu B for all the models\n",
                    mp_platform_memory_name(pf, m), (unsigned long long)shared->held[m],
                    (unsigned long long)u->budget);
  }
  uint64_t load = 0;
  for (uint32_t k = 0; k < n_mem; k++) load += p->memories[by_name[k]].load_image;
  if (load) {
    mp_buf_printf(&b, "load image %llu bytes in non-volatile memory for the read-only blobs in RAM (",
                  (unsigned long long)load);
    bool first = true;
    for (uint32_t k = 0; k < n_mem; k++) {
      if (!p->memories[by_name[k]].load_image) continue;
      mp_buf_printf(&b, "%s%s %llu", first ? "" : ", ", mp_platform_memory_name(pf, by_name[k]),
                    (unsigned long long)p->memories[by_name[k]].load_image);
      first = false;
    }
    mp_buf_puts(&b, "), copied from there at boot\n");
  }
  put_kernels(&b, p);
  if (verbose >= 2) {
    size_t nw = 0;
    for (uint32_t t = 0; t < p->n_allocs; t++)
      if (p->allocs[t].placed) nw = mp_max_u64(nw, strlen(g->tensors[t].name));
    nw = clamp_width(nw, 6, NAME_MAX_COLS);
    mp_buf_printf(&b, "\n%4s  %-*s %-10s %-*s %-*s %8s %8s %-11s %-8s %s\n", "id", (int)nw,
                  "tensor", "role", mw, "memory", mw, "source", "offset", "size", "lifetime", "alias_of",
                  "why there");
    for (uint32_t t = 0; t < p->n_allocs; t++) {
      const mp_allocation *a = &p->allocs[t];
      if (!a->placed) continue;
      char life[32] = "program", alias[16] = "", nb[NAME_MAX_COLS + 8], why[256];
      if (a->binding.role == MP_ROLE_SCRATCH)
        snprintf(life, sizeof life, "[%d, %d]", p->lifetimes[t].start_op, p->lifetimes[t].end_op);
      if (a->alias_of >= 0) snprintf(alias, sizeof alias, "%d", a->alias_of);
      mp_buf_printf(&b, "%4u  %-*s %-10s %-*s %-*s %8llu %8llu %-11s %-8s %s\n", t, (int)nw,
                    mp_name_fit(g->tensors[t].name, nw, nb, sizeof nb),
                    mp_role_name(a->binding.role), mw, mp_platform_memory_name(pf, a->memory), mw,
                    mp_platform_memory_name(pf, a->binding.source_memory), (unsigned long long)a->offset,
                    (unsigned long long)a->size, life, alias,
                    mp_reason_text(pf, &a->reason, a->alias_of, why, sizeof why));
    }
  }
  if (verbose >= 3) fill_over_time(&b, p);
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  return b.data ? b.data : calloc(1, 1);
}

char *mp_module_tables_summary(const mp_plan *p, const mp_module_tables *t) {
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_printf(&b, "tables    %llu bytes read-only", (unsigned long long)t->rodata);
  if (t->has_memory)
    mp_buf_printf(&b, " in %s", mp_platform_memory_name(&p->platform, t->memory));
  else
    mp_buf_puts(&b, " in .rodata (no read-only memory on the platform)");
  mp_buf_printf(&b, " (kernel params %llu), %llu bytes .data, %llu bytes .bss: the module's own "
                    "tables on a 32-bit target, code not counted\n",
                (unsigned long long)t->params, (unsigned long long)t->data,
                (unsigned long long)t->bss);
  if (t->has_memory && !p->platform.read_only[t->memory] && t->rodata)
    mp_buf_printf(&b, "tables    %s is RAM: the read-only tables need a load image of %llu bytes "
                      "in non-volatile memory and a copy at boot\n",
                  mp_platform_memory_name(&p->platform, t->memory), (unsigned long long)t->rodata);
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  return b.data ? b.data : calloc(1, 1);
}
