/*
 * emit_kernels.c — the kernel glue of an emitted module: for every
 * operator, the params its kernel needs and two small functions that call
 * the kernel (and its init hook) with the operator's tensors.
 *
 * The lowering (src/lower/lower.h) decides everything: which mpk kernel runs an
 * operator, its params (printed as C by mp_lower_params_init), the argument
 * order and C types, the op-local scratch it needs.  This file only maps
 * tensors to pointers: each argument is tensor_ptr(id), the tensor's
 * region base plus its planned offset, resolved when the op runs (so a
 * region bound after the module was built is honoured).
 *
 * Kernels are weak references (mpk.h's MPK_API) unless the module is
 * built with its kernels (<P>_WITH_KERNELS): a glue function first checks
 * that its kernel was linked (KERNEL_MISSING) and reports
 * <P>_STATUS_UNSUPPORTED_OP when it was not.  An init hook that was not
 * linked is skipped.
 *
 * Not here: which operators run (emit_source.c's loop), aliased views (no
 * glue at all), and op persistent buffers (no kernel asks for one yet; an
 * operator that does is refused rather than given a NULL).
 */
#include "emit/parts.h"
#include "emit/text.h"

#include "util/diag.h"
#include "lower/lower.h"

#include <string.h>

/* The first error the lowering reports about an operator. */
typedef struct lower_note {
  char text[160];
} lower_note;

static void keep_message(void *user, const mp_diag *d) {
  lower_note *n = user;
  if (!n->text[0] && d->severity == MP_SEV_ERROR) snprintf(n->text, sizeof n->text, "%s", d->message);
}

static int32_t op_scratch(const mp_graph *g, uint32_t op) {
  for (uint32_t t = g->n_model_tensors; t < g->n_tensors; t++)
    if (g->tensors[t].local_op == (int32_t)op && g->tensors[t].role == MP_ROLE_SCRATCH)
      return (int32_t)t;
  return -1;
}

/* One argument: "(const int8_t *)tensor_ptr(5)", "NULL", or the array. */
static void arg_text(const emit_ctx *e, const mp_lowered_op *lo, uint32_t op, uint32_t k,
                     bool init, mp_buf *b) {
  const mp_lower_arg *a = &lo->args[k];
  if (a->kind == MP_LARG_TENSOR_ARRAY) {
    mp_buf_printf(b, "op%u_arg%u", op, k);
    return;
  }
  bool hide = init && (a->tensor < 0 || e->g->tensors[a->tensor].role != MP_ROLE_CONSTANT);
  if (a->tensor < 0 || hide)
    mp_buf_puts(b, "NULL");
  else
    mp_buf_printf(b, "(%s)tensor_ptr(%d)", a->ctype, a->tensor);
}

/* The array arguments, declared at the top of a glue function. */
static void array_args(const emit_ctx *e, const mp_lowered_op *lo, uint32_t op, bool init,
                       mp_buf *b) {
  for (uint32_t k = 0; k < lo->n_args; k++) {
    const mp_lower_arg *a = &lo->args[k];
    if (a->kind != MP_LARG_TENSOR_ARRAY) continue;
    /* the element type is the argument's C type less its last '*'
     * ("const void *const *" -> "const void *const") */
    const char *star = strrchr(a->ctype, '*');
    int elem_len = star ? (int)(star - a->ctype) : (int)strlen(a->ctype);
    while (elem_len > 0 && a->ctype[elem_len - 1] == ' ') elem_len--;
    mp_buf_printf(b, "  %.*s op%u_arg%u[%u] = {", elem_len, a->ctype, op, k,
                  a->n_tensors ? a->n_tensors : 1);
    for (uint32_t j = 0; j < a->n_tensors; j++) {
      int32_t t = a->tensors[j];
      bool hide = init && (t < 0 || e->g->tensors[t].role != MP_ROLE_CONSTANT);
      if (j) mp_buf_puts(b, ", ");
      if (t < 0 || hide)
        mp_buf_puts(b, "NULL");
      else
        mp_buf_printf(b, "tensor_ptr(%d)", t);
    }
    if (a->n_tensors == 0) mp_buf_puts(b, "NULL");
    mp_buf_puts(b, "};\n");
  }
}

static void call(const emit_ctx *e, const mp_lowered_op *lo, uint32_t op, int32_t scratch,
                 bool init, mp_buf *b) {
  const char *fn = init ? lo->init_fn : lo->fn;
  mp_buf_printf(b, "static int32_t op%u_%s(void) {\n", op, init ? "init" : "run");
  array_args(e, lo, op, init, b);
  if (init)
    mp_buf_printf(b, "  if (KERNEL_MISSING(%s)) return %s_STATUS_OK;\n", fn, e->up);
  else
    mp_buf_printf(b, "  if (KERNEL_MISSING(%s)) return %s_STATUS_UNSUPPORTED_OP;\n", fn, e->up);
  mp_buf_printf(b, "  return %s(&op%u_params", fn, op);
  for (uint32_t k = 0; k < lo->n_args; k++) {
    mp_buf_puts(b, ",\n      ");
    arg_text(e, lo, op, k, init, b);
  }
  if (init)
    mp_buf_puts(b, ",\n      NULL);\n}\n\n");
  else if (scratch >= 0)
    mp_buf_printf(b, ",\n      tensor_ptr(%d));\n}\n\n", scratch);
  else
    mp_buf_puts(b, ",\n      NULL);\n}\n\n");
}

