/*
 * test_signal.c — the audio front end: the flexbuffer reader of custom
 * options (src/read/flexbuf.c), the lowering of the Signal library's
 * operators (src/lower/signal.c) and their kernels with state.
 *
 * The reader is fed well-formed maps at every width, then every
 * truncation and thousands of single-byte mutations of one: it must parse
 * or fail with an error naming a byte offset, never read outside the
 * buffer (ASan).  The lowering is fed SignalWindow models written with
 * memplan's model writer: good options, a key TFLM would not read, a value
 * out of range, options that do not parse, none, and an unknown custom
 * operator.  Finally every case of the conformance corpus's Signal folders
 * runs through mp_kernels_prepare, the lowering and the kernels on the
 * host, every invocation of a stateful case in order (the spectral
 * subtraction's noise estimate lives in its op-local persistent tensor),
 * against TensorFlow Lite Micro's outputs; and a reset state gives run 0's
 * outputs again.  Skips that part with a NOTICE when the corpus is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* strong references: the kernels come from libmemplan.a (see mpk.h) */
#define MPK_API
#include "lower/lower.h"
#include "read/flexbuf.h"
#include "testutil.h"
#include "tflite_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* A flexbuffer map writer (test side; keys of width 1)                      */
/* ------------------------------------------------------------------------ */

typedef struct fx_entry {
  const char *key; /* entries in key order */
  uint8_t type;    /* FX_INT, FX_UINT, FX_BOOL, FX_FLOAT, FX_INDIRECT_INT, FX_STRING */
  int64_t i;
  float f;
} fx_entry;

