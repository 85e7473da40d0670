/* Thrift's compact protocol, written (thrift.h). */
#include "thrift.h"

#include <stdlib.h>
#include <string.h>

#include "featc/fc_input.h"
#include "huge.h"

/* A buffer of TH_MAP_FROM bytes or more is a big buffer (fc_huge_alloc). */
#define TH_MAP_FROM ((size_t)1 << 20)

/* ------------------------------------------------------------ pools */

#define TH_PIECE_MIN ((size_t)256)
#define TH_REGION ((size_t)8 << 20) /* (a few leaves' pages; untouched, it costs nothing) */

typedef struct th_region {
    struct th_region *next;
    size_t cap;
} th_region;

#ifndef FC_HUGE_HEAP
/* The class of a piece of c bytes (a power of 2 from 256). */
static unsigned piece_class(size_t c)
{
    unsigned k = 0;
    while ((TH_PIECE_MIN << k) < c)
        k++;
    return k;
}
#endif

static void pool_give(th_pool *pool, void *p, size_t c)
{
#ifdef FC_HUGE_HEAP
    (void)pool;
    (void)c;
    free(p);
#else
    unsigned k = piece_class(c);
    *(void **)p = pool->free_[k];
    pool->free_[k] = p;
#endif
}

/* A piece of c bytes (a power of 2 from 256 to 512 KiB), or NULL. */
static unsigned char *pool_take(th_pool *pool, size_t c)
{
#ifdef FC_HUGE_HEAP
    (void)pool;
    return (unsigned char *)malloc(c);
#else
    unsigned k = piece_class(c);
    unsigned char *p = (unsigned char *)pool->free_[k];
    if (p != NULL) {
        pool->free_[k] = *(void **)p;
        return p;
    }
    if (pool->left < c) {
        size_t cap = TH_REGION;
        th_region *r;
        while (pool->left >= TH_PIECE_MIN) { /* the rest, cut as large as it goes */
            size_t piece = TH_PIECE_MIN << (TH_POOL_CLASSES - 1);
            while (piece > pool->left)
                piece /= 2;
            pool_give(pool, pool->at, piece);
            pool->at += piece;
            pool->left -= piece;
        }
        if ((r = (th_region *)fc_huge_alloc(&cap)) == NULL)
            return NULL;
        r->next = (th_region *)pool->regions;
        r->cap = cap;
        pool->regions = r;
        pool->at = (unsigned char *)r + TH_PIECE_MIN; /* (the region's own, the first) */
        pool->left = cap - TH_PIECE_MIN;
    }
    p = pool->at;
    pool->at += c;
    pool->left -= c;
    return p;
#endif
}

void th_pool_free(th_pool *pool)
{
    th_region *r = (th_region *)pool->regions, *next;
    for (; r != NULL; r = next) {
        next = r->next;
        fc_huge_free(r, r->cap);
    }
    memset(pool, 0, sizeof *pool);
}

/* ------------------------------------------------------------ buffers */

/* b's piece (or malloc's block) given back. */
static void th_drop(th_buf *b)
{
    if (b->p == NULL)
        return;
    if (b->pool != NULL)
        pool_give(b->pool, b->p, b->cap);
    else
        free(b->p);
}

/* b's bytes in a big buffer of at least c bytes: 0, or -1. */
static int th_map(th_buf *b, size_t c)
{
    unsigned char *m;
    if (b->big) {
        if ((m = (unsigned char *)fc_huge_grow(b->p, b->cap, &c)) == NULL)
            return -1;
    } else {
        if ((m = (unsigned char *)fc_huge_alloc(&c)) == NULL)
            return -1;
        if (b->n > 0)
            memcpy(m, b->p, b->n);
        th_drop(b);
    }
    b->p = m;
    b->cap = c;
    b->big = 1;
    return 0;
}

unsigned char *th_room(th_buf *b, size_t k)
{
    if (b->oom)
        return NULL;
    if (b->p == NULL || k > b->cap - b->n) {
        size_t c = b->cap > 0 ? b->cap : 256;
        unsigned char *q;
        while (c - b->n < k) {
            if (c > SIZE_MAX / 2) {
                b->oom = 1;
                return NULL;
            }
            c *= 2;
        }
        if (c >= TH_MAP_FROM) {
            if (th_map(b, c) != 0) {
                b->oom = 1;
                return NULL;
            }
            return b->p + b->n;
        }
        if (b->pool != NULL) {
            if ((q = pool_take(b->pool, c)) == NULL) {
                b->oom = 1;
                return NULL;
            }
            if (b->n > 0)
                memcpy(q, b->p, b->n);
            th_drop(b);
            b->p = q;
            b->cap = c;
            return b->p + b->n;
        }
        q = (unsigned char *)realloc(b->p, c);
        if (q == NULL) {
            b->oom = 1;
            return NULL;
        }
        b->p = q;
        b->cap = c;
    }
    return b->p + b->n;
}

