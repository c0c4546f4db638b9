/*
 * test_report_html.c — the HTML plan report (report_html.c) read as text:
 * one slot rectangle per allocation and one outline per view alias, the
 * geometry written on the elements (lines and slots at y = y0 - bytes *
 * plot_height / ymax), labels that fit their slots, escaping of hostile
 * names, determinism and the atomic file writer.
 *
 * Uses memplan's own fixtures (known slots and aliases) and the bundled KWS
 * example; every plan goes through the verifier first.  The browser-side
 * checks are tests/suite_report_html.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixtures.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHAR_W 6.2 /* report_html.c's label advance per character */

static mp_platform platform(uint64_t dtcm) {
  mp_platform p;
  mp_platform_init(&p, "test");
  p.present[MP_MEM_DTCM] = true;
  p.size[MP_MEM_DTCM] = dtcm;
  p.present[MP_MEM_SRAM] = true;
  p.size[MP_MEM_SRAM] = 1u << 20;
  p.present[MP_MEM_MRAM] = true;
  p.size[MP_MEM_MRAM] = 4u << 20;
  p.min_alignment = 16;
  p.n_order = 3;
  p.order[0] = MP_MEM_DTCM;
  p.order[1] = MP_MEM_SRAM;
  p.order[2] = MP_MEM_MRAM;
  return p;
}

typedef struct planned {
  mp_model *m;
  mp_graph *g;
  mp_plan *p;
} planned;

/* A fixture by name, "kws" for the bundled example, or "corpus/NAME" for a
 * shared model (NULL when the corpus is absent). */
static mp_model *load_model(const char *name) {
  if (!strncmp(name, "corpus/", 7)) {
    const char *path = tu_model_path(name + 7);
    mp_model *m = NULL;
    if (path) assert_int_equal(mp_model_load(path, NULL, &m), MP_OK);
    return m;
  }
  if (strcmp(name, "kws") != 0) return fx_model(name);
  uint8_t *bytes = NULL;
  size_t size = 0;
  mp_model *m = NULL;
  assert_int_equal(fx_kws(&bytes, &size), MP_OK);
  assert_int_equal(mp_model_parse(bytes, size, "kws.tflite", NULL, &m), MP_OK);
  free(bytes);
  return m;
}

/* Load, analyse, let `rename` (may be NULL) edit the graph, plan on a
 * platform with `dtcm` bytes of DTCM, verify.  False when a corpus model is
 * absent. */
static bool plan_fixture(const char *name, uint64_t dtcm, void (*rename)(mp_graph *),
                         planned *out) {
  memset(out, 0, sizeof *out);
  out->m = load_model(name);
  if (!out->m && !strncmp(name, "corpus/", 7)) return false;
  assert_non_null(out->m);
  assert_int_equal(mp_graph_build(out->m, 0, NULL, NULL, &out->g), MP_OK);
  if (rename) rename(out->g);
  mp_platform pf = platform(dtcm);
  mp_memory_args mem;
  memset(&mem, 0, sizeof mem);
  mem.planner = (char[]){"greedy"};
  mem.allocate_arenas = true;
  assert_int_equal(mp_plan_build(out->g, &pf, &mem, NULL, &out->p), MP_OK);
  assert_int_equal(mp_plan_verify(out->p, NULL), MP_OK);
  return true;
}

static void unplan(planned *x) {
  mp_plan_free(&x->p);
  mp_graph_free(&x->g);
  mp_model_free(&x->m);
}

static char *report(const planned *x) {
  char *html = NULL;
  assert_int_equal(mp_report_html(x->p, "fx", &html), MP_OK);
  assert_non_null(html);
  return html;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0, l = strlen(needle);
  for (const char *s = strstr(hay, needle); s; s = strstr(s + l, needle))
    n++;
  return n;
}

/* Numeric value of attribute `name` in the tag starting at `tag`; fails the
 * test when the tag has no such attribute. */
static double attr(const char *tag, const char *name) {
  const char *end = strchr(tag, '>');
  char key[64];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *a = strstr(tag, key);
  if (!a || (end && a > end)) fail_msg("attribute %s missing in %.80s", name, tag);
  return strtod(a + strlen(key), NULL);
}

