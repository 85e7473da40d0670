/* TFRecord reader: records from memory, a file descriptor or a pull
 * function, uncompressed or inflated (inflate.c: zlib's or ISA-L's, behind
 * inflate.h).  See featc/fc_record.h for the contract; seek.c places a
 * reader, frame.h holds what the record files share.
 *
 * Security model: the bytes read are untrusted.  Every length field is
 * checked against what is actually available before it is used; sizes are
 * computed in uint64_t and compared without overflow; nothing is allocated, so
 * a hostile length can at worst produce an error naming the size it asked for.
 */
#include "frame.h"
#include "inflate.h"

#include <limits.h>

/* ------------------------------------------------------------------ reader */

static fc_status init_fail(fc_reader *r, fc_error *err, int status, const char *what)
{
    fc_msg m = fc_error_begin(&r->err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, what);
    r->failed = 1;
    copy_error(err, &r->err);
    return (fc_status)status;
}

static void reader_zero(fc_reader *r)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->limit = UINT64_MAX;
    r->claim_at = UINT64_MAX;
    r->index_from = FC_NO_INDEX;
    fc_error_clear(&r->err);
    fc_error_clear(&r->skip_err);
}


/* Looks at the first raw bytes and picks NONE, ZLIB or GZIP.  A valid TFRecord
 * header wins over everything (its first bytes may look like a magic number);
 * otherwise the gzip magic, then a valid zlib header; otherwise NONE, and the
 * header check will report what is wrong. */
