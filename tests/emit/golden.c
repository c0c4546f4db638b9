/*
 * golden.c — run an emitted module with its kernels against TFLM's golden
 * data and name what differs (see golden.h).
 *
 * One module's run, in order:
 *   1. twice — arenas zeroed, then arenas pre-filled with garbage (scratch
 *      again before every run) — model_init with the hook and callback on,
 *      then cases 0, 1, 2: inputs in, model_run, outputs compared.  During
 *      model_init the hook checks the fixed order (context_init ran, the
 *      operator inits come once each, in order, before any run) and that
 *      every constant input of every operator already holds the model's
 *      bytes: in a staged module that is the hydrated copy in a region the
 *      garbage fill had scrambled, so an init before hydrate_constants
 *      fails.  The same constant check run on the scrambled arena before
 *      model_init must fail (the check can tell);
 *   2. on case 0 the callback compares each operator's outputs with
 *      case0.tensor{t}.bin when the operator finishes: the first mismatch
 *      names the operator, the tensor and the byte;
 *   3. with a clock (the target), an unhooked run of case 0 is timed
 *      ("GOLDEN COUNT"; tiny models repeat it, the input copies timed
 *      apart and taken off) and its outputs checked.
 * The wrong-kernel test (golden_module_wrong_kernel) makes one operator
 * run its own kernel and then change one output byte, and requires the
 * report to name that operator.  The uninitialised-read test
 * (golden_module_uninit_kernel) makes it add what its output slot held
 * before the op (an accumulator never zeroed) and requires the garbage
 * pass to name that operator.
 *
 * C99, no heap; snprintf, memcpy and memset only, so it runs on the bare
 * target.  One module at a time (static state).
 */
#include "golden.h"

#include "garbage.h"
#include "probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct {
  const golden_module *m;
  int in_init;         /* the harness is inside model_init */
  int32_t last_init;   /* the last op an init-phase hook saw, -1 */
  uint32_t inits;      /* init-phase hook calls */
  uint32_t consts;     /* constants checked by init hooks */
  uint32_t staged;     /* ... of them in a staged region */
  int ran;             /* a run-phase hook call happened */
  int compare;         /* case 0: compare every op's outputs */
  int wrong;           /* the wrong kernel is plugged in: 1 one byte flipped,
                          2 the output used as an accumulator (it reads its
                          output before writing it: uninitialised memory) */
  uint8_t prior;       /* mode 2: the byte the output held before the op */
  uint32_t wrong_byte; /* the byte it changed */
  int32_t wrong_tensor;
  int32_t first_op; /* the first op whose output differs, -1 */
  char first[300];  /* what differs there */
  int failed;
  char msg[400];
} S;

static int fail(const char *fmt, ...) {
  if (!S.failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.msg, sizeof S.msg, fmt, ap);
    va_end(ap);
    S.failed = 1;
  }
  return 1;
}

/* The hook's failure code: what the module reports as the kernel's error
 * (never GOLDEN_DEFAULT). */
#define HOOK_FAILED 95

