/*
 * views.c — sub-tensor views (memory.in_place): copies that become
 * offsets.
 *
 * A SPLIT, SPLIT_V, UNPACK, SLICE or STRIDED_SLICE copies bytes of its input
 * into its outputs; a CONCATENATION or PACK copies its inputs' bytes into its
 * output.  Their kernels (mpk_split, mpk_strided_copy, mpk_concat) move
 * bytes and nothing else: the lowering gives them only when every tensor
 * has one element type (and, for CONCATENATION, one quantisation), so no
 * value changes.  Where the bytes a copy moves for one tensor are ONE
 * contiguous run of the other side, that tensor can simply be those bytes:
 * a view of the other side at a byte offset, and the copy disappears.
 *
 * When is a copy's run contiguous?  From the kernel's own geometry (the
 * lowering, src/lower/slice.c and shape.c):
 *   - split / concatenation: the tensors are `outer` rows of slices laid
 *     end to end along the axis; with outer == 1 (every axis before the
 *     split axis has extent 1) slice k is the run starting at the sum of
 *     the slices before it;
 *   - strided copy: output element (i_0, ..., i_5) reads input element
 *     in_offset + sum_d i_d * in_strides[d].  The output's own row-major
 *     index is sum_d i_d * packed[d], packed[d] being the product of the
 *     output extents after d.  The two agree for every element, so the
 *     output is the run of the input starting at element in_offset, iff
 *     in_strides[d] == packed[d] on every axis of extent above 1: the
 *     axes before the sliced one have extent 1 in the output, the axes
 *     after it are taken whole, and the step is 1.
 *
 * The views:
 *   - SPLIT, SPLIT_V, UNPACK: every output becomes a view of the input (all
 *     or none: a kernel that still ran would copy a view onto itself);
 *   - SLICE, STRIDED_SLICE: the output becomes a view of the input;
 *   - CONCATENATION, PACK (elided): every input becomes a view of the
 *     output, so the operators producing the inputs write straight into
 *     their slice of it.  Each input must be a scratch tensor written by a
 *     running operator (not a graph input, constant or variable), not yet a
 *     view of anything (nor an input of another elided concatenation), and
 *     appear once.  The output's storage then lives from the first input's
 *     producer on.
 * Everywhere: the tensors are scratch; under memory.io caller no graph input
 * or output is part of a view chain (the application holds those in
 * buffers of its own), while with memory.io arena (io_views) they may be:
 * their bytes are the arena's like any tensor's.  Sizes are non-zero, and
 * each view starts at a multiple of max(4, its element's alignment) within
 * its root, so that a view is as aligned as any kernel wants.
 *
 * A view is not always smaller (mp_graph_views below), so the views are
 * chosen by the graph's in-place bound; convert also plans the graph
 * without any rewrite and keeps the smaller plan (cli/fold.c).
 *
 * The view operator then runs nothing (is_view).  alias_of names the final
 * root and alias_offset the view's first byte in it; chains (a slice of a
 * split output, a concatenation of a concatenation) add their offsets.  A
 * root with a view that does not cover it whole is marked has_subviews and
 * takes part in no in-place overlap (inplace.c, verify.c): its bytes are
 * several tensors' at once.
 *
 * verify.c checks every view offset against the operator's geometry again,
 * from the lowering and the placed offsets, without this file's reasoning.
 */
#include "lower/lower.h"
#include "read/opcodes.h"
#include "graph/rewrite.h"
#include "graph/storage.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>


/* Parents during the pass: alias_of is the tensor a view was made from
 * and alias_offset its place in it; flattened onto roots at the end. */
static int32_t parent(const mp_graph *g, int32_t t) { return g->tensors[t].alias_of; }

/* The root of t and t's offset in it. */
static bool chain(const mp_graph *g, int32_t t, int32_t *root, uint64_t *off) {
  uint64_t o = 0;
  for (uint32_t steps = 0; steps <= g->n_tensors; steps++) {
    const mp_tensor *x = &g->tensors[t];
    if (x->alias_of < 0) {
      *root = t;
      *off = o;
      return true;
    }
    o += x->alias_offset;
    t = x->alias_of;
  }
  return false; /* a cycle: never made, but never followed either */
}

/* A scratch tensor that may be part of a view: used, with bytes. */
static bool viewable(const mp_graph *g, int32_t t) {
  if (t < 0 || (uint32_t)t >= g->n_tensors) return false;
  const mp_tensor *x = &g->tensors[t];
  return x->role == MP_ROLE_SCRATCH && x->used && x->size > 0;
}

