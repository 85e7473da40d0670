/* The C emitter: templates/ (embedded at build time) give the invariant code,
 * the functions below the per-feature parts.  Output depends only on the
 * schema and the options: no time, no absolute path, no host detail. */
#include "spec.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ templates */

typedef struct subst {
    const char *name;
    const char *value;
} subst;

/* Copies tpl, replacing @@NAME@@ markers.  A marker alone on its line is
 * replaced together with the line: the value brings its own newlines. */
static void expand(sbuf *b, const char *tpl, const subst *subs, size_t nsubs)
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
static void c_string(sbuf *b, const char *s, size_t n)
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
static void comment_key(sbuf *b, const char *s, size_t n)
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

static const char *c_elem_type(fc_type t)
{
    return t == FC_TYPE_BYTES ? "fc_bytes" : t == FC_TYPE_FLOAT ? "float" : "int64_t";
}

/* "shape [2,3]", "VarLen, at most 64 values", ... for comments. */
static void describe(sbuf *b, const schema_feature *f)
{
    unsigned i;
    comment_key(b, f->key, f->key_len);
    fcc_sb_printf(b, ": %s", fcc_type_word(f->type));
    if (f->kind == FC_KIND_SPARSE) {
        const ast_key *k;
        fcc_sb_str(b, ", SparseFeature [");
        for (i = 0; i < f->rank; i++)
            fcc_sb_printf(b, "%s%zu", i > 0 ? "," : "", f->dims[i]);
        fcc_sb_str(b, "] from index key");
        fcc_sb_str(b, f->rank > 1 ? "s " : " ");
        for (k = f->ast->index_keys; k != NULL; k = k->next) {
            comment_key(b, k->key, k->len);
            fcc_sb_str(b, k->next != NULL ? ", " : "");
        }
        fcc_sb_str(b, " and value key ");
        comment_key(b, f->ast->value_key->key, f->ast->value_key->len);
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
                comment_key(b, sp->ast->key->key, sp->ast->key->len);
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
}

/* ------------------------------------------------------------ one message */

typedef struct msg_parts {
    /* both kinds */
    sbuf enm, constants, members, defaults, init, batch, parser, counts, fast_defaults;
    /* example: field table, missing order, lookup, general-path decoder,
     * required checks, what is built after decoding, fast path */
    sbuf descs, order, lookup, decode, missing, finish, fast, absent;
    /* sequence_example: context and list tables and their references,
     * lookups, fast path */
    sbuf cdescs, ldescs, cref, corder_ref, lref, lorder_ref, clookup, llookup;
    sbuf cfast, cabsent, lfast, labsent;
} msg_parts;

/* The text buffers one emitter fills, listed by a NAME_bufs function: freed
 * together, and failed if any of them failed. */
#define MAX_PARTS 32

static void parts_free(sbuf *const *all, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(all[i]->s);
}

static int parts_failed(sbuf *const *all, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (all[i]->failed)
            return 1;
    return 0;
}

static size_t msg_bufs(msg_parts *mp, sbuf **all)
{
    sbuf *list[] = {&mp->enm,        &mp->constants, &mp->members,    &mp->defaults, &mp->init,
                    &mp->batch,      &mp->parser,    &mp->descs,      &mp->order,    &mp->lookup,
                    &mp->decode,     &mp->missing,   &mp->finish,     &mp->fast,     &mp->absent,
                    &mp->cdescs,     &mp->ldescs,    &mp->cref,       &mp->corder_ref,
                    &mp->lref,       &mp->lorder_ref, &mp->clookup,   &mp->llookup,
                    &mp->cfast,      &mp->cabsent,   &mp->lfast,      &mp->labsent,
                    &mp->counts,     &mp->fast_defaults};
    size_t i, n = sizeof list / sizeof list[0];
    for (i = 0; i < n; i++)
        all[i] = list[i];
    return n;
}

static const char *str_or_empty(const sbuf *b)
{
    return b->s != NULL ? b->s : "";
}

/* Pointer to the first value of f in struct pointer `m`. */
static void value_ptr(sbuf *b, const char *m, const schema_feature *f)
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

static void emit_default_array(sbuf *b, const schema_message *m, const schema_feature *f)
{
    size_t i;
    fcc_sb_printf(b, "\nstatic const %s %s_default_%s[%zu] = {", c_elem_type(f->type), m->c_type,
                  f->cname, f->ndefault);
    for (i = 0; i < f->ndefault; i++) {
        fcc_sb_str(b, i == 0 ? "\n    " : (i % 8 == 0 ? ",\n    " : ", "));
        if (f->type == FC_TYPE_INT64)
            c_int64(b, f->def_int[i]);
        else if (f->type == FC_TYPE_FLOAT)
            c_float(b, f->def_float[i]);
        else {
            fcc_sb_str(b, "{(const uint8_t *)");
            c_string(b, f->def_bytes[i], f->def_bytes_len[i]);
            fcc_sb_printf(b, ", %zu}", f->def_bytes_len[i]);
        }
    }
    fcc_sb_str(b, "\n};\n");
}

/* The statement that copies f's default into m->cname. */
static void emit_default_copy(sbuf *b, const char *indent, const schema_message *m,
                              const schema_feature *f)
{
    if (f->rank == 0)
        fcc_sb_printf(b, "%sm->%s = %s_default_%s[0];\n", indent, f->cname, m->c_type, f->cname);
    else
        fcc_sb_printf(b, "%smemcpy(m->%s, %s_default_%s, sizeof m->%s);\n", indent, f->cname,
                      m->c_type, f->cname, f->cname);
}

static const char *type_enum(fc_type t)
{
    return t == FC_TYPE_BYTES ? "BYTES" : t == FC_TYPE_FLOAT ? "FLOAT" : "INT64";
}

/* The constants of an Example or context feature. */
static void emit_feature_constants(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "/* ");
    describe(b, f);
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
}

/* The struct members of an Example or context feature. */
static void emit_feature_member(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "    /* ");
    describe(b, f);
    fcc_sb_str(b, " */\n");
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "    size_t %s_count;\n", f->cname);
    if (f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "    %s %s[%s_MAX];\n", c_elem_type(f->type), f->cname, f->macro);
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
        fcc_sb_printf(b, "    %s %s[%s_MAX];\n", c_elem_type(f->type), f->cname, f->macro);
        return;
    }
    if (f->kind == FC_KIND_FIXED && f->elems == 0) {
        fcc_sb_str(b, "    /* (no values: only its presence is recorded) */\n");
    } else {
        fcc_sb_printf(b, "    %s %s", c_elem_type(f->type), f->cname);
        if (f->kind != FC_KIND_FIXED)
            fcc_sb_printf(b, "[%s_MAX]", f->macro);
        for (r = 0; r < f->rank; r++)
            fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
        fcc_sb_str(b, ";\n");
    }
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

