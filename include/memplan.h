/*
 * memplan.h — the public API of libmemplan.
 *
 * memplan is an ahead-of-time memory planner for TinyML models.  The library
 * is a pipeline of stages, each usable on its own:
 *
 *   mp_model_load      read a .tflite file (bounds-checked flatbuffer reader)
 *   mp_graph_build     roles, byte sizes, lifetimes and view aliases
 *   mp_config_*        the YAML/CLI configuration and built-in platforms
 *   mp_plan_build      place every tensor in an arena of a memory bank
 *   mp_plan_verify     an independent check of a plan
 *   mp_emit_module     the C module, mp_residency_write the JSON report
 *
 * Conventions:
 *   - Every fallible function returns mp_status; MP_OK is 0.
 *   - Details of a failure (which tensor, which byte offset, which key and
 *     line) go to the diagnostics sink given by the caller, never to stderr.
 *     A NULL sink discards them.
 *   - Objects returned through `T **out` are owned by the caller and freed
 *     with the matching mp_x_free(T **), which sets the pointer to NULL.
 *   - Sizes and offsets are uint64_t/uint32_t, never int.
 */
#ifndef MEMPLAN_H
#define MEMPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MP_VERSION "0.1.0"

/* ------------------------------------------------------------------------ */
/* Status and diagnostics                                                   */
/* ------------------------------------------------------------------------ */

typedef enum mp_status {
  MP_OK = 0,              /* success */
  MP_ERR_NOMEM = 1,       /* an allocation failed */
  MP_ERR_IO = 2,          /* a file could not be read or written */
  MP_ERR_MODEL = 3,       /* the model file is malformed, truncated or hostile */
  MP_ERR_CONFIG = 4,      /* a config value or command-line argument is invalid */
  MP_ERR_UNSUPPORTED = 5, /* valid input memplan cannot handle (dynamic shapes,
                             unsupported operators, ...) */
  MP_ERR_NOFIT = 6,       /* the tensors do not fit the memory budgets */
  MP_ERR_VERIFY = 7,      /* the verifier rejected a plan: a memplan bug */
  MP_ERR_INTERNAL = 8,    /* an invariant of the library broke: a memplan bug */
} mp_status;

/* A short English name of a status ("model error", ...). Never NULL. */
const char *mp_status_str(mp_status st);

/* `s` as a terminal may show it: control characters (C0 but tab, DEL, C1), bytes
 * that are not UTF-8, and the characters that reorder or hide text (the
 * bidirectional controls, zero-width marks) written as \xNN or \u{NNNN};
 * everything else, and any valid UTF-8 letter, as it is.  Model names,
 * config values and paths are printed through it.  A malloc'd string the
 * caller frees; NULL only when out of memory ("" for a NULL s). */
char *mp_printable(const char *s);

typedef enum mp_severity {
  MP_SEV_NOTE = 0,
  MP_SEV_WARNING = 1,
  MP_SEV_ERROR = 2,
} mp_severity;

/* One diagnostic.  Every pointer is valid only during the callback. */
typedef struct mp_diag {
  mp_severity severity;
  const char *file;        /* file the diagnostic is about, or NULL */
  uint32_t line;           /* 1-based line in `file`, 0 if unknown */
  uint32_t column;         /* 1-based column, 0 if unknown */
  int64_t byte_offset;     /* byte offset in `file`, -1 if unknown */
  const char *key_path;    /* config key path ("memory.planner"), or NULL */
  const char *source_line; /* text of the offending line (for a caret), or NULL */
  const char *message;     /* the message itself, never NULL */
} mp_diag;

typedef void (*mp_diag_fn)(void *user, const mp_diag *d);

typedef struct mp_diag_sink {
  mp_diag_fn fn;
  void *user;
} mp_diag_sink;

/* Where a long planner run stands, reported to an mp_progress_sink.  Every
 * pointer is valid only during the callback. */
typedef struct mp_progress {
  const char *planner;    /* the planner the caller ran ("exact") */
  double elapsed_s;       /* wall-clock seconds since it started */
  uint64_t best_height;   /* the lowest height found so far; 0 before the first layout */
  uint64_t proven_lower;  /* no layout is lower: the lower bound, or what a search proved */
  uint64_t moves;         /* local-search moves made so far (hill_climb) */
  uint64_t nodes;         /* exact-search nodes visited so far */
  bool done;              /* the run's last report (sent only after an earlier one) */
} mp_progress;

typedef void (*mp_progress_fn)(void *user, const mp_progress *p);

/* A progress callback.  The planners that can run long (hill_climb, exact)
 * call it about every interval_ms milliseconds of wall clock (0: 1000)
 * while they work, then once with `done` set; short runs never call it.
 * The library itself never prints. */
typedef struct mp_progress_sink {
  mp_progress_fn fn;
  void *user;
  uint32_t interval_ms;
} mp_progress_sink;

/* ------------------------------------------------------------------------ */
/* Model: a read-only view of a LiteRT / TensorFlow Lite flatbuffer         */
/* ------------------------------------------------------------------------ */

/* TensorType of the LiteRT schema; the values are the schema's. */
typedef enum mp_dtype {
  MP_DTYPE_FLOAT32 = 0,
  MP_DTYPE_FLOAT16 = 1,
  MP_DTYPE_INT32 = 2,
  MP_DTYPE_UINT8 = 3,
  MP_DTYPE_INT64 = 4,
  MP_DTYPE_STRING = 5,
  MP_DTYPE_BOOL = 6,
  MP_DTYPE_INT16 = 7,
  MP_DTYPE_COMPLEX64 = 8,
  MP_DTYPE_INT8 = 9,
  MP_DTYPE_FLOAT64 = 10,
  MP_DTYPE_COMPLEX128 = 11,
  MP_DTYPE_UINT64 = 12,
  MP_DTYPE_RESOURCE = 13,
  MP_DTYPE_VARIANT = 14,
  MP_DTYPE_UINT32 = 15,
  MP_DTYPE_UINT16 = 16,
  MP_DTYPE_INT4 = 17,
  MP_DTYPE_BFLOAT16 = 18,
  MP_DTYPE_COUNT = 19
} mp_dtype;

/* Lower-case schema name of a dtype ("int8"), or "unknown". */
const char *mp_dtype_name(int32_t dtype);
/* Bits per element (4 for int4), 0 for types without a fixed size. */
uint32_t mp_dtype_bits(int32_t dtype);
/* Natural alignment in bytes of one element (1 for int4/bool/int8). */
uint32_t mp_dtype_align(int32_t dtype);

/* Name of a BuiltinOperator code ("CONV_2D"); "UNKNOWN" when out of range. */
const char *mp_builtin_name(int32_t code);
/* Number of entries of the builtin name table (highest code + 1). */
int32_t mp_builtin_count(void);

typedef struct mp_quant {
  uint32_t n_scale;
  const float *scale;
  uint32_t n_zero_point;
  const int64_t *zero_point;
  int32_t quantized_dimension;
} mp_quant;

typedef struct mp_tensor_def {
  uint32_t index;
  const char *name;      /* never NULL ("" when the model has none) */
  int32_t dtype;         /* mp_dtype */
  uint32_t rank;
  const int32_t *shape;  /* rank entries */
  bool has_shape_signature;
  const int32_t *shape_signature; /* rank entries when present; -1 = dynamic */
  uint32_t buffer;       /* index into mp_model.buffers (0 = none) */
  bool is_variable;
  bool has_quant;
  mp_quant quant;
  bool is_sparse;        /* has SparsityParameters */
  uint32_t pos;          /* file offset of its Tensor table, for diagnostics */
} mp_tensor_def;

typedef struct mp_op_def {
  uint32_t index;
  uint32_t opcode_index;
  int32_t builtin_code;      /* resolved code (max of the two schema fields) */
  const char *custom_code;   /* for CUSTOM ops, else NULL */
  uint32_t n_inputs;
  const int32_t *inputs;     /* tensor indices, -1 = optional input absent */
  uint32_t n_outputs;
  const int32_t *outputs;
  uint32_t n_intermediates;
  const int32_t *intermediates;
  uint8_t builtin_options_type; /* BuiltinOptions union type, 0 = none */
  uint32_t builtin_options_pos; /* file offset of the options table, 0 = none */
  uint8_t builtin_options_2_type;
  uint32_t builtin_options_2_pos;
  uint32_t custom_options_size;
  const uint8_t *custom_options;
} mp_op_def;

typedef struct mp_subgraph_def {
  const char *name;
  uint32_t n_tensors;
  const mp_tensor_def *tensors;
  uint32_t n_ops;
  const mp_op_def *ops;
  uint32_t n_inputs;
  const int32_t *inputs;
  uint32_t n_outputs;
  const int32_t *outputs;
} mp_subgraph_def;

typedef struct mp_opcode_def {
  int8_t deprecated_builtin_code;
  int32_t builtin_code;      /* the schema field as stored */
  int32_t resolved_code;     /* max(deprecated, builtin_code) */
  const char *custom_code;   /* or NULL */
  int32_t version;
} mp_opcode_def;

