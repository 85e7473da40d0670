/* featc infer: a spec that describes TFRecord files, in the manner of
 * TFDV's schema inference.
 *
 * Every record is read with the fallback decoder (any compression), and
 * each feature key gathers: the list types it was seen with, the records it
 * is present in (a Feature{} without a list counts as absent, as TensorFlow
 * reads it), and its value counts.  For SequenceExamples the feature lists
 * gather the same per frame, plus their frame counts.  Then:
 *   - present in every record with one value count n >= 1: FixedLen (a
 *     scalar for 1, shape [n] otherwise); a list whose frames all hold n
 *     values: a fixed-shape list, `allow_missing` unless every record has it;
 *   - anything else: VarLen, bounded by the largest count seen plus headroom
 *     (the next power of two at or above 1.25 x that count), said in a
 *     comment; feature_lists get one frame bound the same way;
 *   - keys that are not usable C names get `"key" as name`;
 *   - a key seen with two list types is left out (so that the spec still
 *     reads every record) and reported on stderr: exit status 1.
 * The spec is compiled in memory before it is printed: what featc infer
 * prints, featc compile accepts.  Data beyond the spec language's limits
 * (FEATC_MAX_FEATURES keys, ...) gives the compiler's diagnostic and exit 1,
 * not a spec. */
#include "commands.h"
#include "base/progress.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>

static const char *const infer_usage =
    "usage: featc infer [options] [FILE...]\n"
    "\n"
    "Reads TFRecord files of tf.train.Example or SequenceExample records (any\n"
    "compression) and prints a spec that describes them: each feature's type,\n"
    "FixedLen with its shape when every record holds the same number of\n"
    "values, else VarLen with a bound from the data plus headroom (stated in a\n"
    "comment), context features and feature lists for SequenceExamples.  The\n"
    "output compiles with `featc compile` and reads the same files.  A key\n"
    "seen with two types is reported and left out.\n"
    "\n"
    "options:\n"
    "  -o, --output=FILE       write the spec to FILE (through a temporary file\n"
    "                          renamed over it when complete) instead of\n"
    "                          standard output\n"
    "  --package=NAME          package of the spec (default: inferred)\n"
    "  --name=NAME             name of the message (default: record)\n"
    "  --type=auto|example|sequence   how to read payloads (default auto)\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto)\n"
    "  --max-record-size=N     (default 1G)\n"
    "  --max-memory=N          most memory for decoding one record (default 1G)\n"
    PROGRESS_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 spec printed; 1 some key has conflicting types (printed\n"
    "without it), or a record is not an Example or SequenceExample, or there\n"
    "are no records, or the data needs more than a spec can declare (4096\n"
    "features per message, ...); 2 a file is unreadable or damaged; 64 usage\n"
    "error.\n";

/* What one key (a feature, a context feature, or a feature list) showed. */
typedef struct key_stats {
    uint8_t *key;
    size_t key_len;
    uint64_t records;            /* records holding it with a list (present) */
    uint64_t empty;              /* records holding only Feature{} (absent to TF) */
    uint64_t type_records[4];    /* records (or frames) per list type */
    const char *type_file[4];    /* where each type was first seen */
    uint64_t type_record[4];
    size_t count_min, count_max; /* values per record (lists: per frame) */
    double count_sum;
    uint64_t counted;
    size_t frames_min, frames_max; /* lists: frames per record */
    double frames_sum;
    char *name;                  /* the C name chosen */
} key_stats;

typedef struct key_table {
    key_stats *v;
    size_t n, cap;
    size_t *slots; /* open addressing: index + 1, 0 empty */
    size_t nslots;
} key_table;

static uint64_t hash_key(const uint8_t *k, size_t n)
{
    uint64_t h = 1469598103934665603u;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= k[i];
        h *= 1099511628211u;
    }
    return h;
}

