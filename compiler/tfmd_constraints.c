/* featc validate's constraints: what a TensorFlow Metadata schema says of
 * each feature that records can be checked against (featc_tfmd_read). */
#include "tfmd.h"

#include <string.h>

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
        name = fcc_tfmd_get(f, "name");
        if (name != NULL && name->kind == PT_STRING && name->len == ft->domain->len &&
            memcmp(name->text, ft->domain->text, name->len) == 0)
            return f;
    }
    fcc_diag_warning(im->d, ft->domain->vloc, "no string_domain named \"%.*s\" in the schema",
                     (int)ft->domain->len, ft->domain->text);
    return NULL;
}

static const char *const HISTOGRAM_TYPES[] = {"DEFAULT", "QUANTILES", "STANDARD"};

/* The threshold of comparator fc's measure `field` (a `message`:
 * InfinityNorm, ...): *has and *v set when it states one, the measure's
 * message in *m (NULL without one).  0 after an error; a threshold is a
 * number >= 0. */
static int threshold(importer *im, const pt_field *fc, const char *field, const char *message,
                     const pt_field **m, int *has, double *v)
{
    const pt_field *t;
    *m = fcc_tfmd_get_message(im, fc, field, message);
    if (*m == NULL || (t = fcc_tfmd_get(*m, "threshold")) == NULL)
        return 1;
    if (!fcc_tfmd_double(im, t, v))
        return 0;
    if (!(*v >= 0)) {
        fcc_diag_error(im->d, t->vloc, "threshold: %g is not a number >= 0", *v);
        return 0;
    }
    *has = 1;
    return 1;
}

/* The FeatureComparator `name` of ft (drift_comparator: which 0,
 * skew_comparator: 1) into c; 0 after an error. */
static int comparator(importer *im, const feat *ft, const char *name, int which,
                      featc_tfmd_feature *c)
{
    const pt_field *fc, *m, *src;
    if (fcc_tfmd_get(ft->msg, name) == NULL)
        return 1;
    if ((fc = fcc_tfmd_get_message(im, ft->msg, name, "FeatureComparator")) == NULL)
        return 0;
    if (!threshold(im, fc, "infinity_norm", "InfinityNorm", &m, &c->has_linf[which],
                   &c->linf[which]) ||
        !threshold(im, fc, "normalized_abs_difference", "NormalizedAbsoluteDifference", &m,
                   &c->has_nad[which], &c->nad[which]) ||
        !threshold(im, fc, "jensen_shannon_divergence", "JensenShannonDivergence", &m,
                   &c->has_jsd[which], &c->jsd[which]))
        return 0;
    if (c->has_jsd[which] && (src = fcc_tfmd_get_message(im, m, "source", "HistogramSelection")) != NULL &&
        
        (src = fcc_tfmd_get(src, "type")) != NULL) {
        const char *t = fcc_tfmd_enum(im, src, HISTOGRAM_TYPES, 3);
        if (t == NULL)
            return 0;
        c->jsd_quantiles[which] = t == HISTOGRAM_TYPES[1];
    }
    return 1;
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
        if ((x = fcc_tfmd_get(dom, "min")) != NULL &&
            !(c->has_float_min = fcc_tfmd_double(im, x, &c->float_min)))
            return 0;
        if ((x = fcc_tfmd_get(dom, "max")) != NULL &&
            !(c->has_float_max = fcc_tfmd_double(im, x, &c->float_max)))
            return 0;
        c->disallow_nan = (x = fcc_tfmd_get(dom, "disallow_nan")) != NULL && fcc_tfmd_bool(im, x);
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
    return comparator(im, ft, "drift_comparator", 0, c) &&
           comparator(im, ft, "skew_comparator", 1, c);
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
    fcc_tfmd_check_fields(&im, im.schema, "Schema");
    im.feats = fcc_tfmd_read_features(&im, im.schema, &im.nfeats);
    if (im.feats == NULL || d->errors > errors)
        return 0;
    if (!fcc_tfmd_read_lists(&im, &seq))
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
