/*
 * opnames.c — names of the LiteRT BuiltinOperator codes (schema order) and
 * of the tensor types.
 */
#include "memplan.h"

#include <stddef.h>

static const char *const builtin_names[] = {
    "ADD", /* 0 */
    "AVERAGE_POOL_2D", /* 1 */
    "CONCATENATION", /* 2 */
    "CONV_2D", /* 3 */
    "DEPTHWISE_CONV_2D", /* 4 */
    "DEPTH_TO_SPACE", /* 5 */
    "DEQUANTIZE", /* 6 */
    "EMBEDDING_LOOKUP", /* 7 */
    "FLOOR", /* 8 */
    "FULLY_CONNECTED", /* 9 */
    "HASHTABLE_LOOKUP", /* 10 */
    "L2_NORMALIZATION", /* 11 */
    "L2_POOL_2D", /* 12 */
    "LOCAL_RESPONSE_NORMALIZATION", /* 13 */
    "LOGISTIC", /* 14 */
    "LSH_PROJECTION", /* 15 */
    "LSTM", /* 16 */
    "MAX_POOL_2D", /* 17 */
    "MUL", /* 18 */
    "RELU", /* 19 */
    "RELU_N1_TO_1", /* 20 */
    "RELU6", /* 21 */
    "RESHAPE", /* 22 */
    "RESIZE_BILINEAR", /* 23 */
    "RNN", /* 24 */
    "SOFTMAX", /* 25 */
    "SPACE_TO_DEPTH", /* 26 */
    "SVDF", /* 27 */
    "TANH", /* 28 */
    "CONCAT_EMBEDDINGS", /* 29 */
    "SKIP_GRAM", /* 30 */
    "CALL", /* 31 */
    "CUSTOM", /* 32 */
    "EMBEDDING_LOOKUP_SPARSE", /* 33 */
    "PAD", /* 34 */
    "UNIDIRECTIONAL_SEQUENCE_RNN", /* 35 */
    "GATHER", /* 36 */
    "BATCH_TO_SPACE_ND", /* 37 */
    "SPACE_TO_BATCH_ND", /* 38 */
    "TRANSPOSE", /* 39 */
    "MEAN", /* 40 */
    "SUB", /* 41 */
    "DIV", /* 42 */
    "SQUEEZE", /* 43 */
    "UNIDIRECTIONAL_SEQUENCE_LSTM", /* 44 */
    "STRIDED_SLICE", /* 45 */
    "BIDIRECTIONAL_SEQUENCE_RNN", /* 46 */
    "EXP", /* 47 */
    "TOPK_V2", /* 48 */
    "SPLIT", /* 49 */
    "LOG_SOFTMAX", /* 50 */
    "DELEGATE", /* 51 */
    "BIDIRECTIONAL_SEQUENCE_LSTM", /* 52 */
    "CAST", /* 53 */
    "PRELU", /* 54 */
    "MAXIMUM", /* 55 */
    "ARG_MAX", /* 56 */
    "MINIMUM", /* 57 */
    "LESS", /* 58 */
    "NEG", /* 59 */
    "PADV2", /* 60 */
    "GREATER", /* 61 */
    "GREATER_EQUAL", /* 62 */
    "LESS_EQUAL", /* 63 */
    "SELECT", /* 64 */
    "SLICE", /* 65 */
    "SIN", /* 66 */
    "TRANSPOSE_CONV", /* 67 */
    "SPARSE_TO_DENSE", /* 68 */
    "TILE", /* 69 */
    "EXPAND_DIMS", /* 70 */
    "EQUAL", /* 71 */
    "NOT_EQUAL", /* 72 */
    "LOG", /* 73 */
    "SUM", /* 74 */
    "SQRT", /* 75 */
    "RSQRT", /* 76 */
    "SHAPE", /* 77 */
    "POW", /* 78 */
    "ARG_MIN", /* 79 */
    "FAKE_QUANT", /* 80 */
    "REDUCE_PROD", /* 81 */
    "REDUCE_MAX", /* 82 */
    "PACK", /* 83 */
    "LOGICAL_OR", /* 84 */
    "ONE_HOT", /* 85 */
    "LOGICAL_AND", /* 86 */
    "LOGICAL_NOT", /* 87 */
    "UNPACK", /* 88 */
    "REDUCE_MIN", /* 89 */
    "FLOOR_DIV", /* 90 */
    "REDUCE_ANY", /* 91 */
    "SQUARE", /* 92 */
    "ZEROS_LIKE", /* 93 */
    "FILL", /* 94 */
    "FLOOR_MOD", /* 95 */
    "RANGE", /* 96 */
    "RESIZE_NEAREST_NEIGHBOR", /* 97 */
    "LEAKY_RELU", /* 98 */
    "SQUARED_DIFFERENCE", /* 99 */
    "MIRROR_PAD", /* 100 */
    "ABS", /* 101 */
    "SPLIT_V", /* 102 */
    "UNIQUE", /* 103 */
    "CEIL", /* 104 */
    "REVERSE_V2", /* 105 */
    "ADD_N", /* 106 */
    "GATHER_ND", /* 107 */
    "COS", /* 108 */
    "WHERE", /* 109 */
    "RANK", /* 110 */
    "ELU", /* 111 */
    "REVERSE_SEQUENCE", /* 112 */
    "MATRIX_DIAG", /* 113 */
    "QUANTIZE", /* 114 */
    "MATRIX_SET_DIAG", /* 115 */
    "ROUND", /* 116 */
    "HARD_SWISH", /* 117 */
    "IF", /* 118 */
    "WHILE", /* 119 */
    "NON_MAX_SUPPRESSION_V4", /* 120 */
    "NON_MAX_SUPPRESSION_V5", /* 121 */
    "SCATTER_ND", /* 122 */
    "SELECT_V2", /* 123 */
    "DENSIFY", /* 124 */
    "SEGMENT_SUM", /* 125 */
    "BATCH_MATMUL", /* 126 */
    "PLACEHOLDER_FOR_GREATER_OP_CODES", /* 127 */
    "CUMSUM", /* 128 */
    "CALL_ONCE", /* 129 */
    "BROADCAST_TO", /* 130 */
    "RFFT2D", /* 131 */
    "CONV_3D", /* 132 */
    "IMAG", /* 133 */
    "REAL", /* 134 */
    "COMPLEX_ABS", /* 135 */
    "HASHTABLE", /* 136 */
    "HASHTABLE_FIND", /* 137 */
    "HASHTABLE_IMPORT", /* 138 */
    "HASHTABLE_SIZE", /* 139 */
    "REDUCE_ALL", /* 140 */
    "CONV_3D_TRANSPOSE", /* 141 */
    "VAR_HANDLE", /* 142 */
    "READ_VARIABLE", /* 143 */
    "ASSIGN_VARIABLE", /* 144 */
    "BROADCAST_ARGS", /* 145 */
    "RANDOM_STANDARD_NORMAL", /* 146 */
    "BUCKETIZE", /* 147 */
    "RANDOM_UNIFORM", /* 148 */
    "MULTINOMIAL", /* 149 */
    "GELU", /* 150 */
    "DYNAMIC_UPDATE_SLICE", /* 151 */
    "RELU_0_TO_1", /* 152 */
    "UNSORTED_SEGMENT_PROD", /* 153 */
    "UNSORTED_SEGMENT_MAX", /* 154 */
    "UNSORTED_SEGMENT_SUM", /* 155 */
    "ATAN2", /* 156 */
    "UNSORTED_SEGMENT_MIN", /* 157 */
    "SIGN", /* 158 */
    "BITCAST", /* 159 */
    "BITWISE_XOR", /* 160 */
    "RIGHT_SHIFT", /* 161 */
    "STABLEHLO_LOGISTIC", /* 162 */
    "STABLEHLO_ADD", /* 163 */
    "STABLEHLO_DIVIDE", /* 164 */
    "STABLEHLO_MULTIPLY", /* 165 */
    "STABLEHLO_MAXIMUM", /* 166 */
    "STABLEHLO_RESHAPE", /* 167 */
    "STABLEHLO_CLAMP", /* 168 */
    "STABLEHLO_CONCATENATE", /* 169 */
    "STABLEHLO_BROADCAST_IN_DIM", /* 170 */
    "STABLEHLO_CONVOLUTION", /* 171 */
    "STABLEHLO_SLICE", /* 172 */
    "STABLEHLO_CUSTOM_CALL", /* 173 */
    "STABLEHLO_REDUCE", /* 174 */
    "STABLEHLO_ABS", /* 175 */
    "STABLEHLO_AND", /* 176 */
    "STABLEHLO_COSINE", /* 177 */
    "STABLEHLO_EXPONENTIAL", /* 178 */
    "STABLEHLO_FLOOR", /* 179 */
    "STABLEHLO_LOG", /* 180 */
    "STABLEHLO_MINIMUM", /* 181 */
    "STABLEHLO_NEGATE", /* 182 */
    "STABLEHLO_OR", /* 183 */
    "STABLEHLO_POWER", /* 184 */
    "STABLEHLO_REMAINDER", /* 185 */
    "STABLEHLO_RSQRT", /* 186 */
    "STABLEHLO_SELECT", /* 187 */
    "STABLEHLO_SUBTRACT", /* 188 */
    "STABLEHLO_TANH", /* 189 */
    "STABLEHLO_SCATTER", /* 190 */
    "STABLEHLO_COMPARE", /* 191 */
    "STABLEHLO_CONVERT", /* 192 */
    "STABLEHLO_DYNAMIC_SLICE", /* 193 */
    "STABLEHLO_DYNAMIC_UPDATE_SLICE", /* 194 */
    "STABLEHLO_PAD", /* 195 */
    "STABLEHLO_IOTA", /* 196 */
    "STABLEHLO_DOT_GENERAL", /* 197 */
    "STABLEHLO_REDUCE_WINDOW", /* 198 */
    "STABLEHLO_SORT", /* 199 */
    "STABLEHLO_WHILE", /* 200 */
    "STABLEHLO_GATHER", /* 201 */
    "STABLEHLO_TRANSPOSE", /* 202 */
    "DILATE", /* 203 */
    "STABLEHLO_RNG_BIT_GENERATOR", /* 204 */
    "REDUCE_WINDOW", /* 205 */
    "STABLEHLO_COMPOSITE", /* 206 */
    "COMPLEX", /* 207 */
};

