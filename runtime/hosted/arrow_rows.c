/* Arrow rows back into a message's struct (fc_arrow.h), for the serializer:
 * the way from Arrow to TFRecords.
 *
 * fc_arrow_rows_open matches the input schema to the spec's mapping (the
 * schema fc_arrow_schema gives): a column per feature, found by name, of
 * the same shape, with a few types accepted in place of the mapped ones
 * (any integer for int64, float64 for float32, large_binary and utf8 in
 * any offset width for binary, large_list for list).  A column the spec
 * does not have, or a feature without its column, is an error there.
 * fc_arrow_rows_get then fills the struct of one row: values copied,
 * bytes viewed (valid while the batch is), counts checked against the
 * spec's bounds.  A null value is an absent feature: a FixedLen gets its
 * default, a VarLen or an allow_missing list nothing; a null for a
 * required feature is an error, as are nulls inside a value.  Columns of
 * hash bucket ids (KEY/buckets) are recomputed by the parser, so they may
 * be present, and are not read.  SparseFeatures and RaggedFeatures write
 * the fields they read (after the features, which may share them: those
 * are compared).  Memory: the column table and a row's scratch. */
#include "featc/fc_arrow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_rows.h"
#include "byte_order.h"

static int fail(fc_error *err, int status, const char *name, const char *what, const char *more)
{
    fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "arrow: ");
    if (name != NULL) {
        fc_msg_str(&m, "column '");
        fc_msg_str(&m, name);
        fc_msg_str(&m, "': ");
    }
    fc_msg_str(&m, what);
    if (more != NULL)
        fc_msg_str(&m, more);
    return status;
}

/* ------------------------------------------------------------ matching */

/* Whether format `got` may stand for `want`; its leaf character in *leaf. */
static int format_ok(const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        return 1;
    /* (int64 values, or a typed tensor's integers: any integer, its
     * range checked with the row) */
    if (want[0] != '\0' && want[1] == '\0' && strchr("cCsSil", want[0]) != NULL)
        return got[1] == '\0' && strchr("cCsSiIlL", got[0]) != NULL;
    /* (float values, or a typed tensor's floats: any float) */
    if (want[0] != '\0' && want[1] == '\0' && strchr("efg", want[0]) != NULL)
        return got[1] == '\0' && strchr("efg", got[0]) != NULL;
    if (strcmp(want, "z") == 0)
        return got[1] == '\0' && strchr("ZuU", got[0]) != NULL;
    if (strcmp(want, "+l") == 0)
        return strcmp(got, "+L") == 0;
    /* a fixed size as lists, each checked (descend_fixed) */
    if (strncmp(want, "+w:", 3) == 0)
        return strcmp(got, "+l") == 0 || strcmp(got, "+L") == 0;
    return 0;
}

/* The shapes of want (the spec's) and got (the input's) agree; the leaf's
 * format character in *leaf. */
static int same_shape(const struct ArrowSchema *want, const struct ArrowSchema *got, char *leaf,
                      char *ileaf, char *why, size_t whylen)
{
    int64_t i;
    if (!format_ok(want->format, got->format)) {
        snprintf(why, whylen, "of type \"%s\" where the spec's mapping is \"%s\"", got->format,
                 want->format);
        return 0;
    }
    if (want->n_children != got->n_children) {
        snprintf(why, whylen, "with %lld children where the spec's mapping has %lld",
                 (long long)got->n_children, (long long)want->n_children);
        return 0;
    }
    if (want->n_children == 0)
        *leaf = got->format[0];
    for (i = 0; i < want->n_children; i++) {
        const struct ArrowSchema *g = got->children[i];
        if (strcmp(want->format, "+s") == 0) {
            int64_t k;
            g = NULL;
            for (k = 0; k < got->n_children; k++)
                if (strcmp(got->children[k]->name, want->children[i]->name) == 0)
                    g = got->children[k];
            if (g == NULL) {
                snprintf(why, whylen, "without its child '%s'", want->children[i]->name);
                return 0;
            }
            /* a SparseFeature: indices, then values */
            if (!same_shape(want->children[i], g, i == 0 ? ileaf : leaf, ileaf, why, whylen))
                return 0;
            continue;
        }
        if (!same_shape(want->children[i], g, leaf, ileaf, why, whylen))
            return 0;
    }
    return 1;
}

static int64_t find_child(const struct ArrowSchema *s, const char *name)
{
    int64_t i;
    for (i = 0; i < s->n_children; i++)
        if (s->children[i]->name != NULL && strcmp(s->children[i]->name, name) == 0)
            return i;
    return -1;
}

static int is_buckets_of(const char *name, const struct ArrowSchema *want)
{
    size_t n = strlen(name);
    int64_t k;
    if (n < 8 || strcmp(name + n - 8, "/buckets") != 0)
        return 0;
    for (k = 0; k < want->n_children; k++)
        if (strcmp(want->children[k]->name, name) == 0)
            return 1;
    return 0;
}

