/*
 * test_kernels.c — memplan's reference kernels (runtime/kernels) on small
 * cases computed by hand: the fixed-point helpers with their exact
 * rounding, then every kernel with padding, strides, dilation, depth
 * multipliers, per-channel requantisation, offsets and fused activation
 * clamps.  Scratch and outputs start out as garbage, so a kernel that reads
 * what it did not write fails.
 *
 * Most int8 cases use the identity requantisation (multiplier 2^30, shift
 * 1: exactly x) or a power of two, so the expected values are plain sums
 * one can check on paper.  Bit-exactness on real models is test_golden's
 * job.  The last test compiles the library as strict C99 for the host and,
 * when the toolchain is installed, for Cortex-M4 and Cortex-M55.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* strong references: the kernels come from libmemplan.a (see mpk.h) */
#define MPK_API
#include "mpk.h"
#include "mpk_fixed.h"
#include "mpk_act.h"
#include "lower/lower.h"
#include "testutil.h"
#include "util/file.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Multiplier / shift pairs with exact effects. */
static const int32_t HALF = 1 << 30; /* 0.5 in Q31 */
static const int32_t ONE_SHIFT = 1;  /* HALF << 1: x * 1 */

#define GARBAGE 0xA5

/* ------------------------------------------------------------------------ */
/* Fixed point                                                              */
/* ------------------------------------------------------------------------ */

static void srdhm_rounds_half_up_and_saturates(void **state) {
  (void)state;
  assert_int_equal(mpk_srdhm(1 << 30, 1 << 30), 1 << 29);
  assert_int_equal(mpk_srdhm(3, HALF), 2);   /* 1.5 -> 2 */
  assert_int_equal(mpk_srdhm(-3, HALF), -1); /* -1.5 -> -1 (VQRDMULH) */
  assert_int_equal(mpk_srdhm(-4, HALF), -2);
  assert_int_equal(mpk_srdhm(MPK_I32_MIN, MPK_I32_MIN), MPK_I32_MAX);
  assert_int_equal(mpk_srdhm(MPK_I32_MAX, MPK_I32_MAX), MPK_I32_MAX - 1);
}

static void rounding_divide_by_pot_rounds_half_away_from_zero(void **state) {
  (void)state;
  assert_int_equal(mpk_rdbpot(5, 1), 3);
  assert_int_equal(mpk_rdbpot(-5, 1), -3);
  assert_int_equal(mpk_rdbpot(-3, 1), -2);
  assert_int_equal(mpk_rdbpot(7, 2), 2);
  assert_int_equal(mpk_rdbpot(6, 2), 2);
  assert_int_equal(mpk_rdbpot(-6, 2), -2);
  assert_int_equal(mpk_rdbpot(-7, 2), -2);
  assert_int_equal(mpk_rdbpot(5, 2), 1);
  assert_int_equal(mpk_rdbpot(123, 0), 123);
  assert_int_equal(mpk_rdbpot(MPK_I32_MAX, 31), 1);
  assert_int_equal(mpk_rdbpot(MPK_I32_MIN, 31), -1);
}

static void multiply_by_quantized_multiplier_shifts_both_ways(void **state) {
  (void)state;
  assert_int_equal(mpk_mbqm(100, HALF, 0), 50);
  assert_int_equal(mpk_mbqm(100, HALF, 1), 100);
  assert_int_equal(mpk_mbqm(100, HALF, 3), 400);
  assert_int_equal(mpk_mbqm(100, HALF, -2), 13);   /* 12.5 */
  assert_int_equal(mpk_mbqm(-100, HALF, -2), -13); /* -12.5 */
  assert_int_equal(mpk_mbqm(-101, HALF, ONE_SHIFT), -101);
  /* 0.75 * 10 = 7.5 -> 8 */
  assert_int_equal(mpk_mbqm(10, 3 << 29, 0), 8);
  assert_int_equal(mpk_mbqm(0, 1234567, -5), 0);
}

static void saturating_shift_and_rescale_saturate(void **state) {
  (void)state;
  assert_int_equal(mpk_sat_shl(1 << 20, 5), 1 << 25);
  assert_int_equal(mpk_sat_shl(1 << 27, 5), MPK_I32_MAX);
  assert_int_equal(mpk_sat_shl(-(1 << 27), 5), MPK_I32_MIN);
  assert_int_equal(mpk_rescale(1 << 20, 5, 0), 1 << 25);
  assert_int_equal(mpk_rescale(3 << 10, 0, 12), 1); /* 0.75 -> 1 */
  assert_int_equal(mpk_rounding_half_sum(3, 4), 4);
  assert_int_equal(mpk_rounding_half_sum(-3, -4), -4);
  assert_int_equal(mpk_rounding_half_sum(MPK_I32_MAX, MPK_I32_MAX), MPK_I32_MAX);
  assert_int_equal(mpk_clz32(1), 31);
  assert_int_equal(mpk_clz32(0), 32);
  assert_int_equal(mpk_clz32(0x80000000u), 0);
}

static void exp_on_negative_values_follows_exp(void **state) {
  (void)state;
  assert_int_equal(mpk_exp_on_negative_values(0, 5), MPK_I32_MAX);
  for (int i = 1; i <= 64; i++) {
    double x = -i / 8.0; /* -0.125 .. -8 */
    int32_t a = (int32_t)(x * (1 << 26));
    double got = mpk_exp_on_negative_values(a, 5) / 2147483648.0;
    assert_true(fabs(got - exp(x)) < 2e-8 + 1e-6 * exp(x));
  }
  /* strictly decreasing over a fine grid of Q5 inputs */
  int32_t prev = MPK_I32_MAX;
  for (int32_t a = -(1 << 20); a > -(16 << 26); a -= 1 << 20) {
    int32_t e = mpk_exp_on_negative_values(a, 5);
    assert_true(e <= prev);
    prev = e;
  }
}

static void one_over_one_plus_x_and_logistic_are_close_to_real(void **state) {
  (void)state;
  for (int i = 0; i < 16; i++) {
    double x = i / 16.0;
    double got = mpk_one_over_one_plus_x((int32_t)(x * 2147483648.0)) / 2147483648.0;
    assert_true(fabs(got - 1.0 / (1.0 + x)) < 1e-8);
  }
  assert_int_equal(mpk_logistic_fixed(0, 4), 1 << 30);
  for (int i = -40; i <= 40; i++) {
    double x = i / 4.0;
    double got = mpk_logistic_fixed((int32_t)(x * (1 << 27)), 4) / 2147483648.0;
    assert_true(fabs(got - 1.0 / (1.0 + exp(-x))) < 1e-7);
  }
}

static void reciprocal_reports_the_bits_over_unit(void **state) {
  (void)state;
  int bits = 0;
  /* 4.0 in Q12 is 2^21: 1/4 = (about) 1.0 * 2^-2 */
  int32_t r = mpk_reciprocal(1 << 21, 12, &bits);
  assert_int_equal(bits, 2);
  assert_true(r > MPK_I32_MAX - 8);
  /* 3.0 in Q12: 1/3 = 0.666 * 2^-1 */
  r = mpk_reciprocal(3 << 19, 12, &bits);
  assert_int_equal(bits, 1);
  assert_true(fabs(r / 2147483648.0 - 2.0 / 3.0) < 1e-8);
}

/* ------------------------------------------------------------------------ */
/* Convolutions                                                             */
/* ------------------------------------------------------------------------ */

static int32_t mult_one[8] = {HALF, HALF, HALF, HALF, HALF, HALF, HALF, HALF};
static int32_t shift_one[8] = {1, 1, 1, 1, 1, 1, 1, 1};

/* 1x3x3x1 input 1..9, identity requantisation, full int8 range. */
static mpk_conv_s8_params conv3x3(int32_t fh, int32_t fw, int32_t stride, int32_t dil, int32_t pad,
                                  int32_t out_hw) {
  mpk_conv_s8_params p;
  memset(&p, 0, sizeof p);
  p.geom = (mpk_conv_geom){.batches = 1,
                           .in_h = 3,
                           .in_w = 3,
                           .in_c = 1,
                           .out_h = out_hw,
                           .out_w = out_hw,
                           .out_c = 1,
                           .filter_h = fh,
                           .filter_w = fw,
                           .filter_c = 1,
                           .stride_h = stride,
                           .stride_w = stride,
                           .dilation_h = dil,
                           .dilation_w = dil,
                           .pad_h = pad,
                           .pad_w = pad};
  p.q = (mpk_requant){.act_min = -128,
                      .act_max = 127,
                      .per_channel = 1,
                      .multiplier = mult_one,
                      .shift = shift_one};
  return p;
}

static const int8_t in9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const int8_t ones4[4] = {1, 1, 1, 1};

static void conv_valid_stride_one_sums_each_window(void **state) {
  (void)state;
  mpk_conv_s8_params p = conv3x3(2, 2, 1, 1, 0, 2);
  int8_t out[4];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_OK);
  assert_int_equal(out[0], 12);
  assert_int_equal(out[1], 16);
  assert_int_equal(out[2], 24);
  assert_int_equal(out[3], 28);
}

static void conv_same_stride_two_skips_the_padding(void **state) {
  (void)state;
  /* SAME, stride 2: total padding 1, all of it bottom/right */
  mpk_conv_s8_params p = conv3x3(2, 2, 2, 1, 0, 2);
  int8_t out[4];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_OK);
  assert_int_equal(out[0], 12);
  assert_int_equal(out[1], 3 + 6);
  assert_int_equal(out[2], 7 + 8);
  assert_int_equal(out[3], 9);
  /* an input zero point of -1: padding taps still add nothing */
  p.q.input_offset = 1;
  assert_int_equal(mpk_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_OK);
  assert_int_equal(out[0], 12 + 4);
  assert_int_equal(out[1], 9 + 2);
  assert_int_equal(out[3], 9 + 1);
}

