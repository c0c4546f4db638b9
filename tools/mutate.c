/*
 * mutate.c — structured mutations of a .tflite model, for the mutation suite.
 *
 *   mutate IN.tflite SEED OUT.tflite
 *
 * Writes a copy of IN with one value changed, chosen by SEED, and prints
 * what it changed ("subgraphs[0].tensors[3].shape[1] = 2147483647").  The
 * value is found with the reader's own flatbuffer primitives, so the file
 * stays a well-formed flatbuffer and the change reaches the stages behind
 * the reader: a dimension, a tensor's type or buffer index, a buffer made
 * shorter, a quantisation scale or zero point, an operator's tensor index,
 * a field of its options, an opcode, a subgraph input or output.  Values
 * are picked to hurt: 0, -1, extremes of int32, off-by-one neighbours.
 * The same arguments always give the same bytes.
 * Exit status: 0 written, 2 bad usage, unreadable model or I/O error.
 */
#include "read/flatbuf.h"
#include "util/file.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schema field ids (the declaration order in schema.fbs). */
enum { M_OPCODES = 1, M_SUBGRAPHS = 2, M_BUFFERS = 4 };
enum { OC_DEPRECATED = 0, OC_BUILTIN = 3 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OUTPUTS = 2, SG_OPERATORS = 3 };
enum { T_SHAPE = 0, T_TYPE = 1, T_BUFFER = 2, T_QUANT = 4 };
enum { Q_SCALE = 2, Q_ZERO_POINT = 3, Q_DIM = 6 };
enum { OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS = 4 };
enum { B_DATA = 0 };

static uint64_t rng;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static uint32_t pick(uint32_t n) { return n ? (uint32_t)(next() % n) : 0; }

static const int32_t NASTY[] = {0, -1, -2, 1, 2, 3, 255, 65535, 65536, 2147483647, -2147483647 - 1,
                                1073741824, -1073741824};
#define N_NASTY (sizeof NASTY / sizeof NASTY[0])

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A nasty int32, or a neighbour of `old`. */
static int32_t nasty_i32(int32_t old) {
  switch (pick(4)) {
  case 0: return old == INT32_MAX ? old : old + 1;
  case 1: return old == INT32_MIN ? old : old - 1;
  default: return NASTY[pick(N_NASTY)];
  }
}

typedef struct muta {
  uint8_t *p;
  size_t n;
  fb_file f;
  char what[256];
} muta;

static bool table_at(muta *m, const fb_vec *v, uint32_t i, fb_table *t) {
  return fb_vec_table(&m->f, v, i, "t", t);
}

static bool set_vec_i32(muta *m, const fb_table *t, uint32_t id, const char *name) {
  fb_vec v;
  if (!fb_vector(t, id, 4, &v) || v.len == 0) return false;
  uint32_t i = pick(v.len);
  uint8_t *at = m->p + v.pos + 4 * i;
  int32_t old = (int32_t)fb_load_u32(at), val = nasty_i32(old);
  put32(at, (uint32_t)val);
  size_t l = strlen(m->what);
  snprintf(m->what + l, sizeof m->what - l, ".%s[%u] = %d (was %d)", name, i, val, old);
  return true;
}

static bool set_scalar(muta *m, const fb_table *t, uint32_t id, uint32_t size, const char *name) {
  uint32_t pos;
  if (!fb_field(t, id, size, &pos) || pos == 0) return false;
  size_t l = strlen(m->what);
  if (size == 1) {
    uint8_t old = m->p[pos], val = (uint8_t)(pick(2) ? next() : (uint64_t)old + 1);
    m->p[pos] = val;
    snprintf(m->what + l, sizeof m->what - l, ".%s = %u (was %u)", name, val, old);
  } else {
    int32_t old = (int32_t)fb_load_u32(m->p + pos), val = nasty_i32(old);
    put32(m->p + pos, (uint32_t)val);
    snprintf(m->what + l, sizeof m->what - l, ".%s = %d (was %d)", name, val, old);
  }
  return true;
}

static bool mutate_tensor(muta *m, fb_table *t) {
  switch (pick(6)) {
  case 0:
  case 1: return set_vec_i32(m, t, T_SHAPE, "shape");
  case 2: return set_scalar(m, t, T_TYPE, 1, "type");
  case 3: return set_scalar(m, t, T_BUFFER, 4, "buffer");
  default: {
    fb_table q;
    bool present;
    if (!fb_subtable(t, T_QUANT, "q", &q, &present) || !present) return false;
    strcat(m->what, ".quantization");
    uint32_t k = pick(3);
    if (k == 2) return set_scalar(m, &q, Q_DIM, 4, "quantized_dimension");
    fb_vec v;
    uint32_t esz = k == 0 ? 4 : 8;
    if (!fb_vector(&q, k == 0 ? Q_SCALE : Q_ZERO_POINT, esz, &v) || v.len == 0) return false;
    uint32_t i = pick(v.len);
    uint8_t *at = m->p + v.pos + esz * i;
    size_t l = strlen(m->what);
    if (k == 0) {
      static const uint32_t bits[] = {0x7fc00000u /* NaN */, 0x7f800000u /* inf */,
                                      0xbf800000u /* -1 */, 0x00000000u, 0x00000001u /* 1e-45 */,
                                      0x7f7fffffu /* FLT_MAX */, 0x3f800000u /* 1 */};
      uint32_t b = bits[pick(sizeof bits / sizeof bits[0])];
      put32(at, b);
      snprintf(m->what + l, sizeof m->what - l, ".scale[%u] = bits 0x%08x", i, b);
    } else {
      int64_t z = (int64_t)NASTY[pick(N_NASTY)] * (pick(2) ? 1 : 4096);
      for (int j = 0; j < 8; j++) at[j] = (uint8_t)((uint64_t)z >> (8 * j));
      snprintf(m->what + l, sizeof m->what - l, ".zero_point[%u] = %lld", i, (long long)z);
    }
    return true;
  }
  }
}

