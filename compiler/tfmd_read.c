/* Reading a TensorFlow Metadata schema's text (pbtxt.c's tree): the fields
 * of each message TFMD has (others are warnings), values of each type, and
 * the features with what import and validate use of them. */
#include "tfmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
    {"FeatureComparator", "infinity_norm jensen_shannon_divergence normalized_abs_difference"},
    {"InfinityNorm", "threshold"},
    {"NormalizedAbsoluteDifference", "threshold"},
    {"JensenShannonDivergence", "threshold source"},
    {"HistogramSelection", "type"},
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
void fcc_tfmd_check_fields(importer *im, const pt_field *m, const char *message)
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

const pt_field *fcc_tfmd_get(const pt_field *m, const char *name)
{
    const pt_field *f, *last = NULL;
    if (m == NULL || m->kind != PT_MESSAGE)
        return NULL;
    for (f = m->fields; f != NULL; f = f->next)
        if (strcmp(f->name, name) == 0)
            last = f; /* the text format keeps the last of a singular field */
    return last;
}

const pt_field *fcc_tfmd_get_message(importer *im, const pt_field *m, const char *name,
                                   const char *message)
{
    const pt_field *f = fcc_tfmd_get(m, name);
    if (f == NULL)
        return NULL;
    if (f->kind != PT_MESSAGE) {
        fcc_diag_error(im->d, f->vloc, "%s: expected a message ({ ... })", name);
        return NULL;
    }
    fcc_tfmd_check_fields(im, f, message);
    return f;
}

/* An integer value; 0 after an error. */
int fcc_tfmd_int(importer *im, const pt_field *f, long long *v)
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

int fcc_tfmd_double(importer *im, const pt_field *f, double *v)
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

int fcc_tfmd_bool(importer *im, const pt_field *f)
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

int fcc_tfmd_string(importer *im, const pt_field *f)
{
    if (f->kind == PT_STRING)
        return 1;
    fcc_diag_error(im->d, f->vloc, "%s: expected a string", f->name);
    return 0;
}

/* An enum field: its value's name, or its number's name in names[]. */
const char *fcc_tfmd_enum(importer *im, const pt_field *f, const char *const *names, size_t n)
{
    long long v;
    size_t i;
    if (f->kind == PT_IDENT && !f->neg) {
        for (i = 0; i < n; i++)
            if (names[i] != NULL && strcmp(names[i], f->text) == 0)
                return names[i];
    } else if (f->kind == PT_NUMBER && fcc_tfmd_int(im, f, &v)) {
        if (v >= 0 && (unsigned long long)v < n && names[v] != NULL)
            return names[v];
    }
    fcc_diag_error(im->d, f->vloc, "%s: not a value of its enum", f->name);
    return NULL;
}

const char *const fcc_tfmd_feature_types[] = {"TYPE_UNKNOWN", "BYTES", "INT", "FLOAT", "STRUCT"};
const char *const fcc_tfmd_stages[] = {"UNKNOWN_STAGE", "PLANNED", "ALPHA", "BETA", "PRODUCTION",
                                     "DEPRECATED", "DEBUG_ONLY", "DISABLED", NULL,
                                     "VALIDATION_DERIVED"};
const char *const fcc_tfmd_partition_dtypes[] = {"UNSPECIFIED", "INT64", "INT32"};

/* ------------------------------------------------------------ reading */

