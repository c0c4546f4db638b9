/*
 * args.c — `memplan convert`'s command line as overrides of the config
 * tree: every `--dotted.key VALUE` is checked against the key table
 * (schema.c) and turned into a path plus a value node (a JSON value for
 * mappings and lists, a comma list for memory lists, else a plain
 * scalar); cfg_apply_override then writes it into the tree read from the
 * file, so the command line wins and a config given wholly on the command
 * line is an empty tree plus overrides.
 *
 * The one idea: an argument is a config value like any other, with the
 * argument as its place, so the one validation pass (config.c) reports a
 * bad value the same way wherever it came from.
 *
 * It validates no value (config.c does, after the overrides are applied)
 * and reads no file.
 */

#include "config/config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool bool_word(const char *s, bool *b) {
  static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (!strcasecmp(s, yes[i])) return *b = true;
    if (!strcasecmp(s, no[i])) return !(*b = false);
  }
  return false;
}

/* A value of memory.in_place besides the booleans. */
static bool is_in_place_mode(const char *s) {
  return !strcasecmp(s, "speed") || !strcasecmp(s, "size");
}

static bool takes_json(cfg_type t) {
  return t == T_SECTION || t == T_PLATFORM || t == T_MEMSIZES || t == T_MEMLIST ||
         t == T_OPTIONS || t == T_LIST || t == T_PATCH;
}

/* Every CLI-addressable key path (no list elements), for suggestions. */
static size_t cli_paths(const char **out, size_t max) {
  size_t nk, n = 0;
  const cfg_key *k = cfg_keys(&nk);
  for (size_t i = 0; i < nk && n < max; i++)
    if (!strchr(k[i].path, '[')) out[n++] = k[i].path;
  return n;
}

/* The value node of `text` for a key of type `t`. */
static mp_status cli_value(cfg_vctx *v, const cfg_src *src, cfg_type t, const char *key_path,
                           const char *text, cfg_node **out) {
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (takes_json(t) && (*p == '{' || *p == '['))
    return cfg_load_json(v->pool, src, text, key_path, v->dx, out);
  if (t == T_MEMLIST && *p) {
    /* dtcm,sram,psram */
    cfg_node *seq = cfg_new(v->pool, CFG_SEQ, src);
    if (!seq) return MP_ERR_NOMEM;
    const char *s = text;
    while (1) {
      const char *e = strchr(s, ',');
      size_t len = e ? (size_t)(e - s) : strlen(s);
      char *item = mp_pool_strndup(v->pool, s, len);
      cfg_node *it = item ? cfg_scalar(v->pool, src, item, false) : NULL;
      if (!it || !cfg_seq_push(v->pool, seq, it)) return MP_ERR_NOMEM;
      if (!e) break;
      s = e + 1;
    }
    *out = seq;
    return MP_OK;
  }
  *out = cfg_scalar(v->pool, src, text, false);
  return *out ? MP_OK : MP_ERR_NOMEM;
}

/* Split "memory.planner-options.iterations" into canonical components. */
static char **split_key(cfg_vctx *v, const char *key, uint32_t *n) {
  uint32_t count = 1;
  for (const char *p = key; *p; p++) count += *p == '.';
  char **comps = mp_pool_alloc(v->pool, count, sizeof(char *));
  if (!comps) return NULL;
  const char *s = key;
  for (uint32_t i = 0; i < count; i++) {
    const char *e = strchr(s, '.');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    char *c = mp_pool_strndup(v->pool, s, len);
    if (!c) return NULL;
    for (char *q = c; *q; q++)
      if (*q == '-') *q = '_';
    comps[i] = c;
    s = e ? e + 1 : s + len;
  }
  *n = count;
  return comps;
}

static const char *join_comps(cfg_vctx *v, char **comps, uint32_t n) {
  mp_buf b;
  mp_buf_init(&b);
  for (uint32_t i = 0; i < n; i++) mp_buf_printf(&b, "%s%s", i ? "." : "", comps[i]);
  const char *s = mp_pool_strdup(v->pool, mp_buf_str(&b));
  mp_buf_free(&b);
  if (!s) v->nomem = true;
  return s ? s : "";
}

