/*
 * firstfit.h — the first-fit placement engine every heuristic planner
 * shares (internal).
 *
 * The engine holds a set of items (mp_item: a byte size over an inclusive
 * interval of time) and places them one at a time, in whatever order the
 * caller chooses, each at the lowest aligned offset where it overlaps no
 * already placed item whose lifetime intersects its own.  Placements form
 * a stack: the caller can undo the most recent ones (mp_firstfit_truncate),
 * which is what makes incremental re-evaluation in local search cheap.
 *
 * The one idea: placed items are indexed by time in a segment tree over the
 * compressed start times, and every node keeps the union of the placed
 * spans that meet its time range as merged blocks in a treap that knows its
 * widest gap.  A query takes the O(log T) sets of the nodes that cover its
 * interval and asks each in turn for the lowest window at or above the
 * current candidate that fits between its blocks (gaps too narrow are
 * skipped whole), until every set agrees.  On dense problems the blocks are
 * the packed layout itself and the gaps its real holes, so a placement
 * costs a few treap descents per set, however many items are live.
 * Small or dense problems skip the tree and scan one offset-sorted array;
 * problems whose items each meet few others (lifetimes short against the
 * time axis, as in graphs, or spread over many distinct times) scan one
 * such array per bucket of time, only the buckets the item meets
 * (mp_firstfit_mode says which index); all give the same offsets.
 *
 * Use for multi-bank spilling (one engine per bank, created over the same
 * item array):
 *
 *     for each item i in the planning order:
 *       for each bank b in preference order:
 *         if (mp_firstfit_place(ff[b], i, budget[b], &off)) { record b, off; break; }
 *       if no bank took it: report the tensor that does not fit
 *
 * mp_firstfit_place with limit H answers "does item i fit below height H in
 * this arena" and places it only when it does; on failure nothing changes.
 *
 * The engine does not choose orders (the planners do), does not own the
 * item array, and is not thread-safe.
 */
#ifndef MP_FIRSTFIT_H
#define MP_FIRSTFIT_H

#include "memplan.h"

/* Up to this many items, one scan of an offset-sorted array places an item
 * as fast as any index: the engine's scan (firstfit.c) and the one-shot
 * sweep (firstfit_sweep.c) both hand smaller problems to it. */
#define MP_FIRSTFIT_SMALL_N 256u

typedef struct mp_firstfit mp_firstfit;

/* An engine over items[0..n) (the array must outlive the engine and must
 * not change).  Items must satisfy start <= end and have a power-of-two
 * align.  Nothing is placed yet.  Returns MP_ERR_NOMEM or MP_OK. */
mp_status mp_firstfit_new(const mp_item *items, size_t n, mp_firstfit **out);

/* mp_firstfit_new with the index forced, for tests and benchmarks: mode
 * "scan" (one offset-sorted array), "buckets" (one per bucket of time
 * ranks, at the width the engine would choose) or "tree"; NULL chooses as
 * mp_firstfit_new does.  Every mode gives the same offsets. */
mp_status mp_firstfit_new_as(const mp_item *items, size_t n, const char *mode,
                             mp_firstfit **out);

void mp_firstfit_free(mp_firstfit **ff);

/* The lowest offset, a multiple of items[i].align, at which item i
 * overlaps no placed item whose lifetime intersects its own.  Returns false
 * (and leaves *off unspecified) when that offset + size exceeds `limit`;
 * limit 0 means no limit.  Item i must not be placed.  Zero-size items
 * always fit at offset 0.  Changes no placement (it may build internal
 * indexes, hence the non-const engine). */
bool mp_firstfit_find(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off);

/* Place item i at `off` (which the caller guarantees aligned and free, as
 * mp_firstfit_find returns) and push it on the placement stack. */
void mp_firstfit_insert(mp_firstfit *ff, size_t i, uint64_t off);

/* find + insert: place item i first fit below `limit` (0 = none).  On
 * success stores the offset in *off (may be NULL) and returns true; when it
 * does not fit returns false and changes nothing. */
bool mp_firstfit_place(mp_firstfit *ff, size_t i, uint64_t limit, uint64_t *off);

/* Number of placed items (the depth of the placement stack). */
size_t mp_firstfit_count(const mp_firstfit *ff);

/* The item placed k-th (k < count). */
size_t mp_firstfit_placed_at(const mp_firstfit *ff, size_t k);

