/*
 * mpk_slice.c — STRIDED_SLICE / SLICE (strided copy), SPLIT / SPLIT_V /
 * UNPACK (split), GATHER, MIRROR_PAD, SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND
 * (space_batch), GATHER_ND and ZEROS_LIKE, for any element type.
 *
 * The lowering resolves every begin / end / stride, mask and axis at
 * convert time; the kernels only copy.
 */
#include "mpk.h"

#include <string.h>

MPK_API int32_t mpk_strided_copy(const mpk_strided_copy_params *p, const void *input, void *output,
                                 void *scratch) {
  (void)scratch;
  const int32_t es = p->elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8) return MPK_ERR_PARAMS;
  int32_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (p->dims[d] < 0) return MPK_ERR_PARAMS;
    n *= p->dims[d];
  }
  const uint8_t *in = input;
  uint8_t *out = output;
  int32_t coord[MPK_MAX_DIMS] = {0};
  int32_t src = p->in_offset;
  /* a run: the innermost dimension's elements, one after another in the
   * input too when its stride is 1 (else one element) */
  const int32_t last = MPK_MAX_DIMS - 1;
  const int32_t run = p->in_strides[last] == 1 && p->dims[last] > 0 ? p->dims[last] : 1;
  const size_t run_bytes = (size_t)run * (size_t)es;
  for (int32_t i = 0; i < n; i += run) {
    /* memmove: in place (memory.in_place) an element may be its own
     * source.  A run at once copies as its elements one by one do: past
     * the first element the contract below keeps every output element at
     * or below its source, where memmove copies upwards */
    memmove(out + (size_t)i * (size_t)es, in + (ptrdiff_t)src * es, run_bytes);
    for (int d = run > 1 ? last - 1 : last; d >= 0; d--) { /* odometer step */
      src += p->in_strides[d];
      if (++coord[d] < p->dims[d]) break;
      src -= p->in_strides[d] * p->dims[d];
      coord[d] = 0;
    }
  }
  return MPK_OK;
}

/* Overlap contract of the strided copy.  The loop above reads element i
 * from source element src(i) and then writes output element i, in
 * increasing i.  With no negative stride src(i) never decreases, so when
 * output element i is written every input byte still to be read lies at or
 * above I + src(i + 1) * es.  The write ends at O + (i + 1) * es; it is
 * safe when O + (i + 1) * es <= I + src(i + 1) * es, i.e.
 *   I - O >= ((i + 1) - src(i + 1)) * es      for every i < n - 1,
 * and the gap is the largest of these.  A slice of `count` elements at
 * element `start` of the outermost axis (src(i) = start + i) gets
 * -start * es: its output may lie anywhere up to exactly over its source
 * bytes, which makes it a view whose copy moves every byte onto itself. */
int64_t mpk_strided_copy_overlap_gap(const mpk_strided_copy_params *p) {
  const int64_t es = p->elem_size;
  int64_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (p->dims[d] < 0 || p->in_strides[d] < 0) return MPK_NO_OVERLAP;
    n *= p->dims[d];
  }
  if (es <= 0 || n > INT32_MAX) return MPK_NO_OVERLAP;
  int64_t gap = INT64_MIN / 2;
  int32_t coord[MPK_MAX_DIMS] = {0};
  int64_t src = p->in_offset;
  for (int64_t i = 0; i < n; i++) {
    if (i > 0 && (i - src) * es > gap) gap = (i - src) * es;
    for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) { /* the kernel's odometer step */
      src += p->in_strides[d];
      if (++coord[d] < p->dims[d]) break;
      src -= (int64_t)p->in_strides[d] * p->dims[d];
      coord[d] = 0;
    }
  }
  return gap;
}

