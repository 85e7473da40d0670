/* One record framed (fc_record_frame), compressions by name and zlib's
 * allocator over an arena, what the reader and the writer share; and the
 * raw read of a reader's source, what the reader and its inflaters share. */
#include "frame.h"

#include <errno.h>
#include <stdint.h>

#ifndef FC_NO_POSIX
#include <unistd.h>
#endif

/* ------------------------------------------------------------ small helpers */

const char *fc_compression_name(fc_compression c)
{
    switch (c) {
    case FC_COMPRESSION_NONE: return "NONE";
    case FC_COMPRESSION_ZLIB: return "ZLIB";
    case FC_COMPRESSION_GZIP: return "GZIP";
    case FC_COMPRESSION_AUTO: return "AUTO";
    }
    return "?";
}

static int ascii_ieq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b)
            return 0;
    }
    return *a == *b;
}

fc_status fc_compression_parse(const char *s, fc_compression *out)
{
    if (s == NULL || out == NULL)
        return FC_ERR_ARG;
    if (*s == '\0' || ascii_ieq(s, "none"))
        *out = FC_COMPRESSION_NONE;
    else if (ascii_ieq(s, "zlib"))
        *out = FC_COMPRESSION_ZLIB;
    else if (ascii_ieq(s, "gzip"))
        *out = FC_COMPRESSION_GZIP;
    else if (ascii_ieq(s, "auto"))
        *out = FC_COMPRESSION_AUTO;
    else
        return FC_ERR_ARG;
    return FC_OK;
}

size_t fc_record_frame(void *dst, size_t cap, const void *data, size_t len)
{
    unsigned char *p = (unsigned char *)dst;
    if (cap < FC_RECORD_OVERHEAD || len > cap - FC_RECORD_OVERHEAD)
        return 0;
    put_le64(p, (uint64_t)len);
    put_le32(p + 8, fc_crc32c_mask(fc_crc32c(0, p, 8)));
    if (len > 0)
        memcpy(p + 12, data, len);
    put_le32(p + 12 + len, fc_crc32c_mask(fc_crc32c(0, data, len)));
    return len + FC_RECORD_OVERHEAD;
}

/* ------------------------------------------------------------------- arena */

#ifndef FC_NO_ZLIB
/* zlib's zalloc over the caller's arena */
voidpf fc_zarena_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size != 0 && items > SIZE_MAX / size)
        return Z_NULL;
    return (voidpf)fc_arena_alloc((fc_arena *)opaque, (size_t)items * size);
}

void fc_zarena_free(voidpf opaque, voidpf address)
{
    /* Released all at once when the stream ends (arena reset). */
    (void)opaque;
    (void)address;
}
#endif

/* ------------------------------------------------------- the raw source */

/* Reads up to n raw bytes from the fd (or pull source) into p; 0 at end of
 * file.  FC_AGAIN (a pull source with nothing now, fc_stream's between two
 * pushes) fails nothing: the read resumes where it stopped. */
fc_status fc_source_read(fc_reader *r, unsigned char *p, size_t n, size_t *got)
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
