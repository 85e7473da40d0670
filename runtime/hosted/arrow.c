/* Batches as Arrow arrays (fc_arrow.h): the C Data Interface.
 *
 * Each column is planned as a chain of levels from the record down to the
 * values (a list level with its offsets, a fixed-size level with its size,
 * or the struct of a SparseFeature), then built as a tree of ArrowArray
 * nodes and, with the same plan, of ArrowSchema nodes.  Every node owns
 * what it allocated (its private part: the buffers it computed or copied,
 * its children's storage) and frees it in its release callback; nodes that
 * view the batch's block hold a reference to it, and the last release
 * frees it. */
#include "featc/fc_arrow.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the block */

typedef struct block_ref {
    void *mem;
    void (*free_fn)(void *);
    size_t refs;
} block_ref;

/* (arrays may be released on any thread: the count is atomic, with GCC's
 * and clang's builtins, or under a mutex) */
#if defined(__GNUC__) || defined(__clang__)
static size_t refs_add(block_ref *b, int d)
{
    return d > 0 ? __atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED)
                 : __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
}
#else
static pthread_mutex_t refs_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t refs_add(block_ref *b, int d)
{
    size_t left;
    pthread_mutex_lock(&refs_mu);
    left = d > 0 ? ++b->refs : --b->refs;
    pthread_mutex_unlock(&refs_mu);
    return left;
}
#endif

static void block_hold(block_ref *b)
{
    if (b != NULL)
        refs_add(b, 1);
}

static void block_drop(block_ref *b)
{
    if (b != NULL && refs_add(b, -1) == 0) {
        if (b->free_fn != NULL)
            b->free_fn(b->mem);
        free(b);
    }
}

/* A buffer for an empty array (no buffer but validity may be NULL),
 * aligned as the others. */
static const int64_t empty_space[2 * FC_ARROW_ALIGN / sizeof(int64_t)];
#define empty_buffer \
    ((const void *)(((uintptr_t)empty_space + (FC_ARROW_ALIGN - 1u)) & \
                    ~(uintptr_t)(FC_ARROW_ALIGN - 1u)))

static void *alloc64(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, FC_ARROW_ALIGN, size > 0 ? size : 1) != 0)
        return NULL;
    return p;
}

/* ------------------------------------------------------------ the plan */

enum { LV_LIST, LV_FIXED, LV_SPARSE };

typedef struct level {
    int kind;
    int64_t size;           /* LV_FIXED */
    const int64_t *offsets; /* LV_LIST: [length + 1] */
    int64_t *owned;         /* the offsets, when computed here */
} level;

#define MAX_LEVELS (FC_MAX_RANK * 2 + 4)

/* One column: levels from the record down, then the values. */
typedef struct plan {
    char name[512];
    fc_type type;
    int as;                 /* the leaf's `as` type (fc_as), or 0: type's */
    level lv[MAX_LEVELS];
    unsigned nlv;
    const void *values;     /* the leaf's values (int64, float or fc_bytes) */
    size_t nvalues;
    void *owned_values;     /* when compacted here */
    int large;              /* FC_ARROW_LARGE: 64-bit offsets */
    /* LV_SPARSE: the indices' plan (levels, int64 values) */
    struct plan *indices;
} plan;

static void plan_free(plan *p)
{
    unsigned k;
    for (k = 0; k < p->nlv; k++)
        free(p->lv[k].owned);
    free(p->owned_values);
    if (p->indices != NULL) {
        plan_free(p->indices);
        free(p->indices);
    }
}

static int fail(fc_error *err, int status, const char *what, const char *name)
{
    fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "arrow: ");
    if (name != NULL) {
        fc_msg_str(&m, "column '");
        fc_msg_str(&m, name);
        fc_msg_str(&m, "': ");
    }
    fc_msg_str(&m, what);
    return status;
}

