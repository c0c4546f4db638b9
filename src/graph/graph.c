/*
 * graph.c — from a model's subgraph to what the planner needs: every tensor's
 * role, byte size and lifetime, and which view outputs alias their inputs.
 *
 * Lifetimes (README, "Lifetimes, aliases and roles"): operators are
 * numbered in execution order and a tensor is live over the inclusive
 * interval from its first to its last touch: its producer (or op 0 for a
 * subgraph input) to its last reader (or the last op for a subgraph
 * output); an op's intermediates live over that op alone.  Building the
 * interval with TensorLifetime.add_op over every op that touches the tensor
 * gives exactly that, and stays safe on odd graphs (a tensor read before it
 * is written just lives longer).
 *
 * The operators run in the model's order unless mp_graph_options.order
 * gives another (memory.op_order, order.c): then g->ops is in that order,
 * every lifetime, alias and fold is computed on it, and each op keeps its
 * model index in model_index.
 *
 * Aliasing: the output of a view op (RESHAPE, SQUEEZE, EXPAND_DIMS, BITCAST)
 * has the same bytes as its data input, so when both are scratch tensors of
 * equal size the output becomes an alias of the input's root: one slot, the
 * lifetimes merged with TensorLifetime.merge, and the op a no-op at run time.
 * Chains of views collapse onto one root.  With sub_views (memory.in_place)
 * views.c adds views at a byte offset of their root (alias_offset).
 *
 * mp_graph_build runs on the graph it builds the resource variables
 * (resources.c), constant folding (fold.c) and the passes its options ask
 * for (rewrite.c's PAD folds, views.c's sub-tensor views); the storage
 * operations every pass shares are storage.c's, below them all.
 *
 * This file does not choose memories or offsets (plan.c does) and does not
 * read operator options.
 */
#include "util/diag.h"
#include "graph/rewrite.h"
#include "graph/storage.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static bool is_view_code(int32_t code) {
  switch (code) {
  case 22:  /* RESHAPE */
  case 43:  /* SQUEEZE */
  case 70:  /* EXPAND_DIMS */
  case 159: /* BITCAST */
    return true;
  default:
    return false;
  }
}

/* Largest tensor that needs storage: far beyond any microcontroller's
 * memory, and small enough that sums over every tensor of a model (at most
 * 2^30 of them in a flatbuffer) cannot overflow 64 bits. */
#define MAX_TENSOR_BYTES (UINT64_C(1) << 32)

static mp_loc model_loc(const mp_model *m) { return (mp_loc){m->path, 0, 0, -1, NULL, NULL}; }

/* Byte size of a tensor from its static shape.  For a tensor that `needed`
 * storage, a size that is not static (negative dimension, type without a
 * fixed size) or above MAX_TENSOR_BYTES is an error; an overflowing shape
 * always is. */
static mp_status tensor_size(const mp_model *m, const mp_tensor_def *td, uint64_t *size,
                             const mp_diag_sink *dx, bool needed) {
  uint64_t elems = 1;
  *size = 0;
  for (uint32_t d = 0; d < td->rank; d++) {
    int32_t dim = td->shape[d];
    if (dim < 0) {
      if (!needed) return MP_OK;
      mp_error(dx, model_loc(m), "tensor %u '%s' has dynamic shape (dimension %u is %d); "
                                 "memplan needs static shapes", td->index, td->name, d, dim);
      return MP_ERR_UNSUPPORTED;
    }
    if (dim != 0 && elems > UINT64_MAX / 128 / (uint64_t)dim) {
      mp_error(dx, model_loc(m), "tensor %u '%s': shape is too large", td->index, td->name);
      return MP_ERR_MODEL;
    }
    elems *= (uint64_t)dim;
  }
  uint32_t bits = mp_dtype_bits(td->dtype);
  if (bits == 0) {
    if (!needed || elems == 0) return MP_OK;
    mp_error(dx, model_loc(m), "tensor %u '%s' has type %s, which has no static size: "
                               "not supported", td->index, td->name, mp_dtype_name(td->dtype));
    return MP_ERR_UNSUPPORTED;
  }
  *size = (elems * bits + 7) / 8;
  if (needed && *size > MAX_TENSOR_BYTES) {
    mp_error(dx, model_loc(m), "tensor %u '%s' is %llu bytes; memplan plans tensors of up to "
                               "4 GiB", td->index, td->name, (unsigned long long)*size);
    return MP_ERR_UNSUPPORTED;
  }
  return MP_OK;
}

static mp_status add_touch(mp_graph *g, int32_t t, int32_t op) {
  if (t < 0) return MP_OK; /* optional input left out */
  mp_tensor *x = &g->tensors[t];
  x->used = true;
  mp_lifetime_add_op(&x->lifetime, op);
  return MP_OK;
}

static int32_t find_root(const mp_graph *g, int32_t t) {
  /* alias_of always names a root (set after the root is final), so one
   * step suffices. */
  return g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
}

