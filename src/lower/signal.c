/*
 * signal.c — lowering of the Signal library's custom operators (TensorFlow
 * Lite Micro's audio front end: "SignalWindow", "SignalRfft", ...) onto
 * the kernels of runtime/kernels/ref/mpk_signal.c.
 *
 * The one idea: TFLM reads each operator's flexbuffer options by position
 * (the keys sorted by name), so this file reads them the same way with the
 * bounds-checked reader of src/read/flexbuf.c, checks that each position
 * holds the key TFLM expects there, and computes at convert time what TFLM
 * computes in Init: the FFT's twiddles and factors with KISS FFT's own
 * double-precision formulas (the inverse FFT's with the opposite phase),
 * the log's correction table, and the checks
 * that keep every table index of the filter bank inside its tensors.
 * Options that do not parse are model errors with their byte offset;
 * values the kernels cannot take are "not supported" with the reason.
 *
 * An operator's own state (the spectral subtraction's noise estimate, the
 * delay line, the stacker's, framer's and overlap-add's queues) is asked
 * for with state_bytes and reaches the kernel as an op-local persistent
 * tensor, zero at start and after reset_state, as TFLM starts it.  Any
 * other custom operator is refused by name.
 */
#include "lower/common.h"
#include "lower/families.h"

#include "read/flexbuf.h"
#include "util/diag.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const fdesc mp_lower_signal_window_fields[] = {F_I32(mpk_signal_window_params, size),
                                               F_I32(mpk_signal_window_params, weight_size),
                                               F_I32(mpk_signal_window_params, shift), F_END};
const fdesc mp_lower_signal_fft_auto_scale_fields[] = {
    F_I32(mpk_signal_fft_auto_scale_params, size), F_END};
const fdesc mp_lower_signal_rfft_fields[] = {
    F_I32(mpk_signal_rfft_params, type),
    F_I32(mpk_signal_rfft_params, fft_length),
    F_I32(mpk_signal_rfft_params, input_length),
    F_I32(mpk_signal_rfft_params, output_length),
    F_I32(mpk_signal_rfft_params, batches),
    F_I32(mpk_signal_rfft_params, n_factors),
    F_I32(mpk_signal_rfft_params, max_radix),
    F_PTR(mpk_signal_rfft_params, factors, "factors"),
    F_PTR(mpk_signal_rfft_params, twiddles, "twiddles"),
    F_PTR(mpk_signal_rfft_params, super_twiddles, "super_twiddles"),
    F_END};
const fdesc mp_lower_signal_energy_fields[] = {F_I32(mpk_signal_energy_params, start_index),
                                               F_I32(mpk_signal_energy_params, end_index),
                                               F_I32(mpk_signal_energy_params, size), F_END};
const fdesc mp_lower_signal_filter_bank_fields[] = {
    F_I32(mpk_signal_filter_bank_params, num_channels), F_END};
const fdesc mp_lower_signal_filter_bank_sqrt_fields[] = {
    F_I32(mpk_signal_filter_bank_sqrt_params, num_channels), F_END};
const fdesc mp_lower_signal_spectral_subtraction_fields[] = {
    F_I32(mpk_signal_spectral_subtraction_params, num_channels),
    F_I32(mpk_signal_spectral_subtraction_params, smoothing),
    F_I32(mpk_signal_spectral_subtraction_params, one_minus_smoothing),
    F_I32(mpk_signal_spectral_subtraction_params, alternate_smoothing),
    F_I32(mpk_signal_spectral_subtraction_params, alternate_one_minus_smoothing),
    F_I32(mpk_signal_spectral_subtraction_params, min_signal_remaining),
    F_I32(mpk_signal_spectral_subtraction_params, smoothing_bits),
    F_I32(mpk_signal_spectral_subtraction_params, spectral_subtraction_bits),
    F_I32(mpk_signal_spectral_subtraction_params, clamping),
    F_END};
const fdesc mp_lower_signal_pcan_fields[] = {F_I32(mpk_signal_pcan_params, num_channels),
                                             F_I32(mpk_signal_pcan_params, snr_shift), F_END};
const fdesc mp_lower_signal_filter_bank_log_fields[] = {
    F_I32(mpk_signal_filter_bank_log_params, num_channels),
    F_I32(mpk_signal_filter_bank_log_params, output_scale),
    F_I32(mpk_signal_filter_bank_log_params, correction_bits),
    F_PTR(mpk_signal_filter_bank_log_params, log_table, "log_table"), F_END};

const fdesc mp_lower_signal_delay_fields[] = {F_I32(mpk_signal_delay_params, frame_size),
                                              F_I32(mpk_signal_delay_params, delay_length),
                                              F_I32(mpk_signal_delay_params, outer_dims), F_END};
const fdesc mp_lower_signal_stacker_fields[] = {
    F_I32(mpk_signal_stacker_params, num_channels), F_I32(mpk_signal_stacker_params, left_context),
    F_I32(mpk_signal_stacker_params, right_context), F_I32(mpk_signal_stacker_params, step),
    F_END};
const fdesc mp_lower_signal_framer_fields[] = {
    F_I32(mpk_signal_framer_params, frame_size), F_I32(mpk_signal_framer_params, frame_step),
    F_I32(mpk_signal_framer_params, outer_dims), F_I32(mpk_signal_framer_params, n_frames),
    F_I32(mpk_signal_framer_params, prefill), F_END};
