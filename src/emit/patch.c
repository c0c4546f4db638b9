/*
 * emit/patch.c — the glue of a patched stage (memory.patch): one function
 * that runs the stage's operators tile by tile with the reference kernels.
 *
 * The one idea: every layer keeps the params its operator lowers to, and
 * each tile calls its kernel with a copy whose geometry is the tile's
 * window (graph/patch.h, mp_patch_tile_call), so the tables hold only what
 * changes per tile: a geometry per tile and layer, and the element offset
 * of the output (the stage output's tile, or the tile buffer's start).
 * ADDs run row by row over their window.  The tile buffers are one op-local
 * scratch tensor, planned like any other.
 *
 * Each layer calls the kernel mp_patch_lower_run gives: on a Cortex-M
 * target the specialised int8 kernels, which take any window (the 1x1
 * convolution only unpadded ones; an im2col kernel's columns lie after
 * the tile buffers), else the reference kernel.  The stage has no init
 * hook (the layers' hooks only check their constants).
 */
#include "emit/parts.h"
#include "emit/text.h"

#include "graph/patch.h"
#include "lower/lower.h"
#include "util/diag.h"

#include <string.h>

static void geom_init(mp_buf *b, const mpk_conv_geom *g) {
  mp_buf_printf(b, "{%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d}",
                g->batches, g->in_h, g->in_w, g->in_c, g->out_h, g->out_w, g->out_c, g->filter_h,
                g->filter_w, g->filter_c, g->depth_multiplier, g->stride_h, g->stride_w,
                g->dilation_h, g->dilation_w, g->pad_h, g->pad_w, g->out_pixel_stride,
                g->out_row_stride, g->out_batch_stride);
}

/* The C expression of stage tensor k's buffer for argument type ctype. */
static void buffer_expr(const mp_patch *p, uint32_t k, const char *ctype, mp_buf *b) {
  if (k == 0)
    mp_buf_printf(b, "((%s)stage_in)", ctype);
  else if (k == p->n_tensors - 1)
    mp_buf_printf(b, "((%s)stage_out)", ctype);
  else
    mp_buf_printf(b, "((%s)(tiles + %lluu))", ctype, (unsigned long long)p->tensors[k].offset);
}

