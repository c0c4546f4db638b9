/*
 * lower_slice.c — lowering of the slicing operators onto
 * runtime/kernels/ref/mpk_slice.c: STRIDED_SLICE and SLICE become one strided
 * copy, SPLIT, SPLIT_V and UNPACK one split (the inverse of
 * CONCATENATION), PACK a CONCATENATION along the new axis, GATHER a
 * gather of rows; DEPTH_TO_SPACE and SPACE_TO_DEPTH one strided copy that
 * walks the output as six axes (batch, rows, block row, columns, block
 * column, channels) over the input; MIRROR_PAD a walk of the output that
 * reads each element's mirror image in the input.  REVERSE_V2 is a strided
 * copy with negative strides, BROADCAST_TO and FILL strided copies with
 * zero strides (FILL's value read for every element), EMBEDDING_LOOKUP a
 * GATHER of rows; SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND one walk of the
 * batch side (mpk_space_batch), GATHER_ND a gather of slices and
 * ZEROS_LIKE zero bytes.
 *
 * The begin / end / stride tensors, sizes and axes must be constants: they
 * are resolved here, with TensorFlow Lite Micro's rules (negative indices,
 * clamping, begin / end / shrink masks, `offset`), and the output shape
 * the model declares must be the one they give.  GATHER's, GATHER_ND's and
 * EMBEDDING_LOOKUP's indices may be computed at run time; their kernels
 * check them (constant ones are checked here).
 *
 * Not here: ellipsis and new-axis masks, non-constant begin / end /
 * sizes, int64 GATHER indices, non-constant block shapes, paddings,
 * crops, axes and dims, EMBEDDING_LOOKUP's int8-to-float32 (hybrid) form.
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
const fdesc mp_lower_space_batch_fields[] = {
    F_I32(mpk_space_batch_params, elem_size), F_I32(mpk_space_batch_params, to_batch),
    F_I32(mpk_space_batch_params, batch),     F_I32(mpk_space_batch_params, space_h),
    F_I32(mpk_space_batch_params, space_w),   F_I32(mpk_space_batch_params, depth),
    F_I32(mpk_space_batch_params, block_h),   F_I32(mpk_space_batch_params, block_w),
    F_I32(mpk_space_batch_params, batch_h),   F_I32(mpk_space_batch_params, batch_w),
    F_I32(mpk_space_batch_params, top),       F_I32(mpk_space_batch_params, left),
    F_I32(mpk_space_batch_params, pad_value), F_END};
const fdesc mp_lower_gather_nd_fields[] = {F_I32(mpk_gather_nd_params, elem_size),
                                           F_I32(mpk_gather_nd_params, n_slices),
                                           F_I32(mpk_gather_nd_params, index_depth),
                                           F_I32(mpk_gather_nd_params, slice_size),
                                           F_I32(mpk_gather_nd_params, params_size),
                                           F_I32X6(mpk_gather_nd_params, strides),
                                           F_END};
const fdesc mp_lower_zeros_fields[] = {F_I32(mpk_zeros_params, bytes), F_END};
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

/* Input and output of one element type among `ok` (a bit per MP_DTYPE
 * value), quantised types with one quantisation on both sides; else the op
 * is reported (unsupported, or malformed for differing types) and false
 * returned.  `names` lists the types for the reason. */
static bool same_type_of(mp_lower_ctx *c, int32_t in, int32_t out, uint32_t ok, const char *names,
                         mp_status *st) {
  int32_t dt = dtype(c, in);
  *st = MP_OK;
  if (dtype(c, out) != dt) {
    *st = mp_lower_malformed(c, "input %s, output %s", mp_dtype_name(dt),
                             mp_dtype_name(dtype(c, out)));
    return false;
  }
  if (dt < 0 || dt > 31 || !((ok >> dt) & 1u)) {
    mp_lower_unsupported(c, "element type %s (supported: %s)", mp_dtype_name(dt), names);
    return false;
  }
  if (dt != MP_DTYPE_INT8 && dt != MP_DTYPE_INT16) return true;
  return same_movable_type(c, in, out);
}

