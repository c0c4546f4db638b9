/*
 * test_kernels_fast.c — the specialised kernels (runtime/kernels/
 * mpk_*_fast.c, mpk_simd.h) against the reference
 * kernels, byte for byte, on random shapes: odd channel counts and depths
 * that leave every tail of the vector loops, strides, dilations, padding on
 * every side, depth multipliers, per-tensor and per-channel multipliers,
 * fused clamps, outputs at strides (a slice of a larger tensor, the bytes
 * between them left as they were).  Outputs sit between guard bytes and start out as garbage,
 * the scratch too, so a kernel that writes outside its output or reads what
 * it did not write fails.  The folded bias is computed here from its
 * definition (bias + input_offset * sum of the filter row).
 *
 * On the host this runs the kernels' portable paths; test_golden runs the
 * Helium and DSP paths on emulated cores, on the corpus models.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* strong references: the kernels come from libmemplan.a (see mpk.h) */
#define MPK_API
#include "mpk.h"
#include "cm/mpk_simd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 32
#define GUARD_BYTE 0x5A

static uint32_t rng = 2463534242u;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
static int32_t range(int32_t lo, int32_t hi) { return lo + (int32_t)(next() % (uint32_t)(hi - lo + 1)); }

/* A buffer of n bytes between two guards, filled with garbage. */
static int8_t *guarded(size_t n) {
  uint8_t *p = malloc(n + 2 * GUARD);
  assert_non_null(p);
  memset(p, GUARD_BYTE, GUARD);
  memset(p + GUARD + n, GUARD_BYTE, GUARD);
  for (size_t i = 0; i < n; i++) p[GUARD + i] = (uint8_t)next();
  return (int8_t *)(p + GUARD);
}

static void check_guards(const int8_t *b, size_t n, const char *what) {
  const uint8_t *p = (const uint8_t *)b - GUARD;
  for (size_t i = 0; i < GUARD; i++)
    if (p[i] != GUARD_BYTE || p[GUARD + n + i] != GUARD_BYTE)
      fail_msg("%s: a guard byte around the output changed", what);
}

static void release(int8_t *b) { free((uint8_t *)b - GUARD); }

static void random_s8(int8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (int8_t)next();
}

/* Random requantisation of n channels: multipliers in [2^30, 2^31), shifts
 * that keep the accumulators' scale (in half of the calls right shifts
 * only, as per-channel quantisation gives, which the kernels run by a
 * shorter sequence; else some left shifts and zeros too), offsets, and a
 * clamp. */
/* With dead_channels set, about one channel in five gets multiplier 0
 * (a channel whose scale the quantisation found to be 0), its shift 0 as a
 * rule and now and then another, among right shifts only or not: the
 * Helium kernels run such a layer by their right-shift sequence.  With
 * wide_conv set, one_conv draws deep columns and more output channels (the
 * kernels' four-row, two-pixel blocks and their tails). */
static int dead_channels, wide_conv;

static void random_requant(mpk_requant *q, int32_t *mult, int32_t *shift, int32_t n,
                           int per_channel) {
  q->input_offset = range(-127, 128);
  q->filter_offset = 0;
  q->output_offset = range(-128, 127);
  q->act_min = range(-128, 0);
  q->act_max = range(q->act_min, 127);
  q->per_channel = per_channel;
  const int right_only = (int)(next() & 1);
  for (int32_t i = 0; i < n; i++) {
    mult[i] = (int32_t)((1u << 30) + (next() >> 2));
    shift[i] = right_only ? range(-14, -1) : range(-14, 1);
    if (dead_channels && next() % 5 == 0) {
      mult[i] = 0;
      shift[i] = next() % 4 ? 0 : range(-3, 2);
    }
  }
  q->multiplier = mult;
  q->shift = shift;
}

static void fold_bias(const int8_t *filter, const int32_t *bias, int32_t off, int32_t rows,
                      int32_t taps, size_t row_stride, size_t tap_stride, int32_t *out) {
  for (int32_t r = 0; r < rows; r++) {
    uint32_t sum = 0;
    for (int32_t k = 0; k < taps; k++) sum += (uint32_t)(int32_t)filter[r * row_stride + k * tap_stride];
    uint32_t v = (uint32_t)(bias ? bias[r] : 0) + (uint32_t)off * sum;
    memcpy(&out[r], &v, 4);
  }
}

/* mpk_mbqm_r2 (the DSP and portable right-shift requantisation) against
 * the reference over its whole domain: multipliers in (2^30, 2^31),
 * shifts -2 to -31, any accumulator, the extremes often. */
static void mbqm_r2_equals_the_reference_rounding(void **state) {
  (void)state;
  static const int32_t special[] = {MPK_I32_MIN, MPK_I32_MIN + 1, -1, 0, 1, MPK_I32_MAX,
                                    MPK_I32_MAX - 1, 1 << 30, -(1 << 30), 3, -3};
  const int ns = (int)(sizeof special / sizeof special[0]);
  for (int i = 0; i < 2000000; i++) {
    int32_t x = (int32_t)next(), sh = range(-31, -2);
    int32_t m = (int32_t)((1u << 30) + 1u + next() % ((1u << 30) - 1u));
    if (i % 7 == 0) x = special[next() % (uint32_t)ns];
    if (i % 13 == 0) m = i % 2 ? (1 << 30) + 1 : MPK_I32_MAX;
    if (i % 5 == 0) x >>= next() % 31;
    if (i % 3 == 0 && sh >= -14) /* ties and their neighbours after the first rounding */
      x = (int32_t)(range(-100000, 100000) * ((int64_t)1 << (31 - sh)) / m) + range(-2, 2);
    if (mpk_mbqm(x, m, sh) != mpk_mbqm_r2(x, m, sh))
      fail_msg("mbqm(%d, %d, %d): reference %d, r2 %d", x, m, sh, mpk_mbqm(x, m, sh),
               mpk_mbqm_r2(x, m, sh));
  }
}

static void mbqm_fast_equals_the_reference_rounding(void **state) {
  (void)state;
  static const int32_t special[] = {MPK_I32_MIN, MPK_I32_MIN + 1, -1, 0, 1, MPK_I32_MAX,
                                    MPK_I32_MAX - 1, 1 << 30, -(1 << 30), 3, -3};
  const int ns = (int)(sizeof special / sizeof special[0]);
  for (int i = 0; i < 2000000; i++) {
    int32_t x = (int32_t)next(), m = (int32_t)next(), sh = range(-31, 31);
    if (i % 7 == 0) x = special[next() % (uint32_t)ns];
    if (i % 11 == 0) m = special[next() % (uint32_t)ns];
    if (i % 5 == 0) x >>= next() % 31;
    if (mpk_mbqm(x, m, sh) != mpk_mbqm_fast(x, m, sh))
      fail_msg("mbqm(%d, %d, %d): reference %d, fast %d", x, m, sh, mpk_mbqm(x, m, sh),
               mpk_mbqm_fast(x, m, sh));
  }
}

/* Random strides up to max_stride, dilations, padding (none when
 * `no_pad`) and an input of up to max_in pixels a side that the window
 * fits; the output size follows. */