typedef struct mp_buffer_def {
  const uint8_t *data;   /* points into mp_model.bytes; NULL when empty */
  uint64_t size;         /* bytes */
  bool external;         /* data given by offset/size outside the flatbuffer */
  uint64_t file_offset;  /* offset of the data in the file (0 when empty) */
} mp_buffer_def;

typedef struct mp_metadata_def {
  const char *name;
  uint32_t buffer;
} mp_metadata_def;

typedef struct mp_model {
  const uint8_t *bytes;  /* the whole file, owned by the model */
  size_t size;
  const char *path;      /* as given to mp_model_load, or the parse name */
  uint32_t version;
  const char *description;
  uint32_t n_opcodes;
  const mp_opcode_def *opcodes;
  uint32_t n_subgraphs;
  const mp_subgraph_def *subgraphs;
  uint32_t n_buffers;
  const mp_buffer_def *buffers;
  uint32_t n_metadata;
  const mp_metadata_def *metadata;
  struct mp_pool *pool;  /* owns everything above */
} mp_model;

/* The largest model file memplan reads (4 GiB - 1 bytes: the flatbuffer's
 * offsets are 32 bits); mp_model_load needs that much memory once. */
#define MP_MODEL_MAX_BYTES UINT64_C(0xFFFFFFFF)

/* Read and validate a .tflite file.  Every offset, length, vtable and index
 * is checked; a malformed file yields MP_ERR_MODEL with a diagnostic naming
 * the byte offset.  On success *out owns a copy of the file. */
mp_status mp_model_load(const char *path, const mp_diag_sink *dx, mp_model **out);

/* The same from memory; `bytes` is copied.  `name` labels diagnostics. */
mp_status mp_model_parse(const uint8_t *bytes, size_t size, const char *name,
                         const mp_diag_sink *dx, mp_model **out);

void mp_model_free(mp_model **m);

/* The model's file name: the last component of its path ("kws.tflite").
 * Reports and emitted files record this, never the path as given, so that
 * their bytes do not depend on the working directory or the machine. */
const char *mp_model_file_name(const mp_model *m);

/* ------------------------------------------------------------------------ */
/* Graph: roles, sizes, lifetimes and aliases of one subgraph               */
/* ------------------------------------------------------------------------ */

/* ArenaRole of the seeds. */
typedef enum mp_role {
  MP_ROLE_SCRATCH = 0,    /* activations; slots reused by liveness */
  MP_ROLE_PERSISTENT = 1, /* variable/state tensors; live for the whole program */
  MP_ROLE_CONSTANT = 2,   /* read-only weights; cold or staged */
  MP_ROLE_COUNT = 3
} mp_role;

const char *mp_role_name(mp_role r); /* "scratch", "persistent", "constant" */

/* TensorLifetime of the seeds: inclusive operator interval. */
typedef struct mp_lifetime {
  uint32_t tensor_id;
  int32_t start_op; /* -1 when the tensor is never live */
  int32_t end_op;
} mp_lifetime;

/* TensorLifetime.add_op: widen the interval to include `op`. */
void mp_lifetime_add_op(mp_lifetime *lt, int32_t op);
/* TensorLifetime.merge: widen the interval to cover `other` as well. */
void mp_lifetime_merge(mp_lifetime *lt, const mp_lifetime *other);
/* True when both intervals are live and share an operator. */
bool mp_lifetime_overlaps(const mp_lifetime *a, const mp_lifetime *b);

typedef struct mp_tensor {
  uint32_t id;            /* tensor index; ids >= model tensors are op-local
                             scratch buffers added by kernels */
  const char *name;
  int32_t dtype;
  uint32_t rank;
  const int32_t *shape;
  uint64_t size;          /* bytes, unaligned */
  mp_role role;
  bool used;              /* read or written by an op, or a subgraph I/O */
  bool is_input;          /* a subgraph input */
  bool is_output;         /* a subgraph output */
  int32_t producer;       /* op that writes it, -1 if none */
  int32_t alias_of;       /* root tensor whose storage this view shares, or -1 */
  uint64_t alias_offset;  /* a view's first byte within its root's storage
                             (0 for a whole-tensor view) */
  uint64_t alias_row;     /* a strided view (an input of a CONCATENATION
                             along an inner axis, elided): its bytes are
                             rows of alias_row bytes, alias_stride bytes
                             apart in its root, the first at alias_offset;
                             both 0 for a view that is one run of bytes */
  uint64_t alias_stride;
  bool has_subviews;      /* a root some view of which starts past its first
                             byte or ends before its last (mp_graph_options
                             .sub_views): it takes part in no in-place overlap */
  uint32_t align_hint;    /* kernel alignment requirement in bytes, 0 = none */
  mp_lifetime lifetime;   /* own lifetime, before alias merging */
  const uint8_t *data;    /* constant bytes (into the model), else NULL */
  int32_t local_op;       /* op-local scratch or state (role persistent):
                             the op that owns it, else -1 */
  /* Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE): on a
   * handle (a VAR_HANDLE's output), the tensor that holds its variable's
   * value, else -1.  That tensor is the variable's first handle in the
   * subgraph: a persistent tensor with the dtype and shape of the value
   * that first assigns it (its size 0, and role scratch, when nothing
   * assigns it); every other handle of the variable has size 0. */
  int32_t variable;
  /* A variable's start value, set again by every reset: state_init (size
   * bytes, into the model: the constant its CALL_ONCE init subgraph
   * assigns), else every byte state_init_byte (TFLM's default: the
   * assigned value's zero point). */
  const uint8_t *state_init;
  uint8_t state_init_byte;
} mp_tensor;

typedef struct mp_op {
  uint32_t index;         /* position in execution order (g->ops[index]) */
  uint32_t model_index;   /* the operator's index in the model: index, unless
                             the graph was built in another order
                             (mp_graph_options.order) */
  int32_t builtin_code;
  const char *name;       /* builtin name, or the custom code */
  uint32_t n_inputs;
  const int32_t *inputs;
  uint32_t n_outputs;
  const int32_t *outputs;
  uint32_t n_intermediates;
  const int32_t *intermediates;
  bool is_view;           /* a no-op at run time: a view op whose output
                             aliases its input, or a folded PAD */
  bool const_folded;      /* computed at convert time (its inputs are all
                             constant, or it is a SHAPE): its outputs are
                             constants, it reads nothing and runs nothing
                             (fold.c) */
  const char *refusal;    /* why the graph cannot run this operator as the
                             model has it (a CALL_ONCE whose init subgraph
                             computes), else NULL; the lowering reports it */
  const mp_op_def *def;   /* the model's operator */
  /* PAD folding (mp_graph_options.fold_pads): a PAD whose output only one
   * CONV_2D / DEPTHWISE_CONV_2D / MAX_POOL_2D reads becomes that operator's
   * implicit padding.  On the PAD: folded_into is the reader (else -1); the
   * PAD touches no tensor and runs nothing.  On the reader: folded_pad is
   * the PAD (else -1), inputs[0] is the PAD's input and fold_pad holds the
   * rows and columns it added: top, bottom, left, right. */
  int32_t folded_into;
  int32_t folded_pad;
  int32_t fold_pad[4];
  /* A DEPTHWISE_CONV_2D run channel by channel, with a one-channel
   * temporary, so that its output may lie exactly on its input
   * (mp_graph_options.serial_depthwise; set by mp_kernels_prepare where it
   * lowers the in-place bound) */
  bool channel_serial;
  /* memory.patch: this operator runs a patched stage tile by tile
   * (graph/patch.h, g->patch); its outputs are the stage's output, and the
   * stage's other operators are no-ops folded into it (folded_into) */
  bool patch_head;
} mp_op;

/* The core an emitted module is built for (module.target).  It picks the
 * kernel variant of each operator at convert time: on `generic` every
 * operator runs memplan's reference kernels; on a Cortex-M target the int8
 * convolutions, fully connected layers and unbroadcast ADDs run
 * specialised kernels whose
 * inner loops use Helium (MVE, Cortex-M55) or the DSP extension (Cortex-M4,
 * M7, M33) when the compiler predefines __ARM_FEATURE_MVE /
 * __ARM_FEATURE_DSP, and portable C otherwise, so one module still compiles
 * everywhere and gives the same bytes on every core. */
typedef enum mp_target {
  MP_TARGET_GENERIC = 0,
  MP_TARGET_CORTEX_M4,
  MP_TARGET_CORTEX_M7,
  MP_TARGET_CORTEX_M33,
  MP_TARGET_CORTEX_M55,
  MP_TARGET_COUNT
} mp_target;

/* The config name of a target ("cortex-m55"); "generic" for an unknown value. */
const char *mp_target_name(mp_target t);
/* The target called `name` (exact, lower case); false when there is none. */
bool mp_target_find(const char *name, mp_target *out);

/* An overlap an operator's kernel allows (memory.in_place): while `op` runs,
 * its output tensor `output` may share bytes with its input tensor `input`
 * when, in one arena, offset(input) - offset(output) >= min_gap bytes (a
 * negative gap lets the output start above the input) and is a multiple of
 * `period` bytes (1 for most kernels; a pixel's channels for a depthwise
 * convolution run channel by channel).  Tensor ids are the operator's own;
 * either may be a view alias. */
