/* The Parquet writer's pages, chunks, row groups and footer
 * (parquet_pages.c), and the writer's state they and parquet_write.c (the
 * schema, the values and levels of each leaf, the API) share.  Private to
 * the hosted layer. */
#ifndef FEATC_PARQUET_PAGES_H
#define FEATC_PARQUET_PAGES_H

#include "featc/fc_parquet.h"

#include <zlib.h>

#include "parquet_encode.h"
#include "thrift.h"

#define PQ_DEPTH 64
#define STAT_MAX 4096 /* longest byte string kept as a minimum or maximum */
/* A chunk of byte strings or numbers (all but float16's) is
 * dictionary-encoded while its dictionary stays under DICT_MAX bytes and,
 * past DICT_TRY values, holds fewer entries than half its values (else a
 * repeat is too rare to pay for the indices): then its pages go on PLAIN
 * to the chunk's end. */
#define DICT_MAX (1u << 20)
#define DICT_TRY 1024u

/* Parquet's enums (parquet.thrift). */
enum { PT_INT32 = 1, PT_INT64 = 2, PT_FLOAT = 4, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6, PT_FIXED = 7 };
enum { REP_REQUIRED = 0, REP_REPEATED = 2 };
enum { CT_LIST = 3, CT_UINT_8 = 11, CT_UINT_16 = 12, CT_INT_8 = 15, CT_INT_16 = 16,
       CT_INT_32 = 17 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

/* What a step from a node to the next on a leaf's path is. */
enum { S_STRUCT, S_LIST, S_LARGE_LIST, S_FIXED };
/* A leaf's value: the record's types, then the typed tensors of `as`
 * (docs/spec-language.md), each in the Parquet type that holds it
 * (pq_value_type). */
enum { V_INT64, V_FLOAT, V_BINARY, V_LARGE_BINARY, V_INT8, V_UINT8, V_INT16, V_UINT16, V_INT32,
       V_FLOAT16, V_DOUBLE };
#define PQ_IS_BYTES(v) ((v) == V_BINARY || (v) == V_LARGE_BINARY)
int pq_value_type(int value); /* its physical type */
/* The width of its values in a dictionary (0: byte strings), or -1 for
 * none (float16's: PLAIN). */
int pq_dict_width(int value);

typedef struct pq_step {
    int kind;
    int64_t arg; /* S_STRUCT: the child; S_FIXED: the size */
} pq_step;

typedef struct pq_stats {
    int has;                /* a minimum and maximum seen */
    int too_long;           /* a byte string past STAT_MAX: none written */
    int64_t imin, imax;
    double fmin, fmax;      /* a float's, double's or float16's */
    uint16_t hmin, hmax;    /* a float16's: the bits of fmin and fmax */
    th_buf bmin, bmax;
} pq_stats;

/* A column chunk written: what the footer says of it. */
typedef struct pq_chunk {
    uint64_t offset, data_offset, values, raw, packed; /* offset: the dictionary's, if any */
    int plain, dict;                                   /* the encodings its pages use */
    unsigned char *min, *max; /* NULL: none */
    size_t min_len, max_len;
} pq_chunk;

typedef struct pq_leaf {
    int64_t column; /* the top-level child */
    pq_step steps[PQ_DEPTH];
    unsigned nsteps;
    int value;
    unsigned max_level; /* both levels' maximum: the lists on the path */
    const char *path[2 * PQ_DEPTH + 2]; /* a list adds two: its name and "list" */
    unsigned npath;
    th_buf rep, def, vals; /* the page being built */
    uint64_t page_levels;
    th_buf idx;            /* ... its dictionary indices (uint32_t), when dict_on */
    th_buf chunk;          /* this row group's data pages */
    uint64_t chunk_levels, chunk_raw, chunk_values;
    int dict_on, plain_used, dict_used;
    pq_dict dict;          /* this chunk's dictionary */
    pq_stats st;
} pq_leaf;

typedef struct pq_group {
    uint64_t rows;
    pq_chunk *chunks; /* a chunk per leaf */
} pq_group;

struct fc_parquet {
    FILE *out;
    uint64_t pos;
    fc_parquet_options opt;
    const struct ArrowSchema *sch;
    th_buf schema_elems; /* the footer's SchemaElements, already encoded */
    size_t nelems;
    pq_leaf *leaves;
    size_t nleaves;
    uint64_t group_rows, rows;
    pq_group *groups;
    size_t ngroups, groups_cap;
    th_pool pool;          /* the leaves' buffers', and the scratch's */
    th_buf page, hdr;      /* scratch: a page's bytes, its PageHeader */
    unsigned char *zbuf;   /* the compressor's output */
    size_t zcap;
    z_stream z;            /* GZIP's, reset for each page */
    int z_ready;
    char *arrow_schema;    /* base64 of the schema's IPC message */
    int failed;
};

int pq_fail(fc_error *err, int status, const char *what, const char *detail);
int pq_oom(fc_parquet *w, fc_error *err); /* (the writer failed) */
int pq_out(fc_parquet *w, const void *p, size_t n, fc_error *err); /* to the file */
/* The leaf's page into its chunk; after a row, the end of
 * a dictionary that stopped paying; the row group into the file; the
 * footer's FileMetaData into b. */
int pq_flush_page(fc_parquet *w, pq_leaf *L, fc_error *err);
int pq_dict_check(fc_parquet *w, pq_leaf *L, fc_error *err);
int pq_flush_group(fc_parquet *w, fc_error *err);
void pq_put_footer(fc_parquet *w, th_buf *b);
/* Frees what the pages use (scratch buffers, the compressor). */
void pq_pages_free(fc_parquet *w);

#endif
