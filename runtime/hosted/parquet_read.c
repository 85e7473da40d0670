/* Parquet files read into Arrow arrays (fc_parquet.h): the footer, the
 * schema as Arrow nodes, the API and the arrays handed out; a column
 * chunk's pages are parquet_chunk.c's. */
#include "parquet_chunk.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the footer */

/* A schema element as the footer gives it. */
typedef struct selem {
    int type, rep, nkids, converted, logical;
    int64_t type_length;
    int int_bits, int_signed;
    const unsigned char *name;
    size_t name_len;
    uint64_t at;
} selem;

/* An enum's value within [lo, hi], else a failure naming it. */
static int64_t enum_in(th_reader *t, unsigned type, int64_t lo, int64_t hi, const char *what)
{
    int64_t v = th_read_int(t, type);
    if (!t->bad && (v < lo || v > hi))
        th_read_fail(t, what);
    return v;
}

/* A list of KeyValue (key required, value optional): read and checked, not kept. */
static void read_key_values(th_reader *t)
{
    unsigned elem, type;
    size_t n = th_read_list(t, &elem), k;
    int16_t id;
    if (elem != TH_STRUCT && n > 0)
        th_read_fail(t, "key-value metadata that is not a list of structs");
    for (k = 0; k < n && !t->bad; k++) {
        uint32_t seen = 0;
        size_t len;
        th_read_struct(t);
        while (th_read_field(t, &id, &type)) {
            if ((id == 1 || id == 2) && type == TH_BINARY) {
                (void)th_read_binary(t, &len);
                seen |= TH_FIELD(id);
            } else
                th_skip(t, type, 0);
        }
        th_read_need(t, seen, TH_FIELD(1), "a key-value pair without its key");
    }
}

static void read_logical(th_reader *t, selem *e)
{
    int16_t id, sub;
    unsigned type, st;
    th_read_struct(t);
    while (th_read_field(t, &id, &type)) {
        uint32_t seen = 0;
        if (type != TH_STRUCT) {
            th_skip(t, type, 0);
            continue;
        }
        e->logical = id;
        th_read_struct(t);
        while (th_read_field(t, &sub, &st)) {
            if (id == 10 && sub == 1 && st == TH_I8) {
                e->int_bits = (int)th_read_int(t, st);
                seen |= TH_FIELD(1);
            } else if (id == 10 && sub == 2 && (st == TH_TRUE || st == TH_FALSE)) {
                e->int_signed = st == TH_TRUE;
                seen |= TH_FIELD(2);
            } else
                th_skip(t, st, 0);
        }
        if (id == 10) {
            th_read_need(t, seen, TH_FIELD(1) | TH_FIELD(2),
                         "an INTEGER logical type without its width or sign");
            if (!t->bad && e->int_bits != 8 && e->int_bits != 16 && e->int_bits != 32 &&
                e->int_bits != 64)
                th_read_fail(t, "an INTEGER logical type of a width other than 8, 16, 32, 64");
        }
    }
}

static void read_selem(th_reader *t, selem *e)
{
    int16_t id;
    unsigned type;
    uint32_t seen = 0;
    memset(e, 0, sizeof *e);
    e->type = e->rep = e->nkids = e->converted = e->logical = -1;
    e->at = th_read_offset(t);
    e->int_signed = 1;
    th_read_struct(t);
    while (th_read_field(t, &id, &type)) {
        if (id == 1 && type == TH_I32)
            e->type = (int)enum_in(t, type, 0, 7, "a physical type parquet.thrift does not "
                                                  "define");
        else if (id == 2 && type == TH_I32)
            e->type_length = th_read_int(t, type);
        else if (id == 3 && type == TH_I32)
            e->rep = (int)enum_in(t, type, 0, 2, "a repetition parquet.thrift does not define");
        else if (id == 4 && type == TH_BINARY) {
            e->name = th_read_binary(t, &e->name_len);
            seen |= TH_FIELD(4);
        } else if (id == 5 && type == TH_I32)
            e->nkids = (int)th_read_int(t, type);
        else if (id == 6 && type == TH_I32)
            e->converted = (int)enum_in(t, type, 0, 21, "a converted type parquet.thrift does "
                                                        "not define");
        else if (id == 10 && type == TH_STRUCT)
            read_logical(t, e);
        else
            th_skip(t, type, 0);
    }
    th_read_need(t, seen, TH_FIELD(4), "a schema element without its name");
}

/* A chunk's path_in_schema is its column's path (c's names). */
static void check_path(th_reader *t, const pr_col *c)
{
    unsigned elem;
    size_t n = th_read_list(t, &elem), k, at = 0;
    int same = elem == TH_BINARY || n == 0;
    for (k = 0; k < n && !t->bad; k++) {
        size_t len;
        const unsigned char *p = th_read_binary(t, &len);
        if (!same || t->bad)
            continue;
        same = at + 4 <= c->names_len &&
               len == ((size_t)c->names[at] | (size_t)c->names[at + 1] << 8 |
                       (size_t)c->names[at + 2] << 16 | (size_t)c->names[at + 3] << 24) &&
               len <= c->names_len - at - 4 && (len == 0 || memcmp(c->names + at + 4, p, len) == 0);
        at += 4 + len;
    }
    if (!t->bad && (!same || at != c->names_len))
        th_read_fail(t, "a column chunk whose path_in_schema is not its column's");
}

/* A chunk's statistics: a minimum or maximum of a fixed-width type is
 * that wide (DuckDB refuses other sizes). */
static void read_stats(th_reader *t, const pr_col *c)
{
    int16_t id;
    unsigned type;
    size_t w = c->type == PQ_BOOLEAN ? 1 : c->type == PQ_INT32 || c->type == PQ_FLOAT ? 4
               : c->type == PQ_INT64 || c->type == PQ_DOUBLE ? 8 : c->type == PQ_INT96 ? 12
               : c->type == PQ_FIXED ? c->type_length : 0;
    th_read_struct(t);
    while (th_read_field(t, &id, &type)) {
        size_t len;
        if ((id == 1 || id == 2 || id == 5 || id == 6) && type == TH_BINARY) {
            (void)th_read_binary(t, &len);
            if (!t->bad && w > 0 && len != w)
                th_read_fail(t, "column statistics of another size than the column's type");
        } else
            th_skip(t, type, 0);
    }
}

