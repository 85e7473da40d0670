/* The direct batch path of a SequenceExample (fc_batch_seq_direct_desc,
 * runtime/core/batch_seq_direct.c), through tests/specs/batch.feat's p:
 * the records it takes give the block the per-record path gives
 * (fc_batch_parse_each_seq, which never takes it), in every layout, by
 * the generated batch (bt_p_parse_batch) and by fc_batch_parse_each_seq_direct;
 * the records it declines (a repeated key, unpacked values, an empty
 * FeatureList, unaligned lists, a column without room) go to that path
 * with nothing of them committed; and a failing record's error (a
 * required feature absent, too many frames, a uniform list's uneven
 * frames) is that path's, at its place. */
/* test-specs: tests/specs/batch.feat */
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "harness.h"
#include "wire.h"

#define NREC 8

enum {
    F_REPEAT = 1,    /* w twice */
    F_UNPACKED = 2,  /* x's floats unpacked */
    F_EMPTY = 4,     /* u an empty FeatureList */
    F_UNEVEN = 8,    /* u's frames of 2 values, then 1: not uniform */
    F_UNKNOWN = 16,  /* a context feature and a list the spec does not name */
    F_NO_ID = 32,    /* the required id absent */
    F_MANY = 64,     /* x with 6 frames: over the bound of 5 */
    F_NO_N = 128     /* n absent (allow_missing) */
};

static wbuf recs[NREC];
static fc_bytes views[NREC];
static bt_p scratch;
static fc_error err, e2;

static void list_of(wbuf *lists, const char *key, const wbuf *frames, size_t n)
{
    static wbuf fl;
    size_t t;
    fl.n = 0;
    for (t = 0; t < n; t++)
        w_len(&fl, 0x0A, frames[t].b, frames[t].n);
    w_entry(lists, key, &fl);
}

/* Record i: id = i, tags of i % 4 strings, x with nx frames [t, -t], w with
 * frames of t % 4 strings (nx + 1 of them), u with 2 frames of 2 values,
 * n with nx frames; flags as above. */
