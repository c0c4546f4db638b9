/*
 * report_html.c — the plan as one self-contained HTML page: a header with
 * the run's identity, a bar per memory bank (budget against use, split by
 * role), a timeline per arena (x = operator index, y = byte offset, one
 * rectangle per slot) and a sortable table of every placed tensor, with
 * why it is in its memory (its placement reason).
 *
 * The one idea: all geometry is computed here, in C, and written as static
 * inline SVG with the numbers it came from on every element (data-tensor,
 * data-offset, data-size on a slot; data-bytes on a line; data-y0,
 * data-plot-height and data-ymax on a plot, so y(bytes) = y0 - bytes *
 * plot_height / ymax).  The page is readable without JavaScript and a test
 * can check the picture against the residency JSON from the DOM alone.  The
 * small script only adds a tooltip, table sorting and filtering, and
 * click-to-highlight between table rows and slots.
 *
 * Readability rules: colours are the Okabe-Ito palette and each kind of slot
 * also has its own fill pattern; a slot carries a text label only when the
 * label fits inside it (along its height when it is tall and narrow; else
 * it is hover-only); op names are drawn on the axis only when the column is
 * wide enough, and every column has a hover band naming its op.  Wide
 * models scroll horizontally with the y axis and the line labels kept in
 * view, scrolled to the high-water mark on load.  A dark scheme follows the
 * reader's prefers-color-scheme.
 *
 * Deterministic: the same plan gives the same bytes (no clock, no
 * addresses).  Every string from the model is escaped, and invalid UTF-8 or
 * control characters become U+FFFD.  No data is embedded in the script, so
 * no tensor name can end it.  It does not read or emit anything else: no
 * fonts, images or links outside the page.  Numbers are printed with the C
 * library, so an embedding program must keep LC_NUMERIC at "C" (the CLI
 * never changes it).
 */
#include "emit/report.h"
#include "plan/symbols.h"
#include "util/file.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

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

static const struct {
  const char *cls;   /* CSS class and pattern id suffix */
  const char *label; /* legend text */
  const char *fill;  /* Okabe-Ito colour */
  const char *ink;   /* text colour on it */
  const char *mark;  /* the pattern's strokes (SVG inside <pattern>) */
  const char *note;  /* said after the role in the tensor table, or "" */
} KINDS[K_COUNT] = {
    {"act", "activation", "#0072B2", "#ffffff", "", ""},
    {"in", "graph input", "#E69F00", "#000000",
     "<path d='M-1,1 l2,-2 M0,8 l8,-8 M7,9 l2,-2' stroke='#000' stroke-opacity='.35' "
     "stroke-width='1.6'/>",
     "graph input"},
    {"out", "graph output", "#D55E00", "#ffffff",
     "<path d='M0,0 L8,8 M8,0 L0,8' stroke='#fff' stroke-opacity='.45' stroke-width='1.2'/>",
     "graph output"},
    {"local", "op-local scratch", "#CC79A7", "#000000",
     "<circle cx='4' cy='4' r='1.5' fill='#000' fill-opacity='.35'/>", "op-local"},
    {"pers", "persistent state", "#009E73", "#ffffff",
     "<path d='M2,0 v8 M6,0 v8' stroke='#fff' stroke-opacity='.3' stroke-width='1'/>", ""},
    {"const", "constant, read in place", "#F0E442", "#000000", "", ""},
    {"staged", "constant, staged copy", "#56B4E9", "#000000",
     "<path d='M0,2 h8 M0,6 h8' stroke='#000' stroke-opacity='.25' stroke-width='1'/>",
     "staged copy"},
};

/* Role colours of the memory bank bars. */
#define C_SCRATCH "#0072B2"
#define C_PERSISTENT "#009E73"
#define C_CONST "#F0E442"
#define C_STAGED "#56B4E9"

/* ---- text ---------------------------------------------------------------- */

/* Decode one UTF-8 character of s[0..n); returns its byte length (>= 1) and
 * sets *cp, or U+FFFD for an invalid, overlong or surrogate sequence. */
static size_t u8_next(const unsigned char *s, size_t n, uint32_t *cp) {
  uint32_t c = s[0];
  size_t len = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
  *cp = 0xFFFD;
  if (len == 0 || len > n) return 1;
  if (len == 1) {
    *cp = c;
    return 1;
  }
  uint32_t v = c & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 1;
    v = (v << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 1;
  *cp = v;
  return len;
}

/* Append one code point, escaped for HTML text and attribute values. */
static void put_cp(mp_buf *b, uint32_t cp) {
  switch (cp) {
  case '&': mp_buf_puts(b, "&amp;"); return;
  case '<': mp_buf_puts(b, "&lt;"); return;
  case '>': mp_buf_puts(b, "&gt;"); return;
  case '"': mp_buf_puts(b, "&quot;"); return;
  case '\'': mp_buf_puts(b, "&#39;"); return;
  default: break;
  }
  if (cp < 0x20 || cp == 0x7F) cp = 0xFFFD;
  char u[4];
  if (cp < 0x80) {
    mp_buf_putc(b, (char)cp);
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    mp_buf_append(b, u, 2);
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    mp_buf_append(b, u, 3);
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    mp_buf_append(b, u, 4);
  }
}

/* Append the first n bytes of s escaped (see put_cp). */
static void esc_n(mp_buf *b, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    i += u8_next(u + i, n - i, &cp);
    put_cp(b, cp);
  }
}

static void esc(mp_buf *b, const char *s) { esc_n(b, s ? s : "", s ? strlen(s) : 0); }

static size_t u8_count(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; c++) {
    uint32_t cp;
    i += u8_next((const unsigned char *)s + i, n - i, &cp);
  }
  return c;
}

/* Append a label of at most `max` characters for a tensor name: the part
 * before the first ';' (TFLite joins fused names with it), and when that is
 * still too long its tail after an ellipsis (the tail holds the layer). */
static void esc_label(mp_buf *b, const char *s, size_t max) {
  const char *semi = strchr(s, ';');
  size_t n = semi ? (size_t)(semi - s) : strlen(s);
  if (n == 0) n = strlen(s);
  size_t count = u8_count(s, n);
  if (max == 0) return;
  if (count <= max) {
    esc_n(b, s, n);
    return;
  }
  size_t skip = count - (max - 1), i = 0;
  for (size_t k = 0; k < skip; k++) {
    uint32_t cp;
    i += u8_next((const unsigned char *)s + i, n - i, &cp);
  }
  /* start the tail at a path separator when one is near: "…/conv_3/Relu" */
  const char *slash = memchr(s + i, '/', n - i);
  if (slash && (size_t)(slash - (s + i)) * 2 <= n - i && (size_t)(slash - s) + 1 < n)
    i = (size_t)(slash - s);
  mp_buf_puts(b, "\xE2\x80\xA6"); /* U+2026 */
  esc_n(b, s + i, n - i);
}

/* "54.0 KiB", "512 KiB", "96 B", "4 MiB" — short byte counts for labels. */
static const char *hb(char *buf, size_t n, uint64_t v) {
  if (v >= 1024ull * 1024 && v % (1024ull * 1024) == 0)
    snprintf(buf, n, "%llu MiB", (unsigned long long)(v >> 20));
  else if (v >= 1024ull * 1024)
    snprintf(buf, n, "%.2f MiB", (double)v / (1024.0 * 1024.0));
  else if (v >= 1024 && v % 1024 == 0)
    snprintf(buf, n, "%llu KiB", (unsigned long long)(v >> 10));
  else if (v >= 1024)
    snprintf(buf, n, "%.1f KiB", (double)v / 1024.0);
  else
    snprintf(buf, n, "%llu B", (unsigned long long)v);
  return buf;
}

