/* What fc_float_shortest prints, the way it was first printed: the first
 * %g precision from 6 that strtof reads back; nan, inf, -inf bare.  The
 * reference of test_text and float_exhaustive. */
#ifndef FEATC_TEST_FLOAT_REFERENCE_H
#define FEATC_TEST_FLOAT_REFERENCE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_number.h>

static size_t reference_shortest(char *buf, float v)
{
    int prec, n = 0;
    if (isnan(v))
        return (size_t)snprintf(buf, FC_FLOAT_CHARS, "nan");
    if (isinf(v))
        return (size_t)snprintf(buf, FC_FLOAT_CHARS, v < 0 ? "-inf" : "inf");
    for (prec = 6; prec <= 9; prec++) {
        n = snprintf(buf, FC_FLOAT_CHARS, "%.*g", prec, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    return (size_t)n;
}

/* fc_float_point_chars from reference_shortest's buf (n bytes): ".0"
 * after what has no point, no exponent and is not nan or inf. */
static size_t reference_add_point(char *buf, size_t n)
{
    if (strpbrk(buf, ".en") == NULL) {
        memcpy(buf + n, ".0", 3);
        n += 2;
    }
    return n;
}

#endif