const fdesc mp_lower_signal_overlap_add_fields[] = {
    F_I32(mpk_signal_overlap_add_params, type), F_I32(mpk_signal_overlap_add_params, frame_size),
    F_I32(mpk_signal_overlap_add_params, frame_step),
    F_I32(mpk_signal_overlap_add_params, outer_dims),
    F_I32(mpk_signal_overlap_add_params, n_frames), F_END};

/* ---- options ------------------------------------------------------------------ */

typedef struct sigopts {
  fx_buf b;
  fx_map m;
  char what[96];
} sigopts;

/* Open the op's custom options as a flexbuffer map.  A buffer that does
 * not parse is a model error (reported with its byte offset). */
static mp_status open_options(mp_lower_ctx *c, sigopts *o) {
  const mp_op_def *od = c->op->def;
  const mp_model *m = c->g->model;
  snprintf(o->what, sizeof o->what, "operator %u (%s): custom options", c->op->model_index,
           c->op->name);
  if (!od->custom_options || od->custom_options_size == 0)
    return mp_lower_malformed(c, "has no custom options (a flexbuffer map)");
  uint64_t base = (uint64_t)(od->custom_options - m->bytes);
  fx_init(&o->b, od->custom_options, od->custom_options_size, m->path, base, o->what, c->dx);
  fx_ref root;
  if (!fx_root(&o->b, &root) || !fx_as_map(&o->b, &root, &o->m)) return MP_ERR_MODEL;
  return MP_OK;
}

/* Option `idx` as TFLM reads it (by position), which must be `key`, an
 * integer in [lo, hi]. */
static mp_status opt_int(mp_lower_ctx *c, sigopts *o, uint32_t idx, const char *key, int64_t lo,
                         int64_t hi, int32_t *out) {
  const char *k = NULL;
  fx_ref v;
  int64_t x;
  if (idx >= o->m.n)
    return mp_lower_malformed(c, "its custom options have %u entries: '%s' (entry %u) is missing",
                              o->m.n, key, idx);
  if (!fx_map_key(&o->m, idx, &k) || !fx_map_value(&o->m, idx, &v)) return MP_ERR_MODEL;
  if (strcmp(k, key) != 0)
    return mp_lower_unsupported(c, "custom option %u is '%.40s' where TensorFlow Lite Micro reads "
                                   "'%s'", idx, k, key);
  if (!fx_as_i64(&o->b, &v, key, &x)) return MP_ERR_MODEL;
  if (x < lo || x > hi)
    return mp_lower_unsupported(c, "custom option '%s' = %lld is outside [%lld, %lld]", key,
                                (long long)x, (long long)lo, (long long)hi);
  *out = (int32_t)x;
  return MP_OK;
}

/* ---- tensor checks -------------------------------------------------------------- */

/* Tensor t exists, has type dt and, when rank >= 0, that rank. */
static bool tensor_is(const mp_lower_ctx *c, int32_t t, int32_t dt, int32_t rk) {
  return t >= 0 && dtype(c, t) == dt && (rk < 0 || rank(c, t) == (uint32_t)rk);
}

static mp_status want(mp_lower_ctx *c, uint32_t n_in, uint32_t n_out) {
  if (c->op->n_inputs != n_in || c->op->n_outputs != n_out)
    return mp_lower_malformed(c, "has %u inputs and %u outputs (expected %u and %u)",
                              c->op->n_inputs, c->op->n_outputs, n_in, n_out);
  return MP_OK;
}

static mp_status bad_types(mp_lower_ctx *c, const char *expected) {
  return mp_lower_unsupported(c, "tensor types or ranks other than %s", expected);
}

/* Element i of a constant int16 tensor. */
static int32_t const_i16(const mp_lower_ctx *c, int32_t t, uint64_t i) {
  const uint8_t *p = c->g->tensors[t].data + 2 * i;
  return (int16_t)(uint16_t)(p[0] | (p[1] << 8));
}

/* ---- the operators ---------------------------------------------------------------- */

static mp_status lower_window(mp_lower_ctx *c) {
  mp_status st = want(c, 2, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), w = in_t(c, 1), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_INT16, -1) || !tensor_is(c, w, MP_DTYPE_INT16, 1) ||
      !tensor_is(c, out, MP_DTYPE_INT16, (int32_t)rank(c, in)) || rank(c, in) < 1)
    return bad_types(c, "int16 input and output of one rank, int16 weights of rank 1");
  mpk_signal_window_params *p = &c->lo->params.signal_window;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "shift", 0, 31, &p->shift)) != MP_OK || c->lo->reason[0])
    return st;
  if (!elems_i32(c, in, &p->size) || !elems_i32(c, w, &p->weight_size))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  if (elems(c, out) != elems(c, in))
    return mp_lower_malformed(c, "input and output differ in size");
  if (p->weight_size <= 0 || p->size % p->weight_size != 0)
    return mp_lower_unsupported(c, "an input of %d samples that %d window weights do not divide "
                                   "(TensorFlow Lite Micro would read past the input)",
                                p->size, p->weight_size);
  mp_lower_set_kernel(c, MP_K_SIGNAL_WINDOW);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, w, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  mp_lower_elementwise_overlap(c, 0, in, 2, out);
  return MP_OK;
}

