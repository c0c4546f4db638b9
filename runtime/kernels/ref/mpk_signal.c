/*
 * mpk_signal.c — the audio front end: TensorFlow Lite Micro's Signal
 * library operators (window, FFT auto-scale, real FFT, energy, filter
 * bank, square root, spectral subtraction, PCAN, log, delay, stacker,
 * framer, overlap-add, inverse real FFT).
 *
 * The one idea: reproduce TFLM's integer arithmetic step by step — the
 * same widths, the same truncations where its C++ stores into a narrower
 * type, the same rounding constants — so that the front end's features,
 * and everything a network computes from them, are bit-exact.  The real
 * FFT is KISS FFT's algorithm (the one TFLM links): mixed radix 4, 2, 3, 5
 * and generic, decimation in time, each stage dividing by its radix in
 * fixed point, then the split of the half-length complex transform into
 * the real one.  Its twiddles, factors and log table are computed when
 * the model is converted (src/lower/signal.c) and arrive in the params.
 *
 * Arithmetic is done in 64 bits and narrowed where TFLM's code narrows
 * (int16 / int32 wrap-around, as its targets do), so no kernel relies on
 * signed overflow.  The streaming operators (delay, stacker, framer,
 * overlap-add) keep their queues in the op's state.  The inverse real
 * FFT is KISS FFT's kiss_fftri on the same machinery, with the inverse
 * tables and the radix-4 butterfly turned.
 */
#include "mpk.h"

#include <string.h>

/* ---- small helpers ------------------------------------------------------------ */

/* Bit length of x (0 for 0), TFLM's MostSignificantBit32 for x != 0. */
static int32_t bit_length32(uint32_t x) {
  int32_t n = 0;
  while (x) {
    x >>= 1;
    n++;
  }
  return n;
}

static int32_t bit_length64(uint64_t x) {
  int32_t n = 0;
  while (x) {
    x >>= 1;
    n++;
  }
  return n;
}

static int16_t wrap16(int64_t v) { return (int16_t)(uint16_t)(uint64_t)v; }
static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* ---- SignalWindow ------------------------------------------------------------- */

MPK_API int32_t mpk_signal_window(const mpk_signal_window_params *p, const int16_t *input,
                                  const int16_t *weights, int16_t *output, void *scratch) {
  (void)scratch;
  if (!input || !weights || !output || p->size < 0 || p->weight_size <= 0 ||
      p->size % p->weight_size != 0 || p->shift < 0 || p->shift > 31)
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    int32_t raw = ((int32_t)input[i] * weights[i % p->weight_size]) >> p->shift;
    output[i] = (int16_t)(raw < -32768 ? -32768 : raw > 32767 ? 32767 : raw);
  }
  return MPK_OK;
}

/* ---- SignalFftAutoScale ------------------------------------------------------- */

MPK_API int32_t mpk_signal_fft_auto_scale(const mpk_signal_fft_auto_scale_params *p,
                                          const int16_t *input, int16_t *output, int32_t *scale,
                                          void *scratch) {
  (void)scratch;
  if (!input || !output || !scale || p->size < 0) return MPK_ERR_PARAMS;
  /* TFLM's MaxAbs16 keeps the maximum in an int16: -(-32768) compares as
   * 32768 but is stored as -32768, as there */
  int16_t max = 0;
  for (int32_t i = 0; i < p->size; i++) {
    const int32_t v = input[i];
    if (v > max)
      max = (int16_t)v;
    else if (-v > max)
      max = wrap16(-v);
  }
  /* MostSignificantBit32 of 0 is 32 there (GCC's clz form): no scaling */
  int32_t msb = max ? bit_length32((uint32_t)max) : 32;
  int32_t bits = 16 - msb - 1;
  if (bits < 0) bits = 0;
  for (int32_t i = 0; i < p->size; i++) output[i] = wrap16((int64_t)input[i] * (1 << bits));
  *scale = bits;
  return MPK_OK;
}

/* ---- SignalRfft: KISS FFT, fixed point ------------------------------------------ */

/* Complex values of the fixed-point transform, held in int32 whatever the
 * sample width: every store narrows to `bits` as KISS FFT's does. */
typedef struct cq {
  int32_t r, i;
} cq;

typedef struct fftq {
  int32_t bits;    /* 16 or 32 */
  int64_t maxval;  /* SAMP_MAX: 2^(bits-1) - 1 */
  int32_t nfft;    /* complex length */
  const cq *tw;
  cq *generic;     /* max_radix values for the generic butterfly */
  int32_t inverse; /* kiss_fft_alloc's inverse: the radix-4 butterfly turns the other way */
} fftq;

/* A store into a kiss_fft_scalar. */
static int32_t st(const fftq *f, int64_t v) { return f->bits == 16 ? wrap16(v) : wrap32(v); }

/* C's int arithmetic on kiss_fft_scalar operands: exact for int16, and
 * wrapping for int32 (what the next right shift sees). */
static int64_t as_int(const fftq *f, int64_t v) { return f->bits == 16 ? v : wrap32(v); }

/* sround(x): drop the fraction bits, rounding half up, then store. */
static int32_t sround(const fftq *f, int64_t x) {
  const int32_t frac = f->bits - 1;
  if (f->bits == 16) x = wrap32(x); /* SAMPPROD is int32 there */
  return st(f, (x + ((int64_t)1 << (frac - 1))) >> frac);
}

static int32_t smul_r(const fftq *f, int32_t a, int32_t b) { return sround(f, (int64_t)a * b); }

static cq cmul(const fftq *f, cq a, cq b) {
  cq m;
  m.r = sround(f, (int64_t)a.r * b.r - (int64_t)a.i * b.i);
  m.i = sround(f, (int64_t)a.r * b.i + (int64_t)a.i * b.r);
  return m;
}

static void fixdiv(const fftq *f, cq *c, int32_t div) {
  const int32_t k = (int32_t)(f->maxval / div);
  c->r = smul_r(f, c->r, k);
  c->i = smul_r(f, c->i, k);
}

static cq cadd(const fftq *f, cq a, cq b) {
  cq m = {st(f, (int64_t)a.r + b.r), st(f, (int64_t)a.i + b.i)};
  return m;
}
static cq csub(const fftq *f, cq a, cq b) {
  cq m = {st(f, (int64_t)a.r - b.r), st(f, (int64_t)a.i - b.i)};
  return m;
}