int fc_arrow_rows_open(fc_arrow_rows **out, const fc_message_desc *md, const fc_seq_desc *sd,
                       const struct ArrowSchema *schema, fc_error *err)
{
    struct ArrowSchema want;
    fc_arrow_rows *r;
    size_t nf, i, w = 0, raw_bytes = 0;
    int64_t k;
    int rc;
    char why[200];
    *out = NULL;
    if ((md == NULL) == (sd == NULL) || schema == NULL || schema->format == NULL ||
        strcmp(schema->format, "+s") != 0)
        return fail(err, FC_ERR_ARG, NULL, "the input is not a table (a struct of columns)",
                    NULL);
    if ((rc = fc_arrow_schema(md, sd, 0, &want, err)) != FC_OK)
        return rc;
    nf = md != NULL ? md->nfields : sd->ncontext + sd->nlists;
    r = (fc_arrow_rows *)calloc(1, sizeof *r);
    if (r != NULL)
        r->cols = (rcol *)calloc(nf + 1, sizeof *r->cols);
    if (r == NULL || r->cols == NULL) {
        free(r);
        want.release(&want);
        return fail(err, FC_ERR_NO_MEMORY, NULL, "out of memory", NULL);
    }
    r->md = md;
    r->sd = sd;
    rc = FC_OK;
    /* the input's columns, each the spec's */
    for (k = 0; k < schema->n_children && rc == FC_OK; k++) {
        const char *name = schema->children[k]->name != NULL ? schema->children[k]->name : "";
        if (find_child(&want, name) < 0)
            rc = fail(err, FC_ERR_ARG, name, "not a feature of the spec's message", NULL);
    }
    for (i = 0; i < nf && rc == FC_OK; i++) {
        rcol *c = &r->cols[r->ncols];
        const char *key;
        size_t key_len;
        int64_t wi, gi;
        if (md != NULL || i < sd->ncontext) {
            c->f = md != NULL ? &md->fields[i] : &sd->context[i];
            if (c->f->extra->hidden)
                continue;
            key = c->f->key;
            key_len = c->f->key_len;
            if (c->f->extra->as != NULL) { /* its column holds the tensor: read_typed */
                const fc_field_as *x = c->f->extra->as;
                r->typed = 1;
                if (x->rank > 0) {
                    c->raw_at = raw_bytes;
                    raw_bytes += x->elems * fc_as_size(x->type);
                }
            }
        } else {
            c->l = &sd->lists[i - sd->ncontext];
            if (c->l->extra != NULL && c->l->extra->hidden)
                continue;
            key = c->l->key;
            key_len = c->l->key_len;
            if (c->l->extra != NULL && c->l->extra->as != NULL) { /* as a feature's, per frame */
                const fc_field_as *x = c->l->extra->as;
                r->typed = 1;
                if (x->rank > 0) {
                    c->raw_at = raw_bytes;
                    raw_bytes += c->l->max_frames * x->elems * fc_as_size(x->type);
                }
            }
        }
        c->bit = i;
        /* the spec's columns are in the message's order, buckets after */
        while (w < (size_t)want.n_children && is_buckets_of(want.children[w]->name, &want))
            w++;
        wi = (int64_t)w++;
        if (wi >= want.n_children || strlen(want.children[wi]->name) < key_len ||
            memcmp(want.children[wi]->name + strlen(want.children[wi]->name) - key_len, key,
                   key_len) != 0) {
            rc = fail(err, FC_ERR_ARG, NULL, "the spec's columns are out of step", NULL);
            break;
        }
        gi = find_child(schema, want.children[wi]->name);
        if (gi < 0) {
            rc = fail(err, FC_ERR_ARG, want.children[wi]->name,
                      "missing: the input has no column for this feature", NULL);
            break;
        }
        if (!same_shape(want.children[wi], schema->children[gi], &c->leaf, &c->ileaf, why,
                        sizeof why)) {
            rc = fail(err, FC_ERR_ARG, want.children[wi]->name, why, NULL);
            break;
        }
        c->child = gi;
        r->ncols++;
    }
    want.release(&want);
    if (rc == FC_OK) {
        size_t most = 1, rank = 1, widest = 1;
        const fc_field_desc *all = md != NULL ? md->fields : sd->context;
        size_t nall = md != NULL ? md->nfields : sd->ncontext;
        for (i = 0; i < r->ncols; i++)
            if (r->cols[i].f != NULL && r->cols[i].f->kind == FC_KIND_SPARSE) {
                most = r->cols[i].f->max > most ? r->cols[i].f->max : most;
                rank = r->cols[i].f->rank > rank ? r->cols[i].f->rank : rank;
            }
        /* (a RaggedFeature's fields are VarLen fields, or, for a feature
         * list, VarLen lists: r->tmp holds a field's values or a frame's) */
        for (i = 0; i < nall; i++)
            if (all[i].kind == FC_KIND_VARLEN && all[i].max >= widest)
                widest = all[i].max + 1;
        for (i = 0; sd != NULL && i < sd->nlists; i++)
            if (sd->lists[i].kind == FC_KIND_VARLEN && sd->lists[i].max >= widest)
                widest = sd->lists[i].max + 1;
        r->tmp = (unsigned char *)calloc(widest + 1, sizeof(fc_bytes) > 8 ? sizeof(fc_bytes) : 8);
        r->filled = (unsigned char *)calloc(nf + 1, 1);
        r->ind = (int64_t *)calloc(most * rank, sizeof *r->ind);
        r->val = (unsigned char *)calloc(most, sizeof(fc_bytes) > 8 ? sizeof(fc_bytes) : 8);
        r->perm = (size_t *)calloc(most, sizeof *r->perm);
        r->used = (unsigned char *)calloc(most, 1);
        r->raw = (unsigned char *)malloc(raw_bytes > 0 ? raw_bytes : 1);
        if (r->filled == NULL || r->ind == NULL || r->val == NULL || r->perm == NULL ||
            r->used == NULL || r->tmp == NULL || r->raw == NULL)
            rc = fail(err, FC_ERR_NO_MEMORY, NULL, "out of memory", NULL);
    }
    if (rc == FC_OK && fc_arrow_rows_plan(r, schema) != FC_OK)
        rc = fail(err, FC_ERR_NO_MEMORY, NULL, "out of memory", NULL);
    if (rc != FC_OK) {
        fc_arrow_rows_close(r);
        return rc;
    }
    *out = r;
    return FC_OK;
}

void fc_arrow_rows_close(fc_arrow_rows *r)
{
    if (r == NULL)
        return;
    free(r->cols);
    free(r->filled);
    free(r->ind);
    free(r->val);
    free(r->perm);
    free(r->used);
    free(r->tmp);
    free(r->raw);
    free(r->plan);
    free(r);
}

/* ------------------------------------------------------------ values */

typedef struct cursor {
    const char *key;
    size_t key_len;
    int64_t row;
    fc_error *err;
} cursor;

static int row_fail(const cursor *c, const char *what, uint64_t a, uint64_t b)
{
    fc_msg m = fc_error_begin(c->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "arrow: column '");
    fc_msg_mem(&m, c->key, c->key_len);
    fc_msg_str(&m, "', row ");
    fc_msg_i64(&m, c->row);
    fc_msg_str(&m, ": ");
    fc_msg_str(&m, what);
    if (a != UINT64_MAX) {
        fc_msg_str(&m, " (");
        fc_msg_u64(&m, a);
        if (b != UINT64_MAX) {
            fc_msg_str(&m, " > ");
            fc_msg_u64(&m, b);
        }
        fc_msg_str(&m, ")");
    }
    return FC_ERR_ARG;
}

