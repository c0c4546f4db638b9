/*
 * flatbuf.h — a small, fully bounds-checked flatbuffer reader.
 *
 * Only what the LiteRT schema needs: tables (with vtables), scalars,
 * offsets, vectors and strings.  Every read is checked against the file
 * before it happens; a failed check reports what was being read and the
 * byte offset, and returns false.  Reads decode little-endian bytes one by
 * one, so neither host endianness nor alignment matters.
 *
 * Hostile files can make many references point at one large table; to keep
 * the total work linear in the file size, every element read is charged to
 * a budget proportional to the file size.
 */
#ifndef MP_FLATBUF_H
#define MP_FLATBUF_H

#include "memplan.h"

typedef struct fb_file {
  const uint8_t *p;
  size_t size;
  const char *name;          /* for diagnostics */
  const mp_diag_sink *dx;
  uint64_t budget;           /* elements left to read */
} fb_file;

typedef struct fb_table {
  fb_file *f;
  uint32_t pos;              /* table start */
  uint32_t vt;               /* vtable start */
  uint16_t vt_size;          /* bytes of the vtable */
  uint16_t tbl_size;         /* bytes of the table's inline data */
  char what[96];             /* what this table is, for diagnostics */
  const char *const *fields; /* field names by id (NULL-terminated), or NULL */
} fb_table;

typedef struct fb_vec {
  uint32_t pos;              /* first element */
  uint32_t len;              /* number of elements */
  uint32_t elem_size;
} fb_vec;

void fb_init(fb_file *f, const uint8_t *p, size_t size, const char *name,
             const mp_diag_sink *dx);

/* Little-endian loads; the caller has checked the bounds. */
uint16_t fb_load_u16(const uint8_t *p);
uint32_t fb_load_u32(const uint8_t *p);
uint64_t fb_load_u64(const uint8_t *p);

/* Open the root table (checks the header and the "TFL3" identifier). */
bool fb_root(fb_file *f, const char *ident, fb_table *out);

/* Open a table at `pos`, validating its vtable completely. */
bool fb_table_at(fb_file *f, uint32_t pos, const char *what, fb_table *out);

/* Position of field `id` (0-based) in the table, or 0 when absent.  Fails
 * when the field's `size` bytes fall outside the table. */
bool fb_field(const fb_table *t, uint32_t id, uint32_t size, uint32_t *pos);

/* Scalars with schema defaults. */
bool fb_u8(const fb_table *t, uint32_t id, uint8_t def, uint8_t *out);
bool fb_i8(const fb_table *t, uint32_t id, int8_t def, int8_t *out);
bool fb_i32(const fb_table *t, uint32_t id, int32_t def, int32_t *out);
bool fb_u32(const fb_table *t, uint32_t id, uint32_t def, uint32_t *out);
bool fb_u64(const fb_table *t, uint32_t id, uint64_t def, uint64_t *out);
bool fb_f32(const fb_table *t, uint32_t id, float def, float *out);

/* Follow an offset field; *present = false (and true returned) when the
 * field is absent. */
bool fb_ref(const fb_table *t, uint32_t id, uint32_t *target, bool *present);
/* A sub-table field. */
bool fb_subtable(const fb_table *t, uint32_t id, const char *what, fb_table *out,
                 bool *present);
/* A vector field of `elem_size`-byte elements; absent = empty. */
bool fb_vector(const fb_table *t, uint32_t id, uint32_t elem_size, fb_vec *out);
/* Element i of a vector of tables. */
bool fb_vec_table(fb_file *f, const fb_vec *v, uint32_t i, const char *what, fb_table *out);
/* A string field, as pointer into the file plus length (not necessarily
 * NUL-terminated: copy it).  Absent = NULL, 0. */
bool fb_string(const fb_table *t, uint32_t id, const uint8_t **s, uint32_t *len);

/* Name of field `id` for messages ("shape"), or "field N". */
const char *fb_field_name(const fb_table *t, uint32_t id, char buf[16]);

/* Charge `n` element reads to the file's work budget. */
bool fb_charge(fb_file *f, uint64_t n, uint32_t at);

/* Report an error at byte `at`. */
void fb_fail(const fb_file *f, uint32_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* MP_FLATBUF_H */
