/* featc validate --against: drift (the records against earlier data) and
 * skew (--skew: training against serving data), with TFDV's comparators
 * and texts.  Both sides are described as TFDV describes them, a
 * DatasetFeatureStatisticsList: featc stats' statistics of record files
 * (the bytes `stats --tfmd-out` writes), or a stats file given; the
 * measures are stats/drift.c's.  Hosted: it allocates (the statistics). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "stats/drift.h"
#include "validate_drift.h"

int vd_wanted(const vd_options *o)
{
    return o->nagainst > 0 || o->stats_path != NULL;
}

void vd_read(char **files, int nfiles, const fc_input_options *read, cli_decoder *d,
             vd_each each, void *ctx, int *failed, uint64_t *other)
{
    int k;
    for (k = 0; k < nfiles; k++) {
        fc_input in;
        fc_record rec;
        fc_status st = fc_input_open(&in, files[k], read);
        while (st == FC_OK && (st = fc_input_next(&in, &rec)) == FC_OK) {
            fc_fallback fb;
            fc_error err;
            fc_error_clear(&err);
            if (cli_decode(d, &rec, FC_PAYLOAD_AUTO, 0, &fb, &err) != FC_OK) {
                if ((*other)++ < 5)
                    fprintf(stderr, "featc: %s: record %llu: not an Example or SequenceExample: %s\n",
                            files[k], (unsigned long long)rec.index, err.message);
                continue;
            }
            each(ctx, (size_t)k, rec.index, &fb);
        }
        if (st != FC_END) {
            fprintf(stderr, "featc: %s: %s\n", files[k], in.err.message);
            (*failed)++;
        }
        fc_input_close(&in);
    }
}

static void gather(void *ctx, size_t file, uint64_t record, const fc_fallback *fb)
{
    (void)file;
    (void)record;
    st_gather((st_stats *)ctx, fb);
}

/* The statistics of file path into *out (*bytes holds them): 0, or -1
 * after an error message. */
static int read_stats_file(const char *path, dr_stats *out, uint8_t **bytes)
{
    size_t n = 0;
    char err[256];
    /* statistics run to tens of MB for wide data (featc stats writes
     * them; it has no bound of its own): a bound for what fits in memory */
    *bytes = (uint8_t *)cli_read_file_max(path, &n, (size_t)1 << 30, "statistics");
    if (*bytes == NULL)
        return -1;
    if (dr_read(out, *bytes, n, err, sizeof err) != 0) {
        fprintf(stderr, "featc: %s: not a DatasetFeatureStatisticsList: %s\n", path, err);
        return -1;
    }
    return 0;
}

/* s as TFDV's statistics, read back: 0, or -1 after an error message. */
static int described(st_stats *s, dr_stats *out, uint8_t **bytes)
{
    st_report r;
    size_t n = 0;
    char err[256];
    memset(&r, 0, sizeof r);
    st_sort(s);
    if (s->oom || st_encode_tfdv(s, &r, bytes, &n) != 0) {
        fprintf(stderr, "featc: out of memory\n");
        return -1;
    }
    if (dr_read(out, *bytes, n, err, sizeof err) != 0) { /* (featc's own bytes) */
        fprintf(stderr, "featc: the statistics featc wrote do not read back: %s\n", err);
        return -1;
    }
    return 0;
}

static const char *const measure_type[DR_MEASURES] = {"L_INFTY", "NORMALIZED_ABSOLUTE_DIFFERENCE",
                                                      "JENSEN_SHANNON_DIVERGENCE"};
static const char *const anomaly_type[DR_MEASURES] = {
    "COMPARATOR_L_INFTY_HIGH", "COMPARATOR_NORMALIZED_ABSOLUTE_DIFFERENCE_HIGH",
    "COMPARATOR_JENSEN_SHANNON_DIVERGENCE_HIGH"};
static const char *const measure_text[DR_MEASURES] = {
    "Linfty distance", "normalized absolute difference",
    "approximate Jensen-Shannon divergence"};

static void print_key(const featc_tfmd_feature *c)
{
    printf("%s%.*s", c->list ? "##SEQUENCE##/" : "", (int)c->name_len, c->name);
}

/* The threshold of measure m for feature c: the schema's comparator, or
 * the flag's default where the schema gives c no comparator at all. */
static int threshold(const featc_tfmd_feature *c, const vd_options *o, int m, double *t)
{
    int w = o->skew;
    int any = c->has_linf[w] || c->has_nad[w] || c->has_jsd[w];
    if (m == DR_LINF && c->has_linf[w])
        *t = c->linf[w];
    else if (m == DR_NAD && c->has_nad[w])
        *t = c->nad[w];
    else if (m == DR_JSD && c->has_jsd[w])
        *t = c->jsd[w];
    else if (!any && m == DR_LINF && o->has_linf && c->type == 'b')
        *t = o->linf;
    else if (!any && m == DR_JSD && o->has_jsd && (c->type == 'i' || c->type == 'f'))
        *t = o->jsd;
    else
        return 0;
    return 1;
}