static void conv_with_top_left_padding_shifts_the_window(void **state) {
  (void)state;
  /* 3x3 filter of ones, SAME stride 1: pad 1 on every side */
  mpk_conv_s8_params p = conv3x3(3, 3, 1, 1, 1, 3);
  int8_t f[9];
  memset(f, 1, sizeof f);
  int8_t out[9];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_conv2d_s8(&p, in9, f, NULL, out, NULL), MPK_OK);
  const int8_t want[9] = {12, 21, 16, 27, 45, 33, 24, 39, 28};
  assert_memory_equal(out, want, 9);
}

static void conv_dilation_spreads_the_taps(void **state) {
  (void)state;
  mpk_conv_s8_params p = conv3x3(2, 2, 1, 2, 0, 1);
  int8_t out[1] = {GARBAGE};
  assert_int_equal(mpk_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_OK);
  assert_int_equal(out[0], 1 + 3 + 7 + 9);
}

static void conv_requantises_per_channel_with_bias_and_clamps(void **state) {
  (void)state;
  mpk_conv_s8_params p = conv3x3(2, 2, 1, 1, 0, 2);
  p.geom.out_c = 2;
  /* channel 0: identity; channel 1: x 0.25 */
  int32_t mult[2] = {HALF, HALF}, shift[2] = {1, -1};
  p.q.multiplier = mult;
  p.q.shift = shift;
  p.q.output_offset = -3;
  p.q.act_min = -128;
  p.q.act_max = 20;
  const int8_t f[8] = {1, 1, 1, 1, 2, 2, 2, 2};
  const int32_t bias[2] = {-2, 2};
  int8_t out[8];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_conv2d_s8(&p, in9, f, bias, out, NULL), MPK_OK);
  /* windows sum 12, 16, 24, 28; ch0: sum - 2 - 3, clamped at 20;
   * ch1: (2 sum + 2) / 4 rounded half away (6.5, 8.5, 12.5, 14.5) - 3 */
  const int8_t want2[8] = {7, 4, 11, 6, 19, 10, 20, 12};
  assert_memory_equal(out, want2, 8);
}

static void grouped_conv_reads_its_group_of_channels(void **state) {
  (void)state;
  /* 1x1x1x4 input, two groups of two channels, 1x1 filter [2][1][1][2] */
  mpk_conv_s8_params p;
  memset(&p, 0, sizeof p);
  p.geom = (mpk_conv_geom){.batches = 1,
                           .in_h = 1,
                           .in_w = 1,
                           .in_c = 4,
                           .out_h = 1,
                           .out_w = 1,
                           .out_c = 2,
                           .filter_h = 1,
                           .filter_w = 1,
                           .filter_c = 2,
                           .stride_h = 1,
                           .stride_w = 1,
                           .dilation_h = 1,
                           .dilation_w = 1};
  p.q = (mpk_requant){.act_min = -128,
                      .act_max = 127,
                      .per_channel = 0,
                      .multiplier = mult_one,
                      .shift = shift_one};
  const int8_t in[4] = {1, 2, 3, 4}, f[4] = {1, 10, 1, 10};
  int8_t out[2];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_conv2d_s8(&p, in, f, NULL, out, NULL), MPK_OK);
  assert_int_equal(out[0], 1 + 20);
  assert_int_equal(out[1], 3 + 40);
}

static void depthwise_applies_the_depth_multiplier(void **state) {
  (void)state;
  /* 1x2x2x2 input, depth multiplier 2 -> 4 channels, 2x2 VALID -> 1x1 */
  mpk_conv_s8_params p;
  memset(&p, 0, sizeof p);
  p.geom = (mpk_conv_geom){.batches = 1,
                           .in_h = 2,
                           .in_w = 2,
                           .in_c = 2,
                           .out_h = 1,
                           .out_w = 1,
                           .out_c = 4,
                           .filter_h = 2,
                           .filter_w = 2,
                           .depth_multiplier = 2,
                           .stride_h = 1,
                           .stride_w = 1,
                           .dilation_h = 1,
                           .dilation_w = 1};
  p.q = (mpk_requant){.input_offset = 1,
                      .act_min = -128,
                      .act_max = 127,
                      .per_channel = 1,
                      .multiplier = mult_one,
                      .shift = shift_one};
  /* pixels (c0, c1): (1, 10) (2, 20) (3, 30) (4, 40) */
  const int8_t in[8] = {1, 10, 2, 20, 3, 30, 4, 40};
  /* filter [1][2][2][4]: out channel k = c * 2 + m */
  const int8_t f[16] = {1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, -1, 0, 1};
  const int32_t bias[4] = {0, 1, 0, -1};
  int8_t out[4];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_depthwise_conv2d_s8(&p, in, f, bias, out, NULL), MPK_OK);
  /* k0 (c0, m0): taps 1,1,1,1 on 2,3,4,5 -> 14
   * k1 (c0, m1): 0,1,0,-1 on 2,3,4,5 -> -2, +1 bias -> -1
   * k2 (c1, m0): 1,0,0,0 on 11,21,31,41 -> 11
   * k3 (c1, m1): 0,1,0,1 -> 21 + 41 = 62, -1 -> 61 */
  const int8_t want[4] = {14, -1, 11, 61};
  assert_memory_equal(out, want, 4);
}

static void float_convolutions_clamp_to_the_activation(void **state) {
  (void)state;
  mpk_conv_f32_params p;
  memset(&p, 0, sizeof p);
  p.geom = (mpk_conv_geom){.batches = 1,
                           .in_h = 3,
                           .in_w = 3,
                           .in_c = 1,
                           .out_h = 2,
                           .out_w = 2,
                           .out_c = 1,
                           .filter_h = 2,
                           .filter_w = 2,
                           .filter_c = 1,
                           .stride_h = 1,
                           .stride_w = 1,
                           .dilation_h = 1,
                           .dilation_w = 1};
  p.act_min = 0.0f;
  p.act_max = 6.0f;
  const float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, f[4] = {0.5f, 0, 0, -0.5f}, b[1] = {3};
  float out[4];
  assert_int_equal(mpk_conv2d_f32(&p, in, f, b, out, NULL), MPK_OK);
  for (int i = 0; i < 4; i++)
    assert_true(out[i] == 1.0f); /* (a - e) / 2 + 3 = 1 */
  p.geom.filter_c = 0;
  p.geom.depth_multiplier = 1;
  p.geom.out_c = 1;
  const float g[4] = {1, 1, 1, 1};
  assert_int_equal(mpk_depthwise_conv2d_f32(&p, in, g, NULL, out, NULL), MPK_OK);
  assert_true(out[0] == 6.0f && out[3] == 6.0f); /* 12 and 28 clamped */
}

static void conv_rejects_inconsistent_params(void **state) {
  (void)state;
  int8_t out[4];
  mpk_conv_s8_params p = conv3x3(2, 2, 0, 1, 0, 2);
  assert_int_equal(mpk_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_ERR_PARAMS);
  p = conv3x3(2, 2, 1, 1, 0, 2);
  p.geom.filter_c = 2; /* 1 input channel cannot be split into groups of 2 */
  assert_int_equal(mpk_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_ERR_PARAMS);
  p = conv3x3(2, 2, 1, 1, 0, 2);
  p.geom.depth_multiplier = 3; /* out_c != in_c * 3 */
  assert_int_equal(mpk_depthwise_conv2d_s8(&p, in9, ones4, NULL, out, NULL), MPK_ERR_PARAMS);
}

static void init_hooks_check_filter_and_bias_alignment(void **state) {
  (void)state;
  mpk_conv_s8_params p = conv3x3(2, 2, 1, 1, 0, 2);
  int32_t bias[2] = {0, 0};
  const int32_t *misaligned = (const int32_t *)(const void *)((const char *)bias + 1);
  assert_int_equal(mpk_conv2d_s8_init(&p, NULL, ones4, bias, NULL, NULL), MPK_OK);
  assert_int_equal(mpk_conv2d_s8_init(&p, NULL, ones4, NULL, NULL, NULL), MPK_OK);
  assert_int_equal(mpk_conv2d_s8_init(&p, NULL, NULL, bias, NULL, NULL), MPK_ERR_CONSTANT);
  assert_int_equal(mpk_conv2d_s8_init(&p, NULL, ones4, misaligned, NULL, NULL), MPK_ERR_CONSTANT);
  assert_int_equal(mpk_depthwise_conv2d_s8_init(&p, NULL, ones4, misaligned, NULL, NULL),
                   MPK_ERR_CONSTANT);
  mpk_fc_s8_params fc = {.batches = 1, .accum_depth = 4, .out_depth = 1};
  assert_int_equal(mpk_fully_connected_s8_init(&fc, NULL, ones4, bias, NULL, NULL), MPK_OK);
  assert_int_equal(mpk_fully_connected_s8_init(&fc, NULL, ones4, misaligned, NULL, NULL),
                   MPK_ERR_CONSTANT);
  fc.accum_depth = 0;
  assert_int_equal(mpk_fully_connected_s8_init(&fc, NULL, ones4, bias, NULL, NULL), MPK_ERR_PARAMS);
}

/* ------------------------------------------------------------------------ */
/* Fully connected, pooling, add                                            */
/* ------------------------------------------------------------------------ */

/* The window kernels at output strides: each writes exactly the packed
 * output's values at b * batch + oy * row + ox * pixel + oc of a larger
 * buffer, for a slice of the channels, of the columns and of the rows, and
 * leaves every other byte as it was. */
