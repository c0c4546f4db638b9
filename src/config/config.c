/*
 * config.c — `memplan convert` arguments and the YAML config into one
 * validated mp_config.
 *
 * Three steps:
 *   1. argv: every `--dotted.key VALUE` is checked against the key table
 *      (config_schema.c) and turned into an override: a path plus a value
 *      node (a JSON value for mappings and lists, else a plain scalar).
 *   2. The file (when --path is given) is loaded into a tree
 *      (config_tree.c) and the overrides are written into it, so the
 *      command line wins and a config given wholly on the command line is
 *      just an empty tree plus overrides.
 *   3. One validation pass reads the tree into the mp_config, reporting every
 *      problem (not only the first) with its key path and its place: the
 *      file's line and column, or the argument.  Unknown keys get a
 *      did-you-mean from the table; planner_options are checked against the
 *      selected planner's own schema from the planner table.
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

#define DASH "\xe2\x80\x94" /* an em dash, as in the messages of the issue */
#define MAX_SIZE_BYTES (1ull << 40) /* above this a size is a typo, not a memory */
#define MAX_ALIGN 4096u

/* ---- the validation context ------------------------------------------------- */

typedef struct vctx {
  mp_pool *pool;            /* the config's pool */
  const mp_diag_sink *dx;
  unsigned errors;
  unsigned unknown_keys;    /* of those, unknown keys (a typo explains what is missing) */
  bool nomem;
} vctx;

