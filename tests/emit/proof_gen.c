/*
 * proof_gen.c — writes every module of the emit proof, the probe glue of
 * each, and the makefile that builds them for the host and the target
 * (tests/suite_emit_proof.sh drives it).
 *
 *   proof_gen OUT [--models DIR] [--golden DIR] [--example PATH] [--broken]
 *             [--filter REGEX] [--jobs N]
 *
 * For every model (the shared corpus in DIR, the bundled example, the
 * fixtures and two random DAGs), every planner of the table and five
 * configurations (everything in dtcm; constants cold in mram; constants
 * staged mram -> dtcm; a dtcm budget of half the scratch arena, forcing a
 * spill to sram; allocate_arenas false with half the constants cold and
 * half staged, the caller binding every region) — and, for the golden
 * models, a sixth: constants cold with memory.in_place (its graph as convert
 * builds it: PADs folded, copies made views), whose modules run
 * only with their real kernels against TFLM — it plans, verifies and
 * emits a module with mp_emit_module (and, for a model that
 * memory.op_order min_peak would run in another order, two more modules of
 * the graph built in that order, first planner, constants cold and in
 * place), then writes the module's probe glue
 * (probe/glue.c): what every tensor must hold and every operator reads and
 * writes, taken from the model and the graph — never from the plan — and
 * adapters from probe.h to the module's typed API.
 *
 * With --golden DIR, every corpus model whose operators all have kernels
 * and that has golden data gets OUT/golden/<model>.c (TFLM's three cases,
 * case 0's tensor after every operator, the constants' hashes and the
 * tensor names: golden.h's golden_model), and each of its modules with
 * constants cold, staged and in place, for every planner (and, converted for
 * module.target cortex-m55 with the first planner, three more: the
 * specialised kernels, <prefix>_m55; and, when memory.in_place there runs
 * depthwise convolutions channel by channel, a fourth with memory.in_place
 * speed, <model>_speed, which runs none), gets probe/golden.c: the
 * module's own sources in one translation unit, compiled with its
 * kernels (<P>_WITH_KERNELS), and adapters to golden.h.  The first
 * planner's cold module of each model also carries the wrong-kernel test
 * (its middle operator) and gets probe/size_place.h for the code-size
 * build.
 *
 * Then OUT/build.mk: explicit rules for one host test binary (gcc, ASan +
 * UBSan) holding every module, clang and Cortex-M4 compile checks, the
 * golden host binary, golden Cortex-M55 images and golden Cortex-M4F
 * images (QEMU's mps2-an386, tests/target/an386.ld: the first planner's
 * golden modules, generic with the reference kernels and converted for
 * cortex-m55, whose specialised kernels take their DSP paths there) — the
 * kernels compiled once per core and linked into all of them — the
 * code-size ELFs, and
 * Cortex-M55 images for QEMU's mps3-an547, the modules packed into images
 * so that each image's arenas fit the board's DTCM, SRAM and QSPI.  A
 * probed module is one translation unit (its glue includes the module's
 * sources) to keep the build fast; a golden module's arenas (a corpus
 * model's weights, most of the bytes to compile) are compiled once per
 * core and linked into both its probe and its golden binaries.
 *
 * --jobs N proves N models at a time, each in a child process of its own;
 * the modules, the images and the printed lines are those of proving one
 * model after the other.
 *
 * --broken writes one module whose plan has two live scratch tensors
 * forced onto the same bytes, and one in-place module whose output sits
 * closer to its input than its kernel's contract allows, both emitted
 * without the verifier: their proofs must fail and name the operator and
 * the tensor.
 */
#include "emit/emit.h"
#include "fixtures.h"
#include "graph/patch.h"
#include "lower/lower.h"
#include "testutil.h"
#include "util/file.h"
#include "util/util.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { C_DTCM, C_COLD, C_STAGED, C_SPILL, C_BOUND, C_INPLACE, C_COUNT };
static const char *const config_names[C_COUNT] = {"dtcm",  "cold",  "staged",
                                                  "spill", "bound", "inplace"};

/* Target memories of the an547 image (tests/target/an547.ld). */
enum { T_DTCM, T_SRAM, T_QSPI, T_COUNT };
static const uint64_t target_capacity[T_COUNT] = {512u * 1024u - 256u, 4096u * 1024u - 256u,
                                                  8192u * 1024u - 256u};
#define MAX_PER_IMAGE 32

typedef struct modrec {
  char prefix[64];
  char what[200];
  bool bound;
  bool compile_checks;      /* also compiled with clang and for Cortex-M4 */
  bool golden;              /* also built with its kernels against TFLM's outputs */
  bool sized;               /* also built on its own for the code-size report */
  bool strong;              /* the glue defines <p>_hydrate_constants (probe/hydrate.c) */
  bool probed;              /* run with the probe kernels (in-place modules: golden only) */
  uint64_t need[T_COUNT];
  int image;
  int gmodel;               /* golden: its model in gmodels[] */
  int gimage;               /* golden: its Cortex-M55 image */
  bool m4f;                 /* golden, first planner: also run on the Cortex-M4F */
  bool split_arenas;        /* golden: <p>_arenas.c (a corpus model's weights) compiled once
                             * per core, linked into the probe and the golden binaries */
  int gimage4;              /* m4f: its Cortex-M4F image */
} modrec;

/* A corpus model run against its golden data (OUT/golden/<short>.c). */
typedef struct gmodel_rec {
  char name[128];  /* the model's file name without .tflite */
  char sym[48];    /* golden_model_<sym> */
  uint64_t bytes;  /* its golden data, for packing the target images */
  uint32_t n_modules;
} gmodel_rec;
#define MAX_GMODELS 64
static gmodel_rec gmodels[MAX_GMODELS];
static int n_gmodels;

static modrec *mods;
static size_t n_mods, cap_mods;
static const char *out_dir;
static const char *golden_dir; /* ../shared/golden, or NULL */
static char out_abs[PATH_MAX];
static int n_failed;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("proof_gen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\n", stderr);
  va_end(ap);
  exit(2);
}

static void print_diag(void *user, const mp_diag *d) {
  (void)user;
  if (d->severity == MP_SEV_ERROR) fprintf(stderr, "  error: %s\n", d->message);
}
static const mp_diag_sink sink = {print_diag, NULL};

static void write_text(const char *path, const mp_buf *b) {
  if (b->failed) die("out of memory writing %s", path);
  if (mp_write_file(path, b->data ? b->data : "", b->len, &sink) != MP_OK) die("cannot write %s", path);
}

/* Append `text` with every "@p" replaced by the prefix and "@P" by its
 * upper case. */
static void tpl(mp_buf *b, const char *text, const char *prefix, const char *up) {
  for (const char *s = text; *s; s++) {
    if (s[0] == '@' && (s[1] == 'p' || s[1] == 'P')) {
      mp_buf_puts(b, s[1] == 'p' ? prefix : up);
      s++;
    } else {
      mp_buf_putc(b, *s);
    }
  }
}

