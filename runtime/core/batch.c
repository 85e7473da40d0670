/* Batches of records as tensors: see fc_batch.h.
 *
 * Each record goes through the message's single-record parser into the
 * caller's scratch struct; its values are then appended to the columns.
 * An Example with a direct path (md->batch_direct: FixedLen and VarLen
 * only), and a SequenceExample of such features and lists
 * (batch_seq_direct.c), decode the records they take straight into the
 * columns; run() and each() give the others, one at a time, to the way
 * above.
 * Padded layouts (rows in an Example, fixed-frame lists) are appended packed
 * as well, and spread out once the batch's largest row or frame count is
 * known: block b moves from its packed offset to b * R * stride, last block
 * first, so that no block overwrites one not yet moved, and the tail of each
 * block gets the padding value.  One pass over the records, no second parse.
 */
#include "featc/fc_batch.h"
#include "featc/fc_fast.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire.h"

/* How a column is filled: the kinds of fc_field_desc and fc_list_desc. */
typedef enum col_kind {
    COL_FIXED,       /* FixedLen: [B, dims] */
    COL_VARLEN,      /* VarLen: [N] values, sparse [N,2], ragged [B+1] */
    COL_ROWS,        /* FixedLenSequence in an Example: [B, R, dims] padded */
    COL_LIST_FIXED,  /* feature list of fixed frames: [B, T, dims] padded with 0 */
    COL_LIST_VARLEN, /* feature list of VarLen frames: [N], sparse [N,3] */
    COL_SPARSE,      /* SparseFeature: [N] values, indices [N, 1 + rank] */
    COL_RAGGED,      /* RaggedFeature: [N] values, row splits per level */
    COL_LIST_RAGGED  /* RaggedFeature list: [N] values, splits over frames, over
                        each frame's top level, then per partition */
} col_kind;

/* One column's feature, whichever descriptor it comes from. */
typedef struct col_spec {
    const char *key;
    size_t key_len;
    fc_type type;
    size_t ts;           /* bytes per value in the column (the `as` type's, if any) */
    col_kind kind;
    unsigned rank;
    const size_t *dims;
    size_t elems;        /* values per record (FIXED), per row or frame (ROWS, LIST_FIXED) */
    size_t max;          /* VARLEN: values; ROWS: rows; LIST_VARLEN: values per frame */
    size_t max_frames;   /* lists */
    size_t value_offset;
    size_t count_offset; /* VARLEN, ROWS: the count; LIST_VARLEN: counts[] */
    size_t frames_offset;
    const void *pad;     /* ROWS: the padding value, NULL for 0 / "" */
    int typed_pad;       /* ROWS with `as`: pad_as holds it converted */
    int64_t pad_as;      /* (its first bytes; an int64_t for their alignment) */
    size_t buckets;      /* hash buckets, 0: not hashed */
    int hot;
    size_t bucket_offset, hot_offset;
    size_t indices_offset; /* SPARSE: int64_t [max][rank] */
    const fc_part_desc *parts; /* RAGGED */
    unsigned nparts;
    int split64;
} col_spec;

/* The padding value of typed rows, converted as their values are (the
 * compiler has checked that it is in the range of the type). */
static void typed_pad(col_spec *s, int as)
{
    s->typed_pad = 1;
    s->pad_as = 0;
    if (s->type == FC_TYPE_FLOAT) {
        float x;
        int over;
        uint16_t h;
        memcpy(&x, s->pad, sizeof x);
        h = fc_as_half(x, &over);
        memcpy(&s->pad_as, &h, sizeof h);
    } else {
        int64_t x;
        memcpy(&x, s->pad, sizeof x);
        fc_fast_store_narrow(as, &s->pad_as, 0, x);
    }
}

static void spec_of_field(const fc_field_desc *f, col_spec *s)
{
    memset(s, 0, sizeof *s);
    s->key = f->key;
    s->key_len = f->key_len;
    s->type = f->type;
    s->kind = f->kind == FC_KIND_FIXED    ? COL_FIXED
              : f->kind == FC_KIND_VARLEN ? COL_VARLEN
              : f->kind == FC_KIND_SPARSE ? COL_SPARSE
              : f->kind == FC_KIND_RAGGED ? COL_RAGGED
                                          : COL_ROWS;
    s->rank = f->rank;
    s->dims = f->dims;
    s->elems = f->elems;
    s->max = f->max;
    s->value_offset = f->value_offset;
    s->count_offset = f->count_offset;
    s->pad = s->kind == COL_ROWS ? f->default_value : NULL;
    s->buckets = f->extra->hash_buckets;
    s->hot = f->extra->hot;
    s->bucket_offset = f->extra->bucket_offset;
    s->hot_offset = f->extra->hot_offset;
    s->indices_offset = f->extra->indices_offset;
    s->parts = f->extra->parts;
    s->nparts = f->extra->nparts;
    s->split64 = f->extra->split64;
    s->ts = fc_type_size(f->type);
    if (f->extra->as != NULL) { /* the column holds the typed values */
        const fc_field_as *as = f->extra->as;
        s->ts = fc_as_size(as->type);
        s->value_offset = as->offset;
        if (as->rank > 0) { /* decode_raw of a FixedLen scalar: its tensor */
            s->rank = as->rank;
            s->dims = as->dims;
            s->elems = as->elems;
        }
        if (s->kind == COL_ROWS && s->pad != NULL)
            typed_pad(s, as->type);
    }
}

static void spec_of_list(const fc_list_desc *l, col_spec *s)
{
    memset(s, 0, sizeof *s);
    s->key = l->key;
    s->key_len = l->key_len;
    s->type = l->type;
    s->ts = fc_type_size(l->type);
    s->kind = l->kind == FC_KIND_FIXED    ? COL_LIST_FIXED
              : l->kind == FC_KIND_RAGGED ? COL_LIST_RAGGED
                                          : COL_LIST_VARLEN;
    s->rank = l->rank;
    s->dims = l->dims;
    s->elems = l->elems;
    s->max = l->max;
    s->max_frames = l->max_frames;
    s->value_offset = l->value_offset;
    s->count_offset = l->count_offset;
    s->frames_offset = l->frames_offset;
    if (l->extra != NULL) {
        s->buckets = l->extra->hash_buckets; /* VarLen lists: ids per value */
        s->bucket_offset = l->extra->bucket_offset;
    }
    if (l->extra != NULL && l->extra->as != NULL) { /* typed values, frame after frame */
        const fc_field_as *as = l->extra->as;
        s->ts = fc_as_size(as->type);
        s->value_offset = as->offset;
        if (as->rank > 0) { /* decode_raw of each frame's one bytes value */
            s->rank = as->rank;
            s->dims = as->dims;
            s->elems = as->elems;
        }
    }
    if (l->kind == FC_KIND_RAGGED) {
        s->parts = l->extra->parts;
        s->nparts = l->extra->nparts;
        s->split64 = l->extra->split64;
    }
}

