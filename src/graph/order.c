/*
 * order.c — choosing the execution order (memory.op_order: min_peak).
 *
 * A model lists its operators in one topological order; on a branching
 * graph (residual ADDs, concatenated branches, several heads) another one
 * can keep fewer bytes live at once.  The bound of an order is the largest,
 * over its steps, live sum of the scratch slots (the tensor-level bound;
 * with in_place, less what the kernels' overlap contracts let a step's
 * outputs share with the inputs it reads for the last time, as in
 * mp_graph_inplace_bound).
 *
 * What a step costs depends only on the set S of operators already run and
 * on the operator v run next: a slot is live at that step when one of its
 * operators is in S + {v} (or it is a graph input) and one is not in S (or
 * it is a graph output).  So the best order is a shortest-path problem over
 * the sets S (downsets of the dependence graph), with the path's cost its
 * largest step: dynamic programming by the number of operators run, one
 * state per set, keeping per set the lowest peak that reaches it.  A state
 * whose peak already reaches the model order's bound is dropped (only a
 * strictly better order is taken), which keeps the model's order on ties.
 * The number of sets is small on narrow graphs and grows with the width;
 * the budget counts the steps tried (a state and an operator run after
 * it), a share per level, and when a level holds more states than its
 * share allows the best ones (by peak, then by the bytes left live) are
 * kept, a beam search, and the result is reported as not exact.  Everything is deterministic: states are
 * expanded in the order they were made, operators in increasing position,
 * and the first of equal peaks wins.
 *
 * The dependences are the model's own (every input of an operator after
 * the operator that writes it, PADs unfolded), plus the barriers
 * (mp_op_is_barrier) in model order.  The chosen order is handed to
 * mp_graph_build (mp_graph_options.order), which recomputes lifetimes,
 * views, folded PADs and the kernels' contracts on it; the verifier checks
 * the order and the lifetimes again (mp_order_check, verify.c).
 */
#include "graph/inplace.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_BUDGET (UINT64_C(1) << 20)
#define MAX_WIDTH (1u << 16)

bool mp_op_is_barrier(const mp_graph *g, uint32_t o) {
  if (o >= g->n_ops) return false;
  const mp_op *op = &g->ops[o];
  switch (op->builtin_code) {
  case 31:  /* CALL */
  case 32:  /* CUSTOM: unknown side effects */
  case 118: /* IF */
  case 119: /* WHILE */
  case 129: /* CALL_ONCE */
  case 136: /* HASHTABLE */
  case 137: /* HASHTABLE_FIND */
  case 138: /* HASHTABLE_IMPORT */
  case 139: /* HASHTABLE_SIZE */
  case 142: /* VAR_HANDLE */
  case 143: /* READ_VARIABLE */
  case 144: /* ASSIGN_VARIABLE */
  case 146: /* RANDOM_STANDARD_NORMAL */
  case 148: /* RANDOM_UNIFORM */
  case 149: /* MULTINOMIAL */
    return true;
  default:
    break;
  }
  const mp_op_def *d = op->def;
  const int32_t *lists[3] = {d->inputs, d->outputs, d->intermediates};
  uint32_t counts[3] = {d->n_inputs, d->n_outputs, d->n_intermediates};
  for (int l = 0; l < 3; l++)
    for (uint32_t k = 0; k < counts[l]; k++) {
      int32_t t = lists[l][k];
      if (t >= 0 && (uint32_t)t < g->n_model_tensors && g->tensors[t].role == MP_ROLE_PERSISTENT)
        return true;
    }
  return false;
}

/* ---- the dependence graph ------------------------------------------------ */

/* CSR lists: item i's entries are list[at[i] .. at[i + 1]). */
typedef struct csr {
  uint32_t *at, *list;
} csr;

static void csr_free(csr *c) {
  free(c->at);
  free(c->list);
}

/* The predecessors of every operator of g (positions): the writers of its
 * model inputs and the previous barrier.  *odd when an operator reads a
 * tensor written after it in g's order (the graph then keeps its order). */
