/*
 * mpk_recurrent.c — SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM, int8, with the
 * arithmetic of TensorFlow Lite Micro's reference kernels.
 *
 * SVDF keeps a sliding window of `memory_size` feature activations per
 * filter in its state: each run shifts the window by one, computes the
 * newest column from the input, and reduces the window against the time
 * weights.
 *
 * The LSTM is TFLite Micro's integer LSTM: each gate is two fully
 * connected layers (input and hidden state) requantised to int16 Q3.12,
 * added with saturation and passed through the int16 logistic or tanh
 * (TFLite's 256-entry table with linear interpolation) to Q0.15; the cell
 * state is int16 at a power-of-two scale; the hidden state is int8.  The
 * state tensors are the caller's persistent buffers, updated in place.
 */
#include "mpk.h"
#include "mpk_fixed.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* SVDF                                                                     */
/* ------------------------------------------------------------------------ */

static int32_t state_at(const void *s, int32_t type, int32_t i) {
  return type == MPK_TYPE_INT16 ? ((const int16_t *)s)[i] : ((const int8_t *)s)[i];
}

MPK_API int32_t mpk_svdf_s8(const mpk_svdf_s8_params *p, const int8_t *input,
                            const int8_t *weights_feature, const void *weights_time,
                            const int32_t *bias, void *state, int8_t *output, void *scratch) {
  const int32_t nb = p->batches, ni = p->input_size, nf = p->num_filters, nu = p->num_units;
  const int32_t rank = p->rank, nm = p->memory_size, type = p->state_type;
  if (nb <= 0 || ni <= 0 || nf <= 0 || nu <= 0 || rank <= 0 || nm <= 0 || nu * rank != nf ||
      (type != MPK_TYPE_INT8 && type != MPK_TYPE_INT16) || !scratch)
    return MPK_ERR_PARAMS;
  const size_t es = type == MPK_TYPE_INT16 ? 2 : 1;
  const int32_t smin = type == MPK_TYPE_INT16 ? -32768 : -128;
  const int32_t smax = type == MPK_TYPE_INT16 ? 32767 : 127;
  int32_t *acc = scratch;         /* batches x num_filters */
  int32_t *units = acc + nb * nf; /* batches x num_units */

  /* the window moves by one element; the last column is rewritten below */
  memmove(state, (uint8_t *)state + es, ((size_t)nb * (size_t)nf * (size_t)nm - 1) * es);

  for (int32_t b = 0; b < nb; b++) {
    const int8_t *in = input + b * ni;
    for (int32_t f = 0; f < nf; f++) {
      const int8_t *w = weights_feature + f * ni;
      int32_t dot = 0;
      for (int32_t i = 0; i < ni; i++)
        dot += (int32_t)w[i] * ((int32_t)in[i] - p->input_zero_point);
      dot = mpk_mbqm(dot, p->feature_multiplier, p->feature_shift) + p->state_zero_point;
      dot = mpk_clamp_i32(dot, smin, smax);
      int32_t at = (b * nf + f) * nm + nm - 1;
      if (type == MPK_TYPE_INT16)
        ((int16_t *)state)[at] = (int16_t)dot;
      else
        ((int8_t *)state)[at] = (int8_t)dot;
    }
  }

  for (int32_t b = 0; b < nb; b++) {
    for (int32_t f = 0; f < nf; f++) {
      int32_t sum = 0;
      int32_t row = (b * nf + f) * nm;
      for (int32_t m = 0; m < nm; m++)
        sum += state_at(weights_time, type, f * nm + m) *
               (state_at(state, type, row + m) - p->state_zero_point);
      acc[b * nf + f] = sum;
    }
  }

  for (int32_t b = 0; b < nb; b++) {
    for (int32_t u = 0; u < nu; u++) {
      int32_t sum = bias ? bias[u] : 0;
      for (int32_t r = 0; r < rank; r++)
        sum += acc[b * nf + u * rank + r];
      units[b * nu + u] = sum;
    }
  }
  for (int32_t i = 0; i < nb * nu; i++) {
    int32_t v = mpk_mbqm(units[i], p->time_multiplier, p->time_shift) + p->output_zero_point;
    output[i] = (int8_t)mpk_clamp_i32(v, -128, 127);
  }
  return MPK_OK;
}