/* The <svg class="plot"> tag of arena `ai`. */
static const char *plot_of(const char *html, uint32_t ai) {
  char key[64];
  snprintf(key, sizeof key, "<svg class=\"plot\" width=");
  for (const char *s = strstr(html, key); s; s = strstr(s + 1, key))
    if ((uint32_t)attr(s, "data-arena") == ai) return s;
  fail_msg("no plot for arena %u", ai);
  return NULL;
}

static double y_of(const char *plot, double bytes) {
  return attr(plot, "data-y0") - bytes * attr(plot, "data-plot-height") / attr(plot, "data-ymax");
}

static bool valid_utf8(const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  while (*u) {
    size_t n = *u < 0x80             ? 1
               : (*u & 0xE0) == 0xC0 ? 2
               : (*u & 0xF0) == 0xE0 ? 3
               : (*u & 0xF8) == 0xF0 ? 4
                                     : 0;
    if (n == 0) return false;
    for (size_t i = 1; i < n; i++)
      if ((u[i] & 0xC0) != 0x80) return false;
    u += n;
  }
  return true;
}

/* ---- tests --------------------------------------------------------------- */

static void view_chain_gets_one_rect_per_slot_and_an_outline_per_alias(void **state) {
  (void)state;
  planned x;
  plan_fixture("view_chain", 512 * 1024, NULL, &x);
  char *html = report(&x);
  /* scratch slots 0, 2, 9; constants 1, 3, 6, 8; views 4, 5, 7 of 2 */
  assert_int_equal(count(html, "<rect class=\"slot "), 7);
  assert_int_equal(count(html, "<rect class=\"alias\""), 3);
  assert_int_equal(count(html, "data-alias-of=\"2\""), 3);
  size_t placed = 0;
  for (uint32_t t = 0; t < x.p->n_allocs; t++)
    placed += x.p->allocs[t].placed && x.p->allocs[t].alias_of < 0;
  assert_int_equal(placed, 7);
  for (uint32_t t = 0; t < x.p->n_allocs; t++) {
    char key[96];
    snprintf(key, sizeof key, "<rect class=\"slot k-%s\" data-tensor=\"%u\"",
             t == 0   ? "in"
             : t == 9 ? "out"
                      : "act",
             t);
    bool slot = x.p->allocs[t].placed && x.p->allocs[t].alias_of < 0 &&
                x.p->allocs[t].binding.role == MP_ROLE_SCRATCH;
    assert_int_equal(count(html, key), slot ? 1 : 0);
  }
  free(html);
  unplan(&x);
}

static void the_report_is_byte_identical_for_identical_inputs(void **state) {
  (void)state;
  planned a, b;
  plan_fixture("kws", 512 * 1024, NULL, &a);
  plan_fixture("kws", 512 * 1024, NULL, &b);
  char *ha = report(&a), *hb = report(&b);
  assert_string_equal(ha, hb);
  char *again = report(&a);
  assert_string_equal(ha, again);
  free(ha);
  free(hb);
  free(again);
  unplan(&a);
  unplan(&b);
}

static void hostile(mp_graph *g) {
  g->tensors[2].name = "</script><b>bold</b>";
  g->tensors[9].name = "a\"b'c&d\x01\xff<img src=x onerror=alert(1)>";
  g->tensors[0].name = "\xe2\x82"; /* truncated UTF-8 */
}

static void hostile_tensor_names_are_escaped_and_the_page_stays_valid_utf8(void **state) {
  (void)state;
  planned x;
  plan_fixture("view_chain", 512 * 1024, hostile, &x);
  char *html = report(&x);
  assert_int_equal(count(html, "<script"), 1);
  assert_int_equal(count(html, "</script>"), 1);
  assert_null(strstr(html, "<b>bold"));
  assert_null(strstr(html, "<img"));
  assert_non_null(strstr(html, "&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;"));
  /* control character and stray byte become U+FFFD */
  assert_non_null(strstr(html, "a&quot;b&#39;c&amp;d\xEF\xBF\xBD\xEF\xBF\xBD&lt;img src=x"));
  assert_true(valid_utf8(html));
  /* the script holds no data, so names cannot reach it */
  const char *script = strstr(html, "<script>");
  assert_null(strstr(script, "bold"));
  free(html);
  unplan(&x);
}