/* a * b, or SIZE_MAX when it overflows (no capacity is that large). */
static size_t mul(size_t a, size_t b)
{
    if (a != 0 && b > SIZE_MAX / a)
        return SIZE_MAX;
    return a * b;
}

static size_t add(size_t a, size_t b)
{
    return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

/* ------------------------------------------------------------ binding */

/* Worst-case element counts of a column for b records at the spec's bounds. */
typedef struct col_need {
    size_t values, indices, row_splits, inner_splits, lengths, buckets, hot;
    size_t parts[FC_MAX_RANK];
} col_need;

static void need_of(const col_spec *s, size_t b, unsigned forms, col_need *n)
{
    memset(n, 0, sizeof *n);
    n->lengths = s->kind == COL_FIXED ? 0 : b;
    switch (s->kind) {
    case COL_FIXED:
        n->values = mul(b, s->elems);
        break;
    case COL_VARLEN:
        n->values = mul(b, s->max);
        if (forms & FC_BATCH_SPARSE)
            n->indices = mul(n->values, 2);
        if (forms & FC_BATCH_RAGGED)
            n->row_splits = add(b, 1);
        break;
    case COL_ROWS:
        n->values = mul(mul(b, s->max), s->elems);
        break;
    case COL_LIST_FIXED:
        n->values = mul(mul(b, s->max_frames), s->elems);
        break;
    case COL_RAGGED: { /* always ragged: it is its only form */
        unsigned q;
        n->values = mul(b, s->max);
        n->row_splits = add(b, 1);
        for (q = 0; q < s->nparts; q++)
            n->parts[q] = add(mul(b, s->parts[q].max_rows), 1);
        break;
    }
    case COL_SPARSE: /* always sparse: it is its only form */
        n->values = mul(b, s->max);
        n->indices = mul(n->values, s->rank + 1u);
        n->lengths = 0;
        break;
    case COL_LIST_RAGGED: { /* always ragged: it is its only form */
        unsigned q;
        n->values = mul(mul(b, s->max_frames), s->max);
        n->row_splits = add(b, 1);
        n->inner_splits = add(mul(b, s->max_frames), 1);
        for (q = 0; q < s->nparts; q++)
            n->parts[q] = add(mul(mul(b, s->max_frames), s->parts[q].max_rows), 1);
        break;
    }
    case COL_LIST_VARLEN:
        n->values = mul(mul(b, s->max_frames), s->max);
        if (forms & FC_BATCH_SPARSE)
            n->indices = mul(n->values, 3);
        if (forms & FC_BATCH_RAGGED) {
            n->row_splits = add(b, 1);
            n->inner_splits = add(mul(b, s->max_frames), 1);
        }
        break;
    }
    if (s->buckets > 0) {
        n->buckets = n->values;
        n->hot = s->hot == FC_HOT_ONE ? mul(n->values, s->buckets)
                 : s->hot == FC_HOT_MULTI ? mul(b, s->buckets)
                                          : 0;
    }
}

/* Reserves a piece of `count` elements of `size` bytes at *used (rounded
 * up to FC_BATCH_ALIGN) and returns where it starts in the block, or NULL
 * for an empty piece or when only measuring (mem NULL). */
static void *piece(unsigned char *mem, size_t *used, size_t count, size_t size)
{
    size_t at = *used, bytes = mul(count, size);
    if (count == 0)
        return NULL;
    *used = add(*used, bytes > SIZE_MAX - FC_BATCH_ALIGN ? SIZE_MAX : FC_BATCH_ROUND(bytes));
    return mem != NULL ? mem + at : NULL;
}

static size_t bind_one(const col_spec *s, fc_column *c, size_t b, unsigned forms,
                       unsigned char *mem, size_t used)
{
    col_need n;
    void *values, *indices, *row_splits, *inner_splits, *lengths, *buckets, *hot;
    void *parts[FC_MAX_RANK];
    unsigned q;
    need_of(s, b, forms, &n);
    values = piece(mem, &used, n.values, s->ts);
    indices = piece(mem, &used, n.indices, sizeof(int64_t));
    row_splits = piece(mem, &used, n.row_splits, sizeof(int64_t));
    inner_splits = piece(mem, &used, n.inner_splits, sizeof(int64_t));
    lengths = piece(mem, &used, n.lengths, sizeof(int64_t));
    buckets = piece(mem, &used, n.buckets, sizeof(int64_t));
    hot = piece(mem, &used, n.hot, sizeof(float));
    for (q = 0; q < FC_MAX_RANK; q++)
        parts[q] = piece(mem, &used, n.parts[q], sizeof(int64_t));
    if (c != NULL) {
        memset(c, 0, sizeof *c);
        c->packed = (forms & FC_BATCH_PACKED) != 0;
        c->values = values;
        c->values_cap = n.values;
        c->indices = (int64_t *)indices;
        c->indices_cap = n.indices;
        c->row_splits = (int64_t *)row_splits;
        c->row_splits_cap = n.row_splits;
        c->inner_splits = (int64_t *)inner_splits;
        c->inner_splits_cap = n.inner_splits;
        c->lengths = (int64_t *)lengths;
        c->lengths_cap = n.lengths;
        c->buckets = (int64_t *)buckets;
        c->buckets_cap = n.buckets;
        c->hot = (float *)hot;
        c->hot_cap = n.hot;
        for (q = 0; q < FC_MAX_RANK; q++) {
            c->part_splits[q] = (int64_t *)parts[q];
            c->part_splits_cap[q] = n.parts[q];
        }
    }
    return used;
}

/* The block is measured with FC_BATCH_ALIGN - 1 bytes of slack, so that
 * any block of that size can be aligned. */
static size_t bind_all(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists,
                       size_t nl, fc_column *cols, size_t b, unsigned forms, void *mem,
                       size_t size)
{
    size_t i, used = 0, skip;
    col_spec s;
    for (i = 0; i < nf + nl; i++) {
        if (i < nf)
            spec_of_field(&fields[i], &s);
        else
            spec_of_list(&lists[i - nf], &s);
        used = bind_one(&s, NULL, b, forms, NULL, used);
    }
    used = add(used, FC_BATCH_ALIGN - 1);
    if (used == SIZE_MAX)
        return 0;
    if (mem == NULL || size < used)
        return used;
    skip = (FC_BATCH_ALIGN - (size_t)((uintptr_t)mem % FC_BATCH_ALIGN)) % FC_BATCH_ALIGN;
    for (i = 0, size = 0; i < nf + nl; i++) {
        if (i < nf)
            spec_of_field(&fields[i], &s);
        else
            spec_of_list(&lists[i - nf], &s);
        size = bind_one(&s, &cols[i], b, forms, (unsigned char *)mem + skip, size);
    }
    return used;
}

size_t fc_batch_bind(const fc_message_desc *md, fc_column *cols, size_t b, unsigned forms,
                     void *mem, size_t size)
{
    return bind_all(md->fields, md->nfields, NULL, 0, cols, b, forms, mem, size);
}

size_t fc_batch_bind_seq(const fc_seq_desc *sd, fc_column *cols, size_t b, unsigned forms,
                         void *mem, size_t size)
{
    return bind_all(sd->context, sd->ncontext, sd->lists, sd->nlists, cols, b, forms, mem, size);
}

/* ------------------------------------------------------------ errors */

static void msg_column(fc_msg *m, const col_spec *s)
{
    fc_msg_str(m, "column \"");
    fc_msg_mem(m, s->key, s->key_len);
    fc_msg_str(m, "\": ");
}

/* A buffer too small.  Before the first record, for what B alone decides
 * (rec FC_NO_INDEX: FC_ERR_ARG, "batch of N records: ..."); or when record
 * rec's data would outgrow it, before anything is written past it
 * (FC_ERR_NO_SPACE, "batch record R: ..."). */
static int too_small(fc_error *err, size_t n, uint64_t rec, const col_spec *s, const char *what,
                     size_t need, size_t cap)
{
    int status = rec == FC_NO_INDEX ? FC_ERR_ARG : FC_ERR_NO_SPACE;
    fc_msg m = fc_error_begin(err, status, rec == FC_NO_INDEX ? FC_NO_INDEX : rec, FC_NO_INDEX);
    if (rec == FC_NO_INDEX) {
        fc_msg_str(&m, "batch of ");
        fc_msg_u64(&m, n);
        fc_msg_str(&m, " records: ");
    } else {
        fc_msg_str(&m, "batch record ");
        fc_msg_u64(&m, rec);
        fc_msg_str(&m, ": ");
    }
    msg_column(&m, s);
    fc_msg_str(&m, what);
    fc_msg_str(&m, " needs room for ");
    fc_msg_u64(&m, need);
    fc_msg_str(&m, ", has ");
    fc_msg_u64(&m, cap);
    if (rec != FC_NO_INDEX)
        fc_msg_str(&m, " (fc_batch_bind sizes buffers for the spec's bounds)");
    return status;
}

/* Turns a single-record error of record i into the batched one.
 * TensorFlow's batched Example texts name the record: "Name: <unknown>,
 * Key: K, Index: I.  ..." where the single texts say "Key: K.  ..." and
 * "Name: <unknown>, Feature: K ..." where they say "Feature: K ...".  Other
 * texts (structure errors; SequenceExample texts, which are the same in
 * both) get the record's index appended. */
#ifdef FC_NO_ERRMSG
static void batch_error(const fc_field_desc *fields, size_t nfields, fc_error *err, size_t i)
{
    (void)fields;
    (void)nfields;
    if (err != NULL)
        err->record = i;
}
#else
/* The field whose key, as fc_msg_mem writes it, follows `prefix` at the
 * start of text and is followed by `after`: the longest such key (keys may
 * be prefixes of each other).  Returns its index + 1 (0: none) and in *rest
 * the text past `after`. */
static size_t match_key(const fc_field_desc *fields, size_t nfields, const char *text,
                        const char *prefix, const char *after, const char **rest)
{
    char key[FC_ERROR_MSG_SIZE];
    size_t k, best = 0, best_len = 0, np = strlen(prefix), na = strlen(after);
    if (strncmp(text, prefix, np) != 0)
        return 0;
    for (k = 0; k < nfields; k++) {
        fc_msg km;
        fc_msg_init(&km, key, sizeof key);
        fc_msg_mem(&km, fields[k].key, fields[k].key_len);
        if (!km.cut && (best == 0 || km.len > best_len) && strncmp(text + np, key, km.len) == 0 &&
            strncmp(text + np + km.len, after, na) == 0) {
            best = k + 1;
            best_len = km.len;
        }
    }
    if (best != 0)
        *rest = text + np + best_len + na;
    return best;
}

static void batch_error(const fc_field_desc *fields, size_t nfields, fc_error *err, size_t i)
{
    char old[FC_ERROR_MSG_SIZE];
    const char *rest = NULL;
    size_t best = 0;
    fc_msg m;
    if (err == NULL)
        return;
    memcpy(old, err->message, sizeof old);
    old[sizeof old - 1] = '\0';
    err->record = i;
    fc_msg_init(&m, err->message, sizeof err->message);
    if (fields != NULL) {
        best = match_key(fields, nfields, old, "Key: ", ".  ", &rest);
        if (best != 0 && strncmp(rest, FC_TF_CANT_PARSE ": Some ", strlen(FC_TF_CANT_PARSE) + 7) == 0) {
            /* a count: the batched text is the detail that follows */
            const char *p = strstr(rest, FC_TF_SLICE_NOT_PARSED);
            if (p != NULL)
                rest = p + strlen(FC_TF_SLICE_NOT_PARSED);
        }
        if (best == 0) {
            /* a stride: TF's single text names the key its own way */
            const char *mid;
            best = match_key(fields, nfields, old, FC_TF_STRIDE_KEY, FC_TF_STRIDE_MID, &rest);
            mid = best != 0 ? strstr(rest, FC_TF_STRIDE_END) : NULL;
            if (mid != NULL)
                rest = mid + strlen(FC_TF_STRIDE_END);
            else
                best = 0;
        }
    }
    if (best != 0) {
        fc_msg_str(&m, "Name: <unknown>, Key: ");
        fc_msg_mem(&m, fields[best - 1].key, fields[best - 1].key_len);
        fc_msg_str(&m, ", Index: ");
        fc_msg_u64(&m, i);
        fc_msg_str(&m, ".  ");
        if (strncmp(rest, FC_TF_CANT_PARSE ": ", strlen(FC_TF_CANT_PARSE) + 2) == 0) {
            /* the batched path's "Can't parse serialized Example.", then the
             * single path's detail */
            fc_msg_str(&m, FC_TF_CANT_PARSE ". ");
            rest += strlen(FC_TF_CANT_PARSE) + 2;
        }
        fc_msg_str(&m, rest);
        return;
    }
    if (fields != NULL && strncmp(old, "Feature: ", 9) == 0) {
        fc_msg_str(&m, "Name: <unknown>, ");
        fc_msg_str(&m, old);
        fc_msg_str(&m, " (record ");
        fc_msg_u64(&m, i);
        fc_msg_str(&m, " of the batch)");
        return;
    }
    fc_msg_str(&m, old);
    fc_msg_str(&m, " (record ");
    fc_msg_u64(&m, i);
    fc_msg_str(&m, " of the batch)");
}

/* The error is fc_ex_sparse's: a SparseFeature's counts disagree. */
static int sparse_rows_error(const fc_error *err)
{
    return strncmp(err->message, FC_TF_SPARSE_ROWS, strlen(FC_TF_SPARSE_ROWS)) == 0;
}

/* A SparseFeature whose index and value counts disagree in record i.
 * parse_example itself succeeds; TensorFlow then checks the SparseTensor
 * of the whole batch, so its counts are totals over the batch, and a
 * record after i that does not parse is what it reports instead.  The
 * totals: records before i (each agreed: the column's values), record i,
 * then each later record, parsed again into scratch.  Returns the status
 * of the error left in err. */
static int sparse_error(const fc_field_desc *fields, size_t nf, const fc_column *cols,
                        int (*parse)(void *, const void *, size_t, fc_error *), void *scratch,
                        const fc_bytes *records, size_t n, size_t i, fc_error *err)
{
    char detail[FC_ERROR_MSG_SIZE];
    const char *at = strstr(err->message, FC_SPARSE_DETAIL), *rest = NULL;
    size_t sp = at != NULL ? match_key(fields, nf, at, FC_SPARSE_DETAIL, ": index key ", &rest) : 0;
    size_t xk = sp != 0 ? match_key(fields, nf, rest, "", " has ", &rest) : 0, k, nx, nv;
    const fc_field_desc *xf, *vf;
    fc_msg m;
    if (sp == 0 || xk == 0 || fields[sp - 1].kind != FC_KIND_SPARSE) {
        batch_error(fields, nf, err, i);
        return err->status;
    }
    xf = &fields[xk - 1];
    vf = &fields[fields[sp - 1].extra->sparse_fields[fields[sp - 1].rank]];
    memcpy(detail, at, sizeof detail - (size_t)(at - err->message));
    nx = nv = cols[sp - 1].nvalues;
    for (k = i; k < n; k++) {
        if (k > i && parse(scratch, records[k].data, records[k].size, err) != FC_OK &&
            !sparse_rows_error(err)) {
            batch_error(fields, nf, err, k);
            return err->status;
        }
        nx += fc_load_size((const unsigned char *)scratch + xf->count_offset);
        nv += fc_load_size((const unsigned char *)scratch + vf->count_offset);
    }
    fc_msg_init(&m, err->message, sizeof err->message);
    err->status = FC_ERR_PARSE;
    err->record = i;
    fc_msg_str(&m, FC_TF_SPARSE_ROWS);
    fc_msg_u64(&m, nx);
    fc_msg_str(&m, ", values = ");
    fc_msg_u64(&m, nv);
    fc_msg_str(&m, ") over the batch ");
    fc_msg_str(&m, detail);
    fc_msg_str(&m, " (record ");
    fc_msg_u64(&m, i);
    fc_msg_str(&m, " of the batch)");
    return FC_ERR_PARSE;
}
#endif /* FC_NO_ERRMSG */

/* ------------------------------------------------------------ parsing */

/* Capacities that B alone decides. */
static int check_fixed_caps(const col_spec *s, const fc_column *c, size_t n, fc_error *err)
{
    size_t need;
    if (s->buckets > 0 && s->kind == COL_FIXED && c->buckets != NULL &&
        c->buckets_cap < mul(n, s->elems))
        return too_small(err, n, FC_NO_INDEX, s, "buckets", mul(n, s->elems), c->buckets_cap);
    if (s->buckets > 0 && c->hot != NULL) {
        need = s->hot == FC_HOT_ONE ? mul(mul(n, s->elems), s->buckets)
               : s->hot == FC_HOT_MULTI ? mul(n, s->buckets)
                                        : 0;
        if (c->hot_cap < need)
            return too_small(err, n, FC_NO_INDEX, s, "hot", need, c->hot_cap);
    }
    if (s->kind == COL_RAGGED || s->kind == COL_LIST_RAGGED) {
        unsigned q;
        if (c->row_splits == NULL || c->row_splits_cap < n + 1)
            return too_small(err, n, FC_NO_INDEX, s, "row_splits", n + 1,
                             c->row_splits == NULL ? 0 : c->row_splits_cap);
        if (s->kind == COL_LIST_RAGGED && (c->inner_splits == NULL || c->inner_splits_cap < 1))
            return too_small(err, n, FC_NO_INDEX, s, "inner_splits", 1,
                             c->inner_splits == NULL ? 0 : c->inner_splits_cap);
        for (q = 0; q < s->nparts; q++)
            if (c->part_splits[q] == NULL || c->part_splits_cap[q] < 1)
                return too_small(err, n, FC_NO_INDEX, s, "part_splits", 1,
                                 c->part_splits[q] == NULL ? 0 : c->part_splits_cap[q]);
    }
    switch (s->kind) {
    case COL_FIXED:
        need = mul(n, s->elems);
        if (need > 0 && (c->values == NULL || c->values_cap < need))
            return too_small(err, n, FC_NO_INDEX, s, "values", need,
                             c->values == NULL ? 0 : c->values_cap);
        return FC_OK;
    case COL_ROWS:
    case COL_LIST_FIXED:
        if (n > 0 && (c->lengths == NULL || c->lengths_cap < n))
            return too_small(err, n, FC_NO_INDEX, s, "lengths", n,
                             c->lengths == NULL ? 0 : c->lengths_cap);
        return FC_OK;
    default:
        if (c->lengths != NULL && c->lengths_cap < n)
            return too_small(err, n, FC_NO_INDEX, s, "lengths", n, c->lengths_cap);
        if (c->row_splits != NULL && c->row_splits_cap < n + 1)
            return too_small(err, n, FC_NO_INDEX, s, "row_splits", n + 1, c->row_splits_cap);
        if (s->kind == COL_LIST_VARLEN && c->inner_splits != NULL && c->inner_splits_cap < 1)
            return too_small(err, n, FC_NO_INDEX, s, "inner_splits", 1, c->inner_splits_cap);
        return FC_OK;
    }
}

static void start_column(const col_spec *s, fc_column *c)
{
    c->nvalues = 0;
    c->nindices = 0;
    c->nframes = 0;
    c->rank = 0;
    memset(c->shape, 0, sizeof c->shape);
    if (c->row_splits != NULL)
        c->row_splits[0] = 0;
    if ((s->kind == COL_LIST_VARLEN || s->kind == COL_LIST_RAGGED) && c->inner_splits != NULL)
        c->inner_splits[0] = 0;
    if (s->kind == COL_RAGGED || s->kind == COL_LIST_RAGGED) {
        unsigned q;
        for (q = 0; q < s->nparts; q++) {
            c->part_splits[q][0] = 0;
            c->part_nsplits[q] = 1;
        }
    }
}

/* Record i's hot vectors (count values). */
static void append_hot(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                       size_t count)
{
    size_t n = s->hot == FC_HOT_ONE ? count * s->buckets : s->buckets;
    if (c->hot == NULL || s->hot == 0)
        return;
    memcpy(c->hot + i * n, m + s->hot_offset, n * sizeof(float));
}

/* Room for cnt more values in c's values buffer (record i). */
static int values_room(const col_spec *s, const fc_column *c, size_t i, size_t cnt,
                       fc_error *err)
{
    size_t total = c->nvalues + cnt;
    if (cnt > 0 && (c->values == NULL || c->values_cap < total))
        return too_small(err, 0, i, s, "values", total, c->values == NULL ? 0 : c->values_cap);
    return FC_OK;
}

/* Copies cnt values from src after the column's values so far (room
 * checked); c->nvalues is the caller's to advance. */
static void values_copy(const col_spec *s, fc_column *c, const unsigned char *src, size_t cnt)
{
    size_t ts = s->ts;
    if (cnt > 0)
        memcpy((unsigned char *)c->values + c->nvalues * ts, src, cnt * ts);
}

static int append_fixed(const col_spec *s, fc_column *c, const unsigned char *m, size_t i)
{
    size_t ts = s->ts;
    if (s->elems > 0)
        memcpy((unsigned char *)c->values + i * s->elems * ts, m + s->value_offset, s->elems * ts);
    if (s->buckets > 0 && s->elems > 0) {
        if (c->buckets != NULL)
            memcpy(c->buckets + i * s->elems, m + s->bucket_offset, s->elems * sizeof(int64_t));
        append_hot(s, c, m, i, s->elems);
    }
    c->nvalues += s->elems;
    return FC_OK;
}

static int append_varlen(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                         fc_error *err)
{
    int rc;
    size_t cnt = fc_load_size(m + s->count_offset), total = c->nvalues + cnt;
    if ((rc = values_room(s, c, i, cnt, err)) != FC_OK)
        return rc;
    if (c->indices != NULL && cnt > 0 && c->indices_cap / 2 < total)
        return too_small(err, 0, i, s, "indices", mul(total, 2), c->indices_cap);
    if (s->buckets > 0 && c->buckets != NULL && cnt > 0 && c->buckets_cap < total)
        return too_small(err, 0, i, s, "buckets", total, c->buckets_cap);
    if (s->buckets > 0) {
        if (c->buckets != NULL && cnt > 0)
            memcpy(c->buckets + c->nvalues, m + s->bucket_offset, cnt * sizeof(int64_t));
        append_hot(s, c, m, i, cnt);
    }
    /* the values, indices, splits and lengths: as the generated assembly
     * writes them (the capacities are checked above, with their texts) */
    (void)fc_batch_put_varlen(c, i, m + s->value_offset, cnt, s->ts);
    return FC_OK;
}

/* Split k of partition q of the struct m (of frame t, for a list), as int64. */
static int64_t part_split(const col_spec *s, const unsigned char *m, unsigned q, size_t t,
                          size_t k)
{
    const unsigned char *sp = m + s->parts[q].splits_offset +
                              t * (s->parts[q].max_rows + 1u) * (s->split64 ? 8u : 4u);
    int64_t v;
    int32_t w;
    if (s->split64) {
        memcpy(&v, sp + k * 8, 8);
        return v;
    }
    memcpy(&w, sp + k * 4, 4);
    return w;
}

static int append_ragged(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                         fc_error *err)
{
    int rc;
    size_t cnt = fc_load_size(m + s->count_offset), k, top;
    unsigned q;
    if ((rc = values_room(s, c, i, cnt, err)) != FC_OK)
        return rc;
    for (q = 0; q < s->nparts; q++) {
        size_t rows = fc_load_size(m + s->parts[q].rows_offset);
        if (c->part_splits_cap[q] - c->part_nsplits[q] < rows)
            return too_small(err, 0, i, s, "part_splits", c->part_nsplits[q] + rows,
                             c->part_splits_cap[q]);
    }
    values_copy(s, c, m + s->value_offset, cnt);
    for (q = 0; q < s->nparts; q++) {
        /* this record's splits, shifted by the items of the next level so far */
        size_t rows = fc_load_size(m + s->parts[q].rows_offset);
        int64_t shift = q + 1 < s->nparts ? (int64_t)(c->part_nsplits[q + 1] - 1)
                                          : (int64_t)c->nvalues;
        for (k = 1; k <= rows; k++)
            c->part_splits[q][c->part_nsplits[q]++] = shift + part_split(s, m, q, 0, k);
    }
    c->nvalues += cnt;
    top = s->nparts > 0 ? fc_load_size(m + s->parts[0].rows_offset) : cnt;
    c->row_splits[i + 1] = c->row_splits[i] + (int64_t)top;
    if (c->lengths != NULL)
        c->lengths[i] = (int64_t)top;
    return FC_OK;
}

/* A RaggedFeature list: each frame as append_ragged appends a record, with
 * the frames' splits over their top level (the outermost partition's rows,
 * or the values) in inner_splits. */
static int append_list_ragged(const col_spec *s, fc_column *c, const unsigned char *m,
                              size_t i, fc_error *err)
{
    int rc;
    size_t frames = fc_load_size(m + s->frames_offset), cnt = 0, t, k;
    size_t ts = s->ts;
    unsigned q;
    for (t = 0; t < frames; t++)
        cnt += fc_load_size(m + s->count_offset + t * sizeof(size_t));
    if ((rc = values_room(s, c, i, cnt, err)) != FC_OK)
        return rc;
    if (c->inner_splits_cap - 1 - c->nframes < frames)
        return too_small(err, 0, i, s, "inner_splits", c->nframes + frames + 1,
                         c->inner_splits_cap);
    for (q = 0; q < s->nparts; q++) {
        size_t rows = 0;
        for (t = 0; t < frames; t++)
            rows += fc_load_size(m + s->parts[q].rows_offset + t * sizeof(size_t));
        if (c->part_splits_cap[q] - c->part_nsplits[q] < rows)
            return too_small(err, 0, i, s, "part_splits", c->part_nsplits[q] + rows,
                             c->part_splits_cap[q]);
    }
    for (t = 0; t < frames; t++) {
        size_t fc = fc_load_size(m + s->count_offset + t * sizeof(size_t)), top;
        values_copy(s, c, m + s->value_offset + t * s->max * ts, fc);
        for (q = 0; q < s->nparts; q++) {
            /* this frame's splits, shifted by the items of the next level so far */
            size_t rows = fc_load_size(m + s->parts[q].rows_offset + t * sizeof(size_t));
            int64_t shift = q + 1 < s->nparts ? (int64_t)(c->part_nsplits[q + 1] - 1)
                                              : (int64_t)c->nvalues;
            for (k = 1; k <= rows; k++)
                c->part_splits[q][c->part_nsplits[q]++] = shift + part_split(s, m, q, t, k);
        }
        c->nvalues += fc;
        top = s->nparts > 0 ? fc_load_size(m + s->parts[0].rows_offset + t * sizeof(size_t))
                            : fc;
        c->nframes++;
        c->inner_splits[c->nframes] = c->inner_splits[c->nframes - 1] + (int64_t)top;
    }
    c->row_splits[i + 1] = (int64_t)c->nframes;
    if (c->lengths != NULL)
        c->lengths[i] = (int64_t)frames;
    return FC_OK;
}

static int append_sparse(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                         fc_error *err)
{
    int rc;
    size_t cnt = fc_load_size(m + s->count_offset), total = c->nvalues + cnt, w = s->rank + 1u, k;
    const int64_t *ix = (const int64_t *)(const void *)(m + s->indices_offset);
    unsigned r;
    if ((rc = values_room(s, c, i, cnt, err)) != FC_OK)
        return rc;
    if (cnt > 0 && (c->indices == NULL || c->indices_cap / w < total))
        return too_small(err, 0, i, s, "indices", mul(total, w),
                         c->indices == NULL ? 0 : c->indices_cap);
    values_copy(s, c, m + s->value_offset, cnt);
    for (k = 0; k < cnt; k++) {
        int64_t *row = c->indices + (c->nvalues + k) * w;
        row[0] = (int64_t)i;
        for (r = 0; r < s->rank; r++)
            row[r + 1] = ix[k * s->rank + r];
    }
    c->nvalues = total;
    if (c->lengths != NULL)
        c->lengths[i] = (int64_t)cnt;
    return FC_OK;
}

/* FixedLenSequence rows, or the frames of a fixed-shape feature list. */
static int append_rows(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                       fc_error *err)
{
    int rc;
    size_t rows = fc_load_size(m + (s->kind == COL_ROWS ? s->count_offset : s->frames_offset));
    if ((rc = values_room(s, c, i, rows * s->elems, err)) != FC_OK)
        return rc;
    (void)fc_batch_put_rows(c, i, m + s->value_offset, rows, s->elems, s->ts);
    return FC_OK;
}

/* A VarLen feature list: each frame's values, with [record, frame, value]
 * indices and the frames' inner splits. */
static int append_list_varlen(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                              fc_error *err)
{
    int rc;
    size_t frames = fc_load_size(m + s->frames_offset), cnt = 0, total, t, at;
    const size_t *counts = (const size_t *)(const void *)(m + s->count_offset);
    for (t = 0; t < frames; t++)
        cnt += counts[t];
    total = c->nvalues + cnt;
    if ((rc = values_room(s, c, i, cnt, err)) != FC_OK)
        return rc;
    if (c->indices != NULL && cnt > 0 && c->indices_cap / 3 < total)
        return too_small(err, 0, i, s, "indices", mul(total, 3), c->indices_cap);
    if (s->buckets > 0 && c->buckets != NULL && cnt > 0 && c->buckets_cap < total)
        return too_small(err, 0, i, s, "buckets", total, c->buckets_cap);
    if (c->inner_splits != NULL && frames > 0 && c->inner_splits_cap - 1 < c->nframes + frames)
        return too_small(err, 0, i, s, "inner_splits", c->nframes + frames + 1,
                         c->inner_splits_cap);
    if (s->buckets > 0 && c->buckets != NULL)
        for (t = 0, at = c->nvalues; t < frames; at += counts[t], t++)
            if (counts[t] > 0)
                memcpy(c->buckets + at, m + s->bucket_offset + t * s->max * sizeof(int64_t),
                       counts[t] * sizeof(int64_t));
    /* the values, indices and splits: as the generated assembly writes
     * them (the capacities are checked above, with their texts) */
    (void)fc_batch_put_frames(c, i, m + s->value_offset, counts, frames, s->max,
                              s->ts);
    return FC_OK;
}

/* Appends record i's values from the scratch struct m.  shape[1] and
 * shape[2] keep the running maxima until finish_column. */
static int append(const col_spec *s, fc_column *c, const unsigned char *m, size_t i,
                  fc_error *err)
{
    switch (s->kind) {
    case COL_FIXED:
        return append_fixed(s, c, m, i);
    case COL_VARLEN:
        return append_varlen(s, c, m, i, err);
    case COL_RAGGED:
        return append_ragged(s, c, m, i, err);
    case COL_SPARSE:
        return append_sparse(s, c, m, i, err);
    case COL_ROWS:
    case COL_LIST_FIXED:
        return append_rows(s, c, m, i, err);
    case COL_LIST_VARLEN:
        return append_list_varlen(s, c, m, i, err);
    case COL_LIST_RAGGED:
        return append_list_ragged(s, c, m, i, err);
    }
    return FC_OK;
}

/* Spreads packed blocks to stride R * elems, last first, and pads. */
static void spread(const col_spec *s, fc_column *c, size_t n, size_t r)
{
    size_t ts = s->ts, block = r * s->elems, packed = c->nvalues, b, k;
    unsigned char *vals = (unsigned char *)c->values;
    const void *pad = s->typed_pad ? (const void *)&s->pad_as : s->pad;
    for (b = n; b-- > 0;) {
        size_t len = (size_t)c->lengths[b] * s->elems;
        packed -= len;
        if (len > 0 && packed != b * block)
            memmove(vals + b * block * ts, vals + packed * ts, len * ts);
        if (pad == NULL) { /* 0, 0.0 or "" (an empty view): zero bytes */
            if (len < block)
                memset(vals + (b * block + len) * ts, 0, (block - len) * ts);
            continue;
        }
        for (k = len; k < block; k++)
            memcpy(vals + (b * block + k) * ts, pad, ts);
    }
}

static int finish_column(const col_spec *s, fc_column *c, size_t n, fc_error *err)
{
    unsigned d;
    int64_t most = c->shape[1], most_in_frame = c->shape[2];
    switch (s->kind) {
    case COL_FIXED:
        c->rank = s->rank + 1;
        c->shape[0] = (int64_t)n;
        for (d = 0; d < s->rank; d++)
            c->shape[d + 1] = (int64_t)s->dims[d];
        return FC_OK;
    case COL_ROWS:
    case COL_LIST_FIXED: {
        size_t r = (size_t)most, need = mul(mul(n, r), s->elems);
        if (c->packed) { /* (FC_BATCH_PACKED: as appended, nvalues the packed count) */
            c->rank = s->rank + 2;
            c->shape[0] = (int64_t)n;
            c->shape[1] = (int64_t)r;
            for (d = 0; d < s->rank; d++)
                c->shape[d + 2] = (int64_t)s->dims[d];
            return FC_OK;
        }
        if (need > 0 && (c->values == NULL || c->values_cap < need))
            return too_small(err, 0, n > 0 ? n - 1 : 0, s, "values (padded)", need,
                                c->values == NULL ? 0 : c->values_cap);
        spread(s, c, n, r);
        c->nvalues = need;
        c->rank = s->rank + 2;
        c->shape[0] = (int64_t)n;
        c->shape[1] = (int64_t)r;
        for (d = 0; d < s->rank; d++)
            c->shape[d + 2] = (int64_t)s->dims[d];
        return FC_OK;
    }
    case COL_VARLEN:
        c->nindices = c->indices != NULL ? c->nvalues : 0;
        c->rank = 2;
        c->shape[0] = (int64_t)n;
        c->shape[1] = most;
        return FC_OK;
    case COL_RAGGED:
        c->rank = 0;
        c->shape[0] = (int64_t)n;
        return FC_OK;
    case COL_LIST_RAGGED: /* ragged over frames: no dense shape */
        c->rank = 0;
        c->shape[0] = (int64_t)n;
        return FC_OK;
    case COL_SPARSE:
        c->nindices = c->nvalues;
        c->rank = s->rank + 1;
        c->shape[0] = (int64_t)n;
        for (d = 0; d < s->rank; d++)
            c->shape[d + 1] = (int64_t)s->dims[d];
        return FC_OK;
    case COL_LIST_VARLEN:
        c->nindices = c->indices != NULL ? c->nvalues : 0;
        c->rank = 3;
        c->shape[0] = (int64_t)n;
        c->shape[1] = most;
        c->shape[2] = most_in_frame;
        return FC_OK;
    }
    return FC_OK;
}

static void spec_at(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists, size_t j,
                    col_spec *s)
{
    if (j < nf)
        spec_of_field(&fields[j], s);
    else
        spec_of_list(&lists[j - nf], s);
}

/* Columns whose col_spec the batch loop builds once, on the stack (about
 * 170 bytes each); those past them are built again per record.  Building
 * one per column per record was 41% of a tutorial batch. */
#define SPEC_CACHE 8

/* Column j's col_spec: the cached one, or one built into *s. */
static const col_spec *spec_of(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists,
                               const col_spec *cache, size_t j, col_spec *s)
{
    if (j < SPEC_CACHE)
        return &cache[j];
    spec_at(fields, nf, lists, j, s);
    return s;
}

/* The start of run() and each(): the error cleared, the records there,
 * the first SPEC_CACHE columns' col_specs into cache, every column's
 * capacities for n records checked and the column readied. */
static int start_batch(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists,
                       size_t nl, col_spec *cache, fc_column *cols, const fc_bytes *records,
                       size_t n, fc_error *err)
{
    size_t nc = nf + nl, j, ncached = nc < SPEC_CACHE ? nc : SPEC_CACHE;
    col_spec s;
    int rc;
    if (err != NULL)
        fc_error_clear(err);
    if (n > 0 && records == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "batch of records: no records given");
        return FC_ERR_ARG;
    }
    for (j = 0; j < ncached; j++)
        spec_at(fields, nf, lists, j, &cache[j]);
    for (j = 0; j < nc; j++) {
        const col_spec *c = spec_of(fields, nf, lists, cache, j, &s);
        rc = check_fixed_caps(c, &cols[j], n, err);
        if (rc != FC_OK)
            return rc;
        start_column(c, &cols[j]);
    }
    return FC_OK;
}

