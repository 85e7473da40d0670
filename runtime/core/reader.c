/* TFRecord reader: records from memory, a file descriptor or a pull
 * function, uncompressed or through zlib's or ISA-L's inflate.  See
 * featc/fc_record.h for the contract; seek.c places a reader, frame.h holds
 * what the record files share.
 *
 * Security model: the bytes read are untrusted.  Every length field is
 * checked against what is actually available before it is used; sizes are
 * computed in uint64_t and compared without overflow; nothing is allocated, so
 * a hostile length can at worst produce an error naming the size it asked for.
 */
#include "frame.h"

#include <errno.h>
#include <limits.h>

#ifndef FC_NO_POSIX
#include <unistd.h>
#endif

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

#ifndef FC_NO_ZLIB
static fc_status reader_zstart_with(fc_reader *r, fc_error *err, int isal)
{
    z_stream *zs = rzs(r);
    int bits = r->compression == FC_COMPRESSION_GZIP ? 15 + 16 : 15;
    int ret;
#ifdef FC_ISAL
    if (isal && r->arena.size >= ISAL_ARENA) {
        isal_slot k;
        memset(&k, 0, sizeof k);
        k.st = (struct inflate_state *)fc_arena_alloc(&r->arena, sizeof(isal_room));
        if (k.st == NULL) /* never: checked at compile time */
            return init_fail(r, err, FC_ERR_NO_MEMORY, "no room for ISA-L's inflate state");
        isal_begin(r, k.st);
        memcpy(r->zs.bytes, &k, sizeof k);
        r->zactive = 2;
        r->member_pending = 1;
        return FC_OK;
    }
#else
    (void)isal;
#endif
    memset(zs, 0, sizeof *zs);
    zs->zalloc = fc_zarena_alloc;
    zs->zfree = fc_zarena_free;
    zs->opaque = &r->arena;
    ret = inflateInit2(zs, bits);
    if (ret != Z_OK) {
        fc_msg m = fc_error_begin(&r->err, ret == Z_MEM_ERROR ? FC_ERR_NO_MEMORY : FC_ERR_INFLATE,
                                  FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "inflateInit2() failed with error ");
        fc_msg_i64(&m, ret);
        if (ret == Z_MEM_ERROR) {
            fc_msg_str(&m, ": the work area of ");
            fc_msg_u64(&m, r->arena.size);
            fc_msg_str(&m, " bytes is too small for zlib's state");
        }
        r->failed = 1;
        copy_error(err, &r->err);
        return (fc_status)r->err.status;
    }
    r->zactive = 1;
    r->member_pending = 1;
    return FC_OK;
}

static fc_status reader_zstart(fc_reader *r, fc_error *err)
{
    return reader_zstart_with(r, err, 1);
}
#endif

/* Reads up to n raw bytes from the fd (or pull source) into p; 0 at end of
 * file.  FC_AGAIN (a pull source with nothing now, fc_stream's between two
 * pushes) fails nothing: the read resumes where it stopped. */
