/*
 * kernels.c — readying a graph for the kernels: every operator lowered
 * (lower/), its op-local scratch added to the graph as a tensor live over
 * that one operator, the kernels' overlap contracts recorded for
 * memory.in_place, and the depthwise convolutions that run channel by
 * channel chosen.
 *
 * The one idea: the lowering is a pure function of the operator; this
 * pass is where its answers change the graph.  A depthwise convolution is
 * switched to its channel-serial kernel only when that lowers the in-place
 * bound (inplace.c), so the choice is measured, not guessed.
 *
 * It does not place anything (the planner does) or write modules.
 */
#include "lower/lower.h"

#include "util/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Forwards diagnostics with errors turned into warnings. */
static void as_warning(void *user, const mp_diag *d) {
  const mp_diag_sink *dx = user; /* a copy of the caller's sink */
  if (!dx || !dx->fn) return;
  mp_diag w = *d;
  if (w.severity == MP_SEV_ERROR) w.severity = MP_SEV_WARNING;
  dx->fn(dx->user, &w);
}

/* The storage root of tensor t. */
static int32_t root_of(const mp_graph *g, int32_t t) {
  return g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
}

/* Append operator i's contracts to v[0 .. *n) (capacity *cap).  A tensor
 * the kernel reads through several arguments (ADD(x, x)) keeps a contract
 * only when every one of those arguments has one with that output, with
 * the largest of their gaps.  An operator that does not lower has none. */
static mp_status op_overlaps(const mp_graph *g, uint32_t i, mp_overlap **v, size_t *n,
                             size_t *cap) {
  mp_lowered_op lo;
  mp_status st = mp_lower_op(g, i, &lo, NULL);
  if (st != MP_OK) return st == MP_ERR_NOMEM ? st : MP_OK;
  for (uint32_t k = 0; k < lo.n_overlaps; k++) {
    const mp_lower_overlap *ov = &lo.overlaps[k];
    int32_t in = lo.args[ov->in_arg].tensor, out = lo.args[ov->out_arg].tensor;
    if (in < 0 || out < 0 || root_of(g, in) == root_of(g, out)) continue;
    int64_t gap = ov->gap, period = ov->period;
    bool ok = true, first = true;
    for (uint32_t a = 0; a < lo.n_args && ok; a++) {
      const mp_lower_arg *arg = &lo.args[a];
      if (arg->kind != MP_LARG_TENSOR || arg->is_output || arg->tensor < 0 ||
          root_of(g, arg->tensor) != root_of(g, in))
        continue;
      bool found = false;
      for (uint32_t q = 0; q < lo.n_overlaps; q++)
        if (lo.overlaps[q].in_arg == a && lo.overlaps[q].out_arg == ov->out_arg) {
          found = true;
          if (lo.overlaps[q].gap > gap) gap = lo.overlaps[q].gap;
          period = mp_lcm64(period, lo.overlaps[q].period);
          if (q < k) first = false; /* recorded with an earlier argument */
        }
      ok = found;
    }
    if (!ok || !first) continue;
    if (*n == *cap) {
      size_t c = *cap ? 2 * *cap : 16;
      mp_overlap *nv = realloc(*v, c * sizeof *nv);
      if (!nv) {
        st = MP_ERR_NOMEM;
        break;
      }
      *v = nv;
      *cap = c;
    }
    (*v)[(*n)++] = (mp_overlap){i, (uint32_t)in, (uint32_t)out, gap, period};
  }
  mp_lower_free(&lo);
  return st;
}

/* g->overlaps := v[0 .. n), in g's pool. */
static mp_status set_overlaps(mp_graph *g, const mp_overlap *v, size_t n) {
  mp_overlap *o = mp_pool_alloc(g->pool, n ? n : 1, sizeof *o);
  if (!o) return MP_ERR_NOMEM;
  if (n) memcpy(o, v, n * sizeof *v);
  g->overlaps = o;
  g->n_overlaps = (uint32_t)n;
  return MP_OK;
}

