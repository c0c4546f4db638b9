/*
 * tflite_writer.c — a small flatbuffer builder and the LiteRT model writer
 * on top of it.
 *
 * The one idea: a flatbuffer is built back to front.  Every object (string,
 * vector, table) is prepended to a buffer that grows towards lower
 * addresses, so when a table is written its children already exist and
 * their distance is known; offsets in a flatbuffer always point forward,
 * which is exactly what prepending gives.  Objects are named by their
 * distance from the end of the buffer ("ref"), which never changes as more
 * is prepended.  Alignment is kept relative to the end too, and the final
 * size is padded to the largest alignment used, so that alignment from the
 * end is alignment from the start of the file (buffer data: 16 bytes).
 *
 * A table is collected as a list of fields, then written as: fields
 * (largest first, each aligned to its size), the int32 offset to its
 * vtable, then the vtable just before it.  Scalars equal to the schema
 * default are left out of model tables, as flatc does; builtin options are
 * written exactly as given.
 *
 * The model is kept as plain arrays until mp_tfw_finish serialises it in
 * one pass (two when some buffer is external: the first pass measures the
 * flatbuffer, so the second can name the data that follows it).  It does
 * not write sparsity, signature defs or builtin_options_2.
 */
#include "tflite_writer.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Flatbuffer builder                                                       */
/* ------------------------------------------------------------------------ */

/* Largest file the builder writes: offsets are 32-bit, and LiteRT keeps
 * flatbuffers below 2 GiB. */
#define FBB_MAX ((size_t)INT32_MAX)

typedef struct fbb {
  uint8_t *buf;      /* bytes live in buf[cap - used, cap) */
  size_t cap;
  size_t used;
  uint32_t minalign; /* largest alignment requested */
  mp_status err;     /* first failure, sticky */
  mp_tfw_rename_fn rename; /* names as written (mp_tfw_set_rename), or NULL */
  void *rename_user;
} fbb;

static uint8_t *fbb_head(fbb *b) { return b->buf + b->cap - b->used; }

static bool fbb_reserve(fbb *b, size_t n) {
  if (b->err) return false;
  if (n > FBB_MAX - b->used) {
    b->err = MP_ERR_UNSUPPORTED;
    return false;
  }
  if (b->used + n <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->used + n) cap *= 2;
  uint8_t *nb = malloc(cap);
  if (!nb) {
    b->err = MP_ERR_NOMEM;
    return false;
  }
  if (b->used) memcpy(nb + cap - b->used, fbb_head(b), b->used);
  free(b->buf);
  b->buf = nb;
  b->cap = cap;
  return true;
}

static void fbb_push(fbb *b, const void *p, size_t n) {
  if (n == 0 || !fbb_reserve(b, n)) return;
  b->used += n;
  memcpy(fbb_head(b), p, n);
}

static void fbb_pad(fbb *b, size_t n) {
  if (n == 0 || !fbb_reserve(b, n)) return;
  b->used += n;
  memset(fbb_head(b), 0, n);
}

/* Pad so that after `extra` more bytes the used size is a multiple of
 * `align` (a power of two). */
static void fbb_prep(fbb *b, uint32_t align, size_t extra) {
  if (align > b->minalign) b->minalign = align;
  size_t pad = (size_t)(0 - (b->used + extra)) & (align - 1);
  fbb_pad(b, pad);
}

