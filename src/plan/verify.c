/*
 * verify.c — an independent check of a MemoryPlan before anything is
 * emitted.  It shares no code with the planners or the plan driver: it
 * re-derives every property from the graph and the plan alone.
 *
 * Checked:
 *   - every tensor that needs storage has it, in an arena of its role and
 *     memory, and nothing else claims storage;
 *   - every slot is aligned and lies inside its arena;
 *   - no two slots of one arena overlap in bytes while their lifetimes
 *     overlap (scratch), or at all (persistent, constant) — except, with
 *     memory.in_place, an operator's output over an input it reads for the
 *     last time, where the kernel's own overlap contract (re-derived here
 *     from the operator by the lowering, runtime/kernels/mpk.h) allows that
 *     placement, and the input holds no graph output (the application
 *     reads those after the run);
 *   - aliases lie in their root's storage, each where the operator that
 *     makes it a view (RESHAPE and its kin; with memory.in_place SPLIT,
 *     SLICE and their kin, or an elided CONCATENATION / PACK) puts it,
 *     recomputed from that operator's lowered geometry; within one root,
 *     the tensors running operators write share no byte; and a root that
 *     holds a part-view takes part in no in-place overlap;
 *   - every constant arena has exactly one source memory, staged iff that
 *     source differs from its memory, and writable runtime memory when
 *     staged; scratch and persistent arenas are writable and unsourced;
 *   - every memory's arenas (staged source blobs included) fit its budget;
 *   - the execution order (the model's, or memory.op_order's) is a
 *     topological order that keeps stateful operators in model order
 *     (mp_order_check), and every scratch slot's lifetime in the plan
 *     covers each step of that order that touches it, re-derived here from
 *     the operators' tensor lists in the order they run;
 *   - a patched stage's tiles cover its output once, each reading only
 *     pixels its window holds and its tile wrote (verify_patch.c).
 *
 * The overlap check is a sweep over time: slots start and end; the live
 * slots of an arena are kept sorted by offset and pairwise disjoint, so a
 * new slot conflicts with some live slot iff it conflicts with its neighbour
 * below or above.  In-place plans may hold overlapping live slots, so there
 * a new slot is checked against every live slot that starts below its end.
 * A violation names the two tensors.
 */
#include "util/diag.h"
#include "plan/verify_patch.h"
#include "graph/patch.h"
#include "lower/lower.h"
#include "util/util.h"
#include "mpk_fixed.h"

#include <stdlib.h>
#include <string.h>

static mp_loc vloc(void) { return MP_LOC_NONE; }

static const char *tname(const mp_plan *p, uint32_t t) {
  return t < p->graph->n_tensors ? p->graph->tensors[t].name : "?";
}

typedef struct vev {
  int32_t time;
  int kind;     /* 0 = start, 1 = end (ends sort after starts at equal time+1) */
  uint32_t t;
} vev;

static int cmp_vev(const void *a, const void *b) {
  const vev *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (x->kind != y->kind) return x->kind > y->kind ? -1 : 1; /* ends first */
  return (x->t > y->t) - (x->t < y->t);
}

typedef struct live {
  uint64_t lo, hi;
  uint32_t t;
} live;

static int32_t vroot(const mp_graph *g, int32_t t) {
  return g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
}

/* Does the kernel of op `op` let slot `out` (a root it writes) overlap slot
 * `in` (a root it reads) at offset(in) - offset(out) = d?  Every argument
 * through which the kernel reads `in` must carry a contract with that
 * output, each met: d at least its gap and a multiple of its period.  *gap
 * gets the largest gap found (INT64_MAX: none), *period the periods' least
 * common multiple. */
static mp_status contract_allows(const mp_graph *g, int32_t op, uint32_t in, uint32_t out, int64_t d,
                                 bool *ok, int64_t *gap, int64_t *period) {
  *ok = false;
  *gap = INT64_MAX;
  *period = 1;
  if (op < 0 || (uint32_t)op >= g->n_ops) return MP_OK;
  mp_lowered_op lo;
  mp_status st = mp_lower_op(g, (uint32_t)op, &lo, NULL);
  if (st != MP_OK) return st == MP_ERR_NOMEM ? st : MP_OK;
  bool all = lo.supported, any_in = false, any_out = false;
  int64_t worst = INT64_MIN;
  for (uint32_t o = 0; o < lo.n_args; o++) {
    const mp_lower_arg *ao = &lo.args[o];
    if (ao->kind != MP_LARG_TENSOR || !ao->is_output || ao->tensor < 0 ||
        vroot(g, ao->tensor) != (int32_t)out)
      continue;
    any_out = true;
    for (uint32_t i = 0; i < lo.n_args; i++) {
      const mp_lower_arg *ai = &lo.args[i];
      if (ai->is_output) continue;
      bool reads_in = false;
      if (ai->kind == MP_LARG_TENSOR)
        reads_in = ai->tensor >= 0 && vroot(g, ai->tensor) == (int32_t)in;
      else
        for (uint32_t k = 0; k < ai->n_tensors; k++)
          reads_in |= ai->tensors[k] >= 0 && vroot(g, ai->tensors[k]) == (int32_t)in;
      if (!reads_in) continue;
      any_in = true;
      bool found = false;
      for (uint32_t q = 0; q < lo.n_overlaps; q++)
        if (lo.overlaps[q].in_arg == i && lo.overlaps[q].out_arg == o) {
          found = true;
          if (lo.overlaps[q].gap > worst) worst = lo.overlaps[q].gap;
          *period = mp_lcm64(*period, lo.overlaps[q].period);
        }
      all &= found && ai->kind == MP_LARG_TENSOR;
    }
  }
  mp_lower_free(&lo);
  if (!all || !any_in || !any_out) return MP_OK;
  *gap = worst;
  *ok = d >= worst && d % *period == 0;
  return MP_OK;
}

/* Does root r's slot hold a view that starts past its first byte or ends
 * before its last?  Then its bytes are several tensors' at once. */