static void put_le(uint8_t *p, uint64_t v, uint32_t w) {
  for (uint32_t k = 0; k < w; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t log2w(uint32_t w) { return w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3; }

/* The map of n entries, values in slots of w bytes, into buf; its size. */
static uint32_t write_map(uint8_t *buf, const fx_entry *e, uint32_t n, uint32_t w) {
  uint32_t at = 0, key_at[8], ind_at[8];
  for (uint32_t i = 0; i < n; i++) {
    key_at[i] = at;
    size_t len = strlen(e[i].key) + 1;
    memcpy(buf + at, e[i].key, len);
    at += (uint32_t)len;
  }
  for (uint32_t i = 0; i < n; i++)
    if (e[i].type == FX_INDIRECT_INT || e[i].type == FX_STRING) {
      ind_at[i] = at;
      put_le(buf + at, (uint64_t)e[i].i, 4);
      at += 4;
    }
  buf[at++] = (uint8_t)n; /* the keys vector: size, then offsets */
  const uint32_t keys = at;
  for (uint32_t i = 0; i < n; i++, at++) buf[at] = (uint8_t)(at - key_at[i]);
  put_le(buf + at, at - keys, w); /* keys offset */
  at += w;
  put_le(buf + at, 1, w); /* key width */
  at += w;
  put_le(buf + at, n, w);
  at += w;
  const uint32_t values = at;
  for (uint32_t i = 0; i < n; i++, at += w) {
    if (e[i].type == FX_FLOAT && w == 8) { /* a double in an 8-byte slot */
      double x = e[i].f;
      uint64_t bits;
      memcpy(&bits, &x, 8);
      put_le(buf + at, bits, 8);
    } else if (e[i].type == FX_FLOAT) {
      uint32_t bits;
      memcpy(&bits, &e[i].f, 4);
      put_le(buf + at, bits, w);
    } else if (e[i].type == FX_INDIRECT_INT || e[i].type == FX_STRING) {
      put_le(buf + at, at - ind_at[i], w);
    } else {
      put_le(buf + at, (uint64_t)e[i].i, w);
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t bw = e[i].type == FX_INDIRECT_INT ? 4 : w;
    buf[at++] = (uint8_t)((e[i].type << 2) | log2w(bw));
  }
  buf[at] = (uint8_t)(at - values); /* the root: an offset to the map */
  at++;
  buf[at++] = (uint8_t)((FX_MAP << 2) | log2w(w));
  buf[at++] = 1;
  return at;
}

/* Parse the whole map; false on the first error. */
static bool parse_all(const uint8_t *p, uint32_t size, tu_diags *d, int64_t *vals, uint32_t *n) {
  fx_buf b;
  fx_init(&b, p, size, "opts", 1000, "test options", &d->sink);
  fx_ref root;
  fx_map m;
  if (!fx_root(&b, &root) || !fx_as_map(&b, &root, &m)) return false;
  *n = m.n;
  for (uint32_t i = 0; i < m.n; i++) {
    const char *k;
    fx_ref v;
    int64_t x;
    if (!fx_map_key(&m, i, &k) || !fx_map_value(&m, i, &v) || !fx_as_i64(&b, &v, k, &x))
      return false;
    if (vals && i < 8) vals[i] = x;
  }
  return true;
}

static void maps_read_back_at_every_width(void **state) {
  (void)state;
  const uint32_t widths[] = {1, 2, 4, 8};
  for (size_t k = 0; k < 4; k++) {
    const uint32_t w = widths[k];
    fx_entry e[] = {{"a", FX_INT, -5, 0}, {"b", FX_UINT, 200, 0}, {"c", FX_BOOL, 1, 0},
                    {"d", FX_INDIRECT_INT, -70000, 0}, {"e", w >= 4 ? FX_FLOAT : FX_INT,
                                                        w >= 4 ? 0 : 7, 7.9f}};
    uint8_t buf[256];
    uint32_t size = write_map(buf, e, 5, w), n = 0;
    int64_t v[8];
    tu_diags d;
    tu_diags_init(&d);
    assert_true(parse_all(buf, size, &d, v, &n));
    assert_int_equal(d.n_errors, 0);
    assert_int_equal(n, 5);
    assert_int_equal(v[0], -5);
    assert_int_equal(v[1], 200);
    assert_int_equal(v[2], 1);
    assert_int_equal(v[3], -70000);
    assert_int_equal(v[4], 7); /* 7.9 truncated, as TFLM's AsInt32 */
    fx_buf b;
    fx_ref root;
    fx_map m;
    const char *key;
    fx_init(&b, buf, size, "opts", 0, "test", &d.sink);
    assert_true(fx_root(&b, &root) && fx_as_map(&b, &root, &m));
    assert_true(fx_map_key(&m, 3, &key));
    assert_string_equal(key, "d");
    assert_false(fx_map_key(&m, 5, &key)); /* past the end: no read */
  }
}

static void a_string_where_a_number_belongs_is_an_error_naming_the_key(void **state) {
  (void)state;
  fx_entry e[] = {{"shift", FX_STRING, 0, 0}};
  uint8_t buf[64];
  uint32_t size = write_map(buf, e, 1, 1), n;
  tu_diags d;
  tu_diags_init(&d);
  assert_false(parse_all(buf, size, &d, NULL, &n));
  assert_true(tu_diags_has(&d, "'shift' is a string, expected a number"));
  assert_true(tu_diags_has(&d, "flexbuffer byte"));
}

static void bad_widths_and_offsets_give_their_byte_offset(void **state) {
  (void)state;
  fx_entry e[] = {{"end_index", FX_INT, 9, 0}, {"start_index", FX_INT, 2, 0}};
  uint8_t buf[64];
  uint32_t size = write_map(buf, e, 2, 1), n;
  tu_diags d;
  /* a root width of 3 bytes */
  uint8_t bad[64];
  memcpy(bad, buf, size);
  bad[size - 1] = 3;
  tu_diags_init(&d);
  assert_false(parse_all(bad, size, &d, NULL, &n));
  assert_true(tu_diags_has(&d, "root width 3"));
  assert_int_equal(d.last_byte_offset, 1000 + size - 1);
  /* the root's offset to the map points before the buffer */
  memcpy(bad, buf, size);
  bad[size - 3] = 200;
  tu_diags_init(&d);
  assert_false(parse_all(bad, size, &d, NULL, &n));
  assert_true(tu_diags_has(&d, "points before the start of the buffer"));
  assert_int_equal(d.last_byte_offset, 1000 + size - 3);
  /* the root is not a map */
  memcpy(bad, buf, size);
  bad[size - 2] = (uint8_t)(FX_INT << 2);
  tu_diags_init(&d);
  assert_false(parse_all(bad, size, &d, NULL, &n));
  assert_true(tu_diags_has(&d, "expected a map, found int"));
  /* fewer than 3 bytes */
  tu_diags_init(&d);
  assert_false(parse_all(buf, 2, &d, NULL, &n));
  assert_true(tu_diags_has(&d, "2 bytes: a flexbuffer has at least 3"));
  tu_diags_init(&d);
  assert_false(parse_all(NULL, 0, &d, NULL, &n));
  assert_int_equal(d.n_errors, 1);
}

/* Every truncation and every single-byte mutation (a spread of values at
 * every position) parses or fails with one located error: ASan checks
 * that no byte outside the buffer is read. */
static void every_truncation_and_mutation_parses_or_fails_cleanly(void **state) {
  (void)state;
  fx_entry e[] = {{"alternate_smoothing", FX_INT, 983, 0},
                  {"clamping", FX_BOOL, 0, 0},
                  {"num_channels", FX_INDIRECT_INT, 40, 0},
                  {"smoothing_bits", FX_UINT, 10, 0}};
  static const uint8_t values[] = {0, 1, 2, 3, 4, 7, 8, 9, 36, 37, 38, 39, 0x7f, 0x80, 0xfe, 0xff};
  const uint32_t widths[] = {1, 2, 8};
  uint32_t failures = 0, runs = 0;
  for (size_t k = 0; k < 3; k++) {
    uint8_t buf[256];
    uint32_t size = write_map(buf, e, 4, widths[k]), n;
    for (uint32_t len = 0; len <= size; len++) {
      for (int tail = 0; tail < 2; tail++) {
        /* a fresh allocation of exactly len bytes, so ASan sees overreads */
        uint8_t *p = malloc(len ? len : 1);
        assert_non_null(p);
        memcpy(p, tail ? buf + (size - len) : buf, len);
        tu_diags d;
        tu_diags_init(&d);
        bool ok = parse_all(p, len, &d, NULL, &n);
        if (!ok) {
          assert_int_equal(d.n_errors, 1);
          failures++;
        }
        runs++;
        free(p);
      }
    }
    for (uint32_t pos = 0; pos < size; pos++)
      for (size_t v = 0; v < sizeof values; v++) {
        uint8_t *p = malloc(size);
        assert_non_null(p);
        memcpy(p, buf, size);
        p[pos] = values[v];
        tu_diags d;
        tu_diags_init(&d);
        bool ok = parse_all(p, size, &d, NULL, &n);
        assert_int_equal(d.n_errors, ok ? 0 : 1);
        if (!ok) {
          assert_true(tu_diags_has(&d, "flexbuffer byte") || tu_diags_has(&d, "bytes: a "));
          assert_true(d.last_byte_offset >= 1000 && d.last_byte_offset < 1000 + (int64_t)size);
          failures++;
        }
        runs++;
        free(p);
      }
  }
  print_message("%u parses, %u clean failures\n", runs, failures);
  assert_true(failures > 100 && failures < runs);
}

/* ------------------------------------------------------------------------ */
/* Lowering SignalWindow models                                              */
/* ------------------------------------------------------------------------ */

/* A model of one SignalWindow op (input int16[1,8], weights int16[8]) with
 * the given custom code and options. */
static mp_model *window_model(const char *code, const uint8_t *opts, uint32_t opts_size,
                              tu_diags *d) {
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  const int32_t s2[] = {1, 8}, s1[] = {8};
  int16_t weights[8] = {4096, 2048, 1024, 512, 256, 128, 64, 32};
  uint32_t wb = mp_tfw_add_buffer(w, weights, sizeof weights);
  mp_tfw_add_simple_tensor(w, "in", MP_DTYPE_INT16, 2, s2);
  mp_tfw_add_tensor(w, &(mp_tfw_tensor){.name = "window", .dtype = MP_DTYPE_INT16, .rank = 1,
                                        .shape = s1, .buffer = wb});
  mp_tfw_add_simple_tensor(w, "out", MP_DTYPE_INT16, 2, s2);
  const int32_t ins[] = {0, 1}, outs[] = {2};
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 32, .custom_code = code, .n_inputs = 2,
                                .inputs = ins, .n_outputs = 1, .outputs = outs,
                                .custom_options_size = opts_size, .custom_options = opts});
  const int32_t gin[] = {0};
  mp_tfw_set_io(w, 1, gin, 1, outs);
  return tu_written(w, "window.tflite", d);
}

/* Lower op 0 of m; the status, the lowered op in *lo. */
static mp_status lower0(mp_model *m, tu_diags *d, mp_lowered_op *lo) {
  mp_graph *g = NULL;
  assert_int_equal(mp_graph_build(m, 0, NULL, &d->sink, &g), MP_OK);
  mp_status st = mp_lower_op(g, 0, lo, &d->sink);
  mp_graph_free(&g);
  return st;
}

static void signal_window_lowers_with_its_shift(void **state) {
  (void)state;
  fx_entry e[] = {{"shift", FX_INT, 12, 0}};
  uint8_t opts[64];
  uint32_t n = write_map(opts, e, 1, 1);
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = window_model("SignalWindow", opts, n, &d);
  mp_lowered_op lo;
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_true(lo.supported);
  assert_int_equal(lo.kernel, MP_K_SIGNAL_WINDOW);
  assert_string_equal(lo.fn, "mpk_signal_window");
  assert_int_equal(lo.params.signal_window.shift, 12);
  assert_int_equal(lo.params.signal_window.size, 8);
  assert_int_equal(lo.params.signal_window.weight_size, 8);
  assert_int_equal(lo.n_args, 3);
  assert_string_equal(lo.args[2].ctype, "int16_t *");
  assert_true(lo.args[2].is_output);
  mp_lower_free(&lo);
  mp_model_free(&m);
}

static void a_key_tflm_would_not_read_or_a_value_out_of_range_is_unsupported(void **state) {
  (void)state;
  fx_entry wrong[] = {{"shiftx", FX_INT, 12, 0}}, far[] = {{"shift", FX_INT, 40, 0}};
  uint8_t opts[64];
  tu_diags d;
  mp_lowered_op lo;
  uint32_t n = write_map(opts, wrong, 1, 1);
  tu_diags_init(&d);
  mp_model *m = window_model("SignalWindow", opts, n, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "custom option 0 is 'shiftx' where TensorFlow Lite Micro "
                                    "reads 'shift'"));
  mp_lower_free(&lo);
  mp_model_free(&m);
  n = write_map(opts, far, 1, 1);
  m = window_model("SignalWindow", opts, n, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "custom option 'shift' = 40 is outside [0, 31]"));
  mp_lower_free(&lo);
  mp_model_free(&m);
}