/* The batch loop over nf fields then nl lists; each record's columns by
 * the generated assembly when there is one. */
/* Whether the direct path (md->batch_direct) may write these columns:
 * every VarLen column has its values (it writes at values + nvalues), and
 * every column's values are aligned for their type (it stores through
 * typed pointers, where fc_batch_put_fixed copies bytes).  Else the batch
 * goes record by record, as the columns are the caller's. */
#define ALIGN_OF(T) offsetof(struct { char c; T v; }, v)
static int aligned_for(fc_type t, const void *values)
{
    size_t a = t == FC_TYPE_INT64 ? ALIGN_OF(int64_t)
               : t == FC_TYPE_FLOAT ? ALIGN_OF(float)
                                    : ALIGN_OF(fc_bytes);
    return (size_t)((uintptr_t)values % a) == 0;
}

static int direct_usable(const fc_field_desc *fields, size_t nf, const fc_column *cols)
{
    size_t j;
    for (j = 0; j < nf; j++)
        if (cols[j].values == NULL ? fields[j].kind == FC_KIND_VARLEN
                                   : !aligned_for(fields[j].type, cols[j].values))
            return 0;
    return 1;
}

/* The same for a SequenceExample's direct path (fc_batch_seq_direct_desc),
 * which also writes every list's frames at values + nvalues. */
