/*
 * rewrite.h — graph rewrites that remove copies before planning.  Internal
 * to the library; mp_graph_build runs them when its options ask for them.
 */
#ifndef MP_REWRITE_H
#define MP_REWRITE_H

#include "memplan.h"

/* Fold every PAD / PADV2 of g into the CONV_2D, DEPTHWISE_CONV_2D or
 * MAX_POOL_2D that reads its output, as that operator's implicit padding
 * (mp_op's folded_into / folded_pad / fold_pad), where that gives its
 * exact output:
 *   - the PAD's input and output are scratch tensors of one element type
 *     (int8, int16 or float32), rank 4 (NHWC), the integer ones with the
 *     same per-tensor quantisation, and the output is no graph input or
 *     output;
 *   - the paddings are a constant, zero on the batch and channel axes;
 *   - the pad value is what the reader's kernels take for a tap outside
 *     their input: for a convolution what it adds, the input zero point
 *     (int8), 0 (int16), +0.0 (float32, with a finite filter, so that
 *     0 * filter adds exactly nothing); for a max pool a value that never
 *     raises a maximum, -128 (int8), -32768 (int16), -inf or -FLT_MAX
 *     (float32);
 *   - the reader, later in execution order, is the only reader of the
 *     output, as its input 0.
 * Call it on a graph whose ops are set up and whose tensors have their
 * roles, before any lifetime is computed.  Records the count in
 * g->n_folded_pads.  Fails only with MP_ERR_NOMEM. */
mp_status mp_graph_fold_pads(mp_graph *g);

/* Resource variables (resources.c): give every VAR_HANDLE output of g its
 * variable (mp_tensor.variable), the variable's first handle the type,
 * shape, size and persistent role of the value that first assigns it and
 * its start value (state_init_byte, and state_init from the init subgraph
 * a CALL_ONCE runs); an operator the graph cannot run so gets its
 * mp_op.refusal.  Call it after the roles and touches are set, before the
 * sizes.  Fails only with MP_ERR_NOMEM. */
mp_status mp_graph_resources(mp_graph *g, const mp_diag_sink *dx);

/* Constant folding (fold.c): compute on the host, with its own lowering
 * and reference kernel, every operator whose inputs are all constants
 * (after the folds before it) and every SHAPE, in run order; their
 * outputs become constants (role, data) and the operators
 * mp_op.const_folded.  Sets *changed when anything was folded (then the
 * caller recomputes the touches).  Call it once the sizes are known.
 * Fails only with MP_ERR_NOMEM. */
mp_status mp_graph_fold_constants(mp_graph *g, bool *changed);

/* The bytes of the padded copies the folded PADs of g no longer write. */
uint64_t mp_folded_pad_bytes(const mp_graph *g);

/* Sub-tensor views (views.c, mp_graph_options.sub_views): SPLIT, SPLIT_V,
 * UNPACK, SLICE and STRIDED_SLICE outputs that are one contiguous run of
 * their input become views of it, and CONCATENATION / PACK inputs views of
 * their output; those operators become no-ops (is_view).  Sets alias_of /
 * alias_offset onto the final roots, has_subviews, g->n_view_ops and
 * g->n_elided_concats.  Call it once tensor sizes, producers and the
 * whole-tensor view aliases are set; sets the storage lifetimes.  With
 * `select` (what mp_graph_build does) a view that raises the graph's
 * in-place bound stays a copy; without it every operator that can become a
 * view does (for tests).  Call it once on a graph built without sub_views
 * to see what every view would be.  io_views: graph inputs and outputs
 * may be part of views (memory.io arena; not with caller I/O buffers).
 * Fails only with MP_ERR_NOMEM. */
mp_status mp_graph_views(mp_graph *g, bool select, bool io_views);

/* The bytes the view operators and elided concatenations of g no longer
 * copy: their outputs' sizes (the used ones). */
uint64_t mp_view_copy_bytes(const mp_graph *g);

#endif /* MP_REWRITE_H */
