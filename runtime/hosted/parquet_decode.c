/* Parquet's encodings read back (parquet_decode.h).  Every read is checked
 * against the bytes left; counts come from the caller, who bounded them. */
#include "parquet_decode.h"

#include <string.h>

#include "byte_order.h"
#include "thrift_read.h"

/* Little-endian width-byte values in place into the host's order. */
static void to_host(unsigned char *v, size_t n, size_t width)
{
    size_t i, k;
    if (!fc_host_big_endian() || width < 2)
        return;
    for (i = 0; i < n; i++, v += width)
        for (k = 0; k < width / 2; k++) {
            unsigned char t = v[k];
            v[k] = v[width - 1 - k];
            v[width - 1 - k] = t;
        }
}

int pq_encoding_known(int64_t v)
{
    return v == 0 || (v >= 2 && v <= 9);
}

uint32_t pq_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A ULEB128 varint from [*p, end) (Thrift's reader's): 0 when it runs
 * out or is too long. */
static int uvarint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    return th_uleb128(p, end, v) == 1;
}

/* Bit i*width of the LSB-first packed bytes p (len of them): the value. */
static uint64_t unpack_at(const unsigned char *p, size_t bit, unsigned width)
{
    uint64_t v = 0;
    unsigned got = 0;
    size_t byte = bit >> 3;
    unsigned skip = (unsigned)(bit & 7);
    while (got < width) {
        unsigned take = 8 - skip;
        uint64_t b = (uint64_t)(p[byte] >> skip);
        if (take > width - got)
            take = width - got;
        v |= (b & ((1u << take) - 1)) << got;
        got += take;
        skip = 0;
        byte++;
    }
    return v;
}

const char *pq_unhybrid(const unsigned char *p, size_t len, unsigned width, uint32_t *out,
                        size_t n)
{
    const unsigned char *end = p + len;
    size_t got = 0, k;
    unsigned vb = (width + 7) / 8;
    if (width > 32)
        return "a bit width past 32";
    while (got < n) {
        uint64_t h;
        if (!uvarint(&p, end, &h))
            return "the levels or indices end early";
        if (h & 1) {
            /* bit-packed: h >> 1 groups of 8 values */
            uint64_t groups = h >> 1;
            size_t bytes, vals;
            if (groups > (uint64_t)(end - p) / (width > 0 ? width : 1) + 1)
                return "a bit-packed run past the end of its bytes";
            bytes = (size_t)groups * width;
            if (bytes > (size_t)(end - p))
                return "a bit-packed run past the end of its bytes";
            vals = (size_t)groups * 8;
            if (width <= 8) {
                /* a group of 8 values in width bytes: one load, eight shifts */
                uint64_t mask = ((uint64_t)1 << width) - 1;
                size_t g;
                for (g = 0; g < (size_t)groups && got < n; g++) {
                    uint64_t v = 0;
                    unsigned b, j;
                    for (b = 0; b < width; b++)
                        v |= (uint64_t)p[g * width + b] << (8 * b);
                    for (j = 0; j < 8 && got < n; j++)
                        out[got++] = (uint32_t)(v >> (j * width) & mask);
                }
            } else {
                for (k = 0; k < vals && got < n; k++)
                    out[got++] = (uint32_t)unpack_at(p, k * width, width);
            }
            p += bytes;
        } else {
            uint64_t run = h >> 1;
            uint32_t v = 0;
            unsigned b;
            if ((size_t)(end - p) < vb)
                return "an RLE run past the end of its bytes";
            for (b = 0; b < vb; b++)
                v |= (uint32_t)p[b] << (8 * b);
            p += vb;
            if (width < 32 && (v >> width) != 0)
                return "an RLE run's value wider than its bit width";
            for (; run > 0 && got < n; run--)
                out[got++] = v;
        }
    }
    return NULL;
}

const char *pq_plain_fixed(const unsigned char *p, size_t len, int type, size_t type_length,
                           void *out, size_t n, size_t *used)
{
    size_t w, i;
    if (type == PQ_BOOLEAN) {
        unsigned char *o = (unsigned char *)out;
        if ((n + 7) / 8 > len)
            return "fewer PLAIN values than the page says";
        for (i = 0; i < n; i++)
            o[i] = (unsigned char)(p[i >> 3] >> (i & 7) & 1);
        *used = (n + 7) / 8;
        return NULL;
    }
    if (type == PQ_FIXED) {
        pq_view *o = (pq_view *)out;
        if (type_length > 0 && n > len / type_length)
            return "fewer PLAIN values than the page says";
        for (i = 0; i < n; i++) {
            o[i].p = p + i * type_length;
            o[i].n = type_length;
        }
        *used = n * type_length;
        return NULL;
    }
    w = type == PQ_INT32 || type == PQ_FLOAT ? 4 : 8;
    if (n > len / w)
        return "fewer PLAIN values than the page says";
    if (n > 0)
        memcpy(out, p, n * w);
    to_host((unsigned char *)out, n, w);
    *used = n * w;
    return NULL;
}

const char *pq_plain_bytes(const unsigned char *p, size_t len, pq_view *out, size_t n,
                           size_t *used)
{
    size_t at = 0, i;
    for (i = 0; i < n; i++) {
        uint32_t k;
        if (len - at < 4)
            return "fewer PLAIN values than the page says";
        k = pq_le32(p + at);
        at += 4;
        if (k > len - at)
            return "a PLAIN byte string past the end of its page";
        out[i].p = p + at;
        out[i].n = k;
        at += k;
    }
    *used = at;
    return NULL;
}

/* ------------------------------------------------------------ DELTA */