static void rec(size_t i, size_t nx, unsigned flags)
{
    static const char *const words[] = {"a", "bb", "", "dddd"};
    static wbuf ctx, lists, frames[8];
    int64_t id = (int64_t)i, u[2];
    size_t t, nw = nx + 1;
    ctx.n = lists.n = 0;
    if (!(flags & F_NO_ID))
        w_entry_int64(&ctx, "id", &id, 1);
    w_entry_bytes(&ctx, "tags", words, i % 4);
    if (flags & F_UNKNOWN)
        w_entry_bytes(&ctx, "zz", words, 2);
    if (flags & F_MANY)
        nx = 6;
    for (t = 0; t < nx; t++) {
        float xv[2];
        xv[0] = (float)t;
        xv[1] = -(float)t;
        frames[t].n = 0;
        if (flags & F_UNPACKED)
            f_float_unpacked(&frames[t], xv, 2);
        else
            f_float_packed(&frames[t], xv, 2);
    }
    if (nx > 0)
        list_of(&lists, "x", frames, nx);
    for (t = 0; t < nw; t++) {
        frames[t].n = 0;
        f_bytes(&frames[t], words, t % 4);
    }
    list_of(&lists, "w", frames, nw);
    if (flags & F_REPEAT)
        list_of(&lists, "w", frames, nw);
    for (t = 0; t < 2; t++) {
        u[0] = (int64_t)(10 * i + t);
        u[1] = -u[0];
        frames[t].n = 0;
        f_int64_packed(&frames[t], u, (flags & F_UNEVEN) && t == 1 ? 1 : 2);
    }
    list_of(&lists, "u", frames, (flags & F_EMPTY) ? 0 : 2);
    if (flags & F_UNKNOWN)
        list_of(&lists, "zz", frames, 2);
    for (t = 0; t < nx && !(flags & F_NO_N); t++) {
        frames[t].n = 0;
        f_int64_packed(&frames[t], &id, 1);
    }
    if (nx > 0 && !(flags & F_NO_N))
        list_of(&lists, "n", frames, nx);
    recs[i].n = 0;
    w_len(&recs[i], 0x0A, ctx.b, ctx.n);
    w_len(&recs[i], 0x12, lists.b, lists.n);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

/* The per-record parse by a descriptor: the runtime's, so that a changed
 * descriptor (aligned, below) parses as it says. */
static fc_feature_ref refs[BT_P_FIELD_COUNT];
static int desc_parse(void *ctx, void *msg, const void *data, size_t size, fc_error *e)
{
    return fc_seq_parse((const fc_seq_desc *)ctx, msg, data, size, refs, e);
}

/* ---- two bound blocks, compared byte for byte */

static unsigned char block[3][BT_P_BATCH_BYTES(NREC) + 64];
static fc_column cols[3][BT_P_FIELD_COUNT];

static size_t align_skip(const void *p)
{
    return (FC_BATCH_ALIGN - (size_t)((uintptr_t)p % FC_BATCH_ALIGN)) % FC_BATCH_ALIGN;
}

static size_t bind(size_t k, const fc_seq_desc *sd, size_t n, unsigned forms)
{
    memset(block[k], 0, sizeof block[k]);
    return fc_batch_bind_seq(sd, cols[k], n, forms, block[k], sizeof block[k]);
}

static int same(size_t a, size_t b, size_t need)
{
    const unsigned char *x = block[a] + align_skip(block[a]), *y = block[b] + align_skip(block[b]);
    size_t j;
    for (j = 0; j < BT_P_FIELD_COUNT; j++) {
        const fc_column *c = &cols[a][j], *d = &cols[b][j];
        if (c->nvalues != d->nvalues || c->nindices != d->nindices || c->nframes != d->nframes ||
            c->rank != d->rank || memcmp(c->shape, d->shape, sizeof c->shape) != 0)
            return 0;
    }
    return memcmp(x, y, need - (FC_BATCH_ALIGN - 1)) == 0;
}

/* The three ways over views[0..n): 0 the per-record path, 1 the generated
 * batch, 2 fc_batch_parse_each_seq_direct; FC_OK from each and one block. */
static void three_ways(const fc_seq_desc *sd, size_t n, unsigned forms, const char *what)
{
    size_t need = bind(0, sd, n, forms);
    CHECK(need > 0 && bind(1, sd, n, forms) == need && bind(2, sd, n, forms) == need);
    CHECK_MSG(fc_batch_parse_each_seq(sd, desc_parse, (void *)sd, cols[0], &scratch, views, n,
                                      &err) == FC_OK,
              "%s: %s", what, err.message);
    if (sd == &bt_p_desc)
        CHECK_MSG(bt_p_parse_batch(cols[1], &scratch, views, n, &err) == FC_OK, "%s: %s", what,
                  err.message);
    else
        CHECK_MSG(fc_batch_parse_seq(sd, cols[1], &scratch, views, n, &err) == FC_OK, "%s: %s",
                  what, err.message);
    CHECK_MSG(fc_batch_parse_each_seq_direct(sd, desc_parse, (void *)sd, cols[2], &scratch, views,
                                             n, &err) == FC_OK,
              "%s: %s", what, err.message);
    CHECK_MSG(same(0, 1, need), "%s, forms %u: the generated batch differs from the per-record "
              "path", what, forms);
    CHECK_MSG(same(0, 2, need), "%s, forms %u: the direct path differs from the per-record path",
              what, forms);
}

/* How many records from first the direct path takes. */
static size_t taken(const fc_seq_desc *sd, size_t first, size_t n)
{
    bind(2, sd, n, FC_BATCH_SPARSE | FC_BATCH_RAGGED);
    CHECK(fc_batch_begin_seq(sd, cols[2], n, &err) == FC_OK);
    return fc_batch_seq_direct_desc(sd, cols[2], &scratch, views, first, n);
}

static void test_fits(void)
{
    CHECK(fc_batch_seq_direct_fits(&bt_p_desc));
    CHECK(!fc_batch_seq_direct_fits(&bt_q_desc)); /* hashed tags */
}

static void test_taken_all(void)
{
    static const unsigned forms[] = {FC_BATCH_SPARSE, FC_BATCH_RAGGED,
                                     FC_BATCH_RAGGED | FC_BATCH_PACKED,
                                     FC_BATCH_SPARSE | FC_BATCH_RAGGED};
    size_t f, i;
    for (i = 0; i < NREC; i++)
        rec(i, i % 5, i == 3 ? F_UNKNOWN : i == 6 ? F_NO_N : 0);
    CHECK(taken(&bt_p_desc, 0, NREC) == NREC); /* so the compare below is of that path */
    for (f = 0; f < sizeof forms / sizeof forms[0]; f++)
        three_ways(&bt_p_desc, NREC, forms[f], "every record taken");
}

/* Each kind of record the direct path declines, among records it takes:
 * it stops there, and the batch is the per-record path's. */
static void test_declined(void)
{
    static const unsigned kinds[] = {F_REPEAT, F_UNPACKED, F_EMPTY};
    size_t k, i;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (i = 0; i < NREC; i++)
            rec(i, 1 + i % 4, i == 3 ? kinds[k] : 0);
        CHECK_MSG(taken(&bt_p_desc, 0, NREC) == 3, "flags %u: declined at %zu", kinds[k],
                  taken(&bt_p_desc, 0, NREC));
        CHECK(taken(&bt_p_desc, 4, NREC) == NREC);
        three_ways(&bt_p_desc, NREC, FC_BATCH_SPARSE | FC_BATCH_RAGGED, "one record declined");
    }
}

/* p's lists declared aligned (a descriptor changed at run time): a record
 * whose lists' frames differ is declined, and the error is the per-record
 * path's; records whose lists agree are taken. */
