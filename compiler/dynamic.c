/* A message described at run time (include/featc/featc_dynamic.h): the
 * descriptors the emitter writes as C (emit.c: emit_field_desc,
 * emit_list_desc, emit_field_extra, emit_ragged_parts), built in memory
 * instead, over a struct laid out here member by member in the order
 * emit_feature_member and emit_list_member declare them.  Only offsets
 * matter to the runtime's generic paths, so every member is simply aligned
 * to 8 bytes. */
#include "spec.h"

#include <stdlib.h>
#include <string.h>

#include <featc/featc_dynamic.h>

/* A key in the table: its length and first bytes beside it, so that a
 * lookup mostly reads one slot (following f->key to a schema_feature, a
 * cache line each, was most of a lookup's time). */
typedef struct key_slot {
    const char *key;
    size_t len;
    uint64_t head;  /* key_word of its first min(len, 8) bytes */
    uint32_t index; /* 1 + the field's; 0: empty */
} key_slot;

typedef struct key_table {
    key_slot *slot; /* nslot of them, a power of two */
    size_t nslot;
} key_table;

struct featc_dynamic {
    fc_seq_desc sd;       /* first: fc_seq_parse gives its lookups &sd */
    fc_message_desc md;
    int sequence;
    size_t size, refs;
    key_table keys, lists;
    pool *mem;            /* the schema and everything below */
};

/* The runtime's fc_field_plain, _for_sparse and _for_ragged, without
 * linking the runtime. */
static const fc_field_extra extra_plain;
static const fc_field_extra extra_for_sparse = {0, 0, 0, 0, 0, {0}, 0, 1, NULL, 0, 0, NULL};
static const fc_field_extra extra_for_ragged = {0, 0, 0, 0, 0, {0}, 0, 2, NULL, 0, 0, NULL};

/* The bytes of k (n of them, at most 8) as one word. */
static uint64_t key_word(const uint8_t *k, size_t n)
{
    uint64_t w = 0;
    size_t i;
    if (n == 8) {
        memcpy(&w, k, 8);
        return w;
    }
    for (i = 0; i < n; i++)
        w |= (uint64_t)k[i] << (8u * i);
    return w;
}

/* A key's hash: every byte mixed in, a word at a time (a byte at a time
 * was a quarter of `featc convert`'s time).  Its value depends on the
 * host's byte order, which only this table sees. */
static uint32_t key_hash(const uint8_t *k, size_t n)
{
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        h = (h ^ key_word(k + i, 8)) * 0xC2B2AE3D27D4EB4Fu;
    if (i < n)
        h = (h ^ key_word(k + i, n - i)) * 0xC2B2AE3D27D4EB4Fu;
    /* a word's high bytes move only the product's high bits: fold them
     * down, since the table takes the low ones */
    h ^= h >> 32;
    h *= 0xFF51AFD7ED558CCDu;
    return (uint32_t)(h ^ (h >> 29));
}

static int table_build(pool *p, key_table *t, const schema_feature *f, size_t n)
{
    size_t i;
    for (t->nslot = 8; t->nslot < 2 * n + 2;)
        t->nslot *= 2;
    t->slot = (key_slot *)fcc_pool_alloc(p, t->nslot * sizeof *t->slot);
    if (t->slot == NULL)
        return 0;
    memset(t->slot, 0, t->nslot * sizeof *t->slot);
    for (i = 0; i < n; i++) {
        const uint8_t *k = (const uint8_t *)f[i].key;
        size_t h;
        /* a SparseFeature or RaggedFeature is built from the fields it names,
         * which are what its key reads (as the generated lookup answers) */
        if (f[i].kind == FC_KIND_SPARSE || f[i].kind == FC_KIND_RAGGED)
            continue;
        h = key_hash(k, f[i].key_len) & (t->nslot - 1);
        while (t->slot[h].index != 0)
            h = (h + 1) & (t->nslot - 1);
        t->slot[h].key = f[i].key;
        t->slot[h].len = f[i].key_len;
        t->slot[h].head = key_word(k, f[i].key_len < 8 ? f[i].key_len : 8);
        t->slot[h].index = (uint32_t)(i + 1);
    }
    return 1;
}

