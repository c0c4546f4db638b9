/*
 * mpk_conv_serial.c — DEPTHWISE_CONV_2D channel by channel (depth
 * multiplier 1): the in-place depthwise convolution of TinyEngine, with a
 * one-channel temporary.
 *
 * For channel c the kernel reads input channel c at every pixel and writes
 * output channel c of every pixel into the temporary; then it copies the
 * temporary to output channel c.  Each output comes from the same taps, in
 * the same order, with the same requantisation as mpk_conv.c's depthwise
 * kernels, so the bytes are the same.
 *
 * Overlap contract.  Output element (p, c) lies at O + (p * C + c) * e and
 * input element (q, c') at I + (q * C + c') * e (C channels of e bytes).
 * When I - O = k * C * e for a whole k (of either sign), output (p, c)
 * lands on input element (p - k, c), of the same channel c, or outside the
 * input.  When channel c's outputs are written, every input channel up to
 * c has been read for the last time (channel c into the temporary, the
 * ones below it before), so no byte still to be read is overwritten.  Any
 * other overlap would put some channel's outputs over a later channel's
 * inputs.  So: I - O a multiple of C * e, at any distance (the output may
 * sit exactly on its input); nothing else.  The temporary is op-local
 * scratch, never over either tensor.
 */
#include "mpk.h"
#include "mpk_fixed.h"

static int serial_ok(const mpk_conv_geom *g) {
  return mpk_out_packed(g) && g->batches > 0 && g->in_h > 0 && g->in_w > 0 && g->in_c > 0 &&
         g->out_h > 0 && g->out_w > 0 && g->out_c == g->in_c && g->depth_multiplier == 1 &&
         g->filter_h > 0 && g->filter_w > 0 && g->stride_h > 0 && g->stride_w > 0 &&
         g->dilation_h > 0 && g->dilation_w > 0;
}

static float clamp_serial_f32(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Channel c: every output pixel into tmp (TAP adds input element i times
 * filter element f into acc; FINISH gives the stored value), then tmp into
 * output channel c. */
#define SERIAL_WALK(g, ELEM_T, ACC_T, TAP, FINISH)                                                 \
  ELEM_T *tmp = (ELEM_T *)scratch;                                                                 \
  const int32_t C = (g)->in_c;                                                                     \
  for (int32_t c = 0; c < C; c++) {                                                                \
    int32_t t = 0;                                                                                 \
    for (int32_t b = 0; b < (g)->batches; b++)                                                     \
      for (int32_t oy = 0; oy < (g)->out_h; oy++) {                                                \
        const int32_t y0 = oy * (g)->stride_h - (g)->pad_h;                                        \
        for (int32_t ox = 0; ox < (g)->out_w; ox++) {                                              \
          const int32_t x0 = ox * (g)->stride_w - (g)->pad_w;                                      \
          ACC_T acc = 0;                                                                           \
          for (int32_t fy = 0; fy < (g)->filter_h; fy++) {                                         \
            const int32_t iy = y0 + (g)->dilation_h * fy;                                          \
            if (iy < 0 || iy >= (g)->in_h) continue;                                               \
            for (int32_t fx = 0; fx < (g)->filter_w; fx++) {                                       \
              const int32_t ix = x0 + (g)->dilation_w * fx;                                        \
              if (ix < 0 || ix >= (g)->in_w) continue;                                             \
              TAP(acc, (((b * (g)->in_h + iy) * (g)->in_w + ix) * C + c),                          \
                  ((fy * (g)->filter_w + fx) * C + c));                                            \
            }                                                                                      \
          }                                                                                        \
          tmp[t++] = FINISH(acc, c);                                                               \
        }                                                                                          \
      }                                                                                            \
    for (int32_t i = 0; i < t; i++) output[i * C + c] = tmp[i];                                    \
  }

#define TAP_SERIAL_S8(acc, i, f) acc += (int32_t)filter[f] * ((int32_t)input[i] + input_offset)
#define FINISH_SERIAL_S8(acc, c) (int8_t)mpk_requant_i32(&p->q, acc + (bias ? bias[c] : 0), c)
#define TAP_SERIAL_S16(acc, i, f) acc += (int32_t)filter[f] * (int32_t)input[i]
#define FINISH_SERIAL_S16(acc, c) (int16_t)mpk_requant_i64(&p->q, acc + (bias ? bias[c] : 0), c)
#define TAP_SERIAL_F32(acc, i, f) acc += input[i] * filter[f]
#define FINISH_SERIAL_F32(acc, c)                                                                  \
  clamp_serial_f32(bias ? acc + bias[c] : acc, p->act_min, p->act_max)

MPK_API int32_t mpk_depthwise_conv2d_s8_serial(const mpk_conv_s8_params *p, const int8_t *input,
                                               const int8_t *filter, const int32_t *bias,
                                               int8_t *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  const int32_t input_offset = p->q.input_offset;
  if (!serial_ok(g) || !scratch) return MPK_ERR_PARAMS;
  SERIAL_WALK(g, int8_t, int32_t, TAP_SERIAL_S8, FINISH_SERIAL_S8)
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_s16_serial(const mpk_conv_s8_params *p,
                                                const int16_t *input, const int8_t *filter,
                                                const int64_t *bias, int16_t *output,
                                                void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  if (!serial_ok(g) || !scratch) return MPK_ERR_PARAMS;
  SERIAL_WALK(g, int16_t, int64_t, TAP_SERIAL_S16, FINISH_SERIAL_S16)
  return MPK_OK;
}

MPK_API int32_t mpk_depthwise_conv2d_f32_serial(const mpk_conv_f32_params *p, const float *input,
                                                const float *filter, const float *bias,
                                                float *output, void *scratch) {
  const mpk_conv_geom *g = &p->geom;
  if (!serial_ok(g) || !scratch) return MPK_ERR_PARAMS;
  SERIAL_WALK(g, float, float, TAP_SERIAL_F32, FINISH_SERIAL_F32)
  return MPK_OK;
}

int64_t mpk_depthwise_conv2d_serial_scratch(const mpk_conv_geom *g, int32_t elem_bytes) {
  if (!serial_ok(g) || elem_bytes <= 0) return 0;
  return (int64_t)g->batches * g->out_h * g->out_w * elem_bytes;
}

mpk_overlap mpk_depthwise_conv2d_serial_overlap(const mpk_conv_geom *g, int32_t elem_bytes) {
  mpk_overlap o = {MPK_NO_OVERLAP, 1};
  if (!serial_ok(g) || elem_bytes <= 0) return o;
  /* any overlap: the output may start anywhere from just above the
   * input's last byte down; at a whole number of pixels */
  o.period = (int64_t)g->in_c * elem_bytes;
  o.min_gap = -((int64_t)g->batches * g->in_h * g->in_w * o.period) + 1;
  return o;
}
