/* TFRecord framing: reader and writer.
 *
 * A TFRecord file is a sequence of records, each
 *     uint64 length | uint32 masked_crc32c(length) | data[length] | uint32 masked_crc32c(data)
 * all little-endian, optionally inside one ZLIB or GZIP stream.
 *
 * Memory: nothing here allocates.  The caller owns every buffer:
 *   - a memory reader over uncompressed bytes hands out views into those bytes
 *     (zero copy);
 *   - a file-descriptor reader, or any compressed reader, fills a record
 *     buffer the caller supplies; a record view stays valid until the next
 *     call on the reader;
 *   - zlib's state lives in a work area the caller supplies (zlib's
 *     zalloc/zfree hooks allocate from it): FC_READER_WORK_SIZE bytes for a
 *     reader, FC_WRITER_WORK_SIZE for a compressing writer.
 *
 * Errors: every function returns an fc_status.  A reader or writer keeps its
 * first error (the same status is returned again), except FC_ERR_BUFFER,
 * after which the caller may supply a larger buffer and go on.
 * Messages carry TensorFlow's wording ("corrupted record at N", "truncated
 * record at N") followed by what TensorFlow leaves out: the record index,
 * the stored and computed CRCs, the lengths involved.  Offsets are offsets in
 * the decompressed stream, as TensorFlow prints them.
 *
 * Where this reader is stricter than TensorFlow (all of it documented in
 * README.md): a file that ends inside a record header, a compressed stream
 * cut short, and bytes after the end of a ZLIB stream are errors here, where
 * TensorFlow reads them as a clean end of file.
 */
#ifndef FEATC_FC_RECORD_H
#define FEATC_FC_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "fc_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fc_compression {
    FC_COMPRESSION_NONE = 0, /* TensorFlow's "" */
    FC_COMPRESSION_ZLIB = 1, /* TensorFlow's "ZLIB" */
    FC_COMPRESSION_GZIP = 2, /* TensorFlow's "GZIP"; concatenated members read as one stream */
    FC_COMPRESSION_AUTO = 3  /* reader only: detect from the first bytes */
} fc_compression;

/* "NONE", "ZLIB", "GZIP", "AUTO". */
const char *fc_compression_name(fc_compression c);
/* Accepts "", "none", "zlib", "gzip", "auto" in any case; FC_ERR_ARG otherwise. */
fc_status fc_compression_parse(const char *s, fc_compression *out);

typedef enum fc_crc_policy {
    FC_CRC_VERIFY = 0,       /* both CRCs checked; a mismatch is an error (default) */
    FC_CRC_SKIP_CORRUPT = 1, /* a record whose data CRC fails is skipped and counted; a
                                length CRC failure is still an error: the record
                                boundary is lost with it */
    FC_CRC_NONE = 2          /* no CRC checked; framing and truncation still are */
} fc_crc_policy;

#define FC_RECORD_HEADER_SIZE 12u
#define FC_RECORD_FOOTER_SIZE 4u
#define FC_RECORD_OVERHEAD 16u

/* zlib's inflate state and 32 KiB window: the least a compressed reader
 * takes (a file-descriptor reader also 16 KiB of input buffer). */
#define FC_INFLATE_ARENA_MIN (48u * 1024u)
/* The inflate arena of the fastest inflate the platform may have.  On
 * x86-64 a runtime built with ISA-L (docs/runtime.md, "Compression") inflates with
 * it when the work area has room for its 86 KiB state (arena 88 KiB), and
 * with zlib otherwise; elsewhere zlib's arena. */
#if defined(__x86_64__) || defined(_M_X64)
#define FC_INFLATE_ARENA_SIZE (88u * 1024u)
#else
#define FC_INFLATE_ARENA_SIZE FC_INFLATE_ARENA_MIN
#endif
/* A reader work area: the inflate arena plus at least 16 KiB of input buffer.
 * A larger work area gives a larger input buffer (fewer read calls). */