typedef struct mp_overlap {
  uint32_t op;
  uint32_t input;
  uint32_t output;
  int64_t min_gap;
  int64_t period;
} mp_overlap;

/* What the operator-order search found (memory.op_order: min_peak, see
 * mp_order_search).  Bounds are the tensor-level bound (with in_place, the
 * in-place bound) at the search's alignment. */
typedef struct mp_order_result {
  bool searched;          /* the search ran (memory.op_order min_peak) */
  bool in_place;          /* the bounds are in-place bounds */
  bool exact;             /* every topological order was covered: no order
                             has a lower bound than `bound` (in place: no
                             order has a lower largest step) */
  uint64_t model_bound;   /* the bound in the model's order */
  uint64_t bound;         /* the bound in the order chosen (<= model_bound;
                             equal when the model's order was kept) */
  uint32_t moved;         /* operators not at their model position */
  uint64_t states;        /* search steps tried */
  /* The order found had a lower bound, but the planner placed it in no
   * less scratch than the model's order, which was kept (set by the CLI):
   * that bound and both plans' scratch bytes. */
  bool planner_kept_model;
  uint64_t found_bound, found_scratch, model_scratch;
} mp_order_result;

typedef struct mp_graph_options {
  bool alias_views;       /* alias view outputs to their inputs (default true) */
  bool fold_pads;         /* fold each PAD that feeds only a convolution or
                             a max pool into its implicit padding (default false; on with
                             memory.in_place, see mp_graph_fold_pads) */
  const uint32_t *order;  /* the execution order, n_ops entries: order[p] is
                             the model index of the operator run at position
                             p (a topological order, see mp_order_search);
                             NULL runs the model's order */
  bool sub_views;         /* SPLIT, SPLIT_V, UNPACK, SLICE and STRIDED_SLICE
                             outputs that are one contiguous run of their
                             input become views of it at an offset, and
                             CONCATENATION / PACK inputs views of the output
                             their producers then write into (default false;
                             on with memory.in_place, see mp_graph_views) */
  bool caller_io;         /* memory.io caller: no graph input or output
                             becomes part of a sub-tensor view */
  bool serial_depthwise;  /* mp_kernels_prepare runs a DEPTHWISE_CONV_2D
                             channel by channel where that lowers the
                             in-place bound (mp_op.channel_serial; default
                             false; on with memory.in_place size) */
  bool fast_kernels;      /* memory.in_place speed for a Cortex-M target
                             (module.target): no rewrite that would cost an
                             operator its specialised kernel there: no 16x8
                             convolution writes a strided slice of an
                             elided CONCATENATION (its specialised kernel
                             needs packed output); default false */
} mp_graph_options;

typedef struct mp_graph {
  const mp_model *model;
  uint32_t subgraph;
  uint32_t n_model_tensors; /* tensors of the model; op-local ones follow */
  uint32_t n_tensors;
  mp_tensor *tensors;
  uint32_t n_ops;
  mp_op *ops;
  uint32_t n_inputs;
  const int32_t *inputs;
  uint32_t n_outputs;
  const int32_t *outputs;
  /* Storage lifetime per tensor: for an alias root, merged over every
   * tensor that aliases it; for an alias, a copy of its root's. */
  mp_lifetime *storage;
  /* The core the kernels are chosen for; mp_graph_build sets generic.  Set
   * it before mp_kernels_prepare: the lowering reads it. */
  mp_target target;
  /* The kernels' overlap contracts, one per (op, input, output), in op
   * order; filled by mp_kernels_prepare (none before it). */
  uint32_t n_overlaps;
  mp_overlap *overlaps;
  /* PADs folded into their convolutions or max pools (fold_pads) */
  uint32_t n_folded_pads;
  /* mp_graph_options.serial_depthwise, how many depthwise convolutions
   * mp_kernels_prepare chose to run channel by channel, and the in-place
   * bound (16-byte alignment) before and after that choice */
  bool serial_depthwise;
  bool fast_kernels;        /* mp_graph_options.fast_kernels (the views
                               read it) */
  uint32_t n_serial_ops;
  uint64_t serial_bound_before, serial_bound;
  /* Built in an order other than the model's (mp_graph_options.order); the
   * search's figures when the CLI chose it (memory.op_order min_peak) */
  bool reordered;
  mp_order_result order;
  /* Sub-tensor views (mp_graph_options.sub_views): operators whose outputs
   * became views of their input (SPLIT, SLICE, ...), and CONCATENATION /
   * PACK operators elided, their inputs views of their output; and
   * CONCATENATIONs partly elided: some inputs strided views of the output
   * their producers write into, the others copied by the running kernel. */
  uint32_t n_view_ops;
  uint32_t n_elided_concats;
  /* Operators computed at convert time (mp_op.const_folded), and the
   * constant bytes their outputs hold */
  uint32_t n_const_folded;
  uint64_t const_folded_bytes;
  uint32_t n_partial_concats;
  /* memory.patch: the stage run tile by tile (graph/patch.h), else NULL */
  struct mp_patch *patch;
  struct mp_pool *pool;
} mp_graph;

/* Analyse subgraph `subgraph` of `model` (which must outlive the graph).
 * `opt` may be NULL for the defaults.  Fails with MP_ERR_MODEL on an
 * inconsistent graph (a tensor written twice, an index out of range) and
 * MP_ERR_UNSUPPORTED on a dynamic shape of a tensor that needs storage. */
mp_status mp_graph_build(const mp_model *model, uint32_t subgraph,
                         const mp_graph_options *opt, const mp_diag_sink *dx,
                         mp_graph **out);

/* Make operators first .. last of g (execution order) a patched stage run
 * on rows x cols tiles of its output: checks that they form one (each a
 * CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D or unbroadcast
 * ADD of int8, int16 or float32 with batch 1, or a PAD folded into one;
 * every activation the stage reads is its first layer's input or an
 * earlier layer's output; only the last layer's output is read after the
 * stage or is a graph output; no view of a stage tensor), then rewrites g:
 * the first layer's operator runs the whole stage and writes the stage's
 * output, the others become no-ops, the intermediate feature maps need no
 * storage, their op-local scratch and overlap contracts go, and one
 * op-local scratch holds the tile buffers.  Call it on a graph after
 * mp_kernels_prepare and any reordering; called again, it adds a stage
 * after the last one (g->patch lists them in order, each run by its own
 * first layer's operator).  An operator range that is no stage, or that
 * does not start after the last stage ends, is MP_ERR_CONFIG with a
 * diagnostic naming the operator and why.  g->patch owns what it
 * allocates (g's pool). */
mp_status mp_graph_patch(mp_graph *g, uint32_t first, uint32_t last, uint32_t rows,
                         uint32_t cols, const mp_diag_sink *dx);

/* Candidate stages for memory.patch auto: the operator ranges [first, *]
 * from operator `first` whose last operator lowers the feature map, each
 * ending at a convolution or pool; *lasts (malloc'd) lists their last
 * operators in order. */
/* Record, beside g's patched stage, the unpatched graph's plan (scratch
 * bytes) and bounds, whether memory.patch auto chose the stage and how many
 * stages and grids it tried: the reports give them.  No-op without a stage. */
void mp_graph_patch_baseline(mp_graph *g, uint64_t scratch, uint64_t tensor_bound,
                             uint64_t inplace_bound, bool automatic, uint32_t tried);

/* What g's first patched stage is, for tools (g->patch's figures): false
 * when g has none. */
typedef struct mp_patch_info {
  uint32_t first, last, head;   /* the stage's operators; head runs it */
  uint32_t rows, cols;          /* its tile grid */
  int32_t input, output;        /* its input and output tensors */
  int32_t halo_rows, halo_cols; /* most input rows / columns a tile reads beyond its share */
  uint64_t tile_bytes;          /* the tile buffers (op-local scratch) */
  uint64_t macs, macs_patched, model_macs; /* the stage's, whole and tiled; the model's */
  uint64_t extra_macs_bp;       /* the halos' recomputation, 1/100 % of the model's */
  bool automatic;               /* memory.patch auto chose it */
  uint64_t base_scratch;        /* the unpatched plan's scratch (0: not known) */
  uint32_t stages;              /* the graph's stages, this first one included */
} mp_patch_info;
bool mp_graph_patch_info(const mp_graph *g, mp_patch_info *out);

mp_status mp_patch_candidates(const mp_graph *g, uint32_t first, uint32_t **lasts, size_t *n);

/* Add an op-local scratch buffer of `size` bytes, live over [op, op], for a
 * kernel that needs working memory.  Returns the new tensor id in *id. */
mp_status mp_graph_add_local(mp_graph *g, uint32_t op, uint64_t size,
                             uint32_t align, const char *name, uint32_t *id);

/* Add an operator's own persistent state of `size` bytes (a noise
 * estimate kept between runs): a tensor of role persistent, local to op,
 * planned in a persistent arena and zeroed by context_init and
 * reset_state.  Returns the new tensor id in *id. */
mp_status mp_graph_add_state(mp_graph *g, uint32_t op, uint64_t size,
                             uint32_t align, const char *name, uint32_t *id);

