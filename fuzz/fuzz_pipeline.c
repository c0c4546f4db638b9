/*
 * fuzz_pipeline.c — libFuzzer target for the whole convert pipeline behind
 * the reader: graph, kernel preparation and lowering, planning,
 * verification, the reports and the module, all in memory.
 *
 * The input is a .tflite file's bytes.  What the reader accepts goes, for
 * subgraph 0, through mp_graph_build, mp_kernels_prepare (unsupported
 * operators allowed, as `convert --allow-unsupported` does), the C text of
 * every lowered operator's params, mp_plan_build on apollo510_evb with
 * greedy or greedy_by_size, arenas allocated or not, memory.in_place on
 * (PADs folded) or off, memory.op_order min_peak or model (the input's
 * last byte picks), mp_plan_verify,
 * the residency JSON, the HTML report and every file of the emitted module
 * (handed over in memory by emit_module_files, never written).  Besides
 * crashes, leaks and UBSan reports, a broken promise aborts:
 *   - a stage that fails without an error diagnostic;
 *   - a plan the planner built that the verifier refuses;
 *   - an order found that the graph refuses, that breaks a dependence or
 *     a barrier, or whose tensor-level bound is not the search's;
 *   - a module file that is empty, or a report that is not text.
 */
#include "emit/emit.h"
#include "lower/lower.h"
#include "memplan.h"

#include <stdlib.h>
#include <string.h>

typedef struct counts {
  unsigned errors;
  size_t chars;
} counts;

/* Count errors, and touch every string so ASan sees a bad pointer. */
static void sink(void *user, const mp_diag *d) {
  counts *c = user;
  if (d->severity == MP_SEV_ERROR) c->errors++;
  c->chars += strlen(d->message);
  if (d->file) c->chars += strlen(d->file);
}

static void check(bool ok) {
  if (!ok) abort();
}

/* A failed stage must have said why (allocation failure aside). */
static void failed_with_a_message(mp_status st, const counts *c, unsigned before) {
  check(st == MP_ERR_NOMEM || c->errors > before);
}

typedef struct files {
  size_t n, bytes;
} files;

/* The C the emitter generates (src/, include/) holds the model's names
 * only as comment text or string literals: read as C does, every comment
 * closes where the emitter closed it (no comment start inside one), no
 * string or character literal spans a line, no control byte but newline
 * and no trigraph exists. */
static void check_c_text(const char *s, size_t n) {
  enum { CODE, COMMENT, STRING, CHAR } st = CODE;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i], d = i + 1 < n ? (unsigned char)s[i + 1] : 0;
    check(c == '\n' || (c >= 32 && c != 127)); /* the emitter's own text has UTF-8 dashes */
    check(!(c == '?' && d == '?'));
    switch (st) {
    case CODE:
      if (c == '/' && d == '*') st = COMMENT, i++;
      else if (c == '/' && d == '/') while (i < n && s[i] != '\n') i++;
      else if (c == '"') st = STRING;
      else if (c == '\'') st = CHAR;
      break;
    case COMMENT:
      check(!(c == '/' && d == '*'));
      if (c == '*' && d == '/') st = CODE, i++;
      break;
    case STRING:
    case CHAR:
      check(c != '\n');
      if (c == '\\') i++;
      else if (c == (st == STRING ? '"' : '\'')) st = CODE;
      break;
    }
  }
  check(st == CODE);
}

static mp_status take_file(void *user, const char *rel, const void *data, size_t size) {
  files *f = user;
  check(rel && *rel && rel[0] != '/' && data && size > 0);
  size_t l = strlen(rel);
  if ((!strncmp(rel, "src/", 4) || !strncmp(rel, "include/", 8)) && l > 2 &&
      (!strcmp(rel + l - 2, ".c") || !strcmp(rel + l - 2, ".h")))
    check_c_text(data, size);
  const uint8_t *p = data;
  f->bytes += size + p[0] + p[size - 1]; /* touch both ends */
  f->n++;
  return MP_OK;
}