#define FC_READER_WORK_SIZE (FC_INFLATE_ARENA_SIZE + 16u * 1024u)
/* Smallest record buffer a reader accepts. */
#define FC_READER_MIN_BUFFER 64u
/* zlib's deflate state with TensorFlow's settings (window 32 KiB, memLevel 9). */
#define FC_DEFLATE_ARENA_SIZE (400u * 1024u)
/* Smallest writer work area for a compressing file-descriptor writer: the
 * deflate arena plus at least 16 KiB of output buffer. */
#define FC_WRITER_WORK_SIZE (FC_DEFLATE_ARENA_SIZE + 16u * 1024u)

typedef struct fc_record {
    const uint8_t *data; /* the payload; valid until the next call on the reader */
    size_t length;
    uint64_t index;      /* 0-based position in the file, skipped records included */
    uint64_t offset;     /* offset of the record header in the (decompressed) stream */
} fc_record;

typedef struct fc_reader_options {
    fc_compression compression; /* default NONE, as TensorFlow; AUTO detects */
    fc_crc_policy crc_policy;   /* default FC_CRC_VERIFY */
    void *buffer;               /* record buffer: fd readers and compressed input */
    size_t buffer_size;         /* the largest record it can hold is buffer_size - 16 */
    void *work;                 /* zlib arena and compressed input buffer */
    size_t work_size;           /* compressed or AUTO: FC_READER_WORK_SIZE (or for a
                                   memory reader FC_INFLATE_ARENA_SIZE); at least
                                   FC_INFLATE_ARENA_MIN, plus 16 KiB for an fd reader */
} fc_reader_options;

/* One member of a GZIP file (RFC 1952: a file is members one after
 * another, which gzip, Python and TensorFlow 2.5+ read as one stream).  A
 * file whose members each start at a record is seekable: a reader can
 * start at any member (fc_reader_seek_member). */
typedef struct fc_gzip_member {
    uint64_t offset;        /* of the member's first byte in the compressed file */
    uint64_t stream_offset; /* of its first decompressed byte in the stream */
    uint64_t first_record;  /* index of the record starting there; FC_NO_INDEX when the
                               member starts inside a record (not a place to seek to) */
} fc_gzip_member;

/* Room for zlib's z_stream without exposing zlib.h (checked in frame.h). */
#define FC_ZSTREAM_STORAGE 192
typedef union fc_zstream_storage {
    void *align_p;
    uint64_t align_u;
    unsigned char bytes[FC_ZSTREAM_STORAGE];
} fc_zstream_storage;

/* A pull source (fc_reader_init_pull): puts up to n raw bytes at buf and
 * their count in *got (0 at the end of the input): FC_OK, or an error with
 * err filled. */
typedef fc_status (*fc_pull_fn)(void *ctx, void *buf, size_t n, size_t *got, fc_error *err);
/* Its position, when it can be moved (fc_reader_init_pull_seekable): the
 * pull function gives the raw bytes from offset on after it.  FC_OK, or an
 * error with err filled. */
typedef fc_status (*fc_seek_fn)(void *ctx, uint64_t offset, fc_error *err);

