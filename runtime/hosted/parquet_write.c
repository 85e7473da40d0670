/* Arrow arrays into Parquet files (fc_parquet.h), as parquet.thrift and
 * https://parquet.apache.org/docs/file-format/ describe them.
 *
 * A file is "PAR1", the row groups (in each, a column chunk per leaf of
 * the schema: its pages back to back, a page a Thrift PageHeader and the
 * page's bytes, compressed), the FileMetaData (Thrift, compact protocol),
 * its length and "PAR1" again.  A leaf is a path from a top-level column
 * through lists and structs to a value; every node is REQUIRED, so a
 * value's definition level counts the lists above it that it is inside
 * (an empty list stops one short) and its repetition level says at which
 * list it starts a new element (0: a new row).
 *
 * Each leaf builds its page (levels as bytes; PLAIN values, or indices
 * into the chunk's dictionary while it pays) row by row
 * from the arrays; a page ends when its values pass page_bytes and at the
 * end of a row group, and goes compressed into the leaf's chunk, kept in
 * memory until the row group is written (parquet_pages.c).  The footer's
 * entries are kept until close.  This file: the schema, the values and
 * levels, the API. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_ipc.h"
#include "byte_order.h"
#include "parquet_pages.h"

int fc_parquet_codec(const char *name)
{
    static const struct {
        const char *name;
        int codec;
    } names[] = {{"none", FC_PARQUET_UNCOMPRESSED}, {"uncompressed", FC_PARQUET_UNCOMPRESSED},
                 {"snappy", FC_PARQUET_SNAPPY},     {"gzip", FC_PARQUET_GZIP},
                 {"zstd", FC_PARQUET_ZSTD}};
    size_t k, i;
    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        for (i = 0; name[i] != '\0' && names[k].name[i] != '\0' &&
                    tolower((unsigned char)name[i]) == names[k].name[i];
             i++)
            ;
        if (name[i] == '\0' && names[k].name[i] == '\0')
            return names[k].codec;
    }
    return -1;
}

/* ------------------------------------------------------------ the schema */

/* The value of a leaf format, or -1. */
static int value_of(const char *f)
{
    static const char formats[] = "lfzZcCsSieg"; /* in the order of V_ */
    const char *at = f[0] != '\0' && f[1] == '\0' ? strchr(formats, f[0]) : NULL;
    return at != NULL ? (int)(at - formats) : -1;
}

/* The step a nested format is (S_FIXED with its size), or -1. */
static int step_of(const char *f, int64_t *size)
{
    *size = 0;
    if (strcmp(f, "+s") == 0)
        return S_STRUCT;
    if (strcmp(f, "+l") == 0)
        return S_LIST;
    if (strcmp(f, "+L") == 0)
        return S_LARGE_LIST;
    return fc_arrow_fixed_size(f, size) ? S_FIXED : -1;
}

static void schema_elem(fc_parquet *w, const char *name, int rep, int64_t nkids, int list)
{
    th_writer t;
    th_begin(&t, &w->schema_elems);
    if (rep >= 0)
        th_i32(&t, 3, rep);
    th_string(&t, 4, name);
    if (nkids >= 0)
        th_i32(&t, 5, (int32_t)nkids);
    if (list) {
        th_i32(&t, 6, CT_LIST);
        th_struct(&t, 10); /* logicalType */
        th_struct(&t, 3);  /* LIST: ListType {} */
        th_end(&t);
        th_end(&t);
    }
    th_end(&t);
    w->nelems++;
}

/* A leaf's SchemaElement: its physical type; a typed tensor's integer
 * also its converted type and INTEGER(bits, signed) logical type (what
 * Arrow's writer gives int8 ... uint16 and int32), a float16 a
 * FIXED_LEN_BYTE_ARRAY(2) of the FLOAT16 logical type. */
