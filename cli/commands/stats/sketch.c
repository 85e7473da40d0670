/* Streaming summaries for featc stats (sketch.h). */
#include "sketch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- moments */

void sk_moments_add(sk_moments *m, double x)
{
    double d;
    if (m->n == 0 || x < m->min)
        m->min = x;
    if (m->n == 0 || x > m->max)
        m->max = x;
    m->n++;
    d = x - m->mean;
    m->mean += d / (double)m->n;
    m->m2 += d * (x - m->mean);
}

void sk_moments_merge(sk_moments *m, const sk_moments *o)
{
    double n, d;
    if (o->n == 0)
        return;
    if (m->n == 0) {
        *m = *o;
        return;
    }
    n = (double)m->n + (double)o->n;
    d = o->mean - m->mean;
    m->m2 += o->m2 + d * d * (double)m->n * (double)o->n / n;
    m->mean += d * (double)o->n / n;
    m->n += o->n;
    if (o->min < m->min)
        m->min = o->min;
    if (o->max > m->max)
        m->max = o->max;
}

double sk_moments_std(const sk_moments *m)
{
    return m->n == 0 || m->m2 <= 0 ? 0.0 : sqrt(m->m2 / (double)m->n);
}

/* ------------------------------------------------------------- quantiles */

static double log_gamma(void)
{
    return log((1.0 + SK_ALPHA) / (1.0 - SK_ALPHA));
}

/* The bucket of x > 0: (gamma^(i-1), gamma^i]. */
static int32_t bucket_of(double x)
{
    double i = ceil(log(x) / log_gamma());
    /* doubles span about +-1100 buckets of 1% per factor e: far inside int32 */
    return (int32_t)i;
}

/* Adds c values to bucket i; values below the window's allowed span go to
 * its lowest bucket (counted in *collapsed). */
static int store_add(sk_store *s, int32_t i, uint64_t c, uint64_t *collapsed)
{
    int64_t lo, hi;
    if (s->n == 0) {
        if (s->cap == 0) {
            s->count = (uint64_t *)calloc(8, sizeof *s->count);
            if (s->count == NULL)
                return -1;
            s->cap = 8;
        }
        s->lo = i;
        s->n = 1;
        s->count[0] = c;
        return 0;
    }
    lo = s->lo;
    hi = (int64_t)s->lo + (int64_t)s->n - 1;
    if (i > hi)
        hi = i;
    if (i < lo)
        lo = i;
    if (hi - lo + 1 > SK_BUCKETS) {
        /* keep the largest magnitudes: [hi - SK_BUCKETS + 1, hi] */
        int64_t keep = hi - SK_BUCKETS + 1;
        if (i < keep) {
            i = (int32_t)keep;
            *collapsed += c;
        }
        lo = keep;
    }
    if (lo != s->lo || hi - lo + 1 > (int64_t)s->n) {
        size_t want = (size_t)(hi - lo + 1), shift, k;
        uint64_t below = 0;
        if (want > s->cap) {
            size_t cap = s->cap;
            uint64_t *p;
            while (cap < want)
                cap *= 2;
            if (cap > SK_BUCKETS)
                cap = SK_BUCKETS;
            p = (uint64_t *)realloc(s->count, cap * sizeof *p);
            if (p == NULL)
                return -1;
            s->count = p;
            s->cap = (uint32_t)cap;
        }
        if (lo < s->lo) {
            shift = (size_t)(s->lo - lo);
            memmove(s->count + shift, s->count, s->n * sizeof *s->count);
            memset(s->count, 0, shift * sizeof *s->count);
        } else if (lo > s->lo) {
            /* the window moved up: buckets below lo fold into lo */
            shift = (size_t)(lo - s->lo);
            for (k = 0; k < shift && k < s->n; k++)
                below += s->count[k];
            *collapsed += below;
            if (shift < s->n)
                memmove(s->count, s->count + shift, (s->n - shift) * sizeof *s->count);
            else
                shift = s->n;
            memset(s->count + (s->n - shift), 0, shift * sizeof *s->count);
            s->count[0] += below;
        }
        for (k = s->n + (size_t)(s->lo > lo ? s->lo - lo : 0); k < want; k++)
            s->count[k] = 0;
        s->lo = (int32_t)lo;
        s->n = (uint32_t)want;
    }
    s->count[i - s->lo] += c;
    return 0;
}

