/*
 * golden.h — emitted modules with their kernels against TensorFlow Lite
 * Micro's outputs (the emit proof's end-to-end check, issue 8).
 *
 * The probe (probe.h) proves the memory of every plan with kernels that
 * only check patterns.  This proves the other half: a module as `memplan
 * convert` emits it, built with memplan's reference kernels
 * (<P>_WITH_KERNELS), must turn TFLM's inputs into TFLM's outputs, bit for
 * bit (integers) or within 1e-5 relative error (float32), for all three
 * cases of ../shared/golden, once on zeroed arenas and once on arenas
 * pre-filled with garbage.  On case 0 the op callback compares every
 * operator's outputs with TFLM's intermediate tensors as soon as the
 * operator finishes, so a mismatch names the first operator that differs.
 * The kernel hook checks model_init's fixed order (context_init, then
 * hydrate_constants, then the operator inits in order) and that every
 * constant an init hook sees — staged ones included — holds the model's
 * bytes; it also plugs in the test-only wrong kernel that shows a wrong
 * result is caught and named.
 *
 * The model's facts (golden data, constant hashes, names) are one
 * golden_model per model, shared by its modules; each module's glue
 * (probe/golden.c, written by tests/emit/proof_gen.c) adapts the module's
 * typed API to golden_module.  C99, no heap: the same code runs on the host
 * and on the emulated Cortex-M55.
 */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct golden_blob {
  const uint8_t *data; /* NULL: TFLM recorded nothing */
  uint32_t size;
  uint8_t is_float; /* float32: compared within 1e-5 relative error */
} golden_blob;

/* One model of the corpus with its golden data (../shared/golden/<model>). */
typedef struct golden_model {
  const char *name;
  uint32_t n_inputs, n_outputs, n_tensors;
  const golden_blob *inputs;       /* [k * n_inputs + i]: case k, k = 0..2 */
  const golden_blob *outputs;      /* [k * n_outputs + j] */
  const golden_blob *tensors;      /* [t]: case0.tensor{t}.bin of every op output */
  const uint8_t *is_const;         /* [t]: a constant of the model */
  const uint32_t *const_hash;      /* [2t], [2t+1]: FNV-1a 64 of its bytes, lo, hi */
  const char *const *tensor_names; /* [t] */
} golden_model;

/* What a region holds, for the garbage fill and the staged-constant check. */
enum {
  GOLDEN_SCRATCH = 0,    /* holds nothing between runs: garbage before every run */
  GOLDEN_PERSISTENT = 1, /* zeroed by context_init: garbage before model_init */
  GOLDEN_STAGED = 2,     /* runtime copy of staged constants: garbage before model_init */
  GOLDEN_CONST = 3       /* read-only blob (cold constants, staging sources) */
};

typedef struct golden_region {
  uint32_t id;
  uint32_t size;
  uint8_t kind; /* GOLDEN_* */
} golden_region;

/* One operator as the module describes it (<p>_ops[i]). */
typedef struct golden_op {
  const char *name;
  uint32_t n_inputs, n_outputs;
  const int32_t *inputs, *outputs;
  int is_view;
} golden_op;

typedef struct golden_module {
  const char *name; /* the module prefix */
  const char *what; /* "model / planner / config" */
  const golden_model *model;
  uint32_t n_ops, n_regions;
  const golden_region *regions;
  int32_t wrong_op; /* the op the wrong-kernel test breaks, -1: no such test */
  /* adapters to the module (the glue) */
  int32_t (*init)(
      int hooked);      /* a fresh context (hooked: kernel hook and callback on), model_init */
  int32_t (*run)(void); /* model_run of that context */
  int32_t (*failed_op)(void); /* its failed_op */
  void *(*io)(int output, uint32_t i, size_t *size);
  void *(*tensor_data)(uint32_t id);
  /* the tensor's region (-1 without storage) and size in bytes */
  int32_t (*tensor_region)(uint32_t id, uint32_t *size);
  void *(*region_base)(uint32_t r);
  void (*op)(uint32_t i, golden_op *op);
  int32_t (*builtin)(uint32_t i); /* the module's own kernel glue of op i (op<i>_run) */
  int32_t (*reset_state)(void);   /* <p>_reset_state of the context */
  /* <p>_tensor_rows: a strided view's rows (an elided concatenation's input) */
  int (*tensor_rows)(uint32_t id, uint32_t *row_bytes, uint32_t *row_stride);
} golden_module;

/* The kernel hook's answer "run the built-in kernel" (the glue maps it to
 * <P>_KERNEL_DEFAULT). */
#define GOLDEN_DEFAULT 1

/* Called by the glue's kernel hook for op `op`: `init` is the init phase;
 * `ready` says the context looks initialised by context_init (inputs
 * pointed at their slots) and not yet marked initialised.  Returns
 * GOLDEN_DEFAULT, 0 (it ran the op itself) or a failure code. */
int32_t golden_kernel(const golden_module *m, uint32_t op, int init, int ready);
/* Called by the glue's callback when op `op` has finished. */
void golden_op_finished(const golden_module *m, uint32_t op);

/* Run one module on all three golden cases, on zeroed and on garbage-
 * filled arenas; prints "GOLDEN PASS ..." or "GOLDEN FAIL ..." through
 * probe_print, and (when the program has a clock) "GOLDEN COUNT name
 * ticks runs" for an unhooked run of case 0.  0 when everything matched. */
int golden_module_run(const golden_module *m);

/* The wrong-kernel test (m->wrong_op >= 0): op wrong_op runs its own
 * kernel and then changes one output element by one unit; the report must
 * name that op.  Prints "GOLDEN CAUGHT ..." (0) or "GOLDEN FAIL ..." (1). */
int golden_module_wrong_kernel(const golden_module *m);

/* The garbage pass can catch a kernel that reads memory it did not write:
 * op wrong_op's kernel adds what its output slot held before the op to its
 * result (an accumulator never zeroed).  On garbage-filled arenas the
 * report must name that op.  0 when it does. */
int golden_module_uninit_kernel(const golden_module *m);

/* Provided by the program: a tick counter, 0 when it has none (host).
 * On the target, SysTick under QEMU's -icount (see target_main.c). */
int golden_clock(uint64_t *ticks);

#endif /* GOLDEN_H */
