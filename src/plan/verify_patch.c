/*
 * verify_patch.c — the verifier's check of a patched stage (memory.patch).
 *
 * It re-derives, from each layer's whole-tensor geometry (lowered again
 * here) and from the per-tile calls the module makes (mp_patch_tile_call,
 * exactly what the emitter writes), that running the tiles gives the
 * unpatched result:
 *   - the tiles' writes of the stage output cover it exactly once;
 *   - every call of a window layer maps each output pixel and tap of its
 *     tile onto the same input pixel as the whole layer does, every tap
 *     inside the true image lands inside the buffer the call reads, and
 *     every tap outside it lands outside the buffer (the kernel's padding);
 *     an ADD reads, row by row, the pixels it writes;
 *   - every buffer a call reads is the stage input (which nothing in the
 *     stage writes) or was written earlier in the same tile, over every
 *     pixel read, and no buffer written since then overlaps it in the
 *     tile scratch: nothing is read as if written;
 *   - the tile buffers lie inside the op-local scratch the plan placed, and
 *     the stage input, output and scratch are live at the stage's step;
 *   - where the plan lays the stage output over its input (the stage's
 *     overlap contract), no byte a tile writes is an input byte that tile
 *     or a later one reads (mp_verify_patch_overlap, called by verify.c's
 *     overlap check).
 * A violation names the tile, the layer and its operator.
 */
#include "plan/verify_patch.h"

#include "graph/patch.h"
#include "util/diag.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PFAIL(...)                                                                            \
  do {                                                                                        \
    mp_error(dx, MP_LOC_NONE, "plan verification failed: patched stage: " __VA_ARGS__);       \
    st = MP_ERR_VERIFY;                                                                       \
    goto done;                                                                                \
  } while (0)

/* The pixels of stage tensor k's buffer for tile t: its origin and size in
 * the whole tensor (the whole tensor for the stage's input and output). */
typedef struct span {
  int32_t y0, x0, h, w;
} span;

static span buffer_span(const mp_patch *s, uint32_t t, uint32_t k) {
  mp_patch_rect r = mp_patch_buffer_rect(s, t, k);
  return (span){r.y0, r.x0, r.y1 - r.y0, r.x1 - r.x0};
}

/* One axis of a window call: output positions o0 .. o0 + n - 1 of the
 * whole layer (stride, pad, taps, dilation over an input of `extent`) read
 * through a call whose own padding is `cpad` from a buffer starting at
 * `b0` of `bn` positions.  0 when every tap agrees. */
static int axis_ok(int32_t o0, int32_t n, int32_t stride, int32_t pad, int32_t taps, int32_t dil,
                   int32_t extent, int32_t cpad, int32_t b0, int32_t bn) {
  if (b0 < 0 || bn < 0 || b0 + bn > extent) return 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t f = 0; f < taps; f++) {
      int32_t whole = (o0 + i) * stride - pad + f * dil; /* the unpatched layer's tap */
      int32_t local = i * stride - cpad + f * dil;       /* the call's tap in its buffer */
      bool inside_image = whole >= 0 && whole < extent;
      bool inside_buffer = local >= 0 && local < bn;
      if (inside_image != inside_buffer) return 0;
      if (inside_image && local != whole - b0) return 0;
    }
  return 1;
}

