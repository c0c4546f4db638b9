/*
 * probe.c — the probe kernels and the proof of one emitted module (see
 * probe.h for the idea).
 *
 * The proof of a module, in order:
 *   1. the API refuses what it must: a context of another plan hash, a run
 *      before init, and (caller-bound arenas) an unbound region, a buffer
 *      too small, misaligned, a bad region id, a batch with one bad binding
 *      (which must bind nothing);
 *   2. every region is bound (the harness's guarded buffers when the
 *      module does not allocate its arenas, filled with garbage so that
 *      context_init must zero the persistent ones) and aligned;
 *   3. three rounds: init + run; run again (variables keep their state,
 *      scratch is rewritten); persistent arenas dirtied, init + run (they
 *      must hold the start values again).  The kernel hook checks every operator's
 *      inputs, writes its outputs and checks again; the callback checks
 *      the operator order; a strong hydrate checks it runs once, after
 *      context_init and before any operator init;
 *   4. a context without hook fails with "unsupported operator" at the
 *      first operator that is not a view (no kernel is linked);
 *   5. guard bytes around every bound buffer, and on the target the bytes
 *      around the module's own arenas, are unchanged (on the host, ASan's
 *      redzones guard the module's own arenas).
 * The first failure is kept and printed with the module's name.
 *
 * C99, no heap; snprintf and memset only, so it runs on the bare target.
 */
#include "probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_REGIONS 32u
#define NEIGHBOUR 64u

static struct {
  const probe_module *m;
  uint32_t salt;        /* the round: part of every pattern */
  uint32_t next_event;  /* 2 * op + (finished): the callback sequence */
  uint32_t init_ops;    /* init-phase hook calls in this model_init */
  uint32_t hydrates;    /* strong hydrate calls in this model_init */
  int in_init;          /* the harness is inside model_init */
  int after_write;      /* checking inputs again after the op's writes */
  int failed;
  char msg[400];
  uint8_t before[MAX_REGIONS][NEIGHBOUR], after[MAX_REGIONS][NEIGHBOUR];
} S;

static int fail(const char *fmt, ...) {
  if (!S.failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.msg, sizeof S.msg, fmt, ap);
    va_end(ap);
    S.failed = 1;
  }
  return 1;
}

/* The byte `b` of tensor `t` written in round `salt`. */
static uint8_t pattern(uint32_t t, uint32_t b, uint32_t salt) {
  uint32_t x = (t + 1u) * 0x9E3779B1u ^ (b * 0x85EBCA77u) ^ (salt * 0xC2B2AE3Du);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return (uint8_t)x;
}

