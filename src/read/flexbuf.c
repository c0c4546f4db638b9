/*
 * flexbuf.c — bounds-checked flexbuffer primitives (custom operator
 * options).
 *
 * The wire format, as far as it is read here: the buffer ends with the
 * root value, then its packed type byte, then the root's width in bytes.
 * A packed type byte holds the value type in its high six bits and, in its
 * low two, log2 of a width: of the scalar an indirect value points at, or
 * of the elements of a vector or map.  Values narrower than 8 bytes sit in
 * slots of their parent's width.  Offset values (indirect scalars, maps,
 * vectors, keys) are unsigned and count backwards from the slot that holds
 * them.  A map is a vector of values preceded by its size, the width of
 * its keys' vector and the offset of that vector (keys sorted, each an
 * offset to a NUL-terminated string), and followed by one packed type byte
 * per value.
 *
 * The one idea: every position is computed in 64 bits and checked against
 * the buffer before a byte is read, and every error names the byte offset
 * in the model file (the buffer's base plus the position).
 */
#include "read/flexbuf.h"

#include "util/diag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fx_init(fx_buf *b, const uint8_t *p, uint32_t size, const char *name, uint64_t base,
             const char *what, const mp_diag_sink *dx) {
  b->p = p;
  b->size = p ? size : 0;
  b->name = name;
  b->base = base;
  b->what = what ? what : "flexbuffer";
  b->dx = dx;
}

