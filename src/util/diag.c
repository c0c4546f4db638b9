/*
 * diag.c — formatting diagnostics and handing them to the caller's sink.
 */
#include "util/diag.h"

#include "util/util.h"

void mp_diag_vemit(const mp_diag_sink *dx, mp_severity sev, mp_loc loc, const char *fmt,
                   va_list ap) {
  if (!dx || !dx->fn) return;
  char small[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap2);
  va_end(ap2);
  mp_buf big;
  mp_buf_init(&big);
  const char *msg = small;
  if (n >= (int)sizeof small) {
    mp_buf_vprintf(&big, fmt, ap);
    msg = big.failed ? small : mp_buf_str(&big);
  }
  mp_diag d = {sev, loc.file, loc.line, loc.column, loc.byte_offset,
               loc.key_path, loc.source_line, msg};
  dx->fn(dx->user, &d);
  mp_buf_free(&big);
}

void mp_diag_emit(const mp_diag_sink *dx, mp_severity sev, mp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_diag_vemit(dx, sev, loc, fmt, ap);
  va_end(ap);
}

void mp_error(const mp_diag_sink *dx, mp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_diag_vemit(dx, MP_SEV_ERROR, loc, fmt, ap);
  va_end(ap);
}

void mp_warning(const mp_diag_sink *dx, mp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_diag_vemit(dx, MP_SEV_WARNING, loc, fmt, ap);
  va_end(ap);
}

void mp_note(const mp_diag_sink *dx, mp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_diag_vemit(dx, MP_SEV_NOTE, loc, fmt, ap);
  va_end(ap);
}

void mp_error_at_byte(const mp_diag_sink *dx, const char *file, int64_t off, const char *fmt,
                      ...) {
  va_list ap;
  va_start(ap, fmt);
  mp_diag_vemit(dx, MP_SEV_ERROR, (mp_loc){file, 0, 0, off, NULL, NULL}, fmt, ap);
  va_end(ap);
}

const char *mp_status_str(mp_status st) {
  switch (st) {
  case MP_OK: return "ok";
  case MP_ERR_NOMEM: return "out of memory";
  case MP_ERR_IO: return "I/O error";
  case MP_ERR_MODEL: return "malformed model";
  case MP_ERR_CONFIG: return "invalid configuration";
  case MP_ERR_UNSUPPORTED: return "unsupported";
  case MP_ERR_NOFIT: return "does not fit";
  case MP_ERR_VERIFY: return "plan verification failed";
  case MP_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}