static void options_that_do_not_parse_are_a_model_error_with_the_file_offset(void **state) {
  (void)state;
  fx_entry e[] = {{"shift", FX_INT, 12, 0}};
  uint8_t opts[64];
  uint32_t n = write_map(opts, e, 1, 1);
  opts[n - 1] = 5; /* the root width */
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = window_model("SignalWindow", opts, n, &d);
  mp_lowered_op lo;
  assert_int_equal(lower0(m, &d, &lo), MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "operator 0 (SignalWindow): custom options: root width 5"));
  /* the offset is the options' last byte in the file */
  const mp_op_def *od = &m->subgraphs[0].ops[0];
  assert_int_equal(d.last_byte_offset, (int64_t)(od->custom_options - m->bytes) + n - 1);
  assert_int_equal(m->bytes[d.last_byte_offset], 5);
  mp_lower_free(&lo);
  mp_model_free(&m);
  /* no options at all */
  tu_diags_init(&d);
  m = window_model("SignalWindow", NULL, 0, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_ERR_MODEL);
  assert_true(tu_diags_has(&d, "operator 0 (SignalWindow): has no custom options"));
  mp_lower_free(&lo);
  mp_model_free(&m);
}

static void an_unknown_custom_operator_is_refused_by_name(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = window_model("SignalStacker2", NULL, 0, &d);
  mp_lowered_op lo;
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_string_equal(lo.reason, "memplan has no kernel for SignalStacker2");
  mp_lower_free(&lo);
  mp_model_free(&m);
}

/* ------------------------------------------------------------------------ */
/* The corpus's Signal cases, every invocation in order                      */
/* ------------------------------------------------------------------------ */

typedef struct sigcase {
  mp_model *m;
  mp_graph *g;
  mp_lowered_op *lo;
  uint8_t **buf;
  uint8_t **owned;
  int32_t *scratch;
} sigcase;

static void case_close(sigcase *c) {
  for (uint32_t t = 0; c->g && t < c->g->n_tensors; t++) free(c->owned[t]);
  for (uint32_t o = 0; c->g && o < c->g->n_ops; o++) mp_lower_free(&c->lo[o]);
  free(c->lo);
  free(c->buf);
  free(c->owned);
  free(c->scratch);
  mp_graph_free(&c->g);
  mp_model_free(&c->m);
}

/* Read dir/file into a new buffer; NULL when absent. */
static uint8_t *case_file(const char *dir, const char *file, size_t *size) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  return (uint8_t *)tu_read_text(path, size);
}

static uint8_t *garbage(uint64_t size, uint32_t seed) {
  uint8_t *p = malloc((size_t)(size ? size : 1) + 16);
  assert_non_null(p);
  for (uint64_t i = 0; i < size + 16; i++) p[i] = (uint8_t)((seed += 0x9E3779B9u) >> 24);
  return p;
}

/* Prepare model m (the case takes it) as the module would: its kernels
 * lowered, every tensor in a buffer of its own (constants copied, the rest
 * garbage), the persistent state zeroed as context init zeroes it. */
static void case_open_model(sigcase *c, mp_model *m, const char *dir) {
  memset(c, 0, sizeof *c);
  tu_diags d;
  tu_diags_init(&d);
  c->m = m;
  assert_int_equal(mp_graph_build(c->m, 0, NULL, &d.sink, &c->g), MP_OK);
  if (mp_kernels_prepare(c->g, false, &d.sink) != MP_OK) fail_msg("%s: %s", dir, d.text);
  const uint32_t n_ops = c->g->n_ops, nt = c->g->n_tensors;
  c->lo = calloc(n_ops, sizeof *c->lo);
  c->scratch = calloc(n_ops, sizeof *c->scratch);
  c->buf = calloc(nt, sizeof *c->buf);
  c->owned = calloc(nt, sizeof *c->owned);
  assert_true(c->lo && c->scratch && c->buf && c->owned);
  for (uint32_t o = 0; o < n_ops; o++) {
    assert_int_equal(mp_lower_op(c->g, o, &c->lo[o], &d.sink), MP_OK);
    assert_true(c->lo[o].supported);
    c->scratch[o] = -1;
    for (uint32_t t = c->g->n_model_tensors; t < nt; t++)
      if (c->g->tensors[t].local_op == (int32_t)o && c->g->tensors[t].role == MP_ROLE_SCRATCH)
        c->scratch[o] = (int32_t)t;
  }
  for (uint32_t t = 0; t < nt; t++) {
    const mp_tensor *x = &c->g->tensors[t];
    if (x->data) {
      c->owned[t] = malloc((size_t)x->size + 1);
      assert_non_null(c->owned[t]);
      memcpy(c->owned[t], x->data, (size_t)x->size);
    } else if (x->alias_of < 0) {
      c->owned[t] = garbage(x->size, t + 1);
    }
    c->buf[t] = c->owned[t];
  }
  for (uint32_t t = 0; t < nt; t++)
    if (c->g->tensors[t].alias_of >= 0) c->buf[t] = c->buf[c->g->tensors[t].alias_of];
  /* context_init's zeroed persistent state */
  for (uint32_t t = 0; t < nt; t++)
    if (c->g->tensors[t].role == MP_ROLE_PERSISTENT)
      memset(c->owned[t], 0, (size_t)c->g->tensors[t].size);
}

