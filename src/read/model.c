/*
 * model.c — reading a LiteRT / TensorFlow Lite model into an mp_model.
 *
 * The reader walks the part of the schema a planner needs (Model,
 * OperatorCode, SubGraph, Tensor, QuantizationParameters, Operator, Buffer,
 * Metadata) with flatbuf.c's checked primitives and copies what it finds
 * into plain C arrays owned by the model's pool.  Validation happens here,
 * once: after mp_model_load succeeds, every tensor index in an operator or
 * subgraph I/O list is in range (or -1 for an optional input), every buffer
 * index is in range, and every buffer's bytes lie inside the file.  Later
 * stages may index freely.
 *
 * It does not interpret operators (graph.c does), and it keeps builtin
 * options only as the validated position of their table, for the kernel
 * lowering to read later.
 *
 * Field ids below are the declaration order of the fields in schema.fbs
 * (a union takes two ids: its type, then its value).
 */
#include "util/diag.h"
#include "read/flatbuf.h"
#include "util/file.h"
#include "util/util.h"
#include "read/validate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Model */
enum { F_MODEL_VERSION = 0, F_MODEL_OPCODES = 1, F_MODEL_SUBGRAPHS = 2, F_MODEL_DESCRIPTION = 3,
       F_MODEL_BUFFERS = 4, F_MODEL_METADATA = 6 };
/* OperatorCode */
enum { F_OPC_DEPRECATED = 0, F_OPC_CUSTOM = 1, F_OPC_VERSION = 2, F_OPC_BUILTIN = 3 };
/* SubGraph */
enum { F_SG_TENSORS = 0, F_SG_INPUTS = 1, F_SG_OUTPUTS = 2, F_SG_OPERATORS = 3, F_SG_NAME = 4 };
/* Tensor */
enum { F_T_SHAPE = 0, F_T_TYPE = 1, F_T_BUFFER = 2, F_T_NAME = 3, F_T_QUANT = 4,
       F_T_IS_VARIABLE = 5, F_T_SPARSITY = 6, F_T_SHAPE_SIGNATURE = 7 };
/* QuantizationParameters */
enum { F_Q_SCALE = 2, F_Q_ZERO_POINT = 3, F_Q_DIM = 6 };
/* Operator */
enum { F_OP_OPCODE = 0, F_OP_INPUTS = 1, F_OP_OUTPUTS = 2, F_OP_OPTIONS_TYPE = 3,
       F_OP_OPTIONS = 4, F_OP_CUSTOM_OPTIONS = 5, F_OP_INTERMEDIATES = 8,
       F_OP_OPTIONS2_TYPE = 11, F_OP_OPTIONS2 = 12 };
/* Buffer */
enum { F_BUF_DATA = 0, F_BUF_OFFSET = 1, F_BUF_SIZE = 2 };
/* Metadata */
enum { F_MD_NAME = 0, F_MD_BUFFER = 1 };

static const char *const MODEL_FIELDS[] = {"version", "operator_codes", "subgraphs",
    "description", "buffers", "metadata_buffer", "metadata", "signature_defs", NULL};
static const char *const OPCODE_FIELDS[] = {"deprecated_builtin_code", "custom_code", "version",
    "builtin_code", NULL};
static const char *const SUBGRAPH_FIELDS[] = {"tensors", "inputs", "outputs", "operators",
    "name", NULL};
static const char *const TENSOR_FIELDS[] = {"shape", "type", "buffer", "name", "quantization",
    "is_variable", "sparsity", "shape_signature", "has_rank", "variant_tensors", NULL};
static const char *const QUANT_FIELDS[] = {"min", "max", "scale", "zero_point", "details_type",
    "details", "quantized_dimension", NULL};
static const char *const OPERATOR_FIELDS[] = {"opcode_index", "inputs", "outputs",
    "builtin_options_type", "builtin_options", "custom_options", "custom_options_format",
    "mutating_variable_inputs", "intermediates", "large_custom_options_offset",
    "large_custom_options_size", "builtin_options_2_type", "builtin_options_2", NULL};
static const char *const BUFFER_FIELDS[] = {"data", "offset", "size", NULL};
static const char *const METADATA_FIELDS[] = {"name", "buffer", NULL};

/* Deepest tensor rank accepted: more is certainly a corrupt file. */
#define MAX_RANK 16u

