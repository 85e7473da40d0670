/* libFuzzer harness for the batch entry points: the code featc generates
 * for tests/specs/batch.feat (bt_e_parse_batch, bt_q_parse_batch, and
 * bt_p_parse_batch, which the direct path of a SequenceExample takes), on
 * arbitrary batches of arbitrary records.
 *
 * Input: a mode byte (bit 0: SequenceExample; bits 1-2: VarLen forms,
 * 0 meaning both; bit 3: shrink buffers; bit 4: p, not q), a mask byte (which of the eight
 * kinds of buffer of a column to shrink: values, indices, row splits, inner
 * splits, lengths, bucket ids, hot vectors, partition splits), an amount
 * byte, then records, each a length byte and that many bytes (the last one
 * cut by the end of the input); at most 64 records.
 *
 * Every buffer of every column is its own allocation of exactly its
 * capacity, so that ASan sees any write past one.  With full capacities the
 * batch must succeed exactly when every record parses alone, fail at the
 * first record that does not otherwise, and equal the single-record results
 * stacked (tests/oracle/batch_check.h).  With shrunk capacities it may also
 * refuse a buffer, but must never write past one. */
/* test-specs: tests/specs/batch.feat */
#include <stdlib.h>
#include <string.h>

#include "batch.h"

#include "../oracle/batch_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bt_e escratch;
static bt_q qscratch;
static bt_p pscratch;

static size_t elem_size(fc_type t)
{
    return t == FC_TYPE_INT64 ? 8 : t == FC_TYPE_FLOAT ? 4 : sizeof(fc_bytes);
}

/* Replaces a bound buffer with its own allocation of cap (maybe shrunk). */
static void *own(void *bound, size_t *cap, size_t esize, unsigned shrink)
{
    void *p;
    if (bound == NULL)
        return NULL;
    if (shrink != 0 && *cap > 0)
        *cap -= shrink % (*cap + 1);
    p = malloc(*cap > 0 ? *cap * esize : 1);
    if (p == NULL)
        abort();
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fc_bytes views[64];
    static fc_column cols[BT_E_FIELD_COUNT + BT_Q_FIELD_COUNT + BT_P_FIELD_COUNT];
    fc_error err;
    unsigned mode, shrink, mask, forms;
    size_t n = 0, pos = 3, i, need, ncols, first;
    unsigned q;
    int seq, rc, ok_alone = 1;
    unsigned char *block;
    const fc_seq_desc *sd;
    void *sscratch;
    if (size < 3)
        return 0;
    mode = data[0];
    mask = data[1];
    shrink = (mode & 8u) ? data[2] | 0x100u : 0;
    seq = mode & 1;
    sd = (mode & 16u) ? &bt_p_desc : &bt_q_desc;
    sscratch = (mode & 16u) ? (void *)&pscratch : (void *)&qscratch;
    forms = (mode >> 1) & 3u;
    if (forms == 0)
        forms = FC_BATCH_SPARSE | FC_BATCH_RAGGED;
    while (pos < size && n < 64) {
        size_t len = data[pos++];
        if (len > size - pos)
            len = size - pos;
        views[n].data = data + pos;
        views[n].size = len;
        pos += len;
        n++;
    }
    ncols = seq ? sd->ncontext + sd->nlists : BT_E_FIELD_COUNT;
    need = seq ? fc_batch_bind_seq(sd, cols, n, forms, NULL, 0)
               : bt_e_batch_bind(cols, n, forms, NULL, 0);
    block = (unsigned char *)malloc(need);
    if (block == NULL)
        abort();
    if (seq)
        fc_batch_bind_seq(sd, cols, n, forms, block, need);
    else
        bt_e_batch_bind(cols, n, forms, block, need);
    for (i = 0; i < ncols; i++) {
        fc_column *c = &cols[i];
        fc_type t = seq ? (i < sd->ncontext ? sd->context[i].type
                                            : sd->lists[i - sd->ncontext].type)
                        : bt_e_desc.fields[i].type;
        unsigned s = shrink != 0 ? shrink + (unsigned)i : 0;
        c->values = own(c->values, &c->values_cap, elem_size(t), (mask & 1u) ? s : 0);
        c->indices = (int64_t *)own(c->indices, &c->indices_cap, 8, (mask & 2u) ? s : 0);
        c->row_splits = (int64_t *)own(c->row_splits, &c->row_splits_cap, 8, (mask & 4u) ? s : 0);
        c->inner_splits =
            (int64_t *)own(c->inner_splits, &c->inner_splits_cap, 8, (mask & 8u) ? s : 0);
        c->lengths = (int64_t *)own(c->lengths, &c->lengths_cap, 8, (mask & 16u) ? s : 0);
        c->buckets = (int64_t *)own(c->buckets, &c->buckets_cap, 8, (mask & 32u) ? s : 0);
        c->hot = (float *)own(c->hot, &c->hot_cap, sizeof(float), (mask & 64u) ? s : 0);
        for (q = 0; q < FC_MAX_RANK; q++)
            c->part_splits[q] =
                (int64_t *)own(c->part_splits[q], &c->part_splits_cap[q], 8, (mask & 128u) ? s : 0);
    }
    free(block);
    rc = seq ? fc_batch_parse_seq(sd, cols, sscratch, views, n, &err)
             : bt_e_parse_batch(cols, &escratch, views, n, &err);
    first = n;
    for (i = 0; i < n && first == n; i++)
        if ((seq ? sd->parse(sscratch, views[i].data, views[i].size, NULL)
                 : bt_e_parse(&escratch, views[i].data, views[i].size, NULL)) != FC_OK)
            first = i;
    ok_alone = first == n;
    if (shrink == 0) {
        if (ok_alone != (rc == FC_OK))
            abort();
        if (!ok_alone && (rc != FC_ERR_PARSE || err.record != first))
            abort();
    } else if (rc != FC_OK && rc != FC_ERR_PARSE && rc != FC_ERR_ARG && rc != FC_ERR_NO_SPACE) {
        abort();
    }
    if (rc != FC_OK && err.message[0] == '\0')
        abort();
    for (i = 0; i < ncols; i++) {
        free(cols[i].values);
        free(cols[i].indices);
        free(cols[i].row_splits);
        free(cols[i].inner_splits);
        free(cols[i].lengths);
        free(cols[i].buckets);
        free(cols[i].hot);
        for (q = 0; q < FC_MAX_RANK; q++)
            free(cols[i].part_splits[q]);
    }
    /* The values, against the single-record results stacked. */
    if (shrink == 0) {
        static bc_stream st;
        if (seq)
            bc_init_seq(sd);
        else
            bc_init_example(&bt_e_desc);
        for (i = 0; i < n; i++) {
            st.recs[i] = (unsigned char *)malloc(views[i].size + 1);
            if (st.recs[i] == NULL)
                abort();
            memcpy(st.recs[i], views[i].data, views[i].size);
            st.lens[i] = views[i].size;
        }
        st.n = n;
        st.turn = forms - 1;
        bc_run(&st);
        if (bc_failed != 0)
            abort();
    }
    return 0;
}
