/* One record framed (fc_record_frame), compressions by name, and zlib's
 * allocator over an arena: what the reader and the writer share. */
#include "frame.h"

#include <stdint.h>

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

