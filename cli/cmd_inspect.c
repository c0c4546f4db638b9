/*
 * cmd_inspect.c — `memplan inspect MODEL [--subgraph N] [--json]
 * [--memory.op_order min_peak] [--memory.patch auto]`.
 *
 * Shows what the planner sees in a model: operators, tensors with size,
 * role, lifetime and alias, and the scratch lower bound with and without
 * view aliasing.  --json prints a stable object for tools.  The search of
 * the operator orders (memory.op_order: min_peak) grows with the model
 * (seconds at thousands of operators), so it runs only when asked for;
 * otherwise the output says it did not.
 */
#include "cli.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: memplan inspect MODEL.tflite [--subgraph N] [--alignment N] [--json]\n"
    "                       [--memory.op_order model|min_peak] [--memory.patch off|auto]\n"
    "\n"
    "Show the operators, tensors (size, role, lifetime, alias) and the scratch\n"
    "lower bound of one subgraph of a model.\n"
    "\n"
    "  --subgraph N    subgraph to analyse (default 0)\n"
    "  --alignment N   slot alignment for the lower bound (default 16)\n"
    "  --json          print a JSON object instead of tables\n"
    "  --memory.op_order min_peak\n"
    "                  also search the operator orders for the lowest bounds, as\n"
    "                  memory.op_order: min_peak does (default model: the model's\n"
    "                  order, no search; the search takes seconds on models of\n"
    "                  thousands of operators)\n"
    "  --memory.patch auto\n"
    "                  also search a stage to run tile by tile, as memory.patch:\n"
    "                  auto does with memory.in_place and the greedy planner on\n"
    "                  apollo510_evb, and give its tiles, halo, tile buffers,\n"
    "                  extra multiply-accumulates and scratch (default off)\n";

static void shape_str(const mp_tensor *t, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  len += (size_t)snprintf(buf + len, n - len, "[");
  for (uint32_t d = 0; d < t->rank && len < n; d++)
    len += (size_t)snprintf(buf + len, n - len, d ? ",%d" : "%d", t->shape[d]);
  if (len < n) snprintf(buf + len, n - len, "]");
}

/* Op at which the live scratch sum peaks (first such op), or -1: one
 * pass over the tensors into a difference array over the ops, as
 * mp_graph_lower_bound sums them. */
static int32_t peak_op(const mp_graph *g, uint32_t align) {
  int64_t *diff = calloc((size_t)g->n_ops + 1, sizeof *diff);
  if (!diff) return -1;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    if (!mp_graph_needs_slot(g, t)) continue;
    const mp_lifetime *lt = &g->storage[t];
    int64_t end = lt->end_op < (int32_t)g->n_ops ? lt->end_op : (int64_t)g->n_ops - 1;
    if (lt->start_op < 0 || end < lt->start_op) continue;
    uint64_t a = align > g->tensors[t].align_hint ? align : g->tensors[t].align_hint;
    int64_t sz = (int64_t)((g->tensors[t].size + a - 1) / a * a);
    diff[lt->start_op] += sz;
    diff[end + 1] -= sz;
  }
  int32_t best_op = -1;
  int64_t live = 0, best = 0;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    live += diff[o];
    if (live > best) {
      best = live;
      best_op = (int32_t)o;
    }
  }
  free(diff);
  return best_op;
}

static uint32_t count_slots(const mp_graph *g) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) n += mp_graph_needs_slot(g, t);
  return n;
}

/* The graph inputs or outputs with what an application needs to fill or
 * read them: element type, shape, bytes and quantisation. */
static json_t *io_json(const mp_graph *g, bool inputs) {
  uint32_t n = inputs ? g->n_inputs : g->n_outputs;
  const int32_t *ids = inputs ? g->inputs : g->outputs;
  json_t *arr = json_array();
  for (uint32_t i = 0; i < n; i++) {
    const mp_tensor *t = &g->tensors[ids[i]];
    mp_io_quant q = mp_graph_tensor_quant(g, (uint32_t)ids[i]);
    json_t *jo = json_object();
    json_object_set_new(jo, "index", json_integer(i));
    json_object_set_new(jo, "tensor", json_integer(ids[i]));
    json_object_set_new(jo, "name", json_string(t->name));
    json_object_set_new(jo, "dtype", json_string(mp_dtype_name(t->dtype)));
    json_t *sh = json_array();
    for (uint32_t d = 0; d < t->rank; d++) json_array_append_new(sh, json_integer(t->shape[d]));
    json_object_set_new(jo, "shape", sh);
    json_object_set_new(jo, "size", json_integer((json_int_t)t->size));
    json_object_set_new(jo, "quantised", json_boolean(q.quantised));
    json_object_set_new(jo, "scale", q.quantised ? json_real((double)q.scale) : json_null());
    json_object_set_new(jo, "zero_point", q.quantised ? json_integer(q.zero_point) : json_null());
    json_array_append_new(arr, jo);
  }
  return arr;
}