/* The terms of NAME_BATCH_BYTES for one column: the pieces fc_batch_bind
 * carves for it with both VarLen forms, in the same arithmetic. */
static void emit_batch_bytes(sbuf *b, const schema_feature *f, int list)
{
    const char *t = f->type == FC_TYPE_INT64 ? "int64_t" : f->type == FC_TYPE_FLOAT ? "float"
                                                                                   : "fc_bytes";
    const char *m = f->macro;
    fcc_sb_printf(b, " \\\n     /* %s */", f->cname);
    if (!list && f->kind == FC_KIND_RAGGED) {
        unsigned q;
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * sizeof(%s))", m, t);
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
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * sizeof(%s))", m, t);
        fcc_sb_printf(b,
                      " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_MAX * (%s_RANK + 1u) * "
                      "sizeof(int64_t))",
                      m, m);
        return;
    }
    if (!list && f->kind == FC_KIND_FIXED) {
        fcc_sb_printf(b, " \\\n     + FC_BATCH_ROUND((size_t)(b) * %s_SIZE * sizeof(%s))", m, t);
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
                      "sizeof(%s))",
                      m, m, t);
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
static void emit_desc_head(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "    {");
    c_string(b, f->key, f->key_len);
    fcc_sb_printf(b, ", %zu, \"%s\", FC_TYPE_%s, FC_KIND_%s, %u, {", f->key_len, f->cname,
                  type_enum(f->type), kind_enum(f->kind), f->rank);
    for (r = 0; r < f->rank || r == 0; r++)
        fcc_sb_printf(b, "%s%zu", r ? ", " : "", r < f->rank ? f->dims[r] : (size_t)0);
    fcc_sb_printf(b, "}, %zu, %zu, ", f->elems, f->max);
}

/* A RaggedFeature's partitions, in data. */
static void emit_ragged_parts(sbuf *b, const schema_message *m, const schema_feature *f)
{
    static const char *const part_kinds[] = {
        "0", "FC_PART_ROW_SPLITS", "FC_PART_ROW_LENGTHS", "FC_PART_ROW_STARTS",
        "FC_PART_ROW_LIMITS", "FC_PART_VALUE_ROWIDS", "FC_PART_UNIFORM_ROW_LENGTH"};
    unsigned q;
    fcc_sb_printf(b, "\nstatic const fc_part_desc %s_parts_%s[%u] = {\n", m->c_type, f->cname,
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
static int has_extra(const schema_feature *f)
{
    return (f->hash_buckets > 0 && !(f->kind == FC_KIND_FIXED && f->elems == 0)) ||
           f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED;
}

/* The fc_field_extra of f: hash buckets, a SparseFeature's or a
 * RaggedFeature's parts, the mark of a field read only for one. */
static void emit_field_extra(sbuf *b, const schema_message *m, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "\n/* ");
    describe(b, f);
    fcc_sb_printf(b, " */\nstatic const fc_field_extra %s_extra_%s = {\n    ", m->c_type, f->cname);
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
        fcc_sb_printf(b, "}, %d, 0,\n    NULL, 0, 0\n};\n", f->already_sorted);
    } else if (f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "0, {%u}, 0, 0,\n    %s_parts_%s, %u, %d\n};\n",
                      (unsigned)f->sparse_fields[0], m->c_type, f->cname, f->nparts, f->split64);
    } else {
        fcc_sb_str(b, "0, {0}, 0, 0,\n    NULL, 0, 0\n};\n");
    }
}

/* The fc_field_desc entry of an Example or context feature, one line; its
 * fc_field_extra, if it needs one, goes to extras. */