static void bfly2_q(const fftq *f, cq *F, size_t fstride, int32_t m) {
  for (int32_t k = 0; k < m; k++) {
    fixdiv(f, &F[k], 2);
    fixdiv(f, &F[k + m], 2);
    cq t = cmul(f, F[k + m], f->tw[(size_t)k * fstride]);
    F[k + m] = csub(f, F[k], t);
    F[k] = cadd(f, F[k], t);
  }
}

static void bfly4_q(const fftq *f, cq *F, size_t fstride, int32_t m) {
  for (int32_t k = 0; k < m; k++) {
    cq *a = &F[k], *b = &F[k + m], *c = &F[k + 2 * m], *d = &F[k + 3 * m];
    fixdiv(f, a, 4);
    fixdiv(f, b, 4);
    fixdiv(f, c, 4);
    fixdiv(f, d, 4);
    cq s0 = cmul(f, *b, f->tw[(size_t)k * fstride]);
    cq s1 = cmul(f, *c, f->tw[(size_t)k * fstride * 2]);
    cq s2 = cmul(f, *d, f->tw[(size_t)k * fstride * 3]);
    cq s5 = csub(f, *a, s1);
    *a = cadd(f, *a, s1);
    cq s3 = cadd(f, s0, s2);
    cq s4 = csub(f, s0, s2);
    *c = csub(f, *a, s3);
    *a = cadd(f, *a, s3);
    if (f->inverse) {
      b->r = st(f, (int64_t)s5.r - s4.i);
      b->i = st(f, (int64_t)s5.i + s4.r);
      d->r = st(f, (int64_t)s5.r + s4.i);
      d->i = st(f, (int64_t)s5.i - s4.r);
    } else {
      b->r = st(f, (int64_t)s5.r + s4.i);
      b->i = st(f, (int64_t)s5.i - s4.r);
      d->r = st(f, (int64_t)s5.r - s4.i);
      d->i = st(f, (int64_t)s5.i + s4.r);
    }
  }
}

static void bfly3_q(const fftq *f, cq *F, size_t fstride, int32_t m) {
  const cq epi3 = f->tw[fstride * (size_t)m];
  for (int32_t k = 0; k < m; k++) {
    cq *a = &F[k], *b = &F[k + m], *c = &F[k + 2 * m];
    fixdiv(f, a, 3);
    fixdiv(f, b, 3);
    fixdiv(f, c, 3);
    cq s1 = cmul(f, *b, f->tw[(size_t)k * fstride]);
    cq s2 = cmul(f, *c, f->tw[(size_t)k * fstride * 2]);
    cq s3 = cadd(f, s1, s2);
    cq s0 = csub(f, s1, s2);
    b->r = st(f, (int64_t)a->r - (as_int(f, s3.r) >> 1));
    b->i = st(f, (int64_t)a->i - (as_int(f, s3.i) >> 1));
    s0.r = smul_r(f, s0.r, epi3.i);
    s0.i = smul_r(f, s0.i, epi3.i);
    *a = cadd(f, *a, s3);
    c->r = st(f, (int64_t)b->r + s0.i);
    c->i = st(f, (int64_t)b->i - s0.r);
    b->r = st(f, (int64_t)b->r - s0.i);
    b->i = st(f, (int64_t)b->i + s0.r);
  }
}

static void bfly5_q(const fftq *f, cq *F, size_t fstride, int32_t m) {
  const cq ya = f->tw[fstride * (size_t)m], yb = f->tw[fstride * 2 * (size_t)m];
  for (int32_t u = 0; u < m; u++) {
    cq *f0 = &F[u], *f1 = &F[u + m], *f2 = &F[u + 2 * m], *f3 = &F[u + 3 * m],
       *f4 = &F[u + 4 * m];
    fixdiv(f, f0, 5);
    fixdiv(f, f1, 5);
    fixdiv(f, f2, 5);
    fixdiv(f, f3, 5);
    fixdiv(f, f4, 5);
    cq s0 = *f0;
    cq s1 = cmul(f, *f1, f->tw[(size_t)u * fstride]);
    cq s2 = cmul(f, *f2, f->tw[2 * (size_t)u * fstride]);
    cq s3 = cmul(f, *f3, f->tw[3 * (size_t)u * fstride]);
    cq s4 = cmul(f, *f4, f->tw[4 * (size_t)u * fstride]);
    cq s7 = cadd(f, s1, s4), s10 = csub(f, s1, s4);
    cq s8 = cadd(f, s2, s3), s9 = csub(f, s2, s3);
    f0->r = st(f, (int64_t)f0->r + as_int(f, (int64_t)s7.r + s8.r));
    f0->i = st(f, (int64_t)f0->i + as_int(f, (int64_t)s7.i + s8.i));
    cq s5, s6, s11, s12;
    s5.r = st(f, (int64_t)s0.r + smul_r(f, s7.r, ya.r) + smul_r(f, s8.r, yb.r));
    s5.i = st(f, (int64_t)s0.i + smul_r(f, s7.i, ya.r) + smul_r(f, s8.i, yb.r));
    s6.r = st(f, (int64_t)smul_r(f, s10.i, ya.i) + smul_r(f, s9.i, yb.i));
    s6.i = st(f, -(int64_t)smul_r(f, s10.r, ya.i) - smul_r(f, s9.r, yb.i));
    *f1 = csub(f, s5, s6);
    *f4 = cadd(f, s5, s6);
    s11.r = st(f, (int64_t)s0.r + smul_r(f, s7.r, yb.r) + smul_r(f, s8.r, ya.r));
    s11.i = st(f, (int64_t)s0.i + smul_r(f, s7.i, yb.r) + smul_r(f, s8.i, ya.r));
    s12.r = st(f, -(int64_t)smul_r(f, s10.i, yb.i) + smul_r(f, s9.i, ya.i));
    s12.i = st(f, (int64_t)smul_r(f, s10.r, yb.i) - smul_r(f, s9.r, ya.i));
    *f2 = cadd(f, s11, s12);
    *f3 = csub(f, s11, s12);
  }
}

