/*
 * platform_section.c — the config's `platform:` into an mp_platform: a
 * built-in board by name, or a mapping that starts from one (its `name`)
 * or from a platform file (`file`, a platform mapping that names no other
 * file) and adds, removes or overrides memories, the minimum slot
 * alignment and the bank order.
 *
 * The one idea: a platform is plain data (platform.c), so an inline
 * platform is its base's table with the mapping's fields written over it;
 * the bank order is the base's less the memories removed, with the
 * memories added (writable ones before the read-only ones), unless the
 * mapping gives its own order.
 *
 * It reads the platform only: which tensor goes to which memory is the
 * rulesets' (config.c, rules.c) and the planner's.
 */
#include "config/config.h"
#include "util/file.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const *builtin_list(size_t *n) {
  const char *const *names = mp_platform_builtin_names();
  for (*n = 0; names[*n]; (*n)++) {
  }
  return names;
}

static void unknown_platform(cfg_vctx *v, const cfg_node *n, const char *path, const char *name) {
  size_t nb;
  const char *const *names = builtin_list(&nb);
  const char *sug = mp_suggest(name, names, nb);
  if (sug)
    cfg_err(v, n, path, "unknown platform '%s' " DASH " did you mean '%s'?", name, sug);
  else
    cfg_err(v, n, path,
            "unknown platform '%s' (built-in platforms: %s; or give 'memories' to define one)",
            name, cfg_name_list(v, names, nb));
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
static void read_memory_entry(cfg_vctx *v, const cfg_entry *e, const char *path, mp_platform *pf) {
  mp_memory m;
  if (!mp_platform_find_memory(pf, e->key, &m)) {
    bool ident = isalpha((unsigned char)e->key[0]) || e->key[0] == '_';
    for (const char *c = e->key; *c && ident; c++) ident = isalnum((unsigned char)*c) || *c == '_';
    if (!ident || strlen(e->key) >= MP_MEMORY_NAME_MAX) {
      cfg_err_at(v, e->src, e->line, e->column, path,
                 "memory name '%s' must be a C identifier of at most %d characters (it names the "
                 "emitted arena symbols)",
                 e->key, MP_MEMORY_NAME_MAX - 1);
      return;
    }
    if (e->value->kind == CFG_NULL) return; /* removing a memory it does not have */
    const char *names[MP_MEM_COUNT];
    const char *sug = mp_suggest(e->key, names, cfg_present_names(pf, names));
    if (sug && !numbered_siblings(sug, e->key))
      cfg_warn(v, e->src, e->line, e->column, path,
               "'%s' adds a memory '%s' to platform '%s' " DASH " did you mean '%s'?", path, e->key,
               pf->name, sug);
    if (!mp_platform_add_memory(pf, e->key, &m)) {
      cfg_err_at(v, e->src, e->line, e->column, path, "platform '%s' has more than %d memories",
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
    if (!cfg_read_size(v, n, path, &size)) return;
    if (size == 0) {
      cfg_err(v, n, path, "'%s' must be positive (null removes the memory)", path);
      return;
    }
    pf->present[m] = true;
    pf->size[m] = size;
    return;
  }
  cfg_check_keys(v, n, "platform.memories[]", path);
  cfg_entry *se = cfg_map_find(n, "size"), *re = cfg_map_find(n, "read_only"),
            *ae = cfg_map_find(n, "alignment");
  if (se && se->value->kind != CFG_NULL) {
    const char *sp = cfg_join(v, path, "size");
    uint64_t size;
    if (!cfg_read_size(v, se->value, sp, &size)) return;
    if (size == 0) {
      cfg_err(v, se->value, sp, "'%s' must be positive (null removes the memory)", sp);
      return;
    }
    pf->size[m] = size;
    pf->present[m] = true;
  } else if (!pf->present[m]) {
    cfg_err(v, n, path, "'%s' needs a 'size': the platform has no %s to start from", path,
            mp_platform_memory_name(pf, m));
    return;
  }
  if (re && re->value->kind != CFG_NULL)
    cfg_read_bool(v, re->value, cfg_join(v, path, "read_only"), &pf->read_only[m]);
  if (ae && ae->value->kind != CFG_NULL)
    cfg_read_align(v, ae->value, cfg_join(v, path, "alignment"), &pf->alignment[m]);
}

static bool read_platform_map(cfg_vctx *v, const cfg_node *p, mp_platform *pf, int depth);

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
static bool read_platform_file(cfg_vctx *v, const cfg_node *n, mp_platform *pf, int depth) {
  const char *path;
  if (!cfg_read_string(v, n, "platform.file", &path)) return false;
  if (depth > 0) {
    cfg_err(v, n, "platform.file", "a platform file cannot name another platform file");
    return false;
  }
  char *full = cfg_resolve_path(v, n, path);
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
    cfg_err(v, n, "platform.file", "'platform.file': cannot read '%s': %s", full, why);
    return false;
  }
  char *text = len <= CFG_MAX_FILE ? mp_pool_strndup(v->pool, (const char *)bytes, len) : NULL;
  free(bytes);
  if (len > CFG_MAX_FILE) {
    cfg_err(v, n, "platform.file", "'%s' is %zu bytes; more than %u is not a platform", full, len,
            CFG_MAX_FILE);
    return false;
  }
  if (!text) {
    v->nomem = true;
    return false;
  }
  src->file = full;
  src->dir = cfg_dir_of(v->pool, full);
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
    if (!cfg_want_map(v, inner->value, "platform")) return false;
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
static bool read_platform_map(cfg_vctx *v, const cfg_node *p, mp_platform *pf, int depth) {
  cfg_check_keys(v, p, "platform", "platform");
  cfg_entry *ne = cfg_map_find(p, "name"), *me = cfg_map_find(p, "memories");
  cfg_entry *ae = cfg_map_find(p, "min_alignment"), *oe = cfg_map_find(p, "preferred_memory_order");
  cfg_entry *fe = cfg_map_find(p, "file");
  const char *name = NULL;
  if (ne && ne->value->kind != CFG_NULL && !cfg_read_string(v, ne->value, "platform.name", &name))
    return false;
  bool has_memories = me && me->value->kind != CFG_NULL;
  bool fresh = false;
  if (fe && fe->value->kind != CFG_NULL) {
    if (name && depth == 0) {
      cfg_err(
          v, ne->value, "platform.name",
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
      cfg_err(v, ne->value, "platform.name", "'platform.name' is longer than %zu characters",
              sizeof pf->name - 1);
      return false;
    }
    mp_platform_init(pf, name);
    fresh = true;
  }
  unsigned errors = v->errors;
  mp_platform base = *pf;
  if (has_memories && cfg_want_map(v, me->value, "platform.memories")) {
    const cfg_node *mm = me->value;
    for (uint32_t i = 0; i < mm->n; i++)
      read_memory_entry(v, &mm->entries[i], cfg_join(v, "platform.memories", mm->entries[i].key),
                        pf);
  }
  if (ae && ae->value->kind != CFG_NULL)
    cfg_read_align(v, ae->value, "platform.min_alignment", &pf->min_alignment);
  if (v->errors != errors) return false;
  bool any = false, writable = false;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    any |= pf->present[m];
    writable |= mp_platform_writable(pf, (mp_memory)m);
  }
  if (!writable) {
    cfg_err(v, has_memories ? me->value : p, "platform.memories",
            "platform '%s' has no writable memory%s", pf->name,
            any ? " (every memory it has is read-only)" : "");
    return false;
  }
  if (oe && oe->value->kind != CFG_NULL) {
    const cfg_node *o = oe->value;
    const char *path = "platform.preferred_memory_order";
    if (o->kind != CFG_SEQ || o->n == 0) {
      cfg_err(v, o, path, "'%s' must be a non-empty list of memories, not %s", path,
              cfg_shown(v, o));
      return false;
    }
    bool seen[MP_MEM_COUNT] = {false};
    pf->n_order = 0;
    for (uint32_t i = 0; i < o->n; i++) {
      const char *ip = cfg_index_path(v, path, i);
      mp_memory m;
      if (!cfg_read_memory(v, o->items[i], ip, pf, &m)) continue;
      if (!cfg_memory_on_platform(v, o->items[i], ip, m, pf)) continue;
      if (seen[m]) {
        cfg_err(v, o->items[i], ip, "'%s' names %s twice", path, mp_platform_memory_name(pf, m));
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

void cfg_read_platform(cfg_vctx *v, const cfg_node *root, mp_platform *pf) {
  mp_platform_builtin(MP_DEFAULT_PLATFORM, pf);
  cfg_entry *pe = cfg_map_find(root, "platform");
  if (!pe || pe->value->kind == CFG_NULL) return;
  const cfg_node *p = pe->value;
  if (p->kind != CFG_MAP) {
    const char *name;
    if (!cfg_read_string(v, p, "platform", &name)) return;
    if (!mp_platform_builtin(name, pf)) unknown_platform(v, p, "platform", name);
    return;
  }
  read_platform_map(v, p, pf, 0);
}
