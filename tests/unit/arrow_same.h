/* Whether two Arrow arrays of one schema hold the same values: the
 * lengths, null counts and validity bits, offsets, bytes and values, child
 * by child (the formats the Parquet reader gives: "+s", "+L", "Z", "U",
 * "b", and fixed-width values).  For test_parquet.c and fuzz_parquet.c,
 * which read a file on one thread and on several.  Static: each has its
 * own copy. */
#ifndef FEATC_TEST_ARROW_SAME_H
#define FEATC_TEST_ARROW_SAME_H

#include <featc/fc_arrow.h>

#include <stdint.h>
#include <string.h>

static int arrow_same_bit(const void *bits, int64_t i)
{
    return ((const unsigned char *)bits)[i >> 3] >> (i & 7) & 1;
}

static int arrow_same(const struct ArrowSchema *s, const struct ArrowArray *a,
                      const struct ArrowArray *b)
{
    const char *f = s->format;
    int64_t i, n = a->length;
    if (b->length != n || b->null_count != a->null_count || b->n_children != a->n_children ||
        (a->buffers[0] == NULL) != (b->buffers[0] == NULL))
        return 0;
    for (i = 0; a->buffers[0] != NULL && i < n; i++)
        if (arrow_same_bit(a->buffers[0], i) != arrow_same_bit(b->buffers[0], i))
            return 0;
    if (strcmp(f, "+s") == 0) {
        for (i = 0; i < a->n_children; i++)
            if (!arrow_same(s->children[i], a->children[i], b->children[i]))
                return 0;
        return 1;
    }
    if (strcmp(f, "+L") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "U") == 0) {
        const int64_t *oa = (const int64_t *)a->buffers[1], *ob = (const int64_t *)b->buffers[1];
        if (memcmp(oa, ob, (size_t)(n + 1) * 8) != 0)
            return 0;
        if (f[0] == '+')
            return arrow_same(s->children[0], a->children[0], b->children[0]);
        return oa[n] == 0 || memcmp(a->buffers[2], b->buffers[2], (size_t)oa[n]) == 0;
    }
    if (strcmp(f, "b") == 0) {
        for (i = 0; i < n; i++)
            if (arrow_same_bit(a->buffers[1], i) != arrow_same_bit(b->buffers[1], i))
                return 0;
        return 1;
    }
    return n == 0 || memcmp(a->buffers[1], b->buffers[1],
                            (size_t)n * (strcmp(f, "e") == 0            ? 2
                                         : strchr("iIf", f[0]) != NULL ? 4
                                                                        : 8)) == 0;
}

#endif
