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
 * This file writes the page: style, script, header, arena summary, bank
 * bars and tensor table; the timelines are report_timeline.c's and what
 * both read (escaping, byte formats, slot kinds, plan facts)
 * report_facts.c's.
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
#include "emit/report_facts.h"
#include "emit/report_timeline.h"
#include "plan/symbols.h"
#include "util/file.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

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
                  report_kinds[k].cls, report_kinds[k].fill, report_kinds[k].mark);
  }
  mp_buf_printf(b,
                "<pattern id=\"k-src\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
                "<rect width=\"8\" height=\"8\" fill=\"%s\"/>%s</pattern>\n",
                C_CONST, report_kinds[K_IN].mark);
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
    report_esc(r->b, k);
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
  report_esc(b, mp_model_file_name(g->model));
  mp_buf_printf(b, "</code> &middot; subgraph %u &middot; %u ops &middot; %u tensors</dd>\n",
                g->subgraph, g->n_ops, g->n_tensors);
  mp_buf_puts(b, "<dt>planner</dt><dd><code id=\"planner\">");
  report_esc(b, p->planner);
  mp_buf_puts(b, "</code> &middot; options: <code>");
  put_options(r);
  mp_buf_puts(b, "</code></dd>\n");
  if (p->in_place) {
    /* memory.in_place: which way, and what size's channel-serial kernels
     * cost and save */
    mp_buf_printf(b, "<dt>in place</dt><dd><code id=\"in-place\">%s</code> &middot; %s",
                  mp_in_place_mode_name(p->in_place_mode),
                  p->in_place_mode == MP_IN_PLACE_SPEED
                      ? "every operator keeps its fastest kernel"
                      : "the smallest scratch: a depthwise convolution runs channel by channel "
                        "(slower) where that lowers the in-place bound");
    if (g->n_serial_ops) {
      mp_buf_printf(b, "; here op%s", g->n_serial_ops > 1 ? "s" : "");
      const char *sep = " ";
      for (uint32_t o = 0; o < g->n_ops; o++)
        if (g->ops[o].channel_serial) {
          mp_buf_printf(b, "%s%u", sep, o);
          sep = ", ";
        }
      uint64_t sc = mp_plan_scratch_bytes(p);
      if (p->speed_scratch > sc)
        mp_buf_printf(b, " (<code>speed</code> needs %llu B of scratch, %llu B more)",
                      (unsigned long long)p->speed_scratch,
                      (unsigned long long)(p->speed_scratch - sc));
    }
    mp_buf_puts(b, "</dd>\n");
  }
  mp_buf_puts(b, "<dt>platform</dt><dd><code id=\"platform\">");
  report_esc(b, p->platform.name);
  mp_buf_printf(b, "</code> &middot; min alignment %u B &middot; symbol prefix <code>",
                p->platform.min_alignment);
  report_esc(b, r->prefix);
  snprintf(h, sizeof h, "0x%016llx", (unsigned long long)p->hash);
  mp_buf_printf(b, "</code></dd>\n<dt>plan hash</dt><dd><code id=\"plan-hash\">%s</code></dd>\n",
                h);
  mp_buf_puts(b, "</dl>\n</header>\n");
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
    uint64_t bud = report_arena_budget(p, a);
    mp_buf_printf(b,
                  "<tr data-arena=\"%u\"><td class=\"n\">%u</td><td class=\"sym\"><a href=\"#arena-%u\">"
                  "<code>",
                  i, i, i);
    report_esc(b, mp_module_arena_symbol(r->p, r->prefix, r->shared, a, sym, sizeof sym));
    mp_buf_printf(b, "</code></a></td><td><span class=\"tag %s\">%s</span>%s</td><td>%s",
                  mp_role_name(a->role), mp_role_name(a->role), a->is_staged ? "staged" : "",
                  mp_platform_memory_name(&r->p->platform, a->memory));
    if (a->is_staged) mp_buf_printf(b, " &larr; %s", mp_platform_memory_name(&r->p->platform, a->source_memory));
    mp_buf_printf(b, "</td><td class=\"n\" title=\"%llu B\">%s</td>",
                  (unsigned long long)a->total_size, report_hb(s, sizeof s, a->total_size));
    mp_buf_printf(b, "<td class=\"n\" title=\"%llu B\">%s</td>", (unsigned long long)a->used,
                  report_hb(s, sizeof s, a->used));
    if (a->role == MP_ROLE_SCRATCH) {
      mp_buf_printf(b, "<td class=\"n\" title=\"%llu B\">%s</td><td>",
                    (unsigned long long)a->lower_bound, report_hb(s, sizeof s, a->lower_bound));
      report_put_gap(b, a->total_size, a->lower_bound);
      mp_buf_puts(b, "</td><td>");
      report_put_proof(b, a);
      mp_buf_puts(b, "</td>");
    } else {
      mp_buf_puts(b, "<td class=\"n\">&ndash;</td><td>bump-allocated</td><td>&ndash;</td>");
    }
    mp_buf_printf(b, "<td class=\"n\" title=\"%llu B\">%s</td>", (unsigned long long)bud,
                  report_hb(s, sizeof s, bud));
    mp_buf_printf(b, "<td class=\"n\">%s</td><td class=\"n\">%u</td></tr>\n",
                  report_hb(s, sizeof s, bud > a->total_size ? bud - a->total_size : 0), a->n_tensors);
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
                role, (unsigned long long)v, *x, w, fill, what, report_hb(s, sizeof s, v), mem,
                report_gb(e, sizeof e, v));
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
    mp_buf_printf(b, "<b>%s</b> of %s used (%.1f%%) &middot; ", report_hb(s1, sizeof s1, u->used),
                  report_hb(s2, sizeof s2, u->budget), pct);
    if (u->used <= u->budget)
      mp_buf_printf(b, "%s free", report_hb(s3, sizeof s3, u->budget - u->used));
    else
      mp_buf_printf(b, "<span class=\"warn\">%s over budget</span>",
                    report_hb(s3, sizeof s3, u->used - u->budget));
    if (u->load_image)
      mp_buf_printf(b, " &middot; <span class=\"warn\">%s of read-only blobs here need a load "
                       "image in non-volatile memory and a copy at boot</span>",
                    report_hb(s1, sizeof s1, u->load_image));
    if (r->shared && r->shared->size[m])
      mp_buf_printf(b, " &middot; scratch shared with the config's other models: one buffer of "
                       "%s, the largest need", report_hb(s1, sizeof s1, r->shared->size[m]));
    if (tables)
      mp_buf_printf(b, " &middot; the module's tables %s (kernel params %s)%s", report_hb(s1, sizeof s1, tables),
                    report_hb(s2, sizeof s2, t->params),
                    p->platform.read_only[m] ? "" : ", <span class=\"warn\">a load image and a copy at boot</span>");
    static const char *NAMES[4] = {"scratch", "persistent", "constants", "staged sources"};
    uint64_t v[4] = {u->scratch, u->persistent, u->constant, u->staged_source};
    bool first = true;
    for (int k = 0; k < 4; k++) {
      if (!v[k]) continue;
      mp_buf_printf(b, "%s%s %s", first ? "<br>" : " &middot; ", NAMES[k], report_hb(s1, sizeof s1, v[k]));
      first = false;
    }
    mp_buf_puts(b, "</span></div>\n");
  }
  mp_buf_puts(b, "</section>\n");
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
    report_esc(b, x->name);
    mp_buf_puts(b, "\">");
    /* a converter's long scoped name, shortened in the middle (its
     * start and its layer stay; the title has it whole) so that every
     * column shows at 1400 px */
    char nb[64];
    report_esc(b, mp_name_middle(x->name, 48, nb, sizeof nb));
    mp_buf_printf(b,
                  "</td><td data-v=\"%d%s\"><span class=\"sw\" style=\"background:%s\">"
                  "</span>%s",
                  (int)a->binding.role, report_kinds[k].cls, report_kinds[k].fill, mp_role_name(a->binding.role));
    if (report_kinds[k].note[0]) mp_buf_printf(b, " <span class=\"note\">(%s)</span>", report_kinds[k].note);
    mp_buf_printf(b, "</td><td>%s", mp_platform_memory_name(&r->p->platform, a->memory));
    if (a->binding.source_memory != a->memory)
      mp_buf_printf(b, " &larr; %s", mp_platform_memory_name(&r->p->platform, a->binding.source_memory));
    mp_buf_printf(b, "</td><td class=\"n\" data-v=\"%llu\">%llu</td>",
                  (unsigned long long)a->offset, (unsigned long long)a->offset);
    mp_buf_printf(b, "<td class=\"n\" data-v=\"%llu\" title=\"%llu B\">%s</td>",
                  (unsigned long long)a->size, (unsigned long long)a->size,
                  report_hb(s1, sizeof s1, a->size));
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
    report_shape_str(x, sh, sizeof sh);
    mp_buf_puts(b, "<td class=\"mono\">");
    report_esc(b, sh);
    char why[256];
    mp_buf_puts(b, "</td><td class=\"why\">");
    report_esc(b, mp_reason_text(&r->p->platform, &a->reason, a->alias_of, why, sizeof why));
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
  report_compute_kinds(&r);
  r.n_cols = r.g->n_ops ? r.g->n_ops : 1;
  r.col_w = PLOT_TARGET_W / r.n_cols;
  if (r.col_w < COL_MIN) r.col_w = COL_MIN;
  if (r.col_w > COL_MAX) r.col_w = COL_MAX;
  size_t digits = (size_t)snprintf(NULL, 0, "%u", r.n_cols - 1);
  for (uint32_t o = 0; o < r.g->n_ops; o++) {
    size_t n = report_u8_count(r.g->ops[o].name, strlen(r.g->ops[o].name));
    if (n > r.op_label) r.op_label = (uint32_t)n;
  }
  if (r.op_label > OP_LABEL_MAX) r.op_label = OP_LABEL_MAX;
  r.names_h = 12 + (double)(digits + 1 + r.op_label) * CHAR_W;

  mp_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<meta name=\"generator\" content=\"memplan " MP_VERSION "\">\n"
                  "<title>memplan report: ");
  report_esc(&b, mp_model_file_name(r.g->model));
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
  report_put_legend(&b, p->in_place);
  mp_buf_puts(&b, "</section>\n");
  for (uint32_t i = 0; i < p->n_arenas; i++)
    report_put_arena(&r, i);
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

