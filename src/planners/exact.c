/*
 * exact.c — exact offset assignment: a branch-and-bound search over
 * canonical layouts that finds a layout within a capacity or proves that
 * none exists, and a driver that tightens the capacity to minimise height.
 *
 * The one idea: it is enough to search "canonical" layouts.  Push every
 * buffer of a feasible layout down while it fits; then every buffer sits at
 * offset 0 or directly on a buffer it overlaps in time, and the layout is
 * rebuilt by placing buffers in order of offset, each at its minoff (the
 * highest top, aligned up, of the placed buffers it overlaps).  So the
 * search never chooses offsets, only which buffers sit at the current
 * level, and the levels only rise.
 *
 * Algorithm (one run at capacity C):
 *   1. Time is compressed into sections (maximal spans with a fixed live
 *      set); a buffer covers a range of sections.
 *   2. A node takes the lowest offset L an unplaced buffer can sit at, and
 *      branches on one section s at that level: "buffer j sits at L over s"
 *      for each candidate j, and "nothing sits at L over s" when s can
 *      afford the gap (its candidates are then forbidden at L).  s is the
 *      section with the fewest branches, so a section one buffer can fill
 *      is a forced move.
 *   3. Spatial inference after each placement: in every section the
 *      unplaced buffers must still stack between their lowest possible
 *      offset and C; a buffer that is stuck below the level or forbidden
 *      where it stands must first be raised.  In the sections the placement
 *      changed, the stronger single-machine bound with release dates
 *      (each buffer's lowest possible offset) applies.
 *   4. Dominance: a level at or above some unplaced buffer's minoff + size
 *      fails (that buffer could drop into the gap below it: the pushed-down
 *      layout is found elsewhere).  Twins (same lifetime and alignment)
 *      stacked on each other are searched in one order only.
 *   5. Dynamic decomposition: when no unplaced buffer crosses a section
 *      boundary any more, the two sides are solved one after the other.
 *   6. A table of failed states (a 128-bit hash of placed buffers, sky,
 *      forbids, level and capacity; direct-mapped, fixed size) cuts
 *      repeated subtrees, also across restarts.  (Only a collision of both
 *      64-bit halves could cut a subtree wrongly: odds below 2^-100 per
 *      lookup at the table's sizes.)
 *   7. Restarts, in rounds of one run per ranking (tie-breaks of the
 *      branches: bottom-left, most congested, largest, bottom-right).  Even
 *      rounds run the plain rankings with a node limit that doubles each
 *      time: a plain ranking gives the same tree every time and the table
 *      of failed states lets a re-run skip what an earlier one proved, so
 *      this continues the search each heuristic guides.  Odd rounds run
 *      them with sizes perturbed by a hash of (round, buffer) and node
 *      limits along the Luby sequence.  A run that ends below its limit is
 *      a proof.  All undo is by a trail.
 * The driver splits the problem into independent components (time points
 * no buffer spans; exact_component.c builds each), probes C = lower bound
 * first, then bisects between the proven lower bound and the best height,
 * and reports [lower, upper].
 *
 * Deterministic for the same inputs (no clock in any decision; the
 * perturbations are hashes), except where a time limit cuts the search.  It
 * does not search components above MAX_SEARCH_ITEMS buffers or MAX_ADJ
 * overlap entries (those keep the given layout, res->skipped), and every
 * table has a fixed cap, so memory stays bounded.
 */
#include "planners/exact.h"
#include "planners/exact_comp.h"

#include "util/diag.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Growable trail / part-list stacks never exceed this many entries. */
#define MAX_STACK (64u * 1024u * 1024u)
/* The clock is read every CLOCK_EVERY nodes; a node costs O(n + sections). */
#define CLOCK_EVERY 64u
/* Entries of a component's table of failed states (16 bytes each). */
#define MEMO_MAX ((size_t)1 << 20)

/* The restarts: run r uses ranking r % RK_COUNT in round m = r / RK_COUNT,
 * with a node limit of RESTART_BASE * n times 2^(m / 2) (even m: the plain
 * ranking) or luby(m / 2 + 1) (odd m: a perturbed one). */
#define RESTART_BASE 2u
/* Rankings after a kind's first run scale sizes and areas by a factor in
 * 1 +- RANK_NOISE / 1024, so restarts differ while big items stay first. */
#define RANK_NOISE 256u

/* ---- limits shared by every run of one call ------------------------------ */

/* splitmix64's finaliser: a well-mixed 64-bit function of z. */
static uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Zobrist-style terms of the state hash (hash kind `h` = 0 or 1). */
static uint64_t zterm(uint32_t h, uint64_t what, uint64_t idx, uint64_t val) {
  return mix64(mix64(what * 0x9e3779b97f4a7c15ULL + idx * 2 + h) ^ val);
}

/* ---- one independent component ------------------------------------------- */

enum { T_MINOFF = 0, T_FLOOR = 1, T_PLACE = 2, T_FORBID = 3, T_SKY = 4 };
enum { Z_PLACED = 1, Z_SKY = 2, Z_FORBID = 3, Z_KEY = 4 };
enum { R_FOUND = 0, R_FAIL = 1, R_ABORT = 2 };

typedef struct part {
  size_t base;  /* index of the item list in stk */
  uint32_t n;   /* entries in the list (placed ones are skipped) */
  uint32_t s0, s1;
} part;