static bool holds_subviews(const mp_plan *p, uint32_t r) {
  const mp_allocation *ra = &p->allocs[r];
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (a->placed && a->alias_of == (int32_t)r && (a->offset != ra->offset || a->size != ra->size))
      return true;
  }
  return false;
}

/* Does root r's storage hold a graph output (r itself or a view of it)? */
static bool holds_graph_output(const mp_graph *g, uint32_t r) {
  for (uint32_t k = 0; k < g->n_outputs; k++) {
    int32_t t = g->outputs[k];
    if (t >= 0 && (uint32_t)t < g->n_tensors && vroot(g, t) == (int32_t)r) return true;
  }
  return false;
}

/* May live slots u and v share bytes?  Only in an in-place plan, where the
 * two meet at one operator that reads one for the last time and writes the
 * other first, and that operator's kernel allows their placement.  On a
 * refusal *why says what failed. */
static mp_status overlap_allowed(const mp_plan *p, uint32_t u, uint32_t v, bool *ok, char *why,
                                 size_t nwhy) {
  *ok = false;
  why[0] = 0;
  if (!p->in_place) return MP_OK;
  const mp_graph *g = p->graph;
  for (int k = 0; k < 2; k++)
    if (holds_subviews(p, k ? v : u)) {
      snprintf(why, nwhy, "; tensor %u holds sub-tensor views, which no kernel contract covers",
               k ? v : u);
      return MP_OK;
    }
  const mp_lifetime *lu = &p->lifetimes[u], *lv = &p->lifetimes[v];
  for (int k = 0; k < 2; k++) {
    uint32_t in = k ? v : u, out = k ? u : v;
    const mp_lifetime *li = k ? lv : lu, *lo = k ? lu : lv;
    if (li->end_op != lo->start_op) continue;
    if (holds_graph_output(g, in)) {
      /* its last reader may be the last operator, but the application
       * reads it after the run */
      snprintf(why, nwhy, "; tensor %u holds a graph output, whose bytes must outlive the run",
               in);
      continue;
    }
    int32_t op = li->end_op;
    int64_t d = (int64_t)p->allocs[in].offset - (int64_t)p->allocs[out].offset, gap, period;
    const mp_patch *ps = op >= 0 ? mp_patch_at(g, (uint32_t)op) : NULL;
    if (ps && op == (int32_t)ps->head) {
      /* a patched stage: its tiles' reads and writes, replayed */
      mp_verify_patch_overlap(g, op, in, out, d, ok, why, nwhy);
      return MP_OK;
    }
    mp_status st = contract_allows(g, op, in, out, d, ok, &gap, &period);
    if (st != MP_OK || *ok) return st;
    if (gap == INT64_MAX)
      snprintf(why, nwhy, "; operator %d's kernel declares no overlap of tensor %u with %u", op,
               out, in);
    else if (period > 1 && d >= gap)
      snprintf(why, nwhy, "; operator %d's kernel needs tensor %u to start a multiple of %lld "
                          "bytes from tensor %u, it starts %lld below", op, out,
               (long long)period, in, (long long)d);
    else
      snprintf(why, nwhy, "; operator %d's kernel needs tensor %u to start at least %lld bytes "
                          "below tensor %u, it starts %lld below", op, out, (long long)gap, in,
               (long long)d);
  }
  if (!why[0])
    snprintf(why, nwhy, "; their lifetimes do not meet at a single operator");
  return MP_OK;
}

/* Check the slots of one arena; `whole_program` ignores lifetimes. */
static mp_status check_arena_overlaps(const mp_plan *p, uint32_t arena, bool whole_program,
                                      const mp_diag_sink *dx) {
  size_t n = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (a->placed && a->arena == arena && a->alias_of < 0 && a->slot_size > 0) n++;
  }
  if (n < 2) return MP_OK;
  vev *ev = malloc(2 * n * sizeof *ev);
  live *act = malloc(n * sizeof *act);
  if (!ev || !act) {
    free(ev);
    free(act);
    return MP_ERR_NOMEM;
  }
  size_t ne = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (!(a->placed && a->arena == arena && a->alias_of < 0 && a->slot_size > 0)) continue;
    int32_t s = whole_program ? 0 : p->lifetimes[t].start_op;
    int32_t e = whole_program ? 0 : p->lifetimes[t].end_op;
    ev[ne++] = (vev){s, 0, t};
    ev[ne++] = (vev){e + 1, 1, t};
  }
  qsort(ev, ne, sizeof *ev, cmp_vev);
  size_t na = 0;
  mp_status st = MP_OK;
  for (size_t i = 0; i < ne && st == MP_OK; i++) {
    const mp_allocation *a = &p->allocs[ev[i].t];
    if (ev[i].kind == 1) {
      for (size_t k = 0; k < na; k++)
        if (act[k].t == ev[i].t) {
          memmove(&act[k], &act[k + 1], (na - k - 1) * sizeof *act);
          na--;
          break;
        }
      continue;
    }
    uint64_t lo = a->offset, hi = a->offset + a->slot_size;
    /* position by offset (binary search) */
    size_t l = 0, r = na;
    while (l < r) {
      size_t mid = (l + r) / 2;
      if (act[mid].lo < lo || (act[mid].lo == lo && act[mid].t < ev[i].t))
        l = mid + 1;
      else
        r = mid;
    }
    /* plain plans: the live slots are disjoint, so the neighbours decide;
     * in-place plans: every live slot starting below this one's end */
    bool scan = p->in_place && !whole_program;
    size_t k0 = scan ? 0 : (l > 0 ? l - 1 : 0), k1 = scan ? na : (l + 1 < na ? l + 1 : na);
    for (size_t k = k0; k < k1 && st == MP_OK; k++) {
      if (act[k].lo >= hi) break;
      if (!(lo < act[k].hi)) continue;
      uint32_t u = act[k].t;
      bool ok = false;
      char why[200] = "";
      if (scan) {
        st = overlap_allowed(p, u, ev[i].t, &ok, why, sizeof why);
        if (st != MP_OK) break;
      }
      if (ok) continue;
      mp_error(dx, vloc(),
               "plan verification failed: tensors %u '%s' [%llu, %llu) and %u '%s' [%llu, "
               "%llu) overlap in the %s %s arena while both are live (ops %d-%d and %d-%d)%s. "
               "This is a memplan bug; please report it with the model and config.",
               u, tname(p, u), (unsigned long long)act[k].lo, (unsigned long long)act[k].hi,
               ev[i].t, tname(p, ev[i].t), (unsigned long long)lo, (unsigned long long)hi,
               mp_platform_memory_name(&p->platform, p->arenas[arena].memory), mp_role_name(p->arenas[arena].role),
               p->lifetimes[u].start_op, p->lifetimes[u].end_op, p->lifetimes[ev[i].t].start_op,
               p->lifetimes[ev[i].t].end_op, why);
      st = MP_ERR_VERIFY;
    }
    memmove(&act[l + 1], &act[l], (na - l) * sizeof *act);
    act[l] = (live){lo, hi, ev[i].t};
    na++;
  }
  free(ev);
  free(act);
  return st;
}