static void schema_leaf(fc_parquet *w, const char *name, int v)
{
    static const signed char bits[] = {8, 8, 16, 16, 32}; /* V_INT8 ... V_INT32 */
    static const signed char converted[] = {CT_INT_8, CT_UINT_8, CT_INT_16, CT_UINT_16, CT_INT_32};
    th_writer t;
    th_begin(&t, &w->schema_elems);
    th_i32(&t, 1, pq_value_type(v));
    if (v == V_FLOAT16)
        th_i32(&t, 2, 2); /* type_length */
    th_i32(&t, 3, REP_REQUIRED);
    th_string(&t, 4, name);
    if (v >= V_INT8 && v <= V_INT32) {
        th_i32(&t, 6, converted[v - V_INT8]);
        th_struct(&t, 10); /* logicalType */
        th_struct(&t, 10); /* INTEGER: IntType */
        th_i8(&t, 1, bits[v - V_INT8]);
        th_bool(&t, 2, v != V_UINT8 && v != V_UINT16);
        th_end(&t);
        th_end(&t);
    } else if (v == V_FLOAT16) {
        th_struct(&t, 10); /* logicalType */
        th_struct(&t, 15); /* FLOAT16: Float16Type {} */
        th_end(&t);
        th_end(&t);
    }
    th_end(&t);
    w->nelems++;
}

/* The schema elements under s (named name), and a leaf per value under it;
 * at, the path so far (steps and names). */
static int walk_schema(fc_parquet *w, const struct ArrowSchema *s, const char *name,
                       pq_leaf *at, unsigned depth, fc_error *err)
{
    int64_t size, i;
    int v, k;
    if (depth >= PQ_DEPTH)
        return pq_fail(err, FC_ERR_UNSUPPORTED, "a schema nested more than 64 levels", NULL);
    if (s == NULL || s->format == NULL)
        return pq_fail(err, FC_ERR_ARG, "an incomplete schema", NULL);
    if (s->dictionary != NULL)
        return pq_fail(err, FC_ERR_UNSUPPORTED, "a dictionary-encoded field", NULL);
    at->path[at->npath++] = name;
    if ((v = value_of(s->format)) >= 0) {
        pq_leaf *leaf;
        int dw = pq_dict_width(v);
        if (s->n_children != 0)
            return pq_fail(err, FC_ERR_ARG, "a value with children: ", s->format);
        schema_leaf(w, name, v);
        leaf = (pq_leaf *)realloc(w->leaves, (w->nleaves + 1) * sizeof *leaf);
        if (leaf == NULL)
            return pq_oom(w, err);
        w->leaves = leaf;
        leaf += w->nleaves++;
        *leaf = *at;
        leaf->rep.pool = leaf->def.pool = leaf->vals.pool = &w->pool;
        leaf->idx.pool = leaf->chunk.pool = leaf->dict.values.pool = &w->pool;
        leaf->value = v;
        leaf->dict_on = dw >= 0;
        leaf->dict.width = dw > 0 ? (unsigned)dw : 0;
        at->npath--;
        return FC_OK;
    }
    if ((k = step_of(s->format, &size)) < 0)
        return pq_fail(err, FC_ERR_UNSUPPORTED, "no Parquet type for the Arrow format ", s->format);
    if (k == S_STRUCT ? s->n_children < 0 || (s->n_children > 0 && s->children == NULL)
                      : s->n_children != 1 || s->children == NULL)
        return pq_fail(err, FC_ERR_ARG, "a schema node with the wrong number of children: ",
                       s->format);
    if (k == S_STRUCT) {
        schema_elem(w, name, REP_REQUIRED, s->n_children, 0);
        for (i = 0; i < s->n_children; i++) {
            int rc;
            const char *kid = s->children[i] != NULL && s->children[i]->name != NULL
                                  ? s->children[i]->name
                                  : "";
            at->steps[at->nsteps].kind = S_STRUCT;
            at->steps[at->nsteps++].arg = i;
            rc = walk_schema(w, s->children[i], kid, at, depth + 1, err);
            at->nsteps--;
            if (rc != FC_OK)
                return rc;
        }
    } else {
        int rc;
        /* the three levels: group NAME (LIST) { repeated group list { element } } */
        schema_elem(w, name, REP_REQUIRED, 1, 1);
        schema_elem(w, "list", REP_REPEATED, 1, 0);
        at->path[at->npath++] = "list";
        at->steps[at->nsteps].kind = k;
        at->steps[at->nsteps++].arg = size;
        at->max_level++;
        rc = walk_schema(w, s->children[0], "element", at, depth + 1, err);
        at->max_level--;
        at->nsteps--;
        at->npath--;
        if (rc != FC_OK)
            return rc;
    }
    at->npath--;
    return FC_OK;
}