typedef struct fc_reader {
    /* All fields are private; use the functions below. */
    int source;                  /* 1 memory, 2 file descriptor */
    int fd;
    const unsigned char *src;    /* memory source */
    size_t src_len;
    size_t src_pos;
    int src_eof;                 /* no more raw input */
    int stream_done;             /* no more decoded bytes will come */
    fc_compression compression;  /* in use (after detection) */
    int detect_pending;
    fc_crc_policy crc_policy;
    unsigned char *buf;
    size_t cap;
    size_t start;                /* decoded bytes not yet consumed: buf[start, end) */
    size_t end;
    int zero_copy;               /* buf is the caller's memory itself */
    size_t prefetched;           /* buf[start, prefetched) hinted into the cache */
    uint64_t pos;                /* stream offset of buf[start] */
    uint64_t checked_to;         /* records from pos up to this offset are whole and checked */
    uint64_t next_index;
    uint64_t skipped;
    uint64_t raw_read;           /* raw bytes taken from the source */
    unsigned char *zin;
    size_t zin_cap;
    int zactive;
    int zlib_trailing;           /* bytes follow the end of a ZLIB stream */
    int zdeferred;               /* an inflate error met after output of the same call: its
                                    status, reported once that output is read (0: none) */
    int zdeferred_ret;           /* and inflate's return */
    fc_zstream_storage zs;
    fc_arena arena;              /* behind zlib's zalloc/zfree */
    int failed;
    fc_error err;
    fc_error skip_err;           /* the last record skipped under FC_CRC_SKIP_CORRUPT */
    fc_gzip_member *members;     /* fc_reader_log_members: where member starts go */
    size_t members_cap;
    uint64_t members_seen;       /* GZIP members started so far (logged or not) */
    int member_pending;          /* a member starts at the next compressed byte */
    uint64_t limit;              /* no record is handed out whose header starts here or later */
    uint64_t index_from;         /* FC_NO_INDEX: indices count from the file's start; else
                                    the offset they count from (after fc_reader_sync) */
    /* What the index or member list a read was placed by claims (fc_index.h),
     * checked as the read meets it.  claim_at: the stream offset where the
     * next check is due (UINT64_MAX: none); runs of checked records stop
     * before it, and the check runs in the reader's slow path.  claim_fn:
     * the check, linked only by the functions that place reads by claims. */
#define FC_CLAIM_RECORD 0 /* claim_fn's events: the read is at claim_at, its header read in */
#define FC_CLAIM_MEMBER 1 /* a GZIP member starts at compressed x, stream offset t */
    int (*claim_fn)(struct fc_reader *r, int event, uint64_t x, uint64_t t);
    const void *claim_list;
    size_t claim_n;
    size_t claim_next;           /* members: the next claim the read checks (an index's
                                    is the next record's number) */
    size_t claim_last;           /* members: the last one it checks, the split's end */
    size_t claim_met;            /* members: the next claim no member start has met */
    size_t claim_bad;            /* members: the first claim a member start belied */
    uint64_t claim_at;
    uint64_t claim_x, claim_t;   /* members: the member start that belied claim_bad
                                    (compressed, stream offset) */
    int keeping;                 /* fc_reader_keep: records from keep_from stay in place */
    size_t keep_from;
    fc_pull_fn pull;             /* fc_reader_init_pull: the source, read as an fd is */
    fc_seek_fn pull_seek;        /* fc_reader_init_pull_seekable: lseek's stand-in */
    void *pull_ctx;
} fc_reader;

/* A reader over bytes in memory.  Uncompressed: zero copy, no buffer needed.
 * Compressed (or AUTO that finds compression): opt->buffer and opt->work are
 * required.  err (may be NULL) receives the reason of a failed init. */
fc_status fc_reader_init_mem(fc_reader *r, const void *data, size_t len,
                             const fc_reader_options *opt, fc_error *err);

/* A streaming reader over a file descriptor (the caller keeps ownership of
 * fd).  opt->buffer is required; opt->work when compressed or AUTO. */
fc_status fc_reader_init_fd(fc_reader *r, int fd, const fc_reader_options *opt, fc_error *err);

/* A streaming reader over a pull source: fn(ctx, ...) gives the raw bytes
 * in order, as read() gives a file descriptor's (a socket, a Python file
 * object, bytes arriving in pieces).  As fc_reader_init_fd otherwise,
 * except that nothing seeks.  fn may return FC_AGAIN (no bytes now, more
 * later: a non-blocking socket): fc_reader_next then returns FC_AGAIN and,
 * called again, goes on where it stopped. */
fc_status fc_reader_init_pull(fc_reader *r, fc_pull_fn fn, void *ctx, const fc_reader_options *opt,
                              fc_error *err);

/* The same over a pull source that seek(ctx, offset) can move (a byte
 * range request, a seekable file object): fc_reader_seek and
 * fc_reader_seek_member, and the index and member-list parts placed by
 * them (fc_index.h), move it as they move a file descriptor. */
