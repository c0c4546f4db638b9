/*
 * probe.h — the probe kernels of the emit proof (tests/suite_emit_proof.sh).
 *
 * An emitted module runs with a kernel hook that sends every operator here.
 * A probe kernel knows nothing of arithmetic; it checks memory.  Before an
 * operator "runs", every tensor it reads must still hold exactly what its
 * producer wrote: a pattern derived from the producer's tensor id, the byte
 * index and the round (graph inputs: the harness's pattern; constants: the
 * model's bytes, checked by hash; variable tensors: zero until written).
 * Then the probe fills every tensor the operator writes with that tensor's
 * own pattern, and checks again that the inputs survived and the outputs do
 * not overlap each other.  Any overlap of two live tensors, any constant
 * that differs from the model, any slot outside its region shows up as a
 * byte that is not what it should be, and the failure names the operator,
 * the tensor, the byte and, when it can tell, the tensor whose pattern is
 * there instead.
 *
 * What a module looks like to the probe (probe_module) is written by
 * tests/emit/proof_gen.c per module: the graph's facts (from the model, not
 * from the plan) plus adapters to the module's typed API.  The same code
 * runs on the host (under ASan/UBSan) and on the emulated Cortex-M55.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stddef.h>
#include <stdint.h>

/* What a tensor should hold, from the graph. */
enum {
  PROBE_NONE = 0,       /* no storage needed: not checked */
  PROBE_CONST = 1,      /* a constant: the model's bytes (hash) */
  PROBE_INPUT = 2,      /* a graph input: the harness's pattern */
  PROBE_PRODUCED = 3,   /* written by an operator (output, intermediate, op-local) */
  PROBE_PERSISTENT = 4, /* a variable: its start value after model_init until an op writes it */
  PROBE_UNWRITTEN = 5   /* read but never written: not checked */
};

typedef struct probe_tensor {
  uint32_t size;       /* bytes */
  uint8_t kind;        /* PROBE_* */
  int32_t root;        /* the view root whose storage it shares (itself if none) */
  uint32_t at;         /* where a view's bytes start in its root's (0 if none) */
  uint32_t hash_lo;    /* PROBE_CONST: FNV-1a 64 of the model's bytes */
  uint32_t hash_hi;
  const char *name;
  uint32_t row, stride; /* a strided view (an elided concatenation's input):
                           rows of `row` bytes, `stride` apart; else 0, 0 */
  /* PROBE_PERSISTENT: the start value model_init and every reset give it,
   * byte b = start ? start[b] : start_byte (0 for most variables; an int8
   * variable's zero point; a resource variable's init-subgraph value) */
  const uint8_t *start;
  uint8_t start_byte;
} probe_tensor;

/* How a kernel that may write its output over one of its inputs (its
 * overlap contract, runtime/kernels/mpk.h) walks that pair.  When the
 * module's layout makes the two share bytes, the probe replays the walk:
 * it checks every input byte at the moment the kernel reads it and writes
 * every output element at the moment the kernel writes it, so an output
 * placed too close to its input shows up as an input byte that was already
 * overwritten.  Taken from the operator (its lowered geometry), never from
 * the plan or from the contract's own arithmetic. */
enum {
  PROBE_WALK_ELEMENTS = 1, /* element i read, then element i written */
  PROBE_WALK_ROWS = 2,     /* FULLY_CONNECTED: every output of row b reads all of row b */
  PROBE_WALK_WINDOW = 3,   /* CONV_2D: every output channel reads its group's window */
  PROBE_WALK_CHANNEL = 4,  /* DEPTHWISE_CONV_2D, pooling: every output channel reads the
                              window of its one input channel */
  PROBE_WALK_PAD = 5,      /* PAD: output elements in order, each inside copied from its
                              input element */
  PROBE_WALK_PIXEL_PAIRS = 6, /* the specialised CONV_2D (1x1, im2col): output pixels in
                                 pairs (per batch), both windows (every channel) read, the
                                 pair's outputs written, and (1x1) both windows read again,
                                 as the kernel still reads them while it writes */
  PROBE_WALK_ROW_PAIRS = 7,   /* the specialised FULLY_CONNECTED: rows in pairs, both read,
                                 the pair's outputs written, both read again */
  PROBE_WALK_STRIDED = 8,     /* SLICE, STRIDED_SLICE (the strided copy): output element
                                 i read from its source element, then written, in order */
  PROBE_WALK_SERIAL = 9,      /* DEPTHWISE_CONV_2D channel by channel: for each channel, the
                                 windows of every output pixel read from that channel,
                                 then that channel of every output pixel written */
  PROBE_WALK_TILES = 10       /* a patched stage (memory.patch): tile by tile, the input
                                 window its calls read, then its tile of the output */
};