typedef struct reader {
  fb_file f;
  mp_pool *pool;
  mp_model *m;
  char what[160];       /* scratch for "subgraphs[0].tensors[3]" */
} reader;

static const char *where(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *where(reader *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->what, sizeof r->what, fmt, ap);
  va_end(ap);
  return r->what;
}

static bool nomem(reader *r) {
  mp_error(r->f.dx, MP_LOC_NONE, "out of memory reading %s", r->f.name);
  return false;
}

/* Copy a string field.  Names reach terminals, JSON and generated C, so the
 * copy is made printable: it ends at an embedded NUL, and control
 * characters (C0, C1, DEL), the characters that reorder or hide text and
 * bytes that are not valid UTF-8 become '?'. */
static bool copy_string(reader *r, const fb_table *t, uint32_t id, const char **out) {
  const uint8_t *s;
  uint32_t n;
  if (!fb_string(t, id, &s, &n)) return false;
  if (!s) {
    *out = NULL;
    return true;
  }
  char *d = mp_pool_strndup(r->pool, (const char *)s, n);
  if (!d) return nomem(r);
  size_t len = strlen(d);
  for (size_t i = 0; i < len;) {
    bool hidden;
    size_t k = mp_utf8_char((const unsigned char *)d + i, len - i, &hidden);
    if (k == 0) {
      d[i++] = '?';
    } else if (hidden) { /* the whole character becomes one '?' */
      d[i] = '?';
      memmove(d + i + 1, d + i + k, len - i - k + 1);
      len -= k - 1;
      i++;
    } else {
      i += k;
    }
  }
  *out = d;
  return true;
}

static bool copy_i32_vec(reader *r, const fb_table *t, uint32_t id, uint32_t *n,
                         const int32_t **out) {
  fb_vec v;
  if (!fb_vector(t, id, 4, &v)) return false;
  int32_t *a = mp_pool_alloc(r->pool, v.len, sizeof(int32_t));
  if (!a) return nomem(r);
  for (uint32_t i = 0; i < v.len; i++) a[i] = (int32_t)fb_load_u32(r->f.p + v.pos + 4 * i);
  *n = v.len;
  *out = a;
  return true;
}

static bool read_opcodes(reader *r, const fb_table *root) {
  fb_vec v;
  if (!fb_vector(root, F_MODEL_OPCODES, 4, &v)) return false;
  mp_opcode_def *oc = mp_pool_alloc(r->pool, v.len, sizeof *oc);
  if (!oc) return nomem(r);
  for (uint32_t i = 0; i < v.len; i++) {
    fb_table t;
    if (!fb_vec_table(&r->f, &v, i, where(r, "operator_codes[%u]", i), &t)) return false;
    t.fields = OPCODE_FIELDS;
    int8_t dep;
    int32_t code, ver;
    if (!fb_i8(&t, F_OPC_DEPRECATED, 0, &dep) || !fb_i32(&t, F_OPC_BUILTIN, 0, &code) ||
        !fb_i32(&t, F_OPC_VERSION, 1, &ver) || !copy_string(r, &t, F_OPC_CUSTOM, &oc[i].custom_code))
      return false;
    oc[i].deprecated_builtin_code = dep;
    oc[i].builtin_code = code;
    oc[i].resolved_code = code > dep ? code : dep;
    oc[i].version = ver;
    if (oc[i].resolved_code < 0) {
      fb_fail(&r->f, t.pos, "operator_codes[%u]: negative builtin code %d", i, oc[i].resolved_code);
      return false;
    }
  }
  r->m->n_opcodes = v.len;
  r->m->opcodes = oc;
  return true;
}