static uint64_t fnv1a(const uint8_t *d, uint32_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint32_t i = 0; i < n; i++) {
    h ^= d[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static float absf(float x) { return x < 0.0f ? -x : x; }

/* The first element where `got` differs from `want` (bytes; float32
 * within 1e-5 relative error), described in msg; -1 when none. */
static int32_t differs(const golden_blob *want, const uint8_t *got, uint32_t row, uint32_t stride,
                       char *msg, size_t n) {
  /* byte b of the tensor: rows of `row` bytes, `stride` apart (one row
   * but for a strided view) */
#define AT(b) (row ? ((b) / row) * stride + (b) % row : (b))
  if (!want->is_float) {
    for (uint32_t b = 0; b < want->size; b++)
      if (got[AT(b)] != want->data[b]) {
        snprintf(msg, n, "byte %u is 0x%02x, TFLM has 0x%02x", (unsigned)b, (unsigned)got[AT(b)],
                 (unsigned)want->data[b]);
        return (int32_t)b;
      }
    return -1;
  }
  for (uint32_t k = 0; k + 4 <= want->size; k += 4) {
    float x, y;
    memcpy(&x, got + AT(k), 4);
    memcpy(&y, want->data + k, 4);
    float big = absf(x) > absf(y) ? absf(x) : absf(y);
    if (!(x == y || absf(x - y) <= 1e-5f * big)) {
      snprintf(msg, n, "element %u is %.9g, TFLM has %.9g", (unsigned)(k / 4), (double)x,
               (double)y);
      return (int32_t)k;
    }
  }
  return -1;
#undef AT
}

/* Fill the regions of the given kinds (bit mask of 1 << GOLDEN_*) with
 * zeros (seed 0) or xorshift garbage. */
static void fill(const golden_module *m, unsigned kinds, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 0x9E3779B9u;
  for (uint32_t r = 0; r < m->n_regions; r++) {
    const golden_region *g = &m->regions[r];
    uint8_t *base = m->region_base(g->id);
    if (!(kinds & (1u << g->kind)) || !base) continue;
    if (!seed) {
      memset(base, 0, g->size);
      continue;
    }
    garbage_fill(base, g->size, &x);
  }
}

static int region_kind(const golden_module *m, int32_t r) {
  for (uint32_t i = 0; r >= 0 && i < m->n_regions; i++)
    if (m->regions[i].id == (uint32_t)r) return m->regions[i].kind;
  return -1;
}

/* Does constant input t of op `op` hold the model's bytes?  0 or a
 * failure (through fail() when `report`). */
static int check_constant(const golden_module *m, uint32_t op, int32_t t, int report) {
  const golden_model *gm = m->model;
  if (t < 0 || (uint32_t)t >= gm->n_tensors || !gm->is_const[t]) return 0;
  uint32_t size = 0;
  int32_t r = m->tensor_region((uint32_t)t, &size);
  if (r < 0) return 0; /* no storage: nothing reads it (a view's shape, say) */
  const uint8_t *d = m->tensor_data((uint32_t)t);
  if (!d)
    return report ? fail("op %u: constant tensor %d '%s' of region %d has no address", (unsigned)op,
                         (int)t, gm->tensor_names[t], (int)r)
                  : 1;
  /* the hash is over the model's bytes: a size the module got wrong
   * shows as a mismatch too */
  uint64_t h = fnv1a(d, size);
  uint64_t want = (uint64_t)gm->const_hash[2 * t] | (uint64_t)gm->const_hash[2 * t + 1] << 32;
  if (h != want)
    return report ? fail("op %u's init: constant tensor %d '%s' (%s region %d) does not hold "
                         "the model's bytes: hydrate_constants has not run before the "
                         "operator inits",
                         (unsigned)op, (int)t, gm->tensor_names[t],
                         region_kind(m, r) == GOLDEN_STAGED ? "staged" : "read-only", (int)r)
                  : 1;
  if (report) {
    S.consts++;
    S.staged += region_kind(m, r) == GOLDEN_STAGED;
  }
  return 0;
}

int32_t golden_kernel(const golden_module *m, uint32_t op, int init, int ready) {
  if (m != S.m || op >= m->n_ops) return HOOK_FAILED;
  golden_op o;
  m->op(op, &o);
  if (init) {
    if (!S.in_init) {
      fail("op %u: an init-phase hook call outside model_init", (unsigned)op);
      return HOOK_FAILED;
    }
    if (S.ran) {
      fail("op %u: an operator init after an operator ran", (unsigned)op);
      return HOOK_FAILED;
    }
    if (!ready) {
      fail("op %u's init: context_init has not run (inputs unset) or the context is already "
           "marked initialised",
           (unsigned)op);
      return HOOK_FAILED;
    }
    if ((int32_t)op <= S.last_init) {
      fail("op %u's init after op %d's: the operator inits are not in order", (unsigned)op,
           (int)S.last_init);
      return HOOK_FAILED;
    }
    if (o.is_view) {
      fail("op %u: the hook saw the init of an aliased view", (unsigned)op);
      return HOOK_FAILED;
    }
    S.last_init = (int32_t)op;
    S.inits++;
    for (uint32_t i = 0; i < o.n_inputs; i++)
      if (check_constant(m, op, o.inputs[i], 1)) return HOOK_FAILED;
    return GOLDEN_DEFAULT;
  }
  S.ran = 1;
  if (!S.wrong || (int32_t)op != m->wrong_op) return GOLDEN_DEFAULT;
  /* the wrong kernel: the module's own, then one output byte changed */
  if (o.n_outputs == 0) return HOOK_FAILED;
  const golden_blob *want = &m->model->tensors[o.outputs[0]];
  uint8_t *out = m->tensor_data((uint32_t)o.outputs[0]);
  if (!out || !want->data || want->size == 0) return HOOK_FAILED;
  uint32_t b = want->size / 2u / 4u * 4u;
  S.prior = out[b];
  int32_t st = m->builtin(op);
  if (st != 0) return st;
  if (S.wrong == 2) {
    /* accumulate into the output as if it had been zeroed: right on a
     * zeroed arena, wrong wherever the slot held something */
    if (want->is_float) {
      float x;
      memcpy(&x, out + b, 4);
      x += (float)S.prior;
      memcpy(out + b, &x, 4);
    } else {
      out[b] = (uint8_t)(out[b] + S.prior);
    }
  } else if (want->is_float) {
    float x;
    memcpy(&x, out + b, 4);
    x += (absf(x) > 1.0f ? absf(x) : 1.0f) * 1e-3f;
    memcpy(out + b, &x, 4);
  } else {
    out[b] ^= 1u; /* the lowest bit of the element at b */
  }
  S.wrong_byte = b;
  S.wrong_tensor = o.outputs[0];
  return 0;
}

void golden_op_finished(const golden_module *m, uint32_t op) {
  if (m != S.m || !S.compare || S.first_op >= 0 || op >= m->n_ops) return;
  golden_op o;
  m->op(op, &o);
  for (uint32_t j = 0; j < o.n_outputs; j++) {
    int32_t t = o.outputs[j];
    if (t < 0 || (uint32_t)t >= m->model->n_tensors) continue;
    const golden_blob *want = &m->model->tensors[t];
    if (!want->data) continue;
    const uint8_t *got = m->tensor_data((uint32_t)t);
    uint32_t row = 0, stride = 0;
    if (m->tensor_rows) m->tensor_rows((uint32_t)t, &row, &stride);
    char what[160];
    if (!got && o.is_view) continue; /* a no-op that writes nothing: a folded PAD, or an
                                         operator a patched stage runs tile by tile */
    if (!got) {
      snprintf(what, sizeof what, "it has no storage");
    } else if (differs(want, got, row, stride, what, sizeof what) < 0) {
      continue;
    }
    S.first_op = (int32_t)op;
    snprintf(S.first, sizeof S.first, "first difference at op %u (%s), output tensor %d '%s': %s",
             (unsigned)op, o.name, (int)t, m->model->tensor_names[t], what);
    return;
  }
}

/* Reset the per-run state for module m. */
static void begin(const golden_module *m) {
  memset(&S, 0, sizeof S);
  S.m = m;
  S.last_init = -1;
  S.first_op = -1;
  S.wrong_tensor = -1;
}

static int32_t init(const golden_module *m, int hooked) {
  S.in_init = 1;
  S.ran = 0;
  S.last_init = -1;
  S.inits = S.consts = S.staged = 0;
  int32_t st = m->init(hooked);
  S.in_init = 0;
  return st;
}

static int put_inputs(const golden_module *m, int k) {
  const golden_model *gm = m->model;
  for (uint32_t i = 0; i < gm->n_inputs; i++) {
    size_t size;
    void *d = m->io(0, i, &size);
    const golden_blob *b = &gm->inputs[(uint32_t)k * gm->n_inputs + i];
    if (!d || size != b->size)
      return fail("case %d input %u: %u bytes in the module, %u in the golden data", k, (unsigned)i,
                  (unsigned)size, (unsigned)b->size);
    memcpy(d, b->data, size);
  }
  return 0;
}

static int check_outputs(const golden_module *m, int k) {
  const golden_model *gm = m->model;
  for (uint32_t j = 0; j < gm->n_outputs; j++) {
    size_t size;
    const uint8_t *d = m->io(1, j, &size);
    const golden_blob *b = &gm->outputs[(uint32_t)k * gm->n_outputs + j];
    char what[160];
    if (!d || size != b->size)
      return fail("case %d output %u: %u bytes in the module, %u in the golden data", k,
                  (unsigned)j, (unsigned)size, (unsigned)b->size);
    if (differs(b, d, 0, 0, what, sizeof what) >= 0)
      return fail("case %d output %u: %s", k, (unsigned)j, what);
  }
  return 0;
}

/* The non-view operators: the init-phase hook calls model_init must make. */
static uint32_t hooked_ops(const golden_module *m) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->n_ops; i++) {
    golden_op o;
    m->op(i, &o);
    n += !o.is_view;
  }
  return n;
}

