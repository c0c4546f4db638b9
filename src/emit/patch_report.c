/*
 * patch_report.c — what the reports say about a patched stage
 * (memory.patch): the summary's lines, the residency JSON's planner.patch
 * object and the kernels table's labels.
 *
 * The one idea: every figure comes from the stage (graph/patch.h) and the
 * plan as built, the unpatched plan's from the baseline the CLI recorded
 * (mp_graph_patch_baseline); nothing here plans or lowers anything.
 */
#include "emit/report.h"

#include "graph/patch.h"
#include "util/util.h"

#include <jansson.h>
#include <stdio.h>

#include <string.h>

static json_t *jint(uint64_t v) { return json_integer((json_int_t)v); }

static uint64_t scratch_of(const mp_plan *p) { return mp_plan_scratch_bytes(p); }

static const mp_arena *first_scratch(const mp_plan *p) {
  for (uint32_t i = 0; i < p->n_arenas; i++)
    if (p->arenas[i].role == MP_ROLE_SCRATCH) return &p->arenas[i];
  return NULL;
}

static void stage_line(mp_buf *b, const mp_patch *s, bool automatic) {
  const mp_patch_tensor *x = &s->tensors[0], *y = &s->tensors[s->n_tensors - 1];
  uint64_t extra = s->macs_patched > s->macs ? s->macs_patched - s->macs : 0;
  uint64_t bp = mp_patch_extra_macs_bp(s);
  mp_buf_printf(b,
                "patch: operators %u .. %u run tile by tile in op %u%s, %u x %u tiles of tensor "
                "%d (%d x %d x %d) from tensor %d (%d x %d x %d); a tile reads up to %d rows and "
                "%d columns of halo; %llu bytes of tile buffers (op-local scratch) instead of "
                "%u feature maps; %llu extra multiply-accumulates (+%llu.%02llu %% of the "
                "model's)\n",
                s->first, s->last, s->head, automatic ? " (memory.patch auto)" : "", s->rows,
                s->cols, y->tensor, y->h, y->w, y->c, x->tensor, x->h, x->w, x->c, s->halo_rows,
                s->halo_cols, (unsigned long long)s->scratch_bytes, s->n_layers - 1,
                (unsigned long long)extra, (unsigned long long)(bp / 100),
                (unsigned long long)(bp % 100));
}

void emit_patch_summary(mp_buf *b, const mp_plan *p) {
  const mp_graph *g = p->graph;
  const mp_patch *s = g->patch;
  if (!s) return;
  for (const mp_patch *q = s; q; q = q->next) stage_line(b, q, s->automatic);
  const mp_arena *a = first_scratch(p);
  if (!s->has_baseline || !a) return;
  uint64_t now = scratch_of(p);
  uint64_t pb = p->in_place ? a->inplace_bound : a->lower_bound;
  if (s->base_scratch > now)
    mp_buf_printf(b, "patch: %llu bytes of scratch against %llu unpatched (%llu saved, %.1f %%); "
                     "patched bound %llu, unpatched tensor-level bound %llu",
                  (unsigned long long)now, (unsigned long long)s->base_scratch,
                  (unsigned long long)(s->base_scratch - now),
                  100.0 * (double)(s->base_scratch - now) / (double)s->base_scratch,
                  (unsigned long long)pb, (unsigned long long)s->base_tensor_bound);
  else
    mp_buf_printf(b, "patch: %llu bytes of scratch against %llu unpatched (nothing saved); "
                     "patched bound %llu, unpatched tensor-level bound %llu",
                  (unsigned long long)now, (unsigned long long)s->base_scratch,
                  (unsigned long long)pb, (unsigned long long)s->base_tensor_bound);
  if (p->in_place)
    mp_buf_printf(b, ", unpatched in-place bound %llu", (unsigned long long)s->base_inplace_bound);
  mp_buf_puts(b, "\n");
}

/* One stage's figures (planner.patch, and each of its next_stages). */
static void stage_json(json_t *j, const mp_patch *s) {
  json_object_set_new(j, "first_op", jint(s->first));
  json_object_set_new(j, "last_op", jint(s->last));
  json_object_set_new(j, "run_by_op", jint(s->head));
  json_object_set_new(j, "rows", jint(s->rows));
  json_object_set_new(j, "cols", jint(s->cols));
  json_object_set_new(j, "input_tensor", jint((uint64_t)s->tensors[0].tensor));
  json_object_set_new(j, "output_tensor", jint((uint64_t)s->tensors[s->n_tensors - 1].tensor));
  json_object_set_new(j, "halo_rows", jint((uint64_t)s->halo_rows));
  json_object_set_new(j, "halo_cols", jint((uint64_t)s->halo_cols));
  json_object_set_new(j, "tile_buffer_bytes", jint(s->scratch_bytes));
  json_object_set_new(j, "scratch_tensor", jint((uint64_t)s->scratch_tensor));
  json_object_set_new(j, "stage_macs", jint(s->macs));
  json_object_set_new(j, "stage_macs_patched", jint(s->macs_patched));
  json_object_set_new(j, "model_macs", jint(s->model_macs));
  json_object_set_new(j, "extra_macs_percent",
                      json_real((double)mp_patch_extra_macs_bp(s) / 100.0));
}

json_t *emit_patch_json(const mp_plan *p) {
  const mp_patch *s = p->graph->patch;
  if (!s) return NULL;
  json_t *j = json_object();
  json_object_set_new(j, "mode", json_string(s->automatic ? "auto" : "stage"));
  stage_json(j, s);
  if (s->next) {
    json_t *a = json_array();
    for (const mp_patch *q = s->next; q; q = q->next) {
      json_t *o = json_object();
      stage_json(o, q);
      json_array_append_new(a, o);
    }
    json_object_set_new(j, "next_stages", a);
  }
  if (s->has_baseline) {
    json_object_set_new(j, "unpatched_scratch", jint(s->base_scratch));
    json_object_set_new(j, "unpatched_tensor_level_bound", jint(s->base_tensor_bound));
    if (p->in_place) json_object_set_new(j, "unpatched_inplace_bound", jint(s->base_inplace_bound));
    uint64_t now = scratch_of(p);
    json_object_set_new(j, "saved_bytes", jint(s->base_scratch > now ? s->base_scratch - now : 0));
  }
  if (s->automatic) json_object_set_new(j, "stages_tried", jint(s->tried));
  return j;
}

const char *emit_patch_label(const mp_graph *g, uint32_t op, char *buf, size_t n) {
  const mp_patch *s = mp_patch_at(g, op);
  if (!s || g->ops[op].builtin_code == 34 /* PAD */ || g->ops[op].builtin_code == 60 /* PADV2 */)
    return NULL;
  if (op == s->head)
    snprintf(buf, n, "patched stage %ux%u", s->rows, s->cols);
  else
    snprintf(buf, n, "(tile by tile in op %u)", s->head);
  return buf;
}
