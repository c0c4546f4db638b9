/*
 * opcodes.h — the LiteRT BuiltinOperator codes the library refers to by
 * name (schema values; opnames.c has every code's name).  One list for
 * every stage, so no file writes its own.
 */
#ifndef MP_OPCODES_H
#define MP_OPCODES_H

enum {
  OP_ADD = 0,
  OP_AVERAGE_POOL_2D = 1,
  OP_CONCATENATION = 2,
  OP_CONV_2D = 3,
  OP_DEPTHWISE_CONV_2D = 4,
  OP_DEQUANTIZE = 6,
  OP_FULLY_CONNECTED = 9,
  OP_LOGISTIC = 14,
  OP_MAX_POOL_2D = 17,
  OP_MUL = 18,
  OP_RELU = 19,
  OP_RELU6 = 21,
  OP_RESHAPE = 22,
  OP_RESIZE_BILINEAR = 23,
  OP_SOFTMAX = 25,
  OP_SVDF = 27,
  OP_TANH = 28,
  OP_CUSTOM = 32,
  OP_PAD = 34,
  OP_GATHER = 36,
  OP_TRANSPOSE = 39,
  OP_MEAN = 40,
  OP_SUB = 41,
  OP_DIV = 42,
  OP_SQUEEZE = 43,
  OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
  OP_STRIDED_SLICE = 45,
  OP_EXP = 47,
  OP_SPLIT = 49,
  OP_CAST = 53,
  OP_PRELU = 54,
  OP_MAXIMUM = 55,
  OP_ARG_MAX = 56,
  OP_MINIMUM = 57,
  OP_PADV2 = 60,
  OP_SLICE = 65,
  OP_TRANSPOSE_CONV = 67,
  OP_EXPAND_DIMS = 70,
  OP_SUM = 74,
  OP_RSQRT = 76,
  OP_SHAPE = 77,
  OP_REDUCE_MAX = 82,
  OP_PACK = 83,
  OP_UNPACK = 88,
  OP_RESIZE_NEAREST_NEIGHBOR = 97,
  OP_LEAKY_RELU = 98,
  OP_SQUARED_DIFFERENCE = 99,
  OP_SPLIT_V = 102,
  OP_QUANTIZE = 114,
  OP_HARD_SWISH = 117,
  OP_BATCH_MATMUL = 126,
  OP_CALL_ONCE = 129,
  OP_VAR_HANDLE = 142,
  OP_READ_VARIABLE = 143,
  OP_ASSIGN_VARIABLE = 144,
  OP_BITCAST = 159
};

#endif /* MP_OPCODES_H */
