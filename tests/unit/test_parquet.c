/* The Parquet writer's and reader's C API (fc_parquet.h) at their edges.
 * Writer: what it refuses (a schema of a type it does not write, a schema
 * that is not a struct, a codec without its compress function, an array
 * holding a null, a schema nested past 64 levels), a file that cannot be
 * written, and the bytes of a small file: framed by "PAR1", the footer's
 * length inside it, the PLAIN values of a column in the file, the Arrow
 * schema's key; a typed tensor's column of each type, little-endian in the
 * file on any host.  Reader: the small file read back (uncompressed and GZIP)
 * to its values in the host's byte order, and the typed columns too, a codec it was given no
 * decompressor for, and the file cut at every length and with every byte
 * of its footer changed: an error with a message, never a crash.  The
 * values other readers see are test-arrow's (DuckDB, hyparquet and Polars
 * read every file featc convert writes; featc reads DuckDB's); ASan runs
 * these in test-unit-asan.  Threads: the Parquet seeds of fuzz_parquet
 * (DuckDB's files, every codec and page version, and damaged ones) read
 * with opt.threads 3 give the arrays, errors and offsets of one thread;
 * ThreadSanitizer runs this in test-pool-tsan.  The writer's buffer pool
 * (runtime/hosted/thrift.h, private: included here by path): many buffers
 * grown in turns, freed and begun again, past a region and past 1 MiB,
 * each keeps its own bytes (under ASan the pool is malloc's, so this is
 * the optimised build's test). */
#include <featc/fc.h>
#include <featc/fc_parquet.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/hosted/thrift.h"
#include "arrow_same.h"
#include "harness.h"

/* ------------------------------------------------------------ hand-built arrays */

static void no_release_schema(struct ArrowSchema *s)
{
    s->release = NULL;
}

static void no_release_array(struct ArrowArray *a)
{
    a->release = NULL;
}

static void leaf_schema(struct ArrowSchema *s, const char *format, const char *name)
{
    memset(s, 0, sizeof *s);
    s->format = format;
    s->name = name;
    s->release = no_release_schema;
}

static struct ArrowSchema col_schema, *col_schema_p = &col_schema;
static struct ArrowSchema top_schema;
static struct ArrowArray col_array, *col_array_p = &col_array;
static struct ArrowArray top_array;
static const void *col_buffers[2];
static const void *top_buffers[1];
static const int64_t values[3] = {5, -3, 700};

/* A struct of one int64 column "v" of values (null_count nulls). */
static void build(const char *format, int64_t null_count)
{
    leaf_schema(&col_schema, format, "v");
    leaf_schema(&top_schema, "+s", "");
    top_schema.n_children = 1;
    top_schema.children = &col_schema_p;
    memset(&col_array, 0, sizeof col_array);
    col_buffers[0] = NULL;
    col_buffers[1] = values;
    col_array.length = 3;
    col_array.null_count = null_count;
    col_array.n_buffers = 2;
    col_array.buffers = col_buffers;
    col_array.release = no_release_array;
    memset(&top_array, 0, sizeof top_array);
    top_buffers[0] = NULL;
    top_array.length = 3;
    top_array.n_buffers = 1;
    top_array.buffers = top_buffers;
    top_array.n_children = 1;
    top_array.children = &col_array_p;
    top_array.release = no_release_array;
}

static const unsigned char *find(const unsigned char *hay, size_t n, const void *needle,
                                 size_t k)
{
    size_t i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return hay + i;
    return NULL;
}

/* ------------------------------------------------------------ cases */

