/* The direct batch path of an Example (NAME_batch_direct): the fast path's
 * switch again, each value decoded straight into its column, so that a
 * batch costs no per-record struct and no copy out of it.  Made only for a
 * message whose every feature is FixedLen or VarLen without hashing (with
 * or without `as`): the kinds whose slot in a column is known when
 * the record starts (record i's block of a FixedLen column; the next free
 * values of a VarLen one).
 * Anything the fast path declines goes back to fc_batch_parse's per-record
 * path, record by record, so the columns always hold what that path gives. */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* Whether m gets a direct batch path. */
static int direct_fits(const schema_message *m)
{
    size_t i;
    if (m->sequence)
        return 0;
    for (i = 0; i < m->nfeatures; i++) {
        const schema_feature *f = &m->features[i];
        if ((f->kind != FC_KIND_FIXED && f->kind != FC_KIND_VARLEN) || f->hash_buckets > 0 ||
            f->hot != 0 || (f->as != FC_AS_NONE && f->kind == FC_KIND_VARLEN &&
                            f->type == FC_TYPE_BYTES))
            return 0;
    }
    return m->nfeatures > 0;
}

/* Values a record has in FixedLen column f: its shape's, or with `as`
 * the tensor's (decode_raw: the shape after `as`). */
static size_t col_elems(const schema_feature *f)
{
    return f->as != FC_AS_NONE ? f->elems * f->as_elems : f->elems;
}

/* Record i's block of FixedLen column f: "(T *)cols[M].values + i * E". */
static void fixed_slot(sbuf *b, const schema_feature *f)
{
    fcc_sb_printf(b, "(%s *)cols[%s].values + i",
                  f->as != FC_AS_NONE ? fcc_as_c_type(f->as) : fcc_c_elem_type(f->type),
                  f->macro);
    if (col_elems(f) != 1)
        fcc_sb_printf(b, " * %zu", col_elems(f));
}

/* A FixedLen feature with `as`: its values decoded into a local, then made
 * the tensor in record i's block (fc_fast.h); a value the tensor does not
 * hold, and an absent feature (its default's tensor), leave the record to
 * the per-record path. */
static void direct_typed(sbuf *cases, sbuf *absent, sbuf *locals, const schema_feature *f)
{
    const char *t = fcc_c_elem_type(f->type);
    fcc_sb_printf(locals, "    %s %s_raw[%zu];\n", t, f->cname, f->elems);
    fcc_sb_printf(cases, "                !fc_fast_fixed(FC_TYPE_%s, &e, %s_raw, %zu) ||\n",
                  fcc_type_enum(f->type), f->cname, f->elems);
    if (f->type == FC_TYPE_INT64)
        fcc_sb_printf(cases, "                !fc_fast_narrow(%s, %s_raw, %zu, ", fcc_as_macro(f->as),
                      f->cname, f->elems);
    else if (f->type == FC_TYPE_FLOAT)
        fcc_sb_printf(cases, "                !fc_fast_halves(%s_raw, %zu, ", f->cname, f->elems);
    else
        fcc_sb_printf(cases, "                !fc_fast_raw(%s_raw, %zu, %zu, ", f->cname,
                      fc_as_size(f->as), f->as_elems);
    fixed_slot(cases, f);
    fcc_sb_str(cases, "))\n");
    fcc_sb_printf(absent, "    if (!fc_bit_get(seen, %s))\n        return 0; /* %s */\n", f->macro,
                  f->has_default ? "its default's tensor: the per-record path" : "required");
}

/* A VarLen feature: its values decoded straight into the column's next
 * free values, at most its room; with `as`, narrowed (int64) or rounded to
 * float16 (float) on the way, a value the tensor does not hold leaving
 * the record to the per-record path. */
