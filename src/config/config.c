/*
 * config.c — `memplan convert` arguments and the YAML config into one
 * validated mp_config.
 *
 * Three steps:
 *   1. argv: every `--dotted.key VALUE` is checked against the key table
 *      (schema.c) and turned into an override: a path plus a value node
 *      (args.c).
 *   2. The file (when --path is given) is loaded into a tree (tree.c) and
 *      the overrides are written into it, so the command line wins and a
 *      config given wholly on the command line is just an empty tree plus
 *      overrides.
 *   3. One validation pass reads the tree into the mp_config, reporting every
 *      problem (not only the first) with its key path and its place: the
 *      file's line and column, or the argument.  This file knows the
 *      sections and their keys (the platform's in platform_section.c); the
 *      typed readers, unknown keys' did-you-mean and the errors are
 *      values.c's.  planner_options are checked against the selected
 *      planner's own schema from the planner table.
 * The diagnostics are handed on in source order at the end.
 *
 * Not done here: checks that need the model (rule ids, the subgraph index)
 * happen in mp_rules_resolve and mp_graph_build.  Nothing is written to disk.
 */
#include "config/config.h"
#include "util/file.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- planner and its options ----------------------------------------------------- */

static const mp_planner *read_planner(cfg_vctx *v, const cfg_node *mem, mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "planner");
  const char *name = "greedy";
  if (e && !cfg_read_string(v, e->value, "memory.planner", &name)) return NULL;
  const mp_planner *pl = mp_planner_find(name);
  if (!pl) {
    const char *names[64];
    uint32_t n = 0;
    for (uint32_t i = 0; i < mp_planner_count() && n < 64; i++) names[n++] = mp_planner_at(i)->name;
    const char *sug = mp_suggest(name, names, n);
    if (sug)
      cfg_err(v, e ? e->value : NULL, "memory.planner",
              "unknown planner '%s' " DASH " did you mean '%s'?", name, sug);
    else
      cfg_err(v, e ? e->value : NULL, "memory.planner", "unknown planner '%s' (planners: %s)", name,
              cfg_name_list(v, names, n));
    return NULL;
  }
  ma->planner = mp_pool_strdup(v->pool, pl->name);
  if (!ma->planner) v->nomem = true;
  return pl;
}

static void read_options(cfg_vctx *v, const cfg_node *mem, const mp_planner *pl,
                         mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "planner_options");
  if (!e || e->value->kind == CFG_NULL) return;
  const char *base = "memory.planner_options";
  if (!cfg_want_map(v, e->value, base) || !pl) return;
  const cfg_node *o = e->value;
  ma->options = mp_pool_alloc(v->pool, o->n, sizeof(mp_option));
  if (!ma->options) {
    v->nomem = true;
    return;
  }
  const char *keys[64];
  uint32_t nk = 0;
  for (uint32_t k = 0; k < pl->n_options && nk < 64; k++) keys[nk++] = pl->options[k].key;
  for (uint32_t i = 0; i < o->n; i++) {
    const cfg_entry *oe = &o->entries[i];
    const char *path = cfg_join(v, base, oe->key);
    const mp_option_spec *spec = NULL;
    for (uint32_t k = 0; k < pl->n_options && !spec; k++)
      if (!strcmp(pl->options[k].key, oe->canon)) spec = &pl->options[k];
    if (!spec) {
      const char *sug = mp_suggest(oe->key, keys, nk);
      if (sug) {
        cfg_err_at(v, oe->src, oe->line, oe->column, path,
                   "unknown key '%s' " DASH " did you mean '%s'? (planner '%s')", path,
                   cfg_join(v, base, sug), pl->name);
      } else if (nk == 0) {
        /* name the planners that do take it */
        const char *takers[64];
        size_t nt = 0;
        for (uint32_t p = 0; p < mp_planner_count() && nt < 64; p++) {
          const mp_planner *q = mp_planner_at(p);
          for (uint32_t k = 0; k < q->n_options; k++)
            if (!strcmp(q->options[k].key, oe->canon)) takers[nt++] = q->name;
        }
        if (nt)
          cfg_err_at(v, oe->src, oe->line, oe->column, path,
                     "unknown key '%s': planner '%s' accepts no options ('%s' is an option of %s)",
                     path, pl->name, oe->canon, cfg_name_list(v, takers, nt));
        else
          cfg_err_at(v, oe->src, oe->line, oe->column, path,
                     "unknown key '%s': planner '%s' accepts no options", path, pl->name);
      } else {
        cfg_err_at(v, oe->src, oe->line, oe->column, path,
                   "unknown key '%s' (planner '%s' accepts %s)", path, pl->name,
                   cfg_name_list(v, keys, nk));
      }
      continue;
    }
    const cfg_node *val = oe->value;
    if (val->kind != CFG_INT) {
      cfg_err(v, val, path, "'%s' must be an integer from %lld to %lld, not %s", path,
              (long long)spec->min, (long long)spec->max, cfg_shown(v, val));
      continue;
    }
    bool in_range;
    int64_t x = 0;
    if (val->overflow || (val->negative ? val->mag > (uint64_t)INT64_MAX + 1 : val->mag > INT64_MAX)) {
      in_range = false;
    } else {
      x = val->negative ? (int64_t)(0 - val->mag) : (int64_t)val->mag;
      in_range = x >= spec->min && x <= spec->max;
    }
    if (!in_range) {
      if (val->negative && spec->min >= 0)
        cfg_err(v, val, path, "'%s' must be a non-negative integer, not %s", path, val->text);
      else
        cfg_err(v, val, path, "'%s' must be an integer from %lld to %lld, not %s", path,
                (long long)spec->min, (long long)spec->max, val->text);
      continue;
    }
    mp_option *opt = &ma->options[ma->n_options++];
    opt->key = mp_pool_strdup(v->pool, spec->key);
    opt->value = x;
    if (!opt->key) v->nomem = true;
  }
}