static mp_status deps(const mp_graph *g, csr *pred, csr *succ, bool *odd) {
  uint32_t n = g->n_ops, nt = g->n_model_tensors;
  *odd = false;
  int32_t *prod = malloc((nt ? nt : 1) * sizeof *prod);
  uint32_t *mark = calloc(n ? n : 1, sizeof *mark);
  uint32_t *tmp = NULL, ntmp = 0, cap = 0;
  pred->at = calloc((size_t)n + 1, sizeof *pred->at);
  succ->at = calloc((size_t)n + 2, sizeof *succ->at);
  pred->list = succ->list = NULL;
  mp_status st = prod && mark && pred->at && succ->at ? MP_OK : MP_ERR_NOMEM;
  for (uint32_t t = 0; st == MP_OK && t < nt; t++) prod[t] = -1;
  for (uint32_t v = 0; st == MP_OK && v < n; v++) {
    const mp_op_def *d = g->ops[v].def;
    for (uint32_t k = 0; k < d->n_outputs; k++) {
      int32_t t = d->outputs[k];
      if (t >= 0 && (uint32_t)t < nt && prod[t] < 0) prod[t] = (int32_t)v;
    }
  }
  int32_t last_barrier = -1;
  for (uint32_t v = 0; st == MP_OK && v < n; v++) {
    const mp_op_def *d = g->ops[v].def;
    pred->at[v] = ntmp;
    uint32_t need = d->n_inputs + d->n_intermediates + 1;
    if (ntmp + need > cap) {
      cap = (ntmp + need) * 2;
      uint32_t *nt2 = realloc(tmp, cap * sizeof *tmp);
      if (!nt2) {
        st = MP_ERR_NOMEM;
        break;
      }
      tmp = nt2;
    }
    for (uint32_t k = 0; k < d->n_inputs + d->n_intermediates; k++) {
      int32_t t = k < d->n_inputs ? d->inputs[k] : d->intermediates[k - d->n_inputs];
      /* state (a persistent tensor) is read before it is written: the
       * barriers below keep its operators in order */
      if (t < 0 || (uint32_t)t >= nt || prod[t] < 0 || prod[t] == (int32_t)v ||
          g->tensors[t].role == MP_ROLE_PERSISTENT)
        continue;
      uint32_t p = (uint32_t)prod[t];
      if (p > v) *odd = true;
      if (mark[p] == v + 1) continue;
      mark[p] = v + 1;
      tmp[ntmp++] = p;
    }
    if (mp_op_is_barrier(g, v)) {
      if (last_barrier >= 0 && mark[last_barrier] != v + 1) {
        mark[last_barrier] = v + 1;
        tmp[ntmp++] = (uint32_t)last_barrier;
      }
      last_barrier = (int32_t)v;
    }
  }
  if (st == MP_OK) {
    pred->at[n] = ntmp;
    pred->list = malloc((ntmp ? ntmp : 1) * sizeof *pred->list);
    succ->list = malloc((ntmp ? ntmp : 1) * sizeof *succ->list);
    if (!pred->list || !succ->list) st = MP_ERR_NOMEM;
  }
  if (st == MP_OK) {
    if (ntmp) memcpy(pred->list, tmp, ntmp * sizeof *tmp);
    for (uint32_t i = 0; i < ntmp; i++) succ->at[pred->list[i] + 2]++;
    for (uint32_t v = 0; v < n; v++) succ->at[v + 2] += succ->at[v + 1];
    for (uint32_t v = 0; v < n; v++)
      for (uint32_t i = pred->at[v]; i < pred->at[v + 1]; i++)
        succ->list[succ->at[pred->list[i] + 1]++] = v;
  }
  free(prod);
  free(mark);
  free(tmp);
  return st;
}

/* ---- slots and step costs ------------------------------------------------ */

typedef struct pairref {
  uint32_t in, out; /* slots */
  uint64_t share;   /* the most bytes out may share with in */
} pairref;

typedef struct sctx {
  const mp_graph *g;
  uint32_t n, words, ns;
  uint64_t *size;
  uint32_t *align;           /* per slot */
  int32_t *slot_of;          /* per tensor: its root's slot, or -1 */
  bool *pin_start, *pin_end; /* a graph input (live from step 0), output (to the last) */
  csr touch;                 /* per slot: the operators (positions) touching it */
  csr uses;                  /* per operator: the slots it touches */
  uint32_t *pair_at;         /* per operator: its pairs, sorted by out slot */
  pairref *pairs;
  uint64_t *fixed;           /* per step: slots no operator touches */
  uint64_t open0;            /* live before the first step */
  csr pred, succ;
} sctx;

static bool bit(const uint64_t *b, uint32_t i) { return (b[i >> 6] >> (i & 63)) & 1u; }

static int32_t root(const mp_graph *g, int32_t t) {
  return g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
}

static int cmp_pairref(const void *a, const void *b) {
  const pairref *x = a, *y = b;
  if (x->out != y->out) return x->out < y->out ? -1 : 1;
  return (x->in > y->in) - (x->in < y->in);
}