static int table_find(const key_table *t, const uint8_t *key, size_t len)
{
    size_t h;
    uint64_t head;
    if (t->nslot == 0)
        return -1;
    head = key_word(key, len < 8 ? len : 8);
    h = key_hash(key, len) & (t->nslot - 1);
    for (; t->slot[h].index != 0; h = (h + 1) & (t->nslot - 1)) {
        const key_slot *s = &t->slot[h];
        if (s->len == len && s->head == head &&
            (len <= 8 || memcmp(s->key + 8, key + 8, len - 8) == 0))
            return (int)(s->index - 1);
    }
    return -1;
}

int featc_dynamic_lookup(const void *d, const uint8_t *key, size_t len)
{
    return table_find(&((const featc_dynamic *)d)->keys, key, len);
}

static int list_lookup(const void *d, const uint8_t *key, size_t len)
{
    return table_find(&((const featc_dynamic *)d)->lists, key, len);
}

/* The next member of n bytes: its offset. */
static size_t member(size_t *at, size_t n)
{
    size_t o = (*at + 7u) & ~(size_t)7u;
    *at = o + n;
    return o;
}

static size_t rank_product(const schema_feature *f)
{
    size_t k = 1;
    unsigned r;
    for (r = 0; r < f->rank; r++)
        k *= f->dims[r];
    return k;
}

static int has_extra(const schema_feature *f)
{
    return (f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) ||
           f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED || f->as != FC_AS_NONE;
}

/* The partitions of RaggedFeature f; frames > 0 for a feature list (its
 * row counts and splits per frame). */
static const fc_part_desc *ragged_parts(pool *p, const schema_feature *f, size_t *at,
                                        size_t frames)
{
    fc_part_desc *parts = (fc_part_desc *)fcc_pool_alloc(
        p, (f->nparts > 0 ? f->nparts : 1u) * sizeof *parts);
    unsigned q;
    size_t per = frames > 0 ? frames : 1;
    if (parts == NULL)
        return NULL;
    for (q = 0; q < f->nparts; q++) {
        parts[q].kind = f->parts[q].kind;
        parts[q].field = f->parts[q].field;
        parts[q].length = f->parts[q].length;
        parts[q].max_rows = f->parts[q].max_rows;
        parts[q].rows_offset = member(at, per * sizeof(size_t));
        parts[q].splits_offset =
            member(at, per * (f->parts[q].max_rows + 1) * (f->split64 ? 8u : 4u));
    }
    if (f->nparts == 0)
        parts[0].kind = FC_PART_ROW_SPLITS;
    return parts;
}

/* The fc_field_extra of f (hash buckets laid out for nvals values), or one
 * of the shared ones. */
static const fc_field_extra *field_extra(pool *p, const schema_feature *f, size_t *at,
                                         size_t nvals, const fc_part_desc *parts)
{
    fc_field_extra *x;
    unsigned r;
    if (!has_extra(f))
        return f->hidden == 1 ? &extra_for_sparse
               : f->hidden == 2 ? &extra_for_ragged
                                : &extra_plain;
    x = (fc_field_extra *)fcc_pool_alloc(p, sizeof *x);
    if (x == NULL)
        return NULL;
    if (f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) {
        x->hash_buckets = f->hash_buckets;
        x->hot = f->hot == 1 ? FC_HOT_ONE : f->hot == 2 ? FC_HOT_MULTI : 0;
        x->bucket_offset = member(at, nvals * sizeof(int64_t));
        if (f->hot == 1)
            x->hot_offset = member(at, rank_product(f) * f->hash_buckets * sizeof(float));
        else if (f->hot == 2)
            x->hot_offset = member(at, f->hash_buckets * sizeof(float));
    }
    if (f->as != FC_AS_NONE) {
        fc_field_as *as = (fc_field_as *)fcc_pool_alloc(p, sizeof *as);
        if (as == NULL)
            return NULL;
        as->type = f->as;
        as->rank = f->as_rank;
        for (r = 0; r < f->as_rank; r++)
            as->dims[r] = f->as_dims[r];
        as->elems = f->as_elems;
        as->offset = member(at, nvals * f->as_elems * fc_as_size(f->as));
        x->as = as;
    }
    if (f->kind == FC_KIND_SPARSE) {
        for (r = 0; r <= f->rank; r++)
            x->sparse_fields[r] = f->sparse_fields[r];
        x->already_sorted = f->already_sorted;
    } else if (f->kind == FC_KIND_RAGGED) {
        x->sparse_fields[0] = f->sparse_fields[0];
        x->parts = parts;
        x->nparts = f->nparts;
        x->split64 = f->split64;
    }
    return x;
}