/* A path in a static buffer (one at a time). */
static const char *pathf(const char *fmt, ...) {
  static char buf[PATH_MAX + 256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

/* ---- configurations -------------------------------------------------------- */

typedef struct cfg {
  mp_memory_args a;
  mp_constraint cons[3];
  mp_rule rules[2];
  mp_option opts[1];
  char **ids;
} cfg;

static void cfg_free(cfg *c) {
  for (uint32_t i = 0; c->ids && i < c->rules[1].n_ids; i++) free(c->ids[i]);
  free(c->ids);
}

/* `spill_budget`: C_SPILL's dtcm max_size. */
static void make_config(cfg *c, int which, const mp_planner *pl, const mp_graph *g,
                        uint64_t spill_budget) {
  memset(c, 0, sizeof *c);
  c->a.planner = (char *)pl->name;
  c->a.allocate_arenas = which != C_BOUND;
  c->a.auto_hydrate_constants = true;
  c->a.dump_residency_json = true;
  if (!strcmp(pl->name, "exact")) {
    c->opts[0] = (mp_option){(char *)"time_limit_ms", 50};
    c->a.options = c->opts;
    c->a.n_options = 1;
  }
  c->a.constraints = c->cons;
  c->a.rules = c->rules;
  c->cons[0] = (mp_constraint){MP_MEM_DTCM, false, 0, 0};
  c->cons[1] = (mp_constraint){MP_MEM_SRAM, false, 0, 0};
  c->a.n_constraints = 2;
  mp_rule *r = &c->rules[0];
  r->type = MP_ROLE_CONSTANT;
  r->attributes.has_memory = true;
  r->attributes.memory = MP_MEM_MRAM;
  c->a.n_rules = 1;
  switch (which) {
  case C_DTCM:
    c->a.n_constraints = 1;
    r->type = MP_RULE_ANY_TYPE;
    r->attributes.memory = MP_MEM_DTCM;
    break;
  case C_COLD: break;
  case C_INPLACE: c->a.in_place = true; break;
  case C_STAGED:
    r->attributes.has_constant_destination_memory = true;
    r->attributes.constant_destination_memory = MP_MEM_DTCM;
    break;
  case C_SPILL:
    c->cons[0] = (mp_constraint){MP_MEM_DTCM, true, spill_budget, 32};
    c->cons[1] = (mp_constraint){MP_MEM_SRAM, false, 0, 64};
    break;
  case C_BOUND: {
    /* every other constant staged into dtcm, the rest cold in mram */
    uint32_t n = 0;
    for (uint32_t t = 0; t < g->n_tensors; t++)
      n += g->tensors[t].role == MP_ROLE_CONSTANT && g->tensors[t].used;
    c->ids = calloc(n + 1, sizeof(char *));
    mp_rule *s = &c->rules[1];
    s->type = MP_ROLE_CONSTANT;
    s->ids = c->ids;
    s->attributes.has_constant_destination_memory = true;
    s->attributes.constant_destination_memory = MP_MEM_DTCM;
    uint32_t k = 0;
    for (uint32_t t = 0; t < g->n_tensors; t++) {
      if (g->tensors[t].role != MP_ROLE_CONSTANT || !g->tensors[t].used) continue;
      if (k++ % 2) continue;
      char buf[16];
      snprintf(buf, sizeof buf, "%u", t);
      c->ids[s->n_ids++] = strdup(buf);
    }
    if (s->n_ids) c->a.n_rules = 2;
    break;
  }
  }
}

/* ---- the probe glue -------------------------------------------------------- */

static uint32_t tmem(mp_memory m) {
  return m == MP_MEM_DTCM ? T_DTCM : m == MP_MEM_MRAM ? T_QSPI : T_SRAM;
}
static const char *tsec(uint32_t t) { return t == T_DTCM ? "dtcm" : t == T_QSPI ? "mram" : "sram"; }

typedef struct region_info {
  char enum_name[128];
  char symbol[160];
  uint64_t size;
  uint32_t align;
  bool writable, persistent, is_const;
  mp_memory memory;
  uint32_t guard;
} region_info;

/* The upper-case name of a seed memory (the proof plans on the Ambiq
 * platforms only). */
static const char *seed_upper(mp_memory m) {
  static const char *const up[MP_MEM_FIRST_NAMED] = {"DTCM", "ITCM", "MRAM", "PSRAM", "SRAM"};
  return (unsigned)m < MP_MEM_FIRST_NAMED ? up[m] : "UNKNOWN";
}

/* The regions as the module must number them (emit.c, and the header's region enum), derived
 * here from the plan's arenas independently of the emitter. */
static uint32_t regions_of(const mp_plan *p, const char *prefix, const char *up, region_info *r) {
  static const char *const role_up[] = {"SCRATCH", "PERSISTENT", "CONST"};
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->n_arenas; i++, n++) {
    const mp_arena *a = &p->arenas[i];
    memset(&r[n], 0, sizeof r[n]);
    snprintf(r[n].enum_name, sizeof r[n].enum_name, "%s_REGION_%s_%s", up, role_up[a->role],
             seed_upper(a->memory));
    mp_arena_symbol(p, prefix, a, false, r[n].symbol, sizeof r[n].symbol);
    r[n].size = a->total_size;
    r[n].align = a->alignment;
    r[n].is_const = a->role == MP_ROLE_CONSTANT && !a->is_staged;
    r[n].writable = !r[n].is_const;
    r[n].persistent = a->role == MP_ROLE_PERSISTENT;
    r[n].memory = a->memory;
  }
  for (uint32_t i = 0; i < p->n_arenas; i++) {
    const mp_arena *a = &p->arenas[i];
    if (!a->is_staged) continue;
    memset(&r[n], 0, sizeof r[n]);
    snprintf(r[n].enum_name, sizeof r[n].enum_name, "%s_REGION_CONST_%s_SOURCE", up,
             seed_upper(a->memory));
    mp_arena_symbol(p, prefix, a, true, r[n].symbol, sizeof r[n].symbol);
    r[n].size = a->total_size;
    r[n].align = a->alignment;
    r[n].is_const = true;
    r[n].memory = a->source_memory;
    n++;
  }
  for (uint32_t i = 0; i < n; i++) r[i].guard = r[i].align > 64 ? r[i].align : 64;
  return n;
}

static uint64_t fnv(const uint8_t *d, uint64_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint64_t i = 0; i < n; i++) {
    h ^= d[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* What tensor t must hold, from the model and the graph alone. */
static int tensor_kind(const mp_graph *g, uint32_t t, const bool *written) {
  const mp_tensor *x = &g->tensors[t];
  if (!x->used || x->size == 0) return 0;                  /* PROBE_NONE */
  if (x->role == MP_ROLE_CONSTANT) return 1;               /* PROBE_CONST */
  if (x->role == MP_ROLE_PERSISTENT) return 4;             /* PROBE_PERSISTENT */
  if (x->is_input) return 2;                               /* PROBE_INPUT */
  if (x->alias_of >= 0 || written[t]) return 3;            /* PROBE_PRODUCED */
  return 5;                                                /* PROBE_UNWRITTEN */
}

/* The in-place walks of op i (probe.h's probe_walk): for each overlap
 * contract its kernel declares between an input and output 0, how the
 * kernel's loops visit the pair, from the lowered operator.  Returns how
 * many were written to w (at most 2). */
typedef struct walk_rec {
  int kind;
  uint32_t in, ib, ob;
  int32_t n[18];
} walk_rec;

/* A patched stage's walk: tile by tile, the input pixels its calls read
 * and the output tile its last layer writes, from the calls the module
 * makes (mp_patch_tile_call), never from the stage's contract.  tiles
 * (when not NULL) gets 8 values per tile. */
static uint32_t stage_walk(const mp_graph *g, uint32_t i, walk_rec *w, int32_t *tiles) {
  const mp_patch *s = mp_patch_at(g, i);
  if (!s || s->head != i) return 0;
  const mp_patch_tensor *ti = &s->tensors[0], *to = &s->tensors[s->n_tensors - 1];
  uint32_t L = s->n_layers;
  memset(w, 0, sizeof *w);
  w->kind = 10;
  w->in = 0; /* the head's input 0 is the stage's input */
  if (g->ops[i].n_inputs < 1 || g->ops[i].inputs[0] != ti->tensor) return 0;
  w->ib = w->ob = (uint32_t)ti->elem;
  if (to->elem != ti->elem) return 0;
  w->n[0] = (int32_t)s->n_tiles;
  w->n[1] = ti->w;
  w->n[2] = ti->c;
  w->n[3] = to->w;
  w->n[4] = to->c;
  for (uint32_t t = 0; tiles && t < s->n_tiles; t++) {
    int32_t *r = tiles + 8 * t;
    int32_t y0 = INT32_MAX, y1 = INT32_MIN, x0 = INT32_MAX, x1 = INT32_MIN;
    memset(r, 0, 8 * sizeof *r);
    for (uint32_t l = 0; l < L; l++) {
      mp_patch_call c;
      mp_patch_tile_call(s, t, l, &c);
      if (c.skip) continue;
      const mp_patch_layer *ly = &s->layers[l];
      for (uint32_t k = 0; k < ly->n_in; k++) {
        if (ly->in[k] != 0) continue;
        int32_t a0, a1, b0, b1; /* the input pixels the call reads */
        if (ly->window) {
          const mpk_conv_geom *G = &c.geom;
          int32_t dh = G->dilation_h > 0 ? G->dilation_h : 1, dw = G->dilation_w > 0 ? G->dilation_w : 1;
          a0 = -G->pad_h;
          a1 = (G->out_h - 1) * G->stride_h - G->pad_h + (G->filter_h - 1) * dh + 1;
          b0 = -G->pad_w;
          b1 = (G->out_w - 1) * G->stride_w - G->pad_w + (G->filter_w - 1) * dw + 1;
          a0 = a0 < 0 ? 0 : a0;
          b0 = b0 < 0 ? 0 : b0;
          a1 = a1 > G->in_h ? G->in_h : a1;
          b1 = b1 > G->in_w ? G->in_w : b1;
        } else {
          int64_t px = c.in_off[k] / ti->c;
          a0 = (int32_t)(px / ti->w);
          b0 = (int32_t)(px % ti->w);
          a1 = a0 + c.rows;
          b1 = b0 + c.row_elems / ti->c;
        }
        if (a1 <= a0 || b1 <= b0) continue;
        y0 = a0 < y0 ? a0 : y0;
        y1 = a1 > y1 ? a1 : y1;
        x0 = b0 < x0 ? b0 : x0;
        x1 = b1 > x1 ? b1 : x1;
      }
      if (l == L - 1) {
        int64_t px = ly->window ? c.out_off / to->c : c.out_off / to->c;
        r[4] = (int32_t)(px / to->w);
        r[6] = (int32_t)(px % to->w);
        r[5] = r[4] + (ly->window ? c.geom.out_h : c.rows);
        r[7] = r[6] + (ly->window ? c.geom.out_w : c.row_elems / to->c);
      }
    }
    if (y1 > y0) {
      r[0] = y0;
      r[1] = y1;
      r[2] = x0;
      r[3] = x1;
    }
  }
  return 1;
}

static uint32_t op_walks(const mp_graph *g, uint32_t i, walk_rec *w) {
  const mp_op *op = &g->ops[i];
  mp_lowered_op lo;
  uint32_t nw = 0;
  if (op->n_outputs < 1 || op->outputs[0] < 0) return 0;
  if (op->patch_head) return stage_walk(g, i, w, NULL);
  if (mp_lower_op(g, i, &lo, NULL) != MP_OK || !lo.supported) {
    mp_lower_free(&lo);
    return 0;
  }
  for (uint32_t q = 0; q < lo.n_overlaps && nw < 2; q++) {
    int32_t tin = lo.args[lo.overlaps[q].in_arg].tensor, tout = lo.args[lo.overlaps[q].out_arg].tensor;
    if (tout != op->outputs[0]) continue;
    uint32_t k = 0;
    while (k < op->n_inputs && op->inputs[k] != tin) k++;
    if (k == op->n_inputs) continue;
    walk_rec *r = &w[nw];
    memset(r, 0, sizeof *r);
    r->in = k;
    r->ib = mp_dtype_bits(g->tensors[tin].dtype) / 8;
    r->ob = mp_dtype_bits(g->tensors[tout].dtype) / 8;
    const mpk_conv_geom *cg = NULL;
    switch (lo.kernel) {
    case MP_K_CONV2D_S8:
    case MP_K_CONV2D_S16:
    case MP_K_CONV2D_S16_ACC32: cg = &lo.params.conv_s8.geom; r->kind = 3; break;
    case MP_K_CONV2D_F32: cg = &lo.params.conv_f32.geom; r->kind = 3; break;
    case MP_K_DEPTHWISE_CONV2D_S8:
    case MP_K_DEPTHWISE_CONV2D_S16: cg = &lo.params.conv_s8.geom; r->kind = 4; break;
    /* the specialised kernels (mpk_*_fast.c): depthwise and pooling read
     * a block of channels' windows before writing the block, ADD and MUL
     * four elements before writing them: never later than the reference
     * walks read, so those walks hold for them */
    case MP_K_DEPTHWISE_CONV2D_S8_FAST: cg = &lo.params.conv_s8_fast.geom; r->kind = 4; break;
    case MP_K_AVG_POOL2D_S8_FAST:
    case MP_K_MAX_POOL2D_S8_FAST: cg = &lo.params.pool_s8.geom; r->kind = 4; break;
    case MP_K_CONV2D_S8_1X1:
    case MP_K_CONV2D_S8_IM2COL:
      cg = &lo.params.conv_s8_fast.geom;
      r->kind = 6;
      r->n[16] = lo.kernel == MP_K_CONV2D_S8_1X1; /* still read while written */
      break;
    case MP_K_FULLY_CONNECTED_S8_FAST:
      r->kind = 7;
      r->n[0] = lo.params.fc_s8_fast.batches;
      r->n[1] = lo.params.fc_s8_fast.accum_depth;
      r->n[2] = lo.params.fc_s8_fast.out_depth;
      break;
    case MP_K_DEPTHWISE_CONV2D_F32: cg = &lo.params.conv_f32.geom; r->kind = 4; break;
    /* the specialised serial kernel walks as the reference one */
    case MP_K_DEPTHWISE_CONV2D_S8_SERIAL:
    case MP_K_DEPTHWISE_CONV2D_S8_SERIAL_FAST:
    case MP_K_DEPTHWISE_CONV2D_S16_SERIAL: cg = &lo.params.conv_s8.geom; r->kind = 9; break;
    case MP_K_DEPTHWISE_CONV2D_F32_SERIAL: cg = &lo.params.conv_f32.geom; r->kind = 9; break;
    case MP_K_AVG_POOL2D_S8:
    case MP_K_MAX_POOL2D_S8:
    case MP_K_AVG_POOL2D_S16:
    case MP_K_MAX_POOL2D_S16: cg = &lo.params.pool_s8.geom; r->kind = 4; break;
    case MP_K_AVG_POOL2D_F32:
    case MP_K_MAX_POOL2D_F32: cg = &lo.params.pool_f32.geom; r->kind = 4; break;
    case MP_K_PAD:
      r->kind = 5;
      r->ib = r->ob = (uint32_t)lo.params.pad.elem_size;
      memcpy(r->n, lo.params.pad.in_dims, 6 * sizeof(int32_t));
      memcpy(r->n + 6, lo.params.pad.out_dims, 6 * sizeof(int32_t));
      memcpy(r->n + 12, lo.params.pad.before, 6 * sizeof(int32_t));
      break;
    case MP_K_STRIDED_COPY:
      r->kind = 8;
      r->ib = r->ob = (uint32_t)lo.params.strided_copy.elem_size;
      r->n[0] = lo.params.strided_copy.in_offset;
      memcpy(r->n + 1, lo.params.strided_copy.dims, 6 * sizeof(int32_t));
      memcpy(r->n + 7, lo.params.strided_copy.in_strides, 6 * sizeof(int32_t));
      break;
    case MP_K_FULLY_CONNECTED_S8:
    case MP_K_FULLY_CONNECTED_S16:
      r->kind = 2;
      r->n[0] = lo.params.fc_s8.batches;
      r->n[1] = lo.params.fc_s8.accum_depth;
      r->n[2] = lo.params.fc_s8.out_depth;
      break;
    case MP_K_FULLY_CONNECTED_F32:
      r->kind = 2;
      r->n[0] = lo.params.fc_f32.batches;
      r->n[1] = lo.params.fc_f32.accum_depth;
      r->n[2] = lo.params.fc_f32.out_depth;
      break;
    default:
      r->kind = 1;
      r->n[0] = r->ob ? (int32_t)(g->tensors[tout].size / r->ob) : 0;
      break;
    }
    if (cg) {
      int32_t v[16] = {cg->batches,  cg->in_h,     cg->in_w,     cg->in_c,
                       cg->out_h,    cg->out_w,    cg->out_c,    cg->filter_h,
                       cg->filter_w, r->kind == 3 || r->kind == 6 ? cg->filter_c : 0,
                       cg->stride_h, cg->stride_w, cg->dilation_h, cg->dilation_w,
                       cg->pad_h,    cg->pad_w};
      if (r->kind == 4 || r->kind == 9) {
        bool pool = cg->depth_multiplier == 0;
        v[9] = pool ? 1 : cg->depth_multiplier;
        if (pool) v[12] = v[13] = 1;
      }
      memcpy(r->n, v, sizeof v);
    }
    nw++;
  }
  mp_lower_free(&lo);
  return nw;
}

static uint32_t walk_count(const mp_graph *g, uint32_t i) {
  walk_rec w[2];
  return op_walks(g, i, w);
}

static void write_walks(const mp_graph *g, mp_buf *b) {
  for (uint32_t i = 0; i < g->n_ops; i++) {
    walk_rec w[2];
    uint32_t nw = op_walks(g, i, w);
    if (!nw) continue;
    bool tiled = g->ops[i].patch_head;
    if (tiled) {
      const mp_patch *ps = mp_patch_at(g, i);
      int32_t *tl = calloc((size_t)ps->n_tiles * 8, sizeof *tl);
      if (!tl) die("out of memory");
      stage_walk(g, i, w, tl);
      mp_buf_printf(b, "static const int32_t pg_tiles_%u[] = {\n", i);
      for (uint32_t t = 0; t < ps->n_tiles; t++) {
        mp_buf_puts(b, "   ");
        for (int j = 0; j < 8; j++) mp_buf_printf(b, " %d,", tl[8 * t + j]);
        mp_buf_puts(b, "\n");
      }
      mp_buf_puts(b, "};\n");
      free(tl);
    }
    mp_buf_printf(b, "static const probe_walk pg_walks_%u[] = {\n", i);
    for (uint32_t k = 0; k < nw; k++) {
      mp_buf_printf(b, "    {%d, %u, %u, %u, {", w[k].kind, w[k].in, w[k].ib, w[k].ob);
      for (int j = 0; j < 18; j++) mp_buf_printf(b, "%s%d", j ? ", " : "", w[k].n[j]);
      if (tiled)
        mp_buf_printf(b, "}, pg_tiles_%u},\n", i);
      else
        mp_buf_puts(b, "}, NULL},\n");
    }
    mp_buf_puts(b, "};\n");
  }
  mp_buf_puts(b, "\n");
}

/* An operator the module runs as a no-op (its ops table's is_view): an
 * aliased view or folded PAD, and an operator the lowering resolved at
 * convert time (constant folded, CALL_ONCE, VAR_HANDLE). */
static bool runs_nothing(const mp_graph *g, uint32_t o) {
  if (g->ops[o].is_view) return true;
  mp_lowered_op lo;
  bool noop = mp_lower_op(g, o, &lo, NULL) == MP_OK && lo.supported && lo.noop;
  mp_lower_free(&lo);
  return noop;
}

static void write_glue(const mp_plan *p, const char *prefix, const char *up, const char *what,
                       int which, bool split_arenas, const char *dir) {
  const mp_graph *g = p->graph;
  const mp_model *m = g->model;
  const mp_subgraph_def *sg = &m->subgraphs[g->subgraph];
  bool bound = which == C_BOUND, strong = which == C_STAGED;
  region_info *rg = calloc(p->n_arenas * 2 + 1, sizeof *rg);
  uint32_t nr = regions_of(p, prefix, up, rg);
  bool *written = calloc(g->n_tensors, sizeof *written);
  for (uint32_t i = 0; i < g->n_ops; i++) {
    for (uint32_t k = 0; k < g->ops[i].n_outputs; k++)
      if (g->ops[i].outputs[k] >= 0) written[g->ops[i].outputs[k]] = true;
    for (uint32_t k = 0; k < g->ops[i].n_intermediates; k++)
      if (g->ops[i].intermediates[k] >= 0) written[g->ops[i].intermediates[k]] = true;
  }
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++) written[t] = true;

  mp_buf b;
  mp_buf_init(&b);
  mp_buf_printf(&b, "/* Probe glue of module %s: %s.\n * Generated by tests/emit/proof_gen.c. */\n",
                prefix, what);
  mp_buf_printf(&b, "#include \"%s_model.h\"\n#include \"probe.h\"\n\n#include <string.h>\n\n", prefix);
  mp_buf_printf(&b, "/* The module's own sources, as they are, in this translation unit: one\n"
                    " * compiler run per module keeps the proof's build fast.  (The clang and\n"
                    " * Cortex-M4 checks compile them one by one; a golden module's arenas,\n"
                    " * its weights, are compiled once per core for this and its golden glue.) */\n"
                    "#include \"../src/%s_model.c\"\n", prefix);
  if (!bound && !split_arenas) mp_buf_printf(&b, "#include \"../src/%s_arenas.c\"\n", prefix);
  mp_buf_printf(&b, "\nextern const probe_module probe_module_%s;\n\n", prefix);
  /* the region ids, as the plan orders the arenas */
  mp_buf_puts(&b, "typedef char region_ids_follow_the_plan[(");
  for (uint32_t i = 0; i < nr; i++) mp_buf_printf(&b, "%s%s == %u", i ? " && " : "", rg[i].enum_name, i);
  mp_buf_printf(&b, " && %s_NUM_REGIONS == %u) ? 1 : -1];\n\n", up, nr);

  /* a variable's start value, as the graph gives it: a byte (an int8
   * variable's zero point) or the value its init subgraph assigns.  The
   * probe proves the module starts every variable so, after each
   * model_init; that these are TFLM's start values test_golden proves, by
   * running the stateful models in sequence against TFLM's outputs */
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    if (tensor_kind(g, t, written) != 4 || !x->state_init) continue;
    mp_buf_printf(&b, "static const uint8_t pg_start_%u[%llu] = {", t, (unsigned long long)x->size);
    for (uint64_t k = 0; k < x->size; k++)
      mp_buf_printf(&b, "%s%u,", k % 24 ? "" : "\n   ", (unsigned)x->state_init[k]);
    mp_buf_puts(&b, "\n};\n");
  }
  mp_buf_printf(&b, "static const probe_tensor pg_tensors[%u] = {\n", g->n_tensors);
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    int kind = tensor_kind(g, t, written);
    uint64_t h = 0;
    if (kind == 1) {
      /* the model's own buffer, not the graph's or the plan's view of it;
       * a constant the convert computed (a folded operator's output) has
       * none: the bytes computed on the host */
      const mp_buffer_def *buf = &m->buffers[sg->tensors[t].buffer];
      h = buf->size == 0 && x->data ? fnv(x->data, x->size) : fnv(buf->data, buf->size);
    }
    mp_buf_printf(&b, "    {%lluu, %d, %d, %lluu, 0x%08xu, 0x%08xu, ", (unsigned long long)x->size,
                  kind, x->alias_of >= 0 ? x->alias_of : (int32_t)t,
                  (unsigned long long)(x->alias_of >= 0 ? x->alias_offset : 0), (unsigned)(uint32_t)h,
                  (unsigned)(uint32_t)(h >> 32));
    emit_c_string(&b, x->name);
    mp_buf_printf(&b, ", %lluu, %lluu, ",
                  (unsigned long long)(x->alias_of >= 0 ? x->alias_row : 0),
                  (unsigned long long)(x->alias_of >= 0 ? x->alias_stride : 0));
    if (kind == 4 && x->state_init) mp_buf_printf(&b, "pg_start_%u, 0},\n", t);
    else mp_buf_printf(&b, "NULL, %u},\n", kind == 4 ? (unsigned)x->state_init_byte : 0u);
  }
  mp_buf_puts(&b, "};\n\n");
  write_walks(g, &b);
  mp_buf_puts(&b, "static const int32_t pg_op_io[] = {\n");
  uint32_t pos = 0;
  mp_buf op_rows;
  mp_buf_init(&op_rows);
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *op = &g->ops[i];
    uint32_t n_extra = 0;
    mp_buf_puts(&b, "   ");
    for (uint32_t k = 0; k < op->n_inputs; k++) mp_buf_printf(&b, " %d,", op->inputs[k]);
    for (uint32_t k = 0; k < op->n_outputs; k++) mp_buf_printf(&b, " %d,", op->outputs[k]);
    for (uint32_t k = 0; k < op->n_intermediates; k++, n_extra++)
      mp_buf_printf(&b, " %d,", op->intermediates[k]);
    for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
      if (g->tensors[t].local_op == (int32_t)i) {
        mp_buf_printf(&b, " %u,", t);
        n_extra++;
      }
    mp_buf_puts(&b, "\n");
    mp_buf_puts(&op_rows, "    {");
    emit_c_string(&op_rows, op->name);
    uint32_t nw = walk_count(g, i);
    mp_buf_printf(&op_rows, ", %u, %u, %u, %d, %u, %u, ", op->n_inputs, op->n_outputs, n_extra,
                  runs_nothing(g, i) ? 1 : 0, pos, nw);
    if (nw)
      mp_buf_printf(&op_rows, "pg_walks_%u},\n", i);
    else
      mp_buf_puts(&op_rows, "NULL},\n");
    pos += op->n_inputs + op->n_outputs + n_extra;
  }
  if (pos == 0) mp_buf_puts(&b, "    -1\n");
  mp_buf_printf(&b, "};\n\nstatic const probe_op pg_ops[%u] = {\n", g->n_ops);
  mp_buf_append(&b, op_rows.data, op_rows.len);
  mp_buf_free(&op_rows);
  mp_buf_puts(&b, "};\n\nstatic const int32_t pg_inputs[] = {");
  for (uint32_t i = 0; i < g->n_inputs; i++) mp_buf_printf(&b, "%s%d", i ? ", " : "", g->inputs[i]);
  if (!g->n_inputs) mp_buf_puts(&b, "-1");
  mp_buf_puts(&b, "};\nstatic const int32_t pg_outputs[] = {");
  for (uint32_t i = 0; i < g->n_outputs; i++)
    mp_buf_printf(&b, "%s%d", i ? ", " : "", g->outputs[i]);
  if (!g->n_outputs) mp_buf_puts(&b, "-1");
  mp_buf_puts(&b, "};\n\nstatic const probe_region pg_regions[] = {\n");
  for (uint32_t i = 0; i < nr; i++)
    mp_buf_printf(&b, "    {%s, %s_SIZE, %s_ALIGN, %d, %d, \"%s\"},\n", rg[i].enum_name,
                  rg[i].enum_name, rg[i].enum_name, rg[i].writable, rg[i].persistent,
                  rg[i].symbol);
  mp_buf_printf(&b, "};\n\nstatic uint8_t pg_state[%u];\n\n", g->n_tensors);

  /* caller-bound buffers: [guard][region][guard] */
  mp_buf_puts(&b, "static uint8_t *pg_guarded(uint32_t r, uint32_t *g) {\n");
  if (bound) {
    for (uint32_t i = 0; i < nr; i++) {
      if (rg[i].is_const)
        mp_buf_printf(&b, "  extern const uint8_t %s_blob_%u[];\n", prefix, i);
      else
        mp_buf_printf(&b, "  static PROBE_IN_%s uint8_t pg_buf_%u[%uu + %s_SIZE + %uu] "
                          "__attribute__((aligned(%u)));\n",
                      seed_upper(tmem(rg[i].memory) == T_DTCM ? MP_MEM_DTCM : MP_MEM_SRAM), i,
                      rg[i].guard, rg[i].enum_name, rg[i].guard, rg[i].align);
    }
    mp_buf_puts(&b, "  switch (r) {\n");
    for (uint32_t i = 0; i < nr; i++) {
      if (rg[i].is_const)
        mp_buf_printf(&b, "  case %uu: *g = %uu; return (uint8_t *)%s_blob_%u;\n", i, rg[i].guard,
                      prefix, i);
      else
        mp_buf_printf(&b, "  case %uu: *g = %uu; return pg_buf_%u;\n", i, rg[i].guard, i);
    }
    mp_buf_puts(&b, "  default: break;\n  }\n");
  } else {
    mp_buf_puts(&b, "  (void)r;\n");
  }
  mp_buf_puts(&b, "  *g = 0;\n  return NULL;\n}\n\n");

  tpl(&b,
      "static @p_model_context_t pg_ctx = @P_MODEL_CONTEXT_INIT;\n"
      "static @p_model_context_t pg_plain = @P_MODEL_CONTEXT_INIT;\n\n"
      "static int32_t pg_hook(@p_model_context_t *c, const @p_op_t *op, @p_kernel_phase_t phase) {\n"
      "  if (c != &pg_ctx || op != &@p_ops[op->index]) return 99;\n"
      "  return probe_kernel(&probe_module_@p, op->index, phase == @P_PHASE_INIT ? 0 : 1);\n"
      "}\n\n"
      "static void pg_callback(const @p_op_t *op, @p_op_event_t event, void *user) {\n"
      "  if (user != &pg_ctx) return;\n"
      "  probe_event(&probe_module_@p, op->index, event == @P_OP_STARTED);\n"
      "}\n\n"
      "static int32_t pg_do_init(void) {\n"
      "  pg_ctx.kernel_hook = pg_hook;\n  pg_ctx.callback = pg_callback;\n  pg_ctx.user_data = &pg_ctx;\n"
      "  return @p_model_init(&pg_ctx);\n}\n"
      "static int32_t pg_do_run(void) { return @p_model_run(&pg_ctx); }\n"
      "static int32_t pg_do_init_plain(void) { return @p_model_init(&pg_plain); }\n"
      "static int32_t pg_do_run_plain(void) { return @p_model_run(&pg_plain); }\n"
      "static int32_t pg_plain_failed_op(void) { return pg_plain.failed_op; }\n"
      "static int32_t pg_init_mismatch(void) {\n"
      "  @p_model_context_t other = @P_MODEL_CONTEXT_INIT;\n"
      "  other.plan_hash ^= 1u;\n"
      "  return @p_model_init(&other);\n}\n"
      "static int32_t pg_run_uninitialised(void) {\n"
      "  @p_model_context_t fresh = @P_MODEL_CONTEXT_INIT;\n"
      "  return @p_model_run(&fresh);\n}\n"
      "static void *pg_io(int output, uint32_t i, size_t *size) {\n"
      "  @p_io_t *x = output ? &pg_ctx.outputs[i] : &pg_ctx.inputs[i];\n"
      "  *size = x->size;\n  return x->data;\n}\n"
      "static int32_t pg_tensor_desc(uint32_t id, uint32_t *region, uint32_t *offset, uint32_t *size) {\n"
      "  if (id >= @P_NUM_TENSORS || @p_tensors[id].region == @P_NO_REGION) return -1;\n"
      "  *region = @p_tensors[id].region;\n  *offset = @p_tensors[id].offset;\n"
      "  *size = @p_tensors[id].size;\n  return 0;\n}\n"
      "static void *pg_region_base(uint32_t r) { return @p_arena_buffer((@p_arena_region_t)r); }\n"
      "static int32_t pg_bind(uint32_t r, void *buf, size_t size) {\n"
      "  return @p_bind_arena((@p_arena_region_t)r, buf, size);\n}\n"
      "static int32_t pg_bind_pair(uint32_t r1, void *b1, size_t s1, uint32_t r2, void *b2, size_t s2) {\n"
      "  @p_arena_binding_t b[2];\n"
      "  b[0].region = (@p_arena_region_t)r1;\n  b[0].buf = b1;\n  b[0].size = s1;\n"
      "  b[1].region = (@p_arena_region_t)r2;\n  b[1].buf = b2;\n  b[1].size = s2;\n"
      "  return @p_bind_arenas(b, 2);\n}\n\n",
      prefix, up);
  mp_buf_printf(&b,
      "#ifdef PROBE_TARGET\n#define pg_NEIGHBOURS %d\n#else\n#define pg_NEIGHBOURS 0\n#endif\n\n"
      "const probe_module probe_module_%s = {\n"
      "    .name = \"%s\",\n    .what = \"%s\",\n"
      "    .n_tensors = %u, .n_ops = %u, .n_regions = %u, .n_inputs = %u, .n_outputs = %u,\n"
      "    .tensors = pg_tensors, .ops = pg_ops, .op_io = pg_op_io, .regions = pg_regions,\n"
      "    .inputs = pg_inputs, .outputs = pg_outputs, .state = pg_state,\n"
      "    .bound = %d, .strong_hydrate = %d, .guard_neighbours = pg_NEIGHBOURS,\n"
      "    .st = {%s_STATUS_OK, %s_STATUS_BAD_REGION, %s_STATUS_UNBOUND_REGION,\n"
      "           %s_STATUS_REGION_TOO_SMALL, %s_STATUS_MISALIGNED, %s_STATUS_PLAN_MISMATCH,\n"
      "           %s_STATUS_NOT_INITIALISED, %s_STATUS_UNSUPPORTED_OP, %s_STATUS_KERNEL_FAILED},\n"
      "    .init = pg_do_init, .run = pg_do_run, .init_plain = pg_do_init_plain, .run_plain = pg_do_run_plain,\n"
      "    .plain_failed_op = pg_plain_failed_op, .init_mismatch = pg_init_mismatch,\n"
      "    .run_uninitialised = pg_run_uninitialised, .io = pg_io, .tensor_data = %s_tensor_data,\n"
      "    .tensor_desc = pg_tensor_desc, .region_base = pg_region_base, .bind = pg_bind,\n"
      "    .bind_pair = pg_bind_pair, .guarded = pg_guarded,\n"
      "};\n",
      bound ? 0 : 1, prefix, prefix, what, g->n_tensors, g->n_ops, nr, g->n_inputs,
      g->n_outputs, bound, strong, up, up, up, up, up, up, up, up, up, prefix);
  write_text(pathf("%s/probe/glue.c", dir), &b);
  mp_buf_free(&b);

  /* the application's hydrate, in a file of its own as an application's is */
  if (strong) {
    mp_buf_init(&b);
    mp_buf_printf(&b,
        "/* The application's hydrate for module %s: replaces the module's weak\n"
        " * one and copies the way an application would (say, a DMA), region by\n"
        " * region.  Generated by tests/emit/proof_gen.c. */\n"
        "#include \"%s_model.h\"\n#include \"probe.h\"\n\n#include <string.h>\n\n"
        "extern const probe_module probe_module_%s;\n\n"
        "int32_t %s_hydrate_constants(%s_model_context_t *c) {\n"
        "  probe_hydrate(&probe_module_%s, %s_NUM_INPUTS == 0 || c->inputs[0].data != NULL);\n",
        prefix, prefix, prefix, prefix, prefix, prefix, up);
    for (uint32_t i = 0; i < p->n_arenas; i++) {
      if (!p->arenas[i].is_staged) continue;
      const char *rt = rg[i].enum_name;
      for (uint32_t k = p->n_arenas; k < nr; k++)
        if (!strncmp(rg[k].enum_name, rt, strlen(rt)) && !strcmp(rg[k].enum_name + strlen(rt), "_SOURCE"))
          mp_buf_printf(&b, "  memcpy(%s_arena_buffer(%s), %s_arena_buffer(%s), %s_SIZE);\n",
                        prefix, rt, prefix, rg[k].enum_name, rt);
    }
    mp_buf_puts(&b, "  return 0;\n}\n");
    write_text(pathf("%s/probe/hydrate.c", dir), &b);
    mp_buf_free(&b);
  }

  /* target placement of the module's arenas */
  mp_buf_init(&b);
  mp_buf_puts(&b, "/* Target placement (an547.ld sections). Generated by proof_gen. */\n");
  for (int mm = 0; mm < MP_MEM_FIRST_NAMED; mm++) {
    uint32_t t = tmem((mp_memory)mm);
    mp_buf_printf(&b, "#define %s_PUT_IN_%s __attribute__((section(\".bss.mp_%s\")))\n", up,
                  seed_upper((mp_memory)mm), tsec(t));
    mp_buf_printf(&b, "#define %s_PUT_CONST_IN_%s __attribute__((section(\".rodata.mp_%s\")))\n",
                  up, seed_upper((mp_memory)mm), tsec(t));
  }
  mp_buf_puts(&b, "#define PROBE_IN_DTCM __attribute__((section(\".bss.mp_dtcm\")))\n"
                  "#define PROBE_IN_SRAM __attribute__((section(\".bss.mp_sram\")))\n");
  write_text(pathf("%s/probe/target_place.h", dir), &b);
  mp_buf_free(&b);

  /* caller-bound constant blobs, with their guards */
  if (bound) {
    mp_buf_init(&b);
    mp_buf_puts(&b, "/* Constant blobs the harness binds, each between guard bytes.\n"
                    " * Generated by tests/emit/proof_gen.c. */\n");
    for (uint32_t i = 0; i < nr; i++) {
      if (!rg[i].is_const) continue;
      mp_buf_printf(&b,
          "#ifdef PROBE_TARGET\n  .section .rodata.mp_%s,\"a\"\n#else\n  .section .rodata,\"a\"\n#endif\n"
          "  .balign %u\n  .globl %s_blob_%u\n%s_blob_%u:\n  .fill %u, 1, 0xa5\n"
          "  .incbin \"%s/modules/%s/data/%s.bin\"\n  .fill %u, 1, 0xa5\n",
          tsec(tmem(rg[i].memory)), rg[i].align, prefix, i, prefix, i, rg[i].guard, out_abs, prefix,
          rg[i].symbol, rg[i].guard);
    }
    mp_buf_puts(&b, "#if defined(__linux__) && !defined(PROBE_TARGET)\n"
                    "  .section .note.GNU-stack,\"\",@progbits\n#endif\n");
    write_text(pathf("%s/probe/blobs.S", dir), &b);
    mp_buf_free(&b);
  }

  /* what the target needs */
  modrec *mr = &mods[n_mods - 1];
  for (uint32_t i = 0; i < nr; i++) {
    uint64_t need = rg[i].size + rg[i].align + (bound ? 2u * rg[i].guard : 0u);
    mr->need[tmem(rg[i].memory)] += need;
  }
  free(rg);
  free(written);
}