#define VALUE_SLOTS (2u * SK_EXACT)

static uint32_t value_slot(double v)
{
    uint64_t bits;
    if (v == 0)
        v = 0; /* -0.0 and 0.0 are one value */
    memcpy(&bits, &v, sizeof bits);
    return (uint32_t)(sk_hash64(bits) % VALUE_SLOTS);
}

/* Adds c x v to the exact values; past SK_EXACT distinct ones they are
 * dropped for good.  -1 when memory ran out. */
static int exact_add(sk_quant *q, double v, uint64_t c)
{
    uint32_t k;
    if (q->overflowed)
        return 0;
    if (q->exact == NULL) {
        q->exact = (sk_value *)calloc(VALUE_SLOTS, sizeof *q->exact);
        if (q->exact == NULL)
            return -1;
    }
    if (v == 0)
        v = 0;
    for (k = value_slot(v);; k = (k + 1) % VALUE_SLOTS) {
        if (q->exact[k].count == 0)
            break;
        if (q->exact[k].v == v) {
            q->exact[k].count += c;
            return 0;
        }
    }
    if (q->nexact == SK_EXACT) {
        free(q->exact);
        q->exact = NULL;
        q->overflowed = 1;
        return 0;
    }
    q->exact[k].v = v;
    q->exact[k].count = c;
    q->nexact++;
    return 0;
}

int sk_quant_exact(const sk_quant *q)
{
    return !q->overflowed && q->exact != NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = ((const sk_value *)a)->v, y = ((const sk_value *)b)->v;
    return x < y ? -1 : x > y;
}

/* The exact values, sorted (n of them in *out, malloc'd); -1 when memory
 * ran out. */
static int exact_sorted(const sk_quant *q, sk_value **out, uint32_t *n)
{
    uint32_t k, m = 0;
    sk_value *v = (sk_value *)malloc((q->nexact + 1) * sizeof *v);
    if (v == NULL)
        return -1;
    for (k = 0; k < VALUE_SLOTS; k++)
        if (q->exact[k].count != 0)
            v[m++] = q->exact[k];
    qsort(v, m, sizeof *v, by_value);
    *out = v;
    *n = m;
    return 0;
}

int sk_quant_add(sk_quant *q, double x)
{
    int r = 0;
    if (exact_add(q, x, 1) != 0)
        return -1;
    if (q->n == 0) {
        q->min = q->max = x;
        q->integer = 1;
    }
    if (x < q->min)
        q->min = x;
    if (x > q->max)
        q->max = x;
    if (q->integer && x != floor(x))
        q->integer = 0;
    if (x > 0)
        r = store_add(&q->pos, bucket_of(x), 1, &q->collapsed);
    else if (x < 0)
        r = store_add(&q->neg, bucket_of(-x), 1, &q->collapsed);
    else
        q->zeros++;
    if (r == 0)
        q->n++;
    return r;
}

int sk_quant_merge(sk_quant *q, const sk_quant *o)
{
    uint32_t k;
    if (o->n == 0)
        return 0;
    if (q->n == 0) {
        q->min = o->min;
        q->max = o->max;
        q->integer = o->integer;
    }
    if (o->min < q->min)
        q->min = o->min;
    if (o->max > q->max)
        q->max = o->max;
    q->integer = q->integer && o->integer;
    if (o->overflowed) {
        free(q->exact);
        q->exact = NULL;
        q->overflowed = 1;
    }
    for (k = 0; o->exact != NULL && !q->overflowed && k < VALUE_SLOTS; k++)
        if (o->exact[k].count != 0 && exact_add(q, o->exact[k].v, o->exact[k].count) != 0)
            return -1;
    for (k = 0; k < o->pos.n; k++)
        if (o->pos.count[k] != 0 &&
            store_add(&q->pos, o->pos.lo + (int32_t)k, o->pos.count[k], &q->collapsed) != 0)
            return -1;
    for (k = 0; k < o->neg.n; k++)
        if (o->neg.count[k] != 0 &&
            store_add(&q->neg, o->neg.lo + (int32_t)k, o->neg.count[k], &q->collapsed) != 0)
            return -1;
    q->zeros += o->zeros;
    q->n += o->n;
    q->collapsed += o->collapsed;
    return 0;
}

