/*
 * platform.c — memory banks and the built-in platforms.
 *
 * A platform is plain data: a table of named memories (size, read-only or
 * not, the arena alignment each needs), the minimum slot alignment and the
 * order in which unpinned tensors prefer the banks.  The seeds' MemoryType
 * names (dtcm, itcm, mram, psram, sram) keep fixed table indices, present
 * or not, with their meaning: mram is read-only, the others writable.  Any
 * other memory a platform names (axi_sram, ocram, flash, ...) takes the
 * next free index.  Region ids and reports list memories by name, never by
 * index (mp_platform_by_name).
 *
 * The built-ins are one table below; a config may start from one and
 * override fields inline (that merging lives in config.c, not here).  The
 * Ambiq boards keep the one preference rule of SPEC §4, also used for
 * inline platforms that give no order: the writable memories but itcm in
 * the order dtcm, sram, psram, then the others by name, then the read-only
 * memories (for constants).  itcm is never preferred: only a rule that
 * names it places tensors there.
 */
#include "config/config.h"

#include <ctype.h>
#include <string.h>

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static const char *const seed_names[MP_MEM_FIRST_NAMED] = {"dtcm", "itcm", "mram", "psram",
                                                           "sram"};

const char *mp_platform_memory_name(const mp_platform *pf, mp_memory m) {
  if ((unsigned)m < MP_MEM_FIRST_NAMED) return seed_names[m];
  if (!pf || (unsigned)m >= pf->n_memories || (unsigned)m >= MP_MEM_COUNT) return "?";
  return pf->memory_name[m];
}

static bool same_name(const char *a, const char *b) {
  while (*a && *b && tolower((unsigned char)*a) == tolower((unsigned char)*b)) a++, b++;
  return !*a && !*b;
}

bool mp_platform_find_memory(const mp_platform *pf, const char *name, mp_memory *out) {
  if (!name) return false;
  uint32_t n = pf && pf->n_memories > MP_MEM_FIRST_NAMED ? pf->n_memories : MP_MEM_FIRST_NAMED;
  for (uint32_t m = 0; m < n && m < MP_MEM_COUNT; m++)
    if (same_name(name, mp_platform_memory_name(pf, (mp_memory)m))) {
      if (out) *out = (mp_memory)m;
      return true;
    }
  return false;
}

bool mp_platform_writable(const mp_platform *pf, mp_memory m) {
  return (unsigned)m < MP_MEM_COUNT && pf->present[m] && !pf->read_only[m];
}

uint32_t mp_platform_by_name(const mp_platform *pf, mp_memory *out) {
  uint32_t n = 0;
  for (uint32_t m = 0; m < pf->n_memories && m < MP_MEM_COUNT; m++) {
    if (!pf->present[m]) continue;
    /* insertion sort: a platform has at most MP_MEM_COUNT memories */
    uint32_t k = n++;
    const char *nm = mp_platform_memory_name(pf, (mp_memory)m);
    while (k > 0 && strcmp(mp_platform_memory_name(pf, out[k - 1]), nm) > 0) {
      out[k] = out[k - 1];
      k--;
    }
    out[k] = (mp_memory)m;
  }
  return n;
}

static bool is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

bool mp_platform_add_memory(mp_platform *pf, const char *name, mp_memory *out) {
  if (mp_platform_find_memory(pf, name, out)) return true;
  if (!is_identifier(name) || strlen(name) >= MP_MEMORY_NAME_MAX) return false;
  if (pf->n_memories < MP_MEM_FIRST_NAMED) pf->n_memories = MP_MEM_FIRST_NAMED;
  if (pf->n_memories >= MP_MEM_COUNT) return false;
  mp_memory m = (mp_memory)pf->n_memories++;
  char *d = pf->memory_name[m];
  for (size_t i = 0; name[i]; i++) d[i] = (char)tolower((unsigned char)name[i]);
  pf->present[m] = false;
  pf->size[m] = 0;
  pf->read_only[m] = false;
  pf->alignment[m] = 0;
  if (out) *out = m;
  return true;
}

void mp_platform_init(mp_platform *p, const char *name) {
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", name);
  p->n_memories = MP_MEM_FIRST_NAMED;
  for (int m = 0; m < MP_MEM_FIRST_NAMED; m++) snprintf(p->memory_name[m], MP_MEMORY_NAME_MAX, "%s", seed_names[m]);
  p->read_only[MP_MEM_MRAM] = true;
  p->min_alignment = 16;
}

typedef struct builtin_memory {
  const char *name;
  uint64_t size;
  bool read_only;
  uint32_t alignment;
} builtin_memory;

typedef struct builtin {
  const char *name;
  builtin_memory mem[12];  /* up to the first NULL name */
  const char *order[12];   /* preferred order; NULL first: the default rule */
} builtin;