static void random_spatial(mpk_conv_geom *g, int32_t max_stride, int32_t max_in, int no_pad) {
  g->stride_h = range(1, max_stride);
  g->stride_w = range(1, max_stride);
  g->dilation_h = range(1, 2);
  g->dilation_w = range(1, 2);
  g->pad_h = no_pad ? 0 : range(0, g->filter_h - 1);
  g->pad_w = no_pad ? 0 : range(0, g->filter_w - 1);
  g->in_h = range(g->dilation_h * (g->filter_h - 1) + 1, max_in);
  g->in_w = range(g->dilation_w * (g->filter_w - 1) + 1, max_in);
  g->out_h = (g->in_h + 2 * g->pad_h - g->dilation_h * (g->filter_h - 1) - 1) / g->stride_h + 1;
  g->out_w = (g->in_w + 2 * g->pad_w - g->dilation_w * (g->filter_w - 1) - 1) / g->stride_w + 1;
}

/* One case in three writes its output at strides: a slice of the
 * channels of every pixel, of the columns of every row or of the rows of
 * every image of a larger tensor (an elided concatenation's input), the
 * same for both kernels.  The elements from the output's first to its
 * last. */
static size_t random_out_strides(mpk_conv_geom *g) {
  if (next() % 3)
    return (size_t)g->batches * (size_t)g->out_h * (size_t)g->out_w * (size_t)g->out_c;
  const int32_t extra = range(1, 5);
  switch (next() % 3) {
  case 0: g->out_pixel_stride = g->out_c + extra; break;
  case 1: g->out_row_stride = g->out_w * g->out_c + extra; break;
  default: g->out_batch_stride = g->out_h * g->out_w * g->out_c + extra; break;
  }
  const mpk_out_strides s = mpk_geom_out_strides(g);
  return (size_t)(g->batches - 1) * (size_t)s.batch + (size_t)(g->out_h - 1) * (size_t)s.row +
         (size_t)(g->out_w - 1) * (size_t)s.pixel + (size_t)g->out_c;
}

/* One random CONV_2D (groups of 1), reference against the specialised
 * kernel the lowering would pick. */
static void one_conv(int n) {
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.batches = range(1, 2);
  g.filter_h = range(1, 4);
  g.filter_w = range(1, 4);
  g.in_c = g.filter_c = wide_conv ? range(1, 300) : range(1, 37);
  g.out_c = wide_conv ? range(1, 40) : range(1, 19);
  if (wide_conv && next() % 2) g.filter_h = g.filter_w = 1;
  int direct = g.filter_h == 1 && g.filter_w == 1 && next() % 2;
  random_spatial(&g, 3, 9, direct);
  size_t in_n = (size_t)g.batches * g.in_h * g.in_w * g.in_c;
  size_t out_n = random_out_strides(&g);
  int32_t col = g.filter_h * g.filter_w * g.in_c;
  int8_t *in = guarded(in_n), *filter = guarded((size_t)g.out_c * col);
  int8_t *want = guarded(out_n), *got = guarded(out_n), *scratch = guarded(2 * (size_t)col);
  memcpy(got, want, out_n); /* the same bytes between strided outputs */
  random_s8(in, in_n);
  random_s8(filter, (size_t)g.out_c * col);
  int32_t bias[40], mult[40], shift[40], fb[40];
  for (int32_t i = 0; i < g.out_c; i++) bias[i] = range(-5000, 5000);
  mpk_conv_s8_params ref = {g, {0}};
  random_requant(&ref.q, mult, shift, g.out_c, 1);
  fold_bias(filter, bias, ref.q.input_offset, g.out_c, col, (size_t)col, 1, fb);
  mpk_conv_s8_fast_params fast = {g, ref.q, fb, col};
  assert_int_equal(mpk_conv2d_s8(&ref, in, filter, bias, want, NULL), MPK_OK);
  int32_t st = direct ? mpk_conv2d_s8_1x1(&fast, in, filter, bias, got, NULL)
                      : mpk_conv2d_s8_im2col(&fast, in, filter, bias, got, scratch);
  assert_int_equal(st, MPK_OK);
  char what[200];
  snprintf(what, sizeof what, "conv case %d (%s, %dx%dx%d -> %d, filter %dx%d, stride %d/%d, "
           "dilation %d/%d, pad %d/%d)", n, direct ? "1x1" : "im2col", g.in_h, g.in_w, g.in_c,
           g.out_c, g.filter_h, g.filter_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w,
           g.pad_h, g.pad_w);
  if (memcmp(want, got, out_n) != 0) fail_msg("%s: outputs differ", what);
  check_guards(got, out_n, what);
  release(in);
  release(filter);
  release(want);
  release(got);
  release(scratch);
}

static void one_depthwise(int n) {
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.batches = range(1, 2);
  g.filter_h = range(1, 4);
  g.filter_w = range(1, 4);
  g.in_c = range(1, 13);
  g.depth_multiplier = next() % 3 ? 1 : range(2, 4);
  /* one input channel, many outputs (a first layer): its own loops */
  if (g.in_c == 1 && next() % 2) g.depth_multiplier = range(4, 19);
  g.out_c = g.in_c * g.depth_multiplier;
  random_spatial(&g, 2, 10, 0);
  size_t in_n = (size_t)g.batches * g.in_h * g.in_w * g.in_c;
  size_t out_n = random_out_strides(&g);
  int32_t taps = g.filter_h * g.filter_w;
  int8_t *in = guarded(in_n), *filter = guarded((size_t)taps * g.out_c);
  int8_t *want = guarded(out_n), *got = guarded(out_n);
  memcpy(got, want, out_n);
  random_s8(in, in_n);
  random_s8(filter, (size_t)taps * g.out_c);
  int32_t bias[52], mult[52], shift[52], fb[52];
  for (int32_t i = 0; i < g.out_c; i++) bias[i] = range(-5000, 5000);
  mpk_conv_s8_params ref = {g, {0}};
  random_requant(&ref.q, mult, shift, g.out_c, 1);
  fold_bias(filter, bias, ref.q.input_offset, g.out_c, taps, 1, (size_t)g.out_c, fb);
  mpk_conv_s8_fast_params fast = {g, ref.q, fb, 0};
  assert_int_equal(mpk_depthwise_conv2d_s8(&ref, in, filter, bias, want, NULL), MPK_OK);
  assert_int_equal(mpk_depthwise_conv2d_s8_fast(&fast, in, filter, bias, got, NULL), MPK_OK);
  char what[200];
  snprintf(what, sizeof what, "depthwise case %d (%dx%dx%d x%d, filter %dx%d, stride %d/%d, "
           "dilation %d/%d, pad %d/%d)", n, g.in_h, g.in_w, g.in_c, g.depth_multiplier,
           g.filter_h, g.filter_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, g.pad_h,
           g.pad_w);
  if (memcmp(want, got, out_n) != 0) fail_msg("%s: outputs differ", what);
  check_guards(got, out_n, what);
  release(in);
  release(filter);
  release(want);
  release(got);
}

