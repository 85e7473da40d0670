/* featc stats' reports of the model (model.h): the table (text.c), --json
 * (json.c), --html (html.c), --compare's page (compare.c) and TFDV's
 * statistics (tfdv.c). */
#ifndef FEATC_STATS_REPORTS_H
#define FEATC_STATS_REPORTS_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* What a report shows beside the statistics: the files read, and the spec
 * of --spec when one was given. */
typedef struct st_report {
    const st_file *files;
    size_t nfiles;
    const char *title;         /* the HTML report's */
    const char *spec_path;     /* --spec, or NULL */
    const cli_spec *spec;    /* NULL without --spec */
    unsigned top;              /* top values shown per bytes feature */
    /* --compare: the other dataset (the comparison report's second) */
    const st_stats *other;
    const struct st_report *other_report;
} st_report;

/* The reports, on f.  The table sets *oom when it runs out of memory. */
void st_print_table(FILE *f, const st_stats *s, const st_report *r, int *oom);
void st_print_json(FILE *f, const st_stats *s, const st_report *r);
/* The self-contained HTML report; 0, or -1 on a write error. */
int st_write_html(FILE *f, const st_stats *s, const st_report *r);
/* html.c's pieces, which the comparison report (compare.c) shares: text
 * and bytes escaped for HTML, numbers in the page's one style (the
 * overview's shorter), a share as a percentage, the presence bar, a key's
 * list types, and the style sheet. */
void st_html_text(FILE *f, const char *s);
void st_html_bytes(FILE *f, const uint8_t *p, size_t n, size_t full);
void st_html_number(FILE *f, double v);
void st_html_short(FILE *f, double v);
void st_html_percent(FILE *f, uint64_t part, uint64_t whole);
void st_svg_presence(FILE *f, uint64_t present, uint64_t records);
void st_types_text(FILE *f, const st_key *k);
/* The distribution that stands for key k: its int64s, else its floats,
 * else its bytes values' lengths; NULLs when it has no values. */
void st_main_dist(const st_key *k, const sk_moments **m, const sk_quant **q);
extern const char *const st_html_style;

/* The comparison report of --compare (compare.c): s beside r->other, each
 * feature's histograms overlaid, its top values side by side, its drift
 * measure; 0, or -1 on a write error or when memory ran out. */
int st_write_compare_html(FILE *f, const st_stats *s, const st_report *r);

/* TFDV's binary DatasetFeatureStatisticsList (tfdv.c); 0, or -1 when
 * memory ran out or the write failed. */
int st_write_tfdv(FILE *f, const st_stats *s, const st_report *r);
/* The same bytes in memory: 0 with *out (malloc'd) and *len, or -1 when
 * memory ran out. */
int st_encode_tfdv(const st_stats *s, const st_report *r, uint8_t **out, size_t *len);

#endif /* FEATC_STATS_REPORTS_H */
