/*
 * lower_slice.c — lowering of the slicing operators onto
 * runtime/kernels/ref/mpk_slice.c: STRIDED_SLICE and SLICE become one strided
 * copy, SPLIT, SPLIT_V and UNPACK one split (the inverse of
 * CONCATENATION), PACK a CONCATENATION along the new axis, GATHER a
 * gather of rows; DEPTH_TO_SPACE and SPACE_TO_DEPTH one strided copy that
 * walks the output as six axes (batch, rows, block row, columns, block
 * column, channels) over the input; MIRROR_PAD a walk of the output that
 * reads each element's mirror image in the input.
 *
 * The begin / end / stride tensors, sizes and axes must be constants: they
 * are resolved here, with TensorFlow Lite Micro's rules (negative indices,
 * clamping, begin / end / shrink masks, `offset`), and the output shape
 * the model declares must be the one they give.  GATHER's indices may be
 * computed at run time; its kernel checks them.
 *
 * Not here: ellipsis and new-axis masks, non-constant begin / end /
 * sizes, int64 GATHER indices.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include <string.h>

enum {
  OPT_GATHER = 23,
  OPT_STRIDED_SLICE = 32,
  OPT_SPLIT = 35,
  OPT_PACK = 59,
  OPT_UNPACK = 64,
  OPT_SPLIT_V = 79,
  OPT_SPACE_TO_DEPTH = 19,
  OPT_DEPTH_TO_SPACE = 94,
  OPT_MIRROR_PAD = 77
};

const fdesc mp_lower_strided_copy_fields[] = {
    F_I32(mpk_strided_copy_params, elem_size), F_I32(mpk_strided_copy_params, in_offset),
    F_I32X6(mpk_strided_copy_params, dims), F_I32X6(mpk_strided_copy_params, in_strides), F_END};
const fdesc mp_lower_split_fields[] = {
    F_I32(mpk_split_params, n_outputs), F_I32(mpk_split_params, outer),
    F_PTR(mpk_split_params, output_bytes, "output_bytes"), F_END};
const fdesc mp_lower_mirror_pad_fields[] = {
    F_I32(mpk_mirror_pad_params, elem_size), F_I32(mpk_mirror_pad_params, reflect),
    F_I32X6(mpk_mirror_pad_params, in_dims), F_I32X6(mpk_mirror_pad_params, out_dims),
    F_I32X6(mpk_mirror_pad_params, before), F_END};
const fdesc mp_lower_gather_fields[] = {F_I32(mpk_gather_params, elem_size),
                                        F_I32(mpk_gather_params, batch_size),
                                        F_I32(mpk_gather_params, outer_size),
                                        F_I32(mpk_gather_params, axis_size),
                                        F_I32(mpk_gather_params, coord_size),
                                        F_I32(mpk_gather_params, inner_size),
                                        F_END};

/* The element size every tensor of the op shares, or 0 (reported). */
static int32_t common_elem_size(mp_lower_ctx *c, int32_t in) {
  int32_t dt = dtype(c, in), es = mp_lower_elem_size(dt);
  if (!es || es > 8) {
    mp_lower_unsupported(c, "element type %s", mp_dtype_name(dt));
    return 0;
  }
  return es;
}

/* Row-major element strides of tensor t's rank dims. */
static void elem_strides(const mp_lower_ctx *c, int32_t t, int64_t *strides) {
  int64_t s = 1;
  for (int d = (int)rank(c, t) - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dim(c, t, (uint32_t)d);
  }
}

/* The copy that walks the output as dims[0..r) (outermost first) and reads
 * the input element at offset + sum(coord[d] * strides[d]).  The output's
 * element count must agree. */
