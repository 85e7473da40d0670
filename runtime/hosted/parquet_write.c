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
 * Each leaf builds its page (levels as bytes, PLAIN values) row by row
 * from the arrays; a page ends when its values pass page_bytes and at the
 * end of a row group, and goes compressed into the leaf's chunk, kept in
 * memory until the row group is written.  The footer's entries are kept
 * until close. */
#include "featc/fc_parquet.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "thrift.h"

#define PQ_DEPTH 64
#define STAT_MAX 4096 /* longest byte string kept as a minimum or maximum */

/* Parquet's enums (parquet.thrift). */
enum { PT_INT64 = 2, PT_FLOAT = 4, PT_BYTE_ARRAY = 6 };
enum { REP_REQUIRED = 0, REP_REPEATED = 2 };
enum { CT_LIST = 3 };
enum { ENC_PLAIN = 0, ENC_RLE = 3 };
enum { PAGE_DATA = 0 };

/* What a step from a node to the next on a leaf's path is. */
enum { S_STRUCT, S_LIST, S_LARGE_LIST, S_FIXED };
/* A leaf's value. */
enum { V_INT64, V_FLOAT, V_BINARY, V_LARGE_BINARY };

typedef struct pq_step {
    int kind;
    int64_t arg; /* S_STRUCT: the child; S_FIXED: the size */
} pq_step;

typedef struct pq_stats {
    int has;                /* a minimum and maximum seen */
    int too_long;           /* a byte string past STAT_MAX: none written */
    int64_t imin, imax;
    float fmin, fmax;
    th_buf bmin, bmax;
} pq_stats;

/* A column chunk written: what the footer says of it. */
typedef struct pq_chunk {
    uint64_t offset, values, raw, packed;
    unsigned char *min, *max; /* NULL: none */
    size_t min_len, max_len;
} pq_chunk;

typedef struct pq_leaf {
    int64_t column; /* the top-level child */
    pq_step steps[PQ_DEPTH];
    unsigned nsteps;
    int value;
    unsigned max_level; /* both levels' maximum: the lists on the path */
    const char *path[2 * PQ_DEPTH + 2]; /* a list adds two: its name and "list" */
    unsigned npath;
    th_buf rep, def, vals; /* the page being built */
    uint64_t page_levels;
    th_buf chunk;          /* this row group's pages */
    uint64_t chunk_levels, chunk_raw;
    pq_stats st;
} pq_leaf;

typedef struct pq_group {
    uint64_t rows;
    pq_chunk *chunks; /* a chunk per leaf */
} pq_group;

struct fc_parquet {
    FILE *out;
    uint64_t pos;
    fc_parquet_options opt;
    const struct ArrowSchema *sch;
    th_buf schema_elems; /* the footer's SchemaElements, already encoded */
    size_t nelems;
    pq_leaf *leaves;
    size_t nleaves;
    uint64_t group_rows, rows;
    pq_group *groups;
    size_t ngroups, groups_cap;
    th_buf page;           /* scratch: a page's bytes */
    unsigned char *zbuf;   /* the compressor's output */
    size_t zcap;
    char *arrow_schema;    /* base64 of the schema's IPC message */
    int failed;
};

static int fail(fc_error *err, int status, const char *what, const char *detail)
{
    fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "parquet: ");
    fc_msg_str(&m, what);
    if (detail != NULL)
        fc_msg_str(&m, detail);
    return status;
}

static int oom(fc_parquet *w, fc_error *err)
{
    w->failed = 1;
    return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
}

static int host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

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
    return strcmp(f, "l") == 0   ? V_INT64
           : strcmp(f, "f") == 0 ? V_FLOAT
           : strcmp(f, "z") == 0 ? V_BINARY
           : strcmp(f, "Z") == 0 ? V_LARGE_BINARY
                                 : -1;
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
    if (strncmp(f, "+w:", 3) == 0) {
        char *end;
        long long v = strtoll(f + 3, &end, 10);
        if (f[3] < '0' || f[3] > '9' || *end != '\0' || v < 0 || v > INT32_MAX)
            return -1;
        *size = (int64_t)v;
        return S_FIXED;
    }
    return -1;
}