static mp_status slots_build(sctx *c, uint32_t alignment, bool in_place) {
  const mp_graph *g = c->g;
  uint32_t n = c->n, nt = g->n_tensors;
  int32_t *slot_of = malloc((nt ? nt : 1) * sizeof *slot_of);
  uint32_t *mark = calloc(nt ? nt : 1, sizeof *mark);
  uint32_t *align = calloc(nt ? nt : 1, sizeof *align);
  c->size = calloc(nt ? nt : 1, sizeof *c->size);
  c->pin_start = calloc(nt ? nt : 1, sizeof *c->pin_start);
  c->pin_end = calloc(nt ? nt : 1, sizeof *c->pin_end);
  c->fixed = calloc(n ? n : 1, sizeof *c->fixed);
  c->uses.at = calloc((size_t)n + 1, sizeof(uint32_t));
  c->touch.at = calloc((size_t)nt + 2, sizeof(uint32_t));
  c->pair_at = calloc((size_t)n + 1, sizeof *c->pair_at);
  if (!slot_of || !mark || !align || !c->size || !c->pin_start || !c->pin_end || !c->fixed ||
      !c->uses.at || !c->touch.at || !c->pair_at) {
    free(slot_of);
    free(mark);
    free(align);
    return MP_ERR_NOMEM;
  }
  uint32_t ns = 0;
  for (uint32_t t = 0; t < nt; t++) {
    slot_of[t] = -1;
    if (!mp_graph_needs_slot(g, t)) continue;
    uint32_t a = alignment > g->tensors[t].align_hint ? alignment : g->tensors[t].align_hint;
    if (a == 0) a = 1;
    align[ns] = a;
    c->size[ns] = mp_align_up(g->tensors[t].size, a);
    slot_of[t] = (int32_t)ns++;
  }
  c->ns = ns;
  for (uint32_t t = 0; t < nt; t++) {
    int32_t s = slot_of[root(g, (int32_t)t)];
    if (s < 0) continue;
    c->pin_start[s] |= g->tensors[t].is_input;
    c->pin_end[s] |= g->tensors[t].is_output;
  }
  /* the slots each operator touches, once each (mark: op + 1) */
  size_t cap = 64, nu = 0;
  c->uses.list = malloc(cap * sizeof(uint32_t));
  mp_status st = c->uses.list ? MP_OK : MP_ERR_NOMEM;
  for (uint32_t v = 0; st == MP_OK && v < n; v++) {
    const mp_op *op = &g->ops[v];
    c->uses.at[v] = (uint32_t)nu;
    if (op->folded_into >= 0) continue; /* a folded PAD touches nothing */
    const int32_t *lists[3] = {op->inputs, op->intermediates, op->outputs};
    uint32_t counts[3] = {op->n_inputs, op->n_intermediates, op->n_outputs};
    for (int l = 0; l < 3 && st == MP_OK; l++)
      for (uint32_t k = 0; k < counts[l]; k++) {
        int32_t t = lists[l][k];
        if (t < 0 || (uint32_t)t >= nt) continue;
        int32_t s = slot_of[root(g, t)];
        if (s < 0 || mark[s] == v + 1) continue;
        mark[s] = v + 1;
        if (nu == cap) {
          uint32_t *nl = realloc(c->uses.list, (cap *= 2) * sizeof(uint32_t));
          if (!nl) {
            st = MP_ERR_NOMEM;
            break;
          }
          c->uses.list = nl;
        }
        c->uses.list[nu++] = (uint32_t)s;
      }
  }
  /* op-local scratch: its operator's alone */
  for (uint32_t t = g->n_model_tensors; st == MP_OK && t < nt; t++) {
    int32_t s = slot_of[t];
    int32_t v = g->tensors[t].local_op;
    if (s < 0 || v < 0 || (uint32_t)v >= n) continue;
    /* appended after the operator's own list: shift the later lists */
    if (nu == cap) {
      uint32_t *nl = realloc(c->uses.list, (cap *= 2) * sizeof(uint32_t));
      if (!nl) {
        st = MP_ERR_NOMEM;
        break;
      }
      c->uses.list = nl;
    }
    uint32_t end = (uint32_t)v + 1 < n ? c->uses.at[v + 1] : (uint32_t)nu;
    memmove(&c->uses.list[end + 1], &c->uses.list[end], (nu - end) * sizeof(uint32_t));
    c->uses.list[end] = (uint32_t)s;
    nu++;
    for (uint32_t w = (uint32_t)v + 1; w < n; w++) c->uses.at[w]++;
  }
  if (st == MP_OK) c->uses.at[n] = (uint32_t)nu;
  /* the transpose: who touches each slot */
  if (st == MP_OK) {
    c->touch.list = malloc((nu ? nu : 1) * sizeof(uint32_t));
    if (!c->touch.list) st = MP_ERR_NOMEM;
  }
  if (st == MP_OK) {
    for (size_t i = 0; i < nu; i++) c->touch.at[c->uses.list[i] + 2]++;
    for (uint32_t s = 0; s < ns; s++) c->touch.at[s + 2] += c->touch.at[s + 1];
    for (uint32_t v = 0; v < n; v++)
      for (uint32_t i = c->uses.at[v]; i < c->uses.at[v + 1]; i++)
        c->touch.list[c->touch.at[c->uses.list[i] + 1]++] = v;
    /* slots no operator touches live at fixed steps; the others open with
     * their first operator, or at step 0 for a graph input */
    for (uint32_t s = 0; s < ns; s++) {
      if (c->touch.at[s] == c->touch.at[s + 1]) {
        if (n == 0) continue;
        if (c->pin_start[s] && c->pin_end[s])
          for (uint32_t k = 0; k < n; k++) c->fixed[k] += c->size[s];
        else
          c->fixed[c->pin_start[s] ? 0 : n - 1] += c->size[s];
      } else if (c->pin_start[s]) {
        c->open0 += c->size[s];
      }
    }
  }
  /* in place: per operator, the (input, output) slot pairs of its contracts,
   * the larger gap when two views give one pair twice */
  size_t np = 0;
  c->pairs = malloc((g->n_overlaps ? g->n_overlaps : 1) * sizeof *c->pairs);
  if (st == MP_OK && !c->pairs) st = MP_ERR_NOMEM;
  for (uint32_t v = 0; st == MP_OK && v < n; v++) {
    c->pair_at[v] = (uint32_t)np;
    for (uint32_t i = 0; in_place && i < g->n_overlaps; i++) {
      const mp_overlap *ov = &g->overlaps[i];
      if (ov->op != v || ov->input >= nt || ov->output >= nt) continue;
      int32_t si = slot_of[root(g, (int32_t)ov->input)], so = slot_of[root(g, (int32_t)ov->output)];
      if (si < 0 || so < 0 || si == so) continue;
      uint32_t al = align[si] < align[so] ? align[si] : align[so];
      uint64_t share =
          mp_inplace_max_share(c->size[si], c->size[so], ov->min_gap, ov->period, al);
      size_t j = c->pair_at[v];
      while (j < np && !(c->pairs[j].in == (uint32_t)si && c->pairs[j].out == (uint32_t)so)) j++;
      if (j < np) {
        /* a larger gap shares less */
        if (share < c->pairs[j].share) c->pairs[j].share = share;
      } else {
        c->pairs[np++] = (pairref){(uint32_t)si, (uint32_t)so, share};
      }
    }
    qsort(&c->pairs[c->pair_at[v]], np - c->pair_at[v], sizeof *c->pairs, cmp_pairref);
  }
  if (st == MP_OK) c->pair_at[n] = (uint32_t)np;
  c->slot_of = slot_of;
  c->align = align;
  free(mark);
  return st;
}