/* The schema's IPC message in base64, for "ARROW:schema". */
static int arrow_schema_b64(fc_parquet *w, const struct ArrowSchema *schema, fc_error *err)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *mem = NULL;
    size_t len = 0, n, i, o = 0;
    FILE *f = open_memstream(&mem, &len);
    fc_arrow_ipc *ipc = NULL;
    fc_error e2;
    int rc;
    if (f == NULL)
        return pq_oom(w, err);
    fc_error_clear(&e2);
    rc = fc_arrow_ipc_open(&ipc, f, FC_ARROW_IPC_STREAM, schema, err);
    n = rc == FC_OK ? (size_t)fc_arrow_ipc_bytes(ipc) : 0;
    if (rc == FC_OK)
        fc_arrow_ipc_close(ipc, &e2); /* (its end-of-stream marker is not taken) */
    if (fclose(f) != 0 && rc == FC_OK)
        rc = pq_oom(w, err);
    if (rc != FC_OK) {
        free(mem);
        return rc;
    }
    if (n > len) {
        free(mem);
        return pq_oom(w, err);
    }
    w->arrow_schema = (char *)malloc((n + 2) / 3 * 4 + 1);
    if (w->arrow_schema == NULL) {
        free(mem);
        return pq_oom(w, err);
    }
    for (i = 0; i < n; i += 3) {
        const unsigned char *p = (const unsigned char *)mem + i;
        uint32_t v = (uint32_t)p[0] << 16 | (i + 1 < n ? (uint32_t)p[1] << 8 : 0u) |
                     (i + 2 < n ? (uint32_t)p[2] : 0u);
        w->arrow_schema[o++] = abc[v >> 18 & 63];
        w->arrow_schema[o++] = abc[v >> 12 & 63];
        w->arrow_schema[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        w->arrow_schema[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    w->arrow_schema[o] = '\0';
    free(mem);
    return FC_OK;
}

/* ------------------------------------------------------------ output */

int fc_parquet_open(fc_parquet **out, FILE *f, const struct ArrowSchema *schema,
                    const fc_parquet_options *opt, fc_error *err)
{
    fc_parquet *w;
    pq_leaf at;
    int64_t i;
    int rc;
    *out = NULL;
    if (schema == NULL || schema->format == NULL || schema->release == NULL)
        return pq_fail(err, FC_ERR_ARG, "a released or incomplete schema", NULL);
    if (strcmp(schema->format, "+s") != 0)
        return pq_fail(err, FC_ERR_ARG, "a record batch's schema is a struct (\"+s\"), not ",
                       schema->format);
    if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == NULL))
        return pq_fail(err, FC_ERR_ARG, "a struct schema without its children", NULL);
    if (opt != NULL && opt->codec != FC_PARQUET_UNCOMPRESSED && opt->codec != FC_PARQUET_GZIP &&
        ((opt->codec != FC_PARQUET_SNAPPY && opt->codec != FC_PARQUET_ZSTD) ||
         opt->compress == NULL))
        return pq_fail(err, FC_ERR_ARG,
                       "the codec is uncompressed or GZIP, or SNAPPY or ZSTD with a compress "
                       "function",
                       NULL);
    w = (fc_parquet *)calloc(1, sizeof *w);
    if (w == NULL)
        return pq_fail(err, FC_ERR_NO_MEMORY, "parquet: out of memory", NULL);
    w->out = f;
    w->page.pool = w->hdr.pool = &w->pool;
    w->sch = schema;
    if (opt != NULL)
        w->opt = *opt;
    if (w->opt.row_group_rows == 0)
        w->opt.row_group_rows = FC_PARQUET_ROW_GROUP_ROWS;
    if (w->opt.page_bytes == 0)
        w->opt.page_bytes = FC_PARQUET_PAGE_BYTES;
    schema_elem(w, "schema", -1, schema->n_children, 0);
    rc = FC_OK;
    for (i = 0; i < schema->n_children && rc == FC_OK; i++) {
        const struct ArrowSchema *c = schema->children[i];
        memset(&at, 0, sizeof at);
        at.column = i;
        rc = walk_schema(w, c, c != NULL && c->name != NULL ? c->name : "", &at, 0, err);
    }
    if (rc == FC_OK && w->schema_elems.oom)
        rc = pq_oom(w, err);
    if (rc == FC_OK)
        rc = arrow_schema_b64(w, schema, err);
    if (rc == FC_OK)
        rc = pq_out(w, "PAR1", 4, err);
    if (rc != FC_OK) {
        w->failed = 1;
        fc_parquet_close(w, NULL);
        return rc;
    }
    *out = w;
    return FC_OK;
}

