/*
 * storage.c — the graph's storage, below every pass that changes it:
 * tensor lifetimes, the lifetime of each storage root (its aliases
 * merged), op-local tensors, the scratch items a planner places and the
 * tensor-level lower bound.
 *
 * The one idea: the passes (graph.c builds the graph and runs them;
 * rewrite.c, views.c, kernels.c, inplace.c) all stand on these few
 * operations, and this file calls none of them, so the graph stage has no
 * circle.
 *
 * It does not choose memories or offsets (the plan does).
 */
#include "graph/storage.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

void mp_lifetime_add_op(mp_lifetime *lt, int32_t op) {
  if (lt->start_op < 0) {
    lt->start_op = lt->end_op = op;
    return;
  }
  if (op < lt->start_op) lt->start_op = op;
  if (op > lt->end_op) lt->end_op = op;
}

void mp_lifetime_merge(mp_lifetime *lt, const mp_lifetime *other) {
  if (other->start_op < 0) return;
  mp_lifetime_add_op(lt, other->start_op);
  mp_lifetime_add_op(lt, other->end_op);
}

bool mp_lifetime_overlaps(const mp_lifetime *a, const mp_lifetime *b) {
  return a->start_op >= 0 && b->start_op >= 0 && a->start_op <= b->end_op &&
         b->start_op <= a->end_op;
}

void mp_graph_storage(mp_graph *g) {
  /* roots absorb their aliases */
  for (uint32_t i = 0; i < g->n_tensors; i++) g->storage[i] = g->tensors[i].lifetime;
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    int32_t r = g->tensors[i].alias_of;
    if (r >= 0) mp_lifetime_merge(&g->storage[r], &g->tensors[i].lifetime);
  }
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    int32_t r = g->tensors[i].alias_of;
    if (r >= 0) {
      g->storage[i] = g->storage[r];
      g->storage[i].tensor_id = i;
    }
  }
}

mp_status mp_graph_add_local(mp_graph *g, uint32_t op, uint64_t size, uint32_t align,
                             const char *name, uint32_t *id) {
  if (op >= g->n_ops) return MP_ERR_INTERNAL;
  uint32_t n = g->n_tensors;
  mp_tensor *nt = mp_pool_alloc(g->pool, (size_t)n + 1, sizeof(mp_tensor));
  mp_lifetime *ns = mp_pool_alloc(g->pool, (size_t)n + 1, sizeof(mp_lifetime));
  char *nm = mp_pool_strdup(g->pool, name ? name : "");
  if (!nt || !ns || !nm) return MP_ERR_NOMEM;
  memcpy(nt, g->tensors, n * sizeof(mp_tensor));
  memcpy(ns, g->storage, n * sizeof(mp_lifetime));
  mp_tensor *t = &nt[n];
  t->id = n;
  t->name = nm;
  t->dtype = MP_DTYPE_INT8;
  t->size = size;
  t->role = MP_ROLE_SCRATCH;
  t->used = true;
  t->producer = (int32_t)op;
  t->alias_of = -1;
  t->align_hint = align;
  t->local_op = (int32_t)op;
  t->variable = -1;
  t->lifetime = (mp_lifetime){n, (int32_t)op, (int32_t)op};
  ns[n] = t->lifetime;
  g->tensors = nt;
  g->storage = ns;
  g->n_tensors = n + 1;
  *id = n;
  return MP_OK;
}

mp_status mp_graph_add_state(mp_graph *g, uint32_t op, uint64_t size, uint32_t align,
                             const char *name, uint32_t *id) {
  mp_status st = mp_graph_add_local(g, op, size, align, name, id);
  if (st != MP_OK) return st;
  mp_tensor *t = &g->tensors[*id];
  t->role = MP_ROLE_PERSISTENT;
  t->producer = -1;
  /* live for the whole program, as a variable tensor is */
  t->lifetime = (mp_lifetime){*id, 0, g->n_ops ? (int32_t)g->n_ops - 1 : 0};
  g->storage[*id] = t->lifetime;
  return MP_OK;
}