static void emit_field_desc(sbuf *b, sbuf *extras, const schema_message *m,
                            const schema_feature *f, int last)
{
    emit_desc_head(b, f);
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
    if (has_extra(f)) {
        emit_field_extra(extras, m, f);
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
        c_string(b, k + off, chunk);
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
static int emit_lookup(sbuf *b, const schema_feature *group, size_t n, const char *minus)
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
static void emit_fast_feature(sbuf *cases, sbuf *absent, const schema_feature *f, size_t i)
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
        fcc_sb_printf(cases, "                !fc_fast_fixed(FC_TYPE_%s, &e, ", type_enum(f->type));
        value_ptr(cases, "m", f);
        fcc_sb_printf(cases, ", %zu))\n", f->elems);
    } else {
        fcc_sb_printf(cases, "                !fc_fast_varlen(FC_TYPE_%s, &e, ",
                      type_enum(f->type));
        value_ptr(cases, "m", f);
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

/* The parts of an example's parser (templates/example.c): the general
 * path's decoder and checks, the fast path, the missing order, the lookup. */
static int example_parts(msg_parts *mp, const schema_message *m)
{
    size_t i;
    for (i = 0; i < m->nfeatures; i++) {
        const schema_feature *f = &m->features[i];
        /* SparseFeature and RaggedFeature: built from their fields afterwards */
        if (f->kind == FC_KIND_RAGGED || f->kind == FC_KIND_SPARSE) {
            fcc_sb_printf(&mp->finish,
                          "    if (fc_ex_%s(&%s_desc, %s, out, err) != FC_OK)\n"
                          "        return FC_ERR_PARSE;\n",
                          f->kind == FC_KIND_RAGGED ? "ragged" : "sparse", m->c_type, f->macro);
            continue;
        }
        emit_fast_feature(&mp->fast, &mp->absent, f, i);
        fcc_sb_str(&mp->decode, "    /* ");
        describe(&mp->decode, f);
        fcc_sb_str(&mp->decode, " */\n");
        fcc_sb_printf(&mp->decode, "    if (ref[%s].entry != 0) {\n", f->macro);
        fcc_sb_printf(&mp->decode, "        if (fc_ex_%s_%s(&ref[%s], ",
                      f->kind == FC_KIND_FIXED ? "fixed" : f->kind == FC_KIND_VARLEN ? "varlen"
                                                                                        : "rows",
                      fcc_type_word(f->type), f->macro);
        value_ptr(&mp->decode, "m", f);
        if (f->kind == FC_KIND_FIXED)
            fcc_sb_printf(&mp->decode, ", %zu, NULL) != FC_OK)\n", f->elems);
        else if (f->kind == FC_KIND_VARLEN)
            fcc_sb_printf(&mp->decode, ", %s_MAX, &m->%s_count, NULL) != FC_OK)\n", f->macro,
                          f->cname);
        else
            fcc_sb_printf(&mp->decode, ", %s_SIZE, %s_MAX, &m->%s_count, NULL) != FC_OK)\n",
                          f->macro, f->macro, f->cname);
        fcc_sb_str(&mp->decode, "            return FC_ERR_PARSE;\n");
        fcc_sb_printf(&mp->decode, "        fc_bit_set(m->present, %s);\n", f->macro);
        if (f->kind != FC_KIND_FIXED)
            fcc_sb_printf(&mp->decode, "    } else {\n        m->%s_count = 0;\n    }\n",
                          f->cname);
        else /* (a default: NAME_defaults fills it) */
            fcc_sb_str(&mp->decode, "    }\n");
    }
    /* missing order and checks */
    for (i = 0; i < m->nfeatures; i++) {
        const schema_feature *f = &m->features[m->missing_order[i]];
        fcc_sb_printf(&mp->order, "%s%u", i == 0 ? "    " : (i % 16 == 0 ? ",\n    " : ", "),
                      (unsigned)m->missing_order[i]);
        if (f->kind == FC_KIND_FIXED && !f->has_default) {
            fcc_sb_printf(&mp->missing,
                          "    if (!fc_bit_get(out->present, %s))\n"
                          "        return fc_ex_missing(&%s_desc, %s, err);\n",
                          f->macro, m->c_type, f->macro);
        }
    }
    fcc_sb_str(&mp->order, "\n");
    for (i = 0; i < m->nfeatures; i++)
        if (m->features[i].hash_buckets > 0) {
            fcc_sb_printf(&mp->finish,
                          "    /* The bucket ids of the hashed features, from their values. */\n"
                          "    fc_ex_hash_fields(%s_fields, %s_FIELD_COUNT, out);\n",
                          m->c_type, m->upper);
            break;
        }
    if (mp->missing.s == NULL)
        fcc_sb_str(&mp->missing,
                   "    (void)err; /* every feature has a default or may be absent */\n");
    return emit_lookup(&mp->lookup, m->features, m->nfeatures, "");
}

/* ------------------------------------------------------------ sequence_example */

/* "key": float, FixedLenSequence [2,2] per frame, ... for comments. */
static void describe_list(sbuf *b, const schema_feature *f)
{
    unsigned i;
    if (f->kind == FC_KIND_RAGGED) {
        describe(b, f); /* key, type and partitions, as in an Example */
    } else {
        comment_key(b, f->key, f->key_len);
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
}

static void emit_list_constants(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "/* ");
    describe_list(b, f);
    fcc_sb_str(b, " */\n");
    for (r = 0; r < f->rank; r++)
        fcc_sb_printf(b, "#define %s_DIM%u %zu\n", f->macro, r, f->dims[r]);
    if (f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "#define %s_PARTS %u\n", f->macro, f->nparts);
        for (r = 0; r < f->nparts; r++)
            fcc_sb_printf(b, "#define %s_ROWS%u_MAX %zu /* per frame */\n", f->macro, r,
                          f->parts[r].max_rows);
    }
    if (f->kind == FC_KIND_FIXED)
        fcc_sb_printf(b, "#define %s_SIZE %zu\n", f->macro, f->elems);
    else
        fcc_sb_printf(b, "#define %s_MAX %zu\n", f->macro, f->max);
    fcc_sb_printf(b, "#define %s_FRAMES_MAX %zu\n", f->macro, f->max_frames);
    if (f->hash_buckets > 0)
        fcc_sb_printf(b, "#define %s_BUCKETS %zu\n", f->macro, f->hash_buckets);
}

static void emit_list_member(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "    /* ");
    describe_list(b, f);
    fcc_sb_str(b, " */\n");
    fcc_sb_printf(b, "    size_t %s_frames;\n", f->cname);
    if (f->kind == FC_KIND_VARLEN || f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "    size_t %s_count[%s_FRAMES_MAX];\n", f->cname, f->macro);
        fcc_sb_printf(b, "    %s %s[%s_FRAMES_MAX][%s_MAX];\n", c_elem_type(f->type), f->cname,
                      f->macro, f->macro);
        if (f->hash_buckets > 0)
            fcc_sb_printf(b,
                          "    int64_t %s_bucket[%s_FRAMES_MAX][%s_MAX]; /* the bucket of each "
                          "value */\n",
                          f->cname, f->macro, f->macro);
        for (r = 0; f->kind == FC_KIND_RAGGED && r < f->nparts; r++) {
            fcc_sb_printf(b,
                          "    size_t %s_rows%u[%s_FRAMES_MAX]; /* partition %u%s: its rows in "
                          "each frame */\n",
                          f->cname, r, f->macro, r, r == 0 ? " (outermost)" : "");
            fcc_sb_printf(b, "    %s %s_splits%u[%s_FRAMES_MAX][%s_ROWS%u_MAX + 1];\n",
                          f->split64 ? "int64_t" : "int32_t", f->cname, r, f->macro, f->macro, r);
        }
        return;
    }
    fcc_sb_printf(b, "    %s %s[%s_FRAMES_MAX]", c_elem_type(f->type), f->cname, f->macro);
    for (r = 0; r < f->rank; r++)
        fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
    fcc_sb_str(b, ";\n");
}

static void emit_list_desc(sbuf *b, sbuf *extras, const schema_message *m,
                           const schema_feature *f, int last)
{
    emit_desc_head(b, f);
    fcc_sb_printf(b, "%zu, %d, %d, ", f->max_frames, f->allow_missing, f->uniform);
    fcc_sb_printf(b, "offsetof(%s, %s), offsetof(%s, %s_frames), ", m->c_type, f->cname, m->c_type,
                  f->cname);
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "offsetof(%s, %s_count), ", m->c_type, f->cname);
    else
        fcc_sb_str(b, "0, ");
    if (has_extra(f)) {
        emit_field_extra(extras, m, f);
        fcc_sb_printf(b, "&%s_extra_%s}", m->c_type, f->cname);
    } else {
        fcc_sb_str(b, f->hidden == 2 ? "&fc_field_for_ragged}" : "&fc_field_plain}");
    }
    fcc_sb_str(b, last ? "\n" : ",\n");
}

static void emit_order(sbuf *b, const uint16_t *order, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        fcc_sb_printf(b, "%s%u", i == 0 ? "    " : (i % 16 == 0 ? ",\n    " : ", "),
                      (unsigned)order[i]);
    fcc_sb_str(b, "\n");
}

