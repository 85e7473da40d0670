/* A column chunk's pages read into its column's Arrow nodes (parquet_chunk.h):
 * page headers, decompression, levels, values, and the levels turned into
 * slots, validity and offsets (the record shredding of Dremel, undone).
 * Every size a header claims is checked against its column chunk, which
 * parquet_read.c checked against the file. */
#include "parquet_chunk.h"

#include "parquet_encode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pr_fail(fc_error *err, int status, const fc_parquet_reader *r, int col, uint64_t at,
            const char *what)
{
    fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, at == UINT64_MAX ? FC_NO_INDEX : at);
    fc_msg_str(&m, "parquet: ");
    if (r != NULL && col >= 0 && col < r->ncols && r->cols[col].dotted != NULL) {
        fc_msg_str(&m, "column '");
        fc_msg_mem(&m, r->cols[col].dotted, strlen(r->cols[col].dotted)); /* (escaped) */
        fc_msg_str(&m, "': ");
    }
    fc_msg_str(&m, what);
    if (at != UINT64_MAX) {
        fc_msg_str(&m, " (at byte ");
        fc_msg_u64(&m, at);
        fc_msg_str(&m, ")");
    }
    return status;
}

const char *fc_parquet_codec_name(int codec)
{
    static const char *const names[] = {"uncompressed", "snappy", "gzip", "lzo",
                                        "brotli",       "LZ4",    "zstd", "lz4_raw"};
    return codec >= 0 && codec < 8 ? names[codec] : "an unknown codec";
}

enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };

typedef struct page_hdr {
    int64_t type;
    int64_t raw, packed; /* sizes uncompressed and as stored */
    int has;             /* the header of its type was there */
    int64_t n;           /* values (levels), or dictionary entries */
    int64_t enc, def_enc, rep_enc;
    int64_t def_len, rep_len; /* version 2: the levels' bytes, never compressed */
    int compressed;           /* version 2: the values are */
} page_hdr;

static void read_header(th_reader *t, page_hdr *h)
{
    int16_t id, sub;
    unsigned type, st;
    uint32_t seen = 0;
    memset(h, 0, sizeof *h);
    h->type = -1;
    h->raw = h->packed = -1;
    h->compressed = 1;
    while (th_read_field(t, &id, &type)) {
        if (id == 1 && type == TH_I32) {
            h->type = th_read_int(t, type);
            if (!t->bad && (h->type < 0 || h->type > 3))
                th_read_fail(t, "a page type parquet.thrift does not define");
        } else if (id == 2 && type == TH_I32)
            h->raw = th_read_int(t, type);
        else if (id == 3 && type == TH_I32)
            h->packed = th_read_int(t, type);
        else if ((id == 5 && h->type == PAGE_DATA && type == TH_STRUCT) ||
                 (id == 7 && h->type == PAGE_DICT && type == TH_STRUCT) ||
                 (id == 8 && h->type == PAGE_DATA_V2 && type == TH_STRUCT)) {
            /* DataPageHeader, DictionaryPageHeader, DataPageHeaderV2: their
             * fields are required but for v2's is_compressed and statistics */
            int v2 = id == 8, dict = id == 7;
            uint32_t got = 0, want = dict ? 0x6u : v2 ? 0x7Eu : 0x1Eu;
            h->has = 1;
            h->n = -1;
            h->enc = -1;
            th_read_struct(t);
            while (th_read_field(t, &sub, &st)) {
                if (sub == 1 && st == TH_I32)
                    h->n = th_read_int(t, st);
                else if (!v2 && !dict && sub == 2 && st == TH_I32)
                    h->enc = th_read_int(t, st);
                else if (!v2 && !dict && sub == 3 && st == TH_I32)
                    h->def_enc = th_read_int(t, st);
                else if (!v2 && !dict && sub == 4 && st == TH_I32)
                    h->rep_enc = th_read_int(t, st);
                else if (dict && sub == 2 && st == TH_I32)
                    h->enc = th_read_int(t, st);
                else if (v2 && (sub == 2 || sub == 3) && st == TH_I32)
                    (void)th_read_int(t, st); /* nulls, rows: the levels say */
                else if (v2 && sub == 4 && st == TH_I32)
                    h->enc = th_read_int(t, st);
                else if (v2 && sub == 5 && st == TH_I32)
                    h->def_len = th_read_int(t, st);
                else if (v2 && sub == 6 && st == TH_I32)
                    h->rep_len = th_read_int(t, st);
                else if (v2 && sub == 7 && (st == TH_TRUE || st == TH_FALSE))
                    h->compressed = st == TH_TRUE;
                else {
                    th_skip(t, st, 0);
                    continue;
                }
                got |= TH_FIELD(sub);
            }
            th_read_need(t, got, want, "a page header without a field parquet.thrift requires");
        } else {
            th_skip(t, type, 0);
            continue;
        }
        seen |= TH_FIELD(id);
    }
    th_read_need(t, seen, TH_FIELD(1) | TH_FIELD(2) | TH_FIELD(3),
                 "a page header without its type or sizes");
    if (!t->bad && h->has && (!pq_encoding_known(h->enc) || !pq_encoding_known(h->def_enc) ||
                              !pq_encoding_known(h->rep_enc)))
        th_read_fail(t, "a page header naming an encoding parquet.thrift does not define");
}