static void case_open(sigcase *c, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/model.tflite", dir);
  tu_diags d;
  tu_diags_init(&d);
  mp_model *m = NULL;
  assert_int_equal(mp_model_load(path, &d.sink, &m), MP_OK);
  case_open_model(c, m, dir);
}

static int32_t case_op(sigcase *c, uint32_t o) {
  const mp_lowered_op *lo = &c->lo[o];
  const mp_kparams *p = &lo->params;
  void *a[MP_LOWER_MAX_ARGS] = {NULL};
  for (uint32_t i = 0; i < lo->n_args; i++)
    a[i] = lo->args[i].tensor >= 0 ? c->buf[lo->args[i].tensor] : NULL;
  void *s = c->scratch[o] >= 0 ? c->buf[c->scratch[o]] : NULL;
  switch (lo->kernel) {
  case MP_K_NONE: return MPK_OK;
  case MP_K_SIGNAL_WINDOW: return mpk_signal_window(&p->signal_window, a[0], a[1], a[2], s);
  case MP_K_SIGNAL_FFT_AUTO_SCALE:
    return mpk_signal_fft_auto_scale(&p->signal_fft_auto_scale, a[0], a[1], a[2], s);
  case MP_K_SIGNAL_RFFT: return mpk_signal_rfft(&p->signal_rfft, a[0], a[1], s);
  case MP_K_SIGNAL_ENERGY: return mpk_signal_energy(&p->signal_energy, a[0], a[1], s);
  case MP_K_SIGNAL_FILTER_BANK:
    return mpk_signal_filter_bank(&p->signal_filter_bank, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                  s);
  case MP_K_SIGNAL_FILTER_BANK_SQRT:
    return mpk_signal_filter_bank_sqrt(&p->signal_filter_bank_sqrt, a[0], a[1], a[2], s);
  case MP_K_SIGNAL_SPECTRAL_SUBTRACTION:
    return mpk_signal_spectral_subtraction(&p->signal_spectral_subtraction, a[0], a[1], a[2], a[3],
                                           s);
  case MP_K_SIGNAL_PCAN: return mpk_signal_pcan(&p->signal_pcan, a[0], a[1], a[2], a[3], s);
  case MP_K_SIGNAL_FILTER_BANK_LOG:
    return mpk_signal_filter_bank_log(&p->signal_filter_bank_log, a[0], a[1], s);
  case MP_K_SIGNAL_DELAY: return mpk_signal_delay(&p->signal_delay, a[0], a[1], a[2], s);
  case MP_K_SIGNAL_STACKER:
    return mpk_signal_stacker(&p->signal_stacker, a[0], a[1], a[2], a[3], s);
  case MP_K_SIGNAL_FRAMER: return mpk_signal_framer(&p->signal_framer, a[0], a[1], a[2], a[3], s);
  case MP_K_SIGNAL_OVERLAP_ADD:
    return mpk_signal_overlap_add(&p->signal_overlap_add, a[0], a[1], a[2], s);
  case MP_K_SIGNAL_IRFFT: return mpk_signal_irfft(&p->signal_rfft, a[0], a[1], s);
  case MP_K_CAST: return mpk_cast(&p->cast, a[0], a[1], s);
  case MP_K_STRIDED_COPY: return mpk_strided_copy(&p->strided_copy, a[0], a[1], s);
  default: fail_msg("kernel %s is not called by this test", mp_kernel_fn(lo->kernel));
  }
  return -1;
}

/* Run invocation k (file prefix `pre`: "run0." or ""), compare; false
 * when the case has no such files. */
static bool case_run(sigcase *c, const char *dir, const char *pre, const char *what) {
  for (uint32_t i = 0; i < c->g->n_inputs; i++) {
    char file[64];
    snprintf(file, sizeof file, "%sinput%u.bin", pre, i);
    size_t size = 0;
    uint8_t *data = case_file(dir, file, &size);
    if (!data) return false;
    int32_t t = c->g->inputs[i];
    assert_int_equal(size, c->g->tensors[t].size);
    memcpy(c->buf[t], data, size);
    free(data);
  }
  for (uint32_t o = 0; o < c->g->n_ops; o++)
    if (case_op(c, o) != MPK_OK) fail_msg("%s: op %u (%s) failed", dir, o, c->g->ops[o].name);
  for (uint32_t j = 0; j < c->g->n_outputs; j++) {
    char file[64];
    snprintf(file, sizeof file, "%soutput%u.bin", pre, j);
    size_t size = 0;
    uint8_t *want = case_file(dir, file, &size);
    assert_non_null(want);
    int32_t t = c->g->outputs[j];
    assert_int_equal(size, c->g->tensors[t].size);
    const mp_tensor *x = &c->g->tensors[t];
    for (size_t b = 0; b < size; b += 4) {
      if (x->dtype == MP_DTYPE_FLOAT32) {
        float g, w;
        memcpy(&g, c->buf[t] + b, 4);
        memcpy(&w, want + b, 4);
        if (!(fabsf(g - w) <= 1e-6f + 1e-5f * fabsf(w)))
          fail_msg("%s %s: output %u element %zu is %.9g, TFLM has %.9g", dir, what, j, b / 4,
                   (double)g, (double)w);
      }
    }
    if (x->dtype != MP_DTYPE_FLOAT32 && memcmp(c->buf[t], want, size) != 0) {
      size_t b = 0;
      while (c->buf[t][b] == want[b]) b++;
      fail_msg("%s %s: output %u differs from TFLM at byte %zu", dir, what, j, b);
    }
    free(want);
  }
  return true;
}

static void every_signal_case_of_the_corpus_matches_tflm_run_after_run(void **state) {
  (void)state;
  const char *corpus = tu_conformance_dir();
  if (!corpus) skip();
  static const char *const folders[] = {
      "signal_window_int16", "signal_fft_auto_scale_int16", "signal_rfft_int16",
      "signal_rfft_int32", "signal_rfft_float32", "signal_energy_int16",
      "signal_filter_bank_uint32", "signal_filter_bank_square_root_uint64",
      "signal_filter_bank_spectral_subtraction_uint32", "signal_pcan_uint32",
      "signal_filter_bank_log_uint32", NULL};
  uint32_t cases = 0, runs = 0, stateful = 0;
  for (size_t f = 0; folders[f]; f++)
    for (uint32_t k = 0;; k++) {
      char dir[4096], model[4200];
      snprintf(dir, sizeof dir, "%s/%s/%03u", corpus, folders[f], k);
      snprintf(model, sizeof model, "%s/model.tflite", dir);
      FILE *fp = fopen(model, "rb");
      if (!fp) break;
      fclose(fp);
      sigcase c;
      case_open(&c, dir);
      int32_t state_t = -1;
      for (uint32_t o = 0; o < c.g->n_ops; o++)
        if (mp_lower_state_of(c.g, o) >= 0) state_t = mp_lower_state_of(c.g, o);
      bool multi = case_run(&c, dir, "run0.", "run 0");
      if (multi) {
        assert_true(case_run(&c, dir, "run1.", "run 1"));
        assert_true(case_run(&c, dir, "run2.", "run 2"));
        runs += 3;
        stateful++;
        /* the state carried runs 1 and 2; reset it and run 0 matches again */
        assert_true(state_t >= 0);
        assert_int_equal(c.g->tensors[state_t].role, MP_ROLE_PERSISTENT);
        memset(c.buf[state_t], 0, (size_t)c.g->tensors[state_t].size);
        assert_true(case_run(&c, dir, "run0.", "run 0 after a reset"));
      } else {
        assert_true(case_run(&c, dir, "", "the one run"));
        runs++;
      }
      cases++;
      case_close(&c);
    }
  print_message("%u Signal cases (%u stateful), %u invocations match TFLM\n", cases, stateful,
                runs);
  assert_int_equal(cases, 114);
  assert_true(stateful >= 10);
}