const char *pq_delta_ints(const unsigned char *p, size_t len, int wide, void *out, size_t n,
                          size_t *used)
{
    const unsigned char *start = p, *end = p + len;
    uint64_t block, minis, total, first, per, got = 0, v;
    if (!uvarint(&p, end, &block) || !uvarint(&p, end, &minis) || !uvarint(&p, end, &total) ||
        !uvarint(&p, end, &first))
        return "a DELTA_BINARY_PACKED header ends early";
    if (block == 0 || block % 128 != 0 || block > (1u << 20) || minis == 0 ||
        block % minis != 0 || (block / minis) % 32 != 0)
        return "a DELTA_BINARY_PACKED block size the format does not allow";
    if (total < n)
        return "fewer DELTA_BINARY_PACKED values than the page says";
    per = block / minis;
    v = (first >> 1) ^ (0 - (first & 1));
    if (n > 0) {
        if (wide)
            ((int64_t *)out)[0] = (int64_t)v;
        else
            ((int32_t *)out)[0] = (int32_t)(uint32_t)v;
        got = 1;
    }
    while (got < n) {
        uint64_t mind, m;
        const unsigned char *widths;
        if (!uvarint(&p, end, &mind))
            return "a DELTA_BINARY_PACKED block ends early";
        mind = (mind >> 1) ^ (0 - (mind & 1));
        if ((uint64_t)(end - p) < minis)
            return "a DELTA_BINARY_PACKED block ends early";
        widths = p;
        p += minis;
        for (m = 0; m < minis && got < n; m++) {
            unsigned w = widths[m];
            uint64_t k, bytes;
            /* (an INT32's miniblock may be wider than 32 bits: DuckDB 1.5.6
             * writes 33-bit ones for a column spanning int32's range, its
             * deltas taken without wrapping.  parquet-format calls that an
             * encoder's bug and Arrow C++ refuses it, but DuckDB reads its
             * own files and so does featc: the sum, wrapped to int32 at the
             * end, is the same value either way) */
            if (w > 64u)
                return "a DELTA_BINARY_PACKED bit width past 64";
            bytes = per * w / 8;
            for (k = 0; k < per && got < n; k++, got++) {
                uint64_t d;
                if ((k * w + w + 7) / 8 > (uint64_t)(end - p))
                    return "a DELTA_BINARY_PACKED miniblock past the end of its bytes";
                d = w == 0 ? 0 : w == 64 ? unpack_at(p, (size_t)(k * 64), 32) |
                                               unpack_at(p, (size_t)(k * 64 + 32), 32) << 32
                                         : unpack_at(p, (size_t)(k * w), w);
                v += mind + d;
                if (wide)
                    ((int64_t *)out)[got] = (int64_t)v;
                else
                    ((int32_t *)out)[got] = (int32_t)(uint32_t)v;
            }
            /* the miniblock's bytes (a last one's may be cut short) */
            p += bytes <= (uint64_t)(end - p) ? bytes : (uint64_t)(end - p);
        }
    }
    *used = (size_t)(p - start);
    return NULL;
}

const char *pq_delta_length(const unsigned char *p, size_t len, pq_view *out, int64_t *lens,
                            size_t n, size_t *used)
{
    size_t at, i;
    const char *why = pq_delta_ints(p, len, 1, lens, n, &at);
    if (why != NULL)
        return why;
    for (i = 0; i < n; i++) {
        if (lens[i] < 0 || (uint64_t)lens[i] > len - at)
            return "a DELTA_LENGTH_BYTE_ARRAY length past the end of its page";
        out[i].p = p + at;
        out[i].n = (size_t)lens[i];
        at += (size_t)lens[i];
    }
    *used = at;
    return NULL;
}

const char *pq_delta_bytes(const unsigned char *p, size_t len, pq_view *out, int64_t *lens,
                           size_t n, unsigned char *scratch, size_t *need, size_t max)
{
    size_t at, more, i, total = 0, prev = 0;
    const char *why = pq_delta_ints(p, len, 1, lens, n, &at);
    if (why != NULL)
        return why;
    /* the suffixes: a DELTA_LENGTH_BYTE_ARRAY after the prefix lengths */
    why = pq_delta_length(p + at, len - at, out, lens + n, n, &more);
    if (why != NULL)
        return why;
    for (i = 0; i < n; i++) {
        if (lens[i] < 0 || (uint64_t)lens[i] > prev)
            return "a DELTA_BYTE_ARRAY prefix longer than the value before it";
        prev = (size_t)lens[i] + out[i].n;
        if (prev > max - total)
            return "DELTA_BYTE_ARRAY values past the reader's limit on a column's bytes";
        total += prev;
    }
    if (scratch == NULL) {
        *need = total;
        return NULL;
    }
    for (i = 0, at = 0; i < n; i++) {
        size_t k = (size_t)lens[i];
        if (k > 0)
            memcpy(scratch + at, out[i - 1].p, k); /* (i > 0: the first prefix is 0) */
        if (out[i].n > 0)
            memcpy(scratch + at + k, out[i].p, out[i].n);
        out[i].p = scratch + at;
        out[i].n += k;
        at += out[i].n;
    }
    return NULL;
}

const char *pq_stream_split(const unsigned char *p, size_t len, size_t width, void *out,
                            size_t n)
{
    unsigned char *o = (unsigned char *)out;
    size_t i, k;
    if (width == 0 || n > len / width)
        return "fewer BYTE_STREAM_SPLIT values than the page says";
    for (k = 0; k < width; k++)
        for (i = 0; i < n; i++)
            o[i * width + k] = p[k * n + i];
    if (width == 4 || width == 8)
        to_host(o, n, width);
    return NULL;
}
