/*
 * lower.c — from a model operator to a call of one of memplan's kernels,
 * with every parameter computed here, at convert time.
 *
 * The one idea: do on the host, once, exactly the preparation TensorFlow
 * Lite Micro does in each kernel's Prepare — the same double/float
 * expressions, QuantizeMultiplier with its rounding, the same padding and
 * activation-range formulas — and hand the device only the results.  The
 * kernels (runtime/kernels) then only loop, and their int8 outputs are
 * bit-exact with TFLM.
 *
 * Each supported operator has a lowering function below that checks what
 * the kernel can do (dtypes, quantisation, fused activation, static
 * parameters) and fills the params.  What it cannot do is reported as
 * "unsupported" with a reason, never as an error: mp_lower_check_all lists
 * every such operator at once.  Options that do not validate and shapes
 * that contradict the operator are model errors.
 *
 * Params become C text through one field table per params struct, so the
 * printer, the tests and the struct layout share a single description.
 *
 * This file does not place tensors or scratch (the planner does) and does
 * not write modules (the emitter does).
 */
#include "lower/lower_ops.h"
#include "read/opcodes.h"

#include "util/diag.h"
#include "mpk_fixed.h"
#include "read/flatbuf.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* BuiltinOptions union type ids (1-based declaration order). */
enum {
  OPT_CONV2D = 1,
  OPT_DEPTHWISE_CONV2D = 2,
  OPT_POOL2D = 5,
  OPT_FULLY_CONNECTED = 8,
  OPT_SOFTMAX = 9,
  OPT_CONCATENATION = 10,
  OPT_ADD = 11,
  OPT_REDUCER = 27,
};

/* ActivationFunctionType and Padding. */
enum { ACT_NONE = 0, ACT_RELU = 1, ACT_RELU_N1_TO_1 = 2, ACT_RELU6 = 3, ACT_TANH = 4, ACT_SIGN_BIT = 5 };
enum { PAD_SAME = 0, PAD_VALID = 1 };

/* ------------------------------------------------------------------------ */
/* Kernel table and params field descriptions                               */
/* ------------------------------------------------------------------------ */

const fdesc mp_lower_geom_fields[] = {F_I32(mpk_conv_geom, batches),
                                    F_I32(mpk_conv_geom, in_h),
                                    F_I32(mpk_conv_geom, in_w),
                                    F_I32(mpk_conv_geom, in_c),
                                    F_I32(mpk_conv_geom, out_h),
                                    F_I32(mpk_conv_geom, out_w),
                                    F_I32(mpk_conv_geom, out_c),
                                    F_I32(mpk_conv_geom, filter_h),
                                    F_I32(mpk_conv_geom, filter_w),
                                    F_I32(mpk_conv_geom, filter_c),
                                    F_I32(mpk_conv_geom, depth_multiplier),
                                    F_I32(mpk_conv_geom, stride_h),
                                    F_I32(mpk_conv_geom, stride_w),
                                    F_I32(mpk_conv_geom, dilation_h),
                                    F_I32(mpk_conv_geom, dilation_w),
                                    F_I32(mpk_conv_geom, pad_h),
                                    F_I32(mpk_conv_geom, pad_w),
                                    F_I32_NZ(mpk_conv_geom, out_pixel_stride),
                                    F_I32_NZ(mpk_conv_geom, out_row_stride),
                                    F_I32_NZ(mpk_conv_geom, out_batch_stride),
                                    F_END};

static const fdesc requant_fields[] = {F_I32(mpk_requant, input_offset),
                                       F_I32(mpk_requant, filter_offset),
                                       F_I32(mpk_requant, output_offset),
                                       F_I32(mpk_requant, act_min),
                                       F_I32(mpk_requant, act_max),
                                       F_I32(mpk_requant, per_channel),
                                       F_PTR(mpk_requant, multiplier, "multiplier"),
                                       F_PTR(mpk_requant, shift, "shift"),
                                       F_END};

const fdesc mp_lower_bcast_fields[] = {
    F_I32(mpk_broadcast, elementwise),   F_I32(mpk_broadcast, size),
    F_I32X6(mpk_broadcast, dims),        F_I32X6(mpk_broadcast, in1_strides),
    F_I32X6(mpk_broadcast, in2_strides), F_END};

static const fdesc conv_s8_fields[] = {F_SUB(mpk_conv_s8_params, geom, mp_lower_geom_fields),
                                       F_SUB(mpk_conv_s8_params, q, requant_fields), F_END};
static const fdesc conv_f32_fields[] = {F_SUB(mpk_conv_f32_params, geom, mp_lower_geom_fields),
                                        F_F32(mpk_conv_f32_params, act_min),
                                        F_F32(mpk_conv_f32_params, act_max), F_END};
static const fdesc fc_s8_fields[] = {
    F_I32(mpk_fc_s8_params, batches), F_I32(mpk_fc_s8_params, accum_depth),
    F_I32(mpk_fc_s8_params, out_depth), F_SUB(mpk_fc_s8_params, q, requant_fields), F_END};
static const fdesc fc_f32_fields[] = {
    F_I32(mpk_fc_f32_params, batches),   F_I32(mpk_fc_f32_params, accum_depth),
    F_I32(mpk_fc_f32_params, out_depth), F_F32(mpk_fc_f32_params, act_min),
    F_F32(mpk_fc_f32_params, act_max),   F_END};
static const fdesc pool_s8_fields[] = {F_SUB(mpk_pool_s8_params, geom, mp_lower_geom_fields),
                                       F_I32(mpk_pool_s8_params, act_min),
                                       F_I32(mpk_pool_s8_params, act_max), F_END};
static const fdesc pool_f32_fields[] = {F_SUB(mpk_pool_f32_params, geom, mp_lower_geom_fields),
                                        F_F32(mpk_pool_f32_params, act_min),
                                        F_F32(mpk_pool_f32_params, act_max), F_END};
static const fdesc add_s8_fields[] = {F_SUB(mpk_add_s8_params, b, mp_lower_bcast_fields),
                                      F_I32(mpk_add_s8_params, left_shift),
                                      F_I32(mpk_add_s8_params, in1_offset),
                                      F_I32(mpk_add_s8_params, in1_multiplier),
                                      F_I32(mpk_add_s8_params, in1_shift),
                                      F_I32(mpk_add_s8_params, in2_offset),
                                      F_I32(mpk_add_s8_params, in2_multiplier),
                                      F_I32(mpk_add_s8_params, in2_shift),
                                      F_I32(mpk_add_s8_params, out_offset),
                                      F_I32(mpk_add_s8_params, out_multiplier),
                                      F_I32(mpk_add_s8_params, out_shift),
                                      F_I32(mpk_add_s8_params, act_min),
                                      F_I32(mpk_add_s8_params, act_max),
                                      F_END};
static const fdesc add_f32_fields[] = {F_SUB(mpk_add_f32_params, b, mp_lower_bcast_fields),
                                       F_F32(mpk_add_f32_params, act_min),
                                       F_F32(mpk_add_f32_params, act_max), F_END};
static const fdesc softmax_s8_fields[] = {F_I32(mpk_softmax_s8_params, outer),
                                          F_I32(mpk_softmax_s8_params, depth),
                                          F_I32(mpk_softmax_s8_params, input_multiplier),
                                          F_I32(mpk_softmax_s8_params, input_left_shift),
                                          F_I32(mpk_softmax_s8_params, diff_min),
                                          F_END};
static const fdesc softmax_f32_fields[] = {F_I32(mpk_softmax_f32_params, outer),
                                           F_I32(mpk_softmax_f32_params, depth),
                                           F_F32(mpk_softmax_f32_params, beta), F_END};
static const fdesc copy_fields[] = {F_I32(mpk_copy_params, bytes), F_END};
static const fdesc quantize_fields[] = {
    F_I32(mpk_quantize_params, size), F_I32(mpk_quantize_params, out_type),
    F_F32(mpk_quantize_params, scale), F_I32(mpk_quantize_params, zero_point), F_END};
static const fdesc requantize_fields[] = {F_I32(mpk_requantize_params, size),
                                          F_I32(mpk_requantize_params, in_type),
                                          F_I32(mpk_requantize_params, out_type),
                                          F_I32(mpk_requantize_params, input_zero_point),
                                          F_I32(mpk_requantize_params, output_zero_point),
                                          F_I32(mpk_requantize_params, multiplier),
                                          F_I32(mpk_requantize_params, shift),
                                          F_END};
static const fdesc pad_fields[] = {
    F_I32(mpk_pad_params, elem_size),  F_I32X6(mpk_pad_params, in_dims),
    F_I32X6(mpk_pad_params, out_dims), F_I32X6(mpk_pad_params, before),
    F_U8X4(mpk_pad_params, value),     F_END};
static const fdesc mean_s8_fields[] = {F_I32X6(mpk_mean_s8_params, in_dims),
                                       F_I32X6(mpk_mean_s8_params, out_strides),
                                       F_I32(mpk_mean_s8_params, out_size),
                                       F_I32(mpk_mean_s8_params, count),
                                       F_I32(mpk_mean_s8_params, input_zero_point),
                                       F_I32(mpk_mean_s8_params, output_zero_point),
                                       F_I32(mpk_mean_s8_params, multiplier),
                                       F_I32(mpk_mean_s8_params, shift),
                                       F_END};
static const fdesc mean_f32_fields[] = {
    F_I32X6(mpk_mean_f32_params, in_dims), F_I32X6(mpk_mean_f32_params, out_strides),
    F_I32(mpk_mean_f32_params, out_size), F_I32(mpk_mean_f32_params, count), F_END};
static const fdesc transpose_fields[] = {F_I32(mpk_transpose_params, elem_size),
                                         F_I32X6(mpk_transpose_params, out_dims),
                                         F_I32X6(mpk_transpose_params, in_strides), F_END};
static const fdesc concat_fields[] = {F_I32(mpk_concat_params, n_inputs),
                                      F_I32(mpk_concat_params, outer),
                                      F_PTR(mpk_concat_params, input_bytes, "input_bytes"),
                                      F_PTR_NZ(mpk_concat_params, in_place, "in_place"), F_END};
static const fdesc logistic_s8_fields[] = {F_I32(mpk_logistic_s8_params, size),
                                           F_I32(mpk_logistic_s8_params, input_zero_point),
                                           F_I32(mpk_logistic_s8_params, input_range_radius),
                                           F_I32(mpk_logistic_s8_params, input_multiplier),
                                           F_I32(mpk_logistic_s8_params, input_left_shift),
                                           F_END};
static const fdesc logistic_f32_fields[] = {F_I32(mpk_logistic_f32_params, size), F_END};

static const fdesc conv_s8_fast_fields[] = {
    F_SUB(mpk_conv_s8_fast_params, geom, mp_lower_geom_fields),
    F_SUB(mpk_conv_s8_fast_params, q, requant_fields),
    F_PTR(mpk_conv_s8_fast_params, folded_bias, "folded_bias"),
    F_I32(mpk_conv_s8_fast_params, col_len), F_END};
static const fdesc softmax_s8_fast_fields[] = {
    F_I32(mpk_softmax_s8_fast_params, outer), F_I32(mpk_softmax_s8_fast_params, depth),
    F_PTR(mpk_softmax_s8_fast_params, exp_table, "exp_table"), F_END};
static const fdesc fc_s8_fast_fields[] = {
    F_I32(mpk_fc_s8_fast_params, batches), F_I32(mpk_fc_s8_fast_params, accum_depth),
    F_I32(mpk_fc_s8_fast_params, out_depth), F_SUB(mpk_fc_s8_fast_params, q, requant_fields),
    F_PTR(mpk_fc_s8_fast_params, folded_bias, "folded_bias"), F_END};

typedef struct kinfo {
  const char *fn;
  const char *init_fn;
  const char *params_type;
  const fdesc *fields;
} kinfo;