static uint64_t fnv1a(const uint8_t *d, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint32_t i = 0; i < n; i++) {
    h ^= d[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

#define AFTER_INIT 0xFFFFFFFFu /* "op" of the checks after model_init */
#define AFTER_RUN 0xFFFFFFFEu  /* ... and after model_run */

/* "op 3 (CONV_2D)", or where outside an operator the check runs. */
static const char *at(const probe_module *m, uint32_t op) {
  static char buf[96];
  if (op == AFTER_INIT) return "after model_init";
  if (op == AFTER_RUN) return "after model_run";
  snprintf(buf, sizeof buf, "op %u (%s)", (unsigned)op, op < m->n_ops ? m->ops[op].name : "?");
  return buf;
}

/* Where byte b of tensor x lies from its first: its rows for a strided
 * view, else b. */
static uint32_t pos(const probe_tensor *x, uint32_t b) {
  return x->stride && x->row ? (b / x->row) * x->stride + b % x->row : b;
}

/* The bytes from a tensor's first to its last. */
static uint32_t extent(const probe_tensor *x) {
  return x->size ? pos(x, x->size - 1) + 1 : 0;
}

/* Who wrote the unexpected byte `v` at address `p`?  A tensor whose slot
 * covers p and whose pattern (this round or the one before) gives v. */
static void culprit(const probe_module *m, const uint8_t *p, uint8_t v, char *out, size_t n) {
  snprintf(out, n, "no tensor's pattern");
  for (uint32_t u = 0; u < m->n_tensors; u++) {
    const probe_tensor *x = &m->tensors[u];
    if ((uint32_t)x->root != u || x->kind == PROBE_NONE || x->kind == PROBE_CONST) continue;
    const uint8_t *d = m->tensor_data(u);
    if (!d || p < d || p >= d + x->size) continue;
    uint32_t b = (uint32_t)(p - d);
    for (uint32_t s = S.salt; s + 1 >= S.salt && s > 0; s--)
      if (pattern(u, b, s) == v) {
        snprintf(out, n, "the pattern of tensor %u '%s'%s", (unsigned)u, x->name,
                 s == S.salt ? "" : " from the round before");
        return;
      }
  }
}

/* Does tensor t sit inside its region, at the address the module gives? */
static int check_place(const probe_module *m, uint32_t op, int32_t t, const char *what) {
  uint32_t r, off, size;
  if (m->tensor_desc((uint32_t)t, &r, &off, &size) != 0)
    return fail("%s: %s tensor %d '%s' has no descriptor", at(m, op), what, (int)t, m->tensors[t].name);
  const probe_region *rg = NULL;
  for (uint32_t k = 0; k < m->n_regions; k++)
    if (m->regions[k].id == r) rg = &m->regions[k];
  const uint8_t *base = rg ? m->region_base(r) : NULL;
  if (!rg || !base || off > rg->size || size > rg->size - off ||
      (const uint8_t *)m->tensor_data((uint32_t)t) != base + off)
    return fail("%s: %s tensor %d '%s' [%u, %u) lies outside region %u", at(m, op), what, (int)t, m->tensors[t].name, (unsigned)off,
                (unsigned)(off + size), (unsigned)r);
  if (size != m->tensors[t].size)
    return fail("%s: %s tensor %d '%s' has %u bytes in the module, %u in the model",
                at(m, op), what, (int)t, m->tensors[t].name, (unsigned)size,
                (unsigned)m->tensors[t].size);
  return 0;
}

/* Check that tensor t holds what it should; `op` and `what` name the
 * place ("input", "output", "graph output"). */
static int check_tensor(const probe_module *m, uint32_t op, int32_t t, const char *what);

/* The same once the operator wrote its outputs. */
static int check_again(const probe_module *m, uint32_t op, int32_t t) {
  S.after_write = 1;
  int r = check_tensor(m, op, t, "input");
  S.after_write = 0;
  return r;
}

/* Byte b of variable x before any operator writes it. */
static uint8_t start_value(const probe_tensor *x, uint32_t b) {
  return x->start ? x->start[b] : x->start_byte;
}

static int check_tensor(const probe_module *m, uint32_t op, int32_t t, const char *what) {
  if (t < 0 || (uint32_t)t >= m->n_tensors) return 0;
  const probe_tensor *x = &m->tensors[t];
  if (x->kind == PROBE_NONE) return 0;
  const uint8_t *d = m->tensor_data((uint32_t)t);
  if (!d)
    return fail("%s: %s tensor %d '%s' has no storage", at(m, op),
                what, (int)t, x->name);
  if (check_place(m, op, t, what)) return 1;
  if (x->kind == PROBE_CONST) {
    uint64_t h = fnv1a(d, x->size);
    if ((uint32_t)h != x->hash_lo || (uint32_t)(h >> 32) != x->hash_hi)
      return fail("%s: constant tensor %d '%s' (%u bytes) differs from the model's bytes",
                  at(m, op), (int)t, x->name, (unsigned)x->size);
    return 0;
  }
  if (x->kind == PROBE_UNWRITTEN) return 0;
  uint32_t r = (uint32_t)x->root;
  const probe_tensor *rx = &m->tensors[r];
  for (uint32_t b = 0; b < x->size; b++) {
    uint8_t want;
    if (rx->kind == PROBE_PERSISTENT)
      want = m->state[r] ? pattern(r, b, m->state[r]) : start_value(rx, b);
    else if (rx->kind == PROBE_INPUT || rx->kind == PROBE_PRODUCED)
      want = pattern(r, x->at + pos(x, b), S.salt);
    else
      return 0;
    if (d[pos(x, b)] != want) {
      char who[160];
      culprit(m, d + pos(x, b), d[pos(x, b)], who, sizeof who);
      return fail("%s: %s tensor %d '%s' byte %u is 0x%02x, expected 0x%02x%s: it holds %s",
                  at(m, op), what, (int)t, x->name, (unsigned)b, (unsigned)d[pos(x, b)], (unsigned)want,
                  S.after_write ? " once the op wrote its outputs" : "", who);
    }
  }
  return 0;
}

static void write_tensor(const probe_module *m, int32_t t) {
  if (t < 0 || (uint32_t)t >= m->n_tensors) return;
  const probe_tensor *x = &m->tensors[t];
  if (x->kind == PROBE_NONE || x->kind == PROBE_CONST) return;
  uint8_t *d = m->tensor_data((uint32_t)t);
  if (!d) return;
  if (x->kind == PROBE_PERSISTENT) m->state[t] = (uint8_t)S.salt;
  /* a view (a CONCATENATION's input its producer writes into the output)
   * holds its root's pattern at its place in the root */
  for (uint32_t b = 0; b < x->size; b++)
    d[pos(x, b)] = pattern((uint32_t)x->root, x->at + pos(x, b), S.salt);
}

/* Do tensors t and u share bytes in the module? */
static int shares_bytes(const probe_module *m, int32_t t, int32_t u) {
  if (t < 0 || u < 0) return 0;
  const uint8_t *a = m->tensor_data((uint32_t)t), *b = m->tensor_data((uint32_t)u);
  if (!a || !b) return 0;
  return a < b + extent(&m->tensors[u]) && b < a + extent(&m->tensors[t]);
}

/* Input byte `b` of tensor t, read by the kernel of `op` while it writes
 * tensor `out`: it must still hold its producer's pattern. */
static int walk_read(const probe_module *m, uint32_t op, int32_t t, uint32_t b, int32_t out) {
  const probe_tensor *x = &m->tensors[t];
  const uint8_t *d = m->tensor_data((uint32_t)t);
  if (b >= x->size) return fail("%s: the in-place walk reads byte %u of tensor %d '%s' (%u bytes)",
                                at(m, op), (unsigned)b, (int)t, x->name, (unsigned)x->size);
  uint32_t r = (uint32_t)x->root;
  if (m->tensors[r].kind != PROBE_INPUT && m->tensors[r].kind != PROBE_PRODUCED) return 0;
  uint8_t want = pattern(r, x->at + pos(x, b), S.salt);
  if (d[pos(x, b)] == want) return 0;
  char who[160];
  culprit(m, d + pos(x, b), d[pos(x, b)], who, sizeof who);
  return fail("%s: input tensor %d '%s' byte %u is 0x%02x when the kernel reads it, expected "
              "0x%02x: it holds %s; the output %d '%s' was written over input it had not read yet",
              at(m, op), (int)t, x->name, (unsigned)b, (unsigned)d[pos(x, b)], (unsigned)want, who,
              (int)out, m->tensors[out].name);
}

static void walk_write(const probe_module *m, int32_t t, uint32_t b0, uint32_t n) {
  uint8_t *d = m->tensor_data((uint32_t)t);
  const probe_tensor *x = &m->tensors[t];
  for (uint32_t b = b0; b < b0 + n && b < x->size; b++)
    d[pos(x, b)] = pattern((uint32_t)x->root, x->at + pos(x, b), S.salt);
}

/* Every input byte of channels c0 .. c0 + nc - 1 of the window of output
 * pixel (b, oy, ox), tap by tap, of a geometry walk (n: batches, in_h,
 * in_w, in_c, ..., the strides, dilations and pads at 10 .. 15). */
static int read_window_channels(const probe_module *m, uint32_t op, const probe_walk *w,
                                int32_t in, int32_t out, int32_t b, int32_t oy, int32_t ox,
                                int32_t c0, int32_t nc) {
  const int32_t *n = w->n;
  const uint32_t ib = w->in_bytes;
  for (int32_t fy = 0; fy < n[7]; fy++) {
    const int32_t iy = oy * n[10] - n[14] + n[12] * fy;
    if (iy < 0 || iy >= n[1]) continue;
    for (int32_t fx = 0; fx < n[8]; fx++) {
      const int32_t ix = ox * n[11] - n[15] + n[13] * fx;
      if (ix < 0 || ix >= n[2]) continue;
      const uint32_t base = (uint32_t)(((b * n[1] + iy) * n[2] + ix) * n[3] + c0) * ib;
      for (uint32_t e = 0; e < (uint32_t)nc * ib; e++)
        if (walk_read(m, op, in, base + e, out)) return 1;
    }
  }
  return 0;
}

/* All channels: the window of a PIXEL_PAIRS walk. */
static int read_window(const probe_module *m, uint32_t op, const probe_walk *w, int32_t in,
                       int32_t out, int32_t b, int32_t oy, int32_t ox) {
  return read_window_channels(m, op, w, in, out, b, oy, ox, 0, w->n[3]);
}

/* Replay walk w of `op` from input tensor `in` to output tensor `out`, in
 * the kernel's loop order (runtime/kernels: mpk_conv.c, mpk_pool.c,
 * mpk_fc.c, mpk_elementwise.c; the specialised mpk_*_fast.c). */
static int walk(const probe_module *m, uint32_t op, const probe_walk *w, int32_t in, int32_t out) {
  const int32_t *n = w->n;
  const uint32_t ib = w->in_bytes, ob = w->out_bytes;
  if (w->kind == PROBE_WALK_TILES) {
    const uint32_t ipx = (uint32_t)n[2] * ib, opx = (uint32_t)n[4] * ob;
    for (int32_t t = 0; t < n[0]; t++) {
      const int32_t *r = w->tiles + 8 * t;
      for (int32_t y = r[0]; y < r[1]; y++)
        for (uint32_t x = (uint32_t)(y * n[1] + r[2]) * ipx; x < (uint32_t)(y * n[1] + r[3]) * ipx; x++)
          if (walk_read(m, op, in, x, out)) return 1;
      for (int32_t y = r[4]; y < r[5]; y++)
        walk_write(m, out, (uint32_t)(y * n[3] + r[6]) * opx, (uint32_t)(r[7] - r[6]) * opx);
    }
    return 0;
  }
  if (w->kind == PROBE_WALK_ROW_PAIRS) {
    for (int32_t b = 0; b < n[0]; b += 2) {
      const int32_t e = b + 2 < n[0] ? b + 2 : n[0];
      for (int pass = 0; pass < 2; pass++) {
        for (uint32_t x = (uint32_t)b * (uint32_t)n[1] * ib; x < (uint32_t)e * (uint32_t)n[1] * ib; x++)
          if (walk_read(m, op, in, x, out)) return 1;
        if (!pass)
          walk_write(m, out, (uint32_t)b * (uint32_t)n[2] * ob, (uint32_t)(e - b) * (uint32_t)n[2] * ob);
      }
    }
    return 0;
  }
  if (w->kind == PROBE_WALK_PIXEL_PAIRS) {
    const int32_t pixels = n[4] * n[5];
    const uint32_t px = (uint32_t)n[6] * ob;
    for (int32_t b = 0; b < n[0]; b++)
      for (int32_t i = 0; i < pixels; i += 2) {
        const int32_t e = i + 2 < pixels ? i + 2 : pixels;
        for (int pass = 0; pass < 1 + (n[16] != 0); pass++) {
          for (int32_t j = i; j < e; j++)
            if (read_window(m, op, w, in, out, b, j / n[5], j % n[5])) return 1;
          if (!pass) walk_write(m, out, (uint32_t)(b * pixels + i) * px, (uint32_t)(e - i) * px);
        }
      }
    return 0;
  }
  if (w->kind == PROBE_WALK_ELEMENTS) {
    for (int32_t i = 0; i < n[0]; i++) {
      for (uint32_t e = 0; e < ib; e++)
        if (walk_read(m, op, in, (uint32_t)i * ib + e, out)) return 1;
      walk_write(m, out, (uint32_t)i * ob, ob);
    }
    return 0;
  }
  if (w->kind == PROBE_WALK_ROWS) {
    for (int32_t b = 0; b < n[0]; b++)
      for (int32_t o = 0; o < n[2]; o++) {
        for (uint32_t e = 0; e < (uint32_t)n[1] * ib; e++)
          if (walk_read(m, op, in, (uint32_t)b * (uint32_t)n[1] * ib + e, out)) return 1;
        walk_write(m, out, ((uint32_t)b * (uint32_t)n[2] + (uint32_t)o) * ob, ob);
      }
    return 0;
  }
  if (w->kind == PROBE_WALK_PAD) {
    const int32_t *in_d = n, *out_d = n + 6, *before = n + 12;
    uint32_t total = 1;
    for (int d = 0; d < 6; d++) total *= (uint32_t)out_d[d];
    for (uint32_t o = 0; o < total; o++) {
      int32_t coord[6];
      uint32_t rem = o, src = 0;
      int inside = 1;
      for (int d = 5; d >= 0; d--) {
        coord[d] = (int32_t)(rem % (uint32_t)out_d[d]);
        rem /= (uint32_t)out_d[d];
      }
      for (int d = 0; d < 6; d++) {
        int32_t x = coord[d] - before[d];
        if (x < 0 || x >= in_d[d]) inside = 0;
        src = src * (uint32_t)in_d[d] + (uint32_t)(x < 0 ? 0 : x);
      }
      for (uint32_t e = 0; inside && e < ib; e++)
        if (walk_read(m, op, in, src * ib + e, out)) return 1;
      walk_write(m, out, o * ob, ob);
    }
    return 0;
  }
  if (w->kind == PROBE_WALK_STRIDED) {
    const int32_t *dims = n + 1, *strides = n + 7;
    uint32_t total = 1;
    for (int d = 0; d < 6; d++) total *= (uint32_t)dims[d];
    int32_t coord[6] = {0, 0, 0, 0, 0, 0}, src = n[0];
    for (uint32_t o = 0; o < total; o++) {
      for (uint32_t e = 0; e < ib; e++)
        if (walk_read(m, op, in, (uint32_t)src * ib + e, out)) return 1;
      walk_write(m, out, o * ob, ob);
      for (int d = 5; d >= 0; d--) {
        src += strides[d];
        if (++coord[d] < dims[d]) break;
        src -= strides[d] * dims[d];
        coord[d] = 0;
      }
    }
    return 0;
  }
  const int32_t batches = n[0], in_c = n[3], out_h = n[4], out_w = n[5], out_c = n[6],
                fc = n[9];
  if (w->kind == PROBE_WALK_SERIAL) {
    if (fc != 1 || in_c != out_c) return fail("%s: bad walk", at(m, op));
    for (int32_t c = 0; c < out_c; c++) {
      for (int32_t b = 0; b < batches; b++)
        for (int32_t oy = 0; oy < out_h; oy++)
          for (int32_t ox = 0; ox < out_w; ox++)
            if (read_window_channels(m, op, w, in, out, b, oy, ox, c, 1)) return 1;
      for (int32_t p = 0; p < batches * out_h * out_w; p++)
        walk_write(m, out, (uint32_t)(p * out_c + c) * ob, ob);
    }
    return 0;
  }
  const int window = w->kind == PROBE_WALK_WINDOW;
  if (fc <= 0 || (window && (in_c % fc || out_c % (in_c / fc)))) return fail("%s: bad walk", at(m, op));
  const int32_t per_group = window ? out_c / (in_c / fc) : 0;
  for (int32_t b = 0; b < batches; b++)
    for (int32_t oy = 0; oy < out_h; oy++)
      for (int32_t ox = 0; ox < out_w; ox++)
        for (int32_t oc = 0; oc < out_c; oc++) {
          const int32_t c0 = window ? (oc / per_group) * fc : oc / fc, nc = window ? fc : 1;
          if (read_window_channels(m, op, w, in, out, b, oy, ox, c0, nc)) return 1;
          walk_write(m, out, (uint32_t)(((b * out_h + oy) * out_w + ox) * out_c + oc) * ob, ob);
        }
  return 0;
}

int32_t probe_kernel(const probe_module *m, uint32_t op, int phase) {
  if (S.failed) return 1;
  if (m != S.m) return fail("the kernel hook of %s was called while %s runs", m->name, S.m->name);
  if (op >= m->n_ops) return fail("the kernel hook got operator %u of %u", (unsigned)op,
                                  (unsigned)m->n_ops);
  const probe_op *o = &m->ops[op];
  const int32_t *io = m->op_io + o->first;
  if (o->is_view)
    return fail("op %u (%s) is an aliased view, but its kernel was called (phase %d)",
                (unsigned)op, o->name, phase);
  if (phase == 0) {
    if (!S.in_init) return fail("%s: init hook called outside model_init", at(m, op));
    if (m->strong_hydrate && S.hydrates != 1)
      return fail("%s: operator init before hydrate_constants", at(m, op));
    S.init_ops++;
    for (uint32_t k = 0; k < o->n_in; k++)
      if (io[k] >= 0 && m->tensors[io[k]].kind == PROBE_CONST &&
          check_tensor(m, op, io[k], "init: constant input"))
        return 1;
    return 0;
  }
  if (S.next_event != 2u * op + 1u)
    return fail("op %u (%s) ran out of order (callback position %u)", (unsigned)op, o->name,
                (unsigned)S.next_event);
  for (uint32_t k = 0; k < o->n_in; k++)
    if (check_tensor(m, op, io[k], "input")) return 1;
  /* a stateful kernel updates its variables in place */
  for (uint32_t k = 0; k < o->n_in; k++)
    if (io[k] >= 0 && m->tensors[io[k]].kind == PROBE_PERSISTENT) write_tensor(m, io[k]);
  uint32_t n_in = o->n_in, n_io = (uint32_t)o->n_in + o->n_out, n_all = n_io + o->n_extra;
  /* an output over one of its inputs: replay the kernel's walk */
  const probe_walk *w = NULL;
  int32_t win = -1, wout = o->n_out ? io[n_in] : -1;
  for (uint32_t k = 0; k < o->n_walks && !w; k++)
    if (o->walks[k].in < n_in && shares_bytes(m, io[o->walks[k].in], wout)) {
      w = &o->walks[k];
      win = io[w->in];
    }
  for (uint32_t k = n_in; k < n_all; k++)
    if (!w || io[k] != wout) write_tensor(m, io[k]);
  if (w && walk(m, op, w, win, wout)) return 1;
  for (uint32_t k = 0; k < o->n_in; k++)
    if (io[k] != win && check_again(m, op, io[k])) return 1;
  for (uint32_t k = n_in; k < n_all; k++)
    if (check_tensor(m, op, io[k], k < n_io ? "output" : "scratch")) return 1;
  return 0;
}

void probe_event(const probe_module *m, uint32_t op, int started) {
  if (S.failed || m != S.m) return;
  uint32_t got = 2u * op + (started ? 0u : 1u);
  if (got != S.next_event)
    fail("callback: %s of op %u, expected %s of op %u", started ? "started" : "finished",
         (unsigned)op, (S.next_event & 1u) ? "finished" : "started",
         (unsigned)(S.next_event / 2u));
  S.next_event++;
}

/* Is byte p of a persistent region the start value of the variable that
 * holds it? (0 when no variable with a start value of its own holds it) */
static int start_byte_ok(const probe_module *m, const uint8_t *p) {
  for (uint32_t u = 0; u < m->n_tensors; u++) {
    const probe_tensor *x = &m->tensors[u];
    if (x->kind != PROBE_PERSISTENT || (uint32_t)x->root != u || (!x->start && !x->start_byte))
      continue;
    const uint8_t *d = m->tensor_data(u);
    if (d && p >= d && p < d + x->size) return *p == start_value(x, (uint32_t)(p - d));
  }
  return *p == 0;
}

/* Do the persistent regions hold what context_init leaves: zero, and every
 * variable its start value? */
static int persistent_started(const probe_module *m) {
  for (uint32_t k = 0; k < m->n_regions; k++) {
    const probe_region *r = &m->regions[k];
    const uint8_t *d = m->region_base(r->id);
    if (!r->persistent || !d) continue;
    for (uint32_t b = 0; b < r->size; b++)
      if (d[b] && !start_byte_ok(m, d + b)) return 0;
  }
  /* a variable that starts at a value of its own holds it */
  for (uint32_t u = 0; u < m->n_tensors; u++) {
    const probe_tensor *x = &m->tensors[u];
    const uint8_t *d = m->tensor_data(u);
    if (x->kind != PROBE_PERSISTENT || (uint32_t)x->root != u || !d) continue;
    for (uint32_t b = 0; b < x->size; b++)
      if (d[b] != start_value(x, b)) return 0;
  }
  return 1;
}

void probe_hydrate(const probe_module *m, int ready) {
  if (S.failed || m != S.m) return;
  if (!S.in_init) fail("hydrate_constants called outside model_init");
  else if (S.init_ops) fail("hydrate_constants called after the operator init loop began");
  else if (!ready || !persistent_started(m)) fail("hydrate_constants called before context_init");
  S.hydrates++;
}

/* ---- the proof of one module -------------------------------------------- */

static int expect(int32_t got, int32_t want, const char *what) {
  if (got != want) return fail("%s returned %d, expected %d", what, (int)got, (int)want);
  return 0;
}

static uint32_t first_kernel_op(const probe_module *m) {
  for (uint32_t i = 0; i < m->n_ops; i++)
    if (!m->ops[i].is_view) return i;
  return m->n_ops;
}

static int api_refusals(const probe_module *m) {
  if (expect(m->init_mismatch(), m->st.mismatch, "model_init with another plan's hash") ||
      expect(m->run_uninitialised(), m->st.not_init, "model_run before model_init"))
    return 1;
  if (!m->bound) return 0;
  if (expect(m->init_plain(), m->st.unbound, "model_init with unbound regions")) return 1;
  uint32_t g;
  const probe_region *r0 = &m->regions[0];
  uint8_t *buf = m->guarded(r0->id, &g) + g;
  if (expect(m->bind(r0->id, buf, r0->size - 1u), m->st.too_small, "bind_arena too small") ||
      expect(m->bind(m->n_regions, buf, r0->size), m->st.bad_region, "bind_arena bad region") ||
      (r0->align > 1u &&
       expect(m->bind(r0->id, buf + 1, r0->size), m->st.misaligned, "bind_arena misaligned")))
    return 1;
  if (m->bind_pair(r0->id, buf, r0->size, m->n_regions, buf, r0->size) == m->st.ok)
    return fail("bind_arenas accepted a batch with a bad region");
  if (m->region_base(r0->id) != NULL)
    return fail("bind_arenas applied part of a batch it refused");
  return 0;
}

static int bind_all(const probe_module *m) {
  for (uint32_t k = 0; k < m->n_regions; k += 2) {
    const probe_region *a = &m->regions[k];
    const probe_region *b = k + 1 < m->n_regions ? &m->regions[k + 1] : a;
    uint32_t ga, gb;
    uint8_t *ba = m->guarded(a->id, &ga), *bb = m->guarded(b->id, &gb);
    if (a->writable) {
      memset(ba, PROBE_GUARD_BYTE, ga);
      memset(ba + ga, 0xEE, a->size); /* garbage: context_init zeroes persistent */
      memset(ba + ga + a->size, PROBE_GUARD_BYTE, ga);
    }
    if (b->writable && b != a) {
      memset(bb, PROBE_GUARD_BYTE, gb);
      memset(bb + gb, 0xEE, b->size);
      memset(bb + gb + b->size, PROBE_GUARD_BYTE, gb);
    }
    /* an odd region out binds alone: bind_arenas refuses a region twice */
    int32_t st = b == a ? m->bind(a->id, ba + ga, a->size)
                        : m->bind_pair(a->id, ba + ga, a->size, b->id, bb + gb, b->size);
    if (expect(st, m->st.ok, b == a ? "bind_arena" : "bind_arenas")) return 1;
  }
  return 0;
}

static int check_guards(const probe_module *m) {
  for (uint32_t k = 0; k < m->n_regions; k++) {
    const probe_region *r = &m->regions[k];
    uint32_t g;
    const uint8_t *b = m->guarded(r->id, &g);
    for (uint32_t i = 0; i < g; i++) {
      if (b[i] != PROBE_GUARD_BYTE)
        return fail("guard byte %u before region %u (%s) changed", (unsigned)(g - i),
                    (unsigned)r->id, r->symbol);
      if (b[g + r->size + i] != PROBE_GUARD_BYTE)
        return fail("guard byte %u after region %u (%s) changed", (unsigned)i, (unsigned)r->id,
                    r->symbol);
    }
  }
  return 0;
}

/* Is p inside a writable region of m (which may change legitimately)? */
static int own_writable(const probe_module *m, const uint8_t *p) {
  for (uint32_t k = 0; k < m->n_regions; k++) {
    const uint8_t *d = m->region_base(m->regions[k].id);
    if (m->regions[k].writable && d && p >= d && p < d + m->regions[k].size) return 1;
  }
  return 0;
}

static void neighbours(const probe_module *m, uint8_t (*before)[NEIGHBOUR],
                       uint8_t (*after)[NEIGHBOUR]) {
  for (uint32_t k = 0; k < m->n_regions && k < MAX_REGIONS; k++) {
    const uint8_t *d = m->region_base(m->regions[k].id);
    for (uint32_t i = 0; i < NEIGHBOUR; i++) {
      const uint8_t *p = d - NEIGHBOUR + i, *q = d + m->regions[k].size + i;
      before[k][i] = own_writable(m, p) ? 0 : *p;
      after[k][i] = own_writable(m, q) ? 0 : *q;
    }
  }
}

static int check_neighbours(const probe_module *m) {
  uint8_t b2[MAX_REGIONS][NEIGHBOUR], a2[MAX_REGIONS][NEIGHBOUR];
  neighbours(m, b2, a2);
  for (uint32_t k = 0; k < m->n_regions && k < MAX_REGIONS; k++)
    for (uint32_t i = 0; i < NEIGHBOUR; i++) {
      if (b2[k][i] != S.before[k][i])
        return fail("the byte %u before region %u (%s) changed", (unsigned)(NEIGHBOUR - i),
                    (unsigned)m->regions[k].id, m->regions[k].symbol);
      if (a2[k][i] != S.after[k][i])
        return fail("the byte %u after region %u (%s) changed", (unsigned)i,
                    (unsigned)m->regions[k].id, m->regions[k].symbol);
    }
  return 0;
}

static int model_init_round(const probe_module *m, uint32_t salt) {
  S.salt = salt;
  S.in_init = 1;
  S.init_ops = 0;
  S.hydrates = 0;
  memset(m->state, 0, m->n_tensors);
  int32_t st = m->init();
  S.in_init = 0;
  if (S.failed) return 1;
  if (expect(st, m->st.ok, "model_init")) return 1;
  if (m->strong_hydrate && S.hydrates != 1)
    return fail("the application's hydrate_constants ran %u times in model_init, not once",
                (unsigned)S.hydrates);
  uint32_t want = 0;
  for (uint32_t i = 0; i < m->n_ops; i++) want += !m->ops[i].is_view;
  if (S.init_ops != want)
    return fail("model_init ran %u operator inits, expected %u", (unsigned)S.init_ops,
                (unsigned)want);
  for (uint32_t t = 0; t < m->n_tensors; t++)
    if (m->tensors[t].kind == PROBE_CONST && check_tensor(m, AFTER_INIT, (int32_t)t, "hydrated"))
      return 1;
  return 0;
}

static int run_round(const probe_module *m, uint32_t salt) {
  S.salt = salt;
  S.next_event = 0;
  for (uint32_t i = 0; i < m->n_inputs; i++) {
    size_t size;
    uint8_t *d = m->io(0, i, &size);
    int32_t t = m->inputs[i];
    if (m->tensors[t].kind == PROBE_NONE) continue;
    if (d != m->tensor_data((uint32_t)t) || size != m->tensors[t].size)
      return fail("ctx->inputs[%u] is not tensor %d's planned slot", (unsigned)i, (int)t);
    for (uint32_t b = 0; b < size; b++) d[b] = pattern((uint32_t)t, b, salt);
  }
  int32_t st = m->run();
  if (S.failed) return 1;
  if (expect(st, m->st.ok, "model_run")) return 1;
  if (S.next_event != 2u * m->n_ops)
    return fail("the callback saw %u events for %u operators", (unsigned)S.next_event,
                (unsigned)m->n_ops);
  for (uint32_t i = 0; i < m->n_outputs; i++) {
    size_t size;
    uint8_t *d = m->io(1, i, &size);
    int32_t t = m->outputs[i];
    if (m->tensors[t].kind == PROBE_NONE) continue;
    if (d != m->tensor_data((uint32_t)t) || size != m->tensors[t].size)
      return fail("ctx->outputs[%u] is not tensor %d's planned slot", (unsigned)i, (int)t);
    if (check_tensor(m, AFTER_RUN, t, "graph output")) return 1;
  }
  return 0;
}

static int prove(const probe_module *m) {
  if (m->n_regions > MAX_REGIONS) return fail("%u regions (at most %u)", (unsigned)m->n_regions,
                                              MAX_REGIONS);
  if (api_refusals(m)) return 1;
  if (m->bound && bind_all(m)) return 1;
  for (uint32_t k = 0; k < m->n_regions; k++) {
    const uint8_t *d = m->region_base(m->regions[k].id);
    if (!d) return fail("region %u (%s) has no buffer", (unsigned)m->regions[k].id,
                        m->regions[k].symbol);
    if ((uintptr_t)d % m->regions[k].align)
      return fail("region %u (%s) at %p is not aligned to %u", (unsigned)m->regions[k].id,
                  m->regions[k].symbol, (const void *)d, (unsigned)m->regions[k].align);
  }
  if (m->guard_neighbours) neighbours(m, S.before, S.after);
  if (model_init_round(m, 1) || run_round(m, 1)) return 1;
  if (run_round(m, 2)) return 1; /* variables keep round 1's state */
  for (uint32_t k = 0; k < m->n_regions; k++)
    if (m->regions[k].persistent) memset(m->region_base(m->regions[k].id), 0xEE, m->regions[k].size);
  if (model_init_round(m, 3) || run_round(m, 3)) return 1;
  /* without a hook nothing runs the operators: no kernel is linked */
  S.in_init = 1;
  S.init_ops = 0;
  S.hydrates = 0;
  int32_t st = m->init_plain();
  S.in_init = 0;
  if (S.failed || expect(st, m->st.ok, "model_init without a kernel hook")) return 1;
  uint32_t k = first_kernel_op(m);
  st = m->run_plain();
  if (expect(st, k < m->n_ops ? m->st.unsupported : m->st.ok, "model_run without kernels"))
    return 1;
  if (k < m->n_ops && m->plain_failed_op() != (int32_t)k)
    return fail("model_run without kernels failed at op %d, expected op %u",
                (int)m->plain_failed_op(), (unsigned)k);
  if (m->bound && check_guards(m)) return 1;
  if (m->guard_neighbours && check_neighbours(m)) return 1;
  return 0;
}

int probe_module_run(const probe_module *m) {
  memset(&S, 0, sizeof S);
  S.m = m;
  char line[560];
  if (prove(m)) {
    snprintf(line, sizeof line, "FAIL %s (%s): %s", m->name, m->what, S.msg);
    probe_print(line);
    return 1;
  }
  snprintf(line, sizeof line, "PASS %s (%s): %u ops, %u tensors, %u regions", m->name, m->what,
           (unsigned)m->n_ops, (unsigned)m->n_tensors, (unsigned)m->n_regions);
  probe_print(line);
  return 0;
}