static bool read_buffers(reader *r, const fb_table *root) {
  fb_vec v;
  if (!fb_vector(root, F_MODEL_BUFFERS, 4, &v)) return false;
  mp_buffer_def *b = mp_pool_alloc(r->pool, v.len, sizeof *b);
  if (!b) return nomem(r);
  for (uint32_t i = 0; i < v.len; i++) {
    fb_table t;
    if (!fb_vec_table(&r->f, &v, i, where(r, "buffers[%u]", i), &t)) return false;
    t.fields = BUFFER_FIELDS;
    fb_vec data;
    uint64_t off, size;
    if (!fb_vector(&t, F_BUF_DATA, 1, &data) || !fb_u64(&t, F_BUF_OFFSET, 0, &off) ||
        !fb_u64(&t, F_BUF_SIZE, 0, &size))
      return false;
    if (off > 1) {
      /* data stored outside the flatbuffer, relative to the file start */
      if (off > r->f.size || size > r->f.size - off) {
        fb_fail(&r->f, t.pos, "buffers[%u]: external data at offset %llu size %llu lies "
                              "outside the file (%zu bytes)", i, (unsigned long long)off,
                (unsigned long long)size, r->f.size);
        return false;
      }
      b[i].external = true;
      b[i].file_offset = off;
      b[i].size = size;
      b[i].data = size ? r->f.p + off : NULL;
    } else if (data.len > 0) {
      b[i].file_offset = data.pos;
      b[i].size = data.len;
      b[i].data = r->f.p + data.pos;
    }
  }
  r->m->n_buffers = v.len;
  r->m->buffers = b;
  return true;
}

static bool read_quant(reader *r, fb_table *q, mp_tensor_def *td) {
  fb_vec sv, zv;
  q->fields = QUANT_FIELDS;
  int32_t dim;
  if (!fb_vector(q, F_Q_SCALE, 4, &sv) || !fb_vector(q, F_Q_ZERO_POINT, 8, &zv) ||
      !fb_i32(q, F_Q_DIM, 0, &dim))
    return false;
  float *scale = mp_pool_alloc(r->pool, sv.len, sizeof(float));
  int64_t *zp = mp_pool_alloc(r->pool, zv.len, sizeof(int64_t));
  if (!scale || !zp) return nomem(r);
  for (uint32_t i = 0; i < sv.len; i++) {
    uint32_t bits = fb_load_u32(r->f.p + sv.pos + 4 * i);
    memcpy(&scale[i], &bits, 4);
  }
  for (uint32_t i = 0; i < zv.len; i++) zp[i] = (int64_t)fb_load_u64(r->f.p + zv.pos + 8 * i);
  td->has_quant = sv.len > 0 || zv.len > 0;
  td->quant.n_scale = sv.len;
  td->quant.scale = scale;
  td->quant.n_zero_point = zv.len;
  td->quant.zero_point = zp;
  td->quant.quantized_dimension = dim;
  return true;
}

static bool read_tensor(reader *r, uint32_t sg, uint32_t i, const fb_table *t, mp_tensor_def *td) {
  int8_t type;
  uint8_t var;
  td->index = i;
  td->pos = t->pos;
  if (!copy_i32_vec(r, t, F_T_SHAPE, &td->rank, &td->shape) || !fb_i8(t, F_T_TYPE, 0, &type) ||
      !fb_u32(t, F_T_BUFFER, 0, &td->buffer) || !copy_string(r, t, F_T_NAME, &td->name) ||
      !fb_u8(t, F_T_IS_VARIABLE, 0, &var))
    return false;
  if (!td->name) td->name = "";
  td->dtype = type;
  td->is_variable = var != 0;
  if (type < 0 || type >= MP_DTYPE_COUNT) {
    fb_fail(&r->f, t->pos, "subgraphs[%u].tensors[%u] '%s': unknown tensor type %d", sg, i,
            td->name, type);
    return false;
  }
  if (td->rank > MAX_RANK) {
    fb_fail(&r->f, t->pos, "subgraphs[%u].tensors[%u] '%s': rank %u exceeds %u", sg, i,
            td->name, td->rank, MAX_RANK);
    return false;
  }
  if (td->buffer >= r->m->n_buffers && !(td->buffer == 0 && r->m->n_buffers == 0)) {
    fb_fail(&r->f, t->pos, "subgraphs[%u].tensors[%u] '%s': buffer index %u out of range "
                           "(model has %u buffers)", sg, i, td->name, td->buffer,
            r->m->n_buffers);
    return false;
  }
  uint32_t nsig = 0;
  const int32_t *sig = NULL;
  if (!copy_i32_vec(r, t, F_T_SHAPE_SIGNATURE, &nsig, &sig)) return false;
  if (nsig > 0) {
    if (nsig != td->rank) {
      fb_fail(&r->f, t->pos, "subgraphs[%u].tensors[%u] '%s': shape_signature has %u entries "
                             "but shape has %u", sg, i, td->name, nsig, td->rank);
      return false;
    }
    td->has_shape_signature = true;
    td->shape_signature = sig;
  }
  fb_table q;
  bool present;
  if (!fb_subtable(t, F_T_QUANT, where(r, "subgraphs[%u].tensors[%u].quantization", sg, i), &q,
                   &present))
    return false;
  if (present && !read_quant(r, &q, td)) return false;
  uint32_t sp;
  if (!fb_ref(t, F_T_SPARSITY, &sp, &present)) return false;
  td->is_sparse = present;
  return true;
}