/* ------------------------------------------------------------------------ */
/* The streaming operators, by their properties over ramps                   */
/* ------------------------------------------------------------------------ */

/* No TFLM outputs exist for these in the corpus: each test states what
 * TFLM's kernel does over a stream (from its circular buffer's rules) as
 * a property of the stream's sample numbers, which the reader can check
 * by eye, and runs the lowered op call after call, then after a reset. */

typedef struct tspec {
  int32_t dtype;
  uint32_t rank;
  int32_t shape[4];
} tspec;

/* A model of one custom op `code` with options e[0..n_e) (keys in order,
 * values in 2-byte slots), inputs ins and outputs outs, all graph I/O. */
static mp_model *one_op_model(const char *code, const fx_entry *e, uint32_t n_e, uint32_t n_in,
                              const tspec *ins, uint32_t n_out, const tspec *outs, tu_diags *d) {
  mp_tfw *w = mp_tfw_new();
  assert_non_null(w);
  int32_t in_ids[4], out_ids[4];
  for (uint32_t i = 0; i < n_in; i++)
    in_ids[i] = (int32_t)mp_tfw_add_simple_tensor(w, "in", ins[i].dtype, ins[i].rank, ins[i].shape);
  for (uint32_t i = 0; i < n_out; i++)
    out_ids[i] =
        (int32_t)mp_tfw_add_simple_tensor(w, "out", outs[i].dtype, outs[i].rank, outs[i].shape);
  uint8_t opts[256];
  uint32_t n = write_map(opts, e, n_e, 2);
  mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 32, .custom_code = code, .n_inputs = n_in,
                                .inputs = in_ids, .n_outputs = n_out, .outputs = out_ids,
                                .custom_options_size = n, .custom_options = opts});
  mp_tfw_set_io(w, n_in, in_ids, n_out, out_ids);
  return tu_written(w, "stream.tflite", d);
}

/* Open the one-op model as a case; its state tensor in *state_t. */
static void stream_open(sigcase *c, mp_model *m, int32_t *state_t) {
  case_open_model(c, m, "stream");
  *state_t = mp_lower_state_of(c->g, 0);
  assert_true(*state_t >= 0);
  assert_int_equal(c->g->tensors[*state_t].role, MP_ROLE_PERSISTENT);
}

static void stream_run(sigcase *c) {
  for (uint32_t o = 0; o < c->g->n_ops; o++)
    if (case_op(c, o) != MPK_OK) fail_msg("op %u (%s) failed", o, c->g->ops[o].name);
}

/* reset_state: the module zeroes every persistent tensor */
static void stream_reset(sigcase *c, int32_t state_t) {
  memset(c->buf[state_t], 0, (size_t)c->g->tensors[state_t].size);
}

static int16_t *io16(sigcase *c, bool out, uint32_t k) {
  return (int16_t *)(void *)c->buf[out ? c->g->outputs[k] : c->g->inputs[k]];
}

/* Delay: sample n of a row's stream comes out as sample n + delay_length;
 * the first delay_length samples out are 0.  Rows are independent. */
static void delay_gives_each_row_its_samples_delay_length_later(void **state) {
  (void)state;
  static const int32_t delays[] = {0, 3, 4, 6, 9};
  for (size_t k = 0; k < sizeof delays / sizeof delays[0]; k++) {
    const int32_t D = delays[k];
    fx_entry e[] = {{"delay_length", FX_INT, D, 0}};
    tspec io = {MP_DTYPE_INT16, 2, {2, 4}};
    tu_diags d;
    tu_diags_init(&d);
    sigcase c;
    int32_t st_t;
    stream_open(&c, one_op_model("SignalDelay", e, 1, 1, &io, 1, &io, &d), &st_t);
    assert_int_equal(c.lo[0].kernel, MP_K_SIGNAL_DELAY);
    assert_int_equal(c.g->tensors[st_t].size, 2 * 2 * (D ? D : 1));
    for (int32_t pass = 0; pass < 2; pass++) {
      for (int32_t t = 0; t < 5; t++) {
        for (int32_t r = 0; r < 2; r++)
          for (int32_t i = 0; i < 4; i++)
            io16(&c, false, 0)[4 * r + i] = (int16_t)(100 * (r + 1) + 4 * t + i + 1);
        stream_run(&c);
        for (int32_t r = 0; r < 2; r++)
          for (int32_t i = 0; i < 4; i++) {
            const int32_t n = 4 * t + i, want = n >= D ? 100 * (r + 1) + (n - D) + 1 : 0;
            if (io16(&c, true, 0)[4 * r + i] != want)
              fail_msg("delay %d, pass %d, call %d, row %d, sample %d: %d, want %d", D, pass, t, r,
                       i, io16(&c, true, 0)[4 * r + i], want);
          }
      }
      stream_reset(&c, st_t); /* the second pass starts the stream again */
    }
    case_close(&c);
  }
}

/* Stacker, frames t = 0, 1, ... holding 10 t + ch + 1: TFLM queues the
 * first frame left + 1 times and outputs once left + 1 + right frames are
 * queued, then drops `step` of them; so call t is valid exactly when
 * t >= right and (t - right) % step == 0, and then holds frames
 * c - left .. c + right (c = t - right, frames before 0 read as frame 0).
 * An invalid call's output is 0. */
