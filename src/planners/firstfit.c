/*
 * firstfit.c — the first-fit placement engine (see firstfit.h for the
 * contract and the use for bank spilling).
 *
 * Time is compressed to the ranks of the distinct start times: an item
 * [s, e] becomes [rank(s), rank(last start <= e)], which keeps exactly the
 * same pairs overlapping and makes the tree size depend on n, not on the
 * time values.  The tree is an implicit, power-of-two segment tree over
 * those ranks (node 1 is the root, leaves are nodes nleaf..2*nleaf-1).
 *
 * Every node keeps a set of blocks: the union of some placed spans
 * [off, top) as sorted, disjoint blocks that do not even touch (a packed
 * run of spans is one block), in a treap that also knows, per subtree, the
 * widest gap between its blocks (spans.c).  An item is stored at the nodes of its
 * interval's decomposition and at their ancestors:
 *   all(v)   holds every item that meets v's time range, except the items
 *            stored at a "high" ancestor of v (more than PUSH_MAX leaves);
 *            an item stored at a low node is stored at every node below it
 *            too, so that a query never looks above its canonical nodes
 *            for it;
 *   own(v)   (high nodes only) the items stored at v: they cover v's range.
 * So the placed items that meet [lo, hi] in time are those in all() of the
 * canonical nodes of [lo, hi], plus those in own() of the high nodes that
 * [lo, hi] overlaps in part (ancestors of the leaves lo and hi).  A query
 * gathers those O(log T) sets and asks each in turn for the lowest window
 * [x', x' + size), x' >= x, that none of its blocks meets (one descent of
 * its treap, gaps too narrow skipped whole), and moves x there, until one
 * whole round over the sets leaves x in place.  The sets of the canonical
 * nodes hold everything live at their times, so on dense problems their
 * gaps are the real holes of the layout: a query costs a few descents per
 * set however many items are live.  An insertion merges the span into
 * O(log T + PUSH_MAX) sets, O(log n) each.
 *
 * Undo: every change to a set goes on a trail (the set, the block
 * inserted, and the subtree of the blocks it merged), and mark[k] is the
 * trail length before the k-th placement, so truncating restores the sets
 * exactly; truncating to no placement just empties them.  A one-shot run
 * (mp_firstfit_solve) keeps no trail.  If the node pool or the trail
 * cannot grow, the engine goes on with the scan below for good: slower,
 * never wrong.
 *
 * Zero-size items are never stored: they collide with nothing.
 *
 * Two other indexes give the same offsets as the tree.  The scan (see "the
 * scan"): small or dense problems keep one offset-sorted array of the
 * placed items (SMALL_N, DENSE_N below); larger ones one per bucket of
 * time ranks, when the buckets an item meets hold few items
 * (BUCKET_BUDGET), which is what lifetimes spread over many distinct times
 * give: there the tree's sets are fragmented differently from one time
 * range to the next, and its queries move the candidate offset hundreds of
 * times.  And a one-shot placement in start order (mp_firstfit_solve, the
 * greedy planner) sweeps time with a treap of the live spans
 * (firstfit_sweep.c).
 */
#include "planners/firstfit.h"
#include "planners/spans.h"

#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Small or dense problems skip the tree: the placed items are kept in one
 * array sorted by offset and a query scans it once, skipping the items that
 * do not overlap in time.  That costs O(placed) per query, which beats the
 * tree when there are few items (local search on a model's tensors, with
 * constant undo), or when most items overlap most others anyway. */
#define SMALL_N MP_FIRSTFIT_SMALL_N
#define DENSE_N 1024u
#define DENSE_FRACTION 16u

/* Above those sizes the scan keeps one offset-sorted array per bucket of
 * time ranks, and a query scans only the buckets its lifetime meets, each
 * once (see "the scan" below).  It is chosen over the tree when the
 * buckets an item meets hold at most this many items on average, at the
 * bucket width that makes that figure smallest: a contiguous scan of a
 * few thousand entries costs a few microseconds, where the tree's query
 * costs dozens of treap descents per move of its candidate offset. */
#define BUCKET_BUDGET 8192u

/* Items stored at a node of at most this many leaves are stored in every
 * node below it too (see all(v) above). */
#define PUSH_MAX 64u

/* Sets a query gathers at most: two canonical nodes and two high
 * ancestors per level of a tree of at most 2^32 leaves. */
#define MAX_QUERY_SETS 132u

#define NONE UINT64_MAX

typedef struct span {
  uint64_t off, top; /* [off, top) */
} span;

/* A placed item as the scan of small problems reads it: everything it
 * needs in one cache line. */
typedef struct placed {
  uint64_t off, top;
  int32_t start, end;
  uint32_t index;
} placed;

/* The scan's placed items meeting one bucket of time ranks, sorted by
 * (offset, index). */
typedef struct bucket {
  placed *e;
  uint32_t len, cap;
} bucket;

/* One change to a set:
 *   CH_NEW   block `node` went in, and the blocks of subtree `other` (-1:
 *            none) went out, merged into it;
 *   CH_TOP   block `node` grew upwards from top `old`;
 *   CH_OFF   block `node` grew downwards from offset `old`;
 *   CH_JOIN  block `node` grew from top `old` over block `other`, which
 *            went out. */