static void verr_at(vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void verr_at(vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
                    const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(v->dx, v->pool, MP_SEV_ERROR, src, line, col, path, fmt, ap);
  va_end(ap);
  v->errors++;
}

/* An error about a value. */
static void verr(vctx *v, const cfg_node *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void verr(vctx *v, const cfg_node *n, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(v->dx, v->pool, MP_SEV_ERROR, n ? n->src : NULL, n ? n->line : 0, n ? n->column : 0,
              path, fmt, ap);
  va_end(ap);
  v->errors++;
}

static void vwarn(vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void vwarn(vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(v->dx, v->pool, MP_SEV_WARNING, src, line, col, path, fmt, ap);
  va_end(ap);
}

static const char *join(vctx *v, const char *a, const char *b) {
  const char *s = *a ? mp_pool_printf(v->pool, "%s.%s", a, b) : mp_pool_strdup(v->pool, b);
  if (!s) {
    v->nomem = true;
    return "?";
  }
  return s;
}

static const char *index_path(vctx *v, const char *a, uint32_t i) {
  const char *s = mp_pool_printf(v->pool, "%s[%u]", a, i);
  if (!s) {
    v->nomem = true;
    return "?";
  }
  return s;
}

/* "a, b and c" of a list of names, in the pool. */
static const char *name_list(vctx *v, const char *const *names, size_t n) {
  mp_buf b;
  mp_buf_init(&b);
  for (size_t i = 0; i < n; i++)
    mp_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
  const char *s = mp_pool_strdup(v->pool, mp_buf_str(&b));
  mp_buf_free(&b);
  return s ? s : "";
}

/* Text of a value for messages: scalars as written, else their kind. */
static const char *shown(vctx *v, const cfg_node *n) {
  if (n->kind == CFG_MAP || n->kind == CFG_SEQ || !n->text) return cfg_kind_name(n->kind);
  if (!*n->text && n->kind != CFG_STR) return "an empty value"; /* `--key=` */
  const char *s = mp_pool_printf(v->pool, n->kind == CFG_STR ? "'%.60s'" : "%.60s", n->text);
  return s ? s : "?";
}

/* ---- unknown keys ------------------------------------------------------------ */

#define MAX_CHILDREN 32

/* Report each key of `map` the table does not allow under schema path
 * `schema` ("" for the top level); `display` is the map's key path in
 * messages ("memory.constraints[1]"). */
static void check_keys(vctx *v, const cfg_node *map, const char *schema, const char *display) {
  const char *names[MAX_CHILDREN];
  size_t n = cfg_key_children(schema, names, MAX_CHILDREN);
  for (uint32_t i = 0; i < map->n; i++) {
    const cfg_entry *e = &map->entries[i];
    bool known = false;
    for (size_t k = 0; k < n && !known; k++) known = !strcmp(e->canon, names[k]);
    if (known) continue;
    v->unknown_keys++;
    const char *full = join(v, display, e->key);
    const char *sug = mp_suggest(e->key, names, n);
    if (sug) {
      verr_at(v, e->src, e->line, e->column, full, "unknown key '%s' " DASH " did you mean '%s'?",
              full, join(v, display, sug));
      continue;
    }
    /* a key of another section ("planner" at the top level) */
    size_t nk;
    const cfg_key *all = cfg_keys(&nk);
    const char *elsewhere = NULL;
    for (size_t k = 0; k < nk && !elsewhere; k++) {
      const char *dot = strrchr(all[k].path, '.');
      if (dot && !strcmp(dot + 1, e->canon) && !strchr(all[k].path, '[')) elsewhere = all[k].path;
    }
    if (elsewhere) {
      verr_at(v, e->src, e->line, e->column, full, "unknown key '%s' " DASH " did you mean '%s'?",
              full, elsewhere);
      continue;
    }
    verr_at(v, e->src, e->line, e->column, full, "unknown key '%s' (valid %s%s%s: %s)", full,
            *display ? "keys under '" : "top-level keys", display, *display ? "'" : "",
            name_list(v, names, n));
  }
}

/* ---- typed readers -------------------------------------------------------------
 * Each returns false after reporting when the node does not fit its key. */

static bool want_map(vctx *v, const cfg_node *n, const char *path) {
  if (n->kind == CFG_MAP) return true;
  verr(v, n, path, "'%s' must be a mapping, not %s", path, shown(v, n));
  return false;
}

static bool read_string(vctx *v, const cfg_node *n, const char *path, const char **out) {
  if (n->kind == CFG_MAP || n->kind == CFG_SEQ || n->kind == CFG_NULL) {
    verr(v, n, path, "'%s' must be a string, not %s", path, shown(v, n));
    return false;
  }
  if (!n->text || !*n->text) {
    verr(v, n, path, "'%s' must not be empty", path);
    return false;
  }
  *out = n->text;
  return true;
}

/* A non-negative integer up to `max`. */
static bool read_uint(vctx *v, const cfg_node *n, const char *path, uint64_t max, uint64_t *out) {
  if (n->kind != CFG_INT) {
    if (n->kind == CFG_STR && n->quoted)
      verr(v, n, path, "'%s' must be an integer, not the string %s", path, shown(v, n));
    else
      verr(v, n, path, "'%s' must be a non-negative integer, not %s", path, shown(v, n));
    return false;
  }
  if (n->negative) {
    verr(v, n, path, "'%s' must be a non-negative integer, not %s", path, n->text);
    return false;
  }
  if (n->overflow || n->mag > max) {
    if (max < 1000000)
      verr(v, n, path, "'%s' must be an integer from 0 to %llu, not %s", path,
           (unsigned long long)max, n->text);
    else
      verr(v, n, path, "'%s' is %s, more than the largest allowed value %llu", path, n->text,
           (unsigned long long)max);
    return false;
  }
  *out = n->mag;
  return true;
}

/* A size in bytes: an integer, or a number with a KiB/MiB/GiB (or K/M/G)
 * suffix. */
static bool read_size(vctx *v, const cfg_node *n, const char *path, uint64_t *out) {
  uint64_t val = 0;
  if (n->kind == CFG_STR && n->text && isdigit((unsigned char)n->text[0])) {
    char *end;
    errno = 0;
    unsigned long long num = strtoull(n->text, &end, 10);
    while (*end == ' ') end++;
    uint64_t mul = 0;
    if (!strcmp(end, "KiB") || !strcmp(end, "K") || !strcmp(end, "k")) mul = 1024ull;
    else if (!strcmp(end, "MiB") || !strcmp(end, "M")) mul = 1024ull * 1024;
    else if (!strcmp(end, "GiB") || !strcmp(end, "G")) mul = 1024ull * 1024 * 1024;
    else if (!strcmp(end, "B")) mul = 1;
    if (mul == 0) {
      verr(v, n, path, "'%s' must be a size in bytes (262144, 256KiB, 1MiB), not %s", path,
           shown(v, n));
      return false;
    }
    if (errno || num > MAX_SIZE_BYTES / mul) {
      verr(v, n, path, "'%s' is %s, more than 2^40 bytes (1 TiB): surely a mistake", path,
           n->text);
      return false;
    }
    val = num * mul;
  } else if (n->kind == CFG_INT) {
    if (n->negative) {
      verr(v, n, path, "'%s' must be a non-negative size in bytes, not %s", path, n->text);
      return false;
    }
    if (n->overflow || n->mag > MAX_SIZE_BYTES) {
      verr(v, n, path, "'%s' is %s bytes, more than 2^40 (1 TiB): surely a mistake", path,
           n->text);
      return false;
    }
    val = n->mag;
  } else {
    verr(v, n, path, "'%s' must be a size in bytes (262144, 256KiB, 1MiB), not %s", path,
         shown(v, n));
    return false;
  }
  *out = val;
  return true;
}

static bool read_align(vctx *v, const cfg_node *n, const char *path, uint32_t *out) {
  uint64_t a;
  if (!read_uint(v, n, path, UINT32_MAX, &a)) return false;
  if (!mp_is_pow2(a) || a > MAX_ALIGN) {
    verr(v, n, path, "'%s' must be a power of two from 1 to %u, not %s", path, MAX_ALIGN, n->text);
    return false;
  }
  *out = (uint32_t)a;
  return true;
}

static bool read_bool(vctx *v, const cfg_node *n, const char *path, bool *out) {
  if (n->kind == CFG_BOOL) {
    *out = n->b;
    return true;
  }
  if (n->kind == CFG_STR && n->text) {
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
      if (!strcasecmp(n->text, yes[i])) return *out = true;
      if (!strcasecmp(n->text, no[i])) return !(*out = false);
    }
  }
  if (n->kind == CFG_INT && !n->negative && n->mag <= 1) {
    *out = n->mag == 1;
    return true;
  }
  verr(v, n, path, "'%s' must be true or false, not %s", path, shown(v, n));
  return false;
}

static char *resolve_path(vctx *v, const cfg_node *n, const char *p);
static const char *dir_of(mp_pool *pool, const char *path);

/* The names of the memories pf has, for suggestions. */
static size_t present_names(const mp_platform *pf, const char **names) {
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n = mp_platform_by_name(pf, by_name);
  for (uint32_t i = 0; i < n; i++) names[i] = mp_platform_memory_name(pf, by_name[i]);
  return n;
}

/* Memories a platform has, as a list for messages. */
static const char *platform_memories(vctx *v, const mp_platform *pf) {
  const char *names[MP_MEM_COUNT];
  size_t n = present_names(pf, names);
  return n ? name_list(v, names, n) : "none";
}

/* A memory name, looked up on pf (the five seed names always resolve; the
 * caller checks presence with memory_on_platform). */
static bool read_memory(vctx *v, const cfg_node *n, const char *path, const mp_platform *pf,
                        mp_memory *out) {
  if (n->kind == CFG_STR && n->text && mp_platform_find_memory(pf, n->text, out)) return true;
  const char *names[MP_MEM_COUNT];
  size_t nn = present_names(pf, names);
  if (n->kind == CFG_STR && n->text) {
    const char *sug = mp_suggest(n->text, names, nn);
    if (sug)
      verr(v, n, path, "'%s': unknown memory %s " DASH " did you mean '%s'?", path, shown(v, n),
           sug);
    else
      verr(v, n, path, "'%s': unknown memory %s (platform '%s' has %s)", path, shown(v, n),
           pf->name, platform_memories(v, pf));
  } else {
    verr(v, n, path, "'%s' must be a memory name (platform '%s' has %s), not %s", path, pf->name,
         platform_memories(v, pf), shown(v, n));
  }
  return false;
}

static bool memory_on_platform(vctx *v, const cfg_node *n, const char *path, mp_memory m,
                               const mp_platform *pf) {
  if (pf->present[m]) return true;
  verr(v, n, path, "'%s' is %s, which platform '%s' does not have (it has %s)", path,
       mp_platform_memory_name(pf, m), pf->name, platform_memories(v, pf));
  return false;
}

/* ---- platform ----------------------------------------------------------------- */

static const char *const *builtin_list(size_t *n) {
  const char *const *names = mp_platform_builtin_names();
  for (*n = 0; names[*n]; (*n)++) {
  }
  return names;
}

static void unknown_platform(vctx *v, const cfg_node *n, const char *path, const char *name) {
  size_t nb;
  const char *const *names = builtin_list(&nb);
  const char *sug = mp_suggest(name, names, nb);
  if (sug)
    verr(v, n, path, "unknown platform '%s' " DASH " did you mean '%s'?", name, sug);
  else
    verr(v, n, path,
         "unknown platform '%s' (built-in platforms: %s; or give 'memories' to define one)",
         name, name_list(v, names, nb));
}

/* True for two names that differ only in a trailing number (sram1, sram2). */
static bool numbered_siblings(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  while (la && isdigit((unsigned char)a[la - 1])) la--;
  while (lb && isdigit((unsigned char)b[lb - 1])) lb--;
  return la == lb && strncasecmp(a, b, la) == 0;
}

/* One entry of platform.memories: `NAME: BYTES`, `NAME: null` (remove it)
 * or `NAME: {size, read_only, alignment}`, merged into pf. */
static void read_memory_entry(vctx *v, const cfg_entry *e, const char *path, mp_platform *pf) {
  mp_memory m;
  if (!mp_platform_find_memory(pf, e->key, &m)) {
    bool ident = isalpha((unsigned char)e->key[0]) || e->key[0] == '_';
    for (const char *c = e->key; *c && ident; c++) ident = isalnum((unsigned char)*c) || *c == '_';
    if (!ident || strlen(e->key) >= MP_MEMORY_NAME_MAX) {
      verr_at(v, e->src, e->line, e->column, path,
              "memory name '%s' must be a C identifier of at most %d characters (it names the "
              "emitted arena symbols)", e->key, MP_MEMORY_NAME_MAX - 1);
      return;
    }
    if (e->value->kind == CFG_NULL) return; /* removing a memory it does not have */
    const char *names[MP_MEM_COUNT];
    const char *sug = mp_suggest(e->key, names, present_names(pf, names));
    if (sug && !numbered_siblings(sug, e->key))
      vwarn(v, e->src, e->line, e->column, path,
            "'%s' adds a memory '%s' to platform '%s' " DASH " did you mean '%s'?", path, e->key,
            pf->name, sug);
    if (!mp_platform_add_memory(pf, e->key, &m)) {
      verr_at(v, e->src, e->line, e->column, path, "platform '%s' has more than %d memories",
              pf->name, MP_MEM_COUNT - MP_MEM_FIRST_NAMED + 1);
      return;
    }
  }
  const cfg_node *n = e->value;
  if (n->kind == CFG_NULL) {
    pf->present[m] = false;
    pf->size[m] = 0;
    return;
  }
  if (n->kind != CFG_MAP) {
    uint64_t size;
    if (!read_size(v, n, path, &size)) return;
    if (size == 0) {
      verr(v, n, path, "'%s' must be positive (null removes the memory)", path);
      return;
    }
    pf->present[m] = true;
    pf->size[m] = size;
    return;
  }
  check_keys(v, n, "platform.memories[]", path);
  cfg_entry *se = cfg_map_find(n, "size"), *re = cfg_map_find(n, "read_only"),
            *ae = cfg_map_find(n, "alignment");
  if (se && se->value->kind != CFG_NULL) {
    const char *sp = join(v, path, "size");
    uint64_t size;
    if (!read_size(v, se->value, sp, &size)) return;
    if (size == 0) {
      verr(v, se->value, sp, "'%s' must be positive (null removes the memory)", sp);
      return;
    }
    pf->size[m] = size;
    pf->present[m] = true;
  } else if (!pf->present[m]) {
    verr(v, n, path, "'%s' needs a 'size': the platform has no %s to start from", path,
         mp_platform_memory_name(pf, m));
    return;
  }
  if (re && re->value->kind != CFG_NULL) read_bool(v, re->value, join(v, path, "read_only"), &pf->read_only[m]);
  if (ae && ae->value->kind != CFG_NULL) read_align(v, ae->value, join(v, path, "alignment"), &pf->alignment[m]);
}

static bool read_platform_map(vctx *v, const cfg_node *p, mp_platform *pf, int depth);

/* The preferred order after memory overrides: the base platform's order
 * less the memories removed, each writable memory the overrides added
 * (by name) before the first read-only one, read-only ones last. */
static void merge_order(mp_platform *pf, const mp_platform *base) {
  mp_memory order[MP_MEM_COUNT], by_name[MP_MEM_COUNT];
  uint32_t n = 0, first_ro;
  for (uint32_t i = 0; i < base->n_order; i++)
    if (pf->present[base->order[i]]) order[n++] = base->order[i];
  for (first_ro = 0; first_ro < n && !pf->read_only[order[first_ro]]; first_ro++) {
  }
  uint32_t nb = mp_platform_by_name(pf, by_name);
  for (uint32_t i = 0; i < nb; i++) {
    mp_memory m = by_name[i];
    if (base->present[m] || m == MP_MEM_ITCM) continue; /* itcm: pinned tensors only */
    if (pf->read_only[m]) {
      order[n++] = m;
      continue;
    }
    for (uint32_t k = n; k > first_ro; k--) order[k] = order[k - 1];
    order[first_ro++] = m;
    n++;
  }
  memcpy(pf->order, order, n * sizeof order[0]);
  pf->n_order = n;
  if (n == 0) mp_platform_default_order(pf);
}

/* A sink that keeps the last message (user: a char[256]). */
static void keep_message(void *user, const mp_diag *d) {
  snprintf((char *)user, 256, "%s", d->message);
}

/* platform.file: a YAML file whose top level is a platform mapping (or has
 * one under `platform`), relative to the folder of the file naming it. */
static bool read_platform_file(vctx *v, const cfg_node *n, mp_platform *pf, int depth) {
  const char *path;
  if (!read_string(v, n, "platform.file", &path)) return false;
  if (depth > 0) {
    verr(v, n, "platform.file", "a platform file cannot name another platform file");
    return false;
  }
  char *full = resolve_path(v, n, path);
  uint8_t *bytes = NULL;
  size_t len = 0;
  cfg_src *src = mp_pool_alloc(v->pool, 1, sizeof *src);
  if (!full || !src) {
    v->nomem = true;
    return false;
  }
  char why[256] = "";
  mp_diag_sink keep = {keep_message, why};
  if (mp_read_file(full, &bytes, &len, &keep) != MP_OK) {
    verr(v, n, "platform.file", "'platform.file': cannot read '%s': %s", full, why);
    return false;
  }
  char *text = len <= CFG_MAX_FILE ? mp_pool_strndup(v->pool, (const char *)bytes, len) : NULL;
  free(bytes);
  if (len > CFG_MAX_FILE) {
    verr(v, n, "platform.file", "'%s' is %zu bytes; more than %u is not a platform", full, len,
         CFG_MAX_FILE);
    return false;
  }
  if (!text) {
    v->nomem = true;
    return false;
  }
  src->file = full;
  src->dir = dir_of(v->pool, full);
  src->text = text;
  src->len = len;
  cfg_node *root = NULL;
  mp_status st = cfg_load_yaml(v->pool, src, v->dx, &root);
  if (st != MP_OK) {
    if (st == MP_ERR_NOMEM) v->nomem = true;
    v->errors++;
    return false;
  }
  const cfg_entry *inner = cfg_map_find(root, "platform");
  if (inner && root->n == 1) {
    if (!want_map(v, inner->value, "platform")) return false;
    root = inner->value;
  }
  mp_platform_init(pf, "custom");
  return read_platform_map(v, root, pf, depth + 1);
}

/* A platform mapping merged into pf, which holds the default platform on
 * entry: `file` or `name` choose where to start (a built-in name starts
 * from it, another name starts an empty platform of that name, neither
 * keeps the default), then memories, min_alignment and
 * preferred_memory_order override it. */
static bool read_platform_map(vctx *v, const cfg_node *p, mp_platform *pf, int depth) {
  check_keys(v, p, "platform", "platform");
  cfg_entry *ne = cfg_map_find(p, "name"), *me = cfg_map_find(p, "memories");
  cfg_entry *ae = cfg_map_find(p, "min_alignment"), *oe = cfg_map_find(p, "preferred_memory_order");
  cfg_entry *fe = cfg_map_find(p, "file");
  const char *name = NULL;
  if (ne && ne->value->kind != CFG_NULL && !read_string(v, ne->value, "platform.name", &name))
    return false;
  bool has_memories = me && me->value->kind != CFG_NULL;
  bool fresh = false;
  if (fe && fe->value->kind != CFG_NULL) {
    if (name && depth == 0) {
      verr(v, ne->value, "platform.name",
           "'platform.name' and 'platform.file' both choose the platform to start from; give one");
      return false;
    }
    if (!read_platform_file(v, fe->value, pf, depth)) return false;
  }
  if (!name) {
    /* the default platform, or the file's */
  } else if (mp_platform_builtin(name, pf)) {
    /* a built-in, with inline overrides */
  } else if (!has_memories) {
    unknown_platform(v, ne->value, "platform.name", name);
    return false;
  } else {
    if (strlen(name) >= sizeof pf->name) {
      verr(v, ne->value, "platform.name", "'platform.name' is longer than %zu characters",
           sizeof pf->name - 1);
      return false;
    }
    mp_platform_init(pf, name);
    fresh = true;
  }
  unsigned errors = v->errors;
  mp_platform base = *pf;
  if (has_memories && want_map(v, me->value, "platform.memories")) {
    const cfg_node *mm = me->value;
    for (uint32_t i = 0; i < mm->n; i++)
      read_memory_entry(v, &mm->entries[i], join(v, "platform.memories", mm->entries[i].key), pf);
  }
  if (ae && ae->value->kind != CFG_NULL)
    read_align(v, ae->value, "platform.min_alignment", &pf->min_alignment);
  if (v->errors != errors) return false;
  bool any = false, writable = false;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    any |= pf->present[m];
    writable |= mp_platform_writable(pf, (mp_memory)m);
  }
  if (!writable) {
    verr(v, has_memories ? me->value : p, "platform.memories",
         "platform '%s' has no writable memory%s", pf->name,
         any ? " (every memory it has is read-only)" : "");
    return false;
  }
  if (oe && oe->value->kind != CFG_NULL) {
    const cfg_node *o = oe->value;
    const char *path = "platform.preferred_memory_order";
    if (o->kind != CFG_SEQ || o->n == 0) {
      verr(v, o, path, "'%s' must be a non-empty list of memories, not %s", path, shown(v, o));
      return false;
    }
    bool seen[MP_MEM_COUNT] = {false};
    pf->n_order = 0;
    for (uint32_t i = 0; i < o->n; i++) {
      const char *ip = index_path(v, path, i);
      mp_memory m;
      if (!read_memory(v, o->items[i], ip, pf, &m)) continue;
      if (!memory_on_platform(v, o->items[i], ip, m, pf)) continue;
      if (seen[m]) {
        verr(v, o->items[i], ip, "'%s' names %s twice", path, mp_platform_memory_name(pf, m));
        continue;
      }
      seen[m] = true;
      pf->order[pf->n_order++] = m;
    }
  } else if (fresh) {
    mp_platform_default_order(pf);
  } else {
    merge_order(pf, &base);
  }
  return true;
}

static void read_platform(vctx *v, const cfg_node *root, mp_platform *pf) {
  mp_platform_builtin(MP_DEFAULT_PLATFORM, pf);
  cfg_entry *pe = cfg_map_find(root, "platform");
  if (!pe || pe->value->kind == CFG_NULL) return;
  const cfg_node *p = pe->value;
  if (p->kind != CFG_MAP) {
    const char *name;
    if (!read_string(v, p, "platform", &name)) return;
    if (!mp_platform_builtin(name, pf)) unknown_platform(v, p, "platform", name);
    return;
  }
  read_platform_map(v, p, pf, 0);
}

/* ---- planner and its options ----------------------------------------------------- */

static const mp_planner *read_planner(vctx *v, const cfg_node *mem, mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "planner");
  const char *name = "greedy";
  if (e && !read_string(v, e->value, "memory.planner", &name)) return NULL;
  const mp_planner *pl = mp_planner_find(name);
  if (!pl) {
    const char *names[64];
    uint32_t n = 0;
    for (uint32_t i = 0; i < mp_planner_count() && n < 64; i++) names[n++] = mp_planner_at(i)->name;
    const char *sug = mp_suggest(name, names, n);
    if (sug)
      verr(v, e ? e->value : NULL, "memory.planner", "unknown planner '%s' " DASH
           " did you mean '%s'?", name, sug);
    else
      verr(v, e ? e->value : NULL, "memory.planner", "unknown planner '%s' (planners: %s)", name,
           name_list(v, names, n));
    return NULL;
  }
  ma->planner = mp_pool_strdup(v->pool, pl->name);
  if (!ma->planner) v->nomem = true;
  return pl;
}