/* Every tensor's touches: producers, readers, intermediates, the subgraph's
 * inputs and outputs (from the reset state: unused, no producer, never
 * live).  Operators folded away touch nothing.  MP_ERR_MODEL on a tensor
 * written twice or a constant written. */
static mp_status touch_ops(mp_graph *g, const mp_diag_sink *dx) {
  for (uint32_t o = 0; o < g->n_ops; o++) {
    mp_op *op = &g->ops[o];
    if (op->folded_into >= 0 || op->const_folded) continue; /* folded: reads and writes nothing */
    for (uint32_t k = 0; k < op->n_inputs; k++) add_touch(g, op->inputs[k], (int32_t)o);
    for (uint32_t k = 0; k < op->n_intermediates; k++)
      add_touch(g, op->intermediates[k], (int32_t)o);
    for (uint32_t k = 0; k < op->n_outputs; k++) {
      int32_t t = op->outputs[k];
      if (t < 0) continue;
      mp_tensor *x = &g->tensors[t];
      if (x->role == MP_ROLE_CONSTANT) {
        mp_error(dx, model_loc(g->model), "operator %u (%s) writes tensor %d '%s', which is a "
                                       "constant", op->model_index, op->name, t, x->name);
        return MP_ERR_MODEL;
      }
      if (x->producer >= 0 && x->role == MP_ROLE_SCRATCH) {
        mp_error(dx, model_loc(g->model), "tensor %d '%s' is written by operator %d and again by "
                                       "operator %u", t, x->name,
                 (int32_t)g->ops[x->producer].model_index, op->model_index);
        return MP_ERR_MODEL;
      }
      if (x->producer < 0) x->producer = (int32_t)o;
      add_touch(g, t, (int32_t)o);
    }
  }
  int32_t last = g->n_ops > 0 ? (int32_t)g->n_ops - 1 : 0;
  for (uint32_t k = 0; k < g->n_inputs; k++) {
    mp_tensor *x = &g->tensors[g->inputs[k]];
    x->is_input = x->used = true;
    mp_lifetime_add_op(&x->lifetime, 0);
  }
  for (uint32_t k = 0; k < g->n_outputs; k++) {
    mp_tensor *x = &g->tensors[g->outputs[k]];
    x->is_output = x->used = true;
    mp_lifetime_add_op(&x->lifetime, last);
  }

  return MP_OK;
}

