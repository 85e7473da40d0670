/* An Arrow row straight into a serialized tf.train.Example
 * (fc_arrow_rows_serialize, fc_arrow.h): the bytes that fc_arrow_rows_get
 * and fc_ex_serialize (FC_OMIT_DEFAULTS) give, with no struct between and
 * no descriptor walked per value.  The way back from Parquet spent more
 * than half its time in those two (a row copied into the struct, then the
 * struct's every field looked at twice by the serializer).
 *
 * It takes the tables of the plain case and nothing else: an Example
 * whose every feature is a scalar FixedLen or a VarLen, with no hash
 * buckets, one-hot, `as` or component of a SparseFeature or RaggedFeature,
 * each column of the mapped type itself (int64, float, binary or utf8 in
 * either offset width, and lists of those).  Within it, a row it does not
 * take (a null for a required feature, a null inside a list, more values
 * than the spec's bound, a record past FC_MAX_MESSAGE_SIZE) is 0, and the
 * caller gives that row to the general path, which gives its error: so
 * the bytes are always the general path's, and every error is its.
 *
 * The general path's rules, here by column: a null FixedLen gets its
 * default, which FC_OMIT_DEFAULTS leaves out, and so does a value equal to
 * the default (bit for bit: -0.0 is not 0.0); a null or empty VarLen is
 * not written.  Features go in TensorFlow's order, bytewise by key
 * (md->missing_order).  Memory: the plan, made with the rows' table by
 * fc_arrow_rows_open; a row allocates nothing. */
#include "featc/fc_arrow.h"
#include "featc/fc_serialize.h"

#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "arrow_rows.h"

#define LIMIT ((uint64_t)FC_MAX_MESSAGE_SIZE)

/* Whether format f is a leaf the plain case takes for type t. */
static int plain_leaf(const char *f, fc_type t)
{
    if (f == NULL || f[0] == '\0' || f[1] != '\0')
        return 0;
    switch (t) {
    case FC_TYPE_INT64: return f[0] == 'l';
    case FC_TYPE_FLOAT: return f[0] == 'f';
    default: return strchr("zZuU", f[0]) != NULL;
    }
}

/* A feature's column, read from its descriptor and schema once. */
typedef struct dcol {
    const fc_field_desc *f;
    size_t child;     /* the batch's child */
    size_t max;       /* VarLen: the bound */
    const void *dflt; /* FixedLen: the default, or NULL (required) */
    unsigned char varlen;
    unsigned char type;
    unsigned char wide;  /* 64-bit offsets: of the values (binary), or of the list */
    unsigned char vwide; /* VarLen of bytes: of its values */
} dcol;

/* Where a feature's values are in its column for this row, and its sizes. */
typedef struct span {
    const struct ArrowArray *a; /* the leaf array */
    int64_t lo, n;              /* values [lo, lo + n), the leaf's offset added */
    uint64_t packed;            /* an int64 or float list's packed values */
    uint64_t feature;           /* the Feature message; 0: not written */
} span;

typedef struct plan {
    size_t n;
    dcol *cols; /* by field */
    span *vals; /* a row's, by field */
} plan;

static int wide_format(const char *f)
{
    return f[0] == 'Z' || f[0] == 'U' || (f[0] == '+' && f[1] == 'L');
}

int fc_arrow_rows_plan(fc_arrow_rows *r, const struct ArrowSchema *schema)
{
    size_t i, n;
    plan *p;
    r->direct = 0;
    r->plan = NULL;
    if (r->md == NULL || r->typed || r->ncols != r->md->nfields || r->md->missing_order == NULL)
        return FC_OK;
    for (i = 0; i < r->ncols; i++) {
        const rcol *c = &r->cols[i];
        const fc_field_desc *f = c->f;
        const fc_field_extra *x;
        const struct ArrowSchema *cs;
        if (f == NULL || f != &r->md->fields[i] || c->child < 0 ||
            c->child >= schema->n_children)
            return FC_OK;
        x = f->extra;
        if (x != NULL && (x->hash_buckets != 0 || x->hot != 0 || x->hidden != 0 || x->as != NULL))
            return FC_OK;
        cs = schema->children[c->child];
        if (f->kind == FC_KIND_FIXED) {
            if (f->rank != 0 || f->elems != 1 || !plain_leaf(cs->format, f->type))
                return FC_OK;
        } else if (f->kind == FC_KIND_VARLEN) {
            if (cs->format == NULL || (strcmp(cs->format, "+l") != 0 &&
                                       strcmp(cs->format, "+L") != 0) ||
                cs->n_children != 1 || !plain_leaf(cs->children[0]->format, f->type))
                return FC_OK;
        } else {
            return FC_OK;
        }
    }
    n = r->ncols;
    /* one block: the plan, its columns, a row's spans */
    p = (plan *)calloc(1, sizeof *p + n * (sizeof(dcol) + sizeof(span)));
    if (p == NULL)
        return FC_ERR_NO_MEMORY;
    p->n = n;
    p->vals = (span *)(void *)(p + 1);
    p->cols = (dcol *)(void *)(p->vals + n);
    for (i = 0; i < n; i++) {
        const fc_field_desc *f = &r->md->fields[i];
        const struct ArrowSchema *cs = schema->children[r->cols[i].child];
        dcol *d = &p->cols[i];
        d->f = f;
        d->child = (size_t)r->cols[i].child;
        d->varlen = f->kind == FC_KIND_VARLEN;
        d->type = (unsigned char)f->type;
        d->max = f->max;
        d->dflt = d->varlen ? NULL : f->default_value;
        d->wide = (unsigned char)wide_format(cs->format);
        d->vwide = (unsigned char)(d->varlen && wide_format(cs->children[0]->format));
    }
    r->plan = p;
    r->direct = 1;
    return FC_OK;
}