static uint64_t view_align(const mp_graph *g, int32_t t) {
  uint64_t a = mp_dtype_align(g->tensors[t].dtype);
  return a > 4 ? a : 4;
}

/* Does some tensor lie in t's bytes at a stride (a strided view of t)?  Such
 * a root is never made a view itself: its views' rows are its own. */
static bool strided_root(const mp_graph *g, int32_t t) {
  for (uint32_t u = 0; u < g->n_tensors; u++)
    if (g->tensors[u].alias_of == t && g->tensors[u].alias_stride) return true;
  return false;
}

/* May tensor v become a view of tensor base at byte `k` of base?  io[t]:
 * t or a view made from it is a graph input or output. */
static bool can_link(const mp_graph *g, const bool *io, int32_t v, int32_t base, uint64_t k) {
  if (!viewable(g, v) || !viewable(g, base) || v == base || g->tensors[v].alias_of >= 0 || io[v] ||
      strided_root(g, v) || g->tensors[base].alias_stride)
    return false;
  int32_t r;
  uint64_t off;
  if (!chain(g, base, &r, &off) || r == v || io[r]) return false; /* r == v: a cycle */
  if (k > g->tensors[base].size || g->tensors[v].size > g->tensors[base].size - k) return false;
  return (off + k) % view_align(g, v) == 0;
}

static void link(mp_graph *g, int32_t v, int32_t base, uint64_t k) {
  g->tensors[v].alias_of = base;
  g->tensors[v].alias_offset = k;
  g->tensors[v].alias_row = g->tensors[v].alias_stride = 0;
}

/* Is op o the only reader of tensor t? */
static bool only_reader(const mp_graph *g, int32_t t, uint32_t o) {
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *op = &g->ops[i];
    if (op->folded_into >= 0) continue;
    for (uint32_t k = 0; k < op->n_inputs; k++)
      if (op->inputs[k] == t && i != o) return false;
    for (uint32_t k = 0; k < op->n_intermediates; k++)
      if (op->intermediates[k] == t) return false;
  }
  return true;
}

/* May input t of CONCATENATION o become the strided view of base (rows of
 * `row` bytes, `stride` apart, the first at byte k)?  Its producer must be
 * a window kernel that writes it as its one output at those strides
 * (mp_lower_view_strides), and o its only reader: a strided view is read
 * by nobody but the elided operator. */
static bool can_stride(const mp_graph *g, const bool *io, uint32_t o, int32_t t, int32_t base,
                       uint64_t k, uint64_t row, uint64_t stride) {
  const mp_tensor *x = &g->tensors[t], *b = &g->tensors[base];
  if (!viewable(g, t) || !viewable(g, base) || t == base || x->alias_of >= 0 || io[t] ||
      io[base] || b->alias_of >= 0 || strided_root(g, t))
    return false;
  uint64_t e = mp_dtype_align(x->dtype);
  if (row == 0 || x->size % row || e == 0 || k % e || k + row > stride ||
      (x->size / row) * stride > b->size)
    return false;
  if (x->producer < 0 || x->producer >= (int32_t)o || g->ops[x->producer].is_view ||
      g->ops[x->producer].n_outputs != 1 || !only_reader(g, t, o))
    return false;
  mp_lowered_op lo;
  bool ok = mp_lower_op(g, (uint32_t)x->producer, &lo, NULL) == MP_OK && lo.supported;
  mpk_conv_geom gm;
  const mpk_conv_geom *w = ok ? mp_lower_window_geom(&lo) : NULL;
  ok = w && lo.n_args > 0 && lo.args[lo.n_args - 1].tensor == t;
  /* memory.in_place speed: a 16x8 convolution writing a strided slice
   * keeps its reference kernel (mp_lower_specialise), so it writes its own
   * tensor instead */
  if (g->fast_kernels && (lo.kernel == MP_K_CONV2D_S16 || lo.kernel == MP_K_CONV2D_S16_ACC32 ||
                          lo.kernel == MP_K_DEPTHWISE_CONV2D_S16))
    ok = false;
  if (ok) {
    gm = *w;
    ok = mp_lower_view_strides(&gm, e, row, stride);
  }
  mp_lower_free(&lo);
  return ok;
}

/* The byte offset of the strided copy's output in its input, or -1 when
 * the output is not one contiguous run of it. */