static mp_status walk_copy(mp_lower_ctx *c, int32_t in, int32_t out, uint32_t r,
                           const int64_t *dims, const int64_t *strides, int64_t offset) {
  int32_t es = common_elem_size(c, in);
  if (!es) return MP_OK;
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  int32_t n_out;
  if (!elems_i32(c, out, &n_out) || !elems_i32(c, in, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  int64_t total = 1;
  mpk_strided_copy_params *p = &c->lo->params.strided_copy;
  p->elem_size = es;
  for (uint32_t d = 0; d < MPK_MAX_DIMS; d++) {
    p->dims[d] = 1;
    p->in_strides[d] = 0;
  }
  for (uint32_t d = 0; d < r; d++) {
    uint32_t k = MPK_MAX_DIMS - r + d;
    p->dims[k] = (int32_t)dims[d];
    p->in_strides[k] = (int32_t)strides[d];
    total *= dims[d];
  }
  if ((uint64_t)total != elems(c, out))
    return mp_lower_malformed(c, "the copy has %lld elements, the output %llu", (long long)total,
                              (unsigned long long)elems(c, out));
  p->in_offset = total ? (int32_t)offset : 0;
  mp_lower_set_kernel(c, MP_K_STRIDED_COPY);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  mp_lower_add_overlap(c->lo, 0, 1, mpk_strided_copy_overlap_gap(p));
  return MP_OK;
}

/* The strided copy of `r` axes: count[d] elements from start[d] by step[d]
 * along each input axis. */
static mp_status strided_copy(mp_lower_ctx *c, int32_t in, int32_t out, uint32_t r,
                              const int64_t *start, const int64_t *step, const int64_t *count) {
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  int64_t es_in[MPK_MAX_DIMS], strides[MPK_MAX_DIMS], offset = 0;
  elem_strides(c, in, es_in);
  for (uint32_t d = 0; d < r; d++) {
    strides[d] = step[d] * es_in[d];
    offset += start[d] * es_in[d];
  }
  return walk_copy(c, in, out, r, count, strides, offset);
}

/* int8, int16 or float32 (input and output of one type, checked by the
 * caller) with one quantisation on both sides; else the op is reported
 * unsupported and false returned. */
static bool same_movable_type(mp_lower_ctx *c, int32_t in, int32_t out) {
  int32_t dt = dtype(c, in);
  if (dt != MP_DTYPE_INT8 && dt != MP_DTYPE_INT16 && dt != MP_DTYPE_FLOAT32) {
    mp_lower_unsupported(c, "element type %s (supported: int8, int16, float32)",
                         mp_dtype_name(dt));
    return false;
  }
  if (dt == MP_DTYPE_FLOAT32) return true;
  float si = 0, so = 0;
  int32_t zi = 0, zo = 0;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo)) {
    mp_lower_unsupported(c, "%s input or output without a quantisation", mp_dtype_name(dt));
    return false;
  }
  if (si != so || zi != zo) {
    mp_lower_unsupported(c,
                         "input scale %g zero point %d, output scale %g zero point %d: "
                         "a data-movement operator needs one quantisation on both sides",
                         (double)si, (int)zi, (double)so, (int)zo);
    return false;
  }
  return true;
}

/* DEPTH_TO_SPACE and SPACE_TO_DEPTH (NHWC, block b).  DEPTH_TO_SPACE:
 *   out[n][h*b + i][w*b + j][k] = in[n][h][w][(i*b + j)*C + k]
 * with C = in_channels / b^2; SPACE_TO_DEPTH is its inverse:
 *   out[n][h][w][(i*b + j)*C + k] = in[n][h*b + i][w*b + j][k]
 * with C = in_channels.  Both walk the output as (n, h, i, w, j, k) or
 * (n, h, w, i, j, k), each a plain axis of one side and a stride of the
 * other.  Any element type moves alike; the types memplan takes are
 * int8, int16 and float32 with one quantisation on both sides. */