bool mp_graph_needs_slot(const mp_graph *g, uint32_t t) {
  if (t >= g->n_tensors) return false;
  const mp_tensor *x = &g->tensors[t];
  return x->role == MP_ROLE_SCRATCH && x->used && x->alias_of < 0 && x->size > 0 &&
         g->storage[t].start_op >= 0;
}

size_t mp_graph_scratch_items(const mp_graph *g, uint32_t alignment, mp_item *items) {
  size_t n = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    if (!mp_graph_needs_slot(g, t)) continue;
    uint32_t a = alignment > g->tensors[t].align_hint ? alignment : g->tensors[t].align_hint;
    if (a == 0) a = 1;
    items[n++] = (mp_item){mp_align_up(g->tensors[t].size, a), g->storage[t].start_op,
                           g->storage[t].end_op, a, t};
  }
  return n;
}

uint64_t mp_graph_lower_bound(const mp_graph *g, uint32_t alignment) {
  uint32_t n = g->n_ops > 0 ? g->n_ops : 1;
  /* difference array over op indices */
  int64_t *diff = calloc((size_t)n + 1, sizeof(int64_t));
  if (!diff) return 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    if (!mp_graph_needs_slot(g, t)) continue;
    uint32_t a = alignment;
    if (g->tensors[t].align_hint > a) a = g->tensors[t].align_hint;
    uint64_t sz = mp_align_up(g->tensors[t].size, a);
    const mp_lifetime *lt = &g->storage[t];
    diff[lt->start_op] += (int64_t)sz;
    diff[lt->end_op + 1] -= (int64_t)sz;
  }
  int64_t live = 0, best = 0;
  for (uint32_t i = 0; i < n; i++) {
    live += diff[i];
    if (live > best) best = live;
  }
  free(diff);
  return (uint64_t)best;
}

mp_io_quant mp_graph_tensor_quant(const mp_graph *g, uint32_t t) {
  mp_io_quant q = {false, 0.0f, 0};
  if (t >= g->n_model_tensors) return q;
  const mp_tensor_def *td = &g->model->subgraphs[g->subgraph].tensors[t];
  if (!td->has_quant || td->quant.n_scale != 1 || td->quant.n_zero_point > 1) return q;
  float s = td->quant.scale[0];
  int64_t zp = td->quant.n_zero_point ? td->quant.zero_point[0] : 0;
  /* s > 0 and s <= FLT_MAX: rejects NaN, infinities and non-positive scales */
  if (!(s > 0.0f && s <= 3.40282347e38f) || zp < INT32_MIN || zp > INT32_MAX) return q;
  q.quantised = true;
  q.scale = s;
  q.zero_point = (int32_t)zp;
  return q;
}

mp_status mp_graph_clone(const mp_graph *g, mp_graph **out) {
  *out = NULL;
  if (g->patch) return MP_ERR_INTERNAL;
  mp_pool *pool = mp_pool_new();
  if (!pool) return MP_ERR_NOMEM;
  mp_graph *c = mp_pool_alloc(pool, 1, sizeof *c);
  mp_tensor *t = mp_pool_alloc(pool, g->n_tensors, sizeof *t);
  mp_lifetime *s = mp_pool_alloc(pool, g->n_tensors, sizeof *s);
  mp_op *o = mp_pool_alloc(pool, g->n_ops, sizeof *o);
  mp_overlap *v = mp_pool_alloc(pool, g->n_overlaps, sizeof *v);
  if (!c || !t || !s || !o || !v) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  *c = *g;
  if (g->n_tensors) {
    memcpy(t, g->tensors, g->n_tensors * sizeof *t);
    memcpy(s, g->storage, g->n_tensors * sizeof *s);
  }
  if (g->n_ops) memcpy(o, g->ops, g->n_ops * sizeof *o);
  if (g->n_overlaps) memcpy(v, g->overlaps, g->n_overlaps * sizeof *v);
  c->tensors = t;
  c->storage = s;
  c->ops = o;
  c->overlaps = v;
  c->pool = pool;
  *out = c;
  return MP_OK;
}

void mp_graph_free(mp_graph **g) {
  if (!g || !*g) return;
  mp_pool *pool = (*g)->pool;
  mp_pool_free(&pool);
  *g = NULL;
}
