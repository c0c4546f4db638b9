/*
 * skyline.c — the skyline construction (skyline.h says what it is for).
 *
 * Algorithm:
 *   1. Compress time: the distinct starts and ends + 1 cut it into T
 *      segments; item i covers segments [lo_i, hi_i].
 *   2. Group the items by (lo, hi) into buckets, each sorted largest first;
 *      the buckets of one lo form a list in hi order.
 *   3. Until every item is placed:
 *      a. take the lowest segment s of the skyline (the leftmost of the
 *         lowest), at height f, and the widest run [a, b] around it that is
 *         at height f;
 *      b. among the buckets inside the run (a <= lo, hi <= b) choose the
 *         one whose segments hold the most bytes still to place (the
 *         projected height there is f plus those bytes), then the longer
 *         lifetime, then the larger first item, then the lowest lo (of the
 *         buckets of one lo only the one with the highest hi inside the
 *         run can win);
 *      c. place that bucket's largest unplaced item at f, rounded up to its
 *         alignment, and raise the skyline over its segments;
 *      d. when no bucket lies inside the run, raise the run to its lower
 *         neighbour.
 *   Every step places an item or merges the run into a neighbour, so there
 *   are at most 2n + 1 steps.
 *
 * Cost: one segment tree over the segments (skytree.c: the skyline with
 * lazy assign, min and max, and the bytes still to place with lazy
 * subtract, max; hill_climb's decoder uses the same tree without the
 * second quantity) makes a, c and d O(log T); step b walks the buckets inside the run and weighs one per lo
 * in O(log T).  On
 * dense problems with few distinct times the runs are short and b is
 * cheap.  On long sparse graphs (a chain of 100k tensors) the first runs
 * span everything: that is what the work limit is for.
 *
 * It does not use holes below the skyline (a buffer never goes under one
 * placed over a neighbouring time) and does not search: one pass, no
 * randomness, the same layout on every machine.
 */
#include "planners/skyline.h"
#include "planners/skytree.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* The clock is read every this many steps. */
#define CLOCK_EVERY 256u

typedef struct bkey {
  uint32_t lo, hi;
  uint64_t size;
  uint32_t id, index;
} bkey;

