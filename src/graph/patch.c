/*
 * patch.c — patch-based inference (memory.patch): the first, high-resolution
 * operators of a network run tile by tile, so their feature maps never
 * exist whole.
 *
 * The one idea: a tile of the stage's output needs a window of each
 * feature map before it, found walking the stage backwards (a window
 * layer's receptive field, clipped to the image; an ADD reads what it
 * writes).  Each tile computes every layer's window into a small buffer,
 * and a reference kernel computes a window exactly when its geometry is
 * made relative to the buffer: in_h / in_w are the buffer's, the padding
 * shifts by the buffer's origin (and may go negative), so a tap outside
 * the buffer is one outside the true image, which the kernel skips as
 * padding.  Edge tiles therefore give exactly the unpatched values, and
 * the last layer writes its tile straight into the stage output at the
 * output's strides.
 *
 * The graph rewrite makes the stage's first layer run it all: its output
 * is the stage's output, the other layers are no-ops folded into it, the
 * intermediate maps need no storage, and one op-local scratch holds the
 * tile buffers (laid out by first fit over the layers that use each).
 *
 * The stage declares an overlap contract of its own (mp_patch_output_gap):
 * tiles run in row-major order, so its output may start below its input by
 * as few bytes as keep every byte the finished tiles wrote under every
 * input byte a later tile reads; in-place planning then lays the output
 * over input rows no later tile reads.
 *
 * Per tile, a layer calls its target's specialised kernel where that
 * kernel takes any window (lower_run: the int8 convolutions, depthwise
 * convolutions, pools and ADD of a Cortex-M target; the 1x1 convolution
 * only when no tile's window has padding), else its reference kernel; an
 * im2col column pair lives after the tile buffers.
 *
 * Not done here: choosing a stage (the CLI's memory.patch auto) and
 * redistributing the receptive field; tiles recompute their halos.
 */
#include "graph/patch.h"
#include "graph/rewrite.h"
#include "graph/storage.h"

#include "read/opcodes.h"
#include "util/diag.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static mp_loc noloc(void) { return MP_LOC_NONE; }

static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static bool empty(mp_patch_rect r) { return r.y1 <= r.y0 || r.x1 <= r.x0; }
static int64_t area(mp_patch_rect r) {
  return empty(r) ? 0 : (int64_t)(r.y1 - r.y0) * (r.x1 - r.x0);
}

static mp_patch_rect unite(mp_patch_rect a, mp_patch_rect b) {
  if (empty(a)) return b;
  if (empty(b)) return a;
  return (mp_patch_rect){imin(a.y0, b.y0), imax(a.y1, b.y1), imin(a.x0, b.x0), imax(a.x1, b.x1)};
}

/* The window kernels a stage runs, and the ADDs. */
static bool window_kernel(mp_kernel k) {
  switch (k) {
  case MP_K_CONV2D_S8:
  case MP_K_CONV2D_F32:
  case MP_K_CONV2D_S16:
  case MP_K_CONV2D_S16_ACC32:
  case MP_K_DEPTHWISE_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_F32:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_AVG_POOL2D_S8:
  case MP_K_AVG_POOL2D_F32:
  case MP_K_AVG_POOL2D_S16:
  case MP_K_MAX_POOL2D_S8:
  case MP_K_MAX_POOL2D_F32:
  case MP_K_MAX_POOL2D_S16: return true;
  default: return false;
  }
}

static bool is_conv(mp_kernel k) {
  return k == MP_K_CONV2D_S8 || k == MP_K_CONV2D_F32 || k == MP_K_CONV2D_S16 ||
         k == MP_K_CONV2D_S16_ACC32;
}

/* A copy of g's graph in which every operator of g's stages is as the
 * model wrote it, lowered for `target`. */
typedef struct restored {
  mp_graph g;
  mp_op *ops;
} restored;

static mp_status restore_for(const mp_graph *g, mp_target target, restored *r) {
  r->g = *g;
  r->g.target = target;
  r->ops = malloc((g->n_ops ? g->n_ops : 1) * sizeof *r->ops);
  if (!r->ops) return MP_ERR_NOMEM;
  memcpy(r->ops, g->ops, g->n_ops * sizeof *r->ops);
  for (const mp_patch *p = g->patch; p; p = p->next) {
    mp_op *h = &r->ops[p->head];
    h->outputs = p->head_outputs;
    h->n_outputs = p->head_n_outputs;
    for (uint32_t l = 0; l < p->n_layers; l++) {
      mp_op *o = &r->ops[p->layers[l].op];
      o->folded_into = -1;
      o->is_view = false;
      o->patch_head = false;
    }
  }
  for (uint32_t o = 0; o < g->n_ops; o++) r->ops[o].channel_serial = false;
  r->g.n_serial_ops = 0;
  r->g.ops = r->ops;
  r->g.patch = NULL;
  return MP_OK;
}

static mp_status restore(const mp_graph *g, restored *r) {
  return restore_for(g, MP_TARGET_GENERIC, r);
}

const mp_patch *mp_patch_at(const mp_graph *g, uint32_t op) {
  for (const mp_patch *p = g ? g->patch : NULL; p; p = p->next)
    if (op >= p->first && op <= p->last) return p;
  return NULL;
}

static bool has_stage(const mp_graph *g, const mp_patch *p) {
  for (const mp_patch *q = g->patch; q; q = q->next)
    if (q == p) return true;
  return false;
}

