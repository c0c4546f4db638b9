/*
 * config_tree.c — YAML and JSON into one document tree with positions.
 *
 * The config file is read with libyaml's event API (not its document API)
 * so that every key and value keeps its line and column; values given on the
 * command line as JSON are read with jansson.  Both end in the same cfg_node
 * tree, so one validator serves the file and the command line, and every
 * error can point at its source: file:line:column with the line's text, or
 * the argument it came from.
 *
 * Plain YAML scalars are resolved like YAML 1.2's core schema (null, true /
 * false, integers in decimal, 0x hex or 0o octal, floats, else strings);
 * quoted scalars and JSON strings stay strings.  Whether a value fits its key
 * is not decided here but by the validator (config.c).
 *
 * Deliberately unsupported: aliases (a config is small, and aliases open the
 * door to exponential expansion), several documents in one file, and keys
 * that are not scalars.
 */
#include "config/config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- nodes ----------------------------------------------------------------- */

cfg_node *cfg_new(mp_pool *pool, cfg_kind kind, const cfg_src *src) {
  cfg_node *n = mp_pool_alloc(pool, 1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->src = src;
  return n;
}

char *cfg_canon(mp_pool *pool, const char *key) {
  char *c = mp_pool_strdup(pool, key);
  for (char *p = c; p && *p; p++)
    if (*p == '-') *p = '_';
  return c;
}

static bool is_digits(const char *s, const char *set) {
  if (!*s) return false;
  for (; *s; s++)
    if (!strchr(set, *s)) return false;
  return true;
}

/* Magnitude of digits in `base`; sets *overflow above 2^64-1. */
static uint64_t parse_mag(const char *s, unsigned base, bool *overflow) {
  uint64_t v = 0;
  *overflow = false;
  for (; *s; s++) {
    unsigned d = (*s >= '0' && *s <= '9') ? (unsigned)(*s - '0')
                 : (*s >= 'a' && *s <= 'f') ? (unsigned)(*s - 'a' + 10)
                                            : (unsigned)(*s - 'A' + 10);
    if (v > (UINT64_MAX - d) / base) {
      *overflow = true;
      return UINT64_MAX;
    }
    v = v * base + d;
  }
  return v;
}

static bool is_float(const char *s) {
  if (*s == '+' || *s == '-') s++;
  if (!strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF")) return true;
  if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) return true;
  bool digits = false;
  while (*s >= '0' && *s <= '9') s++, digits = true;
  if (*s == '.') {
    s++;
    while (*s >= '0' && *s <= '9') s++, digits = true;
  }
  if (!digits) return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return false;
    while (*s >= '0' && *s <= '9') s++;
  }
  return *s == '\0';
}

cfg_node *cfg_scalar(mp_pool *pool, const cfg_src *src, const char *text, bool quoted) {
  cfg_node *n = cfg_new(pool, CFG_STR, src);
  if (!n) return NULL;
  n->text = mp_pool_strdup(pool, text);
  if (!n->text) return NULL;
  n->quoted = quoted;
  if (quoted) return n;
  const char *t = text;
  if (!*t || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") || !strcmp(t, "NULL")) {
    n->kind = CFG_NULL;
  } else if (!strcmp(t, "true") || !strcmp(t, "True") || !strcmp(t, "TRUE")) {
    n->kind = CFG_BOOL;
    n->b = true;
  } else if (!strcmp(t, "false") || !strcmp(t, "False") || !strcmp(t, "FALSE")) {
    n->kind = CFG_BOOL;
    n->b = false;
  } else {
    const char *d = t;
    bool neg = false;
    if (*d == '-' || *d == '+') neg = *d++ == '-';
    if ((d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) && is_digits(d + 2, "0123456789abcdefABCDEF")) {
      n->kind = CFG_INT;
      n->mag = parse_mag(d + 2, 16, &n->overflow);
    } else if (d[0] == '0' && d[1] == 'o' && is_digits(d + 2, "01234567")) {
      n->kind = CFG_INT;
      n->mag = parse_mag(d + 2, 8, &n->overflow);
    } else if (is_digits(d, "0123456789")) {
      n->kind = CFG_INT;
      n->mag = parse_mag(d, 10, &n->overflow);
    } else if (is_float(t)) {
      n->kind = CFG_FLOAT;
    }
    if (n->kind == CFG_INT) n->negative = neg && n->mag != 0;
  }
  return n;
}