static void one_fc(int n) {
  int32_t batches = range(1, 3), depth = range(1, 70), outs = range(1, 21);
  int per_channel = (int)(next() % 2);
  int8_t *in = guarded((size_t)batches * depth), *filter = guarded((size_t)outs * depth);
  int8_t *want = guarded((size_t)batches * outs), *got = guarded((size_t)batches * outs);
  random_s8(in, (size_t)batches * depth);
  random_s8(filter, (size_t)outs * depth);
  int32_t bias[21], mult[21], shift[21], fb[21];
  for (int32_t i = 0; i < outs; i++) bias[i] = range(-5000, 5000);
  mpk_fc_s8_params ref = {batches, depth, outs, {0}};
  random_requant(&ref.q, mult, shift, per_channel ? outs : 1, per_channel);
  fold_bias(filter, bias, ref.q.input_offset, outs, depth, (size_t)depth, 1, fb);
  mpk_fc_s8_fast_params fast = {batches, depth, outs, ref.q, fb};
  assert_int_equal(mpk_fully_connected_s8(&ref, in, filter, bias, want, NULL), MPK_OK);
  assert_int_equal(mpk_fully_connected_s8_fast(&fast, in, filter, bias, got, NULL), MPK_OK);
  if (memcmp(want, got, (size_t)batches * outs) != 0)
    fail_msg("fully connected case %d (%d x %d -> %d, per channel %d): outputs differ", n,
             batches, depth, outs, per_channel);
  check_guards(got, (size_t)batches * outs, "fully connected");
  release(in);
  release(filter);
  release(want);
  release(got);
}

/* The buffers of one elementwise binary case: two random inputs, the
 * reference's output and the specialised kernel's, all guarded. */
typedef struct binary_case {
  int32_t size;
  int8_t *a, *b, *want, *got;
} binary_case;

static binary_case binary_open(void) {
  binary_case x;
  x.size = range(1, 70);
  x.a = guarded((size_t)x.size);
  x.b = guarded((size_t)x.size);
  x.want = guarded((size_t)x.size);
  x.got = guarded((size_t)x.size);
  random_s8(x.a, (size_t)x.size);
  random_s8(x.b, (size_t)x.size);
  return x;
}

/* Compare the two outputs (what, case n, `in_place` for the rerun with the
 * output over an input), then check the guards. */
static void binary_check(const binary_case *x, const char *what, int n, int in_place) {
  if (memcmp(x->want, x->got, (size_t)x->size) != 0)
    fail_msg("%s case %d (%d elements%s): outputs differ", what, n, x->size,
             in_place ? ", in place" : "");
  check_guards(x->got, (size_t)x->size, what);
}

static void binary_close(binary_case *x) {
  release(x->a);
  release(x->b);
  release(x->want);
  release(x->got);
}

static void one_add(int n) {
  binary_case x = binary_open();
  const int32_t size = x.size;
  int8_t *a = x.a, *b = x.b, *want = x.want, *got = x.got;
  mpk_add_s8_params p;
  memset(&p, 0, sizeof p);
  p.b.elementwise = 1;
  p.b.size = size;
  p.left_shift = 20;
  p.in1_offset = range(-127, 128);
  p.in2_offset = range(-127, 128);
  p.out_offset = range(-128, 127);
  p.in1_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  p.in2_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  p.out_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  /* right shifts or none as the quantised add gives (one input's shift
   * is 0 as a rule), and in one case of four a left shift or an output
   * shift of 0, which the kernels run by the general sequence */
  p.in1_shift = range(-3, 0);
  p.in2_shift = n % 3 == 0 ? 0 : range(-3, 0);
  p.out_shift = range(-22, -16);
  if (n % 4 == 1) p.in1_shift = range(1, 2);
  if (n % 4 == 3) p.out_shift = 0;
  p.act_min = range(-128, 0);
  p.act_max = range(p.act_min, 127);
  assert_int_equal(mpk_add_s8(&p, a, b, want, NULL), MPK_OK);
  assert_int_equal(mpk_add_s8_fast(&p, a, b, got, NULL), MPK_OK);
  binary_check(&x, "add", n, 0);
  /* in place: the output is the first input */
  memcpy(got, a, (size_t)size);
  assert_int_equal(mpk_add_s8_fast(&p, got, b, got, NULL), MPK_OK);
  binary_check(&x, "add", n, 1);
  binary_close(&x);
}

static void specialised_add_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_add(n);
  mpk_add_s8_params p;
  memset(&p, 0, sizeof p);
  int8_t x = 0;
  assert_int_equal(mpk_add_s8_fast(&p, &x, &x, &x, NULL), MPK_ERR_PARAMS); /* broadcasting */
}

static void one_mul(int n) {
  binary_case x = binary_open();
  const int32_t size = x.size;
  int8_t *a = x.a, *b = x.b, *want = x.want, *got = x.got;
  mpk_binary_q_params p;
  memset(&p, 0, sizeof p);
  p.b.elementwise = 1;
  p.b.size = size;
  p.op = MPK_BIN_MUL;
  p.type = MPK_TYPE_INT8;
  p.in1_offset = range(-127, 128);
  p.in2_offset = range(-127, 128);
  p.out_offset = range(-128, 127);
  p.out_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  p.out_shift = range(-14, 0);
  p.act_min = range(-128, 0);
  p.act_max = range(p.act_min, 127);
  assert_int_equal(mpk_binary_q(&p, a, b, want, NULL), MPK_OK);
  assert_int_equal(mpk_mul_s8_fast(&p, a, b, got, NULL), MPK_OK);
  binary_check(&x, "mul", n, 0);
  /* in place: the output is the second input */
  memcpy(got, b, (size_t)size);
  assert_int_equal(mpk_mul_s8_fast(&p, a, got, got, NULL), MPK_OK);
  binary_check(&x, "mul", n, 1);
  binary_close(&x);
}

static void specialised_mul_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_mul(n);
  mpk_binary_q_params p;
  memset(&p, 0, sizeof p);
  p.op = MPK_BIN_MUL;
  p.type = MPK_TYPE_INT8;
  int8_t x = 0;
  assert_int_equal(mpk_mul_s8_fast(&p, &x, &x, &x, NULL), MPK_ERR_PARAMS); /* broadcasting */
  p.b.elementwise = 1;
  p.op = MPK_BIN_SUB;
  assert_int_equal(mpk_mul_s8_fast(&p, &x, &x, &x, NULL), MPK_ERR_PARAMS);
}

/* Pools: windows from 1x1 to wide global ones (up to 400 taps, past the
 * DSP path's 256), strides, padding that clips the window at every edge,
 * channel counts that leave every tail. */
