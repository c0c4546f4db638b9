/*
 * mpk_conv.c — CONV_2D and DEPTHWISE_CONV_2D: int8, 16x8 (int16
 * activations, int8 weights, int64 biases) and float32.
 *
 * Direct convolution over NHWC tensors, the loop order of TFLite Micro's
 * reference kernels: for every output pixel and channel, accumulate
 * filter * (input + input_offset) over the window, skipping taps that fall
 * in the padding (padding contributes zero, i.e. the input zero point),
 * add the bias, requantise per output channel, add the output zero point
 * and clamp to the fused activation's range.  The 16x8 kernels accumulate
 * in 64 bits and requantise with TFLite's 64-bit
 * MultiplyByQuantizedMultiplier (a Q15-rounded multiplier, one rounding
 * shift); their input offset is 0.  A 16x8 CONV_2D without a bias or with
 * an int32 one (mpk_conv2d_s16_acc32) is TFLite Micro's int32 form: the
 * sum wraps in 32 bits and is requantised as the int8 kernels do.
 *
 * Filters: CONV_2D [out_c][filter_h][filter_w][filter_c] with
 * in_c / filter_c groups; DEPTHWISE_CONV_2D [1][filter_h][filter_w][out_c]
 * with out_c = in_c * depth_multiplier.
 *
 * One walk per operator (CONV_WALK, DEPTHWISE_WALK) serves the three
 * element types; each kernel only says how a tap adds into its accumulator
 * and how the accumulator is stored.  No im2col and no scratch: simple
 * loops that are easy to check against the reference, not the fastest
 * possible kernels.
 */
#include "mpk.h"
#include "mpk_fixed.h"