/* The column's name: prefix (or NULL), the key, suffix (or NULL). */
static int set_name(plan *p, const char *prefix, const char *key, size_t key_len,
                    const char *suffix, fc_error *err)
{
    size_t s = suffix != NULL ? strlen(suffix) : 0, q = prefix != NULL ? strlen(prefix) : 0;
    if (memchr(key, 0, key_len) != NULL)
        return fail(err, FC_ERR_UNSUPPORTED, "a feature key with a NUL byte cannot be an Arrow "
                                             "field name", NULL);
    if (key_len + s + 1 > sizeof p->name - q)
        return fail(err, FC_ERR_UNSUPPORTED, "a feature key longer than 480 bytes", NULL);
    if (q > 0)
        memcpy(p->name, prefix, q);
    memcpy(p->name + q, key, key_len);
    if (s > 0)
        memcpy(p->name + q + key_len, suffix, s);
    p->name[q + key_len + s] = '\0';
    return FC_OK;
}

/* A feature list whose key a context feature also has: its column is
 * "feature_lists/KEY" (a SequenceExample may use one key in both). */
static int list_key_taken(const fc_seq_desc *sd, const fc_list_desc *l)
{
    size_t c;
    for (c = 0; c < sd->ncontext; c++)
        if (sd->context[c].key_len == l->key_len &&
            memcmp(sd->context[c].key, l->key, l->key_len) == 0)
            return 1;
    return 0;
}

static void add_fixed(plan *p, unsigned rank, const size_t *dims)
{
    unsigned k;
    for (k = 0; k < rank; k++) {
        p->lv[p->nlv].kind = LV_FIXED;
        p->lv[p->nlv++].size = (int64_t)dims[k];
    }
}

static void add_list(plan *p, const int64_t *offsets)
{
    p->lv[p->nlv].kind = LV_LIST;
    p->lv[p->nlv++].offsets = offsets;
}

/* What a column is, from its descriptor: the kinds of fc_batch.h. */
typedef struct col_kind {
    const char *key;
    size_t key_len;
    fc_type type;
    int list;               /* a feature list */
    fc_kind kind;
    unsigned rank;
    const size_t *dims;
    size_t elems;
    size_t elems_rank;      /* SPARSE: rank, as a dimension of its indices */
    unsigned nparts;        /* RAGGED */
    size_t buckets;         /* hash buckets */
    int hidden;
    int as;                 /* `as TYPE`: the values' type (fc_as), else 0 */
} col_kind;

static void kind_of_field(const fc_field_desc *f, col_kind *k)
{
    memset(k, 0, sizeof *k);
    k->key = f->key;
    k->key_len = f->key_len;
    k->type = f->type;
    k->kind = f->kind;
    k->rank = f->rank;
    k->dims = f->dims;
    k->elems = f->elems;
    k->elems_rank = f->rank;
    k->nparts = f->kind == FC_KIND_RAGGED ? f->extra->nparts : 0;
    k->buckets = f->extra->hash_buckets;
    k->hidden = f->extra->hidden != 0;
    if (f->extra->as != NULL) { /* the batch's column holds the typed values */
        k->as = f->extra->as->type;
        if (f->extra->as->rank > 0) { /* decode_raw: the tensor's shape */
            k->rank = f->extra->as->rank;
            k->dims = f->extra->as->dims;
            k->elems = f->extra->as->elems;
        }
    }
}

static void kind_of_list(const fc_list_desc *l, col_kind *k)
{
    memset(k, 0, sizeof *k);
    k->key = l->key;
    k->key_len = l->key_len;
    k->type = l->type;
    k->list = 1;
    k->kind = l->kind;
    k->rank = l->rank;
    k->dims = l->dims;
    k->elems = l->elems;
    if (l->extra != NULL) {
        k->nparts = l->kind == FC_KIND_RAGGED ? l->extra->nparts : 0;
        k->buckets = l->extra->hash_buckets;
        k->hidden = l->extra->hidden != 0;
        if (l->extra->as != NULL) { /* typed values, as a feature's */
            k->as = l->extra->as->type;
            if (l->extra->as->rank > 0) { /* decode_raw: each frame's tensor */
                k->rank = l->extra->as->rank;
                k->dims = l->extra->as->dims;
                k->elems = l->extra->as->elems;
            }
        }
    }
}

/* The levels of a column (offsets left NULL: the schema needs none); a
 * SparseFeature's indices get a plan of their own, large_list of
 * fixed_size_list<rank> of int64.  -1 when out of memory. */