static void one_pool(int n, int avg) {
  mpk_pool_s8_params p;
  memset(&p, 0, sizeof p);
  mpk_conv_geom *g = &p.geom;
  g->batches = range(1, 2);
  g->in_c = g->out_c = range(1, 40);
  const int global = next() % 5 == 0;
  g->in_h = global ? range(1, 20) : range(1, 12);
  g->in_w = global ? range(1, 20) : range(1, 12);
  g->filter_h = global ? g->in_h : range(1, mpk_min_i32(g->in_h, 4));
  g->filter_w = global ? g->in_w : range(1, mpk_min_i32(g->in_w, 4));
  g->stride_h = range(1, 3);
  g->stride_w = range(1, 3);
  const int same = !global && next() % 2;
  g->pad_h = same ? (g->filter_h - 1) / 2 : 0;
  g->pad_w = same ? (g->filter_w - 1) / 2 : 0;
  g->out_h = same ? (g->in_h + g->stride_h - 1) / g->stride_h : (g->in_h - g->filter_h) / g->stride_h + 1;
  g->out_w = same ? (g->in_w + g->stride_w - 1) / g->stride_w : (g->in_w - g->filter_w) / g->stride_w + 1;
  g->dilation_h = g->dilation_w = 1;
  p.act_min = range(-128, 0);
  p.act_max = range(p.act_min, 127);
  const size_t n_in = (size_t)(g->batches * g->in_h * g->in_w * g->in_c);
  const size_t n_out = random_out_strides(g);
  int8_t *in = guarded(n_in), *want = guarded(n_out), *got = guarded(n_out);
  memcpy(got, want, n_out);
  random_s8(in, n_in);
  if (next() % 4 == 0) /* saturated windows: every sum at its extreme */
    memset(in, next() % 2 ? 0x80 : 0x7F, n_in);
  int32_t rw = avg ? mpk_avg_pool2d_s8(&p, in, want, NULL) : mpk_max_pool2d_s8(&p, in, want, NULL);
  int32_t rg = avg ? mpk_avg_pool2d_s8_fast(&p, in, got, NULL) : mpk_max_pool2d_s8_fast(&p, in, got, NULL);
  assert_int_equal(rw, MPK_OK);
  assert_int_equal(rg, MPK_OK);
  if (memcmp(want, got, n_out) != 0)
    fail_msg("%s pool case %d (%dx%dx%d, window %dx%d, stride %d,%d, pad %d,%d): outputs differ",
             avg ? "avg" : "max", n, g->in_h, g->in_w, g->in_c, g->filter_h, g->filter_w,
             g->stride_h, g->stride_w, g->pad_h, g->pad_w);
  check_guards(got, n_out, avg ? "avg pool" : "max pool");
  release(in);
  release(want);
  release(got);
}

static void specialised_pools_give_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 300; n++) one_pool(n, 1);
  for (int n = 0; n < 300; n++) one_pool(n, 0);
  mpk_pool_s8_params p;
  memset(&p, 0, sizeof p);
  int8_t x = 0;
  assert_int_equal(mpk_avg_pool2d_s8_fast(&p, &x, &x, NULL), MPK_ERR_PARAMS);
  assert_int_equal(mpk_max_pool2d_s8_fast(&p, &x, &x, NULL), MPK_ERR_PARAMS);
}

/* SOFTMAX: the reference's params as the lowering computes them for
 * random products of beta and the input scale, depths from 1 to 300, rows
 * whose differences reach every table entry and, for the larger scales,
 * fall below diff_min. */
static void one_softmax(int n) {
  mpk_softmax_s8_params p;
  memset(&p, 0, sizeof p);
  p.outer = range(1, 4);
  p.depth = range(1, 300);
  /* beta * input scale from 1/1024 to 4: the lowering's multiplier of
   * beta * scale * 2^26 and its radius */
  const double real = ldexp((double)range(1, 4096), 26 - 10);
  int exp2 = 0;
  int64_t q = llround(frexp(real, &exp2) * (double)(1ll << 31));
  if (q == (1ll << 31)) {
    q /= 2;
    exp2++;
  }
  p.input_multiplier = (int32_t)q;
  p.input_left_shift = exp2;
  p.diff_min = -(int32_t)floor(31.0 * (double)(1ll << 26) / ldexp(1.0, exp2));
  const size_t size = (size_t)(p.outer * p.depth);
  int8_t *in = guarded(size), *want = guarded(size), *got = guarded(size);
  random_s8(in, size);
  int32_t table[256];
  mpk_softmax_s8_exp_table(&p, table);
  mpk_softmax_s8_fast_params f = {p.outer, p.depth, table};
  assert_int_equal(mpk_softmax_s8(&p, in, want, NULL), MPK_OK);
  assert_int_equal(mpk_softmax_s8_fast(&f, in, got, NULL), MPK_OK);
  if (memcmp(want, got, size) != 0)
    fail_msg("softmax case %d (%d x %d, multiplier %d, shift %d, diff_min %d): outputs differ", n,
             p.outer, p.depth, p.input_multiplier, p.input_left_shift, p.diff_min);
  check_guards(got, size, "softmax");
  release(in);
  release(want);
  release(got);
}

static void specialised_softmax_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 300; n++) one_softmax(n);
  mpk_softmax_s8_fast_params f = {1, 4, NULL};
  int8_t x[4] = {0};
  assert_int_equal(mpk_softmax_s8_fast(&f, x, x, NULL), MPK_ERR_PARAMS); /* no table */
}

/* 16x8: int16 inputs over their whole range, int8 weights, int64 biases,
 * the 16x8 requantisation (offsets 0, int16 bounds). */
static void random_requant16(mpk_requant *q, int32_t *mult, int32_t *shift, int32_t n) {
  q->input_offset = q->filter_offset = q->output_offset = 0;
  q->act_min = range(-32768, 0);
  q->act_max = range(q->act_min, 32767);
  q->per_channel = 1;
  for (int32_t i = 0; i < n; i++) {
    mult[i] = (int32_t)((1u << 30) + (next() >> 2));
    shift[i] = range(-18, -6);
  }
  q->multiplier = mult;
  q->shift = shift;
}

static int16_t *guarded16(size_t n) { return (int16_t *)(void *)guarded(2 * n); }
static void release16(int16_t *b) { release((int8_t *)(void *)b); }

/* One random 16x8 CONV_2D, DEPTHWISE_CONV_2D (kind 0, 1) or
 * FULLY_CONNECTED (2), reference against the specialised kernel. */
