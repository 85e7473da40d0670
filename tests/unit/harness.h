/* Minimal test harness: test cases are functions; CHECK records a failure
 * in the current case (printing at most a few per case); the suite ends with
 * "<suite>: N passed, M failed" counted in cases. */
#ifndef FEATC_TEST_HARNESS_H
#define FEATC_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"

static int h_cases_passed, h_cases_failed, h_case_failures;
static const char *h_case_name;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            if (h_case_failures++ < 5)                                                   \
                fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__,     \
                        h_case_name, #cond);                                             \
        }                                                                                \
    } while (0)

#define CHECK_MSG(cond, ...)                                                             \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            if (h_case_failures++ < 5) {                                                 \
                fprintf(stderr, "%s:%d: %s: CHECK failed: %s: ", __FILE__, __LINE__,     \
                        h_case_name, #cond);                                             \
                fprintf(stderr, __VA_ARGS__);                                            \
                fputc('\n', stderr);                                                     \
            }                                                                            \
        }                                                                                \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                      \
    CHECK_MSG(strstr((hay), (needle)) != NULL, "\"%s\" does not contain \"%s\"", (hay),  \
              (needle))

#define RUN(fn)                                                                          \
    do {                                                                                 \
        h_case_name = #fn;                                                               \
        h_case_failures = 0;                                                             \
        fn();                                                                            \
        if (h_case_failures == 0)                                                        \
            h_cases_passed++;                                                            \
        else                                                                             \
            h_cases_failed++;                                                            \
    } while (0)

static inline int harness_report(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, h_cases_passed, h_cases_failed);
    return h_cases_failed == 0 ? 0 : 1;
}

/* Deterministic pseudo-random bytes (xorshift64*), so failures reproduce. */
static unsigned long long h_rng_state = 0x9E3779B97F4A7C15ull;
static inline unsigned long long h_rand(void)
{
    h_rng_state ^= h_rng_state >> 12;
    h_rng_state ^= h_rng_state << 25;
    h_rng_state ^= h_rng_state >> 27;
    return h_rng_state * 2685821657736338717ull;
}

static inline void h_fill_random(unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (unsigned char)(h_rand() >> 56);
}

#endif /* FEATC_TEST_HARNESS_H */
