/*
 * text.h — the emit context and the text helpers every part of the
 * emitter writes with (text.c).
 *
 * mp_emit_module (emit.c) first gathers everything the module says into one
 * emit_ctx: the regions in their id order, the bytes of every constant arena
 * laid out at its planned offsets, and the kernel call of every operator.
 * Each part (parts.h) then formats that context into one file's text with
 * the helpers here.  A part includes this header and parts.h, never
 * emit.h: the driver calls the parts, the parts call down into text.c.
 */
#ifndef MP_EMIT_TEXT_H
#define MP_EMIT_TEXT_H

#include "memplan.h"
#include "util/util.h"

/* No region: the descriptor of a tensor without storage. */
#define EMIT_NO_REGION 255u

/* One bindable region of the emitted module.  Regions 0..n_arenas-1 are
 * the plan's arenas in order (role, then memory name: the residency
 * report's region_id); the source blobs of staged constant arenas follow,
 * in arena order. */
typedef struct emit_region {
  uint32_t id;
  uint32_t arena;           /* index into plan->arenas */
  const mp_arena *a;
  bool is_source;           /* the read-only source blob of a staged arena */
  bool is_const;            /* read-only bytes: a cold blob or a staged source */
  bool has_bytes;           /* the module (or a sidecar file) carries its bytes */
  mp_memory memory;         /* the memory its bytes live in */
  uint64_t size;
  uint32_t align;
  char enum_name[128];      /* KWS_REGION_SCRATCH_DTCM */
  char symbol[160];         /* kws_arena_dtcm_buffer */
  char file[192];           /* data/<symbol>.bin when the caller binds it */
  const uint8_t *bytes;     /* has_bytes: size bytes (owned by the context) */
  uint32_t crc32;           /* has_bytes: CRC-32 (zlib's) of the bytes */
  bool shared;              /* a scratch arena bound to the shared buffer `symbol` */
  bool shared_define;       /* shared: this module defines the buffer */
  uint64_t shared_size;     /* shared: the buffer's size, the largest need */
  char shared_size_macro[160]; /* shared: KWS_SHARED_SCRATCH_DTCM_SIZE */
} emit_region;

/* How one operator runs (filled from the lowering by emit_kernels.c). */
typedef struct emit_kernel {
  bool view;                /* an aliased view: a no-op */
  bool noop;                /* runs nothing by design (CALL_ONCE, VAR_HANDLE):
                               a no-op too (view is also set) */
  bool has_kernel;          /* a built-in kernel call exists: op<i>_run */
  bool has_init;            /* its kernel has an init hook: op<i>_init */
  int32_t scratch;          /* op-local scratch tensor id, or -1 */
  char params_type[64];     /* has_kernel: the kernel's params struct (mpk.h) */
  char reason[192];         /* no kernel: why */
} emit_kernel;

typedef struct emit_ctx {
  const mp_plan *plan;
  const mp_graph *g;
  const mp_config *cfg;
  const mp_diag_sink *dx;
  const char *prefix;       /* as configured: kws */
  char up[64];              /* upper case: KWS */
  const char *module_name;
  const char *dir;          /* module.path without a trailing slash */
  bool allocate;            /* allocate_arenas */
  bool io_caller;           /* memory.io caller: the I/O lives in the application's buffers */
  uint32_t n_regions;
  emit_region *regions;
  uint32_t n_staged;
  emit_kernel *kernels;     /* one per op */
  uint32_t n_with_kernel;   /* ops with a built-in kernel call */
  uint32_t n_unsupported;   /* non-view ops without one */
  mp_buf glue;              /* kernel params and glue functions (model.c) */
  char mem_upper[MP_MEM_COUNT][MP_MEMORY_NAME_MAX]; /* memory names in upper case */
  struct emit_tables *tables; /* the module's own tables, recorded as they are written */
  char table_macro[96];     /* what defines a read-only table in its memory:
                               "KWS_PUT_CONST_IN_QSPI " (module.tables_memory), or "" */
  mp_pool *pool;
} emit_ctx;

/* The tables the source defines (mp_module_tables), growing as they are
 * written; `failed` after an allocation failure. */
typedef struct emit_tables {
  mp_module_tables t;
  uint32_t cap;
  bool failed;
} emit_tables;

/* Record a table the module defines: its symbol, section and size on a
 * 32-bit target. */
void emit_table(const emit_ctx *e, const char *symbol, mp_table_section section, uint64_t size,
                bool params);

/* The region id of arena i (== i) and of its source blob (staged only). */
const emit_region *emit_source_region(const emit_ctx *e, uint32_t arena);

/* A memory's name ("dtcm", "axi_sram") and in upper case ("DTCM"), on the
 * plan's platform. */
const char *emit_mem_name(const emit_ctx *e, mp_memory m);
const char *emit_mem_upper(const emit_ctx *e, mp_memory m);

/* Text safe inside a C comment, wherever the comment places it: printable
 * ASCII only (a backslash as '/', other bytes as '?'), no comment end or
 * start (a space parts "*" and "/"), no trigraph, and no '*' or '/' at
 * either end; cut to `max` characters keeping the end.  Every string from
 * a model or a config that a comment shows goes through it. */
void emit_comment_text(mp_buf *b, const char *s, size_t max);
/* Whether s may be part of a C identifier in the module as it is: ASCII
 * letters, digits and '_', not starting with a digit, 1 to max characters.
 * Every name the module declares is built from such parts only (the
 * prefix, the memory names, fixed words and numbers). */
bool emit_is_identifier(const char *s, size_t max);
/* A C string literal of s (quotes included): any bytes, and only as bytes
 * (quote, backslash and '?' escaped, the rest outside printable ASCII in
 * octal). */
void emit_c_string(mp_buf *b, const char *s);
/* Bytes as 0x.. initialiser lines, 16 per line, indented by 2. */
void emit_hex_bytes(mp_buf *b, const uint8_t *data, uint64_t n);

/* CRC-32 as zlib, `crc32` and Python's zlib.crc32 compute it (reflected
 * polynomial 0xEDB88320, initial and final value 0xFFFFFFFF). */
uint32_t emit_crc32(const uint8_t *data, uint64_t n);

/* A float as a C literal that reads back as the same float ("0.00390625f"). */
void emit_float(mp_buf *b, float v);

/* The "generated by" note every file carries (no timestamps). */
void emit_provenance(const emit_ctx *e, mp_buf *b, const char *indent);

#endif /* MP_EMIT_TEXT_H */