static void bfly_generic_q(const fftq *f, cq *F, size_t fstride, int32_t m, int32_t p) {
  cq *scr = f->generic;
  for (int32_t u = 0; u < m; u++) {
    int32_t k = u;
    for (int32_t q1 = 0; q1 < p; q1++, k += m) {
      scr[q1] = F[k];
      fixdiv(f, &scr[q1], p);
    }
    k = u;
    for (int32_t q1 = 0; q1 < p; q1++, k += m) {
      size_t twidx = 0;
      F[k] = scr[0];
      for (int32_t q = 1; q < p; q++) {
        twidx += fstride * (size_t)k;
        if (twidx >= (size_t)f->nfft) twidx -= (size_t)f->nfft;
        F[k] = cadd(f, F[k], cmul(f, scr[q], f->tw[twidx]));
      }
    }
  }
}

/* kf_work: the decimation in time, recursively over the factors. */
static void work_q(const fftq *f, cq *out, const cq *in, size_t fstride, const int32_t *factors) {
  const int32_t p = factors[0], m = factors[1];
  if (m == 1) {
    for (int32_t k = 0; k < p; k++) out[k] = in[(size_t)k * fstride];
  } else {
    for (int32_t k = 0; k < p; k++)
      work_q(f, out + (size_t)k * (size_t)m, in + (size_t)k * fstride, fstride * (size_t)p,
             factors + 2);
  }
  switch (p) {
  case 2: bfly2_q(f, out, fstride, m); break;
  case 3: bfly3_q(f, out, fstride, m); break;
  case 4: bfly4_q(f, out, fstride, m); break;
  case 5: bfly5_q(f, out, fstride, m); break;
  default: bfly_generic_q(f, out, fstride, m, p); break;
  }
}

/* kiss_fftr on one row: in holds nfft complex (2 * nfft samples), tmp
 * nfft complex; out gets nfft + 1 complex. */
static void rfft_q(const fftq *f, const mpk_signal_rfft_params *p, const cq *in, cq *tmp,
                   cq *out) {
  const int32_t n = f->nfft;
  const cq *super = (const cq *)(const void *)p->super_twiddles;
  work_q(f, tmp, in, 1, p->factors);
  cq tdc = tmp[0];
  fixdiv(f, &tdc, 2);
  out[0].r = st(f, (int64_t)tdc.r + tdc.i);
  out[n].r = st(f, (int64_t)tdc.r - tdc.i);
  out[0].i = out[n].i = 0;
  for (int32_t k = 1; k <= n / 2; k++) {
    cq fpk = tmp[k], fpnk;
    fpnk.r = tmp[n - k].r;
    fpnk.i = st(f, -(int64_t)tmp[n - k].i);
    fixdiv(f, &fpk, 2);
    fixdiv(f, &fpnk, 2);
    cq f1k = cadd(f, fpk, fpnk), f2k = csub(f, fpk, fpnk);
    cq tw = cmul(f, f2k, super[k - 1]);
    out[k].r = st(f, as_int(f, (int64_t)f1k.r + tw.r) >> 1);
    out[k].i = st(f, as_int(f, (int64_t)f1k.i + tw.i) >> 1);
    out[n - k].r = st(f, as_int(f, (int64_t)f1k.r - tw.r) >> 1);
    out[n - k].i = st(f, as_int(f, (int64_t)tw.i - f1k.i) >> 1);
  }
}

/* ---- SignalRfft: KISS FFT, float ------------------------------------------------ */

typedef struct cf {
  float r, i;
} cf;

typedef struct fftf {
  int32_t nfft;
  const int32_t *tw; /* float bits, read through twf() */
  cf *generic;
  int32_t inverse;
} fftf;

/* Complex k of a table of float bits held as int32. */
static cf twf(const int32_t *t, size_t k) {
  cf v;
  memcpy(&v, t + 2 * k, sizeof v);
  return v;
}

static cf cmulf(cf a, cf b) {
  cf m;
  m.r = a.r * b.r - a.i * b.i;
  m.i = a.r * b.i + a.i * b.r;
  return m;
}
static cf caddf(cf a, cf b) {
  cf m = {a.r + b.r, a.i + b.i};
  return m;
}
static cf csubf(cf a, cf b) {
  cf m = {a.r - b.r, a.i - b.i};
  return m;
}

static void bfly2_f(const fftf *f, cf *F, size_t fstride, int32_t m) {
  for (int32_t k = 0; k < m; k++) {
    cf t = cmulf(F[k + m], twf(f->tw, (size_t)k * fstride));
    F[k + m] = csubf(F[k], t);
    F[k] = caddf(F[k], t);
  }
}

static void bfly4_f(const fftf *f, cf *F, size_t fstride, int32_t m) {
  for (int32_t k = 0; k < m; k++) {
    cf *a = &F[k], *b = &F[k + m], *c = &F[k + 2 * m], *d = &F[k + 3 * m];
    cf s0 = cmulf(*b, twf(f->tw, (size_t)k * fstride));
    cf s1 = cmulf(*c, twf(f->tw, (size_t)k * fstride * 2));
    cf s2 = cmulf(*d, twf(f->tw, (size_t)k * fstride * 3));
    cf s5 = csubf(*a, s1);
    *a = caddf(*a, s1);
    cf s3 = caddf(s0, s2), s4 = csubf(s0, s2);
    *c = csubf(*a, s3);
    *a = caddf(*a, s3);
    if (f->inverse) {
      b->r = s5.r - s4.i;
      b->i = s5.i + s4.r;
      d->r = s5.r + s4.i;
      d->i = s5.i - s4.r;
    } else {
      b->r = s5.r + s4.i;
      b->i = s5.i - s4.r;
      d->r = s5.r - s4.i;
      d->i = s5.i + s4.r;
    }
  }
}

static void bfly3_f(const fftf *f, cf *F, size_t fstride, int32_t m) {
  const cf epi3 = twf(f->tw, fstride * (size_t)m);
  for (int32_t k = 0; k < m; k++) {
    cf *a = &F[k], *b = &F[k + m], *c = &F[k + 2 * m];
    cf s1 = cmulf(*b, twf(f->tw, (size_t)k * fstride));
    cf s2 = cmulf(*c, twf(f->tw, (size_t)k * fstride * 2));
    cf s3 = caddf(s1, s2), s0 = csubf(s1, s2);
    b->r = a->r - s3.r * 0.5f;
    b->i = a->i - s3.i * 0.5f;
    s0.r *= epi3.i;
    s0.i *= epi3.i;
    *a = caddf(*a, s3);
    c->r = b->r + s0.i;
    c->i = b->i - s0.r;
    b->r -= s0.i;
    b->i += s0.r;
  }
}