/* Ready a graph for memplan's kernels before planning: lower every operator
 * and add the op-local scratch buffers their kernels need (an im2col or
 * accumulator buffer, live over [op, op]) with mp_graph_add_local, so the
 * planner places them and the lower bound counts them, and record the
 * kernels' overlap contracts in g->overlaps.  Operators no kernel
 * takes are reported all at once (name, index, the tensors they read and
 * write) and yield MP_ERR_UNSUPPORTED; with allow_unsupported they are
 * warnings and the emitted module returns its unsupported-operator status
 * at those operators. */
mp_status mp_kernels_prepare(mp_graph *g, bool allow_unsupported, const mp_diag_sink *dx);

/* Record the kernels' overlap contracts in g->overlaps (what
 * mp_kernels_prepare also does), without adding op-local scratch other than
 * the temporaries of the depthwise convolutions it then chooses to run
 * channel by channel (mp_graph_options.serial_depthwise): for reports of
 * the in-place bound.  Operators without a kernel have none.
 * Fails only with MP_ERR_NOMEM. */
mp_status mp_kernels_overlaps(mp_graph *g);

/* True when tensor t needs a scratch slot of its own (scratch role, used,
 * not an alias, and live). */
bool mp_graph_needs_slot(const mp_graph *g, uint32_t t);

/* The scratch slots of `g` as a single-arena planning problem: one item per
 * tensor for which mp_graph_needs_slot holds, sized to a multiple of, and
 * aligned to, max(alignment, the tensor's align_hint), live over its storage
 * lifetime, with the tensor id as item id.  `items` must hold g->n_tensors
 * entries; returns how many were written.  (The plan driver builds the same
 * items per memory bank; benchmarks and tests use this.) */
struct mp_item;
size_t mp_graph_scratch_items(const mp_graph *g, uint32_t alignment, struct mp_item *items);

/* Scratch lower bound: the largest, over operators, sum of the sizes
 * (rounded up to `alignment`) of the scratch slots live at that operator. */
uint64_t mp_graph_lower_bound(const mp_graph *g, uint32_t alignment);

/* What g's folded PADs were folded into, for a sentence "N PADs folded
 * into ...": "its convolution", "their convolutions", "its max pool",
 * "their max pools" or "their convolutions and max pools". */
const char *mp_folded_pad_readers(const mp_graph *g);

/* The in-place bound: the larger of mp_graph_lower_bound less, at each
 * operator, the most bytes the kernels' overlap contracts (g->overlaps) let
 * its outputs share with the inputs it reads for the last time, and the
 * bound of the chains of such overlaps (a contract with a positive gap puts
 * the output below its input, so a chain of them walks down the arena; a
 * plan breaks a chain only by putting an output wholly above its input,
 * at that operator's full live sum).  No plan that honours the
 * contracts is below it; equal to mp_graph_lower_bound when no contract
 * applies (or before mp_kernels_prepare). */
uint64_t mp_graph_inplace_bound(const mp_graph *g, uint32_t alignment);

/* The largest live sum over operators op0 .. op1, each less (with
 * in_place) the most its overlap contracts let its outputs share with its
 * inputs: the per-operator part of mp_graph_inplace_bound (or of
 * mp_graph_lower_bound) over a span, without the chains' bound; what
 * memory.patch auto compares stages by. */
uint64_t mp_graph_peak_between(const mp_graph *g, uint32_t alignment, bool in_place, uint32_t op0,
                               uint32_t op1);

/* Operators whose order is fixed (memory.op_order): those with side effects
 * or state (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE, control
 * flow, random numbers, hash tables, custom operators) and every operator
 * that reads or writes a persistent tensor (SVDF and LSTM state).  Any
 * order the search gives keeps them in their model order. */
bool mp_op_is_barrier(const mp_graph *g, uint32_t op);

/* memory.op_order: min_peak.  Search the topological orders of g's
 * operators (data dependences of the model's operators, PADs unfolded, and
 * the barriers above in their order) for one whose bound (the tensor-level
 * bound; with in_place the kernels' overlap contracts lower each step as
 * in mp_graph_inplace_bound) is lowest.  With in_place the search ranks
 * orders by their steps, and an order is kept only when its whole in-place
 * bound (mp_graph_inplace_bound's, chains included) is lower too; r's
 * bounds are those whole bounds.  Dynamic programming over the sets
 * of executed operators, merged per set; when a level holds more states
 * than its share of the budget allows, only the best states are kept (a
 * beam), and r->exact is false.  `budget` bounds the steps tried, a state
 * and an operator run after it (0: the default, 2^20), so the result does
 * not depend on the clock.  Writes the execution order, as
 * model indices, to order[0..n_ops): g's own order unless another is
 * strictly better, so never worse than it.  g must be built in the model's
 * order and prepared (mp_kernels_prepare: op-local scratch and overlap
 * contracts count). */
mp_status mp_order_search(const mp_graph *g, uint32_t alignment, bool in_place, uint64_t budget,
                          uint32_t *order, mp_order_result *r);

/* Check, independently of the search, that g's execution order is a
 * topological order of the model's data dependences that keeps the
 * barriers (mp_op_is_barrier) in model order.  False with a message in
 * why[0..n) naming the operators when it is not. */
bool mp_order_check(const mp_graph *g, char *why, size_t n);

/* The affine quantisation of a tensor as an application sees it at the
 * graph's edge: real = scale * (q - zero_point).  `quantised` holds only for
 * per-tensor parameters (one scale, at most one zero point) with a finite
 * scale above zero and a zero point that fits int32_t; otherwise (a float
 * tensor, per-channel parameters) scale and zero_point are 0. */
typedef struct mp_io_quant {
  bool quantised;
  float scale;
  int32_t zero_point;
} mp_io_quant;

mp_io_quant mp_graph_tensor_quant(const mp_graph *g, uint32_t t);

void mp_graph_free(mp_graph **g);

/* ------------------------------------------------------------------------ */
/* Memories and platforms                                                   */
/* ------------------------------------------------------------------------ */

/* A memory of a platform: an index into its memory table.  The seeds'
 * MemoryType names keep fixed indices on every platform, present or not
 * (dtcm, itcm, mram, psram, sram, in name order); a platform's other
 * memories (axi_sram, flash, ocram, ...) follow from MP_MEM_FIRST_NAMED. */
typedef enum mp_memory {
  MP_MEM_DTCM = 0,
  MP_MEM_ITCM = 1,
  MP_MEM_MRAM = 2,
  MP_MEM_PSRAM = 3,
  MP_MEM_SRAM = 4,
  MP_MEM_FIRST_NAMED = 5,
  MP_MEM_COUNT = 16 /* most memories a platform has */
} mp_memory;

#define MP_MEMORY_NAME_MAX 32 /* bytes of a memory name, NUL included */

typedef struct mp_platform {
  char name[64];
  uint32_t n_memories;             /* table entries in use, >= MP_MEM_FIRST_NAMED */
  char memory_name[MP_MEM_COUNT][MP_MEMORY_NAME_MAX]; /* lower-case C identifiers */
  bool present[MP_MEM_COUNT];
  uint64_t size[MP_MEM_COUNT];     /* bytes */
  bool read_only[MP_MEM_COUNT];    /* non-volatile storage: cold constants only */
  uint32_t alignment[MP_MEM_COUNT]; /* arena base alignment it needs, 0 = none */
  uint32_t min_alignment;          /* bytes, power of two */
  uint32_t n_order;
  mp_memory order[MP_MEM_COUNT];   /* preferred_memory_order */
} mp_platform;

/* Start an empty platform called `name`: the seed memories in their slots,
 * all absent (mram read-only), min_alignment 16, no order.  A platform built
 * in code starts here; a zeroed struct is not a valid platform. */
void mp_platform_init(mp_platform *pf, const char *name);
/* The name of memory m of `pf` ("dtcm", "axi_sram"); "?" when out of range. */
const char *mp_platform_memory_name(const mp_platform *pf, mp_memory m);
/* Find a memory by name, case-insensitively, among the platform's table
 * (the five seed names always resolve, present or not). */
bool mp_platform_find_memory(const mp_platform *pf, const char *name, mp_memory *out);
/* True when m is present on pf and writable (not read-only). */
bool mp_platform_writable(const mp_platform *pf, mp_memory m);
/* The present memories of pf in name order (region ids follow it); returns
 * how many were written to out (MP_MEM_COUNT entries). */
uint32_t mp_platform_by_name(const mp_platform *pf, mp_memory *out);
/* Add (or find) memory `name` on pf: a C identifier of fewer than
 * MP_MEMORY_NAME_MAX characters, stored in lower case.  New memories start
 * absent, writable and unaligned.  False when the name is no identifier or
 * the table is full. */
bool mp_platform_add_memory(mp_platform *pf, const char *name, mp_memory *out);

/* Look up a built-in platform by name; false when there is none. */
bool mp_platform_builtin(const char *name, mp_platform *out);
/* Names of the built-in platforms, NULL-terminated. */
const char *const *mp_platform_builtin_names(void);
#define MP_DEFAULT_PLATFORM "apollo510_evb"

/* ------------------------------------------------------------------------ */
/* Configuration (the memory section is the seeds' MemoryArgs)              */
/* ------------------------------------------------------------------------ */

