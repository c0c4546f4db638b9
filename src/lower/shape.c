/*
 * shape.c — the data-movement operators onto runtime/kernels/ref/
 * mpk_shape.c: RESHAPE, SQUEEZE, EXPAND_DIMS and BITCAST (a view, or a
 * copy where the planner could not alias it), PAD and PADV2, TRANSPOSE
 * and CONCATENATION; and SHAPE (the static dimensions as int32).
 *
 * The one idea: these kernels move whole elements of 1 to 8 bytes and do
 * no arithmetic, so one kernel serves every type; the lowering checks the
 * quantisation that must match on both sides and extends every shape to
 * MPK_MAX_DIMS.  A CONCATENATION whose inputs views.c placed in its output
 * copies only the others.
 *
 * Not here: negative padding, MIRROR_PAD (slice.c), fused activations on
 * CONCATENATION.
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include <string.h>

/* BuiltinOptions union type id, and ActivationFunctionType NONE. */
enum { OPT_CONCATENATION = 10 };
enum { ACT_NONE = 0 };

const fdesc mp_lower_copy_fields[] = {F_I32(mpk_copy_params, bytes), F_END};

const fdesc mp_lower_pad_fields[] = {
    F_I32(mpk_pad_params, elem_size),  F_I32X6(mpk_pad_params, in_dims),
    F_I32X6(mpk_pad_params, out_dims), F_I32X6(mpk_pad_params, before),
    F_U8X4(mpk_pad_params, value),     F_END};

const fdesc mp_lower_transpose_fields[] = {F_I32(mpk_transpose_params, elem_size),
                                         F_I32X6(mpk_transpose_params, out_dims),
                                         F_I32X6(mpk_transpose_params, in_strides), F_END};
const fdesc mp_lower_concat_fields[] = {F_I32(mpk_concat_params, n_inputs),
                                      F_I32(mpk_concat_params, outer),
                                      F_PTR(mpk_concat_params, input_bytes, "input_bytes"),
                                      F_PTR_NZ(mpk_concat_params, in_place, "in_place"), F_END};