/* Constants of staged regions that do not hold the model's bytes now. */
static uint32_t stale_staged(const golden_module *m, uint32_t *n_staged) {
  uint32_t stale = 0;
  *n_staged = 0;
  for (uint32_t t = 0; t < m->model->n_tensors; t++) {
    uint32_t size;
    if (!m->model->is_const[t] || region_kind(m, m->tensor_region(t, &size)) != GOLDEN_STAGED)
      continue;
    (*n_staged)++;
    stale += check_constant(m, 0, (int32_t)t, 0) != 0;
  }
  return stale;
}

/* Pass `garbage` (0: zeroed arenas) of golden_module_run. */
static int one_pass(const golden_module *m, int garbage, uint32_t *n_consts, uint32_t *n_staged) {
  const unsigned all = 1u << GOLDEN_SCRATCH | 1u << GOLDEN_PERSISTENT | 1u << GOLDEN_STAGED;
  fill(m, all, garbage ? 7u : 0u);
  if (garbage) {
    uint32_t staged = 0, stale = stale_staged(m, &staged);
    if (stale != staged)
      return fail("the constant check passes on %u of %u staged constants before model_init "
                  "on a garbage-filled arena: it cannot tell hydrated from not",
                  (unsigned)(staged - stale), (unsigned)staged);
  }
  int32_t st = init(m, 1);
  if (S.failed) return 1;
  if (st != 0) return fail("model_init returned %d (op %d)", (int)st, (int)m->failed_op());
  if (S.inits != hooked_ops(m))
    return fail("model_init made %u init-phase hook calls for %u operators", (unsigned)S.inits,
                (unsigned)hooked_ops(m));
  *n_consts = S.consts;
  *n_staged = S.staged;
  for (int k = 0; k < 3; k++) {
    if (garbage) fill(m, 1u << GOLDEN_SCRATCH, 11u + (uint32_t)k);
    if (put_inputs(m, k)) return 1;
    S.compare = k == 0;
    S.first_op = -1;
    st = m->run();
    S.compare = 0;
    if (S.failed) return 1;
    if (st != 0)
      return fail("case %d: model_run returned %d at op %d", k, (int)st, (int)m->failed_op());
    if (S.first_op >= 0)
      return fail("case 0, %s arenas: %s", garbage ? "garbage" : "zeroed", S.first);
    if (check_outputs(m, k)) return 1;
  }
  /* a new stream: after reset_state, case 0 gives case 0's outputs again
   * (for a stateful model, only if every variable tensor was zeroed) */
  st = m->reset_state();
  if (st != 0) return fail("reset_state returned %d", (int)st);
  if (garbage) fill(m, 1u << GOLDEN_SCRATCH, 17u);
  if (put_inputs(m, 0)) return 1;
  st = m->run();
  if (S.failed) return 1;
  if (st != 0)
    return fail("case 0 after reset_state: model_run returned %d at op %d", (int)st,
                (int)m->failed_op());
  if (check_outputs(m, 0)) {
    char msg[sizeof S.msg];
    snprintf(msg, sizeof msg, "after reset_state, %.360s", S.msg);
    memcpy(S.msg, msg, sizeof msg);
    return 1;
  }
  return 0;
}