static void lower_all(const mp_graph *g) {
  for (uint32_t i = 0; i < g->n_ops; i++) {
    mp_lowered_op lo;
    if (mp_lower_op(g, i, &lo, NULL) == MP_OK && lo.supported && !lo.noop) {
      mp_buf b;
      mp_buf_init(&b);
      mp_lower_params_c(&lo, "fz", &b);
      check(b.failed || b.len > 0);
      mp_buf_free(&b);
    }
    mp_lower_free(&lo);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 20)) return 0;
  counts c = {0, 0};
  mp_diag_sink dx = {sink, &c};
  mp_model *m = NULL;
  unsigned before = c.errors;
  mp_status st = mp_model_parse(data, size, "fuzz.tflite", &dx, &m);
  if (st != MP_OK) {
    failed_with_a_message(st, &c, before);
    return 0;
  }
  /* the last byte picks the plan's options; bit 2: memory.in_place, PADs
   * folded into their convolutions, copies made views and depthwise
   * convolutions run channel by channel where that lowers the bound */
  bool in_place = (data[size - 1] & 4) != 0;
  mp_graph_options go = {.alias_views = true, .fold_pads = in_place, .sub_views = in_place,
                         .serial_depthwise = in_place};
  mp_graph *g = NULL;
  before = c.errors;
  st = mp_graph_build(m, 0, &go, &dx, &g);
  if (st != MP_OK) {
    failed_with_a_message(st, &c, before);
    mp_model_free(&m);
    return 0;
  }
  before = c.errors;
  st = mp_kernels_prepare(g, true, &dx);
  if (st != MP_OK) {
    failed_with_a_message(st, &c, before);
    goto done;
  }
  /* bit 3: memory.op_order min_peak (a small search budget): the graph
   * built again in the order found must be valid and keep its bound */
  if (data[size - 1] & 8) {
    uint32_t *order = malloc((g->n_ops + 1) * sizeof *order);
    mp_order_result r;
    check(order != NULL);
    if (mp_order_search(g, 16, in_place, 4096, order, &r) == MP_OK && r.moved) {
      mp_graph_options ro = {.alias_views = true, .fold_pads = in_place,
                             .serial_depthwise = in_place, .order = order};
      mp_graph *h = NULL;
      check(mp_graph_build(m, 0, &ro, NULL, &h) == MP_OK);
      check(mp_kernels_prepare(h, true, NULL) == MP_OK);
      char why[240];
      check(mp_order_check(h, why, sizeof why));
      check(r.bound <= r.model_bound);
      if (!in_place) check(mp_graph_lower_bound(h, 16) == r.bound);
      h->order = r;
      mp_graph_free(&g);
      g = h;
    }
    free(order);
  }
  lower_all(g);

  mp_config cfg;
  memset(&cfg, 0, sizeof cfg);
  check(mp_platform_builtin("apollo510_evb", &cfg.platform));
  cfg.memory.planner = (char *)((data[size - 1] & 1) ? "greedy_by_size" : "greedy");
  cfg.memory.allocate_arenas = (data[size - 1] & 2) == 0;
  cfg.memory.in_place = in_place;
  cfg.memory.dump_residency_json = true;
  cfg.module_path = (char *)"out";
  cfg.module_name = (char *)"fz_nn";
  cfg.prefix = (char *)"fz";
  mp_plan *plan = NULL;
  before = c.errors;
  st = mp_plan_build(g, &cfg.platform, &cfg.memory, &dx, &plan);
  if (st != MP_OK) {
    failed_with_a_message(st, &c, before);
    goto done;
  }
  check(mp_plan_verify(plan, &dx) == MP_OK);
  char *json = NULL, *html = NULL;
  if (mp_residency_json(plan, "fz", &json) == MP_OK) check(json && json[0] == '{');
  if (mp_report_html(plan, "fz", &html) == MP_OK) check(html && strlen(html) > 100);
  free(json);
  free(html);
  char *summary = mp_plan_summary(plan, "fz", 2);
  free(summary);
  files f = {0, 0};
  before = c.errors;
  st = emit_module_files(plan, &cfg, &dx, take_file, &f);
  if (st != MP_OK)
    failed_with_a_message(st, &c, before);
  else
    check(f.n >= 4);
  mp_plan_free(&plan);
done:
  mp_graph_free(&g);
  mp_model_free(&m);
  return 0;
}