/* Sizes in bytes, KiB = 1024 bytes.  The Ambiq boards are the README's table.
 * The others come from their reference manuals:
 *   stm32h743 (RM0433, STM32H743xI): ITCM 64 KiB, DTCM 128 KiB, AXI SRAM
 *     512 KiB (D1), SRAM1 128 KiB, SRAM2 128 KiB, SRAM3 32 KiB (D2), SRAM4
 *     64 KiB (D3), 2 MiB of flash.  The RAM buses behind the Cortex-M7's
 *     data cache get its 32-byte line as arena alignment, so a DMA buffer
 *     never shares a line with another arena.
 *   imxrt1060_evk (IMXRT1060RM; MIMXRT1060-EVK): FlexRAM in its fuse default
 *     of 128 KiB ITCM, 128 KiB DTCM and 256 KiB OCRAM, which with the
 *     512 KiB OCRAM2 below it is one 768 KiB OCRAM; the board's 8 MiB
 *     FlexSPI NOR flash.  32-byte arena alignment in OCRAM (the M7's cache).
 *   esp32s3_devkitc (ESP32-S3 TRM; ESP32-S3-DevKitC-1 N8R8): 512 KiB of
 *     internal SRAM, 8 MiB of octal PSRAM and 8 MiB of flash, both mapped
 *     through the cache. */
static const builtin builtins[] = {
    {"apollo510_evb",
     {{"mram", 4 * MIB, true, 0},
      {"sram", 3 * MIB, false, 0},
      {"dtcm", 512 * KIB, false, 0},
      {"itcm", 256 * KIB, false, 0},
      {"psram", 64 * MIB, false, 0}},
     {NULL}},
    {"apollo4p_evb",
     {{"mram", 2000 * KIB, true, 0}, {"sram", 1 * MIB, false, 0}, {"dtcm", 384 * KIB, false, 0}},
     {NULL}},
    {"apollo330p_evb",
     {{"mram", 1984 * KIB, true, 0}, {"sram", 1792 * KIB, false, 0}, {"dtcm", 240 * KIB, false, 0}},
     {NULL}},
    {"apollo3p_evb",
     {{"mram", 2000 * KIB, true, 0}, {"sram", 700 * KIB, false, 0}, {"dtcm", 64 * KIB, false, 0}},
     {NULL}},
    {"stm32h743",
     {{"itcm", 64 * KIB, false, 0},
      {"dtcm", 128 * KIB, false, 0},
      {"axi_sram", 512 * KIB, false, 32},
      {"sram1", 128 * KIB, false, 32},
      {"sram2", 128 * KIB, false, 32},
      {"sram3", 32 * KIB, false, 32},
      {"sram4", 64 * KIB, false, 32},
      {"flash", 2 * MIB, true, 0}},
     {"dtcm", "axi_sram", "sram1", "sram2", "sram3", "sram4", "flash", NULL}},
    {"imxrt1060_evk",
     {{"itcm", 128 * KIB, false, 0},
      {"dtcm", 128 * KIB, false, 0},
      {"ocram", 768 * KIB, false, 32},
      {"flash", 8 * MIB, true, 0}},
     {"dtcm", "ocram", "flash", NULL}},
    {"esp32s3_devkitc",
     {{"sram", 512 * KIB, false, 0}, {"psram", 8 * MIB, false, 0}, {"flash", 8 * MIB, true, 0}},
     {"sram", "psram", "flash", NULL}},
};

#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

static const char *const builtin_names[N_BUILTINS + 1] = {
    "apollo510_evb", "apollo4p_evb", "apollo330p_evb", "apollo3p_evb", "stm32h743",
    "imxrt1060_evk", "esp32s3_devkitc", NULL};

const char *const *mp_platform_builtin_names(void) { return builtin_names; }

void mp_platform_default_order(mp_platform *p) {
  static const mp_memory first[] = {MP_MEM_DTCM, MP_MEM_SRAM, MP_MEM_PSRAM};
  mp_memory by_name[MP_MEM_COUNT];
  uint32_t n = mp_platform_by_name(p, by_name);
  p->n_order = 0;
  for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
    if (mp_platform_writable(p, first[i])) p->order[p->n_order++] = first[i];
  for (uint32_t i = 0; i < n; i++)
    if (by_name[i] >= MP_MEM_FIRST_NAMED && mp_platform_writable(p, by_name[i]))
      p->order[p->n_order++] = by_name[i];
  for (uint32_t i = 0; i < n; i++)
    if (p->read_only[by_name[i]]) p->order[p->n_order++] = by_name[i];
}

bool mp_platform_builtin(const char *name, mp_platform *out) {
  for (size_t i = 0; name && i < N_BUILTINS; i++) {
    const builtin *b = &builtins[i];
    if (strcmp(b->name, name) != 0) continue;
    if (!out) return true;
    mp_platform_init(out, b->name);
    for (size_t k = 0; k < sizeof b->mem / sizeof b->mem[0] && b->mem[k].name; k++) {
      mp_memory m;
      if (!mp_platform_add_memory(out, b->mem[k].name, &m)) return false;
      out->present[m] = true;
      out->size[m] = b->mem[k].size;
      out->read_only[m] = b->mem[k].read_only;
      out->alignment[m] = b->mem[k].alignment;
    }
    if (!b->order[0]) {
      mp_platform_default_order(out);
    } else {
      out->n_order = 0;
      for (size_t k = 0; k < sizeof b->order / sizeof b->order[0] && b->order[k]; k++)
        if (mp_platform_find_memory(out, b->order[k], &out->order[out->n_order])) out->n_order++;
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

const char *mp_in_place_mode_name(mp_in_place_mode m) {
  return m == MP_IN_PLACE_SPEED ? "speed" : m == MP_IN_PLACE_SIZE ? "size" : "false";
}

bool mp_target_find(const char *name, mp_target *out) {
  for (int t = 0; name && t < MP_TARGET_COUNT; t++)
    if (!strcmp(target_names[t], name)) {
      if (out) *out = (mp_target)t;
      return true;
    }
  return false;
}