static fc_status fd_read(fc_reader *r, unsigned char *p, size_t n, size_t *got)
{
    if (r->pull != NULL) {
        fc_status st = r->pull(r->pull_ctx, p, n, got, &r->err);
        if (st == FC_AGAIN) {
            *got = 0;
            return FC_AGAIN;
        }
        if (st != FC_OK || *got > n) {
            if (st == FC_OK) {
                fc_msg m = fc_error_begin(&r->err, FC_ERR_IO, r->next_index, r->raw_read);
                fc_msg_str(&m, "the source gave more bytes than were asked for");
                st = FC_ERR_IO;
            }
            r->failed = 1;
            return st;
        }
        r->raw_read += (uint64_t)*got;
        return FC_OK;
    }
#ifndef FC_NO_POSIX
    for (;;) {
        ssize_t k = read(r->fd, p, n);
        if (k >= 0) {
            *got = (size_t)k;
            r->raw_read += (uint64_t)k;
            return FC_OK;
        }
        if (errno == EINTR)
            continue;
        {
            fc_msg m = fc_error_begin(&r->err, FC_ERR_IO, r->next_index, r->raw_read);
            r->err.sys_errno = errno;
            fc_msg_str(&m, "read failed at file offset ");
            fc_msg_u64(&m, r->raw_read);
            fc_msg_str(&m, " (errno ");
            fc_msg_i64(&m, errno);
            fc_msg_str(&m, ")");
        }
        r->failed = 1;
        return FC_ERR_IO;
    }
#else
    (void)p;
    (void)n;
    *got = 0;
    {
        fc_msg m = fc_error_begin(&r->err, FC_ERR_UNSUPPORTED, r->next_index, r->raw_read);
        fc_msg_str(&m, "reading a file descriptor is not available in this build (FC_NO_POSIX)");
    }
    r->failed = 1;
    return FC_ERR_UNSUPPORTED;
#endif
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
    st = reader_zstart(r, err);
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
        return reader_zstart(r, err);
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
        fc_status st = fd_read(r, r->buf + n, FC_RECORD_HEADER_SIZE - n, &got);
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
        fc_status st = reader_zstart(r, NULL);
        if (st != FC_OK)
            return st;
    }
    zin_set(r, r->zin, n);
    return FC_OK;
#endif
}

#ifndef FC_NO_ZLIB
/* Makes raw input available to inflate; sets src_eof when there is none. */
static fc_status reader_zrefill(fc_reader *r)
{
    if (zin_left(r) > 0 || r->src_eof)
        return FC_OK;
    if (r->source == SRC_MEM) {
        size_t left = r->src_len - r->src_pos;
        size_t take = left > (size_t)UINT_MAX ? (size_t)UINT_MAX : left;
        if (take == 0) {
            r->src_eof = 1;
            return FC_OK;
        }
        zin_set(r, r->src + r->src_pos, take);
        r->src_pos += take;
        r->raw_read += take;
        return FC_OK;
    } else {
        size_t got;
        size_t want = r->zin_cap > (size_t)UINT_MAX ? (size_t)UINT_MAX : r->zin_cap;
        fc_status st = fd_read(r, r->zin, want, &got);
        if (st != FC_OK)
            return st;
        if (got == 0) {
            r->src_eof = 1;
            return FC_OK;
        }
        zin_set(r, r->zin, got);
        return FC_OK;
    }
}

static uint64_t reader_zoffset(fc_reader *r)
{
    return r->raw_read - zin_left(r);
}

/* An inflate error: "WHAT failed with error RET: TEXT (...)", TEXT being
 * zlib's message (or, for ISA-L, zlib's words for its kind of error). */
static fc_status reader_zerror_text(fc_reader *r, int status, const char *what, int ret,
                                    const char *text, const char *note)
{
    fc_msg m = fc_error_begin(&r->err, status, r->next_index, r->pos + (r->end - r->start));
    fc_msg_str(&m, what);
    if (ret != Z_OK) {
        fc_msg_str(&m, " failed with error ");
        fc_msg_i64(&m, ret);
        if (text != NULL) {
            fc_msg_str(&m, ": ");
            fc_msg_str(&m, text);
        }
    }
    fc_msg_str(&m, " (");
    fc_msg_str(&m, fc_compression_name(r->compression));
    fc_msg_str(&m, " stream, compressed offset ");
    fc_msg_u64(&m, reader_zoffset(r));
    fc_msg_str(&m, ", decompressed offset ");
    fc_msg_u64(&m, r->pos + (r->end - r->start));
    fc_msg_str(&m, ")");
    if (note != NULL)
        fc_msg_str(&m, note);
    r->failed = 1;
    return (fc_status)status;
}