/* b emptied, with room for k bytes: its bytes, or NULL (out of memory). */
static void *room(th_buf *b, size_t k)
{
    b->n = 0;
    return th_room(b, k > 0 ? k : 1);
}

static int oom(fc_error *err, const fc_parquet_reader *r, int c)
{
    return pr_fail(err, FC_ERR_NO_MEMORY, r, c, UINT64_MAX, "out of memory");
}

/* A page's body [src, src + n) decompressed into raw bytes: *out a view of
 * src (uncompressed) or into's bytes. */
static int unpack(fc_parquet_reader *r, int c, int codec, const unsigned char *src, size_t n,
                  size_t raw, th_buf *into, const unsigned char **out, uint64_t at,
                  fc_error *err)
{
    unsigned char *dst;
    int zs;
    if (codec == FC_PARQUET_UNCOMPRESSED) {
        if (n != raw)
            return pr_fail(err, FC_ERR_PARSE, r, c, at,
                           "an uncompressed page whose two sizes differ");
        *out = src;
        return FC_OK;
    }
    if ((dst = (unsigned char *)room(into, raw)) == NULL)
        return oom(err, r, c);
    *out = dst;
    if (codec != FC_PARQUET_GZIP) {
        fc_error e2;
        char what[sizeof e2.message + 100];
        if (r->opt.decompress == NULL) {
            snprintf(what, sizeof what, "pages compressed with %s, which this reader was "
                                        "given no decompressor for", fc_parquet_codec_name(codec));
            return pr_fail(err, FC_ERR_UNSUPPORTED, r, c, at, what);
        }
        fc_error_clear(&e2);
        if (r->opt.decompress(r->s->dctx, codec, src, n, dst, raw, &e2) != FC_OK) {
            snprintf(what, sizeof what, "a page that does not decompress (%s): %s",
                     fc_parquet_codec_name(codec), e2.message);
            return pr_fail(err, e2.status == FC_ERR_UNSUPPORTED ? FC_ERR_UNSUPPORTED : FC_ERR_PARSE,
                           r, c, at, what);
        }
        return FC_OK;
    }
    if (n > UINT32_MAX || raw > UINT32_MAX)
        return pr_fail(err, FC_ERR_PARSE, r, c, at, "a GZIP page past 4 GiB");
    if (!r->s->z_open) {
        memset(&r->s->z, 0, sizeof r->s->z);
        if (inflateInit2(&r->s->z, 15 + 32) != Z_OK)
            return oom(err, r, c);
        r->s->z_open = 1;
    } else if (inflateReset(&r->s->z) != Z_OK)
        return oom(err, r, c);
    r->s->z.next_in = (Bytef *)(uintptr_t)src;
    r->s->z.avail_in = (uInt)n;
    r->s->z.next_out = dst;
    r->s->z.avail_out = (uInt)raw;
    zs = inflate(&r->s->z, Z_FINISH);
    if (zs == Z_MEM_ERROR)
        return oom(err, r, c);
    if (zs != Z_STREAM_END || r->s->z.total_out != raw)
        return pr_fail(err, FC_ERR_PARSE, r, c, at,
                       "a GZIP page that does not inflate to the size its header says");
    return FC_OK;
}

/* n levels of at most max from [p, p + len) (a version 1 page's: after a
 * 4-byte length, *used the bytes read), into out. */