int fcc_tfmd_read_shape(importer *im, const pt_field *shape, size_t *rank, long long *dims, int *ok)
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
        fcc_tfmd_check_fields(im, dim, "Dim");
        size = fcc_tfmd_get(dim, "size");
        if (size != NULL && !fcc_tfmd_int(im, size, &v))
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
    fcc_tfmd_check_fields(im, m, "Feature");
    f = fcc_tfmd_get(m, "name");
    if (f == NULL) {
        fcc_diag_error(im->d, m->loc, "a feature without a name");
        return 0;
    }
    if (!fcc_tfmd_string(im, f))
        return 0;
    ft->name = f->text;
    ft->name_len = f->len;
    if ((f = fcc_tfmd_get(m, "type")) != NULL) {
        const char *t = fcc_tfmd_enum(im, f, fcc_tfmd_feature_types, 5);
        if (t == NULL)
            return 0;
        for (i = 0; i < 5; i++)
            if (t == fcc_tfmd_feature_types[i])
                ft->type = (int)i;
    }
    if ((f = fcc_tfmd_get(m, "deprecated")) != NULL && fcc_tfmd_bool(im, f))
        ft->skip = "deprecated";
    if ((f = fcc_tfmd_get(m, "lifecycle_stage")) != NULL) {
        const char *st = fcc_tfmd_enum(im, f, fcc_tfmd_stages,
                                       sizeof fcc_tfmd_stages / sizeof fcc_tfmd_stages[0]);
        if (st == NULL)
            return 0;
        if (strcmp(st, "DEPRECATED") == 0 || strcmp(st, "PLANNED") == 0 ||
            strcmp(st, "ALPHA") == 0 || strcmp(st, "DEBUG_ONLY") == 0)
            ft->skip = st;
    }
    if (ft->skip == NULL && !in_environment(im, m))
        ft->skip = "environment";
    if ((f = fcc_tfmd_get_message(im, m, "presence", "FeaturePresence")) != NULL) {
        const pt_field *x;
        ft->has_presence = 1;
        if ((x = fcc_tfmd_get(f, "min_fraction")) != NULL &&
            !(ft->has_min_fraction = fcc_tfmd_double(im, x, &ft->min_fraction)))
            return 0;
        if ((x = fcc_tfmd_get(f, "min_count")) != NULL &&
            !(ft->has_min_count = fcc_tfmd_int(im, x, &ft->min_count)))
            return 0;
    }
    if ((f = fcc_tfmd_get_message(im, m, "shape", "FixedShape")) != NULL) {
        ft->has_shape = 1;
        if (!fcc_tfmd_read_shape(im, f, &ft->rank, ft->dims, &ft->shape_ok))
            return 0;
    }
    if ((f = fcc_tfmd_get_message(im, m, "value_count", "ValueCount")) != NULL) {
        const pt_field *x;
        ft->has_count = 1;
        ft->count_min = 0;
        ft->count_max = -1;
        if ((x = fcc_tfmd_get(f, "min")) != NULL && !fcc_tfmd_int(im, x, &ft->count_min))
            return 0;
        if (x != NULL && ft->count_min < 0) {
            fcc_diag_error(im->d, x->vloc, "value_count.min %lld: a count is not negative",
                           ft->count_min);
            return 0;
        }
        if ((x = fcc_tfmd_get(f, "max")) != NULL && !fcc_tfmd_int(im, x, &ft->count_max))
            return 0;
        if (x != NULL && (ft->count_max < 0 || ft->count_max < ft->count_min)) {
            fcc_diag_error(im->d, x->vloc, "value_count.max %lld: %s", ft->count_max,
                           ft->count_max < 0 ? "a count is not negative" : "less than its min");
            return 0;
        }
    }
    if (fcc_tfmd_get_message(im, m, "value_counts", "ValueCountList") != NULL)
        ft->has_counts = 1;
    if ((f = fcc_tfmd_get_message(im, m, "int_domain", "IntDomain")) != NULL) {
        const pt_field *x;
        ft->has_int_domain = 1;
        if ((x = fcc_tfmd_get(f, "min")) != NULL &&
            !(ft->has_int_min = fcc_tfmd_int(im, x, &ft->int_min)))
            return 0;
        if ((x = fcc_tfmd_get(f, "max")) != NULL &&
            !(ft->has_int_max = fcc_tfmd_int(im, x, &ft->int_max)))
            return 0;
    }
    for (i = 0; i < sizeof domains / sizeof domains[0]; i++)
        if ((f = fcc_tfmd_get(m, domains[i])) != NULL)
            ft->domain = f;
    ft->struct_domain = fcc_tfmd_get_message(im, m, "struct_domain", "StructDomain");
    return 1;
}

feat *fcc_tfmd_find(feat *fs, size_t n, const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (fs[i].name_len == len && memcmp(fs[i].name, name, len) == 0)
            return &fs[i];
    return NULL;
}

/* Reads the Feature messages among m's fields (a schema, a struct domain). */
feat *fcc_tfmd_read_features(importer *im, const pt_field *m, size_t *n)
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
        if (fcc_tfmd_find(fs, i, fs[i].name, fs[i].name_len) != NULL) {
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
int fcc_tfmd_read_lists(importer *im, feat **seq)
{
    size_t i;
    *seq = NULL;
    for (i = 0; i < im->nfeats; i++)
        if (im->feats[i].type == TYPE_STRUCT && im->feats[i].name_len == 12 &&
            memcmp(im->feats[i].name, "##SEQUENCE##", 12) == 0 && im->feats[i].skip == NULL) {
            *seq = &im->feats[i];
            (*seq)->used = 1;
            if ((*seq)->struct_domain != NULL &&
                (im->lists = fcc_tfmd_read_features(im, (*seq)->struct_domain, &im->nlists)) == NULL)
                return 0;
        }
    return 1;
}
