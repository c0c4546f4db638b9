/*
 * emit_source.c — src/<p>_model.c: the tables and the runtime of an emitted
 * module.
 *
 * One table per concept, each with a comment per row saying what it is:
 * regions (size, alignment), the bound buffers (arena_buffers[region]),
 * tensor shapes, tensor descriptors (region, offset, size, dtype, shape),
 * the tensors of every operator, the operators, the graph inputs and
 * outputs, and the built-in kernel of every operator.  The runtime is a
 * page of plain C over those tables: binding with checks, context_init,
 * the weak hydrate, model_init and model_run.
 *
 * The source carries its plan hash twice: a compile-time check that the
 * header it is built with is of the same plan, and a run-time check
 * (context_init) that the application's context was set up with such a
 * header.  The generated code never allocates and never calls anything but
 * memcpy/memset and the kernels.
 */
#include "emit/parts.h"
#include "emit/text.h"

#include <string.h>

static const char *role_word(const emit_ctx *e, uint32_t t) {
  const mp_allocation *a = &e->plan->allocs[t];
  return mp_role_name(a->placed ? a->binding.role : e->g->tensors[t].role);
}

static void tensor_note(const emit_ctx *e, uint32_t t, mp_buf *b) {
  const mp_tensor *x = &e->g->tensors[t];
  const mp_allocation *a = &e->plan->allocs[t];
  mp_buf_printf(b, "/* %4u '", t);
  emit_comment_text(b, x->name, 40);
  mp_buf_printf(b, "' %s", role_word(e, t));
  if (a->placed && a->binding.role == MP_ROLE_SCRATCH)
    mp_buf_printf(b, " [%d, %d]", e->plan->lifetimes[t].start_op, e->plan->lifetimes[t].end_op);
  if (a->alias_of >= 0 && a->alias_stride)
    mp_buf_printf(b, " = view of %d at +%llu, rows of %llu every %llu", a->alias_of,
                  (unsigned long long)a->alias_offset, (unsigned long long)a->alias_row,
                  (unsigned long long)a->alias_stride);
  else if (a->alias_of >= 0 && a->alias_offset)
    mp_buf_printf(b, " = view of %d at +%llu", a->alias_of, (unsigned long long)a->alias_offset);
  else if (a->alias_of >= 0)
    mp_buf_printf(b, " = view of %d", a->alias_of);
  if (x->local_op >= 0) mp_buf_printf(b, " local to op %d", x->local_op);
  if (!a->placed) mp_buf_puts(b, " (no storage)");
  mp_buf_puts(b, " */\n");
}

static void region_tables(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up;
  mp_buf_puts(b, "/* ---- regions -------------------------------------------------------- */\n\n");
  mp_buf_puts(b, "/* What every region needs: size in bytes and base alignment. */\n"
                 "typedef struct region_need {\n  uint32_t size;\n  uint32_t align;\n} region_need;\n\n");
  mp_buf_printf(b, "%sstatic const region_need regions[%s_NUM_REGIONS] = {\n", e->table_macro, u);
  emit_table(e, "regions", MP_TABLE_RODATA, 8u * e->n_regions, false);
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    mp_buf_printf(b, "    [%s] = {%s_SIZE, %s_ALIGN},\n", r->enum_name, r->enum_name, r->enum_name);
  }
  mp_buf_puts(b, "};\n\n");
  mp_buf_puts(b, "/* A region's base.  A read-only blob is stored as such (.ro); the runtime\n"
                 " * reads every base as .rw and hands constants to kernels as const. */\n"
                 "typedef union region_base {\n  uint8_t *rw;\n  const uint8_t *ro;\n} region_base;\n\n");
  if (e->allocate) {
    mp_buf_printf(b, "/* The buffer every region is bound to: the module's own arenas until\n"
                     " * %s_bind_arena points one elsewhere.  Tensor descriptors are offsets\n"
                     " * from arena_buffers[region]. */\n", e->prefix);
    mp_buf_printf(b, "static region_base arena_buffers[%s_NUM_REGIONS] = {\n", u);
    for (uint32_t i = 0; i < e->n_regions; i++) {
      const emit_region *r = &e->regions[i];
      mp_buf_printf(b, "    [%s] = {.%s = %s},\n", r->enum_name, r->is_const ? "ro" : "rw",
                    r->symbol);
    }
    mp_buf_puts(b, "};\n");
    emit_table(e, "arena_buffers", MP_TABLE_DATA, 4u * e->n_regions, false);
    mp_buf_printf(b, "static size_t arena_sizes[%s_NUM_REGIONS] = {\n", u);
    emit_table(e, "arena_sizes", MP_TABLE_DATA, 4u * e->n_regions, false);
    for (uint32_t i = 0; i < e->n_regions; i++)
      mp_buf_printf(b, "    [%s] = %s_SIZE,\n", e->regions[i].enum_name, e->regions[i].enum_name);
    mp_buf_puts(b, "};\n\n");
  } else {
    mp_buf_printf(b, "/* The buffer every region is bound to (%s_bind_arena); NULL until\n"
                     " * then.  Tensor descriptors are offsets from arena_buffers[region]. */\n"
                     "static region_base arena_buffers[%s_NUM_REGIONS];\n"
                     "static size_t arena_sizes[%s_NUM_REGIONS];\n\n",
                  e->prefix, u, u);
    emit_table(e, "arena_buffers", MP_TABLE_BSS, 4u * e->n_regions, false);
    emit_table(e, "arena_sizes", MP_TABLE_BSS, 4u * e->n_regions, false);
  }
}

