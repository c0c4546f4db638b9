/*
 * hardgen.c — instances whose optimum is known by construction: a full
 * H x T rectangle cut into pieces (see hardgen.h).
 *
 * Algorithm:
 *   1. Start with one piece, the whole rectangle [0, T) x [0, H).
 *   2. Until there are n pieces: pick a piece with probability proportional
 *      to its area among the pieces that can still be cut; cut it across
 *      time (two pieces sharing the space range) or across space (two
 *      pieces sharing the lifetime), choosing time with probability
 *      (width / T) / (width / T + height / H); full-height pieces are only
 *      cut across space.  Cuts fall on the unit grids of both axes.
 *   3. Shuffle the pieces so that item order carries no hint of the layout.
 * A splitmix64 stream seeded by prm->seed drives every choice, so an
 * instance is a pure function of its parameters.
 */
#include "hardgen.h"

#include "util/diag.h"

#include <stdlib.h>

typedef struct piece {
  uint32_t t0, t1; /* [t0, t1) */
  uint64_t h0, h1; /* [h0, h1) */
} piece;

static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (rejection sampling: no modulo bias). */
static uint64_t below(uint64_t *s, uint64_t n) {
  uint64_t lim = UINT64_MAX - UINT64_MAX % n;
  uint64_t v;
  do v = next_u64(s);
  while (v >= lim);
  return v % n;
}

static bool can_cut_time(const piece *p, uint64_t H, uint32_t tu) {
  return p->t1 - p->t0 >= 2 * tu && p->h1 - p->h0 < H;
}

static bool can_cut_space(const piece *p, uint64_t unit) { return p->h1 - p->h0 >= 2 * unit; }

mp_status mp_hardgen_make(const mp_hardgen_params *prm, mp_item *items, uint64_t *offsets,
                          const mp_diag_sink *dx) {
  uint64_t H = prm->height, unit = prm->unit ? prm->unit : 1;
  uint32_t T = prm->span, n = prm->n, tu = prm->time_unit ? prm->time_unit : 1;
  if (n == 0 || !mp_is_pow2(unit) || H % unit != 0 || H / unit < n || T < n || T % tu != 0) {
    mp_error(dx, MP_LOC_NONE,
             "hardgen: need n >= 1, a power-of-two unit dividing the height, "
             "height >= n * unit, span >= n and a time unit dividing the span (n=%u "
             "height=%llu span=%u unit=%llu time unit=%u)",
             n, (unsigned long long)H, T, (unsigned long long)unit, tu);
    return MP_ERR_CONFIG;
  }
  piece *ps = malloc((size_t)n * sizeof *ps);
  if (!ps) return MP_ERR_NOMEM;
  uint64_t rng = prm->seed;
  uint32_t np = 1;
  ps[0] = (piece){0, T, 0, H};
  while (np < n) {
    /* area-weighted choice among the pieces that can be cut */
    uint64_t total = 0;
    for (uint32_t i = 0; i < np; i++)
      if (can_cut_time(&ps[i], H, tu) || can_cut_space(&ps[i], unit))
        total += (uint64_t)(ps[i].t1 - ps[i].t0) * ((ps[i].h1 - ps[i].h0) / unit);
    if (total == 0) break; /* cannot happen with H / unit >= n */
    uint64_t r = below(&rng, total);
    uint32_t pick = 0;
    for (uint32_t i = 0; i < np; i++) {
      if (!can_cut_time(&ps[i], H, tu) && !can_cut_space(&ps[i], unit)) continue;
      uint64_t a = (uint64_t)(ps[i].t1 - ps[i].t0) * ((ps[i].h1 - ps[i].h0) / unit);
      if (r < a) {
        pick = i;
        break;
      }
      r -= a;
    }
    piece *p = &ps[pick];
    bool ct = can_cut_time(p, H, tu), cs = can_cut_space(p, unit);
    bool time_cut;
    if (ct && cs) {
      /* relative extents, in units of 1/2^20 */
      uint64_t wt = ((uint64_t)(p->t1 - p->t0) << 20) / T;
      uint64_t wh = ((p->h1 - p->h0) << 20) / H;
      time_cut = below(&rng, wt + wh) < wt;
    } else {
      time_cut = ct;
    }
    piece q = *p;
    if (time_cut) {
      uint32_t at = p->t0 + tu * (1 + (uint32_t)below(&rng, (p->t1 - p->t0) / tu - 1));
      p->t1 = at;
      q.t0 = at;
    } else {
      uint64_t units = (p->h1 - p->h0) / unit;
      uint64_t at = p->h0 + (1 + below(&rng, units - 1)) * unit;
      p->h1 = at;
      q.h0 = at;
    }
    ps[np++] = q;
  }
  if (np < n) {
    free(ps);
    mp_error(dx, MP_LOC_NONE, "hardgen: could only cut %u of %u pieces", np, n);
    return MP_ERR_CONFIG;
  }
  for (uint32_t i = n; i > 1; i--) {
    uint32_t j = (uint32_t)below(&rng, i);
    piece t = ps[i - 1];
    ps[i - 1] = ps[j];
    ps[j] = t;
  }
  for (uint32_t i = 0; i < n; i++) {
    items[i] = (mp_item){.size = ps[i].h1 - ps[i].h0,
                         .start = (int32_t)ps[i].t0,
                         .end = (int32_t)ps[i].t1 - 1,
                         .align = 1,
                         .id = i};
    if (offsets) offsets[i] = ps[i].h0;
  }
  free(ps);
  return MP_OK;
}

void mp_hardgen_write_csv(const mp_item *items, size_t n, mp_buf *out) {
  mp_buf_puts(out, "id,lower,upper,size\n");
  for (size_t i = 0; i < n; i++)
    mp_buf_printf(out, "%u,%d,%lld,%llu\n", items[i].id, items[i].start,
                  (long long)items[i].end + 1, (unsigned long long)items[i].size);
}
