/*
 * synth.c — the synthetic problem families of synth.h.
 *
 * Every generator appends items through add(), which drops anything past
 * the n requested, and loops until n items exist; the op counter only ever
 * grows, so lifetimes are valid inclusive intervals.  The PRNG is
 * splitmix64, one stream per call, seeded by the caller.
 */
#include "synth.h"

typedef struct gen {
  mp_item *items;
  size_t n, cap;
  uint64_t rng;
} gen;

static uint64_t next_rand(gen *g) {
  uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (the modulo bias is irrelevant here). */
static uint64_t rand_in(gen *g, uint64_t lo, uint64_t hi) {
  return lo + next_rand(g) % (hi - lo + 1);
}

static void add(gen *g, uint64_t size, int32_t start, int32_t end) {
  if (g->n == g->cap) return;
  g->items[g->n] = (mp_item){(size + 15) / 16 * 16, start, end, 16, (uint32_t)g->n};
  g->n++;
}

static void gen_chain(gen *g) {
  for (size_t i = 0; i < g->cap; i++) add(g, rand_in(g, 1024, 65536), (int32_t)i, (int32_t)i + 1);
}

static void gen_cnn(gen *g) {
  int32_t op = 0;
  uint64_t fmap = 96 * 96 * 16;
  while (g->n < g->cap) {
    /* a stage: a few residual blocks at one resolution */
    size_t blocks = (size_t)rand_in(g, 2, 6);
    for (size_t b = 0; b < blocks && g->n < g->cap; b++) {
      int32_t block_in = op;
      uint32_t depth = (uint32_t)rand_in(g, 2, 5);
      /* the block's input, live until the add at the end of the block */
      add(g, fmap, block_in, block_in + (int32_t)depth + 1);
      for (uint32_t k = 1; k <= depth && g->n < g->cap; k++) {
        uint64_t sz = k == depth ? fmap : fmap / 2 * rand_in(g, 1, 6);
        add(g, sz, op + (int32_t)k, op + (int32_t)k + 1);
        if (next_rand(g) % 4 == 0 && g->n < g->cap) /* an op-local scratch buffer */
          add(g, rand_in(g, 256, 4096), op + (int32_t)k, op + (int32_t)k);
      }
      op += (int32_t)depth + 1;
    }
    fmap = fmap > 4096 ? fmap / 2 : 96 * 96 * 16; /* downsample, then a new tower */
  }
}

static void gen_transformer(gen *g) {
  int32_t op = 0;
  while (g->n < g->cap) {
    /* residual stream of this layer */
    uint64_t d = 64 * rand_in(g, 2, 8);
    add(g, d * 16, op, op + 12);
    for (int32_t k = 0; k < 12 && g->n < g->cap; k++) {
      /* a few small, short-lived tensors per op */
      int32_t m = (int32_t)rand_in(g, 0, 1);
      add(g, rand_in(g, 64, 2048), op + k, op + k + 1);
      if (m) add(g, rand_in(g, 64, 512), op + k, op + k);
    }
    if (next_rand(g) % 8 == 0 && g->n < g->cap) {
      /* a cache: live from this layer to a random later one */
      int32_t len = (int32_t)rand_in(g, 12, 12 * 64);
      add(g, rand_in(g, 256, 32768), op, op + len);
    }
    op += 12;
  }
}

static void gen_random(gen *g) {
  for (size_t i = 0; i < g->cap; i++) {
    int32_t s = (int32_t)rand_in(g, 0, 49);
    add(g, rand_in(g, 16, 16384), s, s + (int32_t)rand_in(g, 0, 30));
  }
}

/* -ln(u) for u = (k + 1) / 2^53, k < 2^53, in 32.32 fixed point, by
 * integer arithmetic only (repeated squaring for the binary logarithm of
 * the mantissa), so that every machine draws the same lengths. */
static uint64_t neg_ln_fixed(uint64_t k) {
  uint64_t m = k + 1; /* u = m / 2^53, 1 <= m <= 2^53 */
  int e = 0;          /* m = 2^e x f, f in [1, 2) */
  while ((m >> e) > 1) e++;
  /* f in 2.62 fixed point */
  unsigned __int128 f = ((unsigned __int128)m << 62) >> e;
  uint64_t frac = 0; /* log2(f) in 0.32 fixed point */
  for (int b = 31; b >= 0; b--) {
    f = (f * f) >> 62;
    if (f >= ((unsigned __int128)2 << 62)) {
      f >>= 1;
      frac |= (uint64_t)1 << b;
    }
  }
  /* log2(u) = e + frac - 53, negative; -ln(u) = (53 - e - frac) x ln 2 */
  uint64_t neg_log2 = ((uint64_t)(53 - e) << 32) - frac;
  const uint64_t ln2 = 0xb17217f7u; /* ln 2 in 0.32 fixed point */
  return (uint64_t)(((unsigned __int128)neg_log2 * ln2) >> 32);
}

static void gen_random_wide(gen *g) {
  uint64_t steps = g->cap / 5 > 10 ? g->cap / 5 : 10;
  uint64_t mean = steps / 50 + 1;
  for (size_t i = 0; i < g->cap; i++) {
    int32_t s = (int32_t)rand_in(g, 0, steps - 1);
    uint64_t len = (uint64_t)(((unsigned __int128)neg_ln_fixed(next_rand(g) >> 11) * mean) >> 32);
    uint64_t size;
    switch (next_rand(g) % 3) {
    case 0: size = rand_in(g, 1, 4095); break;
    case 1: size = 16 * rand_in(g, 1, 63); break;
    default: size = rand_in(g, 1, 199999); break;
    }
    add(g, size, s, s + 1 + (int32_t)len);
  }
}

const char *mp_synth_name(mp_synth_family f) {
  static const char *const names[MP_SYNTH_COUNT] = {"chain", "cnn", "transformer", "random",
                                                          "random_wide"};
  return (unsigned)f < MP_SYNTH_COUNT ? names[f] : "unknown";
}

void mp_synth_make(mp_synth_family f, size_t n, uint64_t seed, mp_item *items) {
  gen g = {items, 0, n, seed};
  switch (f) {
  case MP_SYNTH_CHAIN: gen_chain(&g); break;
  case MP_SYNTH_CNN: gen_cnn(&g); break;
  case MP_SYNTH_TRANSFORMER: gen_transformer(&g); break;
  case MP_SYNTH_RANDOM: gen_random(&g); break;
  case MP_SYNTH_RANDOM_WIDE: gen_random_wide(&g); break;
  default: break;
  }
  /* an unknown family still yields n valid (empty) items */
  for (size_t i = g.n; i < n; i++) items[i] = (mp_item){0, 0, 0, 16, (uint32_t)i};
}
