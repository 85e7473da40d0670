/* Arrow tables of tests/specs/plain.feat's columns built from a string of
 * bytes (each choice one byte: a random string in test_rows_direct.c, the
 * fuzzer's input in fuzz_rows_direct.c), and the check that a row goes
 * straight into a record (fc_arrow_rows_serialize) exactly as it goes
 * through the struct and the serializer.  The tables vary what the direct
 * way reads: nulls (a validity buffer or none), the batch's and every
 * array's offset, 32- and 64-bit offsets, binary and utf8, values equal to
 * the defaults bit for bit or not (-0.0, NaN), lists empty, full and past
 * the spec's bound, nulls inside lists; and, now and then, a column of a
 * type the direct way leaves to the general one (int32 for int64, float64
 * for float), whose every row it must decline.  Static: each user has its
 * own copy. */
#ifndef FEATC_PLAIN_TABLE_H
#define FEATC_PLAIN_TABLE_H

#include <featc/fc.h>
#include <featc/fc_arrow.h>
#include <featc/fc_serialize.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plain.h"

#define PT_ROWS 48       /* at most, offsets included */
#define PT_VALUES 320    /* a list column's values, its offset included */
#define PT_COLS PL_P_FIELD_COUNT

/* The choices' bytes; 0 once they run out. */
typedef struct pt_bytes {
    const uint8_t *p;
    size_t n;
} pt_bytes;

static unsigned pt_take(pt_bytes *b, unsigned range)
{
    unsigned v = 0;
    if (b->n > 0) {
        v = *b->p++;
        b->n--;
    }
    return range == 0 ? v : v % range;
}

/* One column: its arrays, buffers and schema. */
typedef struct pt_col {
    struct ArrowArray arr, child;
    struct ArrowArray *kids[1];
    struct ArrowSchema sch, csch;
    struct ArrowSchema *skids[1];
    const void *bufs[3], *cbufs[3];
    uint8_t valid[PT_ROWS / 8 + 1], cvalid[PT_VALUES / 8 + 1];
    int64_t off64[PT_ROWS + 1], coff64[PT_VALUES + 1];
    int32_t off32[PT_ROWS + 1], coff32[PT_VALUES + 1];
    unsigned char vals[PT_VALUES * 8];
    unsigned char data[PT_VALUES * 16];
    char fmt[4], cfmt[4];
    int plain; /* of a type the direct way takes */
} pt_col;

typedef struct pt_table {
    struct ArrowArray batch;
    struct ArrowArray *kids[PT_COLS];
    struct ArrowSchema schema;
    struct ArrowSchema *skids[PT_COLS];
    const void *bufs[1];
    pt_col cols[PT_COLS];
    int plain;
} pt_table;

static void pt_release_array(struct ArrowArray *a)
{
    a->release = NULL;
}

static void pt_release_schema(struct ArrowSchema *s)
{
    s->release = NULL;
}

static void pt_schema(struct ArrowSchema *s, const char *format, const char *name)
{
    memset(s, 0, sizeof *s);
    s->format = format;
    s->name = name;
    s->flags = 2; /* nullable */
    s->release = pt_release_schema;
}

static void pt_array(struct ArrowArray *a, int64_t length, const void **bufs, int64_t nbufs)
{
    memset(a, 0, sizeof *a);
    a->length = length;
    a->buffers = bufs;
    a->n_buffers = nbufs;
    a->release = pt_release_array;
}

/* Validity of n slots (null_count set; no buffer when none is null, now and then). */
static void pt_validity(pt_bytes *b, struct ArrowArray *a, uint8_t *bits, int64_t n, unsigned odds)
{
    int64_t i, nulls = 0;
    memset(bits, 0, (size_t)(n / 8 + 1));
    for (i = 0; i < n; i++) {
        if (odds > 0 && pt_take(b, odds) == 0)
            nulls++;
        else
            bits[i / 8] = (uint8_t)(bits[i / 8] | (1u << (i % 8)));
    }
    a->null_count = nulls;
    a->buffers[0] = nulls == 0 && pt_take(b, 2) == 0 ? NULL : bits;
}

static const char *const pt_words[6] = {"", "dog", "do", "cat", "dogs", "a longer word"};

