/*
 * emit_header.c — include/<p>_model.h, the one header an application of an
 * emitted module includes.
 *
 * It holds everything a firmware engineer needs and nothing they must not
 * touch: the plan hash, the counts, the status codes, the region enum with
 * each region's size and alignment, the placement and toolchain macros
 * (all overridable with -D), the arena symbols, the tensor/op descriptor
 * types and tables, the context, and the API with one contract comment per
 * function.  The module's internals (the kernel glue, the bound buffers)
 * stay in src/<p>_model.c.
 *
 * The header is C99 and also valid C++ (extern "C").
 */
#include "emit/parts.h"
#include "emit/text.h"

#include <string.h>

/* "int8 [1,49,10,1], 490 bytes" */
static void tensor_brief(mp_buf *b, const mp_tensor *t) {
  mp_buf_printf(b, "%s [", mp_dtype_name(t->dtype));
  for (uint32_t d = 0; d < t->rank; d++) mp_buf_printf(b, "%s%d", d ? "," : "", t->shape[d]);
  mp_buf_printf(b, "], %llu bytes", (unsigned long long)t->size);
}

/* The C type of the helpers that quantise into / dequantise from an
 * element type, or NULL when the header has none for it. */
static const char *quant_ctype(int32_t dtype) {
  switch (dtype) {
  case MP_DTYPE_INT8: return "int8_t";
  case MP_DTYPE_UINT8: return "uint8_t";
  case MP_DTYPE_INT16: return "int16_t";
  default: return NULL;
  }
}

/* One graph input or output: a comment, then its named constants
 * (<P>_INPUT0_DTYPE, _SIZE, _SHAPE, _SCALE, ...). */
static void io_constants(const emit_ctx *e, mp_buf *b, bool input, uint32_t i, int32_t id) {
  const char *u = e->up, *p = e->prefix;
  const mp_tensor *t = &e->g->tensors[id];
  mp_io_quant q = mp_graph_tensor_quant(e->g, (uint32_t)id);
  char m[96];
  snprintf(m, sizeof m, "%s_%s%u", u, input ? "INPUT" : "OUTPUT", i);
  char dt[32];
  snprintf(dt, sizeof dt, "%s", mp_dtype_name(t->dtype));
  for (char *c = dt; *c; c++)
    if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
  uint64_t elements = 1;
  for (uint32_t d = 0; d < t->rank; d++) elements *= (uint64_t)(t->shape[d] > 0 ? t->shape[d] : 0);
  mp_buf_printf(b, "/* %s %u: tensor %d '", input ? "Input" : "Output", i, id);
  emit_comment_text(b, t->name, 48);
  mp_buf_puts(b, "', ");
  tensor_brief(b, t);
  mp_buf_puts(b, " */\n");
  mp_buf_printf(b, "#define %s_TENSOR %du\n#define %s_DTYPE %s_DTYPE_%s\n", m, id, m, u, dt);
  mp_buf_printf(b, "#define %s_SIZE %lluu\n#define %s_ELEMENTS %lluu\n", m,
                (unsigned long long)t->size, m, (unsigned long long)elements);
  uint32_t align = mp_dtype_align(t->dtype);
  if (t->align_hint > align) align = t->align_hint;
  mp_buf_printf(b, "#define %s_ALIGN %uu\n", m, align ? align : 1u);
  mp_buf_printf(b, "#define %s_RANK %uu\n", m, t->rank);
  if (t->rank) {
    mp_buf_printf(b, "#define %s_SHAPE {", m);
    for (uint32_t d = 0; d < t->rank; d++) mp_buf_printf(b, "%s%d", d ? ", " : "", t->shape[d]);
    mp_buf_puts(b, "}\n");
    for (uint32_t d = 0; d < t->rank; d++)
      mp_buf_printf(b, "#define %s_DIM%u %d\n", m, d, t->shape[d]);
  }
  mp_buf_printf(b, "#define %s_QUANTISED %d\n#define %s_SCALE ", m, q.quantised ? 1 : 0, m);
  emit_float(b, q.scale);
  if (q.zero_point < 0)
    mp_buf_printf(b, "\n#define %s_ZERO_POINT (%d)\n", m, q.zero_point);
  else
    mp_buf_printf(b, "\n#define %s_ZERO_POINT %d\n", m, q.zero_point);
  if (q.quantised && quant_ctype(t->dtype)) {
    if (input)
      mp_buf_printf(b, "#define %s_QUANTISE(x) %s_quantise_%s((x), %s_SCALE, %s_ZERO_POINT)\n", m,
                    p, mp_dtype_name(t->dtype), m, m);
    else
      mp_buf_printf(b, "#define %s_DEQUANTISE(q) %s_dequantise_%s((q), %s_SCALE, %s_ZERO_POINT)\n",
                    m, p, mp_dtype_name(t->dtype), m, m);
  }
}