static void test_small_file(void)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fc_parquet *w = NULL;
    fc_error err;
    unsigned char le[24];
    uint32_t foot;
    int i, k;
    fc_error_clear(&err);
    build("l", 0);
    CHECK(f != NULL);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_OK);
    CHECK(fc_parquet_write(w, &top_array, &err) == FC_OK);
    CHECK(fc_parquet_bytes(w) == 4); /* one row group, in memory until close */
    CHECK(fc_parquet_close(w, &err) == FC_OK);
    fclose(f);
    CHECK(n > 12 && memcmp(buf, "PAR1", 4) == 0 && memcmp(buf + n - 4, "PAR1", 4) == 0);
    foot = (uint32_t)(unsigned char)buf[n - 8] | (uint32_t)(unsigned char)buf[n - 7] << 8 |
           (uint32_t)(unsigned char)buf[n - 6] << 16 | (uint32_t)(unsigned char)buf[n - 5] << 24;
    CHECK(foot > 0 && foot <= n - 12);
    for (i = 0; i < 3; i++)
        for (k = 0; k < 8; k++)
            le[i * 8 + k] = (unsigned char)((uint64_t)values[i] >> (8 * k));
    /* the page's values, PLAIN and uncompressed, before the footer */
    CHECK(find((const unsigned char *)buf, n - 8 - foot, le, 24) != NULL);
    CHECK(find((const unsigned char *)buf + n - 8 - foot, foot, "ARROW:schema", 12) != NULL);
    CHECK(find((const unsigned char *)buf + n - 8 - foot, foot, "featc version", 13) != NULL);
    free(buf);
}

static void test_refused(void)
{
    FILE *f = tmpfile();
    fc_parquet *w = NULL;
    fc_parquet_options opt;
    fc_error err;
    fc_error_clear(&err);
    CHECK(f != NULL);
    /* uint32 is not a type featc exports (int32 is: a typed tensor's) */
    build("I", 0);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_ERR_UNSUPPORTED && w == NULL);
    CHECK_CONTAINS(err.message, "no Parquet type for the Arrow format I");
    /* a fixed-size list without its size, or with a sign, is no type */
    build("+w:", 0);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_ERR_UNSUPPORTED && w == NULL);
    build("+w:-1", 0);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_ERR_UNSUPPORTED && w == NULL);
    build("+w: 2", 0);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_ERR_UNSUPPORTED && w == NULL);
    /* a batch's schema is a struct */
    build("l", 0);
    CHECK(fc_parquet_open(&w, f, &col_schema, NULL, &err) == FC_ERR_ARG && w == NULL);
    CHECK_CONTAINS(err.message, "is a struct");
    /* SNAPPY needs the caller's compress function */
    memset(&opt, 0, sizeof opt);
    opt.codec = FC_PARQUET_SNAPPY;
    CHECK(fc_parquet_open(&w, f, &top_schema, &opt, &err) == FC_ERR_ARG && w == NULL);
    CHECK_CONTAINS(err.message, "compress function");
    opt.codec = 4; /* BROTLI */
    CHECK(fc_parquet_open(&w, f, &top_schema, &opt, &err) == FC_ERR_ARG && w == NULL);
    /* a null: refused before any of the batch is written; the writer goes
     * on (a batch without a null, then a file of its 3 rows) */
    build("l", 1);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_OK);
    CHECK(fc_parquet_write(w, &top_array, &err) == FC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "a null");
    col_array.null_count = 0;
    CHECK(fc_parquet_write(w, &top_array, &err) == FC_OK);
    CHECK(fc_parquet_close(w, &err) == FC_OK);
    /* null_count -1 (not computed) with a validity bitmap: refused too */
    build("l", -1);
    col_buffers[0] = values;
    w = NULL;
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_OK);
    CHECK(fc_parquet_write(w, &top_array, &err) == FC_ERR_UNSUPPORTED);
    CHECK(fc_parquet_close(w, &err) == FC_OK);
    /* null_count -1 without a bitmap: no null */
    build("l", -1);
    w = NULL;
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_OK);
    CHECK(fc_parquet_write(w, &top_array, &err) == FC_OK);
    CHECK(fc_parquet_close(w, &err) == FC_OK);
    fclose(f);
}