static void read_meta(th_reader *t, pr_chunk *ch, const pr_col *c)
{
    int16_t id;
    unsigned type;
    uint32_t seen = 0;
    th_read_struct(t);
    while (th_read_field(t, &id, &type)) {
        if (id == 3 && type == TH_LIST) {
            check_path(t, c);
            seen |= TH_FIELD(3);
            continue;
        }
        if (id == 1 && type == TH_I32)
            ch->type = (int)enum_in(t, type, 0, 7, "a physical type parquet.thrift does not "
                                                   "define");
        else if (id == 2 && type == TH_LIST) {
            unsigned elem;
            size_t n = th_read_list(t, &elem), k;
            if (elem != TH_I32 && n > 0)
                th_read_fail(t, "a column chunk's encodings that are not a list of numbers");
            for (k = 0; k < n && !t->bad; k++)
                if (!pq_encoding_known(th_read_int(t, TH_I32)))
                    th_read_fail(t, "a column chunk naming an encoding parquet.thrift does not "
                                    "define");
        } else if (id == 4 && type == TH_I32)
            ch->codec = (int)enum_in(t, type, 0, 7, "a codec parquet.thrift does not define");
        else if (id == 5 && type == TH_I64)
            ch->values = th_read_int(t, type);
        else if (id == 6 && type == TH_I64)
            (void)th_read_int(t, type);
        else if (id == 7 && type == TH_I64)
            ch->size = th_read_int(t, type);
        else if (id == 8 && type == TH_LIST)
            read_key_values(t);
        else if (id == 9 && type == TH_I64)
            ch->data_off = th_read_int(t, type);
        else if (id == 11 && type == TH_I64)
            ch->dict_off = th_read_int(t, type);
        else if (id == 12 && type == TH_STRUCT)
            read_stats(t, c);
        else {
            th_skip(t, type, 0);
            continue;
        }
        seen |= TH_FIELD(id);
    }
    th_read_need(t, seen,
                 TH_FIELD(1) | TH_FIELD(2) | TH_FIELD(3) | TH_FIELD(4) | TH_FIELD(5) | TH_FIELD(6) |
                     TH_FIELD(7) | TH_FIELD(9),
                 "a column chunk's metadata without a field parquet.thrift requires");
}

static void read_group(th_reader *t, pr_group *g, const pr_col *cols, int ncols)
{
    int16_t id, sub;
    unsigned type, st, elem;
    size_t n, k;
    uint32_t seen = 0;
    g->rows = -1;
    g->at = th_read_offset(t);
    th_read_struct(t);
    while (th_read_field(t, &id, &type)) {
        if (id == 1 && type == TH_LIST && g->chunks == NULL) {
            seen |= TH_FIELD(1);
            n = th_read_list(t, &elem);
            if (t->bad)
                return;
            if (elem != TH_STRUCT || n != (size_t)ncols) {
                th_read_fail(t, "a row group whose columns are not the schema's");
                return;
            }
            g->chunks = (pr_chunk *)calloc(n + 1, sizeof *g->chunks);
            if (g->chunks == NULL) {
                th_read_fail(t, "out of memory");
                return;
            }
            for (k = 0; k < n && !t->bad; k++) {
                pr_chunk *ch = &g->chunks[k];
                int has = 0, offset = 0;
                ch->type = ch->codec = -1;
                ch->values = ch->size = ch->data_off = -1;
                ch->at = th_read_offset(t);
                th_read_struct(t);
                while (th_read_field(t, &sub, &st)) {
                    if (sub == 1 && st == TH_BINARY) {
                        th_read_fail(t, "a column chunk in another file (file_path): not read");
                    } else if (sub == 2 && st == TH_I64) {
                        (void)th_read_int(t, st);
                        offset = 1;
                    } else if (sub == 3 && st == TH_STRUCT) {
                        read_meta(t, ch, &cols[k]);
                        has = 1;
                    } else
                        th_skip(t, st, 0);
                }
                if (!t->bad && !offset)
                    th_read_fail(t, "a column chunk without its file_offset");
                if (!t->bad && (!has || ch->type < 0 || ch->codec < 0 || ch->values < 0 ||
                                ch->size < 0 || ch->data_off < 0))
                    th_read_fail(t, "a column chunk without its metadata (encrypted files "
                                    "are not read)");
            }
        } else if (id == 2 && type == TH_I64) {
            (void)th_read_int(t, type);
            seen |= TH_FIELD(2);
        } else if (id == 3 && type == TH_I64) {
            g->rows = th_read_int(t, type);
            seen |= TH_FIELD(3);
        } else
            th_skip(t, type, 0);
    }
    th_read_need(t, seen, TH_FIELD(1) | TH_FIELD(2) | TH_FIELD(3),
         "a row group without its columns, byte size or row count");
    if (!t->bad && g->rows < 0)
        th_read_fail(t, "a row group of a negative row count");
}

/* ------------------------------------------------------------ the schema */

#define NAMES_MAX (2 * PR_DEPTH + 8)

typedef struct walker {
    fc_parquet_reader *r;
    const selem *e;
    size_t ne, next;
    fc_error *err;
    const selem *names[NAMES_MAX]; /* the elements from the root's child down */
    unsigned nnames;
} walker;

static int push(walker *w, const selem *e)
{
    if (w->nnames >= NAMES_MAX)
        return 0;
    w->names[w->nnames++] = e;
    return 1;
}

