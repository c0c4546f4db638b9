/*
 * api_app.c — the emitted runtime API held to its header, on the example's
 * module (prefix kws), built once with the module's own arenas and once
 * with application-bound ones (KWS_ALLOCATE_ARENAS says which):
 *   - a zero-initialised context initialises and runs;
 *   - a context set up with another plan's hash, and a caller compiled
 *     with another plan's header, get PLAN_MISMATCH;
 *   - model_init names an unbound region in failed_region, not error_code;
 *   - bind_arenas refuses a count above the region count, a region named
 *     twice and one buffer for two regions, and then binds nothing;
 *   - binding after model_init makes model_run refuse with REBOUND until
 *     model_init runs again and re-points the inputs and outputs.
 * Usage: api_app [DATA_DIR] (the module's data/ folder when the
 * application binds the arenas).  Prints one line per check, exits 1 on
 * the first failure.
 */
#include "kws_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_checks;

static int check(int ok, const char *what) {
  n_checks++;
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) exit(1);
  return ok;
}

static int is(int32_t got, int32_t want, const char *what) {
  if (got != want) printf("     got %s, want %s\n", kws_status_str(got), kws_status_str(want));
  return check(got == want, what);
}

#if !KWS_ALLOCATE_ARENAS
/* Room for every region, aligned to the largest alignment; each region
 * gets its own, far enough apart not to overlap. */
static uint8_t *buffers[KWS_NUM_REGIONS];
static size_t sizes[KWS_NUM_REGIONS];

static void *allocated[KWS_NUM_REGIONS + 1];
static int n_allocated;

static uint8_t *aligned_buffer(size_t size, size_t align) {
  uint8_t *raw = malloc(size + align);
  if (!raw) exit(2);
  allocated[n_allocated++] = raw;
  return raw + (align - (uintptr_t)raw % align) % align;
}

static void load_bin(const char *dir, const char *symbol, uint8_t *dst, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.bin", dir, symbol);
  FILE *f = fopen(path, "rb");
  if (!f || fread(dst, 1, size, f) != size) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  fclose(f);
}
#endif

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  static kws_model_context_t zeroed; /* no KWS_MODEL_CONTEXT_INIT */
  kws_model_context_t other = KWS_MODEL_CONTEXT_INIT;
  other.plan_hash ^= 1u;
  is(kws_model_init(&other), KWS_STATUS_PLAN_MISMATCH,
     "a context set up with another plan's hash is refused");
  kws_model_context_t ctx = KWS_MODEL_CONTEXT_INIT;
  is(kws_model_init_checked(&ctx, KWS_PLAN_HASH ^ 1u), KWS_STATUS_PLAN_MISMATCH,
     "a caller compiled with another plan's header is refused");
#if KWS_ALLOCATE_ARENAS
  is(kws_model_init(&zeroed), KWS_STATUS_OK, "a zero-initialised context initialises");
  check(zeroed.failed_op == -1 && zeroed.failed_region == -1 && zeroed.error_code == 0,
        "  ... and reports no failure");
  memset(zeroed.inputs[0].data, 3, zeroed.inputs[0].size);
  is(kws_model_run(&zeroed), KWS_STATUS_OK, "  ... and runs");
  /* rebinding the scratch region after init */
  size_t n = KWS_REGION_SCRATCH_DTCM_SIZE + KWS_REGION_SCRATCH_DTCM_ALIGN;
  uint8_t *raw = malloc(n);
  uint8_t *fresh = raw + (KWS_REGION_SCRATCH_DTCM_ALIGN -
                          (uintptr_t)raw % KWS_REGION_SCRATCH_DTCM_ALIGN) %
                             KWS_REGION_SCRATCH_DTCM_ALIGN;
  void *old_in = zeroed.inputs[0].data;
  is(kws_bind_arena(KWS_REGION_SCRATCH_DTCM, fresh, KWS_REGION_SCRATCH_DTCM_SIZE), KWS_STATUS_OK,
     "binding the scratch region after model_init is accepted");
  is(kws_model_run(&zeroed), KWS_STATUS_REBOUND, "  ... and model_run then refuses the context");
  is(kws_model_init(&zeroed), KWS_STATUS_OK, "  ... until model_init runs again");
  check(zeroed.inputs[0].data != old_in && (uint8_t *)zeroed.inputs[0].data >= fresh &&
            (uint8_t *)zeroed.inputs[0].data < fresh + KWS_REGION_SCRATCH_DTCM_SIZE,
        "  ... which points the input into the new buffer");
  memset(zeroed.inputs[0].data, 3, zeroed.inputs[0].size);
  is(kws_model_run(&zeroed), KWS_STATUS_OK, "  ... and runs again");
  is(kws_bind_arena(KWS_REGION_CONST_MRAM, fresh, KWS_REGION_CONST_MRAM_SIZE),
     KWS_STATUS_BUFFER_OVERLAP, "bind_arena refuses a buffer another region is bound to");
  free(raw);
