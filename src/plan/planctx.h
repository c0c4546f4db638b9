/*
 * planctx.h — what the plan driver (plan.c) and its scratch placement
 * (scratch.c) share: the driver's context, a memory's usage and the
 * helpers both call.  Private to those two files.
 */
#ifndef MP_PLAN_PLANCTX_H
#define MP_PLAN_PLANCTX_H

#include "graph/inplace.h"
#include "util/util.h"

#define NO_MEM (-1)

/* The composite problem of the scratch items (memory.in_place), built
 * once per plan and laid out by every planner that tries: the items
 * grouped into composites by the kernels' overlap pairs (mp_inplace_build),
 * composites first, in slot order, then every other item.  A pair groups
 * two items pinned to the same memory, or two unpinned ones, so a
 * composite is pinned where its members are: the in-place layout applies
 * to an arena however its tensors got there. */
typedef struct composites {
  mp_status st;      /* of building it */
  size_t n_comp;     /* composites formed; 0: the in-place layout is the plain one */
  size_t k;          /* items of the composite problem */
  struct sitem *ci;  /* as built: laid out on a copy */
  size_t *of;        /* item -> its composite-problem item */
  size_t ns;         /* slots: every item */
  size_t *slot_item; /* slot -> item */
  uint64_t *rel;     /* slot -> offset from its composite item's base */
} composites;

typedef struct planctx {
  const mp_graph *g;
  const mp_platform *pf;
  const mp_memory_args *mem;
  const mp_diag_sink *dx;
  mp_plan *plan;
  mp_attributes *attrs;
  const mp_rule **mem_rule;  /* the ruleset that set each tensor's memory */
  const mp_rule **dst_rule;  /* ... its constant_destination_memory */
  const mp_planner *planner; /* the planner laying out scratch now */
  const mp_option *options;  /* its options (the requested planner's, or none) */
  uint32_t n_options;
  uint32_t n_order;
  mp_memory order[MP_MEM_COUNT];  /* present memories, preferred first */
  bool pinned_only[MP_MEM_COUNT]; /* itcm, unless the constraints list it:
                                     only a rule that names it places there */
  uint64_t budget[MP_MEM_COUNT];
  uint32_t calign[MP_MEM_COUNT]; /* constraint arena_alignment, 0 = none */
  /* current arena extents per memory */
  uint64_t pers_top[MP_MEM_COUNT];
  uint64_t const_top[MP_MEM_COUNT];       /* runtime constant arena keyed by memory */
  int const_src[MP_MEM_COUNT];            /* its source memory, NO_MEM while empty */
  int32_t const_src_tensor[MP_MEM_COUNT]; /* first tensor that fixed the source */
  uint64_t scratch_h[MP_MEM_COUNT];
  uint64_t scratch_lb[MP_MEM_COUNT];
  uint32_t scratch_n[MP_MEM_COUNT];
  uint64_t proven_lo[MP_MEM_COUNT], proven_hi[MP_MEM_COUNT];
  bool timed_out[MP_MEM_COUNT];
  int32_t *caller_io; /* per tensor: memory.io caller buffer (mp_allocation.caller_io) */
  /* memory.in_place, found once per plan: the overlap pairs and the
   * composite problem of the scratch items */
  bool have_pairs, have_comp;
  mp_inplace_pair *pairs;
  size_t n_pairs;
  composites comp;
} planctx;

static inline mp_loc noloc(void) { return MP_LOC_NONE; }

/* The name of memory m and whether it is writable, on the plan's platform. */
static inline const char *mem_name(const planctx *c, mp_memory m) {
  return mp_platform_memory_name(c->pf, m);
}
static inline bool writable(const planctx *c, mp_memory m) {
  return mp_platform_writable(c->pf, m);
}

static inline uint32_t arena_align(const planctx *c, mp_memory m) {
  uint64_t a = 16;
  a = mp_max_u64(a, c->pf->min_alignment);
  a = mp_max_u64(a, c->calign[m]);
  a = mp_max_u64(a, c->pf->alignment[m]);
  return (uint32_t)a;
}

static inline uint32_t slot_align(const planctx *c, const mp_tensor *t, mp_memory m) {
  uint64_t a = c->pf->min_alignment ? c->pf->min_alignment : 1;
  a = mp_max_u64(a, mp_dtype_align(t->dtype));
  a = mp_max_u64(a, t->align_hint);
  a = mp_max_u64(a, c->calign[m]);
  return (uint32_t)a;
}

/* Bytes memory m holds, from the current arena extents. */
typedef struct usage {
  uint64_t scratch, persistent, constant, staged_source;
  uint64_t other; /* other models' arenas (mp_memory_args.reserved) */
} usage;

static inline uint64_t usage_total(usage u) {
  return u.scratch + u.persistent + u.constant + u.staged_source + u.other;
}

usage plan_mem_usage(const planctx *c, mp_memory m);
/* Does memory m still hold every arena within its budget? */
bool plan_fits(const planctx *c, mp_memory m);
/* "raise its budget to N B" when the platform's memory has room, else "" */
void plan_raise_hint(const planctx *c, mp_memory m, uint64_t more, char *buf, size_t n);
/* Bytes left in memory m's budget. */
uint64_t plan_mem_free(const planctx *c, mp_memory m);
mp_memory plan_room_elsewhere(const planctx *c, mp_memory not, uint64_t bytes, bool ro_first,
                              bool writable_only);
void plan_set_alloc(planctx *c, const mp_tensor *t, mp_role role, mp_memory m, mp_memory src,
                    uint64_t off, bool pinned);

/* scratch.c: step 3, every scratch tensor placed (in place when asked) */
mp_status plan_place_scratch(planctx *c);
/* the kernels' overlap pairs, found once per plan */
mp_status plan_get_pairs(planctx *c);
void plan_composites_free(composites *cp);

#endif
