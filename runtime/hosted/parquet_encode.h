/* Parquet's encodings beyond PLAIN, for parquet_write.c: the RLE /
 * bit-packed hybrid (levels, dictionary indices) and a dictionary of byte
 * strings.  Private to the hosted layer. */
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

/* A dictionary: its values PLAIN-encoded (a 4-byte length, the bytes) in
 * values, at[i] where entry i starts there; an open-addressing table of
 * entry + 1 (0: empty) finds them. */
typedef struct pq_dict {
    th_buf values;
    uint32_t *at;
    uint32_t n, cap;
    uint32_t *slots;
    uint32_t nslots; /* a power of 2, or 0 */
} pq_dict;

/* *index: p[0..len)'s entry, added when new.  0, or -1 out of memory (or
 * past 2^32 bytes: a dictionary is far smaller, see parquet_write.c). */
int pq_dict_index(pq_dict *d, const unsigned char *p, size_t len, uint32_t *index);
void pq_dict_clear(pq_dict *d);
void pq_dict_free(pq_dict *d);

#endif