/* n values of type t (format f: 'l', 'i', 'f', 'g', or a binary one) into c's
 * value buffers (vals, data, offsets) for array a. */
static void pt_values(pt_bytes *b, pt_col *c, struct ArrowArray *a, const void **bufs, char f,
                      int64_t n, uint8_t *vals, int32_t *o32, int64_t *o64, unsigned char *data)
{
    int64_t i, at = 0;
    for (i = 0; i < n; i++) {
        unsigned k = pt_take(b, 6);
        if (f == 'l') {
            static const int64_t v[6] = {7, 0, -1, INT64_MIN, (int64_t)1 << 40, 127};
            memcpy(vals + 8 * i, &v[k], 8);
        } else if (f == 'i') {
            int32_t v = (int32_t)k * 3 - 4;
            memcpy(vals + 4 * i, &v, 4);
        } else if (f == 'f') {
            static const uint32_t v[6] = {0x3FC00000u /* 1.5 */, 0, 0x80000000u /* -0.0 */,
                                          0x7FC00000u /* NaN */, 0x40500000u, 0xFF800000u};
            memcpy(vals + 4 * i, &v[k], 4);
        } else if (f == 'g') {
            double v = k * 0.5;
            memcpy(vals + 8 * i, &v, 8);
        } else {
            size_t len = strlen(pt_words[k]);
            if (f == 'Z' || f == 'U')
                o64[i] = at;
            else
                o32[i] = (int32_t)at;
            memcpy(data + at, pt_words[k], len);
            at += (int64_t)len;
        }
    }
    (void)c;
    if (strchr("zZuU", f) != NULL) {
        if (f == 'Z' || f == 'U')
            o64[n] = at;
        else
            o32[n] = (int32_t)at;
        bufs[1] = f == 'Z' || f == 'U' ? (const void *)o64 : (const void *)o32;
        bufs[2] = data;
        a->n_buffers = 3;
    } else {
        bufs[1] = vals;
        a->n_buffers = 2;
    }
}

/* The leaf format for type t: the mapped one mostly, now and then another
 * the rows accept (and the direct way leaves alone). */
static char pt_leaf(pt_bytes *b, fc_type t, int *plain)
{
    unsigned k = pt_take(b, 16);
    if (t != FC_TYPE_BYTES && k == 0) {
        *plain = 0;
        return t == FC_TYPE_INT64 ? 'i' : 'g';
    }
    if (t != FC_TYPE_BYTES)
        return t == FC_TYPE_INT64 ? 'l' : 'f';
    return "zZuU"[k % 4];
}

