/* Thrift's compact protocol, read from untrusted bytes (thrift_read.h). */
#include "thrift_read.h"

#include <string.h>

void th_read_begin(th_reader *t, const void *p, size_t n, uint64_t base)
{
    memset(t, 0, sizeof *t);
    t->start = t->p = (const unsigned char *)p;
    t->end = t->start + n;
    t->base = base;
    t->depth = 1;
}

uint64_t th_read_offset(const th_reader *t)
{
    return t->base + (uint64_t)(t->p - t->start);
}

void th_read_fail(th_reader *t, const char *why)
{
    if (t->bad)
        return;
    t->bad = 1;
    t->bad_at = th_read_offset(t);
    t->why = why;
    t->p = t->end; /* nothing more is read */
}

int th_uleb128(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    unsigned shift;
    *v = 0;
    for (shift = 0; shift < 64 && *p < end; shift += 7) {
        unsigned b = *(*p)++;
        *v |= (uint64_t)(b & 0x7F) << shift;
        if (b < 0x80)
            return 1;
    }
    return *p < end || shift >= 64 ? -1 : 0;
}

static uint64_t varint(th_reader *t)
{
    uint64_t v;
    int rc = th_uleb128(&t->p, t->end, &v);
    if (rc == 1)
        return v;
    th_read_fail(t, rc == 0 ? "the metadata ends inside a number"
                            : "a number longer than ten bytes in the metadata");
    return 0;
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int th_read_field(th_reader *t, int16_t *id, unsigned *type)
{
    unsigned b;
    int64_t v;
    if (t->bad || t->depth == 0)
        return 0;
    if (t->p >= t->end) {
        th_read_fail(t, "the metadata ends inside a struct");
        return 0;
    }
    b = *t->p++;
    if (b == 0) {
        t->depth--;
        return 0;
    }
    *type = b & 0x0F;
    if (b >> 4 != 0) {
        v = t->last[t->depth - 1] + (int)(b >> 4);
    } else {
        v = unzigzag(varint(t));
    }
    if (v < -32768 || v > 32767) {
        th_read_fail(t, "a field id out of range in the metadata");
        return 0;
    }
    *id = (int16_t)v;
    t->last[t->depth - 1] = *id;
    return !t->bad;
}

void th_read_struct(th_reader *t)
{
    if (t->bad)
        return;
    if (t->depth >= TH_DEPTH) {
        th_read_fail(t, "structs nested too deep in the metadata");
        return;
    }
    t->last[t->depth++] = 0;
}

int64_t th_read_int(th_reader *t, unsigned type)
{
    int64_t v;
    if (type == TH_I8) {
        if (t->p >= t->end) {
            th_read_fail(t, "the metadata ends inside a number");
            return 0;
        }
        return (int8_t)*t->p++;
    }
    if (type != TH_I16 && type != TH_I32 && type != TH_I64) {
        th_read_fail(t, "a field of the wrong type in the metadata");
        return 0;
    }
    v = unzigzag(varint(t));
    if ((type == TH_I16 && (v < INT16_MIN || v > INT16_MAX)) ||
        (type == TH_I32 && (v < INT32_MIN || v > INT32_MAX))) {
        th_read_fail(t, "a number out of its type's range in the metadata");
        return 0;
    }
    return v;
}

const unsigned char *th_read_binary(th_reader *t, size_t *n)
{
    uint64_t len = varint(t);
    const unsigned char *q = t->p;
    *n = 0;
    if (t->bad)
        return NULL;
    if (len > (uint64_t)(t->end - t->p)) {
        th_read_fail(t, "a string longer than the metadata left");
        return NULL;
    }
    t->p += len;
    *n = (size_t)len;
    return q;
}

size_t th_read_list(th_reader *t, unsigned *elem)
{
    unsigned b;
    uint64_t n;
    if (t->bad)
        return 0;
    if (t->p >= t->end) {
        th_read_fail(t, "the metadata ends inside a list");
        return 0;
    }
    b = *t->p++;
    *elem = b & 0x0F;
    n = b >> 4;
    if (n == 15)
        n = varint(t);
    /* every element takes at least a byte */
    if (!t->bad && n > (uint64_t)(t->end - t->p)) {
        th_read_fail(t, "a list longer than the metadata left");
        return 0;
    }
    return t->bad ? 0 : (size_t)n;
}

static void skip(th_reader *t, unsigned type, int in_list, unsigned level)
{
    size_t n, k;
    unsigned elem, kt;
    int16_t id;
    if (t->bad)
        return;
    switch (type) {
    case TH_TRUE:
    case TH_FALSE:
    case TH_I8:
        /* (a bool field's value is in its type; a list's is a byte) */
        if ((type == TH_TRUE || type == TH_FALSE) && !in_list)
            return;
        if (t->p >= t->end)
            th_read_fail(t, "the metadata ends inside a value");
        else
            t->p++;
        return;
    case TH_I16:
    case TH_I32:
    case TH_I64:
        (void)varint(t);
        return;
    case TH_DOUBLE:
        if ((size_t)(t->end - t->p) < 8)
            th_read_fail(t, "the metadata ends inside a value");
        else
            t->p += 8;
        return;
    case TH_BINARY:
        (void)th_read_binary(t, &n);
        return;
    case TH_LIST:
    case TH_SET:
        n = th_read_list(t, &elem);
        if (level >= TH_DEPTH) {
            th_read_fail(t, "values nested too deep in the metadata");
            return;
        }
        for (k = 0; k < n && !t->bad; k++)
            skip(t, elem, 1, level + 1);
        return;
    case TH_MAP:
        n = (size_t)varint(t);
        if (n == 0 || t->bad)
            return;
        if (n > (size_t)(t->end - t->p) || t->p >= t->end) {
            th_read_fail(t, "a map longer than the metadata left");
            return;
        }
        kt = *t->p++;
        if (level >= TH_DEPTH) {
            th_read_fail(t, "values nested too deep in the metadata");
            return;
        }
        for (k = 0; k < n && !t->bad; k++) {
            skip(t, kt >> 4, 1, level + 1);
            skip(t, kt & 0x0F, 1, level + 1);
        }
        return;
    case TH_STRUCT:
        th_read_struct(t); /* (bounded by TH_DEPTH) */
        while (th_read_field(t, &id, &elem))
            skip(t, elem, 0, level + 1);
        return;
    default:
        th_read_fail(t, "an unknown type in the metadata");
    }
}

void th_skip(th_reader *t, unsigned type, int in_list)
{
    skip(t, type, in_list, 0);
}

void th_read_need(th_reader *t, uint32_t seen, uint32_t want, const char *what)
{
    if (!t->bad && (seen & want) != want)
        th_read_fail(t, what);
}