/* ------------------------------------------------------------------------ */
/* int16 logistic and tanh                                                  */
/* ------------------------------------------------------------------------ */

/* TFLite's table of the logistic function in 0.16 fixed point: entry k
 * is close to 65536 / (1 + exp(-k / 24)) (within 1 below k = 100; the tail
 * is tuned for interpolation).  The int16 logistic and tanh interpolate
 * between its entries; bit-exactness with TFLite needs these values. */
static const uint16_t sigmoid_table[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

/* The input scaled by multiplier / 2^shift with rounding; multiplier 0
 * means the power-of-two case, 3 * 2^shift. */
static int32_t lut_input(int16_t x, int32_t multiplier, int32_t shift) {
  if (multiplier == 0) {
    multiplier = 3 * (1 << shift);
    shift = 0;
  }
  int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  return ((int32_t)x * multiplier + round) >> shift;
}

/* Logistic of int16 inputs to Q0.15 outputs. */
static void logistic_s16(int32_t multiplier, int32_t shift, int32_t size, const int16_t *in,
                         int16_t *out) {
  for (int32_t i = 0; i < size; i++) {
    int32_t x = lut_input(in[i], multiplier, shift);
    uint32_t ax = (uint32_t)(x < 0 ? -x : x);
    uint32_t hi = ax >> 9, r;
    if (hi >= 255) {
      r = 0x7FFFu << 10;
    } else {
      uint32_t a = sigmoid_table[hi], b = sigmoid_table[hi + 1];
      r = (a << 9) + (ax & 0x1FFu) * (b - a);
    }
    r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1u;
    out[i] = (int16_t)(r >> 10);
  }
}

/* Tanh of int16 inputs to Q0.15 outputs: tanh(x) = 2 logistic(2x) - 1. */
static void tanh_s16(int32_t multiplier, int32_t shift, int32_t size, const int16_t *in,
                     int16_t *out) {
  for (int32_t i = 0; i < size; i++) {
    int32_t x = lut_input(in[i], multiplier, shift);
    uint32_t ax = (uint32_t)(x < 0 ? -x : x);
    uint32_t hi = ax >> 8;
    int32_t r;
    if (hi >= 255) {
      r = (int32_t)(0xFFFFu << 8);
    } else {
      uint32_t a = sigmoid_table[hi], b = sigmoid_table[hi + 1];
      r = (int32_t)((a << 8) + (ax & 0xFFu) * (b - a));
    }
    r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    out[i] = (int16_t)(r >> 8);
  }
}

/* ------------------------------------------------------------------------ */
/* LSTM                                                                     */
/* ------------------------------------------------------------------------ */

/* out[b][s] = clamp16(mbqm(sum_i w[s][i] * (x[b][i] + x_offset) + bias[s])) */
static void gate_fc(int32_t rows, int32_t depth, int32_t outs, const int8_t *x, int32_t x_offset,
                    const int8_t *w, const int32_t *bias, int32_t multiplier, int32_t shift,
                    int16_t *out) {
  for (int32_t b = 0; b < rows; b++) {
    for (int32_t s = 0; s < outs; s++) {
      const int8_t *ws = w + s * depth;
      int32_t acc = 0;
      for (int32_t i = 0; i < depth; i++)
        acc += (int32_t)ws[i] * ((int32_t)x[b * depth + i] + x_offset);
      if (bias) acc += bias[s];
      out[b * outs + s] = (int16_t)mpk_clamp_i32(mpk_mbqm(acc, multiplier, shift), -32768, 32767);
    }
  }
}

/* out = clamp(offset + mbqm(a * b)) elementwise, to int16 or int8. */
static void mul_s16(int32_t n, const int16_t *a, const int16_t *b, int32_t multiplier,
                    int32_t shift, int16_t *out) {
  for (int32_t i = 0; i < n; i++)
    out[i] = (int16_t)mpk_clamp_i32(mpk_mbqm((int32_t)a[i] * (int32_t)b[i], multiplier, shift),
                                    -32768, 32767);
}

typedef struct lstm_step {
  const mpk_lstm_s8_params *p;
  const void *const *k;
  int32_t rows; /* batch rows per step */
  int16_t *buf[4];
} lstm_step;

/* gate = activation(fc(input) + fc(hidden)), into `out`, using buf[3]. */
static void gate(const lstm_step *st, int32_t g, const int8_t *x, const int8_t *h,
                 int32_t activation, int16_t *out) {
  const mpk_lstm_s8_params *p = st->p;
  const int32_t n = st->rows * p->state_size;
  const mpk_lstm_gate *q = &p->gate[g];
  int16_t *tmp = st->buf[3];
  gate_fc(st->rows, p->input_size, p->state_size, x, p->input_offset, st->k[g], st->k[11 + g],
          q->in_multiplier, q->in_shift, out);
  gate_fc(st->rows, p->state_size, p->state_size, h, p->hidden_offset, st->k[4 + g], NULL,
          q->rec_multiplier, q->rec_shift, tmp);
  for (int32_t i = 0; i < n; i++)
    out[i] = (int16_t)mpk_clamp_i32((int32_t)out[i] + (int32_t)tmp[i], -32768, 32767);
  if (activation == MPK_LSTM_SIGMOID)
    logistic_s16(0, 0, n, out, out);
  else
    tanh_s16(0, 0, n, out, out); /* Q3.12 input: 3 * 2^0 */
}

static void step(const lstm_step *st, const int8_t *x, int8_t *h, int16_t *c, int8_t *y) {
  const mpk_lstm_s8_params *p = st->p;
  const int32_t n = st->rows * p->state_size;
  int16_t *forget = st->buf[0], *input = st->buf[1], *cell = st->buf[2];
  gate(st, MPK_LSTM_FORGET_GATE, x, h, MPK_LSTM_SIGMOID, forget);
  gate(st, MPK_LSTM_INPUT_GATE, x, h, MPK_LSTM_SIGMOID, input);
  gate(st, MPK_LSTM_CELL_GATE, x, h, p->cell_activation, cell);
  /* cell = forget * cell + input * cell gate, clipped */
  mul_s16(n, forget, c, p->forget_cell_multiplier, p->forget_cell_shift, c);
  mul_s16(n, input, cell, p->input_cell_multiplier, p->input_cell_shift, input);
  for (int32_t i = 0; i < n; i++) {
    int32_t v = mpk_clamp_i32((int32_t)c[i] + (int32_t)input[i], -32768, 32767);
    if (p->cell_clip > 0) v = mpk_clamp_i32(v, -p->cell_clip, p->cell_clip);
    c[i] = (int16_t)v;
  }
  /* hidden = tanh(cell) * output gate */
  int16_t *output = st->buf[1], *tanh_cell = st->buf[0];
  gate(st, MPK_LSTM_OUTPUT_GATE, x, h, MPK_LSTM_SIGMOID, output);
  tanh_s16(p->cell_tanh_multiplier, p->cell_tanh_shift, n, c, tanh_cell);
  for (int32_t i = 0; i < n; i++) {
    int32_t v = mpk_mbqm((int32_t)tanh_cell[i] * (int32_t)output[i], p->hidden_multiplier,
                         p->hidden_shift) +
                p->hidden_zero_point;
    h[i] = (int8_t)mpk_clamp_i32(v, -128, 127);
  }
  memcpy(y, h, (size_t)n);
}

MPK_API int32_t mpk_lstm_s8(const mpk_lstm_s8_params *p, const int8_t *input,
                            const void *const *constants, int8_t *hidden, int16_t *cell,
                            int8_t *output, void *scratch) {
  const int32_t nb = p->batches, nt = p->time_steps, ni = p->input_size, ns = p->state_size;
  if (nb <= 0 || nt <= 0 || ni <= 0 || ns <= 0 || !scratch || !constants) return MPK_ERR_PARAMS;
  for (int k = 0; k < 8; k++)
    if (!constants[k]) return MPK_ERR_PARAMS;
  lstm_step st;
  st.p = p;
  st.k = constants;
  st.rows = p->time_major ? nb : 1;
  for (int k = 0; k < 4; k++)
    st.buf[k] = (int16_t *)scratch + k * st.rows * ns;
  if (p->time_major) {
    for (int32_t t = 0; t < nt; t++)
      step(&st, input + t * nb * ni, hidden, cell, output + t * nb * ns);
  } else {
    for (int32_t b = 0; b < nb; b++)
      for (int32_t t = 0; t < nt; t++)
        step(&st, input + (b * nt + t) * ni, hidden + b * ns, cell + b * ns,
             output + (b * nt + t) * ns);
  }
  return MPK_OK;
}