static int64_t strided_run(const mpk_strided_copy_params *p) {
  int64_t packed = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    if (p->dims[d] > 1 && p->in_strides[d] != packed) return -1;
    packed *= p->dims[d];
  }
  return p->in_offset >= 0 ? (int64_t)p->in_offset * p->elem_size : -1;
}

/* Are op's inputs all present and each given once? */
static bool distinct_inputs(const mp_op *op) {
  for (uint32_t i = 0; i < op->n_inputs; i++) {
    if (op->inputs[i] < 0) return false;
    for (uint32_t j = 0; j < i; j++)
      if (op->inputs[j] == op->inputs[i]) return false;
  }
  return true;
}

/* What make_view made of an operator. */
enum { MADE_NONE, MADE_VIEW, MADE_PARTIAL };

/* A CONCATENATION along an inner axis: its output is `outer` rows, each
 * the inputs' slices end to end (input i's input_bytes[i] bytes at the sum
 * of the ones before it), so input i is rows of input_bytes[i] bytes, one
 * output row apart.  Elided when every input can be that strided view;
 * partly elided when some can (a CONCATENATION, not a PACK): those become
 * strided views and the kernel, which still runs, copies the others
 * (mpk_concat_params.in_place, set by the lowering from the views). */
static int make_strided(mp_graph *g, const bool *io, uint32_t o, const mp_op *op,
                        const mpk_concat_params *p) {
  int32_t out = op->outputs[0];
  uint64_t stride = 0;
  for (uint32_t i = 0; i < op->n_inputs; i++) stride += (uint64_t)p->input_bytes[i];
  if (!distinct_inputs(op) || op->n_inputs > 64) return MADE_NONE;
  bool ok[64];
  uint32_t n_ok = 0;
  uint64_t k = 0;
  for (uint32_t i = 0; i < op->n_inputs; i++) {
    ok[i] = can_stride(g, io, o, op->inputs[i], out, k, (uint64_t)p->input_bytes[i], stride);
    n_ok += ok[i];
    k += (uint64_t)p->input_bytes[i];
  }
  if (n_ok == 0 || (n_ok < op->n_inputs && op->builtin_code != OP_CONCATENATION))
    return MADE_NONE;
  k = 0;
  for (uint32_t i = 0; i < op->n_inputs; k += (uint64_t)p->input_bytes[i], i++) {
    if (!ok[i]) continue;
    int32_t t = op->inputs[i];
    link(g, t, out, k);
    g->tensors[t].alias_row = (uint64_t)p->input_bytes[i];
    g->tensors[t].alias_stride = stride;
  }
  return n_ok == op->n_inputs ? MADE_VIEW : MADE_PARTIAL;
}

/* Views for one operator: MADE_VIEW when it became one (it runs
 * nothing), MADE_PARTIAL when some of its inputs did (it still runs). */
static int make_view(mp_graph *g, const bool *io, uint32_t o, const mp_lowered_op *lo) {
  const mp_op *op = &g->ops[o];
  int32_t code = op->builtin_code;
  if (!lo->supported || lo->noop) return MADE_NONE;
  if ((code == OP_SLICE || code == OP_STRIDED_SLICE) && lo->kernel == MP_K_STRIDED_COPY) {
    int32_t in = lo->args[0].tensor, out = lo->args[1].tensor;
    int64_t k = strided_run(&lo->params.strided_copy);
    if (k < 0 || in < 0 || out < 0 || !can_link(g, io, out, in, (uint64_t)k)) return MADE_NONE;
    link(g, out, in, (uint64_t)k);
    return MADE_VIEW;
  }
  if ((code == OP_SPLIT || code == OP_SPLIT_V || code == OP_UNPACK) && lo->kernel == MP_K_SPLIT) {
    const mpk_split_params *p = &lo->params.split;
    int32_t in = lo->args[0].tensor;
    if (p->outer != 1 || in < 0 || (uint32_t)p->n_outputs != op->n_outputs) return MADE_NONE;
    uint64_t k = 0;
    bool any = false;
    for (uint32_t i = 0; i < op->n_outputs; i++) {
      int32_t t = op->outputs[i];
      for (uint32_t j = 0; j < i; j++)
        if (op->outputs[j] == t) return MADE_NONE;
      if (g->tensors[t].used) {
        if (!can_link(g, io, t, in, k)) return MADE_NONE;
        any = true;
      }
      k += (uint64_t)p->output_bytes[i];
    }
    if (!any) return MADE_NONE;
    k = 0;
    for (uint32_t i = 0; i < op->n_outputs; i++) {
      if (g->tensors[op->outputs[i]].used) link(g, op->outputs[i], in, k);
      k += (uint64_t)p->output_bytes[i];
    }
    return MADE_VIEW;
  }
  if ((code == OP_CONCATENATION || code == OP_PACK) && lo->kernel == MP_K_CONCAT) {
    const mpk_concat_params *p = &lo->params.concat;
    int32_t out = op->outputs[0];
    if (op->n_outputs != 1 || (uint32_t)p->n_inputs != op->n_inputs) return MADE_NONE;
    if (p->outer != 1) return make_strided(g, io, o, op, p);
    if (!distinct_inputs(op)) return MADE_NONE;
    uint64_t k = 0;
    for (uint32_t i = 0; i < op->n_inputs; i++) {
      int32_t t = op->inputs[i];
      const mp_tensor *x = &g->tensors[t];
      /* written by a running operator, before this one */
      if (x->producer < 0 || x->producer >= (int32_t)o || g->ops[x->producer].is_view ||
          !can_link(g, io, t, out, k))
        return MADE_NONE;
      k += (uint64_t)p->input_bytes[i];
    }
    k = 0;
    for (uint32_t i = 0; i < op->n_inputs; i++) {
      link(g, op->inputs[i], out, k);
      k += (uint64_t)p->input_bytes[i];
    }
    return MADE_VIEW;
  }
  return MADE_NONE;
}