static int shape_levels(const col_kind *k, plan *p)
{
    unsigned q;
    if (k->kind == FC_KIND_SPARSE) {
        p->lv[p->nlv++].kind = LV_SPARSE;
        p->indices = (plan *)calloc(1, sizeof *p->indices);
        if (p->indices == NULL)
            return -1;
        p->indices->type = FC_TYPE_INT64;
        p->indices->large = p->large;
        add_list(p->indices, NULL);
        add_fixed(p->indices, 1, &k->elems_rank);
        return 0;
    }
    if (k->kind == FC_KIND_FIXED && !k->list) {
        add_fixed(p, k->rank, k->dims);
        return 0;
    }
    add_list(p, NULL); /* rows, values, frames, or a ragged feature's rows */
    if (k->kind == FC_KIND_ROWS || (k->list && k->kind == FC_KIND_FIXED)) {
        add_fixed(p, k->rank, k->dims);
        return 0;
    }
    if (k->list)
        add_list(p, NULL); /* a frame's values */
    for (q = 0; q < k->nparts; q++)
        add_list(p, NULL);
    return 0;
}

/* ------------------------------------------------------------ the data */

/* Offsets [n + 1] from the lengths of n records. */
static int64_t *offsets_of_lengths(const int64_t *lengths, size_t n)
{
    int64_t *o = (int64_t *)alloc64((n + 1) * sizeof *o);
    size_t i;
    if (o == NULL)
        return NULL;
    o[0] = 0;
    for (i = 0; i < n; i++)
        o[i + 1] = o[i] + lengths[i];
    return o;
}

/* Rows or frames stored padded ([n, most, elems] values of ts bytes) packed
 * into the first sum(lengths) * elems slots. */
static void *compact(const void *values, size_t ts, const int64_t *lengths, size_t n,
                     size_t most, size_t elems, size_t *count)
{
    size_t total = 0, i, row = elems * ts;
    unsigned char *out;
    for (i = 0; i < n; i++)
        total += (size_t)lengths[i];
    out = (unsigned char *)alloc64(total * row);
    if (out == NULL)
        return NULL;
    total = 0;
    for (i = 0; i < n; i++) {
        size_t r = (size_t)lengths[i];
        if (r > 0)
            memcpy(out + total * row, (const unsigned char *)values + i * most * row, r * row);
        total += r;
    }
    *count = total * elems;
    return out;
}

/* The plan of column c of n records (k: what it is; leaf: the values, or
 * the bucket ids for KEY/buckets). */
