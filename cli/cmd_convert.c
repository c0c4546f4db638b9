/*
 * cmd_convert.c — `memplan convert [--path CONFIG.yaml] [--KEY VALUE ...]`.
 *
 * The main command: read the config (file plus command-line overrides),
 * load the model, analyse the configured subgraph, resolve the tensor
 * attribute rulesets, plan, verify the plan, then hand it to the emitter.
 * Every check that can fail on the user's input runs before anything is
 * written, and the emitter writes the module and the reports together, so
 * a failed convert leaves the output folder and the report path untouched.
 *
 * The command is a thin shell: parsing and validation are
 * mp_config_from_args, the key list of --help is mp_config_help_text.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* A ruleset's name in the table: its key path, else its place. */
static const char *rule_label(const mp_rule *r) {
  if (!r) return "";
  return r->key_path ? r->key_path : r->where ? r->where : "ruleset";
}

/* verbose >= 2: every tensor's resolved attributes, and the rulesets that
 * decided them. */
static void print_attributes(const mp_graph *g, const mp_platform *pf, const mp_attributes *at,
                             const mp_rule **mem_rule, const mp_rule **dst_rule) {
  printf("resolved tensor attributes (memory.tensors):\n");
  printf("%5s  %-40s %-10s %10s  %-6s %-11s %s\n", "id", "name", "role", "bytes", "memory",
         "destination", "decided by");
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    char by[160] = "";
    if (mem_rule[t] && dst_rule[t] && mem_rule[t] != dst_rule[t])
      snprintf(by, sizeof by, "%s, %s", rule_label(mem_rule[t]), rule_label(dst_rule[t]));
    else
      snprintf(by, sizeof by, "%s", rule_label(mem_rule[t] ? mem_rule[t] : dst_rule[t]));
    char nb[48];
    printf("%5u  %-40s %-10s %10llu  %-6s %-11s %s\n", t, mp_name_fit(x->name, 40, nb, sizeof nb),
           mp_role_name(x->role),
           (unsigned long long)x->size, at[t].has_memory ? mp_platform_memory_name(pf, at[t].memory) : "-",
           at[t].has_constant_destination_memory
               ? mp_platform_memory_name(pf, at[t].constant_destination_memory)
               : "-",
           by);
  }
  printf("(memory '-': not pinned, the planner follows the preferred memory order;\n"
         " destination '-': a constant is read in place)\n\n");
}

/* The model of cfg loaded, analysed, its kernels lowered and its rulesets
 * resolved (printed with verbose >= 2): the graph to plan, and with folded
 * PADs the unfolded graph too (*plain, else NULL). */
static mp_status load_model(cli *c, const mp_config *cfg, mp_model **m, mp_graph **g,
                            mp_graph **plain) {
  *plain = NULL;
  mp_status st = mp_model_load(cfg->model_path, &c->sink, m);
  if (st == MP_OK) {
    /* memory.in_place also folds PADs into their convolutions and makes
     * copies views */
    mp_graph_options go = {.alias_views = true, .fold_pads = cfg->memory.in_place,
                           .sub_views = cfg->memory.in_place,
                           .serial_depthwise = cfg->memory.in_place_mode == MP_IN_PLACE_SIZE,
                           .fast_kernels = cfg->memory.in_place_mode == MP_IN_PLACE_SPEED &&
                                           cfg->target != MP_TARGET_GENERIC,
                           .caller_io = cfg->memory.io_caller};
    st = mp_graph_build(*m, cfg->subgraph, &go, &c->sink, g);
  }
  /* every operator needs a kernel (or --allow-unsupported); kernels' op-local
   * scratch joins the graph before planning */
  if (st == MP_OK) {
    (*g)->target = cfg->target; /* picks each operator's kernel variant */
    st = mp_kernels_prepare(*g, cfg->allow_unsupported, &c->sink);
  }
  /* memory.op_order min_peak: the graph in the best order found */
  if (st == MP_OK) st = cli_order_graph(cfg, cfg->memory.in_place, cfg->allow_unsupported, g);
  /* memory.patch: a stage run tile by tile */
  if (st == MP_OK) st = cli_patch_graph(cfg, cfg->allow_unsupported, &c->sink, g);
  if (st != MP_OK) return st;
  size_t n = (*g)->n_tensors ? (*g)->n_tensors : 1;
  mp_attributes *at = calloc(n, sizeof *at);
  const mp_rule **mem_rule = calloc(n, sizeof *mem_rule), **dst_rule = calloc(n, sizeof *dst_rule);
  st = at && mem_rule && dst_rule
           ? mp_rules_resolve_traced(*g, &cfg->platform, &cfg->memory, &c->sink, at, mem_rule,
                                     dst_rule)
           : MP_ERR_NOMEM;
  if (st == MP_OK && cfg->verbose >= 2) print_attributes(*g, &cfg->platform, at, mem_rule, dst_rule);
  free(at);
  free(mem_rule);
  free(dst_rule);
  /* folded PADs: the unfolded graph too, to keep whichever plans smaller */
  if (st == MP_OK) st = cli_plain_graph(cfg, *m, *g, cfg->allow_unsupported, plain);
  return st;
}