static const char *levels(const unsigned char *p, size_t len, int v1, int max, uint32_t *out,
                          size_t n, size_t *used)
{
    size_t k, i;
    const char *why;
    if (v1) {
        if (len < 4)
            return "a page's levels end early";
        k = pq_le32(p);
        if (k > len - 4)
            return "levels longer than their page";
        p += 4;
        *used = 4 + k;
        len = k;
    } else
        *used = len;
    if ((why = pq_unhybrid(p, len, pq_bit_width((uint32_t)max), out, n)) != NULL)
        return why;
    for (i = 0; i < n; i++)
        if (out[i] > (uint32_t)max)
            return "a level past the column's maximum";
    return NULL;
}

/* nn values of column c in encoding enc from [q, q + qn) into r->s->tmp: fixed
 * values of the column's width, or pq_views. */
static int values(fc_parquet_reader *r, int c, int enc, const unsigned char *q, size_t qn,
                  size_t nn, uint64_t at, fc_error *err)
{
    const pr_col *col = &r->cols[c];
    size_t w = col->width > 0 ? col->width : sizeof(pq_view), used, i;
    const char *why = NULL;
    void *out;
    if (nn > SIZE_MAX / 16 || (out = room(&r->s->tmp, nn * w)) == NULL)
        return oom(err, r, c);
    switch (enc) {
    case PQ_PLAIN:
        why = col->type == PQ_BYTE_ARRAY
                  ? pq_plain_bytes(q, qn, (pq_view *)out, nn, &used)
                  : pq_plain_fixed(q, qn, col->type, col->type_length, out, nn, &used);
        break;
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY: {
        uint32_t *idx;
        if (!r->s->has_dict)
            return pr_fail(err, FC_ERR_PARSE, r, c, at,
                           "a dictionary-encoded page without a dictionary page before it");
        if (qn < 1)
            return pr_fail(err, FC_ERR_PARSE, r, c, at, "a dictionary-encoded page ends early");
        if ((idx = (uint32_t *)room(&r->s->scratch, nn * 4)) == NULL)
            return oom(err, r, c);
        if ((why = pq_unhybrid(q + 1, qn - 1, q[0], idx, nn)) != NULL)
            break;
        for (i = 0; i < nn; i++)
            if (idx[i] >= r->s->dict_n)
                return pr_fail(err, FC_ERR_PARSE, r, c, at,
                               "a dictionary index past the dictionary's entries");
        /* the gather, typed (a memcpy call per value cost 6% of a convert) */
        if (w == sizeof(pq_view)) {
            const pq_view *d = (const pq_view *)(const void *)r->s->dict.p;
            for (i = 0; i < nn; i++)
                ((pq_view *)out)[i] = d[idx[i]];
        } else if (w == 8) {
            const uint64_t *d = (const uint64_t *)(const void *)r->s->dict.p;
            for (i = 0; i < nn; i++)
                ((uint64_t *)out)[i] = d[idx[i]];
        } else if (w == 4) {
            const uint32_t *d = (const uint32_t *)(const void *)r->s->dict.p;
            for (i = 0; i < nn; i++)
                ((uint32_t *)out)[i] = d[idx[i]];
        } else {
            for (i = 0; i < nn; i++)
                ((unsigned char *)out)[i] = r->s->dict.p[idx[i]];
        }
        break;
    }
    case PQ_RLE: {
        uint32_t *bits;
        if (col->type != PQ_BOOLEAN)
            goto unsupported;
        if ((bits = (uint32_t *)room(&r->s->scratch, nn * 4)) == NULL)
            return oom(err, r, c);
        if ((why = levels(q, qn, 1, 1, bits, nn, &used)) != NULL)
            break;
        for (i = 0; i < nn; i++)
            ((unsigned char *)out)[i] = (unsigned char)bits[i];
        break;
    }
    case PQ_DELTA_BINARY_PACKED:
        if (col->type != PQ_INT32 && col->type != PQ_INT64)
            goto unsupported;
        why = pq_delta_ints(q, qn, col->type == PQ_INT64, out, nn, &used);
        break;
    case PQ_DELTA_LENGTH_BYTE_ARRAY: {
        int64_t *lens;
        if (col->type != PQ_BYTE_ARRAY)
            goto unsupported;
        if ((lens = (int64_t *)room(&r->s->scratch, nn * 8)) == NULL)
            return oom(err, r, c);
        why = pq_delta_length(q, qn, (pq_view *)out, lens, nn, &used);
        break;
    }
    case PQ_DELTA_BYTE_ARRAY: {
        int64_t *lens;
        size_t need = 0;
        unsigned char *b;
        if (col->type != PQ_BYTE_ARRAY && col->type != PQ_FIXED)
            goto unsupported;
        if ((lens = (int64_t *)room(&r->s->scratch, nn * 16)) == NULL)
            return oom(err, r, c);
        why = pq_delta_bytes(q, qn, (pq_view *)out, lens, nn, NULL, &need, r->opt.max_bytes);
        if (why != NULL)
            break;
        if ((b = (unsigned char *)room(&r->s->built, need)) == NULL)
            return oom(err, r, c);
        why = pq_delta_bytes(q, qn, (pq_view *)out, lens, nn, b, &need, r->opt.max_bytes);
        for (i = 0; why == NULL && col->type == PQ_FIXED && i < nn; i++)
            if (((pq_view *)out)[i].n != col->type_length)
                why = "a DELTA_BYTE_ARRAY value of another length than the column's";
        break;
    }
    case PQ_BYTE_STREAM_SPLIT:
        if (col->type == PQ_FIXED) {
            unsigned char *b;
            if (col->type_length == 0 || nn > SIZE_MAX / col->type_length ||
                (b = (unsigned char *)room(&r->s->built, nn * col->type_length)) == NULL)
                return oom(err, r, c);
            why = pq_stream_split(q, qn, col->type_length, b, nn);
            for (i = 0; why == NULL && i < nn; i++) {
                ((pq_view *)out)[i].p = b + i * col->type_length;
                ((pq_view *)out)[i].n = col->type_length;
            }
        } else if (col->type == PQ_BOOLEAN || col->type == PQ_BYTE_ARRAY) {
            goto unsupported;
        } else
            why = pq_stream_split(q, qn, col->width, out, nn);
        break;
    default:
        goto unsupported;
    }
    if (why != NULL)
        return pr_fail(err, FC_ERR_PARSE, r, c, at, why);
    return FC_OK;
unsupported : {
    char what[120];
    snprintf(what, sizeof what, "encoding %d for a column of physical type %d, which this "
                                "reader does not read", enc, col->type);
    return pr_fail(err, FC_ERR_UNSUPPORTED, r, c, at, what);
}
}

