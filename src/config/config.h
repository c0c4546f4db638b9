/*
 * config.h — internals of the configuration loader (the files of
 * src/config).
 *
 * The loader works in steps, one file each:
 *   tree.c       YAML (libyaml) and JSON (jansson) into one document tree
 *                whose every node remembers where it came from (file,
 *                line, column, or the command-line argument);
 *   schema.c     the one table of keys: what is allowed where, types,
 *                defaults and meanings; drives validation, the CLI and
 *                --help; plus did-you-mean suggestions;
 *   args.c       argv into overrides of the tree;
 *   config.c     the one validation pass from the tree into an mp_config,
 *                section by section, with the typed readers of values.c
 *                and the platform section of platform_section.c;
 *   platform.c   the built-in platforms; rules.c the tensor rulesets
 *                resolved against a model.
 */
#ifndef MP_CONFIG_H
#define MP_CONFIG_H

#include "util/diag.h"
#include "util/util.h"

/* ---- the document tree ---------------------------------------------------- */

typedef enum cfg_kind {
  CFG_NULL,
  CFG_BOOL,
  CFG_INT,
  CFG_FLOAT,
  CFG_STR,
  CFG_MAP,
  CFG_SEQ,
} cfg_kind;

/* Where a node came from: a line of a file, or a command-line argument. */
typedef struct cfg_src {
  const char *file;      /* config file as given, NULL for the command line */
  const char *dir;       /* folder relative paths resolve against, NULL = cwd */
  const char *text;      /* the file's bytes (NUL-terminated), or NULL */
  size_t len;
  uint32_t n_lines;
  const uint32_t *line_start; /* byte offset of each line */
  const char *arg;       /* the argument ("--memory.tensors"), CLI only */
} cfg_src;

typedef struct cfg_node cfg_node;

typedef struct cfg_entry {
  const char *key;       /* as written */
  const char *canon;     /* kebab-case folded to snake_case */
  const cfg_src *src;    /* where the key was written */
  uint32_t line, column; /* of the key; 0 when unknown */
  cfg_node *value;
} cfg_entry;

struct cfg_node {
  cfg_kind kind;
  const cfg_src *src;
  uint32_t line, column; /* 1-based; 0 when unknown (JSON from the CLI) */
  const char *text;      /* scalars: the text as written */
  bool quoted;           /* scalars: quoted in YAML or a JSON string */
  bool b;                /* CFG_BOOL */
  bool negative;         /* CFG_INT: sign */
  bool overflow;         /* CFG_INT: magnitude above 2^64-1 */
  uint64_t mag;          /* CFG_INT: magnitude */
  uint32_t n;            /* entries of a map, items of a sequence */
  uint32_t cap;
  cfg_entry *entries;    /* CFG_MAP */
  cfg_node **items;      /* CFG_SEQ */
};

/* Limits that keep hostile input cheap. */
#define CFG_MAX_DEPTH 64
#define CFG_MAX_FILE (16u * 1024u * 1024u)
#define CFG_MAX_ITEMS 10000u /* entries of one mapping or list */

/* Load a YAML document into a tree allocated from `pool`.  An empty
 * document yields an empty map.  Reports malformed YAML (line:column),
 * aliases, several documents, a non-mapping top level, duplicate keys and
 * nesting deeper than CFG_MAX_DEPTH; returns MP_ERR_CONFIG for all. */
mp_status cfg_load_yaml(mp_pool *pool, cfg_src *src, const mp_diag_sink *dx, cfg_node **out);

/* Parse a JSON value given on the command line as the argument `src->arg`
 * for key `key_path`.  Malformed JSON is reported with its line and column. */
mp_status cfg_load_json(mp_pool *pool, const cfg_src *src, const char *text, const char *key_path,
                        const mp_diag_sink *dx, cfg_node **out);

/* A scalar node as a YAML plain scalar would resolve it (null, bool, int,
 * float, else string). */
cfg_node *cfg_scalar(mp_pool *pool, const cfg_src *src, const char *text, bool quoted);
cfg_node *cfg_new(mp_pool *pool, cfg_kind kind, const cfg_src *src);
/* Append to a map or sequence; false on allocation failure. */
bool cfg_map_put(mp_pool *pool, cfg_node *map, const char *key, uint32_t line, uint32_t column,
                 cfg_node *value);
