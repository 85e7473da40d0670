/* Opening TFRecord inputs for tools: the featc command line and generated
 * JSON drivers; and their output files, written whole or not at all.  (Not
 * part of the allocation-free parse path.)
 *
 * A regular file read whole is read(2) through a buffer that grows (up to
 * max_record_size) when a record does not fit, and inflated into it when
 * compressed; a part of a file (splits, ranges, records) is memory-mapped
 * and its records read in place.  Pipes and "-" (standard input) are
 * streamed through the same buffer.  The tool allocates here; the
 * runtime's read loop itself never does.
 */
#ifndef FEATC_FC_INPUT_H
#define FEATC_FC_INPUT_H

#include <stdio.h>

#include "fc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which part of a file to read (docs/record-tools.md, "Splits"): a part needs a
 * regular file, uncompressed or GZIP. */
typedef enum fc_input_part {
    FC_PART_ALL = 0,
    /* For a GZIP file, byte ranges are of the compressed file and own the
     * members that start in them: the member index (index_path, else
     * FILE.members, else a scan of the file) places them. */
    FC_PART_SPLIT = 1,   /* split part_a of part_b equal byte ranges (0-based) */
    FC_PART_RANGE = 2,   /* the records whose header starts in bytes [part_a, part_b) */
    FC_PART_RECORDS = 3  /* records [part_a, part_b) by index (needs an index file) */
} fc_input_part;

typedef struct fc_input_options {
    fc_compression compression;
    fc_crc_policy crc_policy;
    size_t max_record_size; /* largest record payload to buffer; 0: 1 GiB */
    fc_input_part part;
    uint64_t part_a, part_b; /* UINT64_MAX as part_b: to the end */
    fc_sync_method sync;     /* SPLIT and RANGE without an index; default FC_SYNC_WALK */
    const char *index_path;  /* an index file (fc_index.h) to position by; RECORDS
                                defaults to FILE.idx */
    const char *index_text;  /* its text instead (index_path then only names it in
                                messages): an index fetched from elsewhere */
    size_t index_len;
    /* When set, fc_input_open reads path from the descriptor open_fd
     * returns (fc_input_close closes it; -1 with errno: the open's error)
     * instead of opening the name again: a job that opened its files once
     * (to sniff them, say) reads them through the same open files. */
    int (*open_fd)(void *ctx, const char *path);
    void *open_ctx;
    /* 1: a GZIP or ZLIB regular file read whole is inflated on a thread of
     * its own, ahead of the reader (ISA-L builds; elsewhere, or when no
     * thread starts, on the reader's): the records, their offsets and any
     * error are those of the one-thread read (a damaged file is read again
     * on one thread from its start, past the records already given).  The
     * reader then reads an uncompressed stream: fc_reader_compression says
     * NONE (fc_input_compression says what the file is) and
     * fc_reader_raw_offset counts inflated bytes. */
    int inflate_ahead;
} fc_input_options;

/* ---- Guarded maps (guard.c).  A mapped file that shrinks while it is read
 * raises SIGBUS on the pages past its new end, which kills a process.
 * fc_input_map maps a file as fc_map_file does and registers the map: a
 * SIGBUS in it turns the rest of the map into zero pages (reads go on,
 * and see zeros) and records the offset of the first page found gone,
 * which fc_input_map_changed tells; a reader checks it after each record
 * and at the end.  Any other SIGBUS goes to the handler there before.  The
 * handler is installed at the first fc_input_map; guard is NULL when the
 * map could not be registered (or the file is empty). */
typedef struct fc_map_guard fc_map_guard;
fc_status fc_input_map(const char *path, fc_mapped_file *map, fc_map_guard **guard,
                       fc_error *err);
/* The same for the file open on fd (the caller keeps fd: the map holds a
 * duplicate of it), so that one job opens its file once. */
fc_status fc_input_map_fd(int fd, fc_mapped_file *map, fc_map_guard **guard, fc_error *err);
void fc_input_unmap(fc_mapped_file *map, fc_map_guard *guard);
/* 1 when the read met a page the file no longer has (*at: its offset):
 * cheap, for every record. */
int fc_input_map_changed(const fc_map_guard *guard, uint64_t *at);
/* The same, or the file is now shorter than the map (a cut inside a page
 * leaves that page's tail reading as zeros, with no fault): for the end
 * of a read, whatever it ended with. */
int fc_input_map_shrank(const fc_map_guard *guard, uint64_t *at);
/* A mapped file's pages read past count in the process's resident size as
 * long as the map lives (1.13 GB for a 1.16 GB file, against container
 * limits).  Called with the offset a read has reached (at), every 16 MiB
 * read it gives back the pages more than 16 MiB behind it, from *released
 * on (MADV_DONTNEED: a read-only private file map takes them from the file
 * again if a record there is touched, so a caller holding older records
 * still reads them right), and moves *released.  Cheap: a comparison. */