/* Is some operator touching slot s in S?  Are all in S + {v}? */
static bool started(const sctx *c, uint32_t s, const uint64_t *S) {
  for (uint32_t i = c->touch.at[s]; i < c->touch.at[s + 1]; i++)
    if (bit(S, c->touch.list[i])) return true;
  return false;
}
static bool finished(const sctx *c, uint32_t s, const uint64_t *S, uint32_t v) {
  for (uint32_t i = c->touch.at[s]; i < c->touch.at[s + 1]; i++)
    if (c->touch.list[i] != v && !bit(S, c->touch.list[i])) return false;
  return true;
}

/* Running v after the set S (whose live bytes are `open`) as step k: what
 * is live during the step, and what stays live after it. */
static void step(const sctx *c, const uint64_t *S, uint64_t open, uint32_t v, uint32_t k,
                 uint64_t *cost, uint64_t *after) {
  uint64_t born = 0, died = 0, save = 0;
  for (uint32_t i = c->uses.at[v]; i < c->uses.at[v + 1]; i++) {
    uint32_t s = c->uses.list[i];
    if (!c->pin_start[s] && !started(c, s, S)) born += c->size[s];
    if (!c->pin_end[s] && finished(c, s, S, v)) died += c->size[s];
  }
  /* contracts: an output born here over inputs read here for the last
   * time, at most the output's size per output */
  for (uint32_t i = c->pair_at[v]; i < c->pair_at[v + 1];) {
    uint32_t so = c->pairs[i].out, j = i;
    uint64_t sum = 0;
    bool born_here = !c->pin_start[so] && !started(c, so, S);
    for (; j < c->pair_at[v + 1] && c->pairs[j].out == so; j++) {
      uint32_t si = c->pairs[j].in;
      if (born_here && !c->pin_end[si] && finished(c, si, S, v)) sum += c->pairs[j].share;
    }
    save += sum < c->size[so] ? sum : c->size[so];
    i = j;
  }
  uint64_t live = open + born + c->fixed[k];
  *cost = live > save ? live - save : 0;
  *after = open + born - died;
}

/* ---- the search ---------------------------------------------------------- */