static const kinfo kinfos[MP_K_COUNT] = {
    [MP_K_NONE] = {"", NULL, NULL, NULL},
    [MP_K_CONV2D_S8] = {"mpk_conv2d_s8", "mpk_conv2d_s8_init", "mpk_conv_s8_params",
                        conv_s8_fields},
    [MP_K_CONV2D_F32] = {"mpk_conv2d_f32", NULL, "mpk_conv_f32_params", conv_f32_fields},
    [MP_K_DEPTHWISE_CONV2D_S8] = {"mpk_depthwise_conv2d_s8", "mpk_depthwise_conv2d_s8_init",
                                  "mpk_conv_s8_params", conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_F32] = {"mpk_depthwise_conv2d_f32", NULL, "mpk_conv_f32_params",
                                   conv_f32_fields},
    [MP_K_FULLY_CONNECTED_S8] = {"mpk_fully_connected_s8", "mpk_fully_connected_s8_init",
                                 "mpk_fc_s8_params", fc_s8_fields},
    [MP_K_FULLY_CONNECTED_F32] = {"mpk_fully_connected_f32", NULL, "mpk_fc_f32_params",
                                  fc_f32_fields},
    [MP_K_CONV2D_S16] = {"mpk_conv2d_s16", NULL, "mpk_conv_s8_params", conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S16] = {"mpk_depthwise_conv2d_s16", NULL, "mpk_conv_s8_params",
                                   conv_s8_fields},
    [MP_K_FULLY_CONNECTED_S16] = {"mpk_fully_connected_s16", NULL, "mpk_fc_s8_params",
                                  fc_s8_fields},
    [MP_K_BATCH_MATMUL_S8] = {"mpk_batch_matmul_s8", NULL, "mpk_batch_matmul_params",
                              mp_lower_batch_matmul_fields},
    [MP_K_BATCH_MATMUL_F32] = {"mpk_batch_matmul_f32", NULL, "mpk_batch_matmul_params",
                               mp_lower_batch_matmul_fields},
    [MP_K_AVG_POOL2D_S8] = {"mpk_avg_pool2d_s8", NULL, "mpk_pool_s8_params", pool_s8_fields},
    [MP_K_AVG_POOL2D_F32] = {"mpk_avg_pool2d_f32", NULL, "mpk_pool_f32_params", pool_f32_fields},
    [MP_K_MAX_POOL2D_S8] = {"mpk_max_pool2d_s8", NULL, "mpk_pool_s8_params", pool_s8_fields},
    [MP_K_MAX_POOL2D_F32] = {"mpk_max_pool2d_f32", NULL, "mpk_pool_f32_params", pool_f32_fields},
    [MP_K_ADD_S8] = {"mpk_add_s8", NULL, "mpk_add_s8_params", add_s8_fields},
    [MP_K_ADD_F32] = {"mpk_add_f32", NULL, "mpk_add_f32_params", add_f32_fields},
    [MP_K_SOFTMAX_S8] = {"mpk_softmax_s8", NULL, "mpk_softmax_s8_params", softmax_s8_fields},
    [MP_K_SOFTMAX_S8_S16] = {"mpk_softmax_s8_s16", NULL, "mpk_softmax_s8_params",
                             softmax_s8_fields},
    [MP_K_SOFTMAX_F32] = {"mpk_softmax_f32", NULL, "mpk_softmax_f32_params", softmax_f32_fields},
    [MP_K_COPY] = {"mpk_copy", NULL, "mpk_copy_params", copy_fields},
    [MP_K_QUANTIZE_F32] = {"mpk_quantize_f32", NULL, "mpk_quantize_params", quantize_fields},
    [MP_K_REQUANTIZE] = {"mpk_requantize", NULL, "mpk_requantize_params", requantize_fields},
    [MP_K_PAD] = {"mpk_pad", NULL, "mpk_pad_params", pad_fields},
    [MP_K_MEAN_S8] = {"mpk_mean_s8", NULL, "mpk_mean_s8_params", mean_s8_fields},
    [MP_K_MEAN_F32] = {"mpk_mean_f32", NULL, "mpk_mean_f32_params", mean_f32_fields},
    [MP_K_MEAN_S16] = {"mpk_mean_s16", NULL, "mpk_mean_s8_params", mean_s8_fields},
    [MP_K_AVG_POOL2D_S16] = {"mpk_avg_pool2d_s16", NULL, "mpk_pool_s8_params", pool_s8_fields},
    [MP_K_MAX_POOL2D_S16] = {"mpk_max_pool2d_s16", NULL, "mpk_pool_s8_params", pool_s8_fields},
    [MP_K_TRANSPOSE] = {"mpk_transpose", NULL, "mpk_transpose_params", transpose_fields},
    [MP_K_CONCAT] = {"mpk_concat", NULL, "mpk_concat_params", concat_fields},
    [MP_K_LOGISTIC_S8] = {"mpk_logistic_s8", NULL, "mpk_logistic_s8_params", logistic_s8_fields},
    [MP_K_LOGISTIC_F32] = {"mpk_logistic_f32", NULL, "mpk_logistic_f32_params",
                           logistic_f32_fields},
    [MP_K_CONV2D_S8_1X1] = {"mpk_conv2d_s8_1x1", NULL, "mpk_conv_s8_fast_params",
                            conv_s8_fast_fields},
    [MP_K_CONV2D_S8_IM2COL] = {"mpk_conv2d_s8_im2col", NULL, "mpk_conv_s8_fast_params",
                               conv_s8_fast_fields},
    [MP_K_DEPTHWISE_CONV2D_S8_FAST] = {"mpk_depthwise_conv2d_s8_fast", NULL,
                                       "mpk_conv_s8_fast_params", conv_s8_fast_fields},
    [MP_K_FULLY_CONNECTED_S8_FAST] = {"mpk_fully_connected_s8_fast", NULL,
                                      "mpk_fc_s8_fast_params", fc_s8_fast_fields},
    [MP_K_SVDF_S8] = {"mpk_svdf_s8", NULL, "mpk_svdf_s8_params", mp_lower_svdf_s8_fields},
    [MP_K_LSTM_S8] = {"mpk_lstm_s8", NULL, "mpk_lstm_s8_params", mp_lower_lstm_s8_fields},
    [MP_K_SVDF_F32] = {"mpk_svdf_f32", NULL, "mpk_svdf_f32_params", mp_lower_svdf_f32_fields},
    [MP_K_LSTM_F32] = {"mpk_lstm_f32", NULL, "mpk_lstm_f32_params", mp_lower_lstm_f32_fields},
    [MP_K_BINARY_Q] = {"mpk_binary_q", NULL, "mpk_binary_q_params", mp_lower_binary_q_fields},
    [MP_K_BINARY_F32] = {"mpk_binary_f32", NULL, "mpk_binary_f32_params",
                         mp_lower_binary_f32_fields},
    [MP_K_UNARY_Q] = {"mpk_unary_q", NULL, "mpk_unary_q_params", mp_lower_unary_q_fields},
    [MP_K_UNARY_F32] = {"mpk_unary_f32", NULL, "mpk_unary_f32_params", mp_lower_unary_f32_fields},
    [MP_K_DEQUANTIZE] = {"mpk_dequantize", NULL, "mpk_dequantize_params",
                         mp_lower_dequantize_fields},
    [MP_K_CAST] = {"mpk_cast", NULL, "mpk_cast_params", mp_lower_cast_fields},
    [MP_K_LUT_S8] = {"mpk_lut_s8", NULL, "mpk_lut_s8_params", mp_lower_lut_s8_fields},
    [MP_K_SOFTMAX_S16] = {"mpk_softmax_s16", NULL, "mpk_softmax_s16_params",
                          mp_lower_softmax_s16_fields},
    [MP_K_STRIDED_COPY] = {"mpk_strided_copy", NULL, "mpk_strided_copy_params",
                           mp_lower_strided_copy_fields},
    [MP_K_SPLIT] = {"mpk_split", NULL, "mpk_split_params", mp_lower_split_fields},
    [MP_K_GATHER] = {"mpk_gather", NULL, "mpk_gather_params", mp_lower_gather_fields},
    [MP_K_RESIZE_NEAREST] = {"mpk_resize_nearest", NULL, "mpk_resize_params",
                             mp_lower_resize_fields},
    [MP_K_RESIZE_BILINEAR_S8] = {"mpk_resize_bilinear_s8", NULL, "mpk_resize_params",
                                 mp_lower_resize_fields},
    [MP_K_RESIZE_BILINEAR_F32] = {"mpk_resize_bilinear_f32", NULL, "mpk_resize_params",
                                  mp_lower_resize_fields},
    [MP_K_REDUCE] = {"mpk_reduce", NULL, "mpk_reduce_params", mp_lower_reduce_fields},
    [MP_K_ARG_MAX] = {"mpk_arg_max", NULL, "mpk_arg_max_params", mp_lower_arg_max_fields},
    [MP_K_TRANSPOSE_CONV_S8] = {"mpk_transpose_conv_s8", NULL, "mpk_transpose_conv_params",
                                mp_lower_transpose_conv_fields},
    [MP_K_TRANSPOSE_CONV_S16] = {"mpk_transpose_conv_s16", NULL, "mpk_transpose_conv_params",
                                 mp_lower_transpose_conv_fields},
    [MP_K_TRANSPOSE_CONV_F32] = {"mpk_transpose_conv_f32", NULL, "mpk_transpose_conv_params",
                                 mp_lower_transpose_conv_fields},
    [MP_K_ADD_S8_FAST] = {"mpk_add_s8_fast", NULL, "mpk_add_s8_params", add_s8_fields},
    [MP_K_MUL_S8_FAST] = {"mpk_mul_s8_fast", NULL, "mpk_binary_q_params",
                          mp_lower_binary_q_fields},
    [MP_K_AVG_POOL2D_S8_FAST] = {"mpk_avg_pool2d_s8_fast", NULL, "mpk_pool_s8_params",
                                 pool_s8_fields},
    [MP_K_MAX_POOL2D_S8_FAST] = {"mpk_max_pool2d_s8_fast", NULL, "mpk_pool_s8_params",
                                 pool_s8_fields},
    [MP_K_SOFTMAX_S8_FAST] = {"mpk_softmax_s8_fast", NULL, "mpk_softmax_s8_fast_params",
                              softmax_s8_fast_fields},
    [MP_K_CONV2D_S16_FAST] = {"mpk_conv2d_s16_fast", NULL, "mpk_conv_s8_params", conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S16_FAST] = {"mpk_depthwise_conv2d_s16_fast", NULL,
                                        "mpk_conv_s8_params", conv_s8_fields},
    [MP_K_FULLY_CONNECTED_S16_FAST] = {"mpk_fully_connected_s16_fast", NULL, "mpk_fc_s8_params",
                                       fc_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S8_SERIAL] = {"mpk_depthwise_conv2d_s8_serial",
                                         "mpk_depthwise_conv2d_s8_init", "mpk_conv_s8_params",
                                         conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S16_SERIAL] = {"mpk_depthwise_conv2d_s16_serial", NULL,
                                          "mpk_conv_s8_params", conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_F32_SERIAL] = {"mpk_depthwise_conv2d_f32_serial", NULL,
                                          "mpk_conv_f32_params", conv_f32_fields},
    [MP_K_SIGNAL_WINDOW] = {"mpk_signal_window", NULL, "mpk_signal_window_params",
                            mp_lower_signal_window_fields},
    [MP_K_SIGNAL_FFT_AUTO_SCALE] = {"mpk_signal_fft_auto_scale", NULL,
                                    "mpk_signal_fft_auto_scale_params",
                                    mp_lower_signal_fft_auto_scale_fields},
    [MP_K_SIGNAL_RFFT] = {"mpk_signal_rfft", NULL, "mpk_signal_rfft_params",
                          mp_lower_signal_rfft_fields},
    [MP_K_SIGNAL_ENERGY] = {"mpk_signal_energy", NULL, "mpk_signal_energy_params",
                            mp_lower_signal_energy_fields},
    [MP_K_SIGNAL_FILTER_BANK] = {"mpk_signal_filter_bank", NULL, "mpk_signal_filter_bank_params",
                                 mp_lower_signal_filter_bank_fields},
    [MP_K_SIGNAL_FILTER_BANK_SQRT] = {"mpk_signal_filter_bank_sqrt", NULL,
                                      "mpk_signal_filter_bank_sqrt_params",
                                      mp_lower_signal_filter_bank_sqrt_fields},
    [MP_K_SIGNAL_SPECTRAL_SUBTRACTION] = {"mpk_signal_spectral_subtraction", NULL,
                                          "mpk_signal_spectral_subtraction_params",
                                          mp_lower_signal_spectral_subtraction_fields},
    [MP_K_SIGNAL_PCAN] = {"mpk_signal_pcan", NULL, "mpk_signal_pcan_params",
                          mp_lower_signal_pcan_fields},
    [MP_K_SIGNAL_FILTER_BANK_LOG] = {"mpk_signal_filter_bank_log", NULL,
                                     "mpk_signal_filter_bank_log_params",
                                     mp_lower_signal_filter_bank_log_fields},
};

const char *mp_kernel_fn(mp_kernel k) {
  return (unsigned)k < MP_K_COUNT && kinfos[k].fn ? kinfos[k].fn : "";
}

/* ------------------------------------------------------------------------ */
/* Context and small helpers                                                */
/* ------------------------------------------------------------------------ */

typedef mp_lower_ctx ctx;

static mp_loc model_loc(const ctx *c) { return (mp_loc){c->g->model->path, 0, 0, -1, NULL, NULL}; }

