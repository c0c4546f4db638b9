/*
 * lower_binary.c — lowering of the elementwise binary operators SUB, MUL,
 * DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, PRELU and int16 ADD onto
 * runtime/kernels/ref/mpk_binary.c.
 *
 * Each operator's Prepare in TensorFlow Lite Micro is redone here with its
 * own arithmetic, which differs between them: SUB's rescale factors are
 * float expressions, SQUARED_DIFFERENCE's double ones; MUL folds both
 * scales into one double multiplier.  MAXIMUM and MINIMUM compare stored
 * integers, so their inputs must share the output's quantisation.
 *
 * ADD comes here for int16 only (src/lower/elementwise.c lowers int8 and
 * float32 ADD).
 *
 * The comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER,
 * GREATER_EQUAL; int8, int32, float32 into bool), the logical operators
 * (LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT on bool), SELECT and SELECT_V2
 * (a bool condition; int8, int16, int32, float32), FLOOR_DIV and FLOOR_MOD
 * (int32, float32) and ADD_N (int32, float32) come here too.  int8
 * comparisons rescale both inputs as TFLite Micro's ComparisonsPrepare
 * does (left shift 8, each scale through QuantizeMultiplierSmallerThanOneExp,
 * so a scale of 1 or more is refused: TFLM's check would stop there).
 * Broadcasting goes as far as TFLM's: 4 dimensions for the comparisons,
 * the logical operators, FLOOR_DIV and FLOOR_MOD, 5 for SELECT_V2; SELECT
 * takes equal shapes, a scalar condition or a rank-1 condition over the
 * first axis (TensorFlow Lite's RankOneSelect).
 *
 * Not here: DIV on integers, the other operators of these families on
 * other types (int16 and int64 comparisons, bool EQUAL, int8 ADD_N).
 */
#include "lower/common.h"
#include "lower/families.h"
#include "read/opcodes.h"

#include <float.h>

enum { OPT_ADD = 11, OPT_MUL = 21, OPT_SUB = 28, OPT_DIV = 29 };

const fdesc mp_lower_binary_q_fields[] = {F_SUB(mpk_binary_q_params, b, mp_lower_bcast_fields),
                                          F_I32(mpk_binary_q_params, op),
                                          F_I32(mpk_binary_q_params, type),
                                          F_I32(mpk_binary_q_params, left_shift),
                                          F_I32(mpk_binary_q_params, in1_offset),
                                          F_I32(mpk_binary_q_params, in1_multiplier),
                                          F_I32(mpk_binary_q_params, in1_shift),
                                          F_I32(mpk_binary_q_params, in2_offset),
                                          F_I32(mpk_binary_q_params, in2_multiplier),
                                          F_I32(mpk_binary_q_params, in2_shift),
                                          F_I32(mpk_binary_q_params, out_offset),
                                          F_I32(mpk_binary_q_params, out_multiplier),
                                          F_I32(mpk_binary_q_params, out_shift),
                                          F_I32(mpk_binary_q_params, act_min),
                                          F_I32(mpk_binary_q_params, act_max),
                                          F_END};

const fdesc mp_lower_binary_f32_fields[] = {
    F_SUB(mpk_binary_f32_params, b, mp_lower_bcast_fields), F_I32(mpk_binary_f32_params, op),
    F_F32(mpk_binary_f32_params, act_min), F_F32(mpk_binary_f32_params, act_max), F_END};

/* The kernel's operation, its options table (0: none) and name. */
static int32_t binary_op(int32_t code, uint8_t *opt_type, const char **opt_name) {
  *opt_type = 0;
  *opt_name = NULL;
  switch (code) {
  case OP_ADD: *opt_type = OPT_ADD, *opt_name = "AddOptions"; return MPK_BIN_ADD;
  case OP_SUB: *opt_type = OPT_SUB, *opt_name = "SubOptions"; return MPK_BIN_SUB;
  case OP_MUL: *opt_type = OPT_MUL, *opt_name = "MulOptions"; return MPK_BIN_MUL;
  case OP_DIV: *opt_type = OPT_DIV, *opt_name = "DivOptions"; return MPK_BIN_DIV;
  case OP_PRELU: return MPK_BIN_PRELU;
  case OP_MAXIMUM: return MPK_BIN_MAXIMUM;
  case OP_MINIMUM: return MPK_BIN_MINIMUM;
  default: return MPK_BIN_SQUARED_DIFFERENCE;
  }
}