/* Wraps the descriptor initializers in *descs into the array of one group
 * (context or lists) and its key order, and names both in *ref and
 * *order_ref; NULL for an empty group. */
static void emit_desc_table(sbuf *descs, sbuf *ref, sbuf *order_ref, const schema_message *m,
                            const char *lead, const char *desc_type, const char *what,
                            const char *array, const char *order_array, const char *upper_word,
                            const char *word, const uint16_t *order, size_t n)
{
    sbuf body = *descs;
    memset(descs, 0, sizeof *descs);
    if (n == 0) {
        fcc_sb_printf(descs, "%s/* (no %s) */\n", lead, what);
        fcc_sb_str(ref, "NULL");
        fcc_sb_str(order_ref, "NULL");
        free(body.s);
        return;
    }
    fcc_sb_printf(descs, "%sstatic const %s %s%s[%s_%s_COUNT] = {\n%s};\n\n"
                  "/* %s indices by key, bytewise: TensorFlow's order for errors. */\n"
                  "static const uint16_t %s%s[%s_%s_COUNT] = {\n",
                  lead, desc_type, m->c_type, array, m->upper, upper_word, str_or_empty(&body),
                  word,
                  m->c_type, order_array, m->upper, upper_word);
    free(body.s);
    emit_order(descs, order, n);
    fcc_sb_str(descs, "};\n");
    fcc_sb_printf(ref, "%s%s", m->c_type, array);
    fcc_sb_printf(order_ref, "%s%s", m->c_type, order_array);
}

/* The fast path's case for feature list j (bit `bit` of seen), and what
 * its absence means: frames 0, or (required) the general path.  aligned and
 * uniform are checked after the walk (`labsent`). */
static void emit_fast_list(sbuf *cases, sbuf *absent, const schema_message *m,
                           const schema_feature *f, size_t bit)
{
    unsigned r;
    if (f->kind == FC_KIND_RAGGED)
        return; /* built from its lists afterwards (fc_seq_finish) */
    fcc_sb_printf(cases, "        case %s - %s_CONTEXT_COUNT:\n", f->macro, m->upper);
    fcc_sb_printf(cases, "            if (!fc_fast_mark(seen, %zu) ||\n", bit);
    fcc_sb_printf(cases, "                !fc_fast_frames(FC_TYPE_%s, &e, &m->%s[0]",
                  type_enum(f->type), f->cname);
    if (f->kind == FC_KIND_VARLEN) {
        fcc_sb_printf(cases, "[0], %s_MAX, %s_FRAMES_MAX, m->%s_count, &m->%s_frames))\n", f->macro,
                  f->macro, f->cname, f->cname);
    } else {
        for (r = 0; r < f->rank; r++)
            fcc_sb_str(cases, "[0]");
        fcc_sb_printf(cases, ", %zu, %s_FRAMES_MAX, NULL, &m->%s_frames))\n", f->elems, f->macro,
                  f->cname);
    }
    fcc_sb_str(cases, "                return 0;\n            break;\n");
    fcc_sb_printf(absent, "    if (!fc_bit_get(seen, %s))", f->macro);
    if (f->kind == FC_KIND_FIXED && !f->allow_missing)
        fcc_sb_str(absent, "\n        return 0; /* required */\n");
    else
        fcc_sb_printf(absent, "\n        m->%s_frames = 0;\n", f->cname);
    if (f->kind == FC_KIND_VARLEN && f->uniform)
        fcc_sb_printf(absent,
                      "    for (t = 1; t < m->%s_frames; t++) /* uniform */\n"
                      "        if (m->%s_count[t] != m->%s_count[0])\n"
                      "            return 0;\n",
                      f->cname, f->cname, f->cname);
}

/* The parts of a sequence_example's parser (templates/sequence.c): the
 * context and list tables, the fast path, the lookups. */
static int sequence_parts(msg_parts *mp, const schema_message *m)
{
    sbuf minus = {NULL, 0, 0, 0};
    size_t i;
    int ok;
    for (i = 0; i < m->nfeatures; i++)
        emit_fast_feature(&mp->cfast, &mp->cabsent, &m->features[i], i);
    for (i = 0; i < m->nlists; i++)
        emit_fast_list(&mp->lfast, &mp->labsent, m, &m->lists[i], m->nfeatures + i);
    if (m->aligned && m->nlists > 1) {
        /* every list present has the same number of frames */
        fcc_sb_str(&mp->labsent, "    frames = (size_t)-1; /* aligned */\n");
        for (i = 0; i < m->nlists; i++) {
            if (m->lists[i].kind == FC_KIND_RAGGED)
                continue;
            fcc_sb_printf(&mp->labsent,
                          "    if (fc_bit_get(seen, %s)) {\n"
                          "        if (frames != (size_t)-1 && m->%s_frames != frames)\n"
                          "            return 0;\n"
                          "        frames = m->%s_frames;\n"
                          "    }\n",
                          m->lists[i].macro, m->lists[i].cname, m->lists[i].cname);
        }
    }
    emit_desc_table(&mp->cdescs, &mp->cref, &mp->corder_ref, m, "", "fc_field_desc",
                    "context features", "_context", "_context_order", "CONTEXT", "Context",
                    m->missing_order, m->nfeatures);
    emit_desc_table(&mp->ldescs, &mp->lref, &mp->lorder_ref, m, "\n", "fc_list_desc",
                    "feature lists", "_lists", "_list_order", "LIST", "List",
                    m->list_missing_order, m->nlists);
    fcc_sb_printf(&mp->counts, "#define %s_CONTEXT_COUNT %zu\n#define %s_LIST_COUNT %zu\n",
                  m->upper, m->nfeatures, m->upper, m->nlists);
    fcc_sb_printf(&minus, " - %s_CONTEXT_COUNT", m->upper);
    ok = !minus.failed && emit_lookup(&mp->clookup, m->features, m->nfeatures, "") &&
         emit_lookup(&mp->llookup, m->lists, m->nlists, minus.s);
    free(minus.s);
    return ok;
}

/* ------------------------------------------------------------ one message */

/* Whether NAME_defaults fills feature f when the record lacks it. */
static int fills_default(const schema_feature *f)
{
    return f->has_default && f->kind == FC_KIND_FIXED;
}

/* The fast path's call of NAME_defaults: made only when a feature it fills
 * is absent (their bits in seen, word by word), so that a record with
 * every feature costs no call. */