/* ------------------------------------------------------------ values */

static void put_le(th_buf *b, const void *p, size_t width, size_t n)
{
    unsigned char *q = th_room(b, width * n);
    size_t i, k;
    if (q == NULL)
        return;
    if (!fc_host_big_endian()) {
        memcpy(q, p, width * n);
    } else {
        for (i = 0; i < n; i++)
            for (k = 0; k < width; k++)
                q[i * width + k] = ((const unsigned char *)p)[i * width + width - 1 - k];
    }
    b->n += width * n;
}

static int bytes_less(const unsigned char *a, size_t na, const unsigned char *b, size_t nb)
{
    int c = memcmp(a, b, na < nb ? na : nb);
    return c < 0 || (c == 0 && na < nb);
}

static void stat_bytes(pq_stats *st, const unsigned char *p, size_t n)
{
    if (st->too_long)
        return;
    if (n > STAT_MAX) {
        st->too_long = 1;
        return;
    }
    if (!st->has || bytes_less(p, n, st->bmin.p, st->bmin.n)) {
        st->bmin.n = 0;
        th_put(&st->bmin, p, n);
    }
    if (!st->has || bytes_less(st->bmax.p, st->bmax.n, p, n)) {
        st->bmax.n = 0;
        th_put(&st->bmax, p, n);
    }
    st->has = 1;
}

static void stat_int(pq_stats *st, int64_t x)
{
    if (!st->has || x < st->imin)
        st->imin = x;
    if (!st->has || x > st->imax)
        st->imax = x;
    st->has = 1;
}

/* A float's, a double's or a float16's value x (h: a float16's bits);
 * NaN has no order and is left out. */
static void stat_float(pq_stats *st, double x, uint16_t h)
{
    if (x != x)
        return;
    if (!st->has || x < st->fmin)
        st->fmin = x, st->hmin = h;
    if (!st->has || x > st->fmax)
        st->fmax = x, st->hmax = h;
    st->has = 1;
}

/* The narrow integer (a typed tensor's int8 ... int32) at i of p. */
static int64_t narrow_at(const pq_leaf *L, const void *p, int64_t i)
{
    return L->value == V_INT8     ? ((const int8_t *)p)[i]
           : L->value == V_UINT8  ? ((const uint8_t *)p)[i]
           : L->value == V_INT16  ? ((const int16_t *)p)[i]
           : L->value == V_UINT16 ? ((const uint16_t *)p)[i]
                                  : ((const int32_t *)p)[i];
}

/* n values of a typed tensor's integer column (int8 ... int32) from at,
 * each as Parquet's INT32. */