mp_status mp_patch_lower_layer(const mp_graph *g, const mp_patch *p, uint32_t l,
                               mp_lowered_op *lo) {
  memset(lo, 0, sizeof *lo);
  if (!p || !has_stage(g, p) || l >= p->n_layers) return MP_ERR_INTERNAL;
  restored r;
  mp_status st = restore(g, &r);
  if (st != MP_OK) return st;
  st = mp_lower_op(&r.g, p->layers[l].op, lo, NULL);
  free(r.ops);
  if (st == MP_OK && lo->kernel != p->layers[l].kernel) st = MP_ERR_INTERNAL;
  return st;
}

/* The specialised kernels a stage may call per tile: they take any window
 * (taps outside the buffer read the input zero point, outputs at the
 * geometry's strides), the 1x1 convolution only a window without padding
 * whose every output pixel's tap lies inside it. */
static bool window_safe(mp_kernel k) {
  switch (k) {
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST:
  case MP_K_AVG_POOL2D_S8_FAST:
  case MP_K_MAX_POOL2D_S8_FAST:
  case MP_K_ADD_S8_FAST: return true;
  default: return false;
  }
}

/* Layer l lowered for g's target, as the module calls it per tile: the
 * target's specialised kernel where it takes every tile's window (a 1x1
 * convolution with a padded or short window runs the im2col kernel), else
 * the reference kernel.  *chosen: the kernel, for mp_graph_patch. */
/* Operator op of g as the model wrote it (g's stages restored), lowered
 * for `target`. */
static mp_status lower_as(const mp_graph *g, uint32_t op, mp_target target, mp_lowered_op *lo) {
  restored r;
  mp_status st = restore_for(g, target, &r);
  if (st != MP_OK) return st;
  st = mp_lower_op(&r.g, op, lo, NULL);
  free(r.ops);
  return st;
}

static mp_status lower_run(const mp_graph *g, const mp_patch_layer *ly, bool direct,
                           mp_lowered_op *lo) {
  memset(lo, 0, sizeof *lo);
  mp_status st = MP_OK;
  if (g->target != MP_TARGET_GENERIC) st = lower_as(g, ly->op, g->target, lo);
  if (st == MP_OK && lo->supported && lo->kernel == MP_K_CONV2D_S8_1X1 && !direct) {
    /* the same folded bias, column length and params type: two columns
     * of scratch, and the im2col kernel's name for the module to call */
    mp_lower_use_kernel(lo, MP_K_CONV2D_S8_IM2COL);
    lo->fn = mp_kernel_fn(MP_K_CONV2D_S8_IM2COL);
    lo->scratch_bytes = 2u * (uint64_t)lo->params.conv_s8_fast.col_len;
    lo->scratch_align = 4;
  }
  if (g->target != MP_TARGET_GENERIC && st == MP_OK && lo->supported && !lo->noop &&
      window_safe(lo->kernel) && lo->persistent_bytes == 0)
    return MP_OK;
  mp_lower_free(lo);
  if (st == MP_ERR_NOMEM) return st;
  st = lower_as(g, ly->op, MP_TARGET_GENERIC, lo);
  if (st == MP_OK && lo->kernel != ly->kernel) st = MP_ERR_INTERNAL;
  return st;
}

mp_status mp_patch_lower_run(const mp_graph *g, const mp_patch *p, uint32_t l,
                             mp_lowered_op *lo) {
  memset(lo, 0, sizeof *lo);
  if (!p || !has_stage(g, p) || l >= p->n_layers) return MP_ERR_INTERNAL;
  mp_status st = lower_run(g, &p->layers[l], p->layers[l].direct, lo);
  if (st == MP_OK && lo->kernel != p->layers[l].run_kernel) st = MP_ERR_INTERNAL;
  return st;
}

bool mp_patch_call_direct(const mp_patch_call *c) {
  const mpk_conv_geom *G = &c->geom;
  return c->skip || (G->pad_h == 0 && G->pad_w == 0 &&
                     (int64_t)(G->out_h - 1) * G->stride_h < G->in_h &&
                     (int64_t)(G->out_w - 1) * G->stride_w < G->in_w);
}

mp_patch_rect mp_patch_reads(const mp_patch *p, uint32_t l, uint32_t i, mp_patch_rect out) {
  const mp_patch_layer *ly = &p->layers[l];
  const mp_patch_tensor *in = &p->tensors[ly->in[i]];
  if (empty(out)) return (mp_patch_rect){0, 0, 0, 0};
  if (!ly->window) return out;
  const mpk_conv_geom *g = &ly->geom;
  int32_t dh = g->dilation_h > 0 ? g->dilation_h : 1, dw = g->dilation_w > 0 ? g->dilation_w : 1;
  mp_patch_rect r;
  r.y0 = imax(0, out.y0 * g->stride_h - g->pad_h);
  r.y1 = imin(in->h, (out.y1 - 1) * g->stride_h - g->pad_h + (g->filter_h - 1) * dh + 1);
  r.x0 = imax(0, out.x0 * g->stride_w - g->pad_w);
  r.x1 = imin(in->w, (out.x1 - 1) * g->stride_w - g->pad_w + (g->filter_w - 1) * dw + 1);
  if (empty(r)) return (mp_patch_rect){0, 0, 0, 0};
  return r;
}

mp_patch_rect mp_patch_buffer_rect(const mp_patch *p, uint32_t t, uint32_t k) {
  if (k == 0 || k == p->n_tensors - 1) {
    const mp_patch_tensor *x = &p->tensors[k];
    return (mp_patch_rect){0, x->h, 0, x->w};
  }
  return p->need[(size_t)t * p->n_tensors + k];
}

