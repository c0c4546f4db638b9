/*
 * output.h — writing a module folder all at once, or not at all (output.c).
 *
 * The emitter stages every file of a convert (the module, the residency
 * JSON, the HTML report) into an mp_out and commits them together.  Until
 * the commit nothing visible changes; a failure anywhere leaves the module
 * folder and the report path as they were.
 */
#ifndef MP_OUTPUT_H
#define MP_OUTPUT_H

#include "memplan.h"

/* Name of the manifest a commit leaves in the module folder: the files it
 * wrote, one relative path a line.  The next commit into the folder
 * removes those of them it does not write again, and nothing else. */
#define MP_OUT_MANIFEST ".memplan-manifest"

typedef struct mp_out mp_out;

/* Start staging the files of module folder `dir`.  Creates a hidden
 * staging folder beside `dir` (and `dir`'s missing parents, which a failed
 * write removes again).  MP_ERR_IO, reported to dx, when that fails. */
mp_status mp_out_begin(const char *dir, const mp_diag_sink *dx, mp_out **out);

/* Stage `size` bytes as `rel` inside the module folder ("src/kws_model.c";
 * no "..", not absolute).  The bytes are written to the staging folder
 * now.  Errors are sticky: later calls do nothing and commit fails. */
mp_status mp_out_add(mp_out *o, const char *rel, const void *data, size_t size);

/* Stage a file outside the module folder (the HTML report): written now
 * to a temporary file beside `path`, which must be in an existing folder. */
mp_status mp_out_add_extra(mp_out *o, const char *path, const void *data, size_t size);

/* Move every staged file into place, then remove the files the previous
 * commit's manifest lists that this one does not write, and the folders
 * that leaves empty.  Everything is checked before the first move; should
 * a move still fail, the moves already made are undone.  The manifest is
 * written last. */
mp_status mp_out_commit(mp_out *o);

/* Commit several writers as one: every manifest is staged and every
 * destination checked before the first file moves, so a failure there
 * changes nothing.  Should a move itself fail, that folder is put back as
 * mp_out_commit does, the folders before it keep their new files, and the
 * error says so. */
mp_status mp_out_commit_all(mp_out *const *outs, size_t n);

/* Remove whatever is still staged (everything, unless committed) and free
 * the writer.  NULL-safe; sets *o to NULL. */
void mp_out_free(mp_out **o);

#endif /* MP_OUTPUT_H */