static void bfly5_f(const fftf *f, cf *F, size_t fstride, int32_t m) {
  const cf ya = twf(f->tw, fstride * (size_t)m), yb = twf(f->tw, fstride * 2 * (size_t)m);
  for (int32_t u = 0; u < m; u++) {
    cf *f0 = &F[u], *f1 = &F[u + m], *f2 = &F[u + 2 * m], *f3 = &F[u + 3 * m],
       *f4 = &F[u + 4 * m];
    cf s0 = *f0;
    cf s1 = cmulf(*f1, twf(f->tw, (size_t)u * fstride));
    cf s2 = cmulf(*f2, twf(f->tw, 2 * (size_t)u * fstride));
    cf s3 = cmulf(*f3, twf(f->tw, 3 * (size_t)u * fstride));
    cf s4 = cmulf(*f4, twf(f->tw, 4 * (size_t)u * fstride));
    cf s7 = caddf(s1, s4), s10 = csubf(s1, s4), s8 = caddf(s2, s3), s9 = csubf(s2, s3);
    f0->r += s7.r + s8.r;
    f0->i += s7.i + s8.i;
    cf s5, s6, s11, s12;
    s5.r = s0.r + s7.r * ya.r + s8.r * yb.r;
    s5.i = s0.i + s7.i * ya.r + s8.i * yb.r;
    s6.r = s10.i * ya.i + s9.i * yb.i;
    s6.i = -(s10.r * ya.i) - s9.r * yb.i;
    *f1 = csubf(s5, s6);
    *f4 = caddf(s5, s6);
    s11.r = s0.r + s7.r * yb.r + s8.r * ya.r;
    s11.i = s0.i + s7.i * yb.r + s8.i * ya.r;
    s12.r = -(s10.i * yb.i) + s9.i * ya.i;
    s12.i = s10.r * yb.i - s9.r * ya.i;
    *f2 = caddf(s11, s12);
    *f3 = csubf(s11, s12);
  }
}

static void bfly_generic_f(const fftf *f, cf *F, size_t fstride, int32_t m, int32_t p) {
  cf *scr = f->generic;
  for (int32_t u = 0; u < m; u++) {
    int32_t k = u;
    for (int32_t q1 = 0; q1 < p; q1++, k += m) scr[q1] = F[k];
    k = u;
    for (int32_t q1 = 0; q1 < p; q1++, k += m) {
      size_t twidx = 0;
      F[k] = scr[0];
      for (int32_t q = 1; q < p; q++) {
        twidx += fstride * (size_t)k;
        if (twidx >= (size_t)f->nfft) twidx -= (size_t)f->nfft;
        F[k] = caddf(F[k], cmulf(scr[q], twf(f->tw, twidx)));
      }
    }
  }
}

static void work_f(const fftf *f, cf *out, const cf *in, size_t fstride, const int32_t *factors) {
  const int32_t p = factors[0], m = factors[1];
  if (m == 1) {
    for (int32_t k = 0; k < p; k++) out[k] = in[(size_t)k * fstride];
  } else {
    for (int32_t k = 0; k < p; k++)
      work_f(f, out + (size_t)k * (size_t)m, in + (size_t)k * fstride, fstride * (size_t)p,
             factors + 2);
  }
  switch (p) {
  case 2: bfly2_f(f, out, fstride, m); break;
  case 3: bfly3_f(f, out, fstride, m); break;
  case 4: bfly4_f(f, out, fstride, m); break;
  case 5: bfly5_f(f, out, fstride, m); break;
  default: bfly_generic_f(f, out, fstride, m, p); break;
  }
}

static void rfft_f(const fftf *f, const mpk_signal_rfft_params *p, const cf *in, cf *tmp,
                   cf *out) {
  const int32_t n = f->nfft;
    work_f(f, tmp, in, 1, p->factors);
  cf tdc = tmp[0];
  out[0].r = tdc.r + tdc.i;
  out[n].r = tdc.r - tdc.i;
  out[0].i = out[n].i = 0.0f;
  for (int32_t k = 1; k <= n / 2; k++) {
    cf fpk = tmp[k], fpnk = {tmp[n - k].r, -tmp[n - k].i};
    cf f1k = caddf(fpk, fpnk), f2k = csubf(fpk, fpnk);
    cf tw = cmulf(f2k, twf(p->super_twiddles, (size_t)(k - 1)));
    out[k].r = (f1k.r + tw.r) * 0.5f;
    out[k].i = (f1k.i + tw.i) * 0.5f;
    out[n - k].r = (f1k.r - tw.r) * 0.5f;
    out[n - k].i = (tw.i - f1k.i) * 0.5f;
  }
}

/* The factors must multiply out to n, ending at 1. */
static int factors_ok(const mpk_signal_rfft_params *p, int32_t n) {
  int32_t rest = n;
  for (int32_t k = 0; k < p->n_factors; k++) {
    int32_t radix = p->factors[2 * k], m = p->factors[2 * k + 1];
    if (radix < 2 || rest % radix != 0 || m != rest / radix || (radix > 5 && radix > p->max_radix))
      return 0;
    rest = m;
  }
  return rest == 1;
}

