/*
 * output.c — a module folder written all at once, or not at all.
 *
 * The one idea: write everything somewhere invisible first, then move it
 * into place with rename(2), which either happens or does not.  Files of
 * the module are written into a hidden staging folder beside the module
 * folder (on the same file system, so renames work); a file outside it
 * (the HTML report) is written to a temporary file beside its destination.
 * Only when every byte is on disk does mp_out_commit move them:
 *   - a module folder that does not exist yet is the staging folder,
 *     renamed: one atomic step;
 *   - into an existing folder, each file moves on its own, the file it
 *     replaces set aside first, so that a failed move puts every earlier
 *     one back.  What could make a move fail (a folder where a file goes,
 *     a file where a folder goes) is checked before the first move.
 * Each commit leaves a manifest of the files it wrote.  The next commit
 * into the same folder removes the listed files it does not write again
 * (a changed prefix, a switched allocate_arenas), and the folders that
 * leaves empty: never a file memplan did not write.
 *
 * What this does not do: survive a power cut between two renames of an
 * existing folder (the folder then holds a mix, never a partial file), or
 * lock against two memplans writing one folder at once.
 */
#include "emit/output.h"

#include "util/diag.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct staged {
  char *rel;              /* inside the module folder */
  bool backed_up;         /* commit: the file it replaced is in <stage>/.old */
  bool moved;             /* commit: it is in place */
} staged;

typedef struct extra {
  char *path;             /* destination */
  char *tmp;              /* written beside it; NULL once renamed */
} extra;

struct mp_out {
  mp_pool *pool;
  const mp_diag_sink *dx;
  char *dir;              /* the module folder, without trailing '/' */
  char *stage;            /* the staging folder, NULL once gone */
  char **created;         /* folders begin/commit created, in creation order */
  uint32_t n_created, cap_created;
  staged *files;
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

static bool remember_created(mp_out *o, const char *path) {
  char *p = mp_pool_strdup(o->pool, path);
  if (!p || !grow(o, (void **)&o->created, o->n_created, &o->cap_created, sizeof(char *)))
    return false;
  o->created[o->n_created++] = p;
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
 * each that is missing; with `record`, remember them for undoing. */
static mp_status make_parents(mp_out *o, const char *path, bool record) {
  char *p = mp_pool_strdup(o->pool, path);
  if (!p) return nomem(o);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    struct stat st;
    if (stat(p, &st) != 0) {
      int err = mkdir(p, 0777) == 0 ? 0 : errno;
      /* EEXIST with a folder there: another process made it meanwhile (two
       * converts into sibling folders); fine, and not ours to remove */
      if (err == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
        *s = '/';
        continue;
      }
      if (err != 0) {
        mp_error(o->dx, (mp_loc){p, 0, 0, -1, NULL, NULL}, "cannot create folder: %s",
                 strerror(err));
        o->failed = true;
        return MP_ERR_IO;
      }
      if (record && !remember_created(o, p)) return nomem(o);
    } else if (!S_ISDIR(st.st_mode)) {
      mp_error(o->dx, (mp_loc){p, 0, 0, -1, NULL, NULL}, "not a folder");
      o->failed = true;
      return MP_ERR_IO;
    }
    *s = '/';
  }
  return MP_OK;
}

static bool write_bytes(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return (fclose(f) == 0) && ok;
}

/* Remove a folder memplan created, with everything in it. */
static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  DIR *d = opendir(path);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
      size_t n = strlen(path) + strlen(de->d_name) + 2;
      char *sub = malloc(n);
      if (!sub) break;
      snprintf(sub, n, "%s/%s", path, de->d_name);
      remove_tree(sub);
      free(sub);
    }
    closedir(d);
  }
  rmdir(path);
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
  size_t n = dir ? strlen(dir) : 0;
  while (n > 1 && dir[n - 1] == '/') n--;
  o->dir = n ? mp_pool_strndup(pool, dir, n) : NULL;
  if (!o->dir) {
    mp_pool_free(&pool);
    return MP_ERR_NOMEM;
  }
  *out = o;
  /* the staging folder: ".<name>.memplan-XXXXXX" beside the module folder */
  const char *slash = strrchr(o->dir, '/');
  const char *name = slash ? slash + 1 : o->dir;
  int plen = slash ? (int)(slash - o->dir) : 0;
  o->stage = slash ? mp_pool_printf(pool, "%.*s/.%s.memplan-XXXXXX", plen ? plen : 1,
                                    plen ? o->dir : "/", name)
                   : mp_pool_printf(pool, ".%s.memplan-XXXXXX", name);
  if (!o->stage) return nomem(o);
  mp_status st = make_parents(o, o->dir, true);
  if (st != MP_OK) return st;
  if (!mkdtemp(o->stage)) {
    char *s = o->stage;
    o->stage = NULL;
    mp_error(dx, (mp_loc){o->dir, 0, 0, -1, NULL, NULL},
             "cannot create a staging folder beside it (%s): %s", s, strerror(errno));
    o->failed = true;
    return MP_ERR_IO;
  }
  /* mkdtemp makes it private; it may become the module folder itself */
  mode_t mask = umask(0);
  umask(mask);
  chmod(o->stage, 0777 & ~mask);
  return MP_OK;
}