/* ---- the golden glue ------------------------------------------------------- */

/* Read DIR/<model>/<file> into a new buffer; NULL when absent. */
static uint8_t *golden_file(const char *model_name, const char *file, size_t *size) {
  uint8_t *data = NULL;
  *size = 0;
  if (mp_read_file(pathf("%s/%s/%s", golden_dir, model_name, file), &data, size, NULL) != MP_OK)
    return NULL;
  return data;
}

/* Append `static const uint8_t <sym>[] = {...}` holding a golden file's
 * bytes, checked against the tensor's size.  false when absent. */
static bool golden_array(mp_buf *b, const char *model_name, const char *file, const char *sym,
                         uint64_t want, uint64_t *bytes) {
  size_t size = 0;
  uint8_t *data = golden_file(model_name, file, &size);
  if (!data) return false;
  if (size != want)
    die("%s/%s/%s: %zu bytes, the tensor has %llu", golden_dir, model_name, file, size,
        (unsigned long long)want);
  mp_buf_printf(b, "static const uint8_t %s[%zu] = {\n", sym, size ? size : 1);
  emit_hex_bytes(b, data, size);
  if (!size) mp_buf_puts(b, "  0\n");
  mp_buf_puts(b, "};\n");
  *bytes += size;
  free(data);
  return true;
}