static mp_status lower_block_move(mp_lower_ctx *c) {
  bool d2s = c->op->builtin_code == OP_DEPTH_TO_SPACE;
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  mp_lower_opts o;
  mp_status st = d2s ? mp_lower_open_opts(c, OPT_DEPTH_TO_SPACE, "DepthToSpaceOptions", &o)
                     : mp_lower_open_opts(c, OPT_SPACE_TO_DEPTH, "SpaceToDepthOptions", &o);
  if (st != MP_OK) return st;
  int64_t b = mp_lower_opt_i32(&o, 0, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  int32_t dt = dtype(c, in);
  if (dtype(c, out) != dt)
    return mp_lower_malformed(c, "input %s, output %s", mp_dtype_name(dt),
                              mp_dtype_name(dtype(c, out)));
  if (!same_movable_type(c, in, out)) return MP_OK;
  if (rank(c, in) != 4 || rank(c, out) != 4)
    return mp_lower_malformed(c, "needs rank 4 (NHWC), has %u in and %u out", rank(c, in),
                              rank(c, out));
  if (b < 1) return mp_lower_malformed(c, "block_size %lld (needs 1 or more)", (long long)b);
  int64_t n = dim(c, in, 0), h = dim(c, in, 1), w = dim(c, in, 2), ch = dim(c, in, 3);
  int64_t want[4];
  if (d2s) {
    if (ch % (b * b))
      return mp_lower_malformed(c, "%lld channels are not a multiple of block_size^2 = %lld",
                                (long long)ch, (long long)(b * b));
    want[0] = n, want[1] = h * b, want[2] = w * b, want[3] = ch / (b * b);
  } else {
    if (h % b || w % b)
      return mp_lower_malformed(c,
                                "height %lld and width %lld are not multiples of block_size %lld",
                                (long long)h, (long long)w, (long long)b);
    want[0] = n, want[1] = h / b, want[2] = w / b, want[3] = ch * b * b;
  }
  for (uint32_t d = 0; d < 4; d++)
    if (dim(c, out, d) != want[d])
      return mp_lower_malformed(c, "output [%d,%d,%d,%d], the operator gives [%lld,%lld,%lld,%lld]",
                                dim(c, out, 0), dim(c, out, 1), dim(c, out, 2), dim(c, out, 3),
                                (long long)want[0], (long long)want[1], (long long)want[2],
                                (long long)want[3]);
  int64_t dims[6], strides[6];
  if (d2s) {
    /* output (n, h, i, w, j, k); C = want[3] */
    int64_t cc = want[3];
    int64_t d6[6] = {n, h, b, w, b, cc}, s6[6] = {h * w * ch, w * ch, b * cc, ch, cc, 1};
    memcpy(dims, d6, sizeof dims);
    memcpy(strides, s6, sizeof strides);
  } else {
    /* output (n, h/b, w/b, i, j, k); C = ch */
    int64_t d6[6] = {n, h / b, w / b, b, b, ch},
            s6[6] = {h * w * ch, b * w * ch, b * ch, w * ch, ch, 1};
    memcpy(dims, d6, sizeof dims);
    memcpy(strides, s6, sizeof strides);
  }
  return walk_copy(c, in, out, 6, dims, strides, 0);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* STRIDED_SLICE: StridedSliceStartForAxis / StridedSliceEndForAxis. */
static mp_status lower_strided_slice(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || in_t(c, 1) < 0 || in_t(c, 2) < 0 || in_t(c, 3) < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, begin, end, strides and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_STRIDED_SLICE, "StridedSliceOptions", &o);
  if (st != MP_OK) return st;
  int32_t begin_mask = mp_lower_opt_i32(&o, 0, 0), end_mask = mp_lower_opt_i32(&o, 1, 0);
  int32_t ellipsis = mp_lower_opt_i32(&o, 2, 0), new_axis = mp_lower_opt_i32(&o, 3, 0);
  int32_t shrink = mp_lower_opt_i32(&o, 4, 0);
  bool offset = mp_lower_opt_bool(&o, 5, false);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (ellipsis || new_axis) return mp_lower_unsupported(c, "ellipsis and new-axis masks");
  uint32_t r = rank(c, in), nb, ne, ns;
  int64_t b[MPK_MAX_DIMS], e[MPK_MAX_DIMS], s[MPK_MAX_DIMS];
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!mp_lower_const_ints(c, in_t(c, 1), b, MPK_MAX_DIMS, &nb) ||
      !mp_lower_const_ints(c, in_t(c, 2), e, MPK_MAX_DIMS, &ne) ||
      !mp_lower_const_ints(c, in_t(c, 3), s, MPK_MAX_DIMS, &ns))
    return mp_lower_unsupported(c, "begin, end and strides must be constant vectors");
  if (nb != ne || ne != ns || nb > r)
    return mp_lower_malformed(c, "begin, end and strides have %u, %u and %u entries for rank %u",
                              nb, ne, ns, r);
  /* StridedSlicePadIndices: missing leading axes are taken whole */
  uint32_t pad = r - nb;
  int64_t start[MPK_MAX_DIMS], step[MPK_MAX_DIMS], count[MPK_MAX_DIMS];
  uint32_t n_kept = 0;
  for (uint32_t d = 0; d < r; d++) {
    int64_t size = dim(c, in, d), stride = d < pad ? 1 : s[d - pad];
    int64_t bv = d < pad ? 0 : b[d - pad], ev = d < pad ? 1 : e[d - pad];
    bool bm = d < pad || ((begin_mask >> (d - pad)) & 1),
         em = d < pad || ((end_mask >> (d - pad)) & 1);
    bool sh = d >= pad && ((shrink >> (d - pad)) & 1);
    if (stride == 0) return mp_lower_malformed(c, "stride 0 on axis %u", d);
    int64_t st0 = bv < 0 ? bv + size : bv;
    st0 = stride > 0 ? clamp64(st0, 0, size) : clamp64(st0, -1, size - 1);
    if (bm) st0 = stride > 0 ? 0 : size - 1;
    int64_t en;
    if (sh) {
      en = st0 >= size ? st0 : st0 + 1;
    } else {
      en = offset ? ev + st0 : ev;
      if (en < 0) en += size;
      en = stride > 0 ? clamp64(en, 0, size) : clamp64(en, -1, size - 1);
      if (em) en = stride > 0 ? size : -1;
    }
    int64_t n = stride > 0 ? (en > st0 ? (en - st0 + stride - 1) / stride : 0)
                           : (st0 > en ? (st0 - en - stride - 1) / -stride : 0);
    start[d] = st0;
    step[d] = stride;
    count[d] = n;
    if (!sh) {
      if (n_kept >= rank(c, out) || dim(c, out, n_kept) != n)
        return mp_lower_malformed(c, "axis %u keeps %lld elements; the output does not agree", d,
                                  (long long)n);
      n_kept++;
    }
  }
  if (n_kept != rank(c, out))
    return mp_lower_malformed(c, "the slice has rank %u, the output %u", n_kept, rank(c, out));
  return strided_copy(c, in, out, r, start, step, count);
}