/* The leaf's path of names (parquet_chunk.h), for messages and checks. */
static int leaf_names(walker *w, pr_col *c)
{
    size_t len = 1, n = 0, k;
    for (k = 0; k < w->nnames; k++)
        len += w->names[k]->name_len + 1, n += 4 + w->names[k]->name_len;
    c->dotted = (char *)malloc(len);
    c->names = (unsigned char *)malloc(n + 1);
    if (c->dotted == NULL || c->names == NULL)
        return 0;
    for (k = 0, len = 0, n = 0; k < w->nnames; k++) {
        const selem *e = w->names[k];
        if (k > 0)
            c->dotted[len++] = '.';
        if (e->name_len > 0)
            memcpy(c->dotted + len, e->name, e->name_len);
        len += e->name_len;
        c->names[n] = (unsigned char)e->name_len;
        c->names[n + 1] = (unsigned char)(e->name_len >> 8);
        c->names[n + 2] = (unsigned char)(e->name_len >> 16);
        c->names[n + 3] = (unsigned char)(e->name_len >> 24);
        if (e->name_len > 0)
            memcpy(c->names + n + 4, e->name, e->name_len);
        n += 4 + e->name_len;
    }
    c->dotted[len] = '\0';
    c->names_len = n;
    return 1;
}