static int is_null(const struct ArrowArray *a, int64_t i)
{
    const unsigned char *bits = (const unsigned char *)a->buffers[0];
    int64_t k = i + a->offset;
    return a->null_count != 0 && bits != NULL && !((bits[k / 8] >> (k % 8)) & 1);
}

/* Row i of a list array: its child's range (64-bit offsets, or 32-bit). */
static void list_range(const struct ArrowArray *a, int big, int64_t i, int64_t *lo, int64_t *hi)
{
    int64_t k = i + a->offset;
    if (big) {
        *lo = ((const int64_t *)a->buffers[1])[k];
        *hi = ((const int64_t *)a->buffers[1])[k + 1];
    } else {
        *lo = ((const int32_t *)a->buffers[1])[k];
        *hi = ((const int32_t *)a->buffers[1])[k + 1];
    }
}

/* Values [lo, lo + n) of leaf array a (format f) into dst as type t. */
static int copy_leaf(const cursor *c, const struct ArrowArray *a, char f, fc_type t, int64_t lo,
                     int64_t n, void *dst)
{
    int64_t i, k;
    if (a->null_count != 0)
        for (i = 0; i < n; i++)
            if (is_null(a, lo + i))
                return row_fail(c, "a null inside a value (only a whole feature may be null)",
                                UINT64_MAX, UINT64_MAX);
    k = lo + a->offset;
    if (t == FC_TYPE_BYTES) {
        fc_bytes *d = (fc_bytes *)dst;
        const unsigned char *data = (const unsigned char *)a->buffers[2];
        for (i = 0; i < n; i++) {
            int64_t s, e;
            if (f == 'Z' || f == 'U') {
                s = ((const int64_t *)a->buffers[1])[k + i];
                e = ((const int64_t *)a->buffers[1])[k + i + 1];
            } else {
                s = ((const int32_t *)a->buffers[1])[k + i];
                e = ((const int32_t *)a->buffers[1])[k + i + 1];
            }
            d[i].data = data + s;
            d[i].size = (size_t)(e - s);
        }
        return FC_OK;
    }
    if (t == FC_TYPE_FLOAT) {
        float *d = (float *)dst;
        if (f == 'f') {
            if (n > 0)
                memcpy(d, (const float *)a->buffers[1] + k, (size_t)n * sizeof *d);
        } else if (f == 'e') { /* float16: exact */
            for (i = 0; i < n; i++)
                d[i] = (float)fc_half_value(((const uint16_t *)a->buffers[1])[k + i]);
        } else {
            for (i = 0; i < n; i++)
                d[i] = (float)((const double *)a->buffers[1])[k + i];
        }
        return FC_OK;
    }
    {
        int64_t *d = (int64_t *)dst;
        const void *v = a->buffers[1];
        for (i = 0; i < n; i++) {
            int64_t j = k + i;
            switch (f) {
            case 'c': d[i] = ((const int8_t *)v)[j]; break;
            case 'C': d[i] = ((const uint8_t *)v)[j]; break;
            case 's': d[i] = ((const int16_t *)v)[j]; break;
            case 'S': d[i] = ((const uint16_t *)v)[j]; break;
            case 'i': d[i] = ((const int32_t *)v)[j]; break;
            case 'I': d[i] = ((const uint32_t *)v)[j]; break;
            case 'L':
                if (((const uint64_t *)v)[j] > (uint64_t)INT64_MAX)
                    return row_fail(c, "a uint64 value past int64's range",
                                    ((const uint64_t *)v)[j], UINT64_MAX);
                d[i] = (int64_t)((const uint64_t *)v)[j];
                break;
            default: d[i] = ((const int64_t *)v)[j]; break;
            }
        }
        return FC_OK;
    }
}

static unsigned char *at(void *msg, size_t off)
{
    return (unsigned char *)msg + off;
}

static void set_size(void *msg, size_t off, size_t v)
{
    memcpy(at(msg, off), &v, sizeof v);
}

static void set_bit(void *msg, size_t present_offset, size_t bit)
{
    uint32_t w;
    memcpy(&w, at(msg, present_offset + bit / 32u * 4u), sizeof w);
    w |= (uint32_t)1u << (bit % 32u);
    memcpy(at(msg, present_offset + bit / 32u * 4u), &w, sizeof w);
}

/* The range of a list level at row i (a list column's top, say). */
static int list_at(const cursor *c, const struct ArrowArray *a, int big, int64_t i, int64_t *lo,
                   int64_t *hi)
{
    if (a->null_count != 0 && is_null(a, i))
        return row_fail(c, "a null inside a value (only a whole feature may be null)",
                        UINT64_MAX, UINT64_MAX);
    list_range(a, big, i, lo, hi);
    return FC_OK;
}

static int is_big(const struct ArrowSchema *s)
{
    return strcmp(s->format, "+L") == 0;
}

/* Descends rank fixed levels from row i of a (schema s): fixed_size_list
 * levels, or list / large_list ones (a writer that keeps no fixed sizes:
 * DuckDB's Parquet, say) whose every list must hold the spec's dims[q]
 * values.  Gives the leaf array, its schema and the first value's index
 * there (the rest follow it).  Nulls inside are refused. */
static int descend_fixed(const cursor *c, const struct ArrowArray **a,
                         const struct ArrowSchema **s, int64_t *i, unsigned rank,
                         const size_t *dims)
{
    unsigned q;
    int64_t n = 1, j;
    for (q = 0; q < rank; q++) {
        const struct ArrowArray *x = *a;
        if (x->null_count != 0)
            for (j = 0; j < n; j++)
                if (is_null(x, *i + j))
                    return row_fail(c, "a null inside a value (only a whole feature may be "
                                       "null)", UINT64_MAX, UINT64_MAX);
        if ((*s)->format[1] == 'w') {
            *i = (*i + x->offset) * (int64_t)dims[q];
        } else {
            int64_t lo, hi, first = 0;
            for (j = 0; j < n; j++) {
                list_range(x, is_big(*s), *i + j, &lo, &hi);
                if ((uint64_t)(hi - lo) != dims[q])
                    return row_fail(c, "a list whose length is not the spec's fixed shape's",
                                    (uint64_t)(hi - lo), UINT64_MAX);
                if (j == 0)
                    first = lo;
            }
            *i = first;
        }
        n *= (int64_t)dims[q];
        *a = x->children[0];
        *s = (*s)->children[0];
    }
    return FC_OK;
}