static fc_compression detect(const unsigned char *p, size_t n)
{
    if (n >= FC_RECORD_HEADER_SIZE && length_crc_ok(p))
        return FC_COMPRESSION_NONE;
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return FC_COMPRESSION_GZIP;
    if (n >= 2 && (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 && ((p[0] << 8) | p[1]) % 31 == 0)
        return FC_COMPRESSION_ZLIB;
    return FC_COMPRESSION_NONE;
}

static fc_status reader_setup(fc_reader *r, const fc_reader_options *opt, fc_error *err)
{
    int compressed_possible = r->compression != FC_COMPRESSION_NONE;
    int need_buffer = r->source == SRC_FD || compressed_possible;
    if (need_buffer) {
        if (opt == NULL || opt->buffer == NULL || opt->buffer_size < FC_READER_MIN_BUFFER)
            return init_fail(r, err, FC_ERR_ARG,
                             "a record buffer of at least FC_READER_MIN_BUFFER bytes is required "
                             "for a file-descriptor or compressed reader");
        r->buf = (unsigned char *)opt->buffer;
        r->cap = opt->buffer_size;
    }
    if (compressed_possible) {
#ifdef FC_NO_ZLIB
        return init_fail(r, err, FC_ERR_UNSUPPORTED,
                         "this build of the featc runtime has no zlib (FC_NO_ZLIB)");
#else
        size_t input = r->source == SRC_FD ? ZIN_MIN : 0, arena = FC_INFLATE_ARENA_MIN;
        if (opt->work == NULL || opt->work_size < FC_INFLATE_ARENA_MIN + input) {
            fc_msg m = fc_error_begin(&r->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "a compressed reader needs a work area of at least ");
            fc_msg_u64(&m, FC_INFLATE_ARENA_MIN + input);
            fc_msg_str(&m, " bytes (");
            fc_msg_u64(&m, FC_INFLATE_ARENA_SIZE + input);
            fc_msg_str(&m, " for the fastest inflate), got ");
            fc_msg_u64(&m, opt->work == NULL ? 0 : opt->work_size);
            r->failed = 1;
            copy_error(err, &r->err);
            return FC_ERR_NO_MEMORY;
        }
#ifdef FC_ISAL
        if (opt->work_size >= ISAL_ARENA + input && isal_linked())
            arena = ISAL_ARENA; /* zstart then takes ISA-L */
#endif
        fc_arena_init(&r->arena, opt->work, arena);
        if (r->source == SRC_FD) {
            r->zin = (unsigned char *)opt->work + arena;
            r->zin_cap = opt->work_size - arena;
        }
#endif
    }
    return FC_OK;
}

fc_status fc_reader_init_mem(fc_reader *r, const void *data, size_t len,
                             const fc_reader_options *opt, fc_error *err)
{
    fc_status st;
    if (r == NULL)
        return FC_ERR_ARG;
    reader_zero(r);
    r->source = SRC_MEM;
    r->src = (const unsigned char *)data;
    r->src_len = data == NULL ? 0 : len;
    r->compression = opt != NULL ? opt->compression : FC_COMPRESSION_NONE;
    r->crc_policy = opt != NULL ? opt->crc_policy : FC_CRC_VERIFY;
    if ((unsigned)r->compression > FC_COMPRESSION_AUTO || (unsigned)r->crc_policy > FC_CRC_NONE)
        return init_fail(r, err, FC_ERR_ARG, "unknown compression or CRC policy");
    if (r->compression == FC_COMPRESSION_AUTO) {
        r->compression = detect(r->src, r->src_len);
    }
    st = reader_setup(r, opt, err);
    if (st != FC_OK)
        return st;
    if (r->compression == FC_COMPRESSION_NONE) {
        /* Zero copy: the caller's bytes are the buffer. */
        r->zero_copy = 1;
        r->buf = (unsigned char *)(uintptr_t)r->src;
        r->cap = r->src_len;
        r->start = 0;
        r->end = r->src_len;
        r->src_pos = r->src_len;
        r->raw_read = r->src_len;
        r->src_eof = 1;
        r->stream_done = 1;
        return FC_OK;
    }
#ifndef FC_NO_ZLIB
    st = fc_inflate_start(r, err);
    if (st != FC_OK)
        return st;
#endif
    return FC_OK;
}

/* A streaming reader: a file descriptor, or a pull source (fd -1). */
static fc_status reader_init_stream(fc_reader *r, int fd, fc_pull_fn fn, void *ctx,
                                   const fc_reader_options *opt, fc_error *err)
{
    fc_status st;
    reader_zero(r);
    r->source = SRC_FD;
    r->fd = fd;
    r->pull = fn;
    r->pull_ctx = ctx;
    r->compression = opt != NULL ? opt->compression : FC_COMPRESSION_NONE;
    r->crc_policy = opt != NULL ? opt->crc_policy : FC_CRC_VERIFY;
    if (fd < 0 && fn == NULL)
        return init_fail(r, err, FC_ERR_ARG, "invalid file descriptor");
    if ((unsigned)r->compression > FC_COMPRESSION_AUTO || (unsigned)r->crc_policy > FC_CRC_NONE)
        return init_fail(r, err, FC_ERR_ARG, "unknown compression or CRC policy");
    st = reader_setup(r, opt, err);
    if (st != FC_OK)
        return st;
    if (r->compression == FC_COMPRESSION_AUTO) {
        r->detect_pending = 1; /* done on the first read */
        return FC_OK;
    }
#ifndef FC_NO_ZLIB
    if (r->compression != FC_COMPRESSION_NONE)
        return fc_inflate_start(r, err);
#endif
    return FC_OK;
}

fc_status fc_reader_init_pull_seekable(fc_reader *r, fc_pull_fn fn, fc_seek_fn seek, void *ctx,
                                       const fc_reader_options *opt, fc_error *err)
{
    fc_status st = fc_reader_init_pull(r, fn, ctx, opt, err);
    if (st == FC_OK)
        r->pull_seek = seek;
    return st;
}

fc_status fc_reader_init_fd(fc_reader *r, int fd, const fc_reader_options *opt, fc_error *err)
{
    if (r == NULL)
        return FC_ERR_ARG;
    return reader_init_stream(r, fd < 0 ? -1 : fd, NULL, NULL, opt, err);
}

fc_status fc_reader_init_pull(fc_reader *r, fc_pull_fn fn, void *ctx, const fc_reader_options *opt,
                              fc_error *err)
{
    if (r == NULL)
        return FC_ERR_ARG;
    if (fn == NULL) {
        reader_zero(r);
        return init_fail(r, err, FC_ERR_ARG, "no pull function");
    }
    return reader_init_stream(r, -1, fn, ctx, opt, err);
}

/* Detection for a fd source: read up to 12 bytes into the record buffer,
 * decide, and hand them to the decompressor if needed.  The bytes so far
 * are kept in buf[0, end), so that a read stopped by FC_AGAIN resumes. */
fc_status fc_reader_detect_fd(fc_reader *r)
{
    size_t n = r->end;
    while (n < FC_RECORD_HEADER_SIZE) {
        size_t got;
        fc_status st = fc_source_read(r, r->buf + n, FC_RECORD_HEADER_SIZE - n, &got);
        if (st != FC_OK) {
            r->end = n;
            return st;
        }
        if (got == 0) {
            r->src_eof = 1;
            break;
        }
        n += got;
    }
    r->detect_pending = 0;
    r->end = 0;
    r->compression = detect(r->buf, n);
    if (r->compression == FC_COMPRESSION_NONE) {
        r->start = 0;
        r->end = n;
        if (r->src_eof)
            r->stream_done = 1;
        return FC_OK;
    }
#ifdef FC_NO_ZLIB
    return FC_ERR_UNSUPPORTED;
#else
    memcpy(r->zin, r->buf, n);
    {
        fc_status st = fc_inflate_start(r, NULL);
        if (st != FC_OK)
            return st;
    }
    zin_set(r, r->zin, n);
    return FC_OK;
#endif
}


/* The bytes of records kept before buf[start] (fc_reader_keep). */
static size_t kept_bytes(const fc_reader *r)
{
    return r->keeping ? r->start - r->keep_from : 0;
}

/* Moves the kept and unread bytes to the front of dst (the buffer itself,
 * or a larger one), which becomes the buffer. */
static void reader_move_to(fc_reader *r, unsigned char *dst)
{
    size_t from = r->start - kept_bytes(r);
    memmove(dst, r->buf + from, r->end - from);
    r->buf = dst;
    r->end -= from;
    r->start -= from;
    r->keep_from = 0;
}

/* Ensures buf[start, end) holds at least `need` bytes, unless the stream ends
 * first.  FC_ERR_BUFFER (not sticky) when need exceeds the buffer.  An
 * uncompressed source is asked for as much as the buffer holds, or with
 * exact for the missing bytes alone (fc_reader_fill_to: a remote source pays
 * for what it is asked). */
static fc_status reader_fill_as(fc_reader *r, uint64_t need, int exact)
{
    if ((uint64_t)(r->end - r->start) >= need || r->zero_copy)
        return FC_OK;
    if (need > (uint64_t)(r->cap - kept_bytes(r)))
        return FC_ERR_BUFFER;
    if ((uint64_t)(r->cap - r->start) < need)
        reader_move_to(r, r->buf);
    while ((uint64_t)(r->end - r->start) < need && !r->stream_done) {
        if (r->compression == FC_COMPRESSION_NONE) {
            size_t got;
            fc_status st = fc_source_read(r, r->buf + r->end,
                                   exact ? (size_t)(need - (r->end - r->start)) : r->cap - r->end,
                                   &got);
            if (st != FC_OK)
                return st;
            if (got == 0) {
                r->src_eof = 1;
                r->stream_done = 1;
            }
            r->end += got;
        } else {
#ifndef FC_NO_ZLIB
            fc_status st = fc_inflate_more(r);
            if (st == FC_AGAIN && (uint64_t)(r->end - r->start) >= need)
                break; /* (what was inflated before the input ran out is enough) */
            if (st != FC_OK)
                return st;
#else
            return FC_ERR_UNSUPPORTED;
#endif
        }
    }
#ifndef FC_NO_ZLIB
    if (r->zlib_trailing && (uint64_t)(r->end - r->start) < need)
        return fc_inflate_trailing(r);
#endif
    return FC_OK;
}

static fc_status reader_fill(fc_reader *r, uint64_t need)
{
    return reader_fill_as(r, need, 0);
}

fc_status fc_reader_fill_to(fc_reader *r, uint64_t need)
{
    return reader_fill_as(r, need, 1);
}

/* The index of the next record for fc_error: FC_NO_INDEX after a
 * resynchronisation, where the count from the file's start is unknown. */
static uint64_t err_index(const fc_reader *r)
{
    return r->index_from == FC_NO_INDEX ? r->next_index : FC_NO_INDEX;
}

/* "N", or "N counted from offset S" after fc_reader_sync. */
static void msg_index(fc_msg *m, const fc_reader *r, uint64_t index)
{
    fc_msg_u64(m, index);
    if (r->index_from != FC_NO_INDEX) {
        fc_msg_str(m, " counted from offset ");
        fc_msg_u64(m, r->index_from);
    }
}

/* "<what> at <offset>: record <index>".  TensorFlow adds its hint to
 * header corruption at offset 0 only; so does featc. */
static void msg_record_at(fc_msg *m, const fc_reader *r, const char *what, int hint)
{
    fc_msg_str(m, what);
    fc_msg_str(m, " at ");
    fc_msg_u64(m, r->pos);
    if (r->pos == 0 && hint)
        fc_msg_str(m, " (Is this even a TFRecord file?)");
    fc_msg_str(m, ": record ");
    msg_index(m, r, r->next_index);
}

/* Hands out the record whose header is at hdr (buf[start]), checked, and
 * moves past it. */
static inline void reader_take(fc_reader *r, fc_record *rec, const unsigned char *hdr,
                               uint64_t length)
{
    rec->data = hdr + FC_RECORD_HEADER_SIZE;
    rec->length = (size_t)length;
    rec->index = r->next_index++;
    rec->offset = r->pos;
    r->start += (size_t)length + FC_RECORD_OVERHEAD;
    r->pos += length + FC_RECORD_OVERHEAD;
}

/* Hints the bytes of the records after the one just read into the cache,
 * as far ahead as that record is long, each line once: over memory (an
 * mmap'd file) the parse of one record then overlaps the loads of the
 * next.  A hint never faults and never changes a result. */
static inline void reader_prefetch(fc_reader *r, size_t ahead)
{
#if defined(__GNUC__) || defined(__clang__)
    size_t to = r->end - r->start > ahead ? r->start + ahead : r->end, at = r->prefetched;
    if (at < r->start)
        at = r->start;
    for (; at < to; at += 64)
        __builtin_prefetch(r->buf + at, 0, 3);
    if (to > r->prefetched)
        r->prefetched = to;
#else
    (void)r;
    (void)ahead;
#endif
}

/* Checking ahead.  A short record's data CRC is one chain of dependent
 * crc32 steps (about 15 for 100 bytes), each waiting on the last: checked
 * one record at a time, the latency of that chain is most of the cost of
 * reading the record.  So the reader checks the run of whole records
 * already in the buffer four at a time (fc_crc32c_records), and remembers how
 * far it got in checked_to, a stream offset: the chain of record boundaries
 * from pos is fixed by the bytes, so it stays true however the buffer moves.
 * A run stops at the first record that is not whole in the buffer or fails a
 * CRC, before a long record (AHEAD_LONG bytes or more: fc_crc32c runs three
 * streams inside it, and that record is checked alone), and after
 * AHEAD_BYTES, so that the records are still in the cache when they are
 * parsed. */
enum { AHEAD_RECORDS = 32, AHEAD_BYTES = 4096, AHEAD_LONG = 768 };

/* Checks the run of whole records from buf[start]: 1 with checked_to moved
 * past the good ones, or 0 when the first one is not whole or not good (the
 * caller's loop then words why). */
static int reader_check_ahead(fc_reader *r)
{
    const unsigned char *hdr[AHEAD_RECORDS];
    size_t len[AHEAD_RECORDS];
    size_t at = r->start, n = 0, good;
    uint64_t stop = r->limit < r->claim_at ? r->limit : r->claim_at;
#if defined(__GNUC__) || defined(__clang__)
    /* The walk below is a chain of dependent loads (each length places the
     * next header): when the bytes are not in this core's cache (another
     * thread's read(2) put them in its own), each header would wait for the
     * one before.  The lines of this run and the next are asked for at
     * once. */
    if (!r->zero_copy) {
        size_t to = r->end - at > 2u * AHEAD_BYTES ? at + 2u * AHEAD_BYTES : r->end, p;
        for (p = at; p < to; p += 64)
            __builtin_prefetch(r->buf + p, 0, 3);
    }
#endif
    /* The boundaries first: each length is bounded by the bytes there are
     * before it is used, whether or not its CRC turns out good. */
    while (n < AHEAD_RECORDS && at - r->start < AHEAD_BYTES) {
        size_t avail = r->end - at;
        uint64_t length;
        if (avail < FC_RECORD_OVERHEAD || /* also an empty source, whose buf may be NULL */
            r->pos + (at - r->start) >= stop)
            break;
        length = le64(r->buf + at);
        if (length > (uint64_t)(avail - FC_RECORD_OVERHEAD) || (length >= AHEAD_LONG && n > 0))
            break;
        hdr[n] = r->buf + at;
        len[n++] = (size_t)length;
        at += (size_t)length + FC_RECORD_OVERHEAD;
        if (length >= AHEAD_LONG)
            break;
    }
    good = r->crc_policy == FC_CRC_NONE ? n : fc_crc32c_records(hdr, len, n);
    if (good == 0)
        return 0;
    r->checked_to = r->pos + (size_t)(hdr[good - 1] - (r->buf + r->start)) + len[good - 1] +
                    FC_RECORD_OVERHEAD;
    return 1;
}

/* Hands out the record at buf[start], which a run checked. */
static inline void reader_take_checked(fc_reader *r, fc_record *rec)
{
    const unsigned char *hdr = r->buf + r->start;
    reader_take(r, rec, hdr, le64(hdr));
    if (r->zero_copy)
        reader_prefetch(r, rec->length + FC_RECORD_OVERHEAD);
}

/* Out of line, so that fc_reader_next's path for a checked record keeps its
 * registers to itself. */
#if defined(__GNUC__) || defined(__clang__)
#define FC_NOINLINE __attribute__((noinline))
#else
#define FC_NOINLINE
#endif

/* Damage found in the records of a stream ISA-L inflates.  ISA-L decodes
 * some deflate data zlib refuses (a Huffman code set that is incomplete or
 * over-subscribed), which then reads as damaged records; a zlib reader
 * would have stopped at the inflate error, in the call that gave these
 * bytes.  So zlib rereads the member first, and its inflate error, if it
 * finds one there, is the one reported. */
static fc_status reader_fail_record(fc_reader *r)
{
#ifndef FC_NO_ZLIB
    fc_status st;
    if (fc_inflate_reread(r, &st))
        return st;
#endif
    return reader_fail(r);
}

/* Everything but a record already checked: the reader's state, detection,
 * the next run, fills and errors.  When a run cannot start at buf[start]
 * (the record there is not whole in the buffer, or not good), the loop below
 * reads that record from its header and words what is wrong. */
FC_NOINLINE static fc_status reader_next_slow(fc_reader *r, fc_record *rec)
{
again:
    if (r->failed) /* (never FC_OK: a failed reader hands out no record) */
        return r->err.status != FC_OK ? (fc_status)r->err.status : FC_ERR_STATE;
    if (r->source == 0)
        return FC_ERR_ARG;
    while (r->pos >= r->claim_at) {
        /* what the index or member list says of this place (each claim due
         * here, several when they name one stream offset), checked with the
         * record header there read in (fc_index.h) */
        uint64_t was_at = r->claim_at;
        size_t was_next = r->claim_next;
        fc_status st = reader_fill(r, FC_RECORD_HEADER_SIZE);
        if (st != FC_OK) {
            r->failed = st != FC_AGAIN;
            return st;
        }
        if (r->claim_fn(r, FC_CLAIM_RECORD, 0, 0) != 0)
            return reader_fail(r);
        if (r->claim_at == was_at && r->claim_next == was_next)
            break; /* nothing more to check here: the read goes on as usual */
    }
    if (r->pos >= r->limit)
        return FC_END; /* the next record belongs to the next split */
    if (!r->detect_pending && reader_check_ahead(r)) {
        reader_take_checked(r, rec);
        return FC_OK;
    }
    if (r->detect_pending) {
        fc_status st = fc_reader_detect_fd(r);
        if (st != FC_OK) {
            r->failed = st != FC_AGAIN;
            return st;
        }
    }
    for (;;) {
        const unsigned char *hdr;
        uint64_t length, total, avail;
        fc_status st = reader_fill(r, FC_RECORD_HEADER_SIZE);
        if (st == FC_ERR_BUFFER) {
            /* only while keeping: the kept records fill the buffer */
            fc_msg m = fc_error_begin(&r->err, FC_ERR_BUFFER, err_index(r), r->pos);
            fc_msg_str(&m, "the header of record ");
            msg_index(&m, r, r->next_index);
            fc_msg_str(&m, " at offset ");
            fc_msg_u64(&m, r->pos);
            fc_msg_str(&m, " does not fit in the reader buffer of ");
            fc_msg_u64(&m, r->cap);
            fc_msg_str(&m, " bytes beside ");
            fc_msg_u64(&m, kept_bytes(r));
            fc_msg_str(&m, " bytes of records kept");
            return FC_ERR_BUFFER; /* not sticky: the kept records may go */
        }
        if (st != FC_OK) {
            r->failed = st != FC_AGAIN;
            return st;
        }
        avail = r->end - r->start;
        if (avail == 0) {
            /* a claim still due names a place past the end of the stream */
            if (r->claim_at != UINT64_MAX && r->claim_fn(r, FC_CLAIM_RECORD, 0, 0) != 0)
                return reader_fail(r);
            return FC_END;
        }
        if (avail < FC_RECORD_HEADER_SIZE) {
            fc_msg m = fc_error_begin(&r->err, FC_ERR_TRUNCATED, err_index(r), r->pos);
            msg_record_at(&m, r, "truncated record", 0);
            fc_msg_str(&m, ": the stream ends inside the 12-byte record header (");
            fc_msg_u64(&m, avail);
            fc_msg_str(&m, avail == 1 ? " byte left)" : " bytes left)");
            return reader_fail_record(r);
        }
        hdr = r->buf + r->start;
        length = le64(hdr);
        if (r->crc_policy != FC_CRC_NONE) {
            uint32_t stored = le32(hdr + 8);
            uint32_t computed = fc_crc32c_mask(fc_crc32c(0, hdr, 8));
            if (stored != computed) {
                fc_msg m = fc_error_begin(&r->err, FC_ERR_CORRUPT, err_index(r), r->pos);
                msg_record_at(&m, r, "corrupted record", 1);
                fc_msg_str(&m, ": length CRC mismatch (stored ");
                fc_msg_hex32(&m, stored);
                fc_msg_str(&m, ", computed ");
                fc_msg_hex32(&m, computed);
                fc_msg_str(&m, "; the length field reads ");
                fc_msg_u64(&m, length);
                fc_msg_str(&m, ")");
                return reader_fail_record(r);
            }
        }
        if (length > UINT64_MAX - FC_RECORD_OVERHEAD ||
            length + FC_RECORD_OVERHEAD > (uint64_t)SIZE_MAX) {
            fc_msg m = fc_error_begin(&r->err, FC_ERR_TOO_LARGE, err_index(r), r->pos);
            fc_msg_str(&m, "record size too large");
            if (r->pos == 0)
                fc_msg_str(&m, " (Is this even a TFRecord file?)");
            fc_msg_str(&m, ": record ");
            msg_index(&m, r, r->next_index);
            fc_msg_str(&m, " at offset ");
            fc_msg_u64(&m, r->pos);
            fc_msg_str(&m, " declares ");
            fc_msg_u64(&m, length);
            fc_msg_str(&m, " data bytes");
            return reader_fail_record(r);
        }
        total = length + FC_RECORD_OVERHEAD;
        st = reader_fill(r, total);
        if (st == FC_ERR_BUFFER) {
            fc_msg m = fc_error_begin(&r->err, FC_ERR_BUFFER, err_index(r), r->pos);
            fc_msg_str(&m, "record ");
            msg_index(&m, r, r->next_index);
            fc_msg_str(&m, " at offset ");
            fc_msg_u64(&m, r->pos);
            fc_msg_str(&m, " needs a buffer of ");
            fc_msg_u64(&m, total);
            fc_msg_str(&m, " bytes (");
            fc_msg_u64(&m, length);
            fc_msg_str(&m, " data + 16 framing");
            if (kept_bytes(r) > 0) {
                fc_msg_str(&m, ", beside ");
                fc_msg_u64(&m, kept_bytes(r));
                fc_msg_str(&m, " bytes of records kept");
            }
            fc_msg_str(&m, "); the reader buffer has ");
            fc_msg_u64(&m, r->cap);
            return FC_ERR_BUFFER; /* not sticky: the caller may supply a larger buffer */
        }
        if (st != FC_OK) {
            r->failed = st != FC_AGAIN;
            return st;
        }
        hdr = r->buf + r->start; /* the fill may have moved the bytes */
        avail = r->end - r->start;
        if (avail < total) {
            fc_msg m = fc_error_begin(&r->err, FC_ERR_TRUNCATED, err_index(r), r->pos);
            msg_record_at(&m, r, "truncated record", 0);
            fc_msg_str(&m, " declares ");
            fc_msg_u64(&m, length);
            fc_msg_str(&m, " data bytes and a 4-byte CRC after its header, but the stream ends ");
            fc_msg_u64(&m, avail - FC_RECORD_HEADER_SIZE);
            fc_msg_str(&m, " bytes after the header");
            return reader_fail_record(r);
        }
        if (r->crc_policy != FC_CRC_NONE) {
            const unsigned char *data = hdr + FC_RECORD_HEADER_SIZE;
            uint32_t stored = le32(data + length);
            uint32_t computed = fc_crc32c_mask(fc_crc32c(0, data, (size_t)length));
            if (stored != computed) {
                fc_error *e = r->crc_policy == FC_CRC_SKIP_CORRUPT ? &r->skip_err : &r->err;
                fc_msg m = fc_error_begin(e, FC_ERR_CORRUPT, err_index(r),
                                          r->pos + FC_RECORD_HEADER_SIZE);
                fc_msg_str(&m, "corrupted record at ");
                fc_msg_u64(&m, r->pos + FC_RECORD_HEADER_SIZE);
                fc_msg_str(&m, ": record ");
                msg_index(&m, r, r->next_index);
                fc_msg_str(&m, " (header at offset ");
                fc_msg_u64(&m, r->pos);
                fc_msg_str(&m, ", ");
                fc_msg_u64(&m, length);
                fc_msg_str(&m, " data bytes): data CRC mismatch (stored ");
                fc_msg_hex32(&m, stored);
                fc_msg_str(&m, ", computed ");
                fc_msg_hex32(&m, computed);
                fc_msg_str(&m, ")");
                if (r->crc_policy != FC_CRC_SKIP_CORRUPT)
                    return reader_fail_record(r);
                r->skipped++;
                r->next_index++;
                r->start += (size_t)total;
                r->pos += total;
                if (r->pos >= r->limit || r->pos >= r->claim_at)
                    goto again;
                continue;
            }
        }
        reader_take(r, rec, hdr, length);
        return FC_OK;
    }
}

fc_status fc_reader_next(fc_reader *r, fc_record *rec)
{
    if (r == NULL || rec == NULL)
        return FC_ERR_ARG;
    /* Only a sound reader gets past pos with checked_to: runs are checked
     * in reader_next_slow after its checks, and nothing but that function
     * (and init, which clears checked_to) fails a reader. */
    if (r->pos < r->checked_to) {
        reader_take_checked(r, rec);
        return FC_OK;
    }
    return reader_next_slow(r, rec);
}

fc_status fc_reader_set_buffer(fc_reader *r, void *buffer, size_t buffer_size)
{
    if (r == NULL || buffer == NULL || r->zero_copy || r->failed)
        return FC_ERR_ARG;
    if (buffer_size < FC_READER_MIN_BUFFER ||
        buffer_size < r->end - r->start + kept_bytes(r)) /* (what moves over) */
        return FC_ERR_ARG;
    reader_move_to(r, (unsigned char *)buffer);
    r->cap = buffer_size;
    if (r->err.status == FC_ERR_BUFFER)
        fc_error_clear(&r->err);
    return FC_OK;
}

size_t fc_reader_needed(const fc_reader *r)
{
    const unsigned char *hdr;
    if (r == NULL || r->err.status != FC_ERR_BUFFER || r->end - r->start < FC_RECORD_HEADER_SIZE)
        return 0;
    hdr = r->buf + r->start;
    return (size_t)(le64(hdr) + FC_RECORD_OVERHEAD) + kept_bytes(r);
}

void fc_reader_keep(fc_reader *r)
{
    r->keeping = 1;
    r->keep_from = r->start;
}

void fc_reader_keep_end(fc_reader *r)
{
    r->keeping = 0;
}

const unsigned char *fc_reader_kept(const fc_reader *r)
{
    return r->keeping && r->buf != NULL ? r->buf + r->keep_from : NULL;
}

const fc_error *fc_reader_error(const fc_reader *r)
{
    return &r->err;
}

fc_compression fc_reader_compression(const fc_reader *r)
{
    return r->compression;
}

fc_status fc_reader_detect(fc_reader *r)
{
    fc_status st;
    if (r == NULL || r->source == 0)
        return FC_ERR_ARG;
    if (r->failed)
        return (fc_status)r->err.status;
    if (!r->detect_pending)
        return FC_OK;
    st = fc_reader_detect_fd(r);
    if (st != FC_OK)
        r->failed = st != FC_AGAIN;
    return st;
}

uint64_t fc_reader_skipped(const fc_reader *r)
{
    return r->skipped;
}

const fc_error *fc_reader_last_skip(const fc_reader *r)
{
    return &r->skip_err;
}

uint64_t fc_reader_count(const fc_reader *r)
{
    return r->next_index;
}

uint64_t fc_reader_offset(const fc_reader *r)
{
    return r->pos;
}

uint64_t fc_reader_raw_offset(const fc_reader *r)
{
#ifndef FC_NO_ZLIB
    if (r->zactive)
        return r->raw_read - zin_left(r);
#endif
    if (r->zero_copy)
        return r->pos;
    return r->raw_read - (r->end - r->start);
}

size_t fc_reader_arena_peak(const fc_reader *r)
{
    return r->arena.peak;
}

const char *fc_reader_inflater(const fc_reader *r)
{
    switch (r->zactive) {
    case 1:
        return "zlib";
    case 2:
        return "isa-l";
    default:
        return NULL;
    }
}

const char *fc_inflate_impl(void)
{
#if defined(FC_NO_ZLIB)
    return "none";
#elif defined(FC_ISAL)
    return isal_linked() ? "isa-l+zlib" : "zlib";
#else
    return "zlib";
#endif
}