static void the_high_water_and_lower_bound_lines_sit_at_their_bytes(void **state) {
  (void)state;
  planned x;
  plan_fixture("kws", 512 * 1024, NULL, &x);
  char *html = report(&x);
  for (uint32_t ai = 0; ai < x.p->n_arenas; ai++) {
    const mp_arena *a = &x.p->arenas[ai];
    const char *plot = plot_of(html, ai);
    assert_int_equal((uint64_t)attr(plot, "data-used"), a->used);
    assert_int_equal((uint64_t)attr(plot, "data-size"), a->total_size);
    const char *hwm = strstr(plot, "<line class=\"hwm\"");
    assert_non_null(hwm);
    assert_int_equal((uint64_t)attr(hwm, "data-bytes"), a->used);
    assert_true(fabs(attr(hwm, "y1") - y_of(plot, (double)a->used)) < 0.006);
    if (a->role == MP_ROLE_SCRATCH) {
      const char *lb = strstr(plot, "<line class=\"lb\"");
      assert_non_null(lb);
      assert_int_equal((uint64_t)attr(lb, "data-bytes"), a->lower_bound);
      assert_true(fabs(attr(lb, "y1") - y_of(plot, (double)a->lower_bound)) < 0.006);
    }
  }
  /* the KWS scratch arena is at its lower bound, 16000 bytes */
  assert_int_equal(x.p->arenas[0].role, MP_ROLE_SCRATCH);
  assert_int_equal(x.p->arenas[0].used, 16000);
  free(html);
  unplan(&x);
}

static void every_slot_rect_stands_on_its_offset_and_spans_its_lifetime(void **state) {
  (void)state;
  planned x;
  plan_fixture("kws", 512 * 1024, NULL, &x);
  char *html = report(&x);
  size_t n = 0;
  for (const char *s = strstr(html, "<rect class=\"slot "); s;
       s = strstr(s + 1, "<rect class=\"slot ")) {
    uint32_t t = (uint32_t)attr(s, "data-tensor");
    const mp_allocation *a = &x.p->allocs[t];
    const char *plot = plot_of(html, a->arena);
    assert_true(plot < s);
    assert_int_equal((uint64_t)attr(s, "data-offset"), a->offset);
    assert_int_equal((uint64_t)attr(s, "data-size"), a->size);
    double bottom = attr(s, "y") + attr(s, "height");
    assert_true(fabs(bottom - y_of(plot, (double)a->offset)) < 0.011);
    double col = attr(plot, "data-col-width");
    if (a->binding.role == MP_ROLE_SCRATCH) {
      assert_true(fabs(attr(s, "x") - col * x.p->lifetimes[t].start_op) < 0.006);
      assert_true(fabs(attr(s, "width") -
                       col * (x.p->lifetimes[t].end_op - x.p->lifetimes[t].start_op + 1)) < 0.006);
    } else {
      assert_true(fabs(attr(s, "x")) < 0.006);
      assert_true(fabs(attr(s, "width") - col * FX_KWS_N_OPS) < 0.02);
    }
    n++;
  }
  assert_int_equal(n, x.p->arenas[0].n_tensors + x.p->arenas[1].n_tensors);
  free(html);
  unplan(&x);
}

/* Characters of a label's text, entities counted as one. */
static size_t label_chars(const char *s, const char *end) {
  size_t n = 0;
  while (s < end) {
    if (*s == '&') {
      s = strchr(s, ';') + 1;
    } else {
      unsigned char c = (unsigned char)*s;
      s += c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
    }
    n++;
  }
  return n;
}

typedef struct label_counts {
  size_t labelled, bare, vertical;
} label_counts;