static void schema_elem(fc_parquet *w, const char *name, int type, int rep, int64_t nkids,
                        int list)
{
    th_writer t;
    th_begin(&t, &w->schema_elems);
    if (type >= 0)
        th_i32(&t, 1, type);
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

/* The schema elements under s (named name), and a leaf per value under it;
 * at, the path so far (steps and names). */
static int walk_schema(fc_parquet *w, const struct ArrowSchema *s, const char *name,
                       pq_leaf *at, unsigned depth, fc_error *err)
{
    int64_t size, i;
    int v, k;
    if (depth >= PQ_DEPTH)
        return fail(err, FC_ERR_UNSUPPORTED, "a schema nested more than 64 levels", NULL);
    if (s == NULL || s->format == NULL)
        return fail(err, FC_ERR_ARG, "an incomplete schema", NULL);
    if (s->dictionary != NULL)
        return fail(err, FC_ERR_UNSUPPORTED, "a dictionary-encoded field", NULL);
    at->path[at->npath++] = name;
    if ((v = value_of(s->format)) >= 0) {
        pq_leaf *leaf;
        if (s->n_children != 0)
            return fail(err, FC_ERR_ARG, "a value with children: ", s->format);
        schema_elem(w, name, v == V_INT64 ? PT_INT64 : v == V_FLOAT ? PT_FLOAT : PT_BYTE_ARRAY,
                    REP_REQUIRED, -1, 0);
        leaf = (pq_leaf *)realloc(w->leaves, (w->nleaves + 1) * sizeof *leaf);
        if (leaf == NULL)
            return oom(w, err);
        w->leaves = leaf;
        leaf += w->nleaves++;
        *leaf = *at;
        leaf->value = v;
        at->npath--;
        return FC_OK;
    }
    if ((k = step_of(s->format, &size)) < 0)
        return fail(err, FC_ERR_UNSUPPORTED, "no Parquet type for the Arrow format ", s->format);
    if (k == S_STRUCT ? s->n_children < 0 || (s->n_children > 0 && s->children == NULL)
                      : s->n_children != 1 || s->children == NULL)
        return fail(err, FC_ERR_ARG, "a schema node with the wrong number of children: ",
                    s->format);
    if (k == S_STRUCT) {
        schema_elem(w, name, -1, REP_REQUIRED, s->n_children, 0);
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
        schema_elem(w, name, -1, REP_REQUIRED, 1, 1);
        schema_elem(w, "list", -1, REP_REPEATED, 1, 0);
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
        return oom(w, err);
    fc_error_clear(&e2);
    rc = fc_arrow_ipc_open(&ipc, f, FC_ARROW_IPC_STREAM, schema, err);
    n = rc == FC_OK ? (size_t)fc_arrow_ipc_bytes(ipc) : 0;
    if (rc == FC_OK)
        fc_arrow_ipc_close(ipc, &e2); /* (its end-of-stream marker is not taken) */
    if (fclose(f) != 0 && rc == FC_OK)
        rc = oom(w, err);
    if (rc != FC_OK) {
        free(mem);
        return rc;
    }
    if (n > len) {
        free(mem);
        return oom(w, err);
    }
    w->arrow_schema = (char *)malloc((n + 2) / 3 * 4 + 1);
    if (w->arrow_schema == NULL) {
        free(mem);
        return oom(w, err);
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

static int out_write(fc_parquet *w, const void *p, size_t n, fc_error *err)
{
    if (n > 0 && fwrite(p, 1, n, w->out) != n) {
        w->failed = 1;
        return fail(err, FC_ERR_IO, "write failed", NULL);
    }
    w->pos += n;
    return FC_OK;
}

int fc_parquet_open(fc_parquet **out, FILE *f, const struct ArrowSchema *schema,
                    const fc_parquet_options *opt, fc_error *err)
{
    fc_parquet *w;
    pq_leaf at;
    int64_t i;
    int rc;
    *out = NULL;
    if (schema == NULL || schema->format == NULL || schema->release == NULL)
        return fail(err, FC_ERR_ARG, "a released or incomplete schema", NULL);
    if (strcmp(schema->format, "+s") != 0)
        return fail(err, FC_ERR_ARG, "a record batch's schema is a struct (\"+s\"), not ",
                    schema->format);
    if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == NULL))
        return fail(err, FC_ERR_ARG, "a struct schema without its children", NULL);
    if (opt != NULL && opt->codec != FC_PARQUET_UNCOMPRESSED && opt->codec != FC_PARQUET_GZIP &&
        ((opt->codec != FC_PARQUET_SNAPPY && opt->codec != FC_PARQUET_ZSTD) ||
         opt->compress == NULL))
        return fail(err, FC_ERR_ARG,
                    "the codec is uncompressed or GZIP, or SNAPPY or ZSTD with a compress "
                    "function",
                    NULL);
    w = (fc_parquet *)calloc(1, sizeof *w);
    if (w == NULL)
        return fail(err, FC_ERR_NO_MEMORY, "parquet: out of memory", NULL);
    w->out = f;
    w->sch = schema;
    if (opt != NULL)
        w->opt = *opt;
    if (w->opt.row_group_rows == 0)
        w->opt.row_group_rows = FC_PARQUET_ROW_GROUP_ROWS;
    if (w->opt.page_bytes == 0)
        w->opt.page_bytes = FC_PARQUET_PAGE_BYTES;
    schema_elem(w, "schema", -1, -1, schema->n_children, 0);
    rc = FC_OK;
    for (i = 0; i < schema->n_children && rc == FC_OK; i++) {
        const struct ArrowSchema *c = schema->children[i];
        memset(&at, 0, sizeof at);
        at.column = i;
        rc = walk_schema(w, c, c != NULL && c->name != NULL ? c->name : "", &at, 0, err);
    }
    if (rc == FC_OK && w->schema_elems.oom)
        rc = oom(w, err);
    if (rc == FC_OK)
        rc = arrow_schema_b64(w, schema, err);
    if (rc == FC_OK)
        rc = out_write(w, "PAR1", 4, err);
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
    if (!host_big_endian()) {
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

/* Values [start, start + n) of the leaf array a into the page. */
static void put_values(pq_leaf *L, const struct ArrowArray *a, int64_t start, int64_t n)
{
    int64_t i, at = a->offset + start;
    if (n <= 0)
        return;
    if (L->value == V_INT64) {
        const int64_t *v = (const int64_t *)a->buffers[1] + at;
        put_le(&L->vals, v, 8, (size_t)n);
        for (i = 0; i < n; i++) {
            if (!L->st.has || v[i] < L->st.imin)
                L->st.imin = v[i];
            if (!L->st.has || v[i] > L->st.imax)
                L->st.imax = v[i];
            L->st.has = 1;
        }
    } else if (L->value == V_FLOAT) {
        const float *v = (const float *)a->buffers[1] + at;
        put_le(&L->vals, v, 4, (size_t)n);
        for (i = 0; i < n; i++) {
            if (v[i] != v[i])
                continue; /* NaN: no order */
            if (!L->st.has || v[i] < L->st.fmin)
                L->st.fmin = v[i];
            if (!L->st.has || v[i] > L->st.fmax)
                L->st.fmax = v[i];
            L->st.has = 1;
        }
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
            th_le32(&L->vals, (uint32_t)(e - s));
            th_put(&L->vals, data + s, (size_t)(e - s));
            stat_bytes(&L->st, data + s, (size_t)(e - s));
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

/* ------------------------------------------------------------ pages */

/* Levels v[0..n) in the RLE / bit-packed hybrid of bit width width, after
 * their length (4 bytes, little-endian), as data pages v1 hold them. */
static void put_hybrid(th_buf *b, const unsigned char *v, size_t n, unsigned width)
{
    size_t at = b->n, i = 0, bytes = (width + 7) / 8;
    th_le32(b, 0);
    while (i < n) {
        size_t r = 1, start = i, groups = 0, g, k;
        while (i + r < n && v[i + r] == v[i])
            r++;
        if (r >= 8 || i + r == n) { /* a run */
            th_varint(b, (uint64_t)r << 1);
            for (k = 0; k < bytes; k++)
                th_byte(b, k == 0 ? v[i] : 0u);
            i += r;
            continue;
        }
        /* groups of 8 bit-packed, until a run of 8 starts at a group's edge */
        do {
            size_t q = 1;
            i += 8;
            groups++;
            while (i < n && i + q < n && q < 8 && v[i + q] == v[i])
                q++;
            if (i < n && q >= 8)
                break;
        } while (i < n && groups < 63);
        th_varint(b, (uint64_t)groups << 1 | 1u);
        for (g = 0; g < groups; g++) {
            unsigned char *q = th_room(b, width);
            uint64_t acc = 0;
            if (q == NULL)
                return;
            for (k = 0; k < 8; k++) {
                size_t idx = start + g * 8 + k;
                acc |= (uint64_t)(idx < n ? v[idx] : 0u) << (k * width);
            }
            for (k = 0; k < width; k++)
                q[k] = (unsigned char)(acc >> (8 * k));
            b->n += width;
        }
        if (i > n)
            i = n;
    }
    if (!b->oom) {
        size_t len = b->n - at - 4;
        b->p[at] = (unsigned char)len;
        b->p[at + 1] = (unsigned char)(len >> 8);
        b->p[at + 2] = (unsigned char)(len >> 16);
        b->p[at + 3] = (unsigned char)(len >> 24);
    }
}

static unsigned bit_width(unsigned max)
{
    unsigned w = 0;
    while (max >> w)
        w++;
    return w;
}

static int gzip_page(fc_parquet *w, const unsigned char *src, size_t n, size_t *len,
                     fc_error *err)
{
    z_stream z;
    uLong bound;
    int rc;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, w->opt.level > 0 ? w->opt.level : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                     15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return oom(w, err);
    bound = deflateBound(&z, (uLong)n) + 32;
    if (bound > w->zcap) {
        unsigned char *q = (unsigned char *)realloc(w->zbuf, bound);
        if (q == NULL) {
            deflateEnd(&z);
            return oom(w, err);
        }
        w->zbuf = q;
        w->zcap = bound;
    }
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = w->zbuf;
    z.avail_out = (uInt)w->zcap;
    rc = deflate(&z, Z_FINISH);
    *len = (size_t)z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        w->failed = 1;
        return fail(err, FC_ERR_IO, "GZIP compression failed", NULL);
    }
    return FC_OK;
}

/* The leaf's page into its chunk. */
static int flush_page(fc_parquet *w, pq_leaf *L, fc_error *err)
{
    th_buf *pg = &w->page, hdr;
    th_writer t;
    const unsigned char *body;
    size_t body_len;
    int rc;
    if (L->page_levels == 0)
        return FC_OK;
    pg->n = 0;
    if (L->max_level > 0) {
        put_hybrid(pg, L->rep.p, L->rep.n, bit_width(L->max_level));
        put_hybrid(pg, L->def.p, L->def.n, bit_width(L->max_level));
    }
    th_put(pg, L->vals.p, L->vals.n);
    if (pg->oom || L->vals.oom || L->rep.oom || L->def.oom)
        return oom(w, err);
    if (pg->n > INT32_MAX)
        return fail(err, FC_ERR_UNSUPPORTED, "a page over 2 GiB (a row too big for Parquet)",
                    NULL);
    body = pg->p;
    body_len = pg->n;
    if (w->opt.codec == FC_PARQUET_GZIP) {
        if ((rc = gzip_page(w, pg->p, pg->n, &body_len, err)) != FC_OK)
            return rc;
        body = w->zbuf;
    } else if (w->opt.codec != FC_PARQUET_UNCOMPRESSED) {
        if ((rc = w->opt.compress(w->opt.compress_ctx, w->opt.codec, pg->p, pg->n, &w->zbuf,
                                  &w->zcap, &body_len, err)) != FC_OK) {
            w->failed = 1;
            return rc;
        }
        body = w->zbuf;
    }
    if (body_len > INT32_MAX)
        return fail(err, FC_ERR_UNSUPPORTED, "a compressed page over 2 GiB", NULL);
    memset(&hdr, 0, sizeof hdr);
    th_begin(&t, &hdr);
    th_i32(&t, 1, PAGE_DATA);
    th_i32(&t, 2, (int32_t)pg->n);
    th_i32(&t, 3, (int32_t)body_len);
    th_struct(&t, 5); /* DataPageHeader */
    th_i32(&t, 1, (int32_t)L->page_levels);
    th_i32(&t, 2, ENC_PLAIN);
    th_i32(&t, 3, ENC_RLE);
    th_i32(&t, 4, ENC_RLE);
    th_end(&t);
    th_end(&t);
    th_put(&L->chunk, hdr.p, hdr.n);
    th_put(&L->chunk, body, body_len);
    L->chunk_raw += hdr.n + pg->n;
    L->chunk_levels += L->page_levels;
    rc = hdr.oom || L->chunk.oom ? oom(w, err) : FC_OK;
    th_free(&hdr);
    L->rep.n = L->def.n = L->vals.n = 0;
    L->page_levels = 0;
    return rc;
}

static unsigned char *dup_bytes(const void *p, size_t n)
{
    unsigned char *q = (unsigned char *)malloc(n > 0 ? n : 1);
    if (q != NULL && n > 0)
        memcpy(q, p, n);
    return q;
}

/* A statistic's bytes: little-endian for numbers. */
static unsigned char *stat_value(const pq_leaf *L, int max, size_t *len)
{
    unsigned char b[8];
    size_t k;
    if (L->value == V_INT64) {
        uint64_t v = (uint64_t)(max ? L->st.imax : L->st.imin);
        for (k = 0; k < 8; k++)
            b[k] = (unsigned char)(v >> (8 * k));
        *len = 8;
        return dup_bytes(b, 8);
    }
    if (L->value == V_FLOAT) {
        float f = max ? L->st.fmax : L->st.fmin;
        uint32_t v;
        if (f == 0) /* Parquet: a zero minimum is -0, a zero maximum +0 */
            f = max ? 0.0f : -0.0f;
        memcpy(&v, &f, 4);
        for (k = 0; k < 4; k++)
            b[k] = (unsigned char)(v >> (8 * k));
        *len = 4;
        return dup_bytes(b, 4);
    }
    *len = max ? L->st.bmax.n : L->st.bmin.n;
    return dup_bytes(max ? L->st.bmax.p : L->st.bmin.p, *len);
}

/* The row group into the file. */
static int flush_group(fc_parquet *w, fc_error *err)
{
    pq_group *g;
    size_t k;
    int rc;
    if (w->group_rows == 0)
        return FC_OK;
    for (k = 0; k < w->nleaves; k++)
        if ((rc = flush_page(w, &w->leaves[k], err)) != FC_OK)
            return rc;
    if (w->ngroups == w->groups_cap) {
        size_t c = w->groups_cap > 0 ? w->groups_cap * 2 : 8;
        pq_group *q = (pq_group *)realloc(w->groups, c * sizeof *q);
        if (q == NULL)
            return oom(w, err);
        w->groups = q;
        w->groups_cap = c;
    }
    g = &w->groups[w->ngroups];
    g->rows = w->group_rows;
    g->chunks = (pq_chunk *)calloc(w->nleaves > 0 ? w->nleaves : 1, sizeof *g->chunks);
    if (g->chunks == NULL)
        return oom(w, err);
    w->ngroups++;
    for (k = 0; k < w->nleaves; k++) {
        pq_leaf *L = &w->leaves[k];
        pq_chunk *c = &g->chunks[k];
        c->offset = w->pos;
        c->values = L->chunk_levels;
        c->raw = L->chunk_raw;
        c->packed = L->chunk.n;
        if (L->st.has && !L->st.too_long) {
            c->min = stat_value(L, 0, &c->min_len);
            c->max = stat_value(L, 1, &c->max_len);
            if (c->min == NULL || c->max == NULL)
                return oom(w, err);
        }
        if ((rc = out_write(w, L->chunk.p, L->chunk.n, err)) != FC_OK)
            return rc;
        L->chunk.n = 0;
        L->chunk_levels = L->chunk_raw = 0;
        L->st.has = L->st.too_long = 0;
    }
    w->group_rows = 0;
    return FC_OK;
}

/* ------------------------------------------------------------ writing */

/* FC_OK when a and its children hold no null (every field is REQUIRED);
 * their shape against the schema s. */
static int check_array(const struct ArrowArray *a, const struct ArrowSchema *s, unsigned depth,
                       fc_error *err)
{
    int64_t i;
    if (a == NULL || a->release == NULL || depth > PQ_DEPTH)
        return fail(err, FC_ERR_ARG, "an array that is not of the schema", NULL);
    if (a->null_count != 0 && (a->null_count != -1 || (a->n_buffers > 0 && a->buffers != NULL &&
                                                       a->buffers[0] != NULL)))
        return fail(err, FC_ERR_UNSUPPORTED,
                    "a null (the Parquet file's fields are required: featc writes no null)",
                    NULL);
    if (a->n_children != s->n_children || (a->n_children > 0 && a->children == NULL))
        return fail(err, FC_ERR_ARG, "an array that is not of the schema", NULL);
    for (i = 0; i < a->n_children; i++) {
        int rc = check_array(a->children[i], s->children[i], depth + 1, err);
        if (rc != FC_OK)
            return rc;
    }
    return FC_OK;
}

int fc_parquet_write(fc_parquet *w, const struct ArrowArray *batch, fc_error *err)
{
    int64_t r0 = 0, i, n;
    size_t k;
    int rc;
    if (w == NULL || batch == NULL || batch->release == NULL)
        return fail(err, FC_ERR_ARG, "no writer or a released array", NULL);
    if (w->failed)
        return fail(err, FC_ERR_ARG, "the writer failed before", NULL);
    if (batch->length < 0)
        return fail(err, FC_ERR_ARG, "an array that is not of the schema", NULL);
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
            if (L->nsteps == 0 && (L->value == V_INT64 || L->value == V_FLOAT)) {
                /* a column of numbers: the rows up to the page's end at once */
                size_t width = L->value == V_INT64 ? 8 : 4;
                for (i = r0; i < r1;) {
                    size_t left = w->opt.page_bytes > L->vals.n ? w->opt.page_bytes - L->vals.n
                                                                : 0;
                    int64_t m = (int64_t)((left + width - 1) / width);
                    if (m < 1)
                        m = 1;
                    if (m > r1 - i)
                        m = r1 - i;
                    put_levels(L, 0, 0, (size_t)m);
                    put_values(L, col, batch->offset + i, m);
                    i += m;
                    if (L->vals.n >= w->opt.page_bytes && (rc = flush_page(w, L, err)) != FC_OK) {
                        w->failed = 1;
                        return rc;
                    }
                }
            }
            for (i = L->nsteps == 0 && (L->value == V_INT64 || L->value == V_FLOAT) ? r1 : r0;
                 i < r1; i++) {
                emit(L, col, 0, batch->offset + i, 0, 0, 0);
                if (L->vals.n + L->rep.n + L->def.n >= w->opt.page_bytes &&
                    (rc = flush_page(w, L, err)) != FC_OK) {
                    w->failed = 1;
                    return rc;
                }
            }
            if (L->vals.oom || L->rep.oom || L->def.oom || L->st.bmin.oom || L->st.bmax.oom)
                return oom(w, err);
        }
        w->group_rows += (uint64_t)(r1 - r0);
        w->rows += (uint64_t)(r1 - r0);
        r0 = r1;
        if (w->group_rows == w->opt.row_group_rows && (rc = flush_group(w, err)) != FC_OK) {
            w->failed = 1;
            return rc;
        }
    }
    return FC_OK;
}

/* ------------------------------------------------------------ the footer */

static void put_footer(fc_parquet *w, th_buf *b)
{
    th_writer t;
    size_t g, k, p;
    char created[64];
    th_begin(&t, b);
    th_i32(&t, 1, 1); /* version */
    th_list(&t, 2, TH_STRUCT, w->nelems);
    th_put(b, w->schema_elems.p, w->schema_elems.n);
    th_i64(&t, 3, (int64_t)w->rows);
    th_list(&t, 4, TH_STRUCT, w->ngroups);
    for (g = 0; g < w->ngroups; g++) {
        const pq_group *G = &w->groups[g];
        uint64_t raw = 0, packed = 0;
        th_elem(&t);
        th_list(&t, 1, TH_STRUCT, w->nleaves);
        for (k = 0; k < w->nleaves; k++) {
            const pq_leaf *L = &w->leaves[k];
            const pq_chunk *c = &G->chunks[k];
            raw += c->raw;
            packed += c->packed;
            th_elem(&t); /* ColumnChunk */
            th_i64(&t, 2, (int64_t)c->offset);
            th_struct(&t, 3); /* ColumnMetaData */
            th_i32(&t, 1, L->value == V_INT64 ? PT_INT64 : L->value == V_FLOAT ? PT_FLOAT
                                                                                : PT_BYTE_ARRAY);
            th_list(&t, 2, TH_I32, L->max_level > 0 ? 2 : 1);
            th_list_i32(&t, ENC_PLAIN);
            if (L->max_level > 0)
                th_list_i32(&t, ENC_RLE);
            th_list(&t, 3, TH_BINARY, L->npath);
            for (p = 0; p < L->npath; p++)
                th_list_binary(&t, L->path[p], strlen(L->path[p]));
            th_i32(&t, 4, w->opt.codec);
            th_i64(&t, 5, (int64_t)c->values);
            th_i64(&t, 6, (int64_t)c->raw);
            th_i64(&t, 7, (int64_t)c->packed);
            th_i64(&t, 9, (int64_t)c->offset);
            th_struct(&t, 12); /* Statistics */
            th_i64(&t, 3, 0);  /* null_count */
            if (c->max != NULL) {
                th_binary(&t, 5, c->max, c->max_len);
                th_binary(&t, 6, c->min, c->min_len);
            }
            th_end(&t);
            th_end(&t);
            th_end(&t);
        }
        th_i64(&t, 2, (int64_t)raw);
        th_i64(&t, 3, (int64_t)G->rows);
        th_i64(&t, 5, (int64_t)G->chunks[0].offset);
        th_i64(&t, 6, (int64_t)packed);
        th_i16(&t, 7, (int16_t)(g < 32767 ? g : 32767)); /* ordinal */
        th_end(&t);
    }
    th_list(&t, 5, TH_STRUCT, 1); /* key_value_metadata */
    th_elem(&t);
    th_string(&t, 1, "ARROW:schema");
    th_string(&t, 2, w->arrow_schema);
    th_end(&t);
    snprintf(created, sizeof created, "featc version %s", FC_VERSION_STRING);
    th_string(&t, 6, w->opt.created_by != NULL ? w->opt.created_by : created);
    th_list(&t, 7, TH_STRUCT, w->nleaves); /* column_orders: TYPE_ORDER */
    for (k = 0; k < w->nleaves; k++) {
        th_elem(&t);
        th_struct(&t, 1);
        th_end(&t);
        th_end(&t);
    }
    th_end(&t);
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
        rc = fail(err, FC_ERR_ARG, "the writer failed before", NULL);
    if (rc == FC_OK)
        rc = flush_group(w, err);
    if (rc == FC_OK && w->ngroups > 0 && w->nleaves == 0)
        rc = fail(err, FC_ERR_UNSUPPORTED, "rows without a column (Parquet has no such table)",
                  NULL);
    if (rc == FC_OK) {
        put_footer(w, &foot);
        if (foot.oom || foot.n > UINT32_MAX)
            rc = oom(w, err);
    }
    if (rc == FC_OK)
        rc = out_write(w, foot.p, foot.n, err);
    if (rc == FC_OK) {
        th_buf tail;
        memset(&tail, 0, sizeof tail);
        th_le32(&tail, (uint32_t)foot.n);
        th_put(&tail, "PAR1", 4);
        rc = tail.oom ? oom(w, err) : out_write(w, tail.p, tail.n, err);
        th_free(&tail);
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
    th_free(&w->page);
    free(w->zbuf);
    free(w->arrow_schema);
    free(w);
    return rc;
}

uint64_t fc_parquet_bytes(const fc_parquet *w)
{
    return w->pos;
}
