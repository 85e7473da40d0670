/* TFRecord writer: records framed into memory or a file descriptor,
 * uncompressed or through zlib's deflate, with GZIP members the reader can
 * seek to.  See featc/fc_record.h for the contract. */
#include "frame.h"

#include <errno.h>

#ifndef FC_NO_POSIX
#include <unistd.h>
#endif

/* ------------------------------------------------------------------ writer */

enum { SINK_MEM = 1, SINK_FD = 2 };

#ifndef FC_NO_ZLIB
static z_stream *wzs(fc_writer *w)
{
    return (z_stream *)(void *)w->zs.bytes;
}
#endif

/* TensorFlow's text for a write or flush after Close(). A writer that had
 * failed before it was closed keeps its own error. */
static fc_status writer_closed(fc_writer *w)
{
    if (!w->failed) {
        fc_msg m = fc_error_begin(&w->err, FC_ERR_CLOSED, w->records, w->stream_bytes);
        fc_msg_str(&m, "Writer not initialized or previously closed");
    }
    return FC_ERR_CLOSED;
}

/* Writes all n bytes to the fd, retrying short writes and EINTR. */
static fc_status write_all(fc_writer *w, const unsigned char *p, size_t n)
{
#ifndef FC_NO_POSIX
    while (n > 0) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0) {
            fc_msg m;
            if (errno == EINTR)
                continue;
            m = fc_error_begin(&w->err, FC_ERR_IO, w->records, w->sink_bytes);
            w->err.sys_errno = errno;
            fc_msg_str(&m, "write failed after ");
            fc_msg_u64(&m, w->sink_bytes);
            fc_msg_str(&m, " bytes (errno ");
            fc_msg_i64(&m, errno);
            fc_msg_str(&m, ")");
            w->failed = 1;
            return FC_ERR_IO;
        }
        if (k == 0) {
            fc_msg m = fc_error_begin(&w->err, FC_ERR_IO, w->records, w->sink_bytes);
            fc_msg_str(&m, "write returned 0 bytes");
            w->failed = 1;
            return FC_ERR_IO;
        }
        p += k;
        n -= (size_t)k;
        w->sink_bytes += (uint64_t)k;
    }
    return FC_OK;
#else
    (void)p;
    (void)n;
    {
        fc_msg m = fc_error_begin(&w->err, FC_ERR_UNSUPPORTED, w->records, w->sink_bytes);
        fc_msg_str(&m, "writing a file descriptor is not available in this build (FC_NO_POSIX)");
    }
    w->failed = 1;
    return FC_ERR_UNSUPPORTED;
#endif
}

/* After a failed write to the fd: the error says which records reached the
 * file whole (the first durable_records) and which accepted ones were lost;
 * current: the record being written when it failed, FC_NO_INDEX if none.
 * For a compressed stream, which records reached the file is known only
 * where the stream was flushed whole (fc_writer_flush, or the start): the
 * records before the last successful flush can be read back, those
 * accepted since may be cut inside a deflate block. */
static void writer_report_loss(fc_writer *w, uint64_t current)
{
    char cause[FC_ERROR_MSG_SIZE];
    fc_msg m;
    int z = w->compression != FC_COMPRESSION_NONE;
    int sys_errno = w->err.sys_errno;
    if (w->err.status != FC_ERR_IO)
        return; /* not a failed write */
    memcpy(cause, w->err.message, sizeof cause);
    m = fc_error_begin(&w->err, (fc_status)w->err.status, w->durable_records, w->sink_bytes);
    w->err.sys_errno = sys_errno;
    fc_msg_str(&m, cause);
    fc_msg_str(&m, ": ");
    fc_msg_u64(&m, w->durable_records);
    fc_msg_str(&m, z ? " records, those accepted before the last flush, can be read back"
                     : " records reached the file whole");
    if (w->durable_records < w->records) { /* accepted: [0, records) */
        fc_msg_str(&m, "; records ");
        fc_msg_u64(&m, w->durable_records);
        fc_msg_str(&m, " to ");
        fc_msg_u64(&m, w->records - 1);
        fc_msg_str(&m, z ? ", accepted since, may be lost" : ", accepted before, were lost");
    }
    if (current != FC_NO_INDEX) {
        fc_msg_str(&m, "; record ");
        fc_msg_u64(&m, current);
        fc_msg_str(&m, " was not written");
    }
    if (z) {
        fc_msg_str(&m, " (the compressed stream is cut after ");
        fc_msg_u64(&m, w->sink_bytes);
        fc_msg_str(&m, " bytes)");
    } else {
        fc_msg_str(&m, " (the file ends with ");
        fc_msg_u64(&m, w->sink_bytes - w->durable_bytes);
        fc_msg_str(&m, " bytes of a cut record past them)");
    }
}

