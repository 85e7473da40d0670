/* featc validate --against (validate_drift.c): drift and skew between the
 * records validated and other data, for validate.c (the records against a
 * schema). */
#ifndef FEATC_VALIDATE_DRIFT_H
#define FEATC_VALIDATE_DRIFT_H

#include <featc/featc.h>
#include <featc/fc_input.h>

#include "base/read.h"
#include "stats/reports.h"

typedef struct vd_options {
    char **against;         /* --against record files (nagainst), or */
    int nagainst;
    const char *stats_path; /* --against-stats: a DatasetFeatureStatisticsList */
    const char *cur_stats;  /* --stats: the data's own statistics, for FILEs */
    int skew;               /* --skew: skew_comparator, training vs serving */
    int has_linf, has_jsd;  /* --linf, --jsd: for features without a comparator */
    double linf, jsd;
} vd_options;

/* Whether o asks for a comparison. */
int vd_wanted(const vd_options *o);

/* Reads the records of files, calling each(ctx, file, record, fb) on every
 * Example and SequenceExample; the files that could not be read are
 * reported on stderr and counted in *failed, the records that are not
 * Examples (the first five reported) in *other. */
typedef void (*vd_each)(void *ctx, size_t file, uint64_t record, const fc_fallback *fb);
void vd_read(char **files, int nfiles, const fc_input_options *read, cli_decoder *d,
             vd_each each, void *ctx, int *failed, uint64_t *other);

/* Compares cur (the records validated; or o->cur_stats) with o's other data for each feature
 * of the schema that has a threshold: prints each measurement and each
 * anomaly (counted in *anomalies).  EXIT_OK, or EXIT_DATA_ERR when the
 * other statistics cannot be read or a measure asked for cannot be made. */
int vd_compare(const featc_tfmd_schema *schema, st_stats *cur, const vd_options *o,
               const fc_input_options *read, cli_decoder *d, int *anomalies);

#endif /* FEATC_VALIDATE_DRIFT_H */
