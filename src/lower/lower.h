/*
 * lower.h — compile-time lowering of operators onto memplan's kernels
 * (runtime/kernels/mpk.h).  Internal to the library; the emitter uses it.
 *
 * For one operator, mp_lower_op reads its builtin options and its tensors'
 * shapes and quantisation and decides which kernel runs it, fills that
 * kernel's params struct with everything precomputed (multipliers, shifts,
 * padding, activation bounds, broadcast strides), and says how to call it:
 * the tensors in kernel argument order with their C types, the op-local
 * scratch it needs, and its init hook if any.  mp_lower_params_c turns the
 * params into C99 definitions an emitted module can compile.
 *
 * Calling convention the emitter follows (see mpk.h):
 *   st = <fn>(&<sym>, <args[0]>, ..., <args[n_args-1]>, <scratch>);
 * where each MP_LARG_TENSOR argument is the tensor's data pointer cast to
 * args[i].ctype (NULL when args[i].tensor is -1), an MP_LARG_TENSOR_ARRAY
 * argument is a local array of the listed tensors' pointers, and <scratch>
 * is the op-local scratch tensor's pointer (NULL when scratch_bytes is 0).
 * An init hook, when init_fn is set, takes the same arguments with every
 * non-constant tensor passed as NULL and the op's persistent buffer last.
 */
#ifndef MP_LOWER_H
#define MP_LOWER_H

#include "memplan.h"
#include "util/util.h"

#include "mpk.h"