static fc_status reader_zerror(fc_reader *r, int status, const char *what, int ret,
                               const char *note)
{
    return reader_zerror_text(r, status, what, ret,
                              ret != Z_OK && r->zactive == 1 ? rzs(r)->msg : NULL, note);
}

/* inflate failed with ret.  After output of the same call (buf[entry_end,
 * end)): the output first, as when the input came in smaller pieces and an
 * earlier call gave it, so that what is reported does not depend on how
 * the input was cut (a damaged record before the damage in the stream is
 * reported as itself); the error when the reader asks for more. */
static fc_status reader_zfail(fc_reader *r, int ret, size_t entry_end)
{
    r->zdeferred = ret == Z_MEM_ERROR ? FC_ERR_NO_MEMORY : FC_ERR_INFLATE;
    r->zdeferred_ret = ret;
    if (r->end > entry_end)
        return FC_OK;
    return reader_zerror(r, r->zdeferred, "inflate()", ret, NULL);
}

/* A GZIP member starts at the next compressed byte: count it, and log it. */
static void reader_member_begins(fc_reader *r)
{
    r->member_pending = 0;
#ifdef FC_ISAL
    if (r->zactive == 2) {
        isal_slot k = slot_of(r);
        k.member_raw = reader_zoffset(r);
        k.member_pos = r->pos + (r->end - r->start);
        memcpy(r->zs.bytes, &k, sizeof k);
    }
#endif
    if (r->compression != FC_COMPRESSION_GZIP)
        return;
    if (r->claim_fn != NULL)
        (void)r->claim_fn(r, FC_CLAIM_MEMBER, reader_zoffset(r), r->pos + (r->end - r->start));
    if (r->members_seen < (uint64_t)r->members_cap) {
        fc_gzip_member *m = &r->members[r->members_seen];
        m->offset = reader_zoffset(r);
        m->stream_offset = r->pos + (r->end - r->start);
        m->first_record = FC_NO_INDEX;
    }
    r->members_seen++;
}

/* What a compressed stream cut short is reported as, by either inflater. */
#define TRUNCATED_TEXT \
    "truncated compressed stream: the input ends before the end of the compressed data"

/* At the end of a zlib stream or gzip member, either inflater: 1 when the
 * stream is done (*s FC_OK: the input ends, or it is a ZLIB stream, whose
 * trailing bytes are an error reported once the records decoded so far are
 * read; *s an error: the refill failed), 0 when a GZIP member follows. */
static int reader_stream_ends(fc_reader *r, fc_status *s)
{
    *s = reader_zrefill(r);
    if (*s != FC_OK)
        return 1;
    if (zin_left(r) == 0 && r->src_eof) {
        r->stream_done = 1;
        return 1;
    }
    if (r->compression == FC_COMPRESSION_ZLIB) {
        r->zlib_trailing = 1;
        r->stream_done = 1;
        return 1;
    }
    return 0;
}

#ifdef FC_ISAL
/* zlib's words for ISA-L's kinds of error (zlib tells more cases apart). */
static const char *isal_text(int ret)
{
    switch (ret) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid literal/length code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "invalid compressed data";
    }
}

static fc_status reader_inflate_more(fc_reader *r);
static fc_status reader_inflate_zlib(fc_reader *r, size_t entry_end);

/* Whether zlib can take over from the start of the member: the input is in
 * memory, a pull source that can seek, or a file descriptor that can (not a
 * pipe). */
static int isal_can_rewind(const fc_reader *r)
{
    if (r->source == SRC_MEM || r->pull_seek != NULL)
        return 1;
    if (r->pull != NULL)
        return 0;
#ifndef FC_NO_POSIX
    return lseek(r->fd, 0, SEEK_CUR) != (off_t)-1;
#else
    return 0;
#endif
}

/* ISA-L found the stream damaged or cut short.  zlib reports such a stream
 * differently (it hands out what it decoded before the damage, which ISA-L
 * may hold back, and words more kinds of damage), so zlib takes over: from
 * the start of the member (or ZLIB stream), its output up to what ISA-L
 * gave dropped, then on as zlib reads it.  A file descriptor that cannot
 * go back (a pipe) keeps ISA-L's error, passed in. */