static fc_status writer_drain(fc_writer *w);

/* st, after saying the loss when it is a failed write to the fd. */
static fc_status reported(fc_writer *w, fc_status st, uint64_t current)
{
    if (st != FC_OK && w->sink == SINK_FD)
        writer_report_loss(w, current);
    return st;
}

/* Writes the staging buffer, which holds whole records only when
 * uncompressed.  On a failed write, counts the records of the buffer that
 * reached the fd whole. */
static fc_status writer_drain(fc_writer *w)
{
    fc_status st;
    uint64_t before = w->sink_bytes;
    if (w->sink != SINK_FD || w->out_len == 0)
        return FC_OK;
    st = write_all(w, w->out, w->out_len);
    if (w->compression == FC_COMPRESSION_NONE) {
        if (st == FC_OK) {
            w->durable_records += w->buffered_records;
            w->durable_bytes = w->sink_bytes;
        } else {
            uint64_t written = w->sink_bytes - before;
            size_t off = 0;
            while (w->out_len - off >= FC_RECORD_OVERHEAD) {
                uint64_t len = le64(w->out + off), end;
                if (len > w->out_len - off - FC_RECORD_OVERHEAD)
                    break;
                end = (uint64_t)off + FC_RECORD_OVERHEAD + len;
                if (end > written)
                    break;
                w->durable_records++;
                w->durable_bytes = before + end;
                off = (size_t)end;
            }
        }
        w->buffered_records = 0;
    }
    w->out_len = 0;
    return st;
}

static fc_status writer_no_space(fc_writer *w, uint64_t need)
{
    fc_msg m = fc_error_begin(&w->err, FC_ERR_NO_SPACE, w->records, w->stream_bytes);
    fc_msg_str(&m, "output buffer full: record ");
    fc_msg_u64(&m, w->records);
    fc_msg_str(&m, " needs ");
    fc_msg_u64(&m, need);
    fc_msg_str(&m, " more bytes, ");
    fc_msg_u64(&m, w->dst_cap - w->dst_len);
    fc_msg_str(&m, " of ");
    fc_msg_u64(&m, w->dst_cap);
    fc_msg_str(&m, " left");
    return FC_ERR_NO_SPACE;
}

/* Uncompressed bytes to the sink. */
static fc_status sink_plain(fc_writer *w, const unsigned char *p, size_t n)
{
    if (w->sink == SINK_MEM) {
        memcpy(w->dst + w->dst_len, p, n); /* space checked by the caller */
        w->dst_len += n;
        w->sink_bytes += n;
        return FC_OK;
    }
    if (w->out == NULL)
        return write_all(w, p, n);
    if (n > w->out_cap - w->out_len) {
        fc_status st = writer_drain(w);
        if (st != FC_OK)
            return st;
        if (n >= w->out_cap)
            return write_all(w, p, n);
    }
    memcpy(w->out + w->out_len, p, n);
    w->out_len += n;
    return FC_OK;
}

#ifndef FC_NO_ZLIB
static fc_status writer_zerror(fc_writer *w, int ret, const char *what)
{
    fc_msg m = fc_error_begin(&w->err, ret == Z_MEM_ERROR ? FC_ERR_NO_MEMORY : FC_ERR_DEFLATE,
                              w->records, w->stream_bytes);
    fc_msg_str(&m, what);
    fc_msg_str(&m, " failed with error ");
    fc_msg_i64(&m, ret);
    if (wzs(w)->msg != NULL) {
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, wzs(w)->msg);
    }
    w->failed = 1;
    return (fc_status)w->err.status;
}

/* After a sync flush or the stream's end went out whole: every record
 * accepted so far can be read back from the sink. */
static fc_status deflate_drained(fc_writer *w, fc_status st)
{
    if (st == FC_OK) {
        w->durable_records = w->records;
        w->durable_bytes = w->sink_bytes;
    }
    return st;
}

/* Runs deflate over p[0, n) with the given flush mode, emptying the output
 * into the sink.  For Z_FINISH, runs until the stream end. */