#define T_BIT(t) (1u << (t))
#define MOVABLE (T_BIT(MP_DTYPE_INT8) | T_BIT(MP_DTYPE_INT16) | T_BIT(MP_DTYPE_FLOAT32))

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND: NHWC, or 3-D [N, H, C] as
 * width 1 (TFLM's rule); constant block_shape (one entry per spatial
 * axis, each 1 or more) and paddings / crops ([spatial, 2], 0 or more).
 * SPACE_TO_BATCH_ND: the padded input [N, top + H + bottom, ...] is cut
 * into blocks, output batch (i * block_w + j) * N + n holding the padded
 * input's rows i, i + block_h, ... and columns j, j + block_w, ...; the
 * padding is the output zero point (0 for float32), as TFLM fills it.
 * BATCH_TO_SPACE_ND is its inverse, the crops cut from the result. */
static mp_status lower_space_batch(mp_lower_ctx *c) {
  bool to_batch = c->op->builtin_code == OP_SPACE_TO_BATCH_ND;
  const char *what = to_batch ? "paddings" : "crops";
  int32_t in = in_t(c, 0), blk = in_t(c, 1), pads = in_t(c, 2), out = out_t(c, 0);
  if (in < 0 || blk < 0 || pads < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, block_shape, %s and an output", what);
  mp_status st;
  if (!same_type_of(c, in, out, MOVABLE, "int8, int16, float32", &st)) return st;
  uint32_t r = rank(c, in);
  if (r != 3 && r != 4) return mp_lower_unsupported(c, "rank %u (supported: 3 and 4, as TFLM)", r);
  if (rank(c, out) != r)
    return mp_lower_malformed(c, "input rank %u, output rank %u", r, rank(c, out));
  uint32_t sp = r - 2, nb = 0, np = 0;
  int64_t b[2] = {1, 1}, pv[4] = {0, 0, 0, 0};
  if (!mp_lower_const_ints(c, blk, b, 2, &nb) || !mp_lower_const_ints(c, pads, pv, 4, &np))
    return mp_lower_unsupported(c, "block_shape and %s must be constant int32/int64 tensors", what);
  if (nb != sp || np != 2 * sp)
    return mp_lower_malformed(c, "block_shape has %u and %s %u entries for %u spatial axes", nb,
                              what, np, sp);
  if (sp == 1) b[1] = 1, pv[2] = pv[3] = 0;
  for (uint32_t k = 0; k < 2; k++) {
    if (b[k] < 1 || b[k] > INT32_MAX)
      return mp_lower_malformed(c, "block_shape %lld (needs 1 or more)", (long long)b[k]);
    if (pv[2 * k] < 0 || pv[2 * k + 1] < 0 || pv[2 * k] > INT32_MAX || pv[2 * k + 1] > INT32_MAX)
      return mp_lower_malformed(c, "%s %lld, %lld (need 0 or more)", what, (long long)pv[2 * k],
                                (long long)pv[2 * k + 1]);
  }
  /* the space side and the batch side as [N, H, W, C] */
  int32_t sd = to_batch ? in : out, bd = to_batch ? out : in;
  int64_t s4[4], b4[4];
  for (uint32_t k = 0, d = 0; k < 4; k++) {
    bool w1 = r == 3 && k == 2;
    s4[k] = w1 ? 1 : dim(c, sd, d);
    b4[k] = w1 ? 1 : dim(c, bd, d);
    if (!w1) d++;
  }
  int64_t n = s4[0], want[4];
  if (to_batch) {
    int64_t ph = pv[0] + s4[1] + pv[1], pw = pv[2] + s4[2] + pv[3];
    if (ph % b[0] || pw % b[1])
      return mp_lower_malformed(c,
                                "padded height %lld and width %lld are not multiples of "
                                "block_shape %lld, %lld",
                                (long long)ph, (long long)pw, (long long)b[0], (long long)b[1]);
    want[0] = n * b[0] * b[1], want[1] = ph / b[0], want[2] = pw / b[1], want[3] = s4[3];
    for (uint32_t k = 0; k < 4; k++)
      if (b4[k] != want[k])
        return mp_lower_malformed(c,
                                  "output [%lld,%lld,%lld,%lld], the operator gives "
                                  "[%lld,%lld,%lld,%lld]",
                                  (long long)b4[0], (long long)b4[1], (long long)b4[2],
                                  (long long)b4[3], (long long)want[0], (long long)want[1],
                                  (long long)want[2], (long long)want[3]);
  } else {
    if (b4[0] % (b[0] * b[1]))
      return mp_lower_malformed(c, "input batch %lld is not a multiple of block_shape %lld x %lld",
                                (long long)b4[0], (long long)b[0], (long long)b[1]);
    int64_t h = b4[1] * b[0] - pv[0] - pv[1], w = b4[2] * b[1] - pv[2] - pv[3];
    if (h < 0 || w < 0)
      return mp_lower_malformed(c,
                                "crops %lld, %lld, %lld, %lld are more than the %lld x %lld "
                                "the blocks give",
                                (long long)pv[0], (long long)pv[1], (long long)pv[2],
                                (long long)pv[3], (long long)(b4[1] * b[0]),
                                (long long)(b4[2] * b[1]));
    n = b4[0] / (b[0] * b[1]);
    want[0] = n, want[1] = h, want[2] = w, want[3] = b4[3];
    for (uint32_t k = 0; k < 4; k++)
      if (s4[k] != want[k])
        return mp_lower_malformed(c,
                                  "output [%lld,%lld,%lld,%lld], the operator gives "
                                  "[%lld,%lld,%lld,%lld]",
                                  (long long)s4[0], (long long)s4[1], (long long)s4[2],
                                  (long long)s4[3], (long long)want[0], (long long)want[1],
                                  (long long)want[2], (long long)want[3]);
  }
  int32_t n_in, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  mpk_space_batch_params *p = &c->lo->params.space_batch;
  p->elem_size = mp_lower_elem_size(dtype(c, in));
  p->to_batch = to_batch ? 1 : 0;
  p->batch = (int32_t)n;
  p->space_h = (int32_t)s4[1], p->space_w = (int32_t)s4[2], p->depth = (int32_t)s4[3];
  p->block_h = (int32_t)b[0], p->block_w = (int32_t)b[1];
  p->batch_h = (int32_t)b4[1], p->batch_w = (int32_t)b4[2];
  p->top = (int32_t)pv[0], p->left = (int32_t)pv[2];
  float so = 0;
  int32_t zo = 0;
  p->pad_value = dtype(c, out) != MP_DTYPE_FLOAT32 && quant(c, out, &so, &zo) ? zo : 0;
  mp_lower_set_kernel(c, MP_K_SPACE_BATCH);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

/* REVERSE_V2: constant axes (int32 or int64, negative from the end), each
 * axis reversed at most once. */
static mp_status lower_reverse(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), ax = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || ax < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, axis and an output");
  mp_status st;
  if (!same_type_of(c, in, out, MOVABLE | T_BIT(MP_DTYPE_INT32), "int8, int16, int32, float32",
                    &st))
    return st;
  uint32_t r = rank(c, in), na = 0;
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  int64_t axes[MPK_MAX_DIMS];
  if (!mp_lower_const_ints(c, ax, axes, MPK_MAX_DIMS, &na))
    return mp_lower_unsupported(c, "the axis must be a constant int32/int64 vector");
  if (rank(c, out) != r)
    return mp_lower_malformed(c, "output rank %u for input rank %u", rank(c, out), r);
  int64_t start[MPK_MAX_DIMS], step[MPK_MAX_DIMS], count[MPK_MAX_DIMS];
  for (uint32_t d = 0; d < r; d++) {
    if (dim(c, out, d) != dim(c, in, d))
      return mp_lower_malformed(c, "output dimension %u is %d, the input's %d", d, dim(c, out, d),
                                dim(c, in, d));
    start[d] = 0, step[d] = 1, count[d] = dim(c, in, d);
  }
  for (uint32_t k = 0; k < na; k++) {
    int64_t a = axes[k] < 0 ? axes[k] + r : axes[k];
    if (a < 0 || a >= r)
      return mp_lower_malformed(c, "axis %lld out of range for rank %u", (long long)axes[k], r);
    if (step[a] < 0) return mp_lower_malformed(c, "axis %lld given twice", (long long)axes[k]);
    step[a] = -1;
    start[a] = count[a] > 0 ? count[a] - 1 : 0;
  }
  return strided_copy(c, in, out, r, start, step, count);
}

/* BROADCAST_TO: the constant shape (int32 or int64) must be the output's;
 * the input's axes, aligned at the end, are 1 (read with stride 0) or the
 * output's. */
static mp_status lower_broadcast_to(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), sh = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || sh < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, shape and an output");
  if (dtype(c, out) != dtype(c, in))
    return mp_lower_malformed(c, "input %s, output %s", mp_dtype_name(dtype(c, in)),
                              mp_dtype_name(dtype(c, out)));
  if (!common_elem_size(c, in)) return MP_OK;
  uint32_t ro = rank(c, out), ri = rank(c, in), ns = 0;
  if (ro > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", ro, MPK_MAX_DIMS);
  int64_t shape[MPK_MAX_DIMS];
  if (!mp_lower_const_ints(c, sh, shape, MPK_MAX_DIMS, &ns))
    return mp_lower_unsupported(c, "the shape must be a constant int32/int64 vector");
  if (ns != ro || ri > ro)
    return mp_lower_malformed(c, "shape of %u entries, output rank %u, input rank %u", ns, ro, ri);
  int64_t es_in[MPK_MAX_DIMS], dims[MPK_MAX_DIMS], strides[MPK_MAX_DIMS];
  elem_strides(c, in, es_in);
  for (uint32_t d = 0; d < ro; d++) {
    if (shape[d] != dim(c, out, d))
      return mp_lower_malformed(c, "shape entry %u is %lld, the output's %d", d,
                                (long long)shape[d], dim(c, out, d));
    dims[d] = dim(c, out, d);
    strides[d] = 0;
    if (d + ri >= ro) {
      uint32_t e = d + ri - ro;
      int64_t n = dim(c, in, e);
      if (n != 1 && n != dims[d])
        return mp_lower_malformed(c, "input dimension %u is %lld, output dimension %u %lld", e,
                                  (long long)n, d, (long long)dims[d]);
      strides[d] = n == 1 ? 0 : es_in[e];
    }
  }
  return walk_copy(c, in, out, ro, dims, strides, 0);
}

/* FILL: constant dims (the output's shape), a scalar value that may be
 * computed at run time, of the output's type (TFLM: float32, int32,
 * int8; its bytes are copied, as TFLM does). */
static mp_status lower_fill(mp_lower_ctx *c) {
  int32_t dims_t = in_t(c, 0), val = in_t(c, 1), out = out_t(c, 0);
  if (dims_t < 0 || val < 0 || out < 0)
    return mp_lower_malformed(c, "needs dims, a value and an output");
  int32_t dt = dtype(c, val);
  if (dtype(c, out) != dt)
    return mp_lower_malformed(c, "value %s, output %s", mp_dtype_name(dt),
                              mp_dtype_name(dtype(c, out)));
  if (dt != MP_DTYPE_INT8 && dt != MP_DTYPE_INT32 && dt != MP_DTYPE_FLOAT32)
    return mp_lower_unsupported(c, "element type %s (supported: int8, int32, float32, as TFLM)",
                                mp_dtype_name(dt));
  if (rank(c, val) != 0)
    return mp_lower_malformed(c, "the value has rank %u (needs a scalar)", rank(c, val));
  uint32_t r = rank(c, out), nd = 0;
  int64_t d[MPK_MAX_DIMS];
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!mp_lower_const_ints(c, dims_t, d, MPK_MAX_DIMS, &nd))
    return mp_lower_unsupported(c, "dims must be a constant int32/int64 vector");
  if (nd != r) return mp_lower_malformed(c, "dims of %u entries for an output of rank %u", nd, r);
  for (uint32_t k = 0; k < r; k++)
    if (d[k] != dim(c, out, k))
      return mp_lower_malformed(c, "dims entry %u is %lld, the output's %d", k, (long long)d[k],
                                dim(c, out, k));
  int32_t n;
  if (!elems_i32(c, out, &n)) return mp_lower_unsupported(c, "more than 2^31 elements");
  const int64_t all = n, zero = 0;
  return walk_copy(c, val, out, 1, &all, &zero, 0);
}

