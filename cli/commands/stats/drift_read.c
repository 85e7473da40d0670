/* validate --against's statistics reader: the fields of statistics.proto
 * the measures need (drift.h), every length checked, the rest passed
 * over. */
#include "drift.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ wire */

enum { W_VARINT = 0, W_I64 = 1, W_LEN = 2, W_I32 = 5 };

typedef struct rd {
    const uint8_t *base;       /* the statistics' first byte: offsets */
    char *err;
    size_t errlen;
    int failed;
} rd;

typedef struct msg {
    const uint8_t *p, *end;
} msg;

typedef struct field {
    uint32_t num;
    int wire;
    uint64_t v;             /* varint, or the 8 bytes of a fixed64 */
    msg sub;                /* a length-delimited value */
    const uint8_t *at;      /* the field's first byte */
} field;

static int fail(rd *r, const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (r->failed)
        return -1;
    r->failed = 1;
    n = snprintf(r->err, r->errlen, "byte %llu: ", (unsigned long long)(at - r->base));
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen)
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int varint(rd *r, msg *m, uint64_t *v)
{
    const uint8_t *at = m->p;
    uint64_t x = 0;
    unsigned shift;
    for (shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (m->p == m->end)
            return fail(r, at, "a varint cut short");
        b = *m->p++;
        if (shift == 63 && b > 1)
            return fail(r, at, "a varint of more than 64 bits");
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            return 0;
        }
    }
    return fail(r, at, "a varint of more than 10 bytes");
}

/* The next field of m: 1 with *f, 0 at its end, -1 after an error. */
static int next(rd *r, msg *m, field *f)
{
    uint64_t key, len;
    if (m->p == m->end)
        return 0;
    f->at = m->p;
    if (varint(r, m, &key) != 0)
        return -1;
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
        return fail(r, f->at, "field number %llu", (unsigned long long)(key >> 3));
    f->num = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    switch (f->wire) {
    case W_VARINT:
        return varint(r, m, &f->v) == 0 ? 1 : -1;
    case W_I64:
    case W_I32: {
        size_t k, n = f->wire == W_I64 ? 8 : 4;
        if ((size_t)(m->end - m->p) < n)
            return fail(r, f->at, "field %u cut short", f->num);
        f->v = 0;
        for (k = 0; k < n; k++)
            f->v |= (uint64_t)m->p[k] << (8 * k);
        m->p += n;
        return 1;
    }
    case W_LEN:
        if (varint(r, m, &len) != 0)
            return -1;
        if (len > (uint64_t)(m->end - m->p))
            return fail(r, f->at, "field %u: a length of %llu bytes, %llu left", f->num,
                        (unsigned long long)len, (unsigned long long)(m->end - m->p));
        f->sub.p = m->p;
        f->sub.end = m->p + len;
        m->p += len;
        return 1;
    default:
        return fail(r, f->at, "field %u: wire type %d (groups and others are not in "
                              "statistics.proto)", f->num, f->wire);
    }
}

/* f is field `what` of wire type `wire`, else an error. */
static int expect(rd *r, const field *f, int wire, const char *what)
{
    if (f->wire == wire)
        return 0;
    return fail(r, f->at, "%s: wire type %d, expected %d", what, f->wire, wire);
}

static double as_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ------------------------------------------------------------ messages */