MPK_API int32_t mpk_signal_rfft(const mpk_signal_rfft_params *p, const void *input, void *output,
                                void *scratch) {
  if (!input || !output || !scratch || !p->factors || !p->twiddles || !p->super_twiddles ||
      p->fft_length < 2 || p->fft_length % 2 != 0 || p->input_length < 0 ||
      p->input_length > p->fft_length || p->output_length != p->fft_length / 2 + 1 ||
      p->batches < 0 || p->n_factors < 1 || p->max_radix < 0)
    return MPK_ERR_PARAMS;
  const int32_t n = p->fft_length / 2, len = p->input_length;
  if (!factors_ok(p, n)) return MPK_ERR_PARAMS;
  /* scratch: the padded row (n complex), the transform (n complex), the
   * generic butterfly's max_radix complex */
  int32_t *row = (int32_t *)scratch, *tmp = row + 2 * n, *gen = tmp + 2 * n;
  for (int32_t b = 0; b < p->batches; b++) {
    const size_t in_at = (size_t)b * (size_t)len, out_at = (size_t)b * 2u * (size_t)(n + 1);
    if (p->type == MPK_TYPE_FLOAT32) {
      float *r = (float *)(void *)row;
      memcpy(r, (const float *)input + in_at, (size_t)len * sizeof(float));
      for (int32_t k = len; k < 2 * n; k++) r[k] = 0.0f;
      fftf f = {n, p->twiddles, (cf *)(void *)gen, 0};
      rfft_f(&f, p, (const cf *)(void *)r, (cf *)(void *)tmp, (cf *)output + out_at / 2);
      continue;
    }
    if (p->type != MPK_TYPE_INT16 && p->type != MPK_TYPE_INT32) return MPK_ERR_PARAMS;
    const int32_t bits = p->type == MPK_TYPE_INT16 ? 16 : 32;
    for (int32_t k = 0; k < 2 * n; k++)
      row[k] = k >= len ? 0
               : bits == 16 ? ((const int16_t *)input)[in_at + (size_t)k]
                            : ((const int32_t *)input)[in_at + (size_t)k];
    fftq f = {bits, bits == 16 ? 32767 : 2147483647, n, (const cq *)(const void *)p->twiddles,
              (cq *)(void *)gen, 0};
    /* the output row, in int32 pairs, reuses the padded row's space: the
     * transform is in tmp by then, and the one bin past the row's end
     * (out[n], on tmp[0]) is written after tmp[0] was read */
    cq *out = (cq *)(void *)row;
    rfft_q(&f, p, (const cq *)(void *)row, (cq *)(void *)tmp, out);
    for (int32_t k = 0; k < 2 * (n + 1); k++) {
      int32_t v = ((const int32_t *)out)[k];
      if (bits == 16)
        ((int16_t *)output)[out_at + (size_t)k] = (int16_t)v;
      else
        ((int32_t *)output)[out_at + (size_t)k] = v;
    }
  }
  return MPK_OK;
}

/* ---- SignalEnergy ------------------------------------------------------------- */

MPK_API int32_t mpk_signal_energy(const mpk_signal_energy_params *p, const int16_t *input,
                                  uint32_t *output, void *scratch) {
  (void)scratch;
  if (!input || !output || p->start_index < 0 || p->end_index > p->size ||
      p->start_index > p->end_index)
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->size; i++) {
    if (i < p->start_index || i >= p->end_index) {
      output[i] = 0;
      continue;
    }
    int32_t re = input[2 * i], im = input[2 * i + 1];
    /* two squares of 15 bits: the sum fits 32 bits unsigned */
    output[i] = (uint32_t)(re * re) + (uint32_t)(im * im);
  }
  return MPK_OK;
}

/* ---- SignalFilterBank --------------------------------------------------------- */

MPK_API int32_t mpk_signal_filter_bank(const mpk_signal_filter_bank_params *p,
                                       const uint32_t *input, const int16_t *weights,
                                       const int16_t *unweights, const int16_t *freq_starts,
                                       const int16_t *weight_starts, const int16_t *widths,
                                       uint64_t *output, void *scratch) {
  (void)scratch;
  if (!input || !weights || !unweights || !freq_starts || !weight_starts || !widths || !output ||
      p->num_channels < 0)
    return MPK_ERR_PARAMS;
  uint64_t weighted = 0, unweighted = 0;
  for (int32_t c = 0; c <= p->num_channels; c++) {
    const int32_t fs = freq_starts[c], ws = weight_starts[c], w = widths[c];
    for (int32_t j = 0; j < w; j++) {
      const uint64_t x = input[fs + j];
      /* int16 weights converted to uint64 (sign-extended), as TFLM's do */
      weighted += (uint64_t)(int64_t)weights[ws + j] * x;
      unweighted += (uint64_t)(int64_t)unweights[ws + j] * x;
    }
    /* channel 0 is only the first unweighted part: TFLM discards it */
    if (c > 0) output[c - 1] = weighted;
    weighted = unweighted;
    unweighted = 0;
  }
  return MPK_OK;
}

/* ---- SignalFilterBankSquareRoot ------------------------------------------------- */

/* TFLM's Sqrt32: bit-by-bit integer square root, rounded up when the
 * remainder exceeds the root (unless the root is 0xFFFF). */
static uint32_t sqrt32(uint32_t num) {
  if (num == 0) return 0;
  uint32_t res = 0;
  int32_t max_bit = (32 - bit_length32(num)) | 1;
  uint32_t bit = (uint32_t)1 << (31 - max_bit);
  int32_t iterations = (31 - max_bit) / 2 + 1;
  while (iterations--) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  if (num > res && res != 0xFFFF) ++res;
  return (uint16_t)res;
}

/* TFLM's Sqrt64: Sqrt32 when the high word is clear, else the same in 64
 * bits (the result narrowed to uint32). */
static uint32_t sqrt64(uint64_t num) {
  if ((num >> 32) == 0) return sqrt32((uint32_t)num);
  uint64_t res = 0;
  int32_t max_bit = (64 - bit_length64(num)) | 1;
  uint64_t bit = (uint64_t)1 << (63 - max_bit);
  int32_t iterations = (63 - max_bit) / 2 + 1;
  while (iterations--) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  if (num > res && res != 0xFFFFFFFFu) ++res;
  return (uint32_t)res;
}

MPK_API int32_t mpk_signal_filter_bank_sqrt(const mpk_signal_filter_bank_sqrt_params *p,
                                            const uint64_t *input, const int32_t *scale_bits,
                                            uint32_t *output, void *scratch) {
  (void)scratch;
  if (!input || !scale_bits || !output || p->num_channels < 0) return MPK_ERR_PARAMS;
  /* a 32-bit shift count, taken mod 32 as the hosts TFLM runs on do */
  const uint32_t shift = (uint32_t)*scale_bits & 31u;
  for (int32_t i = 0; i < p->num_channels; i++) output[i] = sqrt64(input[i]) >> shift;
  return MPK_OK;
}

/* ---- SignalFilterBankSpectralSubtraction ----------------------------------------- */

