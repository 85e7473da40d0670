/* featc export --tfmd: a spec's message as a TensorFlow Metadata Schema in
 * protobuf's text format, the schema.pbtxt a TFX pipeline reads (SchemaGen's
 * output, ExampleValidator's and Transform's input), written so that TFXIO
 * reads back the tensors featc parses, and `featc import --tfmd` the spec:
 *
 *   FixedLen, required     feature with presence.min_fraction 1 and shape
 *   FixedLen, a default    feature, and a dense_tensor representation in the
 *                          default group with the shape and default_value
 *                          (one value: TFMD's DefaultValue holds one)
 *   VarLen                 feature with value_count.max = the bound
 *   SparseFeature          sparse_feature (index and value features, the
 *                          dense shape; is_sorted for already_sorted), and a
 *                          feature per index key (int_domain [0, size - 1])
 *                          and for the value key
 *   RaggedFeature          a ragged_tensor representation over its value
 *                          feature, partitions row_length and
 *                          uniform_row_length (TFMD has no other kind)
 *   FixedLenSequence rows  a ragged_tensor with uniform_row_length: TFXIO
 *                          has no FixedLenSequenceFeature (a warning)
 *   SequenceExample        context features at the top, the feature lists
 *                          in the struct_domain of a STRUCT feature
 *                          ##SEQUENCE## (as TFXIO's sequence reader wants),
 *                          each with value_count: [k, k] for frames of k
 *                          values, [0, max] for VarLen frames
 *
 * What TFMD cannot say is a warning (hash buckets, list policies, the frame
 * bound) or, where the tensors would differ, an error.  Deterministic: the
 * spec's order. */
#include "spec.h"

#include <stdlib.h>
#include <string.h>

typedef struct exporter {
    diag *d;
    sbuf *b;
    const schema_message *m;
    const schema_feature *fs; /* the features the one written belongs to */
    size_t nfs;
    sbuf reps;                /* the default group's representations */
    /* keys already written as a Feature */
    const char **done;
    size_t *done_len;
    size_t ndone;
} exporter;

static void put_string(sbuf *b, const char *s, size_t n)
{
    fcc_sb_quoted(b, s, n, 1);
}

static const char *tfmd_type(fc_type t)
{
    return t == FC_TYPE_INT64 ? "INT" : t == FC_TYPE_FLOAT ? "FLOAT" : "BYTES";
}

static void put_shape(sbuf *b, const char *field, const size_t *dims, unsigned rank,
                      const char *indent)
{
    unsigned k;
    fcc_sb_printf(b, "%s%s {\n", indent, field);
    for (k = 0; k < rank; k++)
        fcc_sb_printf(b, "%s  dim {\n%s    size: %zu\n%s  }\n", indent, indent, dims[k], indent);
    fcc_sb_printf(b, "%s}\n", indent);
}

static int written(exporter *e, const char *key, size_t len)
{
    size_t i;
    for (i = 0; i < e->ndone; i++)
        if (e->done_len[i] == len && memcmp(e->done[i], key, len) == 0)
            return 1;
    return 0;
}

/* Opens `feature {` with its name and type, once per key. */
static int open_feature(exporter *e, const char *key, size_t len, fc_type t)
{
    if (written(e, key, len))
        return 0;
    e->done[e->ndone] = key;
    e->done_len[e->ndone++] = len;
    fcc_sb_str(e->b, "feature {\n  name: ");
    put_string(e->b, key, len);
    fcc_sb_printf(e->b, "\n  type: %s\n", tfmd_type(t));
    return 1;
}

/* A VarLen feature's Feature: value_count [0, max]. */
static void varlen_feature(exporter *e, const schema_feature *f, const char *extra)
{
    if (!open_feature(e, f->key, f->key_len, f->type))
        return;
    fcc_sb_printf(e->b, "  value_count {\n    min: 0\n    max: %zu\n  }\n%s}\n",
                  f->max, extra != NULL ? extra : "");
}

static void warn_extras(exporter *e, const schema_feature *f)
{
    if (f->hash_buckets > 0)
        fcc_diag_warning(e->d, f->ast->loc, "'%.*s': TFMD has no hash buckets: the feature is "
                         "exported, its bucket ids are not", (int)f->key_len, f->key);
}

static void default_value(const schema_feature *f, sbuf *r)
{
    fcc_sb_str(r, "          default_value {\n            ");
    if (f->type == FC_TYPE_INT64) {
        fcc_sb_printf(r, "int_value: %lld\n", (long long)f->def_int[0]);
    } else if (f->type == FC_TYPE_FLOAT) {
        float v = f->def_float[0];
        if (v != v)
            fcc_sb_str(r, "float_value: nan\n");
        else if (v > 3.4028235e38f || v < -3.4028235e38f)
            fcc_sb_str(r, v > 0 ? "float_value: inf\n" : "float_value: -inf\n");
        else
            fcc_sb_printf(r, "float_value: %.9g\n", (double)v);
    } else {
        fcc_sb_str(r, "bytes_value: ");
        put_string(r, f->def_bytes[0], f->def_bytes_len[0]);
        fcc_sb_str(r, "\n");
    }
    fcc_sb_str(r, "          }\n");
}

