/* featc stats --tfmd-out FILE: the statistics as TensorFlow Data
 * Validation writes them, a binary DatasetFeatureStatisticsList
 * (tensorflow_metadata/proto/v0/statistics.proto), which Facets, TFDV's
 * load_statistics and visualize_statistics, and TFX's components read.
 *
 * One dataset; per key a FeatureNameStatistics with its path (the key; a
 * feature list's is ["##SEQUENCE##", key], under a STRUCT feature
 * "##SEQUENCE##", as TFDV names a SequenceExample's lists):
 *   common_stats   num_non_missing (records holding the key with a list),
 *                  num_missing, min/max/avg/tot_num_values (values per
 *                  record; a list's: frames per record, with
 *                  feature_list_length_histogram and presence_and_valency
 *                  for frames and for values per frame), num_values_histogram
 *                  (10 quantile buckets, as TFDV)
 *   INT, FLOAT     num_stats: mean, std_dev, num_zeros, min, median, max, a
 *                  STANDARD histogram (the report's bins, num_nan) and a
 *                  QUANTILES one (10 buckets)
 *   bytes          STRING when every value is UTF-8 (string_stats: unique,
 *                  top_values and rank_histogram: the values whose count is
 *                  above the top sketch's error, but for those longer than
 *                  the 96 bytes the sketch keeps of each;
 *                  avg_length, invalid_utf8_count), else BYTES (bytes_stats:
 *                  unique, avg/min/max_num_bytes)
 * A key with values of several types is described by the type most records
 * hold.  The sketches are the report's (sketch.h: quantiles within 1%,
 * distinct counts exact to 256 then 1.6% standard error, top values with
 * their error bound).  The wire format is written here (varints, fixed64,
 * length-delimited messages built inside out): no protobuf library. */
#include "reports.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ wire */

typedef struct pb {
    uint8_t *p;
    size_t n, cap;
    int oom;
} pb;

