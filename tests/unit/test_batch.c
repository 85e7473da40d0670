/* Batched parsing through the code featc generates for tests/specs/batch.feat:
 * every output layout of docs/tf-semantics.md section 2.4 (parse_example and
 * parse_sequence_example), padding, the first failing record's error in
 * TensorFlow's batched wording, and capacities checked before any buffer is
 * overrun. */
/* test-specs: tests/specs/batch.feat */
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include <featc/fc_json.h>
#include <featc/fc_hash.h>
#include "harness.h"
#include "wire.h"

static fc_error err;
static bt_e scratch;
static bt_q qscratch;

/* ---- records */

static wbuf recs[8];
static fc_bytes views[8];

/* Example i: a = a_val; r with `rows` rows (k*10+j); v with nv values. */
static void example_rec(size_t i, int64_t a_val, size_t rows, size_t nv)
{
    wbuf feats;
    int64_t r[6], v[5];
    size_t k;
    feats.n = 0;
    w_entry_int64(&feats, "a", &a_val, 1);
    for (k = 0; k < 2 * rows; k++)
        r[k] = (int64_t)(k / 2 * 10 + k % 2);
    if (rows > 0)
        w_entry_int64(&feats, "r", r, 2 * rows);
    for (k = 0; k < nv; k++)
        v[k] = (int64_t)(100 * i + k);
    if (nv > 0)
        w_entry_int64(&feats, "v", v, nv);
    recs[i].n = 0;
    w_example(&recs[i], &feats);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

static int64_t i64_at(const fc_column *c, size_t k)
{
    return ((const int64_t *)c->values)[k];
}

/* ---- storage: a bound block, sized by the generated macro */

static unsigned char block[BT_E_BATCH_BYTES(8) + 64];
static unsigned char qblock[BT_Q_BATCH_BYTES(8)];
static fc_column cols[BT_E_FIELD_COUNT], qcols[BT_Q_FIELD_COUNT];

static void bind(unsigned forms)
{
    size_t need = bt_e_batch_bind(cols, 8, forms, block, sizeof block);
    CHECK(need > 0 && need <= sizeof block);
}

static int run(size_t n)
{
    fc_error_clear(&err);
    return bt_e_parse_batch(cols, &scratch, views, n, &err);
}

static void test_bind_sizes(void)
{
    size_t b;
    static const size_t sizes[] = {0, 1, 7, 8, 64, 256};
    for (b = 0; b < sizeof sizes / sizeof sizes[0]; b++) {
        size_t n = sizes[b];
        CHECK(bt_e_batch_bind(cols, n, FC_BATCH_SPARSE | FC_BATCH_RAGGED, NULL, 0) ==
              BT_E_BATCH_BYTES(n));
        CHECK(bt_q_batch_bind(qcols, n, FC_BATCH_SPARSE | FC_BATCH_RAGGED, NULL, 0) ==
              BT_Q_BATCH_BYTES(n));
        CHECK(bt_e_batch_bind(cols, n, 0, NULL, 0) <= BT_E_BATCH_BYTES(n));
    }
    /* Too small a block binds nothing. */
    memset(cols, 0, sizeof cols);
    CHECK(bt_e_batch_bind(cols, 8, FC_BATCH_SPARSE, block, 10) > 10);
    CHECK(cols[BT_E_A].values == NULL);
    /* Any alignment of the block is fine: the binder aligns. */
    CHECK(bt_e_batch_bind(cols, 8, FC_BATCH_SPARSE | FC_BATCH_RAGGED, block + 3,
                          sizeof block - 3) == BT_E_BATCH_BYTES(8));
    CHECK(((uintptr_t)cols[BT_E_V].indices % FC_BATCH_ALIGN) == 0);
    CHECK((unsigned char *)cols[BT_E_V].values >= block + 3);
    /* forms: sparse only, ragged only */
    bind(FC_BATCH_SPARSE);
    CHECK(cols[BT_E_V].indices != NULL && cols[BT_E_V].row_splits == NULL);
    bind(FC_BATCH_RAGGED);
    CHECK(cols[BT_E_V].indices == NULL && cols[BT_E_V].row_splits != NULL);
    CHECK(cols[BT_E_A].indices == NULL && cols[BT_E_A].lengths == NULL);
    CHECK(cols[BT_E_R].lengths != NULL && cols[BT_E_R].lengths_cap == 8);
}

/* FixedLenFeature(shape) -> [B] + shape, the default where missing. */
static void test_fixed_layout(void)
{
    wbuf feats;
    static const float mv[4] = {1, 2, 3, 4};
    const fc_column *a = &cols[BT_E_A], *m = &cols[BT_E_M];
    const float *mf;
    size_t k;
    bind(FC_BATCH_SPARSE);
    example_rec(0, 10, 0, 0);
    example_rec(1, 11, 0, 0);
    example_rec(2, 12, 0, 0);
    /* record 1 also has m */
    feats.n = 0;
    {
        int64_t a1 = 11;
        w_entry_int64(&feats, "a", &a1, 1);
    }
    w_entry_float(&feats, "m", mv, 4);
    recs[1].n = 0;
    w_example(&recs[1], &feats);
    views[1].size = recs[1].n;
    CHECK(run(3) == FC_OK);
    CHECK(a->rank == 1 && a->shape[0] == 3 && a->nvalues == 3);
    CHECK(i64_at(a, 0) == 10 && i64_at(a, 1) == 11 && i64_at(a, 2) == 12);
    CHECK(m->rank == 3 && m->shape[0] == 3 && m->shape[1] == 2 && m->shape[2] == 2);
    CHECK(m->nvalues == 12);
    mf = (const float *)m->values;
    for (k = 0; k < 4; k++) {
        CHECK(mf[k] == 0.0f);
        CHECK(mf[4 + k] == mv[k]);
        CHECK(mf[8 + k] == 0.0f);
    }
}

/* FixedLenSequenceFeature(shape, allow_missing, default p) -> [B, R] + shape,
 * R the most rows, the rest of each block filled with p. */
static void test_rows_padding(void)
{
    const fc_column *r = &cols[BT_E_R], *s = &cols[BT_E_S];
    static const int64_t want[3][3][2] = {
        {{0, 1}, {-1, -1}, {-1, -1}},
        {{-1, -1}, {-1, -1}, {-1, -1}},
        {{0, 1}, {10, 11}, {20, 21}},
    };
    const int64_t *got;
    const fc_bytes *sv;
    size_t k;
    bind(FC_BATCH_SPARSE);
    example_rec(0, 1, 1, 0);
    example_rec(1, 2, 0, 0);
    example_rec(2, 3, 3, 0);
    CHECK(run(3) == FC_OK);
    CHECK(r->rank == 3 && r->shape[0] == 3 && r->shape[1] == 3 && r->shape[2] == 2);
    CHECK(r->nvalues == 18);
    got = (const int64_t *)r->values;
    for (k = 0; k < 18; k++)
        CHECK_MSG(got[k] == (&want[0][0][0])[k], "value %zu: %lld", k, (long long)got[k]);
    CHECK(r->lengths[0] == 1 && r->lengths[1] == 0 && r->lengths[2] == 3);
    /* s is missing everywhere: R = 0, an empty [3, 0] tensor. */
    CHECK(s->rank == 2 && s->shape[0] == 3 && s->shape[1] == 0 && s->nvalues == 0);

    /* bytes rows pad with "" */
    {
        wbuf feats;
        static const char *const one[] = {"x"}, *const three[] = {"p", "q", "r"};
        int64_t a = 5;
        feats.n = 0;
        w_entry_int64(&feats, "a", &a, 1);
        w_entry_bytes(&feats, "s", one, 1);
        recs[0].n = 0;
        w_example(&recs[0], &feats);
        views[0].size = recs[0].n;
        feats.n = 0;
        w_entry_int64(&feats, "a", &a, 1);
        w_entry_bytes(&feats, "s", three, 3);
        recs[1].n = 0;
        w_example(&recs[1], &feats);
        views[1].size = recs[1].n;
    }
    CHECK(run(2) == FC_OK);
    CHECK(s->rank == 2 && s->shape[0] == 2 && s->shape[1] == 3 && s->nvalues == 6);
    sv = (const fc_bytes *)s->values;
    CHECK(sv[0].size == 1 && sv[0].data[0] == 'x');
    CHECK(sv[1].size == 0 && sv[2].size == 0);
    CHECK(sv[3].size == 1 && sv[3].data[0] == 'p' && sv[5].data[0] == 'r');
}

/* VarLenFeature -> indices [N,2] = (record, position), dense_shape [B, most];
 * the ragged form values + row_splits [B+1]. */
static void test_varlen_sparse_and_ragged(void)
{
    const fc_column *v = &cols[BT_E_V];
    static const int64_t idx[5][2] = {{0, 0}, {0, 1}, {2, 0}, {2, 1}, {2, 2}};
    static const int64_t vals[5] = {0, 1, 200, 201, 202};
    size_t k;
    bind(FC_BATCH_SPARSE | FC_BATCH_RAGGED);
    example_rec(0, 1, 0, 2);
    example_rec(1, 2, 0, 0);
    example_rec(2, 3, 0, 3);
    CHECK(run(3) == FC_OK);
    CHECK(v->nvalues == 5 && v->nindices == 5);
    CHECK(v->rank == 2 && v->shape[0] == 3 && v->shape[1] == 3);
    for (k = 0; k < 5; k++) {
        CHECK(i64_at(v, k) == vals[k]);
        CHECK(v->indices[2 * k] == idx[k][0] && v->indices[2 * k + 1] == idx[k][1]);
    }
    CHECK(v->row_splits[0] == 0 && v->row_splits[1] == 2 && v->row_splits[2] == 2 &&
          v->row_splits[3] == 5);
    CHECK(v->lengths[0] == 2 && v->lengths[1] == 0 && v->lengths[2] == 3);
    /* No values anywhere: dense_shape [B, 0]. */
    example_rec(0, 1, 0, 0);
    example_rec(1, 1, 0, 0);
    CHECK(run(2) == FC_OK);
    CHECK(v->nvalues == 0 && v->shape[0] == 2 && v->shape[1] == 0);
    CHECK(v->row_splits[0] == 0 && v->row_splits[1] == 0 && v->row_splits[2] == 0);
}

/* B = 1 keeps the batch dimension: indices [[0, i]] where
 * parse_single_example gives [[i]]. */
static void test_batch_of_one(void)
{
    const fc_column *v = &cols[BT_E_V], *r = &cols[BT_E_R];
    bind(FC_BATCH_SPARSE);
    example_rec(0, 9, 2, 2);
    CHECK(run(1) == FC_OK);
    CHECK(v->indices[0] == 0 && v->indices[1] == 0 && v->indices[2] == 0 && v->indices[3] == 1);
    CHECK(v->shape[0] == 1 && v->shape[1] == 2);
    CHECK(r->rank == 3 && r->shape[0] == 1 && r->shape[1] == 2 && r->shape[2] == 2);
}

static void test_empty_batch(void)
{
    bind(FC_BATCH_SPARSE | FC_BATCH_RAGGED);
    CHECK(run(0) == FC_OK);
    CHECK(cols[BT_E_A].rank == 1 && cols[BT_E_A].shape[0] == 0);
    CHECK(cols[BT_E_R].rank == 3 && cols[BT_E_R].shape[0] == 0 && cols[BT_E_R].shape[1] == 0);
    CHECK(cols[BT_E_V].shape[0] == 0 && cols[BT_E_V].shape[1] == 0);
    CHECK(cols[BT_E_V].row_splits[0] == 0);
    /* every kind of output, leading dimension 0, as parse_example on no records */
    CHECK(cols[BT_E_M].rank == 3 && cols[BT_E_M].shape[0] == 0 && cols[BT_E_M].shape[1] == 2);
    CHECK(cols[BT_E_SP].rank == 3 && cols[BT_E_SP].shape[0] == 0 && cols[BT_E_SP].shape[1] == 10 &&
          cols[BT_E_SP].shape[2] == 20 && cols[BT_E_SP].nvalues == 0);
    CHECK(cols[BT_E_ONE].rank == 2 && cols[BT_E_ONE].shape[0] == 0 && cols[BT_E_ONE].shape[1] == 5);
    CHECK(cols[BT_E_RNEST].nvalues == 0 && cols[BT_E_RNEST].row_splits[0] == 0 &&
          cols[BT_E_RNEST].part_nsplits[0] == 1 && cols[BT_E_RNEST].part_splits[0][0] == 0);
    CHECK(cols[BT_E_RFLAT].nvalues == 0 && cols[BT_E_RFLAT].row_splits[0] == 0);
    {
        size_t need = bt_q_batch_bind(qcols, 8, FC_BATCH_SPARSE, qblock, sizeof qblock);
        CHECK(need > 0 && need <= sizeof qblock);
        fc_error_clear(&err);
        CHECK(bt_q_parse_batch(qcols, &qscratch, views, 0, &err) == FC_OK);
        CHECK(qcols[BT_Q_ID].rank == 1 && qcols[BT_Q_ID].shape[0] == 0);
        CHECK(qcols[BT_Q_TAGS].rank == 2 && qcols[BT_Q_TAGS].shape[0] == 0 &&
              qcols[BT_Q_TAGS].shape[1] == 0);
        CHECK(qcols[BT_Q_X].rank == 3 && qcols[BT_Q_X].shape[0] == 0 && qcols[BT_Q_X].shape[1] == 0 &&
              qcols[BT_Q_X].shape[2] == 2);
        CHECK(qcols[BT_Q_W].rank == 3 && qcols[BT_Q_W].shape[0] == 0 && qcols[BT_Q_W].shape[1] == 0 &&
              qcols[BT_Q_W].shape[2] == 0 && qcols[BT_Q_W].nframes == 0);
    }
}

/* Each of TensorFlow's Example error texts (docs/tf-semantics.md 3.1 and
 * 3.2, from example_proto_fast_parsing.cc), single and batched: the single
 * parser's message starts with the single path's text, the batch's with the
 * batched path's (record 1 of a batch of 2, after a good record 0); both
 * go on with featc's detail and the byte offset. */
typedef struct tf_text_case {
    const char *what;
    const char *key;     /* the feature written badly ("" : a whole record) */
    int kind;            /* 0 int64 values, 1 float values, 2 bytes values, 3 raw Feature, 4 raw record */
    size_t n;            /* values */
    const char *raw;     /* kind 3, 4: bytes */
    size_t raw_len;
    const char *single;  /* TF's single-path text, at the start */
    const char *batched; /* TF's batched text, at the start */
} tf_text_case;

static void test_tf_texts(void)
{
    static const tf_text_case cases[] = {
        {"FixedLen int64, too many", "a", 0, 2, NULL, 0,
         "Key: a.  Can't parse serialized Example: Some int64_list slice was not parsed. ",
         "Name: <unknown>, Key: a, Index: 1.  Number of int64 values != expected.  Values size: 2 "
         "but output shape: []"},
        {"FixedLen int64, none", "a", 0, 0, NULL, 0,
         "Key: a.  Can't parse serialized Example: Some int64_list slice was not parsed. ",
         "Name: <unknown>, Key: a, Index: 1.  Number of int64 values != expected.  Values size: 0 "
         "but output shape: []"},
        {"FixedLen float, too few", "m", 1, 3, NULL, 0,
         "Key: m.  Can't parse serialized Example: Some float_list slice was not parsed. ",
         "Name: <unknown>, Key: m, Index: 1.  Number of float values != expected.  Values size: 3 "
         "but output shape: [2,2]"},
        {"FixedLen bytes, too many", "c", 2, 2, NULL, 0,
         "Key: c.  Can't parse serialized Example: Parsing bytes_list failed. ",
         "Name: <unknown>, Key: c, Index: 1.  Can't parse serialized Example. "},
        {"FixedLenSequence stride", "r", 0, 3, NULL, 0,
         "Error while parsing feature with key r: number of elements should be divisible by 2, "
         "found 3 instead. ",
         "Name: <unknown>, Key: r, Index: 1.  Number of int64 values is not a multiple of stride "
         "length. Saw 3 values but output shape is: [?,2]"},
        {"malformed int64_list", "a", 3, 0, "\x1a\x03\x0a\x05\x01", 5,
         "Key: a.  Can't parse serialized Example: Parsing int64_list failed. ",
         "Name: <unknown>, Key: a, Index: 1.  Can't parse serialized Example. "},
        {"dense type mismatch", "a", 1, 1, NULL, 0,
         "Key: a.  Data types don't match. Data type: float but expected type: int64",
         "Name: <unknown>, Key: a, Index: 1.  Data types don't match. Data type: float but "
         "expected type: int64"},
        {"VarLen type mismatch", "v", 2, 1, NULL, 0,
         "Key: v.  Data types don't match. Expected type: int64, Actual type: string",
         "Name: <unknown>, Key: v, Index: 1.  Data types don't match. Expected type: int64, "
         "Actual type: string"},
        {"Example that does not parse", "", 4, 0, "\x0a\x02\x10\x00", 4,
         "Could not parse example input, value: '\\n\\002\\020\\000': ",
         "Could not parse example input, value: '\\n\\002\\020\\000': "},
    };
    size_t c;
    bind(FC_BATCH_SPARSE);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const tf_text_case *t = &cases[c];
        wbuf feats, f;
        int64_t iv[3] = {1, 2, 3};
        float fv[3] = {1, 2, 3};
        const char *bv[2] = {"x", "y"};
        example_rec(0, 1, 0, 0);
        feats.n = 0;
        if (strcmp(t->key, "a") != 0)
            w_entry_int64(&feats, "a", iv, 1);
        f.n = 0;
        if (t->kind == 0)
            w_entry_int64(&feats, t->key, iv, t->n);
        else if (t->kind == 1)
            w_entry_float(&feats, t->key, fv, t->n);
        else if (t->kind == 2)
            w_entry_bytes(&feats, t->key, bv, t->n);
        else if (t->kind == 3) {
            w_mem(&f, t->raw, t->raw_len);
            w_entry(&feats, t->key, &f);
        }
        recs[1].n = 0;
        if (t->kind == 4)
            w_mem(&recs[1], t->raw, t->raw_len);
        else
            w_example(&recs[1], &feats);
        views[1].data = recs[1].b;
        views[1].size = recs[1].n;
        fc_error_clear(&err);
        CHECK_MSG(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_ERR_PARSE, "%s", t->what);
        CHECK_MSG(strncmp(err.message, t->single, strlen(t->single)) == 0, "%s: single: %s", t->what,
                  err.message);
        CHECK_MSG(strstr(err.message, "byte ") != NULL, "%s: no offset: %s", t->what, err.message);
        CHECK_MSG(run(2) == FC_ERR_PARSE && err.record == 1, "%s", t->what);
        CHECK_MSG(strncmp(err.message, t->batched, strlen(t->batched)) == 0, "%s: batched: %s", t->what,
                  err.message);
        CHECK_MSG(strstr(err.message, "byte ") != NULL, "%s: no offset: %s", t->what, err.message);
    }
    { /* a long record is quoted by its first 48 bytes */
        size_t k;
        recs[1].n = 0;
        w_byte(&recs[1], 0x0a);
        w_byte(&recs[1], 58);
        for (k = 0; k < 29; k++) {
            w_byte(&recs[1], 0x0a);
            w_byte(&recs[1], 0x00);
        }
        fc_error_clear(&err);
        CHECK(bt_e_parse(&scratch, recs[1].b, recs[1].n, &err) == FC_ERR_PARSE);
        CHECK_CONTAINS(err.message, "Could not parse example input, value: '\\n:\\n\\000\\n\\000");
        CHECK_CONTAINS(err.message, "\\n\\000'...: map entry ends before its key and value at byte 4");
        /* the quote, "\\n:" and 23 escaped "\n\0" pairs: 48 bytes */
        CHECK(strstr(err.message, "'...: ") - err.message == 39 + 3 + 23 * 6);
    }
}