bool cfg_map_put(mp_pool *pool, cfg_node *map, const char *key, uint32_t line, uint32_t column,
                 cfg_node *value) {
  if (map->n == map->cap) {
    uint32_t cap = map->cap ? map->cap * 2 : 8;
    cfg_entry *e = mp_pool_alloc(pool, cap, sizeof *e);
    if (!e) return false;
    if (map->n) memcpy(e, map->entries, map->n * sizeof *e);
    map->entries = e;
    map->cap = cap;
  }
  cfg_entry *e = &map->entries[map->n];
  e->key = mp_pool_strdup(pool, key);
  e->canon = cfg_canon(pool, key);
  if (!e->key || !e->canon) return false;
  e->src = map->src;
  e->line = line;
  e->column = column;
  e->value = value;
  map->n++;
  return true;
}

bool cfg_seq_push(mp_pool *pool, cfg_node *seq, cfg_node *item) {
  if (seq->n == seq->cap) {
    uint32_t cap = seq->cap ? seq->cap * 2 : 8;
    cfg_node **it = mp_pool_alloc(pool, cap, sizeof *it);
    if (!it) return false;
    if (seq->n) memcpy(it, seq->items, seq->n * sizeof *it);
    seq->items = it;
    seq->cap = cap;
  }
  seq->items[seq->n++] = item;
  return true;
}

cfg_entry *cfg_map_find(const cfg_node *map, const char *canon) {
  if (!map || map->kind != CFG_MAP) return NULL;
  for (uint32_t i = 0; i < map->n; i++)
    if (!strcmp(map->entries[i].canon, canon)) return &map->entries[i];
  return NULL;
}

const char *cfg_kind_name(cfg_kind k) {
  switch (k) {
  case CFG_NULL: return "null";
  case CFG_BOOL: return "a boolean";
  case CFG_INT: return "an integer";
  case CFG_FLOAT: return "a number with a fraction";
  case CFG_STR: return "a string";
  case CFG_MAP: return "a mapping";
  case CFG_SEQ: return "a list";
  }
  return "a value";
}

/* ---- sources and positions ------------------------------------------------- */

static bool index_lines(mp_pool *pool, cfg_src *src) {
  uint32_t n = 1;
  for (size_t i = 0; i < src->len; i++)
    if (src->text[i] == '\n') n++;
  uint32_t *ls = mp_pool_alloc(pool, n, sizeof *ls);
  if (!ls) return false;
  uint32_t k = 0;
  ls[k++] = 0;
  for (size_t i = 0; i < src->len; i++)
    if (src->text[i] == '\n') ls[k++] = (uint32_t)(i + 1);
  src->line_start = ls;
  src->n_lines = n;
  return true;
}

const char *cfg_source_line(mp_pool *pool, const cfg_src *src, uint32_t line) {
  if (!src || !src->text || !src->line_start || line == 0 || line > src->n_lines) return NULL;
  size_t a = src->line_start[line - 1], b = a;
  while (b < src->len && src->text[b] != '\n' && src->text[b] != '\0') b++;
  if (b > a && src->text[b - 1] == '\r') b--;
  if (b - a > 400) return NULL; /* not worth echoing */
  return mp_pool_strndup(pool, src->text + a, b - a);
}

/* 1-based line and column of byte offset `off`. */
static void offset_pos(const cfg_src *src, size_t off, uint32_t *line, uint32_t *col) {
  uint32_t lo = 0, hi = src->n_lines;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (src->line_start[mid] <= off) lo = mid;
    else hi = mid;
  }
  *line = lo + 1;
  *col = (uint32_t)(off - src->line_start[lo]) + 1;
}

void cfg_vreport(const mp_diag_sink *dx, mp_pool *pool, mp_severity sev, const cfg_src *src,
                 uint32_t line, uint32_t column, const char *key_path, const char *fmt,
                 va_list ap) {
  if (!dx || !dx->fn) return;
  mp_buf msg;
  mp_buf_init(&msg);
  if (src && !src->file && src->arg) mp_buf_printf(&msg, "argument '%s': ", src->arg);
  mp_buf_vprintf(&msg, fmt, ap);
  mp_loc loc = MP_LOC_NONE;
  loc.key_path = key_path;
  if (src) {
    loc.file = src->file;
    loc.line = src->file ? line : 0;
    loc.source_line = cfg_source_line(pool, src, line);
    loc.column = src->file || loc.source_line ? column : 0;
  }
  mp_diag_emit(dx, sev, loc, "%s", msg.failed ? "out of memory" : mp_buf_str(&msg));
  mp_buf_free(&msg);
}

void cfg_report(const mp_diag_sink *dx, mp_pool *pool, mp_severity sev, const cfg_src *src,
                uint32_t line, uint32_t column, const char *key_path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(dx, pool, sev, src, line, column, key_path, fmt, ap);
  va_end(ap);
}