/* OUT/golden/<sym>.c: the golden_model of one model (golden.h), from the
 * model, the graph and DIR/<model>/.  Returns its index in gmodels[], or
 * -1 when the model has no golden data. */
static int write_golden_model(const mp_graph *g, const char *model_name, const char *sym) {
  size_t probe_size = 0;
  uint8_t *probe = golden_file(model_name, "case0.input0.bin", &probe_size);
  if (!probe) return -1;
  free(probe);
  if (n_gmodels == MAX_GMODELS) die("more than %d golden models", MAX_GMODELS);
  gmodel_rec *gm = &gmodels[n_gmodels];
  memset(gm, 0, sizeof *gm);
  snprintf(gm->name, sizeof gm->name, "%s", model_name);
  snprintf(gm->sym, sizeof gm->sym, "%s", sym);
  const mp_model *m = g->model;
  const mp_subgraph_def *sg = &m->subgraphs[g->subgraph];
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_printf(&b,
                "/* TFLM's golden data of %s (%s/%s) and the model's facts the golden\n"
                " * run needs.  Generated by tests/emit/proof_gen.c. */\n"
                "#include \"golden.h\"\n\n",
                model_name, golden_dir, model_name);
  /* the three cases */
  for (int out = 0; out < 2; out++) {
    uint32_t n = out ? g->n_outputs : g->n_inputs;
    const int32_t *ids = out ? g->outputs : g->inputs;
    for (int k = 0; k < 3; k++)
      for (uint32_t i = 0; i < n; i++) {
        char file[64], arr[64];
        snprintf(file, sizeof file, "case%d.%s%u.bin", k, out ? "output" : "input", i);
        snprintf(arr, sizeof arr, "%s%d_%u", out ? "out" : "in", k, i);
        if (!golden_array(&b, model_name, file, arr, g->tensors[ids[i]].size, &gm->bytes))
          die("%s/%s/%s is missing", golden_dir, model_name, file);
      }
    mp_buf_printf(&b, "static const golden_blob gm_%s[] = {\n", out ? "outputs" : "inputs");
    for (int k = 0; k < 3; k++)
      for (uint32_t i = 0; i < n; i++)
        mp_buf_printf(&b, "    {%s%d_%u, sizeof %s%d_%u, %d},\n", out ? "out" : "in", k, i,
                      out ? "out" : "in", k, i, g->tensors[ids[i]].dtype == MP_DTYPE_FLOAT32);
    if (!n) mp_buf_puts(&b, "    {0, 0, 0},\n");
    mp_buf_puts(&b, "};\n");
  }
  /* case 0 after every operator: the operators' outputs */
  bool *have = calloc(g->n_tensors + 1, sizeof *have);
  for (uint32_t o = 0; o < g->n_ops; o++)
    for (uint32_t k = 0; k < g->ops[o].n_outputs; k++) {
      int32_t t = g->ops[o].outputs[k];
      if (t < 0 || have[t] || (uint32_t)t >= g->n_model_tensors) continue;
      char file[64], arr[64];
      snprintf(file, sizeof file, "case0.tensor%d.bin", t);
      snprintf(arr, sizeof arr, "t%d", t);
      have[t] = golden_array(&b, model_name, file, arr, g->tensors[t].size, &gm->bytes);
    }
  mp_buf_printf(&b, "static const golden_blob gm_tensors[%u] = {\n", g->n_tensors);
  for (uint32_t t = 0; t < g->n_tensors; t++)
    if (have[t])
      mp_buf_printf(&b, "    {t%u, sizeof t%u, %d},\n", t, t,
                    g->tensors[t].dtype == MP_DTYPE_FLOAT32);
    else
      mp_buf_puts(&b, "    {0, 0, 0},\n");
  free(have);
  /* the constants: which, and the hash of the model's own bytes */
  mp_buf_printf(&b, "};\nstatic const uint8_t gm_is_const[%u] = {", g->n_tensors);
  for (uint32_t t = 0; t < g->n_tensors; t++)
    mp_buf_printf(&b, "%s%d", t ? ", " : "",
                  g->tensors[t].role == MP_ROLE_CONSTANT && t < g->n_model_tensors);
  mp_buf_printf(&b, "};\nstatic const uint32_t gm_const_hash[%u] = {\n", 2 * g->n_tensors);
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    uint64_t h = 0;
    if (g->tensors[t].role == MP_ROLE_CONSTANT && t < g->n_model_tensors) {
      const mp_buffer_def *buf = &m->buffers[sg->tensors[t].buffer];
      const mp_tensor *x = &g->tensors[t];
      h = buf->size == 0 && x->data ? fnv(x->data, x->size) : fnv(buf->data, buf->size);
    }
    mp_buf_printf(&b, "    0x%08xu, 0x%08xu,\n", (unsigned)(uint32_t)h,
                  (unsigned)(uint32_t)(h >> 32));
  }
  mp_buf_printf(&b, "};\nstatic const char *const gm_names[%u] = {\n", g->n_tensors);
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    mp_buf_puts(&b, "    ");
    emit_c_string(&b, g->tensors[t].name);
    mp_buf_puts(&b, ",\n");
  }
  mp_buf_printf(&b,
                "};\n\nconst golden_model golden_model_%s = {\n    \"%s\", %u, %u, %u,\n"
                "    gm_inputs, gm_outputs, gm_tensors, gm_is_const, gm_const_hash, gm_names};\n",
                sym, model_name, g->n_inputs, g->n_outputs, g->n_tensors);
  if (mp_make_dirs(pathf("%s/golden", out_abs), &sink) != MP_OK)
    die("cannot create %s/golden", out_abs);
  write_text(pathf("%s/golden/%s.c", out_abs, sym), &b);
  mp_buf_free(&b);
  return n_gmodels++;
}

/* The operator the wrong-kernel test breaks: the middle one of those the
 * hook sees whose first output has golden data. */
static int32_t wrong_op_of(const mp_graph *g) {
  uint32_t n = 0, k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t o = 0; o < g->n_ops; o++) {
      const mp_op *op = &g->ops[o];
      if (runs_nothing(g, o) || op->n_outputs == 0 || op->outputs[0] < 0 ||
          g->tensors[op->outputs[0]].size == 0)
        continue;
      if (pass == 0)
        n++;
      else if (k++ == n / 2)
        return (int32_t)o;
    }
  return -1;
}

/* probe/golden.c of one module: the module's sources with its kernels and
 * the adapters of golden.h; probe/size_place.h for the code-size build. */
static void write_golden(const mp_plan *p, const char *prefix, const char *up, const char *what,
                         int gmodel, int32_t wrong_op, const char *dir) {
  const mp_graph *g = p->graph;
  region_info *rg = calloc(p->n_arenas * 2 + 1, sizeof *rg);
  uint32_t nr = regions_of(p, prefix, up, rg);
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_printf(&b,
                "/* Golden glue of module %s: %s, with memplan's kernels.\n"
                " * Generated by tests/emit/proof_gen.c. */\n"
                "#include \"%s_model.h\"\n#include \"golden.h\"\n\n",
                prefix, what, prefix);
  mp_buf_printf(&b,
                "/* The module's sources as they are (built with %s_WITH_KERNELS=1), in\n"
                " * this translation unit: one compiler run per module, and the\n"
                " * wrong-kernel test calls the module's kernel glue (op_kernels).  Its\n"
                " * arenas (the weights) are an object of their own, compiled once per\n"
                " * core for this and the probe glue. */\n"
                "#include \"../src/%s_model.c\"\n\n",
                up, prefix);
  mp_buf_printf(&b,
                "extern const golden_model golden_model_%s;\n"
                "extern const golden_module golden_module_%s;\n\n",
                gmodels[gmodel].sym, prefix);
  mp_buf_puts(&b, "static const golden_region gg_regions[] = {\n");
  for (uint32_t i = 0; i < nr; i++) {
    const char *kind = "GOLDEN_CONST";
    if (i < p->n_arenas) {
      const mp_arena *a = &p->arenas[i];
      kind = a->role == MP_ROLE_SCRATCH      ? "GOLDEN_SCRATCH"
             : a->role == MP_ROLE_PERSISTENT ? "GOLDEN_PERSISTENT"
             : a->is_staged                  ? "GOLDEN_STAGED"
                                             : "GOLDEN_CONST";
    }
    mp_buf_printf(&b, "    {%s, %s_SIZE, %s},\n", rg[i].enum_name, rg[i].enum_name, kind);
  }
  mp_buf_puts(&b, "};\n\n");
  tpl(&b,
      "static @p_model_context_t gg_ctx = @P_MODEL_CONTEXT_INIT;\n\n"
      "static int32_t gg_hook(@p_model_context_t *c, const @p_op_t *op,\n"
      "                       @p_kernel_phase_t phase) {\n"
      "  int32_t rc;\n"
      "  if (c != &gg_ctx || op != &@p_ops[op->index]) return 99;\n"
      "  rc = golden_kernel(&golden_module_@p, op->index, phase == @P_PHASE_INIT,\n"
      "                     c->initialised == 0 &&\n"
      "                         (@P_NUM_INPUTS == 0 || c->inputs[0].data != NULL));\n"
      "  return rc == GOLDEN_DEFAULT ? @P_KERNEL_DEFAULT : rc;\n"
      "}\n\n"
      "static void gg_callback(const @p_op_t *op, @p_op_event_t event, void *user) {\n"
      "  if (user == &gg_ctx && event == @P_OP_FINISHED)\n"
      "    golden_op_finished(&golden_module_@p, op->index);\n"
      "}\n\n"
      "static int32_t gg_init(int hooked) {\n"
      "  @p_model_context_t fresh = @P_MODEL_CONTEXT_INIT;\n"
      "  gg_ctx = fresh;\n"
      "  if (hooked) {\n"
      "    gg_ctx.kernel_hook = gg_hook;\n    gg_ctx.callback = gg_callback;\n"
      "    gg_ctx.user_data = &gg_ctx;\n  }\n"
      "  return @p_model_init(&gg_ctx);\n}\n"
      "static int32_t gg_run(void) { return @p_model_run(&gg_ctx); }\n"
      "static int32_t gg_reset_state(void) { return @p_reset_state(&gg_ctx); }\n"
      "static int32_t gg_failed_op(void) { return gg_ctx.failed_op; }\n"
      "static void *gg_io(int output, uint32_t i, size_t *size) {\n"
      "  @p_io_t *x = output ? &gg_ctx.outputs[i] : &gg_ctx.inputs[i];\n"
      "  *size = x->size;\n  return x->data;\n}\n"
      "static int32_t gg_tensor_region(uint32_t id, uint32_t *size) {\n"
      "  *size = 0;\n"
      "  if (id >= @P_NUM_TENSORS || @p_tensors[id].region == @P_NO_REGION) return -1;\n"
      "  *size = @p_tensors[id].size;\n  return @p_tensors[id].region;\n}\n"
      "static void *gg_region_base(uint32_t r) { return @p_arena_buffer((@p_arena_region_t)r); }\n"
      "static void gg_op(uint32_t i, golden_op *o) {\n"
      "  const @p_op_t *op = &@p_ops[i];\n"
      "  o->name = op->name;\n  o->n_inputs = op->n_inputs;\n  o->n_outputs = op->n_outputs;\n"
      "  o->inputs = op->inputs;\n  o->outputs = op->outputs;\n  o->is_view = op->is_view;\n}\n"
      "static int32_t gg_builtin(uint32_t i) {\n"
      "  return i < @P_NUM_OPS && op_kernels[i].run != NULL ? op_kernels[i].run() : -1;\n}\n\n",
      prefix, up);
  mp_buf_printf(&b,
                "const golden_module golden_module_%s = {\n"
                "    \"%s\", \"%s\", &golden_model_%s, %u, %u, gg_regions, %d,\n"
                "    gg_init, gg_run, gg_failed_op, gg_io, %s_tensor_data, gg_tensor_region,\n"
                "    gg_region_base, gg_op, gg_builtin, gg_reset_state, %s_tensor_rows};\n",
                prefix, prefix, what, gmodels[gmodel].sym, g->n_ops, nr, (int)wrong_op, prefix,
                prefix);
  write_text(pathf("%s/probe/golden.c", dir), &b);
  mp_buf_free(&b);
  /* the code-size build: every read-only blob in a section of its own */
  mp_buf_init(&b);
  mp_buf_puts(&b, "/* Placement of the code-size build: read-only blobs (the weights) in\n"
                  " * .mp_weights, counted apart from code.  Generated by proof_gen. */\n");
  for (int mm = 0; mm < MP_MEM_FIRST_NAMED; mm++)
    mp_buf_printf(&b, "#define %s_PUT_CONST_IN_%s __attribute__((section(\".mp_weights\")))\n", up,
                  seed_upper((mp_memory)mm));
  write_text(pathf("%s/probe/size_place.h", dir), &b);
  mp_buf_free(&b);
  free(rg);
}