mp_status mp_out_add(mp_out *o, const char *rel, const void *data, size_t size) {
  if (o->failed) return MP_ERR_IO;
  if (!safe_rel(rel) || !strcmp(rel, MP_OUT_MANIFEST)) {
    mp_error(o->dx, MP_LOC_NONE, "internal: '%s' is no file name inside a module", rel);
    o->failed = true;
    return MP_ERR_INTERNAL;
  }
  char *path = mp_pool_printf(o->pool, "%s/%s", o->stage, rel);
  char *copy = mp_pool_strdup(o->pool, rel);
  if (!path || !copy || !grow(o, (void **)&o->files, o->n_files, &o->cap_files, sizeof(staged)))
    return nomem(o);
  mp_status st = make_parents(o, path, false);
  if (st != MP_OK) return st;
  if (!write_bytes(path, data, size)) {
    char *dest = mp_pool_printf(o->pool, "%s/%s", o->dir, rel);
    mp_error(o->dx, (mp_loc){dest ? dest : rel, 0, 0, -1, NULL, NULL}, "cannot write: %s",
             strerror(errno));
    o->failed = true;
    return MP_ERR_IO;
  }
  o->files[o->n_files++] = (staged){copy, false, false};
  return MP_OK;
}

mp_status mp_out_add_extra(mp_out *o, const char *path, const void *data, size_t size) {
  if (o->failed) return MP_ERR_IO;
  char *dest = mp_pool_strdup(o->pool, path);
  char *tmp = mp_pool_printf(o->pool, "%s.memplan-%ld", path, (long)getpid());
  if (!dest || !tmp || !grow(o, (void **)&o->extras, o->n_extras, &o->cap_extras, sizeof(extra)))
    return nomem(o);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return io_error(o, path, "cannot write: it is a folder");
  if (!write_bytes(tmp, data, size)) {
    int e = errno;
    unlink(tmp);
    mp_error(o->dx, (mp_loc){path, 0, 0, -1, NULL, NULL}, "cannot write: %s", strerror(e));
    o->failed = true;
    return MP_ERR_IO;
  }
  o->extras[o->n_extras++] = (extra){dest, tmp};
  return MP_OK;
}

/* ---- commit ---------------------------------------------------------------- */

