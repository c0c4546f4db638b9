/*
 * conform.c — run one conformance case and say what differs (see
 * conform.h).
 *
 * Per case: every writable region filled with xorshift garbage (a seed of
 * its own per case and pass), model_init on a fresh context, the inputs
 * read from <root>/<folder>/input<i>.bin into the planned input slots
 * (sizes must agree), model_run, every output compared element by element
 * with <root>/<folder>/output<j>.bin.  The second pass scrambles the
 * scratch regions again and runs the same context: a kernel that reads
 * memory it never wrote, or keeps state in scratch, shows there.  A
 * stateful case (runs > 1) instead runs its invocations in order on one
 * context (run<k>.input<i>.bin against run<k>.output<j>.bin), the scratch
 * scrambled before each, then reset_state and invocation 0 again.  A
 * mismatch names the output, the first element that differs with both
 * values, how many elements differ and by how much at most.
 */
#include "conform.h"

#include "../emit/garbage.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The largest corpus tensor is under 10 KB; room for any of them. */
#define FILE_CAP (256u * 1024u)
static uint8_t file_buf[FILE_CAP];

static char msg[600];
/* float32 elements of this case not identical to TFLM's but within the
 * tolerance (the PASS line counts them) */
static uint32_t inexact;

static void report(const conf_case *c, const char *fmt, ...) {
  char what[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(msg, sizeof msg, "CONF FAIL %s: %s", c->name, what);
  conf_print(msg);
}

static void fill(const conf_case *c, unsigned kinds, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 0x9E3779B9u;
  for (uint32_t r = 0; r < c->n_regions; r++) {
    const conf_region *g = &c->regions[r];
    uint8_t *base = c->region_base(g->id);
    if (!(kinds & (1u << g->kind)) || !base) continue;
    garbage_fill(base, g->size, &x);
  }
}

static uint32_t elem_size(uint8_t dtype) {
  switch (dtype) {
  case CONF_FLOAT32: case CONF_INT32: case CONF_UINT32: return 4;
  case CONF_INT64: case CONF_UINT64: return 8;
  case CONF_INT16: return 2;
  default: return 1;
  }
}

/* Element k of an integer tensor, widened. */
static int64_t int_at(const uint8_t *d, uint8_t dtype, uint32_t k) {
  switch (dtype) {
  case CONF_INT8: return (int8_t)d[k];
  case CONF_INT16: { int16_t v; memcpy(&v, d + 2 * k, 2); return v; }
  case CONF_INT32: { int32_t v; memcpy(&v, d + 4 * k, 4); return v; }
  case CONF_INT64: { int64_t v; memcpy(&v, d + 8 * k, 8); return v; }
  case CONF_UINT32: { uint32_t v; memcpy(&v, d + 4 * k, 4); return v; }
  /* compared as its bits; printed as a signed value above 2^63 */
  case CONF_UINT64: { int64_t v; memcpy(&v, d + 8 * k, 8); return v; }
  default: return d[k];
  }
}

/* An int64 in decimal (newlib-nano's printf has no %lld). */
static void i64_text(char *buf, size_t n, int64_t v) {
  char tmp[24];
  int k = 0;
  uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
  do {
    tmp[k++] = (char)('0' + u % 10u);
    u /= 10u;
  } while (u);
  size_t i = 0;
  if (v < 0 && i + 1 < n) buf[i++] = '-';
  while (k > 0 && i + 1 < n) buf[i++] = tmp[--k];
  buf[i] = 0;
}

static float absf(float x) { return x < 0.0f ? -x : x; }

/* Compare output j (got, n bytes) with TFLM's (want, n bytes): 0 when
 * they match, else a report. */
static int compare(const conf_case *c, const char *label, uint32_t j, const uint8_t *got,
                   const uint8_t *want, uint32_t n) {
  const uint8_t dtype = c->out_dtype[j];
  const uint32_t es = elem_size(dtype), count = n / es;
  uint32_t bad = 0, first = 0;
  double worst = 0.0;
  for (uint32_t k = 0; k < count; k++) {
    double diff;
    if (dtype == CONF_FLOAT32) {
      float x, y;
      memcpy(&x, got + 4 * k, 4);
      memcpy(&y, want + 4 * k, 4);
      if (!memcmp(got + 4 * k, want + 4 * k, 4)) continue;
      if (absf(x - y) <= CONF_F32_ATOL + CONF_F32_RTOL * absf(y)) {
        inexact++;
        continue;
      }
      diff = x != x || y != y ? 1e30 : (double)absf(x - y);
    } else {
      int64_t x = int_at(got, dtype, k), y = int_at(want, dtype, k);
      if (x == y) continue;
      diff = (double)(x > y ? x - y : y - x);
    }
    if (!bad++) first = k;
    if (diff > worst) worst = diff;
  }
  if (!bad) return 0;
  char a[40], b[40];
  if (dtype == CONF_FLOAT32) {
    float x, y;
    memcpy(&x, got + 4 * first, 4);
    memcpy(&y, want + 4 * first, 4);
    snprintf(a, sizeof a, "%.9g", (double)x);
    snprintf(b, sizeof b, "%.9g", (double)y);
  } else {
    i64_text(a, sizeof a, int_at(got, dtype, first));
    i64_text(b, sizeof b, int_at(want, dtype, first));
  }
  report(c, "%s: output %u element %u is %s, TFLM has %s; %u of %u elements differ, by up "
            "to %.3g",
         label, (unsigned)j, (unsigned)first, a, b, (unsigned)bad, (unsigned)count, worst);
  return 1;
}

static const char *path_of(const char *root, const char *folder, const char *pre,
                           const char *kind, uint32_t i) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s/%s%s%u.bin", root, folder, pre, kind, (unsigned)i);
  return path;
}