/* The params of lo as sym, and the arrays they point to, each defined
 * with the tables' placement and recorded with its size on the target. */
static void params_c(emit_ctx *e, const mp_lowered_op *lo, const char *sym) {
  mp_buf *b = &e->glue;
  char name[128];
  mp_lower_params_arrays(lo, e->table_macro, sym, b);
  for (uint32_t i = 0; i < lo->n_arrays; i++) {
    snprintf(name, sizeof name, "%s_%s", sym, lo->arrays[i].name);
    emit_table(e, name, MP_TABLE_RODATA, 4u * (lo->arrays[i].n ? lo->arrays[i].n : 1u), true);
  }
  mp_buf_printf(b, "%sstatic const %s %s = ", e->table_macro, lo->params_type, sym);
  mp_lower_params_init(lo, sym, b);
  mp_buf_puts(b, ";\n");
  emit_table(e, sym, MP_TABLE_RODATA, mp_lower_params_size32(lo), true);
}

mp_status emit_kernels_prepare(emit_ctx *e) {
  const mp_graph *g = e->g;
  if (g->n_ops == 0) {
    mp_error(e->dx, MP_LOC_NONE, "cannot emit a module for a subgraph without operators");
    return MP_ERR_UNSUPPORTED;
  }
  e->kernels = mp_pool_alloc(e->pool, g->n_ops, sizeof(emit_kernel));
  if (!e->kernels) return MP_ERR_NOMEM;
  for (uint32_t i = 0; i < g->n_ops; i++) {
    emit_kernel *k = &e->kernels[i];
    const mp_op *op = &g->ops[i];
    k->scratch = op_scratch(g, i);
    if (op->n_inputs > 255 || op->n_outputs > 255) {
      mp_error(e->dx, MP_LOC_NONE, "cannot emit operator %u (%s): more than 255 inputs or outputs",
               i, op->name);
      return MP_ERR_UNSUPPORTED;
    }
    if (op->is_view) {
      k->view = true;
      continue;
    }
    if (op->patch_head) { /* a patched stage: its own loop (emit/patch.c) */
      mp_status ps = emit_patch_stage(e, k, i);
      if (ps != MP_OK) return ps;
      continue;
    }
    mp_lowered_op lo;
    lower_note note = {""};
    mp_diag_sink capture = {keep_message, &note};
    mp_status st = mp_lower_op(g, i, &lo, &capture);
    if (st == MP_ERR_NOMEM) {
      mp_lower_free(&lo);
      return st;
    }
    if (st != MP_OK) {
      /* an operator the kernels cannot take: the module still runs it
       * through the kernel hook */
      snprintf(k->reason, sizeof k->reason, "%s", note.text[0] ? note.text : "cannot be lowered");
      mp_warning(e->dx, MP_LOC_NONE, "operator %u (%s) gets no built-in kernel: %s", i, op->name,
                 k->reason);
      e->n_unsupported++;
      mp_lower_free(&lo);
      continue;
    }
    if (lo.supported && lo.noop) {
      /* nothing to run: a resource variable's handle or its init (the
       * graph resolved them at convert time) */
      k->view = k->noop = true;
      mp_lower_free(&lo);
      continue;
    }
    if (!lo.supported || lo.noop || !lo.fn) {
      snprintf(k->reason, sizeof k->reason, "%s", lo.supported ? "no kernel" : lo.reason);
      e->n_unsupported++;
      mp_lower_free(&lo);
      continue;
    }
    if (lo.scratch_bytes > 0 &&
        (k->scratch < 0 || g->tensors[k->scratch].size < lo.scratch_bytes ||
         !mp_plan_get_allocation(e->plan, (uint32_t)k->scratch))) {
      mp_error(e->dx, MP_LOC_NONE,
               "operator %u (%s) needs %llu bytes of op-local scratch that the plan does not "
               "hold; add it with mp_graph_add_local before planning",
               i, op->name, (unsigned long long)lo.scratch_bytes);
      mp_lower_free(&lo);
      return MP_ERR_INTERNAL;
    }
    if (lo.persistent_bytes > 0) {
      mp_error(e->dx, MP_LOC_NONE,
               "operator %u (%s): its kernel's init hook needs a %llu-byte persistent buffer, "
               "which memplan does not plan yet",
               i, op->name, (unsigned long long)lo.persistent_bytes);
      mp_lower_free(&lo);
      return MP_ERR_UNSUPPORTED;
    }
    k->has_kernel = true;
    k->has_init = lo.init_fn != NULL;
    snprintf(k->params_type, sizeof k->params_type, "%s", lo.params_type ? lo.params_type : "");
    e->n_with_kernel++;
    char sym[32];
    snprintf(sym, sizeof sym, "op%u_params", i);
    mp_buf_printf(&e->glue, "/* op %u ", i);
    emit_comment_text(&e->glue, op->name, 40);
    mp_buf_printf(&e->glue, ": %s */\n", lo.fn);
    params_c(e, &lo, sym);
    call(e, &lo, i, lo.scratch_bytes > 0 ? k->scratch : -1, false, &e->glue);
    if (k->has_init) call(e, &lo, i, -1, true, &e->glue);
    mp_lower_free(&lo);
  }
  return MP_OK;
}