/* ---- YAML ------------------------------------------------------------------ */

typedef struct frame {
  cfg_node *node;
  const char *path;     /* key path of the node ("memory.constraints[1]") */
  bool has_key;         /* maps: a key is waiting for its value */
  const char *key;
  uint32_t key_line, key_col;
} frame;

typedef struct yaml_ctx {
  mp_pool *pool;
  cfg_src *src;
  const mp_diag_sink *dx;
  frame stack[CFG_MAX_DEPTH + 1];
  uint32_t depth;
  cfg_node *root;
  bool failed;
  bool nomem;
} yaml_ctx;

static void yerr(yaml_ctx *y, uint32_t line, uint32_t col, const char *path, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));
static void yerr(yaml_ctx *y, uint32_t line, uint32_t col, const char *path, const char *fmt,
                 ...) {
  va_list ap;
  va_start(ap, fmt);
  cfg_vreport(y->dx, y->pool, MP_SEV_ERROR, y->src, line, col, path, fmt, ap);
  va_end(ap);
  y->failed = true;
}

static const char *child_path(yaml_ctx *y, const frame *f, const char *key) {
  if (f->node->kind == CFG_SEQ)
    return mp_pool_printf(y->pool, "%s[%u]", f->path, f->node->n);
  char *canon = cfg_canon(y->pool, key);
  return *f->path ? mp_pool_printf(y->pool, "%s.%s", f->path, canon ? canon : key) : canon;
}

/* Attach a finished value (scalar or a just-opened container) to the top
 * frame.  Returns the key path the value got. */
static const char *attach(yaml_ctx *y, cfg_node *n, uint32_t line, uint32_t col) {
  if (y->depth == 0) {
    y->root = n;
    return "";
  }
  frame *f = &y->stack[y->depth - 1];
  if (f->node->n >= CFG_MAX_ITEMS) {
    yerr(y, line, col, f->path, "more than %u entries in one %s", CFG_MAX_ITEMS,
         f->node->kind == CFG_SEQ ? "list" : "mapping");
    return f->path;
  }
  if (f->node->kind == CFG_SEQ) {
    const char *p = child_path(y, f, NULL);
    if (!cfg_seq_push(y->pool, f->node, n)) y->nomem = true;
    return p;
  }
  if (!f->has_key) {
    /* n is a key */
    if (n->kind == CFG_MAP || n->kind == CFG_SEQ) {
      yerr(y, line, col, f->path, "a key must be plain text, not %s", cfg_kind_name(n->kind));
      f->has_key = true;
      f->key = "";
      return f->path;
    }
    f->has_key = true;
    f->key = n->text;
    f->key_line = line;
    f->key_col = col;
    return f->path;
  }
  const char *p = child_path(y, f, f->key);
  char *canon = cfg_canon(y->pool, f->key);
  cfg_entry *dup = canon ? cfg_map_find(f->node, canon) : NULL;
  if (!p || !canon) {
    y->nomem = true;
  } else if (dup) {
    yerr(y, f->key_line, f->key_col, p, "duplicate key '%s' (first given at line %u)", p,
         dup->line);
  } else if (!*f->key) {
    yerr(y, f->key_line, f->key_col, f->path, "empty key");
  } else if (!cfg_map_put(y->pool, f->node, f->key, f->key_line, f->key_col, n)) {
    y->nomem = true;
  }
  f->has_key = false;
  return p;
}

static void yaml_problem(yaml_ctx *y, const yaml_parser_t *ps) {
  uint32_t line, col;
  if (ps->error == YAML_READER_ERROR) {
    offset_pos(y->src, ps->problem_offset < y->src->len ? ps->problem_offset : y->src->len, &line,
               &col);
  } else {
    line = (uint32_t)ps->problem_mark.line + 1;
    col = (uint32_t)ps->problem_mark.column + 1;
  }
  char ctx[160] = "";
  if (ps->context)
    snprintf(ctx, sizeof ctx, " (%s started at line %u, column %u)", ps->context,
             (unsigned)ps->context_mark.line + 1, (unsigned)ps->context_mark.column + 1);
  if (ps->error == YAML_MEMORY_ERROR) {
    y->nomem = true;
    return;
  }
  /* the most common cause of "cannot start any token": a tab */
  const char *hint = "";
  if (line >= 1 && line <= y->src->n_lines) {
    size_t at = y->src->line_start[line - 1];
    for (size_t k = at; k < y->src->len && y->src->text[k] != '\n'; k++)
      if (y->src->text[k] == '\t' && k < at + col) hint = "; YAML indents with spaces, not tabs";
  }
  yerr(y, line, col, NULL, "malformed YAML: %s%s%s", ps->problem ? ps->problem : "syntax error",
       ctx, hint);
}