static void read_options(vctx *v, const cfg_node *mem, const mp_planner *pl, mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "planner_options");
  if (!e || e->value->kind == CFG_NULL) return;
  const char *base = "memory.planner_options";
  if (!want_map(v, e->value, base) || !pl) return;
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
    const char *path = join(v, base, oe->key);
    const mp_option_spec *spec = NULL;
    for (uint32_t k = 0; k < pl->n_options && !spec; k++)
      if (!strcmp(pl->options[k].key, oe->canon)) spec = &pl->options[k];
    if (!spec) {
      const char *sug = mp_suggest(oe->key, keys, nk);
      if (sug) {
        verr_at(v, oe->src, oe->line, oe->column, path,
                "unknown key '%s' " DASH " did you mean '%s'? (planner '%s')", path,
                join(v, base, sug), pl->name);
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
          verr_at(v, oe->src, oe->line, oe->column, path,
                  "unknown key '%s': planner '%s' accepts no options ('%s' is an option of %s)",
                  path, pl->name, oe->canon, name_list(v, takers, nt));
        else
          verr_at(v, oe->src, oe->line, oe->column, path,
                  "unknown key '%s': planner '%s' accepts no options", path, pl->name);
      } else {
        verr_at(v, oe->src, oe->line, oe->column, path,
                "unknown key '%s' (planner '%s' accepts %s)", path, pl->name,
                name_list(v, keys, nk));
      }
      continue;
    }
    const cfg_node *val = oe->value;
    if (val->kind != CFG_INT) {
      verr(v, val, path, "'%s' must be an integer from %lld to %lld, not %s", path,
           (long long)spec->min, (long long)spec->max, shown(v, val));
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
        verr(v, val, path, "'%s' must be a non-negative integer, not %s", path, val->text);
      else
        verr(v, val, path, "'%s' must be an integer from %lld to %lld, not %s", path,
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

static void read_constraints(vctx *v, const cfg_node *mem, const mp_platform *pf,
                             mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "constraints");
  if (!e || e->value->kind == CFG_NULL) return;
  const char *base = "memory.constraints";
  const cfg_node *l = e->value;
  if (l->kind != CFG_SEQ) {
    verr(v, l, base, "'%s' must be a list of {name, max_size, arena_alignment}, not %s", base,
         shown(v, l));
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
    const char *cp = index_path(v, base, i);
    if (!want_map(v, c, cp)) continue;
    check_keys(v, c, "memory.constraints[]", cp);
    cfg_entry *ne = cfg_map_find(c, "name"), *se = cfg_map_find(c, "max_size"),
              *ae = cfg_map_find(c, "arena_alignment");
    if (!ne || ne->value->kind == CFG_NULL) {
      verr(v, c, cp, "'%s' needs a 'name': the memory it constrains", cp);
      continue;
    }
    mp_constraint k = {0};
    const char *np = join(v, cp, "name");
    if (!read_memory(v, ne->value, np, pf, &k.name)) continue;
    bool ok = memory_on_platform(v, ne->value, np, k.name, pf);
    if (ok && first[k.name]) {
      if (first[k.name]->src && first[k.name]->src->file && first[k.name]->line)
        verr(v, ne->value, np, "a second constraint for %s (the first is %s[%u], line %u)",
             mp_platform_memory_name(pf, k.name), base, first_i[k.name], first[k.name]->line);
      else
        verr(v, ne->value, np, "a second constraint for %s (the first is %s[%u])",
             mp_platform_memory_name(pf, k.name), base, first_i[k.name]);
      ok = false;
    }
    if (ok) {
      first[k.name] = ne->value;
      first_i[k.name] = i;
    }
    k.max_size = pf->size[k.name];
    if (se && se->value->kind != CFG_NULL) {
      const char *sp = join(v, cp, "max_size");
      uint64_t sz;
      if (!read_size(v, se->value, sp, &sz)) {
        ok = false;
      } else if (pf->present[k.name] && sz > pf->size[k.name]) {
        verr(v, se->value, sp, "'%s' is %llu bytes, more than the %llu bytes of %s on '%s'", sp,
             (unsigned long long)sz, (unsigned long long)pf->size[k.name],
             mp_platform_memory_name(pf, k.name), pf->name);
        ok = false;
      } else {
        k.has_max_size = true;
        k.max_size = sz;
      }
    }
    if (ae && ae->value->kind != CFG_NULL &&
        !read_align(v, ae->value, join(v, cp, "arena_alignment"), &k.arena_alignment))
      ok = false;
    if (ok) ma->constraints[ma->n_constraints++] = k;
  }
}

/* ---- attribute rulesets ----------------------------------------------------------- */

static const char *const rule_types[] = {"*", "scratch", "persistent", "constant"};

static bool read_rule_type(vctx *v, const cfg_node *n, const char *path, int32_t *out) {
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
      verr(v, n, path, "'%s': unknown tensor type %s " DASH " did you mean '%s'?", path,
           shown(v, n), sug);
      return false;
    }
  }
  verr(v, n, path, "'%s' must be one of \"*\", scratch, persistent, constant, not %s", path,
       shown(v, n));
  return false;
}

