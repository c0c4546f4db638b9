/*
 * rewrite.c — graph rewrites that remove copies (memory.in_place).
 *
 * PAD folding.  A PAD in front of a convolution writes a padded copy of its
 * input; the convolution then reads the copy, so the input and the copy are
 * live at once (in a PyTorch-converted MobileNetV2, a 112x112x96 tensor and
 * its 114x114x96 copy: the model's peak).  memplan's convolution kernels
 * skip every tap outside their input (mpk_conv.c), which adds exactly what
 * a tap on the pad value would add when that value is the input zero point
 * (int8: filter * (zp - zp) = 0), 0 (int16) or +0.0 (float32: 0 * a finite
 * filter is a zero, and adding a zero to a sum that started at +0.0 changes
 * nothing).  The kernels take the padding as the top / left amount and let
 * the bottom / right follow from the sizes, so any asymmetric padding is
 * theirs to take: the convolution reads the PAD's input with
 *
 *   pad_top  = the PAD's top rows     + the convolution's own top padding,
 *   pad_left = the PAD's left columns + its own left padding
 *
 * (its own computed on the padded shape, as the model wrote it), the input
 * height and width being the unpadded ones.  Output pixel (oy, ox) then
 * reads input row oy * stride - pad_top + fy * dilation, the same element
 * the padded copy held at row oy * stride - (its own top padding) + fy *
 * dilation: every tap reads the same value or adds the same zero.
 *
 * A MAX_POOL_2D takes a PAD the same way (a PyTorch max pool with padding
 * converts to a PAD or PADV2 and a VALID pool): memplan's pooling kernels
 * clip the window to the input and start the maximum from the type's
 * lowest value (mpk_pool.c), so a pad value that never raises a maximum
 * changes nothing: -128 (int8, a PAD of a tensor whose zero point is -128,
 * as after a ReLU, or a PADV2 of -128), -32768 (int16), -inf or -FLT_MAX
 * (float32, a PADV2: a tap is taken only when greater).  An AVERAGE_POOL_2D
 * takes none: it divides by the taps inside the input, the padded copy by
 * the whole window.
 *
 * The PAD becomes a no-op (is_view) that touches no tensor, so its output
 * needs no storage and its paddings constant no bytes; the convolution's
 * input 0 becomes the PAD's input, whose lifetime now reaches the
 * convolution or pool.  The lowering (src/lower/common.c) turns fold_pad
 * into the kernel's geometry.
 */
#include "graph/rewrite.h"
#include "read/opcodes.h"

#include "util/util.h"

#include <float.h>
#include <math.h>
#include <string.h>


/* Largest padding folded: far beyond any real model, and keeps every
 * geometry sum in int32. */
#define MAX_FOLD 65536

typedef struct fctx {
  const mp_graph *g;
  const mp_subgraph_def *sg;
} fctx;

static const mp_tensor_def *tdef(const fctx *c, int32_t t) { return &c->sg->tensors[t]; }

/* The constant bytes of tensor t and their count, or NULL. */
static const uint8_t *const_bytes(const fctx *c, int32_t t, uint64_t *n) {
  if (t < 0 || c->g->tensors[t].role != MP_ROLE_CONSTANT) return NULL;
  const mp_model *m = c->g->model;
  uint32_t b = tdef(c, t)->buffer;
  if (b >= m->n_buffers || !m->buffers[b].data) return NULL;
  *n = m->buffers[b].size;
  return m->buffers[b].data;
}

static uint64_t elems(const mp_tensor_def *d) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < d->rank; i++) {
    if (d->shape[i] < 0) return 0;
    n *= (uint64_t)d->shape[i];
    if (n > UINT64_C(1) << 40) return 0;
  }
  return n;
}

/* The single per-tensor (scale, zero point) of d, false when it has none. */
static bool per_tensor(const mp_tensor_def *d, float *scale, int64_t *zp) {
  if (!d->has_quant || d->quant.n_scale != 1 || d->quant.n_zero_point > 1) return false;
  *scale = d->quant.scale[0];
  *zp = d->quant.n_zero_point ? d->quant.zero_point[0] : 0;
  return true;
}

/* The eight paddings of a rank-4 PAD, as TFLite stores them: [dim][before,
 * after], int32 or int64.  False unless constant, non-negative, zero on the
 * batch and channel axes and at most MAX_FOLD. */