/* A list nested 70 deep: refused at 64. */
static void test_deep(void)
{
    static struct ArrowSchema node[71], *kid[71];
    FILE *f = tmpfile();
    fc_parquet *w = NULL;
    fc_error err;
    int i;
    fc_error_clear(&err);
    leaf_schema(&node[70], "l", "element");
    for (i = 69; i >= 0; i--) {
        leaf_schema(&node[i], i == 0 ? "+s" : "+l", i == 1 ? "v" : "element");
        kid[i + 1] = &node[i + 1];
        node[i].n_children = 1;
        node[i].children = &kid[i + 1];
    }
    CHECK(fc_parquet_open(&w, f, &node[0], NULL, &err) == FC_ERR_UNSUPPORTED && w == NULL);
    CHECK_CONTAINS(err.message, "nested more than 64 levels");
    fclose(f);
}

/* A file open for reading only: the write fails, said. */
static void test_unwritable(void)
{
    FILE *f = fopen("/dev/null", "r");
    fc_parquet *w = NULL;
    fc_error err;
    fc_error_clear(&err);
    build("l", 0);
    CHECK(f != NULL);
    setvbuf(f, NULL, _IONBF, 0);
    CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_ERR_IO && w == NULL);
    CHECK_CONTAINS(err.message, "write failed");
    fclose(f);
}

static void test_codec_names(void)
{
    CHECK(fc_parquet_codec("zstd") == FC_PARQUET_ZSTD);
    CHECK(fc_parquet_codec("SNAPPY") == FC_PARQUET_SNAPPY);
    CHECK(fc_parquet_codec("GZip") == FC_PARQUET_GZIP);
    CHECK(fc_parquet_codec("none") == FC_PARQUET_UNCOMPRESSED);
    CHECK(fc_parquet_codec("uncompressed") == FC_PARQUET_UNCOMPRESSED);
    CHECK(fc_parquet_codec("zst") == -1);
    CHECK(fc_parquet_codec("zstdx") == -1);
    CHECK(fc_parquet_codec("") == -1);
}

/* ------------------------------------------------------------ reading */

/* The small file of build("l", 0), with codec (compress: a copy that
 * calls itself codec) into *buf. */
static int copy_compress(void *ctx, int codec, const void *src, size_t n, unsigned char **dst,
                         size_t *cap, size_t *len, fc_error *err)
{
    (void)ctx;
    (void)codec;
    (void)err;
    if (*cap < n + 1) {
        unsigned char *q = (unsigned char *)realloc(*dst, n + 1);
        if (q == NULL)
            return FC_ERR_NO_MEMORY;
        *dst = q;
        *cap = n + 1;
    }
    if (n > 0)
        memcpy(*dst, src, n);
    *len = n;
    return FC_OK;
}

static size_t small_file(char **buf, int codec)
{
    size_t n = 0;
    FILE *f = open_memstream(buf, &n);
    fc_parquet *w = NULL;
    fc_parquet_options opt;
    fc_error err;
    fc_error_clear(&err);
    memset(&opt, 0, sizeof opt);
    opt.codec = codec;
    opt.compress = copy_compress;
    build("l", 0);
    CHECK(f != NULL);
    CHECK(fc_parquet_open(&w, f, &top_schema, &opt, &err) == FC_OK);
    CHECK(fc_parquet_write(w, &top_array, &err) == FC_OK);
    CHECK(fc_parquet_close(w, &err) == FC_OK);
    fclose(f);
    return n;
}

static void test_read_back(void)
{
    static const int codecs[2] = {FC_PARQUET_UNCOMPRESSED, FC_PARQUET_GZIP};
    int k;
    for (k = 0; k < 2; k++) {
        char *buf = NULL;
        size_t n = small_file(&buf, codecs[k]);
        fc_parquet_reader *r = NULL;
        struct ArrowSchema sch;
        struct ArrowArray a;
        fc_error err;
        fc_error_clear(&err);
        CHECK(fc_parquet_read_open(&r, buf, n, NULL, &err) == FC_OK);
        CHECK(fc_parquet_read_rows(r) == 3 && fc_parquet_read_groups(r) == 1);
        CHECK(fc_parquet_read_schema(r, &sch, &err) == FC_OK);
        CHECK(strcmp(sch.format, "+s") == 0 && sch.n_children == 1);
        CHECK(strcmp(sch.children[0]->format, "l") == 0);
        CHECK(strcmp(sch.children[0]->name, "v") == 0);
        CHECK((sch.children[0]->flags & ARROW_FLAG_NULLABLE) == 0);
        CHECK(fc_parquet_read_next(r, &a, &err) == FC_OK);
        CHECK(a.length == 3 && a.n_children == 1 && a.children[0]->length == 3);
        CHECK(a.children[0]->null_count == 0 && a.children[0]->buffers[0] == NULL);
        CHECK(memcmp(a.children[0]->buffers[1], values, sizeof values) == 0);
        a.release(&a);
        CHECK(a.release == NULL);
        CHECK(fc_parquet_read_next(r, &a, &err) == FC_END);
        CHECK(fc_parquet_read_offset(r) == n);
        sch.release(&sch);
        fc_parquet_read_close(r);
        free(buf);
    }
}

