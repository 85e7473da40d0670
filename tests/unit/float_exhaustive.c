/* fc_float_shortest (and fc_float_point_chars, the same with ".0" after an
 * integer) against the printf/strtof loop it replaces, for every
 * positive float32 bit pattern (the sign only adds '-'; test_text checks
 * negative numbers by sample): zero, subnormals, normals, inf and the
 * NaNs.  Not in `make test` (about half an hour on 2 cores): run by
 * `make test-float-exhaustive` whenever the printer changes.
 *
 * Usage: float_exhaustive PART PARTS   checks the PART-th of PARTS equal
 * slices of [0, 0x7fffffff], and prints how many it compared. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "featc/fc_number.h"
#include "float_reference.h"

int main(int argc, char **argv)
{
    unsigned long part, parts, bad = 0;
    uint64_t lo, hi, u;
    if (argc != 3 || (parts = strtoul(argv[2], NULL, 10)) == 0 ||
        (part = strtoul(argv[1], NULL, 10)) >= parts) {
        fprintf(stderr, "usage: float_exhaustive PART PARTS\n");
        return 2;
    }
    lo = ((uint64_t)1 << 31) * part / parts;
    hi = ((uint64_t)1 << 31) * (part + 1) / parts;
    for (u = lo; u < hi; u++) {
        char got[FC_FLOAT_CHARS], want[FC_FLOAT_CHARS];
        uint32_t b = (uint32_t)u;
        float v;
        size_t n, m;
        memcpy(&v, &b, sizeof v);
        n = fc_float_shortest(got, v);
        m = reference_shortest(want, v);
        if (n != m || strcmp(got, want) != 0) {
            if (bad++ < 20)
                fprintf(stderr, "0x%08lx: %s, printf and strtof give %s\n", (unsigned long)b,
                        got, want);
        }
        n = fc_float_point_chars(got, v);
        m = reference_add_point(want, m);
        if (n != m || strcmp(got, want) != 0) {
            if (bad++ < 20)
                fprintf(stderr, "0x%08lx: %s with a point, expected %s\n", (unsigned long)b, got,
                        want);
        }
    }
    printf("float-exhaustive %lu/%lu: %llu floats, %lu differ\n", part, parts,
           (unsigned long long)(hi - lo), bad);
    return bad != 0;
}