static int table_grow(key_table *t)
{
    size_t i, ns = t->nslots ? t->nslots * 2 : 64;
    size_t *slots = (size_t *)calloc(ns, sizeof *slots);
    if (slots == NULL)
        return 0;
    for (i = 0; i < t->n; i++) {
        size_t s = (size_t)hash_key(t->v[i].key, t->v[i].key_len) & (ns - 1);
        while (slots[s] != 0)
            s = (s + 1) & (ns - 1);
        slots[s] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
    return 1;
}

/* The stats of key, added if new; NULL when out of memory. */
static key_stats *table_get(key_table *t, const uint8_t *key, size_t len)
{
    size_t s;
    key_stats *k;
    if ((t->n + 1) * 2 > t->nslots && !table_grow(t))
        return NULL;
    s = (size_t)hash_key(key, len) & (t->nslots - 1);
    while (t->slots[s] != 0) {
        k = &t->v[t->slots[s] - 1];
        if (k->key_len == len && (len == 0 || memcmp(k->key, key, len) == 0))
            return k;
        s = (s + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 32;
        key_stats *v = (key_stats *)realloc(t->v, nc * sizeof *v);
        if (v == NULL)
            return NULL;
        t->v = v;
        t->cap = nc;
    }
    k = &t->v[t->n];
    memset(k, 0, sizeof *k);
    k->key = (uint8_t *)malloc(len + 1);
    if (k->key == NULL)
        return NULL;
    if (len > 0)
        memcpy(k->key, key, len);
    k->key_len = len;
    k->count_min = SIZE_MAX;
    k->frames_min = SIZE_MAX;
    t->slots[s] = ++t->n;
    return k;
}

static void table_free(key_table *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        free(t->v[i].key);
        free(t->v[i].name);
    }
    free(t->v);
    free(t->slots);
}

static int key_cmp(const void *a, const void *b)
{
    const key_stats *x = (const key_stats *)a, *y = (const key_stats *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = n > 0 ? memcmp(x->key, y->key, n) : 0;
    return c != 0 ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* The list type and value count of a Feature; type 0 for Feature{}. */
static fc_type feature_type(const fc_fb_value *f, size_t *count)
{
    switch (f->kind) {
    case FC_FB_BYTES: *count = f->n; return FC_TYPE_BYTES;
    case FC_FB_FLOAT: *count = f->n; return FC_TYPE_FLOAT;
    case FC_FB_INT64: *count = f->n; return FC_TYPE_INT64;
    default: *count = 0; return FC_TYPE_NONE;
    }
}

static void add_count(key_stats *k, size_t n)
{
    if (n < k->count_min)
        k->count_min = n;
    if (n > k->count_max)
        k->count_max = n;
    k->count_sum += (double)n;
    k->counted++;
}

static void add_type(key_stats *k, fc_type t, const char *file, uint64_t record)
{
    if (k->type_records[t]++ == 0) {
        k->type_file[t] = file;
        k->type_record[t] = record;
    }
}

/* ------------------------------------------------------------ the spec */

static int types_seen(const key_stats *k)
{
    return (k->type_records[FC_TYPE_BYTES] > 0) + (k->type_records[FC_TYPE_FLOAT] > 0) +
           (k->type_records[FC_TYPE_INT64] > 0);
}

static fc_type the_type(const key_stats *k)
{
    return k->type_records[FC_TYPE_BYTES] > 0   ? FC_TYPE_BYTES
           : k->type_records[FC_TYPE_FLOAT] > 0 ? FC_TYPE_FLOAT
                                                : FC_TYPE_INT64;
}

/* The largest count seen plus headroom: the next power of two at or above
 * 1.25 x seen; at least 1. */
static size_t headroom(size_t seen)
{
    size_t want = seen + (seen + 3) / 4, b = 1;
    while (b < want && b <= SIZE_MAX / 2)
        b *= 2;
    return b;
}

/* The names taken, lower-cased, in an open-addressing hash set: each chosen
 * name is reserved together with the names generated from it, and compared
 * without case (generated macros are upper case). */
typedef struct names {
    char **slots;
    size_t n, nslots;
} names;

/* The slot of lower: where it is, or the empty slot where it would go. */
static size_t names_slot(const names *ns, const char *lower)
{
    size_t s = (size_t)hash_key((const uint8_t *)lower, strlen(lower)) & (ns->nslots - 1);
    while (ns->slots[s] != NULL && strcmp(ns->slots[s], lower) != 0)
        s = (s + 1) & (ns->nslots - 1);
    return s;
}

static int names_has(const names *ns, const char *lower)
{
    return ns->nslots > 0 && ns->slots[names_slot(ns, lower)] != NULL;
}

static int names_add(names *ns, const char *base, const char *suffix)
{
    size_t nb = strlen(base), nsuf = strlen(suffix), i;
    char *s;
    if ((ns->n + 1) * 2 > ns->nslots) {
        names old = *ns;
        ns->nslots = old.nslots ? old.nslots * 2 : 256;
        ns->slots = (char **)calloc(ns->nslots, sizeof *ns->slots);
        if (ns->slots == NULL) {
            *ns = old;
            return 0;
        }
        for (i = 0; i < old.nslots; i++)
            if (old.slots[i] != NULL)
                ns->slots[names_slot(ns, old.slots[i])] = old.slots[i];
        free(old.slots);
    }
    s = (char *)malloc(nb + nsuf + 1);
    if (s == NULL)
        return 0;
    memcpy(s, base, nb);
    memcpy(s + nb, suffix, nsuf + 1);
    for (i = 0; i < nb + nsuf; i++)
        s[i] = (char)tolower((unsigned char)s[i]);
    i = names_slot(ns, s);
    if (ns->slots[i] != NULL) {
        free(s);
        return 1;
    }
    ns->slots[i] = s;
    ns->n++;
    return 1;
}

static void names_free(names *ns)
{
    size_t i;
    for (i = 0; i < ns->nslots; i++)
        free(ns->slots[i]);
    free(ns->slots);
}

static const char *const derived[] = {"", "_count", "_frames", "_size", "_max", "_frames_max",
                                      "_bucket", "_hot", "_buckets", "_rank", "_dim0", "_dim1",
                                      "_dim2", "_dim3", "_dim4", "_dim5", "_dim6", "_dim7", NULL};

static int name_free(const names *ns, const char *s)
{
    size_t i;
    char buf[512];
    if (!featc_c_name_ok(s) || strlen(s) + 16 > sizeof buf)
        return 0;
    for (i = 0; derived[i] != NULL; i++) {
        char *c;
        snprintf(buf, sizeof buf, "%s%s", s, derived[i]);
        for (c = buf; *c != '\0'; c++)
            *c = (char)tolower((unsigned char)*c);
        if (names_has(ns, buf))
            return 0;
    }
    return 1;
}

static int name_take(names *ns, const char *s)
{
    size_t i;
    for (i = 0; derived[i] != NULL; i++)
        if (!names_add(ns, s, derived[i]))
            return 0;
    return 1;
}

/* A C name for key k: the key itself when it is one, else the key with
 * every other byte made '_' (runs collapsed, lower case, a letter first),
 * with _2, _3 ... until it is free. */
static char *choose_name(names *ns, const key_stats *k)
{
    size_t i, n = 0, cap = k->key_len + 24;
    char *s = (char *)malloc(cap), *out;
    if (s == NULL)
        return NULL;
    if (k->key_len > 0 && k->key_len < 200 && memchr(k->key, 0, k->key_len) == NULL) {
        memcpy(s, k->key, k->key_len);
        s[k->key_len] = '\0';
        if (name_free(ns, s))
            return name_take(ns, s) ? s : (free(s), (char *)NULL);
    }
    for (i = 0; i < k->key_len && n < 100; i++) {
        int c = k->key[i];
        if (isalnum(c) && c < 0x80)
            s[n++] = (char)tolower(c);
        else if (n > 0 && s[n - 1] != '_')
            s[n++] = '_';
    }
    while (n > 0 && s[n - 1] == '_')
        n--;
    s[n] = '\0';
    if (n == 0 || !isalpha((unsigned char)s[0])) {
        memmove(s + 2, s, n + 1);
        s[0] = 'f';
        s[1] = '_';
        n += 2;
        if (s[n - 1] == '_')
            s[--n] = '\0';
    }
    out = (char *)malloc(n + 24);
    if (out == NULL) {
        free(s);
        return NULL;
    }
    strcpy(out, s);
    for (i = 2; !name_free(ns, out); i++)
        snprintf(out, n + 24, "%s_%zu", s, i);
    free(s);
    return name_take(ns, out) ? out : (free(out), (char *)NULL);
}

/* The key as the spec writes it: bare when it is the name, else quoted. */
static void put_key(FILE *t, const key_stats *k)
{
    size_t i;
    if (strlen(k->name) == k->key_len && memcmp(k->name, k->key, k->key_len) == 0) {
        fprintf(t, "%s", k->name);
        return;
    }
    fprintf(t, "\"");
    for (i = 0; i < k->key_len; i++) {
        int c = k->key[i];
        size_t u;
        if (c == '"' || c == '\\') {
            fprintf(t, "\\%c", c);
        } else if (c >= 0x20 && c < 0x7f) {
            fprintf(t, "%c", c);
        } else if (c >= 0x80 && (u = fc_utf8_seq(k->key + i, k->key_len - i)) > 1) {
            fwrite(k->key + i, 1, u, t); /* a spec is UTF-8 text, as keys are */
            i += u - 1;
        } else {
            fprintf(t, "\\x%02x", (unsigned)c);
        }
    }
    fprintf(t, "\" as %s", k->name);
}

static const char *const type_word[4] = {"none", "bytes", "float", "int64"};

static void put_range(FILE *t, size_t lo, size_t hi, double mean, const char *unit)
{
    if (lo == hi)
        fprintf(t, "%zu %s%s", lo, unit, lo == 1 ? "" : "s");
    else
        fprintf(t, "%zu..%zu %ss (mean %.1f)", lo, hi, unit, mean);
}

static void put_presence(FILE *t, const key_stats *k, uint64_t total)
{
    if (k->records == total && total == 1)
        fprintf(t, "in the one record");
    else if (k->records == total)
        fprintf(t, "in all %llu records", (unsigned long long)total);
    else
        fprintf(t, "in %llu of %llu records", (unsigned long long)k->records,
            (unsigned long long)total);
    if (k->empty > 0)
        fprintf(t, ", Feature{} without a list in %llu", (unsigned long long)k->empty);
}

/* Reports a key with two types on stderr and in the spec; returns 1.
 * Counts are of records, or of frames for a feature list. */
static int conflict(FILE *t, const key_stats *k, const char *what, const char *indent)
{
    const char *unit = strcmp(what, "feature list") == 0 ? "frame" : "record";
    int ty, first = 1;
    fprintf(stderr, "featc: infer: %s \"%.*s\" has conflicting types:", what, (int)k->key_len,
            (const char *)k->key);
    fprintf(t, "%s// left out: %s \"", indent, what);
    fprintf(t, "%.*s\" has conflicting types:", (int)k->key_len, (const char *)k->key);
    for (ty = 1; ty <= 3; ty++) {
        if (k->type_records[ty] == 0)
            continue;
        const char *plural = k->type_records[ty] == 1 ? "" : "s";
        fprintf(stderr, "%s %s in %llu %s%s (first: %s record %llu)", first ? "" : ",",
                type_word[ty], (unsigned long long)k->type_records[ty], unit, plural,
                k->type_file[ty], (unsigned long long)k->type_record[ty]);
        fprintf(t, "%s %s in %llu %s%s", first ? "" : ",", type_word[ty],
            (unsigned long long)k->type_records[ty], unit, plural);
        first = 0;
    }
    fprintf(stderr, "; left out of the spec\n");
    fprintf(t, "\n");
    return 1;
}

/* One feature (Example or context): returns 1 when left out for a conflict. */
static int put_feature(FILE *t, const key_stats *k, uint64_t total, const char *indent)
{
    fc_type ty = the_type(k);
    double mean = k->counted ? k->count_sum / (double)k->counted : 0;
    if (types_seen(k) > 1)
        return conflict(t, k, "feature", indent);
    fprintf(t, "%s", indent);
    put_key(t, k);
    if (types_seen(k) == 0) {
        /* any VarLen reads Feature{} as empty; bytes holds any value */
        fprintf(t, " : bytes[] max 1;  // only ever Feature{} without a list (%llu records): "
                     "its type is unknown; read as an empty VarLen\n",
                (unsigned long long)k->empty);
        return 0;
    }
    if (k->records == total && k->count_min == k->count_max && k->count_min >= 1) {
        if (k->count_min == 1)
            fprintf(t, " : %s;  // FixedLen: 1 value ", type_word[ty]);
        else
            fprintf(t, " : %s[%zu];  // FixedLen: %zu values ", type_word[ty], k->count_min,
                k->count_min);
    } else {
        fprintf(t, " : %s[] max %zu;  // VarLen: ", type_word[ty], headroom(k->count_max));
        put_range(t, k->count_min, k->count_max, mean, "value");
        fprintf(t, " ");
    }
    put_presence(t, k, total);
    if (!(k->records == total && k->count_min == k->count_max && k->count_min >= 1))
        fprintf(t, "; max %zu = the largest seen (%zu) plus headroom", headroom(k->count_max),
            k->count_max);
    fprintf(t, "\n");
    return 0;
}

static int put_list(FILE *t, const key_stats *k, uint64_t total)
{
    fc_type ty = the_type(k);
    double mean = k->counted ? k->count_sum / (double)k->counted : 0;
    int fixed;
    if (types_seen(k) > 1)
        return conflict(t, k, "feature list", "    ");
    fixed = types_seen(k) == 1 && k->type_records[FC_TYPE_NONE] == 0 &&
            k->count_min == k->count_max && k->count_min >= 1;
    fprintf(t, "    ");
    put_key(t, k);
    if (types_seen(k) == 0) {
        /* frames that are all Feature{} or lists with no frames: a VarLen
         * list, which reads both as empty */
        fprintf(t, " : bytes[] max 1;  // no typed frame seen: its type is unknown; read as "
                     "empty VarLen frames; ");
    } else if (fixed) {
        if (k->count_min == 1)
            fprintf(t, " : %s", type_word[ty]);
        else
            fprintf(t, " : %s[%zu]", type_word[ty], k->count_min);
        fprintf(t, "%s;  // %zu value%s per frame; ", k->records == total ? "" : " allow_missing",
            k->count_min, k->count_min == 1 ? "" : "s");
    } else {
        fprintf(t, " : %s[] max %zu;  // VarLen frames: ", type_word[ty], headroom(k->count_max));
        put_range(t, k->count_min, k->count_max, mean, "value");
        fprintf(t, " per frame (max %zu with headroom); ", headroom(k->count_max));
    }
    if (k->records > 0)
        put_range(t, k->frames_min, k->frames_max, k->frames_sum / (double)k->records, "frame");
    else
        fprintf(t, "no frames");
    fprintf(t, " ");
    put_presence(t, k, total);
    fprintf(t, "\n");
    return 0;
}

/* ------------------------------------------------------------ the command */

typedef struct infer_opts {
    fc_input_options read;
    const char *package;
    const char *name;
    const char *output; /* -o; NULL: standard output */
    fc_payload_kind type;
    size_t max_memory; /* cli_decoder's limit */
    int progress;      /* PROGRESS_* */
    int nfiles;
    char **files;
} infer_opts;

static const struct option infer_long[] = {
    {"package", required_argument, NULL, CLI_OPT_PACKAGE},
    {"name", required_argument, NULL, CLI_OPT_NAME},
    {"output", required_argument, NULL, 'o'},
    CLI_TYPE_OPTION, CLI_MEMORY_OPTION, CLI_INPUT_OPTIONS, PROGRESS_OPTIONS,
    CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
static const cli_command infer_cmd = {"infer", infer_usage, "c:hqo:", infer_long};

/* Returns 0 to go on, else the exit status (help and version: 0 after
 * *done is set). */
static int parse_opts(int argc, char **argv, infer_opts *o, int *done)
{
    int opt, rc;
    memset(o, 0, sizeof *o);
    o->read.compression = FC_COMPRESSION_AUTO;
    o->read.crc_policy = FC_CRC_VERIFY;
    o->package = "inferred";
    o->name = "record";
    o->type = FC_PAYLOAD_AUTO;
    *done = 0;
    while ((opt = cli_next_option(&infer_cmd, argc, argv, &rc)) != 0) {
        int r;
        if (cli_input_option(&infer_cmd, opt, optarg, &o->read, &o->type, &o->max_memory, &r)) {
            if (r != 0)
                return r;
        } else if (opt == 'o') {
            o->output = optarg;
        } else if (opt == 'q') {
            o->progress = PROGRESS_QUIET;
        } else if (opt == CLI_OPT_PROGRESS) {
            o->progress = PROGRESS_FORCE;
        } else if (opt == CLI_OPT_PACKAGE) {
            if (!featc_c_name_ok(optarg))
                return cli_usage_error(&infer_cmd, "package name '%s' is not a usable C name",
                                       optarg);
            o->package = optarg;
        } else if (opt == CLI_OPT_NAME) {
            if (!featc_c_name_ok(optarg))
                return cli_usage_error(&infer_cmd, "message name '%s' is not a usable C name",
                                       optarg);
            o->name = optarg;
        }
    }
    if (rc >= 0) {
        *done = 1;
        return rc;
    }
    return cli_operands(&infer_cmd, argc, argv, &o->files, &o->nfiles);
}

typedef struct gathered {
    key_table features; /* Example features, or SequenceExample context */
    key_table lists;
    uint64_t records, sequences;
    uint64_t *file_records;
    const char **file_compression;
} gathered;

/* One decoded record into the tables; 0 when out of memory. */
static int gather(gathered *g, const fc_fallback *fb, const char *file, uint64_t index)
{
    size_t i, f;
    for (i = 0; i < fb->n_features; i++) {
        const fc_fb_feature *e = &fb->features[i];
        key_stats *k = table_get(&g->features, e->key, e->key_len);
        size_t n;
        fc_type t;
        if (k == NULL)
            return 0;
        t = feature_type(e->value, &n);
        if (t == FC_TYPE_NONE) {
            k->empty++;
            continue;
        }
        k->records++;
        add_type(k, t, file, index);
        add_count(k, n);
    }
    for (i = 0; i < fb->n_feature_lists; i++) {
        const fc_fb_feature_list *e = &fb->feature_lists[i];
        const fc_fb_feature_list *fl = e;
        key_stats *k = table_get(&g->lists, e->key, e->key_len);
        if (k == NULL)
            return 0;
        k->records++;
        if (fl->n_frames < k->frames_min)
            k->frames_min = fl->n_frames;
        if (fl->n_frames > k->frames_max)
            k->frames_max = fl->n_frames;
        k->frames_sum += (double)fl->n_frames;
        for (f = 0; f < fl->n_frames; f++) {
            size_t n;
            fc_type t = feature_type(&fl->frames[f], &n);
            add_type(k, t, file, index);
            add_count(k, n);
        }
    }
    return 1;
}

/* The spec text; conflicts counted in *left_out.  -1 when memory ran out. */
static int write_spec(FILE *t, gathered *g, const infer_opts *o, int *left_out)
{
    names ns;
    size_t i, frames_max = 0;
    int k;
    memset(&ns, 0, sizeof ns);
    /* qsort's array may not be NULL, even for 0 elements (an Example file
     * has no feature lists) */
    if (g->features.n > 0)
        qsort(g->features.v, g->features.n, sizeof *g->features.v, key_cmp);
    if (g->lists.n > 0)
        qsort(g->lists.v, g->lists.n, sizeof *g->lists.v, key_cmp);
    free(g->features.slots); /* the order changed: no more lookups */
    free(g->lists.slots);
    g->features.slots = g->lists.slots = NULL;
    {
        static const char *const fixed_names[] = {"present", "field_count", "present_words",
                                                  "batch_bytes", "context_count", "list_count",
                                                  NULL};
        for (k = 0; fixed_names[k] != NULL; k++)
            names_add(&ns, fixed_names[k], "");
    }
    for (i = 0; i < g->features.n; i++)
        g->features.v[i].name = choose_name(&ns, &g->features.v[i]);
    for (i = 0; i < g->lists.n; i++) {
        g->lists.v[i].name = choose_name(&ns, &g->lists.v[i]);
        if (g->lists.v[i].records > 0 && g->lists.v[i].frames_max > frames_max)
            frames_max = g->lists.v[i].frames_max;
    }
    names_free(&ns);
    for (i = 0; i < g->features.n; i++)
        if (g->features.v[i].name == NULL)
            return -1;
    for (i = 0; i < g->lists.n; i++)
        if (g->lists.v[i].name == NULL)
            return -1;

    fprintf(t, "// Inferred by featc infer from %llu record%s of %d file%s:\n",
        (unsigned long long)g->records, g->records == 1 ? "" : "s", o->nfiles,
        o->nfiles == 1 ? "" : "s");
    for (k = 0; k < o->nfiles; k++) {
        const char *base = strrchr(o->files[k], '/');
        fprintf(t, "//   %s (%llu records, %s)\n", base != NULL ? base + 1 : o->files[k],
            (unsigned long long)g->file_records[k], g->file_compression[k]);
    }
    fprintf(t, "// A feature present in every record with one value count is FixedLen\n"
                 "// with that shape; any other is VarLen, bounded by the largest count seen\n"
                 "// plus headroom (the next power of two at or above 1.25 x that count).\n"
                 "package %s;\n\n",
        o->package);
    if (g->sequences == 0 && o->type != FC_PAYLOAD_SEQUENCE_EXAMPLE) {
        fprintf(t, "example %s {\n", o->name);
        for (i = 0; i < g->features.n; i++)
            *left_out += put_feature(t, &g->features.v[i], g->records, "  ");
        fprintf(t, "}\n");
        return 0;
    }
    fprintf(t, "sequence_example %s {\n", o->name);
    if (g->features.n > 0) {
        fprintf(t, "  context {\n");
        for (i = 0; i < g->features.n; i++)
            *left_out += put_feature(t, &g->features.v[i], g->records, "    ");
        fprintf(t, "  }\n");
    }
    if (g->lists.n > 0) {
        fprintf(t, "  feature_lists max %zu {  // up to %zu frames seen in a list; max %zu "
                   "with headroom\n",
                headroom(frames_max), frames_max, headroom(frames_max));
        for (i = 0; i < g->lists.n; i++)
            *left_out += put_list(t, &g->lists.v[i], g->records);
        fprintf(t, "  }\n");
    }
    fprintf(t, "}\n");
    return 0;
}

/* The spec of o's files in *text (*text_len bytes, the caller frees it),
 * compiled once to be sure; features left out for conflicts counted in
 * *left_out.  The exit status, the errors printed. */
static int infer_run(const infer_opts *opts, char **text_out, size_t *text_len_out,
                     int *left_out_out)
{
    infer_opts o = *opts;
    gathered g;
    cli_decoder d;
    progress pg;
    char *text = NULL;
    size_t text_len = 0;
    int rc = EXIT_OK, k, left_out = 0;
    progress_start(&pg, "infer", o.files, o.nfiles, o.progress, 0);
    memset(&g, 0, sizeof g);
    memset(&d, 0, sizeof d);
    d.limit = o.max_memory;
    g.file_records = (uint64_t *)calloc((size_t)o.nfiles, sizeof *g.file_records);
    g.file_compression = (const char **)calloc((size_t)o.nfiles, sizeof *g.file_compression);
    if (g.file_records == NULL || g.file_compression == NULL)
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
    for (k = 0; rc == EXIT_OK && k < o.nfiles; k++) {
        const char *path = o.files[k];
        fc_input in;
        fc_record rec;
        int s = fc_input_open(&in, path, &o.read);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            fc_fallback fb;
            fc_error perr;
            fc_status ds;
            fc_error_clear(&perr);
            progress_record(&pg, fc_reader_raw_offset(&in.reader));
            ds = cli_decode(&d, &rec, o.type, 0, &fb, &perr);
            if (ds != FC_OK)
                progress_clear(&pg);
            if (ds == FC_ERR_NO_MEMORY) {
                fprintf(stderr, "featc: %s: record %llu: %s\n", path, (unsigned long long)rec.index,
                        perr.message);
                rc = EXIT_RECORD_ERR;
                break;
            } else if (ds != FC_OK) {
                fprintf(stderr, "featc: %s: record %llu: %s: nothing is inferred from a file "
                                "that is not all Examples or SequenceExamples\n",
                        path, (unsigned long long)rec.index, perr.message);
                rc = EXIT_RECORD_ERR;
                break;
            }
            if (fb.kind == FC_PAYLOAD_SEQUENCE_EXAMPLE)
                g.sequences++;
            g.records++;
            g.file_records[k]++;
            if (!gather(&g, &fb, path, rec.index)) {
                rc = cli_fail(EXIT_DATA_ERR, "out of memory");
                break;
            }
            if (g.features.n + g.lists.n > FEATC_MAX_FEATURES) {
                /* no spec can declare them: stop now, not after the whole input */
                progress_clear(&pg);
                fprintf(stderr, "featc: %s: record %llu: the records so far have %zu distinct "
                                "feature keys, more than a message can declare (%d): nothing "
                                "is inferred\n",
                        path, (unsigned long long)rec.index, g.features.n + g.lists.n,
                        FEATC_MAX_FEATURES);
                rc = EXIT_RECORD_ERR;
                break;
            }
        }
        progress_clear(&pg);
        progress_file_done(&pg, fc_reader_raw_offset(&in.reader));
        g.file_compression[k] = "?";
        if (s == FC_END)
            g.file_compression[k] = fc_compression_name(fc_reader_compression(&in.reader));
        if (rc == EXIT_OK && s != FC_END) {
            fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
            rc = EXIT_DATA_ERR;
        }
        fc_input_close(&in);
    }
    progress_end(&pg);
    if (rc == EXIT_OK && g.records == 0) {
        fprintf(stderr, "featc: infer: no records in the input: nothing to infer\n");
        rc = EXIT_RECORD_ERR;
    } else if (rc == EXIT_OK && g.features.n == 0 && g.lists.n == 0) {
        fprintf(stderr,
                "featc: infer: none of the %llu records has a feature: nothing to infer (a spec "
                "declares at least one)\n",
                (unsigned long long)g.records);
        rc = EXIT_RECORD_ERR;
    }
    if (rc == EXIT_OK) {
        FILE *t = open_memstream(&text, &text_len);
        int bad = t == NULL || write_spec(t, &g, &o, &left_out) != 0;
        if (t != NULL && (ferror(t) | fclose(t)) != 0)
            bad = 1;
        if (bad)
            rc = cli_fail(EXIT_DATA_ERR, "out of memory");
    }
    if (rc == EXIT_OK) {
        /* what featc infer prints, featc compile accepts: checked here */
        featc_options co = FEATC_OPTIONS_INIT;
        int errors;
        co.spec_name = "<inferred spec>";
        co.diag = cli_print_diagnostic;
        errors = featc_compile(text, text_len, &co, NULL);
        if (errors != 0) {
            /* the diagnostics above quote the lines at fault */
            rc = cli_fail(EXIT_RECORD_ERR,
                          "infer: the spec that describes these files does not compile "
                          "(above): the data needs more than a spec can declare (%d features "
                          "per message, %u values per feature, %u MiB per struct), or this is "
                          "a bug in featc infer",
                          FEATC_MAX_FEATURES, FEATC_MAX_ELEMENTS, FEATC_MAX_STORAGE >> 20);
        }
    }
    free(d.mem);
    table_free(&g.features);
    table_free(&g.lists);
    free(g.file_records);
    free(g.file_compression);
    if (rc != EXIT_OK) {
        free(text);
        text = NULL;
    }
    *text_out = text;
    *text_len_out = text_len;
    *left_out_out = left_out;
    return rc;
}

int cmd_infer(int argc, char **argv)
{
    infer_opts o;
    char *text = NULL;
    size_t text_len = 0;
    int done, rc = parse_opts(argc, argv, &o, &done), left_out = 0;
    if (rc != 0 || done)
        return rc;
    rc = infer_run(&o, &text, &text_len, &left_out);
    if (rc == EXIT_OK) {
        if (o.output != NULL) {
            rc = cli_write_file(o.output, text, text_len);
            if (rc == EXIT_OK && left_out > 0)
                rc = EXIT_RECORD_ERR;
        } else {
            fwrite(text, 1, text_len, stdout);
            if (fflush(stdout) != 0 || ferror(stdout))
                rc = cli_fail(EXIT_DATA_ERR, "error writing standard output");
            else if (left_out > 0)
                rc = EXIT_RECORD_ERR;
        }
    }
    free(text);
    return rc;
}

int cli_infer_spec(char **files, int nfiles, const fc_input_options *read, int progress_mode,
                   char **text, size_t *len)
{
    infer_opts o;
    int left_out = 0, rc;
    memset(&o, 0, sizeof o);
    o.read = *read;
    o.package = "inferred";
    o.name = "record";
    o.type = FC_PAYLOAD_AUTO;
    o.progress = progress_mode;
    o.files = files;
    o.nfiles = nfiles;
    rc = infer_run(&o, text, len, &left_out);
    if (rc == EXIT_OK && left_out > 0) {
        free(*text);
        *text = NULL;
        rc = cli_fail(EXIT_RECORD_ERR,
                      "%d feature%s of these files ha%s no one type or shape a spec can "
                      "declare (featc infer says which, in its comments): give a spec with "
                      "--spec",
                      left_out, left_out == 1 ? "" : "s", left_out == 1 ? "s" : "ve");
    }
    return rc;
}