static mp_status lower_fft_auto_scale(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 2);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0), scale = out_t(c, 1);
  if (!tensor_is(c, in, MP_DTYPE_INT16, 1) || !tensor_is(c, out, MP_DTYPE_INT16, 1) ||
      !tensor_is(c, scale, MP_DTYPE_INT32, 0))
    return bad_types(c, "int16 input and output of rank 1 and an int32 scalar");
  mpk_signal_fft_auto_scale_params *p = &c->lo->params.signal_fft_auto_scale;
  if (!elems_i32(c, out, &p->size)) return mp_lower_unsupported(c, "more than 2^31 elements");
  if (elems(c, in) != elems(c, out)) return mp_lower_malformed(c, "input and output differ in size");
  mp_lower_set_kernel(c, MP_K_SIGNAL_FFT_AUTO_SCALE);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  mp_lower_add_arg(c, scale, true, "int32_t *");
  return MP_OK;
}

/* KISS FFT's kf_factor: powers of 4, then 2, then odd numbers from 3,
 * giving up at floor(sqrt(n)) (the rest is one prime factor).  Pairs of
 * (radix, remaining length) into f; their count. */
static uint32_t kiss_factor(int32_t n, int32_t *f) {
  uint32_t k = 0;
  int32_t p = 4;
  const double floor_sqrt = floor(sqrt((double)n));
  do {
    while (n % p) {
      switch (p) {
      case 4: p = 2; break;
      case 2: p = 3; break;
      default: p += 2; break;
      }
      if (p > floor_sqrt) p = n;
    }
    n /= p;
    f[2 * k] = p;
    f[2 * k + 1] = n;
    k++;
  } while (n > 1);
  return k;
}

/* kf_cexp of a twiddle as KISS FFT's build for `type` stores it: fixed
 * point rounds SAMP_MAX * cos / sin to the nearest integer (half up),
 * float keeps cos / sin rounded to float.  As two int32 (float bits). */
static void twiddle(int32_t type, double phase, int32_t *re, int32_t *im) {
  if (type == MPK_TYPE_FLOAT32) {
    float r = (float)cos(phase), i = (float)sin(phase);
    memcpy(re, &r, 4);
    memcpy(im, &i, 4);
    return;
  }
  const double samp_max = type == MPK_TYPE_INT16 ? 32767.0 : 2147483647.0;
  *re = (int32_t)floor(.5 + samp_max * cos(phase));
  *im = (int32_t)floor(.5 + samp_max * sin(phase));
}

/* KISS FFT's tables for the fft_length / 2 complex transform of p->type,
 * as kiss_fftr_alloc builds them for the forward or (inverse) the inverse
 * transform: the factors, the twiddles and the real transform's super
 * twiddles, into p's arrays. */
static mp_status kiss_tables(mp_lower_ctx *c, mpk_signal_rfft_params *p, bool inverse) {
  const int32_t n = p->fft_length / 2, type = p->type;
  int32_t factors[64];
  uint32_t nf = kiss_factor(n, factors);
  p->n_factors = (int32_t)nf;
  p->max_radix = 0;
  for (uint32_t k = 0; k < nf; k++)
    if (factors[2 * k] > 5 && factors[2 * k] > p->max_radix) p->max_radix = factors[2 * k];
  int32_t *fa = mp_lower_add_array(c->lo, "factors", 2 * nf);
  int32_t *tw = mp_lower_add_array(c->lo, "twiddles", 2 * (uint32_t)n);
  int32_t *sup = mp_lower_add_array(c->lo, "super_twiddles", 2 * (uint32_t)(n / 2));
  if (!fa || !tw || !sup) return MP_ERR_NOMEM;
  memcpy(fa, factors, 2 * nf * sizeof(int32_t));
  /* kiss_fft_alloc's and kiss_fftr_alloc's phases, in their expression
   * order (the constants are KISS FFT's); the inverse negates each */
  const double pi = 3.141592653589793238462643383279502884197169399375105820974944;
  for (int32_t i = 0; i < n; i++) {
    double phase = -2 * pi * i / n;
    if (inverse) phase *= -1;
    twiddle(type, phase, &tw[2 * i], &tw[2 * i + 1]);
  }
  for (int32_t i = 0; i < n / 2; i++) {
    double phase = -3.14159265358979323846264338327 * ((double)(i + 1) / n + .5);
    if (inverse) phase *= -1;
    twiddle(type, phase, &sup[2 * i], &sup[2 * i + 1]);
  }
  p->factors = fa;
  p->twiddles = tw;
  p->super_twiddles = sup;
  return MP_OK;
}

/* What SignalRfft and SignalIrfft share: one int16, int32 or float32
 * input and output of one rank, the options T (the input's TensorType)
 * and an even fft_length, the element counts.  *done tells the caller to
 * return the status (a refusal, a malformed model or an error). */
