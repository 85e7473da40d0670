/* The features TensorFlow builds from others after decoding: SparseFeature
 * (index and value features into a SparseTensor's entries) and
 * RaggedFeature (values and partitions into row splits), in an Example and,
 * through the same code, a SequenceExample's context (fc_example.h).  See
 * example.c for the security model: no recursion, no allocation. */
#include "featc/fc_example.h"
#include "featc/fc_hash.h"

#include "wire.h"

#include <string.h>

/* ------------------------------------------------------------ SparseFeature */

static size_t field_count(const fc_field_desc *f, const unsigned char *m)
{
    size_t n;
    memcpy(&n, m + f->count_offset, sizeof n);
    return n;
}

/* The values of a built feature f (SparseFeature, RaggedFeature) from its
 * value field vf: at most f->max of them, copied, counted. */
static int take_values(const fc_field_desc *f, const fc_field_desc *vf, unsigned char *m,
                       size_t n, fc_error *err)
{
    size_t ts = fc_type_size(f->type);
    if (n > f->max) {
        fc_msg e = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_key(&e, f);
        fc_msg_str(&e, "Number of values exceeds the bound declared in the spec: ");
        fc_msg_u64(&e, n);
        fc_msg_str(&e, " values but max ");
        fc_msg_u64(&e, f->max);
        return FC_ERR_PARSE;
    }
    if (n > 0)
        memcpy(m + f->value_offset, m + vf->value_offset, n * ts);
    memcpy(m + f->count_offset, &n, sizeof n);
    return FC_OK;
}

/* Entry a before entry b: indices row-major, then the value (equal indices
 * are a duplicate TensorFlow keeps in an unspecified order; ordering by
 * value makes featc's order a function of the data alone). */
static int entry_less(const fc_field_desc *f, const unsigned char *m, size_t a, size_t b)
{
    const int64_t *ix = (const int64_t *)(const void *)(m + f->extra->indices_offset);
    const unsigned char *vals = m + f->value_offset;
    unsigned r;
    for (r = 0; r < f->rank; r++) {
        int64_t x = ix[a * f->rank + r], y = ix[b * f->rank + r];
        if (x != y)
            return x < y;
    }
    if (f->type == FC_TYPE_INT64) {
        int64_t x, y;
        memcpy(&x, vals + a * sizeof x, sizeof x);
        memcpy(&y, vals + b * sizeof y, sizeof y);
        return x < y;
    }
    if (f->type == FC_TYPE_FLOAT) {
        uint32_t x, y;
        memcpy(&x, vals + a * sizeof x, sizeof x);
        memcpy(&y, vals + b * sizeof y, sizeof y);
        return x < y;
    } else {
        const fc_bytes *x = (const fc_bytes *)(const void *)vals + a;
        const fc_bytes *y = (const fc_bytes *)(const void *)vals + b;
        size_t n = x->size < y->size ? x->size : y->size;
        int c = n > 0 ? memcmp(x->data, y->data, n) : 0;
        return c != 0 ? c < 0 : x->size < y->size;
    }
}

static void entry_swap(const fc_field_desc *f, unsigned char *m, size_t a, size_t b)
{
    int64_t *ix = (int64_t *)(void *)(m + f->extra->indices_offset);
    unsigned char *vals = m + f->value_offset, tmp[sizeof(fc_bytes)];
    size_t ts = fc_type_size(f->type);
    unsigned r;
    for (r = 0; r < f->rank; r++) {
        int64_t t = ix[a * f->rank + r];
        ix[a * f->rank + r] = ix[b * f->rank + r];
        ix[b * f->rank + r] = t;
    }
    memcpy(tmp, vals + a * ts, ts);
    memcpy(vals + a * ts, vals + b * ts, ts);
    memcpy(vals + b * ts, tmp, ts);
}

static void sift_down(const fc_field_desc *f, unsigned char *m, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && entry_less(f, m, child, child + 1))
            child++;
        if (!entry_less(f, m, root, child))
            return;
        entry_swap(f, m, root, child);
        root = child;
    }
}

/* Heapsort: in place, O(n log n) whatever the record holds. */
static void sort_entries(const fc_field_desc *f, unsigned char *m, size_t n)
{
    size_t i, end;
    for (i = 1; i < n; i++) /* already in order: nothing to do */
        if (entry_less(f, m, i, i - 1))
            break;
    if (i >= n)
        return;
    for (i = n / 2; i-- > 0;)
        sift_down(f, m, i, n);
    for (end = n; end-- > 1;) {
        entry_swap(f, m, 0, end);
        sift_down(f, m, 0, end);
    }
}