/* Check that every label after a slot rect lies inside it; count them. */
static label_counts check_labels(const char *html) {
  label_counts n = {0, 0, 0};
  for (const char *s = strstr(html, "<rect class=\"slot "); s;
       s = strstr(s + 1, "<rect class=\"slot ")) {
    const char *after = strstr(s, "</rect>") + strlen("</rect>");
    double x0 = attr(s, "x"), w = attr(s, "width"), y0 = attr(s, "y"), h = attr(s, "height");
    if (strncmp(after, "<text class=\"lbl", 16) != 0) {
      n.bare++;
      continue;
    }
    for (const char *t = after; !strncmp(t, "<text class=\"lbl", 16);
         t = strstr(t, "</text>") + 7) {
      const char *open = strchr(t, '>') + 1, *close = strstr(t, "</text>");
      double tx = attr(t, "x"), ty = attr(t, "y");
      double len = (double)label_chars(open, close) * CHAR_W;
      if (!strncmp(t, "<text class=\"lbl v\"", 19)) {
        /* along the height, upwards from the bottom */
        assert_true(tx - 9 >= x0 - 0.01 && tx <= x0 + w + 0.01);
        assert_true(ty <= y0 + h + 0.01 && ty - len >= y0 - 0.01);
        n.vertical++;
      } else {
        assert_true(tx >= x0 && tx + len <= x0 + w + 0.01);
        assert_true(ty - 9 >= y0 - 0.01 && ty <= y0 + h + 0.01);
      }
      n.labelled++;
    }
  }
  return n;
}

static void slot_labels_fit_inside_their_slots(void **state) {
  (void)state;
  planned x;
  plan_fixture("kws", 512 * 1024, NULL, &x);
  char *html = report(&x);
  label_counts n = check_labels(html);
  /* big activations are labelled, the small constants are hover-only */
  assert_true(n.labelled >= 10);
  assert_true(n.bare >= 1);
  free(html);
  unplan(&x);
}

static void tall_narrow_slots_are_labelled_along_their_height(void **state) {
  (void)state;
  planned x;
  if (!plan_fixture("corpus/mlperf_vww_96_int8", 512 * 1024, NULL, &x)) skip();
  char *html = report(&x);
  label_counts n = check_labels(html);
  assert_true(n.vertical >= 1);
  free(html);
  unplan(&x);
}

static void a_tight_budget_is_drawn_and_a_far_one_is_marked_off_scale(void **state) {
  (void)state;
  planned tight, roomy;
  /* KWS: scratch 16000 + constants in dtcm; a budget with 1 KiB to spare */
  plan_fixture("kws", 512 * 1024, NULL, &roomy);
  uint64_t need = roomy.p->memories[MP_MEM_DTCM].used;
  plan_fixture("kws", need + 1024, NULL, &tight);
  assert_int_equal(tight.p->memories[MP_MEM_DTCM].used, need);
  char *ht = report(&tight), *hr = report(&roomy);
  const mp_arena *a = &tight.p->arenas[0];
  const char *plot = plot_of(ht, 0);
  const char *line = strstr(plot, "<line class=\"budget\"");
  assert_non_null(line);
  assert_int_equal((uint64_t)attr(line, "data-bytes"), a->total_size + 1024);
  assert_true(fabs(attr(line, "y1") - y_of(plot, (double)(a->total_size + 1024))) < 0.006);
  const char *rplot = plot_of(hr, 0);
  const char *next = strstr(rplot, "</svg>");
  const char *rline = strstr(rplot, "<line class=\"budget\"");
  assert_true(rline == NULL || rline > next);
  const char *label = strstr(next, "<text class=\"t-budget\"");
  assert_non_null(label);
  assert_non_null(strstr(label, "(off scale)</text>"));
  free(ht);
  free(hr);
  unplan(&tight);
  unplan(&roomy);
}

static void an_arenas_room_is_labelled_with_its_memorys_budget_and_what_else_is_there(void **state) {
  (void)state;
  planned x;
  /* KWS at 64 KiB of dtcm: scratch 16000 B and 24384 B of constants share it */
  plan_fixture("kws", 64 * 1024, NULL, &x);
  char *html = report(&x);
  const char *head = strstr(html, "<section class=\"card arena\" id=\"arena-0\"");
  assert_non_null(head);
  /* 64 KiB less the 23.8 KiB constant arena: the room, named as such */
  assert_non_null(strstr(head, "<b>room</b> 40.2 KiB (dtcm budget 64 KiB less 23.8 KiB of its "
                               "other arenas; 24.6 KiB free)"));
  assert_null(strstr(html, "<b>budget</b>"));
  /* greedy reached the bound: optimal, and no "proven optimum" anywhere */
  assert_non_null(strstr(head, "<b>optimality</b> <span class=\"ok\">optimal</span> (16,000 B)"));
  assert_null(strstr(html, "proven optimum"));
  free(html);
  unplan(&x);
}

