/* featc validate --schema SCHEMA FILE...: the records against what a
 * TensorFlow Metadata schema (or a featc spec, through its TFMD export) says
 * of each feature, with TFDV's anomaly kinds (anomalies.proto): presence
 * (min_fraction, min_count), values per record (value_count, a fixed shape),
 * the type, int and float domains (and disallow_nan), string domains, and
 * keys the schema does not name.  Each anomaly: its records and the first
 * one.  Hosted: it allocates (the schema, a hash of its keys, the keys not
 * in it up to a bound). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>
#include <featc/fc_input.h>

#include "base/cli.h"
#include "base/read.h"
#include "commands.h"
#include "validate_drift.h"

enum {
    A_TYPE,
    A_LOW_VALUES,
    A_HIGH_VALUES,
    A_SMALL_INT,
    A_BIG_INT,
    A_SMALL_FLOAT,
    A_BIG_FLOAT,
    A_NAN,
    A_STRING,
    A_LOW_FRACTION,
    A_LOW_NUMBER,
    A_NOT_PRESENT,
    A_KINDS
};

/* TFDV's names (tensorflow_metadata/proto/v0/anomalies.proto) */
static const char *const anomaly_name[A_KINDS] = {
    "UNEXPECTED_DATA_TYPE",       "FEATURE_TYPE_LOW_NUMBER_VALUES",
    "FEATURE_TYPE_HIGH_NUMBER_VALUES", "INT_TYPE_SMALL_INT",
    "INT_TYPE_BIG_INT",           "FLOAT_TYPE_SMALL_FLOAT",
    "FLOAT_TYPE_BIG_FLOAT",       "FLOAT_TYPE_HAS_NAN",
    "ENUM_TYPE_UNEXPECTED_STRING_VALUES", "FEATURE_TYPE_LOW_FRACTION_PRESENT",
    "FEATURE_TYPE_LOW_NUMBER_PRESENT", "FEATURE_TYPE_NOT_PRESENT"};

typedef struct where {
    uint64_t count;        /* records */
    size_t file;           /* the first one's */
    uint64_t record;
    char detail[192];
} where;

typedef struct vkey {
    const featc_tfmd_feature *c; /* NULL: a key the schema does not name */
    const uint8_t *key;          /* (a new key's own copy) */
    size_t key_len;
    int list;
    uint64_t present;
    uint32_t *strings;           /* 1 + index of a string domain value, open addressing */
    size_t nstrings_slots;
    where a[A_KINDS];
    where fresh;                 /* SCHEMA_NEW_COLUMN */
} vkey;

#define MAX_NEW_KEYS 1000

typedef struct validator {
    vkey *keys;
    size_t n, cap;
    uint32_t *slot; /* 1 + index, open addressing over (list, key) */
    size_t nslot;
    uint64_t examples, sequences;
    size_t file;
    uint64_t record;
    int oom;
    uint64_t new_dropped; /* new keys past MAX_NEW_KEYS */
} validator;

static uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *s = (const uint8_t *)p;
    uint64_t h = 1469598103934665603ull ^ seed;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h ? h : 1;
}

static vkey *lookup(validator *v, const uint8_t *key, size_t len, int list)
{
    size_t i = (size_t)hash_bytes(key, len, (uint64_t)list) & (v->nslot - 1);
    for (;; i = (i + 1) & (v->nslot - 1)) {
        vkey *k;
        if (v->slot[i] == 0)
            return NULL;
        k = &v->keys[v->slot[i] - 1];
        if (k->list == list && k->key_len == len && memcmp(k->key, key, len) == 0)
            return k;
    }
}

/* Adds a key (the table is sized for the schema and MAX_NEW_KEYS more). */
static vkey *add(validator *v, const uint8_t *key, size_t len, int list,
                 const featc_tfmd_feature *c)
{
    size_t i = (size_t)hash_bytes(key, len, (uint64_t)list) & (v->nslot - 1);
    vkey *k;
    if (v->n == v->cap)
        return NULL;
    while (v->slot[i] != 0)
        i = (i + 1) & (v->nslot - 1);
    k = &v->keys[v->n];
    memset(k, 0, sizeof *k);
    k->c = c;
    k->key = key;
    k->key_len = len;
    k->list = list;
    v->slot[i] = (uint32_t)++v->n;
    return k;
}