/* ---- constraints --------------------------------------------------------------- */

static void read_constraints(cfg_vctx *v, const cfg_node *mem, const mp_platform *pf,
                             mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "constraints");
  if (!e || e->value->kind == CFG_NULL) return;
  const char *base = "memory.constraints";
  const cfg_node *l = e->value;
  if (l->kind != CFG_SEQ) {
    cfg_err(v, l, base, "'%s' must be a list of {name, max_size, arena_alignment}, not %s", base,
            cfg_shown(v, l));
    return;
  }
  ma->constraints = mp_pool_alloc(v->pool, l->n, sizeof(mp_constraint));
  if (!ma->constraints) {
    v->nomem = true;
    return;
  }
  const cfg_node *first[MP_MEM_COUNT] = {NULL};
  uint32_t first_i[MP_MEM_COUNT] = {0};
  for (uint32_t i = 0; i < l->n; i++) {
    const cfg_node *c = l->items[i];
    const char *cp = cfg_index_path(v, base, i);
    if (!cfg_want_map(v, c, cp)) continue;
    cfg_check_keys(v, c, "memory.constraints[]", cp);
    cfg_entry *ne = cfg_map_find(c, "name"), *se = cfg_map_find(c, "max_size"),
              *ae = cfg_map_find(c, "arena_alignment");
    if (!ne || ne->value->kind == CFG_NULL) {
      cfg_err(v, c, cp, "'%s' needs a 'name': the memory it constrains", cp);
      continue;
    }
    mp_constraint k = {0};
    const char *np = cfg_join(v, cp, "name");
    if (!cfg_read_memory(v, ne->value, np, pf, &k.name)) continue;
    bool ok = cfg_memory_on_platform(v, ne->value, np, k.name, pf);
    if (ok && first[k.name]) {
      if (first[k.name]->src && first[k.name]->src->file && first[k.name]->line)
        cfg_err(v, ne->value, np, "a second constraint for %s (the first is %s[%u], line %u)",
                mp_platform_memory_name(pf, k.name), base, first_i[k.name], first[k.name]->line);
      else
        cfg_err(v, ne->value, np, "a second constraint for %s (the first is %s[%u])",
                mp_platform_memory_name(pf, k.name), base, first_i[k.name]);
      ok = false;
    }
    if (ok) {
      first[k.name] = ne->value;
      first_i[k.name] = i;
    }
    k.max_size = pf->size[k.name];
    if (se && se->value->kind != CFG_NULL) {
      const char *sp = cfg_join(v, cp, "max_size");
      uint64_t sz;
      if (!cfg_read_size(v, se->value, sp, &sz)) {
        ok = false;
      } else if (pf->present[k.name] && sz > pf->size[k.name]) {
        cfg_err(v, se->value, sp, "'%s' is %llu bytes, more than the %llu bytes of %s on '%s'", sp,
                (unsigned long long)sz, (unsigned long long)pf->size[k.name],
                mp_platform_memory_name(pf, k.name), pf->name);
        ok = false;
      } else {
        k.has_max_size = true;
        k.max_size = sz;
      }
    }
    if (ae && ae->value->kind != CFG_NULL &&
        !cfg_read_align(v, ae->value, cfg_join(v, cp, "arena_alignment"), &k.arena_alignment))
      ok = false;
    if (ok) ma->constraints[ma->n_constraints++] = k;
  }
}

/* ---- attribute rulesets ----------------------------------------------------------- */

static const char *const rule_types[] = {"*", "scratch", "persistent", "constant"};

static bool read_rule_type(cfg_vctx *v, const cfg_node *n, const char *path, int32_t *out) {
  if (n->kind == CFG_NULL) {
    *out = MP_RULE_ANY_TYPE;
    return true;
  }
  if (n->kind == CFG_STR && n->text) {
    if (!strcmp(n->text, "*")) {
      *out = MP_RULE_ANY_TYPE;
      return true;
    }
    for (int r = 0; r < MP_ROLE_COUNT; r++)
      if (!strcasecmp(n->text, mp_role_name((mp_role)r))) {
        *out = r;
        return true;
      }
    const char *sug = mp_suggest(n->text, rule_types, 4);
    if (sug) {
      cfg_err(v, n, path, "'%s': unknown tensor type %s " DASH " did you mean '%s'?", path,
              cfg_shown(v, n), sug);
      return false;
    }
  }
  cfg_err(v, n, path, "'%s' must be one of \"*\", scratch, persistent, constant, not %s", path,
          cfg_shown(v, n));
  return false;
}