static bool candidate_code(int32_t c) {
  return c == OP_CONCATENATION || c == OP_PACK || c == OP_SPLIT || c == OP_SPLIT_V ||
         c == OP_UNPACK || c == OP_SLICE || c == OP_STRIDED_SLICE;
}

typedef struct vstate {
  mp_graph *g;
  bool *io;            /* per tensor: it or a whole-tensor view of it is graph I/O */
  int32_t *alias0;     /* the whole-tensor aliases before this file */
  bool *cand;          /* per op: a view candidate (not yet a view, not folded) */
  bool *off;           /* per op: left a copy by the selection */
  bool *made;          /* per op: the last pass made views of it (whole or partly) */
} vstate;

/* One pass in op order: every candidate not switched off that can become
 * a view does; then the aliases flattened onto their roots. */
static mp_status link_pass(vstate *v) {
  mp_graph *g = v->g;
  uint32_t n = g->n_tensors;
  g->n_view_ops = g->n_elided_concats = g->n_partial_concats = 0;
  for (uint32_t t = 0; t < n; t++) {
    g->tensors[t].alias_of = v->alias0[t];
    g->tensors[t].alias_offset = 0;
    g->tensors[t].alias_row = g->tensors[t].alias_stride = 0;
    g->tensors[t].has_subviews = false;
  }
  for (uint32_t o = 0; o < g->n_ops; o++) {
    mp_op *op = &g->ops[o];
    if (!v->cand[o]) continue;
    op->is_view = false;
    v->made[o] = false;
    if (v->off[o]) continue;
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, o, &lo, NULL);
    if (st == MP_ERR_NOMEM) {
      mp_lower_free(&lo);
      return st;
    }
    int made = st == MP_OK ? make_view(g, v->io, o, &lo) : MADE_NONE;
    mp_lower_free(&lo);
    if (made == MADE_NONE) continue;
    v->made[o] = true;
    if (made == MADE_PARTIAL) {
      g->n_partial_concats++;
      continue;
    }
    op->is_view = true;
    if (op->builtin_code == OP_CONCATENATION || op->builtin_code == OP_PACK)
      g->n_elided_concats++;
    else
      g->n_view_ops++;
  }
  /* flatten onto the roots, offsets added up (parents form a forest: a
   * link never closes a cycle) */
  for (uint32_t t = 0; t < n; t++) {
    int32_t r = (int32_t)t;
    uint64_t k = 0;
    while (parent(g, r) >= 0) {
      k += g->tensors[r].alias_offset;
      r = parent(g, r);
    }
    /* a tensor already flattened links its root with its whole offset,
     * so later walks through it stay right */
    if (r == (int32_t)t) continue;
    g->tensors[t].alias_of = r;
    g->tensors[t].alias_offset = k;
  }
  for (uint32_t t = 0; t < n; t++) {
    mp_tensor *x = &g->tensors[t];
    if (x->alias_of < 0) continue;
    mp_tensor *r = &g->tensors[x->alias_of];
    if (x->alias_offset != 0 || x->size != r->size) r->has_subviews = true;
  }
  mp_graph_storage(g);
  return MP_OK;
}

/* Most candidates a selection tries one by one. */
#define MAX_SELECT 128