/* ZEROS_LIKE: zero bytes of the input's shape and type (TFLM: int8, int32,
 * int64, float32; zero bytes whatever the quantisation, as TFLM writes). */
static mp_status lower_zeros_like(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  int32_t dt = dtype(c, in);
  if (dtype(c, out) != dt || elems(c, out) != elems(c, in))
    return mp_lower_malformed(c, "the output is not of the input's type and size");
  if (dt != MP_DTYPE_INT8 && dt != MP_DTYPE_INT32 && dt != MP_DTYPE_INT64 && dt != MP_DTYPE_FLOAT32)
    return mp_lower_unsupported(
        c, "element type %s (supported: int8, int32, int64, float32, as TFLM)", mp_dtype_name(dt));
  uint64_t bytes = elems(c, out) * (uint64_t)mp_lower_elem_size(dt);
  if (bytes > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "more than 2^31 bytes");
  c->lo->params.zeros.bytes = (int32_t)bytes;
  mp_lower_set_kernel(c, MP_K_ZEROS);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

/* GATHER_ND: params of rank 1 or more, int32 indices [..., K] with K at
 * most params' rank; the output is indices' leading shape and params'
 * trailing rank - K axes.  A slice outside params is an error at run time
 * (MPK_ERR_INDEX, as TFLM returns one) and a model error for constant
 * indices. */
static mp_status lower_gather_nd(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), idx = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || idx < 0 || out < 0)
    return mp_lower_malformed(c, "needs params, indices and an output");
  mp_status st;
  if (!same_type_of(c, in, out, MOVABLE | T_BIT(MP_DTYPE_INT32), "int8, int16, int32, float32",
                    &st))
    return st;
  if (dtype(c, idx) != MP_DTYPE_INT32)
    return mp_lower_unsupported(c, "%s indices (supported: int32, as TFLM)",
                                mp_dtype_name(dtype(c, idx)));
  uint32_t rp = rank(c, in), ri = rank(c, idx), ro = rank(c, out);
  if (rp < 1 || ri < 1)
    return mp_lower_malformed(c, "params rank %u, indices rank %u (need 1 or more)", rp, ri);
  int64_t k = dim(c, idx, ri - 1);
  if (k < 0 || k > rp)
    return mp_lower_malformed(c, "index depth %lld for params of rank %u", (long long)k, rp);
  if (k > MPK_MAX_DIMS)
    return mp_lower_unsupported(c, "index depth %lld above %d", (long long)k, MPK_MAX_DIMS);
  if (ro != ri - 1 + rp - (uint32_t)k)
    return mp_lower_malformed(c, "output rank %u, the gather gives %u", ro,
                              ri - 1 + rp - (uint32_t)k);
  for (uint32_t d = 0; d + 1 < ri; d++)
    if (dim(c, out, d) != dim(c, idx, d))
      return mp_lower_malformed(c, "output dimension %u is %d, the indices' %d", d, dim(c, out, d),
                                dim(c, idx, d));
  for (uint32_t d = (uint32_t)k; d < rp; d++)
    if (dim(c, out, ri - 1 + d - (uint32_t)k) != dim(c, in, d))
      return mp_lower_malformed(c, "output dimension %u is %d, params' %d",
                                ri - 1 + d - (uint32_t)k, dim(c, out, ri - 1 + d - (uint32_t)k),
                                dim(c, in, d));
  int32_t n_in, n_idx, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, idx, &n_idx) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  int64_t es_in[MPK_MAX_DIMS];
  elem_strides(c, in, es_in);
  mpk_gather_nd_params *p = &c->lo->params.gather_nd;
  p->elem_size = mp_lower_elem_size(dtype(c, in));
  p->index_depth = (int32_t)k;
  p->n_slices = k ? n_idx / (int32_t)k : 0;
  if (!k) { /* no index entries: every index tuple is empty, one slice each */
    int64_t ns = 1;
    for (uint32_t d = 0; d + 1 < ri; d++)
      ns *= dim(c, idx, d);
    p->n_slices = (int32_t)ns;
  }
  p->slice_size = 1;
  for (uint32_t d = (uint32_t)k; d < rp; d++)
    p->slice_size *= dim(c, in, d);
  p->params_size = n_in;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    p->strides[d] = d < k ? (int32_t)es_in[d] : 0;
  if (is_const(c, idx)) { /* constant indices: the kernel's own check, now */
    const uint8_t *raw = c->g->tensors[idx].data;
    if (c->g->tensors[idx].size < (uint64_t)n_idx * 4)
      return mp_lower_malformed(c, "indices data too short");
    for (int32_t i = 0; i < p->n_slices; i++) {
      uint32_t pos = 0;
      for (int32_t e = 0; e < k; e++) {
        int32_t v;
        memcpy(&v, raw + ((size_t)i * (size_t)k + (size_t)e) * 4, 4);
        pos += (uint32_t)v * (uint32_t)p->strides[e];
      }
      if (pos > (uint32_t)INT32_MAX || (int64_t)pos + p->slice_size > p->params_size)
        return mp_lower_malformed(c, "index tuple %d reads outside params", i);
    }
  }
  mp_lower_set_kernel(c, MP_K_GATHER_ND);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, idx, false, "const int32_t *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

