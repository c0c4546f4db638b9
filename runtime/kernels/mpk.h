/*
 * mpk.h — memplan's reference kernels: the ABI between an emitted module and
 * the operators it runs.
 *
 * The arithmetic is LiteRT's (TensorFlow Lite Micro's reference kernels):
 * int8 with per-tensor or per-channel quantisation, fixed-point
 * requantisation with gemmlowp's double rounding, and float32.  Outputs are
 * bit-exact with TFLM for the integer kernels.
 *
 * The one idea: everything that depends only on the model is computed at
 * convert time (src/lower.c) and handed to the kernel in a constant params
 * struct — shapes, strides, padding, zero-point offsets, multipliers and
 * shifts, activation bounds.  A kernel only loops.  So the device computes
 * no scale, no padding and no output shape, and a params struct can live in
 * flash next to the weights.
 *
 * Calling convention, the same for every kernel:
 *
 *   int32_t mpk_<kernel>(const <params> *p, <inputs...>, <outputs...>,
 *                        void *scratch);
 *
 * Inputs come first in the operator's input order (activation, filter,
 * bias...), then the outputs, then `scratch`: the op-local working memory
 * the lowering asked for (mp_lowered_op.scratch_bytes), or NULL when it
 * asked for none.  Scratch holds garbage on entry; a kernel never reads
 * scratch it did not write in the same call.  Kernels return MPK_OK, or
 * MPK_ERR_PARAMS when the params are inconsistent (a programming error of
 * the caller, never a data-dependent outcome).
 *
 * Freestanding: no heap, no globals, no libc beyond <string.h> (memcpy,
 * memset) and <math.h> (float kernels only).  C99; compiles warning-free
 * with -Wall -Wextra for the host and for Cortex-M4/M55.
 *
 * Two modules carrying identical copies of these kernels link into one
 * firmware: every kernel is declared MPK_API, which defaults to
 * __attribute__((weak)), so the definitions are weak.  The declarations are
 * weak too, which makes kernels pluggable: a module that calls a kernel it
 * was built without links, the call site sees a NULL function, and the
 * module can report an unsupported operator instead.  Weak references do
 * not pull members out of a static library, though: code that calls
 * kernels archived in a .a must see strong declarations — define MPK_API
 * as empty before including this header (memplan's own tests do).
 *
 * Init hooks.  A kernel that wants a one-time step reading its constants —
 * precomputing a table, folding filter sums into a bias, or checking that
 * staged constants landed where it can read them — provides
 *
 *   int32_t mpk_<kernel>_init(const <params> *p, <same tensor arguments as
 *                             the kernel>, void *persistent);
 *
 * The emitted module's model_init calls each hook once, in operator order,
 * after context_init and hydrate_constants (so constant pointers point at
 * the hydrated runtime copies and hold the model's bytes).  Activation
 * pointers are not valid at init time and are passed as NULL.  `persistent`
 * is the op's persistent buffer (zeroed by context_init, kept between runs)
 * when the lowering requested one (mp_lowered_op.persistent_bytes), else
 * NULL.  A hook returns MPK_OK or an error status; model_init stops at the
 * first error and returns it.  The lowering names the hook of an op
 * (mp_lowered_op.init_fn) or gives NULL when its kernel has none; a kernel
 * never depends on a hook the lowering did not name.
 */
#ifndef MPK_H
#define MPK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MPK_API
#define MPK_API __attribute__((weak))
#endif

/* Kernel status codes. */
#define MPK_OK 0
#define MPK_ERR_PARAMS 1   /* params inconsistent (zero size, bad type code) */
#define MPK_ERR_CONSTANT 2 /* an init hook found a constant it cannot use */

/* The generic shape kernels (pad, transpose, mean, add) work on shapes
 * extended to this rank with leading 1s. */
#define MPK_MAX_DIMS 6

