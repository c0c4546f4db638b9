/*
 * main.c — run the keyword-spotting module once on the Cortex-M55 (or the
 * Cortex-M4F) and print what it heard.
 *
 * The application's side of a memplan module, whole: initialise the
 * context once, quantise real-valued features into the input with the
 * header's KWS_INPUT0_QUANTISE, run, and read the scores back with
 * KWS_OUTPUT0_DEQUANTISE.  Every entry point returns a status; a failure
 * is printed by name.  Exits 0 on success.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "kws_model.h"

static kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;

/* A stand-in for the audio front end: KWS_INPUT0_ELEMENTS features
 * (49 frames of 10 MFCCs) as real values. */
static void read_features(float *x) {
  for (size_t k = 0; k < KWS_INPUT0_ELEMENTS; k++) x[k] = (float)((k * 7u) % 23u) * 0.5f - 5.0f;
}

/* "label value" with value printed as a decimal integer. */
static void print_int(const char *label, long v) {
  char line[64], digits[24];
  size_t n = 0, at = strlen(label);
  memcpy(line, label, at);
  unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
  do {
    digits[n++] = (char)('0' + u % 10u);
    u /= 10u;
  } while (u);
  if (v < 0) line[at++] = '-';
  while (n) line[at++] = digits[--n];
  line[at] = '\0';
  board_puts(line);
}

static int fail(const char *what, int32_t st) {
  board_puts(what);
  board_puts(kws_status_str(st));
  if (ctx.failed_op >= 0) print_int("at operator ", ctx.failed_op);
  return 1;
}

int main(void) {
  static float features[KWS_INPUT0_ELEMENTS];
  int32_t st = kws_model_init(&ctx); /* context_init, hydrate_constants, op init */
  if (st != KWS_STATUS_OK) return fail("kws_model_init failed:", st);

  read_features(features);
  int8_t *in = ctx.inputs[0].data;
  for (size_t k = 0; k < KWS_INPUT0_ELEMENTS; k++) in[k] = KWS_INPUT0_QUANTISE(features[k]);

  st = kws_model_run(&ctx);
  if (st != KWS_STATUS_OK) return fail("kws_model_run failed:", st);

  const int8_t *out = ctx.outputs[0].data;
  size_t best = 0;
  for (size_t k = 0; k < KWS_OUTPUT0_ELEMENTS; k++) {
    float p = KWS_OUTPUT0_DEQUANTISE(out[k]);
    print_int("score per mille ", (long)(p * 1000.0f + 0.5f));
    if (out[k] > out[best]) best = k;
  }
  print_int("class ", (long)best);
  return 0;
}