/* "55,296" — exact byte counts with thousands separators. */
static const char *gb(char *buf, size_t n, uint64_t v) {
  char d[32];
  int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
  size_t o = 0;
  for (int i = 0; i < len && o + 2 < n; i++) {
    if (i > 0 && (len - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = d[i];
  }
  buf[o] = '\0';
  return buf;
}

static void shape_str(const mp_tensor *t, char *buf, size_t n) {
  size_t len = (size_t)snprintf(buf, n, "%s[", mp_dtype_name(t->dtype));
  for (uint32_t d = 0; d < t->rank && len < n; d++)
    len += (size_t)snprintf(buf + len, n - len, d ? ",%d" : "%d", t->shape[d]);
  if (len < n) snprintf(buf + len, n - len, "]");
}

/* ---- plan facts ---------------------------------------------------------- */

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

static kind tensor_kind(const report *r, uint32_t t) {
  const mp_allocation *a = &r->p->allocs[t];
  const mp_tensor *x = &r->g->tensors[t];
  if (a->binding.role == MP_ROLE_PERSISTENT) return K_PERS;
  if (a->binding.role == MP_ROLE_CONSTANT)
    return a->binding.source_memory != a->memory ? K_STAGED : K_CONST;
  if (x->is_input) return K_IN;
  if (x->is_output) return K_OUT;
  if (x->local_op >= 0 || x->producer < 0) return K_LOCAL;
  return K_ACT;
}

/* Kind of every tensor; a root takes input/output from any of its aliases,
 * since its slot is then that I/O buffer. */
static void compute_kinds(report *r) {
  for (uint32_t t = 0; t < r->p->n_allocs; t++)
    r->kinds[t] = tensor_kind(r, t);
  for (uint32_t t = 0; t < r->p->n_allocs; t++) {
    int32_t root = r->p->allocs[t].alias_of;
    if (root < 0 || (uint32_t)root >= r->p->n_allocs) continue;
    const mp_tensor *x = &r->g->tensors[t];
    if (r->kinds[root] == K_ACT && x->is_output) r->kinds[root] = K_OUT;
    if ((r->kinds[root] == K_ACT || r->kinds[root] == K_OUT) && x->is_input) r->kinds[root] = K_IN;
  }
}

/* True when allocation t is a slot of arena ai (a placed non-alias). */
static bool is_slot(const report *r, uint32_t t, uint32_t ai) {
  const mp_allocation *a = &r->p->allocs[t];
  return a->placed && a->alias_of < 0 && a->arena == ai;
}

/* Inclusive op columns of allocation t's rectangle. */
static void slot_cols(const report *r, uint32_t t, uint32_t *c0, uint32_t *c1) {
  const mp_allocation *a = &r->p->allocs[t];
  *c0 = 0;
  *c1 = r->n_cols - 1;
  if (a->binding.role != MP_ROLE_SCRATCH) return;
  const mp_lifetime *lt = &r->p->lifetimes[t];
  if (lt->start_op < 0) return;
  *c0 = (uint32_t)lt->start_op < r->n_cols ? (uint32_t)lt->start_op : r->n_cols - 1;
  *c1 = lt->end_op >= lt->start_op && (uint32_t)lt->end_op < r->n_cols ? (uint32_t)lt->end_op
                                                                       : r->n_cols - 1;
  if (*c1 < *c0) *c1 = *c0;
}

/* Bytes the arena may grow to: its memory's budget less everything else
 * resident in that memory. */
static uint64_t arena_budget(const mp_plan *p, const mp_arena *a) {
  const mp_memory_usage *u = &p->memories[a->memory];
  uint64_t others = u->used > a->total_size ? u->used - a->total_size : 0;
  return u->budget > others ? u->budget - others : 0;
}

/* ---- static parts: style, patterns, script ------------------------------- */

static const char CSS[] =
    ":root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--ink:#1b1f24;--mute:#5b6470;"
    "--line:#d5d9df;--rule:#eceef1;--thbg:#fafbfc;--grid:#e3e6ea;--axis:#9aa3ad;--hover:#f0f4fa;"
    "--selrow:#ffe9b3;--hwm:#D55E00;--lb:#000;--budget:#7a1f5c;--band:#f7f8fa;"
    "--peak:rgba(213,94,0,.13);--ok:#00734f;--warn:#a04000}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#12161c;--card:#1b2129;--ink:#e4e8ee;"
    "--mute:#9aa5b4;--line:#2f3744;--rule:#262d37;--thbg:#212833;--grid:#2a313c;--axis:#6b7684;"
    "--hover:#243042;--selrow:#5a4510;--lb:#e4e8ee;--budget:#e08cc0;--band:#1f262f;"
    "--peak:rgba(213,94,0,.22);--ok:#4fd1a1;--warn:#ff9a52}}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--ink);"
    "font:13px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    "code,.mono,td.n,td.mono{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;"
    "font-size:12px}\n"
    "header{background:#1d2430;color:#eef1f5;padding:14px 22px 12px}\n"
    "header h1{margin:0 0 8px;font-size:18px;font-weight:600}\n"
    "header h1 .v{color:#9aa5b4;font-weight:400;font-size:13px;margin-left:8px}\n"
    "header dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}\n"
    "header dt{color:#9aa5b4}header dd{margin:0;word-break:break-all}\n"
    "header code{color:#fff}\n"
    "main{padding:6px 22px 40px}\n"
    "section.card{background:var(--card);border:1px solid var(--line);border-radius:6px;"
    "padding:12px 16px;margin:14px 0}\n"
    "h2{font-size:15px;margin:0 0 8px}h3{font-size:14px;margin:0 0 4px;font-weight:600}\n"
    ".tag{display:inline-block;padding:0 6px;border-radius:3px;font-size:11px;font-weight:600;"
    "color:#fff;margin-right:6px;vertical-align:1px}\n"
    ".tag.scratch{background:#0072B2}.tag.persistent{background:#009E73}"
    ".tag.constant{background:#8a7d00}\n"
    "table{border-collapse:collapse}\n"
    "table.grid th,table.grid td{padding:3px 9px;border-bottom:1px solid #eceef1;text-align:left;"
    "white-space:nowrap;border-bottom-color:var(--rule)}\n"
    "table.grid th{font-weight:600;color:var(--mute);border-bottom:1px solid var(--line);"
    "background:var(--thbg)}\n"
    "table.grid td.n,table.grid th.n{text-align:right}\n"
    ".ok{color:var(--ok);font-weight:600}.warn{color:var(--warn);font-weight:600}\n"
    ".stats{display:flex;flex-wrap:wrap;gap:4px 20px;margin:2px 0 8px;color:var(--mute)}\n"
    ".stats b{color:var(--ink);font-weight:600}\n"
    ".chart{display:flex;align-items:flex-start}\n"
    ".scroll{overflow-x:auto;flex:0 1 auto;min-width:120px;border-left:1px solid var(--axis)}\n"
    ".chart svg{display:block;flex:none}\n"
    ".note{color:var(--mute);margin:6px 0 0}\n"
    ".wide{overflow-x:auto;max-width:100%}\n"
    ".wide.tall{max-height:80vh;overflow-y:auto}\n"
    "table.grid td.sym{white-space:normal;min-width:18ch;max-width:44ch;overflow-wrap:anywhere}\n"
    "@media (min-width:1800px){table.grid td.sym{max-width:none;white-space:nowrap}}\n"
    "svg text{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace;"
    "font-size:10px}\n"
    ".plot .op{fill:transparent}.plot .op.odd{fill:var(--band)}"
    ".plot .op.peak{fill:var(--peak)}\n"
    ".plot .grid{stroke:var(--grid);stroke-width:1}\n"
    ".slot{stroke:var(--card);stroke-width:.6;cursor:pointer}\n"
    ".slot:hover{stroke:var(--ink);stroke-width:1.5}\n"
    ".alias{fill:none;stroke:#000;stroke-width:1.3;stroke-dasharray:4 2;pointer-events:all;"
    "cursor:pointer}\n"
    ".alias.sel,.slot.sel{stroke:var(--ink);stroke-width:3}\n"
    "body.has-sel .slot:not(.sel){opacity:.35}\n"
    ".lbl{pointer-events:none;paint-order:stroke;stroke-width:2.5px;stroke-linejoin:round}\n"
    ".lbl.alias-lbl{fill:#000;stroke:#fff}\n"
    "line.hwm{stroke:var(--hwm);stroke-width:2}\n"
    "line.lb{stroke:var(--lb);stroke-width:1.3;stroke-dasharray:6 4}\n"
    "line.ib{stroke:#009E73;stroke-width:1.5;stroke-dasharray:2 3}\n"
    ".shared{fill:rgba(204,0,0,.28);stroke:#c00;stroke-width:1.4;pointer-events:all}\n"
    "line.budget{stroke:var(--budget);stroke-width:2;stroke-dasharray:10 3 2 3}\n"
    "path.live{fill:none;stroke:var(--ink);stroke-width:1.6;stroke-dasharray:3 "
    "2;pointer-events:none}\n"
    "path.live-halo{fill:none;stroke:var(--card);stroke-width:4;stroke-opacity:.85;pointer-events:"
    "none}\n"
    ".peaktag{fill:var(--hwm);font-weight:700}\n"
    ".xlab{fill:var(--ink)}.xlab.peak{fill:var(--hwm);font-weight:700}\n"
    ".ylab{fill:var(--mute)}.tick{stroke:var(--axis)}\n"
    ".lines text{font-size:11px}.lines .t-hwm{fill:var(--hwm);font-weight:700}"
    ".lines .t-lb{fill:var(--lb)}.lines .t-budget{fill:var(--budget);font-weight:700}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:center;margin:4px 0 6px;"
    "color:var(--mute)}\n"
    ".legend span{display:inline-flex;align-items:center;gap:5px}\n"
    ".legend svg{display:inline-block;vertical-align:middle}\n"
    ".bank{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;margin:4px 0}\n"
    ".bank .name{flex:0 0 64px}.bank svg.bar{flex:0 1 621px;min-width:160px;height:26px}\n"
    ".bank .what{flex:1 1 300px;min-width:0}\n"
    ".bank .name{font-weight:600;font-family:ui-monospace,'DejaVu Sans Mono',monospace}\n"
    ".bank .what{color:var(--mute)}.bank .what b{color:var(--ink)}\n"
    ".bank .seg{stroke:var(--card);stroke-width:.8}\n"
    ".free{fill:var(--card);stroke:var(--axis)}.alias-sw{fill:none;stroke:var(--ink)}\n"
    "#filter{font:inherit;padding:3px 8px;border:1px solid var(--line);border-radius:4px;"
    "width:280px;margin:0 0 6px;background:var(--card);color:var(--ink)}\n"
    "#tensors th{cursor:pointer;user-select:none;position:sticky;top:0;z-index:1}\n"
    "#tensors th.asc::after{content:' \\25B2'}#tensors th.desc::after{content:' \\25BC'}\n"
    "#tensors tbody tr{cursor:pointer}#tensors tbody tr:hover{background:var(--hover)}\n"
    "#tensors tr.sel{background:var(--selrow)}\n"
    "#tensors td.name{max-width:min(520px,36vw);overflow:hidden;text-overflow:ellipsis}\n"
    "#tensors td.why{white-space:normal;min-width:24ch;max-width:44ch}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;"
    "vertical-align:-1px;border:1px solid rgba(0,0,0,.25)}\n"
    "#tip{position:fixed;display:none;z-index:9;max-width:560px;padding:6px 9px;"
    "background:#1d2430;color:#fff;border-radius:4px;font:12px/1.4 ui-monospace,"
    "'DejaVu Sans Mono',monospace;white-space:pre-wrap;pointer-events:none;"
    "box-shadow:0 2px 8px rgba(0,0,0,.3)}\n"
    "@media print{.scroll{overflow:visible}#filter{display:none}}\n";

static const char JS[] =
    "(function(){\n"
    "'use strict';\n"
    "var tip=document.getElementById('tip');\n"
    "function text(el){if(el.dataset.tip===undefined){var t=el.querySelector('title');"
    "el.dataset.tip=t?t.textContent:'';if(t)t.remove();}return el.dataset.tip;}\n"
    "var HOVER='.slot,.alias,.op,.seg,.xop';\n"
    "document.addEventListener('mouseover',function(e){var el=e.target.closest&&"
    "e.target.closest(HOVER);var s=el?text(el):'';if(!s){tip.style.display='none';return;}"
    "tip.textContent=s;tip.style.display='block';});\n"
    "document.addEventListener('mousemove',function(e){if(tip.style.display!=='block')return;"
    "var r=tip.getBoundingClientRect(),x=e.clientX+14,y=e.clientY+16;"
    "if(x+r.width>innerWidth-4)x=Math.max(4,e.clientX-r.width-14);"
    "if(y+r.height>innerHeight-4)y=Math.max(4,e.clientY-r.height-12);"
    "tip.style.left=x+'px';tip.style.top=y+'px';});\n"
    "function select(id){document.querySelectorAll('.sel').forEach(function(e){"
    "e.classList.remove('sel');});if(id===null){document.body.classList.remove('has-sel');"
    "return null;}var hit=document.querySelectorAll('[data-tensor=\"'+id+'\"]');"
    "hit.forEach(function(e){e.classList.add('sel');});"
    "document.body.classList.add('has-sel');return hit;}\n"
    "var cur=null;\n"
    "document.addEventListener('click',function(e){"
    "var g=e.target.closest('.slot,.alias');var row=e.target.closest('#tensors tbody tr');"
    "if(!g&&!row){if(cur!==null){cur=null;select(null);}return;}"
    "var id=(g||row).dataset.tensor;if(cur===id){cur=null;select(null);return;}cur=id;"
    "var hit=select(id);if(row){for(var i=0;i<hit.length;i++){if(hit[i].tagName!=='TR'){"
    "hit[i].scrollIntoView({block:'center',inline:'center',behavior:'smooth'});break;}}}});\n"
    "document.querySelectorAll('.scroll').forEach(function(sc){var pk=sc.querySelector("
    "'.op.peak');if(!pk)return;var x=+pk.getAttribute('x');"
    "if(x+ +pk.getAttribute('width')>sc.scrollLeft+sc.clientWidth)"
    "sc.scrollLeft=Math.max(0,x-sc.clientWidth/3);});\n"
    "var table=document.getElementById('tensors');\n"
    "if(table){var heads=table.tHead.rows[0].cells;\n"
    "Array.prototype.forEach.call(heads,function(th,i){th.addEventListener('click',function(){"
    "var tb=table.tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "num=th.classList.contains('n'),dir=th.classList.contains('asc')?-1:1;"
    "Array.prototype.forEach.call(heads,function(h){h.classList.remove('asc','desc');});"
    "th.classList.add(dir>0?'asc':'desc');"
    "rows.sort(function(a,b){var x=a.cells[i].dataset.v,y=b.cells[i].dataset.v;"
    "if(x===undefined)x=a.cells[i].textContent;if(y===undefined)y=b.cells[i].textContent;"
    "if(num){x=+x;y=+y;}return (x<y?-1:x>y?1:0)*dir||(a.dataset.tensor-b.dataset.tensor);});"
    "rows.forEach(function(r){tb.appendChild(r);});});});\n"
    "var f=document.getElementById('filter');\n"
    "if(f)f.addEventListener('input',function(){var q=f.value.toLowerCase();"
    "Array.prototype.forEach.call(table.tBodies[0].rows,function(r){"
    "var n=r.cells[1]?r.cells[1].title:'';"
    "r.style.display=!q||(r.textContent+' '+n).toLowerCase().indexOf(q)>=0?'':'none';});});}\n"
    "})();\n";

/* One hidden SVG holding the fill patterns every chart refers to. */
static void put_defs(mp_buf *b) {
  mp_buf_puts(b, "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
                 "<defs>\n");
  for (int k = 0; k < K_COUNT; k++) {
    mp_buf_printf(b,
                  "<pattern id=\"k-%s\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
                  "<rect width=\"8\" height=\"8\" fill=\"%s\"/>%s</pattern>\n",
                  KINDS[k].cls, KINDS[k].fill, KINDS[k].mark);
  }
  mp_buf_printf(b,
                "<pattern id=\"k-src\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
                "<rect width=\"8\" height=\"8\" fill=\"%s\"/>%s</pattern>\n",
                C_CONST, KINDS[K_IN].mark);
  mp_buf_puts(b, "</defs></svg>\n");
}

/* ---- header and arena summary -------------------------------------------- */

static void put_options(report *r) {
  const mp_plan *p = r->p;
  const mp_planner *pl = mp_planner_find(p->planner);
  bool any = false;
  for (uint32_t i = 0; pl && i < pl->n_options; i++) {
    const char *k = pl->options[i].key;
    bool given = false;
    for (uint32_t j = 0; j < p->n_options; j++)
      given |= !strcmp(p->options[j].key, k);
    if (!given && !pl->options[i].has_default) continue;
    mp_buf_puts(r->b, any ? ", " : "");
    esc(r->b, k);
    mp_buf_printf(r->b, "=%lld", (long long)mp_option_get(pl, p->options, p->n_options, k, 0));
    any = true;
  }
  if (!any) mp_buf_puts(r->b, "none");
}

static void put_header(report *r) {
  const mp_plan *p = r->p;
  const mp_graph *g = r->g;
  mp_buf *b = r->b;
  char h[32];
  mp_buf_puts(b, "<header>\n<h1>memplan plan report<span class=\"v\">memplan " MP_VERSION
                 "</span></h1>\n<dl>\n<dt>model</dt><dd><code id=\"model\">");
  esc(b, mp_model_file_name(g->model));
  mp_buf_printf(b, "</code> &middot; subgraph %u &middot; %u ops &middot; %u tensors</dd>\n",
                g->subgraph, g->n_ops, g->n_tensors);
  mp_buf_puts(b, "<dt>planner</dt><dd><code id=\"planner\">");
  esc(b, p->planner);
  mp_buf_puts(b, "</code> &middot; options: <code>");
  put_options(r);
  mp_buf_puts(b, "</code></dd>\n<dt>platform</dt><dd><code id=\"platform\">");
  esc(b, p->platform.name);
  mp_buf_printf(b, "</code> &middot; min alignment %u B &middot; symbol prefix <code>",
                p->platform.min_alignment);
  esc(b, r->prefix);
  snprintf(h, sizeof h, "0x%016llx", (unsigned long long)p->hash);
  mp_buf_printf(b, "</code></dd>\n<dt>plan hash</dt><dd><code id=\"plan-hash\">%s</code></dd>\n",
                h);
  mp_buf_puts(b, "</dl>\n</header>\n");
}

/* "= lower bound", "+4.0 KiB (+8.1%)" */
static void put_gap(mp_buf *b, uint64_t v, uint64_t lb) {
  char s[32];
  if (v < lb) { /* in place: tensors share bytes */
    double pct = 100.0 * (double)(lb - v) / (double)lb;
    mp_buf_printf(b, "<span class=\"ok\">&minus;%s (&minus;%.1f%%) in place</span>",
                  hb(s, sizeof s, lb - v), pct);
    return;
  }
  if (v == lb) {
    mp_buf_puts(b, "<span class=\"ok\">at the lower bound</span>");
    return;
  }
  double pct = lb ? 100.0 * (double)(v - lb) / (double)lb : 100.0;
  mp_buf_printf(b, "<span class=\"warn\">+%s (+%.1f%%)</span>", hb(s, sizeof s, v - lb), pct);
}

/* What is known of the smallest possible arena: optimal (at the lower bound
 * or proven by a search), an interval a search narrowed, or nothing beyond
 * the lower bound (the heuristics do not search). */
static void put_proof(mp_buf *b, const mp_arena *a) {
  char s1[32], s2[32];
  if (a->proven_lower == a->proven_upper)
    mp_buf_printf(b, "<span class=\"ok\">optimal</span> (%s B)",
                  gb(s1, sizeof s1, a->proven_upper));
  else if (a->proven_lower > a->lower_bound || a->timed_out)
    mp_buf_printf(b, "optimum in [%s, %s] B", gb(s1, sizeof s1, a->proven_lower),
                  gb(s2, sizeof s2, a->proven_upper));
  else
    mp_buf_puts(b, "<span title=\"the heuristic planners do not search for a proof; the "
                   "exact planner does\">not proven</span>");
  if (a->timed_out) mp_buf_puts(b, " <span class=\"warn\">timed out</span>");
}

static void put_arena_table(report *r) {
  const mp_plan *p = r->p;
  mp_buf *b = r->b;
  char s[32], sym[192];
  mp_buf_puts(b, "<section class=\"card\" id=\"arenas\">\n<h2>Arenas</h2>\n"
                 "<div class=\"wide\"><table class=\"grid\">\n<thead><tr><th "
                 "class=\"n\">region</th><th>symbol</th>"
                 "<th>role</th><th>memory</th><th class=\"n\">size</th><th class=\"n\">"
                 "high-water</th><th class=\"n\">lower bound</th><th>vs lower bound</th>"
                 "<th>optimality</th><th class=\"n\" title=\"what the arena may grow to: its "
                 "memory's budget less the memory's other arenas\">room</th><th class=\"n\" "
                 "title=\"room less size\">free</th>"
                 "<th class=\"n\">slots</th></tr></thead>\n<tbody>\n");
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    uint64_t bud = arena_budget(p, a);
    mp_buf_printf(b,
                  "<tr data-arena=\"%u\"><td class=\"n\">%u</td><td class=\"sym\"><a href=\"#arena-%u\">"
                  "<code>",
                  i, i, i);
    esc(b, mp_module_arena_symbol(r->p, r->prefix, r->shared, a, sym, sizeof sym));
    mp_buf_printf(b, "</code></a></td><td><span class=\"tag %s\">%s</span>%s</td><td>%s",
                  mp_role_name(a->role), mp_role_name(a->role), a->is_staged ? "staged" : "",
                  mp_platform_memory_name(&r->p->platform, a->memory));
    if (a->is_staged) mp_buf_printf(b, " &larr; %s", mp_platform_memory_name(&r->p->platform, a->source_memory));
    mp_buf_printf(b, "</td><td class=\"n\" title=\"%llu B\">%s</td>",
                  (unsigned long long)a->total_size, hb(s, sizeof s, a->total_size));
    mp_buf_printf(b, "<td class=\"n\" title=\"%llu B\">%s</td>", (unsigned long long)a->used,
                  hb(s, sizeof s, a->used));
    if (a->role == MP_ROLE_SCRATCH) {
      mp_buf_printf(b, "<td class=\"n\" title=\"%llu B\">%s</td><td>",
                    (unsigned long long)a->lower_bound, hb(s, sizeof s, a->lower_bound));
      put_gap(b, a->total_size, a->lower_bound);
      mp_buf_puts(b, "</td><td>");
      put_proof(b, a);
      mp_buf_puts(b, "</td>");
    } else {
      mp_buf_puts(b, "<td class=\"n\">&ndash;</td><td>bump-allocated</td><td>&ndash;</td>");
    }
    mp_buf_printf(b, "<td class=\"n\" title=\"%llu B\">%s</td>", (unsigned long long)bud,
                  hb(s, sizeof s, bud));
    mp_buf_printf(b, "<td class=\"n\">%s</td><td class=\"n\">%u</td></tr>\n",
                  hb(s, sizeof s, bud > a->total_size ? bud - a->total_size : 0), a->n_tensors);
  }
  mp_buf_puts(b, "</tbody></table></div>\n");
  if (p->n_arenas == 0) mp_buf_puts(b, "<p class=\"note\">The plan has no arenas.</p>\n");
  mp_buf_puts(b, "</section>\n");
}

/* ---- memory banks -------------------------------------------------------- */

static void put_seg(mp_buf *b, double *x, uint64_t v, double scale, const char *role,
                    const char *fill, const char *what, const char *mem) {
  if (v == 0) return;
  char s[32], e[32];
  double w = (double)v * scale;
  mp_buf_printf(b,
                "<rect class=\"seg\" data-role=\"%s\" data-bytes=\"%llu\" x=\"%.2f\" y=\"2\" "
                "width=\"%.2f\" height=\"22\" fill=\"%s\"><title>%s: %s in %s (%s B)</title>"
                "</rect>",
                role, (unsigned long long)v, *x, w, fill, what, hb(s, sizeof s, v), mem,
                gb(e, sizeof e, v));
  *x += w;
}

static void put_banks(report *r) {
  const mp_plan *p = r->p;
  mp_buf *b = r->b;
  char s1[32], s2[32], s3[32];
  mp_buf_puts(b, "<section class=\"card\" id=\"banks\">\n<h2>Memory banks</h2>\n"
                 "<div class=\"legend\">");
  static const struct {
    const char *fill, *label;
  } LEG[] = {{C_SCRATCH, "scratch"},
             {C_PERSISTENT, "persistent"},
             {C_CONST, "constants (runtime)"},
             {C_STAGED, "constants (staged copy)"},
             {"url(#k-src)", "staged source blobs"}};
  for (size_t i = 0; i < sizeof LEG / sizeof LEG[0]; i++)
    mp_buf_printf(b,
                  "<span><svg width=\"14\" height=\"14\"><rect width=\"14\" height=\"14\" "
                  "fill=\"%s\" stroke=\"#0003\"/></svg>%s</span>",
                  LEG[i].fill, LEG[i].label);
  mp_buf_puts(b, "<span><svg width=\"14\" height=\"14\"><rect x=\".5\" y=\".5\" width=\"13\" "
                 "height=\"13\" class=\"free\"/></svg>free</span></div>\n");
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n_mem = mp_platform_by_name(&p->platform, by_name);
  for (uint32_t bank = 0; bank < n_mem; bank++) {
    mp_memory m = by_name[bank];
    const mp_memory_usage *u = &p->memories[m];
    if (!u->present) continue;
    const char *mem = mp_platform_memory_name(&r->p->platform, m);
    bool staged_here = false;
    for (uint32_t i = 0; i < p->n_arenas; i++)
      staged_here |= p->arenas[i].memory == (mp_memory)m && p->arenas[i].is_staged;
    uint64_t full = u->budget > u->used ? u->budget : u->used;
    double scale = full ? (double)BAR_W / (double)full : 0.0;
    const mp_module_tables *t = r->tables;
    uint64_t tables = t && t->has_memory && t->memory == m ? t->rodata : 0;
    mp_buf_printf(b,
                  "<div class=\"bank\" data-memory=\"%s\" data-budget=\"%llu\" "
                  "data-used=\"%llu\"",
                  mem, (unsigned long long)u->budget, (unsigned long long)u->used);
    if (t) mp_buf_printf(b, " data-tables=\"%llu\"", (unsigned long long)tables);
    mp_buf_printf(b, "><span class=\"name\">%s</span>\n", mem);
    mp_buf_printf(b,
                  "<svg class=\"bar\" width=\"%d\" height=\"26\" viewBox=\"0 0 %d 26\" "
                  "preserveAspectRatio=\"none\"><rect class=\"free\" x=\"0.5\" y=\"1.5\" "
                  "width=\"%d\" height=\"23\" vector-effect=\"non-scaling-stroke\"/>",
                  BAR_W + 1, BAR_W + 1, BAR_W);
    double x = 0.5;
    put_seg(b, &x, u->scratch, scale, "scratch", C_SCRATCH, "scratch arena", mem);
    put_seg(b, &x, u->persistent, scale, "persistent", C_PERSISTENT, "persistent arena", mem);
    put_seg(b, &x, u->constant, scale, "constant", staged_here ? C_STAGED : C_CONST,
            staged_here ? "staged constant arena (runtime copy)" : "constant arena", mem);
    put_seg(b, &x, u->staged_source, scale, "staged_source", "url(#k-src)",
            "staged constant source blobs", mem);
    mp_buf_puts(b, "</svg>\n<span class=\"what\">");
    double pct = u->budget ? 100.0 * (double)u->used / (double)u->budget : 0.0;
    mp_buf_printf(b, "<b>%s</b> of %s used (%.1f%%) &middot; ", hb(s1, sizeof s1, u->used),
                  hb(s2, sizeof s2, u->budget), pct);
    if (u->used <= u->budget)
      mp_buf_printf(b, "%s free", hb(s3, sizeof s3, u->budget - u->used));
    else
      mp_buf_printf(b, "<span class=\"warn\">%s over budget</span>",
                    hb(s3, sizeof s3, u->used - u->budget));
    if (u->load_image)
      mp_buf_printf(b, " &middot; <span class=\"warn\">%s of read-only blobs here need a load "
                       "image in non-volatile memory and a copy at boot</span>",
                    hb(s1, sizeof s1, u->load_image));
    if (r->shared && r->shared->size[m])
      mp_buf_printf(b, " &middot; scratch shared with the config's other models: one buffer of "
                       "%s, the largest need", hb(s1, sizeof s1, r->shared->size[m]));
    if (tables)
      mp_buf_printf(b, " &middot; the module's tables %s (kernel params %s)%s", hb(s1, sizeof s1, tables),
                    hb(s2, sizeof s2, t->params),
                    p->platform.read_only[m] ? "" : ", <span class=\"warn\">a load image and a copy at boot</span>");
    static const char *NAMES[4] = {"scratch", "persistent", "constants", "staged sources"};
    uint64_t v[4] = {u->scratch, u->persistent, u->constant, u->staged_source};
    bool first = true;
    for (int k = 0; k < 4; k++) {
      if (!v[k]) continue;
      mp_buf_printf(b, "%s%s %s", first ? "<br>" : " &middot; ", NAMES[k], hb(s1, sizeof s1, v[k]));
      first = false;
    }
    mp_buf_puts(b, "</span></div>\n");
  }
  mp_buf_puts(b, "</section>\n");
}

/* ---- timelines ----------------------------------------------------------- */

/* One arena's chart: its facts per op column and its coordinate system. */
typedef struct view {
  uint32_t ai;
  const mp_arena *a;
  bool scratch; /* x is time; else every slot spans the program */
  uint64_t hw;  /* high-water mark (mp_arena.used) */
  uint64_t budget;
  uint64_t *live; /* per column: bytes of the slots live there */
  uint64_t *top;  /* per column: highest slot end */
  uint32_t *nlive;
  double h;      /* plot height */
  double y0;     /* px of offset 0 (the plot's bottom) */
  uint64_t ymax; /* bytes at the plot's top */
  double width;  /* plot width */
  double col;    /* px per op column */
  double axis_h; /* x axis height below the plot */
  double svg_h;
  bool names;    /* op names on the x axis */
  bool in_place; /* memory.in_place: live slots may share bytes */
  uint64_t step; /* y tick step in bytes */
} view;

static double ypx(const view *v, uint64_t bytes) {
  return v->y0 - (double)bytes * v->h / (double)v->ymax;
}

static bool is_peak(const view *v, uint32_t c) { return v->hw > 0 && v->top[c] == v->hw; }

/* Smallest power-of-two step giving at most 6 ticks. */
static uint64_t tick_step(uint64_t ymax) {
  uint64_t s = 1;
  while (ymax / s > 6)
    s *= 2;
  return s;
}

static void put_legend(mp_buf *b, bool in_place) {
  mp_buf_puts(b, "<div class=\"legend\">");
  for (int k = 0; k < K_COUNT; k++)
    mp_buf_printf(b,
                  "<span><svg width=\"16\" height=\"14\"><rect width=\"16\" height=\"14\" "
                  "fill=\"url(#k-%s)\" stroke=\"#0003\"/></svg>%s</span>",
                  KINDS[k].cls, KINDS[k].label);
  mp_buf_puts(b, "<span><svg width=\"16\" height=\"14\"><rect x=\"1\" y=\"1\" width=\"14\" "
                 "height=\"12\" class=\"alias-sw\" stroke-dasharray=\"4 2\"/></svg>"
                 "view alias (shares its root's slot)</span>"
                 "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" x2=\"26\" y1=\"5\" y2=\"5\" "
                 "class=\"hwm\"/></svg>high-water mark</span>"
                 "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" x2=\"26\" y1=\"5\" y2=\"5\" "
                 "class=\"lb\"/></svg>lower bound</span>"
                 "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" x2=\"26\" y1=\"5\" y2=\"5\" "
                 "class=\"budget\"/></svg>room: the memory's budget less its other arenas</span>");
  if (in_place)
    mp_buf_puts(b, "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" x2=\"26\" y1=\"5\" "
                   "y2=\"5\" class=\"ib\"/></svg>in-place bound</span>"
                   "<span><svg width=\"16\" height=\"14\"><rect x=\"1\" y=\"1\" width=\"14\" "
                   "height=\"12\" class=\"shared\"/></svg>bytes two live slots share (in place: an "
                   "output written over the input its kernel is still reading)</span>");
  mp_buf_puts(b,
                 "<span><svg width=\"26\" height=\"10\"><path d=\"M1,5 H25\" class=\"live-halo\"/>"
                 "<path d=\"M1,5 H25\" class=\"live\"/></svg>live bytes per op</span>"
                 "<span><svg width=\"14\" height=\"14\"><rect width=\"14\" height=\"14\" "
                 "fill=\"rgba(213,94,0,.18)\"/></svg>op(s) at the high-water mark</span>"
                 "</div>\n");
}

/* The tooltip of slot t (or of view alias t) as an SVG <title>. */
static void put_slot_title(report *r, uint32_t t, bool alias) {
  const mp_plan *p = r->p;
  const mp_allocation *a = &p->allocs[t];
  const mp_tensor *x = &r->g->tensors[t];
  mp_buf *b = r->b;
  char s1[32], s2[32], sh[160];
  mp_buf_printf(b, "<title>#%u ", t);
  esc(b, x->name);
  mp_buf_printf(b, "\n%s%s \xC2\xB7 %s", alias ? "view alias \xC2\xB7 " : "",
                KINDS[r->kinds[alias ? (uint32_t)a->alias_of : t]].label,
                mp_platform_memory_name(&r->p->platform, a->memory));
  if (a->binding.source_memory != a->memory)
    mp_buf_printf(b, " (from %s)", mp_platform_memory_name(&r->p->platform, a->binding.source_memory));
  mp_buf_printf(b, "\noffset %llu (0x%llx) \xC2\xB7 %s B", (unsigned long long)a->offset,
                (unsigned long long)a->offset, gb(s1, sizeof s1, a->size));
  if (a->slot_size != a->size) mp_buf_printf(b, " (slot %s B)", gb(s2, sizeof s2, a->slot_size));
  shape_str(x, sh, sizeof sh);
  mp_buf_printf(b, " \xC2\xB7 %s", sh);
  if (a->binding.role == MP_ROLE_SCRATCH) {
    const mp_lifetime *lt = alias ? &x->lifetime : &p->lifetimes[t];
    mp_buf_printf(b, "\nlive ops [%d, %d]", lt->start_op, lt->end_op);
    if (lt->start_op >= 0 && (uint32_t)lt->start_op < r->g->n_ops && lt->end_op >= 0 &&
        (uint32_t)lt->end_op < r->g->n_ops) {
      mp_buf_puts(b, " ");
      esc(b, r->g->ops[lt->start_op].name);
      mp_buf_puts(b, " \xE2\x86\x92 ");
      esc(b, r->g->ops[lt->end_op].name);
    }
    if (!alias && (lt->start_op != x->lifetime.start_op || lt->end_op != x->lifetime.end_op))
      mp_buf_puts(b, " (merged with its views)");
  } else {
    mp_buf_puts(b, "\nlive for the whole program");
  }
  if (alias && a->alias_stride && a->alias_row)
    mp_buf_printf(b, "\na strided view: %llu rows of %llu bytes, %llu apart, from byte %llu of "
                     "the slot of #%d (its producer writes into the concatenation)",
                  (unsigned long long)(a->size / a->alias_row), (unsigned long long)a->alias_row,
                  (unsigned long long)a->alias_stride, (unsigned long long)a->alias_offset,
                  a->alias_of);
  else if (alias && (a->alias_offset || a->size != p->allocs[a->alias_of].size))
    mp_buf_printf(b, "\na view: bytes %llu to %llu of the slot of #%d",
                  (unsigned long long)a->alias_offset,
                  (unsigned long long)(a->alias_offset + a->size), a->alias_of);
  else if (alias)
    mp_buf_printf(b, "\nshares the slot of #%d", a->alias_of);
  for (uint32_t u = 0; !alias && u < p->n_allocs; u++)
    if (p->allocs[u].placed && p->allocs[u].alias_of == (int32_t)t)
      mp_buf_printf(b, "\nviewed as #%u", u);
  if (a->pinned) mp_buf_puts(b, "\npinned by a config rule");
  mp_buf_puts(b, "</title>");
}

/* Text label inside a slot when it fits: "#id name" and, with room, the
 * size on a second line; along the height of a tall narrow slot.  A name
 * piece shorter than NAME_MIN_CHARS is left out, and a slot too small for
 * its id has no label: its tooltip carries everything. */
static void put_slot_label(report *r, uint32_t t, double x, double y, double w, double h) {
  mp_buf *b = r->b;
  char id[16], s[32];
  size_t idn = (size_t)snprintf(id, sizeof id, "#%u", t);
  size_t hmax = h >= LABEL_MIN_H && w > 6 ? (size_t)((w - 6) / CHAR_W) : 0;
  size_t vmax = w >= LABEL_MIN_H + 2 && h > 6 ? (size_t)((h - 6) / CHAR_W) : 0;
  const char *ink = KINDS[r->kinds[t]].ink;
  const char *halo = KINDS[r->kinds[t]].fill;
  const char *name = r->g->tensors[t].name;
  bool named = name[0] != '\0';
  if (named && hmax < idn + 1 + NAME_MIN_CHARS && vmax >= idn + 1 + NAME_MIN_CHARS &&
      vmax > hmax + 4) {
    double ax = x + w / 2 + 3.5, ay = y + h - 3;
    mp_buf_printf(b,
                  "<text class=\"lbl v\" x=\"%.2f\" y=\"%.2f\" transform=\"rotate(-90 %.2f %.2f)\" "
                  "fill=\"%s\" stroke=\"%s\">%s ",
                  ax, ay, ax, ay, ink, halo, id);
    esc_label(b, name, vmax - idn - 1);
    mp_buf_puts(b, "</text>");
    return;
  }
  if (hmax < idn) return;
  double ty = h >= 2 * LABEL_MIN_H + 2 ? y + 12 : y + h / 2 + 3.5;
  mp_buf_printf(b, "<text class=\"lbl\" x=\"%.2f\" y=\"%.2f\" fill=\"%s\" stroke=\"%s\">%s", x + 3,
                ty, ink, halo, id);
  if (named && hmax >= idn + 1 + NAME_MIN_CHARS) {
    mp_buf_putc(b, ' ');
    esc_label(b, name, hmax - idn - 1);
  }
  mp_buf_puts(b, "</text>");
  if (h >= 2 * LABEL_MIN_H + 2) {
    hb(s, sizeof s, r->p->allocs[t].size);
    if (strlen(s) <= hmax)
      mp_buf_printf(b,
                    "<text class=\"lbl\" x=\"%.2f\" y=\"%.2f\" fill=\"%s\" stroke=\"%s\">%s"
                    "</text>",
                    x + 3, y + 24, ink, halo, s);
  }
}

/* Do slots t and u (of one scratch arena) share bytes while both are live?
 * Then [lo, hi) are the shared bytes and [c0, c1] the columns. */
static bool shared_bytes(const report *r, uint32_t t, uint32_t u, uint64_t *lo, uint64_t *hi,
                         uint32_t *c0, uint32_t *c1) {
  const mp_allocation *a = &r->p->allocs[t], *b = &r->p->allocs[u];
  *lo = mp_max_u64(a->offset, b->offset);
  *hi = mp_min_u64(a->offset + a->slot_size, b->offset + b->slot_size);
  if (*lo >= *hi) return false;
  uint32_t a0, a1, b0, b1;
  slot_cols(r, t, &a0, &a1);
  slot_cols(r, u, &b0, &b1);
  *c0 = a0 > b0 ? a0 : b0;
  *c1 = a1 < b1 ? a1 : b1;
  return *c0 <= *c1;
}

/* Per-column facts and the coordinate system of arena ai.  False (and
 * nothing to free) when out of memory. */
static bool view_init(report *r, uint32_t ai, view *v) {
  const mp_plan *p = r->p;
  const mp_arena *a = &p->arenas[ai];
  uint32_t nc = r->n_cols;
  memset(v, 0, sizeof *v);
  v->ai = ai;
  v->a = a;
  v->scratch = a->role == MP_ROLE_SCRATCH;
  v->hw = a->used;
  v->budget = arena_budget(p, a);
  v->live = calloc(nc, sizeof *v->live);
  v->top = calloc(nc, sizeof *v->top);
  v->nlive = calloc(nc, sizeof *v->nlive);
  if (!v->live || !v->top || !v->nlive) {
    free(v->live);
    free(v->top);
    free(v->nlive);
    return false;
  }
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    if (!is_slot(r, t, ai)) continue;
    const mp_allocation *al = &p->allocs[t];
    uint32_t c0, c1;
    slot_cols(r, t, &c0, &c1);
    for (uint32_t c = c0; c <= c1; c++) {
      v->live[c] += al->slot_size;
      v->nlive[c]++;
      v->top[c] = mp_max_u64(v->top[c], al->offset + al->slot_size);
    }
  }
  /* in place: the live bytes are the union, so take off what live slots
   * share (pairs only: an output shares with one input at a time) */
  v->in_place = p->in_place && v->scratch;
  for (uint32_t t = 0; v->in_place && t < p->n_allocs; t++) {
    if (!is_slot(r, t, ai)) continue;
    for (uint32_t u = t + 1; u < p->n_allocs; u++) {
      uint64_t lo, hi;
      uint32_t c0, c1;
      if (!is_slot(r, u, ai) || !shared_bytes(r, t, u, &lo, &hi, &c0, &c1)) continue;
      for (uint32_t c = c0; c <= c1; c++) v->live[c] -= hi - lo;
    }
  }
  /* the y range shows the arena and its lower bound, and the budget when
   * it is near enough not to squash the slots */
  uint64_t base = mp_max_u64(mp_max_u64(a->total_size, a->used), a->lower_bound);
  if (v->budget <= base + base / 2) base = mp_max_u64(base, v->budget);
  v->ymax = mp_max_u64(base + base / 16, 64);
  v->h = v->scratch ? PLOT_H_SCRATCH : PLOT_H_STATIC;
  v->y0 = PLOT_TOP + v->h;
  v->width = (double)nc * r->col_w;
  if (v->scratch) {
    v->col = r->col_w;
    v->names = r->col_w >= NAME_COL_MIN && r->g->n_ops > 0;
    v->axis_h = v->names ? r->names_h : AXIS_PLAIN_H;
  } else {
    if (v->width > PLOT_TARGET_W) v->width = PLOT_TARGET_W;
    if (v->width < STATIC_MIN_W) v->width = STATIC_MIN_W;
    v->col = v->width / nc;
    v->axis_h = AXIS_PLAIN_H;
  }
  v->svg_h = v->y0 + v->axis_h;
  v->step = tick_step(v->ymax);
  return true;
}

static void view_free(view *v) {
  free(v->live);
  free(v->top);
  free(v->nlive);
}

/* Title and figures of the arena above its chart. */
static void put_arena_head(report *r, const view *v) {
  const mp_arena *a = v->a;
  mp_buf *b = r->b;
  char s1[32], s2[32], sym[192];
  const char *role = mp_role_name(a->role);
  mp_buf_printf(b,
                "<section class=\"card arena\" id=\"arena-%u\" data-arena=\"%u\" "
                "data-role=\"%s\" data-memory=\"%s\">\n<h3><span class=\"tag %s\">%s</span>",
                v->ai, v->ai, role, mp_platform_memory_name(&r->p->platform, a->memory), role, role);
  mp_buf_printf(b, "%s &middot; <code>", mp_platform_memory_name(&r->p->platform, a->memory));
  esc(b, mp_module_arena_symbol(r->p, r->prefix, r->shared, a, sym, sizeof sym));
  mp_buf_puts(b, "</code>");
  if (a->is_staged) {
    mp_buf_printf(b, " hydrated from %s <code>", mp_platform_memory_name(&r->p->platform, a->source_memory));
    esc(b, mp_arena_symbol(r->p, r->prefix, a, true, sym, sizeof sym));
    mp_buf_puts(b, "</code>");
  }
  mp_buf_printf(b, "</h3>\n<div class=\"stats\"><span><b>size</b> %s (%s B)</span>",
                hb(s1, sizeof s1, a->total_size), gb(s2, sizeof s2, a->total_size));
  if (v->scratch) {
    mp_buf_printf(b, "<span><b>lower bound</b> %s (%s B) ", hb(s1, sizeof s1, a->lower_bound),
                  gb(s2, sizeof s2, a->lower_bound));
    put_gap(b, a->total_size, a->lower_bound);
    if (v->in_place)
      mp_buf_printf(b, "</span><span><b>in-place bound</b> %s (%s B)",
                    hb(s1, sizeof s1, a->inplace_bound), gb(s2, sizeof s2, a->inplace_bound));
    mp_buf_puts(b, "</span><span><b>optimality</b> ");
    put_proof(b, a);
    mp_buf_puts(b, "</span>");
    const mp_order_result *o = &r->g->order;
    if (o->searched && r->g->reordered)
      mp_buf_printf(b, "<span><b>operator order</b> min_peak: %u of %u moved, %s %s &rarr; %s B"
                       "</span>", o->moved, r->g->n_ops, o->in_place ? "in-place bound" : "bound",
                    gb(s1, sizeof s1, o->model_bound), gb(s2, sizeof s2, o->bound));
    else if (o->searched)
      mp_buf_puts(b, "<span><b>operator order</b> the model's (min_peak found none lower)</span>");
  }
  /* the arena's room: its memory's budget less the memory's other arenas */
  const mp_memory_usage *u = &r->p->memories[a->memory];
  char s3[32];
  mp_buf_printf(b, "<span><b>room</b> %s (%s budget %s", hb(s1, sizeof s1, v->budget),
                mp_platform_memory_name(&r->p->platform, a->memory), hb(s3, sizeof s3, u->budget));
  if (u->budget > v->budget)
    mp_buf_printf(b, " less %s of its other arenas", hb(s3, sizeof s3, u->budget - v->budget));
  if (v->budget >= a->total_size)
    mp_buf_printf(b, "; %s free)</span>", hb(s2, sizeof s2, v->budget - a->total_size));
  else
    mp_buf_printf(b, ") <span class=\"warn\">(%s over)</span></span>",
                  hb(s2, sizeof s2, a->total_size - v->budget));
  mp_buf_printf(b, "<span><b>slots</b> %u</span><span><b>alignment</b> %u B</span></div>\n",
                a->n_tensors, a->alignment);
}

/* The byte axis, outside the scrolling plot so that it stays in view. */
static void put_yaxis(mp_buf *b, const view *v) {
  char s[32];
  mp_buf_printf(b, "<svg class=\"yaxis\" width=\"%d\" height=\"%.0f\">", YAXIS_W, v->svg_h);
  for (uint64_t bytes = 0; bytes <= v->ymax; bytes += v->step) {
    double y = ypx(v, bytes);
    mp_buf_printf(b,
                  "<line class=\"tick\" x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\"/>"
                  "<text class=\"ylab\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%s</text>",
                  YAXIS_W - 5, YAXIS_W, y, y, YAXIS_W - 8, y + 3.5, hb(s, sizeof s, bytes));
    if (v->ymax - bytes < v->step) break;
  }
  mp_buf_printf(b, "<text class=\"ylab\" x=\"4\" y=\"%.0f\">offset</text></svg>\n", v->y0 + 20);
}

/* Background: a hover band per op column (peak columns tinted) and the
 * horizontal grid. */
static void put_columns(report *r, const view *v) {
  mp_buf *b = r->b;
  const mp_graph *g = r->g;
  char s1[32], s2[32];
  for (uint32_t c = 0; v->scratch && c < r->n_cols && c < g->n_ops; c++) {
    mp_buf_printf(b,
                  "<rect class=\"op%s%s\" data-op=\"%u\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
                  "height=\"%.0f\"><title>op %u \xC2\xB7 ",
                  c % 2 ? " odd" : "", is_peak(v, c) ? " peak" : "", c, c * v->col, PLOT_TOP,
                  v->col, v->h, c);
    esc(b, g->ops[c].name);
    if (g->reordered) mp_buf_printf(b, " (model op %u)", g->ops[c].model_index);
    char tiled[48];
    if (emit_patch_label(g, c, tiled, sizeof tiled))
      mp_buf_printf(b, " (%s)", tiled[0] == '(' ? "patched stage: tile by tile" : tiled);
    else if (g->ops[c].is_view)
      mp_buf_puts(b, " (view: no copy)");
    mp_buf_printf(b, "\nlive %s in %u slot%s \xC2\xB7 arena top %s", hb(s1, sizeof s1, v->live[c]),
                  v->nlive[c], v->nlive[c] == 1 ? "" : "s", hb(s2, sizeof s2, v->top[c]));
    if (is_peak(v, c)) mp_buf_puts(b, "\nat the high-water mark");
    mp_buf_puts(b, "</title></rect>\n");
  }
  for (uint64_t bytes = v->step; bytes <= v->ymax; bytes += v->step) {
    double y = ypx(v, bytes);
    mp_buf_printf(b, "<line class=\"grid\" x1=\"0\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\"/>",
                  v->width, y, y);
    if (v->ymax - bytes < v->step) break;
  }
  mp_buf_puts(b, "\n");
}

/* One rectangle per slot, with its tooltip and (when it fits) a label;
 * then a dashed outline per view alias over the alias's own lifetime. */
static void put_slots(report *r, const view *v) {
  const mp_plan *p = r->p;
  mp_buf *b = r->b;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    if (!is_slot(r, t, v->ai)) continue;
    const mp_allocation *al = &p->allocs[t];
    uint32_t c0, c1;
    slot_cols(r, t, &c0, &c1);
    double x = c0 * v->col, w = (c1 - c0 + 1) * v->col;
    double ybot = ypx(v, al->offset), ytop = ypx(v, al->offset + al->slot_size);
    if (ybot - ytop < SLOT_MIN_H) ytop = ybot - SLOT_MIN_H; /* grown upwards */
    const char *cls = KINDS[r->kinds[t]].cls;
    mp_buf_printf(b,
                  "<rect class=\"slot k-%s\" data-tensor=\"%u\" data-offset=\"%llu\" "
                  "data-size=\"%llu\" data-slot-size=\"%llu\" data-start=\"%u\" data-end=\"%u\" "
                  "x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"url(#k-%s)\">",
                  cls, t, (unsigned long long)al->offset, (unsigned long long)al->size,
                  (unsigned long long)al->slot_size, c0, c1, x, ytop, w, ybot - ytop, cls);
    put_slot_title(r, t, false);
    mp_buf_puts(b, "</rect>");
    put_slot_label(r, t, x, ytop, w, ybot - ytop);
    mp_buf_puts(b, "\n");
  }
  /* in place: the bytes two live slots share, over the ops they share */
  for (uint32_t t = 0; v->in_place && t < p->n_allocs; t++) {
    if (!is_slot(r, t, v->ai)) continue;
    for (uint32_t u = t + 1; u < p->n_allocs; u++) {
      uint64_t lo, hi;
      uint32_t c0, c1;
      if (!is_slot(r, u, v->ai) || !shared_bytes(r, t, u, &lo, &hi, &c0, &c1)) continue;
      /* the one born later is the output written over the other */
      bool u_out = p->lifetimes[u].start_op >= p->lifetimes[t].start_op;
      uint32_t in = u_out ? t : u, out = u_out ? u : t;
      double x = c0 * v->col, w = (c1 - c0 + 1) * v->col;
      double ybot = ypx(v, lo), ytop = ypx(v, hi);
      if (ybot - ytop < 2) ytop = ybot - 2;
      mp_buf_printf(b,
                    "<rect class=\"shared\" data-in=\"%u\" data-out=\"%u\" data-offset=\"%llu\" "
                    "data-size=\"%llu\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">"
                    "<title>#%u and #%u share %llu bytes [%llu, %llu) at op %u: its kernel writes #%u "
                    "over the bytes of #%u it has finished reading</title></rect>\n",
                    in, out, (unsigned long long)lo, (unsigned long long)(hi - lo), x, ytop, w,
                    ybot - ytop, in, out, (unsigned long long)(hi - lo), (unsigned long long)lo,
                    (unsigned long long)hi, c0, out, in);
    }
  }
  uint32_t nc = r->n_cols;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *al = &p->allocs[t];
    if (!al->placed || al->alias_of < 0 || al->arena != v->ai) continue;
    const mp_lifetime *lt = &r->g->tensors[t].lifetime;
    uint32_t c0 = 0, c1 = nc - 1;
    if (v->scratch && lt->start_op >= 0) {
      c0 = (uint32_t)lt->start_op < nc ? (uint32_t)lt->start_op : nc - 1;
      c1 = lt->end_op >= lt->start_op && (uint32_t)lt->end_op < nc ? (uint32_t)lt->end_op : c0;
    }
    double x = c0 * v->col + 1.5, w = (c1 - c0 + 1) * v->col - 3;
    /* a strided view spans its rows and the bytes between them */
    uint64_t extent = al->alias_stride && al->alias_row
                          ? (al->size / al->alias_row - 1) * al->alias_stride + al->alias_row
                          : al->slot_size;
    double ybot = ypx(v, al->offset) - 1.5, ytop = ypx(v, al->offset + extent) + 1.5;
    if (ybot - ytop < 2) ytop = ybot - 2;
    if (w < 2) w = 2;
    mp_buf_printf(b,
                  "<rect class=\"alias\" data-tensor=\"%u\" data-alias-of=\"%d\" "
                  "data-alias-offset=\"%llu\" data-offset=\"%llu\" data-size=\"%llu\" ",
                  t, al->alias_of, (unsigned long long)al->alias_offset,
                  (unsigned long long)al->offset, (unsigned long long)al->size);
    if (al->alias_stride)
      mp_buf_printf(b, "data-alias-row=\"%llu\" data-alias-stride=\"%llu\" ",
                    (unsigned long long)al->alias_row, (unsigned long long)al->alias_stride);
    mp_buf_printf(b, "x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">", x, ytop, w,
                  ybot - ytop);
    put_slot_title(r, t, true);
    mp_buf_puts(b, "</rect>");
    if (ybot - ytop >= 2 * LABEL_MIN_H + 4 && w >= 16 * CHAR_W)
      mp_buf_printf(b, "<text class=\"lbl alias-lbl\" x=\"%.2f\" y=\"%.2f\">view #%u of #%d</text>",
                    x + 3, ybot - 4, t, al->alias_of);
    mp_buf_puts(b, "\n");
  }
}