static bool mutate_op(muta *m, fb_table *t) {
  switch (pick(3)) {
  case 0: return set_vec_i32(m, t, OP_INPUTS, "inputs");
  case 1: return set_vec_i32(m, t, OP_OUTPUTS, "outputs");
  default: {
    fb_table o;
    bool present;
    if (!fb_subtable(t, OP_OPTIONS, "o", &o, &present) || !present) return false;
    strcat(m->what, ".builtin_options");
    uint32_t id = pick(8);
    char name[24];
    snprintf(name, sizeof name, "field%u", id);
    /* options fields are bytes (padding, activation) or ints (strides) */
    return set_scalar(m, &o, id, 4, name) || set_scalar(m, &o, id, 1, name);
  }
  }
}

static bool mutate_once(muta *m) {
  fb_table root;
  fb_init(&m->f, m->p, m->n, "in", NULL);
  m->f.budget = UINT64_MAX;
  if (!fb_root(&m->f, "TFL3", &root)) return false;
  fb_vec sgs, bufs, ocs;
  if (!fb_vector(&root, M_SUBGRAPHS, 4, &sgs) || sgs.len == 0) return false;
  m->what[0] = '\0';
  switch (pick(10)) {
  case 0: { /* a buffer made shorter */
    if (!fb_vector(&root, M_BUFFERS, 4, &bufs) || bufs.len == 0) return false;
    uint32_t i = pick(bufs.len);
    fb_table b;
    fb_vec d;
    if (!table_at(m, &bufs, i, &b) || !fb_vector(&b, B_DATA, 1, &d) || d.len == 0) return false;
    uint32_t len = pick(2) ? d.len / 2 : d.len - 1 - pick(d.len < 8 ? d.len : 8);
    put32(m->p + d.pos - 4, len);
    snprintf(m->what, sizeof m->what, "buffers[%u].data: %u bytes (was %u)", i, len, d.len);
    return true;
  }
  case 1: { /* an opcode */
    if (!fb_vector(&root, M_OPCODES, 4, &ocs) || ocs.len == 0) return false;
    uint32_t i = pick(ocs.len);
    fb_table oc;
    if (!table_at(m, &ocs, i, &oc)) return false;
    snprintf(m->what, sizeof m->what, "operator_codes[%u]", i);
    return pick(2) ? set_scalar(m, &oc, OC_BUILTIN, 4, "builtin_code")
                   : set_scalar(m, &oc, OC_DEPRECATED, 1, "deprecated_builtin_code");
  }
  default: break;
  }
  fb_table sg;
  if (!table_at(m, &sgs, 0, &sg)) return false;
  uint32_t k = pick(8);
  if (k == 0) {
    snprintf(m->what, sizeof m->what, "subgraphs[0]");
    return pick(2) ? set_vec_i32(m, &sg, SG_INPUTS, "inputs")
                   : set_vec_i32(m, &sg, SG_OUTPUTS, "outputs");
  }
  fb_vec v;
  bool ops = k >= 5;
  if (!fb_vector(&sg, ops ? SG_OPERATORS : SG_TENSORS, 4, &v) || v.len == 0) return false;
  uint32_t i = pick(v.len);
  fb_table t;
  if (!table_at(m, &v, i, &t)) return false;
  snprintf(m->what, sizeof m->what, "subgraphs[0].%s[%u]", ops ? "operators" : "tensors", i);
  return ops ? mutate_op(m, &t) : mutate_tensor(m, &t);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fputs("usage: mutate IN.tflite SEED OUT.tflite\n", stderr);
    return 2;
  }
  char *end;
  unsigned long long seed = strtoull(argv[2], &end, 10);
  if (*end || !*argv[2]) {
    fprintf(stderr, "mutate: error: seed '%s' is not a number\n", argv[2]);
    return 2;
  }
  muta m;
  memset(&m, 0, sizeof m);
  if (mp_read_file(argv[1], &m.p, &m.n, NULL) != MP_OK) {
    fprintf(stderr, "mutate: error: cannot read %s\n", argv[1]);
    return 2;
  }
  rng = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
  bool done = false;
  for (int tries = 0; tries < 64 && !done; tries++) done = mutate_once(&m);
  if (!done) {
    fprintf(stderr, "mutate: error: found nothing to change in %s\n", argv[1]);
    free(m.p);
    return 2;
  }
  mp_status st = mp_write_file(argv[3], m.p, m.n, NULL);
  free(m.p);
  if (st != MP_OK) {
    fprintf(stderr, "mutate: error: cannot write %s\n", argv[3]);
    return 2;
  }
  printf("%s\n", m.what);
  return 0;
}