static void one_s16(int n, int kind) {
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.batches = range(1, 2);
  g.filter_h = range(1, 4);
  g.filter_w = range(1, 4);
  g.in_c = range(1, kind == 1 ? 13 : 37);
  g.depth_multiplier = kind == 1 ? (next() % 3 ? 1 : range(2, 4)) : 1;
  g.filter_c = kind == 1 ? 0 : g.in_c;
  g.out_c = kind == 1 ? g.in_c * g.depth_multiplier : range(1, 19);
  random_spatial(&g, 3, 9, kind == 0 && g.filter_h == 1 && g.filter_w == 1 && next() % 2);
  const int direct = kind == 0 && g.filter_h == 1 && g.filter_w == 1 && g.pad_h == 0 && g.pad_w == 0;
  if (kind == 2) { /* batches x accum_depth -> out_c */
    g.batches = range(1, 3);
    g.in_h = g.in_w = g.out_h = g.out_w = g.filter_h = g.filter_w = 1;
    g.in_c = range(1, 300);
  }
  const int32_t taps = kind == 1 ? g.filter_h * g.filter_w : g.filter_h * g.filter_w * g.in_c;
  const size_t in_n = (size_t)g.batches * g.in_h * g.in_w * g.in_c;
  const size_t out_n = (size_t)g.batches * g.out_h * g.out_w * g.out_c;
  const size_t f_n = (size_t)taps * (size_t)g.out_c;
  int16_t *in = guarded16(in_n), *want = guarded16(out_n), *got = guarded16(out_n);
  int16_t *scratch = guarded16((size_t)taps);
  int8_t *filter = guarded(f_n);
  if (next() % 4 == 0) /* saturated inputs and weights: the largest sums */
    for (size_t i = 0; i < in_n; i++) in[i] = (int16_t)(next() % 2 ? -32768 : 32767);
  random_s8(filter, f_n);
  int64_t bias[52];
  int32_t mult[52], shift[52];
  for (int32_t i = 0; i < g.out_c; i++) bias[i] = (int64_t)range(-2000000, 2000000) * 1000;
  const int64_t *b = next() % 4 ? bias : NULL;
  mpk_conv_s8_params p = {g, {0}};
  random_requant16(&p.q, mult, shift, g.out_c);
  int32_t sw, sg;
  const char *name = kind == 0 ? (direct ? "16x8 conv 1x1" : "16x8 conv im2col")
                     : kind == 1 ? "16x8 depthwise" : "16x8 fully connected";
  if (kind == 2) {
    mpk_fc_s8_params f = {g.batches, g.in_c, g.out_c, p.q};
    sw = mpk_fully_connected_s16(&f, in, filter, b, want, NULL);
    sg = mpk_fully_connected_s16_fast(&f, in, filter, b, got, NULL);
  } else if (kind == 1) {
    sw = mpk_depthwise_conv2d_s16(&p, in, filter, b, want, NULL);
    sg = mpk_depthwise_conv2d_s16_fast(&p, in, filter, b, got, NULL);
  } else {
    assert_int_equal(mpk_conv2d_s16_fast_direct(&g), direct);
    sw = mpk_conv2d_s16(&p, in, filter, b, want, NULL);
    sg = mpk_conv2d_s16_fast(&p, in, filter, b, got, direct ? NULL : scratch);
  }
  assert_int_equal(sw, MPK_OK);
  assert_int_equal(sg, MPK_OK);
  if (memcmp(want, got, 2 * out_n) != 0)
    fail_msg("%s case %d (%dx%dx%d -> %d, filter %dx%d, stride %d/%d, dilation %d/%d, pad %d/%d): "
             "outputs differ", name, n, g.in_h, g.in_w, g.in_c, g.out_c, g.filter_h, g.filter_w,
             g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, g.pad_h, g.pad_w);
  check_guards((int8_t *)(void *)got, 2 * out_n, name);
  release16(in);
  release16(want);
  release16(got);
  release16(scratch);
  release(filter);
}

static void specialised_16x8_kernels_give_the_reference_bytes(void **state) {
  (void)state;
  for (int kind = 0; kind < 3; kind++)
    for (int n = 0; n < 300; n++) one_s16(n, kind);
  mpk_fc_s8_params f = {1, 4, 4, {0}};
  int32_t m = 1 << 30, s = -8;
  f.q.multiplier = &m;
  f.q.shift = &s;
  f.q.input_offset = 3; /* 16x8 inputs have zero point 0 */
  int16_t x[4] = {0};
  int8_t w[16] = {0};
  assert_int_equal(mpk_fully_connected_s16_fast(&f, x, w, NULL, x, NULL), MPK_ERR_PARAMS);
}

/* One random 16x8 CONV_2D in 32 bits (no bias or an int32 one, TFLite
 * Micro's int32 accumulator): reference against the specialised kernel.
 * One case in four is a 1x1 convolution of 520 to 700 saturated channels
 * with weights of one sign, whose sums leave int32 and wrap. */
static void one_s16_acc32(int n) {
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  const int wide = n % 4 == 0;
  g.batches = range(1, 2);
  g.filter_h = wide ? 1 : range(1, 4);
  g.filter_w = wide ? 1 : range(1, 4);
  g.in_c = wide ? range(520, 700) : range(1, 37);
  g.depth_multiplier = 1;
  g.filter_c = g.in_c;
  g.out_c = range(1, 19);
  random_spatial(&g, 3, wide ? 4 : 9, g.filter_h == 1 && g.filter_w == 1 && next() % 2);
  const int direct = mpk_conv2d_s16_fast_direct(&g);
  const int32_t taps = g.filter_h * g.filter_w * g.in_c;
  const size_t in_n = (size_t)g.batches * g.in_h * g.in_w * g.in_c;
  const size_t out_n = (size_t)g.batches * g.out_h * g.out_w * g.out_c;
  const size_t f_n = (size_t)taps * (size_t)g.out_c;
  int16_t *in = guarded16(in_n), *want = guarded16(out_n), *got = guarded16(out_n);
  int16_t *scratch = guarded16((size_t)taps);
  int8_t *filter = guarded(f_n);
  for (size_t i = 0; i < in_n; i++) in[i] = (int16_t)range(-32768, 32767);
  random_s8(filter, f_n);
  if (wide || next() % 4 == 0) /* saturated inputs and weights: the largest sums */
    for (size_t i = 0; i < in_n; i++) in[i] = (int16_t)(wide || next() % 2 ? 32767 : -32768);
  if (wide)
    for (size_t i = 0; i < f_n; i++) filter[i] = (int8_t)(n % 8 == 0 ? 127 : -128);
  int32_t bias[52], mult[52], shift[52];
  for (int32_t i = 0; i < g.out_c; i++) bias[i] = (int32_t)next();
  const int32_t *b = next() % 4 ? bias : NULL;
  mpk_conv_s8_params p = {g, {0}};
  random_requant16(&p.q, mult, shift, g.out_c);
  for (int32_t i = 0; i < g.out_c; i++) shift[i] = range(-31, 4);
  assert_int_equal(mpk_conv2d_s16_acc32(&p, in, filter, b, want, NULL), MPK_OK);
  assert_int_equal(mpk_conv2d_s16_acc32_fast(&p, in, filter, b, got, direct ? NULL : scratch), MPK_OK);
  if (memcmp(want, got, 2 * out_n) != 0)
    fail_msg("16x8 conv in 32 bits case %d (%dx%dx%d -> %d, filter %dx%d, stride %d/%d, "
             "dilation %d/%d, pad %d/%d): outputs differ", n, g.in_h, g.in_w, g.in_c, g.out_c,
             g.filter_h, g.filter_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, g.pad_h,
             g.pad_w);
  check_guards((int8_t *)(void *)got, 2 * out_n, "16x8 conv in 32 bits");
  release16(in);
  release16(want);
  release16(got);
  release16(scratch);
  release(filter);
}

static void specialised_16x8_convolution_in_32_bits_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 300; n++) one_s16_acc32(n);
  mpk_conv_s8_params p;
  memset(&p, 0, sizeof p);
  p.geom = (mpk_conv_geom){.batches = 1, .in_h = 1, .in_w = 1, .in_c = 1, .out_h = 1,
                           .out_w = 1, .out_c = 1, .filter_h = 1, .filter_w = 1, .filter_c = 1,
                           .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1};
  int32_t m = 1 << 30, s = -8;
  p.q.multiplier = &m;
  p.q.shift = &s;
  p.q.input_offset = 3; /* 16x8 inputs have zero point 0 */
  int16_t x[1] = {0};
  int8_t w[1] = {0};
  assert_int_equal(mpk_conv2d_s16_acc32_fast(&p, x, w, NULL, x, NULL), MPK_ERR_PARAMS);
}

/* One random channel-serial DEPTHWISE_CONV_2D (depth multiplier 1, a
 * packed output): the specialised kernel against the reference serial
 * kernel and the reference depthwise kernel, out of place (output and
 * temporary between guards, both garbage), then in place at a whole
 * number of pixels from its input, the output exactly on it included
 * (the overlap contract both kernels share), against the out-of-place
 * bytes.  Windows up to 9x9 reach the path for more taps than the
 * kernel's table holds. */
