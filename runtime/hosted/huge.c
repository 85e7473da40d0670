/* Big buffers (fc_input.h): megabytes a tool fills once, page after page,
 * in maps of whole huge pages with huge pages asked for (Linux). */
#define _GNU_SOURCE 1 /* mremap, madvise's MADV_HUGEPAGE */

#include "featc/fc_input.h"

#include <stdlib.h>

#include "huge.h"

#if defined(__linux__) && !defined(FC_HUGE_HEAP)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE)
#define FC_HUGE_MAPS 1
#endif
#endif

#define HUGE_PAGE ((size_t)2 << 20)

/* *cap rounded up to whole huge pages: 0, or -1 when it cannot be. */
static int round_cap(size_t *cap)
{
    size_t c = *cap > 0 ? *cap : 1;
    if (c > SIZE_MAX - HUGE_PAGE)
        return -1;
    *cap = (c + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    return 0;
}

void *fc_huge_alloc(size_t *cap)
{
#ifdef FC_HUGE_MAPS
    void *m;
    if (round_cap(cap) != 0)
        return NULL;
    m = mmap(NULL, *cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    (void)madvise(m, *cap, MADV_HUGEPAGE); /* (advice: refused, pages as before) */
    return m;
#else
    return round_cap(cap) == 0 ? malloc(*cap) : NULL;
#endif
}

void *fc_huge_grow(void *p, size_t old_cap, size_t *cap)
{
    void *m;
    if (round_cap(cap) != 0)
        return NULL;
#ifdef FC_HUGE_MAPS
    m = mremap(p, old_cap, *cap, MREMAP_MAYMOVE); /* (the advice moves with it) */
    return m != MAP_FAILED ? m : NULL;
#else
    (void)old_cap;
    m = realloc(p, *cap);
    return m;
#endif
}

void fc_huge_free(void *p, size_t cap)
{
    if (p == NULL)
        return;
#ifdef FC_HUGE_MAPS
    munmap(p, cap);
#else
    (void)cap;
    free(p);
#endif
}
