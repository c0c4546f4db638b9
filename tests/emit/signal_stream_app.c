/*
 * signal_stream_app.c — the module of `mkmodel fixture signal_stream`
 * (prefix ss: SignalDelay, SignalFramer, SignalOverlapAdd and
 * SignalStacker on 8 samples a call, SignalRfft and SignalIrfft on the
 * framer's frames; see tests/support/gen/fixtures.c),
 * built from its own module.mk: twelve calls over a ramp, then
 * reset_state and twelve calls again, each output checked against what
 * TFLM's kernels do over a stream:
 *
 *   delayed  = the previous call's input (0s on the first call)
 *   ola      = 2 * delayed (framing with prefill, overlap-adding frames
 *              twice their step apart)
 *   framed   = 1 (the prefill gives every call a frame)
 *   stack    = the previous and this call's delayed (on the first call
 *              the first frame twice), stacked = 1
 *   back     = the frame (the previous call's input, then this call's)
 *              / 16 within 4 units: the real FFT and its inverse in
 *              KISS FFT's int16 fixed point each scale by 1 / 16
 *
 * Built and run by tests/suite_emit_proof.sh.  Exit status 0 when all
 * hold.
 */
#include "ss_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sample n of the stream: a ramp that crosses zero and wraps no int16 */
static int16_t x_at(int32_t n) { return (int16_t)(37 * n - 900); }

static int bad(int pass, int t, const char *what, int i, int got, int want) {
  printf("pass %d, call %d: %s[%d] is %d, want %d\n", pass, t, what, i, got, want);
  return 1;
}

int main(void) {
  ss_model_context_t ctx = SS_MODEL_CONTEXT_INIT;
  int32_t st = ss_model_init(&ctx);
  if (st != SS_STATUS_OK || SS_NUM_INPUTS != 1 || SS_NUM_OUTPUTS != 6) {
    printf("ss_model_init: %s\n", ss_status_str(st));
    return 2;
  }
  for (int pass = 0; pass < 2; pass++) {
    for (int t = 0; t < 12; t++) {
      int16_t *x = (int16_t *)ctx.inputs[0].data;
      for (int i = 0; i < 8; i++) x[i] = x_at(8 * t + i);
      st = ss_model_run(&ctx);
      if (st != SS_STATUS_OK) {
        printf("ss_model_run: %s at op %d\n", ss_status_str(st), (int)ctx.failed_op);
        return 1;
      }
      const int16_t *delayed = (const int16_t *)ctx.outputs[0].data;
      const int16_t *ola = (const int16_t *)ctx.outputs[1].data;
      const uint8_t *framed = (const uint8_t *)ctx.outputs[2].data;
      const int16_t *stack = (const int16_t *)ctx.outputs[3].data;
      const uint8_t *stacked = (const uint8_t *)ctx.outputs[4].data;
      const int16_t *back = (const int16_t *)ctx.outputs[5].data;
      for (int i = 0; i < 8; i++) {
        const int want = t > 0 ? x_at(8 * (t - 1) + i) : 0;
        if (delayed[i] != want) return bad(pass, t, "delayed", i, delayed[i], want);
        if (ola[i] != 2 * want) return bad(pass, t, "ola", i, ola[i], 2 * want);
        const int older = t > 1 ? x_at(8 * (t - 2) + i) : 0;
        if (stack[i] != (t > 0 ? older : want)) return bad(pass, t, "stack", i, stack[i], older);
        if (stack[8 + i] != want) return bad(pass, t, "stack", 8 + i, stack[8 + i], want);
        /* the frame: samples 8 (t - 1) .. 8 t + 7, 0 before the stream */
        for (int h = 0; h < 2; h++) {
          const int n = 8 * (t - 1 + h) + i, f = n >= 0 ? x_at(n) : 0;
          if (abs(16 * back[8 * h + i] - f) > 4 * 16)
            return bad(pass, t, "16 * back", 8 * h + i, 16 * back[8 * h + i], f);
        }
      }
      if (framed[0] != 1) return bad(pass, t, "framed", 0, framed[0], 1);
      if (stacked[0] != 1) return bad(pass, t, "stacked", 0, stacked[0], 1);
    }
    st = ss_reset_state(&ctx);
    if (st != SS_STATUS_OK) {
      printf("ss_reset_state: %s\n", ss_status_str(st));
      return 1;
    }
  }
  printf("signal_stream: 12 calls, reset_state, 12 calls: delay, framer, overlap-add and stacker "
         "as TFLM streams them, rfft then irfft gives the frames / 16\n");
  return 0;
}