static void tensor_tables(const emit_ctx *e, mp_buf *b) {
  const mp_graph *g = e->g;
  const char *u = e->up, *p = e->prefix;
  char io_decl[512] = "";
  if (e->io_caller)
    snprintf(io_decl, sizeof io_decl,
             "/* memory.io caller: the application's input and output buffers, taken\n"
             " * from ctx at every %s_model_run (inputs, then outputs). */\n"
             "static uint8_t *io_buffers[%s_NUM_INPUTS + %s_NUM_OUTPUTS];\n\n",
             p, u, u);
  mp_buf_puts(b, "/* ---- tensors -------------------------------------------------------- */\n\n");
  mp_buf_printf(b, "/* The shapes of all tensors, one after the other (%s_tensors[t].shape). */\n"
                   "%sstatic const int32_t tensor_shapes[] = {\n", p, e->table_macro);
  uint32_t *shape_at = mp_pool_alloc(e->pool, g->n_tensors, sizeof(uint32_t));
  uint32_t n_dims = 0;
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    if (shape_at) shape_at[t] = n_dims;
    if (x->rank == 0) continue;
    mp_buf_printf(b, "    /* %4u */ ", t);
    for (uint32_t d = 0; d < x->rank; d++) mp_buf_printf(b, "%s%d,", d ? " " : "", x->shape[d]);
    mp_buf_puts(b, "\n");
    n_dims += x->rank;
  }
  if (n_dims == 0) mp_buf_puts(b, "    0 /* every tensor is a scalar */\n");
  mp_buf_puts(b, "};\n\n");
  emit_table(e, "tensor_shapes", MP_TABLE_RODATA, 4u * (n_dims ? n_dims : 1u), false);
  mp_buf_printf(b,
      "/* Every tensor by id: {region, offset, size, dtype, rank, shape}.  A view's\n"
      " * descriptor lies in its root's storage (at the root's offset plus the\n"
      " * view's own, for a part of it); a tensor without storage has region\n"
      " * %s_NO_REGION. */\n"
      "%sconst %s_tensor_t %s_tensors[%s_NUM_TENSORS] = {\n",
      u, e->table_macro, p, p, u);
  /* {uint8 region, uint32 offset, uint32 size, uint8 dtype, uint8 rank,
   * pointer shape}: 20 bytes on a 32-bit target */
  char sym[96];
  snprintf(sym, sizeof sym, "%s_tensors", p);
  emit_table(e, sym, MP_TABLE_RODATA, 20u * g->n_tensors, false);
  if (e->io_caller)
    emit_table(e, "io_buffers", MP_TABLE_BSS, 4u * (g->n_inputs + g->n_outputs), false);
  char dname[32];
  for (uint32_t t = 0; t < g->n_tensors; t++) {
    const mp_tensor *x = &g->tensors[t];
    const mp_allocation *a = &e->plan->allocs[t];
    mp_buf_puts(b, "    ");
    tensor_note(e, t, b);
    snprintf(dname, sizeof dname, "%s", mp_dtype_name(x->dtype));
    for (char *c = dname; *c; c++)
      if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
    bool known = x->dtype >= 0 && x->dtype < MP_DTYPE_COUNT;
    mp_buf_puts(b, "    {");
    if (a->placed)
      mp_buf_printf(b, "%s, %lluu, ", e->regions[a->arena].enum_name, (unsigned long long)a->offset);
    else if (e->io_caller && a->caller_io >= 0)
      mp_buf_printf(b, "(uint8_t)(%s_NUM_REGIONS + %d), 0u, ", u, a->caller_io);
    else
      mp_buf_printf(b, "%s_NO_REGION, 0u, ", u);
    mp_buf_printf(b, "%lluu, ", (unsigned long long)(a->placed ? a->size : x->size));
    if (known)
      mp_buf_printf(b, "%s_DTYPE_%s", u, dname);
    else
      mp_buf_printf(b, "%du", (int)(uint8_t)x->dtype);
    if (x->rank == 0)
      mp_buf_puts(b, ", 0u, NULL},\n");
    else
      mp_buf_printf(b, ", %uu, &tensor_shapes[%u]},\n", x->rank, shape_at ? shape_at[t] : 0);
  }
  mp_buf_puts(b, "};\n\n");
  mp_buf_printf(b,
      "%s"
      "/* The storage of tensor `id`, or NULL (no such tensor, no storage, region\n"
      " * unbound). */\n"
      "static void *tensor_ptr(int32_t id) {\n"
      "  const %s_tensor_t *t;\n"
      "  if (id < 0 || (uint32_t)id >= %s_NUM_TENSORS) return NULL;\n"
      "  t = &%s_tensors[id];\n"
      "  if (t->region == %s_NO_REGION) return NULL;\n",
      io_decl, p, u, p, u);
  if (e->io_caller)
    mp_buf_printf(b,
        "  if (t->region >= (uint32_t)%s_NUM_REGIONS) /* a caller buffer */\n"
        "    return io_buffers[t->region - (uint32_t)%s_NUM_REGIONS];\n",
        u, u);
  mp_buf_puts(b,
      "  if (arena_buffers[t->region].rw == NULL) return NULL;\n"
      "  return arena_buffers[t->region].rw + t->offset;\n"
      "}\n\n");
}

/* The strided views (an elided CONCATENATION's inputs, views.c) and
 * <prefix>_tensor_rows, which reads them. */
static void strided_views(const emit_ctx *e, mp_buf *b) {
  const char *p = e->prefix, *u = e->up;
  uint32_t n = 0;
  for (uint32_t t = 0; t < e->plan->n_allocs; t++) n += e->plan->allocs[t].alias_stride != 0;
  if (n) {
    mp_buf_printf(b, "/* The tensors whose bytes are rows apart: {tensor, row bytes, row stride}. */\n"
                     "%sstatic const uint32_t strided_views[%u][3] = {\n", e->table_macro, n);
    emit_table(e, "strided_views", MP_TABLE_RODATA, 12u * n, false);
    for (uint32_t t = 0; t < e->plan->n_allocs; t++) {
      const mp_allocation *a = &e->plan->allocs[t];
      if (a->alias_stride)
        mp_buf_printf(b, "    {%uu, %lluu, %lluu},\n", t, (unsigned long long)a->alias_row,
                      (unsigned long long)a->alias_stride);
    }
    mp_buf_puts(b, "};\n\n");
  }
  mp_buf_printf(b, "int %s_tensor_rows(uint32_t id, uint32_t *row_bytes, uint32_t *row_stride) {\n",
                p);
  if (n)
    mp_buf_printf(b, "  uint32_t i;\n"
                     "  for (i = 0; i < %uu; i++)\n"
                     "    if (strided_views[i][0] == id) {\n"
                     "      *row_bytes = strided_views[i][1];\n"
                     "      *row_stride = strided_views[i][2];\n"
                     "      return 1;\n"
                     "    }\n", n);
  mp_buf_printf(b, "  if (id < %s_NUM_TENSORS) *row_bytes = *row_stride = %s_tensors[id].size;\n"
                   "  return 0;\n"
                   "}\n\n", u, p);
}