/* A typed tensor's column (`as`: int8 ... int32, float16, float64) written
 * and read back: its PLAIN values little-endian in the file (INT32 for the
 * integers, two bytes for a float16) on any host, and the reader's Arrow
 * array of the same values in the host's order (the integers as int32 or
 * uint32, the annotation's sign; float16 as "e"). */
static void test_typed_columns(void)
{
    static const int8_t c[3] = {-128, 7, 127};
    static const uint8_t C[3] = {0, 200, 255};
    static const int16_t sv[3] = {-32768, -2, 32767};
    static const uint16_t S[3] = {0, 40000, 65535};
    static const int32_t iv[3] = {INT32_MIN, 0, INT32_MAX};
    static const uint16_t e[3] = {0x3c00, 0xc000, 0x7bff}; /* 1, -2, 65504 */
    static const double g[3] = {0.5, -1e300, 3.0};
    static const struct {
        const char *format, *read_as;
        const void *values;
        size_t width;
    } cases[] = {{"c", "i", c, 1}, {"C", "I", C, 1}, {"s", "i", sv, 2}, {"S", "I", S, 2},
                 {"i", "i", iv, 4}, {"e", "e", e, 2}, {"g", "g", g, 8}};
    size_t k, j, q;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        fc_parquet *w = NULL;
        fc_parquet_reader *r = NULL;
        struct ArrowSchema sch;
        struct ArrowArray a;
        unsigned char le[24];
        size_t pw = cases[k].width == 8 ? 8 : cases[k].width == 2 && k == 5 ? 2 : 4;
        fc_error err;
        fc_error_clear(&err);
        build(cases[k].format, 0);
        col_buffers[1] = cases[k].values;
        CHECK(f != NULL);
        CHECK(fc_parquet_open(&w, f, &top_schema, NULL, &err) == FC_OK);
        CHECK(fc_parquet_write(w, &top_array, &err) == FC_OK);
        CHECK(fc_parquet_close(w, &err) == FC_OK);
        fclose(f);
        /* the values as Parquet's PLAIN has them, whatever the host */
        for (j = 0; j < 3; j++) {
            uint64_t u = 0;
            const unsigned char *p = (const unsigned char *)cases[k].values + j * cases[k].width;
            int64_t x;
            switch (k) {
            case 0: x = c[j]; break;
            case 1: x = C[j]; break;
            case 2: x = sv[j]; break;
            case 3: x = S[j]; break;
            case 4: x = iv[j]; break;
            case 5: x = e[j]; break;
            default: memcpy(&u, p, 8); x = (int64_t)u; break;
            }
            u = (uint64_t)x;
            for (q = 0; q < pw; q++)
                le[j * pw + q] = (unsigned char)(u >> (8 * q));
        }
        CHECK(find((const unsigned char *)buf, n, le, 3 * pw) != NULL);
        CHECK(fc_parquet_read_open(&r, buf, n, NULL, &err) == FC_OK);
        CHECK(fc_parquet_read_schema(r, &sch, &err) == FC_OK);
        CHECK(strcmp(sch.children[0]->format, cases[k].read_as) == 0);
        CHECK(fc_parquet_read_next(r, &a, &err) == FC_OK);
        for (j = 0; j < 3; j++) {
            const void *v = a.children[0]->buffers[1];
            switch (k) {
            case 0: CHECK(((const int32_t *)v)[j] == c[j]); break;
            case 1: CHECK(((const uint32_t *)v)[j] == C[j]); break;
            case 2: CHECK(((const int32_t *)v)[j] == sv[j]); break;
            case 3: CHECK(((const uint32_t *)v)[j] == S[j]); break;
            case 4: CHECK(((const int32_t *)v)[j] == iv[j]); break;
            case 5: CHECK(((const uint16_t *)v)[j] == e[j]); break;
            default: CHECK(((const double *)v)[j] == g[j]); break;
            }
        }
        a.release(&a);
        sch.release(&sch);
        fc_parquet_read_close(r);
        free(buf);
    }
}