/* The states with one number of operators run. */
typedef struct level {
  size_t n;
  uint64_t *bits;   /* per state: done, then ready (2 * words) */
  uint64_t *hash;   /* of done: the XOR of its operators' keys */
  uint64_t *open, *peak;
  uint32_t *parent, *op;
} level;

static void level_free(level *l) {
  free(l->bits);
  free(l->hash);
  free(l->open);
  free(l->peak);
  free(l->parent);
  free(l->op);
  memset(l, 0, sizeof *l);
}

static bool level_alloc(level *l, size_t n, uint32_t words) {
  size_t m = n ? n : 1;
  l->n = n;
  l->bits = malloc(m * 2 * words * sizeof *l->bits);
  l->hash = malloc(m * sizeof *l->hash);
  l->open = malloc(m * sizeof *l->open);
  l->peak = malloc(m * sizeof *l->peak);
  l->parent = malloc(m * sizeof *l->parent);
  l->op = malloc(m * sizeof *l->op);
  return l->bits && l->hash && l->open && l->peak && l->parent && l->op;
}

/* A fixed pseudo-random key per operator (splitmix64): a set's hash is the
 * XOR of its operators' keys, so adding one is one XOR. */
static uint64_t op_key(uint32_t v) {
  uint64_t z = (uint64_t)v * 0x9e3779b97f4a7c15u + 0x632be59bd9b4e019u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* A step tried: operator op run after state parent of the level. */
typedef struct cand {
  uint64_t hash, peak, open;
  uint32_t parent, op;
  uint32_t idx; /* the order tried: every tie goes to the first */
} cand;

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }
static int cmp_cand_hash(const void *a, const void *b) {
  const cand *x = a, *y = b;
  int k = cmp_u64(x->hash, y->hash);
  if (!k) k = cmp_u64(x->peak, y->peak);
  return k ? k : cmp_u64(x->idx, y->idx);
}
static int cmp_cand_rank(const void *a, const void *b) {
  const cand *x = a, *y = b;
  int k = cmp_u64(x->peak, y->peak);
  if (!k) k = cmp_u64(x->open, y->open);
  return k ? k : cmp_u64(x->idx, y->idx);
}
static int cmp_cand_idx(const void *a, const void *b) {
  return cmp_u64(((const cand *)a)->idx, ((const cand *)b)->idx);
}

/* The set a step reaches: its parent's operators and its own. */
static void cand_set(const level *l, uint32_t words, const cand *x, uint64_t *out) {
  memcpy(out, &l->bits[(size_t)x->parent * 2 * words], words * sizeof *out);
  out[x->op >> 6] |= UINT64_C(1) << (x->op & 63);
}

/* Merge the steps that reach one set (sorted by hash, then peak, then
 * order tried: the first of a set is its best) and return how many are
 * left, in place.  tmp holds 2 * words. */
static size_t merge_sets(cand *cs, size_t n, const level *l, uint32_t words, uint64_t *tmp) {
  size_t m = 0;
  for (size_t j = 0; j < n;) {
    size_t e = j, first = m;
    while (e < n && cs[e].hash == cs[j].hash) e++;
    for (size_t a = j; a < e; a++) {
      bool dup = false;
      for (size_t k = first; k < m && !dup && e - j > 1; k++) {
        cand_set(l, words, &cs[a], tmp);
        cand_set(l, words, &cs[k], tmp + words);
        dup = !memcmp(tmp, tmp + words, words * sizeof *tmp);
      }
      if (!dup) cs[m++] = cs[a];
    }
    j = e;
  }
  return m;
}

/* The bound of g's own order, step by step. */
static mp_status model_order_bound(const sctx *c, uint64_t *out) {
  uint64_t *S = calloc(c->words ? c->words : 1, sizeof *S);
  if (!S) return MP_ERR_NOMEM;
  uint64_t open = c->open0, peak = 0;
  for (uint32_t v = 0; v < c->n; v++) {
    uint64_t cost, after;
    step(c, S, open, v, v, &cost, &after);
    if (cost > peak) peak = cost;
    open = after;
    S[v >> 6] |= UINT64_C(1) << (v & 63);
  }
  free(S);
  *out = peak;
  return MP_OK;
}

/* The whole in-place bound of the order pos (pos[p]: g's operator run at
 * step p; NULL: g's own order), its chains included (mp_inplace_bound):
 * each slot live from its first step to its last, each contract a pair
 * where its input is read for the last time and its output first written. */
