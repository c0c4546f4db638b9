/*
 * platform.c — memory banks (the seeds' MemoryType) and the built-in
 * platforms (the README's table).
 *
 * A platform is plain data: which banks exist, their sizes in bytes, the
 * minimum slot alignment and the order in which unpinned tensors prefer the
 * banks.  The built-ins are one table below; a config may start from one and
 * override fields inline (that merging lives in config.c, not here).
 *
 * The preferred order of every built-in follows one rule, also used for
 * inline platforms that give no order: dtcm, sram, psram, then mram (for
 * constants), keeping only the banks the platform has.  itcm is never
 * preferred: only a rule that names it places tensors there.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static const char *const memory_names[MP_MEM_COUNT] = {"dtcm", "itcm", "mram", "psram", "sram"};

const char *mp_memory_name(mp_memory m) {
  return (unsigned)m < MP_MEM_COUNT ? memory_names[m] : "unknown";
}

bool mp_memory_from_name(const char *name, mp_memory *out) {
  if (!name) return false;
  for (int m = 0; m < MP_MEM_COUNT; m++) {
    const char *a = name, *b = memory_names[m];
    while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
    if (!*a && !*b) {
      if (out) *out = (mp_memory)m;
      return true;
    }
  }
  return false;
}

bool mp_memory_writable(mp_memory m) { return m != MP_MEM_MRAM && (unsigned)m < MP_MEM_COUNT; }

typedef struct builtin {
  const char *name;
  /* bytes per bank, indexed by mp_memory; 0 = the platform lacks it */
  uint64_t size[MP_MEM_COUNT];
} builtin;

/* The README's platform table; KiB = 1024 bytes. */
static const builtin builtins[] = {
    {"apollo510_evb",
     {[MP_MEM_MRAM] = 4 * MIB, [MP_MEM_SRAM] = 3 * MIB, [MP_MEM_DTCM] = 512 * KIB,
      [MP_MEM_ITCM] = 256 * KIB, [MP_MEM_PSRAM] = 64 * MIB}},
    {"apollo4p_evb", {[MP_MEM_MRAM] = 2000 * KIB, [MP_MEM_SRAM] = 1 * MIB, [MP_MEM_DTCM] = 384 * KIB}},
    {"apollo330p_evb",
     {[MP_MEM_MRAM] = 1984 * KIB, [MP_MEM_SRAM] = 1792 * KIB, [MP_MEM_DTCM] = 240 * KIB}},
    {"apollo3p_evb", {[MP_MEM_MRAM] = 2000 * KIB, [MP_MEM_SRAM] = 700 * KIB, [MP_MEM_DTCM] = 64 * KIB}},
};

#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

static const char *const builtin_names[N_BUILTINS + 1] = {
    "apollo510_evb", "apollo4p_evb", "apollo330p_evb", "apollo3p_evb", NULL};

const char *const *mp_platform_builtin_names(void) { return builtin_names; }

/* The default preference: dtcm, sram, psram, then mram for constants. */
static const mp_memory default_order[] = {MP_MEM_DTCM, MP_MEM_SRAM, MP_MEM_PSRAM, MP_MEM_MRAM};

void mp_platform_default_order(mp_platform *p) {
  p->n_order = 0;
  for (size_t i = 0; i < sizeof default_order / sizeof default_order[0]; i++)
    if (p->present[default_order[i]]) p->order[p->n_order++] = default_order[i];
}

bool mp_platform_builtin(const char *name, mp_platform *out) {
  for (size_t i = 0; name && i < N_BUILTINS; i++) {
    if (strcmp(builtins[i].name, name) != 0) continue;
    if (out) {
      memset(out, 0, sizeof *out);
      snprintf(out->name, sizeof out->name, "%s", builtins[i].name);
      for (int m = 0; m < MP_MEM_COUNT; m++) {
        out->present[m] = builtins[i].size[m] != 0;
        out->size[m] = builtins[i].size[m];
      }
      out->min_alignment = 16;
      mp_platform_default_order(out);
    }
    return true;
  }
  return false;
}

/* The cores module.target names (mp_target order). */
static const char *const target_names[MP_TARGET_COUNT] = {"generic", "cortex-m4", "cortex-m7",
                                                          "cortex-m33", "cortex-m55"};

const char *mp_target_name(mp_target t) {
  return (unsigned)t < MP_TARGET_COUNT ? target_names[t] : target_names[0];
}

bool mp_target_find(const char *name, mp_target *out) {
  for (int t = 0; name && t < MP_TARGET_COUNT; t++)
    if (!strcmp(target_names[t], name)) {
      if (out) *out = (mp_target)t;
      return true;
    }
  return false;
}