MPK_API int32_t mpk_signal_spectral_subtraction(const mpk_signal_spectral_subtraction_params *p,
                                                const uint32_t *input, uint32_t *output,
                                                uint32_t *noise_estimate, uint32_t *state,
                                                void *scratch) {
  (void)scratch;
  if (!input || !output || !noise_estimate || !state || p->num_channels < 0 ||
      p->smoothing_bits < 0 || p->smoothing_bits > 31 || p->spectral_subtraction_bits < 0 ||
      p->spectral_subtraction_bits > 63)
    return MPK_ERR_PARAMS;
  const uint32_t sb = (uint32_t)p->smoothing_bits, ssb = (uint32_t)p->spectral_subtraction_bits;
  for (int32_t i = 0; i < p->num_channels; i++) {
    const uint32_t smoothing =
        (uint32_t)((i & 1) == 0 ? p->smoothing : p->alternate_smoothing);
    const uint32_t one_minus =
        (uint32_t)((i & 1) == 0 ? p->one_minus_smoothing : p->alternate_one_minus_smoothing);
    const uint32_t scaled = input[i] << sb;
    state[i] = (uint32_t)(((uint64_t)scaled * smoothing + (uint64_t)state[i] * one_minus) >> ssb);
    uint32_t estimate = state[i];
    if (estimate > scaled) {
      estimate = scaled;
      if (p->clamping) state[i] = estimate;
    }
    const uint32_t floor =
        (uint32_t)(((uint64_t)input[i] * (uint32_t)p->min_signal_remaining) >> ssb);
    const uint32_t subtracted = (scaled - estimate) >> sb;
    output[i] = subtracted > floor ? subtracted : floor;
  }
  memcpy(noise_estimate, state, (size_t)p->num_channels * sizeof(uint32_t));
  return MPK_OK;
}

/* ---- SignalPCAN ------------------------------------------------------------------- */

#define PCAN_SNR_BITS 12
#define PCAN_OUTPUT_BITS 6

/* TFLM's WideDynamicFunction: a piecewise quadratic read from the gain
 * table, 4 entries per octave of x. */
static int16_t wide_dynamic(uint32_t x, const int16_t *lut) {
  if (x <= 2) return lut[x];
  const int32_t interval = bit_length32(x);
  const int16_t *l = lut + 4 * interval - 6;
  const int16_t frac =
      (int16_t)((interval < 11 ? x << (11 - interval) : x >> (interval - 11)) & 0x3FF);
  int32_t result = ((int32_t)l[2] * frac) >> 5;
  result = wrap32((int64_t)result + (int32_t)((uint32_t)(int32_t)l[1] << 5));
  result = wrap32((int64_t)result * frac);
  result = wrap32((int64_t)result + (1 << 14)) >> 15;
  result += l[0];
  return (int16_t)result;
}

static uint32_t pcan_shrink(uint32_t x) {
  if (x < (2u << PCAN_SNR_BITS)) return (x * x) >> (2 + 2 * PCAN_SNR_BITS - PCAN_OUTPUT_BITS);
  return (x >> (PCAN_SNR_BITS - PCAN_OUTPUT_BITS)) - (1u << PCAN_OUTPUT_BITS);
}

MPK_API int32_t mpk_signal_pcan(const mpk_signal_pcan_params *p, const uint32_t *input,
                                const uint32_t *noise_estimate, const int16_t *gain_lut,
                                uint32_t *output, void *scratch) {
  (void)scratch;
  if (!input || !noise_estimate || !gain_lut || !output || p->num_channels < 0 ||
      p->snr_shift < 0 || p->snr_shift > 63)
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->num_channels; i++) {
    /* the int16 gain widened to uint32 as TFLM's assignment does */
    const uint32_t gain = (uint32_t)(int32_t)wide_dynamic(noise_estimate[i], gain_lut);
    const uint32_t snr = (uint32_t)(((uint64_t)input[i] * gain) >> p->snr_shift);
    output[i] = pcan_shrink(snr);
  }
  return MPK_OK;
}

/* ---- SignalFilterBankLog -------------------------------------------------------- */

#define LOG_SCALE_LOG2 16
#define LOG_SEGMENTS_LOG2 7
#define LOG_COEFF 45426 /* ln(2) in Q16 */

/* TFLM's Log32: log2 by bit length plus a table-corrected fraction, to
 * natural log, to the output scale, each step rounded. */
static uint32_t log32(uint32_t x, uint32_t out_scale, const int32_t *table) {
  const uint32_t integer = (uint32_t)bit_length32(x) - 1;
  int32_t frac = wrap32((int64_t)x - ((int64_t)1 << integer));
  if (integer < LOG_SCALE_LOG2)
    frac = wrap32((int64_t)((uint32_t)frac << (LOG_SCALE_LOG2 - integer)));
  else
    frac >>= integer - LOG_SCALE_LOG2;
  const uint32_t base_seg = (uint32_t)frac >> (LOG_SCALE_LOG2 - LOG_SEGMENTS_LOG2);
  const uint32_t seg_unit = (1u << LOG_SCALE_LOG2) >> LOG_SEGMENTS_LOG2;
  const int32_t c0 = table[base_seg], c1 = table[base_seg + 1];
  const int32_t seg_base = (int32_t)(seg_unit * base_seg);
  const int32_t rel_pos = wrap32((int64_t)(c1 - c0) * (frac - seg_base)) >> LOG_SCALE_LOG2;
  const uint32_t fraction = (uint32_t)(frac + c0 + rel_pos);
  const uint32_t log2 = (integer << LOG_SCALE_LOG2) + fraction;
  const uint32_t round = 1u << (LOG_SCALE_LOG2 - 1);
  const uint32_t loge = (uint32_t)(((uint64_t)LOG_COEFF * log2 + round) >> LOG_SCALE_LOG2);
  return (out_scale * loge + round) >> LOG_SCALE_LOG2;
}

MPK_API int32_t mpk_signal_filter_bank_log(const mpk_signal_filter_bank_log_params *p,
                                           const uint32_t *input, int16_t *output,
                                           void *scratch) {
  (void)scratch;
  if (!input || !output || !p->log_table || p->num_channels < 0 || p->correction_bits < 0 ||
      p->correction_bits > 31)
    return MPK_ERR_PARAMS;
  for (int32_t i = 0; i < p->num_channels; i++) {
    const uint32_t scaled = input[i] << p->correction_bits;
    if (scaled > 1) {
      const uint32_t v = log32(scaled, (uint32_t)p->output_scale, p->log_table);
      output[i] = (int16_t)(v < 32767u ? v : 32767u);
    } else {
      output[i] = 0;
    }
  }
  return MPK_OK;
}

