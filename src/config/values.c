/*
 * values.c — one config value read against its key: the typed readers
 * (strings, integers, sizes with their suffixes, alignments, booleans,
 * memory names), the check for keys the key table does not know, and the
 * errors they report (declared in config.h).
 *
 * The one idea: a reader never stops the validation.  It reports what is
 * wrong with the key path and the place the value came from (the file's
 * line and column, or the command-line argument), counts the error and
 * returns false, so one run lists every problem of a config.
 *
 * It reads single values only: which keys a section has and what they
 * mean is config.c's; the command line is args.c's.
 */

#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE_BYTES (1ull << 40) /* above this a size is a typo, not a memory */
#define MAX_ALIGN 4096u

/* ---- reporting ------------------------------------------------------------------- */

void cfg_err_at(cfg_vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(v->dx, v->pool, MP_SEV_ERROR, src, line, col, path, fmt, ap);
  va_end(ap);
  v->errors++;
}

/* An error about a value. */
void cfg_err(cfg_vctx *v, const cfg_node *n, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(v->dx, v->pool, MP_SEV_ERROR, n ? n->src : NULL, n ? n->line : 0, n ? n->column : 0,
              path, fmt, ap);
  va_end(ap);
  v->errors++;
}

void cfg_warn(cfg_vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
              const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(v->dx, v->pool, MP_SEV_WARNING, src, line, col, path, fmt, ap);
  va_end(ap);
}

const char *cfg_join(cfg_vctx *v, const char *a, const char *b) {
  const char *s = *a ? mp_pool_printf(v->pool, "%s.%s", a, b) : mp_pool_strdup(v->pool, b);
  if (!s) {
    v->nomem = true;
    return "?";
  }
  return s;
}

const char *cfg_index_path(cfg_vctx *v, const char *a, uint32_t i) {
  const char *s = mp_pool_printf(v->pool, "%s[%u]", a, i);
  if (!s) {
    v->nomem = true;
    return "?";
  }
  return s;
}

/* "a, b and c" of a list of names, in the pool. */
const char *cfg_name_list(cfg_vctx *v, const char *const *names, size_t n) {
  mp_buf b;
  mp_buf_init(&b);
  for (size_t i = 0; i < n; i++)
    mp_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
  const char *s = mp_pool_strdup(v->pool, mp_buf_str(&b));
  mp_buf_free(&b);
  return s ? s : "";
}

/* Text of a value for messages: scalars as written, else their kind. */
const char *cfg_shown(cfg_vctx *v, const cfg_node *n) {
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
void cfg_check_keys(cfg_vctx *v, const cfg_node *map, const char *schema, const char *display) {
  const char *names[MAX_CHILDREN];
  size_t n = cfg_key_children(schema, names, MAX_CHILDREN);
  for (uint32_t i = 0; i < map->n; i++) {
    const cfg_entry *e = &map->entries[i];
    bool known = false;
    for (size_t k = 0; k < n && !known; k++) known = !strcmp(e->canon, names[k]);
    if (known) continue;
    v->unknown_keys++;
    const char *full = cfg_join(v, display, e->key);
    const char *sug = mp_suggest(e->key, names, n);
    if (sug) {
      cfg_err_at(v, e->src, e->line, e->column, full,
                 "unknown key '%s' " DASH " did you mean '%s'?", full, cfg_join(v, display, sug));
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
      cfg_err_at(v, e->src, e->line, e->column, full,
                 "unknown key '%s' " DASH " did you mean '%s'?", full, elsewhere);
      continue;
    }
    cfg_err_at(v, e->src, e->line, e->column, full, "unknown key '%s' (valid %s%s%s: %s)", full,
               *display ? "keys under '" : "top-level keys", display, *display ? "'" : "",
               cfg_name_list(v, names, n));
  }
}

/* ---- typed readers -------------------------------------------------------------
 * Each returns false after reporting when the node does not fit its key. */

bool cfg_want_map(cfg_vctx *v, const cfg_node *n, const char *path) {
  if (n->kind == CFG_MAP) return true;
  cfg_err(v, n, path, "'%s' must be a mapping, not %s", path, cfg_shown(v, n));
  return false;
}

bool cfg_read_string(cfg_vctx *v, const cfg_node *n, const char *path, const char **out) {
  if (n->kind == CFG_MAP || n->kind == CFG_SEQ || n->kind == CFG_NULL) {
    cfg_err(v, n, path, "'%s' must be a string, not %s", path, cfg_shown(v, n));
    return false;
  }
  if (!n->text || !*n->text) {
    cfg_err(v, n, path, "'%s' must not be empty", path);
    return false;
  }
  *out = n->text;
  return true;
}

/* A non-negative integer up to `max`. */
bool cfg_read_uint(cfg_vctx *v, const cfg_node *n, const char *path, uint64_t max, uint64_t *out) {
  if (n->kind != CFG_INT) {
    if (n->kind == CFG_STR && n->quoted)
      cfg_err(v, n, path, "'%s' must be an integer, not the string %s", path, cfg_shown(v, n));
    else
      cfg_err(v, n, path, "'%s' must be a non-negative integer, not %s", path, cfg_shown(v, n));
    return false;
  }
  if (n->negative) {
    cfg_err(v, n, path, "'%s' must be a non-negative integer, not %s", path, n->text);
    return false;
  }
  if (n->overflow || n->mag > max) {
    if (max < 1000000)
      cfg_err(v, n, path, "'%s' must be an integer from 0 to %llu, not %s", path,
              (unsigned long long)max, n->text);
    else
      cfg_err(v, n, path, "'%s' is %s, more than the largest allowed value %llu", path, n->text,
              (unsigned long long)max);
    return false;
  }
  *out = n->mag;
  return true;
}

/* A size in bytes: an integer, or a number with a KiB/MiB/GiB (or K/M/G)
 * suffix. */
bool cfg_read_size(cfg_vctx *v, const cfg_node *n, const char *path, uint64_t *out) {
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
      cfg_err(v, n, path, "'%s' must be a size in bytes (262144, 256KiB, 1MiB), not %s", path,
              cfg_shown(v, n));
      return false;
    }
    if (errno || num > MAX_SIZE_BYTES / mul) {
      cfg_err(v, n, path, "'%s' is %s, more than 2^40 bytes (1 TiB): surely a mistake", path,
              n->text);
      return false;
    }
    val = num * mul;
  } else if (n->kind == CFG_INT) {
    if (n->negative) {
      cfg_err(v, n, path, "'%s' must be a non-negative size in bytes, not %s", path, n->text);
      return false;
    }
    if (n->overflow || n->mag > MAX_SIZE_BYTES) {
      cfg_err(v, n, path, "'%s' is %s bytes, more than 2^40 (1 TiB): surely a mistake", path,
              n->text);
      return false;
    }
    val = n->mag;
  } else {
    cfg_err(v, n, path, "'%s' must be a size in bytes (262144, 256KiB, 1MiB), not %s", path,
            cfg_shown(v, n));
    return false;
  }
  *out = val;
  return true;
}

