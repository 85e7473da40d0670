/* featc convert IN.parquet -j N: a Parquet file's row groups decoded and
 * serialized on N threads (convert_jobs.c), handed back in order, for
 * convert_back.c, which writes them.  Not installed. */
#ifndef FEATC_CLI_CONVERT_JOBS_H
#define FEATC_CLI_CONVERT_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include <featc/fc_record.h>

#include "base/spec.h"

/* A piece of a group's records: used bytes at p, whole records. */
typedef struct back_chunk {
    unsigned char *p;
    size_t used, cap;
} back_chunk;

/* A piece of a row group, done: rows first_row ... of group index, their
 * records in order (lens[k] bytes each, one after the other in chunks[0],
 * then chunks[1], ...; a record never straddles two), then, when status is
 * not FC_OK, what stopped it: reading the group (at_row -1: no records)
 * or row at_row of the group (the records are those of the rows before
 * it). */
typedef struct back_group {
    uint64_t index;
    int64_t first_row;
    int64_t nrec;
    const back_chunk *chunks;
    const size_t *lens;
    int status;
    int64_t at_row;
    fc_error err;
    uint64_t offset; /* the file offset its reader reached */
} back_group;

/* Called for each piece in order, on the caller's thread: EXIT_OK (0) to
 * go on, anything else stops the threads and is returned. */
typedef int (*back_group_fn)(void *ctx, const back_group *g);

/* The ngroups row groups of the Parquet file [data, data + len) through
 * spec's serializer (FC_OMIT_DEFAULTS) on jobs threads, each with a reader
 * of its own over the bytes, in pieces (whole groups, or with fewer than 4
 * groups a thread each group's rows in equal shares, as many as rows, the
 * footer's row count, makes worth it), at most 2 * jobs pieces ahead of the one handed back: the first status
 * of fn that is not EXIT_OK, else EXIT_OK; -1 when fewer than 2 threads
 * would run or they could not start (memory, a reader that does not open,
 * no thread), nothing handed back: the caller's one-thread loop then reads
 * the file (and says why it cannot). */
int back_jobs_run(const cli_spec *spec, const void *data, size_t len, uint64_t ngroups,
                  uint64_t rows, unsigned jobs, back_group_fn fn, void *ctx);

#endif /* FEATC_CLI_CONVERT_JOBS_H */
