/*
 * garbage.h — the garbage the harnesses pre-fill arenas with (the golden
 * run and the conformance run): xorshift32 bytes, the same on the host and
 * on the target for the same state.
 */
#ifndef GARBAGE_H
#define GARBAGE_H

#include <stdint.h>

/* Fill p[0..n) with the next n garbage bytes of the generator at *x. */
static inline void garbage_fill(uint8_t *p, uint32_t n, uint32_t *x) {
  uint32_t s = *x;
  for (uint32_t i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    p[i] = (uint8_t)(s >> 8);
  }
  *x = s;
}

#endif /* GARBAGE_H */
