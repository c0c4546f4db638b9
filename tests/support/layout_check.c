/*
 * layout_check.c — see layout_check.h.  Quadratic on purpose: simple enough
 * to trust, and the tests' problems are small.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout_check.h"

uint64_t tu_check_layout(const mp_item *it, size_t n, const uint64_t *off) {
  uint64_t h = 0;
  for (size_t i = 0; i < n; i++) {
    if (off[i] % it[i].align != 0)
      fail_msg("item %zu at offset %llu is not aligned to %u", i, (unsigned long long)off[i],
               it[i].align);
    if (off[i] + it[i].size > h) h = off[i] + it[i].size;
    for (size_t j = 0; j < i; j++) {
      bool time = it[i].start <= it[j].end && it[j].start <= it[i].end;
      bool space = off[i] < off[j] + it[j].size && off[j] < off[i] + it[i].size;
      if (time && space && it[i].size && it[j].size)
        fail_msg("items %zu [%d,%d] @%llu+%llu and %zu [%d,%d] @%llu+%llu overlap", i,
                 it[i].start, it[i].end, (unsigned long long)off[i],
                 (unsigned long long)it[i].size, j, it[j].start, it[j].end,
                 (unsigned long long)off[j], (unsigned long long)it[j].size);
    }
  }
  return h;
}