static bool needs_storage(const mp_graph *g, uint32_t t) {
  const mp_tensor *x = &g->tensors[t];
  if (!x->used || x->size == 0) return false;
  if (x->role == MP_ROLE_SCRATCH) return x->alias_of >= 0 || g->storage[t].start_op >= 0;
  return true;
}

/* The plan's lifetime of t's storage covers step p. */
static bool covers(const mp_plan *p, int32_t t, int32_t step) {
  const mp_graph *g = p->graph;
  int32_t r = vroot(g, t);
  const mp_tensor *x = &g->tensors[r];
  if (x->role != MP_ROLE_SCRATCH || !p->allocs[r].placed) return true;
  return p->lifetimes[r].start_op <= step && step <= p->lifetimes[r].end_op;
}

/* Each step's tensors live in the plan at that step, in run order. */
static mp_status check_steps(const mp_plan *p, const mp_diag_sink *dx) {
  const mp_graph *g = p->graph;
  char why[240];
  if (!mp_order_check(g, why, sizeof why)) {
    mp_error(dx, vloc(), "plan verification failed: the operator order is not valid: %s. This "
                         "is a memplan bug; please report it with the model and config.", why);
    return MP_ERR_VERIFY;
  }
  int32_t last = g->n_ops ? (int32_t)g->n_ops - 1 : 0;
  for (uint32_t o = 0; o < g->n_ops; o++) {
    const mp_op *op = &g->ops[o];
    if (op->folded_into >= 0) continue; /* a folded PAD runs nothing */
    const int32_t *lists[3] = {op->inputs, op->intermediates, op->outputs};
    uint32_t counts[3] = {op->n_inputs, op->n_intermediates, op->n_outputs};
    for (int l = 0; l < 3; l++)
      for (uint32_t k = 0; k < counts[l]; k++) {
        int32_t t = lists[l][k];
        if (t < 0 || (uint32_t)t >= g->n_tensors || covers(p, t, (int32_t)o)) continue;
        mp_error(dx, vloc(), "plan verification failed: tensor %d '%s' is used at step %u "
                 "(model operator %u, %s) outside its lifetime in the plan [%d, %d]", t,
                 g->tensors[t].name, o, op->model_index, op->name,
                 p->lifetimes[vroot(g, t)].start_op, p->lifetimes[vroot(g, t)].end_op);
        return MP_ERR_VERIFY;
      }
  }
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
    if (g->tensors[t].local_op >= 0 && !covers(p, (int32_t)t, g->tensors[t].local_op)) {
      mp_error(dx, vloc(), "plan verification failed: op-local tensor %u '%s' is not live at its "
               "operator's step %d", t, g->tensors[t].name, g->tensors[t].local_op);
      return MP_ERR_VERIFY;
    }
  for (int k = 0; k < 2; k++)
    for (uint32_t i = 0; i < (k ? g->n_outputs : g->n_inputs); i++) {
      int32_t t = k ? g->outputs[i] : g->inputs[i];
      if (t < 0 || (uint32_t)t >= g->n_tensors || covers(p, t, k ? last : 0)) continue;
      mp_error(dx, vloc(), "plan verification failed: graph %s %d '%s' is not live at step %d",
               k ? "output" : "input", t, g->tensors[t].name, k ? last : 0);
      return MP_ERR_VERIFY;
    }
  return MP_OK;
}

#define FAIL(...)                       \
  do {                                  \
    mp_error(dx, vloc(), __VA_ARGS__);  \
    return MP_ERR_VERIFY;               \
  } while (0)

/* Views.  Every tensor that shares its root's storage must be there
 * because an operator that only moves bytes (is_view: RESHAPE and its kin,
 * SPLIT, SLICE, CONCATENATION, ...) would have moved exactly those bytes:
 * its place is re-derived here from that operator's lowered geometry and
 * the plan's offsets, not from the plan's alias record.  And within one
 * root, the tensors that running operators write never share a byte, so
 * every byte of a root is written once. */

typedef struct vctx {
  const mp_plan *p;
  const mp_diag_sink *dx;
  bool *justified;
  uint32_t op;
} vctx;

/* Tensors v and base of the view operator in range? */
static mp_status in_range(const vctx *c, int32_t v, int32_t base) {
  const mp_diag_sink *dx = c->dx;
  if (v < 0 || base < 0 || (uint32_t)v >= c->p->n_allocs || (uint32_t)base >= c->p->n_allocs)
    FAIL("plan verification failed: view operator %u names a tensor out of range", c->op);
  return MP_OK;
}

