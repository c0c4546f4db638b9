/*
 * plan.c — the plan driver: from a graph, a platform and the memory args to
 * a MemoryPlan with every tensor in an arena of a memory bank.
 *
 * The one idea: a memory's budget is shared by every arena living in it, so
 * the driver fills memories in a fixed order and keeps, per memory, the size
 * each of its arenas has reached; "does X fit" is always "would the sum of
 * the memory's arena sizes (each rounded to its alignment), staged source
 * blobs included, stay within the budget".
 *
 * Order of placement:
 *   1. persistent tensors (pinned first), bump-allocated, zero-initialised;
 *   2. pinned constants (a rule named their memory or destination);
 *   3. scratch tensors: the selected planner lays out each scratch arena;
 *      when the first writable memory cannot hold them all, tensors are
 *      assigned to memories by first fit in the planner's visit order,
 *      spilling to the next memory in preference order, and each memory's
 *      arena is then laid out again by the planner;
 *   4. the remaining constants, cold, in the first memory of the preference
 *      order where they fit (the platform order ends with mram).
 * Preference order = memory.constraints order, then the platform's
 * preferred_memory_order for the memories the list does not name.
 *
 * In-place planning (memory.in_place): before step 3, the kernels' overlap
 * contracts group scratch slots into composite buffers (inplace.c), which
 * the planner places like any buffer; each member then sits at its fixed
 * offset from its composite's base.  When that layout ends above the
 * tensor-level bound, the plain layout is planned too and the smaller one
 * kept; when both are above it and the arena lies in one memory, the
 * planners greedy_by_size, greedy and hill_climb lay it out too, in that
 * order, until one reaches the bound, and the smallest layout is kept
 * (mp_plan.in_place_layout says whose), so in_place never ends above the
 * bound where a planner reaches it.  The overlap pairs and the composites
 * are found once per plan, whichever planners then lay them out.
 *
 * A pinned tensor or a constant that cannot fit is an error that names the
 * tensor, the memory, its budget, what is already there and the shortfall,
 * and suggests the knob.  The driver never checks its own result: the
 * verifier (verify.c) does, independently.
 */
#include "util/diag.h"
#include "planners/firstfit.h"
#include "graph/inplace.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

#define NO_MEM (-1)

/* The composite problem of the scratch items (memory.in_place), built
 * once per plan and laid out by every planner that tries: the items
 * grouped into composites by the kernels' overlap pairs (mp_inplace_build),
 * composites first, in slot order, then every other item.  A pair groups
 * two items pinned to the same memory, or two unpinned ones, so a
 * composite is pinned where its members are: the in-place layout applies
 * to an arena however its tensors got there. */
typedef struct composites {
  mp_status st;         /* of building it */
  size_t n_comp;        /* composites formed; 0: the in-place layout is the plain one */
  size_t k;             /* items of the composite problem */
  struct sitem *ci;     /* as built: laid out on a copy */
  size_t *of;           /* item -> its composite-problem item */
  size_t ns;            /* slots: every item */
  size_t *slot_item;    /* slot -> item */
  uint64_t *rel;        /* slot -> offset from its composite item's base */
} composites;


typedef struct planctx {
  const mp_graph *g;
  const mp_platform *pf;
  const mp_memory_args *mem;
  const mp_diag_sink *dx;
  mp_plan *plan;
  mp_attributes *attrs;
  const mp_rule **mem_rule;       /* the ruleset that set each tensor's memory */
  const mp_rule **dst_rule;       /* ... its constant_destination_memory */
  const mp_planner *planner;     /* the planner laying out scratch now */
  const mp_option *options;      /* its options (the requested planner's, or none) */
  uint32_t n_options;
  uint32_t n_order;
  mp_memory order[MP_MEM_COUNT];  /* present memories, preferred first */
  bool pinned_only[MP_MEM_COUNT]; /* itcm, unless the constraints list it:
                                     only a rule that names it places there */
  uint64_t budget[MP_MEM_COUNT];
  uint32_t calign[MP_MEM_COUNT];  /* constraint arena_alignment, 0 = none */
  /* current arena extents per memory */
  uint64_t pers_top[MP_MEM_COUNT];
  uint64_t const_top[MP_MEM_COUNT];   /* runtime constant arena keyed by memory */
  int const_src[MP_MEM_COUNT];        /* its source memory, NO_MEM while empty */
  int32_t const_src_tensor[MP_MEM_COUNT]; /* first tensor that fixed the source */
  uint64_t scratch_h[MP_MEM_COUNT];
  uint64_t scratch_lb[MP_MEM_COUNT];
  uint32_t scratch_n[MP_MEM_COUNT];
  uint64_t proven_lo[MP_MEM_COUNT], proven_hi[MP_MEM_COUNT];
  bool timed_out[MP_MEM_COUNT];
  int32_t *caller_io;  /* per tensor: memory.io caller buffer (mp_allocation.caller_io) */
  /* memory.in_place, found once per plan: the overlap pairs and the
   * composite problem of the scratch items */
  bool have_pairs, have_comp;
  mp_inplace_pair *pairs;
  size_t n_pairs;
  composites comp;
} planctx;

static mp_loc noloc(void) { return MP_LOC_NONE; }

/* The name of memory m and whether it is writable, on the plan's platform. */
static const char *mem_name(const planctx *c, mp_memory m) {
  return mp_platform_memory_name(c->pf, m);
}
static bool writable(const planctx *c, mp_memory m) { return mp_platform_writable(c->pf, m); }

static uint32_t arena_align(const planctx *c, mp_memory m) {
  uint64_t a = 16;
  a = mp_max_u64(a, c->pf->min_alignment);
  a = mp_max_u64(a, c->calign[m]);
  a = mp_max_u64(a, c->pf->alignment[m]);
  return (uint32_t)a;
}

