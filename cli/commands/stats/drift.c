/* Drift and skew between two datasets' statistics, as TFDV measures them
 * (drift.h says what and how); the statistics are drift_read.c's. */
#include "drift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ measures */

/* Walks the labels of a and b in byte order, each once: *ca and *cb the
 * counts (0 where a side lacks it); the label in *l. */
typedef struct walk {
    const dr_feature *a, *b;
    size_t i, j;
} walk;

static int walk_next(walk *w, double *ca, double *cb, const dr_label **l)
{
    int c;
    if (w->i == w->a->nlabels && w->j == w->b->nlabels)
        return 0;
    if (w->i == w->a->nlabels)
        c = 1;
    else if (w->j == w->b->nlabels)
        c = -1;
    else
        c = dr_label_cmp(&w->a->labels[w->i], &w->b->labels[w->j]);
    *ca = *cb = 0;
    if (c <= 0) {
        *l = &w->a->labels[w->i];
        *ca = w->a->labels[w->i++].count;
    }
    if (c >= 0) {
        *l = &w->b->labels[w->j];
        *cb = w->b->labels[w->j++].count;
    }
    return 1;
}

static double total(const dr_label *l, size_t n)
{
    double s = 0;
    size_t i;
    for (i = 0; i < n; i++)
        s += l[i].count;
    return s;
}

/* TFDV's MaxNormalizedDifference: each side's counts over its own total
 * (combined: over both totals), a total of 0 dividing by nothing; the
 * largest absolute difference, the last label of the largest in byte
 * order. */
static void max_difference(const dr_feature *a, const dr_feature *b, int combined, double *value,
                           const dr_label **label)
{
    double sa = total(a->labels, a->nlabels), sb = total(b->labels, b->nlabels), best = 0;
    double ca, cb;
    const dr_label *l;
    walk w;
    if (combined)
        sa = sb = sa + sb;
    if (sa == 0)
        sa = 1;
    if (sb == 0)
        sb = 1;
    *label = NULL;
    w.a = a;
    w.b = b;
    w.i = w.j = 0;
    while (walk_next(&w, &ca, &cb, &l)) {
        double d = fabs(ca / sa - cb / sb);
        if (d >= best) {
            best = d;
            *label = l;
        }
    }
    *value = best;
}

static double clamp01(double x)
{
    return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; /* rounding can leave -1e-17 */
}

/* Jensen-Shannon divergence of two rank histograms (TFDV: every count
 * positive). */
static int jsd_labels(const dr_feature *a, const dr_feature *b, double *value, const char **why)
{
    double sa = 0, sb = 0, kl = 0, ca, cb;
    const dr_label *l;
    walk w;
    size_t i;
    for (i = 0; i < a->nlabels; i++)
        if (!(a->labels[i].count > 0)) {
            *why = "a rank histogram's sample_count is not positive (TFDV: \"Sample count is "
                   "a non-positive value.\")";
            return -1;
        }
    for (i = 0; i < b->nlabels; i++)
        if (!(b->labels[i].count > 0)) {
            *why = "a rank histogram's sample_count is not positive (TFDV: \"Sample count is "
                   "a non-positive value.\")";
            return -1;
        }
    w.a = a;
    w.b = b;
    w.i = w.j = 0;
    while (walk_next(&w, &ca, &cb, &l)) {
        sa += ca;
        sb += cb;
    }
    w.i = w.j = 0;
    while (walk_next(&w, &ca, &cb, &l)) {
        double pa = ca / sa, pb = cb / sb, m = (pa + pb) / 2;
        if (ca != 0)
            kl += pa * log2(pa / m);
        if (cb != 0)
            kl += pb * log2(pb / m);
    }
    *value = clamp01(kl / 2);
    return 0;
}

/* A histogram taken apart as TFDV's AlignHistograms does: the buckets with
 * finite, distinct bounds (in order, not overlapping), the point buckets
 * (value -> count, by value), the count of buckets with an infinite bound,
 * and num_nan. */
typedef struct parts {
    dr_bucket *range, *point; /* a point's value in low */
    size_t nrange, npoint;
    double inf, nan;
} parts;

static int by_value(const void *a, const void *b)
{
    double x = ((const dr_bucket *)a)->low, y = ((const dr_bucket *)b)->low;
    return x < y ? -1 : x > y;
}