/* The first failing record in batch order, in TensorFlow's batched words. */
static void test_errors(void)
{
    wbuf feats, f;
    static const float fv = 1.5f;
    bind(FC_BATCH_SPARSE);
    example_rec(0, 1, 0, 0);
    /* record 1: a is a float_list */
    feats.n = 0;
    f.n = 0;
    f_float_packed(&f, &fv, 1);
    w_entry(&feats, "a", &f);
    recs[1].n = 0;
    w_example(&recs[1], &feats);
    views[1].data = recs[1].b;
    views[1].size = recs[1].n;
    /* record 2: a missing */
    recs[2].n = 0;
    feats.n = 0;
    w_example(&recs[2], &feats);
    views[2].data = recs[2].b;
    views[2].size = recs[2].n;
    CHECK(run(3) == FC_ERR_PARSE);
    CHECK(err.record == 1);
    CHECK_CONTAINS(err.message, "Name: <unknown>, Key: a, Index: 1.  Data types don't match. "
                                "Data type: float but expected type: int64");
    CHECK_CONTAINS(err.message, "(at byte ");
    /* Without record 1, record 2 fails: required. */
    views[1] = views[0];
    CHECK(run(3) == FC_ERR_PARSE);
    CHECK(err.record == 2);
    CHECK_CONTAINS(err.message, "Name: <unknown>, Feature: a (data type: int64) is required but "
                                "could not be found.");
    /* VarLen type mismatch: the sparse wording. */
    feats.n = 0;
    {
        int64_t a = 1;
        w_entry_int64(&feats, "a", &a, 1);
    }
    w_entry_float(&feats, "v", &fv, 1);
    recs[2].n = 0;
    w_example(&recs[2], &feats);
    views[2].size = recs[2].n;
    CHECK(run(3) == FC_ERR_PARSE);
    CHECK(err.record == 2);
    CHECK_CONTAINS(err.message, "Name: <unknown>, Key: v, Index: 2.  Data types don't match. "
                                "Expected type: int64, Actual type: float");
    /* Stride: 3 values for rows of 2. */
    feats.n = 0;
    {
        int64_t a = 1, r[3] = {1, 2, 3};
        w_entry_int64(&feats, "a", &a, 1);
        w_entry_int64(&feats, "r", r, 3);
    }
    recs[2].n = 0;
    w_example(&recs[2], &feats);
    views[2].size = recs[2].n;
    CHECK(run(3) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Name: <unknown>, Key: r, Index: 2.  Number of int64 values is "
                                "not a multiple of stride length. Saw 3 values but output shape "
                                "is: [?,2]");
    /* A record that is not an Example: the structure error, naming the record. */
    recs[2].b[0] = 0xff;
    CHECK(run(3) == FC_ERR_PARSE);
    CHECK(err.record == 2);
    CHECK_CONTAINS(err.message, "Could not parse example input");
    CHECK_CONTAINS(err.message, "(record 2 of the batch)");
    /* A NULL err is fine. */
    CHECK(bt_e_parse_batch(cols, &scratch, views, 3, NULL) == FC_ERR_PARSE);
}