enum { CH_NEW, CH_TOP, CH_OFF, CH_JOIN };
typedef struct change {
  uint32_t set, kind;
  int32_t node, other;
  uint64_t old;
} change;

struct mp_firstfit {
  const mp_item *items;
  size_t n;
  uint32_t nleaf;      /* leaves, a power of two >= the number of ranks */
  uint32_t *lo, *hi;   /* compressed inclusive interval per item */
  int32_t *root;       /* per set: root[2v] own(v), root[2v + 1] all(v) */
  mp_span_node *pool;  /* the sets' nodes */
  size_t n_pool, cap_pool;
  int32_t free_node;   /* a list through .left */
  uint64_t prio;       /* xorshift state for treap priorities */
  uint32_t *stamp;     /* per node: the last insertion that reached it */
  uint32_t stamp_now;
  bool no_undo;        /* keep no trail: only truncation to 0 is allowed */
  change *trail;
  size_t n_trail, cap_trail;
  size_t *mark;        /* mark[k]: trail length before the k-th placement */
  uint64_t *offset;    /* per item, valid while placed */
  uint32_t *stack;     /* placement order */
  uint64_t *heights;   /* heights[k]: height after k + 1 placements */
  size_t depth;
  bool small;          /* the scan, not the tree */
  bool counted;        /* the scan counts its cost (buckets chosen by their cost) */
  struct placed *by_off; /* the single bucket's placed items, by (offset, index) */
  uint32_t bw, nb;     /* the scan's buckets: nb of bw ranks each */
  struct bucket *bk;
  uint32_t *pos;       /* per bucket of a query: where its scan stands */
  struct bucket fallback; /* the one bucket after memory ran out (no allocation) */
  uint32_t fallback_pos;
  uint64_t cost;       /* sets visited and moves made by queries */
};

/* Average number of other items an item overlaps in time, from the
 * compressed intervals: item i overlaps j unless hi[j] < lo[i] or
 * lo[j] > hi[i]. */
static uint64_t overlaps_per_item(const mp_firstfit *ff) {
  size_t n = ff->n;
  if (n == 0) return 0;
  int32_t *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
  if (!lo || !hi) {
    free(lo);
    free(hi);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    lo[i] = (int32_t)ff->lo[i];
    hi[i] = (int32_t)ff->hi[i];
  }
  qsort(lo, n, sizeof *lo, mp_cmp_i32);
  qsort(hi, n, sizeof *hi, mp_cmp_i32);
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    /* items ending before lo[i] and items starting after hi[i] miss i */
    size_t ends_before = ff->lo[i] ? mp_count_le_i32(hi, n, (int32_t)ff->lo[i] - 1) : 0;
    size_t starts_after = n - mp_count_le_i32(lo, n, (int32_t)ff->hi[i]);
    total += n - ends_before - starts_after - 1;
  }
  free(lo);
  free(hi);
  return total / n;
}

/* The scan's bucket width: the power of two w (in ranks, at most the
 * number of ranks m) that minimises what queries and insertions touch, the
 * sum over the items of the number of items meeting their buckets (item i
 * meets buckets lo / w .. hi / w); *per_item gets that sum over n.
 * O((n + m) log m). */
static uint32_t bucket_width(const mp_firstfit *ff, uint32_t m, uint64_t *per_item) {
  size_t n = ff->n;
  *per_item = UINT64_MAX;
  if (n == 0 || m == 0) return 1;
  uint64_t *d = malloc(((size_t)m + 1) * sizeof *d);
  if (!d) return m;
  uint32_t best_w = m;
  uint64_t best = UINT64_MAX;
  for (uint64_t w = 1;; w *= 2) {
    size_t nb = (size_t)((m + w - 1) / w);
    memset(d, 0, (nb + 1) * sizeof *d);
    /* differences of the count of items meeting each bucket (wrapping) */
    for (size_t i = 0; i < n; i++) {
      d[ff->lo[i] / w]++;
      d[ff->hi[i] / w + 1]--;
    }
    /* d[b] becomes the sum of the counts of buckets before b */
    uint64_t run = 0, acc = 0;
    for (size_t b = 0; b < nb; b++) {
      run += d[b];
      d[b] = acc;
      acc += run;
    }
    d[nb] = acc;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += d[ff->hi[i] / w + 1] - d[ff->lo[i] / w];
    if (total <= best) {
      best = total;
      best_w = (uint32_t)w;
    }
    if (w >= m) break;
  }
  free(d);
  *per_item = best / n;
  return best_w;
}

/* The scan's buckets for width ff->bw over m ranks: one bucket is the
 * preallocated by_off array (which never grows); more grow as they fill.
 * False when memory runs out. */
static bool set_buckets(mp_firstfit *ff, uint32_t m) {
  uint32_t nb = m ? (uint32_t)(((uint64_t)m + ff->bw - 1) / ff->bw) : 1;
  ff->bk = calloc(nb, sizeof *ff->bk);
  ff->pos = malloc(nb * sizeof *ff->pos);
  if (!ff->bk || !ff->pos) return false;
  ff->nb = nb;
  if (nb == 1) {
    ff->bk[0].e = ff->by_off;
    ff->bk[0].cap = (uint32_t)(ff->n ? ff->n : 1);
  }
  return true;
}

