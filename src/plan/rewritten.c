/*
 * plan_rewritten.c — planning a graph that memory.in_place rewrote.
 *
 * With memory.in_place the graph folds PADs into their convolutions and
 * makes copies views (mp_graph_options.fold_pads, sub_views).  Folding
 * never raises the tensor-level bound, since a PAD's padded copy is larger
 * than its input, but it lengthens the input's lifetime, and a heuristic
 * planner can place the rewritten graph worse.  So the model is planned
 * both ways and the rewritten plan kept unless the other needs less
 * scratch: the rewrites never cost bytes.  The second run is skipped when
 * the rewritten plan is already at or below the unrewritten graph's
 * in-place bound, which no plan of that graph goes below.
 */
#include "memplan.h"

bool mp_graph_rewritten(const mp_graph *g) {
  return g->n_folded_pads || g->n_view_ops || g->n_elided_concats || g->n_partial_concats;
}

mp_status mp_plan_build_rewritten(const mp_graph *g, const mp_graph *plain,
                                  const mp_platform *platform, const mp_memory_args *mem,
                                  const mp_diag_sink *dx, mp_plan **out) {
  mp_status st = mp_plan_build(g, platform, mem, dx, out);
  if (st != MP_OK || !mp_graph_rewritten(g)) return st;
  mp_plan *p = *out;
  p->rewrites.n_folded_pads = g->n_folded_pads;
  p->rewrites.n_view_ops = g->n_view_ops;
  p->rewrites.n_elided_concats = g->n_elided_concats;
  p->rewrites.n_partial_concats = g->n_partial_concats;
  if (!plain) return MP_OK;
  /* no plan of the unrewritten graph is below its in-place bound (at byte
   * alignment, a floor for every alignment and every split into banks): a
   * rewritten plan at or under it needs no second planner run */
  uint64_t a = mp_plan_scratch_bytes(p);
  if (a <= mp_graph_inplace_bound(plain, 1)) return MP_OK;
  p->rewrites.plain_planned = true;
  mp_plan *alt = NULL;
  /* the unrewritten plan's diagnostics are the rewritten one's: not repeated */
  if (mp_plan_build(plain, platform, mem, NULL, &alt) != MP_OK) return MP_OK;
  uint64_t b = mp_plan_scratch_bytes(alt);
  if (b >= a) {
    mp_plan_free(&alt);
    return MP_OK;
  }
  alt->rewrites = p->rewrites;
  alt->rewrites.saved = a - b;
  mp_plan_free(out);
  *out = alt;
  return MP_OK;
}
