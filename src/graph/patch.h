/*
 * patch.h — patch-based inference (memory.patch): a stage of the network
 * run tile by tile.  Internal to the library; the CLI applies a stage, the
 * verifier checks it, the emitter writes its loop, the reports describe it.
 */
#ifndef MP_PATCH_H
#define MP_PATCH_H

#include "memplan.h"
#include "lower/lower.h"

/* A rectangle of a feature map: rows [y0, y1), columns [x0, x1). */
typedef struct mp_patch_rect {
  int32_t y0, y1, x0, x1;
} mp_patch_rect;

/* One operator of the stage, run with a reference kernel. */
typedef struct mp_patch_layer {
  uint32_t op;         /* its operator (execution order) */
  mp_kernel kernel;    /* the reference kernel the stage calls */
  bool window;         /* a convolution or pool (geom); else an elementwise ADD */
  mpk_conv_geom geom;  /* window layers: the whole tensor's geometry, as lowered */
  uint32_t n_in;       /* activation inputs: 1, or 2 for ADD */
  uint32_t in[2];      /* stage tensors read: 0 the stage input, k the output of layer k - 1 */
  uint64_t macs_per_px; /* multiply-accumulates per output pixel, every channel */
  bool direct;         /* window layers: no tile's window has padding, every output
                          pixel's first tap inside it */
  mp_kernel run_kernel; /* what the module calls per tile (mp_patch_lower_run) */
} mp_patch_layer;

/* A feature map of the stage: 0 the stage input, k the output of layer
 * k - 1 (the last is the stage output). */
typedef struct mp_patch_tensor {
  int32_t tensor;      /* graph tensor id */
  int32_t h, w, c;     /* NHWC, batch 1 */
  int32_t elem;        /* element bytes */
  int32_t last_read;   /* the last layer reading it (-1: none) */
  uint64_t offset;     /* intermediates: its tile buffer's offset in the stage scratch */
  uint64_t bytes;      /* intermediates: the largest tile window it holds */
} mp_patch_tensor;

typedef struct mp_patch {
  uint32_t first, last;  /* the stage's operators, execution order */
  uint32_t head;         /* the operator that runs the stage (its first layer) */
  uint32_t rows, cols, n_tiles;
  uint32_t n_layers;
  mp_patch_layer *layers;
  uint32_t n_tensors;    /* n_layers + 1 */
  mp_patch_tensor *tensors;
  /* need[t * n_tensors + k]: the window of stage tensor k tile t computes
   * (intermediates and the output) or reads (the input) */
  mp_patch_rect *need;
  int32_t scratch_tensor; /* the op-local scratch of the tile buffers */
  uint64_t scratch_bytes;  /* the tile buffers, then the kernels' scratch */
  uint64_t kernel_scratch_offset, kernel_scratch_bytes; /* an im2col kernel's columns */
  uint64_t macs, macs_patched; /* the stage's multiply-accumulates, whole and tiled */
  uint64_t model_macs;         /* every convolution, pool, ADD and FULLY_CONNECTED of the model */
  int32_t halo_rows, halo_cols; /* most input rows / columns a tile reads beyond its share */
  /* the unpatched graph's figures (mp_graph_patch_baseline), for the reports */
  bool has_baseline;
  uint64_t base_scratch, base_tensor_bound, base_inplace_bound;
  bool automatic;              /* memory.patch auto chose the stage */
  uint32_t tried;              /* stages and grids auto tried */
  bool has_out_gap;            /* the stage's output may overlap its input (out_gap) */
  int64_t out_gap;             /* offset(input) - offset(output) at least this */
  uint32_t head_n_outputs;     /* the head operator's own outputs, before the stage */
  const int32_t *head_outputs;
  struct mp_patch *next;       /* the graph's next stage (later operators), else NULL */
} mp_patch;

/* The stage of g whose operators first .. last hold op, else NULL (g->patch
 * lists the stages in execution order). */
const mp_patch *mp_patch_at(const mp_graph *g, uint32_t op);

/* mp_graph_patch and mp_patch_candidates are declared in memplan.h. */

/* What mp_graph_patch lowers, kept for the copies of one build
 * (mp_graph_clone) that a search patches again and again: the operators
 * as the model wrote them and the layers as the tiles call them, by
 * operator.  mp_graph_patch_memo is mp_graph_patch with the memo, which
 * it fills as it goes; a memo of another build (model, subgraph, target)
 * is not used. */
typedef struct mp_patch_memo mp_patch_memo;
mp_status mp_patch_memo_new(const mp_graph *g, mp_patch_memo **out);
void mp_patch_memo_free(mp_patch_memo **m);
mp_status mp_graph_patch_memo(mp_graph *g, uint32_t first, uint32_t last, uint32_t rows,
                              uint32_t cols, const mp_diag_sink *dx, mp_patch_memo *memo);

/* Lower layer l of g's stage p as the model wrote it, with its reference
 * kernel (what the stage calls per tile with a window's geometry). */
mp_status mp_patch_lower_layer(const mp_graph *g, const mp_patch *p, uint32_t l,
                               mp_lowered_op *lo);

/* Lower layer l of g's stage p as the module calls it per tile: the
 * target's specialised kernel where it takes every tile's window, else the
 * reference kernel (layers[l].run_kernel); the geometry is the reference
 * kernel's (mp_patch_lower_layer). */
mp_status mp_patch_lower_run(const mp_graph *g, const mp_patch *p, uint32_t l,
                             mp_lowered_op *lo);

/* What tile t's call of layer l is: for a window layer, the geometry
 * relative to its input buffer (which holds its input's window for that
 * tile, or the whole stage input) and writing into its output buffer (its
 * tile window, or the stage output at its strides); for an ADD, `rows`
 * rows of row_elems elements.  Offsets are in elements from each buffer's
 * base; a row's next is *_row_stride elements on.  skip: the tile computes
 * nothing of this layer. */
typedef struct mp_patch_call {
  bool skip;
  mpk_conv_geom geom;
  int64_t in_off[2], out_off;
  int32_t rows, row_elems;
  int64_t in_row_stride[2], out_row_stride;
} mp_patch_call;
void mp_patch_tile_call(const mp_patch *p, uint32_t t, uint32_t l, mp_patch_call *c);

/* Does a window call have no padding and every output pixel's tap inside
 * its input (what the 1x1 kernel takes)?  true for a skipped call. */
bool mp_patch_call_direct(const mp_patch_call *c);

/* The window buffer of stage tensor k holds for tile t: the whole tensor
 * for the stage input and output, else need[t][k]. */
mp_patch_rect mp_patch_buffer_rect(const mp_patch *p, uint32_t t, uint32_t k);

/* The input rectangle layer l reads of its input i to compute `out`
 * (clipped to the input; empty when out is). */
mp_patch_rect mp_patch_reads(const mp_patch *p, uint32_t l, uint32_t i, mp_patch_rect out);

/* The stage's overlap contract between its input and output: tiles run
 * in row-major order and each writes its output tile after its layers read
 * the input, so the output may start *gap bytes below the input (or
 * higher), every byte finished tiles wrote staying under every input byte
 * a later tile reads.  false: no contract (one tile, or a last layer that
 * reads the stage input itself). */
bool mp_patch_output_gap(const mp_patch *p, int64_t *gap);

/* The extra multiply-accumulates of the tiles' halos, in hundredths of a
 * percent of the model's. */
uint64_t mp_patch_extra_macs_bp(const mp_patch *p);

#endif /* MP_PATCH_H */
