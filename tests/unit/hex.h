/* Test helper without the harness's state, for tools (make_seeds) too. */
#ifndef FEATC_TEST_HEX_H
#define FEATC_TEST_HEX_H

#include <stdio.h>

/* Hex text to bytes; returns the byte count. */
static inline size_t h_unhex(const char *hex, unsigned char *out)
{
    size_t n = 0;
    while (hex[0] != '\0' && hex[1] != '\0') {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

#endif /* FEATC_TEST_HEX_H */