static int seq_direct_usable(const fc_seq_desc *sd, const fc_column *cols)
{
    size_t j;
    if (!fc_batch_seq_direct_fits(sd) || !direct_usable(sd->context, sd->ncontext, cols))
        return 0;
    for (j = 0; j < sd->nlists; j++) {
        const fc_column *c = &cols[sd->ncontext + j];
        if (c->values == NULL || !aligned_for(sd->lists[j].type, c->values))
            return 0;
    }
    return 1;
}

static int run(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists, size_t nl,
               int example, int (*parse)(void *, const void *, size_t, fc_error *),
               int (*gen)(fc_column *, const void *, size_t, fc_error *),
               size_t (*direct)(fc_column *, const fc_bytes *, size_t, size_t),
               const fc_seq_desc *seq, fc_column *cols, void *scratch, const fc_bytes *records,
               size_t n, fc_error *err)
{
    size_t nc = nf + nl, i, j;
    col_spec s, cache[SPEC_CACHE];
    int rc = start_batch(fields, nf, lists, nl, cache, cols, records, n, err);
    if (rc != FC_OK)
        return rc;
    if (direct != NULL && !direct_usable(fields, nf, cols))
        direct = NULL;
    if (seq != NULL && !seq_direct_usable(seq, cols))
        seq = NULL;
    for (i = 0; i < n; i++) {
        if (direct != NULL && (i = direct(cols, records, i, n)) == n)
            break; /* the rest taken; any other record: the per-record path */
        if (seq != NULL && (i = fc_batch_seq_direct_desc(seq, cols, scratch, records, i, n)) == n)
            break;
        rc = parse(scratch, records[i].data, records[i].size, err);
        if (rc != FC_OK) {
#ifndef FC_NO_ERRMSG
            if (example && err != NULL && sparse_rows_error(err))
                return sparse_error(fields, nf, cols, parse, scratch, records, n, i, err);
#endif
            batch_error(example ? fields : NULL, example ? nf : 0, err, i);
            return rc;
        }
        if (gen != NULL) {
            if ((rc = gen(cols, scratch, i, err)) != FC_OK)
                return rc;
            continue;
        }
        for (j = 0; j < nc; j++) {
            rc = append(spec_of(fields, nf, lists, cache, j, &s), &cols[j],
                        (const unsigned char *)scratch, i, err);
            if (rc != FC_OK)
                return rc;
        }
    }
    for (j = 0; j < nc; j++) {
        rc = finish_column(spec_of(fields, nf, lists, cache, j, &s), &cols[j], n, err);
        if (rc != FC_OK)
            return rc;
    }
    return FC_OK;
}