/* Value e of a SparseFeature's entries (ts bytes each) equals value j of
 * the field already filled (the same bits; bytes: the same bytes). */
static int same_value(const void *entries, size_t e, const void *filled, size_t j, size_t ts,
                      fc_type t)
{
    const unsigned char *a = (const unsigned char *)entries + e * ts;
    const unsigned char *b = (const unsigned char *)filled + j * ts;
    if (t == FC_TYPE_BYTES) {
        const fc_bytes *x = (const fc_bytes *)(const void *)a, *y = (const fc_bytes *)(const void *)b;
        return x->size == y->size && (x->size == 0 || memcmp(x->data, y->data, x->size) == 0);
    }
    return memcmp(a, b, ts) == 0;
}

/* A SparseFeature from its struct<indices, values> (children by name).
 * Its entries come sorted (TensorFlow sorts them unless already_sorted),
 * which may not be the record's order; the order is free unless a field
 * of it is filled already (a feature of its own, or another
 * SparseFeature's): then the entries follow that field's values, or the
 * row is refused when no order of them gives those values. */
static int sparse_get(const cursor *c, fc_arrow_rows *r, const rcol *rc,
                      const struct ArrowSchema *cs, const struct ArrowArray *col, int64_t row,
                      void *msg, size_t present_offset)
{
    const fc_field_desc *f = rc->f;
    const fc_field_desc *fields = r->md != NULL ? r->md->fields : r->sd->context;
    const fc_field_desc *vf = &fields[f->extra->sparse_fields[f->rank]];
    const struct ArrowArray *ind = NULL, *val = NULL, *iv;
    const struct ArrowSchema *ivs = NULL;
    size_t ts = fc_type_size(vf->type), e, j, rank = f->rank;
    int ibig = 1, vbig = 1, s, fixed = 0;
    int64_t lo, hi, vlo, vhi, n, k;
    unsigned q;
    for (k = 0; k < cs->n_children; k++) {
        if (strcmp(cs->children[k]->name, "indices") == 0) {
            ind = col->children[k];
            ibig = is_big(cs->children[k]);
            ivs = cs->children[k]->children[0];
        } else {
            val = col->children[k];
            vbig = is_big(cs->children[k]);
        }
    }
    if (is_null(col, row)) {
        n = 0; /* absent: no entries */
    } else {
        row += col->offset;
        if ((s = list_at(c, ind, ibig, row, &lo, &hi)) != FC_OK ||
            (s = list_at(c, val, vbig, row, &vlo, &vhi)) != FC_OK)
            return s;
        n = hi - lo;
        if (vhi - vlo != n)
            return row_fail(c, "a SparseFeature's indices and values differ in number",
                            (uint64_t)n, (uint64_t)(vhi - vlo));
        if ((uint64_t)n > f->max)
            return row_fail(c, "more entries than the spec's bound", (uint64_t)n, f->max);
        /* fixed_size_list<int64, rank>, or a list of rank (descend_fixed) */
        for (e = 0; e < (size_t)n; e++) {
            const struct ArrowSchema *es = ivs;
            int64_t at_ = lo + (int64_t)e;
            iv = ind->children[0];
            if ((s = descend_fixed(c, &iv, &es, &at_, 1, &rank)) != FC_OK)
                return s;
            for (q = 0; q < rank; q++)
                if ((s = copy_leaf(c, iv, rc->ileaf, FC_TYPE_INT64, at_ + q, 1,
                                   &r->ind[e * rank + q])) != FC_OK)
                    return s;
        }
        if ((s = copy_leaf(c, val->children[0], rc->leaf, vf->type, vlo, n, r->val)) != FC_OK)
            return s;
    }
    /* the order: free, or that of the fields filled already */
    for (q = 0; q <= rank; q++) {
        const fc_field_desc *g = &fields[f->extra->sparse_fields[q]];
        size_t cnt;
        if (!r->filled[f->extra->sparse_fields[q]])
            continue;
        memcpy(&cnt, at(msg, g->count_offset), sizeof cnt);
        if (cnt != (size_t)n)
            return row_fail(c, "a field of this SparseFeature, filled from its own column, has "
                               "another number of values than its entries",
                            (uint64_t)cnt, (uint64_t)n);
        fixed = 1;
    }
    memset(r->used, 0, (size_t)n);
    for (j = 0; j < (size_t)n; j++) {
        for (e = 0; e < (size_t)n; e++) {
            int fits = !r->used[e];
            for (q = 0; fits && fixed && q <= rank; q++) {
                const fc_field_desc *g = &fields[f->extra->sparse_fields[q]];
                if (!r->filled[f->extra->sparse_fields[q]])
                    continue;
                fits = q < rank ? ((const int64_t *)(const void *)at(msg, g->value_offset))[j] ==
                                      r->ind[e * rank + q]
                                : same_value(r->val, e, at(msg, g->value_offset), j, ts, g->type);
            }
            if (fits)
                break;
        }
        if (e == (size_t)n)
            return row_fail(c, "this SparseFeature's entries and the values of a field of it "
                               "(filled from its own column) disagree",
                            UINT64_MAX, UINT64_MAX);
        r->used[e] = 1;
        r->perm[j] = e;
    }
    for (q = 0; q <= rank; q++) {
        size_t g_i = f->extra->sparse_fields[q];
        const fc_field_desc *g = &fields[g_i];
        for (j = 0; j < (size_t)n; j++) {
            if (q < rank)
                ((int64_t *)(void *)at(msg, g->value_offset))[j] = r->ind[r->perm[j] * rank + q];
            else
                memcpy(at(msg, g->value_offset + j * ts), r->val + r->perm[j] * ts, ts);
        }
        set_size(msg, g->count_offset, (size_t)n);
        if (n > 0)
            set_bit(msg, present_offset, g_i);
        r->filled[g_i] = 1;
    }
    return FC_OK;
}

/* Offset i of list array a (64-bit when big). */
static int64_t off_at(const struct ArrowArray *a, int big, int64_t i)
{
    i += a->offset;
    return big ? ((const int64_t *)a->buffers[1])[i] : ((const int32_t *)a->buffers[1])[i];
}

/* Rows [lo, hi) of list array a (schema s; 64-bit offsets when big) become
 * the range of its child that they hold, a and s the child. */
