/*
 * fuzz_config.c — libFuzzer target for the configuration loader.
 *
 * The input is a config file's bytes, optionally followed by a line
 * "#--args--" and command-line arguments, one per line, so that one target
 * covers the YAML reader, the JSON values of the command line, the
 * overrides and the validator.  When a config loads, its rulesets are also
 * resolved against a small fixed graph (rules.c) and its help text is
 * compared against nothing: what is checked is that no input crashes, leaks,
 * reads out of bounds or trips UBSan, and that every diagnostic is a
 * well-formed string.
 */
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

#define ARGS_MARK "\n#--args--\n"
#define MAX_ARGS 16

/* Touch every string of a diagnostic, so ASan sees a bad pointer. */
static void sink(void *user, const mp_diag *d) {
  size_t *total = user;
  *total += strlen(d->message);
  if (d->file) *total += strlen(d->file);
  if (d->key_path) *total += strlen(d->key_path);
  if (d->source_line) *total += strlen(d->source_line);
}

static mp_tensor tensors[] = {
    {.id = 0, .name = "input", .role = MP_ROLE_SCRATCH},
    {.id = 1, .name = "conv0/weights", .role = MP_ROLE_CONSTANT},
    {.id = 2, .name = "state", .role = MP_ROLE_PERSISTENT},
    {.id = 3, .name = "output", .role = MP_ROLE_SCRATCH},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  size_t yaml_len = size;
  char *argv[MAX_ARGS + 1] = {(char *)"convert"};
  int argc = 1;
  char *mark = strstr(text, ARGS_MARK);
  if (mark && (size_t)(mark - text) < size) {
    yaml_len = (size_t)(mark - text);
    char *a = mark + strlen(ARGS_MARK);
    while (*a && argc < MAX_ARGS) {
      char *nl = strchr(a, '\n');
      if (nl) *nl = '\0';
      argv[argc++] = a;
      if (!nl) break;
      a = nl + 1;
    }
  }
  size_t total = 0;
  mp_diag_sink dx = {sink, &total};
  mp_config *c = NULL;
  mp_status st = mp_config_from_text(text, yaml_len, "fuzz/config.yaml", argc, argv, &dx, &c);
  if (st == MP_OK) {
    mp_graph g = {0};
    g.n_tensors = g.n_model_tensors = sizeof tensors / sizeof tensors[0];
    g.tensors = tensors;
    mp_attributes at[sizeof tensors / sizeof tensors[0]];
    const mp_rule *by[sizeof tensors / sizeof tensors[0]];
    mp_rules_resolve_traced(&g, &c->platform, &c->memory, &dx, at, by, NULL);
    /* the loader's promises */
    if (!c->model_path || !c->prefix || !c->module_path || !c->module_name || !c->memory.planner ||
        !mp_planner_find(c->memory.planner) || c->platform.min_alignment == 0 ||
        (c->platform.min_alignment & (c->platform.min_alignment - 1)))
      abort();
    for (uint32_t i = 0; i < c->memory.n_constraints; i++)
      if (!c->platform.present[c->memory.constraints[i].name]) abort();
  } else if (c) {
    abort(); /* a failure leaves nothing behind */
  }
  mp_config_free(&c);
  free(text);
  return 0;
}