static void put_int32s(pq_leaf *L, const void *p, int64_t at, int64_t n)
{
    unsigned char *q = th_room(&L->vals, 4 * (size_t)n);
    int64_t i;
    if (q == NULL)
        return;
    for (i = 0; i < n; i++) {
        int64_t x = narrow_at(L, p, at + i);
        uint32_t u = (uint32_t)x; /* (two's complement: x is within int32) */
        q[4 * i] = (unsigned char)u;
        q[4 * i + 1] = (unsigned char)(u >> 8);
        q[4 * i + 2] = (unsigned char)(u >> 16);
        q[4 * i + 3] = (unsigned char)(u >> 24);
        stat_int(&L->st, x);
    }
    L->vals.n += 4 * (size_t)n;
}

/* n float16s (their bits, in the host's order) from at, each as the two
 * little-endian bytes of a FIXED_LEN_BYTE_ARRAY(2). */
static void put_halves(pq_leaf *L, const uint16_t *p, int64_t at, int64_t n)
{
    unsigned char *q = th_room(&L->vals, 2 * (size_t)n);
    int64_t i;
    if (q == NULL)
        return;
    for (i = 0; i < n; i++) {
        uint16_t h = p[at + i];
        q[2 * i] = (unsigned char)(h & 0xffu);
        q[2 * i + 1] = (unsigned char)(h >> 8);
        stat_float(&L->st, fc_half_value(h), h);
    }
    L->vals.n += 2 * (size_t)n;
}

/* Room in L->idx for n more indices, after the last: NULL (L->vals.oom
 * set) when out of memory. */
static uint32_t *idx_room(pq_leaf *L, size_t n)
{
    unsigned char *q = n <= SIZE_MAX / 4 ? th_room(&L->idx, 4 * n) : NULL;
    if (q == NULL)
        L->vals.oom = 1;
    return (uint32_t *)(void *)q;
}

/* n numbers from at of p, as indices into the chunk's dictionary (keyed
 * by their bits).  The statistics take each value as it enters the
 * dictionary: a value again cannot move a minimum or a maximum, and the
 * dictionary lives as long as they do (a chunk), or, when it stops
 * paying, hands over to put_values having taken all it holds. */
static void put_indices(pq_leaf *L, const void *p, int64_t at, int64_t n)
{
    uint32_t *q = idx_room(L, (size_t)n);
    int64_t i;
    int r, bad = 0;
    if (q == NULL)
        return;
    if (L->value == V_INT64) {
        const int64_t *v = (const int64_t *)p + at;
        for (i = 0; i < n; i++)
            if ((r = pq_dict_number(&L->dict, (uint64_t)v[i], &q[i])) != 0) {
                stat_int(&L->st, v[i]);
                bad |= r < 0;
            }
    } else if (L->value == V_FLOAT) {
        const float *v = (const float *)p + at;
        for (i = 0; i < n; i++) {
            uint32_t bits;
            memcpy(&bits, &v[i], sizeof bits);
            if ((r = pq_dict_number(&L->dict, bits, &q[i])) != 0) {
                stat_float(&L->st, (double)v[i], 0);
                bad |= r < 0;
            }
        }
    } else if (L->value == V_DOUBLE) {
        const double *v = (const double *)p + at;
        for (i = 0; i < n; i++) {
            uint64_t bits;
            memcpy(&bits, &v[i], sizeof bits);
            if ((r = pq_dict_number(&L->dict, bits, &q[i])) != 0) {
                stat_float(&L->st, v[i], 0);
                bad |= r < 0;
            }
        }
    } else {
        for (i = 0; i < n; i++) {
            int64_t x = narrow_at(L, p, at + i);
            if ((r = pq_dict_number(&L->dict, (uint32_t)x, &q[i])) != 0) { /* (as an INT32) */
                stat_int(&L->st, x);
                bad |= r < 0;
            }
        }
    }
    if (bad) {
        L->vals.oom = 1;
        return;
    }
    L->idx.n += 4 * (size_t)n;
    L->chunk_values += (uint64_t)n;
}