/* The plan of g (or of plain, when it needs less scratch), verified. */
static mp_status plan_model(cli *c, const mp_config *cfg, const mp_graph *g, const mp_graph *plain,
                            mp_plan **plan) {
  mp_memory_args mem = cfg->memory;
  mem.progress = c->progress;
  mp_status st = mp_plan_build_rewritten(g, plain, &cfg->platform, &mem, &c->sink, plan);
  if (st == MP_OK) st = mp_plan_verify(*plan, &c->sink);
  /* memory.in_place size: what speed would need, for the summary */
  if (st == MP_OK) st = cli_speed_scratch(cfg, g->model, cfg->allow_unsupported, *plan);
  return st;
}

/* The plan summary and the module's tables line (verbose >= 1). */
static void print_summary(const mp_config *cfg, const mp_plan *plan, bool quiet) {
  if (cfg->verbose < 1) return;
  char *s = mp_plan_summary_shared(plan, cfg->prefix, cfg->verbose, cfg->shared);
  if (s) fputs(s, stdout);
  free(s);
  cli_print_fold_note(plan, cfg);
  /* the module's own tables, measured on the module in memory; a module
   * that cannot be emitted fails later with its diagnostics */
  mp_module_tables t;
  if (mp_module_tables_measure(plan, cfg, NULL, &t) == MP_OK) {
    char *ts = mp_module_tables_summary(plan, &t);
    if (ts) printf("\n%s", ts);
    free(ts);
  }
  mp_module_tables_free(&t);
  if (!quiet) cli_print_hint(plan, &cfg->memory, "--memory.planner");
}

static void print_written(const mp_config *cfg) {
  if (cfg->verbose < 1) return;
  char *name = mp_printable(cfg->module_name), *dir = mp_printable(cfg->module_path);
  printf("\nmodule    '%s' written to %s/ (include/%s_model.h is the header to include)\n",
         name ? name : "?", dir ? dir : "?", cfg->prefix);
  if (cfg->memory.dump_residency_json)
    printf("report    %s/%s_residency.json\n", dir ? dir : "?", cfg->prefix);
  free(name);
  free(dir);
}

static void print_report(const char *path) {
  char *shown = mp_printable(path);
  printf("report    %s\n", shown ? shown : "?");
  free(shown);
}

/* Everything after the rules: plan, verify, summarise, emit.  Returns an
 * exit code. */
static int convert_after_rules(cli *c, const mp_config *cfg, const mp_graph *g,
                               const mp_graph *plain, bool quiet) {
  mp_plan *plan = NULL;
  mp_status st = plan_model(c, cfg, g, plain, &plan);
  int rc = cli_exit_code(st);
  if (st == MP_OK) print_summary(cfg, plan, quiet);
  /* The C module (and <prefix>_residency.json with dump_residency_json). */
  if (st == MP_OK) {
    st = mp_emit_module(plan, cfg, &c->sink);
    rc = cli_exit_code(st);
    if (st == MP_OK) print_written(cfg);
  }
  /* the emitter wrote the HTML report with the module, all or nothing */
  if (rc == CLI_EXIT_OK && cfg->report_path && cfg->verbose >= 1)
    print_report(cfg->report_path);
  mp_plan_free(&plan);
  return rc;
}