static const void *default_values(pool *p, const schema_feature *f)
{
    size_t i;
    if (!f->has_default)
        return NULL;
    if (f->type == FC_TYPE_INT64) {
        int64_t *v = (int64_t *)fcc_pool_alloc(p, (f->ndefault + 1) * sizeof *v);
        if (v != NULL && f->ndefault > 0)
            memcpy(v, f->def_int, f->ndefault * sizeof *v);
        return v;
    }
    if (f->type == FC_TYPE_FLOAT) {
        float *v = (float *)fcc_pool_alloc(p, (f->ndefault + 1) * sizeof *v);
        if (v != NULL && f->ndefault > 0)
            memcpy(v, f->def_float, f->ndefault * sizeof *v);
        return v;
    }
    {
        fc_bytes *v = (fc_bytes *)fcc_pool_alloc(p, (f->ndefault + 1) * sizeof *v);
        for (i = 0; v != NULL && i < f->ndefault; i++) {
            v[i].data = (const uint8_t *)f->def_bytes[i];
            v[i].size = f->def_bytes_len[i];
        }
        return v;
    }
}

/* The fields fc_field_desc and fc_list_desc both begin with (emit.c's
 * emit_desc_head): the key, names, type, kind, shape and bounds. */
#define DESC_HEAD(d, f)                           \
    do {                                          \
        unsigned r_;                              \
        (d)->key = (f)->key;                      \
        (d)->key_len = (f)->key_len;              \
        (d)->c_name = (f)->cname;                 \
        (d)->type = (f)->type;                    \
        (d)->kind = (f)->kind;                    \
        (d)->rank = (f)->rank;                    \
        for (r_ = 0; r_ < (f)->rank; r_++)        \
            (d)->dims[r_] = (f)->dims[r_];        \
        (d)->elems = (f)->elems;                  \
        (d)->max = (f)->max;                      \
    } while (0)

/* An Example or context feature: its members and descriptor. */
static int feature_desc(pool *p, fc_field_desc *d, const schema_feature *f, size_t *at)
{
    size_t ts = fc_type_size(f->type), nvals;
    const fc_part_desc *parts = NULL;
    DESC_HEAD(d, f);
    if (f->kind != FC_KIND_FIXED)
        d->count_offset = member(at, sizeof(size_t));
    if (f->kind == FC_KIND_RAGGED) {
        d->value_offset = member(at, f->max * ts);
        if ((parts = ragged_parts(p, f, at, 0)) == NULL)
            return 0;
        nvals = f->max;
    } else if (f->kind == FC_KIND_SPARSE) {
        fc_field_extra *x;
        size_t indices = member(at, f->max * f->rank * sizeof(int64_t));
        d->value_offset = member(at, f->max * ts);
        d->extra = field_extra(p, f, at, f->max, NULL);
        if (d->extra == NULL)
            return 0;
        x = (fc_field_extra *)(uintptr_t)d->extra;
        x->indices_offset = indices;
        d->default_value = default_values(p, f);
        return !f->has_default || d->default_value != NULL;
    } else {
        nvals = f->kind == FC_KIND_FIXED ? f->elems : f->kind == FC_KIND_VARLEN ? f->max
                                                                                : f->max * f->elems;
        d->value_offset = f->kind == FC_KIND_FIXED && f->elems == 0 ? 0 : member(at, nvals * ts);
    }
    d->default_value = default_values(p, f);
    d->extra = field_extra(p, f, at, nvals, parts);
    return d->extra != NULL && (!f->has_default || d->default_value != NULL);
}

