/* Parquet's encodings read back, for parquet_read.c: the RLE / bit-packed
 * hybrid, PLAIN, the DELTA encodings and BYTE_STREAM_SPLIT, each over
 * untrusted bytes [p, p + n) and a count of values the page header claims.
 * Each returns NULL, or what is wrong (a static text); *used, where given,
 * is the bytes it read.  Values come out in the host's order.  Private to
 * the hosted layer. */
#ifndef FEATC_PARQUET_DECODE_H
#define FEATC_PARQUET_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* Parquet's physical types and encodings (parquet.thrift). */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
       PQ_BYTE_ARRAY = 6, PQ_FIXED = 7 };
enum { PQ_PLAIN = 0, PQ_PLAIN_DICTIONARY = 2, PQ_RLE = 3, PQ_BIT_PACKED = 4,
       PQ_DELTA_BINARY_PACKED = 5, PQ_DELTA_LENGTH_BYTE_ARRAY = 6, PQ_DELTA_BYTE_ARRAY = 7,
       PQ_RLE_DICTIONARY = 8, PQ_BYTE_STREAM_SPLIT = 9 };

/* 1 when v is an Encoding parquet.thrift defines (0, 2 to 9; 1 was
 * GROUP_VAR_INT, long gone), as DuckDB requires of every one a file names. */
int pq_encoding_known(int64_t v);

/* The little-endian 32-bit number at p (lengths in pages and the footer's). */
uint32_t pq_le32(const unsigned char *p);

/* A byte string: a view, into a page, a dictionary or a scratch buffer. */
typedef struct pq_view {
    const unsigned char *p;
    size_t n;
} pq_view;

/* n values of width bits (0 to 32) from the hybrid into out. */
const char *pq_unhybrid(const unsigned char *p, size_t len, unsigned width, uint32_t *out,
                        size_t n);

/* n PLAIN values of a fixed-width type (BOOLEAN one byte each out, INT32
 * and FLOAT 4, INT64 and DOUBLE 8; FIXED_LEN_BYTE_ARRAY: views, width
 * type_length) into out. */
const char *pq_plain_fixed(const unsigned char *p, size_t len, int type, size_t type_length,
                           void *out, size_t n, size_t *used);
/* n PLAIN BYTE_ARRAY values (a 4-byte length, the bytes) as views. */
const char *pq_plain_bytes(const unsigned char *p, size_t len, pq_view *out, size_t n,
                           size_t *used);

/* n DELTA_BINARY_PACKED values (INT32: 4 bytes each out, wrapping as the
 * format says; INT64: 8). */
const char *pq_delta_ints(const unsigned char *p, size_t len, int wide, void *out, size_t n,
                          size_t *used);
/* n DELTA_LENGTH_BYTE_ARRAY values as views; lens: room for n lengths. */
const char *pq_delta_length(const unsigned char *p, size_t len, pq_view *out, int64_t *lens,
                            size_t n, size_t *used);
/* n DELTA_BYTE_ARRAY values: each the previous one's prefix and a suffix,
 * built in scratch (which the caller sized at *need, the values' total,
 * a first call with scratch NULL giving it; at most max, else an error);
 * lens: room for 2n lengths. */
const char *pq_delta_bytes(const unsigned char *p, size_t len, pq_view *out, int64_t *lens,
                           size_t n, unsigned char *scratch, size_t *need, size_t max);
/* n BYTE_STREAM_SPLIT values of width bytes (4 or 8, or a
 * FIXED_LEN_BYTE_ARRAY's type_length into scratch as views). */
const char *pq_stream_split(const unsigned char *p, size_t len, size_t width, void *out,
                            size_t n);

#endif