/* SUB (left shift 20 for int8, 15 for int16): CalculateOpDataSub, whose
 * scale ratios are computed in float. */
static void sub_scales(mp_lower_ctx *c, mpk_binary_q_params *p, float s1, float s2, float so) {
  float twice_max = 2 * (s1 > s2 ? s1 : s2);
  float r1 = s1 / twice_max, r2 = s2 / twice_max;
  float ro = twice_max / ((float)(1 << p->left_shift) * so);
  mp_lower_quantize_multiplier(c, (double)r1, &p->in1_multiplier, &p->in1_shift);
  mp_lower_quantize_multiplier(c, (double)r2, &p->in2_multiplier, &p->in2_shift);
  mp_lower_quantize_multiplier(c, (double)ro, &p->out_multiplier, &p->out_shift);
}

/* ADD: CalculateOpDataAdd, whose scale ratios are computed in double. */
static void add_scales(mp_lower_ctx *c, mpk_binary_q_params *p, float s1, float s2, float so) {
  double twice_max = 2 * (double)(s1 > s2 ? s1 : s2);
  mp_lower_quantize_multiplier(c, (double)s1 / twice_max, &p->in1_multiplier, &p->in1_shift);
  mp_lower_quantize_multiplier(c, (double)s2 / twice_max, &p->in2_multiplier, &p->in2_shift);
  mp_lower_quantize_multiplier(c, twice_max / ((double)(1 << p->left_shift) * (double)so),
                               &p->out_multiplier, &p->out_shift);
}

/* SQUARED_DIFFERENCE (left shift 7 for int8, 0 for int16): its
 * PrepareQuantized, in double. */
static void squared_difference_scales(mp_lower_ctx *c, mpk_binary_q_params *p, float s1, float s2,
                                      float so) {
  double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
  float denominator = (float)(1 << (p->left_shift * 2)) * so;
  mp_lower_quantize_multiplier(c, (double)s1 / twice_max, &p->in1_multiplier, &p->in1_shift);
  mp_lower_quantize_multiplier(c, (double)s2 / twice_max, &p->in2_multiplier, &p->in2_shift);
  mp_lower_quantize_multiplier(c, twice_max * twice_max / (double)denominator, &p->out_multiplier,
                               &p->out_shift);
}

static mp_status lower_quantized(mp_lower_ctx *c, int32_t op, int32_t act, int32_t a, int32_t b,
                                 int32_t out) {
  int32_t dt = dtype(c, out);
  bool wide = dt == MP_DTYPE_INT16;
  int32_t qmin = wide ? -32768 : -128, qmax = wide ? 32767 : 127;
  float s1, s2, so;
  int32_t z1, z2, zo;
  if (!quant(c, a, &s1, &z1) || !quant(c, b, &s2, &z2) || !quant(c, out, &so, &zo))
    return mp_lower_unsupported(c, "%s tensors without quantisation parameters", mp_dtype_name(dt));
  if (wide && (z1 != 0 || z2 != 0 || zo != 0))
    return mp_lower_unsupported(c, "int16 tensors with a non-zero zero point");
  mpk_binary_q_params *p = &c->lo->params.binary_q;
  mp_status st = mp_lower_broadcast(c, a, b, out, &p->b);
  if (st != MP_OK || c->lo->reason[0]) return st;
  p->op = op;
  p->type = wide ? MPK_TYPE_INT16 : MPK_TYPE_INT8;
  p->in1_offset = -z1;
  p->in2_offset = -z2;
  p->out_offset = zo;
  p->act_min = qmin;
  p->act_max = qmax;
  switch (op) {
  case MPK_BIN_SUB:
    p->left_shift = wide ? 15 : 20;
    sub_scales(c, p, s1, s2, so);
    break;
  case MPK_BIN_ADD: /* CalculateOpDataAdd, in double */
    p->left_shift = wide ? 15 : 20;
    add_scales(c, p, s1, s2, so);
    break;
  case MPK_BIN_MUL:
    mp_lower_quantize_multiplier(c, (double)s1 * (double)s2 / (double)so, &p->out_multiplier,
                                 &p->out_shift);
    break;
  case MPK_BIN_SQUARED_DIFFERENCE:
    p->left_shift = wide ? 0 : 7;
    squared_difference_scales(c, p, s1, s2, so);
    break;
  case MPK_BIN_PRELU: /* CalculatePreluParams, in double */
    mp_lower_quantize_multiplier(c, (double)s1 / (double)so, &p->in1_multiplier, &p->in1_shift);
    mp_lower_quantize_multiplier(c, (double)s1 * (double)s2 / (double)so, &p->out_multiplier,
                                 &p->out_shift);
    break;
  default: /* MAXIMUM, MINIMUM: stored integers */
    if (s1 != so || s2 != so || z1 != zo || z2 != zo)
      return mp_lower_unsupported(c, "inputs quantised differently from the output");
    break;
  }
  if ((op == MPK_BIN_ADD || op == MPK_BIN_SUB || op == MPK_BIN_MUL) &&
      !mp_lower_act_range_q(act, so, zo, qmin, qmax, &p->act_min, &p->act_max))
    return mp_lower_unsupported(c, MP_LOWER_ACT_Q_REFUSED, mp_lower_act_name(act));
  mp_lower_set_kernel(c, MP_K_BINARY_Q);
  mp_lower_binary_args(c, a, b, out, wide ? "const int16_t *" : "const int8_t *",
                       wide ? "int16_t *" : "int8_t *");
  return MP_OK;
}

