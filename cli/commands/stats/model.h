/* featc stats: what the records of TFRecord files hold, feature by feature.
 * The model (model.c: gathered, merged, sorted), over sketch.h's sketches,
 * under the reports (reports.h), under the command (stats.c: options,
 * reading, the pool).  Hosted code: it allocates, bounded per key by
 * sketch.h's constants and in keys by --max-features. */
#ifndef FEATC_STATS_MODEL_H
#define FEATC_STATS_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include <featc/fc_fallback.h>
#include <featc/fc_record.h>

#include "base/kinds.h"
#include "base/spec.h"
#include "sketch.h"

enum { ST_BYTES, ST_FLOAT, ST_INT64, ST_KINDS };
/* "bytes", "float", "int64" */
extern const char *const st_kind_names[ST_KINDS];

/* The values of one list type under one key. */
typedef struct st_num {
    uint64_t values, zeros, nan, inf, ninf;
    int64_t imin, imax;  /* int64: exact extremes */
    sk_moments m;        /* the finite values */
    sk_quant q;
    sk_distinct d;       /* int64 only */
} st_num;

typedef struct st_bytes {
    uint64_t values, empty, utf8;
    sk_moments len;
    sk_quant lenq;
    sk_distinct d;
    sk_top top;
} st_bytes;

/* A feature (Example feature or SequenceExample context feature), or a
 * feature list. */
typedef struct st_key {
    uint8_t *key;
    size_t key_len;
    uint64_t present;        /* records holding it (features: with a list kind) */
    uint64_t empty;          /* features: records with Feature{}; lists: frames with one */
    uint64_t kind[ST_KINDS]; /* records (lists: frames) per list type */
    sk_moments per;          /* values per record (lists: per frame) */
    sk_quant perq;
    sk_moments frames;       /* lists: frames per record */
    sk_quant framesq;
    st_num *f, *i;
    st_bytes *b;
} st_key;

typedef struct st_table {
    st_key *v;
    size_t n, cap;
    uint32_t *slot; /* 1 + index into v, open addressing; nslot a power of 2 */
    size_t nslot;
} st_table;

/* A record that is not an Example or SequenceExample. */
typedef struct st_bad {
    size_t file;
    uint64_t record, offset;
    char message[512]; /* fc_error.message's size */
} st_bad;
#define ST_BAD_KEPT 5

typedef struct st_file {
    const char *path;
    uint64_t records, bytes;
    const char *compression;
    int failed;
    int io_error;      /* failed reading the file (cannot open, read error), not its bytes */
    char error[512];
} st_file;

typedef struct st_stats {
    st_table features, lists;
    uint64_t records, examples, sequences, other;
    uint64_t dropped;       /* key occurrences past max_keys */
    size_t max_keys;
    st_bad bad[ST_BAD_KEPT];
    size_t nbad;
    /* --spec: every record read through the spec's message */
    uint64_t spec_parsed, spec_failed;
    cli_kinds spec_errors;
    int oom;
} st_stats;

/* The quantiles reported, and the histogram's bins. */
#define ST_NQ 9
extern const double st_quantiles[ST_NQ];
extern const char *const st_quantile_names[ST_NQ];
#define ST_BINS 20

/* The histogram of a distribution: its bins' counts and edges [low[j],
 * high[j]] (ST_BINS at most); the number of bins.  Integer data spanning
 * at most ST_BINS values gets a bin per value (low = high = the value);
 * otherwise ST_BINS equal bins over [min, max] (one when min == max). */
size_t st_histogram(const sk_moments *m, const sk_quant *q, uint64_t *bins, double *low,
                    double *high);

/* model.c: gathering and merging. */
/* Adds the record the fallback decoder holds in fb. */
void st_gather(st_stats *s, const fc_fallback *fb);
/* Counts a record that is not an Example or SequenceExample (the first
 * ST_BAD_KEPT kept with their error). */
void st_note_bad(st_stats *s, size_t file, const fc_record *rec, const fc_error *err);
/* Adds o, read after s (a later split or file), into s; s->oom on failure. */
void st_merge(st_stats *s, const st_stats *o);
/* Keys in byte order, top values by count, spec errors by count: the order
 * every report prints. */
void st_sort(st_stats *s);
void st_free(st_stats *s);

/* Bytes for display (HTML, the table): UTF-8 text as is when valid, else
 * with \xNN escapes; controls escaped; at most max bytes of out (with a
 * final NUL), "..." when cut. */
void st_show_bytes(char *out, size_t max, const uint8_t *p, size_t n, size_t full_len);
/* A number for display: integers as such, else %.4g-ish. */
void st_show_number(char *out, size_t max, double v);
/* The spec's name of its message. */
const char *st_spec_message(const cli_spec *t);

#endif /* FEATC_STATS_MODEL_H */