static void free_buckets(mp_firstfit *ff) {
  if (ff->bk != &ff->fallback) {
    if (ff->bk && ff->nb > 1)
      for (uint32_t b = 0; b < ff->nb; b++) free(ff->bk[b].e);
    free(ff->bk);
    free(ff->pos);
  }
  ff->bk = NULL;
  ff->pos = NULL;
}

mp_status mp_firstfit_new(const mp_item *items, size_t n, mp_firstfit **out) {
  return mp_firstfit_new_as(items, n, NULL, out);
}

mp_status mp_firstfit_new_as(const mp_item *items, size_t n, const char *mode,
                             mp_firstfit **out) {
  *out = NULL;
  if (n > UINT32_MAX / 4) return MP_ERR_NOMEM;
  mp_firstfit *ff = calloc(1, sizeof *ff);
  if (!ff) return MP_ERR_NOMEM;
  ff->items = items;
  ff->n = n;
  ff->free_node = -1;
  ff->prio = 0x2545f4914f6cdd1dULL;
  size_t nn = n ? n : 1;
  int32_t *starts = malloc(nn * sizeof *starts);
  ff->lo = malloc(nn * sizeof *ff->lo);
  ff->hi = malloc(nn * sizeof *ff->hi);
  ff->offset = calloc(nn, sizeof *ff->offset);
  ff->stack = malloc(nn * sizeof *ff->stack);
  ff->heights = malloc(nn * sizeof *ff->heights);
  /* the scan's array also backs the tree up when memory runs out */
  ff->by_off = malloc(nn * sizeof *ff->by_off);
  if (!starts || !ff->lo || !ff->hi || !ff->offset || !ff->stack || !ff->heights || !ff->by_off)
    goto nomem;

  /* compress time to ranks of distinct starts */
  for (size_t i = 0; i < n; i++) starts[i] = items[i].start;
  qsort(starts, n, sizeof *starts, mp_cmp_i32);
  uint32_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m == 0 || starts[m - 1] != starts[i]) starts[m++] = starts[i];
  for (size_t i = 0; i < n; i++) {
    ff->lo[i] = (uint32_t)mp_count_le_i32(starts, m, items[i].start) - 1;
    ff->hi[i] = (uint32_t)mp_count_le_i32(starts, m, items[i].end) - 1;
  }
  free(starts);
  starts = NULL;
  ff->bw = m ? m : 1;
  ff->nb = 1;
  bool tree;
  if (mode) {
    tree = !strcmp(mode, "tree");
    if (!strcmp(mode, "buckets")) {
      uint64_t per_item;
      ff->bw = bucket_width(ff, m, &per_item);
      ff->counted = true;
    }
  } else if (n <= SMALL_N || (n <= DENSE_N && overlaps_per_item(ff) >= n / DENSE_FRACTION)) {
    tree = false;
  } else {
    uint64_t per_item;
    uint32_t bw = bucket_width(ff, m, &per_item);
    tree = per_item > BUCKET_BUDGET;
    if (!tree) {
      ff->bw = bw;
      ff->counted = true;
    }
  }
  if (!tree) {
    ff->small = true;
    if (!ff->bw) ff->bw = 1;
    if (!set_buckets(ff, m)) goto nomem;
    *out = ff;
    return MP_OK;
  }

  ff->nleaf = 1;
  while (ff->nleaf < m) ff->nleaf *= 2;
  size_t nodes = 2 * (size_t)ff->nleaf;
  ff->root = malloc(2 * nodes * sizeof *ff->root);
  ff->stamp = calloc(nodes, sizeof *ff->stamp);
  ff->mark = malloc(nn * sizeof *ff->mark);
  if (!ff->root || !ff->stamp || !ff->mark) goto nomem;
  for (size_t k = 0; k < 2 * nodes; k++) ff->root[k] = -1;
  *out = ff;
  return MP_OK;
nomem:
  free(starts);
  mp_firstfit_free(&ff);
  return MP_ERR_NOMEM;
}

/* Free the tree's memory (when the engine ends, or falls back to the scan). */
static void free_tree(mp_firstfit *ff) {
  free(ff->root);
  free(ff->pool);
  free(ff->stamp);
  free(ff->trail);
  free(ff->mark);
  ff->root = NULL;
  ff->pool = NULL;
  ff->stamp = NULL;
  ff->trail = NULL;
  ff->mark = NULL;
}

void mp_firstfit_free(mp_firstfit **pff) {
  if (!pff || !*pff) return;
  mp_firstfit *ff = *pff;
  free_tree(ff);
  free_buckets(ff);
  free(ff->lo);
  free(ff->hi);
  free(ff->offset);
  free(ff->stack);
  free(ff->heights);
  free(ff->by_off);
  free(ff);
  *pff = NULL;
}

void mp_firstfit_no_undo(mp_firstfit *ff) {
  ff->no_undo = true;
  ff->n_trail = 0;
}

/* ---- block sets ------------------------------------------------------------ */

