/*
 * report_facts.h — what the two halves of the HTML report share (internal
 * to src/emit): the page's geometry, the slot kinds with their colours and
 * patterns, the report being written, escaping and byte formats, and the
 * plan facts a picture needs (report_facts.c).  report_html.c writes the
 * page around the arenas' timelines, report_timeline.c the timelines.
 */
#ifndef MP_REPORT_FACTS_H
#define MP_REPORT_FACTS_H

#include "memplan.h"
#include "util/util.h"

/* ---- geometry constants (CSS pixels) ------------------------------------- */

enum {
  PLOT_TOP = 16,        /* room above the plot for the "peak" tags */
  PLOT_H_SCRATCH = 360, /* plot height of a scratch timeline */
  PLOT_H_STATIC = 170,  /* persistent and constant arenas */
  COL_MIN = 8,          /* narrowest op column: still hoverable */
  COL_MAX = 96,         /* widest op column for tiny models */
  PLOT_TARGET_W = 960,  /* aim for this plot width before scrolling */
  STATIC_MIN_W = 560,   /* plot width floor of persistent/constant arenas */
  NAME_COL_MIN = 14,    /* op names drawn on the axis from this column width: a
                           rotated 10 px label is about 13 px tall */
  OP_LABEL_MAX = 24,    /* op names longer than this are shortened */
  AXIS_PLAIN_H = 34,    /* x axis height with op numbers only, and the peak marks under them */
  YAXIS_W = 80,         /* fixed left axis */
  LABELS_W = 224,       /* fixed right column of line labels */
  BAR_W = 620,          /* memory bank bar width */
};
#define CHAR_W 6.2       /* monospace 10px advance, rounded up */
#define LABEL_MIN_H 12.0 /* a slot shorter than this has no text label */
#define SLOT_MIN_H 1.5   /* tiny slots stay visible (grown upwards) */
#define NAME_MIN_CHARS 6 /* a shorter piece of a tensor name says nothing */

/* ---- slot kinds: colour, pattern and legend ------------------------------ */

typedef enum kind { K_ACT, K_IN, K_OUT, K_LOCAL, K_PERS, K_CONST, K_STAGED, K_COUNT } kind;

typedef struct report_kind_style {
  const char *cls;   /* CSS class and pattern id suffix */
  const char *label; /* legend text */
  const char *fill;  /* Okabe-Ito colour */
  const char *ink;   /* text colour on it */
  const char *mark;  /* the pattern's strokes (SVG inside <pattern>) */
  const char *note;  /* said after the role in the tensor table, or "" */
} report_kind_style;
extern const report_kind_style report_kinds[K_COUNT];

/* Role colours of the memory bank bars. */
#define C_SCRATCH "#0072B2"
#define C_PERSISTENT "#009E73"
#define C_CONST "#F0E442"
#define C_STAGED "#56B4E9"

/* ---- the report being written -------------------------------------------- */

typedef struct report {
  const mp_plan *p;
  const mp_graph *g;
  const char *prefix;
  mp_buf *b;
  kind *kinds;       /* per tensor */
  uint32_t n_cols;   /* op columns (>= 1) */
  uint32_t col_w;    /* px per op column */
  uint32_t op_label; /* characters of the longest op name on the x axis */
  double names_h;    /* x axis height with rotated "index NAME" labels */
  const mp_module_tables *tables; /* the module's own tables, or NULL */
  const mp_shared_scratch *shared; /* scratch shared with other models, or NULL */
} report;

/* ---- text ---------------------------------------------------------------- */

/* The string escaped for HTML text and attributes (invalid UTF-8 and
 * control characters become U+FFFD); _n: its first n bytes; _label: a
 * tensor name's label of at most `max` characters (before its first ';',
 * else its tail after an ellipsis). */
void report_esc(mp_buf *b, const char *s);
void report_esc_n(mp_buf *b, const char *s, size_t n);
void report_esc_label(mp_buf *b, const char *s, size_t max);
/* Short bytes ("54.0 KiB") and exact grouped bytes ("55,296") into buf. */
const char *report_hb(char *buf, size_t n, uint64_t v);
const char *report_gb(char *buf, size_t n, uint64_t v);
/* Characters (UTF-8 code points) in s[0..n). */
size_t report_u8_count(const char *s, size_t n);
/* "int8[1,32,32,16]" */
void report_shape_str(const mp_tensor *t, char *buf, size_t n);

/* ---- plan facts ---------------------------------------------------------- */

/* Every tensor's kind into r->kinds. */
void report_compute_kinds(report *r);
/* True when allocation t is a slot of arena ai (a placed non-alias). */
bool report_is_slot(const report *r, uint32_t t, uint32_t ai);
/* Inclusive op columns of allocation t's rectangle. */
void report_slot_cols(const report *r, uint32_t t, uint32_t *c0, uint32_t *c1);
/* Bytes the arena may grow to in its memory. */
uint64_t report_arena_budget(const mp_plan *p, const mp_arena *a);
/* An arena's size against its lower bound, and what is proven of it. */
void report_put_gap(mp_buf *b, uint64_t v, uint64_t lb);
void report_put_proof(mp_buf *b, const mp_arena *a);

#endif /* MP_REPORT_FACTS_H */