static fc_status isal_takeover(fc_reader *r, fc_status isal_error, size_t entry_end)
{
    isal_slot k = slot_of(r);
    uint64_t want, got = 0;
    size_t keep_start = r->start, keep_end = r->end;
    z_stream *zs;
    int ret = Z_OK;
    if (r->source == SRC_MEM) {
        r->src_pos = (size_t)k.member_raw;
    } else if (r->pull_seek != NULL) {
        if (r->pull_seek(r->pull_ctx, k.member_raw, NULL) != FC_OK)
            return isal_error;
    } else if (r->pull != NULL) {
        return isal_error;
    } else {
#ifndef FC_NO_POSIX
        uint64_t back = r->raw_read - k.member_raw; /* what the fd read from the member on */
        if (back > (uint64_t)INT64_MAX || lseek(r->fd, -(off_t)back, SEEK_CUR) == (off_t)-1)
            return isal_error;
#else
        return isal_error;
#endif
    }
    r->failed = 0; /* the error ISA-L set is not the one reported */
    fc_error_clear(&r->err);
    r->raw_read = k.member_raw;
    r->src_eof = 0;
    fc_arena_reset(&r->arena);
    if (reader_zstart_with(r, NULL, 0) != FC_OK)
        return (fc_status)r->err.status;
    zs = rzs(r);
    zs->next_in = Z_NULL;
    zs->avail_in = 0;
    r->member_pending = 0; /* counted and logged already */
    want = r->pos + (keep_end - keep_start) - k.member_pos;
    while (got < want) { /* zlib's output that ISA-L gave: dropped */
        unsigned char sink[1024];
        fc_status st = reader_zrefill(r);
        if (st != FC_OK)
            return st;
        zs->next_out = sink;
        zs->avail_out = (uInt)(want - got < sizeof sink ? want - got : sizeof sink);
        ret = inflate(zs, Z_NO_FLUSH);
        got += (uint64_t)(zs->next_out - sink);
        if ((ret != Z_OK && ret != Z_BUF_ERROR) || (zs->avail_in == 0 && r->src_eof))
            break;
    }
    r->start = keep_start;
    r->end = keep_end;
    if (got < want) {
        /* zlib stops sooner: ISA-L took bytes zlib refuses (a distance
         * reaching before the stream's start, which ISA-L reads as zeros).
         * What zlib did not produce goes, where still in the buffer. */
        uint64_t at = k.member_pos + got;
        if (at >= r->pos)
            r->end = r->start + (size_t)(at - r->pos);
        if (ret == Z_STREAM_END)
            return reader_inflate_zlib(r, entry_end); /* it ends the member there */
        if (ret != Z_OK && ret != Z_BUF_ERROR)
            return reader_zfail(r, ret, entry_end);
        return reader_zerror(r, FC_ERR_TRUNCATED,
                             TRUNCATED_TEXT,
                             Z_OK, NULL);
    }
    if (ret == Z_STREAM_END)
        return reader_inflate_zlib(r, entry_end); /* the member's end, met again there */
    if (ret != Z_OK && ret != Z_BUF_ERROR) /* the damage, just past ISA-L's output */
        return reader_zfail(r, ret, entry_end);
    if (r->end == r->cap)
        return FC_OK; /* no room: the next fill goes on with zlib */
    return reader_inflate_zlib(r, entry_end);
}

/* Whether isal_inflate's return is progress (or none, for want of input or
 * room); anything else, an error or a request for a preset dictionary, is
 * where zlib takes over. */
static int isal_progress(int ret)
{
    return ret == ISAL_DECOMP_OK || ret == ISAL_END_INPUT || ret == ISAL_OUT_OVERFLOW;
}