static bool trail_push(comp *c, uint32_t kind, uint32_t idx, uint64_t old) {
  if (c->ntrail == c->trail_cap) {
    size_t ncap = c->trail_cap ? 2 * c->trail_cap : 1024;
    if (ncap > MAX_STACK) return false;
    trail_ent *t = realloc(c->trail, ncap * sizeof *t);
    if (!t) return false;
    c->trail = t;
    c->trail_cap = ncap;
  }
  c->trail[c->ntrail++] = (trail_ent){kind, idx, old};
  return true;
}

/* The state hash: placed items (with their offsets when they have twins:
 * twin blocking depends on them), the sky and the forbids. */
static uint64_t zplaced(const comp *c, uint32_t h, uint32_t i) {
  bool tw = c->twin_off[i] != c->twin_off[i + 1];
  return zterm(h, Z_PLACED, i, tw ? c->off[i] : 0);
}

static void hash_placed(comp *c, uint32_t i, bool add) {
  for (uint32_t h = 0; h < 2; h++) c->hash[h] += add ? zplaced(c, h, i) : 0 - zplaced(c, h, i);
}

static void hash_value(comp *c, uint32_t what, uint32_t idx, uint64_t from, uint64_t to) {
  for (uint32_t h = 0; h < 2; h++) {
    if (from != 0 && from != UNPLACED) c->hash[h] -= zterm(h, what, idx, from);
    if (to != 0 && to != UNPLACED) c->hash[h] += zterm(h, what, idx, to);
  }
}

/* Reserve n entries on the part-list stack; returns the base index or
 * SIZE_MAX when the cap or memory is exhausted. */
static size_t stk_reserve(comp *c, size_t n) {
  if (c->nstk + n > c->stk_cap) {
    size_t ncap = c->stk_cap ? c->stk_cap : 1024;
    while (ncap < c->nstk + n) ncap *= 2;
    if (ncap > MAX_STACK) return SIZE_MAX;
    uint32_t *s = realloc(c->stk, ncap * sizeof *s);
    if (!s) return SIZE_MAX;
    c->stk = s;
    c->stk_cap = ncap;
  }
  size_t base = c->nstk;
  c->nstk += n;
  return base;
}

/* Take item i out of the layout: the part of place() the trail does not
 * record. */
static void unplace(comp *c, uint32_t i) {
  hash_placed(c, i, false);
  for (uint32_t k = c->sa[i]; k <= c->sb[i]; k++) c->rem[k] += c->size[i];
  for (uint32_t k = c->sa[i]; k < c->sb[i]; k++) c->cut[k]++;
  c->off[i] = UNPLACED;
  c->group_placed[c->twin_group[i]]--;
}

/* Undo every change recorded after trail position `mark`, placements of
 * parts solved since included. */
static void undo_to(comp *c, size_t mark) {
  while (c->ntrail > mark) {
    trail_ent *e = &c->trail[--c->ntrail];
    if (e->kind == T_MINOFF)
      c->minoff[e->idx] = e->old;
    else if (e->kind == T_FLOOR)
      c->floor[e->idx] = e->old;
    else if (e->kind == T_FORBID) {
      hash_value(c, Z_FORBID, e->idx, c->forbid[e->idx], e->old);
      c->forbid[e->idx] = e->old;
    } else if (e->kind == T_SKY) {
      hash_value(c, Z_SKY, e->idx, c->sky[e->idx], e->old);
      c->sky[e->idx] = e->old;
    }
    else
      unplace(c, e->idx);
  }
}

/* Place item i at its minoff and propagate: section floors and remaining
 * sizes, minoffs of overlapping unplaced items, and the floors of the
 * sections those live in.  Returns false when a bound already exceeds the
 * capacity (or the trail overflowed: then c->bud->mem_cut is set).  The
 * caller undoes with undo_to either way. */
static bool place(comp *c, uint32_t i) {
  uint64_t y = c->minoff[i], t = y + c->size[i];
  if (!trail_push(c, T_PLACE, i, 0)) goto nomem;
  c->off[i] = y;
  c->group_placed[c->twin_group[i]]++;
  hash_placed(c, i, true);
  for (uint32_t k = c->sa[i]; k <= c->sb[i]; k++) {
    c->rem[k] -= c->size[i];
    if (c->sky[k] < t) {
      if (!trail_push(c, T_SKY, k, c->sky[k])) goto nomem;
      hash_value(c, Z_SKY, k, c->sky[k], t);
      c->sky[k] = t;
    }
    if (c->floor[k] < t) {
      if (!trail_push(c, T_FLOOR, k, c->floor[k])) goto nomem;
      c->floor[k] = t;
    }
  }
  for (uint32_t k = c->sa[i]; k < c->sb[i]; k++) c->cut[k]--;
  uint32_t nt = 0;
  if (++c->stamp == 0) {
    memset(c->mark, 0, c->S * sizeof *c->mark);
    c->stamp = 1;
  }
  bool ok = true;
  for (uint32_t a = c->adj_off[i]; a < c->adj_off[i + 1]; a++) {
    uint32_t j = c->adj[a];
    if (c->off[j] != UNPLACED || c->minoff[j] >= t) continue;
    if (!trail_push(c, T_MINOFF, j, c->minoff[j])) goto nomem;
    c->minoff[j] = mp_align_up(t, c->align[j]);
    if (c->minoff[j] + c->size[j] > c->cap) ok = false;
    /* sections of j outside i's range may see their floor rise (inside
     * it, the floor is already i's top) */
    for (uint32_t k = c->sa[j]; k < c->sa[i]; k++)
      if (c->mark[k] != c->stamp) {
        c->mark[k] = c->stamp;
        c->touched[nt++] = k;
      }
    for (uint32_t k = c->sb[i] + 1; k <= c->sb[j]; k++)
      if (c->mark[k] != c->stamp) {
        c->mark[k] = c->stamp;
        c->touched[nt++] = k;
      }
  }
  c->ntouched = nt;
  if (!ok) return false;
  for (uint32_t q = 0; q < nt; q++) {
    uint32_t k = c->touched[q];
    uint64_t m = UNPLACED;
    for (uint32_t e = c->sec_off[k]; e < c->sec_off[k + 1]; e++) {
      uint32_t j = c->sec_items[e];
      if (c->off[j] == UNPLACED && c->minoff[j] < m) m = c->minoff[j];
    }
    if (m != UNPLACED && m > c->floor[k]) {
      if (!trail_push(c, T_FLOOR, k, c->floor[k])) goto nomem;
      c->floor[k] = m;
    }
  }
  return true;
nomem:
  c->bud->mem_cut = true;
  return false;
}