/* g->overlaps from every supported operator's contracts, in operator
 * order. */
static mp_status record_overlaps(mp_graph *g) {
  size_t cap = 0, n = 0;
  mp_overlap *v = NULL;
  mp_status st = MP_OK;
  for (uint32_t i = 0; i < g->n_ops && st == MP_OK; i++) st = op_overlaps(g, i, &v, &n, &cap);
  if (st == MP_OK) st = set_overlaps(g, v, n);
  free(v);
  return st;
}

/* record_overlaps after a change to operator i alone (its kernel, its
 * op-local scratch): an operator's contracts depend on nothing but its own
 * lowering, so the other operators' stay as they are and op i's are
 * lowered again in their place (the list is in operator order). */
static mp_status rerecord_op(mp_graph *g, uint32_t i) {
  uint32_t a = 0, b;
  for (uint32_t k = 1; k < g->n_overlaps; k++)
    if (g->overlaps[k].op < g->overlaps[k - 1].op) return record_overlaps(g); /* not in order */
  while (a < g->n_overlaps && g->overlaps[a].op < i) a++;
  for (b = a; b < g->n_overlaps && g->overlaps[b].op == i;) b++;
  size_t cap = (size_t)g->n_overlaps + 16, n = a;
  mp_overlap *v = malloc(cap * sizeof *v);
  if (!v) return MP_ERR_NOMEM;
  if (a) memcpy(v, g->overlaps, a * sizeof *v);
  mp_status st = op_overlaps(g, i, &v, &n, &cap);
  size_t rest = g->n_overlaps - b;
  if (st == MP_OK && n + rest > cap) {
    mp_overlap *nv = realloc(v, (n + rest) * sizeof *nv);
    if (nv) v = nv;
    else st = MP_ERR_NOMEM;
  }
  if (st == MP_OK) {
    if (rest) memcpy(v + n, g->overlaps + b, rest * sizeof *v);
    st = set_overlaps(g, v, n + rest);
  }
  free(v);
  return st;
}

static mp_status choose_serial(mp_graph *g);

mp_status mp_kernels_overlaps(mp_graph *g) {
  mp_status st = record_overlaps(g);
  return st == MP_OK ? choose_serial(g) : st;
}

/* The op-local scratch tensor of op i, or -1. */
static int32_t local_of(const mp_graph *g, uint32_t i) {
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
    if (g->tensors[t].local_op == (int32_t)i && g->tensors[t].role == MP_ROLE_SCRATCH)
      return (int32_t)t;
  return -1;
}

/* mp_graph_options.serial_depthwise: run a depthwise convolution channel
 * by channel where that lowers the in-place bound.  Its contract lets the
 * output lie exactly on its input (or a whole number of pixels above or
 * below), where the reference kernel's puts it rows below, at the cost of
 * a one-channel temporary and a slower, strided write; so each candidate,
 * in operator order, is switched and kept only when the bound (at 16-byte
 * alignment) falls. */