/* SLICE: begin and size (-1: to the end) per axis. */
static mp_status lower_slice_op(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || in_t(c, 1) < 0 || in_t(c, 2) < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, begin, size and an output");
  uint32_t r = rank(c, in), nb, ns;
  int64_t b[MPK_MAX_DIMS], sz[MPK_MAX_DIMS], step[MPK_MAX_DIMS];
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!mp_lower_const_ints(c, in_t(c, 1), b, MPK_MAX_DIMS, &nb) ||
      !mp_lower_const_ints(c, in_t(c, 2), sz, MPK_MAX_DIMS, &ns))
    return mp_lower_unsupported(c, "begin and size must be constant vectors");
  if (nb != r || ns != r || rank(c, out) != r)
    return mp_lower_malformed(c, "begin and size need %u entries", r);
  for (uint32_t d = 0; d < r; d++) {
    int64_t size = dim(c, in, d);
    if (sz[d] == -1) sz[d] = size - b[d];
    if (b[d] < 0 || sz[d] < 0 || b[d] + sz[d] > size || dim(c, out, d) != sz[d])
      return mp_lower_malformed(c, "axis %u: begin %lld size %lld of %lld, output %d", d,
                                (long long)b[d], (long long)sz[d], (long long)size, dim(c, out, d));
    step[d] = 1;
  }
  return strided_copy(c, in, out, r, b, step, sz);
}