/* The operators' names and their params types, each once, in one char
 * table padded to 4 bytes (so that its size on the target is exact).  Sets
 * the offset of op i's name at [2i] and of its params type at [2i + 1];
 * NULL (the names then stay literals) when out of memory. */
static uint32_t *op_names(const emit_ctx *e, mp_buf *b) {
  const mp_graph *g = e->g;
  uint32_t *at = mp_pool_alloc(e->pool, 2u * (g->n_ops ? g->n_ops : 1u), sizeof(uint32_t));
  const char **seen = mp_pool_alloc(e->pool, 2u * (g->n_ops ? g->n_ops : 1u), sizeof(char *));
  uint32_t *seen_at = mp_pool_alloc(e->pool, 2u * (g->n_ops ? g->n_ops : 1u), sizeof(uint32_t));
  if (!at || !seen || !seen_at || g->n_ops == 0) return NULL;
  mp_buf lit;
  mp_buf_init(&lit);
  uint32_t n_seen = 0, len = 0;
  for (uint32_t i = 0; i < 2u * g->n_ops; i++) {
    const emit_kernel *k = &e->kernels[i / 2];
    const char *s = i % 2 ? (k->has_kernel && k->params_type[0] ? k->params_type : NULL)
                          : g->ops[i / 2].name;
    at[i] = 0;
    if (!s) continue;
    uint32_t j = 0;
    while (j < n_seen && strcmp(seen[j], s) != 0) j++;
    if (j == n_seen) {
      seen[n_seen] = s;
      seen_at[n_seen++] = len;
      mp_buf_puts(&lit, "    ");
      emit_c_string(&lit, s);
      mp_buf_printf(&lit, " \"\\0\" /* %u */\n", len);
      len += (uint32_t)strlen(s) + 1u;
    }
    at[i] = seen_at[j];
  }
  uint32_t size = (len + 4u) / 4u * 4u; /* room for the literal's own NUL */
  mp_buf_printf(b, "/* The operators' names and params types, each once (%s_ops[i].name,\n"
                   " * .params_type). */\n"
                   "%sstatic const char op_names[%u] =\n",
                e->prefix, e->table_macro, size);
  mp_buf_append(b, lit.data, lit.len);
  mp_buf_puts(b, "    ;\n\n");
  bool failed = lit.failed;
  mp_buf_free(&lit);
  if (failed) return NULL;
  emit_table(e, "op_names", MP_TABLE_RODATA, size, false);
  return at;
}

static void op_tables(const emit_ctx *e, mp_buf *b) {
  const mp_graph *g = e->g;
  const char *u = e->up, *p = e->prefix;
  mp_buf_puts(b, "/* ---- operators ------------------------------------------------------ */\n\n");
  mp_buf_printf(b, "/* The tensors of every operator: inputs, then outputs (%s_ops[i]). */\n"
                   "%sstatic const int32_t op_tensors[] = {\n", p, e->table_macro);
  uint32_t pos = 0;
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *op = &g->ops[i];
    mp_buf_printf(b, "    /* %u ", i);
    emit_comment_text(b, op->name, 32);
    if (g->reordered) mp_buf_printf(b, ", model op %u", op->model_index);
    mp_buf_puts(b, " */");
    for (uint32_t k = 0; k < op->n_inputs; k++) mp_buf_printf(b, " %d,", op->inputs[k]);
    mp_buf_puts(b, " /* -> */");
    for (uint32_t k = 0; k < op->n_outputs; k++) mp_buf_printf(b, " %d,", op->outputs[k]);
    mp_buf_puts(b, "\n");
    pos += op->n_inputs + op->n_outputs;
  }
  if (pos == 0) mp_buf_puts(b, "    -1 /* no operator has tensors */\n");
  mp_buf_puts(b, "};\n\n");
  emit_table(e, "op_tensors", MP_TABLE_RODATA, 4u * (pos ? pos : 1u), false);
  uint32_t *name_at = op_names(e, b);
  mp_buf_printf(b,
      "/* Every operator in execution order: {index, builtin, name, is_view,\n"
      " * n_inputs, n_outputs, inputs, outputs, scratch, params, params_type}.%s */\n"
      "%sconst %s_op_t %s_ops[%s_NUM_OPS] = {\n",
      g->reordered ? "\n * memory.op_order min_peak chose the order: op_tensors names each\n"
                     " * operator's index in the model" : "",
      e->table_macro, p, p, u);
  /* {uint32 index, int32 builtin, pointer name, 3 uint8, 2 pointers, int32
   * scratch, 2 pointers}: 36 bytes on a 32-bit target */
  char sym[96];
  snprintf(sym, sizeof sym, "%s_ops", p);
  emit_table(e, sym, MP_TABLE_RODATA, 36u * g->n_ops, false);
  pos = 0;
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const mp_op *op = &g->ops[i];
    mp_buf_printf(b, "    {%uu, %d, ", i, op->builtin_code);
    if (name_at)
      mp_buf_printf(b, "&op_names[%u]", name_at[2 * i]);
    else
      emit_c_string(b, op->name);
    mp_buf_printf(b, ", %uu, %uu, %uu, ", op->is_view || e->kernels[i].noop ? 1u : 0u,
                  op->n_inputs, op->n_outputs);
    if (op->n_inputs)
      mp_buf_printf(b, "&op_tensors[%u], ", pos);
    else
      mp_buf_puts(b, "NULL, ");
    if (op->n_outputs)
      mp_buf_printf(b, "&op_tensors[%u], ", pos + op->n_inputs);
    else
      mp_buf_puts(b, "NULL, ");
    mp_buf_printf(b, "%d, ", e->kernels[i].scratch);
    if (e->kernels[i].has_kernel && e->kernels[i].params_type[0] && name_at)
      mp_buf_printf(b, "&op%u_params, &op_names[%u]},\n", i, name_at[2 * i + 1]);
    else if (e->kernels[i].has_kernel && e->kernels[i].params_type[0])
      mp_buf_printf(b, "&op%u_params, \"%s\"},\n", i, e->kernels[i].params_type);
    else
      mp_buf_puts(b, "NULL, NULL},\n");
    pos += op->n_inputs + op->n_outputs;
  }
  mp_buf_puts(b, "};\n\n");
  if (g->n_inputs || g->n_outputs)
    mp_buf_puts(b, "/* The graph inputs and outputs: tensor id and quantisation (the header's\n"
                   " * _TENSOR, _SCALE and _ZERO_POINT constants). */\n"
                   "typedef struct io_quant {\n  uint32_t tensor;\n  float scale;\n"
                   "  int32_t zero_point;\n  uint32_t align;\n} io_quant;\n");
  const char *what[2] = {"INPUT", "OUTPUT"};
  const char *list[2] = {"inputs", "outputs"};
  uint32_t count[2] = {g->n_inputs, g->n_outputs};
  for (int k = 0; k < 2; k++) {
    if (!count[k]) continue;
    mp_buf_printf(b, "%sstatic const io_quant %s[%s_NUM_%sS] = {\n", e->table_macro, list[k], u,
                  what[k]);
    emit_table(e, list[k], MP_TABLE_RODATA, 16u * count[k], false);
    for (uint32_t i = 0; i < count[k]; i++)
      mp_buf_printf(b, "    {%s_%s%u_TENSOR, %s_%s%u_SCALE, %s_%s%u_ZERO_POINT, %s_%s%u_ALIGN},\n",
                    u, what[k], i, u, what[k], i, u, what[k], i, u, what[k], i);
    mp_buf_puts(b, "};\n");
  }
  mp_buf_puts(b, "\n");
}

