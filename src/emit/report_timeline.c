/*
 * report_timeline.c — one arena's timeline in the HTML report: x is the
 * operator index, y the byte offset, one rectangle per slot, the live
 * bytes and the high-water mark as lines, and the axes.
 *
 * The one idea: every coordinate is computed here and written on its
 * element (data-y0, data-plot-height and data-ymax on a plot, so y(bytes)
 * = y0 - bytes * plot_height / ymax), so a test reads the picture back
 * from the DOM; labels appear only where they fit.
 *
 * It writes the timelines only; the page around them is report_html.c's.
 */
#include "emit/report.h"
#include "emit/report_timeline.h"
#include "plan/symbols.h"

#include <stdlib.h>
#include <string.h>

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

void report_put_legend(mp_buf *b, bool in_place) {
  mp_buf_puts(b, "<div class=\"legend\">");
  for (int k = 0; k < K_COUNT; k++)
    mp_buf_printf(b,
                  "<span><svg width=\"16\" height=\"14\"><rect width=\"16\" height=\"14\" "
                  "fill=\"url(#k-%s)\" stroke=\"#0003\"/></svg>%s</span>",
                  report_kinds[k].cls, report_kinds[k].label);
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
  report_esc(b, x->name);
  mp_buf_printf(b, "\n%s%s \xC2\xB7 %s", alias ? "view alias \xC2\xB7 " : "",
                report_kinds[r->kinds[alias ? (uint32_t)a->alias_of : t]].label,
                mp_platform_memory_name(&r->p->platform, a->memory));
  if (a->binding.source_memory != a->memory)
    mp_buf_printf(b, " (from %s)", mp_platform_memory_name(&r->p->platform, a->binding.source_memory));
  mp_buf_printf(b, "\noffset %llu (0x%llx) \xC2\xB7 %s B", (unsigned long long)a->offset,
                (unsigned long long)a->offset, report_gb(s1, sizeof s1, a->size));
  if (a->slot_size != a->size) mp_buf_printf(b, " (slot %s B)", report_gb(s2, sizeof s2, a->slot_size));
  report_shape_str(x, sh, sizeof sh);
  mp_buf_printf(b, " \xC2\xB7 %s", sh);
  if (a->binding.role == MP_ROLE_SCRATCH) {
    const mp_lifetime *lt = alias ? &x->lifetime : &p->lifetimes[t];
    mp_buf_printf(b, "\nlive ops [%d, %d]", lt->start_op, lt->end_op);
    if (lt->start_op >= 0 && (uint32_t)lt->start_op < r->g->n_ops && lt->end_op >= 0 &&
        (uint32_t)lt->end_op < r->g->n_ops) {
      mp_buf_puts(b, " ");
      report_esc(b, r->g->ops[lt->start_op].name);
      mp_buf_puts(b, " \xE2\x86\x92 ");
      report_esc(b, r->g->ops[lt->end_op].name);
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
  const char *ink = report_kinds[r->kinds[t]].ink;
  const char *halo = report_kinds[r->kinds[t]].fill;
  const char *name = r->g->tensors[t].name;
  bool named = name[0] != '\0';
  if (named && hmax < idn + 1 + NAME_MIN_CHARS && vmax >= idn + 1 + NAME_MIN_CHARS &&
      vmax > hmax + 4) {
    double ax = x + w / 2 + 3.5, ay = y + h - 3;
    mp_buf_printf(b,
                  "<text class=\"lbl v\" x=\"%.2f\" y=\"%.2f\" transform=\"rotate(-90 %.2f %.2f)\" "
                  "fill=\"%s\" stroke=\"%s\">%s ",
                  ax, ay, ax, ay, ink, halo, id);
    report_esc_label(b, name, vmax - idn - 1);
    mp_buf_puts(b, "</text>");
    return;
  }
  if (hmax < idn) return;
  double ty = h >= 2 * LABEL_MIN_H + 2 ? y + 12 : y + h / 2 + 3.5;
  mp_buf_printf(b, "<text class=\"lbl\" x=\"%.2f\" y=\"%.2f\" fill=\"%s\" stroke=\"%s\">%s", x + 3,
                ty, ink, halo, id);
  if (named && hmax >= idn + 1 + NAME_MIN_CHARS) {
    mp_buf_putc(b, ' ');
    report_esc_label(b, name, hmax - idn - 1);
  }
  mp_buf_puts(b, "</text>");
  if (h >= 2 * LABEL_MIN_H + 2) {
    report_hb(s, sizeof s, r->p->allocs[t].size);
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
  report_slot_cols(r, t, &a0, &a1);
  report_slot_cols(r, u, &b0, &b1);
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
  v->budget = report_arena_budget(p, a);
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
    if (!report_is_slot(r, t, ai)) continue;
    const mp_allocation *al = &p->allocs[t];
    uint32_t c0, c1;
    report_slot_cols(r, t, &c0, &c1);
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
    if (!report_is_slot(r, t, ai)) continue;
    for (uint32_t u = t + 1; u < p->n_allocs; u++) {
      uint64_t lo, hi;
      uint32_t c0, c1;
      if (!report_is_slot(r, u, ai) || !shared_bytes(r, t, u, &lo, &hi, &c0, &c1)) continue;
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
  report_esc(b, mp_module_arena_symbol(r->p, r->prefix, r->shared, a, sym, sizeof sym));
  mp_buf_puts(b, "</code>");
  if (a->is_staged) {
    mp_buf_printf(b, " hydrated from %s <code>", mp_platform_memory_name(&r->p->platform, a->source_memory));
    report_esc(b, mp_arena_symbol(r->p, r->prefix, a, true, sym, sizeof sym));
    mp_buf_puts(b, "</code>");
  }
  mp_buf_printf(b, "</h3>\n<div class=\"stats\"><span><b>size</b> %s (%s B)</span>",
                report_hb(s1, sizeof s1, a->total_size), report_gb(s2, sizeof s2, a->total_size));
  if (v->scratch) {
    mp_buf_printf(b, "<span><b>lower bound</b> %s (%s B) ", report_hb(s1, sizeof s1, a->lower_bound),
                  report_gb(s2, sizeof s2, a->lower_bound));
    report_put_gap(b, a->total_size, a->lower_bound);
    if (v->in_place)
      mp_buf_printf(b, "</span><span><b>in-place bound</b> %s (%s B)",
                    report_hb(s1, sizeof s1, a->inplace_bound), report_gb(s2, sizeof s2, a->inplace_bound));
    mp_buf_puts(b, "</span><span><b>optimality</b> ");
    report_put_proof(b, a);
    mp_buf_puts(b, "</span>");
    const mp_order_result *o = &r->g->order;
    if (o->searched && r->g->reordered)
      mp_buf_printf(b, "<span><b>operator order</b> min_peak: %u of %u moved, %s %s &rarr; %s B"
                       "</span>", o->moved, r->g->n_ops, o->in_place ? "in-place bound" : "bound",
                    report_gb(s1, sizeof s1, o->model_bound), report_gb(s2, sizeof s2, o->bound));
    else if (o->searched)
      mp_buf_puts(b, "<span><b>operator order</b> the model's (min_peak found none lower)</span>");
  }
  /* the arena's room: its memory's budget less the memory's other arenas */
  const mp_memory_usage *u = &r->p->memories[a->memory];
  char s3[32];
  mp_buf_printf(b, "<span><b>room</b> %s (%s budget %s", report_hb(s1, sizeof s1, v->budget),
                mp_platform_memory_name(&r->p->platform, a->memory), report_hb(s3, sizeof s3, u->budget));
  if (u->budget > v->budget)
    mp_buf_printf(b, " less %s of its other arenas", report_hb(s3, sizeof s3, u->budget - v->budget));
  if (v->budget >= a->total_size)
    mp_buf_printf(b, "; %s free)</span>", report_hb(s2, sizeof s2, v->budget - a->total_size));
  else
    mp_buf_printf(b, ") <span class=\"warn\">(%s over)</span></span>",
                  report_hb(s2, sizeof s2, a->total_size - v->budget));
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
                  YAXIS_W - 5, YAXIS_W, y, y, YAXIS_W - 8, y + 3.5, report_hb(s, sizeof s, bytes));
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
    report_esc(b, g->ops[c].name);
    if (g->reordered) mp_buf_printf(b, " (model op %u)", g->ops[c].model_index);
    char tiled[48];
    if (emit_patch_label(g, c, tiled, sizeof tiled))
      mp_buf_printf(b, " (%s)", tiled[0] == '(' ? "patched stage: tile by tile" : tiled);
    else if (g->ops[c].is_view)
      mp_buf_puts(b, " (view: no copy)");
    mp_buf_printf(b, "\nlive %s in %u slot%s \xC2\xB7 arena top %s", report_hb(s1, sizeof s1, v->live[c]),
                  v->nlive[c], v->nlive[c] == 1 ? "" : "s", report_hb(s2, sizeof s2, v->top[c]));
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
    if (!report_is_slot(r, t, v->ai)) continue;
    const mp_allocation *al = &p->allocs[t];
    uint32_t c0, c1;
    report_slot_cols(r, t, &c0, &c1);
    double x = c0 * v->col, w = (c1 - c0 + 1) * v->col;
    double ybot = ypx(v, al->offset), ytop = ypx(v, al->offset + al->slot_size);
    if (ybot - ytop < SLOT_MIN_H) ytop = ybot - SLOT_MIN_H; /* grown upwards */
    const char *cls = report_kinds[r->kinds[t]].cls;
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
    if (!report_is_slot(r, t, v->ai)) continue;
    for (uint32_t u = t + 1; u < p->n_allocs; u++) {
      uint64_t lo, hi;
      uint32_t c0, c1;
      if (!report_is_slot(r, u, v->ai) || !shared_bytes(r, t, u, &lo, &hi, &c0, &c1)) continue;
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
    report_esc(b, g->ops[c].name);
    if (g->reordered) mp_buf_printf(b, " (model op %u)", g->ops[c].model_index);
    mp_buf_puts(b, "</title>");
    if (v->names) {
      mp_buf_printf(b,
                    "<text class=\"xlab%s\" transform=\"translate(%.2f,%.2f) rotate(-90)\" "
                    "text-anchor=\"end\">%u ",
                    peak ? " peak" : "", cx + 3.5, v->y0 + 6, c);
      report_esc_label(b, g->ops[c].name, r->op_label);
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
                  report_hb(s, sizeof s, l->bytes), l->offscale ? " (off scale)" : "");
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
                report_hb(s, sizeof s, v->hw), first);
  report_esc(b, g->ops[first].name);
  mp_buf_puts(b, ")");
  if (count > 1)
    mp_buf_printf(b, " and %u more op%s up to op %u", count - 1, count == 2 ? "" : "s", last);
  mp_buf_puts(b, ".");
  if (lbop < nc) {
    mp_buf_printf(b, " Live bytes peak (the lower bound, %s) at op %u (",
                  report_hb(s, sizeof s, v->a->lower_bound), lbop);
    report_esc(b, g->ops[lbop].name);
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
      report_esc_n(b, text.data, text.len);
      mp_buf_puts(b, "</p>\n");
    }
    mp_buf_free(&text);
  }
}

/* The section of arena ai: head, y axis | scrolling plot | line labels,
 * and the peak note.  The plot carries its scale as data attributes. */
void report_put_arena(report *r, uint32_t ai) {
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