static bool read_ids(cfg_vctx *v, const cfg_node *n, const char *path, mp_rule *r) {
  if (n->kind == CFG_NULL) return true;
  const cfg_node *one[1] = {n};
  const cfg_node *const *items = one;
  uint32_t count = 1;
  if (n->kind == CFG_SEQ) {
    items = (const cfg_node *const *)n->items;
    count = n->n;
    if (count == 0) {
      cfg_err(v, n, path,
              "'%s' is an empty list, which matches no tensor; use null (or leave it "
              "out) for every tensor",
              path);
      return false;
    }
  }
  r->ids = mp_pool_alloc(v->pool, count, sizeof(char *));
  r->id_line = mp_pool_alloc(v->pool, count, sizeof(uint32_t));
  r->id_column = mp_pool_alloc(v->pool, count, sizeof(uint32_t));
  r->id_source_line = mp_pool_alloc(v->pool, count, sizeof(char *));
  if (!r->ids || !r->id_line || !r->id_column || !r->id_source_line) {
    v->nomem = true;
    return false;
  }
  bool ok = true;
  for (uint32_t i = 0; i < count; i++) {
    const cfg_node *it = items[i];
    const char *ip = n->kind == CFG_SEQ ? cfg_index_path(v, path, i) : path;
    if (it->kind == CFG_INT && it->negative) {
      cfg_err(v, it, ip, "'%s': a tensor index cannot be negative (%s)", ip, it->text);
      ok = false;
      continue;
    }
    if ((it->kind != CFG_INT && it->kind != CFG_STR) || !it->text || !*it->text) {
      cfg_err(v, it, ip, "'%s' must be a tensor index or name, not %s", ip,
              it->text && !*it->text ? "an empty string" : cfg_shown(v, it));
      ok = false;
      continue;
    }
    r->ids[r->n_ids] = mp_pool_strdup(v->pool, it->text);
    r->id_line[r->n_ids] = it->src && it->src->file ? it->line : 0;
    r->id_column[r->n_ids] = it->src && it->src->file ? it->column : 0;
    r->id_source_line[r->n_ids] = cfg_source_line(v->pool, it->src, it->line);
    r->n_ids++;
  }
  return ok;
}

static void read_rules(cfg_vctx *v, const cfg_node *mem, const mp_platform *pf,
                       mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "tensors");
  if (!e || e->value->kind == CFG_NULL) return;
  const char *base = "memory.tensors";
  const cfg_node *l = e->value;
  if (l->kind != CFG_SEQ) {
    cfg_err(v, l, base, "'%s' must be a list of {type, id, attributes}, not %s", base,
            cfg_shown(v, l));
    return;
  }
  ma->rules = mp_pool_alloc(v->pool, l->n, sizeof(mp_rule));
  if (!ma->rules) {
    v->nomem = true;
    return;
  }
  for (uint32_t i = 0; i < l->n; i++) {
    const cfg_node *rn = l->items[i];
    const char *rp = cfg_index_path(v, base, i);
    if (!cfg_want_map(v, rn, rp)) continue;
    cfg_check_keys(v, rn, "memory.tensors[]", rp);
    mp_rule r = {.type = MP_RULE_ANY_TYPE};
    bool ok = true;
    cfg_entry *te = cfg_map_find(rn, "type"), *ie = cfg_map_find(rn, "id"),
              *ae = cfg_map_find(rn, "attributes");
    if (te && !read_rule_type(v, te->value, cfg_join(v, rp, "type"), &r.type)) ok = false;
    if (ie && !read_ids(v, ie->value, cfg_join(v, rp, "id"), &r)) ok = false;
    if (ae && ae->value->kind != CFG_NULL) {
      const char *ap = cfg_join(v, rp, "attributes");
      const cfg_node *an = ae->value;
      if (!cfg_want_map(v, an, ap)) {
        ok = false;
      } else {
        cfg_check_keys(v, an, "memory.tensors[].attributes", ap);
        cfg_entry *me = cfg_map_find(an, "memory"),
                  *de = cfg_map_find(an, "constant_destination_memory");
        mp_attributes *at = &r.attributes;
        if (me && me->value->kind != CFG_NULL) {
          const char *mp = cfg_join(v, ap, "memory");
          if (cfg_read_memory(v, me->value, mp, pf, &at->memory) &&
              cfg_memory_on_platform(v, me->value, mp, at->memory, pf)) {
            at->has_memory = true;
            if ((r.type == MP_ROLE_SCRATCH || r.type == MP_ROLE_PERSISTENT) &&
                !mp_platform_writable(pf, at->memory)) {
              cfg_err(v, me->value, mp,
                      "'%s' is %s, which is read-only: %s tensors need writable "
                      "memory",
                      mp, mp_platform_memory_name(pf, at->memory), mp_role_name((mp_role)r.type));
              ok = false;
            }
          } else {
            ok = false;
          }
        }
        if (de && de->value->kind != CFG_NULL) {
          const char *dp = cfg_join(v, ap, "constant_destination_memory");
          if (cfg_read_memory(v, de->value, dp, pf, &at->constant_destination_memory) &&
              cfg_memory_on_platform(v, de->value, dp, at->constant_destination_memory, pf)) {
            if (!mp_platform_writable(pf, at->constant_destination_memory)) {
              cfg_err(v, de->value, dp,
                      "'%s' is %s, which is read-only: constants are hydrated into a writable "
                      "memory",
                      dp, mp_platform_memory_name(pf, at->constant_destination_memory));
              ok = false;
            } else {
              at->has_constant_destination_memory = true;
              if (r.type == MP_ROLE_SCRATCH || r.type == MP_ROLE_PERSISTENT)
                cfg_warn(v, de->value->src, de->value->line, de->value->column, dp,
                         "'%s' has no effect on %s tensors (only constants are hydrated)", dp,
                         mp_role_name((mp_role)r.type));
            }
          } else {
            ok = false;
          }
        }
      }
    }
    if (!ok) continue;
    r.key_path = rp;
    r.file = rn->src ? rn->src->file : NULL;
    r.line = r.file ? rn->line : 0;
    r.column = r.file ? rn->column : 0;
    r.source_line = cfg_source_line(v->pool, rn->src, rn->line);
    if (r.file)
      r.where = mp_pool_printf(v->pool, "%s:%u:%u", r.file, rn->line, rn->column);
    else
      r.where = mp_pool_printf(v->pool, "%s[%u]", rn->src && rn->src->arg ? rn->src->arg : "--memory.tensors", i);
    if (!r.where) v->nomem = true;
    ma->rules[ma->n_rules++] = r;
  }
}

