/*
 * output.h — replacing a module folder all at once, or not at all
 * (output.c).
 *
 * The emitter stages every file of a convert (the module, the residency
 * JSON, the HTML report) into an mp_out and commits them together.  Until
 * the commit nothing visible changes; a failure or a kill anywhere leaves
 * the module folder as the complete old module or the complete new one.
 */
#ifndef MP_OUTPUT_H
#define MP_OUTPUT_H

#include "memplan.h"

/* Name of the manifest a commit leaves in the module folder: the files it
 * wrote, one relative path a line.  The next commit into the folder
 * replaces those and keeps every other file (not following links). */
#define MP_OUT_MANIFEST ".memplan-manifest"

typedef struct mp_out mp_out;

/* Start staging the files of module folder `dir`: takes the folder's lock
 * (waiting, with a note, while another convert holds it), removes what
 * interrupted converts left beside it (with a warning each), and creates a
 * hidden staging folder beside `dir` (and `dir`'s missing parents, which a
 * failed write removes again).  MP_ERR_IO, reported to dx, when that
 * fails; the lock is held until mp_out_free. */
mp_status mp_out_begin(const char *dir, const mp_diag_sink *dx, mp_out **out);

/* With `force`, a file (or folder) in the module folder that memplan did
 * not write and whose name the module needs is replaced; without it, the
 * commit stops before anything changes and names it. */
void mp_out_force(mp_out *o, bool force);

/* Stage `size` bytes as `rel` inside the module folder ("src/kws_model.c";
 * no "..", not absolute).  The bytes are written to the staging folder
 * now.  Errors are sticky: later calls do nothing and commit fails. */
mp_status mp_out_add(mp_out *o, const char *rel, const void *data, size_t size);

/* Stage a file outside the module folder (the HTML report): written now
 * to a temporary file beside `path`, which must be in an existing folder. */
mp_status mp_out_add_extra(mp_out *o, const char *path, const void *data, size_t size);

/* Carry the files of the module folder the previous manifest does not list
 * into the staging folder (hard links; links as links), then swap the
 * staging folder and the module folder in one step and remove the old
 * one; then rename the reports into place. */
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