static uint32_t slot_align(const planctx *c, const mp_tensor *t, mp_memory m) {
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

static usage mem_usage(const planctx *c, mp_memory m) {
  usage u = {0, 0, 0, 0, c->mem->reserved[m]};
  uint64_t a = arena_align(c, m);
  u.scratch = mp_align_up(c->scratch_h[m], a);
  u.persistent = mp_align_up(c->pers_top[m], a);
  u.constant = mp_align_up(c->const_top[m], a);
  for (int d = 0; d < MP_MEM_COUNT; d++)
    if (c->const_src[d] == (int)m && d != (int)m)
      u.staged_source += mp_align_up(c->const_top[d], arena_align(c, (mp_memory)d));
  return u;
}

static uint64_t usage_total(usage u) {
  return u.scratch + u.persistent + u.constant + u.staged_source + u.other;
}

static bool fits(const planctx *c, mp_memory m) {
  return usage_total(mem_usage(c, m)) <= c->budget[m];
}

static void describe_usage(const planctx *c, mp_memory m, char *buf, size_t n) {
  usage u = mem_usage(c, m);
  char other[96] = "";
  if (u.other)
    snprintf(other, sizeof other, ", the other models' persistent and constant arenas %llu",
             (unsigned long long)u.other);
  snprintf(buf, n, "%llu already used: scratch %llu, persistent %llu, constants %llu, staged "
                   "sources %llu%s",
           (unsigned long long)usage_total(u), (unsigned long long)u.scratch,
           (unsigned long long)u.persistent, (unsigned long long)u.constant,
           (unsigned long long)u.staged_source, other);
}

/* What a bigger budget for memory m can do, as advice: a max_size below
 * the platform's size may rise to it (a larger one is refused), a memory
 * at its full size cannot grow.  `more` is the bytes it lacks. */
static void raise_hint(const planctx *c, mp_memory m, uint64_t more, char *buf, size_t n) {
  uint64_t full = c->pf->size[m], b = c->budget[m];
  if (b < full && b + more <= full)
    snprintf(buf, n, "Raise %s's max_size in memory.constraints to at least %llu (the platform "
                     "has %llu)", mem_name(c, m), (unsigned long long)(b + more),
             (unsigned long long)full);
  else if (b < full)
    snprintf(buf, n, "%s's max_size can rise only to the platform's %llu bytes, still %llu short",
             mem_name(c, m), (unsigned long long)full, (unsigned long long)(b + more - full));
  else
    snprintf(buf, n, "%s is at the platform's full size (%llu bytes)", mem_name(c, m),
             (unsigned long long)full);
}

/* Free bytes of memory m with everything placed so far. */
static uint64_t mem_free(const planctx *c, mp_memory m) {
  uint64_t used = usage_total(mem_usage(c, m));
  return c->budget[m] > used ? c->budget[m] - used : 0;
}

/* Another memory than `not` with `bytes` free: read-only ones first when
 * `ro_first` (weights read in place), else in preference order; only
 * writable ones when `writable_only`.  MP_MEM_COUNT when none. */
static mp_memory room_elsewhere(const planctx *c, mp_memory not, uint64_t bytes, bool ro_first,
                                bool writable_only) {
  for (int pass = ro_first ? 0 : 1; pass < 2; pass++)
    for (uint32_t k = 0; k < c->n_order; k++) {
      mp_memory m = c->order[k];
      if (m == not || c->pinned_only[m] || (writable_only && !writable(c, m))) continue;
      if (pass == 0 && !c->pf->read_only[m]) continue;
      if (mem_free(c, m) >= bytes) return m;
    }
  return MP_MEM_COUNT;
}

/* "does not fit" for tensor t in memory m.  `need` is the byte growth of
 * m for everything the failure is about: t alone, or with the other
 * tensors a rule pins there (`what` then says so, e.g. "the 21 constant
 * tensors pinned there (24384 bytes)"), so the shortfall is the whole of
 * it, not only the first tensor's.  `hint` is the advice. */
static void report_nofit(const planctx *c, const mp_tensor *t, mp_memory m, uint64_t need,
                         const char *what, const char *hint) {
  char ub[288], nb[72];
  describe_usage(c, m, ub, sizeof ub);
  uint64_t avail = mem_free(c, m);
  mp_error(c->dx, noloc(),
           "%s tensor %u '%s' (%llu bytes) does not fit in %s: budget %llu bytes, %s; short "
           "by %llu bytes%s%s. %s",
           mp_role_name(t->role), t->id, mp_name_middle(t->name, 60, nb, sizeof nb),
           (unsigned long long)t->size, mem_name(c, m), (unsigned long long)c->budget[m], ub,
           (unsigned long long)(need > avail ? need - avail : 0), what && *what ? " for " : "",
           what ? what : "", hint);
}

/* The tensors of `role` a rule pins to memory m (a constant: stored or
 * hydrated there) not placed yet: how many, and their bytes aligned for m. */
static uint64_t pinned_pending(const planctx *c, mp_role role, mp_memory m, uint32_t *count) {
  uint64_t n = 0;
  *count = 0;
  for (uint32_t i = 0; i < c->g->n_tensors; i++) {
    const mp_tensor *t = &c->g->tensors[i];
    const mp_attributes *at = &c->attrs[i];
    if (t->role != role || !t->used || t->size == 0 || c->plan->allocs[i].placed) continue;
    bool here = (at->has_memory && at->memory == m) ||
                (role == MP_ROLE_CONSTANT && at->has_constant_destination_memory &&
                 at->constant_destination_memory == m);
    if (!here) continue;
    n += mp_align_up(t->size, slot_align(c, t, m));
    (*count)++;
  }
  return n;
}

/* The whole of what a pinned tensor's failure is about: the tensors of its
 * role pinned to m and not placed yet.  Fills `what` and returns their
 * bytes (at least `own`, t's own growth). */
static uint64_t pinned_need(const planctx *c, const mp_tensor *t, mp_memory m, uint64_t own,
                            char *what, size_t n) {
  uint32_t k;
  uint64_t all = pinned_pending(c, t->role, m, &k);
  what[0] = '\0';
  if (k <= 1 || all <= own) return own;
  snprintf(what, n, "the %u %s tensors still to place there (%llu bytes)", k, mp_role_name(t->role),
           (unsigned long long)all);
  return all;
}

/* ---- persistent ---------------------------------------------------------- */

static bool try_bump(planctx *c, uint64_t *top, mp_memory m, const mp_tensor *t,
                     uint64_t *offset) {
  uint64_t old = *top;
  uint64_t off = mp_align_up(old, slot_align(c, t, m));
  *top = off + mp_align_up(t->size, slot_align(c, t, m));
  if (fits(c, m)) {
    *offset = off;
    return true;
  }
  *top = old;
  return false;
}

/* The reason of a pinned tensor: the ruleset that decided its memory. */
static mp_placement_reason pinned_reason(const planctx *c, uint32_t t) {
  mp_placement_reason r = {.kind = MP_REASON_PINNED, .rule = -1, .full_at_op = -1};
  const mp_rule *k = c->dst_rule[t] ? c->dst_rule[t] : c->mem_rule[t];
  if (!k) return r;
  r.rule = (int32_t)(k - c->mem->rules);
  /* copies: the plan outlives the config */
  r.rule_key = k->key_path ? mp_pool_strdup(c->plan->pool, k->key_path) : NULL;
  if (k->file) {
    const char *slash = strrchr(k->file, '/');
    r.rule_file = mp_pool_strdup(c->plan->pool, slash ? slash + 1 : k->file);
  }
  r.rule_line = k->line;
  r.rule_column = k->column;
  return r;
}

/* The reason of a program-long tensor that could not enter memory `pref`. */
static mp_placement_reason spilled_whole(const planctx *c, mp_memory pref) {
  return (mp_placement_reason){.kind = MP_REASON_SPILLED, .rule = -1, .spilled_from = pref,
                               .full_at_op = -1,
                               .full_live = usage_total(mem_usage(c, pref)),
                               .full_capacity = c->budget[pref]};
}

static void set_alloc(planctx *c, const mp_tensor *t, mp_role role, mp_memory m,
                      mp_memory src, uint64_t off, bool pinned) {
  mp_allocation *a = &c->plan->allocs[t->id];
  a->reason = pinned ? pinned_reason(c, t->id)
                     : (mp_placement_reason){.kind = MP_REASON_PREFERRED, .rule = -1,
                                             .full_at_op = -1};
  a->placed = true;
  a->memory = m;
  a->offset = off;
  a->size = t->size;
  a->align = slot_align(c, t, m);
  a->slot_size = mp_align_up(t->size, a->align);
  a->binding = (mp_binding){role, m, src, off};
  a->pinned = pinned;
}

static mp_status place_persistent(planctx *c, bool pinned_pass) {
  const mp_graph *g = c->g;
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    const mp_tensor *t = &g->tensors[i];
    if (t->role != MP_ROLE_PERSISTENT || !t->used || t->size == 0) continue;
    bool pinned = c->attrs[i].has_memory;
    if (pinned != pinned_pass) continue;
    uint64_t off;
    if (pinned) {
      mp_memory m = c->attrs[i].memory;
      if (!writable(c, m)) {
        mp_error(c->dx, noloc(), "persistent tensor %u '%s' is pinned to %s, which is read-only; "
                                 "variable tensors need writable memory", i, t->name,
                 mem_name(c, m));
        return MP_ERR_CONFIG;
      }
      if (!try_bump(c, &c->pers_top[m], m, t, &off)) {
        char what[160], raise[192], hint[448];
        uint64_t need = pinned_need(c, t, m, mp_align_up(t->size, slot_align(c, t, m)), what,
                                    sizeof what);
        uint64_t more = need > mem_free(c, m) ? need - mem_free(c, m) : 0;
        raise_hint(c, m, more, raise, sizeof raise);
        mp_memory o = room_elsewhere(c, m, need, false, true);
        if (o != MP_MEM_COUNT)
          snprintf(hint, sizeof hint, "%s; or pin it to %s, which has %llu bytes free.", raise,
                   mem_name(c, o), (unsigned long long)mem_free(c, o));
        else
          snprintf(hint, sizeof hint, "%s; no other writable memory has %llu bytes free.", raise,
                   (unsigned long long)need);
        report_nofit(c, t, m, need, what, hint);
        return MP_ERR_NOFIT;
      }
      set_alloc(c, t, MP_ROLE_PERSISTENT, m, m, off, true);
      continue;
    }
    bool done = false;
    mp_placement_reason why = {.kind = MP_REASON_PREFERRED, .rule = -1, .full_at_op = -1};
    for (uint32_t k = 0; k < c->n_order && !done; k++) {
      mp_memory m = c->order[k];
      if (!writable(c, m) || c->pinned_only[m]) continue;
      if (try_bump(c, &c->pers_top[m], m, t, &off)) {
        set_alloc(c, t, MP_ROLE_PERSISTENT, m, m, off, false);
        c->plan->allocs[i].reason = why;
        done = true;
      } else if (why.kind == MP_REASON_PREFERRED) {
        why = spilled_whole(c, m);
      }
    }
    if (!done) {
      mp_memory m = c->order[0];
      char raise[192], hint[256];
      uint64_t need = mp_align_up(t->size, slot_align(c, t, m));
      raise_hint(c, m, need > mem_free(c, m) ? need - mem_free(c, m) : 0, raise, sizeof raise);
      snprintf(hint, sizeof hint, "No writable memory has room for it. %s.", raise);
      report_nofit(c, t, m, need, NULL, hint);
      return MP_ERR_NOFIT;
    }
  }
  return MP_OK;
}

/* ---- constants ----------------------------------------------------------- */

/* Try to add constant t to the constant arena of runtime memory `rt` sourced
 * from `src`.  Fails (without side effects) when the arena has another
 * source or a memory would exceed its budget. */
static bool try_constant(planctx *c, const mp_tensor *t, mp_memory rt, mp_memory src,
                         uint64_t *off) {
  if (c->const_src[rt] != NO_MEM && c->const_src[rt] != (int)src) return false;
  int old_src = c->const_src[rt];
  uint64_t old_top = c->const_top[rt];
  c->const_src[rt] = (int)src;
  uint32_t a = slot_align(c, t, rt);
  uint64_t o = mp_align_up(old_top, a);
  c->const_top[rt] = o + mp_align_up(t->size, a);
  if (fits(c, rt) && fits(c, src)) {
    *off = o;
    if (old_src == NO_MEM) c->const_src_tensor[rt] = (int32_t)t->id;
    return true;
  }
  c->const_top[rt] = old_top;
  c->const_src[rt] = old_src;
  return false;
}

/* The memory a staged constant that try_constant refused overflows: its
 * runtime memory `rt` when that cannot hold it, else its source. */
static mp_memory staged_overflow(planctx *c, const mp_tensor *t, mp_memory rt, mp_memory src) {
  int old_src = c->const_src[rt];
  uint64_t old_top = c->const_top[rt];
  uint32_t a = slot_align(c, t, rt);
  c->const_src[rt] = (int)src;
  c->const_top[rt] = mp_align_up(old_top, a) + mp_align_up(t->size, a);
  mp_memory bad = fits(c, rt) ? src : rt;
  c->const_top[rt] = old_top;
  c->const_src[rt] = old_src;
  return bad;
}

static mp_status constant_conflict(planctx *c, const mp_tensor *t, mp_memory rt, mp_memory src) {
  int32_t other = c->const_src_tensor[rt];
  mp_error(c->dx, noloc(),
           "constant tensor %u '%s' would be hydrated into the %s constant arena from %s, but "
           "tensor %d '%s' already sources that arena from %s; a constant arena has exactly one "
           "source memory. Give both the same `memory` in memory.tensors, or a different "
           "constant_destination_memory.",
           t->id, t->name, mem_name(c, rt), mem_name(c, src), other,
           other >= 0 ? c->g->tensors[other].name : "?", mem_name(c, (mp_memory)c->const_src[rt]));
  return MP_ERR_CONFIG;
}

/* A pinned constant that does not fit in memory m (its runtime
 * destination when `dest`, else where it is stored): the shortfall of
 * every constant pinned there, and advice naming the memories this
 * platform has. */