typedef struct probe_walk {
  uint8_t kind;      /* PROBE_WALK_* */
  uint8_t in;        /* which input of the op */
  uint8_t in_bytes;  /* element sizes */
  uint8_t out_bytes;
  /* ELEMENTS: count; ROWS and ROW_PAIRS: batches, accum_depth, out_depth;
   * WINDOW, CHANNEL, SERIAL and PIXEL_PAIRS: batches, in_h, in_w, in_c, out_h,
   * out_w, out_c, filter_h, filter_w, filter_c (WINDOW, PIXEL_PAIRS) or
   * depth multiplier (CHANNEL, SERIAL), stride_h, stride_w, dilation_h, dilation_w,
   * pad_h, pad_w, and (PIXEL_PAIRS) 1 when the windows are read again after
   * the writes; PAD: in_dims[6], out_dims[6], before[6]; STRIDED: the
   * source's first element, dims[6], in_strides[6] (elements); TILES: tiles,
   * in_w, in_c, out_w, out_c */
  int32_t n[18];
  /* TILES: per tile, the input rectangle read and the output rectangle
   * written, as y0, y1, x0, x1 each (pixels; an empty one reads or writes
   * nothing) */
  const int32_t *tiles;
} probe_walk;

typedef struct probe_op {
  const char *name;
  uint16_t n_in;       /* op_io[first ...]: inputs (-1 absent) */
  uint16_t n_out;      /* then outputs */
  uint16_t n_extra;    /* then intermediates and op-local scratch it writes */
  uint8_t is_view;     /* aliased view: the module must not call the hook */
  uint32_t first;
  uint8_t n_walks;     /* the kernel's in-place walks of output 0 */
  const probe_walk *walks;
} probe_op;

typedef struct probe_region {
  uint32_t id;         /* <P>_REGION_... */
  uint32_t size;       /* <P>_REGION_..._SIZE */
  uint32_t align;
  uint8_t writable;    /* scratch, persistent, staged runtime copy */
  uint8_t persistent;  /* holds variables */
  const char *symbol;
} probe_region;

/* The module's status codes, by meaning. */
typedef struct probe_statuses {
  int32_t ok, bad_region, unbound, too_small, misaligned, mismatch, not_init, unsupported,
      kernel_failed;
} probe_statuses;

typedef struct probe_module probe_module;

struct probe_module {
  const char *name;          /* the module prefix */
  const char *what;          /* "model / planner / config" */
  uint32_t n_tensors, n_ops, n_regions, n_inputs, n_outputs;
  const probe_tensor *tensors;
  const probe_op *ops;
  const int32_t *op_io;
  const probe_region *regions;
  const int32_t *inputs;
  const int32_t *outputs;
  uint8_t *state;            /* per tensor: round of its last write (persistent) */
  uint8_t bound;             /* allocate_arenas false: the harness binds */
  uint8_t strong_hydrate;    /* the glue defines <p>_hydrate_constants */
  uint8_t guard_neighbours;  /* target, own arenas: check the bytes around them */
  probe_statuses st;
  /* adapters to the module (the glue) */
  int32_t (*init)(void);           /* model_init of the probed context */
  int32_t (*run)(void);            /* model_run of the probed context */
  int32_t (*init_plain)(void);     /* a context without hook or callback */
  int32_t (*run_plain)(void);
  int32_t (*plain_failed_op)(void);
  int32_t (*init_mismatch)(void);  /* a context of another plan hash */
  int32_t (*run_uninitialised)(void);
  void *(*io)(int output, uint32_t i, size_t *size);
  void *(*tensor_data)(uint32_t id);
  int32_t (*tensor_desc)(uint32_t id, uint32_t *region, uint32_t *offset, uint32_t *size);
  void *(*region_base)(uint32_t r);
  int32_t (*bind)(uint32_t r, void *buf, size_t size);
  int32_t (*bind_pair)(uint32_t r1, void *b1, size_t s1, uint32_t r2, void *b2, size_t s2);
  uint8_t *(*guarded)(uint32_t r, uint32_t *guard); /* bound: buffer incl. guards */
};

/* Called by the glue: the kernel hook (phase 0 init, 1 run) and the op
 * callback (started 1 / finished 0).  Return 0 or a failure code. */
int32_t probe_kernel(const probe_module *m, uint32_t op, int phase);
void probe_event(const probe_module *m, uint32_t op, int started);
/* Called by a strong <p>_hydrate_constants before it copies; `ready` says
 * whether context_init visibly ran (inputs pointed at their slots). */
void probe_hydrate(const probe_module *m, int ready);

/* Run the whole proof of one module; 0 when it holds.  Prints one line
 * ("PASS name ..." / "FAIL name: ...") through probe_print. */
int probe_module_run(const probe_module *m);

/* Provided by the program (host: stdout; target: semihosting). */
void probe_print(const char *line);

/* Where the harness's own buffers for caller-bound regions go: nowhere in
 * particular on the host; the memory's section on the target (the glue's
 * target_place.h defines them). */
#ifndef PROBE_IN_DTCM
#define PROBE_IN_DTCM
#endif
#ifndef PROBE_IN_SRAM
#define PROBE_IN_SRAM
#endif

/* The guard byte and how many surround a harness-bound region. */
#define PROBE_GUARD_BYTE 0xA5u
#define PROBE_GUARD 64u

#endif /* PROBE_H */
