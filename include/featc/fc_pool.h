/* Reading TFRecord files on all cores: a pool of POSIX threads that reads
 * the splits of one file or many in parallel.  (Hosted runtime, like
 * fc_input.h: it allocates, at fc_pool_open only; see below.)
 *
 * Work: each split is read by one worker thread, which calls
 * work->record for every record of the split in order, with a state of
 * work->state_size bytes that belongs to that thread (where the
 * allocation-free generated parser's output goes: one per thread, given at
 * setup).  The caller's thread takes finished splits with fc_pool_next(),
 * in file order or as they finish.
 *
 * Exactness: a split [a, b) of an uncompressed file owns the records whose
 * header starts in it (docs/record-tools.md, "Splits").  A worker finds the split's
 * first record by the checksum sync, walks its headers to the split's end
 * (12 bytes per record), and before any record reaches work->record
 * checks that the split starts where the chain of the splits before it
 * ended; when it does not (a TFRecord stream stored inside a record, or a
 * damaged record), the split is placed at that offset instead.  So every
 * record goes through work->record exactly once, record indices count
 * from each file's start, and a damaged file fails at the record where a
 * sequential read fails, with the same message.  A GZIP file is split by
 * its member index (FILE.members, if there is one; else read whole); a
 * ZLIB file is read whole.
 *
 * Memory: fc_pool_open maps every file, and allocates the split table,
 * the threads' states, and for each thread a record buffer and zlib work
 * area (grown when a compressed record does not fit); nothing is
 * allocated afterwards except such growth.  The record views given to
 * work->record stay valid during the call only. */
#ifndef FEATC_FC_POOL_H
#define FEATC_FC_POOL_H

#include "fc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fc_pool fc_pool;

typedef struct fc_pool_split {
    size_t file;          /* index into the paths given to fc_pool_open */
    size_t split;         /* index of this split within its file */
    size_t splits;        /* how many splits its file has */
    uint64_t begin, end;  /* the byte range (compressed bytes for GZIP member splits) */
    uint64_t start;       /* stream offset of its first record (or of where it ends, if none) */
    uint64_t stop;        /* stream offset where its last record ends */
    uint64_t first_index; /* index in its file of its first record */
    uint64_t records;     /* records given to work->record */
    uint64_t skipped;     /* records skipped under FC_CRC_SKIP_CORRUPT */
    fc_error last_skip;   /* why the last of them was */
    fc_compression compression;
    fc_status status;     /* FC_END: read to its end; else the error (err); FC_ERR_STATE:
                             after a split of the same file that failed (ordered mode:
                             every such split; its records, which a sequential read
                             does not reach, may have gone through work->record) */
    fc_error err;
    void *user;           /* the caller's, per split (work->record may set it) */
    int inflated_ahead;   /* a whole GZIP or ZLIB file inflated on a thread of its own
                             (the pool had fewer splits than threads): 1; 2 when that
                             thread stopped short and the split was read again on its
                             worker's, past the records given; 0: on its worker's */
} fc_pool_split;

typedef struct fc_pool_work {
    void *ctx;
    size_t state_size;    /* bytes of zeroed state per thread (may be 0) */
    /* In a worker thread, for each record of a split, in order: FC_OK to
     * go on; any other status ends the split with that status (the
     * function fills err). */
    fc_status (*record)(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                        fc_error *err);
    /* At fc_pool_close, for each thread's state (may be NULL): what the
     * state holds is released here. */
    void (*state_free)(void *ctx, void *state);
} fc_pool_work;

typedef struct fc_pool_options {
    unsigned threads;       /* worker threads; 0: one */
    int ordered;            /* fc_pool_next in file order (1) or as splits finish (0) */
    uint64_t split_bytes;   /* split size of uncompressed files; 0: file size / (4 x threads),
                               between 1 MiB and 64 MiB */
    fc_compression compression; /* as fc_input (AUTO detects) */
    fc_crc_policy crc_policy;
    size_t max_record_size;     /* 0: 1 GiB */
    int inflate_ahead;          /* 1: when there are fewer splits than threads, a whole
                                   GZIP or ZLIB file (no member list) is inflated on a
                                   thread of its own while its worker frames and runs
                                   work->record (ISA-L builds; the same records and
                                   errors).  It pays when work->record costs about
                                   what the inflate does (a parse); for a count it
                                   costs (docs/runtime.md) */
} fc_pool_options;

/* Maps the files, plans the splits, starts the threads.  FC_OK, or the
 * first file that cannot be opened (err names it; no pool). */
fc_status fc_pool_open(fc_pool **pool, const char *const *paths, size_t n,
                       const fc_pool_options *opt, const fc_pool_work *work, fc_error *err);

/* The same over bytes in memory (the caller keeps them valid and unchanged
 * until fc_pool_close): n buffers data[k] of sizes[k] bytes, read as
 * files; split->file indexes them. */
fc_status fc_pool_open_mem(fc_pool **pool, const void *const *data, const size_t *sizes, size_t n,
                           const fc_pool_options *opt, const fc_pool_work *work, fc_error *err);

/* The next finished split: FC_OK with *split (valid until fc_pool_close),
 * or FC_END when every split has been handed out. */
fc_status fc_pool_next(fc_pool *pool, fc_pool_split **split);

/* How many splits the pool made. */
size_t fc_pool_splits(const fc_pool *pool);

/* Stops the threads (work not yet begun is dropped) and frees everything. */
void fc_pool_close(fc_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_POOL_H */