static void stacker_emits_its_stack_at_the_calls_tflm_does(void **state) {
  (void)state;
  static const struct {
    int32_t nc, left, right, step;
  } cfg[] = {{2, 2, 1, 2}, {3, 0, 0, 1}, {2, 1, 2, 3}, {1, 3, 0, 4}, {2, 0, 2, 1}};
  for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
    const int32_t nc = cfg[k].nc, L = cfg[k].left, R = cfg[k].right, S = cfg[k].step;
    const int32_t frames = L + 1 + R;
    fx_entry e[] = {{"num_channels", FX_INT, nc, 0},
                    {"stacker_left_context", FX_INT, L, 0},
                    {"stacker_right_context", FX_INT, R, 0},
                    {"stacker_step", FX_INT, S, 0}};
    tspec in = {MP_DTYPE_INT16, 1, {nc}};
    tspec outs[] = {{MP_DTYPE_INT16, 1, {nc * frames}}, {MP_DTYPE_BOOL, 0, {0}}};
    tu_diags d;
    tu_diags_init(&d);
    sigcase c;
    int32_t st_t;
    stream_open(&c, one_op_model("SignalStacker", e, 4, 1, &in, 2, outs, &d), &st_t);
    assert_int_equal(c.lo[0].kernel, MP_K_SIGNAL_STACKER);
    uint32_t valid_calls = 0;
    for (int32_t pass = 0; pass < 2; pass++) {
      for (int32_t t = 0; t < 12; t++) {
        for (int32_t ch = 0; ch < nc; ch++) io16(&c, false, 0)[ch] = (int16_t)(10 * t + ch + 1);
        stream_run(&c);
        const bool valid = t >= R && (t - R) % S == 0;
        const uint8_t got_valid = c.buf[c.g->outputs[1]][0];
        if (got_valid != (valid ? 1 : 0))
          fail_msg("stacker %zu, pass %d, call %d: valid %u, want %d", k, pass, t, got_valid,
                   valid);
        valid_calls += valid;
        for (int32_t f = 0; f < frames; f++)
          for (int32_t ch = 0; ch < nc; ch++) {
            int32_t fi = t - R - L + f;
            const int32_t want = valid ? 10 * (fi < 0 ? 0 : fi) + ch + 1 : 0;
            if (io16(&c, true, 0)[f * nc + ch] != want)
              fail_msg("stacker %zu, pass %d, call %d, frame %d, channel %d: %d, want %d", k, pass,
                       t, f, ch, io16(&c, true, 0)[f * nc + ch], want);
          }
      }
      stream_reset(&c, st_t);
    }
    assert_true(valid_calls >= 4);
    case_close(&c);
  }
}

/* Framer over rows whose sample n is 100 (row + 1) + n + 1, cut into
 * steps j = 0, 1, ... of frame_step samples (n_frames per call).  With
 * prefill, step j's frame is samples j step - (size - step) .. of the
 * stream, those before sample 0 being 0, and every call is valid.
 * Without, frames come once size samples have arrived: step j's frame is
 * samples (j - j0) step .., j0 = ceil(size / step) - 1, and a call with
 * a step before j0 is not valid (its frames there are 0). */
static void framer_cuts_the_frames_tflm_does_over_a_ramp(void **state) {
  (void)state;
  static const struct {
    int32_t size, step, prefill, rows, inner;
  } cfg[] = {{5, 2, 0, 2, 4}, {5, 2, 1, 2, 4}, {3, 4, 0, 1, 4}, {4, 4, 1, 1, 8}, {6, 3, 1, 2, 3},
             {400 / 40, 160 / 40, 0, 1, 4}};
  for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
    const int32_t fs = cfg[k].size, step = cfg[k].step, rows = cfg[k].rows, inner = cfg[k].inner;
    const int32_t nf = inner / step, j0 = (fs + step - 1) / step - 1;
    fx_entry e[] = {{"frame_size", FX_INT, fs, 0},
                    {"frame_step", FX_INT, step, 0},
                    {"prefill", FX_BOOL, cfg[k].prefill, 0}};
    tspec in = {MP_DTYPE_INT16, 2, {rows, inner}};
    tspec outs[] = {{MP_DTYPE_INT16, 3, {rows, nf, fs}}, {MP_DTYPE_BOOL, 0, {0}}};
    tu_diags d;
    tu_diags_init(&d);
    sigcase c;
    int32_t st_t;
    stream_open(&c, one_op_model("SignalFramer", e, 3, 1, &in, 2, outs, &d), &st_t);
    assert_int_equal(c.lo[0].kernel, MP_K_SIGNAL_FRAMER);
    for (int32_t pass = 0; pass < 2; pass++) {
      for (int32_t t = 0; t < 6; t++) {
        for (int32_t r = 0; r < rows; r++)
          for (int32_t i = 0; i < inner; i++)
            io16(&c, false, 0)[r * inner + i] = (int16_t)(100 * (r + 1) + t * inner + i + 1);
        stream_run(&c);
        bool valid = true;
        for (int32_t r = 0; r < rows; r++)
          for (int32_t f = 0; f < nf; f++) {
            const int32_t j = t * nf + f;
            int32_t first; /* the stream sample the frame starts at */
            bool has = true;
            if (cfg[k].prefill) {
              first = j * step - (fs - step);
            } else {
              has = j >= j0;
              first = (j - j0) * step;
            }
            valid = valid && has;
            for (int32_t i = 0; i < fs; i++) {
              const int32_t n = first + i;
              const int32_t want = has && n >= 0 ? 100 * (r + 1) + n + 1 : 0;
              const int32_t got = io16(&c, true, 0)[(r * nf + f) * fs + i];
              if (got != want)
                fail_msg("framer %zu, pass %d, call %d, row %d, frame %d, sample %d: %d, want %d",
                         k, pass, t, r, f, i, got, want);
            }
          }
        if (c.buf[c.g->outputs[1]][0] != (valid ? 1 : 0))
          fail_msg("framer %zu, pass %d, call %d: valid %u, want %d", k, pass, t,
                   c.buf[c.g->outputs[1]][0], valid);
      }
      stream_reset(&c, st_t);
    }
    case_close(&c);
  }
}

/* Overlap-add of frames of 4 values, 2 apart, each frame constant: frame
 * i of row 0 is 5000 (i + 1), of row 1 -3000 (i + 1) (int16) or 0.25 (i +
 * 1) and -1.5 (i + 1) (float32).  Output step j is then frame j + frame j
 * - 1 (the frames that cover it), clamped to int16 for int16. */