/* One run: inputs in, model_run, outputs compared; the files' prefix
 * `pre` ("" or "run1."), `label` for the report. */
static int run_once(const conf_case *c, const char *root, const char *pre, const char *label) {
  for (uint32_t i = 0; i < c->n_inputs; i++) {
    size_t size = 0;
    void *data = c->io(0, i, &size);
    const char *path = path_of(root, c->folder, pre, "input", i);
    long n = conf_read_file(path, file_buf, FILE_CAP);
    if (n < 0) {
      report(c, "cannot read %s", path);
      return 1;
    }
    if (!data || (size_t)n != size) {
      report(c, "input %u is %zu bytes in the module, %ld in the corpus", (unsigned)i, size, n);
      return 1;
    }
    memcpy(data, file_buf, size);
  }
  int32_t st = c->run();
  if (st != 0) {
    report(c, "%s: model_run returned %s at op %d", label, c->status_str(st),
           (int)c->failed_op());
    return 1;
  }
  for (uint32_t j = 0; j < c->n_outputs; j++) {
    size_t size = 0;
    const uint8_t *data = c->io(1, j, &size);
    const char *path = path_of(root, c->folder, pre, "output", j);
    long n = conf_read_file(path, file_buf, FILE_CAP);
    if (n < 0) {
      report(c, "cannot read %s", path);
      return 1;
    }
    if (!data || (size_t)n != size || size % elem_size(c->out_dtype[j])) {
      report(c, "output %u is %zu bytes in the module, %ld in the corpus", (unsigned)j, size, n);
      return 1;
    }
    if (compare(c, label, j, data, file_buf, (uint32_t)size)) return 1;
  }
  return 0;
}

int conf_case_run(const conf_case *c, const char *root) {
  static uint32_t seed;
  const unsigned writable = 1u << CONF_SCRATCH | 1u << CONF_PERSISTENT | 1u << CONF_STAGED;
  inexact = 0;
  fill(c, writable, ++seed);
  int32_t st = c->init();
  if (st != 0) {
    report(c, "model_init returned %s", c->status_str(st));
    return 1;
  }
  if (c->runs > 1) {
    char pre[16], label[48];
    for (uint32_t k = 0; k < c->runs; k++) {
      if (k) fill(c, 1u << CONF_SCRATCH, ++seed);
      snprintf(pre, sizeof pre, "run%u.", (unsigned)k);
      snprintf(label, sizeof label, "invocation %u", (unsigned)k);
      if (run_once(c, root, pre, label)) return 1;
    }
    st = c->reset();
    if (st != 0) {
      report(c, "reset_state returned %s", c->status_str(st));
      return 1;
    }
    fill(c, 1u << CONF_SCRATCH, ++seed);
    if (run_once(c, root, "run0.", "invocation 0 after reset_state")) return 1;
  } else {
    if (run_once(c, root, "", "run 1")) return 1;
    fill(c, 1u << CONF_SCRATCH, ++seed);
    if (run_once(c, root, "", "run 2")) return 1;
  }
  if (inexact)
    snprintf(msg, sizeof msg, "CONF PASS %s: %u float32 elements within tolerance, not identical",
             c->name, (unsigned)inexact);
  else
    snprintf(msg, sizeof msg, "CONF PASS %s", c->name);
  conf_print(msg);
  return 0;
}