void mp_patch_tile_call(const mp_patch *p, uint32_t t, uint32_t l, mp_patch_call *c) {
  memset(c, 0, sizeof *c);
  const mp_patch_layer *ly = &p->layers[l];
  uint32_t ko = l + 1;
  const mp_patch_tensor *to = &p->tensors[ko];
  mp_patch_rect out = p->need[(size_t)t * p->n_tensors + ko];
  if (empty(out)) {
    c->skip = true;
    return;
  }
  mp_patch_rect ob = mp_patch_buffer_rect(p, t, ko);
  int32_t obw = ob.x1 - ob.x0;
  if (ly->window) {
    mp_patch_rect ib = mp_patch_buffer_rect(p, t, ly->in[0]);
    c->geom = ly->geom;
    c->geom.batches = 1;
    c->geom.in_h = ib.y1 - ib.y0;
    c->geom.in_w = ib.x1 - ib.x0;
    c->geom.pad_h = ly->geom.pad_h + ib.y0 - out.y0 * ly->geom.stride_h;
    c->geom.pad_w = ly->geom.pad_w + ib.x0 - out.x0 * ly->geom.stride_w;
    c->geom.out_h = out.y1 - out.y0;
    c->geom.out_w = out.x1 - out.x0;
    if (ko == p->n_tensors - 1) {
      /* the stage output: the tile at the whole tensor's strides */
      c->geom.out_pixel_stride = to->c;
      c->geom.out_row_stride = to->w * to->c;
      c->geom.out_batch_stride = to->h * to->w * to->c;
    } else {
      c->geom.out_pixel_stride = c->geom.out_row_stride = c->geom.out_batch_stride = 0;
    }
    c->out_off = ((int64_t)(out.y0 - ob.y0) * obw + (out.x0 - ob.x0)) * to->c;
    return;
  }
  c->rows = out.y1 - out.y0;
  c->row_elems = (out.x1 - out.x0) * to->c;
  for (uint32_t i = 0; i < ly->n_in; i++) {
    mp_patch_rect ib = mp_patch_buffer_rect(p, t, ly->in[i]);
    int32_t ibw = ib.x1 - ib.x0;
    c->in_off[i] = ((int64_t)(out.y0 - ib.y0) * ibw + (out.x0 - ib.x0)) * to->c;
    c->in_row_stride[i] = (int64_t)ibw * to->c;
  }
  c->out_off = ((int64_t)(out.y0 - ob.y0) * obw + (out.x0 - ob.x0)) * to->c;
  c->out_row_stride = (int64_t)obw * to->c;
}

bool mp_patch_output_gap(const mp_patch *p, int64_t *gap) {
  *gap = 0;
  uint32_t n = p->n_tensors, L = p->n_layers;
  if (L == 0 || p->n_tiles < 2) return false;
  /* a last layer that reads the stage input itself reads it while it
   * writes: then the tile's own window counts among the rows still read */
  bool own = false;
  for (uint32_t i = 0; i < p->layers[L - 1].n_in; i++) own |= p->layers[L - 1].in[i] == 0;
  if (own) return false;
  const mp_patch_tensor *ti = &p->tensors[0], *to = &p->tensors[n - 1];
  int64_t ib = (int64_t)ti->c * ti->elem, ob = (int64_t)to->c * to->elem;
  int64_t *later = malloc((size_t)(p->n_tiles + 1) * sizeof *later);
  if (!later) return false;
  /* later[t]: the lowest input byte tiles t .. n_tiles - 1 read */
  later[p->n_tiles] = INT64_MAX;
  for (uint32_t t = p->n_tiles; t-- > 0;) {
    mp_patch_rect r = p->need[(size_t)t * n];
    int64_t b = empty(r) ? INT64_MAX : ((int64_t)r.y0 * ti->w + r.x0) * ib;
    later[t] = b < later[t + 1] ? b : later[t + 1];
  }
  /* every output byte tiles 0 .. t wrote lies below every input byte a
   * later tile reads: offset(in) - offset(out) >= written end - read start */
  int64_t wend = 0, g = INT64_MIN;
  for (uint32_t t = 0; t < p->n_tiles; t++) {
    mp_patch_rect r = p->need[(size_t)t * n + n - 1];
    if (!empty(r)) {
      int64_t e = ((int64_t)(r.y1 - 1) * to->w + r.x1) * ob;
      if (e > wend) wend = e;
    }
    if (later[t + 1] != INT64_MAX && wend - later[t + 1] > g) g = wend - later[t + 1];
  }
  free(later);
  if (g == INT64_MIN) return false;
  *gap = g;
  return true;
}

uint64_t mp_patch_extra_macs_bp(const mp_patch *p) {
  if (!p || p->model_macs == 0 || p->macs_patched <= p->macs) return 0;
  return (p->macs_patched - p->macs) * 10000u / p->model_macs;
}

