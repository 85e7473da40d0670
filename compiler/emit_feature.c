/* The pieces of one feature in generated C (emit.h): templates expanded, C
 * spelling of names and values, a feature's constants, member, descriptor,
 * lookup, fast-path case and batch column.  Below the three emitters
 * (emit_sequence.c, emit_segments.c, emit.c), which put them together. */
#include "emit.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ templates */

/* Copies tpl, replacing @@NAME@@ markers.  A marker alone on its line is
 * replaced together with the line: the value brings its own newlines. */
void fcc_expand(sbuf *b, const char *tpl, const subst *subs, size_t nsubs)
{
    const char *p = tpl;
    while (*p) {
        const char *m = strstr(p, "@@");
        const char *e;
        size_t i;
        if (m == NULL) {
            fcc_sb_str(b, p);
            return;
        }
        e = strstr(m + 2, "@@");
        if (e == NULL) {
            fcc_sb_str(b, p);
            return;
        }
        for (i = 0; i < nsubs; i++)
            if (strlen(subs[i].name) == (size_t)(e - m - 2) &&
                memcmp(subs[i].name, m + 2, (size_t)(e - m - 2)) == 0)
                break;
        if (i == nsubs) { /* not a marker of ours: copy through */
            fcc_sb_put(b, p, (size_t)(m + 2 - p));
            p = m + 2;
            continue;
        }
        if ((m == tpl || m[-1] == '\n') && e[2] == '\n') {
            size_t n = strlen(subs[i].value);
            fcc_sb_put(b, p, (size_t)(m - p));
            fcc_sb_str(b, subs[i].value);
            if (n > 0 && subs[i].value[n - 1] != '\n')
                fcc_sb_str(b, "\n");
            p = e + 3;
        } else {
            fcc_sb_put(b, p, (size_t)(m - p));
            fcc_sb_str(b, subs[i].value);
            p = e + 2;
        }
    }
}

/* ------------------------------------------------------------ C spelling */

/* Bytes as a C string literal: printable ASCII as is, the rest as 3-digit
 * octal escapes (no hex run-on, no trigraphs). */
void fcc_c_string(sbuf *b, const char *s, size_t n)
{
    size_t i;
    fcc_sb_str(b, "\"");
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c == '?')
            fcc_sb_printf(b, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fcc_sb_put(b, (const char *)&c, 1);
        else
            fcc_sb_printf(b, "\\%03o", c);
    }
    fcc_sb_str(b, "\"");
}

/* A key inside a comment: no "*" "/" pair, non-printables as \xNN. */
void fcc_comment_key(sbuf *b, const char *s, size_t n)
{
    size_t i;
    fcc_sb_str(b, "\"");
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '/' && i > 0 && s[i - 1] == '*')
            fcc_sb_str(b, "\\/");
        else if (c >= 0x20 && c < 0x7f)
            fcc_sb_put(b, (const char *)&c, 1);
        else
            fcc_sb_printf(b, "\\x%02x", c);
    }
    fcc_sb_str(b, "\"");
}

static void c_float(sbuf *b, float v)
{
    char buf[64];
    if (isnan(v)) {
        fcc_sb_str(b, "NAN");
        return;
    }
    if (isinf(v)) {
        fcc_sb_str(b, v < 0 ? "-INFINITY" : "INFINITY");
        return;
    }
    snprintf(buf, sizeof buf, "%.9g", (double)v);
    fcc_sb_str(b, buf);
    if (strpbrk(buf, ".e") == NULL)
        fcc_sb_str(b, ".0");
    fcc_sb_str(b, "f");
}

static void c_int64(sbuf *b, int64_t v)
{
    if (v == INT64_MIN)
        fcc_sb_str(b, "(-INT64_C(9223372036854775807) - 1)");
    else
        fcc_sb_printf(b, "INT64_C(%lld)", (long long)v);
}

const char *fcc_c_elem_type(fc_type t)
{
    return t == FC_TYPE_BYTES ? "fc_bytes" : t == FC_TYPE_FLOAT ? "float" : "int64_t";
}

/* ", as uint8[28,28]" when f has `as`. */
static void describe_as(sbuf *b, const schema_feature *f)
{
    unsigned i;
    if (f->as == FC_AS_NONE)
        return;
    fcc_sb_printf(b, ", as %s", fc_as_name(f->as));
    for (i = 0; i < f->as_rank; i++)
        fcc_sb_printf(b, "%s%zu", i > 0 ? "," : "[", f->as_dims[i]);
    fcc_sb_str(b, f->as_rank > 0 ? "]" : "");
}

