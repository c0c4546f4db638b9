/*
 * mpk_slice.h — the slicing operators' part of the kernel ABI (mpk.h
 * includes it): STRIDED_SLICE, SLICE, DEPTH_TO_SPACE and SPACE_TO_DEPTH
 * (a strided copy), MIRROR_PAD, SPLIT, SPLIT_V
 * and UNPACK (a split, the inverse of CONCATENATION), GATHER.  PACK runs on
 * mpk_concat; REVERSE_V2, BROADCAST_TO and FILL on the strided copy,
 * EMBEDDING_LOOKUP on mpk_gather; SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND
 * (mpk_space_batch), GATHER_ND and ZEROS_LIKE have kernels of their own.  Any element type: sizes
 * are in elements of elem_size bytes or in bytes.
 */
#ifndef MPK_SLICE_H
#define MPK_SLICE_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* A data-dependent failure: an index input out of range (GATHER,
 * GATHER_ND, EMBEDDING_LOOKUP). */
#define MPK_ERR_INDEX 3

/* The output walks `dims` in order and reads the input element at
 * in_offset + sum(coord[d] * in_strides[d]) (strides in elements, negative
 * for a reversed axis). */
typedef struct mpk_strided_copy_params {
  int32_t elem_size;
  int32_t in_offset;
  int32_t dims[MPK_MAX_DIMS];
  int32_t in_strides[MPK_MAX_DIMS];
} mpk_strided_copy_params;

/* The input is `outer` rows, each the concatenation of output i's
 * output_bytes[i] bytes. */
typedef struct mpk_split_params {
  int32_t n_outputs;
  int32_t outer;
  const int32_t *output_bytes;
} mpk_split_params;

/* GATHER along one axis with batch dimensions:
 *   out[b][o][c][:] = in[b][o][coords[b][c]][:] (inner_size elements). */
typedef struct mpk_gather_params {
  int32_t elem_size;
  int32_t batch_size, outer_size, axis_size, coord_size, inner_size;
} mpk_gather_params;

/* MIRROR_PAD: the output walks out_dims; along each axis output index o
 * reads input index p = o - before[d] when 0 <= p < in_dims[d], else its
 * mirror image: -p - 1 + reflect for p < 0 and 2 * in_dims[d] - 1 -
 * reflect - p beyond the end (reflect 1: REFLECT, the edge element is not
 * repeated; 0: SYMMETRIC, it is).  The lowering keeps every mirror image
 * inside the input. */
typedef struct mpk_mirror_pad_params {
  int32_t elem_size;
  int32_t reflect;
  int32_t in_dims[MPK_MAX_DIMS];
  int32_t out_dims[MPK_MAX_DIMS];
  int32_t before[MPK_MAX_DIMS];
} mpk_mirror_pad_params;

MPK_API int32_t mpk_strided_copy(const mpk_strided_copy_params *p, const void *input, void *output,
                                 void *scratch);
/* Overlap contract of mpk_strided_copy (mpk.h, "Overlap contracts"): the
 * output may overlap the input when I - O >= this gap; MPK_NO_OVERLAP for
 * a negative stride. */
int64_t mpk_strided_copy_overlap_gap(const mpk_strided_copy_params *p);
/* outputs: n_outputs pointers, in the operator's output order. */
MPK_API int32_t mpk_split(const mpk_split_params *p, const void *input, void *const *outputs,
                          void *scratch);
/* MPK_ERR_INDEX, and the output partly written, when a coordinate is
 * outside [0, axis_size). */
MPK_API int32_t mpk_gather(const mpk_gather_params *p, const void *input, const int32_t *coords,
                           void *output, void *scratch);

/* The output must not overlap the input. */
MPK_API int32_t mpk_mirror_pad(const mpk_mirror_pad_params *p, const void *input, void *output,
                               void *scratch);

/* SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on NHWC (3-D as width 1).  The
 * space side is [batch, space_h, space_w, depth], the batch side
 * [block_h * block_w * batch, batch_h, batch_w, depth]; batch side element
 *   [(i * block_w + j) * batch + n][y][x]
 * is space side element
 *   [n][y * block_h + i - top][x * block_w + j - left]
 * when that lies inside the space side.  to_batch 1 (SPACE_TO_BATCH_ND,
 * top and left the paddings before): the output is the batch side, an
 * element outside the space side pad_value (an int32 holding the element's
 * bits); to_batch 0 (BATCH_TO_SPACE_ND, top and left the crops before):
 * the output is the space side, every element of it written once when
 * batch_h * block_h covers top + space_h (and so across).  The output must
 * not overlap the input. */
typedef struct mpk_space_batch_params {
  int32_t elem_size;
  int32_t to_batch;
  int32_t batch, space_h, space_w, depth;
  int32_t block_h, block_w, batch_h, batch_w;
  int32_t top, left;
  int32_t pad_value;
} mpk_space_batch_params;

MPK_API int32_t mpk_space_batch(const mpk_space_batch_params *p, const void *input, void *output,
                                void *scratch);

/* GATHER_ND: the indices are n_slices tuples of index_depth int32 entries;
 * slice i is the slice_size elements of params from element
 *   pos = sum(index[i][k] * strides[k])
 * (32-bit two's complement arithmetic, as TFLM computes it).  A slice not
 * inside params' params_size elements (pos < 0 or pos + slice_size beyond
 * them) is MPK_ERR_INDEX, the output partly written: nothing outside params
 * is read, whatever the indices hold. */
typedef struct mpk_gather_nd_params {
  int32_t elem_size;
  int32_t n_slices, index_depth, slice_size, params_size;
  int32_t strides[MPK_MAX_DIMS];
} mpk_gather_nd_params;

MPK_API int32_t mpk_gather_nd(const mpk_gather_nd_params *p, const void *params,
                              const int32_t *indices, void *output, void *scratch);

/* ZEROS_LIKE: `bytes` zero bytes; the input is not read. */
typedef struct mpk_zeros_params {
  int32_t bytes;
} mpk_zeros_params;

MPK_API int32_t mpk_zeros(const mpk_zeros_params *p, const void *input, void *output,
                          void *scratch);

#endif /* MPK_SLICE_H */