/* Live bytes per op: one short level per column, no risers, so the marks
 * read as "this op needs this much" and do not cut through slots. */
static void put_live(mp_buf *b, const report *r, const view *v) {
  if (!v->scratch || r->g->n_ops == 0) return;
  mp_buf d;
  mp_buf_init(&d);
  for (uint32_t c = 0; c < r->n_cols; c++)
    mp_buf_printf(&d, "%sM%.2f,%.2f H%.2f", c ? " " : "", c * v->col + 1, ypx(v, v->live[c]),
                  (c + 1) * v->col - 1);
  mp_buf_printf(b, "<path class=\"live-halo\" d=\"%s\"/><path class=\"live\" d=\"%s\"/>\n",
                mp_buf_str(&d), mp_buf_str(&d));
  if (d.failed) b->failed = true;
  mp_buf_free(&d);
}

/* A horizontal marker line of the chart. */
typedef struct yline {
  const char *cls;
  const char *what;
  uint64_t bytes;
  bool offscale; /* above the plot: only its label is drawn */
} yline;

static int ylines(const view *v, yline ln[4]) {
  int n = 0;
  ln[n++] = (yline){"hwm", v->scratch ? "high-water" : "size", v->hw, false};
  if (v->scratch) ln[n++] = (yline){"lb", "lower bound", v->a->lower_bound, false};
  if (v->scratch && v->in_place)
    ln[n++] = (yline){"ib", "in-place bound", v->a->inplace_bound, false};
  ln[n++] = (yline){"budget", "room", v->budget, v->budget > v->ymax};
  return n;
}