/* The value bucket i (of magnitudes) reports. */
static double bucket_value(const sk_quant *q, int32_t i)
{
    double g = exp(log_gamma()), v = 2.0 * pow(g, (double)i) / (g + 1.0);
    if (q->integer) {
        /* the one integer of the bucket, when it holds exactly one */
        double lo = floor(pow(g, (double)i - 1.0)), hi = ceil(pow(g, (double)i)), k, one = 0;
        int found = 0;
        if (hi - lo <= 4)
            for (k = lo; k <= hi; k++)
                if (k > 0 && bucket_of(k) == i) {
                    found++;
                    one = k;
                }
        if (found == 1)
            v = one;
    }
    return v;
}

static double clamp(const sk_quant *q, double v)
{
    return v < q->min ? q->min : v > q->max ? q->max : v;
}

double sk_quant_value(const sk_quant *q, double p)
{
    uint64_t rank, seen = 0;
    uint32_t k;
    if (q->n == 0)
        return 0;
    if (p <= 0)
        return q->min;
    if (p >= 1)
        return q->max;
    rank = (uint64_t)floor(p * (double)(q->n - 1));
    if (sk_quant_exact(q)) {
        sk_value *v;
        uint32_t n, j;
        if (exact_sorted(q, &v, &n) == 0) {
            double r = q->max;
            for (j = 0; j < n; j++) {
                seen += v[j].count;
                if (seen > rank) {
                    r = v[j].v;
                    break;
                }
            }
            free(v);
            return r;
        }
        seen = 0; /* out of memory: the buckets answer */
    }
    for (k = q->neg.n; k-- > 0;) {
        seen += q->neg.count[k];
        if (seen > rank)
            return clamp(q, -bucket_value(q, q->neg.lo + (int32_t)k));
    }
    seen += q->zeros;
    if (seen > rank)
        return clamp(q, 0.0);
    for (k = 0; k < q->pos.n; k++) {
        seen += q->pos.count[k];
        if (seen > rank)
            return clamp(q, bucket_value(q, q->pos.lo + (int32_t)k));
    }
    return q->max;
}

/* Adds c values spread evenly over [a, b] (a point when a == b) to the
 * fractional bins of [lo, hi]. */
static void bin_spread(double *bins, size_t nbins, double lo, double hi, double a, double b,
                       double c)
{
    double w = (hi - lo) / (double)nbins;
    size_t j;
    if (!(hi > lo)) {
        bins[0] += c;
        return;
    }
    if (b <= a) {
        double f = (a - lo) / w;
        j = f <= 0 ? 0 : f >= (double)nbins ? nbins - 1 : (size_t)f;
        bins[j] += c;
        return;
    }
    for (j = 0; j < nbins; j++) {
        double l = lo + w * (double)j, r = j + 1 == nbins ? hi : lo + w * (double)(j + 1);
        double o = (b < r ? b : r) - (a > l ? a : l);
        if (o > 0)
            bins[j] += c * o / (b - a);
    }
}

/* The interval of values bucket i (of magnitudes) stands for, within
 * [min, max] of the sketch (sign s: 1 or -1); a point when the bucket
 * reports one integer. */
static void bucket_span(const sk_quant *q, int32_t i, double s, double *a, double *b)
{
    double g = exp(log_gamma()), v = bucket_value(q, i), lo, hi;
    if (q->integer && v == floor(v)) {
        *a = *b = clamp(q, s * v);
        return;
    }
    lo = s * pow(g, (double)i - 1.0);
    hi = s * pow(g, (double)i);
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    *a = clamp(q, lo);
    *b = clamp(q, hi);
}