/* One constant integer (an axis tensor). */
static bool const_scalar(const mp_lower_ctx *c, int32_t t, int64_t *v) {
  uint32_t n = 0;
  return t >= 0 && mp_lower_const_ints(c, t, v, 1, &n) && n == 1;
}

/* SPLIT, SPLIT_V, UNPACK: the input as `outer` rows of the outputs'
 * slices along `axis` laid end to end. */
static mp_status lower_split(mp_lower_ctx *c) {
  int32_t code = c->op->builtin_code;
  int32_t in = code == OP_SPLIT ? in_t(c, 1) : in_t(c, 0);
  uint32_t n = c->op->n_outputs;
  if (in < 0 || n < 1) return mp_lower_malformed(c, "needs an input and outputs");
  int64_t axis = 0;
  if (code == OP_UNPACK) {
    mp_lower_opts o;
    mp_status st = mp_lower_open_opts(c, OPT_UNPACK, "UnpackOptions", &o);
    if (st != MP_OK) return st;
    axis = mp_lower_opt_i32(&o, 1, 0);
    if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  } else if (!const_scalar(c, code == OP_SPLIT ? in_t(c, 0) : in_t(c, 2), &axis)) {
    return mp_lower_unsupported(c, "the axis must be a constant");
  }
  uint32_t r = rank(c, in);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r)
    return mp_lower_malformed(c, "axis %lld out of range", (long long)axis);
  int32_t es = common_elem_size(c, in);
  if (!es) return MP_OK;
  uint64_t outer = 1, inner = (uint64_t)es;
  for (uint32_t d = 0; d < (uint32_t)axis; d++)
    outer *= (uint64_t)dim(c, in, d);
  for (uint32_t d = (uint32_t)axis + 1; d < r; d++)
    inner *= (uint64_t)dim(c, in, d);
  int32_t *bytes = mp_lower_add_array(c->lo, "output_bytes", n);
  if (!bytes) return MP_ERR_NOMEM;
  uint64_t along = 0;
  for (uint32_t k = 0; k < n; k++) {
    int32_t t = c->op->outputs[k];
    if (t < 0 || dtype(c, t) != dtype(c, in))
      return mp_lower_malformed(c, "output %u does not match the input's type", k);
    /* UNPACK drops the axis; SPLIT and SPLIT_V keep it */
    uint64_t slice =
        code == OP_UNPACK ? 1 : (rank(c, t) == r ? (uint64_t)dim(c, t, (uint32_t)axis) : 0);
    if (elems(c, t) != outer * slice * (inner / (uint64_t)es))
      return mp_lower_malformed(c, "output %u has %llu elements, not a slice of the input", k,
                                (unsigned long long)elems(c, t));
    if (slice * inner > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "slice too large");
    bytes[k] = (int32_t)(slice * inner);
    along += slice;
  }
  if (along != (uint64_t)dim(c, in, (uint32_t)axis) || outer > (uint64_t)INT32_MAX)
    return mp_lower_malformed(c, "the outputs take %llu of the input's %d along axis %lld",
                              (unsigned long long)along, dim(c, in, (uint32_t)axis),
                              (long long)axis);
  mpk_split_params *p = &c->lo->params.split;
  p->n_outputs = (int32_t)n;
  p->outer = (int32_t)outer;
  p->output_bytes = bytes;
  mp_lower_set_kernel(c, MP_K_SPLIT);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_array_arg(c, c->op->outputs, n, "void *const *");
  c->lo->args[c->lo->n_args - 1].is_output = true;
  return MP_OK;
}

