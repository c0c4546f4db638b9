/*
 * validate.c — the one consistency check of a model, run by the reader
 * before any later stage sees the model.
 *
 * The reader (model.c) proves the file is a well-formed flatbuffer whose
 * indices are in range.  This file proves the values agree with each
 * other, so that the graph analysis, the lowering and the emitted module
 * can compute with them without checking again:
 *   - every dimension is a size or -1 (unknown), and every shape's element
 *     count times its element width fits in 64 bits;
 *   - every constant's buffer holds exactly the bytes its shape and type
 *     need (a shorter one would make the module read its neighbours);
 *   - quantisation scales are finite and not negative, per-channel scales
 *     match the quantised dimension, and zero points lie in the range of
 *     the tensor's type (the kernels add them in 32-bit arithmetic).
 * The first problem found is reported with the subgraph, the tensor, the
 * field and the byte offset of the tensor's table.
 *
 * Operator options are checked where they are interpreted, in the lowering
 * (src/lower/), with 64-bit arithmetic; sparse tensors and types without a
 * fixed size (string, resource, variant) have no byte count to compare.
 */
#include "read/validate.h"

#include "util/diag.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>

/* Element counts above this cannot be multiplied by any element width
 * (at most 128 bits) without leaving 64 bits. */
#define MAX_ELEMS (UINT64_MAX / 128u)

typedef struct vctx {
  const mp_model *m;
  const mp_diag_sink *dx;
  uint32_t sg;
  const mp_tensor_def *td;
  char shape[96];           /* "int32[1,64]" */
} vctx;

static bool fail(const vctx *v, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(const vctx *v, const char *field, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mp_error_at_byte(v->dx, v->m->path, v->td->pos, "subgraphs[%u].tensors[%u] '%s': %s: %s", v->sg,
                   v->td->index, v->td->name, field, msg);
  return false;
}

static void describe_shape(vctx *v) {
  const mp_tensor_def *td = v->td;
  size_t n = (size_t)snprintf(v->shape, sizeof v->shape, "%s[", mp_dtype_name(td->dtype));
  for (uint32_t d = 0; d < td->rank && n < sizeof v->shape; d++)
    n += (size_t)snprintf(v->shape + n, sizeof v->shape - n, "%s%d", d ? "," : "", td->shape[d]);
  if (n < sizeof v->shape) snprintf(v->shape + n, sizeof v->shape - n, "]");
}

/* The range a zero point of `dtype` must lie in. */
static void zero_point_range(int32_t dtype, int64_t *lo, int64_t *hi) {
  switch (dtype) {
  case MP_DTYPE_INT8: *lo = -128, *hi = 127; return;
  case MP_DTYPE_UINT8: *lo = 0, *hi = 255; return;
  case MP_DTYPE_INT16: *lo = -32768, *hi = 32767; return;
  case MP_DTYPE_UINT16: *lo = 0, *hi = 65535; return;
  case MP_DTYPE_INT4: *lo = -8, *hi = 7; return;
  default: *lo = -INT64_C(2147483647), *hi = INT64_C(2147483647); return;
  }
}

static bool check_dims(const vctx *v, const char *field, const int32_t *dims, uint32_t rank,
                       bool *dynamic, uint64_t *elems) {
  uint64_t n = 1;
  *dynamic = false;
  for (uint32_t d = 0; d < rank; d++) {
    if (dims[d] < -1)
      return fail(v, field, "dimension %u is %d (a size, or -1 for unknown)", d, dims[d]);
    if (dims[d] == -1) {
      *dynamic = true;
      continue;
    }
    if (dims[d] != 0 && n > MAX_ELEMS / (uint64_t)dims[d])
      return fail(v, field, "%s has more than 2^57 elements", v->shape);
    n *= (uint64_t)dims[d];
  }
  *elems = *dynamic ? 0 : n;
  return true;
}

static bool check_quant(const vctx *v, uint64_t elems) {
  const mp_tensor_def *td = v->td;
  const mp_quant *q = &td->quant;
  for (uint32_t i = 0; i < q->n_scale; i++)
    if (!isfinite(q->scale[i]) || q->scale[i] < 0.0f)
      return fail(v, "quantization.scale", "scale[%u] is %g (must be finite and not negative)", i,
                  (double)q->scale[i]);
  if (q->n_scale > 1) {
    /* converters write a bias's quantized_dimension as its filter's (3 for
     * an int32[8] bias): accepted when the tensor has one scale per element */
    int32_t qd = q->quantized_dimension;
    bool one_per_element = elems == q->n_scale;
    if ((qd < 0 || (uint32_t)qd >= td->rank) && !one_per_element)
      return fail(v, "quantization.quantized_dimension",
                  "%d is not a dimension of %s (%u per-channel scales)", qd, v->shape, q->n_scale);
    if (qd >= 0 && (uint32_t)qd < td->rank && td->shape[qd] != (int32_t)q->n_scale)
      return fail(v, "quantization.scale", "%u per-channel scales for dimension %d of %s", q->n_scale,
                  qd, v->shape);
  }
  if (q->n_zero_point > 1 && q->n_zero_point != q->n_scale)
    return fail(v, "quantization.zero_point", "%u zero points for %u scales", q->n_zero_point,
                q->n_scale);
  int64_t lo, hi;
  zero_point_range(td->dtype, &lo, &hi);
  for (uint32_t i = 0; i < q->n_zero_point; i++)
    if (q->zero_point[i] < lo || q->zero_point[i] > hi)
      return fail(v, "quantization.zero_point", "zero_point[%u] is %lld, outside [%lld, %lld] of %s",
                  i, (long long)q->zero_point[i], (long long)lo, (long long)hi,
                  mp_dtype_name(td->dtype));
  return true;
}

static bool check_tensor(vctx *v) {
  const mp_tensor_def *td = v->td;
  describe_shape(v);
  bool dynamic, sig_dynamic;
  uint64_t elems, sig_elems;
  if (!check_dims(v, "shape", td->shape, td->rank, &dynamic, &elems)) return false;
  if (td->has_shape_signature &&
      !check_dims(v, "shape_signature", td->shape_signature, td->rank, &sig_dynamic, &sig_elems))
    return false;
  if (td->has_quant && !check_quant(v, dynamic ? 0 : elems)) return false;
  const mp_buffer_def *b = td->buffer < v->m->n_buffers ? &v->m->buffers[td->buffer] : NULL;
  if (!b || b->size == 0 || td->is_sparse) return true;
  uint32_t bits = mp_dtype_bits(td->dtype);
  if (bits == 0) return true; /* string and friends: no fixed size */
  if (dynamic)
    return fail(v, "shape", "%s has an unknown dimension but constant bytes (buffer %u)", v->shape,
                td->buffer);
  uint64_t need = (elems * bits + 7) / 8;
  if (b->size != need)
    return fail(v, "buffer", "buffer %u holds %llu bytes, but %s needs %llu", td->buffer,
                (unsigned long long)b->size, v->shape, (unsigned long long)need);
  return true;
}

bool mp_model_validate(const mp_model *m, const mp_diag_sink *dx) {
  vctx v = {m, dx, 0, NULL, ""};
  for (uint32_t s = 0; s < m->n_subgraphs; s++) {
    const mp_subgraph_def *sg = &m->subgraphs[s];
    v.sg = s;
    for (uint32_t i = 0; i < sg->n_tensors; i++) {
      v.td = &sg->tensors[i];
      if (!check_tensor(&v)) return false;
    }
  }
  return true;
}