/* "shape [2,3]", "VarLen, at most 64 values", ... for comments. */
void fcc_describe(sbuf *b, const schema_feature *f)
{
    unsigned i;
    fcc_comment_key(b, f->key, f->key_len);
    fcc_sb_printf(b, ": %s", fcc_type_word(f->type));
    if (f->kind == FC_KIND_SPARSE) {
        const ast_key *k;
        fcc_sb_str(b, ", SparseFeature [");
        for (i = 0; i < f->rank; i++)
            fcc_sb_printf(b, "%s%zu", i > 0 ? "," : "", f->dims[i]);
        fcc_sb_str(b, "] from index key");
        fcc_sb_str(b, f->rank > 1 ? "s " : " ");
        for (k = f->ast->index_keys; k != NULL; k = k->next) {
            fcc_comment_key(b, k->key, k->len);
            fcc_sb_str(b, k->next != NULL ? ", " : "");
        }
        fcc_sb_str(b, " and value key ");
        fcc_comment_key(b, f->ast->value_key->key, f->ast->value_key->len);
        fcc_sb_printf(b, ", at most %zu values%s", f->max,
                      f->already_sorted ? ", already sorted" : "");
    } else if (f->kind == FC_KIND_RAGGED) {
        unsigned q;
        static const char *const words[] = {"", "row_splits", "row_lengths", "row_starts",
                                            "row_limits", "value_rowids", "uniform_row_length"};
        fcc_sb_printf(b, f->list ? ", RaggedFeature per frame: at most %zu values"
                                 : ", RaggedFeature, at most %zu values",
                      f->max);
        for (q = 0; q < f->nparts; q++) {
            const struct schema_part *sp = &f->parts[q];
            fcc_sb_printf(b, "%s%s ", q == 0 ? ", partitions " : ", ", words[sp->kind]);
            if (sp->kind == FC_PART_UNIFORM_ROW_LENGTH)
                fcc_sb_printf(b, "%zu", sp->length);
            else
                fcc_comment_key(b, sp->ast->key->key, sp->ast->key->len);
        }
        fcc_sb_str(b, f->split64 ? ", int64 splits" : ", int32 splits");
    } else if (f->kind == FC_KIND_VARLEN) {
        fcc_sb_printf(b, ", VarLen, at most %zu values%s", f->max,
                      f->hidden == 1   ? " (read for a SparseFeature)"
                      : f->hidden == 2 ? " (read for a RaggedFeature)"
                      : "");
    } else {
        fcc_sb_str(b, f->kind == FC_KIND_ROWS ? ", FixedLenSequence [?" : ", FixedLen [");
        for (i = 0; i < f->rank; i++)
            fcc_sb_printf(b, "%s%zu", (i > 0 || f->kind == FC_KIND_ROWS) ? "," : "", f->dims[i]);
        fcc_sb_str(b, "]");
        if (f->kind == FC_KIND_ROWS)
            fcc_sb_printf(b, ", at most %zu rows", f->max);
        if (f->kind == FC_KIND_FIXED)
            fcc_sb_str(b, f->has_default ? ", with a default" : ", required");
    }
    if (f->hash_buckets > 0)
        fcc_sb_printf(b, ", %zu hash buckets%s", f->hash_buckets,
                      f->hot == 1 ? ", one-hot" : f->hot == 2 ? ", multi-hot" : "");
    describe_as(b, f);
}

/* "key": float, FixedLenSequence [2,2] per frame, ... for comments. */
void fcc_describe_list(sbuf *b, const schema_feature *f)
{
    unsigned i;
    if (f->kind == FC_KIND_RAGGED) {
        fcc_describe(b, f); /* key, type and partitions, as in an Example */
    } else {
        fcc_comment_key(b, f->key, f->key_len);
        fcc_sb_printf(b, ": %s", fcc_type_word(f->type));
    }
    if (f->kind == FC_KIND_VARLEN) {
        fcc_sb_printf(b, ", VarLen, at most %zu values per frame%s", f->max,
                      f->hidden == 2 ? " (read for a RaggedFeature)" : "");
    } else if (f->kind == FC_KIND_FIXED) {
        fcc_sb_str(b, ", FixedLenSequence [");
        for (i = 0; i < f->rank; i++)
            fcc_sb_printf(b, "%s%zu", i > 0 ? "," : "", f->dims[i]);
        fcc_sb_str(b, "] per frame");
    }
    fcc_sb_printf(b, ", at most %zu frames", f->max_frames);
    if (f->allow_missing)
        fcc_sb_str(b, ", allow_missing");
    if (f->uniform)
        fcc_sb_str(b, ", uniform");
    if (f->hash_buckets > 0)
        fcc_sb_printf(b, ", %zu hash buckets", f->hash_buckets);
    describe_as(b, f);
}

/* ------------------------------------------------------------ text buffers */

void fcc_parts_free(sbuf *const *all, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(all[i]->s);
}

int fcc_parts_failed(sbuf *const *all, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (all[i]->failed)
            return 1;
    return 0;
}

const char *fcc_str_or_empty(const sbuf *b)
{
    return b->s != NULL ? b->s : "";
}

/* ------------------------------------------------------------ one feature */

/* Pointer to the first value of f in struct pointer `m`. */
void fcc_value_ptr(sbuf *b, const char *m, const schema_feature *f)
{
    unsigned i;
    if (f->kind == FC_KIND_FIXED && f->elems == 0) {
        fcc_sb_str(b, "NULL");
        return;
    }
    if (f->kind == FC_KIND_VARLEN) {
        fcc_sb_printf(b, "%s->%s", m, f->cname);
        return;
    }
    fcc_sb_printf(b, "&%s->%s", m, f->cname);
    if (f->kind == FC_KIND_ROWS)
        fcc_sb_str(b, "[0]");
    for (i = 0; i < f->rank; i++)
        fcc_sb_str(b, "[0]");
}