int fc_batch_parse(const fc_message_desc *md, fc_column *cols, void *scratch,
                   const fc_bytes *records, size_t n, fc_error *err)
{
    return run(md->fields, md->nfields, NULL, 0, 1,
               md->parse_batched != NULL ? md->parse_batched : md->parse, md->batch_append,
               md->batch_direct, NULL, cols, scratch, records, n, err);
}

/* The batch of a caller's per-record parse: fc_batch_begin, each record
 * parsed and appended column by column, fc_batch_end, with each column's
 * col_spec built once per batch (SPEC_CACHE of them) instead of once per
 * record in fc_batch_append_field; a failing record's error is its parse's
 * or its append's, with its place in the batch. */
static int each(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists, size_t nl,
                const fc_message_desc *direct, fc_ex_lookup_fn lookup, const void *lctx,
                const fc_seq_desc *seq, fc_record_parse_fn parse, void *ctx, fc_column *cols,
                void *scratch, const fc_bytes *records, size_t n, fc_error *err)
{
    size_t nc = nf + nl, i, j;
    col_spec s, cache[SPEC_CACHE];
    int rc = start_batch(fields, nf, lists, nl, cache, cols, records, n, err);
    if (direct != NULL && (lookup == NULL || !fc_batch_direct_fits(direct) ||
                           !direct_usable(fields, nf, cols)))
        direct = NULL;
    if (seq != NULL && !seq_direct_usable(seq, cols))
        seq = NULL;
    for (i = 0; i < n && rc == FC_OK; i++) {
        if (direct != NULL &&
            (i = fc_batch_direct_desc(direct, lookup, lctx, cols, records, i, n)) == n)
            break; /* the rest taken; any other record: the per-record path */
        if (seq != NULL && (i = fc_batch_seq_direct_desc(seq, cols, scratch, records, i, n)) == n)
            break;
        rc = parse(ctx, scratch, records[i].data, records[i].size, err);
        for (j = 0; j < nc && rc == FC_OK; j++)
            rc = append(spec_of(fields, nf, lists, cache, j, &s), &cols[j],
                        (const unsigned char *)scratch, i, err);
        if (rc != FC_OK && err != NULL)
            err->record = i;
    }
    for (j = 0; j < nc && rc == FC_OK; j++)
        rc = finish_column(spec_of(fields, nf, lists, cache, j, &s), &cols[j], n, err);
    return rc;
}

