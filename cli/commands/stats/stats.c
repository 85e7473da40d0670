/* featc stats: per-feature statistics of TFRecord files, in the manner of
 * TFDV's: presence, values per record, numeric moments, quantiles and
 * histograms, bytes lengths, distinct counts and top values, for Example
 * features, SequenceExample context features and feature lists (frames per
 * record, values per frame).  One pass, memory bounded whatever the size of
 * the input: each key keeps the summaries of sketch.h; past --max-features
 * keys, new keys are counted and left out.  Records are decoded with the
 * fallback decoder (protobuf-c), as featc cat and infer read them.
 *
 * Output: an aligned table (numeric features, bytes features, feature
 * lists); --json, one object (README.md, "featc stats"); --html=FILE, a
 * self-contained report (stats_html.c).
 *
 * Shards merge: the summaries of every file are merged into one, and
 * `-j N` reads in the thread pool's splits, each gathered apart and merged
 * in file order (a file that fails contributes its records before the
 * failure, as a sequential read would).
 *
 * Exit codes: 0; 1 some record is not an Example or SequenceExample
 * (counted, the first ones reported); 2 a file is unreadable or damaged
 * (the records before the damage are counted, the output says the stats
 * are incomplete); 64 usage error. */
#define _DEFAULT_SOURCE 1 /* madvise: glibc's posix_madvise ignores DONTNEED */
#include "tools.h"
#include "progress.h"
#include "stats.h"

#include <glob.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <featc/fc_driver.h>