static mp_status constant_nofit(planctx *c, const mp_tensor *t, mp_memory m, bool dest) {
  char what[160], raise[192], hint[512];
  uint64_t need = pinned_need(c, t, m, mp_align_up(t->size, slot_align(c, t, m)), what,
                              sizeof what);
  raise_hint(c, m, need > mem_free(c, m) ? need - mem_free(c, m) : 0, raise, sizeof raise);
  mp_memory o = room_elsewhere(c, m, need, !dest, dest);
  const char *them = what[0] ? "them" : "it";
  if (o == MP_MEM_COUNT)
    snprintf(hint, sizeof hint, "%s; no other memory has %llu bytes free for %s.", raise,
             (unsigned long long)need, them);
  else if (dest)
    snprintf(hint, sizeof hint, "%s; or hydrate %s into %s (constant_destination_memory: %s), "
                                "which has %llu bytes free.", raise, them, mem_name(c, o),
             mem_name(c, o), (unsigned long long)mem_free(c, o));
  else if (c->pf->read_only[o])
    snprintf(hint, sizeof hint, "%s; or store %s in %s and read %s in place there (memory: %s "
                                "in memory.tensors), hydrating what needs fast access with "
                                "constant_destination_memory.", raise, them, mem_name(c, o),
             them, mem_name(c, o));
  else
    snprintf(hint, sizeof hint, "%s; or store %s in %s (memory: %s in memory.tensors), which "
                                "has %llu bytes free.", raise, them, mem_name(c, o),
             mem_name(c, o), (unsigned long long)mem_free(c, o));
  report_nofit(c, t, m, need, what, hint);
  return MP_ERR_NOFIT;
}

/* An unpinned constant no memory can hold: what every constant still to
 * place needs against what the memories have free. */
static mp_status constant_nowhere(planctx *c, const mp_tensor *t) {
  uint64_t need = 0, free_all = 0;
  uint32_t k = 0;
  mp_memory last = c->order[c->n_order - 1];
  for (uint32_t i = t->id; i < c->g->n_tensors; i++) {
    const mp_tensor *u = &c->g->tensors[i];
    if (u->role != MP_ROLE_CONSTANT || !u->used || u->size == 0 || c->plan->allocs[i].placed)
      continue;
    need += mp_align_up(u->size, slot_align(c, u, last));
    k++;
  }
  mp_buf fr;
  mp_buf_init(&fr);
  for (uint32_t b = 0; b < c->n_order; b++) {
    mp_memory m = c->order[b];
    free_all += mem_free(c, m);
    mp_buf_printf(&fr, "%s%s %llu", b ? ", " : "", mem_name(c, m),
                  (unsigned long long)mem_free(c, m));
  }
  char nb[72];
  mp_error(c->dx, noloc(),
           "constant tensor %u '%s' (%llu bytes) does not fit in any memory: the %u constant "
           "tensors still to place need %llu bytes, the memories have %llu free in all (%s). "
           "Raise a max_size in memory.constraints where it is below the platform's size, or "
           "move scratch or other constants out of the memories that hold them.",
           t->id, mp_name_middle(t->name, 60, nb, sizeof nb), (unsigned long long)t->size, k,
           (unsigned long long)need, (unsigned long long)free_all,
           fr.data ? mp_buf_str(&fr) : "");
  mp_buf_free(&fr);
  return MP_ERR_NOFIT;
}

static mp_status place_constant(planctx *c, const mp_tensor *t, bool pinned_pass) {
  const mp_attributes *at = &c->attrs[t->id];
  bool pinned = at->has_memory || at->has_constant_destination_memory;
  if (pinned != pinned_pass) return MP_OK;
  uint64_t off;
  if (at->has_constant_destination_memory) {
    mp_memory rt = at->constant_destination_memory;
    if (at->has_memory) {
      mp_memory src = at->memory;
      if (c->const_src[rt] != NO_MEM && c->const_src[rt] != (int)src)
        return constant_conflict(c, t, rt, src);
      if (!try_constant(c, t, rt, src, &off)) {
        mp_memory bad = staged_overflow(c, t, rt, src);
        return constant_nofit(c, t, bad, bad == rt);
      }
      set_alloc(c, t, MP_ROLE_CONSTANT, rt, src, off, true);
      return MP_OK;
    }
    /* destination fixed, source by preference (the arena's source if set) */
    if (c->const_src[rt] != NO_MEM) {
      mp_memory src = (mp_memory)c->const_src[rt];
      if (try_constant(c, t, rt, src, &off)) {
        set_alloc(c, t, MP_ROLE_CONSTANT, rt, src, off, true);
        return MP_OK;
      }
    } else {
      for (uint32_t k = 0; k < c->n_order; k++) {
        mp_memory src = c->order[k];
        if (c->pinned_only[src]) continue;
        if (try_constant(c, t, rt, src, &off)) {
          set_alloc(c, t, MP_ROLE_CONSTANT, rt, src, off, true);
          return MP_OK;
        }
      }
    }
    return constant_nofit(c, t, rt, true);
  }
  if (at->has_memory) {
    mp_memory m = at->memory;
    if (c->const_src[m] != NO_MEM && c->const_src[m] != (int)m)
      return constant_conflict(c, t, m, m);
    if (!try_constant(c, t, m, m, &off)) return constant_nofit(c, t, m, false);
    set_alloc(c, t, MP_ROLE_CONSTANT, m, m, off, true);
    return MP_OK;
  }
  for (uint32_t k = 0; k < c->n_order; k++) {
    mp_memory m = c->order[k];
    if (c->pinned_only[m]) continue;
    if (try_constant(c, t, m, m, &off)) {
      set_alloc(c, t, MP_ROLE_CONSTANT, m, m, off, false);
      if (k > 0) c->plan->allocs[t->id].reason = spilled_whole(c, c->order[0]);
      return MP_OK;
    }
  }
  return constant_nowhere(c, t);
}

static mp_status place_constants(planctx *c, bool pinned_pass) {
  for (uint32_t i = 0; i < c->g->n_tensors; i++) {
    const mp_tensor *t = &c->g->tensors[i];
    if (t->role != MP_ROLE_CONSTANT || !t->used || t->size == 0) continue;
    mp_status st = place_constant(c, t, pinned_pass);
    if (st != MP_OK) return st;
  }
  return MP_OK;
}

/* ---- scratch ------------------------------------------------------------- */

typedef struct sitem {
  uint32_t t;          /* tensor id (a composite: its representative) */
  int32_t start, end;
  uint64_t size;       /* unaligned bytes (a composite: its extent) */
  uint32_t align;      /* a composite's alignment, 0 = the tensor's */
  int pinned;          /* memory or NO_MEM */
  int bank;            /* chosen memory */
  uint64_t offset;
  mp_placement_reason spill; /* kind SPILLED when it left the preferred memory */
} sitem;

static uint32_t item_align(const planctx *c, const sitem *it, mp_memory m) {
  uint32_t a = slot_align(c, &c->g->tensors[it->t], m);
  return it->align > a ? it->align : a;
}

/* Largest scratch height memory m can take with everything else there. */
static uint64_t scratch_capacity(planctx *c, mp_memory m) {
  uint64_t saved = c->scratch_h[m];
  c->scratch_h[m] = 0;
  uint64_t used = usage_total(mem_usage(c, m));
  c->scratch_h[m] = saved;
  if (used >= c->budget[m]) return 0;
  return mp_align_down(c->budget[m] - used, arena_align(c, m));
}

static bool visit_by_start(const mp_planner *pl) { return !strcmp(pl->name, "greedy"); }

/* Run the planner on the items assigned to memory m; on success store the
 * layout if it fits in `cap`. Returns false when it did not fit. */
static mp_status solve_bank(planctx *c, sitem *items, size_t n, mp_memory m, uint64_t cap,
                            bool *fit) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += items[i].bank == (int)m;
  *fit = true;
  if (k == 0) return MP_OK;
  mp_item *pi = calloc(k, sizeof *pi);
  size_t *map = calloc(k, sizeof *map);
  uint64_t *offs = calloc(k, sizeof *offs);
  if (!pi || !map || !offs) {
    free(pi);
    free(map);
    free(offs);
    return MP_ERR_NOMEM;
  }
  k = 0;
  for (size_t i = 0; i < n; i++) {
    if (items[i].bank != (int)m) continue;
    uint32_t a = item_align(c, &items[i], m);
    pi[k] = (mp_item){mp_align_up(items[i].size, a), items[i].start, items[i].end, a, items[i].t};
    map[k++] = i;
  }
  mp_problem p = {k, pi, cap};
  mp_solution sol;
  memset(&sol, 0, sizeof sol);
  sol.offsets = offs;
  sol.progress = c->mem->progress;
  mp_status st = mp_solve(c->planner, &p, c->options, c->n_options, &sol, c->dx);
  if (st == MP_OK) {
    c->scratch_lb[m] = sol.lower_bound;
    if (sol.height <= cap) {
      for (size_t i = 0; i < k; i++) items[map[i]].offset = offs[i];
      c->scratch_h[m] = sol.height;
      c->scratch_n[m] = (uint32_t)k;
      c->proven_lo[m] = sol.proven_lower;
      c->proven_hi[m] = sol.proven_upper;
      c->timed_out[m] = sol.timed_out;
    } else {
      *fit = false;
    }
  }
  free(pi);
  free(map);
  free(offs);
  return st;
}

static uint64_t items_lower_bound(const planctx *c, const sitem *items, size_t n, mp_memory m);