static mp_status fft_common(mp_lower_ctx *c, int32_t *in, int32_t *out, int32_t *in_size,
                            int32_t *out_size, bool *done) {
  *done = true;
  mp_status st = want(c, 1, 1);
  if (st != MP_OK) return st;
  *in = in_t(c, 0);
  *out = out_t(c, 0);
  int32_t dt = *in >= 0 ? dtype(c, *in) : -1;
  int32_t type = dt == MP_DTYPE_INT16 ? MPK_TYPE_INT16
               : dt == MP_DTYPE_INT32 ? MPK_TYPE_INT32
               : dt == MP_DTYPE_FLOAT32 ? MPK_TYPE_FLOAT32 : -1;
  if (type < 0 || !tensor_is(c, *out, dt, (int32_t)rank(c, *in)) || rank(c, *in) < 1)
    return bad_types(c, "int16, int32 or float32 input and output of one rank");
  mpk_signal_rfft_params *p = &c->lo->params.signal_rfft;
  sigopts o;
  int32_t tflite_type = 0;
  /* T: the element type as a TensorType, which must be the input's */
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "T", 0, 255, &tflite_type)) != MP_OK || c->lo->reason[0] ||
      (st = opt_int(c, &o, 1, "fft_length", 2, 1 << 20, &p->fft_length)) != MP_OK ||
      c->lo->reason[0])
    return st;
  if (tflite_type != dt)
    return mp_lower_malformed(c, "custom option 'T' says %s but the input is %s",
                              mp_dtype_name(tflite_type), mp_dtype_name(dt));
  if (p->fft_length % 2 != 0)
    return mp_lower_unsupported(c, "an odd fft_length %d (KISS FFT's real transform needs an "
                                   "even one)", p->fft_length);
  if (!elems_i32(c, *in, in_size) || !elems_i32(c, *out, out_size))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  p->type = type;
  *done = false;
  return MP_OK;
}

static mp_status lower_rfft(mp_lower_ctx *c) {
  int32_t in, out, in_size, out_size;
  bool done;
  mp_status st = fft_common(c, &in, &out, &in_size, &out_size, &done);
  if (done) return st;
  mpk_signal_rfft_params *p = &c->lo->params.signal_rfft;
  p->input_length = dim(c, in, rank(c, in) - 1);
  const int32_t n = p->fft_length / 2, out_last = dim(c, out, rank(c, out) - 1);
  if (p->input_length <= 0 || in_size % p->input_length != 0)
    return mp_lower_malformed(c, "input shape has an empty last dimension");
  p->batches = in_size / p->input_length;
  p->output_length = out_last / 2;
  if (p->input_length > p->fft_length)
    return mp_lower_unsupported(c, "rows of %d samples longer than fft_length %d",
                                p->input_length, p->fft_length);
  if (out_last != 2 * (n + 1) || (int64_t)out_size != (int64_t)p->batches * out_last)
    return mp_lower_unsupported(c, "an output of %d values per row for fft_length %d (TensorFlow "
                                   "Lite Micro writes %d)", out_last, p->fft_length, 2 * (n + 1));
  if ((st = kiss_tables(c, p, false)) != MP_OK) return st;
  c->lo->scratch_bytes = 4u * (2u * (uint64_t)p->fft_length + 2u * (uint64_t)p->max_radix);
  c->lo->scratch_align = 8;
  mp_lower_set_kernel(c, MP_K_SIGNAL_RFFT);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_irfft(mp_lower_ctx *c) {
  int32_t in, out, in_size, out_size;
  bool done;
  mp_status st = fft_common(c, &in, &out, &in_size, &out_size, &done);
  if (done) return st;
  mpk_signal_rfft_params *p = &c->lo->params.signal_rfft;
  const int32_t n = p->fft_length / 2, in_last = dim(c, in, rank(c, in) - 1),
                out_last = dim(c, out, rank(c, out) - 1);
  if (in_last != 2 * (n + 1) || out_last != p->fft_length)
    return mp_lower_unsupported(c, "rows of %d values in and %d out for fft_length %d (TensorFlow "
                                   "Lite Micro reads %d and writes %d)", in_last, out_last,
                                p->fft_length, 2 * (n + 1), p->fft_length);
  p->input_length = n + 1;
  p->output_length = p->fft_length;
  p->batches = in_size / in_last;
  if ((int64_t)out_size != (int64_t)p->batches * out_last)
    return mp_lower_malformed(c, "%d rows in and %d out", p->batches, out_size / out_last);
  if ((st = kiss_tables(c, p, true)) != MP_OK) return st;
  c->lo->scratch_bytes = 8u * (3u * (uint64_t)n + 1u + (uint64_t)p->max_radix);
  c->lo->scratch_align = 8;
  mp_lower_set_kernel(c, MP_K_SIGNAL_IRFFT);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

static mp_status lower_energy(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_INT16, 1) || !tensor_is(c, out, MP_DTYPE_UINT32, 1))
    return bad_types(c, "an int16 input and a uint32 output of rank 1");
  mpk_signal_energy_params *p = &c->lo->params.signal_energy;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "end_index", 0, INT32_MAX, &p->end_index)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 1, "start_index", 0, INT32_MAX, &p->start_index)) != MP_OK ||
      c->lo->reason[0])
    return st;
  if (!elems_i32(c, out, &p->size)) return mp_lower_unsupported(c, "more than 2^31 elements");
  if (p->start_index > p->end_index || p->end_index > p->size ||
      2 * (uint64_t)p->end_index > elems(c, in))
    return mp_lower_unsupported(c, "bins [%d, %d) outside a spectrum of %llu values and an "
                                   "output of %d (TensorFlow Lite Micro would read or write "
                                   "past them)", p->start_index, p->end_index,
                                (unsigned long long)elems(c, in), p->size);
  mp_lower_set_kernel(c, MP_K_SIGNAL_ENERGY);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "uint32_t *");
  return MP_OK;
}