static void emit_fast_defaults(sbuf *b, const schema_message *m)
{
    size_t w, i, words = (m->nfeatures + 31) / 32, terms = 0;
    for (w = 0; w < words; w++) {
        uint32_t mask = 0;
        for (i = w * 32; i < m->nfeatures && i < w * 32 + 32; i++)
            if (fills_default(&m->features[i]))
                mask |= (uint32_t)1u << (i % 32);
        if (mask == 0)
            continue;
        fcc_sb_printf(b, "%s(seen[%zu] & UINT32_C(0x%lX)) != UINT32_C(0x%lX)",
                      terms == 0 ? "    /* a feature with a default is absent */\n    if (" : " ||\n        ",
                      w, (unsigned long)mask, (unsigned long)mask);
        terms++;
    }
    if (terms == 0)
        fcc_sb_str(b, "    /* (no feature has a default) */\n");
    else
        fcc_sb_printf(b, ")\n        %s_defaults(m, seen);\n", m->c_type);
}

/* What both kinds share: the enum, constants, struct members, defaults,
 * init, batch sizes and the field descriptors of every feature and list. */
static void common_parts(msg_parts *mp, const schema_message *m)
{
    size_t i, total = m->nfeatures + m->nlists;
    for (i = 0; i < total; i++) {
        const schema_feature *f = i < m->nfeatures ? &m->features[i] : &m->lists[i - m->nfeatures];
        fcc_sb_printf(&mp->enm, "    %s = %zu%s\n", f->macro, i, i + 1 < total ? "," : "");
    }
    if (m->sequence && m->nfeatures > 0)
        fcc_sb_str(&mp->members, "    /* context features */\n");
    for (i = 0; i < m->nfeatures; i++) {
        const schema_feature *f = &m->features[i];
        emit_feature_constants(&mp->constants, f);
        emit_feature_member(&mp->members, f);
        if (f->has_default)
            emit_default_array(&mp->defaults, m, f);
        if (fills_default(f)) {
            fcc_sb_printf(&mp->init, "    if (!fc_bit_get(seen, %s))\n", f->macro);
            emit_default_copy(&mp->init, "        ", m, f);
        }
        if (f->kind == FC_KIND_RAGGED)
            emit_ragged_parts(&mp->defaults, m, f); /* before the extra that names them */
        emit_field_desc(m->sequence ? &mp->cdescs : &mp->descs, &mp->defaults, m, f,
                        i + 1 == m->nfeatures);
        emit_batch_bytes(&mp->batch, f, 0);
    }
    emit_fast_defaults(&mp->fast_defaults, m);
    if (m->nlists > 0)
        fcc_sb_str(&mp->members, "    /* feature lists */\n");
    for (i = 0; i < m->nlists; i++) {
        const schema_feature *f = &m->lists[i];
        emit_list_constants(&mp->constants, f);
        emit_list_member(&mp->members, f);
        if (f->kind == FC_KIND_RAGGED)
            emit_ragged_parts(&mp->defaults, m, f); /* before the extra that names them */
        emit_list_desc(&mp->ldescs, &mp->defaults, m, f, i + 1 == m->nlists);
        emit_batch_bytes(&mp->batch, f, 1);
    }
}

/* The kind's words in message.h, message.c and the driver. */
static void kind_words(subst *subs, int sequence)
{
    static const subst words[2][8] = {
        {{"KIND", "example"}, {"PROTO", "Example"}, {"TF_PARSE", "parse_single_example"},
         {"TF_BATCH", "parse_example"}, {"DESC_TYPE", "fc_message_desc"}, {"RT", "fc_ex"},
         {"BATCH", ""}, {"DRIVER_MAIN", "fc_driver_main"}},
        {{"KIND", "sequence_example"}, {"PROTO", "SequenceExample"},
         {"TF_PARSE", "parse_single_sequence_example"}, {"TF_BATCH", "parse_sequence_example"},
         {"DESC_TYPE", "fc_seq_desc"}, {"RT", "fc_seq"}, {"BATCH", "_seq"},
         {"DRIVER_MAIN", "fc_driver_seq_main"}}};
    memcpy(subs, words[sequence != 0], sizeof words[0]);
}
#define KIND_WORDS 8

/* One example or sequence_example: templates/message.h, and
 * templates/message.c around the kind's parser (example.c, sequence.c). */
static int emit_message(const schema_message *m, sbuf *hdr, sbuf *src)
{
    msg_parts mp;
    sbuf *bufs[MAX_PARTS];
    size_t nbufs, total = m->nfeatures + m->nlists;
    char count[32], words[32];
    int ok;
    memset(&mp, 0, sizeof mp);
    nbufs = msg_bufs(&mp, bufs);
    common_parts(&mp, m);
    if (mp.init.s == NULL)
        fcc_sb_str(&mp.init, "    (void)m;\n    (void)seen; /* no field has a default */\n");
    ok = m->sequence ? sequence_parts(&mp, m) : example_parts(&mp, m);
    snprintf(count, sizeof count, "%zu", total);
    snprintf(words, sizeof words, "%zu", (total + 31) / 32);
    ok = ok && !parts_failed(bufs, nbufs);
    if (ok) {
        subst subs[] = {
            /* the kind's words go first (kind_words) */
            {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""},
            /* both kinds */
            {"NAME", m->name},
            {"TYPE", m->c_type},
            {"UPPER", m->upper},
            {"COUNT", count},
            {"WORDS", words},
            {"ENUM", str_or_empty(&mp.enm)},
            {"CONSTANTS", str_or_empty(&mp.constants)},
            {"MEMBERS", str_or_empty(&mp.members)},
            {"DEFAULTS", str_or_empty(&mp.defaults)},
            {"FILL_DEFAULTS", str_or_empty(&mp.init)},
            {"BATCH_BYTES", str_or_empty(&mp.batch)},
            {"PART_COUNTS", str_or_empty(&mp.counts)},
            {"FAST_DEFAULTS", str_or_empty(&mp.fast_defaults)},
            /* example.c */
            {"FIELD_DESCS", str_or_empty(&mp.descs)},
            {"MISSING_ORDER", str_or_empty(&mp.order)},
            {"LOOKUP", str_or_empty(&mp.lookup)},
            {"DECODE", str_or_empty(&mp.decode)},
            {"MISSING", str_or_empty(&mp.missing)},
            {"FINISH", str_or_empty(&mp.finish)},
            {"FAST_CASES", str_or_empty(&mp.fast)},
            {"FAST_ABSENT", str_or_empty(&mp.absent)},
            /* sequence.c */
            {"CONTEXT_DESCS", str_or_empty(&mp.cdescs)},
            {"LIST_DESCS", str_or_empty(&mp.ldescs)},
            {"CONTEXT_LOOKUP", str_or_empty(&mp.clookup)},
            {"LIST_LOOKUP", str_or_empty(&mp.llookup)},
            {"CONTEXT_REF", str_or_empty(&mp.cref)},
            {"CONTEXT_ORDER_REF", str_or_empty(&mp.corder_ref)},
            {"LIST_REF", str_or_empty(&mp.lref)},
            {"LIST_ORDER_REF", str_or_empty(&mp.lorder_ref)},
            {"ALIGNED", m->aligned ? "1" : "0"},
            {"FAST_CONTEXT_CASES", str_or_empty(&mp.cfast)},
            {"FAST_CONTEXT_ABSENT", str_or_empty(&mp.cabsent)},
            {"FAST_LIST_CASES", str_or_empty(&mp.lfast)},
            {"FAST_LIST_ABSENT", str_or_empty(&mp.labsent)},
            /* message.c: the kind's parser, expanded first */
            {"PARSER", ""},
        };
        size_t nsubs = sizeof subs / sizeof subs[0];
        kind_words(subs, m->sequence);
        expand(&mp.parser, m->sequence ? fcc_template_sequence_c : fcc_template_example_c, subs,
               nsubs);
        subs[nsubs - 1].value = str_or_empty(&mp.parser);
        ok = !mp.parser.failed;
        expand(hdr, fcc_template_message_h, subs, nsubs);
        expand(src, fcc_template_message_c, subs, nsubs);
    }
    parts_free(bufs, nbufs);
    return ok;
}

