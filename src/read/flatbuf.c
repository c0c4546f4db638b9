/*
 * flatbuf.c — bounds-checked flatbuffer primitives.
 *
 * The wire format: a table starts with an int32 soffset to its vtable
 * (vtable = table - soffset).  A vtable is uint16 vtable_size, uint16
 * table_size, then one uint16 per field: the field's offset inside the
 * table, 0 when absent.  Offsets to tables, vectors and strings are uint32
 * relative to where they are stored, and always point forward, so following
 * them cannot loop.  Vectors and strings are a uint32 count followed by the
 * elements (strings add a NUL).
 *
 * fb_table_at checks the whole vtable once (every field offset inside the
 * table), so field reads only check the field's own size.
 */
#include "read/flatbuf.h"

#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Elements a file may make us read per byte of its size: generous for real
 * models (every byte is read a handful of times), fatal for amplification. */
#define FB_BUDGET_PER_BYTE 16u
#define FB_BUDGET_FLOOR 65536u

void fb_init(fb_file *f, const uint8_t *p, size_t size, const char *name,
             const mp_diag_sink *dx) {
  f->p = p;
  f->size = size;
  f->name = name;
  f->dx = dx;
  f->budget = (uint64_t)size * FB_BUDGET_PER_BYTE + FB_BUDGET_FLOOR;
}

uint16_t fb_load_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
uint32_t fb_load_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
uint64_t fb_load_u64(const uint8_t *p) {
  return (uint64_t)fb_load_u32(p) | ((uint64_t)fb_load_u32(p + 4) << 32);
}

void fb_fail(const fb_file *f, uint32_t at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_diag_vemit(f->dx, MP_SEV_ERROR, (mp_loc){f->name, 0, 0, (int64_t)at, NULL, NULL}, fmt, ap);
  va_end(ap);
}

static bool in_file(const fb_file *f, uint64_t pos, uint64_t n) {
  return pos <= f->size && n <= f->size - pos;
}

bool fb_charge(fb_file *f, uint64_t n, uint32_t at) {
  if (n > f->budget) {
    fb_fail(f, at, "model references the same data too many times for its size "
                   "(%zu bytes): refusing to expand it", f->size);
    f->budget = 0;
    return false;
  }
  f->budget -= n;
  return true;
}

bool fb_table_at(fb_file *f, uint32_t pos, const char *what, fb_table *out) {
  memset(out, 0, sizeof(*out));
  if (!fb_charge(f, 1, pos)) return false;
  if (pos % 4 != 0 || !in_file(f, pos, 4)) {
    fb_fail(f, pos, "%s: table offset %u is %s", what, pos,
            pos % 4 ? "misaligned" : "outside the file");
    return false;
  }
  int32_t soff = (int32_t)fb_load_u32(f->p + pos);
  int64_t vt = (int64_t)pos - (int64_t)soff;
  if (vt < 0 || vt % 2 != 0 || !in_file(f, (uint64_t)vt, 4)) {
    fb_fail(f, pos, "%s: vtable offset %lld is outside the file", what, (long long)vt);
    return false;
  }
  uint16_t vt_size = fb_load_u16(f->p + vt);
  uint16_t tbl_size = fb_load_u16(f->p + vt + 2);
  if (vt_size < 4 || vt_size % 2 != 0 || !in_file(f, (uint64_t)vt, vt_size)) {
    fb_fail(f, (uint32_t)vt, "%s: vtable of %u bytes is %s", what, vt_size,
            vt_size < 4 || vt_size % 2 ? "malformed" : "truncated by the end of the file");
    return false;
  }
  if (tbl_size < 4 || !in_file(f, pos, tbl_size)) {
    fb_fail(f, pos, "%s: table of %u bytes extends past the end of the file", what, tbl_size);
    return false;
  }
  for (uint32_t o = 4; o < vt_size; o += 2) {
    uint16_t fo = fb_load_u16(f->p + vt + o);
    if (fo != 0 && (fo < 4 || fo >= tbl_size)) {
      fb_fail(f, (uint32_t)(vt + o), "%s: field %u at offset %u lies outside its %u-byte table",
              what, (o - 4) / 2, fo, tbl_size);
      return false;
    }
  }
  out->f = f;
  out->pos = pos;
  out->vt = (uint32_t)vt;
  out->vt_size = vt_size;
  out->tbl_size = tbl_size;
  snprintf(out->what, sizeof out->what, "%s", what);
  return true;
}