static fc_status sink_deflate(fc_writer *w, const unsigned char *p, size_t n, int flush)
{
    z_stream *zs = wzs(w);
    for (;;) {
        int ret;
        uInt chunk = n > (size_t)UINT_MAX ? UINT_MAX : (uInt)n;
        uInt out_before;
        zs->next_in = (Bytef *)(uintptr_t)p;
        zs->avail_in = chunk;
        if (w->sink == SINK_MEM) {
            size_t room = w->dst_cap - w->dst_len;
            zs->next_out = w->dst + w->dst_len;
            zs->avail_out = room > (size_t)UINT_MAX ? UINT_MAX : (uInt)room;
        } else {
            zs->next_out = w->out + w->out_len;
            zs->avail_out = (uInt)(w->out_cap - w->out_len);
        }
        out_before = zs->avail_out;
        ret = deflate(zs, chunk == n ? flush : Z_NO_FLUSH);
        {
            size_t produced = out_before - zs->avail_out;
            size_t used = chunk - zs->avail_in;
            if (w->sink == SINK_MEM) {
                w->dst_len += produced;
                w->sink_bytes += produced;
            } else {
                w->out_len += produced;
            }
            if (used > 0) /* p may be NULL for a flush: no arithmetic on it */
                p += used;
            n -= used;
        }
        if (ret == Z_STREAM_ERROR || (ret == Z_BUF_ERROR && flush == Z_FINISH && zs->avail_out > 0))
            return writer_zerror(w, ret, "deflate()");
        if (ret == Z_STREAM_END)
            return deflate_drained(w, writer_drain(w));
        /* Output full: empty it (fd) or fail (memory). */
        if (zs->avail_out == 0) {
            if (w->sink == SINK_MEM) {
                w->failed = 1;
                return writer_no_space(w, 1);
            }
            {
                fc_status st = writer_drain(w);
                if (st != FC_OK)
                    return st;
            }
            continue;
        }
        /* Output space left: deflate consumed all input and flushed what the mode asks. */
        if (n == 0 && flush != Z_FINISH)
            return flush == Z_NO_FLUSH ? FC_OK : deflate_drained(w, writer_drain(w));
    }
}
#endif

static fc_status writer_setup(fc_writer *w, const fc_writer_options *opt, fc_error *err)
{
    w->compression = opt != NULL ? opt->compression : FC_COMPRESSION_NONE;
    if (opt != NULL && (opt->member_records != 0 || opt->member_bytes != 0) &&
        w->compression != FC_COMPRESSION_GZIP) {
        fc_msg m = fc_error_begin(&w->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "member_records and member_bytes are for GZIP writers (ZLIB has one "
                       "stream, NONE no members)");
        w->failed = 1;
        copy_error(err, &w->err);
        return FC_ERR_ARG;
    }
    if (opt != NULL) {
        w->member_records = opt->member_records;
        w->member_bytes = opt->member_bytes;
    }
    if ((unsigned)w->compression > FC_COMPRESSION_GZIP) {
        fc_msg m = fc_error_begin(&w->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "a writer needs compression NONE, ZLIB or GZIP");
        w->failed = 1;
        copy_error(err, &w->err);
        return FC_ERR_ARG;
    }
    if (w->compression == FC_COMPRESSION_NONE) {
        if (w->sink == SINK_FD && opt != NULL && opt->work != NULL && opt->work_size > 0) {
            w->out = (unsigned char *)opt->work;
            w->out_cap = opt->work_size;
        }
        return FC_OK;
    }
#ifdef FC_NO_ZLIB
    {
        fc_msg m = fc_error_begin(&w->err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "this build of the featc runtime has no zlib (FC_NO_ZLIB)");
        w->failed = 1;
        copy_error(err, &w->err);
        return FC_ERR_UNSUPPORTED;
    }
#else
    {
        size_t need = w->sink == SINK_FD ? FC_WRITER_WORK_SIZE : FC_DEFLATE_ARENA_SIZE;
        int level = opt->level == 0 ? Z_DEFAULT_COMPRESSION
                    : opt->level == FC_LEVEL_STORE ? 0 : opt->level;
        int ret;
        z_stream *zs = wzs(w);
        if (opt->work == NULL || opt->work_size < need) {
            fc_msg m = fc_error_begin(&w->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "a compressing writer needs a work area of at least ");
            fc_msg_u64(&m, need);
            fc_msg_str(&m, " bytes, got ");
            fc_msg_u64(&m, opt->work == NULL ? 0 : opt->work_size);
            w->failed = 1;
            copy_error(err, &w->err);
            return FC_ERR_NO_MEMORY;
        }
        if (level < -1 || level > 9) {
            fc_msg m = fc_error_begin(&w->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "compression level must be 0 (default), 1..9 or FC_LEVEL_STORE");
            w->failed = 1;
            copy_error(err, &w->err);
            return FC_ERR_ARG;
        }
        fc_arena_init(&w->arena, opt->work, FC_DEFLATE_ARENA_SIZE);
        if (w->sink == SINK_FD) {
            w->out = (unsigned char *)opt->work + FC_DEFLATE_ARENA_SIZE;
            w->out_cap = opt->work_size - FC_DEFLATE_ARENA_SIZE;
            if (w->out_cap > (size_t)UINT_MAX)
                w->out_cap = UINT_MAX;
        }
        memset(zs, 0, sizeof *zs);
        zs->zalloc = fc_zarena_alloc;
        zs->zfree = fc_zarena_free;
        zs->opaque = &w->arena;
        /* TensorFlow's ZlibCompressionOptions: window 15 (+16 for gzip), memLevel 9. */
        ret = deflateInit2(zs, level, Z_DEFLATED,
                           w->compression == FC_COMPRESSION_GZIP ? 15 + 16 : 15, 9,
                           Z_DEFAULT_STRATEGY);
        if (ret != Z_OK) {
            writer_zerror(w, ret, "deflateInit2()");
            copy_error(err, &w->err);
            return (fc_status)w->err.status;
        }
        w->zactive = 1;
        return FC_OK;
    }
#endif
}