/* Symmetry between twins (items with the same lifetime and alignment):
 * two twins stacked directly on each other can trade places, and identical
 * twins can trade labels, without changing anything else.  So only layouts
 * where a twin directly below another is the larger one (equal sizes: the
 * one with the higher index) are searched, and identical twins are placed
 * in decreasing index order.  (Swapping a violating pair and pushing items
 * down both lower sum(size^2 * offset), then sum(index * offset), so a
 * layout without violations that is also pushed down exists.)  True when
 * placing j at its minoff now breaks that order. */
static bool twin_blocked(const comp *c, uint32_t j) {
  /* Identical twins are placed in decreasing index order, so the placed
   * ones are always those of the highest indices: an unplaced identical twin
   * above j exists exactly when the next one above is unplaced. */
  uint32_t up = c->next_same[j];
  if (up != UINT32_MAX && c->off[up] == UNPLACED) return true;
  if (c->group_placed[c->twin_group[j]] == 0) return false;
  for (uint32_t a = c->twin_off[j]; a < c->twin_off[j + 1]; a++) {
    uint32_t k = c->twins[a];
    if (c->off[k] != UNPLACED && c->off[k] + c->size[k] == c->minoff[j]) {
      if (c->size[k] < c->size[j] || (c->size[k] == c->size[j] && k < j)) return true;
    }
  }
  return false;
}

/* The lowest offset unplaced item j can still take when every later
 * placement is at or above level y: its minoff, unless that is below y,
 * forbidden (a branch decided nothing of it sits there) or twin-blocked;
 * then a later placement (at or above y) must first raise it, by at least
 * minsize. */
static inline uint64_t release_of(const comp *c, uint32_t j, uint64_t y) {
  uint64_t m = c->minoff[j];
  if (m < y) return y + c->minsize;
  if (m == c->forbid[j]) return m + c->minsize;
  if (c->twin_off[j] != c->twin_off[j + 1] && twin_blocked(c, j)) return m + c->minsize;
  return m;
}

/* Can section k still be filled when every later placement is at or
 * above level y?  Its unplaced items stack above the lowest release among
 * them (see release_of). */
static bool section_fits(const comp *c, uint32_t k, uint64_t y) {
  uint64_t rem = c->rem[k];
  if (rem == 0) return true;
  if (c->floor[k] > y) return c->floor[k] + rem <= c->cap;
  if (y + rem > c->cap) return false;
  if (y + c->minsize + rem <= c->cap) return true;
  uint64_t low = UINT64_MAX;
  for (uint32_t e = c->sec_off[k]; e < c->sec_off[k + 1]; e++) {
    uint32_t j = c->sec_items[e];
    if (c->off[j] != UNPLACED) continue;
    uint64_t r = release_of(c, j, y);
    if (r < low) low = r;
    if (low == y) return true;
  }
  return low + rem <= c->cap;
}

/* The stronger check of section k: its unplaced items stack above their
 * release offsets (minoff, y for an item placeable at y, y + minsize for a
 * stuck one), so for every item, its release plus the sizes of the items
 * released at or above it must stay within the capacity (a single machine
 * with release dates).  This finds wells that the items able to reach
 * them cannot fill. */
static bool section_release_fits(const comp *c, uint32_t k, uint64_t y) {
  /* An item released at r can only break the bound when r + rem > cap: the
   * items released at or above it weigh at most rem.  So only the items
   * released above cap - rem are sorted, and those released at or above one
   * of them are all among them. */
  uint64_t rem = c->rem[k];
  if (rem > c->cap) return false;
  uint64_t top = c->cap - rem;
  uint32_t m = 0;
  for (uint32_t e = c->sec_off[k]; e < c->sec_off[k + 1]; e++) {
    uint32_t j = c->sec_items[e];
    if (c->off[j] != UNPLACED) continue;
    /* release_of is at most max(minoff, y) + minsize: skip its twin test
     * when even that is low enough */
    if (mp_max_u64(c->minoff[j], y) + c->minsize <= top) continue;
    uint64_t r = release_of(c, j, y);
    if (r <= top) continue;
    /* insertion sort, descending release */
    uint32_t q = m++;
    while (q > 0 && c->rel[q - 1].r < r) {
      c->rel[q] = c->rel[q - 1];
      q--;
    }
    c->rel[q] = (release){r, c->size[j]};
  }
  uint64_t sum = 0;
  for (uint32_t q = 0; q < m; q++) {
    sum += c->rel[q].s;
    if (c->rel[q].r + sum > c->cap) return false;
  }
  return true;
}

/* Spatial inference over every section of a part at level y. */
static bool sections_fit(const comp *c, const part *pt, uint64_t y) {
  for (uint32_t k = pt->s0; k <= pt->s1; k++)
    if (!section_fits(c, k, y)) return false;
  return true;
}