enum { W_CONV_S8, W_DW_S8, W_CONV_S16, W_DW_S16, W_CONV_F32, W_DW_F32, W_AVG_S8, W_MAX_S8,
       W_AVG_S16, W_MAX_S16, W_AVG_F32, W_MAX_F32, W_KINDS };

static int32_t run_window(int kind, const mpk_conv_geom *g, const void *in, void *out) {
  static const int8_t filt[2 * 3 * 3 * 4] = {3, -1, 2, 0, 1, 5, -2, 1, 0, 2, 1, -3, 4, 1, 0, 2,
                                             -1, 3, 1, 1, 2, 0, -2, 4, 1, 1, 3, -1, 0, 2, 2, 1,
                                             -3, 1, 0, 2, 1, 2, -1, 0, 3, 1, 2, -2, 0, 1, 4, 1,
                                             2, 1, 0, -1, 1, 3, 2, 0, -2, 1, 1, 2, 0, 3, 1, -1,
                                             2, 2, 1, 0, -1, 1, 3, 2};
  static float filt_f[2 * 3 * 3 * 4];
  for (int i = 0; i < 72; i++) filt_f[i] = (float)filt[i] * 0.25f;
  static const int32_t bias[4] = {7, -3, 11, 0};
  static const int64_t bias64[4] = {7, -3, 11, 0};
  static const float bias_f[4] = {0.5f, -1.0f, 0.25f, 2.0f};
  static int32_t mult[4] = {HALF, HALF >> 1, HALF, HALF >> 2}, shift[4] = {1, 1, 0, 1};
  mpk_conv_s8_params q;
  q.geom = *g;
  q.q = (mpk_requant){.input_offset = kind == W_CONV_S16 || kind == W_DW_S16 ? 0 : 3,
                      .output_offset = kind == W_CONV_S16 || kind == W_DW_S16 ? 0 : -5,
                      .act_min = kind == W_CONV_S16 || kind == W_DW_S16 ? -32768 : -128,
                      .act_max = kind == W_CONV_S16 || kind == W_DW_S16 ? 32767 : 127,
                      .per_channel = 1,
                      .multiplier = mult,
                      .shift = shift};
  mpk_conv_f32_params f = {.geom = *g, .act_min = -6.0f, .act_max = 6.0f};
  mpk_pool_s8_params ps = {.geom = *g, .act_min = -100, .act_max = 120};
  mpk_pool_s8_params p16 = {.geom = *g, .act_min = -30000, .act_max = 30000};
  mpk_pool_f32_params pf = {.geom = *g, .act_min = -5.0f, .act_max = 5.0f};
  switch (kind) {
  case W_CONV_S8: return mpk_conv2d_s8(&q, in, filt, bias, out, NULL);
  case W_DW_S8: return mpk_depthwise_conv2d_s8(&q, in, filt, bias, out, NULL);
  case W_CONV_S16: return mpk_conv2d_s16(&q, in, filt, bias64, out, NULL);
  case W_DW_S16: return mpk_depthwise_conv2d_s16(&q, in, filt, bias64, out, NULL);
  case W_CONV_F32: return mpk_conv2d_f32(&f, in, filt_f, bias_f, out, NULL);
  case W_DW_F32: return mpk_depthwise_conv2d_f32(&f, in, filt_f, bias_f, out, NULL);
  case W_AVG_S8: return mpk_avg_pool2d_s8(&ps, in, out, NULL);
  case W_MAX_S8: return mpk_max_pool2d_s8(&ps, in, out, NULL);
  case W_AVG_S16: return mpk_avg_pool2d_s16(&p16, in, out, NULL);
  case W_MAX_S16: return mpk_max_pool2d_s16(&p16, in, out, NULL);
  case W_AVG_F32: return mpk_avg_pool2d_f32(&pf, in, out, NULL);
  default: return mpk_max_pool2d_f32(&pf, in, out, NULL);
  }
}

static void window_kernels_write_their_output_at_strides_and_nothing_else(void **state) {
  (void)state;
  enum { B = 2, H = 4, W = 3 };
  for (int kind = 0; kind < W_KINDS; kind++) {
    const bool pool = kind >= W_AVG_S8, dw = kind == W_DW_S8 || kind == W_DW_S16 ||
                                              kind == W_DW_F32;
    const size_t e = kind == W_CONV_S16 || kind == W_DW_S16 || kind == W_AVG_S16 ||
                             kind == W_MAX_S16
                         ? 2
                     : kind == W_CONV_F32 || kind == W_DW_F32 || kind == W_AVG_F32 ||
                             kind == W_MAX_F32
                         ? 4
                         : 1;
    /* 3x3 window, stride 1, padding 1: the output is the input's size */
    mpk_conv_geom g = {.batches = B, .in_h = H, .in_w = W, .in_c = 2, .out_h = H, .out_w = W,
                       .out_c = pool ? 2 : 4, .filter_h = 3, .filter_w = 3,
                       .filter_c = pool || dw ? 0 : 2, .depth_multiplier = dw ? 2 : 0,
                       .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1,
                       .pad_h = 1, .pad_w = 1};
    const int32_t C = g.out_c;
    uint8_t in[B * H * W * 2 * 4];
    for (size_t i = 0; i < sizeof in / e; i++) {
      int32_t v = (int32_t)((i * 37 + 11) % 61) - 30;
      if (e == 1) ((int8_t *)in)[i] = (int8_t)v;
      if (e == 2) ((int16_t *)in)[i] = (int16_t)(v * 300);
      if (e == 4) ((float *)in)[i] = (float)v * 0.125f;
    }
    uint8_t packed[B * H * W * 4 * 4];
    memset(packed, GARBAGE, sizeof packed);
    assert_int_equal(run_window(kind, &g, in, packed), MPK_OK);
    /* a slice of channels [2, 2 + C) of C + 5; of columns [1, 1 + W) of
     * W + 2; of rows [1, 1 + H) of H + 3 */
    const int32_t layouts[3][4] = {{C + 5, (C + 5) * W, (C + 5) * W * H, 2},
                                   {C, C * (W + 2), C * (W + 2) * H, C},
                                   {C, C * W, C * W * (H + 3), C * W}};
    for (int l = 0; l < 3; l++) {
      mpk_conv_geom s = g;
      s.out_pixel_stride = l == 0 ? layouts[l][0] : 0;
      s.out_row_stride = l == 1 ? layouts[l][1] : 0;
      s.out_batch_stride = l == 2 ? layouts[l][2] : 0;
      const size_t total = (size_t)layouts[l][2] * B * e;
      uint8_t *big = malloc(total), *want = malloc(total);
      assert_non_null(big);
      assert_non_null(want);
      memset(big, GARBAGE, total);
      memset(want, GARBAGE, total);
      for (int32_t b = 0; b < B; b++)
        for (int32_t y = 0; y < H; y++)
          for (int32_t x = 0; x < W; x++)
            memcpy(want + ((size_t)layouts[l][3] + (size_t)b * layouts[l][2] +
                           (size_t)y * layouts[l][1] + (size_t)x * layouts[l][0]) * e,
                   packed + ((size_t)((b * H + y) * W + x) * C) * e, (size_t)C * e);
      assert_int_equal(run_window(kind, &s, in, big + (size_t)layouts[l][3] * e), MPK_OK);
      assert_memory_equal(big, want, total);
      free(big);
      free(want);
    }
    /* a stride below what it steps over would write two outputs to one place */
    mpk_conv_geom bad = g;
    bad.out_pixel_stride = C - 1;
    uint8_t sink[B * H * W * 4 * 4];
    assert_int_equal(run_window(kind, &bad, in, sink), MPK_ERR_PARAMS);
    bad = g;
    bad.out_pixel_stride = C + 1;
    bad.out_row_stride = (C + 1) * W - 1;
    assert_int_equal(run_window(kind, &bad, in, sink), MPK_ERR_PARAMS);
  }
}

/* ------------------------------------------------------------------------ */
/* 16x8 CONV_2D without a bias or with an int32 one                         */
/* ------------------------------------------------------------------------ */

/* TFLite Micro runs such a convolution in 32 bits: an int32 accumulator
 * and the int8 kernels' requantisation.  Checked against mpk_conv2d_s8
 * (which TFLite Micro's int8 cases check) on the same integers: int16
 * inputs inside int8's range, zero points 0, outputs inside int8's range;
 * and against the int64 kernel, which these cases must not match. */
static uint32_t acc32_seed = 12345u;
static int32_t acc32_range(int32_t lo, int32_t hi) {
  acc32_seed = acc32_seed * 1664525u + 1013904223u;
  return lo + (int32_t)((acc32_seed >> 8) % (uint32_t)(hi - lo + 1));
}