const fdesc mp_lower_compare_fields[] = {F_SUB(mpk_compare_params, b, mp_lower_bcast_fields),
                                         F_I32(mpk_compare_params, op),
                                         F_I32(mpk_compare_params, type),
                                         F_I32(mpk_compare_params, left_shift),
                                         F_I32(mpk_compare_params, in1_offset),
                                         F_I32(mpk_compare_params, in1_multiplier),
                                         F_I32(mpk_compare_params, in1_shift),
                                         F_I32(mpk_compare_params, in2_offset),
                                         F_I32(mpk_compare_params, in2_multiplier),
                                         F_I32(mpk_compare_params, in2_shift),
                                         F_END};
const fdesc mp_lower_logical_fields[] = {F_SUB(mpk_logical_params, b, mp_lower_bcast_fields),
                                         F_I32(mpk_logical_params, op), F_END};
const fdesc mp_lower_select_fields[] = {
    F_I32(mpk_select_params, elementwise),   F_I32(mpk_select_params, size),
    F_I32(mpk_select_params, elem_size),     F_I32X6(mpk_select_params, dims),
    F_I32X6(mpk_select_params, cond_strides), F_I32X6(mpk_select_params, x_strides),
    F_I32X6(mpk_select_params, y_strides),   F_END};
const fdesc mp_lower_floor_fields[] = {F_SUB(mpk_floor_params, b, mp_lower_bcast_fields),
                                       F_I32(mpk_floor_params, op), F_I32(mpk_floor_params, type),
                                       F_I32(mpk_floor_params, in2_size), F_END};
const fdesc mp_lower_add_n_fields[] = {F_I32(mpk_add_n_params, type),
                                       F_I32(mpk_add_n_params, n_inputs),
                                       F_I32(mpk_add_n_params, size), F_END};

/* TFLite Micro's HaveSameShapes: equal ranks and dimensions. */
static bool same_shape(const mp_lower_ctx *c, int32_t s, int32_t t) {
  if (rank(c, s) != rank(c, t)) return false;
  for (uint32_t d = 0; d < rank(c, s); d++)
    if (dim(c, s, d) != dim(c, t, d)) return false;
  return true;
}

/* TFLite Micro broadcasts these operators through 4-D (5-D) shapes
 * whenever the two inputs' shapes differ (even by leading 1s): a higher
 * rank there is refused; equal shapes go elementwise at any rank. */
static mp_status broadcast_upto(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out,
                                mpk_broadcast *bc, uint32_t max_rank) {
  mp_status st = mp_lower_broadcast(c, a, b, out, bc);
  if (st != MP_OK || c->lo->reason[0]) return st;
  if (!same_shape(c, a, b) &&
      (rank(c, a) > max_rank || rank(c, b) > max_rank || rank(c, out) > max_rank))
    return mp_lower_unsupported(c, "broadcasting of rank above %u (TFLite Micro's limit)", max_rank);
  return MP_OK;
}

