/*
 * families.h — the operator families' entry points and field tables
 * (internal to the lowering).
 *
 * One section per family file, src/lower/<family>.c, beside its kernels in
 * runtime/kernels/ref/mpk_<family>.c.  An entry point lowers one operator
 * (c->op) and reads its builtin code when it serves several; the
 * dispatcher (dispatch.c) calls it from its operator table.  The field
 * tables describe each kernel's params struct for the kernel table
 * (params.c).
 *
 * Only the dispatcher, the kernel table and the family files include this
 * header (tests/check_layers.sh): the helpers below the families
 * (common.c) know none of them.
 */
#ifndef MP_LOWER_FAMILIES_H
#define MP_LOWER_FAMILIES_H

#include "lower/common.h"

/* src/lower/conv.c: CONV_2D, DEPTHWISE_CONV_2D */
mp_status mp_lower_conv(mp_lower_ctx *c);
extern const fdesc mp_lower_conv_s8_fields[];
extern const fdesc mp_lower_conv_f32_fields[];

/* src/lower/fc.c: FULLY_CONNECTED */
mp_status mp_lower_fc(mp_lower_ctx *c);
extern const fdesc mp_lower_fc_s8_fields[];
extern const fdesc mp_lower_fc_f32_fields[];

/* src/lower/pool.c: AVERAGE_POOL_2D, MAX_POOL_2D */
mp_status mp_lower_pool(mp_lower_ctx *c);
extern const fdesc mp_lower_pool_s8_fields[];
extern const fdesc mp_lower_pool_f32_fields[];

/* src/lower/elementwise.c: ADD (int8, float32), QUANTIZE, LOGISTIC */
mp_status mp_lower_add(mp_lower_ctx *c);
mp_status mp_lower_quantize(mp_lower_ctx *c);
mp_status mp_lower_logistic(mp_lower_ctx *c);
extern const fdesc mp_lower_add_s8_fields[];
extern const fdesc mp_lower_add_f32_fields[];
extern const fdesc mp_lower_quantize_fields[];
extern const fdesc mp_lower_requantize_fields[];
extern const fdesc mp_lower_logistic_s8_fields[];
extern const fdesc mp_lower_logistic_f32_fields[];

/* src/lower/softmax.c: SOFTMAX */
mp_status mp_lower_softmax(mp_lower_ctx *c);
extern const fdesc mp_lower_softmax_s8_fields[];
extern const fdesc mp_lower_softmax_f32_fields[];

/* src/lower/shape.c: RESHAPE, SQUEEZE, EXPAND_DIMS, BITCAST (views),
 * PAD, PADV2, TRANSPOSE, CONCATENATION, SHAPE */
mp_status mp_lower_view(mp_lower_ctx *c);
mp_status mp_lower_pad(mp_lower_ctx *c);
mp_status mp_lower_transpose(mp_lower_ctx *c);
mp_status mp_lower_concat(mp_lower_ctx *c);
mp_status mp_lower_shape(mp_lower_ctx *c);
extern const fdesc mp_lower_copy_fields[];
extern const fdesc mp_lower_pad_fields[];
extern const fdesc mp_lower_transpose_fields[];
extern const fdesc mp_lower_concat_fields[];
extern const fdesc mp_lower_shape_fields[];

/* src/lower/mean.c: MEAN */
mp_status mp_lower_mean(mp_lower_ctx *c);
extern const fdesc mp_lower_mean_s8_fields[];
extern const fdesc mp_lower_mean_f32_fields[];

/* src/lower/recurrent.c: SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM */
mp_status mp_lower_svdf(mp_lower_ctx *c);
mp_status mp_lower_lstm(mp_lower_ctx *c);
extern const fdesc mp_lower_svdf_s8_fields[];
extern const fdesc mp_lower_lstm_s8_fields[];
extern const fdesc mp_lower_svdf_f32_fields[];
extern const fdesc mp_lower_lstm_f32_fields[];
extern const fdesc mp_lower_svdf_s8_fast_fields[];
extern const fdesc mp_lower_lstm_s8_fast_fields[];

/* src/lower/binary.c: SUB, MUL, DIV, MAXIMUM, MINIMUM, PRELU,
 * SQUARED_DIFFERENCE, int16 ADD, EQUAL, NOT_EQUAL, LESS, LESS_EQUAL,
 * GREATER, GREATER_EQUAL, LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, SELECT,
 * SELECT_V2, FLOOR_DIV, FLOOR_MOD, ADD_N */
mp_status mp_lower_binary(mp_lower_ctx *c);
extern const fdesc mp_lower_binary_q_fields[];
extern const fdesc mp_lower_binary_f32_fields[];
extern const fdesc mp_lower_compare_fields[];
extern const fdesc mp_lower_logical_fields[];
extern const fdesc mp_lower_select_fields[];
extern const fdesc mp_lower_floor_fields[];
extern const fdesc mp_lower_add_n_fields[];

