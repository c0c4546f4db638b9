/*
 * stream_app.c — an application of a stateful model's module (prefix st)
 * as `memplan convert` writes it, built from its own module.mk as a
 * static library: init once, then each case's input file in order, each
 * run's output compared byte for byte with the case's output file, then
 * reset_state and the first case again.  Built and run by
 * tests/suite_emit_proof.sh for the corpus's stateful models, so that the
 * module's archive build links every kernel its kernels call.
 *
 *   stream_app IN0 OUT0 [IN1 OUT1 ...]     (single-input, single-output)
 */
#include "st_model.h"

#include <stdio.h>
#include <string.h>

static int load(const char *path, void *buf, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(buf, 1, size, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  return n == size && !extra;
}

static int run_case(st_model_context_t *ctx, const char *in, const char *out, int k) {
  static unsigned char want[1 << 16];
  if (ctx->outputs[0].size > sizeof want || !load(in, ctx->inputs[0].data, ctx->inputs[0].size) ||
      !load(out, want, ctx->outputs[0].size)) {
    printf("case %d: cannot read %s / %s at the module's sizes\n", k, in, out);
    return 1;
  }
  int32_t st = st_model_run(ctx);
  if (st != ST_STATUS_OK) {
    printf("case %d: st_model_run: %s at op %d\n", k, st_status_str(st), (int)ctx->failed_op);
    return 1;
  }
  if (memcmp(ctx->outputs[0].data, want, ctx->outputs[0].size)) {
    printf("case %d: output differs from TFLM's\n", k);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  st_model_context_t ctx = ST_MODEL_CONTEXT_INIT;
  int32_t st = st_model_init(&ctx);
  if (st != ST_STATUS_OK || argc < 3 || argc % 2 != 1) {
    printf("st_model_init: %s\n", st_status_str(st));
    return 2;
  }
  for (int k = 0; 2 * k + 2 < argc + 1 && 2 * k + 1 < argc; k++)
    if (run_case(&ctx, argv[2 * k + 1], argv[2 * k + 2], k)) return 1;
  st = st_reset_state(&ctx);
  if (st != ST_STATUS_OK || run_case(&ctx, argv[1], argv[2], 0)) {
    printf("after st_reset_state (%s), case 0 differs\n", st_status_str(st));
    return 1;
  }
  printf("%d cases in sequence, then case 0 after st_reset_state, give TFLM's outputs\n",
         (argc - 1) / 2);
  return 0;
}
