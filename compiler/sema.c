/* Semantic checks: from the syntax tree to a schema the emitter can trust.
 * Every rule that can reject a spec lives here, with a diagnostic that says
 * what is wrong and, where there is one, how to write it instead. */
#include "sema.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ features */

size_t fcc_elem_bytes(fc_type t)
{
    return t == FC_TYPE_BYTES ? sizeof(fc_bytes) : t == FC_TYPE_FLOAT ? sizeof(float)
                                                                     : sizeof(int64_t);
}

/* The edit distance of a and b (the optimal string alignment distance: an
 * insertion, a deletion, a substitution or a transposition of neighbours
 * each count 1), or 3 when it is over 2 or a word is long. */
static int near_words(const char *a, const char *b)
{
    int d[16][16];
    size_t n = strlen(a), m = strlen(b), i, j;
    if (n >= 16 || m >= 16 || (n > m ? n - m : m - n) > 2)
        return 3;
    for (i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (i = 1; i <= n; i++)
        for (j = 1; j <= m; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1;
            d[i][j] = c;
        }
    return d[n][m] > 2 ? 3 : d[n][m];
}

/* The nearest of int64, float and bytes to an unknown type name: a known
 * confusion (string, int32, double, ...), else a misspelling within two
 * edits that no other type is as near (flaot, int46, bytse); or NULL. */
static const char *nearest_type(const char *word)
{
    static const char *const types[] = {"int64", "float", "bytes"};
    static const struct {
        const char *word, *hint;
    } hints[] = {{"string", "bytes"}, {"str", "bytes"},     {"tf.string", "bytes"},
                 {"int", "int64"},    {"int32", "int64"},   {"long", "int64"},
                 {"uint64", "int64"}, {"float32", "float"}, {"double", "float"},
                 {"float64", "float"}};
    const char *near = NULL;
    int best = 3, tie = 0, k;
    size_t i;
    for (i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (strcmp(word, hints[i].word) == 0)
            return hints[i].hint;
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        k = near_words(word, types[i]);
        if (k < best) {
            best = k;
            near = types[i];
            tie = 0;
        } else if (k == best) {
            tie = 1;
        }
    }
    return near != NULL && !tie && (size_t)best < strlen(word) ? near : NULL;
}

/* A dtype name TensorFlow has that tf.train.Feature cannot hold: its
 * DataTypeString in *c (tf.float64: "double") and its Python name in *py
 * ("float64"); 0 when TensorFlow has no such dtype. */
static int tf_only_dtype(const char *word, const char **c, const char **py)
{
    static const struct {
        const char *word, *c, *py;
    } dtypes[] = {{"int8", "int8", "int8"},          {"int16", "int16", "int16"},
                  {"int32", "int32", "int32"},       {"uint8", "uint8", "uint8"},
                  {"uint16", "uint16", "uint16"},    {"uint32", "uint32", "uint32"},
                  {"uint64", "uint64", "uint64"},    {"float16", "half", "float16"},
                  {"half", "half", "float16"},       {"float64", "double", "float64"},
                  {"double", "double", "float64"},   {"bfloat16", "bfloat16", "bfloat16"},
                  {"bool", "bool", "bool"},          {"complex64", "complex64", "complex64"},
                  {"complex128", "complex128", "complex128"}};
    size_t i;
    for (i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(word, dtypes[i].word) == 0) {
            *c = dtypes[i].c;
            *py = dtypes[i].py;
            return 1;
        }
    return 0;
}

static int check_type(diag *d, schema_feature *f, const ast_feature *a)
{
    const char *near, *tf, *py;
    if (strcmp(a->type, "int64") == 0) {
        f->type = FC_TYPE_INT64;
        return 1;
    }
    if (strcmp(a->type, "float") == 0) {
        f->type = FC_TYPE_FLOAT;
        return 1;
    }
    if (strcmp(a->type, "bytes") == 0) {
        f->type = FC_TYPE_BYTES;
        return 1;
    }
    near = nearest_type(a->type);
    if (near != NULL)
        fcc_diag_error(d, a->type_loc,
                       "unknown type '%s'; did you mean '%s'? (the types are int64, float and "
                       "bytes, as in tf.train.Feature)",
                       a->type, near);
    else
        fcc_diag_error(d, a->type_loc,
                       "unknown type '%s' (the types are int64, float and bytes, as in "
                       "tf.train.Feature)",
                       a->type);
    /* a dtype TensorFlow has: RaggedFeature refuses it itself, the parse
     * op's attribute check every other feature */
    if (tf_only_dtype(a->type, &tf, &py)) {
        if (a->ragged)
            fcc_diag_tf(d, a->type_loc, "dtypes must be int64, float32, or bytes; got tf.%s", py);
        else
            fcc_diag_tf(d, a->type_loc,
                        "Value for attr '%s' of %s is not in the list of allowed values: float, "
                        "int64, string",
                        a->sparse || (a->has_shape && a->dims == NULL) ? "sparse_types" : "Tdense",
                        tf);
    }
    return 0;
}

static int check_shape(diag *d, schema_feature *f, const ast_feature *a, const ast_feature *all)
{
    const ast_dim *dm;
    unsigned rank = 0;
    uint64_t elems = 1, maxv = 0;
    int rows = 0;
    if (a->max_text != NULL && (!fcc_parse_u64(a->max_text, &maxv) || maxv > FEATC_MAX_ELEMENTS)) {
        fcc_diag_error(d, a->max_loc, "bound %s of '%s' is larger than the limit of %u values",
                       a->max_text, f->cname, (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (!a->has_shape) { /* FixedLen scalar */
        f->kind = FC_KIND_FIXED;
        if (a->max_text != NULL) {
            fcc_diag_error(d, a->max_loc,
                           "'max' bounds a VarLen ('[]') or sequence ('[?, ...]') feature; '%s' is "
                           "a FixedLen scalar",
                           f->cname);
            return 0;
        }
        f->rank = 0;
        f->elems = f->max = 1;
        return 1;
    }
    if (a->dims == NULL) { /* [] : VarLen */
        f->kind = FC_KIND_VARLEN;
        f->elems = 1;
        if (a->max_text == NULL) {
            fcc_diag_error(d, a->shape_loc,
                           "VarLen feature '%s' needs a bound: write '%s[] max N' (generated "
                           "structs hold their values in place)",
                           f->cname, fcc_type_word(f->type));
            return 0;
        }
        if (maxv == 0) {
            fcc_diag_error(d, a->max_loc, "a bound of 0 leaves no room for any value of '%s'",
                           f->cname);
            return 0;
        }
        f->max = (size_t)maxv;
        return 1;
    }
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        uint64_t v;
        if (dm->unknown) {
            if (dm != a->dims) {
                fcc_diag_error(d, dm->loc,
                               "only the first dimension can be '?' (a sequence of rows of a "
                               "fixed shape)");
                fcc_tf_question_dims(d, dm->loc, f, a, all);
                return 0;
            }
            rows = 1;
            continue;
        }
        if (rank == FC_MAX_RANK) {
            fcc_diag_error(d, dm->loc, "shape of '%s' has more than %d dimensions", f->cname,
                           FC_MAX_RANK);
            return 0;
        }
        if (!fcc_parse_u64(dm->text, &v) || v > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, dm->loc, "dimension %s of '%s' is larger than the limit of %u",
                           dm->text, f->cname, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
        if (v == 0 && rows) {
            fcc_diag_error(d, dm->loc,
                           "rows of sequence feature '%s' would hold no values (TensorFlow "
                           "divides by the row size)",
                           f->cname);
            return 0;
        }
        f->dims[rank++] = (size_t)v;
        elems *= v;
        if (elems > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, a->shape_loc, "shape of '%s' holds more than %u values", f->cname,
                           (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
    }
    f->rank = rank;
    f->elems = (size_t)elems;
    if (rows) {
        f->kind = FC_KIND_ROWS;
        if (a->max_text == NULL) {
            fcc_diag_error(d, a->shape_loc,
                           "sequence feature '%s' needs a bound on its rows: write '... max N'",
                           f->cname);
            return 0;
        }
        if (maxv == 0) {
            fcc_diag_error(d, a->max_loc, "a bound of 0 leaves no room for any row of '%s'",
                           f->cname);
            return 0;
        }
        if (maxv * elems > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, a->max_loc,
                           "%s rows of %zu values hold more than %u values; lower the bound",
                           a->max_text, f->elems, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
        f->max = (size_t)maxv;
        return 1;
    }
    f->kind = FC_KIND_FIXED;
    f->max = f->elems;
    if (a->max_text != NULL) {
        fcc_diag_error(d, a->max_loc,
                       "'max' bounds a VarLen ('[]') or sequence ('[?, ...]') feature; '%s' is "
                       "FixedLen and its size is its shape",
                       f->cname);
        return 0;
    }
    return 1;
}

/* The shape of a feature-list feature: no brackets (a scalar per frame),
 * `[dims]` (a fixed frame shape) or `[] max N` (VarLen per frame). */
static int check_list_shape(diag *d, schema_feature *f, const ast_feature *a)
{
    const ast_dim *dm;
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        if (dm->unknown) {
            fcc_diag_error(d, dm->loc,
                           "feature list '%s' is a sequence already: give the shape of one frame, "
                           "without '?'",
                           f->cname);
            return 0;
        }
    }
    if (a->max_text != NULL && (!a->has_shape || a->dims != NULL)) {
        fcc_diag_error(d, a->max_loc,
                       "'max' bounds the values of one frame of a VarLen list ('%s[] max N'); the "
                       "frames of '%s' have a fixed shape (the frame bound is 'feature_lists max "
                       "N')",
                       fcc_type_word(f->type), f->cname);
        return 0;
    }
    if (a->has_shape && a->dims == NULL && a->max_text == NULL) {
        fcc_diag_error(d, a->shape_loc,
                       "VarLen feature list '%s' needs a bound on the values of one frame: write "
                       "'%s[] max N'",
                       f->cname, fcc_type_word(f->type));
        return 0;
    }
    if (!check_shape(d, f, a, NULL))
        return 0;
    if (f->kind == FC_KIND_FIXED && f->elems == 0) {
        fcc_diag_error(d, a->shape_loc,
                       "frames of feature list '%s' would hold no values (TensorFlow divides by "
                       "the frame size)",
                       f->cname);
        return 0;
    }
    return 1;
}

/* Policy words after a feature.  Only feature lists take them. */
/* `KEY : sparse TYPE [sizes] max N index KEYS value KEY`: TensorFlow's
 * SparseFeature.  Its keys are resolved to fields in fcc_resolve_sparse. */
static int check_sparse(diag *d, schema_feature *f, const ast_feature *a, role r)
{
    const ast_dim *dm;
    const ast_key *k;
    unsigned rank = 0, nkeys = 0;
    uint64_t maxv;
    if (r != ROLE_EXAMPLE) {
        fcc_diag_error(d, a->sparse_loc,
                       "SparseFeature '%s' belongs in an example: TensorFlow's sequence parsers "
                       "take no SparseFeature",
                       f->cname);
        return 0;
    }
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        uint64_t v;
        if (dm->unknown || rank == FC_MAX_RANK || !fcc_parse_u64(dm->text, &v) || v == 0 ||
            v > INT64_MAX) {
            fcc_diag_error(d, dm->loc,
                           "the size of SparseFeature '%s' is a dense shape: one known dimension "
                           "of at least 1 per index key, at most %d of them",
                           f->cname, FC_MAX_RANK);
            return 0;
        }
        f->dims[rank++] = (size_t)v;
    }
    for (k = a->index_keys; k != NULL; k = k->next)
        nkeys++;
    if (nkeys != rank) {
        fcc_diag_error(d, a->index_loc,
                       "SparseFeature '%s' has %u index key%s for a size of %u dimension%s: one "
                       "index key per dimension",
                       f->cname, nkeys, nkeys == 1 ? "" : "s", rank, rank == 1 ? "" : "s");
        return 0;
    }
    if (!fcc_parse_u64(a->max_text, &maxv) || maxv > FEATC_MAX_ELEMENTS || maxv == 0) {
        fcc_diag_error(d, a->max_loc, "bound %s of '%s' must be from 1 to %u values", a->max_text,
                       f->cname, (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (a->def != NULL) {
        fcc_diag_error(d, a->def->loc, "SparseFeature '%s' takes no default", f->cname);
        return 0;
    }
    f->kind = FC_KIND_SPARSE;
    f->rank = rank;
    f->elems = 1;
    f->max = (size_t)maxv;
    return 1;
}

/* `KEY : ragged TYPE max N [value K] [partitions (...)] [split T]`:
 * TensorFlow's RaggedFeature.  The row bound of each partition follows from
 * the one inside it; keys are resolved to fields in fcc_resolve_ragged. */
static int check_ragged(diag *d, schema_feature *f, const ast_feature *a)
{
    static const struct {
        const char *word;
        fc_part_kind kind;
    } kinds[] = {{"row_splits", FC_PART_ROW_SPLITS},     {"row_lengths", FC_PART_ROW_LENGTHS},
                 {"row_starts", FC_PART_ROW_STARTS},     {"row_limits", FC_PART_ROW_LIMITS},
                 {"value_rowids", FC_PART_VALUE_ROWIDS},
                 {"uniform_row_length", FC_PART_UNIFORM_ROW_LENGTH}};
    const ast_part *pa;
    uint64_t v;
    size_t inner;
    unsigned np = 0, q, k;
    if (!fcc_parse_u64(a->max_text, &v) || v == 0 || v > FEATC_MAX_ELEMENTS) {
        fcc_diag_error(d, a->max_loc, "bound %s of '%s' must be from 1 to %u values", a->max_text,
                       f->cname, (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (a->value_key != NULL && a->value_key->len == 0) {
        fcc_diag_error(d, a->value_key->loc, "the value key of RaggedFeature '%s' is empty",
                       f->cname);
        fcc_diag_tf(d, a->value_key->loc, "value_key may not be empty");
        return 0;
    }
    f->kind = FC_KIND_RAGGED;
    f->elems = 1;
    f->max = (size_t)v;
    f->split64 = 0; /* TensorFlow's default: int32 */
    if (a->split_text != NULL) {
        if (strcmp(a->split_text, "int64") == 0) {
            f->split64 = 1;
        } else if (strcmp(a->split_text, "int32") != 0) {
            static const char *const tf_types[] = {
                "float16", "float32", "float64", "bfloat16", "complex64", "complex128", "int8",
                "uint8", "uint16", "uint32", "uint64", "int16", "bool", "string", "qint8",
                "quint8", "qint16", "quint16", "qint32", "resource", "variant"};
            size_t t;
            fcc_diag_error(d, a->split_loc,
                           "row_splits_dtype must be int32 or int64; got %s (RaggedFeature '%s')",
                           a->split_text, f->cname);
            /* (a name TensorFlow has as a dtype: RaggedFeature's own check) */
            for (t = 0; t < sizeof tf_types / sizeof tf_types[0]; t++)
                if (strcmp(a->split_text, tf_types[t]) == 0)
                    fcc_diag_tf(d, a->split_loc,
                                "row_splits_dtype must be int32 or int64; got tf.%s",
                                a->split_text);
            return 0;
        }
    }
    for (pa = a->parts; pa != NULL; pa = pa->next) {
        struct schema_part *sp;
        if (np == FC_MAX_RANK - 1) {
            fcc_diag_error(d, pa->kind_loc, "RaggedFeature '%s' has more than %d partitions",
                           f->cname, FC_MAX_RANK - 1);
            return 0;
        }
        sp = &f->parts[np++];
        sp->ast = pa;
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            if (strcmp(pa->kind, kinds[k].word) == 0)
                break;
        if (k == sizeof kinds / sizeof kinds[0]) {
            fcc_diag_error(d, pa->kind_loc,
                           "unknown partition '%s': row_splits, row_lengths, row_starts, "
                           "row_limits or value_rowids KEY max ROWS, or uniform_row_length N",
                           pa->kind);
            return 0;
        }
        sp->kind = kinds[k].kind;
        if ((sp->kind == FC_PART_UNIFORM_ROW_LENGTH) != (pa->key == NULL)) {
            fcc_diag_error(d, pa->kind_loc,
                           sp->kind == FC_PART_UNIFORM_ROW_LENGTH
                           ? "'uniform_row_length' takes a length: 'uniform_row_length N'"
                           : "'%s' takes a key and a bound on rows: '%s KEY max ROWS'",
                           pa->kind, pa->kind);
            return 0;
        }
        if (pa->key == NULL) {
            if (!fcc_parse_u64(pa->length_text, &v) || v == 0 || v > FEATC_MAX_ELEMENTS) {
                fcc_diag_error(d, pa->length_loc, "a uniform row length must be from 1 to %u",
                               (unsigned)FEATC_MAX_ELEMENTS);
                return 0;
            }
            sp->length = (size_t)v;
        } else if (!fcc_parse_u64(pa->max_text, &v) || v > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, pa->max_loc, "a bound of %s rows is larger than the limit of %u",
                           pa->max_text, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        } else {
            sp->max_rows = (size_t)v;
        }
    }
    f->nparts = np;
    /* rows bounds, innermost first: a uniform length divides what is inside */
    inner = f->max;
    for (q = np; q-- > 0;) {
        if (f->parts[q].kind == FC_PART_UNIFORM_ROW_LENGTH)
            f->parts[q].max_rows = inner / f->parts[q].length;
        inner = f->parts[q].max_rows;
    }
    return 1;
}

/* `hash_buckets N [one_hot | multi_hot]` on an Example or context feature;
 * `hash_buckets N` on a VarLen feature list (TensorFlow's
 * sequence_categorical_column_with_hash_bucket, whose feature is VarLen). */
static int check_hash_attr(diag *d, schema_feature *f, const ast_attr *t, role r)
{
    uint64_t v;
    if (r == ROLE_LIST && strcmp(t->name, "hash_buckets") != 0) {
        fcc_diag_error(d, t->loc,
                       "'%s' applies to Example and context features; a feature list's "
                       "bucket ids are per frame value ('hash_buckets N' alone)",
                       t->name);
        return 0;
    }
    if (r == ROLE_LIST && f->kind != FC_KIND_VARLEN) {
        fcc_diag_error(d, t->loc,
                       "'hash_buckets' on feature list '%s' needs VarLen frames ('%s[] max N'): "
                       "TensorFlow's sequence_categorical_column_with_hash_bucket reads a "
                       "VarLenFeature",
                       f->cname, fcc_type_word(f->type));
        return 0;
    }
    if (strcmp(t->name, "hash_buckets") != 0) {
        f->hot = strcmp(t->name, "one_hot") == 0 ? 1 : 2;
        return 1;
    }
    if (f->type == FC_TYPE_FLOAT) {
        fcc_diag_error(d, t->loc,
                       "'%s' is a float feature; hash buckets take bytes or int64 features "
                       "(TensorFlow's categorical_column_with_hash_bucket)",
                       f->cname);
        return 0;
    }
    if (f->kind == FC_KIND_ROWS) {
        fcc_diag_error(d, t->loc,
                       "'%s' has rows; hash buckets take FixedLen or VarLen features", f->cname);
        return 0;
    }
    if (!fcc_parse_u64(t->arg, &v) || v > FEATC_MAX_ELEMENTS) {
        fcc_diag_error(d, t->arg_loc, "%s hash buckets are more than the limit of %u", t->arg,
                       (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (v == 0) {
        fcc_diag_error(d, t->arg_loc, "0 hash buckets: a value needs at least one bucket");
        return 0;
    }
    f->hash_buckets = (size_t)v;
    return 1;
}

static int check_feature_attrs(diag *d, schema_feature *f, const ast_feature *a, role r)
{
    const ast_attr *t, *u, *hot = NULL;
    int ok = 1;
    for (t = a->attrs; t != NULL; t = t->next) {
        int is_hash = strcmp(t->name, "hash_buckets") == 0 || strcmp(t->name, "one_hot") == 0 ||
                      strcmp(t->name, "multi_hot") == 0;
        for (u = a->attrs; u != t; u = u->next) {
            if (strcmp(u->name, t->name) == 0)
                break;
        }
        if (u != t) {
            fcc_diag_error(d, t->loc, "'%s' is given twice", t->name);
            ok = 0;
        } else if (strcmp(t->name, "already_sorted") == 0) {
            if (f->kind != FC_KIND_SPARSE) {
                fcc_diag_error(d, t->loc,
                               "'already_sorted' belongs to a SparseFeature ('%s : sparse ...')",
                               f->cname);
                ok = 0;
            }
            f->already_sorted = 1;
        } else if (f->kind == FC_KIND_SPARSE) {
            fcc_diag_error(d, t->loc, "SparseFeature '%s' takes 'already_sorted' only", f->cname);
            ok = 0;
        } else if (is_hash) {
            if (strcmp(t->name, "hash_buckets") != 0) {
                if (hot != NULL) {
                    fcc_diag_error(d, t->loc, "'%s' and '%s': choose one", hot->name, t->name);
                    ok = 0;
                    continue;
                }
                hot = t;
            }
            if (!check_hash_attr(d, f, t, r))
                ok = 0;
        } else if (r != ROLE_LIST) {
            fcc_diag_error(d, t->loc,
                           "'%s' is a policy of feature-list features; '%s' is %s feature", t->name,
                           f->cname, r == ROLE_CONTEXT ? "a context" : "an Example");
            ok = 0;
        } else if (strcmp(t->name, "allow_missing") == 0) {
            if (f->kind == FC_KIND_VARLEN) {
                fcc_diag_error(d, t->loc,
                               "VarLen feature list '%s' is empty when missing already; "
                               "'allow_missing' applies to lists of a fixed frame shape",
                               f->cname);
                ok = 0;
            }
            f->allow_missing = 1;
        } else if (strcmp(t->name, "uniform") == 0) {
            if (f->kind == FC_KIND_FIXED) {
                fcc_diag_error(d, t->loc,
                               "every frame of '%s' holds %zu value%s by its shape; 'uniform' "
                               "applies to VarLen lists ('%s[] max N')",
                               f->cname, f->elems, f->elems == 1 ? "" : "s",
                               fcc_type_word(f->type));
                ok = 0;
            }
            f->uniform = 1;
        } else { /* aligned */
            fcc_diag_error(d, t->loc,
                           "'%s' concerns all the lists of a record: write it after "
                           "'feature_lists max N' (a feature list takes 'allow_missing' or "
                           "'uniform')",
                           t->name);
            ok = 0;
        }
    }
    if (ok && hot != NULL && f->hash_buckets == 0) {
        fcc_diag_error(d, hot->loc, "'%s' needs 'hash_buckets N' before it", hot->name);
        ok = 0;
    }
    if (ok && f->hot == 1 && f->kind != FC_KIND_FIXED) {
        fcc_diag_error(d, hot->loc,
                       "'one_hot' gives one vector per value of a FixedLen feature; VarLen "
                       "'%s' takes 'multi_hot' (a count per bucket)",
                       f->cname);
        ok = 0;
    }
    return ok;
}

/* The key set of TensorFlow's parse op a feature's key goes to: 'd'
 * dense (FixedLen, FixedLenSequence), 's' sparse (VarLen), 'r' ragged; 0
 * for a SparseFeature, whose own key is not read. */
static char key_set(const ast_feature *a)
{
    if (a->sparse)
        return 0;
    if (a->ragged)
        return 'r';
    return a->has_shape && a->dims == NULL ? 's' : 'd';
}

/* "Dense and sparse" (or "Dense and ragged", "Ragged and sparse", in the
 * order TensorFlow checks them) when a and b go to two of the key sets;
 * NULL when both go to one, or one goes to none. */
static const char *key_sets(const ast_feature *a, const ast_feature *b)
{
    char x = key_set(a), y = key_set(b);
    if (x == 0 || y == 0 || x == y)
        return NULL;
    if (x != 'r' && y != 'r')
        return "Dense and sparse";
    return x == 'd' || y == 'd' ? "Dense and ragged" : "Ragged and sparse";
}

/* A feature's key and C name: an identifier, or `as NAME`, and a key not
 * used before in its group.  f is group[i]. */
static int check_feature_key(diag *d, const schema_message *m, schema_feature *group, size_t i,
                             const ast_feature *a, role r)
{
    static const char *const group_words[] = {"feature key", "context feature key",
                                              "feature list key"};
    schema_feature *f = &group[i];
    size_t j;
    if (a->cname != NULL) {
        f->cname = a->cname;
        if (!fcc_check_c_name(d, a->cname_loc, a->cname, "field"))
            return 0;
    } else if (!fcc_is_ident(a->key, a->key_len) || memchr(a->key, 0, a->key_len) != NULL) {
        fcc_diag_error(d, a->key_loc,
                       "feature key \"%.*s\" is not a C identifier; name its field: \"%.*s\" as "
                       "NAME",
                       (int)a->key_len, a->key, (int)a->key_len, a->key);
        return 0;
    } else {
        f->cname = a->key;
        if (!fcc_check_c_name(d, a->key_loc, a->key, "field"))
            return 0;
    }
    for (j = 0; j < i; j++) {
        const schema_feature *g = &group[j];
        if (g->ast != NULL && g->key_len == f->key_len &&
            memcmp(g->key, f->key, f->key_len) == 0) {
            fcc_diag_error(d, a->key_loc, "duplicate %s \"%.*s\" in %s '%s'", group_words[r],
                           (int)a->key_len, a->key,
                           r == ROLE_EXAMPLE ? "example" : "sequence_example",
                           m->name);
            fcc_diag_note(d, g->ast->key_loc, "previous definition here");
            /* TensorFlow, which takes one feature per key of its dict, sees
             * this when a SparseFeature's or RaggedFeature's keys meet:
             * its dense, sparse and ragged key sets must be disjoint */
            {
                const char *both = key_sets(g->ast, a);
                if (both != NULL)
                    fcc_tf_intersect(d, a->key_loc, both, a->key, a->key_len);
            }
            f->ast = NULL; /* not a previous definition for later duplicates */
            return 0;
        }
    }
    return 1;
}

/* `as TYPE [dims]`: an int64 narrowed, a float as float16, a scalar bytes
 * value decoded as decode_raw into a fixed shape (FixedLen and VarLen
 * features of an example or a context, and feature lists of them: each
 * frame converted as one such feature; an Example's FixedLenSequence rows
 * of numbers, whose padding value is converted with them; the values of
 * SparseFeatures and RaggedFeatures, a list of RaggedFeature frames' frame
 * by frame). */
static int check_as(diag *d, schema_feature *f, const ast_feature *a, role r)
{
    static const char *const words[] = {"int8",    "uint8",   "int16",   "uint16", "int32",
                                        "int64",   "float16", "float32", "float64"};
    const ast_dim *dm;
    uint64_t elems = 1;
    size_t k;
    int as = FC_AS_NONE;
    if (a->as_type == NULL)
        return 1;
    for (k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strcmp(a->as_type, words[k]) == 0)
            as = (int)k + 1;
    if (as == FC_AS_NONE) {
        fcc_diag_error(d, a->as_loc,
                       "unknown tensor type '%s' (int8, uint8, int16, uint16, int32, int64, "
                       "float16, float32, float64)",
                       a->as_type);
        return 0;
    }
    if (f->kind == FC_KIND_FIXED && f->elems == 0) {
        fcc_diag_error(d, a->as_loc, "'%s' holds no values (a dimension is 0): nothing to give as %s",
                       f->cname, a->as_type);
        return 0;
    }
    if (f->type == FC_TYPE_BYTES && f->hash_buckets > 0) {
        fcc_diag_error(d, a->as_loc,
                       "'%s' has hash buckets: its bytes are hashed, and 'as %s[...]' would "
                       "decode them too (the bucket ids and a decoded tensor of one value); "
                       "'as' on a hashed feature narrows int64 values",
                       f->cname, a->as_type);
        return 0;
    }
    if (f->type == FC_TYPE_BYTES) {
        if (f->kind != FC_KIND_FIXED || f->rank != 0) {
            fcc_diag_error(d, a->as_loc,
                           "'as %s[...]' decodes one bytes value (tf.io.decode_raw); '%s' must "
                           "be a FixedLen scalar ('bytes', no shape)%s",
                           a->as_type, f->cname,
                           r == ROLE_LIST              ? ", one value per frame"
                           : f->kind == FC_KIND_ROWS ? ", not a sequence of rows (whose "
                                                       "padding \"\" has no tensor)"
                           : f->kind == FC_KIND_RAGGED ? ", not a RaggedFeature"
                           : f->kind == FC_KIND_SPARSE ? ", not a SparseFeature"
                                                       : "");
            return 0;
        }
        if (a->as_dims == NULL) {
            fcc_diag_error(d, a->as_loc,
                           "'%s' decodes bytes as %s: give the shape of the tensor, as in "
                           "'as %s[28, 28]' (one value's bytes must fill it)",
                           f->cname, a->as_type, a->as_type);
            return 0;
        }
        for (dm = a->as_dims; dm != NULL; dm = dm->next) {
            uint64_t v;
            if (dm->unknown || !fcc_parse_u64(dm->text, &v) || v == 0 ||
                v > FEATC_MAX_ELEMENTS) {
                fcc_diag_error(d, dm->loc,
                               "dimension %s of the tensor of '%s' must be from 1 to %u", dm->text,
                               f->cname, (unsigned)FEATC_MAX_ELEMENTS);
                return 0;
            }
            if (f->as_rank == FC_MAX_RANK) {
                fcc_diag_error(d, dm->loc, "tensor of '%s' has more than %d dimensions",
                               f->cname, FC_MAX_RANK);
                return 0;
            }
            elems *= v;
            if (elems > FEATC_MAX_ELEMENTS) {
                fcc_diag_error(d, a->as_shape_loc,
                               "tensor of '%s' holds more than the limit of %u values", f->cname,
                               (unsigned)FEATC_MAX_ELEMENTS);
                return 0;
            }
            f->as_dims[f->as_rank++] = (size_t)v;
        }
        f->as = as;
        f->as_elems = (size_t)elems;
        if (f->has_default && (f->def_bytes_len[0] % fc_as_size(as) != 0 ||
                               f->def_bytes_len[0] / fc_as_size(as) != f->as_elems)) {
            fcc_diag_error(d, a->def->loc,
                           "default of '%s' has %zu bytes; decoded as %s[...] it must have %zu "
                           "(%zu values of %zu bytes)",
                           f->cname, f->def_bytes_len[0], a->as_type,
                           f->as_elems * fc_as_size(as), f->as_elems, fc_as_size(as));
            return 0;
        }
        return 1;
    }
    if (a->as_dims != NULL) {
        fcc_diag_error(d, a->as_shape_loc,
                       "a shape after 'as' decodes bytes; '%s' is %s, whose tensor keeps its "
                       "shape",
                       f->cname, fcc_type_word(f->type));
        return 0;
    }
    if ((f->type == FC_TYPE_INT64 && as > FC_AS_INT32) ||
        (f->type == FC_TYPE_FLOAT && as != FC_AS_FLOAT16)) {
        fcc_diag_error(d, a->as_loc,
                       "'%s' is %s: 'as' narrows %s",
                       f->cname, fcc_type_word(f->type),
                       f->type == FC_TYPE_INT64
                           ? "an int64 to int8, uint8, int16, uint16 or int32"
                           : "a float to float16");
        return 0;
    }
    f->as = as;
    f->as_elems = 1;
    if (f->has_default) {
        /* the default is converted with every record that lacks the feature */
        size_t n = f->ndefault;
        for (k = 0; k < n; k++) {
            int bad;
            if (f->type == FC_TYPE_INT64) {
                int64_t v = f->def_int[k];
                int64_t lo = 0, hi = -1;
                (void)fc_as_range(as, &lo, &hi);
                bad = v < lo || v > hi;
            } else {
                float v = f->def_float[k];
                bad = v == v && (v >= 65520.0f || v <= -65520.0f) && v - v == 0.0f;
            }
            if (bad) {
                fcc_diag_error(d, a->def->loc, "%s of '%s' is out of the range of %s",
                               f->kind == FC_KIND_ROWS ? "padding value" : "default", f->cname,
                               a->as_type);
                return 0;
            }
        }
    }
    return 1;
}

/* A feature's type, its kind's shape or definition, its default and its
 * attributes. */
static int check_feature_kind(pool *p, diag *d, const schema_message *m, schema_feature *f,
                              const ast_feature *a, role r)
{
    if (!check_type(d, f, a))
        return 0;
    if (a->sparse) {
        if (!check_sparse(d, f, a, r))
            return 0;
    } else if (a->ragged) {
        if (!check_ragged(d, f, a))
            return 0;
        if (r == ROLE_LIST)
            f->max_frames = m->max_frames;
    } else if (r == ROLE_LIST) {
        if (!check_list_shape(d, f, a))
            return 0;
        if (a->def != NULL) {
            fcc_diag_error(d, a->def->loc,
                           "feature list '%s' takes no default (TensorFlow requires feature-list "
                           "defaults to be None): a missing list is an error, or empty with "
                           "'allow_missing'",
                           f->cname);
            fcc_diag_tf(d, a->def->loc, "Value feature_list.dense_defaults[%.*s] must be None",
                        (int)f->key_len, f->key);
            return 0;
        }
        f->max_frames = m->max_frames;
    } else {
        if (!check_shape(d, f, a, r == ROLE_EXAMPLE ? m->ast->features : NULL))
            return 0;
        /* (the default first: the note shows it) */
        if (a->def != NULL && !fcc_check_default(p, d, f, a->def))
            return 0;
        if (r == ROLE_CONTEXT && f->kind == FC_KIND_ROWS) {
            fcc_diag_error(d, a->shape_loc,
                           "context feature '%s' cannot be a sequence of rows ('[?, ...]'); "
                           "declare it in feature_lists",
                           f->cname);
            fcc_tf_unsupported_rows(d, a->shape_loc, f);
            return 0;
        }
    }
    return check_feature_attrs(d, f, a, r) && check_as(d, f, a, r);
}

/* The bytes of struct storage f takes. */
static uint64_t feature_storage(const schema_feature *f, role r)
{
    uint64_t eb = fcc_elem_bytes(f->type), bytes;
    if (r == ROLE_LIST && f->hash_buckets > 0) /* bucket ids laid out as the values */
        bytes = (uint64_t)f->max_frames * (f->max * (eb + 8u) + sizeof(size_t)) + sizeof(size_t);
    else if (r == ROLE_LIST && f->kind == FC_KIND_RAGGED) {
        unsigned q;
        bytes = (uint64_t)f->max * eb + sizeof(size_t); /* one frame */
        for (q = 0; q < f->nparts; q++)
            bytes += ((uint64_t)f->parts[q].max_rows + 1u) * (f->split64 ? 8u : 4u) +
                     sizeof(size_t);
        bytes = bytes * f->max_frames + sizeof(size_t);
    } else if (r == ROLE_LIST)
        bytes = f->kind == FC_KIND_FIXED
                    ? (uint64_t)f->max_frames * f->elems * eb + sizeof(size_t)
                    : (uint64_t)f->max_frames * (f->max * eb + sizeof(size_t)) +
                          sizeof(size_t);
    else if (f->kind == FC_KIND_SPARSE)
        bytes = (uint64_t)f->max * (eb + 8u * f->rank) + sizeof(size_t);
    else if (f->kind == FC_KIND_RAGGED) {
        unsigned q;
        bytes = (uint64_t)f->max * eb + sizeof(size_t);
        for (q = 0; q < f->nparts; q++)
            bytes += ((uint64_t)f->parts[q].max_rows + 1u) * (f->split64 ? 8u : 4u) +
                     sizeof(size_t);
    } else {
        bytes = (f->kind == FC_KIND_ROWS     ? (uint64_t)f->max * f->elems
                 : f->kind == FC_KIND_VARLEN ? (uint64_t)f->max
                                             : (uint64_t)f->elems) *
                    eb +
                (f->kind == FC_KIND_FIXED ? 0u : sizeof(size_t));
    }
    if (f->as != FC_AS_NONE) /* the typed values, beside the record's */
        bytes += (f->kind == FC_KIND_ROWS    ? (uint64_t)f->max * f->elems
                  : f->kind == FC_KIND_FIXED ? (uint64_t)f->elems
                                             : (uint64_t)f->max) *
                 f->as_elems * fc_as_size(f->as) * (r == ROLE_LIST ? f->max_frames : 1u);
    if (f->hash_buckets > 0 && r != ROLE_LIST) {
        uint64_t ids = f->kind == FC_KIND_VARLEN ? (uint64_t)f->max : (uint64_t)f->elems;
        bytes += ids * 8u;
        if (f->hot == 1)
            bytes += ids * f->hash_buckets * 4u;
        else if (f->hot == 2)
            bytes += (uint64_t)f->hash_buckets * 4u;
    }
    return bytes;
}

/* The names f adds: struct members, then file-wide identifiers. */
static int add_feature_names(pool *p, diag *d, const schema_message *m, schema_feature *f,
                             const ast_feature *a, role r, symtab *members, symtab *globals)
{
    const char *what = r == ROLE_LIST      ? "feature list '"
                       : r == ROLE_CONTEXT ? "context feature '"
                                           : "feature '";
    char *owner = fcc_cat(p, what, f->cname, "'");
    char *up = fcc_upper_of(p, f->cname);
    char *base = fcc_cat(p, m->upper, "_", up);
    const char *names[17 + 5 * FC_MAX_RANK];
    symtab *where[17 + 5 * FC_MAX_RANK];
    size_t k = 0, q;
    unsigned rk;
    f->macro = base;
    names[k] = f->cname, where[k++] = members;
    if (r == ROLE_LIST)
        names[k] = fcc_cat(p, f->cname, "_frames", ""), where[k++] = members;
    if (f->kind != FC_KIND_FIXED)
        names[k] = fcc_cat(p, f->cname, "_count", ""), where[k++] = members;
    if (f->kind == FC_KIND_SPARSE) {
        names[k] = fcc_cat(p, f->cname, "_indices", ""), where[k++] = members;
        names[k] = fcc_cat(p, base, "_RANK", ""), where[k++] = globals;
    }
    if (f->kind == FC_KIND_RAGGED) {
        unsigned pq;
        names[k] = fcc_cat(p, base, "_PARTS", ""), where[k++] = globals;
        for (pq = 0; pq < f->nparts; pq++) {
            char num[32];
            snprintf(num, sizeof num, "%u", pq);
            names[k] = fcc_cat(p, f->cname, "_rows", num), where[k++] = members;
            names[k] = fcc_cat(p, f->cname, "_splits", num), where[k++] = members;
            names[k] = fcc_cat(p, fcc_cat(p, base, "_ROWS", num), "_MAX", ""), where[k++] = globals;
        }
    }
    names[k] = base, where[k++] = globals;
    names[k] = fcc_cat(p, base, "_SIZE", ""), where[k++] = globals;
    if (f->kind != FC_KIND_FIXED)
        names[k] = fcc_cat(p, base, "_MAX", ""), where[k++] = globals;
    if (r == ROLE_LIST)
        names[k] = fcc_cat(p, base, "_FRAMES_MAX", ""), where[k++] = globals;
    for (rk = 0; rk < f->rank; rk++) {
        char num[32];
        snprintf(num, sizeof num, "_DIM%u", rk);
        names[k] = fcc_cat(p, base, num, ""), where[k++] = globals;
    }
    if (f->has_default)
        names[k] = fcc_cat(p, m->c_type, "_default_", f->cname), where[k++] = globals;
    if (f->hash_buckets > 0 || f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED ||
        f->as != FC_AS_NONE)
        names[k] = fcc_cat(p, m->c_type, "_extra_", f->cname), where[k++] = globals;
    if (f->as != FC_AS_NONE)
        names[k] = fcc_cat(p, f->cname, "_as", ""), where[k++] = members;
    for (rk = 0; rk < f->as_rank; rk++) {
        char num[32];
        snprintf(num, sizeof num, "_AS_DIM%u", rk);
        names[k] = fcc_cat(p, base, num, ""), where[k++] = globals;
    }
    if (f->as_rank > 0)
        names[k] = fcc_cat(p, base, "_AS_SIZE", ""), where[k++] = globals;
    if (f->hash_buckets > 0) {
        names[k] = fcc_cat(p, f->cname, "_bucket", ""), where[k++] = members;
        names[k] = fcc_cat(p, base, "_BUCKETS", ""), where[k++] = globals;
    }
    if (f->hot != 0)
        names[k] = fcc_cat(p, f->cname, "_hot", ""), where[k++] = members;
    for (q = 0; q < k; q++)
        if (!fcc_sym_add(p, d, where[q], names[q], owner, a->key_loc))
            return 0;
    return 1;
}

/* Checks one feature of a group (the features of an example, the context or
 * the feature lists: keys are unique within a group) and adds its generated
 * names.  f is group[i]. */
int fcc_check_feature(pool *p, diag *d, schema_message *m, schema_feature *group, size_t i,
                      const ast_feature *a, role r, symtab *members, symtab *globals,
                      uint64_t *storage)
{
    schema_feature *f = &group[i];
    uint64_t bytes;
    f->ast = a;
    f->key = a->key;
    f->key_len = a->key_len;
    f->list = r == ROLE_LIST;
    if (!check_feature_key(d, m, group, i, a, r) || !check_feature_kind(p, d, m, f, a, r))
        return 0;
    bytes = feature_storage(f, r);
    f->storage = bytes > FEATC_MAX_STORAGE ? (size_t)FEATC_MAX_STORAGE + 1 : (size_t)bytes;
    *storage += bytes;
    return add_feature_names(p, d, m, f, a, r, members, globals);
}

/* Indices of group sorted by key bytes: TensorFlow reports missing features
 * in that order. */
void fcc_sort_by_key(const schema_feature *group, size_t n, uint16_t *order)
{
    size_t i, j;
    for (i = 0; i < n; i++)
        order[i] = (uint16_t)i;
    for (i = 1; i < n; i++) {
        uint16_t x = order[i];
        j = i;
        while (j > 0 && fcc_key_cmp(group[order[j - 1]].key, group[order[j - 1]].key_len,
                                    group[x].key, group[x].key_len) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
}

size_t fcc_count_features(const ast_feature *a)
{
    size_t n = 0;
    for (; a != NULL; a = a->next)
        n++;
    return n;
}

/* The header of `feature_lists max N policies {`. */
int fcc_check_lists_block(diag *d, schema_message *m, const ast_block *b, int *allow_missing,
                          int *uniform)
{
    const ast_attr *t, *u;
    uint64_t v;
    int ok = 1;
    if (b->max_text == NULL) {
        fcc_diag_error(d, b->loc,
                       "feature_lists needs a bound on the frames of a sequence: write "
                       "'feature_lists max N {'");
        ok = 0;
    } else if (!fcc_parse_u64(b->max_text, &v) || v > FEATC_MAX_ELEMENTS) {
        fcc_diag_error(d, b->max_loc, "frame bound %s is larger than the limit of %u", b->max_text,
                       (unsigned)FEATC_MAX_ELEMENTS);
        ok = 0;
    } else if (v == 0) {
        fcc_diag_error(d, b->max_loc, "a frame bound of 0 leaves no room for any frame");
        ok = 0;
    } else {
        m->max_frames = (size_t)v;
    }
    for (t = b->attrs; t != NULL; t = t->next) {
        for (u = b->attrs; u != t; u = u->next)
            if (strcmp(u->name, t->name) == 0)
                break;
        if (u != t) {
            fcc_diag_error(d, t->loc, "'%s' is given twice", t->name);
            ok = 0;
        } else if (strcmp(t->name, "allow_missing") == 0) {
            *allow_missing = 1;
        } else if (strcmp(t->name, "uniform") == 0) {
            *uniform = 1;
        } else if (strcmp(t->name, "aligned") == 0) {
            m->aligned = 1;
        } else {
            fcc_diag_error(d, t->loc,
                           "'%s' belongs to a bytes or int64 feature, not to the feature_lists "
                           "header (which takes 'allow_missing', 'aligned' or 'uniform')",
                           t->name);
            ok = 0;
        }
    }
    return ok;
}

/* The field among group[0..n) (features or feature lists) that reads key
 * from the data (built SparseFeatures and RaggedFeatures read no key of
 * their own), or n. */
static size_t key_field(const schema_feature *group, size_t n, const ast_key *key)
{
    size_t j;
    for (j = 0; j < n; j++) {
        const schema_feature *g = &group[j];
        if (g->kind != FC_KIND_SPARSE && g->kind != FC_KIND_RAGGED && g->key_len == key->len &&
            memcmp(g->key, key->key, key->len) == 0)
            break;
    }
    return j;
}

/* Adds a hidden VarLen field for key at group[*n] (room was made for it),
 * read only for a SparseFeature (why 1) or a RaggedFeature (2); in
 * m->lists, a VarLen feature list. */
static int add_hidden(pool *p, diag *d, schema_message *m, schema_feature *group, size_t *n,
                      const ast_key *key, fc_type type, size_t max, int why, const char *cname,
                      const char *owner, symtab *members, symtab *globals)
{
    schema_feature *h = &group[(*n)++];
    memset(h, 0, sizeof *h);
    if (group == m->lists) {
        h->list = 1;
        h->max_frames = m->max_frames;
        if (!fcc_sym_add(p, d, members, fcc_cat(p, cname, "_frames", ""), owner, key->loc) ||
            !fcc_sym_add(p, d, globals, fcc_cat(p, fcc_cat(p, m->upper, "_", fcc_upper_of(p, cname)),
                                        "_FRAMES_MAX", ""),
                     owner, key->loc))
            return 0;
    }
    h->key = key->key;
    h->key_len = key->len;
    h->type = type;
    h->kind = FC_KIND_VARLEN;
    h->elems = 1;
    h->max = max;
    h->hidden = why;
    h->cname = cname;
    h->macro = fcc_cat(p, m->upper, "_", fcc_upper_of(p, h->cname));
    if (p->failed)
        return 0;
    return fcc_sym_add(p, d, members, h->cname, owner, key->loc) &&
                       fcc_sym_add(p, d, members, fcc_cat(p, h->cname, "_count", ""), owner, key->loc) &&
                       fcc_sym_add(p, d, globals, h->macro, owner, key->loc) &&
                       fcc_sym_add(p, d, globals, fcc_cat(p, h->macro, "_MAX", ""), owner, key->loc);
}

/* ------------------------------------------------------------ composite features */

/* Resolves the index and value keys of SparseFeature f (field number fi)
 * to fields: a VarLen feature of the spec with that key and type is read
 * once for both (TensorFlow allows re-using a key with the same dtype); any
 * other declaration of the key is an error (TensorFlow: "Dense and sparse
 * keys must not intersect", "Conflicting type"); otherwise a hidden VarLen
 * field is added for it at m->features[*n]. */
int fcc_resolve_sparse(pool *p, diag *d, schema_message *m, size_t fi, size_t *n,
                       symtab *members, symtab *globals)
{
    schema_feature *f = &m->features[fi];
    const ast_key *k = f->ast->index_keys;
    unsigned slot;
    for (slot = 0; slot <= f->rank; slot++, k = k != NULL ? k->next : NULL) {
        const ast_key *key = slot < f->rank ? k : f->ast->value_key;
        fc_type want = slot < f->rank ? FC_TYPE_INT64 : f->type;
        const char *role_word = slot < f->rank ? "index" : "value";
        size_t j = key_field(m->features, *n, key);
        if (j < *n) {
            schema_feature *g = &m->features[j];
            if (g->hidden == 2) {
                fcc_diag_error(d, key->loc,
                               "%s key \"%.*s\" of SparseFeature '%s' is read by a RaggedFeature "
                               "(TensorFlow: Ragged and sparse keys must not intersect)",
                               role_word, (int)key->len, key->key, f->cname);
                fcc_tf_intersect(d, key->loc, "Ragged and sparse", key->key, key->len);
                return 0;
            }
            if (g->kind != FC_KIND_VARLEN) {
                fcc_diag_error(d, key->loc,
                               "%s key \"%.*s\" of SparseFeature '%s' is declared as a %s feature "
                               "'%s'; a key read by a SparseFeature must be VarLen (TensorFlow: "
                               "Dense "
                               "and sparse keys must not intersect)",
                               role_word, (int)key->len, key->key, f->cname,
                               g->kind == FC_KIND_ROWS ? "FixedLenSequence" : "FixedLen", g->cname);
                if (g->kind == FC_KIND_FIXED || g->kind == FC_KIND_ROWS)
                    fcc_tf_intersect(d, key->loc, "Dense and sparse", key->key, key->len);
                return 0;
            }
            if (g->type != want) {
                fcc_diag_error(d, key->loc,
                               "Conflicting type %s vs %s for feature %.*s: %s key of "
                               "SparseFeature '%s', and %s '%s'",
                               fcc_type_word(want), fcc_type_word(g->type), (int)key->len,
                               key->key, role_word, f->cname,
                               g->hidden ? "a key of SparseFeature" : "VarLen feature",
                               g->hidden ? m->features[g->owner].cname : g->cname);
                /* TF's order: a hidden field's type is its SparseFeature's */
                fcc_tf_conflicting(d, key->loc, g->hidden ? &m->features[g->owner] : g, f,
                                   g->type, want, key->key, key->len);
                return 0;
            }
            if (g->hidden && g->max < f->max)
                g->max = f->max;
        } else {
            char num[32];
            snprintf(num, sizeof num, "%u", slot);
            if (!add_hidden(p, d, m, m->features, n, key, want, f->max, 1,
                            slot < f->rank ? fcc_cat(p, f->cname, "_index", num)
                                           : fcc_cat(p, f->cname, "_value", ""),
                            fcc_cat(p, "SparseFeature '", f->cname, "'"), members, globals))
                return 0;
            m->features[j].owner = fi;
        }
        f->sparse_fields[slot] = (uint16_t)j;
    }
    return 1;
}

/* Resolves the value and partition keys of RaggedFeature f = group[fi]
 * (an Example's or context's features, or the feature lists) to hidden
 * VarLen fields (lists), shared with other RaggedFeatures reading the same
 * key with the same type; a key the spec declares otherwise, or that a
 * SparseFeature reads, is an error in TensorFlow's words. */
int fcc_resolve_ragged(pool *p, diag *d, schema_message *m, schema_feature *group, size_t fi,
                       size_t *n, symtab *members, symtab *globals)
{
    schema_feature *f = &group[fi];
    int list = group == m->lists;
    ast_key own;
    unsigned slot;
    own.key = f->key;
    own.len = f->key_len;
    own.loc = f->ast->key_loc;
    own.next = NULL;
    for (slot = 0; slot <= f->nparts; slot++) {
        const ast_key *key;
        fc_type want = slot == 0 ? f->type : FC_TYPE_INT64;
        size_t max, j;
        const struct schema_part *sp = slot > 0 ? &f->parts[slot - 1] : NULL;
        char num[32];
        if (sp != NULL && sp->kind == FC_PART_UNIFORM_ROW_LENGTH)
            continue;
        key = slot == 0 ? (f->ast->value_key != NULL ? f->ast->value_key : &own) : sp->ast->key;
        /* values: the bound; row_splits: rows + 1; value_rowids: one per inner value */
        max = slot == 0 ? f->max
              : sp->kind == FC_PART_ROW_SPLITS ? sp->max_rows + 1
              : sp->kind == FC_PART_VALUE_ROWIDS
                  ? (slot == f->nparts ? f->max : f->parts[slot].max_rows)
                  : sp->max_rows;
        j = key_field(group, *n, key);
        if (j < *n) {
            schema_feature *g = &group[j];
            if (g->hidden != 2) {
                fcc_diag_error(d, key->loc,
                               "key \"%.*s\" of RaggedFeature '%s' is %s '%s' (TensorFlow: %s "
                               "keys must not intersect)",
                               (int)key->len, key->key, f->cname,
                               g->hidden == 1 ? "also read for a SparseFeature, as its field"
                               : list         ? "also declared as feature list"
                               : "also declared as feature",
                               g->cname,
                               g->hidden == 1 || g->kind == FC_KIND_VARLEN ? "Ragged and sparse"
                               : "Dense and ragged");
                fcc_tf_intersect(d, key->loc,
                                 g->hidden == 1 || g->kind == FC_KIND_VARLEN ? "Ragged and sparse"
                                                                             : "Dense and ragged",
                                 key->key, key->len);
                return 0;
            }
            if (g->type != want) {
                fcc_diag_error(d, key->loc, "Conflicting type %s vs %s for feature %.*s",
                               fcc_type_word(want), fcc_type_word(g->type), (int)key->len,
                               key->key);
                fcc_tf_conflicting(d, key->loc, &group[g->owner], f, g->type, want, key->key,
                                   key->len);
                return 0;
            }
            if (group[g->owner].split64 != f->split64) {
                fcc_diag_error(d, key->loc,
                               "key \"%.*s\" of RaggedFeature '%s' (split %s) is also read by "
                               "RaggedFeature '%s' (split %s): TensorFlow takes one row splits "
                               "type per key",
                               (int)key->len, key->key, f->cname, f->split64 ? "int64" : "int32",
                               group[g->owner].cname,
                               group[g->owner].split64 ? "int64" : "int32");
                fcc_tf_conflicting_splits(d, key->loc, &group[g->owner], f, key->key, key->len);
                return 0;
            }
            if (g->max < max)
                g->max = max;
        } else {
            snprintf(num, sizeof num, "%u", slot - 1);
            if (!add_hidden(p, d, m, group, n, key, want, max, 2,
                            slot == 0 ? fcc_cat(p, f->cname, "_value", "")
                                      : fcc_cat(p, f->cname, "_part", num),
                            fcc_cat(p, "RaggedFeature '", f->cname, "'"), members, globals))
                return 0;
            group[j].owner = fi;
        }
        if (slot == 0)
            f->sparse_fields[0] = (uint16_t)j;
        else
            f->parts[slot - 1].field = (uint16_t)j;
    }
    return 1;
}

/* Storage of the hidden fields (or lists) of group[0..n), once their
 * bounds are final. */
uint64_t fcc_hidden_storage(schema_feature *group, size_t n)
{
    uint64_t total = 0;
    size_t i;
    for (i = 0; i < n; i++)
        if (group[i].hidden) {
            schema_feature *h = &group[i];
            uint64_t b = (uint64_t)h->max * fcc_elem_bytes(h->type) + sizeof(size_t);
            if (h->list)
                b = b * h->max_frames + sizeof(size_t);
            h->storage = b > FEATC_MAX_STORAGE ? (size_t)FEATC_MAX_STORAGE + 1 : (size_t)b;
            total += b;
        }
    return total;
}
