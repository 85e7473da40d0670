/* Streaming summaries for featc stats: bounded memory whatever the input,
 * and mergeable (the stats of shards, or of the thread pool's splits,
 * combine into the stats of the whole).  Hosted code: they allocate, and
 * every allocation is bounded by the constants below.
 *
 *   sk_moments  count, min, max, mean and variance (Welford's update,
 *               Chan's merge): exact counts and extremes, moments to
 *               rounding error.
 *   sk_quant    quantiles with relative accuracy SK_ALPHA (DDSketch,
 *               Masson et al., VLDB 2019): values go to logarithmic buckets
 *               (gamma^(i-1), gamma^i], gamma = (1 + a) / (1 - a); the
 *               quantile q is the bucket holding the value of rank
 *               floor(q (n - 1)) of the sorted input, reported as the
 *               bucket's midpoint in relative terms, so within SK_ALPHA x
 *               |x| of that value x.  For integer inputs a bucket that
 *               holds one integer reports it exactly.  Zero is counted
 *               apart.  While at most SK_EXACT distinct values have been
 *               seen they are also kept with their counts, and quantiles
 *               and histograms are exact.  At most SK_BUCKETS buckets per sign: beyond, the
 *               smallest magnitudes are merged into one bucket, and the
 *               quantiles that fall there lose the bound (counted in
 *               `collapsed`).
 *   sk_distinct the number of distinct values: exact up to SK_EXACT
 *               distinct 64-bit hashes, then a HyperLogLog of 2^SK_HLL_P
 *               registers (standard error 1.04 / 64 = 1.6%).
 *   sk_top      the most frequent bytes values (Misra-Gries, SK_TOP
 *               counters): each value whose count exceeds `error` is
 *               listed, and a listed count is at most `error` below the
 *               true one (error 0: the counts are exact).
 */
#ifndef FEATC_SKETCH_H
#define FEATC_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#define SK_ALPHA 0.01
#define SK_BUCKETS 2048
#define SK_EXACT 256
#define SK_HLL_P 12
#define SK_TOP 64
#define SK_TOP_PREFIX 96 /* bytes of a top value kept for display */

typedef struct sk_moments {
    uint64_t n;
    double mean, m2, min, max;
} sk_moments;

void sk_moments_add(sk_moments *m, double x);
void sk_moments_merge(sk_moments *m, const sk_moments *o);
/* The population standard deviation (numpy's std, ddof 0). */
double sk_moments_std(const sk_moments *m);

typedef struct sk_store {
    int32_t lo;      /* index of count[0] */
    uint32_t n, cap; /* buckets in use from lo; allocated */
    uint64_t *count;
} sk_store;

/* The values themselves while there are few: up to SK_EXACT of them. */
typedef struct sk_value {
    double v;
    uint64_t count;
} sk_value;

typedef struct sk_quant {
    sk_store pos, neg; /* neg holds -x */
    uint64_t zeros, n;
    uint64_t collapsed; /* values moved into a merged lowest bucket */
    int integer;        /* every value added was an integer */
    double min, max;
    /* exact while at most SK_EXACT distinct values were seen: then the
     * quantiles and histograms come from the values, not the buckets */
    sk_value *exact;    /* 2 x SK_EXACT slots (count 0: empty), or NULL */
    uint32_t nexact;
    int overflowed;     /* more distinct values than SK_EXACT: exact is gone */
} sk_quant;

/* 0, or -1 when memory ran out. */
int sk_quant_add(sk_quant *q, double x);
/* Nonzero when the quantiles and histograms of q are exact. */
int sk_quant_exact(const sk_quant *q);
int sk_quant_merge(sk_quant *q, const sk_quant *o);
/* The estimate of quantile p in [0, 1] (q->n > 0). */
double sk_quant_value(const sk_quant *q, double p);
/* Counts of nbins (at most 64) equal-width bins over [lo, hi]: each
 * bucket's count spread evenly over the values it stands for (a bucket of
 * one integer: that integer), rounded to whole counts that add up to n. */
void sk_quant_histogram(const sk_quant *q, double lo, double hi, uint64_t *bins, size_t nbins);
void sk_quant_free(sk_quant *q);

typedef struct sk_distinct {
    uint32_t n;        /* exact hashes held (exact mode) */
    uint64_t *hashes;  /* SK_EXACT slots, open addressing; NULL when none yet */
    uint8_t *reg;      /* HLL registers once past SK_EXACT; then hashes is NULL */
} sk_distinct;

int sk_distinct_add(sk_distinct *d, uint64_t hash);
int sk_distinct_merge(sk_distinct *d, const sk_distinct *o);
/* The estimate; *exact set when it is an exact count. */
double sk_distinct_value(const sk_distinct *d, int *exact);
void sk_distinct_free(sk_distinct *d);

typedef struct sk_top_item {
    uint64_t hash;
    uint64_t count;
    size_t len;                       /* the value's full length */
    uint8_t prefix[SK_TOP_PREFIX];    /* its first min(len, SK_TOP_PREFIX) bytes */
} sk_top_item;

typedef struct sk_top {
    uint32_t n;
    uint64_t error;       /* a listed count may be this much below the truth */
    sk_top_item *item;    /* SK_TOP slots, allocated at the first value */
} sk_top;

int sk_top_add(sk_top *t, const uint8_t *v, size_t len, uint64_t hash);
int sk_top_merge(sk_top *t, const sk_top *o);
/* Sorts the items by count (descending), then bytes. */
void sk_top_sort(sk_top *t);
void sk_top_free(sk_top *t);

/* A 64-bit hash of bytes (and of one 64-bit value), seeded. */
uint64_t sk_hash(const uint8_t *p, size_t n);
uint64_t sk_hash64(uint64_t v);

#endif /* FEATC_SKETCH_H */