static mp_status lower_filter_bank(mp_lower_ctx *c) {
  mp_status st = want(c, 6, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_UINT32, 1) || !tensor_is(c, out, MP_DTYPE_UINT64, 1))
    return bad_types(c, "a uint32 input, int16 tables and a uint64 output, all of rank 1");
  for (uint32_t k = 1; k < 6; k++)
    if (!tensor_is(c, in_t(c, k), MP_DTYPE_INT16, 1))
      return bad_types(c, "a uint32 input, int16 tables and a uint64 output, all of rank 1");
  for (uint32_t k = 1; k < 6; k++)
    if (!is_const(c, in_t(c, k)))
      return mp_lower_unsupported(c, "filter bank tables that are not constants");
  mpk_signal_filter_bank_params *p = &c->lo->params.signal_filter_bank;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "num_channels", 0, 1 << 16, &p->num_channels)) != MP_OK ||
      c->lo->reason[0])
    return st;
  const uint64_t nc = (uint64_t)p->num_channels;
  const int32_t w = in_t(c, 1), uw = in_t(c, 2), fs = in_t(c, 3), ws = in_t(c, 4),
                wd = in_t(c, 5);
  if (elems(c, out) != nc)
    return mp_lower_unsupported(c, "an output of %llu channels for num_channels %d",
                                (unsigned long long)elems(c, out), p->num_channels);
  if (elems(c, fs) < nc + 1 || elems(c, ws) < nc + 1 || elems(c, wd) < nc + 1)
    return mp_lower_malformed(c, "channel tables need num_channels + 1 = %llu entries",
                              (unsigned long long)(nc + 1));
  /* every index TFLM's loop computes stays inside its tensor */
  for (uint64_t ch = 0; ch <= nc; ch++) {
    int64_t f0 = const_i16(c, fs, ch), w0 = const_i16(c, ws, ch), n = const_i16(c, wd, ch);
    if (n < 0 || f0 < 0 || w0 < 0 || (uint64_t)(f0 + n) > elems(c, in) ||
        (uint64_t)(w0 + n) > elems(c, w) || (uint64_t)(w0 + n) > elems(c, uw))
      return mp_lower_malformed(c, "channel %llu (frequency start %lld, weight start %lld, width "
                                   "%lld) reaches outside the spectrum or the weights",
                                (unsigned long long)ch, (long long)f0, (long long)w0,
                                (long long)n);
  }
  mp_lower_set_kernel(c, MP_K_SIGNAL_FILTER_BANK);
  mp_lower_add_arg(c, in, false, "const uint32_t *");
  for (uint32_t k = 1; k < 6; k++) mp_lower_add_arg(c, in_t(c, k), false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "uint64_t *");
  return MP_OK;
}

static mp_status lower_filter_bank_sqrt(mp_lower_ctx *c) {
  mp_status st = want(c, 2, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), scale = in_t(c, 1), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_UINT64, 1) || !tensor_is(c, scale, MP_DTYPE_INT32, 0) ||
      !tensor_is(c, out, MP_DTYPE_UINT32, 1))
    return bad_types(c, "a uint64 input, an int32 scalar and a uint32 output");
  mpk_signal_filter_bank_sqrt_params *p = &c->lo->params.signal_filter_bank_sqrt;
  if (!elems_i32(c, in, &p->num_channels)) return mp_lower_unsupported(c, "more than 2^31 elements");
  if (elems(c, out) != elems(c, in)) return mp_lower_malformed(c, "input and output differ in size");
  mp_lower_set_kernel(c, MP_K_SIGNAL_FILTER_BANK_SQRT);
  mp_lower_add_arg(c, in, false, "const uint64_t *");
  mp_lower_add_arg(c, scale, false, "const int32_t *");
  mp_lower_add_arg(c, out, true, "uint32_t *");
  return MP_OK;
}