/* ---- the streaming operators ---------------------------------------------------
 *
 * TFLM keeps each row's samples in a circular buffer; here a row's queue
 * is a plain array, oldest sample first, and leaving samples are shifted
 * out.  Every row sees the same sequence of writes and reads, so one
 * count serves them all.  A zeroed state is the state TFLM starts from
 * (and Reset restores): the delay's and the prefilled framer's leading
 * zeros are the zeroed samples, and the counts are kept relative to it. */

/* ---- SignalDelay ---------------------------------------------------------------- */

MPK_API int32_t mpk_signal_delay(const mpk_signal_delay_params *p, const int16_t *input,
                                 int16_t *output, int16_t *state, void *scratch) {
  (void)scratch;
  if (!input || !output || (p->delay_length > 0 && !state) || p->frame_size < 0 ||
      p->delay_length < 0 || p->outer_dims < 0)
    return MPK_ERR_PARAMS;
  const size_t fs = (size_t)p->frame_size, d = (size_t)p->delay_length;
  for (int32_t r = 0; r < p->outer_dims; r++) {
    const int16_t *in = input + (size_t)r * fs;
    int16_t *out = output + (size_t)r * fs, *line = state + (size_t)r * d;
    if (d >= fs) {
      /* the frame comes from the line; the input joins its end */
      memcpy(out, line, fs * sizeof *out);
      memmove(line, line + fs, (d - fs) * sizeof *line);
      memcpy(line + (d - fs), in, fs * sizeof *line);
    } else {
      /* the whole line, then the input's start; its end is the new line */
      if (d) memcpy(out, line, d * sizeof *out);
      memcpy(out + d, in, (fs - d) * sizeof *out);
      if (d) memcpy(line, in + (fs - d), d * sizeof *line);
    }
  }
  return MPK_OK;
}

/* ---- SignalStacker -------------------------------------------------------------- */

MPK_API int32_t mpk_signal_stacker(const mpk_signal_stacker_params *p, const int16_t *input,
                                   int16_t *output, uint8_t *valid, void *state, void *scratch) {
  (void)scratch;
  const int64_t frames = (int64_t)p->left_context + 1 + p->right_context;
  if (!input || !output || !valid || !state || p->num_channels <= 0 || p->left_context < 0 ||
      p->right_context < 0 || p->step <= 0 || p->step > frames)
    return MPK_ERR_PARAMS;
  const size_t nc = (size_t)p->num_channels, size = nc * (size_t)frames;
  int32_t head[2]; /* samples queued, first frame seen */
  memcpy(head, state, sizeof head);
  int16_t *q = (int16_t *)((uint8_t *)state + sizeof head);
  size_t n = (size_t)head[0];
  if (n + nc > size) return MPK_ERR_PARAMS; /* not a state this kernel leaves */
  memcpy(q + n, input, nc * sizeof *q);
  n += nc;
  if (!head[1]) {
    /* the first frame stands in for the left context it lacks */
    for (int32_t k = 0; k < p->left_context; k++, n += nc) memcpy(q + n, input, nc * sizeof *q);
    head[1] = 1;
  }
  if (n >= size) {
    const size_t gone = nc * (size_t)p->step;
    memcpy(output, q, size * sizeof *output);
    memmove(q, q + gone, (n - gone) * sizeof *q);
    n -= gone;
    *valid = 1;
  } else {
    memset(output, 0, size * sizeof *output);
    *valid = 0;
  }
  head[0] = (int32_t)n;
  memcpy(state, head, sizeof head);
  return MPK_OK;
}

/* ---- SignalFramer --------------------------------------------------------------- */

MPK_API int32_t mpk_signal_framer(const mpk_signal_framer_params *p, const int16_t *input,
                                  int16_t *output, uint8_t *valid, void *state, void *scratch) {
  (void)scratch;
  if (!input || !output || !valid || !state || p->frame_size <= 0 || p->frame_step <= 0 ||
      p->outer_dims < 0 || p->n_frames < 0 || (p->prefill && p->frame_step > p->frame_size))
    return MPK_ERR_PARAMS;
  const size_t fs = (size_t)p->frame_size, step = (size_t)p->frame_step, cap = fs + step;
  const size_t start = p->prefill ? fs - step : 0;
  int32_t extra; /* samples queued beyond the start (the same in every row) */
  memcpy(&extra, state, sizeof extra);
  int16_t *rows = (int16_t *)((uint8_t *)state + sizeof extra);
  size_t n = 0;
  uint8_t ok = 1;
  for (int32_t r = 0; r < p->outer_dims; r++) {
    int16_t *q = rows + (size_t)r * cap;
    n = start + (size_t)extra;
    if (n >= fs) return MPK_ERR_PARAMS; /* not a state this kernel leaves */
    for (int32_t f = 0; f < p->n_frames; f++) {
      const size_t k = (size_t)r * (size_t)p->n_frames + (size_t)f;
      int16_t *out = output + k * fs;
      memcpy(q + n, input + k * step, step * sizeof *q);
      n += step;
      if (n >= fs) {
        memcpy(out, q, fs * sizeof *out);
        memmove(q, q + step, (n - step) * sizeof *q);
        n -= step;
      } else {
        memset(out, 0, fs * sizeof *out);
        ok = 0;
      }
    }
  }
  if (p->outer_dims > 0) extra = (int32_t)(n - start);
  memcpy(state, &extra, sizeof extra);
  *valid = ok;
  return MPK_OK;
}

/* ---- SignalOverlapAdd ----------------------------------------------------------- */

