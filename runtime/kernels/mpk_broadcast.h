/*
 * mpk_broadcast.h — walking an elementwise operator's output over the
 * broadcast form of mpk.h (mpk_broadcast): the element of each input that
 * feeds output element i.  Internal to the kernel library; static inline.
 */
#ifndef MPK_BROADCAST_H
#define MPK_BROADCAST_H

#include "mpk.h"

/* Element index of input 1 / input 2 for flat output index `i`. */
static inline void mpk_bcast_index(const mpk_broadcast *b, int32_t i, int32_t *i1, int32_t *i2) {
  int32_t a = 0, c = 0;
  for (int d = MPK_MAX_DIMS - 1; d >= 0; d--) {
    int32_t coord = i % b->dims[d];
    i /= b->dims[d];
    a += coord * b->in1_strides[d];
    c += coord * b->in2_strides[d];
  }
  *i1 = a;
  *i2 = c;
}

/* The dims multiply to size (or the walk is flat): safe to walk. */
static inline int mpk_bcast_ok(const mpk_broadcast *b) {
  if (b->size < 0) return 0;
  if (b->elementwise) return 1;
  int32_t n = 1;
  for (int d = 0; d < MPK_MAX_DIMS; d++) {
    if (b->dims[d] <= 0) return 0;
    n *= b->dims[d];
  }
  return n == b->size;
}

#endif /* MPK_BROADCAST_H */