static bool out_of_budget(comp *c) {
  budget *b = c->bud;
  if (c->run_nodes >= c->run_limit) {
    c->run_cut = true;
    return true;
  }
  if (b->nodes >= b->node_cap) {
    b->node_cut = true;
    return true;
  }
  if ((b->nodes % CLOCK_EVERY) == 0) {
    if (b->progress)
      mp_progress_update(b->progress, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP, MP_PROGRESS_KEEP,
                         b->node_base + b->nodes);
    if (b->deadline_ns && mp_now_ns() >= b->deadline_ns) {
      b->time_cut = true;
      return true;
    }
  }
  return false;
}

static int search(comp *c, const part *pt, uint64_t level);
static int search_level(comp *c, const part *pt, uint64_t L, uint32_t left);


/* After placing item i (which emptied some boundaries), solve the ranges
 * of sections no unplaced item crosses between, left to right, each from
 * the items of `pt` that start in it.  Ranges are independent, so a failure
 * of one fails the node without trying other layouts of the others. */
static int search_split(comp *c, const part *pt, uint32_t i) {
  size_t saved = c->nstk;
  uint32_t s = pt->s0;
  while (s <= pt->s1) {
    uint32_t e = s;
    while (e < pt->s1 && c->cut[e] > 0) e++;
    uint32_t cnt = 0;
    for (uint32_t q = 0; q < pt->n; q++) {
      uint32_t j = c->stk[pt->base + q];
      if (c->off[j] == UNPLACED && c->sa[j] >= s && c->sa[j] <= e) cnt++;
    }
    if (cnt > 0) {
      size_t base = stk_reserve(c, cnt);
      if (base == SIZE_MAX) {
        c->bud->mem_cut = true;
        c->nstk = saved;
        return R_ABORT;
      }
      uint32_t w = 0;
      for (uint32_t q = 0; q < pt->n; q++) {
        uint32_t j = c->stk[pt->base + q];
        if (c->off[j] == UNPLACED && c->sa[j] >= s && c->sa[j] <= e) c->stk[base + w++] = j;
      }
      part sub = {base, cnt, s, e};
      int r = search(c, &sub, c->off[i]);
      if (r != R_FOUND) {
        c->nstk = saved;
        return r;
      }
    }
    s = e + 1;
  }
  return R_FOUND;
}

/* Place item j at its minoff (the current level) and check: the
 * sections of the part at that level, then the release check of every
 * section the placement changed.  The caller undoes to its trail mark. */
static bool place_and_check(comp *c, uint32_t j) {
  uint64_t y = c->minoff[j];
  if (!place(c, j)) return false;
  for (uint32_t k = c->sa[j]; k <= c->sb[j]; k++)
    if (!section_fits(c, k, y)) return false;
  for (uint32_t q = 0; q < c->ntouched; q++)
    if (!section_fits(c, c->touched[q], y)) return false;
  for (uint32_t k = c->sa[j]; k <= c->sb[j]; k++)
    if (!section_release_fits(c, k, y)) return false;
  for (uint32_t q = 0; q < c->ntouched; q++)
    if (!section_release_fits(c, c->touched[q], y)) return false;
  return true;
}

/* The order of the candidates over a section: by contact, then rank.  A
 * candidate whose new top meets a neighbour section's sky exactly (each
 * side counts 2) leaves a flat surface; failing that, one that fills its
 * stretch of the level from wall to wall (no neighbour at or below L)
 * counts 1; one that leaves part of the level beside it uncovered, 0.
 * Higher scores first: fewer, wider steps in the sky make the later
 * levels easier to fill. */
static uint64_t cand_key(const comp *c, uint32_t j, uint64_t L) {
  uint64_t top = L + c->size[j];
  bool has_l = c->sa[j] > 0, has_r = c->sb[j] + 1 < c->S;
  uint32_t score = 0;
  if (has_l && c->sky[c->sa[j] - 1] == top) score += 2;
  if (has_r && c->sky[c->sb[j] + 1] == top) score += 2;
  if (score == 0) {
    bool flat_l = has_l && c->sky[c->sa[j] - 1] <= L, flat_r = has_r && c->sky[c->sb[j] + 1] <= L;
    score = flat_l || flat_r ? 0 : 1;
  }
  return ((uint64_t)(4 - score) << 32) | c->pre[j];
}

/* Is a gap at L over section k affordable?  With nothing sitting at L
 * over k, its lowest item starts at the lowest release above L (an item
 * that could sit at L but does not must first be raised: L + minsize). */
static bool gap_fits(const comp *c, uint32_t k, uint64_t L) {
  uint64_t low = L + c->minsize;
  for (uint32_t e = c->sec_off[k]; e < c->sec_off[k + 1]; e++) {
    uint32_t j = c->sec_items[e];
    if (c->off[j] != UNPLACED) continue;
    uint64_t r = release_of(c, j, L);
    if (r > L && r < low) low = r;
  }
  return low + c->rem[k] <= c->cap;
}

/* Depth-first search of part `pt`, every placement at or above `level`.
 *
 * A node finds the lowest offset L any unplaced item can take (its
 * candidates: minoff == L and not blocked), then branches on one section s
 * those candidates cover: "candidate j sits at L over s", one branch per
 * candidate, and, when s can afford a gap there, "nothing sits at L over
 * s" (its candidates are forbidden at L).  The branches are disjoint and
 * cover every canonical layout.  s is the section with the fewest branches
 * (fail first: a section only one item can fill is a forced move); ties go
 * to the section holding the best-ranked candidate. */