bool cfg_seq_push(mp_pool *pool, cfg_node *seq, cfg_node *item);
/* The entry whose canonical key is `canon`, or NULL. */
cfg_entry *cfg_map_find(const cfg_node *map, const char *canon);
/* kebab-case to snake_case, in the pool. */
char *cfg_canon(mp_pool *pool, const char *key);
/* Name of a node kind for messages ("a mapping", "an integer"). */
const char *cfg_kind_name(cfg_kind k);

/* The text of line `line` (1-based) of a file source, without its newline,
 * in the pool; NULL when unknown. */
const char *cfg_source_line(mp_pool *pool, const cfg_src *src, uint32_t line);

/* Report a diagnostic at line:column of a source: "file:line:col" with the
 * line's text for a file; "argument '--x': ..." for the command line. */
void cfg_report(const mp_diag_sink *dx, mp_pool *pool, mp_severity sev, const cfg_src *src,
                uint32_t line, uint32_t column, const char *key_path, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
void cfg_vreport(const mp_diag_sink *dx, mp_pool *pool, mp_severity sev, const cfg_src *src,
                 uint32_t line, uint32_t column, const char *key_path, const char *fmt,
                 va_list ap);

/* ---- the key schema --------------------------------------------------------- */

typedef enum cfg_type {
  T_SECTION,   /* a mapping of further keys */
  T_STRING,
  T_PATH,      /* a string; relative paths resolve against the config's folder */
  T_IDENT,     /* a C identifier */
  T_UINT,      /* a non-negative integer */
  T_VERBOSE,   /* 0..3 */
  T_BOOL,
  T_SIZE,      /* bytes: integer, or with a KiB/MiB/GiB suffix */
  T_ALIGN,     /* a power of two, 1..4096 */
  T_PLATFORM,  /* a built-in name, or a mapping */
  T_MEMSIZES,  /* mapping memory -> bytes */
  T_MEMORY,    /* a memory name */
  T_MEMLIST,   /* list of memory names */
  T_PLANNER,   /* a planner name */
  T_TARGET,    /* a module.target name */
  T_OPTIONS,   /* mapping option -> integer, checked against the planner */
  T_LIST,      /* list of mappings (constraints, rulesets) */
  T_RULETYPE,  /* "*", scratch, persistent, constant */
  T_IDS,       /* null, or list of tensor indices / names */
  T_PATCH,     /* off, auto, or a mapping (memory.patch) */
  T_INPLACE,   /* a boolean, speed or size (memory.in_place) */
} cfg_type;

typedef struct cfg_key {
  const char *path;      /* snake_case; "[]" marks a list element */
  cfg_type type;
  const char *type_name; /* for --help */
  const char *def;       /* default, for --help; NULL = none */
  const char *help;      /* meaning, from the seeds where they have it */
} cfg_key;

/* The key table, in --help order. */
const cfg_key *cfg_keys(size_t *n);
/* The row of schema path `path` ("memory.planner"), or NULL. */
const cfg_key *cfg_key_find(const char *path);
/* Children of schema path `parent` ("" for the top level): fills names
 * (the last path component) up to `max`, returns how many. */
size_t cfg_key_children(const char *parent, const char **names, size_t max);


/* ---- platforms -------------------------------------------------------------- */

/* Set p->order to the default preference over the memories p has: dtcm,
 * sram, psram, the other writable memories but itcm by name, then the
 * read-only ones by name. */
void mp_platform_default_order(mp_platform *p);

/* ---- reading values (values.c) ------------------------------------------------ */

#define DASH "\xe2\x80\x94" /* an em dash, as in every did-you-mean message */

/* One validation: every problem is reported (not only the first) and
 * counted; nothing stops at an error. */
typedef struct cfg_vctx {
  mp_pool *pool;            /* the config's pool */
  const mp_diag_sink *dx;
  unsigned errors;
  unsigned unknown_keys;    /* of those, unknown keys (a typo explains what is missing) */
  bool nomem;
} cfg_vctx;

/* ---- reporting: an error at a place (file line and column, or the
 * command-line argument src), an error about a value node, a warning */
void cfg_err_at(cfg_vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void cfg_err(cfg_vctx *v, const cfg_node *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cfg_warn(cfg_vctx *v, const cfg_src *src, uint32_t line, uint32_t col, const char *path,
              const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- texts for messages, in the pool ("?" or "" when it is full) */
/* "a.b" ("b" when a is empty) and "a[i]" */
const char *cfg_join(cfg_vctx *v, const char *a, const char *b);
const char *cfg_index_path(cfg_vctx *v, const char *a, uint32_t i);
/* "a, b and c" */
const char *cfg_name_list(cfg_vctx *v, const char *const *names, size_t n);
/* a value as written (scalars), else its kind */
const char *cfg_shown(cfg_vctx *v, const cfg_node *n);

/* Report each key of `map` the key table does not allow under schema path
 * `schema` ("" for the top level), with a did-you-mean; `display` is the
 * map's key path in messages ("memory.constraints[1]"). */
void cfg_check_keys(cfg_vctx *v, const cfg_node *map, const char *schema, const char *display);

/* ---- typed readers: each returns false after reporting when the node
 * does not fit its key */
bool cfg_want_map(cfg_vctx *v, const cfg_node *n, const char *path);
bool cfg_read_string(cfg_vctx *v, const cfg_node *n, const char *path, const char **out);
bool cfg_read_uint(cfg_vctx *v, const cfg_node *n, const char *path, uint64_t max, uint64_t *out);
/* a byte count: an integer, or a number with a KiB/MiB/GiB (K/M/G) or B
 * suffix */
bool cfg_read_size(cfg_vctx *v, const cfg_node *n, const char *path, uint64_t *out);
/* a power of two up to 4096 */
bool cfg_read_align(cfg_vctx *v, const cfg_node *n, const char *path, uint32_t *out);
bool cfg_read_bool(cfg_vctx *v, const cfg_node *n, const char *path, bool *out);

/* ---- memories of a platform */
/* the names of the memories pf has (names: MP_MEM_COUNT entries) */
size_t cfg_present_names(const mp_platform *pf, const char **names);
/* the same as a list for messages, "none" when it has none */
const char *cfg_platform_memories(cfg_vctx *v, const mp_platform *pf);
/* a memory name looked up on pf; _on_platform: pf has memory m */
bool cfg_read_memory(cfg_vctx *v, const cfg_node *n, const char *path, const mp_platform *pf,
                     mp_memory *out);
bool cfg_memory_on_platform(cfg_vctx *v, const cfg_node *n, const char *path, mp_memory m,
                            const mp_platform *pf);

/* ---- paths: a relative path written in a file resolves against the
 * file's folder (n's place); the folder of a path, NULL for the cwd */
char *cfg_resolve_path(cfg_vctx *v, const cfg_node *n, const char *p);
const char *cfg_dir_of(mp_pool *pool, const char *path);

/* ---- the command line (args.c) ------------------------------------------------ */

/* One `--dotted.key VALUE`: the key's canonical path and its value node,
 * whose place is the argument. */
typedef struct cfg_override {
  char **comps;             /* canonical key path components */
  uint32_t n_comps;
  cfg_node *value;
  const cfg_src *src;
} cfg_override;

/* The command line: --path's config file, and the overrides in order. */
typedef struct cfg_args {
  const char *config_path;
  cfg_override *ov;
  uint32_t n_ov;
} cfg_args;

/* Read argv[1..argc) into a (in v's pool), reporting every unknown key or
 * bad value; the command's own flags (--path, --report, --force,
 * --allow-unsupported) go to a and c. */
void cfg_parse_args(cfg_vctx *v, int argc, char **argv, cfg_args *a, mp_config *c);
/* Write override o into the tree at root, making the maps on its path;
 * false when the pool is full. */
bool cfg_apply_override(cfg_vctx *v, cfg_node *root, const cfg_override *o);

/* ---- the platform section (platform_section.c) -------------------------------- */

/* The platform of the config tree at root into pf: the default platform
 * when there is no `platform:` key; every problem reported to v. */
void cfg_read_platform(cfg_vctx *v, const cfg_node *root, mp_platform *pf);

/* ---- entry point for tests and the fuzzer ------------------------------------- */

/* mp_config_from_args with the config file's contents given in memory:
 * `text` (len bytes) stands for the file `name`, whose folder anchors
 * relative paths.  argv may hold further overrides (argv[0] is skipped). */
mp_status mp_config_from_text(const char *text, size_t len, const char *name, int argc,
                              char **argv, const mp_diag_sink *dx, mp_config **out);

#endif /* MP_CONFIG_H */
