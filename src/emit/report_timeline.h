/*
 * report_timeline.h — one arena's timeline in the HTML report
 * (report_timeline.c), and the legend of its slot kinds.
 */
#ifndef MP_REPORT_TIMELINE_H
#define MP_REPORT_TIMELINE_H

#include "emit/report_facts.h"

/* The section of arena ai: its head, its plot and its axes. */
void report_put_arena(report *r, uint32_t ai);
/* The legend of the slot kinds (with the in-place note when in_place). */
void report_put_legend(mp_buf *b, bool in_place);

#endif /* MP_REPORT_TIMELINE_H */
