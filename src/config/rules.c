/*
 * rules.c — tensor attribute rulesets (memory.tensors) resolved per tensor.
 *
 * Every ruleset has a specificity level (README, "Rulesets"),
 *     0 (type "*", no id) < 1 (type, no id) < 2 (type "*", id) < 3 (type, id),
 * and the attributes of a tensor are merged field by field from the matching
 * rulesets in order of level, then of position (a later ruleset wins a tie).
 * A ruleset that names a memory pins the tensor there.
 *
 * The one idea: apply the rulesets in (level, position) order and let each
 * set only the fields it names; whatever is applied last wins.
 *
 * Also checked here, because it needs the model: every id must match a
 * tensor of the subgraph (with a did-you-mean over the tensor names), and a
 * ruleset that names ids and a type must match tensors of that type.  The
 * platform checks (memory present, destination writable, no activations in
 * read-only memory) are repeated for rules built in code.  Not done here:
 * whether the tensors fit; that is the planner's job.
 */
#include "config/config.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Where a diagnostic about rule `r` (or its id `k`, when k < n_ids) points. */
static mp_loc rule_loc(const mp_rule *r, uint32_t k) {
  mp_loc loc = MP_LOC_NONE;
  loc.file = r->file;
  loc.key_path = r->key_path;
  if (k < r->n_ids && r->id_line && r->id_line[k]) {
    loc.line = r->id_line[k];
    loc.column = r->id_column[k];
    loc.source_line = r->id_source_line ? r->id_source_line[k] : NULL;
  } else {
    loc.line = r->line;
    loc.column = r->column;
    loc.source_line = r->source_line;
  }
  return loc;
}

/* "ruleset memory.tensors[1]" for messages without a file position. */
static const char *rule_name(const mp_rule *r, char *buf, size_t n) {
  if (r->file && r->line) {
    snprintf(buf, n, "%s", r->key_path ? r->key_path : "ruleset");
  } else if (r->where) {
    snprintf(buf, n, "%s", r->where);
  } else if (r->key_path) {
    snprintf(buf, n, "%s", r->key_path);
  } else {
    snprintf(buf, n, "ruleset");
  }
  return buf;
}

static int level(const mp_rule *r) {
  return (r->type != MP_RULE_ANY_TYPE) + 2 * (r->ids != NULL && r->n_ids > 0);
}

/* True when id text `id` names tensor t: its index as text, or its name. */
static bool id_matches(const char *id, const mp_tensor *t) {
  if (id[0] >= '0' && id[0] <= '9') {
    char *end;
    unsigned long long v = strtoull(id, &end, 10);
    if (*end == '\0' && v == t->id) return true;
  }
  return t->name && !strcmp(id, t->name);
}

static bool type_matches(const mp_rule *r, const mp_tensor *t) {
  return r->type == MP_RULE_ANY_TYPE || r->type == (int32_t)t->role;
}

static bool rule_matches(const mp_rule *r, const mp_tensor *t) {
  if (!type_matches(r, t)) return false;
  if (!r->ids || r->n_ids == 0) return true;
  for (uint32_t k = 0; k < r->n_ids; k++)
    if (r->ids[k] && id_matches(r->ids[k], t)) return true;
  return false;
}

/* The tensor name closest to `id`: a small edit distance, else the first
 * name that contains it.  NULL when nothing is close. */
static const char *closest_tensor(const mp_graph *g, const char *id) {
  size_t il = strlen(id), best_d = SIZE_MAX;
  const char *best = NULL;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const char *name = g->tensors[t].name;
    if (!name || !*name) continue;
    size_t d = mp_edit_distance(id, name, 256);
    if (d < best_d) {
      best_d = d;
      best = name;
    }
  }
  size_t limit = il / 4 > 2 ? il / 4 : 2;
  if (best && best_d <= limit && best_d < il) return best;
  if (il >= 3)
    for (uint32_t t = 0; t < g->n_tensors; t++)
      if (g->tensors[t].name && strstr(g->tensors[t].name, id)) return g->tensors[t].name;
  return NULL;
}

/* The first tensor id text `id` names, or -1. */
static int64_t first_match(const mp_graph *g, const char *id) {
  for (uint32_t t = 0; t < g->n_tensors; t++)
    if (id_matches(id, &g->tensors[t])) return t;
  return -1;
}

/* Every id of r must name a tensor, and (with a type) one of that type. */
static bool check_ids(const mp_graph *g, const mp_rule *r, const mp_diag_sink *dx) {
  bool ok = true;
  char nb[160];
  for (uint32_t k = 0; k < r->n_ids; k++) {
    const char *id = r->ids[k];
    if (!id) continue;
    mp_loc loc = rule_loc(r, k);
    int64_t t = first_match(g, id);
    if (t < 0) {
      ok = false;
      const char *sug = closest_tensor(g, id);
      bool numeric = id[0] >= '0' && id[0] <= '9' && strspn(id, "0123456789") == strlen(id);
      if (numeric)
        mp_error(dx, loc, "%s: id '%s' matches no tensor: subgraph %u has tensors 0 to %u",
                 rule_name(r, nb, sizeof nb), id, g->subgraph,
                 g->n_tensors ? g->n_tensors - 1 : 0);
      else if (sug)
        mp_error(dx, loc, "%s: id '%s' matches no tensor \xe2\x80\x94 did you mean '%s'?",
                 rule_name(r, nb, sizeof nb), id, sug);
      else
        mp_error(dx, loc, "%s: id '%s' matches no tensor of subgraph %u (ids are tensor "
                          "indices or names; 'memplan inspect' lists them)",
                 rule_name(r, nb, sizeof nb), id, g->subgraph);
      continue;
    }
    if (r->type == MP_RULE_ANY_TYPE) continue;
    bool typed = false;
    for (uint32_t u = 0; u < g->n_tensors && !typed; u++)
      typed = id_matches(id, &g->tensors[u]) && type_matches(r, &g->tensors[u]);
    if (!typed) {
      ok = false;
      const mp_tensor *x = &g->tensors[t];
      mp_error(dx, loc, "%s: id '%s' is tensor %u '%s', a %s tensor, but the ruleset's type is "
                        "'%s'",
               rule_name(r, nb, sizeof nb), id, x->id, x->name, mp_role_name(x->role),
               mp_role_name((mp_role)r->type));
    }
  }
  return ok;
}