#else
  const char *data = argc > 1 ? argv[1] : "data";
  is(kws_model_init(&zeroed), KWS_STATUS_UNBOUND_REGION, "model_init refuses unbound regions");
  check(zeroed.failed_region == 0 && zeroed.error_code == 0,
        "  ... naming region 0 in failed_region, error_code 0");
  static const char *const symbols[KWS_NUM_REGIONS] = {"kws_arena_dtcm_buffer",
                                                       "kws_arena_const_mram__blob"};
  kws_arena_binding_t b[KWS_NUM_REGIONS + 1];
  for (uint32_t r = 0; r < KWS_NUM_REGIONS; r++) {
    sizes[r] = r == 0 ? KWS_REGION_SCRATCH_DTCM_SIZE : KWS_REGION_CONST_MRAM_SIZE;
    buffers[r] = aligned_buffer(sizes[r], 64);
    if (r == 1) load_bin(data, symbols[r], buffers[r], sizes[r]);
    b[r].region = (kws_arena_region_t)r;
    b[r].buf = buffers[r];
    b[r].size = sizes[r];
  }
  b[KWS_NUM_REGIONS] = b[0];
  is(kws_bind_arenas(b, KWS_NUM_REGIONS + 1), KWS_STATUS_BAD_ARGUMENT,
     "bind_arenas refuses a count above the region count");
  kws_arena_binding_t dup[2] = {b[0], b[0]};
  is(kws_bind_arenas(dup, 2), KWS_STATUS_DUPLICATE_REGION, "bind_arenas refuses a region twice");
  kws_arena_binding_t shared[2] = {b[0], b[1]};
  uint8_t *big = aligned_buffer(sizes[0] + sizes[1], 64);
  shared[0].buf = shared[1].buf = big;
  shared[0].size = shared[1].size = sizes[0] + sizes[1];
  is(kws_bind_arenas(shared, 2), KWS_STATUS_BUFFER_OVERLAP,
     "bind_arenas refuses one buffer for two regions");
  check(kws_arena_buffer(KWS_REGION_SCRATCH_DTCM) == NULL &&
            kws_arena_buffer(KWS_REGION_CONST_MRAM) == NULL,
        "  ... and binds none of them");
  is(kws_bind_arenas(b, KWS_NUM_REGIONS), KWS_STATUS_OK, "bind_arenas binds every region");
  is(kws_bind_arena(KWS_REGION_CONST_MRAM, buffers[0], sizes[0] + sizes[1]),
     KWS_STATUS_BUFFER_OVERLAP, "bind_arena refuses the scratch buffer for the constants");
  is(kws_model_init(&zeroed), KWS_STATUS_OK, "a zero-initialised context initialises");
  memset(zeroed.inputs[0].data, 3, zeroed.inputs[0].size);
  is(kws_model_run(&zeroed), KWS_STATUS_OK, "  ... and runs");
  while (n_allocated > 0) free(allocated[--n_allocated]);
#endif
  printf("%d checks passed\n", n_checks);
  return 0;
}