static int32_t compare_op(int32_t code) {
  switch (code) {
  case OP_EQUAL: return MPK_CMP_EQUAL;
  case OP_NOT_EQUAL: return MPK_CMP_NOT_EQUAL;
  case OP_LESS: return MPK_CMP_LESS;
  case OP_LESS_EQUAL: return MPK_CMP_LESS_EQUAL;
  case OP_GREATER: return MPK_CMP_GREATER;
  default: return MPK_CMP_GREATER_EQUAL;
  }
}

/* ComparisonsPrepare's QuantizeMultiplierSmallerThanOneExp of one input
 * scale; false when TFLite Micro's check (a multiplier below 1, a shift
 * of at most 0) would fail. */
static bool compare_scale(mp_lower_ctx *c, float scale, int32_t *m, int32_t *shift) {
  if (!(scale > 0.0f) || !(scale < 1.0f)) return false;
  mp_lower_quantize_multiplier(c, (double)scale, m, shift);
  return *shift <= 0;
}

static mp_status lower_compare(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out) {
  int32_t dta = dtype(c, a), dtb = dtype(c, b);
  int32_t type = dta == MP_DTYPE_INT8 ? MPK_TYPE_INT8
                 : dta == MP_DTYPE_INT32 ? MPK_TYPE_INT32
                 : dta == MP_DTYPE_FLOAT32 ? MPK_TYPE_FLOAT32
                                           : -1;
  if (type < 0 || dtb != dta || dtype(c, out) != MP_DTYPE_BOOL)
    return mp_lower_unsupported(c, "inputs %s and %s, output %s (supported: int8, int32 or "
                                "float32 inputs of one type, bool output)",
                                mp_dtype_name(dta), mp_dtype_name(dtb),
                                mp_dtype_name(dtype(c, out)));
  mpk_compare_params *p = &c->lo->params.compare;
  mp_status st = broadcast_upto(c, a, b, out, &p->b, 4);
  if (st != MP_OK || c->lo->reason[0]) return st;
  p->op = compare_op(c->op->builtin_code);
  p->type = type;
  if (type == MPK_TYPE_INT8) {
    float s1, s2;
    int32_t z1, z2;
    if (!quant(c, a, &s1, &z1) || !quant(c, b, &s2, &z2))
      return mp_lower_unsupported(c, "int8 inputs without quantisation parameters");
    if (!compare_scale(c, s1, &p->in1_multiplier, &p->in1_shift) ||
        !compare_scale(c, s2, &p->in2_multiplier, &p->in2_shift))
      return mp_lower_unsupported(c, "an int8 input scale of 1 or more (%g, %g): TFLite "
                                  "Micro's comparisons take scales below 1",
                                  (double)s1, (double)s2);
    p->left_shift = 8;
    p->in1_offset = -z1;
    p->in2_offset = -z2;
  }
  mp_lower_set_kernel(c, MP_K_COMPARE);
  mp_lower_add_arg(c, a, false, "const void *");
  mp_lower_add_arg(c, b, false, "const void *");
  mp_lower_add_arg(c, out, true, "uint8_t *");
  return MP_OK;
}

static mp_status lower_logical(mp_lower_ctx *c) {
  bool is_not = c->op->builtin_code == OP_LOGICAL_NOT;
  int32_t a = in_t(c, 0), b = is_not ? -1 : in_t(c, 1), out = out_t(c, 0);
  if (a < 0 || (!is_not && b < 0) || out < 0)
    return mp_lower_malformed(c, "needs %s and an output", is_not ? "an input" : "two inputs");
  if (dtype(c, a) != MP_DTYPE_BOOL || (b >= 0 && dtype(c, b) != MP_DTYPE_BOOL) ||
      dtype(c, out) != MP_DTYPE_BOOL)
    return mp_lower_unsupported(c, "%s input, %s output (supported: bool)",
                                mp_dtype_name(dtype(c, a)), mp_dtype_name(dtype(c, out)));
  mpk_logical_params *p = &c->lo->params.logical;
  if (is_not) {
    if (elems(c, a) != elems(c, out))
      return mp_lower_malformed(c, "input and output of different element counts");
    if (!elems_i32(c, out, &p->b.size)) return mp_lower_unsupported(c, "more than 2^31 elements");
    p->b.elementwise = 1;
    p->op = MPK_LOGICAL_NOT;
  } else {
    mp_status st = broadcast_upto(c, a, b, out, &p->b, 4);
    if (st != MP_OK || c->lo->reason[0]) return st;
    p->op = c->op->builtin_code == OP_LOGICAL_AND ? MPK_LOGICAL_AND : MPK_LOGICAL_OR;
  }
  mp_lower_set_kernel(c, MP_K_LOGICAL);
  mp_lower_add_arg(c, a, false, "const uint8_t *");
  mp_lower_add_arg(c, b, false, "const uint8_t *");
  mp_lower_add_arg(c, out, true, "uint8_t *");
  return MP_OK;
}