/* ---- model, module, verbose ---------------------------------------------------------- */

static bool is_c_keyword(const char *s) {
  static const char *const kw[] = {
      "auto",     "break",    "case",     "char",       "const",     "continue",  "default",
      "do",       "double",   "else",     "enum",       "extern",    "float",     "for",
      "goto",     "if",       "inline",   "int",        "long",      "register",  "restrict",
      "return",   "short",    "signed",   "sizeof",     "static",    "struct",    "switch",
      "typedef",  "union",    "unsigned", "void",       "volatile",  "while",     "_Bool",
      "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic",   "_Generic",  "_Noreturn",
      "_Static_assert", "_Thread_local", "bool", "true", "false"};
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
    if (!strcmp(s, kw[i])) return true;
  return false;
}

static bool is_c_identifier(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}

/* A C identifier made from `s`: lower-case, other characters as '_', a
 * leading digit prefixed with "m_", cut to MP_PREFIX_MAX characters. */
static char *make_identifier(cfg_vctx *v, const char *s) {
  size_t n = strlen(s);
  char *d = mp_pool_alloc(v->pool, n + 3, 1);
  if (!d) {
    v->nomem = true;
    return NULL;
  }
  size_t k = 0;
  if (!isalpha((unsigned char)s[0]) && s[0] != '_') {
    d[k++] = 'm';
    d[k++] = '_';
  }
  for (size_t i = 0; i < n && k < MP_PREFIX_MAX; i++)
    d[k++] = isalnum((unsigned char)s[i]) ? (char)tolower((unsigned char)s[i]) : '_';
  d[k] = '\0';
  if (is_c_keyword(d)) return mp_pool_printf(v->pool, "%s_model", d);
  return d;
}

/* The model file's name without folder and extension. */
static char *file_stem(cfg_vctx *v, const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  if (n == 0) return mp_pool_strdup(v->pool, "model");
  return mp_pool_strndup(v->pool, b, n);
}

static const cfg_node *section(cfg_vctx *v, const cfg_node *root, const char *name) {
  cfg_entry *e = cfg_map_find(root, name);
  if (!e || e->value->kind == CFG_NULL) return NULL;
  if (!cfg_want_map(v, e->value, name)) return NULL;
  cfg_check_keys(v, e->value, name, name);
  return e->value;
}

static const cfg_node *value_of(const cfg_node *map, const char *key) {
  cfg_entry *e = map ? cfg_map_find(map, key) : NULL;
  return e && e->value->kind != CFG_NULL ? e->value : NULL;
}

/* A prefix (module.prefix, models[i].prefix): a C identifier, not a
 * keyword; NULL after reporting. */
static char *read_prefix(cfg_vctx *v, const cfg_node *n, const char *path) {
  const char *s;
  if (!cfg_read_string(v, n, path, &s)) return NULL;
  if (!is_c_identifier(s))
    cfg_err(v, n, path,
            "'%s' must be a C identifier (letters, digits and '_', not starting with a "
            "digit), not '%s'",
            path, s);
  else if (strlen(s) > MP_PREFIX_MAX)
    cfg_err(v, n, path,
            "'%s' is %zu characters long; a prefix has at most %d (it starts every "
            "name the module declares)",
            path, strlen(s), MP_PREFIX_MAX);
  else if (is_c_keyword(s))
    cfg_err(v, n, path, "'%s' must not be the C keyword '%s'", path, s);
  else
    return mp_pool_strdup(v->pool, s);
  return NULL;
}