static mp_status lower_spectral_subtraction(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 2);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0), noise = out_t(c, 1);
  if (!tensor_is(c, in, MP_DTYPE_UINT32, 1) || !tensor_is(c, out, MP_DTYPE_UINT32, 1) ||
      !tensor_is(c, noise, MP_DTYPE_UINT32, 1))
    return bad_types(c, "uint32 input and outputs of rank 1");
  mpk_signal_spectral_subtraction_params *p = &c->lo->params.signal_spectral_subtraction;
  sigopts o;
  int32_t clamping = 0;
  /* TFLM's positions: the keys in name order */
  struct {
    const char *key;
    int64_t lo, hi;
    int32_t *to;
  } keys[] = {{"alternate_one_minus_smoothing", INT32_MIN, INT32_MAX,
               &p->alternate_one_minus_smoothing},
              {"alternate_smoothing", INT32_MIN, INT32_MAX, &p->alternate_smoothing},
              {"clamping", 0, 1, &clamping},
              {"min_signal_remaining", INT32_MIN, INT32_MAX, &p->min_signal_remaining},
              {"num_channels", 0, 1 << 16, &p->num_channels},
              {"one_minus_smoothing", INT32_MIN, INT32_MAX, &p->one_minus_smoothing},
              {"smoothing", INT32_MIN, INT32_MAX, &p->smoothing},
              {"smoothing_bits", 0, 31, &p->smoothing_bits},
              {"spectral_subtraction_bits", 0, 63, &p->spectral_subtraction_bits}};
  if ((st = open_options(c, &o)) != MP_OK) return st;
  for (uint32_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    if ((st = opt_int(c, &o, k, keys[k].key, keys[k].lo, keys[k].hi, keys[k].to)) != MP_OK ||
        c->lo->reason[0])
      return st;
  p->clamping = clamping;
  const uint64_t nc = (uint64_t)p->num_channels;
  if (elems(c, in) < nc || elems(c, out) < nc || elems(c, noise) != nc)
    return mp_lower_unsupported(c, "tensors of other sizes than num_channels %d", p->num_channels);
  c->lo->state_bytes = 4u * nc;
  c->lo->state_align = 4;
  mp_lower_set_kernel(c, MP_K_SIGNAL_SPECTRAL_SUBTRACTION);
  mp_lower_add_arg(c, in, false, "const uint32_t *");
  mp_lower_add_arg(c, out, true, "uint32_t *");
  mp_lower_add_arg(c, noise, true, "uint32_t *");
  mp_lower_add_arg(c, mp_lower_state_of(c->g, c->op->index), true, "uint32_t *");
  return MP_OK;
}

/* The highest table index TFLM's WideDynamicFunction reads, plus one. */
#define PCAN_LUT_MIN 125

static mp_status lower_pcan(mp_lower_ctx *c) {
  mp_status st = want(c, 3, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), noise = in_t(c, 1), lut = in_t(c, 2), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_UINT32, 1) || !tensor_is(c, noise, MP_DTYPE_UINT32, 1) ||
      !tensor_is(c, lut, MP_DTYPE_INT16, 1) || !tensor_is(c, out, MP_DTYPE_UINT32, 1))
    return bad_types(c, "uint32 input, noise estimate and output and an int16 gain table");
  mpk_signal_pcan_params *p = &c->lo->params.signal_pcan;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "snr_shift", 0, 63, &p->snr_shift)) != MP_OK || c->lo->reason[0])
    return st;
  if (!elems_i32(c, in, &p->num_channels)) return mp_lower_unsupported(c, "more than 2^31 elements");
  if (p->num_channels <= 0 || elems(c, noise) != elems(c, in) || elems(c, out) != elems(c, in))
    return mp_lower_malformed(c, "input, noise estimate and output must have one non-zero size");
  if (elems(c, lut) < PCAN_LUT_MIN)
    return mp_lower_unsupported(c, "a gain table of %llu entries (TensorFlow Lite Micro reads up "
                                   "to %d)", (unsigned long long)elems(c, lut), PCAN_LUT_MIN);
  mp_lower_set_kernel(c, MP_K_SIGNAL_PCAN);
  mp_lower_add_arg(c, in, false, "const uint32_t *");
  mp_lower_add_arg(c, noise, false, "const uint32_t *");
  mp_lower_add_arg(c, lut, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "uint32_t *");
  mp_lower_elementwise_overlap(c, 0, in, 3, out);
  return MP_OK;
}

/* Log32's correction table: 65536 * (log2(1 + i/128) - i/128), rounded
 * half up, for i = 0..128. */
#define LOG_TABLE_SIZE 129

static mp_status lower_filter_bank_log(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_UINT32, 1) || !tensor_is(c, out, MP_DTYPE_INT16, 1))
    return bad_types(c, "a uint32 input and an int16 output of rank 1");
  mpk_signal_filter_bank_log_params *p = &c->lo->params.signal_filter_bank_log;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "input_correction_bits", 0, 31, &p->correction_bits)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 1, "output_scale", INT32_MIN, INT32_MAX, &p->output_scale)) != MP_OK ||
      c->lo->reason[0])
    return st;
  if (!elems_i32(c, in, &p->num_channels)) return mp_lower_unsupported(c, "more than 2^31 elements");
  if (elems(c, out) != elems(c, in)) return mp_lower_malformed(c, "input and output differ in size");
  int32_t *t = mp_lower_add_array(c->lo, "log_table", LOG_TABLE_SIZE);
  if (!t) return MP_ERR_NOMEM;
  for (int32_t i = 0; i < LOG_TABLE_SIZE; i++) {
    double x = i / 128.0;
    t[i] = (int32_t)floor(65536.0 * (log2(1.0 + x) - x) + 0.5);
  }
  p->log_table = t;
  mp_lower_set_kernel(c, MP_K_SIGNAL_FILTER_BANK_LOG);
  mp_lower_add_arg(c, in, false, "const uint32_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  return MP_OK;
}

/* ---- the streaming operators: their queues are op-local state ---------------------- */

/* The largest state the streaming operators ask for (bytes). */
#define STREAM_STATE_MAX ((uint64_t)1 << 28)

static mp_status want_state(mp_lower_ctx *c, uint64_t bytes) {
  if (bytes > STREAM_STATE_MAX)
    return mp_lower_unsupported(c, "a state of %llu bytes (at most %llu)",
                                (unsigned long long)bytes, (unsigned long long)STREAM_STATE_MAX);
  c->lo->state_bytes = bytes;
  c->lo->state_align = 4;
  return MP_OK;
}