static void io_list(const emit_ctx *e, mp_buf *b) {
  const mp_graph *g = e->g;
  mp_buf_printf(b,
      "/* The graph inputs and outputs; ctx->inputs[i] / ctx->outputs[i] carry the\n"
      " * same facts after %s_model_init.  _SIZE is in bytes.  A quantised tensor\n"
      " * holds real = _SCALE * (q - _ZERO_POINT); both are 0 when it is not\n"
      " * quantised per tensor (_QUANTISED 0).  _SHAPE is an initialiser, e.g.\n"
      " *   static const int32_t shape[%s_INPUT0_RANK] = %s_INPUT0_SHAPE; */\n",
      e->prefix, e->up, e->up);
  if (e->io_caller)
    mp_buf_printf(b,
        "/* memory.io caller: the inputs and outputs live in buffers of the\n"
        " * application.  Before every %s_model_run, point ctx->inputs[i].data and\n"
        " * ctx->outputs[j].data at them (each _SIZE bytes, aligned to _ALIGN), and\n"
        " * set .size to the buffer's size to have it checked; %s_model_run fails\n"
        " * with %s_STATUS_BAD_IO (ctx->error_code: the index, inputs first) on a\n"
        " * NULL, short or misaligned one. */\n",
        e->prefix, e->prefix, e->up);
  mp_buf_printf(b, "#define %s_IO_CALLER %d\n", e->up, e->io_caller ? 1 : 0);
  if (g->n_inputs == 0) mp_buf_puts(b, "/* (no inputs) */\n");
  for (uint32_t i = 0; i < g->n_inputs; i++) io_constants(e, b, true, i, g->inputs[i]);
  if (g->n_outputs == 0) mp_buf_puts(b, "/* (no outputs) */\n");
  for (uint32_t i = 0; i < g->n_outputs; i++) io_constants(e, b, false, i, g->outputs[i]);
}

/* The quantise/dequantise helpers of every element type a quantised input
 * or output has.  Quantising follows TFLM's QUANTIZE: round half away from
 * zero, add the zero point, saturate. */
static void quant_helpers(const emit_ctx *e, mp_buf *b) {
  const mp_graph *g = e->g;
  static const int32_t types[] = {MP_DTYPE_INT8, MP_DTYPE_UINT8, MP_DTYPE_INT16};
  static const int32_t lo[] = {-128, 0, -32768}, hi[] = {127, 255, 32767};
  bool need[3] = {false, false, false}, any = false;
  for (uint32_t i = 0; i < g->n_inputs + g->n_outputs; i++) {
    int32_t id = i < g->n_inputs ? g->inputs[i] : g->outputs[i - g->n_inputs];
    if (!mp_graph_tensor_quant(g, (uint32_t)id).quantised) continue;
    for (int k = 0; k < 3; k++)
      if (g->tensors[id].dtype == types[k]) need[k] = any = true;
  }
  if (!any) return;
  mp_buf_printf(b,
      "/* Quantise a real value for an input and dequantise an output element,\n"
      " * with the _QUANTISE / _DEQUANTISE macros of each quantised input and\n"
      " * output, e.g.\n"
      " *   ((int8_t *)ctx.inputs[0].data)[k] = %s_INPUT0_QUANTISE(x);\n"
      " *   float y = %s_OUTPUT0_DEQUANTISE(((const int8_t *)ctx.outputs[0].data)[k]);\n"
      " * q = round(x / scale) + zero_point, rounding half away from zero and\n"
      " * saturating to the type, as TFLM's QUANTIZE; NaN gives the zero point.\n"
      " * Dequantising is scale * (q - zero_point). */\n",
      e->up, e->up);
  for (int k = 0; k < 3; k++) {
    if (!need[k]) continue;
    const char *ct = quant_ctype(types[k]), *dn = mp_dtype_name(types[k]), *p = e->prefix;
    mp_buf_printf(b,
        "static inline %s %s_quantise_%s(float x, float scale, int32_t zero_point) {\n"
        "  float v = x / scale, frac;\n"
        "  int64_t q;\n"
        "  if (!(v == v)) v = 0.0f; /* NaN */\n"
        "  if (v > 1073741824.0f) v = 1073741824.0f;\n"
        "  if (v < -1073741824.0f) v = -1073741824.0f;\n"
        "  q = (int64_t)v;\n"
        "  frac = v - (float)q;\n"
        "  if (frac >= 0.5f) q++;\n"
        "  if (frac <= -0.5f) q--;\n"
        "  q += zero_point;\n"
        "  return (%s)(q < %d ? %d : q > %d ? %d : q);\n"
        "}\n\n"
        "static inline float %s_dequantise_%s(%s q, float scale, int32_t zero_point) {\n"
        "  return scale * (float)((int32_t)q - zero_point);\n"
        "}\n\n",
        ct, p, dn, ct, lo[k], lo[k], hi[k], hi[k], p, dn, ct);
  }
}

static void region_comment(const emit_ctx *e, const emit_region *r, mp_buf *b) {
  const mp_arena *a = r->a;
  if (r->is_source)
    mp_buf_printf(b, "source blob of %s_REGION_CONST_%s, in %s", e->up, emit_mem_upper(e, a->memory),
                  emit_mem_name(e, r->memory));
  else if (a->role == MP_ROLE_CONSTANT)
    mp_buf_printf(b, "%s constants in %s", a->is_staged ? "staged" : "cold",
                  emit_mem_name(e, a->memory));
  else
    mp_buf_printf(b, "%s arena in %s", mp_role_name(a->role), emit_mem_name(e, a->memory));
  if (e->allocate)
    mp_buf_printf(b, ": %s", r->symbol);
  else if (r->has_bytes)
    mp_buf_printf(b, ": bind the bytes of %s", r->file);
}