MPK_API int32_t mpk_split(const mpk_split_params *p, const void *input, void *const *outputs,
                          void *scratch) {
  (void)scratch;
  if (p->n_outputs < 1 || p->outer < 0 || !p->output_bytes) return MPK_ERR_PARAMS;
  const uint8_t *in = input;
  for (int32_t o = 0; o < p->outer; o++) {
    for (int32_t k = 0; k < p->n_outputs; k++) {
      size_t bytes = (size_t)p->output_bytes[k];
      memcpy((uint8_t *)outputs[k] + (size_t)o * bytes, in, bytes);
      in += bytes;
    }
  }
  return MPK_OK;
}

MPK_API int32_t mpk_gather(const mpk_gather_params *p, const void *input, const int32_t *coords,
                           void *output, void *scratch) {
  (void)scratch;
  if (p->elem_size <= 0 || p->batch_size < 0 || p->outer_size < 0 || p->axis_size < 0 ||
      p->coord_size < 0 || p->inner_size < 0)
    return MPK_ERR_PARAMS;
  const size_t row = (size_t)p->inner_size * (size_t)p->elem_size;
  const uint8_t *in = input;
  uint8_t *out = output;
  for (int32_t b = 0; b < p->batch_size; b++) {
    for (int32_t o = 0; o < p->outer_size; o++) {
      for (int32_t c = 0; c < p->coord_size; c++) {
        int32_t at = coords[b * p->coord_size + c];
        if (at < 0 || at >= p->axis_size) return MPK_ERR_INDEX;
        size_t dst = ((size_t)(b * p->outer_size + o) * (size_t)p->coord_size + (size_t)c) * row;
        size_t src = ((size_t)(b * p->outer_size + o) * (size_t)p->axis_size + (size_t)at) * row;
        memcpy(out + dst, in + src, row);
      }
    }
  }
  return MPK_OK;
}

/* The input index that output index o of an axis reads (mpk_slice.h). */
static int32_t mirror_index(int32_t o, int32_t before, int32_t n, int32_t reflect) {
  int32_t p = o - before;
  if (p < 0) return -p - 1 + reflect;
  if (p >= n) return 2 * n - 1 - reflect - p;
  return p;
}

MPK_API int32_t mpk_mirror_pad(const mpk_mirror_pad_params *p, const void *input, void *output,
                               void *scratch) {
  (void)scratch;
  const int32_t es = p->elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8) return MPK_ERR_PARAMS;
  if (p->reflect != 0 && p->reflect != 1) return MPK_ERR_PARAMS;
  int32_t n = 1, in_stride[MPK_MAX_DIMS];
  for (int d = MPK_MAX_DIMS - 1, s = 1; d >= 0; d--) {
    const int32_t in_n = p->in_dims[d], out_n = p->out_dims[d], lo = p->before[d];
    /* every mirror image inside the input: before and after at most
     * in_n - reflect */
    if (in_n < 1 || out_n < 0 || lo < 0 || lo > in_n - p->reflect ||
        out_n - in_n - lo < 0 || out_n - in_n - lo > in_n - p->reflect)
      return MPK_ERR_PARAMS;
    in_stride[d] = s;
    s *= in_n;
    n *= out_n;
  }
  const uint8_t *in = input;
  uint8_t *out = output;
  int32_t coord[MPK_MAX_DIMS] = {0};
  for (int32_t i = 0; i < n; i++) {
    int32_t src = 0;
    for (int d = 0; d < MPK_MAX_DIMS; d++)
      src += mirror_index(coord[d], p->before[d], p->in_dims[d], p->reflect) * in_stride[d];
    memcpy(out + (size_t)i * (size_t)es, in + (size_t)src * (size_t)es, (size_t)es);
    for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) { /* odometer step */
      if (++coord[d] < p->out_dims[d]) break;
      coord[d] = 0;
    }
  }
  return MPK_OK;
}

/* One element of es bytes holding the low bits of v (es 1, 2 or 4; 8:
 * v's sign extended). */
static void put_elem(uint8_t *dst, int32_t es, int32_t v) {
  if (es == 1) {
    int8_t x = (int8_t)v;
    memcpy(dst, &x, 1);
  } else if (es == 2) {
    int16_t x = (int16_t)v;
    memcpy(dst, &x, 2);
  } else if (es == 4) {
    memcpy(dst, &v, 4);
  } else {
    int64_t x = v;
    memcpy(dst, &x, 8);
  }
}

