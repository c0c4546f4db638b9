/*
 * storage.h — the graph's storage operations that are internal to the
 * library (the others are in memplan.h): src/graph/storage.c.
 */
#ifndef MP_GRAPH_STORAGE_H
#define MP_GRAPH_STORAGE_H

#include "memplan.h"

/* Storage lifetimes (g->storage) from the tensors' lifetimes and aliases:
 * a root's covers every tensor that aliases it, an alias's is its root's. */
void mp_graph_storage(mp_graph *g);

/* A copy of g that owns its own tensors, storage, operators and overlap
 * contracts (every pass may change those in place) and shares the rest
 * with g: names, shapes, operator inputs and outputs, which no pass writes
 * through.  g must have no patched stage and must outlive the copy. */
mp_status mp_graph_clone(const mp_graph *g, mp_graph **out);

#endif /* MP_GRAPH_STORAGE_H */
