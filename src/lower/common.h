/*
 * common.h — what the lowering files share (internal to the library): the
 * context an operator is lowered in, the accessors of its tensors, the
 * helpers that fill an mp_lowered_op (src/lower/common.c), and the field
 * descriptions that print a params struct as C (src/lower/params.c).
 *
 * An operator family (src/lower/<family>.c, beside runtime/kernels/ref/
 * mpk_<family>.c) includes this header and lower/families.h, where its
 * entry points and field tables are declared; this header knows no family.
 */
#ifndef MP_LOWER_COMMON_H
#define MP_LOWER_COMMON_H

#include "read/flatbuf.h"
#include "lower/lower.h"

#include <math.h>
#include <stddef.h>

/* ---- params as C: one field table per params struct ---------------------- */

/* FK_I32_NZ: an int32 written only when it is not 0 (a designated
 * initializer leaves it 0), for fields that are 0 but in rare layouts. */
/* FK_PTR_NZ: a pointer written only when it points at an array. */
typedef enum fkind {
  FK_END, FK_I32, FK_I32_NZ, FK_F32, FK_I32X6, FK_U8X4, FK_PTR, FK_PTR_NZ, FK_SUB
} fkind;

typedef struct fdesc {
  const char *name;
  fkind kind;
  size_t offset;
  const struct fdesc *sub; /* FK_SUB: the nested struct's fields */
  const char *array;       /* FK_PTR: the lowered array it points to */
} fdesc;

