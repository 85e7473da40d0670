/* What drift.c (the measures) and drift_read.c (the statistics they read)
 * share, for featc validate --against: TensorFlow Data Validation's drift
 * and skew comparators between two datasets, each described by a binary
 * DatasetFeatureStatisticsList (a stats file that TFDV or `featc stats
 * --tfmd-out` wrote, or featc's statistics of record files encoded the same
 * way, st_encode_tfdv), and measured as TFDV measures them
 * (tensorflow_data_validation/anomalies/metrics.cc):
 *
 *   L-infinity distance   over the rank histograms (value -> count), each
 *                         normalised by its own total: the largest
 *                         difference of a value's shares, and that value
 *   normalized absolute   the same over both totals together
 *   difference
 *   Jensen-Shannon        over the rank histograms when both have one,
 *   divergence            else over the STANDARD (or QUANTILES) histograms:
 *                         aligned on the union of their bucket bounds (a
 *                         bucket's count spread evenly over its width),
 *                         point buckets, infinite and NaN counts added as
 *                         buckets of their own; log base 2, at most 1.
 *
 * The statistics are untrusted bytes: every length is checked, and a
 * damaged message, a NaN bound, a negative count or buckets out of order is
 * an error with its byte offset.  Hosted code: it allocates (in proportion
 * to the statistics' size). */
#ifndef FEATC_DRIFT_H
#define FEATC_DRIFT_H

#include <stddef.h>
#include <stdint.h>

typedef struct dr_bucket {
    double low, high, count;
} dr_bucket;

typedef struct dr_hist {
    int present;
    double nan;        /* num_nan */
    dr_bucket *b;
    size_t n;
} dr_hist;

typedef struct dr_label {
    const uint8_t *p;  /* into the statistics' bytes */
    size_t n;
    double count;
    size_t seq;        /* its place among the labels read */
} dr_label;

/* One feature: its key (a feature list's is under ##SEQUENCE##), its rank
 * histogram (labels sorted by bytes, the first of equal ones kept, as TFDV's
 * map keeps it) and its first histogram of each type. */
typedef struct dr_feature {
    const uint8_t *key;
    size_t key_len;
    int list;
    dr_label *labels;
    size_t nlabels;
    dr_hist standard, quantiles;
    int strings;       /* it has string_stats, */
    double values;     /* of common_stats.tot_num_values values */
    size_t seq;        /* its place among the features read */
} dr_feature;

typedef struct dr_stats {
    dr_feature *f;
    size_t n, cap;
} dr_stats;

/* Reads the statistics in p[0..n) (they must outlive s): 0, or -1 with a
 * message in err ("byte N: ...").  The list holds one dataset (TFDV
 * validates one). */
int dr_read(dr_stats *s, const uint8_t *p, size_t n, char *err, size_t errlen); /* drift_read.c */
void dr_free(dr_stats *s);
/* The feature of key (list: a feature list), or NULL. */
const dr_feature *dr_find(const dr_stats *s, const uint8_t *key, size_t len, int list);

/* Labels in byte order (std::string's): <0, 0, >0. */
int dr_label_cmp(const dr_label *x, const dr_label *y);

enum { DR_LINF, DR_NAD, DR_JSD, DR_MEASURES };

/* The measure m of a (the current, or treatment, data) against b (the
 * previous, or control): 0 with *value set (and for DR_LINF and DR_NAD the
 * value with the largest difference in *label, NULL when the histograms
 * are empty); DR_EMPTY_A, _B or _BOTH when the Jensen-Shannon divergence
 * has no values to read on that side (TFDV then measures nothing); or -1
 * with why it cannot be measured in *why.  quantiles: DR_JSD over the
 * QUANTILES histograms. */
enum { DR_EMPTY_A = 1, DR_EMPTY_B, DR_EMPTY_BOTH };
int dr_measure(int m, const dr_feature *a, const dr_feature *b, int quantiles, double *value,
               const dr_label **label, const char **why);

#endif /* FEATC_DRIFT_H */