static void direct_varlen(sbuf *cases, sbuf *commit, sbuf *locals, const schema_feature *f)
{
    fcc_sb_printf(locals, "    size_t %s_count = 0;\n", f->cname);
    if (f->as == FC_AS_NONE)
        fcc_sb_printf(cases, "                !fc_fast_varlen(FC_TYPE_%s, &e,\n",
                      fcc_type_enum(f->type));
    else if (f->type == FC_TYPE_INT64)
        fcc_sb_printf(cases, "                !fc_fast_varlen_narrow(%s, &e,\n", fcc_as_macro(f->as));
    else
        fcc_sb_str(cases, "                !fc_fast_varlen_halves(&e,\n");
    fcc_sb_printf(cases,
                  "                                (%s *)cols[%s].values + cols[%s].nvalues,\n"
                  "                                fc_batch_room(&cols[%s], %s_MAX), &%s_count))\n",
                  f->as != FC_AS_NONE ? fcc_as_c_type(f->as) : fcc_c_elem_type(f->type),
                  f->macro, f->macro, f->macro, f->macro, f->cname);
    fcc_sb_printf(commit, "    fc_batch_put_placed(&cols[%s], i, %s_count);\n", f->macro,
                  f->cname);
}

/* Feature i's case in the switch, its absent case, its commit. */
static void direct_feature(sbuf *cases, sbuf *absent, sbuf *fill, sbuf *commit, sbuf *locals,
                           sbuf *after, const schema_message *m, const schema_feature *f,
                           size_t i)
{
    const char *t = fcc_c_elem_type(f->type);
    fcc_sb_printf(cases, "        case %s:\n            if (!fc_fast_mark(seen, %zu) ||\n", f->macro, i);
    if (f->kind == FC_KIND_VARLEN) {
        direct_varlen(cases, commit, locals, f);
    } else if (f->as != FC_AS_NONE) {
        direct_typed(cases, absent, locals, f);
        fcc_sb_printf(after, "    cols[%s].nvalues += (i - first) * %zu;\n", f->macro,
                      col_elems(f));
    } else { /* FixedLen */
        fcc_sb_printf(cases, "                !fc_fast_fixed(FC_TYPE_%s, &e,\n"
                             "                               ", fcc_type_enum(f->type));
        if (f->elems == 0) /* checked (no values, as the shape says), nothing written */
            fcc_sb_str(cases, "NULL");
        else
            fixed_slot(cases, f);
        fcc_sb_printf(cases, ", %zu))\n", f->elems);
        if (!f->has_default)
            fcc_sb_printf(absent, "    if (!fc_bit_get(seen, %s))\n        return 0; /* required */\n",
                          f->macro);
        else if (f->elems > 0) {
            fcc_sb_printf(fill, "        if (!fc_bit_get(seen, %s))\n            memcpy(", f->macro);
            fixed_slot(fill, f);
            fcc_sb_printf(fill, ", %s_default_%s,\n                   %zu * sizeof(%s));\n",
                          m->c_type, f->cname, f->elems, t);
        }
        if (f->elems == 1)
            fcc_sb_printf(after, "    cols[%s].nvalues += i - first;\n", f->macro);
        else if (f->elems > 1)
            fcc_sb_printf(after, "    cols[%s].nvalues += (i - first) * %zu;\n", f->macro, f->elems);
    }
    fcc_sb_str(cases, "                return 0;\n            break;\n");
}

/* The test that some feature with a default is absent: their bits in
 * seen, word by word, so that a record with every feature fills none. */
static void emit_fill_test(sbuf *b, const schema_message *m)
{
    size_t w, i, words = (m->nfeatures + 31) / 32, terms = 0;
    for (w = 0; w < words; w++) {
        uint32_t mask = 0;
        for (i = w * 32; i < m->nfeatures && i < w * 32 + 32; i++)
            if (m->features[i].kind == FC_KIND_FIXED && m->features[i].has_default &&
                m->features[i].elems > 0 && m->features[i].as == FC_AS_NONE)
                mask |= (uint32_t)1u << (i % 32);
        if (mask == 0)
            continue;
        fcc_sb_printf(b, "%s(seen[%zu] & UINT32_C(0x%lX)) != UINT32_C(0x%lX)",
                      terms == 0 ? "    /* a feature with a default is absent */\n    if (" : " ||\n        ",
                      w, (unsigned long)mask, (unsigned long)mask);
        terms++;
    }
    fcc_sb_str(b, ") {\n");
}