static void one_serial(int n) {
  mpk_conv_geom g;
  memset(&g, 0, sizeof g);
  g.batches = range(1, 2);
  const int big = n % 25 == 0;
  g.filter_h = big ? range(5, 9) : range(1, 4);
  g.filter_w = big ? range(8, 9) : range(1, 4);
  g.in_c = range(1, 20);
  g.depth_multiplier = 1;
  g.out_c = g.in_c;
  random_spatial(&g, 3, big ? 20 : 14, 0);
  const size_t in_n = (size_t)g.batches * g.in_h * g.in_w * g.in_c;
  const size_t out_n = (size_t)g.batches * g.out_h * g.out_w * g.out_c;
  const int32_t taps = g.filter_h * g.filter_w;
  const size_t tmp_n = (size_t)mpk_depthwise_conv2d_serial_scratch(&g, 1);
  assert_true(tmp_n == (size_t)g.batches * g.out_h * g.out_w);
  int8_t *in = guarded(in_n), *filter = guarded((size_t)taps * g.out_c);
  int8_t *want = guarded(out_n), *plain = guarded(out_n), *got = guarded(out_n);
  int8_t *tmp_a = guarded(tmp_n), *tmp_b = guarded(tmp_n);
  memcpy(got, want, out_n);
  random_s8(in, in_n);
  random_s8(filter, (size_t)taps * g.out_c);
  int32_t bias[20], mult[20], shift[20];
  for (int32_t i = 0; i < g.out_c; i++) bias[i] = range(-5000, 5000);
  mpk_conv_s8_params p = {g, {0}};
  random_requant(&p.q, mult, shift, g.out_c, (int)(next() % 4 != 0));
  const int32_t *b = next() % 5 ? bias : NULL;
  char what[200];
  snprintf(what, sizeof what, "serial case %d (%dx%dx%d, filter %dx%d, stride %d/%d, "
           "dilation %d/%d, pad %d/%d)", n, g.in_h, g.in_w, g.in_c, g.filter_h, g.filter_w,
           g.stride_h, g.stride_w, g.dilation_h, g.dilation_w, g.pad_h, g.pad_w);
  assert_int_equal(mpk_depthwise_conv2d_s8_serial(&p, in, filter, b, want, tmp_a), MPK_OK);
  assert_int_equal(mpk_depthwise_conv2d_s8(&p, in, filter, b, plain, NULL), MPK_OK);
  assert_int_equal(mpk_depthwise_conv2d_s8_serial_fast(&p, in, filter, b, got, tmp_b), MPK_OK);
  if (memcmp(want, plain, out_n) != 0) fail_msg("%s: the reference kernels differ", what);
  if (memcmp(want, got, out_n) != 0) fail_msg("%s: outputs differ", what);
  check_guards(got, out_n, what);
  check_guards(tmp_b, tmp_n, what);
  /* in place: output k pixels below its input (k = 0: on it) or above */
  const mpk_overlap ov = mpk_depthwise_conv2d_serial_overlap(&g, 1);
  const size_t px = (size_t)g.in_c;
  const size_t span = in_n > out_n ? in_n : out_n;
  for (int32_t k = -2; k <= 2; k++) {
    const int64_t gap = (int64_t)k * (int64_t)px;
    if (gap < ov.min_gap || gap % ov.period) continue;
    const size_t lead = 3 * px, total = span + 6 * px;
    int8_t *buf = guarded(total);
    int8_t *ip = buf + lead + (k > 0 ? (size_t)k * px : 0);
    int8_t *op = ip - k * (int64_t)px;
    memcpy(ip, in, in_n);
    assert_int_equal(mpk_depthwise_conv2d_s8_serial_fast(&p, ip, filter, b, op, tmp_b), MPK_OK);
    if (memcmp(op, want, out_n) != 0) fail_msg("%s: in place at %d pixels: outputs differ", what, k);
    check_guards(buf, total, what);
    release(buf);
  }
  release(in);
  release(filter);
  release(want);
  release(plain);
  release(got);
  release(tmp_a);
  release(tmp_b);
}

static void specialised_serial_depthwise_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 500; n++) one_serial(n);
}

static void specialised_convolutions_give_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_conv(n);
}

/* The same with channels of multiplier 0 among the others, and deep
 * columns (up to 300 bytes: whole 16-byte blocks and a tail) against up to
 * 40 rows. */
static void specialised_kernels_with_dead_channels_give_the_reference_bytes(void **state) {
  (void)state;
  dead_channels = 1;
  wide_conv = 1;
  for (int n = 0; n < 300; n++) one_conv(n);
  wide_conv = 0;
  for (int n = 0; n < 300; n++) one_depthwise(n);
  for (int n = 0; n < 300; n++) one_fc(n);
  dead_channels = 0;
}

static void specialised_depthwise_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_depthwise(n);
}

static void specialised_fully_connected_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_fc(n);
}

/* One random int8 SVDF (int8 or int16 state), reference against the
 * specialised kernel: both start from the same state and must leave the
 * same state and output.  The folded biases from their definitions. */