/* Does view v lie at byte k of tensor base, in base's storage? */
static mp_status same_place(vctx *c, int32_t v, int32_t base, uint64_t k) {
  const mp_plan *p = c->p;
  const mp_graph *g = p->graph;
  const mp_diag_sink *dx = c->dx;
  if (in_range(c, v, base) != MP_OK) return MP_ERR_VERIFY;
  const mp_allocation *a = &p->allocs[v], *b = &p->allocs[base];
  const mp_tensor *x = &g->tensors[v];
  if (!x->used || x->size == 0) return MP_OK; /* no storage needed, nothing read */
  if (a->placed != b->placed || k + x->size > g->tensors[base].size || a->alias_stride ||
      x->alias_stride ||
      (a->placed && (a->arena != b->arena || a->offset != b->offset + k)) ||
      (!a->placed && (k != 0 || a->caller_io != b->caller_io || a->caller_io < 0)))
    FAIL("plan verification failed: operator %u (%s) makes tensor %d '%s' the bytes [%llu, "
         "%llu) of tensor %d '%s', but the plan puts it elsewhere (offset %llu, tensor %d at "
         "%llu)", c->op, g->ops[c->op].name, v, x->name, (unsigned long long)k,
         (unsigned long long)(k + x->size), base, g->tensors[base].name,
         (unsigned long long)a->offset, base, (unsigned long long)b->offset);
  c->justified[v] = true;
  return MP_OK;
}

/* The window kernels that write at output strides (runtime/kernels/
 * mpk_conv.c, mpk_pool.c and the int8 mpk_conv_fast.c, mpk_pool_fast.c). */
static bool takes_out_strides(mp_kernel k) {
  switch (k) {
  case MP_K_CONV2D_S8_1X1:
  case MP_K_CONV2D_S8_IM2COL:
  case MP_K_DEPTHWISE_CONV2D_S8_FAST:
  case MP_K_AVG_POOL2D_S8_FAST:
  case MP_K_MAX_POOL2D_S8_FAST:
  case MP_K_CONV2D_S8:
  case MP_K_DEPTHWISE_CONV2D_S8:
  case MP_K_CONV2D_S16:
  case MP_K_CONV2D_S16_ACC32:
  case MP_K_DEPTHWISE_CONV2D_S16:
  case MP_K_CONV2D_F32:
  case MP_K_DEPTHWISE_CONV2D_F32:
  case MP_K_AVG_POOL2D_S8:
  case MP_K_MAX_POOL2D_S8:
  case MP_K_AVG_POOL2D_S16:
  case MP_K_MAX_POOL2D_S16:
  case MP_K_AVG_POOL2D_F32:
  case MP_K_MAX_POOL2D_F32: return true;
  default: return false;
  }
}

/* Does the window geometry put its outputs, in their storage order, on
 * rows of `row` elements, `stride` elements apart?  Output pixel
 * (b, y, x) holds elements n .. n + out_c - 1 of the packed order, n its
 * index times out_c; packed element n belongs at (n / row) * stride +
 * n % row; each pixel's channels must lie in one row there and the kernel's
 * strides put them at that place. */
static bool lands_on_rows(const mpk_conv_geom *gm, uint64_t row, uint64_t stride) {
  if (row == 0 || gm->out_c <= 0 || (uint64_t)gm->out_c > row || !mpk_out_strides_ok(gm))
    return false;
  const mpk_out_strides os = mpk_geom_out_strides(gm);
  uint64_t n = 0;
  for (int32_t b = 0; b < gm->batches; b++)
    for (int32_t y = 0; y < gm->out_h; y++)
      for (int32_t x = 0; x < gm->out_w; x++, n += (uint64_t)gm->out_c) {
        uint64_t want = (n / row) * stride + n % row;
        uint64_t at = (uint64_t)b * (uint64_t)os.batch + (uint64_t)y * (uint64_t)os.row +
                      (uint64_t)x * (uint64_t)os.pixel;
        if (n % row + (uint64_t)gm->out_c > row || at != want) return false;
      }
  return true;
}

/* Input v of an elided CONCATENATION along an inner axis: the rows of
 * `row` bytes, `stride` bytes apart from byte k of the output `base`, as
 * the concatenation would have copied it; and the operator producing it
 * writes exactly there (its lowered output strides, its reference kernel). */
static mp_status strided_place(vctx *c, int32_t v, int32_t base, uint64_t k, uint64_t row,
                               uint64_t stride, uint64_t rows) {
  const mp_plan *p = c->p;
  const mp_graph *g = p->graph;
  const mp_diag_sink *dx = c->dx;
  if (in_range(c, v, base) != MP_OK) return MP_ERR_VERIFY;
  const mp_allocation *a = &p->allocs[v], *b = &p->allocs[base];
  const mp_tensor *x = &g->tensors[v];
  if (!a->placed || !b->placed || a->arena != b->arena || a->offset != b->offset + k ||
      x->size != rows * row || k + row > stride || rows * stride != g->tensors[base].size ||
      a->alias_row != row || a->alias_stride != stride || x->alias_row != row ||
      x->alias_stride != stride || x->alias_of != base)
    FAIL("plan verification failed: operator %u (%s) makes tensor %d '%s' %llu rows of %llu "
         "bytes, %llu apart from byte %llu of tensor %d '%s', but the plan puts it elsewhere "
         "(offset %llu, rows of %llu bytes %llu apart; tensor %d at %llu)", c->op,
         g->ops[c->op].name, v, x->name, (unsigned long long)rows, (unsigned long long)row,
         (unsigned long long)stride, (unsigned long long)k, base, g->tensors[base].name,
         (unsigned long long)a->offset, (unsigned long long)a->alias_row,
         (unsigned long long)a->alias_stride, base, (unsigned long long)b->offset);
  int32_t w = x->producer;
  uint64_t e = mp_dtype_align(x->dtype);
  mp_lowered_op lo;
  mp_status st = w >= 0 && w < (int32_t)c->op ? mp_lower_op(g, (uint32_t)w, &lo, NULL) : MP_OK;
  if (st == MP_ERR_NOMEM) return st;
  bool ok = w >= 0 && w < (int32_t)c->op && st == MP_OK && lo.supported &&
            takes_out_strides(lo.kernel) && lo.n_args > 0 &&
            lo.args[lo.n_args - 1].tensor == v && e > 0 && row % e == 0 && stride % e == 0;
  if (ok) {
    const mpk_conv_geom *gm;
    switch (lo.kernel) {
    case MP_K_CONV2D_F32:
    case MP_K_DEPTHWISE_CONV2D_F32: gm = &lo.params.conv_f32.geom; break;
    case MP_K_CONV2D_S8_1X1:
    case MP_K_CONV2D_S8_IM2COL:
    case MP_K_DEPTHWISE_CONV2D_S8_FAST: gm = &lo.params.conv_s8_fast.geom; break;
    case MP_K_AVG_POOL2D_S8:
    case MP_K_MAX_POOL2D_S8:
    case MP_K_AVG_POOL2D_S8_FAST:
    case MP_K_MAX_POOL2D_S8_FAST:
    case MP_K_AVG_POOL2D_S16:
    case MP_K_MAX_POOL2D_S16: gm = &lo.params.pool_s8.geom; break;
    case MP_K_AVG_POOL2D_F32:
    case MP_K_MAX_POOL2D_F32: gm = &lo.params.pool_f32.geom; break;
    default: gm = &lo.params.conv_s8.geom; break;
    }
    ok = (uint64_t)gm->batches * gm->out_h * gm->out_w * gm->out_c * e == x->size &&
         lands_on_rows(gm, row / e, stride / e);
  }
  if (st == MP_OK) mp_lower_free(&lo);
  if (!ok)
    FAIL("plan verification failed: operator %u (%s) is elided, but operator %d, which "
         "produces its input %d '%s', does not write rows of %llu bytes %llu apart",
         c->op, g->ops[c->op].name, w, v, x->name, (unsigned long long)row,
         (unsigned long long)stride);
  c->justified[v] = true;
  return MP_OK;
}

