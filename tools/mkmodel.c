/*
 * mkmodel.c — write memplan's own .tflite models to files.
 *
 *   mkmodel kws OUT.tflite                      the bundled example
 *   mkmodel fixture NAME OUT.tflite             a test fixture or held-out network
 *   mkmodel random --seed N [--ops K] OUT.tflite  a random DAG (K default 24)
 *   mkmodel --list                              the fixture names
 *   mkmodel --list-nets                         the held-out networks' names
 *   --hostile-names (before the command)        every name a hostile one
 *
 * A thin shell over tests/support/gen/fixtures.c (which it links) and the model
 * writer: it parses arguments, builds the bytes and writes them
 * atomically.  The output is deterministic: examples/kws/kws.tflite is
 * exactly `mkmodel kws`, and the test suite checks it stays so.
 * Exit status: 0 written, 2 bad usage or I/O error, 3 internal error.
 */
#include "fixtures.h"
#include "util/file.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: mkmodel kws OUT.tflite\n"
    "       mkmodel fixture NAME OUT.tflite\n"
    "       mkmodel random --seed N [--ops K] OUT.tflite\n"
    "       mkmodel --list | --list-nets\n"
    "       mkmodel --hostile-names kws|fixture ...\n"
    "\n"
    "Write one of memplan's own models: the bundled DS-CNN keyword-spotting\n"
    "example, a named test fixture (--list) or held-out network (--list-nets),\n"
    "or a random DAG of K operators (default 24) from seed N.  The same\n"
    "arguments always give the same bytes.  --hostile-names writes every\n"
    "tensor and subgraph name and custom code between tokens that would become\n"
    "code or terminal control if any output took them literally.\n";

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "mkmodel: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'mkmodel --help' for usage)\n");
  return 2;
}

static bool parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-' || *s == '+') return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return false;
  *out = v;
  return true;
}

static void print_diag(void *user, const mp_diag *d) {
  (void)user;
  fprintf(stderr, "mkmodel: %s: %s\n", d->severity == MP_SEV_ERROR ? "error" : "note",
          d->message);
}

/* Write the bytes `st` produced to `path`; returns the exit status. */
static int finish(mp_status st, uint8_t *bytes, size_t size, const char *what, const char *path) {
  if (st != MP_OK) {
    fprintf(stderr, "mkmodel: error: cannot build %s: %s\n", what, mp_status_str(st));
    free(bytes);
    return st == MP_ERR_NOMEM || st == MP_ERR_CONFIG ? 2 : 3;
  }
  mp_diag_sink sink = {print_diag, NULL};
  st = mp_write_file(path, bytes, size, &sink);
  free(bytes);
  return st == MP_OK ? 0 : 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(USAGE, stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--hostile-names")) {
    fx_hostile_names(true);
    argv++;
    if (--argc < 2) return usage_error("%s needs a command", "--hostile-names");
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    fputs(USAGE, stdout);
    return 0;
  }
  if (!strcmp(cmd, "--list")) {
    for (const char *const *n = fx_names(); *n; n++) puts(*n);
    return 0;
  }
  if (!strcmp(cmd, "--list-nets")) {
    for (const char *const *n = fx_net_names(); *n; n++) puts(*n);
    return 0;
  }
  uint8_t *bytes = NULL;
  size_t size = 0;
  if (!strcmp(cmd, "kws")) {
    if (argc != 3) return usage_error("%s needs exactly one output file", "kws");
    mp_status st = fx_kws(&bytes, &size);
    return finish(st, bytes, size, "the KWS example", argv[2]);
  }
  if (!strcmp(cmd, "fixture")) {
    if (argc != 4) return usage_error("%s needs a fixture name and an output file", "fixture");
    bool known = false;
    for (const char *const *n = fx_names(); *n; n++) known |= !strcmp(*n, argv[2]);
    for (const char *const *n = fx_net_names(); *n; n++) known |= !strcmp(*n, argv[2]);
    if (!known) return usage_error("unknown fixture '%s' (see 'mkmodel --list')", argv[2]);
    mp_status st = fx_build(argv[2], &bytes, &size);
    return finish(st, bytes, size, argv[2], argv[3]);
  }
  if (!strcmp(cmd, "random")) {
    uint64_t seed = 0, ops = 24;
    bool has_seed = false;
    const char *out = NULL;
    for (int i = 2; i < argc; i++) {
      if (!strcmp(argv[i], "--seed") || !strcmp(argv[i], "--ops")) {
        uint64_t v;
        if (i + 1 >= argc || !parse_u64(argv[i + 1], &v))
          return usage_error("%s needs a non-negative integer", argv[i]);
        if (!strcmp(argv[i], "--seed")) {
          seed = v;
          has_seed = true;
        } else {
          if (v == 0 || v > 100000) return usage_error("%s must be between 1 and 100000", "--ops");
          ops = v;
        }
        i++;
      } else if (argv[i][0] == '-' && argv[i][1]) {
        return usage_error("unknown option '%s'", argv[i]);
      } else if (!out) {
        out = argv[i];
      } else {
        return usage_error("more than one output file ('%s')", argv[i]);
      }
    }
    if (!has_seed) return usage_error("%s needs --seed N", "random");
    if (!out) return usage_error("%s needs an output file", "random");
    mp_status st = fx_random(seed, (uint32_t)ops, &bytes, &size);
    return finish(st, bytes, size, "the random DAG", out);
  }
  return usage_error("unknown command '%s' (commands: kws, fixture, random)", cmd);
}
