/* Thrift's compact protocol (the encoding Parquet's metadata uses:
 * https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md),
 * written into a growable byte buffer; its types and limits, which the
 * reader (thrift_read.h) shares.  Private to the hosted layer. */
#ifndef FEATC_THRIFT_H
#define FEATC_THRIFT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes grown with realloc; oom sticks once an allocation failed (every
 * put after it does nothing), so that a writer checks once at the end.
 * A buffer that grows to 1 MiB or more moves into a big buffer
 * (fc_huge_alloc, fc_input.h: big set, cap its length; th_free frees
 * either kind), which grows without a copy: a Parquet column chunk's
 * values are megabytes built by doubling, and on the virtual machine
 * measured, each doubling's copy into fresh heap pages, page by page, made
 * most of a read's page faults (18,872 in a 20 MB sequence convert from
 * Parquet, 551 with this). */
typedef struct th_pool th_pool;

typedef struct th_buf {
    unsigned char *p;
    size_t n, cap;
    int oom;
    int big;
    th_pool *pool; /* NULL: malloc's; else under 1 MiB its pieces (set before the first put) */
} th_buf;

/* Pieces for many buffers under 1 MiB that grow together (a Parquet
 * writer's pages: levels, values, indices for each leaf), cut from big
 * buffers of several megabytes, so that a page first touched is a huge
 * page: on the virtual machine measured, a wide convert to Parquet's
 * 4 KiB pages of malloc were 2,500 of its 3,944 page faults, at about
 * 10 us each.  A piece is a power of 2 from 256 bytes; one given back (a
 * buffer that grew out of it) waits for the next buffer of its size.
 * Zeroed before use; th_pool_free unmaps it all, so every buffer of the
 * pool is done with by then.  Under AddressSanitizer every piece is
 * malloc's (its checks stop at the edges of a block). */
#define TH_POOL_CLASSES 12 /* 256 bytes to 512 KiB */
struct th_pool {
    unsigned char *at; /* the current region's uncut bytes */
    size_t left;
    void *regions;     /* a chain through each region's first bytes */
    void *free_[TH_POOL_CLASSES];
};
void th_pool_free(th_pool *pool);

unsigned char *th_room(th_buf *b, size_t k); /* k more bytes at p + n, or NULL */
/* th_room for a buffer whose size is known: room for k more bytes in one
 * step (no doublings), a big buffer from 256 KiB (a pool's buffers: as
 * th_room). */
unsigned char *th_reserve(th_buf *b, size_t k);
void th_put(th_buf *b, const void *p, size_t k);
void th_byte(th_buf *b, unsigned v);
void th_varint(th_buf *b, uint64_t v);
void th_le32(th_buf *b, uint32_t v);
void th_free(th_buf *b); /* (its pool stays) */

/* Compact types. */
enum { TH_TRUE = 1, TH_FALSE = 2, TH_I8 = 3, TH_I16 = 4, TH_I32 = 5, TH_I64 = 6,
       TH_DOUBLE = 7, TH_BINARY = 8, TH_LIST = 9, TH_SET = 10, TH_MAP = 11, TH_STRUCT = 12 };

#define TH_DEPTH 16

/* A struct being written: the last field id of each open struct. */
typedef struct th_writer {
    th_buf *b;
    int16_t last[TH_DEPTH];
    unsigned depth;
} th_writer;

void th_begin(th_writer *t, th_buf *b);        /* the outermost struct */
void th_i8(th_writer *t, int16_t id, int8_t v);
void th_i16(th_writer *t, int16_t id, int16_t v);
void th_i32(th_writer *t, int16_t id, int32_t v);
void th_i64(th_writer *t, int16_t id, int64_t v);
void th_bool(th_writer *t, int16_t id, int v);
void th_binary(th_writer *t, int16_t id, const void *p, size_t n);
void th_string(th_writer *t, int16_t id, const char *s);
void th_struct(th_writer *t, int16_t id);      /* then its fields, then th_end */
void th_list(th_writer *t, int16_t id, unsigned elem, size_t n);
void th_elem(th_writer *t);                    /* a struct element of a list, then th_end */
void th_list_i32(th_writer *t, int32_t v);     /* an i32 element */
void th_list_binary(th_writer *t, const void *p, size_t n);
void th_end(th_writer *t);                     /* closes a struct (the outermost too) */

#endif