static void conv16_in_32_bits_is_the_int8_convolution_on_int8_range_integers(void **state) {
  (void)state;
  enum { MAXN = 2 * 7 * 7 * 6, MAXF = 5 * 3 * 3 * 6 };
  int differs_from_int64 = 0, compared = 0;
  for (int n = 0; n < 400; n++) {
    mpk_conv_geom g = {.batches = acc32_range(1, 2), .in_h = acc32_range(1, 7),
                       .in_w = acc32_range(1, 7), .filter_h = acc32_range(1, 3),
                       .filter_w = acc32_range(1, 3), .stride_h = acc32_range(1, 2),
                       .stride_w = acc32_range(1, 2), .dilation_h = acc32_range(1, 2),
                       .dilation_w = 1, .pad_h = acc32_range(0, 1), .pad_w = acc32_range(0, 1)};
    const int32_t groups = acc32_range(1, 2);
    g.filter_c = acc32_range(1, 3);
    g.in_c = g.filter_c * groups;
    g.out_c = groups * acc32_range(1, 2);
    g.out_h = (g.in_h + 2 * g.pad_h - g.dilation_h * (g.filter_h - 1) - 1) / g.stride_h + 1;
    g.out_w = (g.in_w + 2 * g.pad_w - g.dilation_w * (g.filter_w - 1) - 1) / g.stride_w + 1;
    if (g.out_h <= 0 || g.out_w <= 0) continue;
    const int32_t in_n = g.batches * g.in_h * g.in_w * g.in_c;
    const int32_t out_n = g.batches * g.out_h * g.out_w * g.out_c;
    const int32_t f_n = g.out_c * g.filter_h * g.filter_w * g.filter_c;
    int8_t x8[MAXN], f[MAXF], y8[MAXN];
    int16_t x16[MAXN], y16[MAXN], y64[MAXN];
    int32_t bias[6], mult[6], shift[6];
    int64_t bias64[6];
    for (int32_t i = 0; i < in_n; i++) x16[i] = x8[i] = (int8_t)acc32_range(-128, 127);
    for (int32_t i = 0; i < f_n; i++) f[i] = (int8_t)acc32_range(-128, 127);
    const int with_bias = n % 3 != 0;
    for (int32_t o = 0; o < g.out_c; o++) {
      bias64[o] = bias[o] = acc32_range(-40000, 40000);
      /* any Q31 multiplier, its low bits included (where the 64-bit
       * requantisation, which keeps 15 of them, rounds differently) */
      mult[o] = (int32_t)((1u << 30) | (uint32_t)acc32_range(0, (1 << 30) - 1));
      shift[o] = acc32_range(-12, -7);
    }
    mpk_conv_s8_params p = {.geom = g};
    p.q = (mpk_requant){.act_min = -128, .act_max = 127, .per_channel = 1,
                        .multiplier = mult, .shift = shift};
    assert_int_equal(mpk_conv2d_s8(&p, x8, f, with_bias ? bias : NULL, y8, NULL), MPK_OK);
    p.q.act_min = -32768;
    p.q.act_max = 32767;
    memset(y16, GARBAGE, sizeof y16);
    assert_int_equal(mpk_conv2d_s16_acc32(&p, x16, f, with_bias ? bias : NULL, y16, NULL), MPK_OK);
    assert_int_equal(mpk_conv2d_s16(&p, x16, f, with_bias ? bias64 : NULL, y64, NULL), MPK_OK);
    int in_range = 1;
    for (int32_t i = 0; i < out_n; i++) in_range &= y16[i] > -128 && y16[i] < 127;
    if (!in_range) continue; /* the int8 kernel clamped */
    compared++;
    for (int32_t i = 0; i < out_n; i++)
      if (y16[i] != y8[i]) fail_msg("case %d output %d: %d, the int8 convolution %d", n, i, y16[i], y8[i]);
    differs_from_int64 += memcmp(y16, y64, (size_t)out_n * 2) != 0;
  }
  assert_true(compared >= 200);
  /* the two requantisations round apart somewhere */
  assert_true(differs_from_int64 > 0);
}

/* The int32 accumulator wraps as two's complement: 600 products of 127 and
 * 32767 sum to 2,496,834,600, which 32 bits hold as -1,798,132,696.  The
 * output is the int8 convolution's of that accumulator (a zero input and
 * it as the bias); the int64 kernel gives a positive output. */
static void conv16_in_32_bits_wraps_its_accumulator(void **state) {
  (void)state;
  enum { C = 600 };
  static int16_t x[C];
  static int8_t f[C], zero[C];
  for (int i = 0; i < C; i++) x[i] = 32767, f[i] = 127, zero[i] = 0;
  int32_t mult[1] = {HALF}, shift[1] = {-23}; /* 2^-24 */
  mpk_conv_s8_params p = {.geom = {.batches = 1, .in_h = 1, .in_w = 1, .in_c = C, .out_h = 1,
                                   .out_w = 1, .out_c = 1, .filter_h = 1, .filter_w = 1,
                                   .filter_c = C, .stride_h = 1, .stride_w = 1,
                                   .dilation_h = 1, .dilation_w = 1}};
  p.q = (mpk_requant){.act_min = -128, .act_max = 127, .per_channel = 1, .multiplier = mult,
                      .shift = shift};
  const int64_t sum = (int64_t)C * 127 * 32767;
  for (int32_t b = -3; b <= 3; b++) {
    const int32_t bias = b * 1000003;
    const int32_t wrapped = (int32_t)(uint32_t)(uint64_t)(sum + bias);
    int8_t want;
    assert_int_equal(mpk_conv2d_s8(&p, zero, f, &wrapped, &want, NULL), MPK_OK);
    assert_true(want < -100 && want > -128); /* inside int8's range: no clamp */
    int16_t got = 0, got_nobias = 0, old = 0;
    const int64_t bias64 = bias;
    mpk_conv_s8_params p16 = p;
    p16.q.act_min = -32768;
    p16.q.act_max = 32767;
    assert_int_equal(mpk_conv2d_s16_acc32(&p16, x, f, &bias, &got, NULL), MPK_OK);
    assert_int_equal(got, want);
    assert_int_equal(mpk_conv2d_s16(&p16, x, f, &bias64, &old, NULL), MPK_OK);
    assert_true(old > 100);
    if (b == 0) {
      assert_int_equal(mpk_conv2d_s16_acc32(&p16, x, f, NULL, &got_nobias, NULL), MPK_OK);
      assert_int_equal(got_nobias, want);
    }
  }
}

static void kernels_without_output_strides_refuse_a_strided_geometry(void **state) {
  (void)state;
  mpk_conv_s8_params p;
  memset(&p, 0, sizeof p);
  p.geom = (mpk_conv_geom){.batches = 1, .in_h = 1, .in_w = 1, .in_c = 1, .out_h = 1,
                           .out_w = 1, .out_c = 1, .filter_h = 1, .filter_w = 1, .filter_c = 1,
                           .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1,
                           .out_pixel_stride = 2};
  p.q = (mpk_requant){.act_min = -32768, .act_max = 32767, .multiplier = mult_one,
                      .shift = shift_one};
  int16_t in[1] = {1}, out[2], col[1];
  int8_t f[1] = {1};
  assert_int_equal(mpk_conv2d_s16_fast(&p, in, f, NULL, out, col), MPK_ERR_PARAMS);
  /* and a strided output has no overlap contract, on any path */
  assert_true(mpk_conv2d_overlap_gap(&p.geom, 1, 1) == MPK_NO_OVERLAP);
  assert_true(mpk_pool2d_overlap_gap(&p.geom, 1, 1) == MPK_NO_OVERLAP);
  assert_true(mpk_conv2d_s8_1x1_overlap_gap(&p.geom) == MPK_NO_OVERLAP);
  assert_true(mpk_conv2d_s8_im2col_overlap_gap(&p.geom) == MPK_NO_OVERLAP);
  assert_true(mpk_depthwise_conv2d_s8_fast_overlap_gap(&p.geom) == MPK_NO_OVERLAP);
  assert_true(mpk_pool2d_s8_fast_overlap_gap(&p.geom) == MPK_NO_OVERLAP);
}

static void fully_connected_applies_both_offsets_and_the_bias(void **state) {
  (void)state;
  mpk_fc_s8_params p = {.batches = 2, .accum_depth = 3, .out_depth = 2};
  p.q = (mpk_requant){.input_offset = 1,
                      .filter_offset = -1,
                      .output_offset = 5,
                      .act_min = -128,
                      .act_max = 127,
                      .per_channel = 0,
                      .multiplier = mult_one,
                      .shift = shift_one};
  const int8_t in[6] = {1, 2, 3, -1, 0, 1};
  const int8_t f[6] = {2, 2, 2, 2, 0, 3}; /* with filter_offset: {1,1,1}, {1,-1,2} */
  const int32_t bias[2] = {10, -10};
  int8_t out[4];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_fully_connected_s8(&p, in, f, bias, out, NULL), MPK_OK);
  /* batch 0: inputs {2,3,4}: 9 + 10 + 5 = 24; 2 - 3 + 8 - 10 + 5 = 2
   * batch 1: inputs {0,1,2}: 3 + 15 = 18; 0 - 1 + 4 - 10 + 5 = -2 */
  const int8_t want[4] = {24, 2, 18, -2};
  assert_memory_equal(out, want, 4);
  /* per channel: output 1 scaled by 0.5 (rounding 7/2 -> 4) */
  int32_t mult[2] = {HALF, HALF}, shift[2] = {1, 0};
  p.q.per_channel = 1;
  p.q.multiplier = mult;
  p.q.shift = shift;
  p.q.output_offset = 0;
  p.q.act_max = 10;
  assert_int_equal(mpk_fully_connected_s8(&p, in, f, NULL, out, NULL), MPK_OK);
  const int8_t want2[4] = {9, 4, 3, 2}; /* 9, 7/2; 3, 3/2 -> 2 */
  assert_memory_equal(out, want2, 4);
}

static void fully_connected_float_matches_a_dot_product(void **state) {
  (void)state;
  mpk_fc_f32_params p = {
      .batches = 1, .accum_depth = 2, .out_depth = 2, .act_min = -1.0f, .act_max = 1.0f};
  const float in[2] = {0.5f, -0.25f}, f[4] = {1, 1, 4, 0}, b[2] = {0.125f, 0};
  float out[2];
  assert_int_equal(mpk_fully_connected_f32(&p, in, f, b, out, NULL), MPK_OK);
  assert_true(out[0] == 0.375f);
  assert_true(out[1] == 1.0f); /* 2 clamped to RELU_N1_TO_1 */
}