static bool check_indices(reader *r, uint32_t at, const char *what, const int32_t *idx,
                          uint32_t n, uint32_t n_tensors, bool allow_optional) {
  for (uint32_t k = 0; k < n; k++) {
    if (idx[k] == -1 && allow_optional) continue;
    if (idx[k] < 0 || (uint32_t)idx[k] >= n_tensors) {
      fb_fail(&r->f, at, "%s[%u]: tensor index %d out of range (subgraph has %u tensors)", what,
              k, idx[k], n_tensors);
      return false;
    }
  }
  return true;
}

static bool read_operator(reader *r, uint32_t sg, uint32_t i, const fb_table *t,
                          uint32_t n_tensors, mp_op_def *od) {
  od->index = i;
  if (!fb_u32(t, F_OP_OPCODE, 0, &od->opcode_index) ||
      !copy_i32_vec(r, t, F_OP_INPUTS, &od->n_inputs, &od->inputs) ||
      !copy_i32_vec(r, t, F_OP_OUTPUTS, &od->n_outputs, &od->outputs) ||
      !copy_i32_vec(r, t, F_OP_INTERMEDIATES, &od->n_intermediates, &od->intermediates) ||
      !fb_u8(t, F_OP_OPTIONS_TYPE, 0, &od->builtin_options_type) ||
      !fb_u8(t, F_OP_OPTIONS2_TYPE, 0, &od->builtin_options_2_type))
    return false;
  if (od->opcode_index >= r->m->n_opcodes) {
    fb_fail(&r->f, t->pos, "subgraphs[%u].operators[%u]: opcode_index %u out of range (model has "
                           "%u operator codes)", sg, i, od->opcode_index, r->m->n_opcodes);
    return false;
  }
  const mp_opcode_def *oc = &r->m->opcodes[od->opcode_index];
  od->builtin_code = oc->resolved_code;
  od->custom_code = oc->custom_code;
  char what[96];
  snprintf(what, sizeof what, "subgraphs[%u].operators[%u].inputs", sg, i);
  if (!check_indices(r, t->pos, what, od->inputs, od->n_inputs, n_tensors, true)) return false;
  snprintf(what, sizeof what, "subgraphs[%u].operators[%u].outputs", sg, i);
  if (!check_indices(r, t->pos, what, od->outputs, od->n_outputs, n_tensors, true)) return false;
  snprintf(what, sizeof what, "subgraphs[%u].operators[%u].intermediates", sg, i);
  if (!check_indices(r, t->pos, what, od->intermediates, od->n_intermediates, n_tensors, true))
    return false;
  /* Builtin options: validate the table now, keep its position for later. */
  fb_table opt;
  bool present;
  if (!fb_subtable(t, F_OP_OPTIONS, where(r, "subgraphs[%u].operators[%u].builtin_options", sg, i),
                   &opt, &present))
    return false;
  od->builtin_options_pos = present ? opt.pos : 0;
  if (!fb_subtable(t, F_OP_OPTIONS2,
                   where(r, "subgraphs[%u].operators[%u].builtin_options_2", sg, i), &opt, &present))
    return false;
  od->builtin_options_2_pos = present ? opt.pos : 0;
  fb_vec cv;
  if (!fb_vector(t, F_OP_CUSTOM_OPTIONS, 1, &cv)) return false;
  od->custom_options_size = cv.len;
  od->custom_options = cv.len ? r->f.p + cv.pos : NULL;
  return true;
}

