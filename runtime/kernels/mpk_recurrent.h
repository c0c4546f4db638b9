/*
 * mpk_recurrent.h — the stateful operators' part of the kernel ABI (mpk.h
 * includes it): SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM, int8 and float32,
 * and the 16x8 LSTM.
 *
 * Their state tensors (SVDF's activation state, the LSTM's hidden and cell
 * state) are the model's variable tensors: the plan puts them in a
 * persistent arena that context_init zeroes, and the kernels read and
 * update them in place, so a stream of runs carries its history from one
 * run to the next.  Nothing else survives a run: the gate buffers and
 * accumulators are op-local scratch.
 */
#ifndef MPK_RECURRENT_H
#define MPK_RECURRENT_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* SVDF's shape, both element types: batches x input_size inputs,
 * num_filters = num_units * rank filters, each with a window of
 * memory_size elements in the state. */
typedef struct mpk_svdf_shape {
  int32_t batches, input_size, num_filters, num_units, rank, memory_size;
} mpk_svdf_shape;

/* The LSTM's shape, both element types: input [time_steps, batches,
 * input_size] when time_major, else [batches, time_steps, input_size];
 * state_size cells per batch row. */
typedef struct mpk_lstm_shape {
  int32_t time_major;
  int32_t batches, time_steps, input_size, state_size;
} mpk_lstm_shape;

/* SVDF, int8 input and output, int8 feature weights, int8 or int16 time
 * weights and state (state_type, MPK_TYPE_INT8 or MPK_TYPE_INT16).  Each
 * run shifts the state left by one element, writes the newest column
 *   state[b][f][memory - 1] = clamp(mbqm(sum_i wf[f][i] * (in[b][i] -
 *                                   input_zp), m1, s1) + state_zp)
 * and reduces
 *   out[b][u] = clamp(mbqm(bias[u] + sum_{f in unit u} sum_m wt[f][m] *
 *                           (state[b][f][m] - state_zp), m2, s2) + out_zp).
 * scratch: batches * (num_filters + num_units) int32 (4-byte aligned). */
typedef struct mpk_svdf_s8_params {
  mpk_svdf_shape shape;
  int32_t state_type;
  int32_t input_zero_point, state_zero_point, output_zero_point;
  int32_t feature_multiplier, feature_shift; /* input x feature weights -> state */
  int32_t time_multiplier, time_shift;       /* state x time weights -> output */
} mpk_svdf_s8_params;

/* One LSTM gate's two fully connected layers (input and recurrent), both
 * requantised to the gate's Q3.12 pre-activation. */
typedef struct mpk_lstm_gate {
  int32_t in_multiplier, in_shift;
  int32_t rec_multiplier, rec_shift;
} mpk_lstm_gate;

/* The cell gate's activation. */
#define MPK_LSTM_TANH 0
#define MPK_LSTM_SIGMOID 1

/* Gates, in the operator's input order. */
#define MPK_LSTM_INPUT_GATE 0
#define MPK_LSTM_FORGET_GATE 1
#define MPK_LSTM_CELL_GATE 2
#define MPK_LSTM_OUTPUT_GATE 3

/* UNIDIRECTIONAL_SEQUENCE_LSTM, int8 input, hidden state and output, int8
 * weights, int32 biases, int16 cell state and gates (TFLite Micro's
 * integer LSTM: gates Q3.12 before and Q0.15 after their activation).
 * Batch-major inputs run batch by batch, one batch row per step;
 * time-major inputs run every batch row in each step.
 * The 16x8 LSTM (mpk_lstm_s16) takes the same params: int16 input, hidden
 * state and output, int8 weights, int64 biases; its activations are
 * symmetric, so input_offset, hidden_offset and hidden_zero_point are 0. */
typedef struct mpk_lstm_s8_params {
  mpk_lstm_shape shape;
  int32_t input_offset;                              /* minus the input zero point */
  int32_t hidden_offset;                             /* minus the hidden state's zero point */
  int32_t hidden_zero_point;                         /* the hidden state's zero point */
  mpk_lstm_gate gate[4];                             /* MPK_LSTM_*_GATE */
  int32_t cell_activation;                           /* MPK_LSTM_TANH or MPK_LSTM_SIGMOID */
  int32_t forget_cell_multiplier, forget_cell_shift; /* forget gate x cell -> cell */
  int32_t input_cell_multiplier, input_cell_shift;   /* input gate x cell gate -> cell */
  int32_t hidden_multiplier, hidden_shift;           /* tanh(cell) x output gate -> hidden */
  int32_t cell_clip;                                 /* quantised; 0: no clipping */
  int32_t cell_tanh_multiplier, cell_tanh_shift;     /* int16 tanh of the cell state */
} mpk_lstm_s8_params;

/* SVDF, float32: the same window and reduction in float, then the fused
 * activation (MPK_ACT_*).  scratch: batches * num_filters floats. */
typedef struct mpk_svdf_f32_params {
  mpk_svdf_shape shape;
  int32_t activation;
} mpk_svdf_f32_params;

/* The fused activations of the float recurrent kernels. */
#define MPK_ACT_NONE 0
#define MPK_ACT_RELU 1
#define MPK_ACT_RELU_N1_TO_1 2
#define MPK_ACT_RELU6 3
#define MPK_ACT_TANH 4
#define MPK_ACT_SIGN_BIT 5 /* 1 where the sign bit is set (-0 too), else 0 */