/* Multiply-accumulates of a lowered operator over its whole output. */
static uint64_t op_macs(const mp_lowered_op *lo, uint64_t *per_px) {
  uint64_t px = 0, n = 0;
  const mpk_conv_geom *g = (const mpk_conv_geom *)(const void *)&lo->params;
  if (window_kernel(lo->kernel) || lo->kernel == MP_K_CONV2D_S8_1X1 ||
      lo->kernel == MP_K_CONV2D_S8_IM2COL || lo->kernel == MP_K_DEPTHWISE_CONV2D_S8_FAST ||
      lo->kernel == MP_K_AVG_POOL2D_S8_FAST || lo->kernel == MP_K_MAX_POOL2D_S8_FAST) {
    uint64_t taps = (uint64_t)g->filter_h * (uint64_t)g->filter_w;
    if (is_conv(lo->kernel) || lo->kernel == MP_K_CONV2D_S8_1X1 ||
        lo->kernel == MP_K_CONV2D_S8_IM2COL)
      taps *= (uint64_t)g->filter_c;
    px = (uint64_t)g->out_c * taps;
    n = px * (uint64_t)g->batches * (uint64_t)g->out_h * (uint64_t)g->out_w;
  } else if (lo->kernel == MP_K_FULLY_CONNECTED_S8 || lo->kernel == MP_K_FULLY_CONNECTED_F32 ||
             lo->kernel == MP_K_FULLY_CONNECTED_S8_FAST || lo->kernel == MP_K_FULLY_CONNECTED_S16) {
    n = (uint64_t)lo->params.fc_s8.batches * (uint64_t)lo->params.fc_s8.accum_depth *
        (uint64_t)lo->params.fc_s8.out_depth;
  } else if (lo->kernel == MP_K_ADD_S8 || lo->kernel == MP_K_ADD_F32 ||
             lo->kernel == MP_K_ADD_S8_FAST) {
    n = (uint64_t)lo->params.add_s8.b.size;
  }
  if (per_px) *per_px = px;
  return n;
}

static bool is_rank4_batch1(const mp_tensor *x) {
  return x->rank == 4 && x->shape[0] == 1 && x->shape[1] > 0 && x->shape[2] > 0 &&
         x->shape[3] > 0;
}

#define REFUSE(...)                                  \
  do {                                               \
    mp_error(dx, noloc(), "memory.patch: " __VA_ARGS__); \
    st = MP_ERR_CONFIG;                              \
    goto done;                                       \
  } while (0)

/* First fit of the intermediates' tile buffers over the layers that use
 * them, largest first. */
static void layout_buffers(mp_patch *p) {
  uint32_t n = p->n_tensors;
  uint32_t *order = malloc(n * sizeof *order);
  uint64_t top = 0;
  if (!order) return;
  uint32_t m = 0;
  for (uint32_t k = 1; k + 1 < n; k++) order[m++] = k;
  for (uint32_t i = 1; i < m; i++) /* by size, then index: deterministic */
    for (uint32_t j = i; j > 0; j--) {
      const mp_patch_tensor *a = &p->tensors[order[j - 1]], *b = &p->tensors[order[j]];
      if (a->bytes > b->bytes || (a->bytes == b->bytes && order[j - 1] < order[j])) break;
      uint32_t s = order[j];
      order[j] = order[j - 1];
      order[j - 1] = s;
    }
  for (uint32_t i = 0; i < m; i++) {
    mp_patch_tensor *x = &p->tensors[order[i]];
    int32_t s0 = (int32_t)order[i] - 1, e0 = imax(s0, x->last_read);
    uint64_t off = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (uint32_t j = 0; j < i; j++) {
        const mp_patch_tensor *y = &p->tensors[order[j]];
        int32_t s1 = (int32_t)order[j] - 1, e1 = imax(s1, y->last_read);
        if (s0 > e1 || s1 > e0) continue;
        if (off < y->offset + y->bytes && y->offset < off + x->bytes) {
          off = mp_align_up(y->offset + y->bytes, 16);
          moved = true;
        }
      }
    }
    x->offset = off;
    if (off + x->bytes > top) top = off + x->bytes;
  }
  p->scratch_bytes = mp_align_up(top, 16);
  free(order);
}

/* ---- the lowerings a search repeats ---------------------------------------
 *
 * mp_graph_patch lowers the model's operators as the model wrote them (its
 * stages restored) and the stage's layers as the tiles call them.  On the
 * copies of one build (mp_graph_clone) those lowerings are the same every
 * time: an operator's lowering reads its own fields, which restore() puts
 * back, and the shapes, types and views of its tensors, which no stage
 * changes.  So a search keeps them here, by operator, the first answer
 * reused. */
typedef struct memo_run {
  bool done;
  mp_status st;
  mp_kernel kernel;
  uint64_t scratch_bytes;
} memo_run;

struct mp_patch_memo {
  const mp_model *model;
  uint32_t subgraph, n_ops;
  mp_target target;
  bool have_macs;
  uint64_t model_macs;
  bool *lowered;
  mp_status *st;
  mp_lowered_op *lo;  /* as the model wrote it, for the generic target */
  memo_run *run[2];   /* lower_run's kernel and scratch, by `direct` */
};

mp_status mp_patch_memo_new(const mp_graph *g, mp_patch_memo **out) {
  *out = NULL;
  mp_patch_memo *m = calloc(1, sizeof *m);
  if (!m) return MP_ERR_NOMEM;
  size_t n = g->n_ops ? g->n_ops : 1;
  m->model = g->model;
  m->subgraph = g->subgraph;
  m->n_ops = g->n_ops;
  m->target = g->target;
  m->lowered = calloc(n, sizeof *m->lowered);
  m->st = calloc(n, sizeof *m->st);
  m->lo = calloc(n, sizeof *m->lo);
  m->run[0] = calloc(n, sizeof *m->run[0]);
  m->run[1] = calloc(n, sizeof *m->run[1]);
  if (!m->lowered || !m->st || !m->lo || !m->run[0] || !m->run[1]) {
    mp_patch_memo_free(&m);
    return MP_ERR_NOMEM;
  }
  *out = m;
  return MP_OK;
}