void fcc_emit_default_array(sbuf *b, const schema_message *m, const schema_feature *f)
{
    size_t i;
    fcc_sb_printf(b, "\nstatic const %s %s_default_%s[%zu] = {", fcc_c_elem_type(f->type), m->c_type,
                  f->cname, f->ndefault);
    for (i = 0; i < f->ndefault; i++) {
        fcc_sb_str(b, i == 0 ? "\n    " : (i % 8 == 0 ? ",\n    " : ", "));
        if (f->type == FC_TYPE_INT64)
            c_int64(b, f->def_int[i]);
        else if (f->type == FC_TYPE_FLOAT)
            c_float(b, f->def_float[i]);
        else {
            fcc_sb_str(b, "{(const uint8_t *)");
            fcc_c_string(b, f->def_bytes[i], f->def_bytes_len[i]);
            fcc_sb_printf(b, ", %zu}", f->def_bytes_len[i]);
        }
    }
    fcc_sb_str(b, "\n};\n");
}

/* The statement that copies f's default into m->cname. */
void fcc_emit_default_copy(sbuf *b, const char *indent, const schema_message *m,
                           const schema_feature *f)
{
    if (f->rank == 0)
        fcc_sb_printf(b, "%sm->%s = %s_default_%s[0];\n", indent, f->cname, m->c_type, f->cname);
    else
        fcc_sb_printf(b, "%smemcpy(m->%s, %s_default_%s, sizeof m->%s);\n", indent, f->cname,
                      m->c_type, f->cname, f->cname);
}

const char *fcc_type_enum(fc_type t)
{
    return t == FC_TYPE_BYTES ? "BYTES" : t == FC_TYPE_FLOAT ? "FLOAT" : "INT64";
}

/* The constants of an Example or context feature. */
void fcc_emit_feature_constants(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "/* ");
    fcc_describe(b, f);
    fcc_sb_str(b, " */\n");
    for (r = 0; r < f->rank; r++)
        fcc_sb_printf(b, "#define %s_DIM%u %zu\n", f->macro, r, f->dims[r]);
    if (f->kind == FC_KIND_SPARSE)
        fcc_sb_printf(b, "#define %s_RANK %u\n", f->macro, f->rank);
    else if (f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "#define %s_PARTS %u\n", f->macro, f->nparts);
        for (r = 0; r < f->nparts; r++)
            fcc_sb_printf(b, "#define %s_ROWS%u_MAX %zu\n", f->macro, r, f->parts[r].max_rows);
    } else if (f->kind != FC_KIND_VARLEN)
        fcc_sb_printf(b, "#define %s_SIZE %zu\n", f->macro, f->elems);
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "#define %s_MAX %zu\n", f->macro, f->max);
    if (f->hash_buckets > 0)
        fcc_sb_printf(b, "#define %s_BUCKETS %zu\n", f->macro, f->hash_buckets);
    for (r = 0; r < f->as_rank; r++)
        fcc_sb_printf(b, "#define %s_AS_DIM%u %zu\n", f->macro, r, f->as_dims[r]);
    if (f->as_rank > 0)
        fcc_sb_printf(b, "#define %s_AS_SIZE %zu\n", f->macro, f->as_elems);
}

/* FC_AS_UINT8 ...: the enumerator of an fc_as. */
const char *fcc_as_macro(int as)
{
    static const char *const names[] = {"FC_AS_NONE",   "FC_AS_INT8",    "FC_AS_UINT8",
                                        "FC_AS_INT16",  "FC_AS_UINT16",  "FC_AS_INT32",
                                        "FC_AS_INT64",  "FC_AS_FLOAT16", "FC_AS_FLOAT32",
                                        "FC_AS_FLOAT64"};
    return as >= 0 && as <= FC_AS_LAST ? names[as] : "FC_AS_NONE";
}

/* The C type of an `as` type's elements (float16: its bits). */
const char *fcc_as_c_type(int as)
{
    switch (as) {
    case FC_AS_INT8: return "int8_t";
    case FC_AS_UINT8: return "uint8_t";
    case FC_AS_INT16: return "int16_t";
    case FC_AS_INT32: return "int32_t";
    case FC_AS_INT64: return "int64_t";
    case FC_AS_FLOAT32: return "float";
    case FC_AS_FLOAT64: return "double";
    default: return "uint16_t"; /* uint16, float16 */
    }
}

/* The struct members of an Example or context feature. */
void fcc_emit_feature_member(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "    /* ");
    fcc_describe(b, f);
    fcc_sb_str(b, " */\n");
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "    size_t %s_count;\n", f->cname);
    if (f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "    %s %s[%s_MAX];\n", fcc_c_elem_type(f->type), f->cname, f->macro);
        fcc_emit_as_member(b, f);
        for (r = 0; r < f->nparts; r++) {
            fcc_sb_printf(b, "    size_t %s_rows%u; /* partition %u%s: its rows */\n", f->cname,
                          r, r,
                          r == 0 ? " (outermost)" : "");
            fcc_sb_printf(b, "    %s %s_splits%u[%s_ROWS%u_MAX + 1];\n",
                          f->split64 ? "int64_t" : "int32_t", f->cname, r, f->macro, r);
        }
        return;
    }
    if (f->kind == FC_KIND_SPARSE) {
        fcc_sb_printf(b, "    int64_t %s_indices[%s_MAX][%s_RANK]; /* %s */\n", f->cname, f->macro,
                      f->macro,
                      f->already_sorted ? "in the record's order (already_sorted)"
                      : "sorted row-major");
        fcc_sb_printf(b, "    %s %s[%s_MAX];\n", fcc_c_elem_type(f->type), f->cname, f->macro);
        fcc_emit_as_member(b, f);
        return;
    }
    if (f->kind == FC_KIND_FIXED && f->elems == 0) {
        fcc_sb_str(b, "    /* (no values: only its presence is recorded) */\n");
    } else {
        fcc_sb_printf(b, "    %s %s", fcc_c_elem_type(f->type), f->cname);
        if (f->kind != FC_KIND_FIXED)
            fcc_sb_printf(b, "[%s_MAX]", f->macro);
        for (r = 0; r < f->rank; r++)
            fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
        fcc_sb_str(b, ";\n");
    }
    fcc_emit_as_member(b, f);
    if (f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) {
        fcc_sb_printf(b, "    int64_t %s_bucket", f->cname);
        if (f->kind != FC_KIND_FIXED)
            fcc_sb_printf(b, "[%s_MAX]", f->macro);
        for (r = 0; r < f->rank; r++)
            fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
        fcc_sb_str(b, "; /* the bucket of each value */\n");
        if (f->hot == 1) {
            fcc_sb_printf(b, "    float %s_hot", f->cname);
            for (r = 0; r < f->rank; r++)
                fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
            fcc_sb_printf(b, "[%s_BUCKETS]; /* one-hot per value */\n", f->macro);
        } else if (f->hot == 2) {
            fcc_sb_printf(b, "    float %s_hot[%s_BUCKETS]; /* values per bucket */\n", f->cname,
                          f->macro);
        }
    }
}