/* isal_inflate failed with ret: zlib takes over; where it cannot, the error
 * in zlib's words (Z_NEED_DICT for a preset dictionary, which zlib reports
 * as error 2; Z_DATA_ERROR with zlib's reason otherwise). */
static fc_status isal_failed(fc_reader *r, int ret, size_t entry_end)
{
    fc_status e = ret == ISAL_NEED_DICT
                      ? reader_zerror(r, FC_ERR_INFLATE, "inflate()", Z_NEED_DICT, NULL)
                      : reader_zerror_text(r, FC_ERR_INFLATE, "inflate()", Z_DATA_ERROR,
                                           isal_text(ret), NULL);
    return isal_takeover(r, e, entry_end);
}

/* reader_inflate_more with ISA-L: the same steps and messages. */
static fc_status reader_inflate_more_isal(fc_reader *r)
{
    struct inflate_state *st = ris(r);
    size_t room = r->cap - r->end, entry_end = r->end;
    st->next_out = r->buf + r->end;
    st->avail_out = room > (size_t)UINT32_MAX ? UINT32_MAX : (uint32_t)room;
    for (;;) {
        uint32_t before = st->avail_out, in_before;
        int ret;
        fc_status s = reader_zrefill(r);
        if (s != FC_OK)
            return s;
        if (r->member_pending && (st->avail_in > 0 || !r->src_eof)) {
            reader_member_begins(r);
            /* zlib rejects a member at its first wrong magic byte (ISA-L
             * waits for a whole header first, so that garbage shorter than
             * one would read as a stream cut short), and one with reserved
             * flags set (ISA-L ignores them): zlib takes over */
            if (r->compression == FC_COMPRESSION_GZIP && st->avail_in > 0 &&
                (st->next_in[0] != 0x1f || (st->avail_in > 1 && st->next_in[1] != 0x8b) ||
                 (st->avail_in > 3 && (st->next_in[3] & 0xe0) != 0)))
                return isal_takeover(r, reader_zerror_text(r, FC_ERR_INFLATE, "inflate()",
                                                           Z_DATA_ERROR,
                                                           "incorrect header check", NULL),
                                     entry_end);
        }
        in_before = st->avail_in;
        ret = ISAL_DECOMP_OK;
        if (st->crc_flag == ISAL_GZIP && !st->wrapper_flag) /* the member's header (frame.h) */
            ret = isal_read_gzip_header(st, &((isal_room *)(void *)st)->gz);
        if (ret == ISAL_DECOMP_OK)
            ret = isal_inflate(st);
        r->end = (size_t)(st->next_out - r->buf);
        if (!isal_progress(ret))
            return isal_failed(r, ret, entry_end);
        if (st->block_state == ISAL_BLOCK_FINISH) {
            /* End of one zlib stream or gzip member, its trailer checked.
             * Whole bytes ISA-L read ahead into its bit buffer are given
             * back (after a ZLIB stream it keeps some), so that what
             * follows starts where zlib would find it. */
            uint32_t ahead = (uint32_t)(st->read_in_length / 8);
            const unsigned char *chunk = r->source == SRC_MEM ? r->src : r->zin;
            if (ahead > 0 && (size_t)(st->next_in - chunk) >= ahead) {
                st->next_in -= ahead;
                st->avail_in += ahead;
                st->read_in_length = 0;
                st->read_in = 0;
            }
            if (reader_stream_ends(r, &s))
                return s;
            { /* GZIP: another member follows; read it as part of the same stream */
                uint8_t *in = st->next_in, *out = st->next_out;
                uint32_t in_left = st->avail_in, out_left = st->avail_out;
                isal_begin(r, st);
                st->next_in = in;
                st->avail_in = in_left;
                st->next_out = out;
                st->avail_out = out_left;
            }
            r->member_pending = 1;
            if (r->end > entry_end)
                return FC_OK;
            continue;
        }
        if (st->avail_out < before) {
            /* the data ended: zlib checks the trailer in the same call,
             * before the last records are read, even with no output room
             * left (ISA-L then waits: it is given one byte it will not
             * use, nothing being left to write) */
            if ((st->block_state == ISAL_BLOCK_INPUT_DONE ||
                 st->block_state == ISAL_CHECKSUM_CHECK) &&
                (st->avail_in > 0 || !r->src_eof)) {
                if (st->avail_out > 0)
                    continue;
                /* only with nothing pending: a match ISA-L has still to
                 * copy (or a held literal) would be written to the spare
                 * byte and read back from before it */
                if (st->tmp_out_valid == st->tmp_out_processed &&
                    st->copy_overflow_length == 0 && st->write_overflow_len == 0) {
                    uint8_t spare, *out = st->next_out;
                    st->next_out = &spare;
                    st->avail_out = 1;
                    s = reader_zrefill(r);
                    if (s != FC_OK)
                        return s;
                    ret = isal_inflate(st);
                    st->next_out = out;
                    st->avail_out = 0;
                    if (!isal_progress(ret))
                        return isal_failed(r, ret, entry_end);
                }
            }
            if (st->avail_in == 0 && r->src_eof && isal_can_rewind(r))
                /* the input ended before ISA-L finished the stream, which
                 * it reports a call later; zlib may find a bad trailer in
                 * the call that gives this output: zlib decides */
                return isal_takeover(r, reader_zerror(r, FC_ERR_TRUNCATED, TRUNCATED_TEXT, Z_OK,
                                                      NULL),
                                     entry_end);
            return FC_OK;
        }
        if (st->avail_in == 0 && r->src_eof) {
            /* The input ended before ISA-L finished the stream.  Where zlib
             * can take over, it decides, in the call that gives this output:
             * the output first, or a bad trailer.  On a pipe, the output
             * first, then ISA-L's error. */
            if (r->end > entry_end && !isal_can_rewind(r))
                return FC_OK;
            return isal_takeover(r, reader_zerror(r, FC_ERR_TRUNCATED, TRUNCATED_TEXT, Z_OK,
                                                  NULL),
                                 entry_end);
        }
        if (st->avail_in == in_before && in_before > 0) /* never seen: no endless loop */
            return reader_zerror_text(r, FC_ERR_INFLATE, "inflate()", Z_DATA_ERROR,
                                      "no progress", NULL);
    }
}
#endif