static void kernel_table(const emit_ctx *e, mp_buf *b) {
  const mp_graph *g = e->g;
  const char *u = e->up;
  mp_buf_puts(b, "/* ---- kernels -------------------------------------------------------- */\n\n");
  if (e->glue.len) {
    mp_buf_puts(b, "/* Each operator's kernel params and the glue that calls the kernel with\n"
                   " * the operator's tensors: op<i>_run, and op<i>_init for a kernel with an\n"
                   " * init hook (constants only: activations are NULL at init). */\n\n");
    mp_buf_append(b, e->glue.data, e->glue.len);
  }
  mp_buf_printf(b,
      "/* The built-in kernel of every operator (NULL: none; an aliased view or\n"
      " * an operator memplan has no kernel for). */\n"
      "typedef int32_t (*glue_fn)(void);\n"
      "typedef struct op_kernel {\n  glue_fn run;\n  glue_fn init;\n} op_kernel;\n\n"
      "%sstatic const op_kernel op_kernels[%s_NUM_OPS] = {\n",
      e->table_macro, u);
  emit_table(e, "op_kernels", MP_TABLE_RODATA, 8u * g->n_ops, false);
  for (uint32_t i = 0; i < g->n_ops; i++) {
    const emit_kernel *k = &e->kernels[i];
    mp_buf_puts(b, "    {");
    if (k->has_kernel)
      mp_buf_printf(b, "op%u_run, ", i);
    else
      mp_buf_puts(b, "NULL, ");
    if (k->has_init)
      mp_buf_printf(b, "op%u_init}, ", i);
    else
      mp_buf_puts(b, "NULL}, ");
    mp_buf_printf(b, "/* %u ", i);
    emit_comment_text(b, g->ops[i].name, 32);
    if (k->noop) mp_buf_puts(b, ": resolved at convert time, a no-op");
    else if (k->view) mp_buf_puts(b, ": aliased view, a no-op");
    else if (!k->has_kernel) {
      mp_buf_puts(b, ": ");
      emit_comment_text(b, k->reason[0] ? k->reason : "no kernel", 60);
    }
    mp_buf_puts(b, " */\n");
  }
  mp_buf_puts(b, "};\n\n");
}


/* A persistent tensor of the plan that starts at a value of its own (a
 * resource variable's state_init or a start byte that is not 0). */
static bool has_start(const emit_ctx *e, uint32_t t) {
  const mp_allocation *a = &e->plan->allocs[t];
  const mp_tensor *x = &e->g->tensors[t];
  return a->placed && a->alias_of < 0 && a->binding.role == MP_ROLE_PERSISTENT &&
         (x->state_init || x->state_init_byte);
}

/* A state_init whose bytes are all one value is written as a memset. */
static bool uniform(const uint8_t *p, uint64_t n) {
  for (uint64_t i = 1; i < n; i++)
    if (p[i] != p[0]) return false;
  return true;
}

/* The start values of the resource variables whose init subgraph assigns
 * them bytes that are not all one value: state_init_<t>[]. */
static void start_values(const emit_ctx *e, mp_buf *b) {
  for (uint32_t t = 0; t < e->g->n_tensors; t++) {
    const mp_tensor *x = &e->g->tensors[t];
    if (!has_start(e, t) || !x->state_init || uniform(x->state_init, x->size)) continue;
    mp_buf_printf(b, "/* tensor %u '", t);
    emit_comment_text(b, x->name, 60);
    mp_buf_printf(b, "': its start value (the init subgraph's constant) */\n"
                     "static const uint8_t state_init_%u[%llu] = {\n", t,
                  (unsigned long long)x->size);
    emit_hex_bytes(b, x->state_init, x->size);
    mp_buf_puts(b, "};\n\n");
    char sym[40];
    snprintf(sym, sizeof sym, "state_init_%u", t);
    emit_table(e, sym, MP_TABLE_RODATA, x->size, false);
  }
}

/* The statements that give every variable tensor its start value, after
 * `comment`: every persistent arena zeroed, then each resource variable
 * set to the value its init subgraph assigns, or to its value's zero
 * point, as TensorFlow Lite Micro starts it.  False, and nothing written,
 * when the plan has no persistent arena. */