static int search(comp *c, const part *pt, uint64_t level) {
  uint64_t min_height = UNPLACED, L = UNPLACED;
  uint32_t left = 0;
  for (uint32_t q = 0; q < pt->n; q++) {
    uint32_t j = c->stk[pt->base + q];
    if (c->off[j] != UNPLACED) continue;
    left++;
    uint64_t m = c->minoff[j], h = m + c->size[j];
    if (h > c->cap) return R_FAIL;
    if (h < min_height) min_height = h;
    if (m >= level && m < L && release_of(c, j, level) == m) L = m;
  }
  if (left == 0) return R_FOUND;
  c->run_nodes++;
  c->bud->nodes++;
  if (out_of_budget(c)) return R_ABORT;
  /* no candidate, or every one would leave a gap some item could drop
   * into (dominance): fail */
  if (L == UNPLACED || L >= min_height) return R_FAIL;
  if (L > level && !sections_fit(c, pt, L)) return R_FAIL;
  /* a state already proven to fail (at this capacity, in this run or an
   * earlier one) fails again: the outcome does not depend on the ranking */
  uint64_t key[2];
  for (uint32_t h = 0; h < 2; h++)
    key[h] = c->hash[h] ^ zterm(h, Z_KEY, ((uint64_t)pt->s0 << 32) | pt->s1, L ^ (c->cap << 1));
  uint64_t *slot = &c->memo[2 * (key[0] & c->memo_mask)];
  if (slot[0] == key[0] && slot[1] == key[1]) return R_FAIL;
  int res = search_level(c, pt, L, left);
  if (res == R_FAIL) {
    slot[0] = key[0];
    slot[1] = key[1];
  }
  return res;
}

/* The branching of search() at level L (left: unplaced items of pt). */
static int search_level(comp *c, const part *pt, uint64_t L, uint32_t left) {

  /* Compact the list when most of it is placed. */
  part here = *pt;
  size_t saved = c->nstk;
  if (pt->n > 32 && left * 2 < pt->n) {
    size_t base = stk_reserve(c, left);
    if (base != SIZE_MAX) {
      uint32_t w = 0;
      for (uint32_t q = 0; q < pt->n; q++) {
        uint32_t j = c->stk[pt->base + q];
        if (c->off[j] == UNPLACED) c->stk[base + w++] = j;
      }
      here.base = base;
      here.n = left;
    }
  }

  /* The candidates: unplaced items that can sit at L now. */
  size_t cl = stk_reserve(c, here.n);
  if (cl == SIZE_MAX) {
    c->bud->mem_cut = true;
    c->nstk = saved;
    return R_ABORT;
  }
  uint32_t ncand = 0;
  for (uint32_t q = 0; q < here.n; q++) {
    uint32_t j = c->stk[here.base + q];
    if (c->off[j] == UNPLACED && c->minoff[j] == L && release_of(c, j, L) == L)
      c->stk[cl + ncand++] = j;
  }
  /* Count the candidates over each section and pick the one to branch on. */
  if (++c->stamp == 0) {
    memset(c->mark, 0, c->S * sizeof *c->mark);
    c->stamp = 1;
  }
  uint32_t ntouch = 0;
  for (uint32_t q = 0; q < ncand; q++) {
    uint32_t j = c->stk[cl + q];
    for (uint32_t k = c->sa[j]; k <= c->sb[j]; k++) {
      if (c->mark[k] != c->stamp) {
        c->mark[k] = c->stamp;
        c->cnt[k] = 0;
        c->minpre[k] = UINT32_MAX;
        c->touched[ntouch++] = k;
      }
      c->cnt[k]++;
      if (c->pre[j] < c->minpre[k]) c->minpre[k] = c->pre[j];
    }
  }
  uint32_t s = UINT32_MAX, s_branches = 0;
  bool s_gap = false;
  for (uint32_t q = 0; q < ntouch; q++) {
    uint32_t k = c->touched[q];
    /* cheap estimate for the choice; the chosen section is checked exactly */
    bool gap = L + c->minsize + c->rem[k] <= c->cap;
    uint32_t br = c->cnt[k] + (gap ? 1u : 0u);
    if (s == UINT32_MAX || br < s_branches || (br == s_branches && c->minpre[k] < c->minpre[s])) {
      s = k;
      s_branches = br;
    }
  }
  s_gap = gap_fits(c, s, L);

  /* the candidates over s, best first (cand_key) */
  uint32_t nc = 0;
  size_t cbase = stk_reserve(c, c->cnt[s]);
  if (cbase == SIZE_MAX) {
    c->bud->mem_cut = true;
    c->nstk = saved;
    return R_ABORT;
  }
  for (uint32_t q2 = 0; q2 < ncand; q2++) {
    uint32_t j = c->stk[cl + q2];
    if (c->sa[j] > s || c->sb[j] < s) continue;
    uint32_t q = nc++;
    uint64_t kj = cand_key(c, j, L);
    while (q > 0 && cand_key(c, c->stk[cbase + q - 1], L) > kj) {
      c->stk[cbase + q] = c->stk[cbase + q - 1];
      q--;
    }
    c->stk[cbase + q] = j;
  }

  for (uint32_t b = 0; b <= nc; b++) {
    size_t mark = c->ntrail;
    int r = R_FAIL;
    if (b < nc) {
      uint32_t j = c->stk[cbase + b];
      if (place_and_check(c, j)) {
        bool split = false;
        for (uint32_t k = c->sa[j]; k < c->sb[j] && !split; k++)
          split = c->cut[k] == 0 && k >= here.s0 && k < here.s1;
        r = split ? search_split(c, &here, j) : search(c, &here, L);
      }
    } else {
      if (!s_gap) break;
      /* nothing sits at L over s */
      bool ok = true;
      for (uint32_t q = 0; q < nc && ok; q++) {
        uint32_t j = c->stk[cbase + q];
        ok = trail_push(c, T_FORBID, j, c->forbid[j]);
        if (ok) {
          hash_value(c, Z_FORBID, j, c->forbid[j], L);
          c->forbid[j] = L;
        }
      }
      if (!ok) c->bud->mem_cut = true;
      for (uint32_t q = 0; q < nc && ok; q++) {
        uint32_t j = c->stk[cbase + q];
        for (uint32_t k = c->sa[j]; k <= c->sb[j] && ok; k++) ok = section_fits(c, k, L);
      }
      if (ok) r = search(c, &here, L);
    }
    if (c->bud->mem_cut && r == R_FAIL) r = R_ABORT;
    if (r == R_FOUND) return R_FOUND;
    undo_to(c, mark);
    if (r == R_ABORT) {
      c->nstk = saved;
      return R_ABORT;
    }
  }
  c->nstk = saved;
  return R_FAIL;
}