/* Inflates into buf[end, cap) until some output was produced or the stream ended. */
/* zlib's inflate into the buffer's free room.  entry_end: where the output
 * of this call began (before the output ISA-L gave, when zlib has just taken
 * over), so that a stream cut short after new output hands that output out
 * first, as one zlib call producing all of it would. */
static fc_status reader_inflate_zlib(fc_reader *r, size_t entry_end)
{
    z_stream *zs = rzs(r);
    if (r->zdeferred != 0) /* the output before it is read: now the error */
        return reader_zerror(r, r->zdeferred, "inflate()", r->zdeferred_ret, NULL);
    zs->next_out = r->buf + r->end;
    zs->avail_out = (uInt)((r->cap - r->end) > (size_t)UINT_MAX ? UINT_MAX : (r->cap - r->end));
    for (;;) {
        uInt before = zs->avail_out;
        int ret;
        fc_status st = reader_zrefill(r);
        if (st != FC_OK)
            return st;
        if (r->member_pending && (zs->avail_in > 0 || !r->src_eof))
            reader_member_begins(r);
        ret = inflate(zs, Z_NO_FLUSH);
        r->end = (size_t)(zs->next_out - r->buf);
        if (ret == Z_STREAM_END) {
            /* End of one zlib stream or gzip member. */
            if (reader_stream_ends(r, &st))
                return st;
            /* GZIP: another member follows; read it as part of the same stream. */
            ret = inflateReset(zs);
            if (ret != Z_OK)
                return reader_zerror(r, FC_ERR_INFLATE, "inflateReset()", ret, NULL);
            r->member_pending = 1;
            if (zs->avail_out < before || r->end > entry_end)
                return FC_OK; /* the output first, as the call that gave it would */
            continue;
        }
        if (ret == Z_OK) {
            if (zs->avail_out < before)
                return FC_OK;
            continue;
        }
        if (ret == Z_BUF_ERROR) {
            if (zs->avail_in == 0 && r->src_eof && r->end > entry_end)
                return FC_OK; /* the end is met next time */
            if (zs->avail_in == 0 && r->src_eof)
                return reader_zerror(r, FC_ERR_TRUNCATED,
                                     TRUNCATED_TEXT,
                                     Z_OK, NULL);
            continue;
        }
        return reader_zfail(r, ret, entry_end);
    }
}

