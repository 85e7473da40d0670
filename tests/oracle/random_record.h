/* Random tf.train.Example records for a generated message, often invalid:
 * absent, duplicated and empty (Feature{}) features, wrong types, wrong
 * counts, bound overflows, packed and unpacked lists, keys the spec does not
 * name, two Features blocks, unknown top-level fields, truncation.  Every
 * record stays inside the wire forms on which protobuf and TensorFlow agree
 * (oracle.h), so that the oracle can judge it.
 *
 * The includer defines the source of randomness before including this file:
 *     static unsigned long long rnd(void);
 * (a PRNG in the differential test, the fuzzer's input bytes in fuzz_parser). */
#ifndef FEATC_TEST_RANDOM_RECORD_H
#define FEATC_TEST_RANDOM_RECORD_H

#include <stdio.h>
#include <string.h>

#include <featc/fc_example.h>

#include "../unit/wire.h"

static unsigned long long rnd(void);

static inline size_t below(size_t n)
{
    return n == 0 ? 0 : (size_t)(rnd() % n);
}

static inline int64_t rnd_int64(void)
{
    switch (below(5)) {
    case 0: return (int64_t)below(300);
    case 1: return -(int64_t)below(300);
    case 2: return (int64_t)(rnd() >> below(64)); /* varints of every length, 1-10 bytes */
    default: return (int64_t)rnd();
    }
}

static inline float rnd_float(void)
{
    if (below(8) == 0) {
        uint32_t u = (uint32_t)rnd();
        float f;
        memcpy(&f, &u, 4);
        return f; /* any bit pattern, NaNs included */
    }
    return (float)((double)(int64_t)(rnd() % 2000000) / 1000.0 - 1000.0);
}

/* The `as` of the field whose values rnd_feature makes (NULL: none): its
 * values then mostly fit the tensor (a narrowed int64 within the type's
 * range, a decode_raw bytes value of the shape's length), so that records
 * that parse, and the typed paths behind them, are not rare. */
static const fc_field_as *rr_as;

/* Set: every int64 and float list packed, as protobuf writes them, so that
 * a record may take the generated parsers' fast path (which one unpacked
 * list anywhere sends to the general path). */
static int rr_packed_only;

/* Set (random_record, one record in four): a clean record, every feature
 * of the spec valid (a required one present, each count its shape's, a
 * typed feature's values in its tensor's range, lists packed), so that
 * the batch checks' stream of records that parse alone is not left with
 * the few a spec of many features lets through by chance, and the direct
 * batch path meets every kind of feature it takes.  (Unknown keys still
 * come, as they do in real records.) */
static int rr_clean;

/* A Feature of type t with n values, packed or not at random. */
static inline void rnd_feature(wbuf *f, fc_type t, size_t n)
{
    size_t i;
    f->n = 0;
    if (t == FC_TYPE_INT64) {
        static int64_t v[4096];
        int64_t lo = 0, hi = 0;
        int fit = rr_as != NULL && fc_as_range(rr_as->type, &lo, &hi) &&
                  (rr_clean || below(4) != 0);
        for (i = 0; i < n; i++)
            v[i] = fit ? lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)) : rnd_int64();
        if (rr_packed_only || below(2))
            f_int64_packed(f, v, n);
        else
            f_int64_unpacked(f, v, n);
    } else if (t == FC_TYPE_FLOAT) {
        static float v[4096];
        for (i = 0; i < n; i++) /* clean: within [-1000, 1000), float16's range */
            v[i] = rr_clean ? (float)((double)(int64_t)(rnd() % 2000000) / 1000.0 - 1000.0)
                            : rnd_float();
        if (rr_packed_only || below(2))
            f_float_packed(f, v, n);
        else
            f_float_unpacked(f, v, n);
    } else {
        wbuf list;
        list.n = 0;
        size_t raw = rr_as != NULL && rr_as->rank > 0 && (rr_clean || below(4) != 0)
                         ? rr_as->elems * fc_as_size(rr_as->type)
                         : 0;
        for (i = 0; i < n; i++) {
            static unsigned char b[4096];
            size_t k, bl = raw > 0 && raw <= sizeof b ? raw : below(12);
            for (k = 0; k < bl; k++)
                b[k] = (unsigned char)rnd();
            w_len(&list, 0x0A, b, bl);
        }
        w_len(f, 0x0A, list.b, list.n);
    }
}

static inline size_t rnd_count(const fc_field_desc *fd)
{
    size_t good;
    if (rr_clean)
        return fd->kind == FC_KIND_FIXED    ? fd->elems
               : fd->kind == FC_KIND_VARLEN ? below(fd->max + 1)
                                            : fd->elems * below(fd->max + 1);
    switch (fd->kind) {
    case FC_KIND_FIXED:
        good = fd->elems;
        if (below(6) == 0)
            return good + 1;
        if (below(6) == 0 && good > 0)
            return good - 1;
        return good;
    case FC_KIND_VARLEN:
        return below(8) == 0 ? fd->max + 1 : below(fd->max + 1);
    default:
        good = fd->elems * below(fd->max + 2); /* sometimes max+1 rows */
        if (below(8) == 0)
            good += 1; /* not a multiple of the row size */
        return good;
    }
}