static void test_read_codec(void)
{
    char *buf = NULL;
    size_t n = small_file(&buf, FC_PARQUET_SNAPPY);
    fc_parquet_reader *r = NULL;
    struct ArrowArray a;
    fc_error err;
    fc_error_clear(&err);
    CHECK(fc_parquet_read_open(&r, buf, n, NULL, &err) == FC_OK);
    CHECK(fc_parquet_read_next(r, &a, &err) == FC_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "pages compressed with snappy, which this reader was given no "
                                "decompressor for");
    CHECK_CONTAINS(err.message, "column 'v'");
    CHECK_CONTAINS(err.message, "(at byte ");
    fc_parquet_read_close(r);
    free(buf);
    CHECK(strcmp(fc_parquet_codec_name(FC_PARQUET_ZSTD), "zstd") == 0);
    CHECK(strcmp(fc_parquet_codec_name(FC_PARQUET_LZ4_RAW), "lz4_raw") == 0);
    CHECK(strcmp(fc_parquet_codec_name(99), "an unknown codec") == 0);
}

/* Reads all of data[0..n): FC_OK, or the error (with a message). */
static int read_all(const void *data, size_t n)
{
    fc_parquet_reader *r = NULL;
    struct ArrowSchema sch;
    struct ArrowArray a;
    fc_error err;
    int rc;
    fc_error_clear(&err);
    rc = fc_parquet_read_open(&r, data, n, NULL, &err);
    if (rc == FC_OK) {
        CHECK(fc_parquet_read_schema(r, &sch, &err) == FC_OK);
        sch.release(&sch);
        while ((rc = fc_parquet_read_next(r, &a, &err)) == FC_OK)
            a.release(&a);
        fc_parquet_read_close(r);
        if (rc == FC_END)
            return FC_OK;
    }
    CHECK_CONTAINS(err.message, "parquet: ");
    return rc;
}

static void test_read_damaged(void)
{
    char *buf = NULL;
    size_t n = small_file(&buf, FC_PARQUET_GZIP), k, foot;
    unsigned char *copy = (unsigned char *)malloc(n);
    int refused = 0;
    CHECK(copy != NULL);
    for (k = 0; k < n; k++) {
        memcpy(copy, buf, k);
        CHECK(read_all(copy, k) != FC_OK); /* every cut refused */
    }
    foot = (size_t)(unsigned char)buf[n - 8] | (size_t)(unsigned char)buf[n - 7] << 8;
    for (k = n - 8 - foot; k < n; k++) {
        memcpy(copy, buf, n);
        copy[k] ^= 0x5A;
        refused += read_all(copy, n) != FC_OK;
    }
    CHECK(refused > 0);
    free(copy);
    free(buf);
}

/* File [data, data + n) read on one thread and on three (no decompressor:
 * a page of another codec is an error, the same on both): the same groups,
 * errors and offsets.  1 when it read to its end with two columns or
 * more, 0 otherwise. */
