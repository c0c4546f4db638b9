/*
 * test_golden.c — memplan's kernels against TensorFlow Lite Micro, on every
 * model of the shared corpus.
 *
 * For each model with golden data (../shared/golden, see its README): build
 * the graph, lower every operator, give every tensor a buffer of its own
 * (constants point at the model's bytes, view aliases at their root, each
 * op-local scratch tensor the lowering asked for gets one too), run the
 * kernels in operator order and compare the graph outputs with TFLM's for
 * all three input cases: bit for bit for integer outputs, within 1e-5
 * relative error for float.  Case 0 is also compared operator by operator
 * with case0.tensor{t}.bin, so a mismatch names the first operator whose
 * output differs.  Everything runs twice: with activation and scratch
 * buffers zeroed, and pre-filled with garbage, so that a kernel reading
 * memory it did not write fails.
 *
 * Stateful models (SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM) run as the golden
 * data was made: their variable tensors start at zero and keep their
 * values from case 0 to case 2 (the garbage pass scrambles everything
 * else before each case).  Every supported operator is also checked on
 * its own, fed TFLM's intermediate tensors (a state input from zero).
 *
 * Finally the params structs are printed as C, compiled with the host
 * compiler as C99, and must reproduce the lowered params byte for byte.
 *
 * Skips with a NOTICE when ../shared/models or ../shared/golden is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* strong references: the kernels come from libmemplan.a (see mpk.h) */
#define MPK_API
#include "lower/lower.h"
#include "testutil.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The int8 and float models every build must run bit-exactly: every
 * model of the corpus but those tests/expected_refusals.txt lists as
 * refused (every_model_of_the_corpus_is_runnable checks that they are). */
static const char *const runnable[] = {"mlperf_ad01_int8",
                                       "mlperf_ic_resnet_int8",
                                       "mlperf_kws_ref_int8",
                                       "mlperf_vww_96_int8",
                                       "tflm_hello_world_float",
                                       "tflm_hello_world_int8",
                                       "tflm_micro_speech_int8",
                                       "tflm_person_detect_int8",
                                       "tflm_keyword_scrambled_int8",
                                       "tflm_mnist_lstm_int8",
                                       "tflm_audio_preprocessor_float",
                                       "silabs_anomaly_detection",
                                       "ambiq_nnse_lstm_int8",
                                       "mww_vad_v2_int8",
                                       "tflm_dtln",
                                       NULL};

/* ------------------------------------------------------------------------ */
/* A model prepared to run                                                  */
/* ------------------------------------------------------------------------ */

typedef struct net {
  const char *name;
  mp_model *m;
  mp_graph *g;
  mp_lowered_op *lo; /* per op */
  int32_t *scratch;  /* per op: op-local scratch tensor, or -1 */
  uint8_t **buf;     /* per tensor: where its data lives */
  uint8_t **owned;   /* per tensor: storage this test allocated */
  bool all_supported;
} net;

static void net_close(net *n) {
  if (n->g) {
    for (uint32_t t = 0; t < n->g->n_tensors; t++)
      free(n->owned ? n->owned[t] : NULL);
    for (uint32_t o = 0; n->lo && o < n->g->n_ops; o++)
      mp_lower_free(&n->lo[o]);
  }
  free(n->lo);
  free(n->scratch);
  free(n->buf);
  free(n->owned);
  mp_graph_free(&n->g);
  mp_model_free(&n->m);
  memset(n, 0, sizeof *n);
}

static uint8_t *alloc16(uint64_t size) {
  size_t s = (size_t)mp_align_up(size ? size : 1, 16);
  uint8_t *p = aligned_alloc(16, s);
  assert_non_null(p);
  memset(p, 0, s);
  return p;
}

/* Run every depthwise convolution that can channel by channel (the serial
 * kernels memory.in_place chooses where they lower the in-place bound). */
static bool serial_all;
static bool is_serial(mp_kernel k);

/* Load, lower and give every tensor storage.  false when the model has an
 * operator without a kernel (n->all_supported is then false too). */
static void net_open_for(net *n, const char *name, bool alias_views, mp_target target) {
  memset(n, 0, sizeof *n);
  n->name = name;
  tu_diags d;
  tu_diags_init(&d);
  assert_int_equal(mp_model_load(tu_model_path(name), &d.sink, &n->m), MP_OK);
  mp_graph_options opt = {.alias_views = alias_views};
  assert_int_equal(mp_graph_build(n->m, 0, &opt, &d.sink, &n->g), MP_OK);
  n->g->target = target;
  uint32_t n_ops = n->g->n_ops;
  for (uint32_t o = 0; serial_all && o < n_ops; o++)
    n->g->ops[o].channel_serial = mp_lower_serial_candidate(n->g, o);
  n->lo = calloc(n_ops ? n_ops : 1, sizeof *n->lo);
  n->scratch = calloc(n_ops ? n_ops : 1, sizeof *n->scratch);
  assert_non_null(n->lo);
  assert_non_null(n->scratch);
  n->all_supported = true;
  for (uint32_t o = 0; o < n_ops; o++) {
    mp_status st = mp_lower_op(n->g, o, &n->lo[o], &d.sink);
    if (st != MP_OK) fail_msg("%s: op %u does not lower: %s", name, o, d.text);
    n->scratch[o] = -1;
    if (!n->lo[o].supported) n->all_supported = false;
  }
  /* op-local scratch, as the planner adds it */
  for (uint32_t o = 0; o < n_ops; o++) {
    if (!n->lo[o].supported || n->lo[o].scratch_bytes == 0) continue;
    uint32_t id = 0;
    char nm[64];
    snprintf(nm, sizeof nm, "op%u_scratch", o);
    assert_int_equal(
        mp_graph_add_local(n->g, o, n->lo[o].scratch_bytes, n->lo[o].scratch_align, nm, &id),
        MP_OK);
    n->scratch[o] = (int32_t)id;
  }
  /* an operator's own state, as mp_kernels_prepare adds it; lowered again
   * so that its arguments name it */
  for (uint32_t o = 0; o < n_ops; o++) {
    if (!n->lo[o].supported || n->lo[o].state_bytes == 0) continue;
    uint32_t id = 0;
    char nm[64];
    snprintf(nm, sizeof nm, "op%u_state", o);
    assert_int_equal(
        mp_graph_add_state(n->g, o, n->lo[o].state_bytes, n->lo[o].state_align, nm, &id),
        MP_OK);
    mp_lower_free(&n->lo[o]);
    assert_int_equal(mp_lower_op(n->g, o, &n->lo[o], &d.sink), MP_OK);
    assert_int_equal(mp_lower_state_of(n->g, o), (int32_t)id);
  }
  uint32_t nt = n->g->n_tensors;
  n->buf = calloc(nt, sizeof *n->buf);
  n->owned = calloc(nt, sizeof *n->owned);
  assert_non_null(n->buf);
  assert_non_null(n->owned);
  for (uint32_t t = 0; t < nt; t++) {
    const mp_tensor *x = &n->g->tensors[t];
    if (x->data) {
      n->buf[t] = (uint8_t *)(uintptr_t)x->data;
      if ((uintptr_t)x->data % 4 != 0) { /* the kernels read int32 / float constants */
        n->owned[t] = alloc16(x->size);
        memcpy(n->owned[t], x->data, (size_t)x->size);
        n->buf[t] = n->owned[t];
      }
    } else if (x->alias_of < 0) {
      n->owned[t] = alloc16(x->size);
      n->buf[t] = n->owned[t];
    }
  }
  for (uint32_t t = 0; t < nt; t++)
    if (n->g->tensors[t].alias_of >= 0) n->buf[t] = n->buf[n->g->tensors[t].alias_of];
}

static void net_open(net *n, const char *name, bool alias_views) {
  net_open_for(n, name, alias_views, MP_TARGET_GENERIC);
}

static bool is_state(const net *n, uint32_t t) {
  return n->g->tensors[t].role == MP_ROLE_PERSISTENT;
}

/* Fill every buffer the test owns that is neither a constant nor a state
 * with garbage. */
static void net_scramble(net *n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (uint32_t t = 0; t < n->g->n_tensors; t++) {
    if (!n->owned[t] || n->g->tensors[t].data || is_state(n, t)) continue;
    size_t s = (size_t)mp_align_up(n->g->tensors[t].size ? n->g->tensors[t].size : 1, 16);
    for (size_t i = 0; i < s; i++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      n->owned[t][i] = (uint8_t)x;
    }
  }
}

/* The byte state t starts at, as the module starts it: a resource
 * variable at what its init subgraph assigns (which must be one byte
 * value here) or its value's zero point, any other state at 0. */
static uint8_t state_byte(const mp_graph *g, uint32_t t) {
  const mp_tensor *x = &g->tensors[t];
  if (x->state_init) {
    for (uint64_t i = 1; i < x->size; i++)
      if (x->state_init[i] != x->state_init[0]) fail_msg("state %u starts at bytes that differ", t);
    return x->state_init[0];
  }
  return x->state_init_byte;
}

/* Start the buffers the test owns that are not constants: the states
 * (at state_byte) when `states`, the others (at zero) when not. */
static void net_zero(net *n, bool states) {
  for (uint32_t t = 0; t < n->g->n_tensors; t++)
    if (n->owned[t] && !n->g->tensors[t].data && is_state(n, t) == states)
      memset(n->owned[t], states ? state_byte(n->g, t) : 0,
             (size_t)mp_align_up(n->g->tensors[t].size ? n->g->tensors[t].size : 1, 16));
}