static mpk_conv_geom pool_geom(int32_t in_h, int32_t in_w, int32_t out_h, int32_t out_w, int32_t k,
                               int32_t stride, int32_t pad) {
  return (mpk_conv_geom){.batches = 1,
                         .in_h = in_h,
                         .in_w = in_w,
                         .in_c = 1,
                         .out_h = out_h,
                         .out_w = out_w,
                         .out_c = 1,
                         .filter_h = k,
                         .filter_w = k,
                         .stride_h = stride,
                         .stride_w = stride,
                         .dilation_h = 1,
                         .dilation_w = 1,
                         .pad_h = pad,
                         .pad_w = pad};
}

static void average_pool_rounds_half_away_and_ignores_padding(void **state) {
  (void)state;
  mpk_pool_s8_params p = {.geom = pool_geom(2, 4, 1, 2, 2, 2, 0), .act_min = -128, .act_max = 127};
  const int8_t in[8] = {1, 2, -1, -2, 2, 2, -2, -2}; /* windows sum 7 and -7 */
  int8_t out[2];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_avg_pool2d_s8(&p, in, out, NULL), MPK_OK);
  assert_int_equal(out[0], 2);                        /* 1.75 */
  assert_int_equal(out[1], -2);                       /* -1.75 */
  const int8_t in2[8] = {1, 2, -1, -2, 1, 2, -1, -2}; /* 6 and -6: ties */
  assert_int_equal(mpk_avg_pool2d_s8(&p, in2, out, NULL), MPK_OK);
  assert_int_equal(out[0], 2);
  assert_int_equal(out[1], -2);
  /* 3x3, 2x2 window, stride 2 SAME: partial windows average their taps */
  mpk_pool_s8_params q = {.geom = pool_geom(3, 3, 2, 2, 2, 2, 0), .act_min = 0, .act_max = 127};
  const int8_t in3[9] = {1, 2, 3, 4, 5, 6, 7, 8, -90};
  int8_t out3[4];
  assert_int_equal(mpk_avg_pool2d_s8(&q, in3, out3, NULL), MPK_OK);
  assert_int_equal(out3[0], 3); /* 12 / 4 */
  assert_int_equal(out3[1], 5); /* 9 / 2 = 4.5 */
  assert_int_equal(out3[2], 8); /* 15 / 2 = 7.5 */
  assert_int_equal(out3[3], 0); /* -90 clamped to the RELU bound */
}

/* The int16 pools are the int8 ones over int16: on a 5x5 input with a 3x3
 * window, stride 2 and one pixel of padding (clipped windows of 4, 6 and 9
 * taps), in two channels, their outputs equal the int8 kernels' on
 * int8-range values, and beyond that range the definition's: the largest
 * tap, or the window's sum over its taps rounded half away from zero,
 * clamped to the activation's bounds. */
static void int16_pools_are_the_int8_pools_over_the_int16_range(void **state) {
  (void)state;
  mpk_conv_geom g = pool_geom(5, 5, 3, 3, 3, 2, 1);
  g.in_c = g.out_c = 2;
  enum { N = 5 * 5 * 2, M = 3 * 3 * 2 };
  int16_t in16[N], out16[M];
  int8_t in8[N], out8[M];
  for (int i = 0; i < N; i++) {
    in8[i] = (int8_t)((i * 37) % 251 - 125);
    in16[i] = in8[i];
  }
  for (int is_max = 0; is_max < 2; is_max++) {
    mpk_pool_s8_params p8 = {.geom = g, .act_min = -100, .act_max = 100};
    mpk_pool_s8_params p16 = p8;
    memset(out16, GARBAGE, sizeof out16);
    assert_int_equal(is_max ? mpk_max_pool2d_s8(&p8, in8, out8, NULL)
                            : mpk_avg_pool2d_s8(&p8, in8, out8, NULL),
                     MPK_OK);
    assert_int_equal(is_max ? mpk_max_pool2d_s16(&p16, in16, out16, NULL)
                            : mpk_avg_pool2d_s16(&p16, in16, out16, NULL),
                     MPK_OK);
    for (int i = 0; i < M; i++)
      assert_int_equal(out16[i], out8[i]);
  }
  int16_t wide[N];
  for (int i = 0; i < N; i++)
    wide[i] = (int16_t)((i * 7919) % 65521 - 32760);
  mpk_pool_s8_params p = {.geom = g, .act_min = -30000, .act_max = 31000};
  int16_t avg[M], max[M];
  assert_int_equal(mpk_avg_pool2d_s16(&p, wide, avg, NULL), MPK_OK);
  assert_int_equal(mpk_max_pool2d_s16(&p, wide, max, NULL), MPK_OK);
  int n_clamped = 0;
  for (int oy = 0; oy < 3; oy++)
    for (int ox = 0; ox < 3; ox++)
      for (int c = 0; c < 2; c++) {
        long sum = 0, count = 0, hi = -32768;
        for (int y = oy * 2 - 1; y <= oy * 2 + 1; y++)
          for (int x = ox * 2 - 1; x <= ox * 2 + 1; x++) {
            if (y < 0 || y >= 5 || x < 0 || x >= 5) continue;
            int v = wide[(y * 5 + x) * 2 + c];
            sum += v;
            count++;
            if (v > hi) hi = v;
          }
        long mean = lround((double)sum / (double)count);
        long want_avg = mean < -30000 ? -30000 : mean > 31000 ? 31000 : mean;
        long want_max = hi < -30000 ? -30000 : hi > 31000 ? 31000 : hi;
        n_clamped += want_max != hi || want_avg != mean;
        int o = (oy * 3 + ox) * 2 + c;
        if (avg[o] != want_avg || max[o] != want_max)
          fail_msg("output (%d, %d, %d): average %d, max %d; the definition gives %ld and %ld", oy,
                   ox, c, avg[o], max[o], want_avg, want_max);
      }
  assert_true(n_clamped > 0);
}

static void max_pool_takes_the_largest_tap_then_clamps(void **state) {
  (void)state;
  mpk_pool_s8_params p = {.geom = pool_geom(3, 3, 2, 2, 2, 2, 0), .act_min = -128, .act_max = 8};
  const int8_t in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  int8_t out[4];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_max_pool2d_s8(&p, in, out, NULL), MPK_OK);
  const int8_t want[4] = {5, 6, 8, 8};
  assert_memory_equal(out, want, 4);
  mpk_pool_f32_params pf = {
      .geom = pool_geom(3, 3, 2, 2, 2, 2, 0), .act_min = -1e30f, .act_max = 1e30f};
  const float inf[9] = {-1, -2, -3, -4, -5, -6, -7, -8, -9};
  float outf[4];
  assert_int_equal(mpk_max_pool2d_f32(&pf, inf, outf, NULL), MPK_OK);
  assert_true(outf[0] == -1 && outf[1] == -3 && outf[2] == -7 && outf[3] == -9);
  assert_int_equal(mpk_avg_pool2d_f32(&pf, inf, outf, NULL), MPK_OK);
  assert_true(outf[0] == -3 && outf[1] == -4.5f && outf[3] == -9);
}

/* ADD with both inputs and the output at one scale: out = x1 + x2 + offsets. */
static mpk_add_s8_params add_same_scale(void) {
  mpk_add_s8_params p;
  memset(&p, 0, sizeof p);
  p.left_shift = 20;
  p.in1_multiplier = p.in2_multiplier = HALF; /* s / 2s */
  p.in1_shift = p.in2_shift = 0;
  p.out_multiplier = HALF; /* 2s / (2^20 s) = 2^-19 */
  p.out_shift = -18;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

static void add_rescales_offsets_and_broadcasts(void **state) {
  (void)state;
  mpk_add_s8_params p = add_same_scale();
  p.b.elementwise = 1;
  p.b.size = 4;
  p.in1_offset = 2; /* zero point -2 */
  p.out_offset = -1;
  const int8_t a[4] = {1, -5, 100, 7}, b[4] = {3, 4, 100, -9};
  int8_t out[4];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_add_s8(&p, a, b, out, NULL), MPK_OK);
  const int8_t want[4] = {5, 0, 127, -1};
  assert_memory_equal(out, want, 4);
  /* [2,3] + [3] broadcast along rows */
  mpk_add_s8_params q = add_same_scale();
  q.b.size = 6;
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    q.b.dims[d] = 1;
  q.b.dims[4] = 2;
  q.b.dims[5] = 3;
  q.b.in1_strides[4] = 3;
  q.b.in1_strides[5] = 1;
  q.b.in2_strides[5] = 1;
  const int8_t m[6] = {1, 2, 3, 4, 5, 6}, r[3] = {10, 20, 30};
  int8_t o[6];
  assert_int_equal(mpk_add_s8(&q, m, r, o, NULL), MPK_OK);
  const int8_t want2[6] = {11, 22, 33, 14, 25, 36};
  assert_memory_equal(o, want2, 6);
  q.b.dims[5] = 0; /* dims no longer multiply to size */
  assert_int_equal(mpk_add_s8(&q, m, r, o, NULL), MPK_ERR_PARAMS);
}

static void add_float_clamps(void **state) {
  (void)state;
  mpk_add_f32_params p = {.b = {.elementwise = 1, .size = 3}, .act_min = 0.0f, .act_max = 6.0f};
  const float a[3] = {1.5f, -3.0f, 5.0f}, b[3] = {0.25f, 1.0f, 5.0f};
  float out[3];
  assert_int_equal(mpk_add_f32(&p, a, b, out, NULL), MPK_OK);
  assert_true(out[0] == 1.75f && out[1] == 0.0f && out[2] == 6.0f);
}

