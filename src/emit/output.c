/*
 * output.c — a module folder replaced all at once, or not at all.
 *
 * The one idea: build the complete new folder beside the old one, then
 * swap the two with one rename(2) that exchanges them (renameat2
 * RENAME_EXCHANGE), and remove the old one after.  Whatever stops a
 * convert, and whenever, the module folder is the complete previous module
 * or the complete new one:
 *   - every file of the module is written into a hidden staging folder
 *     ".<name>.memplan-XXXXXX" beside the module folder (same file system);
 *   - the files in the module folder that memplan did not write (those its
 *     manifest does not list: your notes, your main.c) are carried into the
 *     staging folder as hard links (symbolic links as links, never
 *     followed); one that takes a name the module needs stops the convert
 *     before anything changes, unless forced;
 *   - the swap; the staging name then holds the old folder, which is
 *     removed.  A file system without the exchange gets two renames, and a
 *     convert stopped between them is undone by the next one.
 * A lock file ".<name>.memplan-lock" beside the folder (flock) lets one
 * convert at a time write it; the next waits.  Holding the lock, a convert
 * removes the staging folders an interrupted one left, and says so.  SIGINT
 * and SIGTERM remove the staging folders (mp_emit_interrupted).  The HTML
 * report is written to a temporary file beside it and renamed after the
 * swap.
 *
 * What this does not do: make two module folders change as one (several
 * models: each folder is swapped on its own), or survive a power cut
 * without the file system's own journal.
 */
#include "emit/output.h"

#include "util/diag.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the filesystem steps, and a test hook to stop after any of them ----- */

/* MEMPLAN_TEST_KILL_AFTER=k: the process sends itself SIGKILL (or the
 * signal MEMPLAN_TEST_KILL_SIGNAL names by number) right after its k-th
 * step that changes the file system, so that a test can stop a convert at
 * every point. */
static long steps_done, steps_limit = -2;
static int steps_signal = SIGKILL;

static void step(void) {
  if (steps_limit == -2) {
    const char *s = getenv("MEMPLAN_TEST_KILL_AFTER");
    const char *g = getenv("MEMPLAN_TEST_KILL_SIGNAL");
    steps_limit = s && *s ? strtol(s, NULL, 10) : -1;
    if (g && *g) steps_signal = (int)strtol(g, NULL, 10);
  }
  if (++steps_done == steps_limit) kill(getpid(), steps_signal);
}

/* ---- removal without following links, safe in a signal handler ----------- */

struct ld64 { /* a getdents64 record */
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

/* Remove `name` in folder `dirfd` with everything in it: links are
 * removed, never followed.  Only system calls. */
static void remove_at(int dirfd, const char *name, int depth, bool count) {
  if (unlinkat(dirfd, name, 0) == 0) {
    if (count) step();
    return;
  }
  if (errno != EISDIR && errno != EPERM) return;
  if (depth > 64) return;
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    char buf[2048] __attribute__((aligned(8)));
    for (int pass = 0; pass < 4; pass++) {
      bool any = false;
      lseek(fd, 0, SEEK_SET);
      long n;
      while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
          struct ld64 *d = (struct ld64 *)(void *)(buf + off);
          off += d->reclen;
          if (!strcmp(d->name, ".") || !strcmp(d->name, "..")) continue;
          remove_at(fd, d->name, depth + 1, count);
          any = true;
        }
      if (!any) break;
    }
    close(fd);
  }
  if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 && count) step();
}

static void remove_tree(const char *path) { remove_at(AT_FDCWD, path, 0, true); }

/* ---- what a signal must clean up ------------------------------------------ */

#define LIVE_MAX 64
#define LIVE_PATH 4096
/* staging folders and temporary files in progress, and the folder a
 * two-rename swap set aside (restore[0] back to restore[1]) */
static char live[LIVE_MAX][LIVE_PATH];
static char restore[2][LIVE_PATH];
static volatile sig_atomic_t restoring;

static void live_add(const char *path) {
  if (strlen(path) >= LIVE_PATH) return;
  for (int i = 0; i < LIVE_MAX; i++)
    if (!live[i][0]) {
      memcpy(live[i] + 1, path + 1, strlen(path)); /* the first byte last: */
      live[i][0] = path[0];                         /* never seen half-written */
      return;
    }
}