fc_status fc_reader_init_pull_seekable(fc_reader *r, fc_pull_fn fn, fc_seek_fn seek, void *ctx,
                                       const fc_reader_options *opt, fc_error *err);

/* The next record: FC_OK with *rec filled, FC_END at a clean end of the
 * stream, or an error (details in fc_reader_error()). */
fc_status fc_reader_next(fc_reader *r, fc_record *rec);

/* After FC_ERR_BUFFER (a record larger than the buffer; the message names the
 * size needed): move to a larger buffer and call fc_reader_next() again.
 * The unread bytes are copied over; the old buffer is no longer used. */
fc_status fc_reader_set_buffer(fc_reader *r, void *buffer, size_t buffer_size);
/* Buffer size needed by the record that failed with FC_ERR_BUFFER (with
 * the bytes kept before it, below), else 0. */
size_t fc_reader_needed(const fc_reader *r);

/* Keeping records in place, for a batch of views: after fc_reader_keep(r),
 * the records fc_reader_next hands out stay in the buffer, in order, until
 * the next fc_reader_keep or fc_reader_keep_end (or a seek).  When the
 * buffer must make room, the kept records move to its front together:
 * fc_reader_kept(r) is where the first one's header now starts (NULL when
 * not keeping), so a caller holding views adds the difference of two
 * answers to each.  A record that does not fit beside the kept ones is
 * FC_ERR_BUFFER, with fc_reader_needed counting both.  Over memory nothing
 * moves.  Costs a comparison per record, and a move of the kept bytes per
 * buffer refill. */
void fc_reader_keep(fc_reader *r);
void fc_reader_keep_end(fc_reader *r);
const unsigned char *fc_reader_kept(const fc_reader *r);

const fc_error *fc_reader_error(const fc_reader *r);
/* The compression in use (the detected one after AUTO, once known). */
fc_compression fc_reader_compression(const fc_reader *r);
/* A stream reader with AUTO: reads its first bytes now and decides (else
 * the first read does), so that fc_reader_compression knows before the
 * reader is placed.  FC_OK (also when there is nothing to detect). */
fc_status fc_reader_detect(fc_reader *r);
/* Records skipped under FC_CRC_SKIP_CORRUPT, and the reason for the last one. */
uint64_t fc_reader_skipped(const fc_reader *r);
const fc_error *fc_reader_last_skip(const fc_reader *r);
/* Records returned or skipped so far. */
uint64_t fc_reader_count(const fc_reader *r);
/* Offset in the decompressed stream of the next unread byte. */
uint64_t fc_reader_offset(const fc_reader *r);
/* Raw (compressed) bytes consumed so far. */
uint64_t fc_reader_raw_offset(const fc_reader *r);
/* Bytes of the zlib work area used at most (for sizing embedded budgets). */
size_t fc_reader_arena_peak(const fc_reader *r);
/* The inflater a compressed reader runs: "isa-l" or "zlib" ("zlib" too
 * after zlib took over a damaged stream from ISA-L); NULL for an
 * uncompressed stream, and under FC_COMPRESSION_AUTO before the first
 * record. */
const char *fc_reader_inflater(const fc_reader *r);
/* The inflaters this program can run: "isa-l+zlib" (ISA-L where the work
 * area holds it, zlib otherwise), "zlib", or "none" (FC_NO_ZLIB). */
const char *fc_inflate_impl(void);