/* ------------------------------------------------------------ sizes */

/* A length-delimited field of body n.  (Sums stay far below 2^64: every
 * part is checked against LIMIT before it is added.) */
static uint64_t delimited(uint64_t n)
{
    return 1u + fc_wire_varint_size(n) + n;
}

static int is_null(const struct ArrowArray *a, int64_t i)
{
    const unsigned char *bits = (const unsigned char *)a->buffers[0];
    int64_t k = i + a->offset;
    return a->null_count != 0 && bits != NULL && !((bits[k / 8] >> (k % 8)) & 1);
}

/* Offsets k and k + 1 (k with the array's offset added), 32- or 64-bit. */
static void range_at(const void *offsets, int wide, int64_t k, int64_t *s, int64_t *e)
{
    if (wide) {
        *s = ((const int64_t *)offsets)[k];
        *e = ((const int64_t *)offsets)[k + 1];
    } else {
        *s = ((const int32_t *)offsets)[k];
        *e = ((const int32_t *)offsets)[k + 1];
    }
}

/* Whether the n bytes at p are the default's (a word compared as one:
 * a call of memcmp per scalar was a tenth of this path's time). */
static int is_default(const unsigned char *p, const void *d, size_t n)
{
    if (n == 8) {
        uint64_t x, y;
        memcpy(&x, p, 8);
        memcpy(&y, d, 8);
        return x == y;
    }
    {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, d, 4);
        return x == y;
    }
}

/* Feature c's values in row k into v, and its sizes: 1 when it is written,
 * 0 when it is not (null, empty, the default), -1 for a row not taken. */
static int values_of(const dcol *c, const struct ArrowArray *batch, int64_t k, span *v)
{
    const struct ArrowArray *col = batch->children[c->child];
    uint64_t list = 0;
    int64_t j;
    v->feature = 0;
    if (is_null(col, k))
        return c->varlen || c->dflt != NULL ? 0 : -1; /* (required: the general path's error) */
    if (!c->varlen) {
        v->a = col;
        v->lo = k + col->offset;
        v->n = 1;
        if (c->dflt != NULL && c->type != FC_TYPE_BYTES &&
            is_default((const unsigned char *)col->buffers[1] +
                           v->lo * (int64_t)fc_type_size((fc_type)c->type),
                       c->dflt, fc_type_size((fc_type)c->type)))
            return 0;
    } else {
        const struct ArrowArray *a = col->children[0];
        int64_t lo, hi;
        range_at(col->buffers[1], c->wide, k + col->offset, &lo, &hi);
        if ((uint64_t)(hi - lo) > c->max)
            return -1;
        if (hi == lo)
            return 0;
        if (a->null_count != 0)
            for (j = lo; j < hi; j++)
                if (is_null(a, j))
                    return -1;
        v->a = a;
        v->lo = lo + a->offset;
        v->n = hi - lo;
    }
    /* the Int64List, FloatList or BytesList body, then the Feature's */
    if (c->type == FC_TYPE_FLOAT) {
        v->packed = 4u * (uint64_t)v->n;
        list = delimited(v->packed);
    } else if (c->type == FC_TYPE_INT64) {
        const int64_t *x = (const int64_t *)v->a->buffers[1] + v->lo;
        uint64_t packed = 0;
        for (j = 0; j < v->n; j++)
            packed += fc_wire_varint_size((uint64_t)x[j]);
        v->packed = packed;
        list = delimited(packed);
    } else {
        int wide = c->varlen ? c->vwide : c->wide;
        const void *offsets = v->a->buffers[1];
        for (j = 0; j < v->n && list <= LIMIT; j++) {
            int64_t s, e;
            range_at(offsets, wide, v->lo + j, &s, &e);
            if ((uint64_t)(e - s) > LIMIT || (e > s && v->a->buffers[2] == NULL))
                return -1; /* (a view of no bytes: the general path's error) */
            list += delimited((uint64_t)(e - s));
        }
        if (!c->varlen && c->dflt != NULL) {
            const fc_bytes *d = (const fc_bytes *)c->dflt;
            int64_t s, e;
            range_at(offsets, wide, v->lo, &s, &e);
            if ((uint64_t)(e - s) == d->size &&
                (e == s ||
                 memcmp((const unsigned char *)v->a->buffers[2] + s, d->data, d->size) == 0))
                return 0;
        }
        v->packed = list; /* (the BytesList's body) */
    }
    if (list > LIMIT)
        return -1;
    v->feature = delimited(list);
    return 1;
}

