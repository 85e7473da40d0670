/* Placing a TFRecord reader: seeking to a record, splits by byte range
 * (walking the headers, or syncing on their CRCs), GZIP members, and the
 * claims of an index that the reader checks as it goes (fc_record.h). */
#include "frame.h"

#include <errno.h>

#ifndef FC_NO_POSIX
#include <unistd.h>
#endif

/* ---------------------------------------------- random access and splits */

/* The longest stream a reader is placed in (2^62 bytes, records): so that
 * offsets and record numbers counted on from a place never wrap. */
#define FC_STREAM_MAX ((uint64_t)1 << 62)

/* A reader that can be positioned anywhere: uncompressed bytes in memory. */
static fc_status need_memory(fc_reader *r, const char *what)
{
    fc_msg m;
    if (r->zero_copy)
        return FC_OK;
    m = fc_error_begin(&r->err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, what);
    fc_msg_str(&m, " needs an uncompressed stream in memory (fc_reader_init_mem); this reader ");
    fc_msg_str(&m, r->source == SRC_FD ? "reads a file descriptor" : "decompresses");
    return reader_fail(r);
}

/* Moves a stream reader's source to offset: lseek on its file descriptor,
 * or its pull source's seek function.  FC_OK, or the reader failed. */
static fc_status source_seek(fc_reader *r, uint64_t offset, const char *what)
{
    fc_msg m;
    if (r->pull != NULL) {
        fc_status st;
        if (r->pull_seek != NULL) {
            st = r->pull_seek(r->pull_ctx, offset, &r->err);
            if (st == FC_OK)
                return FC_OK;
            r->failed = 1;
            return st;
        }
        m = fc_error_begin(&r->err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, offset);
        fc_msg_str(&m, "cannot seek to ");
        fc_msg_str(&m, what);
        fc_msg_str(&m, " ");
        fc_msg_u64(&m, offset);
        fc_msg_str(&m, ": this reader reads a stream that cannot be moved "
                       "(fc_reader_init_pull_seekable can)");
        return reader_fail(r);
    }
#ifndef FC_NO_POSIX
    {
        off_t to = (off_t)offset;
        if (offset <= (uint64_t)INT64_MAX && (uint64_t)to == offset &&
            lseek(r->fd, to, SEEK_SET) != (off_t)-1)
            return FC_OK;
    }
    m = fc_error_begin(&r->err, FC_ERR_IO, FC_NO_INDEX, offset);
    r->err.sys_errno = errno;
    fc_msg_str(&m, "cannot seek to ");
    fc_msg_str(&m, what);
    fc_msg_str(&m, " ");
    fc_msg_u64(&m, offset);
    fc_msg_str(&m, " (errno ");
    fc_msg_i64(&m, errno);
    fc_msg_str(&m, ")");
#else
    m = fc_error_begin(&r->err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, offset);
    fc_msg_str(&m, "cannot seek a file descriptor in this build (FC_NO_POSIX)");
#endif
    return reader_fail(r);
}

/* A reader placed anew reads without the claims of an index or member list
 * until the function that placed it sets them again (fc_index.h). */
static void reader_unclaim(fc_reader *r)
{
    r->claim_fn = NULL;
    r->claim_list = NULL;
    r->claim_n = 0;
    r->claim_at = UINT64_MAX;
}

/* Puts a memory reader at offset, with the index of the record there. */
static void reader_place(fc_reader *r, uint64_t offset, uint64_t index, uint64_t index_from)
{
    reader_unclaim(r);
    r->keeping = 0;
    r->start = (size_t)offset;
    r->pos = offset;
    r->checked_to = offset;
    r->prefetched = (size_t)offset;
    r->next_index = index;
    r->index_from = index_from;
}

fc_status fc_reader_set_limit(fc_reader *r, uint64_t limit)
{
    if (r == NULL || r->source == 0)
        return FC_ERR_ARG;
    r->limit = limit;
    if (r->checked_to > r->pos)
        r->checked_to = r->pos; /* a run checked ahead may reach past the limit */
    return FC_OK;
}

fc_status fc_reader_seek(fc_reader *r, uint64_t offset, uint64_t index)
{
    if (r == NULL || r->source == 0)
        return FC_ERR_ARG;
    if (r->failed)
        return (fc_status)r->err.status;
    if (r->source == SRC_FD && r->compression == FC_COMPRESSION_NONE && !r->detect_pending) {
        reader_unclaim(r);
        if (source_seek(r, offset, "offset") != FC_OK)
            return (fc_status)r->err.status;
        r->start = r->end = r->prefetched = 0;
        r->keeping = 0;
        r->pos = r->checked_to = r->raw_read = offset;
        r->src_eof = r->stream_done = 0;
        r->next_index = index == FC_NO_INDEX ? 0 : index;
        r->index_from = index == FC_NO_INDEX ? offset : FC_NO_INDEX;
        return FC_OK;
    }
    if (need_memory(r, "fc_reader_seek") != FC_OK)
        return (fc_status)r->err.status;
    if (offset > (uint64_t)r->src_len) {
        fc_msg m = fc_error_begin(&r->err, FC_ERR_ARG, FC_NO_INDEX, offset);
        fc_msg_str(&m, "cannot seek to offset ");
        fc_msg_u64(&m, offset);
        fc_msg_str(&m, ": the stream has ");
        fc_msg_u64(&m, r->src_len);
        fc_msg_str(&m, " bytes");
        return reader_fail(r);
    }
    if (index == FC_NO_INDEX)
        reader_place(r, offset, 0, offset);
    else
        reader_place(r, offset, index, FC_NO_INDEX);
    return FC_OK;
}