MPK_API int32_t mpk_space_batch(const mpk_space_batch_params *p, const void *input, void *output,
                                void *scratch) {
  (void)scratch;
  const int32_t es = p->elem_size;
  if (es != 1 && es != 2 && es != 4 && es != 8) return MPK_ERR_PARAMS;
  if (p->batch < 0 || p->space_h < 0 || p->space_w < 0 || p->depth < 0 || p->block_h < 1 ||
      p->block_w < 1 || p->batch_h < 0 || p->batch_w < 0 || (p->to_batch != 0 && p->to_batch != 1))
    return MPK_ERR_PARAMS;
  const size_t pixel = (size_t)p->depth * (size_t)es;
  const uint8_t *in = input;
  uint8_t *out = output;
  /* the batch side in its own order: blocks (i, j), batches, rows, columns */
  size_t b = 0; /* the batch side's pixel */
  for (int32_t i = 0; i < p->block_h; i++) {
    for (int32_t j = 0; j < p->block_w; j++) {
      for (int32_t n = 0; n < p->batch; n++) {
        for (int32_t y = 0; y < p->batch_h; y++) {
          const int64_t sy = (int64_t)y * p->block_h + i - p->top;
          for (int32_t x = 0; x < p->batch_w; x++, b++) {
            const int64_t sx = (int64_t)x * p->block_w + j - p->left;
            const int inside = sy >= 0 && sy < p->space_h && sx >= 0 && sx < p->space_w;
            const size_t s =
                inside ? (((size_t)n * (size_t)p->space_h + (size_t)sy) * (size_t)p->space_w +
                          (size_t)sx) *
                             pixel
                       : 0;
            if (p->to_batch) {
              uint8_t *dst = out + b * pixel;
              if (inside) {
                memcpy(dst, in + s, pixel);
              } else {
                for (int32_t k = 0; k < p->depth; k++)
                  put_elem(dst + (size_t)k * (size_t)es, es, p->pad_value);
              }
            } else if (inside) {
              memcpy(out + s, in + b * pixel, pixel);
            }
          }
        }
      }
    }
  }
  return MPK_OK;
}

/* v as a signed 32-bit value, wrapping (no implementation-defined cast). */
static int32_t wrap_i32(uint32_t v) {
  return v <= (uint32_t)INT32_MAX ? (int32_t)v : -(int32_t)(~v) - 1;
}

MPK_API int32_t mpk_gather_nd(const mpk_gather_nd_params *p, const void *params,
                              const int32_t *indices, void *output, void *scratch) {
  (void)scratch;
  if (p->elem_size <= 0 || p->n_slices < 0 || p->index_depth < 0 || p->index_depth > MPK_MAX_DIMS ||
      p->slice_size < 0 || p->params_size < 0)
    return MPK_ERR_PARAMS;
  const size_t row = (size_t)p->slice_size * (size_t)p->elem_size;
  const uint8_t *in = params;
  uint8_t *out = output;
  for (int32_t i = 0; i < p->n_slices; i++) {
    uint32_t pos = 0;
    for (int32_t k = 0; k < p->index_depth; k++)
      pos += (uint32_t)indices[(size_t)i * (size_t)p->index_depth + (size_t)k] *
             (uint32_t)p->strides[k];
    const int32_t at = wrap_i32(pos);
    if (at < 0 || (int64_t)at + p->slice_size > p->params_size) return MPK_ERR_INDEX;
    memcpy(out + (size_t)i * row, in + (size_t)at * (size_t)p->elem_size, row);
  }
  return MPK_OK;
}

MPK_API int32_t mpk_zeros(const mpk_zeros_params *p, const void *input, void *output,
                          void *scratch) {
  (void)input;
  (void)scratch;
  if (p->bytes < 0) return MPK_ERR_PARAMS;
  memset(output, 0, (size_t)p->bytes);
  return MPK_OK;
}
