/*
 * skytree.h — the segment tree both skyline fills stand on (internal):
 * the skyline construction (skyline.c) and hill_climb's skyline decoder.
 *
 * Time is cut into segments; the tree keeps the skyline, one height per
 * segment, with its minimum and maximum under lazy assignment, so the
 * leftmost lowest segment, the end of a flat stretch and raising a whole
 * stretch each cost O(log T).  With `with_rest` it also keeps a second
 * quantity per segment, its maximum under lazy subtraction (the skyline
 * construction's bytes still to place); the decoder goes without it.
 */
#ifndef MP_SKYTREE_H
#define MP_SKYTREE_H

#include "memplan.h"

typedef struct mp_skytree {
  size_t M;                /* leaves, at M + segment: a power of two */
  uint64_t *mn, *mx, *put; /* the skyline: min, max, pending assignment */
  uint8_t *has;            /* a pending assignment exists */
  uint64_t *rm, *sub;      /* with_rest: the rest's max, pending subtraction */
} mp_skytree;

/* A tree of at least `leaves` leaves (M the least power of two >= leaves
 * and >= 1), every value 0.  Set the leaves (t->mn / mx / rm [M + j]),
 * then mp_skytree_pull_all.  MP_ERR_NOMEM or MP_OK; free it either way. */
mp_status mp_skytree_init(mp_skytree *t, size_t leaves, bool with_rest);
void mp_skytree_pull_all(mp_skytree *t);
void mp_skytree_free(mp_skytree *t);

/* Over segments [l, r]: the skyline := h and the rest -= d. */
void mp_skytree_set(mp_skytree *t, size_t l, size_t r, uint64_t h, uint64_t d);
/* The skyline's minimum, and the leftmost segment at it. */
uint64_t mp_skytree_min(const mp_skytree *t);
size_t mp_skytree_lowest(mp_skytree *t);
/* The skyline at segment j. */
uint64_t mp_skytree_at(mp_skytree *t, size_t j);
/* The first segment >= l (the last <= r) whose skyline is above f;
 * SIZE_MAX when none is. */
size_t mp_skytree_first_above(mp_skytree *t, size_t l, uint64_t f);
size_t mp_skytree_last_above(mp_skytree *t, size_t r, uint64_t f);
/* The rest's maximum over [l, r] (with_rest only). */
uint64_t mp_skytree_rest_max(mp_skytree *t, size_t l, size_t r);

#endif /* MP_SKYTREE_H */
