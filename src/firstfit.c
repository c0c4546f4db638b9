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
 * Each node owns a fixed slice of one pool, sized at construction to the
 * number of items whose interval decomposition contains the node, so
 * placing never allocates.  A slice holds the placed spans (offset, top)
 * sorted by offset; they are disjoint because every item stored in a node
 * covers the node's whole time range.  Per node the engine keeps the
 * largest top and the smallest offset placed anywhere in its subtree, to
 * skip subtrees that cannot collide with the current window.
 *
 * Long-lived items: a query that covers a big subtree would otherwise walk
 * every span in it.  The first time such a subtree (>= UNION_MIN_LEAVES
 * leaves) is covered by a query, the engine builds the union of all spans
 * in it as merged blocks and keeps it up to date on later insertions; the
 * query then does one binary search there, and one jump passes a whole
 * packed run of spans.  Unions cannot be un-merged, so the first undo
 * (mp_firstfit_truncate removing something) drops them for good and the
 * engine goes on with the subtree walk alone; local search, which undoes
 * constantly, works on small problems.  If memory for a union runs out the
 * engine drops them too: slower, never wrong.
 *
 * Zero-size items are never stored: they collide with nothing.
 *
 * Two shortcuts give the same offsets as the tree: small or dense problems
 * scan one offset-sorted array (SMALL_N, DENSE_N below), and a one-shot
 * placement in start order (mp_firstfit_solve, the greedy planner) sweeps
 * time with a treap of the live spans (see "the sweep").
 */
#include "firstfit.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Subtrees smaller than this are cheap to walk; bigger ones get a union
 * when a query covers them. */
#define UNION_MIN_LEAVES 32u

/* Small or dense problems skip the tree: the placed items are kept in one
 * array sorted by offset and a query scans it once, skipping the items that
 * do not overlap in time.  That costs O(placed) per query, which beats the
 * tree when there are few items (local search on a model's tensors, with
 * constant undo), or when most items overlap most others anyway (then a
 * query visits most of the tree too).  Measured crossovers on this
 * machine: about 300 items on sparse problems, and up to several thousand
 * when the average item overlaps more than 1/16 of the others. */
#define SMALL_N 256u
#define DENSE_N 4096u
#define DENSE_FRACTION 16u

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

/* Merged blocks: sorted, disjoint and not touching. */
typedef struct span_set {
  span *s;
  uint32_t len, cap;
} span_set;