static mp_status verify_stage(const mp_plan *p, const mp_patch *s, const mp_diag_sink *dx) {
  const mp_graph *g = p->graph;
  mp_status st = MP_OK;
  uint32_t nk = s->n_tensors;
  const mp_patch_tensor *ty = &s->tensors[nk - 1];
  uint8_t *cover = calloc((size_t)ty->h * ty->w, 1);
  /* per tile: the rectangle written so far of each stage tensor */
  span *written = malloc(nk * sizeof *written);
  int32_t *wlayer = malloc(nk * sizeof *wlayer);
  mpk_conv_geom *whole = calloc(s->n_layers, sizeof *whole);
  if (!cover || !written || !wlayer || !whole) {
    st = MP_ERR_NOMEM;
    goto done;
  }
  for (uint32_t l = 0; l < s->n_layers; l++) {
    mp_lowered_op lo;
    mp_status ls = mp_patch_lower_layer(g, s, l, &lo);
    if (ls == MP_OK && s->layers[l].window) memcpy(&whole[l], &lo.params, sizeof whole[l]);
    mp_lower_free(&lo);
    if (ls != MP_OK) PFAIL("layer %u (operator %u) does not lower to its kernel", l, s->layers[l].op);
    /* the kernel the tiles call, and its scratch beside the tile buffers */
    ls = mp_patch_lower_run(g, s, l, &lo);
    uint64_t need = lo.scratch_bytes;
    mp_kernel rk = lo.kernel;
    /* the function the module calls is that kernel's */
    bool named = ls == MP_OK && lo.fn && !strcmp(lo.fn, mp_kernel_fn(rk));
    mp_lower_free(&lo);
    if (ls != MP_OK)
      PFAIL("layer %u (operator %u) does not lower to the kernel its tiles call", l,
            s->layers[l].op);
    if (!named)
      PFAIL("layer %u (operator %u): the module would call another function than its kernel's",
            l, s->layers[l].op);
    if (need > s->kernel_scratch_bytes ||
        s->kernel_scratch_offset + s->kernel_scratch_bytes > s->scratch_bytes)
      PFAIL("layer %u (operator %u): its kernel's %llu bytes of scratch do not fit the stage's",
            l, s->layers[l].op, (unsigned long long)need);
    for (uint32_t k = 1; k + 1 < s->n_tensors && need; k++)
      if (s->tensors[k].offset + s->tensors[k].bytes > s->kernel_scratch_offset)
        PFAIL("layer %u (operator %u): its kernel's scratch overlaps tensor %d's tile buffer", l,
              s->layers[l].op, s->tensors[k].tensor);
    if (rk == MP_K_CONV2D_S8_1X1)
      for (uint32_t t = 0; t < s->n_tiles; t++) {
        mp_patch_call c;
        mp_patch_tile_call(s, t, l, &c);
        if (!mp_patch_call_direct(&c))
          PFAIL("tile %u, operator %u: the 1x1 kernel gets a window with padding", t,
                s->layers[l].op);
      }
  }
  /* storage: the stage's tensors placed and live at its step */
  int32_t head = (int32_t)s->head;
  const int32_t ends[3] = {s->tensors[0].tensor, ty->tensor, s->scratch_tensor};
  for (int i = 0; i < 3; i++) {
    int32_t t = ends[i];
    const mp_allocation *a = &p->allocs[t];
    int32_t r = a->alias_of >= 0 ? a->alias_of : t;
    if (!a->placed && a->caller_io < 0)
      PFAIL("tensor %d '%s' has no storage", t, g->tensors[t].name);
    if (p->allocs[r].placed && (p->lifetimes[r].start_op > head || p->lifetimes[r].end_op < head))
      PFAIL("tensor %d '%s' is not live at the stage's step %d", t, g->tensors[t].name, head);
  }
  if (g->tensors[s->scratch_tensor].size < s->scratch_bytes)
    PFAIL("the tile buffers need %llu bytes, the op-local scratch holds %llu",
          (unsigned long long)s->scratch_bytes,
          (unsigned long long)g->tensors[s->scratch_tensor].size);
  for (uint32_t t = 0; t < s->n_tiles; t++) {
    for (uint32_t k = 0; k < nk; k++) {
      written[k] = (span){0, 0, 0, 0};
      wlayer[k] = -1;
    }
    /* the stage input is whole and written before the stage */
    written[0] = (span){0, 0, s->tensors[0].h, s->tensors[0].w};
    for (uint32_t l = 0; l < s->n_layers; l++) {
      const mp_patch_layer *ly = &s->layers[l];
      mp_patch_call c;
      mp_patch_tile_call(s, t, l, &c);
      if (c.skip) continue;
      uint32_t ko = l + 1;
      const mp_patch_tensor *to = &s->tensors[ko];
      span ob = buffer_span(s, t, ko);
      /* the output rectangle the call writes, in the whole tensor */
      span out;
      if (ly->window) {
        int64_t pix = c.out_off / to->c;
        if (c.out_off % to->c || ob.w <= 0)
          PFAIL("tile %u, operator %u: its output starts inside a pixel", t, ly->op);
        out = (span){ob.y0 + (int32_t)(pix / ob.w), ob.x0 + (int32_t)(pix % ob.w), c.geom.out_h,
                     c.geom.out_w};
        int64_t row = ko == nk - 1 ? (int64_t)to->w * to->c : (int64_t)c.geom.out_w * to->c;
        int64_t got = c.geom.out_row_stride ? c.geom.out_row_stride : (int64_t)c.geom.out_w * to->c;
        if (got != row || (c.geom.out_pixel_stride && c.geom.out_pixel_stride != to->c))
          PFAIL("tile %u, operator %u: its output strides do not match its buffer", t, ly->op);
      } else {
        int64_t pix = c.out_off / to->c;
        if (c.out_off % to->c || c.row_elems % to->c || c.out_row_stride != (int64_t)ob.w * to->c)
          PFAIL("tile %u, operator %u (ADD): its rows do not match its buffer", t, ly->op);
        out = (span){ob.y0 + (int32_t)(pix / ob.w), ob.x0 + (int32_t)(pix % ob.w), c.rows,
                     c.row_elems / to->c};
      }
      if (out.y0 < ob.y0 || out.x0 < ob.x0 || out.y0 + out.h > ob.y0 + ob.h ||
          out.x0 + out.w > ob.x0 + ob.w || out.h <= 0 || out.w <= 0)
        PFAIL("tile %u, operator %u writes outside its buffer", t, ly->op);
      for (uint32_t i = 0; i < ly->n_in; i++) {
        uint32_t ki = ly->in[i];
        span ib = buffer_span(s, t, ki), w = written[ki];
        /* what the call reads, in the whole tensor */
        span rd;
        if (ly->window) {
          const mpk_conv_geom *G = &whole[l];
          int32_t dh = G->dilation_h > 0 ? G->dilation_h : 1, dw = G->dilation_w > 0 ? G->dilation_w : 1;
          if (c.geom.in_h != ib.h || c.geom.in_w != ib.w || c.geom.stride_h != G->stride_h ||
              c.geom.stride_w != G->stride_w || c.geom.filter_h != G->filter_h ||
              c.geom.filter_w != G->filter_w || c.geom.in_c != G->in_c || c.geom.out_c != G->out_c ||
              !axis_ok(out.y0, out.h, G->stride_h, G->pad_h, G->filter_h, dh, G->in_h,
                       c.geom.pad_h, ib.y0, ib.h) ||
              !axis_ok(out.x0, out.w, G->stride_w, G->pad_w, G->filter_w, dw, G->in_w,
                       c.geom.pad_w, ib.x0, ib.w))
            PFAIL("tile %u, operator %u: its window does not read the pixels the whole layer "
                  "reads for its outputs (or reads padding as pixels)", t, ly->op);
          int32_t y0 = out.y0 * G->stride_h - G->pad_h, x0 = out.x0 * G->stride_w - G->pad_w;
          int32_t y1 = (out.y0 + out.h - 1) * G->stride_h - G->pad_h + (G->filter_h - 1) * dh + 1;
          int32_t x1 = (out.x0 + out.w - 1) * G->stride_w - G->pad_w + (G->filter_w - 1) * dw + 1;
          const mp_patch_tensor *tin = &s->tensors[ki];
          y0 = y0 < 0 ? 0 : y0;
          x0 = x0 < 0 ? 0 : x0;
          y1 = y1 > tin->h ? tin->h : y1;
          x1 = x1 > tin->w ? tin->w : x1;
          rd = (span){y0, x0, y1 - y0, x1 - x0};
        } else {
          int64_t pix = c.in_off[i] / to->c;
          if (c.in_off[i] % to->c || c.in_row_stride[i] != (int64_t)ib.w * to->c)
            PFAIL("tile %u, operator %u (ADD): input %u's rows do not match its buffer", t,
                  ly->op, i);
          rd = (span){ib.y0 + (int32_t)(pix / ib.w), ib.x0 + (int32_t)(pix % ib.w), out.h, out.w};
          if (rd.y0 != out.y0 || rd.x0 != out.x0)
            PFAIL("tile %u, operator %u (ADD): input %u is read at other pixels than written",
                  t, ly->op, i);
        }
        if (rd.h > 0 && rd.w > 0 &&
            (rd.y0 < w.y0 || rd.x0 < w.x0 || rd.y0 + rd.h > w.y0 + w.h || rd.x0 + rd.w > w.x0 + w.w))
          PFAIL("tile %u, operator %u reads pixels of tensor %d that the tile has not written",
                t, ly->op, s->tensors[ki].tensor);
        /* the call's own output does not land on what it reads */
        if (ki > 0 && ki < nk - 1 && ko < nk - 1) {
          const mp_patch_tensor *a = &s->tensors[ki], *b = &s->tensors[ko];
          if (a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes)
            PFAIL("tile %u, operator %u writes tensor %d's tile buffer over tensor %d's, which "
                  "it reads", t, ly->op, b->tensor, a->tensor);
        }
        /* nothing written since into the same bytes of the tile scratch */
        if (ki > 0 && ki < nk - 1)
          for (uint32_t k2 = 1; k2 + 1 < nk; k2++) {
            if (k2 == ki || wlayer[k2] <= wlayer[ki]) continue;
            const mp_patch_tensor *a = &s->tensors[ki], *b = &s->tensors[k2];
            if (a->offset < b->offset + b->bytes && b->offset < a->offset + a->bytes)
              PFAIL("tile %u, operator %u reads tensor %d's tile buffer, which tensor %d's "
                    "overwrote since", t, ly->op, a->tensor, b->tensor);
          }
      }
      if (ko < nk - 1) {
        const mp_patch_tensor *x = &s->tensors[ko];
        if ((uint64_t)ob.h * (uint64_t)ob.w * (uint64_t)x->c * (uint64_t)x->elem > x->bytes ||
            x->offset + x->bytes > s->scratch_bytes)
          PFAIL("tile %u: tensor %d's window does not fit its tile buffer", t, x->tensor);
      } else {
        for (int32_t y = out.y0; y < out.y0 + out.h; y++)
          for (int32_t x = out.x0; x < out.x0 + out.w; x++)
            if (cover[(size_t)y * ty->w + x]++)
              PFAIL("tile %u writes pixel (%d, %d) of the stage output, which an earlier tile "
                    "wrote", t, y, x);
      }
      written[ko] = out;
      wlayer[ko] = (int32_t)l;
    }
  }
  for (size_t i = 0; i < (size_t)ty->h * ty->w; i++)
    if (!cover[i])
      PFAIL("no tile writes pixel (%d, %d) of the stage output", (int)(i / ty->w),
            (int)(i % ty->w));
done:
  free(cover);
  free(written);
  free(wlayer);
  free(whole);
  return st;
}