mp_status mp_graph_build(const mp_model *model, uint32_t subgraph, const mp_graph_options *opt,
                         const mp_diag_sink *dx, mp_graph **out) {
  *out = NULL;
  if (subgraph >= model->n_subgraphs) {
    mp_error(dx, model_loc(model), "subgraph %u does not exist (model has %u subgraph%s)",
             subgraph, model->n_subgraphs, model->n_subgraphs == 1 ? "" : "s");
    return MP_ERR_CONFIG;
  }
  bool alias_views = opt ? opt->alias_views : true;
  const mp_subgraph_def *sg = &model->subgraphs[subgraph];
  const uint32_t *order = opt ? opt->order : NULL;
  mp_pool *pool = mp_pool_new();
  if (!pool) return MP_ERR_NOMEM;
  mp_graph *g = mp_pool_alloc(pool, 1, sizeof *g);
  if (!g) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  g->pool = pool;
  g->model = model;
  g->subgraph = subgraph;
  g->n_model_tensors = g->n_tensors = sg->n_tensors;
  g->n_ops = sg->n_ops;
  g->tensors = mp_pool_alloc(pool, sg->n_tensors, sizeof(mp_tensor));
  g->storage = mp_pool_alloc(pool, sg->n_tensors, sizeof(mp_lifetime));
  g->ops = mp_pool_alloc(pool, sg->n_ops, sizeof(mp_op));
  g->n_inputs = sg->n_inputs;
  g->inputs = sg->inputs;
  g->n_outputs = sg->n_outputs;
  g->outputs = sg->outputs;
  mp_status st = MP_OK;
  if (!g->tensors || !g->storage || !g->ops) {
    st = MP_ERR_NOMEM;
    goto fail;
  }

  for (uint32_t i = 0; i < sg->n_tensors; i++) {
    const mp_tensor_def *td = &sg->tensors[i];
    mp_tensor *t = &g->tensors[i];
    t->id = i;
    t->name = td->name;
    t->dtype = td->dtype;
    t->rank = td->rank;
    t->shape = td->shape;
    t->producer = -1;
    t->alias_of = -1;
    t->local_op = -1;
    t->variable = -1;
    t->lifetime = (mp_lifetime){i, -1, -1};
    const mp_buffer_def *b = td->buffer < model->n_buffers ? &model->buffers[td->buffer] : NULL;
    if (td->is_variable) {
      t->role = MP_ROLE_PERSISTENT;
      /* TFLM resets a variable by memsetting it with its zero point when
       * it is int8 (an LSTM's hidden state with zero point -4 starts as -4
       * bytes, its real value 0), with 0 otherwise */
      if (td->dtype == MP_DTYPE_INT8 && td->has_quant && td->quant.n_zero_point > 0)
        t->state_init_byte = (uint8_t)(int8_t)td->quant.zero_point[0];
    } else if (b && b->size > 0) {
      t->role = MP_ROLE_CONSTANT;
      t->data = b->data;
    } else {
      t->role = MP_ROLE_SCRATCH;
    }
  }

  /* The run order: the model's, or opt->order (a permutation of it). */
  if (order) {
    uint8_t *seen = mp_pool_alloc(pool, sg->n_ops ? sg->n_ops : 1, 1);
    if (!seen) {
      st = MP_ERR_NOMEM;
      goto fail;
    }
    for (uint32_t o = 0; o < sg->n_ops; o++) {
      if (order[o] >= sg->n_ops || seen[order[o]]) {
        mp_error(dx, model_loc(model), "the operator order given is not a permutation of the "
                                       "subgraph's %u operators", sg->n_ops);
        st = MP_ERR_INTERNAL;
        goto fail;
      }
      seen[order[o]] = 1;
      if (order[o] != o) g->reordered = true;
    }
  }

  /* Touches: producers, readers, intermediates. */
  for (uint32_t o = 0; o < sg->n_ops; o++) {
    const mp_op_def *od = &sg->ops[order ? order[o] : o];
    mp_op *op = &g->ops[o];
    op->index = o;
    op->model_index = order ? order[o] : o;
    op->def = od;
    op->builtin_code = od->builtin_code;
    op->name = od->builtin_code == 32 && od->custom_code ? od->custom_code
                                                         : mp_builtin_name(od->builtin_code);
    op->n_inputs = od->n_inputs;
    op->inputs = od->inputs;
    op->n_outputs = od->n_outputs;
    op->outputs = od->outputs;
    op->n_intermediates = od->n_intermediates;
    op->intermediates = od->intermediates;
    op->folded_into = op->folded_pad = -1;
  }
  g->fast_kernels = opt && opt->fast_kernels; /* the views read it */
  if (opt && opt->fold_pads && (st = mp_graph_fold_pads(g)) != MP_OK) goto fail;
  if ((st = touch_ops(g, dx)) != MP_OK) goto fail;

  /* Resource variables: each handle's storage is its variable's
   * (resources.c), which gives the first handle its type, shape and size. */
  if ((st = mp_graph_resources(g, dx)) != MP_OK) goto fail;

  /* Sizes: only tensors that need storage must have a static one. */
  for (uint32_t i = 0; i < sg->n_tensors; i++) {
    mp_tensor *t = &g->tensors[i];
    if (t->variable >= 0) continue; /* a handle: sized by resources.c */
    bool needed = t->used && t->role != MP_ROLE_CONSTANT;
    st = tensor_size(model, &sg->tensors[i], &t->size, dx, needed);
    if (st != MP_OK) goto fail;
    if (t->role == MP_ROLE_CONSTANT) {
      /* a constant's storage is its buffer, whatever its shape says */
      t->size = model->buffers[sg->tensors[i].buffer].size;
    }
  }

  /* Constant folding (fold.c): then the touches again, without the folded
   * operators, whose outputs are now constants. */
  bool folded = false;
  if ((st = mp_graph_fold_constants(g, &folded)) != MP_OK) goto fail;
  if (folded) {
    for (uint32_t i = 0; i < sg->n_tensors; i++) {
      mp_tensor *t = &g->tensors[i];
      t->used = t->is_input = t->is_output = false;
      t->producer = -1;
      t->lifetime = (mp_lifetime){i, -1, -1};
    }
    if ((st = touch_ops(g, dx)) != MP_OK) goto fail;
  }

  /* View aliasing, in op order so chains resolve to the first root. */
  for (uint32_t o = 0; alias_views && o < sg->n_ops; o++) {
    mp_op *op = &g->ops[o];
    if (!is_view_code(op->builtin_code) || op->n_inputs < 1 || op->n_outputs != 1) continue;
    int32_t in = op->inputs[0], outt = op->outputs[0];
    if (in < 0 || outt < 0 || in == outt) continue;
    mp_tensor *ti = &g->tensors[in], *to = &g->tensors[outt];
    if (ti->role != MP_ROLE_SCRATCH || to->role != MP_ROLE_SCRATCH) continue;
    if (ti->size != to->size || to->alias_of >= 0) continue;
    to->alias_of = find_root(g, in);
    op->is_view = true;
  }
  /* sub-tensor views and elided concatenations (views.c) */
  if (alias_views && opt && opt->sub_views &&
      (st = mp_graph_views(g, true, !opt->caller_io)) != MP_OK)
    goto fail;

  mp_graph_storage(g);
  /* set last: the views' choice records contracts without it */
  g->serial_depthwise = opt && opt->serial_depthwise;
  *out = g;
  return MP_OK;

fail:
  mp_pool_free(&pool);
  return st;
}
