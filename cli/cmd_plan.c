/*
 * cmd_plan.c — `memplan plan MODEL [--planner P] [--planner-options JSON]
 * [--platform NAME] [--json] [--report PATH]`, or `memplan plan CONFIG.yaml`:
 * the fast path for numbers.
 *
 * Plans a model with a built-in platform and no config file, or with a
 * config file exactly as `memplan convert` would, verifies the plan and
 * prints the summary (or the residency JSON) without writing a module.  The
 * options are turned into `memplan convert` overrides so that validation,
 * messages and defaults are exactly those of the config.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: memplan plan MODEL.tflite [options]\n"
    "       memplan plan CONFIG.yaml [MODEL.tflite] [options]\n"
    "\n"
    "Plan a model on a built-in platform, or as a convert config describes it,\n"
    "and print the arena summary; nothing is written but --report.  When the\n"
    "planner ends above the lower bound, a hint line names the best other\n"
    "planner and the bytes it would save.\n"
    "\n"
    "  --path CONFIG.yaml     plan with this config (as a first argument ending\n"
    "                         in .yaml or .yml); a MODEL given too replaces its\n"
    "                         model.path\n"
    "  --planner P            greedy (the default), or the experimental\n"
    "                         greedy_by_size, hill_climb and exact\n"
    "  --planner-options JSON planner tunables, e.g. '{\"iterations\": 2000}'\n"
    "  --platform NAME        built-in platform (default " MP_DEFAULT_PLATFORM ")\n"
    "  --subgraph N           subgraph to plan (default 0)\n"
    "  --prefix NAME          symbol prefix shown in the summary (default: model name)\n"
    "  --json                 print the residency JSON instead of the summary\n"
    "  --report PATH.html     also write the HTML plan report\n"
    "  --verbose N            0 prints nothing but errors and warnings (the\n"
    "                         exit status says whether it fits); 2 adds every\n"
    "                         tensor's placement and why it is there; 3 also\n"
    "                         each memory's fill over time\n"
    "  --quiet                no hint line\n"
    "  --<config key> VALUE   any `memplan convert` key, e.g. --memory.constraints JSON\n";

int cmd_report_write(const mp_plan *plan, const mp_config *cfg, const char *path, cli *c);

/* Forwards errors to the CLI's printer and only counts warnings: `plan` is
 * for numbers, so operators without a kernel get one line, not a list. */
typedef struct quiet {
  cli *c;
  unsigned warnings;
} quiet;

static void quiet_diag(void *user, const mp_diag *d) {
  quiet *q = user;
  if (d->severity == MP_SEV_WARNING) {
    q->warnings++;
    return;
  }
  q->c->sink.fn(q->c->sink.user, d);
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && !strcmp(s + n - k, suffix);
}

static bool is_config_name(const char *s) {
  return has_suffix(s, ".yaml") || has_suffix(s, ".yml");
}