/* ------------------------------------------------------------ writing */

/* Feature c's entry of the Features map: key, then the Feature of span v. */
static uint8_t *put_entry(uint8_t *p, const dcol *c, const span *v)
{
    /* the oneof's field numbers: bytes_list 1, float_list 2, int64_list 3 */
    static const unsigned tags[4] = {0, 0x0Au, 0x12u, 0x1Au};
    const fc_field_desc *f = c->f;
    int64_t j;
    p = fc_wire_put_head(p, FC_TAG_LEN1, delimited(f->key_len) + delimited(v->feature));
    p = fc_wire_put_head(p, FC_TAG_LEN1, f->key_len);
    memcpy(p, f->key, f->key_len);
    p += f->key_len;
    p = fc_wire_put_head(p, FC_TAG_LEN2, v->feature);
    if (c->type == FC_TYPE_BYTES) {
        int wide = c->varlen ? c->vwide : c->wide;
        const unsigned char *data = (const unsigned char *)v->a->buffers[2];
        p = fc_wire_put_head(p, tags[FC_TYPE_BYTES], v->packed);
        for (j = 0; j < v->n; j++) {
            int64_t s, e;
            range_at(v->a->buffers[1], wide, v->lo + j, &s, &e);
            p = fc_wire_put_head(p, FC_TAG_LEN1, (uint64_t)(e - s));
            if (e > s)
                memcpy(p, data + s, (size_t)(e - s));
            p += e - s;
        }
        return p;
    }
    p = fc_wire_put_head(p, tags[c->type], delimited(v->packed));
    p = fc_wire_put_head(p, FC_TAG_LEN1, v->packed);
    if (c->type == FC_TYPE_FLOAT) {
        const unsigned char *x = (const unsigned char *)v->a->buffers[1] + 4 * v->lo;
        for (j = 0; j < v->n; j++) { /* (little-endian on the wire) */
            uint32_t u;
            memcpy(&u, x + 4 * j, 4);
            p[0] = (uint8_t)u;
            p[1] = (uint8_t)(u >> 8);
            p[2] = (uint8_t)(u >> 16);
            p[3] = (uint8_t)(u >> 24);
            p += 4;
        }
        return p;
    }
    {
        const int64_t *x = (const int64_t *)v->a->buffers[1] + v->lo;
        for (j = 0; j < v->n; j++)
            p = fc_wire_put_varint(p, (uint64_t)x[j]);
    }
    return p;
}

size_t fc_arrow_rows_serialize(fc_arrow_rows *r, const struct ArrowSchema *schema,
                               const struct ArrowArray *batch, int64_t row, void *buf, size_t cap)
{
    const plan *pl = (const plan *)r->plan;
    const uint16_t *order = r->md != NULL ? r->md->missing_order : NULL;
    uint64_t body = 0, total;
    int64_t k;
    size_t o;
    uint8_t *p;
    if (!r->direct || row < 0 || row >= batch->length ||
        batch->n_children != schema->n_children)
        return 0;
    k = row + batch->offset;
    /* the sizes first: every written feature's, then the Example's */
    for (o = 0; o < pl->n; o++) {
        size_t i = order[o];
        span *v = &pl->vals[i];
        int w = values_of(&pl->cols[i], batch, k, v);
        if (w < 0)
            return 0;
        if (w > 0)
            body += delimited(delimited(pl->cols[i].f->key_len) + delimited(v->feature));
        if (body > LIMIT)
            return 0;
    }
    total = delimited(body);
    if (total > LIMIT)
        return 0;
    if (total > cap)
        return (size_t)total;
    p = fc_wire_put_head((uint8_t *)buf, FC_TAG_LEN1, body);
    for (o = 0; o < pl->n; o++) {
        size_t i = order[o];
        if (pl->vals[i].feature != 0)
            p = put_entry(p, &pl->cols[i], &pl->vals[i]);
    }
    return (size_t)total;
}
