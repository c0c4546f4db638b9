/*
 * planner.c — the planner table and what every planner shares: option
 * lookup and validation, the lower bound of a problem, and mp_solve's
 * bookkeeping.
 *
 * A planner is one file defining one `const mp_planner` (name, help, option
 * schema, solve function) and one row in the table below.  The table order
 * is the order `--help` lists them in.  The heuristic planners share the
 * first-fit engine of firstfit.h.
 */
#include "util/diag.h"
#include "util/util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

extern const mp_planner mp_planner_greedy;
extern const mp_planner mp_planner_greedy_by_size;
extern const mp_planner mp_planner_hill_climb;
extern const mp_planner mp_planner_exact;

static const mp_planner *const planners[] = {
    &mp_planner_greedy,
    &mp_planner_greedy_by_size,
    &mp_planner_hill_climb,
    &mp_planner_exact,
};

uint32_t mp_planner_count(void) { return (uint32_t)(sizeof planners / sizeof planners[0]); }

const mp_planner *mp_planner_at(uint32_t i) { return i < mp_planner_count() ? planners[i] : NULL; }

const mp_planner *mp_planner_find(const char *name) {
  for (uint32_t i = 0; name && i < mp_planner_count(); i++)
    if (!strcmp(planners[i]->name, name)) return planners[i];
  return NULL;
}

const char *mp_planner_suggest(const char *name) {
  const char *names[16];
  uint32_t n = 0;
  for (uint32_t i = 0; i < mp_planner_count() && n < 16; i++) names[n++] = planners[i]->name;
  return mp_suggest(name, names, n);
}

int64_t mp_option_get(const mp_planner *pl, const mp_option *opts, uint32_t n_opts,
                      const char *key, int64_t fallback) {
  for (uint32_t i = 0; i < n_opts; i++)
    if (!strcmp(opts[i].key, key)) return opts[i].value;
  for (uint32_t i = 0; pl && i < pl->n_options; i++)
    if (!strcmp(pl->options[i].key, key) && pl->options[i].has_default) return pl->options[i].def;
  return fallback;
}

typedef struct event {
  int32_t t;
  int64_t delta;
} event;

static int cmp_event(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  /* an item ending at op e is removed at e + 1, where it is no longer
   * live: removals (negative) before additions at the same time */
  return (x->delta > y->delta) - (x->delta < y->delta);
}

uint64_t mp_problem_lower_bound(const mp_problem *p) {
  if (p->n == 0) return 0;
  event *ev = malloc(2 * p->n * sizeof *ev);
  if (!ev) return 0;
  for (size_t i = 0; i < p->n; i++) {
    ev[2 * i] = (event){p->items[i].start, (int64_t)p->items[i].size};
    /* inclusive end: the item stops being live at end + 1 */
    ev[2 * i + 1] = (event){p->items[i].end + 1, -(int64_t)p->items[i].size};
  }
  qsort(ev, 2 * p->n, sizeof *ev, cmp_event);
  int64_t live = 0, best = 0;
  for (size_t i = 0; i < 2 * p->n; i++) {
    live += ev[i].delta;
    if (live > best) best = live;
  }
  free(ev);
  return (uint64_t)best;
}

/* Offsets stay far from overflow when every item could be stacked on all
 * the others, alignment padding included. */
#define MP_SOLVE_MAX_TOTAL (UINT64_C(1) << 62)

mp_status mp_solve(const mp_planner *pl, const mp_problem *p, const mp_option *opts,
                   uint32_t n_opts, mp_solution *sol, const mp_diag_sink *dx) {
  uint64_t *offsets = sol->offsets;
  const mp_progress_sink *progress = sol->progress;
  memset(sol, 0, sizeof *sol);
  sol->offsets = offsets;
  sol->progress = progress;
  uint64_t total = 0;
  for (size_t i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->start > it->end || it->start < 0 || !mp_is_pow2(it->align)) return MP_ERR_INTERNAL;
    if (it->size > MP_SOLVE_MAX_TOTAL || it->align > MP_SOLVE_MAX_TOTAL - it->size ||
        total > MP_SOLVE_MAX_TOTAL - it->size - it->align) {
      mp_error(dx, MP_LOC_NONE, "the buffer sizes are too large in total (more than 2^62 bytes)");
      return MP_ERR_UNSUPPORTED;
    }
    total += it->size + it->align;
  }
  sol->lower_bound = mp_problem_lower_bound(p);
  mp_status st = pl->solve(p, opts, n_opts, sol, dx);
  if (st != MP_OK) return st;
  uint64_t h = 0;
  for (size_t i = 0; i < p->n; i++) h = mp_max_u64(h, sol->offsets[i] + p->items[i].size);
  sol->height = h;
  if (sol->proven_upper == 0 || sol->proven_upper > h) sol->proven_upper = h;
  if (sol->proven_lower < sol->lower_bound) sol->proven_lower = sol->lower_bound;
  return MP_OK;
}