static int plan_data(const col_kind *k, const fc_column *c, size_t n, const void *leaf,
                     fc_type type, plan *p, fc_error *err)
{
    unsigned q, next = 0;
    p->type = type;
    if (shape_levels(k, p) != 0)
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
    if (k->kind == FC_KIND_FIXED && !k->list) {
        p->values = leaf;
        p->nvalues = n * k->elems;
        return FC_OK;
    }
    if (k->kind == FC_KIND_ROWS || (k->list && k->kind == FC_KIND_FIXED)) {
        size_t most = c->rank > 1 ? (size_t)c->shape[1] : 0;
        if (c->lengths == NULL && n > 0)
            return fail(err, FC_ERR_ARG, "the batch has no lengths", p->name);
        p->lv[0].owned = offsets_of_lengths(c->lengths, n);
        p->lv[0].offsets = p->lv[0].owned;
        if (c->packed) { /* FC_BATCH_PACKED: Arrow's layout already, viewed */
            if (p->lv[0].owned == NULL)
                return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
            p->values = leaf;
            p->nvalues = c->nvalues;
            return FC_OK;
        }
        p->owned_values = compact(leaf, p->as != 0 ? fc_as_size(p->as) : fc_type_size(type), c->lengths, n, most, k->elems,
                                  &p->nvalues);
        if (p->lv[0].owned == NULL || p->owned_values == NULL)
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
        p->values = p->owned_values;
        return FC_OK;
    }
    if (k->kind == FC_KIND_SPARSE) {
        /* records' entries are in order (record first): offsets by record */
        /* (two copies of the offsets: the indices' and the values' arrays
         * may be released apart) */
        size_t width = (size_t)k->rank + 1u, j, i;
        int64_t *off = (int64_t *)alloc64((n + 1) * sizeof *off);
        int64_t *off2 = (int64_t *)alloc64((n + 1) * sizeof *off2);
        int64_t *ix = (int64_t *)alloc64((c->nindices * k->rank + 1) * sizeof *ix);
        plan *ip = p->indices;
        if (off == NULL || off2 == NULL || ix == NULL) {
            free(off);
            free(off2);
            free(ix);
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
        }
        if (c->indices == NULL && c->nindices > 0) {
            free(off);
            free(off2);
            free(ix);
            return fail(err, FC_ERR_ARG, "the batch has no indices", p->name);
        }
        for (i = 0, j = 0; i <= n; i++) {
            while (j < c->nindices && (size_t)c->indices[j * width] < i)
                j++;
            off[i] = (int64_t)j;
        }
        memcpy(off2, off, (n + 1) * sizeof *off);
        for (j = 0; j < c->nindices; j++)
            memcpy(ix + j * k->rank, c->indices + j * width + 1, k->rank * sizeof *ix);
        p->lv[0].owned = off2;
        p->lv[0].offsets = off2;
        p->values = leaf;
        p->nvalues = c->nvalues;
        ip->lv[0].offsets = off;
        ip->lv[0].owned = off;
        ip->owned_values = ix;
        ip->values = ix;
        ip->nvalues = c->nindices * k->rank;
        return FC_OK;
    }
    if (c->row_splits == NULL)
        return fail(err, FC_ERR_ARG, "the batch was bound without FC_BATCH_RAGGED (no row "
                                     "splits)", p->name);
    p->lv[next++].offsets = c->row_splits;
    if (k->list) {
        if (c->inner_splits == NULL)
            return fail(err, FC_ERR_ARG, "the batch has no inner splits", p->name);
        p->lv[next++].offsets = c->inner_splits;
    }
    for (q = 0; q < k->nparts; q++)
        p->lv[next++].offsets = c->part_splits[q];
    p->values = leaf;
    p->nvalues = c->nvalues;
    return FC_OK;
}

/* ------------------------------------------------------------ schemas */

typedef struct schema_priv {
    char format[32];
    char *name;
    struct ArrowSchema **kidp;
    struct ArrowSchema kids[]; /* then kidp's pointers and the name */
} schema_priv;

static void schema_release(struct ArrowSchema *s)
{
    schema_priv *pv = (schema_priv *)s->private_data;
    int64_t k;
    for (k = 0; k < s->n_children; k++)
        if (s->children[k]->release != NULL)
            s->children[k]->release(s->children[k]);
    free(pv);
    s->release = NULL;
}

/* A schema node with nkids children (to be filled), or -1; one allocation,
 * as an array node. */
static int schema_node(struct ArrowSchema *s, const char *format, const char *name, size_t nkids)
{
    size_t len = strlen(name) + 1, k;
    schema_priv *pv = (schema_priv *)calloc(1, sizeof *pv + nkids * (sizeof *pv->kids +
                                                                     sizeof *pv->kidp) + len);
    memset(s, 0, sizeof *s);
    if (pv == NULL)
        return -1;
    snprintf(pv->format, sizeof pv->format, "%s", format);
    pv->kidp = (struct ArrowSchema **)(void *)(pv->kids + nkids);
    pv->name = (char *)(pv->kidp + nkids);
    memcpy(pv->name, name, len);
    for (k = 0; k < nkids; k++)
        pv->kidp[k] = &pv->kids[k];
    s->format = pv->format;
    s->name = pv->name;
    s->n_children = (int64_t)nkids;
    s->children = nkids > 0 ? pv->kidp : NULL;
    s->release = schema_release;
    s->private_data = pv;
    return 0;
}

static const char *leaf_format(fc_type t, int as, int large)
{
    /* (the C Data Interface's formats of the `as` types, in fc_as order) */
    static const char *const of_as[FC_AS_LAST + 1] = {"l", "c", "C", "s", "S", "i",
                                                     "l", "e", "f", "g"};
    if (as > 0 && as <= FC_AS_LAST)
        return of_as[as];
    return t == FC_TYPE_INT64 ? "l" : t == FC_TYPE_FLOAT ? "f" : large ? "Z" : "z";
}