static int same_defaults(const schema_feature *f)
{
    size_t i;
    for (i = 1; i < f->ndefault; i++) {
        if (f->type == FC_TYPE_INT64 && f->def_int[i] != f->def_int[0])
            return 0;
        if (f->type == FC_TYPE_FLOAT && memcmp(&f->def_float[i], &f->def_float[0], sizeof(float)) != 0)
            return 0;
        if (f->type == FC_TYPE_BYTES &&
            (f->def_bytes_len[i] != f->def_bytes_len[0] ||
             memcmp(f->def_bytes[i], f->def_bytes[0], f->def_bytes_len[0]) != 0))
            return 0;
    }
    return 1;
}

/* A representation's opening: `tensor_representation { key: NAME value {`. */
static void open_rep(sbuf *r, const char *name)
{
    fcc_sb_str(r, "    tensor_representation {\n      key: ");
    put_string(r, name, strlen(name));
    fcc_sb_str(r, "\n      value {\n");
}

static void close_rep(sbuf *r)
{
    fcc_sb_str(r, "      }\n    }\n");
}

static void fixed(exporter *e, const schema_feature *f)
{
    sbuf *b = e->b, *r = &e->reps;
    if (!f->has_default) {
        if (open_feature(e, f->key, f->key_len, f->type)) {
            fcc_sb_str(b, "  presence {\n    min_fraction: 1\n  }\n");
            put_shape(b, "shape", f->dims, f->rank, "  ");
            fcc_sb_str(b, "}\n");
        }
        return;
    }
    if (!same_defaults(f)) {
        fcc_diag_error(e->d, f->ast->loc, "'%.*s': TFMD's default_value is one value, and this "
                       "default has several: no schema says it", (int)f->key_len, f->key);
        return;
    }
    if (open_feature(e, f->key, f->key_len, f->type))
        fcc_sb_str(b, "}\n");
    open_rep(r, f->cname);
    fcc_sb_str(r, "        dense_tensor {\n          column_name: ");
    put_string(r, f->key, f->key_len);
    fcc_sb_str(r, "\n");
    put_shape(r, "shape", f->dims, f->rank, "          ");
    default_value(f, r);
    fcc_sb_str(r, "        }\n");
    close_rep(r);
}

static void sparse(exporter *e, const schema_feature *f)
{
    sbuf *b = e->b;
    unsigned k;
    const schema_feature *value = &e->fs[f->sparse_fields[f->rank]];
    for (k = 0; k < f->rank; k++) {
        const schema_feature *ix = &e->fs[f->sparse_fields[k]];
        size_t size = f->dims[k];
        unsigned j;
        /* one key for several dimensions (TF allows it): the largest size */
        for (j = k + 1; j < f->rank; j++)
            if (f->sparse_fields[j] == f->sparse_fields[k] && f->dims[j] > size)
                size = f->dims[j];
        if (open_feature(e, ix->key, ix->key_len, FC_TYPE_INT64))
            fcc_sb_printf(b, "  value_count {\n    min: 0\n    max: %zu\n  }\n"
                             "  int_domain {\n    min: 0\n    max: %zu\n  }\n}\n",
                          ix->max, size - 1);
    }
    if (open_feature(e, value->key, value->key_len, value->type))
        fcc_sb_printf(b, "  value_count {\n    min: 0\n    max: %zu\n  }\n}\n", value->max);
    fcc_sb_str(b, "sparse_feature {\n  name: ");
    put_string(b, f->key, f->key_len);
    fcc_sb_str(b, "\n");
    for (k = 0; k < f->rank; k++) {
        const schema_feature *ix = &e->fs[f->sparse_fields[k]];
        fcc_sb_str(b, "  index_feature {\n    name: ");
        put_string(b, ix->key, ix->key_len);
        fcc_sb_str(b, "\n  }\n");
    }
    if (f->already_sorted)
        fcc_sb_str(b, "  is_sorted: true\n");
    fcc_sb_str(b, "  value_feature {\n    name: ");
    put_string(b, value->key, value->key_len);
    fcc_sb_str(b, "\n  }\n");
    put_shape(b, "dense_shape", f->dims, f->rank, "  ");
    fcc_sb_str(b, "}\n");
}