void sk_quant_histogram(const sk_quant *q, double lo, double hi, uint64_t *bins, size_t nbins)
{
    double f[64], a, b, frac[64];
    uint64_t total = 0;
    uint32_t k;
    size_t j;
    if (nbins > 64)
        nbins = 64;
    memset(f, 0, sizeof f);
    if (sk_quant_exact(q)) {
        for (k = 0; k < VALUE_SLOTS; k++)
            if (q->exact[k].count != 0)
                bin_spread(f, nbins, lo, hi, q->exact[k].v, q->exact[k].v,
                           (double)q->exact[k].count);
        for (j = 0; j < nbins; j++)
            bins[j] = (uint64_t)f[j];
        return;
    }
    for (k = 0; k < q->neg.n; k++)
        if (q->neg.count[k] != 0) {
            bucket_span(q, q->neg.lo + (int32_t)k, -1.0, &a, &b);
            bin_spread(f, nbins, lo, hi, a, b, (double)q->neg.count[k]);
        }
    if (q->zeros != 0)
        bin_spread(f, nbins, lo, hi, 0.0, 0.0, (double)q->zeros);
    for (k = 0; k < q->pos.n; k++)
        if (q->pos.count[k] != 0) {
            bucket_span(q, q->pos.lo + (int32_t)k, 1.0, &a, &b);
            bin_spread(f, nbins, lo, hi, a, b, (double)q->pos.count[k]);
        }
    /* whole counts that add up to n: floors, then the largest remainders */
    for (j = 0; j < nbins; j++) {
        bins[j] = (uint64_t)floor(f[j]);
        frac[j] = f[j] - (double)bins[j];
        total += bins[j];
    }
    while (total < q->n && nbins > 0) {
        size_t best = 0;
        for (j = 1; j < nbins; j++)
            if (frac[j] > frac[best])
                best = j;
        bins[best]++;
        frac[best] = -1;
        total++;
    }
}

void sk_quant_free(sk_quant *q)
{
    free(q->exact);
    free(q->pos.count);
    free(q->neg.count);
    memset(q, 0, sizeof *q);
}

/* ----------------------------------------------------------------- hashes */

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t w = 0;
    size_t i;
    for (i = n; i-- > 0;)
        w = w << 8 | p[i];
    return w;
}

uint64_t sk_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)n * 0x87c37b91114253d5ULL);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = load_le(p + i, 8) * 0x87c37b91114253d5ULL;
        w = (w << 31 | w >> 33) * 0x4cf5ad432745937fULL;
        h ^= w;
        h = (h << 27 | h >> 37) * 5 + 0x52dce729;
    }
    if (i < n) {
        uint64_t w = load_le(p + i, n - i) * 0x87c37b91114253d5ULL;
        h ^= (w << 31 | w >> 33) * 0x4cf5ad432745937fULL;
    }
    return fmix64(h);
}

uint64_t sk_hash64(uint64_t v)
{
    return fmix64(v ^ 0x9e3779b97f4a7c15ULL);
}

/* -------------------------------------------------------------- distinct */

#define HLL_M (1u << SK_HLL_P)
#define EXACT_SLOTS (2u * SK_EXACT)

static void hll_add(uint8_t *reg, uint64_t h)
{
    uint32_t j = (uint32_t)(h >> (64 - SK_HLL_P));
    uint64_t w = h << SK_HLL_P;
    uint8_t rank = 1;
    while (rank <= 64 - SK_HLL_P && (w & ((uint64_t)1 << 63)) == 0) {
        rank++;
        w <<= 1;
    }
    if (rank > reg[j])
        reg[j] = rank;
}

static int to_hll(sk_distinct *d)
{
    uint32_t k;
    d->reg = (uint8_t *)calloc(HLL_M, 1);
    if (d->reg == NULL)
        return -1;
    for (k = 0; d->hashes != NULL && k < EXACT_SLOTS; k++)
        if (d->hashes[k] != 0)
            hll_add(d->reg, d->hashes[k]);
    free(d->hashes);
    d->hashes = NULL;
    return 0;
}

int sk_distinct_add(sk_distinct *d, uint64_t h)
{
    uint32_t k;
    if (d->reg != NULL) {
        hll_add(d->reg, h);
        return 0;
    }
    if (h == 0)
        h = 1; /* 0 marks an empty slot */
    if (d->hashes == NULL) {
        d->hashes = (uint64_t *)calloc(EXACT_SLOTS, sizeof *d->hashes);
        if (d->hashes == NULL)
            return -1;
    }
    for (k = (uint32_t)(h % EXACT_SLOTS);; k = (k + 1) % EXACT_SLOTS) {
        if (d->hashes[k] == h)
            return 0;
        if (d->hashes[k] == 0)
            break;
    }
    if (d->n == SK_EXACT) {
        if (to_hll(d) != 0)
            return -1;
        hll_add(d->reg, h);
        return 0;
    }
    d->hashes[k] = h;
    d->n++;
    return 0;
}