/* The op is fine, but memplan has no kernel for this configuration. */
static mp_status unsupported(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static mp_status vunsupported(ctx *c, const char *fmt, va_list ap);
static mp_status unsupported(ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_status st = vunsupported(c, fmt, ap);
  va_end(ap);
  return st;
}

/* The model contradicts itself: an error naming the operator. */
static mp_status malformed(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static mp_status malformed(ctx *c, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mp_error(c->dx, model_loc(c), "operator %u (%s): %s", c->op->model_index, c->op->name, msg);
  return MP_ERR_MODEL;
}

static void add_arg(ctx *c, int32_t tensor, bool is_output, const char *ctype) {
  mp_lower_arg *a = &c->lo->args[c->lo->n_args++];
  a->kind = MP_LARG_TENSOR;
  a->is_output = is_output;
  a->tensor = tensor;
  a->ctype = ctype;
}

int32_t *mp_lower_add_array(mp_lowered_op *lo, const char *name, uint32_t n) {
  if (lo->n_arrays >= MP_LOWER_MAX_ARRAYS) return NULL;
  mp_lower_array *a = &lo->arrays[lo->n_arrays];
  a->data = calloc(n ? n : 1, sizeof(int32_t));
  if (!a->data) return NULL;
  a->name = name;
  a->n = n;
  lo->n_arrays++;
  return a->data;
}

/* Declare the kernel's overlap contract for (input arg, output arg), the
 * gap coming from the kernel's own contract function (mpk.h). */
void mp_lower_add_overlap(mp_lowered_op *lo, uint32_t in_arg, uint32_t out_arg, int64_t gap) {
  mp_lower_add_overlap_period(lo, in_arg, out_arg, (mpk_overlap){gap, 1});
}

void mp_lower_add_overlap_period(mp_lowered_op *lo, uint32_t in_arg, uint32_t out_arg,
                                 mpk_overlap ov) {
  if (ov.min_gap == MPK_NO_OVERLAP || ov.period < 1 || lo->n_overlaps >= MP_LOWER_MAX_OVERLAPS)
    return;
  lo->overlaps[lo->n_overlaps++] = (mp_lower_overlap){in_arg, out_arg, ov.min_gap, ov.period};
}

static void add_overlap(ctx *c, uint32_t in_arg, uint32_t out_arg, int64_t gap) {
  mp_lower_add_overlap(c->lo, in_arg, out_arg, gap);
}

/* Bytes of one element of tensor t (0 for sub-byte or unsized types). */
static int32_t elem_bytes(const ctx *c, int32_t t) { return (int32_t)(mp_dtype_bits(dtype(c, t)) / 8); }

void mp_lower_elementwise_overlap(mp_lower_ctx *c, uint32_t k, int32_t t, uint32_t o,
                                  int32_t out) {
  int32_t n;
  if (elems(c, t) != elems(c, out) || !elems_i32(c, out, &n)) return;
  add_overlap(c, k, o, mpk_elementwise_overlap_gap(n, elem_bytes(c, t), elem_bytes(c, out)));
}

static void elementwise_overlap(ctx *c, uint32_t k, int32_t t, uint32_t o, int32_t out) {
  mp_lower_elementwise_overlap(c, k, t, o, out);
}

/* A new int32 array owned by the lowered op. */
static int32_t *add_array(ctx *c, const char *name, uint32_t n) {
  return mp_lower_add_array(c->lo, name, n);
}

void mp_lower_use_kernel(mp_lowered_op *lo, mp_kernel k) {
  /* overlap contracts belong to a kernel's loops: a new kernel starts
   * without any (its lowering declares its own) */
  lo->n_overlaps = 0;
  lo->kernel = k;
  lo->supported = true;
  lo->fn = kinfos[k].fn;
  lo->init_fn = kinfos[k].init_fn;
  lo->params_type = kinfos[k].params_type;
}

static void set_kernel(ctx *c, mp_kernel k) {
  if (c->lo->reason[0]) return; /* a helper found it unsupported: stays so */
  mp_lower_use_kernel(c->lo, k);
}

static const char *dtname(int32_t dt) { return mp_dtype_name(dt); }

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

typedef mp_lower_opts opts;

/* Open the op's options table, which must be of union type `type` when
 * present.  Absent options read as the schema defaults. */
static mp_status open_opts(ctx *c, uint8_t type, const char *what, opts *o) {
  memset(o, 0, sizeof *o);
  o->ok = true;
  const mp_op_def *od = c->op->def;
  if (od->builtin_options_pos == 0) return MP_OK;
  if (od->builtin_options_type != type)
    return malformed(c, "builtin options have union type %u, expected %s (%u)",
                     od->builtin_options_type, what, type);
  const mp_model *m = c->g->model;
  fb_init(&o->f, m->bytes, m->size, m->path, c->dx);
  if (!fb_table_at(&o->f, od->builtin_options_pos, what, &o->t))
    return malformed(c, "its %s table does not validate", what);
  o->present = true;
  return MP_OK;
}

static int32_t opt_i32(opts *o, uint32_t id, int32_t def) {
  int32_t v = def;
  if (o->present && !fb_i32(&o->t, id, def, &v)) o->ok = false;
  return v;
}
static int32_t opt_i8(opts *o, uint32_t id, int8_t def) {
  int8_t v = def;
  if (o->present && !fb_i8(&o->t, id, def, &v)) o->ok = false;
  return v;
}
static bool opt_bool(opts *o, uint32_t id, bool def) {
  uint8_t v = def;
  if (o->present && !fb_u8(&o->t, id, def, &v)) o->ok = false;
  return v != 0;
}
static float opt_f32(opts *o, uint32_t id, float def) {
  float v = def;
  if (o->present && !fb_f32(&o->t, id, def, &v)) o->ok = false;
  return v;
}

/* ------------------------------------------------------------------------ */
/* TFLite's preparation arithmetic                                          */
/* ------------------------------------------------------------------------ */

/* QuantizeMultiplier: m = q * 2^shift with q in [0.5, 1) as Q31.  A ratio
 * of scales that is not finite or needs a shift above 31 has no such form
 * (TFLite asserts): it marks the op malformed and yields 0. */
static void quantize_multiplier(ctx *c, double m, int32_t *qm, int32_t *shift) {
  if (!isfinite(m) || m < 0.0 || m >= 2147483648.0) {
    c->bad_multiplier = true;
    m = 0.0;
  }
  if (m == 0.0) {
    *qm = 0;
    *shift = 0;
    return;
  }
  int e = 0;
  double q = frexp(m, &e);
  int64_t qf = (int64_t)round(q * (double)(1LL << 31));
  if (qf == (1LL << 31)) {
    qf /= 2;
    e++;
  }
  if (e < -31) { /* flushes to zero, as TFLite does */
    e = 0;
    qf = 0;
  }
  *qm = (int32_t)qf;
  *shift = e;
}

/* TFLite's MEAN rescaling: QuantizeMultiplier(real), then 1 / count
 * folded into the multiplier by an integer division after a left shift of
 * s = min(floor(log2 count), 32, 31 + shift) bits, which the shift gives
 * back.  It is not the multiplier of real / count: the two round
 * differently, and the kernel must round like TFLite. */
static void mean_multiplier(ctx *c, double real, int32_t count, int32_t *qm, int32_t *shift) {
  quantize_multiplier(c, real, qm, shift);
  int s = 0;
  while (s < 32 && ((int64_t)count >> (s + 1)) > 0)
    s++;
  if (s > 31 + *shift) s = 31 + *shift;
  *qm = (int32_t)(((int64_t)*qm << s) / count);
  *shift -= s;
}

/* CalculateActivationRangeQuantized; false for activations without a
 * range (TANH, SIGN_BIT), which TensorFlow Lite Micro refuses on quantised
 * operators. */
/* zp + round(f / scale) in float, as TFLite computes it, clamped to
 * [qmin, qmax] before it becomes an int (a tiny scale gives infinity). */
static int32_t quantize_clamped(float f, float scale, int32_t zp, int32_t qmin, int32_t qmax) {
  double v = (double)zp + (double)roundf(f / scale);
  if (!(v > (double)qmin)) return qmin; /* NaN too */
  if (v > (double)qmax) return qmax;
  return (int32_t)v;
}

static bool act_range_q(int32_t act, float scale, int32_t zp, int32_t qmin, int32_t qmax,
                        int32_t *lo, int32_t *hi) {
#define QUANTIZE(f) quantize_clamped((f), scale, zp, qmin, qmax)
  switch (act) {
  case ACT_NONE: *lo = qmin, *hi = qmax; return true;
  case ACT_RELU:
    *lo = QUANTIZE(0.0f) > qmin ? QUANTIZE(0.0f) : qmin;
    *hi = qmax;
    return true;
  case ACT_RELU6:
    *lo = QUANTIZE(0.0f) > qmin ? QUANTIZE(0.0f) : qmin;
    *hi = QUANTIZE(6.0f) < qmax ? QUANTIZE(6.0f) : qmax;
    return true;
  case ACT_RELU_N1_TO_1:
    *lo = QUANTIZE(-1.0f) > qmin ? QUANTIZE(-1.0f) : qmin;
    *hi = QUANTIZE(1.0f) < qmax ? QUANTIZE(1.0f) : qmax;
    return true;
  default: return false;
  }
#undef QUANTIZE
}

/* CalculateActivationRange: TANH and SIGN_BIT have no range, so a float
 * operator that fuses one clamps nothing, as TensorFlow Lite Micro and
 * LiteRT run it (only SVDF applies them, src/lower/recurrent.c). */
static bool act_range_f(int32_t act, float *lo, float *hi) {
  switch (act) {
  case ACT_NONE:
  case ACT_TANH:
  case ACT_SIGN_BIT: *lo = -FLT_MAX, *hi = FLT_MAX; return true;
  case ACT_RELU: *lo = 0.0f, *hi = FLT_MAX; return true;
  case ACT_RELU6: *lo = 0.0f, *hi = 6.0f; return true;
  case ACT_RELU_N1_TO_1: *lo = -1.0f, *hi = 1.0f; return true;
  default: return false;
  }
}

static const char *act_name(int32_t act) {
  static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
  return act >= 0 && act <= 5 ? names[act] : "unknown";
}

/* ComputeOutSize / ComputePaddingWithOffset of TFLite, in 64-bit
 * arithmetic: the operands are int32 from the model, so no intermediate
 * overflows; spatial() checks that the results fit the kernels' int32. */
static int64_t conv_out_size(int32_t padding, int32_t in, int32_t filter, int32_t stride,
                             int32_t dilation) {
  int64_t eff = ((int64_t)filter - 1) * dilation + 1;
  if (stride <= 0) return 0;
  return padding == PAD_SAME ? ((int64_t)in + stride - 1) / stride
                             : ((int64_t)in + stride - eff) / stride;
}

static int64_t conv_pad(int32_t stride, int32_t dilation, int32_t in, int32_t filter, int64_t out) {
  int64_t eff = ((int64_t)filter - 1) * dilation + 1;
  int64_t total = (out - 1) * stride + eff - in;
  return total > 0 ? total / 2 : 0;
}

const mpk_conv_geom *mp_lower_window_geom(const mp_lowered_op *lo) {
  if (!lo->supported) return NULL;
  switch (lo->kernel) {
  case MP_K_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_S8:
  case MP_K_CONV2D_S16:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_CONV2D_S16_FAST:
  case MP_K_DEPTHWISE_CONV2D_S16_FAST: return &lo->params.conv_s8.geom;
  case MP_K_CONV2D_F32:
  case MP_K_DEPTHWISE_CONV2D_F32: return &lo->params.conv_f32.geom;
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST: return &lo->params.conv_s8_fast.geom;
  case MP_K_AVG_POOL2D_S8:
  case MP_K_MAX_POOL2D_S8:
  case MP_K_AVG_POOL2D_S16:
  case MP_K_MAX_POOL2D_S16:
  case MP_K_AVG_POOL2D_S8_FAST:
  case MP_K_MAX_POOL2D_S8_FAST: return &lo->params.pool_s8.geom;
  case MP_K_AVG_POOL2D_F32:
  case MP_K_MAX_POOL2D_F32: return &lo->params.pool_f32.geom;
  default: return NULL;
  }
}

bool mp_lower_view_strides(mpk_conv_geom *g, uint64_t elem, uint64_t row, uint64_t stride) {
  if (elem == 0 || row == 0 || row % elem || stride % elem || stride / elem > INT32_MAX ||
      g->out_c <= 0 || g->out_w <= 0 || g->out_h <= 0)
    return false;
  const uint64_t r = row / elem, s = stride / elem;
  const uint64_t pixel = (uint64_t)g->out_c, line = pixel * (uint64_t)g->out_w,
                 image = line * (uint64_t)g->out_h;
  g->out_pixel_stride = g->out_row_stride = g->out_batch_stride = 0;
  if (r == pixel)
    g->out_pixel_stride = (int32_t)s;
  else if (r == line)
    g->out_row_stride = (int32_t)s;
  else if (r == image)
    g->out_batch_stride = (int32_t)s;
  else
    return false;
  return mpk_out_strides_ok(g);
}

/* The output strides of a window kernel whose output `out` is a strided
 * view (views.c); nothing for any other output. */
static mp_status view_strides(ctx *c, int32_t out, mpk_conv_geom *g) {
  const mp_tensor *x = &c->g->tensors[out];
  if (x->alias_of < 0 || x->alias_stride == 0) return MP_OK;
  if (!mp_lower_view_strides(g, mp_dtype_align(x->dtype), x->alias_row, x->alias_stride))
    return unsupported(c, "its output is a strided view (rows of %llu bytes, %llu apart) that "
                          "its kernel cannot write",
                       (unsigned long long)x->alias_row, (unsigned long long)x->alias_stride);
  return MP_OK;
}

/* Fill the spatial part of a geometry from padding/stride/dilation and the
 * NHWC input and output; checks the output size TFLite would compute, and
 * that every index the kernels compute, up to (out - 1) * stride + (filter
 * - 1) * dilation, fits in int32. */
static mp_status spatial(ctx *c, mpk_conv_geom *g, int32_t in, int32_t out, int32_t padding,
                         int32_t stride_h, int32_t stride_w, int32_t dil_h, int32_t dil_w) {
  if (rank(c, in) != 4 || rank(c, out) != 4)
    return malformed(c, "input and output must have rank 4 (have %u and %u)", rank(c, in),
                     rank(c, out));
  int32_t n_in, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return unsupported(c, "more than 2^31 elements");
  if (padding != PAD_SAME && padding != PAD_VALID)
    return malformed(c, "unknown padding %d", padding);
  if (stride_h <= 0 || stride_w <= 0 || dil_h <= 0 || dil_w <= 0)
    return malformed(c, "strides (%d, %d) and dilations (%d, %d) must be positive", stride_h,
                     stride_w, dil_h, dil_w);
  mp_lower_nhwc_geom(c, in, out, stride_h, stride_w, g);
  g->dilation_h = dil_h;
  g->dilation_w = dil_w;
  for (uint32_t d = 0; d < 4; d++)
    if (dim(c, in, d) <= 0 || dim(c, out, d) <= 0)
      return malformed(c,
                       "input [%d,%d,%d,%d] and output [%d,%d,%d,%d] need positive "
                       "dimensions",
                       dim(c, in, 0), dim(c, in, 1), dim(c, in, 2), dim(c, in, 3), dim(c, out, 0),
                       dim(c, out, 1), dim(c, out, 2), dim(c, out, 3));
  if (g->filter_h <= 0 || g->filter_w <= 0)
    return malformed(c, "filter window %dx%d must be positive", g->filter_h, g->filter_w);
  int64_t oh = conv_out_size(padding, g->in_h, g->filter_h, stride_h, dil_h);
  int64_t ow = conv_out_size(padding, g->in_w, g->filter_w, stride_w, dil_w);
  if (oh != g->out_h || ow != g->out_w || dim(c, out, 0) != g->batches)
    return malformed(c, "output is %dx%dx%d but %s padding gives %dx%lldx%lld", dim(c, out, 0),
                     g->out_h, g->out_w, padding == PAD_SAME ? "SAME" : "VALID", g->batches,
                     (long long)oh, (long long)ow);
  int64_t reach_h = (oh - 1) * stride_h + ((int64_t)g->filter_h - 1) * dil_h;
  int64_t reach_w = (ow - 1) * stride_w + ((int64_t)g->filter_w - 1) * dil_w;
  if (reach_h > INT32_MAX || reach_w > INT32_MAX)
    return malformed(c,
                     "window %dx%d with strides (%d, %d) and dilations (%d, %d) reaches "
                     "row %lld, column %lld: beyond 32-bit indexing",
                     g->filter_h, g->filter_w, stride_h, stride_w, dil_h, dil_w, (long long)reach_h,
                     (long long)reach_w);
  g->pad_h = (int32_t)conv_pad(stride_h, dil_h, g->in_h, g->filter_h, oh);
  g->pad_w = (int32_t)conv_pad(stride_w, dil_w, g->in_w, g->filter_w, ow);
  return MP_OK;
}

/* Per-channel (or broadcast per-tensor) multipliers of a conv-like op,
 * as PopulateConvolutionQuantizationParams computes them. */
static mp_status conv_requant(ctx *c, int32_t in, int32_t filter, int32_t out, int32_t act,
                              int32_t channels, bool always_per_channel, mpk_requant *q) {
  float in_scale, out_scale, f_scale;
  int32_t in_zp, out_zp, f_zp;
  if (!quant(c, in, &in_scale, &in_zp) || !quant(c, out, &out_scale, &out_zp) ||
      !quant(c, filter, &f_scale, &f_zp))
    return unsupported(c, "int8 tensors without quantisation parameters");
  const mp_quant *fq = &tdef(c, filter)->quant;
  bool per_channel = fq->n_scale > 1;
  if (per_channel && fq->n_scale != (uint32_t)channels)
    return malformed(c, "filter has %u scales for %d output channels", fq->n_scale, channels);
  for (uint32_t i = 0; i < fq->n_zero_point; i++)
    if (fq->zero_point[i] != 0 && !(c->op->builtin_code == OP_FULLY_CONNECTED && !per_channel))
      return unsupported(c, "int8 filter with a non-zero zero point");
  bool wide = dtype(c, out) == MP_DTYPE_INT16; /* 16x8 */
  if (!act_range_q(act, out_scale, out_zp, wide ? -32768 : -128, wide ? 32767 : 127, &q->act_min,
                   &q->act_max))
    return unsupported(c, MP_LOWER_ACT_Q_REFUSED, act_name(act));
  if (wide && (in_zp != 0 || out_zp != 0))
    return unsupported(c, "int16 tensors with a non-zero zero point");
  q->input_offset = -in_zp;
  q->output_offset = out_zp;
  uint32_t n = (per_channel || always_per_channel) ? (uint32_t)channels : 1;
  int32_t *mult = add_array(c, "multiplier", n);
  int32_t *shift = mult ? add_array(c, "shift", n) : NULL;
  if (!shift) return MP_ERR_NOMEM;
  for (uint32_t i = 0; i < n; i++) {
    double real;
    if (per_channel || always_per_channel) {
      double fs = (double)(per_channel ? fq->scale[i] : fq->scale[0]);
      real = (double)in_scale * fs / (double)out_scale;
    } else {
      /* GetQuantizedConvolutionMultipler: the product is taken in float */
      float product = in_scale * f_scale;
      real = (double)product / (double)out_scale;
    }
    quantize_multiplier(c, real, &mult[i], &shift[i]);
  }
  q->per_channel = n > 1 || always_per_channel;
  q->multiplier = mult;
  q->shift = shift;
  return MP_OK;
}

/* ------------------------------------------------------------------------ */
/* Operators                                                                */
/* ------------------------------------------------------------------------ */

/* The element types a filter operator (CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED) runs with: all int8 with an int32 bias (*s8 = true) or
 * all float32; anything else is unsupported. */
static mp_status filter_types(ctx *c, int32_t in, int32_t filter, int32_t bias, int32_t out,
                              bool *s8) {
  int32_t dti = dtype(c, in), dtf = dtype(c, filter), dto = dtype(c, out);
  int32_t dtb = bias >= 0 ? dtype(c, bias) : -1;
  *s8 = dti == MP_DTYPE_INT8 && dtf == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8 &&
        (bias < 0 || dtb == MP_DTYPE_INT32);
  bool f32 = dti == MP_DTYPE_FLOAT32 && dtf == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32 &&
             (bias < 0 || dtb == MP_DTYPE_FLOAT32);
  if (*s8 || f32) return MP_OK;
  return unsupported(c,
                     "input %s, filter %s, bias %s, output %s (supported: all int8 with int32 "
                     "bias, or all float32)",
                     dtname(dti), dtname(dtf), bias >= 0 ? dtname(dtb) : "none", dtname(dto));
}

/* 16x8: int16 input and output, int8 filter, int64 bias (or none). */
static bool filter_is_s16(const ctx *c, int32_t in, int32_t filter, int32_t bias, int32_t out) {
  return dtype(c, in) == MP_DTYPE_INT16 && dtype(c, filter) == MP_DTYPE_INT8 &&
         dtype(c, out) == MP_DTYPE_INT16 && (bias < 0 || dtype(c, bias) == MP_DTYPE_INT64);
}

/* spatial() of an operator that may read a folded PAD's input (rewrite.c):
 * the window geometry is the model's, on the padded tensor; the kernel
 * reads the unpadded one, the PAD's rows and columns joining its own top /
 * left padding (the bottom / right follow from the sizes). */
static mp_status spatial_folded(ctx *c, mpk_conv_geom *g, int32_t in, int32_t out,
                                int32_t padding, int32_t stride_h, int32_t stride_w,
                                int32_t dil_h, int32_t dil_w) {
  const int32_t *fp = c->op->folded_pad >= 0 ? c->op->fold_pad : NULL;
  int32_t shape_of = fp ? c->g->ops[c->op->folded_pad].outputs[0] : in;
  mp_status st = spatial(c, g, shape_of, out, padding, stride_h, stride_w, dil_h, dil_w);
  if (st != MP_OK || c->lo->reason[0] || !fp) return st;
  g->in_h -= fp[0] + fp[1];
  g->in_w -= fp[2] + fp[3];
  g->pad_h += fp[0];
  g->pad_w += fp[2];
  if (g->in_h != dim(c, in, 1) || g->in_w != dim(c, in, 2) || g->in_c != dim(c, in, 3) ||
      g->batches != dim(c, in, 0))
    return malformed(c, "its folded PAD's input does not match the padded shape");
  return MP_OK;
}

/* A depthwise convolution that memory.in_place chose to run channel by
 * channel (mp_op.channel_serial): the serial kernel k, its one-channel
 * temporary and its contract replace the reference kernel's, the
 * arguments staying as they are.  Nothing when the geometry is not one the
 * serial kernel runs. */
static void serial_depthwise(ctx *c, const mpk_conv_geom *g, mp_kernel k, int32_t elem) {
  mpk_overlap ov = mpk_depthwise_conv2d_serial_overlap(g, elem);
  int64_t tmp = mpk_depthwise_conv2d_serial_scratch(g, elem);
  if (!c->op->channel_serial || ov.min_gap == MPK_NO_OVERLAP || tmp <= 0) return;
  mp_lower_use_kernel(c->lo, k);
  mp_lower_add_overlap_period(c->lo, 0, 3, ov);
  c->lo->scratch_bytes = (uint64_t)tmp;
  c->lo->scratch_align = (uint32_t)elem;
}

/* Could operator op run channel by channel (mp_op.channel_serial)? */
bool mp_lower_serial_candidate(const mp_graph *g, uint32_t op) {
  if (op >= g->n_ops || g->ops[op].builtin_code != 4 /* DEPTHWISE_CONV_2D */) return false;
  mp_lowered_op lo;
  bool ok = false;
  if (mp_lower_op(g, op, &lo, NULL) == MP_OK && lo.supported) {
    const mpk_conv_geom *cg = mp_lower_window_geom(&lo);
    int32_t out = g->ops[op].n_outputs ? g->ops[op].outputs[0] : -1;
    int32_t e = out >= 0 ? (int32_t)(mp_dtype_bits(g->tensors[out].dtype) / 8) : 0;
    ok = cg && mpk_depthwise_conv2d_serial_scratch(cg, e) > 0;
  }
  mp_lower_free(&lo);
  return ok;
}

static mp_status lower_conv(ctx *c, bool depthwise) {
  int32_t in = in_t(c, 0), filter = in_t(c, 1), bias = in_t(c, 2), out = out_t(c, 0);
  if (in < 0 || filter < 0 || out < 0)
    return malformed(c, "needs an input, a filter and an output");
  opts o;
  mp_status st = open_opts(c, depthwise ? OPT_DEPTHWISE_CONV2D : OPT_CONV2D,
                           depthwise ? "DepthwiseConv2DOptions" : "Conv2DOptions", &o);
  if (st != MP_OK) return st;
  int32_t padding = opt_i8(&o, 0, 0), stride_w = opt_i32(&o, 1, 0), stride_h = opt_i32(&o, 2, 0);
  int32_t act = opt_i8(&o, depthwise ? 4 : 3, 0);
  int32_t dil_w = opt_i32(&o, depthwise ? 5 : 4, 1), dil_h = opt_i32(&o, depthwise ? 6 : 5, 1);
  if (!o.ok) return malformed(c, "its options do not validate");
  if (rank(c, filter) != 4) return malformed(c, "filter must have rank 4");

  bool s8 = false, s16 = filter_is_s16(c, in, filter, bias, out);
  if (!s16 && (st = filter_types(c, in, filter, bias, out, &s8)) != MP_OK) return st;

  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.filter_h = dim(c, filter, 1);
  g.filter_w = dim(c, filter, 2);
  st = spatial_folded(c, &g, in, out, padding, stride_h, stride_w, dil_h, dil_w);
  if (st != MP_OK || c->lo->reason[0]) return st;
  if (depthwise) {
    if (dim(c, filter, 0) != 1 || dim(c, filter, 3) != g.out_c)
      return malformed(c, "depthwise filter must be [1, h, w, %d]", g.out_c);
    if (g.in_c <= 0 || g.out_c % g.in_c != 0)
      return malformed(c, "output channels %d are not a multiple of input channels %d", g.out_c,
                       g.in_c);
    g.depth_multiplier = g.out_c / g.in_c;
  } else {
    g.filter_c = dim(c, filter, 3);
    if (dim(c, filter, 0) != g.out_c)
      return malformed(c, "filter has %d output channels, output has %d", dim(c, filter, 0),
                       g.out_c);
    if (g.filter_c <= 0 || g.in_c % g.filter_c != 0 || g.out_c % (g.in_c / g.filter_c) != 0)
      return malformed(c, "filter depth %d does not divide input depth %d into groups", g.filter_c,
                       g.in_c);
  }
  if (bias >= 0 && elems(c, bias) != (uint64_t)g.out_c)
    return malformed(c, "bias has %llu elements for %d output channels",
                     (unsigned long long)elems(c, bias), g.out_c);
  if ((st = view_strides(c, out, &g)) != MP_OK || c->lo->reason[0]) return st;

  if (s8 || s16) {
    mpk_conv_s8_params *p = &c->lo->params.conv_s8;
    p->geom = g;
    st = conv_requant(c, in, filter, out, act, g.out_c, true, &p->q);
    if (st != MP_OK) return st;
    if (c->lo->reason[0]) return MP_OK;
    if (s16) {
      set_kernel(c, depthwise ? MP_K_DEPTHWISE_CONV2D_S16 : MP_K_CONV2D_S16);
      add_arg(c, in, false, "const int16_t *");
      add_arg(c, filter, false, "const int8_t *");
      add_arg(c, bias, false, "const int64_t *");
      add_arg(c, out, true, "int16_t *");
      /* the int8 kernels' walk (mpk_conv.c), over 2-byte elements */
      add_overlap(c, 0, 3, mpk_conv2d_overlap_gap(&g, 2, 2));
      if (depthwise) serial_depthwise(c, &g, MP_K_DEPTHWISE_CONV2D_S16_SERIAL, 2);
      return MP_OK;
    }
    set_kernel(c, depthwise ? MP_K_DEPTHWISE_CONV2D_S8 : MP_K_CONV2D_S8);
    add_arg(c, in, false, "const int8_t *");
    add_arg(c, filter, false, "const int8_t *");
    add_arg(c, bias, false, "const int32_t *");
    add_arg(c, out, true, "int8_t *");
    add_overlap(c, 0, 3, mpk_conv2d_overlap_gap(&g, 1, 1));
    if (depthwise) serial_depthwise(c, &g, MP_K_DEPTHWISE_CONV2D_S8_SERIAL, 1);
  } else {
    mpk_conv_f32_params *p = &c->lo->params.conv_f32;
    p->geom = g;
    if (!act_range_f(act, &p->act_min, &p->act_max))
      return unsupported(c, "fused activation %s", act_name(act));
    set_kernel(c, depthwise ? MP_K_DEPTHWISE_CONV2D_F32 : MP_K_CONV2D_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, filter, false, "const float *");
    add_arg(c, bias, false, "const float *");
    add_arg(c, out, true, "float *");
    add_overlap(c, 0, 3, mpk_conv2d_overlap_gap(&g, 4, 4));
    if (depthwise) serial_depthwise(c, &g, MP_K_DEPTHWISE_CONV2D_F32_SERIAL, 4);
  }
  return MP_OK;
}

static mp_status lower_fc(ctx *c) {
  int32_t in = in_t(c, 0), filter = in_t(c, 1), bias = in_t(c, 2), out = out_t(c, 0);
  if (in < 0 || filter < 0 || out < 0)
    return malformed(c, "needs an input, a filter and an output");
  opts o;
  mp_status st = open_opts(c, OPT_FULLY_CONNECTED, "FullyConnectedOptions", &o);
  if (st != MP_OK) return st;
  int32_t act = opt_i8(&o, 0, 0), weights_format = opt_i8(&o, 1, 0);
  if (!o.ok) return malformed(c, "its options do not validate");
  if (weights_format != 0) return unsupported(c, "shuffled weights format %d", weights_format);
  if (rank(c, filter) != 2) return malformed(c, "filter must have rank 2");
  bool s8 = false, s16 = filter_is_s16(c, in, filter, bias, out);
  if (!s16 && (st = filter_types(c, in, filter, bias, out, &s8)) != MP_OK) return st;
  int32_t n_in, n_filter, n_out;
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, filter, &n_filter) || !elems_i32(c, out, &n_out))
    return unsupported(c, "more than 2^31 elements");
  int32_t out_depth = dim(c, filter, 0), accum = dim(c, filter, 1);
  if (rank(c, out) < 1 || dim(c, out, rank(c, out) - 1) != out_depth || out_depth <= 0 ||
      accum <= 0)
    return malformed(c, "output's last dimension must be the filter's %d rows", out_depth);
  uint64_t batches = elems(c, out) / (uint64_t)out_depth;
  if (elems(c, in) != batches * (uint64_t)accum || batches > (uint64_t)INT32_MAX)
    return malformed(c, "input has %llu elements, expected %llu x %d",
                     (unsigned long long)elems(c, in), (unsigned long long)batches, accum);
  if (bias >= 0 && elems(c, bias) != (uint64_t)out_depth)
    return malformed(c, "bias has %llu elements for %d outputs", (unsigned long long)elems(c, bias),
                     out_depth);
  if (s8 || s16) {
    mpk_fc_s8_params *p = &c->lo->params.fc_s8;
    p->batches = (int32_t)batches;
    p->accum_depth = accum;
    p->out_depth = out_depth;
    st = conv_requant(c, in, filter, out, act, out_depth, false, &p->q);
    if (st != MP_OK) return st;
    if (c->lo->reason[0]) return MP_OK;
    float fs = 0.0f;
    int32_t fzp = 0;
    (void)quant(c, filter, &fs, &fzp);
    if (p->q.per_channel && fzp != 0)
      return unsupported(c, "per-channel int8 filter with a non-zero zero point");
    p->q.filter_offset = -fzp;
    if (s16) {
      set_kernel(c, MP_K_FULLY_CONNECTED_S16);
      add_arg(c, in, false, "const int16_t *");
      add_arg(c, filter, false, "const int8_t *");
      add_arg(c, bias, false, "const int64_t *");
      add_arg(c, out, true, "int16_t *");
      /* the int8 kernel's walk (mpk_fc.c), over 2-byte elements */
      add_overlap(c, 0, 3, mpk_fully_connected_overlap_gap(p->batches, accum, out_depth, 2, 2));
      return MP_OK;
    }
    set_kernel(c, MP_K_FULLY_CONNECTED_S8);
    add_arg(c, in, false, "const int8_t *");
    add_arg(c, filter, false, "const int8_t *");
    add_arg(c, bias, false, "const int32_t *");
    add_arg(c, out, true, "int8_t *");
    add_overlap(c, 0, 3, mpk_fully_connected_overlap_gap(p->batches, accum, out_depth, 1, 1));
  } else {
    mpk_fc_f32_params *p = &c->lo->params.fc_f32;
    p->batches = (int32_t)batches;
    p->accum_depth = accum;
    p->out_depth = out_depth;
    if (!act_range_f(act, &p->act_min, &p->act_max))
      return unsupported(c, "fused activation %s", act_name(act));
    set_kernel(c, MP_K_FULLY_CONNECTED_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, filter, false, "const float *");
    add_arg(c, bias, false, "const float *");
    add_arg(c, out, true, "float *");
    add_overlap(c, 0, 3, mpk_fully_connected_overlap_gap(p->batches, accum, out_depth, 4, 4));
  }
  return MP_OK;
}