static void status_codes(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  mp_buf_printf(b,
      "/* Status codes.  Every entry point (bind, init, hydrate, run) returns one\n"
      " * of these as an int32_t: 0 on success, negative on failure. */\n"
      "typedef enum %s_status_t {\n"
      "  %s_STATUS_OK = 0,                 /* success */\n"
      "  %s_STATUS_BAD_ARGUMENT = -1,      /* a NULL pointer, or a bind_arenas count\n"
      "                                        above %s_NUM_REGIONS */\n"
      "  %s_STATUS_BAD_REGION = -2,        /* a region id that names no region */\n"
      "  %s_STATUS_UNBOUND_REGION = -3,    /* a region has no buffer: bind it before\n"
      "                                        %s_model_init */\n"
      "  %s_STATUS_REGION_TOO_SMALL = -4,  /* a buffer smaller than its region's _SIZE */\n"
      "  %s_STATUS_MISALIGNED = -5,        /* a buffer not aligned to its region's _ALIGN */\n"
      "  %s_STATUS_PLAN_MISMATCH = -6,     /* the caller was compiled with the header\n"
      "                                        of another plan, or the context was set\n"
      "                                        up with one (%s_PLAN_HASH differs\n"
      "                                        from the compiled module) */\n"
      "  %s_STATUS_NOT_INITIALISED = -7,   /* %s_model_run before a successful\n"
      "                                        %s_model_init */\n"
      "  %s_STATUS_HYDRATE_FAILED = -8,    /* %s_hydrate_constants failed; its value\n"
      "                                        is in ctx->error_code */\n"
      "  %s_STATUS_UNSUPPORTED_OP = -9,    /* an operator has no kernel: none linked and\n"
      "                                        none from ctx->kernel_hook; the op is\n"
      "                                        ctx->failed_op */\n"
      "  %s_STATUS_KERNEL_FAILED = -10,    /* a kernel or init hook failed: the op is\n"
      "                                        ctx->failed_op, its value ctx->error_code */\n"
      "  %s_STATUS_DUPLICATE_REGION = -11, /* bind_arenas names a region twice */\n"
      "  %s_STATUS_BUFFER_OVERLAP = -12,   /* a buffer overlaps the buffer of another\n"
      "                                        region */\n"
      "  %s_STATUS_REBOUND = -13,          /* a region was bound again after this\n"
      "                                        context's %s_model_init: its inputs and\n"
      "                                        outputs point at the old buffers; call\n"
      "                                        %s_model_init again */\n"
      "  %s_STATUS_BAD_CONSTANTS = -14,    /* a constant region's bytes do not match\n"
      "                                        its _CRC32 (%s_check_constants) */\n"
      "  %s_STATUS_BAD_IO = -15            /* memory.io caller: an input or output buffer\n"
      "                                        is NULL, short or misaligned; its index\n"
      "                                        (inputs first) is ctx->error_code */\n"
      "} %s_status_t;\n\n",
      p, u, u, u, u, u, p, u, u, u, u, u, p, p, u, p, u, u, u, u, u, p, p, u, p, u, p);
}

static void regions(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  mp_buf_printf(b,
      "/* Regions: every buffer the module's tensors live in, by id.  Ids follow\n"
      " * the plan's arenas (role: scratch, persistent, constant; then memory\n"
      " * name), which are the residency report's region_id; the source blobs of\n"
      " * staged constant arenas come last (source_region_id). */\n"
      "typedef enum %s_arena_region_t {\n", p);
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    mp_buf_printf(b, "  %s = %u, /* ", r->enum_name, i);
    region_comment(e, r, b);
    mp_buf_puts(b, " */\n");
  }
  mp_buf_printf(b, "  %s_NUM_REGIONS = %u\n} %s_arena_region_t;\n\n", u, e->n_regions, p);
  mp_buf_printf(b, "/* The region of a tensor without storage (unused, optional, empty). */\n"
                   "#define %s_NO_REGION %uu\n\n", u, EMIT_NO_REGION);
  mp_buf_puts(b, "/* Size in bytes and base alignment of every region: what a bound buffer\n"
                 " * must provide. */\n");
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    mp_buf_printf(b, "#define %s_SIZE %lluu\n#define %s_ALIGN %uu\n", r->enum_name,
                  (unsigned long long)r->size, r->enum_name, r->align);
  }
  bool any = false;
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    if (!r->has_bytes) continue;
    if (!any)
      mp_buf_printf(b, "/* CRC-32 (zlib's: crc32, Python's zlib.crc32) of every constant\n"
                       " * region's bytes%s: %s_check_constants compares. */\n",
                    e->allocate ? "" : ", the file under data/ it comes from", e->prefix);
    any = true;
    mp_buf_printf(b, "#define %s_CRC32 0x%08xu\n", r->enum_name, (unsigned)r->crc32);
  }
  mp_buf_puts(b, "\n");
}

/* True when the module's read-only tables are defined with memory m's
 * macro (module.tables_memory). */
static bool tables_in(const emit_ctx *e, mp_memory m) {
  return e->table_macro[0] && e->tables->t.memory == m;
}

/* True when memory m holds a read-only region (consts) or a writable one
 * (writable). */
static bool memory_used(const emit_ctx *e, mp_memory m, bool consts, bool writable) {
  for (uint32_t i = 0; i < e->n_regions; i++)
    if (e->regions[i].memory == m &&
        ((consts && e->regions[i].is_const) || (writable && !e->regions[i].is_const)))
      return true;
  return false;
}