bool fb_root(fb_file *f, const char *ident, fb_table *out) {
  if (f->size < 8) {
    fb_fail(f, 0, "file is %zu bytes, too short to be a flatbuffer", f->size);
    return false;
  }
  if (ident && memcmp(f->p + 4, ident, 4) != 0) {
    char got[5];
    for (int i = 0; i < 4; i++) {
      uint8_t c = f->p[4 + i];
      got[i] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    got[4] = '\0';
    fb_fail(f, 4, "not a TFLite model: file identifier is '%s', expected '%s'", got, ident);
    return false;
  }
  uint32_t root = fb_load_u32(f->p);
  return fb_table_at(f, root, "model", out);
}

const char *fb_field_name(const fb_table *t, uint32_t id, char buf[16]) {
  if (t->fields) {
    for (uint32_t i = 0; t->fields[i]; i++)
      if (i == id) return t->fields[i];
  }
  snprintf(buf, 16, "field %u", id);
  return buf;
}

bool fb_field(const fb_table *t, uint32_t id, uint32_t size, uint32_t *pos) {
  *pos = 0;
  uint32_t o = 4 + 2 * id;
  if (o + 2 > t->vt_size) return true;
  uint16_t fo = fb_load_u16(t->f->p + t->vt + o);
  if (fo == 0) return true;
  if ((uint32_t)fo + size > t->tbl_size) {
    char nb[16];
    fb_fail(t->f, t->pos + fo, "%s: %s (%u bytes) runs past the end of its table", t->what,
            fb_field_name(t, id, nb), size);
    return false;
  }
  *pos = t->pos + fo;
  return true;
}

#define SCALAR(name, type, sz, load)                                          \
  bool fb_##name(const fb_table *t, uint32_t id, type def, type *out) {     \
    uint32_t pos;                                                             \
    if (!fb_field(t, id, sz, &pos)) return false;                             \
    *out = pos ? (type)(load) : def;                                          \
    return true;                                                              \
  }

SCALAR(u8, uint8_t, 1, t->f->p[pos])
SCALAR(i8, int8_t, 1, (int8_t)t->f->p[pos])
SCALAR(i32, int32_t, 4, (int32_t)fb_load_u32(t->f->p + pos))
SCALAR(u32, uint32_t, 4, fb_load_u32(t->f->p + pos))
SCALAR(u64, uint64_t, 8, fb_load_u64(t->f->p + pos))

bool fb_f32(const fb_table *t, uint32_t id, float def, float *out) {
  uint32_t pos;
  if (!fb_field(t, id, 4, &pos)) return false;
  if (!pos) {
    *out = def;
    return true;
  }
  uint32_t bits = fb_load_u32(t->f->p + pos);
  memcpy(out, &bits, sizeof bits);
  return true;
}

bool fb_ref(const fb_table *t, uint32_t id, uint32_t *target, bool *present) {
  uint32_t pos;
  *present = false;
  *target = 0;
  if (!fb_field(t, id, 4, &pos)) return false;
  if (!pos) return true;
  uint64_t tgt = (uint64_t)pos + fb_load_u32(t->f->p + pos);
  if (tgt >= t->f->size) {
    char nb[16];
    fb_fail(t->f, pos, "%s: %s points to byte %llu, past the end of the file (%zu bytes)",
            t->what, fb_field_name(t, id, nb), (unsigned long long)tgt, t->f->size);
    return false;
  }
  *target = (uint32_t)tgt;
  *present = true;
  return true;
}

bool fb_subtable(const fb_table *t, uint32_t id, const char *what, fb_table *out,
                 bool *present) {
  uint32_t tgt;
  memset(out, 0, sizeof(*out));
  if (!fb_ref(t, id, &tgt, present)) return false;
  if (!*present) return true;
  return fb_table_at(t->f, tgt, what, out);
}

bool fb_vector(const fb_table *t, uint32_t id, uint32_t elem_size, fb_vec *out) {
  uint32_t tgt;
  bool present;
  memset(out, 0, sizeof(*out));
  out->elem_size = elem_size;
  if (!fb_ref(t, id, &tgt, &present)) return false;
  if (!present) return true;
  const fb_file *f = t->f;
  if (!in_file(f, tgt, 4)) {
    char nb[16];
    fb_fail(f, tgt, "%s: length of %s is truncated by the end of the file", t->what,
            fb_field_name(t, id, nb));
    return false;
  }
  uint32_t len = fb_load_u32(f->p + tgt);
  if (!in_file(f, (uint64_t)tgt + 4, (uint64_t)len * elem_size)) {
    char nb[16];
    if (elem_size == 1)
      fb_fail(f, tgt, "%s: %s is %u bytes long, running past the end of the file (%zu bytes)",
              t->what, fb_field_name(t, id, nb), len, f->size);
    else
      fb_fail(f, tgt, "%s: %s has %u elements of %u bytes, running past the end of the file "
                      "(%zu bytes)", t->what, fb_field_name(t, id, nb), len, elem_size, f->size);
    return false;
  }
  if (!fb_charge(t->f, len, tgt)) return false;
  out->pos = tgt + 4;
  out->len = len;
  return true;
}

bool fb_vec_table(fb_file *f, const fb_vec *v, uint32_t i, const char *what, fb_table *out) {
  uint32_t pos = v->pos + 4 * i; /* within the vector: checked by fb_vector */
  uint64_t tgt = (uint64_t)pos + fb_load_u32(f->p + pos);
  if (tgt >= f->size) {
    fb_fail(f, pos, "%s: offset points to byte %llu, past the end of the file (%zu bytes)",
            what, (unsigned long long)tgt, f->size);
    return false;
  }
  return fb_table_at(f, (uint32_t)tgt, what, out);
}

bool fb_string(const fb_table *t, uint32_t id, const uint8_t **s, uint32_t *len) {
  fb_vec v;
  *s = NULL;
  *len = 0;
  if (!fb_vector(t, id, 1, &v)) return false;
  if (v.pos == 0) return true;
  *s = t->f->p + v.pos;
  *len = v.len;
  return true;
}