/* The dictionary page of column c. */
static int dict_page(fc_parquet_reader *r, int c, const pr_chunk *ch, const page_hdr *h,
                     uint64_t body, fc_error *err)
{
    const pr_col *col = &r->cols[c];
    size_t w = col->width > 0 ? col->width : sizeof(pq_view), used;
    const unsigned char *q;
    const char *why;
    void *out;
    int s;
    if (h->enc != PQ_PLAIN && h->enc != PQ_PLAIN_DICTIONARY)
        return pr_fail(err, FC_ERR_UNSUPPORTED, r, c, body,
                       "a dictionary page in an encoding other than PLAIN");
    if (h->n < 0 || (uint64_t)h->n > (uint64_t)h->raw * 8 + 8)
        return pr_fail(err, FC_ERR_PARSE, r, c, body,
                       "a dictionary page with more entries than its bytes hold");
    if ((s = unpack(r, c, ch->codec, r->data + body, (size_t)h->packed, (size_t)h->raw,
                    &r->s->dict_page, &q, body, err)) != FC_OK)
        return s;
    if ((out = room(&r->s->dict, (size_t)h->n * w)) == NULL)
        return oom(err, r, c);
    why = col->type == PQ_BYTE_ARRAY
              ? pq_plain_bytes(q, (size_t)h->raw, (pq_view *)out, (size_t)h->n, &used)
              : pq_plain_fixed(q, (size_t)h->raw, col->type, col->type_length, out,
                               (size_t)h->n, &used);
    if (why != NULL)
        return pr_fail(err, FC_ERR_PARSE, r, c, body, why);
    r->s->dict_n = (size_t)h->n;
    r->s->has_dict = 1;
    return FC_OK;
}

/* Room for n more slots at every node column c builds (from: the first of
 * its path it owns), its nn values' bytes included: 1, 0 when out of
 * memory, -1 past the reader's limit.  The slots are then written in
 * place. */
