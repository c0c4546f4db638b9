/*
 * file.c — whole-file reads and atomic writes (util/file.h).  A read refuses
 * anything but a regular file before reading a byte; a write goes to a
 * temporary file renamed over the target, so a failure never leaves a
 * partial file behind.
 */
#include "util/file.h"

#include "util/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

mp_status mp_read_file(const char *path, uint8_t **data, size_t *size,
                       const mp_diag_sink *dx) {
  *data = NULL;
  *size = 0;
  /* O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer;
   * anything but a regular file is refused before a byte is read. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot open: %s", strerror(errno));
    return MP_ERR_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "not a regular file");
    close(fd);
    return MP_ERR_IO;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot open: %s", strerror(errno));
    close(fd);
    return MP_ERR_IO;
  }
  size_t cap = st.st_size > 0 ? (size_t)st.st_size : 0;
  uint8_t *buf = malloc(cap ? cap : 1);
  if (!buf) {
    fclose(f);
    return MP_ERR_NOMEM;
  }
  size_t n = fread(buf, 1, cap, f);
  bool err = ferror(f);
  fclose(f);
  if (err || n != cap) {
    free(buf);
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "read error");
    return MP_ERR_IO;
  }
  *data = buf;
  *size = n;
  return MP_OK;
}

mp_status mp_write_file(const char *path, const void *data, size_t size,
                        const mp_diag_sink *dx) {
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 16);
  if (!tmp) return MP_ERR_NOMEM;
  snprintf(tmp, pl + 16, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot write: %s", strerror(errno));
    free(tmp);
    return MP_ERR_IO;
  }
  bool ok = fwrite(data, 1, size, f) == size;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot write: %s", strerror(errno));
    remove(tmp);
    free(tmp);
    return MP_ERR_IO;
  }
  free(tmp);
  return MP_OK;
}

mp_status mp_make_dirs(const char *path, const mp_diag_sink *dx) {
  size_t n = strlen(path);
  char *p = malloc(n + 1);
  if (!p) return MP_ERR_NOMEM;
  memcpy(p, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] == '/' || p[i] == '\0') {
      char c = p[i];
      p[i] = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot create directory: %s",
                 strerror(errno));
        free(p);
        return MP_ERR_IO;
      }
      p[i] = c;
    }
  }
  struct stat st;
  bool ok = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  free(p);
  if (!ok) {
    mp_error(dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "not a directory");
    return MP_ERR_IO;
  }
  return MP_OK;
}
