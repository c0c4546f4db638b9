/*
 * convert_app.c — an application of the module `memplan convert` writes
 * for the bundled example (examples/kws/config.yaml, prefix kws): init, an
 * input, a run, the output.  Built by tests/suite_emit_proof.sh against
 * the module's own module.mk and CMakeLists.txt.
 *
 *   convert_app            the kernels are linked: the run succeeds and
 *                          the softmax output sums to 1 (256/256)
 *   convert_app none       built without kernels: the run must fail with
 *                          KWS_STATUS_UNSUPPORTED_OP at operator 0
 */
#include "kws_model.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int no_kernels = argc > 1 && !strcmp(argv[1], "none");
  kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;
  int32_t st = kws_model_init(&ctx);
  if (st != KWS_STATUS_OK) {
    printf("kws_model_init: %s\n", kws_status_str(st));
    return 1;
  }
  memset(ctx.inputs[0].data, 3, ctx.inputs[0].size);
  st = kws_model_run(&ctx);
  if (no_kernels) {
    printf("without kernels: %s at op %d\n", kws_status_str(st), (int)ctx.failed_op);
    return st == KWS_STATUS_UNSUPPORTED_OP && ctx.failed_op == 0 ? 0 : 1;
  }
  if (st != KWS_STATUS_OK) {
    printf("kws_model_run: %s at op %d\n", kws_status_str(st), (int)ctx.failed_op);
    return 1;
  }
  const int8_t *y = ctx.outputs[0].data;
  int sum = 0;
  for (size_t i = 0; i < ctx.outputs[0].size; i++) sum += y[i] + 128;
  printf("with kernels: the softmax output sums to %d/256\n", sum);
  return sum >= 250 && sum <= 262 ? 0 : 1;
}