static int new_node(walker *w, int kind, int parent, const selem *e, int def_slot,
                    int nullable, int lists)
{
    pr_node *n = &w->r->nodes[w->r->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->parent = parent;
    n->def_slot = def_slot;
    n->def_valid = def_slot + nullable;
    n->nullable = nullable;
    n->lists = lists;
    n->owner = -1;
    n->col = -1;
    n->name = (char *)malloc(e->name_len + 1);
    if (n->name == NULL)
        return -1;
    if (e->name_len > 0)
        memcpy(n->name, e->name, e->name_len);
    n->name[e->name_len] = '\0';
    return w->r->nnodes++;
}

static int bad_schema(walker *w, const selem *e, int status, const char *what)
{
    fc_msg m = fc_error_begin(w->err, status, FC_NO_INDEX, e->at);
    fc_msg_str(&m, "parquet: the schema's field '");
    fc_msg_mem(&m, e->name != NULL ? e->name : (const unsigned char *)"",
               e->name_len > 100 ? 100 : e->name_len); /* (escaped) */
    fc_msg_str(&m, "': ");
    fc_msg_str(&m, what);
    fc_msg_str(&m, " (at byte ");
    fc_msg_u64(&m, e->at);
    fc_msg_str(&m, ")");
    return status;
}

/* A leaf's Arrow format, or a refusal. */
/* Whether a leaf's converted and logical types are ones its physical type
 * may carry (parquet-format's LogicalTypes.md). */
static int fits(const selem *e)
{
    int t = e->type, cv = e->converted, lg = e->logical;
    int bytes = t == PQ_BYTE_ARRAY, i32 = t == PQ_INT32, i64 = t == PQ_INT64;
    int ok_cv = cv < 0 || ((cv == 0 || cv == 4 || cv == 19 || cv == 20) && bytes) ||
                (cv == 5 && (i32 || i64 || bytes || t == PQ_FIXED)) ||
                ((cv == 6 || cv == 7 || cv == 11 || cv == 12 || cv == 13 || cv == 15 ||
                  cv == 16 || cv == 17) && i32) ||
                ((cv == 8 || cv == 9 || cv == 10 || cv == 14 || cv == 18) && i64) ||
                (cv == 21 && t == PQ_FIXED);
    int ok_lg = lg < 0 || lg == 11 || ((lg == 1 || lg == 4 || lg == 12 || lg == 13) && bytes) ||
                (lg == 10 && (e->int_bits == 64 ? i64 : i32)) ||
                ((lg == 14 || lg == 15) && t == PQ_FIXED) ||
                (lg != 2 && lg != 3 && lg != 10 && lg != 1 && lg != 4 && lg != 12 && lg != 13 &&
                 lg != 14 && lg != 15);
    return ok_cv && ok_lg;
}

static int leaf_format(walker *w, const selem *e, pr_node *n, pr_col *c)
{
    int cv = e->converted, lg = e->logical;
    int uns = (lg == 10 && !e->int_signed) || cv == 11 || cv == 12 || cv == 13 || cv == 14;
    const char *f = NULL;
    if (!fits(e))
        return bad_schema(w, e, FC_ERR_PARSE,
                          "a converted or logical type its physical type cannot carry");
    if ((cv >= 5 && cv <= 10) || cv == 21 || lg == 5 || lg == 6 || lg == 7 || lg == 8 ||
        lg == 14 || lg >= 16)
        return bad_schema(w, e, FC_ERR_UNSUPPORTED,
                          "a logical type whose values are not plain numbers or bytes "
                          "(DECIMAL, DATE, TIME, TIMESTAMP, INTERVAL, UUID...): "
                          "not read; cast it in the query that writes the file");
    c->type = e->type;
    if (lg == 15) { /* FLOAT16: Arrow's halffloat */
        if (e->type_length != 2)
            return bad_schema(w, e, FC_ERR_PARSE, "a FLOAT16 of another length than 2 bytes");
        c->type_length = 2;
        c->half = 1;
        strcpy(n->fmt, "e");
        return FC_OK;
    }
    switch (e->type) {
    case PQ_BOOLEAN:
        f = "b", c->width = 1;
        break;
    case PQ_INT32:
        f = uns ? "I" : "i", c->width = 4;
        break;
    case PQ_INT64:
        f = uns ? "L" : "l", c->width = 8;
        break;
    case PQ_FLOAT:
        f = "f", c->width = 4;
        break;
    case PQ_DOUBLE:
        f = "g", c->width = 8;
        break;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED:
        f = cv == 0 || cv == 4 || cv == 19 || lg == 1 || lg == 4 || lg == 12 ? "U" : "Z";
        if (e->type == PQ_FIXED && (e->type_length <= 0 || e->type_length > (1 << 30)))
            return bad_schema(w, e, FC_ERR_PARSE, "a FIXED_LEN_BYTE_ARRAY without a length");
        c->type_length = e->type == PQ_FIXED ? (size_t)e->type_length : 0;
        break;
    case PQ_INT96:
        return bad_schema(w, e, FC_ERR_UNSUPPORTED,
                          "INT96 (a legacy timestamp): not read; cast it in the query that "
                          "writes the file");
    default:
        return bad_schema(w, e, FC_ERR_PARSE, "an unknown physical type");
    }
    strcpy(n->fmt, f);
    return FC_OK;
}

static int walk_field(walker *w, int parent, int def, int lists, unsigned depth);

/* Element e (w->e[w->next - 1], consumed) as an Arrow node under parent;
 * its children next in w. */
static int make_node(walker *w, const selem *e, int parent, int def_slot, int nullable,
                     int lists, unsigned depth)
{
    int id, k, s;
    fc_parquet_reader *r = w->r;
    if (depth > PR_DEPTH)
        return bad_schema(w, e, FC_ERR_UNSUPPORTED, "nested more than 64 levels deep");
    if (e->nkids <= 0 && e->type >= 0) {
        pr_col *c = &r->cols[r->ncols];
        if ((id = new_node(w, N_LEAF, parent, e, def_slot, nullable, lists)) < 0)
            return pr_fail(w->err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
        memset(c, 0, sizeof *c);
        if (!leaf_names(w, c)) {
            free(c->dotted);
            free(c->names);
            return pr_fail(w->err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
        }
        r->ncols++; /* (what close frees; its node below) */
        if ((s = leaf_format(w, e, &r->nodes[id], c)) != FC_OK)
            return s;
        c->node = id;
        r->nodes[id].col = r->ncols - 1;
        return FC_OK;
    }
    if (e->nkids <= 0)
        return bad_schema(w, e, FC_ERR_PARSE, "a group without children");
    if ((e->converted >= 0 && e->converted != 1 && e->converted != 2 && e->converted != 3) ||
        (e->logical >= 0 && e->logical != 2 && e->logical != 3))
        return bad_schema(w, e, FC_ERR_PARSE, "a group of a converted or logical type only "
                                             "a value may have");
    if (e->converted == 1 || e->converted == 2 || e->logical == 2)
        return bad_schema(w, e, FC_ERR_UNSUPPORTED, "a MAP: not read");
    if (e->converted == 3 || e->logical == 3) {
        const selem *rep;
        int two_level;
        if (e->nkids != 1 || w->next >= w->ne || w->e[w->next].rep != 2)
            return bad_schema(w, e, FC_ERR_PARSE,
                              "a LIST whose one child is not a repeated field");
        rep = &w->e[w->next++];
        if ((id = new_node(w, N_LIST, parent, e, def_slot, nullable, lists)) < 0)
            return pr_fail(w->err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
        strcpy(r->nodes[id].fmt, "+L");
        /* the format's compatibility rules: a repeated group of one field,
         * not named "array" nor LISTNAME_tuple, holds the element; else the
         * repeated field is the element */
        two_level = rep->nkids != 1 || rep->type >= 0 ||
                    (rep->name_len == 5 && memcmp(rep->name, "array", 5) == 0) ||
                    (rep->name_len == e->name_len + 6 && memcmp(rep->name, e->name, e->name_len) == 0 &&
                     memcmp(rep->name + e->name_len, "_tuple", 6) == 0);
        if (!push(w, rep))
            return bad_schema(w, e, FC_ERR_UNSUPPORTED, "nested more than 64 levels deep");
        s = two_level ? make_node(w, rep, id, def_slot + nullable + 1, 0, lists + 1, depth + 1)
                      : walk_field(w, id, def_slot + nullable + 1, lists + 1, depth + 2);
        w->nnames--;
        return s;
    }
    if ((id = new_node(w, N_STRUCT, parent, e, def_slot, nullable, lists)) < 0)
        return pr_fail(w->err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
    strcpy(r->nodes[id].fmt, "+s");
    for (k = 0; k < e->nkids; k++)
        if ((s = walk_field(w, id, def_slot + nullable, lists, depth + 1)) != FC_OK)
            return s;
    return FC_OK;
}

/* The next element, a field under parent at definition level def. */
static int walk_field(walker *w, int parent, int def, int lists, unsigned depth)
{
    const selem *e;
    int id, s;
    if (w->next >= w->ne)
        return pr_fail(w->err, FC_ERR_PARSE, w->r, -1, w->e[w->ne - 1].at,
                       "the schema has fewer elements than its groups claim");
    e = &w->e[w->next++];
    if (e->rep < 0 || e->rep > 2)
        return bad_schema(w, e, FC_ERR_PARSE, "a field without its repetition");
    if (depth > PR_DEPTH || !push(w, e))
        return bad_schema(w, e, FC_ERR_UNSUPPORTED, "nested more than 64 levels deep");
    if (e->rep != 2) {
        s = make_node(w, e, parent, def, e->rep == 1, lists, depth);
    } else {
        /* a bare repeated field: a list of required values */
        if ((id = new_node(w, N_LIST, parent, e, def, 0, lists)) < 0)
            return pr_fail(w->err, FC_ERR_NO_MEMORY, w->r, -1, UINT64_MAX, "out of memory");
        strcpy(w->r->nodes[id].fmt, "+L");
        s = make_node(w, e, id, def + 1, 0, lists + 1, depth + 1);
    }
    w->nnames--;
    return s;
}

/* Kids, owners, paths and names of the nodes the walk made. */
static int finish_schema(fc_parquet_reader *r, fc_error *err)
{
    int i, k, *fill;
    r->kids = (int *)calloc((size_t)r->nnodes + 1, sizeof *r->kids);
    fill = (int *)calloc((size_t)r->nnodes + 1, sizeof *fill);
    if (r->kids == NULL || fill == NULL) {
        free(fill);
        return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
    }
    for (i = 1; i < r->nnodes; i++)
        r->nodes[r->nodes[i].parent].nkids++;
    for (i = 0, k = 0; i < r->nnodes; i++) {
        r->nodes[i].first_kid = k;
        k += r->nodes[i].nkids;
    }
    for (i = 1; i < r->nnodes; i++) {
        pr_node *p = &r->nodes[r->nodes[i].parent];
        r->kids[p->first_kid + fill[r->nodes[i].parent]++] = i;
    }
    free(fill);
    for (k = 0; k < r->ncols; k++) {
        pr_col *c = &r->cols[k];
        int path[2 * PR_DEPTH + 2], n = 0, j;
        for (i = c->node; i > 0 && n < 2 * PR_DEPTH + 2; i = r->nodes[i].parent)
            path[n++] = i;
        if (n > 2 * PR_DEPTH)
            return pr_fail(err, FC_ERR_UNSUPPORTED, r, -1, UINT64_MAX,
                           "the schema nests more than 64 levels deep");
        for (j = 0; j < n; j++) {
            const pr_node *nd = &r->nodes[path[n - 1 - j]];
            c->path[j] = path[n - 1 - j];
            if (r->nodes[c->path[j]].owner < 0)
                r->nodes[c->path[j]].owner = k;
            if (nd->lists > 0 && nd->lists <= 2 * PR_DEPTH && c->rep_def[nd->lists] == 0)
                c->rep_def[nd->lists] = nd->def_slot; /* (the list's element: never 0) */
        }
        c->npath = n;
        c->max_def = r->nodes[c->node].def_valid;
        c->max_rep = r->nodes[c->node].lists;
    }
    for (i = 0; i < r->nnodes; i++)
        if (r->nodes[i].owner < 0 && i > 0)
            return pr_fail(err, FC_ERR_PARSE, r, -1, UINT64_MAX,
                           "the schema has a group without columns");
    return FC_OK;
}

static int read_schema(fc_parquet_reader *r, const selem *e, size_t ne, fc_error *err)
{
    walker w;
    int k, s;
    pr_node *root;
    if (ne < 2 || e[0].nkids <= 0)
        return pr_fail(err, FC_ERR_PARSE, r, -1, ne > 0 ? e[0].at : UINT64_MAX,
                       "a schema without columns");
    r->nodes = (pr_node *)calloc(2 * ne + 1, sizeof *r->nodes);
    r->cols = (pr_col *)calloc(ne + 1, sizeof *r->cols);
    if (r->nodes == NULL || r->cols == NULL)
        return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
    w.r = r;
    w.e = e;
    w.ne = ne;
    w.next = 1;
    w.nnames = 0;
    w.err = err;
    if (new_node(&w, N_STRUCT, -1, &e[0], 0, 0, 0) < 0)
        return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
    root = &r->nodes[0];
    root->name[0] = '\0';
    strcpy(root->fmt, "+s");
    for (k = 0; k < e[0].nkids; k++)
        if ((s = walk_field(&w, 0, 0, 0, 1)) != FC_OK)
            return s;
    if (w.next != ne)
        return pr_fail(err, FC_ERR_PARSE, r, -1, e[w.next].at,
                       "the schema has more elements than its groups hold");
    return finish_schema(r, err);
}

static int read_footer(fc_parquet_reader *r, fc_error *err)
{
    th_reader t;
    int16_t id;
    unsigned type, elem;
    selem *e = NULL;
    size_t ne = 0, k, ng;
    int has_rows = 0, has_version = 0, s;
    uint32_t flen;
    uint64_t fstart;
    const unsigned char *groups_at = NULL;
    size_t groups_len = 0;
    if (r->len < 12 || memcmp(r->data, "PAR1", 4) != 0)
        return pr_fail(err, FC_ERR_PARSE, r, -1, 0, "not a Parquet file (no PAR1 at its start)");
    if (memcmp(r->data + r->len - 4, "PAR1", 4) != 0)
        return pr_fail(err, FC_ERR_PARSE, r, -1, r->len - 4,
                       memcmp(r->data + r->len - 4, "PARE", 4) == 0
                           ? "an encrypted Parquet file: not read"
                           : "no PAR1 at the file's end (a truncated file?)");
    flen = pq_le32(r->data + r->len - 8);
    if (flen > r->len - 12)
        return pr_fail(err, FC_ERR_PARSE, r, -1, r->len - 8,
                       "a footer length past the file's start");
    fstart = r->len - 8 - flen;
    r->data_end = fstart;
    th_read_begin(&t, r->data + fstart, flen, fstart);
    while (th_read_field(&t, &id, &type)) {
        if (id == 1 && type == TH_I32) {
            (void)th_read_int(&t, type);
            has_version = 1;
        } else if (id == 5 && type == TH_LIST) {
            read_key_values(&t);
        } else if (id == 2 && type == TH_LIST && e == NULL) {
            ne = th_read_list(&t, &elem);
            if (t.bad)
                break;
            if (elem != TH_STRUCT) {
                th_read_fail(&t, "a schema that is not a list of elements");
                break;
            }
            if ((e = (selem *)calloc(ne + 1, sizeof *e)) == NULL) {
                th_read_fail(&t, "out of memory");
                break;
            }
            for (k = 0; k < ne && !t.bad; k++)
                read_selem(&t, &e[k]);
        } else if (id == 3 && type == TH_I64) {
            r->rows = th_read_int(&t, type);
            has_rows = 1;
        } else if (id == 4 && type == TH_LIST && groups_at == NULL) {
            /* read once the schema is known (fields come in any order) */
            groups_at = t.p;
            th_skip(&t, type, 0);
            groups_len = (size_t)(t.p - groups_at);
        } else
            th_skip(&t, type, 0);
    }
    if (!t.bad && (e == NULL || !has_rows || groups_at == NULL || !has_version))
        th_read_fail(&t, "a footer without its version, schema, row count or row groups");
    if (!t.bad && r->rows < 0)
        th_read_fail(&t, "a negative row count");
    if (t.bad) {
        free(e);
        return pr_fail(err, strcmp(t.why, "out of memory") == 0 ? FC_ERR_NO_MEMORY : FC_ERR_PARSE,
                       r, -1, t.bad_at, t.why);
    }
    s = read_schema(r, e, ne, err);
    free(e);
    if (s != FC_OK)
        return s;
    th_read_begin(&t, groups_at, groups_len, fstart + (uint64_t)(groups_at - (r->data + fstart)));
    t.depth = 0; /* the list is not inside a struct here */
    ng = th_read_list(&t, &elem);
    if (!t.bad && elem != TH_STRUCT && ng > 0)
        th_read_fail(&t, "row groups that are not structs");
    if (!t.bad && (r->groups = (pr_group *)calloc(ng + 1, sizeof *r->groups)) == NULL)
        th_read_fail(&t, "out of memory");
    if (!t.bad)
        r->ngroups = ng; /* (what close frees) */
    for (k = 0; k < r->ngroups && !t.bad; k++)
        read_group(&t, &r->groups[k], r->cols, r->ncols);
    if (!t.bad) {
        int64_t total = 0;
        for (k = 0; k < r->ngroups && !t.bad; k++) {
            if (r->groups[k].rows > INT64_MAX - total)
                th_read_fail(&t, "row counts that overflow");
            total += r->groups[k].rows;
        }
        if (!t.bad && total != r->rows) {
            t.bad = 1;
            t.bad_at = fstart;
            t.why = "row groups whose rows do not add up to the footer's row count";
        }
    }
    if (t.bad)
        return pr_fail(err, strcmp(t.why, "out of memory") == 0 ? FC_ERR_NO_MEMORY : FC_ERR_PARSE,
                       r, -1, t.bad_at, t.why);
    return FC_OK;
}

/* ------------------------------------------------------------ the API */

int fc_parquet_read_open(fc_parquet_reader **out, const void *data, size_t len,
                         const fc_parquet_read_options *opt, fc_error *err)
{
    fc_parquet_reader *r;
    int s;
    *out = NULL;
    if (data == NULL && len > 0)
        return pr_fail(err, FC_ERR_ARG, NULL, -1, UINT64_MAX, "no bytes to read");
    if ((r = (fc_parquet_reader *)calloc(1, sizeof *r)) == NULL)
        return pr_fail(err, FC_ERR_NO_MEMORY, NULL, -1, UINT64_MAX, "out of memory");
    r->data = (const unsigned char *)data;
    r->len = len;
    if (opt != NULL)
        r->opt = *opt;
    if (r->opt.max_bytes == 0)
        r->opt.max_bytes = FC_PARQUET_MAX_BYTES;
    if ((s = read_footer(r, err)) != FC_OK) {
        fc_parquet_read_close(r);
        return s;
    }
    r->s = &r->own;
    r->own.dctx = r->opt.decompress_ctx;
    r->own.reached = 4;
    *out = r;
    return FC_OK;
}

uint64_t fc_parquet_read_rows(const fc_parquet_reader *r)
{
    return (uint64_t)r->rows;
}

uint64_t fc_parquet_read_groups(const fc_parquet_reader *r)
{
    return r->ngroups;
}

int fc_parquet_read_seek(fc_parquet_reader *r, uint64_t group)
{
    if (group > r->ngroups)
        return FC_ERR_ARG;
    r->next = (size_t)group;
    return FC_OK;
}

uint64_t fc_parquet_read_offset(const fc_parquet_reader *r)
{
    return r->next >= r->ngroups ? r->len : r->own.reached;
}

static void free_bufs(pr_node *n)
{
    th_free(&n->valid);
    th_free(&n->off);
    th_free(&n->vals);
    n->len = n->nulls = 0;
}

static void scratch_free(pr_scratch *s)
{
    th_free(&s->page);
    th_free(&s->dict_page);
    th_free(&s->dict);
    th_free(&s->tmp);
    th_free(&s->lev);
    th_free(&s->scratch);
    th_free(&s->built);
    if (s->z_open)
        inflateEnd(&s->z);
    s->z_open = 0;
}

void fc_parquet_read_close(fc_parquet_reader *r)
{
    int i;
    size_t k;
    if (r == NULL)
        return;
    for (i = 0; i < r->nnodes; i++) {
        free_bufs(&r->nodes[i]);
        free(r->nodes[i].name);
    }
    for (i = 0; i < r->ncols; i++) {
        free(r->cols[i].dotted);
        free(r->cols[i].names);
    }
    for (k = 0; k < r->ngroups; k++)
        free(r->groups[k].chunks);
    free(r->groups);
    free(r->nodes);
    free(r->cols);
    free(r->kids);
    scratch_free(&r->own);
    if (r->others != NULL) {
        for (k = 0; k + 1 < r->opt.threads; k++) {
            if (r->opt.decompress_ctx_free != NULL && r->others[k].dctx != NULL)
                r->opt.decompress_ctx_free(r->others[k].dctx);
            scratch_free(&r->others[k]);
        }
        free(r->others);
    }
    free(r);
}

/* ------------------------------------------------------------ Arrow out */

/* The schema: one block holding a node's ArrowSchema each, their child
 * pointers and names; released whole by the root. */
typedef struct schema_block {
    struct ArrowSchema *s;
    struct ArrowSchema **kids;
    char **names;
    char (*fmts)[4];
    int n;
} schema_block;

static void release_child_schema(struct ArrowSchema *s)
{
    s->release = NULL;
}

static void free_schema_block(schema_block *b)
{
    int i;
    if (b == NULL)
        return;
    for (i = 0; b->names != NULL && i < b->n; i++)
        free(b->names[i]);
    free(b->names);
    free(b->fmts);
    free(b->kids);
    free(b->s);
    free(b);
}

static void release_schema(struct ArrowSchema *s)
{
    if (s->release == NULL)
        return;
    free_schema_block((schema_block *)s->private_data);
    s->release = NULL;
}

int fc_parquet_read_schema(const fc_parquet_reader *r, struct ArrowSchema *out, fc_error *err)
{
    schema_block *b = (schema_block *)calloc(1, sizeof *b);
    int i;
    memset(out, 0, sizeof *out);
    if (b != NULL) {
        b->s = (struct ArrowSchema *)calloc((size_t)r->nnodes, sizeof *b->s);
        b->kids = (struct ArrowSchema **)calloc((size_t)r->nnodes + 1, sizeof *b->kids);
        b->names = (char **)calloc((size_t)r->nnodes, sizeof *b->names);
        b->fmts = (char(*)[4])calloc((size_t)r->nnodes, sizeof *b->fmts);
        b->n = r->nnodes;
    }
    if (b == NULL || b->s == NULL || b->kids == NULL || b->names == NULL || b->fmts == NULL)
        goto oom;
    for (i = 0; i < r->nnodes; i++) {
        const pr_node *n = &r->nodes[i];
        struct ArrowSchema *s = &b->s[i];
        int k;
        if ((b->names[i] = (char *)malloc(strlen(n->name) + 1)) == NULL)
            goto oom;
        strcpy(b->names[i], n->name);
        memcpy(b->fmts[i], n->fmt, sizeof n->fmt);
        s->format = b->fmts[i];
        s->name = b->names[i];
        s->flags = n->nullable ? ARROW_FLAG_NULLABLE : 0;
        s->n_children = n->nkids;
        s->children = n->nkids > 0 ? &b->kids[n->first_kid] : NULL;
        for (k = 0; k < n->nkids; k++)
            b->kids[n->first_kid + k] = &b->s[r->kids[n->first_kid + k]];
        s->release = release_child_schema;
        s->private_data = b;
    }
    *out = b->s[0];
    out->release = release_schema;
    /* the root's copy is the one released; its block entry stays a child's */
    return FC_OK;
oom:
    free_schema_block(b);
    return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
}

/* A row group's arrays: a node's ArrowArray each, their buffers and child
 * pointers, and the memory the nodes built (taken from them). */
typedef struct array_block {
    struct ArrowArray *a;
    struct ArrowArray **kids;
    const void **bufs; /* three per node */
    th_buf *mem;       /* what to free (th_free: the buffers taken, bitmaps) */
    size_t nmem;
} array_block;

static void release_child_array(struct ArrowArray *a)
{
    a->release = NULL;
}

static void free_array_block(array_block *b)
{
    size_t k;
    if (b == NULL)
        return;
    for (k = 0; b->mem != NULL && k < b->nmem; k++)
        th_free(&b->mem[k]);
    free(b->mem);
    free(b->bufs);
    free(b->kids);
    free(b->a);
    free(b);
}

static void release_array(struct ArrowArray *a)
{
    if (a->release == NULL)
        return;
    free_array_block((array_block *)a->private_data);
    a->release = NULL;
}

/* A bitmap of n bits from bytes v (each 0 or 1), kept in b->mem. */
static void *pack_bits(array_block *b, const unsigned char *v, size_t n)
{
    unsigned char *bits = (unsigned char *)calloc(n / 8 + 1, 1);
    size_t i;
    if (bits == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        bits[i >> 3] = (unsigned char)(bits[i >> 3] | (v[i] & 1) << (i & 7));
    memset(&b->mem[b->nmem], 0, sizeof b->mem[b->nmem]);
    b->mem[b->nmem++].p = bits;
    return bits;
}

/* th_buf memory moved into b->mem (never NULL: an empty one a byte). */
static void *take(array_block *b, th_buf *t)
{
    if (t->p == NULL) {
        th_free(t);
        if ((t->p = (unsigned char *)malloc(8)) == NULL)
            return NULL;
    }
    b->mem[b->nmem++] = *t;
    memset(t, 0, sizeof *t);
    return b->mem[b->nmem - 1].p;
}

/* The nodes' arrays into out (taken from them). */
static int export_group(fc_parquet_reader *r, struct ArrowArray *out, fc_error *err)
{
    array_block *b = (array_block *)calloc(1, sizeof *b);
    int i;
    size_t nn = (size_t)r->nnodes;
    if (b != NULL) {
        b->a = (struct ArrowArray *)calloc(nn, sizeof *b->a);
        b->kids = (struct ArrowArray **)calloc(nn + 1, sizeof *b->kids);
        b->bufs = (const void **)calloc(3 * nn, sizeof *b->bufs);
        b->mem = (th_buf *)calloc(4 * nn, sizeof *b->mem);
    }
    if (b == NULL || b->a == NULL || b->kids == NULL || b->bufs == NULL || b->mem == NULL)
        goto oom;
    for (i = 0; i < r->nnodes; i++) {
        pr_node *n = &r->nodes[i];
        struct ArrowArray *a = &b->a[i];
        const void **buf = &b->bufs[3 * i];
        int k;
        a->length = (int64_t)n->len;
        a->null_count = (int64_t)n->nulls;
        a->buffers = buf;
        a->n_children = n->nkids;
        a->children = n->nkids > 0 ? &b->kids[n->first_kid] : NULL;
        for (k = 0; k < n->nkids; k++)
            b->kids[n->first_kid + k] = &b->a[r->kids[n->first_kid + k]];
        a->release = release_child_array;
        a->private_data = b;
        if (n->nulls > 0 && (buf[0] = pack_bits(b, n->valid.p, n->len)) == NULL)
            goto oom;
        th_free(&n->valid);
        if (n->kind == N_STRUCT) {
            a->n_buffers = 1;
        } else if (n->kind == N_LIST ||
                   (n->kind == N_LEAF && r->cols[n->col].width == 0 && !r->cols[n->col].half)) {
            int64_t end = n->kind == N_LIST ? (int64_t)r->nodes[r->kids[n->first_kid]].len
                                            : (int64_t)n->vals.n;
            th_put(&n->off, &end, sizeof end);
            if (n->off.oom || (buf[1] = take(b, &n->off)) == NULL)
                goto oom;
            a->n_buffers = 2;
            if (n->kind == N_LEAF) {
                if ((buf[2] = take(b, &n->vals)) == NULL)
                    goto oom;
                a->n_buffers = 3;
            }
        } else if (r->cols[n->col].type == PQ_BOOLEAN) {
            if ((buf[1] = pack_bits(b, n->vals.p != NULL ? n->vals.p : (const unsigned char *)"",
                                    n->len)) == NULL)
                goto oom;
            th_free(&n->vals);
            a->n_buffers = 2;
        } else {
            if ((buf[1] = take(b, &n->vals)) == NULL)
                goto oom;
            a->n_buffers = 2;
        }
        free_bufs(n);
    }
    *out = b->a[0];
    out->release = release_array;
    return FC_OK;
oom:
    free_array_block(b);
    return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
}

/* ------------------------------------------------------------ columns on threads */

/* A row group's columns read by several threads, each taking the next
 * column not yet taken.  Columns are taken in order, so when some fail,
 * every column before the first of them was read, and its error is the
 * one a read on one thread meets first; the others stop taking columns
 * after a failure. */
typedef struct col_work {
    fc_parquet_reader *r;
    const pr_group *g;
    pthread_mutex_t mu;
    int next;       /* the next column to take */
    int failed_col; /* the first column that failed (ncols: none) */
    int failed_status;
    fc_error failed;
} col_work;

typedef struct col_thread {
    col_work *w;
    fc_parquet_reader view; /* the reader, with this thread's scratch */
    pthread_t thread;
} col_thread;

static void *read_some(void *arg)
{
    col_thread *t = (col_thread *)arg;
    col_work *w = t->w;
    fc_error e;
    for (;;) {
        int c, s;
        pthread_mutex_lock(&w->mu);
        c = w->failed_col < w->r->ncols ? w->r->ncols : w->next++;
        pthread_mutex_unlock(&w->mu);
        if (c >= w->r->ncols)
            break;
        fc_error_clear(&e);
        if ((s = pr_read_chunk(&t->view, w->g, c, &e)) != FC_OK) {
            pthread_mutex_lock(&w->mu);
            if (c < w->failed_col) {
                w->failed_col = c;
                w->failed_status = s;
                w->failed = e;
            }
            pthread_mutex_unlock(&w->mu);
            break;
        }
    }
    return NULL;
}

/* Group g's columns on up to opt.threads threads, the caller's one of
 * them: FC_OK, or the first failing column's error. */
static int read_columns(fc_parquet_reader *r, const pr_group *g, fc_error *err)
{
    col_work w;
    col_thread *ts;
    unsigned n = r->opt.threads - 1, k, started = 0;
    if ((unsigned)r->ncols - 1 < n)
        n = (unsigned)r->ncols - 1;
    if (r->others == NULL) {
        if ((r->others = (pr_scratch *)calloc(r->opt.threads - 1, sizeof *r->others)) == NULL)
            return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
        for (k = 0; k + 1 < r->opt.threads; k++)
            r->others[k].dctx =
                r->opt.decompress_ctx_new != NULL ? r->opt.decompress_ctx_new() : NULL;
    }
    if ((ts = (col_thread *)calloc(n + 1, sizeof *ts)) == NULL)
        return pr_fail(err, FC_ERR_NO_MEMORY, r, -1, UINT64_MAX, "out of memory");
    memset(&w, 0, sizeof w);
    w.r = r;
    w.g = g;
    w.failed_col = r->ncols;
    pthread_mutex_init(&w.mu, NULL);
    for (k = 0; k <= n; k++) {
        ts[k].w = &w;
        ts[k].view = *r;
        ts[k].view.s = k == 0 ? &r->own : &r->others[k - 1];
    }
    for (k = 1; k <= n; k++) {
        if (pthread_create(&ts[k].thread, NULL, read_some, &ts[k]) != 0)
            break; /* (fewer threads: the others take the rest) */
        started++;
    }
    read_some(&ts[0]);
    for (k = 1; k <= started; k++) {
        pthread_join(ts[k].thread, NULL);
        if (r->others[k - 1].reached > r->own.reached)
            r->own.reached = r->others[k - 1].reached;
    }
    pthread_mutex_destroy(&w.mu);
    free(ts);
    if (w.failed_col < r->ncols) {
        *err = w.failed;
        return w.failed_status;
    }
    return FC_OK;
}

int fc_parquet_read_next(fc_parquet_reader *r, struct ArrowArray *out, fc_error *err)
{
    const pr_group *g;
    int c, i, s;
    memset(out, 0, sizeof *out);
    if (r->next >= r->ngroups)
        return FC_END;
    g = &r->groups[r->next];
    for (i = 0; i < r->nnodes; i++)
        free_bufs(&r->nodes[i]);
    if (r->opt.threads > 1 && r->ncols > 1) {
        if ((s = read_columns(r, g, err)) != FC_OK)
            return s;
    } else {
        for (c = 0; c < r->ncols; c++)
            if ((s = pr_read_chunk(r, g, c, err)) != FC_OK)
                return s;
    }
    /* the columns agree: a struct's children as long as it, a list's child
     * as long as its offsets say, the top level as the row group */
    r->nodes[0].len = (size_t)g->rows;
    for (i = 0; i < r->nnodes; i++) {
        const pr_node *n = &r->nodes[i];
        int k;
        for (k = 0; k < n->nkids && n->kind == N_STRUCT; k++) {
            const pr_node *kid = &r->nodes[r->kids[n->first_kid + k]];
            if (kid->len != n->len) {
                int col = kid->kind == N_LEAF ? kid->col : kid->owner;
                return pr_fail(err, FC_ERR_PARSE, r, col, g->at,
                               i == 0 ? "a column with another number of rows than its row "
                                        "group"
                                      : "columns of one group with different numbers of values");
            }
        }
    }
    r->next++;
    return export_group(r, out, err);
}