/* NAME_batch_direct and NAME_BATCH_DIRECT, or NAME_BATCH_DIRECT NULL for a
 * message that does not fit. */
void fcc_emit_batch_direct(sbuf *b, const schema_message *m)
{
    sbuf cases, absent, fill, commit, locals, after;
    size_t i;
    if (!direct_fits(m)) {
        fcc_sb_printf(b, "/* (no direct batch path: a feature is not FixedLen or VarLen, or is\n"
                         " * hashed) */\n"
                         "#define %s_BATCH_DIRECT NULL\n", m->upper);
        return;
    }
    memset(&cases, 0, sizeof cases);
    absent = fill = commit = locals = after = cases;
    for (i = 0; i < m->nfeatures; i++)
        direct_feature(&cases, &absent, &fill, &commit, &locals, &after, m, &m->features[i], i);
    fcc_sb_printf(b,
                  "/* Batch, direct: record i's values decoded by the fast path straight into\n"
                  " * the columns (record i's block of a FixedLen column, the next free values\n"
                  " * of a VarLen one).  0 for a record it does not take: nothing is committed\n"
                  " * then, and fc_batch_parse gives the record to the per-record path (as it\n"
                  " * does an empty record, whose data may be NULL). */\n"
                  "FC_FAST_INLINE int %s_direct_one(fc_column *cols, size_t i, const uint8_t *p, size_t len)\n"
                  "{\n"
                  "    uint32_t seen[%s_PRESENT_WORDS] = {0};\n"
                  "    const uint8_t *end = p + len, *body;\n"
                  "    size_t flen;\n",
                  m->c_type, m->upper);
    fcc_sb_str(b, fcc_str_or_empty(&locals));
    fcc_sb_printf(b,
                  "    if (len > (size_t)INT32_MAX || !fc_fast_field(&p, end, 0x0a, &body, &flen) || p != end)\n"
                  "        return 0;\n"
                  "    p = body;\n"
                  "    while (p < end) {\n"
                  "        fc_fast_entry e;\n"
                  "        if (!fc_fast_next(&p, end, &e))\n"
                  "            return 0;\n"
                  "        switch (%s_lookup(NULL, e.key, e.key_len)) {\n",
                  m->c_type);
    fcc_sb_str(b, fcc_str_or_empty(&cases));
    fcc_sb_str(b, "        default:\n"
                  "            break; /* a feature the spec does not name: not read */\n"
                  "        }\n"
                  "    }\n");
    fcc_sb_str(b, fcc_str_or_empty(&absent));
    if (fill.s != NULL) {
        emit_fill_test(b, m);
        fcc_sb_str(b, fill.s);
        fcc_sb_str(b, "    }\n");
    }
    fcc_sb_str(b, fcc_str_or_empty(&commit));
    if (cases.s == NULL)
        fcc_sb_str(b, "    (void)cols;\n    (void)i;\n");
    fcc_sb_printf(b,
                  "    return 1;\n"
                  "}\n"
                  "\n"
                  "/* Records first..n-1 by the above while it takes them; returns the\n"
                  " * first it did not take (n: all). */\n"
                  "static size_t %s_batch_direct(fc_column *cols, const fc_bytes *records, size_t first,\n"
                  "    size_t n)\n"
                  "{\n"
                  "    size_t i;\n"
                  "    for (i = first; i < n; i++)\n"
                  "        if (records[i].data == NULL ||\n"
                  "            !%s_direct_one(cols, i, records[i].data, records[i].size))\n"
                  "            break;\n",
                  m->c_type, m->c_type);
    fcc_sb_str(b, after.s != NULL ? after.s : "    (void)first;\n");
    fcc_sb_printf(b, "    return i;\n}\n#define %s_BATCH_DIRECT %s_batch_direct\n", m->upper,
                  m->c_type);
    if (cases.failed || absent.failed || fill.failed || commit.failed || locals.failed ||
        after.failed)
        b->failed = 1;
    free(cases.s);
    free(absent.s);
    free(fill.s);
    free(commit.s);
    free(locals.s);
    free(after.s);
}