/* ------------------------------------------------------------------------ */
/* Softmax, logistic, quantize                                              */
/* ------------------------------------------------------------------------ */

/* beta * scale = 1/16 as TFLite prepares it: multiplier and shift of
 * 2^26 / 16, radius from 5 integer bits. */
static mpk_softmax_s8_params softmax_params(int32_t outer, int32_t depth) {
  mpk_softmax_s8_params p = {.outer = outer, .depth = depth};
  p.input_multiplier = HALF; /* 2^22 = 0.5 * 2^23 */
  p.input_left_shift = 23;
  p.diff_min = -(int32_t)floor(31.0 * (1 << 26) / (double)(1 << 23)); /* -248 */
  return p;
}

static void softmax_of_equal_inputs_is_uniform(void **state) {
  (void)state;
  mpk_softmax_s8_params p = softmax_params(2, 4);
  const int8_t in[8] = {5, 5, 5, 5, -100, -100, -100, -100};
  int8_t out[8];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_softmax_s8(&p, in, out, NULL), MPK_OK);
  for (int i = 0; i < 8; i++)
    assert_int_equal(out[i], -64); /* 0.25 * 256 - 128 */
  int16_t out16[8];
  memset(out16, GARBAGE, sizeof out16);
  assert_int_equal(mpk_softmax_s8_s16(&p, in, out16, NULL), MPK_OK);
  for (int i = 0; i < 8; i++)
    assert_int_equal(out16[i], -16384); /* 0.25 * 65536 - 32768 */
}

static void softmax_follows_exp_and_cuts_below_diff_min(void **state) {
  (void)state;
  mpk_softmax_s8_params p = softmax_params(1, 3);
  /* differences 0, -16, -32 scaled by 1/16: exp(0), exp(-1), exp(-2) */
  const int8_t in[3] = {40, 24, 8};
  int8_t out[3];
  assert_int_equal(mpk_softmax_s8(&p, in, out, NULL), MPK_OK);
  double s = 1 + exp(-1) + exp(-2);
  for (int i = 0; i < 3; i++)
    assert_true(fabs(out[i] - (exp(-i) / s * 256 - 128)) <= 0.5 + 1e-6);
  /* a difference below diff_min gives the lowest output, and no share */
  p.diff_min = -20;
  assert_int_equal(mpk_softmax_s8(&p, in, out, NULL), MPK_OK);
  assert_int_equal(out[2], -128);
  double s2 = 1 + exp(-1);
  assert_true(fabs(out[0] - (1 / s2 * 256 - 128)) <= 0.5 + 1e-6);
}

static void softmax_float_sums_to_one(void **state) {
  (void)state;
  mpk_softmax_f32_params p = {.outer = 1, .depth = 3, .beta = 2.0f};
  const float in[3] = {1.0f, 2.0f, 3.0f};
  float out[3];
  assert_int_equal(mpk_softmax_f32(&p, in, out, NULL), MPK_OK);
  double s = exp(-4.0) + exp(-2.0) + 1.0;
  assert_true(fabs(out[2] - 1.0 / s) < 1e-6);
  assert_true(fabs(out[0] + out[1] + out[2] - 1.0) < 1e-6);
}

static void logistic_saturates_outside_its_radius(void **state) {
  (void)state;
  /* input scale 1/16: 2^27 / 16 = 2^23 = 0.5 * 2^24 */
  mpk_logistic_s8_params p = {
      .size = 5, .input_zero_point = 3, .input_multiplier = HALF, .input_left_shift = 24};
  p.input_range_radius = (int32_t)floor(15.0 * (1 << 27) / (double)(1 << 24)); /* 120 */
  const int8_t in[5] = {3, 127, -128, 19, -13}; /* 0, big, small, +1.0, -1.0 */
  int8_t out[5];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_logistic_s8(&p, in, out, NULL), MPK_OK);
  assert_int_equal(out[0], 0); /* 0.5 * 256 - 128 */
  assert_int_equal(out[1], 127);
  assert_int_equal(out[2], -128);
  assert_int_equal(out[3], (int)lround(256.0 / (1 + exp(-1.0))) - 128); /* 59 */
  assert_int_equal(out[4], (int)lround(256.0 / (1 + exp(1.0))) - 128);  /* -59 */
  mpk_logistic_f32_params pf = {.size = 3};
  const float x[3] = {0.0f, 20.0f, -12.0f};
  float y[3];
  assert_int_equal(mpk_logistic_f32(&pf, x, y, NULL), MPK_OK);
  assert_true(y[0] == 0.5f && y[1] == 1.0f && fabsf(y[2] - expf(-12.0f)) < 1e-12f);
}

static void quantize_rounds_half_away_and_saturates(void **state) {
  (void)state;
  mpk_quantize_params p = {.size = 6, .out_type = MPK_TYPE_INT8, .scale = 0.5f, .zero_point = 1};
  const float in[6] = {0.5f, -0.5f, 1.26f, 1000.0f, 0.25f, -0.25f};
  int8_t out[6];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_quantize_f32(&p, in, out, NULL), MPK_OK);
  const int8_t want[6] = {2, 0, 4, 127, 2, 0};
  assert_memory_equal(out, want, 6);
  p.out_type = MPK_TYPE_INT16;
  int16_t out16[6];
  assert_int_equal(mpk_quantize_f32(&p, in, out16, NULL), MPK_OK);
  assert_int_equal(out16[3], 2001);
  p.out_type = MPK_TYPE_INT32;
  assert_int_equal(mpk_quantize_f32(&p, in, out16, NULL), MPK_ERR_PARAMS);
}

static void requantize_converts_between_integer_types(void **state) {
  (void)state;
  mpk_requantize_params p = {.size = 4,
                             .in_type = MPK_TYPE_INT16,
                             .out_type = MPK_TYPE_INT8,
                             .input_zero_point = 0,
                             .output_zero_point = -1,
                             .multiplier = HALF,
                             .shift = 0};
  const int16_t in[4] = {100, -100, 3, 30000};
  int8_t out[4];
  assert_int_equal(mpk_requantize(&p, in, out, NULL), MPK_OK);
  const int8_t want[4] = {49, -51, 1, 127};
  assert_memory_equal(out, want, 4);
  p.out_type = MPK_TYPE_INT32;
  int32_t out32[4];
  assert_int_equal(mpk_requantize(&p, in, out32, NULL), MPK_OK);
  assert_int_equal(out32[3], 14999);
  p.in_type = MPK_TYPE_UINT8;
  p.out_type = MPK_TYPE_INT8;
  p.input_zero_point = 128;
  p.output_zero_point = 0;
  p.shift = 1; /* identity */
  p.size = 3;
  const uint8_t u[3] = {0, 128, 255};
  assert_int_equal(mpk_requantize(&p, u, out, NULL), MPK_OK);
  assert_int_equal(out[0], -128);
  assert_int_equal(out[1], 0);
  assert_int_equal(out[2], 127);
  p.in_type = 9;
  assert_int_equal(mpk_requantize(&p, u, out, NULL), MPK_ERR_PARAMS);
}

/* ------------------------------------------------------------------------ */
/* Data movement and mean                                                   */
/* ------------------------------------------------------------------------ */

static void set_dims(int32_t *d, int32_t a, int32_t b) {
  for (int i = 0; i < MPK_MAX_DIMS; i++)
    d[i] = 1;
  d[4] = a;
  d[5] = b;
}

static void pad_surrounds_the_input_with_the_pad_value(void **state) {
  (void)state;
  mpk_pad_params p;
  memset(&p, 0, sizeof p);
  p.elem_size = 1;
  set_dims(p.in_dims, 2, 2);
  set_dims(p.out_dims, 3, 4);
  p.before[4] = 1;
  p.before[5] = 1;
  p.value[0] = 0x80; /* int8 zero point -128 */
  const int8_t in[4] = {1, 2, 3, 4};
  int8_t out[12];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_pad(&p, in, out, NULL), MPK_OK);
  const int8_t want[12] = {-128, -128, -128, -128, -128, 1, 2, -128, -128, 3, 4, -128};
  assert_memory_equal(out, want, 12);
  /* float, value 0.5 */
  float half = 0.5f;
  p.elem_size = 4;
  memcpy(p.value, &half, 4);
  const float inf[4] = {1, 2, 3, 4};
  float outf[12];
  assert_int_equal(mpk_pad(&p, inf, outf, NULL), MPK_OK);
  assert_true(outf[0] == 0.5f && outf[5] == 1.0f && outf[10] == 4.0f && outf[11] == 0.5f);
  p.before[5] = 3; /* input would not fit */
  assert_int_equal(mpk_pad(&p, inf, outf, NULL), MPK_ERR_PARAMS);
}

static void transpose_walks_the_permuted_strides(void **state) {
  (void)state;
  mpk_transpose_params p;
  memset(&p, 0, sizeof p);
  p.elem_size = 2;
  set_dims(p.out_dims, 3, 2); /* [2,3] -> [3,2] */
  p.in_strides[4] = 1;
  p.in_strides[5] = 3;
  const int16_t in[6] = {1, 2, 3, 4, 5, 6};
  int16_t out[6];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_transpose(&p, in, out, NULL), MPK_OK);
  const int16_t want[6] = {1, 4, 2, 5, 3, 6};
  assert_memory_equal(out, want, sizeof want);
}

