/* featc runtime, hosted: Arrow arrays into Apache Parquet files
 * (https://parquet.apache.org/docs/file-format/), for the tables DuckDB,
 * Polars, Spark, pandas and BigQuery read.
 *
 * The writer takes the struct arrays fc_arrow_export gives (a row per
 * record, a child per column) and their schema, the types of
 * docs/arrow.md's mapping: int64 "l" (INT64), float32 "f" (FLOAT), binary
 * "z" and large_binary "Z" (BYTE_ARRAY), list, large_list and
 * fixed_size_list (Parquet's standard three-level LIST: "group KEY (LIST)
 * { repeated group list { ELEMENT element } }"), and struct (a group).
 * Every field is REQUIRED (featc writes no nulls); the Arrow schema is
 * stored in the file's key-value metadata under "ARROW:schema" (its IPC
 * message in base64, as Arrow's own writer stores it), so that Arrow
 * readers restore fixed_size_list and large types.
 *
 * Pages are version 1 data pages, levels in the RLE / bit-packed hybrid,
 * numbers PLAIN, byte strings as indices into the column chunk's
 * dictionary while it pays (docs/parquet.md) and PLAIN after, each page at
 * most about page_bytes of values and starting at a row.  A row group holds row_group_rows rows (the last one
 * fewer); each column chunk carries its statistics (null count; minimum
 * and maximum in the type's order, NaN left out, a byte string's when
 * both are at most 4 KiB) and the footer gives every column the type's
 * order.  GZIP is zlib's (which libfeatc links); SNAPPY and ZSTD go
 * through opt->compress, so that libfeatc needs neither library (featc's
 * CLI passes libsnappy's and libzstd's).
 *
 * Memory: this layer allocates: the row group being written (each
 * column's compressed pages), one page's levels and values per column,
 * and the footer's metadata; it neither closes nor flushes f. */
#ifndef FEATC_FC_PARQUET_H
#define FEATC_FC_PARQUET_H

#include <stdint.h>
#include <stdio.h>

#include "fc_arrow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parquet's codec numbers (CompressionCodec in parquet.thrift). */
#define FC_PARQUET_UNCOMPRESSED 0
#define FC_PARQUET_SNAPPY 1
#define FC_PARQUET_GZIP 2
#define FC_PARQUET_BROTLI 4
#define FC_PARQUET_LZ4 5 /* Hadoop's framing, deprecated: not read */
#define FC_PARQUET_ZSTD 6
#define FC_PARQUET_LZ4_RAW 7

#define FC_PARQUET_ROW_GROUP_ROWS 65536u
#define FC_PARQUET_PAGE_BYTES (1u << 20)

/* Compresses src[0..n) with codec into *dst (which it may grow with
 * realloc, *cap its size) and sets *len: FC_OK, or an error in err. */
typedef int (*fc_parquet_compress_fn)(void *ctx, int codec, const void *src, size_t n,
                                      unsigned char **dst, size_t *cap, size_t *len,
                                      fc_error *err);

typedef struct fc_parquet_options {
    int codec;                       /* FC_PARQUET_*; 0 uncompressed */
    int level;                       /* GZIP's level, 0 for zlib's default */
    fc_parquet_compress_fn compress; /* SNAPPY and ZSTD */
    void *compress_ctx;
    uint64_t row_group_rows;         /* 0: FC_PARQUET_ROW_GROUP_ROWS */
    size_t page_bytes;               /* 0: FC_PARQUET_PAGE_BYTES */
    const char *created_by;          /* NULL: "featc version X.Y.Z" */
} fc_parquet_options;

/* open checks the schema (a struct "+s" of the types above, at most 64
 * levels deep) and writes the magic; write adds a struct array of that
 * schema (rows go into the current row group; a full one is written
 * out); close writes the last row group and the footer and frees the
 * writer.  FC_OK, FC_ERR_IO (f could not be written), FC_ERR_NO_MEMORY,
 * FC_ERR_ARG / FC_ERR_UNSUPPORTED (a schema, array or option it cannot
 * write, a null: every field is REQUIRED).  An array refused for its shape
 * or a null is refused before any of it is written: the writer goes on as
 * before it.  After any other error of write, close frees the writer and
 * fails, the file incomplete. */
typedef struct fc_parquet fc_parquet;

int fc_parquet_open(fc_parquet **w, FILE *f, const struct ArrowSchema *schema,
                    const fc_parquet_options *opt, fc_error *err);
int fc_parquet_write(fc_parquet *w, const struct ArrowArray *batch, fc_error *err);
int fc_parquet_close(fc_parquet *w, fc_error *err);
/* Bytes written so far. */
uint64_t fc_parquet_bytes(const fc_parquet *w);

