/*
 * mpk_slice.h — the slicing operators' part of the kernel ABI (mpk.h
 * includes it): STRIDED_SLICE, SLICE, DEPTH_TO_SPACE and SPACE_TO_DEPTH
 * (a strided copy), SPLIT, SPLIT_V
 * and UNPACK (a split, the inverse of CONCATENATION), GATHER.  PACK runs on
 * mpk_concat.  Any element type: sizes are in elements of elem_size bytes
 * or in bytes.
 */
#ifndef MPK_SLICE_H
#define MPK_SLICE_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* A data-dependent failure: an index input out of range (GATHER). */
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

#endif /* MPK_SLICE_H */