mp_status mp_verify_patch(const mp_plan *p, const mp_diag_sink *dx) {
  mp_status st = MP_OK;
  for (const mp_patch *s = p->graph->patch; s && st == MP_OK; s = s->next) {
    /* stages follow each other, each run by its first layer's operator */
    if (s->next && s->next->first <= s->last) {
      mp_error(dx, MP_LOC_NONE, "plan verification failed: patched stages %u .. %u and %u .. %u "
               "overlap", s->first, s->last, s->next->first, s->next->last);
      return MP_ERR_VERIFY;
    }
    st = verify_stage(p, s, dx);
  }
  return st;
}

/* The bytes [lo, hi) of a stage tensor a call touches: a window call's
 * rows and columns of its whole-tensor buffer (reads: the taps inside the
 * buffer; writes: its output at its strides), an ADD's rows. */
typedef struct bytes {
  int64_t lo, hi;
} bytes;

static bytes call_reads(const mp_patch *s, const mp_patch_call *c, uint32_t l, uint32_t i) {
  const mp_patch_layer *ly = &s->layers[l];
  const mp_patch_tensor *x = &s->tensors[ly->in[i]];
  int64_t px = (int64_t)x->c * x->elem;
  if (!ly->window) {
    int64_t e = x->elem;
    return (bytes){c->in_off[i] * e,
                   (c->in_off[i] + (int64_t)(c->rows - 1) * c->in_row_stride[i] + c->row_elems) * e};
  }
  const mpk_conv_geom *G = &c->geom;
  int32_t dh = G->dilation_h > 0 ? G->dilation_h : 1, dw = G->dilation_w > 0 ? G->dilation_w : 1;
  int32_t y0 = -G->pad_h, x0 = -G->pad_w;
  int32_t y1 = (G->out_h - 1) * G->stride_h - G->pad_h + (G->filter_h - 1) * dh;
  int32_t x1 = (G->out_w - 1) * G->stride_w - G->pad_w + (G->filter_w - 1) * dw;
  y0 = y0 < 0 ? 0 : y0;
  x0 = x0 < 0 ? 0 : x0;
  y1 = y1 >= G->in_h ? G->in_h - 1 : y1;
  x1 = x1 >= G->in_w ? G->in_w - 1 : x1;
  if (y1 < y0 || x1 < x0) return (bytes){0, 0};
  return (bytes){((int64_t)y0 * G->in_w + x0) * px, ((int64_t)y1 * G->in_w + x1 + 1) * px};
}