/* One run at capacity `cap` with the ranking in c->rankbuf and node limit
 * `limit`. */
static int run(comp *c, uint64_t cap, uint64_t limit) {
  c->cap = cap;
  c->pre = c->rankbuf;
  c->run_nodes = 0;
  c->run_limit = limit;
  c->run_cut = false;
  c->ntrail = 0;
  c->nstk = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    c->off[i] = UNPLACED;
    c->minoff[i] = 0;
    c->forbid[i] = UNPLACED;
  }
  memset(c->group_placed, 0, c->n * sizeof *c->group_placed);
  c->hash[0] = c->hash[1] = 0;
  for (uint32_t k = 0; k < c->S; k++) {
    c->rem[k] = c->load[k];
    c->floor[k] = 0;
    c->sky[k] = 0;
    if (k + 1 < c->S) c->cut[k] = c->cut0[k];
  }
  size_t base = stk_reserve(c, c->n);
  if (base == SIZE_MAX) {
    c->bud->mem_cut = true;
    return R_ABORT;
  }
  for (uint32_t i = 0; i < c->n; i++) c->stk[base + i] = i;
  part all = {base, c->n, 0, c->S - 1};
  if (!sections_fit(c, &all, 0)) return R_FAIL;
  return search(c, &all, 0);
}

static int cmp_sortkey(const void *x, const void *y) {
  const sortkey *p = x, *q = y;
  if (p->a != q->a) return p->a > q->a ? -1 : 1; /* descending */
  if (p->b != q->b) return p->b > q->b ? -1 : 1;
  if (p->c != q->c) return p->c > q->c ? -1 : 1;
  if (p->id != q->id) return p->id < q->id ? -1 : 1;
  return (p->idx > q->idx) - (p->idx < q->idx);
}


enum { RK_BOTTOM_LEFT, RK_PEAK, RK_SIZE, RK_BOTTOM_RIGHT, RK_COUNT };

/* Fill c->rankbuf with ranking `kind`: the tie-break between candidates at
 * the same minoff.  salt != 0 replaces the secondary key by a hash of
 * (salt, item): a different, still deterministic, order per restart. */
static void make_ranking(comp *c, uint32_t kind, uint64_t salt) {
  for (uint32_t i = 0; i < c->n; i++) {
    uint64_t len = (uint64_t)c->sb[i] - c->sa[i] + 1;
    uint64_t area = c->size[i] * len;
    /* salted: sizes and areas scaled by a factor in [1 - noise, 1 + noise) */
    uint64_t f = 1024;
    if (salt) f = 1024 - RANK_NOISE + mix64(salt * 0x100000001b3ULL + i) % (2 * RANK_NOISE + 1);
    uint64_t size = c->size[i] > UINT64_MAX / 4096 ? c->size[i] : c->size[i] * f;
    area = area > UINT64_MAX / 4096 ? area : area * f;
    uint32_t id = c->gidx[i];
    sortkey k;
    switch (kind) {
    case RK_BOTTOM_LEFT: k = (sortkey){c->S - c->sa[i], size, len, id, i}; break;
    case RK_BOTTOM_RIGHT: k = (sortkey){c->sb[i] + 1, size, len, id, i}; break;
    case RK_PEAK: k = (sortkey){c->peak[i], area, size, id, i}; break;
    default: k = (sortkey){size, len, c->peak[i], id, i}; break;
    }
    c->keys[i] = k;
  }
  qsort(c->keys, c->n, sizeof *c->keys, cmp_sortkey);
  for (uint32_t r = 0; r < c->n; r++) c->rankbuf[c->keys[r].idx] = r;
}

typedef enum { D_FOUND, D_INFEASIBLE, D_UNKNOWN } decision;

/* Term i >= 1 of the Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... */
static uint64_t luby(uint64_t i) {
  for (;;) {
    uint64_t k = 1;
    while (((uint64_t)1 << k) - 1 < i) k++;
    if (((uint64_t)1 << k) - 1 == i) return (uint64_t)1 << (k - 1);
    i -= ((uint64_t)1 << (k - 1)) - 1;
  }
}

/* Is there a layout of component c within `cap`?  Restarts in rounds of
 * one run per ranking: round m runs ranking r % RK_COUNT plain with a node
 * limit of base * 2^(m / 2) when m is even, perturbed by a hash of the
 * round with base * luby(m / 2 + 1) when m is odd, so every ranking
 * eventually gets a run long enough to finish.  A run that finishes below
 * its limit is a proof.  On D_FOUND the incumbent is replaced. */