/* Room in *p for element n (and those before it) of size bytes: *cap grows
 * by doubling until it is past n, whatever *cap was (a field repeated in the
 * message appends to what an earlier one read). */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    size_t c = *cap ? *cap : 8;
    void *q;
    if (n < *cap)
        return 0;
    while (c <= n) {
        if (c > ((size_t)-1) / 2 / size)
            return -1;
        c *= 2;
    }
    q = realloc(*p, c * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* A count: a finite number >= 0. */
static int count_of(rd *r, const field *f, double *v)
{
    *v = as_double(f->v);
    if (!(*v >= 0) || *v > 1e300)
        return fail(r, f->at, "a sample_count of %g: not a finite number >= 0", *v);
    return 0;
}

/* Histogram: num_nan 1, buckets 3 (low_value 1, high_value 2,
 * sample_count 4), type 4 (STANDARD 0, QUANTILES 1). */
static int read_hist(rd *r, msg m, dr_feature *ft)
{
    field f, g;
    int k, type = 0; /* STANDARD 0, QUANTILES 1, another -1 */
    dr_hist h;
    size_t cap = 0;
    memset(&h, 0, sizeof h);
    h.present = 1;
    while ((k = next(r, &m, &f)) == 1) {
        if (f.num == 1 && expect(r, &f, W_VARINT, "Histogram.num_nan") == 0) {
            h.nan = (double)f.v;
        } else if (f.num == 4 && expect(r, &f, W_VARINT, "Histogram.type") == 0) {
            type = f.v == 0 ? 0 : f.v == 1 ? 1 : -1;
        } else if (f.num == 3 && expect(r, &f, W_LEN, "Histogram.buckets") == 0) {
            dr_bucket b = {0, 0, 0};
            if (grow((void **)&h.b, &cap, h.n, sizeof *h.b) != 0) {
                fail(r, f.at, "out of memory");
                break;
            }
            while ((k = next(r, &f.sub, &g)) == 1) {
                if (g.num == 1 && expect(r, &g, W_I64, "Bucket.low_value") == 0)
                    b.low = as_double(g.v);
                else if (g.num == 2 && expect(r, &g, W_I64, "Bucket.high_value") == 0)
                    b.high = as_double(g.v);
                else if (g.num == 4 && expect(r, &g, W_I64, "Bucket.sample_count") == 0)
                    count_of(r, &g, &b.count);
                if (r->failed)
                    break;
            }
            if (!r->failed && (isnan(b.low) || isnan(b.high) || b.low > b.high))
                fail(r, f.at, "a bucket [%g, %g]: its bounds are NaN or out of order", b.low,
                     b.high);
            if (r->failed)
                break;
            h.b[h.n++] = b;
        }
        if (r->failed)
            break;
    }
    if (!r->failed && type >= 0 && !(type ? ft->quantiles.present : ft->standard.present)) {
        if (type)
            ft->quantiles = h;
        else
            ft->standard = h;
        return 0;
    }
    free(h.b);
    return r->failed ? -1 : 0;
}

/* Labels in byte order (std::string's). */
int dr_label_cmp(const dr_label *x, const dr_label *y)
{
    size_t n = x->n < y->n ? x->n : y->n;
    int c = n > 0 ? memcmp(x->p, y->p, n) : 0;
    return c != 0 ? c : x->n < y->n ? -1 : x->n > y->n;
}

/* By bytes, equal labels in the order read. */
static int by_label(const void *a, const void *b)
{
    const dr_label *x = (const dr_label *)a, *y = (const dr_label *)b;
    int c = dr_label_cmp(x, y);
    return c != 0 ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* RankHistogram: buckets 1 (label 4, sample_count 5). */
static int read_rank(rd *r, msg m, dr_feature *ft)
{
    field f, g;
    int k;
    size_t cap = 0, i, j;
    while ((k = next(r, &m, &f)) == 1) {
        dr_label l = {NULL, 0, 0, 0};
        if (f.num != 1)
            continue;
        if (expect(r, &f, W_LEN, "RankHistogram.buckets") != 0)
            break;
        while ((k = next(r, &f.sub, &g)) == 1) {
            if (g.num == 4 && expect(r, &g, W_LEN, "Bucket.label") == 0) {
                l.p = g.sub.p;
                l.n = (size_t)(g.sub.end - g.sub.p);
            } else if (g.num == 5 && expect(r, &g, W_I64, "Bucket.sample_count") == 0) {
                count_of(r, &g, &l.count);
            }
            if (r->failed)
                break;
        }
        if (r->failed)
            break;
        if (grow((void **)&ft->labels, &cap, ft->nlabels, sizeof *ft->labels) != 0)
            return fail(r, f.at, "out of memory");
        l.seq = ft->nlabels;
        ft->labels[ft->nlabels++] = l;
    }
    if (r->failed)
        return -1;
    if (ft->nlabels == 0)
        return 0;
    /* sorted by bytes, the first of equal labels kept (std::map's insert) */
    qsort(ft->labels, ft->nlabels, sizeof *ft->labels, by_label);
    for (i = j = 0; i < ft->nlabels; i++)
        if (j == 0 || dr_label_cmp(&ft->labels[j - 1], &ft->labels[i]) != 0)
            ft->labels[j++] = ft->labels[i];
    ft->nlabels = j;
    for (i = 0; i < j; i++)
        ft->labels[i].seq = i; /* (a later rank_histogram field comes after these) */
    return 0;
}

/* CommonStatistics: tot_num_values 8, into ft->values. */
static int read_common(rd *r, msg m, dr_feature *ft)
{
    field f;
    int k;
    while ((k = next(r, &m, &f)) == 1)
        if (f.num == 8 && expect(r, &f, W_VARINT, "CommonStatistics.tot_num_values") == 0)
            ft->values = (double)f.v;
    return r->failed ? -1 : k;
}

/* NumericStatistics (histograms 8) or StringStatistics (common_stats 1,
 * rank_histogram 5). */
static int read_stats(rd *r, msg m, dr_feature *ft, int numeric)
{
    field f;
    int k;
    if (!numeric)
        ft->strings = 1;
    while ((k = next(r, &m, &f)) == 1) {
        if (!numeric && f.num == 1) {
            if (expect(r, &f, W_LEN, "StringStatistics.common_stats") != 0 ||
                read_common(r, f.sub, ft) != 0)
                return -1;
        } else if (numeric && f.num == 8) {
            if (expect(r, &f, W_LEN, "NumericStatistics.histograms") != 0 ||
                read_hist(r, f.sub, ft) != 0)
                return -1;
        } else if (!numeric && f.num == 5) {
            if (expect(r, &f, W_LEN, "StringStatistics.rank_histogram") != 0 ||
                read_rank(r, f.sub, ft) != 0)
                return -1;
        }
    }
    return k;
}

/* FeatureNameStatistics: name 1, num_stats 3, string_stats 4, path 8
 * (step 1).  A feature whose path is deeper than a feature list's is
 * passed over (a schema's features have no such keys). */
static int read_feature(rd *r, msg m, dr_stats *s)
{
    field f, g;
    msg steps[2], num = {NULL, NULL}, str = {NULL, NULL}, name = {NULL, NULL};
    size_t nsteps = 0;
    int k, has_path = 0;
    dr_feature ft;
    memset(&ft, 0, sizeof ft);
    while ((k = next(r, &m, &f)) == 1) {
        if (f.num == 1 && expect(r, &f, W_LEN, "FeatureNameStatistics.name") == 0) {
            name = f.sub;
        } else if (f.num == 3 && expect(r, &f, W_LEN, "FeatureNameStatistics.num_stats") == 0) {
            num = f.sub;
        } else if (f.num == 4 && expect(r, &f, W_LEN, "FeatureNameStatistics.string_stats") == 0) {
            str = f.sub;
        } else if (f.num == 8 && expect(r, &f, W_LEN, "FeatureNameStatistics.path") == 0) {
            has_path = 1;
            nsteps = 0;
            while ((k = next(r, &f.sub, &g)) == 1)
                if (g.num == 1 && expect(r, &g, W_LEN, "Path.step") == 0 && nsteps++ < 2)
                    steps[nsteps - 1] = g.sub;
        }
        if (r->failed)
            return -1;
    }
    if (k < 0)
        return -1;
    if (!has_path) {
        steps[0] = name;
        nsteps = name.p != NULL;
    }
    if (nsteps == 2 && steps[0].end - steps[0].p == 12 &&
        memcmp(steps[0].p, "##SEQUENCE##", 12) == 0) {
        ft.list = 1;
        steps[0] = steps[1];
    } else if (nsteps != 1) {
        return 0;
    }
    ft.key = steps[0].p;
    ft.key_len = (size_t)(steps[0].end - steps[0].p);
    if ((num.p != NULL && read_stats(r, num, &ft, 1) != 0) ||
        (str.p != NULL && read_stats(r, str, &ft, 0) != 0)) {
        free(ft.labels);
        free(ft.standard.b);
        free(ft.quantiles.b);
        return -1;
    }
    if (grow((void **)&s->f, &s->cap, s->n, sizeof *s->f) != 0) {
        free(ft.labels);
        free(ft.standard.b);
        free(ft.quantiles.b);
        return fail(r, m.end, "out of memory");
    }
    ft.seq = s->n;
    s->f[s->n++] = ft;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    const dr_feature *x = (const dr_feature *)a, *y = (const dr_feature *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = x->list != y->list ? x->list - y->list : n > 0 ? memcmp(x->key, y->key, n) : 0;
    if (c != 0)
        return c;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int dr_read(dr_stats *s, const uint8_t *p, size_t n, char *err, size_t errlen)
{
    rd r;
    msg list, ds = {NULL, NULL};
    field f;
    size_t datasets = 0;
    int k;
    memset(s, 0, sizeof *s);
    r.base = p;
    r.err = err;
    r.errlen = errlen;
    r.failed = 0;
    list.p = p;
    list.end = p + n;
    while ((k = next(&r, &list, &f)) == 1)
        if (f.num == 1 && expect(&r, &f, W_LEN, "DatasetFeatureStatisticsList.datasets") == 0 &&
            datasets++ == 0)
            ds = f.sub;
    if (k < 0 || r.failed)
        return -1;
    if (datasets != 1)
        return fail(&r, p + n, "%zu datasets: TFDV compares the statistics of one", datasets);
    while ((k = next(&r, &ds, &f)) == 1) {
        if (f.num == 3 && (expect(&r, &f, W_LEN, "DatasetFeatureStatistics.features") != 0 ||
                           read_feature(&r, f.sub, s) != 0))
            break;
        if (r.failed)
            break;
    }
    if (k < 0 || r.failed) {
        dr_free(s);
        return -1;
    }
    /* by key, the first of equal ones first (TFDV's view keeps the first) */
    if (s->n > 0)
        qsort(s->f, s->n, sizeof *s->f, by_key);
    return 0;
}

void dr_free(dr_stats *s)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        free(s->f[i].labels);
        free(s->f[i].standard.b);
        free(s->f[i].quantiles.b);
    }
    free(s->f);
    memset(s, 0, sizeof *s);
}

const dr_feature *dr_find(const dr_stats *s, const uint8_t *key, size_t len, int list)
{
    dr_feature want;
    size_t lo = 0, hi = s->n;
    want.key = key;
    want.key_len = len;
    want.list = list;
    want.seq = 0;
    while (lo < hi) { /* the first feature not below want */
        size_t mid = lo + (hi - lo) / 2;
        if (by_key(&s->f[mid], &want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n && s->f[lo].list == list && s->f[lo].key_len == len &&
        (len == 0 || memcmp(s->f[lo].key, key, len) == 0))
        return &s->f[lo];
    return NULL;
}
