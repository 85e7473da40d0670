/* The command-line tool's heap in huge pages (Linux, glibc): see cli.h. */
#define _DEFAULT_SOURCE 1 /* sbrk, madvise's MADV_HUGEPAGE */

#include <stdint.h>
#include <stdlib.h>

#include "cli.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#define HEAP_AHEAD (64 << 20)

void cli_heap_huge(void)
{
#if defined(__linux__) && defined(__GLIBC__) && defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t from, to;
    void *p;
    /* blocks below 32 MiB from the heap (glibc's own ceiling for them),
     * which grows HEAP_AHEAD at a time and is not given back below twice
     * that */
    if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 || mallopt(M_TOP_PAD, HEAP_AHEAD) != 1 ||
        mallopt(M_TRIM_THRESHOLD, 2 * HEAP_AHEAD) != 1)
        return;
    if ((p = malloc(1 << 20)) == NULL) /* (the heap grown now, the advice on what it took) */
        return;
    from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    to = (uintptr_t)sbrk(0) & ~(huge - 1);
    free(p);
    if (to > from)
        (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE); /* (advice) */
#endif
}