static void one_svdf(int n) {
  mpk_svdf_s8_params r;
  memset(&r, 0, sizeof r);
  mpk_svdf_shape *sh = &r.shape;
  sh->batches = range(1, 3);
  sh->input_size = range(1, 70);
  sh->rank = range(1, 3);
  sh->num_units = range(1, 11);
  sh->num_filters = sh->num_units * sh->rank;
  sh->memory_size = range(1, 21);
  r.state_type = next() % 2 ? MPK_TYPE_INT16 : MPK_TYPE_INT8;
  const int wide = r.state_type == MPK_TYPE_INT16;
  r.input_zero_point = range(-128, 127);
  r.state_zero_point = wide ? 0 : range(-128, 127);
  r.output_zero_point = range(-128, 127);
  r.feature_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.feature_shift = wide ? range(-8, 3) : range(-14, -2);
  r.time_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.time_shift = wide ? range(-24, -12) : range(-16, -4);
  const size_t es = wide ? 2 : 1, nf = (size_t)sh->num_filters, nm = (size_t)sh->memory_size;
  const size_t in_n = (size_t)sh->batches * (size_t)sh->input_size;
  const size_t st_n = (size_t)sh->batches * nf * nm * es;
  const size_t out_n = (size_t)sh->batches * (size_t)sh->num_units;
  int8_t *in = guarded(in_n), *wf = guarded(nf * (size_t)sh->input_size);
  int8_t *wt = guarded(nf * nm * es), *st_want = guarded(st_n), *st_got = guarded(st_n);
  int8_t *want = guarded(out_n), *got = guarded(out_n);
  int8_t *scratch = guarded(4 * (nf + (size_t)sh->num_units) * (size_t)sh->batches);
  if (wide) { /* int16 state and time weights within 2^12, so that no int32 sum overflows */
    int16_t *w16 = (int16_t *)(void *)wt, *s16 = (int16_t *)(void *)st_want;
    for (size_t i = 0; i < nf * nm; i++) w16[i] = (int16_t)(w16[i] / 8);
    for (size_t i = 0; i < st_n / 2; i++) s16[i] = (int16_t)(s16[i] / 8);
  }
  memcpy(st_got, st_want, st_n);
  int32_t bias[11], fbias[33], ubias[11];
  for (int32_t u = 0; u < sh->num_units; u++) bias[u] = range(-100000, 100000);
  const int32_t *b = next() % 4 ? bias : NULL;
  fold_bias(wf, NULL, -r.input_zero_point, sh->num_filters, sh->input_size,
            (size_t)sh->input_size, 1, fbias);
  for (int32_t u = 0; u < sh->num_units; u++) {
    uint32_t sum = 0;
    for (size_t i = 0; i < (size_t)sh->rank * nm; i++) {
      const size_t at = (size_t)u * (size_t)sh->rank * nm + i;
      sum += (uint32_t)(wide ? ((const int16_t *)(const void *)wt)[at] : wt[at]);
    }
    const uint32_t v = (uint32_t)(b ? b[u] : 0) - (uint32_t)r.state_zero_point * sum;
    memcpy(&ubias[u], &v, 4);
  }
  const mpk_svdf_s8_fast_params f = {r, fbias, ubias};
  assert_int_equal(mpk_svdf_s8(&r, in, wf, wt, b, st_want, want, scratch), MPK_OK);
  assert_int_equal(mpk_svdf_s8_fast(&f, in, wf, wt, b, st_got, got, scratch), MPK_OK);
  if (memcmp(want, got, out_n) != 0 || memcmp(st_want, st_got, st_n) != 0)
    fail_msg("svdf case %d (batches %d, input %d, %d units of rank %d, memory %d, %s state): %s "
             "differ",
             n, sh->batches, sh->input_size, sh->num_units, sh->rank, sh->memory_size,
             wide ? "int16" : "int8", memcmp(want, got, out_n) ? "outputs" : "states");
  check_guards(got, out_n, "svdf output");
  check_guards(st_got, st_n, "svdf state");
  int8_t *bufs[] = {in, wf, wt, st_want, st_got, want, got, scratch};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) release(bufs[i]);
}

static void specialised_svdf_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_svdf(n);
}

/* One random int8 LSTM (time- or batch-major, with and without a cell
 * clip, both cell-tanh scalings), reference against the specialised
 * kernel from the same hidden and cell states: outputs and both states
 * must match.  The folded biases from their definitions. */
static void one_lstm(int n) {
  mpk_lstm_s8_params r;
  memset(&r, 0, sizeof r);
  mpk_lstm_shape *sh = &r.shape;
  sh->time_major = (int32_t)(next() % 2);
  sh->batches = range(1, 3);
  sh->time_steps = range(1, 4);
  sh->input_size = range(1, 45);
  sh->state_size = range(1, 23);
  r.input_offset = range(-127, 128);
  r.hidden_zero_point = range(-128, 127);
  r.hidden_offset = -r.hidden_zero_point;
  for (int g = 0; g < 4; g++) {
    r.gate[g].in_multiplier = (int32_t)((1u << 30) + (next() >> 2));
    r.gate[g].in_shift = range(-10, 1);
    r.gate[g].rec_multiplier = (int32_t)((1u << 30) + (next() >> 2));
    r.gate[g].rec_shift = range(-10, 1);
  }
  r.cell_activation = MPK_LSTM_TANH;
  r.forget_cell_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.forget_cell_shift = range(-16, -14);
  r.input_cell_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.input_cell_shift = range(-19, -15);
  r.hidden_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.hidden_shift = range(-24, -20);
  r.cell_clip = next() % 2 ? range(1, 32767) : 0;
  r.cell_tanh_multiplier = next() % 2 ? 3 : 0;
  r.cell_tanh_shift = r.cell_tanh_multiplier ? range(1, 15) : range(0, 3);
  const size_t nb = (size_t)sh->batches, ni = (size_t)sh->input_size, ns = (size_t)sh->state_size;
  const size_t nt = (size_t)sh->time_steps;
  int8_t *in = guarded(nb * nt * ni), *want = guarded(nb * nt * ns), *got = guarded(nb * nt * ns);
  int8_t *h_want = guarded(nb * ns), *h_got = guarded(nb * ns);
  int16_t *c_want = guarded16(nb * ns), *c_got = guarded16(nb * ns);
  memcpy(h_got, h_want, nb * ns);
  memcpy(c_got, c_want, 2 * nb * ns);
  int8_t *w[8];
  int32_t bias[4][23], in_bias[4 * 23], rec_bias[4 * 23];
  const void *k[15];
  for (int g = 0; g < 8; g++) {
    w[g] = guarded(ns * (g < 4 ? ni : ns));
    k[g] = w[g];
  }
  k[8] = k[9] = k[10] = NULL;
  for (int g = 0; g < 4; g++) {
    for (size_t s = 0; s < ns; s++) bias[g][s] = range(-20000, 20000);
    k[11 + g] = bias[g];
    fold_bias(w[g], bias[g], r.input_offset, sh->state_size, sh->input_size, ni, 1,
              in_bias + g * (int32_t)ns);
    fold_bias(w[4 + g], NULL, r.hidden_offset, sh->state_size, sh->state_size, ns, 1,
              rec_bias + g * (int32_t)ns);
  }
  int8_t *scratch = guarded(4 * nb * ns * 2);
  const mpk_lstm_s8_fast_params f = {r, in_bias, rec_bias};
  assert_int_equal(mpk_lstm_s8(&r, in, k, h_want, c_want, want, scratch), MPK_OK);
  assert_int_equal(mpk_lstm_s8_fast(&f, in, k, h_got, c_got, got, NULL), MPK_OK);
  if (memcmp(want, got, nb * nt * ns) != 0 || memcmp(h_want, h_got, nb * ns) != 0 ||
      memcmp(c_want, c_got, 2 * nb * ns) != 0)
    fail_msg("lstm case %d (%s-major, batches %d, steps %d, input %d, state %d, clip %d, tanh %d/%d): "
             "%s differ",
             n, sh->time_major ? "time" : "batch", sh->batches, sh->time_steps, sh->input_size,
             sh->state_size, r.cell_clip, r.cell_tanh_multiplier, r.cell_tanh_shift,
             memcmp(want, got, nb * nt * ns) ? "outputs" : "states");
  check_guards(got, nb * nt * ns, "lstm output");
  check_guards(h_got, nb * ns, "lstm hidden state");
  check_guards((int8_t *)(void *)c_got, 2 * nb * ns, "lstm cell state");
  int8_t *bufs[] = {in, want, got, h_want, h_got, scratch};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) release(bufs[i]);
  for (int g = 0; g < 8; g++) release(w[g]);
  release16(c_want);
  release16(c_got);
}

static void specialised_lstm_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_lstm(n);
}

/* One random 16x8 LSTM (int16 input, hidden state and output, int64
 * biases, zero points 0), reference against the specialised kernel from
 * the same hidden and cell states: outputs and both states must match.
 * The shifts keep most gate sums inside int16; the biases reach beyond
 * 32 bits. */
