/*
 * tflite_writer.h — writing LiteRT / TensorFlow Lite model files.
 *
 * memplan's own model writer: it produces the bundled example and the test
 * fixtures.  It covers the part of the schema the reader (model.c) reads:
 * Model (version, operator_codes, subgraphs, description, buffers,
 * metadata), OperatorCode, SubGraph, Tensor (with QuantizationParameters),
 * Operator (with builtin options given generically, field by field) and
 * Buffer (inline data, or data placed after the flatbuffer and named by
 * offset/size).
 *
 * Usage: mp_tfw_new, then add buffers, a subgraph, its tensors and
 * operators in execution order, set its inputs/outputs, and mp_tfw_finish
 * to get the file's bytes.  Adders copy what they are given, and never
 * fail on their own: an allocation failure is remembered and reported by
 * mp_tfw_finish (a "sticky" error, like mp_buf.failed), so a fixture reads
 * as a straight list of calls.
 *
 * The writer deliberately checks nothing about the model's consistency
 * (indices, shapes, codes): tests use it to write malformed models too.
 */
#ifndef MP_TFLITE_WRITER_H
#define MP_TFLITE_WRITER_H

#include "memplan.h"

typedef struct mp_tfw mp_tfw;

/* Scalar types of an options-table field (the schema's field types). */
typedef enum mp_tfw_type {
  MP_TFW_BOOL = 0, /* 1 byte */
  MP_TFW_I8 = 1,   /* 1 byte: byte, and enums over byte (Padding, activation) */
  MP_TFW_U8 = 2,   /* 1 byte */
  MP_TFW_I16 = 3,
  MP_TFW_U16 = 4,
  MP_TFW_I32 = 5,
  MP_TFW_U32 = 6,
  MP_TFW_I64 = 7,
  MP_TFW_U64 = 8,
  MP_TFW_F32 = 9,
  MP_TFW_I32_VEC = 10 /* a vector of int: ReshapeOptions.new_shape, ... */
} mp_tfw_type;

/* One field of a builtin options table.  `field` is the 0-based
 * declaration index in the schema's table (Conv2DOptions: padding 0,
 * stride_w 1, stride_h 2, fused_activation_function 3, dilation_w_factor 4,
 * dilation_h_factor 5).  Fields are always written, even when equal to
 * the schema default. */
typedef struct mp_tfw_option {
  uint16_t field;
  mp_tfw_type type;
  int64_t i;        /* integer and bool values */
  float f;          /* MP_TFW_F32 */
  uint32_t n_vec;   /* MP_TFW_I32_VEC */
  const int32_t *vec;
} mp_tfw_option;

/* Union type values of BuiltinOptions used by memplan's own models. */
enum {
  MP_TFW_OPT_NONE = 0,
  MP_TFW_OPT_CONV2D = 1,
  MP_TFW_OPT_DEPTHWISE_CONV2D = 2,
  MP_TFW_OPT_POOL2D = 5,
  MP_TFW_OPT_FULLY_CONNECTED = 8,
  MP_TFW_OPT_SOFTMAX = 9,
  MP_TFW_OPT_CONCATENATION = 10,
  MP_TFW_OPT_ADD = 11,
  MP_TFW_OPT_RESHAPE = 17,
  MP_TFW_OPT_MUL = 21,
  MP_TFW_OPT_SQUEEZE = 30,
  MP_TFW_OPT_SPLIT = 35,
  MP_TFW_OPT_EXPAND_DIMS = 52
};

/* A tensor to add.  Quantization is written when has_quant is set (scale
 * and zero_point vectors as given, even empty, plus quantized_dimension). */
typedef struct mp_tfw_tensor {
  const char *name;      /* NULL: no name field */
  int32_t dtype;         /* mp_dtype, written as the schema's byte */
  uint32_t rank;
  const int32_t *shape;
  uint32_t buffer;       /* buffer index; 0 = the empty sentinel */
  bool is_variable;
  bool has_quant;
  mp_quant quant;
  bool has_shape_signature;
  const int32_t *shape_signature; /* rank entries */
} mp_tfw_tensor;

/* An operator to add.  Its OperatorCode is found or added by
 * (builtin_code, custom_code, version) unless `opcode_index` is given
 * explicitly with has_opcode_index. */
