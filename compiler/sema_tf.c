/* Semantic checks (sema.h): TensorFlow's words for the specs it refuses,
 * as the notes "TensorFlow rejects this with: "..."" print them: Python's
 * repr() of keys, bytes and numbers, and the texts of _ParseOpParams
 * (tensorflow/python/ops/parsing_config.py). */
#include "sema.h"

#include <ctype.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Python's repr() of a str (a key, as TensorFlow's messages print keys in
 * sets) or, with `bytes`, of a bytes value: quoted with ' (" when the value
 * holds ' and not "), \\ \n \r \t and other control bytes escaped; a str's
 * UTF-8 as it is (Python prints it so), a bytes value's bytes past ASCII as
 * \xNN, after a b. */
static void py_quoted(sbuf *b, const char *s, size_t n, int bytes)
{
    char q = memchr(s, '\'', n) != NULL && memchr(s, '"', n) == NULL ? '"' : '\'';
    size_t i;
    if (bytes)
        fcc_sb_put(b, "b", 1);
    fcc_sb_put(b, &q, 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == (unsigned char)q)
            fcc_sb_printf(b, "\\%c", c);
        else if (c == '\n')
            fcc_sb_str(b, "\\n");
        else if (c == '\r')
            fcc_sb_str(b, "\\r");
        else if (c == '\t')
            fcc_sb_str(b, "\\t");
        else if (c < 0x20 || c == 0x7f || (bytes && c > 0x7f))
            fcc_sb_printf(b, "\\x%02x", c);
        else
            fcc_sb_put(b, (const char *)&c, 1);
    }
    fcc_sb_put(b, &q, 1);
}

/* Python's repr() of the number `featc export --tf` writes for float f
 * ("%.9g"): that text as it is when Python reads it as an int; else the
 * repr of the double it reads, the shortest text that reads back to it,
 * positional from 1e-4 to below 1e16, else with an exponent (repr(0.25) is
 * '0.25', repr(1e+20) '1e+20', repr(3.0) '3.0'). */