/* The rows of t's last dimension: *inner its size, *outer their count. */
static bool rows_of(const mp_lower_ctx *c, int32_t t, int32_t *inner, int32_t *outer) {
  int32_t n;
  if (rank(c, t) < 1 || !elems_i32(c, t, &n)) return false;
  *inner = dim(c, t, rank(c, t) - 1);
  if (*inner <= 0) return false;
  *outer = n / *inner;
  return true;
}

static mp_status lower_delay(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0);
  if (!tensor_is(c, in, MP_DTYPE_INT16, -1) || !tensor_is(c, out, MP_DTYPE_INT16, -1))
    return bad_types(c, "int16 input and output");
  mpk_signal_delay_params *p = &c->lo->params.signal_delay;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "delay_length", 0, 1 << 20, &p->delay_length)) != MP_OK ||
      c->lo->reason[0])
    return st;
  if (!rows_of(c, in, &p->frame_size, &p->outer_dims))
    return mp_lower_unsupported(c, "an empty input or one of more than 2^31 elements");
  if (elems(c, out) != elems(c, in))
    return mp_lower_malformed(c, "input and output differ in size");
  /* one sample's room when there is no delay, so that the op has its tensor */
  const uint64_t line = p->delay_length > 0 ? (uint64_t)p->delay_length : 1;
  if ((st = want_state(c, 2u * line * (uint64_t)p->outer_dims)) != MP_OK || c->lo->reason[0])
    return st;
  mp_lower_set_kernel(c, MP_K_SIGNAL_DELAY);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  mp_lower_add_arg(c, mp_lower_state_of(c->g, c->op->index), true, "int16_t *");
  return MP_OK;
}

static mp_status lower_stacker(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 2);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0), valid = out_t(c, 1);
  if (!tensor_is(c, in, MP_DTYPE_INT16, 1) || !tensor_is(c, out, MP_DTYPE_INT16, 1) ||
      !tensor_is(c, valid, MP_DTYPE_BOOL, 0))
    return bad_types(c, "int16 input and output of rank 1 and a bool scalar");
  mpk_signal_stacker_params *p = &c->lo->params.signal_stacker;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "num_channels", 1, 1 << 16, &p->num_channels)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 1, "stacker_left_context", 0, 1 << 10, &p->left_context)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 2, "stacker_right_context", 0, 1 << 10, &p->right_context)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 3, "stacker_step", 1, 1 << 11, &p->step)) != MP_OK || c->lo->reason[0])
    return st;
  const int32_t frames = p->left_context + 1 + p->right_context;
  const uint64_t size = (uint64_t)p->num_channels * (uint64_t)frames;
  if (p->step > frames)
    return mp_lower_unsupported(c, "a stacker_step of %d frames beyond the %d it stacks "
                                   "(TensorFlow Lite Micro would discard samples it does not hold)",
                                p->step, frames);
  if (elems(c, in) != (uint64_t)p->num_channels)
    return mp_lower_unsupported(c, "an input of %llu values for num_channels %d",
                                (unsigned long long)elems(c, in), p->num_channels);
  if (elems(c, out) != size)
    return mp_lower_unsupported(c, "an output of %llu values where the stack holds %llu",
                                (unsigned long long)elems(c, out), (unsigned long long)size);
  if ((st = want_state(c, 8u + 2u * size)) != MP_OK || c->lo->reason[0]) return st;
  mp_lower_set_kernel(c, MP_K_SIGNAL_STACKER);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  mp_lower_add_arg(c, valid, true, "uint8_t *");
  mp_lower_add_arg(c, mp_lower_state_of(c->g, c->op->index), true, "void *");
  return MP_OK;
}

static mp_status lower_framer(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 2);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0), valid = out_t(c, 1);
  if (!tensor_is(c, in, MP_DTYPE_INT16, -1) || !tensor_is(c, valid, MP_DTYPE_BOOL, 0) ||
      !tensor_is(c, out, MP_DTYPE_INT16, (int32_t)rank(c, in) + 1))
    return bad_types(c, "an int16 input, an int16 output of one rank more and a bool scalar");
  mpk_signal_framer_params *p = &c->lo->params.signal_framer;
  sigopts o;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "frame_size", 1, 1 << 20, &p->frame_size)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 1, "frame_step", 1, 1 << 20, &p->frame_step)) != MP_OK ||
      c->lo->reason[0] ||
      (st = opt_int(c, &o, 2, "prefill", 0, 1, &p->prefill)) != MP_OK || c->lo->reason[0])
    return st;
  int32_t inner;
  if (!rows_of(c, in, &inner, &p->outer_dims))
    return mp_lower_unsupported(c, "an empty input or one of more than 2^31 elements");
  if (inner % p->frame_step != 0)
    return mp_lower_malformed(c, "rows of %d samples that frame_step %d does not divide", inner,
                              p->frame_step);
  if (p->prefill && p->frame_step > p->frame_size)
    return mp_lower_unsupported(c, "prefill with a frame_step of %d beyond frame_size %d "
                                   "(TensorFlow Lite Micro would prefill a negative count)",
                                p->frame_step, p->frame_size);
  p->n_frames = inner / p->frame_step;
  const uint64_t frames = (uint64_t)p->outer_dims * (uint64_t)p->n_frames;
  if (elems(c, out) != frames * (uint64_t)p->frame_size)
    return mp_lower_unsupported(c, "an output of %llu values for %llu frames of %d",
                                (unsigned long long)elems(c, out), (unsigned long long)frames,
                                p->frame_size);
  const uint64_t row = (uint64_t)p->frame_size + (uint64_t)p->frame_step;
  if ((st = want_state(c, 4u + 2u * row * (uint64_t)p->outer_dims)) != MP_OK || c->lo->reason[0])
    return st;
  mp_lower_set_kernel(c, MP_K_SIGNAL_FRAMER);
  mp_lower_add_arg(c, in, false, "const int16_t *");
  mp_lower_add_arg(c, out, true, "int16_t *");
  mp_lower_add_arg(c, valid, true, "uint8_t *");
  mp_lower_add_arg(c, mp_lower_state_of(c->g, c->op->index), true, "void *");
  return MP_OK;
}