void mp_patch_memo_free(mp_patch_memo **m) {
  if (!m || !*m) return;
  if ((*m)->lo)
    for (uint32_t o = 0; o < (*m)->n_ops; o++) mp_lower_free(&(*m)->lo[o]);
  free((*m)->lowered);
  free((*m)->st);
  free((*m)->lo);
  free((*m)->run[0]);
  free((*m)->run[1]);
  free(*m);
  *m = NULL;
}

/* Is m a memo of g's build? */
static bool memo_of(const mp_patch_memo *m, const mp_graph *g) {
  return m && m->model == g->model && m->subgraph == g->subgraph && m->n_ops == g->n_ops &&
         m->target == g->target;
}

/* Operator o of the restored graph r lowered: into *tmp (the caller frees
 * it), or the memo's answer. */
static mp_status lower_restored(mp_patch_memo *m, const restored *r, uint32_t o,
                                mp_lowered_op *tmp, const mp_lowered_op **out) {
  if (!m) {
    *out = tmp;
    return mp_lower_op(&r->g, o, tmp, NULL);
  }
  *out = &m->lo[o];
  if (!m->lowered[o]) {
    mp_status st = mp_lower_op(&r->g, o, &m->lo[o], NULL);
    if (st == MP_ERR_NOMEM) {
      mp_lower_free(&m->lo[o]);
      return st;
    }
    m->st[o] = st;
    m->lowered[o] = true;
  }
  return m->st[o];
}

mp_status mp_graph_patch(mp_graph *g, uint32_t first, uint32_t last, uint32_t rows,
                         uint32_t cols, const mp_diag_sink *dx) {
  return mp_graph_patch_memo(g, first, last, rows, cols, dx, NULL);
}