struct mp_firstfit {
  const mp_item *items;
  size_t n;
  uint32_t nleaf;      /* leaves, a power of two >= the number of ranks */
  uint32_t *lo, *hi;   /* compressed inclusive interval per item */
  uint32_t *base;      /* per node: start of its slice in pool */
  uint32_t *len;       /* per node: spans placed in its slice */
  span *pool;
  uint64_t *agg_top;   /* per node: max top in its subtree, 0 when empty */
  uint64_t *agg_off;   /* per node: min offset in its subtree, UINT64_MAX when empty */
  uint64_t *offset;    /* per item, valid while placed */
  uint32_t *stack;     /* placement order */
  uint64_t *heights;   /* heights[k]: height after k + 1 placements */
  size_t depth;
  /* unions of subtrees; uni == NULL once unions are off for good */
  span_set *uni;
  uint8_t *built;      /* per node: uni[v] is built and current */
  size_t n_built;
  uint32_t *stamp;     /* per node: the last insertion that reached it */
  uint32_t stamp_now;
  span *tmp;           /* scratch for building a union */
  size_t tmp_cap;
  /* small problems (n <= SMALL_N) use only this */
  bool small;
  struct placed *by_off; /* placed items of non-zero size, by (offset, index) */
  size_t n_by_off;
  uint64_t cost;         /* tree nodes visited and spans jumped by queries */
};

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Index of the first element of sorted t[0..m) greater than v. */
static uint32_t upper_index(const int32_t *t, uint32_t m, int32_t v) {
  uint32_t a = 0, b = m;
  while (a < b) {
    uint32_t mid = a + (b - a) / 2;
    if (t[mid] <= v)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

/* Index of the first element of sorted t[0..m) not less than v. */
static uint32_t lower_index(const int32_t *t, uint32_t m, int32_t v) {
  uint32_t a = 0, b = m;
  while (a < b) {
    uint32_t mid = a + (b - a) / 2;
    if (t[mid] < v)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

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
  qsort(lo, n, sizeof *lo, cmp_i32);
  qsort(hi, n, sizeof *hi, cmp_i32);
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    /* items ending before lo[i] and items starting after hi[i] miss i */
    uint32_t ends_before = lower_index(hi, (uint32_t)n, (int32_t)ff->lo[i]);
    uint32_t starts_after = (uint32_t)n - upper_index(lo, (uint32_t)n, (int32_t)ff->hi[i]);
    total += n - ends_before - starts_after - 1;
  }
  free(lo);
  free(hi);
  return total / n;
}

mp_status mp_firstfit_new(const mp_item *items, size_t n, mp_firstfit **out) {
  *out = NULL;
  if (n > UINT32_MAX / 4) return MP_ERR_NOMEM;
  mp_firstfit *ff = calloc(1, sizeof *ff);
  if (!ff) return MP_ERR_NOMEM;
  ff->items = items;
  ff->n = n;
  size_t nn = n ? n : 1;
  int32_t *starts = malloc(nn * sizeof *starts);
  ff->lo = malloc(nn * sizeof *ff->lo);
  ff->hi = malloc(nn * sizeof *ff->hi);
  ff->offset = calloc(nn, sizeof *ff->offset);
  ff->stack = malloc(nn * sizeof *ff->stack);
  ff->heights = malloc(nn * sizeof *ff->heights);
  if (!starts || !ff->lo || !ff->hi || !ff->offset || !ff->stack || !ff->heights) goto nomem;

  /* compress time to ranks of distinct starts */
  for (size_t i = 0; i < n; i++) starts[i] = items[i].start;
  qsort(starts, n, sizeof *starts, cmp_i32);
  uint32_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (m == 0 || starts[m - 1] != starts[i]) starts[m++] = starts[i];
  for (size_t i = 0; i < n; i++) {
    ff->lo[i] = upper_index(starts, m, items[i].start) - 1;
    ff->hi[i] = upper_index(starts, m, items[i].end) - 1;
  }
  free(starts);
  starts = NULL;
  ff->small = n <= SMALL_N || (n <= DENSE_N && overlaps_per_item(ff) >= n / DENSE_FRACTION);
  if (ff->small && !(ff->by_off = malloc(nn * sizeof *ff->by_off))) goto nomem;

  ff->nleaf = 1;
  while (ff->nleaf < m) ff->nleaf *= 2;
  size_t nodes = 2 * (size_t)ff->nleaf;
  ff->base = calloc(nodes + 1, sizeof *ff->base);
  ff->len = calloc(nodes, sizeof *ff->len);
  ff->agg_top = calloc(nodes, sizeof *ff->agg_top);
  ff->agg_off = malloc(nodes * sizeof *ff->agg_off);
  if (!ff->base || !ff->len || !ff->agg_top || !ff->agg_off) goto nomem;
  for (size_t v = 0; v < nodes; v++) ff->agg_off[v] = UINT64_MAX;
  if (!ff->small && ff->nleaf >= UNION_MIN_LEAVES) {
    /* optional: without them the engine is only slower */
    ff->uni = calloc(nodes, sizeof *ff->uni);
    ff->built = calloc(nodes, sizeof *ff->built);
    ff->stamp = calloc(nodes, sizeof *ff->stamp);
    if (!ff->uni || !ff->built || !ff->stamp) {
      free(ff->uni);
      ff->uni = NULL;
    }
  }

  /* slice sizes: how many items decompose onto each node */
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (items[i].size == 0) continue;
    for (uint32_t l = ff->lo[i] + ff->nleaf, r = ff->hi[i] + ff->nleaf + 1; l < r;
         l >>= 1, r >>= 1) {
      if (l & 1) ff->base[l++]++, total++;
      if (r & 1) ff->base[--r]++, total++;
    }
  }
  if (total >= UINT32_MAX) goto nomem;
  uint32_t acc = 0;
  for (size_t v = 0; v <= nodes; v++) {
    uint32_t c = ff->base[v];
    ff->base[v] = acc;
    acc += c;
  }
  ff->pool = malloc((total ? total : 1) * sizeof *ff->pool);
  if (!ff->pool) goto nomem;
  *out = ff;
  return MP_OK;
nomem:
  free(starts);
  mp_firstfit_free(&ff);
  return MP_ERR_NOMEM;
}

/* Turn the unions off for good (after an undo, or when memory ran out). */
static void drop_unions(mp_firstfit *ff) {
  if (ff->uni)
    for (size_t v = 0; v < 2 * (size_t)ff->nleaf; v++) free(ff->uni[v].s);
  free(ff->uni);
  free(ff->built);
  free(ff->stamp);
  free(ff->tmp);
  ff->uni = NULL;
  ff->built = NULL;
  ff->stamp = NULL;
  ff->tmp = NULL;
  ff->n_built = 0;
}

void mp_firstfit_free(mp_firstfit **pff) {
  if (!pff || !*pff) return;
  mp_firstfit *ff = *pff;
  drop_unions(ff);
  free(ff->lo);
  free(ff->hi);
  free(ff->base);
  free(ff->len);
  free(ff->pool);
  free(ff->agg_top);
  free(ff->agg_off);
  free(ff->offset);
  free(ff->stack);
  free(ff->heights);
  free(ff->by_off);
  free(ff);
  *pff = NULL;
}

/* ---- unions --------------------------------------------------------------- */

/* Merge e into the union u.  False when growing it fails. */
static bool union_add(span_set *u, span e) {
  /* the blocks [i, j) touch or overlap e: top >= e.off and off <= e.top */
  uint32_t i = 0, b = u->len;
  while (i < b) {
    uint32_t mid = i + (b - i) / 2;
    if (u->s[mid].top < e.off)
      i = mid + 1;
    else
      b = mid;
  }
  uint32_t j = i;
  b = u->len;
  while (j < b) {
    uint32_t mid = j + (b - j) / 2;
    if (u->s[mid].off <= e.top)
      j = mid + 1;
    else
      b = mid;
  }
  if (i == j) {
    if (u->len == u->cap) {
      uint32_t cap = u->cap ? 2 * u->cap : 4;
      span *ns = realloc(u->s, cap * sizeof *ns);
      if (!ns) return false;
      u->s = ns;
      u->cap = cap;
    }
    memmove(u->s + i + 1, u->s + i, (u->len - i) * sizeof *u->s);
    u->s[i] = e;
    u->len++;
    return true;
  }
  span m = {mp_min_u64(u->s[i].off, e.off), mp_max_u64(u->s[j - 1].top, e.top)};
  u->s[i] = m;
  memmove(u->s + i + 1, u->s + j, (u->len - j) * sizeof *u->s);
  u->len -= j - i - 1;
  return true;
}

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return (x->top > y->top) - (x->top < y->top);
}