/* Capacities are checked before a buffer is overrun. */
static void test_capacities(void)
{
    static int64_t vals[16], idx[32], len[8];
    fc_column *a = &cols[BT_E_A], *v = &cols[BT_E_V], *r = &cols[BT_E_R];
    size_t k;
    bind(FC_BATCH_SPARSE);
    example_rec(0, 1, 3, 5);
    example_rec(1, 2, 3, 5);
    example_rec(2, 3, 1, 5);
    /* Fixed: B alone decides; nothing is parsed. */
    for (k = 0; k < 16; k++)
        vals[k] = 77;
    a->values = vals;
    a->values_cap = 2;
    CHECK(run(3) == FC_ERR_ARG);
    CHECK_CONTAINS(err.message, "column \"a\": values needs room for 3, has 2");
    CHECK(vals[0] == 77 && vals[2] == 77);
    a->values = NULL;
    a->values_cap = 0;
    CHECK(run(3) == FC_ERR_ARG);
    bind(FC_BATCH_SPARSE);
    r->lengths_cap = 2;
    CHECK(run(3) == FC_ERR_ARG);
    CHECK_CONTAINS(err.message, "column \"r\": lengths needs room for 3, has 2");
    /* VarLen values: record 1 needs 10 of 7; nothing past 7 written. */
    bind(FC_BATCH_SPARSE);
    for (k = 0; k < 16; k++)
        vals[k] = 77;
    v->values = vals;
    v->values_cap = 7;
    CHECK(run(3) == FC_ERR_NO_SPACE);
    CHECK(err.record == 1);
    CHECK_CONTAINS(err.message, "batch record 1: column \"v\": values needs room for 10, has 7");
    for (k = 7; k < 16; k++)
        CHECK(vals[k] == 77);
    /* Indices: the same rule. */
    bind(FC_BATCH_SPARSE);
    for (k = 0; k < 32; k++)
        idx[k] = 77;
    v->indices = idx;
    v->indices_cap = 12;
    CHECK(run(3) == FC_ERR_NO_SPACE);
    CHECK_CONTAINS(err.message, "column \"v\": indices needs room for 20, has 12");
    for (k = 12; k < 32; k++)
        CHECK(idx[k] == 77);
    /* Rows: packed they fit (7 rows = 14 values in 16), padded they do not
     * (3 x 3 rows = 18): refused before spreading. */
    bind(FC_BATCH_SPARSE);
    for (k = 0; k < 16; k++)
        vals[k] = 77;
    r->values = vals;
    r->values_cap = 16;
    r->lengths = len;
    r->lengths_cap = 8;
    CHECK(run(3) == FC_ERR_NO_SPACE);
    CHECK_CONTAINS(err.message, "column \"r\": values (padded) needs room for 18, has 16");
    CHECK(vals[14] == 77 && vals[15] == 77);
    /* Exactly enough is enough. */
    r->values_cap = 18;
    {
        static int64_t big[18];
        r->values = big;
        CHECK(run(3) == FC_OK);
        CHECK(big[12] == 0 && big[13] == 1 && big[14] == -1 && big[17] == -1);
    }
}