/* models: [...]; false when absent. */
static bool read_models(cfg_vctx *v, const cfg_node *root, mp_config *c) {
  cfg_entry *e = cfg_map_find(root, "models");
  if (!e || e->value->kind == CFG_NULL) return false;
  const char *base = "models";
  const cfg_node *l = e->value;
  if (l->kind != CFG_SEQ || l->n == 0) {
    cfg_err(v, l, base, "'%s' must be a non-empty list of {path, subgraph, name, prefix}, not %s",
            base, cfg_shown(v, l));
    return true;
  }
  c->models = mp_pool_alloc(v->pool, l->n, sizeof *c->models);
  if (!c->models) {
    v->nomem = true;
    return true;
  }
  for (uint32_t i = 0; i < l->n; i++) {
    const cfg_node *m = l->items[i];
    const char *mp = cfg_index_path(v, base, i);
    if (!cfg_want_map(v, m, mp)) continue;
    cfg_check_keys(v, m, "models[]", mp);
    mp_model_entry me = {0};
    const cfg_node *n;
    const char *s;
    if ((n = value_of(m, "path"))) {
      if (cfg_read_string(v, n, cfg_join(v, mp, "path"), &s)) me.path = cfg_resolve_path(v, n, s);
    } else {
      cfg_err(v, m, mp, "'%s' needs a 'path': the .tflite model", mp);
    }
    if ((n = value_of(m, "subgraph"))) {
      uint64_t sg;
      if (cfg_read_uint(v, n, cfg_join(v, mp, "subgraph"), UINT32_MAX, &sg))
        me.subgraph = (uint32_t)sg;
    }
    if ((n = value_of(m, "name"))) {
      if (cfg_read_string(v, n, cfg_join(v, mp, "name"), &s)) me.name = mp_pool_strdup(v->pool, s);
    } else if (me.path) {
      me.name = file_stem(v, me.path);
    }
    if ((n = value_of(m, "prefix")))
      me.prefix = read_prefix(v, n, cfg_join(v, mp, "prefix"));
    else if (me.name)
      me.prefix = make_identifier(v, me.name);
    for (uint32_t k = 0; me.prefix && k < c->n_models; k++)
      if (c->models[k].prefix && !strcmp(c->models[k].prefix, me.prefix)) {
        cfg_err(v, n ? n : m, mp,
                "'%s' has the prefix '%s' of models[%u]: each model needs its own "
                "(set 'prefix')",
                mp, me.prefix, k);
        me.prefix = NULL;
      }
    c->models[c->n_models++] = me;
  }
  return true;
}

/* model: and module.prefix / module.name of a one-model config. */
static void read_one_model(cfg_vctx *v, const cfg_node *root, const cfg_src *file,
                           const cfg_node *model, const cfg_node *module, mp_config *c) {
  const cfg_node *n;
  const char *s;
  if ((n = value_of(model, "path"))) {
    if (cfg_read_string(v, n, "model.path", &s)) c->model_path = cfg_resolve_path(v, n, s);
  } else if (v->unknown_keys == 0) {
    /* point at the model section when there is one; after an unknown key
     * ("modle:", "pth:") the typo is the error to fix, and says so */
    cfg_entry *me = cfg_map_find(root, "model");
    cfg_err_at(v, me ? me->src : file, me ? me->line : 0, me ? me->column : 0, "model.path",
               "missing 'model.path': the .tflite model to plan (set it in the config or with "
               "--model.path)");
  }
  if ((n = value_of(model, "subgraph"))) {
    uint64_t sg;
    if (cfg_read_uint(v, n, "model.subgraph", UINT32_MAX, &sg)) c->subgraph = (uint32_t)sg;
  }
  if ((n = value_of(model, "name"))) {
    if (cfg_read_string(v, n, "model.name", &s)) c->model_name = mp_pool_strdup(v->pool, s);
  } else if (c->model_path) {
    c->model_name = file_stem(v, c->model_path);
  }
  if ((n = value_of(module, "prefix"))) {
    c->prefix = read_prefix(v, n, "module.prefix");
  } else if (c->model_name) {
    c->prefix = make_identifier(v, c->model_name);
  }
  if ((n = value_of(module, "name"))) {
    if (cfg_read_string(v, n, "module.name", &s)) {
      if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
        cfg_err(v, n, "module.name", "'module.name' must be a plain name, not the path '%s'", s);
      else
        c->module_name = mp_pool_strdup(v->pool, s);
    }
  } else if (c->prefix) {
    c->module_name = mp_pool_strdup(v->pool, c->prefix);
  }
}

