/* The direct batch path of a message described at run time
 * (fc_batch_direct_desc, fc_batch.h): what a generated NAME_batch_direct
 * does with its switch (compiler/emit_direct.c), done by the descriptors
 * and a key lookup, so that `featc convert --spec` and any other caller of
 * fc_batch_parse_each_direct decode each record straight into the columns,
 * with no struct and no copy out of it.
 *
 * It takes the same records as the generated one: a message whose every
 * feature is FixedLen or VarLen, without hashing, one-hot or `as`, and
 * records of the layout fc_fast.h accepts, every value within the spec's
 * counts and the columns' room.  It stops at the first record it declines
 * (nothing of that record committed: a VarLen's values written past
 * nvalues are overwritten by the per-record path), which the caller gives
 * to the general path; so the columns always hold what that path gives,
 * and every error is its.  Nothing here allocates. */
#include "featc/fc_batch.h"
#include "featc/fc_fast.h"

#include "direct.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The most features a message taken here may have: a record's counts of
 * VarLen values live on the stack (4 bytes each) until it is committed. */
#define DIRECT_FIELDS 256u

/* The records of a batch nearly always come from one writer, which puts
 * the same keys in the same order: each key is first compared with the
 * key at its place in the record before (the record before is still in
 * place: the caller holds every record of the batch), and when they are
 * the same the lookup's answer is the one given then; so most keys cost a
 * compare and no hash.  A writer that leaves out an empty feature, or adds
 * one, shifts the places: a miss also tries the places either side and,
 * on a hit there, compares the rest of the record one place over. */
#define GUESSES 128u /* the places remembered */

typedef struct guess {
    const uint8_t *key;
    uint32_t len;       /* (a record is under 2 GiB) */
    int32_t k;          /* the lookup's answer */
} guess;

/* The record before's places (prev, nprev of them) and this one's. */
typedef struct guesses {
    guess a[GUESSES], b[GUESSES];
    guess *prev, *cur;
    size_t nprev;
} guesses;

int fc_batch_direct_fits(const fc_message_desc *md)
{
    size_t j;
    if (md == NULL || md->nfields == 0 || md->nfields > DIRECT_FIELDS)
        return 0;
    for (j = 0; j < md->nfields; j++) {
        const fc_field_desc *f = &md->fields[j];
        const fc_field_extra *x = f->extra;
        if (f->kind != FC_KIND_FIXED && f->kind != FC_KIND_VARLEN)
            return 0;
        if (!direct_plain(x))
            return 0;
    }
    return 1;
}

/* Whether the n bytes at a and b are the same: keys are short, and a call
 * of memcmp cost more than the lookup it saves.  Two loads from each end
 * (overlapping when n < 16) read nothing outside the keys. */
static int same_key(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t x, y, u, v;
    uint32_t x4, y4, u4, v4;
    if (n > 16)
        return memcmp(a, b, n) == 0;
    if (n >= 8) {
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&u, a + n - 8, 8);
        memcpy(&v, b + n - 8, 8);
        return ((x ^ y) | (u ^ v)) == 0;
    }
    if (n >= 4) {
        memcpy(&x4, a, 4);
        memcpy(&y4, b, 4);
        memcpy(&u4, a + n - 4, 4);
        memcpy(&v4, b + n - 4, 4);
        return ((x4 ^ y4) | (u4 ^ v4)) == 0;
    }
    return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* Entry e, the at-th of its record: the lookup's answer for its key. */
static int look(fc_ex_lookup_fn lookup, const void *ctx, guesses *g, size_t at, long *skew,
                const fc_fast_entry *e)
{
    long j = (long)at + *skew, t;
    const guess *h;
    int k;
    /* the place first, on its own: nearly every key is found there */
    if ((unsigned long)j < g->nprev) {
        h = &g->prev[j];
        if (h->len == e->key_len && same_key(h->key, e->key, e->key_len)) {
            k = h->k;
            goto found;
        }
    }
    for (t = j + 1; t >= j - 1; t -= 2) { /* one further, one back */
        if (t < 0 || (size_t)t >= g->nprev)
            continue;
        h = &g->prev[t];
        if (h->len == e->key_len && same_key(h->key, e->key, e->key_len)) {
            *skew += t - j;
            k = h->k;
            goto found;
        }
    }
    k = lookup(ctx, e->key, e->key_len);
found:
    if (at < GUESSES) {
        g->cur[at].key = e->key;
        g->cur[at].len = (uint32_t)e->key_len;
        g->cur[at].k = (int32_t)k;
    }
    return k;
}

/* What a feature's values are, read from its descriptor once a batch
 * rather than once a value: a scalar FixedLen of each type, or anything
 * else (direct_put). */