/* Table t from the bytes: 1, or 0 when they describe none. */
static int pt_build(pt_bytes *b, pt_table *t)
{
    const fc_message_desc *md = &pl_p_desc;
    int64_t rows = (int64_t)pt_take(b, 40), off = (int64_t)pt_take(b, 4), len = rows + off;
    size_t j;
    memset(t, 0, sizeof *t);
    t->plain = 1;
    for (j = 0; j < md->nfields; j++) {
        const fc_field_desc *f = &md->fields[j];
        pt_col *c = &t->cols[j];
        c->plain = 1;
        c->bufs[0] = NULL;
        int64_t co = (int64_t)pt_take(b, 3), tot = len + co; /* (the column's own offset) */
        if (f->kind == FC_KIND_FIXED) {
            c->fmt[0] = pt_leaf(b, f->type, &c->plain);
            pt_array(&c->arr, tot, c->bufs, 2);
            pt_validity(b, &c->arr, c->valid, tot, pt_take(b, 3) == 0 ? 0 : 5);
            pt_values(b, c, &c->arr, c->bufs, c->fmt[0], tot, c->vals, c->off32, c->off64,
                      c->data);
            pt_schema(&c->sch, c->fmt, f->key);
        } else {
            int big = (int)pt_take(b, 2);
            int64_t i, at = (int64_t)pt_take(b, 3), coff = at; /* (the child's own offset) */
            c->fmt[0] = '+';
            c->fmt[1] = big ? 'L' : 'l';
            c->cfmt[0] = pt_leaf(b, f->type, &c->plain);
            pt_array(&c->arr, tot, c->bufs, 2);
            pt_validity(b, &c->arr, c->valid, tot, pt_take(b, 3) == 0 ? 0 : 6);
            for (i = 0; i < tot; i++) {
                int64_t n = (int64_t)pt_take(b, (unsigned)f->max + 2); /* past the bound too */
                if (big)
                    c->off64[i] = at - coff;
                else
                    c->off32[i] = (int32_t)(at - coff);
                at += n;
            }
            if (big)
                c->off64[tot] = at - coff;
            else
                c->off32[tot] = (int32_t)(at - coff);
            c->bufs[1] = big ? (const void *)c->off64 : (const void *)c->off32;
            pt_array(&c->child, at - coff, c->cbufs, 2);
            c->child.offset = coff;
            pt_validity(b, &c->child, c->cvalid, at, pt_take(b, 4) == 0 ? 25 : 0);
            pt_values(b, c, &c->child, c->cbufs, c->cfmt[0], at, c->vals, c->coff32, c->coff64,
                      c->data);
            c->kids[0] = &c->child;
            c->arr.children = c->kids;
            c->arr.n_children = 1;
            pt_schema(&c->csch, c->cfmt, "item");
            c->skids[0] = &c->csch;
            pt_schema(&c->sch, c->fmt, f->key);
            c->sch.children = c->skids;
            c->sch.n_children = 1;
        }
        c->arr.offset = co; /* (the slots before it generated, not read) */
        c->arr.length = len;
        t->plain &= c->plain;
        t->kids[j] = &c->arr;
        t->skids[j] = &c->sch;
    }
    t->bufs[0] = NULL;
    pt_array(&t->batch, rows, t->bufs, 1);
    t->batch.offset = off;
    t->batch.n_children = (int64_t)md->nfields;
    t->batch.children = t->kids;
    pt_schema(&t->schema, "+s", "");
    t->schema.n_children = (int64_t)md->nfields;
    t->schema.children = t->skids;
    return 1;
}

static unsigned char pt_direct[1 << 16], pt_general[1 << 16];

/* Every row of t both ways.  0 when they agree, and the direct way takes
 * every row the general one writes when t's columns are all of its types
 * (declines every row otherwise); else a line number that says which
 * check failed.  *taken counts the rows it took. */
static int pt_check(pt_table *t, size_t *taken)
{
    const fc_message_desc *md = &pl_p_desc;
    fc_arrow_rows *rows = NULL;
    fc_error err;
    pl_p msg;
    int64_t i;
    int bad = 0;
    if (fc_arrow_rows_open(&rows, md, NULL, &t->schema, &err) != FC_OK)
        return __LINE__;
    for (i = 0; i < t->batch.length && bad == 0; i++) {
        size_t d, len = 0, small;
        int rc;
        memset(pt_direct, 0xA5, 8);
        d = fc_arrow_rows_serialize(rows, &t->schema, &t->batch, i, pt_direct, sizeof pt_direct);
        rc = fc_arrow_rows_get(rows, &t->schema, &t->batch, i, &msg, &err);
        if (rc == FC_OK)
            rc = fc_ex_serialize(md, &msg, FC_OMIT_DEFAULTS, pt_general, sizeof pt_general, &len,
                                 &err);
        if (d == 0) {
            if (rc == FC_OK && t->plain)
                bad = __LINE__; /* a row the general way writes, declined */
            continue;
        }
        ++*taken;
        if (!t->plain || rc != FC_OK)
            bad = __LINE__; /* taken where it must not be, or where the general way fails */
        else if (d != len || memcmp(pt_direct, pt_general, len) != 0)
            bad = __LINE__; /* other bytes */
        /* short of room: the size, and nothing written */
        small = d - 1;
        memset(pt_direct, 0xA5, sizeof pt_direct);
        if (bad == 0 && (fc_arrow_rows_serialize(rows, &t->schema, &t->batch, i, pt_direct,
                                                 small) != d ||
                         pt_direct[0] != 0xA5 || pt_direct[small - 1] != 0xA5))
            bad = __LINE__;
    }
    fc_arrow_rows_close(rows);
    return bad;
}

#endif /* FEATC_PLAIN_TABLE_H */