static void note(validator *v, where *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void note(validator *v, where *w, const char *fmt, ...)
{
    if (w->count++ == 0) {
        va_list ap;
        w->file = v->file;
        w->record = v->record;
        va_start(ap, fmt);
        vsnprintf(w->detail, sizeof w->detail, fmt, ap);
        va_end(ap);
    }
}

static int in_strings(const vkey *k, const uint8_t *p, size_t n)
{
    const featc_tfmd_feature *c = k->c;
    size_t i = (size_t)hash_bytes(p, n, 7) & (k->nstrings_slots - 1);
    for (; k->strings[i] != 0; i = (i + 1) & (k->nstrings_slots - 1)) {
        size_t j = k->strings[i] - 1;
        if (c->string_lens[j] == n && memcmp(c->strings[j], p, n) == 0)
            return 1;
    }
    return 0;
}

static const char *kind_word(fc_fb_kind kind)
{
    return kind == FC_FB_BYTES ? "bytes_list" : kind == FC_FB_FLOAT ? "float_list" : "int64_list";
}

/* One value list (a feature's, or a frame's) of key k; once per record per
 * anomaly (seen[] says which this record already counted). */
static void check_values(validator *v, vkey *k, const fc_fb_value *val, int *seen)
{
    const featc_tfmd_feature *c = k->c;
    char want = val->kind == FC_FB_BYTES ? 'b' : val->kind == FC_FB_FLOAT ? 'f' : 'i';
    long long n = (long long)val->n;
    size_t j;
#define ONCE(a) (!seen[a] && (seen[a] = 1))
    if (c->type != 0 && want != c->type) {
        if (ONCE(A_TYPE))
            note(v, &k->a[A_TYPE], "%s where the schema says %s", kind_word(val->kind),
                 c->type == 'b' ? "BYTES" : c->type == 'i' ? "INT" : "FLOAT");
        return;
    }
    if (c->has_shape ? n < c->shape_elems : c->has_count && n < c->count_min) {
        if (ONCE(A_LOW_VALUES))
            note(v, &k->a[A_LOW_VALUES], "%lld values, the schema's least %lld", n,
                 c->has_shape ? c->shape_elems : c->count_min);
    } else if (c->has_shape ? n > c->shape_elems
                            : c->has_count && c->count_max >= 0 && n > c->count_max) {
        if (ONCE(A_HIGH_VALUES))
            note(v, &k->a[A_HIGH_VALUES], "%lld values, the schema's most %lld", n,
                 c->has_shape ? c->shape_elems : c->count_max);
    }
    for (j = 0; j < val->n; j++) {
        if (val->kind == FC_FB_INT64) {
            long long x = (long long)val->int64s[j];
            if (c->has_int_min && x < c->int_min && ONCE(A_SMALL_INT))
                note(v, &k->a[A_SMALL_INT], "%lld below the int_domain's min %lld", x, c->int_min);
            if (c->has_int_max && x > c->int_max && ONCE(A_BIG_INT))
                note(v, &k->a[A_BIG_INT], "%lld above the int_domain's max %lld", x, c->int_max);
        } else if (val->kind == FC_FB_FLOAT) {
            double x = (double)val->floats[j];
            if (x != x) {
                if (c->disallow_nan && ONCE(A_NAN))
                    note(v, &k->a[A_NAN], "NaN where the float_domain disallows it");
                continue;
            }
            if (c->has_float_min && x < c->float_min && ONCE(A_SMALL_FLOAT))
                note(v, &k->a[A_SMALL_FLOAT], "%.9g below the float_domain's min %.9g", x,
                     c->float_min);
            if (c->has_float_max && x > c->float_max && ONCE(A_BIG_FLOAT))
                note(v, &k->a[A_BIG_FLOAT], "%.9g above the float_domain's max %.9g", x,
                     c->float_max);
        } else if (k->strings != NULL && !in_strings(k, val->bytes[j].data, val->bytes[j].len) &&
                   ONCE(A_STRING)) {
            size_t len = val->bytes[j].len;
            note(v, &k->a[A_STRING], "\"%.*s%s\" is not in the string domain",
                 (int)(len > 60 ? 60 : len), (const char *)val->bytes[j].data, len > 60 ? "..." : "");
        }
    }
#undef ONCE
}

/* A key of the record that the schema does not name. */
static void fresh_key(validator *v, const uint8_t *key, size_t len, int list)
{
    vkey *k = lookup(v, key, len, list);
    if (k == NULL) {
        uint8_t *copy;
        if (v->n >= v->cap) {
            v->new_dropped++;
            return;
        }
        copy = (uint8_t *)malloc(len > 0 ? len : 1);
        if (copy == NULL) {
            v->oom = 1;
            return;
        }
        memcpy(copy, key, len);
        k = add(v, copy, len, list, NULL);
    }
    note(v, &k->fresh, "a %s the schema does not name", list ? "feature list" : "feature");
}

static void check_record(validator *v, const fc_fallback *fb)
{
    size_t i, t;
    int seen[A_KINDS];
    if (fb->kind == FC_PAYLOAD_SEQUENCE_EXAMPLE)
        v->sequences++;
    else
        v->examples++;
    for (i = 0; i < fb->n_features; i++) {
        const fc_fb_feature *f = &fb->features[i];
        vkey *k = lookup(v, f->key, f->key_len, 0);
        if (k == NULL || k->c == NULL) {
            fresh_key(v, f->key, f->key_len, 0);
            continue;
        }
        if (f->value->kind == FC_FB_NONE)
            continue; /* Feature{} without a list: missing */
        k->present++;
        memset(seen, 0, sizeof seen);
        check_values(v, k, f->value, seen);
    }
    for (i = 0; i < fb->n_feature_lists; i++) {
        const fc_fb_feature_list *l = &fb->feature_lists[i];
        vkey *k = lookup(v, l->key, l->key_len, 1);
        if (k == NULL || k->c == NULL) {
            fresh_key(v, l->key, l->key_len, 1);
            continue;
        }
        k->present++;
        memset(seen, 0, sizeof seen);
        for (t = 0; t < l->n_frames; t++)
            if (l->frames[t].kind != FC_FB_NONE)
                check_values(v, k, &l->frames[t], seen);
    }
}

/* The presence anomalies, once every record is read. */
static void presence(validator *v, vkey *k)
{
    const featc_tfmd_feature *c = k->c;
    uint64_t records = k->list ? v->sequences : v->examples + v->sequences; /* (a context feature: of every record) */
    uint64_t missing = records - k->present;
    int low_fraction = c->has_min_fraction && (double)k->present < c->min_fraction * (double)records;
    int low_number = c->has_min_count && (long long)k->present < c->min_count;
    if (!low_fraction && !low_number)
        return;
    if (k->present == 0 && records > 0) {
        k->a[A_NOT_PRESENT].count = records;
        snprintf(k->a[A_NOT_PRESENT].detail, sizeof k->a[A_NOT_PRESENT].detail,
                 "in none of %llu records", (unsigned long long)records);
        k->a[A_NOT_PRESENT].file = (size_t)-1;
        return;
    }
    if (low_fraction) {
        where *w = &k->a[A_LOW_FRACTION];
        w->count = missing;
        w->file = (size_t)-1;
        snprintf(w->detail, sizeof w->detail, "in %llu of %llu records (%.4g), the schema's "
                 "min_fraction %.4g", (unsigned long long)k->present, (unsigned long long)records,
                 records ? (double)k->present / (double)records : 0.0, c->min_fraction);
    }
    if (low_number) {
        where *w = &k->a[A_LOW_NUMBER];
        w->count = missing;
        w->file = (size_t)-1;
        snprintf(w->detail, sizeof w->detail, "in %llu records, the schema's min_count %lld",
                 (unsigned long long)k->present, c->min_count);
    }
}

static void print_anomaly(const vkey *k, const char *kind, const where *w, char **files)
{
    printf("%s%.*s: %s: %llu record%s", k->list ? "##SEQUENCE##/" : "", (int)k->key_len,
           (const char *)k->key, kind, (unsigned long long)w->count, w->count == 1 ? "" : "s");
    if (w->detail[0] != '\0')
        printf(": %s", w->detail);
    if (w->file != (size_t)-1)
        printf("; first: %s record %llu", files[w->file], (unsigned long long)w->record);
    putchar('\n');
}

static const char *const validate_usage =
    "usage: featc validate [options] --schema SCHEMA [FILE...]\n"
    "       featc validate [options] --schema SCHEMA --stats STATS --against-stats STATS\n"
    "\n"
    "Checks the records of TFRecord files against what a TensorFlow Metadata\n"
    "schema (schema.pbtxt; or a featc spec, through featc export --tfmd) says of\n"
    "each feature, with TensorFlow Data Validation's anomaly kinds: presence\n"
    "(min_fraction, min_count), values per record (value_count, a fixed shape),\n"
    "the type, int and float domains, string domains, and keys the schema does\n"
    "not name.  Each anomaly is a line: the feature, the kind, the records that\n"
    "show it, what is wrong and the first such record.\n"
    "\n"
    "With --against (or --against-stats), also compares the records with other\n"
    "data feature by feature as TFDV does: L-infinity distance, normalized\n"
    "absolute difference or Jensen-Shannon divergence, with the thresholds of\n"
    "each feature's drift_comparator (skew_comparator with --skew), or of\n"
    "--linf and --jsd for the features that have none; each measurement is a\n"
    "line, and one above its threshold an anomaly.\n"
    "\n"
    "options:\n"
    "  --schema=SCHEMA         the schema: a schema.pbtxt, or a spec (NAME.feat)\n"
    "  --environment=ENV       only the features of environment ENV\n"
    "  --message=NAME          the spec's message (a spec of several)\n"
    "  --against=FILE          other data (record files; repeat for several):\n"
    "                          the previous data (drift), or with --skew the\n"
    "                          serving data\n"
    "  --against-stats=STATS   the other data's statistics, a binary\n"
    "                          DatasetFeatureStatisticsList (stats --tfmd-out, TFDV)\n"
    "  --stats=STATS           the data's own statistics instead of FILEs: only\n"
    "                          the comparisons run\n"
    "  --skew                  skew_comparator: FILEs are training data, the\n"
    "                          other data serving data\n"
    "  --linf=T                L-infinity threshold for BYTES features without a\n"
    "                          comparator\n"
    "  --jsd=T                 Jensen-Shannon threshold for INT and FLOAT features\n"
    "                          without a comparator\n"
    "  -c, --compression=C     none, gzip, zlib or auto (default: auto)\n"
    "  --max-record-size=N     largest record payload read\n"
    "  --crc=verify|skip|none  CRC policy (default verify)\n"
    "  --max-memory=N          memory for decoding one record (default 1G)\n"
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 no anomaly; 1 anomalies, or records that are not Examples or\n"
    "SequenceExamples; 2 a file could not be read or is damaged, the schema or\n"
    "the statistics are wrong, or a comparison asked for cannot be measured;\n"
    "64 usage error.\n";

enum {
    OPT_SCHEMA = CLI_OPT_PROGRESS + 40,
    OPT_ENV,
    OPT_MESSAGE,
    OPT_AGAINST,
    OPT_AGAINST_STATS,
    OPT_STATS,
    OPT_SKEW,
    OPT_LINF,
    OPT_JSD
};

static const struct option validate_long[] = {
    {"schema", required_argument, NULL, OPT_SCHEMA},
    {"environment", required_argument, NULL, OPT_ENV},
    {"message", required_argument, NULL, OPT_MESSAGE},
    {"against", required_argument, NULL, OPT_AGAINST},
    {"against-stats", required_argument, NULL, OPT_AGAINST_STATS},
    {"stats", required_argument, NULL, OPT_STATS},
    {"skew", no_argument, NULL, OPT_SKEW},
    {"linf", required_argument, NULL, OPT_LINF},
    {"jsd", required_argument, NULL, OPT_JSD},
    CLI_INPUT_OPTIONS,
    {"crc", required_argument, NULL, CLI_OPT_CRC},
    CLI_MEMORY_OPTION,
    CLI_COMMON_OPTIONS,
    {NULL, 0, NULL, 0}};
static const cli_command validate_cmd = {"validate", validate_usage, "c:h", validate_long};

/* The schema of --schema: a TFMD text, or a spec's export. */
static int read_schema(const char *path, const char *message, const char *env,
                       featc_tfmd_schema *out)
{
    size_t len = 0, tlen = 0, n = strlen(path);
    char *src = cli_read_file(path, &len), *text = NULL;
    featc_options o = FEATC_OPTIONS_INIT;
    int errors;
    if (src == NULL)
        return EXIT_DATA_ERR;
    o.spec_name = path;
    o.diag = cli_print_diagnostic;
    if (n > 5 && strcmp(path + n - 5, ".feat") == 0) {
        errors = featc_export_tfmd(src, len, &o, message, &text, &tlen);
        free(src);
        if (errors != 0)
            return EXIT_DATA_ERR;
        src = text;
        len = tlen;
    }
    errors = featc_tfmd_read(src, len, &o, env, out);
    free(src);
    return errors != 0 ? EXIT_DATA_ERR : EXIT_OK;
}

static int build_table(validator *v, const featc_tfmd_schema *s)
{
    size_t i, j;
    v->cap = s->nfeatures + MAX_NEW_KEYS;
    for (v->nslot = 16; v->nslot < 2 * v->cap; v->nslot *= 2)
        ;
    v->keys = (vkey *)calloc(v->cap, sizeof *v->keys);
    v->slot = (uint32_t *)calloc(v->nslot, sizeof *v->slot);
    if (v->keys == NULL || v->slot == NULL)
        return -1;
    for (i = 0; i < s->nfeatures; i++) {
        const featc_tfmd_feature *c = &s->features[i];
        vkey *k = add(v, (const uint8_t *)c->name, c->name_len, c->list, c);
        if (k == NULL)
            return -1;
        if (c->nstrings > 0) {
            for (k->nstrings_slots = 16; k->nstrings_slots < 2 * c->nstrings; k->nstrings_slots *= 2)
                ;
            k->strings = (uint32_t *)calloc(k->nstrings_slots, sizeof *k->strings);
            if (k->strings == NULL)
                return -1;
            for (j = 0; j < c->nstrings; j++) {
                size_t at = (size_t)hash_bytes(c->strings[j], c->string_lens[j], 7) &
                            (k->nstrings_slots - 1);
                while (k->strings[at] != 0)
                    at = (at + 1) & (k->nstrings_slots - 1);
                k->strings[at] = (uint32_t)(j + 1);
            }
        }
    }
    return 0;
}

static int cmd_validate_with(int argc, char **argv, char **against);

/* A threshold of --linf or --jsd: a finite number >= 0. */
static int threshold_arg(const char *opt, const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    if (end == s || *end != '\0' || !(*v >= 0) || *v > 1e300)
        return cli_usage_error(&validate_cmd, "--%s=%s: a threshold is a number >= 0", opt, s);
    return 0;
}

typedef struct validating {
    validator *v;
    st_stats *stats; /* the statistics --against compares, or NULL */
} validating;

static void each_record(void *ctx, size_t file, uint64_t record, const fc_fallback *fb)
{
    validating *vr = (validating *)ctx;
    vr->v->file = file;
    vr->v->record = record;
    check_record(vr->v, fb);
    if (vr->stats != NULL)
        st_gather(vr->stats, fb);
}

static int cmd_validate_with(int argc, char **argv, char **against)
{
    fc_input_options read;
    size_t max_memory = 0, i;
    const char *schema_path = NULL, *env = NULL, *message = NULL;
    char **files;
    int opt, rc, nfiles, anomalies = 0, failed = 0, drc = EXIT_OK;
    uint64_t other = 0;
    validating vr;
    featc_tfmd_schema schema;
    validator v;
    cli_decoder d;
    vd_options vo;
    st_stats cur;
    memset(&vo, 0, sizeof vo);
    memset(&cur, 0, sizeof cur);
    memset(&read, 0, sizeof read);
    read.compression = FC_COMPRESSION_AUTO;
    memset(&v, 0, sizeof v);
    memset(&d, 0, sizeof d);
    while ((opt = cli_next_option(&validate_cmd, argc, argv, &rc)) != 0) {
        int r = 0;
        if (opt == OPT_SCHEMA)
            schema_path = optarg;
        else if (opt == OPT_ENV)
            env = optarg;
        else if (opt == OPT_MESSAGE)
            message = optarg;
        else if (opt == OPT_AGAINST)
            against[vo.nagainst++] = optarg; /* (at most argc of them) */
        else if (opt == OPT_AGAINST_STATS)
            vo.stats_path = optarg;
        else if (opt == OPT_STATS)
            vo.cur_stats = optarg;
        else if (opt == OPT_SKEW)
            vo.skew = 1;
        else if (opt == OPT_LINF || opt == OPT_JSD) {
            if (threshold_arg(opt == OPT_LINF ? "linf" : "jsd", optarg,
                              opt == OPT_LINF ? &vo.linf : &vo.jsd) != 0)
                return EXIT_USAGE_ERR;
            *(opt == OPT_LINF ? &vo.has_linf : &vo.has_jsd) = 1;
        } else if (cli_input_option(&validate_cmd, opt, optarg, &read, NULL, &max_memory, &r) &&
                 r != 0)
            return r;
    }
    if (rc >= 0)
        return rc;
    if (schema_path == NULL)
        return cli_usage_error(&validate_cmd, "--schema names the schema to validate against");
    vo.against = against;
    if (vo.nagainst > 0 && vo.stats_path != NULL)
        return cli_usage_error(&validate_cmd, "--against and --against-stats: one or the other");
    if (!vd_wanted(&vo) && (vo.skew || vo.has_linf || vo.has_jsd))
        return cli_usage_error(&validate_cmd, "--skew, --linf and --jsd compare with the data of "
                                              "--against or --against-stats");
    if (vo.cur_stats != NULL && !vd_wanted(&vo))
        return cli_usage_error(&validate_cmd, "--stats is compared with --against or "
                                              "--against-stats");
    if (vo.cur_stats != NULL && optind < argc)
        return cli_usage_error(&validate_cmd, "--stats describes the data: no FILE with it");
    if (vo.cur_stats != NULL) {
        files = NULL;
        nfiles = 0;
    } else if ((rc = cli_operands(&validate_cmd, argc, argv, &files, &nfiles)) != 0)
        return rc;
    if ((rc = read_schema(schema_path, message, env, &schema)) != EXIT_OK)
        return rc;
    d.limit = max_memory;
    cur.max_keys = 10000 + schema.nfeatures;
    if (build_table(&v, &schema) != 0) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
        goto out;
    }
    vr.v = &v;
    vr.stats = vd_wanted(&vo) && vo.cur_stats == NULL ? &cur : NULL;
    vd_read(files, nfiles, &read, &d, each_record, &vr, &failed, &other);
    for (i = 0; i < v.n; i++) {
        vkey *key = &v.keys[i];
        int a;
        if (key->c != NULL)
            presence(&v, key);
        for (a = 0; a < A_KINDS; a++)
            if (key->a[a].count > 0) {
                print_anomaly(key, anomaly_name[a], &key->a[a], files);
                anomalies++;
            }
        if (key->fresh.count > 0) {
            print_anomaly(key, "SCHEMA_NEW_COLUMN", &key->fresh, files);
            anomalies++;
        }
    }
    if (v.new_dropped > 0)
        printf("(%llu more occurrences of keys the schema does not name, past the first %d "
               "keys)\n", (unsigned long long)v.new_dropped, MAX_NEW_KEYS);
    if (vd_wanted(&vo) && failed == 0 && !v.oom)
        drc = vd_compare(&schema, &cur, &vo, &read, &d, &anomalies);
    if (anomalies == 0 && failed == 0 && drc == EXIT_OK && vo.cur_stats != NULL)
        printf("no anomalies: %zu features in the schema, compared by their statistics\n",
               schema.nfeatures);
    else if (anomalies == 0 && failed == 0 && drc == EXIT_OK)
        printf("no anomalies: %llu Examples, %llu SequenceExamples, %zu features in the schema\n",
               (unsigned long long)v.examples, (unsigned long long)v.sequences, schema.nfeatures);
    if (v.oom)
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
    else
        rc = failed > 0 || drc == EXIT_DATA_ERR                          ? EXIT_DATA_ERR
             : anomalies > 0 || other > 0 || drc == EXIT_RECORD_ERR ? EXIT_RECORD_ERR
                                                                     : EXIT_OK;
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = cli_fail(EXIT_DATA_ERR, "error writing standard output");
out:
    for (i = 0; i < v.n; i++) {
        free(v.keys[i].strings);
        if (v.keys[i].c == NULL)
            free((void *)v.keys[i].key);
    }
    free(v.keys);
    free(v.slot);
    free(d.mem);
    st_free(&cur);
    featc_tfmd_free(&schema);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    /* --against's files: optarg points into argv, which outlives them */
    char **against = (char **)malloc((size_t)(argc > 0 ? argc : 1) * sizeof *against);
    int rc;
    if (against == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    rc = cmd_validate_with(argc, argv, against);
    free(against);
    return rc;
}