static void put_lines(mp_buf *b, const view *v) {
  yline ln[4];
  int n = ylines(v, ln);
  for (int i = 0; i < n; i++) {
    if (ln[i].offscale) continue;
    double y = ypx(v, ln[i].bytes);
    mp_buf_printf(b,
                  "<line class=\"%s\" data-bytes=\"%llu\" x1=\"0\" x2=\"%.0f\" y1=\"%.2f\" "
                  "y2=\"%.2f\"/>\n",
                  ln[i].cls, (unsigned long long)ln[i].bytes, v->width, y, y);
  }
}

/* Peak tags above the plot and the op axis below it: rotated "index NAME"
 * labels when the columns are wide enough, else every few indices, and a
 * hover target naming the op in every column. */
static void put_xaxis(report *r, const view *v) {
  mp_buf *b = r->b;
  const mp_graph *g = r->g;
  mp_buf_printf(b, "<line class=\"tick\" x1=\"0\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\"/>", v->width,
                v->y0 + 0.5, v->y0 + 0.5);
  if (!v->scratch) {
    mp_buf_printf(b,
                  "<text class=\"xlab\" x=\"4\" y=\"%.2f\">every slot is live for the whole "
                  "program (ops 0&ndash;%u)</text>\n",
                  v->y0 + 16, g->n_ops ? g->n_ops - 1 : 0);
    return;
  }
  uint32_t every = 1;
  if (!v->names)
    while (every * v->col < 34)
      every = every < 5 ? 5 : every * 2;
  for (uint32_t c = 0; c < r->n_cols && c < g->n_ops; c++) {
    bool peak = is_peak(v, c);
    double cx = (c + 0.5) * v->col;
    if (peak)
      mp_buf_printf(b,
                    "<text class=\"peaktag\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">"
                    "\xE2\x96\xBC</text>",
                    cx, PLOT_TOP - 4);
    mp_buf_printf(b,
                  "<g class=\"xop\" data-op=\"%u\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                  "height=\"%.0f\" fill=\"transparent\"/><title>op %u \xC2\xB7 ",
                  c, c * v->col, v->y0 + 1, v->col, v->axis_h - 2, c);
    esc(b, g->ops[c].name);
    if (g->reordered) mp_buf_printf(b, " (model op %u)", g->ops[c].model_index);
    mp_buf_puts(b, "</title>");
    if (v->names) {
      mp_buf_printf(b,
                    "<text class=\"xlab%s\" transform=\"translate(%.2f,%.2f) rotate(-90)\" "
                    "text-anchor=\"end\">%u ",
                    peak ? " peak" : "", cx + 3.5, v->y0 + 6, c);
      esc_label(b, g->ops[c].name, r->op_label);
      mp_buf_puts(b, "</text>");
    } else if (c % every == 0) {
      mp_buf_printf(b,
                    "<line class=\"tick\" x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" y2=\"%.2f\"/>"
                    "<text class=\"xlab%s\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%u"
                    "</text>",
                    cx, cx, v->y0, v->y0 + 4, peak ? " peak" : "", cx, v->y0 + 15, c);
    } else if (peak) {
      mp_buf_printf(b,
                    "<text class=\"xlab peak\" x=\"%.2f\" y=\"%.2f\" "
                    "text-anchor=\"middle\">\xE2\x96\xB2</text>",
                    cx, v->y0 + 30);
    }
    mp_buf_puts(b, "</g>\n");
  }
}