const double st_quantiles[ST_NQ] = {0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
const char *const st_quantile_names[ST_NQ] = {"p01", "p05", "p10", "p25", "p50",
                                              "p75", "p90", "p95", "p99"};

static const char *const stats_usage =
    "usage: featc stats [options] [FILE...]\n"
    "\n"
    "Reads TFRecord files of tf.train.Example or SequenceExample records (any\n"
    "compression) in one pass and prints, per feature: the types seen, the\n"
    "records where it is present or missing, values per record, numeric\n"
    "min/max/mean/std, zeros, NaN and infinities, quantiles and a histogram,\n"
    "bytes lengths, distinct values and the most frequent values; for\n"
    "SequenceExamples the context features, and for each feature list the\n"
    "frames per record and values per frame.  Several files (or a quoted\n"
    "pattern such as 'data-*-of-*') are summarised together.  Memory is\n"
    "bounded whatever the input's size: quantiles are within 1% of the\n"
    "value's magnitude, distinct counts are exact up to 256 values and then\n"
    "estimated (1.6% standard error), top values carry an error bound.\n"
    "\n"
    "options:\n"
    "  --json                  one JSON object (README.md, \"featc stats\")\n"
    "  --html=FILE             also write a self-contained HTML report to FILE\n"
    "  --top=N                 top values shown per bytes feature (default 10,\n"
    "                          at most 64)\n"
    "  --max-features=N        keys summarised (default 10000); occurrences of\n"
    "                          further keys are counted and left out\n"
    "  --spec=SPEC             also read every record through the spec's message\n"
    "                          (as featc check --data): how many parse, and the\n"
    "                          errors by text with the first record of each\n"
    "  --message=NAME          the spec's message (default: its first)\n"
    "  --type=auto|example|sequence   how to read payloads (default auto)\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto)\n"
    "  --crc=verify|skip|none  (default verify)\n"
    "  --max-record-size=N     (default 1G)\n"
    "  --max-memory=N          most memory for decoding one record (default 1G)\n"
    TOOLS_JOBS_HELP
    PROGRESS_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 every record summarised; 1 some record is not an Example\n"
    "or SequenceExample (counted and reported), or fails --spec; 2 a file is\n"
    "unreadable or\n"
    "damaged (the records before the damage are summarised); 64 usage error.\n";

enum { OPT_HTML = TOOLS_OPT_PROGRESS + 1, OPT_TOP, OPT_MAX_FEATURES, OPT_SPEC, OPT_MESSAGE };

static const struct option stats_long[] = {
    {"json", no_argument, NULL, TOOLS_OPT_JSON},
    {"html", required_argument, NULL, OPT_HTML},
    {"top", required_argument, NULL, OPT_TOP},
    {"max-features", required_argument, NULL, OPT_MAX_FEATURES},
    {"spec", required_argument, NULL, OPT_SPEC},
    {"message", required_argument, NULL, OPT_MESSAGE},
    {"crc", required_argument, NULL, TOOLS_OPT_CRC},
    TOOLS_JOBS_OPTION, TOOLS_TYPE_OPTION, TOOLS_MEMORY_OPTION, TOOLS_INPUT_OPTIONS,
    PROGRESS_OPTIONS, CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
static const cli_command stats_cmd = {"stats", stats_usage, "c:hqj:", stats_long};

typedef struct stats_opts {
    fc_input_options read;
    fc_payload_kind type;
    size_t max_memory;
    unsigned jobs;
    int json;
    const char *html;
    unsigned top;
    size_t max_keys;
    const char *spec_path, *message; /* --spec, --message */
    tools_spec spec;                 /* opened once the options are read */
    int progress;
    int nfiles;
    char **files;
    char **list;    /* the operands with patterns expanded */
    char **copies;  /* the names glob made (freed at the end) */
    int ncopies;
} stats_opts;

/* ------------------------------------------------------------- the table */

static uint64_t key_hash(const uint8_t *k, size_t n)
{
    return sk_hash(k, n);
}

static int table_rehash(st_table *t, size_t nslot)
{
    uint32_t *slot = (uint32_t *)calloc(nslot, sizeof *slot);
    size_t i;
    if (slot == NULL)
        return -1;
    for (i = 0; i < t->n; i++) {
        size_t h = (size_t)key_hash(t->v[i].key, t->v[i].key_len) & (nslot - 1);
        while (slot[h] != 0)
            h = (h + 1) & (nslot - 1);
        slot[h] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

/* The key's entry, added when new (NULL: past max keys, or out of memory:
 * *oom set). */
static st_key *table_get(st_table *t, const uint8_t *key, size_t len, size_t max_keys, int *oom)
{
    size_t h;
    st_key *k;
    if (t->nslot == 0 && table_rehash(t, 64) != 0) {
        *oom = 1;
        return NULL;
    }
    h = (size_t)key_hash(key, len) & (t->nslot - 1);
    while (t->slot[h] != 0) {
        k = &t->v[t->slot[h] - 1];
        if (k->key_len == len && (len == 0 || memcmp(k->key, key, len) == 0))
            return k;
        h = (h + 1) & (t->nslot - 1);
    }
    if (t->n >= max_keys)
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap != 0 ? 2 * t->cap : 16;
        st_key *v = (st_key *)realloc(t->v, cap * sizeof *v);
        if (v == NULL) {
            *oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    k = &t->v[t->n];
    memset(k, 0, sizeof *k);
    k->key = (uint8_t *)malloc(len != 0 ? len : 1);
    if (k->key == NULL) {
        *oom = 1;
        return NULL;
    }
    memcpy(k->key, key, len);
    k->key_len = len;
    t->slot[h] = (uint32_t)(++t->n);
    if (2 * t->n > t->nslot && table_rehash(t, 2 * t->nslot) != 0) {
        *oom = 1;
        return NULL;
    }
    return k;
}

static void num_free(st_num *x)
{
    if (x == NULL)
        return;
    sk_quant_free(&x->q);
    sk_distinct_free(&x->d);
    free(x);
}

static void bytes_free(st_bytes *x)
{
    if (x == NULL)
        return;
    sk_quant_free(&x->lenq);
    sk_distinct_free(&x->d);
    sk_top_free(&x->top);
    free(x);
}

static void table_free(st_table *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        st_key *k = &t->v[i];
        free(k->key);
        sk_quant_free(&k->perq);
        sk_quant_free(&k->framesq);
        num_free(k->f);
        num_free(k->i);
        bytes_free(k->b);
    }
    free(t->v);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static void stats_free(st_stats *s)
{
    table_free(&s->features);
    table_free(&s->lists);
}

/* ------------------------------------------------------------- gathering */

static st_num *num_of(st_num **p, int *oom)
{
    if (*p == NULL && (*p = (st_num *)calloc(1, sizeof **p)) == NULL)
        *oom = 1;
    return *p;
}

static void add_float(st_num *x, float v, int *oom)
{
    double d = (double)v;
    x->values++;
    if (d != d) {
        x->nan++;
        return;
    }
    if (isinf(d)) {
        if (d > 0)
            x->inf++;
        else
            x->ninf++;
        return;
    }
    x->zeros += d == 0;
    sk_moments_add(&x->m, d);
    if (sk_quant_add(&x->q, d) != 0)
        *oom = 1;
}

static void add_int64(st_num *x, int64_t v, int *oom)
{
    double d = (double)v;
    if (x->values == 0 || v < x->imin)
        x->imin = v;
    if (x->values == 0 || v > x->imax)
        x->imax = v;
    x->values++;
    x->zeros += v == 0;
    sk_moments_add(&x->m, d);
    if (sk_quant_add(&x->q, d) != 0 || sk_distinct_add(&x->d, sk_hash64((uint64_t)v)) != 0)
        *oom = 1;
}

static void add_bytes(st_bytes *x, const uint8_t *p, size_t n, int *oom)
{
    uint64_t h = sk_hash(p, n);
    x->values++;
    x->empty += n == 0;
    x->utf8 += fc_utf8_valid(p, n) != 0;
    sk_moments_add(&x->len, (double)n);
    if (sk_quant_add(&x->lenq, (double)n) != 0 || sk_distinct_add(&x->d, h) != 0 ||
        sk_top_add(&x->top, p, n, h) != 0)
        *oom = 1;
}

/* One Feature's values into k; its list type, or -1 for Feature{}. */
static int add_feature(st_key *k, const FcPb__Feature *f, int *oom)
{
    size_t j, n = 0;
    int kind = -1;
    switch (f->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST: {
        const FcPb__BytesList *l = f->bytes_list;
        kind = ST_BYTES;
        n = l->n_value;
        if (k->b == NULL && (k->b = (st_bytes *)calloc(1, sizeof *k->b)) == NULL) {
            *oom = 1;
            return kind;
        }
        for (j = 0; j < n; j++)
            add_bytes(k->b, l->value[j].data, l->value[j].len, oom);
        break;
    }
    case FC_PB__FEATURE__KIND_FLOAT_LIST:
        kind = ST_FLOAT;
        n = f->float_list->n_value;
        if (num_of(&k->f, oom) != NULL)
            for (j = 0; j < n; j++)
                add_float(k->f, f->float_list->value[j], oom);
        break;
    case FC_PB__FEATURE__KIND_INT64_LIST:
        kind = ST_INT64;
        n = f->int64_list->n_value;
        if (num_of(&k->i, oom) != NULL)
            for (j = 0; j < n; j++)
                add_int64(k->i, f->int64_list->value[j], oom);
        break;
    default:
        return -1;
    }
    k->kind[kind]++;
    sk_moments_add(&k->per, (double)n);
    if (sk_quant_add(&k->perq, (double)n) != 0)
        *oom = 1;
    return kind;
}

static void gather(st_stats *s, const fc_fallback *fb)
{
    size_t i, f;
    s->records++;
    if (fb->kind == FC_PAYLOAD_SEQUENCE_EXAMPLE)
        s->sequences++;
    else
        s->examples++;
    for (i = 0; i < fb->n_features; i++) {
        const fc_fb_feature *e = &fb->features[i];
        st_key *k = table_get(&s->features, e->key, e->key_len, s->max_keys, &s->oom);
        if (k == NULL) {
            s->dropped++;
            continue;
        }
        if (add_feature(k, e->value, &s->oom) < 0)
            k->empty++;
        else
            k->present++;
    }
    for (i = 0; i < fb->n_feature_lists; i++) {
        const fc_fb_feature_list *e = &fb->feature_lists[i];
        const FcPb__FeatureList *fl = e->value;
        st_key *k = table_get(&s->lists, e->key, e->key_len, s->max_keys, &s->oom);
        if (k == NULL) {
            s->dropped++;
            continue;
        }
        k->present++;
        sk_moments_add(&k->frames, (double)fl->n_feature);
        if (sk_quant_add(&k->framesq, (double)fl->n_feature) != 0)
            s->oom = 1;
        for (f = 0; f < fl->n_feature; f++)
            if (add_feature(k, fl->feature[f], &s->oom) < 0)
                k->empty++;
    }
}

static void note_bad(st_stats *s, size_t file, const fc_record *rec, const fc_error *err)
{
    s->other++;
    if (s->nbad < ST_BAD_KEPT) {
        st_bad *b = &s->bad[s->nbad++];
        b->file = file;
        b->record = rec->index;
        b->offset = rec->offset;
        snprintf(b->message, sizeof b->message, "%s", err->message);
    }
}

/* ------------------------------------------------------------- merging */

static int merge_num(st_num **into, const st_num *o)
{
    st_num *x;
    int oom = 0;
    if (o == NULL)
        return 0;
    if ((x = num_of(into, &oom)) == NULL)
        return -1;
    if (o->values > 0 && (x->values == 0 || o->imin < x->imin))
        x->imin = o->imin;
    if (o->values > 0 && (x->values == 0 || o->imax > x->imax))
        x->imax = o->imax;
    x->values += o->values;
    x->zeros += o->zeros;
    x->nan += o->nan;
    x->inf += o->inf;
    x->ninf += o->ninf;
    sk_moments_merge(&x->m, &o->m);
    return sk_quant_merge(&x->q, &o->q) | sk_distinct_merge(&x->d, &o->d);
}

static int merge_bytes(st_bytes **into, const st_bytes *o)
{
    st_bytes *x;
    if (o == NULL)
        return 0;
    if (*into == NULL && (*into = (st_bytes *)calloc(1, sizeof **into)) == NULL)
        return -1;
    x = *into;
    x->values += o->values;
    x->empty += o->empty;
    x->utf8 += o->utf8;
    sk_moments_merge(&x->len, &o->len);
    return sk_quant_merge(&x->lenq, &o->lenq) | sk_distinct_merge(&x->d, &o->d) |
           sk_top_merge(&x->top, &o->top);
}

static void merge_table(st_stats *s, st_table *t, const st_table *o)
{
    size_t i, j;
    for (i = 0; i < o->n; i++) {
        const st_key *ok = &o->v[i];
        st_key *k = table_get(t, ok->key, ok->key_len, s->max_keys, &s->oom);
        if (k == NULL) {
            /* left out: its occurrences count as dropped */
            s->dropped += ok->present + (t == &s->features ? ok->empty : 0);
            continue;
        }
        k->present += ok->present;
        k->empty += ok->empty;
        for (j = 0; j < ST_KINDS; j++)
            k->kind[j] += ok->kind[j];
        sk_moments_merge(&k->per, &ok->per);
        sk_moments_merge(&k->frames, &ok->frames);
        if (sk_quant_merge(&k->perq, &ok->perq) != 0 ||
            sk_quant_merge(&k->framesq, &ok->framesq) != 0 || merge_num(&k->f, ok->f) != 0 ||
            merge_num(&k->i, ok->i) != 0 || merge_bytes(&k->b, ok->b) != 0)
            s->oom = 1;
    }
}

static void merge_stats(st_stats *s, const st_stats *o)
{
    size_t i;
    s->records += o->records;
    s->examples += o->examples;
    s->sequences += o->sequences;
    s->other += o->other;
    s->dropped += o->dropped;
    s->oom |= o->oom;
    for (i = 0; i < o->nbad && s->nbad < ST_BAD_KEPT; i++)
        s->bad[s->nbad++] = o->bad[i];
    s->spec_parsed += o->spec_parsed;
    s->spec_failed += o->spec_failed;
    tools_kinds_merge(&s->spec_errors, &o->spec_errors);
    merge_table(s, &s->features, &o->features);
    merge_table(s, &s->lists, &o->lists);
}

/* ------------------------------------------------------------- display */

void st_show_number(char *out, size_t max, double v)
{
    double a = fabs(v);
    if (v != v)
        snprintf(out, max, "nan");
    else if ((a == floor(a) && a < 1e15) || (a >= 1e4 && a < 1e9))
        snprintf(out, max, "%.0f", v);
    else if (a != 0 && (a < 1e-3 || a >= 1e9))
        snprintf(out, max, "%.3e", v);
    else
        snprintf(out, max, "%.4g", v);
}

void st_show_bytes(char *out, size_t max, const uint8_t *p, size_t n, size_t full_len)
{
    size_t i = 0, o = 0;
    int text = fc_utf8_valid(p, n) != 0;
    if (max < 8) {
        if (max > 0)
            out[0] = '\0';
        return;
    }
    /* a prefix cut inside a UTF-8 character: drop the partial character */
    if (!text && n < full_len) {
        size_t k = n;
        while (k > 0 && k + 4 > n && !fc_utf8_valid(p, k))
            k--;
        if (k + 4 > n && fc_utf8_valid(p, k)) {
            n = k;
            text = 1;
        }
    }
    while (i < n) {
        uint8_t c = p[i];
        char esc[8];
        size_t len = 0, step = 1;
        if (c == '\\' || c == '"') {
            esc[0] = '\\';
            esc[1] = (char)c;
            len = 2;
        } else if (c >= 0x20 && c < 0x7f) {
            esc[0] = (char)c;
            len = 1;
        } else if (text && c >= 0x80) {
            step = fc_utf8_seq(p + i, n - i);
            if (step < 1)
                step = 1;
            len = step;
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)c);
            len = 4;
        }
        if (o + len + 4 > max) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (text && c >= 0x80)
            memcpy(out + o, p + i, len);
        else
            memcpy(out + o, esc, len);
        o += len;
        i += step;
    }
    if (i >= n && n < full_len && o + 4 <= max) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* A text table: rows of cells, printed with aligned columns (the first left
 * aligned, the others right aligned unless marked with a leading '<'). */
typedef struct text_table {
    char **cell;
    size_t ncol, nrow, cap;
} text_table;

static void tt_row(text_table *t, int *oom, ...)
{
    va_list ap;
    size_t c;
    if (t->nrow == t->cap) {
        size_t cap = t->cap != 0 ? 2 * t->cap : 16;
        char **p = (char **)realloc(t->cell, cap * t->ncol * sizeof *p);
        if (p == NULL) {
            *oom = 1;
            return;
        }
        t->cell = p;
        t->cap = cap;
    }
    va_start(ap, oom);
    for (c = 0; c < t->ncol; c++) {
        const char *s = va_arg(ap, const char *);
        char *d = (char *)malloc(strlen(s) + 1);
        if (d == NULL)
            *oom = 1;
        else
            strcpy(d, s);
        t->cell[t->nrow * t->ncol + c] = d;
    }
    va_end(ap);
    t->nrow++;
}

/* Display width of UTF-8 text: code points (wide characters count one). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s != '\0'; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

static void tt_print(FILE *f, text_table *t, const char *align)
{
    size_t r, c, *w = (size_t *)calloc(t->ncol, sizeof *w);
    if (w == NULL)
        return;
    for (r = 0; r < t->nrow; r++)
        for (c = 0; c < t->ncol; c++) {
            const char *s = t->cell[r * t->ncol + c];
            if (s != NULL && text_width(s) > w[c])
                w[c] = text_width(s);
        }
    for (r = 0; r < t->nrow; r++) {
        for (c = 0; c < t->ncol; c++) {
            const char *s = t->cell[r * t->ncol + c];
            size_t pad;
            if (s == NULL)
                s = "?";
            pad = w[c] - text_width(s);
            if (c + 1 == t->ncol && align[c] == 'l') {
                fprintf(f, "%s", s); /* no trailing blanks */
                break;
            }
            if (align[c] == 'l')
                fprintf(f, "%s%*s", s, (int)pad, "");
            else
                fprintf(f, "%*s%s", (int)pad, "", s);
            if (c + 1 < t->ncol)
                fputs("  ", f);
        }
        fputc('\n', f);
    }
    free(w);
    for (r = 0; r < t->nrow * t->ncol; r++)
        free(t->cell[r]);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

static const char *const kind_names[ST_KINDS] = {"bytes", "float", "int64"};

static void show_types(char *out, size_t max, const st_key *k)
{
    size_t j, o = 0;
    out[0] = '\0';
    for (j = 0; j < ST_KINDS; j++)
        if (k->kind[j] > 0 && o + 8 < max)
            o += (size_t)snprintf(out + o, max - o, "%s%s", o > 0 ? "+" : "", kind_names[j]);
    if (o == 0)
        snprintf(out, max, "-");
}

static void show_percent(char *out, size_t max, uint64_t part, uint64_t whole)
{
    double p = whole == 0 ? 0 : 100.0 * (double)part / (double)whole;
    if (part == whole)
        snprintf(out, max, "100%%");
    else if (part == 0)
        snprintf(out, max, "0%%");
    else if (p >= 99.95)
        snprintf(out, max, ">99.9%%");
    else if (p < 0.05)
        snprintf(out, max, "<0.1%%");
    else
        snprintf(out, max, "%.1f%%", p);
}

/* "n", or "min-max (mean)" */
static void show_range(char *out, size_t max, const sk_moments *m)
{
    char a[32], b[32], c[32];
    if (m->n == 0) {
        snprintf(out, max, "-");
        return;
    }
    st_show_number(a, sizeof a, m->min);
    st_show_number(b, sizeof b, m->max);
    st_show_number(c, sizeof c, m->mean);
    if (m->min == m->max)
        snprintf(out, max, "%s", a);
    else
        snprintf(out, max, "%s-%s (%s)", a, b, c);
}

static void show_size(char *out, size_t max, double bytes)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(out, max, "%.0f B", bytes);
    else
        snprintf(out, max, "%.1f %s", bytes, unit[u]);
}

