/*
 * inplace.h — in-place planning (memory.in_place): the kernels' overlap
 * contracts turned into composite buffers that any planner places like an
 * ordinary buffer, and the in-place lower bound.  Internal to the library;
 * the plan driver uses it.
 */
#ifndef MP_INPLACE_H
#define MP_INPLACE_H

#include "memplan.h"

/* A usable overlap between two slots (storage roots): `in` is read for the
 * last time by `op`, which writes `out` first; out may share bytes with in
 * when offset(in) - offset(out) >= gap and is a multiple of period. */
typedef struct mp_inplace_pair {
  uint32_t op;
  uint32_t in, out;
  int64_t gap;
  int64_t period;
} mp_inplace_pair;

/* The pairs of g->overlaps whose roots both need a slot and whose storage
 * lifetimes meet at the operator alone.  *out is malloc'd (the caller frees
 * it), NULL when there are none. */
mp_status mp_inplace_pairs(const mp_graph *g, mp_inplace_pair **out, size_t *n);

/* One slot to group: tensor t (a root), `size` bytes reserved (a multiple
 * of `align`), live over [start, end].  Filled in by mp_inplace_build:
 * `group` (index of the slot that represents its composite; itself for a
 * slot left alone) and `rel` (byte offset from the composite's base, a
 * multiple of align). */
typedef struct mp_inplace_slot {
  uint32_t t;
  uint64_t size;
  uint32_t align;
  int32_t start, end;
  uint32_t group;
  uint64_t rel;
} mp_inplace_slot;

/* A composite: the representative slot, its byte extent, alignment and
 * lifetime (the union of its members'). */
typedef struct mp_inplace_composite {
  uint32_t slot;
  uint64_t extent;
  uint32_t align;
  int32_t start, end;
} mp_inplace_composite;

/* Group slots into composites by the pairs: members sit at fixed relative
 * offsets where every two members live at once are disjoint or an allowed
 * pair honouring its gap, and each composite becomes one buffer of its
 * extent over its members' joint lifetime.  Merges are kept only while they
 * lower the peak of the live sum of those buffers, so the buffers' lower
 * bound never exceeds the slots' own.  Deterministic.  *groups (malloc'd,
 * *n_groups entries) lists every composite of two or more members. */
mp_status mp_inplace_build(const mp_graph *g, const mp_inplace_pair *pairs, size_t n_pairs,
                           mp_inplace_slot *slots, size_t n_slots, mp_inplace_composite **groups,
                           size_t *n_groups);

/* Most bytes `out` (so bytes) can share with `in` (si bytes) when
 * offset(in) - offset(out) must be >= gap and a multiple of both period
 * and a (the slots' alignment). */
uint64_t mp_inplace_max_share(uint64_t si, uint64_t so, int64_t gap, int64_t period, uint32_t a);

/* The in-place bound of a set of slots: the larger of the largest, over
 * operators, live sum less the bytes the pairs at that operator can share
 * at most, and the bound of the pairs' chains (inplace.c).  `pairs` sorted
 * by op; slots[i].t indexes a tensor of g (below g->n_tensors). */
uint64_t mp_inplace_bound(const mp_graph *g, const mp_inplace_pair *pairs, size_t n_pairs,
                          const mp_inplace_slot *slots, size_t n_slots);

#endif /* MP_INPLACE_H */