static bool read_subgraph(reader *r, uint32_t sg, const fb_table *t, mp_subgraph_def *s) {
  if (!copy_string(r, t, F_SG_NAME, &s->name)) return false;
  if (!s->name) s->name = "";
  fb_vec tv, ov;
  if (!fb_vector(t, F_SG_TENSORS, 4, &tv) || !fb_vector(t, F_SG_OPERATORS, 4, &ov)) return false;
  mp_tensor_def *tensors = mp_pool_alloc(r->pool, tv.len, sizeof *tensors);
  mp_op_def *ops = mp_pool_alloc(r->pool, ov.len, sizeof *ops);
  if (!tensors || !ops) return nomem(r);
  for (uint32_t i = 0; i < tv.len; i++) {
    fb_table tt;
    if (!fb_vec_table(&r->f, &tv, i, where(r, "subgraphs[%u].tensors[%u]", sg, i), &tt))
      return false;
    tt.fields = TENSOR_FIELDS;
    if (!read_tensor(r, sg, i, &tt, &tensors[i])) return false;
  }
  for (uint32_t i = 0; i < ov.len; i++) {
    fb_table ot;
    if (!fb_vec_table(&r->f, &ov, i, where(r, "subgraphs[%u].operators[%u]", sg, i), &ot))
      return false;
    ot.fields = OPERATOR_FIELDS;
    if (!read_operator(r, sg, i, &ot, tv.len, &ops[i])) return false;
  }
  if (!copy_i32_vec(r, t, F_SG_INPUTS, &s->n_inputs, &s->inputs) ||
      !copy_i32_vec(r, t, F_SG_OUTPUTS, &s->n_outputs, &s->outputs))
    return false;
  char what[64];
  snprintf(what, sizeof what, "subgraphs[%u].inputs", sg);
  if (!check_indices(r, t->pos, what, s->inputs, s->n_inputs, tv.len, false)) return false;
  snprintf(what, sizeof what, "subgraphs[%u].outputs", sg);
  if (!check_indices(r, t->pos, what, s->outputs, s->n_outputs, tv.len, false)) return false;
  s->n_tensors = tv.len;
  s->tensors = tensors;
  s->n_ops = ov.len;
  s->ops = ops;
  return true;
}

static bool read_model(reader *r) {
  fb_table root;
  if (!fb_root(&r->f, "TFL3", &root)) return false;
  root.fields = MODEL_FIELDS;
  mp_model *m = r->m;
  if (!fb_u32(&root, F_MODEL_VERSION, 0, &m->version) ||
      !copy_string(r, &root, F_MODEL_DESCRIPTION, &m->description))
    return false;
  if (!m->description) m->description = "";
  if (m->version != 3) {
    fb_fail(&r->f, root.pos, "unsupported schema version %u (memplan reads version 3)",
            m->version);
    return false;
  }
  if (!read_opcodes(r, &root) || !read_buffers(r, &root)) return false;
  fb_vec sv;
  if (!fb_vector(&root, F_MODEL_SUBGRAPHS, 4, &sv)) return false;
  if (sv.len == 0) {
    fb_fail(&r->f, root.pos, "model has no subgraphs");
    return false;
  }
  mp_subgraph_def *sgs = mp_pool_alloc(r->pool, sv.len, sizeof *sgs);
  if (!sgs) return nomem(r);
  for (uint32_t i = 0; i < sv.len; i++) {
    fb_table st;
    if (!fb_vec_table(&r->f, &sv, i, where(r, "subgraphs[%u]", i), &st)) return false;
    st.fields = SUBGRAPH_FIELDS;
    if (!read_subgraph(r, i, &st, &sgs[i])) return false;
  }
  m->n_subgraphs = sv.len;
  m->subgraphs = sgs;
  fb_vec mv;
  if (!fb_vector(&root, F_MODEL_METADATA, 4, &mv)) return false;
  mp_metadata_def *md = mp_pool_alloc(r->pool, mv.len, sizeof *md);
  if (!md) return nomem(r);
  for (uint32_t i = 0; i < mv.len; i++) {
    fb_table mt;
    if (!fb_vec_table(&r->f, &mv, i, where(r, "metadata[%u]", i), &mt)) return false;
    mt.fields = METADATA_FIELDS;
    if (!copy_string(r, &mt, F_MD_NAME, &md[i].name) || !fb_u32(&mt, F_MD_BUFFER, 0, &md[i].buffer))
      return false;
    if (!md[i].name) md[i].name = "";
    if (md[i].buffer >= m->n_buffers) {
      fb_fail(&r->f, mt.pos, "metadata[%u] '%s': buffer index %u out of range (model has %u "
                             "buffers)", i, md[i].name, md[i].buffer, m->n_buffers);
      return false;
    }
  }
  m->n_metadata = mv.len;
  m->metadata = md;
  return true;
}