static void live_drop(const char *path) {
  for (int i = 0; i < LIVE_MAX; i++)
    if (live[i][0] && !strcmp(live[i], path)) live[i][0] = '\0';
}

void mp_emit_interrupted(void) {
  if (restoring) rename(restore[0], restore[1]);
  for (int i = 0; i < LIVE_MAX; i++)
    if (live[i][0]) remove_at(AT_FDCWD, live[i], 0, false);
}

/* ---- the writer ------------------------------------------------------------ */

typedef struct extra {
  char *path;             /* destination */
  char *tmp;              /* written beside it; NULL once renamed */
} extra;

struct mp_out {
  mp_pool *pool;
  const mp_diag_sink *dx;
  char *dir;              /* the module folder, without trailing '/' */
  char *parent;           /* its folder ("." when it has none) */
  char *name;             /* its last component */
  char *stage;            /* the staging folder, NULL once gone */
  char *lock;             /* the lock file */
  int lock_fd;
  bool force;             /* replace files memplan did not write */
  char **created;         /* folders begin created, in creation order */
  uint32_t n_created, cap_created;
  char **files;           /* staged, relative to the module folder */
  uint32_t n_files, cap_files;
  extra *extras;
  uint32_t n_extras, cap_extras;
  bool failed;
  bool committed;
};

static mp_status io_error(mp_out *o, const char *path, const char *what) {
  mp_error(o->dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "%s", what);
  o->failed = true;
  return MP_ERR_IO;
}

static mp_status errno_error(mp_out *o, const char *path, const char *what) {
  int e = errno;
  mp_error(o->dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "%s: %s", what, strerror(e));
  o->failed = true;
  return MP_ERR_IO;
}

static mp_status nomem(mp_out *o) {
  o->failed = true;
  return MP_ERR_NOMEM;
}

/* Grow *arr (of *cap elements of `size` bytes) to hold n + 1. */
static bool grow(mp_out *o, void **arr, uint32_t n, uint32_t *cap, size_t size) {
  if (n < *cap) return true;
  uint32_t nc = *cap ? *cap * 2 : 16;
  void *na = mp_pool_alloc(o->pool, nc, size);
  if (!na) return false;
  if (n) memcpy(na, *arr, (size_t)n * size);
  *arr = na;
  *cap = nc;
  return true;
}

/* A relative path that stays inside its folder: no leading '/', no empty,
 * "." or ".." component. */
static bool safe_rel(const char *rel) {
  if (!rel || !*rel || rel[0] == '/') return false;
  const char *s = rel;
  while (*s) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return false;
    s += n;
    if (*s == '/') {
      s++;
      if (!*s) return false;
    }
  }
  return true;
}

/* Create the folders of `path` up to (not including) its last component,
 * each that is missing; with `record` (the module folder's own parents),
 * remember them for undoing. Without it, `path` lies in the staging folder,
 * whose parents were checked when it was made: only the folders inside the
 * staging folder are looked at, so a link on the way to the module folder
 * (the user's choice) stays fine. */
static mp_status make_parents(mp_out *o, const char *path, bool record) {
  char *p = mp_pool_strdup(o->pool, path);
  if (!p) return nomem(o);
  size_t from = 1;
  if (!record) {
    size_t n = strlen(o->stage);
    if (strncmp(p, o->stage, n) != 0 || p[n] != '/') {
      mp_error(o->dx, MP_LOC_NONE, "internal: '%s' is not inside the staging folder", path);
      o->failed = true;
      return MP_ERR_INTERNAL;
    }
    from = n;
  }
  for (char *s = p + from; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    struct stat st;
    if (lstat(p, &st) != 0) {
      int err = mkdir(p, 0777) == 0 ? 0 : errno;
      /* EEXIST with a folder there: another process made it meanwhile (two
       * converts into sibling folders); fine, and not ours to remove */
      if (err == EEXIST && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
        *s = '/';
        continue;
      }
      if (err != 0) {
        errno = err;
        return errno_error(o, p, "cannot create folder");
      }
      step();
      if (record) {
        char *c = mp_pool_strdup(o->pool, p);
        if (!c || !grow(o, (void **)&o->created, o->n_created, &o->cap_created, sizeof(char *)))
          return nomem(o);
        o->created[o->n_created++] = c;
      }
    } else if (!S_ISDIR(st.st_mode)) {
      /* a link to a folder is fine on the way to the module folder (the
       * user's choice), never inside it */
      struct stat t;
      if (!(record && S_ISLNK(st.st_mode) && stat(p, &t) == 0 && S_ISDIR(t.st_mode)))
        return io_error(o, p, "not a folder");
    }
    *s = '/';
  }
  return MP_OK;
}