/* Call the kernel of one lowered op on the given pointers. */
static int32_t call_kernel(const mp_lowered_op *lo, void *const *a, void *scratch) {
  const mp_kparams *p = &lo->params;
  switch (lo->kernel) {
  case MP_K_NONE: return MPK_OK;
  case MP_K_CONV2D_S8: return mpk_conv2d_s8(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_CONV2D_F32: return mpk_conv2d_f32(&p->conv_f32, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S8:
    return mpk_depthwise_conv2d_s8(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_F32:
    return mpk_depthwise_conv2d_f32(&p->conv_f32, a[0], a[1], a[2], a[3], scratch);
  case MP_K_FULLY_CONNECTED_S8:
    return mpk_fully_connected_s8(&p->fc_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_FULLY_CONNECTED_F32:
    return mpk_fully_connected_f32(&p->fc_f32, a[0], a[1], a[2], a[3], scratch);
  case MP_K_AVG_POOL2D_S8: return mpk_avg_pool2d_s8(&p->pool_s8, a[0], a[1], scratch);
  case MP_K_AVG_POOL2D_F32: return mpk_avg_pool2d_f32(&p->pool_f32, a[0], a[1], scratch);
  case MP_K_MAX_POOL2D_S8: return mpk_max_pool2d_s8(&p->pool_s8, a[0], a[1], scratch);
  case MP_K_AVG_POOL2D_S16: return mpk_avg_pool2d_s16(&p->pool_s8, a[0], a[1], scratch);
  case MP_K_MAX_POOL2D_S16: return mpk_max_pool2d_s16(&p->pool_s8, a[0], a[1], scratch);
  case MP_K_MAX_POOL2D_F32: return mpk_max_pool2d_f32(&p->pool_f32, a[0], a[1], scratch);
  case MP_K_ADD_S8: return mpk_add_s8(&p->add_s8, a[0], a[1], a[2], scratch);
  case MP_K_ADD_F32: return mpk_add_f32(&p->add_f32, a[0], a[1], a[2], scratch);
  case MP_K_SOFTMAX_S8: return mpk_softmax_s8(&p->softmax_s8, a[0], a[1], scratch);
  case MP_K_SOFTMAX_S8_S16: return mpk_softmax_s8_s16(&p->softmax_s8, a[0], a[1], scratch);
  case MP_K_SOFTMAX_F32: return mpk_softmax_f32(&p->softmax_f32, a[0], a[1], scratch);
  case MP_K_COPY: return mpk_copy(&p->copy, a[0], a[1], scratch);
  case MP_K_QUANTIZE_F32: return mpk_quantize_f32(&p->quantize, a[0], a[1], scratch);
  case MP_K_REQUANTIZE: return mpk_requantize(&p->requantize, a[0], a[1], scratch);
  case MP_K_PAD: return mpk_pad(&p->pad, a[0], a[1], scratch);
  case MP_K_MEAN_S8: return mpk_mean_s8(&p->mean_s8, a[0], a[1], scratch);
  case MP_K_MEAN_F32: return mpk_mean_f32(&p->mean_f32, a[0], a[1], scratch);
  case MP_K_MEAN_S16: return mpk_mean_s16(&p->mean_s8, a[0], a[1], scratch);
  case MP_K_TRANSPOSE: return mpk_transpose(&p->transpose, a[0], a[1], scratch);
  case MP_K_CONCAT: return mpk_concat(&p->concat, (const void *const *)a[0], a[1], scratch);
  case MP_K_LOGISTIC_S8: return mpk_logistic_s8(&p->logistic_s8, a[0], a[1], scratch);
  case MP_K_LOGISTIC_F32: return mpk_logistic_f32(&p->logistic_f32, a[0], a[1], scratch);
  case MP_K_CONV2D_S8_1X1:
    return mpk_conv2d_s8_1x1(&p->conv_s8_fast, a[0], a[1], a[2], a[3], scratch);
  case MP_K_CONV2D_S8_IM2COL:
    return mpk_conv2d_s8_im2col(&p->conv_s8_fast, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S8_FAST:
    return mpk_depthwise_conv2d_s8_fast(&p->conv_s8_fast, a[0], a[1], a[2], a[3], scratch);
  case MP_K_FULLY_CONNECTED_S8_FAST:
    return mpk_fully_connected_s8_fast(&p->fc_s8_fast, a[0], a[1], a[2], a[3], scratch);
  case MP_K_SVDF_S8: return mpk_svdf_s8(&p->svdf_s8, a[0], a[1], a[2], a[3], a[4], a[5], scratch);
  case MP_K_LSTM_S8:
    return mpk_lstm_s8(&p->lstm_s8, a[0], (const void *const *)a[1], a[2], a[3], a[4], scratch);
  case MP_K_SVDF_S8_FAST:
    return mpk_svdf_s8_fast(&p->svdf_s8_fast, a[0], a[1], a[2], a[3], a[4], a[5], scratch);
  case MP_K_LSTM_S16:
    return mpk_lstm_s16(&p->lstm_s8, a[0], (const void *const *)a[1], a[2], a[3], a[4], scratch);
  case MP_K_LSTM_S16_FAST:
    return mpk_lstm_s16_fast(&p->lstm_s8, a[0], (const void *const *)a[1], a[2], a[3], a[4],
                             scratch);
  case MP_K_LSTM_S8_FAST:
    return mpk_lstm_s8_fast(&p->lstm_s8_fast, a[0], (const void *const *)a[1], a[2], a[3], a[4],
                            scratch);
  case MP_K_BINARY_Q: return mpk_binary_q(&p->binary_q, a[0], a[1], a[2], scratch);
  case MP_K_BINARY_F32: return mpk_binary_f32(&p->binary_f32, a[0], a[1], a[2], scratch);
  case MP_K_UNARY_Q: return mpk_unary_q(&p->unary_q, a[0], a[1], scratch);
  case MP_K_UNARY_F32: return mpk_unary_f32(&p->unary_f32, a[0], a[1], scratch);
  case MP_K_DEQUANTIZE: return mpk_dequantize(&p->dequantize, a[0], a[1], scratch);
  case MP_K_CAST: return mpk_cast(&p->cast, a[0], a[1], scratch);
  case MP_K_LUT_S8: return mpk_lut_s8(&p->lut_s8, a[0], a[1], scratch);
  case MP_K_SOFTMAX_S16: return mpk_softmax_s16(&p->softmax_s16, a[0], a[1], scratch);
  case MP_K_STRIDED_COPY: return mpk_strided_copy(&p->strided_copy, a[0], a[1], scratch);
  case MP_K_SPLIT: return mpk_split(&p->split, a[0], (void *const *)a[1], scratch);
  case MP_K_GATHER: return mpk_gather(&p->gather, a[0], a[1], a[2], scratch);
  case MP_K_MIRROR_PAD: return mpk_mirror_pad(&p->mirror_pad, a[0], a[1], scratch);
  case MP_K_SPACE_BATCH: return mpk_space_batch(&p->space_batch, a[0], a[1], scratch);
  case MP_K_GATHER_ND: return mpk_gather_nd(&p->gather_nd, a[0], a[1], a[2], scratch);
  case MP_K_ZEROS: return mpk_zeros(&p->zeros, a[0], a[1], scratch);
  case MP_K_COMPARE: return mpk_compare(&p->compare, a[0], a[1], a[2], scratch);
  case MP_K_LOGICAL: return mpk_logical(&p->logical, a[0], a[1], a[2], scratch);
  case MP_K_SELECT: return mpk_select(&p->select, a[0], a[1], a[2], a[3], scratch);
  case MP_K_FLOOR: return mpk_floor_div_mod(&p->floor, a[0], a[1], a[2], scratch);
  case MP_K_ADD_N: return mpk_add_n(&p->add_n, (const void *const *)a[0], a[1], scratch);
  case MP_K_RESIZE_NEAREST: return mpk_resize_nearest(&p->resize, a[0], a[1], scratch);
  case MP_K_RESIZE_BILINEAR_S8: return mpk_resize_bilinear_s8(&p->resize, a[0], a[1], scratch);
  case MP_K_RESIZE_BILINEAR_F32: return mpk_resize_bilinear_f32(&p->resize, a[0], a[1], scratch);
  case MP_K_REDUCE: return mpk_reduce(&p->reduce, a[0], a[1], scratch);
  case MP_K_ARG_MAX: return mpk_arg_max(&p->arg_max, a[0], a[1], scratch);
  case MP_K_SHAPE: return mpk_shape(&p->shape, a[0], a[1], scratch);
  case MP_K_TRANSPOSE_CONV_S8:
    return mpk_transpose_conv_s8(&p->transpose_conv, a[0], a[1], a[2], a[3], scratch);
  case MP_K_TRANSPOSE_CONV_S16:
    return mpk_transpose_conv_s16(&p->transpose_conv, a[0], a[1], a[2], a[3], scratch);
  case MP_K_TRANSPOSE_CONV_F32:
    return mpk_transpose_conv_f32(&p->transpose_conv, a[0], a[1], a[2], a[3], scratch);
  case MP_K_CONV2D_S16: return mpk_conv2d_s16(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_CONV2D_S16_ACC32:
    return mpk_conv2d_s16_acc32(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S16:
    return mpk_depthwise_conv2d_s16(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S8_SERIAL:
    return mpk_depthwise_conv2d_s8_serial(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S8_SERIAL_FAST:
    return mpk_depthwise_conv2d_s8_serial_fast(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S16_SERIAL:
    return mpk_depthwise_conv2d_s16_serial(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_F32_SERIAL:
    return mpk_depthwise_conv2d_f32_serial(&p->conv_f32, a[0], a[1], a[2], a[3], scratch);
  case MP_K_FULLY_CONNECTED_S16:
    return mpk_fully_connected_s16(&p->fc_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_BATCH_MATMUL_S8:
    return mpk_batch_matmul_s8(&p->batch_matmul, a[0], a[1], a[2], scratch);
  case MP_K_BATCH_MATMUL_F32:
    return mpk_batch_matmul_f32(&p->batch_matmul, a[0], a[1], a[2], scratch);
  case MP_K_BATCH_MATMUL_S16:
    return mpk_batch_matmul_s16(&p->batch_matmul, a[0], a[1], a[2], scratch);
  case MP_K_SVDF_F32:
    return mpk_svdf_f32(&p->svdf_f32, a[0], a[1], a[2], a[3], a[4], a[5], scratch);
  case MP_K_LSTM_F32:
    return mpk_lstm_f32(&p->lstm_f32, a[0], (const void *const *)a[1], a[2], a[3], a[4], scratch);
  case MP_K_ADD_S8_FAST: return mpk_add_s8_fast(&p->add_s8, a[0], a[1], a[2], scratch);
  case MP_K_MUL_S8_FAST: return mpk_mul_s8_fast(&p->binary_q, a[0], a[1], a[2], scratch);
  case MP_K_AVG_POOL2D_S8_FAST: return mpk_avg_pool2d_s8_fast(&p->pool_s8, a[0], a[1], scratch);
  case MP_K_MAX_POOL2D_S8_FAST: return mpk_max_pool2d_s8_fast(&p->pool_s8, a[0], a[1], scratch);
  case MP_K_SOFTMAX_S8_FAST:
    return mpk_softmax_s8_fast(&p->softmax_s8_fast, a[0], a[1], scratch);
  case MP_K_CONV2D_S16_FAST:
    return mpk_conv2d_s16_fast(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_CONV2D_S16_ACC32_FAST:
    return mpk_conv2d_s16_acc32_fast(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_DEPTHWISE_CONV2D_S16_FAST:
    return mpk_depthwise_conv2d_s16_fast(&p->conv_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_FULLY_CONNECTED_S16_FAST:
    return mpk_fully_connected_s16_fast(&p->fc_s8, a[0], a[1], a[2], a[3], scratch);
  case MP_K_SIGNAL_WINDOW:
    return mpk_signal_window(&p->signal_window, a[0], a[1], a[2], scratch);
  case MP_K_SIGNAL_FFT_AUTO_SCALE:
    return mpk_signal_fft_auto_scale(&p->signal_fft_auto_scale, a[0], a[1], a[2], scratch);
  case MP_K_SIGNAL_RFFT: return mpk_signal_rfft(&p->signal_rfft, a[0], a[1], scratch);
  case MP_K_SIGNAL_IRFFT: return mpk_signal_irfft(&p->signal_rfft, a[0], a[1], scratch);
  case MP_K_SIGNAL_ENERGY: return mpk_signal_energy(&p->signal_energy, a[0], a[1], scratch);
  case MP_K_SIGNAL_FILTER_BANK:
    return mpk_signal_filter_bank(&p->signal_filter_bank, a[0], a[1], a[2], a[3], a[4], a[5],
                                  a[6], scratch);
  case MP_K_SIGNAL_FILTER_BANK_SQRT:
    return mpk_signal_filter_bank_sqrt(&p->signal_filter_bank_sqrt, a[0], a[1], a[2], scratch);
  case MP_K_SIGNAL_SPECTRAL_SUBTRACTION:
    return mpk_signal_spectral_subtraction(&p->signal_spectral_subtraction, a[0], a[1], a[2],
                                           a[3], scratch);
  case MP_K_SIGNAL_PCAN: return mpk_signal_pcan(&p->signal_pcan, a[0], a[1], a[2], a[3], scratch);
  case MP_K_SIGNAL_FILTER_BANK_LOG:
    return mpk_signal_filter_bank_log(&p->signal_filter_bank_log, a[0], a[1], scratch);
  case MP_K_SIGNAL_DELAY: return mpk_signal_delay(&p->signal_delay, a[0], a[1], a[2], scratch);
  case MP_K_SIGNAL_STACKER:
    return mpk_signal_stacker(&p->signal_stacker, a[0], a[1], a[2], a[3], scratch);
  case MP_K_SIGNAL_FRAMER:
    return mpk_signal_framer(&p->signal_framer, a[0], a[1], a[2], a[3], scratch);
  case MP_K_SIGNAL_OVERLAP_ADD:
    return mpk_signal_overlap_add(&p->signal_overlap_add, a[0], a[1], a[2], scratch);
  case MP_K_COUNT: break;
  }
  return -1;
}

/* Run op o of n on its buffers. */
static int32_t run_op(net *n, uint32_t o) {
  const mp_lowered_op *lo = &n->lo[o];
  void *a[MP_LOWER_MAX_ARGS] = {NULL};
  const void *arr[64] = {NULL};
  for (uint32_t i = 0; i < lo->n_args; i++) {
    const mp_lower_arg *x = &lo->args[i];
    if (x->kind == MP_LARG_TENSOR_ARRAY) {
      assert_true(x->n_tensors <= 64);
      for (uint32_t k = 0; k < x->n_tensors; k++)
        arr[k] = x->tensors[k] >= 0 ? n->buf[x->tensors[k]] : NULL;
      a[i] = (void *)arr;
    } else {
      a[i] = x->tensor >= 0 ? n->buf[x->tensor] : NULL;
    }
  }
  void *scratch = n->scratch[o] >= 0 ? n->buf[n->scratch[o]] : NULL;
  return call_kernel(lo, a, scratch);
}

/* ------------------------------------------------------------------------ */
/* Golden files and comparison                                              */
/* ------------------------------------------------------------------------ */

static uint8_t *golden(const char *model, const char *file, size_t *size) {
  const char *dir = tu_golden_dir();
  if (!dir) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/%s", dir, model, file);
  return (uint8_t *)tu_read_text(path, size);
}

static bool have_golden(const char *model) {
  size_t size = 0;
  uint8_t *p = golden(model, "case0.input0.bin", &size);
  free(p);
  return p != NULL;
}

/* Compare a tensor's bytes with the expected ones; on a difference, write
 * where into msg and return false.  Float tensors: 1e-5 relative error. */
static bool same(int32_t dtype, const uint8_t *got, const uint8_t *want, size_t size, char *msg,
                 size_t msg_size) {
  if (dtype == MP_DTYPE_FLOAT32) {
    for (size_t i = 0; i + 4 <= size; i += 4) {
      float a, b;
      memcpy(&a, got + i, 4);
      memcpy(&b, want + i, 4);
      float tol = 1e-5f * fmaxf(fabsf(a), fabsf(b));
      if (!(a == b || fabsf(a - b) <= tol)) {
        snprintf(msg, msg_size, "element %zu is %.9g, TFLM has %.9g", i / 4, (double)a, (double)b);
        return false;
      }
    }
    return true;
  }
  for (size_t i = 0; i < size; i++) {
    if (got[i] != want[i]) {
      snprintf(msg, msg_size, "byte %zu is 0x%02x, TFLM has 0x%02x", i, got[i], want[i]);
      return false;
    }
  }
  return true;
}

/* Write case k's inputs into the graph inputs. */
static void load_inputs(net *n, int k) {
  for (uint32_t i = 0; i < n->g->n_inputs; i++) {
    char file[64];
    snprintf(file, sizeof file, "case%d.input%u.bin", k, i);
    size_t size = 0;
    uint8_t *data = golden(n->name, file, &size);
    assert_non_null(data);
    int32_t t = n->g->inputs[i];
    assert_int_equal(size, n->g->tensors[t].size);
    memcpy(n->buf[t], data, size);
    free(data);
  }
}

/* Run every op; for case 0 compare each op's outputs with TFLM's
 * intermediates and fail naming the first op that differs. */
static void run_case(net *n, int k) {
  load_inputs(n, k);
  for (uint32_t o = 0; o < n->g->n_ops; o++) {
    int32_t st = run_op(n, o);
    if (st != MPK_OK)
      fail_msg("%s case %d: op %u (%s, %s) returned %d", n->name, k, o, n->g->ops[o].name,
               mp_kernel_fn(n->lo[o].kernel), st);
    if (k != 0) continue;
    for (uint32_t j = 0; j < n->g->ops[o].n_outputs; j++) {
      int32_t t = n->g->ops[o].outputs[j];
      char file[64], msg[160];
      snprintf(file, sizeof file, "case0.tensor%d.bin", t);
      size_t size = 0;
      uint8_t *want = golden(n->name, file, &size);
      if (!want) continue;
      const mp_tensor *x = &n->g->tensors[t];
      assert_int_equal(size, x->size);
      if (!same(x->dtype, n->buf[t], want, size, msg, sizeof msg)) {
        free(want);
        fail_msg("%s case 0: first difference at op %u (%s, kernel %s), output tensor %d "
                 "'%s': %s",
                 n->name, o, n->g->ops[o].name, mp_kernel_fn(n->lo[o].kernel), t, x->name, msg);
      }
      free(want);
    }
  }
  for (uint32_t j = 0; j < n->g->n_outputs; j++) {
    char file[64], msg[160];
    snprintf(file, sizeof file, "case%d.output%u.bin", k, j);
    size_t size = 0;
    uint8_t *want = golden(n->name, file, &size);
    assert_non_null(want);
    int32_t t = n->g->outputs[j];
    assert_int_equal(size, n->g->tensors[t].size);
    if (!same(n->g->tensors[t].dtype, n->buf[t], want, size, msg, sizeof msg)) {
      free(want);
      fail_msg("%s case %d: output %u (tensor %d) differs from TFLM: %s", n->name, k, j, t, msg);
    }
    free(want);
  }
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

static bool corpus_present(void) { return tu_models_dir() && tu_golden_dir(); }

/* The targets whose lowering differs: the reference kernels (generic) and
 * the specialised ones (every Cortex-M target lowers alike; on the host
 * their portable paths run). */
static const mp_target lowerings[] = {MP_TARGET_GENERIC, MP_TARGET_CORTEX_M55};
#define N_LOWERINGS (sizeof lowerings / sizeof lowerings[0])

/* One of the specialised kernels of a Cortex-M target (lower_fast.c). */
static bool is_fast(mp_kernel k) {
  return k == MP_K_CONV2D_S8_1X1 || k == MP_K_CONV2D_S8_IM2COL ||
         k == MP_K_DEPTHWISE_CONV2D_S8_FAST || k == MP_K_FULLY_CONNECTED_S8_FAST ||
         k == MP_K_ADD_S8_FAST || k == MP_K_MUL_S8_FAST || k == MP_K_AVG_POOL2D_S8_FAST ||
         k == MP_K_MAX_POOL2D_S8_FAST || k == MP_K_SOFTMAX_S8_FAST || k == MP_K_CONV2D_S16_FAST ||
         k == MP_K_DEPTHWISE_CONV2D_S16_FAST || k == MP_K_FULLY_CONNECTED_S16_FAST ||
         k == MP_K_CONV2D_S16_ACC32_FAST;
}

/* How many ops of n run a specialised kernel. */
static uint32_t fast_ops(const net *n) {
  uint32_t k = 0;
  for (uint32_t o = 0; o < n->g->n_ops; o++)
    k += is_fast(n->lo[o].kernel);
  return k;
}

/* The three cases in sequence, on zeroed buffers, then on garbage. */
static void run_cases(net *n) {
  for (int garbage = 0; garbage < 2; garbage++) {
    net_zero(n, true); /* the states, once per sequence of cases */
    for (int k = 0; k < 3; k++) {
      if (garbage)
        net_scramble(n, (uint32_t)(k + 1));
      else
        net_zero(n, false);
      run_case(n, k);
    }
  }
}

static void every_runnable_model_matches_tflm_on_all_cases(void **state) {
  (void)state;
  if (!corpus_present()) skip();
  for (size_t i = 0; runnable[i]; i++)
  for (size_t tg = 0; tg < N_LOWERINGS; tg++) {
    if (!have_golden(runnable[i])) fail_msg("no golden data for %s", runnable[i]);
    net n;
    net_open_for(&n, runnable[i], true, lowerings[tg]);
    assert_true(n.all_supported);
    /* every int8 filter op, pool, int8 -> int8 SOFTMAX and unbroadcast
     * ADD and MUL of the corpus has a specialised kernel (an input that
     * differs from the output only by leading 1s, a [288] bias added to
     * [1,288], is not a broadcast: nothing repeats) */
    uint32_t filters = 0;
    for (uint32_t o = 0; o < n.g->n_ops; o++) {
      const char *nm = n.g->ops[o].name;
      const mp_op *op = &n.g->ops[o];
      const mp_tensor *in0 = &n.g->tensors[op->inputs[0]];
      const mp_tensor *out0 = &n.g->tensors[op->outputs[0]];
      filters += in0->dtype == MP_DTYPE_INT8 &&
                 (!strcmp(nm, "CONV_2D") || !strcmp(nm, "DEPTHWISE_CONV_2D") ||
                  !strcmp(nm, "FULLY_CONNECTED") || !strcmp(nm, "AVERAGE_POOL_2D") ||
                  !strcmp(nm, "MAX_POOL_2D") ||
                  (!strcmp(nm, "SOFTMAX") && out0->dtype == MP_DTYPE_INT8) ||
                  ((!strcmp(nm, "ADD") || !strcmp(nm, "MUL")) && in0->size == out0->size &&
                   n.g->tensors[op->inputs[1]].size == in0->size));
    }
    assert_int_equal(fast_ops(&n), lowerings[tg] == MP_TARGET_GENERIC ? 0 : filters);
    run_cases(&n);
    print_message("PASS  %-28s %-10s %u ops (%u specialised), 3 cases, zeroed and garbage "
                  "buffers\n", runnable[i], mp_target_name(lowerings[tg]), n.g->n_ops,
                  fast_ops(&n));
    net_close(&n);
  }
}

static bool is_serial(mp_kernel k) {
  return k == MP_K_DEPTHWISE_CONV2D_S8_SERIAL || k == MP_K_DEPTHWISE_CONV2D_S8_SERIAL_FAST ||
         k == MP_K_DEPTHWISE_CONV2D_S16_SERIAL ||
         k == MP_K_DEPTHWISE_CONV2D_F32_SERIAL;
}

static void depthwise_convolutions_run_channel_by_channel_match_tflm(void **state) {
  (void)state;
  if (!corpus_present()) skip();
  uint32_t total = 0;
  serial_all = true;
  for (size_t i = 0; runnable[i]; i++)
    for (size_t tg = 0; tg < N_LOWERINGS; tg++) {
      net n;
      net_open_for(&n, runnable[i], true, lowerings[tg]);
      uint32_t k = 0;
      for (uint32_t o = 0; o < n.g->n_ops; o++) {
        k += is_serial(n.lo[o].kernel);
        /* one channel of the output as its temporary */
        if (is_serial(n.lo[o].kernel)) {
          const mpk_conv_geom *cg = n.lo[o].kernel == MP_K_DEPTHWISE_CONV2D_F32_SERIAL
                                        ? &n.lo[o].params.conv_f32.geom
                                        : &n.lo[o].params.conv_s8.geom;
          assert_int_equal(n.lo[o].scratch_bytes,
                           (uint64_t)cg->batches * cg->out_h * cg->out_w *
                               (n.g->tensors[n.g->ops[o].outputs[0]].size /
                                ((uint64_t)cg->batches * cg->out_h * cg->out_w * cg->out_c)));
        }
      }
      if (k) run_cases(&n);
      if (k)
        print_message("PASS  %-28s %-10s %u depthwise convolutions channel by channel, 3 cases, "
                      "zeroed and garbage buffers\n", runnable[i], mp_target_name(lowerings[tg]), k);
      total += k;
      net_close(&n);
    }
  serial_all = false;
  assert_true(total > 0);
}

static void unaliased_views_run_as_copies_and_still_match(void **state) {
  (void)state;
  if (!corpus_present()) skip();
  const char *models[] = {"tflm_micro_speech_int8", "mlperf_kws_ref_int8"};
  for (size_t i = 0; i < 2; i++) {
    net n;
    net_open(&n, models[i], false);
    uint32_t copies = 0;
    for (uint32_t o = 0; o < n.g->n_ops; o++)
      if (n.lo[o].kernel == MP_K_COPY) copies++;
    assert_int_equal(copies, 1);
    net_scramble(&n, 7);
    run_case(&n, 0);
    net_close(&n);
  }
}

static void aliased_views_lower_to_no_ops(void **state) {
  (void)state;
  if (!tu_models_dir()) skip();
  net n;
  net_open(&n, "tflm_micro_speech_int8", true);
  assert_true(n.g->ops[0].is_view);
  assert_true(n.lo[0].supported);
  assert_true(n.lo[0].noop);
  assert_null(n.lo[0].fn);
  assert_int_equal(n.lo[0].kernel, MP_K_NONE);
  net_close(&n);
}

static void every_model_of_the_corpus_is_runnable(void **state) {
  (void)state;
  const char *const *names = tu_model_names();
  if (!names) skip();
  for (size_t i = 0; names[i]; i++) {
    bool known = false;
    for (size_t k = 0; runnable[k]; k++)
      known |= !strcmp(runnable[k], names[i]);
    if (known && tu_refusal_of(names[i], NULL) != TU_STAGE_NONE)
      fail_msg("corpus model %s is runnable and listed as refused", names[i]);
    if (!known && !tu_skip_refused(names[i], TU_STAGE_CONVERT))
      fail_msg("corpus model %s is neither in the list of runnable models nor an expected "
               "refusal", names[i]);
  }
}

static void runnable_models_pass_the_check(void **state) {
  (void)state;
  if (!tu_models_dir()) skip();
  for (size_t i = 0; runnable[i]; i++) {
    tu_diags d;
    tu_diags_init(&d);
    mp_model *m = NULL;
    mp_graph *g = NULL;
    assert_int_equal(mp_model_load(tu_model_path(runnable[i]), NULL, &m), MP_OK);
    assert_int_equal(mp_graph_build(m, 0, NULL, NULL, &g), MP_OK);
    assert_int_equal(mp_lower_check_all(g, &d.sink), MP_OK);
    assert_int_equal(d.n_errors, 0);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
}

/* Every supported op of every model, fed TFLM's own case-0 inputs, gives
 * TFLM's case-0 output.  A state input starts at zero, as in case 0. */
static void every_supported_operator_matches_tflm_in_isolation(void **state) {
  (void)state;
  const char *const *names = tu_model_names();
  if (!names || !tu_golden_dir()) skip();
  uint32_t checked = 0;
  for (size_t i = 0; names[i]; i++) {
    if (!have_golden(names[i]) || tu_skip_refused(names[i], TU_STAGE_PLAN)) continue;
    net n;
    net_open(&n, names[i], true);
    uint32_t model_checked = 0;
    for (uint32_t o = 0; o < n.g->n_ops; o++) {
      const mp_op *op = &n.g->ops[o];
      if (!n.lo[o].supported || n.lo[o].noop) continue;
      bool have_all = true;
      net_scramble(&n, o + 11);
      for (uint32_t k = 0; k < op->n_inputs; k++) {
        int32_t t = op->inputs[k];
        if (t < 0 || n.g->tensors[t].data) continue;
        if (is_state(&n, (uint32_t)t)) {
          memset(n.buf[t], state_byte(n.g, (uint32_t)t), (size_t)n.g->tensors[t].size);
          continue;
        }
        char file[64];
        snprintf(file, sizeof file, "case0.tensor%d.bin", t);
        size_t size = 0;
        uint8_t *data = golden(names[i], file, &size);
        if (!data) {
          have_all = false;
          break;
        }
        assert_int_equal(size, n.g->tensors[t].size);
        memcpy(n.buf[t], data, size);
        free(data);
      }
      if (!have_all) continue;
      assert_int_equal(run_op(&n, o), MPK_OK);
      for (uint32_t k = 0; k < op->n_outputs; k++) {
        int32_t t = op->outputs[k];
        char file[64], msg[160];
        snprintf(file, sizeof file, "case0.tensor%d.bin", t);
        size_t size = 0;
        uint8_t *want = golden(names[i], file, &size);
        if (!want) continue;
        if (!same(n.g->tensors[t].dtype, n.buf[t], want, size, msg, sizeof msg))
          fail_msg("%s op %u (%s, %s): %s", names[i], o, op->name, mp_kernel_fn(n.lo[o].kernel),
                   msg);
        free(want);
        checked++;
        model_checked++;
      }
    }
    print_message("%-28s %2u operator outputs match%s\n", names[i], model_checked,
                  n.all_supported ? "" : " (model rejected as a whole)");
    net_close(&n);
  }
  print_message("%u operator outputs checked in isolation\n", checked);
  assert_true(checked > 100);
}

/* No model or corpus case runs a float32 LSTM.  The float kernel, given
 * the int8 MNIST LSTM's weights, biases and case-0 input dequantised,
 * must track TFLM's int8 LSTM output over all 28 steps within two output
 * quantisation steps: the gate order, the weight indexing and the state
 * updates of the two kernels agree. */
static float dequant(const mp_tensor_def *td, int64_t q) {
  int64_t zp = td->quant.n_zero_point ? td->quant.zero_point[0] : 0;
  return td->quant.scale[0] * (float)(q - zp);
}

static void float_lstm_tracks_tflm_int8_lstm_on_mnist(void **state) {
  (void)state;
  if (!corpus_present()) skip();
  const char *name = "tflm_mnist_lstm_int8";
  net n;
  net_open(&n, name, true);
  const mp_op *op = &n.g->ops[0];
  assert_int_equal(n.lo[0].kernel, MP_K_LSTM_S8);
  const mp_subgraph_def *sg = &n.m->subgraphs[n.g->subgraph];
  const mpk_lstm_s8_params *q = &n.lo[0].params.lstm_s8;
  float *k[15] = {NULL};
  const void *consts[15] = {NULL};
  for (uint32_t i = 1; i <= 15; i++) {
    int32_t t = op->inputs[i];
    if (t < 0) continue;
    const mp_tensor_def *td = &sg->tensors[t];
    const mp_tensor *x = &n.g->tensors[t];
    bool is_bias = td->dtype == MP_DTYPE_INT32;
    size_t count = (size_t)x->size / (is_bias ? 4 : 1);
    k[i - 1] = calloc(count, sizeof(float));
    assert_non_null(k[i - 1]);
    for (size_t j = 0; j < count; j++) {
      if (is_bias) { /* scale: input scale x its input-to-gate weights' scale */
        int32_t v;
        memcpy(&v, x->data + 4 * j, 4);
        float ws = sg->tensors[op->inputs[i - 11]].quant.scale[0];
        k[i - 1][j] = (float)v * sg->tensors[op->inputs[0]].quant.scale[0] * ws;
      } else {
        k[i - 1][j] = dequant(td, (int8_t)x->data[j]);
      }
    }
    consts[i - 1] = k[i - 1];
  }
  size_t in_size = 0, out_size = 0;
  uint8_t *qin = golden(name, "case0.input0.bin", &in_size);
  char file[64];
  snprintf(file, sizeof file, "case0.tensor%d.bin", op->outputs[0]);
  uint8_t *qout = golden(name, file, &out_size);
  assert_non_null(qin);
  assert_non_null(qout);
  float *in = calloc(in_size, sizeof(float)), *out = calloc(out_size, sizeof(float));
  const mpk_lstm_shape *sh = &q->shape;
  float *h = calloc((size_t)sh->state_size * (size_t)sh->batches, sizeof(float));
  float *cell = calloc((size_t)sh->state_size * (size_t)sh->batches, sizeof(float));
  float *scratch = calloc(4u * (size_t)sh->state_size * (size_t)sh->batches, sizeof(float));
  assert_true(in && out && h && cell && scratch);
  for (size_t i = 0; i < in_size; i++)
    in[i] = dequant(&sg->tensors[op->inputs[0]], (int8_t)qin[i]);
  mpk_lstm_f32_params p = {*sh, 0.0f};
  assert_int_equal(mpk_lstm_f32(&p, in, consts, h, cell, out, scratch), MPK_OK);
  const mp_tensor_def *od = &sg->tensors[op->outputs[0]];
  double worst = 0.0;
  for (size_t i = 0; i < out_size; i++) {
    double e = fabs((double)out[i] - (double)dequant(od, (int8_t)qout[i]));
    if (e > worst) worst = e;
  }
  print_message("float LSTM vs TFLM's int8 LSTM: %.2f output steps at most\n",
                worst / (double)od->quant.scale[0]);
  assert_true(worst <= 2.0 * (double)od->quant.scale[0]);
  for (int i = 0; i < 15; i++)
    free(k[i]);
  free(qin);
  free(qout);
  free(in);
  free(out);
  free(h);
  free(cell);
  free(scratch);
  net_close(&n);
}

/* ------------------------------------------------------------------------ */
/* The params as C text                                                     */
/* ------------------------------------------------------------------------ */

/* The pointer members of a params struct, which differ between the
 * compiled program and this process: nulled before comparing bytes. */
static const char *const *pointer_fields(mp_kernel k) {
  static const char *const requant[] = {"q.multiplier", "q.shift", NULL};
  static const char *const concat[] = {"input_bytes", NULL};
  static const char *const fast[] = {"q.multiplier", "q.shift", "folded_bias", NULL};
  static const char *const split[] = {"output_bytes", NULL};
  static const char *const lut[] = {"table", NULL};
  static const char *const softmax16[] = {"exp_table", "recip_table", NULL};
  static const char *const softmax8_fast[] = {"exp_table", NULL};
  static const char *const per_channel[] = {"multiplier", "shift", NULL};
  static const char *const none[] = {NULL};
  static const char *const rfft[] = {"factors", "twiddles", "super_twiddles", NULL};
  static const char *const log_table[] = {"log_table", NULL};
  switch (k) {
  case MP_K_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_S8:
  case MP_K_FULLY_CONNECTED_S8:
  case MP_K_CONV2D_S16:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_FULLY_CONNECTED_S16:
  case MP_K_CONV2D_S16_FAST:
  case MP_K_DEPTHWISE_CONV2D_S16_FAST:
  case MP_K_FULLY_CONNECTED_S16_FAST: return requant;
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST:
  case MP_K_FULLY_CONNECTED_S8_FAST: return fast;
  case MP_K_CONCAT: return concat;
  case MP_K_SPLIT: return split;
  case MP_K_LUT_S8: return lut;
  case MP_K_SOFTMAX_S16: return softmax16;
  case MP_K_SOFTMAX_S8_FAST: return softmax8_fast;
  case MP_K_TRANSPOSE_CONV_S8:
  case MP_K_TRANSPOSE_CONV_S16:
  case MP_K_TRANSPOSE_CONV_F32: return per_channel;
  case MP_K_SIGNAL_RFFT:
  case MP_K_SIGNAL_IRFFT: return rfft;
  case MP_K_SIGNAL_FILTER_BANK_LOG: return log_table;
  default: return none;
  }
}

static void null_pointers(mp_kernel k, mp_kparams *p) {
  switch (k) {
  case MP_K_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_S8:
  case MP_K_CONV2D_S16:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_CONV2D_S16_FAST:
  case MP_K_DEPTHWISE_CONV2D_S16_FAST:
    p->conv_s8.q.multiplier = NULL;
    p->conv_s8.q.shift = NULL;
    break;
  case MP_K_FULLY_CONNECTED_S8:
  case MP_K_FULLY_CONNECTED_S16:
  case MP_K_FULLY_CONNECTED_S16_FAST:
    p->fc_s8.q.multiplier = NULL;
    p->fc_s8.q.shift = NULL;
    break;
  case MP_K_CONCAT: p->concat.input_bytes = NULL; break;
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST:
    p->conv_s8_fast.q.multiplier = NULL;
    p->conv_s8_fast.q.shift = NULL;
    p->conv_s8_fast.folded_bias = NULL;
    break;
  case MP_K_FULLY_CONNECTED_S8_FAST:
    p->fc_s8_fast.q.multiplier = NULL;
    p->fc_s8_fast.q.shift = NULL;
    p->fc_s8_fast.folded_bias = NULL;
    break;
  case MP_K_SPLIT: p->split.output_bytes = NULL; break;
  case MP_K_LUT_S8: p->lut_s8.table = NULL; break;
  case MP_K_SOFTMAX_S8_FAST: p->softmax_s8_fast.exp_table = NULL; break;
  case MP_K_SOFTMAX_S16:
    p->softmax_s16.exp_table = NULL;
    p->softmax_s16.recip_table = NULL;
    break;
  case MP_K_TRANSPOSE_CONV_S8:
  case MP_K_TRANSPOSE_CONV_S16:
  case MP_K_TRANSPOSE_CONV_F32:
    p->transpose_conv.multiplier = NULL;
    p->transpose_conv.shift = NULL;
    break;
  case MP_K_SIGNAL_RFFT:
  case MP_K_SIGNAL_IRFFT:
    p->signal_rfft.factors = NULL;
    p->signal_rfft.twiddles = NULL;
    p->signal_rfft.super_twiddles = NULL;
    break;
  case MP_K_SIGNAL_FILTER_BANK_LOG: p->signal_filter_bank_log.log_table = NULL; break;
  default: break;
  }
}

static size_t params_size(mp_kernel k) {
  switch (k) {
  case MP_K_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_S8: return sizeof(mpk_conv_s8_params);
  case MP_K_CONV2D_F32:
  case MP_K_DEPTHWISE_CONV2D_F32: return sizeof(mpk_conv_f32_params);
  case MP_K_FULLY_CONNECTED_S8: return sizeof(mpk_fc_s8_params);
  case MP_K_FULLY_CONNECTED_F32: return sizeof(mpk_fc_f32_params);
  case MP_K_AVG_POOL2D_S8:
  case MP_K_MAX_POOL2D_S8:
  case MP_K_AVG_POOL2D_S16:
  case MP_K_MAX_POOL2D_S16: return sizeof(mpk_pool_s8_params);
  case MP_K_AVG_POOL2D_F32:
  case MP_K_MAX_POOL2D_F32: return sizeof(mpk_pool_f32_params);
  case MP_K_ADD_S8:
  case MP_K_ADD_S8_FAST: return sizeof(mpk_add_s8_params);
  case MP_K_MUL_S8_FAST: return sizeof(mpk_binary_q_params);
  case MP_K_AVG_POOL2D_S8_FAST:
  case MP_K_MAX_POOL2D_S8_FAST: return sizeof(mpk_pool_s8_params);
  case MP_K_SOFTMAX_S8_FAST: return sizeof(mpk_softmax_s8_fast_params);
  case MP_K_ADD_F32: return sizeof(mpk_add_f32_params);
  case MP_K_SOFTMAX_S8:
  case MP_K_SOFTMAX_S8_S16: return sizeof(mpk_softmax_s8_params);
  case MP_K_SOFTMAX_F32: return sizeof(mpk_softmax_f32_params);
  case MP_K_COPY: return sizeof(mpk_copy_params);
  case MP_K_QUANTIZE_F32: return sizeof(mpk_quantize_params);
  case MP_K_REQUANTIZE: return sizeof(mpk_requantize_params);
  case MP_K_PAD: return sizeof(mpk_pad_params);
  case MP_K_MEAN_S8:
  case MP_K_MEAN_S16: return sizeof(mpk_mean_s8_params);
  case MP_K_MEAN_F32: return sizeof(mpk_mean_f32_params);
  case MP_K_TRANSPOSE: return sizeof(mpk_transpose_params);
  case MP_K_CONCAT: return sizeof(mpk_concat_params);
  case MP_K_LOGISTIC_S8: return sizeof(mpk_logistic_s8_params);
  case MP_K_LOGISTIC_F32: return sizeof(mpk_logistic_f32_params);
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST: return sizeof(mpk_conv_s8_fast_params);
  case MP_K_FULLY_CONNECTED_S8_FAST: return sizeof(mpk_fc_s8_fast_params);
  case MP_K_SVDF_S8: return sizeof(mpk_svdf_s8_params);
  case MP_K_LSTM_S8:
  case MP_K_LSTM_S16:
  case MP_K_LSTM_S16_FAST: return sizeof(mpk_lstm_s8_params);
  case MP_K_SVDF_S8_FAST: return sizeof(mpk_svdf_s8_fast_params);
  case MP_K_LSTM_S8_FAST: return sizeof(mpk_lstm_s8_fast_params);
  case MP_K_BINARY_Q: return sizeof(mpk_binary_q_params);
  case MP_K_BINARY_F32: return sizeof(mpk_binary_f32_params);
  case MP_K_UNARY_Q: return sizeof(mpk_unary_q_params);
  case MP_K_UNARY_F32: return sizeof(mpk_unary_f32_params);
  case MP_K_DEQUANTIZE: return sizeof(mpk_dequantize_params);
  case MP_K_CAST: return sizeof(mpk_cast_params);
  case MP_K_LUT_S8: return sizeof(mpk_lut_s8_params);
  case MP_K_SOFTMAX_S16: return sizeof(mpk_softmax_s16_params);
  case MP_K_STRIDED_COPY: return sizeof(mpk_strided_copy_params);
  case MP_K_SPLIT: return sizeof(mpk_split_params);
  case MP_K_GATHER: return sizeof(mpk_gather_params);
  case MP_K_MIRROR_PAD: return sizeof(mpk_mirror_pad_params);
  case MP_K_SPACE_BATCH: return sizeof(mpk_space_batch_params);
  case MP_K_GATHER_ND: return sizeof(mpk_gather_nd_params);
  case MP_K_ZEROS: return sizeof(mpk_zeros_params);
  case MP_K_COMPARE: return sizeof(mpk_compare_params);
  case MP_K_LOGICAL: return sizeof(mpk_logical_params);
  case MP_K_SELECT: return sizeof(mpk_select_params);
  case MP_K_FLOOR: return sizeof(mpk_floor_params);
  case MP_K_ADD_N: return sizeof(mpk_add_n_params);
  case MP_K_RESIZE_NEAREST:
  case MP_K_RESIZE_BILINEAR_S8:
  case MP_K_RESIZE_BILINEAR_F32: return sizeof(mpk_resize_params);
  case MP_K_REDUCE: return sizeof(mpk_reduce_params);
  case MP_K_ARG_MAX: return sizeof(mpk_arg_max_params);
  case MP_K_SHAPE: return sizeof(mpk_shape_params);
  case MP_K_TRANSPOSE_CONV_S8:
  case MP_K_TRANSPOSE_CONV_S16:
  case MP_K_TRANSPOSE_CONV_F32: return sizeof(mpk_transpose_conv_params);
  case MP_K_CONV2D_S16:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_CONV2D_S16_FAST:
  case MP_K_DEPTHWISE_CONV2D_S16_FAST: return sizeof(mpk_conv_s8_params);
  case MP_K_FULLY_CONNECTED_S16:
  case MP_K_FULLY_CONNECTED_S16_FAST: return sizeof(mpk_fc_s8_params);
  case MP_K_BATCH_MATMUL_S8:
  case MP_K_BATCH_MATMUL_F32:
  case MP_K_BATCH_MATMUL_S16: return sizeof(mpk_batch_matmul_params);
  case MP_K_SVDF_F32: return sizeof(mpk_svdf_f32_params);
  case MP_K_LSTM_F32: return sizeof(mpk_lstm_f32_params);
  case MP_K_SIGNAL_WINDOW: return sizeof(mpk_signal_window_params);
  case MP_K_SIGNAL_FFT_AUTO_SCALE: return sizeof(mpk_signal_fft_auto_scale_params);
  case MP_K_SIGNAL_RFFT:
  case MP_K_SIGNAL_IRFFT: return sizeof(mpk_signal_rfft_params);
  case MP_K_SIGNAL_ENERGY: return sizeof(mpk_signal_energy_params);
  case MP_K_SIGNAL_FILTER_BANK: return sizeof(mpk_signal_filter_bank_params);
  case MP_K_SIGNAL_FILTER_BANK_SQRT: return sizeof(mpk_signal_filter_bank_sqrt_params);
  case MP_K_SIGNAL_SPECTRAL_SUBTRACTION: return sizeof(mpk_signal_spectral_subtraction_params);
  case MP_K_SIGNAL_PCAN: return sizeof(mpk_signal_pcan_params);
  case MP_K_SIGNAL_FILTER_BANK_LOG: return sizeof(mpk_signal_filter_bank_log_params);
  case MP_K_SIGNAL_DELAY: return sizeof(mpk_signal_delay_params);
  case MP_K_SIGNAL_STACKER: return sizeof(mpk_signal_stacker_params);
  case MP_K_SIGNAL_FRAMER: return sizeof(mpk_signal_framer_params);
  case MP_K_SIGNAL_OVERLAP_ADD: return sizeof(mpk_signal_overlap_add_params);
  default: return 0;
  }
}

/* Append the program's check of one op: its params bytes (pointers nulled)
 * and its arrays, as hex lines "<sym> <hex>". */
static void emit_dump(mp_buf *c, const mp_lowered_op *lo, const char *sym) {
  /* memcpy, not assignment: padding bytes must come from the static */
  mp_buf_printf(c, "  { %s v;\n    memcpy(&v, &%s, sizeof v);\n", lo->params_type, sym);
  for (const char *const *f = pointer_fields(lo->kernel); *f; f++)
    mp_buf_printf(c, "    v.%s = NULL;\n", *f);
  mp_buf_printf(c, "    dump(\"%s\", &v, sizeof v); }\n", sym);
  for (uint32_t i = 0; i < lo->n_arrays; i++)
    mp_buf_printf(c, "  dump(\"%s_%s\", %s_%s, sizeof %s_%s);\n", sym, lo->arrays[i].name, sym,
                  lo->arrays[i].name, sym, lo->arrays[i].name);
}

static void hex_line(mp_buf *b, const char *name, const void *p, size_t n) {
  mp_buf_printf(b, "%s ", name);
  for (size_t i = 0; i < n; i++)
    mp_buf_printf(b, "%02x", ((const uint8_t *)p)[i]);
  mp_buf_putc(b, '\n');
}

static void params_text_compiles_to_the_same_bytes(void **state) {
  (void)state;
  const char *const *names = tu_model_names();
  if (!names) skip();
  mp_buf src, want;
  mp_buf_init(&src);
  mp_buf_init(&want);
  mp_buf_puts(&src,
              "#include <stdio.h>\n#include <string.h>\n#include \"mpk.h\"\n"
              "static void dump(const char *name, const void *p, size_t n) {\n"
              "  printf(\"%s \", name);\n"
              "  for (size_t i = 0; i < n; i++) printf(\"%02x\", ((const unsigned char *)p)[i]);\n"
              "  printf(\"\\n\");\n}\n");
  mp_buf main_body;
  mp_buf_init(&main_body);
  uint32_t n_params = 0;
  for (size_t i = 0; names[i]; i++)
  for (size_t tg = 0; tg < N_LOWERINGS; tg++) {
    if (tu_skip_refused(names[i], TU_STAGE_PLAN)) continue;
    net n;
    net_open_for(&n, names[i], false, lowerings[tg]);
    for (uint32_t o = 0; o < n.g->n_ops; o++) {
      const mp_lowered_op *lo = &n.lo[o];
      if (!lo->supported || lo->kernel == MP_K_NONE) continue;
      if (tg > 0 && !is_fast(lo->kernel)) continue; /* printed already */
      char sym[96];
      snprintf(sym, sizeof sym, "m%zu_t%zu_op%u_params", i, tg, o);
      mp_lower_params_c(lo, sym, &src);
      emit_dump(&main_body, lo, sym);
      mp_kparams copy;
      memcpy(&copy, &lo->params, sizeof copy);
      null_pointers(lo->kernel, &copy);
      hex_line(&want, sym, &copy, params_size(lo->kernel));
      for (uint32_t k = 0; k < lo->n_arrays; k++) {
        char an[128];
        snprintf(an, sizeof an, "%s_%s", sym, lo->arrays[k].name);
        hex_line(&want, an, lo->arrays[k].data, lo->arrays[k].n * sizeof(int32_t));
      }
      n_params++;
    }
    net_close(&n);
  }
  mp_buf_printf(&src, "int main(void) {\n%s  return 0;\n}\n", mp_buf_str(&main_body));
  assert_false(src.failed || want.failed);
  const char *dir = tu_tmpdir();
  char path[4096];
  snprintf(path, sizeof path, "%s/params.c", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(mp_buf_str(&src), f);
  fclose(f);
  int rc = tu_system("cc -std=c99 -pedantic -Wall -Wextra -Werror -Iruntime/kernels "
                     "%s/params.c -o %s/params && %s/params > %s/params.out",
                     dir, dir, dir, dir);
  assert_int_equal(rc, 0);
  snprintf(path, sizeof path, "%s/params.out", dir);
  size_t len = 0;
  char *got = tu_read_text(path, &len);
  assert_non_null(got);
  if (strcmp(got, mp_buf_str(&want)) != 0) {
    /* name the first differing line */
    const char *a = got, *b = mp_buf_str(&want);
    while (*a && *a == *b)
      a++, b++;
    while (a > got && a[-1] != '\n')
      a--;
    fail_msg("compiled params differ: %.200s", a);
  }
  print_message("%u params structs compiled as C99 and matched byte for byte\n", n_params);
  free(got);
  mp_buf_free(&src);
  mp_buf_free(&want);
  mp_buf_free(&main_body);
  tu_rmtree(dir);
}

/* ------------------------------------------------------------------------ */
/* The same on an emulated Cortex-M55                                       */
/* ------------------------------------------------------------------------ */

/* A bare-metal start for QEMU's mps3-an547: vector table in ITCM, FPU and
 * MVE enabled, .bss cleared, semihosting for output and the exit status,
 * SysTick counting (with -icount, virtual time follows instructions). */
static const char target_startup[] =
    "#include <stdint.h>\n"
    "extern uint32_t __stack_top, __bss_start, __bss_end;\n"
    "int main(void);\n"
    "static int semihost(int op, void *arg) {\n"
    "  register int r0 __asm__(\"r0\") = op;\n"
    "  register void *r1 __asm__(\"r1\") = arg;\n"
    "  __asm__ volatile(\"bkpt 0xab\" : \"+r\"(r0) : \"r\"(r1) : \"memory\");\n"
    "  return r0;\n"
    "}\n"
    "void sh_puts(const char *s) { semihost(0x04, (void *)s); }\n"
    "static void sh_exit(int code) {\n"
    "  uint32_t block[2] = {0x20026u, (uint32_t)code};\n"
    "  semihost(0x20, block);\n"
    "  for (;;) {}\n"
    "}\n"
    "static volatile uint32_t wraps;\n"
    "#define SYST ((volatile uint32_t *)0xE000E010u)\n"
    "uint64_t ticks(void) {\n"
    "  uint32_t w, v;\n"
    "  do { w = wraps; v = SYST[2]; } while (w != wraps);\n"
    "  return (uint64_t)w * 0x1000000u + (0xFFFFFFu - v);\n"
    "}\n"
    "void Reset_Handler(void);\n"
    "void Fault_Handler(void);\n"
    "void SysTick_Handler(void);\n"
    "void SysTick_Handler(void) { wraps++; }\n"
    "void Reset_Handler(void) {\n"
    "  *(volatile uint32_t *)0xE000ED88u |= (0xFu << 20);\n"
    "  __asm__ volatile(\"dsb\\n isb\");\n"
    "  for (uint32_t *p = &__bss_start; p < &__bss_end; p++) *p = 0;\n"
    "  SYST[1] = 0xFFFFFFu; SYST[2] = 0; SYST[0] = 7;\n"
    "  sh_exit(main());\n"
    "}\n"
    "void Fault_Handler(void) { sh_puts(\"fault\\n\"); sh_exit(99); }\n"
    "__attribute__((section(\".vectors\"), used)) void (*const vectors[16])(void) = {\n"
    "    (void (*)(void))(uintptr_t)&__stack_top, Reset_Handler, Fault_Handler,\n"
    "    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, 0, 0, 0, 0,\n"
    "    Fault_Handler, Fault_Handler, 0, Fault_Handler, SysTick_Handler};\n";

static void put_bytes(mp_buf *b, const char *decl, const uint8_t *p, size_t n) {
  mp_buf_printf(b, "%s[%zu] __attribute__((aligned(16))) = {", decl, n ? n : 1);
  for (size_t i = 0; i < n; i++)
    mp_buf_printf(b, "%s%u", i == 0 ? "\n" : i % 32 ? "," : ",\n", p[i]);
  if (n == 0) mp_buf_putc(b, '0');
  mp_buf_puts(b, "};\n");
}

/* The program: every tensor a static buffer (constants hold the model's
 * bytes), every op's params and call, TFLM's three cases, and a main that
 * runs each case on garbage-filled buffers and compares the outputs.  It
 * prints the SysTick ticks of case 0 and of a 2,000,000-instruction loop. */
static void write_target_program(net *n, mp_buf *c) {
  const mp_graph *g = n->g;
  mp_buf_puts(c, "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n"
                 "#include \"mpk.h\"\n"
                 "void sh_puts(const char *s);\nuint64_t ticks(void);\n");
  bool *used = calloc(g->n_tensors, sizeof *used);
  assert_non_null(used);
  for (uint32_t o = 0; o < g->n_ops; o++)
    for (uint32_t k = 0; k < n->lo[o].n_args; k++) {
      const mp_lower_arg *a = &n->lo[o].args[k];
      if (a->tensor >= 0) used[a->tensor] = true;
      for (uint32_t j = 0; j < a->n_tensors; j++)
        if (a->tensors[j] >= 0) used[a->tensors[j]] = true;
    }
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    char decl[64];
    if (x->data && !used[t]) continue; /* a RESHAPE's shape, say */
    if (x->data) {
      snprintf(decl, sizeof decl, "static const uint8_t T%u", t);
      put_bytes(c, decl, x->data, (size_t)x->size);
    } else if (x->alias_of >= 0) {
      mp_buf_printf(c, "#define T%u T%d\n", t, x->alias_of);
    } else {
      mp_buf_printf(c, "static uint8_t T%u[%llu] __attribute__((aligned(16)));\n", t,
                    (unsigned long long)(x->size ? x->size : 1));
    }
  }
  free(used);
  /* bufs: scrambled before each case; states: started once, kept */
  for (int st = 0; st < 2; st++) {
    mp_buf_puts(c, st ? "static uint8_t *const states[] = {" : "static uint8_t *const bufs[] = {");
    for (uint32_t t = 0; t < g->n_tensors; t++)
      if (!g->tensors[t].data && g->tensors[t].alias_of < 0 && is_state(n, t) == (st == 1))
        mp_buf_printf(c, "T%u, ", t);
    mp_buf_puts(c, st ? "0};\nstatic const uint32_t state_sizes[] = {"
                      : "0};\nstatic const uint32_t sizes[] = {");
    for (uint32_t t = 0; t < g->n_tensors; t++)
      if (!g->tensors[t].data && g->tensors[t].alias_of < 0 && is_state(n, t) == (st == 1))
        mp_buf_printf(c, "%llu, ", (unsigned long long)g->tensors[t].size);
    mp_buf_puts(c, "0};\n");
  }
  mp_buf_puts(c, "static const uint8_t state_start[] = {");
  for (uint32_t t = 0; t < g->n_tensors; t++)
    if (!g->tensors[t].data && g->tensors[t].alias_of < 0 && is_state(n, t))
      mp_buf_printf(c, "%u, ", state_byte(g, t));
  mp_buf_puts(c, "0};\n");
  for (uint32_t o = 0; o < g->n_ops; o++) {
    char sym[32];
    snprintf(sym, sizeof sym, "P%u", o);
    mp_lower_params_c(&n->lo[o], sym, c);
  }
  /* -DPER_OP: each op's ticks of case 0 as well (GOLDEN_PER_OP=1) */
  mp_buf_printf(c, "#ifdef PER_OP\nstatic uint64_t op_ticks[%u];\n#define OP_START uint64_t s0 = "
                   "ticks();\n#define OP_END(o) op_ticks[o] += ticks() - s0;\n#else\n"
                   "#define OP_START\n#define OP_END(o)\n#endif\n", g->n_ops ? g->n_ops : 1);
  mp_buf_puts(c, "static int32_t run(void) {\n  int32_t st;\n");
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_lowered_op *lo = &n->lo[o];
    if (lo->noop) continue;
    mp_buf_puts(c, "  {\n    OP_START\n");
    for (uint32_t k = 0; k < lo->n_args; k++) {
      if (lo->args[k].kind != MP_LARG_TENSOR_ARRAY) continue;
      /* an output array (SPLIT's) holds writable pointers */
      mp_buf_printf(c, "    %s A%u[] = {", lo->args[k].is_output ? "void *const" : "const void *const",
                    k);
      for (uint32_t j = 0; j < lo->args[k].n_tensors; j++) {
        int32_t t = lo->args[k].tensors[j];
        if (t < 0)
          mp_buf_printf(c, "%sNULL", j ? ", " : "");
        else
          mp_buf_printf(c, "%sT%d", j ? ", " : "", t);
      }
      mp_buf_puts(c, "};\n");
    }
    mp_buf_printf(c, "    st = %s(&P%u", lo->fn, o);
    for (uint32_t k = 0; k < lo->n_args; k++) {
      const mp_lower_arg *a = &lo->args[k];
      if (a->kind == MP_LARG_TENSOR_ARRAY)
        mp_buf_printf(c, ", A%u", k);
      else if (a->tensor < 0)
        mp_buf_puts(c, ", NULL");
      else
        mp_buf_printf(c, ", (%s)T%d", a->ctype, a->tensor);
    }
    if (n->scratch[o] >= 0)
      mp_buf_printf(c, ", T%d);\n", n->scratch[o]);
    else
      mp_buf_puts(c, ", NULL);\n");
    mp_buf_printf(c, "    OP_END(%u)\n    if (st) return 100 + %u;\n  }\n", o, o);
  }
  mp_buf_puts(c, "  return 0;\n}\n");
  for (int k = 0; k < 3; k++) {
    for (uint32_t i = 0; i < g->n_inputs; i++) {
      char file[64], decl[64];
      snprintf(file, sizeof file, "case%d.input%u.bin", k, i);
      snprintf(decl, sizeof decl, "static const uint8_t IN%d_%u", k, i);
      size_t size = 0;
      uint8_t *data = golden(n->name, file, &size);
      assert_non_null(data);
      put_bytes(c, decl, data, size);
      free(data);
    }
    for (uint32_t j = 0; j < g->n_outputs; j++) {
      char file[64], decl[64];
      snprintf(file, sizeof file, "case%d.output%u.bin", k, j);
      snprintf(decl, sizeof decl, "static const uint8_t OUT%d_%u", k, j);
      size_t size = 0;
      uint8_t *data = golden(n->name, file, &size);
      assert_non_null(data);
      put_bytes(c, decl, data, size);
      free(data);
    }
  }
  mp_buf_puts(c, "__attribute__((unused)) static int same_f32(const uint8_t *a, const uint8_t *b, "
                 "uint32_t n) {\n"
                 "  for (uint32_t i = 0; i + 4 <= n; i += 4) {\n"
                 "    float x, y;\n    memcpy(&x, a + i, 4);\n    memcpy(&y, b + i, 4);\n"
                 "    float tol = 1e-5f * fmaxf(fabsf(x), fabsf(y));\n"
                 "    if (!(x == y || fabsf(x - y) <= tol)) return 0;\n  }\n  return 1;\n}\n"
                 "static void put_u64(const char *what, uint64_t x) {\n"
                 "  char b[64], t[24]; int n = 0, m = 0;\n"
                 "  while (what[m]) { b[m] = what[m]; m++; }\n"
                 "  do { t[n++] = (char)('0' + x % 10); x /= 10; } while (x);\n"
                 "  while (n) b[m++] = t[--n];\n  b[m++] = '\\n'; b[m] = 0; sh_puts(b);\n}\n"
                 "int main(void) {\n  uint32_t x = 12345u;\n"
                 "  for (int i = 0; states[i]; i++) memset(states[i], state_start[i], state_sizes[i]);\n"
                 "  for (int k = 0; k < 3; k++) {\n"
                 "    for (int i = 0; bufs[i]; i++)\n"
                 "      for (uint32_t j = 0; j < sizes[i]; j++) {\n"
                 "        x ^= x << 13; x ^= x >> 17; x ^= x << 5; bufs[i][j] = (uint8_t)x;\n"
                 "      }\n");
  for (int k = 0; k < 3; k++) {
    mp_buf_printf(c, "    if (k == %d) {\n", k);
    for (uint32_t i = 0; i < g->n_inputs; i++)
      mp_buf_printf(c, "      memcpy(T%d, IN%d_%u, sizeof IN%d_%u);\n", g->inputs[i], k, i, k, i);
    mp_buf_puts(c, "    }\n");
  }
  mp_buf_puts(c, "    uint64_t t0 = ticks();\n    int32_t st = run();\n"
                 "    uint64_t t1 = ticks();\n    if (st) return st;\n"
                 "    if (k == 0) put_u64(\"ticks \", t1 - t0);\n"
                 "#ifdef PER_OP\n    if (k == 0)\n      for (int o = 0; o < (int)(sizeof op_ticks / "
                 "sizeof op_ticks[0]); o++) put_u64(\"op \", op_ticks[o]);\n#endif\n");
  for (int k = 0; k < 3; k++) {
    for (uint32_t j = 0; j < g->n_outputs; j++) {
      int32_t t = g->outputs[j];
      if (g->tensors[t].dtype == MP_DTYPE_FLOAT32)
        mp_buf_printf(c,
                      "    if (k == %d && !same_f32(T%d, OUT%d_%u, sizeof OUT%d_%u)) "
                      "return 10 + k;\n",
                      k, t, k, j, k, j);
      else
        mp_buf_printf(c,
                      "    if (k == %d && memcmp(T%d, OUT%d_%u, sizeof OUT%d_%u)) "
                      "return 10 + k;\n",
                      k, t, k, j, k, j);
    }
  }
  mp_buf_puts(c, "  }\n"
                 "  uint64_t c0 = ticks();\n  uint32_t r = 1000000u;\n"
                 "  __asm__ volatile(\"1: subs %0, %0, #1\\n bne 1b\" : \"+r\"(r));\n"
                 "  put_u64(\"calib \", ticks() - c0);\n  return 0;\n}\n");
}

static bool write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

static uint64_t field_after(const char *text, const char *key) {
  const char *p = text ? strstr(text, key) : NULL;
  return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* An emulated board: its core's compiler flags, its QEMU machine, and the
 * memory map of its linker script (code, data, stack). */
typedef struct board {
  const char *name;   /* "Cortex-M55" */
  const char *cflags; /* -mcpu=... */
  const char *machine;
  uint32_t code, code_len, stack, stack_len, data, data_len;
  mp_target target; /* the specialised lowering it runs */
} board;

static const board m55 = {"Cortex-M55", "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard",
                          "mps3-an547", 0x00000000u, 512u << 10, 0x20000000u, 512u << 10,
                          0x60000000u, 64u << 20, MP_TARGET_CORTEX_M55};
/* mps2-an386: ZBT SSRAM1 (code), SSRAM2/3 (stack), PSRAM (data) */
static const board m4f = {"Cortex-M4F",
                          "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16",
                          "mps2-an386", 0x00000000u, 4u << 20,  0x20000000u, 4u << 20,
                          0x21000000u, 16u << 20, MP_TARGET_CORTEX_M4};

static void write_board_ld(const board *b, mp_buf *ld) {
  mp_buf_printf(ld,
                "MEMORY {\n"
                "  CODE  (rx)  : ORIGIN = 0x%08x, LENGTH = %u\n"
                "  STACK (rw)  : ORIGIN = 0x%08x, LENGTH = %u\n"
                "  DATA  (rwx) : ORIGIN = 0x%08x, LENGTH = %u\n"
                "}\n"
                "ENTRY(Reset_Handler)\n"
                "SECTIONS {\n"
                "  .vectors : { KEEP(*(.vectors)) } > CODE\n"
                "  .text : { *(.text*) } > CODE\n"
                "  .ARM.exidx : { *(.ARM.exidx*) } > CODE\n"
                "  .rodata : { *(.rodata*) } > DATA\n"
                "  .data : { *(.data*) } > DATA\n"
                "  .bss (NOLOAD) : { . = ALIGN(4); __bss_start = .; *(.bss*) *(COMMON)\n"
                "                    . = ALIGN(4); __bss_end = .; } > DATA\n"
                "  __stack_top = ORIGIN(STACK) + LENGTH(STACK);\n"
                "}\n",
                b->code, b->code_len, b->stack, b->stack_len, b->data, b->data_len);
}

/* Every runnable model, compiled for the board's core with the kernels and
 * run on its QEMU machine, once lowered for `generic` (the reference
 * kernels) and once for the board's target (the specialised kernels, whose
 * Helium or DSP paths the core's predefined macros select): TFLM's outputs
 * for all three cases, on garbage-filled buffers.  Prints the instructions
 * of one inference (SysTick under -icount, calibrated on a 2-instruction
 * loop) of both, their ratio, and the code size. */
static void every_runnable_model_matches_tflm_on(const board *b) {
  if (!corpus_present()) skip();
  if (tu_system("command -v arm-none-eabi-gcc >/dev/null 2>&1 && "
                "command -v qemu-system-arm >/dev/null 2>&1") != 0) {
    fprintf(stderr, "NOTICE: arm-none-eabi-gcc or qemu-system-arm not found: the %s run is "
                    "skipped\n", b->name);
    skip();
  }
  const char *dir = tu_tmpdir();
  char path[4096];
  snprintf(path, sizeof path, "%s/startup.c", dir);
  assert_true(write_file(path, target_startup));
  mp_buf ld;
  mp_buf_init(&ld);
  write_board_ld(b, &ld);
  snprintf(path, sizeof path, "%s/link.ld", dir);
  assert_true(write_file(path, mp_buf_str(&ld)));
  mp_buf_free(&ld);
  assert_int_equal(tu_system("arm-none-eabi-gcc %s -std=c99 -O2 -Wall -Wextra -Werror -c "
                             "%s/startup.c -o %s/startup.o",
                             b->cflags, dir, dir),
                   0);
  assert_int_equal(tu_system("for f in runtime/kernels/*/*.c; do arm-none-eabi-gcc %s -std=c99 "
                             "-O2 -Wall -Wextra -Werror -ffunction-sections -Iruntime/kernels "
                             "-c $f -o %s/k_$(basename $(dirname $f))_$(basename $f .c).o "
                             "|| exit 1; done",
                             b->cflags, dir),
                   0);
  print_message("%-26s %14s %14s %7s %10s %10s\n", b->name, "generic", mp_target_name(b->target),
                "ratio", "text", "text");
  /* docs/kernels_md.sh collects the rows of docs/KERNELS.md from here */
  const char *tp = getenv("GOLDEN_TARGET_TABLE");
  FILE *table = tp && *tp ? fopen(tp, "a") : NULL;
  const char *pe = getenv("GOLDEN_PER_OP");
  const bool per_op = pe && *pe && strcmp(pe, "0") != 0;
  /* with GOLDEN_PER_OP, each op's instructions as tab-separated rows */
  const char *opp = getenv("GOLDEN_OPS_TABLE");
  FILE *ops = per_op && opp && *opp ? fopen(opp, "a") : NULL;
  const char *only = getenv("GOLDEN_ONLY"); /* a model name's substring: run just those */
  for (size_t i = 0; runnable[i]; i++) {
    if (only && *only && !strstr(runnable[i], only)) continue;
    uint64_t instr[3] = {0, 0, 0}, scratch = 0;
    unsigned long text[3] = {0, 0, 0};
    /* pass 2: the board's target with every depthwise convolution that
     * can channel by channel (memory.in_place's serial kernels) */
    for (int tg = 0; tg < 3; tg++) {
      net n;
      serial_all = tg == 2;
      net_open_for(&n, runnable[i], true, tg ? b->target : MP_TARGET_GENERIC);
      serial_all = false;
      uint32_t n_serial = 0;
      for (uint32_t o = 0; o < n.g->n_ops; o++) n_serial += is_serial(n.lo[o].kernel);
      if (tg == 2 && !n_serial) {
        net_close(&n);
        break;
      }
      for (uint32_t o = 0; tg == 1 && o < n.g->n_ops; o++)
        scratch = n.lo[o].scratch_bytes > scratch ? n.lo[o].scratch_bytes : scratch;
      mp_buf c;
      mp_buf_init(&c);
      write_target_program(&n, &c);
      assert_false(c.failed);
      snprintf(path, sizeof path, "%s/model.c", dir);
      assert_true(write_file(path, mp_buf_str(&c)));
      mp_buf_free(&c);
      /* with GOLDEN_TARGET_TABLE and GOLDEN_PER_OP both, one run gives both
       * tables: the totals and sizes from an image without the per-op reads,
       * the operators' rows from a -DPER_OP build of the same program */
      const int n_pass = per_op && table ? 2 : 1;
      for (int pass = 0; pass < n_pass; pass++) {
        const bool hooked = per_op && pass == n_pass - 1;
        if (tu_system("arm-none-eabi-gcc %s %s -std=c99 -O2 -Wall -Wextra -Werror "
                      "-Iruntime/kernels -c %s/model.c -o %s/model.o && arm-none-eabi-gcc %s "
                      "-nostartfiles --specs=nosys.specs -Wl,--gc-sections -T %s/link.ld "
                      "%s/startup.o %s/model.o %s/k_*.o -lm -o %s/model.elf",
                      b->cflags, hooked ? "-DPER_OP" : "", dir, dir, b->cflags, dir, dir, dir, dir,
                      dir) != 0)
          fail_msg("%s: the %s build failed", runnable[i], b->name);
        int rc = tu_system("timeout 300 qemu-system-arm -M %s -nographic -semihosting "
                           "-icount shift=0 -kernel %s/model.elf > %s/qemu.out 2>&1",
                           b->machine, dir, dir);
        snprintf(path, sizeof path, "%s/qemu.out", dir);
        char *out = tu_read_text(path, NULL);
        if (rc != 0)
          fail_msg("%s (%s) on %s: exit status %d (10+k: case k differs from TFLM; 100+o: op o "
                   "failed); output: %s",
                   runnable[i], mp_target_name(n.g->target), b->name, rc, out ? out : "");
        uint64_t t = field_after(out, "ticks "), cal = field_after(out, "calib ");
        assert_true(cal > 0);
        if (!hooked || n_pass == 1) instr[tg] = (t * 2000000ull + cal / 2) / cal;
        const char *op = out;
        for (uint32_t o = 0; hooked && o < n.g->n_ops && (op = strstr(op, "op ")) != NULL;
             o++, op += 3) {
          unsigned long long oi = (strtoull(op + 3, NULL, 10) * 2000000ull + cal / 2) / cal;
          const char *kn = n.lo[o].noop ? "(view)" : mp_kernel_fn(n.lo[o].kernel);
          print_message("  %s op %2u %-20s %-30s %12llu\n", mp_target_name(n.g->target), o,
                        n.g->ops[o].name, kn, oi);
          if (ops && tg < 2) /* docs/KERNELS.md's tables: the two lowerings */
            fprintf(ops, "%s\t%s\t%u\t%s\t%s\t%s\t%llu\n", b->name, runnable[i], o,
                    mp_target_name(n.g->target), n.g->ops[o].name, kn, oi);
        }
        free(out);
        tu_system("arm-none-eabi-size -A %s/model.elf | awk '$1==\".text\"{t=$2} END{print t}' "
                  "> %s/size.out",
                  dir, dir);
        snprintf(path, sizeof path, "%s/size.out", dir);
        char *sz = tu_read_text(path, NULL);
        if (sz && (!hooked || n_pass == 1)) sscanf(sz, "%lu", &text[tg]);
        free(sz);
      }
      net_close(&n);
    }
    if (instr[2])
      print_message("%-26s %14s %14llu (%s, depthwise convolutions channel by channel)\n",
                    runnable[i], "", (unsigned long long)instr[2], mp_target_name(b->target));
    print_message("%-26s %14llu %14llu %6.2fx %10lu %10lu\n", runnable[i],
                  (unsigned long long)instr[0], (unsigned long long)instr[1],
                  instr[1] ? (double)instr[0] / (double)instr[1] : 0.0, text[0], text[1]);
    if (table)
      fprintf(table, "| %s | %s | %llu | %llu | %.2f | %lu | %lu | %llu |\n", b->name,
              runnable[i], (unsigned long long)instr[0], (unsigned long long)instr[1],
              instr[1] ? (double)instr[0] / (double)instr[1] : 0.0, text[0], text[1],
              (unsigned long long)scratch);
  }
  if (table) fclose(table);
  if (ops) fclose(ops);
  tu_rmtree(dir);
}

static void every_runnable_model_matches_tflm_on_cortex_m55(void **state) {
  (void)state;
  every_runnable_model_matches_tflm_on(&m55);
}

static void every_runnable_model_matches_tflm_on_cortex_m4f(void **state) {
  (void)state;
  every_runnable_model_matches_tflm_on(&m4f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_model_of_the_corpus_is_runnable),
      cmocka_unit_test(runnable_models_pass_the_check),
      cmocka_unit_test(aliased_views_lower_to_no_ops),
      cmocka_unit_test(every_runnable_model_matches_tflm_on_all_cases),
      cmocka_unit_test(depthwise_convolutions_run_channel_by_channel_match_tflm),
      cmocka_unit_test(unaliased_views_run_as_copies_and_still_match),
      cmocka_unit_test(every_supported_operator_matches_tflm_in_isolation),
      cmocka_unit_test(float_lstm_tracks_tflm_int8_lstm_on_mnist),
      cmocka_unit_test(params_text_compiles_to_the_same_bytes),
      cmocka_unit_test(every_runnable_model_matches_tflm_on_cortex_m55),
      cmocka_unit_test(every_runnable_model_matches_tflm_on_cortex_m4f),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