static int cmp_span(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The largest free gap below `cap` that the items already in bank m leave
 * over the ops [start, end]: what first fit had for a slot there.  The
 * first `k` entries of `visit` are the items placed so far; bi holds their
 * aligned sizes for m. */
static uint64_t largest_gap(const sitem *items, const mp_item *bi, const uint32_t *visit, size_t k,
                            int m, int32_t start, int32_t end, uint64_t cap) {
  uint64_t *span = malloc((k ? k : 1) * 2 * sizeof *span);
  if (!span) return 0;
  size_t ns = 0;
  for (size_t j = 0; j < k; j++) {
    const sitem *y = &items[visit[j]];
    if (y->bank != m || y->end < start || end < y->start) continue;
    span[2 * ns] = y->offset;
    span[2 * ns + 1] = y->offset + bi[visit[j]].size;
    ns++;
  }
  qsort(span, ns, 2 * sizeof *span, cmp_span);
  uint64_t best = 0, at = 0;
  for (size_t j = 0; j < ns && at < cap; j++) {
    uint64_t lo = span[2 * j] < cap ? span[2 * j] : cap;
    if (lo > at && lo - at > best) best = lo - at;
    if (span[2 * j + 1] > at) at = span[2 * j + 1];
  }
  if (cap > at && cap - at > best) best = cap - at;
  free(span);
  return best;
}

/* A scratch item that fits in no memory it may take: an error with what
 * the scratch needs (the most bytes live at once, of the items pinned to
 * its memory or of all) against what the memories have free. */
static void scratch_nofit(planctx *c, const sitem *items, size_t n, const sitem *it,
                          const uint64_t *cap) {
  const mp_tensor *t = &c->g->tensors[it->t];
  char nb[72];
  const char *name = mp_name_middle(t->name, 60, nb, sizeof nb);
  sitem *sub = malloc((n ? n : 1) * sizeof *sub);
  size_t k = 0;
  for (size_t i = 0; sub && i < n; i++)
    if (it->pinned == NO_MEM || items[i].pinned == it->pinned) sub[k++] = items[i];
  if (it->pinned != NO_MEM) {
    mp_memory m = (mp_memory)it->pinned;
    uint64_t lb = sub ? items_lower_bound(c, sub, k, m) : 0;
    char raise[192], hint[448];
    raise_hint(c, m, lb > cap[m] ? lb - cap[m] : 0, raise, sizeof raise);
    mp_memory o = room_elsewhere(c, m, lb, false, true);
    if (o != MP_MEM_COUNT)
      snprintf(hint, sizeof hint, "%s; or pin the scratch to %s, which has %llu bytes free, or "
                                  "unpin it so it can spill.", raise, mem_name(c, o),
               (unsigned long long)mem_free(c, o));
    else
      snprintf(hint, sizeof hint, "%s; or unpin it so it can spill.", raise);
    char all[128] = "";
    if (k > 1)
      snprintf(all, sizeof all, "the %zu scratch tensors pinned there need at least %llu bytes "
                                "live at once, and ", k, (unsigned long long)lb);
    mp_error(c->dx, noloc(),
             "scratch tensor %u '%s' (%llu bytes, live over ops %d-%d) does not fit in %s: %s%s "
             "leaves %llu bytes for scratch (budget %llu bytes); short by %s%llu bytes. %s",
             it->t, name, (unsigned long long)it->size, it->start, it->end, mem_name(c, m), all,
             mem_name(c, m), (unsigned long long)cap[m], (unsigned long long)c->budget[m],
             k > 1 ? "at least " : "", (unsigned long long)(lb > cap[m] ? lb - cap[m] : 0), hint);
  } else {
    mp_buf fr;
    mp_buf_init(&fr);
    uint64_t all = 0, lb = 0;
    for (uint32_t b = 0; b < c->n_order; b++) {
      mp_memory m = c->order[b];
      if (!writable(c, m) || c->pinned_only[m]) continue;
      if (!lb && sub) lb = items_lower_bound(c, sub, k, m);
      all += cap[m];
      mp_buf_printf(&fr, "%s%s %llu", fr.len ? ", " : "", mem_name(c, m),
                    (unsigned long long)cap[m]);
    }
    bool can_raise = false, others = false;
    for (uint32_t b = 0; b < c->n_order; b++) {
      mp_memory m = c->order[b];
      if (!writable(c, m) || c->pinned_only[m]) continue;
      can_raise |= c->budget[m] < c->pf->size[m];
      others |= usage_total(mem_usage(c, m)) > mp_align_up(c->scratch_h[m], arena_align(c, m));
    }
    mp_error(c->dx, noloc(),
             "scratch tensor %u '%s' (%llu bytes, live over ops %d-%d) does not fit in any "
             "writable memory: the activations need at least %llu bytes live at once, the "
             "writable memories leave %llu bytes for scratch in all (%s), and first fit found no "
             "gap of %llu bytes in any of them at that point. %s%s",
             it->t, name, (unsigned long long)it->size, it->start, it->end,
             (unsigned long long)lb, (unsigned long long)all, fr.data ? mp_buf_str(&fr) : "",
             (unsigned long long)it->size,
             can_raise ? "Raise a max_size in memory.constraints (up to the platform's size)"
                       : "Every writable memory is at the platform's full size",
             others ? ", or move constants and state out of the writable memories."
                    : "; memory.in_place lets outputs share bytes with their inputs.");
    mp_buf_free(&fr);
  }
  free(sub);
}

/* Assign items to memories by first fit in the planner's visit order
 * (pinned items first), spilling down the preference order: one first-fit
 * engine per memory, each over the items sized for that memory's slot
 * alignment.  Fills items[].bank and offsets. */
static mp_status assign_banks(planctx *c, sitem *items, size_t n, const uint64_t *cap) {
  mp_item *bi[MP_MEM_COUNT] = {NULL};
  mp_firstfit *ff[MP_MEM_COUNT] = {NULL};
  uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
  uint32_t *visit = malloc((n ? n : 1) * sizeof *visit);
  /* live scratch bytes per op in the preferred memory, to say where it was
   * full when a tensor spills */
  size_t n_ops = c->g->n_ops ? c->g->n_ops : 1;
  uint64_t *live = calloc(n_ops, sizeof *live);
  mp_status st = ord && visit && live ? MP_OK : MP_ERR_NOMEM;
  mp_memory any = MP_MEM_COUNT;
  for (uint32_t b = 0; b < c->n_order && st == MP_OK; b++) {
    mp_memory m = c->order[b];
    if (!writable(c, m)) continue;
    bi[m] = malloc((n ? n : 1) * sizeof(mp_item));
    if (!bi[m]) {
      st = MP_ERR_NOMEM;
      break;
    }
    for (size_t i = 0; i < n; i++) {
      uint32_t al = item_align(c, &items[i], m);
      bi[m][i] = (mp_item){mp_align_up(items[i].size, al), items[i].start, items[i].end, al,
                           items[i].t};
    }
    st = mp_firstfit_new(bi[m], n, &ff[m]);
    if (any == MP_MEM_COUNT) any = m;
  }
  if (st == MP_OK && any != MP_MEM_COUNT)
    st = visit_by_start(c->planner) ? mp_firstfit_order_by_start(bi[any], n, ord)
                                    : mp_firstfit_order_by_size(bi[any], n, ord);
  if (st == MP_OK) {
    /* pinned items first, each group keeping the planner's order */
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
      for (size_t i = 0; i < n; i++)
        if ((items[ord[i]].pinned != NO_MEM) == (pass == 0)) visit[k++] = ord[i];
  }
  for (size_t k = 0; k < n && st == MP_OK; k++) {
    sitem *it = &items[visit[k]];
    it->bank = NO_MEM;
    for (uint32_t b = 0; b < c->n_order && it->bank == NO_MEM; b++) {
      mp_memory m = c->order[b];
      if (!ff[m] || cap[m] == 0) continue; /* a 0 limit would mean "none" to the engine */
      if (it->pinned != NO_MEM && it->pinned != (int)m) continue;
      if (it->pinned == NO_MEM && c->pinned_only[m]) continue;
      if (mp_firstfit_place(ff[m], visit[k], cap[m], &it->offset)) it->bank = (int)m;
    }
    if (it->bank != NO_MEM && it->pinned == NO_MEM && any != MP_MEM_COUNT &&
        it->bank != (int)any) {
      /* spilled: the op of its lifetime where the preferred memory was fullest */
      mp_placement_reason r = {.kind = MP_REASON_SPILLED, .rule = -1, .spilled_from = any,
                               .full_at_op = -1, .full_capacity = cap[any]};
      if (cap[any]) {
        r.needed = bi[any][visit[k]].size;
        r.largest_gap = largest_gap(items, bi[any], visit, k, (int)any, it->start, it->end,
                                    cap[any]);
      }
      if (cap[any] == 0) {
        r.full_live = usage_total(mem_usage(c, any));
        r.full_capacity = c->budget[any];
      }
      for (int32_t op = it->start; cap[any] && op <= it->end && op >= 0 && (size_t)op < n_ops;
           op++)
        if (r.full_at_op < 0 || live[op] > r.full_live) {
          r.full_at_op = op;
          r.full_live = live[op];
        }
      it->spill = r;
    }
    if (it->bank == (int)any)
      for (int32_t op = it->start; op <= it->end && op >= 0 && (size_t)op < n_ops; op++)
        live[op] += bi[any][visit[k]].size;
    if (it->bank != NO_MEM) continue;
    for (int m = 0; m < MP_MEM_COUNT; m++) c->scratch_h[m] = ff[m] ? mp_firstfit_height(ff[m]) : 0;
    scratch_nofit(c, items, n, it, cap);
    st = MP_ERR_NOFIT;
  }
  if (st == MP_OK)
    for (int m = 0; m < MP_MEM_COUNT; m++) c->scratch_h[m] = ff[m] ? mp_firstfit_height(ff[m]) : 0;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    mp_firstfit_free(&ff[m]);
    free(bi[m]);
  }
  free(ord);
  free(visit);
  free(live);
  return st;
}

/* Lay out scratch items: the whole arena in the first writable memory when
 * it fits (and nothing is pinned), else assignment to banks by first fit
 * and each bank laid out again.  Fills items[].bank and offset and the
 * per-memory scratch figures of c. */
