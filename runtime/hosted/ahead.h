/* A GZIP or ZLIB file inflated ahead on a thread (ahead.c), for input.c
 * and pool.c:
 * the thread's bytes are an uncompressed stream that a reader pulls with
 * fc_ahead_pull (an fc_pull_fn).  Not installed. */
#ifndef FEATC_AHEAD_H
#define FEATC_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "featc/fc_record.h"

typedef struct fc_ahead fc_ahead;

/* Whether this build and program can inflate ahead (ISA-L linked). */
int fc_ahead_available(void);
/* Starts inflating the file open on fd (size bytes, compression c; fd is
 * duplicated, the caller keeps it): NULL when it cannot (no ISA-L, out of
 * memory, no thread), and the caller reads on one thread. */
fc_ahead *fc_ahead_start(int fd, uint64_t size, fc_compression c);
/* The same over a file in memory (data[0, size), a map of it: the caller
 * keeps it until fc_ahead_stop): the thread reads it in place. */
fc_ahead *fc_ahead_start_mem(const void *data, uint64_t size, fc_compression c);
/* An fc_pull_fn: the inflated bytes in order, then 0 bytes (the end) once
 * the stream ended as it should; FC_ERR_INFLATE once every byte before
 * the point where the thread stopped short was given: the caller reads
 * the file again on one thread. */
fc_status fc_ahead_pull(void *ctx, void *buf, size_t n, size_t *got, fc_error *err);
/* 1 when the stream ended as it should and every byte was pulled. */
int fc_ahead_ended(fc_ahead *a);
/* Stops the thread and frees a (NULL: nothing). */
void fc_ahead_stop(fc_ahead *a);

#endif /* FEATC_AHEAD_H */