/* Time case 0 without hook or callback (its outputs checked too); fills
 * `line` with GOLDEN COUNT.  0, or 1 through fail(). */
static int count(const golden_module *m, char *line, size_t n) {
  uint64_t t0, t1, t2;
  line[0] = '\0';
  if (!golden_clock(&t0)) return 0;
  int32_t st = init(m, 0);
  if (st != 0) return fail("model_init without hook returned %d", (int)st);
  if (put_inputs(m, 0)) return 1;
  golden_clock(&t0);
  st = m->run();
  golden_clock(&t1);
  if (st != 0)
    return fail("model_run without hook returned %d at op %d", (int)st, (int)m->failed_op());
  uint64_t ticks = t1 - t0;
  uint32_t runs = 1;
  if (ticks < 100000u) {
    /* a tiny model: many runs, each after its inputs are copied again (a
     * plan may reuse the input's bytes) and its state reset (a stateful
     * model must see case 0 from zero each time); the copies and resets
     * alone are timed first */
    runs = ticks ? (uint32_t)(100000u / ticks) + 1u : 1000u;
    if (runs > 1000u) runs = 1000u;
    golden_clock(&t0);
    for (uint32_t i = 0; i < runs; i++) {
      put_inputs(m, 0);
      m->reset_state();
    }
    golden_clock(&t1);
    for (uint32_t i = 0; i < runs; i++) {
      put_inputs(m, 0);
      m->reset_state();
      m->run();
    }
    golden_clock(&t2);
    ticks = (t2 - t1) - (t1 - t0); /* the outputs are the last run's */
  }
  if (check_outputs(m, 0)) return 1;
  snprintf(line, n, "GOLDEN COUNT %s %lu %lu", m->name, (unsigned long)ticks, (unsigned long)runs);
  return 0;
}