/* The codec a name says ("none" or "uncompressed", "snappy", "gzip",
 * "zstd", in any case: the codecs the writer has), or -1. */
int fc_parquet_codec(const char *name);
/* A codec's name ("uncompressed", "snappy", ...; "LZ4" for 5, the
 * deprecated framing, and "codec N" beyond). */
const char *fc_parquet_codec_name(int codec);

/* ------------------------------------------------------------ reading
 *
 * The reader takes a whole Parquet file in memory (mapped, or read) and
 * gives its schema and, a row group at a time, its rows as Arrow arrays:
 * a struct "+s" of the top-level columns.  It reads the files DuckDB,
 * Arrow, Spark and featc write: the standard LIST (three levels, and the
 * two-level forms the format's compatibility rules name) as large_list
 * "+L", a plain group as a struct, a bare repeated field as a large_list
 * of required values; leaves as INT32 "i" (unsigned "I"), INT64 "l"
 * (unsigned "L"), FLOAT "f", DOUBLE "g", BOOLEAN "b", BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY as large_binary "Z" (a STRING or UTF8 one "U");
 * OPTIONAL fields as nullable columns (validity bitmaps).  Pages of
 * version 1 and 2, dictionary pages; encodings PLAIN, PLAIN_DICTIONARY
 * and RLE_DICTIONARY, RLE (levels, booleans), DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT;
 * codecs UNCOMPRESSED and GZIP here, others through opt->decompress.
 * What it refuses, with FC_ERR_UNSUPPORTED: MAP columns, INT96, and
 * logical types whose values are not plain numbers or bytes (DECIMAL,
 * DATE, TIME, TIMESTAMP, INTERVAL, FLOAT16, UUID): cast them in the
 * query that writes the file.
 *
 * The file is untrusted: every offset, length and count in its footer and
 * page headers is checked against the file and the footer's own claims
 * (a page inside its column chunk, a chunk inside the file, the values a
 * chunk's pages hold against its metadata, levels within their maximum, a
 * dictionary index within the dictionary, each column's rows against the
 * row group's); an error (FC_ERR_DATA) names the byte offset where it was
 * met.  Memory: the footer's metadata, and a row group's columns at a
 * time, at most opt->max_bytes of values (and as many levels) per column
 * chunk; data is neither copied nor freed, and must outlive the reader
 * and every batch it gave. */

/* Decompresses src[0..n) (codec) into exactly dst[0..dst_len): FC_OK, or
 * an error in err (a size other than dst_len included). */
typedef int (*fc_parquet_decompress_fn)(void *ctx, int codec, const void *src, size_t n,
                                        void *dst, size_t dst_len, fc_error *err);

#define FC_PARQUET_MAX_BYTES ((size_t)1 << 30)

typedef struct fc_parquet_read_options {
    fc_parquet_decompress_fn decompress; /* codecs beyond UNCOMPRESSED and GZIP */
    void *decompress_ctx;
    size_t max_bytes;                    /* 0: FC_PARQUET_MAX_BYTES */
    /* A row group's column chunks decoded on up to this many threads, the
     * caller's one of them (0, 1: the caller's alone); the other threads'
     * decompress contexts from decompress_ctx_new (NULL: theirs is NULL),
     * freed by decompress_ctx_free at close. */
    unsigned threads;
    void *(*decompress_ctx_new)(void);
    void (*decompress_ctx_free)(void *ctx);
} fc_parquet_read_options;

typedef struct fc_parquet_reader fc_parquet_reader;

/* open reads and checks the footer and the schema (opt may be NULL);
 * schema gives the Arrow schema of the batches; next gives the next row
 * group (FC_END after the last); seek makes group (0 ... groups; groups:
 * the end) the next one, so that readers over the same bytes, one per
 * thread, can each decode groups of their own; rows is the footer's row
 * count, groups its number of row groups, offset the file offset reading
 * has reached. */
int fc_parquet_read_open(fc_parquet_reader **r, const void *data, size_t len,
                         const fc_parquet_read_options *opt, fc_error *err);
int fc_parquet_read_schema(const fc_parquet_reader *r, struct ArrowSchema *out, fc_error *err);
int fc_parquet_read_next(fc_parquet_reader *r, struct ArrowArray *out, fc_error *err);
int fc_parquet_read_seek(fc_parquet_reader *r, uint64_t group);
uint64_t fc_parquet_read_rows(const fc_parquet_reader *r);
uint64_t fc_parquet_read_groups(const fc_parquet_reader *r);
uint64_t fc_parquet_read_offset(const fc_parquet_reader *r);
void fc_parquet_read_close(fc_parquet_reader *r);

#ifdef __cplusplus
}
#endif

#endif