/* The bytes of each memory the models other than i hold with their
 * persistent and constant arenas (staged sources included). */
static void others_bytes(mp_plan *const *plan, uint32_t n, uint32_t i, uint64_t *out) {
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    out[m] = 0;
    for (uint32_t j = 0; j < n; j++) {
      if (j == i) continue;
      const mp_memory_usage *u = &plan[j]->memories[m];
      out[m] += u->persistent + u->constant + u->staged_source;
    }
  }
}

/* models: [...] as one problem over the shared memories.  Each model was
 * planned on its own; when the shared scratch (the largest model's) and
 * every model's persistent and constant arenas do not fit together, each
 * model is planned again beside the others' arenas
 * (mp_memory_args.reserved), so that its unpinned constants and scratch
 * spill to where there is room, until the models fit together, a round
 * changes nothing, or a model cannot be planned beside the others (the
 * shared check then reports what does not fit).  Re-plans are quiet. */
static mp_status plan_together(cli *c, mp_config *each, mp_graph **g, mp_graph **plain,
                               mp_plan **plan, const char **prefixes, uint32_t n,
                               const char *prefix) {
  for (uint32_t round = 0; round < 2 * n + 2; round++) {
    mp_shared_scratch probe = {0};
    mp_status st = mp_shared_scratch_build((const mp_plan *const *)plan, prefixes, n, prefix,
                                           NULL, &probe);
    mp_shared_scratch_free(&probe);
    if (st != MP_ERR_NOFIT) return st == MP_ERR_NOMEM ? st : MP_OK;
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t rsv[MP_MEM_COUNT];
      others_bytes(plan, n, i, rsv);
      if (!memcmp(rsv, each[i].memory.reserved, sizeof rsv)) continue;
      mp_config ci = each[i];
      memcpy(ci.memory.reserved, rsv, sizeof rsv);
      mp_plan *p = NULL;
      mp_memory_args mem = ci.memory;
      mem.progress = c->progress;
      st = mp_plan_build_rewritten(g[i], plain[i], &ci.platform, &mem, NULL, &p);
      if (st == MP_OK) st = mp_plan_verify(p, NULL);
      if (st == MP_ERR_NOMEM) {
        mp_plan_free(&p);
        return st;
      }
      if (st != MP_OK) { /* no room beside the others: the shared check says what */
        mp_plan_free(&p);
        return MP_OK;
      }
      memcpy(each[i].memory.reserved, rsv, sizeof rsv);
      mp_plan_free(&plan[i]);
      plan[i] = p;
      changed = true;
    }
    if (!changed) return MP_OK;
  }
  return MP_OK;
}

/* models: [...]: every model planned on its own, their scratch shared, and
 * a module each in module.path/<prefix>.  Nothing is written unless every
 * model plans, the shared arenas fit and every module emits in memory. */
