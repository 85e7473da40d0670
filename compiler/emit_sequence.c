/* The C emitter (emit.h): a SequenceExample's parts, its context and
 * feature lists. */
#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ sequence_example */

void fcc_emit_list_constants(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "/* ");
    fcc_describe_list(b, f);
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
    for (r = 0; r < f->as_rank; r++)
        fcc_sb_printf(b, "#define %s_AS_DIM%u %zu\n", f->macro, r, f->as_dims[r]);
    if (f->as_rank > 0)
        fcc_sb_printf(b, "#define %s_AS_SIZE %zu\n", f->macro, f->as_elems);
}

void fcc_emit_list_member(sbuf *b, const schema_feature *f)
{
    unsigned r;
    fcc_sb_str(b, "    /* ");
    fcc_describe_list(b, f);
    fcc_sb_str(b, " */\n");
    fcc_sb_printf(b, "    size_t %s_frames;\n", f->cname);
    if (f->kind == FC_KIND_VARLEN || f->kind == FC_KIND_RAGGED) {
        fcc_sb_printf(b, "    size_t %s_count[%s_FRAMES_MAX];\n", f->cname, f->macro);
        fcc_sb_printf(b, "    %s %s[%s_FRAMES_MAX][%s_MAX];\n", fcc_c_elem_type(f->type), f->cname,
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
        fcc_emit_as_member(b, f);
        return;
    }
    fcc_sb_printf(b, "    %s %s[%s_FRAMES_MAX]", fcc_c_elem_type(f->type), f->cname, f->macro);
    for (r = 0; r < f->rank; r++)
        fcc_sb_printf(b, "[%s_DIM%u]", f->macro, r);
    fcc_sb_str(b, ";\n");
    fcc_emit_as_member(b, f);
}

void fcc_emit_list_desc(sbuf *b, sbuf *extras, const schema_message *m,
                        const schema_feature *f, int last)
{
    fcc_emit_desc_head(b, f);
    fcc_sb_printf(b, "%zu, %d, %d, ", f->max_frames, f->allow_missing, f->uniform);
    fcc_sb_printf(b, "offsetof(%s, %s), offsetof(%s, %s_frames), ", m->c_type, f->cname, m->c_type,
                  f->cname);
    if (f->kind != FC_KIND_FIXED)
        fcc_sb_printf(b, "offsetof(%s, %s_count), ", m->c_type, f->cname);
    else
        fcc_sb_str(b, "0, ");
    if (fcc_has_extra(f)) {
        fcc_emit_field_extra(extras, m, f);
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
    const char *legend = strcmp(desc_type, "fc_list_desc") == 0 ? "/* Columns: key, key_len, c_name, type, kind, rank, dims, elems, max,\n * max_frames, allow_missing, uniform, value_offset, frames_offset,\n * count_offset, extra (fc_list_desc). */\n"
                                                              : "/* Columns: key, key_len, c_name, type, kind, rank, dims, elems, max,\n * value_offset, count_offset, default_value, extra (fc_field_desc). */\n";
    sbuf body = *descs;
    memset(descs, 0, sizeof *descs);
    if (n == 0) {
        fcc_sb_printf(descs, "%s/* (no %s) */\n", lead, what);
        fcc_sb_str(ref, "NULL");
        fcc_sb_str(order_ref, "NULL");
        free(body.s);
        return;
    }
    fcc_sb_printf(descs, "%s%sstatic const %s %s%s[%s_%s_COUNT] = {\n%s};\n\n"
                  "/* %s indices by key, bytewise: TensorFlow's order for errors. */\n"
                  "static const uint16_t %s%s[%s_%s_COUNT] = {\n",
                  lead, legend, desc_type, m->c_type, array, m->upper, upper_word,
                  fcc_str_or_empty(&body),
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
                  fcc_type_enum(f->type), f->cname);
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
int fcc_sequence_parts(msg_parts *mp, const schema_message *m)
{
    sbuf minus = {NULL, 0, 0, 0};
    size_t i;
    int ok;
    for (i = 0; i < m->nfeatures; i++)
        fcc_emit_fast_feature(&mp->cfast, &mp->cabsent, &m->features[i], i);
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
    fcc_emit_batch_append(&mp->append, m);
    fcc_sb_printf(&mp->counts, "#define %s_CONTEXT_COUNT %zu\n#define %s_LIST_COUNT %zu\n",
                  m->upper, m->nfeatures, m->upper, m->nlists);
    fcc_sb_printf(&minus, " - %s_CONTEXT_COUNT", m->upper);
    ok = !minus.failed && fcc_emit_lookup(&mp->clookup, m->features, m->nfeatures, "") &&
         fcc_emit_lookup(&mp->llookup, m->lists, m->nlists, minus.s);
    free(minus.s);
    return ok;
}