/* ---- modules --------------------------------------------------------------- */

static void short_name(const char *name, char *out, size_t n) {
  const char *s = name;
  if (!strncmp(s, "mlperf_", 7)) s += 7;
  if (!strncmp(s, "tflm_", 5)) s += 5;
  size_t k = 0;
  if (!isalpha((unsigned char)*s)) out[k++] = 'm';
  for (; *s && k + 1 < n; s++) out[k++] = isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '_';
  out[k] = '\0';
  size_t l = strlen(out);
  if (l > 5 && !strcmp(out + l - 5, "_int8")) out[l - 5] = '\0';
}

static void planner_abbrev(const char *name, char *out, size_t n) {
  size_t k = 0;
  for (const char *s = name; *s && k + 1 < n; s++)
    if (s == name || s[-1] == '_') out[k++] = *s;
  out[k] = '\0';
}

static modrec *add_mod(void) {
  if (n_mods == cap_mods) {
    cap_mods = cap_mods ? 2 * cap_mods : 64;
    mods = realloc(mods, cap_mods * sizeof *mods);
    if (!mods) die("out of memory");
  }
  memset(&mods[n_mods], 0, sizeof mods[0]);
  return &mods[n_mods++];
}

static const mp_arena *find_arena(const mp_plan *p, mp_role role, mp_memory m) {
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == role && p->arenas[i].memory == m) return &p->arenas[i];
  return NULL;
}

/* Plan, verify, emit and glue one module.  Returns false when skipped. */
static bool one_module(const char *model_name, const mp_graph *g, const mp_planner *pl, int which,
                       bool broken, int gmodel) {
  mp_platform pf;
  if (!mp_platform_builtin("apollo510_evb", &pf)) die("no apollo510_evb platform");
  char sn[40], pa[8], prefix[64], up[64], what[200], dir[PATH_MAX];
  short_name(model_name, sn, sizeof sn);
  planner_abbrev(pl->name, pa, sizeof pa);
  /* a module specialised for a core carries the core in its name */
  const char *tt = g->target == MP_TARGET_CORTEX_M55 ? "_m55" : "";
  snprintf(prefix, sizeof prefix, "%s_%s_%s%s%s", sn, pa, config_names[which], tt,
           broken ? "_broken" : "");
  for (size_t i = 0; i <= strlen(prefix); i++) up[i] = (char)toupper((unsigned char)prefix[i]);
  snprintf(what, sizeof what, "%s / %s / %s%s%s", model_name, pl->name, config_names[which],
           g->target != MP_TARGET_GENERIC ? " / " : "",
           g->target != MP_TARGET_GENERIC ? mp_target_name(g->target) : "");
  uint64_t budget = 0;
  if (which == C_SPILL) {
    /* half of what the scratch arena takes in dtcm with constants in mram */
    cfg c0;
    make_config(&c0, C_COLD, pl, g, 0);
    mp_plan *p0 = NULL;
    if (mp_plan_build(g, &pf, &c0.a, &sink, &p0) != MP_OK) die("%s: cannot plan", what);
    const mp_arena *s = find_arena(p0, MP_ROLE_SCRATCH, MP_MEM_DTCM);
    /* a scratch arena of one slot spills whole: a budget of 0 */
    budget = s ? s->total_size / 2 / 32 * 32 : 0;
    mp_plan_free(&p0);
    cfg_free(&c0);
    if (!s) {
      printf("skip %s: no scratch arena to spill\n", what);
      return false;
    }
  }
  cfg c;
  make_config(&c, which, pl, g, budget);
  mp_plan *p = NULL;
  mp_status st = mp_plan_build(g, &pf, &c.a, &sink, &p);
  if (st == MP_ERR_NOFIT && which == C_DTCM) {
    printf("skip %s: does not fit in dtcm\n", what);
    cfg_free(&c);
    return false;
  }
  if (st != MP_OK) {
    fprintf(stderr, "FAIL %s: plan: %s\n", what, mp_status_str(st));
    n_failed++;
    cfg_free(&c);
    return false;
  }
  if (mp_plan_verify(p, &sink) != MP_OK) {
    fprintf(stderr, "FAIL %s: the verifier rejects the plan\n", what);
    n_failed++;
    mp_plan_free(&p);
    cfg_free(&c);
    return false;
  }
  if (which == C_SPILL && !find_arena(p, MP_ROLE_SCRATCH, MP_MEM_SRAM)) {
    fprintf(stderr, "FAIL %s: a dtcm budget of %llu bytes did not spill scratch to sram\n", what,
            (unsigned long long)budget);
    n_failed++;
  }
  if (broken && which == C_INPLACE) {
    /* an in-place output moved onto its input's first byte, closer than its
     * kernel's contract allows */
    uint32_t a = UINT32_MAX, b = UINT32_MAX;
    for (uint32_t k = 0; k < g->n_overlaps && b == UINT32_MAX; k++) {
      const mp_overlap *ov = &g->overlaps[k];
      int32_t ri = g->tensors[ov->input].alias_of >= 0 ? g->tensors[ov->input].alias_of : (int32_t)ov->input;
      int32_t ro = g->tensors[ov->output].alias_of >= 0 ? g->tensors[ov->output].alias_of : (int32_t)ov->output;
      const mp_allocation *x = mp_plan_get_allocation(p, (uint32_t)ri), *y = mp_plan_get_allocation(p, (uint32_t)ro);
      if (ov->min_gap <= 0 || !x || !y || x->arena != y->arena ||
          p->lifetimes[ri].end_op != (int32_t)ov->op || p->lifetimes[ro].start_op != (int32_t)ov->op ||
          x->offset + y->slot_size > p->arenas[x->arena].total_size ||
          !(x->offset < y->offset + y->slot_size && y->offset < x->offset + x->slot_size))
        continue;
      a = (uint32_t)ri;
      b = (uint32_t)ro;
    }
    if (b == UINT32_MAX) die("%s: no in-place pair to break", what);
    p->allocs[b].offset = p->allocs[b].binding.offset = p->allocs[a].offset;
    if (mp_plan_verify(p, NULL) == MP_OK) die("%s: the verifier accepts the broken plan", what);
    printf("broken in place: tensor %u '%s' moved onto tensor %u '%s' at offset %llu\n", b,
           g->tensors[b].name, a, g->tensors[a].name, (unsigned long long)p->allocs[a].offset);
  } else if (broken) {
    /* two scratch slots live at the same op, forced onto the same bytes */
    uint32_t a = UINT32_MAX, b = UINT32_MAX;
    for (uint32_t i = 0; i < p->n_allocs && b == UINT32_MAX; i++)
      for (uint32_t j = i + 1; j < p->n_allocs && b == UINT32_MAX; j++) {
        const mp_allocation *x = mp_plan_get_allocation(p, i), *y = mp_plan_get_allocation(p, j);
        if (!x || !y || x->alias_of >= 0 || y->alias_of >= 0 ||
            x->binding.role != MP_ROLE_SCRATCH || y->binding.role != MP_ROLE_SCRATCH ||
            x->arena != y->arena || x->offset == y->offset ||
            x->offset + y->slot_size > p->arenas[x->arena].total_size ||
            !mp_lifetime_overlaps(&p->lifetimes[i], &p->lifetimes[j]))
          continue;
        a = i;
        b = j;
      }
    if (b == UINT32_MAX) die("%s: no two live scratch tensors to overlap", what);
    p->allocs[b].offset = p->allocs[a].offset;
    p->allocs[b].binding.offset = p->allocs[a].offset;
    for (uint32_t t = 0; t < p->n_allocs; t++)
      if (p->allocs[t].alias_of == (int32_t)b) {
        p->allocs[t].offset = p->allocs[a].offset;
        p->allocs[t].binding.offset = p->allocs[a].offset;
      }
    if (mp_plan_verify(p, NULL) == MP_OK) die("%s: the verifier accepts the broken plan", what);
    printf("broken: tensors %u '%s' and %u '%s' share offset %llu\n", a, g->tensors[a].name, b,
           g->tensors[b].name, (unsigned long long)p->allocs[a].offset);
  }
  snprintf(dir, sizeof dir, "%s/modules/%s", out_dir, prefix);
  mp_config mc;
  memset(&mc, 0, sizeof mc);
  mc.module_path = dir;
  mc.module_name = prefix;
  mc.prefix = prefix;
  mc.model_name = (char *)model_name;
  mc.platform = pf;
  mc.memory = c.a;
  mc.target = g->target;
  st = mp_emit_module(p, &mc, &sink);
  if (st != MP_OK) {
    fprintf(stderr, "FAIL %s: mp_emit_module: %s\n", what, mp_status_str(st));
    n_failed++;
    mp_plan_free(&p);
    cfg_free(&c);
    return false;
  }
  if (mp_make_dirs(pathf("%s/probe", dir), &sink) != MP_OK) die("cannot create %s/probe", dir);
  modrec *mr = add_mod();
  snprintf(mr->prefix, sizeof mr->prefix, "%s", prefix);
  snprintf(mr->what, sizeof mr->what, "%s", what);
  mr->bound = which == C_BOUND;
  mr->compile_checks = pl == mp_planner_at(0) || broken;
  mr->strong = which == C_STAGED;
  mr->probed = true;
  const bool gold = gmodel >= 0 && (which == C_COLD || which == C_STAGED || which == C_INPLACE);
  mr->split_arenas = gold;
  write_glue(p, prefix, up, what, which, gold, dir);
  /* the golden run: every planner's plans with constants cold and staged;
   * the first planner's cold one carries the wrong-kernel test and is the
   * one whose code size is reported */
  mr->gmodel = -1;
  if (gold) {
    bool first = pl == mp_planner_at(0) && which == C_COLD && g->target == MP_TARGET_GENERIC;
    write_golden(p, prefix, up, what, gmodel, first ? wrong_op_of(g) : -1, dir);
    mr->golden = true;
    mr->sized = first;
    mr->m4f = pl == mp_planner_at(0);
    mr->gmodel = gmodel;
    gmodels[gmodel].n_modules++;
  }
  mp_plan_free(&p);
  cfg_free(&c);
  return true;
}

/* The graph memory.in_place plans, as convert builds it: PADs folded into
 * their convolutions, copies made views, depthwise convolutions channel by
 * channel where that lowers the in-place bound (size, and true) or none
 * (speed); kernels prepared for `target`. */
static mp_graph *inplace_graph_as(const char *name, mp_model *m, mp_target target, bool speed) {
  mp_graph *g = NULL;
  mp_graph_options o = {.alias_views = true, .fold_pads = true, .sub_views = true,
                        .serial_depthwise = !speed,
                        .fast_kernels = speed && target != MP_TARGET_GENERIC};
  if (mp_graph_build(m, 0, &o, NULL, &g) != MP_OK) die("%s: no in-place graph", name);
  g->target = target;
  mp_status st = mp_kernels_prepare(g, false, NULL);
  if (st == MP_ERR_UNSUPPORTED) st = mp_kernels_prepare(g, true, NULL);
  if (st != MP_OK) die("%s: mp_kernels_prepare (in place): %s", name, mp_status_str(st));
  return g;
}

static mp_graph *inplace_graph(const char *name, mp_model *m, mp_target target) {
  return inplace_graph_as(name, m, target, false);
}

/* --filter REGEX: only the models whose name matches (a quick proof of
 * what a change touched; the full proof runs without it). */
static bool filtered;
static regex_t filter_re;