static void toolchain_macros(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up;
  if (e->allocate) {
    mp_buf_printf(b,
        "/* Placement: each region is defined with the macro of its memory, empty by\n"
        " * default.  Define them (before this header, or with -D) to put the\n"
        " * regions where they belong.  Zero-initialised arenas (scratch,\n"
        " * persistent, staged copies) use %s_PUT_IN_<MEM>; give them a .bss.*\n"
        " * section, which takes no space in the image, e.g.\n"
        " *   -D'%s_PUT_IN_DTCM=__attribute__((section(\".bss.dtcm\")))'\n"
        " * and NOLOAD in the linker script.  Read-only blobs (cold constants,\n"
        " * staged sources) use %s_PUT_CONST_IN_<MEM>, e.g. a .rodata.* section;\n"
        " * one in RAM needs a load image in flash and a copy at boot, like .data.\n"
        " * The two never share a section.  With module.tables_memory the module's\n"
        " * read-only tables use that memory's %s_PUT_CONST_IN_<MEM> too. */\n",
        u, u, u, u);
    mp_memory by_name[MP_MEM_COUNT];
    uint32_t n_mem = mp_platform_by_name(&e->plan->platform, by_name);
    for (uint32_t k = 0; k < n_mem; k++) {
      mp_memory m = by_name[k];
      const char *mu = emit_mem_upper(e, m);
      if (memory_used(e, m, false, true))
        mp_buf_printf(b, "#ifndef %s_PUT_IN_%s\n#define %s_PUT_IN_%s\n#endif\n", u, mu, u, mu);
      if (memory_used(e, m, true, false) || tables_in(e, m))
        mp_buf_printf(b, "#ifndef %s_PUT_CONST_IN_%s\n#define %s_PUT_CONST_IN_%s\n#endif\n", u,
                      mu, u, mu);
    }
    mp_buf_printf(b, "/* Arena base alignment (GCC and Clang syntax; redefine for other\n"
                     " * compilers). */\n"
                     "#ifndef %s_ALIGNED\n#define %s_ALIGNED(n) __attribute__((aligned(n)))\n"
                     "#endif\n",
                  u, u);
  } else if (e->table_macro[0]) {
    const char *mu = emit_mem_upper(e, e->tables->t.memory);
    mp_buf_printf(b,
        "/* Placement: the module's read-only tables (module.tables_memory) are\n"
        " * defined with %s_PUT_CONST_IN_%s, empty by default. */\n"
        "#ifndef %s_PUT_CONST_IN_%s\n#define %s_PUT_CONST_IN_%s\n#endif\n",
        u, mu, u, mu, u, mu);
  }
  mp_buf_printf(b, "/* A definition the application may replace (%s_hydrate_constants). */\n"
                   "#ifndef %s_WEAK\n#define %s_WEAK __attribute__((weak))\n#endif\n\n",
                e->prefix, u, u);
}

static void arena_symbols(const emit_ctx *e, mp_buf *b) {
  bool any_shared = false;
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    if (!r->shared) continue;
    if (!any_shared)
      mp_buf_puts(b, "/* Scratch shared with the other modules of the config's models (they\n"
                     " * never run at the same time): one buffer per memory, as large as the\n"
                     " * largest of their scratch arenas there. */\n");
    any_shared = true;
    mp_buf_printf(b, "#define %s %lluu /* %s, of which this model needs %s_SIZE */\n",
                  r->shared_size_macro, (unsigned long long)r->shared_size, r->symbol,
                  r->enum_name);
  }
  if (any_shared) mp_buf_puts(b, "\n");
  if (!e->allocate) return;
  mp_buf_printf(b, "/* The arenas (src/%s_arenas.c), one symbol per region. */\n", e->prefix);
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    if (r->shared)
      mp_buf_printf(b, "extern uint8_t %s[%s]; /* %s */\n", r->symbol, r->shared_size_macro,
                    r->shared_define ? "defined by this module" : "defined by another module");
    else
      mp_buf_printf(b, "extern %suint8_t %s[%s_SIZE];\n", r->is_const ? "const " : "", r->symbol,
                    r->enum_name);
  }
  mp_buf_puts(b, "\n");
}