static bool paddings(const fctx *c, int32_t t, int32_t pad[4]) {
  uint64_t n = 0;
  const uint8_t *p = const_bytes(c, t, &n);
  if (!p) return false;
  const mp_tensor_def *d = tdef(c, t);
  uint32_t w = d->dtype == MP_DTYPE_INT32 ? 4 : d->dtype == MP_DTYPE_INT64 ? 8 : 0;
  if (!w || elems(d) != 8 || n < 8u * w) return false;
  int64_t v[8];
  for (int i = 0; i < 8; i++) {
    uint64_t x = 0;
    for (uint32_t k = 0; k < w; k++) x |= (uint64_t)p[i * w + k] << (8 * k);
    v[i] = w == 4 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
    if (v[i] < 0 || v[i] > MAX_FOLD) return false;
  }
  if (v[0] || v[1] || v[6] || v[7]) return false;
  pad[0] = (int32_t)v[2]; /* top */
  pad[1] = (int32_t)v[3]; /* bottom */
  pad[2] = (int32_t)v[4]; /* left */
  pad[3] = (int32_t)v[5]; /* right */
  return true;
}

/* Is the PAD's pad value the one its reader's kernels take for a tap
 * outside their input: what a convolution adds (for_max false), or a value
 * that never raises a maximum (for_max)? */
static bool neutral_value(const fctx *c, const mp_op *op, int32_t in, int32_t out, bool for_max) {
  const mp_tensor_def *di = tdef(c, in), *dout = tdef(c, out);
  int32_t cv = op->builtin_code == OP_PADV2 && op->n_inputs > 2 ? op->inputs[2] : -1;
  uint64_t n = 0;
  const uint8_t *v = cv >= 0 ? const_bytes(c, cv, &n) : NULL;
  if (cv >= 0 && (!v || tdef(c, cv)->dtype != di->dtype)) return false;
  switch (di->dtype) {
  case MP_DTYPE_INT8: {
    float si, so;
    int64_t zi, zo;
    if (!per_tensor(di, &si, &zi) || !per_tensor(dout, &so, &zo)) return false;
    if (memcmp(&si, &so, sizeof si) != 0 || zi != zo || zi < -128 || zi > 127) return false;
    /* PAD pads a quantised tensor with the output's zero point */
    if (v && n < 1) return false;
    int64_t pv = v ? (int8_t)v[0] : zi;
    return for_max ? pv == -128 : pv == zi;
  }
  case MP_DTYPE_INT16: {
    float si, so;
    int64_t zi, zo;
    if (!per_tensor(di, &si, &zi) || !per_tensor(dout, &so, &zo)) return false;
    if (memcmp(&si, &so, sizeof si) != 0 || zi != 0 || zo != 0) return false;
    if (v && n < 2) return false;
    int64_t pv = v ? (int16_t)(uint16_t)(v[0] | (uint16_t)v[1] << 8) : 0;
    return for_max ? pv == -32768 : pv == 0;
  }
  case MP_DTYPE_FLOAT32:
    /* quantisation parameters of a float tensor (converters often write
     * empty ones) mean nothing to its kernels; +0.0 only: bytes all zero */
    if (!for_max) return v ? n >= 4 && !v[0] && !v[1] && !v[2] && !v[3] : true;
    /* a maximum starts from -FLT_MAX and takes a tap only when it is
     * greater: -inf or -FLT_MAX never is (PAD's own value, +0.0, can be) */
    if (!v || n < 4) return false;
    float pf;
    memcpy(&pf, v, sizeof pf);
    return pf <= -FLT_MAX;
  default: return false;
  }
}

/* A float filter whose every value is finite (0 * filter is then a zero). */
static bool finite_filter(const fctx *c, int32_t f) {
  uint64_t n = 0;
  const uint8_t *p = const_bytes(c, f, &n);
  if (!p || tdef(c, f)->dtype != MP_DTYPE_FLOAT32) return false;
  for (uint64_t i = 0; i + 4 <= n; i += 4) {
    float x;
    memcpy(&x, p + i, sizeof x);
    if (!isfinite(x)) return false;
  }
  return true;
}

/* The one op reading tensor t (as any input or intermediate), and at which
 * input; -1 when none or several, or when an op other than `writer` writes
 * t too. */
static int32_t sole_reader(const mp_graph *g, int32_t t, uint32_t writer, uint32_t *at) {
  int32_t who = -1;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    for (uint32_t k = 0; k < op->n_outputs; k++)
      if (op->outputs[k] == t && o != writer) return -1;
    for (uint32_t k = 0; k < op->n_inputs; k++)
      if (op->inputs[k] == t) {
        if (who >= 0) return -1;
        who = (int32_t)o;
        *at = k;
      }
    for (uint32_t k = 0; k < op->n_intermediates; k++)
      if (op->intermediates[k] == t) return -1;
  }
  return who;
}