/* SELECT (TensorFlow Lite's form: equal shapes, a scalar condition, or a
 * rank-1 condition over x's first axis) and SELECT_V2 (TFLite Micro's:
 * equal shapes, all of one element, or broadcasting through 5-D). */
static mp_status lower_select(mp_lower_ctx *c) {
  int32_t cond = in_t(c, 0), x = in_t(c, 1), y = in_t(c, 2), out = out_t(c, 0);
  if (cond < 0 || x < 0 || y < 0 || out < 0)
    return mp_lower_malformed(c, "needs a condition, two inputs and an output");
  int32_t dt = dtype(c, x);
  int32_t es = dt == MP_DTYPE_INT8 ? 1 : dt == MP_DTYPE_INT16 ? 2
               : dt == MP_DTYPE_INT32 || dt == MP_DTYPE_FLOAT32 ? 4 : 0;
  if (dtype(c, cond) != MP_DTYPE_BOOL || !es || dtype(c, y) != dt || dtype(c, out) != dt)
    return mp_lower_unsupported(c, "condition %s, inputs %s and %s, output %s (supported: a bool "
                                "condition; int8, int16, int32 or float32 of one type)",
                                mp_dtype_name(dtype(c, cond)), mp_dtype_name(dt),
                                mp_dtype_name(dtype(c, y)), mp_dtype_name(dtype(c, out)));
  mpk_select_params *p = &c->lo->params.select;
  p->elem_size = es;
  if (!elems_i32(c, out, &p->size) || !elems_i32(c, x, &(int32_t){0}) ||
      !elems_i32(c, y, &(int32_t){0}) || !elems_i32(c, cond, &(int32_t){0}))
    return mp_lower_unsupported(c, "more than 2^31 elements");
  bool v2 = c->op->builtin_code == OP_SELECT_V2;
  bool ones = elems(c, cond) == 1 && elems(c, x) == 1 && elems(c, y) == 1 && elems(c, out) == 1;
  if (ones || (same_shape(c, cond, x) && same_shape(c, x, y))) {
    if (elems(c, out) != elems(c, x))
      return mp_lower_malformed(c, "inputs of equal shape but a different output");
    p->elementwise = 1;
  } else if (!v2) {
    uint32_t r = rank(c, x);
    bool low = rank(c, cond) == 0 || (rank(c, cond) == 1 && r >= 1 && dim(c, cond, 0) == dim(c, x, 0));
    if (!low || !same_shape(c, x, y) || !same_shape(c, x, out))
      return mp_lower_malformed(c, "SELECT takes a condition of x's shape, a scalar or a rank-1 "
                                "condition over x's first axis, and x, y and the output of one "
                                "shape");
    if (r > MPK_MAX_DIMS) return mp_lower_unsupported(c, "rank %u above %d", r, MPK_MAX_DIMS);
    int32_t xs[MPK_MAX_DIMS];
    if (!mp_lower_extend_shape(c, x, p->dims))
      return mp_lower_unsupported(c, "more than 2^31 elements");
    mp_lower_strides_of(p->dims, xs);
    for (int d = 0; d < MPK_MAX_DIMS; d++) {
      p->x_strides[d] = p->y_strides[d] = xs[d];
      p->cond_strides[d] = rank(c, cond) == 1 && d == (int)(MPK_MAX_DIMS - r) ? 1 : 0;
    }
    p->elementwise = 0;
  } else {
    int32_t t[3] = {cond, x, y}, dims[3][MPK_MAX_DIMS], strides[3][MPK_MAX_DIMS];
    if (rank(c, out) > 5 || rank(c, cond) > 5 || rank(c, x) > 5 || rank(c, y) > 5)
      return mp_lower_unsupported(c, "broadcasting of rank above 5 (TFLite Micro's limit)");
    if (!mp_lower_extend_shape(c, out, p->dims))
      return mp_lower_unsupported(c, "more than 2^31 elements");
    for (int k = 0; k < 3; k++) {
      if (!mp_lower_extend_shape(c, t[k], dims[k]))
        return mp_lower_unsupported(c, "more than 2^31 elements");
      mp_lower_strides_of(dims[k], strides[k]);
      for (int d = 0; d < MPK_MAX_DIMS; d++)
        if (dims[k][d] != p->dims[d] && dims[k][d] != 1)
          return mp_lower_malformed(c, "shapes do not broadcast to the output");
    }
    for (int d = 0; d < MPK_MAX_DIMS; d++) {
      if (p->dims[d] <= 0) return mp_lower_unsupported(c, "an empty output");
      p->cond_strides[d] = dims[0][d] == 1 ? 0 : strides[0][d];
      p->x_strides[d] = dims[1][d] == 1 ? 0 : strides[1][d];
      p->y_strides[d] = dims[2][d] == 1 ? 0 : strides[2][d];
    }
    p->elementwise = 0;
  }
  const char *ct = es == 1 ? "const int8_t *" : es == 2 ? "const int16_t *"
                   : dt == MP_DTYPE_INT32 ? "const int32_t *" : "const float *";
  mp_lower_set_kernel(c, MP_K_SELECT);
  mp_lower_add_arg(c, cond, false, "const uint8_t *");
  mp_lower_add_arg(c, x, false, ct);
  mp_lower_add_arg(c, y, false, ct);
  mp_lower_add_arg(c, out, true, ct + 6); /* without "const " */
  return MP_OK;
}