MPK_API int32_t mpk_signal_overlap_add(const mpk_signal_overlap_add_params *p, const void *input,
                                       void *output, void *state, void *scratch) {
  (void)scratch;
  if (!input || !output || !state || p->frame_size <= 0 || p->frame_step < 0 ||
      p->frame_step > p->frame_size || p->outer_dims < 0 || p->n_frames < 0 ||
      (p->type != MPK_TYPE_INT16 && p->type != MPK_TYPE_FLOAT32))
    return MPK_ERR_PARAMS;
  const size_t fs = (size_t)p->frame_size, step = (size_t)p->frame_step;
  for (int32_t r = 0; r < p->outer_dims; r++)
    for (int32_t f = 0; f < p->n_frames; f++) {
      const size_t k = (size_t)r * (size_t)p->n_frames + (size_t)f;
      if (p->type == MPK_TYPE_INT16) {
        const int16_t *in = (const int16_t *)input + k * fs;
        int16_t *buf = (int16_t *)state + (size_t)r * fs, *out = (int16_t *)output + k * step;
        for (size_t i = 0; i < fs; i++) {
          const int32_t v = (int32_t)in[i] + buf[i];
          buf[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
        }
        memcpy(out, buf, step * sizeof *out);
        memmove(buf, buf + step, (fs - step) * sizeof *buf);
        memset(buf + (fs - step), 0, step * sizeof *buf);
      } else {
        const float *in = (const float *)input + k * fs;
        float *buf = (float *)state + (size_t)r * fs, *out = (float *)output + k * step;
        for (size_t i = 0; i < fs; i++) buf[i] += in[i];
        memcpy(out, buf, step * sizeof *out);
        memmove(buf, buf + step, (fs - step) * sizeof *buf);
        memset(buf + (fs - step), 0, step * sizeof *buf);
      }
    }
  return MPK_OK;
}

/* ---- SignalIrfft: kiss_fftri ---------------------------------------------------- */

/* kiss_fftri on one row, fixed point: the n + 1 bins in `in` folded into
 * the half-length complex sequence (tmp), each halved as KISS FFT's fixed
 * point halves them, then the inverse complex transform into out. */
static void irfft_q(const fftq *f, const mpk_signal_rfft_params *p, const cq *in, cq *tmp,
                    cq *out) {
  const int32_t n = f->nfft;
  const cq *super = (const cq *)(const void *)p->super_twiddles;
  tmp[0].r = st(f, (int64_t)in[0].r + in[n].r);
  tmp[0].i = st(f, (int64_t)in[0].r - in[n].r);
  fixdiv(f, &tmp[0], 2);
  for (int32_t k = 1; k <= n / 2; k++) {
    cq fk = in[k], fnkc;
    fnkc.r = in[n - k].r;
    fnkc.i = st(f, -(int64_t)in[n - k].i);
    fixdiv(f, &fk, 2);
    fixdiv(f, &fnkc, 2);
    const cq fek = cadd(f, fk, fnkc), fok = cmul(f, csub(f, fk, fnkc), super[k - 1]);
    tmp[k] = cadd(f, fek, fok);
    /* k == n - k at the middle: this store replaces the one above, as there */
    tmp[n - k] = csub(f, fek, fok);
    tmp[n - k].i = st(f, -(int64_t)tmp[n - k].i);
  }
  work_q(f, out, tmp, 1, p->factors);
}

static void irfft_f(const fftf *f, const mpk_signal_rfft_params *p, const cf *in, cf *tmp,
                    cf *out) {
  const int32_t n = f->nfft;
  tmp[0].r = in[0].r + in[n].r;
  tmp[0].i = in[0].r - in[n].r;
  for (int32_t k = 1; k <= n / 2; k++) {
    const cf fk = in[k], fnkc = {in[n - k].r, -in[n - k].i};
    const cf fek = caddf(fk, fnkc);
    const cf fok = cmulf(csubf(fk, fnkc), twf(p->super_twiddles, (size_t)(k - 1)));
    tmp[k] = caddf(fek, fok);
    tmp[n - k] = csubf(fek, fok);
    tmp[n - k].i = -tmp[n - k].i;
  }
  work_f(f, out, tmp, 1, p->factors);
}

MPK_API int32_t mpk_signal_irfft(const mpk_signal_rfft_params *p, const void *input, void *output,
                                 void *scratch) {
  if (!input || !output || !scratch || !p->factors || !p->twiddles || !p->super_twiddles ||
      p->fft_length < 2 || p->fft_length % 2 != 0 || p->input_length != p->fft_length / 2 + 1 ||
      p->output_length != p->fft_length || p->batches < 0 || p->n_factors < 1 ||
      p->max_radix < 0)
    return MPK_ERR_PARAMS;
  const int32_t n = p->fft_length / 2;
  if (!factors_ok(p, n)) return MPK_ERR_PARAMS;
  /* scratch, in complex values of two int32: the row's bins widened (n +
   * 1), the folded sequence (n), the transform (n), the generic
   * butterfly's max_radix */
  int32_t *bins = (int32_t *)scratch, *tmp = bins + 2 * (n + 1), *res = tmp + 2 * n,
          *gen = res + 2 * n;
  for (int32_t b = 0; b < p->batches; b++) {
    const size_t in_at = (size_t)b * 2u * (size_t)(n + 1), out_at = (size_t)b * 2u * (size_t)n;
    if (p->type == MPK_TYPE_FLOAT32) {
      fftf f = {n, p->twiddles, (cf *)(void *)gen, 1};
      float *out = (float *)output + out_at;
      memcpy(bins, (const float *)input + in_at, 2u * (size_t)(n + 1) * sizeof(float));
      irfft_f(&f, p, (const cf *)(void *)bins, (cf *)(void *)tmp, (cf *)(void *)res);
      /* KISS FFT leaves the output scaled by fft_length; TFLM divides */
      const float *r = (const float *)(void *)res;
      for (int32_t k = 0; k < 2 * n; k++) out[k] = r[k] / (float)p->fft_length;
      continue;
    }
    if (p->type != MPK_TYPE_INT16 && p->type != MPK_TYPE_INT32) return MPK_ERR_PARAMS;
    const int32_t bits = p->type == MPK_TYPE_INT16 ? 16 : 32;
    for (int32_t k = 0; k < 2 * (n + 1); k++)
      bins[k] = bits == 16 ? ((const int16_t *)input)[in_at + (size_t)k]
                           : ((const int32_t *)input)[in_at + (size_t)k];
    fftq f = {bits, bits == 16 ? 32767 : 2147483647, n, (const cq *)(const void *)p->twiddles,
              (cq *)(void *)gen, 1};
    irfft_q(&f, p, (const cq *)(void *)bins, (cq *)(void *)tmp, (cq *)(void *)res);
    for (int32_t k = 0; k < 2 * n; k++) {
      if (bits == 16)
        ((int16_t *)output)[out_at + (size_t)k] = (int16_t)res[k];
      else
        ((int32_t *)output)[out_at + (size_t)k] = res[k];
    }
  }
  return MPK_OK;
}