/* The kernels of mpk.h, one per function. */
typedef enum mp_kernel {
  MP_K_NONE = 0, /* nothing runs: an aliased view, or an unsupported op */
  MP_K_CONV2D_S8,
  MP_K_CONV2D_F32,
  MP_K_DEPTHWISE_CONV2D_S8,
  MP_K_DEPTHWISE_CONV2D_F32,
  MP_K_FULLY_CONNECTED_S8,
  MP_K_FULLY_CONNECTED_F32,
  MP_K_AVG_POOL2D_S8,
  MP_K_AVG_POOL2D_F32,
  MP_K_MAX_POOL2D_S8,
  MP_K_MAX_POOL2D_F32,
  MP_K_ADD_S8,
  MP_K_ADD_F32,
  MP_K_SOFTMAX_S8,
  MP_K_SOFTMAX_S8_S16,
  MP_K_SOFTMAX_F32,
  MP_K_COPY,
  MP_K_QUANTIZE_F32,
  MP_K_REQUANTIZE,
  MP_K_PAD,
  MP_K_MEAN_S8,
  MP_K_MEAN_F32,
  MP_K_MEAN_S16,
  MP_K_AVG_POOL2D_S16,
  MP_K_MAX_POOL2D_S16,
  MP_K_TRANSPOSE,
  MP_K_CONCAT,
  MP_K_LOGISTIC_S8,
  MP_K_LOGISTIC_F32,
  /* the specialised kernels of a Cortex-M target (lower_fast.c) */
  MP_K_CONV2D_S8_1X1,
  MP_K_CONV2D_S8_IM2COL,
  MP_K_DEPTHWISE_CONV2D_S8_FAST,
  MP_K_FULLY_CONNECTED_S8_FAST,
  MP_K_SVDF_S8,
  MP_K_LSTM_S8,
  MP_K_BINARY_Q,
  MP_K_BINARY_F32,
  MP_K_UNARY_Q,
  MP_K_UNARY_F32,
  MP_K_DEQUANTIZE,
  MP_K_CAST,
  MP_K_STRIDED_COPY,
  MP_K_SPLIT,
  MP_K_GATHER,
  MP_K_RESIZE_NEAREST,
  MP_K_RESIZE_BILINEAR_S8,
  MP_K_RESIZE_BILINEAR_F32,
  MP_K_REDUCE,
  MP_K_ARG_MAX,
  MP_K_TRANSPOSE_CONV_S8,
  MP_K_TRANSPOSE_CONV_S16,
  MP_K_TRANSPOSE_CONV_F32,
  MP_K_CONV2D_S16,
  MP_K_DEPTHWISE_CONV2D_S16,
  MP_K_FULLY_CONNECTED_S16,
  MP_K_BATCH_MATMUL_S8,
  MP_K_BATCH_MATMUL_F32,
  MP_K_SVDF_F32,
  MP_K_LSTM_F32,
  MP_K_LUT_S8,
  MP_K_SOFTMAX_S16,
  MP_K_ADD_S8_FAST,
  MP_K_MUL_S8_FAST,
  MP_K_AVG_POOL2D_S8_FAST,
  MP_K_MAX_POOL2D_S8_FAST,
  MP_K_SOFTMAX_S8_FAST,
  MP_K_CONV2D_S16_FAST,
  MP_K_DEPTHWISE_CONV2D_S16_FAST,
  MP_K_FULLY_CONNECTED_S16_FAST,
  /* DEPTHWISE_CONV_2D channel by channel (mpk_conv_serial.c), chosen per
   * operator with memory.in_place (mp_op.channel_serial) */
  MP_K_DEPTHWISE_CONV2D_S8_SERIAL,
  MP_K_DEPTHWISE_CONV2D_S16_SERIAL,
  MP_K_DEPTHWISE_CONV2D_F32_SERIAL,
  /* the Signal library's audio front end (src/lower/signal.c) */
  MP_K_SIGNAL_WINDOW,
  MP_K_SIGNAL_FFT_AUTO_SCALE,
  MP_K_SIGNAL_RFFT,
  MP_K_SIGNAL_ENERGY,
  MP_K_SIGNAL_FILTER_BANK,
  MP_K_SIGNAL_FILTER_BANK_SQRT,
  MP_K_SIGNAL_SPECTRAL_SUBTRACTION,
  MP_K_SIGNAL_PCAN,
  MP_K_SIGNAL_FILTER_BANK_LOG,
  /* SHAPE that is not folded (its output is a graph output) */
  MP_K_SHAPE,
  MP_K_BATCH_MATMUL_S16,
  /* the specialised recurrent kernels of a Cortex-M target (specialise.c) */
  MP_K_SVDF_S8_FAST,
  MP_K_LSTM_S8_FAST,
  /* the int8 channel-serial kernel of a Cortex-M target (cm/mpk_conv_serial.c) */
  MP_K_DEPTHWISE_CONV2D_S8_SERIAL_FAST,
  /* the 16x8 LSTM (mpk_recurrent.c) and its Cortex-M form (specialise.c) */
  MP_K_LSTM_S16,
  MP_K_LSTM_S16_FAST,
  /* a 16x8 CONV_2D without a bias or with an int32 one: TFLite Micro's
   * int32 accumulator (mpk_conv.c), and its Cortex-M form (specialise.c) */
  MP_K_CONV2D_S16_ACC32,
  MP_K_CONV2D_S16_ACC32_FAST,
  /* the Signal library's streaming operators, each with its state
   * (src/lower/signal.c) */
  MP_K_SIGNAL_DELAY,
  MP_K_SIGNAL_STACKER,
  MP_K_SIGNAL_FRAMER,
  MP_K_SIGNAL_OVERLAP_ADD,
  MP_K_SIGNAL_IRFFT,
  /* MIRROR_PAD (mpk_slice.c) */
  MP_K_MIRROR_PAD,
  /* SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, GATHER_ND, ZEROS_LIKE (mpk_slice.c) */
  MP_K_SPACE_BATCH,
  MP_K_GATHER_ND,
  MP_K_ZEROS,
  /* comparisons, logical operators, SELECT, FLOOR_DIV / FLOOR_MOD, ADD_N
   * (mpk_binary.c) */
  MP_K_COMPARE,
  MP_K_LOGICAL,
  MP_K_SELECT,
  MP_K_FLOOR,
  MP_K_ADD_N,
  MP_K_COUNT
} mp_kernel;