/* The previous manifest's entries (safe ones only), or none. */
static char **read_manifest(mp_out *o, uint32_t *n) {
  *n = 0;
  char *path = mp_pool_printf(o->pool, "%s/%s", o->dir, MP_OUT_MANIFEST);
  struct stat st;
  if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 24))
    return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t size = (size_t)st.st_size;
  char *text = mp_pool_alloc(o->pool, size + 1, 1);
  size_t got = text ? fread(text, 1, size, f) : 0;
  fclose(f);
  if (!text) return NULL;
  text[got] = '\0';
  uint32_t lines = 1;
  for (size_t i = 0; i < got; i++) lines += text[i] == '\n';
  char **list = mp_pool_alloc(o->pool, lines, sizeof(char *));
  if (!list) return NULL;
  for (char *s = text; s && *s;) {
    char *e = strchr(s, '\n');
    if (e) *e = '\0';
    if (s[0] != '#' && safe_rel(s) && strcmp(s, MP_OUT_MANIFEST)) list[(*n)++] = s;
    s = e ? e + 1 : NULL;
  }
  return list;
}

/* Everything that would make a move fail, checked before the first. */
static mp_status preflight(mp_out *o) {
  for (uint32_t i = 0; i < o->n_extras; i++) {
    struct stat st;
    if (stat(o->extras[i].path, &st) == 0 && S_ISDIR(st.st_mode))
      return io_error(o, o->extras[i].path, "cannot write: it is a folder");
  }
  for (uint32_t i = 0; i < o->n_files; i++) {
    char *dest = mp_pool_printf(o->pool, "%s/%s", o->dir, o->files[i].rel);
    if (!dest) return nomem(o);
    size_t base = strlen(o->dir) + 1;
    for (char *s = dest + base; *s; s++) {
      if (*s != '/') continue;
      *s = '\0';
      struct stat st;
      bool bad = lstat(dest, &st) == 0 && !S_ISDIR(st.st_mode);
      if (bad) {
        char *msg = mp_pool_printf(o->pool, "cannot write %s/%s: this is not a folder", o->dir,
                                   o->files[i].rel);
        return io_error(o, dest, msg ? msg : "not a folder");
      }
      *s = '/';
    }
    struct stat st;
    if (lstat(dest, &st) == 0 && S_ISDIR(st.st_mode))
      return io_error(o, dest, "cannot write: a folder is in the way");
  }
  return MP_OK;
}

/* Put back every move made so far, newest first. */
static void undo_moves(mp_out *o) {
  for (uint32_t k = o->n_files; k-- > 0;) {
    staged *f = &o->files[k];
    char *dest = mp_pool_printf(o->pool, "%s/%s", o->dir, f->rel);
    char *old = mp_pool_printf(o->pool, "%s/.old/%s", o->stage, f->rel);
    if (!dest || !old) continue;
    if (f->moved) unlink(dest);
    if (f->backed_up) rename(old, dest);
    f->moved = f->backed_up = false;
  }
  for (uint32_t k = o->n_created; k-- > 0;) rmdir(o->created[k]);
  o->n_created = 0;
}

static mp_status move_file(mp_out *o, staged *f) {
  char *dest = mp_pool_printf(o->pool, "%s/%s", o->dir, f->rel);
  char *src = mp_pool_printf(o->pool, "%s/%s", o->stage, f->rel);
  char *old = mp_pool_printf(o->pool, "%s/.old/%s", o->stage, f->rel);
  if (!dest || !src || !old) return nomem(o);
  mp_status st = make_parents(o, dest, true);
  if (st != MP_OK) return st;
  struct stat sb;
  if (lstat(dest, &sb) == 0) {
    if ((st = make_parents(o, old, false)) != MP_OK) return st;
    if (rename(dest, old) != 0) return io_error(o, dest, "cannot replace the previous file");
    f->backed_up = true;
  }
  if (rename(src, dest) != 0) {
    mp_error(o->dx, (mp_loc){dest, 0, 0, -1, NULL, NULL}, "cannot write: %s", strerror(errno));
    o->failed = true;
    return MP_ERR_IO;
  }
  f->moved = true;
  return MP_OK;
}

/* Remove a file the previous commit wrote and this one does not, and the
 * folders inside the module folder that leaves empty. */