static mp_status full_bound(const sctx *c, const uint32_t *pos, uint64_t *out) {
  const mp_graph *g = c->g;
  uint32_t n = c->n, ns = c->ns;
  uint32_t *step_of = malloc((n ? n : 1) * sizeof *step_of);
  mp_inplace_slot *slots = malloc((ns ? ns : 1) * sizeof *slots);
  mp_inplace_pair *pairs = malloc((g->n_overlaps ? g->n_overlaps : 1) * sizeof *pairs);
  if (!step_of || !slots || !pairs) {
    free(step_of);
    free(slots);
    free(pairs);
    return MP_ERR_NOMEM;
  }
  for (uint32_t p = 0; p < n; p++) step_of[pos ? pos[p] : p] = p;
  for (uint32_t s = 0; s < ns; s++) {
    int32_t lo = INT32_MAX, hi = -1;
    for (uint32_t i = c->touch.at[s]; i < c->touch.at[s + 1]; i++) {
      int32_t k = (int32_t)step_of[c->touch.list[i]];
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
    if (hi < 0) { /* touched by no operator */
      lo = c->pin_start[s] || n == 0 ? 0 : (int32_t)n - 1;
      hi = c->pin_end[s] && n ? (int32_t)n - 1 : lo;
    }
    if (c->pin_start[s]) lo = 0;
    if (c->pin_end[s] && n) hi = (int32_t)n - 1;
    slots[s] = (mp_inplace_slot){s, c->size[s], c->align[s], lo, hi, 0, 0};
  }
  size_t np = 0;
  for (uint32_t i = 0; i < g->n_overlaps; i++) {
    const mp_overlap *ov = &g->overlaps[i];
    if (ov->op >= n || ov->input >= g->n_tensors || ov->output >= g->n_tensors) continue;
    int32_t ri = root(g, (int32_t)ov->input), ro = root(g, (int32_t)ov->output);
    int32_t si = c->slot_of[ri], so = c->slot_of[ro];
    if (si < 0 || so < 0 || si == so || g->tensors[ri].has_subviews || g->tensors[ro].has_subviews)
      continue;
    int32_t k = (int32_t)step_of[ov->op];
    if (slots[si].end != k || slots[so].start != k) continue;
    pairs[np++] = (mp_inplace_pair){(uint32_t)k, (uint32_t)si, (uint32_t)so, ov->min_gap,
                                    ov->period > 1 ? ov->period : 1};
  }
  /* by step, then input and output, the larger gap of a pair given twice */
  for (size_t i = 1; i < np; i++)
    for (size_t j = i; j > 0; j--) {
      mp_inplace_pair *a = &pairs[j - 1], *b = &pairs[j];
      bool after = a->op != b->op ? a->op > b->op : a->in != b->in ? a->in > b->in : a->out > b->out;
      if (!after) break;
      mp_inplace_pair t = *a;
      *a = *b;
      *b = t;
    }
  size_t u = 0;
  for (size_t i = 0; i < np; i++)
    if (u && pairs[u - 1].op == pairs[i].op && pairs[u - 1].in == pairs[i].in &&
        pairs[u - 1].out == pairs[i].out) {
      if (pairs[i].gap > pairs[u - 1].gap) pairs[u - 1].gap = pairs[i].gap;
      pairs[u - 1].period = mp_lcm64(pairs[u - 1].period, pairs[i].period);
    } else {
      pairs[u++] = pairs[i];
    }
  *out = mp_inplace_bound(g, pairs, u, slots, ns);
  free(step_of);
  free(slots);
  free(pairs);
  return MP_OK;
}

/* The DP; on success order[] holds positions of g, *found whether an order
 * below `bound` was found (else order is untouched). */
static mp_status search(const sctx *c, uint64_t bound, uint64_t budget, uint32_t *order,
                        bool *found, uint64_t *best, mp_order_result *r) {
  uint32_t n = c->n, words = c->words;
  /* the budget counts steps tried (a state and an operator run after it),
   * spread evenly over the n levels; a level keeps as many states as its
   * share allows at the last level's steps per state */
  uint64_t per_level = budget / (n ? n : 1);
  if (per_level < 1) per_level = 1;
  *found = false;
  r->exact = true;
  level *lv = calloc((size_t)n + 1, sizeof *lv);
  uint64_t *tmp = malloc(2 * (size_t)words * sizeof *tmp);
  cand *cs = NULL;
  size_t cap = 0;
  mp_status st = lv && tmp ? MP_OK : MP_ERR_NOMEM;
  if (st == MP_OK && !level_alloc(&lv[0], 1, words)) st = MP_ERR_NOMEM;
  if (st == MP_OK) {
    uint64_t *b0 = lv[0].bits;
    memset(b0, 0, 2 * words * sizeof *b0);
    for (uint32_t v = 0; v < n; v++)
      if (c->pred.at[v] == c->pred.at[v + 1]) b0[words + (v >> 6)] |= UINT64_C(1) << (v & 63);
    lv[0].hash[0] = 0;
    lv[0].open[0] = c->open0;
    lv[0].peak[0] = 0;
    lv[0].parent[0] = lv[0].op[0] = 0;
  }
  uint32_t k = 0;
  for (; st == MP_OK && k < n; k++) {
    level *cur = &lv[k], *next = &lv[k + 1];
    /* every step from every state, but those that reach the bound */
    size_t nc = 0;
    for (size_t i = 0; i < cur->n && st == MP_OK; i++) {
      const uint64_t *S = &cur->bits[i * 2 * words], *ready = S + words;
      for (uint32_t wd = 0; wd < words && st == MP_OK; wd++)
        for (uint64_t m = ready[wd]; m; m &= m - 1) {
          uint32_t v = wd * 64 + (uint32_t)__builtin_ctzll(m);
          uint64_t cost, after;
          step(c, S, cur->open[i], v, k, &cost, &after);
          uint64_t np = cost > cur->peak[i] ? cost : cur->peak[i];
          r->states++;
          if (np >= bound) continue; /* only strictly better orders */
          if (nc == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            cand *g2 = realloc(cs, ncap * sizeof *cs);
            if (!g2) {
              st = MP_ERR_NOMEM;
              break;
            }
            cs = g2;
            cap = ncap;
          }
          cs[nc] = (cand){cur->hash[i] ^ op_key(v), np, after, (uint32_t)i, v, (uint32_t)nc};
          nc++;
        }
    }
    if (st != MP_OK || nc == 0) break;
    /* one state per set, then the best the level's share allows */
    qsort(cs, nc, sizeof *cs, cmp_cand_hash);
    size_t tried = nc;
    nc = merge_sets(cs, nc, cur, words, tmp);
    uint64_t steps = cur->n ? (tried + cur->n - 1) / cur->n : 1;
    size_t width = (size_t)(per_level / (steps ? steps : 1));
    if (width < 1) width = 1;
    if (width > MAX_WIDTH) width = MAX_WIDTH;
    if (nc > width) {
      r->exact = false;
      qsort(cs, nc, sizeof *cs, cmp_cand_rank);
      nc = width;
    }
    qsort(cs, nc, sizeof *cs, cmp_cand_idx);
    if (!level_alloc(next, nc, words)) {
      st = MP_ERR_NOMEM;
      break;
    }
    for (size_t s = 0; s < nc; s++) {
      const cand *x = &cs[s];
      uint64_t *b = &next->bits[s * 2 * words];
      const uint64_t *pb = &cur->bits[(size_t)x->parent * 2 * words];
      uint32_t v = x->op;
      cand_set(cur, words, x, b);
      /* ready: the parent's, less v, plus v's successors now free */
      memcpy(b + words, pb + words, words * sizeof *b);
      b[words + (v >> 6)] &= ~(UINT64_C(1) << (v & 63));
      for (uint32_t e = c->succ.at[v]; e < c->succ.at[v + 1]; e++) {
        uint32_t w = c->succ.list[e];
        bool free_now = true;
        for (uint32_t q = c->pred.at[w]; q < c->pred.at[w + 1] && free_now; q++)
          free_now = bit(b, c->pred.list[q]);
        if (free_now) b[words + (w >> 6)] |= UINT64_C(1) << (w & 63);
      }
      next->hash[s] = x->hash;
      next->open[s] = x->open;
      next->peak[s] = x->peak;
      next->parent[s] = x->parent;
      next->op[s] = v;
    }
    /* only the parents are needed from here on */
    free(cur->bits);
    free(cur->hash);
    free(cur->open);
    free(cur->peak);
    cur->bits = NULL;
    cur->hash = cur->open = cur->peak = NULL;
  }
  if (st == MP_OK && k == n && lv[n].n == 1) {
    *found = true;
    *best = lv[n].peak[0];
    uint32_t s = 0;
    for (uint32_t p = n; p-- > 0;) {
      order[p] = lv[p + 1].op[s];
      s = lv[p + 1].parent[s];
    }
  }
  for (uint32_t i = 0; lv && i <= n; i++) level_free(&lv[i]);
  free(lv);
  free(tmp);
  free(cs);
  return st;
}

mp_status mp_order_search(const mp_graph *g, uint32_t alignment, bool in_place, uint64_t budget,
                          uint32_t *order, mp_order_result *r) {
  memset(r, 0, sizeof *r);
  r->searched = true;
  r->in_place = in_place;
  uint32_t n = g->n_ops;
  for (uint32_t p = 0; p < n; p++) order[p] = g->ops[p].model_index;
  sctx c = {.g = g, .n = n, .words = (n + 63) / 64};
  bool odd = false;
  mp_status st = deps(g, &c.pred, &c.succ, &odd);
  if (st == MP_OK) st = slots_build(&c, alignment, in_place);
  if (st == MP_OK) st = model_order_bound(&c, &r->model_bound);
  r->bound = r->model_bound;
  uint32_t *pos = st == MP_OK ? malloc((n ? n : 1) * sizeof *pos) : NULL;
  if (st == MP_OK && !pos) st = MP_ERR_NOMEM;
  bool found = false;
  uint64_t best = 0;
  if (st == MP_OK && !odd && n > 1)
    st = search(&c, r->model_bound, budget ? budget : DEFAULT_BUDGET, pos, &found, &best, r);
  else
    r->exact = st == MP_OK && n <= 1;
  /* in place, the search's figure is a step's own bound; an order is kept
   * when its whole bound, chains included, is lower too */
  uint64_t whole = r->model_bound;
  if (st == MP_OK && in_place) st = full_bound(&c, NULL, &whole);
  if (st == MP_OK && in_place && found && best < r->model_bound) {
    uint64_t b;
    st = full_bound(&c, pos, &b);
    found = st == MP_OK && b < whole;
    best = b;
  }
  if (in_place) r->model_bound = r->bound = whole;
  if (st == MP_OK && found && best < r->model_bound) {
    r->bound = best;
    for (uint32_t p = 0; p < n; p++) {
      order[p] = g->ops[pos[p]].model_index;
      r->moved += pos[p] != p;
    }
  }
  free(pos);
  free(c.size);
  free(c.align);
  free(c.slot_of);
  free(c.pin_start);
  free(c.pin_end);
  free(c.fixed);
  csr_free(&c.touch);
  csr_free(&c.uses);
  free(c.pair_at);
  free(c.pairs);
  csr_free(&c.pred);
  csr_free(&c.succ);
  return st;
}

/* ---- the independent check ---------------------------------------------- */

bool mp_order_check(const mp_graph *g, char *why, size_t nwhy) {
  const mp_subgraph_def *sg = &g->model->subgraphs[g->subgraph];
  uint32_t n = g->n_ops;
  if (n != sg->n_ops) {
    snprintf(why, nwhy, "%u operators run, the subgraph has %u", n, sg->n_ops);
    return false;
  }
  /* position of every model operator, and which run at all */
  uint32_t *at = malloc((n ? n : 1) * sizeof *at);
  if (!at) {
    snprintf(why, nwhy, "out of memory");
    return false;
  }
  for (uint32_t i = 0; i < n; i++) at[i] = UINT32_MAX;
  bool ok = true;
  for (uint32_t p = 0; p < n && ok; p++) {
    uint32_t mi = g->ops[p].model_index;
    if (mi >= n || at[mi] != UINT32_MAX || g->ops[p].def != &sg->ops[mi]) {
      snprintf(why, nwhy, "position %u runs model operator %u, which is not one operator once", p,
               mi);
      ok = false;
    } else {
      at[mi] = p;
    }
  }
  /* every input after its writer (the model's operators, PADs unfolded);
   * a tensor the model itself reads before writing is left as it is */
  int32_t *prod = ok ? malloc((sg->n_tensors ? sg->n_tensors : 1) * sizeof *prod) : NULL;
  if (ok && !prod) {
    snprintf(why, nwhy, "out of memory");
    ok = false;
  }
  for (uint32_t t = 0; ok && t < sg->n_tensors; t++) prod[t] = -1;
  for (uint32_t w = 0; ok && w < n; w++)
    for (uint32_t k = 0; k < sg->ops[w].n_outputs; k++) {
      int32_t t = sg->ops[w].outputs[k];
      if (t >= 0 && (uint32_t)t < sg->n_tensors && prod[t] < 0) prod[t] = (int32_t)w;
    }
  for (uint32_t r = 0; r < n && ok; r++) {
    const mp_op_def *dr = &sg->ops[r];
    for (uint32_t q = 0; q < dr->n_inputs + dr->n_intermediates && ok; q++) {
      int32_t x = q < dr->n_inputs ? dr->inputs[q] : dr->intermediates[q - dr->n_inputs];
      if (x < 0 || (uint32_t)x >= sg->n_tensors) continue;
      int32_t w = prod[x];
      if (w < 0 || (uint32_t)w >= r || at[w] < at[r]) continue;
      snprintf(why, nwhy, "model operator %u (%s) reads tensor %d before operator %d (%s) "
               "writes it", r, g->ops[at[r]].name, x, w, g->ops[at[w]].name);
      ok = false;
    }
  }
  free(prod);
  /* the barriers in model order */
  int32_t last = -1;
  for (uint32_t mi = 0; mi < n && ok; mi++) {
    if (!mp_op_is_barrier(g, at[mi])) continue;
    if (last >= 0 && at[last] > at[mi]) {
      snprintf(why, nwhy, "operators %d (%s) and %u (%s) have side effects or state and run out "
               "of model order", last, g->ops[at[last]].name, mi, g->ops[at[mi]].name);
      ok = false;
    }
    last = (int32_t)mi;
  }
  free(at);
  return ok;
}
