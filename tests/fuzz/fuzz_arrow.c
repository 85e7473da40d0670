/* libFuzzer harness for Arrow IPC input (fc_arrow_ipc_read, fc_arrow_rows):
 * what `featc convert IN.arrow -o OUT.tfrecord` reads.
 *
 * The input is an IPC file or stream.  Properties:
 *   - reading never crashes, hangs or leaks; every error has a message;
 *   - every batch read converts row by row, through the rows of
 *     tests/specs/sparse.feat's message s, batch.feat's e (every kind,
 *     RaggedFeature too) and q, and typed.feat's e and s (typed tensors
 *     back into records) when its schema matches them, into records by the
 *     serializer that the generated parser reads back without error;
 *   - every batch read is written again by fc_arrow_ipc (stream format) and
 *     read back with the same number of rows and columns, and by fc_parquet
 *     (in row groups of 3 rows, pages of 64 bytes), which either writes a
 *     file framed by "PAR1" whose footer lies inside it, that fc_parquet_read
 *     reads back to as many columns and rows, or refuses with a message (a
 *     type it does not write, a null);
 *   - the same through two messages described at run time (the compiler's
 *     featc_dynamic) whose dimensions are the extremes: a fixed-size list of
 *     65536 values (rows times size near overflow) and one of none (a
 *     zero-width column, which holds no bit per row). */
/* test-specs: tests/specs/sparse.feat tests/specs/batch.feat tests/specs/typed.feat */
#include <featc/fc.h>
#include <featc/fc_arrow.h>
#include <featc/fc_parquet.h>
#include <featc/fc_serialize.h>
#include <featc/featc.h>
#include <featc/featc_dynamic.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "fuzz_rows.h"
#include "sparse.h"
#include "typed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The extreme dimensions, described at run time. */
static const char dims_spec[] = "package dm;\n"
                                "example w { x : int64[65536]; }\n"
                                "example z { z : int64[0]; }\n";
static const char *const dims_names[2] = {"w", "z"};
static featc_dynamic *dims[2];
static void *dims_msg[2], *dims_back[2];
static fc_feature_ref *dims_refs[2];

static void dims_open(void)
{
    featc_options o = FEATC_OPTIONS_INIT;
    int k;
    for (k = 0; k < 2; k++) {
        if (dims[k] != NULL)
            continue;
        if (featc_dynamic_open(dims_spec, sizeof dims_spec - 1, &o, dims_names[k], &dims[k]) != 0)
            abort();
        dims_msg[k] = calloc(1, featc_dynamic_size(dims[k]));
        dims_back[k] = calloc(1, featc_dynamic_size(dims[k]));
        dims_refs[k] = (fc_feature_ref *)calloc(featc_dynamic_refs(dims[k]) + 1,
                                                sizeof *dims_refs[k]);
        if (dims_msg[k] == NULL || dims_back[k] == NULL || dims_refs[k] == NULL)
            abort();
    }
}

/* Rows of batch a through dynamic message k: what the serializer writes,
 * the descriptor's parse reads back. */
static void convert_dims(int k, fc_arrow_rows *rows, const struct ArrowSchema *s,
                         const struct ArrowArray *a)
{
    const fc_message_desc *md = featc_dynamic_example(dims[k]);
    int64_t i;
    for (i = 0; i < a->length && i < 64; i++) {
        fc_error err;
        size_t len = 0;
        fc_error_clear(&err);
        if (fc_arrow_rows_get(rows, s, a, i, dims_msg[k], &err) != FC_OK) {
            must_say(&err);
            continue;
        }
        if (fc_ex_serialize(md, dims_msg[k], FC_OMIT_DEFAULTS, out, sizeof out, &len, &err) !=
            FC_OK) {
            must_say(&err);
            continue;
        }
        if (fc_ex_parse_desc(md, dims_back[k], out, len, featc_dynamic_lookup, dims[k],
                             dims_refs[k], &err) != FC_OK)
            abort();
    }
}

static void rewrite(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fc_arrow_ipc *w = NULL;
    fc_error err;
    int ok;
    if (f == NULL)
        abort();
    fc_error_clear(&err);
    ok = fc_arrow_ipc_open(&w, f, FC_ARROW_IPC_STREAM, s, &err) == FC_OK;
    if (ok)
        ok = fc_arrow_ipc_write(w, a, &err) == FC_OK;
    if (w != NULL && fc_arrow_ipc_close(w, &err) != FC_OK)
        ok = 0;
    fclose(f);
    if (!ok) {
        must_say(&err);
    } else {
        /* read back: one batch of the same shape */
        fc_arrow_ipc_reader *r = NULL;
        struct ArrowArray b;
        if (fc_arrow_ipc_read_open(&r, buf, n, &err) != FC_OK ||
            fc_arrow_ipc_read_next(r, &b, &err) != FC_OK)
            abort();
        if (b.length != a->length || b.n_children != a->n_children)
            abort();
        b.release(&b);
        if (fc_arrow_ipc_read_next(r, &b, &err) != FC_END)
            abort();
        fc_arrow_ipc_read_close(r);
    }
    free(buf);
}