/* The labels of the marker lines, outside the scrolling plot at the right,
 * pushed apart when they would overlap. */
static void put_line_labels(mp_buf *b, const view *v) {
  char s[32];
  yline ln[4];
  int n = ylines(v, ln), order[4];
  double at[4], pos[4];
  for (int i = 0; i < n; i++) {
    order[i] = i;
    at[i] = ln[i].offscale ? PLOT_TOP + 4 : ypx(v, ln[i].bytes);
  }
  for (int i = 1; i < n; i++) /* insertion sort by y */
    for (int j = i; j > 0 && at[order[j]] < at[order[j - 1]]; j--) {
      int tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  mp_buf_printf(b, "<svg class=\"lines\" width=\"%d\" height=\"%.0f\">", LABELS_W, v->svg_h);
  for (int k = 0; k < n; k++) {
    const yline *l = &ln[order[k]];
    double y = at[order[k]];
    pos[k] = k > 0 && y < pos[k - 1] + 13 ? pos[k - 1] + 13 : y;
    mp_buf_printf(b, "<line class=\"%s\" x1=\"0\" x2=\"10\" y1=\"%.2f\" y2=\"%.2f\"/>", l->cls, y,
                  y);
    mp_buf_printf(b, "<text class=\"t-%s\" x=\"14\" y=\"%.2f\">%s%s %s%s</text>", l->cls,
                  pos[k] + 4, l->offscale ? "\xE2\x86\x91 " : "", l->what,
                  hb(s, sizeof s, l->bytes), l->offscale ? " (off scale)" : "");
  }
  mp_buf_puts(b, "</svg>\n");
}

/* One sentence under a scratch chart: where the high-water mark and the
 * live-bytes peak (the lower bound) are reached. */
static void put_peak_note(report *r, const view *v) {
  mp_buf *b = r->b;
  const mp_graph *g = r->g;
  uint32_t nc = r->n_cols, first = nc, last = 0, count = 0, lbop = nc;
  char s[32];
  if (!v->scratch || v->hw == 0 || g->n_ops == 0) return;
  for (uint32_t c = 0; c < nc; c++) {
    if (is_peak(v, c)) {
      if (first == nc) first = c;
      last = c;
      count++;
    }
    if (lbop == nc && v->live[c] == v->a->lower_bound) lbop = c;
  }
  if (first == nc) return;
  mp_buf_printf(b, "<p class=\"note peak-note\">High-water mark %s reached at op %u (",
                hb(s, sizeof s, v->hw), first);
  esc(b, g->ops[first].name);
  mp_buf_puts(b, ")");
  if (count > 1)
    mp_buf_printf(b, " and %u more op%s up to op %u", count - 1, count == 2 ? "" : "s", last);
  mp_buf_puts(b, ".");
  if (lbop < nc) {
    mp_buf_printf(b, " Live bytes peak (the lower bound, %s) at op %u (",
                  hb(s, sizeof s, v->a->lower_bound), lbop);
    esc(b, g->ops[lbop].name);
    mp_buf_puts(b, ").");
  }
  mp_buf_puts(b, "</p>\n");
  /* memory.patch: what runs tile by tile, as the summary says it */
  if (g->patch && v->a->role == MP_ROLE_SCRATCH) {
    mp_buf text;
    mp_buf_init(&text);
    emit_patch_summary(&text, r->p);
    if (text.data && text.len) {
      mp_buf_puts(b, "<p class=\"note\">");
      esc_n(b, text.data, text.len);
      mp_buf_puts(b, "</p>\n");
    }
    mp_buf_free(&text);
  }
}

/* The section of arena ai: head, y axis | scrolling plot | line labels,
 * and the peak note.  The plot carries its scale as data attributes. */
static void put_arena(report *r, uint32_t ai) {
  mp_buf *b = r->b;
  view v;
  if (!view_init(r, ai, &v)) {
    b->failed = true;
    return;
  }
  const mp_arena *a = v.a;
  put_arena_head(r, &v);
  mp_buf_puts(b, "<div class=\"chart\">\n");
  put_yaxis(b, &v);
  mp_buf_printf(b,
                "<div class=\"scroll\"><svg class=\"plot\" width=\"%.0f\" height=\"%.0f\" "
                "data-arena=\"%u\" data-role=\"%s\" data-memory=\"%s\" data-x0=\"0\" "
                "data-y0=\"%.0f\" data-plot-height=\"%.0f\" data-ymax=\"%llu\" "
                "data-scale=\"%.9g\" data-col-width=\"%.4f\" data-ops=\"%u\" "
                "data-size=\"%llu\" data-used=\"%llu\" data-lower-bound=\"%llu\" "
                "data-budget=\"%llu\" data-slots=\"%u\">\n",
                v.width, v.svg_h, ai, mp_role_name(a->role), mp_platform_memory_name(&r->p->platform, a->memory), v.y0, v.h,
                (unsigned long long)v.ymax, v.h / (double)v.ymax, v.col, r->g->n_ops,
                (unsigned long long)a->total_size, (unsigned long long)a->used,
                (unsigned long long)a->lower_bound, (unsigned long long)v.budget, a->n_tensors);
  put_columns(r, &v);
  put_slots(r, &v);
  put_live(b, r, &v);
  put_lines(b, &v);
  put_xaxis(r, &v);
  mp_buf_puts(b, "</svg></div>\n");
  put_line_labels(b, &v);
  mp_buf_puts(b, "</div>\n");
  put_peak_note(r, &v);
  mp_buf_puts(b, "</section>\n");
  view_free(&v);
}

/* ---- tensor table -------------------------------------------------------- */

static void put_table(report *r) {
  const mp_plan *p = r->p;
  const mp_graph *g = r->g;
  mp_buf *b = r->b;
  char s1[32], sh[160];
  uint32_t n_placed = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++)
    n_placed += p->allocs[t].placed;
  mp_buf_printf(b,
                "<section class=\"card\" id=\"tensor-table\">\n<h2>Tensors</h2>\n"
                "<input id=\"filter\" type=\"search\" placeholder=\"filter (name, role, "
                "memory, ...)\"> <span class=\"note\">%u placed of %u; click a header to sort, "
                "a row to find its slot.</span>\n",
                n_placed, p->n_allocs);
  mp_buf_puts(b, "<div class=\"wide tall\"><table class=\"grid\" id=\"tensors\">\n<thead><tr><th class=\"n\">id</th>"
                 "<th>name</th><th>role</th><th>memory</th><th class=\"n\">offset</th>"
                 "<th class=\"n\">size</th><th class=\"n\">lifetime</th><th class=\"n\">alias of"
                 "</th><th>type</th><th>why there</th></tr></thead>\n<tbody>\n");
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (!a->placed) continue;
    const mp_tensor *x = &g->tensors[t];
    kind k = r->kinds[a->alias_of >= 0 ? (uint32_t)a->alias_of : t];
    mp_buf_printf(b,
                  "<tr data-tensor=\"%u\" data-arena=\"%u\"><td class=\"n\" data-v=\"%u\">%u"
                  "</td><td class=\"name mono\" title=\"",
                  t, a->arena, t, t);
    esc(b, x->name);
    mp_buf_puts(b, "\">");
    /* a converter's long scoped name, shortened in the middle (its
     * start and its layer stay; the title has it whole) so that every
     * column shows at 1400 px */
    char nb[64];
    esc(b, mp_name_middle(x->name, 48, nb, sizeof nb));
    mp_buf_printf(b,
                  "</td><td data-v=\"%d%s\"><span class=\"sw\" style=\"background:%s\">"
                  "</span>%s",
                  (int)a->binding.role, KINDS[k].cls, KINDS[k].fill, mp_role_name(a->binding.role));
    if (KINDS[k].note[0]) mp_buf_printf(b, " <span class=\"note\">(%s)</span>", KINDS[k].note);
    mp_buf_printf(b, "</td><td>%s", mp_platform_memory_name(&r->p->platform, a->memory));
    if (a->binding.source_memory != a->memory)
      mp_buf_printf(b, " &larr; %s", mp_platform_memory_name(&r->p->platform, a->binding.source_memory));
    mp_buf_printf(b, "</td><td class=\"n\" data-v=\"%llu\">%llu</td>",
                  (unsigned long long)a->offset, (unsigned long long)a->offset);
    mp_buf_printf(b, "<td class=\"n\" data-v=\"%llu\" title=\"%llu B\">%s</td>",
                  (unsigned long long)a->size, (unsigned long long)a->size,
                  hb(s1, sizeof s1, a->size));
    if (a->binding.role == MP_ROLE_SCRATCH) {
      const mp_lifetime *lt = a->alias_of >= 0 ? &x->lifetime : &p->lifetimes[t];
      mp_buf_printf(b, "<td class=\"n\" data-v=\"%d\">[%d, %d]</td>", lt->start_op, lt->start_op,
                    lt->end_op);
    } else {
      mp_buf_puts(b, "<td class=\"n\" data-v=\"-1\">program</td>");
    }
    if (a->alias_of >= 0)
      mp_buf_printf(b, "<td class=\"n\" data-v=\"%d\">#%d</td>", a->alias_of, a->alias_of);
    else
      mp_buf_puts(b, "<td class=\"n\" data-v=\"-1\"></td>");
    shape_str(x, sh, sizeof sh);
    mp_buf_puts(b, "<td class=\"mono\">");
    esc(b, sh);
    char why[256];
    mp_buf_puts(b, "</td><td class=\"why\">");
    esc(b, mp_reason_text(&r->p->platform, &a->reason, a->alias_of, why, sizeof why));
    mp_buf_puts(b, "</td></tr>\n");
  }
  mp_buf_puts(b, "</tbody></table></div>\n</section>\n");
}