mp_status cfg_load_yaml(mp_pool *pool, cfg_src *src, const mp_diag_sink *dx, cfg_node **out) {
  *out = NULL;
  if (!index_lines(pool, src)) return MP_ERR_NOMEM;
  yaml_ctx *y = calloc(1, sizeof *y);
  if (!y) return MP_ERR_NOMEM;
  y->pool = pool;
  y->src = src;
  y->dx = dx;
  yaml_parser_t ps;
  if (!yaml_parser_initialize(&ps)) {
    free(y);
    return MP_ERR_NOMEM;
  }
  yaml_parser_set_input_string(&ps, (const unsigned char *)src->text, src->len);
  unsigned docs = 0;
  bool done = false;
  while (!done && !y->failed && !y->nomem) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&ps, &ev)) {
      yaml_problem(y, &ps);
      break;
    }
    uint32_t line = (uint32_t)ev.start_mark.line + 1, col = (uint32_t)ev.start_mark.column + 1;
    switch (ev.type) {
    case YAML_STREAM_END_EVENT: done = true; break;
    case YAML_DOCUMENT_START_EVENT:
      if (++docs > 1)
        yerr(y, line, col, NULL, "a second YAML document: a config is one document");
      break;
    case YAML_ALIAS_EVENT:
      yerr(y, line, col, NULL, "YAML alias '*%s' is not supported: write the value out",
           (const char *)ev.data.alias.anchor);
      break;
    case YAML_SCALAR_EVENT: {
      const char *tag = (const char *)ev.data.scalar.tag;
      bool quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                    (tag && !strcmp(tag, YAML_STR_TAG));
      char *text = mp_pool_strndup(pool, (const char *)ev.data.scalar.value, ev.data.scalar.length);
      cfg_node *n = text ? cfg_scalar(pool, src, text, quoted) : NULL;
      if (!n) {
        y->nomem = true;
        break;
      }
      n->line = line;
      n->column = col;
      attach(y, n, line, col);
      break;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      cfg_node *n = cfg_new(pool, ev.type == YAML_SEQUENCE_START_EVENT ? CFG_SEQ : CFG_MAP, src);
      if (!n) {
        y->nomem = true;
        break;
      }
      n->line = line;
      n->column = col;
      bool is_key = y->depth > 0 && y->stack[y->depth - 1].node->kind == CFG_MAP &&
                    !y->stack[y->depth - 1].has_key;
      const char *path = attach(y, n, line, col);
      if (y->depth >= CFG_MAX_DEPTH) {
        yerr(y, line, col, path, "the config nests deeper than %d levels", CFG_MAX_DEPTH);
        break;
      }
      y->stack[y->depth++] = (frame){n, is_key ? "" : path ? path : "", false, NULL, 0, 0};
      break;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      if (y->depth) y->depth--;
      break;
    default: break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&ps);
  mp_status st = y->nomem ? MP_ERR_NOMEM : y->failed ? MP_ERR_CONFIG : MP_OK;
  cfg_node *root = y->root;
  free(y);
  if (st != MP_OK) return st;
  if (!root || root->kind == CFG_NULL) {
    root = cfg_new(pool, CFG_MAP, src);
    if (!root) return MP_ERR_NOMEM;
  }
  if (root->kind != CFG_MAP) {
    cfg_report(dx, pool, MP_SEV_ERROR, src, root->line, root->column, NULL,
               "the config must be a mapping of keys (model, module, platform, memory, "
               "verbose), not %s",
               cfg_kind_name(root->kind));
    return MP_ERR_CONFIG;
  }
  *out = root;
  return MP_OK;
}

/* ---- JSON ------------------------------------------------------------------ */

/* The number tokens of a JSON text, in order, so that messages quote a
 * value as it was written ("1e3", not "1000").  jansson keeps objects in
 * the order written, so from_json meets the numbers in this order. */
typedef struct json_numbers {
  const char **text;
  size_t n, next;
} json_numbers;

static void scan_numbers(mp_pool *pool, const char *s, json_numbers *nums) {
  size_t cap = 0;
  for (const char *p = s; *p; p++) cap += *p == '-' || (*p >= '0' && *p <= '9');
  nums->text = cap ? mp_pool_alloc(pool, cap, sizeof(char *)) : NULL;
  nums->n = nums->next = 0;
  if (cap && !nums->text) return;
  for (const char *p = s; *p;) {
    if (*p == '"') { /* skip a string, escapes included */
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
      if (*p) p++;
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
      const char *e = p + 1;
      while (*e && strchr("0123456789+-.eE", *e)) e++;
      const char *t = mp_pool_strndup(pool, p, (size_t)(e - p));
      if (t && nums->n < cap) nums->text[nums->n++] = t;
      p = e;
    } else {
      p++;
    }
  }
}