static void fail(const fx_buf *b, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(const fx_buf *b, uint64_t at, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mp_diag_emit(b->dx, MP_SEV_ERROR, (mp_loc){b->name, 0, 0, (int64_t)(b->base + at), NULL, NULL},
               "%s: %s (flexbuffer byte %llu)", b->what, msg, (unsigned long long)at);
}

static bool in_buf(const fx_buf *b, int64_t pos, uint64_t n) {
  return pos >= 0 && (uint64_t)pos <= b->size && n <= b->size - (uint64_t)pos;
}

static bool width_ok(uint64_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

static uint64_t load_u(const uint8_t *p, uint32_t w) {
  uint64_t v = 0;
  for (uint32_t k = 0; k < w; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

static int64_t load_i(const uint8_t *p, uint32_t w) {
  uint64_t v = load_u(p, w);
  if (w < 8 && (v >> (8 * w - 1)) & 1) v |= ~(uint64_t)0 << (8 * w);
  return (int64_t)v;
}

/* An unsigned field of width w at pos, checked. */
static bool read_u(const fx_buf *b, int64_t pos, uint32_t w, const char *what, uint64_t *out) {
  if (!in_buf(b, pos, w)) {
    fail(b, pos < 0 ? 0 : (uint64_t)pos, "%s of %u bytes at %lld lies outside the %u-byte buffer",
         what, w, (long long)pos, b->size);
    return false;
  }
  *out = load_u(b->p + pos, w);
  return true;
}

/* Where the offset in the slot at r->pos points. */
static bool follow(const fx_buf *b, const fx_ref *r, const char *what, int64_t *target) {
  uint64_t off;
  if (!read_u(b, r->pos, r->parent_width, what, &off)) return false;
  if (off > r->pos) {
    fail(b, r->pos, "%s: offset %llu points before the start of the buffer", what,
         (unsigned long long)off);
    return false;
  }
  *target = (int64_t)r->pos - (int64_t)off;
  return true;
}

const char *fx_type_name(uint8_t type, char buf[16]) {
  static const char *const names[] = {"null",         "int",         "uint",  "float",
                                      "key",          "string",      "indirect int",
                                      "indirect uint", "indirect float", "map", "vector"};
  if (type < sizeof names / sizeof names[0]) return names[type];
  if (type == FX_BOOL) return "bool";
  snprintf(buf, 16, "type %u", type);
  return buf;
}

bool fx_root(const fx_buf *b, fx_ref *out) {
  if (b->size < 3) {
    fail(b, 0, "%u bytes: a flexbuffer has at least 3", b->size);
    return false;
  }
  uint8_t w = b->p[b->size - 1], packed = b->p[b->size - 2];
  if (!width_ok(w) || (uint64_t)w + 2 > b->size) {
    fail(b, b->size - 1, "root width %u is not 1, 2, 4 or 8 bytes within the buffer", w);
    return false;
  }
  out->pos = b->size - 2 - w;
  out->parent_width = w;
  out->type = (uint8_t)(packed >> 2);
  out->byte_width = (uint8_t)(1u << (packed & 3));
  return true;
}

bool fx_as_map(const fx_buf *b, const fx_ref *r, fx_map *out) {
  char tb[16];
  memset(out, 0, sizeof *out);
  if (r->type != FX_MAP) {
    fail(b, r->pos, "expected a map, found %s", fx_type_name(r->type, tb));
    return false;
  }
  int64_t t;
  if (!follow(b, r, "map offset", &t)) return false;
  const uint32_t w = r->byte_width;
  uint64_t n, keys_off, kw;
  if (!read_u(b, t - (int64_t)w, w, "map size", &n) ||
      !read_u(b, t - 2 * (int64_t)w, w, "map key width", &kw) ||
      !read_u(b, t - 3 * (int64_t)w, w, "map keys offset", &keys_off))
    return false;
  if (n > b->size || !in_buf(b, t, n * w + n)) {
    fail(b, (uint64_t)t, "map of %llu entries of %u bytes (and their types) runs past the end "
                         "of the buffer", (unsigned long long)n, w);
    return false;
  }
  if (!width_ok(kw)) {
    fail(b, (uint64_t)(t - 2 * (int64_t)w), "map key width %llu is not 1, 2, 4 or 8",
         (unsigned long long)kw);
    return false;
  }
  int64_t keys_slot = t - 3 * (int64_t)w;
  if (keys_off > (uint64_t)keys_slot) {
    fail(b, (uint64_t)keys_slot, "map keys offset %llu points before the start of the buffer",
         (unsigned long long)keys_off);
    return false;
  }
  int64_t keys = keys_slot - (int64_t)keys_off;
  uint64_t nk;
  if (!read_u(b, keys - (int64_t)kw, (uint32_t)kw, "map keys size", &nk)) return false;
  if (nk != n || !in_buf(b, keys, n * kw)) {
    fail(b, (uint64_t)keys, "map keys vector (%llu keys of %llu bytes) does not match its %llu "
                            "values within the buffer",
         (unsigned long long)nk, (unsigned long long)kw, (unsigned long long)n);
    return false;
  }
  out->b = b;
  out->values = (uint32_t)t;
  out->n = (uint32_t)n;
  out->width = (uint8_t)w;
  out->keys = (uint32_t)keys;
  out->key_width = (uint8_t)kw;
  return true;
}

bool fx_map_key(const fx_map *m, uint32_t i, const char **key) {
  const fx_buf *b = m->b;
  if (i >= m->n) return false;
  fx_ref slot = {m->keys + i * m->key_width, m->key_width, FX_KEY, 1};
  int64_t s;
  if (!follow(b, &slot, "map key offset", &s)) return false;
  const uint8_t *end = in_buf(b, s, 1) ? memchr(b->p + s, 0, b->size - (uint64_t)s) : NULL;
  if (!end) {
    fail(b, slot.pos, "map key %u is not a NUL-terminated string inside the buffer", i);
    return false;
  }
  *key = (const char *)(b->p + s);
  return true;
}

bool fx_map_value(const fx_map *m, uint32_t i, fx_ref *out) {
  if (i >= m->n) return false;
  uint8_t packed = m->b->p[m->values + m->n * m->width + i];
  out->pos = m->values + i * m->width;
  out->parent_width = m->width;
  out->type = (uint8_t)(packed >> 2);
  out->byte_width = (uint8_t)(1u << (packed & 3));
  return true;
}

/* A float of width w (4 or 8) at pos. */
static bool read_f(const fx_buf *b, int64_t pos, uint32_t w, const char *key, double *out) {
  uint64_t bits;
  if (w != 4 && w != 8) {
    fail(b, pos < 0 ? 0 : (uint64_t)pos, "'%s': a %u-byte float is not supported", key, w);
    return false;
  }
  if (!read_u(b, pos, w, key, &bits)) return false;
  if (w == 4) {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, sizeof f);
    *out = f;
  } else {
    memcpy(out, &bits, sizeof *out);
  }
  return true;
}

bool fx_as_i64(const fx_buf *b, const fx_ref *r, const char *key, int64_t *out) {
  char tb[16];
  int64_t pos = r->pos;
  uint32_t w = r->parent_width;
  uint8_t type = r->type;
  if (type == FX_INDIRECT_INT || type == FX_INDIRECT_UINT || type == FX_INDIRECT_FLOAT) {
    if (!follow(b, r, key, &pos)) return false;
    w = r->byte_width;
    type = (uint8_t)(type - (FX_INDIRECT_INT - FX_INT));
  }
  uint64_t u;
  double d;
  switch (type) {
  case FX_INT:
    if (!read_u(b, pos, w, key, &u)) return false;
    *out = load_i(b->p + pos, w);
    return true;
  case FX_UINT:
  case FX_BOOL:
    if (!read_u(b, pos, w, key, &u)) return false;
    if (u > (uint64_t)INT64_MAX) {
      fail(b, (uint64_t)pos, "'%s' = %llu is out of range", key, (unsigned long long)u);
      return false;
    }
    *out = (int64_t)u;
    return true;
  case FX_FLOAT:
    if (!read_f(b, pos, w, key, &d)) return false;
    if (!isfinite(d) || d >= 9.2e18 || d <= -9.2e18) {
      fail(b, (uint64_t)pos, "'%s' = %g is not a usable integer", key, d);
      return false;
    }
    *out = (int64_t)d;
    return true;
  default:
    fail(b, (uint64_t)pos, "'%s' is a %s, expected a number", key, fx_type_name(r->type, tb));
    return false;
  }
}