/* The byte offset of a strided copy's output in its input when the output
 * is one run of it (every output element reads input element in_offset +
 * its own row-major index), else -1. */
static int64_t copy_run(const mpk_strided_copy_params *q) {
  int64_t packed = 1;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    if (q->dims[d] > 1 && q->in_strides[d] != packed) return -1;
    packed *= q->dims[d];
  }
  return q->in_offset < 0 ? -1 : (int64_t)q->in_offset * q->elem_size;
}

static mp_status check_view_op(vctx *c, const mp_lowered_op *lo) {
  const mp_graph *g = c->p->graph;
  const mp_op *op = &g->ops[c->op];
  const mp_diag_sink *dx = c->dx;
  mp_status st = MP_OK;
  if (!lo->supported)
    FAIL("plan verification failed: view operator %u (%s) has no kernel geometry", c->op,
         op->name);
  if (lo->noop) {
    if (op->n_inputs < 1 || op->n_outputs != 1 ||
        g->tensors[op->inputs[0]].size != g->tensors[op->outputs[0]].size)
      FAIL("plan verification failed: view operator %u (%s) does not keep its input's bytes",
           c->op, op->name);
    return same_place(c, op->outputs[0], op->inputs[0], 0);
  }
  uint64_t k = 0;
  switch (lo->kernel) {
  case MP_K_STRIDED_COPY: {
    int64_t run = copy_run(&lo->params.strided_copy);
    if (run < 0)
      FAIL("plan verification failed: operator %u (%s) is a view, but its output is not one run "
           "of its input", c->op, op->name);
    return same_place(c, lo->args[1].tensor, lo->args[0].tensor, (uint64_t)run);
  }
  case MP_K_SPLIT: {
    const mpk_split_params *q = &lo->params.split;
    if (q->outer != 1 || (uint32_t)q->n_outputs != op->n_outputs)
      FAIL("plan verification failed: operator %u (%s) is a view, but its outputs are not runs "
           "of its input", c->op, op->name);
    for (uint32_t i = 0; i < op->n_outputs && st == MP_OK; i++) {
      st = same_place(c, op->outputs[i], lo->args[0].tensor, k);
      k += (uint64_t)q->output_bytes[i];
    }
    return st;
  }
  case MP_K_CONCAT: {
    const mpk_concat_params *q = &lo->params.concat;
    if ((uint32_t)q->n_inputs != op->n_inputs || op->n_outputs != 1)
      FAIL("plan verification failed: operator %u (%s) is elided, but its inputs are not the "
           "slices of its output", c->op, op->name);
    if (q->outer != 1) {
      uint64_t stride = 0;
      for (uint32_t i = 0; i < op->n_inputs; i++) stride += (uint64_t)q->input_bytes[i];
      for (uint32_t i = 0; i < op->n_inputs && st == MP_OK; i++) {
        st = strided_place(c, op->inputs[i], op->outputs[0], k, (uint64_t)q->input_bytes[i],
                           stride, (uint64_t)q->outer);
        k += (uint64_t)q->input_bytes[i];
      }
      return st;
    }
    for (uint32_t i = 0; i < op->n_inputs && st == MP_OK; i++) {
      int32_t t = op->inputs[i];
      if (t >= 0 && (g->tensors[t].producer < 0 || g->tensors[t].producer >= (int32_t)c->op))
        FAIL("plan verification failed: operator %u (%s) is elided, but its input %d '%s' is "
             "not written by an operator before it", c->op, op->name, t, g->tensors[t].name);
      st = same_place(c, t, op->outputs[0], k);
      k += (uint64_t)q->input_bytes[i];
    }
    return st;
  }
  default:
    FAIL("plan verification failed: operator %u (%s) runs no code, but its kernel does more "
         "than move bytes", c->op, op->name);
  }
}

/* Does operator o run and read a view of its own output? */
static bool reads_its_output(const mp_graph *g, uint32_t o) {
  const mp_op *op = &g->ops[o];
  if (op->is_view || op->folded_into >= 0 || op->n_outputs != 1 || op->outputs[0] < 0) return false;
  for (uint32_t i = 0; i < op->n_inputs; i++)
    if (op->inputs[i] >= 0 && g->tensors[op->inputs[i]].alias_of == op->outputs[0]) return true;
  return false;
}