/* Values [start, start + n) of the leaf array a into the page. */
static void put_values(pq_leaf *L, const struct ArrowArray *a, int64_t start, int64_t n)
{
    int64_t i, at = a->offset + start;
    if (n <= 0)
        return;
    if (L->dict_on && !PQ_IS_BYTES(L->value)) {
        put_indices(L, a->buffers[1], at, n);
    } else if (L->value == V_INT64) {
        const int64_t *v = (const int64_t *)a->buffers[1] + at;
        put_le(&L->vals, v, 8, (size_t)n);
        for (i = 0; i < n; i++)
            stat_int(&L->st, v[i]);
    } else if (L->value == V_FLOAT) {
        const float *v = (const float *)a->buffers[1] + at;
        put_le(&L->vals, v, 4, (size_t)n);
        for (i = 0; i < n; i++)
            stat_float(&L->st, (double)v[i], 0);
    } else if (L->value == V_DOUBLE) {
        const double *v = (const double *)a->buffers[1] + at;
        put_le(&L->vals, v, 8, (size_t)n);
        for (i = 0; i < n; i++)
            stat_float(&L->st, v[i], 0);
    } else if (L->value == V_FLOAT16) {
        put_halves(L, (const uint16_t *)a->buffers[1], at, n);
    } else if (!PQ_IS_BYTES(L->value)) {
        put_int32s(L, a->buffers[1], at, n);
    } else {
        const unsigned char *data = (const unsigned char *)a->buffers[2];
        for (i = 0; i < n; i++) {
            int64_t s, e;
            if (L->value == V_BINARY) {
                const int32_t *off = (const int32_t *)a->buffers[1] + at + i;
                s = off[0];
                e = off[1];
            } else {
                const int64_t *off = (const int64_t *)a->buffers[1] + at + i;
                s = off[0];
                e = off[1];
            }
            L->chunk_values++;
            if (L->dict_on) { /* (statistics as in put_indices) */
                uint32_t *q = idx_room(L, 1);
                int r;
                if (q == NULL)
                    return;
                if ((r = pq_dict_index(&L->dict, data + s, (size_t)(e - s), q)) < 0) {
                    L->vals.oom = 1;
                    return;
                }
                if (r > 0)
                    stat_bytes(&L->st, data + s, (size_t)(e - s));
                L->idx.n += 4;
                continue;
            }
            stat_bytes(&L->st, data + s, (size_t)(e - s));
            th_le32(&L->vals, (uint32_t)(e - s));
            th_put(&L->vals, data + s, (size_t)(e - s));
        }
    }
}

static void put_levels(pq_leaf *L, unsigned rep, unsigned def, size_t n)
{
    if (L->max_level > 0 && n > 0) {
        unsigned char *r = th_room(&L->rep, n), *d = th_room(&L->def, n);
        if (r == NULL || d == NULL)
            return;
        r[0] = (unsigned char)rep;
        memset(r + 1, (int)L->max_level, n - 1); /* (only a leaf list repeats n > 1) */
        memset(d, (int)def, n);
        L->rep.n += n;
        L->def.n += n;
    }
    L->page_levels += n;
}

/* Element j of the array a, at step k of L's path; rep and def so far,
 * lists the lists above. */
static void emit(pq_leaf *L, const struct ArrowArray *a, unsigned k, int64_t j, unsigned rep,
                 unsigned def, unsigned lists)
{
    int64_t s, e, x;
    const pq_step *st;
    if (k == L->nsteps) {
        put_levels(L, rep, def, 1);
        put_values(L, a, j, 1);
        return;
    }
    st = &L->steps[k];
    x = a->offset + j;
    if (st->kind == S_STRUCT) {
        emit(L, a->children[st->arg], k + 1, x, rep, def, lists);
        return;
    }
    if (st->kind == S_LIST) {
        const int32_t *off = (const int32_t *)a->buffers[1];
        s = off[x];
        e = off[x + 1];
    } else if (st->kind == S_LARGE_LIST) {
        const int64_t *off = (const int64_t *)a->buffers[1];
        s = off[x];
        e = off[x + 1];
    } else {
        s = x * st->arg;
        e = s + st->arg;
    }
    if (s == e) {
        put_levels(L, rep, def, 1); /* an empty list: no value */
        return;
    }
    if (k + 1 == L->nsteps) { /* a list of values: at once */
        put_levels(L, rep, def + 1, (size_t)(e - s));
        put_values(L, a->children[0], s, e - s);
        return;
    }
    for (x = s; x < e; x++)
        emit(L, a->children[0], k + 1, x, x == s ? rep : lists + 1, def + 1, lists + 1);
}