static mp_status layout_scratch(planctx *c, sitem *items, size_t n) {
  bool any_pinned = false;
  for (size_t i = 0; i < n; i++) any_pinned |= items[i].pinned != NO_MEM;
  uint64_t cap[MP_MEM_COUNT] = {0};
  for (uint32_t b = 0; b < c->n_order; b++) cap[c->order[b]] = scratch_capacity(c, c->order[b]);
  mp_memory first = MP_MEM_COUNT;
  for (uint32_t b = 0; b < c->n_order && first == MP_MEM_COUNT; b++)
    if (writable(c, c->order[b])) first = c->order[b];
  mp_status st = MP_OK;
  bool fit = false;
  if (first == MP_MEM_COUNT) {
    mp_error(c->dx, noloc(), "the platform has no writable memory for scratch tensors");
    return MP_ERR_CONFIG;
  }
  if (!any_pinned) {
    /* common case: the whole scratch arena in the first writable memory */
    for (size_t i = 0; i < n; i++) items[i].bank = (int)first;
    st = solve_bank(c, items, n, first, cap[first], &fit);
  }
  if (st == MP_OK && !fit) {
    memset(c->scratch_h, 0, sizeof c->scratch_h);
    st = assign_banks(c, items, n, cap);
    if (st == MP_OK) {
      /* lay each memory's arena out again with the planner; keep the
       * assignment layout when the planner's is not better */
      for (uint32_t b = 0; b < c->n_order && st == MP_OK; b++) {
        mp_memory m = c->order[b];
        uint64_t h = c->scratch_h[m];
        size_t k = 0;
        for (size_t i = 0; i < n; i++) k += items[i].bank == (int)m;
        if (k == 0) continue;
        uint64_t *keep = malloc(n * sizeof *keep);
        if (!keep) {
          st = MP_ERR_NOMEM;
          break;
        }
        for (size_t i = 0; i < n; i++) keep[i] = items[i].offset;
        bool ok;
        st = solve_bank(c, items, n, m, h, &ok);
        if (st == MP_OK && !ok) {
          for (size_t i = 0; i < n; i++) items[i].offset = keep[i];
          c->scratch_h[m] = h;
          c->scratch_n[m] = (uint32_t)k;
          c->proven_lo[m] = c->scratch_lb[m];
          c->proven_hi[m] = h;
          c->timed_out[m] = false;
        }
        free(keep);
      }
    }
  }
  return st;
}

/* The per-memory scratch figures of a layout, to compare two of them. */
typedef struct scratch_state {
  uint64_t h[MP_MEM_COUNT], lb[MP_MEM_COUNT], lo[MP_MEM_COUNT], hi[MP_MEM_COUNT];
  uint32_t n[MP_MEM_COUNT];
  bool timed_out[MP_MEM_COUNT];
} scratch_state;

static void get_state(const planctx *c, scratch_state *s) {
  memcpy(s->h, c->scratch_h, sizeof s->h);
  memcpy(s->lb, c->scratch_lb, sizeof s->lb);
  memcpy(s->lo, c->proven_lo, sizeof s->lo);
  memcpy(s->hi, c->proven_hi, sizeof s->hi);
  memcpy(s->n, c->scratch_n, sizeof s->n);
  memcpy(s->timed_out, c->timed_out, sizeof s->timed_out);
}

static void set_state(planctx *c, const scratch_state *s) {
  memcpy(c->scratch_h, s->h, sizeof s->h);
  memcpy(c->scratch_lb, s->lb, sizeof s->lb);
  memcpy(c->proven_lo, s->lo, sizeof s->lo);
  memcpy(c->proven_hi, s->hi, sizeof s->hi);
  memcpy(c->scratch_n, s->n, sizeof s->n);
  memcpy(c->timed_out, s->timed_out, sizeof s->timed_out);
}

static uint64_t total_height(const planctx *c) {
  uint64_t h = 0;
  for (int m = 0; m < MP_MEM_COUNT; m++) h += mp_align_up(c->scratch_h[m], arena_align(c, (mp_memory)m));
  return h;
}

/* A tensor's slot alignment in whichever writable memory it lands. */
static uint32_t any_slot_align(const planctx *c, const mp_tensor *t) {
  uint32_t a = 1;
  for (uint32_t b = 0; b < c->n_order; b++)
    if (writable(c, c->order[b])) {
      uint32_t x = slot_align(c, t, c->order[b]);
      if (x > a) a = x;
    }
  return a;
}

/* May item x at offset ox and item y at oy of one bank coexist in an
 * in-place layout: never live together, disjoint, or a pair whose contract
 * the two offsets honour?  pair_at indexes `pairs` by operator. */
static bool may_coexist(const sitem *x, uint64_t ox, uint64_t sx, const sitem *y, uint64_t sy,
                        const mp_inplace_pair *pairs, const size_t *pair_at, uint32_t n_ops) {
  if (x->end < y->start || y->end < x->start) return true;
  if (ox + sx <= y->offset || y->offset + sy <= ox) return true;
  int32_t op = x->end == y->start ? x->end : y->end == x->start ? y->end : -1;
  if (op < 0 || (uint32_t)op >= n_ops) return false;
  for (size_t k = pair_at[op]; k < pair_at[op + 1]; k++) {
    const mp_inplace_pair *q = &pairs[k];
    int64_t d;
    if (q->in == x->t && q->out == y->t)
      d = (int64_t)ox - (int64_t)y->offset;
    else if (q->in == y->t && q->out == x->t)
      d = (int64_t)y->offset - (int64_t)ox;
    else
      continue;
    return d >= q->gap && d % q->period == 0;
  }
  return false;
}

/* After the planner: a composite reserves its extent over its whole
 * lifetime, so the planner may leave a buffer on top that would fit over
 * the input its kernel allows, or in bytes a composite holds but does not
 * use at that time (a stride-2 shortcut's output above its block's
 * composite while it could lie over the block's output).  So, per bank,
 * the slot that ends highest moves to the lowest offset below where it
 * coexists with every other slot (0, just above or below a slot live with
 * it, or at a pair's gap), until the top slot cannot move.  Offsets only
 * fall, and are kept only when the bank's height does; work is bounded. */
static void drop_tops(planctx *c, sitem *items, size_t n, const mp_inplace_pair *pairs,
                      size_t np) {
  uint32_t n_ops = c->g->n_ops;
  size_t *pair_at = calloc((size_t)n_ops + 2, sizeof *pair_at);
  uint64_t *sz = malloc((n ? n : 1) * sizeof *sz), *keep = malloc((n ? n : 1) * sizeof *keep);
  int64_t *cand = malloc((4 * n + 2) * sizeof *cand);
  if (!pair_at || !sz || !keep || !cand) goto done;
  for (size_t k = 0; k < np; k++) pair_at[pairs[k].op + 1]++;
  for (uint32_t op = 0; op < n_ops; op++) pair_at[op + 1] += pair_at[op];
  uint64_t budget = 4000000;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    bool any = false;
    for (size_t i = 0; i < n; i++) {
      if (items[i].bank != m) continue;
      uint32_t a = item_align(c, &items[i], (mp_memory)m);
      sz[i] = mp_align_up(items[i].size, a);
      any = true;
    }
    if (!any) continue;
    uint64_t h0 = 0;
    for (size_t i = 0; i < n; i++) {
      keep[i] = items[i].offset;
      if (items[i].bank == m && items[i].offset + sz[i] > h0) h0 = items[i].offset + sz[i];
    }
    for (;;) {
      size_t top = SIZE_MAX;
      uint64_t hi = 0;
      for (size_t i = 0; i < n; i++)
        if (items[i].bank == m && items[i].offset + sz[i] > hi) {
          hi = items[i].offset + sz[i];
          top = i;
        }
      if (top == SIZE_MAX) break; /* moving within its bank keeps a pinned slot pinned */
      sitem *x = &items[top];
      uint32_t a = item_align(c, x, (mp_memory)m);
      size_t k = 0;
      cand[k++] = 0;
      for (size_t j = 0; j < n; j++) {
        const sitem *y = &items[j];
        if (j == top || y->bank != m || x->end < y->start || y->end < x->start) continue;
        cand[k++] = (int64_t)mp_align_up(y->offset + sz[j], a);
        if (y->offset >= sz[top]) cand[k++] = (int64_t)mp_align_down(y->offset - sz[top], a);
        cand[k++] = (int64_t)mp_align_down(y->offset, a); /* on it, where a pair allows */
      }
      /* ascending, distinct, below the current offset */
      for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
          int64_t t = cand[j - 1];
          cand[j - 1] = cand[j];
          cand[j] = t;
        }
      bool moved = false;
      for (size_t i = 0; i < k && !moved && budget; i++) {
        if (cand[i] >= (int64_t)x->offset || (i && cand[i] == cand[i - 1])) continue;
        bool ok = true;
        for (size_t j = 0; j < n && ok; j++) {
          if (j == top || items[j].bank != m) continue;
          if (budget) budget--;
          ok = may_coexist(x, (uint64_t)cand[i], sz[top], &items[j], sz[j], pairs, pair_at, n_ops);
        }
        if (ok) {
          x->offset = (uint64_t)cand[i];
          moved = true;
        }
      }
      if (!moved) break;
    }
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
      if (items[i].bank == m && items[i].offset + sz[i] > h) h = items[i].offset + sz[i];
    if (h < h0 && h < c->scratch_h[m]) {
      c->scratch_h[m] = h;
    } else {
      for (size_t i = 0; i < n; i++)
        if (items[i].bank == m) items[i].offset = keep[i];
    }
  }
done:
  free(pair_at);
  free(sz);
  free(keep);
  free(cand);
}

/* The kernels' overlap pairs of c's graph (mp_inplace_pairs), found once
 * per plan. */
static mp_status get_pairs(planctx *c) {
  if (c->have_pairs) return MP_OK;
  mp_status st = mp_inplace_pairs(c->g, &c->pairs, &c->n_pairs);
  c->have_pairs = st == MP_OK;
  return st;
}

static void composites_free(composites *cp) {
  free(cp->ci);
  free(cp->of);
  free(cp->slot_item);
  free(cp->rel);
  memset(cp, 0, sizeof *cp);
}