/* The fixtures that are invalid models on purpose (fixtures.c): each must
 * be refused by the graph build, and no other model may be skipped. */
static const char *const invalid_fixtures[] = {"fx_written_twice", "fx_writes_constant",
                                               "fx_dynamic_shape", NULL};

static bool is_invalid_fixture(const char *name) {
  for (size_t i = 0; invalid_fixtures[i]; i++)
    if (!strcmp(invalid_fixtures[i], name)) return true;
  return false;
}

/* A corpus model listed in the expected refusals (tests/expected_refusals.txt)
 * at convert: it is proven with --allow-unsupported's modules and not run
 * against TFLM; any other corpus model must run.  -1: not a corpus model. */
static int corpus_refused = -1;

static void model_modules(const char *name, mp_model *m, bool broken) {
  if (filtered && regexec(&filter_re, name, 0, NULL, 0) != 0) return;
  mp_graph *g = NULL;
  if (mp_graph_build(m, 0, NULL, NULL, &g) != MP_OK) {
    if (is_invalid_fixture(name)) {
      printf("skip %s: no graph (a fixture of an invalid model)\n", name);
    } else {
      printf("FAIL %s: the graph build refuses it\n", name);
      n_failed++;
    }
    return;
  }
  if (is_invalid_fixture(name)) {
    printf("FAIL %s: a fixture of an invalid model gives a graph\n", name);
    n_failed++;
  }
  /* as memplan convert does: kernels' op-local scratch joins the graph */
  mp_status st = mp_kernels_prepare(g, false, NULL);
  bool runnable = st == MP_OK;
  if (st == MP_ERR_UNSUPPORTED) st = mp_kernels_prepare(g, true, NULL);
  if (st != MP_OK) die("%s: mp_kernels_prepare: %s", name, mp_status_str(st));
  if (corpus_refused == 0 && !runnable) {
    printf("FAIL %s: an operator has no kernel, and the model is not an expected refusal\n", name);
    n_failed++;
  }
  /* a model memplan can run, with golden data: run against TFLM */
  int gmodel = -1;
  if (runnable && golden_dir && !broken) {
    char sn[40];
    short_name(name, sn, sizeof sn);
    gmodel = write_golden_model(g, name, sn);
  }
  mp_graph *gi = inplace_graph(name, m, MP_TARGET_GENERIC);
  for (uint32_t k = 0; k < mp_planner_count(); k++)
    for (int c = 0; c < C_COUNT; c++) {
      if (broken && (k > 0 || (c != C_COLD && c != C_INPLACE))) continue;
      one_module(name, c == C_INPLACE ? gi : g, mp_planner_at(k), c, broken, gmodel);
    }
  mp_graph_free(&gi);
  /* memory.op_order min_peak: when the search finds an order with a lower
   * bound, the graph built in it (lifetimes, views and op-local scratch of
   * that order), first planner, constants cold and in place: the probes
   * then check every byte in the order the module runs */
  uint32_t *order = broken ? NULL : malloc((g->n_ops + 1) * sizeof *order);
  mp_order_result r;
  if (order && mp_order_search(g, 16, false, 0, order, &r) == MP_OK && r.moved) {
    mp_graph_options o = {.alias_views = true, .order = order};
    mp_graph *h = NULL;
    if (mp_graph_build(m, 0, &o, NULL, &h) != MP_OK) die("%s: no graph in the min_peak order", name);
    if (mp_kernels_prepare(h, true, NULL) != MP_OK) die("%s: mp_kernels_prepare (min_peak)", name);
    char nm[96];
    snprintf(nm, sizeof nm, "%s_min_peak", name);
    one_module(nm, h, mp_planner_at(0), C_COLD, false, -1);
    one_module(nm, h, mp_planner_at(0), C_INPLACE, false, -1);
    printf("min_peak %s: %u of %u operators moved, bound %llu -> %llu\n", name, r.moved, g->n_ops,
           (unsigned long long)r.model_bound, (unsigned long long)r.bound);
    mp_graph_free(&h);
  }
  free(order);
  mp_graph_free(&g);
  /* the same model specialised for the Cortex-M55 (module.target), first
   * planner, constants cold, staged and cold with memory.in_place (the
   * specialised kernels' own overlap contracts): its kernels' portable
   * paths run on the host, their Helium paths on the Cortex-M55 and their
   * DSP paths on the Cortex-M4F */
  if (gmodel >= 0) {
    if (mp_graph_build(m, 0, NULL, NULL, &g) != MP_OK) die("%s: no graph", name);
    g->target = MP_TARGET_CORTEX_M55;
    if (mp_kernels_prepare(g, false, NULL) != MP_OK) die("%s: mp_kernels_prepare (cortex-m55)", name);
    one_module(name, g, mp_planner_at(0), C_COLD, false, gmodel);
    one_module(name, g, mp_planner_at(0), C_STAGED, false, gmodel);
    mp_graph_free(&g);
    g = inplace_graph(name, m, MP_TARGET_CORTEX_M55);
    one_module(name, g, mp_planner_at(0), C_INPLACE, false, gmodel);
    bool serial = g->n_serial_ops > 0;
    mp_graph_free(&g);
    /* memory.in_place speed, where it differs from size (depthwise
     * convolutions run channel by channel there): its module too */
    if (serial) {
      g = inplace_graph_as(name, m, MP_TARGET_CORTEX_M55, true);
      if (g->n_serial_ops) die("%s: memory.in_place speed ran a channel-serial kernel", name);
      char nm[96];
      snprintf(nm, sizeof nm, "%s_speed", name);
      one_module(nm, g, mp_planner_at(0), C_INPLACE, false, gmodel);
      printf("speed %s: %s\n", name, mp_target_name(g->target));
      mp_graph_free(&g);
    }
    /* memory.patch auto: when it runs a stage of the model tile by tile,
     * the patched graph's modules (first planner, in place; generic and
     * cortex-m55), probed and run against TFLM */
    for (int k = 0; k < 2; k++) {
      mp_graph *base = inplace_graph(name, m, k ? MP_TARGET_CORTEX_M55 : MP_TARGET_GENERIC);
      mp_graph *pg = NULL;
      mp_platform pf;
      cfg pc;
      if (!mp_platform_builtin("apollo510_evb", &pf)) die("no apollo510_evb platform");
      make_config(&pc, C_INPLACE, mp_planner_at(0), base, 0);
      if (mp_patch_search(base, &pf, &pc.a, true, &pg) != MP_OK) die("%s: mp_patch_search", name);
      if (pg) {
        char nm[96];
        snprintf(nm, sizeof nm, "%s_patch", name);
        one_module(nm, pg, mp_planner_at(0), C_INPLACE, false, gmodel);
        printf("patch %s: %s\n", name, mp_target_name(pg->target));
      }
      mp_graph_free(&pg);
      cfg_free(&pc);
      mp_graph_free(&base);
    }
    printf("golden %s: %u modules\n", name, (unsigned)gmodels[gmodel].n_modules);
  }
}

/* ---- images and the makefile ------------------------------------------------ */

static void pack_images(int *n_images) {
  uint64_t (*used)[T_COUNT] = calloc(n_mods + 1, sizeof *used);
  int *count = calloc(n_mods + 1, sizeof *count);
  int n = 0;
  for (size_t i = 0; i < n_mods; i++) {
    modrec *mr = &mods[i];
    if (!mr->probed) continue;
    for (int k = 0; k < T_COUNT; k++)
      if (mr->need[k] > target_capacity[k]) die("%s needs %llu bytes of %s", mr->what,
                                               (unsigned long long)mr->need[k], tsec((uint32_t)k));
    int img = -1;
    for (int j = 0; j < n && img < 0; j++) {
      bool fits = count[j] < MAX_PER_IMAGE;
      for (int k = 0; k < T_COUNT; k++) fits &= used[j][k] + mr->need[k] <= target_capacity[k];
      if (fits) img = j;
    }
    if (img < 0) img = n++;
    for (int k = 0; k < T_COUNT; k++) used[img][k] += mr->need[k];
    count[img]++;
    mr->image = img;
  }
  free(used);
  free(count);
  *n_images = n;
}

/* Golden Cortex-M55 images: the golden modules, in model order, first fit
 * into images whose arenas fit the board's DTCM, SRAM and QSPI and whose
 * golden data and module tables fit beside the harness in SRAMC (2 MiB,
 * tables estimated at GOLDEN_TABLES per module). */
#define GOLDEN_SRAMC (1400u * 1024u)
#define GOLDEN_TABLES (48u * 1024u)
#define MAX_GOLDEN_PER_IMAGE 16
static int pack_golden_images(bool m4f) {
  typedef struct gimg {
    uint64_t used[T_COUNT], sramc;
    int count;
    bool has[MAX_GMODELS];
  } gimg;
  gimg *im = calloc(n_mods + 1, sizeof *im);
  int n = 0;
  for (size_t i = 0; i < n_mods; i++) {
    modrec *mr = &mods[i];
    if (!mr->golden || (m4f && !mr->m4f)) continue;
    int img = -1;
    for (int j = 0; j <= n && img < 0; j++) {
      if (j == n) n++;
      gimg *x = &im[j];
      bool fits = x->count < MAX_GOLDEN_PER_IMAGE;
      for (int k = 0; k < T_COUNT; k++)
        fits &= x->used[k] + mr->need[k] <= target_capacity[k];
      uint64_t more = GOLDEN_TABLES + (x->has[mr->gmodel] ? 0 : gmodels[mr->gmodel].bytes);
      fits &= x->sramc + more <= GOLDEN_SRAMC;
      if (!fits && x->count == 0) die("%s does not fit a golden image", mr->what);
      if (!fits) continue;
      for (int k = 0; k < T_COUNT; k++)
        x->used[k] += mr->need[k];
      x->sramc += more;
      x->has[mr->gmodel] = true;
      x->count++;
      img = j;
    }
    if (m4f)
      mr->gimage4 = img;
    else
      mr->gimage = img;
  }
  free(im);
  return n;
}

/* Which modules a binary holds: the probed ones, the golden ones of the
 * Cortex-M55 images (and the host), or those of the Cortex-M4F images. */
enum { SET_PROBE, SET_GOLDEN, SET_M4F };

static bool in_set(const modrec *m, int image, int set) {
  switch (set) {
  case SET_PROBE: return m->probed && (image < 0 || m->image == image);
  case SET_GOLDEN: return m->golden && (image < 0 || m->gimage == image);
  default: return m->m4f && m->gimage4 == image;
  }
}

/* The modules of one binary: image k's modules of `set` (-1: all of them,
 * for the host binaries). */
static void write_registry(const char *path, int image, int set) {
  const bool golden = set != SET_PROBE;
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_puts(&b, "/* The modules of one proof binary. Generated by proof_gen. */\n"
                  "#include \"golden.h\"\n#include \"probe.h\"\n\n");
  for (size_t i = 0; i < n_mods; i++) {
    if (!in_set(&mods[i], image, set)) continue;
    if (!golden) mp_buf_printf(&b, "extern const probe_module probe_module_%s;\n", mods[i].prefix);
    if (golden) mp_buf_printf(&b, "extern const golden_module golden_module_%s;\n", mods[i].prefix);
  }
  mp_buf_puts(&b, "\nconst probe_module *const probe_modules[] = {\n");
  for (size_t i = 0; i < n_mods; i++)
    if (!golden && in_set(&mods[i], image, set))
      mp_buf_printf(&b, "    &probe_module_%s,\n", mods[i].prefix);
  mp_buf_puts(&b, "    NULL};\n\nconst golden_module *const golden_modules[] = {\n");
  for (size_t i = 0; i < n_mods; i++)
    if (golden && in_set(&mods[i], image, set))
      mp_buf_printf(&b, "    &golden_module_%s,\n", mods[i].prefix);
  mp_buf_puts(&b, "    NULL};\n");
  write_text(path, &b);
  mp_buf_free(&b);
}

/* The golden part of build.mk: the host binary, the golden Cortex-M55
 * images and the code-size ELFs.  The kernels are compiled once per target
 * (every module carries the same files) and linked into all of them. */