/* Measures c's threshold comparisons; -1 when one cannot be made. */
static int compare_feature(const featc_tfmd_feature *c, const dr_stats *a, const dr_stats *b,
                           const vd_options *o, int *anomalies)
{
    const char *treat = o->skew ? "training" : "current", *control = o->skew ? "serving" : "previous";
    const dr_feature *fa = dr_find(a, (const uint8_t *)c->name, c->name_len, c->list);
    const dr_feature *fb = dr_find(b, (const uint8_t *)c->name, c->name_len, c->list);
    int m, r, rc = 0;
    for (m = 0; m < DR_MEASURES; m++) {
        double t, v;
        const dr_label *label;
        const char *why = NULL;
        if (!threshold(c, o, m, &t))
            continue;
        if (fa == NULL || fb == NULL) {
            print_key(c);
            printf(": %s: not compared: the %s data has no such feature\n",
                   measure_type[m], fa == NULL ? treat : control);
            continue;
        }
        r = dr_measure(m, fa, fb, m == DR_JSD && c->jsd_quantiles[o->skew], &v, &label, &why);
        if (r < 0) {
            fprintf(stderr, "featc: %s%.*s: %s cannot be measured: %s\n",
                    c->list ? "##SEQUENCE##/" : "", (int)c->name_len, c->name, measure_type[m],
                    why);
            rc = -1;
            continue;
        }
        if (r == DR_EMPTY_BOTH) {
            print_key(c);
            printf(": %s %s: not measured: neither data has values of it\n",
                   o->skew ? "skew" : "drift", measure_type[m]);
            continue;
        }
        if (r != 0) { /* values on one side only: the distribution is gone, or new */
            print_key(c);
            printf(": %s: the %s data has values of it, the %s data none: the %s cannot be "
                   "measured\n", "NOT_MEASURED", r == DR_EMPTY_A ? control : treat,
                   r == DR_EMPTY_A ? treat : control, measure_text[m]);
            (*anomalies)++;
            continue;
        }
        print_key(c);
        printf(": %s %s: %.9g, threshold %.9g\n", o->skew ? "skew" : "drift", measure_type[m], v, t);
        if (v > t) {
            print_key(c);
            printf(": %s: The %s between %s and %s is %.6g (up to six significant digits), "
                   "above the threshold %.6g.", anomaly_type[m], measure_text[m], treat, control,
                   v, t);
            if (m != DR_JSD) {
                char shown[256];
                st_show_bytes(shown, sizeof shown, label != NULL ? label->p : NULL,
                              label != NULL ? label->n : 0, label != NULL ? label->n : 0);
                printf(" The feature value with maximum difference is: %s", shown);
            }
            putchar('\n');
            (*anomalies)++;
        }
    }
    return rc;
}

int vd_compare(const featc_tfmd_schema *schema, st_stats *cur, const vd_options *o,
               const fc_input_options *read, cli_decoder *d, int *anomalies)
{
    st_stats prev;
    dr_stats a, b;
    uint8_t *abytes = NULL, *bbytes = NULL;
    size_t i;
    int failed = 0, rc = EXIT_OK;
    uint64_t other = 0;
    memset(&prev, 0, sizeof prev);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    prev.max_keys = cur->max_keys;
    if (o->cur_stats != NULL ? read_stats_file(o->cur_stats, &a, &abytes) != 0
                             : described(cur, &a, &abytes) != 0) {
        rc = EXIT_DATA_ERR;
        goto out;
    }
    if (o->stats_path != NULL) {
        if (read_stats_file(o->stats_path, &b, &bbytes) != 0) {
            rc = EXIT_DATA_ERR;
            goto out;
        }
    } else {
        vd_read(o->against, o->nagainst, read, d, gather, &prev, &failed, &other);
        if (failed > 0 || described(&prev, &b, &bbytes) != 0) {
            rc = EXIT_DATA_ERR;
            goto out;
        }
    }
    for (i = 0; i < schema->nfeatures; i++)
        if (compare_feature(&schema->features[i], &a, &b, o, anomalies) != 0)
            rc = EXIT_DATA_ERR;
    if (rc == EXIT_OK && other > 0)
        rc = EXIT_RECORD_ERR; /* as validate's own records */
out:
    dr_free(&a);
    dr_free(&b);
    free(abytes);
    free(bbytes);
    st_free(&prev);
    return rc;
}