/* The in-place bound (16-byte slots) of the graph as the last pass left it. */
static uint64_t pass_bound(vstate *v) { return mp_graph_inplace_bound(v->g, 16); }

mp_status mp_graph_views(mp_graph *g, bool select, bool io_views) {
  g->n_view_ops = g->n_elided_concats = g->n_partial_concats = 0;
  uint32_t n = g->n_tensors, nt = n ? n : 1, no = g->n_ops ? g->n_ops : 1;
  vstate v = {g, calloc(nt, sizeof(bool)), malloc(nt * sizeof(int32_t)), calloc(no, sizeof(bool)),
              calloc(no, sizeof(bool)), calloc(no, sizeof(bool))};
  mp_status st = MP_ERR_NOMEM;
  if (!v.io || !v.alias0 || !v.cand || !v.off || !v.made) goto done;
  for (uint32_t t = 0; t < n; t++) v.alias0[t] = g->tensors[t].alias_of;
  for (uint32_t t = 0; t < n && !io_views; t++) {
    if (!g->tensors[t].is_input && !g->tensors[t].is_output) continue;
    for (int32_t u = (int32_t)t; u >= 0 && !v.io[u]; u = parent(g, u)) v.io[u] = true;
  }
  uint32_t n_cand = 0;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    v.cand[o] = !op->is_view && op->folded_into < 0 && op->n_outputs >= 1 &&
                candidate_code(op->builtin_code);
    n_cand += v.cand[o];
  }
  if (n_cand == 0) {
    st = MP_OK;
    goto done;
  }
  /* A view is not always smaller: a small slice keeps its whole root
   * alive as long as the slice is read, an elided concatenation's output
   * lives from its first input on, and a root holding sub-tensor views
   * takes part in no in-place overlap.  So the views are chosen by the
   * in-place bound, which the planners reach or come close to: all views,
   * then each one left a copy where that lowers the bound, in op order;
   * none at all if that is lower still.  The kernels' overlap contracts
   * are recorded for it and dropped again (mp_kernels_prepare records
   * them for the final graph). */
  if ((st = link_pass(&v)) != MP_OK) goto done;
  if (select && n_cand <= MAX_SELECT && (st = mp_kernels_overlaps(g)) == MP_OK) {
    uint64_t best = pass_bound(&v);
    for (uint32_t o = 0; o < g->n_ops && st == MP_OK; o++) {
      if (!v.cand[o] || !v.made[o]) continue;
      v.off[o] = true;
      if ((st = link_pass(&v)) != MP_OK) break;
      uint64_t b = pass_bound(&v);
      if (b < best)
        best = b;
      else
        v.off[o] = false;
    }
    if (st == MP_OK) {
      bool *keep = malloc(no * sizeof *keep);
      if (!keep) {
        st = MP_ERR_NOMEM;
      } else {
        memcpy(keep, v.off, no * sizeof *keep);
        for (uint32_t o = 0; o < g->n_ops; o++) v.off[o] = true;
        if ((st = link_pass(&v)) == MP_OK && pass_bound(&v) >= best)
          memcpy(v.off, keep, no * sizeof *keep);
        free(keep);
      }
    }
    if (st == MP_OK) st = link_pass(&v);
  }
  g->n_overlaps = 0;
  g->overlaps = NULL;
done:
  free(v.io);
  free(v.alias0);
  free(v.cand);
  free(v.off);
  free(v.made);
  return st;
}

uint64_t mp_view_copy_bytes(const mp_graph *g) {
  uint64_t n = 0;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    int32_t c = op->builtin_code;
    /* a partly elided concatenation: the inputs written into its output */
    for (uint32_t k = 0; c == OP_CONCATENATION && !op->is_view && op->n_outputs == 1 &&
                         k < op->n_inputs; k++) {
      const int32_t t = op->inputs[k];
      if (t >= 0 && g->tensors[t].alias_of == op->outputs[0] && g->tensors[t].alias_stride)
        n += g->tensors[t].size;
    }
    if (!op->is_view || op->folded_into >= 0 ||
        (c != OP_CONCATENATION && c != OP_PACK && c != OP_SPLIT && c != OP_SPLIT_V &&
         c != OP_UNPACK && c != OP_SLICE && c != OP_STRIDED_SLICE))
      continue;
    for (uint32_t k = 0; k < op->n_outputs; k++) {
      int32_t t = op->outputs[k];
      if (t >= 0 && g->tensors[t].used) n += g->tensors[t].size;
    }
  }
  return n;
}
