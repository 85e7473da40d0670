/* libFuzzer harness for Arrow IPC input (fc_arrow_ipc_read, fc_arrow_rows):
 * what `featc convert IN.arrow -o OUT.tfrecord` reads.
 *
 * The input is an IPC file or stream.  Properties:
 *   - reading never crashes, hangs or leaks; every error has a message;
 *   - every batch read converts row by row, through the rows of
 *     tests/specs/sparse.feat's message s and batch.feat's e (every kind,
 *     RaggedFeature too) and q when its schema matches them, into records by the serializer that the
 *     generated parser reads back without error;
 *   - every batch read is written again by fc_arrow_ipc (stream format) and
 *     read back with the same number of rows and columns. */
/* test-specs: tests/specs/sparse.feat tests/specs/batch.feat */
#include <featc/fc.h>
#include <featc/fc_arrow.h>
#include <featc/fc_serialize.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "sparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char out[1 << 16];

static void must_say(const fc_error *err)
{
    if (err->message[0] == '\0')
        abort();
}

/* Rows of batch a through message md or sd (whose struct is msg). */
static void convert(fc_arrow_rows *rows, const fc_message_desc *md, const fc_seq_desc *sd,
                    const struct ArrowSchema *s, const struct ArrowArray *a, void *msg,
                    void *back)
{
    int64_t i;
    for (i = 0; i < a->length && i < 4096; i++) {
        fc_error err;
        size_t len = 0;
        int rc;
        fc_error_clear(&err);
        rc = fc_arrow_rows_get(rows, s, a, i, msg, &err);
        if (rc != FC_OK) {
            must_say(&err);
            continue;
        }
        rc = md != NULL ? fc_ex_serialize(md, msg, FC_OMIT_DEFAULTS, out, sizeof out, &len, &err)
                        : fc_seq_serialize(sd, msg, FC_OMIT_DEFAULTS, out, sizeof out, &len,
                                           &err);
        if (rc == FC_ERR_NO_SPACE)
            continue;
        if (rc != FC_OK) {
            must_say(&err);
            continue;
        }
        /* what the serializer wrote, the parser reads */
        if ((md != NULL ? md->parse(back, out, len, &err) : sd->parse(back, out, len, &err)) !=
            FC_OK)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static spt_s s_msg, s_back;
    static bt_q q_msg, q_back;
    static bt_e e_msg, e_back;
    fc_arrow_ipc_reader *r = NULL;
    fc_arrow_rows *rs = NULL, *rq = NULL, *re = NULL;
    struct ArrowSchema schema;
    fc_error err;
    int rc, k;
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
        rewrite(&schema, &a);
        a.release(&a);
    }
    fc_arrow_rows_close(rs);
    fc_arrow_rows_close(rq);
    fc_arrow_rows_close(re);
    schema.release(&schema);
    fc_arrow_ipc_read_close(r);
    return 0;
}