enum { OP_OTHER, OP_INT64, OP_FLOAT, OP_BYTES };

/* Record i at p (len bytes) into the columns: 1, or 0 for a record the
 * fast path declines (nothing committed).  nfixed and nvarlen: how many
 * FixedLen and VarLen features md has. */
static int direct_one(const fc_message_desc *md, fc_ex_lookup_fn lookup, const void *ctx,
                      guesses *g, const unsigned char *op, size_t nfixed, size_t nvarlen,
                      fc_column *cols, size_t i, const uint8_t *p, size_t len)
{
    uint32_t seen[DIRECT_FIELDS / 32u] = {0};
    uint32_t counts[DIRECT_FIELDS];
    const uint8_t *end = p + len, *body;
    size_t flen, j, nf = md->nfields, at = 0, fixed_seen = 0;
    long skew = 0;
    guess *t;
    if (len > (size_t)INT32_MAX || !fc_fast_field(&p, end, 0x0a, &body, &flen) || p != end)
        return 0;
    p = body;
    while (p < end) {
        fc_fast_entry e;
        const fc_field_desc *f;
        int k;
        if (!fc_fast_next(&p, end, &e))
            return 0;
        k = look(lookup, ctx, g, at++, &skew, &e);
        if (k < 0)
            continue; /* a feature the spec does not name: not read */
        if ((size_t)k >= nf || !fc_fast_mark(seen, (unsigned)k))
            return 0;
        switch (op[k]) { /* a scalar FixedLen, its type known */
        case OP_INT64:
            if (!fc_fast_fixed(FC_TYPE_INT64, &e, (int64_t *)cols[k].values + i, 1))
                return 0;
            fixed_seen++;
            continue;
        case OP_FLOAT:
            if (!fc_fast_fixed(FC_TYPE_FLOAT, &e, (float *)cols[k].values + i, 1))
                return 0;
            fixed_seen++;
            continue;
        case OP_BYTES:
            if (!fc_fast_fixed(FC_TYPE_BYTES, &e, (fc_bytes *)cols[k].values + i, 1))
                return 0;
            fixed_seen++;
            continue;
        default:
            break;
        }
        f = &md->fields[k];
        if (!direct_put(f, &cols[k], i, &e, &counts[k]))
            return 0;
        fixed_seen += f->kind == FC_KIND_FIXED;
    }
    /* a FixedLen feature absent: its default, or (required) the general
     * path's error */
    for (j = 0; j < nf && fixed_seen < nfixed; j++) {
        const fc_field_desc *f = &md->fields[j];
        if (f->kind != FC_KIND_FIXED || fc_bit_get(seen, (unsigned)j))
            continue;
        if (f->default_value == NULL)
            return 0;
        if (f->elems > 0)
            memcpy((unsigned char *)cols[j].values + i * f->elems * fc_type_size(f->type),
                   f->default_value, f->elems * fc_type_size(f->type));
    }
    for (j = 0; j < nf && nvarlen > 0; j++)
        if (md->fields[j].kind == FC_KIND_VARLEN)
            fc_batch_put_placed(&cols[j], i,
                                fc_bit_get(seen, (unsigned)j) ? (size_t)counts[j] : 0u);
    t = g->prev; /* this record's places are the next one's guesses */
    g->prev = g->cur;
    g->cur = t;
    g->nprev = at < GUESSES ? at : GUESSES;
    return 1;
}

size_t fc_batch_direct_desc(const fc_message_desc *md, fc_ex_lookup_fn lookup, const void *ctx,
                            fc_column *cols, const fc_bytes *records, size_t first, size_t n)
{
    guesses g;
    unsigned char op[DIRECT_FIELDS];
    size_t i, j, nfixed = 0;
    g.prev = g.a;
    g.cur = g.b;
    g.nprev = 0;
    for (j = 0; j < md->nfields && j < DIRECT_FIELDS; j++) {
        const fc_field_desc *f = &md->fields[j];
        nfixed += f->kind == FC_KIND_FIXED;
        op[j] = f->kind != FC_KIND_FIXED || f->elems != 1 ? OP_OTHER
                : f->type == FC_TYPE_INT64               ? OP_INT64
                : f->type == FC_TYPE_FLOAT               ? OP_FLOAT
                                                         : OP_BYTES;
    }
    for (i = first; i < n; i++)
        if (records[i].data == NULL ||
            !direct_one(md, lookup, ctx, &g, op, nfixed, md->nfields - nfixed, cols, i,
                        records[i].data, records[i].size))
            break;
    for (j = 0; j < md->nfields; j++)
        if (md->fields[j].kind == FC_KIND_FIXED)
            cols[j].nvalues += (i - first) * md->fields[j].elems;
    return i;
}
