/* What arrow_ipc.c's writer and the Parquet writer share about Arrow's
 * format strings.  Private to the hosted layer. */
#ifndef FEATC_ARROW_IPC_H
#define FEATC_ARROW_IPC_H

#include <stdint.h>

/* 1 with *size set when format is a fixed_size_list's, "+w:N" with N a
 * decimal from 0 to 2^31 - 1; else 0. */
int fc_arrow_fixed_size(const char *format, int64_t *size);

#endif
