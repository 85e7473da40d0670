/* What the hosted files that write or read binary formats (Arrow IPC and
 * Parquet, both little-endian on disk) share about the host: its byte
 * order, asked at run time (the compiler folds it to a constant) so that
 * no build flag can get it wrong; and the value of a float16 (Arrow's
 * halffloat, Parquet's FLOAT16, a typed tensor's `as float16`).  Private
 * to the hosted layer. */
#ifndef FEATC_BYTE_ORDER_H
#define FEATC_BYTE_ORDER_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline int fc_host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

/* The value of the IEEE binary16 of bits h (every one is a double, and a
 * float: exact); a NaN keeps its sign and payload (the payload's bits at
 * the top of the double's, where a cast to float keeps them). */
static inline double fc_half_value(uint16_t h)
{
    unsigned e = (unsigned)h >> 10 & 31u;
    double m = (double)(h & 1023u), x;
    if (e == 31 && (h & 1023u) != 0) {
        uint64_t b = (uint64_t)(h & 0x8000u) << 48 | (uint64_t)0x7ff << 52 |
                     (uint64_t)(h & 1023u) << 42;
        memcpy(&x, &b, sizeof x);
        return x;
    }
    if (e == 31)
        x = (double)INFINITY;
    else if (e == 0)
        x = m / 16777216.0; /* 2^-24 */
    else
        x = (m + 1024.0) * (double)(1ul << e) / 33554432.0; /* 2^(e - 25) */
    return h & 0x8000u ? -x : x;
}

#endif
