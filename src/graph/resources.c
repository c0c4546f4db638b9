/*
 * resources.c — resource variables (VAR_HANDLE, READ_VARIABLE,
 * ASSIGN_VARIABLE) and the init subgraph a CALL_ONCE runs, resolved at
 * convert time into persistent tensors.
 *
 * The one idea: a variable is named by its VAR_HANDLE's (container,
 * shared_name), as TensorFlow Lite Micro's resource table names it, and it
 * has one type and shape for the whole program, those of the value that
 * first assigns it in TFLM's prepare order (the subgraphs in index order,
 * each in operator order).  So the first handle of each variable in the
 * planned subgraph becomes a persistent tensor of that type and shape,
 * planned like an LSTM's state; every other handle of it points there
 * (mp_tensor.variable) and has no storage; READ_VARIABLE and
 * ASSIGN_VARIABLE lower to copies from and to it (src/lower/variable.c).
 *
 * The start value is TFLM's: every byte the first assigned value's zero
 * point (0 when it has no quantisation), then what the CALL_ONCE init
 * subgraph assigns, which must be constants (a VAR_HANDLE / ASSIGN_VARIABLE
 * list, as converters write it): the constant becomes the variable's
 * state_init, which the emitted module copies in at model_init and at
 * every reset_state.  An init subgraph that computes, a CALL_ONCE after a
 * use of a variable, or a variable nothing assigns is recorded as the
 * operator's refusal (mp_op.refusal) or left without storage, and the
 * lowering reports it; nothing here fails a model TFLM would run.
 *
 * It does not evaluate operators (no constant folding here) and does not
 * emit anything.
 */
#include "graph/rewrite.h"
#include "read/flatbuf.h"
#include "read/opcodes.h"
#include "util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct var {
  const uint8_t *container; /* NULL: none given (matches any, as in TFLM) */
  uint32_t container_len;
  const uint8_t *name;
  uint32_t name_len;
  int32_t tensor;              /* its first handle in g, -1 when g has none */
  const mp_tensor_def *value;  /* the value that first assigns it */
  const uint8_t *init;         /* what the init subgraph assigns */
  uint64_t init_size;
} var;

typedef struct rctx {
  mp_graph *g;
  const mp_model *m;
  const mp_diag_sink *dx;
  var *vars;
  uint32_t n_vars, cap_vars;
} rctx;

/* The (container, shared_name) of VAR_HANDLE `od`; false when its options
 * do not validate. */
static bool handle_name(rctx *c, const mp_op_def *od, var *out) {
  memset(out, 0, sizeof *out);
  out->tensor = -1;
  if (od->builtin_options_pos == 0) return true; /* no options: the empty name */
  fb_file f;
  fb_table t;
  fb_init(&f, c->m->bytes, c->m->size, c->m->path, c->dx);
  if (!fb_table_at(&f, od->builtin_options_pos, "VarHandleOptions", &t)) return false;
  const uint8_t *s;
  uint32_t len;
  if (fb_string(&t, 0, &s, &len) && s) {
    out->container = s;
    out->container_len = len;
  }
  if (fb_string(&t, 1, &s, &len) && s) {
    out->name = s;
    out->name_len = len;
  }
  return true;
}