static mp_status lower_pool(ctx *c, bool is_max) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return malformed(c, "needs an input and an output");
  opts o;
  mp_status st = open_opts(c, OPT_POOL2D, "Pool2DOptions", &o);
  if (st != MP_OK) return st;
  int32_t padding = opt_i8(&o, 0, 0), stride_w = opt_i32(&o, 1, 0), stride_h = opt_i32(&o, 2, 0);
  int32_t fw = opt_i32(&o, 3, 0), fh = opt_i32(&o, 4, 0), act = opt_i8(&o, 5, 0);
  if (!o.ok) return malformed(c, "its options do not validate");
  if (fw <= 0 || fh <= 0) return malformed(c, "pool window %dx%d must be positive", fh, fw);
  int32_t dti = dtype(c, in), dto = dtype(c, out);
  bool s8 = dti == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8;
  bool s16 = dti == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16;
  bool f32 = dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32;
  if (!s8 && !s16 && !f32)
    return unsupported(c, "input %s, output %s (supported: int8, int16 or float32)", dtname(dti),
                       dtname(dto));
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.filter_h = fh;
  g.filter_w = fw;
  st = spatial_folded(c, &g, in, out, padding, stride_h, stride_w, 1, 1);
  if (st != MP_OK || c->lo->reason[0]) return st;
  g.dilation_h = g.dilation_w = 1;
  if (g.in_c != g.out_c) return malformed(c, "pooling changes depth %d to %d", g.in_c, g.out_c);
  if ((st = view_strides(c, out, &g)) != MP_OK || c->lo->reason[0]) return st;
  if (s8 || s16) {
    mpk_pool_s8_params *p = &c->lo->params.pool_s8;
    float scale;
    int32_t zp;
    if (!quant(c, out, &scale, &zp))
      return unsupported(c, "%s output without quantisation", dtname(dto));
    if (!act_range_q(act, scale, zp, s16 ? -32768 : -128, s16 ? 32767 : 127, &p->act_min,
                     &p->act_max))
      return unsupported(c, MP_LOWER_ACT_Q_REFUSED, act_name(act));
    p->geom = g;
    if (s16) {
      set_kernel(c, is_max ? MP_K_MAX_POOL2D_S16 : MP_K_AVG_POOL2D_S16);
      add_arg(c, in, false, "const int16_t *");
      add_arg(c, out, true, "int16_t *");
    } else {
      set_kernel(c, is_max ? MP_K_MAX_POOL2D_S8 : MP_K_AVG_POOL2D_S8);
      add_arg(c, in, false, "const int8_t *");
      add_arg(c, out, true, "int8_t *");
    }
    add_overlap(c, 0, 1, mpk_pool2d_overlap_gap(&g, s16 ? 2 : 1, s16 ? 2 : 1));
  } else {
    mpk_pool_f32_params *p = &c->lo->params.pool_f32;
    if (!act_range_f(act, &p->act_min, &p->act_max))
      return unsupported(c, "fused activation %s", act_name(act));
    p->geom = g;
    set_kernel(c, is_max ? MP_K_MAX_POOL2D_F32 : MP_K_AVG_POOL2D_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, out, true, "float *");
    add_overlap(c, 0, 1, mpk_pool2d_overlap_gap(&g, 4, 4));
  }
  return MP_OK;
}