/* ---- entry --------------------------------------------------------------- */

mp_status mp_report_html(const mp_plan *p, const char *prefix, char **out) {
  return mp_report_html_module(p, prefix, NULL, NULL, out);
}

mp_status mp_report_html_module(const mp_plan *p, const char *prefix,
                                const mp_module_tables *tables, const mp_shared_scratch *shared,
                                char **out) {
  *out = NULL;
  report r;
  memset(&r, 0, sizeof r);
  r.tables = tables;
  r.shared = shared;
  mp_buf b;
  mp_buf_init(&b);
  r.p = p;
  r.g = p->graph;
  r.prefix = prefix ? prefix : "model";
  r.b = &b;
  r.kinds = calloc(p->n_allocs ? p->n_allocs : 1, sizeof *r.kinds);
  if (!r.kinds) return MP_ERR_NOMEM;
  compute_kinds(&r);
  r.n_cols = r.g->n_ops ? r.g->n_ops : 1;
  r.col_w = PLOT_TARGET_W / r.n_cols;
  if (r.col_w < COL_MIN) r.col_w = COL_MIN;
  if (r.col_w > COL_MAX) r.col_w = COL_MAX;
  size_t digits = (size_t)snprintf(NULL, 0, "%u", r.n_cols - 1);
  for (uint32_t o = 0; o < r.g->n_ops; o++) {
    size_t n = u8_count(r.g->ops[o].name, strlen(r.g->ops[o].name));
    if (n > r.op_label) r.op_label = (uint32_t)n;
  }
  if (r.op_label > OP_LABEL_MAX) r.op_label = OP_LABEL_MAX;
  r.names_h = 12 + (double)(digits + 1 + r.op_label) * CHAR_W;

  mp_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<meta name=\"generator\" content=\"memplan " MP_VERSION "\">\n"
                  "<title>memplan report: ");
  esc(&b, mp_model_file_name(r.g->model));
  mp_buf_printf(&b,
                "</title>\n<style>\n%s</style>\n</head>\n<body data-plan-hash="
                "\"0x%016llx\">\n",
                CSS, (unsigned long long)p->hash);
  put_defs(&b);
  put_header(&r);
  mp_buf_puts(&b, "<main>\n");
  put_arena_table(&r);
  put_banks(&r);
  mp_buf_puts(&b, "<section class=\"card\" id=\"timelines\">\n<h2>Timelines</h2>\n"
                  "<p class=\"note\">x: operator index in execution order; y: byte offset in the "
                  "arena. Hover a slot or a column for details; click a slot to highlight it "
                  "and its table row.</p>\n");
  put_legend(&b, p->in_place);
  mp_buf_puts(&b, "</section>\n");
  for (uint32_t i = 0; i < p->n_arenas; i++)
    put_arena(&r, i);
  put_table(&r);
  mp_buf_printf(&b, "</main>\n<div id=\"tip\"></div>\n<script>\n%s</script>\n</body>\n</html>\n",
                JS);
  free(r.kinds);
  if (b.failed) {
    mp_buf_free(&b);
    return MP_ERR_NOMEM;
  }
  *out = b.data;
  return MP_OK;
}

mp_status mp_report_html_write(const mp_plan *p, const char *prefix, const char *path,
                               const mp_diag_sink *dx) {
  char *html = NULL;
  mp_status st = mp_report_html(p, prefix, &html);
  if (st == MP_OK) st = mp_write_file(path, html, strlen(html), dx);
  free(html);
  return st;
}