static bool write_bytes(const char *path, const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  step();
  const char *p = data;
  size_t left = size;
  while (left > 0) {
    ssize_t k = write(fd, p, left);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = errno;
      close(fd);
      errno = e ? e : ENOSPC;
      return false;
    }
    p += k;
    left -= (size_t)k;
  }
  return close(fd) == 0;
}

/* The staging folders and swap leftovers of interrupted converts into this
 * folder: removed (or, for a folder set aside by a two-rename swap that
 * did not finish, put back), each with a note. */
static void remove_stale(mp_out *o) {
  DIR *d = opendir(o->parent);
  if (!d) return;
  char *pfx = mp_pool_printf(o->pool, ".%s.memplan-", o->name);
  size_t pl = pfx ? strlen(pfx) : 0;
  struct dirent *de;
  char **found = NULL;
  uint32_t n = 0, cap = 0;
  while (pfx && (de = readdir(d)) != NULL) {
    if (strncmp(de->d_name, pfx, pl) || !strcmp(de->d_name + pl, "lock")) continue;
    char *p = mp_pool_printf(o->pool, "%s/%s", o->parent, de->d_name);
    if (!p || !grow(o, (void **)&found, n, &cap, sizeof(char *))) break;
    found[n++] = p;
  }
  closedir(d);
  for (uint32_t i = 0; i < n; i++) {
    struct stat st;
    bool set_aside = !strcmp(found[i] + strlen(found[i]) - 3, "old");
    if (set_aside && lstat(o->dir, &st) != 0 && rename(found[i], o->dir) == 0) {
      step();
      mp_warning(o->dx, (mp_loc){o->dir, 0, 0, -1, NULL, NULL},
                 "put back the module folder an interrupted convert had set aside as %s",
                 found[i]);
      continue;
    }
    remove_tree(found[i]);
    mp_warning(o->dx, (mp_loc){o->dir, 0, 0, -1, NULL, NULL},
               "removed %s, left by an interrupted convert", found[i]);
  }
}

