/* featc import --tfmd: a TensorFlow Metadata Schema (schema.pbtxt) as a
 * featc spec, read as TFXIO reads it (tfx-bsl's "schema interpretation",
 * tensorflow_transform's schema_utils), so that a pipeline's schema gets
 * the generated C parser of the same tensors:
 *
 *   Feature with a fixed shape (every dim >= 0)  FixedLen, required: TFXIO
 *                          requires presence.min_fraction 1 for it
 *   Feature without one    VarLen, `max` from value_count.max (else the
 *                          --max-values bound, with a warning); a
 *                          RaggedFeature without partitions when the schema
 *                          says represent_variable_length_as_ragged
 *   SparseFeature          sparse, the size from dense_shape or from the
 *                          index features' int_domain [0, max]; its index
 *                          and value features are not features of their own
 *   TensorRepresentation (group "")  dense_tensor: FixedLen with its
 *                          default_value; varlen_sparse_tensor: VarLen;
 *                          sparse_tensor: sparse; ragged_tensor: ragged with
 *                          row_length / uniform_row_length partitions; the
 *                          features they read are not features of their own
 *   STRUCT "##SEQUENCE##"  a sequence_example: its struct_domain features
 *                          are the feature lists (VarLen frames, as TFXIO's
 *                          RaggedFeature [frames, values]), the rest context
 *
 * Deprecated features and those of lifecycle stages TFXIO leaves out
 * (DEPRECATED, PLANNED, ALPHA, DEBUG_ONLY) are left out, with a comment;
 * with an environment, so are the features not in it (TFMD's rule: in it
 * when it is in in_environment or default_environment, and not in
 * not_in_environment).  Presence, value counts and domains become comments
 * above each feature.  Fields TFMD does not have are warnings, passed over;
 * known fields featc has no use for are passed over silently. */
#include "pbtxt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TYPE_UNKNOWN, TYPE_BYTES, TYPE_INT, TYPE_FLOAT, TYPE_STRUCT };

/* One Feature of the schema, as read. */
typedef struct feat {
    const pt_field *msg;
    const char *name; /* NUL-terminated; name_len may include NULs */
    size_t name_len;
    int type;
    int has_shape, shape_ok;
    size_t rank;
    long long dims[8];
    int has_count;
    long long count_min, count_max;
    int has_counts; /* value_counts */
    int has_presence, has_min_fraction, has_min_count;
    double min_fraction;
    long long min_count;
    int has_int_domain;
    long long int_min, int_max;
    int has_int_min, has_int_max;
    const pt_field *domain; /* the domain_info field, for the comment */
    const pt_field *struct_domain;
    const char *skip; /* why it is left out, or NULL */
    int used;         /* read by a SparseFeature or a representation */
} feat;

typedef struct importer {
    pool *p;
    diag *d;
    const featc_import_options *io;
    sbuf *out;
    const pt_field *schema;
    feat *feats;
    size_t nfeats;
    feat *lists; /* ##SEQUENCE##'s struct_domain */
    size_t nlists;
    int ragged_varlen; /* represent_variable_length_as_ragged */
    const char *indent; /* of a feature line: in an example, or in a context */
    size_t written;     /* features written */
    /* C names given so far (uniqueness) */
    const char **names;
    size_t nnames, names_cap;
} importer;

/* ------------------------------------------------------------ fields */

typedef struct known {
    const char *message;
    const char *fields; /* space-separated */
} known;

/* The fields of each TFMD message this reads (schema.proto, path.proto);
 * a message not here is passed over whole. */
static const known KNOWN[] = {
    {"Schema", "feature sparse_feature weighted_feature string_domain float_domain int_domain "
               "default_environment represent_variable_length_as_ragged annotation "
               "dataset_constraints tensor_representation_group"},
    {"Feature", "name deprecated presence group_presence shape value_count value_counts type "
                "domain int_domain float_domain string_domain bool_domain struct_domain "
                "natural_language_domain image_domain audio_domain video_domain "
                "content_chunk_domain mid_domain url_domain time_domain time_of_day_domain "
                "distribution_constraints annotation skew_comparator drift_comparator "
                "in_environment not_in_environment lifecycle_stage unique_constraints "
                "validation_derived_source sequence_metadata"},
    {"SparseFeature", "name deprecated lifecycle_stage presence dense_shape index_feature "
                      "is_sorted value_feature type"},
    {"FeaturePresence", "min_fraction min_count"},
    {"FixedShape", "dim"},
    {"Dim", "size name"},
    {"ValueCount", "min max"},
    {"ValueCountList", "value_count"},
    {"IntDomain", "name min max is_categorical"},
    {"StructDomain", "feature sparse_feature"},
    {"IndexFeature", "name"},
    {"ValueFeature", "name"},
    {"TensorRepresentationGroup", "tensor_representation"},
    {"MapEntry", "key value"},
    {"TensorRepresentation", "dense_tensor varlen_sparse_tensor sparse_tensor ragged_tensor"},
    {"DenseTensor", "column_name shape default_value"},
    {"DefaultValue", "float_value int_value bytes_value uint_value"},
    {"VarLenSparseTensor", "column_name"},
    {"SparseTensor", "dense_shape index_column_names value_column_name already_sorted"},
    {"RaggedTensor", "feature_path partition row_partition_dtype"},
    {"Partition", "uniform_row_length row_length"},
    {"Path", "step"},
};

