/*
 * fixtures.h — small models with known answers, written by memplan's own
 * model writer (tests/support/gen/tflite_writer.h), for every test that needs a model:
 * reader, graph, planner, plan, emit.  Also the bundled example (a DS-CNN
 * keyword spotter) and random DAGs.  `mkmodel fixture NAME OUT.tflite`
 * writes any of them to a file.
 *
 * Conventions of the documented figures: activations are int8 [1,n]
 * (n bytes) unless said otherwise; "lb" is mp_graph_lower_bound at 16-byte
 * alignment, with view aliasing (the default) and without ("no alias").
 * Lifetimes are inclusive [start_op, end_op] (README, "Lifetimes, aliases and roles").
 *
 *   name              what it holds                                   lb (no alias)
 *   tiny              FC + SOFTMAX, quantised, metadata, description       32 (32)
 *   multi_subgraph    subgraph 0: 1 op, subgraph 1 "body": 3 ops      64 / 128
 *   variable          a persistent (is_variable) state tensor              32 (32)
 *   state_zero_points int8 and int16 states with non-zero zero points:    32 (32)
 *                     the int8 one starts at its zero point
 *   zero_size         a [1,0] input: size 0, no slot                      32 (32)
 *   unread_output     SPLIT output never read: end = start                 64 (64)
 *   late_input        graph input first read by op 3: [0,3]              128 (128)
 *   view_chain        RESHAPE->SQUEEZE->EXPAND_DIMS on one root            48 (64)
 *   view_of_constant  RESHAPE of a constant: no alias                      48 (48)
 *   optional_input    FC with bias -1                                      32 (32)
 *   intermediates     LSTM with two intermediates, live [op, op]         128 (128)
 *   external_weights  tiny with its weights stored after the flatbuffer    32 (32)
 *   written_twice     two ops write one tensor: mp_graph_build fails
 *   writes_constant   an op writes a constant: mp_graph_build fails
 *   dynamic_shape     a used tensor of shape [-1,8]: MP_ERR_UNSUPPORTED
 *   padded_block      MobileNetV2 block with an explicit PAD (int8,  312000 (312000)
 *                     56x56: 1x1 8->48, PAD 1, VALID 3x3 depthwise,
 *                     1x1 48->8): the in-place planning case
 *   pad_conv          int8 PAD / PADV2 + convolution chain: 4 PADs    1680 (1680)
 *                     fold, 3 must not (PAD folding)
 *   pad_conv_f32      float32 PAD + convolution chain: 2 PADs fold    2224 (2224)
 *   pad_conv_s16      16x8 PAD + convolution chain: 2 PADs fold        800 (800)
 *   slices            int8 SLICEs (outer axis, strided) between convs   384 (384)
 *   branch_add        int8 branches of 1x1 convs (wide, narrow) joined  5120 (5120)
 *                     by ADD: 4672 in the best order (memory.op_order)
 *   branch_concat     int8 branch per input, CONCATENATION: 4224 in    4672 (4672)
 *                     the best order
 *   branch_custom     branch_concat with two CUSTOM ops: its order is  4672 (4672)
 *                     the best there is
 *   views             int8 SPLIT / SPLIT_V / SLICE / STRIDED_SLICE /
 *                     CONCATENATION, views and elisions and refusals
 *   views_f32         float32 UNPACK / PACK / shrinking STRIDED_SLICE,
 *                     channel SPLIT / CONCATENATION (not views)
 *   heads             int8 FULLY_CONNECTED heads concatenated, and a      1536 (1536)
 *                     SPLIT into heads: where views save scratch
 * Each builder's comment in fixtures.c lists the tensors and lifetimes.
 */
#ifndef MP_FIXTURES_H
#define MP_FIXTURES_H

#include "memplan.h"

/* BuiltinOperator codes the fixtures use (schema values). */
enum {
  FX_ADD = 0,
  FX_AVERAGE_POOL_2D = 1,
  FX_CONCATENATION = 2,
  FX_CONV_2D = 3,
  FX_DEPTHWISE_CONV_2D = 4,
  FX_DEPTH_TO_SPACE = 5,
  FX_EMBEDDING_LOOKUP = 7,
  FX_FULLY_CONNECTED = 9,
  FX_LOGISTIC = 14,
  FX_MUL = 18,
  FX_RELU = 19,
  FX_RESHAPE = 22,
  FX_SOFTMAX = 25,
  FX_SPACE_TO_DEPTH = 26,
  FX_TANH = 28,
  FX_CUSTOM = 32,
  FX_PAD = 34,
  FX_BATCH_TO_SPACE_ND = 37,
  FX_SPACE_TO_BATCH_ND = 38,
  FX_SQUEEZE = 43,
  FX_UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
  FX_SPLIT = 49,
  FX_LESS = 58,
  FX_GREATER = 61,
  FX_GREATER_EQUAL = 62,
  FX_LESS_EQUAL = 63,
  FX_SELECT = 64,
  FX_EXPAND_DIMS = 70,
  FX_EQUAL = 71,
  FX_NOT_EQUAL = 72,
  FX_ARG_MIN = 79,
  FX_LOGICAL_OR = 84,
  FX_LOGICAL_AND = 86,
  FX_LOGICAL_NOT = 87,
  FX_REDUCE_MIN = 89,
  FX_FLOOR_DIV = 90,
  FX_ZEROS_LIKE = 93,
  FX_FILL = 94,
  FX_FLOOR_MOD = 95,
  FX_MIRROR_PAD = 100,
  FX_REVERSE_V2 = 105,
  FX_ADD_N = 106,
  FX_GATHER_ND = 107,
  FX_SELECT_V2 = 123,
  FX_BROADCAST_TO = 130,
  FX_GELU = 150
};