static void down(const struct ArrowArray **a, const struct ArrowSchema **s, int big, int64_t *lo,
                 int64_t *hi)
{
    if (*hi > *lo) {
        int64_t nlo = off_at(*a, big, *lo), nhi = off_at(*a, big, *hi);
        *lo = nlo;
        *hi = nhi;
    } else {
        *lo = *hi = 0;
    }
    *a = (*a)->children[0];
    *s = (*s)->children[0];
}

/* The n values of r->tmp equal the cnt at dst (ts bytes each). */
static int same_values(const fc_arrow_rows *r, const void *dst, size_t cnt, size_t n, size_t ts,
                       fc_type t)
{
    size_t j;
    if (cnt != n)
        return 0;
    for (j = 0; j < n; j++)
        if (!same_value(r->tmp, j, dst, j, ts, t))
            return 0;
    return 1;
}

/* n values (ts bytes each, in r->tmp) as field gi: stored, or, when the
 * field is filled already (a feature of its own), compared. */
static int put_part(const cursor *c, fc_arrow_rows *r, const fc_field_desc *fields, size_t gi,
                    size_t n, size_t ts, void *msg, size_t present_offset)
{
    const fc_field_desc *g = &fields[gi];
    if (n > g->max)
        return row_fail(c, "more values in a RaggedFeature's field than the spec's bound",
                        (uint64_t)n, g->max);
    if (r->filled[gi]) {
        size_t cnt;
        memcpy(&cnt, at(msg, g->count_offset), sizeof cnt);
        if (!same_values(r, at(msg, g->value_offset), cnt, n, ts, g->type))
            return row_fail(c, "this RaggedFeature and a field of it (filled from its own "
                               "column) disagree",
                            UINT64_MAX, UINT64_MAX);
        return FC_OK;
    }
    if (n > 0)
        memcpy(at(msg, g->value_offset), r->tmp, n * ts);
    set_size(msg, g->count_offset, n);
    if (n > 0)
        set_bit(msg, present_offset, gi);
    r->filled[gi] = 1;
    return FC_OK;
}

/* n values (ts bytes each, in r->tmp) as frame t of list li: stored, or,
 * when the list was filled already (was), compared. */
static int put_frame(const cursor *c, fc_arrow_rows *r, size_t li, int was, int64_t t, size_t n,
                     size_t ts, void *msg)
{
    const fc_list_desc *l = &r->sd->lists[li];
    unsigned char *dst = at(msg, l->value_offset + (size_t)t * l->max * ts);
    size_t cnt;
    if (n > l->max)
        return row_fail(c, "more values in a frame of a RaggedFeature's list than the spec's "
                           "bound",
                        (uint64_t)n, l->max);
    if (was) {
        memcpy(&cnt, at(msg, l->count_offset + (size_t)t * sizeof(size_t)), sizeof cnt);
        if (!same_values(r, dst, cnt, n, ts, l->type))
            return row_fail(c, "this RaggedFeature and a list of it (filled from its own "
                               "column) disagree",
                            UINT64_MAX, UINT64_MAX);
        return FC_OK;
    }
    if (n > 0)
        memcpy(dst, r->tmp, n * ts);
    set_size(msg, l->count_offset + (size_t)t * sizeof(size_t), n);
    return FC_OK;
}

/* The partition q encoding of rows [lo, hi) of list array a (64-bit when
 * big) into r->tmp: its count in *n, or an error; a uniform row length is
 * checked instead. */
static int encode_part(const cursor *c, fc_arrow_rows *r, const fc_part_desc *pd, size_t room,
                       const struct ArrowArray *a, int big, int64_t lo, int64_t hi, size_t *n)
{
    int64_t *out = (int64_t *)(void *)r->tmp, base = hi > lo ? off_at(a, big, lo) : 0, k;
    size_t add;
    *n = 0;
    for (k = lo; k < hi; k++) {
        int64_t s0, s1, j;
        if (is_null(a, k))
            return row_fail(c, "a null inside a value (only a whole feature may be null)",
                            UINT64_MAX, UINT64_MAX);
        s0 = off_at(a, big, k) - base;
        s1 = off_at(a, big, k + 1) - base;
        if (pd->kind == FC_PART_UNIFORM_ROW_LENGTH) {
            if ((uint64_t)(s1 - s0) != pd->length)
                return row_fail(c, "a row of another length than the partition's uniform row "
                                   "length",
                                (uint64_t)(s1 - s0), (uint64_t)pd->length);
            continue;
        }
        add = pd->kind == FC_PART_VALUE_ROWIDS ? (size_t)(s1 - s0) : 1u;
        if (add > room - *n)
            return row_fail(c, "more values in a RaggedFeature's field than the spec's bound",
                            (uint64_t)(*n + add), room);
        switch (pd->kind) {
        case FC_PART_ROW_SPLITS:
        case FC_PART_ROW_STARTS: out[(*n)++] = s0; break;
        case FC_PART_ROW_LENGTHS: out[(*n)++] = s1 - s0; break;
        case FC_PART_ROW_LIMITS: out[(*n)++] = s1; break;
        case FC_PART_VALUE_ROWIDS:
            for (j = s0; j < s1; j++)
                out[(*n)++] = k - lo;
            break;
        default: break;
        }
    }
    if (pd->kind == FC_PART_ROW_SPLITS) {
        if (*n == room)
            return row_fail(c, "more values in a RaggedFeature's field than the spec's bound",
                            (uint64_t)*n + 1, room);
        out[(*n)++] = hi > lo ? off_at(a, big, hi) - base : 0;
    }
    return FC_OK;
}

/* A RaggedFeature from its nested lists: the record's rows, a level per
 * partition (outermost first), the values.  Each partition's field gets
 * its encoding of the level's rows (row splits, lengths, starts, limits,
 * value row ids; a uniform row length is checked), the value field the
 * values. */