static int reserve(fc_parquet_reader *r, const pr_col *col, int from, size_t n, size_t nn)
{
    size_t bytes = 0, i;
    int q;
    if (col->width == 0 && !col->half)
        for (i = 0; i < nn; i++)
            bytes += ((const pq_view *)(const void *)r->s->tmp.p)[i].n;
    for (q = from; q < col->npath; q++) {
        pr_node *nd = &r->nodes[col->path[q]];
        if (nd->nullable && th_room(&nd->valid, n) == NULL)
            return 0;
        if ((nd->kind == N_LIST || (nd->kind == N_LEAF && col->width == 0 && !col->half)) &&
            th_room(&nd->off, n * 8) == NULL)
            return 0;
        if (nd->kind == N_LEAF) {
            size_t more = col->half ? n * 2 : col->width > 0 ? n * col->width : bytes;
            if (more > r->opt.max_bytes || nd->vals.n > r->opt.max_bytes - more)
                return -1;
            if (th_room(&nd->vals, more) == NULL)
                return 0;
        }
    }
    return 1;
}

/* Appends a slot's value to the leaf (v NULL: a null's), room reserved. */
static void put_value(pr_node *n, const pr_col *col, const unsigned char *v)
{
    unsigned char *d = n->vals.p + n->vals.n;
    if (col->half) { /* a FLOAT16's two little-endian bytes (a view of them) */
        const unsigned char *x = v != NULL ? ((const pq_view *)(const void *)v)->p : NULL;
        uint16_t h = x != NULL ? (uint16_t)(x[0] | x[1] << 8) : 0;
        memcpy(d, &h, 2);
        n->vals.n += 2;
        return;
    }
    switch (col->width) {
    case 0: {
        int64_t start = (int64_t)n->vals.n;
        memcpy(n->off.p + n->off.n, &start, 8);
        n->off.n += 8;
        if (v != NULL && ((const pq_view *)(const void *)v)->n > 0) {
            const pq_view *x = (const pq_view *)(const void *)v;
            memcpy(d, x->p, x->n);
            n->vals.n += x->n;
        }
        return;
    }
    case 1: *d = v != NULL ? *v : 0; break;
    case 4: if (v != NULL) memcpy(d, v, 4); else memset(d, 0, 4); break;
    default: if (v != NULL) memcpy(d, v, 8); else memset(d, 0, 8); break;
    }
    n->vals.n += col->width;
}

/* The levels of n values (rep, def NULL when the column has none) and the
 * nn values in r->s->tmp into the slots of column c's nodes. */
static int assemble(fc_parquet_reader *r, int c, const uint32_t *rep, const uint32_t *def,
                    size_t n, size_t nn, uint64_t at, fc_error *err)
{
    const pr_col *col = &r->cols[c];
    size_t w = col->width > 0 ? col->width : sizeof(pq_view), i, vi = 0;
    int from = 0, q;
    while (from < col->npath && r->nodes[col->path[from]].owner != c)
        from++;
    if ((q = reserve(r, col, from, n, nn)) != 1)
        return q < 0 ? pr_fail(err, FC_ERR_PARSE, r, c, at,
                               "a column chunk past the reader's limit on its bytes")
                     : oom(err, r, c);
    if (rep == NULL && def == NULL && col->npath == 1 && col->width > 0) {
        /* a required top-level value: the values as they are */
        pr_node *nd = &r->nodes[col->node];
        if (nn > 0)
            memcpy(nd->vals.p + nd->vals.n, r->s->tmp.p, nn * col->width);
        nd->vals.n += nn * col->width;
        nd->len += n;
        return FC_OK;
    }
    for (i = 0; i < n; i++) {
        int rl = rep != NULL ? (int)rep[i] : 0, dl = def != NULL ? (int)def[i] : col->max_def;
        /* a repetition goes on a list whose element the last value was in,
         * with another element */
        if (rl > 0 && (r->s->prev_dl < col->rep_def[rl] || dl < col->rep_def[rl]))
            return pr_fail(err, FC_ERR_PARSE, r, c, at,
                           "levels that repeat a list holding no element there");
        r->s->prev_dl = dl;
        for (q = 0; q < col->npath; q++) {
            pr_node *nd = &r->nodes[col->path[q]];
            int valid;
            if (dl < nd->def_slot)
                break;
            if (rl > nd->lists || q < from)
                continue;
            valid = dl >= nd->def_valid;
            if (nd->nullable)
                nd->valid.p[nd->valid.n++] = (unsigned char)valid;
            nd->nulls += !valid;
            if (nd->kind == N_LIST) {
                int64_t start = (int64_t)r->nodes[col->path[q + 1]].len;
                memcpy(nd->off.p + nd->off.n, &start, 8);
                nd->off.n += 8;
            } else if (nd->kind == N_LEAF) {
                if (valid && vi >= nn)
                    return pr_fail(err, FC_ERR_PARSE, r, c, at, "fewer values than levels say");
                put_value(nd, col, valid ? r->s->tmp.p + w * vi++ : NULL);
            }
            nd->len++;
        }
    }
    return FC_OK;
}

