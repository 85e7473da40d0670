/* What the two direct batch paths share (not installed): batch_direct.c
 * (an Example described at run time) and batch_seq_direct.c (a
 * SequenceExample's context features) take the same features and write
 * their values into the columns the same way. */
#ifndef FEATC_DIRECT_H
#define FEATC_DIRECT_H

#include <stdint.h>

#include "featc/fc_batch.h"
#include "featc/fc_fast.h"

/* A feature with nothing on top of its values: no hash buckets, one-hot,
 * `as`, and not read only for a SparseFeature or RaggedFeature. */
static inline int direct_plain(const fc_field_extra *x)
{
    return x == NULL || (x->hash_buckets == 0 && x->hot == 0 && x->hidden == 0 && x->as == NULL);
}

/* Field f's values from entry e into its column, record i's (a VarLen's
 * at values + nvalues, its count in *count, nothing committed): 1, or 0
 * for values the fast path declines.  Each case names its type (and a
 * scalar FixedLen its count of one), so that fc_fast.h's readers inline
 * for that type alone, as they do in a generated switch. */
FC_FAST_INLINE int direct_put(const fc_field_desc *f, fc_column *c, size_t i,
                              const fc_fast_entry *e, uint32_t *count)
{
    size_t cnt = 0, ts;
    unsigned char *dst;
    int ok;
    if (f->kind == FC_KIND_FIXED && f->elems == 1) {
        switch (f->type) {
        case FC_TYPE_INT64: return fc_fast_fixed(FC_TYPE_INT64, e, (int64_t *)c->values + i, 1);
        case FC_TYPE_FLOAT: return fc_fast_fixed(FC_TYPE_FLOAT, e, (float *)c->values + i, 1);
        default: return fc_fast_fixed(FC_TYPE_BYTES, e, (fc_bytes *)c->values + i, 1);
        }
    }
    ts = fc_type_size(f->type);
    if (f->kind == FC_KIND_FIXED)
        return fc_fast_fixed(f->type, e,
                             f->elems == 0 ? NULL : (unsigned char *)c->values + i * f->elems * ts,
                             f->elems);
    dst = (unsigned char *)c->values + c->nvalues * ts;
    switch (f->type) {
    case FC_TYPE_INT64:
        ok = fc_fast_varlen(FC_TYPE_INT64, e, dst, fc_batch_room(c, f->max), &cnt);
        break;
    case FC_TYPE_FLOAT:
        ok = fc_fast_varlen(FC_TYPE_FLOAT, e, dst, fc_batch_room(c, f->max), &cnt);
        break;
    default:
        ok = fc_fast_varlen(FC_TYPE_BYTES, e, dst, fc_batch_room(c, f->max), &cnt);
        break;
    }
    *count = (uint32_t)cnt;
    return ok;
}

#endif /* FEATC_DIRECT_H */