/* UNIDIRECTIONAL_SEQUENCE_LSTM, float32: the gates' fully connected
 * layers in float, logistic / tanh, the cell state clipped to
 * +-cell_clip when cell_clip > 0.  Same walk and buffers as the int8
 * kernel (scratch: 4 float buffers). */
typedef struct mpk_lstm_f32_params {
  mpk_lstm_shape shape;
  float cell_clip;
} mpk_lstm_f32_params;

/* weights_time and state are int8 or int16 as p->state_type says; bias
 * may be NULL. */
MPK_API int32_t mpk_svdf_s8(const mpk_svdf_s8_params *p, const int8_t *input,
                            const int8_t *weights_feature, const void *weights_time,
                            const int32_t *bias, void *state, int8_t *output, void *scratch);

/* constants: the operator's inputs 1 to 15 — the 8 weight matrices
 * (input-to-gate, then recurrent-to-gate, each in gate order), 3 unused
 * peephole slots (NULL), the 4 int32 gate biases.  scratch: 4 int16
 * buffers of (time_major ? batches : 1) * state_size elements (2-byte
 * aligned). */
MPK_API int32_t mpk_lstm_s8(const mpk_lstm_s8_params *p, const int8_t *input,
                            const void *const *constants, int8_t *hidden, int16_t *cell,
                            int8_t *output, void *scratch);
/* The 16x8 LSTM: the same walk and scratch as mpk_lstm_s8 with int16
 * activations; constants as mpk_lstm_s8's but the 4 gate biases int64.
 * Each gate's fully connected layers accumulate in int64 and requantise
 * with TFLite's int64 MultiplyByQuantizedMultiplier (the multiplier
 * rounded to 16 bits; shifts below 8). */
MPK_API int32_t mpk_lstm_s16(const mpk_lstm_s8_params *p, const int16_t *input,
                             const void *const *constants, int16_t *hidden, int16_t *cell,
                             int16_t *output, void *scratch);
MPK_API int32_t mpk_svdf_f32(const mpk_svdf_f32_params *p, const float *input,
                             const float *weights_feature, const float *weights_time,
                             const float *bias, float *state, float *output, void *scratch);
MPK_API int32_t mpk_lstm_f32(const mpk_lstm_f32_params *p, const float *input,
                             const void *const *constants, float *hidden, float *cell,
                             float *output, void *scratch);

/* The specialised int8 SVDF and LSTM a module built for a Cortex-M target
 * runs (cm/mpk_recurrent.c, emitted as mpk_recurrent_fast.c).  The
 * lowering folds every zero point's share of the products into biases at
 * convert time, from the constant weights (sums modulo 2^32, as the
 * device's int32 accumulators wrap), so the inner loops are plain dot
 * products and the outputs the reference kernels' bytes:
 *   SVDF  feature_bias[f] = -input_zero_point * sum_i wf[f][i];
 *         unit_bias[u]    = bias[u] - state_zero_point * sum of the time
 *                           weights of unit u's rank filters;
 *   LSTM  in_bias[g][s]   = bias[g][s] + input_offset * sum_i wi[g][s][i];
 *         rec_bias[g][s]  = hidden_offset * sum_i wr[g][s][i]
 *         (g in gate order, MPK_LSTM_*_GATE; s < state_size). */
typedef struct mpk_svdf_s8_fast_params {
  mpk_svdf_s8_params ref;
  const int32_t *feature_bias; /* num_filters entries */
  const int32_t *unit_bias;    /* num_units entries */
} mpk_svdf_s8_fast_params;

typedef struct mpk_lstm_s8_fast_params {
  mpk_lstm_s8_params ref;
  const int32_t *in_bias;  /* 4 * state_size entries */
  const int32_t *rec_bias; /* 4 * state_size entries */
} mpk_lstm_s8_fast_params;

/* The same arguments as mpk_svdf_s8 (bias unused: it is in unit_bias);
 * scratch: batches * num_filters int32 (4-byte aligned). */
MPK_API int32_t mpk_svdf_s8_fast(const mpk_svdf_s8_fast_params *p, const int8_t *input,
                                 const int8_t *weights_feature, const void *weights_time,
                                 const int32_t *bias, void *state, int8_t *output, void *scratch);
/* The same arguments as mpk_lstm_s8 (the biases unused: they are in
 * in_bias); no scratch.  Each step computes the four gates, the cell and
 * the hidden state of four cells at a time and writes the new hidden
 * state to the step's output, copied into `hidden` once the row's step is
 * done; so `output` may not overlap `hidden`, `cell` or `input`. */
MPK_API int32_t mpk_lstm_s8_fast(const mpk_lstm_s8_fast_params *p, const int8_t *input,
                                 const void *const *constants, int8_t *hidden, int16_t *cell,
                                 int8_t *output, void *scratch);
/* The 16x8 LSTM of a Cortex-M target: mpk_lstm_s16's arguments and params
 * (no scratch; there is no zero point to fold), mpk_lstm_s8_fast's loop
 * with int16 activations and each gate's products in int64; the same
 * overlap rule. */
MPK_API int32_t mpk_lstm_s16_fast(const mpk_lstm_s8_params *p, const int16_t *input,
                                  const void *const *constants, int16_t *hidden, int16_t *cell,
                                  int16_t *output, void *scratch);

#endif /* MPK_RECURRENT_H */