static void writer_zero(fc_writer *w)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    fc_error_clear(&w->err);
}

fc_status fc_writer_init_fd(fc_writer *w, int fd, const fc_writer_options *opt, fc_error *err)
{
    if (w == NULL)
        return FC_ERR_ARG;
    writer_zero(w);
    w->sink = SINK_FD;
    w->fd = fd;
    if (fd < 0) {
        fc_msg m = fc_error_begin(&w->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "invalid file descriptor");
        w->failed = 1;
        copy_error(err, &w->err);
        return FC_ERR_ARG;
    }
    return writer_setup(w, opt, err);
}

fc_status fc_writer_init_mem(fc_writer *w, void *dst, size_t cap, const fc_writer_options *opt,
                             fc_error *err)
{
    if (w == NULL)
        return FC_ERR_ARG;
    writer_zero(w);
    w->sink = SINK_MEM;
    w->dst = (unsigned char *)dst;
    w->dst_cap = dst == NULL ? 0 : cap;
    return writer_setup(w, opt, err);
}

fc_status fc_writer_write(fc_writer *w, const void *data, size_t len)
{
    unsigned char hdr[FC_RECORD_HEADER_SIZE], foot[FC_RECORD_FOOTER_SIZE];
    fc_status st;
    if (w == NULL || (data == NULL && len > 0))
        return FC_ERR_ARG;
    if (w->closed)
        return writer_closed(w);
    if (w->failed)
        return (fc_status)w->err.status;
    put_le64(hdr, (uint64_t)len);
    put_le32(hdr + 8, fc_crc32c_mask(fc_crc32c(0, hdr, 8)));
    put_le32(foot, fc_crc32c_mask(fc_crc32c(0, data, len)));
    if (w->compression == FC_COMPRESSION_NONE && w->sink == SINK_FD) {
        /* whole records in the buffer, so that a failed write knows which
         * records reached the file; a record larger than the buffer goes
         * straight to the fd */
        int direct = w->out == NULL || w->out_cap < FC_RECORD_OVERHEAD ||
                     len > w->out_cap - FC_RECORD_OVERHEAD;
        /* out_len <= out_cap always; fewer than 16 bytes may be left */
        if (w->out_len > 0 && (direct || w->out_cap - w->out_len < FC_RECORD_OVERHEAD ||
                               len > w->out_cap - w->out_len - FC_RECORD_OVERHEAD))
            st = writer_drain(w);
        else
            st = FC_OK;
        if (st != FC_OK)
            return reported(w, st, w->records);
        if (direct) {
            st = write_all(w, hdr, sizeof hdr);
            if (st == FC_OK && len > 0)
                st = write_all(w, (const unsigned char *)data, len);
            if (st == FC_OK)
                st = write_all(w, foot, sizeof foot);
            if (st != FC_OK)
                return reported(w, st, w->records);
            w->durable_records++;
            w->durable_bytes = w->sink_bytes;
        } else {
            memcpy(w->out + w->out_len, hdr, sizeof hdr);
            if (len > 0)
                memcpy(w->out + w->out_len + sizeof hdr, data, len);
            memcpy(w->out + w->out_len + sizeof hdr + len, foot, sizeof foot);
            w->out_len += len + FC_RECORD_OVERHEAD;
            w->buffered_records++;
        }
    } else if (w->compression == FC_COMPRESSION_NONE) {
        if (w->dst_cap - w->dst_len < FC_RECORD_OVERHEAD ||
            len > w->dst_cap - w->dst_len - FC_RECORD_OVERHEAD)
            return writer_no_space(w, (uint64_t)len + FC_RECORD_OVERHEAD); /* nothing written */
        st = sink_plain(w, hdr, sizeof hdr);
        if (st == FC_OK && len > 0)
            st = sink_plain(w, (const unsigned char *)data, len);
        if (st == FC_OK)
            st = sink_plain(w, foot, sizeof foot);
    } else {
#ifndef FC_NO_ZLIB
        if (w->compression == FC_COMPRESSION_GZIP && (w->members == 0 || w->member_ended)) {
            if (w->member_ended) {
                int ret = deflateReset(wzs(w));
                if (ret != Z_OK)
                    return writer_zerror(w, ret, "deflateReset()");
                w->member_ended = 0;
            }
            w->member.offset = w->sink == SINK_MEM ? (uint64_t)w->dst_len
                                                   : w->sink_bytes + (uint64_t)w->out_len;
            w->member.stream_offset = w->stream_bytes;
            w->member.first_record = w->records;
            w->members++;
        }
        st = sink_deflate(w, hdr, sizeof hdr, Z_NO_FLUSH);
        if (st == FC_OK && len > 0)
            st = sink_deflate(w, (const unsigned char *)data, len, Z_NO_FLUSH);
        if (st == FC_OK)
            st = sink_deflate(w, foot, sizeof foot, Z_NO_FLUSH);
        st = reported(w, st, w->records);
#else
        st = FC_ERR_UNSUPPORTED;
#endif
    }
    if (st != FC_OK)
        return st;
    w->records++;
    w->stream_bytes += (uint64_t)len + FC_RECORD_OVERHEAD;
#ifndef FC_NO_ZLIB
    if (w->compression == FC_COMPRESSION_GZIP &&
        ((w->member_records != 0 && w->records - w->member.first_record >= w->member_records) ||
         (w->member_bytes != 0 && w->stream_bytes - w->member.stream_offset >= w->member_bytes))) {
        /* the member ends with this record; the next record starts one */
        st = reported(w, sink_deflate(w, NULL, 0, Z_FINISH), FC_NO_INDEX);
        if (st != FC_OK)
            return st;
        w->member_ended = 1;
    }
#endif
    return FC_OK;
}

