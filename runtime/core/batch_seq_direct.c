/* The direct batch path of a SequenceExample (fc_batch_seq_direct_desc,
 * fc_batch.h): the sibling of batch_direct.c for fc_seq_desc.  A record
 * of fc_fast.h's layout goes straight into the columns, with no struct
 * and no copy out of one: its context features as an Example's features,
 * a fixed-shape list's frames packed at the end of its column's values, a
 * VarLen list's values frame after frame there, their counts in the
 * caller's scratch struct (the list's own counts array).
 *
 * It takes what fc_seq_parse takes on its first walk and nothing else:
 * context features and lists FixedLen or VarLen, without hashing, one-hot,
 * `as` or a RaggedFeature reading them; at most one context block, then
 * at most one feature_lists block, nothing else; every wanted key once,
 * its Feature or FeatureList not empty; every frame of the layout
 * fc_fast.h accepts and within the spec's counts (uniform and aligned
 * lists as the spec says) and the columns' room.  It stops at the first
 * record it declines, of which nothing is committed (values written past
 * nvalues are overwritten by the per-record path), and the caller gives
 * that record to the general path: so the columns always hold what that
 * path gives, and every error is its.  Nothing here allocates. */
#include "featc/fc_batch.h"
#include "featc/fc_fast.h"

#include "direct.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The most context features, and the most lists, a message taken here may
 * have: a record's marks and counts live on the stack (2.1 KB). */
#define MAX_CONTEXT 256u
#define MAX_LISTS 64u

typedef struct seq_record {
    uint32_t seen[(MAX_CONTEXT + MAX_LISTS) / 32u]; /* context i: bit i; list j:
                                                        MAX_CONTEXT + j */
    uint32_t counts[MAX_CONTEXT]; /* a VarLen context feature's values */
    size_t frames[MAX_LISTS];     /* a present list's frames */
    size_t nvalues[MAX_LISTS];    /* a VarLen list's values */
} seq_record;

int fc_batch_seq_direct_fits(const fc_seq_desc *sd)
{
    size_t j;
    if (sd == NULL || sd->ncontext > MAX_CONTEXT || sd->nlists > MAX_LISTS ||
        sd->ncontext + sd->nlists == 0 || sd->context_lookup == NULL || sd->list_lookup == NULL)
        return 0;
    for (j = 0; j < sd->ncontext; j++) {
        const fc_field_desc *f = &sd->context[j];
        if ((f->kind != FC_KIND_FIXED && f->kind != FC_KIND_VARLEN) || !direct_plain(f->extra))
            return 0;
    }
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        if ((l->kind == FC_KIND_FIXED ? l->elems == 0 : l->kind != FC_KIND_VARLEN) ||
            !direct_plain(l->extra))
            return 0;
    }
    return 1;
}

/* The context block [p, end) of record i into the columns. */
static int context(const fc_seq_desc *sd, fc_column *cols, size_t i, const uint8_t *p,
                   const uint8_t *end, seq_record *r)
{
    while (p < end) {
        fc_fast_entry e;
        int k;
        if (!fc_fast_next(&p, end, &e))
            return 0;
        k = sd->context_lookup(sd, e.key, e.key_len);
        if (k < 0)
            continue; /* a feature the spec does not name: not read */
        if ((size_t)k >= sd->ncontext || !fc_fast_mark(r->seen, (unsigned)k) ||
            !direct_put(&sd->context[k], &cols[k], i, &e, &r->counts[k]))
            return 0;
    }
    return 1;
}

/* A fixed-shape list's FeatureList (e's value) into dst, at most mf
 * frames: fc_fast_frames with the type, and a stride of 1, constant, so
 * that each case inlines to its own readers (a scalar frame's copy is a
 * load and a store, not a call of memcpy). */