/* The header at p (12 bytes there) is intact: its masked CRC matches, and
 * its record fits in the n bytes from p. */
static int header_ok(const unsigned char *p, size_t n)
{
    return n >= FC_RECORD_OVERHEAD && le64(p) <= (uint64_t)(n - FC_RECORD_OVERHEAD) &&
           length_crc_ok(p);
}

fc_status fc_reader_skip_to(fc_reader *r, uint64_t offset)
{
    if (r == NULL || r->source == 0)
        return FC_ERR_ARG;
    if (r->failed)
        return (fc_status)r->err.status;
    if (need_memory(r, "fc_reader_skip_to") != FC_OK)
        return (fc_status)r->err.status;
    /* Headers only: each data CRC is the business of the split that owns
     * the record.  A header that is damaged or runs past the end stops the
     * walk where it is, and the next read reports it as a sequential read
     * would: the record boundaries after it are lost. */
    while (r->pos < offset) {
        const unsigned char *hdr = r->buf + r->start;
        size_t avail = r->end - r->start;
        uint64_t length;
        if (r->crc_policy != FC_CRC_NONE ? !header_ok(hdr, avail)
                                         : avail < FC_RECORD_OVERHEAD ||
                                               le64(hdr) > (uint64_t)(avail - FC_RECORD_OVERHEAD))
            break;
        length = le64(hdr);
        r->start += (size_t)length + FC_RECORD_OVERHEAD;
        r->pos += length + FC_RECORD_OVERHEAD;
        r->next_index++;
    }
    r->checked_to = r->pos;
    if (r->prefetched < r->start)
        r->prefetched = r->start;
    return FC_OK;
}

/* A candidate for fc_reader_sync at data[q]: an intact header, its data
 * CRC, and after the record either the end of the data or another intact
 * header (whose record need not fit: a file cut short still syncs). */
static int sync_candidate(const unsigned char *data, size_t size, size_t q)
{
    size_t length, next;
    if (!header_ok(data + q, size - q))
        return 0;
    length = (size_t)le64(data + q);
    if (fc_crc32c_mask(fc_crc32c(0, data + q + FC_RECORD_HEADER_SIZE, length)) !=
        le32(data + q + FC_RECORD_HEADER_SIZE + length))
        return 0;
    next = q + length + FC_RECORD_OVERHEAD;
    return next == size ||
           (size - next >= FC_RECORD_HEADER_SIZE && length_crc_ok(data + next));
}

/* Follows the chain of intact headers from q up to bound (or the end of
 * the data, or FC_SYNC_CONFIRM_BYTES): SIZE_MAX when it holds that far,
 * else the offset where it breaks. */
static size_t sync_chain_break(const unsigned char *data, size_t size, size_t q, uint64_t bound)
{
    uint64_t stop = (uint64_t)q + FC_SYNC_CONFIRM_BYTES;
    if (stop > bound)
        stop = bound;
    while ((uint64_t)q < stop && q != size) {
        if (!header_ok(data + q, size - q))
            return q;
        q += (size_t)le64(data + q) + FC_RECORD_OVERHEAD;
    }
    return SIZE_MAX;
}

fc_status fc_reader_sync(fc_reader *r, uint64_t offset)
{
    const unsigned char *data;
    size_t size, q, first = SIZE_MAX, on_broken = SIZE_MAX, broken_at = SIZE_MAX;
    uint64_t bound;
    if (r == NULL || r->source == 0)
        return FC_ERR_ARG;
    if (r->failed)
        return (fc_status)r->err.status;
    if (need_memory(r, "fc_reader_sync") != FC_OK)
        return (fc_status)r->err.status;
    if (r->crc_policy == FC_CRC_NONE) {
        fc_msg m = fc_error_begin(&r->err, FC_ERR_ARG, FC_NO_INDEX, offset);
        fc_msg_str(&m, "fc_reader_sync finds records by their CRCs; it cannot work under "
                       "FC_CRC_NONE");
        return reader_fail(r);
    }
    data = r->buf;
    size = r->src_len;
    bound = r->limit < (uint64_t)size ? r->limit : (uint64_t)size;
    q = offset < bound ? (size_t)offset : (size_t)bound;
    for (; (uint64_t)q < bound && size - q >= FC_RECORD_OVERHEAD; q++) {
        size_t brk;
        if (q == on_broken) {
            /* on the chain of a candidate already found to break: so does this one */
            if (q == broken_at)
                on_broken = SIZE_MAX;
            else
                on_broken = q + (size_t)le64(data + q) + FC_RECORD_OVERHEAD;
            continue;
        }
        /* the length must fit before its CRC is worth computing: in 1 GB
         * of random bytes, about one offset in 2^34 gets that far */
        if (le64(data + q) > (uint64_t)(size - q - FC_RECORD_OVERHEAD) ||
            !sync_candidate(data, size, q))
            continue;
        if (first == SIZE_MAX)
            first = q;
        brk = sync_chain_break(data, size, q, bound);
        if (brk == SIZE_MAX) {
            reader_place(r, q, 0, q);
            return FC_OK;
        }
        on_broken = q + (size_t)le64(data + q) + FC_RECORD_OVERHEAD;
        broken_at = brk;
    }
    if (first != SIZE_MAX) {
        /* Every candidate's chain breaks before the limit: the first one is
         * taken, and the read reports the break where it comes (a damaged
         * record, or a false start that TFRecord bytes inside a record made). */
        reader_place(r, first, 0, first);
        return FC_OK;
    }
    /* No record starts in [offset, limit): the split owns none. */
    reader_place(r, bound, 0, bound);
    return FC_END;
}