static int word_in(const char *list, const char *w)
{
    size_t n = strlen(w);
    const char *p = list;
    while ((p = strstr(p, w)) != NULL) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

/* Warns about each field of m that `message` does not have. */
static void check_fields(importer *im, const pt_field *m, const char *message)
{
    const pt_field *f;
    size_t i;
    for (i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (strcmp(KNOWN[i].message, message) == 0)
            break;
    if (i == sizeof KNOWN / sizeof KNOWN[0])
        return;
    for (f = m->fields; f != NULL; f = f->next)
        if (!word_in(KNOWN[i].fields, f->name))
            fcc_diag_warning(im->d, f->loc, "%s has no field '%s' in TensorFlow Metadata's "
                             "schema.proto: passed over", message, f->name);
}

static const pt_field *get(const pt_field *m, const char *name)
{
    const pt_field *f, *last = NULL;
    if (m == NULL || m->kind != PT_MESSAGE)
        return NULL;
    for (f = m->fields; f != NULL; f = f->next)
        if (strcmp(f->name, name) == 0)
            last = f; /* the text format keeps the last of a singular field */
    return last;
}

static const pt_field *get_message(importer *im, const pt_field *m, const char *name,
                                   const char *message)
{
    const pt_field *f = get(m, name);
    if (f == NULL)
        return NULL;
    if (f->kind != PT_MESSAGE) {
        fcc_diag_error(im->d, f->vloc, "%s: expected a message ({ ... })", name);
        return NULL;
    }
    check_fields(im, f, message);
    return f;
}

/* An integer value; 0 after an error. */
static int as_int(importer *im, const pt_field *f, long long *v)
{
    char buf[64];
    char *end;
    long long x;
    unsigned long long u;
    if (f->kind != PT_NUMBER || f->len == 0 || f->len >= sizeof buf) {
        fcc_diag_error(im->d, f->vloc, "%s: expected an integer", f->name);
        return 0;
    }
    memcpy(buf, f->text, f->len);
    buf[f->len] = '\0';
    errno = 0;
    u = strtoull(buf, &end, 0);
    if (*end != '\0' || errno != 0 || buf[0] == '-' ||
        u > (f->neg ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX)) {
        fcc_diag_error(im->d, f->vloc, "%s: expected an integer that fits int64", f->name);
        return 0;
    }
    x = f->neg ? (u == (unsigned long long)INT64_MAX + 1 ? INT64_MIN : -(long long)u)
               : (long long)u;
    *v = x;
    return 1;
}

static int as_double(importer *im, const pt_field *f, double *v)
{
    char buf[80];
    char *end;
    size_t n = f->len;
    if (f->kind == PT_IDENT && (strcmp(f->text, "inf") == 0 || strcmp(f->text, "infinity") == 0 ||
                                strcmp(f->text, "nan") == 0)) {
        n = 0;
    } else if (f->kind != PT_NUMBER || n == 0 || n >= sizeof buf) {
        fcc_diag_error(im->d, f->vloc, "%s: expected a number", f->name);
        return 0;
    }
    if (n == 0) {
        *v = f->text[0] == 'n' ? 0.0 / 0.0 : (f->neg ? -1.0 : 1.0) / 0.0;
        return 1;
    }
    memcpy(buf, f->text, n);
    if (buf[n - 1] == 'f' || buf[n - 1] == 'F') /* a float suffix */
        n--;
    buf[n] = '\0';
    *v = strtod(buf, &end);
    if (*end != '\0' || n == 0) {
        fcc_diag_error(im->d, f->vloc, "%s: expected a number", f->name);
        return 0;
    }
    if (f->neg)
        *v = -*v;
    return 1;
}

static int as_bool(importer *im, const pt_field *f)
{
    if ((f->kind == PT_IDENT && (strcmp(f->text, "true") == 0 || strcmp(f->text, "True") == 0 ||
                                 strcmp(f->text, "t") == 0)) ||
        (f->kind == PT_NUMBER && strcmp(f->text, "1") == 0))
        return 1;
    if ((f->kind == PT_IDENT && (strcmp(f->text, "false") == 0 || strcmp(f->text, "False") == 0 ||
                                 strcmp(f->text, "f") == 0)) ||
        (f->kind == PT_NUMBER && strcmp(f->text, "0") == 0))
        return 0;
    fcc_diag_error(im->d, f->vloc, "%s: expected true or false", f->name);
    return 0;
}

static int is_string(importer *im, const pt_field *f)
{
    if (f->kind == PT_STRING)
        return 1;
    fcc_diag_error(im->d, f->vloc, "%s: expected a string", f->name);
    return 0;
}

/* An enum field: its value's name, or its number's name in names[]. */
static const char *as_enum(importer *im, const pt_field *f, const char *const *names, size_t n)
{
    long long v;
    size_t i;
    if (f->kind == PT_IDENT && !f->neg) {
        for (i = 0; i < n; i++)
            if (names[i] != NULL && strcmp(names[i], f->text) == 0)
                return names[i];
    } else if (f->kind == PT_NUMBER && as_int(im, f, &v)) {
        if (v >= 0 && (unsigned long long)v < n && names[v] != NULL)
            return names[v];
    }
    fcc_diag_error(im->d, f->vloc, "%s: not a value of its enum", f->name);
    return NULL;
}

static const char *const FEATURE_TYPES[] = {"TYPE_UNKNOWN", "BYTES", "INT", "FLOAT", "STRUCT"};
static const char *const STAGES[] = {"UNKNOWN_STAGE", "PLANNED", "ALPHA", "BETA", "PRODUCTION",
                                     "DEPRECATED", "DEBUG_ONLY", "DISABLED", NULL,
                                     "VALIDATION_DERIVED"};
static const char *const PARTITION_DTYPES[] = {"UNSPECIFIED", "INT64", "INT32"};

/* ------------------------------------------------------------ reading */

static int read_shape(importer *im, const pt_field *shape, size_t *rank, long long *dims, int *ok)
{
    const pt_field *dim;
    *rank = 0;
    *ok = 1;
    for (dim = shape->fields; dim != NULL; dim = dim->next) {
        const pt_field *size;
        long long v = 0;
        if (strcmp(dim->name, "dim") != 0)
            continue;
        if (dim->kind != PT_MESSAGE) {
            fcc_diag_error(im->d, dim->vloc, "dim: expected a message ({ size: N })");
            return 0;
        }
        check_fields(im, dim, "Dim");
        size = get(dim, "size");
        if (size != NULL && !as_int(im, size, &v))
            return 0;
        if (*rank == 8) {
            fcc_diag_error(im->d, dim->loc, "a shape of more than 8 dimensions");
            return 0;
        }
        if (v < 0)
            *ok = 0; /* not a fixed shape */
        dims[(*rank)++] = v;
    }
    return 1;
}

static int in_environment(importer *im, const pt_field *m)
{
    const char *env = im->io->environment;
    const pt_field *f;
    int in = 0;
    if (env == NULL)
        return 1;
    for (f = im->schema->fields; f != NULL; f = f->next)
        if (strcmp(f->name, "default_environment") == 0 && f->kind == PT_STRING &&
            strcmp(f->text, env) == 0)
            in = 1;
    for (f = m->fields; f != NULL; f = f->next) {
        if (f->kind != PT_STRING)
            continue;
        if (strcmp(f->name, "in_environment") == 0 && strcmp(f->text, env) == 0)
            in = 1;
        if (strcmp(f->name, "not_in_environment") == 0 && strcmp(f->text, env) == 0)
            return 0;
    }
    return in;
}

/* Reads Feature m into ft; 0 after an error. */
static int read_feature(importer *im, const pt_field *m, feat *ft)
{
    const pt_field *f;
    static const char *const domains[] = {
        "domain", "int_domain", "float_domain", "string_domain", "bool_domain",
        "natural_language_domain", "image_domain", "audio_domain", "video_domain",
        "content_chunk_domain", "mid_domain", "url_domain", "time_domain",
        "time_of_day_domain"};
    size_t i;
    memset(ft, 0, sizeof *ft);
    ft->msg = m;
    if (m->kind != PT_MESSAGE) {
        fcc_diag_error(im->d, m->vloc, "%s: expected a message ({ ... })", m->name);
        return 0;
    }
    check_fields(im, m, "Feature");
    f = get(m, "name");
    if (f == NULL) {
        fcc_diag_error(im->d, m->loc, "a feature without a name");
        return 0;
    }
    if (!is_string(im, f))
        return 0;
    ft->name = f->text;
    ft->name_len = f->len;
    if ((f = get(m, "type")) != NULL) {
        const char *t = as_enum(im, f, FEATURE_TYPES, 5);
        if (t == NULL)
            return 0;
        for (i = 0; i < 5; i++)
            if (t == FEATURE_TYPES[i])
                ft->type = (int)i;
    }
    if ((f = get(m, "deprecated")) != NULL && as_bool(im, f))
        ft->skip = "deprecated";
    if ((f = get(m, "lifecycle_stage")) != NULL) {
        const char *st = as_enum(im, f, STAGES, sizeof STAGES / sizeof STAGES[0]);
        if (st == NULL)
            return 0;
        if (strcmp(st, "DEPRECATED") == 0 || strcmp(st, "PLANNED") == 0 ||
            strcmp(st, "ALPHA") == 0 || strcmp(st, "DEBUG_ONLY") == 0)
            ft->skip = st;
    }
    if (ft->skip == NULL && !in_environment(im, m))
        ft->skip = "environment";
    if ((f = get_message(im, m, "presence", "FeaturePresence")) != NULL) {
        const pt_field *x;
        ft->has_presence = 1;
        if ((x = get(f, "min_fraction")) != NULL &&
            !(ft->has_min_fraction = as_double(im, x, &ft->min_fraction)))
            return 0;
        if ((x = get(f, "min_count")) != NULL && !(ft->has_min_count = as_int(im, x, &ft->min_count)))
            return 0;
    }
    if ((f = get_message(im, m, "shape", "FixedShape")) != NULL) {
        ft->has_shape = 1;
        if (!read_shape(im, f, &ft->rank, ft->dims, &ft->shape_ok))
            return 0;
    }
    if ((f = get_message(im, m, "value_count", "ValueCount")) != NULL) {
        const pt_field *x;
        ft->has_count = 1;
        ft->count_min = 0;
        ft->count_max = -1;
        if ((x = get(f, "min")) != NULL && !as_int(im, x, &ft->count_min))
            return 0;
        if (x != NULL && ft->count_min < 0) {
            fcc_diag_error(im->d, x->vloc, "value_count.min %lld: a count is not negative",
                           ft->count_min);
            return 0;
        }
        if ((x = get(f, "max")) != NULL && !as_int(im, x, &ft->count_max))
            return 0;
        if (x != NULL && (ft->count_max < 0 || ft->count_max < ft->count_min)) {
            fcc_diag_error(im->d, x->vloc, "value_count.max %lld: %s", ft->count_max,
                           ft->count_max < 0 ? "a count is not negative" : "less than its min");
            return 0;
        }
    }
    if (get_message(im, m, "value_counts", "ValueCountList") != NULL)
        ft->has_counts = 1;
    if ((f = get_message(im, m, "int_domain", "IntDomain")) != NULL) {
        const pt_field *x;
        ft->has_int_domain = 1;
        if ((x = get(f, "min")) != NULL && !(ft->has_int_min = as_int(im, x, &ft->int_min)))
            return 0;
        if ((x = get(f, "max")) != NULL && !(ft->has_int_max = as_int(im, x, &ft->int_max)))
            return 0;
    }
    for (i = 0; i < sizeof domains / sizeof domains[0]; i++)
        if ((f = get(m, domains[i])) != NULL)
            ft->domain = f;
    ft->struct_domain = get_message(im, m, "struct_domain", "StructDomain");
    return 1;
}

static feat *find(feat *fs, size_t n, const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (fs[i].name_len == len && memcmp(fs[i].name, name, len) == 0)
            return &fs[i];
    return NULL;
}

/* ------------------------------------------------------------ writing */

/* A spec string literal of s[0..n). */
static void put_literal(sbuf *b, const char *s, size_t n)
{
    fcc_sb_quoted(b, s, n, 0);
}

/* A C name for key, unique in the spec: the key when it is one, else its
 * letters and digits with '_' for the rest (f_ before a leading digit),
 * then _2, _3 ... on a clash. */
static const char *c_name(importer *im, const char *key, size_t len)
{
    char buf[96];
    size_t i, k = 0, n;
    int tries;
    for (i = 0; i < len && k < 80; i++) {
        char c = key[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (k == 0 && c >= '0' && c <= '9') {
            buf[k++] = 'f';
            buf[k++] = '_';
        }
        if (ok)
            buf[k++] = c;
        else if (k > 0 && buf[k - 1] != '_')
            buf[k++] = '_';
    }
    while (k > 0 && buf[k - 1] == '_')
        k--;
    if (k == 0) {
        memcpy(buf, "feature", 7);
        k = 7;
    }
    buf[k] = '\0';
    if (!featc_c_name_ok(buf)) {
        memmove(buf + 2, buf, k + 1);
        buf[0] = 'f';
        buf[1] = '_';
        k += 2;
    }
    n = k;
    for (tries = 2;; tries++) {
        for (i = 0; i < im->nnames; i++)
            if (strcmp(im->names[i], buf) == 0)
                break;
        if (i == im->nnames)
            break;
        snprintf(buf + n, sizeof buf - n, "_%d", tries);
    }
    if (im->nnames == im->names_cap) {
        size_t cap = im->names_cap ? im->names_cap * 2 : 32;
        const char **grown = (const char **)fcc_pool_alloc(im->p, cap * sizeof *grown);
        if (grown == NULL)
            return "feature";
        if (im->nnames > 0)
            memcpy(grown, im->names, im->nnames * sizeof *grown);
        im->names = grown;
        im->names_cap = cap;
    }
    im->names[im->nnames] = fcc_pool_strndup(im->p, buf, strlen(buf));
    return im->names[im->nnames] != NULL ? im->names[im->nnames++] : "feature";
}

/* `key` or `"key" as name`, for the feature called out (its key in the
 * data: key; its name in the spec: from out_name). */
static void put_key(importer *im, const char *key, size_t len, const char *out_name,
                    size_t out_len)
{
    const char *name = c_name(im, out_name, out_len);
    im->written++;
    if (strlen(name) == len && memcmp(name, key, len) == 0) {
        fcc_sb_str(im->out, name);
    } else {
        put_literal(im->out, key, len);
        fcc_sb_printf(im->out, " as %s", name);
    }
}

static const char *spec_type(int t)
{
    return t == TYPE_INT ? "int64" : t == TYPE_FLOAT ? "float" : "bytes";
}

/* The bound on values: value_count.max when it is set, else the flag's. */
static size_t values_bound(importer *im, const feat *ft)
{
    size_t fallback = im->io->max_values ? im->io->max_values : 256;
    if (ft != NULL && ft->has_count && ft->count_max >= 1)
        return (size_t)ft->count_max;
    if (ft != NULL && ft->has_count && ft->count_max == 0)
        return 1; /* never a value: a bound of 1 keeps the spec legal */
    if (ft != NULL)
        fcc_diag_warning(im->d, ft->msg->loc, "feature '%.*s' has no value_count.max: bounded "
                         "at %zu values (--max-values)", (int)ft->name_len, ft->name, fallback);
    return fallback;
}

/* The comment above a feature: what TFMD says of it beside the shape. */
static void comment(importer *im, const feat *ft, const char *indent)
{
    sbuf *b = im->out;
    fcc_sb_printf(b, "%s// %s", indent, FEATURE_TYPES[ft->type]);
    if (ft->has_min_fraction)
        fcc_sb_printf(b, ", presence min_fraction %g", ft->min_fraction);
    if (ft->has_min_count)
        fcc_sb_printf(b, "%s min_count %lld", ft->has_min_fraction ? "" : ", presence",
                      ft->min_count);
    if (ft->has_count) {
        fcc_sb_printf(b, ", value_count [%lld, ", ft->count_min);
        if (ft->count_max >= 0)
            fcc_sb_printf(b, "%lld]", ft->count_max);
        else
            fcc_sb_str(b, "-]");
    }
    if (ft->has_int_domain) {
        fcc_sb_str(b, ", int_domain [");
        if (ft->has_int_min)
            fcc_sb_printf(b, "%lld", ft->int_min);
        fcc_sb_str(b, ", ");
        if (ft->has_int_max)
            fcc_sb_printf(b, "%lld", ft->int_max);
        fcc_sb_str(b, "]");
    } else if (ft->domain != NULL) {
        const pt_field *dom = ft->domain, *x;
        fcc_sb_printf(b, ", %s", dom->name);
        if (dom->kind == PT_STRING && strcmp(dom->name, "domain") == 0)
            fcc_sb_printf(b, " \"%.*s\"", (int)(dom->len > 60 ? 60 : dom->len), dom->text);
        if (dom->kind == PT_MESSAGE && strcmp(dom->name, "float_domain") == 0) {
            const pt_field *lo = get(dom, "min"), *hi = get(dom, "max");
            if (lo != NULL || hi != NULL)
                fcc_sb_printf(b, " [%s%.*s, %s%.*s]", lo != NULL && lo->neg ? "-" : "",
                              lo != NULL ? (int)lo->len : 0, lo != NULL ? lo->text : "",
                              hi != NULL && hi->neg ? "-" : "", hi != NULL ? (int)hi->len : 0,
                              hi != NULL ? hi->text : "");
        }
        if (dom->kind == PT_MESSAGE && strcmp(dom->name, "string_domain") == 0) {
            int k = 0;
            for (x = dom->fields; x != NULL; x = x->next) {
                if (strcmp(x->name, "value") != 0 || x->kind != PT_STRING)
                    continue;
                if (k == 8) {
                    fcc_sb_str(b, ", ...");
                    break;
                }
                fcc_sb_str(b, k++ == 0 ? " {" : ", ");
                put_literal(b, x->text, x->len > 40 ? 40 : x->len);
            }
            if (k > 0)
                fcc_sb_str(b, k == 8 && x != NULL ? "}" : "}");
        }
    }
    fcc_sb_str(b, "\n");
}

static int check_type(importer *im, const feat *ft)
{
    if (ft->type == TYPE_BYTES || ft->type == TYPE_INT || ft->type == TYPE_FLOAT)
        return 1;
    fcc_diag_error(im->d, ft->msg->loc, "Feature \"%.*s\" had invalid type %s", (int)ft->name_len,
                   ft->name, FEATURE_TYPES[ft->type]);
    return 0;
}

/* A Feature by TFXIO's default interpretation. */
static void plain_feature(importer *im, feat *ft, int list, const char *indent)
{
    sbuf *b = im->out;
    size_t k;
    if (!check_type(im, ft))
        return;
    if (ft->has_counts)
        fcc_diag_warning(im->d, ft->msg->loc, "feature '%.*s': value_counts (nested lists) "
                         "describe data a tf.train.Example cannot hold: read as one list",
                         (int)ft->name_len, ft->name);
    comment(im, ft, indent);
    fcc_sb_str(b, indent);
    put_key(im, ft->name, ft->name_len, ft->name, ft->name_len);
    if (!list && ft->has_shape && ft->shape_ok) {
        if (!ft->has_presence || ft->min_fraction != 1.0) {
            fcc_diag_error(im->d, ft->msg->loc,
                           "Feature \"%.*s\" had shape set but min_fraction %g != 1.  Use "
                           "value_count not shape field when min_fraction != 1.",
                           (int)ft->name_len, ft->name, ft->has_presence ? ft->min_fraction : 0.0);
            return;
        }
        fcc_sb_printf(b, " : %s", spec_type(ft->type));
        if (ft->rank > 0) {
            fcc_sb_str(b, "[");
            for (k = 0; k < ft->rank; k++)
                fcc_sb_printf(b, "%s%lld", k > 0 ? ", " : "", ft->dims[k]);
            fcc_sb_str(b, "]");
        }
        fcc_sb_str(b, ";\n");
        return;
    }
    if (!list && im->ragged_varlen)
        fcc_sb_printf(b, " : ragged %s max %zu split int64;\n", spec_type(ft->type),
                      values_bound(im, ft));
    else
        fcc_sb_printf(b, " : %s[] max %zu;\n", spec_type(ft->type), values_bound(im, ft));
}

/* The default value of a dense_tensor representation. */
static int put_default(importer *im, const pt_field *dv, const feat *ft)
{
    const pt_field *f;
    sbuf *b = im->out;
    check_fields(im, dv, "DefaultValue");
    if ((f = get(dv, "int_value")) != NULL || (f = get(dv, "uint_value")) != NULL) {
        long long v;
        if (!as_int(im, f, &v))
            return 0;
        if (ft->type == TYPE_FLOAT)
            fcc_sb_printf(b, " = %lld", v);
        else if (ft->type == TYPE_INT)
            fcc_sb_printf(b, " = %lld", v);
        else
            goto wrong;
        return 1;
    }
    if ((f = get(dv, "float_value")) != NULL) {
        double v;
        if (!as_double(im, f, &v))
            return 0;
        if (ft->type != TYPE_FLOAT && ft->type != TYPE_INT)
            goto wrong;
        if (v != v)
            fcc_sb_str(b, " = nan");
        else if (v > 3.4028235e38 || v < -3.4028235e38)
            fcc_sb_str(b, v > 0 ? " = inf" : " = -inf");
        else if (ft->type == TYPE_INT && v == (double)(long long)v)
            fcc_sb_printf(b, " = %lld", (long long)v);
        else if (ft->type == TYPE_FLOAT)
            fcc_sb_printf(b, " = %.9g%s", v, v == (double)(long long)v ? ".0" : "");
        else
            goto wrong;
        return 1;
    }
    if ((f = get(dv, "bytes_value")) != NULL) {
        if (!is_string(im, f))
            return 0;
        if (ft->type != TYPE_BYTES)
            goto wrong;
        fcc_sb_str(b, " = ");
        put_literal(b, f->text, f->len);
        return 1;
    }
    return 1;
wrong:
    fcc_diag_error(im->d, f->vloc, "a default of another type than feature '%.*s''s %s",
                   (int)ft->name_len, ft->name, FEATURE_TYPES[ft->type]);
    return 0;
}

/* A column a representation reads: the schema's feature of that name. */
static feat *column(importer *im, const pt_field *name_field, feat *fs, size_t n, int *ok)
{
    feat *ft;
    if (name_field == NULL || !is_string(im, name_field)) {
        *ok = 0; /* (a missing name is reported by the caller, which knows its place) */
        return NULL;
    }
    ft = find(fs, n, name_field->text, name_field->len);
    if (ft == NULL || ft->skip != NULL) {
        fcc_diag_error(im->d, name_field->vloc, "no feature '%.*s' in the schema%s",
                       (int)name_field->len, name_field->text,
                       ft != NULL ? " (it is left out here)" : "");
        *ok = 0;
        return NULL;
    }
    if (!check_type(im, ft)) {
        *ok = 0;
        return NULL;
    }
    ft->used = 1;
    return ft;
}

/* A SparseFeature `name` of the value and index features, of sizes dims
 * (one per index feature). */
static void put_sparse(importer *im, const pt_field *name, const feat *value, feat *const *index,
                       size_t nindex, const long long *dims, int sorted)
{
    sbuf *b = im->out;
    size_t k;
    comment(im, value, im->indent);
    fcc_sb_str(b, im->indent);
    put_key(im, name->text, name->len, name->text, name->len);
    fcc_sb_printf(b, " : sparse %s[", spec_type(value->type));
    for (k = 0; k < nindex; k++)
        fcc_sb_printf(b, "%s%lld", k > 0 ? ", " : "", dims[k]);
    fcc_sb_printf(b, "] max %zu index (", values_bound(im, value));
    for (k = 0; k < nindex; k++) {
        fcc_sb_str(b, k > 0 ? ", " : "");
        put_literal(b, index[k]->name, index[k]->name_len);
    }
    fcc_sb_str(b, ") value ");
    put_literal(b, value->name, value->name_len);
    fcc_sb_str(b, sorted ? " already_sorted;\n" : ";\n");
}

/* A dense_tensor: FixedLen, with its default_value. */
static void rep_dense(importer *im, const pt_field *key, const pt_field *t)
{
    sbuf *b = im->out;
    int ok = 1;
    feat *ft = column(im, get(t, "column_name"), im->feats, im->nfeats, &ok);
    const pt_field *shape = get_message(im, t, "shape", "FixedShape"), *dv;
    size_t rank = 0, k;
    long long dims[8];
    int fixed = 1;
    if (!ok || (shape != NULL && !read_shape(im, shape, &rank, dims, &fixed)))
        return;
    if (!fixed) {
        fcc_diag_error(im->d, shape->loc, "a dense_tensor's shape needs every size");
        return;
    }
    comment(im, ft, im->indent);
    fcc_sb_str(b, im->indent);
    put_key(im, ft->name, ft->name_len, key->text, key->len);
    fcc_sb_printf(b, " : %s", spec_type(ft->type));
    if (rank > 0) {
        fcc_sb_str(b, "[");
        for (k = 0; k < rank; k++)
            fcc_sb_printf(b, "%s%lld", k > 0 ? ", " : "", dims[k]);
        fcc_sb_str(b, "]");
    }
    if ((dv = get(t, "default_value")) != NULL) {
        if (dv->kind != PT_MESSAGE) {
            fcc_diag_error(im->d, dv->vloc, "default_value: expected a message ({ ... })");
            return;
        }
        if (!put_default(im, dv, ft))
            return;
    }
    fcc_sb_str(b, ";\n");
}

/* A varlen_sparse_tensor: VarLen. */
static void rep_varlen(importer *im, const pt_field *key, const pt_field *t)
{
    sbuf *b = im->out;
    int ok = 1;
    feat *ft = column(im, get(t, "column_name"), im->feats, im->nfeats, &ok);
    if (!ok)
        return;
    comment(im, ft, im->indent);
    fcc_sb_str(b, im->indent);
    put_key(im, ft->name, ft->name_len, key->text, key->len);
    fcc_sb_printf(b, " : %s[] max %zu;\n", spec_type(ft->type), values_bound(im, ft));
}

/* A sparse_tensor: a SparseFeature of its index and value columns. */
static void rep_sparse(importer *im, const pt_field *key, const pt_field *rep,
                       const pt_field *t)
{
    int ok = 1;
    const pt_field *f, *shape = get_message(im, t, "dense_shape", "FixedShape");
    feat *value = column(im, get(t, "value_column_name"), im->feats, im->nfeats, &ok);
    feat *index[8];
    size_t nindex = 0, rank = 0;
    long long dims[8];
    int fixed = 1;
    for (f = t->fields; f != NULL && ok; f = f->next)
        if (strcmp(f->name, "index_column_names") == 0) {
            if (nindex == 8) {
                fcc_diag_error(im->d, f->loc, "more than 8 index columns");
                return;
            }
            index[nindex++] = column(im, f, im->feats, im->nfeats, &ok);
        }
    if (!ok)
        return;
    if (shape == NULL || !read_shape(im, shape, &rank, dims, &fixed) || !fixed ||
        rank != nindex || rank == 0) {
        fcc_diag_error(im->d, (shape != NULL ? shape : rep)->loc,
                       "a sparse_tensor needs a dense_shape of one size per index column");
        return;
    }
    f = get(t, "already_sorted");
    put_sparse(im, key, value, index, nindex, dims, f != NULL && as_bool(im, f));
}

/* A ragged_tensor: a RaggedFeature of its value column and partitions. */
static void rep_ragged(importer *im, const pt_field *key, const pt_field *rep,
                       const pt_field *t)
{
    sbuf *b = im->out;
    int ok = 1;
    const pt_field *path = get_message(im, t, "feature_path", "Path"), *f, *step = NULL;
    size_t nsteps = 0;
    feat *value;
    const char *split = "int64";
    if (path != NULL)
        for (f = path->fields; f != NULL; f = f->next)
            if (strcmp(f->name, "step") == 0) {
                step = f;
                nsteps++;
            }
    if (step == NULL || nsteps != 1) {
        fcc_diag_error(im->d, (path != NULL ? path : rep)->loc,
                       "a ragged_tensor's feature_path here is one step, a feature's name "
                       "(a feature list's RaggedFeature is imported from ##SEQUENCE##)");
        return;
    }
    value = column(im, step, im->feats, im->nfeats, &ok);
    if (!ok)
        return;
    if ((f = get(t, "row_partition_dtype")) != NULL) {
        const char *dt = as_enum(im, f, PARTITION_DTYPES, 3);
        if (dt == NULL)
            return;
        split = strcmp(dt, "INT32") == 0 ? "int32" : "int64";
    }
    comment(im, value, im->indent);
    fcc_sb_str(b, im->indent);
    put_key(im, key->text, key->len, key->text, key->len);
    fcc_sb_printf(b, " : ragged %s max %zu value ", spec_type(value->type),
                  values_bound(im, value));
    put_literal(b, value->name, value->name_len);
    {
        int first = 1;
        for (f = t->fields; f != NULL; f = f->next) {
            const pt_field *x;
            long long u;
            if (strcmp(f->name, "partition") != 0)
                continue;
            if (f->kind != PT_MESSAGE) {
                fcc_diag_error(im->d, f->vloc, "partition: expected a message ({ ... })");
                return;
            }
            check_fields(im, f, "Partition");
            fcc_sb_str(b, first ? " partitions (" : ", ");
            first = 0;
            if ((x = get(f, "uniform_row_length")) != NULL) {
                if (!as_int(im, x, &u))
                    return;
                fcc_sb_printf(b, "uniform_row_length %lld", u);
            } else if ((x = get(f, "row_length")) != NULL) {
                feat *rl = column(im, x, im->feats, im->nfeats, &ok);
                if (!ok)
                    return;
                fcc_sb_str(b, "row_lengths ");
                put_literal(b, rl->name, rl->name_len);
                fcc_sb_printf(b, " max %zu", values_bound(im, rl));
            } else {
                fcc_diag_error(im->d, f->loc, "a partition needs uniform_row_length or "
                               "row_length");
                return;
            }
        }
        if (!first)
            fcc_sb_str(b, ")");
    }
    fcc_sb_printf(b, " split %s;\n", split);
}

/* One tensor representation of the default group: key (its tensor's name)
 * and rep. */
static void representation(importer *im, const pt_field *key, const pt_field *rep)
{
    const pt_field *t;
    check_fields(im, rep, "TensorRepresentation");
    if ((t = get_message(im, rep, "dense_tensor", "DenseTensor")) != NULL)
        rep_dense(im, key, t);
    else if ((t = get_message(im, rep, "varlen_sparse_tensor", "VarLenSparseTensor")) != NULL)
        rep_varlen(im, key, t);
    else if ((t = get_message(im, rep, "sparse_tensor", "SparseTensor")) != NULL)
        rep_sparse(im, key, rep, t);
    else if ((t = get_message(im, rep, "ragged_tensor", "RaggedTensor")) != NULL)
        rep_ragged(im, key, rep, t);
    else
        fcc_diag_error(im->d, rep->loc, "a tensor representation of a kind featc does not "
                       "read (dense_tensor, varlen_sparse_tensor, sparse_tensor, ragged_tensor)");
}

/* The representations of the default group ("") of tensor_representation_group. */
static void representations(importer *im)
{
    const pt_field *g, *e;
    for (g = im->schema->fields; g != NULL; g = g->next) {
        const pt_field *key, *group;
        if (strcmp(g->name, "tensor_representation_group") != 0)
            continue;
        if (g->kind != PT_MESSAGE) {
            fcc_diag_error(im->d, g->vloc, "tensor_representation_group: expected a map entry");
            return;
        }
        check_fields(im, g, "MapEntry");
        key = get(g, "key");
        if (key != NULL && (!is_string(im, key) || key->len != 0))
            continue; /* another group: not the one TFXIO reads by default */
        group = get_message(im, g, "value", "TensorRepresentationGroup");
        if (group == NULL)
            continue;
        for (e = group->fields; e != NULL; e = e->next) {
            const pt_field *k, *rep;
            if (strcmp(e->name, "tensor_representation") != 0)
                continue;
            if (e->kind != PT_MESSAGE) {
                fcc_diag_error(im->d, e->vloc, "tensor_representation: expected a map entry");
                return;
            }
            check_fields(im, e, "MapEntry");
            k = get(e, "key");
            rep = get_message(im, e, "value", "TensorRepresentation");
            if (k == NULL || !is_string(im, k) || k->len == 0 || rep == NULL) {
                if (k == NULL || rep == NULL)
                    fcc_diag_error(im->d, e->loc, "a tensor representation needs a key and a value");
                return;
            }
            representation(im, k, rep);
        }
    }
}

/* A SparseFeature of the schema. */
static void sparse_feature(importer *im, const pt_field *m)
{
    const pt_field *f, *name, *vf, *shape;
    feat *index[8], *value;
    size_t nindex = 0, k, rank = 0;
    long long dims[8];
    int ok = 1, fixed = 1;
    sbuf *b = im->out;
    if (m->kind != PT_MESSAGE) {
        fcc_diag_error(im->d, m->vloc, "sparse_feature: expected a message ({ ... })");
        return;
    }
    check_fields(im, m, "SparseFeature");
    name = get(m, "name");
    if (name == NULL || !is_string(im, name)) {
        if (name == NULL)
            fcc_diag_error(im->d, m->loc, "a sparse_feature without a name");
        return;
    }
    if ((f = get(m, "deprecated")) != NULL && as_bool(im, f)) {
        fcc_sb_printf(b, "%s// sparse_feature \"%.*s\": deprecated, left out\n", im->indent,
                      (int)name->len, name->text);
        return;
    }
    if ((f = get(m, "lifecycle_stage")) != NULL) {
        const char *st = as_enum(im, f, STAGES, sizeof STAGES / sizeof STAGES[0]);
        if (st == NULL)
            return;
        if (strcmp(st, "DEPRECATED") == 0 || strcmp(st, "PLANNED") == 0 ||
            strcmp(st, "ALPHA") == 0 || strcmp(st, "DEBUG_ONLY") == 0) {
            fcc_sb_printf(b, "%s// sparse_feature \"%.*s\": lifecycle_stage %s, left out\n",
                          im->indent, (int)name->len, name->text, st);
            return;
        }
    }
    for (f = m->fields; f != NULL; f = f->next)
        if (strcmp(f->name, "index_feature") == 0) {
            if (f->kind != PT_MESSAGE) {
                fcc_diag_error(im->d, f->vloc, "index_feature: expected a message ({ name: ... })");
                return;
            }
            check_fields(im, f, "IndexFeature");
            if (nindex == 8) {
                fcc_diag_error(im->d, f->loc, "more than 8 index features");
                return;
            }
            index[nindex] = column(im, get(f, "name"), im->feats, im->nfeats, &ok);
            if (!ok) {
                if (get(f, "name") == NULL)
                    fcc_diag_error(im->d, f->loc, "an index_feature without a name");
                return;
            }
            nindex++;
        }
    vf = get_message(im, m, "value_feature", "ValueFeature");
    if (vf == NULL) {
        fcc_diag_error(im->d, m->loc, "sparse_feature \"%.*s\" has no value_feature",
                       (int)name->len, name->text);
        return;
    }
    value = column(im, get(vf, "name"), im->feats, im->nfeats, &ok);
    if (!ok || nindex == 0) {
        if (ok)
            fcc_diag_error(im->d, m->loc, "sparse_feature \"%.*s\" has no index_feature",
                           (int)name->len, name->text);
        return;
    }
    if ((shape = get_message(im, m, "dense_shape", "FixedShape")) != NULL) {
        if (!read_shape(im, shape, &rank, dims, &fixed))
            return;
        if (!fixed || rank != nindex) {
            fcc_diag_error(im->d, shape->loc, "sparse_feature \"%.*s\": a dense_shape of one "
                           "size per index feature", (int)name->len, name->text);
            return;
        }
    } else {
        /* the size from each index feature's int_domain [0, max] */
        for (k = 0; k < nindex; k++) {
            const feat *ix = index[k];
            if (!ix->has_int_domain || !ix->has_int_max || (ix->has_int_min && ix->int_min != 0)) {
                fcc_diag_error(im->d, ix->msg->loc,
                               "Cannot determine dense shape of sparse feature \"%.*s\". The "
                               "index feature \"%.*s\" needs an int_domain with min 0 and a max",
                               (int)name->len, name->text, (int)ix->name_len, ix->name);
                return;
            }
            dims[k] = ix->int_max + 1;
        }
    }
    f = get(m, "is_sorted");
    put_sparse(im, name, value, index, nindex, dims, f != NULL && as_bool(im, f));
}

/* Reads the Feature messages among m's fields (a schema, a struct domain). */
static feat *read_features(importer *im, const pt_field *m, size_t *n)
{
    const pt_field *f;
    size_t count = 0, i = 0;
    feat *fs;
    for (f = m->fields; f != NULL; f = f->next)
        count += strcmp(f->name, "feature") == 0;
    fs = (feat *)fcc_pool_alloc(im->p, (count + 1) * sizeof *fs);
    if (fs == NULL) {
        fcc_diag_fail(im->d, "out of memory");
        return NULL;
    }
    for (f = m->fields; f != NULL; f = f->next) {
        if (strcmp(f->name, "feature") != 0)
            continue;
        if (!read_feature(im, f, &fs[i]))
            return NULL;
        if (find(fs, i, fs[i].name, fs[i].name_len) != NULL) {
            fcc_diag_error(im->d, f->loc, "a second feature named \"%.*s\"",
                           (int)fs[i].name_len, fs[i].name);
            return NULL;
        }
        i++;
    }
    *n = i;
    return fs;
}

/* The feature lists: the struct_domain of a STRUCT feature ##SEQUENCE##
 * (not left out), into im->lists, and that feature (marked used) in *seq,
 * NULL without one.  0 after an error. */
static int read_lists(importer *im, feat **seq)
{
    size_t i;
    *seq = NULL;
    for (i = 0; i < im->nfeats; i++)
        if (im->feats[i].type == TYPE_STRUCT && im->feats[i].name_len == 12 &&
            memcmp(im->feats[i].name, "##SEQUENCE##", 12) == 0 && im->feats[i].skip == NULL) {
            *seq = &im->feats[i];
            (*seq)->used = 1;
            if ((*seq)->struct_domain != NULL &&
                (im->lists = read_features(im, (*seq)->struct_domain, &im->nlists)) == NULL)
                return 0;
        }
    return 1;
}

static void left_out(importer *im, const feat *ft, const char *indent)
{
    int env = strcmp(ft->skip, "environment") == 0;
    fcc_sb_printf(im->out, "%s// feature \"%.*s\": %s%s, left out\n", indent,
                  (int)(ft->name_len > 80 ? 80 : ft->name_len), ft->name,
                  env ? "not in environment " : strcmp(ft->skip, "deprecated") == 0
                                                     ? "" : "lifecycle_stage ",
                  env ? im->io->environment : ft->skip);
}

int fcc_tfmd_import(pool *p, diag *d, const featc_import_options *io, const char *package,
                    sbuf *out)
{
    importer im;
    const pt_field *f;
    size_t i;
    feat *seq = NULL;
    int errors = d->errors;
    memset(&im, 0, sizeof im);
    im.p = p;
    im.d = d;
    im.io = io;
    im.out = out;
    im.schema = fcc_pbtxt_parse(p, d);
    if (im.schema == NULL)
        return 0;
    check_fields(&im, im.schema, "Schema");
    if ((f = get(im.schema, "represent_variable_length_as_ragged")) != NULL)
        im.ragged_varlen = as_bool(&im, f);
    if (io->environment != NULL) {
        int named = 0;
        const char *env = io->environment;
        for (f = im.schema->fields; f != NULL; f = f->next) {
            const pt_field *g;
            if (f->kind == PT_STRING && strcmp(f->name, "default_environment") == 0 &&
                strcmp(f->text, env) == 0)
                named = 1;
            if (strcmp(f->name, "feature") == 0 && f->kind == PT_MESSAGE)
                for (g = f->fields; g != NULL; g = g->next)
                    if (g->kind == PT_STRING && strcmp(g->text, env) == 0 &&
                        (strcmp(g->name, "in_environment") == 0 ||
                         strcmp(g->name, "not_in_environment") == 0))
                        named = 1;
        }
        if (!named) {
            fcc_diag_fail(d, "error: the schema names no environment '%s' (default_environment, "
                          "in_environment, not_in_environment)", env);
            return 0;
        }
    }
    im.feats = read_features(&im, im.schema, &im.nfeats);
    if (im.feats == NULL || d->errors > errors)
        return 0;
    if (!read_lists(&im, &seq))
        return 0;
    fcc_sb_printf(out, "// Imported by featc import --tfmd%s%s%s: TFXIO's reading of the\n"
                       "// schema (docs/tfx.md).  Presence, value counts and domains are in the\n"
                       "// comments; featc checks types, shapes and the bounds below.\n"
                       "package %s;\n\n%s %s {\n",
                  io->environment ? " --environment " : "", io->environment ? io->environment : "",
                  "", package, seq != NULL ? "sequence_example" : "example",
                  io->message != NULL ? io->message : "record");
    im.indent = seq != NULL ? "    " : "  ";
    if (seq != NULL)
        fcc_sb_str(out, "  context {\n");
    representations(&im);
    for (f = im.schema->fields; f != NULL; f = f->next)
        if (strcmp(f->name, "sparse_feature") == 0)
            sparse_feature(&im, f);
    for (i = 0; i < im.nfeats; i++) {
        feat *ft = &im.feats[i];
        if (ft->used)
            continue;
        if (ft->skip != NULL) {
            left_out(&im, ft, im.indent);
            continue;
        }
        if (ft->type == TYPE_STRUCT) {
            fcc_diag_warning(d, ft->msg->loc, "STRUCT feature \"%.*s\" is not ##SEQUENCE##: "
                             "left out (a tf.train.Example has no nested features)",
                             (int)ft->name_len, ft->name);
            continue;
        }
        plain_feature(&im, ft, 0, im.indent);
    }
    if (seq != NULL) {
        size_t frames = io->max_frames ? io->max_frames : 256;
        fcc_sb_printf(out, "  }\n  feature_lists max %zu {\n", frames);
        if (io->max_frames == 0)
            fcc_diag_warning(d, seq->msg->loc, "feature lists bounded at %zu frames "
                             "(--max-frames)", frames);
        for (i = 0; i < im.nlists; i++) {
            feat *ft = &im.lists[i];
            if (ft->skip != NULL) {
                left_out(&im, ft, "    ");
                continue;
            }
            plain_feature(&im, ft, 1, "    ");
        }
        fcc_sb_str(out, "  }\n");
    }
    fcc_sb_str(out, "}\n");
    if (d->errors == errors && im.written == 0) {
        fcc_diag_fail(d, "error: the schema has no feature featc reads (%s)",
                      im.nfeats == 0 ? "it has none" : "every one is left out");
        return 0;
    }
    return d->errors == errors && !out->failed;
}

/* ------------------------------------------------------------ constraints */

/* The string domain of ft: its own string_domain, or the schema's by name. */
static const pt_field *string_domain_of(importer *im, const feat *ft)
{
    const pt_field *f;
    if (ft->domain == NULL)
        return NULL;
    if (strcmp(ft->domain->name, "string_domain") == 0 && ft->domain->kind == PT_MESSAGE)
        return ft->domain;
    if (strcmp(ft->domain->name, "domain") != 0 || ft->domain->kind != PT_STRING)
        return NULL;
    for (f = im->schema->fields; f != NULL; f = f->next) {
        const pt_field *name;
        if (strcmp(f->name, "string_domain") != 0 || f->kind != PT_MESSAGE)
            continue;
        name = get(f, "name");
        if (name != NULL && name->kind == PT_STRING && name->len == ft->domain->len &&
            memcmp(name->text, ft->domain->text, name->len) == 0)
            return f;
    }
    fcc_diag_warning(im->d, ft->domain->vloc, "no string_domain named \"%.*s\" in the schema",
                     (int)ft->domain->len, ft->domain->text);
    return NULL;
}

/* ft as a featc_tfmd_feature; 0 after an error. */
static int constraint(importer *im, const feat *ft, int list, featc_tfmd_feature *c)
{
    const pt_field *dom, *x;
    size_t k, n = 0;
    memset(c, 0, sizeof *c);
    c->name = ft->name;
    c->name_len = ft->name_len;
    c->list = list;
    c->type = ft->type == TYPE_BYTES ? 'b' : ft->type == TYPE_INT ? 'i' : ft->type == TYPE_FLOAT ? 'f' : 0;
    c->has_min_fraction = ft->has_min_fraction;
    c->min_fraction = ft->min_fraction;
    c->has_min_count = ft->has_min_count;
    c->min_count = ft->min_count;
    c->has_count = ft->has_count;
    c->count_min = ft->count_min;
    c->count_max = ft->count_max;
    if (ft->has_shape && ft->shape_ok) {
        c->has_shape = 1;
        c->shape_elems = 1;
        for (k = 0; k < ft->rank; k++)
            c->shape_elems *= ft->dims[k];
    }
    c->has_int_min = ft->has_int_min;
    c->has_int_max = ft->has_int_max;
    c->int_min = ft->int_min;
    c->int_max = ft->int_max;
    if (ft->domain != NULL && strcmp(ft->domain->name, "float_domain") == 0 &&
        ft->domain->kind == PT_MESSAGE) {
        dom = ft->domain;
        if ((x = get(dom, "min")) != NULL && !(c->has_float_min = as_double(im, x, &c->float_min)))
            return 0;
        if ((x = get(dom, "max")) != NULL && !(c->has_float_max = as_double(im, x, &c->float_max)))
            return 0;
        c->disallow_nan = (x = get(dom, "disallow_nan")) != NULL && as_bool(im, x);
    }
    if ((dom = string_domain_of(im, ft)) != NULL) {
        for (x = dom->fields; x != NULL; x = x->next)
            n += strcmp(x->name, "value") == 0 && x->kind == PT_STRING;
        c->strings = (const char **)fcc_pool_alloc(im->p, (n + 1) * sizeof *c->strings);
        c->string_lens = (const size_t *)fcc_pool_alloc(im->p, (n + 1) * sizeof(size_t));
        if (c->strings == NULL || c->string_lens == NULL) {
            fcc_diag_fail(im->d, "error: out of memory");
            return 0;
        }
        for (x = dom->fields; x != NULL; x = x->next)
            if (strcmp(x->name, "value") == 0 && x->kind == PT_STRING) {
                c->strings[c->nstrings] = x->text;
                ((size_t *)c->string_lens)[c->nstrings++] = x->len;
            }
    }
    return 1;
}

int fcc_tfmd_constraints(pool *p, diag *d, const char *environment, featc_tfmd_schema *out)
{
    importer im;
    feat *seq;
    featc_import_options io;
    size_t i, n = 0;
    int errors = d->errors;
    memset(&im, 0, sizeof im);
    memset(&io, 0, sizeof io);
    io.environment = environment;
    im.p = p;
    im.d = d;
    im.io = &io;
    im.schema = fcc_pbtxt_parse(p, d);
    if (im.schema == NULL)
        return 0;
    check_fields(&im, im.schema, "Schema");
    im.feats = read_features(&im, im.schema, &im.nfeats);
    if (im.feats == NULL || d->errors > errors)
        return 0;
    if (!read_lists(&im, &seq))
        return 0;
    out->features = (featc_tfmd_feature *)fcc_pool_alloc(
        p, (im.nfeats + im.nlists + 1) * sizeof *out->features);
    if (out->features == NULL) {
        fcc_diag_fail(d, "error: out of memory");
        return 0;
    }
    for (i = 0; i < im.nfeats + im.nlists; i++) {
        const feat *ft = i < im.nfeats ? &im.feats[i] : &im.lists[i - im.nfeats];
        if (ft->skip != NULL || ft->type == TYPE_STRUCT)
            continue;
        if (!constraint(&im, ft, i >= im.nfeats, &out->features[n++]))
            return 0;
    }
    out->nfeatures = n;
    return d->errors == errors;
}