#define TH_RESERVE_BIG ((size_t)256 << 10)

unsigned char *th_reserve(th_buf *b, size_t k)
{
    if (b->oom)
        return NULL;
    if (b->p != NULL && k <= b->cap - b->n)
        return b->p + b->n;
    if (b->pool != NULL || k > SIZE_MAX - b->n || b->n + k < TH_RESERVE_BIG)
        return th_room(b, k);
    if (th_map(b, b->n + k) != 0) {
        b->oom = 1;
        return NULL;
    }
    return b->p + b->n;
}

void th_put(th_buf *b, const void *p, size_t k)
{
    unsigned char *q = th_room(b, k);
    if (q != NULL && k > 0) {
        memcpy(q, p, k);
        b->n += k;
    }
}

void th_byte(th_buf *b, unsigned v)
{
    unsigned char *q = th_room(b, 1);
    if (q != NULL) {
        *q = (unsigned char)v;
        b->n++;
    }
}

void th_varint(th_buf *b, uint64_t v)
{
    unsigned char *q = th_room(b, 10);
    size_t k = 0;
    if (q == NULL)
        return;
    while (v >= 0x80) {
        q[k++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    q[k++] = (unsigned char)v;
    b->n += k;
}

void th_le32(th_buf *b, uint32_t v)
{
    unsigned char q[4];
    q[0] = (unsigned char)v;
    q[1] = (unsigned char)(v >> 8);
    q[2] = (unsigned char)(v >> 16);
    q[3] = (unsigned char)(v >> 24);
    th_put(b, q, 4);
}

void th_free(th_buf *b)
{
    th_pool *pool = b->pool;
    if (b->big)
        fc_huge_free(b->p, b->cap);
    else
        th_drop(b);
    memset(b, 0, sizeof *b);
    b->pool = pool;
}

static uint64_t zigzag(int64_t v)
{
    return v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
}

void th_begin(th_writer *t, th_buf *b)
{
    t->b = b;
    t->depth = 0;
    t->last[0] = 0;
}

/* A field's header: the id as a delta from the last one when it fits. */
static void field(th_writer *t, int16_t id, unsigned type)
{
    int d = id - t->last[t->depth];
    if (d > 0 && d <= 15) {
        th_byte(t->b, (unsigned)d << 4 | type);
    } else {
        th_byte(t->b, type);
        th_varint(t->b, zigzag(id));
    }
    t->last[t->depth] = id;
}

static void open_struct(th_writer *t)
{
    if (t->depth + 1 < TH_DEPTH)
        t->last[++t->depth] = 0;
    else
        t->b->oom = 1; /* deeper than any Parquet struct: a bug, never written */
}

void th_i8(th_writer *t, int16_t id, int8_t v)
{
    field(t, id, TH_I8);
    th_byte(t->b, (unsigned)(uint8_t)v); /* (the compact protocol's byte: as is) */
}

void th_i16(th_writer *t, int16_t id, int16_t v)
{
    field(t, id, TH_I16);
    th_varint(t->b, zigzag(v));
}

void th_i32(th_writer *t, int16_t id, int32_t v)
{
    field(t, id, TH_I32);
    th_varint(t->b, zigzag(v));
}

void th_i64(th_writer *t, int16_t id, int64_t v)
{
    field(t, id, TH_I64);
    th_varint(t->b, zigzag(v));
}

void th_bool(th_writer *t, int16_t id, int v)
{
    field(t, id, v ? TH_TRUE : TH_FALSE);
}

void th_binary(th_writer *t, int16_t id, const void *p, size_t n)
{
    field(t, id, TH_BINARY);
    th_varint(t->b, n);
    th_put(t->b, p, n);
}

void th_string(th_writer *t, int16_t id, const char *s)
{
    th_binary(t, id, s, strlen(s));
}

void th_struct(th_writer *t, int16_t id)
{
    field(t, id, TH_STRUCT);
    open_struct(t);
}

void th_list(th_writer *t, int16_t id, unsigned elem, size_t n)
{
    field(t, id, TH_LIST);
    if (n < 15) {
        th_byte(t->b, (unsigned)n << 4 | elem);
    } else {
        th_byte(t->b, 0xF0u | elem);
        th_varint(t->b, n);
    }
}

void th_elem(th_writer *t)
{
    open_struct(t);
}

void th_list_i32(th_writer *t, int32_t v)
{
    th_varint(t->b, zigzag(v));
}

void th_list_binary(th_writer *t, const void *p, size_t n)
{
    th_varint(t->b, n);
    th_put(t->b, p, n);
}

void th_end(th_writer *t)
{
    th_byte(t->b, 0);
    if (t->depth > 0)
        t->depth--;
}
