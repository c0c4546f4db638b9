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
 * Not here: int32 operands, DIV on integers.
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

mp_status mp_lower_binary(mp_lower_ctx *c) {
  int32_t a = in_t(c, 0), b = in_t(c, 1), out = out_t(c, 0);
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