static mp_status take_lock(mp_out *o) {
  o->lock_fd = open(o->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (o->lock_fd < 0) return errno_error(o, o->lock, "cannot open the lock file");
  if (flock(o->lock_fd, LOCK_EX | LOCK_NB) == 0) return MP_OK;
  if (errno != EWOULDBLOCK) return errno_error(o, o->lock, "cannot lock");
  mp_note(o->dx, (mp_loc){o->dir, 0, 0, -1, NULL, NULL},
          "another memplan is writing this module folder; waiting for it to finish");
  while (flock(o->lock_fd, LOCK_EX) != 0)
    if (errno != EINTR) return errno_error(o, o->lock, "cannot lock");
  return MP_OK;
}

mp_status mp_out_begin(const char *dir, const mp_diag_sink *dx, mp_out **out) {
  *out = NULL;
  mp_pool *pool = mp_pool_new();
  mp_out *o = pool ? mp_pool_alloc(pool, 1, sizeof *o) : NULL;
  if (!o) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  o->pool = pool;
  o->dx = dx;
  o->lock_fd = -1;
  size_t n = dir ? strlen(dir) : 0;
  while (n > 1 && dir[n - 1] == '/') n--;
  o->dir = n ? mp_pool_strndup(pool, dir, n) : NULL;
  if (!o->dir) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  *out = o;
  const char *slash = strrchr(o->dir, '/');
  o->name = mp_pool_strdup(pool, slash ? slash + 1 : o->dir);
  o->parent = slash ? mp_pool_strndup(pool, slash == o->dir ? "/" : o->dir,
                                      slash == o->dir ? 1 : (size_t)(slash - o->dir))
                    : mp_pool_strdup(pool, ".");
  if (!o->name || !o->parent) return nomem(o);
  if (!*o->name || !strcmp(o->name, ".") || !strcmp(o->name, ".."))
    return io_error(o, o->dir, "module.path must name a folder, not '.' or '..'");
  o->stage = mp_pool_printf(pool, "%s/.%s.memplan-XXXXXX", o->parent, o->name);
  o->lock = mp_pool_printf(pool, "%s/.%s.memplan-lock", o->parent, o->name);
  if (!o->stage || !o->lock) return nomem(o);
  mp_status st = make_parents(o, o->dir, true);
  if (st == MP_OK) st = take_lock(o);
  if (st != MP_OK) {
    o->stage = NULL;
    return st;
  }
  struct stat sb;
  if (lstat(o->dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
    o->stage = NULL;
    return io_error(o, o->dir, S_ISLNK(sb.st_mode)
                                   ? "module.path is a symbolic link: give the folder it names"
                                   : "module.path is not a folder");
  }
  remove_stale(o);
  if (!mkdtemp(o->stage)) {
    char *s = o->stage;
    o->stage = NULL;
    mp_error(dx, (mp_loc){o->dir, 0, 0, -1, NULL, NULL},
             "cannot create a staging folder beside it (%s): %s", s, strerror(errno));
    o->failed = true;
    return MP_ERR_IO;
  }
  live_add(o->stage);
  step();
  /* mkdtemp makes it private; it becomes the module folder itself */
  mode_t mask = umask(0);
  umask(mask);
  chmod(o->stage, 0777 & ~mask);
  return MP_OK;
}

void mp_out_force(mp_out *o, bool force) {
  if (o) o->force = force;
}

mp_status mp_out_add(mp_out *o, const char *rel, const void *data, size_t size) {
  if (o->failed || !o->stage) return MP_ERR_IO;
  if (!safe_rel(rel) || !strcmp(rel, MP_OUT_MANIFEST)) {
    mp_error(o->dx, MP_LOC_NONE, "internal: '%s' is no file name inside a module", rel);
    o->failed = true;
    return MP_ERR_INTERNAL;
  }
  char *path = mp_pool_printf(o->pool, "%s/%s", o->stage, rel);
  char *copy = mp_pool_strdup(o->pool, rel);
  if (!path || !copy || !grow(o, (void **)&o->files, o->n_files, &o->cap_files, sizeof(char *)))
    return nomem(o);
  mp_status st = make_parents(o, path, false);
  if (st != MP_OK) return st;
  if (!write_bytes(path, data, size)) {
    char *dest = mp_pool_printf(o->pool, "%s/%s", o->dir, rel);
    return errno_error(o, dest ? dest : rel, "cannot write");
  }
  o->files[o->n_files++] = copy;
  return MP_OK;
}

/* Remove the temporary files of reports an interrupted convert left beside
 * `path` (<path>.memplan-<pid> of a process that is gone). */
static void remove_stale_extras(mp_out *o, const char *path) {
  const char *slash = strrchr(path, '/');
  char *folder = slash ? mp_pool_strndup(o->pool, path, slash == path ? 1 : (size_t)(slash - path))
                       : mp_pool_strdup(o->pool, ".");
  char *pfx = mp_pool_printf(o->pool, "%s.memplan-", slash ? slash + 1 : path);
  DIR *d = folder && pfx ? opendir(folder) : NULL;
  if (!d) return;
  size_t pl = strlen(pfx);
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (strncmp(de->d_name, pfx, pl)) continue;
    char *end;
    long pid = strtol(de->d_name + pl, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char *p = mp_pool_printf(o->pool, "%s/%s", folder, de->d_name);
    if (p && unlink(p) == 0) {
      step();
      mp_warning(o->dx, (mp_loc){path, 0, 0, -1, NULL, NULL},
                 "removed %s, left by an interrupted convert", p);
    }
  }
  closedir(d);
}

mp_status mp_out_add_extra(mp_out *o, const char *path, const void *data, size_t size) {
  if (o->failed) return MP_ERR_IO;
  char *dest = mp_pool_strdup(o->pool, path);
  char *tmp = mp_pool_printf(o->pool, "%s.memplan-%ld", path, (long)getpid());
  if (!dest || !tmp || !grow(o, (void **)&o->extras, o->n_extras, &o->cap_extras, sizeof(extra)))
    return nomem(o);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return io_error(o, path, "cannot write: it is a folder");
  remove_stale_extras(o, path);
  unlink(tmp);
  live_add(tmp);
  if (!write_bytes(tmp, data, size)) {
    int e = errno;
    unlink(tmp);
    live_drop(tmp);
    errno = e;
    return errno_error(o, path, "cannot write");
  }
  o->extras[o->n_extras++] = (extra){dest, tmp};
  return MP_OK;
}

/* ---- commit ---------------------------------------------------------------- */

/* The previous manifest's entries, or none. */
static char **read_manifest(mp_out *o, uint32_t *n) {
  *n = 0;
  char *path = mp_pool_printf(o->pool, "%s/%s", o->dir, MP_OUT_MANIFEST);
  struct stat st;
  if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 24))
    return NULL;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t size = (size_t)st.st_size;
  char *text = mp_pool_alloc(o->pool, size + 1, 1);
  ssize_t got = text ? read(fd, text, size) : -1;
  close(fd);
  if (!text || got < 0) return NULL;
  text[got] = '\0';
  uint32_t lines = 1;
  for (ssize_t i = 0; i < got; i++) lines += text[i] == '\n';
  char **list = mp_pool_alloc(o->pool, lines, sizeof(char *));
  if (!list) return NULL;
  for (char *s = text; s && *s;) {
    char *e = strchr(s, '\n');
    if (e) *e = '\0';
    if (s[0] != '#' && safe_rel(s)) list[(*n)++] = s;
    s = e ? e + 1 : NULL;
  }
  return list;
}