/* Element types of the generic (re)quantize kernels. */
#define MPK_TYPE_INT8 0
#define MPK_TYPE_UINT8 1
#define MPK_TYPE_INT16 2
#define MPK_TYPE_INT32 3

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                            */
/* ------------------------------------------------------------------------ */

/* NHWC geometry of a convolution or pooling window.  Padding is the top /
 * left amount; the bottom / right side follows from the sizes. */
typedef struct mpk_conv_geom {
  int32_t batches;
  int32_t in_h, in_w, in_c;
  int32_t out_h, out_w, out_c;
  int32_t filter_h, filter_w;
  int32_t filter_c;         /* conv: input channels per group; else 0 */
  int32_t depth_multiplier; /* depthwise: out_c / in_c; else 0 */
  int32_t stride_h, stride_w;
  int32_t dilation_h, dilation_w;
  int32_t pad_h, pad_w;
  /* Where the output's elements go, in elements: output (b, oy, ox, oc)
   * is written at b * out_batch_stride + oy * out_row_stride +
   * ox * out_pixel_stride + oc.  0 means packed NHWC (out_c, then
   * out_w * the pixel stride, then out_h * the row stride), so an output
   * can be a strided slice of a larger tensor: a slice of the channels of
   * every pixel, of the columns of every row or of the rows of every image
   * (the input of an elided CONCATENATION).  The reference window kernels
   * (mpk_conv.c, mpk_pool.c) and the specialised int8 ones
   * (mpk_conv_fast.c, mpk_pool_fast.c) take strides; the specialised 16x8
   * kernels and TRANSPOSE_CONV reject a geometry that sets one. */
  int32_t out_pixel_stride, out_row_stride, out_batch_stride;
} mpk_conv_geom;

/* Requantisation of an int32 accumulator to an int8 output:
 *   out = clamp(MultiplyByQuantizedMultiplier(acc, multiplier, shift)
 *               + output_offset, act_min, act_max).
 * `multiplier` / `shift` hold one entry per output channel when
 * per_channel is 1, a single entry otherwise. */
typedef struct mpk_requant {
  int32_t input_offset;  /* minus the input zero point */
  int32_t filter_offset; /* minus the filter zero point (fully connected) */
  int32_t output_offset; /* the output zero point */
  int32_t act_min, act_max;
  int32_t per_channel;
  const int32_t *multiplier;
  const int32_t *shift;
} mpk_requant;

/* Elementwise broadcast over MPK_MAX_DIMS dims.  When `elementwise` is 1
 * both inputs have the output's shape and `size` elements are walked flat;
 * otherwise the output walks `dims` and each input steps by its strides
 * (0 along a broadcast dimension). */
typedef struct mpk_broadcast {
  int32_t elementwise;
  int32_t size;
  int32_t dims[MPK_MAX_DIMS];
  int32_t in1_strides[MPK_MAX_DIMS];
  int32_t in2_strides[MPK_MAX_DIMS];
} mpk_broadcast;

/* ------------------------------------------------------------------------ */
/* Params structs                                                           */
/* ------------------------------------------------------------------------ */

/* CONV_2D and DEPTHWISE_CONV_2D, int8 (per-channel multipliers). */
typedef struct mpk_conv_s8_params {
  mpk_conv_geom geom;
  mpk_requant q;
} mpk_conv_s8_params;

/* CONV_2D and DEPTHWISE_CONV_2D, float32. */
typedef struct mpk_conv_f32_params {
  mpk_conv_geom geom;
  float act_min, act_max;
} mpk_conv_f32_params;

/* FULLY_CONNECTED, int8: output[b][o] over accum_depth inputs. */
typedef struct mpk_fc_s8_params {
  int32_t batches, accum_depth, out_depth;
  mpk_requant q;
} mpk_fc_s8_params;

typedef struct mpk_fc_f32_params {
  int32_t batches, accum_depth, out_depth;
  float act_min, act_max;
} mpk_fc_f32_params;

