/*
 * two_models.c — two modules of one config (models: [...]) linked into one
 * program, sharing their scratch arena, run alternately against TFLM's
 * outputs: init both, then for every golden case the first model and the
 * second, each after the shared scratch was filled with garbage (the other
 * model's activations are garbage to it).  Integer outputs must match bit
 * for bit.  The same code runs on the host and, with TWO_TARGET, on QEMU's
 * Cortex-M55 (files read and lines printed through semihosting).
 *
 * The build names the two modules: -DA_H='"kws_model.h"' -DA_PREFIX=kws
 * -DA_UP=KWS, and so for B.  GOLDEN_A / GOLDEN_B name the golden folders.
 */
#include A_H
#include B_H

#include <stdio.h>
#include <string.h>

#ifdef TWO_TARGET
#include "semihost.h"
static void say(const char *s) { semihost_puts(s); }
static long read_file(const char *path, void *buf, uint32_t cap) {
  return semihost_read_file(path, buf, cap);
}
#else
static void say(const char *s) { puts(s); }
static long read_file(const char *path, void *buf, uint32_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  long n = (long)fread(buf, 1, cap, f);
  int more = fgetc(f) != EOF;
  fclose(f);
  return more ? -1 : n;
}
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define A(x) CAT(A_PREFIX, x)
#define B(x) CAT(B_PREFIX, x)
#define AU(x) CAT(A_UP, x)
#define BU(x) CAT(B_UP, x)

static uint8_t want[4096], got_in[16384];

/* One run of a model on golden case k: input, run, compare the output. */
static int run_case(const char *name, const char *dir, int k, void *in, size_t in_size,
                    const void *out, size_t out_size, int32_t (*run)(void *), void *ctx,
                    uint8_t *scratch, size_t scratch_size) {
  char path[512], line[600];
  snprintf(path, sizeof path, "%s/case%d.input0.bin", dir, k);
  long n = read_file(path, got_in, sizeof got_in);
  if (n != (long)in_size) {
    snprintf(line, sizeof line, "FAIL %s case %d: %s holds %ld bytes, the input %u", name, k,
             path, n, (unsigned)in_size);
    say(line);
    return 1;
  }
  /* garbage, as the other model leaves it; then the input, which lives in
   * the scratch (memory.io arena) and so is written right before the run */
  memset(scratch, 0xA5 ^ k, scratch_size);
  memcpy(in, got_in, in_size);
  snprintf(path, sizeof path, "%s/case%d.output0.bin", dir, k);
  n = read_file(path, want, sizeof want);
  if (n != (long)out_size) {
    snprintf(line, sizeof line, "FAIL %s case %d: %s holds %ld bytes, the output %u", name, k,
             path, n, (unsigned)out_size);
    say(line);
    return 1;
  }
  int32_t st = run(ctx);
  if (st != 0) {
    snprintf(line, sizeof line, "FAIL %s case %d: run returned %d", name, k, (int)st);
    say(line);
    return 1;
  }
  if (memcmp(out, want, out_size) != 0) {
    snprintf(line, sizeof line, "FAIL %s case %d: the output differs from TFLM's", name, k);
    say(line);
    return 1;
  }
  snprintf(line, sizeof line, "PASS %s case %d", name, k);
  say(line);
  return 0;
}

static A(_model_context_t) a_ctx;
static B(_model_context_t) b_ctx;
static int32_t run_a(void *c) { return A(_model_run)(c); }
static int32_t run_b(void *c) { return B(_model_run)(c); }

int main(void) {
  int fail = 0;
  char line[200];
  uint8_t *sa = A(_arena_buffer)(AU(_REGION_SCRATCH_DTCM));
  uint8_t *sb = B(_arena_buffer)(BU(_REGION_SCRATCH_DTCM));
  if (sa == NULL || sa != sb) {
    say("FAIL the two modules' scratch regions are not one buffer");
    fail++;
  } else {
    snprintf(line, sizeof line, "PASS one scratch buffer of %u bytes for needs of %u and %u",
             (unsigned)AU(_SHARED_SCRATCH_DTCM_SIZE), (unsigned)AU(_REGION_SCRATCH_DTCM_SIZE),
             (unsigned)BU(_REGION_SCRATCH_DTCM_SIZE));
    say(line);
  }
  if (A(_model_init)(&a_ctx) != 0 || B(_model_init)(&b_ctx) != 0) {
    say("FAIL model_init");
    return 1;
  }
  for (int k = 0; k < 3; k++) {
    fail += run_case("a", GOLDEN_A, k, a_ctx.inputs[0].data, a_ctx.inputs[0].size,
                     a_ctx.outputs[0].data, a_ctx.outputs[0].size, run_a, &a_ctx, sa,
                     AU(_SHARED_SCRATCH_DTCM_SIZE));
    fail += run_case("b", GOLDEN_B, k, b_ctx.inputs[0].data, b_ctx.inputs[0].size,
                     b_ctx.outputs[0].data, b_ctx.outputs[0].size, run_b, &b_ctx, sb,
                     BU(_SHARED_SCRATCH_DTCM_SIZE));
  }
  snprintf(line, sizeof line, "%s: %d failures", fail ? "FAIL" : "DONE", fail);
  say(line);
#ifdef TWO_TARGET
  semihost_exit(fail ? 1 : 0);
#endif
  return fail ? 1 : 0;
}