mp_status mp_graph_patch_memo(mp_graph *g, uint32_t first, uint32_t last, uint32_t rows,
                              uint32_t cols, const mp_diag_sink *dx, mp_patch_memo *memo) {
  mp_status st = MP_OK;
  restored r = {0};
  mp_lowered_op lo;
  memset(&lo, 0, sizeof lo);
  if (!memo_of(memo, g)) memo = NULL;
  int32_t *stage_of = NULL; /* graph tensor -> stage tensor, -1 */
  mp_patch *prev = g->patch;
  while (prev && prev->next) prev = prev->next;
  if (first > last || last >= g->n_ops)
    REFUSE("the stage is operators %u .. %u, but the model runs operators 0 .. %u", first, last,
           g->n_ops ? g->n_ops - 1 : 0);
  if (prev && first <= prev->last)
    REFUSE("the stage %u .. %u starts at or before the end of the stage %u .. %u; stages follow "
           "each other", first, last, prev->first, prev->last);
  if ((st = restore(g, &r)) != MP_OK) goto done;
  mp_patch *p = mp_pool_alloc(g->pool, 1, sizeof *p);
  uint32_t span = last - first + 1;
  stage_of = malloc(g->n_tensors * sizeof *stage_of);
  if (!p || !stage_of) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  for (uint32_t t = 0; t < g->n_tensors; t++) stage_of[t] = -1;
  p->first = first;
  p->last = last;
  p->rows = rows;
  p->cols = cols;
  p->layers = mp_pool_alloc(g->pool, span, sizeof *p->layers);
  p->tensors = mp_pool_alloc(g->pool, span + 1, sizeof *p->tensors);
  if (!p->layers || !p->tensors) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  /* the model's multiply-accumulates, for the halos' share */
  if (memo && memo->have_macs) {
    p->model_macs = memo->model_macs;
  } else {
    bool all = true; /* no lowering ran out of memory */
    for (uint32_t o = 0; o < g->n_ops; o++) {
      if (r.ops[o].folded_into >= 0 || r.ops[o].is_view) continue;
      const mp_lowered_op *L = NULL;
      mp_status ls = lower_restored(memo, &r, o, &lo, &L);
      if (ls == MP_OK && L->supported) p->model_macs += op_macs(L, NULL);
      all &= ls != MP_ERR_NOMEM;
      mp_lower_free(&lo);
    }
    if (memo && all) {
      memo->model_macs = p->model_macs;
      memo->have_macs = true;
    }
  }
  /* the layers, in order */
  for (uint32_t o = first; o <= last; o++) {
    const mp_op *op = &g->ops[o];
    if (op->folded_into >= 0) {
      if ((uint32_t)op->folded_into < first || (uint32_t)op->folded_into > last)
        REFUSE("operator %u (%s) is folded into operator %d, outside the stage %u .. %u", o,
               op->name, op->folded_into, first, last);
      continue;
    }
    if (op->is_view)
      REFUSE("operator %u (%s) is a view; a patched stage holds convolutions, depthwise "
             "convolutions, pools and ADDs", o, op->name);
    if (op->builtin_code != OP_CONV_2D && op->builtin_code != OP_DEPTHWISE_CONV_2D &&
        op->builtin_code != OP_AVERAGE_POOL_2D && op->builtin_code != OP_MAX_POOL_2D &&
        op->builtin_code != OP_ADD)
      REFUSE("operator %u is %s; a patched stage holds CONV_2D, DEPTHWISE_CONV_2D, "
             "AVERAGE_POOL_2D, MAX_POOL_2D and ADD", o, op->name);
    const mp_lowered_op *L = NULL;
    st = lower_restored(memo, &r, o, &lo, &L);
    if (st == MP_ERR_NOMEM) goto done;
    if (st != MP_OK || !L->supported || L->noop) {
      st = MP_OK;
      REFUSE("operator %u (%s) has no kernel memplan can run tile by tile", o, op->name);
    }
    mp_patch_layer *ly = &p->layers[p->n_layers];
    ly->op = o;
    ly->kernel = L->kernel;
    ly->window = window_kernel(L->kernel);
    bool add = L->kernel == MP_K_ADD_S8 || L->kernel == MP_K_ADD_F32;
    if (!ly->window && !add)
      REFUSE("operator %u (%s) runs %s, which a patched stage cannot run", o, op->name, L->fn);
    if (add && !L->params.add_s8.b.elementwise)
      REFUSE("operator %u (ADD) broadcasts; a patched stage runs only ADDs of equal shapes", o);
    int32_t out = -1, ins[2] = {-1, -1};
    uint32_t n_in = 0;
    for (uint32_t k = 0; k < L->n_args; k++) {
      const mp_lower_arg *a = &L->args[k];
      if (a->kind != MP_LARG_TENSOR || a->tensor < 0) continue;
      if (a->is_output)
        out = a->tensor;
      else if (g->tensors[a->tensor].role != MP_ROLE_CONSTANT && n_in < 2)
        ins[n_in++] = a->tensor;
    }
    if (out < 0 || n_in != (add ? 2u : 1u))
      REFUSE("operator %u (%s): its tensors do not form a stage layer", o, op->name);
    if (ly->window) {
      memcpy(&ly->geom, &L->params, sizeof ly->geom);
      if (ly->geom.batches != 1 || ly->geom.out_pixel_stride || ly->geom.out_row_stride || ly->geom.out_batch_stride)
        REFUSE("operator %u (%s): a patched stage runs batch 1 with packed outputs", o, op->name);
    }
    op_macs(L, &ly->macs_per_px);
    if (add) ly->macs_per_px = (uint64_t)g->tensors[out].shape[3];
    mp_lower_free(&lo);
    /* the stage input: the first layer's */
    if (p->n_layers == 0) {
      const mp_tensor *x = &g->tensors[ins[0]];
      if (x->role != MP_ROLE_SCRATCH || !is_rank4_batch1(x))
        REFUSE("operator %u (%s): the stage's input, tensor %d '%s', must be a 4-D activation "
               "of batch 1", o, op->name, ins[0], x->name);
      stage_of[ins[0]] = 0;
      p->tensors[0] = (mp_patch_tensor){ins[0], x->shape[1], x->shape[2], x->shape[3],
                                        (int32_t)(mp_dtype_bits(x->dtype) / 8), -1, 0, 0};
      p->head = o;
    }
    for (uint32_t i = 0; i < n_in; i++) {
      if (stage_of[ins[i]] < 0)
        REFUSE("operator %u (%s) reads tensor %d '%s', which is neither the stage's input nor "
               "written in the stage", o, op->name, ins[i], g->tensors[ins[i]].name);
      ly->in[i] = (uint32_t)stage_of[ins[i]];
      p->tensors[ly->in[i]].last_read = (int32_t)p->n_layers;
    }
    ly->n_in = n_in;
    const mp_tensor *y = &g->tensors[out];
    if (y->role != MP_ROLE_SCRATCH || !is_rank4_batch1(y) || y->alias_of >= 0 || y->has_subviews)
      REFUSE("operator %u (%s) writes tensor %d '%s', which a stage cannot hold (a 4-D "
             "activation of batch 1 that is no view)", o, op->name, out, y->name);
    if (add && (g->tensors[ins[0]].size != y->size || g->tensors[ins[1]].size != y->size))
      REFUSE("operator %u (ADD): its inputs and output differ in shape", o);
    p->n_layers++;
    stage_of[out] = (int32_t)p->n_layers;
    p->tensors[p->n_layers] = (mp_patch_tensor){out, y->shape[1], y->shape[2], y->shape[3],
                                                (int32_t)(mp_dtype_bits(y->dtype) / 8), -1, 0, 0};
  }
  if (p->n_layers == 0) REFUSE("operators %u .. %u run no layer", first, last);
  if (g->ops[last].folded_into >= 0)
    REFUSE("operator %u is a folded PAD; the stage must end at a layer", last);
  p->n_tensors = p->n_layers + 1;
  /* only the stage's output leaves it */
  for (uint32_t k = 1; k + 1 < p->n_tensors; k++) {
    const mp_tensor *x = &g->tensors[p->tensors[k].tensor];
    if (x->is_output)
      REFUSE("tensor %d '%s' is a graph output inside the stage; end the stage at it",
             p->tensors[k].tensor, x->name);
  }
  for (uint32_t o = 0; o < g->n_ops; o++) {
    if (o >= first && o <= last) continue;
    const mp_op *op = &g->ops[o];
    for (uint32_t k = 0; k < op->n_inputs; k++) {
      int32_t t = op->inputs[k];
      if (t < 0 || stage_of[t] <= 0 || (uint32_t)stage_of[t] == p->n_tensors - 1) continue;
      REFUSE("operator %u (%s) reads tensor %d '%s' of the stage; end the stage at it or "
             "before", o, op->name, t, g->tensors[t].name);
    }
    for (uint32_t k = 0; k < op->n_outputs; k++)
      if (op->outputs[k] >= 0 && stage_of[op->outputs[k]] == 0 && o > first)
        REFUSE("operator %u (%s) writes the stage's input", o, op->name);
  }
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    int32_t a = g->tensors[t].alias_of;
    if (a >= 0 && stage_of[a] > 0)
      REFUSE("tensor %u '%s' is a view of tensor %d '%s' of the stage", t, g->tensors[t].name, a,
             g->tensors[a].name);
  }
  const mp_patch_tensor *ty = &p->tensors[p->n_tensors - 1];
  if (rows > (uint32_t)ty->h || cols > (uint32_t)ty->w)
    REFUSE("%u x %u tiles of the stage's %d x %d output: more tiles than pixels", rows, cols,
           ty->h, ty->w);
  /* the windows, tile by tile, backwards through the stage */
  p->n_tiles = rows * cols;
  p->need = mp_pool_alloc(g->pool, (size_t)p->n_tiles * p->n_tensors, sizeof *p->need);
  if (!p->need) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  for (uint32_t t = 0; t < p->n_tiles; t++) {
    uint32_t tr = t / cols, tc = t % cols;
    mp_patch_rect *need = &p->need[(size_t)t * p->n_tensors];
    need[p->n_tensors - 1] =
        (mp_patch_rect){(int32_t)(tr * (uint32_t)ty->h / rows), (int32_t)((tr + 1) * (uint32_t)ty->h / rows),
                        (int32_t)(tc * (uint32_t)ty->w / cols), (int32_t)((tc + 1) * (uint32_t)ty->w / cols)};
    for (uint32_t l = p->n_layers; l-- > 0;) {
      mp_patch_rect out = need[l + 1];
      if (empty(out)) continue;
      for (uint32_t i = 0; i < p->layers[l].n_in; i++) {
        mp_patch_rect rd = mp_patch_reads(p, l, i, out);
        if (empty(rd))
          REFUSE("tile %u of operator %u reads no input pixel (its window lies in the padding)",
                 t, p->layers[l].op);
        need[p->layers[l].in[i]] = unite(need[p->layers[l].in[i]], rd);
      }
    }
    for (uint32_t k = 1; k + 1 < p->n_tensors; k++) {
      const mp_patch_tensor *x = &p->tensors[k];
      uint64_t b = (uint64_t)area(need[k]) * (uint64_t)x->c * (uint64_t)x->elem;
      if (b > p->tensors[k].bytes) p->tensors[k].bytes = b;
    }
    for (uint32_t l = 0; l < p->n_layers; l++)
      p->macs_patched += (uint64_t)area(need[l + 1]) * p->layers[l].macs_per_px;
    /* the halo: what the tile reads of the input beyond its share */
    const mp_patch_tensor *tx = &p->tensors[0];
    int32_t sy = (int32_t)((tr + 1) * (uint32_t)tx->h / rows) - (int32_t)(tr * (uint32_t)tx->h / rows);
    int32_t sx = (int32_t)((tc + 1) * (uint32_t)tx->w / cols) - (int32_t)(tc * (uint32_t)tx->w / cols);
    p->halo_rows = imax(p->halo_rows, need[0].y1 - need[0].y0 - sy);
    p->halo_cols = imax(p->halo_cols, need[0].x1 - need[0].x0 - sx);
  }
  for (uint32_t l = 0; l < p->n_layers; l++) {
    const mp_patch_tensor *o = &p->tensors[l + 1];
    p->macs += (uint64_t)o->h * (uint64_t)o->w * p->layers[l].macs_per_px;
  }
  layout_buffers(p);
  /* the kernels the tiles call, and their scratch after the tile buffers */
  uint64_t kscratch = 0;
  for (uint32_t l = 0; l < p->n_layers; l++) {
    mp_patch_layer *ly = &p->layers[l];
    ly->direct = ly->window;
    for (uint32_t t = 0; t < p->n_tiles && ly->direct; t++) {
      mp_patch_call c;
      mp_patch_tile_call(p, t, l, &c);
      ly->direct = mp_patch_call_direct(&c);
    }
    memo_run *mr = memo ? &memo->run[ly->direct][ly->op] : NULL;
    mp_kernel rk;
    uint64_t rs;
    if (mr && mr->done) {
      st = mr->st;
      rk = mr->kernel;
      rs = mr->scratch_bytes;
    } else {
      st = lower_run(g, ly, ly->direct, &lo);
      rk = lo.kernel;
      rs = lo.scratch_bytes;
      mp_lower_free(&lo);
      if (mr && st != MP_ERR_NOMEM) *mr = (memo_run){true, st, rk, rs};
    }
    if (st != MP_OK) goto done;
    ly->run_kernel = rk;
    if (rs > kscratch) kscratch = rs;
  }
  p->kernel_scratch_offset = p->scratch_bytes;
  p->kernel_scratch_bytes = kscratch;
  p->scratch_bytes = mp_align_up(p->scratch_bytes + kscratch, 16);

  /* the rewrite: the head runs the stage and writes its output */
  int32_t *outs = mp_pool_alloc(g->pool, 1, sizeof *outs);
  if (!outs) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  mp_op *head = &g->ops[p->head];
  p->head_outputs = head->outputs;
  p->head_n_outputs = head->n_outputs;
  outs[0] = ty->tensor;
  head->outputs = outs;
  head->n_outputs = 1;
  head->patch_head = true;
  for (uint32_t l = 0; l < p->n_layers; l++) {
    mp_op *o = &g->ops[p->layers[l].op];
    if (o->channel_serial && g->n_serial_ops > 0) g->n_serial_ops--; /* a tile runs it whole */
    o->channel_serial = false;
    if (p->layers[l].op == p->head) continue;
    o->folded_into = (int32_t)p->head;
    o->is_view = true;
  }
  for (uint32_t k = 1; k + 1 < p->n_tensors; k++) {
    mp_tensor *x = &g->tensors[p->tensors[k].tensor];
    x->used = false;
    x->lifetime.start_op = x->lifetime.end_op = -1;
  }
  mp_tensor *yx = &g->tensors[ty->tensor];
  yx->producer = (int32_t)p->head;
  mp_lifetime_add_op(&yx->lifetime, (int32_t)p->head);
  yx->lifetime.start_op = (int32_t)p->head;
  /* the stage input now lives to the stage's run, or its last reader after */
  mp_tensor *xx = &g->tensors[p->tensors[0].tensor];
  int32_t end = (int32_t)p->head;
  for (uint32_t o = last + 1; o < g->n_ops; o++)
    for (uint32_t k = 0; k < g->ops[o].n_inputs; k++)
      if (g->ops[o].inputs[k] == p->tensors[0].tensor) end = (int32_t)o;
  if (xx->is_output) end = (int32_t)g->n_ops - 1;
  xx->lifetime.end_op = end;
  if (xx->lifetime.start_op > end) xx->lifetime.start_op = end;
  /* the stage's operators keep no op-local scratch or overlap contract */
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++) {
    mp_tensor *x = &g->tensors[t];
    if (x->local_op >= (int32_t)first && x->local_op <= (int32_t)last) {
      x->used = false;
      x->local_op = -1;
      x->lifetime.start_op = x->lifetime.end_op = -1;
    }
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < g->n_overlaps; i++)
    if (g->overlaps[i].op < first || g->overlaps[i].op > last) g->overlaps[kept++] = g->overlaps[i];
  g->n_overlaps = kept;
  /* the stage's own contract: its output over the input rows it is done with */
  int64_t gap;
  if (mp_patch_output_gap(p, &gap)) {
    mp_overlap *v = mp_pool_alloc(g->pool, g->n_overlaps + 1, sizeof *v);
    if (!v) {
      st = MP_ERR_NOMEM;
      goto done;
    }
    if (g->n_overlaps) memcpy(v, g->overlaps, g->n_overlaps * sizeof *v);
    v[g->n_overlaps++] = (mp_overlap){p->head, (uint32_t)p->tensors[0].tensor,
                                      (uint32_t)ty->tensor, gap, 1};
    g->overlaps = v;
    p->out_gap = gap;
    p->has_out_gap = true;
  }
  mp_graph_storage(g);
  uint32_t id;
  if ((st = mp_graph_add_local(g, p->head, p->scratch_bytes ? p->scratch_bytes : 16, 16,
                               "patch tiles", &id)) != MP_OK)
    goto done;
  p->scratch_tensor = (int32_t)id;
  if (prev)
    prev->next = p;
  else
    g->patch = p;