/* ------------------------------------------------------------ writing */

/* FC_OK when a and its children hold no null (every field is REQUIRED);
 * their shape against the schema s. */
static int check_array(const struct ArrowArray *a, const struct ArrowSchema *s, unsigned depth,
                       fc_error *err)
{
    int64_t i;
    if (a == NULL || a->release == NULL || depth > PQ_DEPTH)
        return pq_fail(err, FC_ERR_ARG, "an array that is not of the schema", NULL);
    if (a->null_count != 0 && (a->null_count != -1 || (a->n_buffers > 0 && a->buffers != NULL &&
                                                       a->buffers[0] != NULL)))
        return pq_fail(err, FC_ERR_UNSUPPORTED,
                       "a null (the Parquet file's fields are required: featc writes no null)",
                       NULL);
    if (a->n_children != s->n_children || (a->n_children > 0 && a->children == NULL))
        return pq_fail(err, FC_ERR_ARG, "an array that is not of the schema", NULL);
    for (i = 0; i < a->n_children; i++) {
        int rc = check_array(a->children[i], s->children[i], depth + 1, err);
        if (rc != FC_OK)
            return rc;
    }
    return FC_OK;
}

/* Rows [r0, r1) of a column of numbers (no list) into L: the rows up to
 * the page's end at once. */
static int put_numbers(fc_parquet *w, pq_leaf *L, const struct ArrowArray *col, int64_t r0,
                       int64_t r1, fc_error *err)
{
    size_t width = L->value == V_INT64 || L->value == V_DOUBLE ? 8
                   : L->value == V_FLOAT16                     ? 2
                                                               : 4;
    int64_t i, m;
    for (i = r0; i < r1; i += m) {
        /* (a dictionary's page counts its indices as 4 bytes each, as
         * put_rows does, and its use is checked at least every DICT_TRY) */
        size_t each = L->dict_on ? 4 : width, used = L->vals.n + L->idx.n;
        size_t left = w->opt.page_bytes > used ? w->opt.page_bytes - used : 0;
        int rc;
        m = (int64_t)((left + each - 1) / each);
        if (m < 1)
            m = 1;
        if (L->dict_on && m > (int64_t)DICT_TRY)
            m = DICT_TRY;
        if (m > r1 - i)
            m = r1 - i;
        put_levels(L, 0, 0, (size_t)m);
        put_values(L, col, i, m);
        if (L->vals.n + L->idx.n >= w->opt.page_bytes &&
            (rc = pq_flush_page(w, L, err)) != FC_OK)
            return rc;
        if ((rc = pq_dict_check(w, L, err)) != FC_OK)
            return rc;
    }
    return FC_OK;
}

/* Rows [r0, r1) of col into L, one by one: a page ends after the row that
 * fills it, and the dictionary after the row past which it stops paying. */
static int put_rows(fc_parquet *w, pq_leaf *L, const struct ArrowArray *col, int64_t r0,
                    int64_t r1, fc_error *err)
{
    int64_t i;
    int rc;
    for (i = r0; i < r1; i++) {
        emit(L, col, 0, i, 0, 0, 0);
        if (L->vals.n + L->rep.n + L->def.n + L->idx.n >= w->opt.page_bytes &&
            (rc = pq_flush_page(w, L, err)) != FC_OK)
            return rc;
        if ((rc = pq_dict_check(w, L, err)) != FC_OK)
            return rc;
    }
    return FC_OK;
}