/* A data page (version 1 or 2) of column c. */
static int data_page(fc_parquet_reader *r, int c, const pr_chunk *ch, const page_hdr *h,
                     uint64_t body, int first, fc_error *err)
{
    const pr_col *col = &r->cols[c];
    const unsigned char *src = r->data + body, *q;
    size_t n = (size_t)h->n, qn, used, nn = n, i;
    uint32_t *rep = NULL, *def = NULL;
    const char *why = NULL;
    int s;
    if (n > SIZE_MAX / 8 || (rep = (uint32_t *)room(&r->s->lev, 2 * n * sizeof *rep)) == NULL)
        return oom(err, r, c);
    def = rep + n;
    if (h->type == PAGE_DATA) {
        if ((s = unpack(r, c, ch->codec, src, (size_t)h->packed, (size_t)h->raw, &r->s->page, &q,
                        body, err)) != FC_OK)
            return s;
        qn = (size_t)h->raw;
        if (col->max_rep > 0 || col->max_def > 0) {
            if ((col->max_rep > 0 && h->rep_enc != PQ_RLE) ||
                (col->max_def > 0 && h->def_enc != PQ_RLE))
                return pr_fail(err, FC_ERR_UNSUPPORTED, r, c, body,
                               "levels in an encoding other than RLE (BIT_PACKED is "
                               "deprecated and not read)");
        }
        if (col->max_rep > 0) {
            if ((why = levels(q, qn, 1, col->max_rep, rep, n, &used)) != NULL)
                goto bad;
            q += used;
            qn -= used;
        }
        if (col->max_def > 0) {
            if ((why = levels(q, qn, 1, col->max_def, def, n, &used)) != NULL)
                goto bad;
            q += used;
            qn -= used;
        }
    } else {
        uint64_t lv;
        if (h->rep_len < 0 || h->def_len < 0 ||
            (uint64_t)h->rep_len > (uint64_t)h->packed - (uint64_t)h->def_len ||
            h->def_len > h->packed || h->rep_len + h->def_len > h->raw)
            return pr_fail(err, FC_ERR_PARSE, r, c, body,
                           "a version 2 page whose levels are longer than the page");
        lv = (uint64_t)(h->rep_len + h->def_len);
        if (col->max_rep > 0 &&
            (why = levels(src, (size_t)h->rep_len, 0, col->max_rep, rep, n, &used)) != NULL)
            goto bad;
        if (col->max_def > 0 && (why = levels(src + h->rep_len, (size_t)h->def_len, 0,
                                              col->max_def, def, n, &used)) != NULL)
            goto bad;
        if ((s = unpack(r, c, h->compressed ? ch->codec : FC_PARQUET_UNCOMPRESSED, src + lv,
                        (size_t)((uint64_t)h->packed - lv), (size_t)((uint64_t)h->raw - lv),
                        &r->s->page, &q, body, err)) != FC_OK)
            return s;
        qn = (size_t)((uint64_t)h->raw - lv);
    }
    if (col->max_rep == 0)
        rep = NULL;
    else if (first && n > 0 && rep[0] != 0)
        return pr_fail(err, FC_ERR_PARSE, r, c, body,
                       "a column chunk that starts inside a row (repetition level not 0)");
    if (col->max_def == 0)
        def = NULL;
    else
        for (i = 0, nn = 0; i < n; i++)
            nn += def[i] == (uint32_t)col->max_def;
    if ((s = values(r, c, (int)h->enc, q, qn, nn, body, err)) != FC_OK)
        return s;
    return assemble(r, c, rep, def, n, nn, body, err);
bad:
    return pr_fail(err, FC_ERR_PARSE, r, c, body, why);
}

/* A top-level column's buffers for all of a chunk's values, taken in one
 * step: grown by doubling in malloc's 4 KiB pages, a tutorial convert from
 * DuckDB's file first touched them a page at a time.  The footer's count
 * is a claim, so this is a hint, at most 64 bytes for each byte of the
 * chunk and RESERVE_MAX (untouched memory, in a hostile file's worst
 * case), past which the buffers grow as they must. */
