/*
 * params.c — the kernel table and the params as C text.
 *
 * The kernel table gives each kernel of mpk.h (mp_kernel) its function,
 * its init hook, its params struct and that struct's field table; the
 * field tables are the operator families' (lower/families.h).  The
 * printer walks a field table over the lowered op's params, so the C text,
 * the tests and the struct layout share a single description, and sizes a
 * params struct as a 32-bit target lays it out.
 *
 * This file lowers nothing: mp_lower_op (dispatch.c) names the kernel a
 * family chose from this table, and the emitter prints its params.
 */
#include "lower/common.h"
#include "lower/families.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kinfo {
  const char *fn;
  const char *init_fn;
  const char *params_type;
  const fdesc *fields;
} kinfo;

static const kinfo kinfos[MP_K_COUNT] = {
    [MP_K_NONE] = {"", NULL, NULL, NULL},
    [MP_K_CONV2D_S8] = {"mpk_conv2d_s8", "mpk_conv2d_s8_init", "mpk_conv_s8_params",
                        mp_lower_conv_s8_fields},
    [MP_K_CONV2D_F32] = {"mpk_conv2d_f32", NULL, "mpk_conv_f32_params", mp_lower_conv_f32_fields},
    [MP_K_DEPTHWISE_CONV2D_S8] = {"mpk_depthwise_conv2d_s8", "mpk_depthwise_conv2d_s8_init",
                                  "mpk_conv_s8_params", mp_lower_conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_F32] = {"mpk_depthwise_conv2d_f32", NULL, "mpk_conv_f32_params",
                                   mp_lower_conv_f32_fields},
    [MP_K_FULLY_CONNECTED_S8] = {"mpk_fully_connected_s8", "mpk_fully_connected_s8_init",
                                 "mpk_fc_s8_params", mp_lower_fc_s8_fields},
    [MP_K_FULLY_CONNECTED_F32] = {"mpk_fully_connected_f32", NULL, "mpk_fc_f32_params",
                                  mp_lower_fc_f32_fields},
    [MP_K_CONV2D_S16] = {"mpk_conv2d_s16", NULL, "mpk_conv_s8_params", mp_lower_conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S16] = {"mpk_depthwise_conv2d_s16", NULL, "mpk_conv_s8_params",
                                   mp_lower_conv_s8_fields},
    [MP_K_FULLY_CONNECTED_S16] = {"mpk_fully_connected_s16", NULL, "mpk_fc_s8_params",
                                  mp_lower_fc_s8_fields},
    [MP_K_BATCH_MATMUL_S8] = {"mpk_batch_matmul_s8", NULL, "mpk_batch_matmul_params",
                              mp_lower_batch_matmul_fields},
    [MP_K_BATCH_MATMUL_F32] = {"mpk_batch_matmul_f32", NULL, "mpk_batch_matmul_params",
                               mp_lower_batch_matmul_fields},
    [MP_K_BATCH_MATMUL_S16] = {"mpk_batch_matmul_s16", NULL, "mpk_batch_matmul_params",
                               mp_lower_batch_matmul_fields},
    [MP_K_AVG_POOL2D_S8] = {"mpk_avg_pool2d_s8", NULL, "mpk_pool_s8_params", mp_lower_pool_s8_fields},
    [MP_K_AVG_POOL2D_F32] = {"mpk_avg_pool2d_f32", NULL, "mpk_pool_f32_params", mp_lower_pool_f32_fields},
    [MP_K_MAX_POOL2D_S8] = {"mpk_max_pool2d_s8", NULL, "mpk_pool_s8_params", mp_lower_pool_s8_fields},
    [MP_K_MAX_POOL2D_F32] = {"mpk_max_pool2d_f32", NULL, "mpk_pool_f32_params", mp_lower_pool_f32_fields},
    [MP_K_ADD_S8] = {"mpk_add_s8", NULL, "mpk_add_s8_params", mp_lower_add_s8_fields},
    [MP_K_ADD_F32] = {"mpk_add_f32", NULL, "mpk_add_f32_params", mp_lower_add_f32_fields},
    [MP_K_SOFTMAX_S8] = {"mpk_softmax_s8", NULL, "mpk_softmax_s8_params", mp_lower_softmax_s8_fields},
    [MP_K_SOFTMAX_S8_S16] = {"mpk_softmax_s8_s16", NULL, "mpk_softmax_s8_params",
                             mp_lower_softmax_s8_fields},
    [MP_K_SOFTMAX_F32] = {"mpk_softmax_f32", NULL, "mpk_softmax_f32_params", mp_lower_softmax_f32_fields},
    [MP_K_COPY] = {"mpk_copy", NULL, "mpk_copy_params", mp_lower_copy_fields},
    [MP_K_SHAPE] = {"mpk_shape", NULL, "mpk_shape_params", mp_lower_shape_fields},
    [MP_K_QUANTIZE_F32] = {"mpk_quantize_f32", NULL, "mpk_quantize_params", mp_lower_quantize_fields},
    [MP_K_REQUANTIZE] = {"mpk_requantize", NULL, "mpk_requantize_params", mp_lower_requantize_fields},
    [MP_K_PAD] = {"mpk_pad", NULL, "mpk_pad_params", mp_lower_pad_fields},
    [MP_K_MEAN_S8] = {"mpk_mean_s8", NULL, "mpk_mean_s8_params", mp_lower_mean_s8_fields},
    [MP_K_MEAN_F32] = {"mpk_mean_f32", NULL, "mpk_mean_f32_params", mp_lower_mean_f32_fields},
    [MP_K_MEAN_S16] = {"mpk_mean_s16", NULL, "mpk_mean_s8_params", mp_lower_mean_s8_fields},
    [MP_K_AVG_POOL2D_S16] = {"mpk_avg_pool2d_s16", NULL, "mpk_pool_s8_params", mp_lower_pool_s8_fields},
    [MP_K_MAX_POOL2D_S16] = {"mpk_max_pool2d_s16", NULL, "mpk_pool_s8_params", mp_lower_pool_s8_fields},
    [MP_K_TRANSPOSE] = {"mpk_transpose", NULL, "mpk_transpose_params", mp_lower_transpose_fields},
    [MP_K_CONCAT] = {"mpk_concat", NULL, "mpk_concat_params", mp_lower_concat_fields},
    [MP_K_LOGISTIC_S8] = {"mpk_logistic_s8", NULL, "mpk_logistic_s8_params", mp_lower_logistic_s8_fields},
    [MP_K_LOGISTIC_F32] = {"mpk_logistic_f32", NULL, "mpk_logistic_f32_params",
                           mp_lower_logistic_f32_fields},
    [MP_K_CONV2D_S8_1X1] = {"mpk_conv2d_s8_1x1", NULL, "mpk_conv_s8_fast_params",
                            mp_lower_conv_s8_fast_fields},
    [MP_K_CONV2D_S8_IM2COL] = {"mpk_conv2d_s8_im2col", NULL, "mpk_conv_s8_fast_params",
                               mp_lower_conv_s8_fast_fields},
    [MP_K_DEPTHWISE_CONV2D_S8_FAST] = {"mpk_depthwise_conv2d_s8_fast", NULL,
                                       "mpk_conv_s8_fast_params", mp_lower_conv_s8_fast_fields},
    [MP_K_FULLY_CONNECTED_S8_FAST] = {"mpk_fully_connected_s8_fast", NULL,
                                      "mpk_fc_s8_fast_params", mp_lower_fc_s8_fast_fields},
    [MP_K_SVDF_S8] = {"mpk_svdf_s8", NULL, "mpk_svdf_s8_params", mp_lower_svdf_s8_fields},
    [MP_K_LSTM_S8] = {"mpk_lstm_s8", NULL, "mpk_lstm_s8_params", mp_lower_lstm_s8_fields},
    [MP_K_SVDF_F32] = {"mpk_svdf_f32", NULL, "mpk_svdf_f32_params", mp_lower_svdf_f32_fields},
    [MP_K_LSTM_F32] = {"mpk_lstm_f32", NULL, "mpk_lstm_f32_params", mp_lower_lstm_f32_fields},
    [MP_K_LSTM_S16] = {"mpk_lstm_s16", NULL, "mpk_lstm_s8_params", mp_lower_lstm_s8_fields},
    [MP_K_LSTM_S16_FAST] = {"mpk_lstm_s16_fast", NULL, "mpk_lstm_s8_params",
                            mp_lower_lstm_s8_fields},
    [MP_K_SVDF_S8_FAST] = {"mpk_svdf_s8_fast", NULL, "mpk_svdf_s8_fast_params",
                           mp_lower_svdf_s8_fast_fields},
    [MP_K_LSTM_S8_FAST] = {"mpk_lstm_s8_fast", NULL, "mpk_lstm_s8_fast_params",
                           mp_lower_lstm_s8_fast_fields},
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
    [MP_K_ADD_S8_FAST] = {"mpk_add_s8_fast", NULL, "mpk_add_s8_params", mp_lower_add_s8_fields},
    [MP_K_MUL_S8_FAST] = {"mpk_mul_s8_fast", NULL, "mpk_binary_q_params",
                          mp_lower_binary_q_fields},
    [MP_K_AVG_POOL2D_S8_FAST] = {"mpk_avg_pool2d_s8_fast", NULL, "mpk_pool_s8_params",
                                 mp_lower_pool_s8_fields},
    [MP_K_MAX_POOL2D_S8_FAST] = {"mpk_max_pool2d_s8_fast", NULL, "mpk_pool_s8_params",
                                 mp_lower_pool_s8_fields},
    [MP_K_SOFTMAX_S8_FAST] = {"mpk_softmax_s8_fast", NULL, "mpk_softmax_s8_fast_params",
                              mp_lower_softmax_s8_fast_fields},
    [MP_K_CONV2D_S16_FAST] = {"mpk_conv2d_s16_fast", NULL, "mpk_conv_s8_params", mp_lower_conv_s8_fields},
    [MP_K_CONV2D_S16_ACC32] = {"mpk_conv2d_s16_acc32", NULL, "mpk_conv_s8_params",
                               mp_lower_conv_s8_fields},
    [MP_K_CONV2D_S16_ACC32_FAST] = {"mpk_conv2d_s16_acc32_fast", NULL, "mpk_conv_s8_params",
                                    mp_lower_conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S16_FAST] = {"mpk_depthwise_conv2d_s16_fast", NULL,
                                        "mpk_conv_s8_params", mp_lower_conv_s8_fields},
    [MP_K_FULLY_CONNECTED_S16_FAST] = {"mpk_fully_connected_s16_fast", NULL, "mpk_fc_s8_params",
                                       mp_lower_fc_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S8_SERIAL] = {"mpk_depthwise_conv2d_s8_serial",
                                         "mpk_depthwise_conv2d_s8_init", "mpk_conv_s8_params",
                                         mp_lower_conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S8_SERIAL_FAST] = {"mpk_depthwise_conv2d_s8_serial_fast",
                                              "mpk_depthwise_conv2d_s8_init",
                                              "mpk_conv_s8_params", mp_lower_conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_S16_SERIAL] = {"mpk_depthwise_conv2d_s16_serial", NULL,
                                          "mpk_conv_s8_params", mp_lower_conv_s8_fields},
    [MP_K_DEPTHWISE_CONV2D_F32_SERIAL] = {"mpk_depthwise_conv2d_f32_serial", NULL,
                                          "mpk_conv_f32_params", mp_lower_conv_f32_fields},
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
    [MP_K_SIGNAL_DELAY] = {"mpk_signal_delay", NULL, "mpk_signal_delay_params",
                           mp_lower_signal_delay_fields},
    [MP_K_SIGNAL_STACKER] = {"mpk_signal_stacker", NULL, "mpk_signal_stacker_params",
                             mp_lower_signal_stacker_fields},
    [MP_K_SIGNAL_FRAMER] = {"mpk_signal_framer", NULL, "mpk_signal_framer_params",
                            mp_lower_signal_framer_fields},
    [MP_K_SIGNAL_OVERLAP_ADD] = {"mpk_signal_overlap_add", NULL, "mpk_signal_overlap_add_params",
                                 mp_lower_signal_overlap_add_fields},
    [MP_K_SIGNAL_IRFFT] = {"mpk_signal_irfft", NULL, "mpk_signal_rfft_params",
                           mp_lower_signal_rfft_fields},
    [MP_K_MIRROR_PAD] = {"mpk_mirror_pad", NULL, "mpk_mirror_pad_params",
                         mp_lower_mirror_pad_fields},
    [MP_K_SPACE_BATCH] = {"mpk_space_batch", NULL, "mpk_space_batch_params",
                          mp_lower_space_batch_fields},
    [MP_K_GATHER_ND] = {"mpk_gather_nd", NULL, "mpk_gather_nd_params", mp_lower_gather_nd_fields},
    [MP_K_ZEROS] = {"mpk_zeros", NULL, "mpk_zeros_params", mp_lower_zeros_fields},
    [MP_K_COMPARE] = {"mpk_compare", NULL, "mpk_compare_params", mp_lower_compare_fields},
    [MP_K_LOGICAL] = {"mpk_logical", NULL, "mpk_logical_params", mp_lower_logical_fields},
    [MP_K_SELECT] = {"mpk_select", NULL, "mpk_select_params", mp_lower_select_fields},
    [MP_K_FLOOR] = {"mpk_floor_div_mod", NULL, "mpk_floor_params", mp_lower_floor_fields},
    [MP_K_ADD_N] = {"mpk_add_n", NULL, "mpk_add_n_params", mp_lower_add_n_fields},
};

const char *mp_kernel_fn(mp_kernel k) {
  return (unsigned)k < MP_K_COUNT && kinfos[k].fn ? kinfos[k].fn : "";
}

void mp_lower_name_kernel(mp_lowered_op *lo) {
  mp_kernel k = lo->kernel;
  if (!lo->supported || (unsigned)k >= MP_K_COUNT || k == MP_K_NONE) return;
  lo->fn = kinfos[k].fn;
  lo->init_fn = kinfos[k].init_fn;
  lo->params_type = kinfos[k].params_type;
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