typedef struct wslot {
  int32_t root;
  uint64_t lo, hi;
  uint32_t t;
  uint64_t row, stride; /* a strided view's rows (else 0) */
} wslot;

/* The writers of one root [w, w + n) when one of them is a strided view:
 * every byte they write marked once in a map of the root's slot. */
/* Does the running CONCATENATION that writes root t leave byte `at` of it
 * to a producer (an input in place, mpk_concat_params.in_place)? */
static bool left_in_place(const mpk_concat_params *q, uint64_t at) {
  uint64_t stride = 0;
  for (int32_t i = 0; i < q->n_inputs; i++) stride += (uint64_t)q->input_bytes[i];
  uint64_t col = stride ? at % stride : 0, k = 0;
  for (int32_t i = 0; i < q->n_inputs; k += (uint64_t)q->input_bytes[i], i++)
    if (col >= k && col < k + (uint64_t)q->input_bytes[i]) return q->in_place[i] != 0;
  return false;
}

static mp_status check_strided_writers(const mp_plan *p, const wslot *w, size_t n,
                                       const mp_diag_sink *dx) {
  const mp_allocation *r = &p->allocs[w[0].root];
  const mp_graph *g = p->graph;
  uint64_t size = r->size;
  uint8_t *seen = calloc(size / 8 + 1, 1);
  if (!seen) return MP_ERR_NOMEM;
  mp_status st = MP_OK;
  for (size_t i = 0; i < n && st == MP_OK; i++) {
    uint64_t row = w[i].row ? w[i].row : w[i].hi - w[i].lo;
    uint64_t stride = w[i].row ? w[i].stride : row;
    uint64_t bytes = w[i].hi - w[i].lo; /* the tensor's size */
    /* the root written by a partly elided concatenation: the bytes it copies */
    const int32_t by = g->tensors[w[i].t].producer;
    const bool lowered = (int32_t)w[i].t == w[i].root && reads_its_output(g, (uint32_t)by);
    mp_lowered_op lo;
    if (lowered && (st = mp_lower_op(g, (uint32_t)by, &lo, NULL)) != MP_OK) break;
    const bool partial =
        lowered && lo.supported && lo.kernel == MP_K_CONCAT && lo.params.concat.in_place;
    for (uint64_t b = 0; b < bytes && st == MP_OK; b++) {
      uint64_t at = w[i].lo - r->offset + (row ? (b / row) * stride + b % row : b);
      if (partial && left_in_place(&lo.params.concat, at)) continue;
      if (at >= size || (seen[at / 8] >> (at % 8)) & 1u) {
        mp_error(dx, vloc(), "plan verification failed: tensor %u '%s', written by operator %d, "
                             "writes byte %llu of tensor %d's storage, %s", w[i].t,
                 tname(p, w[i].t), p->graph->tensors[w[i].t].producer, (unsigned long long)at,
                 w[i].root, at >= size ? "outside it" : "which another writer writes too");
        st = MP_ERR_VERIFY;
      } else {
        seen[at / 8] |= (uint8_t)(1u << (at % 8));
      }
    }
    if (lowered) mp_lower_free(&lo);
  }
  free(seen);
  return st;
}

static int cmp_wslot(const void *a, const void *b) {
  const wslot *x = a, *y = b;
  if (x->root != y->root) return x->root < y->root ? -1 : 1;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return (x->t > y->t) - (x->t < y->t);
}

/* Within each root, the tensors running operators write are disjoint. */
static mp_status check_root_writers(const mp_plan *p, const mp_diag_sink *dx) {
  const mp_graph *g = p->graph;
  wslot *w = malloc((p->n_allocs ? p->n_allocs : 1) * sizeof *w);
  if (!w) return MP_ERR_NOMEM;
  size_t n = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    const mp_tensor *x = &g->tensors[t];
    if (!a->placed || x->role != MP_ROLE_SCRATCH || x->producer < 0 ||
        g->ops[x->producer].is_view)
      continue;
    int32_t r = a->alias_of >= 0 ? a->alias_of : (int32_t)t;
    w[n++] = (wslot){r, a->offset, a->offset + a->size, t, a->alias_row, a->alias_stride};
  }
  qsort(w, n, sizeof *w, cmp_wslot);
  mp_status st = MP_OK;
  /* roots with a strided writer: byte by byte */
  for (size_t i = 0, j; i < n && st == MP_OK; i = j) {
    bool strided = false;
    for (j = i; j < n && w[j].root == w[i].root; j++) strided |= w[j].row != 0;
    if (strided && p->allocs[w[i].root].placed) st = check_strided_writers(p, w + i, j - i, dx);
  }
  for (size_t i = 1, j = 0; i < n && st == MP_OK; i++) {
    if (w[i].root != w[j].root) {
      j = i;
      continue;
    }
    if (w[i].row || w[j].row) continue; /* checked above */
    if (w[i].lo < w[j].hi) {
      mp_error(dx, vloc(), "plan verification failed: tensors %u '%s' and %u '%s', written by "
                           "operators %d and %d, share bytes of tensor %d's storage",
               w[j].t, tname(p, w[j].t), w[i].t, tname(p, w[i].t), g->tensors[w[j].t].producer,
               g->tensors[w[i].t].producer, w[i].root);
      st = MP_ERR_VERIFY;
    }
    if (w[i].hi > w[j].hi) j = i;
  }
  free(w);
  return st;
}

/* A CONCATENATION that runs, some of whose inputs its producers wrote into
 * its output (partly elided): the kernel copies exactly the inputs its
 * params do not mark in place, and each one marked is its strided view at
 * its slice, written there by its producer. */