static bool zero_persistent(const emit_ctx *e, const char *comment, mp_buf *b) {
  bool any = false;
  for (uint32_t r = 0; r < e->n_regions; r++) {
    const emit_region *rg = &e->regions[r];
    if (rg->is_source || rg->a->role != MP_ROLE_PERSISTENT) continue;
    if (!any) mp_buf_puts(b, comment);
    any = true;
    mp_buf_printf(b, "  memset(arena_buffers[%s].rw, 0, %s_SIZE);\n", rg->enum_name, rg->enum_name);
  }
  for (uint32_t t = 0; any && t < e->g->n_tensors; t++) {
    const mp_tensor *x = &e->g->tensors[t];
    if (!has_start(e, t)) continue;
    if (x->state_init && !uniform(x->state_init, x->size))
      mp_buf_printf(b, "  memcpy(tensor_ptr(%u), state_init_%u, %lluu); /* %u '", t, t,
                    (unsigned long long)x->size, t);
    else
      mp_buf_printf(b, "  memset(tensor_ptr(%u), 0x%02x, %lluu); /* %u '", t,
                    x->state_init ? x->state_init[0] : x->state_init_byte,
                    (unsigned long long)x->size, t);
    emit_comment_text(b, x->name, 40);
    mp_buf_puts(b, x->state_init ? "': the init subgraph's value */\n"
                                 : "': its zero point, as TFLM starts a variable */\n");
  }
  return any;
}
static void runtime(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  const mp_graph *g = e->g;
  mp_buf_puts(b, "/* ---- runtime -------------------------------------------------------- */\n\n");
  mp_buf_printf(b,
      "static int32_t check_binding(uint32_t region, const void *buf, size_t size) {\n"
      "  if (region >= (uint32_t)%s_NUM_REGIONS) return %s_STATUS_BAD_REGION;\n"
      "  if (buf == NULL) return %s_STATUS_BAD_ARGUMENT;\n"
      "  if (size < regions[region].size) return %s_STATUS_REGION_TOO_SMALL;\n"
      "  if ((uintptr_t)buf %% regions[region].align != 0u) return %s_STATUS_MISALIGNED;\n"
      "  return %s_STATUS_OK;\n"
      "}\n\n"
      "/* True when region a's bytes at pa and region b's at pb would overlap. */\n"
      "static int regions_overlap(uint32_t a, const void *pa, uint32_t b, const void *pb) {\n"
      "  uintptr_t x = (uintptr_t)pa, y = (uintptr_t)pb;\n"
      "  return pa != NULL && pb != NULL && x < y + regions[b].size && y < x + regions[a].size;\n"
      "}\n\n"
      "/* Bumped by every successful bind: a context initialised under older\n"
      " * bindings is refused by model_run.  It starts at 1 so that it lives in\n"
      " * .data with the other binding state, and .bss holds only arenas. */\n"
      "static uint32_t binding_epoch = 1u;\n\n",
      u, u, u, u, u, u);
  emit_table(e, "binding_epoch", MP_TABLE_DATA, 4u, false);
  mp_buf_printf(b,
      "int32_t %s_bind_arena(%s_arena_region_t region, void *buf, size_t size) {\n"
      "  uint32_t r;\n"
      "  int32_t st = check_binding((uint32_t)region, buf, size);\n"
      "  if (st != %s_STATUS_OK) return st;\n"
      "  for (r = 0; r < (uint32_t)%s_NUM_REGIONS; r++)\n"
      "    if (r != (uint32_t)region && regions_overlap((uint32_t)region, buf, r, arena_buffers[r].rw))\n"
      "      return %s_STATUS_BUFFER_OVERLAP;\n"
      "  arena_buffers[region].rw = (uint8_t *)buf;\n"
      "  arena_sizes[region] = size;\n"
      "  binding_epoch++;\n"
      "  return %s_STATUS_OK;\n"
      "}\n\n",
      p, p, u, u, u, u);
  mp_buf_printf(b,
      "int32_t %s_bind_arenas(const %s_arena_binding_t *bindings, size_t count) {\n"
      "  size_t i, j;\n"
      "  uint32_t r;\n"
      "  if ((bindings == NULL && count > 0u) || count > (size_t)%s_NUM_REGIONS)\n"
      "    return %s_STATUS_BAD_ARGUMENT;\n"
      "  for (i = 0; i < count; i++) {\n"
      "    uint32_t ri = (uint32_t)bindings[i].region;\n"
      "    int32_t st = check_binding(ri, bindings[i].buf, bindings[i].size);\n"
      "    if (st != %s_STATUS_OK) return st;\n"
      "    for (j = 0; j < i; j++) {\n"
      "      if ((uint32_t)bindings[j].region == ri) return %s_STATUS_DUPLICATE_REGION;\n"
      "      if (regions_overlap(ri, bindings[i].buf, (uint32_t)bindings[j].region, bindings[j].buf))\n"
      "        return %s_STATUS_BUFFER_OVERLAP;\n"
      "    }\n"
      "    /* and the regions this call leaves as they are */\n"
      "    for (r = 0; r < (uint32_t)%s_NUM_REGIONS; r++) {\n"
      "      int kept = r != ri;\n"
      "      for (j = 0; j < count && kept; j++)\n"
      "        if ((uint32_t)bindings[j].region == r) kept = 0;\n"
      "      if (kept && regions_overlap(ri, bindings[i].buf, r, arena_buffers[r].rw))\n"
      "        return %s_STATUS_BUFFER_OVERLAP;\n"
      "    }\n"
      "  }\n"
      "  for (i = 0; i < count; i++) {\n"
      "    arena_buffers[bindings[i].region].rw = (uint8_t *)bindings[i].buf;\n"
      "    arena_sizes[bindings[i].region] = bindings[i].size;\n"
      "  }\n"
      "  if (count > 0u) binding_epoch++;\n"
      "  return %s_STATUS_OK;\n"
      "}\n\n",
      p, p, u, u, u, u, u, u, u, u);
  if (g->n_inputs || g->n_outputs)
    mp_buf_printf(b,
        "/* %s and describe the tensor. */\n"
        "static void io_describe(%s_io_t *io, const io_quant *q) {\n"
        "  const %s_tensor_t *t = &%s_tensors[q->tensor];\n"
        "%s"
        "  io->tensor = q->tensor;\n"
        "  io->dtype = t->dtype;\n"
        "  io->rank = t->rank;\n"
        "  io->shape = t->shape;\n"
        "  io->scale = q->scale;\n"
        "  io->zero_point = q->zero_point;\n"
        "}\n\n",
        e->io_caller ? "Keep io's buffer (the application's, memory.io caller)"
                     : "Point io at its tensor's slot",
        p, p, p,
        e->io_caller ? "  if (io->data == NULL || io->size == 0) io->size = t->size;\n"
                     : "  io->data = tensor_ptr((int32_t)q->tensor);\n  io->size = t->size;\n");
  start_values(e, b);
  mp_buf_printf(b,
      "int32_t %s_context_init(%s_model_context_t *ctx) {\n"
      "  uint32_t r;\n",
      p, p);
  if (g->n_inputs || g->n_outputs) mp_buf_puts(b, "  uint32_t i;\n");
  mp_buf_printf(b,
      "  if (ctx == NULL) return %s_STATUS_BAD_ARGUMENT;\n"
      "  ctx->initialised = 0;\n"
      "  ctx->failed_op = -1;\n"
      "  ctx->error_code = 0;\n"
      "  ctx->failed_region = -1;\n"
      "  ctx->binding_epoch = binding_epoch;\n"
      "  /* 0: a zeroed context; the header check is model_init's */\n"
      "  if (ctx->plan_hash != 0u && ctx->plan_hash != %s_PLAN_HASH) return %s_STATUS_PLAN_MISMATCH;\n"
      "  for (r = 0; r < (uint32_t)%s_NUM_REGIONS; r++) {\n"
      "    int32_t st = arena_buffers[r].rw == NULL\n"
      "                     ? %s_STATUS_UNBOUND_REGION\n"
      "                     : check_binding(r, arena_buffers[r].rw, arena_sizes[r]);\n"
      "    if (st != %s_STATUS_OK) {\n"
      "      ctx->failed_region = (int32_t)r;\n"
      "      return st;\n"
      "    }\n"
      "  }\n",
      u, u, u, u, u, u);
  (void)zero_persistent(e, "  /* persistent arenas start every model_init at zero */\n", b);
  if (g->n_inputs)
    mp_buf_printf(b, "  for (i = 0; i < %s_NUM_INPUTS; i++) io_describe(&ctx->inputs[i], &inputs[i]);\n",
                  u);
  if (g->n_outputs)
    mp_buf_printf(b,
                  "  for (i = 0; i < %s_NUM_OUTPUTS; i++) io_describe(&ctx->outputs[i], &outputs[i]);\n",
                  u);
  mp_buf_printf(b, "  return %s_STATUS_OK;\n}\n\n", u);

  bool any_bytes = false;
  for (uint32_t r = 0; r < e->n_regions; r++) any_bytes |= e->regions[r].has_bytes;
  if (any_bytes) {
    mp_buf_puts(b, "/* CRC-32, reflected polynomial 0xEDB88320 (zlib's), bit by bit: no table. */\n"
                   "static uint32_t crc32_bytes(const uint8_t *p, size_t n) {\n"
                   "  uint32_t c = 0xFFFFFFFFu;\n"
                   "  size_t i;\n"
                   "  int k;\n"
                   "  for (i = 0; i < n; i++) {\n"
                   "    c ^= p[i];\n"
                   "    for (k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));\n"
                   "  }\n"
                   "  return ~c;\n"
                   "}\n\n");
    mp_buf_printf(b, "/* The constant regions and the CRC-32 of their bytes. */\n"
                     "typedef struct region_crc {\n  uint32_t region;\n  uint32_t crc32;\n} region_crc;\n"
                     "%sstatic const region_crc constant_regions[] = {\n", e->table_macro);
    uint32_t n_crc = 0;
    for (uint32_t r = 0; r < e->n_regions; r++)
      if (e->regions[r].has_bytes) {
        mp_buf_printf(b, "    {%s, %s_CRC32},\n", e->regions[r].enum_name, e->regions[r].enum_name);
        n_crc++;
      }
    emit_table(e, "constant_regions", MP_TABLE_RODATA, 8u * n_crc, false);
    mp_buf_puts(b, "};\n\n");
    mp_buf_printf(b,
        "int32_t %s_check_constants(uint32_t *region) {\n"
        "  size_t i;\n"
        "  for (i = 0; i < sizeof constant_regions / sizeof constant_regions[0]; i++) {\n"
        "    uint32_t r = constant_regions[i].region;\n"
        "    if (region != NULL) *region = r;\n"
        "    if (arena_buffers[r].ro == NULL) return %s_STATUS_UNBOUND_REGION;\n"
        "    if (crc32_bytes(arena_buffers[r].ro, regions[r].size) != constant_regions[i].crc32)\n"
        "      return %s_STATUS_BAD_CONSTANTS;\n"
        "  }\n"
        "  return %s_STATUS_OK;\n"
        "}\n\n",
        p, u, u, u);
  } else {
    mp_buf_printf(b,
        "int32_t %s_check_constants(uint32_t *region) {\n"
        "  (void)region; /* no constant region */\n"
        "  return %s_STATUS_OK;\n"
        "}\n\n",
        p, u);
  }
  mp_buf_printf(b, "int32_t %s_hydrate_constants_default(%s_model_context_t *ctx) {\n"
                   "  (void)ctx;\n"
                   "#if %s_CHECK_CONSTANTS\n"
                   "  {\n"
                   "    int32_t st = %s_check_constants(NULL);\n"
                   "    if (st != %s_STATUS_OK) return st;\n"
                   "  }\n"
                   "#endif\n", p, p, u, p, u);
  for (uint32_t r = e->plan->n_arenas; r < e->n_regions; r++) {
    const emit_region *src = &e->regions[r];
    const emit_region *dst = &e->regions[src->arena];
    mp_buf_printf(b,
        "  /* the staged constants of %s, from their source blob in %s */\n"
        "  if (arena_buffers[%s].rw == NULL || arena_buffers[%s].ro == NULL)\n"
        "    return %s_STATUS_UNBOUND_REGION;\n"
        "  memcpy(arena_buffers[%s].rw, arena_buffers[%s].ro, %s_SIZE);\n",
        emit_mem_name(e, dst->memory), emit_mem_name(e, src->memory), dst->enum_name, src->enum_name,
        u, dst->enum_name, src->enum_name, dst->enum_name);
  }
  if (e->n_staged == 0) mp_buf_puts(b, "  /* no staged constant arena: nothing to copy */\n");
  mp_buf_printf(b, "  return %s_STATUS_OK;\n}\n\n", u);
  mp_buf_printf(b,
      "%s_WEAK int32_t %s_hydrate_constants(%s_model_context_t *ctx) {\n"
      "  return %s_hydrate_constants_default(ctx);\n"
      "}\n\n",
      u, p, p, p);

  mp_buf_printf(b,
      "/* Run (or init) operator i: the hook first, else the built-in kernel.\n"
      " * Aliased views do nothing. */\n"
      "static int32_t call_kernel(%s_model_context_t *ctx, uint32_t i, %s_kernel_phase_t phase) {\n"
      "  const %s_op_t *op = &%s_ops[i];\n"
      "  int32_t rc = %s_KERNEL_DEFAULT;\n"
      "  if (op->is_view) return %s_STATUS_OK;\n"
      "  if (ctx->kernel_hook != NULL) rc = ctx->kernel_hook(ctx, op, phase);\n"
      "  if (rc == %s_KERNEL_DEFAULT) {\n"
      "    if (phase == %s_PHASE_INIT)\n"
      "      rc = op_kernels[i].init != NULL ? op_kernels[i].init() : %s_STATUS_OK;\n"
      "    else\n"
      "      rc = op_kernels[i].run != NULL ? op_kernels[i].run() : %s_STATUS_UNSUPPORTED_OP;\n"
      "  }\n"
      "  if (rc == %s_STATUS_OK) return %s_STATUS_OK;\n"
      "  ctx->failed_op = (int32_t)i;\n"
      "  if (rc == %s_STATUS_UNSUPPORTED_OP) return rc;\n"
      "  ctx->error_code = rc;\n"
      "  return %s_STATUS_KERNEL_FAILED;\n"
      "}\n\n",
      p, p, p, p, u, u, u, u, u, u, u, u, u, u);
  mp_buf_printf(b,
      "int32_t %s_model_init_checked(%s_model_context_t *ctx, uint64_t header_plan_hash) {\n"
      "  uint32_t i;\n"
      "  int32_t st;\n"
      "  if (ctx == NULL) return %s_STATUS_BAD_ARGUMENT;\n"
      "  if (header_plan_hash != %s_PLAN_HASH) {\n"
      "    ctx->initialised = 0;\n"
      "    return %s_STATUS_PLAN_MISMATCH;\n"
      "  }\n"
      "  st = %s_context_init(ctx);\n"
      "  if (st != %s_STATUS_OK) return st;\n"
      "  st = %s_hydrate_constants(ctx);\n"
      "  if (st != 0) {\n"
      "    ctx->error_code = st;\n"
      "    return %s_STATUS_HYDRATE_FAILED;\n"
      "  }\n"
      "  for (i = 0; i < %s_NUM_OPS; i++) {\n"
      "    st = call_kernel(ctx, i, %s_PHASE_INIT);\n"
      "    if (st != %s_STATUS_OK) return st;\n"
      "  }\n"
      "  ctx->initialised = 1;\n"
      "  return %s_STATUS_OK;\n"
      "}\n\n",
      p, p, u, u, u, p, u, p, u, u, u, u, u);
  mp_buf io_check;
  mp_buf_init(&io_check);
  if (e->io_caller && g->n_inputs + g->n_outputs > 0)
    mp_buf_printf(&io_check,
        "  /* memory.io caller: the application's buffers, checked */\n"
        "  for (i = 0; i < %s_NUM_INPUTS + %s_NUM_OUTPUTS; i++) {\n"
        "    const %s_io_t *io = i < %s_NUM_INPUTS ? &ctx->inputs[i] : &ctx->outputs[i - %s_NUM_INPUTS];\n"
        "    const io_quant *q = i < %s_NUM_INPUTS ? &inputs[i] : &outputs[i - %s_NUM_INPUTS];\n"
        "    if (io->data == NULL || io->size < %s_tensors[q->tensor].size ||\n"
        "        (uintptr_t)io->data %% q->align != 0u) {\n"
        "      ctx->error_code = (int32_t)i;\n"
        "      return %s_STATUS_BAD_IO;\n"
        "    }\n"
        "    io_buffers[i] = (uint8_t *)io->data;\n"
        "  }\n",
        u, u, p, u, u, u, u, p, u);
  mp_buf_printf(b,
      "int32_t %s_reset_state(%s_model_context_t *ctx) {\n"
      "  if (ctx == NULL) return %s_STATUS_BAD_ARGUMENT;\n"
      "  if (ctx->initialised != 1) return %s_STATUS_NOT_INITIALISED;\n",
      p, p, u, u);
  if (!zero_persistent(e, "  /* the variable tensors: every persistent arena */\n", b))
    mp_buf_puts(b, "  /* no variable tensor: nothing to reset */\n");
  mp_buf_printf(b, "  return %s_STATUS_OK;\n}\n\n", u);
  mp_buf_printf(b,
      "int32_t %s_model_run(%s_model_context_t *ctx) {\n"
      "  uint32_t i;\n"
      "  if (ctx == NULL) return %s_STATUS_BAD_ARGUMENT;\n"
      "  if (ctx->initialised != 1) return %s_STATUS_NOT_INITIALISED;\n"
      "  if (ctx->binding_epoch != binding_epoch) return %s_STATUS_REBOUND;\n"
      "  ctx->failed_op = -1;\n"
      "  ctx->error_code = 0;\n"
      "%s"
      "  for (i = 0; i < %s_NUM_OPS; i++) {\n"
      "    int32_t st;\n"
      "    if (ctx->callback != NULL) ctx->callback(&%s_ops[i], %s_OP_STARTED, ctx->user_data);\n"
      "    st = call_kernel(ctx, i, %s_PHASE_RUN);\n"
      "    if (st != %s_STATUS_OK) return st;\n"
      "    if (ctx->callback != NULL) ctx->callback(&%s_ops[i], %s_OP_FINISHED, ctx->user_data);\n"
      "  }\n"
      "  return %s_STATUS_OK;\n"
      "}\n\n",
      p, p, u, u, u, io_check.len ? io_check.data : "", u, p, u, u, u, p, u, u);
  mp_buf_free(&io_check);
  mp_buf_printf(b,
      "void *%s_arena_buffer(%s_arena_region_t region) {\n"
      "  if ((uint32_t)region >= (uint32_t)%s_NUM_REGIONS) return NULL;\n"
      "  return arena_buffers[region].rw;\n"
      "}\n\n"
      "void *%s_tensor_data(uint32_t id) {\n"
      "  return id < %s_NUM_TENSORS ? tensor_ptr((int32_t)id) : NULL;\n"
      "}\n\n",
      p, p, u, p, u);
  strided_views(e, b);
  static const char *const names[] = {
      "OK", "BAD_ARGUMENT", "BAD_REGION", "UNBOUND_REGION", "REGION_TOO_SMALL", "MISALIGNED",
      "PLAN_MISMATCH", "NOT_INITIALISED", "HYDRATE_FAILED", "UNSUPPORTED_OP", "KERNEL_FAILED",
      "DUPLICATE_REGION", "BUFFER_OVERLAP", "REBOUND",
      "BAD_CONSTANTS", "BAD_IO"};
  /* the names in one char table and their offsets by -status (the
   * statuses are 0, -1, ..., the designators check it), so that the
   * module's read-only bytes are all in counted tables */
  enum { N_STATUS = sizeof names / sizeof names[0] };
  uint32_t at[N_STATUS + 1], len = 0;
  mp_buf_puts(b, "\n/* The status names, one after the other, and where each starts. */\n");
  mp_buf lit;
  mp_buf_init(&lit);
  for (size_t i = 0; i <= N_STATUS; i++) {
    at[i] = len;
    if (i < N_STATUS) {
      mp_buf_printf(&lit, "    \"%s_STATUS_%s\\0\"\n", u, names[i]);
      len += (uint32_t)(strlen(u) + strlen("_STATUS_") + strlen(names[i]) + 1);
    } else {
      mp_buf_puts(&lit, "    \"unknown status\";\n");
      len += (uint32_t)strlen("unknown status") + 1;
    }
  }
  uint32_t size = (len + 3u) / 4u * 4u;
  mp_buf_printf(b, "%sstatic const char status_names[%u] =\n", e->table_macro, size);
  mp_buf_append(b, lit.data, lit.len);
  if (lit.failed) b->failed = true;
  mp_buf_free(&lit);
  uint32_t n_at = (N_STATUS + 2u) / 2u * 2u; /* whole words */
  mp_buf_printf(b, "%sstatic const uint16_t status_at[%u] = {", e->table_macro, n_at);
  for (size_t i = 0; i < N_STATUS; i++)
    mp_buf_printf(b, "%s[-(%s_STATUS_%s)] = %uu,", i % 4 == 0 ? "\n    " : " ", u, names[i],
                  at[i]);
  mp_buf_printf(b, "\n    [%u] = %uu};\n\n", N_STATUS, at[N_STATUS]);
  emit_table(e, "status_names", MP_TABLE_RODATA, size, false);
  emit_table(e, "status_at", MP_TABLE_RODATA, 2u * n_at, false);
  mp_buf_printf(b,
      "const char *%s_status_str(int32_t status) {\n"
      "  if (status > 0 || status <= -%u) status = -%u; /* unknown */\n"
      "  return &status_names[status_at[-status]];\n"
      "}\n",
      p, N_STATUS, N_STATUS);
}