/* ---- options as JSON ------------------------------------------------------ */

mp_status mp_planner_options_from_json(const mp_planner *pl, const char *json, const char *where,
                                       const mp_diag_sink *dx, mp_option **opts,
                                       uint32_t *n_opts) {
  *opts = NULL;
  *n_opts = 0;
  mp_loc loc = MP_LOC_NONE;
  loc.key_path = where;
  json_error_t jerr;
  json_t *root = json_loads(json ? json : "", JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    mp_error(dx, loc, "%s: not valid JSON: %s (column %d)", where, jerr.text, jerr.column);
    return MP_ERR_CONFIG;
  }
  if (!json_is_object(root)) {
    mp_error(dx, loc, "%s must be a JSON object such as '{\"iterations\": 2000}'", where);
    json_decref(root);
    return MP_ERR_CONFIG;
  }
  size_t n = json_object_size(root), bytes = n * sizeof(mp_option);
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) bytes += strlen(key) + 1;
  mp_option *out = n ? malloc(bytes) : NULL;
  if (n && !out) {
    json_decref(root);
    return MP_ERR_NOMEM;
  }
  char *strs = (char *)(out + n);
  const char *keys[64];
  size_t nk = 0;
  for (uint32_t k = 0; k < pl->n_options && nk < 64; k++) keys[nk++] = pl->options[k].key;
  uint32_t k = 0;
  mp_status st = MP_OK;
  /* jansson keeps insertion order, so messages follow the text */
  json_object_foreach(root, key, val) {
    const mp_option_spec *spec = NULL;
    for (uint32_t j = 0; j < pl->n_options && !spec; j++)
      if (!strcmp(pl->options[j].key, key)) spec = &pl->options[j];
    if (!spec) {
      const char *sug = mp_suggest(key, keys, nk);
      if (sug)
        mp_error(dx, loc, "%s: unknown key '%s' \xe2\x80\x94 did you mean '%s'? (planner '%s')", where, key,
                 sug, pl->name);
      else if (nk == 0)
        mp_error(dx, loc, "%s: unknown key '%s': planner '%s' accepts no options", where, key,
                 pl->name);
      else {
        char list[256] = "";
        for (size_t j = 0; j < nk; j++)
          snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", j ? ", " : "",
                   keys[j]);
        mp_error(dx, loc, "%s: unknown key '%s' (planner '%s' accepts %s)", where, key, pl->name,
                 list);
      }
      st = MP_ERR_CONFIG;
      continue;
    }
    if (!json_is_integer(val)) {
      char *shown = json_dumps(val, JSON_ENCODE_ANY);
      mp_error(dx, loc, "%s: '%s' must be an integer from %lld to %lld, not %s", where, key,
               (long long)spec->min, (long long)spec->max, shown ? shown : "that");
      free(shown);
      st = MP_ERR_CONFIG;
      continue;
    }
    json_int_t x = json_integer_value(val);
    if (x < spec->min || x > spec->max) {
      if (x < 0 && spec->min >= 0)
        mp_error(dx, loc, "%s: '%s' must be a non-negative integer, not %lld", where, key,
                 (long long)x);
      else
        mp_error(dx, loc, "%s: '%s' must be an integer from %lld to %lld, not %lld", where, key,
                 (long long)spec->min, (long long)spec->max, (long long)x);
      st = MP_ERR_CONFIG;
      continue;
    }
    size_t len = strlen(key) + 1;
    memcpy(strs, key, len);
    out[k].key = strs;
    out[k].value = (int64_t)x;
    strs += len;
    k++;
  }
  json_decref(root);
  if (st != MP_OK) {
    free(out);
    return st;
  }
  *opts = out;
  *n_opts = k;
  return MP_OK;
}

void mp_options_free(mp_option **opts) {
  if (!opts) return;
  free(*opts);
  *opts = NULL;
}