static int ragged_get(const cursor *c, fc_arrow_rows *r, const rcol *rc,
                      const struct ArrowSchema *cs, const struct ArrowArray *col, int64_t row,
                      void *msg, size_t present_offset)
{
    const fc_field_desc *f = rc->f;
    const fc_field_extra *x = f->extra;
    const fc_field_desc *fields = r->md != NULL ? r->md->fields : r->sd->context;
    const fc_field_desc *vf = &fields[x->sparse_fields[0]];
    const struct ArrowArray *a = col;
    const struct ArrowSchema *s = cs;
    int64_t lo, hi;
    unsigned q;
    int st;
    if (is_null(col, row))
        return FC_OK; /* absent */
    if ((st = list_at(c, a, is_big(s), row, &lo, &hi)) != FC_OK)
        return st;
    a = a->children[0];
    s = s->children[0];
    for (q = 0; q < x->nparts; q++) {
        const fc_part_desc *pd = &x->parts[q];
        int big = is_big(s);
        size_t n, room = pd->kind == FC_PART_UNIFORM_ROW_LENGTH ? SIZE_MAX
                                                                  : fields[pd->field].max;
        if ((st = encode_part(c, r, pd, room, a, big, lo, hi, &n)) != FC_OK)
            return st;
        if (pd->kind != FC_PART_UNIFORM_ROW_LENGTH &&
            (st = put_part(c, r, fields, pd->field, n, sizeof(int64_t), msg, present_offset)) !=
                FC_OK)
            return st;
        down(&a, &s, big, &lo, &hi);
    }
    if ((uint64_t)(hi - lo) > vf->max)
        return row_fail(c, "more values than the spec's bound", (uint64_t)(hi - lo), vf->max);
    if ((st = copy_leaf(c, a, rc->leaf, vf->type, lo, hi - lo, r->tmp)) != FC_OK)
        return st;
    return put_part(c, r, fields, x->sparse_fields[0], (size_t)(hi - lo),
                    fc_type_size(vf->type), msg, present_offset);
}

/* A RaggedFeature feature list: per frame, its rows, a level per
 * partition and the values, into frame t of each list it reads (those
 * filled already, features of their own, compared). */
static int ragged_list_get(const cursor *c, fc_arrow_rows *r, const rcol *rc,
                           const struct ArrowSchema *cs, const struct ArrowArray *col,
                           int64_t row, void *msg)
{
    const fc_list_desc *l = rc->l;
    const fc_field_extra *x = l->extra;
    const fc_list_desc *lists = r->sd->lists;
    size_t nctx = r->sd->ncontext, li[FC_MAX_RANK + 1], nli = 0, j;
    int was[FC_MAX_RANK + 1], st;
    const struct ArrowArray *frames;
    int64_t flo, fhi, t;
    unsigned q;
    if (is_null(col, row))
        return FC_OK; /* absent */
    for (q = 0; q < x->nparts; q++)
        if (x->parts[q].kind != FC_PART_UNIFORM_ROW_LENGTH)
            li[nli++] = x->parts[q].field;
    li[nli++] = x->sparse_fields[0];
    for (j = 0; j < nli; j++)
        was[j] = r->filled[nctx + li[j]];
    if ((st = list_at(c, col, is_big(cs), row, &flo, &fhi)) != FC_OK)
        return st;
    if ((uint64_t)(fhi - flo) > l->max_frames)
        return row_fail(c, "more frames than the spec's bound", (uint64_t)(fhi - flo),
                        l->max_frames);
    frames = col->children[0];
    for (t = 0; t < fhi - flo; t++) {
        const struct ArrowArray *a = frames;
        const struct ArrowSchema *s = cs->children[0];
        int64_t lo, hi;
        size_t n, k = 0;
        if ((st = list_at(c, a, is_big(s), flo + t, &lo, &hi)) != FC_OK)
            return st;
        a = a->children[0];
        s = s->children[0];
        for (q = 0; q < x->nparts; q++) {
            const fc_part_desc *pd = &x->parts[q];
            int big = is_big(s);
            size_t room = pd->kind == FC_PART_UNIFORM_ROW_LENGTH ? SIZE_MAX
                                                                  : lists[pd->field].max;
            if ((st = encode_part(c, r, pd, room, a, big, lo, hi, &n)) != FC_OK)
                return st;
            if (pd->kind != FC_PART_UNIFORM_ROW_LENGTH &&
                (st = put_frame(c, r, li[k], was[k], t, n, sizeof(int64_t), msg)) != FC_OK)
                return st;
            k += pd->kind != FC_PART_UNIFORM_ROW_LENGTH;
            down(&a, &s, big, &lo, &hi);
        }
        if ((uint64_t)(hi - lo) > lists[li[k]].max)
            return row_fail(c, "more values in a frame of a RaggedFeature's list than the "
                               "spec's bound",
                            (uint64_t)(hi - lo), lists[li[k]].max);
        if ((st = copy_leaf(c, a, rc->leaf, lists[li[k]].type, lo, hi - lo, r->tmp)) != FC_OK ||
            (st = put_frame(c, r, li[k], was[k], t, (size_t)(hi - lo),
                            fc_type_size(lists[li[k]].type), msg)) != FC_OK)
            return st;
    }
    for (j = 0; j < nli; j++) {
        size_t frames_now;
        memcpy(&frames_now, at(msg, lists[li[j]].frames_offset), sizeof frames_now);
        if (was[j] && frames_now != (size_t)(fhi - flo))
            return row_fail(c, "this RaggedFeature and a list of it (filled from its own column) "
                               "have other numbers of frames",
                            (uint64_t)frames_now, (uint64_t)(fhi - flo));
        set_size(msg, lists[li[j]].frames_offset, (size_t)(fhi - flo));
        r->filled[nctx + li[j]] = 1;
    }
    return FC_OK;
}

/* The float16 whose value is d, into *h: 0 when there is none (a NaN is
 * 0x7e00 with d's sign, as TensorFlow's cast makes it).  The runtime's
 * rounding (fc_as_half), kept only when it changed nothing. */
static int half_exact(double d, uint16_t *h)
{
    int over;
    *h = fc_as_half((float)d, &over);
    return d != d || fc_half_value(*h) == d;
}

/* Value j of leaf array a (format f, a number) as typed tensor type as
 * wants it, its bits in *u: an integer within the type's range, a float
 * of the type (the same format: the bits as they are; another: its value,
 * which a float16 must hold exactly, a float32 rounded to, as for float
 * features). */