static mp_status check_partial_concat(vctx *c, const mp_lowered_op *lo) {
  const mp_graph *g = c->p->graph;
  const mp_op *op = &g->ops[c->op];
  const mp_diag_sink *dx = c->dx;
  const int32_t out = op->outputs[0];
  const mpk_concat_params *q = &lo->params.concat;
  if (!lo->supported || lo->kernel != MP_K_CONCAT || (uint32_t)q->n_inputs != op->n_inputs ||
      q->outer <= 1 || !q->in_place)
    FAIL("plan verification failed: operator %u (%s) runs, but inputs of it are views of its "
         "output that its kernel would copy", c->op, op->name);
  uint64_t stride = 0, k = 0;
  for (uint32_t i = 0; i < op->n_inputs; i++) stride += (uint64_t)q->input_bytes[i];
  mp_status st = MP_OK;
  for (uint32_t i = 0; i < op->n_inputs && st == MP_OK; k += (uint64_t)q->input_bytes[i], i++) {
    const int32_t t = op->inputs[i];
    if (q->in_place[i])
      st = strided_place(c, t, out, k, (uint64_t)q->input_bytes[i], stride, (uint64_t)q->outer);
    else if (t >= 0 && g->tensors[t].alias_of == out)
      FAIL("plan verification failed: operator %u (%s) copies its input %d '%s' into its "
           "output, which holds it already", c->op, op->name, t, g->tensors[t].name);
  }
  return st;
}

static mp_status check_views(const mp_plan *p, const mp_diag_sink *dx) {
  const mp_graph *g = p->graph;
  vctx c = {p, dx, calloc(p->n_allocs ? p->n_allocs : 1, sizeof(bool)), 0};
  if (!c.justified) return MP_ERR_NOMEM;
  mp_status st = MP_OK;
  for (uint32_t o = 0; o < g->n_ops && st == MP_OK; o++) {
    const mp_op *op = &g->ops[o];
    const bool partial = reads_its_output(g, o);
    if ((!op->is_view && !partial) || op->folded_into >= 0) continue;
    mp_lowered_op lo;
    c.op = o;
    st = mp_lower_op(g, o, &lo, NULL);
    if (st == MP_OK) {
      st = partial ? check_partial_concat(&c, &lo) : check_view_op(&c, &lo);
    } else if (st != MP_ERR_NOMEM) {
      mp_error(dx, vloc(), "plan verification failed: view operator %u (%s) cannot be lowered",
               o, op->name);
      st = MP_ERR_VERIFY;
    }
    mp_lower_free(&lo);
  }
  for (uint32_t t = 0; t < p->n_allocs && st == MP_OK; t++) {
    const mp_allocation *a = &p->allocs[t];
    if ((a->placed || a->caller_io >= 0) && a->alias_of >= 0 && !c.justified[t]) {
      mp_error(dx, vloc(), "plan verification failed: tensor %u '%s' shares tensor %d's storage, "
                           "but no view operator makes it so", t, tname(p, t), a->alias_of);
      st = MP_ERR_VERIFY;
    }
  }
  free(c.justified);
  return st == MP_OK ? check_root_writers(p, dx) : st;
}

