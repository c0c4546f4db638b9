/*
 * mpk_shape.c — the data-movement kernels, type-agnostic: RESHAPE as a copy
 * (for the views the planner could not alias), PAD, TRANSPOSE and
 * CONCATENATION; and SHAPE, which writes the static dimensions the
 * lowering put in its params (shapes are static, the input is not read).
 *
 * They move whole elements of `elem_size` bytes with memcpy, so one kernel
 * serves int8, int16, int32 and float32 and quantised tensors keep their
 * bytes (TFLite requires equal quantisation on both sides of these ops,
 * which the lowering checks).  Shapes arrive extended to MPK_MAX_DIMS with
 * leading 1s, so the loops are a single odometer over the output.
 */
#include "mpk.h"

#include <string.h>

MPK_API int32_t mpk_copy(const mpk_copy_params *p, const void *input, void *output, void *scratch) {
  (void)scratch;
  if (p->bytes < 0) return MPK_ERR_PARAMS;
  if (input != output && p->bytes > 0) memmove(output, input, (size_t)p->bytes);
  return MPK_OK;
}

MPK_API int32_t mpk_shape(const mpk_shape_params *p, const void *input, int32_t *output,
                          void *scratch) {
  (void)input;
  (void)scratch;
  if (p->rank < 0 || p->rank > MPK_MAX_DIMS) return MPK_ERR_PARAMS;
  for (int32_t d = 0; d < p->rank; d++)
    if (p->dims[d] < 0) return MPK_ERR_PARAMS;
  for (int32_t d = 0; d < p->rank; d++) output[d] = p->dims[d];
  return MPK_OK;
}

static int dims_ok(const int32_t *dims, int32_t *count) {
  int32_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (dims[d] < 0) return 0;
    n *= dims[d];
  }
  *count = n;
  return 1;
}

/* Advance an odometer over `dims`; false after the last position. */
static int next(int32_t *coord, const int32_t *dims) {
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    if (++coord[d] < dims[d]) return 1;
    coord[d] = 0;
  }
  return 0;
}

MPK_API int32_t mpk_pad(const mpk_pad_params *p, const void *input, void *output, void *scratch) {
  (void)scratch;
  int32_t n_out = 0, n_in = 0;
  if (p->elem_size <= 0 || p->elem_size > 4 || !dims_ok(p->out_dims, &n_out) ||
      !dims_ok(p->in_dims, &n_in))
    return MPK_ERR_PARAMS;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    if (p->before[d] < 0 || p->before[d] + p->in_dims[d] > p->out_dims[d]) return MPK_ERR_PARAMS;
  if (n_out == 0) return MPK_OK;
  const size_t es = (size_t)p->elem_size;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  int32_t coord[MPK_MAX_DIMS] = {0};
  size_t o = 0;
  do {
    int inside = 1;
    int32_t src = 0;
    for (int d = 0; d < MPK_MAX_DIMS; d++) {
      int32_t c = coord[d] - p->before[d];
      if (c < 0 || c >= p->in_dims[d]) {
        inside = 0;
        break;
      }
      src = src * p->in_dims[d] + c;
    }
    if (inside) /* memmove: in place, the output may be the element just read */
      memmove(out + o * es, in + (size_t)src * es, es);
    else
      memcpy(out + o * es, p->value, es);
    o++;
  } while (next(coord, p->out_dims));
  return MPK_OK;
}

/* Overlap contract of PAD (mpk.h).  The loop above visits the output
 * elements in storage order; one inside the input copies input element
 * src (read, then written), the others write the pad value, and src grows
 * with the output index.  With j(i) the output index of input element i,
 * every write before input element i is read (up to output j(i) - 1) must
 * end at or below it: I - O >= (j(i) - i) * es.  j(i) - i, the padding
 * written before element i, only grows with i, so the gap is the padding
 * before the last input element, (j(n - 1) - (n - 1)) * es: a 112x112x96
 * int8 tensor padded by one pixel all round may be rewritten into its
 * padded copy starting 337 pixels of 96 bytes below it (the top row's 114,
 * two border pixels on each of the 111 rows before the last, and the last
 * row's left one). */
int64_t mpk_pad_overlap_gap(const mpk_pad_params *p) {
  int32_t n_out = 0, n_in = 0;
  if (p->elem_size <= 0 || p->elem_size > 4 || !dims_ok(p->out_dims, &n_out) ||
      !dims_ok(p->in_dims, &n_in) || n_in == 0)
    return MPK_NO_OVERLAP;
  int64_t j = 0;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (p->before[d] < 0 || p->before[d] + p->in_dims[d] > p->out_dims[d]) return MPK_NO_OVERLAP;
    j = j * p->out_dims[d] + p->before[d] + p->in_dims[d] - 1;
  }
  return (j - ((int64_t)n_in - 1)) * p->elem_size;
}

MPK_API int32_t mpk_transpose(const mpk_transpose_params *p, const void *input, void *output,
                              void *scratch) {
  (void)scratch;
  int32_t n_out = 0;
  if (p->elem_size <= 0 || !dims_ok(p->out_dims, &n_out)) return MPK_ERR_PARAMS;
  if (n_out == 0) return MPK_OK;
  const size_t es = (size_t)p->elem_size;
  const uint8_t *in = (const uint8_t *)input;
  uint8_t *out = (uint8_t *)output;
  int32_t coord[MPK_MAX_DIMS] = {0};
  size_t o = 0;
  do {
    int32_t src = 0;
    for (int d = 0; d < MPK_MAX_DIMS; d++)
      src += coord[d] * p->in_strides[d];
    memcpy(out + o * es, in + (size_t)src * es, es);
    o++;
  } while (next(coord, p->out_dims));
  return MPK_OK;
}

MPK_API int32_t mpk_concat(const mpk_concat_params *p, const void *const *inputs, void *output,
                           void *scratch) {
  (void)scratch;
  if (p->n_inputs <= 0 || p->outer < 0) return MPK_ERR_PARAMS;
  uint8_t *out = (uint8_t *)output;
  for (int32_t k = 0; k < p->outer; k++) {
    for (int32_t i = 0; i < p->n_inputs; i++) {
      const int32_t n = p->input_bytes[i];
      if (n < 0) return MPK_ERR_PARAMS;
      if (!p->in_place || !p->in_place[i])
        memcpy(out, (const uint8_t *)inputs[i] + (size_t)k * (size_t)n, (size_t)n);
      out += n;
    }
  }
  return MPK_OK;
}