/* Hash buckets: TensorFlow's string_to_hash_bucket_fast(['a','b','c','d'],
 * 10) is [9, 2, 2, 5] (string_to_hash_bucket_op_test.py), so the
 * indicator_column vector of that multivalent feature counts 2 in bucket 2
 * and 1 in buckets 5 and 9; one-hot and int64 features hash their defaults
 * too.  Single-record struct and batch columns. */
static void test_hash_buckets(void)
{
    static const char *const abcd[] = {"a", "b", "c", "d"}, *const cat[] = {"cat"};
    static const float want_hot[10] = {0, 0, 2, 0, 0, 1, 0, 0, 0, 1};
    const fc_column *h = &cols[BT_E_H], *c = &cols[BT_E_C], *k = &cols[BT_E_K];
    wbuf feats;
    int64_t one = 1, forty_two = 42;
    size_t i;
    int64_t dog = fc_hash_bucket("dog", 3, 5), cat_b = fc_hash_bucket("cat", 3, 5);
    /* record 0: h = a b c d, c and k missing (defaults "dog", 7) */
    feats.n = 0;
    w_entry_int64(&feats, "a", &one, 1);
    w_entry_bytes(&feats, "h", abcd, 4);
    recs[0].n = 0;
    w_example(&recs[0], &feats);
    views[0].data = recs[0].b;
    views[0].size = recs[0].n;
    /* record 1: no h, c = "cat", k = 42 */
    feats.n = 0;
    w_entry_int64(&feats, "a", &one, 1);
    w_entry_bytes(&feats, "c", cat, 1);
    w_entry_int64(&feats, "k", &forty_two, 1);
    recs[1].n = 0;
    w_example(&recs[1], &feats);
    views[1].data = recs[1].b;
    views[1].size = recs[1].n;
    /* one record */
    CHECK(bt_e_parse(&scratch, views[0].data, views[0].size, &err) == FC_OK);
    CHECK(scratch.h_count == 4);
    CHECK(scratch.h_bucket[0] == 9 && scratch.h_bucket[1] == 2 && scratch.h_bucket[2] == 2 &&
          scratch.h_bucket[3] == 5);
    for (i = 0; i < 10; i++)
        CHECK_MSG(scratch.h_hot[i] == want_hot[i], "h_hot[%zu] = %g", i, (double)scratch.h_hot[i]);
    CHECK(scratch.c_bucket == dog);
    for (i = 0; i < 5; i++)
        CHECK(scratch.c_hot[i] == ((int64_t)i == dog ? 1.0f : 0.0f));
    CHECK(scratch.k_bucket == fc_hash_bucket("7", 1, 10));
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_OK);
    CHECK(scratch.h_count == 0);
    for (i = 0; i < 10; i++)
        CHECK(scratch.h_hot[i] == 0.0f); /* no values: an all-zero vector */
    CHECK(scratch.c_bucket == cat_b);
    CHECK(scratch.k_bucket == fc_hash_bucket_int64(42, 10) &&
          scratch.k_bucket == fc_hash_bucket("42", 2, 10));
    /* a batch of the two */
    bind(FC_BATCH_SPARSE);
    CHECK(h->buckets != NULL && h->hot != NULL && c->hot != NULL && k->hot == NULL);
    CHECK(run(2) == FC_OK);
    CHECK(h->nvalues == 4 && h->buckets[0] == 9 && h->buckets[3] == 5);
    for (i = 0; i < 10; i++) {
        CHECK(h->hot[i] == want_hot[i]);
        CHECK(h->hot[10 + i] == 0.0f);
    }
    CHECK(c->buckets[0] == dog && c->buckets[1] == cat_b);
    for (i = 0; i < 5; i++) {
        CHECK(c->hot[i] == ((int64_t)i == dog ? 1.0f : 0.0f));
        CHECK(c->hot[5 + i] == ((int64_t)i == cat_b ? 1.0f : 0.0f));
    }
    CHECK(k->buckets[0] == fc_hash_bucket("7", 1, 10));
    CHECK(k->buckets[1] == fc_hash_bucket("42", 2, 10));
    /* a hot buffer too small is refused before the first record */
    cols[BT_E_H].hot_cap = 19;
    CHECK(run(2) == FC_ERR_ARG);
    CHECK_CONTAINS(err.message, "column \"h\": hot needs room for 20, has 19");
}