/* Extend a tensor's shape to MPK_MAX_DIMS with leading 1s; false when the
 * rank is too high or the element count does not fit the kernels' int32
 * index arithmetic. */
static bool extend_shape(const ctx *c, int32_t t, int32_t dims[MPK_MAX_DIMS]) {
  uint32_t r = rank(c, t);
  int32_t n;
  if (r > MPK_MAX_DIMS || !elems_i32(c, t, &n)) return false;
  for (uint32_t d = 0; d < MPK_MAX_DIMS; d++)
    dims[d] = 1;
  for (uint32_t d = 0; d < r; d++)
    dims[MPK_MAX_DIMS - r + d] = dim(c, t, d) > 0 ? dim(c, t, d) : 0;
  return true;
}

/* Row-major element strides of extended dims. */
static void strides_of(const int32_t dims[MPK_MAX_DIMS], int32_t strides[MPK_MAX_DIMS]) {
  int32_t s = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

static mp_status broadcast(ctx *c, int32_t a, int32_t b, int32_t out, mpk_broadcast *bc) {
  int32_t da[MPK_MAX_DIMS], db[MPK_MAX_DIMS], dout[MPK_MAX_DIMS], sa[MPK_MAX_DIMS],
      sb[MPK_MAX_DIMS];
  if (!extend_shape(c, a, da) || !extend_shape(c, b, db) || !extend_shape(c, out, dout))
    return unsupported(c, "rank above %d or more than 2^31 elements", MPK_MAX_DIMS);
  if (!elems_i32(c, out, &bc->size)) return unsupported(c, "more than 2^31 elements");
  strides_of(da, sa);
  strides_of(db, sb);
  bool same = rank(c, a) == rank(c, b);
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (da[d] != db[d]) same = false;
    if ((da[d] != dout[d] && da[d] != 1) || (db[d] != dout[d] && db[d] != 1))
      return malformed(c, "shapes do not broadcast to the output");
    bc->dims[d] = dout[d];
    bc->in1_strides[d] = da[d] == 1 ? 0 : sa[d];
    bc->in2_strides[d] = db[d] == 1 ? 0 : sb[d];
  }
  for (int d = 0; same && d < MPK_MAX_DIMS; d++)
    if (da[d] != dout[d]) return malformed(c, "inputs of equal shape but a different output");
  bc->elementwise = same;
  return MP_OK;
}

static mp_status lower_add(ctx *c) {
  int32_t a = in_t(c, 0), b = in_t(c, 1), out = out_t(c, 0);
  if (a < 0 || b < 0 || out < 0) return malformed(c, "needs two inputs and an output");
  opts o;
  mp_status st = open_opts(c, OPT_ADD, "AddOptions", &o);
  if (st != MP_OK) return st;
  int32_t act = opt_i8(&o, 0, 0);
  if (!o.ok) return malformed(c, "its options do not validate");
  int32_t dta = dtype(c, a), dtb = dtype(c, b), dto = dtype(c, out);
  bool s8 = dta == MP_DTYPE_INT8 && dtb == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8;
  bool f32 = dta == MP_DTYPE_FLOAT32 && dtb == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32;
  if (dta == MP_DTYPE_INT16 && dtb == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16)
    return mp_lower_binary(c); /* 16x8: the binary family's quantised kernel */
  if (!s8 && !f32)
    return unsupported(c, "inputs %s and %s, output %s (supported: int8, int16 or float32)",
                       dtname(dta), dtname(dtb), dtname(dto));
  if (s8) {
    mpk_add_s8_params *p = &c->lo->params.add_s8;
    st = broadcast(c, a, b, out, &p->b);
    if (st != MP_OK || c->lo->reason[0]) return st;
    float s1, s2, so;
    int32_t z1, z2, zo;
    if (!quant(c, a, &s1, &z1) || !quant(c, b, &s2, &z2) || !quant(c, out, &so, &zo))
      return unsupported(c, "int8 tensors without quantisation parameters");
    p->left_shift = 20;
    p->in1_offset = -z1;
    p->in2_offset = -z2;
    p->out_offset = zo;
    double twice_max = 2 * (double)(s1 > s2 ? s1 : s2);
    double r1 = (double)s1 / twice_max, r2 = (double)s2 / twice_max;
    double ro = twice_max / ((double)(1 << p->left_shift) * (double)so);
    quantize_multiplier(c, r1, &p->in1_multiplier, &p->in1_shift);
    quantize_multiplier(c, r2, &p->in2_multiplier, &p->in2_shift);
    quantize_multiplier(c, ro, &p->out_multiplier, &p->out_shift);
    if (p->in1_shift > 0 || p->in2_shift > 0 || p->out_shift > 0)
      return unsupported(c, "output scale too small for the inputs' (rescale above 1)");
    if (!act_range_q(act, so, zo, -128, 127, &p->act_min, &p->act_max))
      return unsupported(c, MP_LOWER_ACT_Q_REFUSED, act_name(act));
    set_kernel(c, MP_K_ADD_S8);
    add_arg(c, a, false, "const int8_t *");
    add_arg(c, b, false, "const int8_t *");
    add_arg(c, out, true, "int8_t *");
    elementwise_overlap(c, 0, a, 2, out);
    elementwise_overlap(c, 1, b, 2, out);
  } else {
    mpk_add_f32_params *p = &c->lo->params.add_f32;
    st = broadcast(c, a, b, out, &p->b);
    if (st != MP_OK || c->lo->reason[0]) return st;
    if (!act_range_f(act, &p->act_min, &p->act_max))
      return unsupported(c, "fused activation %s", act_name(act));
    set_kernel(c, MP_K_ADD_F32);
    add_arg(c, a, false, "const float *");
    add_arg(c, b, false, "const float *");
    add_arg(c, out, true, "float *");
    elementwise_overlap(c, 0, a, 2, out);
    elementwise_overlap(c, 1, b, 2, out);
  }
  return MP_OK;
}

static mp_status lower_softmax(ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return malformed(c, "needs an input and an output");
  opts o;
  mp_status st = open_opts(c, OPT_SOFTMAX, "SoftmaxOptions", &o);
  if (st != MP_OK) return st;
  float beta = opt_f32(&o, 0, 0.0f);
  if (!o.ok) return malformed(c, "its options do not validate");
  if (rank(c, in) < 1 || elems(c, in) != elems(c, out))
    return malformed(c, "input and output differ in size");
  int32_t depth = dim(c, in, rank(c, in) - 1), total;
  if (depth <= 0 || !elems_i32(c, in, &total)) return malformed(c, "empty or huge last dimension");
  int32_t dti = dtype(c, in), dto = dtype(c, out);
  if (dti == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16)
    return mp_lower_softmax_s16(c, beta, total / depth, depth); /* src/lower/unary.c */
  if (dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32) {
    mpk_softmax_f32_params *p = &c->lo->params.softmax_f32;
    p->outer = total / depth;
    p->depth = depth;
    p->beta = beta;
    set_kernel(c, MP_K_SOFTMAX_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, out, true, "float *");
    return MP_OK;
  }
  if (dti != MP_DTYPE_INT8 || (dto != MP_DTYPE_INT8 && dto != MP_DTYPE_INT16))
    return unsupported(c, "input %s, output %s (supported: int8 to int8 or int16, float32)",
                       dtname(dti), dtname(dto));
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return unsupported(c, "int8 tensors without quantisation parameters");
  if (dto == MP_DTYPE_INT8 && (zo != -128 || so != 1.0f / 256))
    return unsupported(c, "int8 output must have scale 1/256 and zero point -128");
  if (dto == MP_DTYPE_INT16 && (zo != -32768 || fabsf(so - 1.0f / 65536) > 0.001f * (1.0f / 65536)))
    return unsupported(c, "int16 output must have scale 1/65536 and zero point -32768");
  /* PreprocessSoftmaxScaling with 5 integer bits, then CalculateInputRadius */
  mpk_softmax_s8_params *p = &c->lo->params.softmax_s8;
  double real = (double)beta * (double)si * (double)(1 << (31 - 5));
  double max_real = (double)((1LL << 31) - 1);
  if (real > max_real) real = max_real;
  if (!(real > 1.0)) return unsupported(c, "beta * input scale too small");
  quantize_multiplier(c, real, &p->input_multiplier, &p->input_left_shift);
  double radius =
      floor(1.0 * ((1 << 5) - 1) * (double)(1LL << (31 - 5)) / ldexp(1.0, p->input_left_shift));
  p->diff_min = -(int32_t)radius;
  p->outer = total / depth;
  p->depth = depth;
  set_kernel(c, dto == MP_DTYPE_INT8 ? MP_K_SOFTMAX_S8 : MP_K_SOFTMAX_S8_S16);
  add_arg(c, in, false, "const int8_t *");
  add_arg(c, out, true, dto == MP_DTYPE_INT8 ? "int8_t *" : "int16_t *");
  return MP_OK;
}

static mp_status lower_view(ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return malformed(c, "needs an input and an output");
  if (c->op->is_view) {
    c->lo->supported = true;
    c->lo->noop = true;
    c->lo->kernel = MP_K_NONE;
    return MP_OK;
  }
  uint64_t bytes = c->g->tensors[out].size;
  if (c->g->tensors[in].size != bytes)
    return malformed(c, "input has %llu bytes, output %llu",
                     (unsigned long long)c->g->tensors[in].size, (unsigned long long)bytes);
  if (bytes > (uint64_t)INT32_MAX) return unsupported(c, "more than 2 GiB");
  c->lo->params.copy.bytes = (int32_t)bytes;
  set_kernel(c, MP_K_COPY);
  add_arg(c, in, false, "const void *");
  add_arg(c, out, true, "void *");
  return MP_OK;
}

static int32_t mpk_type(int32_t dt) {
  switch (dt) {
  case MP_DTYPE_INT8: return MPK_TYPE_INT8;
  case MP_DTYPE_UINT8: return MPK_TYPE_UINT8;
  case MP_DTYPE_INT16: return MPK_TYPE_INT16;
  case MP_DTYPE_INT32: return MPK_TYPE_INT32;
  default: return -1;
  }
}

static mp_status lower_quantize(ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (in < 0 || out < 0) return malformed(c, "needs an input and an output");
  int32_t dti = dtype(c, in), dto = dtype(c, out), size;
  if (elems(c, in) != elems(c, out) || !elems_i32(c, in, &size))
    return malformed(c, "input and output differ in size");
  float so, si;
  int32_t zo, zi;
  if (!quant(c, out, &so, &zo)) return unsupported(c, "output without quantisation parameters");
  if (tdef(c, out)->quant.n_scale > 1) return unsupported(c, "per-channel output quantisation");
  if (dti == MP_DTYPE_FLOAT32) {
    if (dto != MP_DTYPE_INT8 && dto != MP_DTYPE_INT16)
      return unsupported(c, "float32 to %s (supported: int8, int16)", dtname(dto));
    mpk_quantize_params *p = &c->lo->params.quantize;
    p->size = size;
    p->out_type = mpk_type(dto);
    p->scale = so;
    p->zero_point = zo;
    set_kernel(c, MP_K_QUANTIZE_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, out, true, "void *");
    elementwise_overlap(c, 0, in, 1, out);
    return MP_OK;
  }
  /* the integer pairs TFLite Micro requantizes */
  static const int32_t pairs[][2] = {
      {MP_DTYPE_INT16, MP_DTYPE_INT8},  {MP_DTYPE_INT8, MP_DTYPE_INT8},
      {MP_DTYPE_INT8, MP_DTYPE_UINT8},  {MP_DTYPE_UINT8, MP_DTYPE_INT8},
      {MP_DTYPE_INT8, MP_DTYPE_INT16},  {MP_DTYPE_INT8, MP_DTYPE_INT32},
      {MP_DTYPE_INT16, MP_DTYPE_INT16}, {MP_DTYPE_INT16, MP_DTYPE_INT32},
      {MP_DTYPE_INT32, MP_DTYPE_INT8},  {MP_DTYPE_INT32, MP_DTYPE_INT16}};
  bool ok = false;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (pairs[i][0] == dti && pairs[i][1] == dto) ok = true;
  if (!ok) return unsupported(c, "%s to %s", dtname(dti), dtname(dto));
  if (!quant(c, in, &si, &zi)) return unsupported(c, "input without quantisation parameters");
  mpk_requantize_params *p = &c->lo->params.requantize;
  p->size = size;
  p->in_type = mpk_type(dti);
  p->out_type = mpk_type(dto);
  p->input_zero_point = zi;
  p->output_zero_point = zo;
  quantize_multiplier(c, (double)si / (double)so, &p->multiplier, &p->shift);
  set_kernel(c, MP_K_REQUANTIZE);
  add_arg(c, in, false, "const void *");
  add_arg(c, out, true, "void *");
  elementwise_overlap(c, 0, in, 1, out);
  return MP_OK;
}