static void remove_stale(mp_out *o, const char *rel) {
  for (uint32_t i = 0; i < o->n_files; i++)
    if (!strcmp(o->files[i].rel, rel)) return;
  char *path = mp_pool_printf(o->pool, "%s/%s", o->dir, rel);
  struct stat st;
  if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
  unlink(path);
  size_t base = strlen(o->dir);
  for (char *s = strrchr(path, '/'); s && (size_t)(s - path) > base; s = strrchr(path, '/')) {
    *s = '\0';
    if (rmdir(path) != 0) break;
  }
}

static mp_buf manifest_text(const mp_out *o) {
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_puts(&b, "# Written by memplan convert: the files of this module.  The next convert\n"
                  "# into this folder removes those it does not write again.\n");
  for (uint32_t i = 0; i < o->n_files; i++) mp_buf_printf(&b, "%s\n", o->files[i].rel);
  return b;
}

/* The first half of a commit: the manifest staged, the destinations
 * checked.  Nothing visible changes. */
static mp_status commit_prepare(mp_out *o) {
  if (o->failed || !o->stage) return MP_ERR_IO;
  /* the manifest is staged last, so it moves last */
  mp_buf m = manifest_text(o);
  if (m.failed) {
    mp_buf_free(&m);
    return nomem(o);
  }
  char *mpath = mp_pool_printf(o->pool, "%s/%s", o->stage, MP_OUT_MANIFEST);
  char *mrel = mp_pool_strdup(o->pool, MP_OUT_MANIFEST);
  bool ok = mpath && mrel && write_bytes(mpath, mp_buf_str(&m), m.len) &&
            grow(o, (void **)&o->files, o->n_files, &o->cap_files, sizeof(staged));
  mp_buf_free(&m);
  if (!ok) return io_error(o, o->dir, "cannot write the manifest");
  o->files[o->n_files++] = (staged){mrel, false, false};

  struct stat st;
  if (stat(o->dir, &st) == 0 && !S_ISDIR(st.st_mode))
    return io_error(o, o->dir, "module.path is not a folder");
  return preflight(o);
}

/* The second half: every staged file moved into place, the stale files of
 * the previous manifest removed. */
static mp_status commit_move(mp_out *o) {
  struct stat st;
  bool exists = stat(o->dir, &st) == 0;
  mp_status rc = MP_OK;
  uint32_t n_old = 0;
  char **old = exists ? read_manifest(o, &n_old) : NULL;

  if (!exists) {
    if (rename(o->stage, o->dir) != 0) return io_error(o, o->dir, "cannot move the module into place");
    o->stage = NULL;
    for (uint32_t i = 0; i < o->n_files; i++) o->files[i].moved = true;
  } else {
    for (uint32_t i = 0; i < o->n_files && rc == MP_OK; i++) rc = move_file(o, &o->files[i]);
    if (rc != MP_OK) {
      undo_moves(o);
      return rc;
    }
  }
  for (uint32_t i = 0; i < o->n_extras; i++) {
    if (rename(o->extras[i].tmp, o->extras[i].path) != 0) {
      mp_error(o->dx, (mp_loc){o->extras[i].path, 0, 0, -1, NULL, NULL}, "cannot write: %s",
               strerror(errno));
      o->failed = true;
      if (!o->stage) { /* the module was the staging folder: take it back */
        remove_tree(o->dir);
      } else {
        undo_moves(o);
      }
      for (uint32_t k = 0; k < i; k++) unlink(o->extras[k].path);
      return MP_ERR_IO;
    }
    o->extras[i].tmp = NULL;
  }
  for (uint32_t i = 0; i < n_old; i++) remove_stale(o, old[i]);
  if (o->stage) remove_tree(o->stage);
  o->stage = NULL;
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
  if (o->stage) remove_tree(o->stage);
  for (uint32_t i = 0; i < o->n_extras; i++)
    if (o->extras[i].tmp) unlink(o->extras[i].tmp);
  if (!o->committed)
    for (uint32_t k = o->n_created; k-- > 0;) rmdir(o->created[k]);
  mp_pool *pool = o->pool;
  mp_pool_free(&pool);
  *po = NULL;
}