/* SparseFeature (tf-semantics 2.4): parse_single_example gives indices
 * [n, rank] sorted row-major unless already_sorted, values [n], dense_shape
 * = size; index values are not range-checked; index and value counts must
 * agree (TF's sparse_reorder: "indices and values rows (indexing dimension)
 * must match").  Batched: indices [N, 1 + rank] = (record, index...),
 * dense_shape [B, size...]. */
static void sparse_rec(size_t i, const int64_t *ix, size_t nix, const int64_t *iy, size_t niy,
                       const float *val, size_t nval)
{
    wbuf feats;
    int64_t a = 1;
    feats.n = 0;
    w_entry_int64(&feats, "a", &a, 1);
    if (nix > 0)
        w_entry_int64(&feats, "ix", ix, nix);
    if (niy > 0)
        w_entry_int64(&feats, "iy", iy, niy);
    if (nval > 0)
        w_entry_float(&feats, "val", val, nval);
    recs[i].n = 0;
    w_example(&recs[i], &feats);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

static void test_sparse_feature(void)
{
    static const int64_t ix[3] = {3, 1, 3}, iy[3] = {0, 5, 2}, neg[1] = {-1}, big[1] = {99};
    static const float val[3] = {10, 20, 30}, one_val[1] = {7};
    static const int64_t want_ix[3][2] = {{1, 5}, {3, 0}, {3, 2}};
    static const float want_val[3] = {20, 10, 30};
    const fc_column *sp = &cols[BT_E_SP];
    size_t k;
    char json[1024];
    FILE *f;
    sparse_rec(0, ix, 3, iy, 3, val, 3);
    CHECK(bt_e_parse(&scratch, views[0].data, views[0].size, &err) == FC_OK);
    CHECK(scratch.sp_count == 3 && bt_e_has(&scratch, BT_E_SP));
    for (k = 0; k < 3; k++) {
        CHECK(scratch.sp_indices[k][0] == want_ix[k][0] && scratch.sp_indices[k][1] == want_ix[k][1]);
        CHECK(scratch.sp[k] == want_val[k]);
    }
    CHECK(scratch.ix_count == 3 && scratch.ix[0] == 3); /* ix is also a feature, as read */
    /* the JSON dump contract: parse_single_example's SparseTensor */
    f = fmemopen(json, sizeof json, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fc_json_features(f, &bt_e_desc, &scratch);
        fclose(f);
        CHECK_CONTAINS(json, "\"sp\":{\"indices\":[[1,5],[3,0],[3,2]],\"values\":[20,10,30],"
                             "\"dense_shape\":[10,20]}");
        CHECK_CONTAINS(json, "\"one\":{\"indices\":[],\"values\":[],\"dense_shape\":[5]}");
        CHECK(strstr(json, "\"iy\"") == NULL && strstr(json, "\"val\"") == NULL);
    }
    /* out-of-range and negative indices pass, as in TensorFlow */
    sparse_rec(1, neg, 1, big, 1, one_val, 1);
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_OK);
    CHECK(scratch.sp_count == 1 && scratch.sp_indices[0][0] == -1 &&
          scratch.sp_indices[0][1] == 99);
    /* nothing: no entries, not present */
    sparse_rec(2, NULL, 0, NULL, 0, NULL, 0);
    CHECK(bt_e_parse(&scratch, views[2].data, views[2].size, &err) == FC_OK);
    CHECK(scratch.sp_count == 0 && !bt_e_has(&scratch, BT_E_SP));
    /* batched */
    bind(FC_BATCH_RAGGED); /* a SparseFeature is sparse whatever the forms */
    CHECK(run(3) == FC_OK);
    CHECK(sp->rank == 3 && sp->shape[0] == 3 && sp->shape[1] == 10 && sp->shape[2] == 20);
    CHECK(sp->nvalues == 4 && sp->nindices == 4);
    CHECK(sp->indices[0] == 0 && sp->indices[1] == 1 && sp->indices[2] == 5);
    CHECK(sp->indices[9] == 1 && sp->indices[10] == -1 && sp->indices[11] == 99);
    CHECK(((const float *)sp->values)[3] == 7.0f);
    /* counts that disagree */
    sparse_rec(1, ix, 3, iy, 2, val, 3);
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "indices and values rows (indexing dimension) must match. "
                                "(indices = 2, values = 3) (SparseFeature sp: index key iy has 2 "
                                "values, value key val has 3)");
    /* batched: TF checks the batch's SparseTensor, so its counts are the
     * batch's: records 0 and 2 agree (3 and 0 values), record 1 does not */
    CHECK(run(3) == FC_ERR_PARSE && err.record == 1);
    CHECK_CONTAINS(err.message, "indices and values rows (indexing dimension) must match. "
                                "(indices = 5, values = 6) over the batch (SparseFeature sp: index "
                                "key iy has 2 values, value key val has 3) (record 1 of the "
                                "batch)");
}

/* Duplicate indices are kept (TF keeps them in an unspecified order; featc
 * orders them by value); already_sorted keeps the record's order. */
static void test_sparse_order(void)
{
    static const int64_t ix[2] = {2, 2}, iy[2] = {1, 1}, pos[2] = {4, 0};
    static const float val[2] = {5, 3};
    static const char *const words[2] = {"x", "y"};
    wbuf feats;
    int64_t a = 1;
    sparse_rec(0, ix, 2, iy, 2, val, 2);
    CHECK(bt_e_parse(&scratch, views[0].data, views[0].size, &err) == FC_OK);
    CHECK(scratch.sp_count == 2 && scratch.sp[0] == 3.0f && scratch.sp[1] == 5.0f);
    feats.n = 0;
    w_entry_int64(&feats, "a", &a, 1);
    w_entry_int64(&feats, "pos", pos, 2);
    w_entry_bytes(&feats, "word", words, 2);
    recs[0].n = 0;
    w_example(&recs[0], &feats);
    views[0].size = recs[0].n;
    CHECK(bt_e_parse(&scratch, views[0].data, views[0].size, &err) == FC_OK);
    CHECK(scratch.one_count == 2 && scratch.one_indices[0][0] == 4 &&
          scratch.one_indices[1][0] == 0 && scratch.one[0].data[0] == 'x');
}