static int cmp_bkey(const void *a, const void *b) {
  const bkey *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* ---- the construction -------------------------------------------------------- */

/* The first segment >= x with a non-empty bucket list, or T. */
static size_t next_lo(const uint64_t *bits, size_t T, size_t x) {
  while (x < T) {
    uint64_t w = bits[x / 64] >> (x % 64);
    if (w) return x + (size_t)__builtin_ctzll(w);
    x = (x / 64 + 1) * 64;
  }
  return T;
}

mp_status mp_skyline_solve(const mp_item *items, size_t n, uint64_t *offsets, uint64_t work_limit,
                           uint64_t deadline_ms, bool *cut) {
  *cut = false;
  size_t nn = n ? n : 1;
  int64_t *times = malloc(2 * nn * sizeof *times);
  bkey *keys = malloc(nn * sizeof *keys);
  /* buckets: first unplaced key, end, neighbours in their lo's list */
  uint32_t *b_cur = malloc(nn * sizeof *b_cur), *b_end = malloc(nn * sizeof *b_end);
  uint32_t *b_next = malloc(nn * sizeof *b_next), *b_prev = malloc(nn * sizeof *b_prev);
  uint32_t *head = malloc((2 * nn + 1) * sizeof *head);
  uint64_t *bits = calloc(2 * nn / 64 + 2, sizeof *bits);
  mp_skytree t = {0};
  mp_status st = times && keys && b_cur && b_end && b_next && b_prev && head && bits ? MP_OK
                                                                                     : MP_ERR_NOMEM;
  size_t m = 0, k = 0, T = 0;
  uint64_t total = 0;
  bool overflow = false;
  for (size_t i = 0; st == MP_OK && i < n; i++) {
    offsets[i] = 0;
    if (items[i].size == 0) continue; /* takes no byte: offset 0 */
    overflow |= total + items[i].size < total;
    total += items[i].size;
    times[m++] = items[i].start;
    times[m++] = (int64_t)items[i].end + 1;
  }
  if (st == MP_OK && overflow) *cut = true; /* bytes beyond 64 bits: leave it to first fit */
  if (st == MP_OK && !*cut && m) {
    qsort(times, m, sizeof *times, mp_cmp_i64);
    size_t u = 0;
    for (size_t j = 0; j < m; j++)
      if (!u || times[j] != times[u - 1]) times[u++] = times[j];
    m = u;
    T = m - 1; /* segments [times[j], times[j + 1]) */
    for (size_t i = 0; i < n; i++)
      if (items[i].size)
        /* start and end + 1 are among the times: their indices */
        keys[k++] = (bkey){(uint32_t)mp_count_le_i64(times, m, (int64_t)items[i].start - 1),
                           (uint32_t)mp_count_le_i64(times, m, items[i].end) - 1, items[i].size,
                           items[i].id, (uint32_t)i};
    qsort(keys, k, sizeof *keys, cmp_bkey);
    /* one padding leaf at least: the right wall */
    st = mp_skytree_init(&t, T + 1, true);
  }
  size_t nb = 0;
  if (st == MP_OK && !*cut && k) {
    /* the leaves: skyline 0, padding out of reach; bytes to place per
     * segment from a difference array (exact: the total fits) */
    for (size_t j = T; j < t.M; j++) t.mn[t.M + j] = t.mx[t.M + j] = UINT64_MAX;
    for (size_t j = 0; j < k; j++) {
      t.rm[t.M + keys[j].lo] += keys[j].size;
      if (keys[j].hi + 1 < T) t.rm[t.M + keys[j].hi + 1] -= keys[j].size;
    }
    uint64_t run = 0;
    for (size_t j = 0; j < T; j++) {
      run += t.rm[t.M + j];
      t.rm[t.M + j] = run;
    }
    mp_skytree_pull_all(&t);
    for (size_t j = 0; j < T; j++) head[j] = UINT32_MAX;
    for (size_t j = 0; j < k; j++) {
      if (j && keys[j].lo == keys[j - 1].lo && keys[j].hi == keys[j - 1].hi) continue;
      size_t e = j + 1;
      while (e < k && keys[e].lo == keys[j].lo && keys[e].hi == keys[j].hi) e++;
      b_cur[nb] = (uint32_t)j;
      b_end[nb] = (uint32_t)e;
      bool first = head[keys[j].lo] == UINT32_MAX;
      b_prev[nb] = first ? UINT32_MAX : (uint32_t)(nb - 1);
      b_next[nb] = UINT32_MAX;
      if (first)
        head[keys[j].lo] = (uint32_t)nb;
      else
        b_next[nb - 1] = (uint32_t)nb;
      bits[keys[j].lo / 64] |= (uint64_t)1 << (keys[j].lo % 64);
      nb++;
    }
  }

  uint64_t work = 0;
  size_t left = st == MP_OK && !*cut ? k : 0;
  for (uint64_t step = 0; left; step++) {
    if (deadline_ms && step % CLOCK_EVERY == 0 && step && mp_now_ms() >= deadline_ms) {
      *cut = true;
      break;
    }
    size_t s = mp_skytree_lowest(&t);
    uint64_t f = mp_skytree_min(&t);
    size_t a = s ? mp_skytree_last_above(&t, s - 1, f) : SIZE_MAX;
    a = a == SIZE_MAX ? 0 : a + 1;
    size_t b = mp_skytree_first_above(&t, s, f) - 1;
    /* b: the bucket inside [a, b] that matters most */
    uint32_t best = UINT32_MAX;
    uint64_t best_rem = 0, best_size = 0;
    int64_t best_len = 0;
    for (size_t lo = next_lo(bits, T, a); lo <= b; lo = next_lo(bits, T, lo + 1)) {
      /* of one lo's buckets inside the run, the last (the highest hi) is
       * the best: its segments hold those of the others, so it has at
       * least their bytes to place and a longer lifetime */
      uint32_t last = UINT32_MAX;
      for (uint32_t q = head[lo]; q != UINT32_MAX && keys[b_cur[q]].hi <= b; q = b_next[q]) {
        last = q;
        work++;
      }
      work++;
      if (last == UINT32_MAX) continue;
      const bkey *top = &keys[b_cur[last]];
      uint64_t r = mp_skytree_rest_max(&t, top->lo, top->hi);
      int64_t len = (int64_t)items[top->index].end - items[top->index].start;
      if (best == UINT32_MAX || r > best_rem ||
          (r == best_rem && (len > best_len || (len == best_len && top->size > best_size)))) {
        best = last;
        best_rem = r;
        best_len = len;
        best_size = top->size;
      }
    }
    if (work_limit && work > work_limit) {
      *cut = true;
      break;
    }
    if (best == UINT32_MAX) {
      /* d: nothing fits the run; raise it to its lower neighbour */
      uint64_t up = b + 1 < T ? mp_skytree_at(&t, b + 1) : UINT64_MAX;
      if (a > 0) {
        uint64_t l = mp_skytree_at(&t, a - 1);
        up = l < up ? l : up;
      }
      if (up == UINT64_MAX) { /* cannot happen: every bucket lies inside [0, T) */
        st = MP_ERR_INTERNAL;
        break;
      }
      mp_skytree_set(&t, a, b, up, 0);
      continue;
    }
    /* c: place the bucket's largest item */
    const bkey *top = &keys[b_cur[best]];
    uint64_t al = items[top->index].align ? items[top->index].align : 1;
    uint64_t off = (f + al - 1) & ~(al - 1);
    offsets[top->index] = off;
    mp_skytree_set(&t, top->lo, top->hi, off + top->size, top->size);
    left--;
    if (++b_cur[best] == b_end[best]) { /* the bucket is empty: unlink it */
      uint32_t lo = top->lo;
      if (b_prev[best] != UINT32_MAX)
        b_next[b_prev[best]] = b_next[best];
      else
        head[lo] = b_next[best];
      if (b_next[best] != UINT32_MAX) b_prev[b_next[best]] = b_prev[best];
      if (head[lo] == UINT32_MAX) bits[lo / 64] &= ~((uint64_t)1 << (lo % 64));
    }
  }
  free(times);
  free(keys);
  free(b_cur);
  free(b_end);
  free(b_next);
  free(b_prev);
  free(head);
  free(bits);
  mp_skytree_free(&t);
  return st;
}