/* Partition values that fit a RaggedFeature (extra x, at most max values),
 * built from the innermost level out: returns the value count, and for
 * each keyed partition q its nv[q] values in vals[q]. */
static inline size_t rr_ragged(const fc_field_extra *x, size_t max, int64_t vals[][257],
                               size_t *nv)
{
    size_t inner, q, count;
    /* the value count: a multiple of an innermost uniform row length */
    inner = below(max + 1);
    if (x->nparts > 0 && x->parts[x->nparts - 1].kind == FC_PART_UNIFORM_ROW_LENGTH)
        inner -= inner % x->parts[x->nparts - 1].length;
    count = inner;
    for (q = x->nparts; q-- > 0;) {
        const fc_part_desc *pd = &x->parts[q];
        size_t rows, k, cut[257];
        int64_t *out = vals[q];
        nv[q] = 0;
        if (pd->kind == FC_PART_UNIFORM_ROW_LENGTH) {
            inner /= pd->length;
            continue;
        }
        rows = inner > 0 ? 1 + below(pd->max_rows) : below(pd->max_rows + 1);
        if (pd->kind == FC_PART_VALUE_ROWIDS && inner == 0)
            rows = 0;
        if (q > 0 && x->parts[q - 1].kind == FC_PART_UNIFORM_ROW_LENGTH)
            rows -= rows % x->parts[q - 1].length; /* the next level out divides it */
        if (rows == 0 && inner > 0)
            rows = 1; /* incoherent then, sometimes: fine */
        if (rows > 256)
            rows = 256;
        /* row splits: 0, then cut points, then inner */
        cut[0] = 0;
        for (k = 1; k < rows; k++)
            cut[k] = below(inner + 1);
        cut[rows] = inner;
        for (k = 1; k < rows; k++) { /* sort the cut points */
            size_t j = k, t = cut[k];
            while (j > 1 && cut[j - 1] > t) {
                cut[j] = cut[j - 1];
                j--;
            }
            cut[j] = t;
        }
        switch (pd->kind) {
        case FC_PART_ROW_SPLITS:
            for (k = 0; k <= rows; k++)
                out[k] = (int64_t)cut[k];
            nv[q] = rows + 1;
            break;
        case FC_PART_ROW_LENGTHS:
            for (k = 0; k < rows; k++)
                out[k] = (int64_t)(cut[k + 1] - cut[k]);
            nv[q] = rows;
            break;
        case FC_PART_ROW_STARTS:
            for (k = 0; k < rows; k++)
                out[k] = (int64_t)cut[k];
            nv[q] = rows;
            break;
        case FC_PART_ROW_LIMITS:
            for (k = 0; k < rows; k++)
                out[k] = (int64_t)cut[k + 1];
            nv[q] = rows;
            break;
        default: { /* value_rowids: the row of each item; the last row not empty */
            size_t r = 0;
            for (k = 0; k < inner && k < 256; k++) {
                while (r + 1 < rows && cut[r + 1] <= k)
                    r++;
                out[k] = (int64_t)r;
            }
            if (inner > 0)
                out[inner - 1] = (int64_t)(rows - 1);
            for (k = inner; k-- > 1;)
                if (out[k - 1] > out[k])
                    out[k - 1] = out[k];
            nv[q] = inner < 256 ? inner : 256;
            break;
        }
        }
        inner = rows;
    }
    return count;
}

typedef struct entry {
    char key[64];
    size_t key_len;
    wbuf *feature;
} entry;

static wbuf feature_pool[64];
static entry entries[64];
/* values forced on a field (a RaggedFeature partition): forced[field] is a
 * slot of forced_vals, or (size_t)-1 */
static size_t forced[4096], forced_n[16], nforced;
static int64_t forced_vals[16][257];