static int key_cmp(const void *a, const void *b)
{
    const st_key *x = (const st_key *)a, *y = (const st_key *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = n == 0 ? 0 : memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

/* The spec's name of its message. */
static const char *spec_message(const tools_spec *t)
{
    return t->md != NULL ? t->md->name : t->sd->name;
}

static void numeric_rows(text_table *t, const st_key *k, const st_num *x, const char *kind,
                         uint64_t records, const char *per_what, int *oom)
{
    char name[160], pres[32], miss[32], per[112], mean[32], sd[32], zeros[32], mn[32], med[32],
        mx[32], odd[64];
    st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
    show_percent(pres, sizeof pres, k->present, records);
    snprintf(miss, sizeof miss, "%llu", (unsigned long long)(records - k->present));
    show_range(per, sizeof per, &k->per);
    (void)per_what;
    if (x->m.n > 0) {
        st_show_number(mean, sizeof mean, x->m.mean);
        st_show_number(sd, sizeof sd, sk_moments_std(&x->m));
        st_show_number(med, sizeof med, sk_quant_value(&x->q, 0.5));
        if (x == k->i) {
            snprintf(mn, sizeof mn, "%lld", (long long)x->imin);
            snprintf(mx, sizeof mx, "%lld", (long long)x->imax);
        } else {
            st_show_number(mn, sizeof mn, x->m.min);
            st_show_number(mx, sizeof mx, x->m.max);
        }
    } else {
        strcpy(mean, "-");
        strcpy(sd, "-");
        strcpy(med, "-");
        strcpy(mn, "-");
        strcpy(mx, "-");
    }
    show_percent(zeros, sizeof zeros, x->zeros, x->values);
    odd[0] = '\0';
    if (x->nan + x->inf + x->ninf > 0)
        snprintf(odd, sizeof odd, "nan %llu, inf %llu, -inf %llu", (unsigned long long)x->nan,
                 (unsigned long long)x->inf, (unsigned long long)x->ninf);
    else
        strcpy(odd, "-");
    tt_row(t, oom, name, kind, pres, miss, per, mean, sd, zeros, mn, med, mx, odd);
}

static void bytes_row(text_table *t, const st_key *k, uint64_t records, unsigned ntop, int *oom)
{
    const st_bytes *x = k->b;
    char name[160], pres[32], miss[32], per[112], dist[32], len[112], utf[32], top[400];
    size_t o = 0;
    uint32_t j;
    int exact;
    double dv = sk_distinct_value(&x->d, &exact);
    st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
    show_percent(pres, sizeof pres, k->present, records);
    snprintf(miss, sizeof miss, "%llu", (unsigned long long)(records - k->present));
    show_range(per, sizeof per, &k->per);
    if (exact)
        snprintf(dist, sizeof dist, "%.0f", dv);
    else
        snprintf(dist, sizeof dist, "~%.0f", dv);
    show_range(len, sizeof len, &x->len);
    show_percent(utf, sizeof utf, x->utf8, x->values);
    top[0] = '\0';
    for (j = 0; j < x->top.n && j < ntop && j < 3 && o + 60 < sizeof top; j++) {
        char v[48], pc[16];
        const sk_top_item *it = &x->top.item[j];
        st_show_bytes(v, sizeof v, it->prefix, it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX,
                      it->len);
        show_percent(pc, sizeof pc, it->count, x->values);
        o += (size_t)snprintf(top + o, sizeof top - o, "%s\"%s\" %s", j > 0 ? ", " : "", v, pc);
    }
    if (o == 0)
        strcpy(top, "-");
    tt_row(t, oom, name, pres, miss, per, dist, len, utf, top);
}

static void print_table(FILE *out, st_stats *s, const st_file *files, size_t nfiles,
                        const stats_opts *o, int *oom)
{
    text_table t;
    size_t i;
    uint64_t bytes = 0;
    char size[32];
    const char *what = s->sequences > 0 ? "context features" : "features";
    for (i = 0; i < nfiles; i++)
        bytes += files[i].bytes;
    show_size(size, sizeof size, (double)bytes);
    fprintf(out, "%llu record%s (%llu Example%s, %llu SequenceExample%s", (unsigned long long)s->records,
            s->records == 1 ? "" : "s", (unsigned long long)s->examples,
            s->examples == 1 ? "" : "s", (unsigned long long)s->sequences,
            s->sequences == 1 ? "" : "s");
    if (s->other > 0)
        fprintf(out, ", %llu other", (unsigned long long)s->other);
    fprintf(out, ") in %zu file%s, %s\n", nfiles, nfiles == 1 ? "" : "s", size);
    if (nfiles > 1) {
        memset(&t, 0, sizeof t);
        t.ncol = 4;
        for (i = 0; i < nfiles; i++) {
            char n[32];
            snprintf(n, sizeof n, "%llu", (unsigned long long)files[i].records);
            show_size(size, sizeof size, (double)files[i].bytes);
            tt_row(&t, oom, files[i].path, n, size,
                   files[i].failed ? "FAILED" : files[i].compression);
        }
        tt_print(out, &t, "lrrl");
    }
    if (s->dropped > 0)
        fprintf(out, "%llu occurrences of keys past --max-features=%zu left out\n",
                (unsigned long long)s->dropped, s->max_keys);
    if (o->spec.d != NULL) {
        uint64_t all = s->spec_parsed + s->spec_failed;
        fprintf(out, "\nspec %s, message %s: %llu of %llu record%s parse", o->spec_path,
                spec_message(&o->spec), (unsigned long long)s->spec_parsed,
                (unsigned long long)all, all == 1 ? "" : "s");
        if (s->spec_failed == 0) {
            fputc('\n', out);
        } else {
            fprintf(out, "; %llu fail:\n", (unsigned long long)s->spec_failed);
            for (i = 0; i < s->spec_errors.n; i++)
                fprintf(out, "%10llu  %s (first: %s record %llu, offset %llu)\n",
                        (unsigned long long)s->spec_errors.kind[i].count,
                        s->spec_errors.kind[i].text, files[s->spec_errors.kind[i].file].path,
                        (unsigned long long)s->spec_errors.kind[i].index,
                        (unsigned long long)s->spec_errors.kind[i].offset);
            if (s->spec_errors.other > 0)
                fprintf(out, "%10llu  (other texts)\n", (unsigned long long)s->spec_errors.other);
        }
    }
    for (i = 0; i < 2; i++) {
        st_table *tb = i == 0 ? &s->features : &s->lists;
        const char *per_what = i == 0 ? "values/record" : "values/frame";
        size_t j;
        int any_num = 0, any_bytes = 0;
        for (j = 0; j < tb->n; j++) {
            any_num |= tb->v[j].f != NULL || tb->v[j].i != NULL;
            any_bytes |= tb->v[j].b != NULL;
        }
        if (i == 1 && tb->n > 0) {
            fputc('\n', out);
            memset(&t, 0, sizeof t);
            t.ncol = 6;
            tt_row(&t, oom, "feature lists", "type", "present", "missing", "frames/record",
                   "empty frames");
            for (j = 0; j < tb->n; j++) {
                const st_key *k = &tb->v[j];
                char name[160], ty[32], pres[32], miss[32], fr[112], em[32];
                st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
                show_types(ty, sizeof ty, k);
                show_percent(pres, sizeof pres, k->present, s->records);
                snprintf(miss, sizeof miss, "%llu", (unsigned long long)(s->records - k->present));
                show_range(fr, sizeof fr, &k->frames);
                snprintf(em, sizeof em, "%llu", (unsigned long long)k->empty);
                tt_row(&t, oom, name, ty, pres, miss, fr, em);
            }
            tt_print(out, &t, "llrrrr");
        }
        if (any_num) {
            char head[64];
            fputc('\n', out);
            snprintf(head, sizeof head, "numeric %s", i == 0 ? what : "lists (per frame)");
            memset(&t, 0, sizeof t);
            t.ncol = 12;
            tt_row(&t, oom, head, "type", "present", "missing", per_what, "mean", "std", "zeros",
                   "min", "median", "max", "nan/inf");
            for (j = 0; j < tb->n; j++) {
                const st_key *k = &tb->v[j];
                if (k->i != NULL)
                    numeric_rows(&t, k, k->i, "int64", s->records, per_what, oom);
                if (k->f != NULL)
                    numeric_rows(&t, k, k->f, "float", s->records, per_what, oom);
            }
            tt_print(out, &t, "llrrrrrrrrrl");
        }
        for (j = 0; j < tb->n; j++) {
            const st_key *k = &tb->v[j];
            char name[160];
            /* in no table: the feature lists' table shows every list */
            if (i == 1 || k->f != NULL || k->i != NULL || k->b != NULL)
                continue;
            st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
            fprintf(out, "\nfeature %s: never a value (an empty Feature{} in %llu record%s)\n",
                    name, (unsigned long long)k->empty, k->empty == 1 ? "" : "s");
        }
        if (any_bytes) {
            char head[64];
            fputc('\n', out);
            snprintf(head, sizeof head, "bytes %s", i == 0 ? what : "lists (per frame)");
            memset(&t, 0, sizeof t);
            t.ncol = 8;
            tt_row(&t, oom, head, "present", "missing", per_what, "distinct", "length", "utf-8",
                   "top values");
            for (j = 0; j < tb->n; j++)
                if (tb->v[j].b != NULL)
                    bytes_row(&t, &tb->v[j], s->records, o->top, oom);
            tt_print(out, &t, "lrrrrrrl");
        }
    }
}

/* ------------------------------------------------------------- JSON */

/* A double that reads back as itself; integers without a fraction. */
static void json_double(FILE *f, double v)
{
    char buf[40];
    int p;
    if (v != v || isinf(v)) {
        fputs(v != v ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"", f);
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        fprintf(f, "%.0f", v);
        return;
    }
    for (p = 15; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

static void json_u64(FILE *f, const char *name, uint64_t v)
{
    fprintf(f, "\"%s\":%llu", name, (unsigned long long)v);
}

size_t st_histogram(const sk_moments *m, const sk_quant *q, uint64_t *bins, double *low,
                    double *high)
{
    size_t j, n = ST_BINS;
    if (m->n == 0)
        return 0;
    if (q->integer && m->max - m->min < ST_BINS) {
        n = (size_t)(m->max - m->min) + 1;
        sk_quant_histogram(q, m->min, m->min + (double)n, bins, n);
        for (j = 0; j < n; j++)
            low[j] = high[j] = m->min + (double)j;
        return n;
    }
    if (m->max == m->min) {
        bins[0] = m->n;
        low[0] = high[0] = m->min;
        return 1;
    }
    sk_quant_histogram(q, m->min, m->max, bins, n);
    for (j = 0; j < n; j++) {
        low[j] = m->min + (m->max - m->min) * (double)j / (double)n;
        high[j] = j + 1 == n ? m->max : m->min + (m->max - m->min) * (double)(j + 1) / (double)n;
    }
    return n;
}

static void json_dist(FILE *f, const sk_moments *m, const sk_quant *q)
{
    uint64_t bins[ST_BINS];
    double low[ST_BINS], high[ST_BINS];
    size_t j, nb;
    fprintf(f, "{\"count\":%llu", (unsigned long long)m->n);
    if (m->n > 0) {
        fputs(",\"min\":", f);
        json_double(f, m->min);
        fputs(",\"max\":", f);
        json_double(f, m->max);
        fputs(",\"mean\":", f);
        json_double(f, m->mean);
        fputs(",\"std\":", f);
        json_double(f, sk_moments_std(m));
        fputs(",\"quantiles\":{", f);
        for (j = 0; j < ST_NQ; j++) {
            fprintf(f, "%s\"%s\":", j > 0 ? "," : "", st_quantile_names[j]);
            json_double(f, sk_quant_value(q, st_quantiles[j]));
        }
        fputs("},\"histogram\":[", f);
        nb = st_histogram(m, q, bins, low, high);
        for (j = 0; j < nb; j++) {
            fputs(j > 0 ? ",[" : "[", f);
            json_double(f, low[j]);
            fputc(',', f);
            json_double(f, high[j]);
            fprintf(f, ",%llu]", (unsigned long long)bins[j]);
        }
        fputc(']', f);
        fprintf(f, ",\"exact\":%s", sk_quant_exact(q) ? "true" : "false");
        if (q->collapsed > 0)
            fprintf(f, ",\"collapsed\":%llu", (unsigned long long)q->collapsed);
    }
    fputc('}', f);
}

static void json_distinct(FILE *f, const sk_distinct *d)
{
    int exact;
    double v = sk_distinct_value(d, &exact);
    fputs("\"distinct\":{\"value\":", f);
    json_double(f, exact ? v : floor(v + 0.5));
    fprintf(f, ",\"exact\":%s}", exact ? "true" : "false");
}

static void json_num(FILE *f, const char *kind, const st_num *x, int integer)
{
    fprintf(f, ",\"%s\":{", kind);
    json_u64(f, "count", x->values);
    fputc(',', f);
    json_u64(f, "zeros", x->zeros);
    if (!integer) {
        fputc(',', f);
        json_u64(f, "nan", x->nan);
        fputc(',', f);
        json_u64(f, "inf", x->inf);
        fputc(',', f);
        json_u64(f, "-inf", x->ninf);
    }
    fputs(",\"finite\":", f);
    json_dist(f, &x->m, &x->q);
    if (integer && x->values > 0)
        fprintf(f, ",\"min\":%lld,\"max\":%lld", (long long)x->imin, (long long)x->imax);
    if (integer) {
        fputc(',', f);
        json_distinct(f, &x->d);
    }
    fputc('}', f);
}

static void json_bytes(FILE *f, const st_bytes *x, unsigned ntop)
{
    uint32_t j;
    fputs(",\"bytes\":{", f);
    json_u64(f, "count", x->values);
    fputc(',', f);
    json_u64(f, "empty", x->empty);
    fputc(',', f);
    json_u64(f, "utf8", x->utf8);
    fputs(",\"length\":", f);
    json_dist(f, &x->len, &x->lenq);
    fputc(',', f);
    json_distinct(f, &x->d);
    fputs(",\"top\":[", f);
    for (j = 0; j < x->top.n && j < ntop; j++) {
        const sk_top_item *it = &x->top.item[j];
        size_t shown = it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX;
        fputs(j > 0 ? ",{\"value\":" : "{\"value\":", f);
        if (shown < it->len) {
            /* cut between UTF-8 characters when the value is text */
            size_t k = shown;
            while (k > 0 && k + 4 > shown && !fc_utf8_valid(it->prefix, k))
                k--;
            if (k + 4 > shown && k > 0)
                shown = k;
            fputs("{\"shortened\":", f);
            fc_json_string(f, it->prefix, shown, 1);
            fprintf(f, ",\"bytes\":%llu}", (unsigned long long)it->len);
        } else {
            fc_json_string(f, it->prefix, shown, 1);
        }
        fprintf(f, ",\"count\":%llu}", (unsigned long long)it->count);
    }
    fputs("],", f);
    json_u64(f, "top_error", x->top.error);
    fputc('}', f);
}

static void json_key(FILE *f, const st_key *k, uint64_t records, int list, unsigned ntop)
{
    size_t j;
    int first = 1;
    fputs("{\"name\":", f);
    fc_json_string(f, k->key, k->key_len, 1);
    fputs(",\"types\":{", f);
    for (j = 0; j < ST_KINDS; j++)
        if (k->kind[j] > 0) {
            fprintf(f, "%s\"%s\":%llu", first ? "" : ",", kind_names[j],
                    (unsigned long long)k->kind[j]);
            first = 0;
        }
    fputs("},", f);
    json_u64(f, "present", k->present);
    fputc(',', f);
    json_u64(f, "missing", records - k->present);
    fputc(',', f);
    json_u64(f, list ? "empty_frames" : "empty", k->empty);
    if (list) {
        fputs(",\"frames\":", f);
        json_dist(f, &k->frames, &k->framesq);
    }
    fprintf(f, ",\"%s\":", list ? "values_per_frame" : "values_per_record");
    json_dist(f, &k->per, &k->perq);
    if (k->i != NULL)
        json_num(f, "int64", k->i, 1);
    if (k->f != NULL)
        json_num(f, "float", k->f, 0);
    if (k->b != NULL)
        json_bytes(f, k->b, ntop);
    fputc('}', f);
}

static void print_json(FILE *f, const st_stats *s, const st_file *files, size_t nfiles,
                       const stats_opts *o)
{
    size_t i;
    unsigned ntop = o->top;
    fputs("{\"featc_stats\":1,\"files\":[", f);
    for (i = 0; i < nfiles; i++) {
        fputs(i > 0 ? ",{\"path\":" : "{\"path\":", f);
        fc_json_string(f, files[i].path, strlen(files[i].path), 1);
        fprintf(f, ",\"records\":%llu,\"bytes\":%llu,\"compression\":\"%s\"",
                (unsigned long long)files[i].records, (unsigned long long)files[i].bytes,
                files[i].compression);
        if (files[i].failed) {
            fputs(",\"error\":", f);
            fc_json_string(f, files[i].error, strlen(files[i].error), 1);
        }
        fputc('}', f);
    }
    fputs("],", f);
    json_u64(f, "records", s->records);
    fputc(',', f);
    json_u64(f, "examples", s->examples);
    fputc(',', f);
    json_u64(f, "sequence_examples", s->sequences);
    fputc(',', f);
    json_u64(f, "other", s->other);
    fputs(",\"other_records\":[", f);
    for (i = 0; i < s->nbad; i++) {
        const st_bad *b = &s->bad[i];
        fputs(i > 0 ? ",{\"path\":" : "{\"path\":", f);
        fc_json_string(f, files[b->file].path, strlen(files[b->file].path), 1);
        fprintf(f, ",\"record\":%llu,\"offset\":%llu,\"error\":", (unsigned long long)b->record,
                (unsigned long long)b->offset);
        fc_json_string(f, b->message, strlen(b->message), 1);
        fputc('}', f);
    }
    fputs("],", f);
    json_u64(f, "dropped_keys", s->dropped);
    fputs(",\"spec\":", f);
    if (o->spec.d == NULL) {
        fputs("null", f);
    } else {
        fputs("{\"path\":", f);
        fc_json_string(f, o->spec_path, strlen(o->spec_path), 1);
        fputs(",\"message\":", f);
        fc_json_string(f, spec_message(&o->spec), strlen(spec_message(&o->spec)), 1);
        fprintf(f, ",\"parsed\":%llu,\"failed\":%llu,\"errors\":[",
                (unsigned long long)s->spec_parsed, (unsigned long long)s->spec_failed);
        for (i = 0; i < s->spec_errors.n; i++) {
            const tools_error_kind *e = &s->spec_errors.kind[i];
            fputs(i > 0 ? ",{\"error\":" : "{\"error\":", f);
            fc_json_string(f, e->text, strlen(e->text), 1);
            fprintf(f, ",\"count\":%llu,\"path\":", (unsigned long long)e->count);
            fc_json_string(f, files[e->file].path, strlen(files[e->file].path), 1);
            fprintf(f, ",\"record\":%llu,\"offset\":%llu}", (unsigned long long)e->index,
                    (unsigned long long)e->offset);
        }
        fprintf(f, "],\"other_errors\":%llu}", (unsigned long long)s->spec_errors.other);
    }
    fputs(",\"sketches\":{\"quantile_relative_error\":", f);
    json_double(f, SK_ALPHA);
    fprintf(f, ",\"distinct_exact_up_to\":%d,\"distinct_standard_error\":", SK_EXACT);
    json_double(f, 1.04 / sqrt((double)(1u << SK_HLL_P)));
    fprintf(f, ",\"top_counters\":%d},\"features\":[", SK_TOP);
    for (i = 0; i < s->features.n; i++) {
        if (i > 0)
            fputc(',', f);
        json_key(f, &s->features.v[i], s->records, 0, ntop);
    }
    fputs("],\"feature_lists\":[", f);
    for (i = 0; i < s->lists.n; i++) {
        if (i > 0)
            fputc(',', f);
        json_key(f, &s->lists.v[i], s->records, 1, ntop);
    }
    fputs("]}\n", f);
}

/* ------------------------------------------------------------- reading */

/* Gives back the pages of a mapped file read past, every 16 MiB: they
 * count in the resident size while mapped. */
static void release_read(fc_input *in, uint64_t *released)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t upto;
    if (in->map.data == NULL || in->data == NULL || page <= 0)
        return;
    upto = fc_reader_raw_offset(&in->reader) / (uint64_t)page * (uint64_t)page;
    if (upto >= *released + ((uint64_t)16 << 20) && upto <= in->size) {
        (void)madvise((void *)(uintptr_t)(in->data + *released), (size_t)(upto - *released),
                      MADV_DONTNEED);
        *released = upto;
    }
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

/* What a thread reads with: the fallback decoder, and the scratch of the
 * spec's parse (allocated at the first record). */
typedef struct st_reader {
    tools_decoder d;
    void *msg;
    fc_feature_ref *refs;
} st_reader;

/* One record of file `file`: its verdict under --spec, then its values.
 * 0, or 1 when it is not an Example or SequenceExample. */
static int one_record(const stats_opts *o, st_reader *r, st_stats *s, size_t file,
                      const fc_record *rec)
{
    fc_fallback fb;
    fc_error perr;
    if (o->spec.d != NULL) {
        if (r->msg == NULL) {
            r->msg = calloc(1, o->spec.size);
            r->refs = (fc_feature_ref *)calloc(o->spec.nrefs, sizeof *r->refs);
            if (r->msg == NULL || r->refs == NULL) {
                s->oom = 1;
                return 0;
            }
        }
        fc_error_clear(&perr);
        if (tools_spec_parse(&o->spec, r->msg, r->refs, rec, &perr) == FC_OK) {
            s->spec_parsed++;
        } else {
            s->spec_failed++;
            tools_kinds_note(&s->spec_errors, perr.message, file, rec->index, rec->offset);
        }
    }
    r->d.limit = o->max_memory;
    fc_error_clear(&perr);
    if (tools_decode(&r->d, rec, o->type, 0, &fb, &perr) != FC_OK) {
        note_bad(s, file, rec, &perr);
        return 1;
    }
    gather(s, &fb);
    return 0;
}

static void reader_free(st_reader *r)
{
    free(r->d.mem);
    free(r->msg);
    free(r->refs);
}

static int run_sequential(const stats_opts *o, st_stats *s, st_file *files, progress *pg)
{
    st_reader r;
    int rc = EXIT_OK, k;
    memset(&r, 0, sizeof r);
    for (k = 0; k < o->nfiles && !s->oom; k++) {
        const char *path = o->files[k];
        fc_input in;
        fc_record rec;
        uint64_t released = 0;
        int st = fc_input_open(&in, path, &o->read);
        while (st == FC_OK && (st = fc_input_next(&in, &rec)) == FC_OK && !s->oom) {
            progress_record(pg, fc_reader_raw_offset(&in.reader));
            files[k].records++;
            if (one_record(o, &r, s, (size_t)k, &rec) != 0)
                rc = worse(rc, EXIT_RECORD_ERR);
            release_read(&in, &released);
        }
        progress_clear(pg);
        progress_file_done(pg, fc_reader_raw_offset(&in.reader));
        files[k].bytes = fc_reader_raw_offset(&in.reader);
        if (st == FC_END) {
            files[k].compression = fc_compression_name(fc_reader_compression(&in.reader));
        } else if (!s->oom) {
            files[k].failed = 1;
            snprintf(files[k].error, sizeof files[k].error, "%s", in.err.message);
            fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
            rc = EXIT_DATA_ERR;
        }
        fc_input_close(&in);
    }
    reader_free(&r);
    return rc;
}

typedef struct pool_ctx {
    const stats_opts *o;
} pool_ctx;

static fc_status pool_record(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                             fc_error *err)
{
    const stats_opts *o = ((const pool_ctx *)ctx)->o;
    st_stats *s = (st_stats *)split->user;
    if (s == NULL) {
        s = (st_stats *)calloc(1, sizeof *s);
        if (s == NULL) {
            fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
            fc_msg_str(&m, "out of memory");
            return FC_ERR_NO_MEMORY;
        }
        s->max_keys = o->max_keys;
        split->user = s;
    }
    (void)one_record(o, (st_reader *)state, s, split->file, rec);
    if (s->oom) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
        fc_msg_str(&m, "out of memory");
        return FC_ERR_NO_MEMORY;
    }
    return FC_OK;
}

static void pool_state_free(void *ctx, void *state)
{
    (void)ctx;
    reader_free((st_reader *)state);
}

static int run_pool(const stats_opts *o, st_stats *s, st_file *files, progress *pg)
{
    fc_pool_options po;
    fc_pool_work w;
    fc_pool *pool;
    fc_pool_split *sp;
    fc_error err;
    pool_ctx ctx;
    int rc = EXIT_OK;
    memset(&po, 0, sizeof po);
    po.threads = o->jobs;
    po.ordered = 1;
    po.compression = o->read.compression;
    po.crc_policy = o->read.crc_policy;
    po.max_record_size = o->read.max_record_size;
    ctx.o = o;
    w.ctx = &ctx;
    w.state_size = sizeof(st_reader);
    w.record = pool_record;
    w.state_free = pool_state_free;
    if (fc_pool_open(&pool, (const char *const *)o->files, (size_t)o->nfiles, &po, &w, &err) !=
        FC_OK) {
        fprintf(stderr, "featc: %s\n", err.message);
        return EXIT_DATA_ERR;
    }
    while (fc_pool_next(pool, &sp) == FC_OK) {
        st_stats *u = (st_stats *)sp->user;
        st_file *fi = &files[sp->file];
        struct stat st;
        uint64_t end = sp->end;
        if (end == UINT64_MAX)
            end = stat(o->files[sp->file], &st) == 0 ? (uint64_t)st.st_size : sp->begin;
        progress_part(pg, end - sp->begin, sp->records);
        if (!fi->failed) {
            fi->records += sp->records;
            fi->bytes = sp->compression == FC_COMPRESSION_NONE ? sp->stop : end;
            fi->compression = fc_compression_name(sp->compression);
            if (u != NULL) {
                merge_stats(s, u);
                if (u->other > 0)
                    rc = worse(rc, EXIT_RECORD_ERR);
            }
            if (sp->status != FC_END) {
                fi->failed = 1;
                snprintf(fi->error, sizeof fi->error, "%s", sp->err.message);
                progress_clear(pg);
                fprintf(stderr, "featc: %s: %s\n", o->files[sp->file], sp->err.message);
                rc = EXIT_DATA_ERR;
            }
        }
        if (u != NULL) {
            stats_free(u);
            free(u);
            sp->user = NULL;
        }
    }
    fc_pool_close(pool);
    return rc;
}

/* ------------------------------------------------------------- options */

static int has_pattern(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* Operands that name no file but are patterns: expanded (sorted). */
static int expand_patterns(stats_opts *o)
{
    int k, n = 0, cap = 0;
    char **v = NULL;
    for (k = 0; k < o->nfiles; k++) {
        struct stat st;
        glob_t g;
        size_t j;
        const char *a = o->files[k];
        if (!has_pattern(a) || strcmp(a, "-") == 0 || stat(a, &st) == 0) {
            if (n == cap) {
                char **p;
                cap = cap != 0 ? 2 * cap : 16;
                p = (char **)realloc(v, (size_t)cap * sizeof *p);
                if (p == NULL)
                    goto oom;
                v = p;
            }
            v[n++] = (char *)a;
            continue;
        }
        if (glob(a, 0, NULL, &g) != 0) {
            fprintf(stderr, "featc: %s: no file matches this pattern\n", a);
            free(v);
            return EXIT_DATA_ERR;
        }
        for (j = 0; j < g.gl_pathc; j++) {
            char *copy = (char *)malloc(strlen(g.gl_pathv[j]) + 1);
            if (n == cap) {
                char **p;
                cap = cap != 0 ? 2 * cap : 16;
                p = (char **)realloc(v, (size_t)cap * sizeof *p);
                if (p == NULL) {
                    free(copy);
                    globfree(&g);
                    goto oom;
                }
                v = p;
            }
            if (copy == NULL) {
                globfree(&g);
                goto oom;
            }
            strcpy(copy, g.gl_pathv[j]);
            if (o->ncopies % 16 == 0) {
                char **p = (char **)realloc(o->copies, (size_t)(o->ncopies + 16) * sizeof *p);
                if (p == NULL) {
                    free(copy);
                    globfree(&g);
                    goto oom;
                }
                o->copies = p;
            }
            o->copies[o->ncopies++] = copy;
            v[n++] = copy;
        }
        globfree(&g);
    }
    o->list = v;
    o->files = v;
    o->nfiles = n;
    return EXIT_OK;
oom:
    free(v);
    return cli_fail(EXIT_DATA_ERR, "out of memory");
}

static int parse_size_opt(const char *s, unsigned long long lo, unsigned long long hi,
                          unsigned long long *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    *v = strtoull(s, &end, 10);
    return *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

static int parse_opts(int argc, char **argv, stats_opts *o, int *done)
{
    int opt, rc;
    unsigned long long v;
    memset(o, 0, sizeof *o);
    o->read.compression = FC_COMPRESSION_AUTO;
    o->read.crc_policy = FC_CRC_VERIFY;
    o->type = FC_PAYLOAD_AUTO;
    o->top = 10;
    o->max_keys = 10000;
    o->jobs = 1;
    *done = 0;
    while ((opt = cli_next_option(&stats_cmd, argc, argv, &rc)) != 0) {
        int r;
        if (tools_input_option(&stats_cmd, opt, optarg, &o->read, &o->type, &o->max_memory, &r)) {
            if (r != 0)
                return r;
        } else if (opt == TOOLS_OPT_JSON) {
            o->json = 1;
        } else if (opt == OPT_HTML) {
            o->html = optarg;
        } else if (opt == OPT_TOP) {
            if (parse_size_opt(optarg, 0, SK_TOP, &v) != 0)
                return cli_usage_error(&stats_cmd, "--top takes 0 to %d, not '%s'", SK_TOP,
                                       optarg);
            o->top = (unsigned)v;
        } else if (opt == OPT_MAX_FEATURES) {
            if (parse_size_opt(optarg, 1, 1000000, &v) != 0)
                return cli_usage_error(&stats_cmd, "--max-features takes 1 to 1000000, not '%s'",
                                       optarg);
            o->max_keys = (size_t)v;
        } else if (opt == OPT_SPEC) {
            o->spec_path = optarg;
        } else if (opt == OPT_MESSAGE) {
            o->message = optarg;
        } else if (opt == 'j') {
            if (tools_parse_jobs(optarg, &o->jobs) != 0)
                return cli_usage_error(&stats_cmd, "-j takes 1 to 1024 threads, not '%s'",
                                       optarg);
        } else if (opt == 'q') {
            o->progress = PROGRESS_QUIET;
        } else if (opt == TOOLS_OPT_PROGRESS) {
            o->progress = PROGRESS_FORCE;
        }
    }
    if (rc >= 0) {
        *done = 1;
        return rc;
    }
    if (o->message != NULL && o->spec_path == NULL)
        return cli_usage_error(&stats_cmd, "--message names a message of --spec");
    rc = cli_operands(&stats_cmd, argc, argv, &o->files, &o->nfiles);
    if (rc != 0)
        return rc;
    return expand_patterns(o);
}

int cmd_stats(int argc, char **argv)
{
    stats_opts o;
    st_stats s;
    st_file *files;
    progress pg;
    int done, rc = parse_opts(argc, argv, &o, &done), k, failed = 0;
    memset(&s, 0, sizeof s);
    files = NULL;
    if (rc != 0 || done)
        goto out;
    if (o.spec_path != NULL && (rc = tools_spec_open(&o.spec, o.spec_path, o.message)) != 0)
        goto out;
    s.max_keys = o.max_keys;
    files = (st_file *)calloc((size_t)o.nfiles, sizeof *files);
    if (files == NULL) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
        goto out;
    }
    for (k = 0; k < o.nfiles; k++) {
        files[k].path = o.files[k];
        files[k].compression = "?";
    }
    progress_start(&pg, "stats", o.files, o.nfiles, o.progress, 0);
    if (o.jobs > 1)
        rc = run_pool(&o, &s, files, &pg);
    else
        rc = run_sequential(&o, &s, files, &pg);
    progress_end(&pg);
    if (s.oom) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
        goto out;
    }
    for (k = 0; k < o.nfiles; k++)
        failed += files[k].failed;
    if (s.features.n > 1)
        qsort(s.features.v, s.features.n, sizeof *s.features.v, key_cmp);
    if (s.lists.n > 1)
        qsort(s.lists.v, s.lists.n, sizeof *s.lists.v, key_cmp);
    for (k = 0; k < 2; k++) {
        st_table *t = k == 0 ? &s.features : &s.lists;
        size_t j;
        for (j = 0; j < t->n; j++)
            if (t->v[j].b != NULL)
                sk_top_sort(&t->v[j].b->top);
    }
    tools_kinds_sort(&s.spec_errors);
    if (s.spec_failed > 0)
        rc = worse(rc, EXIT_RECORD_ERR);
    if (o.json) {
        print_json(stdout, &s, files, (size_t)o.nfiles, &o);
    } else {
        int oom = 0;
        print_table(stdout, &s, files, (size_t)o.nfiles, &o, &oom);
        if (oom) {
            rc = cli_fail(EXIT_DATA_ERR, "out of memory");
            goto out;
        }
    }
    if (s.other > 0) {
        size_t i;
        fprintf(stderr, "featc: stats: %llu record%s not an Example or SequenceExample%s:\n",
                (unsigned long long)s.other, s.other == 1 ? " is" : "s are",
                s.other > s.nbad ? " (the first ones)" : "");
        for (i = 0; i < s.nbad; i++)
            fprintf(stderr, "featc: %s: record %llu (offset %llu): %s\n", files[s.bad[i].file].path,
                    (unsigned long long)s.bad[i].record, (unsigned long long)s.bad[i].offset,
                    s.bad[i].message);
    }
    if (failed > 0)
        fprintf(stderr, "featc: stats: incomplete: %d of %d files failed; the records read "
                        "before each failure are summarised\n", failed, o.nfiles);
    if (o.html != NULL) {
        char *text = NULL;
        size_t len = 0;
        FILE *t = open_memstream(&text, &len);
        int bad = t == NULL ||
                  st_write_html(t, &s, files, (size_t)o.nfiles,
                                o.nfiles == 1 ? o.files[0] : "TFRecord files", o.spec_path,
                                o.spec.d != NULL ? &o.spec : NULL) != 0;
        if (t != NULL && (ferror(t) | fclose(t)) != 0)
            bad = 1;
        if (bad)
            rc = worse(rc, cli_fail(EXIT_DATA_ERR, "out of memory"));
        else
            rc = worse(rc, cli_write_file(o.html, text, len));
        free(text);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = worse(rc, cli_fail(EXIT_DATA_ERR, "error writing standard output"));
out:
    stats_free(&s);
    free(files);
    if (o.spec.d != NULL)
        tools_spec_close(&o.spec);
    for (k = 0; k < o.ncopies; k++)
        free(o.copies[k]);
    free(o.copies);
    free(o.list);
    return rc;
}