static mp_status composites_build(planctx *c, const sitem *items, size_t n, composites *cp) {
  const mp_graph *g = c->g;
  memset(cp, 0, sizeof *cp);
  mp_status st = get_pairs(c);
  if (st != MP_OK || c->n_pairs == 0) return st;
  /* a composite lies in one memory: a pair groups two tensors only when
   * both are pinned to the same memory or neither is pinned */
  int *pin = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof *pin);
  mp_inplace_pair *pairs = malloc(c->n_pairs * sizeof *pairs);
  size_t np = 0;
  if (!pin || !pairs) {
    free(pin);
    free(pairs);
    return MP_ERR_NOMEM;
  }
  for (uint32_t t = 0; t < g->n_tensors; t++) pin[t] = NO_MEM;
  for (size_t i = 0; i < n; i++) pin[items[i].t] = items[i].pinned;
  for (size_t k = 0; k < c->n_pairs; k++)
    if (pin[c->pairs[k].in] == pin[c->pairs[k].out]) pairs[np++] = c->pairs[k];
  mp_inplace_slot *slots = malloc(n * sizeof *slots);
  size_t *comp_item = malloc(n * sizeof *comp_item);
  cp->slot_item = malloc(n * sizeof *cp->slot_item);
  cp->rel = malloc(n * sizeof *cp->rel);
  cp->ci = malloc(n * sizeof *cp->ci);
  cp->of = malloc(n * sizeof *cp->of); /* item -> its composite item */
  mp_inplace_composite *comps = NULL;
  size_t nc = 0, ns = 0, k = 0;
  if (!slots || !comp_item || !cp->slot_item || !cp->rel || !cp->ci || !cp->of) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    const mp_tensor *t = &g->tensors[items[i].t];
    uint32_t a = items[i].pinned != NO_MEM ? slot_align(c, t, (mp_memory)items[i].pinned)
                                           : any_slot_align(c, t);
    slots[ns] = (mp_inplace_slot){items[i].t, mp_align_up(items[i].size, a), a, items[i].start,
                                  items[i].end, 0, 0};
    cp->slot_item[ns++] = i;
  }
  st = mp_inplace_build(g, pairs, np, slots, ns, &comps, &nc);
  if (st != MP_OK || nc == 0) goto done;
  for (size_t i = 0; i < n; i++) cp->of[i] = SIZE_MAX;
  for (size_t q = 0; q < nc; q++) {
    const mp_inplace_composite *cm = &comps[q];
    comp_item[cm->slot] = k;
    sitem it;
    memset(&it, 0, sizeof it);
    it.t = slots[cm->slot].t;
    it.start = cm->start;
    it.end = cm->end;
    it.size = cm->extent;
    it.align = cm->align;
    it.pinned = pin[it.t]; /* its members' memory: pairs join only equal pins */
    it.bank = NO_MEM;
    cp->ci[k++] = it;
  }
  for (size_t q = 0; q < ns; q++) {
    bool in_comp = slots[q].group != q;
    for (size_t r = 0; r < nc && !in_comp; r++) in_comp = comps[r].slot == q;
    if (in_comp) cp->of[cp->slot_item[q]] = comp_item[slots[q].group];
    cp->rel[q] = slots[q].rel;
  }
  for (size_t i = 0; i < n; i++)
    if (cp->of[i] == SIZE_MAX) {
      cp->of[i] = k;
      cp->ci[k++] = items[i];
    }
  cp->n_comp = nc;
  cp->k = k;
  cp->ns = ns;
done:
  free(pin);
  free(pairs);
  free(slots);
  free(comp_item);
  free(comps);
  if (st != MP_OK || nc == 0) {
    composites_free(cp);
    cp->st = st;
  }
  return st;
}

/* In-place layout with the current planner: the composite problem (built
 * on the first call of a plan) laid out.  On success items[i] gets its
 * bank and offset (a member's: its composite's plus its relative offset)
 * and *used tells whether any composite was formed. */
static mp_status layout_in_place(planctx *c, sitem *items, size_t n, bool *used) {
  composites *cp = &c->comp;
  *used = false;
  if (!c->have_comp) {
    mp_status st = composites_build(c, items, n, cp);
    if (st == MP_ERR_NOMEM) return st;
    c->have_comp = true;
  }
  if (cp->st != MP_OK) return cp->st;
  if (cp->n_comp == 0) return MP_OK;
  sitem *ci = malloc(cp->k * sizeof *ci);
  if (!ci) return MP_ERR_NOMEM;
  memcpy(ci, cp->ci, cp->k * sizeof *ci);
  /* lay out quietly: a composite layout that does not fit falls back to the
   * plain one, which reports its own errors */
  const mp_diag_sink *dx = c->dx;
  c->dx = NULL;
  mp_status st = layout_scratch(c, ci, cp->k);
  c->dx = dx;
  if (st == MP_OK) {
    for (size_t q = 0; q < cp->ns; q++) {
      sitem *it = &items[cp->slot_item[q]];
      const sitem *host = &ci[cp->of[cp->slot_item[q]]];
      it->bank = host->bank;
      it->offset = host->offset + cp->rel[q];
      it->spill = host->spill;
    }
    drop_tops(c, items, n, c->pairs, c->n_pairs);
    *used = true;
  }
  free(ci);
  return st;
}

/* The tensor-level bound of the scratch items in memory m: the most bytes
 * live at once, each item in its own slot (aligned for m), the sum aligned
 * to m's arena.  One pass over a count per operator. */
static uint64_t items_lower_bound(const planctx *c, const sitem *items, size_t n, mp_memory m) {
  int32_t last = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].end > last) last = items[i].end;
  int64_t *delta = calloc((size_t)last + 2, sizeof *delta);
  if (!delta) return 0; /* no bound: nothing is above it */
  for (size_t i = 0; i < n; i++) {
    if (items[i].start < 0 || items[i].end < items[i].start) continue;
    int64_t sz = (int64_t)mp_align_up(items[i].size, item_align(c, &items[i], m));
    delta[items[i].start] += sz;
    delta[items[i].end + 1] -= sz;
  }
  int64_t live = 0, best = 0;
  for (int32_t t = 0; t <= last; t++) {
    live += delta[t];
    if (live > best) best = live;
  }
  free(delta);
  return mp_align_up((uint64_t)best, arena_align(c, m));
}

/* One planner's in-place layout, from the scratch state `before`: the
 * composites of the kernels' overlap contracts (layout_in_place); when
 * that ends above the tensor-level bound lb, or forms no composite, the
 * plain layout too, the smaller kept (the composite one on a tie).  On
 * success items[] and c's scratch figures hold the layout. */
static mp_status layout_one(planctx *c, sitem *items, size_t n, uint64_t lb,
                            const scratch_state *before) {
  bool placed = false;
  set_state(c, before);
  mp_status st = layout_in_place(c, items, n, &placed);
  if (st == MP_ERR_NOMEM) return st;
  if (st != MP_OK) {
    set_state(c, before);
    placed = false;
  }
  if (!placed) return layout_scratch(c, items, n);
  if (total_height(c) <= lb) return MP_OK;
  scratch_state with;
  get_state(c, &with);
  sitem *keep = malloc(n * sizeof *keep);
  if (!keep) return MP_ERR_NOMEM;
  memcpy(keep, items, n * sizeof *keep);
  uint64_t h_with = total_height(c);
  set_state(c, before);
  st = layout_scratch(c, items, n);
  if (st == MP_ERR_NOMEM) {
    free(keep);
    return st;
  }
  /* the plain layout not smaller, or not fitting where the composite one did */
  if (st != MP_OK || total_height(c) >= h_with) {
    memcpy(items, keep, n * sizeof *keep);
    set_state(c, &with);
  }
  free(keep);
  return MP_OK;
}

/* The planners memory.in_place asks, in this order, when the requested
 * planner's layout ends above the tensor-level bound: the cheap ones
 * first, each with its defaults. */
static const char *const in_place_fallbacks[] = {"greedy_by_size", "greedy", "hill_climb"};

/* Every item in one memory: the tensor-level bound is then that arena's. */
static bool one_bank(const sitem *items, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (items[i].bank != items[0].bank) return false;
  return true;
}

/* memory.in_place: the requested planner's layout (layout_one); when it
 * lies in one memory above its tensor-level bound, the in_place_fallbacks
 * planners lay the arena out too, until one reaches the bound, and the
 * smallest layout is kept (the earliest on a tie, the requested planner's
 * first).  The plan records whose layout it kept and why. */
static mp_status layout_in_place_best(planctx *c, sitem *items, size_t n, mp_memory first) {
  scratch_state before;
  get_state(c, &before);
  /* the bound in the memory the arena lands in: the one every item is
   * pinned to, if any, else the first writable one */
  mp_memory where = first;
  if (n && items[0].pinned != NO_MEM) {
    where = (mp_memory)items[0].pinned;
    for (size_t i = 1; i < n; i++)
      if (items[i].pinned != items[0].pinned) where = first;
  }
  uint64_t lb = items_lower_bound(c, items, n, where);
  mp_status st = layout_one(c, items, n, lb, &before);
  if (st != MP_OK || total_height(c) <= lb || !one_bank(items, n)) return st;
  mp_plan *p = c->plan;
  p->in_place_layout.requested_scratch = total_height(c);
  p->in_place_layout.tensor_level_bound = lb;
  sitem *best = malloc(n * sizeof *best), *fresh = malloc(n * sizeof *fresh);
  if (!best || !fresh) {
    free(best);
    free(fresh);
    return MP_ERR_NOMEM;
  }
  memcpy(best, items, n * sizeof *best);
  /* each planner starts from the items as they were, no bank, offset or
   * spill of an earlier layout */
  memcpy(fresh, items, n * sizeof *fresh);
  for (size_t i = 0; i < n; i++) {
    fresh[i].bank = NO_MEM;
    fresh[i].offset = 0;
    memset(&fresh[i].spill, 0, sizeof fresh[i].spill);
  }
  scratch_state best_state;
  get_state(c, &best_state);
  uint64_t best_h = total_height(c);
  const mp_planner *requested = c->planner;
  const mp_diag_sink *dx = c->dx;
  c->dx = NULL; /* the requested planner's layout fits: the others' errors are moot */
  c->options = NULL;
  c->n_options = 0;
  for (size_t k = 0; k < sizeof in_place_fallbacks / sizeof *in_place_fallbacks && best_h > lb;
       k++) {
    const mp_planner *pl = mp_planner_find(in_place_fallbacks[k]);
    if (!pl || pl == requested) continue;
    c->planner = pl;
    memcpy(items, fresh, n * sizeof *items);
    st = layout_one(c, items, n, lb, &before);
    if (st == MP_ERR_NOMEM) break;
    st = MP_OK;
    p->in_place_layout.n_tried++;
    if (total_height(c) < best_h) {
      best_h = total_height(c);
      memcpy(best, items, n * sizeof *best);
      get_state(c, &best_state);
      snprintf(p->in_place_layout.planner, sizeof p->in_place_layout.planner, "%s", pl->name);
    }
  }
  c->planner = requested;
  c->options = c->mem->options;
  c->n_options = c->mem->n_options;
  c->dx = dx;
  memcpy(items, best, n * sizeof *best);
  set_state(c, &best_state);
  free(best);
  free(fresh);
  return st;
}

