/* featc export --tf: the spec as the Python that TensorFlow code uses for
 * the same schema, so that one checked-in spec drives both the C parser and
 * the training input function.
 *
 * For each message, module-level dicts named after it (upper case):
 *   example NAME           NAME_FEATURES = {key: tf.io.<Feature>(...)}
 *   sequence_example NAME  NAME_CONTEXT_FEATURES, NAME_SEQUENCE_FEATURES
 * and, for `hash_buckets`, NAME_FEATURE_COLUMNS: the feature columns whose
 * ids and vectors featc computes (categorical_column_with_hash_bucket, and
 * indicator_column for one_hot / multi_hot); for `as`, NAME_typed(parsed),
 * the casts and decode_raw that give the same tensors.  Fields read only for a
 * SparseFeature or RaggedFeature are not features of their own, as in TF.
 * Deterministic: the spec's order, fixed number formats. */
#include "spec.h"

#include <stdio.h>
#include <string.h>

static const char *tf_dtype(fc_type t)
{
    return t == FC_TYPE_INT64 ? "tf.int64" : t == FC_TYPE_FLOAT ? "tf.float32" : "tf.string";
}

/* A key as Python writes it: a str literal when the key is UTF-8 (code
 * points past ASCII as \u / \U escapes), else a bytes literal (TF takes
 * bytes keys too). */
static void py_lit(sbuf *b, const char *s, size_t n, int bytes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, k;
    unsigned long cp;
    fcc_sb_str(b, bytes ? "b\"" : "\"");
    while (i < n) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fcc_sb_printf(b, "\\%c", c);
            i++;
        } else if (c >= 0x20 && c < 0x7f) {
            fcc_sb_put(b, (const char *)&c, 1);
            i++;
        } else if (!bytes && (k = fcc_utf8_at(p + i, n - i, &cp)) > 1) {
            fcc_sb_printf(b, cp > 0xffff ? "\\U%08lx" : "\\u%04lx", cp);
            i += k;
        } else {
            fcc_sb_printf(b, "\\x%02x", c);
            i++;
        }
    }
    fcc_sb_str(b, "\"");
}

static void py_str(sbuf *b, const char *s, size_t n)
{
    size_t i = 0, k;
    unsigned long cp;
    while (i < n && (k = fcc_utf8_at((const unsigned char *)s + i, n - i, &cp)) > 0)
        i += k;
    py_lit(b, s, n, i < n);
}

static void py_bytes(sbuf *b, const char *s, size_t n)
{
    py_lit(b, s, n, 1);
}

static void py_float(sbuf *b, float f)
{
    if (f != f)
        fcc_sb_str(b, "float(\"nan\")");
    else if (f > 3.4028235e38f)
        fcc_sb_str(b, "float(\"inf\")");
    else if (f < -3.4028235e38f)
        fcc_sb_str(b, "float(\"-inf\")");
    else
        fcc_sb_printf(b, "%.9g", (double)f);
}

static void py_shape(sbuf *b, const schema_feature *f)
{
    unsigned k;
    fcc_sb_str(b, "[");
    for (k = 0; k < f->rank; k++)
        fcc_sb_printf(b, "%s%zu", k > 0 ? ", " : "", f->dims[k]);
    fcc_sb_str(b, "]");
}

/* default_value=: a scalar, or the shape's values flat (TF reshapes them) */
static void py_default(sbuf *b, const schema_feature *f)
{
    size_t i, n = f->ndefault;
    int list = f->kind == FC_KIND_FIXED && f->rank > 0;
    if (!f->has_default)
        return;
    fcc_sb_str(b, ", default_value=");
    if (list)
        fcc_sb_str(b, "[");
    for (i = 0; i < n; i++) {
        if (i > 0)
            fcc_sb_str(b, ", ");
        if (f->type == FC_TYPE_INT64)
            fcc_sb_printf(b, "%lld", (long long)f->def_int[i]);
        else if (f->type == FC_TYPE_FLOAT)
            py_float(b, f->def_float[i]);
        else
            py_bytes(b, f->def_bytes[i], f->def_bytes_len[i]);
    }
    if (list)
        fcc_sb_str(b, "]");
}

static const char *part_class(fc_part_kind k)
{
    switch (k) {
    case FC_PART_ROW_SPLITS: return "RowSplits";
    case FC_PART_ROW_LENGTHS: return "RowLengths";
    case FC_PART_ROW_STARTS: return "RowStarts";
    case FC_PART_ROW_LIMITS: return "RowLimits";
    case FC_PART_VALUE_ROWIDS: return "ValueRowIds";
    default: return "UniformRowLength";
    }
}