/* Bytes per element of the data-movement kernels; 0 when unsupported. */
static int32_t elem_size(int32_t dt) {
  uint32_t bits = mp_dtype_bits(dt);
  return bits >= 8 && bits % 8 == 0 && bits <= 64 ? (int32_t)(bits / 8) : 0;
}

/* A constant int32 (or int64) vector tensor, read into v. */
static bool const_ints(const ctx *c, int32_t t, int64_t *v, uint32_t max, uint32_t *n) {
  if (t < 0 || !is_const(c, t)) return false;
  int32_t dt = dtype(c, t);
  uint64_t count = elems(c, t);
  uint32_t w = dt == MP_DTYPE_INT32 ? 4 : dt == MP_DTYPE_INT64 ? 8 : 0;
  if (!w || count > max || c->g->tensors[t].size < count * w) return false;
  const uint8_t *p = c->g->tensors[t].data;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t x = 0;
    for (uint32_t k = 0; k < w; k++)
      x |= (uint64_t)p[i * w + k] << (8 * k);
    v[i] = w == 4 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
  }
  *n = (uint32_t)count;
  return true;
}

static mp_status lower_pad(ctx *c, bool v2) {
  int32_t in = in_t(c, 0), pads = in_t(c, 1), cv = v2 ? in_t(c, 2) : -1, out = out_t(c, 0);
  if (in < 0 || pads < 0 || out < 0) return malformed(c, "needs an input, paddings and an output");
  int32_t dt = dtype(c, in), es = elem_size(dt);
  if (dtype(c, out) != dt || !es || es > 4)
    return unsupported(c, "input %s, output %s", dtname(dt), dtname(dtype(c, out)));
  uint32_t r = rank(c, in), n = 0;
  int64_t pv[2 * MPK_MAX_DIMS];
  int32_t n_in, n_out;
  if (r > MPK_MAX_DIMS) return unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!elems_i32(c, in, &n_in) || !elems_i32(c, out, &n_out))
    return unsupported(c, "more than 2^31 elements");
  if (!const_ints(c, pads, pv, 2 * MPK_MAX_DIMS, &n))
    return unsupported(c, "paddings are not a constant int32/int64 tensor");
  if (n != 2 * r || rank(c, out) != r) return malformed(c, "paddings do not match rank %u", r);
  mpk_pad_params *p = &c->lo->params.pad;
  p->elem_size = es;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    p->in_dims[d] = p->out_dims[d] = 1;
  for (uint32_t d = 0; d < r; d++) {
    uint32_t e = MPK_MAX_DIMS - r + d;
    if (pv[2 * d] < 0 || pv[2 * d + 1] < 0) return unsupported(c, "negative padding");
    if (pv[2 * d] > INT32_MAX || pv[2 * d + 1] > INT32_MAX)
      return malformed(c, "padding %lld, %lld of dimension %u is beyond 32 bits",
                       (long long)pv[2 * d], (long long)pv[2 * d + 1], d);
    p->in_dims[e] = dim(c, in, d);
    p->out_dims[e] = dim(c, out, d);
    p->before[e] = (int32_t)pv[2 * d];
    if ((int64_t)p->in_dims[e] + pv[2 * d] + pv[2 * d + 1] != p->out_dims[e])
      return malformed(c, "output dimension %u is %d, padding gives %lld", d, p->out_dims[e],
                       (long long)(p->in_dims[e] + pv[2 * d] + pv[2 * d + 1]));
  }
  /* the pad value: constant_values, else the zero point (int8) or zero */
  memset(p->value, 0, sizeof p->value);
  if (cv >= 0) {
    if (!is_const(c, cv) || dtype(c, cv) != dt || c->g->tensors[cv].size < (uint64_t)es)
      return unsupported(c, "constant_values is not a constant of the input's type");
    memcpy(p->value, c->g->tensors[cv].data, (size_t)es);
  } else if (dt == MP_DTYPE_INT8 || dt == MP_DTYPE_UINT8) {
    float s;
    int32_t zp = 0;
    if (quant(c, out, &s, &zp)) p->value[0] = (uint8_t)zp;
  }
  set_kernel(c, MP_K_PAD);
  add_arg(c, in, false, "const void *");
  add_arg(c, out, true, "void *");
  add_overlap(c, 0, 1, mpk_pad_overlap_gap(p));
  return MP_OK;
}

static mp_status lower_mean(ctx *c) {
  int32_t in = in_t(c, 0), axis = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || axis < 0 || out < 0) return malformed(c, "needs an input, axes and an output");
  opts o;
  mp_status st = open_opts(c, OPT_REDUCER, "ReducerOptions", &o);
  if (st != MP_OK) return st;
  (void)opt_bool(&o, 0, false); /* keep_dims only shapes the output */
  if (!o.ok) return malformed(c, "its options do not validate");
  uint32_t r = rank(c, in), n = 0;
  if (r > MPK_MAX_DIMS) return unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  int64_t ax[16];
  if (!const_ints(c, axis, ax, 16, &n)) return unsupported(c, "axes are not a constant tensor");
  bool reduced[MPK_MAX_DIMS] = {false};
  for (uint32_t i = 0; i < n; i++) {
    int64_t a = ax[i] < 0 ? ax[i] + r : ax[i];
    if (a < 0 || a >= r) return malformed(c, "axis %lld out of range", (long long)ax[i]);
    reduced[MPK_MAX_DIMS - r + a] = true;
  }
  int32_t dims[MPK_MAX_DIMS], strides[MPK_MAX_DIMS];
  if (!extend_shape(c, in, dims)) return unsupported(c, "more than 2^31 elements");
  int32_t s = 1, count = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    if (reduced[d]) {
      strides[d] = 0;
      count *= dims[d];
    } else if (dims[d] == 1) {
      strides[d] = 0; /* a unit dimension never moves */
    } else {
      strides[d] = s;
      s *= dims[d];
    }
  }
  if ((uint64_t)s != elems(c, out))
    return malformed(c, "output has %llu elements, the reduction gives %d",
                     (unsigned long long)elems(c, out), s);
  if (count <= 0) return unsupported(c, "empty reduction");
  int32_t dt = dtype(c, in);
  if (dt == MP_DTYPE_FLOAT32 && dtype(c, out) == MP_DTYPE_FLOAT32) {
    mpk_mean_f32_params *p = &c->lo->params.mean_f32;
    memcpy(p->in_dims, dims, sizeof dims);
    memcpy(p->out_strides, strides, sizeof strides);
    p->out_size = s;
    p->count = count;
    set_kernel(c, MP_K_MEAN_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, out, true, "float *");
    return MP_OK;
  }
  bool wide = dt == MP_DTYPE_INT16;
  if ((dt != MP_DTYPE_INT8 && !wide) || dtype(c, out) != dt)
    return unsupported(c, "input %s, output %s (supported: int8, int16, float32)", dtname(dt),
                       dtname(dtype(c, out)));
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return unsupported(c, "%s tensors without quantisation parameters", dtname(dt));
  mpk_mean_s8_params *p = &c->lo->params.mean_s8;
  memcpy(p->in_dims, dims, sizeof dims);
  memcpy(p->out_strides, strides, sizeof strides);
  p->out_size = s;
  p->count = count;
  p->input_zero_point = zi;
  p->output_zero_point = zo;
  mean_multiplier(c, (double)si / (double)so, count, &p->multiplier, &p->shift);
  set_kernel(c, wide ? MP_K_MEAN_S16 : MP_K_MEAN_S8);
  add_arg(c, in, false, wide ? "const int16_t *" : "const int8_t *");
  add_arg(c, out, true, wide ? "int16_t *" : "int8_t *");
  c->lo->scratch_bytes = (uint64_t)s * sizeof(int32_t);
  c->lo->scratch_align = 4;
  return MP_OK;
}

static mp_status lower_transpose(ctx *c) {
  int32_t in = in_t(c, 0), perm = in_t(c, 1), out = out_t(c, 0);
  if (in < 0 || perm < 0 || out < 0)
    return malformed(c, "needs an input, a permutation and an output");
  int32_t dt = dtype(c, in), es = elem_size(dt);
  if (dtype(c, out) != dt || !es) return unsupported(c, "element type %s", dtname(dt));
  uint32_t r = rank(c, in), n = 0;
  int64_t pv[MPK_MAX_DIMS];
  if (r > MPK_MAX_DIMS) return unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
  if (!const_ints(c, perm, pv, MPK_MAX_DIMS, &n))
    return unsupported(c, "permutation is not a constant tensor");
  if (n != r || rank(c, out) != r) return malformed(c, "permutation does not match rank %u", r);
  int32_t idims[MPK_MAX_DIMS], istr[MPK_MAX_DIMS];
  if (!extend_shape(c, in, idims)) return unsupported(c, "more than 2^31 elements");
  strides_of(idims, istr);
  mpk_transpose_params *p = &c->lo->params.transpose;
  p->elem_size = es;
  bool seen[MPK_MAX_DIMS] = {false};
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    p->out_dims[d] = 1;
    p->in_strides[d] = 0;
  }
  for (uint32_t d = 0; d < r; d++) {
    int64_t a = pv[d] < 0 ? pv[d] + r : pv[d];
    if (a < 0 || a >= r || seen[a]) return malformed(c, "permutation is not one of rank %u", r);
    seen[a] = true;
    uint32_t e = MPK_MAX_DIMS - r + d, src = MPK_MAX_DIMS - r + (uint32_t)a;
    p->out_dims[e] = idims[src];
    p->in_strides[e] = istr[src];
    if (dim(c, out, d) != idims[src])
      return malformed(c, "output dimension %u is %d, the permutation gives %d", d, dim(c, out, d),
                       idims[src]);
  }
  set_kernel(c, MP_K_TRANSPOSE);
  add_arg(c, in, false, "const void *");
  add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_concat(ctx *c) {
  int32_t out = out_t(c, 0);
  uint32_t n = c->op->n_inputs;
  if (out < 0 || n < 1) return malformed(c, "needs inputs and an output");
  opts o;
  mp_status st = open_opts(c, OPT_CONCATENATION, "ConcatenationOptions", &o);
  if (st != MP_OK) return st;
  int32_t axis = opt_i32(&o, 0, 0), act = opt_i8(&o, 1, 0);
  if (!o.ok) return malformed(c, "its options do not validate");
  if (act != ACT_NONE) return unsupported(c, "fused activation %s", act_name(act));
  int32_t dt = dtype(c, out), es = elem_size(dt);
  uint32_t r = rank(c, out);
  if (!es) return unsupported(c, "element type %s", dtname(dt));
  if (axis < 0) axis += (int32_t)r;
  if (axis < 0 || axis >= (int32_t)r) return malformed(c, "axis %d out of range", axis);
  float so = 0;
  int32_t zo = 0;
  bool qo = quant(c, out, &so, &zo);
  uint64_t outer = 1;
  for (int32_t d = 0; d < axis; d++)
    outer *= (uint64_t)(dim(c, out, (uint32_t)d) > 0 ? dim(c, out, (uint32_t)d) : 0);
  if (outer > (uint64_t)INT32_MAX) return unsupported(c, "more than 2^31 slices");
  int32_t *bytes = add_array(c, "input_bytes", n);
  if (!bytes) return MP_ERR_NOMEM;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    int32_t t = c->op->inputs[i];
    if (t < 0 || dtype(c, t) != dt || rank(c, t) != r)
      return malformed(c, "input %u does not match the output's type and rank", i);
    float si;
    int32_t zi;
    if (qo && (!quant(c, t, &si, &zi) || si != so || zi != zo))
      return unsupported(c, "input %u is quantised differently from the output", i);
    uint64_t inner = 1;
    for (uint32_t d = (uint32_t)axis; d < r && inner <= (uint64_t)INT32_MAX; d++)
      inner *= (uint64_t)(dim(c, t, d) > 0 ? dim(c, t, d) : 0);
    if (inner * (uint64_t)es > (uint64_t)INT32_MAX) return unsupported(c, "slice too large");
    bytes[i] = (int32_t)(inner * (uint64_t)es);
    total += inner * (uint64_t)es;
  }
  if (total * outer != c->g->tensors[out].size)
    return malformed(c, "inputs add up to %llu bytes, output has %llu",
                     (unsigned long long)(total * outer),
                     (unsigned long long)c->g->tensors[out].size);
  mpk_concat_params *p = &c->lo->params.concat;
  p->n_inputs = (int32_t)n;
  p->outer = (int32_t)outer;
  p->input_bytes = bytes;
  /* a partly elided concatenation (views.c): the inputs that are strided
   * views of the output at their slices are there already */
  uint64_t k = 0;
  int32_t *in_place = NULL;
  for (uint32_t i = 0; i < n && !c->op->is_view; k += (uint64_t)bytes[i], i++) {
    const mp_tensor *x = &c->g->tensors[c->op->inputs[i]];
    if (x->alias_of != out || !x->alias_stride || x->alias_stride != total ||
        x->alias_row != (uint64_t)bytes[i] || x->alias_offset != k)
      continue;
    if (!in_place) {
      if (!(in_place = add_array(c, "in_place", n))) return MP_ERR_NOMEM;
      memset(in_place, 0, n * sizeof *in_place);
    }
    in_place[i] = 1;
  }
  p->in_place = in_place;
  set_kernel(c, MP_K_CONCAT);
  mp_lower_arg *a = &c->lo->args[c->lo->n_args++];
  a->kind = MP_LARG_TENSOR_ARRAY;
  a->tensor = -1;
  a->n_tensors = n;
  a->tensors = c->op->inputs;
  a->ctype = "const void *const *";
  add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_logistic(ctx *c) {
  int32_t in = in_t(c, 0), out = out_t(c, 0), size;
  if (in < 0 || out < 0) return malformed(c, "needs an input and an output");
  if (elems(c, in) != elems(c, out) || !elems_i32(c, in, &size))
    return malformed(c, "input and output differ in size");
  int32_t dti = dtype(c, in), dto = dtype(c, out);
  if (dti == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16)
    return mp_lower_unary(c); /* 16x8: the table lookup of the unary family */
  if (dti == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32) {
    c->lo->params.logistic_f32.size = size;
    set_kernel(c, MP_K_LOGISTIC_F32);
    add_arg(c, in, false, "const float *");
    add_arg(c, out, true, "float *");
    elementwise_overlap(c, 0, in, 1, out);
    return MP_OK;
  }
  if (dti != MP_DTYPE_INT8 || dto != MP_DTYPE_INT8)
    return unsupported(c, "input %s, output %s (supported: int8, float32)", dtname(dti),
                       dtname(dto));
  float si, so;
  int32_t zi, zo;
  if (!quant(c, in, &si, &zi) || !quant(c, out, &so, &zo))
    return unsupported(c, "int8 tensors without quantisation parameters");
  if (zo != -128) return unsupported(c, "int8 output zero point %d (must be -128)", zo);
  /* input scaled to Q4 with a frexp multiplier, as LogisticPrepare does */
  mpk_logistic_s8_params *p = &c->lo->params.logistic_s8;
  double real = (double)si * (double)(1 << (31 - 4));
  int e = 0;
  double q = frexp(real, &e);
  int64_t m = (int64_t)round(q * (double)(1LL << 31));
  if (e < 0 || (e <= 30 && m >= (1LL << 31)))
    return unsupported(c, "input scale %g out of range", (double)si);
  p->size = size;
  p->input_zero_point = zi;
  /* e > 30: a radius of 0, a step function that never rescales (TFLM) */
  p->input_multiplier = e > 30 ? 0 : (int32_t)m;
  p->input_left_shift = e > 30 ? 0 : e;
  p->input_range_radius =
      e > 30 ? 0
             : (int32_t)floor(1.0 * ((1 << 4) - 1) * (double)(1LL << (31 - 4)) / ldexp(1.0, e));
  set_kernel(c, MP_K_LOGISTIC_S8);
  add_arg(c, in, false, "const int8_t *");
  add_arg(c, out, true, "int8_t *");
  elementwise_overlap(c, 0, in, 1, out);
  return MP_OK;
}