bool cfg_read_align(cfg_vctx *v, const cfg_node *n, const char *path, uint32_t *out) {
  uint64_t a;
  if (!cfg_read_uint(v, n, path, UINT32_MAX, &a)) return false;
  if (!mp_is_pow2(a) || a > MAX_ALIGN) {
    cfg_err(v, n, path, "'%s' must be a power of two from 1 to %u, not %s", path, MAX_ALIGN,
            n->text);
    return false;
  }
  *out = (uint32_t)a;
  return true;
}

bool cfg_read_bool(cfg_vctx *v, const cfg_node *n, const char *path, bool *out) {
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
  cfg_err(v, n, path, "'%s' must be true or false, not %s", path, cfg_shown(v, n));
  return false;
}

/* The names of the memories pf has, for suggestions. */
size_t cfg_present_names(const mp_platform *pf, const char **names) {
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n = mp_platform_by_name(pf, by_name);
  for (uint32_t i = 0; i < n; i++) names[i] = mp_platform_memory_name(pf, by_name[i]);
  return n;
}

/* Memories a platform has, as a list for messages. */
const char *cfg_platform_memories(cfg_vctx *v, const mp_platform *pf) {
  const char *names[MP_MEM_COUNT];
  size_t n = cfg_present_names(pf, names);
  return n ? cfg_name_list(v, names, n) : "none";
}

/* A memory name, looked up on pf (the five seed names always resolve; the
 * caller checks presence with memory_on_platform). */
bool cfg_read_memory(cfg_vctx *v, const cfg_node *n, const char *path, const mp_platform *pf,
                     mp_memory *out) {
  if (n->kind == CFG_STR && n->text && mp_platform_find_memory(pf, n->text, out)) return true;
  const char *names[MP_MEM_COUNT];
  size_t nn = cfg_present_names(pf, names);
  if (n->kind == CFG_STR && n->text) {
    const char *sug = mp_suggest(n->text, names, nn);
    if (sug)
      cfg_err(v, n, path, "'%s': unknown memory %s " DASH " did you mean '%s'?", path,
              cfg_shown(v, n), sug);
    else
      cfg_err(v, n, path, "'%s': unknown memory %s (platform '%s' has %s)", path, cfg_shown(v, n),
              pf->name, cfg_platform_memories(v, pf));
  } else {
    cfg_err(v, n, path, "'%s' must be a memory name (platform '%s' has %s), not %s", path, pf->name,
            cfg_platform_memories(v, pf), cfg_shown(v, n));
  }
  return false;
}

bool cfg_memory_on_platform(cfg_vctx *v, const cfg_node *n, const char *path, mp_memory m,
                            const mp_platform *pf) {
  if (pf->present[m]) return true;
  cfg_err(v, n, path, "'%s' is %s, which platform '%s' does not have (it has %s)", path,
          mp_platform_memory_name(pf, m), pf->name, cfg_platform_memories(v, pf));
  return false;
}

/* ---- paths -------------------------------------------------------------------- */

/* Relative paths written in a file resolve against its folder. */
char *cfg_resolve_path(cfg_vctx *v, const cfg_node *n, const char *p) {
  const char *dir = n && n->src ? n->src->dir : NULL;
  if (p[0] == '/' || !dir || !*dir) return mp_pool_strdup(v->pool, p);
  return mp_pool_printf(v->pool, "%s/%s", dir, p);
}

/* The folder of `path` ("cfg/x.yaml" -> "cfg"), NULL for the cwd. */
const char *cfg_dir_of(mp_pool *pool, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return NULL;
  if (slash == path) return "/";
  return mp_pool_strndup(pool, path, (size_t)(slash - path));
}