int fc_batch_parse_each(const fc_message_desc *md, fc_record_parse_fn parse, void *ctx,
                        fc_column *cols, void *scratch, const fc_bytes *records, size_t n,
                        fc_error *err)
{
    return each(md->fields, md->nfields, NULL, 0, NULL, NULL, NULL, NULL, parse, ctx, cols,
                scratch, records, n, err);
}

int fc_batch_parse_each_direct(const fc_message_desc *md, fc_ex_lookup_fn lookup,
                               const void *lctx, fc_record_parse_fn parse, void *ctx,
                               fc_column *cols, void *scratch, const fc_bytes *records, size_t n,
                               fc_error *err)
{
    return each(md->fields, md->nfields, NULL, 0, md, lookup, lctx, NULL, parse, ctx, cols,
                scratch, records, n, err);
}

int fc_batch_parse_each_seq(const fc_seq_desc *sd, fc_record_parse_fn parse, void *ctx,
                            fc_column *cols, void *scratch, const fc_bytes *records, size_t n,
                            fc_error *err)
{
    return each(sd->context, sd->ncontext, sd->lists, sd->nlists, NULL, NULL, NULL, NULL, parse,
                ctx, cols, scratch, records, n, err);
}

int fc_batch_parse_each_seq_direct(const fc_seq_desc *sd, fc_record_parse_fn parse, void *ctx,
                                   fc_column *cols, void *scratch, const fc_bytes *records,
                                   size_t n, fc_error *err)
{
    return each(sd->context, sd->ncontext, sd->lists, sd->nlists, NULL, NULL, NULL, sd, parse,
                ctx, cols, scratch, records, n, err);
}