/* AVERAGE_POOL_2D and MAX_POOL_2D (filter_h/w is the window). */
typedef struct mpk_pool_s8_params {
  mpk_conv_geom geom;
  int32_t act_min, act_max;
} mpk_pool_s8_params;

typedef struct mpk_pool_f32_params {
  mpk_conv_geom geom;
  float act_min, act_max;
} mpk_pool_f32_params;

/* ADD, int8: both inputs rescaled to a common scale with `left_shift`
 * bits of headroom, summed, rescaled to the output. */
typedef struct mpk_add_s8_params {
  mpk_broadcast b;
  int32_t left_shift;
  int32_t in1_offset, in1_multiplier, in1_shift;
  int32_t in2_offset, in2_multiplier, in2_shift;
  int32_t out_offset, out_multiplier, out_shift;
  int32_t act_min, act_max;
} mpk_add_s8_params;

typedef struct mpk_add_f32_params {
  mpk_broadcast b;
  float act_min, act_max;
} mpk_add_f32_params;

/* SOFTMAX over the last dimension (`depth`), int8 input, int8 or int16
 * output, gemmlowp fixed point. */
typedef struct mpk_softmax_s8_params {
  int32_t outer, depth;
  int32_t input_multiplier, input_left_shift;
  int32_t diff_min;
} mpk_softmax_s8_params;

typedef struct mpk_softmax_f32_params {
  int32_t outer, depth;
  float beta;
} mpk_softmax_f32_params;

/* RESHAPE / SQUEEZE / EXPAND_DIMS that the planner did not alias. */
typedef struct mpk_copy_params {
  int32_t bytes;
} mpk_copy_params;

/* SHAPE run on the device (its output is a graph output, so it cannot be
 * folded into a constant): the input's static dimensions as int32. */
typedef struct mpk_shape_params {
  int32_t rank; /* 0..MPK_MAX_DIMS */
  int32_t dims[MPK_MAX_DIMS];
} mpk_shape_params;

/* QUANTIZE float32 -> int8 / int16: out = clamp(round(x / scale) + zp). */
typedef struct mpk_quantize_params {
  int32_t size;
  int32_t out_type; /* MPK_TYPE_INT8 or MPK_TYPE_INT16 */
  float scale;
  int32_t zero_point;
} mpk_quantize_params;

/* QUANTIZE between integer types (requantize). */
typedef struct mpk_requantize_params {
  int32_t size;
  int32_t in_type, out_type; /* MPK_TYPE_* */
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier, shift;
} mpk_requantize_params;

/* PAD / PADV2 of any element type, shapes extended to MPK_MAX_DIMS. */
typedef struct mpk_pad_params {
  int32_t elem_size;
  int32_t in_dims[MPK_MAX_DIMS];
  int32_t out_dims[MPK_MAX_DIMS];
  int32_t before[MPK_MAX_DIMS];
  uint8_t value[4]; /* the pad element's bytes, in memory order */
} mpk_pad_params;

/* MEAN over any set of axes.  Each input element adds into output element
 * sum(coord[d] * out_strides[d]); reduced axes have stride 0.  `count`
 * input elements feed each output. */
typedef struct mpk_mean_s8_params {
  int32_t in_dims[MPK_MAX_DIMS];
  int32_t out_strides[MPK_MAX_DIMS];
  int32_t out_size;
  int32_t count;
  int32_t input_zero_point;
  int32_t output_zero_point;
  /* input_scale / output_scale / count as TFLite folds it: the multiplier
   * of input_scale / output_scale times 2^s, integer-divided by count,
   * the shift less s (s = min(floor(log2 count), 32, 31 + shift)) */
  int32_t multiplier;
  int32_t shift;
} mpk_mean_s8_params;

typedef struct mpk_mean_f32_params {
  int32_t in_dims[MPK_MAX_DIMS];
  int32_t out_strides[MPK_MAX_DIMS];
  int32_t out_size;
  int32_t count;
} mpk_mean_f32_params;