done:
  mp_lower_free(&lo);
  free(r.ops);
  free(stage_of);
  return st;
}

void mp_graph_patch_baseline(mp_graph *g, uint64_t scratch, uint64_t tensor_bound,
                             uint64_t inplace_bound, bool automatic, uint32_t tried) {
  mp_patch *p = g->patch;
  if (!p) return;
  p->has_baseline = true;
  p->base_scratch = scratch;
  p->base_tensor_bound = tensor_bound;
  p->base_inplace_bound = inplace_bound;
  p->automatic = automatic;
  p->tried = tried;
}

bool mp_graph_patch_info(const mp_graph *g, mp_patch_info *out) {
  const mp_patch *p = g ? g->patch : NULL;
  memset(out, 0, sizeof *out);
  if (!p) return false;
  *out = (mp_patch_info){p->first, p->last, p->head, p->rows, p->cols, p->tensors[0].tensor,
                         p->tensors[p->n_tensors - 1].tensor, p->halo_rows, p->halo_cols,
                         p->scratch_bytes, p->macs, p->macs_patched, p->model_macs,
                         mp_patch_extra_macs_bp(p), p->automatic,
                         p->has_baseline ? p->base_scratch : 0, 0};
  for (const mp_patch *q = p; q; q = q->next) out->stages++;
  return true;
}