/* Append the spans placed in v's subtree to out[k..]; returns the new
 * count.  The caller sizes `out` with slice_total. */
static size_t gather(const mp_firstfit *ff, uint32_t v, span *out, size_t k) {
  if (ff->agg_top[v] == 0) return k;
  memcpy(out + k, ff->pool + ff->base[v], ff->len[v] * sizeof *out);
  k += ff->len[v];
  if (v < ff->nleaf) {
    k = gather(ff, 2 * v, out, k);
    k = gather(ff, 2 * v + 1, out, k);
  }
  return k;
}

/* Number of slice entries (placed or not) in v's subtree: an upper bound on
 * its placed spans. */
static size_t slice_total(const mp_firstfit *ff, uint32_t v) {
  size_t t = 0;
  /* the subtree's nodes form one contiguous index range per level */
  for (uint32_t a = v, b = v; a < 2 * ff->nleaf; a = 2 * a, b = 2 * b + 1)
    t += ff->base[b + 1] - ff->base[a];
  return t;
}

/* Build the union of node v's subtree.  False (unions dropped) when memory
 * runs out. */
static bool build_union(mp_firstfit *ff, uint32_t v) {
  size_t need = slice_total(ff, v);
  if (need > ff->tmp_cap) {
    span *t = realloc(ff->tmp, need * sizeof *t);
    if (!t) {
      drop_unions(ff);
      return false;
    }
    ff->tmp = t;
    ff->tmp_cap = need;
  }
  size_t k = gather(ff, v, ff->tmp, 0);
  qsort(ff->tmp, k, sizeof *ff->tmp, cmp_span);
  span_set *u = &ff->uni[v];
  u->len = 0;
  for (size_t i = 0; i < k; i++) {
    if (u->len && ff->tmp[i].off <= u->s[u->len - 1].top) {
      u->s[u->len - 1].top = mp_max_u64(u->s[u->len - 1].top, ff->tmp[i].top);
      continue;
    }
    if (u->len == u->cap) {
      uint32_t cap = u->cap ? 2 * u->cap : 4;
      span *ns = realloc(u->s, cap * sizeof *ns);
      if (!ns) {
        drop_unions(ff);
        return false;
      }
      u->s = ns;
      u->cap = cap;
    }
    u->s[u->len++] = ff->tmp[i];
  }
  ff->built[v] = 1;
  ff->n_built++;
  return true;
}