/* MemoryConstraint of the seeds. */
typedef struct mp_constraint {
  mp_memory name;
  bool has_max_size;
  uint64_t max_size;        /* defaults to the platform's memory size */
  uint32_t arena_alignment; /* 0 = not set */
} mp_constraint;

/* TensorAttributes of the seeds; the has_ flags say which fields a rule set. */
typedef struct mp_attributes {
  bool has_memory;
  mp_memory memory;
  bool has_constant_destination_memory;
  mp_memory constant_destination_memory;
} mp_attributes;

#define MP_RULE_ANY_TYPE (-1)

/* AttributeRuleset: `type` is an mp_role or MP_RULE_ANY_TYPE ("*");
 * `ids` NULL means every tensor. */
typedef struct mp_rule {
  int32_t type;
  uint32_t n_ids;
  char **ids;               /* tensor index as text, or tensor name */
  mp_attributes attributes;
  char *where;              /* "file:line:col" or "--memory.tensors[2]" */
  /* Where the ruleset was written, for diagnostics; NULL / 0 when unknown
   * (rules built in code). */
  const char *key_path;     /* "memory.tensors[2]" */
  const char *file;         /* the config file, NULL for the command line */
  uint32_t line, column;    /* of the ruleset */
  const char *source_line;  /* text of that line */
  uint32_t *id_line;        /* per id (n_ids entries), or NULL */
  uint32_t *id_column;
  const char **id_source_line;
} mp_rule;

/* memory.op_order: the order the operators run in.  model: the model's;
 * min_peak: the topological order with the lowest bound (mp_order_search). */
typedef enum mp_op_order { MP_OP_ORDER_MODEL = 0, MP_OP_ORDER_MIN_PEAK } mp_op_order;

/* memory.patch: run a stage of the network tile by tile (patch.c).  off:
 * never; auto: the stage and tile grid with the smallest plan, kept only
 * when it plans smaller than the model unpatched; stage: the operators
 * patch_first .. patch_last (execution order) on patch_rows x patch_cols
 * tiles of the stage's output. */
typedef enum mp_patch_mode { MP_PATCH_OFF = 0, MP_PATCH_AUTO, MP_PATCH_STAGE } mp_patch_mode;

/* memory.in_place: off (false), or on for the smallest scratch (size, and
 * true: depthwise convolutions may run channel by channel, slower, where
 * that lowers the in-place bound) or for the fastest kernels (speed: every
 * rewrite and overlap that keeps each operator's kernel). */
typedef enum mp_in_place_mode {
  MP_IN_PLACE_OFF = 0,
  MP_IN_PLACE_SIZE,
  MP_IN_PLACE_SPEED
} mp_in_place_mode;

/* "false", "size" or "speed". */
const char *mp_in_place_mode_name(mp_in_place_mode m);

/* One validated planner option. */
typedef struct mp_option {
  char *key;
  int64_t value;
} mp_option;

typedef struct mp_memory_args {
  char *planner;            /* a registered planner name; default "greedy" */
  uint32_t n_options;
  mp_option *options;       /* planner_options, validated */
  uint32_t n_constraints;
  mp_constraint *constraints; /* in order of preference */
  uint32_t n_rules;
  mp_rule *rules;
  bool allocate_arenas;     /* default true */
  bool auto_hydrate_constants; /* deprecated; default true, changes nothing */
  bool dump_residency_json; /* default false */
  const mp_progress_sink *progress; /* optional: progress of long planner runs
                                       (set by the caller, not by a config) */
  bool in_place;            /* default false: tensors may share bytes with an
                               input their producer is still reading, where
                               the kernel's overlap contract allows it
                               (in_place_mode != MP_IN_PLACE_OFF) */
  mp_in_place_mode in_place_mode; /* memory.in_place; true reads as size */
  mp_op_order op_order;     /* memory.op_order; default model: the operators
                               run in the model's order */
  bool io_caller;           /* memory.io: caller; default false (arena): the graph's
                               inputs and outputs live in buffers of the application,
                               not in the arenas */
  mp_patch_mode patch;      /* memory.patch; default off */
  uint32_t patch_first, patch_last; /* MP_PATCH_STAGE: the stage's operators */
  uint32_t patch_rows, patch_cols;  /* MP_PATCH_STAGE: its tile grid */
  /* Bytes of each memory that the other models of a `models:` list hold
   * with their persistent and constant arenas (set by the caller, not by
   * a config; zero for one model): the plan fits this model beside them,
   * so that the shared scratch, as large as the largest model's, fits
   * with every model's own arenas.  Counted in fits and in the over-budget
   * errors, not in mp_memory_usage.used. */
  uint64_t reserved[MP_MEM_COUNT];
} mp_memory_args;

/* One model of a `models:` list: planned on its own, emitted as its own
 * module (module.path/<prefix>), its scratch arenas shared with the
 * others'. */
typedef struct mp_model_entry {
  char *path;               /* resolved against the config file's folder */
  uint32_t subgraph;
  char *name;
  char *prefix;             /* C identifier; also the module's name and folder */
} mp_model_entry;

/* The scratch arenas several modules share (models: [...]): they never run
 * at the same time, so one buffer per memory, as large as the largest of
 * their scratch arenas there, serves them all. */
/* The longest module prefix: a C identifier of at most this many characters. */
#define MP_PREFIX_MAX 48

typedef struct mp_shared_need {
  const char *prefix;              /* the model's module prefix */
  uint64_t scratch[MP_MEM_COUNT];  /* its scratch arena's size there; 0: none */
} mp_shared_need;

typedef struct mp_shared_scratch {
  const char *prefix;              /* the shared arenas are <prefix>_arena_<mem>_buffer */
  uint64_t size[MP_MEM_COUNT];     /* the largest need there; 0: no shared arena */
  uint32_t align[MP_MEM_COUNT];    /* the largest alignment */
  uint32_t owner[MP_MEM_COUNT];    /* the model whose module defines the buffer */
  uint32_t n_models;
  mp_shared_need *models;          /* malloc'd */
  uint32_t self;                   /* set per module: the model being emitted */
  uint64_t held[MP_MEM_COUNT];     /* what each memory holds for all the models:
                                      the shared buffer and every model's
                                      persistent and constant arenas */
} mp_shared_scratch;

typedef struct mp_config {
  char *config_path;        /* the file, or NULL when given on the CLI only */
  /* models: [...] instead of model: several models that never run at the
   * same time, each its own module, sharing one scratch arena per memory
   * (sized to the largest need); model_path and the module's name and
   * prefix are then those of models[0], and `prefix` is the shared
   * arenas' (module.prefix, default "shared"). */
  uint32_t n_models;
  mp_model_entry *models;
  char *model_path;         /* resolved against the config file's folder */
  uint32_t subgraph;
  char *model_name;
  char *module_path;
  char *module_name;
  char *prefix;             /* C identifier */
  mp_target target;         /* module.target */
  bool has_tables_memory;   /* module.tables_memory given */
  mp_memory tables_memory;  /* where the module's read-only tables live */
  mp_platform platform;
  mp_memory_args memory;
  int32_t verbose;
  char *report_path;        /* HTML report, or NULL */
  bool allow_unsupported;
  bool force;               /* --force: replace files in module.path that memplan did not write */
  const mp_shared_scratch *shared; /* set by the caller for the modules of
                                      a models: list (mp_shared_scratch_build),
                                      else NULL */
  struct mp_pool *pool;
} mp_config;

/* Build a configuration from the arguments of `memplan convert` (argv[0] is
 * the command name): `--path CONFIG.yaml` plus dotted overrides
 * (`--memory.planner hill_climb`, `--memory.no-allocate-arenas`, ...), which
 * win over the file.  Without --path the whole config comes from the
 * arguments.  Relative paths in a file resolve against the file's folder.
 * Every problem is reported with its key path and location, and yields
 * MP_ERR_CONFIG.  Checks that need the model (rule ids, subgraph index) are
 * done by mp_rules_resolve / mp_graph_build. */
mp_status mp_config_from_args(int argc, char **argv, const mp_diag_sink *dx, mp_config **out);

/* Help text listing every key with its type, default and meaning
 * (malloc'd; the caller frees it). */
char *mp_config_help_text(void);

void mp_config_free(mp_config **c);

/* Resolve the attribute rulesets (the README's "Rulesets") for every tensor of `g`:
 * specificity (type "*" without id) < (type without id) < ("*" with id) <
 * (type with id), later rules winning ties, field by field.  out[t] gets the
 * merged attributes; out[t].has_memory means the tensor is pinned.  Fails
 * with MP_ERR_CONFIG (naming the rule) when an id matches no tensor, a
 * memory is absent from the platform, or a constant_destination_memory is
 * not writable. */
mp_status mp_rules_resolve(const mp_graph *g, const mp_platform *platform,
                           const mp_memory_args *mem, const mp_diag_sink *dx,
                           mp_attributes *out);

/* mp_rules_resolve, also telling which ruleset decided each field:
 * memory_rule[t] / destination_rule[t] point into mem->rules (NULL when no
 * ruleset set that field).  Either array may be NULL. */