/* Offset of placed item i. */
uint64_t mp_firstfit_offset(const mp_firstfit *ff, size_t i);

/* max(offset + size) over the placed items; 0 when none is placed. */
uint64_t mp_firstfit_height(const mp_firstfit *ff);

/* Height after only the first k placements (k <= count). */
uint64_t mp_firstfit_height_at(const mp_firstfit *ff, size_t k);

/* Undo the most recent placements until `count` remain (count <= current
 * count; otherwise a no-op).  Cost is that of the removed insertions. */
void mp_firstfit_truncate(mp_firstfit *ff, size_t count);

/* Keep no undo trail from now on (saves memory and time when the caller
 * only ever truncates to 0): truncating to a count above 0 then places the
 * kept items again. */
void mp_firstfit_no_undo(mp_firstfit *ff);

/* Place every item of `order` (n_order indices into the engine's items,
 * each at most once) in turn, after truncating to `keep` placements, with no
 * limit; writes each offset to offsets[item] when offsets is non-NULL and
 * returns the height. */
uint64_t mp_firstfit_run(mp_firstfit *ff, const uint32_t *order, size_t n_order, size_t keep,
                         uint64_t *offsets);

/* mp_firstfit_run with a CLOCK_MONOTONIC deadline in milliseconds (0 =
 * none), looked at every few hundred placements: returns UINT64_MAX when
 * the deadline stopped it (the engine then holds a prefix of the order and
 * `offsets` a part of the layout). */
uint64_t mp_firstfit_run_until(mp_firstfit *ff, const uint32_t *order, size_t n_order,
                               size_t keep, uint64_t *offsets, uint64_t deadline_ms);

/* One-shot helper for planners: place items in `order` (a permutation of
 * 0..n-1) on a fresh engine and write offsets[0..n).  An order sorted by
 * start is placed by a sweep over time, O(n log n) however many items are
 * live at once; the offsets are those of the engine.  MP_ERR_NOMEM or
 * MP_OK. */
mp_status mp_firstfit_solve(const mp_item *items, size_t n, const uint32_t *order,
                            uint64_t *offsets);

/* mp_firstfit_solve with a CLOCK_MONOTONIC deadline in milliseconds (0 =
 * none): *cut tells that it stopped there, and offsets[] is then not a
 * layout.  The sweep of a start-ordered order (O(n log n)) is never cut. */
mp_status mp_firstfit_solve_until(const mp_item *items, size_t n, const uint32_t *order,
                                  uint64_t *offsets, uint64_t deadline_ms, bool *cut);

/* What the time-indexed queries have cost so far: block sets (or buckets)
 * consulted plus moves of the candidate offset (0 in "scan" mode, where a
 * query costs at most the number of placed items).  A typical query costs
 * ten or twenty.  Deterministic, so a search may bound its work by it. */
uint64_t mp_firstfit_cost(const mp_firstfit *ff);

/* How the engine indexes placed items: "scan" (small or dense problems:
 * one offset-sorted array), "buckets" (one offset-sorted array per bucket
 * of time ranks, when the buckets an item meets hold few items) or "tree"
 * (the time-indexed segment tree).  For tests and benchmarks; all give the
 * same offsets. */
const char *mp_firstfit_mode(const mp_firstfit *ff);

/* The two placement orders of the seeds' planners, as permutations of
 * 0..n-1 written to order[0..n).  Ties never depend on memory addresses.
 *   by start (greedy): start ascending, then size descending, then id, then
 *     index;
 *   by size (greedy_by_size, hill_climb's starting point): size descending,
 *     then longer lifetime (end - start) first, then earlier start, then id,
 *     then index.
 * MP_ERR_NOMEM or MP_OK. */
mp_status mp_firstfit_order_by_start(const mp_item *items, size_t n, uint32_t *order);
mp_status mp_firstfit_order_by_size(const mp_item *items, size_t n, uint32_t *order);

/* A third order, for the search planners' starts on dense problems: size
 * weighted by how full the busiest time of the item's lifetime is, so that
 * the items at the peak of the live sum go first, largest first (firstfit.c
 * gives the weight).  Ties as by size.  MP_ERR_NOMEM or MP_OK. */
mp_status mp_firstfit_order_by_pressure(const mp_item *items, size_t n, uint32_t *order);

#endif /* MP_FIRSTFIT_H */
