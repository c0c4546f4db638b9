/*
 * mpk_resize.c — RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR, NHWC, with
 * TFLite Micro's reference index arithmetic: the float scale and rounding
 * of the nearest neighbour, the 10-bit fixed-point interpolation of the
 * integer bilinear resize and the float one of the float resize, each in
 * its own order of operations.
 */
#include "mpk.h"

#include <math.h>
#include <string.h>

static int resize_ok(const mpk_resize_params *p) {
  return p->batches >= 0 && p->in_h > 0 && p->in_w > 0 && p->depth >= 0 && p->out_h > 0 &&
         p->out_w > 0;
}

/* The nearest input row / column of output index v. */
static int32_t nearest(int32_t v, int32_t in_size, int32_t out_size, const mpk_resize_params *p) {
  float scale = p->align_corners && out_size > 1 ? (float)(in_size - 1) / (float)(out_size - 1)
                                                 : (float)in_size / (float)out_size;
  float offset = p->half_pixel_centers ? 0.5f : 0.0f;
  float at = ((float)v + offset) * scale;
  int32_t r = p->align_corners ? (int32_t)roundf(at) : (int32_t)floorf(at);
  if (r > in_size - 1) r = in_size - 1;
  if (p->half_pixel_centers && r < 0) r = 0;
  return r;
}

MPK_API int32_t mpk_resize_nearest(const mpk_resize_params *p, const void *input, void *output,
                                   void *scratch) {
  (void)scratch;
  if (!resize_ok(p) || p->elem_size <= 0) return MPK_ERR_PARAMS;
  const size_t px = (size_t)p->depth * (size_t)p->elem_size;
  const uint8_t *in = input;
  uint8_t *out = output;
  for (int32_t b = 0; b < p->batches; b++)
    for (int32_t y = 0; y < p->out_h; y++) {
      int32_t iy = nearest(y, p->in_h, p->out_h, p);
      for (int32_t x = 0; x < p->out_w; x++) {
        int32_t ix = nearest(x, p->in_w, p->out_w, p);
        memcpy(out, in + ((size_t)(b * p->in_h + iy) * (size_t)p->in_w + (size_t)ix) * px, px);
        out += px;
      }
    }
  return MPK_OK;
}

/* ComputeInterpolationValuesInteger: the 10-bit position and its rows. */
static void interp_int(int32_t v, int32_t scale_10, int half_pixel, int32_t in_size, int32_t *pos,
                       int32_t *lo, int32_t *hi) {
  *pos = half_pixel ? v * scale_10 + scale_10 / 2 - (1 << 9) : v * scale_10;
  *lo = *pos / (1 << 10) > 0 ? *pos / (1 << 10) : 0;
  int32_t up = (*pos + (1 << 10) - 1) / (1 << 10);
  *hi = up < in_size - 1 ? up : in_size - 1;
}

static int32_t scale_10(int32_t in_size, int32_t out_size, int align_corners) {
  if (align_corners && out_size > 1)
    return ((1 << 10) * (in_size - 1) + (out_size - 1) / 2) / (out_size - 1);
  return ((1 << 10) * in_size + out_size / 2) / out_size;
}