static void pb_raw(pb *b, const void *s, size_t n)
{
    if (b->oom || n == 0) /* (an empty message's bytes: s may be NULL) */
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *p;
        while (cap < b->n + n)
            cap *= 2;
        p = (uint8_t *)realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void pb_varint(pb *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    pb_raw(b, t, n);
}

static void pb_u64(pb *b, unsigned field, uint64_t v)
{
    pb_varint(b, (uint64_t)field << 3);
    pb_varint(b, v);
}

/* A fixed-width field (wire type 1, 8 bytes, or 5, 4 bytes) of bits u,
 * little-endian on any host. */
static void pb_fixed(pb *b, unsigned field, uint64_t u, int bytes)
{
    uint8_t t[8];
    int k;
    for (k = 0; k < bytes; k++)
        t[k] = (uint8_t)(u >> (8 * k));
    pb_varint(b, (uint64_t)field << 3 | (bytes == 8 ? 1u : 5u));
    pb_raw(b, t, (size_t)bytes);
}

static void pb_double(pb *b, unsigned field, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    pb_fixed(b, field, u, 8);
}

static void pb_float(pb *b, unsigned field, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    pb_fixed(b, field, u, 4);
}

static void pb_bytes(pb *b, unsigned field, const void *s, size_t n)
{
    pb_varint(b, (uint64_t)field << 3 | 2);
    pb_varint(b, n);
    pb_raw(b, s, n);
}

/* child as field `field` of b; child's memory is released. */
static void pb_msg(pb *b, unsigned field, pb *child)
{
    if (child->oom)
        b->oom = 1;
    else
        pb_bytes(b, field, child->p, child->n);
    free(child->p);
    memset(child, 0, sizeof *child);
}

/* ------------------------------------------------------------ messages */

enum { T_INT, T_FLOAT, T_STRING, T_BYTES, T_STRUCT }; /* FeatureNameStatistics.Type */
#define NQB 10 /* quantile buckets, TFDV's default */

/* Histogram of type QUANTILES: NQB buckets of equal count between the
 * sketch's quantiles. */
static void quantile_histogram(pb *out, unsigned field, const sk_quant *q, uint64_t n)
{
    pb h = {0}, bucket = {0};
    int k;
    for (k = 0; k < NQB && n > 0; k++) {
        pb_double(&bucket, 1, sk_quant_value(q, (double)k / NQB));
        pb_double(&bucket, 2, sk_quant_value(q, (double)(k + 1) / NQB));
        pb_double(&bucket, 4, (double)n / NQB);
        pb_msg(&h, 3, &bucket);
    }
    pb_u64(&h, 4, 1); /* QUANTILES */
    pb_msg(out, field, &h);
}

/* Histogram of type STANDARD: the report's bins. */
static void standard_histogram(pb *out, unsigned field, const sk_moments *m, const sk_quant *q,
                               uint64_t nan)
{
    pb h = {0}, bucket = {0};
    uint64_t bins[ST_BINS];
    double low[ST_BINS], high[ST_BINS];
    size_t j, nb = m->n > 0 ? st_histogram(m, q, bins, low, high) : 0;
    pb_u64(&h, 1, nan);
    for (j = 0; j < nb; j++) {
        pb_double(&bucket, 1, low[j]);
        pb_double(&bucket, 2, high[j]);
        pb_double(&bucket, 4, (double)bins[j]);
        pb_msg(&h, 3, &bucket);
    }
    pb_msg(out, field, &h);
}

/* The values a key holds in all, counted exactly (not from a mean). */
static uint64_t total_values(const st_key *k)
{
    return (k->f != NULL ? k->f->values : 0) + (k->i != NULL ? k->i->values : 0) +
           (k->b != NULL ? k->b->values : 0);
}

/* PresenceAndValencyStatistics of one level: `total` values (frames) in
 * all, per the distribution per. */
static void valency(pb *out, unsigned field, uint64_t present, uint64_t missing,
                    const sk_moments *per, uint64_t total)
{
    pb v = {0};
    pb_u64(&v, 1, present);
    pb_u64(&v, 2, missing);
    if (per->n > 0) {
        pb_u64(&v, 3, (uint64_t)per->min);
        pb_u64(&v, 4, (uint64_t)per->max);
    }
    pb_u64(&v, 5, total);
    pb_msg(out, field, &v);
}

/* CommonStatistics of a key: of records (out of `records`), and for a
 * list of frames per record then values per frame. */
static void common(pb *out, const st_key *k, uint64_t records, int list)
{
    pb c = {0};
    const sk_moments *per = list ? &k->frames : &k->per;
    const sk_quant *perq = list ? &k->framesq : &k->perq;
    pb_u64(&c, 1, k->present);
    pb_u64(&c, 2, records - k->present);
    if (per->n > 0) {
        pb_u64(&c, 3, (uint64_t)per->min);
        pb_u64(&c, 4, (uint64_t)per->max);
        pb_float(&c, 5, (float)per->mean);
        quantile_histogram(&c, 6, perq, per->n);
    }
    /* the frames of a list (one per-frame count each), the values of a feature */
    pb_u64(&c, 8, list ? k->per.n : total_values(k));
    if (list) {
        quantile_histogram(&c, 9, &k->framesq, k->frames.n);
        valency(&c, 10, k->present, records - k->present, &k->frames, k->per.n);
        valency(&c, 10, k->per.n, 0, &k->per, total_values(k));
    }
    pb_msg(out, 1, &c);
}

static void numeric(pb *out, const st_key *k, const st_num *x, uint64_t records, int list,
                    int integer)
{
    pb s = {0};
    common(&s, k, records, list);
    if (x != NULL && x->m.n > 0) {
        pb_double(&s, 2, x->m.mean);
        pb_double(&s, 3, sk_moments_std(&x->m));
    }
    pb_u64(&s, 4, x != NULL ? x->zeros : 0);
    if (x != NULL && x->m.n > 0) {
        pb_double(&s, 5, integer ? (double)x->imin : x->m.min);
        pb_double(&s, 6, sk_quant_value(&x->q, 0.5));
        pb_double(&s, 7, integer ? (double)x->imax : x->m.max);
    }
    standard_histogram(&s, 8, x != NULL ? &x->m : &k->per, x != NULL ? &x->q : &k->perq,
                       x != NULL ? x->nan : 0);
    if (x != NULL && x->m.n > 0)
        quantile_histogram(&s, 8, &x->q, x->m.n);
    pb_msg(out, 3, &s);
}

static void strings(pb *out, const st_key *k, const st_bytes *x, uint64_t records, int list)
{
    pb s = {0}, fv = {0}, rank = {0}, bucket = {0};
    int exact;
    uint32_t j;
    common(&s, k, records, list);
    pb_u64(&s, 2, (uint64_t)(sk_distinct_value(&x->d, &exact) + 0.5));
    /* only the values whose count is sure to be among the largest (above
     * the sketch's error): a reader of top_values cannot see the bound */
    for (j = 0; j < x->top.n && x->top.item[j].count > x->top.error; j++) {
        const sk_top_item *it = &x->top.item[j];
        size_t n = it->len;
        if (n > SK_TOP_PREFIX)
            continue; /* the sketch keeps a prefix only: not the value */
        pb_bytes(&fv, 2, it->prefix, n);
        pb_double(&fv, 3, (double)it->count);
        pb_msg(&s, 3, &fv);
        pb_u64(&bucket, 1, j);
        pb_u64(&bucket, 2, j);
        pb_bytes(&bucket, 4, it->prefix, n);
        pb_double(&bucket, 5, (double)it->count);
        pb_msg(&rank, 1, &bucket);
    }
    pb_float(&s, 4, x->len.n > 0 ? (float)x->len.mean : 0.0f);
    pb_msg(&s, 5, &rank);
    pb_u64(&s, 8, x->values - x->utf8);
    pb_msg(out, 4, &s);
}

static void bytes_stats(pb *out, const st_key *k, const st_bytes *x, uint64_t records, int list)
{
    pb s = {0};
    int exact;
    common(&s, k, records, list);
    pb_u64(&s, 2, (uint64_t)(sk_distinct_value(&x->d, &exact) + 0.5));
    if (x->len.n > 0) {
        pb_float(&s, 3, (float)x->len.mean);
        pb_float(&s, 4, (float)x->len.min);
        pb_float(&s, 5, (float)x->len.max);
        pb_u64(&s, 6, (uint64_t)x->len.max);
    }
    pb_msg(out, 5, &s);
}

/* A FeatureNameStatistics for key k (a list's under ##SEQUENCE##). */
static void feature(pb *out, const st_key *k, uint64_t records, int list)
{
    pb f = {0}, path = {0};
    int kind = k->kind[ST_INT64] >= k->kind[ST_FLOAT] ? ST_INT64 : ST_FLOAT;
    if (k->kind[ST_BYTES] > k->kind[kind])
        kind = ST_BYTES;
    if (list)
        pb_bytes(&path, 1, "##SEQUENCE##", 12);
    pb_bytes(&path, 1, k->key, k->key_len);
    pb_msg(&f, 8, &path);
    if (kind == ST_BYTES && k->b != NULL) {
        int text = k->b->utf8 == k->b->values;
        pb_u64(&f, 2, text ? T_STRING : T_BYTES);
        if (text)
            strings(&f, k, k->b, records, list);
        else
            bytes_stats(&f, k, k->b, records, list);
    } else {
        pb_u64(&f, 2, kind == ST_FLOAT ? T_FLOAT : T_INT);
        numeric(&f, k, kind == ST_FLOAT ? k->f : k->i, records, list, kind == ST_INT64);
    }
    pb_msg(out, 3, &f);
}

int st_encode_tfdv(const st_stats *s, const st_report *r, uint8_t **out, size_t *len)
{
    pb list = {0}, ds = {0};
    size_t i;
    uint64_t examples = s->examples + s->sequences;
    if (r->nfiles > 0)
        pb_bytes(&ds, 1, r->files[0].path, strlen(r->files[0].path));
    pb_u64(&ds, 2, examples);
    for (i = 0; i < s->features.n; i++)
        feature(&ds, &s->features.v[i], examples, 0);
    if (s->lists.n > 0) {
        pb fs = {0}, path = {0}, st = {0}, c = {0};
        pb_bytes(&path, 1, "##SEQUENCE##", 12);
        pb_msg(&fs, 8, &path);
        pb_u64(&fs, 2, T_STRUCT);
        pb_u64(&c, 1, s->sequences);
        pb_u64(&c, 2, examples - s->sequences);
        pb_msg(&st, 1, &c);
        pb_msg(&fs, 7, &st);
        pb_msg(&ds, 3, &fs);
        for (i = 0; i < s->lists.n; i++)
            feature(&ds, &s->lists.v[i], s->sequences, 1);
    }
    pb_msg(&list, 1, &ds);
    if (list.oom) {
        free(list.p);
        return -1;
    }
    *out = list.p;
    *len = list.n;
    return 0;
}

int st_write_tfdv(FILE *f, const st_stats *s, const st_report *r)
{
    uint8_t *p = NULL;
    size_t n = 0;
    int ok = st_encode_tfdv(s, r, &p, &n) == 0 && fwrite(p, 1, n, f) == n;
    free(p);
    return ok ? 0 : -1;
}