/* The params of every kernel; which member is valid follows the kernel. */
typedef union mp_kparams {
  mpk_conv_s8_params conv_s8;   /* conv2d_s8 / _s16, depthwise_conv2d_s8 / _s16 */
  mpk_conv_f32_params conv_f32; /* conv2d_f32, depthwise_conv2d_f32 */
  mpk_fc_s8_params fc_s8;       /* fully_connected_s8 / _s16 */
  mpk_fc_f32_params fc_f32;
  mpk_pool_s8_params pool_s8;   /* avg_pool2d_s8 / _s16, max_pool2d_s8 / _s16 */
  mpk_pool_f32_params pool_f32; /* avg_pool2d_f32, max_pool2d_f32 */
  mpk_add_s8_params add_s8;
  mpk_add_f32_params add_f32;
  mpk_softmax_s8_params softmax_s8; /* softmax_s8, softmax_s8_s16 */
  mpk_softmax_f32_params softmax_f32;
  mpk_copy_params copy;
  mpk_shape_params shape;
  mpk_quantize_params quantize;
  mpk_requantize_params requantize;
  mpk_pad_params pad;
  mpk_mean_s8_params mean_s8; /* mean_s8, mean_s16 */
  mpk_mean_f32_params mean_f32;
  mpk_transpose_params transpose;
  mpk_concat_params concat;
  mpk_logistic_s8_params logistic_s8;
  mpk_logistic_f32_params logistic_f32;
  mpk_conv_s8_fast_params conv_s8_fast; /* conv2d_s8_1x1, _im2col, depthwise_conv2d_s8_fast */
  mpk_fc_s8_fast_params fc_s8_fast;
  mpk_softmax_s8_fast_params softmax_s8_fast;
  mpk_svdf_s8_params svdf_s8;
  mpk_lstm_s8_params lstm_s8; /* lstm_s8, lstm_s16 and lstm_s16_fast */
  mpk_svdf_f32_params svdf_f32;
  mpk_lstm_f32_params lstm_f32;
  mpk_svdf_s8_fast_params svdf_s8_fast;
  mpk_lstm_s8_fast_params lstm_s8_fast;
  mpk_binary_q_params binary_q;
  mpk_binary_f32_params binary_f32;
  mpk_unary_q_params unary_q;
  mpk_unary_f32_params unary_f32;
  mpk_dequantize_params dequantize;
  mpk_cast_params cast;
  mpk_lut_s8_params lut_s8;
  mpk_softmax_s16_params softmax_s16;
  mpk_strided_copy_params strided_copy;
  mpk_split_params split;
  mpk_gather_params gather;
  mpk_mirror_pad_params mirror_pad;
  mpk_space_batch_params space_batch;
  mpk_gather_nd_params gather_nd;
  mpk_zeros_params zeros;
  mpk_resize_params resize; /* resize_nearest, resize_bilinear_s8 / _f32 */
  mpk_reduce_params reduce;
  mpk_arg_max_params arg_max; /* arg_max, ARG_MIN too */
  mpk_compare_params compare;
  mpk_logical_params logical;
  mpk_select_params select;
  mpk_floor_params floor;
  mpk_add_n_params add_n;
  mpk_transpose_conv_params transpose_conv; /* transpose_conv_s8 / _s16 / _f32 */
  mpk_batch_matmul_params batch_matmul;     /* batch_matmul_s8 / _s16 / _f32 */
  mpk_signal_window_params signal_window;
  mpk_signal_fft_auto_scale_params signal_fft_auto_scale;
  mpk_signal_rfft_params signal_rfft; /* signal_rfft, signal_irfft */
  mpk_signal_energy_params signal_energy;
  mpk_signal_filter_bank_params signal_filter_bank;
  mpk_signal_filter_bank_sqrt_params signal_filter_bank_sqrt;
  mpk_signal_spectral_subtraction_params signal_spectral_subtraction;
  mpk_signal_pcan_params signal_pcan;
  mpk_signal_filter_bank_log_params signal_filter_bank_log;
  mpk_signal_delay_params signal_delay;
  mpk_signal_stacker_params signal_stacker;
  mpk_signal_framer_params signal_framer;
  mpk_signal_overlap_add_params signal_overlap_add;
} mp_kparams;

typedef enum mp_larg_kind {
  MP_LARG_TENSOR = 0,       /* one tensor's data pointer */
  MP_LARG_TENSOR_ARRAY = 1, /* an array of n_tensors data pointers */
} mp_larg_kind;

typedef struct mp_lower_arg {
  mp_larg_kind kind;
  bool is_output;     /* the kernel writes it */
  int32_t tensor;     /* MP_LARG_TENSOR: tensor id, -1 = NULL (absent optional) */
  uint32_t n_tensors; /* MP_LARG_TENSOR_ARRAY: the tensors, in order */
  const int32_t *tensors;
  const char *ctype; /* C type of the argument: "const int8_t *" */
} mp_lower_arg;