int fc_ex_sparse(const fc_message_desc *md, size_t i, void *msg, fc_error *err)
{
    const fc_field_desc *f = &md->fields[i];
    const fc_field_desc *vf = &md->fields[f->extra->sparse_fields[f->rank]];
    unsigned char *m = (unsigned char *)msg;
    size_t n = field_count(vf, m), k;
    int64_t *ix = (int64_t *)(void *)(m + f->extra->indices_offset);
    unsigned r;
    for (r = 0; r < f->rank; r++) {
        const fc_field_desc *xf = &md->fields[f->extra->sparse_fields[r]];
        size_t nx = field_count(xf, m);
        if (nx != n) {
            fc_msg e = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
            /* TF's SparseTensor check (in sparse_reorder, over the batch
             * in parse_example), then featc's detail: which keys */
            fc_msg_str(&e, FC_TF_SPARSE_ROWS);
            fc_msg_u64(&e, nx);
            fc_msg_str(&e, ", values = ");
            fc_msg_u64(&e, n);
            fc_msg_str(&e, ") " FC_SPARSE_DETAIL);
            fc_msg_mem(&e, f->key, f->key_len);
            fc_msg_str(&e, ": index key ");
            fc_msg_mem(&e, xf->key, xf->key_len);
            fc_msg_str(&e, " has ");
            fc_msg_u64(&e, nx);
            fc_msg_str(&e, " values, value key ");
            fc_msg_mem(&e, vf->key, vf->key_len);
            fc_msg_str(&e, " has ");
            fc_msg_u64(&e, n);
            fc_msg_str(&e, ")");
            return FC_ERR_PARSE;
        }
    }
    if (take_values(f, vf, m, n, err) != FC_OK)
        return FC_ERR_PARSE;
    for (r = 0; r < f->rank; r++) {
        const unsigned char *src = m + md->fields[f->extra->sparse_fields[r]].value_offset;
        for (k = 0; k < n; k++)
            memcpy(&ix[k * f->rank + r], src + k * sizeof(int64_t), sizeof(int64_t));
    }
    if (!f->extra->already_sorted)
        sort_entries(f, m, n);
    fc_bit_copy((uint32_t *)(void *)(m + md->present_offset), (unsigned)i,
                f->extra->sparse_fields[f->rank]);
    return FC_OK;
}

/* ------------------------------------------------------------ RaggedFeature */

static const char *part_word(fc_part_kind k)
{
    switch (k) {
    case FC_PART_ROW_SPLITS: return "row_splits";
    case FC_PART_ROW_LENGTHS: return "row_lengths";
    case FC_PART_ROW_STARTS: return "row_starts";
    case FC_PART_ROW_LIMITS: return "row_limits";
    case FC_PART_VALUE_ROWIDS: return "value_rowids";
    default: return "uniform_row_length";
    }
}

/* "Key: K.  ", "Context feature: K.  " or "Name: <unknown>, Feature list:
 * K, Index: T.  ": where a RaggedFeature is built, as the texts of its
 * parser name a feature. */
static void msg_where(fc_msg *m, const fc_rg_where *w)
{
    if (w->role == FC_RG_LIST) {
        fc_msg_str(m, "Name: <unknown>, Feature list: ");
        fc_msg_mem(m, w->key, w->key_len);
        fc_msg_str(m, ", Index: ");
        fc_msg_u64(m, w->frame);
        fc_msg_str(m, ".  ");
        return;
    }
    fc_msg_str(m, w->role == FC_RG_CONTEXT ? "Context feature: " : "Key: ");
    fc_msg_mem(m, w->key, w->key_len);
    fc_msg_str(m, ".  ");
}

/* "<where>Feature K: values and partitions are not aligned (": TF's text
 * for what validate=True refuses; the caller adds why and ")". */
fc_msg fc_rg_not_aligned(const fc_rg_where *w, fc_error *err)
{
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
    msg_where(&m, w);
    fc_msg_str(&m, "Feature ");
    fc_msg_mem(&m, w->key, w->key_len);
    fc_msg_str(&m, ": values and partitions are not aligned (");
    return m;
}

static int not_aligned(const fc_rg_where *w, const fc_part_desc *pd, const fc_rg_in *pk,
                       const char *why, int64_t a, uint64_t b, fc_error *err)
{
    fc_msg m = fc_rg_not_aligned(w, err);
    fc_msg_str(&m, part_word(pd->kind));
    if (pk != NULL) {
        fc_msg_str(&m, " from key ");
        fc_msg_mem(&m, pk->key, pk->key_len);
    }
    fc_msg_str(&m, ": ");
    fc_msg_str(&m, why);
    fc_msg_str(&m, " ");
    fc_msg_i64(&m, a);
    if (b != UINT64_MAX) {
        fc_msg_str(&m, ", ");
        fc_msg_u64(&m, b);
    }
    fc_msg_str(&m, ")");
    return FC_ERR_PARSE;
}