static int threads_agree(const char *name, const unsigned char *data, size_t n)
{
    fc_parquet_reader *r1 = NULL, *r3 = NULL;
    fc_parquet_read_options opt;
    struct ArrowSchema sch;
    fc_error e1, e3;
    int s1, s3, whole = 0;
    memset(&opt, 0, sizeof opt);
    fc_error_clear(&e1);
    fc_error_clear(&e3);
    if (fc_parquet_read_open(&r1, data, n, &opt, &e1) != FC_OK)
        return 0;
    opt.threads = 3;
    CHECK(fc_parquet_read_open(&r3, data, n, &opt, &e3) == FC_OK);
    CHECK(fc_parquet_read_schema(r1, &sch, &e1) == FC_OK);
    for (;;) {
        struct ArrowArray a1, a3;
        s1 = fc_parquet_read_next(r1, &a1, &e1);
        s3 = fc_parquet_read_next(r3, &a3, &e3);
        CHECK_MSG(s1 == s3, "%s: status %d on one thread, %d on three", name, s1, s3);
        if (s1 != s3 || s1 == FC_END) {
            whole = s1 == FC_END && sch.n_children > 1;
            break;
        }
        if (s1 != FC_OK) {
            CHECK_MSG(strcmp(e1.message, e3.message) == 0, "%s: '%s' on one thread, '%s' on three",
                      name, e1.message, e3.message);
            break;
        }
        CHECK_MSG(arrow_same(&sch, &a1, &a3), "%s: other arrays on three threads", name);
        CHECK(fc_parquet_read_offset(r1) == fc_parquet_read_offset(r3));
        a1.release(&a1);
        a3.release(&a3);
    }
    sch.release(&sch);
    fc_parquet_read_close(r1);
    fc_parquet_read_close(r3);
    return whole;
}

/* A file of WIDE_COLS int64 columns of WIDE_ROWS rows, in one row group,
 * large enough that a column's decode outlasts a thread's start. */
#define WIDE_COLS 6
#define WIDE_ROWS 100000
static size_t wide_file(char **buf)
{
    static const char *const names[WIDE_COLS] = {"c0", "c1", "c2", "c3", "c4", "c5"};
    static struct ArrowSchema kid_s[WIDE_COLS], *kid_sp[WIDE_COLS], top_s;
    static struct ArrowArray kid_a[WIDE_COLS], *kid_ap[WIDE_COLS], top_a;
    static const void *kid_b[WIDE_COLS][2], *top_b[1];
    int64_t *vals = (int64_t *)malloc(sizeof(int64_t) * WIDE_COLS * WIDE_ROWS);
    size_t n = 0, c, i;
    FILE *f = open_memstream(buf, &n);
    fc_parquet *w = NULL;
    fc_parquet_options opt;
    fc_error err;
    CHECK(vals != NULL && f != NULL);
    for (c = 0; c < WIDE_COLS; c++) {
        for (i = 0; i < WIDE_ROWS; i++)
            vals[c * WIDE_ROWS + i] = (int64_t)(c * 1000003 + i * 7);
        leaf_schema(&kid_s[c], "l", names[c]);
        kid_sp[c] = &kid_s[c];
        memset(&kid_a[c], 0, sizeof kid_a[c]);
        kid_b[c][0] = NULL;
        kid_b[c][1] = vals + c * WIDE_ROWS;
        kid_a[c].length = WIDE_ROWS;
        kid_a[c].n_buffers = 2;
        kid_a[c].buffers = kid_b[c];
        kid_a[c].release = no_release_array;
        kid_ap[c] = &kid_a[c];
    }
    leaf_schema(&top_s, "+s", "");
    top_s.n_children = WIDE_COLS;
    top_s.children = kid_sp;
    memset(&top_a, 0, sizeof top_a);
    top_b[0] = NULL;
    top_a.length = WIDE_ROWS;
    top_a.n_buffers = 1;
    top_a.buffers = top_b;
    top_a.n_children = WIDE_COLS;
    top_a.children = kid_ap;
    top_a.release = no_release_array;
    fc_error_clear(&err);
    memset(&opt, 0, sizeof opt);
    CHECK(fc_parquet_open(&w, f, &top_s, &opt, &err) == FC_OK);
    CHECK(fc_parquet_write(w, &top_a, &err) == FC_OK);
    CHECK(fc_parquet_close(w, &err) == FC_OK);
    fclose(f);
    free(vals);
    return n;
}