static inline void random_record(const fc_message_desc *desc, wbuf *ex)
{
    size_t n = 0, i, nblocks;
    wbuf feats;
    /* The fields of a SparseFeature mostly get one count, so that it can
     * parse (index and value counts must agree). */
    static size_t shared[4096];
    rr_clean = below(4) == 0;
    rr_packed_only = rr_clean || below(4) == 0;
    for (i = 0; i < desc->nfields && i < 4096; i++)
        shared[i] = (size_t)-1;
    for (i = 0; i < desc->nfields; i++) {
        const fc_field_desc *fd = &desc->fields[i];
        if (fd->kind == FC_KIND_SPARSE && (rr_clean || below(4) != 0)) {
            size_t c = below(fd->max + 1), r;
            for (r = 0; r <= fd->rank; r++)
                if (fd->extra->sparse_fields[r] < 4096)
                    shared[fd->extra->sparse_fields[r]] = c;
        }
    }
    /* A RaggedFeature's partition fields mostly get values that fit its
     * values, so that it can parse. */
    for (i = 0; i < desc->nfields && i < 4096; i++)
        forced[i] = (size_t)-1;
    nforced = 0;
    for (i = 0; i < desc->nfields; i++) {
        const fc_field_desc *fd = &desc->fields[i];
        static int64_t vals[FC_MAX_RANK][257];
        size_t nv[FC_MAX_RANK], q;
        if (fd->kind != FC_KIND_RAGGED || (!rr_clean && below(4) == 0))
            continue;
        shared[fd->extra->sparse_fields[0]] = rr_ragged(fd->extra, fd->max, vals, nv);
        for (q = 0; q < fd->extra->nparts; q++) {
            const fc_part_desc *pd = &fd->extra->parts[q];
            if (pd->kind == FC_PART_UNIFORM_ROW_LENGTH || nforced == 16 || pd->field >= 4096)
                continue;
            memcpy(forced_vals[nforced], vals[q], nv[q] * sizeof(int64_t));
            forced_n[nforced] = nv[q];
            forced[pd->field] = nforced++;
        }
    }
    /* features of the spec */
    for (i = 0; i < desc->nfields && n < 60; i++) {
        const fc_field_desc *fd = &desc->fields[i];
        size_t dup = !rr_clean && below(8) == 0 ? 2 : 1, d;
        int coherent = i < 4096 && (shared[i] != (size_t)-1 || forced[i] != (size_t)-1);
        if (fd->kind == FC_KIND_SPARSE || fd->kind == FC_KIND_RAGGED)
            continue; /* no key of its own: its fields have them */
        if (coherent)
            dup = 1;
        for (d = 0; d < dup && n < 60; d++) {
            size_t r = coherent ? 19 : below(20);
            if (rr_clean && r >= 3) /* present and valid */
                r = 19;
            else if (rr_clean && fd->kind == FC_KIND_FIXED && fd->default_value == NULL)
                r = 19; /* required: present */
            entry *e = &entries[n];
            if (r < 3 && d == 0)
                continue; /* absent */
            memcpy(e->key, fd->key, fd->key_len);
            e->key_len = fd->key_len;
            e->feature = &feature_pool[n];
            e->feature->n = 0;
            if (r < 5) {
                /* Feature{} */
            } else if (r < 7) {
                fc_type other = (fc_type)(1 + (fd->type + below(2)) % 3);
                rnd_feature(e->feature, other == fd->type ? (fc_type)(1 + fd->type % 3) : other,
                            below(3));
            } else if (i < 4096 && forced[i] != (size_t)-1) {
                size_t fs = forced[i];
                if (below(2))
                    f_int64_packed(e->feature, forced_vals[fs], forced_n[fs]);
                else
                    f_int64_unpacked(e->feature, forced_vals[fs], forced_n[fs]);
            } else {
                size_t cnt = coherent ? shared[i] : rnd_count(fd);
                rr_as = fd->extra != NULL ? fd->extra->as : NULL;
                rnd_feature(e->feature, fd->type, cnt > 4000 ? 4000 : cnt);
                rr_as = NULL;
            }
            n++;
        }
    }
    /* a few keys the spec does not name */
    for (i = below(3); i > 0 && n < 60; i--) {
        entry *e = &entries[n];
        e->key_len = (size_t)snprintf(e->key, sizeof e->key, "other_%u", (unsigned)below(5));
        e->feature = &feature_pool[n];
        rnd_feature(e->feature, (fc_type)(1 + below(3)), below(4));
        n++;
    }
    /* shuffle, keeping the relative order of duplicates random too */
    for (i = n; i > 1; i--) {
        size_t j = below(i);
        entry t = entries[i - 1];
        entries[i - 1] = entries[j];
        entries[j] = t;
    }
    /* one or two Features blocks, unknown top-level fields around them */
    ex->n = 0;
    nblocks = (n > 1 && below(4) == 0) ? 2 : 1;
    {
        size_t split = nblocks == 2 ? 1 + below(n - 1) : n, b, start = 0;
        for (b = 0; b < nblocks; b++) {
            size_t end = b == 0 ? split : n;
            feats.n = 0;
            for (i = start; i < end; i++) {
                wbuf e;
                e.n = 0;
                w_len(&e, 0x0A, entries[i].key, entries[i].key_len);
                w_len(&e, 0x12, entries[i].feature->b, entries[i].feature->n);
                w_len(&feats, 0x0A, e.b, e.n);
            }
            if (below(10) == 0) {
                w_byte(ex, 0x10);
                w_varint(ex, rnd());
            }
            w_example(ex, &feats);
            start = end;
        }
    }
    if (below(10) == 0)
        w_len(ex, 0x1A, "xyz", 3);
    /* truncation: both must reject, or both accept a shorter valid record */
    if (below(12) == 0 && ex->n > 0)
        ex->n = below(ex->n);
}


#endif /* FEATC_TEST_RANDOM_RECORD_H */