static void types(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  mp_buf_printf(b, "/* Element types: the LiteRT TensorType codes. */\ntypedef enum %s_dtype_t {\n",
                p);
  for (int32_t d = 0; d < MP_DTYPE_COUNT; d++) {
    char name[32];
    snprintf(name, sizeof name, "%s", mp_dtype_name(d));
    for (char *c = name; *c; c++)
      if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
    mp_buf_printf(b, "  %s_DTYPE_%s = %d%s\n", u, name, d, d + 1 < MP_DTYPE_COUNT ? "," : "");
  }
  mp_buf_printf(b, "} %s_dtype_t;\n\n", p);
  mp_buf_printf(b,
      "/* A tensor: where it lives and what it holds.  Its bytes are at\n"
      " * arena_buffers[region] + offset (%s_tensor_data). */\n"
      "typedef struct %s_tensor_t {\n"
      "  uint8_t region;       /* %s_arena_region_t, %s_NO_REGION, or (memory.io\n"
      "                           caller) %s_NUM_REGIONS + k: caller buffer k, the\n"
      "                           inputs then the outputs */\n"
      "  uint32_t offset;      /* bytes from the region's base */\n"
      "  uint32_t size;        /* bytes */\n"
      "  uint8_t dtype;        /* %s_dtype_t */\n"
      "  uint8_t rank;\n"
      "  const int32_t *shape; /* rank dimensions; NULL when rank is 0 */\n"
      "} %s_tensor_t;\n\n",
      p, p, p, u, u, p, p);
  mp_buf_printf(b,
      "/* An operator, in execution order. */\n"
      "typedef struct %s_op_t {\n"
      "  uint32_t index;         /* position in execution order */\n"
      "  int32_t builtin;        /* LiteRT BuiltinOperator code (32: CUSTOM) */\n"
      "  const char *name;       /* \"CONV_2D\", or the custom code */\n"
      "  uint8_t is_view;        /* 1: a no-op: a view the planner aliased, a PAD\n"
      "                             folded into the operator reading it, or an\n"
      "                             operator resolved at convert time (CALL_ONCE,\n"
      "                             VAR_HANDLE) */\n"
      "  uint8_t n_inputs;\n"
      "  uint8_t n_outputs;\n"
      "  const int32_t *inputs;  /* tensor ids, in the operator's order; -1: absent */\n"
      "  const int32_t *outputs;\n"
      "  int32_t scratch;        /* the op's local scratch tensor, or -1 */\n"
      "  const void *params;     /* the built-in kernel's parameters, or NULL */\n"
      "  const char *params_type; /* their struct in kernels/mpk.h (\"mpk_conv_s8_params\"),\n"
      "                             or NULL */\n"
      "} %s_op_t;\n\n",
      p, p);
  mp_buf_printf(b,
      "/* A graph input or output: where to write it or read it, and what it\n"
      " * holds (the header's %s_INPUT<i>_ and %s_OUTPUT<i>_ constants). */\n"
      "typedef struct %s_io_t {\n"
      "  void *data;\n"
      "  size_t size;          /* bytes */\n"
      "  uint32_t tensor;      /* tensor id */\n"
      "  uint8_t dtype;        /* %s_dtype_t */\n"
      "  uint8_t rank;\n"
      "  const int32_t *shape; /* rank dimensions; NULL when rank is 0 */\n"
      "  float scale;          /* real = scale * (q - zero_point); 0: not quantised */\n"
      "  int32_t zero_point;\n"
      "} %s_io_t;\n\n",
      u, u, p, p, p);
  mp_buf_printf(b,
      "typedef enum %s_op_event_t { %s_OP_STARTED = 0, %s_OP_FINISHED = 1 } %s_op_event_t;\n"
      "typedef enum %s_kernel_phase_t { %s_PHASE_INIT = 0, %s_PHASE_RUN = 1 } "
      "%s_kernel_phase_t;\n\n",
      p, u, u, p, p, u, u, p);
  mp_buf_printf(b,
      "/* A kernel hook's answer \"run the built-in kernel of this operator\". */\n"
      "#define %s_KERNEL_DEFAULT 1\n\n"
      "struct %s_model_context_t;\n\n"
      "/* Called before (%s_OP_STARTED) and after (%s_OP_FINISHED) every operator\n"
      " * of %s_model_run, views included; not after a failing one. */\n"
      "typedef void (*%s_op_callback_t)(const %s_op_t *op, %s_op_event_t event, void "
      "*user_data);\n\n"
      "/* Pluggable kernels: when ctx->kernel_hook is set, it is called for every\n"
      " * operator that is not an aliased view, once from %s_model_init (phase\n"
      " * %s_PHASE_INIT, after the constants are hydrated) and at every run\n"
      " * (%s_PHASE_RUN).  It returns %s_STATUS_OK when it ran the operator,\n"
      " * %s_KERNEL_DEFAULT to run the built-in kernel instead, anything else\n"
      " * to fail (%s_STATUS_KERNEL_FAILED, the value in ctx->error_code).\n"
      " * What a hook needs to run an operator itself: op->inputs[k] and\n"
      " * op->outputs[k] are tensor ids (-1: an absent optional input), each\n"
      " * with its descriptor %s_tensors[id] (dtype, rank, shape, size) and its\n"
      " * bytes at %s_tensor_data(id); op->scratch is its local scratch tensor;\n"
      " * op->params points at the parameters memplan computed for the built-in\n"
      " * kernel (strides, padding, requantisation multipliers and shifts, ...),\n"
      " * a const struct op->params_type of kernels/mpk.h, NULL for an operator\n"
      " * without one. */\n"
      "typedef int32_t (*%s_kernel_hook_t)(struct %s_model_context_t *ctx, const %s_op_t *op,\n"
      "                                    %s_kernel_phase_t phase);\n\n",
      u, p, u, u, p, p, p, p, p, u, u, u, u, u, p, p, p, p, p, p);
  uint32_t ni = e->g->n_inputs ? e->g->n_inputs : 1, no = e->g->n_outputs ? e->g->n_outputs : 1;
  mp_buf_printf(b,
      "/* The state of one model instance.  Set it up with %s_MODEL_CONTEXT_INIT,\n"
      " * or zero it (a plain static context works); the application may then set\n"
      " * callback, user_data and kernel_hook. */\n"
      "typedef struct %s_model_context_t {\n",
      u, p);
  /* fields with their comments in one column */
  char decl[11][128];
  const char *note[11] = {NULL};
  snprintf(decl[0], sizeof decl[0], "uint64_t plan_hash;");
  snprintf(decl[1], sizeof decl[1], "%s_op_callback_t callback;", p);
  snprintf(decl[2], sizeof decl[2], "void *user_data;");
  snprintf(decl[3], sizeof decl[3], "%s_kernel_hook_t kernel_hook;", p);
  snprintf(decl[4], sizeof decl[4], "%s_io_t inputs[%u];", p, ni);
  snprintf(decl[5], sizeof decl[5], "%s_io_t outputs[%u];", p, no);
  snprintf(decl[6], sizeof decl[6], "int32_t initialised;");
  snprintf(decl[7], sizeof decl[7], "int32_t failed_op;");
  snprintf(decl[8], sizeof decl[8], "int32_t error_code;");
  snprintf(decl[9], sizeof decl[9], "int32_t failed_region;");
  snprintf(decl[10], sizeof decl[10], "uint32_t binding_epoch;");
  char n0[128], n4[128], n6[128];
  snprintf(n0, sizeof n0, "0, or %s_PLAN_HASH of the header it was set up with", u);
  snprintf(n4, sizeof n4, "pointed at their slots by %s_model_init", p);
  snprintf(n6, sizeof n6, "1 after a successful %s_model_init", p);
  note[0] = n0;
  note[1] = "or NULL";
  note[2] = "passed to callback";
  note[3] = "or NULL: built-in kernels only";
  note[4] = n4;
  note[6] = n6;
  note[7] = "the operator of the last failure, or -1";
  note[8] = "what a failing kernel, hook or hydrate returned, else 0";
  note[9] = "the region a binding check refused, or -1";
  note[10] = "the bindings model_init saw (internal)";
  size_t w = 0;
  for (int i = 0; i < 11; i++)
    if (strlen(decl[i]) > w) w = strlen(decl[i]);
  for (int i = 0; i < 11; i++) {
    if (note[i])
      mp_buf_printf(b, "  %-*s /* %s */\n", (int)w, decl[i], note[i]);
    else
      mp_buf_printf(b, "  %s\n", decl[i]);
  }
  mp_buf_printf(b,
      "} %s_model_context_t;\n\n"
      "#define %s_MODEL_CONTEXT_INIT \\\n"
      "  {.plan_hash = %s_PLAN_HASH, .failed_op = -1, .failed_region = -1}\n\n",
      p, u, u);
}