static int raw_value(const cursor *c, const struct ArrowArray *a, char f, int as, int64_t j,
                     uint64_t *u)
{
    int64_t k = j + a->offset, lo, hi, v;
    const void *p = a->buffers[1];
    double d;
    int s;
    if (strchr("efg", f) == NULL) {
        if ((s = copy_leaf(c, a, f, FC_TYPE_INT64, j, 1, &v)) != FC_OK)
            return s;
        if (fc_as_range(as, &lo, &hi) && (v < lo || v > hi)) {
            fc_msg m = fc_error_begin(c->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "arrow: column '");
            fc_msg_mem(&m, c->key, c->key_len);
            fc_msg_str(&m, "', row ");
            fc_msg_i64(&m, c->row);
            fc_msg_str(&m, ": value ");
            fc_msg_i64(&m, v);
            fc_msg_str(&m, " is out of the range of ");
            fc_msg_str(&m, fc_as_name(as));
            return FC_ERR_ARG;
        }
        *u = (uint64_t)v;
        return FC_OK;
    }
    if (a->null_count != 0 && is_null(a, j))
        return row_fail(c, "a null inside a value (only a whole feature may be null)",
                        UINT64_MAX, UINT64_MAX);
    if ((f == 'e' && as == FC_AS_FLOAT16) || (f == 'f' && as == FC_AS_FLOAT32)) {
        uint32_t w = 0;
        if (f == 'e')
            w = ((const uint16_t *)p)[k];
        else
            memcpy(&w, (const uint32_t *)p + k, 4);
        *u = w;
        return FC_OK;
    }
    if (f == 'g' && as == FC_AS_FLOAT64) {
        memcpy(u, (const uint64_t *)p + k, 8);
        return FC_OK;
    }
    d = f == 'e' ? fc_half_value(((const uint16_t *)p)[k])
        : f == 'f' ? (double)((const float *)p)[k] : ((const double *)p)[k];
    if (as == FC_AS_FLOAT16) {
        uint16_t h;
        if (!half_exact(d, &h))
            return row_fail(c, "a value that no float16 holds (the column is float32 or "
                               "float64; a float16 tensor's values must be float16s)",
                            UINT64_MAX, UINT64_MAX);
        *u = h;
    } else if (as == FC_AS_FLOAT32) {
        float x = (float)d;
        uint32_t w;
        memcpy(&w, &x, 4);
        *u = w;
    } else {
        memcpy(u, &d, 8);
    }
    return FC_OK;
}

/* A `bytes as T[dims]` feature's tensor at row i (lists per dimension,
 * each of the spec's length, checked by descend_fixed) back into the bytes
 * decode_raw reads: T's values, little-endian, in the row's raw scratch,
 * the field a view of them. */
static int raw_get(const cursor *c, const fc_field_as *x, char leaf, unsigned char *out,
                   const struct ArrowArray *a, const struct ArrowSchema *cs, int64_t i,
                   void *dst)
{
    size_t es = fc_as_size(x->type), k, q;
    fc_bytes v;
    int s;
    if ((s = descend_fixed(c, &a, &cs, &i, x->rank, x->dims)) != FC_OK)
        return s;
    for (k = 0; k < x->elems; k++) {
        uint64_t u = 0;
        if ((s = raw_value(c, a, leaf, x->type, i + (int64_t)k, &u)) != FC_OK)
            return s;
        for (q = 0; q < es; q++)
            out[k * es + q] = (unsigned char)(u >> (8 * q));
    }
    v.data = out;
    v.size = x->elems * es;
    memcpy(dst, &v, sizeof v);
    return FC_OK;
}

/* A field's value at row (FixedLen, FixedLenSequence rows, VarLen); big:
 * the column's list level has 64-bit offsets. */
static int field_get(const cursor *c, fc_arrow_rows *ar, const rcol *rc,
                     const struct ArrowSchema *cs, const struct ArrowArray *col, int64_t row,
                     void *msg, int big)
{
    const fc_field_desc *f = rc->f;
    size_t ts = fc_type_size(f->type);
    int64_t lo, hi, i = row;
    const struct ArrowArray *a = col;
    const struct ArrowSchema *as = cs;
    int s;
    if (f->kind == FC_KIND_FIXED) {
        if (is_null(col, row)) {
            if (f->default_value == NULL)
                return row_fail(c, "null, but the feature is required (FixedLen without a "
                                   "default)", UINT64_MAX, UINT64_MAX);
            memcpy(at(msg, f->value_offset), f->default_value, f->elems * ts);
            return FC_OK;
        }
        if (f->extra->as != NULL && f->extra->as->rank > 0)
            return raw_get(c, f->extra->as, rc->leaf, ar->raw + rc->raw_at, a, as, i,
                           at(msg, f->value_offset));
        if (f->rank > 0) {
            /* the column's own level is the first fixed level */
            if ((s = descend_fixed(c, &a, &as, &i, f->rank, f->dims)) != FC_OK)
                return s;
        }
        return copy_leaf(c, a, rc->leaf, f->type, i, (int64_t)f->elems, at(msg, f->value_offset));
    }
    if (is_null(col, row))
        return FC_OK; /* absent: no values */
    if ((s = list_at(c, a, big, i, &lo, &hi)) != FC_OK)
        return s;
    a = a->children[0];
    if (f->kind == FC_KIND_ROWS) {
        int64_t rows = hi - lo, r;
        if ((uint64_t)rows > f->max)
            return row_fail(c, "more rows than the spec's bound", (uint64_t)rows, f->max);
        for (r = 0; r < rows; r++) {
            const struct ArrowArray *b = a;
            const struct ArrowSchema *bs = cs->children[0];
            int64_t j = lo + r;
            if ((s = descend_fixed(c, &b, &bs, &j, f->rank, f->dims)) != FC_OK ||
                (s = copy_leaf(c, b, rc->leaf, f->type, j, (int64_t)f->elems,
                               at(msg, f->value_offset + (size_t)r * f->elems * ts))) != FC_OK)
                return s;
        }
        set_size(msg, f->count_offset, (size_t)rows);
        return FC_OK;
    }
    /* VarLen */
    if ((uint64_t)(hi - lo) > f->max)
        return row_fail(c, "more values than the spec's bound", (uint64_t)(hi - lo), f->max);
    if ((s = copy_leaf(c, a, rc->leaf, f->type, lo, hi - lo, at(msg, f->value_offset))) != FC_OK)
        return s;
    set_size(msg, f->count_offset, (size_t)(hi - lo));
    return FC_OK;
}