static void ragged(exporter *e, const schema_feature *f)
{
    sbuf *b = e->b, *r = &e->reps;
    const schema_feature *value = &e->fs[f->sparse_fields[0]];
    unsigned k;
    for (k = 0; k < f->nparts; k++) {
        const struct schema_part *pt = &f->parts[k];
        if (pt->kind != FC_PART_ROW_LENGTHS && pt->kind != FC_PART_UNIFORM_ROW_LENGTH) {
            fcc_diag_error(e->d, f->ast->loc, "'%.*s': TFMD's RaggedTensor partitions are "
                           "row_length and uniform_row_length: no schema says the others",
                           (int)f->key_len, f->key);
            return;
        }
    }
    if (open_feature(e, value->key, value->key_len, value->type))
        fcc_sb_printf(b, "  value_count {\n    min: 0\n    max: %zu\n  }\n}\n", f->max);
    for (k = 0; k < f->nparts; k++) {
        const struct schema_part *pt = &f->parts[k];
        const schema_feature *pf = &e->fs[pt->field];
        if (pt->kind == FC_PART_ROW_LENGTHS &&
            open_feature(e, pf->key, pf->key_len, FC_TYPE_INT64))
            fcc_sb_printf(b, "  value_count {\n    min: 0\n    max: %zu\n  }\n}\n", pt->max_rows);
    }
    open_rep(r, f->cname);
    fcc_sb_str(r, "        ragged_tensor {\n          feature_path {\n            step: ");
    put_string(r, value->key, value->key_len);
    fcc_sb_str(r, "\n          }\n");
    for (k = 0; k < f->nparts; k++) {
        const struct schema_part *pt = &f->parts[k];
        fcc_sb_str(r, "          partition {\n            ");
        if (pt->kind == FC_PART_UNIFORM_ROW_LENGTH) {
            fcc_sb_printf(r, "uniform_row_length: %zu\n", pt->length);
        } else {
            fcc_sb_str(r, "row_length: ");
            put_string(r, e->fs[pt->field].key, e->fs[pt->field].key_len);
            fcc_sb_str(r, "\n");
        }
        fcc_sb_str(r, "          }\n");
    }
    fcc_sb_printf(r, "          row_partition_dtype: %s\n        }\n", f->split64 ? "INT64" : "INT32");
    close_rep(r);
}

/* An Example's FixedLenSequence rows: values in rows of `elems`. */
static void rows(exporter *e, const schema_feature *f)
{
    sbuf *r = &e->reps;
    fcc_diag_warning(e->d, f->ast->loc, "'%.*s': TFXIO has no FixedLenSequenceFeature: exported "
                     "as a ragged_tensor of rows of %zu values (no padding, no default)",
                     (int)f->key_len, f->key, f->elems);
    if (open_feature(e, f->key, f->key_len, f->type))
        fcc_sb_printf(e->b, "  value_count {\n    min: 0\n    max: %zu\n  }\n}\n", f->max * f->elems);
    open_rep(r, f->cname);
    fcc_sb_str(r, "        ragged_tensor {\n          feature_path {\n            step: ");
    put_string(r, f->key, f->key_len);
    fcc_sb_printf(r, "\n          }\n          partition {\n            uniform_row_length: %zu\n"
                     "          }\n          row_partition_dtype: INT64\n        }\n", f->elems);
    close_rep(r);
}

/* Whether a SparseFeature or RaggedFeature of the message reads key too. */
static const schema_feature *shared_by(const exporter *e, const schema_feature *f)
{
    size_t i;
    unsigned k;
    for (i = 0; i < e->nfs; i++) {
        const schema_feature *g = &e->fs[i];
        unsigned n = g->kind == FC_KIND_SPARSE ? g->rank + 1 : g->kind == FC_KIND_RAGGED ? 1 : 0;
        for (k = 0; k < n; k++)
            if (&e->fs[g->sparse_fields[k]] == f)
                return g;
        for (k = 0; g->kind == FC_KIND_RAGGED && k < g->nparts; k++)
            if (g->parts[k].kind != FC_PART_UNIFORM_ROW_LENGTH && &e->fs[g->parts[k].field] == f)
                return g;
    }
    return NULL;
}

static void feature(exporter *e, const schema_feature *f)
{
    const schema_feature *by;
    if (f->hidden)
        return; /* written with the SparseFeature or RaggedFeature that reads it */
    if (f->kind == FC_KIND_VARLEN && (by = shared_by(e, f)) != NULL)
        fcc_diag_warning(e->d, f->ast->loc, "'%.*s': also read by '%.*s', and TFXIO gives a "
                         "feature to the %s that reads it only: no tensor of its own", (int)f->key_len, f->key,
                         (int)by->key_len, by->key, by->kind == FC_KIND_SPARSE ? "SparseFeature" : "RaggedFeature");
    warn_extras(e, f);
    switch (f->kind) {
    case FC_KIND_FIXED: fixed(e, f); break;
    case FC_KIND_VARLEN: varlen_feature(e, f, NULL); break;
    case FC_KIND_SPARSE: sparse(e, f); break;
    case FC_KIND_RAGGED: ragged(e, f); break;
    default: rows(e, f); break;
    }
}

