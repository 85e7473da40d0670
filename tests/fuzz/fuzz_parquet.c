/* libFuzzer harness for Parquet input (fc_parquet_read, then fc_arrow_rows):
 * what `featc convert IN.parquet -o OUT.tfrecord` reads.
 *
 * The input is a Parquet file; pages in any codec featc's CLI reads
 * (runtime/hosted/codecs.c, built in: libzstd, libsnappy, libbrotlidec, liblz4
 * as the build found them).  Properties:
 *   - reading never crashes, hangs or leaks, within 16 MiB of values a
 *     column chunk (max_bytes); every error has a message;
 *   - every row group read is well-formed Arrow: a struct's children as
 *     long as it, a list's offsets rising from 0 to its child's length, a
 *     byte string's within its bytes, null_count the validity's zero bits,
 *     every value and byte touched (ASan sees a read past a buffer);
 *   - a second reader decoding each group's columns on 3 threads
 *     (opt.threads) gives the same arrays, the same error message and the
 *     same offset, group after group;
 *   - rows of groups whose schema matches tests/specs/sparse.feat's message
 *     s, batch.feat's e and q or typed.feat's e and s (typed tensors: a
 *     row accepted makes a record whose typed parse succeeds) convert
 *     through fc_arrow_rows into records the generated parser reads back. */
/* test-specs: tests/specs/sparse.feat tests/specs/batch.feat tests/specs/typed.feat */
/* test-sources: runtime/hosted/codecs.c */
#include <featc/fc.h>
#include <featc/fc_arrow.h>
#include <featc/fc_parquet.h>
#include <featc/fc_serialize.h>

#include <stdlib.h>
#include <string.h>

#include "featc/fc_codecs.h"
#include "../unit/arrow_same.h"
#include "batch.h"
#include "fuzz_rows.h"
#include "sparse.h"
#include "typed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static int bit(const void *bits, int64_t i)
{
    return ((const unsigned char *)bits)[i >> 3] >> (i & 7) & 1;
}

/* Array a of schema s is well-formed (aborts if not); every byte read. */
static void check_array(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    const char *f = s->format;
    int64_t i, nulls = 0;
    if (a->length < 0 || a->offset != 0 || a->n_children != s->n_children)
        abort();
    if (a->buffers[0] != NULL) {
        for (i = 0; i < a->length; i++)
            nulls += !bit(a->buffers[0], i);
    }
    if (nulls != a->null_count || (a->null_count > 0 && !(s->flags & ARROW_FLAG_NULLABLE)))
        abort();
    if (strcmp(f, "+s") == 0) {
        for (i = 0; i < a->n_children; i++) {
            if (a->children[i]->length != a->length)
                abort();
            check_array(s->children[i], a->children[i]);
        }
    } else if (strcmp(f, "+L") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "U") == 0) {
        const int64_t *off = (const int64_t *)a->buffers[1];
        int64_t end = f[0] == '+' ? a->children[0]->length : -1;
        if (off[0] != 0)
            abort();
        for (i = 0; i < a->length; i++)
            if (off[i + 1] < off[i])
                abort();
        if (end >= 0 && off[a->length] != end)
            abort();
        if (f[0] == '+')
            check_array(s->children[0], a->children[0]);
        else
            for (i = 0; i < off[a->length]; i++)
                sink += ((const unsigned char *)a->buffers[2])[i];
    } else {
        size_t w = strcmp(f, "b") == 0            ? 0
                   : strcmp(f, "e") == 0          ? 2
                   : strchr("iIf", f[0]) != NULL ? 4
                                                  : 8;
        if (w == 0)
            for (i = 0; i < a->length; i++)
                sink += (unsigned)bit(a->buffers[1], i);
        else
            for (i = 0; i < a->length * (int64_t)w; i++)
                sink += ((const unsigned char *)a->buffers[1])[i];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static spt_s s_msg, s_back;
    static bt_q q_msg, q_back;
    static bt_e e_msg, e_back;
    static ty_e te_msg, te_back;
    static ty_s ts_msg, ts_back;
    fc_parquet_reader *r = NULL, *r3 = NULL;
    fc_parquet_read_options opt;
    fc_arrow_rows *rs = NULL, *rq = NULL, *re = NULL, *rte = NULL, *rts = NULL;
    struct ArrowSchema schema;
    fc_error err;
    uint64_t rows = 0;
    int rc, k;
    fc_error_clear(&err);
    memset(&opt, 0, sizeof opt);
    opt.decompress = fc_codecs_decompress;
    opt.max_bytes = (size_t)1 << 24;
    if (fc_parquet_read_open(&r, data, size, &opt, &err) != FC_OK) {
        must_say(&err);
        return 0;
    }
    if (fc_parquet_read_schema(r, &schema, &err) != FC_OK)
        abort();
    opt.threads = 3; /* (each other thread's decompress context: NULL, one a page) */
    if (fc_parquet_read_open(&r3, data, size, &opt, &err) != FC_OK)
        abort();
    if (fc_arrow_rows_open(&rs, &spt_s_desc, NULL, &schema, &err) != FC_OK)
        must_say(&err);
    if (fc_arrow_rows_open(&rq, NULL, &bt_q_desc, &schema, &err) != FC_OK)
        must_say(&err);
    if (fc_arrow_rows_open(&re, &bt_e_desc, NULL, &schema, &err) != FC_OK)
        must_say(&err);
    if (fc_arrow_rows_open(&rte, &ty_e_desc, NULL, &schema, &err) != FC_OK)
        must_say(&err);
    if (fc_arrow_rows_open(&rts, NULL, &ty_s_desc, &schema, &err) != FC_OK)
        must_say(&err);
    for (k = 0; k < 64; k++) {
        struct ArrowArray a, a3;
        fc_error err3;
        int rc3;
        rc = fc_parquet_read_next(r, &a, &err);
        fc_error_clear(&err3);
        rc3 = fc_parquet_read_next(r3, &a3, &err3);
        if (rc3 != rc || (rc != FC_OK && rc != FC_END && strcmp(err.message, err3.message) != 0))
            abort();
        if (rc == FC_OK) {
            if (!arrow_same(&schema, &a, &a3))
                abort();
            a3.release(&a3);
            if (fc_parquet_read_offset(r) != fc_parquet_read_offset(r3))
                abort();
        }
        if (rc == FC_END) {
            /* every row group read: the footer's count of rows */
            if (rows != fc_parquet_read_rows(r))
                abort();
            break;
        }
        if (rc != FC_OK) {
            must_say(&err);
            break;
        }
        check_array(&schema, &a);
        rows += (uint64_t)a.length;
        if (rs != NULL)
            convert(rs, &spt_s_desc, NULL, &schema, &a, &s_msg, &s_back);
        if (rq != NULL)
            convert(rq, NULL, &bt_q_desc, &schema, &a, &q_msg, &q_back);
        if (re != NULL)
            convert(re, &bt_e_desc, NULL, &schema, &a, &e_msg, &e_back);
        if (rte != NULL)
            convert(rte, &ty_e_desc, NULL, &schema, &a, &te_msg, &te_back);
        if (rts != NULL)
            convert(rts, NULL, &ty_s_desc, &schema, &a, &ts_msg, &ts_back);
        a.release(&a);
    }
    fc_arrow_rows_close(rs);
    fc_arrow_rows_close(rq);
    fc_arrow_rows_close(re);
    fc_arrow_rows_close(rte);
    fc_arrow_rows_close(rts);
    schema.release(&schema);
    fc_parquet_read_close(r);
    fc_parquet_read_close(r3);
    return 0;
}