fc_status fc_reader_range(fc_reader *r, uint64_t begin, uint64_t end, fc_sync_method method)
{
    fc_status s;
    if (r == NULL || r->source == 0 || begin > end || (unsigned)method > FC_SYNC_CHECKSUM)
        return FC_ERR_ARG;
    if (r->failed)
        return (fc_status)r->err.status;
    s = fc_reader_set_limit(r, end);
    if (s != FC_OK)
        return s;
    /* a range from the file's start starts at its first record: a sync
     * there would pass over records whose chain breaks (damage) for a
     * later one whose chain holds */
    if (method == FC_SYNC_WALK || begin == 0)
        return fc_reader_skip_to(r, begin);
    s = fc_reader_sync(r, begin);
    return s == FC_END ? FC_OK : s;
}

int fc_reader_index_known(const fc_reader *r)
{
    return r->index_from == FC_NO_INDEX;
}

fc_status fc_reader_seek_member(fc_reader *r, const fc_gzip_member *m)
{
    if (r == NULL || m == NULL || r->source == 0)
        return FC_ERR_ARG;
    if (r->failed)
        return (fc_status)r->err.status;
    if (r->detect_pending) {
        fc_status st = fc_reader_detect_fd(r);
        if (st != FC_OK) {
            r->failed = 1;
            return st;
        }
    }
    if (m->stream_offset > FC_STREAM_MAX || (m->first_record > FC_STREAM_MAX &&
                                               m->first_record != FC_NO_INDEX)) {
        /* no stream is that long: offsets past it would wrap as records are read */
        fc_msg e = fc_error_begin(&r->err, FC_ERR_ARG, FC_NO_INDEX, m->offset);
        fc_msg_str(&e, "cannot go to the GZIP member at compressed offset ");
        fc_msg_u64(&e, m->offset);
        fc_msg_str(&e, ": its stream offset ");
        fc_msg_u64(&e, m->stream_offset);
        fc_msg_str(&e, " or record number ");
        fc_msg_u64(&e, m->first_record);
        fc_msg_str(&e, " is past 2^62");
        return reader_fail(r);
    }
#ifndef FC_NO_ZLIB
    if (r->compression == FC_COMPRESSION_GZIP && r->zactive && m->first_record != FC_NO_INDEX &&
        (r->source != SRC_MEM || m->offset <= (uint64_t)r->src_len)) {
        z_stream *zs = rzs(r);
        if (r->source == SRC_FD) {
            if (source_seek(r, m->offset, "compressed offset") != FC_OK)
                return (fc_status)r->err.status;
        } else {
            r->src_pos = (size_t)m->offset;
        }
        reader_unclaim(r);
#ifdef FC_ISAL
        if (r->zactive == 2)
            isal_begin(r, ris(r));
        else
#endif
            (void)inflateReset(zs);
        zin_set(r, NULL, 0);
        r->raw_read = m->offset;
        r->src_eof = r->stream_done = r->zlib_trailing = 0;
        r->start = r->end = r->prefetched = 0;
        r->keeping = 0;
        r->pos = r->checked_to = m->stream_offset;
        r->next_index = m->first_record;
        r->index_from = FC_NO_INDEX;
        r->member_pending = 1;
        return FC_OK;
    }
#endif
    {
        fc_msg e = fc_error_begin(&r->err, FC_ERR_ARG, FC_NO_INDEX, m->offset);
        fc_msg_str(&e, "cannot go to the GZIP member at compressed offset ");
        fc_msg_u64(&e, m->offset);
        fc_msg_str(&e, r->compression != FC_COMPRESSION_GZIP
                           ? ": this reader does not read GZIP"
                           : m->first_record == FC_NO_INDEX
                                 ? ": that member starts inside a record"
                                 : ": past the end of the data");
        return reader_fail(r);
    }
}

void fc_reader_log_members(fc_reader *r, fc_gzip_member *log, size_t cap)
{
    r->members = log;
    r->members_cap = log == NULL ? 0 : cap;
}

uint64_t fc_reader_members(const fc_reader *r)
{
    return r->members_seen;
}