static void overlap_add_sums_the_frames_that_cover_each_step(void **state) {
  (void)state;
  for (int32_t fl = 0; fl < 2; fl++) {
    const int32_t dt = fl ? MP_DTYPE_FLOAT32 : MP_DTYPE_INT16;
    fx_entry e[] = {{"T", FX_INT, dt, 0}, {"frame_step", FX_INT, 2, 0}};
    tspec in = {dt, 3, {2, 2, 4}}, out = {dt, 2, {2, 4}};
    tu_diags d;
    tu_diags_init(&d);
    sigcase c;
    int32_t st_t;
    stream_open(&c, one_op_model("SignalOverlapAdd", e, 2, 1, &in, 1, &out, &d), &st_t);
    assert_int_equal(c.lo[0].kernel, MP_K_SIGNAL_OVERLAP_ADD);
    assert_int_equal(c.g->tensors[st_t].size, 2 * 4 * (fl ? 4 : 2));
    for (int32_t pass = 0; pass < 2; pass++) {
      for (int32_t t = 0; t < 3; t++) {
        for (int32_t r = 0; r < 2; r++)
          for (int32_t f = 0; f < 2; f++)
            for (int32_t x = 0; x < 4; x++) {
              const int32_t i = 2 * t + f, at = (r * 2 + f) * 4 + x;
              if (fl)
                ((float *)(void *)c.buf[c.g->inputs[0]])[at] = (r ? -1.5f : 0.25f) * (float)(i + 1);
              else
                io16(&c, false, 0)[at] = (int16_t)((r ? -3000 : 5000) * (i + 1));
            }
        stream_run(&c);
        for (int32_t r = 0; r < 2; r++)
          for (int32_t f = 0; f < 2; f++)
            for (int32_t x = 0; x < 2; x++) {
              const int32_t j = 2 * t + f, at = (r * 2 + f) * 2 + x;
              if (fl) {
                const float unit = r ? -1.5f : 0.25f;
                const float want = unit * (float)(j + 1) + (j ? unit * (float)j : 0.0f);
                const float got = ((float *)(void *)c.buf[c.g->outputs[0]])[at];
                if (got != want)
                  fail_msg("overlap-add f32, pass %d, step %d, row %d: %g, want %g", pass, j, r,
                           (double)got, (double)want);
              } else {
                const int32_t unit = r ? -3000 : 5000;
                int32_t want = unit * (j + 1) + unit * j;
                want = want > 32767 ? 32767 : want < -32768 ? -32768 : want;
                if (io16(&c, true, 0)[at] != want)
                  fail_msg("overlap-add s16, pass %d, step %d, row %d: %d, want %d", pass, j, r,
                           io16(&c, true, 0)[at], want);
              }
            }
      }
      stream_reset(&c, st_t);
    }
    case_close(&c);
  }
}

/* Options TFLM's kernels would run past their buffers with are refused
 * with the reason; so is the operator memplan has no kernel for. */
static void streaming_options_tflm_cannot_run_are_refused(void **state) {
  (void)state;
  tu_diags d;
  tu_diags_init(&d);
  mp_lowered_op lo;
  fx_entry st[] = {{"num_channels", FX_INT, 2, 0},
                   {"stacker_left_context", FX_INT, 2, 0},
                   {"stacker_right_context", FX_INT, 1, 0},
                   {"stacker_step", FX_INT, 5, 0}};
  tspec s_in = {MP_DTYPE_INT16, 1, {2}};
  tspec s_outs[] = {{MP_DTYPE_INT16, 1, {8}}, {MP_DTYPE_BOOL, 0, {0}}};
  mp_model *m = one_op_model("SignalStacker", st, 4, 1, &s_in, 2, s_outs, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "stacker_step of 5 frames beyond the 4 it stacks"));
  mp_model_free(&m);
  fx_entry fr[] = {{"frame_size", FX_INT, 2, 0},
                   {"frame_step", FX_INT, 3, 0},
                   {"prefill", FX_BOOL, 1, 0}};
  tspec f_in = {MP_DTYPE_INT16, 1, {3}};
  tspec f_outs[] = {{MP_DTYPE_INT16, 2, {1, 2}}, {MP_DTYPE_BOOL, 0, {0}}};
  m = one_op_model("SignalFramer", fr, 3, 1, &f_in, 2, f_outs, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "prefill with a frame_step of 3 beyond frame_size 2"));
  mp_model_free(&m);
  fx_entry ola[] = {{"T", FX_INT, MP_DTYPE_INT16, 0}, {"frame_step", FX_INT, 5, 0}};
  tspec o_in = {MP_DTYPE_INT16, 2, {1, 4}}, o_out = {MP_DTYPE_INT16, 1, {5}};
  m = one_op_model("SignalOverlapAdd", ola, 2, 1, &o_in, 1, &o_out, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "frame_step of 5 beyond frame_size 4"));
  mp_model_free(&m);
  fx_entry ir[] = {{"T", FX_INT, MP_DTYPE_INT16, 0}, {"fft_length", FX_INT, 8, 0}};
  tspec i_in = {MP_DTYPE_INT16, 1, {8}}, i_out = {MP_DTYPE_INT16, 1, {8}};
  m = one_op_model("SignalIrfft", ir, 2, 1, &i_in, 1, &i_out, &d);
  assert_int_equal(lower0(m, &d, &lo), MP_OK);
  assert_false(lo.supported);
  assert_non_null(strstr(lo.reason, "rows of 8 values in and 8 out for fft_length 8 (TensorFlow "
                                    "Lite Micro reads 10 and writes 8)"));
  mp_lower_free(&lo);
  mp_model_free(&m);
}

/* ------------------------------------------------------------------------ */
/* SignalIrfft                                                               */
/* ------------------------------------------------------------------------ */

/* One SignalIrfft of fft_length 4 (its bins in, 4 samples out) on bins
 * worked out by hand: x[t] = (1/4) sum_k X[k] e^(2 pi i k t / 4) over the
 * full spectrum (X[3] = conj X[1]), in every type (fixed point: KISS FFT
 * halves the folded bins and divides by the radix at each stage; float32:
 * TFLM divides KISS FFT's sum by fft_length). */
static void irfft_of_hand_worked_bins(void **state) {
  (void)state;
  static const struct {
    int32_t bins[6];
    int32_t want[4];
  } q[] = {{{4000, 0, 0, 0, 0, 0}, {1000, 1000, 1000, 1000}},     /* DC 4000: x = 1000 */
           {{0, 0, 0, 0, 4000, 0}, {1000, -1000, 1000, -1000}},   /* Nyquist 4000 */
           {{0, 0, 2000, 0, 0, 0}, {1000, 0, -1000, 0}},          /* cos: 2 * 2000 / 4 */
           {{0, 0, 0, -2000, 0, 0}, {0, 1000, 0, -1000}},         /* sin */
           {{-8000, 0, 4000, 4000, 0, 0}, {0, -4000, -4000, 0}}}; /* -2000 + 2000 (cos - sin) */
  for (int32_t ty = 0; ty < 3; ty++) {
    const int32_t dt = ty == 0 ? MP_DTYPE_INT16 : ty == 1 ? MP_DTYPE_INT32 : MP_DTYPE_FLOAT32;
    fx_entry e[] = {{"T", FX_INT, dt, 0}, {"fft_length", FX_INT, 4, 0}};
    tspec in = {dt, 1, {6}}, out = {dt, 1, {4}};
    tu_diags d;
    tu_diags_init(&d);
    sigcase c;
    case_open_model(&c, one_op_model("SignalIrfft", e, 2, 1, &in, 1, &out, &d), "irfft");
    assert_int_equal(c.lo[0].kernel, MP_K_SIGNAL_IRFFT);
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
      void *x = c.buf[c.g->inputs[0]], *y = c.buf[c.g->outputs[0]];
      for (int32_t i = 0; i < 6; i++) {
        if (ty == 0) ((int16_t *)x)[i] = (int16_t)q[k].bins[i];
        if (ty == 1) ((int32_t *)x)[i] = q[k].bins[i];
        if (ty == 2) ((float *)x)[i] = (float)q[k].bins[i];
      }
      stream_run(&c);
      for (int32_t t = 0; t < 4; t++) {
        const double got = ty == 0   ? ((int16_t *)y)[t]
                           : ty == 1 ? ((int32_t *)y)[t]
                                     : ((float *)y)[t];
        if (fabs(got - q[k].want[t]) > (ty == 2 ? 1e-3 : 0))
          fail_msg("irfft %s, case %zu, sample %d: %g, want %d", mp_dtype_name(dt), k, t, got,
                   q[k].want[t]);
      }
    }
    case_close(&c);
  }
}