/* Add span e to the built unions of node c and its ancestors, stopping
 * where an earlier call of the same insertion already went. */
static void union_up(mp_firstfit *ff, uint32_t c, span e) {
  for (uint32_t v = c; v >= 1 && ff->uni; v >>= 1) {
    if (ff->stamp[v] == ff->stamp_now) return;
    ff->stamp[v] = ff->stamp_now;
    if (ff->built[v] && !union_add(&ff->uni[v], e)) drop_unions(ff);
  }
}

/* ---- query ---------------------------------------------------------------- */

typedef struct query {
  uint32_t lo, hi;  /* compressed interval of the item being placed */
  uint64_t size, align, limit;
  uint64_t x;       /* current candidate offset */
  bool bumped;      /* x moved during this pass */
  bool fail;        /* x + size passed the limit */
  uint64_t cost;    /* nodes visited and spans jumped */
} query;

/* Move q->x above every span of s[0..len) (sorted, disjoint) that
 * collides with [x, x + size). */
static void scan(const span *s, uint32_t len, query *q) {
  while (len && s[len - 1].top > q->x && s[0].off < q->x + q->size) {
    q->cost++;
    uint64_t wend = q->x + q->size;
    /* the last span starting below the window's end is the only candidate:
     * the spans are disjoint and sorted, so tops grow with offsets */
    uint32_t a = 0, b = len;
    while (a < b) {
      uint32_t mid = a + (b - a) / 2;
      if (s[mid].off < wend)
        a = mid + 1;
      else
        b = mid;
    }
    if (a == 0 || s[a - 1].top <= q->x) return;
    q->x = mp_align_up(s[a - 1].top, q->align);
    q->bumped = true;
    if (q->limit && q->x + q->size > q->limit) {
      q->fail = true;
      return;
    }
  }
}

/* Visit node v (covering ranks [nl, nr]) and the part of its subtree that
 * intersects the query interval and can hold a colliding span. */
static void visit(mp_firstfit *ff, uint32_t v, uint32_t nl, uint32_t nr, query *q) {
  if (q->fail || nr < q->lo || nl > q->hi) return;
  q->cost++;
  if (ff->agg_top[v] <= q->x || ff->agg_off[v] >= q->x + q->size) return;
  if (ff->uni && nr - nl + 1 >= UNION_MIN_LEAVES && q->lo <= nl && nr <= q->hi &&
      (ff->built[v] || build_union(ff, v))) {
    /* the whole subtree overlaps the item: its union says it all */
    scan(ff->uni[v].s, ff->uni[v].len, q);
    return;
  }
  scan(ff->pool + ff->base[v], ff->len[v], q);
  if (v >= ff->nleaf) return;
  uint32_t mid = nl + (nr - nl) / 2;
  visit(ff, 2 * v, nl, mid, q);
  visit(ff, 2 * v + 1, mid + 1, nr, q);
}

/* ---- small problems -------------------------------------------------------- */

/* First fit by one scan of the placed items in offset order: the window
 * rises above every time-overlapping item it meets until the next one
 * starts above it. */
static bool find_small(const mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  const mp_item *it = &ff->items[i];
  uint64_t x = 0, size = it->size, align = it->align ? it->align : 1;
  int32_t s = it->start, e = it->end;
  const placed *q = ff->by_off, *end = ff->by_off + ff->n_by_off;
  for (; q < end; q++) {
    if (q->start > e || q->end < s) continue;
    if (q->off >= x + size) break;
    if (q->top > x) x = mp_align_up(q->top, align);
  }
  if (limit && x + size > limit) return false;
  *off = x;
  return true;
}