/* NAME_as, the typed values of f (`as`), laid out as its values are (a
 * feature list's frame after frame); nothing without `as`. */
void fcc_emit_as_member(sbuf *b, const schema_feature *f)
{
    unsigned r;
    if (f->as == FC_AS_NONE)
        return;
    fcc_sb_printf(b, "    %s %s_as", fcc_as_c_type(f->as), f->cname);
    if (f->list)
        fcc_sb_printf(b, "[%s_FRAMES_MAX]", f->macro);
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "[%s_MAX]", f->macro);
    for (r = 0; r < f->rank && f->kind != FC_KIND_SPARSE; r++) /* (a sparse rank: its indices') */
        fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
    for (r = 0; r < f->as_rank; r++)
        fcc_sb_printf(b, "[%s_AS_DIM%u]", f->macro, r);
    fcc_sb_printf(b, "; /* as %s%s */\n", fc_as_name(f->as),
                  f->as == FC_AS_FLOAT16       ? ": IEEE binary16 bits"
                  : f->type == FC_TYPE_BYTES ? ", decoded as decode_raw (little-endian)"
                                             : ", range-checked");
}

/* The terms of NAME_BATCH_BYTES for one column: the pieces fc_batch_bind
 * carves for it with both VarLen forms, in the same arithmetic. */
void fcc_emit_batch_bytes(sbuf *b, const schema_feature *f, int list)
{
    const char *t = f->type == FC_TYPE_INT64 ? "int64_t" : f->type == FC_TYPE_FLOAT ? "float"
                                                                                   : "fc_bytes";
    const char *m = f->macro;
    fcc_sb_printf(b, " \\\n     /* %s */", f->cname);
    if (!list && f->kind == FC_KIND_RAGGED) {
        unsigned q;
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * sizeof(%s))", m,
                      f->as != FC_AS_NONE ? fcc_as_c_type(f->as) : t);
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND(((size_t)(b) + 1u) * sizeof(int64_t))");
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * sizeof(int64_t))");
        for (q = 0; q < f->nparts; q++)
            fcc_sb_printf(b,
                          " \\\n     + FC_BATCH_ROUND(((size_t)(b) * %s_ROWS%u_MAX + 1u) * "
                          "sizeof(int64_t))",
                          m, q);
        return;
    }
    if (list && f->kind == FC_KIND_RAGGED) {
        unsigned q;
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_FRAMES_MAX * %s_MAX * "
                      "sizeof(%s))",
                      m, m, t);
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND(((size_t)(b) + 1u) * sizeof(int64_t))");
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND(((size_t)(b) * %s_FRAMES_MAX + 1u) * "
                      "sizeof(int64_t))",
                      m);
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * sizeof(int64_t))");
        for (q = 0; q < f->nparts; q++)
            fcc_sb_printf(b,
                          " \\\n     + FC_BATCH_ROUND(((size_t)(b) * %s_FRAMES_MAX * %s_ROWS%u_MAX "
                          "+ 1u) * sizeof(int64_t))",
                          m, m, q);
        return;
    }
    if (!list && f->kind == FC_KIND_SPARSE) {
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * sizeof(%s))", m,
                      f->as != FC_AS_NONE ? fcc_as_c_type(f->as) : t);
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * (%s_RANK + 1u) * "
                      "sizeof(int64_t))",
                      m, m);
        return;
    }
    if (f->as != FC_AS_NONE) /* the column holds the typed values */
        t = fcc_as_c_type(f->as);
    if (!list && f->kind == FC_KIND_FIXED) {
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_SIZE * %s%ssizeof(%s))", m,
                      f->as_rank > 0 ? m : "", f->as_rank > 0 ? "_AS_SIZE * " : "", t);
    } else if (!list && f->kind == FC_KIND_VARLEN) {
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * sizeof(%s))", m, t);
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * 2u * sizeof(int64_t))",
                      m);
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND(((size_t)(b) + 1u) * sizeof(int64_t))");
    } else if (!list) {
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * %s_SIZE * sizeof(%s))", m,
                      m, t);
    } else if (f->kind == FC_KIND_FIXED) {
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_FRAMES_MAX * %s_SIZE * "
                      "%s%ssizeof(%s))",
                      m, m, f->as_rank > 0 ? m : "", f->as_rank > 0 ? "_AS_SIZE * " : "", t);
    } else {
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_FRAMES_MAX * %s_MAX * "
                      "sizeof(%s))",
                      m, m, t);
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_FRAMES_MAX * %s_MAX * 3u * "
                      "sizeof(int64_t))",
                      m, m);
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND(((size_t)(b) + 1u) * sizeof(int64_t))");
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND(((size_t)(b) * %s_FRAMES_MAX + 1u) * "
                      "sizeof(int64_t))",
                      m);
    }
    if (list || f->kind != FC_KIND_FIXED)
        fcc_sb_str(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * sizeof(int64_t))");
    if (list && f->hash_buckets > 0)
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_FRAMES_MAX * %s_MAX * "
                      "sizeof(int64_t))",
                      m, m);
    if (!list && f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) {
        const char *per = f->kind == FC_KIND_FIXED ? "SIZE" : "MAX";
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_%s * sizeof(int64_t))", m,
                      per);
        if (f->hot == 1)
            fcc_sb_printf(b,
                          " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_SIZE * %s_BUCKETS * "
                          "sizeof(float))",
                          m, m);
        else if (f->hot == 2)
            fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_BUCKETS * sizeof(float))",
                          m);
    }
}

