/*
 * conform.h — one case of the conformance corpus (single-operator models
 * with TensorFlow Lite Micro's outputs), run through the module `memplan
 * convert` wrote for it.
 *
 * A case is the module's typed API adapted to conf_case by its glue
 * (written by tests/conformance/conform_gen.py).  conf_case_run runs it
 * twice: every writable region pre-filled with garbage, then model_init,
 * the inputs read from the corpus, model_run and the outputs compared
 * with TFLM's; then the scratch regions scrambled again (they hold
 * nothing between runs) and the case run once more on the same context.
 * Integer outputs must match bit for bit; float32 outputs within
 * CONF_F32_RTOL / CONF_F32_ATOL (below).
 *
 * C99, no heap: the same code runs on the host (ASan + UBSan, files read
 * with stdio) and on the emulated Cortex-M55 (files read through
 * semihosting).  One case at a time (static buffers).
 */
#ifndef CONFORM_H
#define CONFORM_H

#include <stddef.h>
#include <stdint.h>

/* float32 outputs match when |got - want| <= CONF_F32_ATOL +
 * CONF_F32_RTOL * |want|.  The reference kernels sum in TFLM's order and
 * no compiler contracts a*b+c into an FMA under -std=c99, so most float
 * results are bit-exact; what remains is the last bits of expf/tanhf
 * from another C library (glibc on the host, newlib on the target). */
#define CONF_F32_RTOL 1e-5f
#define CONF_F32_ATOL 1e-6f

/* What a region holds, for the garbage fill. */
enum {
  CONF_SCRATCH = 0,    /* holds nothing between runs: garbage before every run */
  CONF_PERSISTENT = 1, /* zeroed by context_init: garbage before model_init */
  CONF_STAGED = 2,     /* runtime copy of staged constants: garbage before model_init */
  CONF_CONST = 3       /* read-only blob */
};

/* Element types of outputs, the LiteRT TensorType codes. */
enum { CONF_FLOAT32 = 0, CONF_INT32 = 2, CONF_UINT8 = 3, CONF_INT64 = 4, CONF_BOOL = 6,
       CONF_INT16 = 7, CONF_INT8 = 9, CONF_UINT64 = 12, CONF_UINT32 = 15 };

typedef struct conf_region {
  uint32_t id;
  uint32_t size;
  uint8_t kind; /* CONF_* */
} conf_region;

typedef struct conf_case {
  const char *folder; /* "mean_int8/000", relative to the corpus root */
  uint32_t n_inputs, n_outputs;
  const uint8_t *out_dtype; /* [n_outputs]: CONF_FLOAT32, CONF_INT8, ... */
  uint32_t n_regions;
  const conf_region *regions;
  /* adapters to the module (the glue) */
  int32_t (*init)(void);       /* a fresh context, model_init */
  int32_t (*run)(void);        /* model_run of that context */
  int32_t (*failed_op)(void);  /* its failed_op */
  void *(*io)(int output, uint32_t i, size_t *size);
  void *(*region_base)(uint32_t r);
  const char *(*status_str)(int32_t status);
  /* a stateful case (the manifest's "runs" > 1): its invocations in
   * order, from run<k>.input<i>.bin to run<k>.output<j>.bin; 1 otherwise */
  uint32_t runs;
  int32_t (*reset)(void); /* <p>_reset_state of the context */
  /* what the CONF lines name: the folder, or "<folder>@<variant>" for a
   * case converted with a named variant's options (conform_gen.py) */
  const char *name;
} conf_case;

/* Provided by the program: read the file `path` whole into buf (at most
 * cap bytes).  Returns its size, or -1 when it cannot be read or is
 * larger than cap. */
long conf_read_file(const char *path, void *buf, uint32_t cap);
/* Provided by the program: print one line. */
void conf_print(const char *line);

/* Run one case (see above) from the corpus at `root`.  Prints "CONF PASS
 * <name>" or "CONF FAIL <name>: what differs"; 0 when it matched. */
int conf_case_run(const conf_case *c, const char *root);

#endif /* CONFORM_H */