static void read_model_module(cfg_vctx *v, const cfg_node *root, const cfg_src *file,
                              mp_config *c) {
  const cfg_node *model = section(v, root, "model"), *module = section(v, root, "module");
  const cfg_node *n;
  const char *s;
  if (!read_models(v, root, c)) {
    read_one_model(v, root, file, model, module, c);
  } else {
    if (model) {
      cfg_entry *me = cfg_map_find(root, "model");
      cfg_err_at(v, me->src, me->line, me->column, "model",
                 "give either 'model' or 'models', not both");
    }
    if (c->n_models > 0) {
      c->model_path = c->models[0].path;
      c->subgraph = c->models[0].subgraph;
      c->model_name = c->models[0].name;
    }
    /* module.prefix names the shared arenas; every module is named by its
     * model's prefix */
    if ((n = value_of(module, "name")))
      cfg_err(v, n, "module.name",
              "with 'models', each module is named by its model's prefix; "
              "'module.name' has no meaning");
    c->prefix = mp_pool_strdup(v->pool, "shared");
    if ((n = value_of(module, "prefix"))) c->prefix = read_prefix(v, n, "module.prefix");
    c->module_name = c->prefix;
  }
  c->target = MP_TARGET_GENERIC;
  if ((n = value_of(module, "target")) && cfg_read_string(v, n, "module.target", &s) &&
      !mp_target_find(s, &c->target)) {
    const char *names[MP_TARGET_COUNT];
    for (int t = 0; t < MP_TARGET_COUNT; t++) names[t] = mp_target_name((mp_target)t);
    const char *sug = mp_suggest(s, names, MP_TARGET_COUNT);
    if (sug)
      cfg_err(v, n, "module.target", "unknown target '%s' " DASH " did you mean '%s'?", s, sug);
    else
      cfg_err(v, n, "module.target", "unknown target '%s' (targets: %s)", s,
              cfg_name_list(v, names, MP_TARGET_COUNT));
  }
  if ((n = value_of(module, "tables_memory"))) {
    mp_memory m;
    if (cfg_read_memory(v, n, "module.tables_memory", &c->platform, &m) &&
        cfg_memory_on_platform(v, n, "module.tables_memory", m, &c->platform)) {
      c->has_tables_memory = true;
      c->tables_memory = m;
    }
  }
  if ((n = value_of(module, "path"))) {
    if (cfg_read_string(v, n, "module.path", &s)) c->module_path = cfg_resolve_path(v, n, s);
  } else {
    cfg_node at = {.src = file};
    c->module_path = cfg_resolve_path(v, &at, "out");
  }
  if ((n = value_of(root, "verbose"))) {
    uint64_t vb;
    if (cfg_read_uint(v, n, "verbose", 3, &vb)) c->verbose = (int32_t)vb;
  }
}

/* memory.patch: off, auto, or {first, last, rows, cols}. */
static void read_patch(cfg_vctx *v, const cfg_node *n, mp_memory_args *ma) {
  if (n->kind != CFG_MAP) {
    const char *word;
    if (n->kind == CFG_BOOL && !n->b) return; /* YAML reads a bare off as false */
    if (!cfg_read_string(v, n, "memory.patch", &word)) return;
    if (!strcmp(word, "auto"))
      ma->patch = MP_PATCH_AUTO;
    else if (strcmp(word, "off") != 0)
      cfg_err(v, n, "memory.patch",
              "'memory.patch' must be off, auto or a mapping {first, last, rows, cols}, not %s",
              cfg_shown(v, n));
    return;
  }
  cfg_check_keys(v, n, "memory.patch", "memory.patch");
  static const char *const names[4] = {"first", "last", "rows", "cols"};
  uint32_t *dst[4] = {&ma->patch_first, &ma->patch_last, &ma->patch_rows, &ma->patch_cols};
  bool ok = true;
  for (int i = 0; i < 4; i++) {
    char path[32];
    snprintf(path, sizeof path, "memory.patch.%s", names[i]);
    const cfg_node *x = value_of(n, names[i]);
    uint64_t u = 0;
    if (!x) {
      cfg_err(v, n, "memory.patch",
              "'memory.patch' needs '%s' (the stage is {first, last, rows, "
              "cols})",
              names[i]);
      ok = false;
    } else if (!cfg_read_uint(v, x, path, i < 2 ? UINT32_MAX : 64, &u)) {
      ok = false;
    } else if (i >= 2 && u == 0) {
      cfg_err(v, x, path, "'%s' must be at least 1", path);
      ok = false;
    } else {
      *dst[i] = (uint32_t)u;
    }
  }
  if (ok && ma->patch_last < ma->patch_first) {
    cfg_err(v, value_of(n, "last"), "memory.patch.last",
            "'memory.patch.last' (%u) comes before 'memory.patch.first' (%u)", ma->patch_last,
            ma->patch_first);
    ok = false;
  }
  if (ok) ma->patch = MP_PATCH_STAGE;
}

/* memory.in_place: a boolean (true is size; the spellings cfg_read_bool
 * takes), speed or size. */
static void read_in_place(cfg_vctx *v, const cfg_node *n, mp_memory_args *ma) {
  static const char *const words[] = {"false", "true", "speed", "size"};
  static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
  int found = -1; /* 0 false, 1 true (size), 2 speed, 3 size */
  if (n->kind == CFG_BOOL) found = n->b ? 1 : 0;
  if (n->kind == CFG_INT && !n->negative && n->mag <= 1) found = n->mag == 1;
  for (int i = 0; n->kind == CFG_STR && n->text && found < 0 && i < 4; i++) {
    if (!strcasecmp(n->text, words[i])) found = i;
    else if (!strcasecmp(n->text, yes[i])) found = 1;
    else if (!strcasecmp(n->text, no[i])) found = 0;
  }
  if (found >= 0) {
    static const mp_in_place_mode modes[] = {MP_IN_PLACE_OFF, MP_IN_PLACE_SIZE, MP_IN_PLACE_SPEED,
                                             MP_IN_PLACE_SIZE};
    ma->in_place_mode = modes[found];
    ma->in_place = ma->in_place_mode != MP_IN_PLACE_OFF;
    return;
  }
  const char *sug = n->kind == CFG_STR && n->text ? mp_suggest(n->text, words, 4) : NULL;
  if (sug)
    cfg_err(v, n, "memory.in_place",
            "'memory.in_place' must be false, true, speed or size, not %s " DASH
            " did you mean '%s'?",
            cfg_shown(v, n), sug);
  else
    cfg_err(v, n, "memory.in_place", "'memory.in_place' must be false, true, speed or size, not %s",
            cfg_shown(v, n));
}

