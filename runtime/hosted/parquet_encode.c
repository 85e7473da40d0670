/* Parquet's encodings beyond PLAIN (parquet_encode.h), as
 * https://parquet.apache.org/docs/file-format/data-pages/encodings/
 * describes them. */
#include "parquet_encode.h"

#include <stdlib.h>
#include <string.h>

unsigned pq_bit_width(uint32_t max)
{
    unsigned w = 0;
    while (w < 32 && (max >> w) != 0)
        w++;
    return w;
}

static uint32_t value_at(const void *v, int wide, size_t i)
{
    return wide ? ((const uint32_t *)v)[i] : ((const unsigned char *)v)[i];
}

void pq_hybrid(th_buf *b, const void *v, int wide, size_t n, unsigned width)
{
    size_t i = 0, bytes = (width + 7) / 8;
    while (i < n) {
        size_t r = 1, start = i, groups = 0, g, k;
        uint32_t first = value_at(v, wide, i);
        while (i + r < n && value_at(v, wide, i + r) == first)
            r++;
        if (r >= 8 || i + r == n) { /* a run: its count, then the value in whole bytes */
            th_varint(b, (uint64_t)r << 1);
            for (k = 0; k < bytes; k++)
                th_byte(b, first >> (8 * k) & 0xFFu);
            i += r;
            continue;
        }
        /* groups of 8 bit-packed, until a run of 8 starts at a group's edge */
        do {
            size_t q = 1;
            i += 8;
            groups++;
            while (i < n && i + q < n && q < 8 && value_at(v, wide, i + q) == value_at(v, wide, i))
                q++;
            if (i < n && q >= 8)
                break;
        } while (i < n && groups < 63);
        th_varint(b, (uint64_t)groups << 1 | 1u);
        for (g = 0; g < groups; g++) {
            unsigned char *q = th_room(b, width);
            uint64_t acc = 0;
            unsigned bits = 0, o = 0;
            if (q == NULL)
                return;
            for (k = 0; k < 8; k++) { /* least significant bit first */
                size_t at = start + g * 8 + k;
                acc |= (uint64_t)(at < n ? value_at(v, wide, at) : 0u) << bits;
                bits += width;
                while (bits >= 8) {
                    q[o++] = (unsigned char)acc;
                    acc >>= 8;
                    bits -= 8;
                }
            }
            b->n += width;
        }
        if (i > n)
            i = n;
    }
}

static uint32_t hash_bytes(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Entry e's bytes and length. */
static const unsigned char *entry(const pq_dict *d, uint32_t e, size_t *len)
{
    const unsigned char *q = d->values.p + d->at[e];
    *len = (size_t)q[0] | (size_t)q[1] << 8 | (size_t)q[2] << 16 | (size_t)q[3] << 24;
    return q + 4;
}

/* A number's slot: the high half of a Fibonacci hash. */
static uint32_t hash_number(uint64_t x)
{
    return (uint32_t)((x * UINT64_C(0x9E3779B97F4A7C15)) >> 32);
}

static int grow_table(pq_dict *d)
{
    uint32_t n = d->nslots > 0 ? d->nslots * 2 : 256, e, s;
    uint32_t *t;
    if (n == 0 || n > (1u << 30))
        return -1;
    t = (uint32_t *)calloc(n, sizeof *t);
    if (t == NULL)
        return -1;
    for (e = 0; e < d->n; e++) {
        size_t len = 0;
        const unsigned char *p = d->width > 0 ? NULL : entry(d, e, &len);
        uint32_t h = p != NULL ? hash_bytes(p, len) : hash_number(d->keys[e]);
        for (s = h & (n - 1); t[s] != 0; s = (s + 1) & (n - 1))
            ;
        t[s] = e + 1;
    }
    free(d->slots);
    d->slots = t;
    d->nslots = n;
    return 0;
}

/* Room for one more entry: 0, or -1. */
static int grow_entries(pq_dict *d)
{
    uint32_t c = d->cap > 0 ? d->cap * 2 : 256;
    if (d->n < d->cap)
        return 0;
    if (d->width > 0) {
        uint64_t *k = (uint64_t *)realloc(d->keys, (size_t)c * sizeof *k);
        if (k == NULL)
            return -1;
        d->keys = k;
    } else {
        uint32_t *at = (uint32_t *)realloc(d->at, (size_t)c * sizeof *at);
        if (at == NULL)
            return -1;
        d->at = at;
    }
    d->cap = c;
    return 0;
}

int pq_dict_number(pq_dict *d, uint64_t x, uint32_t *index)
{
    uint32_t s, e;
    unsigned char *q;
    unsigned k;
    if ((d->n + 1) * 2 > d->nslots && grow_table(d) != 0)
        return -1;
    for (s = hash_number(x) & (d->nslots - 1); (e = d->slots[s]) != 0;
         s = (s + 1) & (d->nslots - 1))
        if (d->keys[e - 1] == x) {
            *index = e - 1;
            return 0;
        }
    if (grow_entries(d) != 0 || (q = th_room(&d->values, d->width)) == NULL)
        return -1;
    for (k = 0; k < d->width; k++)
        q[k] = (unsigned char)(x >> (8 * k));
    d->values.n += d->width;
    d->keys[d->n] = x;
    d->slots[s] = d->n + 1;
    *index = d->n++;
    return 1;
}

int pq_dict_index(pq_dict *d, const unsigned char *p, size_t len, uint32_t *index)
{
    uint32_t h = hash_bytes(p, len), s;
    if (len > UINT32_MAX - 4 || d->values.n > UINT32_MAX - 4 - len)
        return -1;
    if ((d->n + 1) * 2 > d->nslots && grow_table(d) != 0)
        return -1;
    for (s = h & (d->nslots - 1); d->slots[s] != 0; s = (s + 1) & (d->nslots - 1)) {
        size_t elen;
        const unsigned char *q = entry(d, d->slots[s] - 1, &elen);
        if (elen == len && (len == 0 || memcmp(q, p, len) == 0)) {
            *index = d->slots[s] - 1;
            return 0;
        }
    }
    if (grow_entries(d) != 0)
        return -1;
    d->at[d->n] = (uint32_t)d->values.n;
    th_le32(&d->values, (uint32_t)len);
    th_put(&d->values, p, len);
    if (d->values.oom)
        return -1;
    d->slots[s] = d->n + 1;
    *index = d->n++;
    return 1;
}

const unsigned char *pq_dict_plain(const pq_dict *d, uint32_t e, size_t *len)
{
    if (d->width > 0) {
        *len = d->width;
        return d->values.p + (size_t)e * d->width;
    }
    (void)entry(d, e, len);
    *len += 4;
    return d->values.p + d->at[e];
}

void pq_dict_clear(pq_dict *d)
{
    d->values.n = 0;
    d->n = 0;
    if (d->slots != NULL)
        memset(d->slots, 0, (size_t)d->nslots * sizeof *d->slots);
}

void pq_dict_free(pq_dict *d)
{
    th_free(&d->values);
    free(d->at);
    free(d->keys);
    free(d->slots);
    memset(d, 0, sizeof *d);
}
