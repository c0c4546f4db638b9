/*
 * hint.c — mp_plan_hint: when a plan's scratch arenas end above their lower
 * bounds, would another planner have done better, and by how much?
 *
 * The one idea: planning is cheap, so ask.  The plan is built again with
 * every other planner of the table, on the same graph, platform, budgets
 * and rules, and the one with the fewest scratch bytes (summed over the
 * memories) wins; ties go to the earlier row of the table, the cheaper
 * planner.  The heuristics run with their defaults.  `exact` runs only
 * within a small budget (HINT_EXACT_NODES search nodes, and a time limit
 * as a backstop), so the hint costs milliseconds on typical models and is
 * the same on every machine.
 *
 * It does not change the plan, and it is silent: the alternative plans'
 * diagnostics are dropped (an alternative that does not fit is skipped).
 */
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* exact's budget for a hint: about a millisecond per thousand nodes on the
 * corpus; the node limit, unlike the clock, gives every machine the same
 * answer. */
#define HINT_EXACT_NODES 20000
#define HINT_EXACT_MS 2000

static bool above_bound(const mp_plan *p) {
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->role != MP_ROLE_SCRATCH || a->total_size <= a->lower_bound) continue;
    /* proven optimal above the bound: no planner can do better */
    if (a->proven_lower == a->proven_upper && a->proven_upper == a->total_size) continue;
    return true;
  }
  return false;
}

static bool at_bound(const mp_plan *p) {
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == MP_ROLE_SCRATCH && p->arenas[i].total_size > p->arenas[i].lower_bound)
      return false;
  return true;
}

mp_status mp_plan_hint(const mp_plan *p, const mp_memory_args *mem, mp_plan_hint_result *out) {
  memset(out, 0, sizeof *out);
  out->scratch = mp_plan_scratch_bytes(p);
  if (!above_bound(p)) return MP_OK;
  char k_time[] = "time_limit_ms", k_nodes[] = "node_limit";
  mp_option exact_opts[2] = {{k_time, HINT_EXACT_MS}, {k_nodes, HINT_EXACT_NODES}};
  char name[32];
  uint64_t best = out->scratch;
  for (uint32_t i = 0; i < mp_planner_count(); i++) {
    const mp_planner *pl = mp_planner_at(i);
    if (!strcmp(pl->name, p->planner)) continue;
    mp_memory_args alt = *mem;
    snprintf(name, sizeof name, "%s", pl->name);
    alt.planner = name;
    alt.options = NULL;
    alt.n_options = 0;
    if (!strcmp(pl->name, "exact")) {
      alt.options = exact_opts;
      alt.n_options = 2;
    }
    mp_plan *q = NULL;
    mp_status st = mp_plan_build(p->graph, &p->platform, &alt, NULL, &q);
    if (st == MP_ERR_NOMEM) return st;
    if (st != MP_OK) continue; /* it does not fit: no hint from it */
    uint64_t s = mp_plan_scratch_bytes(q);
    if (s < best) {
      best = s;
      out->found = true;
      snprintf(out->planner, sizeof out->planner, "%s", pl->name);
      out->alt_scratch = s;
      out->saved = out->scratch - s;
      out->reaches_bound = at_bound(q);
    }
    mp_plan_free(&q);
  }
  return MP_OK;
}