static void put_le(uint8_t *p, uint64_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void fbb_scalar(fbb *b, uint64_t v, uint32_t n) {
  uint8_t tmp[8];
  put_le(tmp, v, n);
  fbb_prep(b, n, 0);
  fbb_push(b, tmp, n);
}

static uint32_t fbb_ref(const fbb *b) { return (uint32_t)b->used; }

/* A uoffset to the object at `ref`, written at the current position. */
static void fbb_uoffset(fbb *b, uint32_t ref) {
  fbb_prep(b, 4, 0);
  fbb_scalar(b, (uint64_t)(b->used + 4 - ref), 4);
}

/* A vector of n elements of `elem` bytes each, already little-endian in
 * `data`; the elements start at a multiple of `align`. */
static uint32_t fbb_vector(fbb *b, const void *data, uint32_t n, uint32_t elem, uint32_t align) {
  size_t bytes = (size_t)n * elem;
  fbb_prep(b, 4, bytes);
  fbb_prep(b, align, bytes);
  fbb_push(b, data, bytes);
  fbb_scalar(b, n, 4);
  return fbb_ref(b);
}

static uint32_t fbb_vec_i32(fbb *b, const int32_t *v, uint32_t n) {
  fbb_prep(b, 4, (size_t)n * 4);
  for (uint32_t i = n; i-- > 0;) fbb_scalar(b, (uint32_t)v[i], 4);
  fbb_scalar(b, n, 4);
  return fbb_ref(b);
}

static uint32_t fbb_vec_i64(fbb *b, const int64_t *v, uint32_t n) {
  fbb_prep(b, 4, (size_t)n * 8);
  fbb_prep(b, 8, (size_t)n * 8);
  for (uint32_t i = n; i-- > 0;) fbb_scalar(b, (uint64_t)v[i], 8);
  fbb_scalar(b, n, 4);
  return fbb_ref(b);
}

static uint32_t fbb_vec_f32(fbb *b, const float *v, uint32_t n) {
  fbb_prep(b, 4, (size_t)n * 4);
  for (uint32_t i = n; i-- > 0;) {
    uint32_t bits;
    memcpy(&bits, &v[i], 4);
    fbb_scalar(b, bits, 4);
  }
  fbb_scalar(b, n, 4);
  return fbb_ref(b);
}

/* A vector of offsets to objects written before. */
static uint32_t fbb_vec_refs(fbb *b, const uint32_t *refs, uint32_t n) {
  fbb_prep(b, 4, (size_t)n * 4);
  for (uint32_t i = n; i-- > 0;) fbb_uoffset(b, refs[i]);
  fbb_scalar(b, n, 4);
  return fbb_ref(b);
}

static uint32_t fbb_string(fbb *b, const char *s) {
  size_t n = strlen(s);
  if (n > UINT32_MAX) n = UINT32_MAX;
  fbb_prep(b, 4, n + 1);
  fbb_pad(b, 1); /* the terminating NUL */
  fbb_push(b, s, n);
  fbb_scalar(b, (uint32_t)n, 4);
  return fbb_ref(b);
}

/* A name (tensor, subgraph, custom code, description) as the model holds
 * it: renamed when the writer has a rename function. */
static uint32_t fbb_name(fbb *b, const char *s) {
  char buf[1024];
  return fbb_string(b, b->rename ? b->rename(b->rename_user, s, buf, sizeof buf) : s);
}

/* ---- tables ---- */

#define FBT_MAX_FIELDS 64u

typedef struct fbt_field {
  uint16_t id;
  uint8_t size;   /* 1, 2, 4 or 8; 4 for an offset */
  bool is_ref;
  uint64_t bits;  /* scalar value, or the ref of the target */
} fbt_field;

typedef struct fbt {
  uint32_t n;
  fbt_field f[FBT_MAX_FIELDS];
} fbt;

static void fbt_scalar(fbb *b, fbt *t, uint16_t id, uint64_t bits, uint8_t size) {
  if (t->n >= FBT_MAX_FIELDS || id >= FBT_MAX_FIELDS) {
    if (!b->err) b->err = MP_ERR_INTERNAL;
    return;
  }
  t->f[t->n++] = (fbt_field){id, size, false, bits};
}

static void fbt_ref(fbb *b, fbt *t, uint16_t id, uint32_t ref) {
  if (t->n >= FBT_MAX_FIELDS || id >= FBT_MAX_FIELDS) {
    if (!b->err) b->err = MP_ERR_INTERNAL;
    return;
  }
  t->f[t->n++] = (fbt_field){id, 4, true, ref};
}

/* Scalar fields of model tables: left out when equal to the default. */
static void fbt_opt(fbb *b, fbt *t, uint16_t id, uint64_t bits, uint64_t def, uint8_t size) {
  if (bits != def) fbt_scalar(b, t, id, bits, size);
}

/* Write the table; returns its ref. */
static uint32_t fbb_table(fbb *b, const fbt *t) {
  /* by id: where each field ends, counted from the table's last byte
   * (ref - start); 0 = absent */
  uint16_t field_end[FBT_MAX_FIELDS];
  memset(field_end, 0, sizeof field_end);
  uint32_t n_ids = 0;
  fbb_prep(b, 4, 0);
  size_t start = b->used;
  /* largest fields first (placed last in the table), stable by position */
  for (uint32_t size = 8; size >= 1; size /= 2) {
    for (uint32_t k = 0; k < t->n; k++) {
      const fbt_field *f = &t->f[k];
      if (f->size != size) continue;
      if (f->is_ref)
        fbb_uoffset(b, (uint32_t)f->bits);
      else
        fbb_scalar(b, f->bits, f->size);
      if (b->used - start > 0xfff0u) {
        if (!b->err) b->err = MP_ERR_INTERNAL;
        return 0;
      }
      field_end[f->id] = (uint16_t)(b->used - start);
      if (f->id + 1u > n_ids) n_ids = f->id + 1u;
    }
  }
  fbb_scalar(b, 0, 4); /* soffset to the vtable, patched below */
  uint32_t table = fbb_ref(b);
  uint16_t tbl_size = (uint16_t)(table - start);
  for (uint32_t id = n_ids; id-- > 0;) {
    uint16_t fo = field_end[id] ? (uint16_t)(table - start - field_end[id]) : 0;
    fbb_scalar(b, fo, 2);
  }
  fbb_scalar(b, tbl_size, 2);
  fbb_scalar(b, 4 + 2 * n_ids, 2);
  uint32_t vt = fbb_ref(b);
  if (b->err) return 0;
  put_le(b->buf + b->cap - table, (uint32_t)(vt - table), 4);
  return table;
}

/* ------------------------------------------------------------------------ */
/* The model being written                                                  */
/* ------------------------------------------------------------------------ */

typedef struct wbuffer {
  const uint8_t *data;
  size_t size;
  bool external;
  uint64_t offset; /* external: file offset, set by finish */
} wbuffer;

typedef struct wopcode {
  int8_t deprecated;
  int32_t code;
  const char *custom;
  int32_t version;
} wopcode;

typedef struct wmeta {
  const char *name;
  uint32_t buffer;
} wmeta;

typedef struct wsubgraph {
  const char *name;
  uint32_t n_tensors, cap_tensors;
  mp_tfw_tensor *tensors;
  uint32_t n_ops, cap_ops;
  mp_tfw_op *ops;
  uint32_t n_inputs, n_outputs;
  const int32_t *inputs, *outputs;
} wsubgraph;

struct mp_tfw {
  mp_pool *pool;
  mp_status err; /* first failure of an adder, sticky */
  uint32_t version;
  const char *description;
  uint32_t n_buffers, cap_buffers;
  wbuffer *buffers;
  uint32_t n_opcodes, cap_opcodes;
  wopcode *opcodes;
  uint32_t n_subgraphs, cap_subgraphs;
  wsubgraph *subgraphs;
  uint32_t current;
  uint32_t n_meta, cap_meta;
  wmeta *meta;
  mp_tfw_rename_fn rename;
  void *rename_user;
};

static void fail(mp_tfw *w, mp_status st) {
  if (!w->err) w->err = st;
}

/* Room for element n of a pool-backed growable array `arr` of *cap
 * elements: returns the array (moved when it grew), NULL after a failure. */
static void *grow(mp_tfw *w, void *arr, uint32_t *cap, uint32_t n, size_t elem) {
  if (w->err) return NULL;
  if (n < *cap) return arr;
  if (n >= UINT32_MAX / 2) {
    fail(w, MP_ERR_UNSUPPORTED);
    return NULL;
  }
  uint32_t ncap = *cap ? *cap * 2 : 8;
  void *na = mp_pool_alloc(w->pool, ncap, elem);
  if (!na) {
    fail(w, MP_ERR_NOMEM);
    return NULL;
  }
  if (n) memcpy(na, arr, (size_t)n * elem);
  *cap = ncap;
  return na;
}

static const char *dup_str(mp_tfw *w, const char *s) {
  if (!s) return NULL;
  char *d = mp_pool_strdup(w->pool, s);
  if (!d) fail(w, MP_ERR_NOMEM);
  return d;
}

static void *dup_mem(mp_tfw *w, const void *p, size_t n, size_t elem) {
  if (!p || n == 0) return NULL;
  void *d = mp_pool_alloc(w->pool, n, elem);
  if (!d) {
    fail(w, MP_ERR_NOMEM);
    return NULL;
  }
  memcpy(d, p, n * elem);
  return d;
}

mp_tfw *mp_tfw_new(void) {
  mp_pool *pool = mp_pool_new();
  if (!pool) return NULL;
  mp_tfw *w = mp_pool_alloc(pool, 1, sizeof *w);
  if (!w) {
    mp_pool_free(&pool);
    return NULL;
  }
  w->pool = pool;
  w->version = 3;
  mp_tfw_add_buffer(w, NULL, 0);
  return w;
}

void mp_tfw_free(mp_tfw **w) {
  if (!w || !*w) return;
  mp_pool *pool = (*w)->pool;
  mp_pool_free(&pool);
  *w = NULL;
}

void mp_tfw_set_version(mp_tfw *w, uint32_t version) { w->version = version; }

void mp_tfw_set_description(mp_tfw *w, const char *text) { w->description = dup_str(w, text); }

void mp_tfw_set_rename(mp_tfw *w, mp_tfw_rename_fn fn, void *user) {
  w->rename = fn;
  w->rename_user = user;
}

static uint32_t add_buffer(mp_tfw *w, const void *data, size_t size, bool external) {
  wbuffer *arr = grow(w, w->buffers, &w->cap_buffers, w->n_buffers, sizeof *arr);
  if (!arr) return w->n_buffers;
  w->buffers = arr;
  if (size > FBB_MAX) {
    fail(w, MP_ERR_UNSUPPORTED);
    return w->n_buffers;
  }
  wbuffer *b = &w->buffers[w->n_buffers];
  b->data = dup_mem(w, data, size, 1);
  b->size = b->data ? size : 0;
  b->external = external;
  return w->n_buffers++;
}

uint32_t mp_tfw_add_buffer(mp_tfw *w, const void *data, size_t size) {
  return add_buffer(w, data, size, false);
}

uint32_t mp_tfw_add_external_buffer(mp_tfw *w, const void *data, size_t size) {
  return add_buffer(w, data, size, true);
}

uint32_t mp_tfw_add_opcode_raw(mp_tfw *w, int8_t deprecated_builtin_code, int32_t builtin_code,
                               const char *custom_code, int32_t version) {
  wopcode *arr = grow(w, w->opcodes, &w->cap_opcodes, w->n_opcodes, sizeof *arr);
  if (!arr) return w->n_opcodes;
  w->opcodes = arr;
  w->opcodes[w->n_opcodes] =
      (wopcode){deprecated_builtin_code, builtin_code, dup_str(w, custom_code), version};
  return w->n_opcodes++;
}

uint32_t mp_tfw_add_subgraph(mp_tfw *w, const char *name) {
  wsubgraph *arr = grow(w, w->subgraphs, &w->cap_subgraphs, w->n_subgraphs, sizeof *arr);
  if (!arr) return w->n_subgraphs;
  w->subgraphs = arr;
  wsubgraph *s = &w->subgraphs[w->n_subgraphs];
  memset(s, 0, sizeof *s);
  s->name = dup_str(w, name);
  w->current = w->n_subgraphs;
  return w->n_subgraphs++;
}

void mp_tfw_select_subgraph(mp_tfw *w, uint32_t index) {
  if (index >= w->n_subgraphs) {
    fail(w, MP_ERR_INTERNAL);
    return;
  }
  w->current = index;
}

/* The subgraph adders write to, created on first use; NULL after a failure. */
static wsubgraph *current(mp_tfw *w) {
  if (w->n_subgraphs == 0) mp_tfw_add_subgraph(w, NULL);
  if (w->err) return NULL;
  return &w->subgraphs[w->current];
}

uint32_t mp_tfw_add_tensor(mp_tfw *w, const mp_tfw_tensor *t) {
  wsubgraph *s = current(w);
  if (!s) return 0;
  mp_tfw_tensor *arr = grow(w, s->tensors, &s->cap_tensors, s->n_tensors, sizeof *arr);
  if (!arr) return s->n_tensors;
  s->tensors = arr;
  mp_tfw_tensor *d = &s->tensors[s->n_tensors];
  *d = *t;
  d->name = dup_str(w, t->name);
  d->shape = dup_mem(w, t->shape, t->rank, sizeof(int32_t));
  d->shape_signature =
      t->has_shape_signature ? dup_mem(w, t->shape_signature, t->rank, sizeof(int32_t)) : NULL;
  d->quant.scale = dup_mem(w, t->quant.scale, t->quant.n_scale, sizeof(float));
  d->quant.zero_point = dup_mem(w, t->quant.zero_point, t->quant.n_zero_point, sizeof(int64_t));
  if (!d->quant.scale) d->quant.n_scale = 0;
  if (!d->quant.zero_point) d->quant.n_zero_point = 0;
  return s->n_tensors++;
}

uint32_t mp_tfw_add_simple_tensor(mp_tfw *w, const char *name, int32_t dtype, uint32_t rank,
                                  const int32_t *shape) {
  mp_tfw_tensor t = {.name = name, .dtype = dtype, .rank = rank, .shape = shape};
  return mp_tfw_add_tensor(w, &t);
}

/* Index of the OperatorCode for (code, custom, version), added if new. */
static uint32_t find_opcode(mp_tfw *w, int32_t code, const char *custom, int32_t version) {
  int8_t dep = (int8_t)(code < 127 ? code : 127);
  for (uint32_t i = 0; i < w->n_opcodes; i++) {
    const wopcode *c = &w->opcodes[i];
    bool same_custom = (!c->custom && !custom) || (c->custom && custom && !strcmp(c->custom, custom));
    if (c->code == code && c->deprecated == dep && c->version == version && same_custom)
      return i;
  }
  return mp_tfw_add_opcode_raw(w, dep, code, custom, version);
}

uint32_t mp_tfw_add_op(mp_tfw *w, const mp_tfw_op *op) {
  wsubgraph *s = current(w);
  if (!s) return 0;
  mp_tfw_op *arr = grow(w, s->ops, &s->cap_ops, s->n_ops, sizeof *arr);
  if (!arr) return s->n_ops;
  s->ops = arr;
  mp_tfw_op *d = &s->ops[s->n_ops];
  *d = *op;
  if (d->version == 0) d->version = 1;
  if (!op->has_opcode_index) {
    d->opcode_index = find_opcode(w, op->builtin_code, op->custom_code, d->version);
    d->has_opcode_index = true;
  }
  d->custom_code = NULL; /* lives in the opcode */
  d->inputs = dup_mem(w, op->inputs, op->n_inputs, sizeof(int32_t));
  d->outputs = dup_mem(w, op->outputs, op->n_outputs, sizeof(int32_t));
  d->intermediates = dup_mem(w, op->intermediates, op->n_intermediates, sizeof(int32_t));
  d->custom_options = dup_mem(w, op->custom_options, op->custom_options_size, 1);
  mp_tfw_option *opts = dup_mem(w, op->options, op->n_options, sizeof(mp_tfw_option));
  for (uint32_t k = 0; opts && k < op->n_options; k++) {
    if (opts[k].field >= FBT_MAX_FIELDS) fail(w, MP_ERR_INTERNAL);
    if (opts[k].type == MP_TFW_I32_VEC)
      opts[k].vec = dup_mem(w, opts[k].vec, opts[k].n_vec, sizeof(int32_t));
  }
  d->options = opts;
  if (!opts) d->n_options = 0;
  return s->n_ops++;
}

void mp_tfw_set_io(mp_tfw *w, uint32_t n_inputs, const int32_t *inputs, uint32_t n_outputs,
                   const int32_t *outputs) {
  wsubgraph *s = current(w);
  if (!s) return;
  s->inputs = dup_mem(w, inputs, n_inputs, sizeof(int32_t));
  s->outputs = dup_mem(w, outputs, n_outputs, sizeof(int32_t));
  s->n_inputs = s->inputs ? n_inputs : 0;
  s->n_outputs = s->outputs ? n_outputs : 0;
}

void mp_tfw_add_metadata(mp_tfw *w, const char *name, uint32_t buffer) {
  wmeta *arr = grow(w, w->meta, &w->cap_meta, w->n_meta, sizeof *arr);
  if (!arr) return;
  w->meta = arr;
  w->meta[w->n_meta++] = (wmeta){dup_str(w, name), buffer};
}

/* ------------------------------------------------------------------------ */
/* Serialisation                                                            */
/* ------------------------------------------------------------------------ */

/* Field ids: declaration order in schema.fbs (a union takes two). */
enum { M_VERSION = 0, M_OPCODES = 1, M_SUBGRAPHS = 2, M_DESCRIPTION = 3, M_BUFFERS = 4,
       M_METADATA = 6 };
enum { OC_DEPRECATED = 0, OC_CUSTOM = 1, OC_VERSION = 2, OC_BUILTIN = 3 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OUTPUTS = 2, SG_OPERATORS = 3, SG_NAME = 4 };
enum { T_SHAPE = 0, T_TYPE = 1, T_BUFFER = 2, T_NAME = 3, T_QUANT = 4, T_IS_VARIABLE = 5,
       T_SHAPE_SIGNATURE = 7 };
enum { Q_SCALE = 2, Q_ZERO_POINT = 3, Q_DIM = 6 };
enum { OP_OPCODE = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3, OP_OPTIONS = 4,
       OP_CUSTOM_OPTIONS = 5, OP_INTERMEDIATES = 8 };
enum { B_DATA = 0, B_OFFSET = 1, B_SIZE = 2 };
enum { MD_NAME = 0, MD_BUFFER = 1 };

/* The refs of a list of objects, for a vector of offsets. */
static uint32_t *refs_new(fbb *b, uint32_t n) {
  uint32_t *r = calloc(n ? n : 1, sizeof(uint32_t));
  if (!r && !b->err) b->err = MP_ERR_NOMEM;
  return r;
}

static uint32_t write_buffers(fbb *b, const mp_tfw *w) {
  uint32_t *refs = refs_new(b, w->n_buffers);
  if (!refs) return 0;
  /* last first, so that the data lies in index order in the file */
  for (uint32_t i = w->n_buffers; i-- > 0;) {
    const wbuffer *wb = &w->buffers[i];
    fbt t = {0};
    if (wb->external) {
      fbt_scalar(b, &t, B_OFFSET, wb->offset, 8);
      fbt_scalar(b, &t, B_SIZE, wb->size, 8);
    } else if (wb->size > 0) {
      fbt_ref(b, &t, B_DATA, fbb_vector(b, wb->data, (uint32_t)wb->size, 1, 16));
    }
    refs[i] = fbb_table(b, &t);
  }
  uint32_t v = fbb_vec_refs(b, refs, w->n_buffers);
  free(refs);
  return v;
}

static uint32_t write_tensor(fbb *b, const mp_tfw_tensor *x) {
  fbt t = {0};
  uint32_t quant = 0;
  if (x->has_quant) {
    fbt q = {0};
    fbt_ref(b, &q, Q_SCALE, fbb_vec_f32(b, x->quant.scale, x->quant.n_scale));
    fbt_ref(b, &q, Q_ZERO_POINT, fbb_vec_i64(b, x->quant.zero_point, x->quant.n_zero_point));
    fbt_opt(b, &q, Q_DIM, (uint32_t)x->quant.quantized_dimension, 0, 4);
    quant = fbb_table(b, &q);
  }
  if (x->has_shape_signature)
    fbt_ref(b, &t, T_SHAPE_SIGNATURE, fbb_vec_i32(b, x->shape_signature, x->rank));
  if (x->name) fbt_ref(b, &t, T_NAME, fbb_name(b, x->name));
  fbt_ref(b, &t, T_SHAPE, fbb_vec_i32(b, x->shape, x->rank));
  if (x->has_quant) fbt_ref(b, &t, T_QUANT, quant);
  fbt_opt(b, &t, T_TYPE, (uint8_t)x->dtype, 0, 1);
  fbt_opt(b, &t, T_BUFFER, x->buffer, 0, 4);
  fbt_opt(b, &t, T_IS_VARIABLE, x->is_variable, 0, 1);
  return fbb_table(b, &t);
}

static uint32_t option_size(mp_tfw_type type) {
  switch (type) {
  case MP_TFW_BOOL:
  case MP_TFW_I8:
  case MP_TFW_U8: return 1;
  case MP_TFW_I16:
  case MP_TFW_U16: return 2;
  case MP_TFW_I64:
  case MP_TFW_U64: return 8;
  default: return 4;
  }
}

static uint32_t write_options(fbb *b, const mp_tfw_op *op) {
  fbt t = {0};
  /* vectors first: they are children of the table */
  uint32_t vec_refs[FBT_MAX_FIELDS] = {0};
  for (uint32_t k = 0; k < op->n_options && k < FBT_MAX_FIELDS; k++)
    if (op->options[k].type == MP_TFW_I32_VEC)
      vec_refs[k] = fbb_vec_i32(b, op->options[k].vec, op->options[k].n_vec);
  for (uint32_t k = 0; k < op->n_options; k++) {
    const mp_tfw_option *o = &op->options[k];
    if (o->type == MP_TFW_I32_VEC) {
      fbt_ref(b, &t, o->field, k < FBT_MAX_FIELDS ? vec_refs[k] : 0);
    } else if (o->type == MP_TFW_F32) {
      uint32_t bits;
      memcpy(&bits, &o->f, 4);
      fbt_scalar(b, &t, o->field, bits, 4);
    } else {
      fbt_scalar(b, &t, o->field, (uint64_t)o->i, (uint8_t)option_size(o->type));
    }
  }
  return fbb_table(b, &t);
}

static uint32_t write_op(fbb *b, const mp_tfw_op *op) {
  fbt t = {0};
  if (op->custom_options_size)
    fbt_ref(b, &t, OP_CUSTOM_OPTIONS, fbb_vector(b, op->custom_options, op->custom_options_size,
                                                 1, 1));
  if (op->options_type || op->n_options)
    fbt_ref(b, &t, OP_OPTIONS, write_options(b, op));
  if (op->n_intermediates)
    fbt_ref(b, &t, OP_INTERMEDIATES, fbb_vec_i32(b, op->intermediates, op->n_intermediates));
  fbt_ref(b, &t, OP_OUTPUTS, fbb_vec_i32(b, op->outputs, op->n_outputs));
  fbt_ref(b, &t, OP_INPUTS, fbb_vec_i32(b, op->inputs, op->n_inputs));
  fbt_opt(b, &t, OP_OPCODE, op->opcode_index, 0, 4);
  fbt_opt(b, &t, OP_OPTIONS_TYPE, op->options_type, 0, 1);
  return fbb_table(b, &t);
}

static uint32_t write_subgraph(fbb *b, const wsubgraph *s) {
  fbt t = {0};
  uint32_t *refs = refs_new(b, s->n_ops > s->n_tensors ? s->n_ops : s->n_tensors);
  if (!refs) return 0;
  for (uint32_t i = s->n_ops; i-- > 0;) refs[i] = write_op(b, &s->ops[i]);
  fbt_ref(b, &t, SG_OPERATORS, fbb_vec_refs(b, refs, s->n_ops));
  for (uint32_t i = s->n_tensors; i-- > 0;) refs[i] = write_tensor(b, &s->tensors[i]);
  fbt_ref(b, &t, SG_TENSORS, fbb_vec_refs(b, refs, s->n_tensors));
  free(refs);
  fbt_ref(b, &t, SG_OUTPUTS, fbb_vec_i32(b, s->outputs, s->n_outputs));
  fbt_ref(b, &t, SG_INPUTS, fbb_vec_i32(b, s->inputs, s->n_inputs));
  if (s->name) fbt_ref(b, &t, SG_NAME, fbb_name(b, s->name));
  return fbb_table(b, &t);
}

static uint32_t write_opcodes(fbb *b, const mp_tfw *w) {
  uint32_t *refs = refs_new(b, w->n_opcodes);
  if (!refs) return 0;
  for (uint32_t i = w->n_opcodes; i-- > 0;) {
    const wopcode *c = &w->opcodes[i];
    fbt t = {0};
    if (c->custom) fbt_ref(b, &t, OC_CUSTOM, fbb_name(b, c->custom));
    fbt_opt(b, &t, OC_BUILTIN, (uint32_t)c->code, 0, 4);
    fbt_opt(b, &t, OC_VERSION, (uint32_t)c->version, 1, 4);
    fbt_opt(b, &t, OC_DEPRECATED, (uint8_t)c->deprecated, 0, 1);
    refs[i] = fbb_table(b, &t);
  }
  uint32_t v = fbb_vec_refs(b, refs, w->n_opcodes);
  free(refs);
  return v;
}

static uint32_t write_metadata(fbb *b, const mp_tfw *w) {
  uint32_t *refs = refs_new(b, w->n_meta);
  if (!refs) return 0;
  for (uint32_t i = w->n_meta; i-- > 0;) {
    fbt t = {0};
    if (w->meta[i].name) fbt_ref(b, &t, MD_NAME, fbb_string(b, w->meta[i].name));
    fbt_opt(b, &t, MD_BUFFER, w->meta[i].buffer, 0, 4);
    refs[i] = fbb_table(b, &t);
  }
  uint32_t v = fbb_vec_refs(b, refs, w->n_meta);
  free(refs);
  return v;
}

/* One serialisation pass into a fresh builder. */
static void write_model(fbb *b, const mp_tfw *w) {
  fbt t = {0};
  fbt_ref(b, &t, M_BUFFERS, write_buffers(b, w));
  if (w->n_meta) fbt_ref(b, &t, M_METADATA, write_metadata(b, w));
  uint32_t *refs = refs_new(b, w->n_subgraphs);
  if (!refs) return;
  for (uint32_t i = w->n_subgraphs; i-- > 0;) refs[i] = write_subgraph(b, &w->subgraphs[i]);
  fbt_ref(b, &t, M_SUBGRAPHS, fbb_vec_refs(b, refs, w->n_subgraphs));
  free(refs);
  fbt_ref(b, &t, M_OPCODES, write_opcodes(b, w));
  if (w->description) fbt_ref(b, &t, M_DESCRIPTION, fbb_name(b, w->description));
  fbt_opt(b, &t, M_VERSION, w->version, 0, 4);
  uint32_t root = fbb_table(b, &t);
  /* header: root offset, then the file identifier */
  fbb_prep(b, b->minalign > 4 ? b->minalign : 4, 8);
  fbb_push(b, "TFL3", 4);
  fbb_scalar(b, (uint64_t)(b->used + 4 - root), 4);
}

mp_status mp_tfw_finish(mp_tfw *w, uint8_t **bytes, size_t *size) {
  *bytes = NULL;
  *size = 0;
  if (w->err) return w->err;
  bool external = false;
  for (uint32_t i = 0; i < w->n_buffers; i++) {
    w->buffers[i].offset = 2; /* placeholder > 1: same layout in both passes */
    external |= w->buffers[i].external;
  }
  fbb b;
  memset(&b, 0, sizeof b);
  b.rename = w->rename;
  b.rename_user = w->rename_user;
  write_model(&b, w);
  size_t total = b.used;
  if (external && !b.err) {
    /* place the external data after the flatbuffer, then write again */
    uint64_t at = mp_align_up(total, 16);
    for (uint32_t i = 0; i < w->n_buffers; i++) {
      if (!w->buffers[i].external) continue;
      w->buffers[i].offset = at;
      at = mp_align_up(at + w->buffers[i].size, 16);
    }
    if (at > FBB_MAX) b.err = MP_ERR_UNSUPPORTED;
    free(b.buf);
    memset(&b, 0, sizeof b);
    b.rename = w->rename;
    b.rename_user = w->rename_user;
    if (!b.err) write_model(&b, w);
    if (!b.err && b.used != total) b.err = MP_ERR_INTERNAL;
    total = (size_t)at;
  }
  if (b.err) {
    free(b.buf);
    return b.err;
  }
  uint8_t *out = calloc(total ? total : 1, 1);
  if (!out) {
    free(b.buf);
    return MP_ERR_NOMEM;
  }
  memcpy(out, fbb_head(&b), b.used);
  for (uint32_t i = 0; i < w->n_buffers; i++) {
    const wbuffer *wb = &w->buffers[i];
    if (wb->external && wb->size) memcpy(out + wb->offset, wb->data, wb->size);
  }
  free(b.buf);
  *bytes = out;
  *size = total;
  return MP_OK;
}