/* ------------------------------------------------------------ segments */

/* [B] or [B][U], then the value dims: the batch array of one feature. */
static void seg_array(sbuf *b, const schema_message *m, const schema_feature *f, int list,
                      const char *suffix, int counts)
{
    unsigned r;
    fcc_sb_printf(b, "        %s %s%s[%s_SEG_BATCH_SIZE]", counts ? "size_t" : c_elem_type(f->type),
                  f->cname, suffix, m->upper);
    if (list)
        fcc_sb_printf(b, "[%s_SEG_NUM_UNROLL]", m->upper);
    if (counts) {
        fcc_sb_str(b, ";\n");
        return;
    }
    if (f->kind == FC_KIND_VARLEN)
        fcc_sb_printf(b, "[%s_MAX]", f->macro);
    else
        for (r = 0; r < f->rank; r++)
            fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
    fcc_sb_str(b, ";\n");
}

/* Whether a feature has values to copy (a FixedLen of shape [0] has none). */
static int seg_has_values(const schema_feature *f)
{
    return !(f->kind == FC_KIND_FIXED && f->elems == 0);
}

typedef struct seg_parts {
    sbuf state_enum, state_constants, state_members, batch_members, state_batch, records_member,
        records_bind, bind, insert_decl, insert_def, save_decls, save_defs, state_descs,
        state_bind;
} seg_parts;

static size_t seg_bufs(seg_parts *sp, sbuf **all)
{
    sbuf *list[] = {&sp->state_enum,    &sp->state_constants, &sp->state_members,
                    &sp->batch_members, &sp->state_batch,     &sp->records_member,
                    &sp->records_bind,  &sp->bind,            &sp->insert_decl,
                    &sp->insert_def,    &sp->save_decls,      &sp->save_defs,
                    &sp->state_descs,   &sp->state_bind};
    size_t i, n = sizeof list / sizeof list[0];
    for (i = 0; i < n; i++)
        all[i] = list[i];
    return n;
}

/* The declarations, constants, members, descriptors and save functions of
 * the segmenter's states. */
static void seg_state_parts(seg_parts *sp, const schema_message *m)
{
    size_t i;
    unsigned r;
    for (i = 0; i < m->nstates; i++) {
        const struct schema_state *st = &m->states[i];
        const char *ct = c_elem_type(st->type);
        fcc_sb_printf(&sp->state_enum, "    %s = %zu%s\n", st->macro, i,
                      i + 1 < m->nstates ? "," : "");
        fcc_sb_printf(&sp->state_constants, "/* \"%s\": %s [", st->name, fcc_type_word(st->type));
        for (r = 0; r < st->rank; r++)
            fcc_sb_printf(&sp->state_constants, "%s%zu", r > 0 ? "," : "", st->dims[r]);
        fcc_sb_str(&sp->state_constants, "] */\n");
        for (r = 0; r < st->rank; r++)
            fcc_sb_printf(&sp->state_constants, "#define %s_DIM%u %zu\n", st->macro, r,
                          st->dims[r]);
        fcc_sb_printf(&sp->state_constants, "#define %s_SIZE %zu\n", st->macro, st->elems);
        fcc_sb_printf(&sp->state_members, "    %s %s", ct, st->name);
        fcc_sb_printf(&sp->state_batch, "        %s %s[%s_SEG_BATCH_SIZE]", ct, st->name, m->upper);
        for (r = 0; r < st->rank; r++) {
            fcc_sb_printf(&sp->state_members, "[%s_DIM%u]", st->macro, r);
            fcc_sb_printf(&sp->state_batch, "[%s_DIM%u]", st->macro, r);
        }
        fcc_sb_str(&sp->state_members, ";\n");
        fcc_sb_str(&sp->state_batch, ";\n");
        fcc_sb_printf(&sp->state_bind, "    s->state_values[%s] = s->batch.state.%s;\n", st->macro,
                      st->name);
        fcc_sb_printf(&sp->state_descs, "    {\"%s\", FC_TYPE_%s, %u, {", st->name,
                      type_enum(st->type), st->rank);
        for (r = 0; r < st->rank; r++)
            fcc_sb_printf(&sp->state_descs, "%s%zu", r > 0 ? ", " : "", st->dims[r]);
        fcc_sb_printf(&sp->state_descs, "%s}, %zu, offsetof(%s_states, %s)}%s\n",
                      st->rank == 0 ? "0" : "", st->elems, m->c_type, st->name,
                      i + 1 < m->nstates ? "," : "");
        fcc_sb_printf(&sp->save_decls,
                      "/* Saves state \"%s\": s->batch.size entries of %zu values. */\n"
                      "int %s_seg_save_%s(%s_segmenter *s, const %s *values, fc_error *err);\n",
                      st->name, st->elems, m->c_type, st->name, m->c_type, ct);
        fcc_sb_printf(&sp->save_defs,
                      "int %s_seg_save_%s(%s_segmenter *s, const %s *values, fc_error *err)\n"
                      "{\n    return fc_seg_save_state(&s->core, %s, values, err);\n}\n\n",
                      m->c_type, st->name, m->c_type, ct, st->macro);
    }
}

