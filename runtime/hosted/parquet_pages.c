/* Pages, column chunks, row groups and the footer of the Parquet writer
 * (parquet_pages.h), and the errors and output parquet_write.c shares: a
 * leaf's page (levels in the hybrid after their length, then PLAIN values
 * or dictionary indices) compressed into its chunk; a chunk's dictionary
 * page before its data pages; a row group's chunks into the file; the
 * FileMetaData. */
#include "parquet_pages.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int pq_fail(fc_error *err, int status, const char *what, const char *detail)
            {
            fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "parquet: ");
    fc_msg_str(&m, what);
    if (detail != NULL)
        fc_msg_str(&m, detail);
    return status;
}

int pq_oom(fc_parquet *w, fc_error *err)
{
    w->failed = 1;
    return pq_fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
}

int pq_out(fc_parquet *w, const void *p, size_t n, fc_error *err)
{
    if (n > 0 && fwrite(p, 1, n, w->out) != n) {
        w->failed = 1;
        return pq_fail(err, FC_ERR_IO, "write failed", NULL);
    }
    w->pos += n;
    return FC_OK;
}

/* ------------------------------------------------------------ pages */

/* Levels in the hybrid after their length (4 bytes, little-endian), as
 * data pages v1 hold them. */
static void put_levels_page(th_buf *b, const th_buf *v, unsigned max_level)
{
    size_t at = b->n, len;
    th_le32(b, 0);
    pq_hybrid(b, v->p, 0, v->n, pq_bit_width(max_level));
    if (!b->oom) {
        len = b->n - at - 4;
        b->p[at] = (unsigned char)len;
        b->p[at + 1] = (unsigned char)(len >> 8);
        b->p[at + 2] = (unsigned char)(len >> 16);
        b->p[at + 3] = (unsigned char)(len >> 24);
    }
}

