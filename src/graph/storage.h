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

#endif /* MP_GRAPH_STORAGE_H */