/* Parse `copy` (`size` bytes, malloc'd), which the model takes over; freed
 * on failure. */
static mp_status parse_owned(uint8_t *copy, size_t size, const char *name, const mp_diag_sink *dx,
                             mp_model **out) {
  mp_pool *pool = mp_pool_new();
  mp_model *m = pool ? mp_pool_alloc(pool, 1, sizeof *m) : NULL;
  char *path = pool ? mp_pool_strdup(pool, name ? name : "<memory>") : NULL;
  if (!m || !path) {
    free(copy);
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  m->bytes = copy;
  m->size = size;
  m->path = path;
  m->pool = pool;
  reader r;
  memset(&r, 0, sizeof r);
  fb_init(&r.f, copy, size, path, dx);
  r.pool = pool;
  r.m = m;
  if (!read_model(&r) || !mp_model_validate(m, dx)) {
    free(copy);
    mp_pool_free(&pool);
    return MP_ERR_MODEL;
  }
  *out = m;
  return MP_OK;
}

static mp_status too_large(const char *name, uint64_t size, const mp_diag_sink *dx) {
  mp_error(dx, (mp_loc){name, 0, 0, -1, NULL, NULL},
           "model is %llu bytes; models of more than %llu bytes (4 GiB - 1) are not supported",
           (unsigned long long)size, (unsigned long long)MP_MODEL_MAX_BYTES);
  return MP_ERR_UNSUPPORTED;
}

mp_status mp_model_parse(const uint8_t *bytes, size_t size, const char *name,
                         const mp_diag_sink *dx, mp_model **out) {
  *out = NULL;
  if ((uint64_t)size > MP_MODEL_MAX_BYTES) return too_large(name, size, dx);
  /* The file gets an allocation of its own, of exactly its size, so that
   * a sanitizer sees any read past its end (a pool block would hide it). */
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return MP_ERR_NOMEM;
  if (size) memcpy(copy, bytes, size);
  return parse_owned(copy, size, name, dx, out);
}

/* Read up to n bytes; the count read (short only at the end or on error). */
static size_t read_fully(int fd, uint8_t *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = read(fd, buf + got, n - got > (1u << 30) ? (1u << 30) : n - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  return got;
}

mp_status mp_model_load(const char *path, const mp_diag_sink *dx, mp_model **out) {
  *out = NULL;
  /* O_NONBLOCK: a FIFO (or a device) must not be waited on; anything but a
   * regular file is refused before a byte is read */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot open: %s", strerror(errno));
    return MP_ERR_IO;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "not a regular file");
    close(fd);
    return MP_ERR_IO;
  }
  /* the identifier first: a file that is no model fails at byte 4 without
   * being read, whatever its size; then the size, before any allocation */
  uint8_t head[8];
  size_t got = read_fully(fd, head, sizeof head);
  mp_status st = MP_OK;
  if (got == sizeof head && memcmp(head + 4, "TFL3", 4) != 0) {
    st = mp_model_parse(head, got, path, dx, out); /* reports the identifier at byte 4 */
    if (st == MP_OK) mp_model_free(out);
    st = MP_ERR_MODEL;
  } else if ((uint64_t)sb.st_size > MP_MODEL_MAX_BYTES) {
    st = too_large(path, (uint64_t)sb.st_size, dx);
  }
  if (st != MP_OK) {
    close(fd);
    return st;
  }
  /* read once into the model's own allocation: the file's size is the
   * memory it takes */
  size_t size = (size_t)sb.st_size;
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) {
    close(fd);
    return MP_ERR_NOMEM;
  }
  if (got > size) got = size;
  memcpy(buf, head, got);
  got += read_fully(fd, buf + got, size - got);
  close(fd);
  if (got != size) {
    free(buf);
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "read error: the file changed while read");
    return MP_ERR_IO;
  }
  return parse_owned(buf, size, path, dx, out);
}

const char *mp_model_file_name(const mp_model *m) {
  const char *path = m && m->path && *m->path ? m->path : "model";
  const char *s = strrchr(path, '/');
  return s && s[1] ? s + 1 : path;
}

void mp_model_free(mp_model **m) {
  if (!m || !*m) return;
  free((void *)(uintptr_t)(*m)->bytes);
  mp_pool *pool = (*m)->pool;
  mp_pool_free(&pool);
  *m = NULL;
}