static void put_split(unsigned char *splits, int split64, size_t k, int64_t v)
{
    if (split64) {
        memcpy(splits + k * 8, &v, 8);
    } else {
        int32_t w = (int32_t)v; /* values are at most 2^24: no overflow */
        memcpy(splits + k * 4, &w, 4);
    }
}

/* Item k of an int64 list at src, also left in *v. */
static int64_t load_i64(const unsigned char *src, size_t k, int64_t *v)
{
    memcpy(v, src + k * 8, 8);
    return *v;
}

/* Partition pd (read from in: c int64 values; in->data NULL for a uniform
 * row length) of `inner` items into splits (int64 when split64, else
 * int32), and *rows; checked as RaggedTensor's validate=True checks.
 * FC_OK, or FC_ERR_PARSE with TensorFlow's "values and partitions are not
 * aligned" or featc's row bound. */
static int rg_part(const fc_rg_where *w, const fc_part_desc *pd, const fc_rg_in *in,
                      int split64, unsigned char *splits, size_t inner, size_t *rows,
                      fc_error *err)
{
    const fc_rg_in *pk = in->data != NULL ? in : NULL;
    const unsigned char *src = in->data;
    size_t k, nrows, c = pk != NULL ? in->count : 0;
    int64_t prev = 0, v, total;
#define PART_AT(k_) load_i64(src, (k_), &v)
    switch (pd->kind) {
    case FC_PART_ROW_SPLITS:
        if (c == 0 && inner == 0) { /* nothing at all: no rows */
            nrows = 0;
            put_split(splits, split64, 0, 0);
            break;
        }
        if (c == 0)
            return not_aligned(w, pd, pk, "no row splits for items:", (int64_t)inner, UINT64_MAX,
                               err);
        if (PART_AT(0) != 0)
            return not_aligned(w, pd, pk, "the first split is not 0 but", v, UINT64_MAX, err);
        nrows = c - 1;
        if (nrows > pd->max_rows)
            goto too_many;
        for (k = 0; k < c; k++) {
            if (PART_AT(k) < prev)
                return not_aligned(w, pd, pk, "splits decrease at split", (int64_t)k, UINT64_MAX,
                                   err);
            prev = v;
            put_split(splits, split64, k, v);
        }
        if ((uint64_t)prev != inner)
            return not_aligned(w, pd, pk, "the last split and the items are", prev, inner, err);
        break;
    case FC_PART_ROW_LENGTHS:
    case FC_PART_ROW_LIMITS:
        nrows = c;
        if (nrows > pd->max_rows)
            goto too_many;
        put_split(splits, split64, 0, 0);
        for (k = 0, total = 0; k < c; k++) {
            PART_AT(k);
            if (pd->kind == FC_PART_ROW_LENGTHS) {
                if (v < 0 || (uint64_t)v > inner - (uint64_t)total)
                    return not_aligned(w, pd, pk, "a row length overruns the items at row",
                                       (int64_t)k, UINT64_MAX, err);
                total += v;
            } else {
                if (v < total || (uint64_t)v > inner)
                    return not_aligned(w, pd, pk, "limits decrease or overrun at row",
                                       (int64_t)k, UINT64_MAX, err);
                total = v;
            }
            put_split(splits, split64, k + 1, total);
        }
        if ((uint64_t)total != inner)
            return not_aligned(w, pd, pk, "the rows cover and the items are", total, inner,
                               err);
        break;
    case FC_PART_ROW_STARTS:
        nrows = c;
        if (nrows > pd->max_rows)
            goto too_many;
        for (k = 0; k < c; k++) {
            if (PART_AT(k) < prev || (uint64_t)v > inner || (k == 0 && v != 0))
                return not_aligned(w, pd, pk, "starts do not begin at 0 and grow at row",
                                   (int64_t)k, UINT64_MAX, err);
            prev = v;
            put_split(splits, split64, k, v);
        }
        if (c == 0 && inner != 0)
            return not_aligned(w, pd, pk, "no rows for items:", (int64_t)inner, UINT64_MAX, err);
        put_split(splits, split64, c, (int64_t)inner);
        break;
    case FC_PART_VALUE_ROWIDS:
        if (c != inner)
            return not_aligned(w, pd, pk, "row ids and items are", (int64_t)c, inner, err);
        for (k = 0; k < c; k++) {
            if (PART_AT(k) < prev || v < 0)
                return not_aligned(w, pd, pk, "row ids decrease at item", (int64_t)k, UINT64_MAX,
                                   err);
            if ((uint64_t)v >= pd->max_rows)
                goto too_many;
            prev = v;
        }
        nrows = c > 0 ? (size_t)prev + 1 : 0;
        /* splits: row r ends after the last item whose id is <= r */
        for (k = 0, total = 0; k <= nrows; k++) {
            while ((size_t)total < c && load_i64(src, (size_t)total, &v) < (int64_t)k)
                total++;
            put_split(splits, split64, k, total);
        }
        break;
    default: /* FC_PART_UNIFORM_ROW_LENGTH */
        if (inner % pd->length != 0)
            return not_aligned(w, pd, NULL, "items are not a multiple of the row length:",
                               (int64_t)inner, pd->length, err);
        nrows = inner / pd->length;
        for (k = 0; k <= nrows; k++)
            put_split(splits, split64, k, (int64_t)(k * pd->length));
        break;
    }
#undef PART_AT
    *rows = nrows;
    return FC_OK;
too_many: {
        fc_msg e = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
        msg_where(&e, w);
        fc_msg_str(&e, "Number of rows exceeds the bound declared in the spec: ");
        fc_msg_str(&e, part_word(pd->kind));
        fc_msg_str(&e, " has more than ");
        fc_msg_u64(&e, pd->max_rows);
        fc_msg_str(&e, " rows");
        return FC_ERR_PARSE;
    }
}

