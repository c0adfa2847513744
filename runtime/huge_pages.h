/*===- huge_pages.h - the library's weights in 2 MB pages -------------------===*
 *
 * A compiled model's weights are read-only data of its shared library
 * (.rodata.dlc_weights), mapped from the file in 4 KB pages: ResNet-50
 * streams 100 MB of them a call, a first-level TLB miss every 4 KB of a
 * filter panel. dlc_create moves them, once per process, into anonymous
 * memory in transparent huge pages (Linux, where they are not "never").
 *
 *===----------------------------------------------------------------------===*/
#ifndef DLC_RUNTIME_HUGE_PAGES_H
#define DLC_RUNTIME_HUGE_PAGES_H

#include <stddef.h>

/* The 2 MB-aligned part of this library's read-only data segments, copied
 * into anonymous memory advised for huge pages and moved over the file's
 * pages (mremap: readers see the old bytes or the copy, never a gap). Only
 * the first call does anything. Skipped
 * where DLC_HUGE_WEIGHTS=0 is set in the environment, where transparent
 * huge pages are off, or where a step fails (the file's pages stay).
 * The copy is private memory of this process: processes no longer share
 * the page cache's copy of the weights. (Whether it moved shows in
 * /proc/self/maps: test/Runtime/huge-weights.test.) */
void dlc_weights_to_huge_pages(void);

#endif
