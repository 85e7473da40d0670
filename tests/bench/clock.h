/* What the bench programs share for timing: the monotonic clock in seconds,
 * and an order of doubles for qsort (medians, min-max). */
#ifndef FEATC_BENCH_CLOCK_H
#define FEATC_BENCH_CLOCK_H

#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif /* FEATC_BENCH_CLOCK_H */
