/*
 * golden.c — run an emitted module with its kernels on TFLM's case 0 and
 * compare the outputs (see golden.h).  C99, no heap; runs on the host and
 * on the target.
 */
#include "golden.h"

#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int compare(const golden_module *g, uint32_t j, const uint8_t *got, char *msg, size_t n) {
  const golden_blob *want = &g->outputs[j];
  if (!want->is_float) {
    for (uint32_t b = 0; b < want->size; b++)
      if (got[b] != want->data[b]) {
        snprintf(msg, n, "output %u byte %u is 0x%02x, TFLM has 0x%02x", (unsigned)j, (unsigned)b,
                 (unsigned)got[b], (unsigned)want->data[b]);
        return 1;
      }
    return 0;
  }
  for (uint32_t k = 0; k + 4 <= want->size; k += 4) {
    float x, y;
    memcpy(&x, got + k, 4);
    memcpy(&y, want->data + k, 4);
    float tol = 1e-5f * (fabsf(y) > 1.0f ? fabsf(y) : 1.0f);
    if (!(fabsf(x - y) <= tol)) {
      snprintf(msg, n, "output %u element %u is %.7g, TFLM has %.7g", (unsigned)j,
               (unsigned)(k / 4), (double)x, (double)y);
      return 1;
    }
  }
  return 0;
}

int golden_module_run(const golden_module *g) {
  char msg[200] = "", line[360];
  int32_t st = g->init();
  if (st != 0) snprintf(msg, sizeof msg, "model_init returned %d", (int)st);
  for (uint32_t i = 0; !msg[0] && i < g->n_inputs; i++) {
    size_t size;
    void *d = g->io(0, i, &size);
    if (!d || size != g->inputs[i].size)
      snprintf(msg, sizeof msg, "input %u: %u bytes in the module, %u in the golden data",
               (unsigned)i, (unsigned)size, (unsigned)g->inputs[i].size);
    else
      memcpy(d, g->inputs[i].data, size);
  }
  if (!msg[0] && (st = g->run()) != 0) snprintf(msg, sizeof msg, "model_run returned %d", (int)st);
  for (uint32_t j = 0; !msg[0] && j < g->n_outputs; j++) {
    size_t size;
    const uint8_t *d = g->io(1, j, &size);
    if (!d || size != g->outputs[j].size)
      snprintf(msg, sizeof msg, "output %u: %u bytes in the module, %u in the golden data",
               (unsigned)j, (unsigned)size, (unsigned)g->outputs[j].size);
    else
      compare(g, j, d, msg, sizeof msg);
  }
  if (msg[0]) {
    snprintf(line, sizeof line, "GOLDEN FAIL %s (%s): %s", g->name, g->model, msg);
    probe_print(line);
    return 1;
  }
  snprintf(line, sizeof line, "GOLDEN PASS %s (%s): outputs equal TFLM's", g->name, g->model);
  probe_print(line);
  return 0;
}