/* ------------------------------------------------ push reader
 *
 * Bytes that arrive in pieces of any size (a UART, a socket, a radio) are
 * pushed in; whole, CRC-checked records come out, in the caller's record
 * buffer, with fc_reader's errors and offsets (it is an fc_reader over the
 * pushed bytes).  No allocation; freestanding (FC_NO_POSIX) too.
 *
 *     fc_stream_init(&s, &opt, &err);              opt.buffer: the record buffer
 *     on each piece:  fc_stream_push(&s, piece, n);
 *                     while ((st = fc_stream_next(&s, &rec)) == FC_OK) use(rec);
 *                     st == FC_AGAIN: the piece is taken, wait for the next
 *     at the end:     fc_stream_finish(&s); then fc_stream_next as above,
 *                     which ends with FC_END, or an error for a stream cut short
 *
 * A pushed piece is read where it is (not copied ahead): it must stay as it
 * is until fc_stream_next returns FC_AGAIN, and pushing before that is
 * FC_ERR_STATE.  A record larger than the buffer is FC_ERR_BUFFER naming
 * the size, as the reader's.  ZLIB and GZIP (or AUTO) inflate through
 * zlib in opt.work (at least FC_STREAM_WORK_SIZE bytes); ISA-L is not used
 * here, because its recovery rereads a damaged member from the source. */
typedef struct fc_stream {
    fc_reader reader;          /* private, as every field */
    const unsigned char *in;   /* the pushed piece not yet taken */
    size_t in_len;
    int finished;              /* fc_stream_finish: the input ends after the piece */
} fc_stream;

/* zlib's arena and 16 KiB of compressed input: a compressed stream's work area. */
#define FC_STREAM_WORK_SIZE (FC_INFLATE_ARENA_MIN + 16u * 1024u)

fc_status fc_stream_init(fc_stream *s, const fc_reader_options *opt, fc_error *err);
/* The next piece (n may be 0).  FC_OK; FC_ERR_STATE when the last piece
 * is not taken yet or after fc_stream_finish. */
fc_status fc_stream_push(fc_stream *s, const void *bytes, size_t n);
/* No bytes follow the last piece pushed. */
fc_status fc_stream_finish(fc_stream *s);
/* The next record (valid until the next call), FC_AGAIN when every pushed
 * byte is taken and no whole record is left, FC_END after fc_stream_finish
 * at a clean end, or the reader's error (fc_stream_error). */
fc_status fc_stream_next(fc_stream *s, fc_record *rec);
const fc_error *fc_stream_error(const fc_stream *s);
/* Bytes pushed and taken so far, and the stream offset of the next record
 * (as fc_reader_raw_offset and fc_reader_offset). */
uint64_t fc_stream_taken(const fc_stream *s);
uint64_t fc_stream_offset(const fc_stream *s);

/* ------------------------------------------------ random access and splits
 *
 * A split [begin, end) of a file owns the records whose header starts at an
 * offset in [begin, end).  Cut a file into ranges that cover it, read each
 * with fc_reader_range(), and every record is read by exactly one range, in
 * file order (docs/record-tools.md, "Splits").  None of this allocates; all of it
 * reads uncompressed bytes in memory (a memory-mapped file), except
 * fc_reader_seek and fc_reader_set_limit, which also work on a file
 * descriptor, and fc_reader_set_limit on any reader. */

/* fc_reader_next() returns FC_END instead of a record whose header starts
 * at stream offset limit or later (UINT64_MAX: no limit, the default). */
fc_status fc_reader_set_limit(fc_reader *r, uint64_t limit);

/* Goes to the record whose header is at offset, known to be a record start
 * (from an index, or fc_record.offset of an earlier read); index is that
 * record's index in the file, or FC_NO_INDEX when unknown (indices then
 * count from 0 there, as after fc_reader_sync).  The next read checks the
 * record as usual: an offset that is not a record start fails there with
 * "corrupted record at <offset>".  An uncompressed memory or
 * file-descriptor reader; FC_ERR_UNSUPPORTED for a compressed one. */
fc_status fc_reader_seek(fc_reader *r, uint64_t offset, uint64_t index);

/* Walks the record headers from the reader's position (the start of the
 * file for a new reader) to the first record that starts at offset or
 * later: exact, with record indices kept, at the cost of reading one
 * 12-byte header per record skipped.  A damaged header on the way stops the
 * walk there, and the next read reports it as a sequential read would. */