int golden_module_run(const golden_module *m) {
  char line[600], counted[200];
  uint32_t consts = 0, staged = 0;
  begin(m);
  for (int garbage = 0; garbage < 2 && !S.failed; garbage++)
    one_pass(m, garbage, &consts, &staged);
  if (!S.failed) count(m, counted, sizeof counted);
  if (S.failed) {
    snprintf(line, sizeof line, "GOLDEN FAIL %s (%s): %s", m->name, m->what, S.msg);
    probe_print(line);
    return 1;
  }
  snprintf(line, sizeof line,
           "GOLDEN PASS %s (%s): cases 0-2 in sequence, then case 0 after reset_state, on "
           "zeroed and on garbage arenas give TFLM's outputs, case 0 TFLM's tensor after every "
           "op; %u op inits, in order after "
           "hydrate, saw %u constants (%u staged) hold the model's bytes",
           m->name, m->what, (unsigned)hooked_ops(m), (unsigned)consts, (unsigned)staged);
  probe_print(line);
  if (counted[0]) probe_print(counted);
  return 0;
}

int golden_module_wrong_kernel(const golden_module *m) {
  char line[700];
  if (m->wrong_op < 0) return 0;
  begin(m);
  golden_op o;
  m->op((uint32_t)m->wrong_op, &o);
  int32_t st = init(m, 1);
  if (!S.failed && st != 0) fail("model_init returned %d", (int)st);
  if (!S.failed && !put_inputs(m, 0)) {
    S.wrong = 1;
    S.compare = 1;
    st = m->run();
    S.wrong = S.compare = 0;
    if (!S.failed && st != 0) fail("model_run returned %d at op %d", (int)st, (int)m->failed_op());
    if (!S.failed && S.wrong_tensor < 0)
      fail("the wrong kernel at op %d never ran", (int)m->wrong_op);
    if (!S.failed && S.first_op != m->wrong_op)
      fail("a wrong kernel at op %d (%s) changed byte %u of tensor %d, but the report says: %s",
           (int)m->wrong_op, o.name, (unsigned)S.wrong_byte, (int)S.wrong_tensor,
           S.first_op < 0 ? "no difference" : S.first);
  }
  if (S.failed) {
    snprintf(line, sizeof line, "GOLDEN FAIL %s (%s): wrong-kernel test: %s", m->name, m->what,
             S.msg);
    probe_print(line);
    return 1;
  }
  snprintf(line, sizeof line,
           "GOLDEN CAUGHT %s: a wrong kernel at op %d (%s) changing byte %u "
           "of tensor %d is reported as: %s",
           m->name, (int)m->wrong_op, o.name, (unsigned)S.wrong_byte, (int)S.wrong_tensor, S.first);
  probe_print(line);
  return 0;
}

int golden_module_uninit_kernel(const golden_module *m) {
  char line[700];
  if (m->wrong_op < 0) return 0;
  begin(m);
  golden_op o;
  m->op((uint32_t)m->wrong_op, &o);
  /* the garbage pass of golden_module_run: arenas scrambled before
   * model_init, scratch again before the run */
  const unsigned all = 1u << GOLDEN_SCRATCH | 1u << GOLDEN_PERSISTENT | 1u << GOLDEN_STAGED;
  fill(m, all, 7u);
  int32_t st = init(m, 1);
  if (!S.failed && st != 0) fail("model_init returned %d", (int)st);
  fill(m, 1u << GOLDEN_SCRATCH, 11u);
  if (!S.failed && !put_inputs(m, 0)) {
    S.wrong = 2;
    S.compare = 1;
    st = m->run();
    S.wrong = S.compare = 0;
    if (!S.failed && st != 0) fail("model_run returned %d at op %d", (int)st, (int)m->failed_op());
    if (!S.failed && S.wrong_tensor < 0)
      fail("the uninitialised-read kernel at op %d never ran", (int)m->wrong_op);
    if (!S.failed && S.prior == 0)
      fail("op %d's output slot held 0 before the op: the demonstration needs another byte",
           (int)m->wrong_op);
    if (!S.failed && S.first_op != m->wrong_op)
      fail("a kernel at op %d (%s) reading its output before writing it went unnoticed on "
           "garbage arenas: the report says %s",
           (int)m->wrong_op, o.name, S.first_op < 0 ? "no difference" : S.first);
  }
  if (S.failed) {
    snprintf(line, sizeof line, "GOLDEN FAIL %s (%s): uninitialised-read test: %s", m->name,
             m->what, S.msg);
    probe_print(line);
    return 1;
  }
  snprintf(line, sizeof line,
           "GOLDEN CAUGHT %s: a kernel at op %d (%s) that reads its output before writing it "
           "(byte %u held 0x%02x) is reported on garbage arenas as: %s",
           m->name, (int)m->wrong_op, o.name, (unsigned)S.wrong_byte, (unsigned)S.prior, S.first);
  probe_print(line);
  return 0;
}