static void concat_interleaves_slices_of_each_input(void **state) {
  (void)state;
  const int32_t bytes[2] = {1, 2};
  mpk_concat_params p = {.n_inputs = 2, .outer = 2, .input_bytes = bytes};
  const int8_t a[2] = {1, 2}, b[4] = {10, 11, 20, 21};
  const void *ins[2] = {a, b};
  int8_t out[6];
  memset(out, GARBAGE, sizeof out);
  assert_int_equal(mpk_concat(&p, ins, out, NULL), MPK_OK);
  const int8_t want[6] = {1, 10, 11, 2, 20, 21};
  assert_memory_equal(out, want, 6);
}

/* SHAPE writes exactly rank int32 values, whatever the input holds, and
 * refuses a rank or dimension no tensor has. */
static void shape_writes_the_dimensions_and_nothing_else(void **state) {
  (void)state;
  mpk_shape_params p = {.rank = 3, .dims = {2, 1000, 7}};
  int32_t out[5] = {-9, -9, -9, -9, -9};
  assert_int_equal(mpk_shape(&p, NULL, out, NULL), MPK_OK);
  const int32_t want[5] = {2, 1000, 7, -9, -9};
  assert_memory_equal(out, want, sizeof want);
  p.rank = 0; /* a scalar's shape is empty: nothing written */
  out[0] = -9;
  assert_int_equal(mpk_shape(&p, NULL, out, NULL), MPK_OK);
  assert_int_equal(out[0], -9);
  p.rank = MPK_MAX_DIMS + 1;
  assert_int_equal(mpk_shape(&p, NULL, out, NULL), MPK_ERR_PARAMS);
  p.rank = 2;
  p.dims[1] = -1;
  assert_int_equal(mpk_shape(&p, NULL, out, NULL), MPK_ERR_PARAMS);
}

static void copy_moves_bytes(void **state) {
  (void)state;
  mpk_copy_params p = {.bytes = 5};
  const uint8_t in[5] = {1, 2, 3, 4, 5};
  uint8_t out[5];
  assert_int_equal(mpk_copy(&p, in, out, NULL), MPK_OK);
  assert_memory_equal(in, out, 5);
  assert_int_equal(mpk_copy(&p, out, out, NULL), MPK_OK); /* in place: nothing to do */
  p.bytes = -1;
  assert_int_equal(mpk_copy(&p, in, out, NULL), MPK_ERR_PARAMS);
}

/* A corpus file (malloc'd) of exactly `size` bytes. */
static uint8_t *corpus_file(const char *dir, const char *file, size_t size) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  uint8_t *data = NULL;
  size_t n = 0;
  if (mp_read_file(path, &data, &n, NULL) != MP_OK) fail_msg("cannot read %s", path);
  if (n != size) fail_msg("%s: %zu bytes, the tensor has %zu", path, n, size);
  return data;
}

/* The integer MEAN kernels round like TFLM's integer QuantizedMeanOrSum:
 * every case of the conformance corpus's mean_<dtype> folder (TFLM's own
 * outputs), lowered by memplan and run with its scratch and output full of
 * garbage, must give TFLM's bytes.  Returns the number of cases. */
static int mean_matches_tflm_on_the_corpus(const char *folder, mp_kernel kernel, size_t elem) {
  const char *root = tu_conformance_dir();
  if (!root) return 0;
  int n_cases = 0, n_rounded = 0;
  for (;; n_cases++) {
    char dir[4200], model[4300];
    snprintf(dir, sizeof dir, "%s/%s/%03d", root, folder, n_cases);
    snprintf(model, sizeof model, "%s/model.tflite", dir);
    FILE *f = fopen(model, "rb");
    if (!f) break;
    fclose(f);
    tu_diags d;
    tu_diags_init(&d);
    mp_model *m = NULL;
    mp_graph *g = NULL;
    mp_graph_options opt = {.alias_views = true};
    assert_int_equal(mp_model_load(model, &d.sink, &m), MP_OK);
    assert_int_equal(mp_graph_build(m, 0, &opt, &d.sink, &g), MP_OK);
    mp_lowered_op lo;
    memset(&lo, 0, sizeof lo);
    assert_int_equal(mp_lower_op(g, 0, &lo, &d.sink), MP_OK);
    assert_int_equal(lo.kernel, kernel);
    const mpk_mean_s8_params *p = &lo.params.mean_s8;
    const mp_op *op = &g->ops[0];
    size_t in_size = (size_t)g->tensors[op->inputs[0]].size;
    size_t out_size = (size_t)g->tensors[op->outputs[0]].size;
    assert_int_equal(out_size, p->out_size * elem);
    uint8_t *in = corpus_file(dir, "input0.bin", in_size);
    uint8_t *want = corpus_file(dir, "output0.bin", out_size);
    uint8_t *out = malloc(out_size);
    void *scratch = malloc((size_t)lo.scratch_bytes);
    assert_non_null(out);
    assert_non_null(scratch);
    memset(out, GARBAGE, out_size);
    memset(scratch, GARBAGE, (size_t)lo.scratch_bytes);
    if (elem == 2)
      assert_int_equal(mpk_mean_s16(p, (const int16_t *)(void *)in, (int16_t *)(void *)out, scratch),
                       MPK_OK);
    else
      assert_int_equal(mpk_mean_s8(p, (const int8_t *)in, (int8_t *)out, scratch), MPK_OK);
    for (int32_t i = 0; i < p->out_size; i++) {
      int32_t got, exp;
      if (elem == 2) {
        int16_t g16, w16;
        memcpy(&g16, out + 2 * i, 2);
        memcpy(&w16, want + 2 * i, 2);
        got = g16, exp = w16;
      } else {
        got = (int8_t)out[i], exp = (int8_t)want[i];
      }
      if (got != exp)
        fail_msg("%s/%03d: output %d is %d, TFLM has %d", folder, n_cases, i, got, exp);
    }
    /* the cases where the mean is not a whole number of output steps are
     * the ones that tell TFLM's rounding from another */
    n_rounded += p->count > 1;
    free(scratch);
    free(out);
    free(want);
    free(in);
    mp_lower_free(&lo);
    mp_graph_free(&g);
    mp_model_free(&m);
  }
  assert_true(n_cases > 0);
  assert_true(n_rounded > 0);
  print_message("  %d corpus cases of %s match TFLM\n", n_cases, folder);
  return n_cases;
}

static void mean_s8_clears_its_garbage_scratch_and_matches_tflm_on_the_corpus(void **state) {
  (void)state;
  mean_matches_tflm_on_the_corpus("mean_int8", MP_K_MEAN_S8, 1);
}

static void mean_s16_clears_its_garbage_scratch_and_matches_tflm_on_the_corpus(void **state) {
  (void)state;
  mean_matches_tflm_on_the_corpus("mean_int16", MP_K_MEAN_S16, 2);
}

static void mean_refuses_missing_scratch_and_averages_floats(void **state) {
  (void)state;
  /* [1,2,2,2] mean over H and W -> 2 outputs */
  mpk_mean_s8_params p;
  memset(&p, 0, sizeof p);
  for (int d = 0; d < MPK_MAX_DIMS; d++)
    p.in_dims[d] = 1;
  p.in_dims[3] = 2;
  p.in_dims[4] = 2;
  p.in_dims[5] = 2;
  p.out_strides[5] = 1;
  p.out_size = 2;
  p.count = 4;
  p.multiplier = HALF;
  p.shift = -1; /* 1 / 4 */
  const int8_t in[8] = {1, -1, 2, -2, 3, -3, 5, -4};
  int8_t out[2];
  assert_int_equal(mpk_mean_s8(&p, in, out, NULL), MPK_ERR_PARAMS);
  int32_t scratch[2];
  p.shift = -32;
  assert_int_equal(mpk_mean_s8(&p, in, out, scratch), MPK_ERR_PARAMS);
  mpk_mean_f32_params pf;
  memset(&pf, 0, sizeof pf);
  memcpy(pf.in_dims, p.in_dims, sizeof pf.in_dims);
  memcpy(pf.out_strides, p.out_strides, sizeof pf.out_strides);
  pf.out_size = 2;
  pf.count = 4;
  const float inf[8] = {1, -1, 2, -2, 3, -3, 5, -4};
  float outf[2] = {99, 99};
  assert_int_equal(mpk_mean_f32(&pf, inf, outf, NULL), MPK_OK);
  assert_true(outf[0] == 2.75f && outf[1] == -2.5f);
}

/* ------------------------------------------------------------------------ */
/* Portability                                                              */
/* ------------------------------------------------------------------------ */

/* Float SVDF against its definition written as a history rather than a
 * sliding window: after step t, output[b][u] = act(bias[u] + sum over the
 * rank filters f of unit u of sum_m weights_time[f][m] * feature[t - (M - 1
 * - m)][b][f]), feature[s][b][f] = sum_i weights_feature[f][i] *
 * input[s][b][i] and 0 before the first step.  Each fused activation TFLite
 * Micro applies to a float SVDF (NONE, RELU, RELU_N1_TO_1, RELU6, TANH,
 * SIGN_BIT) runs four steps with the state kept between them. */