static int convert_many(cli *c, const mp_config *cfg, bool quiet) {
  uint32_t n = cfg->n_models;
  mp_config *each = calloc(n, sizeof *each);
  mp_model **m = calloc(n, sizeof *m);
  mp_graph **g = calloc(n, sizeof *g), **plain = calloc(n, sizeof *plain);
  mp_plan **plan = calloc(n, sizeof *plan);
  char **dirs = calloc(n, sizeof *dirs), **reports = calloc(n, sizeof *reports);
  const char **prefixes = calloc(n, sizeof *prefixes);
  mp_shared_scratch shared = {0};
  mp_status st =
      each && m && g && plain && plan && dirs && reports && prefixes ? MP_OK : MP_ERR_NOMEM;
  for (uint32_t i = 0; i < n && st == MP_OK; i++) {
    const mp_model_entry *me = &cfg->models[i];
    mp_config *ci = &each[i];
    *ci = *cfg;
    ci->n_models = 0;
    ci->models = NULL;
    ci->model_path = me->path;
    ci->subgraph = me->subgraph;
    ci->model_name = me->name;
    ci->prefix = me->prefix;
    ci->module_name = me->prefix;
    size_t dl = strlen(cfg->module_path) + strlen(me->prefix) + 2;
    dirs[i] = malloc(dl);
    if (!dirs[i]) {
      st = MP_ERR_NOMEM;
      break;
    }
    snprintf(dirs[i], dl, "%s/%s", cfg->module_path, me->prefix);
    ci->module_path = dirs[i];
    ci->report_path = NULL;
    if (cfg->report_path) { /* report.html -> report_<prefix>.html */
      const char *dot = strrchr(cfg->report_path, '.');
      size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - cfg->report_path)
                                             : strlen(cfg->report_path);
      size_t rl = strlen(cfg->report_path) + strlen(me->prefix) + 2;
      reports[i] = malloc(rl);
      if (!reports[i]) {
        st = MP_ERR_NOMEM;
        break;
      }
      snprintf(reports[i], rl, "%.*s_%s%s", (int)stem, cfg->report_path, me->prefix,
               cfg->report_path + stem);
      ci->report_path = reports[i];
    }
    prefixes[i] = me->prefix;
    st = load_model(c, ci, &m[i], &g[i], &plain[i]);
    if (st == MP_OK) st = plan_model(c, ci, g[i], plain[i], &plan[i]);
  }
  if (st == MP_OK) st = plan_together(c, each, g, plain, plan, prefixes, n, cfg->prefix);
  if (st == MP_OK)
    st = mp_shared_scratch_build((const mp_plan *const *)plan, prefixes, n, cfg->prefix,
                                 &c->sink, &shared);
  for (uint32_t i = 0; i < n && st == MP_OK; i++) {
    each[i].shared = &shared;
    shared.self = i;
    if (cfg->verbose >= 1) printf("%s", i ? "\n" : "");
    print_summary(&each[i], plan[i], quiet);
  }
  if (st == MP_OK && cfg->verbose >= 1) {
    char *ss = mp_shared_scratch_summary(&shared, &plan[0]->platform);
    if (ss) printf("\n%s", ss);
    free(ss);
  }
  /* all the module folders change together, or none does */
  if (st == MP_OK) st = mp_emit_modules((const mp_plan *const *)plan, each, n, &shared, &c->sink);
  for (uint32_t i = 0; i < n && st == MP_OK; i++) {
    print_written(&each[i]);
    if (each[i].report_path && cfg->verbose >= 1) print_report(each[i].report_path);
  }
  for (uint32_t i = 0; i < n; i++) {
    if (plan) mp_plan_free(&plan[i]);
    if (g) mp_graph_free(&g[i]);
    if (plain) mp_graph_free(&plain[i]);
    if (m) mp_model_free(&m[i]);
    if (dirs) free(dirs[i]);
    if (reports) free(reports[i]);
  }
  mp_shared_scratch_free(&shared);
  free(each);
  free(m);
  free(g);
  free(plain);
  free(plan);
  free(dirs);
  free(reports);
  free(prefixes);
  return cli_exit_code(st);
}

int cmd_convert(cli *c, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      char *help = mp_config_help_text();
      if (!help) return CLI_EXIT_BUG;
      fputs(help, stdout);
      free(help);
      return CLI_EXIT_OK;
    }
  }
  /* --quiet is the CLI's own: drop it before the config sees the rest */
  bool quiet = false;
  int kept = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = true;
    else argv[kept++] = argv[i];
  }
  argc = kept;
  if (argc < 2) return cli_usage_error("convert", "no config given (--path CONFIG.yaml)");
  mp_config *cfg = NULL;
  mp_status st = mp_config_from_args(argc, argv, &c->sink, &cfg);
  if (st != MP_OK) return cli_exit_code(st);
  c->verbose = cfg->verbose;
  int rc;
  if (cfg->n_models > 0) {
    rc = convert_many(c, cfg, quiet);
  } else {
    mp_model *m = NULL;
    mp_graph *g = NULL, *plain = NULL;
    st = load_model(c, cfg, &m, &g, &plain);
    rc = st == MP_OK ? convert_after_rules(c, cfg, g, plain, quiet) : cli_exit_code(st);
    mp_graph_free(&plain);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
  mp_config_free(&cfg);
  return rc;
}