/* TRANSPOSE of any element type: output walks out_dims in order and reads
 * the input at sum(coord[d] * in_strides[d]) (strides in elements). */
typedef struct mpk_transpose_params {
  int32_t elem_size;
  int32_t out_dims[MPK_MAX_DIMS];
  int32_t in_strides[MPK_MAX_DIMS];
} mpk_transpose_params;

/* CONCATENATION of any element type: `outer` slices, each the
 * concatenation of input i's `input_bytes[i]` bytes.  in_place: NULL, or
 * per input 1 when that input's bytes are already in their slices of the
 * output (its producer wrote them there: a partly elided concatenation),
 * so the kernel does not copy them; 0 for an input it copies. */
typedef struct mpk_concat_params {
  int32_t n_inputs;
  int32_t outer;
  const int32_t *input_bytes;
  const int32_t *in_place;
} mpk_concat_params;

/* LOGISTIC, int8 (output scale 1/256, zero point -128). */
typedef struct mpk_logistic_s8_params {
  int32_t size;
  int32_t input_zero_point;
  int32_t input_range_radius;
  int32_t input_multiplier, input_left_shift;
} mpk_logistic_s8_params;

typedef struct mpk_logistic_f32_params {
  int32_t size;
} mpk_logistic_f32_params;

/* The specialised int8 filter kernels (mpk_conv_fast.c, mpk_fc_fast.c),
 * which a module built for a Cortex-M target runs.  The lowering folds the
 * input offset into the bias at convert time, from the constant filter:
 *   folded_bias[oc] = bias[oc] + input_offset * (sum of oc's filter taps),
 * so the inner loops are plain int8 dot products; a tap in the padding
 * reads the input zero point (-input_offset), which adds exactly the 0 the
 * reference kernels add.  Integer sums wrap alike in any order, so every
 * path gives the reference kernels' bytes. */
typedef struct mpk_conv_s8_fast_params {
  mpk_conv_geom geom;
  mpk_requant q;
  const int32_t *folded_bias; /* out_c entries */
  int32_t col_len;            /* im2col: bytes of one column, filter_h * filter_w * in_c */
} mpk_conv_s8_fast_params;

/* The specialised int8 -> int8 SOFTMAX (mpk_softmax_fast.c):
 * exp_table[k] is the reference's exp_on_negative_values of the scaled
 * difference -k (k = 0 .. 255), -1 below diff_min, computed at convert
 * time by mpk_softmax_s8_exp_table. */
typedef struct mpk_softmax_s8_fast_params {
  int32_t outer, depth;
  const int32_t *exp_table; /* 256 entries */
} mpk_softmax_s8_fast_params;

typedef struct mpk_fc_s8_fast_params {
  int32_t batches, accum_depth, out_depth;
  mpk_requant q;              /* filter_offset is 0 */
  const int32_t *folded_bias; /* out_depth entries */
} mpk_fc_s8_fast_params;

/* ------------------------------------------------------------------------ */
/* Kernels                                                                  */
/* ------------------------------------------------------------------------ */

/* bias may be NULL (no bias) in every kernel that takes one. */
MPK_API int32_t mpk_conv2d_s8(const mpk_conv_s8_params *p, const int8_t *input,
                              const int8_t *filter, const int32_t *bias, int8_t *output,
                              void *scratch);
