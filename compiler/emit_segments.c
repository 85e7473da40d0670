/* The C emitter (emit.h): a segments block, the generated segment
 * batcher over the runtime's (TF's SequenceQueueingStateSaver). */
#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ segments */

/* [B] or [B][U], then the value dims: the batch array of one feature (of
 * its typed tensor with `as`: that type, each value's dims after its own). */
static void seg_array(sbuf *b, const schema_message *m, const schema_feature *f, int list,
                      const char *suffix, int counts)
{
    unsigned r;
    const char *t = counts                 ? "size_t"
                    : f->as != FC_AS_NONE ? fcc_as_c_type(f->as)
                                          : fcc_c_elem_type(f->type);
    fcc_sb_printf(b, "        %s %s%s[%s_SEG_BATCH_SIZE]", t, f->cname, suffix, m->upper);
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
    for (r = 0; r < f->as_rank; r++)
        fcc_sb_printf(b, "[%s_AS_DIM%u]", f->macro, r);
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
        const char *ct = fcc_c_elem_type(st->type);
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
                      fcc_type_enum(st->type), st->rank);
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
        fcc_describe_list(&sp->batch_members, f);
    else
        fcc_describe(&sp->batch_members, f);
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
    fcc_sb_str(&sp->bind, fcc_str_or_empty(&sp->state_bind));
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
int fcc_emit_segments(const schema_message *m, sbuf *hdr, sbuf *src)
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
    ok = !fcc_parts_failed(bufs, nbufs);
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
            {"STATE_ENUM", fcc_str_or_empty(&sp.state_enum)},
            {"STATE_CONSTANTS", fcc_str_or_empty(&sp.state_constants)},
            {"STATE_MEMBERS", fcc_str_or_empty(&sp.state_members)},
            {"BATCH_MEMBERS", fcc_str_or_empty(&sp.batch_members)},
            {"STATE_BATCH_MEMBERS", fcc_str_or_empty(&sp.state_batch)},
            {"RECORDS_MEMBER", fcc_str_or_empty(&sp.records_member)},
            {"RECORDS_BIND", fcc_str_or_empty(&sp.records_bind)},
            {"BIND", fcc_str_or_empty(&sp.bind)},
            {"INSERT_RECORD_DECL", fcc_str_or_empty(&sp.insert_decl)},
            {"INSERT_RECORD_DEF", fcc_str_or_empty(&sp.insert_def)},
            {"SAVE_DECLS", fcc_str_or_empty(&sp.save_decls)},
            {"SAVE_DEFS", fcc_str_or_empty(&sp.save_defs)},
            {"STATE_DESCS", fcc_str_or_empty(&sp.state_descs)},
        };
        fcc_expand(hdr, fcc_template_segments_h, subs, sizeof subs / sizeof subs[0]);
        fcc_expand(src, fcc_template_segments_c, subs, sizeof subs / sizeof subs[0]);
    }
    fcc_parts_free(bufs, nbufs);
    return ok;
}