int cmd_plan(cli *c, int argc, char **argv) {
  char *model = NULL;
  char *config = NULL;
  const char *report = NULL;
  bool json = false, quiet_hint = false;
  /* config arguments: "plan" + translated options */
  char **cargs = calloc((size_t)argc * 2 + 6, sizeof(char *));
  if (!cargs) return CLI_EXIT_BUG;
  int nc = 0;
  cargs[nc++] = (char *)"plan";
  int rc = CLI_EXIT_OK;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(USAGE, stdout);
      free(cargs);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet_hint = true;
    } else if (!strcmp(a, "--report")) {
      if (i + 1 >= argc) {
        free(cargs);
        return cli_usage_error("plan", "--report needs a path");
      }
      report = argv[++i];
    } else if (!strcmp(a, "--path") || !strcmp(a, "--config") || !strncmp(a, "--path=", 7) ||
               !strncmp(a, "--config=", 9) || (is_config_name(a) && a[0] != '-')) {
      char *val = a[0] != '-' ? argv[i] : strchr(argv[i], '=') ? strchr(argv[i], '=') + 1 : NULL;
      if (!val && i + 1 >= argc) {
        free(cargs);
        return cli_usage_error("plan", "%s needs a config file", a);
      }
      if (!val) val = argv[++i];
      if (config) {
        free(cargs);
        return cli_usage_error("plan", "more than one config given ('%s' and '%s')", config, val);
      }
      config = val;
    } else if (!strcmp(a, "--planner") || !strcmp(a, "--planner-options") ||
               !strcmp(a, "--platform") || !strcmp(a, "--subgraph") || !strcmp(a, "--prefix")) {
      if (i + 1 >= argc) {
        free(cargs);
        return cli_usage_error("plan", "%s needs a value", a);
      }
      cargs[nc++] = (char *)(!strcmp(a, "--planner")           ? "--memory.planner"
                             : !strcmp(a, "--planner-options") ? "--memory.planner-options"
                             : !strcmp(a, "--platform")        ? "--platform.name"
                             : !strcmp(a, "--subgraph")        ? "--model.subgraph"
                                                               : "--module.prefix");
      cargs[nc++] = argv[++i];
    } else if (a[0] == '-' && a[1] == '-') {
      /* any convert key passes through (with its value if it has one: the
       * next argument unless it is an option or the model; "-1" is a value) */
      cargs[nc++] = argv[i];
      const char *next = i + 1 < argc ? argv[i + 1] : NULL;
      if (next && !(next[0] == '-' && next[1] == '-') && !has_suffix(next, ".tflite") &&
          !is_config_name(next))
        cargs[nc++] = argv[++i];
    } else if (!model) {
      model = argv[i];
    } else {
      free(cargs);
      return cli_usage_error("plan", "more than one model given ('%s' and '%s')", model, a);
    }
  }
  if (!model && !config) {
    free(cargs);
    return cli_usage_error("plan", "no model given (MODEL.tflite, or a config: CONFIG.yaml)");
  }
  if (config) {
    /* the config file comes first, so the options override it */
    memmove(cargs + 3, cargs + 1, (size_t)(nc - 1) * sizeof *cargs);
    cargs[1] = (char *)"--path";
    cargs[2] = config;
    nc += 2;
  }
  if (model) {
    cargs[nc++] = (char *)"--model.path";
    cargs[nc++] = model;
  }
  mp_config *cfg = NULL;
  mp_model *m = NULL;
  mp_graph *g = NULL;
  mp_plan *plan = NULL;
  mp_status st = mp_config_from_args(nc, cargs, &c->sink, &cfg);
  if (st == MP_OK && cfg->n_models > 0) {
    uint32_t n = cfg->n_models;
    mp_config_free(&cfg);
    free(cargs);
    return cli_usage_error("plan", "the config lists %u models (models: [...]); plan takes one: "
                                   "`memplan plan MODEL.tflite` for each, or `memplan convert` "
                                   "for them together", n);
  }
  if (st == MP_OK) st = mp_model_load(cfg->model_path, &c->sink, &m);
  if (st == MP_OK) {
    /* memory.in_place also folds PADs into their convolutions and makes
     * copies views */
    mp_graph_options go = {.alias_views = true, .fold_pads = cfg->memory.in_place,
                           .sub_views = cfg->memory.in_place,
                           .serial_depthwise = cfg->memory.in_place_mode == MP_IN_PLACE_SIZE,
                           .fast_kernels = cfg->memory.in_place_mode == MP_IN_PLACE_SPEED &&
                                           cfg->target != MP_TARGET_GENERIC,
                           .caller_io = cfg->memory.io_caller};
    st = mp_graph_build(m, cfg->subgraph, &go, &c->sink, &g);
  }
  /* the same graph convert plans: kernels' op-local scratch included; an
   * operator without a kernel is only a warning here */
  if (st == MP_OK) {
    quiet q = {c, 0};
    mp_diag_sink qs = {quiet_diag, &q};
    g->target = cfg->target;
    st = mp_kernels_prepare(g, true, &qs);
    if (st == MP_OK && q.warnings && cfg->verbose >= 1)
      fprintf(stderr, "memplan plan: note: some operators have no kernel in memplan; "
                      "`memplan convert` lists them\n");
  }
  /* memory.op_order min_peak: the graph in the best order found */
  if (st == MP_OK) st = cli_order_graph(cfg, cfg->memory.in_place, true, &g);
  if (st == MP_OK) st = cli_patch_graph(cfg, true, &c->sink, &g);
  /* folded PADs: the unfolded graph too, to keep whichever plans smaller */
  mp_graph *plain = NULL;
  if (st == MP_OK) st = cli_plain_graph(cfg, m, g, true, &plain);
  if (st == MP_OK) {
    cfg->memory.progress = c->progress;
    st = mp_plan_build_rewritten(g, plain, &cfg->platform, &cfg->memory, &c->sink, &plan);
  }
  if (st == MP_OK) st = mp_plan_verify(plan, &c->sink);
  /* memory.in_place size: what speed would need, for the summary */
  if (st == MP_OK) st = cli_speed_scratch(cfg, m, true, plan);
  rc = cli_exit_code(st);
  if (st == MP_OK) {
    if (json) {
      char *s = NULL;
      st = mp_residency_json(plan, cfg->prefix, &s);
      if (s) fputs(s, stdout);
      free(s);
      rc = cli_exit_code(st);
    } else if (cfg->verbose >= 1) { /* --verbose 0: the exit status and errors alone */
      char *s = mp_plan_summary(plan, cfg->prefix, cfg->verbose);
      if (s) fputs(s, stdout);
      free(s);
      cli_print_fold_note(plan, cfg);
      if (!quiet_hint) cli_print_hint(plan, &cfg->memory, "--planner");
    }
    if (rc == CLI_EXIT_OK && report) rc = cmd_report_write(plan, cfg, report, c);
  }
  mp_plan_free(&plan);
  mp_graph_free(&plain);
  mp_graph_free(&g);
  mp_model_free(&m);
  mp_config_free(&cfg);
  free(cargs);
  return rc;
}