MPK_API int32_t mpk_resize_bilinear_s8(const mpk_resize_params *p, const int8_t *input,
                                       int8_t *output, void *scratch) {
  (void)scratch;
  if (!resize_ok(p)) return MPK_ERR_PARAMS;
  const int32_t sy = scale_10(p->in_h, p->out_h, p->align_corners);
  const int32_t sx = scale_10(p->in_w, p->out_w, p->align_corners);
  const int32_t d = p->depth;
  for (int32_t b = 0; b < p->batches; b++) {
    const int8_t *img = input + (size_t)b * (size_t)p->in_h * (size_t)p->in_w * (size_t)d;
    for (int32_t y = 0; y < p->out_h; y++) {
      int32_t iy, y0, y1;
      interp_int(y, sy, p->half_pixel_centers, p->in_h, &iy, &y0, &y1);
      const int64_t wy1 = iy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
      for (int32_t x = 0; x < p->out_w; x++) {
        int32_t ix, x0, x1;
        interp_int(x, sx, p->half_pixel_centers, p->in_w, &ix, &x0, &x1);
        const int64_t wx1 = ix - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
        const int8_t *p00 = img + ((size_t)y0 * (size_t)p->in_w + (size_t)x0) * (size_t)d;
        const int8_t *p10 = img + ((size_t)y1 * (size_t)p->in_w + (size_t)x0) * (size_t)d;
        const int8_t *p01 = img + ((size_t)y0 * (size_t)p->in_w + (size_t)x1) * (size_t)d;
        const int8_t *p11 = img + ((size_t)y1 * (size_t)p->in_w + (size_t)x1) * (size_t)d;
        for (int32_t c = 0; c < d; c++) {
          int64_t v = (int64_t)p00[c] * wy0 * wx0 + (int64_t)p10[c] * wy1 * wx0 +
                      (int64_t)p01[c] * wy0 * wx1 + (int64_t)p11[c] * wy1 * wx1;
          int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
          *output++ = (int8_t)((v + round) / (1 << 20));
        }
      }
    }
  }
  return MPK_OK;
}

/* ComputeInterpolationValues: the float position and its rows. */
static void interp_f32(int32_t v, float scale, int half_pixel, int32_t in_size, float *pos,
                       int32_t *lo, int32_t *hi) {
  *pos = half_pixel ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
  int32_t f = (int32_t)floorf(*pos), up = (int32_t)ceilf(*pos);
  *lo = f > 0 ? f : 0;
  *hi = up < in_size - 1 ? up : in_size - 1;
}

MPK_API int32_t mpk_resize_bilinear_f32(const mpk_resize_params *p, const float *input,
                                        float *output, void *scratch) {
  (void)scratch;
  if (!resize_ok(p)) return MPK_ERR_PARAMS;
  float sy = (float)p->in_h / (float)p->out_h, sx = (float)p->in_w / (float)p->out_w;
  if (p->align_corners && p->out_h > 1) sy = (float)(p->in_h - 1) / (float)(p->out_h - 1);
  if (p->align_corners && p->out_w > 1) sx = (float)(p->in_w - 1) / (float)(p->out_w - 1);
  const int32_t d = p->depth;
  for (int32_t b = 0; b < p->batches; b++) {
    const float *img = input + (size_t)b * (size_t)p->in_h * (size_t)p->in_w * (size_t)d;
    for (int32_t y = 0; y < p->out_h; y++) {
      float iy;
      int32_t y0, y1;
      interp_f32(y, sy, p->half_pixel_centers, p->in_h, &iy, &y0, &y1);
      for (int32_t x = 0; x < p->out_w; x++) {
        float ix;
        int32_t x0, x1;
        interp_f32(x, sx, p->half_pixel_centers, p->in_w, &ix, &x0, &x1);
        const float *p00 = img + ((size_t)y0 * (size_t)p->in_w + (size_t)x0) * (size_t)d;
        const float *p10 = img + ((size_t)y1 * (size_t)p->in_w + (size_t)x0) * (size_t)d;
        const float *p01 = img + ((size_t)y0 * (size_t)p->in_w + (size_t)x1) * (size_t)d;
        const float *p11 = img + ((size_t)y1 * (size_t)p->in_w + (size_t)x1) * (size_t)d;
        const float dy = iy - (float)y0, dx = ix - (float)x0;
        for (int32_t c = 0; c < d; c++)
          *output++ = p00[c] * (1 - dy) * (1 - dx) + p10[c] * dy * (1 - dx) +
                      p01[c] * (1 - dy) * dx + p11[c] * dy * dx;
      }
    }
  }
  return MPK_OK;
}