/* The start shared by fc_field_desc and fc_list_desc initializers: key,
 * C name, type, kind, rank and the dims array. */
static const char *kind_enum(fc_kind k)
{
    return k == FC_KIND_FIXED    ? "FIXED"
           : k == FC_KIND_VARLEN ? "VARLEN"
           : k == FC_KIND_SPARSE ? "SPARSE"
           : k == FC_KIND_RAGGED ? "RAGGED"
                                 : "ROWS";
}

/* The start of a descriptor entry: {"key", key_len, "c_name", type, kind,
 * rank, {dims}, elems, max, */
void fcc_emit_desc_head(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "    {");
    fcc_c_string(b, f->key, f->key_len);
    fcc_sb_printf(b, ", %zu, \"%s\", FC_TYPE_%s, FC_KIND_%s, %u, {", f->key_len, f->cname,
                  fcc_type_enum(f->type), kind_enum(f->kind), f->rank);
    for (r = 0; r < f->rank || r == 0; r++)
        fcc_sb_printf(b, "%s%zu", r ? ", " : "", r < f->rank ? f->dims[r] : (size_t)0);
    fcc_sb_printf(b, "}, %zu, %zu, ", f->elems, f->max);
}

/* A RaggedFeature's partitions, in data. */
void fcc_emit_ragged_parts(sbuf *b, const schema_message *m, const schema_feature *f)
{
    static const char *const part_kinds[] = {
        "0", "FC_PART_ROW_SPLITS", "FC_PART_ROW_LENGTHS", "FC_PART_ROW_STARTS",
        "FC_PART_ROW_LIMITS", "FC_PART_VALUE_ROWIDS", "FC_PART_UNIFORM_ROW_LENGTH"};
    unsigned q;
    fcc_sb_printf(b, "\n/* Columns: kind, field, length, max_rows, rows_offset, splits_offset. */\n"
                     "static const fc_part_desc %s_parts_%s[%u] = {\n", m->c_type, f->cname,
                  f->nparts > 0 ? f->nparts : 1u);
    for (q = 0; q < f->nparts; q++)
        fcc_sb_printf(b,
                      "    {%s, %u, %zu, %s_ROWS%u_MAX, offsetof(%s, %s_rows%u), "
                      "offsetof(%s, %s_splits%u)}%s\n",
                      part_kinds[f->parts[q].kind], (unsigned)f->parts[q].field,
                      f->parts[q].length, f->macro, q, m->c_type, f->cname, q, m->c_type,
                      f->cname, q, q + 1 < f->nparts ? "," : "");
    if (f->nparts == 0)
        fcc_sb_str(b, "    {FC_PART_ROW_SPLITS, 0, 0, 0, 0, 0} /* (none) */\n");
    fcc_sb_str(b, "};\n");
}

/* Whether f needs an fc_field_extra of its own (else one of the runtime's:
 * fc_field_plain, fc_field_for_sparse, fc_field_for_ragged). */
int fcc_has_extra(const schema_feature *f)
{
    return (f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) ||
           f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED || f->as != FC_AS_NONE;
}

/* The fc_field_extra of f: hash buckets, a SparseFeature's or a
 * RaggedFeature's parts, the mark of a field read only for one. */