/* One feature description; fs: the message's features (for the fields a
 * SparseFeature or RaggedFeature names by number). */
static void feature(sbuf *b, const schema_feature *f, const schema_feature *fs, int list)
{
    unsigned k;
    fcc_sb_str(b, "    ");
    py_str(b, f->key, f->key_len);
    fcc_sb_str(b, ": ");
    switch (f->kind) {
    case FC_KIND_FIXED:
    case FC_KIND_ROWS:
        if (f->kind == FC_KIND_FIXED && !list) {
            fcc_sb_str(b, "tf.io.FixedLenFeature(");
            py_shape(b, f);
            fcc_sb_printf(b, ", %s", tf_dtype(f->type));
            py_default(b, f);
            fcc_sb_str(b, ")");
            break;
        }
        /* FixedLenSequenceFeature: an Example's rows (allow_missing, the
         * padding as default_value) or a list's fixed frames (no default) */
        fcc_sb_str(b, "tf.io.FixedLenSequenceFeature(");
        py_shape(b, f);
        fcc_sb_printf(b, ", %s, allow_missing=%s", tf_dtype(f->type),
                      f->kind == FC_KIND_ROWS || f->allow_missing ? "True" : "False");
        py_default(b, f);
        fcc_sb_str(b, ")");
        break;
    case FC_KIND_VARLEN:
        fcc_sb_printf(b, "tf.io.VarLenFeature(%s)", tf_dtype(f->type));
        break;
    case FC_KIND_SPARSE:
        fcc_sb_str(b, "tf.io.SparseFeature(index_key=[");
        for (k = 0; k < f->rank; k++) {
            const schema_feature *ix = &fs[f->sparse_fields[k]];
            if (k > 0)
                fcc_sb_str(b, ", ");
            py_str(b, ix->key, ix->key_len);
        }
        fcc_sb_str(b, "], value_key=");
        py_str(b, fs[f->sparse_fields[f->rank]].key, fs[f->sparse_fields[f->rank]].key_len);
        fcc_sb_printf(b, ", dtype=%s, size=", tf_dtype(f->type));
        py_shape(b, f);
        fcc_sb_printf(b, ", already_sorted=%s)", f->already_sorted ? "True" : "False");
        break;
    default: /* FC_KIND_RAGGED */
        fcc_sb_printf(b, "tf.io.RaggedFeature(%s, value_key=", tf_dtype(f->type));
        py_str(b, fs[f->sparse_fields[0]].key, fs[f->sparse_fields[0]].key_len);
        fcc_sb_str(b, ", partitions=[");
        for (k = 0; k < f->nparts; k++) {
            const struct schema_part *pt = &f->parts[k];
            fcc_sb_printf(b, "%stf.io.RaggedFeature.%s(", k > 0 ? ", " : "", part_class(pt->kind));
            if (pt->kind == FC_PART_UNIFORM_ROW_LENGTH)
                fcc_sb_printf(b, "%zu", pt->length);
            else
                py_str(b, fs[pt->field].key, fs[pt->field].key_len);
            fcc_sb_str(b, ")");
        }
        fcc_sb_printf(b, "], row_splits_dtype=%s)", f->split64 ? "tf.int64" : "tf.int32");
        break;
    }
    fcc_sb_str(b, ",\n");
}

static void dict(sbuf *b, const char *upper, const char *suffix, const schema_feature *fs, size_t n,
                 int list)
{
    size_t i;
    fcc_sb_printf(b, "%s_%s = {\n", upper, suffix);
    for (i = 0; i < n; i++)
        if (!fs[i].hidden)
            feature(b, &fs[i], fs, list);
    fcc_sb_str(b, "}\n");
}

/* The feature columns behind `hash_buckets`: TF's hashing of the values
 * into buckets (categorical_column_with_hash_bucket; int64 values are
 * hashed as their decimal text, as TF does), and the indicator column for
 * a one_hot or multi_hot vector. */
static void columns(sbuf *b, const char *upper, const char *suffix, const schema_feature *fs,
                    size_t n, int lists)
{
    size_t i, any = 0;
    for (i = 0; i < n; i++)
        any += fs[i].hash_buckets > 0;
    if (any == 0)
        return;
    fcc_sb_printf(b, "%s_%s = {\n", upper, suffix);
    for (i = 0; i < n; i++) {
        const schema_feature *f = &fs[i];
        if (f->hash_buckets == 0)
            continue;
        fcc_sb_str(b, "    ");
        py_str(b, f->key, f->key_len);
        fcc_sb_str(b, ": ");
        if (f->hot)
            fcc_sb_str(b, "tf.feature_column.indicator_column(");
        fcc_sb_str(b, lists ? "tf.feature_column.sequence_categorical_column_with_hash_bucket("
                            : "tf.feature_column.categorical_column_with_hash_bucket(");
        py_str(b, f->key, f->key_len);
        fcc_sb_printf(b, ", %zu, dtype=%s)%s,\n", f->hash_buckets, tf_dtype(f->type),
                      f->hot ? ")" : "");
    }
    fcc_sb_str(b, "}\n");
}