static void one_lstm16(int n) {
  mpk_lstm_s8_params r;
  memset(&r, 0, sizeof r);
  mpk_lstm_shape *sh = &r.shape;
  sh->time_major = (int32_t)(next() % 2);
  sh->batches = range(1, 3);
  sh->time_steps = range(1, 4);
  sh->input_size = range(1, 45);
  sh->state_size = range(1, 23);
  for (int g = 0; g < 4; g++) {
    r.gate[g].in_multiplier = (int32_t)((1u << 30) + (next() >> 2));
    r.gate[g].in_shift = range(-24, -12);
    r.gate[g].rec_multiplier = (int32_t)((1u << 30) + (next() >> 2));
    r.gate[g].rec_shift = range(-24, -12);
  }
  r.cell_activation = MPK_LSTM_TANH;
  r.forget_cell_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.forget_cell_shift = range(-16, -14);
  r.input_cell_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.input_cell_shift = range(-19, -15);
  r.hidden_multiplier = (int32_t)((1u << 30) + (next() >> 2));
  r.hidden_shift = range(-16, -14);
  r.cell_clip = next() % 2 ? range(1, 32767) : 0;
  r.cell_tanh_multiplier = next() % 2 ? 3 : 0;
  r.cell_tanh_shift = r.cell_tanh_multiplier ? range(1, 15) : range(0, 3);
  const size_t nb = (size_t)sh->batches, ni = (size_t)sh->input_size, ns = (size_t)sh->state_size;
  const size_t nt = (size_t)sh->time_steps;
  int16_t *in = guarded16(nb * nt * ni), *want = guarded16(nb * nt * ns);
  int16_t *got = guarded16(nb * nt * ns), *h_want = guarded16(nb * ns), *h_got = guarded16(nb * ns);
  int16_t *c_want = guarded16(nb * ns), *c_got = guarded16(nb * ns);
  memcpy(h_got, h_want, 2 * nb * ns);
  memcpy(c_got, c_want, 2 * nb * ns);
  int8_t *w[8];
  int64_t bias[4][23];
  const void *k[15];
  for (int g = 0; g < 8; g++) {
    w[g] = guarded(ns * (g < 4 ? ni : ns));
    k[g] = w[g];
  }
  k[8] = k[9] = k[10] = NULL;
  for (int g = 0; g < 4; g++) {
    for (size_t s = 0; s < ns; s++)
      bias[g][s] = (int64_t)range(-(1 << 29), 1 << 29) * range(1, 16);
    k[11 + g] = bias[g];
  }
  int8_t *scratch = guarded(4 * nb * ns * 2);
  assert_int_equal(mpk_lstm_s16(&r, in, k, h_want, c_want, want, scratch), MPK_OK);
  assert_int_equal(mpk_lstm_s16_fast(&r, in, k, h_got, c_got, got, NULL), MPK_OK);
  if (memcmp(want, got, 2 * nb * nt * ns) != 0 || memcmp(h_want, h_got, 2 * nb * ns) != 0 ||
      memcmp(c_want, c_got, 2 * nb * ns) != 0)
    fail_msg("lstm16 case %d (%s-major, batches %d, steps %d, input %d, state %d, clip %d, tanh "
             "%d/%d): %s differ",
             n, sh->time_major ? "time" : "batch", sh->batches, sh->time_steps, sh->input_size,
             sh->state_size, r.cell_clip, r.cell_tanh_multiplier, r.cell_tanh_shift,
             memcmp(want, got, 2 * nb * nt * ns) ? "outputs" : "states");
  check_guards((int8_t *)(void *)got, 2 * nb * nt * ns, "lstm16 output");
  check_guards((int8_t *)(void *)h_got, 2 * nb * ns, "lstm16 hidden state");
  check_guards((int8_t *)(void *)c_got, 2 * nb * ns, "lstm16 cell state");
  int16_t *bufs16[] = {in, want, got, h_want, h_got, c_want, c_got};
  for (size_t i = 0; i < sizeof bufs16 / sizeof bufs16[0]; i++) release16(bufs16[i]);
  release(scratch);
  for (int g = 0; g < 8; g++) release(w[g]);
}

static void specialised_lstm16_gives_the_reference_bytes(void **state) {
  (void)state;
  for (int n = 0; n < 400; n++) one_lstm16(n);
}

static void specialised_kernels_reject_params_they_cannot_run(void **state) {
  (void)state;
  mpk_conv_geom g = {1, 4, 4, 8, 4, 4, 8, 1, 1, 8, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0};
  int32_t m = 1 << 30, s = 1, fb[8] = {0};
  mpk_requant q = {0, 0, 0, -128, 127, 0, &m, &s};
  int8_t buf[256] = {0};
  mpk_conv_s8_fast_params p = {g, q, fb, 8};
  p.geom.pad_h = 1; /* a 1x1 with padding is an im2col's */
  assert_int_equal(mpk_conv2d_s8_1x1(&p, buf, buf, NULL, buf, NULL), MPK_ERR_PARAMS);
  p.geom.pad_h = 0;
  p.folded_bias = NULL;
  assert_int_equal(mpk_conv2d_s8_1x1(&p, buf, buf, NULL, buf, NULL), MPK_ERR_PARAMS);
  p.folded_bias = fb;
  assert_int_equal(mpk_conv2d_s8_im2col(&p, buf, buf, NULL, buf, NULL), MPK_ERR_PARAMS);
  p.col_len = 9; /* not filter_h * filter_w * in_c */
  assert_int_equal(mpk_conv2d_s8_im2col(&p, buf, buf, NULL, buf, buf), MPK_ERR_PARAMS);
  p.geom.depth_multiplier = 2; /* out_c != in_c * 2 */
  assert_int_equal(mpk_depthwise_conv2d_s8_fast(&p, buf, buf, NULL, buf, NULL), MPK_ERR_PARAMS);
  mpk_fc_s8_fast_params f = {1, 8, 8, q, fb};
  f.q.filter_offset = 3;
  assert_int_equal(mpk_fully_connected_s8_fast(&f, buf, buf, NULL, buf, NULL), MPK_ERR_PARAMS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mbqm_fast_equals_the_reference_rounding),
      cmocka_unit_test(mbqm_r2_equals_the_reference_rounding),
      cmocka_unit_test(specialised_convolutions_give_the_reference_bytes),
      cmocka_unit_test(specialised_depthwise_gives_the_reference_bytes),
      cmocka_unit_test(specialised_kernels_with_dead_channels_give_the_reference_bytes),
      cmocka_unit_test(specialised_serial_depthwise_gives_the_reference_bytes),
      cmocka_unit_test(specialised_fully_connected_gives_the_reference_bytes),
      cmocka_unit_test(specialised_add_gives_the_reference_bytes),
      cmocka_unit_test(specialised_mul_gives_the_reference_bytes),
      cmocka_unit_test(specialised_pools_give_the_reference_bytes),
      cmocka_unit_test(specialised_softmax_gives_the_reference_bytes),
      cmocka_unit_test(specialised_16x8_kernels_give_the_reference_bytes),
      cmocka_unit_test(specialised_16x8_convolution_in_32_bits_gives_the_reference_bytes),
      cmocka_unit_test(specialised_svdf_gives_the_reference_bytes),
      cmocka_unit_test(specialised_lstm_gives_the_reference_bytes),
      cmocka_unit_test(specialised_lstm16_gives_the_reference_bytes),
      cmocka_unit_test(specialised_kernels_reject_params_they_cannot_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
