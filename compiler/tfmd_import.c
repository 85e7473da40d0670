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
#include "tfmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    fcc_sb_printf(b, "%s// %s", indent, fcc_tfmd_feature_types[ft->type]);
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
            const pt_field *lo = fcc_tfmd_get(dom, "min"), *hi = fcc_tfmd_get(dom, "max");
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
                   ft->name, fcc_tfmd_feature_types[ft->type]);
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
    fcc_tfmd_check_fields(im, dv, "DefaultValue");
    if ((f = fcc_tfmd_get(dv, "int_value")) != NULL ||
        (f = fcc_tfmd_get(dv, "uint_value")) != NULL) {
        long long v;
        if (!fcc_tfmd_int(im, f, &v))
            return 0;
        if (ft->type == TYPE_FLOAT)
            fcc_sb_printf(b, " = %lld", v);
        else if (ft->type == TYPE_INT)
            fcc_sb_printf(b, " = %lld", v);
        else
            goto wrong;
        return 1;
    }
    if ((f = fcc_tfmd_get(dv, "float_value")) != NULL) {
        double v;
        if (!fcc_tfmd_double(im, f, &v))
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
    if ((f = fcc_tfmd_get(dv, "bytes_value")) != NULL) {
        if (!fcc_tfmd_string(im, f))
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
                   (int)ft->name_len, ft->name, fcc_tfmd_feature_types[ft->type]);
    return 0;
}