/* A named int32 array a params struct points to (per-channel multipliers,
 * concat byte counts).  Emitted as <sym>_<name>. */
typedef struct mp_lower_array {
  const char *name; /* "multiplier", "shift", "input_bytes" */
  uint32_t n;
  int32_t *data; /* owned by the lowered op */
} mp_lower_array;

/* An overlap contract of the kernel (mpk.h): output args[out_arg] may share
 * bytes with input args[in_arg] when offset(input) - offset(output) >= gap
 * within one arena and is a multiple of period (1 for most kernels; a
 * pixel's channels for the channel-serial depthwise convolution). */
typedef struct mp_lower_overlap {
  uint32_t in_arg;
  uint32_t out_arg;
  int64_t gap;
  int64_t period;
} mp_lower_overlap;

#define MP_LOWER_MAX_ARGS 8
#define MP_LOWER_MAX_OVERLAPS 2
#define MP_LOWER_MAX_ARRAYS 3

typedef struct mp_lowered_op {
  uint32_t op;
  const char *op_name; /* builtin name ("CONV_2D") */
  bool supported;      /* false: no kernel; `reason` says why */
  bool noop;           /* supported, but nothing runs (an aliased view) */
  mp_kernel kernel;
  const char *fn;          /* kernel function; NULL when noop or unsupported */
  const char *init_fn;     /* init hook, or NULL */
  const char *params_type; /* "mpk_conv_s8_params"; NULL when no kernel */
  mp_kparams params;       /* zero bytes outside the kernel's struct */
  uint32_t n_args;
  mp_lower_arg args[MP_LOWER_MAX_ARGS];
  uint32_t n_arrays;
  mp_lower_array arrays[MP_LOWER_MAX_ARRAYS];
  uint32_t n_overlaps;    /* the kernel's overlap contracts */
  mp_lower_overlap overlaps[MP_LOWER_MAX_OVERLAPS];
  uint64_t scratch_bytes; /* op-local scratch, live over [op, op]; 0 = none */
  uint32_t scratch_align;
  uint64_t persistent_bytes; /* for an init hook's persistent buffer; 0 = none */
  /* The op's own state, kept from run to run (a noise estimate): an
   * op-local persistent tensor of state_bytes (mp_graph_add_state, added
   * by mp_kernels_prepare), zeroed by context_init and reset_state, which
   * the kernel gets as one of its tensor arguments; 0 = none. */
  uint64_t state_bytes;
  uint32_t state_align;
  char reason[192];          /* why unsupported ("" when supported) */
} mp_lowered_op;

/* Lower operator `op` of `g` into *out (which the caller zero-initialises
 * or reuses after mp_lower_free).  An operator memplan cannot run gives
 * MP_OK with out->supported == false and a reason; a malformed model (an
 * options table that does not validate, shapes that contradict the
 * operator) gives MP_ERR_MODEL with a diagnostic.  The params may point at
 * arrays owned by *out: release them with mp_lower_free, and do not copy
 * an mp_lowered_op by value past that. */
mp_status mp_lower_op(const mp_graph *g, uint32_t op, mp_lowered_op *out, const mp_diag_sink *dx);

/* The op's state tensor (mp_lowered_op.state_bytes), once
 * mp_kernels_prepare added it, else -1. */
int32_t mp_lower_state_of(const mp_graph *g, uint32_t op);

/* Release what mp_lower_op allocated; *lo is zeroed.  NULL is a no-op. */
void mp_lower_free(mp_lowered_op *lo);

/* Lower every operator and report, in one go, every one memplan cannot
 * run: its index, its name, why, and the tensors it reads and writes.
 * Returns MP_ERR_UNSUPPORTED when there is at least one, MP_ERR_MODEL on a
 * malformed operator, MP_OK otherwise. */
mp_status mp_lower_check_all(const mp_graph *g, const mp_diag_sink *dx);
/* The same with two sinks: malformed operators are errors on `dx`
 * whatever the caller does with the unsupported ones, which go to `udx`. */
mp_status mp_lower_check_all_to(const mp_graph *g, const mp_diag_sink *dx,
                                const mp_diag_sink *udx);

/* The function name of a kernel ("mpk_conv2d_s8"); "" for MP_K_NONE. */
const char *mp_kernel_fn(mp_kernel k);