/* RaggedFeature (tf-semantics 2.4): no partitions -> a flat list; with
 * partitions (outermost first) nested rows; TF's validate=True rejects
 * partitions that do not fit their values.  Batched: values, row_splits
 * over each record's outermost rows, then each partition's splits. */
static void ragged_rec(size_t i, const int64_t *rv, size_t nrv, const int64_t *rs, size_t nrs,
                       const int64_t *rid, size_t nrid)
{
    static const char *const abc[] = {"a", "b", "c"};
    static const float fl[3] = {1, 2, 3};
    wbuf feats;
    int64_t a = 1;
    feats.n = 0;
    w_entry_int64(&feats, "a", &a, 1);
    w_entry_float(&feats, "rflat", fl, 3);
    if (nrv > 0)
        w_entry_int64(&feats, "rv", rv, nrv);
    if (nrs > 0)
        w_entry_int64(&feats, "rs", rs, nrs);
    if (nrid > 0) {
        w_entry_int64(&feats, "rid", rid, nrid);
        w_entry_bytes(&feats, "rids", abc, nrid);
    }
    recs[i].n = 0;
    w_example(&recs[i], &feats);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

static void test_ragged_feature(void)
{
    static const int64_t rv[8] = {1, 2, 3, 4, 5, 6, 7, 8}, rs[3] = {0, 1, 4}, rid[3] = {0, 0, 2};
    static const int64_t bad_rs[3] = {0, 1, 3}, bad_rid[3] = {0, 2, 1};
    const fc_column *rn = &cols[BT_E_RNEST];
    char json[2048];
    FILE *f;
    ragged_rec(0, rv, 8, rs, 3, rid, 3);
    CHECK(bt_e_parse(&scratch, views[0].data, views[0].size, &err) == FC_OK);
    CHECK(scratch.rflat_count == 3 && scratch.rnest_count == 8);
    CHECK(scratch.rnest_rows0 == 2 && scratch.rnest_rows1 == 4);
    CHECK(scratch.rnest_splits0[0] == 0 && scratch.rnest_splits0[1] == 1 &&
          scratch.rnest_splits0[2] == 4);
    CHECK(scratch.rnest_splits1[4] == 8 && scratch.rids_rows0 == 3);
    f = fmemopen(json, sizeof json, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fc_json_features(f, &bt_e_desc, &scratch);
        fclose(f);
        CHECK_CONTAINS(json, "\"rflat\":[1,2,3]");
        CHECK_CONTAINS(json, "\"rnest\":[[[1,2]],[[3,4],[5,6],[7,8]]]");
        CHECK_CONTAINS(json, "\"rids\":[[\"a\",\"b\"],[],[\"c\"]]");
        CHECK(strstr(json, "\"rv\"") == NULL && strstr(json, "\"rs\"") == NULL);
    }
    /* nothing: no rows */
    ragged_rec(1, NULL, 0, NULL, 0, NULL, 0);
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_OK);
    CHECK(scratch.rnest_count == 0 && scratch.rnest_rows0 == 0 && scratch.rids_rows0 == 0);
    /* batched */
    bind(FC_BATCH_SPARSE);
    CHECK(run(2) == FC_OK);
    CHECK(rn->nvalues == 8 && rn->row_splits[0] == 0 && rn->row_splits[1] == 2 &&
          rn->row_splits[2] == 2);
    CHECK(rn->part_nsplits[0] == 3 && rn->part_splits[0][2] == 4);
    CHECK(rn->part_nsplits[1] == 5 && rn->part_splits[1][4] == 8);
    /* not aligned */
    ragged_rec(1, rv, 8, bad_rs, 3, NULL, 0);
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: rnest.  Feature rnest: values and partitions are not "
                                "aligned (row_splits from key rs: the last split and the items "
                                "are 3, 4)");
    CHECK(run(2) == FC_ERR_PARSE && err.record == 1);
    CHECK_CONTAINS(err.message, "Name: <unknown>, Key: rnest, Index: 1.  Feature rnest: values "
                                "and partitions are not aligned");
    ragged_rec(1, rv, 7, rs, 3, NULL, 0);
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "uniform_row_length: items are not a multiple of the row "
                                "length: 7, 2");
    ragged_rec(1, NULL, 0, NULL, 0, bad_rid, 3);
    CHECK(bt_e_parse(&scratch, views[1].data, views[1].size, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "value_rowids from key rid: row ids decrease at item 2");
}

/* ---- SequenceExample */

static wbuf qctx, qlists;

static void q_list(const char *key, const wbuf *frames, size_t n)
{
    wbuf fl;
    size_t i;
    fl.n = 0;
    for (i = 0; i < n; i++)
        w_len(&fl, 0x0A, frames[i].b, frames[i].n);
    w_entry(&qlists, key, &fl);
}