/* A new node holding span e, or -1 when the pool cannot grow. */
static int32_t node_new(mp_firstfit *ff, span e) {
  int32_t v = ff->free_node;
  if (v >= 0) {
    ff->free_node = ff->pool[v].left;
  } else {
    if (ff->n_pool == ff->cap_pool) {
      size_t cap = ff->cap_pool ? 2 * ff->cap_pool : 1024;
      if (cap > INT32_MAX) return -1;
      mp_span_node *p = realloc(ff->pool, cap * sizeof *p);
      if (!p) return -1;
      ff->pool = p;
      ff->cap_pool = cap;
    }
    v = (int32_t)ff->n_pool++;
  }
  /* xorshift priorities: deterministic, and a balanced treap on average */
  ff->prio ^= ff->prio << 13;
  ff->prio ^= ff->prio >> 7;
  ff->prio ^= ff->prio << 17;
  ff->pool[v] = (mp_span_node){e.off, e.top, e.off, e.top, 0, (uint32_t)(ff->prio >> 32), -1, -1};
  return v;
}

/* Give the nodes of subtree v back to the pool. */
static void free_subtree(mp_firstfit *ff, int32_t v) {
  while (v >= 0) {
    free_subtree(ff, ff->pool[v].right);
    int32_t l = ff->pool[v].left;
    ff->pool[v].left = ff->free_node;
    ff->free_node = v;
    v = l;
  }
}

static bool trail_room(mp_firstfit *ff);

/* Merge span e into set `id`, recording the change.  False (nothing
 * changed) when memory runs out. */
static bool set_add(mp_firstfit *ff, uint32_t id, span e) {
  mp_span_node *t = ff->pool;
  /* already inside a block: the block starting last at or below e.off */
  for (int32_t v = ff->root[id]; v >= 0;) {
    if (t[v].off <= e.off) {
      if (e.top <= t[v].top) return true;
      v = t[v].right;
    } else {
      v = t[v].left;
    }
  }
  if (!trail_room(ff)) return false;
  int32_t x = node_new(ff, e);
  if (x < 0) return false;
  t = ff->pool;
  /* below: top < e.off; touching or overlapping: off <= e.top; above */
  int32_t l, mid, r;
  mp_spans_split_top(t, ff->root[id], e.off, &l, &mid);
  mp_spans_split(t, mid, e.top + 1, &mid, &r);
  if (mid >= 0) {
    t[x].off = t[x].min_off = mp_min_u64(e.off, t[mid].min_off);
    t[x].top = t[x].max_top = mp_max_u64(e.top, t[mid].max_top);
  }
  ff->root[id] = mp_spans_merge(t, mp_spans_merge(t, l, x), r);
  if (ff->no_undo)
    free_subtree(ff, mid);
  else
    ff->trail[ff->n_trail++] = (change){id, CH_NEW, x, mid, 0};
  return true;
}

static bool trail_room(mp_firstfit *ff) {
  if (ff->no_undo || ff->n_trail < ff->cap_trail) return true;
  size_t cap = ff->cap_trail ? 2 * ff->cap_trail : 1024;
  change *c = realloc(ff->trail, cap * sizeof *c);
  if (!c) return false;
  ff->trail = c;
  ff->cap_trail = cap;
  return true;
}

static void record(mp_firstfit *ff, change c) {
  if (!ff->no_undo) ff->trail[ff->n_trail++] = c;
}

/* set_add for a span that meets no block of the set (it may touch one
 * below and one above): at most one descent and one path to refresh.
 * This holds for the sets at and below an item's decomposition nodes: the
 * item covers their time ranges and was placed free of everything live
 * there. */
static bool set_add_free(mp_firstfit *ff, uint32_t id, span e) {
  mp_span_node *t = ff->pool;
  int32_t pred = -1, succ = -1;
  for (int32_t v = ff->root[id]; v >= 0;) {
    if (t[v].off < e.off) {
      pred = v;
      v = t[v].right;
    } else {
      succ = v;
      v = t[v].left;
    }
  }
  bool below = pred >= 0 && t[pred].top == e.off, above = succ >= 0 && t[succ].off == e.top;
  if (!trail_room(ff)) return false;
  if (!below && !above) {
    int32_t x = node_new(ff, e);
    if (x < 0) return false;
    t = ff->pool;
    ff->root[id] = mp_spans_insert(t, ff->root[id], x);
    record(ff, (change){id, CH_NEW, x, -1, 0});
  } else if (!above) {
    uint64_t old = t[pred].top;
    t[pred].top = e.top;
    mp_spans_fix_path(t, ff->root[id], t[pred].off);
    record(ff, (change){id, CH_TOP, pred, -1, old});
  } else if (!below) {
    uint64_t old = t[succ].off;
    t[succ].off = e.off;
    mp_spans_fix_path(t, ff->root[id], e.off);
    record(ff, (change){id, CH_OFF, succ, -1, old});
  } else {
    uint64_t old = t[pred].top;
    ff->root[id] = mp_spans_remove_at(t, ff->root[id], t[succ].off);
    t[pred].top = t[succ].top;
    mp_spans_fix_path(t, ff->root[id], t[pred].off);
    if (ff->no_undo) {
      t[succ].left = ff->free_node;
      ff->free_node = succ;
    } else {
      record(ff, (change){id, CH_JOIN, pred, succ, old});
    }
  }
  return true;
}

