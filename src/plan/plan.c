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
 * Scratch placement, in place or not, is scratch.c's (step 3).
 *
 * A pinned tensor or a constant that cannot fit is an error that names the
 * tensor, the memory, its budget, what is already there and the shortfall,
 * and suggests the knob.  The driver never checks its own result: the
 * verifier (verify.c) does, independently.
 */
#include "util/diag.h"
#include "planners/firstfit.h"
#include "plan/planctx.h"

#include <stdlib.h>
#include <string.h>

usage plan_mem_usage(const planctx *c, mp_memory m) {
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

bool plan_fits(const planctx *c, mp_memory m) {
  return usage_total(plan_mem_usage(c, m)) <= c->budget[m];
}

static void describe_usage(const planctx *c, mp_memory m, char *buf, size_t n) {
  usage u = plan_mem_usage(c, m);
  char other[96] = "";
  if (u.other)
    snprintf(other, sizeof other, ", the other models' persistent and constant arenas %llu",
             (unsigned long long)u.other);
  snprintf(buf, n,
           "%llu already used: scratch %llu, persistent %llu, constants %llu, staged "
           "sources %llu%s",
           (unsigned long long)usage_total(u), (unsigned long long)u.scratch,
           (unsigned long long)u.persistent, (unsigned long long)u.constant,
           (unsigned long long)u.staged_source, other);
}

/* What a bigger budget for memory m can do, as advice: a max_size below
 * the platform's size may rise to it (a larger one is refused), a memory
 * at its full size cannot grow.  `more` is the bytes it lacks. */
void plan_raise_hint(const planctx *c, mp_memory m, uint64_t more, char *buf, size_t n) {
  uint64_t full = c->pf->size[m], b = c->budget[m];
  if (b < full && b + more <= full)
    snprintf(buf, n,
             "Raise %s's max_size in memory.constraints to at least %llu (the platform "
             "has %llu)",
             mem_name(c, m), (unsigned long long)(b + more), (unsigned long long)full);
  else if (b < full)
    snprintf(buf, n, "%s's max_size can rise only to the platform's %llu bytes, still %llu short",
             mem_name(c, m), (unsigned long long)full, (unsigned long long)(b + more - full));
  else
    snprintf(buf, n, "%s is at the platform's full size (%llu bytes)", mem_name(c, m),
             (unsigned long long)full);
}

/* Free bytes of memory m with everything placed so far. */
uint64_t plan_mem_free(const planctx *c, mp_memory m) {
  uint64_t used = usage_total(plan_mem_usage(c, m));
  return c->budget[m] > used ? c->budget[m] - used : 0;
}

/* Another memory than `not` with `bytes` free: read-only ones first when
 * `ro_first` (weights read in place), else in preference order; only
 * writable ones when `writable_only`.  MP_MEM_COUNT when none. */
mp_memory plan_room_elsewhere(const planctx *c, mp_memory not, uint64_t bytes, bool ro_first,
                              bool writable_only) {
  for (int pass = ro_first ? 0 : 1; pass < 2; pass++)
    for (uint32_t k = 0; k < c->n_order; k++) {
      mp_memory m = c->order[k];
      if (m == not || c->pinned_only[m] || (writable_only && !writable(c, m))) continue;
      if (pass == 0 && !c->pf->read_only[m]) continue;
      if (plan_mem_free(c, m) >= bytes) return m;
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
  uint64_t avail = plan_mem_free(c, m);
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

static bool try_bump(planctx *c, uint64_t *top, mp_memory m, const mp_tensor *t, uint64_t *offset) {
  uint64_t old = *top;
  uint64_t off = mp_align_up(old, slot_align(c, t, m));
  *top = off + mp_align_up(t->size, slot_align(c, t, m));
  if (plan_fits(c, m)) {
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
  return (mp_placement_reason){.kind = MP_REASON_SPILLED,
                               .rule = -1,
                               .spilled_from = pref,
                               .full_at_op = -1,
                               .full_live = usage_total(plan_mem_usage(c, pref)),
                               .full_capacity = c->budget[pref]};
}

void plan_set_alloc(planctx *c, const mp_tensor *t, mp_role role, mp_memory m, mp_memory src,
                    uint64_t off, bool pinned) {
  mp_allocation *a = &c->plan->allocs[t->id];
  a->reason =
      pinned ? pinned_reason(c, t->id)
             : (mp_placement_reason){.kind = MP_REASON_PREFERRED, .rule = -1, .full_at_op = -1};
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
        mp_error(c->dx, noloc(),
                 "persistent tensor %u '%s' is pinned to %s, which is read-only; "
                 "variable tensors need writable memory",
                 i, t->name, mem_name(c, m));
        return MP_ERR_CONFIG;
      }
      if (!try_bump(c, &c->pers_top[m], m, t, &off)) {
        char what[160], raise[192], hint[448];
        uint64_t need =
            pinned_need(c, t, m, mp_align_up(t->size, slot_align(c, t, m)), what, sizeof what);
        uint64_t more = need > plan_mem_free(c, m) ? need - plan_mem_free(c, m) : 0;
        plan_raise_hint(c, m, more, raise, sizeof raise);
        mp_memory o = plan_room_elsewhere(c, m, need, false, true);
        if (o != MP_MEM_COUNT)
          snprintf(hint, sizeof hint, "%s; or pin it to %s, which has %llu bytes free.", raise,
                   mem_name(c, o), (unsigned long long)plan_mem_free(c, o));
        else
          snprintf(hint, sizeof hint, "%s; no other writable memory has %llu bytes free.", raise,
                   (unsigned long long)need);
        report_nofit(c, t, m, need, what, hint);
        return MP_ERR_NOFIT;
      }
      plan_set_alloc(c, t, MP_ROLE_PERSISTENT, m, m, off, true);
      continue;
    }
    bool done = false;
    mp_placement_reason why = {.kind = MP_REASON_PREFERRED, .rule = -1, .full_at_op = -1};
    for (uint32_t k = 0; k < c->n_order && !done; k++) {
      mp_memory m = c->order[k];
      if (!writable(c, m) || c->pinned_only[m]) continue;
      if (try_bump(c, &c->pers_top[m], m, t, &off)) {
        plan_set_alloc(c, t, MP_ROLE_PERSISTENT, m, m, off, false);
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
      plan_raise_hint(c, m, need > plan_mem_free(c, m) ? need - plan_mem_free(c, m) : 0, raise,
                      sizeof raise);
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
  if (plan_fits(c, rt) && plan_fits(c, src)) {
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
  mp_memory bad = plan_fits(c, rt) ? src : rt;
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
  uint64_t need =
      pinned_need(c, t, m, mp_align_up(t->size, slot_align(c, t, m)), what, sizeof what);
  plan_raise_hint(c, m, need > plan_mem_free(c, m) ? need - plan_mem_free(c, m) : 0, raise,
                  sizeof raise);
  mp_memory o = plan_room_elsewhere(c, m, need, !dest, dest);
  const char *them = what[0] ? "them" : "it";
  if (o == MP_MEM_COUNT)
    snprintf(hint, sizeof hint, "%s; no other memory has %llu bytes free for %s.", raise,
             (unsigned long long)need, them);
  else if (dest)
    snprintf(hint, sizeof hint,
             "%s; or hydrate %s into %s (constant_destination_memory: %s), "
             "which has %llu bytes free.",
             raise, them, mem_name(c, o), mem_name(c, o), (unsigned long long)plan_mem_free(c, o));
  else if (c->pf->read_only[o])
    snprintf(hint, sizeof hint,
             "%s; or store %s in %s and read %s in place there (memory: %s "
             "in memory.tensors), hydrating what needs fast access with "
             "constant_destination_memory.",
             raise, them, mem_name(c, o), them, mem_name(c, o));
  else
    snprintf(hint, sizeof hint,
             "%s; or store %s in %s (memory: %s in memory.tensors), which "
             "has %llu bytes free.",
             raise, them, mem_name(c, o), mem_name(c, o), (unsigned long long)plan_mem_free(c, o));
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
    free_all += plan_mem_free(c, m);
    mp_buf_printf(&fr, "%s%s %llu", b ? ", " : "", mem_name(c, m),
                  (unsigned long long)plan_mem_free(c, m));
  }
  char nb[72];
  mp_error(c->dx, noloc(),
           "constant tensor %u '%s' (%llu bytes) does not fit in any memory: the %u constant "
           "tensors still to place need %llu bytes, the memories have %llu free in all (%s). "
           "Raise a max_size in memory.constraints where it is below the platform's size, or "
           "move scratch or other constants out of the memories that hold them.",
           t->id, mp_name_middle(t->name, 60, nb, sizeof nb), (unsigned long long)t->size, k,
           (unsigned long long)need, (unsigned long long)free_all, fr.data ? mp_buf_str(&fr) : "");
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
      plan_set_alloc(c, t, MP_ROLE_CONSTANT, rt, src, off, true);
      return MP_OK;
    }
    /* destination fixed, source by preference (the arena's source if set) */
    if (c->const_src[rt] != NO_MEM) {
      mp_memory src = (mp_memory)c->const_src[rt];
      if (try_constant(c, t, rt, src, &off)) {
        plan_set_alloc(c, t, MP_ROLE_CONSTANT, rt, src, off, true);
        return MP_OK;
      }
    } else {
      for (uint32_t k = 0; k < c->n_order; k++) {
        mp_memory src = c->order[k];
        if (c->pinned_only[src]) continue;
        if (try_constant(c, t, rt, src, &off)) {
          plan_set_alloc(c, t, MP_ROLE_CONSTANT, rt, src, off, true);
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
    plan_set_alloc(c, t, MP_ROLE_CONSTANT, m, m, off, true);
    return MP_OK;
  }
  for (uint32_t k = 0; k < c->n_order; k++) {
    mp_memory m = c->order[k];
    if (c->pinned_only[m]) continue;
    if (try_constant(c, t, m, m, &off)) {
      plan_set_alloc(c, t, MP_ROLE_CONSTANT, m, m, off, false);
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
    slots[n++] = (mp_inplace_slot){
        t, al->slot_size, al->align, g->storage[t].start_op, g->storage[t].end_op, 0, 0};
  }
  mp_status st = plan_get_pairs(c);
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
    usage us = plan_mem_usage(c, (mp_memory)m);
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
  for (uint32_t t = 0; t < g->n_tensors; t++)
    c->caller_io[t] = -1;
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
               o < g->n_inputs ? "input" : "output", o < g->n_inputs ? o : o - g->n_inputs, r,
               g->tensors[r].name, k < g->n_inputs ? "input" : "output",
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
  plan_composites_free(&c->comp);
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
  /* a caller that only set in_place asked for what true means: size */
  p->in_place_mode = !mem->in_place                 ? MP_IN_PLACE_OFF
                     : mem->in_place_mode != MP_IN_PLACE_OFF ? mem->in_place_mode
                                                             : MP_IN_PLACE_SIZE;
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
  if ((st = plan_place_scratch(c)) != MP_OK) goto fail;
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
      while (a->align > 1 && a->offset % a->align)
        a->align /= 2;
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