mp_status mp_rules_resolve_traced(const mp_graph *g, const mp_platform *platform,
                                  const mp_memory_args *mem, const mp_diag_sink *dx,
                                  mp_attributes *out, const mp_rule **memory_rule,
                                  const mp_rule **destination_rule);

/* ------------------------------------------------------------------------ */
/* Planners: offset assignment for one arena                                */
/* ------------------------------------------------------------------------ */

/* A buffer to place: live over the inclusive interval [start, end]. */
typedef struct mp_item {
  uint64_t size;   /* bytes, already rounded up to `align` by the caller */
  int32_t start;
  int32_t end;
  uint32_t align;  /* offset alignment, power of two >= 1 */
  uint32_t id;     /* stable id for deterministic tie-breaks */
} mp_item;

typedef struct mp_problem {
  size_t n;
  const mp_item *items;
  uint64_t capacity;  /* a limit for the height, 0 = none */
} mp_problem;

typedef struct mp_solution {
  uint64_t *offsets;      /* n entries, allocated by the caller */
  const mp_progress_sink *progress; /* in, optional: progress of long runs */
  uint64_t height;        /* max(offset + size) */
  uint64_t lower_bound;   /* max over time of the live sum */
  /* Proven interval on the optimum height: lower <= OPT <= upper.  Heuristic
   * planners set lower = lower_bound and upper = height. */
  uint64_t proven_lower;
  uint64_t proven_upper;
  bool timed_out;         /* a time limit cut the search */
  /* The time limit left no room for the usual starting layout
   * (greedy_by_size on a large, dense problem): the run started from
   * start-order greedy instead (exact, hill_climb with time_limit_ms). */
  bool cheap_start;
  uint64_t iterations;    /* planner-defined work count */
} mp_solution;

/* One tunable of a planner's option schema. */
typedef struct mp_option_spec {
  const char *key;
  int64_t min;
  int64_t max;
  int64_t def;
  bool has_default;       /* false: optional with no default */
  const char *help;
} mp_option_spec;

typedef struct mp_planner {
  const char *name;
  const char *help;
  uint32_t n_options;
  const mp_option_spec *options;
  /* Place every item.  `opts` holds validated values for this planner.
   * Must be deterministic for the same problem and options, except where a
   * time limit cuts the search (then sol->timed_out is set). */
  mp_status (*solve)(const mp_problem *p, const mp_option *opts, uint32_t n_opts,
                     mp_solution *sol, const mp_diag_sink *dx);
} mp_planner;

/* The planner table; NULL-terminated via mp_planner_count. */
uint32_t mp_planner_count(void);
const mp_planner *mp_planner_at(uint32_t i);
const mp_planner *mp_planner_find(const char *name);
/* The planner name a mistyped `name` most likely means ("gredy": "greedy"),
 * or NULL when none is close. */
const char *mp_planner_suggest(const char *name);
/* Value of option `key` in `opts`, else the schema default, else `fallback`. */
int64_t mp_option_get(const mp_planner *pl, const mp_option *opts, uint32_t n_opts,
                      const char *key, int64_t fallback);

/* The lower bound of a problem: max over time of the sum of live sizes. */
uint64_t mp_problem_lower_bound(const mp_problem *p);

/* Run a planner on a problem; fills sol (offsets must hold p->n entries;
 * sol->progress, when set, receives the progress of a long run). */
mp_status mp_solve(const mp_planner *pl, const mp_problem *p, const mp_option *opts,
                   uint32_t n_opts, mp_solution *sol, const mp_diag_sink *dx);

/* Planner options given as a JSON object ('{"iterations": 2000}'), checked
 * against pl's option schema: an unknown key (with a did-you-mean hint), a
 * value that is not an integer, or one outside the schema's [min, max] is
 * an error naming the key (MP_ERR_CONFIG); `where` labels the messages
 * ("--planner-options").  On success *opts is one malloc'd block of *n_opts
 * entries, keys included (NULL and 0 for "{}"), freed with mp_options_free. */
mp_status mp_planner_options_from_json(const mp_planner *pl, const char *json, const char *where,
                                       const mp_diag_sink *dx, mp_option **opts,
                                       uint32_t *n_opts);
void mp_options_free(mp_option **opts);

/* ------------------------------------------------------------------------ */
/* Offset-assignment problems as CSV (`memplan solve`)                      */
/* ------------------------------------------------------------------------ */

/* A problem in the interchange CSV of static memory allocation: a header
 * naming the columns id, lower, upper and size (any order; an `offset`
 * column is accepted and ignored, so a solution can be read back), then one
 * row per buffer, live over the half-open interval [lower, upper).  Blank
 * lines and lines starting with '#' are skipped. */
typedef struct mp_csv_problem {
  const char *path;       /* the name given, for diagnostics */
  size_t n;
  mp_item *items;         /* items[i]: row i, inclusive lifetime, size rounded
                             up to the alignment, id == i; times are the
                             rows' own values when they fit in int32, else
                             their ranks (same overlaps) */
  const char **ids;       /* the id column, as written */
  int64_t *lower, *upper; /* as written */
  uint64_t *sizes;        /* as written, before rounding */
  uint32_t *lines;        /* 1-based line of each row */
  uint32_t alignment;     /* offset alignment of every item (1 = none) */
  bool start_end_names;   /* the header used MiniMalloc's current column names,
                             buffer,start,end,size (the solution does too) */
  struct mp_pool *pool;   /* owns everything above */
} mp_csv_problem;

/* Read a problem CSV.  `alignment` (a power of two; 0 or 1 = none) becomes
 * every item's offset alignment and sizes are rounded up to it.  Every bad
 * row is reported as file:LINE (an unknown or missing column, a value that
 * is not an integer, upper <= lower, a duplicate id, ...), up to 20 of
 * them, and yields MP_ERR_MODEL; MP_ERR_IO when the file cannot be read. */
mp_status mp_csv_problem_read(const char *path, uint32_t alignment, const mp_diag_sink *dx,
                              mp_csv_problem **out);
/* The same from memory (`name` labels diagnostics). */
mp_status mp_csv_problem_parse(const char *text, size_t len, const char *name,
                               uint32_t alignment, const mp_diag_sink *dx,
                               mp_csv_problem **out);
void mp_csv_problem_free(mp_csv_problem **p);

/* The solution as CSV text: the header `id,lower,upper,size,offset` (or
 * `buffer,start,end,size,offset` when the problem used those names), every
 * row as read plus its offset, then a final line
 * `# height=H lower_bound=L planner=NAME` (for the exact planner followed
 * by `# proven_lower=A proven_upper=B optimal=yes|no timed_out=yes|no`), and
 * `# start=greedy` when sol->cheap_start is set.
 * Returns malloc'd text (the caller frees it), NULL when out of memory. */
char *mp_csv_solution_text(const mp_csv_problem *p, const mp_solution *sol,
                           const char *planner);

/* ------------------------------------------------------------------------ */
/* Memory plan (the seeds' MemoryPlan data model)                           */
/* ------------------------------------------------------------------------ */

/* TensorBinding: where a tensor's storage is materialised. */
typedef struct mp_binding {
  mp_role role;
  mp_memory memory;         /* runtime (kernel-visible) memory */
  mp_memory source_memory;  /* == memory except for staged constants */
  uint64_t offset;          /* byte offset within the arena */
} mp_binding;

/* Why a tensor sits in its memory (the report's placement_reason). */
typedef enum mp_reason_kind {
  MP_REASON_NONE = 0,       /* not placed */
  MP_REASON_PREFERRED = 1,  /* the first memory of the preference order that
                               takes its role (writable for scratch and
                               persistent tensors) */
  MP_REASON_SPILLED = 2,    /* that memory's budget was full: it went down
                               the preference order */
  MP_REASON_PINNED = 3,     /* a ruleset of memory.tensors named its memory */
  MP_REASON_ALIAS = 4,      /* a view: it shares its alias root's storage */
} mp_reason_kind;

typedef struct mp_placement_reason {
  mp_reason_kind kind;
  /* PINNED: the ruleset that named the memory (for a staged constant, its
   * constant_destination_memory), as an index into memory.tensors, its key
   * path ("memory.tensors[2]"), and where it was written: the config file's
   * base name (NULL on the command line), line and column (0 = unknown). */
  int32_t rule;
  const char *rule_key;
  const char *rule_file;
  uint32_t rule_line, rule_column;
  /* SPILLED: the preferred memory it could not enter, and why: a scratch
   * tensor found no room at op `full_at_op` of its lifetime, where
   * `full_live` bytes of that memory's scratch were already live against a
   * scratch capacity of `full_capacity` bytes (what the budget leaves after
   * the memory's other arenas).  full_at_op is -1 for tensors live the whole
   * program (persistent, constant): the budget left less than its size.
   * A scratch tensor also records its slot's bytes (`needed`) and the
   * largest free gap of that memory over its lifetime (`largest_gap`): first
   * fit spills a tensor that no gap holds, however many bytes are free. */
  mp_memory spilled_from;
  int32_t full_at_op;
  uint64_t full_live;
  uint64_t full_capacity;
  uint64_t needed;
  uint64_t largest_gap;
} mp_placement_reason;

/* "preferred", "spilled", "pinned", "alias" ("none" when not placed). */
const char *mp_reason_name(mp_reason_kind k);

