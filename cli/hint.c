/*
 * hint.c — the summary's hint line: when the chosen planner ends above the
 * lower bound, name the best other planner, the bytes it saves and how to
 * select it (mp_plan_hint does the asking).
 */
#include "cli.h"

void cli_print_hint(const mp_plan *plan, const mp_memory_args *mem, const char *flag) {
  mp_plan_hint_result h;
  if (mp_plan_hint(plan, mem, &h) != MP_OK || !h.found) return;
  double pct = h.scratch ? 100.0 * (double)h.saved / (double)h.scratch : 0.0;
  printf("hint      %s: %llu B of scratch, %llu B (%.1f %%) less%s (%s %s; experimental)\n",
         h.planner, (unsigned long long)h.alt_scratch, (unsigned long long)h.saved, pct,
         h.reaches_bound ? ", at the lower bound" : "", flag, h.planner);
}
