/* libFuzzer harness for featc validate --against's statistics (issue 48):
 * two binary DatasetFeatureStatisticsLists, read by dr_read, and every
 * measure between the features they share (stats/drift.c).
 *
 * The input: a 2-byte little-endian length n, then the first statistics
 * (n bytes, or what is left), then the second.  Property: no crash, no
 * leak, no undefined behaviour; a measure is a number in [0, 1] for the
 * divergence, >= 0 for the distances. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "commands/stats/drift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dr_stats a, b;
    char err[256];
    size_t n, i;
    if (size < 2)
        return 0;
    n = (size_t)data[0] | (size_t)data[1] << 8;
    data += 2;
    size -= 2;
    if (n > size)
        n = size;
    if (dr_read(&a, data, n, err, sizeof err) != 0)
        return 0;
    if (dr_read(&b, data + n, size - n, err, sizeof err) != 0) {
        dr_free(&a);
        return 0;
    }
    for (i = 0; i < a.n; i++) {
        const dr_feature *fa = &a.f[i];
        const dr_feature *fb = dr_find(&b, fa->key, fa->key_len, fa->list);
        int m, q;
        if (fb == NULL)
            continue;
        for (m = 0; m < DR_MEASURES; m++)
            for (q = 0; q < 2; q++) {
                double v = -1;
                const dr_label *label;
                const char *why;
                if (dr_measure(m, fa, fb, q, &v, &label, &why) == 0 &&
                    !(v >= 0 && (m != DR_JSD || v <= 1) && !isinf(v)))
                    abort();
            }
    }
    dr_free(&a);
    dr_free(&b);
    return 0;
}