static int rg_values_over(const fc_rg_where *w, size_t n, size_t max, fc_error *err)
{
    fc_msg e = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
    msg_where(&e, w);
    fc_msg_str(&e, "Number of values exceeds the bound declared in the spec: ");
    fc_msg_u64(&e, n);
    fc_msg_str(&e, " values but max ");
    fc_msg_u64(&e, max);
    return FC_ERR_PARSE;
}

int fc_rg_build(const fc_rg_where *w, const fc_field_extra *x, fc_type type, size_t max,
                unsigned char *m, size_t value_offset, size_t count_offset, const fc_rg_in *in,
                fc_error *err)
{
    size_t t = w->frame, n = in[0].count, inner = n, ts = fc_type_size(type);
    size_t ss = x->split64 ? 8u : 4u;
    unsigned q;
    if (n > max)
        return rg_values_over(w, n, max, err);
    if (n > 0)
        memcpy(m + value_offset + t * max * ts, in[0].data, n * ts);
    memcpy(m + count_offset + t * sizeof n, &n, sizeof n);
    for (q = x->nparts; q-- > 0;) {
        const fc_part_desc *pd = &x->parts[q];
        const fc_rg_in *pi = &in[q + 1];
        size_t rows = 0;
        int rc = rg_part(w, pd, pi, x->split64,
                            m + pd->splits_offset + t * (pd->max_rows + 1u) * ss, inner, &rows,
                            err);
        if (rc != FC_OK)
            return rc;
        memcpy(m + pd->rows_offset + t * sizeof rows, &rows, sizeof rows);
        inner = rows;
    }
    return FC_OK;
}

int fc_rg_fields(const fc_field_desc *fields, size_t present_offset, size_t i, void *msg,
                 int role, fc_error *err)
{
    const fc_field_desc *f = &fields[i];
    const fc_field_extra *x = f->extra;
    unsigned char *m = (unsigned char *)msg;
    fc_rg_in in[FC_MAX_RANK + 1];
    fc_rg_where w;
    unsigned q;
    int rc;
    w.role = role;
    w.key = f->key;
    w.key_len = f->key_len;
    w.frame = 0;
    for (q = 0; q <= x->nparts; q++) {
        const fc_field_desc *g = q == 0 ? &fields[x->sparse_fields[0]]
                                 : x->parts[q - 1].kind == FC_PART_UNIFORM_ROW_LENGTH
                                     ? NULL
                                     : &fields[x->parts[q - 1].field];
        in[q].data = g != NULL ? m + g->value_offset : NULL;
        in[q].count = g != NULL ? field_count(g, m) : 0;
        in[q].key = g != NULL ? g->key : NULL;
        in[q].key_len = g != NULL ? g->key_len : 0;
    }
    rc = fc_rg_build(&w, x, f->type, f->max, m, f->value_offset, f->count_offset, in, err);
    if (rc == FC_OK)
        fc_bit_copy((uint32_t *)(void *)(m + present_offset), (unsigned)i, x->sparse_fields[0]);
    return rc;
}

int fc_ex_ragged(const fc_message_desc *md, size_t i, void *msg, fc_error *err)
{
    return fc_rg_fields(md->fields, md->present_offset, i, msg, FC_RG_EXAMPLE, err);
}
