/*
 * flexbuf.h — a small, fully bounds-checked reader of flexbuffers: the
 * encoding of a custom operator's options (the Signal library's operators
 * keep theirs in a flexbuffer map).
 *
 * Only what custom options need: the root, a map's keys and values, and
 * scalar values (int, uint, bool, float, and their indirect forms).  Every
 * read is checked against the buffer before it happens; a failed check
 * reports what was read and its byte offset in the model file, and returns
 * false.  Offsets in a flexbuffer point backwards from where they are
 * stored, and nothing here follows more than two of them in a row, so no
 * input can make the reader loop or recurse.
 */
#ifndef MP_FLEXBUF_H
#define MP_FLEXBUF_H

#include "memplan.h"

typedef struct fx_buf {
  const uint8_t *p;
  uint32_t size;
  const char *name;        /* the file, for diagnostics */
  uint64_t base;           /* the buffer's offset in that file */
  const char *what;        /* "custom options of operator 3 (SignalWindow)" */
  const mp_diag_sink *dx;
} fx_buf;

/* A value: where it is stored, the width of its slot, its type and the
 * width its type byte gives (of a scalar behind an offset, or of a
 * vector's elements). */
typedef struct fx_ref {
  uint32_t pos;
  uint8_t parent_width;
  uint8_t type;
  uint8_t byte_width;
} fx_ref;

typedef struct fx_map {
  const fx_buf *b;
  uint32_t values;   /* first value */
  uint32_t n;        /* entries */
  uint8_t width;     /* width of a value slot */
  uint32_t keys;     /* first key offset */
  uint8_t key_width; /* width of a key slot */
} fx_map;

/* Flexbuffer value types (the ones read here and the ones named in errors). */
enum {
  FX_NULL = 0, FX_INT = 1, FX_UINT = 2, FX_FLOAT = 3, FX_KEY = 4, FX_STRING = 5,
  FX_INDIRECT_INT = 6, FX_INDIRECT_UINT = 7, FX_INDIRECT_FLOAT = 8, FX_MAP = 9,
  FX_VECTOR = 10, FX_BOOL = 26
};

void fx_init(fx_buf *b, const uint8_t *p, uint32_t size, const char *name, uint64_t base,
             const char *what, const mp_diag_sink *dx);

/* The root value (the last bytes of the buffer). */
bool fx_root(const fx_buf *b, fx_ref *out);

/* The value as a map (fails with an error for any other type). */
bool fx_as_map(const fx_buf *b, const fx_ref *r, fx_map *out);

/* Key i of a map, NUL-terminated inside the buffer (checked). */
bool fx_map_key(const fx_map *m, uint32_t i, const char **key);
/* Value i of a map. */
bool fx_map_value(const fx_map *m, uint32_t i, fx_ref *out);

/* A scalar as a 64-bit integer: INT, UINT, BOOL and their indirect forms
 * as stored (UINT above INT64_MAX fails), FLOAT truncated toward zero when
 * it is finite and in range.  `key` names the value in errors. */
bool fx_as_i64(const fx_buf *b, const fx_ref *r, const char *key, int64_t *out);

/* Name of a value type for messages ("int", "map", "type 37"). */
const char *fx_type_name(uint8_t type, char buf[16]);

#endif /* MP_FLEXBUF_H */