/* One line of text for a reason, memory names taken from pf (NULL: the
 * seed memories only): "pinned by rule 2 (config.yaml:14:7)",
 * "spilled from dtcm: no free gap of 36864 B (largest 18432 B; at op 2,
 * 18432 of 49152 B live)", "first in
 * preference order", "alias of tensor 7".  Writes into buf[n], returns buf. */
const char *mp_reason_text(const mp_platform *pf, const mp_placement_reason *r, int32_t alias_of,
                           char *buf, size_t n);

/* TensorAllocation, indexed by tensor id in mp_plan.allocs. */
typedef struct mp_allocation {
  uint32_t tensor_id;
  bool placed;              /* false: the tensor needs no storage (unused,
                               zero-size or an unwritten optional) */
  mp_memory memory;
  uint64_t offset;
  uint64_t size;            /* bytes of the tensor (unaligned) */
  uint64_t slot_size;       /* bytes reserved: size rounded up to `align` */
  uint32_t align;           /* slot alignment */
  mp_binding binding;
  uint32_t arena;           /* index into mp_plan.arenas */
  int32_t alias_of;         /* view alias root, or -1 */
  uint64_t alias_offset;    /* a view's offset within its root's slot */
  uint64_t alias_row;       /* a strided view: rows of alias_row bytes, */
  uint64_t alias_stride;    /* alias_stride apart from offset on (else 0, 0) */
  bool pinned;              /* a rule named its memory */
  mp_placement_reason reason;
  /* memory.io caller: the graph input (0..n_inputs-1) or output (n_inputs
   * + j) whose application buffer holds this tensor (the I/O tensor and its
   * view aliases; placed is false), else -1. */
  int32_t caller_io;
} mp_allocation;

/* ArenaUsage: one arena of one role in one memory. */
typedef struct mp_arena {
  mp_role role;
  mp_memory memory;         /* runtime memory */
  mp_memory source_memory;  /* == memory unless staged */
  bool is_staged;           /* constant arena hydrated from source_memory */
  uint64_t total_size;      /* bytes, a multiple of alignment */
  uint64_t used;            /* high-water mark (== total_size when bumped) */
  uint32_t alignment;       /* base alignment */
  uint64_t lower_bound;     /* scratch: live-sum lower bound; else total */
  uint64_t inplace_bound;   /* scratch: the in-place bound (the live sum less
                               what the kernels' overlap contracts let
                               tensors share) with memory.in_place, else
                               lower_bound */
  /* Optimality proof of a scratch arena (exact planner): lower <= OPT <= upper. */
  uint64_t proven_lower;
  uint64_t proven_upper;
  bool timed_out;
  uint32_t n_tensors;       /* slots placed in it (aliases not counted) */
} mp_arena;

/* What one memory bank holds, and its budget. */
typedef struct mp_memory_usage {
  bool present;             /* the platform has it */
  uint64_t budget;          /* max_size of its constraint, else its size */
  uint64_t used;            /* sum of the four below */
  uint64_t scratch;
  uint64_t persistent;
  uint64_t constant;        /* runtime constant arenas in this memory */
  uint64_t staged_source;   /* source blobs of staged arenas stored here */
  uint64_t reserved;        /* mp_memory_args.reserved: the other models'
                               arenas here, not part of `used` */
  /* Read-only blobs (cold constants, staged sources) in this memory when it
   * is writable RAM: their bytes need a load image in non-volatile memory
   * and a copy at boot, like .data.  Not part of `used`. */
  uint64_t load_image;
} mp_memory_usage;

/* MemoryPlan.  Arenas are ordered by region id: role (scratch, persistent,
 * constant), then memory name. */
typedef struct mp_plan {
  const mp_graph *graph;
  char planner[32];
  uint32_t n_options;
  mp_option *options;       /* the planner options in effect */
  mp_platform platform;
  uint32_t n_allocs;        /* == graph->n_tensors */
  mp_allocation *allocs;
  uint32_t n_arenas;
  mp_arena *arenas;
  mp_memory_usage memories[MP_MEM_COUNT];
  mp_lifetime *lifetimes;   /* tensor_lifetimes: storage lifetime per tensor */
  bool in_place;            /* memory.in_place: tensors may share bytes
                               where the kernels' overlap contracts allow */
  mp_in_place_mode in_place_mode; /* memory.in_place as configured */
  /* memory.in_place size with channel-serial depthwise convolutions
   * (graph->n_serial_ops): the scratch bytes the same model needs with
   * memory.in_place speed (no channel-serial kernel), when the caller
   * planned it too (convert and plan do), else 0. */
  uint64_t speed_scratch;
  /* memory.in_place never leaves a scratch arena above its tensor-level
   * bound when another planner reaches it: when the requested planner's
   * layout of a scratch arena in one memory ends above that bound
   * (requested_scratch > tensor_level_bound; both 0 when it did not), the
   * planners greedy_by_size, greedy and hill_climb (with their defaults,
   * the requested one skipped) lay the arena out too, in that order, until
   * one reaches the bound (n_tried of them ran), and the smallest layout is
   * kept, the earliest on a tie.  planner: whose layout was kept, "" for
   * the requested planner's.  A patched graph (memory.patch) asks the
   * other planners down to the arena's in-place bound instead, when it is
   * lower: inplace_bound is then that bound (0 otherwise). */
  struct {
    char planner[32];
    uint64_t requested_scratch, tensor_level_bound, inplace_bound;
    uint32_t n_tried;
  } in_place_layout;
  /* mp_plan_build_rewritten: how the plan of a graph that memory.in_place
   * rewrote was chosen.  The rewritten graph's counts (graph may be the
   * one without the rewrites); saved > 0 when the plan is of the graph
   * without them, which needed that many bytes less scratch. */
  struct {
    bool plain_planned;     /* the graph without the rewrites was planned too */
    uint32_t n_folded_pads, n_view_ops, n_elided_concats, n_partial_concats;
    uint64_t saved;
  } rewrites;
  uint64_t hash;            /* FNV-1a of the placement: detects mismatched
                               header/source pairs of an emitted module */
  struct mp_pool *pool;
} mp_plan;

/* memory.patch auto (patch_search.c): the candidate stages from g's first
 * operator on 2x2 .. 8x8 tiles, each on a fresh build of g (its rewrites,
 * order, target and kernels), ranked by their lower bound, the best few
 * planned with mem's planner on pf; then chains of stages one after the
 * other, built stage by stage by the peak over each stage's operators.
 * *out is a new patched graph (the caller frees it) when one needs less
 * scratch than g unpatched, else NULL; g is not changed. */
mp_status mp_patch_search(const mp_graph *g, const mp_platform *pf, const mp_memory_args *mem,
                          bool allow_unsupported, mp_graph **out);

/* memory.patch as a stage: mp_graph_patch on g, with the unpatched plan's
 * scratch and bounds recorded for the reports. */
mp_status mp_patch_stage_baseline(mp_graph *g, const mp_platform *pf, const mp_memory_args *mem,
                                  uint32_t first, uint32_t last, uint32_t rows, uint32_t cols,
                                  const mp_diag_sink *dx);

/* Plan every tensor of `g` on `platform` following `mem`.  Fails with
 * MP_ERR_NOFIT (naming tensor, memory, budget and shortfall) when a pinned
 * tensor or a constant cannot fit, MP_ERR_CONFIG for inconsistent rules
 * (two sources for one constant arena, a rule id that matches nothing). */
mp_status mp_plan_build(const mp_graph *g, const mp_platform *platform,
                        const mp_memory_args *mem, const mp_diag_sink *dx,
                        mp_plan **out);

/* The bytes of p's scratch arenas, over every memory. */
uint64_t mp_plan_scratch_bytes(const mp_plan *p);

/* Did memory.in_place rewrite g (PADs folded, views, elided concatenations)? */
bool mp_graph_rewritten(const mp_graph *g);

/* Plan a model as `memory.in_place` promises, the one way convert, plan and
 * the benchmark do it.  g is the graph to plan (with memory.in_place built
 * with fold_pads and sub_views); `plain`, when g was rewritten
 * (mp_graph_rewritten), the same model's graph without the rewrites, else
 * NULL.  Folding never raises the tensor-level bound, but it lengthens a
 * PAD input's lifetime, and a heuristic can place the rewritten graph
 * worse; so when g's plan is above plain's in-place bound (at byte
 * alignment: a floor for any plan of plain), plain is planned too and its
 * plan kept when it needs less scratch (g's on a tie).  p->rewrites says
 * what was done; plain's diagnostics are g's and are not repeated.  `plain`
 * must outlive the plan when it is kept (p->graph == plain). */
mp_status mp_plan_build_rewritten(const mp_graph *g, const mp_graph *plain,
                                  const mp_platform *platform, const mp_memory_args *mem,
                                  const mp_diag_sink *dx, mp_plan **out);

/* MemoryPlan.get_allocation: NULL (and no crash) for an unknown id or a
 * tensor without storage. */
const mp_allocation *mp_plan_get_allocation(const mp_plan *p, uint32_t tensor_id);

