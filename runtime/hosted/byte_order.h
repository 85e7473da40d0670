/* What the hosted files that write or read binary formats (Arrow IPC and
 * Parquet, both little-endian on disk) share about the host: its byte
 * order, asked at run time (the compiler folds it to a constant) so that
 * no build flag can get it wrong.  Private to the hosted layer. */
#ifndef FEATC_BYTE_ORDER_H
#define FEATC_BYTE_ORDER_H

#include <stdint.h>

static inline int fc_host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

#endif
