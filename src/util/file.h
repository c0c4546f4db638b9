/*
 * file.h — whole-file reads and atomic writes, reporting I/O errors to the
 * caller's diagnostics sink with the path.
 */
#ifndef MP_FILE_H
#define MP_FILE_H

#include "memplan.h"

/* Read a whole file into malloc'd memory (caller frees).  Reports I/O
 * errors to dx naming the path. */
mp_status mp_read_file(const char *path, uint8_t **data, size_t *size,
                       const mp_diag_sink *dx);

/* Write `size` bytes to `path` atomically (temporary file then rename), so a
 * failure never leaves a partial file behind. */
mp_status mp_write_file(const char *path, const void *data, size_t size,
                        const mp_diag_sink *dx);

/* mkdir -p */
mp_status mp_make_dirs(const char *path, const mp_diag_sink *dx);

#endif /* MP_FILE_H */