/* The key another tool's habit means: -o, --output, --out and kin name the
 * output folder, which is module.path here.  NULL when none. */
static const char *habit_key(const char *name) {
  static const char *const outs[] = {"o", "out", "output", "outdir", "out_dir", "output_dir",
                                     "output_path", "out-dir", "output-dir", "output-path"};
  for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
    if (!strcmp(name, outs[i])) return "module.path";
  return NULL;
}

void cfg_parse_args(cfg_vctx *v, int argc, char **argv, cfg_args *a, mp_config *c) {
  a->ov = mp_pool_alloc(v->pool, (size_t)(argc > 0 ? argc : 1), sizeof(cfg_override));
  if (!a->ov) {
    v->nomem = true;
    return;
  }
  for (int i = 1; i < argc && !v->nomem; i++) {
    const char *arg = argv[i];
    cfg_src *src = mp_pool_alloc(v->pool, 1, sizeof *src);
    if (!src) {
      v->nomem = true;
      return;
    }
    if (arg[0] != '-' || !arg[1]) {
      /* a positional: the model or the config */
      size_t l = strlen(arg);
      src->arg = arg;
      if (l > 7 && !strcmp(arg + l - 7, ".tflite")) {
        cfg_override *o = &a->ov[a->n_ov++];
        o->comps = split_key(v, "model.path", &o->n_comps);
        o->value = cfg_scalar(v->pool, src, arg, true);
        o->src = src;
        if (!o->comps || !o->value) v->nomem = true;
      } else if (!a->config_path) {
        a->config_path = arg;
      } else {
        cfg_err_at(v, NULL, 0, 0, NULL, "more than one config given ('%s' and '%s')",
                   a->config_path, arg);
      }
      continue;
    }
    if (arg[1] != '-') {
      const char *habit = habit_key(arg + 1);
      if (habit)
        cfg_err_at(v, NULL, 0, 0, NULL, "unknown option '%s' " DASH " did you mean '--%s'?", arg,
                   habit);
      else
        cfg_err_at(v, NULL, 0, 0, NULL,
                   "unknown option '%s' (options are --dotted.keys; see --help)", arg);
      /* skip a value that plainly belongs to it: one error, not a second
       * about a stray positional */
      if (i + 1 < argc && argv[i + 1][0] != '-') i++;
      continue;
    }
    const char *eq = strchr(arg, '=');
    char *name = mp_pool_strndup(v->pool, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
    char *opt = mp_pool_strndup(v->pool, arg, eq ? (size_t)(eq - arg) : strlen(arg));
    if (!name || !opt) {
      v->nomem = true;
      return;
    }
    src->arg = opt;
    const char *inline_val = eq ? eq + 1 : NULL;
    /* the value of an option that takes one */
#define NEXT_VALUE(out)                                                                            \
  do {                                                                                             \
    if (inline_val) {                                                                              \
      (out) = inline_val;                                                                          \
    } else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {                \
      (out) = argv[++i];                                                                           \
    } else {                                                                                       \
      cfg_err_at(v, src, 0, 0, NULL, "needs a value");                                             \
      (out) = NULL;                                                                                \
    }                                                                                              \
  } while (0)
    const char *val;
    if (!strcmp(name, "path") || !strcmp(name, "config")) {
      NEXT_VALUE(val);
      if (!val) continue;
      if (a->config_path)
        cfg_err_at(v, src, 0, 0, NULL, "the config is given twice ('%s' and '%s')", a->config_path,
                   val);
      else
        a->config_path = val;
      continue;
    }
    if (!strcmp(name, "report")) {
      NEXT_VALUE(val);
      if (val && !*val)
        cfg_err_at(v, src, 0, 0, NULL, "needs a file name");
      else if (val && !(c->report_path = mp_pool_strdup(v->pool, val))) v->nomem = true;
      continue;
    }
    if (!strcmp(name, "force")) {
      c->force = true;
      if (inline_val && !bool_word(inline_val, &c->force))
        cfg_err_at(v, src, 0, 0, NULL, "takes true or false, not '%s'", inline_val);
      continue;
    }
    if (!strcmp(name, "allow-unsupported") || !strcmp(name, "allow_unsupported")) {
      c->allow_unsupported = true;
      if (inline_val && !bool_word(inline_val, &c->allow_unsupported))
        cfg_err_at(v, src, 0, 0, NULL, "takes true or false, not '%s'", inline_val);
      continue;
    }
    uint32_t nc;
    char **comps = split_key(v, name, &nc);
    if (!comps) {
      v->nomem = true;
      return;
    }
    const char *full = join_comps(v, comps, nc);
    const cfg_key *k = strchr(full, '[') ? NULL : cfg_key_find(full);
    bool negated = false, dynamic = false;
    if (!k && nc >= 2) {
      const cfg_key *parent = cfg_key_find(join_comps(v, comps, nc - 1));
      if (parent && (parent->type == T_OPTIONS || parent->type == T_MEMSIZES) && *comps[nc - 1]) {
        k = parent;
        dynamic = true;
      }
    }
    if (!k && !strncmp(comps[nc - 1], "no_", 3)) {
      char *last = comps[nc - 1];
      comps[nc - 1] = last + 3;
      const cfg_key *pos = cfg_key_find(join_comps(v, comps, nc));
      if (pos && (pos->type == T_BOOL || pos->type == T_INPLACE)) {
        k = pos;
        negated = true;
      } else {
        comps[nc - 1] = last;
      }
    }
    if (!k) {
      full = name; /* as typed */
      const char *paths[64];
      size_t np = cli_paths(paths, 64);
      /* suggest keys as deep as the one typed: "memory.nosuch" is no typo
       * of its own section "memory" */
      const char *same_depth[64];
      size_t ns = 0;
      for (size_t p = 0; p < np; p++) {
        size_t da = 0, db = 0;
        for (const char *q = paths[p]; *q; q++) da += *q == '.';
        for (const char *q = full; *q; q++) db += *q == '.';
        if (da == db) same_depth[ns++] = paths[p];
      }
      /* within a known section, only the last names are compared
       * ("memory.nosuch" is not "memory.patch" with four letters wrong) */
      const char *last_dot = strrchr(full, '.');
      const char *lasts[64], *sug = NULL;
      size_t nl = 0, pl = last_dot ? (size_t)(last_dot - full) : 0;
      for (size_t p = 0; last_dot && p < ns; p++)
        if (!strncmp(same_depth[p], full, pl) && same_depth[p][pl] == '.')
          lasts[nl++] = same_depth[p] + pl + 1;
      if (nl) {
        const char *l = mp_suggest(last_dot + 1, lasts, nl);
        for (size_t p = 0; l && p < ns && !sug; p++)
          if (same_depth[p] + pl + 1 == l) sug = same_depth[p];
      } else {
        sug = mp_suggest(full, same_depth, ns);
      }
      if (sug) {
        cfg_err_at(v, src, 0, 0, full, "unknown key '%s' " DASH " did you mean '%s'?", full, sug);
      } else {
        /* "--planner" for "--memory.planner" */
        const char *elsewhere = NULL;
        for (size_t p = 0; p < np && !elsewhere && nc == 1; p++) {
          const char *dot = strrchr(paths[p], '.');
          if (dot && !strcmp(dot + 1, full)) elsewhere = paths[p];
        }
        if (!elsewhere) elsewhere = habit_key(full);
        if (elsewhere)
          cfg_err_at(v, src, 0, 0, full, "unknown key '%s' " DASH " did you mean '%s'?", full,
                     elsewhere);
        else
          cfg_err_at(v, src, 0, 0, full, "unknown key '%s' (see 'memplan convert --help')", full);
      }
      /* skip a value that plainly belongs to it */
      if (!inline_val && i + 1 < argc && argv[i + 1][0] != '-') i++;
      continue;
    }
    cfg_node *value = NULL;
    /* memory.in_place: a boolean, or a word the config reads (speed, size;
     * anything else is reported there, with the accepted values) */
    bool mode_word = false;
    if (k->type == T_INPLACE && !negated) {
      bool b;
      if (inline_val && !bool_word(inline_val, &b)) {
        val = inline_val;
        mode_word = true;
      } else if (!inline_val && i + 1 < argc && is_in_place_mode(argv[i + 1])) {
        val = argv[++i];
        mode_word = true;
      }
      if (mode_word && !(value = cfg_scalar(v->pool, src, val, false))) {
        v->nomem = true;
        return;
      }
    }
    if (mode_word) {
      /* the node is made */
    } else if ((k->type == T_BOOL || k->type == T_INPLACE) && !dynamic) {
      const char *takes = k->type == T_INPLACE ? "false, true, speed or size" : "true or false";
      bool b = !negated;
      if (inline_val) {
        if (negated || !bool_word(inline_val, &b)) {
          cfg_err_at(v, src, 0, 0, full, "'%s' takes %s, not '%s'", full, takes, inline_val);
          continue;
        }
      } else if (i + 1 < argc && bool_word(argv[i + 1], &b)) {
        if (negated) {
          const char *last = strrchr(name, '.');
          last = last ? last + 1 : name;
          cfg_err_at(v, src, 0, 0, full,
                     "'--%s' takes no value; write '--%.*s%s true' or "
                     "'... false' instead",
                     name, (int)(last - name), name, last + 3);
          i++;
          continue;
        }
        i++;
      } else if (i + 1 < argc && argv[i + 1][0] != '-' && !strchr(argv[i + 1], '.') &&
                 !strchr(argv[i + 1], '/')) {
        /* a word, not a path: a misspelt boolean ("maybe", "yes") */
        cfg_err_at(v, src, 0, 0, full, "'%s' takes %s, not '%s'", full, takes, argv[i + 1]);
        i++;
        continue;
      }
      value = cfg_new(v->pool, CFG_BOOL, src);
      if (value) {
        value->b = b;
        value->text = b ? "true" : "false";
      }
    } else {
      NEXT_VALUE(val);
      if (!val) continue;
      cfg_type vt = !dynamic ? k->type : k->type == T_MEMSIZES ? T_MEMSIZES : T_UINT;
      mp_status st = cli_value(v, src, vt, full, val, &value);
      if (st == MP_ERR_CONFIG) {
        v->errors++;
        continue;
      }
    }
#undef NEXT_VALUE
    if (!value) {
      v->nomem = true;
      return;
    }
    cfg_override *o = &a->ov[a->n_ov++];
    o->comps = comps;
    o->n_comps = nc;
    o->value = value;
    o->src = src;
  }
}

/* Write an override into the tree: the command line wins over the file. */
bool cfg_apply_override(cfg_vctx *v, cfg_node *root, const cfg_override *o) {
  cfg_node *node = root;
  for (uint32_t i = 0; i + 1 < o->n_comps; i++) {
    cfg_entry *e = cfg_map_find(node, o->comps[i]);
    if (e && e->value->kind == CFG_MAP) {
      node = e->value;
      continue;
    }
    cfg_node *m = cfg_new(v->pool, CFG_MAP, o->src);
    if (!m) return false;
    if (e) {
      /* `platform: NAME` becomes {name: NAME} before a field is overridden */
      if (i == 0 && !strcmp(o->comps[0], "platform") && e->value->kind != CFG_NULL &&
          e->value->kind != CFG_SEQ && !cfg_map_put(v->pool, m, "name", e->line, e->column, e->value))
        return false;
      e->value = m;
    } else if (!cfg_map_put(v->pool, node, o->comps[i], 0, 0, m)) {
      return false;
    }
    if (!e) node->entries[node->n - 1].src = o->src;
    node = m;
  }
  const char *last = o->comps[o->n_comps - 1];
  cfg_entry *e = cfg_map_find(node, last);
  if (e) {
    e->value = o->value;
    e->src = o->src;
    e->line = e->column = 0;
    return true;
  }
  if (!cfg_map_put(v->pool, node, last, 0, 0, o->value)) return false;
  node->entries[node->n - 1].src = o->src;
  return true;
}