fc_status fc_writer_flush(fc_writer *w)
{
    if (w == NULL)
        return FC_ERR_ARG;
    if (w->closed)
        return writer_closed(w);
    if (w->failed)
        return (fc_status)w->err.status;
#ifndef FC_NO_ZLIB
    if (w->zactive && !w->member_ended)
        return reported(w, sink_deflate(w, NULL, 0, Z_SYNC_FLUSH), FC_NO_INDEX);
#endif
    return reported(w, writer_drain(w), FC_NO_INDEX);
}

fc_status fc_writer_close(fc_writer *w)
{
    fc_status st = FC_OK;
    if (w == NULL)
        return FC_ERR_ARG;
    if (w->closed)
        return w->failed ? (fc_status)w->err.status : FC_OK;
    if (!w->failed) {
#ifndef FC_NO_ZLIB
        if (w->zactive && !w->member_ended)
            st = reported(w, sink_deflate(w, NULL, 0, Z_FINISH), FC_NO_INDEX);
        else
#endif
            st = reported(w, writer_drain(w), FC_NO_INDEX);
    } else {
        st = (fc_status)w->err.status;
    }
#ifndef FC_NO_ZLIB
    if (w->zactive) {
        (void)deflateEnd(wzs(w));
        w->zactive = 0;
    }
#endif
    w->closed = 1;
    return st;
}

const fc_error *fc_writer_error(const fc_writer *w)
{
    return &w->err;
}

size_t fc_writer_size(const fc_writer *w)
{
    return w->dst_len;
}

uint64_t fc_writer_records(const fc_writer *w)
{
    return w->records;
}

uint64_t fc_writer_durable(const fc_writer *w)
{
    return w->durable_records;
}

uint64_t fc_writer_members(const fc_writer *w)
{
    return w->members;
}

fc_gzip_member fc_writer_member(const fc_writer *w)
{
    return w->member;
}

size_t fc_writer_arena_peak(const fc_writer *w)
{
    return w->arena.peak;
}