static int geom_ok(const mpk_conv_geom *g) {
  return mpk_out_strides_ok(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 && g->out_h > 0 &&
         g->out_w > 0 && g->out_c > 0 && g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 &&
         g->stride_w > 0 && g->dilation_h > 0 && g->dilation_w > 0;
}

/* CONV_2D's geometry with its groups: 0 when the channels do not divide. */
static int32_t conv_per_group(const mpk_conv_geom *g) {
  if (!geom_ok(g) || g->filter_c <= 0 || g->in_c % g->filter_c != 0) return 0;
  const int32_t groups = g->in_c / g->filter_c;
  return g->out_c % groups != 0 ? 0 : g->out_c / groups;
}

static int depthwise_ok(const mpk_conv_geom *g) {
  return geom_ok(g) && g->depth_multiplier > 0 && g->out_c == g->in_c * g->depth_multiplier;
}

static float clamp_f32(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* The walk over the outputs (b, oy, ox, oc) in storage order (at the
 * geometry's output strides) and the taps of each window inside the input.  For each output an ACC_T accumulator
 * starts at 0; at each tap, `pixel` is the index of the input pixel's
 * channel FIRST_IN_C (computed once per output channel) and CHANNEL_TAPS
 * adds its products with TAP(acc, input_index, filter_index); then
 * STORE(acc, output_index, oc) finishes it. */
#define WINDOW_WALK(g, FIRST_IN_C, ACC_T, CHANNEL_TAPS, STORE)                                     \
  const mpk_out_strides os = mpk_geom_out_strides(g);                                              \
  for (int32_t b = 0; b < (g)->batches; b++)                                                       \
    for (int32_t oy = 0; oy < (g)->out_h; oy++) {                                                  \
      const int32_t y0 = oy * (g)->stride_h - (g)->pad_h;                                          \
      for (int32_t ox = 0; ox < (g)->out_w; ox++) {                                                \
        const int32_t x0 = ox * (g)->stride_w - (g)->pad_w;                                        \
        const int32_t o = b * os.batch + oy * os.row + ox * os.pixel;                              \
        for (int32_t oc = 0; oc < (g)->out_c; oc++) {                                              \
          const int32_t in_c0 = FIRST_IN_C;                                                        \
          ACC_T acc = 0;                                                                           \
          for (int32_t fy = 0; fy < (g)->filter_h; fy++) {                                         \
            const int32_t iy = y0 + (g)->dilation_h * fy;                                          \
            if (iy < 0 || iy >= (g)->in_h) continue;                                               \
            for (int32_t fx = 0; fx < (g)->filter_w; fx++) {                                       \
              const int32_t ix = x0 + (g)->dilation_w * fx;                                        \
              if (ix < 0 || ix >= (g)->in_w) continue;                                             \
              const int32_t pixel = ((b * (g)->in_h + iy) * (g)->in_w + ix) * (g)->in_c + in_c0;   \
              CHANNEL_TAPS                                                                         \
            }                                                                                      \
          }                                                                                        \
          STORE(acc, o + oc, oc);                                                                  \
        }                                                                                          \
      }                                                                                            \
    }

/* CONV_2D: the tap's filter_c channels of output oc's group. */
#define CONV_WALK(g, per_group, ACC_T, TAP, STORE)                                                 \
  WINDOW_WALK(                                                                                     \
      g, (oc / (per_group)) * (g)->filter_c, ACC_T,                                                \
      {                                                                                            \
        const int32_t f0 = ((oc * (g)->filter_h + fy) * (g)->filter_w + fx) * (g)->filter_c;       \
        for (int32_t ic = 0; ic < (g)->filter_c; ic++)                                             \
          TAP(acc, pixel + ic, f0 + ic);                                                           \
      },                                                                                           \
      STORE)

/* DEPTHWISE_CONV_2D: the one input channel output oc multiplies. */
#define DEPTHWISE_WALK(g, ACC_T, TAP, STORE)                                                       \
  WINDOW_WALK(                                                                                     \
      g, oc / (g)->depth_multiplier, ACC_T,                                                        \
      { TAP(acc, pixel, (fy * (g)->filter_w + fx) * (g)->out_c + oc); }, STORE)

#define TAP_S8(acc, i, f) acc += (int32_t)filter[f] * ((int32_t)input[i] + input_offset)
#define STORE_S8(acc, i, oc)                                                                       \
  output[i] = (int8_t)mpk_requant_i32(&p->q, acc + (bias ? bias[oc] : 0), oc)
#define TAP_S16(acc, i, f) acc += (int32_t)filter[f] * (int32_t)input[i]
#define STORE_S16(acc, i, oc)                                                                      \
  output[i] = (int16_t)mpk_requant_i64(&p->q, acc + (bias ? bias[oc] : 0), oc)
/* 16x8 in 32 bits: the sum wraps as an int32 does on two's-complement
 * hardware (kept unsigned here, where C defines the wrap) */
#define TAP_S16_ACC32(acc, i, f) acc += (uint32_t)((int32_t)filter[f] * (int32_t)input[i])
#define STORE_S16_ACC32(acc, i, oc)                                                                \
  output[i] = (int16_t)mpk_requant_i32(&p->q, (int32_t)(acc + (bias ? (uint32_t)bias[oc] : 0u)), oc)
#define TAP_F32(acc, i, f) acc += input[i] * filter[f]
#define STORE_F32(acc, i, oc)                                                                      \
  output[i] = clamp_f32(bias ? acc + bias[oc] : acc, p->act_min, p->act_max)

MPK_API int32_t mpk_conv2d_s8(const mpk_conv_s8_params *p, const int8_t *input,
                              const int8_t *filter, const int32_t *bias, int8_t *output,
                              void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t per_group = conv_per_group(g);
  const int32_t input_offset = p->q.input_offset;
  (void)scratch;
  if (per_group == 0) return MPK_ERR_PARAMS;
  CONV_WALK(g, per_group, int32_t, TAP_S8, STORE_S8)
  return MPK_OK;
}

MPK_API int32_t mpk_conv2d_s16(const mpk_conv_s8_params *p, const int16_t *input,
                               const int8_t *filter, const int64_t *bias, int16_t *output,
                               void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t per_group = conv_per_group(g);
  (void)scratch;
  if (per_group == 0) return MPK_ERR_PARAMS;
  CONV_WALK(g, per_group, int64_t, TAP_S16, STORE_S16)
  return MPK_OK;
}

MPK_API int32_t mpk_conv2d_s16_acc32(const mpk_conv_s8_params *p, const int16_t *input,
                                     const int8_t *filter, const int32_t *bias, int16_t *output,
                                     void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t per_group = conv_per_group(g);
  (void)scratch;
  if (per_group == 0) return MPK_ERR_PARAMS;
  CONV_WALK(g, per_group, uint32_t, TAP_S16_ACC32, STORE_S16_ACC32)
  return MPK_OK;
}

MPK_API int32_t mpk_conv2d_f32(const mpk_conv_f32_params *p, const float *input,
                               const float *filter, const float *bias, float *output,
                               void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t per_group = conv_per_group(g);
  (void)scratch;
  if (per_group == 0) return MPK_ERR_PARAMS;
  CONV_WALK(g, per_group, float, TAP_F32, STORE_F32)
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_s8(const mpk_conv_s8_params *p, const int8_t *input,
                                        const int8_t *filter, const int32_t *bias, int8_t *output,
                                        void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t input_offset = p->q.input_offset;
  (void)scratch;
  if (!depthwise_ok(g)) return MPK_ERR_PARAMS;
  DEPTHWISE_WALK(g, int32_t, TAP_S8, STORE_S8)
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_s16(const mpk_conv_s8_params *p, const int16_t *input,
                                         const int8_t *filter, const int64_t *bias, int16_t *output,
                                         void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!depthwise_ok(g)) return MPK_ERR_PARAMS;
  DEPTHWISE_WALK(g, int64_t, TAP_S16, STORE_S16)
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_f32(const mpk_conv_f32_params *p, const float *input,
                                         const float *filter, const float *bias, float *output,
                                         void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  (void)scratch;
  if (!depthwise_ok(g)) return MPK_ERR_PARAMS;
  DEPTHWISE_WALK(g, float, TAP_F32, STORE_F32)
  return MPK_OK;
}

/* Overlap contract of the convolutions (mpk.h).  The loops above visit the
 * output pixels P = (b, oy, ox) in storage order and, for each, write its
 * channels one by one while still reading its window for the next channel.
 * So when pixel P is written, the input bytes still to be read are those at
 * or above
 *
 *   M(P) = min over P' >= P of R(P'),
 *
 * R(P') being the lowest input byte of P''s window that lies inside the
 * input: row max(y0, first row the dilated taps reach) and column likewise,
 * times the row and pixel strides (every byte a window reads is at or above
 * it, whatever the channel or group).  A window entirely in the padding reads
 * nothing.  P's writes end at W(P) = (index of P + 1) * out_c * out_bytes.
 * They are safe when O + W(P) <= I + M(P), i.e. I - O >= W(P) - M(P) for
 * every P: the gap is the largest W(P) - M(P).  For a 1x1 convolution with
 * stride 1 that is out_pixel + (out_pixel - in_pixel) * (pixels - 1) when the
 * output is wider (a 8 -> 16 channel layer over n pixels: the output may start
 * 8 (n - 1) + 16 bytes below its input) and one output pixel when it is not;
 * a 3x3 stride-1 depthwise layer with padding 1 may trail its input by two
 * rows.  The suffix minimum is taken walking the pixels backwards. */
static int32_t first_tap(int32_t origin, int32_t dilation, int32_t taps, int32_t extent) {
  for (int32_t f = 0; f < taps; f++) {
    int32_t i = origin + dilation * f;
    if (i >= extent) return -1;
    if (i >= 0) return i;
  }
  return -1;
}

static int64_t window_gap(const mpk_conv_geom *g, int32_t dil_h, int32_t dil_w, int32_t in_bytes,
                          int32_t out_bytes) {
  if (g->batches <= 0 || g->out_h <= 0 || g->out_w <= 0 || in_bytes <= 0 || out_bytes <= 0)
    return MPK_NO_OVERLAP;
  const int64_t in_px = (int64_t)g->in_c * in_bytes, out_px = (int64_t)g->out_c * out_bytes;
  int64_t m = INT64_MAX, gap = INT64_MIN;
  for (int32_t b = g->batches - 1; b >= 0; b--)
    for (int32_t oy = g->out_h - 1; oy >= 0; oy--) {
      const int32_t iy = first_tap(oy * g->stride_h - g->pad_h, dil_h, g->filter_h, g->in_h);
      for (int32_t ox = g->out_w - 1; ox >= 0; ox--) {
        const int32_t ix = first_tap(ox * g->stride_w - g->pad_w, dil_w, g->filter_w, g->in_w);
        if (iy >= 0 && ix >= 0) {
          int64_t r = (((int64_t)b * g->in_h + iy) * g->in_w + ix) * in_px;
          if (r < m) m = r;
        }
        if (m == INT64_MAX) continue; /* nothing is read from here on */
        int64_t w = (((int64_t)b * g->out_h + oy) * g->out_w + ox + 1) * out_px;
        if (w - m > gap) gap = w - m;
      }
    }
  return gap == INT64_MIN ? INT64_MIN / 2 : gap;
}

int64_t mpk_conv2d_overlap_gap(const mpk_conv_geom *g, int32_t in_bytes, int32_t out_bytes) {
  /* a strided output is a slice of a larger tensor: no contract */
  if (!mpk_out_packed(g) || g->dilation_h <= 0 || g->dilation_w <= 0) return MPK_NO_OVERLAP;
  return window_gap(g, g->dilation_h, g->dilation_w, in_bytes, out_bytes);
}

/* Shared check of the int8 init hooks: a filter, and an aligned bias. */
static int32_t check_filter_bias(const int8_t *filter, const int32_t *bias) {
  if (!filter) return MPK_ERR_CONSTANT;
  if (bias && ((uintptr_t)bias & 3u) != 0) return MPK_ERR_CONSTANT;
  return MPK_OK;
}

MPK_API int32_t mpk_conv2d_s8_init(const mpk_conv_s8_params *p, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output,
                                   void *persistent) {
  (void)input;
  (void)output;
  (void)persistent;
  if (!geom_ok(&p->geom)) return MPK_ERR_PARAMS;
  return check_filter_bias(filter, bias);
}

MPK_API int32_t mpk_depthwise_conv2d_s8_init(const mpk_conv_s8_params *p, const int8_t *input,
                                             const int8_t *filter, const int32_t *bias,
                                             int8_t *output, void *persistent) {
  (void)input;
  (void)output;
  (void)persistent;
  if (!geom_ok(&p->geom)) return MPK_ERR_PARAMS;
  return check_filter_bias(filter, bias);
}
