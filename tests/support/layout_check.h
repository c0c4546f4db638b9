/*
 * layout_check.h — the tests' own check of a single-arena layout, sharing
 * no code with the planners: every offset aligned, no two items live at the
 * same time sharing a byte.  Fails the running cmocka test otherwise.
 */
#ifndef MP_LAYOUT_CHECK_H
#define MP_LAYOUT_CHECK_H

#include "memplan.h"

/* Check offsets off[0..n) of items it[0..n); returns the height. */
uint64_t tu_check_layout(const mp_item *it, size_t n, const uint64_t *off);

#endif