void fc_input_map_release(const fc_mapped_file *map, uint64_t *released, uint64_t at);
/* The pages wholly inside [from, to) given back now (a part done with). */
void fc_input_map_release_range(const fc_mapped_file *map, uint64_t from, uint64_t to);
/* "the file changed size during the read: ..." in err, FC_ERR_IO. */
fc_status fc_input_changed_error(fc_error *err, const char *path, uint64_t mapped, uint64_t at);

/* ---- Big buffers (huge.c): megabytes a tool fills once, page after page
 * (a batch's records, a Parquet column's values, serialized records).  On
 * a virtual machine each first touch of a 4 KiB page is a fault that can
 * cost more than the bytes written there, so on Linux fc_huge_alloc maps
 * whole huge pages (2 MiB) and asks for huge pages (advice: where the
 * kernel gives none, pages as before), and fc_huge_grow moves the map
 * (mremap: nothing copied, nothing touched again); elsewhere, and under
 * AddressSanitizer (whose checks stop at maps), malloc and realloc.  *cap:
 * the bytes asked for in, those given out (whole huge pages); NULL when
 * out of memory (fc_huge_grow then leaves p as it was).  A buffer lives
 * at least 2 MiB: for one of a few megabytes or more. */
void *fc_huge_alloc(size_t *cap);
void *fc_huge_grow(void *p, size_t old_cap, size_t *cap);
void fc_huge_free(void *p, size_t cap);

struct fc_ahead;

/* What says a regular file is the one a read met before: its device,
 * inode, size and time of change, as fstat gave them at the open. */
typedef struct fc_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns;
} fc_file_id;

typedef struct fc_input {
    const char *path;
    int fd;
    int own_fd;
    fc_mapped_file map;
    fc_map_guard *guard;
    const uint8_t *data; /* the bytes read (a mapped file's part, or the caller's); NULL:
                            read through the buffer (a whole file, a stream) */
    size_t size;         /* of data, or of a regular file read whole */
    int regular;         /* a regular file */
    uint64_t pulled;     /* a regular file read whole: the offset read up to */
    size_t gathered;     /* fc_input_gather: the records gathered so far */
    unsigned char *buf;
    size_t cap;
    void *work;
    size_t max_record_size;
    fc_reader reader;
    fc_error err;   /* open errors and the reader's errors, with the path */
    /* a part: the byte range read, the offset the read started at, and the
     * index it was placed by (index_path NULL when none) */
    uint64_t part_begin, part_end, part_start;
    char *index_path;
    fc_index_entry *index;
    size_t index_n;
    fc_gzip_member *members; /* a GZIP file's part: its member index */
    size_t members_n;
    int junction;              /* a part placed by the checksum sync: check where the
                                  next one starts when this one ends */
    fc_input_options part_opt; /* (its options) */
    fc_file_id file_id;        /* a regular file's part: the file (file_known) */
    int file_known;
    int walked; /* placed by a walk over checked headers: where the part ends is
                   noted for the next part's walk (input.c, walks.h) */
    uint64_t released;         /* a mapped file's pages before this offset were given
                                  back (fc_input_next: they count in the resident
                                  size while mapped) */
    struct fc_ahead *ahead;    /* inflate_ahead: the inflater thread */
    uint64_t ahead_records;    /* the records given while it ran */
    fc_compression compression; /* what the file is (fc_input_compression) */
    fc_reader_options ro;      /* the reader's options, for a second read */
    int gathering;             /* in fc_input_gather */
} fc_input;

/* path + suffix ("FILE.idx", "FILE.members"), allocated; NULL when out of
 * memory. */
char *fc_input_sibling(const char *path, const char *suffix);
/* Reads and parses a member index (FILE.members of a GZIP file; allocating
 * *members, free() it): FC_OK, or an error in err naming the file. */
fc_status fc_input_load_members(const char *path, fc_gzip_member **members, size_t *n,
                                fc_error *err);
/* Finds the members of a GZIP file that start at a record, by reading the
 * whole file (both CRCs of every record checked): FC_OK with *members
 * (free() it), FC_ERR_UNSUPPORTED when the file is not GZIP, or the
 * read's error. */
fc_status fc_input_scan_members(const char *path, const fc_input_options *opt,
                                fc_gzip_member **members, size_t *n, fc_error *err);
/* The same over a GZIP file's bytes in memory (name: for messages); guard,
 * when they are a guarded map (else NULL): a file that shrank under it is
 * the changed-size error, not the scan's. */
fc_status fc_input_scan_members_mem(const char *name, const void *data, size_t len,
                                    const fc_map_guard *guard, const fc_input_options *opt,
                                    fc_gzip_member **members, size_t *n, fc_error *err);

/* Reads and parses an index file (allocating *entries; free() it):
 * FC_OK, or an error in err naming the file, line and column. */