static bool same_bytes(const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb) {
  return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* The variable VAR_HANDLE `od` names, made when new; -1 on a bad table or
 * no memory. */
static int32_t find_var(rctx *c, const mp_op_def *od) {
  var v;
  if (!handle_name(c, od, &v)) return -1;
  for (uint32_t i = 0; i < c->n_vars; i++) {
    var *w = &c->vars[i];
    bool cont = !v.container || !w->container ||
                same_bytes(v.container, v.container_len, w->container, w->container_len);
    if (cont && same_bytes(v.name, v.name_len, w->name, w->name_len)) return (int32_t)i;
  }
  if (c->n_vars == c->cap_vars) {
    uint32_t cap = c->cap_vars ? 2 * c->cap_vars : 8;
    var *nv = mp_pool_alloc(c->g->pool, cap, sizeof *nv);
    if (!nv) return -1;
    if (c->n_vars) memcpy(nv, c->vars, c->n_vars * sizeof *nv);
    c->vars = nv;
    c->cap_vars = cap;
  }
  c->vars[c->n_vars] = v;
  return (int32_t)c->n_vars++;
}

/* The variable each handle tensor of subgraph s names (-1 for any other
 * tensor), in vmap (sg->n_tensors entries). */
static mp_status map_handles(rctx *c, uint32_t s, int32_t *vmap) {
  const mp_subgraph_def *sg = &c->m->subgraphs[s];
  for (uint32_t i = 0; i < sg->n_tensors; i++) vmap[i] = -1;
  for (uint32_t o = 0; o < sg->n_ops; o++) {
    const mp_op_def *od = &sg->ops[o];
    if (od->builtin_code != OP_VAR_HANDLE || od->n_outputs < 1 || od->outputs[0] < 0) continue;
    int32_t v = find_var(c, od);
    if (v < 0) return MP_ERR_NOMEM;
    vmap[od->outputs[0]] = v;
  }
  return MP_OK;
}

static bool is_resource_op(int32_t code) {
  return code == OP_VAR_HANDLE || code == OP_READ_VARIABLE || code == OP_ASSIGN_VARIABLE ||
         code == OP_CALL_ONCE;
}

static const char *pfmt(rctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *pfmt(rctx *c, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  const char *s = mp_pool_strdup(c->g->pool, buf);
  return s ? s : "out of memory";
}

/* Run the init subgraph of CALL_ONCE op `o` at convert time: its
 * ASSIGN_VARIABLEs of constants become the variables' start values. */
static mp_status run_init(rctx *c, uint32_t o, int32_t *vmap_scratch) {
  mp_op *op = &c->g->ops[o];
  int32_t sub = 0;
  if (op->def->builtin_options_pos) {
    fb_file f;
    fb_table t;
    fb_init(&f, c->m->bytes, c->m->size, c->m->path, c->dx);
    if (!fb_table_at(&f, op->def->builtin_options_pos, "CallOnceOptions", &t) ||
        !fb_i32(&t, 0, 0, &sub)) {
      op->refusal = "its CallOnceOptions table does not validate";
      return MP_OK;
    }
  }
  if (sub < 0 || (uint32_t)sub >= c->m->n_subgraphs || (uint32_t)sub == c->g->subgraph) {
    op->refusal = pfmt(c, "its init subgraph %d is not a subgraph of the model (it has %u)", sub,
                       c->m->n_subgraphs);
    return MP_OK;
  }
  const mp_subgraph_def *sg = &c->m->subgraphs[sub];
  mp_status st = map_handles(c, (uint32_t)sub, vmap_scratch);
  if (st != MP_OK) return st;
  for (uint32_t k = 0; k < sg->n_ops; k++) {
    const mp_op_def *od = &sg->ops[k];
    if (od->builtin_code == OP_VAR_HANDLE) continue;
    if (od->builtin_code != OP_ASSIGN_VARIABLE || od->n_inputs < 2 || od->inputs[0] < 0 ||
        od->inputs[1] < 0) {
      op->refusal = pfmt(c, "its init subgraph %d computes (operator %u is %s); memplan runs "
                            "init subgraphs that assign constants", sub, k,
                         od->builtin_code == OP_CUSTOM && od->custom_code
                             ? od->custom_code
                             : mp_builtin_name(od->builtin_code));
      return MP_OK;
    }
    const mp_tensor_def *val = &sg->tensors[od->inputs[1]];
    const mp_buffer_def *b = val->buffer < c->m->n_buffers ? &c->m->buffers[val->buffer] : NULL;
    int32_t v = vmap_scratch[od->inputs[0]];
    if (!b || b->size == 0 || v < 0) {
      op->refusal = pfmt(c, "its init subgraph %d assigns a value that is not a constant "
                            "(operator %u)", sub, k);
      return MP_OK;
    }
    var *w = &c->vars[v];
    if (w->tensor < 0) continue; /* a variable this subgraph never uses */
    const mp_tensor *x = &c->g->tensors[w->tensor];
    if (val->dtype != x->dtype || b->size != x->size) {
      op->refusal = pfmt(c, "its init subgraph %d assigns a value of another type or size "
                            "than the variable's (operator %u)", sub, k);
      return MP_OK;
    }
    w->init = b->data;
    w->init_size = b->size;
  }
  return MP_OK;
}

/* Byte size of a dtype and shape; false when it has none. */
static bool value_size(const mp_tensor_def *td, uint64_t *size) {
  uint32_t bits = mp_dtype_bits(td->dtype);
  uint64_t n = 1;
  if (bits == 0) return false;
  for (uint32_t d = 0; d < td->rank; d++) {
    if (td->shape[d] < 0 || td->shape[d] > (1 << 30)) return false;
    n *= (uint64_t)td->shape[d];
    if (n > (UINT64_C(1) << 32)) return false;
  }
  *size = (n * bits + 7) / 8;
  return true;
}

mp_status mp_graph_resources(mp_graph *g, const mp_diag_sink *dx) {
  bool any = false;
  for (uint32_t o = 0; o < g->n_ops; o++) any |= is_resource_op(g->ops[o].builtin_code);
  if (!any) return MP_OK;
  rctx c = {g, g->model, dx, NULL, 0, 0};
  uint32_t most = 1;
  for (uint32_t s = 0; s < c.m->n_subgraphs; s++)
    if (c.m->subgraphs[s].n_tensors > most) most = c.m->subgraphs[s].n_tensors;
  int32_t *vmap = mp_pool_alloc(g->pool, most, sizeof *vmap);
  int32_t *gmap = mp_pool_alloc(g->pool, g->n_model_tensors ? g->n_model_tensors : 1,
                                sizeof *gmap);
  if (!vmap || !gmap) return MP_ERR_NOMEM;

  /* the planned subgraph's handles, in run order: the first is the variable's tensor */
  mp_status st = map_handles(&c, g->subgraph, gmap);
  if (st != MP_OK) return st;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    if (op->builtin_code != OP_VAR_HANDLE || op->n_outputs < 1 || op->outputs[0] < 0) continue;
    int32_t t = op->outputs[0], v = gmap[t];
    if (v < 0) continue;
    if (c.vars[v].tensor < 0) c.vars[v].tensor = t;
    g->tensors[t].variable = c.vars[v].tensor;
  }

  /* each variable's type and shape: the first assignment in prepare order */
  for (uint32_t s = 0; s < c.m->n_subgraphs; s++) {
    const mp_subgraph_def *sg = &c.m->subgraphs[s];
    int32_t *map = s == g->subgraph ? gmap : vmap;
    if (s != g->subgraph && (st = map_handles(&c, s, vmap)) != MP_OK) return st;
    for (uint32_t k = 0; k < sg->n_ops; k++) {
      const mp_op_def *od = &sg->ops[k];
      if (od->builtin_code != OP_ASSIGN_VARIABLE || od->n_inputs < 2 || od->inputs[0] < 0 ||
          od->inputs[1] < 0)
        continue;
      int32_t v = map[od->inputs[0]];
      if (v >= 0 && !c.vars[v].value) c.vars[v].value = &sg->tensors[od->inputs[1]];
    }
  }
  for (uint32_t v = 0; v < c.n_vars; v++) {
    var *w = &c.vars[v];
    uint64_t size;
    if (w->tensor < 0 || !w->value || !value_size(w->value, &size)) continue;
    mp_tensor *x = &g->tensors[w->tensor];
    x->dtype = w->value->dtype;
    x->rank = w->value->rank;
    x->shape = w->value->shape;
    x->size = size;
    x->role = MP_ROLE_PERSISTENT;
    /* TFLM memsets a new variable with its value's (int8) zero point */
    if (w->value->has_quant && w->value->quant.n_zero_point > 0)
      x->state_init_byte = (uint8_t)(int8_t)w->value->quant.zero_point[0];
  }

  /* CALL_ONCE: before every use of a variable, its init subgraph run now */
  bool used = false;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    mp_op *op = &g->ops[o];
    if (op->builtin_code == OP_READ_VARIABLE || op->builtin_code == OP_ASSIGN_VARIABLE)
      used = true;
    if (op->builtin_code != OP_CALL_ONCE) continue;
    if (used) {
      op->refusal = "it runs after a variable is read or assigned; memplan runs the init "
                    "subgraph before the first operator";
      continue;
    }
    if ((st = run_init(&c, o, vmap)) != MP_OK) return st;
  }
  for (uint32_t v = 0; v < c.n_vars; v++)
    if (c.vars[v].tensor >= 0 && c.vars[v].init)
      g->tensors[c.vars[v].tensor].state_init = c.vars[v].init;
  return MP_OK;
}