/* memory.op_order min_peak's search on g: the bound in the best order
 * found (the in-place bound on a graph with overlap contracts). */
static mp_order_result order_of(const mp_graph *g, uint32_t align, bool in_place) {
  mp_order_result r = {0};
  uint32_t *order = malloc((g->n_ops ? g->n_ops : 1) * sizeof *order);
  if (!order || mp_order_search(g, align, in_place, 0, order, &r) != MP_OK) {
    r.searched = false;
    r.bound = r.model_bound = in_place ? mp_graph_inplace_bound(g, align)
                                       : mp_graph_lower_bound(g, align);
  }
  free(order);
  return r;
}

static json_t *order_json(const mp_order_result *r) {
  json_t *o = json_object();
  json_object_set_new(o, "bound_bytes", json_integer((json_int_t)r->bound));
  json_object_set_new(o, "moved", json_integer(r->moved));
  json_object_set_new(o, "exact", json_boolean(r->exact));
  return o;
}

/* The graphs inspect reports on: g as planned without rewrites, na without
 * view aliasing, ip with memory.in_place's rewrites; k is g with the
 * kernels prepared (their op-local scratch added), NULL when they cannot
 * be (ip then has only their overlap contracts). */
typedef struct inspected {
  const mp_graph *g, *na, *ip, *k;
  mp_status k_status;
} inspected;