/* One column of a segment batch: context feature f (list 0), copied into
 * every segment, or feature list f, this segment's frames. */
static void seg_column(seg_parts *sp, const schema_message *m, const schema_feature *f, int list)
{
    const char *where = list ? "sequences" : "context";
    fcc_sb_str(&sp->batch_members, "        /* ");
    if (list)
        describe_list(&sp->batch_members, f);
    else
        describe(&sp->batch_members, f);
    fcc_sb_str(&sp->batch_members, " */\n");
    if (f->kind == FC_KIND_VARLEN) {
        seg_array(&sp->batch_members, m, f, list, "_count", 1);
        fcc_sb_printf(&sp->bind, "    s->columns[%s].counts = %ss->batch.%s.%s_count%s;\n",
                      f->macro, list ? "&" : "", where, f->cname, list ? "[0][0]" : "");
    }
    if (seg_has_values(f)) {
        seg_array(&sp->batch_members, m, f, list, "", 0);
        fcc_sb_printf(&sp->bind, "    s->columns[%s].values = s->batch.%s.%s;\n", f->macro,
                      where, f->cname);
    } else {
        fcc_sb_str(&sp->batch_members, "        /* (no values) */\n");
    }
}

/* The batch struct's members and the bindings of its columns and states. */
static void seg_batch_parts(seg_parts *sp, const schema_message *m)
{
    size_t i;
    if (m->nfeatures > 0) {
        fcc_sb_str(&sp->batch_members, "    /* context features, copied into every segment */\n"
                                       "    struct {\n");
        for (i = 0; i < m->nfeatures; i++)
            seg_column(sp, m, &m->features[i], 0);
        fcc_sb_str(&sp->batch_members, "    } context;\n");
    }
    fcc_sb_str(&sp->batch_members,
               "    /* feature lists: this segment's frames */\n    struct {\n");
    for (i = 0; i < m->nlists; i++)
        seg_column(sp, m, &m->lists[i], 1);
    fcc_sb_str(&sp->batch_members, "    } sequences;\n");
    fcc_sb_str(&sp->bind, str_or_empty(&sp->state_bind));
}

/* The record store and _seg_insert_record, with `record max N`. */
static void seg_record_parts(seg_parts *sp, const schema_message *m)
{
    if (m->record_max > 0) {
        fcc_sb_printf(&sp->records_member,
                      "    unsigned char records[%s_SEG_CAPACITY][%s_SEG_RECORD_MAX];\n", m->upper,
                      m->upper);
        fcc_sb_str(&sp->records_bind, "    mem.records = &s->records[0][0];");
        fcc_sb_printf(&sp->insert_decl,
                      "/* Inserts a serialized SequenceExample: copied into the example's record\n"
                      " * store (at most %s_SEG_RECORD_MAX bytes) and parsed there, so its bytes\n"
                      " * live as long as the example.  FC_ERR_PARSE changes nothing. */\n"
                      "int %s_seg_insert_record(%s_segmenter *s, const void *key, size_t key_len,\n"
                      "    const void *record, size_t len, size_t length, const %s_states "
                      "*initial,\n"
                      "    fc_error *err);\n\n",
                      m->upper, m->c_type, m->c_type, m->c_type);
        fcc_sb_printf(&sp->insert_def,
                      "int %s_seg_insert_record(%s_segmenter *s, const void *key, size_t key_len,\n"
                      "    const void *record, size_t len, size_t length, const %s_states "
                      "*initial,\n"
                      "    fc_error *err)\n"
                      "{\n"
                      "    return fc_seg_insert_record(&s->core, key, key_len, record, len, length,"
                      " initial, err);\n"
                      "}\n\n",
                      m->c_type, m->c_type, m->c_type);
    } else {
        fcc_sb_str(&sp->records_member, "");
        fcc_sb_str(&sp->records_bind,
                   "    mem.records = NULL; /* no `record max N`: no record store */");
        fcc_sb_str(&sp->insert_decl, "");
        fcc_sb_str(&sp->insert_def, "");
    }
}

/* A sequence_example's segments block: templates/segments.h and .c. */
static int emit_segments(const schema_message *m, sbuf *hdr, sbuf *src)
{
    seg_parts sp;
    sbuf *bufs[MAX_PARTS];
    size_t nbufs;
    char num[6][32];
    int ok;
    memset(&sp, 0, sizeof sp);
    nbufs = seg_bufs(&sp, bufs);
    seg_state_parts(&sp, m);
    seg_batch_parts(&sp, m);
    seg_record_parts(&sp, m);
    snprintf(num[0], sizeof num[0], "%zu", m->num_unroll);
    snprintf(num[1], sizeof num[1], "%zu", m->batch_size);
    snprintf(num[2], sizeof num[2], "%zu", m->capacity);
    snprintf(num[3], sizeof num[3], "%zu", m->key_max);
    snprintf(num[4], sizeof num[4], "%zu", m->record_max);
    snprintf(num[5], sizeof num[5], "%zu", m->nstates);
    ok = !parts_failed(bufs, nbufs);
    if (ok) {
        subst subs[] = {
            {"NAME", m->name},
            {"TYPE", m->c_type},
            {"UPPER", m->upper},
            {"NUM_UNROLL", num[0]},
            {"BATCH_SIZE", num[1]},
            {"CAPACITY", num[2]},
            {"KEY_MAX", num[3]},
            {"RECORD_MAX", num[4]},
            {"STATE_COUNT", num[5]},
            {"ALLOW_SMALL_BATCH", m->allow_small_batch ? "1" : "0"},
            {"UNPADDED", m->unpadded ? "1" : "0"},
            {"STATE_ENUM", str_or_empty(&sp.state_enum)},
            {"STATE_CONSTANTS", str_or_empty(&sp.state_constants)},
            {"STATE_MEMBERS", str_or_empty(&sp.state_members)},
            {"BATCH_MEMBERS", str_or_empty(&sp.batch_members)},
            {"STATE_BATCH_MEMBERS", str_or_empty(&sp.state_batch)},
            {"RECORDS_MEMBER", str_or_empty(&sp.records_member)},
            {"RECORDS_BIND", str_or_empty(&sp.records_bind)},
            {"BIND", str_or_empty(&sp.bind)},
            {"INSERT_RECORD_DECL", str_or_empty(&sp.insert_decl)},
            {"INSERT_RECORD_DEF", str_or_empty(&sp.insert_def)},
            {"SAVE_DECLS", str_or_empty(&sp.save_decls)},
            {"SAVE_DEFS", str_or_empty(&sp.save_defs)},
            {"STATE_DESCS", str_or_empty(&sp.state_descs)},
        };
        expand(hdr, fcc_template_segments_h, subs, sizeof subs / sizeof subs[0]);
        expand(src, fcc_template_segments_c, subs, sizeof subs / sizeof subs[0]);
    }
    parts_free(bufs, nbufs);
    return ok;
}

