/*
 * report.h — the module's reports as the emitter writes them: the residency
 * JSON with the module's sidecar files and tables (residency.c), and the
 * HTML map of an emitted module (report_html.c).
 */
#ifndef MP_REPORT_H
#define MP_REPORT_H

#include "memplan.h"

/* A file of an emitted module that carries bytes the application loads
 * itself (a constant blob when allocate_arenas is false). */
typedef struct mp_sidecar {
  const char *file;         /* relative to the module folder: data/<symbol>.bin */
  uint32_t region_id;
  const char *symbol;
  const uint8_t *bytes;
  uint64_t size;
} mp_sidecar;

/* mp_residency_json, listing `n` sidecar files with their CRC-32. */
mp_status mp_residency_json_files(const mp_plan *p, const char *prefix, const mp_sidecar *files,
                                  uint32_t n, const mp_module_tables *tables,
                                  const mp_shared_scratch *shared, char **out);

/* mp_report_html of an emitted module: its own tables in their memory's
 * bank, and its scratch arenas by the buffer they share with other models
 * (either may be NULL). */
mp_status mp_report_html_module(const mp_plan *p, const char *prefix,
                                const mp_module_tables *tables, const mp_shared_scratch *shared,
                                char **out);

/* A patched stage (memory.patch, patch_report.c): the summary's lines
 * (nothing without a stage); planner.patch of the residency JSON (NULL
 * without one); the kernels table's label of operator op when it is one of
 * the stage's layers (else NULL), written into buf. */
struct mp_buf;
void emit_patch_summary(struct mp_buf *b, const mp_plan *p);
struct json_t;
struct json_t *emit_patch_json(const mp_plan *p);
const char *emit_patch_label(const mp_graph *g, uint32_t op, char *buf, size_t n);

#endif /* MP_REPORT_H */