/* `as TYPE [dims]`: NAME_typed(parsed), the tensors featc's batches give,
 * from what parse_example (parse_single_example, or the context of
 * parse_sequence_example) returns: tf.cast, or decode_raw and a reshape;
 * NAME_sequence_typed(parsed) (lists) the same of its feature lists. */
static void typed(sbuf *b, const char *name, const schema_feature *fs, size_t n, int lists)
{
    size_t i, any = 0;
    unsigned r;
    for (i = 0; i < n; i++)
        any += fs[i].as != FC_AS_NONE;
    if (any == 0)
        return;
    fcc_sb_printf(b,
                  "\n\ndef %s%s_typed(parsed):\n"
                  "    \"\"\"The tensors of the spec's 'as' types, from the parsed %s (one\n"
                  "    record or a batch).  tf.cast wraps a value out of range where featc\n"
                  "    refuses the record.%s\"\"\"\n"
                  "    out = dict(parsed)\n",
                  name, lists ? "_sequence" : "", lists ? "feature lists" : "features",
                  lists ? "  (A batch's padding frames of bytes lists are \"\", which\n"
                          "    decode_raw cannot reshape; featc pads the typed frames with 0.)"
                        : "");
    for (i = 0; i < n; i++) {
        const schema_feature *f = &fs[i];
        if (f->as == FC_AS_NONE)
            continue;
        fcc_sb_str(b, "    out[");
        py_str(b, f->key, f->key_len);
        if (f->type != FC_TYPE_BYTES) {
            fcc_sb_printf(b, "] = tf.cast(parsed[");
            py_str(b, f->key, f->key_len);
            fcc_sb_printf(b, "], tf.%s)\n", fc_as_name(f->as));
            continue;
        }
        fcc_sb_str(b, "] = tf.reshape(\n        tf.io.decode_raw(parsed[");
        py_str(b, f->key, f->key_len);
        fcc_sb_printf(b, "], tf.%s, little_endian=True),\n        tf.concat([tf.shape(parsed[",
                      fc_as_name(f->as));
        py_str(b, f->key, f->key_len);
        fcc_sb_str(b, "]), [");
        for (r = 0; r < f->as_rank; r++)
            fcc_sb_printf(b, "%s%zu", r ? ", " : "", f->as_dims[r]);
        fcc_sb_str(b, "]], 0))\n");
    }
    fcc_sb_str(b, "    return out\n");
}

int fcc_emit_tf(const schema *s, const char *spec_name, sbuf *b)
{
    size_t m;
    fcc_sb_printf(b,
                  "# Generated by featc export --tf from %s; do not edit.\n"
                  "# TensorFlow's feature descriptions of the spec's messages: pass\n"
                  "# NAME_FEATURES to tf.io.parse_example or parse_single_example, and\n"
                  "# NAME_CONTEXT_FEATURES and NAME_SEQUENCE_FEATURES to\n"
                  "# tf.io.parse_sequence_example or parse_single_sequence_example.\n"
                  "import tensorflow as tf\n",
                  spec_name);
    for (m = 0; m < s->nmessages; m++) {
        const schema_message *sm = &s->messages[m];
        const char *upper = sm->upper + strlen(s->upper) + 1; /* MESSAGE of PACKAGE_MESSAGE */
        fcc_sb_printf(b, "\n# %s %s\n", sm->sequence ? "sequence_example" : "example", sm->name);
        if (!sm->sequence) {
            dict(b, upper, "FEATURES", sm->features, sm->nfeatures, 0);
        } else {
            dict(b, upper, "CONTEXT_FEATURES", sm->features, sm->nfeatures, 0);
            dict(b, upper, "SEQUENCE_FEATURES", sm->lists, sm->nlists, 1);
        }
        columns(b, upper, "FEATURE_COLUMNS", sm->features, sm->nfeatures, 0);
        if (sm->sequence)
            columns(b, upper, "SEQUENCE_FEATURE_COLUMNS", sm->lists, sm->nlists, 1);
        typed(b, sm->name, sm->features, sm->nfeatures, 0);
        if (sm->sequence)
            typed(b, sm->name, sm->lists, sm->nlists, 1);
    }
    return !b->failed;
}