static void api(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  mp_buf_printf(b,
      "/* The descriptor of every tensor, by id, and of every operator, in\n"
      " * execution order. */\n"
      "extern const %s_tensor_t %s_tensors[%s_NUM_TENSORS];\n"
      "extern const %s_op_t %s_ops[%s_NUM_OPS];\n\n",
      p, p, u, p, p, u);
  mp_buf_printf(b,
      "/* Point `region` at buf (size bytes, which must be at least the region's\n"
      " * _SIZE and aligned to its _ALIGN).  A constant region's buffer must\n"
      " * hold the region's bytes.  Bind before %s_model_init; the buffer stays\n"
      " * the caller's.  Fails with %s_STATUS_BAD_REGION, _BAD_ARGUMENT (buf\n"
      " * NULL), _REGION_TOO_SMALL, _MISALIGNED or _BUFFER_OVERLAP (its _SIZE\n"
      " * bytes overlap another region's buffer) and then binds nothing.\n"
      " * Binding after %s_model_init is allowed: a context initialised before\n"
      " * then fails %s_model_run with _REBOUND until %s_model_init runs again\n"
      " * and points its inputs and outputs at the new buffers. */\n"
      "int32_t %s_bind_arena(%s_arena_region_t region, void *buf, size_t size);\n\n",
      p, u, p, p, p, p, p);
  mp_buf_printf(b,
      "/* One region to bind with %s_bind_arenas. */\n"
      "typedef struct %s_arena_binding_t {\n"
      "  %s_arena_region_t region;\n"
      "  void *buf;\n"
      "  size_t size;\n"
      "} %s_arena_binding_t;\n\n"
      "/* Bind `count` regions at once: every binding is checked first (as\n"
      " * %s_bind_arena does; also _BAD_ARGUMENT for a count above _NUM_REGIONS,\n"
      " * _DUPLICATE_REGION for a region named twice, _BUFFER_OVERLAP for two\n"
      " * buffers that overlap), and none is applied unless all are valid. */\n"
      "int32_t %s_bind_arenas(const %s_arena_binding_t *bindings, size_t count);\n\n",
      p, p, p, p, p, p, p);
  mp_buf_printf(b,
      "/* Check the context against the compiled module (%s_STATUS_PLAN_MISMATCH\n"
      " * when ctx->plan_hash is set and differs) and every region's binding\n"
      " * (_UNBOUND_REGION, _REGION_TOO_SMALL, _MISALIGNED, the region in\n"
      " * ctx->failed_region); zero every persistent arena; point ctx->inputs[] and\n"
      " * ctx->outputs[] at their planned slots.  callback, user_data and\n"
      " * kernel_hook are kept.  Called by %s_model_init. */\n"
      "int32_t %s_context_init(%s_model_context_t *ctx);\n\n",
      u, p, p, p);
  mp_buf_printf(b,
      "/* Copy every staged constant arena from its source blob, once.  Weak:\n"
      " * an application that defines %s_hydrate_constants replaces it (DMA,\n"
      " * asynchronous pre-staging, model swap); %s_model_init calls it exactly\n"
      " * once, after %s_context_init and before the operator init loop, and\n"
      " * fails with %s_STATUS_HYDRATE_FAILED when it returns non-zero. */\n"
      "int32_t %s_hydrate_constants(%s_model_context_t *ctx);\n\n"
      "/* The plain copy the weak %s_hydrate_constants does, for an override\n"
      " * that wants it. */\n"
      "int32_t %s_hydrate_constants_default(%s_model_context_t *ctx);\n\n",
      p, p, p, u, p, p, p, p, p);
  mp_buf_printf(b,
      "/* Compare every constant region's bytes (as bound) with its _CRC32: a\n"
      " * weights image of another plan, or a half-written one, is caught before\n"
      " * it is used.  Returns %s_STATUS_OK, %s_STATUS_UNBOUND_REGION, or\n"
      " * %s_STATUS_BAD_CONSTANTS; either way *region (unless NULL) is the region\n"
      " * at fault.  %s_hydrate_constants_default calls it first when the module\n"
      " * is compiled with %s_CHECK_CONSTANTS=1 (default 0: the check costs one\n"
      " * pass over the weights at init). */\n"
      "int32_t %s_check_constants(uint32_t *region);\n"
      "#ifndef %s_CHECK_CONSTANTS\n#define %s_CHECK_CONSTANTS 0\n#endif\n\n",
      u, u, u, p, u, p, u, u);
  mp_buf_printf(b,
      "/* %s_context_init, then %s_hydrate_constants, then every operator's init\n"
      " * (ctx->kernel_hook with %s_PHASE_INIT, else the built-in kernel's init),\n"
      " * always in that order.  On success the context is ready to run and\n"
      " * ctx->inputs[i].data / ctx->outputs[i].data point at the planned slots.\n"
      " * %s_model_init passes the %s_PLAN_HASH its caller was compiled with, so\n"
      " * a caller built with another plan's header gets %s_STATUS_PLAN_MISMATCH. */\n"
      "int32_t %s_model_init_checked(%s_model_context_t *ctx, uint64_t header_plan_hash);\n"
      "static inline int32_t %s_model_init(%s_model_context_t *ctx) {\n"
      "  return %s_model_init_checked(ctx, %s_PLAN_HASH);\n"
      "}\n\n",
      p, p, u, p, u, u, p, p, p, p, p, u);
  mp_buf_printf(b,
      "/* Run every operator in order: write the inputs to ctx->inputs[i].data\n"
      " * first; the outputs are at ctx->outputs[i].data after.  Calls\n"
      " * ctx->callback around each operator.  Fails with\n"
      " * %s_STATUS_NOT_INITIALISED, %s_STATUS_REBOUND, %s_STATUS_UNSUPPORTED_OP\n"
      " * (no kernel) or %s_STATUS_KERNEL_FAILED, ctx->failed_op naming the\n"
      " * operator. */\n"
      "int32_t %s_model_run(%s_model_context_t *ctx);\n\n",
      u, u, u, u, p, p);
  mp_buf_printf(b,
      "/* Start a new stream: zero every variable tensor (the state of SVDF,\n"
      " * LSTM and other stateful operators, which runs otherwise keep from one\n"
      " * run to the next), as %s_model_init does.  Fails with\n"
      " * %s_STATUS_NOT_INITIALISED before a successful %s_model_init. */\n"
      "int32_t %s_reset_state(%s_model_context_t *ctx);\n\n",
      p, u, p, p, p);
  mp_buf_printf(b,
      "/* The base of a region (NULL when unbound or out of range). */\n"
      "void *%s_arena_buffer(%s_arena_region_t region);\n\n"
      "/* The bytes of tensor `id` (NULL when it has no storage or no such\n"
      " * tensor exists; a constant's bytes are read-only). */\n"
      "void *%s_tensor_data(uint32_t id);\n\n"
      "/* How tensor `id`'s bytes lie from %s_tensor_data(id) on: rows of\n"
      " * *row_bytes bytes, *row_stride bytes apart.  Every tensor is one row\n"
      " * (both its size) but a strided view: an input of a CONCATENATION\n"
      " * along an inner axis that memplan elided (memory.in_place), which its\n"
      " * producer writes straight into its slice of every row of the\n"
      " * concatenation's output.  Returns 1 for a strided view, else 0 (and\n"
      " * leaves both untouched when no such tensor exists). */\n"
      "int %s_tensor_rows(uint32_t id, uint32_t *row_bytes, uint32_t *row_stride);\n\n"
      "/* The name of a status code (\"%s_STATUS_OK\", ...). */\n"
      "const char *%s_status_str(int32_t status);\n\n",
      p, p, p, p, p, u, p);
}