/* src/lower/unary.c: RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, LEAKY_RELU,
 * TANH, HARD_SWISH, ELU, EXP, RSQRT, ABS, NEG, SQUARE, SQRT, LOG, SIN, COS,
 * FLOOR, CEIL, ROUND, LOG_SOFTMAX, L2_NORMALIZATION, DEQUANTIZE, CAST, and
 * int16 LOGISTIC */
mp_status mp_lower_unary(mp_lower_ctx *c);
extern const fdesc mp_lower_unary_q_fields[];
extern const fdesc mp_lower_unary_f32_fields[];
extern const fdesc mp_lower_dequantize_fields[];
extern const fdesc mp_lower_cast_fields[];
extern const fdesc mp_lower_lut_s8_fields[];
/* int16 SOFTMAX over rows of `depth` (softmax.c checked the shapes). */
mp_status mp_lower_softmax_s16(mp_lower_ctx *c, float beta, int32_t outer, int32_t depth);
extern const fdesc mp_lower_softmax_s16_fields[];

/* src/lower/slice.c: STRIDED_SLICE, SLICE, SPLIT, SPLIT_V, UNPACK, PACK,
 * GATHER, DEPTH_TO_SPACE, SPACE_TO_DEPTH, MIRROR_PAD, SPACE_TO_BATCH_ND,
 * BATCH_TO_SPACE_ND, REVERSE_V2, GATHER_ND, BROADCAST_TO, FILL, ZEROS_LIKE,
 * EMBEDDING_LOOKUP */
mp_status mp_lower_slice(mp_lower_ctx *c);
extern const fdesc mp_lower_strided_copy_fields[];
extern const fdesc mp_lower_split_fields[];
extern const fdesc mp_lower_gather_fields[];
extern const fdesc mp_lower_mirror_pad_fields[];
extern const fdesc mp_lower_space_batch_fields[];
extern const fdesc mp_lower_gather_nd_fields[];
extern const fdesc mp_lower_zeros_fields[];

/* src/lower/resize.c: RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR */
mp_status mp_lower_resize(mp_lower_ctx *c);
extern const fdesc mp_lower_resize_fields[];

/* src/lower/reduce.c: SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX, ARG_MIN */
mp_status mp_lower_reduce(mp_lower_ctx *c);
extern const fdesc mp_lower_reduce_fields[];
extern const fdesc mp_lower_arg_max_fields[];

/* src/lower/transpose_conv.c: TRANSPOSE_CONV */
mp_status mp_lower_transpose_conv(mp_lower_ctx *c);
extern const fdesc mp_lower_transpose_conv_fields[];

/* src/lower/matmul.c: BATCH_MATMUL */
mp_status mp_lower_batch_matmul(mp_lower_ctx *c);
extern const fdesc mp_lower_batch_matmul_fields[];

/* src/lower/signal.c: the Signal library's custom operators (SignalWindow,
 * SignalRfft, SignalFftAutoScale, SignalEnergy, SignalFilterBank,
 * SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction,
 * SignalPCAN, SignalFilterBankLog, SignalDelay, SignalStacker,
 * SignalFramer, SignalOverlapAdd, SignalIrfft); any other custom operator
 * is refused */
mp_status mp_lower_signal(mp_lower_ctx *c);
extern const fdesc mp_lower_signal_window_fields[];
extern const fdesc mp_lower_signal_fft_auto_scale_fields[];
extern const fdesc mp_lower_signal_rfft_fields[];
extern const fdesc mp_lower_signal_energy_fields[];
extern const fdesc mp_lower_signal_filter_bank_fields[];
extern const fdesc mp_lower_signal_filter_bank_sqrt_fields[];
extern const fdesc mp_lower_signal_spectral_subtraction_fields[];
extern const fdesc mp_lower_signal_pcan_fields[];
extern const fdesc mp_lower_signal_filter_bank_log_fields[];
extern const fdesc mp_lower_signal_delay_fields[];
extern const fdesc mp_lower_signal_stacker_fields[];
extern const fdesc mp_lower_signal_framer_fields[];
extern const fdesc mp_lower_signal_overlap_add_fields[];

/* src/lower/variable.c: CALL_ONCE, VAR_HANDLE, READ_VARIABLE,
 * ASSIGN_VARIABLE (copies with mpk_copy) */
mp_status mp_lower_variable(mp_lower_ctx *c);

/* src/lower/specialise.c: the Cortex-M kernels (mp_lower_specialise,
 * lower.h), after a family chose the reference kernel */
extern const fdesc mp_lower_conv_s8_fast_fields[];
extern const fdesc mp_lower_softmax_s8_fast_fields[];
extern const fdesc mp_lower_fc_s8_fast_fields[];

#endif /* MP_LOWER_FAMILIES_H */