void fcc_emit_field_extra(sbuf *b, const schema_message *m, const schema_feature *f)
{
    unsigned r;
    if (f->as != FC_AS_NONE) {
        fcc_sb_printf(b, "\n/* ");
        fcc_comment_key(b, f->key, f->key_len);
        fcc_sb_printf(b, " as %s (type, offset, rank, dims, elems) */\n"
                         "static const fc_field_as %s_as_%s = {\n    %s, offsetof(%s, %s_as), %u, {",
                      fc_as_name(f->as), m->c_type, f->cname, fcc_as_macro(f->as), m->c_type,
                      f->cname, f->as_rank);
        for (r = 0; r < f->as_rank || r == 0; r++)
            fcc_sb_printf(b, "%s%zu", r ? ", " : "", f->as_rank ? f->as_dims[r] : (size_t)0);
        fcc_sb_printf(b, "}, %zu\n};\n", f->as_elems);
    }
    fcc_sb_str(b, "\n/* ");
    if (f->list)
        fcc_describe_list(b, f);
    else
        fcc_describe(b, f);
    fcc_sb_printf(b, "\n * (rows: hash_buckets, hot, bucket_offset, hot_offset; indices_offset,\n"
                     " * sparse_fields, already_sorted, hidden; parts, nparts, split64, as) */\n"
                     "static const fc_field_extra %s_extra_%s = {\n    ",
                  m->c_type, f->cname);
    if (f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) {
        fcc_sb_printf(b, "%zu, %s, offsetof(%s, %s_bucket), ", f->hash_buckets,
                      f->hot == 1 ? "FC_HOT_ONE" : f->hot == 2 ? "FC_HOT_MULTI" : "0", m->c_type,
                      f->cname);
        if (f->hot != 0)
            fcc_sb_printf(b, "offsetof(%s, %s_hot),\n    ", m->c_type, f->cname);
        else
            fcc_sb_str(b, "0,\n    ");
    } else {
        fcc_sb_str(b, "0, 0, 0, 0,\n    ");
    }
    if (f->kind == FC_KIND_SPARSE) {
        fcc_sb_printf(b, "offsetof(%s, %s_indices), {", m->c_type, f->cname);
        for (r = 0; r <= f->rank; r++)
            fcc_sb_printf(b, "%s%u", r ? ", " : "", (unsigned)f->sparse_fields[r]);
        fcc_sb_printf(b, "}, %d, 0,\n    NULL, 0, 0, ", f->already_sorted);
        if (f->as != FC_AS_NONE)
            fcc_sb_printf(b, "&%s_as_%s\n};\n", m->c_type, f->cname);
        else
            fcc_sb_str(b, "NULL\n};\n");
    } else if (f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "0, {%u}, 0, 0,\n    %s_parts_%s, %u, %d, ", (unsigned)f->sparse_fields[0],
                      m->c_type, f->cname, f->nparts, f->split64);
        if (f->as != FC_AS_NONE)
            fcc_sb_printf(b, "&%s_as_%s\n};\n", m->c_type, f->cname);
        else
            fcc_sb_str(b, "NULL\n};\n");
    } else if (f->as != FC_AS_NONE) {
        fcc_sb_printf(b, "0, {0}, 0, 0,\n    NULL, 0, 0, &%s_as_%s\n};\n", m->c_type, f->cname);
    } else {
        fcc_sb_str(b, "0, {0}, 0, 0,\n    NULL, 0, 0, NULL\n};\n");
    }
}

/* The fc_field_desc entry of an Example or context feature, one line; its
 * fc_field_extra, if it needs one, goes to extras. */
void fcc_emit_field_desc(sbuf *b, sbuf *extras, const schema_message *m,
                         const schema_feature *f, int last)
{
    fcc_emit_desc_head(b, f);
    if (f->kind == FC_KIND_FIXED && f->elems == 0)
        fcc_sb_str(b, "0, ");
    else
        fcc_sb_printf(b, "offsetof(%s, %s), ", m->c_type, f->cname);
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "offsetof(%s, %s_count), ", m->c_type, f->cname);
    else
        fcc_sb_str(b, "0, ");
    if (f->has_default)
        fcc_sb_printf(b, "%s_default_%s, ", m->c_type, f->cname);
    else
        fcc_sb_str(b, "NULL, ");
    if (fcc_has_extra(f)) {
        fcc_emit_field_extra(extras, m, f);
        fcc_sb_printf(b, "&%s_extra_%s}", m->c_type, f->cname);
    } else {
        fcc_sb_str(b, f->hidden == 1   ? "&fc_field_for_sparse}"
                      : f->hidden == 2 ? "&fc_field_for_ragged}"
                                       : "&fc_field_plain}");
    }
    fcc_sb_str(b, last ? "\n" : ",\n");
}

/* Sorted by (length, bytes) for the lookup switch. */
static int by_len_then_bytes(const schema_feature *a, const schema_feature *b)
{
    if (a->key_len != b->key_len)
        return a->key_len < b->key_len ? -1 : 1;
    return a->key_len ? memcmp(a->key, b->key, a->key_len) : 0;
}

static void indent_to(sbuf *b, unsigned depth)
{
    unsigned i;
    for (i = 0; i < depth; i++)
        fcc_sb_str(b, "    ");
}

/* key == the n bytes of k, as compares of 8, 4, 2 and 1 bytes: each one
 * load and compare, where memcmp of other lengths is a call. */
static void emit_key_eq(sbuf *b, const char *k, size_t n, unsigned depth)
{
    size_t off = 0;
    if (n == 0) {
        fcc_sb_str(b, "memcmp(key, \"\", 0) == 0");
        return;
    }
    while (off < n) {
        size_t chunk = n - off >= 8 ? 8 : n - off >= 4 ? 4 : n - off >= 2 ? 2 : 1;
        if (off > 0) {
            fcc_sb_str(b, " &&\n");
            indent_to(b, depth);
            fcc_sb_str(b, "    memcmp(key + ");
            fcc_sb_printf(b, "%zu, ", off);
        } else {
            fcc_sb_str(b, "memcmp(key, ");
        }
        fcc_c_string(b, k + off, chunk);
        fcc_sb_printf(b, ", %zu) == 0", chunk);
        off += chunk;
    }
}

/* Keys of one length, told apart at generation time: while more than two
 * are left, a switch on the byte that splits them into the most groups
 * (the first such byte), then a comparison of the whole key, so that a key
 * costs one or two word compares however many keys share its length. */