static void read_memory_section(cfg_vctx *v, const cfg_node *root, mp_config *c) {
  mp_memory_args *ma = &c->memory;
  ma->allocate_arenas = true;
  ma->auto_hydrate_constants = true;
  ma->dump_residency_json = false;
  ma->in_place = false;
  ma->in_place_mode = MP_IN_PLACE_OFF;
  ma->op_order = MP_OP_ORDER_MODEL;
  ma->patch = MP_PATCH_OFF;
  ma->planner = mp_pool_strdup(v->pool, "greedy");
  if (!ma->planner) v->nomem = true;
  const cfg_node *mem = section(v, root, "memory");
  if (!mem) return;
  const mp_planner *pl = read_planner(v, mem, ma);
  read_options(v, mem, pl, ma);
  read_constraints(v, mem, &c->platform, ma);
  read_rules(v, mem, &c->platform, ma);
  const cfg_node *n;
  if ((n = value_of(mem, "allocate_arenas")))
    cfg_read_bool(v, n, "memory.allocate_arenas", &ma->allocate_arenas);
  if ((n = value_of(mem, "auto_hydrate_constants"))) {
    cfg_read_bool(v, n, "memory.auto_hydrate_constants", &ma->auto_hydrate_constants);
    cfg_entry *e = cfg_map_find(mem, "auto_hydrate_constants");
    cfg_warn(v, e->src, e->line, e->column, "memory.auto_hydrate_constants",
             "'memory.auto_hydrate_constants' is deprecated and changes nothing: "
             "<prefix>_model_init always calls the weak <prefix>_hydrate_constants");
  }
  if ((n = value_of(mem, "in_place"))) read_in_place(v, n, ma);
  if ((n = value_of(mem, "patch"))) read_patch(v, n, ma);
  if ((n = value_of(mem, "dump_residency_json")))
    cfg_read_bool(v, n, "memory.dump_residency_json", &ma->dump_residency_json);
  const char *order;
  if ((n = value_of(mem, "op_order")) && cfg_read_string(v, n, "memory.op_order", &order)) {
    static const char *const orders[] = {"model", "min_peak"};
    if (!strcmp(order, "min_peak")) {
      ma->op_order = MP_OP_ORDER_MIN_PEAK;
    } else if (strcmp(order, "model") != 0) {
      const char *sug = mp_suggest(order, orders, 2);
      if (sug)
        cfg_err(v, n, "memory.op_order", "unknown operator order '%s' " DASH " did you mean '%s'?",
                order, sug);
      else
        cfg_err(v, n, "memory.op_order", "'memory.op_order' must be model or min_peak, not %s",
                cfg_shown(v, n));
    }
  }
  const char *io;
  if ((n = value_of(mem, "io")) && cfg_read_string(v, n, "memory.io", &io)) {
    if (!strcmp(io, "caller"))
      ma->io_caller = true;
    else if (strcmp(io, "arena") != 0)
      cfg_err(v, n, "memory.io", "'memory.io' must be arena or caller, not %s", cfg_shown(v, n));
  }
}

static void validate(cfg_vctx *v, const cfg_node *root, const cfg_src *file, mp_config *c) {
  cfg_check_keys(v, root, "", "");
  c->verbose = 1;
  cfg_read_platform(v, root, &c->platform);
  read_model_module(v, root, file, c);
  read_memory_section(v, root, c);
}

/* ---- diagnostics in source order ------------------------------------------------- */

/* Validation walks the keys in table order, but a reader wants the errors
 * in the order of the file: they are collected, then handed on sorted by
 * line and column (command-line ones first, in argument order). */
typedef struct held {
  mp_severity severity;
  char *file, *key_path, *source_line, *message;
  uint32_t line, column;
  int64_t byte_offset;
  size_t seq;
} held;

typedef struct holder {
  held *items;
  size_t n, cap;
  bool nomem;
} holder;

static char *dup_or_null(const char *s, bool *nomem) {
  if (!s) return NULL;
  char *d = strdup(s);
  if (!d) *nomem = true;
  return d;
}

static void hold(void *user, const mp_diag *d) {
  holder *h = user;
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 16;
    held *it = realloc(h->items, cap * sizeof *it);
    if (!it) {
      h->nomem = true;
      return;
    }
    h->items = it;
    h->cap = cap;
  }
  held *x = &h->items[h->n];
  x->severity = d->severity;
  x->file = dup_or_null(d->file, &h->nomem);
  x->key_path = dup_or_null(d->key_path, &h->nomem);
  x->source_line = dup_or_null(d->source_line, &h->nomem);
  x->message = dup_or_null(d->message, &h->nomem);
  x->line = d->line;
  x->column = d->column;
  x->byte_offset = d->byte_offset;
  x->seq = h->n++;
}

static int cmp_held(const void *a, const void *b) {
  const held *x = a, *y = b;
  if ((x->file != NULL) != (y->file != NULL)) return x->file ? 1 : -1;
  if (!x->file) return (x->seq > y->seq) - (x->seq < y->seq);
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->column != y->column) return x->column < y->column ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

