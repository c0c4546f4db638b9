/*
 * skytree.c — the skyline's segment tree (skytree.h), shared by the
 * skyline construction (skyline.c) and hill_climb's decoder.
 *
 * The one idea: one array-backed tree with lazy assignment of the
 * skyline; a pending assignment is pushed to the children before any part
 * of a node is read or changed, so every query is a plain descent.  The
 * optional second quantity (lazy subtraction, maximum) rides along in the
 * same nodes.
 *
 * It knows nothing of items or layouts: the callers map time to segments
 * and decide what to place.
 */
#include "planners/skytree.h"

#include <stdlib.h>
#include <string.h>

mp_status mp_skytree_init(mp_skytree *t, size_t leaves, bool with_rest) {
  memset(t, 0, sizeof *t);
  t->M = 1;
  while (t->M < leaves) t->M *= 2;
  t->mn = calloc(2 * t->M, sizeof *t->mn);
  t->mx = calloc(2 * t->M, sizeof *t->mx);
  t->put = calloc(2 * t->M, sizeof *t->put);
  t->has = calloc(2 * t->M, sizeof *t->has);
  if (with_rest) {
    t->rm = calloc(2 * t->M, sizeof *t->rm);
    t->sub = calloc(2 * t->M, sizeof *t->sub);
  }
  if (!t->mn || !t->mx || !t->put || !t->has || (with_rest && (!t->rm || !t->sub)))
    return MP_ERR_NOMEM;
  return MP_OK;
}

void mp_skytree_free(mp_skytree *t) {
  free(t->mn);
  free(t->mx);
  free(t->put);
  free(t->has);
  free(t->rm);
  free(t->sub);
  memset(t, 0, sizeof *t);
}

static void put_node(mp_skytree *t, size_t v, uint64_t h) {
  t->mn[v] = t->mx[v] = t->put[v] = h;
  t->has[v] = 1;
}

static void push(mp_skytree *t, size_t v) {
  if (t->has[v]) {
    put_node(t, 2 * v, t->put[v]);
    put_node(t, 2 * v + 1, t->put[v]);
    t->has[v] = 0;
  }
  if (t->rm && t->sub[v]) {
    for (size_t c = 2 * v; c <= 2 * v + 1; c++) {
      t->rm[c] -= t->sub[v];
      t->sub[c] += t->sub[v];
    }
    t->sub[v] = 0;
  }
}

static void pull(mp_skytree *t, size_t v) {
  t->mn[v] = t->mn[2 * v] < t->mn[2 * v + 1] ? t->mn[2 * v] : t->mn[2 * v + 1];
  t->mx[v] = t->mx[2 * v] > t->mx[2 * v + 1] ? t->mx[2 * v] : t->mx[2 * v + 1];
  if (t->rm) t->rm[v] = t->rm[2 * v] > t->rm[2 * v + 1] ? t->rm[2 * v] : t->rm[2 * v + 1];
}

void mp_skytree_pull_all(mp_skytree *t) {
  for (size_t v = t->M; v-- > 1;) pull(t, v);
}

static void update(mp_skytree *t, size_t v, size_t nl, size_t nr, size_t l, size_t r, uint64_t h,
                   uint64_t d) {
  if (r < nl || nr < l) return;
  if (l <= nl && nr <= r) {
    put_node(t, v, h);
    if (t->rm) {
      t->rm[v] -= d;
      t->sub[v] += d;
    }
    return;
  }
  push(t, v);
  size_t mid = nl + (nr - nl) / 2;
  update(t, 2 * v, nl, mid, l, r, h, d);
  update(t, 2 * v + 1, mid + 1, nr, l, r, h, d);
  pull(t, v);
}

void mp_skytree_set(mp_skytree *t, size_t l, size_t r, uint64_t h, uint64_t d) {
  update(t, 1, 0, t->M - 1, l, r, h, d);
}

uint64_t mp_skytree_min(const mp_skytree *t) { return t->mn[1]; }

size_t mp_skytree_lowest(mp_skytree *t) {
  size_t v = 1;
  while (v < t->M) {
    push(t, v);
    v = t->mn[2 * v] == t->mn[v] ? 2 * v : 2 * v + 1;
  }
  return v - t->M;
}

uint64_t mp_skytree_at(mp_skytree *t, size_t j) {
  size_t v = 1, nl = 0, nr = t->M - 1;
  while (v < t->M) {
    push(t, v);
    size_t mid = nl + (nr - nl) / 2;
    if (j <= mid) {
      v = 2 * v;
      nr = mid;
    } else {
      v = 2 * v + 1;
      nl = mid + 1;
    }
  }
  return t->mn[v];
}

static size_t last_above(mp_skytree *t, size_t v, size_t nl, size_t nr, size_t r, uint64_t f) {
  if (nl > r || t->mx[v] <= f) return SIZE_MAX;
  if (nl == nr) return nl;
  push(t, v);
  size_t mid = nl + (nr - nl) / 2;
  size_t k = last_above(t, 2 * v + 1, mid + 1, nr, r, f);
  return k != SIZE_MAX ? k : last_above(t, 2 * v, nl, mid, r, f);
}

size_t mp_skytree_last_above(mp_skytree *t, size_t r, uint64_t f) {
  return last_above(t, 1, 0, t->M - 1, r, f);
}

static size_t first_above(mp_skytree *t, size_t v, size_t nl, size_t nr, size_t l, uint64_t f) {
  if (nr < l || t->mx[v] <= f) return SIZE_MAX;
  if (nl == nr) return nl;
  push(t, v);
  size_t mid = nl + (nr - nl) / 2;
  size_t k = first_above(t, 2 * v, nl, mid, l, f);
  return k != SIZE_MAX ? k : first_above(t, 2 * v + 1, mid + 1, nr, l, f);
}

size_t mp_skytree_first_above(mp_skytree *t, size_t l, uint64_t f) {
  return first_above(t, 1, 0, t->M - 1, l, f);
}

static uint64_t rest_max(mp_skytree *t, size_t v, size_t nl, size_t nr, size_t l, size_t r) {
  if (r < nl || nr < l) return 0;
  if (l <= nl && nr <= r) return t->rm[v];
  push(t, v);
  size_t mid = nl + (nr - nl) / 2;
  uint64_t x = rest_max(t, 2 * v, nl, mid, l, r), y = rest_max(t, 2 * v + 1, mid + 1, nr, l, r);
  return x > y ? x : y;
}

uint64_t mp_skytree_rest_max(mp_skytree *t, size_t l, size_t r) {
  return rest_max(t, 1, 0, t->M - 1, l, r);
}