/* Take the most recent change back. */
static void undo_change(mp_firstfit *ff) {
  const change *c = &ff->trail[--ff->n_trail];
  mp_span_node *t = ff->pool;
  int32_t *root = &ff->root[c->set];
  switch (c->kind) {
  case CH_TOP:
    t[c->node].top = c->old;
    mp_spans_fix_path(t, *root, t[c->node].off);
    return;
  case CH_OFF:
    t[c->node].off = c->old;
    mp_spans_fix_path(t, *root, c->old);
    return;
  case CH_JOIN:
    t[c->node].top = c->old;
    mp_spans_fix_path(t, *root, t[c->node].off);
    t[c->other].left = t[c->other].right = -1;
    mp_spans_fix(t, c->other);
    *root = mp_spans_insert(t, *root, c->other);
    return;
  default: break;
  }
  int32_t l, mid, r;
  mp_spans_split(t, ff->root[c->set], t[c->node].off, &l, &mid);
  mp_spans_split(t, mid, t[c->node].off + 1, &mid, &r); /* mid: the node alone */
  t[c->node].left = ff->free_node;
  ff->free_node = c->node;
  ff->root[c->set] = mp_spans_merge(t, mp_spans_merge(t, l, c->other), r);
}

static uint32_t own_set(uint32_t v) { return 2 * v; }
static uint32_t all_set(uint32_t v) { return 2 * v + 1; }

/* Leaves under node v (v >= 1). */
static uint32_t leaves_under(const mp_firstfit *ff, uint32_t v) {
  uint32_t h = 0;
  while (((uint64_t)v << h) < ff->nleaf) h++;
  return (uint32_t)1 << h;
}

/* Store e at decomposition node d: in all(w) for every w under d when d
 * is low, else in own(d) and all(d); then in all() of d's ancestors up to
 * where this insertion already went. */
static bool add_at(mp_firstfit *ff, uint32_t d, span e) {
  uint32_t width = leaves_under(ff, d);
  if (width <= PUSH_MAX) {
    for (uint32_t first = d, w = 1; first < 2 * ff->nleaf; first <<= 1, w <<= 1)
      for (uint32_t v = first; v < first + w; v++)
        if (!set_add_free(ff, all_set(v), e)) return false;
  } else if (!set_add_free(ff, own_set(d), e) || !set_add_free(ff, all_set(d), e)) {
    return false;
  }
  for (uint32_t v = d >> 1; v >= 1; v >>= 1) {
    if (ff->stamp[v] == ff->stamp_now) break;
    ff->stamp[v] = ff->stamp_now;
    if (!set_add(ff, all_set(v), e)) return false;
  }
  return true;
}

static bool tree_add(mp_firstfit *ff, size_t i) {
  span e = {ff->offset[i], ff->offset[i] + ff->items[i].size};
  if (++ff->stamp_now == 0) {
    memset(ff->stamp, 0, 2 * (size_t)ff->nleaf * sizeof *ff->stamp);
    ff->stamp_now = 1;
  }
  for (uint32_t l = ff->lo[i] + ff->nleaf, r = ff->hi[i] + ff->nleaf + 1; l < r; l >>= 1, r >>= 1) {
    if ((l & 1) && !add_at(ff, l++, e)) return false;
    if ((r & 1) && !add_at(ff, --r, e)) return false;
  }
  return true;
}

static void tree_clear(mp_firstfit *ff) {
  for (size_t k = 0; k < 4 * (size_t)ff->nleaf; k++) ff->root[k] = -1;
  ff->n_pool = 0;
  ff->free_node = -1;
  ff->n_trail = 0;
}