static void test_threads(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char dir[4096], path[4096 + 260];
    DIR *d;
    struct dirent *ent;
    int files = 0, whole = 0;
    snprintf(dir, sizeof dir, "%s/../fuzz/seeds/fuzz_parquet", corpus != NULL ? corpus : "tests/corpus");
    d = opendir(dir);
    CHECK_MSG(d != NULL, "no seeds in %s", dir);
    if (d == NULL)
        return;
    while ((ent = readdir(d)) != NULL) {
        FILE *f;
        unsigned char *buf;
        long n = -1;
        if (ent->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if ((f = fopen(path, "rb")) == NULL)
            continue;
        CHECK(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0);
        buf = (unsigned char *)malloc((size_t)n + 1);
        CHECK(buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n);
        fclose(f);
        whole += threads_agree(ent->d_name, buf, (size_t)n);
        files++;
        free(buf);
    }
    closedir(d);
    /* (the uncompressed and GZIP seeds hold several columns, read whole) */
    CHECK_MSG(files >= 10 && whole >= 2, "%d seeds, %d read whole on threads", files, whole);
    {
        char *buf = NULL;
        size_t n = wide_file(&buf);
        CHECK_MSG(threads_agree("wide", (const unsigned char *)buf, n) == 1,
                  "the file of %d columns read whole on threads", WIDE_COLS);
        free(buf);
    }
}

/* ------------------------------------------------------------ the pool */

#define POOL_BUFS 40

static unsigned char pool_byte(unsigned buf, size_t at)
{
    return (unsigned char)(buf * 131u + at * 7u + (at >> 9));
}

/* Buffer k's bytes are its pattern from its start. */
static int pool_intact(const th_buf *b, unsigned k)
{
    size_t i;
    for (i = 0; i < b->n; i++)
        if (b->p[i] != pool_byte(k, i))
            return 0;
    return 1;
}

static void test_pool(void)
{
    th_pool pool;
    th_buf b[POOL_BUFS];
    uint32_t seed = 12345;
    size_t total = 0, frees = 0, bigs = 0;
    unsigned k, step;
    memset(&pool, 0, sizeof pool);
    memset(b, 0, sizeof b);
    for (k = 0; k < POOL_BUFS; k++)
        b[k].pool = &pool;
    for (step = 0; step < 6000; step++) {
        size_t n, i;
        unsigned char *q;
        seed = seed * 1103515245u + 12345u;
        k = (seed >> 8) % POOL_BUFS;
        if ((seed >> 20) % 61 == 0) { /* done with: its piece waits for another */
            CHECK_MSG(pool_intact(&b[k], k), "buffer %u before its free", k);
            th_free(&b[k]);
            CHECK(b[k].pool == &pool && b[k].n == 0 && b[k].p == NULL);
            frees++;
            continue;
        }
        n = (seed >> 4) % (k == 0 ? 40000u : 9000u); /* (buffer 0 goes past 1 MiB) */
        q = th_room(&b[k], n);
        CHECK(q != NULL && q == b[k].p + b[k].n);
        if (q == NULL)
            return;
        for (i = 0; i < n; i++)
            q[i] = pool_byte(k, b[k].n + i);
        b[k].n += n;
        total += n;
    }
    for (k = 0; k < POOL_BUFS; k++) {
        CHECK_MSG(pool_intact(&b[k], k), "buffer %u (%zu bytes)", k, b[k].n);
        CHECK(!b[k].oom);
        bigs += (size_t)b[k].big;
    }
    CHECK(frees > 50 && bigs >= 1 && total > ((size_t)20 << 20)); /* (what it meant to cover) */
    for (k = 0; k < POOL_BUFS; k++)
        th_free(&b[k]);
    th_pool_free(&pool);
    CHECK(pool.regions == NULL && pool.left == 0);
}

int main(void)
{
    RUN(test_pool);
    RUN(test_read_back);
    RUN(test_typed_columns);
    RUN(test_read_codec);
    RUN(test_read_damaged);
    RUN(test_threads);
    RUN(test_small_file);
    RUN(test_refused);
    RUN(test_deep);
    RUN(test_unwritable);
    RUN(test_codec_names);
    return harness_report("parquet");
}
