/*
 * exact_component.c — one independent component of the exact search,
 * built from the problem's items: sections, overlap lists, twins, loads,
 * and the state arrays a run of the search (exact.c) works in.
 *
 * The one idea: everything the search reads but never changes is computed
 * once here, per component, so a node of the search costs O(n + sections)
 * and never sorts; the incumbent layout is checked on the way (an overlap
 * or a misalignment is an internal error, not a worse answer).
 *
 * It does not search, probe capacities or split the problem into
 * components (exact.c's driver does).
 */
#include "planners/exact_comp.h"

#include "util/diag.h"

#include <stdlib.h>
#include <string.h>

static bool same_twin(const comp *c, uint32_t a, uint32_t b) {
  return c->sa[a] == c->sa[b] && c->sb[a] == c->sb[b] && c->align[a] == c->align[b];
}

/* qsort has no context argument; mp_exact_comp_build is not reentrant anyway. */
static const comp *twin_sort_comp;

static int cmp_twin(const void *x, const void *y) {
  const comp *c = twin_sort_comp;
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  if (c->sa[a] != c->sa[b]) return c->sa[a] < c->sa[b] ? -1 : 1;
  if (c->sb[a] != c->sb[b]) return c->sb[a] < c->sb[b] ? -1 : 1;
  if (c->align[a] != c->align[b]) return c->align[a] < c->align[b] ? -1 : 1;
  return (a > b) - (a < b);
}

/* Build the component of the items `idx[0..n)` (global indices, sorted by
 * start), with `offsets` as its incumbent.  Components too large to search
 * keep their incumbent unchecked (they are returned unchanged); searchable
 * ones check it and fail with MP_ERR_INTERNAL when it overlaps or is
 * misaligned.  `adj_total` counts overlap entries over the whole call. */