/* Names of the named fixtures, NULL-terminated. */
const char *const *fx_names(void);

/* Names of the held-out networks, NULL-terminated: whole models in the
 * shapes converters write, none tuned for memplan (memory.in_place's
 * model-scale cases; fx_build writes them too).  Small first:
 *   mobilenet_v2_96_035      int8 MobileNetV2 0.35 at 96x96, PyTorch-style
 *                            explicit PADs, 10 classes
 *   mobilenet_v2_96_035_f32  the same in float32
 *   vww_96_f32               float32 MobileNetV1 0.25 VWW at 96x96
 *   resnet_48                int8 ResNet, ADD skips, stride-2 1x1 shortcuts
 *   branches_40              int8 inception-style CONCATENATION of branches,
 *                            depth multiplier 2, dilation 2
 *   s16_net_32               16x8 depthwise-separable model
 *   s16_bias_24              16x8 convolutions without a bias and with an
 *                            int32 one (an int32 accumulator, as TFLM runs
 *                            them) between int64-bias layers
 *   resnet_pt_64             int8 PyTorch-style ResNet at 64x64: explicit
 *                            PADs before every convolution and the stem's
 *                            max pool
 *   resnet_pt_64_f32         the same in float32 (the max pool's PADV2 of
 *                            -inf)
 *   mobilenet_v2_224         int8 MobileNetV2 1.0 at 224x224, 1000 classes
 *                            (peak 112x112x96 + its padded copy: 2,451,840 B)
 *   mobilenet_v2_224_f32     the same in float32
 * Not in fx_names: too large for the every-fixture tests. */
const char *const *fx_net_names(void);

/* Write fixture `name` into *bytes (malloc'd; the caller frees it).
 * MP_ERR_CONFIG for an unknown name. */
mp_status fx_build(const char *name, uint8_t **bytes, size_t *size);

/* With `on`, fx_build and fx_kws write every tensor and subgraph name,
 * custom code and description through fx_hostile_name: the name between
 * two tokens that would turn into code, terminal control or markup if any
 * output took them literally (a closing comment, a line splice, a
 * trigraph, an escape sequence, a right-to-left override, invalid UTF-8).
 * The same name always gets the same tokens. */
void fx_hostile_names(bool on);
const char *fx_hostile_name(void *user, const char *name, char *buf, size_t size);

/* Build and parse fixture `name`; NULL (with a message on stderr) when
 * either fails.  Free with mp_model_free. */
mp_model *fx_model(const char *name);

/* A random DAG of `n_ops` operators (1..100000) from `seed`: quantised
 * int8 activations [1,n] or [n] (1..4096 bytes), RELU/TANH/LOGISTIC,
 * ADD/MUL, CONCATENATION and SPLIT (two outputs) on the last axis, PAD,
 * RESHAPE (a view), skip connections, graph inputs first read late, and
 * sinks that are graph outputs (most) or never read.  Every op is
 * well-formed for TFLite's shape rules.  Same seed and count, same bytes. */
mp_status fx_random(uint64_t seed, uint32_t n_ops, uint8_t **bytes, size_t *size);

/* The bundled example (examples/kws/kws.tflite): a DS-CNN keyword spotter
 * in the shape of MLPerf Tiny KWS.  Input int8 [1,49,10,1]; CONV_2D 10x4
 * stride 2 SAME -> [1,25,5,64]; 4 x (DEPTHWISE_CONV_2D 3x3 + CONV_2D 1x1),
 * 64 channels, RELU fused; AVERAGE_POOL_2D 25x5 -> [1,1,1,64]; RESHAPE
 * [1,64]; FULLY_CONNECTED -> [1,12]; SOFTMAX.  35 tensors, 13 ops.
 * Weights are synthetic (a fixed PRNG); the quantisation parameters are
 * calibrated by running the float network on synthetic features, so
 * int8 kernels see realistic, unsaturated ranges.  Deterministic.
 * lb 16000 (16000), like the real model. */
mp_status fx_kws(uint8_t **bytes, size_t *size);

/* KWS tensor ids worth naming in tests. */
enum {
  FX_KWS_INPUT = 0,
  FX_KWS_CONV0_OUT = 3,
  FX_KWS_POOL_OUT = 28,
  FX_KWS_RESHAPE_OUT = 30,
  FX_KWS_LOGITS = 33,
  FX_KWS_OUTPUT = 34,
  FX_KWS_N_TENSORS = 35,
  FX_KWS_N_OPS = 13
};

/* How well the quantisation of a KWS model fits its data: runs the float
 * network with the weights dequantised from `m` on a synthetic input
 * (`seed`), and for every activation tensor quantises the values with the
 * tensor's own scale/zero_point. */
typedef struct fx_kws_stats {
  uint32_t n_values[FX_KWS_N_TENSORS];
  uint32_t n_clipped[FX_KWS_N_TENSORS]; /* beyond the int8 range */
  int32_t q_min[FX_KWS_N_TENSORS];      /* before clipping */
  int32_t q_max[FX_KWS_N_TENSORS];
  float probs[12];                      /* softmax output (float) */
} fx_kws_stats;

/* False when `m` does not have the KWS topology. */
bool fx_kws_stats_run(const mp_model *m, uint64_t seed, fx_kws_stats *out);

#endif /* MP_FIXTURES_H */