static void emit_dispatch(sbuf *b, const schema_feature *group, const size_t *idx, size_t n,
                          unsigned depth, const char *minus)
{
    size_t len = group[idx[0]].key_len, pos, best = 0, best_groups = 0, i, j, *sub;
    if (n > 2) {
        for (pos = 0; pos < len; pos++) {
            unsigned char seen[256];
            size_t groups = 0;
            memset(seen, 0, sizeof seen);
            for (i = 0; i < n; i++) {
                unsigned char c = (unsigned char)group[idx[i]].key[pos];
                groups += !seen[c];
                seen[c] = 1;
            }
            if (groups > best_groups) {
                best_groups = groups;
                best = pos;
            }
        }
    }
    if (n <= 2 || best_groups < 2) {
        for (i = 0; i < n; i++) {
            const schema_feature *f = &group[idx[i]];
            indent_to(b, depth);
            fcc_sb_str(b, "if (");
            emit_key_eq(b, f->key, f->key_len, depth);
            fcc_sb_str(b, ")\n");
            indent_to(b, depth + 1);
            fcc_sb_printf(b, "return %s%s;\n", f->macro, minus);
        }
        return;
    }
    sub = (size_t *)malloc(n * sizeof *sub);
    if (sub == NULL) {
        b->failed = 1;
        return;
    }
    indent_to(b, depth);
    fcc_sb_printf(b, "switch (key[%zu]) {\n", best);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)group[idx[i]].key[best];
        size_t m = 0;
        for (j = 0; j < i; j++)
            if ((unsigned char)group[idx[j]].key[best] == c)
                break;
        if (j < i)
            continue; /* this byte's case is written */
        for (j = i; j < n; j++)
            if ((unsigned char)group[idx[j]].key[best] == c)
                sub[m++] = idx[j];
        indent_to(b, depth);
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            fcc_sb_printf(b, "case '%c':\n", c);
        else
            fcc_sb_printf(b, "case 0x%02x:\n", c);
        emit_dispatch(b, group, sub, m, depth + 1, minus);
        indent_to(b, depth + 1);
        fcc_sb_str(b, "break;\n");
    }
    free(sub);
    indent_to(b, depth);
    fcc_sb_str(b, "default:\n");
    indent_to(b, depth + 1);
    fcc_sb_str(b, "break;\n");
    indent_to(b, depth);
    fcc_sb_str(b, "}\n");
}

/* The body of a key -> field number function: a switch on the length, then
 * a comparison of the bytes.  0 when memory ran out. */