fc_status fc_reader_skip_to(fc_reader *r, uint64_t offset);

/* Finds, without an index and without reading what comes before, the first
 * record that starts at offset or later and before the limit, by the
 * framing's own checksums: a candidate at q has an intact header (its
 * masked length CRC matches and the record fits in the data), its data CRC
 * matches, and after it comes the end of the data or another intact
 * header.  Of the candidates, the first whose chain of headers stays intact
 * for FC_SYNC_CONFIRM_BYTES (or to the limit, or to the end) is taken;
 * when none does, the first candidate is taken and the read reports the
 * break.  FC_OK positioned at it, with record indices counted from there
 * (fc_reader_index_known() is 0); FC_END when no candidate starts before
 * the limit.
 *
 * Random bytes pass as a candidate with a probability near 2^-96 per
 * offset.  TFRecord bytes stored inside a record (a TFRecord file in a
 * bytes feature) are real candidates: the chain test rejects them when
 * their chain ends within FC_SYNC_CONFIRM_BYTES; a longer one is taken
 * for a record start.  fc_reader_skip_to and an index are exact; a reader
 * of every split can also check that each split starts where the one
 * before it ended (docs/record-tools.md, "Splits").  Needs the CRCs: FC_ERR_ARG under
 * FC_CRC_NONE. */
fc_status fc_reader_sync(fc_reader *r, uint64_t offset);
#define FC_SYNC_CONFIRM_BYTES (1u << 20)

typedef enum fc_sync_method {
    FC_SYNC_WALK = 0,    /* fc_reader_skip_to: exact, reads every header before begin */
    FC_SYNC_CHECKSUM = 1 /* fc_reader_sync: reads from begin only */
} fc_sync_method;

/* A new reader on the split [begin, end): the limit set to end, and the
 * reader positioned by the method at the first record from begin (a split
 * from 0 at offset 0, without a sync: a sync there could pass over records
 * whose chain breaks).  A reader of one checksum-synced split can check
 * the junction with the next (fc_input does: docs/record-tools.md, "Splits"). */
fc_status fc_reader_range(fc_reader *r, uint64_t begin, uint64_t end, fc_sync_method method);

/* 1 when fc_record.index counts from the file's start, 0 after a sync. */
int fc_reader_index_known(const fc_reader *r);

/* A GZIP reader (memory or file descriptor) goes to member m, which must
 * start at a record (m->first_record known): decompression restarts
 * there, and the next record is m->first_record at m->stream_offset.  An
 * offset that is not a member start fails the next read in inflate(). */
fc_status fc_reader_seek_member(fc_reader *r, const fc_gzip_member *m);

/* Records in log[0..cap) where each GZIP member the reader meets from now
 * on starts (first_record FC_NO_INDEX: the caller matches stream_offset
 * with the records it reads); fc_reader_members() counts them all, logged
 * or not. */
void fc_reader_log_members(fc_reader *r, fc_gzip_member *log, size_t cap);
uint64_t fc_reader_members(const fc_reader *r);

/* A read-only memory map of a whole file, for fc_reader_init_mem(). */
typedef struct fc_mapped_file {
    const uint8_t *data; /* NULL for an empty file */
    size_t size;
} fc_mapped_file;

fc_status fc_map_file(const char *path, fc_mapped_file *map, fc_error *err);
/* The same over an open file descriptor (the caller keeps it). */
fc_status fc_map_fd(int fd, fc_mapped_file *map, fc_error *err);
void fc_unmap_file(fc_mapped_file *map);

/* ------------------------------------------------------------------ writer */

/* Compression level: 0 means zlib's default (6, as TensorFlow); 1..9 that
 * level; FC_LEVEL_STORE stores without compressing (zlib level 0). */
#define FC_LEVEL_STORE (-1)