/* Points by value, equal values in the order read (their place in high). */
static int by_point(const void *a, const void *b)
{
    int c = by_value(a, b);
    double x = ((const dr_bucket *)a)->high, y = ((const dr_bucket *)b)->high;
    return c != 0 ? c : x < y ? -1 : x > y;
}

static int take_apart(const dr_hist *h, parts *p, const char **why)
{
    size_t i, j;
    memset(p, 0, sizeof *p);
    p->nan = h->nan;
    p->range = (dr_bucket *)malloc((h->n + 1) * sizeof *p->range);
    p->point = (dr_bucket *)malloc((h->n + 1) * sizeof *p->point);
    if (p->range == NULL || p->point == NULL) {
        *why = "out of memory";
        return -1;
    }
    for (i = 0; i < h->n; i++) {
        const dr_bucket *b = &h->b[i];
        if (!isfinite(b->low) || !isfinite(b->high)) {
            p->inf += b->count;
        } else if (b->low == b->high) {
            p->point[p->npoint++] = *b;
        } else {
            if (p->nrange > 0 && b->low < p->range[p->nrange - 1].high) {
                *why = "the histogram's buckets overlap or are out of order";
                return -1;
            }
            p->range[p->nrange++] = *b;
        }
    }
    /* points: by value, equal values summed in the order read (TFDV's
     * std::map<double, double> and its +=) */
    for (i = 0; i < p->npoint; i++)
        p->point[i].high = (double)i;
    qsort(p->point, p->npoint, sizeof *p->point, by_point);
    for (i = j = 0; i < p->npoint; i++) {
        if (j > 0 && p->point[j - 1].low == p->point[i].low)
            p->point[j - 1].count += p->point[i].count;
        else
            p->point[j++] = p->point[i];
    }
    p->npoint = j;
    return 0;
}

static void parts_free(parts *p)
{
    free(p->range);
    free(p->point);
}