MPK_API int32_t mpk_conv2d_f32(const mpk_conv_f32_params *p, const float *input,
                               const float *filter, const float *bias, float *output,
                               void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_s8(const mpk_conv_s8_params *p, const int8_t *input,
                                        const int8_t *filter, const int32_t *bias, int8_t *output,
                                        void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_f32(const mpk_conv_f32_params *p, const float *input,
                                         const float *filter, const float *bias, float *output,
                                         void *scratch);
MPK_API int32_t mpk_fully_connected_s8(const mpk_fc_s8_params *p, const int8_t *input,
                                       const int8_t *filter, const int32_t *bias, int8_t *output,
                                       void *scratch);
MPK_API int32_t mpk_fully_connected_f32(const mpk_fc_f32_params *p, const float *input,
                                        const float *filter, const float *bias, float *output,
                                        void *scratch);
MPK_API int32_t mpk_avg_pool2d_s8(const mpk_pool_s8_params *p, const int8_t *input, int8_t *output,
                                  void *scratch);
MPK_API int32_t mpk_avg_pool2d_f32(const mpk_pool_f32_params *p, const float *input, float *output,
                                   void *scratch);
MPK_API int32_t mpk_max_pool2d_s8(const mpk_pool_s8_params *p, const int8_t *input, int8_t *output,
                                  void *scratch);
MPK_API int32_t mpk_max_pool2d_f32(const mpk_pool_f32_params *p, const float *input, float *output,
                                   void *scratch);
/* int16 pools: the int8 kernels' arithmetic and params over int16. */
MPK_API int32_t mpk_avg_pool2d_s16(const mpk_pool_s8_params *p, const int16_t *input,
                                   int16_t *output, void *scratch);
MPK_API int32_t mpk_max_pool2d_s16(const mpk_pool_s8_params *p, const int16_t *input,
                                   int16_t *output, void *scratch);
MPK_API int32_t mpk_add_s8(const mpk_add_s8_params *p, const int8_t *input1, const int8_t *input2,
                           int8_t *output, void *scratch);
MPK_API int32_t mpk_add_f32(const mpk_add_f32_params *p, const float *input1, const float *input2,
                            float *output, void *scratch);
MPK_API int32_t mpk_softmax_s8(const mpk_softmax_s8_params *p, const int8_t *input, int8_t *output,
                               void *scratch);
MPK_API int32_t mpk_softmax_s8_s16(const mpk_softmax_s8_params *p, const int8_t *input,
                                   int16_t *output, void *scratch);
MPK_API int32_t mpk_softmax_f32(const mpk_softmax_f32_params *p, const float *input, float *output,
                                void *scratch);
MPK_API int32_t mpk_copy(const mpk_copy_params *p, const void *input, void *output, void *scratch);
/* Writes p->rank int32 values; the input's bytes are not read. */
MPK_API int32_t mpk_shape(const mpk_shape_params *p, const void *input, int32_t *output,
                          void *scratch);
MPK_API int32_t mpk_quantize_f32(const mpk_quantize_params *p, const float *input, void *output,
                                 void *scratch);
MPK_API int32_t mpk_requantize(const mpk_requantize_params *p, const void *input, void *output,
                               void *scratch);
MPK_API int32_t mpk_pad(const mpk_pad_params *p, const void *input, void *output, void *scratch);
/* scratch: out_size int32 accumulators (4-byte aligned). */
MPK_API int32_t mpk_mean_s8(const mpk_mean_s8_params *p, const int8_t *input, int8_t *output,
                            void *scratch);
/* int16 (16x8) MEAN: the int8 kernel's arithmetic and params, int16 ends. */
MPK_API int32_t mpk_mean_s16(const mpk_mean_s8_params *p, const int16_t *input, int16_t *output,
                             void *scratch);
MPK_API int32_t mpk_mean_f32(const mpk_mean_f32_params *p, const float *input, float *output,
                             void *scratch);
MPK_API int32_t mpk_transpose(const mpk_transpose_params *p, const void *input, void *output,
                              void *scratch);
/* inputs: n_inputs pointers, in the operator's input order. */
MPK_API int32_t mpk_concat(const mpk_concat_params *p, const void *const *inputs, void *output,
                           void *scratch);
MPK_API int32_t mpk_logistic_s8(const mpk_logistic_s8_params *p, const int8_t *input,
                                int8_t *output, void *scratch);
MPK_API int32_t mpk_logistic_f32(const mpk_logistic_f32_params *p, const float *input,
                                 float *output, void *scratch);

/* Specialised kernels (see mpk_conv_s8_fast_params).  `bias` is the
 * model's bias (or NULL); the folded bias already holds it, and only the
 * depthwise kernel reads it (for the pixels whose window leaves the input).
 *   conv2d_s8_1x1: a 1x1 filter without padding, groups of 1; no scratch.
 *   conv2d_s8_im2col: groups of 1; scratch: 2 * col_len bytes, 4-aligned.
 *   depthwise_conv2d_s8_fast: no scratch. */
MPK_API int32_t mpk_conv2d_s8_1x1(const mpk_conv_s8_fast_params *p, const int8_t *input,
                                  const int8_t *filter, const int32_t *bias, int8_t *output,
                                  void *scratch);
MPK_API int32_t mpk_conv2d_s8_im2col(const mpk_conv_s8_fast_params *p, const int8_t *input,
                                     const int8_t *filter, const int32_t *bias, int8_t *output,
                                     void *scratch);
MPK_API int32_t mpk_depthwise_conv2d_s8_fast(const mpk_conv_s8_fast_params *p,
                                             const int8_t *input, const int8_t *filter,
                                             const int32_t *bias, int8_t *output, void *scratch);
MPK_API int32_t mpk_fully_connected_s8_fast(const mpk_fc_s8_fast_params *p, const int8_t *input,
                                            const int8_t *filter, const int32_t *bias,
                                            int8_t *output, void *scratch);
/* ADD without broadcasting (b.elementwise 1), mpk_add_s8's params. */
MPK_API int32_t mpk_add_s8_fast(const mpk_add_s8_params *p, const int8_t *input1,
                                const int8_t *input2, int8_t *output, void *scratch);
/* AVERAGE_POOL_2D and MAX_POOL_2D, the reference pools' params; no
 * scratch.  (MUL: mpk_mul_s8_fast, in mpk_binary.h.) */
MPK_API int32_t mpk_avg_pool2d_s8_fast(const mpk_pool_s8_params *p, const int8_t *input,
                                       int8_t *output, void *scratch);
MPK_API int32_t mpk_max_pool2d_s8_fast(const mpk_pool_s8_params *p, const int8_t *input,
                                       int8_t *output, void *scratch);
/* SOFTMAX int8 -> int8 with its table of exponentials; no scratch. */
MPK_API int32_t mpk_softmax_s8_fast(const mpk_softmax_s8_fast_params *p, const int8_t *input,
                                    int8_t *output, void *scratch);
/* The table of mpk_softmax_s8_fast_params, from the reference kernel's
 * params (evaluated at convert time, on the host; not called on the
 * device). */
void mpk_softmax_s8_exp_table(const mpk_softmax_s8_params *p, int32_t table[256]);

/* ------------------------------------------------------------------------ */
/* Init hooks (see the note at the top)                                     */
/* ------------------------------------------------------------------------ */

/* The int8 filter kernels check, once, that their constants are usable
 * where hydration put them: a filter is present and a bias is 4-byte
 * aligned (an unaligned int32 bias faults on cores without unaligned
 * access and is slow on the others). */
MPK_API int32_t mpk_conv2d_s8_init(const mpk_conv_s8_params *p, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output,
                                   void *persistent);
MPK_API int32_t mpk_depthwise_conv2d_s8_init(const mpk_conv_s8_params *p, const int8_t *input,
                                             const int8_t *filter, const int32_t *bias,
                                             int8_t *output, void *persistent);
MPK_API int32_t mpk_fully_connected_s8_init(const mpk_fc_s8_params *p, const int8_t *input,
                                            const int8_t *filter, const int32_t *bias,
                                            int8_t *output, void *persistent);

/* ------------------------------------------------------------------------ */
/* Overlap contracts                                                        */
/* ------------------------------------------------------------------------ */

/* Where a kernel lets its output share bytes with one of its inputs, as a
 * function of the order in which its loops read and write.  Each contract
 * is a minimum gap: with the input at byte I and the output at byte O of the
 * same arena, the output may overlap the input whenever
 *
 *   I - O >= gap          (bytes; a negative gap lets the output start
 *                          up to -gap bytes above the input)
 *
 * and nothing else changes: every byte the kernel writes lands either in
 * input bytes it has finished reading or outside the input.  A larger I - O
 * is always safe too (the writes only move further from the unread input).
 * MPK_NO_OVERLAP says the pair may not share bytes at all.
 *
 * memplan's planner places tensors by these contracts (memory.in_place) and
 * its verifier checks every shared byte against them; the contracts are
 * evaluated at convert time, on the host, next to the loops they describe.
 * Each sits beside its kernel with the arithmetic explained.  They are not
 * called on the device. */
#define MPK_NO_OVERLAP INT64_MAX

/* CONV_2D, DEPTHWISE_CONV_2D (mpk_conv.c) and AVERAGE/MAX_POOL_2D
 * (mpk_pool.c): output pixels in NHWC order, every channel of a pixel
 * written while its window is still being read.  in_bytes / out_bytes are
 * the element sizes. */
int64_t mpk_conv2d_overlap_gap(const mpk_conv_geom *g, int32_t in_bytes, int32_t out_bytes);
int64_t mpk_pool2d_overlap_gap(const mpk_conv_geom *g, int32_t in_bytes, int32_t out_bytes);
/* FULLY_CONNECTED (mpk_fc.c): one input row per batch, its outputs written
 * while the row is still being read. */
int64_t mpk_fully_connected_overlap_gap(int32_t batches, int32_t accum_depth, int32_t out_depth,
                                        int32_t in_bytes, int32_t out_bytes);
/* PAD / PADV2 (mpk_shape.c): output elements in storage order, each inside
 * one copied from its input element right after reading it. */
int64_t mpk_pad_overlap_gap(const mpk_pad_params *p);
/* ADD, LOGISTIC, QUANTIZE (mpk_elementwise.c) and the binary family's
 * SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, PRELU and 16x8 ADD
 * (mpk_binary.c): element i of the input is read before element i of the
 * output is written, in increasing i.  For a binary operator this holds
 * for an input of the output's shape (a broadcast input is read out of
 * order and has no contract).  The 16x8 convolutions and FULLY_CONNECTED
 * walk as their int8 kernels do, over 2-byte elements. */
int64_t mpk_elementwise_overlap_gap(int32_t size, int32_t in_bytes, int32_t out_bytes);
/* The specialised int8 kernels of a Cortex-M target (mpk_conv_fast.c,
 * mpk_fc_fast.c, mpk_add_fast.c, mpk_pool_fast.c; MUL's in mpk_binary.h;
 * SOFTMAX has none), each from its own loop order: the same
 * contract on its Helium, DSP and portable paths. */
int64_t mpk_conv2d_s8_1x1_overlap_gap(const mpk_conv_geom *g);
int64_t mpk_conv2d_s8_im2col_overlap_gap(const mpk_conv_geom *g);
int64_t mpk_depthwise_conv2d_s8_fast_overlap_gap(const mpk_conv_geom *g);
int64_t mpk_fully_connected_s8_fast_overlap_gap(int32_t batches, int32_t accum_depth,
                                                int32_t out_depth);
int64_t mpk_add_s8_fast_overlap_gap(int32_t size);
int64_t mpk_pool2d_s8_fast_overlap_gap(const mpk_conv_geom *g);

/* The operator families with a header of their own. */
#include "mpk_binary.h"
#include "mpk_conv_s16.h"
#include "mpk_conv_serial.h"
#include "mpk_matmul.h"
#include "mpk_recurrent.h"
#include "mpk_reduce.h"
#include "mpk_resize.h"
#include "mpk_signal.h"
#include "mpk_slice.h"
#include "mpk_transpose_conv.h"
#include "mpk_unary.h"

#ifdef __cplusplus
}
#endif

#endif /* MPK_H */