int fc_parquet_write(fc_parquet *w, const struct ArrowArray *batch, fc_error *err)
{
    int64_t r0 = 0, n;
    size_t k;
    int rc;
    if (w == NULL || batch == NULL || batch->release == NULL)
        return pq_fail(err, FC_ERR_ARG, "no writer or a released array", NULL);
    if (w->failed)
        return pq_fail(err, FC_ERR_ARG, "the writer failed before", NULL);
    if (batch->length < 0)
        return pq_fail(err, FC_ERR_ARG, "an array that is not of the schema", NULL);
    if ((rc = check_array(batch, w->sch, 0, err)) != FC_OK)
        return rc;
    n = batch->length;
    /* (from here on a failure leaves part of the batch written: w->failed) */
    while (r0 < n) {
        uint64_t room = w->opt.row_group_rows - w->group_rows;
        int64_t r1 = (uint64_t)(n - r0) < room ? n : r0 + (int64_t)room;
        for (k = 0; k < w->nleaves; k++) {
            pq_leaf *L = &w->leaves[k];
            const struct ArrowArray *col = batch->children[L->column];
            rc = L->nsteps == 0 && !PQ_IS_BYTES(L->value)
                     ? put_numbers(w, L, col, batch->offset + r0, batch->offset + r1, err)
                     : put_rows(w, L, col, batch->offset + r0, batch->offset + r1, err);
            if (rc != FC_OK) {
                w->failed = 1;
                return rc;
            }
            if (L->vals.oom || L->rep.oom || L->def.oom || L->st.bmin.oom || L->st.bmax.oom)
                return pq_oom(w, err);
        }
        w->group_rows += (uint64_t)(r1 - r0);
        w->rows += (uint64_t)(r1 - r0);
        r0 = r1;
        if (w->group_rows == w->opt.row_group_rows && (rc = pq_flush_group(w, err)) != FC_OK) {
            w->failed = 1;
            return rc;
        }
    }
    return FC_OK;
}

int fc_parquet_close(fc_parquet *w, fc_error *err)
{
    th_buf foot;
    fc_error none;
    size_t g, k;
    int rc = FC_OK;
    if (w == NULL)
        return FC_OK;
    if (err == NULL)
        err = &none;
    memset(&foot, 0, sizeof foot);
    if (w->failed)
        rc = pq_fail(err, FC_ERR_ARG, "the writer failed before", NULL);
    if (rc == FC_OK)
        rc = pq_flush_group(w, err);
    if (rc == FC_OK && w->ngroups > 0 && w->nleaves == 0)
        rc = pq_fail(err, FC_ERR_UNSUPPORTED, "rows without a column (Parquet has no such table)",
                     NULL);
    if (rc == FC_OK) {
        size_t n;
        pq_put_footer(w, &foot);
        n = foot.n;
        th_le32(&foot, (uint32_t)n); /* its length, then the magic again */
        th_put(&foot, "PAR1", 4);
        rc = foot.oom || n > UINT32_MAX ? pq_oom(w, err) : pq_out(w, foot.p, foot.n, err);
    }
    th_free(&foot);
    for (k = 0; k < w->nleaves; k++) {
        pq_leaf *L = &w->leaves[k];
        th_free(&L->rep);
        th_free(&L->def);
        th_free(&L->vals);
        th_free(&L->chunk);
        th_free(&L->st.bmin);
        th_free(&L->st.bmax);
        th_free(&L->idx);
        pq_dict_free(&L->dict);
    }
    for (g = 0; g < w->ngroups; g++) {
        for (k = 0; k < w->nleaves; k++) {
            free(w->groups[g].chunks[k].min);
            free(w->groups[g].chunks[k].max);
        }
        free(w->groups[g].chunks);
    }
    free(w->groups);
    free(w->leaves);
    th_free(&w->schema_elems);
    pq_pages_free(w);
    th_pool_free(&w->pool); /* (after every buffer of it) */
    free(w->arrow_schema);
    free(w);
    return rc;
}

uint64_t fc_parquet_bytes(const fc_parquet *w)
{
    return w->pos;
}
