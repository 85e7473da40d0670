/* The reader's decompression: zlib's inflate, and ISA-L's where the program
 * linked it (frame.h: its state beside the reader's arena, zlib taking over
 * where ISA-L meets damage or a stream cut short, so that errors read as
 * zlib's), GZIP members one after another, a ZLIB stream's trailing bytes.
 * reader.c frames the records it inflates (inflate.h is what it calls); a
 * new codec, or an inflater on another thread, goes here.
 *
 * The compressed bytes are untrusted: the inflaters bound every length by
 * the room given to them; nothing is allocated beyond the caller's arena. */
#include "frame.h"
#include "inflate.h"

#include <limits.h>

#ifndef FC_NO_POSIX
#include <unistd.h>
#endif

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
        if (k.st == NULL) { /* never: checked at compile time */
            fc_msg m = fc_error_begin(&r->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "no room for ISA-L's inflate state");
            r->failed = 1;
            copy_error(err, &r->err);
            return FC_ERR_NO_MEMORY;
        }
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

fc_status fc_inflate_start(fc_reader *r, fc_error *err)
{
    return reader_zstart_with(r, err, 1);
}

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
        fc_status st = fc_source_read(r, r->zin, want, &got);
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

fc_status fc_inflate_more(fc_reader *r)
{
#ifdef FC_ISAL
    if (r->zactive == 2)
        return reader_inflate_more_isal(r);
#endif
    return reader_inflate_zlib(r, r->end);
}

fc_status fc_inflate_trailing(fc_reader *r)
{
    return reader_zerror(r, FC_ERR_INFLATE, "trailing data after the end of the ZLIB stream",
                         Z_OK,
                         "; TensorFlow ignores such bytes, featc reports them because "
                         "records there would be lost silently");
}

int fc_inflate_reread(fc_reader *r, fc_status *st)
{
#ifdef FC_ISAL
    if (r->zactive == 2 && isal_can_rewind(r)) {
        fc_error found = r->err;
        /* from the damaged record on, the output is what this call gave */
        *st = isal_takeover(r, (fc_status)found.status, r->start);
        if (*st == FC_ERR_INFLATE || *st == FC_ERR_NO_MEMORY)
            return 1;
        r->err = found;
    }
#else
    (void)r;
    (void)st;
#endif
    return 0;
}

#else
typedef int fc_inflate_none_; /* (FC_NO_ZLIB: no inflater; ISO C wants a declaration) */
#endif /* FC_NO_ZLIB */