/* Position of item i (placed at ff->offset[i]) in by_off. */
static size_t small_pos(const mp_firstfit *ff, size_t i) {
  uint64_t o = ff->offset[i];
  size_t a = 0, b = ff->n_by_off;
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    const placed *q = &ff->by_off[mid];
    if (q->off < o || (q->off == o && q->index < i))
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

static void small_add(mp_firstfit *ff, size_t i) {
  size_t k = small_pos(ff, i);
  const mp_item *it = &ff->items[i];
  memmove(ff->by_off + k + 1, ff->by_off + k, (ff->n_by_off - k) * sizeof *ff->by_off);
  ff->by_off[k] = (placed){ff->offset[i], ff->offset[i] + it->size, it->start, it->end, (uint32_t)i};
  ff->n_by_off++;
}

static void small_remove(mp_firstfit *ff, size_t i) {
  size_t k = small_pos(ff, i);
  memmove(ff->by_off + k, ff->by_off + k + 1, (ff->n_by_off - k - 1) * sizeof *ff->by_off);
  ff->n_by_off--;
}

bool mp_firstfit_find(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  const mp_item *it = &ff->items[i];
  if (limit && it->size > limit) return false;
  if (it->size == 0) {
    *off = 0;
    return true;
  }
  if (ff->small) return find_small(ff, i, limit, off);
  query q = {ff->lo[i], ff->hi[i], it->size, it->align ? it->align : 1, limit, 0, false, false, 0};
  do {
    q.bumped = false;
    visit(ff, 1, 0, ff->nleaf - 1, &q);
  } while (!q.fail && q.bumped);
  ff->cost += q.cost;
  if (q.fail) return false;
  *off = q.x;
  return true;
}

uint64_t mp_firstfit_cost(const mp_firstfit *ff) { return ff->cost; }

/* ---- update --------------------------------------------------------------- */

static void recompute(mp_firstfit *ff, uint32_t v) {
  uint64_t top = 0, off = UINT64_MAX;
  uint32_t len = ff->len[v];
  if (len) {
    const span *s = ff->pool + ff->base[v];
    off = s[0].off;
    top = s[len - 1].top;
  }
  if (v < ff->nleaf) {
    top = mp_max_u64(top, mp_max_u64(ff->agg_top[2 * v], ff->agg_top[2 * v + 1]));
    off = mp_min_u64(off, mp_min_u64(ff->agg_off[2 * v], ff->agg_off[2 * v + 1]));
  }
  ff->agg_top[v] = top;
  ff->agg_off[v] = off;
}

/* Position of the first span of node v with offset >= off. */
static uint32_t lower_pos(const mp_firstfit *ff, uint32_t v, uint64_t off) {
  const span *s = ff->pool + ff->base[v];
  uint32_t a = 0, b = ff->len[v];
  while (a < b) {
    uint32_t mid = a + (b - a) / 2;
    if (s[mid].off < off)
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

static void node_add(mp_firstfit *ff, uint32_t v, span e) {
  span *s = ff->pool + ff->base[v];
  uint32_t k = lower_pos(ff, v, e.off);
  memmove(s + k + 1, s + k, (ff->len[v] - k) * sizeof *s);
  s[k] = e;
  ff->len[v]++;
  if (ff->n_built) union_up(ff, v, e);
}

static void node_remove(mp_firstfit *ff, uint32_t v, uint64_t off) {
  span *s = ff->pool + ff->base[v];
  uint32_t k = lower_pos(ff, v, off);
  memmove(s + k, s + k + 1, (ff->len[v] - k - 1) * sizeof *s);
  ff->len[v]--;
}

/* Add (add = true) or remove the span of item i in every node of its
 * interval's decomposition, then refresh the aggregates above them. */
static void update(mp_firstfit *ff, size_t i, bool add) {
  span e = {ff->offset[i], ff->offset[i] + ff->items[i].size};
  uint32_t L = ff->lo[i] + ff->nleaf, R = ff->hi[i] + ff->nleaf;
  if (add && ff->n_built && ++ff->stamp_now == 0) {
    memset(ff->stamp, 0, 2 * (size_t)ff->nleaf * sizeof *ff->stamp);
    ff->stamp_now = 1;
  }
  for (uint32_t l = L, r = R + 1; l < r; l >>= 1, r >>= 1) {
    if (l & 1) {
      add ? node_add(ff, l, e) : node_remove(ff, l, e.off);
      recompute(ff, l++);
    }
    if (r & 1) {
      --r;
      add ? node_add(ff, r, e) : node_remove(ff, r, e.off);
      recompute(ff, r);
    }
  }
  /* every ancestor of a decomposition node is an ancestor of leaf L or R;
   * walk both paths level by level so children are done before parents */
  for (L >>= 1, R >>= 1; L >= 1; L >>= 1, R >>= 1) {
    recompute(ff, L);
    if (R != L) recompute(ff, R);
  }
}

void mp_firstfit_insert(mp_firstfit *ff, size_t i, uint64_t off) {
  const mp_item *it = &ff->items[i];
  ff->offset[i] = off;
  uint64_t h = ff->depth ? ff->heights[ff->depth - 1] : 0;
  ff->stack[ff->depth] = (uint32_t)i;
  ff->heights[ff->depth] = mp_max_u64(h, off + it->size);
  ff->depth++;
  if (it->size == 0) return;
  if (ff->small)
    small_add(ff, i);
  else
    update(ff, i, true);
}

bool mp_firstfit_place(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off) {
  uint64_t o;
  if (!mp_firstfit_find(ff, i, limit, &o)) return false;
  mp_firstfit_insert(ff, i, o);
  if (off) *off = o;
  return true;
}

size_t mp_firstfit_count(const mp_firstfit *ff) { return ff->depth; }

const char *mp_firstfit_mode(const mp_firstfit *ff) { return ff->small ? "scan" : "tree"; }

size_t mp_firstfit_placed_at(const mp_firstfit *ff, size_t k) { return ff->stack[k]; }

uint64_t mp_firstfit_offset(const mp_firstfit *ff, size_t i) { return ff->offset[i]; }

uint64_t mp_firstfit_height(const mp_firstfit *ff) {
  return ff->depth ? ff->heights[ff->depth - 1] : 0;
}

uint64_t mp_firstfit_height_at(const mp_firstfit *ff, size_t k) {
  return k ? ff->heights[k - 1] : 0;
}

void mp_firstfit_truncate(mp_firstfit *ff, size_t count) {
  if (ff->depth > count) drop_unions(ff);
  while (ff->depth > count) {
    size_t i = ff->stack[--ff->depth];
    if (ff->items[i].size == 0) continue;
    if (ff->small)
      small_remove(ff, i);
    else
      update(ff, i, false);
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

/* ---- the sweep: first fit in start order ------------------------------------
 *
 * When items come in start order, the placed items that overlap a new one
 * are exactly those still live at its start, and those are pairwise
 * disjoint in offset.  A sweep keeps just them, in a treap by offset whose
 * nodes also know the widest gap between consecutive spans below them, so
 * the lowest gap that fits is found in O(log n) however many items are
 * live.  Items leave the treap when the sweep passes their end (a heap by
 * end).  Same offsets as the general engine; mp_firstfit_solve picks it
 * when the order is sorted by start, which is the greedy planner's. */

typedef struct tnode {
  uint64_t off, top;       /* this span */
  uint64_t min_off, max_top; /* of the subtree */
  uint64_t gap;            /* widest gap between consecutive spans of the subtree */
  uint32_t prio;
  int32_t left, right;
} tnode;

typedef struct sweep {
  tnode *t;
  int32_t root;
} sweep;

static void tfix(tnode *t, int32_t v) {
  tnode *x = &t[v];
  x->min_off = x->off;
  x->max_top = x->top;
  x->gap = 0;
  if (x->left >= 0) {
    const tnode *l = &t[x->left];
    x->min_off = l->min_off;
    x->gap = mp_max_u64(l->gap, x->off - l->max_top);
  }
  if (x->right >= 0) {
    const tnode *r = &t[x->right];
    x->max_top = r->max_top;
    x->gap = mp_max_u64(x->gap, mp_max_u64(r->gap, r->min_off - x->top));
  }
}

/* Spans are disjoint, so the offset alone orders them. */
static void tsplit(tnode *t, int32_t v, uint64_t off, int32_t *l, int32_t *r) {
  if (v < 0) {
    *l = *r = -1;
    return;
  }
  if (t[v].off < off) {
    tsplit(t, t[v].right, off, &t[v].right, r);
    *l = v;
  } else {
    tsplit(t, t[v].left, off, l, &t[v].left);
    *r = v;
  }
  tfix(t, v);
}

static int32_t tmerge(tnode *t, int32_t a, int32_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (t[a].prio > t[b].prio) {
    t[a].right = tmerge(t, t[a].right, b);
    tfix(t, a);
    return a;
  }
  t[b].left = tmerge(t, a, t[b].left);
  tfix(t, b);
  return b;
}

static void tinsert(sweep *sw, int32_t v) {
  int32_t l, r;
  tsplit(sw->t, sw->root, sw->t[v].off, &l, &r);
  sw->root = tmerge(sw->t, tmerge(sw->t, l, v), r);
}

static void tremove(sweep *sw, int32_t v) {
  int32_t l, mid, r;
  tsplit(sw->t, sw->root, sw->t[v].off, &l, &mid);
  tsplit(sw->t, mid, sw->t[v].top, &mid, &r); /* mid holds v alone */
  sw->root = tmerge(sw->t, l, r);
}

/* Lowest aligned x >= lo_bound where [x, x + size) fits in a gap of
 * subtree v, the gap before its first span starting at lo_bound; UINT64_MAX
 * when none does (the space above the subtree is the caller's). */
static uint64_t tsearch(const tnode *t, int32_t v, uint64_t lo_bound, uint64_t size,
                        uint64_t align) {
  if (v < 0) return UINT64_MAX;
  const tnode *x = &t[v];
  if (x->min_off - lo_bound < size && x->gap < size) return UINT64_MAX;
  uint64_t r = tsearch(t, x->left, lo_bound, size, align);
  if (r != UINT64_MAX) return r;
  uint64_t from = x->left >= 0 ? t[x->left].max_top : lo_bound;
  uint64_t a = mp_align_up(from, align);
  if (a + size <= x->off) return a;
  return tsearch(t, x->right, x->top, size, align);
}

typedef struct ending {
  int32_t end;
  uint32_t item;
} ending;

static bool ends_before(ending a, ending b) {
  return a.end < b.end || (a.end == b.end && a.item < b.item);
}

static void heap_push(ending *h, size_t *n, ending e) {
  size_t i = (*n)++;
  while (i > 0 && ends_before(e, h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = e;
}

static ending heap_pop(ending *h, size_t *n) {
  ending top = h[0], last = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && ends_before(h[c + 1], h[c])) c++;
    if (!ends_before(h[c], last)) break;
    h[i] = h[c];
    i = c;
  }
  if (*n) h[i] = last;
  return top;
}

static mp_status sweep_solve(const mp_item *items, size_t n, const uint32_t *order,
                             uint64_t *offsets) {
  sweep sw = {malloc((n ? n : 1) * sizeof(tnode)), -1};
  ending *heap = malloc((n ? n : 1) * sizeof *heap);
  if (!sw.t || !heap) {
    free(sw.t);
    free(heap);
    return MP_ERR_NOMEM;
  }
  size_t nh = 0;
  uint64_t prio = 0x2545f4914f6cdd1dULL;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = order[k];
    const mp_item *it = &items[i];
    while (nh && heap[0].end < it->start) tremove(&sw, (int32_t)heap_pop(heap, &nh).item);
    if (it->size == 0) {
      offsets[i] = 0;
      continue;
    }
    uint64_t align = it->align ? it->align : 1;
    uint64_t x = tsearch(sw.t, sw.root, 0, it->size, align);
    if (x == UINT64_MAX) x = sw.root < 0 ? 0 : mp_align_up(sw.t[sw.root].max_top, align);
    offsets[i] = x;
    /* xorshift priorities: deterministic, and a balanced treap on average */
    prio ^= prio << 13;
    prio ^= prio >> 7;
    prio ^= prio << 17;
    sw.t[i] = (tnode){x, x + it->size, 0, 0, 0, (uint32_t)(prio >> 32), -1, -1};
    tfix(sw.t, (int32_t)i);
    tinsert(&sw, (int32_t)i);
    heap_push(heap, &nh, (ending){it->end, i});
  }
  free(sw.t);
  free(heap);
  return MP_OK;
}

mp_status mp_firstfit_solve(const mp_item *items, size_t n, const uint32_t *order,
                            uint64_t *offsets) {
  bool by_start = true;
  for (size_t k = 1; k < n && by_start; k++)
    by_start = items[order[k - 1]].start <= items[order[k]].start;
  if (by_start && n > SMALL_N && n <= INT32_MAX) return sweep_solve(items, n, order, offsets);
  mp_firstfit *ff = NULL;
  mp_status st = mp_firstfit_new(items, n, &ff);
  if (st != MP_OK) return st;
  mp_firstfit_run(ff, order, n, 0, offsets);
  mp_firstfit_free(&ff);
  return MP_OK;
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