static bytes call_writes(const mp_patch *s, const mp_patch_call *c, uint32_t l) {
  const mp_patch_tensor *x = &s->tensors[l + 1];
  int64_t e = x->elem;
  if (!s->layers[l].window)
    return (bytes){c->out_off * e,
                   (c->out_off + (int64_t)(c->rows - 1) * c->out_row_stride + c->row_elems) * e};
  int64_t row = c->geom.out_row_stride ? c->geom.out_row_stride : (int64_t)c->geom.out_w * x->c;
  int64_t pix = c->geom.out_pixel_stride ? c->geom.out_pixel_stride : x->c;
  return (bytes){c->out_off * e,
                 (c->out_off + (int64_t)(c->geom.out_h - 1) * row +
                  (int64_t)(c->geom.out_w - 1) * pix + x->c) * e};
}

void mp_verify_patch_overlap(const mp_graph *g, int32_t op, uint32_t in, uint32_t out, int64_t d,
                             bool *ok, char *why, size_t nwhy) {
  const mp_patch *s = op >= 0 ? mp_patch_at(g, (uint32_t)op) : NULL;
  *ok = false;
  if (nwhy) why[0] = 0;
  if (!s || op != (int32_t)s->head || (int32_t)in != s->tensors[0].tensor ||
      (int32_t)out != s->tensors[s->n_tensors - 1].tensor) {
    snprintf(why, nwhy, "; operator %d runs no patched stage from tensor %u to %u", op, in, out);
    return;
  }
  uint32_t T = s->n_tiles, L = s->n_layers;
  bytes *rd = malloc((size_t)T * sizeof *rd), *wr = malloc((size_t)T * sizeof *wr);
  if (!rd || !wr) {
    snprintf(why, nwhy, "; out of memory checking the patched stage's overlap");
    free(rd);
    free(wr);
    return;
  }
  /* per tile: what its calls read of the input, what its last layer writes */
  bool own = false;
  for (uint32_t t = 0; t < T; t++) {
    rd[t] = wr[t] = (bytes){0, 0};
    for (uint32_t l = 0; l < L; l++) {
      mp_patch_call c;
      mp_patch_tile_call(s, t, l, &c);
      if (c.skip) continue;
      for (uint32_t i = 0; i < s->layers[l].n_in; i++) {
        if (s->layers[l].in[i] != 0) continue;
        if (l == L - 1) own = true;
        bytes b = call_reads(s, &c, l, i);
        if (b.hi <= b.lo) continue;
        if (rd[t].hi <= rd[t].lo) rd[t] = b;
        if (b.lo < rd[t].lo) rd[t].lo = b.lo;
        if (b.hi > rd[t].hi) rd[t].hi = b.hi;
      }
      if (l == L - 1) wr[t] = call_writes(s, &c, l);
    }
  }
  *ok = true;
  /* output byte o lies on input byte o - d */
  for (uint32_t t = 0; t < T && *ok; t++)
    for (uint32_t u = own ? t : t + 1; u < T && *ok; u++)
      if (wr[t].lo < wr[t].hi && rd[u].lo < rd[u].hi && wr[t].lo < rd[u].hi + d &&
          rd[u].lo + d < wr[t].hi) {
        *ok = false;
        snprintf(why, nwhy,
                 "; tile %u of the patched stage run by operator %d writes bytes %lld .. %lld of "
                 "tensor %u over bytes of tensor %u that tile %u reads (tensor %u starts %lld "
                 "bytes below tensor %u)",
                 t, op, (long long)wr[t].lo, (long long)wr[t].hi - 1, out, in, u, out,
                 (long long)d, in);
      }
  free(rd);
  free(wr);
}