/* PACK: a CONCATENATION of the inputs along the new axis. */
static mp_status lower_pack(mp_lower_ctx *c) {
  int32_t out = out_t(c, 0);
  uint32_t n = c->op->n_inputs;
  if (out < 0 || n < 1) return mp_lower_malformed(c, "needs inputs and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_PACK, "PackOptions", &o);
  if (st != MP_OK) return st;
  int64_t axis = mp_lower_opt_i32(&o, 1, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  uint32_t r = rank(c, out);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r)
    return mp_lower_malformed(c, "axis %lld out of range", (long long)axis);
  int32_t es = common_elem_size(c, out);
  if (!es) return MP_OK;
  if ((uint32_t)dim(c, out, (uint32_t)axis) != n)
    return mp_lower_malformed(c, "%u inputs packed into %d", n, dim(c, out, (uint32_t)axis));
  uint64_t outer = 1, inner = (uint64_t)es;
  for (uint32_t d = 0; d < (uint32_t)axis; d++)
    outer *= (uint64_t)dim(c, out, d);
  for (uint32_t d = (uint32_t)axis + 1; d < r; d++)
    inner *= (uint64_t)dim(c, out, d);
  if (inner > (uint64_t)INT32_MAX || outer > (uint64_t)INT32_MAX)
    return mp_lower_unsupported(c, "slice too large");
  int32_t *bytes = mp_lower_add_array(c->lo, "input_bytes", n);
  if (!bytes) return MP_ERR_NOMEM;
  for (uint32_t k = 0; k < n; k++) {
    int32_t t = c->op->inputs[k];
    if (t < 0 || dtype(c, t) != dtype(c, out) || elems(c, t) * (uint64_t)es != outer * inner)
      return mp_lower_malformed(c, "input %u does not match the output", k);
    bytes[k] = (int32_t)inner;
  }
  mpk_concat_params *p = &c->lo->params.concat;
  p->n_inputs = (int32_t)n;
  p->outer = (int32_t)outer;
  p->input_bytes = bytes;
  mp_lower_set_kernel(c, MP_K_CONCAT);
  mp_lower_add_array_arg(c, c->op->inputs, n, "const void *const *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_gather(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), coords = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || coords < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, indices and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_GATHER, "GatherOptions", &o);
  if (st != MP_OK) return st;
  int64_t axis = mp_lower_opt_i32(&o, 0, 0), batch_dims = mp_lower_opt_i32(&o, 1, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (dtype(c, coords) != MP_DTYPE_INT32)
    return mp_lower_unsupported(c, "%s indices (supported: int32)",
                                mp_dtype_name(dtype(c, coords)));
  uint32_t r = rank(c, in), rc = rank(c, coords);
  if (axis < 0) axis += r;
  if (batch_dims < 0) batch_dims += rc;
  if (axis < 0 || axis >= r || batch_dims < 0 || batch_dims > axis || batch_dims > rc)
    return mp_lower_malformed(c, "axis %lld, batch_dims %lld out of range", (long long)axis,
                              (long long)batch_dims);
  int32_t es = common_elem_size(c, in);
  if (!es) return MP_OK;
  uint64_t batch = 1, outer = 1, inner = 1, coord = 1;
  for (uint32_t d = 0; d < (uint32_t)batch_dims; d++) {
    if (dim(c, in, d) != dim(c, coords, d))
      return mp_lower_malformed(c, "batch dimension %u differs between input and indices", d);
    batch *= (uint64_t)dim(c, in, d);
  }
  for (uint32_t d = (uint32_t)batch_dims; d < (uint32_t)axis; d++)
    outer *= (uint64_t)dim(c, in, d);
  for (uint32_t d = (uint32_t)axis + 1; d < r; d++)
    inner *= (uint64_t)dim(c, in, d);
  for (uint32_t d = (uint32_t)batch_dims; d < rc; d++)
    coord *= (uint64_t)dim(c, coords, d);
  if (dtype(c, out) != dtype(c, in) || elems(c, out) != batch * outer * coord * inner)
    return mp_lower_malformed(c, "output has %llu elements, the gather gives %llu",
                              (unsigned long long)elems(c, out),
                              (unsigned long long)(batch * outer * coord * inner));
  if (elems(c, in) > (uint64_t)INT32_MAX || elems(c, out) > (uint64_t)INT32_MAX)
    return mp_lower_unsupported(c, "more than 2^31 elements");
  mpk_gather_params *p = &c->lo->params.gather;
  p->elem_size = es;
  p->batch_size = (int32_t)batch;
  p->outer_size = (int32_t)outer;
  p->axis_size = dim(c, in, (uint32_t)axis);
  p->coord_size = (int32_t)coord;
  p->inner_size = (int32_t)inner;
  mp_lower_set_kernel(c, MP_K_GATHER);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, coords, false, "const int32_t *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

/* MIRROR_PAD: constant paddings [rank, 2] (int32 or int64); REFLECT pads
 * at most n - 1 on either side of an axis of n, SYMMETRIC at most n, as
 * TensorFlow's MirrorPad requires (TFLM would read outside its input). */
static mp_status lower_mirror_pad(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), pads = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || pads < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, paddings and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_MIRROR_PAD, "MirrorPadOptions", &o);
  if (st != MP_OK) return st;
  int32_t mode = mp_lower_opt_i8(&o, 0, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (mode != 0 && mode != 1) return mp_lower_malformed(c, "mode %d (REFLECT 0, SYMMETRIC 1)", mode);
  if (dtype(c, out) != dtype(c, in))
    return mp_lower_malformed(c, "input %s, output %s", mp_dtype_name(dtype(c, in)),
                              mp_dtype_name(dtype(c, out)));
  if (!same_movable_type(c, in, out)) return MP_OK;
  uint32_t r = rank(c, in), n = 0;
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  int32_t n_in, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  int64_t pv[2 * MPK_MAX_DIMS];
  if (!mp_lower_const_ints(c, pads, pv, 2 * MPK_MAX_DIMS, &n))
    return mp_lower_unsupported(c, "paddings are not a constant int32/int64 tensor");
  if (n != 2 * r || rank(c, out) != r)
    return mp_lower_malformed(c, "paddings do not match rank %u", r);
  mpk_mirror_pad_params *p = &c->lo->params.mirror_pad;
  p->elem_size = mp_lower_elem_size(dtype(c, in));
  p->reflect = mode == 0 ? 1 : 0;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    p->in_dims[d] = p->out_dims[d] = 1;
    p->before[d] = 0;
  }
  for (uint32_t d = 0; d < r; d++) {
    uint32_t e = MPK_MAX_DIMS - r + d;
    int64_t size = dim(c, in, d), most = size - p->reflect;
    if (pv[2 * d] < 0 || pv[2 * d + 1] < 0 || pv[2 * d] > most || pv[2 * d + 1] > most)
      return mp_lower_malformed(c,
                                "paddings %lld, %lld of dimension %u (size %lld): %s allows 0 to "
                                "%lld",
                                (long long)pv[2 * d], (long long)pv[2 * d + 1], d,
                                (long long)size, mode == 0 ? "REFLECT" : "SYMMETRIC",
                                (long long)most);
    if (size + pv[2 * d] + pv[2 * d + 1] != dim(c, out, d))
      return mp_lower_malformed(c, "output dimension %u is %d, padding gives %lld", d,
                                dim(c, out, d), (long long)(size + pv[2 * d] + pv[2 * d + 1]));
    p->in_dims[e] = (int32_t)size;
    p->out_dims[e] = dim(c, out, d);
    p->before[e] = (int32_t)pv[2 * d];
  }
  mp_lower_set_kernel(c, MP_K_MIRROR_PAD);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

mp_status mp_lower_slice(mp_lower_ctx *c) {
  switch (c->op->builtin_code) {
  case OP_STRIDED_SLICE: return lower_strided_slice(c);
  case OP_SLICE: return lower_slice_op(c);
  case OP_PACK: return lower_pack(c);
  case OP_GATHER: return lower_gather(c);
  case OP_DEPTH_TO_SPACE:
  case OP_SPACE_TO_DEPTH: return lower_block_move(c);
  case OP_MIRROR_PAD: return lower_mirror_pad(c);
  default: return lower_split(c); /* SPLIT, SPLIT_V, UNPACK */
  }
}