mp_status mp_lower_view(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return mp_lower_malformed(c, "needs an input and an output");
  if (c->op->is_view) {
    c->lo->supported = true;
    c->lo->noop = true;
    c->lo->kernel = MP_K_NONE;
    return MP_OK;
  }
  uint64_t bytes = c->g->tensors[out].size;
  if (c->g->tensors[in].size != bytes)
    return mp_lower_malformed(c, "input has %llu bytes, output %llu",
                     (unsigned long long)c->g->tensors[in].size, (unsigned long long)bytes);
  if (bytes > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "more than 2 GiB");
  c->lo->params.copy.bytes = (int32_t)bytes;
  mp_lower_set_kernel(c, MP_K_COPY);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

mp_status mp_lower_pad(mp_lower_ctx *c) {
  bool v2 = c->op->builtin_code == OP_PADV2;
  int32_t in = in_t(c, 0), pads = in_t(c, 1), cv = v2 ? in_t(c, 2) : -1, out = out_t(c, 0);
  if (in < 0 || pads < 0 || out < 0) return mp_lower_malformed(c, "needs an input, paddings and an output");
  int32_t dt = dtype(c, in), es = mp_lower_elem_size(dt);
  if (dtype(c, out) != dt || !es || es > 4)
    return mp_lower_unsupported(c, "input %s, output %s", mp_dtype_name(dt), mp_dtype_name(dtype(c, out)));
  uint32_t r = rank(c, in), n = 0;
  int64_t pv[2 * MPK_MAX_DIMS];
  int32_t n_in, n_out;
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  if (!mp_lower_const_ints(c, pads, pv, 2 * MPK_MAX_DIMS, &n))
    return mp_lower_unsupported(c, "paddings are not a constant int32/int64 tensor");
  if (n != 2 * r || rank(c, out) != r) return mp_lower_malformed(c, "paddings do not match rank %u", r);
  mpk_pad_params *p = &c->lo->params.pad;
  p->elem_size = es;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    p->in_dims[d] = p->out_dims[d] = 1;
  for (uint32_t d = 0; d < r; d++) {
    uint32_t e = MPK_MAX_DIMS - r + d;
    if (pv[2 * d] < 0 || pv[2 * d + 1] < 0) return mp_lower_unsupported(c, "negative padding");
    if (pv[2 * d] > INT32_MAX || pv[2 * d + 1] > INT32_MAX)
      return mp_lower_malformed(c, "padding %lld, %lld of dimension %u is beyond 32 bits",
                       (long long)pv[2 * d], (long long)pv[2 * d + 1], d);
    p->in_dims[e] = dim(c, in, d);
    p->out_dims[e] = dim(c, out, d);
    p->before[e] = (int32_t)pv[2 * d];
    if ((int64_t)p->in_dims[e] + pv[2 * d] + pv[2 * d + 1] != p->out_dims[e])
      return mp_lower_malformed(c, "output dimension %u is %d, padding gives %lld", d, p->out_dims[e],
                       (long long)(p->in_dims[e] + pv[2 * d] + pv[2 * d + 1]));
  }
  /* the pad value: constant_values, else the zero point (int8) or zero */
  memset(p->value, 0, sizeof p->value);
  if (cv >= 0) {
    if (!is_const(c, cv) || dtype(c, cv) != dt || c->g->tensors[cv].size < (uint64_t)es)
      return mp_lower_unsupported(c, "constant_values is not a constant of the input's type");
    memcpy(p->value, c->g->tensors[cv].data, (size_t)es);
  } else if (dt == MP_DTYPE_INT8 || dt == MP_DTYPE_UINT8) {
    float s;
    int32_t zp = 0;
    if (quant(c, out, &s, &zp)) p->value[0] = (uint8_t)zp;
  }
  mp_lower_set_kernel(c, MP_K_PAD);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  mp_lower_add_overlap(c->lo, 0, 1, mpk_pad_overlap_gap(p));
  return MP_OK;
}

mp_status mp_lower_transpose(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), perm = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || perm < 0 || out < 0)
    return mp_lower_malformed(c, "needs an input, a permutation and an output");
  int32_t dt = dtype(c, in), es = mp_lower_elem_size(dt);
  if (dtype(c, out) != dt || !es) return mp_lower_unsupported(c, "element type %s", mp_dtype_name(dt));
  uint32_t r = rank(c, in), n = 0;
  int64_t pv[MPK_MAX_DIMS];
  if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!mp_lower_const_ints(c, perm, pv, MPK_MAX_DIMS, &n))
    return mp_lower_unsupported(c, "permutation is not a constant tensor");
  if (n != r || rank(c, out) != r) return mp_lower_malformed(c, "permutation does not match rank %u", r);
  int32_t idims[MPK_MAX_DIMS], istr[MPK_MAX_DIMS];
  if (!mp_lower_extend_shape(c, in, idims)) return mp_lower_unsupported(c, "more than 2^31 elements");
  mp_lower_strides_of(idims, istr);
  mpk_transpose_params *p = &c->lo->params.transpose;
  p->elem_size = es;
  bool seen[MPK_MAX_DIMS] = {false};
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    p->out_dims[d] = 1;
    p->in_strides[d] = 0;
  }
  for (uint32_t d = 0; d < r; d++) {
    int64_t a = pv[d] < 0 ? pv[d] + r : pv[d];
    if (a < 0 || a >= r || seen[a]) return mp_lower_malformed(c, "permutation is not one of rank %u", r);
    seen[a] = true;
    uint32_t e = MPK_MAX_DIMS - r + d, src = MPK_MAX_DIMS - r + (uint32_t)a;
    p->out_dims[e] = idims[src];
    p->in_strides[e] = istr[src];
    if (dim(c, out, d) != idims[src])
      return mp_lower_malformed(c, "output dimension %u is %d, the permutation gives %d", d, dim(c, out, d),
                       idims[src]);
  }
  mp_lower_set_kernel(c, MP_K_TRANSPOSE);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