/* ------------------------------------------------------------------------ */
/* The helpers the operator-family files use (lower_ops.h)                  */
/* ------------------------------------------------------------------------ */

static mp_status vunsupported(ctx *c, const char *fmt, va_list ap) {
  vsnprintf(c->lo->reason, sizeof c->lo->reason, fmt, ap);
  c->lo->supported = false;
  c->lo->kernel = MP_K_NONE;
  return MP_OK;
}

mp_status mp_lower_unsupported(ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_status st = vunsupported(c, fmt, ap);
  va_end(ap);
  return st;
}

mp_status mp_lower_malformed(ctx *c, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return malformed(c, "%s", msg);
}

void mp_lower_add_arg(ctx *c, int32_t tensor, bool is_output, const char *ctype) {
  add_arg(c, tensor, is_output, ctype);
}

void mp_lower_add_array_arg(ctx *c, const int32_t *tensors, uint32_t n, const char *ctype) {
  mp_lower_arg *a = &c->lo->args[c->lo->n_args++];
  a->kind = MP_LARG_TENSOR_ARRAY;
  a->tensor = -1;
  a->n_tensors = n;
  a->tensors = tensors;
  a->ctype = ctype;
}

void mp_lower_set_kernel(ctx *c, mp_kernel k) { set_kernel(c, k); }

mp_status mp_lower_open_opts(ctx *c, uint8_t type, const char *what, opts *o) {
  return open_opts(c, type, what, o);
}
int32_t mp_lower_opt_i32(opts *o, uint32_t id, int32_t def) { return opt_i32(o, id, def); }
int32_t mp_lower_opt_i8(opts *o, uint32_t id, int8_t def) { return opt_i8(o, id, def); }
bool mp_lower_opt_bool(opts *o, uint32_t id, bool def) { return opt_bool(o, id, def); }
float mp_lower_opt_f32(opts *o, uint32_t id, float def) { return opt_f32(o, id, def); }

void mp_lower_quantize_multiplier(ctx *c, double m, int32_t *qm, int32_t *shift) {
  quantize_multiplier(c, m, qm, shift);
}

const char *mp_lower_act_name(int32_t act) { return act_name(act); }

bool mp_lower_act_range_q(int32_t act, float scale, int32_t zp, int32_t qmin, int32_t qmax,
                          int32_t *lo, int32_t *hi) {
  return act_range_q(act, scale, zp, qmin, qmax, lo, hi);
}

bool mp_lower_act_range_f(int32_t act, float *lo, float *hi) { return act_range_f(act, lo, hi); }

void mp_lower_nhwc_geom(const ctx *c, int32_t in, int32_t out, int32_t stride_h, int32_t stride_w,
                        mpk_conv_geom *g) {
  g->batches = dim(c, in, 0);
  g->in_h = dim(c, in, 1);
  g->in_w = dim(c, in, 2);
  g->in_c = dim(c, in, 3);
  g->out_h = dim(c, out, 1);
  g->out_w = dim(c, out, 2);
  g->out_c = dim(c, out, 3);
  g->stride_h = stride_h;
  g->stride_w = stride_w;
}

mp_status mp_lower_conv_requant(ctx *c, int32_t in, int32_t filter, int32_t out, int32_t act,
                                int32_t channels, bool always_per_channel, mpk_requant *q) {
  return conv_requant(c, in, filter, out, act, channels, always_per_channel, q);
}

mp_status mp_lower_broadcast(ctx *c, int32_t a, int32_t b, int32_t out, mpk_broadcast *bc) {
  return broadcast(c, a, b, out, bc);
}


bool mp_lower_const_ints(const ctx *c, int32_t t, int64_t *v, uint32_t max, uint32_t *n) {
  return const_ints(c, t, v, max, n);
}

int32_t mp_lower_elem_size(int32_t dt) { return elem_size(dt); }

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

void mp_lower_free(mp_lowered_op *lo) {
  if (!lo) return;
  for (uint32_t i = 0; i < lo->n_arrays; i++)
    free(lo->arrays[i].data);
  memset(lo, 0, sizeof *lo);
}

mp_status mp_lower_op(const mp_graph *g, uint32_t op, mp_lowered_op *out, const mp_diag_sink *dx) {
  memset(out, 0, sizeof *out);
  if (op >= g->n_ops) return MP_ERR_INTERNAL;
  ctx c = {g, &g->ops[op], &g->model->subgraphs[g->subgraph], out, dx, false};
  out->op = op;
  out->op_name = c.op->name;
  if (c.op->folded_into >= 0 || c.op->const_folded) {
    /* a PAD folded into its convolution or max pool (rewrite.c), or an
     * operator computed at convert time (fold.c): nothing runs */
    out->supported = true;
    out->noop = true;
    return MP_OK;
  }
  if (c.op->patch_head) {
    /* runs a patched stage (graph/patch.h): the emitter writes its loop */
    out->supported = true;
    out->fn = "patched stage";
    return MP_OK;
  }
  mp_status st;
  switch (c.op->builtin_code) {
  case OP_CONV_2D: st = lower_conv(&c, false); break;
  case OP_DEPTHWISE_CONV_2D: st = lower_conv(&c, true); break;
  case OP_FULLY_CONNECTED: st = lower_fc(&c); break;
  case OP_AVERAGE_POOL_2D: st = lower_pool(&c, false); break;
  case OP_MAX_POOL_2D: st = lower_pool(&c, true); break;
  case OP_ADD: st = lower_add(&c); break;
  case OP_SOFTMAX: st = lower_softmax(&c); break;
  case OP_RESHAPE:
  case OP_SQUEEZE:
  case OP_EXPAND_DIMS:
  case OP_BITCAST: st = lower_view(&c); break;
  case OP_QUANTIZE: st = lower_quantize(&c); break;
  case OP_PAD: st = lower_pad(&c, false); break;
  case OP_PADV2: st = lower_pad(&c, true); break;
  case OP_MEAN: st = lower_mean(&c); break;
  case OP_TRANSPOSE: st = lower_transpose(&c); break;
  case OP_CONCATENATION: st = lower_concat(&c); break;
  case OP_LOGISTIC: st = lower_logistic(&c); break;
  case OP_SVDF: st = mp_lower_svdf(&c); break;
  case OP_UNIDIRECTIONAL_SEQUENCE_LSTM: st = mp_lower_lstm(&c); break;
  case OP_SUB:
  case OP_MUL:
  case OP_DIV:
  case OP_MAXIMUM:
  case OP_MINIMUM:
  case OP_PRELU:
  case OP_SQUARED_DIFFERENCE: st = mp_lower_binary(&c); break;
  case OP_DEQUANTIZE:
  case OP_RELU:
  case OP_RELU6:
  case OP_TANH:
  case OP_EXP:
  case OP_CAST:
  case OP_RSQRT:
  case OP_LEAKY_RELU:
  case OP_HARD_SWISH: st = mp_lower_unary(&c); break;
  case OP_GATHER:
  case OP_STRIDED_SLICE:
  case OP_SPLIT:
  case OP_SLICE:
  case OP_PACK:
  case OP_UNPACK:
  case OP_SPLIT_V: st = mp_lower_slice(&c); break;
  case OP_RESIZE_BILINEAR:
  case OP_RESIZE_NEAREST_NEIGHBOR: st = mp_lower_resize(&c); break;
  case OP_ARG_MAX:
  case OP_SUM:
  case OP_REDUCE_MAX: st = mp_lower_reduce(&c); break;
  case OP_TRANSPOSE_CONV: st = mp_lower_transpose_conv(&c); break;
  case OP_BATCH_MATMUL: st = mp_lower_batch_matmul(&c); break;
  case OP_CUSTOM: st = mp_lower_signal(&c); break;
  case OP_CALL_ONCE:
  case OP_VAR_HANDLE:
  case OP_READ_VARIABLE:
  case OP_ASSIGN_VARIABLE: st = mp_lower_variable(&c); break;
  default: st = unsupported(&c, "memplan has no kernel for %s", c.op->name); break;
  }
  if (st == MP_OK && out->supported && c.bad_multiplier)
    st = malformed(&c, "its quantisation scales give a rescale factor with no 32-bit "
                       "fixed-point form");
  if (st == MP_OK && out->supported && g->target != MP_TARGET_GENERIC)
    st = mp_lower_specialise(g, out);
  if (st != MP_OK || !out->supported) {
    /* keep the reason, drop any half-built params */
    char reason[sizeof out->reason];
    memcpy(reason, out->reason, sizeof reason);
    const char *name = out->op_name;
    mp_lower_free(out);
    out->op = op;
    out->op_name = name;
    memcpy(out->reason, reason, sizeof reason);
    if (st == MP_OK && !out->reason[0]) snprintf(out->reason, sizeof out->reason, "unsupported");
  }
  return st;
}

/* "12 'conv2d/Conv2D' int8[1,32,32,16]" */
static void describe_tensor(const mp_graph *g, int32_t t, mp_buf *b) {
  if (t < 0) {
    mp_buf_puts(b, "(none)");
    return;
  }
  const mp_tensor *x = &g->tensors[t];
  mp_buf_printf(b, "%d", t);
  if (x->name && x->name[0]) mp_buf_printf(b, " '%s'", x->name);
  mp_buf_printf(b, " %s[", mp_dtype_name(x->dtype));
  for (uint32_t d = 0; d < x->rank; d++)
    mp_buf_printf(b, "%s%d", d ? "," : "", x->shape[d]);
  mp_buf_putc(b, ']');
}

/* mp_lower_check_all with two sinks: malformed operators are errors on
 * `dx` whatever the caller does with the unsupported ones, which go to
 * `udx`. */
static mp_status check_all(const mp_graph *g, const mp_diag_sink *dx, const mp_diag_sink *udx) {
  uint32_t n_bad = 0, n_names = 0;
  mp_status worst = MP_OK;
  const char **names = calloc(g->n_ops ? g->n_ops : 1, sizeof *names);
  if (!names) return MP_ERR_NOMEM;
  mp_loc loc = {g->model->path, 0, 0, -1, NULL, NULL};
  for (uint32_t i = 0; i < g->n_ops; i++) {
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, i, &lo, dx);
    if (st != MP_OK) {
      worst = st;
      mp_lower_free(&lo);
      continue;
    }
    if (!lo.supported) {
      const mp_op *op = &g->ops[i];
      mp_buf b;
      mp_buf_init(&b);
      mp_buf_printf(&b, "operator %u (%s) is not supported: %s; reads ", op->model_index, op->name, lo.reason);
      for (uint32_t k = 0; k < op->n_inputs; k++) {
        if (k) mp_buf_puts(&b, ", ");
        describe_tensor(g, op->inputs[k], &b);
      }
      if (op->n_inputs == 0) mp_buf_puts(&b, "nothing");
      mp_buf_puts(&b, "; writes ");
      for (uint32_t k = 0; k < op->n_outputs; k++) {
        if (k) mp_buf_puts(&b, ", ");
        describe_tensor(g, op->outputs[k], &b);
      }
      mp_error(udx, loc, "%s", b.failed ? "out of memory" : mp_buf_str(&b));
      mp_buf_free(&b);
      bool seen = false;
      for (uint32_t k = 0; k < n_names; k++)
        if (!strcmp(names[k], op->name)) seen = true;
      if (!seen) names[n_names++] = op->name;
      n_bad++;
    }
    mp_lower_free(&lo);
  }
  if (n_bad) {
    mp_buf list;
    mp_buf_init(&list);
    for (uint32_t k = 0; k < n_names; k++)
      mp_buf_printf(&list, "%s%s", k ? ", " : "", names[k]);
    mp_error(udx, loc,
             "%u of %u operators are not supported (%s); memplan's kernels cannot run this "
             "model",
             n_bad, g->n_ops, mp_buf_str(&list));
    mp_buf_free(&list);
  }
  free(names);
  if (worst != MP_OK) return worst;
  return n_bad ? MP_ERR_UNSUPPORTED : MP_OK;
}

mp_status mp_lower_check_all(const mp_graph *g, const mp_diag_sink *dx) {
  return check_all(g, dx, dx);
}

/* ------------------------------------------------------------------------ */
/* C text of the params                                                     */
/* ------------------------------------------------------------------------ */

static void put_i32(mp_buf *b, int32_t v) {
  if (v == INT32_MIN)
    mp_buf_puts(b, "(-2147483647 - 1)");
  else
    mp_buf_printf(b, "%d", v);
}

/* A float literal that reads back as exactly v. */
static void put_f32(mp_buf *b, float v) {
  char s[64];
  snprintf(s, sizeof s, "%.9g", (double)v);
  if (strtof(s, NULL) != v) {
    snprintf(s, sizeof s, "%a", (double)v);
  } else if (!strpbrk(s, ".eExX")) {
    size_t n = strlen(s);
    snprintf(s + n, sizeof s - n, ".0");
  }
  mp_buf_printf(b, "%sf", s);
}