static int cmp_placed(const void *a, const void *b) {
  const placed *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Memory ran out in the tree or a bucket: go on with the scan of one
 * bucket, the preallocated by_off, which needs none. */
static void fall_back_to_scan(mp_firstfit *ff) {
  free_tree(ff);
  free_buckets(ff);
  ff->small = true;
  ff->nb = 1;
  ff->bw = UINT32_MAX;
  ff->bk = &ff->fallback;
  ff->pos = &ff->fallback_pos;
  ff->fallback = (bucket){ff->by_off, 0, (uint32_t)(ff->n ? ff->n : 1)};
  for (size_t k = 0; k < ff->depth; k++) {
    uint32_t i = ff->stack[k];
    const mp_item *it = &ff->items[i];
    if (it->size)
      ff->by_off[ff->fallback.len++] =
          (placed){ff->offset[i], ff->offset[i] + it->size, it->start, it->end, i};
  }
  qsort(ff->by_off, ff->fallback.len, sizeof *ff->by_off, cmp_placed);
}

/* ---- query ---------------------------------------------------------------- */

static bool find_tree(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  const mp_item *it = &ff->items[i];
  uint64_t size = it->size, align = it->align ? it->align : 1;
  uint32_t lo = ff->lo[i], hi = ff->hi[i];
  int32_t sets[MAX_QUERY_SETS];
  uint32_t k = 0;
  /* the canonical nodes: every item that meets them, but those stored at
   * high nodes above them */
  for (uint32_t l = lo + ff->nleaf, r = hi + ff->nleaf + 1; l < r; l >>= 1, r >>= 1) {
    if ((l & 1) && ff->root[all_set(l)] >= 0) sets[k++] = ff->root[all_set(l)];
    if (l & 1) l++;
    if ((r & 1) && ff->root[all_set(r - 1)] >= 0) sets[k++] = ff->root[all_set(r - 1)];
    if (r & 1) r--;
  }
  /* the high nodes [lo, hi] overlaps in part: what is stored there covers
   * them */
  uint32_t a = lo + ff->nleaf, b = hi + ff->nleaf;
  for (uint32_t h = 0; a >= 1; a >>= 1, b >>= 1, h++) {
    if (((uint64_t)1 << h) <= PUSH_MAX) continue;
    uint64_t first = ((uint64_t)a << h) - ff->nleaf, last = first + ((uint64_t)1 << h) - 1;
    if ((first < lo || last > hi) && ff->root[own_set(a)] >= 0) sets[k++] = ff->root[own_set(a)];
    if (b == a) continue;
    first = ((uint64_t)b << h) - ff->nleaf;
    last = first + ((uint64_t)1 << h) - 1;
    if ((first < lo || last > hi) && ff->root[own_set(b)] >= 0) sets[k++] = ff->root[own_set(b)];
  }
  const mp_span_node *t = ff->pool;
  uint64_t x = 0, cost = k;
  /* move x to each set's lowest free window at or above it, set after set,
   * until a whole round of sets leaves it in place */
  for (uint32_t j = 0, quiet = 0; quiet < k; j = j + 1 == k ? 0 : j + 1) {
    int32_t v = sets[j];
    uint64_t y = mp_spans_lowest(t, v, 0, x, size, align);
    if (y == NONE) y = mp_align_up(mp_max_u64(x, t[v].max_top), align);
    if (y == x) {
      quiet++;
      continue;
    }
    x = y;
    quiet = 1;
    cost++;
    if (limit && x + size > limit) break;
  }
  ff->cost += cost;
  if (limit && x + size > limit) return false;
  *off = x;
  return true;
}

/* ---- the scan ------------------------------------------------------------------
 *
 * The placed items of non-zero size are kept in buckets of bw consecutive
 * time ranks, each an array sorted by (offset, index) of the items that
 * meet it (an item is in every bucket its ranks meet).  Two items that
 * overlap in time share a rank, hence a bucket.  A query scans the
 * buckets its item meets, in offset order within each: the window rises
 * above every time-overlapping item it meets until the next one starts
 * above it; then the next bucket, and so on round the buckets until a
 * whole round leaves the window in place.  The window only rises, and an
 * entry a bucket's scan has passed can never block it again, so every
 * bucket resumes where it stopped: a query reads each entry of its
 * buckets below the answer at most once.  Small problems have one bucket
 * (the whole time axis). */

static bool find_scan(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  const mp_item *it = &ff->items[i];
  /* the alignment is a power of two (mp_firstfit_new's contract) */
  uint64_t x = 0, size = it->size, mask = (it->align ? it->align : 1) - 1;
  int32_t s = it->start, e = it->end;
  uint32_t b0 = ff->nb == 1 ? 0 : ff->lo[i] / ff->bw, k = ff->nb == 1 ? 1 : ff->hi[i] / ff->bw - b0 + 1;
  uint64_t moves = 0;
  for (uint32_t j = 0; j < k; j++) ff->pos[j] = 0;
  for (uint32_t j = 0, quiet = 0; quiet < k; j = j + 1 == k ? 0 : j + 1) {
    const bucket *bk = &ff->bk[b0 + j];
    const placed *q = bk->e + ff->pos[j], *end = bk->e + bk->len;
    uint64_t x0 = x;
    /* branch-free but for the stop: whether an entry meets the item in
     * time is a coin toss the processor cannot predict */
    for (; q < end; q++) {
      bool meets = (q->start <= e) & (q->end >= s);
      if (meets & (q->off >= x + size)) break;
      uint64_t up = (q->top + mask) & ~mask;
      x = meets & (q->top > x) ? up : x;
    }
    ff->pos[j] = (uint32_t)(q - bk->e);
    if (x == x0) {
      quiet++;
    } else {
      quiet = 1;
      moves++;
    }
    if (limit && x + size > limit) break;
  }
  if (ff->counted) ff->cost += k + moves;
  if (limit && x + size > limit) return false;
  *off = x;
  return true;
}

/* Position of item i (placed at ff->offset[i]) in bucket bk. */
static uint32_t scan_pos(const mp_firstfit *ff, const bucket *bk, size_t i) {
  uint64_t o = ff->offset[i];
  uint32_t a = 0, b = bk->len;
  while (a < b) {
    uint32_t mid = a + (b - a) / 2;
    const placed *q = &bk->e[mid];
    if (q->off < o || (q->off == o && q->index < i))
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

/* The buckets item i meets: first and count. */
static uint32_t scan_buckets(const mp_firstfit *ff, size_t i, uint32_t *count) {
  if (ff->nb == 1) {
    *count = 1;
    return 0;
  }
  uint32_t b0 = ff->lo[i] / ff->bw;
  *count = ff->hi[i] / ff->bw - b0 + 1;
  return b0;
}

/* False when a bucket cannot grow (the buckets before it hold the item). */
static bool scan_add(mp_firstfit *ff, size_t i) {
  const mp_item *it = &ff->items[i];
  uint32_t k, b0 = scan_buckets(ff, i, &k);
  for (uint32_t b = b0; b < b0 + k; b++) {
    bucket *bk = &ff->bk[b];
    if (bk->len == bk->cap) {
      uint32_t cap = bk->cap ? 2 * bk->cap : 16;
      placed *e = cap > bk->cap ? realloc(bk->e, (size_t)cap * sizeof *e) : NULL;
      if (!e) return false;
      bk->e = e;
      bk->cap = cap;
    }
    uint32_t p = scan_pos(ff, bk, i);
    memmove(bk->e + p + 1, bk->e + p, (size_t)(bk->len - p) * sizeof *bk->e);
    bk->e[p] = (placed){ff->offset[i], ff->offset[i] + it->size, it->start, it->end, (uint32_t)i};
    bk->len++;
  }
  return true;
}

static void scan_remove(mp_firstfit *ff, size_t i) {
  uint32_t k, b0 = scan_buckets(ff, i, &k);
  for (uint32_t b = b0; b < b0 + k; b++) {
    bucket *bk = &ff->bk[b];
    uint32_t p = scan_pos(ff, bk, i);
    memmove(bk->e + p, bk->e + p + 1, (size_t)(bk->len - p - 1) * sizeof *bk->e);
    bk->len--;
  }
}

bool mp_firstfit_find(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  const mp_item *it = &ff->items[i];
  if (limit && it->size > limit) return false;
  if (it->size == 0) {
    *off = 0;
    return true;
  }
  if (ff->small) return find_scan(ff, i, limit, off);
  return find_tree(ff, i, limit, off);
}

uint64_t mp_firstfit_cost(const mp_firstfit *ff) { return ff->cost; }

/* ---- update --------------------------------------------------------------- */

void mp_firstfit_insert(mp_firstfit *ff, size_t i, uint64_t off) {
  const mp_item *it = &ff->items[i];
  ff->offset[i] = off;
  uint64_t h = ff->depth ? ff->heights[ff->depth - 1] : 0;
  ff->stack[ff->depth] = (uint32_t)i;
  ff->heights[ff->depth] = mp_max_u64(h, off + it->size);
  if (!ff->small) ff->mark[ff->depth] = ff->n_trail;
  ff->depth++;
  if (it->size == 0) return;
  if (ff->small ? !scan_add(ff, i) : !tree_add(ff, i))
    fall_back_to_scan(ff); /* the stack already holds item i */
}

bool mp_firstfit_place(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  uint64_t o;
  if (!mp_firstfit_find(ff, i, limit, &o)) return false;
  mp_firstfit_insert(ff, i, o);
  if (off) *off = o;
  return true;
}

size_t mp_firstfit_count(const mp_firstfit *ff) { return ff->depth; }

const char *mp_firstfit_mode(const mp_firstfit *ff) {
  return !ff->small ? "tree" : ff->nb > 1 ? "buckets" : "scan";
}

size_t mp_firstfit_placed_at(const mp_firstfit *ff, size_t k) { return ff->stack[k]; }

uint64_t mp_firstfit_offset(const mp_firstfit *ff, size_t i) { return ff->offset[i]; }

uint64_t mp_firstfit_height(const mp_firstfit *ff) {
  return ff->depth ? ff->heights[ff->depth - 1] : 0;
}

uint64_t mp_firstfit_height_at(const mp_firstfit *ff, size_t k) {
  return k ? ff->heights[k - 1] : 0;
}

void mp_firstfit_truncate(mp_firstfit *ff, size_t count) {
  if (ff->depth <= count) return;
  if (!ff->small) {
    if (count == 0 || ff->no_undo) {
      /* without a trail, the kept placements are made again */
      tree_clear(ff);
      for (size_t k = 0; k < count && !ff->small; k++)
        if (ff->items[ff->stack[k]].size && !tree_add(ff, ff->stack[k])) {
          ff->depth = count;
          fall_back_to_scan(ff);
        }
    } else {
      while (ff->n_trail > ff->mark[count]) undo_change(ff);
    }
    ff->depth = count;
    return;
  }
  while (ff->depth > count) {
    size_t i = ff->stack[--ff->depth];
    if (ff->items[i].size) scan_remove(ff, i);
  }
}

uint64_t mp_firstfit_run(mp_firstfit *ff, const uint32_t *order, size_t n_order, size_t keep,
                         uint64_t *offsets) {
  mp_firstfit_truncate(ff, keep);
  for (size_t k = 0; k < n_order; k++) {
    uint64_t off = 0;
    mp_firstfit_place(ff, order[k], 0, &off);
    if (offsets) offsets[order[k]] = off;
  }
  return mp_firstfit_height(ff);
}

/* Placements between two looks at the clock. */
#define CLOCK_EVERY 256u

uint64_t mp_firstfit_run_until(mp_firstfit *ff, const uint32_t *order, size_t n_order,
                               size_t keep, uint64_t *offsets, uint64_t deadline_ms) {
  mp_firstfit_truncate(ff, keep);
  for (size_t k = 0; k < n_order; k++) {
    if (deadline_ms && k % CLOCK_EVERY == 0 && k && mp_now_ms() >= deadline_ms) return UINT64_MAX;
    uint64_t off = 0;
    mp_firstfit_place(ff, order[k], 0, &off);
    if (offsets) offsets[order[k]] = off;
  }
  return mp_firstfit_height(ff);
}

/* ---- orders --------------------------------------------------------------- */

typedef struct sort_key {
  uint64_t size;
  int64_t length; /* end - start */
  int32_t start;
  uint32_t id;
  uint32_t index;
} sort_key;

static int cmp_by_start(const void *a, const void *b) {
  const sort_key *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static int cmp_by_size(const void *a, const void *b) {
  const sort_key *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->length != y->length) return x->length > y->length ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static mp_status sorted_order(const mp_item *items, size_t n, uint32_t *order,
                              int (*cmp)(const void *, const void *)) {
  sort_key *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) return MP_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    k[i] = (sort_key){items[i].size, (int64_t)items[i].end - items[i].start, items[i].start,
                      items[i].id, (uint32_t)i};
  qsort(k, n, sizeof *k, cmp);
  for (size_t i = 0; i < n; i++) order[i] = k[i].index;
  free(k);
  return MP_OK;
}

mp_status mp_firstfit_order_by_start(const mp_item *items, size_t n, uint32_t *order) {
  return sorted_order(items, n, order, cmp_by_start);
}

mp_status mp_firstfit_order_by_size(const mp_item *items, size_t n, uint32_t *order) {
  return sorted_order(items, n, order, cmp_by_size);
}

/* ---- the pressure order ----------------------------------------------------
 *
 * Largest first places a big buffer that lives at quiet times before a
 * smaller one that lives at the peak, and the peak then packs around holes.
 * The pressure order weighs each size by how full the busiest time of its
 * lifetime is: key = size x (pressure / lower bound)^32, pressure the
 * largest live sum over the buffer's lifetime.  Buffers that cover the peak
 * keep their size order and go first; the others follow at a discount that
 * grows fast as their times get quieter.  Integer arithmetic (32.32 fixed
 * point, 128-bit products), so the order is the same on every machine. */

typedef struct pkey {
  unsigned __int128 key;
  uint64_t size;
  int64_t length;
  int32_t start;
  uint32_t id;
  uint32_t index;
} pkey;

static int cmp_pkey(const void *a, const void *b) {
  const pkey *x = a, *y = b;
  if (x->key != y->key) return x->key > y->key ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->length != y->length) return x->length > y->length ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

mp_status mp_firstfit_order_by_pressure(const mp_item *items, size_t n, uint32_t *order) {
  mp_firstfit *ff = NULL;
  mp_status st = mp_firstfit_new(items, n, &ff);
  if (st != MP_OK) return st;
  /* live sums per compressed time (ranks of distinct starts keep every
   * time where a live set begins, so the maxima are the same) */
  uint32_t m = 0;
  for (size_t i = 0; i < n; i++) m = ff->hi[i] + 1 > m ? ff->hi[i] + 1 : m;
  size_t M = 1;
  while (M < (m ? m : 1)) M *= 2;
  uint64_t *tree = calloc(2 * M, sizeof *tree); /* range maxima, leaves at M + rank */
  pkey *k = malloc((n ? n : 1) * sizeof *k);
  if (!tree || !k) {
    free(tree);
    free(k);
    mp_firstfit_free(&ff);
    return MP_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    tree[M + ff->lo[i]] += items[i].size;
    if (ff->hi[i] + 1 < m) tree[M + ff->hi[i] + 1] -= items[i].size; /* wraps; the prefix sum below undoes it */
  }
  uint64_t run = 0, lb = 0;
  for (size_t t = 0; t < m; t++) {
    run += tree[M + t];
    tree[M + t] = run;
    lb = run > lb ? run : lb;
  }
  for (size_t v = M; v-- > 1;) tree[v] = mp_max_u64(tree[2 * v], tree[2 * v + 1]);
  for (size_t i = 0; i < n; i++) {
    uint64_t pr = 0;
    for (size_t l = ff->lo[i] + M, r = ff->hi[i] + M + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) pr = mp_max_u64(pr, tree[l++]);
      if (r & 1) pr = mp_max_u64(pr, tree[--r]);
    }
    /* (pressure / lb)^32 in 32.32 fixed point: five squarings */
    uint64_t x = lb ? (uint64_t)(((unsigned __int128)pr << 32) / lb) : (uint64_t)1 << 32;
    for (int s = 0; s < 5; s++) x = (uint64_t)(((unsigned __int128)x * x) >> 32);
    k[i] = (pkey){(unsigned __int128)items[i].size * x, items[i].size,
                  (int64_t)items[i].end - items[i].start, items[i].start, items[i].id, (uint32_t)i};
  }
  qsort(k, n, sizeof *k, cmp_pkey);
  for (size_t i = 0; i < n; i++) order[i] = k[i].index;
  free(tree);
  free(k);
  mp_firstfit_free(&ff);
  return MP_OK;
}
