/* The command-line tool's heap in huge pages (Linux, glibc): see heap.h. */
#define _DEFAULT_SOURCE 1 /* sbrk, madvise's MADV_HUGEPAGE */

#include <stdint.h>
#include <stdlib.h>

#include "heap.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

#define HEAP_AHEAD (64 << 20)

#if defined(__linux__) && defined(__GLIBC__) && defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
/* A limit on the address space or the data segment: the heap's 64 MiB
 * ahead could be what a run under it cannot have (tests/tfmd/run.sh's
 * import under ulimit -v 12000 then failed reading its file). */
static int limited(void)
{
    struct rlimit r;
    return (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) ||
           (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY);
}
#endif

void cli_heap_huge(void)
{
#if defined(__linux__) && defined(__GLIBC__) && defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t before, after, from, to;
    void *p;
    if (limited())
        return;
    /* blocks below 32 MiB from the heap (glibc's own ceiling for them),
     * which grows HEAP_AHEAD now, advised, and is not given back below
     * twice that; then it grows as glibc's default has it */
    before = (uintptr_t)sbrk(0);
    if (mallopt(M_MMAP_THRESHOLD, 32 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, 2 * HEAP_AHEAD) != 1 ||
        mallopt(M_TOP_PAD, HEAP_AHEAD) != 1)
        return;
    p = malloc(1 << 20);
    after = (uintptr_t)sbrk(0);
    (void)mallopt(M_TOP_PAD, 128 << 10);
    free(p);
    if (p == NULL || after < before || after - before < (uintptr_t)HEAP_AHEAD)
        return; /* (not grown as asked: no advice) */
    from = (before + huge - 1) & ~(huge - 1);
    to = after & ~(huge - 1);
    if (to > from)
        (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE); /* (advice) */
#endif
}