/* The schema of plan p from level k down, named name. */
static int schema_of(const plan *p, unsigned k, const char *name, struct ArrowSchema *s)
{
    char fmt[32];
    if (k == p->nlv)
        return schema_node(s, leaf_format(p->type, p->as, p->large), name, 0);
    if (p->lv[k].kind == LV_SPARSE) {
        plan vals;
        if (schema_node(s, "+s", name, 2) != 0)
            return -1;
        vals = *p;
        vals.nlv = 0;
        add_list(&vals, NULL);
        /* indices: large_list<fixed_size_list<int64, rank>>; values: large_list<value> */
        if (schema_of(p->indices, 0, "indices", s->children[0]) != 0 ||
            schema_of(&vals, 0, "values", s->children[1]) != 0) {
            s->release(s);
            return -1;
        }
        return 0;
    }
    if (p->lv[k].kind == LV_LIST)
        snprintf(fmt, sizeof fmt, "%s", p->large ? "+L" : "+l");
    else
        snprintf(fmt, sizeof fmt, "+w:%lld", (long long)p->lv[k].size);
    if (schema_node(s, fmt, name, 1) != 0)
        return -1;
    if (schema_of(p, k + 1, "item", s->children[0]) != 0) {
        s->release(s);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ arrays */

typedef struct array_priv {
    const void *bufs[3];
    void *owned[3];         /* freed at release */
    struct ArrowArray **kidp;
    block_ref *block;       /* viewed: released with it */
    struct ArrowArray kids[]; /* then kidp's pointers, in the same allocation */
} array_priv;

static void array_release(struct ArrowArray *a)
{
    array_priv *pv = (array_priv *)a->private_data;
    int64_t k;
    for (k = 0; k < a->n_children; k++)
        if (a->children[k]->release != NULL)
            a->children[k]->release(a->children[k]);
    for (k = 0; k < 3; k++)
        free(pv->owned[k]);
    block_drop(pv->block);
    free(pv);
    a->release = NULL;
}

/* A node of nkids children (to be filled), or -1: one allocation holds its
 * private part and its children, so that a node costs one malloc. */
static int array_node(struct ArrowArray *a, int64_t length, int nbufs, size_t nkids)
{
    array_priv *pv = (array_priv *)calloc(1, sizeof *pv + nkids * (sizeof *pv->kids +
                                                                    sizeof *pv->kidp));
    size_t k;
    memset(a, 0, sizeof *a);
    if (pv == NULL)
        return -1;
    pv->kidp = (struct ArrowArray **)(void *)(pv->kids + nkids);
    for (k = 0; k < nkids; k++)
        pv->kidp[k] = &pv->kids[k];
    a->length = length;
    a->n_buffers = nbufs;
    a->buffers = pv->bufs;
    a->n_children = (int64_t)nkids;
    a->children = nkids > 0 ? pv->kidp : NULL;
    a->release = array_release;
    a->private_data = pv;
    return 0;
}

/* A buffer of the node: viewed (in the block: a reference to it), or owned
 * (taken: freed at release). */
static void view(struct ArrowArray *a, int i, const void *buf, block_ref *block)
{
    array_priv *pv = (array_priv *)a->private_data;
    pv->bufs[i] = buf != NULL ? buf : empty_buffer;
    if (pv->block == NULL && block != NULL) {
        block_hold(block);
        pv->block = block;
    }
}

static void own(struct ArrowArray *a, int i, void *buf)
{
    array_priv *pv = (array_priv *)a->private_data;
    pv->bufs[i] = buf;
    pv->owned[i] = buf;
}

/* 32-bit offsets from 64-bit ones (n + 1 of them, from 0, in order), or
 * NULL: out of memory (*over 0) or past int32 (*over 1). */
static int32_t *narrow(const int64_t *o, size_t n, int *over)
{
    int32_t *out;
    size_t i;
    *over = o[n] > INT32_MAX;
    if (*over)
        return NULL;
    out = (int32_t *)alloc64((n + 1) * sizeof *out);
    if (out != NULL)
        for (i = 0; i <= n; i++)
            out[i] = (int32_t)o[i];
    return out;
}

/* A value's bytes to d: the short ones most records hold (a token, a tag)
 * by two overlapping loads and stores instead of a call. */
static inline void put_bytes(unsigned char *d, const uint8_t *src, size_t n)
{
    if (n > 16) {
        memcpy(d, src, n);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        d[0] = src[0];
        d[n / 2] = src[n / 2];
        d[n - 1] = src[n - 1];
    }
}

/* The values as a leaf: a view of numbers, or bytes packed into binary
 * (large_binary) offsets and data.  -1 out of memory, -2 more bytes than
 * 32-bit offsets reach. */
static int leaf_array(const plan *p, size_t length, block_ref *block, int owned_values,
                      struct ArrowArray *a)
{
    if (p->type != FC_TYPE_BYTES || p->as != 0) {
        if (array_node(a, (int64_t)length, 2, 0) != 0)
            return -1;
        if (length == 0)
            view(a, 1, NULL, NULL);
        else
            view(a, 1, p->values, owned_values ? NULL : block);
        return 0;
    } else {
        const fc_bytes *v = (const fc_bytes *)p->values;
        size_t total = 0, i, osize;
        unsigned char *data;
        void *off;
        for (i = 0; i < length; i++)
            total += v[i].size;
        if (!p->large && total > INT32_MAX)
            return -2;
        /* (one allocation: the offsets, then the data from the next 64) */
        osize = (length + 1) * (p->large ? sizeof(int64_t) : sizeof(int32_t));
        osize = (osize + FC_ARROW_ALIGN - 1) & ~(size_t)(FC_ARROW_ALIGN - 1);
        off = total <= SIZE_MAX - osize ? alloc64(osize + total) : NULL;
        if (off == NULL || array_node(a, (int64_t)length, 3, 0) != 0) {
            free(off);
            return -1;
        }
        data = (unsigned char *)off + osize;
        /* (a loop per width, each value's view in locals: memcpy may alias
         * the views, as far as the compiler knows) */
        if (p->large) {
            int64_t *o = (int64_t *)off;
            for (i = 0, total = 0; i < length; i++) {
                size_t sz = v[i].size;
                const uint8_t *src = v[i].data;
                o[i] = (int64_t)total;
                put_bytes(data + total, src, sz);
                total += sz;
            }
            o[length] = (int64_t)total;
        } else {
            int32_t *o = (int32_t *)off;
            for (i = 0, total = 0; i < length; i++) {
                size_t sz = v[i].size;
                const uint8_t *src = v[i].data;
                o[i] = (int32_t)total;
                put_bytes(data + total, src, sz);
                total += sz;
            }
            o[length] = (int32_t)total;
        }
        own(a, 1, off);
        view(a, 2, data, NULL);
        return 0;
    }
}

#define OVER_2G                                                                    \
    "a batch's offsets pass 2^31, more than list and binary hold: export with "  \
    "FC_ARROW_LARGE (large_list, large_binary; featc convert --large), or in "     \
    "smaller batches"

/* The array of plan p from level k down, of length rows; an owned level's
 * offsets move into its node (the plan lets go of them). */
static int array_of(plan *p, unsigned k, size_t rows, block_ref *block, struct ArrowArray *a,
                    fc_error *err)
{
    level *lv;
    size_t next;
    if (k == p->nlv) {
        if (rows != p->nvalues)
            return fail(err, FC_ERR_ARG, "the batch's values do not fill its shape", p->name);
        int r = leaf_array(p, rows, block,
                           p->owned_values != NULL && p->values == p->owned_values, a);
        if (r == -2)
            return fail(err, FC_ERR_UNSUPPORTED, OVER_2G, p->name);
        if (r != 0)
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
        if ((p->type != FC_TYPE_BYTES || p->as != 0) && p->owned_values != NULL &&
            p->values == p->owned_values) {
            own(a, 1, p->owned_values); /* (the node frees the compacted values) */
            p->owned_values = NULL;
        }
        return FC_OK;
    }
    lv = &p->lv[k];
    if (lv->kind == LV_SPARSE) {
        plan vals;
        int rc;
        if (array_node(a, (int64_t)rows, 1, 2) != 0)
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
        vals = *p;
        vals.nlv = 0;
        vals.indices = NULL;
        add_list(&vals, p->lv[0].offsets);
        vals.lv[0].owned = p->lv[0].owned;
        rc = array_of(p->indices, 0, rows, block, a->children[0], err);
        if (rc == FC_OK)
            rc = array_of(&vals, 0, rows, block, a->children[1], err);
        p->lv[0].owned = vals.lv[0].owned; /* (NULL once its node took it) */
        if (rc != FC_OK) {
            a->release(a);
            return rc;
        }
        return FC_OK;
    }
    if (lv->kind == LV_FIXED) {
        next = rows * (size_t)lv->size;
        if (array_node(a, (int64_t)rows, 1, 1) != 0)
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
    } else {
        if (lv->offsets == NULL || lv->offsets[0] != 0 || lv->offsets[rows] < 0)
            return fail(err, FC_ERR_ARG, "the batch's offsets do not start at 0", p->name);
        next = (size_t)lv->offsets[rows];
        if (array_node(a, (int64_t)rows, 2, 1) != 0)
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
        if (!p->large) {
            int over;
            int32_t *o32 = narrow(lv->offsets, rows, &over);
            if (o32 == NULL) {
                a->release(a);
                return fail(err, over ? FC_ERR_UNSUPPORTED : FC_ERR_NO_MEMORY,
                            over ? OVER_2G : "out of memory", p->name);
            }
            own(a, 1, o32);
        } else if (lv->owned != NULL && lv->owned == lv->offsets) {
            own(a, 1, lv->owned);
            lv->owned = NULL; /* (still read below: the node frees it at release) */
        } else {
            view(a, 1, lv->offsets, block);
        }
    }
    {
        int rc = array_of(p, k + 1, next, block, a->children[0], err);
        if (rc != FC_OK) {
            a->release(a);
            return rc;
        }
    }
    return FC_OK;
}

/* ------------------------------------------------------------ columns */

/* The columns of the message in order, as plans; data: NULL for the schema
 * alone.  Returns the count (<= cap) or -1 with err set. */
/* Frees the first n plans; -1. */
static int plans_fail(plan *plans, size_t n)
{
    size_t k;
    for (k = 0; k < n; k++)
        plan_free(&plans[k]);
    return -1;
}

static int plan_columns(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                        const fc_column *cols, size_t n, plan *out, size_t cap, fc_error *err)
{
    size_t nf = md != NULL ? md->nfields : sd->ncontext + sd->nlists, i, np = 0;
    for (i = 0; i < nf; i++) {
        col_kind k;
        int pass;
        if (md != NULL)
            kind_of_field(&md->fields[i], &k);
        else if (i < sd->ncontext)
            kind_of_field(&sd->context[i], &k);
        else
            kind_of_list(&sd->lists[i - sd->ncontext], &k);
        if (k.hidden)
            continue;
        for (pass = 0; pass < (k.buckets > 0 ? 2 : 1); pass++) {
            plan *p = &out[np];
            int rc;
            if (np == cap) {
                fail(err, FC_ERR_ARG, "too many columns", NULL);
                return plans_fail(out, np);
            }
            memset(p, 0, sizeof *p);
            p->large = (flags & FC_ARROW_LARGE) != 0;
            p->as = pass == 1 ? 0 : k.as;
            rc = set_name(p,
                          md == NULL && i >= sd->ncontext &&
                                  list_key_taken(sd, &sd->lists[i - sd->ncontext])
                              ? "feature_lists/"
                              : NULL,
                          k.key, k.key_len, pass == 1 ? "/buckets" : NULL, err);
            if (rc == FC_OK && cols == NULL) {
                p->type = pass == 1 ? FC_TYPE_INT64 : k.type;
                if (shape_levels(&k, p) != 0)
                    rc = fail(err, FC_ERR_NO_MEMORY, "out of memory", p->name);
            } else if (rc == FC_OK) {
                rc = plan_data(&k, &cols[i], n, pass == 1 ? (const void *)cols[i].buckets
                                                           : cols[i].values,
                               pass == 1 ? FC_TYPE_INT64 : k.type, p, err);
            }
            np++;
            if (rc != FC_OK)
                return plans_fail(out, np);
        }
    }
    for (i = 0; i < np; i++) { /* (names are unique, or the table would be ambiguous) */
        size_t j;
        for (j = 0; j < i; j++)
            if (strcmp(out[i].name, out[j].name) == 0) {
                fail(err, FC_ERR_UNSUPPORTED, "two columns would have this name (a key and "
                                              "another's KEY/buckets or feature_lists/KEY)",
                     out[i].name);
                return plans_fail(out, np);
            }
    }
    return (int)np;
}

static size_t column_cap(const fc_message_desc *md, const fc_seq_desc *sd)
{
    return 2u * (md != NULL ? md->nfields : sd->ncontext + sd->nlists) + 1u;
}

int fc_arrow_schema(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    struct ArrowSchema *out, fc_error *err)
{
    size_t cap, k;
    plan *plans;
    int np, rc = FC_OK;
    if ((md == NULL) == (sd == NULL) || out == NULL)
        return FC_ERR_ARG;
    cap = column_cap(md, sd);
    plans = (plan *)malloc(cap * sizeof *plans); /* (each zeroed as it is planned) */
    if (plans == NULL)
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    np = plan_columns(md, sd, flags, NULL, 0, plans, cap, err);
    if (np < 0)
        rc = err != NULL ? err->status : FC_ERR_ARG;
    else if (schema_node(out, "+s", "", (size_t)np) != 0)
        rc = fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    for (k = 0; rc == FC_OK && k < (size_t)np; k++)
        if (schema_of(&plans[k], 0, plans[k].name, out->children[k]) != 0) {
            out->release(out);
            rc = fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
        }
    for (k = 0; k < (size_t)(np > 0 ? np : 0); k++)
        plan_free(&plans[k]);
    free(plans);
    return rc;
}

int fc_arrow_export(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    const fc_column *cols, size_t n, void *block, void (*free_block)(void *),
                    struct ArrowArray *out, struct ArrowSchema *schema, fc_error *err)
{
    size_t cap, k;
    plan *plans;
    block_ref *ref;
    int np, rc = FC_OK;
    if ((md == NULL) == (sd == NULL) || cols == NULL || out == NULL)
        return FC_ERR_ARG;
    cap = column_cap(md, sd);
    plans = (plan *)malloc(cap * sizeof *plans); /* (each zeroed as it is planned) */
    ref = (block_ref *)calloc(1, sizeof *ref);
    if (plans == NULL || ref == NULL) {
        free(plans);
        free(ref);
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    }
    ref->mem = block;
    ref->free_fn = free_block;
    ref->refs = 1; /* (this call's, dropped at the end) */
    np = plan_columns(md, sd, flags, cols, n, plans, cap, err);
    if (np < 0)
        rc = err != NULL ? err->status : FC_ERR_ARG;
    else if (array_node(out, (int64_t)n, 1, (size_t)np) != 0)
        rc = fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    else { /* the struct holds the block too: the columns stay readable until it goes */
        block_hold(ref);
        ((array_priv *)out->private_data)->block = ref;
    }
    if (rc == FC_OK) {
        for (k = 0; rc == FC_OK && k < (size_t)np; k++)
            rc = array_of(&plans[k], 0, n, ref, out->children[k], err);
        if (rc != FC_OK) {
            /* (children not built yet have release NULL) */
            out->release(out);
        }
    }
    if (rc == FC_OK && schema != NULL) {
        rc = fc_arrow_schema(md, sd, flags, schema, err);
        if (rc != FC_OK)
            out->release(out);
    }
    for (k = 0; k < (size_t)(np > 0 ? np : 0); k++)
        plan_free(&plans[k]);
    free(plans);
    if (rc != FC_OK) {
        ref->free_fn = NULL; /* (on error the block stays the caller's) */
    }
    block_drop(ref);
    return rc;
}
