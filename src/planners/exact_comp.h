/*
 * exact_comp.h — one independent component of the exact search, as the
 * search (exact.c) and the code that builds it (exact_component.c) share
 * it (internal to the exact planner).
 */
#ifndef MP_EXACT_COMP_H
#define MP_EXACT_COMP_H

#include "planners/exact.h"

#include "util/util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNPLACED UINT64_MAX
/* Recursion depth is at most the number of buffers of a component; this
 * keeps the C stack small, and the overlap lists below 128 MiB. */
#define MAX_SEARCH_ITEMS MP_EXACT_MAX_SEARCH_ITEMS
#define MAX_ADJ (32u * 1024u * 1024u)

/* Limits shared by every run of one call. */
typedef struct budget {
  uint64_t deadline_ns; /* 0 = none */
  uint64_t node_cap;    /* total nodes allowed; UINT64_MAX = none */
  uint64_t nodes;       /* total nodes so far */
  bool time_cut;        /* the deadline stopped something */
  bool node_cut;        /* the node cap stopped something */
  bool mem_cut;         /* a stack cap stopped something */
  mp_progress_clock *progress; /* NULL: no reports */
  uint64_t node_base;   /* the clock's node count when the call began */
} budget;

typedef struct trail_ent {
  uint32_t kind; /* T_MINOFF, T_FLOOR, T_PLACE, T_FORBID or T_SKY */
  uint32_t idx;
  uint64_t old;
} trail_ent;

typedef struct release {
  uint64_t r, s; /* an item's release offset and size */
} release;

typedef struct comp {
  /* static */
  uint32_t n, S;
  uint32_t *gidx;   /* global item index of each local item */
  uint64_t *size;
  uint32_t *align;
  uint32_t *sa, *sb; /* inclusive section range */
  uint32_t *adj_off, *adj;
  uint32_t *twin_off, *twins; /* same sections and alignment */
  uint32_t *twin_group;       /* per item: its twin group (items without twins too) */
  uint32_t *next_same;        /* per item: the identical twin (same size too) with
                                 the next higher index; UINT32_MAX: none */
  uint32_t *sec_off, *sec_items; /* items per section */
  uint64_t *load;   /* per section: sum of sizes live there */
  uint32_t *cut0;   /* per boundary k|k+1: buffers crossing it */
  uint64_t *peak;   /* per item: the highest load over its sections */
  struct sortkey *keys;
  uint32_t *rankbuf;
  uint64_t lb;      /* max load */
  uint64_t maxsize;
  uint64_t minsize;
  bool searchable;
  /* incumbent */
  uint64_t *best;   /* offsets of the best layout */
  uint64_t height;
  uint64_t lower;   /* proven lower bound of this component */
  /* dynamic state of a run */
  const uint32_t *pre;
  uint64_t cap;
  uint64_t *off, *minoff, *rem, *floor;
  uint64_t *sky;   /* per section: the highest top of a placed item */
  uint64_t hash[2]; /* of the state: placed items, sky, forbids */
  uint64_t *memo;  /* failed states: pairs of hashes, direct-mapped; malloc'd on
                      the first search */
  size_t memo_mask;
  uint64_t *forbid; /* per item: an offset it may not take (UNPLACED: none) */
  uint32_t *group_placed; /* per twin group: its placed members */
  uint32_t *cnt, *minpre; /* per section: candidates at the level, best rank */
  uint32_t *cut;
  uint32_t *mark;   /* per section stamp */
  uint32_t stamp;
  uint32_t *touched;
  uint32_t ntouched;
  struct release *rel; /* scratch of the release check */
  trail_ent *trail;
  size_t ntrail, trail_cap;
  uint32_t *stk;    /* part item lists */
  size_t nstk, stk_cap;
  /* limits of a run */
  budget *bud;
  uint64_t run_nodes, run_limit;
  bool run_cut;     /* the run's node limit stopped it */
} comp;

typedef struct sortkey {
  uint64_t a, b, c;
  uint32_t id, idx;
} sortkey;

/* What building a component reads: the problem, the pool its static
 * arrays live in, and where to report an invalid incumbent. */
typedef struct exact_ctx {
  const mp_problem *p;
  mp_pool *pool;
  const mp_diag_sink *dx;
} exact_ctx;

/* Build the component of the items `idx[0..n)` (global indices, sorted by
 * start), with `offsets` as its incumbent; _keep: one too large to search,
 * only its incumbent kept; _free: the search's growable stacks and table
 * (the rest lives in the pool). */
mp_status mp_exact_comp_build(exact_ctx *x, comp *c, const uint32_t *idx, uint32_t n,
                              const uint64_t *offsets, size_t *adj_total);
mp_status mp_exact_comp_keep(exact_ctx *x, comp *c, const uint32_t *idx, uint32_t n,
                             const uint64_t *offsets);
void mp_exact_comp_free(comp *c);

#endif