static bool is_graph_io(const mp_graph *g, int32_t t) {
  for (uint32_t i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] == t) return true;
  for (uint32_t i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t) return true;
  return false;
}

/* The convolution PAD op p can fold into, with its paddings; -1 if none. */
static int32_t fold_target(const fctx *c, uint32_t p, int32_t pad[4]) {
  const mp_graph *g = c->g;
  const mp_op *op = &g->ops[p];
  if ((op->builtin_code != OP_PAD && op->builtin_code != OP_PADV2) || op->n_inputs < 2 ||
      op->n_outputs != 1 || op->folded_into >= 0)
    return -1;
  int32_t in = op->inputs[0], out = op->outputs[0];
  if (in < 0 || out < 0 || in == out || op->inputs[1] < 0) return -1;
  if (g->tensors[in].role != MP_ROLE_SCRATCH || g->tensors[out].role != MP_ROLE_SCRATCH ||
      is_graph_io(g, out))
    return -1;
  const mp_tensor_def *di = tdef(c, in), *dout = tdef(c, out);
  if (di->rank != 4 || dout->rank != 4 || di->dtype != dout->dtype || di->is_sparse) return -1;
  if (!paddings(c, op->inputs[1], pad)) return -1;
  for (int d = 0; d < 4; d++)
    if (di->shape[d] <= 0) return -1;
  if (dout->shape[0] != di->shape[0] || dout->shape[3] != di->shape[3] ||
      (int64_t)dout->shape[1] != (int64_t)di->shape[1] + pad[0] + pad[1] ||
      (int64_t)dout->shape[2] != (int64_t)di->shape[2] + pad[2] + pad[3])
    return -1;
  uint32_t at = 0;
  int32_t k = sole_reader(g, out, p, &at);
  if (k <= (int32_t)p || at != 0) return -1;
  const mp_op *cv = &g->ops[k];
  if (cv->is_view || cv->folded_pad >= 0 || cv->n_outputs < 1) return -1;
  if (cv->builtin_code == OP_MAX_POOL_2D) {
    int32_t o = cv->outputs[0];
    if (cv->n_inputs < 1 || o < 0 || tdef(c, o)->dtype != di->dtype) return -1;
    return neutral_value(c, op, in, out, true) ? k : -1;
  }
  if ((cv->builtin_code != OP_CONV_2D && cv->builtin_code != OP_DEPTHWISE_CONV_2D) ||
      cv->n_inputs < 2)
    return -1;
  int32_t f = cv->inputs[1], o = cv->outputs[0];
  if (f < 0 || o < 0 || tdef(c, o)->dtype != di->dtype) return -1;
  if (!neutral_value(c, op, in, out, false)) return -1;
  if (di->dtype == MP_DTYPE_FLOAT32 && !finite_filter(c, f)) return -1;
  return k;
}

mp_status mp_graph_fold_pads(mp_graph *g) {
  fctx c = {g, &g->model->subgraphs[g->subgraph]};
  g->n_folded_pads = 0;
  for (uint32_t p = 0; p < g->n_ops; p++) {
    int32_t pad[4];
    int32_t k = fold_target(&c, p, pad);
    if (k < 0) continue;
    mp_op *cv = &g->ops[k], *op = &g->ops[p];
    int32_t *ins = mp_pool_alloc(g->pool, cv->n_inputs, sizeof *ins);
    if (!ins) return MP_ERR_NOMEM;
    memcpy(ins, cv->inputs, cv->n_inputs * sizeof *ins);
    ins[0] = op->inputs[0];
    cv->inputs = ins;
    cv->folded_pad = (int32_t)p;
    memcpy(cv->fold_pad, pad, sizeof cv->fold_pad);
    op->folded_into = k;
    op->is_view = true;
    g->n_folded_pads++;
  }
  return MP_OK;
}

uint64_t mp_folded_pad_bytes(const mp_graph *g) {
  uint64_t n = 0;
  for (uint32_t o = 0; o < g->n_ops; o++)
    if (g->ops[o].folded_into >= 0) n += g->tensors[g->ops[o].outputs[0]].size;
  return n;
}

const char *mp_folded_pad_readers(const mp_graph *g) {
  uint32_t conv = 0, pool = 0;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    int32_t k = g->ops[o].folded_into;
    if (k < 0) continue;
    if (g->ops[k].builtin_code == OP_MAX_POOL_2D)
      pool++;
    else
      conv++;
  }
  if (conv && pool) return "their convolutions and max pools";
  if (pool) return pool == 1 ? "its max pool" : "their max pools";
  return conv == 1 ? "its convolution" : "their convolutions";
}