/* The platform checks, for rules that did not come through the config loader. */
static bool check_platform(const mp_rule *r, const mp_platform *pf, const mp_diag_sink *dx) {
  char nb[160];
  const mp_attributes *a = &r->attributes;
  mp_loc loc = rule_loc(r, UINT32_MAX);
  bool ok = true;
  if (a->has_memory && ((unsigned)a->memory >= MP_MEM_COUNT || !pf->present[a->memory])) {
    mp_error(dx, loc, "%s: memory %s is not a memory of platform '%s'", rule_name(r, nb, sizeof nb),
             mp_platform_memory_name(pf, a->memory), pf->name);
    ok = false;
  }
  if (a->has_constant_destination_memory) {
    mp_memory d = a->constant_destination_memory;
    if ((unsigned)d >= MP_MEM_COUNT || !pf->present[d]) {
      mp_error(dx, loc, "%s: constant_destination_memory %s is not a memory of platform '%s'",
               rule_name(r, nb, sizeof nb), mp_platform_memory_name(pf, d), pf->name);
      ok = false;
    } else if (!mp_platform_writable(pf, d)) {
      mp_error(dx, loc, "%s: constant_destination_memory %s is read-only: constants are "
                        "hydrated into a writable memory",
               rule_name(r, nb, sizeof nb), mp_platform_memory_name(pf, d));
      ok = false;
    }
  }
  if (r->type != MP_RULE_ANY_TYPE && (r->type < 0 || r->type >= MP_ROLE_COUNT)) {
    mp_error(dx, loc, "%s: invalid type %d", rule_name(r, nb, sizeof nb), r->type);
    ok = false;
  }
  return ok;
}

mp_status mp_rules_resolve(const mp_graph *g, const mp_platform *platform,
                           const mp_memory_args *mem, const mp_diag_sink *dx,
                           mp_attributes *out) {
  return mp_rules_resolve_traced(g, platform, mem, dx, out, NULL, NULL);
}

mp_status mp_rules_resolve_traced(const mp_graph *g, const mp_platform *platform,
                                  const mp_memory_args *mem, const mp_diag_sink *dx,
                                  mp_attributes *out, const mp_rule **memory_rule,
                                  const mp_rule **destination_rule) {
  memset(out, 0, g->n_tensors * sizeof *out);
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    if (memory_rule) memory_rule[t] = NULL;
    if (destination_rule) destination_rule[t] = NULL;
  }
  if (!mem || mem->n_rules == 0) return MP_OK;
  bool ok = true;
  for (uint32_t i = 0; i < mem->n_rules; i++) {
    const mp_rule *r = &mem->rules[i];
    ok &= check_platform(r, platform, dx);
    ok &= check_ids(g, r, dx);
  }
  if (!ok) return MP_ERR_CONFIG;
  /* least specific first; a stable pass per level keeps the file order */
  for (int lv = 0; lv < 4; lv++) {
    for (uint32_t i = 0; i < mem->n_rules; i++) {
      const mp_rule *r = &mem->rules[i];
      if (level(r) != lv) continue;
      for (uint32_t t = 0; t < g->n_tensors; t++) {
        if (!rule_matches(r, &g->tensors[t])) continue;
        if (r->attributes.has_memory) {
          out[t].has_memory = true;
          out[t].memory = r->attributes.memory;
          if (memory_rule) memory_rule[t] = r;
        }
        if (r->attributes.has_constant_destination_memory) {
          out[t].has_constant_destination_memory = true;
          out[t].constant_destination_memory = r->attributes.constant_destination_memory;
          if (destination_rule) destination_rule[t] = r;
        }
      }
    }
  }
  /* activations and state cannot live in read-only memory */
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    if (!out[t].has_memory || x->role == MP_ROLE_CONSTANT || mp_platform_writable(platform, out[t].memory))
      continue;
    /* name the ruleset that put it there: the last applied that sets a memory */
    const mp_rule *by = NULL;
    for (int lv = 0; lv < 4; lv++)
      for (uint32_t i = 0; i < mem->n_rules; i++) {
        const mp_rule *r = &mem->rules[i];
        if (level(r) == lv && r->attributes.has_memory && rule_matches(r, x)) by = r;
      }
    char nb[160];
    mp_error(dx, by ? rule_loc(by, UINT32_MAX) : MP_LOC_NONE,
             "%s pins %s tensor %u '%s' to %s, which is read-only; give the ruleset a type "
             "(constant) or an id",
             by ? rule_name(by, nb, sizeof nb) : "a ruleset", mp_role_name(x->role), t, x->name,
             mp_platform_memory_name(platform, out[t].memory));
    return MP_ERR_CONFIG;
  }
  return MP_OK;
}