static int print_json(const inspected *v, uint32_t align, bool search) {
  const mp_graph *g = v->g, *na = v->na, *ip = v->ip;
  json_t *o = json_object();
  const mp_model *m = g->model;
  json_object_set_new(o, "model", json_string(m->path));
  json_object_set_new(o, "subgraph", json_integer(g->subgraph));
  json_object_set_new(o, "subgraphs", json_integer(m->n_subgraphs));
  json_object_set_new(o, "ops", json_integer(g->n_ops));
  json_object_set_new(o, "tensors", json_integer(g->n_tensors));
  json_object_set_new(o, "scratch_tensors", json_integer(count_slots(g)));
  json_object_set_new(o, "alignment", json_integer(align));
  json_object_set_new(o, "lower_bound_bytes", json_integer((json_int_t)mp_graph_lower_bound(g, align)));
  /* with the generic kernels' op-local scratch, as plan counts it; null
   * when the kernels cannot be prepared */
  json_object_set_new(o, "lower_bound_bytes_with_op_scratch",
                      v->k ? json_integer((json_int_t)mp_graph_lower_bound(v->k, align))
                           : json_null());
  json_object_set_new(o, "lower_bound_bytes_no_alias",
                      json_integer((json_int_t)mp_graph_lower_bound(na, align)));
  json_object_set_new(o, "inplace_bound_bytes",
                      json_integer((json_int_t)mp_graph_inplace_bound(ip, align)));
  json_object_set_new(o, "inplace_pads_folded", json_integer(ip->n_folded_pads));
  json_object_set_new(o, "inplace_views", json_integer(ip->n_view_ops));
  json_object_set_new(o, "inplace_concats_elided", json_integer(ip->n_elided_concats));
  if (ip->n_partial_concats)
    json_object_set_new(o, "inplace_concats_partly_elided", json_integer(ip->n_partial_concats));
  json_object_set_new(o, "peak_op", json_integer(peak_op(g, align)));
  /* null unless the search was asked for (--memory.op_order min_peak) */
  json_object_set_new(o, "op_order", json_string(search ? "min_peak" : "model"));
  if (search) {
    mp_order_result r1 = order_of(v->k ? v->k : g, align, false), r2 = order_of(ip, align, true);
    json_object_set_new(o, "min_peak_order", order_json(&r1));
    json_object_set_new(o, "min_peak_order_inplace", order_json(&r2));
  } else {
    json_object_set_new(o, "min_peak_order", json_null());
    json_object_set_new(o, "min_peak_order_inplace", json_null());
  }
  json_t *ins = json_array(), *outs = json_array();
  for (uint32_t i = 0; i < g->n_inputs; i++) json_array_append_new(ins, json_integer(g->inputs[i]));
  for (uint32_t i = 0; i < g->n_outputs; i++) json_array_append_new(outs, json_integer(g->outputs[i]));
  json_object_set_new(o, "inputs", ins);
  json_object_set_new(o, "outputs", outs);
  json_object_set_new(o, "input_list", io_json(g, true));
  json_object_set_new(o, "output_list", io_json(g, false));
  json_t *ops = json_array();
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *op = &g->ops[i];
    json_t *jo = json_object();
    json_object_set_new(jo, "index", json_integer(i));
    json_object_set_new(jo, "op", json_string(op->name));
    json_object_set_new(jo, "builtin_code", json_integer(op->builtin_code));
    json_t *a = json_array();
    for (uint32_t k = 0; k < op->n_inputs; k++) json_array_append_new(a, json_integer(op->inputs[k]));
    json_object_set_new(jo, "inputs", a);
    a = json_array();
    for (uint32_t k = 0; k < op->n_outputs; k++) json_array_append_new(a, json_integer(op->outputs[k]));
    json_object_set_new(jo, "outputs", a);
    a = json_array();
    for (uint32_t k = 0; k < op->n_intermediates; k++)
      json_array_append_new(a, json_integer(op->intermediates[k]));
    json_object_set_new(jo, "intermediates", a);
    json_object_set_new(jo, "view", json_boolean(op->is_view));
    json_array_append_new(ops, jo);
  }
  json_object_set_new(o, "op_list", ops);
  json_t *ts = json_array();
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    const mp_tensor *t = &g->tensors[i];
    json_t *jt = json_object();
    json_object_set_new(jt, "id", json_integer(i));
    json_object_set_new(jt, "name", json_string(t->name));
    json_object_set_new(jt, "dtype", json_string(mp_dtype_name(t->dtype)));
    json_t *sh = json_array();
    for (uint32_t d = 0; d < t->rank; d++) json_array_append_new(sh, json_integer(t->shape[d]));
    json_object_set_new(jt, "shape", sh);
    json_object_set_new(jt, "size", json_integer((json_int_t)t->size));
    json_object_set_new(jt, "role", json_string(mp_role_name(t->role)));
    json_object_set_new(jt, "used", json_boolean(t->used));
    bool live = t->used && t->role == MP_ROLE_SCRATCH;
    json_object_set_new(jt, "start_op", live ? json_integer(t->lifetime.start_op) : json_null());
    json_object_set_new(jt, "end_op", live ? json_integer(t->lifetime.end_op) : json_null());
    json_object_set_new(jt, "alias_of", t->alias_of >= 0 ? json_integer(t->alias_of) : json_null());
    /* the slot's lifetime: an alias root's covers every alias */
    const mp_lifetime *st = &g->storage[i];
    json_object_set_new(jt, "storage_start_op", live ? json_integer(st->start_op) : json_null());
    json_object_set_new(jt, "storage_end_op", live ? json_integer(st->end_op) : json_null());
    json_array_append_new(ts, jt);
  }
  json_object_set_new(o, "tensor_list", ts);
  char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (!s) return CLI_EXIT_BUG;
  puts(s);
  free(s);
  return CLI_EXIT_OK;
}

/* Print a table row without its trailing blanks. */
static void print_trimmed(char *line) {
  size_t n = strlen(line);
  while (n > 0 && line[n - 1] == ' ') line[--n] = '\0';
  puts(line);
}

/* Widest tensor-name column; longer names keep their head and tail. */
#define NAME_COLS 48