mp_status emit_patch_stage(emit_ctx *e, emit_kernel *k, uint32_t op) {
  const mp_graph *g = e->g;
  const mp_patch *p = mp_patch_at(g, op);
  mp_buf *b = &e->glue;
  char sym[64];
  if (!p || p->head != op) return MP_ERR_INTERNAL;
  mp_lowered_op *lo = mp_pool_alloc(e->pool, p->n_layers, sizeof *lo);
  if (!lo) return MP_ERR_NOMEM;
  mp_status st = MP_OK;
  uint32_t done = 0;
  for (; done < p->n_layers && st == MP_OK; done++) {
    st = mp_patch_lower_run(g, p, done, &lo[done]);
    if (st == MP_OK && (lo[done].scratch_bytes > p->kernel_scratch_bytes || !lo[done].fn))
      st = MP_ERR_INTERNAL;
  }
  if (st != MP_OK) {
    mp_error(e->dx, MP_LOC_NONE, "operator %u: the patched stage's layers could not be lowered",
             op);
    goto done;
  }
  mp_buf_printf(b, "/* op %u: a patched stage, operators %u .. %u run tile by tile on %u x %u "
                   "tiles of tensor %d */\n",
                op, p->first, p->last, p->rows, p->cols, p->tensors[p->n_tensors - 1].tensor);
  for (uint32_t l = 0; l < p->n_layers; l++) {
    const mp_lowered_op *x = &lo[l];
    snprintf(sym, sizeof sym, "op%u_l%u_params", op, l);
    mp_lower_params_arrays(x, e->table_macro, sym, b);
    for (uint32_t i = 0; i < x->n_arrays; i++) {
      char name[96];
      snprintf(name, sizeof name, "%s_%s", sym, x->arrays[i].name);
      emit_table(e, name, MP_TABLE_RODATA, 4u * (x->arrays[i].n ? x->arrays[i].n : 1u), true);
    }
    mp_buf_printf(b, "%sstatic const %s %s = ", e->table_macro, x->params_type, sym);
    mp_lower_params_init(x, sym, b);
    mp_buf_puts(b, ";\n");
    emit_table(e, sym, MP_TABLE_RODATA, mp_lower_params_size32(x), true);
    /* per tile: a window layer's geometry and output offset; an ADD's rows */
    if (p->layers[l].window) {
      snprintf(sym, sizeof sym, "op%u_l%u_geom", op, l);
      mp_buf_printf(b, "%sstatic const mpk_conv_geom %s[%u] = {\n", e->table_macro, sym,
                    p->n_tiles);
      for (uint32_t t = 0; t < p->n_tiles; t++) {
        mp_patch_call c;
        mp_patch_tile_call(p, t, l, &c);
        if (c.skip) memset(&c.geom, 0, sizeof c.geom);
        mp_buf_puts(b, "    ");
        geom_init(b, &c.geom);
        mp_buf_puts(b, ",\n");
      }
      mp_buf_puts(b, "};\n");
      emit_table(e, sym, MP_TABLE_RODATA, 80u * p->n_tiles, true);
      snprintf(sym, sizeof sym, "op%u_l%u_out", op, l);
      mp_buf_printf(b, "%sstatic const int32_t %s[%u] = {", e->table_macro, sym, p->n_tiles);
      for (uint32_t t = 0; t < p->n_tiles; t++) {
        mp_patch_call c;
        mp_patch_tile_call(p, t, l, &c);
        mp_buf_printf(b, "%s%lld", t ? ", " : "", (long long)(c.skip ? 0 : c.out_off));
      }
      mp_buf_puts(b, "};\n");
      emit_table(e, sym, MP_TABLE_RODATA, 4u * p->n_tiles, true);
    } else {
      snprintf(sym, sizeof sym, "op%u_l%u_rows", op, l);
      mp_buf_printf(b, "/* per tile: rows, elements per row, input 1, input 2 and output offsets\n"
                       " * and row strides (elements) */\n"
                       "%sstatic const int32_t %s[%u][8] = {\n", e->table_macro, sym, p->n_tiles);
      for (uint32_t t = 0; t < p->n_tiles; t++) {
        mp_patch_call c;
        mp_patch_tile_call(p, t, l, &c);
        if (c.skip) memset(&c, 0, sizeof c);
        mp_buf_printf(b, "    {%d, %d, %lld, %lld, %lld, %lld, %lld, %lld},\n", c.rows, c.row_elems,
                      (long long)c.in_off[0], (long long)c.in_off[1], (long long)c.out_off,
                      (long long)c.in_row_stride[0], (long long)c.in_row_stride[1],
                      (long long)c.out_row_stride);
      }
      mp_buf_puts(b, "};\n");
      emit_table(e, sym, MP_TABLE_RODATA, 32u * p->n_tiles, true);
    }
  }
  /* the loop */
  mp_buf_printf(b, "static int32_t op%u_run(void) {\n"
                   "  uint8_t *stage_in = (uint8_t *)tensor_ptr(%d);\n"
                   "  uint8_t *stage_out = (uint8_t *)tensor_ptr(%d);\n"
                   "  uint8_t *tiles = (uint8_t *)tensor_ptr(%d);\n"
                   "  uint32_t t;\n",
                op, p->tensors[0].tensor, p->tensors[p->n_tensors - 1].tensor, p->scratch_tensor);
  mp_buf_puts(b, "  (void)tiles;\n");
  for (uint32_t l = 0; l < p->n_layers; l++) {
    bool seen = false;
    for (uint32_t j = 0; j < l && !seen; j++) seen = !strcmp(lo[j].fn, lo[l].fn);
    if (!seen)
      mp_buf_printf(b, "  if (KERNEL_MISSING(%s)) return %s_STATUS_UNSUPPORTED_OP;\n", lo[l].fn,
                    e->up);
  }
  mp_buf_printf(b, "  for (t = 0; t < %uu; t++) {\n    int32_t st;\n", p->n_tiles);
  for (uint32_t l = 0; l < p->n_layers; l++) {
    const mp_lowered_op *x = &lo[l];
    const mp_patch_layer *ly = &p->layers[l];
    mp_buf_printf(b, "    /* operator %u, %s: %s */\n", ly->op, g->ops[ly->op].name, x->fn);
    if (ly->window)
      mp_buf_printf(b, "    if (op%u_l%u_geom[t].out_h > 0) {\n"
                       "      %s q = op%u_l%u_params;\n"
                       "      q.geom = op%u_l%u_geom[t];\n",
                    op, l, x->params_type, op, l, op, l);
    else
      mp_buf_printf(b, "    {\n      const int32_t *w = op%u_l%u_rows[t];\n      int32_t r;\n"
                       "      %s q = op%u_l%u_params;\n"
                       "      q.b.size = w[1];\n"
                       "      for (r = 0; r < w[0]; r++) {\n",
                    op, l, x->params_type, op, l);
    const char *ind = ly->window ? "      " : "        ";
    mp_buf_printf(b, "%sst = %s(&q", ind, x->fn);
    uint32_t in_i = 0;
    for (uint32_t a = 0; a < x->n_args; a++) {
      const mp_lower_arg *arg = &x->args[a];
      mp_buf_printf(b, ",\n%s    ", ind);
      if (arg->tensor < 0) {
        mp_buf_puts(b, "NULL");
      } else if (arg->is_output) {
        buffer_expr(p, l + 1, arg->ctype, b);
        if (ly->window)
          mp_buf_printf(b, " + op%u_l%u_out[t]", op, l);
        else
          mp_buf_puts(b, " + w[4] + r * w[7]");
      } else if (g->tensors[arg->tensor].role == MP_ROLE_CONSTANT) {
        mp_buf_printf(b, "(%s)tensor_ptr(%d)", arg->ctype, arg->tensor);
      } else {
        buffer_expr(p, ly->in[in_i], arg->ctype, b);
        if (!ly->window) mp_buf_printf(b, " + w[%u] + r * w[%u]", 2 + in_i, 5 + in_i);
        in_i++;
      }
    }
    if (x->scratch_bytes > 0)
      mp_buf_printf(b, ",\n%s    tiles + %lluu);\n", ind,
                    (unsigned long long)p->kernel_scratch_offset);
    else
      mp_buf_puts(b, ", NULL);\n");
    mp_buf_printf(b, "%sif (st != 0) return st;\n", ind);
    mp_buf_puts(b, ly->window ? "    }\n" : "      }\n    }\n");
  }
  mp_buf_printf(b, "  }\n  return %s_STATUS_OK;\n}\n\n", e->up);
  k->has_kernel = true;
  k->has_init = false;
  k->params_type[0] = '\0';
  e->n_with_kernel++;
done:
  for (uint32_t l = 0; l < done; l++) mp_lower_free(&lo[l]);
  return st;
}