/* The ends of run() for callers that parse the records themselves. */
static int begin_all(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists, size_t nl,
                     fc_column *cols, size_t n, fc_error *err)
{
    size_t j;
    col_spec s;
    int rc;
    if (err != NULL)
        fc_error_clear(err);
    for (j = 0; j < nf + nl; j++) {
        spec_at(fields, nf, lists, j, &s);
        if ((rc = check_fixed_caps(&s, &cols[j], n, err)) != FC_OK)
            return rc;
        start_column(&s, &cols[j]);
    }
    return FC_OK;
}

static int end_all(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists, size_t nl,
                   fc_column *cols, size_t n, fc_error *err)
{
    size_t j;
    col_spec s;
    int rc;
    for (j = 0; j < nf + nl; j++) {
        spec_at(fields, nf, lists, j, &s);
        if ((rc = finish_column(&s, &cols[j], n, err)) != FC_OK)
            return rc;
    }
    return FC_OK;
}

int fc_batch_begin(const fc_message_desc *md, fc_column *cols, size_t n, fc_error *err)
{
    return begin_all(md->fields, md->nfields, NULL, 0, cols, n, err);
}

int fc_batch_end(const fc_message_desc *md, fc_column *cols, size_t n, fc_error *err)
{
    return end_all(md->fields, md->nfields, NULL, 0, cols, n, err);
}