static bool listed(char *const *list, uint32_t n, const char *rel) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(list[i], rel)) return true;
  return false;
}

/* Whether the module needs `rel` as a file (exactly) or as a folder (a
 * staged file lies below it). */
static bool needed(const mp_out *o, const char *rel, bool *as_folder) {
  size_t n = strlen(rel);
  *as_folder = false;
  for (uint32_t i = 0; i < o->n_files; i++) {
    if (!strcmp(o->files[i], rel)) return true;
    if (!strncmp(o->files[i], rel, n) && o->files[i][n] == '/') *as_folder = true;
  }
  return *as_folder;
}

/* Copy a regular file's bytes (when it cannot be linked). */
static bool copy_file(const char *from, const char *to, mode_t mode) {
  int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0) return false;
  int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 07777);
  bool ok = out >= 0;
  char buf[65536];
  ssize_t k;
  while (ok && (k = read(in, buf, sizeof buf)) != 0) {
    if (k < 0) {
      ok = errno == EINTR;
      continue;
    }
    ok = write(out, buf, (size_t)k) == k;
  }
  close(in);
  if (out >= 0 && close(out) != 0) ok = false;
  return ok;
}

/* Carry what memplan did not write from the module folder's `rel` (""
 * for the folder itself) into the staging folder, without following a
 * link; a foreign entry where the module needs a name stops the commit
 * (or, forced, is left behind with the old folder). */