/* SignalRfft then SignalIrfft (memplan's rfft matches TFLM's, test
 * above) over rows of a deterministic signal, fft_lengths whose halves
 * take KISS FFT's radix 4, 2, 3, 5 and generic (7) butterflies: float32
 * gives the signal back, int16 and int32 the signal / fft_length (each
 * fixed-point transform scales by its length), within a few units of
 * rounding. */
static void rfft_then_irfft_gives_the_signal_back_scaled(void **state) {
  (void)state;
  static const int32_t lengths[] = {4, 8, 16, 24, 20, 28, 64};
  for (int32_t ty = 0; ty < 3; ty++)
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
      const int32_t dt = ty == 0 ? MP_DTYPE_INT16 : ty == 1 ? MP_DTYPE_INT32 : MP_DTYPE_FLOAT32;
      const int32_t N = lengths[li], rows = 2;
      fx_entry e[] = {{"T", FX_INT, dt, 0}, {"fft_length", FX_INT, N, 0}};
      mp_tfw *w = mp_tfw_new();
      assert_non_null(w);
      const int32_t sx[] = {rows, N}, sX[] = {rows, N + 2};
      mp_tfw_add_simple_tensor(w, "x", dt, 2, sx);
      mp_tfw_add_simple_tensor(w, "X", dt, 2, sX);
      mp_tfw_add_simple_tensor(w, "y", dt, 2, sx);
      uint8_t opts[64];
      uint32_t n = write_map(opts, e, 2, 2);
      const int32_t t0[] = {0}, t1[] = {1}, t2[] = {2};
      mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 32, .custom_code = "SignalRfft", .n_inputs = 1,
                                    .inputs = t0, .n_outputs = 1, .outputs = t1,
                                    .custom_options_size = n, .custom_options = opts});
      mp_tfw_add_op(w, &(mp_tfw_op){.builtin_code = 32, .custom_code = "SignalIrfft",
                                    .n_inputs = 1, .inputs = t1, .n_outputs = 1, .outputs = t2,
                                    .custom_options_size = n, .custom_options = opts});
      mp_tfw_set_io(w, 1, t0, 1, t2);
      tu_diags d;
      tu_diags_init(&d);
      sigcase c;
      case_open_model(&c, tu_written(w, "roundtrip.tflite", &d), "roundtrip");
      assert_int_equal(c.lo[1].kernel, MP_K_SIGNAL_IRFFT);
      void *x = c.buf[c.g->inputs[0]], *y = c.buf[c.g->outputs[0]];
      const double amp = ty == 0 ? 30000.0 : ty == 1 ? 1.5e9 : 1.0;
      double v[2 * 64];
      for (int32_t i = 0; i < rows * N; i++) {
        /* two tones and a ramp: every bin takes part */
        v[i] = amp * (0.5 * sin(0.7 * i + 0.3) + 0.3 * cos(2.1 * i) +
                      0.2 * ((i * 7) % 11 - 5) / 5.0);
        if (ty == 0) ((int16_t *)x)[i] = (int16_t)lrint(v[i]);
        if (ty == 1) ((int32_t *)x)[i] = (int32_t)lrint(v[i]);
        if (ty == 2) ((float *)x)[i] = (float)v[i];
      }
      stream_run(&c);
      double worst = 0;
      for (int32_t i = 0; i < rows * N; i++) {
        double got = ty == 0 ? ((int16_t *)y)[i] : ty == 1 ? ((int32_t *)y)[i] : ((float *)y)[i];
        double want = ty == 2 ? (double)((float *)x)[i]
                              : (ty == 0 ? ((int16_t *)x)[i] : ((int32_t *)x)[i]) / (double)N;
        if (fabs(got - want) > worst) worst = fabs(got - want);
      }
      /* a few units of the fixed-point result (rounding at every stage of
       * both transforms); float32: 1e-5 of the amplitude */
      const double tol = ty == 0 ? 4.0 : ty == 1 ? 16.0 : 1e-5;
      if (worst > tol)
        fail_msg("rfft then irfft, %s, fft_length %d: off by %g (at most %g)", mp_dtype_name(dt),
                 N, worst, tol);
      print_message("rfft then irfft %-7s fft_length %2d: off by at most %g\n", mp_dtype_name(dt),
                    N, worst);
      case_close(&c);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(maps_read_back_at_every_width),
      cmocka_unit_test(a_string_where_a_number_belongs_is_an_error_naming_the_key),
      cmocka_unit_test(bad_widths_and_offsets_give_their_byte_offset),
      cmocka_unit_test(every_truncation_and_mutation_parses_or_fails_cleanly),
      cmocka_unit_test(signal_window_lowers_with_its_shift),
      cmocka_unit_test(a_key_tflm_would_not_read_or_a_value_out_of_range_is_unsupported),
      cmocka_unit_test(options_that_do_not_parse_are_a_model_error_with_the_file_offset),
      cmocka_unit_test(an_unknown_custom_operator_is_refused_by_name),
      cmocka_unit_test(every_signal_case_of_the_corpus_matches_tflm_run_after_run),
      cmocka_unit_test(delay_gives_each_row_its_samples_delay_length_later),
      cmocka_unit_test(stacker_emits_its_stack_at_the_calls_tflm_does),
      cmocka_unit_test(framer_cuts_the_frames_tflm_does_over_a_ramp),
      cmocka_unit_test(overlap_add_sums_the_frames_that_cover_each_step),
      cmocka_unit_test(streaming_options_tflm_cannot_run_are_refused),
      cmocka_unit_test(irfft_of_hand_worked_bins),
      cmocka_unit_test(rfft_then_irfft_gives_the_signal_back_scaled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