#define N_BUILTINS ((int32_t)(sizeof builtin_names / sizeof builtin_names[0]))

const char *mp_builtin_name(int32_t code) {
  return code >= 0 && code < N_BUILTINS ? builtin_names[code] : "UNKNOWN";
}

int32_t mp_builtin_count(void) { return N_BUILTINS; }

static const struct {
  const char *name;
  uint32_t bits;
  uint32_t align;
} dtypes[MP_DTYPE_COUNT] = {
    [MP_DTYPE_FLOAT32] = {"float32", 32, 4},   [MP_DTYPE_FLOAT16] = {"float16", 16, 2},
    [MP_DTYPE_INT32] = {"int32", 32, 4},       [MP_DTYPE_UINT8] = {"uint8", 8, 1},
    [MP_DTYPE_INT64] = {"int64", 64, 8},       [MP_DTYPE_STRING] = {"string", 0, 1},
    [MP_DTYPE_BOOL] = {"bool", 8, 1},          [MP_DTYPE_INT16] = {"int16", 16, 2},
    [MP_DTYPE_COMPLEX64] = {"complex64", 64, 4}, [MP_DTYPE_INT8] = {"int8", 8, 1},
    [MP_DTYPE_FLOAT64] = {"float64", 64, 8},   [MP_DTYPE_COMPLEX128] = {"complex128", 128, 8},
    [MP_DTYPE_UINT64] = {"uint64", 64, 8},     [MP_DTYPE_RESOURCE] = {"resource", 0, 1},
    [MP_DTYPE_VARIANT] = {"variant", 0, 1},    [MP_DTYPE_UINT32] = {"uint32", 32, 4},
    [MP_DTYPE_UINT16] = {"uint16", 16, 2},     [MP_DTYPE_INT4] = {"int4", 4, 1},
    [MP_DTYPE_BFLOAT16] = {"bfloat16", 16, 2},
};

const char *mp_dtype_name(int32_t dtype) {
  return dtype >= 0 && dtype < MP_DTYPE_COUNT ? dtypes[dtype].name : "unknown";
}

uint32_t mp_dtype_bits(int32_t dtype) {
  return dtype >= 0 && dtype < MP_DTYPE_COUNT ? dtypes[dtype].bits : 0;
}

uint32_t mp_dtype_align(int32_t dtype) {
  return dtype >= 0 && dtype < MP_DTYPE_COUNT ? dtypes[dtype].align : 1;
}

const char *mp_role_name(mp_role r) {
  switch (r) {
  case MP_ROLE_SCRATCH: return "scratch";
  case MP_ROLE_PERSISTENT: return "persistent";
  case MP_ROLE_CONSTANT: return "constant";
  default: return "unknown";
  }
}