static decision decide(comp *c, uint64_t cap) {
  if (c->height <= cap) return D_FOUND;
  if (c->lb > cap || c->maxsize > cap || c->lower > cap) return D_INFEASIBLE;
  if (!c->searchable) return D_UNKNOWN;
  if (!c->memo) {
    /* the table of failed states, made on the first search */
    size_t entries = 256;
    while (entries < MEMO_MAX && entries < 64 * (size_t)c->n) entries *= 2;
    c->memo = calloc(2 * entries, sizeof *c->memo);
    if (!c->memo) {
      c->bud->mem_cut = true;
      return D_UNKNOWN;
    }
    c->memo_mask = entries - 1;
  }
  uint64_t base = c->n < 64 ? 128 : (uint64_t)RESTART_BASE * c->n;
  for (uint64_t r = 0;; r++) {
    if (c->bud->nodes >= c->bud->node_cap) {
      c->bud->node_cut = true;
      return D_UNKNOWN;
    }
    if (c->bud->deadline_ns && mp_now_ns() >= c->bud->deadline_ns) {
      c->bud->time_cut = true;
      return D_UNKNOWN;
    }
    uint64_t m = r / RK_COUNT, k = m / 2;
    uint64_t l = m % 2 == 0 ? (k < 40 ? (uint64_t)1 << k : UINT64_MAX) : luby(k + 1);
    uint64_t limit = l > UINT64_MAX / base ? UINT64_MAX : base * l;
    make_ranking(c, (uint32_t)(r % RK_COUNT), m % 2 == 0 ? 0 : k + 1);
    int res = run(c, cap, limit);
    if (res == R_FOUND) {
      uint64_t ht = 0;
      for (uint32_t i = 0; i < c->n; i++) {
        c->best[i] = c->off[i];
        ht = mp_max_u64(ht, c->off[i] + c->size[i]);
      }
      c->height = ht;
      return D_FOUND;
    }
    if (res == R_FAIL) return D_INFEASIBLE;
    if (!c->run_cut) return D_UNKNOWN; /* the call's budget ran out */
  }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

typedef struct start_ord {
  int32_t start, end;
  uint32_t idx;
} start_ord;

static int cmp_start_ord(const void *x, const void *y) {
  const start_ord *a = x, *b = y;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  if (a->end != b->end) return a->end < b->end ? -1 : 1;
  return (a->idx > b->idx) - (a->idx < b->idx);
}

/* ---- the driver ------------------------------------------------------------ */

/* Probe capacity T on every component above it, each with the budget until
 * `probe_deadline` / `probe_nodes` (0 / UINT64_MAX: the call's). */
static decision probe(comp *cs, uint32_t nc, budget *b, uint64_t T, uint64_t probe_deadline,
                      uint64_t probe_nodes) {
  uint64_t save_deadline = b->deadline_ns, save_cap = b->node_cap;
  if (probe_deadline && (!b->deadline_ns || probe_deadline < b->deadline_ns))
    b->deadline_ns = probe_deadline;
  if (probe_nodes < b->node_cap - b->nodes) b->node_cap = b->nodes + probe_nodes;
  decision res = D_FOUND;
  for (uint32_t k = 0; k < nc && res != D_INFEASIBLE; k++) {
    if (cs[k].height <= T) continue;
    decision d = decide(&cs[k], T);
    if (d == D_INFEASIBLE) {
      cs[k].lower = mp_max_u64(cs[k].lower, T + 1);
      res = D_INFEASIBLE;
    } else if (d == D_UNKNOWN) {
      res = D_UNKNOWN;
    }
  }
  b->deadline_ns = save_deadline;
  b->node_cap = save_cap;
  return res;
}

static bool budget_left(const budget *b) {
  if (b->nodes >= b->node_cap) return false;
  if (b->deadline_ns && mp_now_ns() >= b->deadline_ns) return false;
  return true;
}

mp_status mp_exact_improve(const mp_problem *p, uint64_t *offsets, const mp_exact_params *prm,
                           mp_exact_result *res, const mp_diag_sink *dx) {
  memset(res, 0, sizeof *res);
  uint64_t t0 = mp_now_ns();
  budget b = {0};
  b.deadline_ns = prm->time_limit_ms ? t0 + prm->time_limit_ms * 1000000u : 0;
  b.node_cap = prm->node_limit ? prm->node_limit : UINT64_MAX;
  b.progress = prm->progress;
  b.node_base = prm->progress ? prm->progress->now.nodes : 0;
  res->lower_bound = prm->lower_bound ? prm->lower_bound : mp_problem_lower_bound(p);

  exact_ctx x = {p, mp_pool_new(), dx};
  start_ord *ord = malloc((p->n ? p->n : 1) * sizeof *ord);
  uint32_t *idx = malloc((p->n ? p->n : 1) * sizeof *idx);
  uint64_t *work = malloc((p->n ? p->n : 1) * sizeof *work);
  comp *cs = NULL;
  uint32_t nc = 0;
  mp_status st = MP_OK;
  if (!x.pool || !ord || !idx || !work) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  memcpy(work, offsets, p->n * sizeof *work);

  /* zero-size items take no space: offset 0 */
  uint32_t nz = 0;
  uint64_t g = 0;
  for (size_t i = 0; i < p->n; i++) {
    const mp_item *it = &p->items[i];
    if (it->size == 0) {
      work[i] = 0;
      continue;
    }
    ord[nz++] = (start_ord){it->start, it->end, (uint32_t)i};
    g = gcd_u64(g, it->size);
    if (it->align > 1) g = gcd_u64(g, it->align);
  }
  if (g == 0) g = 1;
  qsort(ord, nz, sizeof *ord, cmp_start_ord);
  /* components: split where no item spans the gap between consecutive starts */
  cs = calloc(nz ? nz : 1, sizeof *cs);
  if (!cs) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  size_t adj_total = 0;
  for (uint32_t i = 0; i < nz;) {
    /* building a component costs a sort of its buffers: on a large problem
     * the deadline may come first, and then the given layout stands */
    if (b.deadline_ns && mp_now_ns() >= b.deadline_ns) {
      b.time_cut = true;
      break;
    }
    int32_t reach = ord[i].end;
    uint32_t j = i;
    while (j < nz && ord[j].start <= reach) {
      if (ord[j].end > reach) reach = ord[j].end;
      idx[j - i] = ord[j].idx;
      j++;
    }
    st = j - i > MAX_SEARCH_ITEMS ? mp_exact_comp_keep(&x, &cs[nc], idx, j - i, work)
                                  : mp_exact_comp_build(&x, &cs[nc], idx, j - i, work, &adj_total);
    nc++;
    if (st != MP_OK) goto done;
    cs[nc - 1].bud = &b;
    if (!cs[nc - 1].searchable) res->skipped = true;
    i = j;
  }

  if (b.time_cut) {
    /* out of time before every component was built: the given layout */
    memcpy(offsets, work, p->n * sizeof *offsets);
    res->height = 0;
    for (size_t i = 0; i < p->n; i++)
      res->height = mp_max_u64(res->height, work[i] + p->items[i].size);
    res->proven_upper = res->height;
    res->proven_lower = mp_min_u64(res->lower_bound, res->height);
    res->timed_out = true;
    goto done;
  }
  /* every height is a multiple of g (canonical layouts stack sizes and
   * alignments that g divides), so the bound rounds up to it */
  uint64_t GL = mp_align_up(res->lower_bound, g), GU = 0;
  for (uint32_t k = 0; k < nc; k++) {
    cs[k].lower = mp_align_up(cs[k].lower, g);
    GL = mp_max_u64(GL, cs[k].lower);
    GU = mp_max_u64(GU, cs[k].height);
  }
  if (GL > GU) GL = GU; /* cannot happen with a valid incumbent; stay honest */

  /* With a capacity: one probe at it, with the whole budget.  A layout
   * within it ends the call; a proof that none exists lets the bisection
   * below look for the best layout above it in the time left. */
  bool minimise = true, first = true;
  if (prm->capacity && GL <= prm->capacity && GU > prm->capacity) {
    decision d = probe(cs, nc, &b, prm->capacity, 0, UINT64_MAX);
    res->probes++;
    minimise = d == D_INFEASIBLE;
    if (d == D_INFEASIBLE) GL = mp_max_u64(GL, mp_align_up(prm->capacity + 1, g));
  } else if (prm->capacity && GU <= prm->capacity) {
    minimise = false;
  }
  uint64_t soft = GL; /* lowest capacity still worth probing */
  while (minimise && GL < GU && budget_left(&b)) {
    uint64_t lo = mp_max_u64(GL, soft);
    if (lo >= GU) break;
    /* candidate capacities: lo, lo + g, ... below GU; probe the middle */
    uint64_t cnt = (GU - lo + g - 1) / g;
    uint64_t T = first ? GL : lo + (cnt - 1) / 2 * g;
    /* the first probe (the lower bound, usually the optimum) gets most of
     * the budget; later probes half of what is left */
    uint64_t now = mp_now_ns();
    uint64_t pdl = 0, pn = UINT64_MAX;
    if (b.deadline_ns) {
      uint64_t left = b.deadline_ns > now ? b.deadline_ns - now : 0;
      pdl = now + (first ? left / 8 * 7 : left / 2);
    }
    if (b.node_cap != UINT64_MAX) {
      uint64_t left = b.node_cap - b.nodes;
      pn = first ? left / 8 * 7 : left / 2;
    }
    decision d = probe(cs, nc, &b, T, pdl, pn);
    res->probes++;
    if (d == D_FOUND) {
      GU = 0;
      for (uint32_t k = 0; k < nc; k++) GU = mp_max_u64(GU, cs[k].height);
    } else if (d == D_INFEASIBLE) {
      GL = mp_align_up(T + 1, g);
    } else {
      soft = T + g;
    }
    first = false;
    mp_progress_update(b.progress, GU, mp_max_u64(GL, res->lower_bound), MP_PROGRESS_KEEP,
                       b.node_base + b.nodes);
  }
  GL = mp_align_up(res->lower_bound, g);
  GU = 0;
  for (uint32_t k = 0; k < nc; k++) {
    GL = mp_max_u64(GL, mp_align_up(cs[k].lower, g));
    GU = mp_max_u64(GU, cs[k].height);
    for (uint32_t i = 0; i < cs[k].n; i++) work[cs[k].gidx[i]] = cs[k].best[i];
  }
  if (GL > GU) GL = GU;
  memcpy(offsets, work, p->n * sizeof *offsets);
  res->height = GU;
  res->proven_upper = GU;
  res->proven_lower = mp_max_u64(GL, res->lower_bound);
  if (res->proven_lower > GU) res->proven_lower = GU;
  if (b.time_cut || b.node_cut || b.mem_cut) res->timed_out = true;
  res->nodes = b.nodes;
done:
  for (uint32_t k = 0; k < nc; k++) mp_exact_comp_free(&cs[k]);
  free(cs);
  free(ord);
  free(idx);
  free(work);
  mp_pool_free(&x.pool);
  return st;
}