static void write_golden_rules(mp_buf *b, int n_images, int n_images4) {
  const char *kdir = NULL;
  mp_buf_puts(b,
              "\n# ---- golden: the modules with their kernels against TFLM\n"
              "GOLDEN_HOST_OBJS :=\nGOLDEN_HOST_KERNELS :=\nGOLDEN_M55_KERNELS :=\n"
              "GOLDEN_M4F_KERNELS :=\nSIZE_ELFS :=\n");
  for (int k = 0; k < n_images; k++)
    mp_buf_printf(b, "GOLD%d_OBJS :=\n", k);
  for (int k = 0; k < n_images4; k++)
    mp_buf_printf(b, "GOLD4F%d_OBJS :=\n", k);
  for (size_t i = 0; i < n_mods && !kdir; i++)
    if (mods[i].golden) kdir = mods[i].prefix;
  if (kdir) {
    /* one copy of the kernels, first: the rules below expand the lists */
    mp_buf_puts(b, "\n");
    for (uint32_t k = 0; k < emit_runtime_count(); k++) {
      const char *nm = emit_runtime_at(k)->name;
      size_t l = strlen(nm);
      if (l < 3 || strcmp(nm + l - 2, ".c")) continue;
      mp_buf_printf(b,
                    "$(O)/hostk/%.*s.o: $(O)/modules/%s/kernels/%s\n"
                    "\t$(HOST_CC) $(GOLDEN_HOST_CFLAGS) -c $< -o $@\nGOLDEN_HOST_KERNELS += "
                    "$(O)/hostk/%.*s.o\n",
                    (int)(l - 2), nm, kdir, nm, (int)(l - 2), nm);
      mp_buf_printf(
          b,
          "$(O)/m55k/%.*s.o: $(O)/modules/%s/kernels/%s\n"
          "\t$(ARM_CC) $(GOLDEN_M55_CFLAGS) -c $< -o $@\nGOLDEN_M55_KERNELS += $(O)/m55k/%.*s.o\n",
          (int)(l - 2), nm, kdir, nm, (int)(l - 2), nm);
      mp_buf_printf(
          b,
          "$(O)/m4fk/%.*s.o: $(O)/modules/%s/kernels/%s\n"
          "\t$(ARM_CC) $(GOLDEN_M4F_CFLAGS) -c $< -o $@\nGOLDEN_M4F_KERNELS += $(O)/m4fk/%.*s.o\n",
          (int)(l - 2), nm, kdir, nm, (int)(l - 2), nm);
    }
  }
  for (size_t i = 0; i < n_mods; i++) {
    const modrec *mr = &mods[i];
    if (!mr->golden) continue;
    const char *p = mr->prefix;
    char up[64], incs[PATH_MAX];
    for (size_t k = 0; k <= strlen(p); k++)
      up[k] = (char)toupper((unsigned char)p[k]);
    snprintf(incs, sizeof incs,
             "-I$(O)/modules/%s/include -I$(O)/modules/%s/kernels -I$(PROBE_DIR)", p, p);
    mp_buf_printf(b, "\n# %s\n", mr->what);
    /* the glue with the module's sources, host and target */
    mp_buf_printf(b,
                  "$(O)/hostk/%s_golden.o: $(O)/modules/%s/probe/golden.c\n\t$(HOST_CC) "
                  "$(GOLDEN_HOST_CFLAGS) %s -D%s_WITH_KERNELS=1 -c $< -o $@\n"
                  "GOLDEN_HOST_OBJS += $(O)/hostk/%s_golden.o\n",
                  p, p, incs, up, p);
    mp_buf_printf(b,
                  "$(O)/m55k/%s_golden.o: $(O)/modules/%s/probe/golden.c\n\t$(ARM_CC) "
                  "$(GOLDEN_M55_CFLAGS) -include $(O)/modules/%s/probe/target_place.h %s "
                  "-D%s_WITH_KERNELS=1 -c $< -o $@\nGOLD%d_OBJS += $(O)/m55k/%s_golden.o\n",
                  p, p, p, incs, up, mr->gimage, p);
    /* its arenas: the objects write_makefile compiles once per core */
    mp_buf_printf(b, "GOLDEN_HOST_OBJS += $(O)/host/%s_arenas.o\nGOLD%d_OBJS += $(O)/m55/%s_arenas.o\n",
                  p, mr->gimage, p);
    if (mr->m4f) {
      mp_buf_printf(b,
                    "$(O)/m4fk/%s_golden.o: $(O)/modules/%s/probe/golden.c\n\t$(ARM_CC) "
                    "$(GOLDEN_M4F_CFLAGS) -include $(O)/modules/%s/probe/target_place.h %s "
                    "-D%s_WITH_KERNELS=1 -c $< -o $@\nGOLD4F%d_OBJS += $(O)/m4fk/%s_golden.o\n",
                    p, p, p, incs, up, mr->gimage4, p);
      mp_buf_printf(b,
                    "$(O)/m4fk/%s_arenas.o: $(O)/modules/%s/src/%s_arenas.c\n\t$(ARM_CC) "
                    "$(GOLDEN_M4F_CFLAGS) -include $(O)/modules/%s/probe/target_place.h %s "
                    "-c $< -o $@\nGOLD4F%d_OBJS += $(O)/m4fk/%s_arenas.o\n",
                    p, p, p, p, incs, mr->gimage4, p);
    }
    if (!mr->sized) continue;
    /* the code size: the module on its own, weights in .mp_weights, linked
     * with --gc-sections from model_init and model_run */
    for (int f = 0; f < 2; f++) {
      const char *stem = f ? "arenas" : "model";
      mp_buf_printf(
          b,
          "$(O)/size/%s_%s.o: $(O)/modules/%s/src/%s_%s.c\n\t$(ARM_CC) $(GOLDEN_M55_CFLAGS) "
          "-include $(O)/modules/%s/probe/size_place.h %s -D%s_WITH_KERNELS=1 -c $< -o $@\n",
          p, stem, p, p, stem, p, incs, up);
    }
    mp_buf_printf(
        b,
        "$(O)/size/%s.elf: $(O)/size/%s_model.o $(O)/size/%s_arenas.o $(GOLDEN_M55_KERNELS)\n"
        "\t$(ARM_CC) $(SIZE_LDFLAGS) -Wl,-e,%s_model_run -Wl,-u,%s_model_init $^ -o $@ "
        "$(SIZE_LIBS)\n"
        "SIZE_ELFS += $(O)/size/%s.elf\n",
        p, p, p, p, p, p);
  }
  /* every model's golden data, once per binary that runs it */
  for (int g = 0; g < n_gmodels; g++) {
    const char *sym = gmodels[g].sym;
    mp_buf_printf(b,
                  "\n$(O)/hostk/gm_%s.o: $(O)/golden/%s.c\n\t$(HOST_CC) $(GOLDEN_HOST_CFLAGS) "
                  "-I$(PROBE_DIR) -c $< -o $@\nGOLDEN_HOST_OBJS += $(O)/hostk/gm_%s.o\n",
                  sym, sym, sym);
    mp_buf_printf(b,
                  "$(O)/m55k/gm_%s.o: $(O)/golden/%s.c\n\t$(ARM_CC) $(GOLDEN_M55_CFLAGS) "
                  "-I$(PROBE_DIR) -c $< -o $@\n",
                  sym, sym);
    for (int k = 0; k < n_images; k++) {
      bool in = false;
      for (size_t i = 0; i < n_mods && !in; i++)
        in = mods[i].golden && mods[i].gimage == k && mods[i].gmodel == g;
      if (in) mp_buf_printf(b, "GOLD%d_OBJS += $(O)/m55k/gm_%s.o\n", k, sym);
    }
    mp_buf_printf(b,
                  "$(O)/m4fk/gm_%s.o: $(O)/golden/%s.c\n\t$(ARM_CC) $(GOLDEN_M4F_CFLAGS) "
                  "-I$(PROBE_DIR) -c $< -o $@\n",
                  sym, sym);
    for (int k = 0; k < n_images4; k++) {
      bool in = false;
      for (size_t i = 0; i < n_mods && !in; i++)
        in = mods[i].m4f && mods[i].gimage4 == k && mods[i].gmodel == g;
      if (in) mp_buf_printf(b, "GOLD4F%d_OBJS += $(O)/m4fk/gm_%s.o\n", k, sym);
    }
  }
  mp_buf_puts(
      b, "\n$(O)/host/registry_golden.o: $(O)/registry_golden.c\n\t$(HOST_CC) $(HOST_CFLAGS) "
         "-I$(PROBE_DIR) -c $< -o $@\n"
         "$(O)/host/golden: $(GOLDEN_HOST_OBJS) $(GOLDEN_HOST_KERNELS) $(O)/host/registry_golden.o "
         "$(HOST_SUPPORT)\n\t$(HOST_CC) $(HOST_LDFLAGS) $^ -lm -o $@\n");
  mp_buf_puts(b, "GOLDEN_IMAGES :=");
  for (int k = 0; k < n_images; k++)
    mp_buf_printf(b, " $(O)/m55/gold%d.elf", k);
  mp_buf_puts(b, "\n");
  for (int k = 0; k < n_images; k++)
    mp_buf_printf(
        b,
        "$(O)/m55k/registry%d.o: $(O)/registry_gold%d.c\n\t$(ARM_CC) $(GOLDEN_M55_CFLAGS) "
        "-I$(PROBE_DIR) -c $< -o $@\n"
        "$(O)/m55/gold%d.elf: $(GOLD%d_OBJS) $(GOLDEN_M55_KERNELS) $(O)/m55k/registry%d.o "
        "$(GOLDEN_M55_SUPPORT)\n\t$(ARM_CC) $(GOLDEN_M55_LDFLAGS) $^ -o $@ $(M55_LIBS) -lm\n",
        k, k, k, k, k);
  mp_buf_puts(b, "GOLDEN_M4F_IMAGES :=");
  for (int k = 0; k < n_images4; k++)
    mp_buf_printf(b, " $(O)/m4f/gold%d.elf", k);
  mp_buf_puts(b, "\n");
  for (int k = 0; k < n_images4; k++)
    mp_buf_printf(
        b,
        "$(O)/m4fk/registry%d.o: $(O)/registry_m4f%d.c\n\t$(ARM_CC) $(GOLDEN_M4F_CFLAGS) "
        "-I$(PROBE_DIR) -c $< -o $@\n"
        "$(O)/m4f/gold%d.elf: $(GOLD4F%d_OBJS) $(GOLDEN_M4F_KERNELS) $(O)/m4fk/registry%d.o "
        "$(GOLDEN_M4F_SUPPORT)\n\t$(ARM_CC) $(GOLDEN_M4F_LDFLAGS) $^ -o $@ $(M55_LIBS) -lm\n",
        k, k, k, k, k);
  mp_buf_puts(b, "golden-images: $(GOLDEN_IMAGES)\ngolden-m4f-images: $(GOLDEN_M4F_IMAGES)\n"
                 "sizes: $(SIZE_ELFS)\n");
}

static void write_makefile(int n_images, int n_golden_images, int n_m4f_images) {
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_puts(&b, "# The emit proof's build. Generated by tests/emit/proof_gen.c; variables\n"
                  "# (HOST_CC, HOST_CFLAGS, ...) come from tests/suite_emit_proof.sh.\n\n");
  mp_buf_printf(&b, "O := %s\n\n", out_abs);
  mp_buf_puts(&b, "HOST_OBJS :=\nCLANG_OBJS :=\nM4_OBJS :=\n");
  for (int k = 0; k < n_images; k++) mp_buf_printf(&b, "IMG%d_OBJS :=\n", k);
  for (size_t i = 0; i < n_mods; i++) {
    const modrec *mr = &mods[i];
    const char *p = mr->prefix;
    mp_buf_printf(&b, "\n# %s\n", mr->what);
    char incs[PATH_MAX];
    snprintf(incs, sizeof incs, "-I$(O)/modules/%s/include -I$(O)/modules/%s/kernels -I$(PROBE_DIR)",
             p, p);
    /* host and Cortex-M55: one translation unit per module (the glue
     * includes the module's sources), the bound blobs, the application's
     * hydrate */
    const char *built[3] = {"glue.c", mr->bound ? "blobs.S" : NULL, mr->strong ? "hydrate.c" : NULL};
    for (int f = 0; f < 3 && mr->probed; f++) {
      if (!built[f]) continue;
      char stem[128];
      snprintf(stem, sizeof stem, "%s_%.*s", p, (int)strlen(built[f]) - 2, built[f]);
      mp_buf_printf(&b, "$(O)/host/%s.o: $(O)/modules/%s/probe/%s\n\t$(HOST_CC) $(HOST_CFLAGS) %s -c $< -o $@\n"
                        "HOST_OBJS += $(O)/host/%s.o\n", stem, p, built[f], incs, stem);
      mp_buf_printf(&b, "$(O)/m55/%s.o: $(O)/modules/%s/probe/%s\n\t$(ARM_CC) $(M55_CFLAGS) -include "
                        "$(O)/modules/%s/probe/target_place.h %s -c $< -o $@\nIMG%d_OBJS += $(O)/m55/%s.o\n",
                    stem, p, built[f], p, incs, mr->image, stem);
    }
    /* a golden module's arenas (a corpus model's weights, the bulk of the
     * build): one object per core, linked into the probe binary and image
     * and into the golden binary and image (both built hard-float for the
     * Cortex-M55) */
    if (mr->split_arenas) {
      mp_buf_printf(&b, "$(O)/host/%s_arenas.o: $(O)/modules/%s/src/%s_arenas.c\n\t$(HOST_CC) $(HOST_CFLAGS) %s -c $< -o $@\n",
                    p, p, p, incs);
      mp_buf_printf(&b, "$(O)/m55/%s_arenas.o: $(O)/modules/%s/src/%s_arenas.c\n\t$(ARM_CC) $(GOLDEN_M55_CFLAGS) -include "
                        "$(O)/modules/%s/probe/target_place.h %s -c $< -o $@\n",
                    p, p, p, p, incs);
      if (mr->probed)
        mp_buf_printf(&b, "HOST_OBJS += $(O)/host/%s_arenas.o\nIMG%d_OBJS += $(O)/m55/%s_arenas.o\n", p,
                      mr->image, p);
    }
    /* clang and Cortex-M4 compile checks of the module's own sources, one
     * by one: the modules of the first planner (the others differ only in
     * table values); the arenas of every fixture's and random DAG's module
     * (a golden module's hold a corpus model's weights in the same form,
     * compiled by gcc for each core) */
    for (int f = 0; f < 2 && mr->compile_checks; f++) {
      if (f == 1 && (mr->bound || mr->split_arenas)) continue;
      char stem[128];
      snprintf(stem, sizeof stem, "%s_%s", p, f ? "arenas" : "model");
      mp_buf_printf(&b, "$(O)/clang/%s.o: $(O)/modules/%s/src/%s.c\n\t$(CLANG_CC) $(CLANG_CFLAGS) %s -c $< -o $@\n"
                        "CLANG_OBJS += $(O)/clang/%s.o\n", stem, p, stem, incs, stem);
      mp_buf_printf(&b, "$(O)/m4/%s.o: $(O)/modules/%s/src/%s.c\n\t$(ARM_CC) $(M4_CFLAGS) %s -c $< -o $@\n"
                        "M4_OBJS += $(O)/m4/%s.o\n", stem, p, stem, incs, stem);
    }
  }
  mp_buf_puts(&b, "\nIMAGES :=");
  for (int k = 0; k < n_images; k++) mp_buf_printf(&b, " %s/m55/img%d.elf", out_abs, k);
  mp_buf_puts(&b, "\n\n");
  mp_buf_puts(&b, "$(O)/host/registry.o: $(O)/registry_host.c\n\t$(HOST_CC) $(HOST_CFLAGS) -I$(PROBE_DIR) -c $< -o $@\n");
  mp_buf_puts(&b, "$(O)/host/proof: $(HOST_OBJS) $(O)/host/registry.o $(HOST_SUPPORT)\n"
                  "\t$(HOST_CC) $(HOST_LDFLAGS) $^ -o $@\n\n");
  for (int k = 0; k < n_images; k++) {
    mp_buf_printf(&b, "$(O)/m55/registry%d.o: $(O)/registry_img%d.c\n\t$(ARM_CC) $(M55_CFLAGS) "
                      "-I$(PROBE_DIR) -c $< -o $@\n", k, k);
    mp_buf_printf(&b, "$(O)/m55/img%d.elf: $(IMG%d_OBJS) $(O)/m55/registry%d.o $(M55_SUPPORT)\n"
                      "\t$(ARM_CC) $(M55_LDFLAGS) $^ -o $@ $(M55_LIBS)\n", k, k, k);
  }
  write_golden_rules(&b, n_golden_images, n_m4f_images);
  mp_buf_puts(&b, "\nclang-check: $(CLANG_OBJS)\nm4-check: $(M4_OBJS)\n");
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/build.mk", out_dir);
  write_text(path, &b);
  mp_buf_free(&b);
}