/* ------------------------------------------------------------ files */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static char *finish(pool *p, sbuf *b, size_t *len)
{
    char *r;
    if (b->failed) {
        free(b->s);
        return NULL;
    }
    r = fcc_pool_strndup(p, b->s != NULL ? b->s : "", b->n);
    *len = b->n;
    free(b->s);
    return r;
}

/* BASE_py.c: the CPython module over every message (templates/python.c). */
static int emit_python(pool *p, const schema *s, const emit_options *o, const char *banner,
                       const char *header_name, emit_output *out)
{
    sbuf msgs, py, spec;
    char count[32];
    size_t i;
    int ok;
    memset(&msgs, 0, sizeof msgs);
    memset(&py, 0, sizeof py);
    memset(&spec, 0, sizeof spec);
    for (i = 0; i < s->nmessages; i++) {
        const schema_message *m = &s->messages[i];
        if (m->sequence)
            fcc_sb_printf(&msgs, "    {\"%s\", NULL, &%s_desc},\n", m->name, m->c_type);
        else
            fcc_sb_printf(&msgs, "    {\"%s\", &%s_desc, NULL},\n", m->name, m->c_type);
    }
    c_string(&spec, base_name(o->spec_name), strlen(base_name(o->spec_name)));
    snprintf(count, sizeof count, "%zu", s->nmessages);
    ok = !msgs.failed && !spec.failed;
    if (ok) {
        subst subs[] = {
            {"BANNER", banner},
            {"HEADER", header_name},
            {"BASE", base_name(o->base)},
            {"SPEC", spec.s},
            {"VERSION", FC_VERSION_STRING},
            {"PY_MESSAGES", msgs.s},
            {"PY_COUNT", count},
        };
        expand(&py, fcc_template_python_c, subs, sizeof subs / sizeof subs[0]);
        out->python = finish(p, &py, &out->python_len);
        py.s = NULL;
        ok = out->python != NULL;
    }
    free(msgs.s);
    free(py.s);
    free(spec.s);
    return ok;
}

int fcc_emit_c(pool *p, const schema *s, const emit_options *o, emit_output *out)
{
    sbuf hdr, src, msgs_h, msgs_c, drv, guard, banner, header_name;
    char version_number[32];
    const char *base = base_name(o->base);
    size_t i;
    int ok = 1, any_sequence = 0, any_segments = 0;
    memset(out, 0, sizeof *out);
    memset(&hdr, 0, sizeof hdr);
    memset(&src, 0, sizeof src);
    memset(&msgs_h, 0, sizeof msgs_h);
    memset(&msgs_c, 0, sizeof msgs_c);
    memset(&drv, 0, sizeof drv);
    memset(&guard, 0, sizeof guard);
    memset(&banner, 0, sizeof banner);
    memset(&header_name, 0, sizeof header_name);

    fcc_sb_printf(&banner, "Generated by featc %s from %s.  DO NOT EDIT.", FC_VERSION_STRING,
                  base_name(o->spec_name));
    fcc_sb_printf(&guard, "FEATC_%s_", s->upper);
    for (i = 0; base[i]; i++) {
        char c = (char)toupper((unsigned char)base[i]);
        fcc_sb_put(&guard, isalnum((unsigned char)c) ? &c : "_", 1);
    }
    fcc_sb_str(&guard, "_H");
    fcc_sb_printf(&header_name, "%s.h", base);
    snprintf(version_number, sizeof version_number, "%d", FC_VERSION_NUMBER);

    for (i = 0; i < s->nmessages && ok; i++) {
        ok = emit_message(&s->messages[i], &msgs_h, &msgs_c);
        if (ok && s->messages[i].segments) {
            ok = emit_segments(&s->messages[i], &msgs_h, &msgs_c);
            any_segments = 1;
        }
        any_sequence |= s->messages[i].sequence;
    }
    if (ok && !banner.failed && !guard.failed && !header_name.failed) {
        subst subs[] = {
            {"BANNER", banner.s},
            {"GUARD", guard.s},
            {"VERSION", FC_VERSION_STRING},
            {"VERSION_NUMBER", version_number},
            {"HEADER", header_name.s},
            {"MESSAGES", str_or_empty(&msgs_h)},
            {"SEQ_INCLUDE", any_segments   ? "#include <featc/fc_sequence.h>\n"
                                               "#include <featc/fc_segment.h>\n"
                            : any_sequence ? "#include <featc/fc_sequence.h>\n"
                                           : ""},
        };
        expand(&hdr, fcc_template_header_h, subs, sizeof subs / sizeof subs[0]);
        subs[5].value = str_or_empty(&msgs_c);
        expand(&src, fcc_template_source_c, subs, sizeof subs / sizeof subs[0]);
        if (o->driver_message != NULL) {
            const schema_message *dm = NULL;
            for (i = 0; i < s->nmessages; i++)
                if (strcmp(s->messages[i].name, o->driver_message) == 0)
                    dm = &s->messages[i];
            if (dm == NULL) {
                ok = 0;
            } else {
                subst dsubs[] = {
                    /* the kind's words go first (kind_words) */
                    {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""},
                    {"BANNER", banner.s},
                    {"HEADER", header_name.s},
                    {"NAME", dm->name},
                    {"TYPE", dm->c_type},
                };
                kind_words(dsubs, dm->sequence);
                expand(&drv, fcc_template_driver_c, dsubs, sizeof dsubs / sizeof dsubs[0]);
                out->driver = finish(p, &drv, &out->driver_len);
                drv.s = NULL;
                if (out->driver == NULL)
                    ok = 0;
            }
        }
        if (ok && o->python)
            ok = emit_python(p, s, o, banner.s, header_name.s, out);
    } else {
        ok = 0;
    }
    if (ok) {
        out->header = finish(p, &hdr, &out->header_len);
        hdr.s = NULL;
        out->source = finish(p, &src, &out->source_len);
        src.s = NULL;
        ok = out->header != NULL && out->source != NULL;
    }
    free(hdr.s);
    free(src.s);
    free(msgs_h.s);
    free(msgs_c.s);
    free(drv.s);
    free(guard.s);
    free(banner.s);
    free(header_name.s);
    return ok;
}