static mp_status lower_overlap_add(mp_lower_ctx *c) {
  mp_status st = want(c, 1, 1);
  if (st != MP_OK) return st;
  int32_t in = in_t(c, 0), out = out_t(c, 0), dt = in >= 0 ? dtype(c, in) : -1;
  int32_t type = dt == MP_DTYPE_INT16     ? MPK_TYPE_INT16
                 : dt == MP_DTYPE_FLOAT32 ? MPK_TYPE_FLOAT32
                                          : -1;
  if (type < 0 || rank(c, in) < 2 || !tensor_is(c, out, dt, (int32_t)rank(c, in) - 1))
    return bad_types(c, "int16 or float32 frames of rank 2 or more and an output of one rank less");
  mpk_signal_overlap_add_params *p = &c->lo->params.signal_overlap_add;
  sigopts o;
  int32_t tflite_type = 0;
  if ((st = open_options(c, &o)) != MP_OK ||
      (st = opt_int(c, &o, 0, "T", 0, 255, &tflite_type)) != MP_OK || c->lo->reason[0] ||
      (st = opt_int(c, &o, 1, "frame_step", 0, 1 << 20, &p->frame_step)) != MP_OK ||
      c->lo->reason[0])
    return st;
  if (tflite_type != dt)
    return mp_lower_malformed(c, "custom option 'T' says %s but the input is %s",
                              mp_dtype_name(tflite_type), mp_dtype_name(dt));
  p->type = type;
  int32_t n;
  if (!elems_i32(c, in, &n)) return mp_lower_unsupported(c, "more than 2^31 elements");
  p->frame_size = dim(c, in, rank(c, in) - 1);
  p->n_frames = dim(c, in, rank(c, in) - 2);
  if (p->frame_size <= 0 || p->n_frames <= 0)
    return mp_lower_malformed(c, "input shape has an empty frame dimension");
  p->outer_dims = n / (p->frame_size * p->n_frames);
  if (p->frame_step > p->frame_size)
    return mp_lower_unsupported(c, "a frame_step of %d beyond frame_size %d (TensorFlow Lite "
                                   "Micro would shift its buffer by a negative count)",
                                p->frame_step, p->frame_size);
  const uint64_t outs = (uint64_t)p->outer_dims * (uint64_t)p->n_frames * (uint64_t)p->frame_step;
  if (elems(c, out) != outs)
    return mp_lower_unsupported(c, "an output of %llu values where %llu steps of %d are written",
                                (unsigned long long)elems(c, out),
                                (unsigned long long)p->outer_dims * (unsigned long long)p->n_frames,
                                p->frame_step);
  const uint64_t width = type == MPK_TYPE_INT16 ? 2u : 4u;
  if ((st = want_state(c, width * (uint64_t)p->frame_size * (uint64_t)p->outer_dims)) != MP_OK ||
      c->lo->reason[0])
    return st;
  mp_lower_set_kernel(c, MP_K_SIGNAL_OVERLAP_ADD);
  mp_lower_add_arg(c, in, false, "const void *");
  mp_lower_add_arg(c, out, true, "void *");
  mp_lower_add_arg(c, mp_lower_state_of(c->g, c->op->index), true, "void *");
  return MP_OK;
}

mp_status mp_lower_signal(mp_lower_ctx *c) {
  static const struct {
    const char *name;
    mp_status (*lower)(mp_lower_ctx *);
  } ops[] = {
      {"SignalWindow", lower_window},
      {"SignalFftAutoScale", lower_fft_auto_scale},
      {"SignalRfft", lower_rfft},
      {"SignalEnergy", lower_energy},
      {"SignalFilterBank", lower_filter_bank},
      {"SignalFilterBankSquareRoot", lower_filter_bank_sqrt},
      {"SignalFilterBankSpectralSubtraction", lower_spectral_subtraction},
      {"SignalPCAN", lower_pcan},
      {"SignalFilterBankLog", lower_filter_bank_log},
      {"SignalDelay", lower_delay},
      {"SignalStacker", lower_stacker},
      {"SignalFramer", lower_framer},
      {"SignalOverlapAdd", lower_overlap_add},
      {"SignalIrfft", lower_irfft},
  };
  const char *code = c->op->def->custom_code;
  for (size_t i = 0; code && i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(code, ops[i].name)) return ops[i].lower(c);
  return mp_lower_unsupported(c, "memplan has no kernel for %s", c->op->name);
}