/* featc's Parquet file read back by featc's reader: a column per column,
 * the rows of the batch in row groups of 3. */
static void read_back(const unsigned char *p, size_t n, const struct ArrowSchema *s,
                      const struct ArrowArray *a)
{
    fc_parquet_reader *r = NULL;
    struct ArrowSchema got;
    struct ArrowArray b;
    fc_error err;
    int64_t rows = 0;
    int rc;
    fc_error_clear(&err);
    if (fc_parquet_read_open(&r, p, n, NULL, &err) != FC_OK ||
        fc_parquet_read_schema(r, &got, &err) != FC_OK)
        abort();
    if (got.n_children != s->n_children)
        abort();
    got.release(&got);
    while ((rc = fc_parquet_read_next(r, &b, &err)) == FC_OK) {
        if (b.length > 3 || b.n_children != a->n_children)
            abort();
        rows += b.length;
        b.release(&b);
    }
    if (rc != FC_END || rows != a->length || fc_parquet_read_rows(r) != (uint64_t)rows)
        abort();
    fc_parquet_read_close(r);
}

static void to_parquet(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fc_parquet *w = NULL;
    fc_parquet_options opt;
    fc_error err;
    int ok;
    if (f == NULL)
        abort();
    fc_error_clear(&err);
    memset(&opt, 0, sizeof opt);
    opt.codec = FC_PARQUET_GZIP;
    opt.row_group_rows = 3;
    opt.page_bytes = 64;
    ok = fc_parquet_open(&w, f, s, &opt, &err) == FC_OK;
    if (ok)
        ok = fc_parquet_write(w, a, &err) == FC_OK;
    if (w != NULL && fc_parquet_close(w, &err) != FC_OK)
        ok = 0;
    fclose(f);
    if (!ok) {
        must_say(&err);
    } else {
        const unsigned char *p = (const unsigned char *)buf;
        uint32_t foot;
        if (n < 12 || memcmp(p, "PAR1", 4) != 0 || memcmp(p + n - 4, "PAR1", 4) != 0)
            abort();
        foot = (uint32_t)p[n - 8] | (uint32_t)p[n - 7] << 8 | (uint32_t)p[n - 6] << 16 |
               (uint32_t)p[n - 5] << 24;
        if (foot == 0 || foot > n - 12)
            abort();
        read_back(p, n, s, a);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static spt_s s_msg, s_back;
    static bt_q q_msg, q_back;
    static bt_e e_msg, e_back;
    static ty_e te_msg, te_back;
    static ty_s ts_msg, ts_back;
    fc_arrow_ipc_reader *r = NULL;
    fc_arrow_rows *rs = NULL, *rq = NULL, *re = NULL, *rte = NULL, *rts = NULL, *rd[2] = {NULL, NULL};
    struct ArrowSchema schema;
    fc_error err;
    int rc, k, d;
    fc_error_clear(&err);
    if (fc_arrow_ipc_read_open(&r, data, size, &err) != FC_OK) {
        must_say(&err);
        return 0;
    }
    if (fc_arrow_ipc_read_schema(r, &schema, &err) != FC_OK)
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
    dims_open();
    for (k = 0; k < 2; k++)
        if (fc_arrow_rows_open(&rd[k], featc_dynamic_example(dims[k]), NULL, &schema, &err) !=
            FC_OK)
            must_say(&err);
    for (k = 0; k < 64; k++) {
        struct ArrowArray a;
        rc = fc_arrow_ipc_read_next(r, &a, &err);
        if (rc == FC_END)
            break;
        if (rc != FC_OK) {
            must_say(&err);
            break;
        }
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
        for (d = 0; d < 2; d++)
            if (rd[d] != NULL)
                convert_dims(d, rd[d], &schema, &a);
        rewrite(&schema, &a);
        to_parquet(&schema, &a);
        a.release(&a);
    }
    fc_arrow_rows_close(rs);
    fc_arrow_rows_close(rq);
    fc_arrow_rows_close(re);
    fc_arrow_rows_close(rte);
    fc_arrow_rows_close(rts);
    for (k = 0; k < 2; k++)
        fc_arrow_rows_close(rd[k]);
    schema.release(&schema);
    fc_arrow_ipc_read_close(r);
    return 0;
}
