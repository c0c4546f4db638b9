/*
 * rewrite.h — graph rewrites that remove copies before planning.  Internal
 * to the library; mp_graph_build runs them when its options ask for them.
 */
#ifndef MP_REWRITE_H
#define MP_REWRITE_H

#include "memplan.h"

/* Fold every PAD / PADV2 of g into the CONV_2D or DEPTHWISE_CONV_2D that
 * reads its output, as that convolution's implicit padding (mp_op's
 * folded_into / folded_pad / fold_pad), where that gives the convolution's
 * exact output:
 *   - the PAD's input and output are scratch tensors of one element type
 *     (int8, int16 or float32), rank 4 (NHWC), the integer ones with the
 *     same per-tensor quantisation, and the output is no graph input or
 *     output;
 *   - the paddings are a constant, zero on the batch and channel axes;
 *   - the pad value is what the convolution's kernels add for a tap outside
 *     their input: the input zero point (int8), 0 (int16), +0.0 (float32,
 *     with a finite filter, so that 0 * filter adds exactly nothing);
 *   - the convolution, later in execution order, is the only reader of the
 *     output, as its input 0.
 * Call it on a graph whose ops are set up and whose tensors have their
 * roles, before any lifetime is computed.  Records the count in
 * g->n_folded_pads.  Fails only with MP_ERR_NOMEM. */
mp_status mp_graph_fold_pads(mp_graph *g);

/* The bytes of the padded copies the folded PADs of g no longer write. */
uint64_t mp_folded_pad_bytes(const mp_graph *g);

#endif /* MP_REWRITE_H */