static void print_text(const inspected *v, uint32_t align, bool search) {
  const mp_graph *g = v->g, *na = v->na, *ip = v->ip;
  const mp_model *m = g->model;
  const mp_subgraph_def *sg = &m->subgraphs[g->subgraph];
  printf("model     %s (schema v%u, %zu bytes%s%s)\n", m->path, m->version, m->size,
         m->description[0] ? ", " : "", m->description);
  printf("subgraph  %u of %u%s%s%s: %u ops, %u tensors\n", g->subgraph, m->n_subgraphs,
         sg->name[0] ? " '" : "", sg->name, sg->name[0] ? "'" : "", g->n_ops, g->n_tensors);
  printf("inputs   ");
  for (uint32_t i = 0; i < g->n_inputs; i++) printf(" %d", g->inputs[i]);
  printf("\noutputs  ");
  for (uint32_t i = 0; i < g->n_outputs; i++) printf(" %d", g->outputs[i]);
  printf("\n\n%4s  %-28s %-24s %s\n", "op", "operator", "inputs", "outputs");
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *op = &g->ops[i];
    char ins[128] = "", outs[128] = "";
    size_t l = 0;
    for (uint32_t k = 0; k < op->n_inputs && l < sizeof ins; k++)
      l += (size_t)snprintf(ins + l, sizeof ins - l, k ? " %d" : "%d", op->inputs[k]);
    l = 0;
    for (uint32_t k = 0; k < op->n_outputs && l < sizeof outs; k++)
      l += (size_t)snprintf(outs + l, sizeof outs - l, k ? " %d" : "%d", op->outputs[k]);
    char line[512];
    snprintf(line, sizeof line, "%4u  %-28s %-24s %s%s", i, op->name, ins, outs,
             op->is_view        ? "   (view: no-op)"
             : op->const_folded ? "   (folded: computed at convert time)"
                                : "");
    print_trimmed(line);
  }
  /* the name column is as wide as the longest name, up to NAME_COLS */
  int nw = 4;
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    size_t l = strlen(g->tensors[i].name);
    if (l > (size_t)nw) nw = l > NAME_COLS ? NAME_COLS : (int)l;
  }
  printf("\n%4s  %-*s %-8s %-18s %9s  %-10s %-11s %s\n", "id", nw, "name", "dtype", "shape",
         "bytes", "role", "lifetime", "alias_of");
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    const mp_tensor *t = &g->tensors[i];
    char shape[64], life[32] = "-", alias[16] = "";
    shape_str(t, shape, sizeof shape);
    if (t->role == MP_ROLE_SCRATCH && t->used && t->lifetime.start_op >= 0)
      snprintf(life, sizeof life, "[%d, %d]", t->lifetime.start_op, t->lifetime.end_op);
    else if (t->role == MP_ROLE_SCRATCH && !t->used)
      snprintf(life, sizeof life, "unused");
    else if (t->role != MP_ROLE_SCRATCH)
      snprintf(life, sizeof life, "program");
    if (t->alias_of >= 0) snprintf(alias, sizeof alias, "%d", t->alias_of);
    char nb[NAME_COLS + 8];
    const char *name = mp_name_fit(t->name, (size_t)nw, nb, sizeof nb);
    char line[256];
    snprintf(line, sizeof line, "%4u  %-*s %-8s %-18s %9llu  %-10s %-11s %s", i, nw, name,
             mp_dtype_name(t->dtype), shape, (unsigned long long)t->size, mp_role_name(t->role),
             life, alias);
    print_trimmed(line);
  }
  uint64_t consts = 0, pers = 0;
  for (uint32_t i = 0; i < g->n_tensors; i++)
    if (g->tensors[i].role == MP_ROLE_CONSTANT) consts += g->tensors[i].size;
  /* the variable tensors, and the kernels' own state when they prepared */
  const mp_graph *pg = v->k ? v->k : g;
  for (uint32_t i = 0; i < pg->n_tensors; i++)
    if (pg->tensors[i].role == MP_ROLE_PERSISTENT) pers += pg->tensors[i].size;
  printf("\nscratch slots          %u (%u before view aliasing)\n", count_slots(g), count_slots(na));
  printf("scratch lower bound    %llu bytes at %u-byte alignment, peak at op %d\n",
         (unsigned long long)mp_graph_lower_bound(g, align), align, peak_op(g, align));
  if (v->k)
    printf("with op-local scratch  %llu bytes (the generic kernels' own buffers too, as plan "
           "counts them)\n", (unsigned long long)mp_graph_lower_bound(v->k, align));
  else
    printf("with op-local scratch  not known: the kernels cannot be prepared (%s)\n",
           mp_status_str(v->k_status));
  printf("without view aliasing  %llu bytes\n", (unsigned long long)mp_graph_lower_bound(na, align));
  printf("in-place bound         %llu bytes (memory.in_place: outputs over the inputs their "
         "kernels allow)\n", (unsigned long long)mp_graph_inplace_bound(ip, align));
  if (ip->n_folded_pads)
    printf("                       with %u PAD%s folded into %s\n", ip->n_folded_pads,
           ip->n_folded_pads == 1 ? "" : "s", mp_folded_pad_readers(ip));
  if (ip->n_view_ops || ip->n_elided_concats || ip->n_partial_concats) {
    printf("                       with %u view%s and %u CONCATENATION%s elided", ip->n_view_ops,
           ip->n_view_ops == 1 ? "" : "s", ip->n_elided_concats,
           ip->n_elided_concats == 1 ? "" : "s");
    if (ip->n_partial_concats)
      printf(", %u partly (the other inputs copied)", ip->n_partial_concats);
    printf("\n");
  }
  if (search) {
    mp_order_result r1 = order_of(v->k ? v->k : g, align, false), r2 = order_of(ip, align, true);
    printf("in the min_peak order  %llu bytes, in-place bound %llu bytes (memory.op_order: "
           "min_peak; %u and %u of %u operators moved%s)\n", (unsigned long long)r1.bound,
           (unsigned long long)r2.bound, r1.moved, r2.moved, g->n_ops,
           r1.exact && r2.exact ? ", no order is lower" : "");
  } else {
    printf("operator order         the model's, not searched (--memory.op_order min_peak "
           "searches for lower bounds)\n");
  }
  printf("constants              %llu bytes\n", (unsigned long long)consts);
  printf("persistent             %llu bytes\n", (unsigned long long)pers);
}

