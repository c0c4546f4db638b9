/*
 * diag.h — reporting diagnostics to the caller's sink.
 *
 * Library code never prints.  It fills an mp_diag and hands it to the sink
 * the caller installed (the CLI's printer, a test's recorder, or nothing).
 * These helpers format the message; the location fields say where.
 */
#ifndef MP_DIAG_H
#define MP_DIAG_H

#include "memplan.h"

#include <stdarg.h>

/* Where a diagnostic points.  Zero-initialise, then set what is known;
 * byte_offset must be set to -1 when unknown (use MP_LOC_NONE). */
typedef struct mp_loc {
  const char *file;
  uint32_t line;
  uint32_t column;
  int64_t byte_offset;
  const char *key_path;
  const char *source_line;
} mp_loc;

#define MP_LOC_NONE ((mp_loc){NULL, 0, 0, -1, NULL, NULL})

void mp_diag_emit(const mp_diag_sink *dx, mp_severity sev, mp_loc loc,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void mp_diag_vemit(const mp_diag_sink *dx, mp_severity sev, mp_loc loc,
                   const char *fmt, va_list ap);

/* Shorthands. */
void mp_error(const mp_diag_sink *dx, mp_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mp_warning(const mp_diag_sink *dx, mp_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mp_note(const mp_diag_sink *dx, mp_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Error at a byte offset of a file (model reader). */
void mp_error_at_byte(const mp_diag_sink *dx, const char *file, int64_t off,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif /* MP_DIAG_H */