/* The next number as written, or `fallback` when the scan lost count. */
static const char *written(json_numbers *nums, const char *fallback) {
  return nums && nums->next < nums->n ? nums->text[nums->next++] : fallback;
}

static cfg_node *from_json(mp_pool *pool, const cfg_src *src, json_t *j, uint32_t depth,
                           bool *too_deep, const char **dup, json_numbers *nums) {
  if (depth > CFG_MAX_DEPTH) {
    *too_deep = true;
    return NULL;
  }
  cfg_node *n = NULL;
  switch (json_typeof(j)) {
  case JSON_OBJECT: {
    if (json_object_size(j) > CFG_MAX_ITEMS) {
      *too_deep = true;
      return NULL;
    }
    n = cfg_new(pool, CFG_MAP, src);
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) {
      cfg_node *c = from_json(pool, src, v, depth + 1, too_deep, dup, nums);
      char *canon = cfg_canon(pool, k);
      if (canon && n && cfg_map_find(n, canon)) {
        *dup = mp_pool_strdup(pool, k);
        return NULL;
      }
      if (!n || !c || !cfg_map_put(pool, n, k, 0, 0, c)) return NULL;
    }
    break;
  }
  case JSON_ARRAY: {
    if (json_array_size(j) > CFG_MAX_ITEMS) {
      *too_deep = true;
      return NULL;
    }
    n = cfg_new(pool, CFG_SEQ, src);
    size_t i;
    json_t *v;
    json_array_foreach(j, i, v) {
      cfg_node *c = from_json(pool, src, v, depth + 1, too_deep, dup, nums);
      if (!n || !c || !cfg_seq_push(pool, n, c)) return NULL;
    }
    break;
  }
  case JSON_STRING: n = cfg_scalar(pool, src, json_string_value(j), true); break;
  case JSON_INTEGER: {
    json_int_t v = json_integer_value(j);
    n = cfg_new(pool, CFG_INT, src);
    if (n) {
      n->negative = v < 0;
      n->mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
      n->text = written(nums, mp_pool_printf(pool, "%lld", (long long)v));
    }
    break;
  }
  case JSON_REAL:
    n = cfg_new(pool, CFG_FLOAT, src);
    if (n) n->text = written(nums, mp_pool_printf(pool, "%g", json_real_value(j)));
    break;
  case JSON_TRUE:
  case JSON_FALSE:
    n = cfg_new(pool, CFG_BOOL, src);
    if (n) {
      n->b = json_is_true(j);
      n->text = n->b ? "true" : "false";
    }
    break;
  case JSON_NULL:
    n = cfg_new(pool, CFG_NULL, src);
    if (n) n->text = "null";
    break;
  }
  return n;
}

mp_status cfg_load_json(mp_pool *pool, const cfg_src *src, const char *text, const char *key_path,
                        const mp_diag_sink *dx, cfg_node **out) {
  *out = NULL;
  json_error_t err;
  json_t *j = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
  if (!j) {
    cfg_src at = *src; /* the value's text, for the caret */
    at.text = text;
    at.len = strlen(text);
    if (!index_lines(pool, &at)) return MP_ERR_NOMEM;
    cfg_report(dx, pool, MP_SEV_ERROR, &at, (uint32_t)(err.line > 0 ? err.line : 1),
               (uint32_t)(err.column > 0 ? err.column : 0), key_path, "malformed JSON: %s", err.text);
    return MP_ERR_CONFIG;
  }
  bool too_deep = false;
  const char *dup = NULL;
  json_numbers nums;
  scan_numbers(pool, text, &nums);
  cfg_node *n = from_json(pool, src, j, 0, &too_deep, &dup, &nums);
  json_decref(j);
  if (too_deep) {
    cfg_report(dx, pool, MP_SEV_ERROR, src, 0, 0, key_path,
               "the value nests deeper than %d levels or has more than %u entries", CFG_MAX_DEPTH,
               CFG_MAX_ITEMS);
    return MP_ERR_CONFIG;
  }
  if (dup) {
    cfg_report(dx, pool, MP_SEV_ERROR, src, 0, 0, key_path,
               "duplicate key '%s' (kebab-case and snake_case name the same key)", dup);
    return MP_ERR_CONFIG;
  }
  if (!n) return MP_ERR_NOMEM;
  *out = n;
  return MP_OK;
}
