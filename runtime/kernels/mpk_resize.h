/*
 * mpk_resize.h — the image resizing operators' part of the kernel ABI
 * (mpk.h includes it): RESIZE_NEAREST_NEIGHBOR (any element type) and
 * RESIZE_BILINEAR (int8 in TFLite's 10-bit fixed point, float32), NHWC.
 */
#ifndef MPK_RESIZE_H
#define MPK_RESIZE_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

typedef struct mpk_resize_params {
  int32_t elem_size; /* RESIZE_NEAREST_NEIGHBOR: 1, 2 or 4 bytes */
  int32_t batches, in_h, in_w, depth, out_h, out_w;
  int32_t align_corners, half_pixel_centers;
} mpk_resize_params;

MPK_API int32_t mpk_resize_nearest(const mpk_resize_params *p, const void *input, void *output,
                                   void *scratch);
MPK_API int32_t mpk_resize_bilinear_s8(const mpk_resize_params *p, const int8_t *input,
                                       int8_t *output, void *scratch);
MPK_API int32_t mpk_resize_bilinear_f32(const mpk_resize_params *p, const float *input,
                                        float *output, void *scratch);

#endif /* MPK_RESIZE_H */