static mp_status place_scratch(planctx *c) {
  const mp_graph *g = c->g;
  size_t n = 0;
  for (uint32_t i = 0; i < g->n_tensors; i++) n += mp_graph_needs_slot(g, i) && c->caller_io[i] < 0;
  if (n == 0) return MP_OK;
  sitem *items = calloc(n, sizeof *items);
  if (!items) return MP_ERR_NOMEM;
  n = 0;
  for (uint32_t i = 0; i < g->n_tensors; i++) {
    if (!mp_graph_needs_slot(g, i) || c->caller_io[i] >= 0) continue;
    sitem *it = &items[n++];
    it->t = i;
    it->start = g->storage[i].start_op;
    it->end = g->storage[i].end_op;
    it->size = g->tensors[i].size;
    it->pinned = c->attrs[i].has_memory ? (int)c->attrs[i].memory : NO_MEM;
    if (it->pinned != NO_MEM) {
      if (!writable(c, (mp_memory)it->pinned)) {
        mp_error(c->dx, noloc(), "scratch tensor %u '%s' is pinned to %s, which is read-only; "
                                 "activations need writable memory", i, g->tensors[i].name,
                 mem_name(c, (mp_memory)it->pinned));
        free(items);
        return MP_ERR_CONFIG;
      }
    }
  }
  mp_memory first = c->order[0];
  for (uint32_t b = 0; b < c->n_order; b++)
    if (writable(c, c->order[b])) {
      first = c->order[b];
      break;
    }
  mp_status st = c->mem->in_place ? layout_in_place_best(c, items, n, first)
                                  : layout_scratch(c, items, n);
  for (size_t i = 0; st == MP_OK && i < n; i++) {
    const mp_tensor *t = &g->tensors[items[i].t];
    set_alloc(c, t, MP_ROLE_SCRATCH, (mp_memory)items[i].bank, (mp_memory)items[i].bank,
              items[i].offset, items[i].pinned != NO_MEM);
    if (items[i].spill.kind == MP_REASON_SPILLED) c->plan->allocs[t->id].reason = items[i].spill;
  }
  free(items);
  return st;
}

/* ---- arenas, usage, hash ------------------------------------------------- */

/* With memory.in_place, a scratch arena's bounds come from its tensors
 * alone, whatever composites the planner placed: the tensor-level bound
 * and the in-place bound.  A planner's proof then only covers the in-place
 * bound (it was about the composites). */
static mp_status inplace_bounds(planctx *c, mp_memory m, mp_arena *a) {
  const mp_plan *p = c->plan;
  const mp_graph *g = c->g;
  mp_inplace_slot *slots = malloc((p->n_allocs ? p->n_allocs : 1) * sizeof *slots);
  if (!slots) return MP_ERR_NOMEM;
  size_t n = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *al = &p->allocs[t];
    if (!al->placed || al->binding.role != MP_ROLE_SCRATCH || al->memory != m || al->alias_of >= 0)
      continue;
    slots[n++] = (mp_inplace_slot){t, al->slot_size, al->align, g->storage[t].start_op,
                                   g->storage[t].end_op, 0, 0};
  }
  mp_status st = get_pairs(c);
  if (st == MP_OK) {
    a->lower_bound = mp_inplace_bound(g, NULL, 0, slots, n);
    a->inplace_bound = mp_inplace_bound(g, c->pairs, c->n_pairs, slots, n);
    if (a->inplace_bound < a->lower_bound) {
      a->proven_lower = a->inplace_bound;
      a->proven_upper = a->used;
    }
  }
  free(slots);
  return st;
}

static mp_status build_arenas(planctx *c) {
  mp_plan *p = c->plan;
  mp_arena tmp[3 * MP_MEM_COUNT];
  uint32_t n = 0;
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n_mem = mp_platform_by_name(c->pf, by_name);
  for (int role = 0; role < MP_ROLE_COUNT; role++) {
    for (uint32_t k = 0; k < n_mem; k++) {
      mp_memory m = by_name[k];
      uint64_t top = role == MP_ROLE_SCRATCH      ? c->scratch_h[m]
                     : role == MP_ROLE_PERSISTENT ? c->pers_top[m]
                                                  : c->const_top[m];
      bool has = false;
      for (uint32_t t = 0; t < p->n_allocs && !has; t++)
        has = p->allocs[t].placed && p->allocs[t].binding.role == (mp_role)role &&
              p->allocs[t].memory == (mp_memory)m;
      if (!has) continue;
      mp_arena *a = &tmp[n];
      memset(a, 0, sizeof *a);
      a->role = (mp_role)role;
      a->memory = (mp_memory)m;
      a->source_memory = role == MP_ROLE_CONSTANT && c->const_src[m] != NO_MEM
                             ? (mp_memory)c->const_src[m]
                             : (mp_memory)m;
      a->is_staged = a->source_memory != a->memory;
      a->alignment = arena_align(c, (mp_memory)m);
      a->used = top;
      a->total_size = mp_align_up(top, a->alignment);
      if (role == MP_ROLE_SCRATCH) {
        a->lower_bound = c->scratch_lb[m];
        a->inplace_bound = a->lower_bound;
        a->proven_lower = c->proven_lo[m];
        a->proven_upper = c->proven_hi[m];
        a->timed_out = c->timed_out[m];
        if (c->mem->in_place) {
          mp_status st = inplace_bounds(c, (mp_memory)m, a);
          if (st != MP_OK) return st;
        }
      } else {
        /* bump-allocated: used == total_size (ArenaUsage.used) */
        a->used = a->total_size;
        a->lower_bound = a->inplace_bound = a->total_size;
        a->proven_lower = a->proven_upper = a->total_size;
      }
      n++;
    }
  }
  p->arenas = mp_pool_alloc(p->pool, n, sizeof(mp_arena));
  if (!p->arenas) return MP_ERR_NOMEM;
  memcpy(p->arenas, tmp, n * sizeof(mp_arena));
  p->n_arenas = n;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    mp_allocation *al = &p->allocs[t];
    if (!al->placed) continue;
    for (uint32_t i = 0; i < n; i++)
      if (p->arenas[i].role == al->binding.role && p->arenas[i].memory == al->memory) {
        al->arena = i;
        if (al->alias_of < 0) p->arenas[i].n_tensors++;
      }
  }
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    mp_memory_usage *u = &p->memories[m];
    u->present = c->pf->present[m];
    u->budget = c->budget[m];
    if (!u->present) continue;
    usage us = mem_usage(c, (mp_memory)m);
    u->scratch = us.scratch;
    u->persistent = us.persistent;
    u->constant = us.constant;
    u->staged_source = us.staged_source;
    u->reserved = us.other;
    u->used = usage_total(us) - us.other;
  }
  for (uint32_t i = 0; i < n; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->role != MP_ROLE_CONSTANT) continue;
    /* the read-only blob: the cold arena itself, or a staged arena's source */
    mp_memory blob = a->is_staged ? a->source_memory : a->memory;
    if (!c->pf->read_only[blob]) p->memories[blob].load_image += a->total_size;
  }
  return MP_OK;
}

/* memory.io caller: every graph input and output, with the view aliases
 * that share its bytes, lives in a buffer of the application.  Fails when
 * two of them would have to share one buffer (an output that is a view of
 * an input, or a tensor that is both). */
static mp_status mark_caller_io(planctx *c) {
  const mp_graph *g = c->g;
  for (uint32_t t = 0; t < g->n_tensors; t++) c->caller_io[t] = -1;
  if (!c->mem->io_caller) return MP_OK;
  uint32_t n = g->n_inputs + g->n_outputs;
  for (uint32_t k = 0; k < n; k++) {
    int32_t t = k < g->n_inputs ? g->inputs[k] : g->outputs[k - g->n_inputs];
    if (t < 0 || (uint32_t)t >= g->n_tensors) continue;
    int32_t r = g->tensors[t].alias_of >= 0 ? g->tensors[t].alias_of : t;
    if (c->caller_io[r] >= 0) {
      uint32_t o = (uint32_t)c->caller_io[r];
      mp_error(c->dx, MP_LOC_NONE,
               "memory.io caller: %s %u (tensor %d '%s') and %s %u share their bytes (a view "
               "operator between them, or one tensor for both), so they cannot be two buffers "
               "of the application; use memory.io arena",
               o < g->n_inputs ? "input" : "output", o < g->n_inputs ? o : o - g->n_inputs,
               r, g->tensors[r].name, k < g->n_inputs ? "input" : "output",
               k < g->n_inputs ? k : k - g->n_inputs);
      return MP_ERR_UNSUPPORTED;
    }
    c->caller_io[r] = (int32_t)k;
  }
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    int32_t r = g->tensors[t].alias_of;
    if (r >= 0 && c->caller_io[r] >= 0) c->caller_io[t] = c->caller_io[r];
    c->plan->allocs[t].caller_io = c->caller_io[t];
  }
  return MP_OK;
}

/* One warning when unpinned constants ended up cold in RAM while the
 * platform has read-only storage that could hold them: the weights then
 * cost RAM, a load image and a boot-time copy.  It names the ruleset that
 * reads them in place from that storage instead. */