static int list_get(const cursor *c, fc_arrow_rows *ar, const rcol *rc,
                    const struct ArrowSchema *cs, const struct ArrowArray *col, int64_t row,
                    void *msg, int big, int big2)
{
    const fc_list_desc *l = rc->l;
    const fc_field_as *x = l->extra != NULL ? l->extra->as : NULL;
    size_t ts = fc_type_size(l->type);
    int64_t lo, hi, t;
    const struct ArrowArray *a;
    int s;
    if (is_null(col, row)) {
        if (l->kind == FC_KIND_FIXED && !l->allow_missing)
            return row_fail(c, "null, but the feature list is required (not allow_missing)",
                            UINT64_MAX, UINT64_MAX);
        return FC_OK;
    }
    if ((s = list_at(c, col, big, row, &lo, &hi)) != FC_OK)
        return s;
    if ((uint64_t)(hi - lo) > l->max_frames)
        return row_fail(c, "more frames than the spec's bound", (uint64_t)(hi - lo),
                        l->max_frames);
    a = col->children[0];
    for (t = 0; t < hi - lo; t++) {
        if (l->kind == FC_KIND_FIXED) {
            const struct ArrowArray *b = a;
            const struct ArrowSchema *bs = cs->children[0];
            int64_t j = lo + t;
            if (x != NULL && x->rank > 0) { /* a frame's tensor: back into its bytes */
                if ((s = raw_get(c, x, rc->leaf,
                                 ar->raw + rc->raw_at + (size_t)t * x->elems * fc_as_size(x->type),
                                 b, bs, j, at(msg, l->value_offset + (size_t)t * ts))) != FC_OK)
                    return s;
                continue;
            }
            if ((s = descend_fixed(c, &b, &bs, &j, l->rank, l->dims)) != FC_OK ||
                (s = copy_leaf(c, b, rc->leaf, l->type, j, (int64_t)l->elems,
                               at(msg, l->value_offset + (size_t)t * l->elems * ts))) != FC_OK)
                return s;
        } else {
            int64_t vlo, vhi;
            if ((s = list_at(c, a, big2, lo + t, &vlo, &vhi)) != FC_OK)
                return s;
            if ((uint64_t)(vhi - vlo) > l->max)
                return row_fail(c, "more values in a frame than the spec's bound",
                                (uint64_t)(vhi - vlo), l->max);
            if ((s = copy_leaf(c, a->children[0], rc->leaf, l->type, vlo, vhi - vlo,
                               at(msg, l->value_offset + (size_t)t * l->max * ts))) != FC_OK)
                return s;
            set_size(msg, l->count_offset + (size_t)t * sizeof(size_t), (size_t)(vhi - vlo));
        }
    }
    set_size(msg, l->frames_offset, (size_t)(hi - lo));
    return FC_OK;
}

/* A row of a spec with `as`: its typed tensors made as a parse makes
 * them (fc_ex_as_fields), so that the record written parses under the
 * spec: an integer out of its narrow type's range, a float past float16's,
 * is the parse's error with the row. */
static int typed_check(const fc_arrow_rows *r, int64_t row, void *msg, fc_error *err)
{
    char was[FC_ERROR_MSG_SIZE];
    fc_msg m;
    int s = r->md != NULL ? fc_ex_as_fields(r->md->fields, r->md->nfields, msg, 0, err)
            : fc_ex_as_fields(r->sd->context, r->sd->ncontext, msg, 1, err) != FC_OK
                ? FC_ERR_PARSE
                : fc_seq_as_lists(r->sd->lists, r->sd->nlists, msg, err);
    if (s == FC_OK)
        return FC_OK;
    memcpy(was, err->message, sizeof was);
    m = fc_error_begin(err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "arrow: row ");
    fc_msg_i64(&m, row);
    fc_msg_str(&m, ": ");
    fc_msg_str(&m, was);
    return FC_ERR_ARG;
}

int fc_arrow_rows_get(fc_arrow_rows *r, const struct ArrowSchema *schema,
                      const struct ArrowArray *batch, int64_t row, void *msg, fc_error *err)
{
    size_t i, size = r->md != NULL ? r->md->size : r->sd->size;
    size_t present = r->md != NULL ? r->md->present_offset : r->sd->present_offset;
    size_t nf = r->md != NULL ? r->md->nfields : r->sd->ncontext + r->sd->nlists;
    cursor c;
    int pass;
    if (row < 0 || row >= batch->length || batch->n_children != schema->n_children)
        return fail(err, FC_ERR_ARG, NULL, "a row outside the batch", NULL);
    memset(msg, 0, size);
    memset(r->filled, 0, nf);
    c.row = row;
    c.err = err;
    /* the features first, then the SparseFeatures, which may share their fields */
    for (pass = 0; pass < 2; pass++)
    for (i = 0; i < r->ncols; i++) {
        const rcol *rc = &r->cols[i];
        if ((rc->f != NULL ? rc->f->kind == FC_KIND_SPARSE || rc->f->kind == FC_KIND_RAGGED
                           : rc->l->kind == FC_KIND_RAGGED) != (pass == 1))
            continue;
        const struct ArrowArray *col = batch->children[rc->child];
        const struct ArrowSchema *cs = schema->children[rc->child];
        int big = is_big(cs);
        int s;
        int64_t k = row + batch->offset;
        c.key = rc->f != NULL ? rc->f->key : rc->l->key;
        c.key_len = rc->f != NULL ? rc->f->key_len : rc->l->key_len;
        if (rc->f != NULL && rc->f->kind == FC_KIND_SPARSE)
            s = sparse_get(&c, r, rc, cs, col, k, msg, present);
        else if (rc->f != NULL && rc->f->kind == FC_KIND_RAGGED)
            s = ragged_get(&c, r, rc, cs, col, k, msg, present);
        else if (rc->l != NULL && rc->l->kind == FC_KIND_RAGGED)
            s = ragged_list_get(&c, r, rc, cs, col, k, msg);
        else if (rc->f != NULL)
            s = field_get(&c, r, rc, cs, col, k, msg, big);
        else
            s = list_get(&c, r, rc, cs, col, k, msg, big,
                         cs->n_children > 0 && is_big(cs->children[0]));
        if (s != FC_OK)
            return s;
        r->filled[rc->bit] = 1;
    }
    return r->typed ? typed_check(r, row, msg, err) : FC_OK;
}