/* ---- main -------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A model to prove: a corpus file, the bundled example, a fixture or a
 * random DAG. */
enum { K_CORPUS, K_EXAMPLE, K_FIXTURE, K_RANDOM };
typedef struct task {
  int kind;
  char name[128]; /* the model's name in the proof */
  char path[PATH_MAX];
  uint64_t seed;
  uint32_t ops;
} task;

static void run_task(const task *t) {
  mp_model *m = NULL;
  uint8_t *bytes = NULL;
  size_t size = 0;
  switch (t->kind) {
  case K_CORPUS: {
    char why[2048];
    int refused = tu_refusal_check(t->name, TU_STAGE_CONVERT, why, sizeof why);
    if (refused < 0) {
      printf("FAIL %s\n", why);
      n_failed++;
      return;
    }
    if (refused) printf("refused %s as expected (%s)\n", t->name, why);
    if (refused && tu_refusal_of(t->name, NULL) == TU_STAGE_PLAN) return; /* no graph */
    if (mp_model_load(t->path, &sink, &m) != MP_OK) die("cannot load %s", t->path);
    corpus_refused = refused;
    model_modules(t->name, m, false);
    corpus_refused = -1;
    break;
  }
  case K_EXAMPLE:
    if (mp_model_load(t->path, &sink, &m) != MP_OK) die("cannot load %s", t->path);
    model_modules(t->name, m, false);
    break;
  case K_FIXTURE:
    if (fx_build(t->path, &bytes, &size) == MP_OK &&
        mp_model_parse(bytes, size, t->path, NULL, &m) == MP_OK)
      model_modules(t->name, m, false);
    else {
      printf("FAIL fixture %s: does not build or parse\n", t->path);
      n_failed++;
    }
    break;
  case K_RANDOM:
    if (fx_random(t->seed, t->ops, &bytes, &size) != MP_OK ||
        mp_model_parse(bytes, size, t->name, NULL, &m) != MP_OK)
      die("random DAG %s", t->name);
    model_modules(t->name, m, false);
    break;
  }
  mp_model_free(&m);
  free(bytes);
}

static task *tasks;
static size_t n_tasks, cap_tasks;

static task *add_task(int kind, const char *name, const char *path) {
  if (n_tasks == cap_tasks) {
    cap_tasks = cap_tasks ? 2 * cap_tasks : 64;
    tasks = realloc(tasks, cap_tasks * sizeof *tasks);
    if (!tasks) die("out of memory");
  }
  task *t = &tasks[n_tasks++];
  memset(t, 0, sizeof *t);
  t->kind = kind;
  snprintf(t->name, sizeof t->name, "%s", name);
  snprintf(t->path, sizeof t->path, "%s", path ? path : "");
  return t;
}

/* The corpus models of dir, by name. */
static void shared_models(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    printf("NOTICE %s is absent: shared corpus models skipped\n", dir);
    return;
  }
  char *names[256];
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && n < 256) {
    size_t l = strlen(de->d_name);
    if (l > 7 && !strcmp(de->d_name + l - 7, ".tflite")) names[n++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_str);
  for (size_t i = 0; i < n; i++) {
    char path[PATH_MAX], nm[128];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    snprintf(nm, sizeof nm, "%.*s", (int)(strlen(names[i]) - 7), names[i]);
    add_task(K_CORPUS, nm, path);
    free(names[i]);
  }
}

/* What a child that proved one model hands back: the modules and golden
 * models it added, and its failures (OUT/gen/<k>.bin); its printed lines
 * are in OUT/gen/<k>.log. */
typedef struct task_result {
  int failed;
  uint32_t n_mods, n_gmodels;
  int32_t first_gmodel; /* n_gmodels when it started */
} task_result;

static void task_child(size_t k) {
  const char *log = pathf("%s/gen/%zu.log", out_abs, k);
  FILE *f = fopen(log, "w");
  if (!f) die("cannot write %s", log);
  if (dup2(fileno(f), 1) < 0 || dup2(fileno(f), 2) < 0) die("dup2");
  fclose(f);
  size_t m0 = n_mods;
  task_result r = {0, 0, 0, n_gmodels};
  int f0 = n_failed;
  run_task(&tasks[k]);
  r.failed = n_failed - f0;
  r.n_mods = (uint32_t)(n_mods - m0);
  r.n_gmodels = (uint32_t)(n_gmodels - r.first_gmodel);
  const char *bin = pathf("%s/gen/%zu.bin", out_abs, k);
  if (!(f = fopen(bin, "wb"))) die("cannot write %s", bin);
  if (fwrite(&r, sizeof r, 1, f) != 1 ||
      (r.n_mods && fwrite(mods + m0, sizeof *mods, r.n_mods, f) != r.n_mods) ||
      (r.n_gmodels &&
       fwrite(gmodels + r.first_gmodel, sizeof *gmodels, r.n_gmodels, f) != r.n_gmodels) ||
      fclose(f) != 0)
    die("cannot write %s", bin);
  fflush(stdout);
  exit(0); /* not _exit: a sanitizer's checks at exit run in the child too */
}

/* Take the results of task k, whose child ended with `status`, in the
 * order of the tasks (the modules, the images and the printed lines are
 * those of a run one model after the other). */
static void task_merge(size_t k, int status) {
  const char *log = pathf("%s/gen/%zu.log", out_abs, k);
  uint8_t *text = NULL;
  size_t len = 0;
  if (mp_read_file(log, &text, &len, NULL) == MP_OK) fwrite(text, 1, len, stdout);
  free(text);
  remove(log);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    printf("FAIL %s: its modules' generation %s %d\n", tasks[k].name,
           WIFEXITED(status) ? "exited" : "was killed by signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    n_failed++;
    return;
  }
  const char *bin = pathf("%s/gen/%zu.bin", out_abs, k);
  FILE *f = fopen(bin, "rb");
  task_result r;
  if (!f || fread(&r, sizeof r, 1, f) != 1) die("cannot read %s", bin);
  if (n_gmodels + (int)r.n_gmodels > MAX_GMODELS) die("more than %d golden models", MAX_GMODELS);
  int32_t shift = n_gmodels - r.first_gmodel;
  for (uint32_t i = 0; i < r.n_mods; i++) {
    modrec *mr = add_mod();
    if (fread(mr, sizeof *mr, 1, f) != 1) die("cannot read %s", bin);
    if (mr->gmodel >= 0) {
      if (mr->gmodel < r.first_gmodel) die("%s: a module of an earlier golden model", tasks[k].name);
      mr->gmodel += shift;
    }
  }
  if (r.n_gmodels && fread(gmodels + n_gmodels, sizeof *gmodels, r.n_gmodels, f) != r.n_gmodels)
    die("cannot read %s", bin);
  n_gmodels += (int)r.n_gmodels;
  n_failed += r.failed;
  fclose(f);
  remove(bin);
}

/* Every task, `jobs` children at a time (each proves one model), or one
 * after the other in this process when jobs is 1. */
static void run_tasks(int jobs) {
  if (jobs <= 1) {
    for (size_t k = 0; k < n_tasks; k++) run_task(&tasks[k]);
    return;
  }
  if (mp_make_dirs(pathf("%s/gen", out_abs), &sink) != MP_OK) die("cannot create %s/gen", out_abs);
  /* file-scope, so that a child's leak check at exit finds them reachable */
  static pid_t *pid;
  static int *status;
  static bool *done;
  pid = calloc(n_tasks + 1, sizeof *pid);
  status = calloc(n_tasks + 1, sizeof *status);
  done = calloc(n_tasks + 1, sizeof *done);
  if (!pid || !status || !done) die("out of memory");
  size_t next = 0, merged = 0;
  int running = 0;
  while (merged < n_tasks) {
    while (next < n_tasks && running < jobs) {
      fflush(stdout);
      fflush(stderr);
      pid[next] = fork();
      if (pid[next] < 0) die("fork");
      if (pid[next] == 0) task_child(next);
      next++;
      running++;
    }
    /* whichever child ends first frees its place; the results are taken
     * in order, as soon as every earlier task's are */
    int st = 0;
    pid_t w = waitpid(-1, &st, 0);
    if (w < 0) die("waitpid");
    size_t k = merged;
    while (k < next && pid[k] != w) k++;
    if (k == next) die("waitpid: a child of no task");
    status[k] = st;
    done[k] = true;
    running--;
    while (merged < next && done[merged]) {
      task_merge(merged, status[merged]);
      merged++;
    }
  }
  free(pid);
  free(status);
  free(done);
  rmdir(pathf("%s/gen", out_abs));
}

int main(int argc, char **argv) {
  const char *models = NULL, *example = NULL;
  bool broken = false;
  int jobs = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--models") && i + 1 < argc) {
      models = argv[++i];
      setenv("MEMPLAN_MODELS", models, 1); /* where tu_refusal_check finds them */
    }
    else if (!strcmp(argv[i], "--example") && i + 1 < argc) example = argv[++i];
    else if (!strcmp(argv[i], "--golden") && i + 1 < argc) golden_dir = argv[++i];
    else if (!strcmp(argv[i], "--broken")) broken = true;
    else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc && !filtered) {
      if (regcomp(&filter_re, argv[++i], REG_EXTENDED | REG_NOSUB) != 0)
        die("--filter: '%s' is not an extended regular expression", argv[i]);
      filtered = true;
    } else if (argv[i][0] != '-' && !out_dir) out_dir = argv[i];
    else die("usage: proof_gen OUT [--models DIR] [--golden DIR] [--example PATH] [--broken] "
             "[--filter REGEX] [--jobs N]");
  }
  if (!out_dir)
    die("usage: proof_gen OUT [--models DIR] [--golden DIR] [--example PATH] [--broken] "
        "[--filter REGEX] [--jobs N]");
  if (mp_make_dirs(out_dir, &sink) != MP_OK || !realpath(out_dir, out_abs)) die("bad OUT");
  static const char *const subdirs[] = {"host", "clang", "m4", "m55", "hostk", "m55k", "size",
                                        "m4f", "m4fk"};
  for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
    if (mp_make_dirs(pathf("%s/%s", out_abs, subdirs[i]), &sink) != MP_OK) die("bad OUT");
  if (broken) {
    /* the bundled example always exists; the corpus KWS when present */
    if (example) {
      mp_model *m = NULL;
      if (mp_model_load(example, &sink, &m) != MP_OK) die("cannot load %s", example);
      model_modules("kws_example", m, true);
      mp_model_free(&m);
    }
  } else {
    if (models) shared_models(models);
    if (example) add_task(K_EXAMPLE, "kws_example", example);
    const char *const *fx = fx_names();
    for (size_t i = 0; fx[i]; i++) {
      char nm[64];
      snprintf(nm, sizeof nm, "fx_%s", fx[i]);
      add_task(K_FIXTURE, nm, fx[i]);
    }
    static const struct { uint64_t seed; uint32_t ops; } rnd[] = {{1, 60}, {7, 240}};
    for (size_t i = 0; i < 2; i++) {
      char nm[64];
      snprintf(nm, sizeof nm, "fx_random%u", (unsigned)rnd[i].ops);
      task *t = add_task(K_RANDOM, nm, NULL);
      t->seed = rnd[i].seed;
      t->ops = rnd[i].ops;
    }
    run_tasks(jobs);
    free(tasks);
  }
  int n_images = 0;
  pack_images(&n_images);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/registry_host.c", out_dir);
  write_registry(path, -1, SET_PROBE);
  for (int k = 0; k < n_images; k++) {
    snprintf(path, sizeof path, "%s/registry_img%d.c", out_dir, k);
    write_registry(path, k, SET_PROBE);
  }
  snprintf(path, sizeof path, "%s/registry_golden.c", out_dir);
  write_registry(path, -1, SET_GOLDEN);
  int n_gimages = pack_golden_images(false);
  for (int k = 0; k < n_gimages; k++) {
    snprintf(path, sizeof path, "%s/registry_gold%d.c", out_dir, k);
    write_registry(path, k, SET_GOLDEN);
  }
  int n_gimages4 = pack_golden_images(true);
  for (int k = 0; k < n_gimages4; k++) {
    snprintf(path, sizeof path, "%s/registry_m4f%d.c", out_dir, k);
    write_registry(path, k, SET_M4F);
  }
  write_makefile(n_images, n_gimages, n_gimages4);
  snprintf(path, sizeof path, "%s/manifest.txt", out_dir);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  for (size_t i = 0; i < n_mods; i++)
    if (mods[i].probed) fprintf(f, "%s img%d %s\n", mods[i].prefix, mods[i].image, mods[i].what);
  fclose(f);
  /* the golden modules: prefix, image, model, sized, wrong op */
  snprintf(path, sizeof path, "%s/golden.txt", out_dir);
  if (!(f = fopen(path, "w"))) die("cannot write %s", path);
  for (size_t i = 0; i < n_mods; i++)
    if (mods[i].golden)
      fprintf(f, "%s gold%d %s %d\n", mods[i].prefix, mods[i].gimage, gmodels[mods[i].gmodel].name,
              mods[i].sized);
  fclose(f);
  /* the golden modules the Cortex-M4F images run: prefix, image, model */
  snprintf(path, sizeof path, "%s/golden_m4f.txt", out_dir);
  if (!(f = fopen(path, "w"))) die("cannot write %s", path);
  for (size_t i = 0; i < n_mods; i++)
    if (mods[i].m4f)
      fprintf(f, "%s gold%d %s\n", mods[i].prefix, mods[i].gimage4, gmodels[mods[i].gmodel].name);
  fclose(f);
  size_t n_golden = 0;
  for (size_t i = 0; i < n_mods; i++) n_golden += mods[i].golden;
  printf("proof_gen: %zu modules, %d target images, %zu golden, %d golden images, %u planners, "
         "%d failures\n", n_mods, n_images, n_golden, n_gimages, (unsigned)mp_planner_count(), n_failed);
  if (filtered) regfree(&filter_re);
  return n_failed ? 1 : 0;
}