static void every_tensor_row_says_why_the_tensor_is_in_its_memory(void **state) {
  (void)state;
  planned x;
  /* 24 KiB of dtcm: the 16000-byte scratch arena fits, most constants spill */
  plan_fixture("kws", 24 * 1024, NULL, &x);
  char *html = report(&x);
  assert_non_null(strstr(html, "<th>why there</th>"));
  uint32_t rows = 0, spilled = 0, preferred = 0;
  for (const char *c = strstr(html, "<td class=\"why\">"); c; c = strstr(c + 1, "<td class=\"why\">")) {
    rows++;
    c += strlen("<td class=\"why\">");
    spilled += !strncmp(c, "spilled from dtcm: ", 19);
    preferred += !strncmp(c, "first in preference order</td>", 30);
  }
  uint32_t placed = 0, in_sram = 0;
  for (uint32_t t = 0; t < x.p->n_allocs; t++) {
    placed += x.p->allocs[t].placed;
    in_sram += x.p->allocs[t].placed && x.p->allocs[t].memory == MP_MEM_SRAM;
  }
  assert_int_equal(rows, placed);
  assert_true(in_sram > 0);
  assert_int_equal(spilled, in_sram);
  assert_true(preferred > 0);
  free(html);
  unplan(&x);
}

static void persistent_state_spans_the_whole_program(void **state) {
  (void)state;
  planned x;
  plan_fixture("variable", 512 * 1024, NULL, &x);
  char *html = report(&x);
  const char *s = strstr(html, "<rect class=\"slot k-pers\" data-tensor=\"1\"");
  assert_non_null(s);
  assert_int_equal((int)attr(s, "data-start"), 0);
  assert_int_equal((int)attr(s, "data-end"), (int)x.g->n_ops - 1);
  assert_non_null(strstr(html, "data-role=\"persistent\""));
  free(html);
  unplan(&x);
}

static void the_writer_replaces_the_file_whole_and_names_an_unwritable_path(void **state) {
  (void)state;
  planned x;
  plan_fixture("view_chain", 512 * 1024, NULL, &x);
  const char *dir = tu_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/plan.html", dir);
  assert_int_equal(mp_report_html_write(x.p, "fx", path, NULL), MP_OK);
  size_t len = 0;
  char *disk = tu_read_text(path, &len);
  char *html = report(&x);
  assert_non_null(disk);
  assert_string_equal(disk, html);
  tu_diags d;
  tu_diags_init(&d);
  snprintf(path, sizeof path, "%s/missing/plan.html", dir);
  assert_int_equal(mp_report_html_write(x.p, "fx", path, &d.sink), MP_ERR_IO);
  assert_true(d.n_errors >= 1);
  assert_true(tu_diags_has(&d, "cannot write"));
  free(disk);
  free(html);
  tu_rmtree(dir);
  unplan(&x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(view_chain_gets_one_rect_per_slot_and_an_outline_per_alias),
      cmocka_unit_test(the_report_is_byte_identical_for_identical_inputs),
      cmocka_unit_test(hostile_tensor_names_are_escaped_and_the_page_stays_valid_utf8),
      cmocka_unit_test(the_high_water_and_lower_bound_lines_sit_at_their_bytes),
      cmocka_unit_test(every_slot_rect_stands_on_its_offset_and_spans_its_lifetime),
      cmocka_unit_test(slot_labels_fit_inside_their_slots),
      cmocka_unit_test(tall_narrow_slots_are_labelled_along_their_height),
      cmocka_unit_test(a_tight_budget_is_drawn_and_a_far_one_is_marked_off_scale),
      cmocka_unit_test(an_arenas_room_is_labelled_with_its_memorys_budget_and_what_else_is_there),
      cmocka_unit_test(every_tensor_row_says_why_the_tensor_is_in_its_memory),
      cmocka_unit_test(persistent_state_spans_the_whole_program),
      cmocka_unit_test(the_writer_replaces_the_file_whole_and_names_an_unwritable_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