/* FLOOR_DIV, FLOOR_MOD: int32 or float32, broadcasting through 4-D. */
static mp_status lower_floor(mp_lower_ctx *c, int32_t a, int32_t b, int32_t out) {
  int32_t dta = dtype(c, a), dtb = dtype(c, b), dto = dtype(c, out);
  if ((dta != MP_DTYPE_INT32 && dta != MP_DTYPE_FLOAT32) || dtb != dta || dto != dta)
    return mp_lower_unsupported(c, "inputs %s and %s, output %s (supported: int32 or float32)",
                                mp_dtype_name(dta), mp_dtype_name(dtb), mp_dtype_name(dto));
  mpk_floor_params *p = &c->lo->params.floor;
  mp_status st = broadcast_upto(c, a, b, out, &p->b, 4);
  if (st != MP_OK || c->lo->reason[0]) return st;
  p->op = c->op->builtin_code == OP_FLOOR_DIV ? MPK_FLOOR_DIV : MPK_FLOOR_MOD;
  p->type = dta == MP_DTYPE_INT32 ? MPK_TYPE_INT32 : MPK_TYPE_FLOAT32;
  if (!elems_i32(c, b, &p->in2_size)) return mp_lower_unsupported(c, "more than 2^31 elements");
  const char *ct = dta == MP_DTYPE_INT32 ? "const int32_t *" : "const float *";
  mp_lower_set_kernel(c, MP_K_FLOOR);
  mp_lower_add_arg(c, a, false, ct);
  mp_lower_add_arg(c, b, false, ct);
  mp_lower_add_arg(c, out, true, dta == MP_DTYPE_INT32 ? "int32_t *" : "float *");
  return MP_OK;
}