/* Make lo run kernel k (its overlap contracts dropped: k declares its
 * own); the caller fills the params.  mp_lower_op names the kernel's
 * function, init hook and params type from the kernel table. */
void mp_lower_use_kernel(mp_lowered_op *lo, mp_kernel k);

/* Could DEPTHWISE_CONV_2D operator op run channel by channel (the serial
 * kernels of mpk_conv_serial.c: depth multiplier 1, a packed output)? */
bool mp_lower_serial_candidate(const mp_graph *g, uint32_t op);

/* Declare an overlap contract of lo's kernel between input args[in_arg]
 * and output args[out_arg], the gap from the kernel's own contract function
 * (mpk.h); nothing for MPK_NO_OVERLAP. */
void mp_lower_add_overlap(mp_lowered_op *lo, uint32_t in_arg, uint32_t out_arg, int64_t gap);
/* The same for a contract with a period (mpk_overlap). */
void mp_lower_add_overlap_period(mp_lowered_op *lo, uint32_t in_arg, uint32_t out_arg,
                                 mpk_overlap ov);

/* A new zeroed int32 array of n entries owned by lo (freed by
 * mp_lower_free), or NULL when out of memory or lo has no room left. */
int32_t *mp_lower_add_array(mp_lowered_op *lo, const char *name, uint32_t n);

/* Ahead-of-time specialisation (lower_fast.c): when g->target is a
 * Cortex-M core, turn a supported int8 CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED, unbroadcast ADD or MUL, AVERAGE_POOL_2D, MAX_POOL_2D or
 * SOFTMAX, or a 16x8 CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED, that lo
 * runs with a reference kernel into its specialised kernel,
 * with the constants it needs (a folded bias, a table of exponentials),
 * the im2col scratch and the specialised loop's own overlap contracts;
 * anything else is left as it is.  MP_ERR_NOMEM is the only failure. */
mp_status mp_lower_specialise(const mp_graph *g, mp_lowered_op *lo);

/* Output strides (mpk_conv_geom), for an output that is a strided view
 * (mp_tensor.alias_row / alias_stride: an elided CONCATENATION's input).
 * mp_lower_window_geom: the geometry of a lowered convolution, depthwise
 * convolution or pool, whose reference kernel takes output strides (a
 * specialised kernel falls back to it), else NULL.
 * mp_lower_view_strides: set g's output strides so that its outputs land
 * on rows of `row` bytes, `stride` bytes apart, of `elem`-byte elements: a
 * row is one pixel's channels, one image row's pixels or one image.  False
 * (g unchanged or half set: do not use it) when no stride does that. */
const mpk_conv_geom *mp_lower_window_geom(const mp_lowered_op *lo);
bool mp_lower_view_strides(mpk_conv_geom *g, uint64_t elem, uint64_t row, uint64_t stride);

/* Append the C99 initializer of lo's params ("{.geom = {...}, ...}") to b.
 * Arrays are referenced as <sym>_<array name>.  Nothing for a no-op. */
void mp_lower_params_init(const mp_lowered_op *lo, const char *sym, mp_buf *b);

/* Append the array definitions the params point to, each after `decl`
 * (a placement macro and a space, or "")
 * ("static const int32_t <sym>_multiplier[16] = {...};\n", ...). */
void mp_lower_params_arrays(const mp_lowered_op *lo, const char *decl, const char *sym,
                            mp_buf *b);

/* sizeof lo's params struct on a 32-bit target (ILP32: 4-byte pointers),
 * from its field table; the arrays it points to are 4 bytes an element. */
uint32_t mp_lower_params_size32(const mp_lowered_op *lo);

/* Both, as complete definitions: the arrays, then
 * "static const <params_type> <sym> = <initializer>;\n". */
void mp_lower_params_c(const mp_lowered_op *lo, const char *sym, mp_buf *b);

/* Run lo on the host (eval.c), at convert time, with the kernel the
 * module would call: args[k] is argument k's data (for an array argument,
 * its `const void *const *` array), scratch lo->scratch_bytes bytes or
 * NULL.  MP_ERR_UNSUPPORTED for a kernel it does not run (then the
 * operator runs on the device), MP_ERR_INTERNAL when the kernel fails. */
mp_status mp_lower_eval(const mp_lowered_op *lo, void *const *args, void *scratch);

#endif /* MP_LOWER_H */
