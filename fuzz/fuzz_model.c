/*
 * fuzz_model.c — libFuzzer target for the model reader and the graph
 * analysis.
 *
 * The input is a .tflite file's bytes.  It is parsed; when the reader
 * accepts it, the promises the reader makes to later stages are checked
 * (every tensor, buffer and opcode index in range, every buffer inside the
 * file), and every subgraph goes through mp_graph_build with and
 * without view aliasing, the lower bound at several alignments, and an
 * op-local scratch buffer.  Besides crashes, leaks, out-of-bounds reads and
 * UBSan reports, a broken invariant aborts: a failure without a
 * diagnostic, a reader error without a byte offset, a lifetime outside the
 * operator range, or aliasing that raises the lower bound.
 */
#include "memplan.h"

#include <stdlib.h>
#include <string.h>

typedef struct counts {
  unsigned errors;
  size_t chars;
  int64_t last_offset;
} counts;

/* Count errors, and touch every string so ASan sees a bad pointer. */
static void sink(void *user, const mp_diag *d) {
  counts *c = user;
  if (d->severity == MP_SEV_ERROR) c->errors++;
  c->chars += strlen(d->message);
  if (d->file) c->chars += strlen(d->file);
  c->last_offset = d->byte_offset;
}

static void check(bool ok) {
  if (!ok) abort();
}

static bool index_ok(int32_t t, uint32_t n, bool optional) {
  return (optional && t == -1) || (t >= 0 && (uint32_t)t < n);
}

/* What the reader promises: later stages may index freely. */
static void check_model(const mp_model *m) {
  check(m->n_subgraphs >= 1 && m->version == 3);
  for (uint32_t b = 0; b < m->n_buffers; b++) {
    const mp_buffer_def *bd = &m->buffers[b];
    if (!bd->size) continue;
    check(bd->data >= m->bytes && bd->size <= m->size &&
          (size_t)(bd->data - m->bytes) <= m->size - bd->size);
  }
  for (uint32_t k = 0; k < m->n_metadata; k++) check(m->metadata[k].buffer < m->n_buffers);
  for (uint32_t s = 0; s < m->n_subgraphs; s++) {
    const mp_subgraph_def *sg = &m->subgraphs[s];
    for (uint32_t t = 0; t < sg->n_tensors; t++) {
      const mp_tensor_def *td = &sg->tensors[t];
      check(td->buffer < m->n_buffers || (td->buffer == 0 && m->n_buffers == 0));
      check(td->dtype >= 0 && td->dtype < MP_DTYPE_COUNT && td->name != NULL);
    }
    for (uint32_t o = 0; o < sg->n_ops; o++) {
      const mp_op_def *od = &sg->ops[o];
      check(od->opcode_index < m->n_opcodes && od->builtin_code >= 0);
      for (uint32_t k = 0; k < od->n_inputs; k++) check(index_ok(od->inputs[k], sg->n_tensors, true));
      for (uint32_t k = 0; k < od->n_outputs; k++)
        check(index_ok(od->outputs[k], sg->n_tensors, true));
      for (uint32_t k = 0; k < od->n_intermediates; k++)
        check(index_ok(od->intermediates[k], sg->n_tensors, true));
      check(od->builtin_options_pos < m->size && od->builtin_options_2_pos < m->size);
    }
    for (uint32_t k = 0; k < sg->n_inputs; k++) check(index_ok(sg->inputs[k], sg->n_tensors, false));
    for (uint32_t k = 0; k < sg->n_outputs; k++)
      check(index_ok(sg->outputs[k], sg->n_tensors, false));
  }
}

static void analyse(const mp_model *m, uint32_t s) {
  counts c = {0, 0, -1};
  mp_diag_sink dx = {sink, &c};
  mp_graph *g = NULL, *na = NULL;
  if (mp_graph_build(m, s, NULL, &dx, &g) != MP_OK) {
    check(g == NULL && c.errors >= 1);
    return;
  }
  mp_graph_options no_alias = {.alias_views = false};
  check(mp_graph_build(m, s, &no_alias, &dx, &na) == MP_OK);
  int32_t last = g->n_ops ? (int32_t)g->n_ops - 1 : 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    if (x->alias_of >= 0) {
      check((uint32_t)x->alias_of < g->n_tensors && g->tensors[x->alias_of].alias_of < 0);
      check(g->tensors[x->alias_of].size == x->size);
    }
    if (!mp_graph_needs_slot(g, t)) continue;
    const mp_lifetime *lt = &g->storage[t];
    check(lt->start_op >= 0 && lt->start_op <= lt->end_op && lt->end_op <= last);
  }
  uint64_t lb = mp_graph_lower_bound(g, 16);
  check(lb <= mp_graph_lower_bound(na, 16));
  check(mp_graph_lower_bound(g, 1) <= lb && lb <= mp_graph_lower_bound(g, 4096));
  if (g->n_ops) {
    uint32_t id;
    check(mp_graph_add_local(g, g->n_ops - 1, 24, 32, "local", &id) == MP_OK);
    check(id == g->n_tensors - 1 && mp_graph_needs_slot(g, id));
    uint64_t with_local = mp_graph_lower_bound(g, 16);
    check(with_local >= lb && with_local >= 32);
  }
  mp_graph_free(&na);
  mp_graph_free(&g);
  check(g == NULL && na == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  counts c = {0, 0, -1};
  mp_diag_sink dx = {sink, &c};
  mp_model *m = NULL;
  mp_status st = mp_model_parse(data, size, "fuzz.tflite", &dx, &m);
  if (st != MP_OK) {
    /* a malformed file is named, with the byte offset of the problem */
    check(m == NULL && c.errors >= 1);
    check(st != MP_ERR_MODEL || (c.last_offset >= 0 && (uint64_t)c.last_offset <= UINT32_MAX));
    return 0;
  }
  check_model(m);
  for (uint32_t s = 0; s < m->n_subgraphs; s++) analyse(m, s);
  mp_graph *g = NULL;
  check(mp_graph_build(m, m->n_subgraphs, NULL, NULL, &g) == MP_ERR_CONFIG && g == NULL);
  mp_model_free(&m);
  check(m == NULL);
  return 0;
}