/* Record i: id = i; x with nx frames [t, -t]; w with frames of t strings. */
static void seq_rec(size_t i, size_t nx, size_t nw)
{
    wbuf frames[8];
    int64_t id = (int64_t)i;
    size_t t;
    static const char *const words[] = {"a", "b", "c"};
    qctx.n = qlists.n = 0;
    w_entry_int64(&qctx, "id", &id, 1);
    for (t = 0; t < nx; t++) {
        float xv[2];
        xv[0] = (float)t;
        xv[1] = -(float)t;
        frames[t].n = 0;
        f_float_packed(&frames[t], xv, 2);
    }
    if (nx > 0)
        q_list("x", frames, nx);
    for (t = 0; t < nw; t++) {
        frames[t].n = 0;
        f_bytes(&frames[t], words, t);
    }
    if (nw > 0)
        q_list("w", frames, nw);
    recs[i].n = 0;
    w_len(&recs[i], 0x0A, qctx.b, qctx.n);
    w_len(&recs[i], 0x12, qlists.b, qlists.n);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

static int qrun(size_t n)
{
    fc_error_clear(&err);
    return bt_q_parse_batch(qcols, &qscratch, views, n, &err);
}

/* Context as parse_example; a fixed-frame list [B, T, frame] padded with 0
 * plus lengths; a VarLen list indices [N,3] = (record, frame, position),
 * dense_shape [B, most frames, most values in a frame]; ragged: splits over
 * frames [B+1] and over values [frames + 1]. */
static void test_sequence_layouts(void)
{
    const fc_column *id = &qcols[BT_Q_ID], *x = &qcols[BT_Q_X], *w = &qcols[BT_Q_W];
    const float *xv;
    size_t need = bt_q_batch_bind(qcols, 8, FC_BATCH_SPARSE | FC_BATCH_RAGGED, qblock,
                                  sizeof qblock);
    static const int64_t widx[][3] = {{0, 1, 0}, {0, 2, 0}, {0, 2, 1}, {2, 1, 0}};
    size_t k;
    CHECK(need == sizeof qblock);
    seq_rec(0, 2, 3);
    seq_rec(1, 0, 0);
    seq_rec(2, 3, 2);
    CHECK(qrun(3) == FC_OK);
    CHECK(id->rank == 1 && id->shape[0] == 3 && i64_at(id, 2) == 2);
    CHECK(qcols[BT_Q_TAGS].rank == 2 && qcols[BT_Q_TAGS].shape[1] == 0);
    CHECK(x->rank == 3 && x->shape[0] == 3 && x->shape[1] == 3 && x->shape[2] == 2);
    CHECK(x->lengths[0] == 2 && x->lengths[1] == 0 && x->lengths[2] == 3);
    xv = (const float *)x->values;
    CHECK(xv[0] == 0 && xv[2] == 1 && xv[3] == -1 && xv[4] == 0 && xv[5] == 0);
    for (k = 6; k < 12; k++)
        CHECK(xv[k] == 0);
    CHECK(xv[12 + 4] == 2 && xv[12 + 5] == -2);
    CHECK(w->rank == 3 && w->shape[0] == 3 && w->shape[1] == 3 && w->shape[2] == 2);
    CHECK(w->nvalues == 4 && w->nindices == 4 && w->nframes == 5);
    for (k = 0; k < 4; k++)
        CHECK(w->indices[3 * k] == widx[k][0] && w->indices[3 * k + 1] == widx[k][1] &&
              w->indices[3 * k + 2] == widx[k][2]);
    CHECK(w->row_splits[0] == 0 && w->row_splits[1] == 3 && w->row_splits[2] == 3 &&
          w->row_splits[3] == 5);
    CHECK(w->inner_splits[0] == 0 && w->inner_splits[1] == 0 && w->inner_splits[2] == 1 &&
          w->inner_splits[3] == 3 && w->inner_splits[4] == 3 && w->inner_splits[5] == 4);
    CHECK(w->lengths[0] == 3 && w->lengths[1] == 0 && w->lengths[2] == 2);
    CHECK(((const fc_bytes *)w->values)[2].data[0] == 'b');
}

static void test_sequence_errors(void)
{
    bt_q_batch_bind(qcols, 8, FC_BATCH_SPARSE, qblock, sizeof qblock);
    seq_rec(0, 1, 1);
    seq_rec(1, 6, 0); /* 6 frames: over the bound of 5 */
    seq_rec(2, 1, 1);
    CHECK(qrun(3) == FC_ERR_PARSE);
    CHECK(err.record == 1);
    CHECK_CONTAINS(err.message, "(record 1 of the batch)");
    CHECK_CONTAINS(err.message, "x");
}

/* ---- fc_batch_parse_each: the caller's per-record parse (here the
 * generated one, through the desc), the general append per column: the same
 * block as fc_batch_parse for valid records, in every layout; a failing
 * record gives the per-record parse's own message at its place. */

static int desc_parse(void *ctx, void *msg, const void *data, size_t size, fc_error *e)
{
    return ((const fc_message_desc *)ctx)->parse(msg, data, size, e);
}

static int seq_desc_parse(void *ctx, void *msg, const void *data, size_t size, fc_error *e)
{
    return ((const fc_seq_desc *)ctx)->parse(msg, data, size, e);
}

/* Record i with a value in every kind of column of e. */
static void rich_rec(size_t i)
{
    wbuf feats;
    int64_t a = (int64_t)i, ix[3] = {1, 4, 1}, iy[3] = {2, 0, 2}, pos[2] = {0, 3}, k = 40;
    int64_t r[4] = {1, 2, 3, 4}, v[3] = {7, 8, 9}, rv[4] = {1, 2, 3, 4}, rs[3] = {0, 1, 2};
    int64_t rid[2] = {0, 0};
    float m[4] = {1, 2, 3, 4}, val[3] = {0.5f, 1.5f, 2.5f}, rflat[2] = {3, 4};
    static const char *const h[] = {"x", "yy", "x"}, *const c[] = {"cat"};
    static const char *const sv[] = {"s0", "s1"}, *const word[] = {"w0", "w1"};
    static const char *const rids[] = {"p", "q"};
    feats.n = 0;
    m[0] = (float)i;
    w_entry_int64(&feats, "a", &a, 1);
    w_entry_float(&feats, "m", m, 4);
    w_entry_int64(&feats, "r", r, i % 2 == 0 ? 4 : 2);
    w_entry_bytes(&feats, "s", sv, i % 3);
    w_entry_int64(&feats, "v", v, i % 4);
    w_entry_bytes(&feats, "h", h, 3);
    if (i != 1)
        w_entry_bytes(&feats, "c", c, 1);
    w_entry_int64(&feats, "k", &k, 1);
    w_entry_int64(&feats, "ix", ix, 3);
    w_entry_int64(&feats, "iy", iy, 3);
    w_entry_float(&feats, "val", val, 3);
    w_entry_int64(&feats, "pos", pos, 2);
    w_entry_bytes(&feats, "word", word, 2);
    w_entry_float(&feats, "rflat", rflat, i % 3);
    w_entry_int64(&feats, "rv", rv, 4);
    w_entry_int64(&feats, "rs", rs, 3);
    w_entry_bytes(&feats, "rids", rids, 2);
    w_entry_int64(&feats, "rid", rid, 2);
    recs[i].n = 0;
    w_example(&recs[i], &feats);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

/* The columns' counts and shapes, and the bound blocks' bytes from where
 * each was aligned (size: what bind said, less the alignment's slack). */
static size_t align_skip(const void *p)
{
    return (FC_BATCH_ALIGN - (size_t)((uintptr_t)p % FC_BATCH_ALIGN)) % FC_BATCH_ALIGN;
}

static int same_columns(const fc_column *x, const fc_column *y, size_t n, const void *bx,
                        const void *by, size_t size)
{
    size_t j;
    bx = (const unsigned char *)bx + align_skip(bx);
    by = (const unsigned char *)by + align_skip(by);
    size -= FC_BATCH_ALIGN - 1;
    for (j = 0; j < n; j++)
        if (x[j].nvalues != y[j].nvalues || x[j].nindices != y[j].nindices ||
            x[j].nframes != y[j].nframes || x[j].rank != y[j].rank ||
            memcmp(x[j].shape, y[j].shape, sizeof x[j].shape) != 0)
            return 0;
    return memcmp(bx, by, size) == 0;
}

static unsigned char block2[sizeof block], qblock2[sizeof qblock];

static void test_parse_each(void)
{
    static const unsigned forms[] = {FC_BATCH_SPARSE, FC_BATCH_RAGGED,
                                     FC_BATCH_RAGGED | FC_BATCH_PACKED};
    fc_column cols2[BT_E_FIELD_COUNT], qcols2[BT_Q_FIELD_COUNT];
    fc_error e2;
    size_t f, i, need;
    for (i = 0; i < 6; i++)
        rich_rec(i);
    for (f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        memset(block, 0, sizeof block);
        memset(block2, 0, sizeof block2);
        need = bt_e_batch_bind(cols, 8, forms[f], block, sizeof block);
        CHECK(need > 0 && bt_e_batch_bind(cols2, 8, forms[f], block2, sizeof block2) == need);
        CHECK_MSG(run(6) == FC_OK, "%s", err.message);
        CHECK_MSG(fc_batch_parse_each(&bt_e_desc, desc_parse, (void *)&bt_e_desc, cols2, &scratch,
                                      views, 6, &e2) == FC_OK, "%s", e2.message);
        CHECK_MSG(same_columns(cols, cols2, BT_E_FIELD_COUNT, block, block2, need),
                  "forms %u: fc_batch_parse_each's block differs from fc_batch_parse's", forms[f]);
    }
    /* record 3 fails: the per-record parse's message, record 3 */
    views[3].size -= 1;
    CHECK(fc_batch_parse_each(&bt_e_desc, desc_parse, (void *)&bt_e_desc, cols2, &scratch, views,
                              6, &e2) == FC_ERR_PARSE);
    fc_error_clear(&err);
    CHECK(bt_e_desc.parse(&scratch, views[3].data, views[3].size, &err) != FC_OK);
    CHECK(e2.record == 3 && strcmp(e2.message, err.message) == 0);
    views[3].size += 1;
    /* a SequenceExample batch */
    for (i = 0; i < 4; i++)
        seq_rec(i, i % 4, (i + 1) % 3);
    memset(qblock, 0, sizeof qblock);
    memset(qblock2, 0, sizeof qblock2);
    need = bt_q_batch_bind(qcols, 4, FC_BATCH_SPARSE | FC_BATCH_RAGGED, qblock, sizeof qblock);
    CHECK(need > 0 && bt_q_batch_bind(qcols2, 4, FC_BATCH_SPARSE | FC_BATCH_RAGGED, qblock2,
                                      sizeof qblock2) == need);
    CHECK_MSG(qrun(4) == FC_OK, "%s", err.message);
    CHECK(fc_batch_parse_each_seq(&bt_q_desc, seq_desc_parse, (void *)&bt_q_desc, qcols2,
                                  &qscratch, views, 4, &e2) == FC_OK);
    CHECK(same_columns(qcols, qcols2, BT_Q_FIELD_COUNT, qblock, qblock2, need));
}

/* ---- fc_batch_parse_each_direct: the direct path of a message described
 * at run time, here a desc of three of e's fields (FixedLen a, m with a
 * default, VarLen v) over e's struct, keys found by a search of the desc
 * (featc_dynamic_lookup's job): the same block as fc_batch_parse_each,
 * the records the direct path declines (a repeated key) and a failing one
 * included. */

static fc_field_desc direct_fields[3];
static const uint16_t direct_order[3] = {0, 1, 2}; /* a, m, v */
static fc_message_desc direct_md;
static fc_feature_ref direct_refs[4];

static int direct_lookup(const void *ctx, const uint8_t *key, size_t len)
{
    const fc_message_desc *md = (const fc_message_desc *)ctx;
    size_t j;
    for (j = 0; j < md->nfields; j++)
        if (md->fields[j].key_len == len && memcmp(md->fields[j].key, key, len) == 0)
            return (int)j;
    return -1;
}

static int direct_parse(void *ctx, void *msg, const void *data, size_t size, fc_error *e)
{
    return fc_ex_parse_desc((const fc_message_desc *)ctx, msg, data, size, direct_lookup, ctx,
                            direct_refs, e);
}

/* Record i: a twice (the fast path declines it; the last wins), v. */
static void repeated_rec(size_t i)
{
    wbuf feats;
    int64_t a1 = 1, a2 = 2, v[2] = {5, 6};
    feats.n = 0;
    w_entry_int64(&feats, "a", &a1, 1);
    w_entry_int64(&feats, "v", v, 2);
    w_entry_int64(&feats, "a", &a2, 1);
    recs[i].n = 0;
    w_example(&recs[i], &feats);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

static void test_parse_each_direct(void)
{
    static const unsigned forms[] = {FC_BATCH_SPARSE, FC_BATCH_RAGGED,
                                     FC_BATCH_RAGGED | FC_BATCH_PACKED};
    fc_column cols2[3];
    fc_error e2;
    size_t f, i, need;
    direct_fields[0] = bt_e_desc.fields[BT_E_A];
    direct_fields[1] = bt_e_desc.fields[BT_E_M];
    direct_fields[2] = bt_e_desc.fields[BT_E_V];
    direct_md = bt_e_desc;
    direct_md.nfields = 3;
    direct_md.fields = direct_fields;
    direct_md.missing_order = direct_order;
    direct_md.parse = NULL;
    direct_md.parse_batched = NULL;
    direct_md.batch_append = NULL;
    direct_md.batch_direct = NULL;
    CHECK(fc_batch_direct_fits(&direct_md) && !fc_batch_direct_fits(&bt_e_desc));
    for (i = 0; i < 6; i++)
        rich_rec(i);                 /* a, m, v and keys the desc does not name */
    example_rec(6, 9, 0, 3);         /* no m: its default */
    repeated_rec(7);
    for (f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        memset(block, 0, sizeof block);
        memset(block2, 0, sizeof block2);
        need = fc_batch_bind(&direct_md, cols, 8, forms[f], block, sizeof block);
        CHECK(need > 0 && fc_batch_bind(&direct_md, cols2, 8, forms[f], block2,
                                        sizeof block2) == need);
        CHECK_MSG(fc_batch_parse_each(&direct_md, direct_parse, &direct_md, cols, &scratch, views,
                                      8, &err) == FC_OK, "%s", err.message);
        CHECK_MSG(fc_batch_parse_each_direct(&direct_md, direct_lookup, &direct_md, direct_parse,
                                             &direct_md, cols2, &scratch, views, 8,
                                             &e2) == FC_OK, "%s", e2.message);
        CHECK_MSG(same_columns(cols, cols2, 3, block, block2, need),
                  "forms %u: the direct path's block differs from the per-record path's",
                  forms[f]);
    }
    /* the direct path itself took records 0-6 and declined 7 */
    fc_batch_bind(&direct_md, cols2, 8, FC_BATCH_RAGGED, block2, sizeof block2);
    CHECK(fc_batch_begin(&direct_md, cols2, 8, &e2) == FC_OK);
    CHECK(fc_batch_direct_desc(&direct_md, direct_lookup, &direct_md, cols2, views, 0, 8) == 7);
    /* record 3 without a (required): the per-record path's error, record 3 */
    recs[3].n = 0;
    {
        wbuf feats;
        int64_t v = 4;
        feats.n = 0;
        w_entry_int64(&feats, "v", &v, 1);
        w_example(&recs[3], &feats);
        views[3].size = recs[3].n;
    }
    CHECK(fc_batch_parse_each(&direct_md, direct_parse, &direct_md, cols, &scratch, views, 8,
                              &err) == FC_ERR_PARSE);
    CHECK(fc_batch_parse_each_direct(&direct_md, direct_lookup, &direct_md, direct_parse,
                                     &direct_md, cols2, &scratch, views, 8, &e2) == FC_ERR_PARSE);
    CHECK(e2.record == 3 && err.record == 3 && strcmp(e2.message, err.message) == 0);
}

int main(void)
{
    RUN(test_bind_sizes);
    RUN(test_fixed_layout);
    RUN(test_rows_padding);
    RUN(test_varlen_sparse_and_ragged);
    RUN(test_batch_of_one);
    RUN(test_empty_batch);
    RUN(test_errors);
    RUN(test_tf_texts);
    RUN(test_capacities);
    RUN(test_hash_buckets);
    RUN(test_sparse_feature);
    RUN(test_sparse_order);
    RUN(test_ragged_feature);
    RUN(test_sequence_layouts);
    RUN(test_sequence_errors);
    RUN(test_parse_each);
    RUN(test_parse_each_direct);
    return harness_report("batch");
}