static fc_status reader_inflate_more(fc_reader *r)
{
#ifdef FC_ISAL
    if (r->zactive == 2)
        return reader_inflate_more_isal(r);
#endif
    return reader_inflate_zlib(r, r->end);
}
#endif

/* Ensures buf[start, end) holds at least `need` bytes, unless the stream ends
 * first.  FC_ERR_BUFFER (not sticky) when need exceeds the buffer.  An
 * uncompressed source is asked for as much as the buffer holds, or with
 * exact for the missing bytes alone (fc_reader_fill_to: a remote source pays
 * for what it is asked). */
static fc_status reader_fill_as(fc_reader *r, uint64_t need, int exact)
{
    size_t from = r->keeping ? r->keep_from : r->start; /* (the bytes to keep) */
    if ((uint64_t)(r->end - r->start) >= need || r->zero_copy)
        return FC_OK;
    if (need > (uint64_t)(r->cap - (r->start - from)))
        return FC_ERR_BUFFER;
    if ((uint64_t)(r->cap - r->start) < need) {
        memmove(r->buf, r->buf + from, r->end - from);
        r->end -= from;
        r->start -= from;
        r->keep_from = 0;
    }
    while ((uint64_t)(r->end - r->start) < need && !r->stream_done) {
        if (r->compression == FC_COMPRESSION_NONE) {
            size_t got;
            fc_status st = fd_read(r, r->buf + r->end,
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
            fc_status st = reader_inflate_more(r);
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
        return reader_zerror(r, FC_ERR_INFLATE, "trailing data after the end of the ZLIB stream",
                             Z_OK,
                             "; TensorFlow ignores such bytes, featc reports them because "
                             "records there would be lost silently");
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
#ifdef FC_ISAL
    if (r->zactive == 2 && isal_can_rewind(r)) {
        fc_error found = r->err;
        /* from the damaged record on, the output is what this call gave */
        fc_status st = isal_takeover(r, (fc_status)found.status, r->start);
        if (st == FC_ERR_INFLATE || st == FC_ERR_NO_MEMORY)
            return st;
        r->err = found;
    }
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
            fc_msg_u64(&m, r->start - r->keep_from);
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
            if (r->keeping && r->start > r->keep_from) {
                fc_msg_str(&m, ", beside ");
                fc_msg_u64(&m, r->start - r->keep_from);
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
    size_t pending, from;
    if (r == NULL || buffer == NULL || r->zero_copy || r->failed)
        return FC_ERR_ARG;
    from = r->keeping ? r->keep_from : r->start;
    pending = r->end - from;
    if (buffer_size < FC_READER_MIN_BUFFER || buffer_size < pending)
        return FC_ERR_ARG;
    memmove(buffer, r->buf + from, pending);
    r->buf = (unsigned char *)buffer;
    r->cap = buffer_size;
    r->start -= from;
    r->end = pending;
    r->keep_from = 0;
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
    return (size_t)(le64(hdr) + FC_RECORD_OVERHEAD) + (r->keeping ? r->start - r->keep_from : 0);
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