static void py_number_repr(sbuf *b, float f)
{
    char text[32], e[40], digits[24];
    double x;
    int prec, exp, nd = 0, k;
    if (f != f) {
        fcc_sb_str(b, "nan");
        return;
    }
    if (f > FLT_MAX || f < -FLT_MAX) {
        fcc_sb_str(b, f > 0 ? "inf" : "-inf");
        return;
    }
    snprintf(text, sizeof text, "%.9g", (double)f);
    if (strpbrk(text, ".e") == NULL) {
        fcc_sb_str(b, text);
        return;
    }
    x = strtod(text, NULL);
    for (prec = 1; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    snprintf(e, sizeof e, "%.*e", prec - 1, x);
    for (k = 0; e[k] != 'e'; k++)
        if (isdigit((unsigned char)e[k]))
            digits[nd++] = e[k];
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    exp = atoi(e + k + 1);
    if (x < 0)
        fcc_sb_str(b, "-");
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            fcc_sb_str(b, "0.");
            for (k = 0; k < -exp - 1; k++)
                fcc_sb_str(b, "0");
            fcc_sb_put(b, digits, (size_t)nd);
        } else {
            for (k = 0; k <= exp; k++)
                fcc_sb_put(b, k < nd ? &digits[k] : "0", 1);
            fcc_sb_str(b, ".");
            if (nd > exp + 1)
                fcc_sb_put(b, digits + exp + 1, (size_t)(nd - exp - 1));
            else
                fcc_sb_str(b, "0");
        }
    } else {
        fcc_sb_put(b, digits, 1);
        if (nd > 1) {
            fcc_sb_str(b, ".");
            fcc_sb_put(b, digits + 1, (size_t)(nd - 1));
        }
        fcc_sb_printf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

/* The note of _ParseOpParams.from_features for a FixedLenSequenceFeature
 * among a SequenceExample's context features: "Unsupported
 * FixedLenSequenceFeature FixedLenSequenceFeature(shape=[2], dtype=tf.int64,
 * allow_missing=True, default_value=None)." with the repr() of the
 * description `featc export --tf` writes for the feature in an example. */
void fcc_tf_unsupported_rows(diag *d, spec_loc loc, const schema_feature *f)
{
    sbuf b = {NULL, 0, 0, 0};
    unsigned k;
    fcc_sb_str(&b, "Unsupported FixedLenSequenceFeature FixedLenSequenceFeature(shape=[");
    for (k = 0; k < f->rank; k++)
        fcc_sb_printf(&b, "%s%zu", k > 0 ? ", " : "", f->dims[k]);
    fcc_sb_printf(&b, "], dtype=%s, allow_missing=True, default_value=",
                  f->type == FC_TYPE_INT64   ? "tf.int64"
                  : f->type == FC_TYPE_FLOAT ? "tf.float32"
                                             : "tf.string");
    if (!f->has_default)
        fcc_sb_str(&b, "None");
    else if (f->type == FC_TYPE_INT64)
        fcc_sb_printf(&b, "%lld", (long long)f->def_int[0]);
    else if (f->type == FC_TYPE_FLOAT)
        py_number_repr(&b, f->def_float[0]);
    else
        py_quoted(&b, f->def_bytes[0], f->def_bytes_len[0], 1);
    fcc_sb_str(&b, ").");
    if (!b.failed)
        fcc_diag_tf(d, loc, "%s", b.s);
    free(b.s);
}

/* The note "TensorFlow rejects this with: "WHAT keys must not intersect;
 * intersection: {'KEY'}"" (_ParseOpParams._validate). */
void fcc_tf_intersect(diag *d, spec_loc loc, const char *what, const char *key, size_t len)
{
    sbuf b = {NULL, 0, 0, 0};
    fcc_sb_printf(&b, "%s keys must not intersect; intersection: {", what);
    py_quoted(&b, key, len, 0);
    fcc_sb_str(&b, "}");
    if (!b.failed)
        fcc_diag_tf(d, loc, "%s", b.s);
    free(b.s);
}

/* str() of TensorFlow's DType of t, as "%s" prints it: <dtype: 'int64'>. */
static const char *tf_dtype_str(fc_type t)
{
    return t == FC_TYPE_INT64   ? "<dtype: 'int64'>"
           : t == FC_TYPE_FLOAT ? "<dtype: 'float32'>"
                                : "<dtype: 'string'>";
}

/* The notes of _add_sparse_key and _add_ragged_key: "Conflicting WHAT A vs
 * B for feature K.", A what first_by gives the key, B what other does, in
 * the order TensorFlow meets them: it adds the features in sorted key order,
 * so A is the one of the feature whose key sorts first. */
static void conflicting(diag *d, spec_loc loc, const char *what, const schema_feature *first_by,
                        const schema_feature *other, const char *a, const char *b, const char *key,
                        size_t len)
{
    int first = fcc_key_cmp(first_by->key, first_by->key_len, other->key, other->key_len) <= 0;
    fcc_diag_tf(d, loc, "Conflicting %s %s vs %s for feature %.*s.", what, first ? a : b,
                first ? b : a, (int)len, key);
}

void fcc_tf_conflicting(diag *d, spec_loc loc, const schema_feature *first_by,
                        const schema_feature *other, fc_type first_type, fc_type other_type,
                        const char *key, size_t len)
{
    conflicting(d, loc, "type", first_by, other, tf_dtype_str(first_type),
                tf_dtype_str(other_type), key, len);
}

/* The same for two RaggedFeatures whose row splits types differ. */
void fcc_tf_conflicting_splits(diag *d, spec_loc loc, const schema_feature *first_by,
                               const schema_feature *other, const char *key, size_t len)
{
    conflicting(d, loc, "partition type", first_by, other,
                first_by->split64 ? "<dtype: 'int64'>" : "<dtype: 'int32'>",
                other->split64 ? "<dtype: 'int64'>" : "<dtype: 'int32'>", key, len);
}

/* Whether a declares a dense feature (FixedLen, FixedLenSequence). */
static int ast_dense(const ast_feature *a)
{
    return !a->sparse && !a->ragged && (!a->has_shape || a->dims != NULL);
}

/* The note for a '?' past the first dimension.  With a known first one it
 * is a FixedLenFeature, which TensorFlow's Python refuses; after a '?' it
 * is a FixedLenSequenceFeature, which Python passes to the op with the
 * shape [None] + its own, and the op refuses, naming the feature by its
 * place among the dense keys (sorted) and the shape as TensorShape prints
 * it.  all: the example's features; NULL in a context, where TensorFlow
 * refuses a FixedLenSequenceFeature before that (no note then). */
void fcc_tf_question_dims(diag *d, spec_loc loc, const schema_feature *f, const ast_feature *a,
                          const ast_feature *all)
{
    const ast_feature *o;
    const ast_dim *dm;
    size_t i = 0;
    sbuf b = {NULL, 0, 0, 0};
    if (!a->dims->unknown) {
        fcc_tf_unknown_dims(d, loc, f, a);
        return;
    }
    if (all == NULL)
        return;
    for (o = all; o != NULL; o = o->next)
        if (o != a && ast_dense(o) && fcc_key_cmp(o->key, o->key_len, a->key, a->key_len) < 0)
            i++;
    fcc_sb_str(&b, "[");
    for (dm = a->dims; dm != NULL; dm = dm->next)
        fcc_sb_printf(&b, "%s%s", dm == a->dims ? "" : ",", dm->unknown ? "?" : dm->text);
    fcc_sb_str(&b, "]");
    if (!b.failed)
        fcc_diag_tf(d, loc, "dense_shapes[%zu] has unknown rank or unknown inner dimensions: %s", i,
                    b.s);
    free(b.s);
}