int sk_distinct_merge(sk_distinct *d, const sk_distinct *o)
{
    uint32_t k;
    if (o->reg != NULL) {
        if (d->reg == NULL && to_hll(d) != 0)
            return -1;
        for (k = 0; k < HLL_M; k++)
            if (o->reg[k] > d->reg[k])
                d->reg[k] = o->reg[k];
        return 0;
    }
    for (k = 0; o->hashes != NULL && k < EXACT_SLOTS; k++)
        if (o->hashes[k] != 0 && sk_distinct_add(d, o->hashes[k]) != 0)
            return -1;
    return 0;
}

double sk_distinct_value(const sk_distinct *d, int *exact)
{
    double sum = 0, m = HLL_M, e;
    uint32_t k, zeros = 0;
    *exact = d->reg == NULL;
    if (d->reg == NULL)
        return (double)d->n;
    for (k = 0; k < HLL_M; k++) {
        sum += ldexp(1.0, -(int)d->reg[k]);
        zeros += d->reg[k] == 0;
    }
    e = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    if (e <= 2.5 * m && zeros > 0)
        e = m * log(m / (double)zeros);
    return e;
}

void sk_distinct_free(sk_distinct *d)
{
    free(d->hashes);
    free(d->reg);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------ top values */

static sk_top_item *top_find(sk_top *t, uint64_t hash, size_t len)
{
    uint32_t k;
    for (k = 0; k < t->n; k++)
        if (t->item[k].hash == hash && t->item[k].len == len)
            return &t->item[k];
    return NULL;
}

static void top_set(sk_top_item *it, const uint8_t *v, size_t len, uint64_t hash, uint64_t c)
{
    it->hash = hash;
    it->len = len;
    it->count = c;
    memcpy(it->prefix, v, len < SK_TOP_PREFIX ? len : SK_TOP_PREFIX);
}

int sk_top_add(sk_top *t, const uint8_t *v, size_t len, uint64_t hash)
{
    sk_top_item *it;
    uint32_t k, kept;
    if (t->item == NULL) {
        t->item = (sk_top_item *)malloc(SK_TOP * sizeof *t->item);
        if (t->item == NULL)
            return -1;
    }
    it = top_find(t, hash, len);
    if (it != NULL) {
        it->count++;
        return 0;
    }
    if (t->n < SK_TOP) {
        top_set(&t->item[t->n++], v, len, hash, 1);
        return 0;
    }
    /* every counter and the new value lose one */
    for (k = kept = 0; k < t->n; k++)
        if (--t->item[k].count > 0)
            t->item[kept++] = t->item[k];
    t->n = kept;
    t->error++;
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const sk_top_item *x = (const sk_top_item *)a, *y = (const sk_top_item *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (n > SK_TOP_PREFIX)
        n = SK_TOP_PREFIX;
    c = memcmp(x->prefix, y->prefix, n);
    if (c != 0)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

void sk_top_sort(sk_top *t)
{
    if (t->n > 1)
        qsort(t->item, t->n, sizeof *t->item, by_count);
}

int sk_top_merge(sk_top *t, const sk_top *o)
{
    sk_top_item *all;
    uint32_t n = 0, k, kept;
    uint64_t cut = 0;
    if (o->n == 0 && o->error == 0)
        return 0;
    all = (sk_top_item *)malloc(2 * SK_TOP * sizeof *all);
    if (all == NULL)
        return -1;
    for (k = 0; k < t->n; k++)
        all[n++] = t->item[k];
    for (k = 0; k < o->n; k++) {
        uint32_t j;
        for (j = 0; j < t->n; j++)
            if (all[j].hash == o->item[k].hash && all[j].len == o->item[k].len)
                break;
        if (j < t->n)
            all[j].count += o->item[k].count;
        else
            all[n++] = o->item[k];
    }
    if (n > SK_TOP) {
        /* Agarwal et al.'s merge: every count loses the (SK_TOP+1)-th largest */
        qsort(all, n, sizeof *all, by_count);
        cut = all[SK_TOP].count;
        for (k = kept = 0; k < n; k++)
            if (all[k].count > cut) {
                all[kept] = all[k];
                all[kept++].count -= cut;
            }
        n = kept;
    }
    free(t->item);
    t->item = all;
    t->n = n;
    t->error += o->error + cut;
    return 0;
}

void sk_top_free(sk_top *t)
{
    free(t->item);
    memset(t, 0, sizeof *t);
}