/* EMBEDDING_LOOKUP: int32 ids [n], values [rows, ...] (rank 2 or more),
 * output [n, ...]: a GATHER of rows along axis 0, an id outside [0, rows)
 * an error at run time as TFLM returns one.  int8 values into a float32
 * output (TFLM's dequantising form) are refused. */
static mp_status lower_embedding_lookup(mp_lower_ctx *c) {
  int32_t ids = in_t(c, 0), val = in_t(c, 1), out = out_t(c, 0);
  if (ids < 0 || val < 0 || out < 0)
    return mp_lower_malformed(c, "needs ids, values and an output");
  if (dtype(c, ids) != MP_DTYPE_INT32 || rank(c, ids) != 1)
    return mp_lower_malformed(c, "ids must be an int32 vector (TFLM's rule)");
  if (dtype(c, val) == MP_DTYPE_INT8 && dtype(c, out) == MP_DTYPE_FLOAT32)
    return mp_lower_unsupported(c, "int8 values into a float32 output (the dequantising lookup)");
  mp_status st;
  if (!same_type_of(c, val, out, T_BIT(MP_DTYPE_INT8) | T_BIT(MP_DTYPE_FLOAT32), "int8, float32",
                    &st))
    return st;
  uint32_t r = rank(c, val);
  if (r < 2 || rank(c, out) != r)
    return mp_lower_malformed(c, "values of rank %u, output of rank %u (need the same, 2 or more)",
                              r, rank(c, out));
  if (dim(c, out, 0) != dim(c, ids, 0))
    return mp_lower_malformed(c, "output has %d rows for %d ids", dim(c, out, 0), dim(c, ids, 0));
  uint64_t inner = 1;
  for (uint32_t d = 1; d < r; d++) {
    if (dim(c, out, d) != dim(c, val, d))
      return mp_lower_malformed(c, "output dimension %u is %d, the values' %d", d, dim(c, out, d),
                                dim(c, val, d));
    inner *= (uint64_t)dim(c, val, d);
  }
  if (elems(c, val) > (uint64_t)INT32_MAX || elems(c, out) > (uint64_t)INT32_MAX)
    return mp_lower_unsupported(c, "more than 2^31 elements");
  mpk_gather_params *p = &c->lo->params.gather;
  p->elem_size = mp_lower_elem_size(dtype(c, val));
  p->batch_size = 1;
  p->outer_size = 1;
  p->axis_size = dim(c, val, 0);
  p->coord_size = dim(c, ids, 0);
  p->inner_size = (int32_t)inner;
  mp_lower_set_kernel(c, MP_K_GATHER);
  mp_lower_add_arg(c, val, false, "const void *");
  mp_lower_add_arg(c, ids, false, "const int32_t *");
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
  case OP_SPACE_TO_BATCH_ND:
  case OP_BATCH_TO_SPACE_ND: return lower_space_batch(c);
  case OP_REVERSE_V2: return lower_reverse(c);
  case OP_BROADCAST_TO: return lower_broadcast_to(c);
  case OP_FILL: return lower_fill(c);
  case OP_ZEROS_LIKE: return lower_zeros_like(c);
  case OP_GATHER_ND: return lower_gather_nd(c);
  case OP_EMBEDDING_LOOKUP: return lower_embedding_lookup(c);
  default: return lower_split(c); /* SPLIT, SPLIT_V, UNPACK */
  }
}