static void float_svdf_follows_its_history_with_every_fused_activation(void **state) {
  (void)state;
  enum { B = 2, I = 3, U = 2, R = 2, F = U * R, M = 3, T = 4 };
  static const float wf[F][I] = {
      {0.5f, -1.0f, 0.25f}, {1.5f, 0.5f, -0.75f}, {-0.5f, 0.25f, 1.0f}, {0.75f, -1.25f, 0.5f}};
  static const float wt[F][M] = {
      {0.5f, -0.25f, 1.0f}, {-1.0f, 0.5f, 0.75f}, {0.25f, 1.0f, -0.5f}, {1.25f, -0.75f, 0.5f}};
  static const float bias[U] = {0.125f, -0.375f};
  float in[T][B][I];
  for (int t = 0; t < T; t++)
    for (int b = 0; b < B; b++)
      for (int i = 0; i < I; i++)
        in[t][b][i] = (float)((t * 7 + b * 5 + i * 3) % 11 - 5) * 0.5f;
  float feature[T][B][F];
  for (int t = 0; t < T; t++)
    for (int b = 0; b < B; b++)
      for (int f = 0; f < F; f++) {
        float d = 0.0f;
        for (int i = 0; i < I; i++)
          d += wf[f][i] * in[t][b][i];
        feature[t][b][f] = d;
      }
  int n_negative = 0, n_positive = 0;
  for (int32_t act = MPK_ACT_NONE; act <= MPK_ACT_SIGN_BIT; act++) {
    mpk_svdf_f32_params p = {{B, I, F, U, R, M}, act};
    float st[B * F * M], scratch[B * F], out[B * U];
    memset(st, 0, sizeof st); /* context_init zeroes the state */
    for (int t = 0; t < T; t++) {
      memset(scratch, 0xA5, sizeof scratch);
      assert_int_equal(mpk_svdf_f32(&p, &in[t][0][0], &wf[0][0], &wt[0][0], bias, st, out, scratch),
                       MPK_OK);
      for (int b = 0; b < B; b++)
        for (int u = 0; u < U; u++) {
          double v = bias[u];
          for (int r = 0; r < R; r++)
            for (int m = 0; m < M; m++) {
              int s = t - (M - 1 - m), f = u * R + r;
              if (s >= 0) v += (double)wt[f][m] * (double)feature[s][b][f];
            }
          double want;
          switch (act) {
          case MPK_ACT_RELU: want = v < 0.0 ? 0.0 : v; break;
          case MPK_ACT_RELU_N1_TO_1: want = v < -1.0 ? -1.0 : v > 1.0 ? 1.0 : v; break;
          case MPK_ACT_RELU6: want = v < 0.0 ? 0.0 : v > 6.0 ? 6.0 : v; break;
          case MPK_ACT_TANH: want = tanh(v); break;
          case MPK_ACT_SIGN_BIT: want = v < 0.0 ? 1.0 : 0.0; break;
          default: want = v; break;
          }
          n_negative += act == MPK_ACT_NONE && v < -1.0;
          n_positive += act == MPK_ACT_NONE && v > 1.0;
          double got = out[b * U + u];
          if (fabs(got - want) > 1e-5 + 1e-5 * fabs(want))
            fail_msg("activation %d, step %d, output [%d][%d]: %g, the definition gives %g",
                     (int)act, t, b, u, got, want);
        }
    }
  }
  /* the sweep reaches both clamps and both signs */
  assert_true(n_negative > 0 && n_positive > 0);
}

/* The int16 logistic's table against the sigmoid it samples: the
 * least-squares continuous piecewise-linear fit of 65536 sigmoid(x) on the
 * table's knots x = k / 24 (normal equations of the hat functions over 64
 * midpoints a segment, a tridiagonal system) rounds to 244 of its 256
 * entries and is within one of every other, as mpk_act.h says. */
static void the_int16_sigmoid_table_is_the_rounded_least_squares_fit_within_one(void **state) {
  (void)state;
  enum { K = 256, S = 64 };
  static double diag[K], off[K], rhs[K], fit[K];
  memset(diag, 0, sizeof diag);
  memset(off, 0, sizeof off);
  memset(rhs, 0, sizeof rhs);
  for (int k = 0; k + 1 < K; k++)
    for (int j = 0; j < S; j++) {
      double t = (j + 0.5) / S, x = (k + t) / 24.0, y = 65536.0 / (1.0 + exp(-x));
      diag[k] += (1 - t) * (1 - t);
      diag[k + 1] += t * t;
      off[k] += (1 - t) * t;
      rhs[k] += (1 - t) * y;
      rhs[k + 1] += t * y;
    }
  for (int k = 1; k < K; k++) { /* forward elimination */
    double m = off[k - 1] / diag[k - 1];
    diag[k] -= m * off[k - 1];
    rhs[k] -= m * rhs[k - 1];
  }
  fit[K - 1] = rhs[K - 1] / diag[K - 1];
  for (int k = K - 2; k >= 0; k--)
    fit[k] = (rhs[k] - off[k] * fit[k + 1]) / diag[k];
  int exact = 0;
  for (int k = 0; k < K; k++) {
    double r = floor(fit[k] + 0.5);
    if (r > 65535.0) r = 65535.0;
    if (fabs(r - (double)mpk_sigmoid_table[k]) > 1.0)
      fail_msg("entry %d: %u, the fit gives %.2f", k, mpk_sigmoid_table[k], fit[k]);
    exact += r == (double)mpk_sigmoid_table[k];
  }
  assert_int_equal(exact, 244);
}

static void kernels_compile_as_strict_c99_for_host_and_cortex_m(void **state) {
  (void)state;
  const char *flags = "-std=c99 -Wall -Wextra -Werror -O2 -c";
  const char *dir = tu_tmpdir();
  const char *hosts[] = {"gcc", "clang"};
  for (int i = 0; i < 2; i++) {
    if (tu_system("command -v %s >/dev/null 2>&1", hosts[i]) != 0) continue;
    assert_int_equal(tu_system("for f in runtime/kernels/*/*.c; do %s %s -pedantic -Iruntime/kernels $f -o %s/k.o "
                               "|| exit 1; done",
                               hosts[i], flags, dir),
                     0);
  }
  if (tu_system("command -v arm-none-eabi-gcc >/dev/null 2>&1") != 0) {
    fprintf(stderr, "NOTICE: arm-none-eabi-gcc not found: Cortex-M builds not checked\n");
  } else {
    const char *cpus[] = {"-mcpu=cortex-m55 -mthumb",
                          "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"};
    for (int i = 0; i < 2; i++)
      assert_int_equal(tu_system("for f in runtime/kernels/*/*.c; do arm-none-eabi-gcc %s %s -Iruntime/kernels $f "
                                 "-o %s/k.o || exit 1; done",
                                 cpus[i], flags, dir),
                       0);
  }
  tu_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(srdhm_rounds_half_up_and_saturates),
      cmocka_unit_test(rounding_divide_by_pot_rounds_half_away_from_zero),
      cmocka_unit_test(multiply_by_quantized_multiplier_shifts_both_ways),
      cmocka_unit_test(saturating_shift_and_rescale_saturate),
      cmocka_unit_test(exp_on_negative_values_follows_exp),
      cmocka_unit_test(one_over_one_plus_x_and_logistic_are_close_to_real),
      cmocka_unit_test(reciprocal_reports_the_bits_over_unit),
      cmocka_unit_test(conv_valid_stride_one_sums_each_window),
      cmocka_unit_test(conv_same_stride_two_skips_the_padding),
      cmocka_unit_test(conv_with_top_left_padding_shifts_the_window),
      cmocka_unit_test(conv_dilation_spreads_the_taps),
      cmocka_unit_test(conv_requantises_per_channel_with_bias_and_clamps),
      cmocka_unit_test(grouped_conv_reads_its_group_of_channels),
      cmocka_unit_test(depthwise_applies_the_depth_multiplier),
      cmocka_unit_test(float_convolutions_clamp_to_the_activation),
      cmocka_unit_test(conv_rejects_inconsistent_params),
      cmocka_unit_test(init_hooks_check_filter_and_bias_alignment),
      cmocka_unit_test(window_kernels_write_their_output_at_strides_and_nothing_else),
      cmocka_unit_test(conv16_in_32_bits_is_the_int8_convolution_on_int8_range_integers),
      cmocka_unit_test(conv16_in_32_bits_wraps_its_accumulator),
      cmocka_unit_test(kernels_without_output_strides_refuse_a_strided_geometry),
      cmocka_unit_test(fully_connected_applies_both_offsets_and_the_bias),
      cmocka_unit_test(fully_connected_float_matches_a_dot_product),
      cmocka_unit_test(average_pool_rounds_half_away_and_ignores_padding),
      cmocka_unit_test(max_pool_takes_the_largest_tap_then_clamps),
      cmocka_unit_test(int16_pools_are_the_int8_pools_over_the_int16_range),
      cmocka_unit_test(add_rescales_offsets_and_broadcasts),
      cmocka_unit_test(add_float_clamps),
      cmocka_unit_test(softmax_of_equal_inputs_is_uniform),
      cmocka_unit_test(softmax_follows_exp_and_cuts_below_diff_min),
      cmocka_unit_test(softmax_float_sums_to_one),
      cmocka_unit_test(logistic_saturates_outside_its_radius),
      cmocka_unit_test(quantize_rounds_half_away_and_saturates),
      cmocka_unit_test(requantize_converts_between_integer_types),
      cmocka_unit_test(pad_surrounds_the_input_with_the_pad_value),
      cmocka_unit_test(transpose_walks_the_permuted_strides),
      cmocka_unit_test(concat_interleaves_slices_of_each_input),
      cmocka_unit_test(copy_moves_bytes),
      cmocka_unit_test(shape_writes_the_dimensions_and_nothing_else),
      cmocka_unit_test(mean_s8_clears_its_garbage_scratch_and_matches_tflm_on_the_corpus),
      cmocka_unit_test(mean_s16_clears_its_garbage_scratch_and_matches_tflm_on_the_corpus),
      cmocka_unit_test(mean_refuses_missing_scratch_and_averages_floats),
      cmocka_unit_test(float_svdf_follows_its_history_with_every_fused_activation),
      cmocka_unit_test(the_int16_sigmoid_table_is_the_rounded_least_squares_fit_within_one),
      cmocka_unit_test(kernels_compile_as_strict_c99_for_host_and_cortex_m),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