static void warn_cold_in_ram(const planctx *c) {
  const mp_plan *p = c->plan;
  uint64_t total = 0;
  uint32_t tensors = 0;
  mp_buf where;
  mp_buf_init(&where);
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (a->role != MP_ROLE_CONSTANT || a->is_staged || c->pf->read_only[a->memory]) continue;
    uint32_t unpinned = 0;
    for (uint32_t t = 0; t < p->n_allocs; t++)
      unpinned += p->allocs[t].placed && p->allocs[t].arena == i && !p->allocs[t].pinned &&
                  p->allocs[t].alias_of < 0;
    if (!unpinned) continue;
    mp_buf_printf(&where, "%s%llu in %s", total ? ", " : "", (unsigned long long)a->total_size,
                  mem_name(c, a->memory));
    total += a->total_size;
    tensors += unpinned;
  }
  mp_memory ro = MP_MEM_COUNT;
  for (uint32_t k = 0; k < c->n_order && ro == MP_MEM_COUNT; k++)
    if (c->pf->read_only[c->order[k]] && c->budget[c->order[k]] >= total) ro = c->order[k];
  if (total && ro != MP_MEM_COUNT)
    mp_warning(c->dx, noloc(),
               "%u constant tensors (%llu bytes: %s) are cold in RAM: they need a %llu-byte load "
               "image in non-volatile memory and a copy at boot; to read them in place from %s, "
               "add the ruleset {type: constant, attributes: {memory: %s}} to memory.tensors",
               tensors, (unsigned long long)total, mp_buf_str(&where), (unsigned long long)total,
               mem_name(c, ro), mem_name(c, ro));
  mp_buf_free(&where);
}

static uint64_t plan_hash(const mp_plan *p) {
  uint64_t h = MP_FNV_INIT;
  uint64_t v[8];
  v[0] = p->n_allocs;
  v[1] = p->n_arenas;
  h = mp_fnv1a(h, v, 2 * sizeof v[0]);
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    v[0] = (uint64_t)a->role;
    v[1] = (uint64_t)a->memory;
    v[2] = (uint64_t)a->source_memory;
    v[3] = a->total_size;
    v[4] = a->alignment;
    h = mp_fnv1a(h, v, 5 * sizeof v[0]);
  }
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    v[0] = t;
    v[1] = a->placed;
    v[2] = a->placed ? (uint64_t)a->memory : 0;
    v[3] = a->placed ? a->offset : 0;
    v[4] = a->size;
    v[5] = a->placed ? (uint64_t)a->binding.role : 0;
    v[6] = a->placed ? (uint64_t)a->binding.source_memory : 0;
    v[7] = (uint64_t)(int64_t)a->alias_of;
    h = mp_fnv1a(h, v, 8 * sizeof v[0]);
    if (a->caller_io >= 0) {
      /* the caller's buffer (memory.io caller): one more word, so plans
       * without caller I/O keep their hashes */
      v[0] = (uint64_t)a->caller_io;
      h = mp_fnv1a(h, v, sizeof v[0]);
    }
  }
  return h;
}

/* ---- entry --------------------------------------------------------------- */

static bool setup(planctx *c) {
  const mp_platform *pf = c->pf;
  bool seen[MP_MEM_COUNT] = {false};
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    c->budget[m] = pf->present[m] ? pf->size[m] : 0;
    c->const_src[m] = NO_MEM;
    c->const_src_tensor[m] = -1;
  }
  for (uint32_t i = 0; i < c->mem->n_constraints; i++) {
    const mp_constraint *k = &c->mem->constraints[i];
    if (!pf->present[k->name]) {
      mp_error(c->dx, noloc(), "memory.constraints[%u]: platform '%s' has no %s memory", i,
               pf->name, mem_name(c, k->name));
      return false;
    }
    if (k->has_max_size) c->budget[k->name] = k->max_size;
    c->calign[k->name] = k->arena_alignment;
    if (!seen[k->name]) {
      seen[k->name] = true;
      c->order[c->n_order++] = k->name;
    }
  }
  for (uint32_t i = 0; i < pf->n_order; i++) {
    mp_memory m = pf->order[i];
    if (pf->present[m] && !seen[m]) {
      seen[m] = true;
      c->order[c->n_order++] = m;
    }
  }
  /* memories present but missing from preferred_memory_order go last;
   * itcm among them takes only the tensors a rule pins there (it is never
   * preferred: code lives there) */
  for (int m = 0; m < MP_MEM_COUNT; m++)
    if (pf->present[m] && !seen[m]) {
      c->order[c->n_order++] = (mp_memory)m;
      c->pinned_only[m] = m == MP_MEM_ITCM;
    }
  if (c->n_order == 0) {
    mp_error(c->dx, noloc(), "platform '%s' has no memories", pf->name);
    return false;
  }
  return true;
}

static void free_ctx(planctx *c) {
  if (!c) return;
  free(c->attrs);
  free(c->mem_rule);
  free(c->dst_rule);
  free(c->caller_io);
  free(c->pairs);
  composites_free(&c->comp);
  free(c);
}

uint64_t mp_plan_scratch_bytes(const mp_plan *p) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == MP_ROLE_SCRATCH) n += p->arenas[i].total_size;
  return n;
}

mp_status mp_plan_build(const mp_graph *g, const mp_platform *platform, const mp_memory_args *mem,
                        const mp_diag_sink *dx, mp_plan **out) {
  *out = NULL;
  const char *pname = mem->planner ? mem->planner : "greedy";
  const mp_planner *pl = mp_planner_find(pname);
  if (!pl) {
    mp_error(dx, (mp_loc){NULL, 0, 0, -1, "memory.planner", NULL}, "unknown planner '%s'", pname);
    return MP_ERR_CONFIG;
  }
  mp_pool *pool = mp_pool_new();
  if (!pool) return MP_ERR_NOMEM;
  mp_plan *p = mp_pool_alloc(pool, 1, sizeof *p);
  planctx *c = calloc(1, sizeof *c);
  mp_status st = MP_ERR_NOMEM;
  if (!p || !c) goto fail;
  p->pool = pool;
  p->graph = g;
  p->platform = *platform;
  snprintf(p->planner, sizeof p->planner, "%s", pl->name);
  p->in_place = mem->in_place;
  p->n_options = mem->n_options;
  p->options = mp_pool_alloc(pool, mem->n_options, sizeof(mp_option));
  p->n_allocs = g->n_tensors;
  p->allocs = mp_pool_alloc(pool, g->n_tensors, sizeof(mp_allocation));
  p->lifetimes = mp_pool_alloc(pool, g->n_tensors, sizeof(mp_lifetime));
  if (!p->options || !p->allocs || !p->lifetimes) goto fail;
  for (uint32_t i = 0; i < mem->n_options; i++) {
    p->options[i].key = mp_pool_strdup(pool, mem->options[i].key);
    p->options[i].value = mem->options[i].value;
    if (!p->options[i].key) goto fail;
  }
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    p->allocs[t].tensor_id = t;
    p->allocs[t].caller_io = -1;
    p->allocs[t].alias_of = g->tensors[t].alias_of;
    p->allocs[t].size = g->tensors[t].size;
    p->lifetimes[t] = g->storage[t];
  }
  c->g = g;
  c->pf = platform;
  c->mem = mem;
  c->dx = dx;
  c->plan = p;
  c->planner = pl;
  c->options = mem->options;
  c->n_options = mem->n_options;
  size_t nt = g->n_tensors ? g->n_tensors : 1;
  c->attrs = calloc(nt, sizeof(mp_attributes));
  c->mem_rule = calloc(nt, sizeof *c->mem_rule);
  c->dst_rule = calloc(nt, sizeof *c->dst_rule);
  c->caller_io = calloc(nt, sizeof(int32_t));
  if (!c->attrs || !c->mem_rule || !c->dst_rule || !c->caller_io) goto fail;
  st = MP_ERR_CONFIG;
  if (!setup(c)) goto fail;
  st = mp_rules_resolve_traced(g, platform, mem, dx, c->attrs, c->mem_rule, c->dst_rule);
  if (st != MP_OK) goto fail;
  if ((st = mark_caller_io(c)) != MP_OK) goto fail;
  if ((st = place_persistent(c, true)) != MP_OK) goto fail;
  if ((st = place_persistent(c, false)) != MP_OK) goto fail;
  if ((st = place_constants(c, true)) != MP_OK) goto fail;
  if ((st = place_scratch(c)) != MP_OK) goto fail;
  if ((st = place_constants(c, false)) != MP_OK) goto fail;
  /* aliases share their root's storage */
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    int32_t r = g->tensors[t].alias_of;
    if (r < 0 || !p->allocs[r].placed) continue;
    mp_allocation *a = &p->allocs[t];
    int32_t keep_alias = a->alias_of;
    uint64_t keep_size = a->size;
    *a = p->allocs[r];
    a->reason = (mp_placement_reason){.kind = MP_REASON_ALIAS, .rule = -1, .full_at_op = -1};
    a->tensor_id = t;
    a->alias_of = keep_alias;
    a->size = keep_size;
    uint64_t k = g->tensors[t].alias_offset;
    if (k || keep_size != p->allocs[r].size) {
      /* a sub-tensor view: its bytes at k within the root's slot, aligned
       * to what that offset keeps of the root's alignment */
      a->alias_offset = k;
      a->alias_row = g->tensors[t].alias_row;
      a->alias_stride = g->tensors[t].alias_stride;
      a->offset += k;
      a->binding.offset = a->offset;
      while (a->align > 1 && a->offset % a->align) a->align /= 2;
      a->slot_size = mp_align_up(keep_size, a->align);
    }
  }
  if ((st = build_arenas(c)) != MP_OK) goto fail;
  warn_cold_in_ram(c);
  p->hash = plan_hash(p);
  free_ctx(c);
  *out = p;
  return MP_OK;

fail:
  free_ctx(c);
  mp_pool_free(&pool);
  return st;
}

const mp_allocation *mp_plan_get_allocation(const mp_plan *p, uint32_t tensor_id) {
  if (!p || tensor_id >= p->n_allocs || !p->allocs[tensor_id].placed) return NULL;
  return &p->allocs[tensor_id];
}

void mp_plan_free(mp_plan **p) {
  if (!p || !*p) return;
  mp_pool *pool = (*p)->pool;
  mp_pool_free(&pool);
  *p = NULL;
}