mp_status mp_patch_candidates(const mp_graph *g, uint32_t first, uint32_t **lasts, size_t *n) {
  *lasts = NULL;
  *n = 0;
  uint32_t *out = malloc((g->n_ops ? g->n_ops : 1) * sizeof *out);
  if (!out) return MP_ERR_NOMEM;
  restored r;
  mp_status st = restore(g, &r);
  if (st != MP_OK) {
    free(out);
    return st;
  }
  /* walk from operator `first` while every operator could be a layer;
   * a candidate ends at a window layer whose output is smaller than the
   * input of the first */
  int64_t in_px = -1;
  for (uint32_t o = first; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    if (op->folded_into >= 0) continue;
    if (op->is_view) break;
    mp_lowered_op lo;
    if (mp_lower_op(&r.g, o, &lo, NULL) != MP_OK || !lo.supported) {
      mp_lower_free(&lo);
      break;
    }
    bool win = window_kernel(lo.kernel);
    bool add = (lo.kernel == MP_K_ADD_S8 || lo.kernel == MP_K_ADD_F32) &&
               lo.params.add_s8.b.elementwise;
    mpk_conv_geom geom;
    memcpy(&geom, &lo.params, sizeof geom);
    mp_lower_free(&lo);
    if (!win && !add) break;
    if (win && in_px < 0) in_px = (int64_t)geom.in_h * geom.in_w;
    if (win && (int64_t)geom.out_h * geom.out_w * 4 <= in_px && geom.out_h > 1) out[(*n)++] = o;
  }
  free(r.ops);
  if (*n == 0) {
    free(out);
    return MP_OK;
  }
  *lasts = out;
  return MP_OK;
}
