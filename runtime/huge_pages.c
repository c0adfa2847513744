/*===- huge_pages.c - the library's weights in 2 MB pages -------------------===*
 *
 * See huge_pages.h. Measured on a 2-core Xeon VM (AVX-512, 2 MB of L2 a
 * core), paired rounds against the same build with its weights in the
 * file's pages: ResNet-50 0.98 of its time at one thread and at two,
 * ResNet-18 0.97 at one, MobileNetV2 (14 MB of weights) even.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr, mremap's flags */
#endif
#include "huge_pages.h"

#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { kHugePage = 2 << 20 };

/* Whether transparent huge pages can back an madvise'd range: the sysfs
 * setting is "always" or "madvise" (the selected one in brackets). */
static int huge_pages_available(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f)
    return 0;
  char line[128] = {0};
  int ok = fgets(line, sizeof line, f) != NULL && strstr(line, "[never]") == NULL;
  fclose(f);
  return ok;
}

/* [lo, hi) (2 MB-aligned) replaced by a copy in huge pages; 1 on success,
 * 0 where the file's pages stay. */
static int move_to_huge_pages(uintptr_t lo, uintptr_t hi) {
  size_t n = hi - lo;
  /* A 2 MB-aligned home for the copy: mremap keeps its huge pages only
   * where both ends are aligned. */
  char *raw = mmap(NULL, n + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (raw == MAP_FAILED)
    return 0;
  uintptr_t start = ((uintptr_t)raw + kHugePage - 1) / kHugePage * kHugePage;
  char *copy = (char *)start;
  if (copy > raw)
    munmap(raw, (size_t)(copy - raw));
  munmap(copy + n, (size_t)(raw + kHugePage - copy)); /* copy - raw < 2 MB */
  madvise(copy, n, MADV_HUGEPAGE);
  memcpy(copy, (const void *)lo, n);
  if (mprotect(copy, n, PROT_READ) != 0 ||
      mremap(copy, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED) {
    munmap(copy, n);
    return 0;
  }
  return 1;
}

/* dl_iterate_phdr's callback: in the object holding `data` (an address of
 * this library), each read-only PT_LOAD segment's 2 MB-aligned interior. */
static int move_own_segments(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t self = (uintptr_t)data;
  int own = 0;
  for (int i = 0; i < info->dlpi_phnum && !own; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    own = ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz;
  }
  if (!own)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || ph->p_flags != PF_R)
      continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    uintptr_t a = (lo + kHugePage - 1) / kHugePage * kHugePage, b = hi / kHugePage * kHugePage;
    if (b > a)
      move_to_huge_pages(a, b);
  }
  return 1;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void move_once(void) {
  const char *env = getenv("DLC_HUGE_WEIGHTS");
  if ((env && strcmp(env, "0") == 0) || !huge_pages_available())
    return;
  dl_iterate_phdr(move_own_segments, (void *)(uintptr_t)&move_once);
}

void dlc_weights_to_huge_pages(void) { pthread_once(&once, move_once); }