static mp_status carry(mp_out *o, char *const *mine, uint32_t n_mine, const char *rel, int depth,
                       uint32_t *seen) {
  char *from = *rel ? mp_pool_printf(o->pool, "%s/%s", o->dir, rel) : o->dir;
  if (!from) return nomem(o);
  if (depth > 64) return io_error(o, from, "folders nested too deep to keep");
  DIR *d = opendir(from);
  if (!d) return errno_error(o, from, "cannot read");
  mp_status st = MP_OK, conflict = MP_OK;
  struct dirent *de;
  while (st == MP_OK && (de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    (*seen)++;
    if (!*rel && !strcmp(de->d_name, MP_OUT_MANIFEST)) continue;
    char *r = *rel ? mp_pool_printf(o->pool, "%s/%s", rel, de->d_name)
                   : mp_pool_strdup(o->pool, de->d_name);
    char *src = r ? mp_pool_printf(o->pool, "%s/%s", o->dir, r) : NULL;
    char *dst = r ? mp_pool_printf(o->pool, "%s/%s", o->stage, r) : NULL;
    if (!src || !dst) {
      st = nomem(o);
      break;
    }
    struct stat sb;
    if (lstat(src, &sb) != 0) continue; /* gone meanwhile */
    bool as_folder;
    bool need = needed(o, r, &as_folder);
    if (S_ISDIR(sb.st_mode)) {
      if (need && !as_folder) {
        if (o->force) continue;
        conflict = io_error(o, src, "a folder memplan did not write is where the module needs "
                                    "a file (move it away, or give --force to replace it)");
        continue;
      }
      /* a folder is kept when something in it is, or when it was empty */
      uint32_t inside = 0;
      st = carry(o, mine, n_mine, r, depth + 1, &inside);
      struct stat tb;
      if (st == MP_OK && inside == 0 && lstat(dst, &tb) != 0) {
        if (make_parents(o, dst, false) != MP_OK || mkdir(dst, sb.st_mode & 07777) != 0) {
          st = errno_error(o, dst, "cannot create folder");
          break;
        }
        step();
      }
      continue;
    }
    if (listed(mine, n_mine, r)) continue; /* memplan's: the new module replaces it */
    if (need) { /* each such file is named, then the commit stops */
      if (o->force) continue;
      conflict = io_error(o, src, "memplan did not write this file (its manifest does not list "
                                  "it), and the module needs its name; move it away, or give "
                                  "--force to replace it");
      continue;
    }
    if (make_parents(o, dst, false) != MP_OK) {
      st = MP_ERR_IO;
      break;
    }
    bool ok;
    if (S_ISLNK(sb.st_mode)) {
      char target[4096];
      ssize_t k = readlink(src, target, sizeof target - 1);
      ok = k >= 0;
      if (ok) {
        target[k] = '\0';
        ok = symlink(target, dst) == 0;
      }
    } else if (S_ISREG(sb.st_mode)) {
      ok = link(src, dst) == 0 || copy_file(src, dst, sb.st_mode);
    } else {
      st = io_error(o, src, "cannot keep this file across the convert: it is not a file, "
                            "folder or link (move it away)");
      break;
    }
    if (!ok) {
      st = errno_error(o, src, "cannot keep this file across the convert");
      break;
    }
    step();
  }
  closedir(d);
  return st != MP_OK ? st : conflict;
}

static mp_buf manifest_text(const mp_out *o) {
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_puts(&b, "# Written by memplan convert: the files of this module.  The next convert\n"
                  "# into this folder replaces them and keeps every other file.\n");
  for (uint32_t i = 0; i < o->n_files; i++) mp_buf_printf(&b, "%s\n", o->files[i]);
  return b;
}

/* The first half of a commit: the manifest staged, the files memplan did
 * not write carried over, the report destinations checked.  Nothing
 * visible changes. */
static mp_status commit_prepare(mp_out *o) {
  if (o->failed || !o->stage) return MP_ERR_IO;
  mp_buf m = manifest_text(o);
  if (m.failed) {
    mp_buf_free(&m);
    return nomem(o);
  }
  char *mpath = mp_pool_printf(o->pool, "%s/%s", o->stage, MP_OUT_MANIFEST);
  bool ok = mpath && write_bytes(mpath, mp_buf_str(&m), m.len);
  mp_buf_free(&m);
  if (!ok) return errno_error(o, o->dir, "cannot write the manifest");
  for (uint32_t i = 0; i < o->n_extras; i++) {
    struct stat st;
    if (stat(o->extras[i].path, &st) == 0 && S_ISDIR(st.st_mode))
      return io_error(o, o->extras[i].path, "cannot write: it is a folder");
  }
  struct stat st;
  if (lstat(o->dir, &st) != 0) return MP_OK; /* a new folder: nothing to keep */
  if (!S_ISDIR(st.st_mode)) return io_error(o, o->dir, "module.path is not a folder");
  uint32_t n_mine = 0;
  char **mine = read_manifest(o, &n_mine);
  uint32_t seen = 0;
  return carry(o, mine, n_mine, "", 0, &seen);
}

/* Exchange two paths atomically; false (errno EINVAL or ENOSYS) where the
 * file system cannot. */
static bool exchange(const char *a, const char *b) {
#ifdef SYS_renameat2
  return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */) == 0;
#else
  (void)a, (void)b;
  errno = ENOSYS;
  return false;
#endif
}

/* Put the staging folder in the module folder's place; the old folder
 * ends up under the staging name (or is gone when there was none). */