#define RESERVE_MAX ((size_t)64 << 20)

static void reserve_chunk(fc_parquet_reader *r, const pr_col *col, const pr_chunk *ch)
{
    pr_node *nd = &r->nodes[col->node];
    size_t n = (size_t)ch->values, w = col->half ? 2 : col->width > 0 ? col->width : 8;
    if (col->npath != 1 || col->max_rep > 0 || ch->values <= 0 || n > RESERVE_MAX / w ||
        (uint64_t)n * w > (uint64_t)ch->size * 64)
        return;
    if (nd->nullable)
        (void)th_reserve(&nd->valid, n);
    (void)th_reserve(col->width > 0 || col->half ? &nd->vals : &nd->off, n * w);
}

int pr_read_chunk(fc_parquet_reader *r, const pr_group *g, int c, fc_error *err)
{
    const pr_chunk *ch = &g->chunks[c];
    const pr_col *col = &r->cols[c];
    uint64_t start, end, p;
    int64_t seen = 0;
    int first = 1, s;
    if (ch->type != col->type)
        return pr_fail(err, FC_ERR_PARSE, r, c, ch->at,
                       "a column chunk whose type is not the schema's");
    if (ch->values < 0 || (uint64_t)ch->values > r->opt.max_bytes / 8)
        return pr_fail(err, FC_ERR_PARSE, r, c, ch->at,
                       "a column chunk of more values than the reader's limit allows");
    start = (uint64_t)ch->data_off;
    if (ch->dict_off > 0 && ch->dict_off < ch->data_off)
        start = (uint64_t)ch->dict_off;
    if (ch->data_off < 4 || ch->size < 0 || start > r->data_end ||
        (uint64_t)ch->size > r->data_end - start)
        return pr_fail(err, FC_ERR_PARSE, r, c, ch->at,
                       "a column chunk outside the file's data (before its footer)");
    end = start + (uint64_t)ch->size;
    r->s->has_dict = 0;
    r->s->dict_n = 0;
    r->s->prev_dl = -1;
    reserve_chunk(r, col, ch);
    for (p = start; seen < ch->values;) {
        th_reader t;
        page_hdr h;
        uint64_t body;
        if (p >= end) {
            char what[120];
            snprintf(what, sizeof what, "the column chunk ends after %lld of its %lld values",
                     (long long)seen, (long long)ch->values);
            return pr_fail(err, FC_ERR_PARSE, r, c, p, what);
        }
        th_read_begin(&t, r->data + p, (size_t)(end - p), p);
        read_header(&t, &h);
        if (t.bad)
            return pr_fail(err, FC_ERR_PARSE, r, c, t.bad_at, t.why);
        body = th_read_offset(&t);
        if ((uint64_t)h.packed > end - body)
            return pr_fail(err, FC_ERR_PARSE, r, c, p, "a page larger than its column chunk");
        if ((uint64_t)h.raw > r->opt.max_bytes)
            return pr_fail(err, FC_ERR_PARSE, r, c, p,
                           "a page larger than the reader's limit on a column's bytes");
        if (h.type == PAGE_DICT) {
            if (!h.has)
                return pr_fail(err, FC_ERR_PARSE, r, c, p, "a dictionary page without its header");
            if (seen > 0 || r->s->has_dict)
                return pr_fail(err, FC_ERR_PARSE, r, c, p,
                               "a dictionary page after the chunk's first");
            if ((s = dict_page(r, c, ch, &h, body, err)) != FC_OK)
                return s;
        } else if (h.type == PAGE_DATA || h.type == PAGE_DATA_V2) {
            if (!h.has)
                return pr_fail(err, FC_ERR_PARSE, r, c, p, "a data page without its header");
            if (h.n < 0 || h.n > ch->values - seen)
                return pr_fail(err, FC_ERR_PARSE, r, c, p,
                               "a page of more values than its column chunk has left");
            if ((s = data_page(r, c, ch, &h, body, first, err)) != FC_OK)
                return s;
            seen += h.n;
            first = first && h.n == 0;
        }
        /* (index pages, and types to come, are skipped) */
        p = body + (uint64_t)h.packed;
    }
    if (p > r->s->reached)
        r->s->reached = p;
    return FC_OK;
}
