/*
 * golden.h — emitted modules with their kernels against TensorFlow Lite
 * Micro's outputs (the emit proof's end-to-end check).
 *
 * The probe (probe.h) proves the memory of every plan with kernels that
 * only check patterns.  This proves the other half of a module: built with
 * memplan's reference kernels (<P>_WITH_KERNELS), fed case 0 of the shared
 * golden data (../shared/golden), a module's outputs must equal TFLM's bit
 * for bit (integers) or within 1e-5 relative error (float32).  The per-
 * module glue (probe/golden.c) is written by tests/emit/proof_gen.c.
 */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct golden_blob {
  const uint8_t *data;
  uint32_t size;
  uint8_t is_float; /* float32: compared within 1e-5 relative error */
} golden_blob;

typedef struct golden_module {
  const char *name;  /* the module prefix */
  const char *model;
  uint32_t n_inputs, n_outputs;
  const golden_blob *inputs;   /* case 0 */
  const golden_blob *outputs;
  int32_t (*init)(void);
  int32_t (*run)(void);
  void *(*io)(int output, uint32_t i, size_t *size);
} golden_module;

/* Run one module on its golden case; prints "GOLDEN PASS ..." or
 * "GOLDEN FAIL ..." through probe_print; 0 when the outputs match. */
int golden_module_run(const golden_module *g);

#endif /* GOLDEN_H */