fc_status fc_input_load_index(const char *path, fc_index_entry **entries, size_t *n,
                              fc_error *err);

/* FC_OK, or an error with in->err filled. */
fc_status fc_input_open(fc_input *in, const char *path, const fc_input_options *opt);
/* The same over bytes in memory, named name in messages (the caller keeps
 * them, and name, valid until fc_input_close): uncompressed bytes are read
 * in place; a part of GZIP bytes needs opt->index_path, their member index. */
fc_status fc_input_open_mem(fc_input *in, const char *name, const void *data, size_t len,
                            const fc_input_options *opt);
/* The same over a pull source (fc_reader_init_pull), read in pieces: the
 * buffer grows to the largest record (up to max_record_size), never to the
 * stream.  A stream has no parts: FC_ERR_UNSUPPORTED when opt asks for one. */
fc_status fc_input_open_pull(fc_input *in, const char *name, fc_pull_fn fn, void *ctx,
                            const fc_input_options *opt);
/* The same over a pull source seek can move (fc_reader_init_pull_seekable)
 * whose whole is size bytes: parts as a file has them, placed by an index
 * (uncompressed: the file opt->index_path, or index_text with index_path
 * naming it; FC_PART_SPLIT, RANGE or
 * RECORDS) or a member list (GZIP: SPLIT and RANGE), each claim checked as
 * the read goes; offsets and record numbers are the file's.  A part
 * without one is FC_ERR_UNSUPPORTED (finding records without an index
 * would read every byte before them). */
fc_status fc_input_open_pull_seekable(fc_input *in, const char *name, fc_pull_fn fn,
                                      fc_seek_fn seek, void *ctx, uint64_t size,
                                      const fc_input_options *opt);
/* FC_OK with a record, FC_END, or an error (in->err). */
fc_status fc_input_next(fc_input *in, fc_record *rec);
/* Up to max records at once, for a batch: recs[0 .. *n) are views that all
 * stay valid until the next fc_input_gather, fc_input_next or close, in
 * place in memory or kept together in the input's buffer (fc_reader_keep:
 * no copy).  FC_OK with *n == max, or with 1 <= *n < max when the next
 * record does not fit in the buffer beside them (a caller building a batch
 * of max copies these before it gathers again; the buffer never grows for
 * them, only for one record); FC_END or an error (in->err) with the *n
 * records before it. */
fc_status fc_input_gather(fc_input *in, fc_record *recs, size_t max, size_t *n);
void fc_input_close(fc_input *in);
/* Whether inflate_ahead can start its thread in this program (ISA-L). */
int fc_input_can_inflate_ahead(void);
/* What the file is (GZIP, ZLIB or NONE), inflated ahead or not. */
fc_compression fc_input_compression(const fc_input *in);

/* Parses "auto|none|zlib|gzip" (any case; "" is none, as TensorFlow's
 * compression_type), "verify|skip|none" and "walk|checksum"; 0 on success. */
int fc_input_parse_compression(const char *s, fc_compression *out);
int fc_input_parse_crc(const char *s, fc_crc_policy *out);
int fc_input_parse_sync(const char *s, fc_sync_method *out);
/* Parses a size with an optional K/M/G suffix (powers of 1024); 0 on success. */
int fc_input_parse_size(const char *s, size_t *out);
/* The first byte of split i of n of size bytes, floor(size * i / n),
 * exact for every 64-bit size, i and n (i <= n, n > 0). */
uint64_t fc_input_split_offset(uint64_t size, uint64_t i, uint64_t n);
/* Parses "I/N" (0 <= I < N) into part_a, part_b; 0 on success. */
int fc_input_parse_split(const char *s, uint64_t *i, uint64_t *n);
/* Parses "A:B" (either may be empty: 0 and the end), A <= B, into *a, *b;
 * with_suffix allows K/M/G; 0 on success. */
int fc_input_parse_span(const char *s, int with_suffix, uint64_t *a, uint64_t *b);

/* An output file that appears under its path only complete (runtime/hosted/
 * output.c): fc_output_open creates PATH.XXXXXX beside it, with the mode
 * open(2) would give (0666 less the umask); fc_output_close closes it and,
 * when ok and every write succeeded, renames it over PATH, else removes
 * it.  A full disk or a killed run never leaves a truncated file under
 * PATH (make would take it for up to date).  Both return 0 or an errno
 * value (ENOMEM when out of memory; EIO for a write error the stream kept);
 * fc_output_close with ok 0 removes the file and returns 0, and with no
 * file open (f NULL) does nothing. */
typedef struct fc_output {
    FILE *f;
    char *tmp; /* the temporary file's name (allocated) */
    char *buf; /* f's buffer (fc_huge_alloc, 2 MiB), or NULL: stdio's own */
} fc_output;
int fc_output_open(fc_output *out, const char *path);
int fc_output_close(fc_output *out, const char *path, int ok);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_INPUT_H */