/* A column a representation reads: the schema's feature of that name. */
static feat *column(importer *im, const pt_field *name_field, feat *fs, size_t n, int *ok)
{
    feat *ft;
    if (name_field == NULL || !fcc_tfmd_string(im, name_field)) {
        *ok = 0; /* (a missing name is reported by the caller, which knows its place) */
        return NULL;
    }
    ft = fcc_tfmd_find(fs, n, name_field->text, name_field->len);
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
    feat *ft = column(im, fcc_tfmd_get(t, "column_name"), im->feats, im->nfeats, &ok);
    const pt_field *shape = fcc_tfmd_get_message(im, t, "shape", "FixedShape"), *dv;
    size_t rank = 0, k;
    long long dims[8];
    int fixed = 1;
    if (!ok || (shape != NULL && !fcc_tfmd_read_shape(im, shape, &rank, dims, &fixed)))
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
    if ((dv = fcc_tfmd_get(t, "default_value")) != NULL) {
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
    feat *ft = column(im, fcc_tfmd_get(t, "column_name"), im->feats, im->nfeats, &ok);
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
    const pt_field *f, *shape = fcc_tfmd_get_message(im, t, "dense_shape", "FixedShape");
    feat *value = column(im, fcc_tfmd_get(t, "value_column_name"), im->feats, im->nfeats, &ok);
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
    if (shape == NULL || !fcc_tfmd_read_shape(im, shape, &rank, dims, &fixed) || !fixed ||
        rank != nindex || rank == 0) {
        fcc_diag_error(im->d, (shape != NULL ? shape : rep)->loc,
                       "a sparse_tensor needs a dense_shape of one size per index column");
        return;
    }
    f = fcc_tfmd_get(t, "already_sorted");
    put_sparse(im, key, value, index, nindex, dims, f != NULL && fcc_tfmd_bool(im, f));
}

/* A ragged_tensor: a RaggedFeature of its value column and partitions. */
static void rep_ragged(importer *im, const pt_field *key, const pt_field *rep,
                       const pt_field *t)
{
    sbuf *b = im->out;
    int ok = 1;
    const pt_field *path = fcc_tfmd_get_message(im, t, "feature_path", "Path"), *f, *step = NULL;
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
    if ((f = fcc_tfmd_get(t, "row_partition_dtype")) != NULL) {
        const char *dt = fcc_tfmd_enum(im, f, fcc_tfmd_partition_dtypes, 3);
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
            fcc_tfmd_check_fields(im, f, "Partition");
            fcc_sb_str(b, first ? " partitions (" : ", ");
            first = 0;
            if ((x = fcc_tfmd_get(f, "uniform_row_length")) != NULL) {
                if (!fcc_tfmd_int(im, x, &u))
                    return;
                fcc_sb_printf(b, "uniform_row_length %lld", u);
            } else if ((x = fcc_tfmd_get(f, "row_length")) != NULL) {
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
    fcc_tfmd_check_fields(im, rep, "TensorRepresentation");
    if ((t = fcc_tfmd_get_message(im, rep, "dense_tensor", "DenseTensor")) != NULL)
        rep_dense(im, key, t);
    else if ((t = fcc_tfmd_get_message(im, rep, "varlen_sparse_tensor",
                                       "VarLenSparseTensor")) != NULL)
        rep_varlen(im, key, t);
    else if ((t = fcc_tfmd_get_message(im, rep, "sparse_tensor", "SparseTensor")) != NULL)
        rep_sparse(im, key, rep, t);
    else if ((t = fcc_tfmd_get_message(im, rep, "ragged_tensor", "RaggedTensor")) != NULL)
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
        fcc_tfmd_check_fields(im, g, "MapEntry");
        key = fcc_tfmd_get(g, "key");
        if (key != NULL && (!fcc_tfmd_string(im, key) || key->len != 0))
            continue; /* another group: not the one TFXIO reads by default */
        group = fcc_tfmd_get_message(im, g, "value", "TensorRepresentationGroup");
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
            fcc_tfmd_check_fields(im, e, "MapEntry");
            k = fcc_tfmd_get(e, "key");
            rep = fcc_tfmd_get_message(im, e, "value", "TensorRepresentation");
            if (k == NULL || !fcc_tfmd_string(im, k) || k->len == 0 || rep == NULL) {
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
    fcc_tfmd_check_fields(im, m, "SparseFeature");
    name = fcc_tfmd_get(m, "name");
    if (name == NULL || !fcc_tfmd_string(im, name)) {
        if (name == NULL)
            fcc_diag_error(im->d, m->loc, "a sparse_feature without a name");
        return;
    }
    if ((f = fcc_tfmd_get(m, "deprecated")) != NULL && fcc_tfmd_bool(im, f)) {
        fcc_sb_printf(b, "%s// sparse_feature \"%.*s\": deprecated, left out\n", im->indent,
                      (int)name->len, name->text);
        return;
    }
    if ((f = fcc_tfmd_get(m, "lifecycle_stage")) != NULL) {
        const char *st = fcc_tfmd_enum(im, f, fcc_tfmd_stages,
                                       sizeof fcc_tfmd_stages / sizeof fcc_tfmd_stages[0]);
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
            fcc_tfmd_check_fields(im, f, "IndexFeature");
            if (nindex == 8) {
                fcc_diag_error(im->d, f->loc, "more than 8 index features");
                return;
            }
            index[nindex] = column(im, fcc_tfmd_get(f, "name"), im->feats, im->nfeats, &ok);
            if (!ok) {
                if (fcc_tfmd_get(f, "name") == NULL)
                    fcc_diag_error(im->d, f->loc, "an index_feature without a name");
                return;
            }
            nindex++;
        }
    vf = fcc_tfmd_get_message(im, m, "value_feature", "ValueFeature");
    if (vf == NULL) {
        fcc_diag_error(im->d, m->loc, "sparse_feature \"%.*s\" has no value_feature",
                       (int)name->len, name->text);
        return;
    }
    value = column(im, fcc_tfmd_get(vf, "name"), im->feats, im->nfeats, &ok);
    if (!ok || nindex == 0) {
        if (ok)
            fcc_diag_error(im->d, m->loc, "sparse_feature \"%.*s\" has no index_feature",
                           (int)name->len, name->text);
        return;
    }
    if ((shape = fcc_tfmd_get_message(im, m, "dense_shape", "FixedShape")) != NULL) {
        if (!fcc_tfmd_read_shape(im, shape, &rank, dims, &fixed))
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
    f = fcc_tfmd_get(m, "is_sorted");
    put_sparse(im, name, value, index, nindex, dims, f != NULL && fcc_tfmd_bool(im, f));
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
    fcc_tfmd_check_fields(&im, im.schema, "Schema");
    if ((f = fcc_tfmd_get(im.schema, "represent_variable_length_as_ragged")) != NULL)
        im.ragged_varlen = fcc_tfmd_bool(&im, f);
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
    im.feats = fcc_tfmd_read_features(&im, im.schema, &im.nfeats);
    if (im.feats == NULL || d->errors > errors)
        return 0;
    if (!fcc_tfmd_read_lists(&im, &seq))
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