int fcc_emit_lookup(sbuf *b, const schema_feature *group, size_t n, const char *minus)
{
    size_t i, j, k = 0, *order;
    /* SparseFeatures have no key in the data: their fields do */
    for (i = 0; i < n; i++)
        if (group[i].kind != FC_KIND_SPARSE && group[i].kind != FC_KIND_RAGGED)
            k++;
    if (k == 0) {
        fcc_sb_str(b, "    (void)key;\n    (void)len;");
        return 1;
    }
    order = (size_t *)malloc(k * sizeof *order);
    if (order == NULL)
        return 0;
    for (i = 0, k = 0; i < n; i++) {
        size_t x = i;
        if (group[i].kind == FC_KIND_SPARSE || group[i].kind == FC_KIND_RAGGED)
            continue;
        j = k++;
        while (j > 0 && by_len_then_bytes(&group[order[j - 1]], &group[x]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    n = k;
    fcc_sb_str(b, "    switch (len) {\n");
    for (i = 0; i < n; i = j) {
        const schema_feature *f = &group[order[i]];
        for (j = i + 1; j < n && group[order[j]].key_len == f->key_len; j++)
            ;
        fcc_sb_printf(b, "    case %zu:\n", f->key_len);
        if (f->key_len == 0) {
            fcc_sb_printf(b, "        return %s%s;\n", f->macro, minus);
            continue;
        }
        emit_dispatch(b, group, order + i, j - i, 2, minus);
        fcc_sb_str(b, "        break;\n");
    }
    fcc_sb_str(b, "    default:\n        break;\n    }");
    free(order);
    return 1;
}

/* The fast path's case for feature i of an Example (or a SequenceExample's
 * context): decode the entry's value straight into the struct, or give up
 * (return 0) and leave the record to the general path.  `absent` receives
 * what the general path's decode does when the feature is not in the
 * record: a VarLen count of 0, a default, or (required) give up. */
void fcc_emit_fast_feature(sbuf *cases, sbuf *absent, const schema_feature *f, size_t i)
{
    if (f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED)
        return; /* built from their fields afterwards */
    fcc_sb_printf(cases, "        case %s:\n", f->macro);
    if (f->kind == FC_KIND_ROWS) {
        fcc_sb_str(cases, "            return 0; /* rows: the general path */\n");
        fcc_sb_printf(absent, "    if (!fc_bit_get(seen, %s))\n        m->%s_count = 0;\n",
                      f->macro, f->cname);
        return;
    }
    fcc_sb_printf(cases, "            if (!fc_fast_mark(seen, %zu) ||\n", i);
    if (f->kind == FC_KIND_FIXED) {
        fcc_sb_printf(cases, "                !fc_fast_fixed(FC_TYPE_%s, &e, ", fcc_type_enum(f->type));
        fcc_value_ptr(cases, "m", f);
        fcc_sb_printf(cases, ", %zu))\n", f->elems);
    } else {
        fcc_sb_printf(cases, "                !fc_fast_varlen(FC_TYPE_%s, &e, ",
                      fcc_type_enum(f->type));
        fcc_value_ptr(cases, "m", f);
        fcc_sb_printf(cases, ", %s_MAX, &m->%s_count))\n", f->macro, f->cname);
    }
    fcc_sb_str(cases, "                return 0;\n            break;\n");
    if (f->kind == FC_KIND_VARLEN)
        fcc_sb_printf(absent, "    if (!fc_bit_get(seen, %s))\n        m->%s_count = 0;\n",
                      f->macro, f->cname);
    else if (!f->has_default) /* (a default: NAME_defaults fills it) */
        fcc_sb_printf(absent, "    if (!fc_bit_get(seen, %s))\n        return 0; /* required */\n",
                      f->macro);
}

/* One column's statement in NAME_batch_append (feature f, a context
 * feature or an Example's when list is 0): a typed put for the common
 * kinds (FixedLen, VarLen, FixedLenSequence rows, fixed and VarLen lists,
 * unhashed), falling back to the general path `general` when the put finds
 * a capacity short (it writes nothing then, and the general path reports
 * it); the general path alone for the rest.  Returns what it used:
 * USES_COLS, and USES_RC. */
#define USES_COLS 1
#define USES_RC 2
static int emit_append_column(sbuf *b, const schema_message *m, const schema_feature *f, int list,
                              const char *general)
{
    const char *t = fcc_c_elem_type(f->type);
    unsigned r;
    fcc_sb_str(b, "    /* ");
    if (list)
        fcc_describe_list(b, f);
    else
        fcc_describe(b, f);
    fcc_sb_str(b, " */\n");
    if (f->hash_buckets > 0 || f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED ||
        f->as != FC_AS_NONE) {
        fcc_sb_printf(b,
                      "    if ((rc = %s(&%s_desc, %s, cols, m, i, err)) != FC_OK)\n"
                      "        return rc;\n",
                      general, m->c_type, f->macro);
        return USES_COLS | USES_RC;
    }
    if (!list && f->kind == FC_KIND_FIXED) {
        if (f->elems == 0) {
            fcc_sb_str(b, "    /* (no values) */\n");
            return 0;
        }
        fcc_sb_printf(b, "    fc_batch_put_fixed(&cols[%s], i,\n                       ", f->macro);
        fcc_value_ptr(b, "m", f);
        fcc_sb_printf(b, ", %zu * sizeof(%s), %zu);\n", f->elems, t, f->elems);
        return USES_COLS;
    }
    /* if (fc_batch_put_KIND(&cols[M], i,
     *                       VALUES, COUNTS..., sizeof(T)) != 0 && */
    if (list && f->kind == FC_KIND_FIXED) {
        fcc_sb_printf(b, "    if (fc_batch_put_rows(&cols[%s], i,\n                          &m->%s[0]",
                      f->macro, f->cname);
        for (r = 0; r < f->rank; r++)
            fcc_sb_str(b, "[0]");
        fcc_sb_printf(b, ", m->%s_frames, %zu, sizeof(%s)) != 0 &&\n", f->cname, f->elems, t);
    } else if (list) {
        fcc_sb_printf(b,
                      "    if (fc_batch_put_frames(&cols[%s], i,\n                            "
                      "&m->%s[0][0], m->%s_count, m->%s_frames, %s_MAX,\n"
                      "                            sizeof(%s)) != 0 &&\n",
                      f->macro, f->cname, f->cname, f->cname, f->macro, t);
    } else if (f->kind == FC_KIND_ROWS) {
        fcc_sb_printf(b, "    if (fc_batch_put_rows(&cols[%s], i,\n                          ",
                      f->macro);
        fcc_value_ptr(b, "m", f);
        fcc_sb_printf(b, ", m->%s_count, %zu, sizeof(%s)) != 0 &&\n", f->cname, f->elems, t);
    } else {
        fcc_sb_printf(b, "    if (fc_batch_put_varlen(&cols[%s], i,\n                            ",
                      f->macro);
        fcc_value_ptr(b, "m", f);
        fcc_sb_printf(b, ", m->%s_count, sizeof(%s)) != 0 &&\n", f->cname, t);
    }
    fcc_sb_printf(b,
                  "        (rc = %s(&%s_desc, %s, cols, m, i, err)) != FC_OK)\n"
                  "        return rc;\n",
                  general, m->c_type, f->macro);
    return USES_COLS | USES_RC;
}

/* The body of NAME_batch_append: each column of record i, in column order
 * (an Example's fields; a SequenceExample's context features, then its
 * lists), as fc_batch_parse's general path writes them. */
void fcc_emit_batch_append(sbuf *b, const schema_message *m)
{
    const char *general = m->sequence ? "fc_batch_append_seq" : "fc_batch_append_field";
    sbuf body;
    size_t i;
    int uses = 0;
    memset(&body, 0, sizeof body);
    for (i = 0; i < m->nfeatures; i++)
        uses |= emit_append_column(&body, m, &m->features[i], 0, general);
    for (i = 0; i < m->nlists; i++)
        uses |= emit_append_column(&body, m, &m->lists[i], 1, general);
    fcc_sb_str(b, (uses & USES_RC) ? "    int rc;\n" : "    (void)err;\n");
    if (!(uses & USES_COLS))
        fcc_sb_str(b, "    (void)m;\n    (void)cols;\n    (void)i;\n");
    fcc_sb_str(b, fcc_str_or_empty(&body));
    if (body.failed)
        b->failed = 1;
    free(body.s);
}