static mp_status choose_serial(mp_graph *g) {
  g->n_serial_ops = 0;
  if (!g->serial_depthwise || g->n_overlaps == 0) return MP_OK;
  uint64_t bound = mp_graph_inplace_bound(g, 16);
  g->serial_bound_before = g->serial_bound = bound;
  for (uint32_t i = 0; i < g->n_ops; i++) {
    if (!mp_lower_serial_candidate(g, i)) continue;
    mp_op *op = &g->ops[i];
    op->channel_serial = true;
    mp_lowered_op lo;
    mp_status st = mp_lower_op(g, i, &lo, NULL);
    uint64_t bytes = lo.scratch_bytes;
    uint32_t align = lo.scratch_align ? lo.scratch_align : 1;
    bool serial = st == MP_OK && lo.supported && lo.fn && strstr(lo.fn, "_serial");
    mp_lower_free(&lo);
    if (st == MP_ERR_NOMEM) return st;
    if (!serial) {
      op->channel_serial = false;
      continue;
    }
    /* its temporary: the local it had (a specialised kernel's), resized,
     * or a new one */
    int32_t t = local_of(g, i);
    uint64_t old_size = t >= 0 ? g->tensors[t].size : 0;
    uint32_t old_align = t >= 0 ? g->tensors[t].align_hint : 0;
    bool added = t < 0;
    if (added) {
      char name[48];
      uint32_t id;
      snprintf(name, sizeof name, "op%u_scratch", i);
      if ((st = mp_graph_add_local(g, i, bytes, align, name, &id)) != MP_OK) return st;
      t = (int32_t)id;
    } else {
      g->tensors[t].size = bytes;
      g->tensors[t].align_hint = align;
    }
    if ((st = rerecord_op(g, i)) != MP_OK) return st;
    uint64_t b = mp_graph_inplace_bound(g, 16);
    if (b < bound) {
      g->serial_bound = bound = b;
      g->n_serial_ops++;
      continue;
    }
    op->channel_serial = false;
    if (added) {
      g->n_tensors--; /* the last tensor, just added */
    } else {
      g->tensors[t].size = old_size;
      g->tensors[t].align_hint = old_align;
    }
    if ((st = rerecord_op(g, i)) != MP_OK) return st;
  }
  return MP_OK;
}

mp_status mp_kernels_prepare(mp_graph *g, bool allow_unsupported, const mp_diag_sink *dx) {
  mp_diag_sink inner = dx ? *dx : (mp_diag_sink){NULL, NULL};
  mp_diag_sink soft = {as_warning, &inner};
  /* only the operators without a kernel are softened: a malformed one is
   * an error even with allow_unsupported */
  mp_status st = mp_lower_check_all_to(g, dx, allow_unsupported ? &soft : dx);
  if (st == MP_ERR_UNSUPPORTED && allow_unsupported) {
    mp_warning(dx, (mp_loc){g->model->path, 0, 0, -1, NULL, NULL},
               "--allow-unsupported: the module's run returns the unsupported-operator status "
               "at those operators unless the application supplies their kernels");
    st = MP_OK;
  } else if (st == MP_ERR_UNSUPPORTED) {
    mp_note(dx, (mp_loc){g->model->path, 0, 0, -1, NULL, NULL},
            "convert with --allow-unsupported to emit the module anyway; its run then returns "
            "the unsupported-operator status at those operators");
  }
  if (st != MP_OK) return st;
  uint32_t n_ops = g->n_ops;
  if ((st = record_overlaps(g)) != MP_OK) return st;
  for (uint32_t i = 0; i < n_ops; i++) {
    bool has_local = local_of(g, i) >= 0, has_state = mp_lower_state_of(g, i) >= 0;
    if (has_local && has_state) continue;
    mp_lowered_op lo;
    st = mp_lower_op(g, i, &lo, NULL);
    bool ok = st == MP_OK && lo.supported;
    uint64_t bytes = ok && !has_local ? lo.scratch_bytes : 0;
    uint32_t align = st == MP_OK ? (uint32_t)lo.scratch_align : 1;
    uint64_t state = ok && !has_state ? lo.state_bytes : 0;
    uint32_t state_align = st == MP_OK ? lo.state_align : 1;
    mp_lower_free(&lo);
    if (st == MP_ERR_NOMEM) return st;
    st = MP_OK;
    char name[48];
    uint32_t id;
    if (bytes > 0) {
      snprintf(name, sizeof name, "op%u_scratch", i);
      st = mp_graph_add_local(g, i, bytes, align ? align : 1, name, &id);
      if (st != MP_OK) return st;
    }
    if (state > 0) {
      snprintf(name, sizeof name, "op%u_state", i);
      st = mp_graph_add_state(g, i, state, state_align ? state_align : 1, name, &id);
      if (st != MP_OK) return st;
    }
  }
  return choose_serial(g);
}