typedef struct fc_writer_options {
    fc_compression compression; /* NONE, ZLIB or GZIP */
    int level;
    /* GZIP only: end the gzip member after a record once it holds
     * member_records records, or member_bytes decompressed bytes (0: no such
     * limit; both 0: one member, as TensorFlow writes).  Every member then
     * starts at a record: the file is seekable by member. */
    uint64_t member_records;
    uint64_t member_bytes;
    void *work;                 /* compressed: deflate arena (+ output buffer for fd) */
    size_t work_size;           /* FC_DEFLATE_ARENA_SIZE for memory, FC_WRITER_WORK_SIZE for fd;
                                   uncompressed fd writers buffer output in it when given */
} fc_writer_options;

typedef struct fc_writer {
    /* All fields are private; use the functions below. */
    int sink;                    /* 1 memory, 2 file descriptor */
    int fd;
    unsigned char *dst;          /* memory sink */
    size_t dst_cap;
    size_t dst_len;
    fc_compression compression;
    unsigned char *out;          /* fd sink staging buffer (may be NULL when uncompressed) */
    size_t out_cap;
    size_t out_len;
    int zactive;
    fc_zstream_storage zs;
    fc_arena arena;              /* behind zlib's zalloc/zfree */
    uint64_t records;
    uint64_t durable_records;    /* uncompressed fd: records whole in the fd */
    uint64_t buffered_records;   /* uncompressed fd: whole records in out */
    uint64_t durable_bytes;      /* uncompressed fd: where the last whole record ends */
    uint64_t stream_bytes;       /* uncompressed bytes framed so far */
    uint64_t sink_bytes;         /* bytes handed to the fd or memory */
    uint64_t member_records;     /* the options' member limits */
    uint64_t member_bytes;
    uint64_t members;            /* GZIP members started */
    fc_gzip_member member;       /* the last one started */
    int member_ended;            /* that member is finished; the next record starts one */
    int closed;
    int failed;
    fc_error err;
} fc_writer;

fc_status fc_writer_init_fd(fc_writer *w, int fd, const fc_writer_options *opt, fc_error *err);
fc_status fc_writer_init_mem(fc_writer *w, void *dst, size_t cap, const fc_writer_options *opt,
                             fc_error *err);
/* Frames and writes one record.  An uncompressed memory writer writes a
 * record whole or not at all (FC_ERR_NO_SPACE leaves earlier records intact).
 * A file-descriptor writer buffers whole records; when a write to the fd
 * fails (a full disk), the error says how many records reached the file
 * whole and which accepted ones were lost, and every later call fails with
 * it.  fc_writer_durable() gives that count. */
fc_status fc_writer_write(fc_writer *w, const void *data, size_t len);
/* Pushes everything written so far to the sink (a compressed stream is
 * sync-flushed, so a reader of the sink sees every complete record). */
fc_status fc_writer_flush(fc_writer *w);
/* Finishes the stream and flushes; the fd stays open (the caller closes it
 * and checks close()).  A second close is harmless; writes after close fail
 * with FC_ERR_CLOSED. */
fc_status fc_writer_close(fc_writer *w);
const fc_error *fc_writer_error(const fc_writer *w);
/* Bytes in the memory sink so far. */
size_t fc_writer_size(const fc_writer *w);
uint64_t fc_writer_records(const fc_writer *w);
/* File-descriptor writer: records known to be whole in the fd (all of
 * fc_writer_records() after a successful flush or close).  Uncompressed:
 * every record the buffer got out whole; compressed: the records before
 * the last successful fc_writer_flush(), which can be read back. */
uint64_t fc_writer_durable(const fc_writer *w);
size_t fc_writer_arena_peak(const fc_writer *w);
/* GZIP members started so far, and the last one: after each
 * fc_writer_write(), a count that went up means a new member began with
 * that record (how a caller writes the member index beside the file). */
uint64_t fc_writer_members(const fc_writer *w);
fc_gzip_member fc_writer_member(const fc_writer *w);

/* Frames one record into dst (16 + len bytes, uncompressed), for callers that
 * build files themselves.  Returns the bytes written, or 0 if cap is too small. */
size_t fc_record_frame(void *dst, size_t cap, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_RECORD_H */