mp_status mp_lower_concat(mp_lower_ctx *c) {
  int32_t out = out_t(c, 0);
  uint32_t n = c->op->n_inputs;
  if (out < 0 || n < 1) return mp_lower_malformed(c, "needs inputs and an output");
  mp_lower_opts o;
  mp_status st = mp_lower_open_opts(c, OPT_CONCATENATION, "ConcatenationOptions", &o);
  if (st != MP_OK) return st;
  int32_t axis = mp_lower_opt_i32(&o, 0, 0), act = mp_lower_opt_i8(&o, 1, 0);
  if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  if (act != ACT_NONE) return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
  int32_t dt = dtype(c, out), es = mp_lower_elem_size(dt);
  uint32_t r = rank(c, out);
  if (!es) return mp_lower_unsupported(c, "element type %s", mp_dtype_name(dt));
  if (axis < 0) axis += (int32_t)r;
  if (axis < 0 || axis >= (int32_t)r) return mp_lower_malformed(c, "axis %d out of range", axis);
  float so = 0;
  int32_t zo = 0;
  bool qo = quant(c, out, &so, &zo);
  uint64_t outer = 1;
  for (int32_t d = 0; d < axis; d++)
    outer *= (uint64_t)(dim(c, out, (uint32_t)d) > 0 ? dim(c, out, (uint32_t)d) : 0);
  if (outer > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "more than 2^31 slices");
  int32_t *bytes = mp_lower_add_array(c->lo, "input_bytes", n);
  if (!bytes) return MP_ERR_NOMEM;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    int32_t t = c->op->inputs[i];
    if (t < 0 || dtype(c, t) != dt || rank(c, t) != r)
      return mp_lower_malformed(c, "input %u does not match the output's type and rank", i);
    float si;
    int32_t zi;
    if (qo && (!quant(c, t, &si, &zi) || si != so || zi != zo))
      return mp_lower_unsupported(c, "input %u is quantised differently from the output", i);
    uint64_t inner = 1;
    for (uint32_t d = (uint32_t)axis; d < r && inner <= (uint64_t)INT32_MAX; d++)
      inner *= (uint64_t)(dim(c, t, d) > 0 ? dim(c, t, d) : 0);
    if (inner * (uint64_t)es > (uint64_t)INT32_MAX) return mp_lower_unsupported(c, "slice too large");
    bytes[i] = (int32_t)(inner * (uint64_t)es);
    total += inner * (uint64_t)es;
  }
  if (total * outer != c->g->tensors[out].size)
    return mp_lower_malformed(c, "inputs add up to %llu bytes, output has %llu",
                     (unsigned long long)(total * outer),
                     (unsigned long long)c->g->tensors[out].size);
  mpk_concat_params *p = &c->lo->params.concat;
  p->n_inputs = (int32_t)n;
  p->outer = (int32_t)outer;
  p->input_bytes = bytes;
  /* a partly elided concatenation (views.c): the inputs that are strided
   * views of the output at their slices are there already */
  uint64_t k = 0;
  int32_t *in_place = NULL;
  for (uint32_t i = 0; i < n && !c->op->is_view; k += (uint64_t)bytes[i], i++) {
    const mp_tensor *x = &c->g->tensors[c->op->inputs[i]];
    if (x->alias_of != out || !x->alias_stride || x->alias_stride != total ||
        x->alias_row != (uint64_t)bytes[i] || x->alias_offset != k)
      continue;
    if (!in_place) {
      if (!(in_place = mp_lower_add_array(c->lo, "in_place", n))) return MP_ERR_NOMEM;
      memset(in_place, 0, n * sizeof *in_place);
    }
    in_place[i] = 1;
  }
  p->in_place = in_place;
  mp_lower_set_kernel(c, MP_K_CONCAT);
  mp_lower_add_array_arg(c, c->op->inputs, n, "const void *const *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

/* SHAPE.  graph/fold.c computes every SHAPE it can at convert time with
 * this lowering and mpk_shape; one whose output is a graph output runs on
 * the device.  The output is int32 (TensorFlow Lite Micro refuses int64). */
const fdesc mp_lower_shape_fields[] = {F_I32(mpk_shape_params, rank),
                                       F_I32X6(mpk_shape_params, dims), F_END};

mp_status mp_lower_shape(mp_lower_ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0 || c->op->n_outputs != 1)
    return mp_lower_malformed(c, "needs an input and one output");
  if (dtype(c, out) != MP_DTYPE_INT32)
    return mp_lower_unsupported(c, "%s output (supported: int32; TensorFlow Lite Micro refuses "
                                   "int64 too)",
                                mp_dtype_name(dtype(c, out)));
  uint32_t r = rank(c, in);
  if (rank(c, out) != 1 || dim(c, out, 0) != (int32_t)r)
    return mp_lower_malformed(c, "output must be a vector of %u elements, the input's rank", r);
  if (r > MPK_MAX_DIMS)
    return mp_lower_unsupported(c, "input of rank %u (at most %d)", r, MPK_MAX_DIMS);
  mpk_shape_params *p = &c->lo->params.shape;
  p->rank = (int32_t)r;
  for (uint32_t d = 0; d < r; d++) {
    if (dim(c, in, d) < 0) return mp_lower_unsupported(c, "input with a dynamic dimension");
    p->dims[d] = dim(c, in, d);
  }
  mp_lower_set_kernel(c, MP_K_SHAPE);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "int32_t *");
  return MP_OK;
}