void emit_header(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  const mp_graph *g = e->g;
  mp_buf_printf(b, "/*\n * %s_model.h — the memplan module \"", p);
  emit_comment_text(b, e->module_name, 60);
  mp_buf_puts(b, "\": the one header an application\n * includes.\n *\n");
  emit_provenance(e, b, " * ");
  mp_buf_printf(b,
      " *\n"
      " * Use:\n"
      " *     %s_model_context_t ctx = %s_MODEL_CONTEXT_INIT;\n"
      " *     int32_t st = %s_model_init(&ctx);\n",
      p, u, p);
  if (e->io_caller)
    mp_buf_puts(b, " *     ctx.inputs[0].data = input;    (the application's buffers:\n"
                   " *     ctx.outputs[0].data = output;   memory.io caller)\n");
  else
    mp_buf_puts(b, " *     memcpy(ctx.inputs[0].data, input, ctx.inputs[0].size);\n");
  mp_buf_printf(b,
      " *     st = %s_model_run(&ctx);\n"
      " *     ... ctx.outputs[0].data holds ctx.outputs[0].size bytes ...\n"
      " * Every entry point returns int32_t: %s_STATUS_OK (0) or a negative\n"
      " * %s_status_t (%s_status_str names it).\n"
      " *\n",
      p, u, p, p);
  if (e->allocate)
    mp_buf_printf(b,
        " * Memory: the module defines its arenas (src/%s_arenas.c), placed with\n"
        " * the %s_PUT_IN_<MEM> macros below.  %s_bind_arena may still point a\n"
        " * region at another buffer, e.g. one scratch buffer shared by two models\n"
        " * that run one after the other.\n",
        p, u, p);
  else
    mp_buf_printf(b,
        " * Memory: the application provides every region.  Bind each one\n"
        " * (%s_REGION_*_SIZE bytes aligned to %s_REGION_*_ALIGN) with\n"
        " * %s_bind_arena or %s_bind_arenas before %s_model_init, which refuses to\n"
        " * run while one is unbound.  A constant region must hold the bytes of\n"
        " * its file under data/ (listed with the regions below).\n",
        u, u, p, p, p);
  mp_buf_printf(b,
      " *\n"
      " * Scratch arenas hold nothing between runs; persistent arenas are zeroed\n"
      " * by %s_context_init and keep their state between runs.  Staged constant\n"
      " * arenas are copied from their source blobs by %s_hydrate_constants\n"
      " * (weak: the application may replace it).\n"
      " *\n",
      p, p);
  if (e->n_with_kernel)
    mp_buf_printf(b,
        " * Kernels: %u operators call memplan's reference kernels (kernels/mpk.h).\n"
        " * The module's CMakeLists.txt and module.mk build them and define\n"
        " * %s_WITH_KERNELS.  Compiled without it, src/%s_model.c references them\n"
        " * weakly: the module links without them, and %s_model_run fails with\n"
        " * %s_STATUS_UNSUPPORTED_OP at the first operator whose kernel is missing\n"
        " * (link kernel objects, not a library, to use them in that mode).",
        e->n_with_kernel, u, p, p, u);
  else
    mp_buf_printf(b,
        " * Kernels: no operator has a built-in kernel; %s_model_run fails with\n"
        " * %s_STATUS_UNSUPPORTED_OP unless ctx->kernel_hook runs the operators.",
        p, u);
  mp_buf_printf(b,
      "  ctx->kernel_hook, when set, sees\n"
      " * every operator first and may run it itself.  Views the planner aliased\n"
      " * (RESHAPE, SQUEEZE, ...) run as no-ops.\n");
  if (e->n_unsupported) {
    mp_buf_printf(b, " * Operators without a built-in kernel (%u):\n", e->n_unsupported);
    uint32_t shown = 0;
    for (uint32_t i = 0; i < g->n_ops && shown < 12; i++) {
      if (e->kernels[i].view || e->kernels[i].has_kernel) continue;
      mp_buf_printf(b, " *   op %u ", i);
      emit_comment_text(b, g->ops[i].name, 40);
      if (e->kernels[i].reason[0]) {
        mp_buf_puts(b, ": ");
        emit_comment_text(b, e->kernels[i].reason, 100);
      }
      mp_buf_puts(b, "\n");
      shown++;
    }
    if (shown < e->n_unsupported) mp_buf_printf(b, " *   ... and %u more\n", e->n_unsupported - shown);
  }
  mp_buf_puts(b, " */\n");
  mp_buf_printf(b, "#ifndef %s_MODEL_H\n#define %s_MODEL_H\n\n", u, u);
  mp_buf_puts(b, "#include <stddef.h>\n#include <stdint.h>\n\n");
  mp_buf_puts(b, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  mp_buf_printf(b,
      "/* The plan this module comes from.  %s_MODEL_CONTEXT_INIT records it in\n"
      " * the context and %s_model_init compares it with the compiled module, so\n"
      " * a header and a source of different plans are caught. */\n"
      "#define %s_PLAN_HASH 0x%016llxULL\n\n",
      u, p, u, (unsigned long long)e->plan->hash);
  mp_buf_printf(b, "#define %s_NUM_OPS %uu\n#define %s_NUM_TENSORS %uu\n", u, g->n_ops, u,
                g->n_tensors);
  mp_buf_printf(b, "#define %s_NUM_INPUTS %uu\n#define %s_NUM_OUTPUTS %uu\n", u, g->n_inputs, u,
                g->n_outputs);
  mp_buf_printf(b, "/* 1: the module defines its arenas; 0: the application binds them. */\n"
                   "#define %s_ALLOCATE_ARENAS %d\n\n",
                u, e->allocate ? 1 : 0);
  io_list(e, b);
  mp_buf_puts(b, "\n");
  status_codes(e, b);
  regions(e, b);
  toolchain_macros(e, b);
  arena_symbols(e, b);
  types(e, b);
  quant_helpers(e, b);
  api(e, b);
  mp_buf_printf(b, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_MODEL_H */\n", u);
}