/* ADD_N: two or more inputs of the output's shape and type. */
static mp_status lower_add_n(mp_lower_ctx *c) {
  int32_t out = out_t(c, 0);
  uint32_t n = c->op->n_inputs;
  if (out < 0 || n < 2) return mp_lower_malformed(c, "needs two or more inputs and an output");
  int32_t dt = dtype(c, out);
  if (dt != MP_DTYPE_INT32 && dt != MP_DTYPE_FLOAT32)
    return mp_lower_unsupported(c, "%s output (supported: int32 or float32)", mp_dtype_name(dt));
  for (uint32_t i = 0; i < n; i++) {
    int32_t t = c->op->inputs[i];
    if (t < 0) return mp_lower_malformed(c, "input %u is missing", i);
    if (dtype(c, t) != dt)
      return mp_lower_unsupported(c, "input %u is %s, the output %s", i, mp_dtype_name(dtype(c, t)),
                                  mp_dtype_name(dt));
    if (!same_shape(c, t, c->op->inputs[0]) || elems(c, t) != elems(c, out))
      return mp_lower_malformed(c, "input %u's shape differs from the others' or the output's", i);
  }
  mpk_add_n_params *p = &c->lo->params.add_n;
  if (!elems_i32(c, out, &p->size)) return mp_lower_unsupported(c, "more than 2^31 elements");
  p->type = dt == MP_DTYPE_INT32 ? MPK_TYPE_INT32 : MPK_TYPE_FLOAT32;
  p->n_inputs = (int32_t)n;
  mp_lower_set_kernel(c, MP_K_ADD_N);
  mp_lower_add_array_arg(c, c->op->inputs, n, "const void *const *");
  mp_lower_add_arg(c, out, true, "void *");
  return MP_OK;
}

mp_status mp_lower_binary(mp_lower_ctx *c) {
  switch (c->op->builtin_code) {
  case OP_LOGICAL_AND:
  case OP_LOGICAL_OR:
  case OP_LOGICAL_NOT: return lower_logical(c);
  case OP_SELECT:
  case OP_SELECT_V2: return lower_select(c);
  case OP_ADD_N: return lower_add_n(c);
  default: break;
  }
  int32_t a = in_t(c, 0), b = in_t(c, 1), out = out_t(c, 0);
  if (a < 0 || b < 0 || out < 0) return mp_lower_malformed(c, "needs two inputs and an output");
  switch (c->op->builtin_code) {
  case OP_EQUAL:
  case OP_NOT_EQUAL:
  case OP_LESS:
  case OP_LESS_EQUAL:
  case OP_GREATER:
  case OP_GREATER_EQUAL: return lower_compare(c, a, b, out);
  case OP_FLOOR_DIV:
  case OP_FLOOR_MOD: return lower_floor(c, a, b, out);
  default: break;
  }
  if (a < 0 || b < 0 || out < 0) return mp_lower_malformed(c, "needs two inputs and an output");
  uint8_t opt_type;
  const char *opt_name;
  int32_t op = binary_op(c->op->builtin_code, &opt_type, &opt_name);
  int32_t act = 0;
  if (opt_type) {
    mp_lower_opts o;
    mp_status st = mp_lower_open_opts(c, opt_type, opt_name, &o);
    if (st != MP_OK) return st;
    act = mp_lower_opt_i8(&o, 0, 0);
    if (!o.ok) return mp_lower_malformed(c, "its options do not validate");
  }
  int32_t dta = dtype(c, a), dtb = dtype(c, b), dto = dtype(c, out);
  if (dta == MP_DTYPE_FLOAT32 && dtb == MP_DTYPE_FLOAT32 && dto == MP_DTYPE_FLOAT32) {
    mpk_binary_f32_params *p = &c->lo->params.binary_f32;
    mp_status st = mp_lower_broadcast(c, a, b, out, &p->b);
    if (st != MP_OK || c->lo->reason[0]) return st;
    p->op = op;
    p->act_min = -FLT_MAX;
    p->act_max = FLT_MAX;
    if (opt_type && !mp_lower_act_range_f(act, &p->act_min, &p->act_max))
      return mp_lower_unsupported(c, "fused activation %s", mp_lower_act_name(act));
    mp_lower_set_kernel(c, MP_K_BINARY_F32);
    mp_lower_binary_args(c, a, b, out, "const float *", "float *");
    return MP_OK;
  }
  bool q8 = dta == MP_DTYPE_INT8 && dtb == MP_DTYPE_INT8 && dto == MP_DTYPE_INT8;
  bool q16 = dta == MP_DTYPE_INT16 && dtb == MP_DTYPE_INT16 && dto == MP_DTYPE_INT16;
  if (op != MPK_BIN_DIV && (q8 || q16)) return lower_quantized(c, op, act, a, b, out);
  return mp_lower_unsupported(c, "inputs %s and %s, output %s (supported: %s)", mp_dtype_name(dta),
                              mp_dtype_name(dtb), mp_dtype_name(dto),
                              op == MPK_BIN_DIV ? "float32" : "int8, int16 or float32");
}