static int fixed_frames(fc_type t, size_t elems, const fc_fast_entry *e, void *dst, size_t mf,
                        size_t *frames)
{
    switch (t) {
    case FC_TYPE_INT64:
        return elems == 1 ? fc_fast_frames(FC_TYPE_INT64, e, dst, 1, mf, NULL, frames)
                          : fc_fast_frames(FC_TYPE_INT64, e, dst, elems, mf, NULL, frames);
    case FC_TYPE_FLOAT:
        return elems == 1 ? fc_fast_frames(FC_TYPE_FLOAT, e, dst, 1, mf, NULL, frames)
                          : fc_fast_frames(FC_TYPE_FLOAT, e, dst, elems, mf, NULL, frames);
    default:
        return fc_fast_frames(FC_TYPE_BYTES, e, dst, elems, mf, NULL, frames);
    }
}

/* A VarLen list's FeatureList (e's value): each frame's values packed at
 * the column's end, at most l->max a frame and the room there, the counts
 * in counts[] (at most l->max_frames of them), each frame read by
 * fc_fast_frame.  Inlined once per type (varlen_frames). */
FC_FAST_INLINE int varlen_frames_of(fc_type t, const fc_list_desc *l, const fc_column *c,
                                    const fc_fast_entry *e, size_t *counts, size_t *frames,
                                    size_t *nvalues)
{
    const uint8_t *p = e->val, *end = e->val + e->val_len;
    const size_t ts = fc_type_size(t);
    size_t k = 0, at = c->nvalues, room = c->values_cap - c->nvalues, cnt;
    if (p == end)
        return 0; /* an empty FeatureList: the general path */
    while (p < end) {
        if (k == l->max_frames ||
            !fc_fast_frame(t, &p, end, (unsigned char *)c->values + at * ts,
                           room < l->max ? room : l->max, &cnt) ||
            (l->uniform && k > 0 && cnt != counts[0]))
            return 0;
        counts[k++] = cnt;
        at += cnt;
        room -= cnt;
    }
    *frames = k;
    *nvalues = at - c->nvalues;
    return 1;
}

static int varlen_frames(const fc_list_desc *l, const fc_column *c, const fc_fast_entry *e,
                         size_t *counts, size_t *frames, size_t *nvalues)
{
    switch (l->type) {
    case FC_TYPE_INT64: return varlen_frames_of(FC_TYPE_INT64, l, c, e, counts, frames, nvalues);
    case FC_TYPE_FLOAT: return varlen_frames_of(FC_TYPE_FLOAT, l, c, e, counts, frames, nvalues);
    default: return varlen_frames_of(FC_TYPE_BYTES, l, c, e, counts, frames, nvalues);
    }
}

/* The feature_lists block [p, end) into the columns after the context's
 * (cols + ncontext); VarLen counts in the scratch struct m. */
static int lists(const fc_seq_desc *sd, fc_column *cols, unsigned char *m, const uint8_t *p,
                 const uint8_t *end, seq_record *r)
{
    while (p < end) {
        fc_fast_entry e;
        const fc_list_desc *l;
        fc_column *c;
        int k;
        if (!fc_fast_next(&p, end, &e))
            return 0;
        k = sd->list_lookup(sd, e.key, e.key_len);
        if (k < 0)
            continue;
        if ((size_t)k >= sd->nlists || !fc_fast_mark(r->seen, MAX_CONTEXT + (unsigned)k))
            return 0;
        l = &sd->lists[k];
        c = &cols[k];
        if (l->kind == FC_KIND_FIXED) {
            size_t room = (c->values_cap - c->nvalues) / l->elems;
            if (!fixed_frames(l->type, l->elems, &e,
                              (unsigned char *)c->values + c->nvalues * fc_type_size(l->type),
                              room < l->max_frames ? room : l->max_frames, &r->frames[k]))
                return 0;
        } else if (!varlen_frames(l, c, &e, (size_t *)(void *)(m + l->count_offset),
                                  &r->frames[k], &r->nvalues[k])) {
            return 0;
        }
    }
    return 1;
}