void emit_source(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  mp_buf_printf(b, "/*\n * %s_model.c — the memplan module \"", p);
  emit_comment_text(b, e->module_name, 60);
  mp_buf_puts(b, "\": tensor and operator tables,\n"
                 " * region bindings and the runtime (see include/");
  mp_buf_printf(b, "%s_model.h).\n *\n", p);
  emit_provenance(e, b, " * ");
  mp_buf_puts(b, " */\n");
  mp_buf_printf(b, "#include \"%s_model.h\"\n\n", p);
  if (e->n_with_kernel)
    mp_buf_printf(b,
        "/* memplan's reference kernels (kernels/).  With %s_WITH_KERNELS, which the\n"
        " * module's CMakeLists.txt and module.mk define when they build kernels/,\n"
        " * the kernels are ordinary references, so a static library pulls them in.\n"
        " * Without it they are weak references: the module links with no kernel,\n"
        " * and an operator whose kernel is missing fails with\n"
        " * %s_STATUS_UNSUPPORTED_OP. */\n"
        "#if defined(%s_WITH_KERNELS) && %s_WITH_KERNELS\n"
        "#ifndef MPK_API\n#define MPK_API\n#endif\n"
        "#define KERNEL_MISSING(fn) 0\n"
        "#else\n"
        "#define KERNEL_MISSING(fn) (!(fn))\n"
        "#endif\n"
        "#include \"mpk.h\"\n\n",
        u, u, u, u);
  mp_buf_puts(b, "#include <string.h>\n\n");
  mp_buf_printf(b,
      "/* This source and the header it is compiled with must come from the same\n"
      " * plan: a header of another plan fails to compile here. */\n"
      "typedef char %s_header_is_of_this_plan[(%s_PLAN_HASH == 0x%016llxULL) ? 1 : -1];\n\n",
      p, u, (unsigned long long)e->plan->hash);
  region_tables(e, b);
  tensor_tables(e, b);
  kernel_table(e, b); /* the op table points at the kernels' params */
  op_tables(e, b);
  runtime(e, b);
}