static const mp_lower_array *find_array(const mp_lowered_op *lo, const char *name) {
  for (uint32_t i = 0; i < lo->n_arrays; i++)
    if (!strcmp(lo->arrays[i].name, name)) return &lo->arrays[i];
  return NULL;
}

static void put_fields(mp_buf *b, const mp_lowered_op *lo, const char *sym, const fdesc *f,
                       const uint8_t *base, bool top) {
  mp_buf_puts(b, top ? "{\n" : "{");
  bool first = true;
  for (uint32_t i = 0; f[i].kind != FK_END; i++) {
    const uint8_t *p = base + f[i].offset;
    if (f[i].kind == FK_I32_NZ) {
      int32_t v;
      memcpy(&v, p, sizeof v);
      if (v == 0) continue;
    }
    if (f[i].kind == FK_PTR_NZ) {
      const void *ptr;
      memcpy(&ptr, p, sizeof ptr);
      if (!ptr || !find_array(lo, f[i].array)) continue;
    }
    mp_buf_printf(b, "%s.%s = ", top ? "    " : (first ? "" : ", "), f[i].name);
    first = false;
    switch (f[i].kind) {
    case FK_I32:
    case FK_I32_NZ: {
      int32_t v;
      memcpy(&v, p, sizeof v);
      put_i32(b, v);
      break;
    }
    case FK_F32: {
      float v;
      memcpy(&v, p, sizeof v);
      put_f32(b, v);
      break;
    }
    case FK_I32X6: {
      int32_t v[MPK_MAX_DIMS];
      memcpy(v, p, sizeof v);
      mp_buf_putc(b, '{');
      for (int k = 0; k < MPK_MAX_DIMS; k++) {
        if (k) mp_buf_puts(b, ", ");
        put_i32(b, v[k]);
      }
      mp_buf_putc(b, '}');
      break;
    }
    case FK_U8X4:
      mp_buf_printf(b, "{0x%02x, 0x%02x, 0x%02x, 0x%02x}", p[0], p[1], p[2], p[3]);
      break;
    case FK_PTR:
    case FK_PTR_NZ: {
      const void *ptr;
      memcpy(&ptr, p, sizeof ptr);
      if (ptr && find_array(lo, f[i].array))
        mp_buf_printf(b, "%s_%s", sym, f[i].array);
      else
        mp_buf_puts(b, "NULL");
      break;
    }
    case FK_SUB: put_fields(b, lo, sym, f[i].sub, p, false); break;
    case FK_END: break;
    }
    if (top) mp_buf_puts(b, ",\n");
  }
  mp_buf_putc(b, '}');
}

void mp_lower_params_init(const mp_lowered_op *lo, const char *sym, mp_buf *b) {
  if (!lo->supported || lo->kernel == MP_K_NONE) return;
  put_fields(b, lo, sym, kinfos[lo->kernel].fields, (const uint8_t *)&lo->params, true);
}

void mp_lower_params_arrays(const mp_lowered_op *lo, const char *decl, const char *sym,
                            mp_buf *b) {
  if (!lo->supported || lo->kernel == MP_K_NONE) return;
  for (uint32_t i = 0; i < lo->n_arrays; i++) {
    const mp_lower_array *a = &lo->arrays[i];
    mp_buf_printf(b, "%sstatic const int32_t %s_%s[%u] = {", decl, sym, a->name, a->n ? a->n : 1);
    for (uint32_t k = 0; k < a->n; k++) {
      mp_buf_puts(b, k == 0 ? "" : (k % 8 == 0 ? ",\n    " : ", "));
      put_i32(b, a->data[k]);
    }
    if (a->n == 0) mp_buf_putc(b, '0');
    mp_buf_puts(b, "};\n");
  }
}

/* The layout of a field table on a 32-bit target (ILP32, as every Cortex-M
 * and ESP32 core): fields in their host offset order, each at the next
 * multiple of its alignment.  Sets *align; returns the size, padded to it. */
static uint32_t fields_size32(const fdesc *f, uint32_t *align) {
  uint32_t n = 0, size = 0, al = 1;
  while (f[n].kind != FK_END) n++;
  size_t prev = 0;
  for (uint32_t k = 0; k < n; k++) {
    /* the next field by host offset (tables are short; no sort needed) */
    const fdesc *next = NULL;
    for (uint32_t i = 0; i < n; i++)
      if ((k == 0 || f[i].offset > prev) && (!next || f[i].offset < next->offset)) next = &f[i];
    if (!next) break;
    prev = next->offset;
    uint32_t fs = 4, fa = 4;
    switch (next->kind) {
    case FK_I32X6: fs = 4u * MPK_MAX_DIMS; break;
    case FK_U8X4: fa = 1; break;
    case FK_SUB: fs = fields_size32(next->sub, &fa); break;
    default: break; /* FK_I32, FK_I32_NZ, FK_F32, FK_PTR, FK_PTR_NZ: 4 bytes */
    }
    size = (size + fa - 1) / fa * fa + fs;
    if (fa > al) al = fa;
  }
  *align = al;
  return (size + al - 1) / al * al;
}

uint32_t mp_lower_params_size32(const mp_lowered_op *lo) {
  if (!lo->supported || lo->kernel == MP_K_NONE || !kinfos[lo->kernel].fields) return 0;
  uint32_t align;
  return fields_size32(kinfos[lo->kernel].fields, &align);
}

void mp_lower_params_c(const mp_lowered_op *lo, const char *sym, mp_buf *b) {
  if (!lo->supported || lo->kernel == MP_K_NONE) return;
  mp_lower_params_arrays(lo, "", sym, b);
  mp_buf_printf(b, "static const %s %s = ", lo->params_type, sym);
  mp_lower_params_init(lo, sym, b);
  mp_buf_puts(b, ";\n");
}

/* ------------------------------------------------------------------------ */
/* Readying a graph for the kernels                                         */
/* ------------------------------------------------------------------------ */

/* Forwards diagnostics with errors turned into warnings. */
static void as_warning(void *user, const mp_diag *d) {
  const mp_diag_sink *dx = user; /* a copy of the caller's sink */
  if (!dx || !dx->fn) return;
  mp_diag w = *d;
  if (w.severity == MP_SEV_ERROR) w.severity = MP_SEV_WARNING;
  dx->fn(dx->user, &w);
}

/* The storage root of tensor t. */
static int32_t root_of(const mp_graph *g, int32_t t) {
  return g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
}

/* g->overlaps from every supported operator's contracts.  A tensor the
 * kernel reads through several arguments (ADD(x, x)) keeps a contract only
 * when every one of those arguments has one with that output, with the
 * largest of their gaps. */
static mp_status record_overlaps(mp_graph *g) {
  size_t cap = 0, n = 0;
  mp_overlap *v = NULL;
  mp_status st = MP_OK;
  for (uint32_t i = 0; i < g->n_ops && st == MP_OK; i++) {
    mp_lowered_op lo;
    st = mp_lower_op(g, i, &lo, NULL);
    if (st != MP_OK) {
      st = st == MP_ERR_NOMEM ? st : MP_OK;
      continue;
    }
    for (uint32_t k = 0; k < lo.n_overlaps; k++) {
      const mp_lower_overlap *ov = &lo.overlaps[k];
      int32_t in = lo.args[ov->in_arg].tensor, out = lo.args[ov->out_arg].tensor;
      if (in < 0 || out < 0 || root_of(g, in) == root_of(g, out)) continue;
      int64_t gap = ov->gap, period = ov->period;
      bool ok = true, first = true;
      for (uint32_t a = 0; a < lo.n_args && ok; a++) {
        const mp_lower_arg *arg = &lo.args[a];
        if (arg->kind != MP_LARG_TENSOR || arg->is_output || arg->tensor < 0 ||
            root_of(g, arg->tensor) != root_of(g, in))
          continue;
        bool found = false;
        for (uint32_t q = 0; q < lo.n_overlaps; q++)
          if (lo.overlaps[q].in_arg == a && lo.overlaps[q].out_arg == ov->out_arg) {
            found = true;
            if (lo.overlaps[q].gap > gap) gap = lo.overlaps[q].gap;
            period = mp_lcm64(period, lo.overlaps[q].period);
            if (q < k) first = false; /* recorded with an earlier argument */
          }
        ok = found;
      }
      if (!ok || !first) continue;
      if (n == cap) {
        cap = cap ? 2 * cap : 16;
        mp_overlap *nv = realloc(v, cap * sizeof *nv);
        if (!nv) {
          st = MP_ERR_NOMEM;
          break;
        }
        v = nv;
      }
      v[n++] = (mp_overlap){i, (uint32_t)in, (uint32_t)out, gap, period};
    }
    mp_lower_free(&lo);
  }
  if (st == MP_OK) {
    g->overlaps = mp_pool_alloc(g->pool, n ? n : 1, sizeof *g->overlaps);
    if (!g->overlaps) st = MP_ERR_NOMEM;
    else {
      if (n) memcpy(g->overlaps, v, n * sizeof *v);
      g->n_overlaps = (uint32_t)n;
    }
  }
  free(v);
  return st;
}

static mp_status choose_serial(mp_graph *g);

mp_status mp_kernels_overlaps(mp_graph *g) {
  mp_status st = record_overlaps(g);
  return st == MP_OK ? choose_serial(g) : st;
}

/* The op-local scratch tensor of op i, or -1. */
static int32_t local_of(const mp_graph *g, uint32_t i) {
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
    if (g->tensors[t].local_op == (int32_t)i && g->tensors[t].role == MP_ROLE_SCRATCH)
      return (int32_t)t;
  return -1;
}

int32_t mp_lower_state_of(const mp_graph *g, uint32_t op) {
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
    if (g->tensors[t].local_op == (int32_t)op && g->tensors[t].role == MP_ROLE_PERSISTENT)
      return (int32_t)t;
  return -1;
}

/* mp_graph_options.serial_depthwise: run a depthwise convolution channel
 * by channel where that lowers the in-place bound.  Its contract lets the
 * output lie exactly on its input (or a whole number of pixels above or
 * below), where the reference kernel's puts it rows below, at the cost of
 * a one-channel temporary and a slower, strided write; so each candidate,
 * in operator order, is switched and kept only when the bound (at 16-byte
 * alignment) falls. */
static mp_status choose_serial(mp_graph *g) {
  g->n_serial_ops = 0;
  if (!g->serial_depthwise || g->n_overlaps == 0) return MP_OK;
  uint64_t bound = mp_graph_inplace_bound(g, 16);
  g->serial_bound_before = g->serial_bound = bound;
  for (uint32_t i = 0; i < g->n_ops; i++) {
    if (!mp_lower_serial_candidate(g, i)) continue;
    mp_op *op = &g->ops[i];
    op->channel_serial = true;
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, i, &lo, NULL);
    uint64_t bytes = lo.scratch_bytes;
    uint32_t align = lo.scratch_align ? lo.scratch_align : 1;
    bool serial = st == MP_OK && lo.supported && lo.fn && strstr(lo.fn, "_serial");
    mp_lower_free(&lo);
    if (st == MP_ERR_NOMEM) return st;
    if (!serial) {
      op->channel_serial = false;
      continue;
    }
    /* its temporary: the local it had (a specialised kernel's), resized,
     * or a new one */
    int32_t t = local_of(g, i);
    uint64_t old_size = t >= 0 ? g->tensors[t].size : 0;
    uint32_t old_align = t >= 0 ? g->tensors[t].align_hint : 0;
    bool added = t < 0;
    if (added) {
      char name[48];
      uint32_t id;
      snprintf(name, sizeof name, "op%u_scratch", i);
      if ((st = mp_graph_add_local(g, i, bytes, align, name, &id)) != MP_OK) return st;
      t = (int32_t)id;
    } else {
      g->tensors[t].size = bytes;
      g->tensors[t].align_hint = align;
    }
    if ((st = record_overlaps(g)) != MP_OK) return st;
    uint64_t b = mp_graph_inplace_bound(g, 16);
    if (b < bound) {
      g->serial_bound = bound = b;
      g->n_serial_ops++;
      continue;
    }
    op->channel_serial = false;
    if (added) {
      g->n_tensors--; /* the last tensor, just added */
    } else {
      g->tensors[t].size = old_size;
      g->tensors[t].align_hint = old_align;
    }
    if ((st = record_overlaps(g)) != MP_OK) return st;
  }
  return MP_OK;
}

mp_status mp_kernels_prepare(mp_graph *g, bool allow_unsupported, const mp_diag_sink *dx) {
  mp_diag_sink inner = dx ? *dx : (mp_diag_sink){NULL, NULL};
  mp_diag_sink soft = {as_warning, &inner};
  /* only the operators without a kernel are softened: a malformed one is
   * an error even with allow_unsupported */
  mp_status st = check_all(g, dx, allow_unsupported ? &soft : dx);
  if (st == MP_ERR_UNSUPPORTED && allow_unsupported) {
    mp_warning(dx, (mp_loc){g->model->path, 0, 0, -1, NULL, NULL},
               "--allow-unsupported: the module's run returns the unsupported-operator status "
               "at those operators unless the application supplies their kernels");
    st = MP_OK;
  } else if (st == MP_ERR_UNSUPPORTED) {
    mp_note(dx, (mp_loc){g->model->path, 0, 0, -1, NULL, NULL},
            "convert with --allow-unsupported to emit the module anyway; its run then returns "
            "the unsupported-operator status at those operators");
  }
  if (st != MP_OK) return st;
  uint32_t n_ops = g->n_ops;
  if ((st = record_overlaps(g)) != MP_OK) return st;
  for (uint32_t i = 0; i < n_ops; i++) {
    bool has_local = local_of(g, i) >= 0, has_state = mp_lower_state_of(g, i) >= 0;
    if (has_local && has_state) continue;
    mp_lowered_op lo;
    st = mp_lower_op(g, i, &lo, NULL);
    bool ok = st == MP_OK && lo.supported;
    uint64_t bytes = ok && !has_local ? lo.scratch_bytes : 0;
    uint32_t align = st == MP_OK ? (uint32_t)lo.scratch_align : 1;
    uint64_t state = ok && !has_state ? lo.state_bytes : 0;
    uint32_t state_align = st == MP_OK ? lo.state_align : 1;
    mp_lower_free(&lo);
    if (st == MP_ERR_NOMEM) return st;
    st = MP_OK;
    char name[48];
    uint32_t id;
    if (bytes > 0) {
      snprintf(name, sizeof name, "op%u_scratch", i);
      st = mp_graph_add_local(g, i, bytes, align ? align : 1, name, &id);
      if (st != MP_OK) return st;
    }
    if (state > 0) {
      snprintf(name, sizeof name, "op%u_state", i);
      st = mp_graph_add_state(g, i, state, state_align ? state_align : 1, name, &id);
      if (st != MP_OK) return st;
    }
  }
  return choose_serial(g);
}
