/*
 * fold_app.c — runs a module emitted with prefix `fx` twice on one
 * deterministic input and prints its outputs' bytes in hex, 32 to a line:
 * tests/suite_rewrite.sh compares the lines of a module whose PADs were
 * folded into its convolutions with those of the same model's module
 * without folding.  Built for the host (printf) or, with FOLD_TARGET, for
 * the emulated Cortex-M55 (semihosting; main's status ends QEMU).
 *
 * Before each run every byte of every scratch tensor (region 0, the first
 * scratch arena) is filled with xorshift garbage, a different seed per run,
 * and the input is written again: a kernel that reads a byte no one wrote,
 * or a folded convolution that reads past its input, changes the output.
 * The second run must give the first run's bytes (status 3 otherwise):
 * each run starts from fx_reset_state, so a stateful model's two runs see
 * the same stream.
 * The inputs, one after the other from one generator: int8 bytes, or
 * float32 values in [-2, 2).
 *
 * Every operator's outputs are checked too, not only the model's (a
 * classifier's few output bytes could hide a wrong intermediate): when an
 * operator finishes, the op callback hashes each of its outputs (FNV-1a)
 * and the first run prints one line per operator.  PADs are left out (a
 * folded PAD writes nothing; its convolution's output is checked).  A view
 * operator (a RESHAPE, or with memory.in_place a SPLIT, SLICE or elided
 * CONCATENATION that runs nothing) is hashed like any other: once it is
 * done its outputs must hold what the plain module's copy wrote.  Also run
 * by the operator-order cases: a module run in the order memory.op_order
 * chose against the model-order module (the operators' lines then come in
 * another order, under other positions).
 */
#include "fx_model.h"

#include "../emit/garbage.h"

#include <stdio.h>
#include <string.h>

/* Frames per run: a stateful model (SVDF, LSTM) runs a stream of
 * FOLD_FRAMES frames from a reset state, its state carried from frame to
 * frame; every frame's operator outputs enter the hashes and the last
 * frame's outputs are printed. */
#ifndef FOLD_FRAMES
#define FOLD_FRAMES 1u
#endif

#ifdef FOLD_TARGET
#include "semihost.h"
static void put_line(const char *s) { semihost_puts(s); }
#else
static void put_line(const char *s) { printf("%s\n", s); }
#endif

static void scramble(uint32_t seed) {
  uint32_t x = seed * 2654435761u + 0x9E3779B9u;
  for (uint32_t t = 0; t < FX_NUM_TENSORS; t++) {
    uint8_t *d = fx_tensor_data(t);
    if (fx_tensors[t].region == 0 && d != NULL) garbage_fill(d, fx_tensors[t].size, &x);
  }
}

/* Every input from one generator, in input order; frame f of a stream
 * from its own seed. */
static void write_inputs(fx_model_context_t *ctx, uint32_t frame) {
  uint32_t x = 12345u + 7919u * frame;
  for (uint32_t k = 0; k < FX_NUM_INPUTS; k++) {
    uint8_t *in = ctx->inputs[k].data;
    if (ctx->inputs[k].dtype != FX_DTYPE_FLOAT32) {
      garbage_fill(in, (uint32_t)ctx->inputs[k].size, &x);
      continue;
    }
    for (uint32_t i = 0; i < ctx->inputs[k].size / 4u; i++) {
      uint8_t b[2];
      garbage_fill(b, 2, &x);
      float v = (float)(b[0] | (b[1] << 8)) / 16384.0f - 2.0f;
      memcpy(in + 4u * i, &v, sizeof v);
    }
  }
}

/* The first run's outputs, one after the other. */
static uint8_t first[64u * 1024u];

/* Each operator's output hashes of the first run, and the run going on. */
#define MAX_OPS 1024u
static uint32_t op_hash[MAX_OPS], frame_hash[MAX_OPS];
static uint32_t current_run, current_frame, op_mismatch = MAX_OPS;

static void after_op(const fx_op_t *op, fx_op_event_t event, void *user) {
  (void)user;
  if (event != FX_OP_FINISHED || op->builtin == 34 || op->builtin == 60 || op->index >= MAX_OPS)
    return;
  /* over a stream's frames, each frame's hash chains on the last one's */
  uint32_t h = current_frame ? frame_hash[op->index] : 2166136261u;
  for (uint32_t o = 0; o < op->n_outputs; o++) {
    /* a strided view (an elided concatenation's input) is its rows */
    const uint32_t t = (uint32_t)op->outputs[o];
    const uint8_t *d = fx_tensor_data(t);
    uint32_t row = 0, stride = 0;
    fx_tensor_rows(t, &row, &stride);
    for (size_t i = 0; d && row && i < fx_tensors[t].size; i++)
      h = (h ^ d[(i / row) * stride + i % row]) * 16777619u;
  }
  if (current_frame + 1 < FOLD_FRAMES) {
    frame_hash[op->index] = h;
    return;
  }
  if (current_run == 1) {
    char line[64];
    op_hash[op->index] = h;
    snprintf(line, sizeof line, "op %u %s: %08x", (unsigned)op->index, op->name, (unsigned)h);
    put_line(line);
  } else if (op_hash[op->index] != h && op_mismatch == MAX_OPS) {
    op_mismatch = op->index;
  }
}

int main(void) {
  static fx_model_context_t ctx = FX_MODEL_CONTEXT_INIT;
  char line[80];
  ctx.callback = after_op;
  for (uint32_t run = 1; run <= 2; run++) {
    current_run = run;
    scramble(run);
    if (run == 1 && fx_model_init(&ctx) != FX_STATUS_OK) return 1;
    if (fx_reset_state(&ctx) != FX_STATUS_OK) return 1;
    for (current_frame = 0; current_frame < FOLD_FRAMES; current_frame++) {
      if (current_frame) scramble(run * 16u + current_frame);
      write_inputs(&ctx, current_frame);
      int32_t st = fx_model_run(&ctx);
      if (st != FX_STATUS_OK) {
        snprintf(line, sizeof line, "run %u: %s at op %d", (unsigned)run, fx_status_str(st),
                 (int)ctx.failed_op);
        put_line(line);
        return 2;
      }
    }
    if (op_mismatch != MAX_OPS) {
      snprintf(line, sizeof line, "run 2: op %u's outputs differ from run 1's",
               (unsigned)op_mismatch);
      put_line(line);
      return 3;
    }
    uint32_t pos = 0;
    for (uint32_t o = 0; o < FX_NUM_OUTPUTS; o++) {
      const uint8_t *d = ctx.outputs[o].data;
      uint32_t n = ctx.outputs[o].size;
      if (pos + n > sizeof first) return 4;
      if (run == 2 && memcmp(first + pos, d, n) != 0) {
        snprintf(line, sizeof line, "run 2: output %u differs from run 1's", (unsigned)o);
        put_line(line);
        return 3;
      }
      memcpy(first + pos, d, n);
      pos += n;
      if (run == 2) continue;
      snprintf(line, sizeof line, "output %u: %u bytes", (unsigned)o, (unsigned)n);
      put_line(line);
      for (uint32_t i = 0; i < n; i += 32) {
        uint32_t k = 0;
        for (uint32_t j = i; j < n && j < i + 32; j++) k += (uint32_t)snprintf(line + k, 3, "%02x", d[j]);
        line[k] = '\0';
        put_line(line);
      }
    }
  }
  put_line("two runs alike");
  return 0;
}