static bool read_ids(vctx *v, const cfg_node *n, const char *path, mp_rule *r) {
  if (n->kind == CFG_NULL) return true;
  const cfg_node *one[1] = {n};
  const cfg_node *const *items = one;
  uint32_t count = 1;
  if (n->kind == CFG_SEQ) {
    items = (const cfg_node *const *)n->items;
    count = n->n;
    if (count == 0) {
      verr(v, n, path, "'%s' is an empty list, which matches no tensor; use null (or leave it "
                       "out) for every tensor", path);
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
    const char *ip = n->kind == CFG_SEQ ? index_path(v, path, i) : path;
    if (it->kind == CFG_INT && it->negative) {
      verr(v, it, ip, "'%s': a tensor index cannot be negative (%s)", ip, it->text);
      ok = false;
      continue;
    }
    if ((it->kind != CFG_INT && it->kind != CFG_STR) || !it->text || !*it->text) {
      verr(v, it, ip, "'%s' must be a tensor index or name, not %s", ip,
           it->text && !*it->text ? "an empty string" : shown(v, it));
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

static void read_rules(vctx *v, const cfg_node *mem, const mp_platform *pf, mp_memory_args *ma) {
  cfg_entry *e = cfg_map_find(mem, "tensors");
  if (!e || e->value->kind == CFG_NULL) return;
  const char *base = "memory.tensors";
  const cfg_node *l = e->value;
  if (l->kind != CFG_SEQ) {
    verr(v, l, base, "'%s' must be a list of {type, id, attributes}, not %s", base, shown(v, l));
    return;
  }
  ma->rules = mp_pool_alloc(v->pool, l->n, sizeof(mp_rule));
  if (!ma->rules) {
    v->nomem = true;
    return;
  }
  for (uint32_t i = 0; i < l->n; i++) {
    const cfg_node *rn = l->items[i];
    const char *rp = index_path(v, base, i);
    if (!want_map(v, rn, rp)) continue;
    check_keys(v, rn, "memory.tensors[]", rp);
    mp_rule r = {.type = MP_RULE_ANY_TYPE};
    bool ok = true;
    cfg_entry *te = cfg_map_find(rn, "type"), *ie = cfg_map_find(rn, "id"),
              *ae = cfg_map_find(rn, "attributes");
    if (te && !read_rule_type(v, te->value, join(v, rp, "type"), &r.type)) ok = false;
    if (ie && !read_ids(v, ie->value, join(v, rp, "id"), &r)) ok = false;
    if (ae && ae->value->kind != CFG_NULL) {
      const char *ap = join(v, rp, "attributes");
      const cfg_node *an = ae->value;
      if (!want_map(v, an, ap)) {
        ok = false;
      } else {
        check_keys(v, an, "memory.tensors[].attributes", ap);
        cfg_entry *me = cfg_map_find(an, "memory"),
                  *de = cfg_map_find(an, "constant_destination_memory");
        mp_attributes *at = &r.attributes;
        if (me && me->value->kind != CFG_NULL) {
          const char *mp = join(v, ap, "memory");
          if (read_memory(v, me->value, mp, pf, &at->memory) &&
              memory_on_platform(v, me->value, mp, at->memory, pf)) {
            at->has_memory = true;
            if ((r.type == MP_ROLE_SCRATCH || r.type == MP_ROLE_PERSISTENT) &&
                !mp_platform_writable(pf, at->memory)) {
              verr(v, me->value, mp, "'%s' is %s, which is read-only: %s tensors need writable "
                                     "memory", mp, mp_platform_memory_name(pf, at->memory),
                   mp_role_name((mp_role)r.type));
              ok = false;
            }
          } else {
            ok = false;
          }
        }
        if (de && de->value->kind != CFG_NULL) {
          const char *dp = join(v, ap, "constant_destination_memory");
          if (read_memory(v, de->value, dp, pf, &at->constant_destination_memory) &&
              memory_on_platform(v, de->value, dp, at->constant_destination_memory, pf)) {
            if (!mp_platform_writable(pf, at->constant_destination_memory)) {
              verr(v, de->value, dp,
                   "'%s' is %s, which is read-only: constants are hydrated into a writable "
                   "memory", dp, mp_platform_memory_name(pf, at->constant_destination_memory));
              ok = false;
            } else {
              at->has_constant_destination_memory = true;
              if (r.type == MP_ROLE_SCRATCH || r.type == MP_ROLE_PERSISTENT)
                vwarn(v, de->value->src, de->value->line, de->value->column, dp,
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

/* Relative paths written in a file resolve against its folder. */
static char *resolve_path(vctx *v, const cfg_node *n, const char *p) {
  const char *dir = n && n->src ? n->src->dir : NULL;
  if (p[0] == '/' || !dir || !*dir) return mp_pool_strdup(v->pool, p);
  return mp_pool_printf(v->pool, "%s/%s", dir, p);
}

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
static char *make_identifier(vctx *v, const char *s) {
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
static char *file_stem(vctx *v, const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  if (n == 0) return mp_pool_strdup(v->pool, "model");
  return mp_pool_strndup(v->pool, b, n);
}

static const cfg_node *section(vctx *v, const cfg_node *root, const char *name) {
  cfg_entry *e = cfg_map_find(root, name);
  if (!e || e->value->kind == CFG_NULL) return NULL;
  if (!want_map(v, e->value, name)) return NULL;
  check_keys(v, e->value, name, name);
  return e->value;
}

static const cfg_node *value_of(const cfg_node *map, const char *key) {
  cfg_entry *e = map ? cfg_map_find(map, key) : NULL;
  return e && e->value->kind != CFG_NULL ? e->value : NULL;
}

/* A prefix (module.prefix, models[i].prefix): a C identifier, not a
 * keyword; NULL after reporting. */
static char *read_prefix(vctx *v, const cfg_node *n, const char *path) {
  const char *s;
  if (!read_string(v, n, path, &s)) return NULL;
  if (!is_c_identifier(s))
    verr(v, n, path, "'%s' must be a C identifier (letters, digits and '_', not starting with a "
                     "digit), not '%s'", path, s);
  else if (strlen(s) > MP_PREFIX_MAX)
    verr(v, n, path, "'%s' is %zu characters long; a prefix has at most %d (it starts every "
                     "name the module declares)", path, strlen(s), MP_PREFIX_MAX);
  else if (is_c_keyword(s))
    verr(v, n, path, "'%s' must not be the C keyword '%s'", path, s);
  else
    return mp_pool_strdup(v->pool, s);
  return NULL;
}

/* models: [...]; false when absent. */
static bool read_models(vctx *v, const cfg_node *root, mp_config *c) {
  cfg_entry *e = cfg_map_find(root, "models");
  if (!e || e->value->kind == CFG_NULL) return false;
  const char *base = "models";
  const cfg_node *l = e->value;
  if (l->kind != CFG_SEQ || l->n == 0) {
    verr(v, l, base, "'%s' must be a non-empty list of {path, subgraph, name, prefix}, not %s",
         base, shown(v, l));
    return true;
  }
  c->models = mp_pool_alloc(v->pool, l->n, sizeof *c->models);
  if (!c->models) {
    v->nomem = true;
    return true;
  }
  for (uint32_t i = 0; i < l->n; i++) {
    const cfg_node *m = l->items[i];
    const char *mp = index_path(v, base, i);
    if (!want_map(v, m, mp)) continue;
    check_keys(v, m, "models[]", mp);
    mp_model_entry me = {0};
    const cfg_node *n;
    const char *s;
    if ((n = value_of(m, "path"))) {
      if (read_string(v, n, join(v, mp, "path"), &s)) me.path = resolve_path(v, n, s);
    } else {
      verr(v, m, mp, "'%s' needs a 'path': the .tflite model", mp);
    }
    if ((n = value_of(m, "subgraph"))) {
      uint64_t sg;
      if (read_uint(v, n, join(v, mp, "subgraph"), UINT32_MAX, &sg)) me.subgraph = (uint32_t)sg;
    }
    if ((n = value_of(m, "name"))) {
      if (read_string(v, n, join(v, mp, "name"), &s)) me.name = mp_pool_strdup(v->pool, s);
    } else if (me.path) {
      me.name = file_stem(v, me.path);
    }
    if ((n = value_of(m, "prefix")))
      me.prefix = read_prefix(v, n, join(v, mp, "prefix"));
    else if (me.name)
      me.prefix = make_identifier(v, me.name);
    for (uint32_t k = 0; me.prefix && k < c->n_models; k++)
      if (c->models[k].prefix && !strcmp(c->models[k].prefix, me.prefix)) {
        verr(v, n ? n : m, mp, "'%s' has the prefix '%s' of models[%u]: each model needs its own "
                               "(set 'prefix')", mp, me.prefix, k);
        me.prefix = NULL;
      }
    c->models[c->n_models++] = me;
  }
  return true;
}

/* model: and module.prefix / module.name of a one-model config. */
static void read_one_model(vctx *v, const cfg_node *root, const cfg_src *file,
                           const cfg_node *model, const cfg_node *module, mp_config *c) {
  const cfg_node *n;
  const char *s;
  if ((n = value_of(model, "path"))) {
    if (read_string(v, n, "model.path", &s)) c->model_path = resolve_path(v, n, s);
  } else if (v->unknown_keys == 0) {
    /* point at the model section when there is one; after an unknown key
     * ("modle:", "pth:") the typo is the error to fix, and says so */
    cfg_entry *me = cfg_map_find(root, "model");
    verr_at(v, me ? me->src : file, me ? me->line : 0, me ? me->column : 0, "model.path",
            "missing 'model.path': the .tflite model to plan (set it in the config or with "
            "--model.path)");
  }
  if ((n = value_of(model, "subgraph"))) {
    uint64_t sg;
    if (read_uint(v, n, "model.subgraph", UINT32_MAX, &sg)) c->subgraph = (uint32_t)sg;
  }
  if ((n = value_of(model, "name"))) {
    if (read_string(v, n, "model.name", &s)) c->model_name = mp_pool_strdup(v->pool, s);
  } else if (c->model_path) {
    c->model_name = file_stem(v, c->model_path);
  }
  if ((n = value_of(module, "prefix"))) {
    c->prefix = read_prefix(v, n, "module.prefix");
  } else if (c->model_name) {
    c->prefix = make_identifier(v, c->model_name);
  }
  if ((n = value_of(module, "name"))) {
    if (read_string(v, n, "module.name", &s)) {
      if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
        verr(v, n, "module.name", "'module.name' must be a plain name, not the path '%s'", s);
      else
        c->module_name = mp_pool_strdup(v->pool, s);
    }
  } else if (c->prefix) {
    c->module_name = mp_pool_strdup(v->pool, c->prefix);
  }
}

static void read_model_module(vctx *v, const cfg_node *root, const cfg_src *file, mp_config *c) {
  const cfg_node *model = section(v, root, "model"), *module = section(v, root, "module");
  const cfg_node *n;
  const char *s;
  if (!read_models(v, root, c)) {
    read_one_model(v, root, file, model, module, c);
  } else {
    if (model) {
      cfg_entry *me = cfg_map_find(root, "model");
      verr_at(v, me->src, me->line, me->column, "model",
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
      verr(v, n, "module.name", "with 'models', each module is named by its model's prefix; "
                                "'module.name' has no meaning");
    c->prefix = mp_pool_strdup(v->pool, "shared");
    if ((n = value_of(module, "prefix"))) c->prefix = read_prefix(v, n, "module.prefix");
    c->module_name = c->prefix;
  }
  c->target = MP_TARGET_GENERIC;
  if ((n = value_of(module, "target")) && read_string(v, n, "module.target", &s) &&
      !mp_target_find(s, &c->target)) {
    const char *names[MP_TARGET_COUNT];
    for (int t = 0; t < MP_TARGET_COUNT; t++) names[t] = mp_target_name((mp_target)t);
    const char *sug = mp_suggest(s, names, MP_TARGET_COUNT);
    if (sug)
      verr(v, n, "module.target", "unknown target '%s' " DASH " did you mean '%s'?", s, sug);
    else
      verr(v, n, "module.target", "unknown target '%s' (targets: %s)", s,
           name_list(v, names, MP_TARGET_COUNT));
  }
  if ((n = value_of(module, "tables_memory"))) {
    mp_memory m;
    if (read_memory(v, n, "module.tables_memory", &c->platform, &m) &&
        memory_on_platform(v, n, "module.tables_memory", m, &c->platform)) {
      c->has_tables_memory = true;
      c->tables_memory = m;
    }
  }
  if ((n = value_of(module, "path"))) {
    if (read_string(v, n, "module.path", &s)) c->module_path = resolve_path(v, n, s);
  } else {
    cfg_node at = {.src = file};
    c->module_path = resolve_path(v, &at, "out");
  }
  if ((n = value_of(root, "verbose"))) {
    uint64_t vb;
    if (read_uint(v, n, "verbose", 3, &vb)) c->verbose = (int32_t)vb;
  }
}

/* memory.patch: off, auto, or {first, last, rows, cols}. */
static void read_patch(vctx *v, const cfg_node *n, mp_memory_args *ma) {
  if (n->kind != CFG_MAP) {
    const char *word;
    if (n->kind == CFG_BOOL && !n->b) return; /* YAML reads a bare off as false */
    if (!read_string(v, n, "memory.patch", &word)) return;
    if (!strcmp(word, "auto"))
      ma->patch = MP_PATCH_AUTO;
    else if (strcmp(word, "off") != 0)
      verr(v, n, "memory.patch",
           "'memory.patch' must be off, auto or a mapping {first, last, rows, cols}, not %s",
           shown(v, n));
    return;
  }
  check_keys(v, n, "memory.patch", "memory.patch");
  static const char *const names[4] = {"first", "last", "rows", "cols"};
  uint32_t *dst[4] = {&ma->patch_first, &ma->patch_last, &ma->patch_rows, &ma->patch_cols};
  bool ok = true;
  for (int i = 0; i < 4; i++) {
    char path[32];
    snprintf(path, sizeof path, "memory.patch.%s", names[i]);
    const cfg_node *x = value_of(n, names[i]);
    uint64_t u = 0;
    if (!x) {
      verr(v, n, "memory.patch", "'memory.patch' needs '%s' (the stage is {first, last, rows, "
                                 "cols})", names[i]);
      ok = false;
    } else if (!read_uint(v, x, path, i < 2 ? UINT32_MAX : 64, &u)) {
      ok = false;
    } else if (i >= 2 && u == 0) {
      verr(v, x, path, "'%s' must be at least 1", path);
      ok = false;
    } else {
      *dst[i] = (uint32_t)u;
    }
  }
  if (ok && ma->patch_last < ma->patch_first) {
    verr(v, value_of(n, "last"), "memory.patch.last",
         "'memory.patch.last' (%u) comes before 'memory.patch.first' (%u)", ma->patch_last,
         ma->patch_first);
    ok = false;
  }
  if (ok) ma->patch = MP_PATCH_STAGE;
}

static void read_memory_section(vctx *v, const cfg_node *root, mp_config *c) {
  mp_memory_args *ma = &c->memory;
  ma->allocate_arenas = true;
  ma->auto_hydrate_constants = true;
  ma->dump_residency_json = false;
  ma->in_place = false;
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
  if ((n = value_of(mem, "allocate_arenas"))) read_bool(v, n, "memory.allocate_arenas", &ma->allocate_arenas);
  if ((n = value_of(mem, "auto_hydrate_constants"))) {
    read_bool(v, n, "memory.auto_hydrate_constants", &ma->auto_hydrate_constants);
    cfg_entry *e = cfg_map_find(mem, "auto_hydrate_constants");
    vwarn(v, e->src, e->line, e->column, "memory.auto_hydrate_constants",
          "'memory.auto_hydrate_constants' is deprecated and changes nothing: "
          "<prefix>_model_init always calls the weak <prefix>_hydrate_constants");
  }
  if ((n = value_of(mem, "in_place"))) read_bool(v, n, "memory.in_place", &ma->in_place);
  if ((n = value_of(mem, "patch"))) read_patch(v, n, ma);
  if ((n = value_of(mem, "dump_residency_json")))
    read_bool(v, n, "memory.dump_residency_json", &ma->dump_residency_json);
  const char *order;
  if ((n = value_of(mem, "op_order")) && read_string(v, n, "memory.op_order", &order)) {
    static const char *const orders[] = {"model", "min_peak"};
    if (!strcmp(order, "min_peak")) {
      ma->op_order = MP_OP_ORDER_MIN_PEAK;
    } else if (strcmp(order, "model") != 0) {
      const char *sug = mp_suggest(order, orders, 2);
      if (sug)
        verr(v, n, "memory.op_order", "unknown operator order '%s' " DASH " did you mean '%s'?",
             order, sug);
      else
        verr(v, n, "memory.op_order", "'memory.op_order' must be model or min_peak, not %s",
             shown(v, n));
    }
  }
  const char *io;
  if ((n = value_of(mem, "io")) && read_string(v, n, "memory.io", &io)) {
    if (!strcmp(io, "caller"))
      ma->io_caller = true;
    else if (strcmp(io, "arena") != 0)
      verr(v, n, "memory.io", "'memory.io' must be arena or caller, not %s", shown(v, n));
  }
}

static void validate(vctx *v, const cfg_node *root, const cfg_src *file, mp_config *c) {
  check_keys(v, root, "", "");
  c->verbose = 1;
  read_platform(v, root, &c->platform);
  read_model_module(v, root, file, c);
  read_memory_section(v, root, c);
}

/* ---- the command line ------------------------------------------------------------ */

typedef struct override {
  char **comps;             /* canonical key path components */
  uint32_t n_comps;
  cfg_node *value;
  const cfg_src *src;
} override;

static bool bool_word(const char *s, bool *b) {
  static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (!strcasecmp(s, yes[i])) return *b = true;
    if (!strcasecmp(s, no[i])) return !(*b = false);
  }
  return false;
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
static mp_status cli_value(vctx *v, const cfg_src *src, cfg_type t, const char *key_path,
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

typedef struct args {
  const char *config_path;
  override *ov;
  uint32_t n_ov;
} args;

/* Split "memory.planner-options.iterations" into canonical components. */
static char **split_key(vctx *v, const char *key, uint32_t *n) {
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

static const char *join_comps(vctx *v, char **comps, uint32_t n) {
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

static void parse_args(vctx *v, int argc, char **argv, args *a, mp_config *c) {
  a->ov = mp_pool_alloc(v->pool, (size_t)(argc > 0 ? argc : 1), sizeof(override));
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
        override *o = &a->ov[a->n_ov++];
        o->comps = split_key(v, "model.path", &o->n_comps);
        o->value = cfg_scalar(v->pool, src, arg, true);
        o->src = src;
        if (!o->comps || !o->value) v->nomem = true;
      } else if (!a->config_path) {
        a->config_path = arg;
      } else {
        verr_at(v, NULL, 0, 0, NULL, "more than one config given ('%s' and '%s')",
                a->config_path, arg);
      }
      continue;
    }
    if (arg[1] != '-') {
      const char *habit = habit_key(arg + 1);
      if (habit)
        verr_at(v, NULL, 0, 0, NULL, "unknown option '%s' " DASH " did you mean '--%s'?", arg,
                habit);
      else
        verr_at(v, NULL, 0, 0, NULL,
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
#define NEXT_VALUE(out)                                                                    \
  do {                                                                                     \
    if (inline_val) {                                                                      \
      (out) = inline_val;                                                                  \
    } else if (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1] == '-')) {        \
      (out) = argv[++i];                                                                   \
    } else {                                                                               \
      verr_at(v, src, 0, 0, NULL, "needs a value");                                        \
      (out) = NULL;                                                                        \
    }                                                                                      \
  } while (0)
    const char *val;
    if (!strcmp(name, "path") || !strcmp(name, "config")) {
      NEXT_VALUE(val);
      if (!val) continue;
      if (a->config_path)
        verr_at(v, src, 0, 0, NULL, "the config is given twice ('%s' and '%s')", a->config_path,
                val);
      else
        a->config_path = val;
      continue;
    }
    if (!strcmp(name, "report")) {
      NEXT_VALUE(val);
      if (val && !*val) verr_at(v, src, 0, 0, NULL, "needs a file name");
      else if (val && !(c->report_path = mp_pool_strdup(v->pool, val))) v->nomem = true;
      continue;
    }
    if (!strcmp(name, "force")) {
      c->force = true;
      if (inline_val && !bool_word(inline_val, &c->force))
        verr_at(v, src, 0, 0, NULL, "takes true or false, not '%s'", inline_val);
      continue;
    }
    if (!strcmp(name, "allow-unsupported") || !strcmp(name, "allow_unsupported")) {
      c->allow_unsupported = true;
      if (inline_val && !bool_word(inline_val, &c->allow_unsupported))
        verr_at(v, src, 0, 0, NULL, "takes true or false, not '%s'", inline_val);
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
      if (pos && pos->type == T_BOOL) {
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
        verr_at(v, src, 0, 0, full, "unknown key '%s' " DASH " did you mean '%s'?", full, sug);
      } else {
        /* "--planner" for "--memory.planner" */
        const char *elsewhere = NULL;
        for (size_t p = 0; p < np && !elsewhere && nc == 1; p++) {
          const char *dot = strrchr(paths[p], '.');
          if (dot && !strcmp(dot + 1, full)) elsewhere = paths[p];
        }
        if (!elsewhere) elsewhere = habit_key(full);
        if (elsewhere)
          verr_at(v, src, 0, 0, full, "unknown key '%s' " DASH " did you mean '%s'?", full,
                  elsewhere);
        else
          verr_at(v, src, 0, 0, full, "unknown key '%s' (see 'memplan convert --help')", full);
      }
      /* skip a value that plainly belongs to it */
      if (!inline_val && i + 1 < argc && argv[i + 1][0] != '-') i++;
      continue;
    }
    cfg_node *value = NULL;
    if (k->type == T_BOOL && !dynamic) {
      bool b = !negated;
      if (inline_val) {
        if (negated || !bool_word(inline_val, &b)) {
          verr_at(v, src, 0, 0, full, "'%s' takes true or false, not '%s'", full, inline_val);
          continue;
        }
      } else if (i + 1 < argc && bool_word(argv[i + 1], &b)) {
        if (negated) {
          const char *last = strrchr(name, '.');
          last = last ? last + 1 : name;
          verr_at(v, src, 0, 0, full, "'--%s' takes no value; write '--%.*s%s true' or "
                  "'... false' instead", name, (int)(last - name), name, last + 3);
          i++;
          continue;
        }
        i++;
      } else if (i + 1 < argc && argv[i + 1][0] != '-' && !strchr(argv[i + 1], '.') &&
                 !strchr(argv[i + 1], '/')) {
        /* a word, not a path: a misspelt boolean ("maybe", "yes") */
        verr_at(v, src, 0, 0, full, "'%s' takes true or false, not '%s'", full, argv[i + 1]);
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
    override *o = &a->ov[a->n_ov++];
    o->comps = comps;
    o->n_comps = nc;
    o->value = value;
    o->src = src;
  }
}

/* Write an override into the tree: the command line wins over the file. */
static bool apply(vctx *v, cfg_node *root, const override *o) {
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

/* The folder of `path` ("cfg/x.yaml" -> "cfg"), NULL for the cwd. */
static const char *dir_of(mp_pool *pool, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return NULL;
  if (slash == path) return "/";
  return mp_pool_strndup(pool, path, (size_t)(slash - path));
}

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
  vctx v = {pool, dx, 0, 0, false};
  args a = {0};
  parse_args(&v, argc, argv, &a, c);
  if (text && a.config_path) {
    verr_at(&v, NULL, 0, 0, NULL, "the config is given twice ('%s' and '%s')", name,
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
      file->dir = dir_of(pool, name);
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
    if (!apply(&v, root, &a.ov[i])) st = MP_ERR_NOMEM;
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