/* A feature list in ##SEQUENCE##'s struct_domain. */
static void list(exporter *e, const schema_feature *f)
{
    sbuf *b = e->b;
    if (f->hidden)
        return;
    if (f->kind == FC_KIND_RAGGED) {
        fcc_diag_error(e->d, f->ast->loc, "'%.*s': a RaggedFeature per frame has no TFMD schema "
                       "(a struct_domain's features are flat lists per frame)", (int)f->key_len, f->key);
        return;
    }
    warn_extras(e, f);
    if (f->allow_missing || f->uniform)
        fcc_diag_warning(e->d, f->ast->loc, "'%.*s': TFMD has no %s: the policy is left out",
                         (int)f->key_len, f->key, f->allow_missing ? "allow_missing" : "uniform frames");
    fcc_sb_str(b, "    feature {\n      name: ");
    put_string(b, f->key, f->key_len);
    fcc_sb_printf(b, "\n      type: %s\n", tfmd_type(f->type));
    if (f->kind == FC_KIND_FIXED)
        fcc_sb_printf(b, "      value_count {\n        min: %zu\n        max: %zu\n      }\n",
                      f->elems, f->elems);
    else
        fcc_sb_printf(b, "      value_count {\n        min: 0\n        max: %zu\n      }\n", f->max);
    fcc_sb_str(b, "    }\n");
}

int fcc_emit_tfmd(const schema *s, const char *spec_name, const char *message, diag *d,
                  sbuf *b)
{
    exporter e;
    const schema_message *m = NULL;
    size_t i, n;
    memset(&e, 0, sizeof e);
    for (i = 0; i < s->nmessages; i++)
        if (message == NULL || strcmp(s->messages[i].name, message) == 0) {
            m = &s->messages[i];
            break;
        }
    if (m == NULL) {
        fcc_diag_fail(d, "error: no message named '%s'", message);
        return 0;
    }
    if (message == NULL && s->nmessages > 1) {
        fcc_diag_fail(d, "error: the spec has %zu messages, a schema is one: choose it with "
                         "--message NAME", s->nmessages);
        return 0;
    }
    n = m->nfeatures + m->nlists + 1;
    e.d = d;
    e.b = b;
    e.m = m;
    e.done = (const char **)calloc(n, sizeof *e.done);
    e.done_len = (size_t *)calloc(n, sizeof *e.done_len);
    if (e.done == NULL || e.done_len == NULL) {
        free(e.done);
        free(e.done_len);
        fcc_diag_fail(d, "error: out of memory");
        return 0;
    }
    fcc_sb_printf(b, "# Generated by featc export --tfmd from %s (%s %s); do not edit.\n"
                     "# A TensorFlow Metadata Schema: TFXIO reads from it the tensors featc\n"
                     "# parses (SchemaGen's output, ExampleValidator's and Transform's input).\n",
                  spec_name, m->sequence ? "sequence_example" : "example", m->name);
    e.fs = m->features;
    e.nfs = m->nfeatures;
    /* SparseFeatures first: an index key another feature also reads gets
     * its int_domain (the dense shape) from the SparseFeature */
    for (i = 0; i < m->nfeatures; i++)
        if (m->features[i].kind == FC_KIND_SPARSE)
            feature(&e, &m->features[i]);
    for (i = 0; i < m->nfeatures; i++)
        if (m->features[i].kind != FC_KIND_SPARSE)
            feature(&e, &m->features[i]);
    if (m->sequence && m->nlists > 0) {
        fcc_diag_warning(d, m->ast->loc, "'%s': TFMD has no bound on frames (feature_lists max "
                         "%zu)%s: featc import --tfmd takes it as --max-frames", m->name,
                         m->max_frames, m->aligned ? " nor aligned lists" : "");
        fcc_sb_str(b, "feature {\n  name: \"##SEQUENCE##\"\n  type: STRUCT\n  struct_domain {\n");
        e.fs = m->lists;
        e.nfs = m->nlists;
        for (i = 0; i < m->nlists; i++)
            list(&e, &m->lists[i]);
        fcc_sb_str(b, "  }\n}\n");
    }
    if (e.reps.n > 0) {
        fcc_sb_str(b, "tensor_representation_group {\n  key: \"\"\n  value {\n");
        fcc_sb_put(b, e.reps.s, e.reps.n);
        fcc_sb_str(b, "  }\n}\n");
    }
    if (e.reps.failed)
        b->failed = 1;
    free(e.reps.s);
    free(e.done);
    free(e.done_len);
    return !b->failed && d->errors == 0;
}