static void test_aligned(void)
{
    fc_seq_desc al = bt_p_desc;
    size_t i, need;
    int rc0, rc2;
    al.aligned = 1;
    al.parse = NULL;
    al.batch_append = NULL;
    for (i = 0; i < NREC; i++)
        rec(i, 2, 0); /* x, n: 2 frames; w: 3; u: 2 */
    CHECK(taken(&al, 0, NREC) == 0);
    need = bind(0, &al, NREC, FC_BATCH_RAGGED);
    CHECK(need > 0 && bind(2, &al, NREC, FC_BATCH_RAGGED) == need);
    rc0 = fc_batch_parse_each_seq(&al, desc_parse, &al, cols[0], &scratch, views, NREC, &err);
    rc2 = fc_batch_parse_each_seq_direct(&al, desc_parse, &al, cols[2], &scratch, views, NREC,
                                         &e2);
    CHECK(rc0 == FC_ERR_PARSE && rc2 == rc0 && err.record == 0 && e2.record == 0);
    CHECK(strcmp(err.message, e2.message) == 0);
    CHECK_CONTAINS(e2.message, "aligned");
    /* records of n and u alone, a frame each: taken */
    for (i = 0; i < NREC; i++) {
        static wbuf lists, fr[1], ctx;
        int64_t id = (int64_t)i;
        ctx.n = lists.n = 0;
        w_entry_int64(&ctx, "id", &id, 1);
        fr[0].n = 0;
        f_int64_packed(&fr[0], &id, 1);
        list_of(&lists, "n", fr, 1);
        list_of(&lists, "u", fr, 1);
        recs[i].n = 0;
        w_len(&recs[i], 0x0A, ctx.b, ctx.n);
        w_len(&recs[i], 0x12, lists.b, lists.n);
        views[i].data = recs[i].b;
        views[i].size = recs[i].n;
    }
    CHECK(taken(&al, 0, NREC) == NREC);
    three_ways(&al, NREC, FC_BATCH_SPARSE | FC_BATCH_RAGGED, "aligned lists");
}

/* A record that fails, after records the direct path took: the per-record
 * path's error at its place, on every path. */
static void test_errors(void)
{
    static const unsigned kinds[] = {F_NO_ID, F_MANY, F_UNEVEN};
    size_t k, i, need;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int rc0, rc1, rc2;
        fc_error e1;
        for (i = 0; i < NREC; i++)
            rec(i, 2, i == 5 ? kinds[k] : 0);
        need = bind(0, &bt_p_desc, NREC, FC_BATCH_SPARSE);
        CHECK(bind(1, &bt_p_desc, NREC, FC_BATCH_SPARSE) == need &&
              bind(2, &bt_p_desc, NREC, FC_BATCH_SPARSE) == need);
        rc0 = fc_batch_parse_each_seq(&bt_p_desc, desc_parse, (void *)&bt_p_desc, cols[0],
                                      &scratch, views, NREC, &err);
        rc1 = bt_p_parse_batch(cols[1], &scratch, views, NREC, &e1);
        rc2 = fc_batch_parse_each_seq_direct(&bt_p_desc, desc_parse, (void *)&bt_p_desc,
                                             cols[2], &scratch, views, NREC, &e2);
        CHECK(rc0 == FC_ERR_PARSE && rc1 == rc0 && rc2 == rc0);
        CHECK(err.record == 5 && e1.record == 5 && e2.record == 5);
        CHECK_MSG(strcmp(err.message, e2.message) == 0, "\"%s\" against \"%s\"", err.message,
                  e2.message);
    }
}

/* A column without room for a record's values: the direct path declines
 * it, and the per-record path says which buffer is short. */
static void test_room(void)
{
    size_t i, need;
    int rc0, rc2;
    for (i = 0; i < NREC; i++)
        rec(i, 3, 0); /* w: 4 frames of 0, 1, 2, 3 strings a record */
    need = bind(0, &bt_p_desc, NREC, FC_BATCH_RAGGED);
    CHECK(bind(2, &bt_p_desc, NREC, FC_BATCH_RAGGED) == need);
    cols[0][BT_P_W].values_cap = cols[2][BT_P_W].values_cap = 6 * 2 + 3;
    rc0 = fc_batch_parse_each_seq(&bt_p_desc, desc_parse, (void *)&bt_p_desc, cols[0], &scratch,
                                  views, NREC, &err);
    rc2 = fc_batch_parse_each_seq_direct(&bt_p_desc, desc_parse, (void *)&bt_p_desc, cols[2],
                                         &scratch, views, NREC, &e2);
    CHECK(rc0 == FC_ERR_NO_SPACE && rc2 == rc0 && err.record == 2 && e2.record == 2);
    CHECK(strcmp(err.message, e2.message) == 0);
}

int main(void)
{
    RUN(test_fits);
    RUN(test_taken_all);
    RUN(test_declined);
    RUN(test_aligned);
    RUN(test_errors);
    RUN(test_room);
    return harness_report("seq_direct");
}