typedef struct mp_tfw_op {
  int32_t builtin_code;
  const char *custom_code;  /* for CUSTOM (32) */
  int32_t version;          /* opcode version; 0 means 1 */
  bool has_opcode_index;
  uint32_t opcode_index;
  uint32_t n_inputs;
  const int32_t *inputs;    /* -1 = optional input left out */
  uint32_t n_outputs;
  const int32_t *outputs;
  uint32_t n_intermediates;
  const int32_t *intermediates;
  uint8_t options_type;     /* BuiltinOptions union type, 0 = none */
  uint32_t n_options;
  const mp_tfw_option *options;
  uint32_t custom_options_size;
  const uint8_t *custom_options;
} mp_tfw_op;

/* A new, empty model: version 3, buffer 0 (the empty sentinel), no
 * subgraph.  NULL when out of memory.  Free with mp_tfw_free. */
mp_tfw *mp_tfw_new(void);
void mp_tfw_free(mp_tfw **w);

/* Schema version to write (default 3; other values make invalid models). */
void mp_tfw_set_version(mp_tfw *w, uint32_t version);
void mp_tfw_set_description(mp_tfw *w, const char *text);

/* Names as written: every tensor name, subgraph name, custom code and the
 * description pass through fn when the model is serialised (the text it
 * returns, which may be `buf` of `size` bytes, is written instead).  For
 * models whose names are hostile input; NULL writes names as given. */
typedef const char *(*mp_tfw_rename_fn)(void *user, const char *name, char *buf, size_t size);
void mp_tfw_set_rename(mp_tfw *w, mp_tfw_rename_fn fn, void *user);

/* Append a buffer holding a copy of `size` bytes (size 0: an empty buffer
 * table) and return its index.  Inline data is 16-byte aligned in the file. */
uint32_t mp_tfw_add_buffer(mp_tfw *w, const void *data, size_t size);
/* The same, but the data is stored after the flatbuffer (16-byte aligned)
 * and the Buffer names it by `offset`/`size`, as converters do for models
 * larger than 2 GiB. */
uint32_t mp_tfw_add_external_buffer(mp_tfw *w, const void *data, size_t size);

/* Append an OperatorCode as given (deprecated_builtin_code is the schema's
 * byte, stored as is) and return its index.  mp_tfw_add_op adds codes by
 * itself; this is for models that need exact control. */
uint32_t mp_tfw_add_opcode_raw(mp_tfw *w, int8_t deprecated_builtin_code, int32_t builtin_code,
                               const char *custom_code, int32_t version);

/* Append a subgraph and make it the current one; returns its index.  The
 * tensor and op adders below create subgraph 0 (unnamed) when there is
 * none yet. */
uint32_t mp_tfw_add_subgraph(mp_tfw *w, const char *name);
/* Select the subgraph later calls add to. */
void mp_tfw_select_subgraph(mp_tfw *w, uint32_t index);

/* Append a tensor to the current subgraph; returns its index. */
uint32_t mp_tfw_add_tensor(mp_tfw *w, const mp_tfw_tensor *t);
/* Shorthand: an unquantized tensor without buffer. */
uint32_t mp_tfw_add_simple_tensor(mp_tfw *w, const char *name, int32_t dtype, uint32_t rank,
                                  const int32_t *shape);
/* Append an operator (executed after the ones before it); returns its
 * index.  OperatorCodes are written with builtin_code = code and
 * deprecated_builtin_code = min(code, 127), as converters do. */
uint32_t mp_tfw_add_op(mp_tfw *w, const mp_tfw_op *op);
/* Set the current subgraph's input and output tensor lists. */
void mp_tfw_set_io(mp_tfw *w, uint32_t n_inputs, const int32_t *inputs, uint32_t n_outputs,
                   const int32_t *outputs);

/* Append a Metadata entry naming buffer `buffer`. */
void mp_tfw_add_metadata(mp_tfw *w, const char *name, uint32_t buffer);

/* Serialise the model: *bytes (malloc'd, the caller frees it) and *size.
 * Deterministic: the same calls give the same bytes.  Fails with
 * MP_ERR_NOMEM when an earlier call or the serialisation ran out of
 * memory, MP_ERR_UNSUPPORTED when the file would exceed 2 GiB.  The
 * writer stays usable (finish may be called again). */
mp_status mp_tfw_finish(mp_tfw *w, uint8_t **bytes, size_t *size);

#endif /* MP_TFLITE_WRITER_H */