mp_status mp_exact_comp_build(exact_ctx *x, comp *c, const uint32_t *idx, uint32_t n,
                              const uint64_t *offsets, size_t *adj_total) {
  const mp_item *it = x->p->items;
  mp_pool *pool = x->pool;
  memset(c, 0, sizeof *c);
  c->n = n;
  c->gidx = mp_pool_alloc(pool, n, sizeof *c->gidx);
  c->size = mp_pool_alloc(pool, n, sizeof *c->size);
  c->align = mp_pool_alloc(pool, n, sizeof *c->align);
  c->sa = mp_pool_alloc(pool, n, sizeof *c->sa);
  c->sb = mp_pool_alloc(pool, n, sizeof *c->sb);
  c->best = mp_pool_alloc(pool, n, sizeof *c->best);
  int64_t *pts = malloc(2 * (size_t)n * sizeof *pts);
  if (!c->gidx || !c->size || !c->align || !c->sa || !c->sb || !c->best || !pts) {
    free(pts);
    return MP_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < n; i++) {
    const mp_item *q = &it[idx[i]];
    c->gidx[i] = idx[i];
    c->size[i] = q->size;
    c->align[i] = q->align;
    c->best[i] = offsets[idx[i]];
    c->maxsize = mp_max_u64(c->maxsize, q->size);
    c->minsize = i == 0 ? q->size : mp_min_u64(c->minsize, q->size);
    c->height = mp_max_u64(c->height, offsets[idx[i]] + q->size);
    pts[2 * i] = q->start;
    pts[2 * i + 1] = (int64_t)q->end + 1;
  }
  qsort(pts, 2 * (size_t)n, sizeof *pts, mp_cmp_i64);
  uint32_t np = 0;
  for (uint32_t i = 0; i < 2 * n; i++)
    if (np == 0 || pts[np - 1] != pts[i]) pts[np++] = pts[i];
  c->S = np - 1; /* section k = [pts[k], pts[k+1]) */
  size_t cover = 0;
  for (uint32_t i = 0; i < n; i++) {
    const mp_item *q = &it[idx[i]];
    int64_t want[2] = {q->start, (int64_t)q->end + 1};
    uint32_t found[2];
    for (int w = 0; w < 2; w++) {
      uint32_t lo = 0, hi = np - 1;
      while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (pts[mid] < want[w])
          lo = mid + 1;
        else
          hi = mid;
      }
      found[w] = lo;
    }
    c->sa[i] = found[0];
    c->sb[i] = found[1] - 1;
    cover += (size_t)c->sb[i] - c->sa[i] + 1;
  }
  free(pts);

  /* loads and boundary crossings by difference arrays: O(n + S) */
  uint32_t S = c->S;
  c->load = mp_pool_alloc(pool, (size_t)S + 1, sizeof *c->load);
  c->cut0 = mp_pool_alloc(pool, (size_t)S + 1, sizeof *c->cut0);
  if (!c->load || !c->cut0) return MP_ERR_NOMEM;
  for (uint32_t i = 0; i < n; i++) {
    c->load[c->sa[i]] += c->size[i];
    c->load[c->sb[i] + 1] -= c->size[i]; /* wraps; the running sum is exact */
    c->cut0[c->sa[i]]++;
    c->cut0[c->sb[i]]--;
  }
  for (uint32_t k = 1; k < S; k++) {
    c->load[k] += c->load[k - 1];
    c->cut0[k] += c->cut0[k - 1];
  }
  for (uint32_t k = 0; k < S; k++) c->lb = mp_max_u64(c->lb, c->load[k]);
  c->lower = mp_max_u64(c->lb, c->maxsize);
  for (uint32_t i = 0; i < n; i++)
    if (c->best[i] % c->align[i] != 0) {
      mp_error(x->dx, MP_LOC_NONE,
               "exact: the start layout places item %u at offset %llu, not a multiple "
               "of its alignment %u",
               it[c->gidx[i]].id, (unsigned long long)c->best[i], c->align[i]);
      return MP_ERR_INTERNAL;
    }

  /* Overlap pairs: i and j overlap iff their section ranges intersect.
   * Items are sorted by start, so the partners of i that start later are
   * the following items up to the first one starting after i ends. */
  if (n > MAX_SEARCH_ITEMS || cover > MAX_ADJ) return MP_OK;
  size_t pairs = 0;
  for (uint32_t i = 0; i < n && 2 * pairs <= MAX_ADJ; i++)
    for (uint32_t j = i + 1; j < n && c->sa[j] <= c->sb[i]; j++) pairs++;
  if (2 * pairs > MAX_ADJ || *adj_total + 2 * pairs > MAX_ADJ) return MP_OK;
  *adj_total += 2 * pairs;
  c->searchable = true;

  c->sec_off = mp_pool_alloc(pool, (size_t)S + 1, sizeof *c->sec_off);
  c->sec_items = mp_pool_alloc(pool, cover, sizeof *c->sec_items);
  c->adj_off = mp_pool_alloc(pool, (size_t)n + 1, sizeof *c->adj_off);
  c->adj = mp_pool_alloc(pool, 2 * pairs + 1, sizeof *c->adj);
  uint32_t *fill = calloc((size_t)S + (size_t)n + 1, sizeof *fill);
  if (!c->sec_off || !c->sec_items || !c->adj_off || !c->adj || !fill) {
    free(fill);
    return MP_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = c->sa[i]; k <= c->sb[i]; k++) c->sec_off[k + 1]++;
  for (uint32_t k = 0; k < S; k++) c->sec_off[k + 1] += c->sec_off[k];
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = c->sa[i]; k <= c->sb[i]; k++) c->sec_items[c->sec_off[k] + fill[k]++] = i;
  uint32_t *deg = fill + S; /* n + 1 entries, zero */
  memset(fill, 0, S * sizeof *fill);
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = i + 1; j < n && c->sa[j] <= c->sb[i]; j++) {
      deg[i]++;
      deg[j]++;
    }
  for (uint32_t i = 0; i < n; i++) c->adj_off[i + 1] = c->adj_off[i] + deg[i];
  memset(deg, 0, ((size_t)n + 1) * sizeof *deg);
  mp_status st = MP_OK;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = i + 1; j < n && c->sa[j] <= c->sb[i]; j++) {
      c->adj[c->adj_off[i] + deg[i]++] = j;
      c->adj[c->adj_off[j] + deg[j]++] = i;
      if (st == MP_OK && c->best[i] < c->best[j] + c->size[j] &&
          c->best[j] < c->best[i] + c->size[i]) {
        mp_error(x->dx, MP_LOC_NONE, "exact: the start layout overlaps items %u and %u",
                 it[c->gidx[i]].id, it[c->gidx[j]].id);
        st = MP_ERR_INTERNAL;
      }
    }
  free(fill);
  if (st != MP_OK) return st;

  /* twins: sort by (sa, sb, align), then list each group's members */
  uint32_t *tw = malloc((size_t)n * sizeof *tw);
  c->twin_off = mp_pool_alloc(pool, (size_t)n + 1, sizeof *c->twin_off);
  if (!tw || !c->twin_off) {
    free(tw);
    return MP_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < n; i++) tw[i] = i;
  twin_sort_comp = c;
  qsort(tw, n, sizeof *tw, cmp_twin);
  size_t ntw = 0;
  for (uint32_t g0 = 0; g0 < n;) {
    uint32_t g1 = g0 + 1;
    while (g1 < n && same_twin(c, tw[g0], tw[g1])) g1++;
    for (uint32_t q = g0; q < g1; q++) c->twin_off[tw[q] + 1] = g1 - g0 - 1;
    ntw += (size_t)(g1 - g0) * (g1 - g0 - 1);
    g0 = g1;
  }
  for (uint32_t i = 0; i < n; i++) c->twin_off[i + 1] += c->twin_off[i];
  c->twins = mp_pool_alloc(pool, ntw + 1, sizeof *c->twins);
  if (!c->twins) {
    free(tw);
    return MP_ERR_NOMEM;
  }
  for (uint32_t g0 = 0; g0 < n;) {
    uint32_t g1 = g0 + 1;
    while (g1 < n && same_twin(c, tw[g0], tw[g1])) g1++;
    for (uint32_t q = g0; q < g1; q++) {
      uint32_t w = c->twin_off[tw[q]];
      for (uint32_t r = g0; r < g1; r++)
        if (r != q) c->twins[w++] = tw[r];
    }
    g0 = g1;
  }
  /* twin groups, and each item's identical twin of the next higher index
   * (tw lists a group by increasing index) */
  c->twin_group = mp_pool_alloc(pool, n, sizeof *c->twin_group);
  c->next_same = mp_pool_alloc(pool, n, sizeof *c->next_same);
  if (!c->twin_group || !c->next_same) {
    free(tw);
    return MP_ERR_NOMEM;
  }
  uint32_t ng = 0;
  for (uint32_t g0 = 0; g0 < n; ng++) {
    uint32_t g1 = g0 + 1;
    while (g1 < n && same_twin(c, tw[g0], tw[g1])) g1++;
    for (uint32_t q = g0; q < g1; q++) {
      c->twin_group[tw[q]] = ng;
      c->next_same[tw[q]] = UINT32_MAX;
      for (uint32_t r = q + 1; r < g1; r++)
        if (c->size[tw[r]] == c->size[tw[q]]) {
          c->next_same[tw[q]] = tw[r];
          break;
        }
    }
    g0 = g1;
  }
  free(tw);

  c->keys = mp_pool_alloc(pool, n, sizeof *c->keys);
  c->peak = mp_pool_alloc(pool, n, sizeof *c->peak);
  c->rankbuf = mp_pool_alloc(pool, n, sizeof *c->rankbuf);
  if (!c->keys || !c->peak || !c->rankbuf) return MP_ERR_NOMEM;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = c->sa[i]; k <= c->sb[i]; k++) c->peak[i] = mp_max_u64(c->peak[i], c->load[k]);
  c->off = mp_pool_alloc(pool, n, sizeof *c->off);
  c->minoff = mp_pool_alloc(pool, n, sizeof *c->minoff);
  c->rem = mp_pool_alloc(pool, S, sizeof *c->rem);
  c->floor = mp_pool_alloc(pool, S, sizeof *c->floor);
  c->cut = mp_pool_alloc(pool, S, sizeof *c->cut);
  c->mark = mp_pool_alloc(pool, S, sizeof *c->mark);
  c->touched = mp_pool_alloc(pool, S, sizeof *c->touched);
  c->sky = mp_pool_alloc(pool, S, sizeof *c->sky);
  if (!c->sky) return MP_ERR_NOMEM;
  c->forbid = mp_pool_alloc(pool, n, sizeof *c->forbid);
  c->cnt = mp_pool_alloc(pool, S, sizeof *c->cnt);
  c->minpre = mp_pool_alloc(pool, S, sizeof *c->minpre);
  if (!c->forbid || !c->cnt || !c->minpre) return MP_ERR_NOMEM;
  c->rel = mp_pool_alloc(pool, n, sizeof *c->rel);
  c->group_placed = mp_pool_alloc(pool, n, sizeof *c->group_placed);
  if (!c->off || !c->minoff || !c->rem || !c->floor || !c->cut || !c->mark || !c->touched ||
      !c->rel || !c->group_placed)
    return MP_ERR_NOMEM;
  return MP_OK;
}

/* A component too large to search: only what the driver needs to keep its
 * layout (its lower bound is the problem's, which the driver applies to
 * every component; building its sections would cost a sort for nothing). */
mp_status mp_exact_comp_keep(exact_ctx *x, comp *c, const uint32_t *idx, uint32_t n,
                             const uint64_t *offsets) {
  memset(c, 0, sizeof *c);
  c->n = n;
  c->gidx = mp_pool_alloc(x->pool, n, sizeof *c->gidx);
  c->best = mp_pool_alloc(x->pool, n, sizeof *c->best);
  if (!c->gidx || !c->best) return MP_ERR_NOMEM;
  for (uint32_t i = 0; i < n; i++) {
    c->gidx[i] = idx[i];
    c->best[i] = offsets[idx[i]];
    c->height = mp_max_u64(c->height, offsets[idx[i]] + x->p->items[idx[i]].size);
  }
  return MP_OK;
}

void mp_exact_comp_free(comp *c) {
  free(c->trail);
  free(c->stk);
  free(c->memo);
  c->trail = NULL;
  c->stk = NULL;
  c->memo = NULL;
}