#define F_I32(T, f)                                                                                \
  { #f, FK_I32, offsetof(T, f), NULL, NULL }
#define F_I32_NZ(T, f)                                                                             \
  { #f, FK_I32_NZ, offsetof(T, f), NULL, NULL }
#define F_F32(T, f)                                                                                \
  { #f, FK_F32, offsetof(T, f), NULL, NULL }
#define F_I32X6(T, f)                                                                              \
  { #f, FK_I32X6, offsetof(T, f), NULL, NULL }
#define F_U8X4(T, f)                                                                               \
  { #f, FK_U8X4, offsetof(T, f), NULL, NULL }
#define F_PTR(T, f, arr)                                                                           \
  { #f, FK_PTR, offsetof(T, f), NULL, arr }
#define F_PTR_NZ(T, f, arr)                                                                        \
  { #f, FK_PTR_NZ, offsetof(T, f), NULL, arr }
#define F_SUB(T, f, sub)                                                                           \
  { #f, FK_SUB, offsetof(T, f), sub, NULL }
#define F_END                                                                                      \
  { NULL, FK_END, 0, NULL, NULL }

/* The fields of the structs several params embed (src/lower/common.c):
 * mpk_broadcast, mpk_requant and mpk_conv_geom. */
extern const fdesc mp_lower_bcast_fields[];
extern const fdesc mp_lower_requant_fields[];
extern const fdesc mp_lower_geom_fields[];

/* ---- the operator being lowered ------------------------------------------ */

typedef struct mp_lower_ctx {
  const mp_graph *g;
  const mp_op *op;
  const mp_subgraph_def *sg;
  mp_lowered_op *lo;
  const mp_diag_sink *dx;
  bool bad_multiplier; /* a scale ratio with no Q31 form (set by the multiplier helper) */
} mp_lower_ctx;

static inline int32_t in_t(const mp_lower_ctx *c, uint32_t k) {
  return k < c->op->n_inputs ? c->op->inputs[k] : -1;
}
static inline int32_t out_t(const mp_lower_ctx *c, uint32_t k) {
  return k < c->op->n_outputs ? c->op->outputs[k] : -1;
}
static inline const mp_tensor_def *tdef(const mp_lower_ctx *c, int32_t t) {
  return &c->sg->tensors[t];
}
static inline int32_t dtype(const mp_lower_ctx *c, int32_t t) { return tdef(c, t)->dtype; }
static inline uint32_t rank(const mp_lower_ctx *c, int32_t t) { return tdef(c, t)->rank; }
static inline int32_t dim(const mp_lower_ctx *c, int32_t t, uint32_t d) {
  return tdef(c, t)->shape[d];
}
static inline bool is_const(const mp_lower_ctx *c, int32_t t) {
  return c->g->tensors[t].data != NULL;
}

static inline uint64_t elems(const mp_lower_ctx *c, int32_t t) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < rank(c, t); d++)
    n *= (uint64_t)(dim(c, t, d) > 0 ? dim(c, t, d) : 0);
  return n;
}

/* A tensor's element count as an int32 kernel size. */
static inline bool elems_i32(const mp_lower_ctx *c, int32_t t, int32_t *out) {
  uint64_t n = elems(c, t);
  if (n > (uint64_t)INT32_MAX) return false;
  *out = (int32_t)n;
  return true;
}

/* Per-tensor quantisation (the first scale and zero point). */
static inline bool quant(const mp_lower_ctx *c, int32_t t, float *scale, int32_t *zp) {
  const mp_tensor_def *td = tdef(c, t);
  if (!td->has_quant || td->quant.n_scale < 1) return false;
  if (!(td->quant.scale[0] > 0.0f) || !isfinite(td->quant.scale[0])) return false;
  *scale = td->quant.scale[0];
  *zp = td->quant.n_zero_point > 0 ? (int32_t)td->quant.zero_point[0] : 0;
  return true;
}

/* ---- filling the lowered op (src/lower/common.c) ------------------------- */

/* The op is fine, but memplan has no kernel for this configuration: sets
 * the reason, returns MP_OK. */
mp_status mp_lower_unsupported(mp_lower_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The model contradicts itself: an error naming the operator. */
mp_status mp_lower_malformed(mp_lower_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append a tensor argument (tensor -1: NULL). */
void mp_lower_add_arg(mp_lower_ctx *c, int32_t tensor, bool is_output, const char *ctype);

/* The elementwise contract (mpk_elementwise_overlap_gap) between input arg
 * `k` (tensor t) and output arg `o` (tensor out): only for an input of the
 * output's element count, which the kernels read at the output's index. */
void mp_lower_elementwise_overlap(mp_lower_ctx *c, uint32_t k, int32_t t, uint32_t o,
                                  int32_t out);
/* The arguments of a two-input element-wise kernel (a, b, out), the inputs
 * of C type `in_ctype`, the output of `out_ctype`, with each input's
 * elementwise contract against the output: the kernels read element i of
 * each input, then write element i. */
void mp_lower_binary_args(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out, const char *in_ctype,
                          const char *out_ctype);
/* Append an array argument of n tensors (ids kept by reference: they must
 * outlive the lowered op, as the op's own input list does). */
void mp_lower_add_array_arg(mp_lower_ctx *c, const int32_t *tensors, uint32_t n, const char *ctype);
/* Choose the kernel (unless a helper already found the op unsupported). */
void mp_lower_set_kernel(mp_lower_ctx *c, mp_kernel k);

/* The op's builtin options table, of union type `type` when present;
 * absent options read as the schema defaults.  A reader that finds a field
 * that does not validate clears o->ok. */
typedef struct mp_lower_opts {
  fb_file f;
  fb_table t;
  bool present;
  bool ok;
} mp_lower_opts;
mp_status mp_lower_open_opts(mp_lower_ctx *c, uint8_t type, const char *what, mp_lower_opts *o);
int32_t mp_lower_opt_i32(mp_lower_opts *o, uint32_t id, int32_t def);
int32_t mp_lower_opt_i8(mp_lower_opts *o, uint32_t id, int8_t def);
bool mp_lower_opt_bool(mp_lower_opts *o, uint32_t id, bool def);
float mp_lower_opt_f32(mp_lower_opts *o, uint32_t id, float def);

/* TFLite's QuantizeMultiplier: m = qm * 2^shift, qm a Q31 in [0.5, 1).  A
 * ratio with no such form (not finite, negative, 2^31 or more) sets
 * c->bad_multiplier, which makes the op a model error. */
void mp_lower_quantize_multiplier(mp_lower_ctx *c, double m, int32_t *qm, int32_t *shift);
/* "RELU6" for an ActivationFunctionType. */
const char *mp_lower_act_name(int32_t act);
/* CalculateActivationRangeQuantized / CalculateActivationRange.  The
 * quantised form is false for an activation without a range (TANH,
 * SIGN_BIT: TensorFlow Lite Micro refuses them on quantised operators,
 * and the lowering says so with MP_LOWER_ACT_Q_REFUSED); the float form
 * gives them the whole float range, as TFLM and LiteRT run them, and is
 * false only for an unknown activation. */
#define MP_LOWER_ACT_Q_REFUSED                                                                     \
  "fused activation %s on a quantised operator (TensorFlow Lite Micro refuses it too)"
bool mp_lower_act_range_q(int32_t act, float scale, int32_t zp, int32_t qmin, int32_t qmax,
                          int32_t *lo, int32_t *hi);
bool mp_lower_act_range_f(int32_t act, float *lo, float *hi);
/* The requantisation of a filter operator (PopulateConvolutionQuantization-
 * Params): per output channel, or per tensor unless always_per_channel;
 * the offsets and the fused activation's bounds (int8, or int16 for a
 * 16x8 output).  The arrays are the lowered op's "multiplier" and
 * "shift". */
/* The NHWC input and output extents of a window operator (rank 4 checked
 * by the caller) and its strides into g; the filter, padding and
 * dilation are the caller's. */
void mp_lower_nhwc_geom(const mp_lower_ctx *c, int32_t in, int32_t out, int32_t stride_h,
                        int32_t stride_w, mpk_conv_geom *g);
mp_status mp_lower_conv_requant(mp_lower_ctx *c, int32_t in, int32_t filter, int32_t out,
                                int32_t act, int32_t channels, bool always_per_channel,
                                mpk_requant *q);
/* (mp_lower_add_array(c->lo, name, n), lower.h: a new int32 array owned
 * by the lowered op, printed as <sym>_<name>.) */
/* A constant int32 or int64 vector tensor of at most `max` elements read
 * into v; false when t is not one. */
bool mp_lower_const_ints(const mp_lower_ctx *c, int32_t t, int64_t *v, uint32_t max, uint32_t *n);
/* Bytes per element of the data-movement kernels (1 to 8); 0 for element
 * types they cannot move. */
int32_t mp_lower_elem_size(int32_t dt);
/* The broadcast walk of output `out` over inputs a and b (shapes extended
 * to MPK_MAX_DIMS); unsupported above that rank, malformed when the shapes
 * do not broadcast. */
mp_status mp_lower_broadcast(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out, mpk_broadcast *bc);

/* The element types of a filter operator (CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED): all int8 with an int32 bias (*s8 = true) or all
 * float32; anything else is unsupported.  _is_s16: the 16x8 form (int16
 * input and output, int8 filter, int64 bias or none). */
mp_status mp_lower_filter_types(mp_lower_ctx *c, int32_t in, int32_t filter, int32_t bias,
                                int32_t out, bool *s8);
bool mp_lower_filter_is_s16(const mp_lower_ctx *c, int32_t in, int32_t filter, int32_t bias,
                            int32_t out);
/* The 16x8 accumulator, sum(w * x) + bias over int16 x, must stay in
 * [-2^47, 2^47) for every input: TFLite's 64-bit MultiplyByQuantizedMultiplier
 * takes no more (beyond it its product leaves int64 and TensorFlow Lite
 * Micro's DCHECK fails), so a bias that could take it out is refused.
 * Output channel ch sums `count` weights, element k at
 * ch * channel_stride + k * elem_stride, each plus weight_offset (the
 * extremes from the constant weights; the worst int8 weight when they are
 * not constant); bias < 0: none.  `what` prefixes the reason. */
mp_status mp_lower_s16_acc_check(mp_lower_ctx *c, const char *what, int32_t weights,
                                 int32_t bias, int32_t channels, int32_t count,
                                 int32_t channel_stride, int32_t elem_stride,
                                 int32_t weight_offset);
/* The spatial part of a window operator's geometry (g's filter_h and
 * filter_w set by the caller) from its padding, strides and dilations and
 * the NHWC input and output, as TFLite computes the output size and
 * padding; an operator that reads a folded PAD's input (rewrite.c) gets
 * the PAD's rows and columns as padding of its own. */
mp_status mp_lower_spatial_folded(mp_lower_ctx *c, mpk_conv_geom *g, int32_t in, int32_t out,
                                  int32_t padding, int32_t stride_h, int32_t stride_w,
                                  int32_t dil_h, int32_t dil_w);
/* The output strides of a window kernel whose output `out` is a strided
 * view (views.c); nothing for any other output. */
mp_status mp_lower_out_strides(mp_lower_ctx *c, int32_t out, mpk_conv_geom *g);
/* A tensor's shape extended to MPK_MAX_DIMS with leading 1s; false when
 * the rank is too high or the element count does not fit int32.  And the
 * row-major element strides of such dims. */
bool mp_lower_extend_shape(const mp_lower_ctx *c, int32_t t, int32_t dims[MPK_MAX_DIMS]);
void mp_lower_strides_of(const int32_t dims[MPK_MAX_DIMS], int32_t strides[MPK_MAX_DIMS]);

/* ---- the kernel table (src/lower/params.c) ------------------------------ */

/* Name lo's kernel (mp_lower_use_kernel chose it): its function, init hook
 * and params struct.  Nothing for an op without a kernel. */
void mp_lower_name_kernel(mp_lowered_op *lo);

#endif /* MP_LOWER_COMMON_H */
