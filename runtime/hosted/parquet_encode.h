/* Parquet's encodings beyond PLAIN, for parquet_write.c: the RLE /
 * bit-packed hybrid (levels, dictionary indices) and a dictionary of byte
 * strings or of numbers.  Private to the hosted layer. */
#ifndef FEATC_PARQUET_ENCODE_H
#define FEATC_PARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "thrift.h"

/* The bits that hold max (0 for 0). */
unsigned pq_bit_width(uint32_t max);

/* v[0..n) (bytes, or uint32_t when wide) in the hybrid of bit width width
 * (1 to 32; every value must fit): runs of 8 or more equal values as RLE
 * runs, the rest bit-packed in groups of 8 (the last group padded with
 * zeros). */
void pq_hybrid(th_buf *b, const void *v, int wide, size_t n, unsigned width);

/* A dictionary: its values PLAIN-encoded in values, as its dictionary
 * page holds them.  Byte strings (width 0): a 4-byte length and the
 * bytes, at[i] where entry i starts.  Numbers (width 4 or 8): each
 * value's width little-endian bytes, keys[i] entry i's bits.  An
 * open-addressing table of entry + 1 (0: empty) finds them. */
typedef struct pq_dict {
    th_buf values;
    unsigned width;
    uint32_t *at;
    uint64_t *keys;
    uint32_t n, cap;
    uint32_t *slots;
    uint32_t nslots; /* a power of 2, or 0 */
} pq_dict;

/* *index: p[0..len)'s entry (or x's, a number's bits: an INT32's or a
 * FLOAT's in the low 32), added when new.  0 (found), 1 (added: a value
 * the chunk's statistics take, once), or -1 out of memory (or past 2^32
 * bytes: a dictionary is far smaller, see parquet_write.c). */
int pq_dict_index(pq_dict *d, const unsigned char *p, size_t len, uint32_t *index);
int pq_dict_number(pq_dict *d, uint64_t x, uint32_t *index);
/* Entry e's PLAIN bytes, as a data page holds the value (a byte string's
 * after its 4-byte length), and their length in *len. */
const unsigned char *pq_dict_plain(const pq_dict *d, uint32_t e, size_t *len);
void pq_dict_clear(pq_dict *d);
void pq_dict_free(pq_dict *d);

#endif