#define MAX_SHOWN 50 /* errors; a config with more has a bigger problem */

static void release(holder *h, const mp_diag_sink *dx) {
  if (h->n) qsort(h->items, h->n, sizeof *h->items, cmp_held);
  size_t shown = 0, hidden = 0;
  for (size_t i = 0; i < h->n; i++) {
    held *x = &h->items[i];
    if (x->severity == MP_SEV_ERROR && shown == MAX_SHOWN) hidden++;
    else if (dx && dx->fn && x->message) {
      shown += x->severity == MP_SEV_ERROR;
      mp_diag d = {x->severity, x->file, x->line, x->column, x->byte_offset,
                   x->key_path, x->source_line, x->message};
      dx->fn(dx->user, &d);
    }
    free(x->file);
    free(x->key_path);
    free(x->source_line);
    free(x->message);
  }
  if (hidden) mp_error(dx, MP_LOC_NONE, "%zu more errors not shown", hidden);
  free(h->items);
  memset(h, 0, sizeof *h);
}

/* ---- entry points ---------------------------------------------------------------- */

static mp_status build(const char *text, size_t len, const char *name, int argc, char **argv,
                       const mp_diag_sink *dx, mp_config **out);

/* Build with the diagnostics held and released in source order. */
static mp_status build_sorted(const char *text, size_t len, const char *name, int argc,
                              char **argv, const mp_diag_sink *dx, mp_config **out) {
  holder h = {0};
  mp_diag_sink held_sink = {hold, &h};
  mp_status st = build(text, len, name, argc, argv, &held_sink, out);
  bool nomem = h.nomem;
  release(&h, dx);
  if (nomem && st == MP_OK) {
    mp_config_free(out);
    st = MP_ERR_NOMEM;
  }
  return st;
}

static mp_status build(const char *text, size_t len, const char *name, int argc, char **argv,
                       const mp_diag_sink *dx, mp_config **out) {
  *out = NULL;
  mp_pool *pool = mp_pool_new();
  if (!pool) return MP_ERR_NOMEM;
  mp_config *c = mp_pool_alloc(pool, 1, sizeof *c);
  if (!c) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  c->pool = pool;
  cfg_vctx v = {pool, dx, 0, 0, false};
  cfg_args a = {0};
  cfg_parse_args(&v, argc, argv, &a, c);
  if (text && a.config_path) {
    cfg_err_at(&v, NULL, 0, 0, NULL, "the config is given twice ('%s' and '%s')", name,
               a.config_path);
  }
  cfg_src *file = mp_pool_alloc(pool, 1, sizeof *file);
  cfg_node *root = NULL;
  mp_status st = file ? MP_OK : MP_ERR_NOMEM;
  uint8_t *bytes = NULL;
  if (st == MP_OK && !text && a.config_path && !v.nomem) {
    size_t n;
    st = mp_read_file(a.config_path, &bytes, &n, dx);
    if (st == MP_OK && n > CFG_MAX_FILE) {
      mp_error(dx, (mp_loc){a.config_path, 0, 0, -1, NULL, NULL},
               "the config is %zu bytes; more than %u is not a config", n, CFG_MAX_FILE);
      st = MP_ERR_CONFIG;
    }
    if (st == MP_OK) {
      text = (const char *)bytes;
      len = n;
      name = a.config_path;
    }
  }
  if (st == MP_OK && text) {
    char *copy = mp_pool_strndup(pool, text, len);
    c->config_path = mp_pool_strdup(pool, name);
    if (!copy || !c->config_path) {
      st = MP_ERR_NOMEM;
    } else {
      file->file = c->config_path;
      file->dir = cfg_dir_of(pool, name);
      file->text = copy;
      file->len = len;
      st = cfg_load_yaml(pool, file, dx, &root);
    }
  } else if (st == MP_OK) {
    root = cfg_new(pool, CFG_MAP, file);
    if (!root) st = MP_ERR_NOMEM;
  }
  free(bytes);
  for (uint32_t i = 0; st == MP_OK && i < a.n_ov; i++)
    if (!cfg_apply_override(&v, root, &a.ov[i])) st = MP_ERR_NOMEM;
  if (st == MP_OK && !v.nomem) validate(&v, root, text ? file : NULL, c);
  if (st == MP_OK && v.nomem) st = MP_ERR_NOMEM;
  if (st == MP_OK && v.errors) st = MP_ERR_CONFIG;
  if (st != MP_OK) {
    mp_pool_free(&pool);
    return st;
  }
  *out = c;
  return MP_OK;
}

mp_status mp_config_from_args(int argc, char **argv, const mp_diag_sink *dx, mp_config **out) {
  return build_sorted(NULL, 0, NULL, argc, argv, dx, out);
}

mp_status mp_config_from_text(const char *text, size_t len, const char *name, int argc,
                              char **argv, const mp_diag_sink *dx, mp_config **out) {
  return build_sorted(text ? text : "", text ? len : 0, name ? name : "config.yaml", argc, argv, dx,
                      out);
}

void mp_config_free(mp_config **c) {
  if (!c || !*c) return;
  mp_pool *pool = (*c)->pool;
  mp_pool_free(&pool);
  *c = NULL;
}