/* What another planner would save (mp_plan_hint). */
typedef struct mp_plan_hint_result {
  uint64_t scratch;         /* scratch bytes of the plan, summed over memories */
  bool found;               /* another planner needs fewer */
  char planner[32];         /* the best of them */
  uint64_t alt_scratch;     /* its scratch bytes */
  uint64_t saved;           /* scratch - alt_scratch */
  bool reaches_bound;       /* its every scratch arena is at its lower bound */
} mp_plan_hint_result;

/* When a scratch arena of `p` ends above its lower bound (and is not proven
 * optimal there), plan again with every other planner, on p's graph and
 * platform and the memory args `mem` it was built from, and report the one
 * with the fewest scratch bytes.  The heuristics run with their defaults,
 * exact within a fixed node budget, so the answer is the same on every
 * machine.  `p` is unchanged; the other plans' diagnostics are dropped.
 * Fails only with MP_ERR_NOMEM. */
mp_status mp_plan_hint(const mp_plan *p, const mp_memory_args *mem, mp_plan_hint_result *out);

/* Independent check of a plan; shares no code with the planners.  Reports
 * the offending pair of tensors and returns MP_ERR_VERIFY on a violation. */
mp_status mp_plan_verify(const mp_plan *p, const mp_diag_sink *dx);

void mp_plan_free(mp_plan **p);

/* The C symbol of an arena in an emitted module:
 * scratch "<p>_arena_<mem>_buffer", persistent "<p>_arena_persistent_<mem>_buffer",
 * cold constant "<p>_arena_const_<mem>__blob", staged constant
 * "<p>_arena_const_<mem>_buffer" and, with `source`, its source blob
 * "<p>_arena_const_<mem>__source", <mem> the name of the arena's memory on
 * the plan's platform.  Writes into buf[n] and returns buf. */
const char *mp_arena_symbol(const mp_plan *p, const char *prefix, const mp_arena *a, bool source,
                            char *buf, size_t n);

/* The residency report (docs/residency.md) as JSON text, byte-identical for identical
 * inputs.  *out is malloc'd; the caller frees it. */
mp_status mp_residency_json(const mp_plan *p, const char *prefix, char **out);

/* Write the C module for a verified plan into cfg->module_path:
 * include/<p>_model.h, src/<p>_model.c, src/<p>_arenas.c (allocate_arenas;
 * without it, data/<symbol>.bin blobs for the caller to bind instead),
 * CMakeLists.txt, module.mk and, when an operator calls one, the reference
 * kernels (kernels/), and <p>_residency.json when
 * cfg->memory.dump_residency_json, and the HTML report at cfg->report_path when
 * set.  <p> is cfg->prefix.  Region ids are the plan's arena indices, then the
 * staged arenas' source blobs in arena order.  Every file is written to a
 * staging folder beside the module folder and moved into place only when
 * all are written, so a failure changes nothing.  The folder keeps a
 * manifest (.memplan-manifest) of the files written; the next emission into
 * it removes those it does not write again, and never any other file.  Identical inputs give identical bytes.  Does not
 * verify the plan (call mp_plan_verify first).  Fails with MP_ERR_CONFIG
 * (prefix not a C identifier, no module path), MP_ERR_IO, MP_ERR_NOMEM, or
 * MP_ERR_INTERNAL / MP_ERR_UNSUPPORTED when the plan cannot be emitted. */
mp_status mp_emit_module(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx);

/* For a SIGINT or SIGTERM handler (async-signal-safe): remove the staging
 * folders and temporary report files of the converts in progress, so that
 * the module folders stay as they were (or, after the swap, as they
 * became).  The handler then ends the process. */
void mp_emit_interrupted(void);

/* The modules of a models: list, emitted as one: plans[i] with cfgs[i]
 * (whose `shared` points at `shared`, whose `self` this sets per module).
 * Every module's files are written to its staging folder and every
 * destination is checked before the first folder changes, so a failure in
 * any of them leaves all the folders as they were.  (Should a rename
 * itself fail after the first folder has moved, that folder is put back and
 * the earlier ones keep their new files; the error says so.) */
mp_status mp_emit_modules(const mp_plan *const *plans, const mp_config *cfgs, uint32_t n,
                          mp_shared_scratch *shared, const mp_diag_sink *dx);

/* The module's own tables: the objects src/<p>_model.c defines besides the
 * arenas and their blobs, with their sizes on a 32-bit target (ILP32:
 * 4-byte pointers, as every Cortex-M, ESP32 and 32-bit RISC-V core).  Read
 * only: the region, tensor and operator tables, the operators' names, the
 * kernel params structs and their per-channel arrays, the I/O and CRC
 * tables.  Writable: the region bindings (.data, or .bss without
 * allocate_arenas) and the caller I/O pointers (.bss).  Code, the string
 * literals of <p>_status_str and the kernels' own tables are not counted. */
typedef enum mp_table_section {
  MP_TABLE_RODATA = 0,
  MP_TABLE_DATA = 1,
  MP_TABLE_BSS = 2,
} mp_table_section;

typedef struct mp_module_table {
  char symbol[80];          /* "tensor_shapes", "op3_params_multiplier", "kws_tensors" */
  mp_table_section section;
  uint32_t size;            /* bytes on a 32-bit target */
  bool params;              /* a kernel's params struct or one of its arrays */
} mp_module_table;

typedef struct mp_module_tables {
  bool has_memory;          /* the read-only tables' memory is known */
  mp_memory memory;         /* module.tables_memory, else the platform's
                               first read-only memory by name */
  uint64_t rodata;          /* bytes of the read-only tables */
  uint64_t params;          /* of rodata: kernel params and their arrays */
  uint64_t data;            /* initialised writable tables */
  uint64_t bss;             /* zero-initialised writable tables */
  uint32_t n_items;
  mp_module_table *items;   /* every table (malloc'd) */
} mp_module_tables;

/* What the module mp_emit_module(p, cfg) would write defines as its own
 * tables, measured by emitting it in memory (nothing is written).  Fails as
 * mp_emit_module fails.  Free with mp_module_tables_free. */
mp_status mp_module_tables_measure(const mp_plan *p, const mp_config *cfg, const mp_diag_sink *dx,
                                   mp_module_tables *out);
void mp_module_tables_free(mp_module_tables *t);
/* The summary's lines for the tables (malloc'd text, NULL on allocation
 * failure). */
char *mp_module_tables_summary(const mp_plan *p, const mp_module_tables *t);

/* The shared scratch of n plans of the same platform and memory config,
 * one per model (prefixes[i] its module's prefix), named after `prefix`.
 * Checks every memory's budget against the shared arena plus every plan's
 * persistent and constant arenas there: MP_ERR_NOFIT, naming the memory and
 * the shortfall, when they do not fit together.  Free with
 * mp_shared_scratch_free. */
mp_status mp_shared_scratch_build(const mp_plan *const *plans, const char *const *prefixes,
                                  uint32_t n, const char *prefix, const mp_diag_sink *dx,
                                  mp_shared_scratch *out);
void mp_shared_scratch_free(mp_shared_scratch *s);
/* The summary's lines: each model's need and the shared size per memory
 * (malloc'd text, NULL on allocation failure). */
char *mp_shared_scratch_summary(const mp_shared_scratch *s, const mp_platform *pf);
/* The C symbol of the shared arena in memory m ("shared_arena_dtcm_buffer"),
 * into buf[n]. */
const char *mp_shared_symbol(const mp_shared_scratch *s, const mp_platform *pf, mp_memory m,
                             char *buf, size_t n);

/* The human summary of a plan: a table per arena (role, memory, size, used,
 * lower bound, budget headroom) and per memory; with verbose >= 2 also every
 * tensor's placement.  malloc'd text, NULL on allocation failure. */
char *mp_plan_summary(const mp_plan *p, const char *prefix, int verbose);
/* The same for a module of a models: config: its scratch arenas by the
 * buffer they share (`shared` may be NULL). */
char *mp_plan_summary_shared(const mp_plan *p, const char *prefix, int verbose,
                             const mp_shared_scratch *shared);

/* A name in at most `width` bytes for a table column: the name itself when
 * it fits; else the first part of a fused name ("a/Relu;b/BiasAdd" ->
 * "a/Relu;..."); else "..." and its end, cut at a UTF-8 character
 * boundary.  Returns `name` or buf (n bytes, at least width + 1). */
const char *mp_name_fit(const char *name, size_t width, char *buf, size_t n);

/* The plan report: one self-contained HTML page (inline SVG, CSS and a
 * little script; no external assets) with a header, a bar per memory bank,
 * a timeline per arena and a sortable tensor table.  Byte-identical for
 * identical inputs.  `prefix` names the arena symbols.  *out is malloc'd;
 * the caller frees it.  Fails only with MP_ERR_NOMEM. */
mp_status mp_report_html(const mp_plan *p, const char *prefix, char **out);

/* mp_report_html written to `path` atomically (a temporary file, then a
 * rename).  MP_ERR_IO, reported to dx with the path, when it cannot be
 * written. */
mp_status mp_report_html_write(const mp_plan *p, const char *prefix, const char *path,
                               const mp_diag_sink *dx);

#ifdef __cplusplus
}
#endif

#endif /* MEMPLAN_H */