static int gzip_page(fc_parquet *w, const unsigned char *src, size_t n, size_t *len,
                     fc_error *err)
{
    uLong bound;
    int rc;
    if (!w->z_ready) {
        if (deflateInit2(&w->z, w->opt.level > 0 ? w->opt.level : Z_DEFAULT_COMPRESSION,
                         Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return pq_oom(w, err);
        w->z_ready = 1;
    } else if (deflateReset(&w->z) != Z_OK) {
        return pq_oom(w, err);
    }
    bound = deflateBound(&w->z, (uLong)n) + 32;
    if (bound > w->zcap) {
        unsigned char *q = (unsigned char *)realloc(w->zbuf, bound);
        if (q == NULL)
            return pq_oom(w, err);
        w->zbuf = q;
        w->zcap = bound;
    }
    w->z.next_in = (Bytef *)(uintptr_t)src;
    w->z.avail_in = (uInt)n;
    w->z.next_out = w->zbuf;
    w->z.avail_out = (uInt)w->zcap;
    rc = deflate(&w->z, Z_FINISH);
    *len = (size_t)w->z.total_out;
    if (rc != Z_STREAM_END) {
        w->failed = 1;
        return pq_fail(err, FC_ERR_IO, "GZIP compression failed", NULL);
    }
    return FC_OK;
}

/* src[0..n), a page's bytes, compressed: *body and *body_len (src itself
 * when uncompressed). */
static int compress_page(fc_parquet *w, const unsigned char *src, size_t n,
                         const unsigned char **body, size_t *body_len, fc_error *err)
{
    int rc;
    if (n > INT32_MAX)
        return pq_fail(err, FC_ERR_UNSUPPORTED, "a page over 2 GiB (a row too big for Parquet)",
                       NULL);
    *body = src;
    *body_len = n;
    if (w->opt.codec == FC_PARQUET_GZIP) {
        if ((rc = gzip_page(w, src, n, body_len, err)) != FC_OK)
            return rc;
        *body = w->zbuf;
    } else if (w->opt.codec != FC_PARQUET_UNCOMPRESSED) {
        if ((rc = w->opt.compress(w->opt.compress_ctx, w->opt.codec, src, n, &w->zbuf,
                                  &w->zcap, body_len, err)) != FC_OK) {
            w->failed = 1;
            return rc;
        }
        *body = w->zbuf;
    }
    if (*body_len > INT32_MAX)
        return pq_fail(err, FC_ERR_UNSUPPORTED, "a compressed page over 2 GiB", NULL);
    return FC_OK;
}

/* The PageHeader, in w->hdr, of a page of raw bytes compressed to packed:
 * a data page (PAGE_DATA: its levels RLE) or a dictionary page, holding
 * count values of encoding. */
static int page_header(fc_parquet *w, int type, size_t raw, size_t packed, uint64_t count,
                       int encoding, fc_error *err)
{
    th_writer t;
    w->hdr.n = 0;
    th_begin(&t, &w->hdr);
    th_i32(&t, 1, type);
    th_i32(&t, 2, (int32_t)raw);
    th_i32(&t, 3, (int32_t)packed);
    th_struct(&t, type == PAGE_DATA ? 5 : 7); /* DataPageHeader, DictionaryPageHeader */
    th_i32(&t, 1, (int32_t)count);
    th_i32(&t, 2, encoding);
    if (type == PAGE_DATA) {
        th_i32(&t, 3, ENC_RLE); /* definition levels */
        th_i32(&t, 4, ENC_RLE); /* repetition levels */
    }
    th_end(&t);
    th_end(&t);
    return w->hdr.oom ? pq_oom(w, err) : FC_OK;
}

/* The leaf's page into its chunk: levels, then PLAIN values or, in a
 * dictionary-encoded page, the indices' bit width and their hybrid. */
int pq_flush_page(fc_parquet *w, pq_leaf *L, fc_error *err)
{
    th_buf *pg = &w->page;
    const unsigned char *body;
    size_t body_len;
    int rc, dict = L->dict_on;
    if (L->page_levels == 0)
        return FC_OK;
    pg->n = 0;
    if (L->max_level > 0) {
        put_levels_page(pg, &L->rep, L->max_level);
        put_levels_page(pg, &L->def, L->max_level);
    }
    if (dict) {
        unsigned width = pq_bit_width(L->dict.n > 0 ? L->dict.n - 1 : 0);
        if (width == 0)
            width = 1;
        th_byte(pg, width);
        pq_hybrid(pg, L->idx.p, 1, L->idx.n / 4, width);
    } else {
        th_put(pg, L->vals.p, L->vals.n);
    }
    if (pg->oom || L->vals.oom || L->rep.oom || L->def.oom)
        return pq_oom(w, err);
    if ((rc = compress_page(w, pg->p, pg->n, &body, &body_len, err)) != FC_OK ||
        (rc = page_header(w, PAGE_DATA, pg->n, body_len, L->page_levels,
                          dict ? ENC_RLE_DICTIONARY : ENC_PLAIN, err)) != FC_OK)
        return rc;
    th_put(&L->chunk, w->hdr.p, w->hdr.n);
    th_put(&L->chunk, body, body_len);
    L->chunk_raw += w->hdr.n + pg->n;
    L->chunk_levels += L->page_levels;
    rc = L->chunk.oom ? pq_oom(w, err) : FC_OK;
    L->rep.n = L->def.n = L->vals.n = L->idx.n = 0;
    L->page_levels = 0;
    if (dict)
        L->dict_used = 1;
    else
        L->plain_used = 1;
    return rc;
}

/* After a row: a dictionary that has grown past its use ends, and the
 * chunk goes on PLAIN.  When no page of it was written yet (the usual
 * case: it stops paying at its first check, past DICT_TRY values), the
 * page's indices become the values they stand for and the chunk has no
 * dictionary page, as a writer that looked at the values first would
 * write it; else the page goes out with its indices (and the dictionary
 * page before the chunk's data pages). */
int pq_dict_check(fc_parquet *w, pq_leaf *L, fc_error *err)
{
    int rc;
    if (!L->dict_on || (L->dict.values.n < DICT_MAX &&
                        (L->chunk_values < DICT_TRY || L->dict.n * 2 < L->chunk_values)))
        return FC_OK;
    if (!L->dict_used) {
        const uint32_t *idx = (const uint32_t *)(const void *)L->idx.p;
        size_t i;
        for (i = 0; i < L->idx.n / 4; i++) {
            size_t len;
            const unsigned char *v = pq_dict_plain(&L->dict, idx[i], &len);
            th_put(&L->vals, v, len);
        }
        if (L->vals.oom)
            return pq_oom(w, err);
        L->idx.n = 0;
        L->dict_on = 0;
        pq_dict_clear(&L->dict);
        return FC_OK;
    }
    if ((rc = pq_flush_page(w, L, err)) != FC_OK)
        return rc;
    L->dict_on = 0;
    return FC_OK;
}

/* The chunk's dictionary page (PLAIN values), before its data pages. */
static int put_dict_page(fc_parquet *w, pq_leaf *L, fc_error *err)
{
    const th_buf *v = &L->dict.values;
    const unsigned char *body;
    size_t body_len;
    int rc;
    if (v->oom)
        return pq_oom(w, err);
    if ((rc = compress_page(w, v->p, v->n, &body, &body_len, err)) != FC_OK ||
        (rc = page_header(w, PAGE_DICTIONARY, v->n, body_len, L->dict.n, ENC_PLAIN, err)) !=
            FC_OK ||
        (rc = pq_out(w, w->hdr.p, w->hdr.n, err)) != FC_OK ||
        (rc = pq_out(w, body, body_len, err)) != FC_OK)
        return rc;
    L->chunk_raw += w->hdr.n + v->n;
    return FC_OK;
}

static unsigned char *dup_bytes(const void *p, size_t n)
{
    unsigned char *q = (unsigned char *)malloc(n > 0 ? n : 1);
    if (q != NULL && n > 0)
        memcpy(q, p, n);
    return q;
}

int pq_dict_width(int v)
{
    return PQ_IS_BYTES(v)                     ? 0
           : v == V_INT64 || v == V_DOUBLE    ? 8
           : v == V_FLOAT16                   ? -1
                                              : 4;
}

int pq_value_type(int v)
{
    return v == V_INT64 ? PT_INT64 : v == V_FLOAT ? PT_FLOAT : v == V_DOUBLE ? PT_DOUBLE
           : v == V_FLOAT16 ? PT_FIXED : PQ_IS_BYTES(v) ? PT_BYTE_ARRAY : PT_INT32;
}

/* A statistic's bytes: little-endian for numbers (an INT32 for a typed
 * tensor's narrow integer, a float16's two bytes), a zero minimum -0 and a
 * zero maximum +0 for the floats (Parquet's rule). */
static unsigned char *stat_value(const pq_leaf *L, int max, size_t *len)
{
    unsigned char b[8];
    uint64_t v;
    size_t k;
    if (PQ_IS_BYTES(L->value)) {
        *len = max ? L->st.bmax.n : L->st.bmin.n;
        return dup_bytes(max ? L->st.bmax.p : L->st.bmin.p, *len);
    }
    if (L->value == V_FLOAT || L->value == V_DOUBLE) {
        double d = max ? L->st.fmax : L->st.fmin;
        if (d == 0)
            d = max ? 0.0 : -0.0;
        if (L->value == V_FLOAT) {
            float f = (float)d; /* (exact: it was a float) */
            uint32_t u;
            memcpy(&u, &f, 4);
            v = u;
            *len = 4;
        } else {
            memcpy(&v, &d, 8);
            *len = 8;
        }
    } else if (L->value == V_FLOAT16) {
        v = max ? L->st.hmax : L->st.hmin;
        if ((v & 0x7fffu) == 0)
            v = max ? 0u : 0x8000u;
        *len = 2;
    } else {
        v = (uint64_t)(max ? L->st.imax : L->st.imin);
        *len = L->value == V_INT64 ? 8 : 4;
    }
    for (k = 0; k < *len; k++)
        b[k] = (unsigned char)(v >> (8 * k));
    return dup_bytes(b, *len);
}

/* The row group into the file. */
int pq_flush_group(fc_parquet *w, fc_error *err)
{
    pq_group *g;
    size_t k;
    int rc;
    if (w->group_rows == 0)
        return FC_OK;
    for (k = 0; k < w->nleaves; k++)
        if ((rc = pq_flush_page(w, &w->leaves[k], err)) != FC_OK)
            return rc;
    if (w->ngroups == w->groups_cap) {
        size_t c = w->groups_cap > 0 ? w->groups_cap * 2 : 8;
        pq_group *q = (pq_group *)realloc(w->groups, c * sizeof *q);
        if (q == NULL)
            return pq_oom(w, err);
        w->groups = q;
        w->groups_cap = c;
    }
    g = &w->groups[w->ngroups];
    g->rows = w->group_rows;
    g->chunks = (pq_chunk *)calloc(w->nleaves > 0 ? w->nleaves : 1, sizeof *g->chunks);
    if (g->chunks == NULL)
        return pq_oom(w, err);
    w->ngroups++;
    for (k = 0; k < w->nleaves; k++) {
        pq_leaf *L = &w->leaves[k];
        pq_chunk *c = &g->chunks[k];
        uint64_t start = w->pos;
        c->offset = w->pos;
        if (L->dict_used && (rc = put_dict_page(w, L, err)) != FC_OK)
            return rc;
        c->data_offset = w->pos;
        c->values = L->chunk_levels;
        c->raw = L->chunk_raw;
        c->plain = L->plain_used;
        c->dict = L->dict_used;
        if (L->st.has && !L->st.too_long) {
            c->min = stat_value(L, 0, &c->min_len);
            c->max = stat_value(L, 1, &c->max_len);
            if (c->min == NULL || c->max == NULL)
                return pq_oom(w, err);
        }
        if ((rc = pq_out(w, L->chunk.p, L->chunk.n, err)) != FC_OK)
            return rc;
        c->packed = w->pos - start;
        L->chunk.n = 0;
        L->chunk_levels = L->chunk_raw = L->chunk_values = 0;
        L->st.has = L->st.too_long = 0;
        L->plain_used = L->dict_used = 0;
        L->dict_on = pq_dict_width(L->value) >= 0;
        pq_dict_clear(&L->dict);
    }
    w->group_rows = 0;
    return FC_OK;
}

/* ------------------------------------------------------------ the footer */

void pq_put_footer(fc_parquet *w, th_buf *b)
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
            th_i32(&t, 1, pq_value_type(L->value));
            th_list(&t, 2, TH_I32, (size_t)(1 + (L->max_level > 0 || c->dict) + c->dict));
            th_list_i32(&t, ENC_PLAIN); /* (a dictionary page's values are PLAIN too) */
            if (L->max_level > 0 || c->dict)
                th_list_i32(&t, ENC_RLE);
            if (c->dict)
                th_list_i32(&t, ENC_RLE_DICTIONARY);
            th_list(&t, 3, TH_BINARY, L->npath);
            for (p = 0; p < L->npath; p++)
                th_list_binary(&t, L->path[p], strlen(L->path[p]));
            th_i32(&t, 4, w->opt.codec);
            th_i64(&t, 5, (int64_t)c->values);
            th_i64(&t, 6, (int64_t)c->raw);
            th_i64(&t, 7, (int64_t)c->packed);
            th_i64(&t, 9, (int64_t)c->data_offset);
            if (c->dict)
                th_i64(&t, 11, (int64_t)c->offset);
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

void pq_pages_free(fc_parquet *w)
{
    th_free(&w->page);
    th_free(&w->hdr);
    free(w->zbuf);
    if (w->z_ready)
        deflateEnd(&w->z);
}
