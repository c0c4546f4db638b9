/*
 * emit_arenas.c — src/<p>_arenas.c: the arena symbols of a module that
 * allocates its own arenas (allocate_arenas: true).
 *
 * One symbol per region, named as mp_arena_symbol names it and exactly the
 * region's size, aligned to the arena's alignment and placed with the
 * <P>_PUT_IN_<MEM> macro of the memory its bytes live in.  Writable arenas
 * (scratch, persistent, staged runtime copies) are zero-initialised
 * storage; read-only blobs (cold constants, staged sources) are `const`
 * and carry the model's bytes at their planned offsets, each tensor's
 * bytes preceded by a comment naming it.
 *
 * Without allocate_arenas this file is not written: the same blobs become
 * data/<symbol>.bin files the application places and binds (emit.c).
 */
#include "emit/parts.h"
#include "emit/text.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
  uint64_t offset, size;
  uint32_t t;
} slot;

static int cmp_slot(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return (x->t > y->t) - (x->t < y->t);
}

/* The initialiser of a constant blob: every tensor's bytes after a comment,
 * the padding between them marked as such. */
static void blob_bytes(const emit_ctx *e, const emit_region *r, mp_buf *b) {
  const mp_plan *p = e->plan;
  size_t n = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    n += a->placed && a->arena == r->arena && a->alias_of < 0 && a->size > 0;
  }
  slot *s = mp_pool_alloc(e->pool, n ? n : 1, sizeof *s);
  if (!s) {
    b->failed = true;
    return;
  }
  n = 0;
  for (uint32_t t = 0; t < p->n_allocs; t++) {
    const mp_allocation *a = &p->allocs[t];
    if (a->placed && a->arena == r->arena && a->alias_of < 0 && a->size > 0)
      s[n++] = (slot){a->offset, a->size, t};
  }
  qsort(s, n, sizeof *s, cmp_slot);
  uint64_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i].offset > at) {
      mp_buf_printf(b, "  /* padding [%llu, %llu) */\n", (unsigned long long)at,
                    (unsigned long long)s[i].offset);
      emit_hex_bytes(b, r->bytes + at, s[i].offset - at);
      at = s[i].offset;
    }
    uint64_t end = s[i].offset + s[i].size;
    if (end <= at) continue; /* inside bytes already written */
    mp_buf_printf(b, "  /* tensor %u '", s[i].t);
    emit_comment_text(b, e->g->tensors[s[i].t].name, 48);
    mp_buf_printf(b, "' [%llu, %llu) */\n", (unsigned long long)s[i].offset,
                  (unsigned long long)end);
    emit_hex_bytes(b, r->bytes + at, end - at);
    at = end;
  }
  if (at < r->size) {
    mp_buf_printf(b, "  /* padding [%llu, %llu) */\n", (unsigned long long)at,
                  (unsigned long long)r->size);
    emit_hex_bytes(b, r->bytes + at, r->size - at);
  }
}

void emit_arenas(const emit_ctx *e, mp_buf *b) {
  const char *u = e->up, *p = e->prefix;
  mp_buf_printf(b, "/*\n * %s_arenas.c — the arenas of the memplan module \"", p);
  emit_comment_text(b, e->module_name, 60);
  mp_buf_puts(b, "\", one symbol per\n * region.\n *\n");
  emit_provenance(e, b, " * ");
  mp_buf_printf(b,
      " *\n"
      " * Each arena is placed with %s_PUT_IN_<MEM> (or %s_PUT_CONST_IN_<MEM> for\n"
      " * read-only blobs) of the memory it belongs in; see include/%s_model.h.\n"
      " * The constant blobs hold the model's bytes at their planned offsets.\n"
      " */\n"
      "#include \"%s_model.h\"\n\n",
      u, u, p, p);
  for (uint32_t i = 0; i < e->n_regions; i++) {
    const emit_region *r = &e->regions[i];
    const mp_arena *a = r->a;
    const char *mu = emit_mem_upper(e, r->memory);
    if (r->is_source)
      mp_buf_printf(b, "/* The source blob of the staged constants of %s, in %s: copied into\n"
                       " * %s by %s_hydrate_constants. */\n",
                    emit_mem_name(e, a->memory), emit_mem_name(e, r->memory),
                    e->regions[r->arena].symbol, p);
    else if (a->role == MP_ROLE_SCRATCH)
      mp_buf_printf(b, "/* Scratch arena in %s: %u tensors, %llu bytes used (lower bound %llu).\n"
                       " * Holds nothing between runs. */\n",
                    emit_mem_name(e, a->memory), a->n_tensors, (unsigned long long)a->used,
                    (unsigned long long)a->lower_bound);
    else if (a->role == MP_ROLE_PERSISTENT)
      mp_buf_printf(b, "/* Persistent arena in %s: %u tensors, zeroed by %s_context_init. */\n",
                    emit_mem_name(e, a->memory), a->n_tensors, p);
    else if (a->is_staged)
      mp_buf_printf(b, "/* Staged constants in %s: %u tensors, hydrated from %s (in %s). */\n",
                    emit_mem_name(e, a->memory), a->n_tensors,
                    emit_source_region(e, r->arena)->symbol, emit_mem_name(e, a->source_memory));
    else
      mp_buf_printf(b, "/* Cold constants in %s: %u tensors, read in place. */\n",
                    emit_mem_name(e, a->memory), a->n_tensors);
    if (r->shared && !r->shared_define) {
      mp_buf_printf(b, "/* It is %s, shared with the config's other models and defined by\n"
                       " * the module of the first of them with scratch in %s. */\n\n",
                    r->symbol, emit_mem_name(e, r->memory));
      continue;
    }
    if (r->shared) {
      mp_buf_printf(b, "/* Shared with the config's other models: %s bytes, the largest\n"
                       " * need. */\n"
                       "%s_PUT_IN_%s %s_ALIGNED(%u) uint8_t %s[%s];\n\n",
                    r->shared_size_macro, u, mu, u, e->cfg->shared->align[r->memory], r->symbol,
                    r->shared_size_macro);
      continue;
    }
    if (!r->is_const) {
      mp_buf_printf(b, "%s_PUT_IN_%s %s_ALIGNED(%u) uint8_t %s[%s_SIZE];\n\n", u, mu, u, r->align,
                    r->symbol, r->enum_name);
      continue;
    }
    mp_buf_printf(b, "%s_PUT_CONST_IN_%s %s_ALIGNED(%u) const uint8_t %s[%s_SIZE] = {\n", u, mu,
                  u, r->align, r->symbol, r->enum_name);
    blob_bytes(e, r, b);
    mp_buf_puts(b, "};\n\n");
  }
}