/* What is left to check of record i before anything is committed: absent
 * context features and lists, aligned lists, the room of VarLen lists'
 * indices and splits. */
static int complete(const fc_seq_desc *sd, const fc_column *cols, seq_record *r)
{
    const fc_column *lc = cols + sd->ncontext;
    size_t j, aligned = (size_t)-1;
    for (j = 0; j < sd->ncontext; j++) {
        const fc_field_desc *f = &sd->context[j];
        if (f->kind == FC_KIND_FIXED && !fc_bit_get(r->seen, (unsigned)j) &&
            f->default_value == NULL)
            return 0; /* a required feature absent: the general path's error */
    }
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        if (!fc_bit_get(r->seen, MAX_CONTEXT + (unsigned)j)) {
            if (l->kind == FC_KIND_FIXED && !l->allow_missing)
                return 0;
            r->frames[j] = 0;
            r->nvalues[j] = 0;
            continue;
        }
        if (sd->aligned && aligned != (size_t)-1 && r->frames[j] != aligned)
            return 0;
        aligned = r->frames[j];
        if (l->kind == FC_KIND_VARLEN &&
            !fc_batch_frames_fit(&lc[j], r->nvalues[j], r->frames[j]))
            return 0;
    }
    return 1;
}

/* Record i's checked values made the columns'. */
static void commit(const fc_seq_desc *sd, fc_column *cols, const unsigned char *m, size_t i,
                   const seq_record *r)
{
    fc_column *lc = cols + sd->ncontext;
    size_t j;
    for (j = 0; j < sd->ncontext; j++) {
        const fc_field_desc *f = &sd->context[j];
        int seen = fc_bit_get(r->seen, (unsigned)j);
        if (f->kind == FC_KIND_VARLEN)
            fc_batch_put_placed(&cols[j], i, seen ? (size_t)r->counts[j] : 0u);
        else if (!seen && f->elems > 0)
            memcpy((unsigned char *)cols[j].values + i * f->elems * fc_type_size(f->type),
                   f->default_value, f->elems * fc_type_size(f->type));
    }
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        fc_column *c = &lc[j];
        if (l->kind == FC_KIND_VARLEN) {
            fc_batch_put_frames_placed(c, i, (const size_t *)(const void *)(m + l->count_offset),
                                       r->frames[j]);
            continue;
        }
        c->nvalues += r->frames[j] * l->elems;
        c->lengths[i] = (int64_t)r->frames[j];
        if ((int64_t)r->frames[j] > c->shape[1])
            c->shape[1] = (int64_t)r->frames[j];
    }
}

/* Record i at p (len bytes) into the columns: 1, or 0 for a record the
 * fast path declines (nothing committed). */
static int seq_one(const fc_seq_desc *sd, fc_column *cols, unsigned char *m, size_t i,
                   const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len, *cb, *ce, *lb, *le;
    seq_record r;
    memset(r.seen, 0, sizeof r.seen);
    if (len > (size_t)INT32_MAX || !fc_fast_block(&p, end, 0x0a, &cb, &ce) ||
        !fc_fast_block(&p, end, 0x12, &lb, &le) || p != end)
        return 0;
    if (!context(sd, cols, i, cb, ce, &r) || !lists(sd, cols + sd->ncontext, m, lb, le, &r) ||
        !complete(sd, cols, &r))
        return 0;
    commit(sd, cols, m, i, &r);
    return 1;
}

size_t fc_batch_seq_direct_desc(const fc_seq_desc *sd, fc_column *cols, void *scratch,
                                const fc_bytes *records, size_t first, size_t n)
{
    size_t i, j;
    for (i = first; i < n; i++)
        if (records[i].data == NULL ||
            !seq_one(sd, cols, (unsigned char *)scratch, i, records[i].data, records[i].size))
            break;
    for (j = 0; j < sd->ncontext; j++)
        if (sd->context[j].kind == FC_KIND_FIXED)
            cols[j].nvalues += (i - first) * sd->context[j].elems;
    return i;
}