static int same_ranges(const parts *x, const parts *y)
{
    size_t i;
    if (x->nrange != y->nrange)
        return 0;
    for (i = 0; i < x->nrange; i++)
        if (x->range[i].low != y->range[i].low || x->range[i].high != y->range[i].high)
            return 0;
    return 1;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The counts of p's ranges over the intervals between the bounds u[0..nu)
 * (each range's count spread evenly over its width), appended to out. */
static size_t rebucket(const parts *p, const double *u, size_t nu, double *out)
{
    size_t j, k = 0, n = 0;
    for (j = 0; j + 1 < nu; j++) {
        double lo = u[j], hi = u[j + 1];
        while (k < p->nrange && p->range[k].high <= lo)
            k++;
        if (k < p->nrange && p->range[k].low <= lo && hi <= p->range[k].high)
            out[n++] = ((hi - lo) / (p->range[k].high - p->range[k].low)) * p->range[k].count;
        else
            out[n++] = 0;
    }
    return n;
}

/* KL(p || (p + q) / 2) with p and q normalised here by their totals. */
static double kl_to_mean(const double *p, double sp, const double *q, double sq, size_t n)
{
    double r = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double x = p[i] / sp, m = (p[i] / sp + q[i] / sq) / 2;
        if (x > 0 && m > 0)
            r += x * log2(x / m);
    }
    return r;
}

static int jsd_hist(const dr_hist *ha, const dr_hist *hb, double *value, const char **why)
{
    parts a, b;
    double *u = NULL, *ca = NULL, *cb = NULL, sa = 0, sb = 0;
    size_t nu = 0, n = 0, m = 0, i, j;
    int rc = -1;
    memset(&b, 0, sizeof b);
    if (take_apart(ha, &a, why) != 0 || take_apart(hb, &b, why) != 0)
        goto out;
    m = a.nrange + b.nrange;
    u = (double *)malloc((2 * m + 1) * sizeof *u);
    ca = (double *)malloc((2 * m + a.npoint + b.npoint + 5) * sizeof *ca);
    cb = (double *)malloc((2 * m + a.npoint + b.npoint + 5) * sizeof *cb);
    if (u == NULL || ca == NULL || cb == NULL) {
        *why = "out of memory";
        goto out;
    }
    if (same_ranges(&a, &b)) {
        for (i = 0; i < a.nrange; i++) {
            ca[n] = a.range[i].count;
            cb[n++] = b.range[i].count;
        }
    } else {
        /* the union of the bounds; rebucketed histograms lose num_nan, as
         * TFDV's RebucketHistogram makes a new Histogram without it */
        for (i = 0; i < a.nrange; i++) {
            u[nu++] = a.range[i].low;
            u[nu++] = a.range[i].high;
        }
        for (i = 0; i < b.nrange; i++) {
            u[nu++] = b.range[i].low;
            u[nu++] = b.range[i].high;
        }
        qsort(u, nu, sizeof *u, by_double);
        for (i = j = 0; i < nu; i++)
            if (j == 0 || u[i] != u[j - 1])
                u[j++] = u[i];
        nu = j;
        n = rebucket(&a, u, nu, ca);
        rebucket(&b, u, nu, cb);
        a.nan = b.nan = 0;
    }
    for (i = j = 0; i < a.npoint || j < b.npoint;) { /* the points of both, by value */
        int c = i == a.npoint ? 1 : j == b.npoint ? -1 : by_value(&a.point[i], &b.point[j]);
        ca[n] = c <= 0 ? a.point[i++].count : 0;
        cb[n++] = c >= 0 ? b.point[j++].count : 0;
    }
    if (a.inf != 0) {
        ca[n] = a.inf;
        cb[n++] = 0;
    }
    if (b.inf != 0) {
        ca[n] = 0;
        cb[n++] = b.inf;
    }
    if (a.nan > 0 || b.nan > 0) { /* TFDV's two NaN buckets, one for each side */
        ca[n] = 0;
        cb[n++] = b.nan;
        ca[n] = a.nan;
        cb[n++] = 0;
    }
    for (i = 0; i < n; i++) {
        sa += ca[i];
        sb += cb[i];
    }
    if (sa == 0 || sb == 0) {
        *why = "an empty histogram (TFDV: \"Unable to normalize an empty histogram\")";
        goto out;
    }
    *value = clamp01((kl_to_mean(ca, sa, cb, sb, n) + kl_to_mean(cb, sb, ca, sa, n)) / 2);
    rc = 0;
out:
    parts_free(&a);
    parts_free(&b);
    free(u);
    free(ca);
    free(cb);
    return rc;
}

/* String statistics of values whose rank histogram lists none of them. */
static int unlisted(const dr_feature *f)
{
    return f->strings && f->values > 0 && f->nlabels == 0;
}

static double hist_total(const dr_hist *h)
{
    double t = h->nan;
    size_t i;
    for (i = 0; i < h->n; i++)
        t += h->b[i].count;
    return t;
}

int dr_measure(int m, const dr_feature *a, const dr_feature *b, int quantiles, double *value,
               const dr_label **label, const char **why)
{
    const dr_hist *ha = quantiles ? &a->quantiles : &a->standard;
    const dr_hist *hb = quantiles ? &b->quantiles : &b->standard;
    int va, vb; /* each side has values the measure reads */
    *label = NULL;
    *why = NULL;
    if (unlisted(a) || unlisted(b)) {
        *why = "its statistics list none of its values (a rank histogram without a bucket): "
               "more distinct values than the top-values sketch is sure of";
        return -1;
    }
    if (m == DR_LINF || m == DR_NAD) {
        if (a->nlabels == 0 && b->nlabels == 0 && (a->standard.present || b->standard.present)) {
            *why = "the statistics have no rank histogram (values with their counts) for it: "
                   "featc counts the values of string features";
            return -1;
        }
        max_difference(a, b, m == DR_NAD, value, label);
        return 0;
    }
    if (a->nlabels > 0 && b->nlabels > 0)
        return jsd_labels(a, b, value, why);
    va = a->nlabels > 0 || (ha->present && hist_total(ha) > 0);
    vb = b->nlabels > 0 || (hb->present && hist_total(hb) > 0);
    if (!va || !vb)
        return !va && !vb ? DR_EMPTY_BOTH : !va ? DR_EMPTY_A : DR_EMPTY_B;
    if (ha->present && hb->present)
        return jsd_hist(ha, hb, value, why);
    if ((a->nlabels == 0) != (b->nlabels == 0) && !ha->present != !hb->present)
        *why = "Input statistics must be either both numeric or both string in order to "
               "calculate the Jensen-Shannon divergence.";
    else
        *why = "One or more feature missing data.";
    return -1;
}