int fc_batch_begin_seq(const fc_seq_desc *sd, fc_column *cols, size_t n, fc_error *err)
{
    return begin_all(sd->context, sd->ncontext, sd->lists, sd->nlists, cols, n, err);
}

int fc_batch_end_seq(const fc_seq_desc *sd, fc_column *cols, size_t n, fc_error *err)
{
    return end_all(sd->context, sd->ncontext, sd->lists, sd->nlists, cols, n, err);
}

int fc_batch_append_field(const fc_message_desc *md, size_t j, fc_column *cols, const void *msg,
                          size_t i, fc_error *err)
{
    col_spec s;
    spec_at(md->fields, md->nfields, NULL, j, &s);
    return append(&s, &cols[j], (const unsigned char *)msg, i, err);
}

int fc_batch_parse_seq(const fc_seq_desc *sd, fc_column *cols, void *scratch,
                       const fc_bytes *records, size_t n, fc_error *err)
{
    return run(sd->context, sd->ncontext, sd->lists, sd->nlists, 0, sd->parse, sd->batch_append,
               NULL, sd, cols, scratch, records, n, err);
}

int fc_batch_append_seq(const fc_seq_desc *sd, size_t j, fc_column *cols, const void *msg,
                        size_t i, fc_error *err)
{
    col_spec s;
    spec_at(sd->context, sd->ncontext, sd->lists, j, &s);
    return append(&s, &cols[j], (const unsigned char *)msg, i, err);
}