mp_status mp_plan_verify(const mp_plan *p, const mp_diag_sink *dx) {
  const mp_graph *g = p->graph;
  if (p->n_allocs != g->n_tensors)
    FAIL("plan verification failed: %u allocations for %u tensors", p->n_allocs, g->n_tensors);
  /* arenas */
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (!p->platform.present[a->memory])
      FAIL("plan verification failed: arena %u is in %s, which the platform lacks", i,
           mp_platform_memory_name(&p->platform, a->memory));
    if (!mp_is_pow2(a->alignment) || a->alignment < 16 || a->total_size % a->alignment)
      FAIL("plan verification failed: arena %u (%s %s) size %llu is not a multiple of its "
           "alignment %u", i, mp_role_name(a->role), mp_platform_memory_name(&p->platform, a->memory),
           (unsigned long long)a->total_size, a->alignment);
    if (a->used > a->total_size)
      FAIL("plan verification failed: arena %u uses %llu of %llu bytes", i,
           (unsigned long long)a->used, (unsigned long long)a->total_size);
    bool staged = a->source_memory != a->memory;
    if (staged != a->is_staged || (a->role != MP_ROLE_CONSTANT && staged))
      FAIL("plan verification failed: arena %u (%s %s) has an inconsistent source memory", i,
           mp_role_name(a->role), mp_platform_memory_name(&p->platform, a->memory));
    if ((a->role != MP_ROLE_CONSTANT || staged) && !mp_platform_writable(&p->platform, a->memory))
      FAIL("plan verification failed: %s arena %u is in read-only %s", mp_role_name(a->role), i,
           mp_platform_memory_name(&p->platform, a->memory));
    for (uint32_t j = 0; j < i; j++)
      if (p->arenas[j].role == a->role && p->arenas[j].memory == a->memory)
        FAIL("plan verification failed: two %s arenas in %s", mp_role_name(a->role),
             mp_platform_memory_name(&p->platform, a->memory));
    uint64_t floor_bytes = p->in_place && a->inplace_bound < a->lower_bound ? a->inplace_bound
                                                                             : a->lower_bound;
    if (a->role == MP_ROLE_SCRATCH && floor_bytes > a->total_size)
      FAIL("plan verification failed: scratch arena in %s is %llu bytes, below its lower bound "
           "%llu", mp_platform_memory_name(&p->platform, a->memory), (unsigned long long)a->total_size,
           (unsigned long long)floor_bytes);
  }
  /* allocations */
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    const mp_tensor *x = &g->tensors[t];
    bool need = needs_storage(g, t);
    if (need && !a->placed && a->caller_io < 0)
      FAIL("plan verification failed: %s tensor %u '%s' (%llu bytes) has no storage",
           mp_role_name(x->role), t, x->name, (unsigned long long)x->size);
    if (a->caller_io >= 0) {
      /* memory.io caller: the I/O tensor's own buffer, or a view of it */
      uint32_t k = (uint32_t)a->caller_io;
      int32_t io = k < g->n_inputs ? g->inputs[k]
                   : k < g->n_inputs + g->n_outputs ? g->outputs[k - g->n_inputs] : -1;
      int32_t root = x->alias_of >= 0 ? x->alias_of : (int32_t)t;
      int32_t io_root = io < 0 ? -2 : g->tensors[io].alias_of >= 0 ? g->tensors[io].alias_of : io;
      if (a->placed || root != io_root || x->alias_offset != 0 || a->alias_offset != 0 ||
          (x->alias_of >= 0 && x->size != g->tensors[x->alias_of].size))
        FAIL("plan verification failed: tensor %u '%s' is given caller buffer %u, which does "
             "not hold it", t, x->name, k);
      continue;
    }
    if (!a->placed) continue;
    if (!need)
      FAIL("plan verification failed: tensor %u '%s' has storage but needs none", t, x->name);
    if (a->arena >= p->n_arenas)
      FAIL("plan verification failed: tensor %u '%s' names arena %u of %u", t, x->name, a->arena,
           p->n_arenas);
    const mp_arena *ar = &p->arenas[a->arena];
    if (a->binding.role != x->role || ar->role != x->role)
      FAIL("plan verification failed: %s tensor %u '%s' is bound as %s in a %s arena",
           mp_role_name(x->role), t, x->name, mp_role_name(a->binding.role),
           mp_role_name(ar->role));
    if (a->memory != ar->memory || a->binding.memory != a->memory ||
        a->binding.offset != a->offset || a->binding.source_memory != ar->source_memory)
      FAIL("plan verification failed: tensor %u '%s' binding (%s, source %s, offset %llu) "
           "disagrees with its arena (%s, source %s)", t, x->name,
           mp_platform_memory_name(&p->platform, a->binding.memory), mp_platform_memory_name(&p->platform, a->binding.source_memory),
           (unsigned long long)a->binding.offset, mp_platform_memory_name(&p->platform, ar->memory),
           mp_platform_memory_name(&p->platform, ar->source_memory));
    if (a->size != x->size || a->slot_size < a->size)
      FAIL("plan verification failed: tensor %u '%s' slot of %llu bytes for %llu bytes", t,
           x->name, (unsigned long long)a->slot_size, (unsigned long long)x->size);
    /* a slot: the platform's alignment; a view inside its root's slot: its
     * element's */
    uint64_t need_align = x->alias_of >= 0 ? 1 : p->platform.min_alignment;
    if (mp_dtype_align(x->dtype) > need_align) need_align = mp_dtype_align(x->dtype);
    if (x->align_hint > need_align) need_align = x->align_hint;
    if (a->align < need_align || !mp_is_pow2(a->align) || a->offset % a->align ||
        a->slot_size % a->align)
      FAIL("plan verification failed: tensor %u '%s' at offset %llu is not aligned to %llu", t,
           x->name, (unsigned long long)a->offset, (unsigned long long)need_align);
    if (a->offset > ar->total_size || a->slot_size > ar->total_size - a->offset)
      FAIL("plan verification failed: tensor %u '%s' [%llu, %llu) lies outside its %llu-byte "
           "arena", t, x->name, (unsigned long long)a->offset,
           (unsigned long long)(a->offset + a->slot_size), (unsigned long long)ar->total_size);
    if (x->alias_of >= 0) {
      const mp_allocation *r = &p->allocs[x->alias_of];
      if (a->alias_of != x->alias_of || !r->placed || r->arena != a->arena ||
          a->offset < r->offset || a->size > r->size || a->offset - r->offset > r->size - a->size)
        FAIL("plan verification failed: tensor %u '%s' aliases tensor %d '%s' but does not share "
             "its storage", t, x->name, x->alias_of, g->tensors[x->alias_of].name);
      /* the root's lifetime must cover the alias's */
      const mp_lifetime *lr = &p->lifetimes[x->alias_of], *la = &g->tensors[t].lifetime;
      if (la->start_op >= 0 && (la->start_op < lr->start_op || la->end_op > lr->end_op))
        FAIL("plan verification failed: alias %u '%s' is live outside its root %d's lifetime", t,
             x->name, x->alias_of);
    } else if (x->role == MP_ROLE_SCRATCH) {
      const mp_lifetime *l = &p->lifetimes[t], *own = &x->lifetime;
      if (own->start_op < l->start_op || own->end_op > l->end_op)
        FAIL("plan verification failed: tensor %u '%s' lifetime in the plan [%d, %d] does not "
             "cover its uses [%d, %d]", t, x->name, l->start_op, l->end_op, own->start_op,
             own->end_op);
    }
  }
  /* the order and the lifetimes it gives */
  mp_status sst = check_steps(p, dx);
  if (sst != MP_OK) return sst;
  /* views: where each lies, from its operator */
  mp_status vst = check_views(p, dx);
  if (vst != MP_OK) return vst;
  /* a patched stage: its tiles give the whole layers' values */
  vst = mp_verify_patch(p, dx);
  if (vst != MP_OK) return vst;
  /* overlaps */
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    mp_status st = check_arena_overlaps(p, i, p->arenas[i].role != MP_ROLE_SCRATCH, dx);
    if (st != MP_OK) return st;
  }
  /* budgets: recompute what each memory holds */
  uint64_t held[MP_MEM_COUNT] = {0};
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    held[a->memory] += a->total_size;
    if (a->is_staged) held[a->source_memory] += a->total_size;
  }
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    /* beside the other models' arenas (models: [...]), when it shares */
    uint64_t rsv = p->memories[m].reserved;
    if (held[m] > p->memories[m].budget || rsv > p->memories[m].budget - held[m])
      FAIL("plan verification failed: %s holds %llu bytes (and %llu of other models), over its "
           "budget of %llu",
           mp_platform_memory_name(&p->platform, (mp_memory)m), (unsigned long long)held[m],
           (unsigned long long)rsv, (unsigned long long)p->memories[m].budget);
    if (held[m] != p->memories[m].used)
      FAIL("plan verification failed: %s holds %llu bytes but the plan reports %llu",
           mp_platform_memory_name(&p->platform, (mp_memory)m), (unsigned long long)held[m],
           (unsigned long long)p->memories[m].used);
  }
  return MP_OK;
}