static mp_status swap_in(mp_out *o, bool *had_old) {
  struct stat st;
  *had_old = lstat(o->dir, &st) == 0;
  if (!*had_old) {
    if (rename(o->stage, o->dir) != 0) return errno_error(o, o->dir, "cannot move the module into place");
    step();
    return MP_OK;
  }
  if (exchange(o->stage, o->dir)) {
    step();
    return MP_OK;
  }
  if (errno != EINVAL && errno != ENOSYS)
    return errno_error(o, o->dir, "cannot move the module into place");
  /* two renames; the next convert puts the old folder back if stopped between */
  char *old = mp_pool_printf(o->pool, "%s/.%s.memplan-old", o->parent, o->name);
  if (!old || strlen(old) >= LIVE_PATH || strlen(o->dir) >= LIVE_PATH) return nomem(o);
  memcpy(restore[0], old, strlen(old) + 1);
  memcpy(restore[1], o->dir, strlen(o->dir) + 1);
  if (rename(o->dir, old) != 0) return errno_error(o, o->dir, "cannot set the old module aside");
  restoring = 1;
  step();
  if (rename(o->stage, o->dir) != 0) {
    mp_status rc = errno_error(o, o->dir, "cannot move the module into place");
    if (rename(old, o->dir) == 0) restoring = 0;
    return rc;
  }
  restoring = 0;
  step();
  live_drop(o->stage);
  if (rename(old, o->stage) == 0) live_add(o->stage); /* removed like a swapped-out folder */
  else remove_tree(old);
  return MP_OK;
}

/* The second half: the swap, the reports, the old folder removed. */
static mp_status commit_move(mp_out *o) {
  bool had_old;
  mp_status rc = swap_in(o, &had_old);
  if (rc != MP_OK) return rc;
  char *stage = o->stage;
  if (!had_old) {
    live_drop(stage);
    o->stage = NULL;
  }
  for (uint32_t i = 0; i < o->n_extras; i++) {
    if (rename(o->extras[i].tmp, o->extras[i].path) != 0) {
      int e = errno;
      /* take the module back: the old folder, or none */
      if (had_old && exchange(stage, o->dir)) {
        step();
      } else if (!had_old) {
        remove_tree(o->dir);
      }
      for (uint32_t k = 0; k < i; k++) unlink(o->extras[k].path);
      errno = e;
      return errno_error(o, o->extras[i].path, "cannot write");
    }
    step();
    live_drop(o->extras[i].tmp);
    o->extras[i].tmp = NULL;
  }
  if (o->stage) {
    remove_tree(o->stage); /* the old module */
    live_drop(o->stage);
    o->stage = NULL;
  }
  o->committed = true;
  return MP_OK;
}

mp_status mp_out_commit(mp_out *o) {
  mp_status rc = commit_prepare(o);
  return rc == MP_OK ? commit_move(o) : rc;
}

mp_status mp_out_commit_all(mp_out *const *outs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    mp_status rc = commit_prepare(outs[i]);
    if (rc != MP_OK) return rc;
  }
  for (size_t i = 0; i < n; i++) {
    mp_status rc = commit_move(outs[i]);
    if (rc != MP_OK) {
      if (i > 0)
        mp_error(outs[i]->dx, (mp_loc){outs[i]->dir, 0, 0, -1, NULL, NULL},
                 "%zu of the %zu module folders were already moved into place and keep "
                 "their new files", i, n);
      return rc;
    }
  }
  return MP_OK;
}

void mp_out_free(mp_out **po) {
  if (!po || !*po) return;
  mp_out *o = *po;
  if (o->stage) {
    remove_tree(o->stage);
    live_drop(o->stage);
  }
  for (uint32_t i = 0; i < o->n_extras; i++)
    if (o->extras[i].tmp) {
      unlink(o->extras[i].tmp);
      live_drop(o->extras[i].tmp);
    }
  if (!o->committed && o->n_created > 0) {
    /* this convert made the module folder's parents: take them back, the
     * lock file with them */
    unlink(o->lock);
    for (uint32_t k = o->n_created; k-- > 0;) rmdir(o->created[k]);
  }
  if (o->lock_fd >= 0) close(o->lock_fd);
  mp_pool *pool = o->pool;
  mp_pool_free(&pool);
  *po = NULL;
}