/* A feature list: its members and descriptor. */
static int list_desc(pool *p, fc_list_desc *d, const schema_feature *f, size_t *at)
{
    size_t ts = fc_type_size(f->type), nvals = f->max_frames * f->max;
    const fc_part_desc *parts = NULL;
    DESC_HEAD(d, f);
    d->max_frames = f->max_frames;
    d->allow_missing = f->allow_missing;
    d->uniform = f->uniform;
    d->frames_offset = member(at, sizeof(size_t));
    if (f->kind == FC_KIND_VARLEN || f->kind == FC_KIND_RAGGED) {
        d->count_offset = member(at, f->max_frames * sizeof(size_t));
        d->value_offset = member(at, nvals * ts);
        if (f->kind == FC_KIND_RAGGED && (parts = ragged_parts(p, f, at, f->max_frames)) == NULL)
            return 0;
    } else {
        nvals = f->max_frames * f->elems;
        d->value_offset = member(at, nvals * ts);
    }
    d->extra = field_extra(p, f, at, nvals, parts);
    return d->extra != NULL;
}

int fcc_dynamic_build(pool *p, const schema_message *m, featc_dynamic *d);
size_t fcc_dynamic_sizeof(void);

/* Fills d from message m (d then owns the pool p); 0 when memory ran out. */
int fcc_dynamic_build(pool *p, const schema_message *m, featc_dynamic *d)
{
    size_t at = 0, i, words = (m->nfeatures + m->nlists + 31u) / 32u;
    fc_field_desc *fields = (fc_field_desc *)fcc_pool_alloc(
        p, (m->nfeatures > 0 ? m->nfeatures : 1u) * sizeof *fields);
    fc_list_desc *lists = (fc_list_desc *)fcc_pool_alloc(
        p, (m->nlists > 0 ? m->nlists : 1u) * sizeof *lists);
    if (fields == NULL || lists == NULL)
        return 0;
    d->mem = p;
    d->sequence = m->sequence;
    member(&at, (words > 0 ? words : 1u) * sizeof(uint32_t)); /* present, at offset 0 */
    for (i = 0; i < m->nfeatures; i++)
        if (!feature_desc(p, &fields[i], &m->features[i], &at))
            return 0;
    for (i = 0; i < m->nlists; i++)
        if (!list_desc(p, &lists[i], &m->lists[i], &at))
            return 0;
    d->size = member(&at, 0);
    if (d->size == 0)
        d->size = 8;
    d->refs = m->nfeatures + m->nlists;
    if (!table_build(p, &d->keys, m->features, m->nfeatures) ||
        !table_build(p, &d->lists, m->lists, m->nlists))
        return 0;
    if (m->sequence) {
        d->sd.name = m->name;
        d->sd.c_type = m->c_type;
        d->sd.size = d->size;
        d->sd.present_offset = 0;
        d->sd.ncontext = m->nfeatures;
        d->sd.context = m->nfeatures > 0 ? fields : NULL;
        d->sd.context_order = m->nfeatures > 0 ? m->missing_order : NULL;
        d->sd.nlists = m->nlists;
        d->sd.lists = m->nlists > 0 ? lists : NULL;
        d->sd.list_order = m->nlists > 0 ? m->list_missing_order : NULL;
        d->sd.aligned = m->aligned;
        d->sd.context_lookup = featc_dynamic_lookup;
        d->sd.list_lookup = list_lookup;
    } else {
        d->md.name = m->name;
        d->md.c_type = m->c_type;
        d->md.size = d->size;
        d->md.present_offset = 0;
        d->md.nfields = m->nfeatures;
        d->md.fields = fields;
        d->md.missing_order = m->missing_order;
    }
    return 1;
}

const fc_message_desc *featc_dynamic_example(const featc_dynamic *d)
{
    return d->sequence ? NULL : &d->md;
}

const fc_seq_desc *featc_dynamic_sequence(const featc_dynamic *d)
{
    return d->sequence ? &d->sd : NULL;
}

size_t featc_dynamic_size(const featc_dynamic *d)
{
    return d->size;
}

size_t featc_dynamic_refs(const featc_dynamic *d)
{
    return d->refs > 0 ? d->refs : 1;
}

size_t fcc_dynamic_sizeof(void)
{
    return sizeof(featc_dynamic);
}

void featc_dynamic_free(featc_dynamic *d)
{
    if (d == NULL)
        return;
    if (d->mem != NULL) {
        fcc_pool_free(d->mem);
        free(d->mem);
    }
    free(d);
}