/* --memory.patch auto's finding, after the bounds. */
static void print_patch(const mp_graph *pg, uint64_t scratch, mp_status k_status) {
  mp_patch_info pi;
  if (k_status != MP_OK) {
    printf("patch (auto)           not searched: the kernels cannot be prepared (%s)\n",
           mp_status_str(k_status));
    return;
  }
  if (!mp_graph_patch_info(pg, &pi)) {
    printf("patch (auto)           no stage plans smaller tile by tile\n");
    return;
  }
  printf("patch (auto)           operators %u .. %u on %u x %u tiles of tensor %d from tensor %d: "
         "halo %d rows, %d columns; tile buffers %llu bytes; +%llu.%02llu %% multiply-accumulates; "
         "greedy in place %llu bytes against %llu unpatched", pi.first, pi.last, pi.rows, pi.cols,
         pi.output, pi.input, pi.halo_rows, pi.halo_cols, (unsigned long long)pi.tile_bytes,
         (unsigned long long)(pi.extra_macs_bp / 100), (unsigned long long)(pi.extra_macs_bp % 100),
         (unsigned long long)scratch, (unsigned long long)pi.base_scratch);
  if (pi.stages > 1) printf("; the first of %u stages one after the other", pi.stages);
  printf("\n");
}

int cmd_inspect(cli *c, int argc, char **argv) {
  const char *path = NULL;
  uint64_t subgraph = 0, align = 16;
  bool json = false, search = false, patch = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(USAGE, stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "--memory.op_order") || !strncmp(a, "--memory.op_order=", 18)) {
      const char *v = a[17] == '=' ? a + 18 : i + 1 < argc ? argv[++i] : NULL;
      if (!v) return cli_usage_error("inspect", "--memory.op_order needs model or min_peak");
      if (strcmp(v, "model") && strcmp(v, "min_peak"))
        return cli_usage_error("inspect", "--memory.op_order '%s' is not model or min_peak", v);
      search = !strcmp(v, "min_peak");
    } else if (!strcmp(a, "--memory.patch") || !strncmp(a, "--memory.patch=", 15)) {
      const char *v = a[14] == '=' ? a + 15 : i + 1 < argc ? argv[++i] : NULL;
      if (!v || (strcmp(v, "off") && strcmp(v, "auto")))
        return cli_usage_error("inspect", "--memory.patch needs off or auto");
      patch = !strcmp(v, "auto");
    } else if (!strcmp(a, "--subgraph") || !strcmp(a, "--alignment")) {
      uint64_t v;
      if (i + 1 >= argc || !cli_parse_u64(argv[i + 1], &v))
        return cli_usage_error("inspect", "%s needs a non-negative integer", a);
      i++;
      if (!strcmp(a, "--subgraph")) {
        if (v > UINT32_MAX) return cli_usage_error("inspect", "--subgraph %llu is out of range",
                                                   (unsigned long long)v);
        subgraph = v;
      } else {
        if (v == 0 || (v & (v - 1)) || v > 4096)
          return cli_usage_error("inspect", "--alignment must be a power of two up to 4096");
        align = v;
      }
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("inspect", "unknown option '%s'", a);
    } else if (!path) {
      path = a;
    } else {
      return cli_usage_error("inspect", "more than one model given ('%s' and '%s')", path, a);
    }
  }
  if (!path) return cli_usage_error("inspect", "no model given");
  mp_model *m = NULL;
  mp_graph *g = NULL, *na = NULL, *ip = NULL, *k = NULL;
  mp_status st = mp_model_load(path, &c->sink, &m);
  if (st == MP_OK) st = mp_graph_build(m, (uint32_t)subgraph, NULL, &c->sink, &g);
  if (st == MP_OK) {
    mp_graph_options no_alias = {.alias_views = false};
    st = mp_graph_build(m, (uint32_t)subgraph, &no_alias, &c->sink, &na);
  }
  /* the in-place bound is memory.in_place's: PADs folded, then the
   * kernels' overlap contracts */
  if (st == MP_OK) {
    mp_graph_options fold = {.alias_views = true, .fold_pads = true, .sub_views = true,
                             .serial_depthwise = true};
    st = mp_graph_build(m, (uint32_t)subgraph, &fold, &c->sink, &ip);
  }
  /* the kernels' op-local scratch counts, as in plan: prepared with the
   * generic kernels, operators without one allowed and unreported (the
   * tables show them); a model the kernels refuse keeps ip's overlap
   * contracts only and says the op-local scratch is not known */
  mp_status k_status = MP_OK;
  if (st == MP_OK) st = mp_graph_build(m, (uint32_t)subgraph, NULL, &c->sink, &k);
  if (st == MP_OK) {
    k_status = mp_kernels_prepare(k, true, NULL);
    if (k_status == MP_OK) k_status = mp_kernels_prepare(ip, true, NULL);
    if (k_status != MP_OK) {
      if (k_status == MP_ERR_NOMEM) st = k_status;
      mp_graph_free(&k);
      mp_graph_free(&ip);
      mp_graph_options fold = {.alias_views = true, .fold_pads = true, .sub_views = true};
      if (st == MP_OK) st = mp_graph_build(m, (uint32_t)subgraph, &fold, &c->sink, &ip);
      if (st == MP_OK) st = mp_kernels_overlaps(ip);
    }
  }
  /* --memory.patch auto: the stage memory.patch auto keeps, if any */
  mp_graph *pg = NULL;
  uint64_t patched = 0;
  if (st == MP_OK && patch && k_status == MP_OK) {
    mp_platform pf;
    char planner[] = "greedy";
    mp_memory_args mem = {.planner = planner, .allocate_arenas = true, .in_place = true};
    if (!mp_platform_builtin("apollo510_evb", &pf)) st = MP_ERR_INTERNAL;
    if (st == MP_OK) st = mp_patch_search(ip, &pf, &mem, true, &pg);
    mp_plan *pp = NULL;
    if (st == MP_OK && pg && mp_plan_build(pg, &pf, &mem, NULL, &pp) == MP_OK)
      patched = mp_plan_scratch_bytes(pp);
    mp_plan_free(&pp);
  }
  int rc = cli_exit_code(st);
  if (st == MP_OK) {
    inspected v = {g, na, ip, k, k_status};
    if (json)
      rc = print_json(&v, (uint32_t)align, search);
    else
      print_text(&v, (uint32_t)align, search);
    if (patch && !json) print_patch(pg, patched, k_status);
  }
  mp_graph_free(&pg);
  mp_graph_free(&k);
  mp_graph_free(&ip);
  mp_graph_free(&na);
  mp_graph_free(&g);
  mp_model_free(&m);
  return rc;
}
