/* The C emitter: templates/ (embedded at build time) give the invariant code,
 * emit_feature.c the per-feature pieces, and this file puts one message's
 * parts (emit_sequence.c: a SequenceExample's; emit_segments.c: a batcher's)
 * into the header and source.  Output depends only on the
 * schema and the options: no time, no absolute path, no host detail. */
#include "emit.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text buffers of one message's parts, to be freed and checked together. */
static size_t msg_bufs(msg_parts *mp, sbuf **all)
{
    sbuf *list[] = {&mp->enm,        &mp->constants, &mp->members,    &mp->defaults, &mp->init,
                    &mp->batch,      &mp->parser,    &mp->descs,      &mp->order,    &mp->lookup,
                    &mp->decode_cases, &mp->decode, &mp->missing,   &mp->finish,     &mp->fast,     &mp->absent,
                    &mp->cdescs,     &mp->ldescs,    &mp->cref,       &mp->corder_ref,
                    &mp->lref,       &mp->lorder_ref, &mp->clookup,   &mp->llookup,
                    &mp->cfast,      &mp->cabsent,   &mp->lfast,      &mp->labsent,
                    &mp->counts,     &mp->fast_defaults, &mp->append, &mp->direct};
    size_t i, n = sizeof list / sizeof list[0];
    for (i = 0; i < n; i++)
        all[i] = list[i];
    return n;
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
            if (mp->finish.s == NULL)
                fcc_sb_str(&mp->finish,
                           "    /* What is built from the values: SparseFeature, RaggedFeature. */\n");
            fcc_sb_printf(&mp->finish,
                          "    if (fc_ex_%s(&%s_desc, %s, out, err) != FC_OK)\n"
                          "        return FC_ERR_PARSE;\n",
                          f->kind == FC_KIND_RAGGED ? "ragged" : "sparse", m->c_type, f->macro);
            continue;
        }
        fcc_emit_fast_feature(&mp->fast, &mp->absent, f, i);
        fcc_sb_printf(&mp->decode_cases, "    case %s: /* ", f->macro);
        fcc_describe(&mp->decode_cases, f);
        fcc_sb_printf(&mp->decode_cases, " */\n        return fc_ex_%s_%s(&refs[i], ",
                      f->kind == FC_KIND_FIXED ? "fixed" : f->kind == FC_KIND_VARLEN ? "varlen"
                      : "rows",
                      fcc_type_word(f->type));
        fcc_value_ptr(&mp->decode_cases, "m", f);
        if (f->kind == FC_KIND_FIXED)
            fcc_sb_printf(&mp->decode_cases, ", %zu, d);\n", f->elems);
        else if (f->kind == FC_KIND_VARLEN)
            fcc_sb_printf(&mp->decode_cases, ", %s_MAX, &m->%s_count, d);\n", f->macro,
                          f->cname);
        else
            fcc_sb_printf(&mp->decode_cases, ", %s_SIZE, %s_MAX, &m->%s_count, d);\n",
                          f->macro, f->macro, f->cname);
        fcc_sb_str(&mp->decode, "    /* ");
        fcc_describe(&mp->decode, f);
        fcc_sb_str(&mp->decode, " */\n");
        fcc_sb_printf(&mp->decode, "    if (ref[%s].entry != 0) {\n", f->macro);
        fcc_sb_printf(&mp->decode,
                      "        if (%s_decode_field(NULL, m, ref, %s, NULL) != FC_OK)\n",
                      m->c_type, f->macro);
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
            if (mp->missing.s == NULL)
                fcc_sb_str(&mp->missing, "    /* Required features, checked after every present "
                                         "one as TensorFlow does,\n"
                                         "     * in its order (by key). */\n");
            fcc_sb_printf(&mp->missing,
                          "    if (!fc_bit_get(out->present, %s))\n"
                          "        return fc_ex_missing(&%s_desc, %s, err);\n",
                          f->macro, m->c_type, f->macro);
        }
    }
    fcc_sb_str(&mp->order, "\n");
    fcc_emit_batch_append(&mp->append, m);
    fcc_emit_batch_direct(&mp->direct, m);
    for (i = 0; i < m->nfeatures; i++)
        if (m->features[i].hash_buckets > 0) {
            fcc_sb_printf(&mp->finish,
                          "    /* The bucket ids of the hashed features, from their values. */\n"
                          "    fc_ex_hash_fields(%s_fields, %s_FIELD_COUNT, out);\n",
                          m->c_type, m->upper);
            break;
        }
    for (i = 0; i < m->nfeatures; i++)
        if (m->features[i].as != FC_AS_NONE) {
            fcc_sb_printf(&mp->finish,
                          "    /* The tensors the spec asks for ('as'), from the values. */\n"
                          "    if (fc_ex_as_fields(%s_fields, %s_FIELD_COUNT, out, 0, err) != FC_OK)\n"
                          "        return FC_ERR_PARSE;\n",
                          m->c_type, m->upper);
            break;
        }
    return fcc_emit_lookup(&mp->lookup, m->features, m->nfeatures, "");
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
        fcc_emit_feature_constants(&mp->constants, f);
        fcc_emit_feature_member(&mp->members, f);
        if (f->has_default)
            fcc_emit_default_array(&mp->defaults, m, f);
        if (fills_default(f)) {
            fcc_sb_printf(&mp->init, "    if (!fc_bit_get(seen, %s))\n", f->macro);
            fcc_emit_default_copy(&mp->init, "        ", m, f);
        }
        if (f->kind == FC_KIND_RAGGED)
            fcc_emit_ragged_parts(&mp->defaults, m, f); /* before the extra that names them */
        fcc_emit_field_desc(m->sequence ? &mp->cdescs : &mp->descs, &mp->defaults, m, f,
                        i + 1 == m->nfeatures);
        fcc_emit_batch_bytes(&mp->batch, f, 0);
    }
    emit_fast_defaults(&mp->fast_defaults, m);
    if (m->nlists > 0)
        fcc_sb_str(&mp->members, "    /* feature lists */\n");
    for (i = 0; i < m->nlists; i++) {
        const schema_feature *f = &m->lists[i];
        fcc_emit_list_constants(&mp->constants, f);
        fcc_emit_list_member(&mp->members, f);
        if (f->kind == FC_KIND_RAGGED)
            fcc_emit_ragged_parts(&mp->defaults, m, f); /* before the extra that names them */
        fcc_emit_list_desc(&mp->ldescs, &mp->defaults, m, f, i + 1 == m->nlists);
        fcc_emit_batch_bytes(&mp->batch, f, 1);
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
    ok = m->sequence ? fcc_sequence_parts(&mp, m) : example_parts(&mp, m);
    snprintf(count, sizeof count, "%zu", total);
    snprintf(words, sizeof words, "%zu", (total + 31) / 32);
    ok = ok && !fcc_parts_failed(bufs, nbufs);
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
            {"ENUM", fcc_str_or_empty(&mp.enm)},
            {"CONSTANTS", fcc_str_or_empty(&mp.constants)},
            {"MEMBERS", fcc_str_or_empty(&mp.members)},
            {"DEFAULTS", fcc_str_or_empty(&mp.defaults)},
            {"FILL_DEFAULTS", fcc_str_or_empty(&mp.init)},
            {"BATCH_BYTES", fcc_str_or_empty(&mp.batch)},
            {"PART_COUNTS", fcc_str_or_empty(&mp.counts)},
            {"FAST_DEFAULTS", fcc_str_or_empty(&mp.fast_defaults)},
            /* example.c */
            {"FIELD_DESCS", fcc_str_or_empty(&mp.descs)},
            {"MISSING_ORDER", fcc_str_or_empty(&mp.order)},
            {"LOOKUP", fcc_str_or_empty(&mp.lookup)},
            {"DECODE_CASES", fcc_str_or_empty(&mp.decode_cases)},
            {"DECODE", fcc_str_or_empty(&mp.decode)},
            {"MISSING", fcc_str_or_empty(&mp.missing)},
            {"FINISH", fcc_str_or_empty(&mp.finish)},
            {"FAST_CASES", fcc_str_or_empty(&mp.fast)},
            {"FAST_ABSENT", fcc_str_or_empty(&mp.absent)},
            {"BATCH_APPEND", fcc_str_or_empty(&mp.append)},
            {"BATCH_DIRECT", fcc_str_or_empty(&mp.direct)},
            /* sequence.c */
            {"CONTEXT_DESCS", fcc_str_or_empty(&mp.cdescs)},
            {"LIST_DESCS", fcc_str_or_empty(&mp.ldescs)},
            {"CONTEXT_LOOKUP", fcc_str_or_empty(&mp.clookup)},
            {"LIST_LOOKUP", fcc_str_or_empty(&mp.llookup)},
            {"CONTEXT_REF", fcc_str_or_empty(&mp.cref)},
            {"CONTEXT_ORDER_REF", fcc_str_or_empty(&mp.corder_ref)},
            {"LIST_REF", fcc_str_or_empty(&mp.lref)},
            {"LIST_ORDER_REF", fcc_str_or_empty(&mp.lorder_ref)},
            {"ALIGNED", m->aligned ? "1" : "0"},
            {"FAST_CONTEXT_CASES", fcc_str_or_empty(&mp.cfast)},
            {"FAST_CONTEXT_ABSENT", fcc_str_or_empty(&mp.cabsent)},
            {"FAST_LIST_CASES", fcc_str_or_empty(&mp.lfast)},
            {"FAST_LIST_ABSENT", fcc_str_or_empty(&mp.labsent)},
            /* message.c: the kind's parser, expanded first */
            {"PARSER", ""},
        };
        size_t nsubs = sizeof subs / sizeof subs[0];
        kind_words(subs, m->sequence);
        fcc_expand(&mp.parser, m->sequence ? fcc_template_sequence_c : fcc_template_example_c, subs,
                   nsubs);
        subs[nsubs - 1].value = fcc_str_or_empty(&mp.parser);
        ok = !mp.parser.failed;
        fcc_expand(hdr, fcc_template_message_h, subs, nsubs);
        fcc_expand(src, fcc_template_message_c, subs, nsubs);
    }
    fcc_parts_free(bufs, nbufs);
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
        if (m->sequence && m->segments)
            fcc_sb_printf(&msgs, "    {\"%s\", NULL, &%s_desc, &%s_seg_config},\n", m->name,
                          m->c_type, m->c_type);
        else if (m->sequence)
            fcc_sb_printf(&msgs, "    {\"%s\", NULL, &%s_desc, NULL},\n", m->name, m->c_type);
        else
            fcc_sb_printf(&msgs, "    {\"%s\", &%s_desc, NULL, NULL},\n", m->name, m->c_type);
    }
    fcc_c_string(&spec, base_name(o->spec_name), strlen(base_name(o->spec_name)));
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
        fcc_expand(&py, fcc_template_python_c, subs, sizeof subs / sizeof subs[0]);
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
            ok = fcc_emit_segments(&s->messages[i], &msgs_h, &msgs_c);
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
            {"MESSAGES", fcc_str_or_empty(&msgs_h)},
            {"SEQ_INCLUDE", any_segments   ? "#include <featc/fc_sequence.h>\n"
                                               "#include <featc/fc_segment.h>\n"
                            : any_sequence ? "#include <featc/fc_sequence.h>\n"
                                           : ""},
        };
        fcc_expand(&hdr, fcc_template_header_h, subs, sizeof subs / sizeof subs[0]);
        subs[5].value = fcc_str_or_empty(&msgs_c);
        fcc_expand(&src, fcc_template_source_c, subs, sizeof subs / sizeof subs[0]);
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
                fcc_expand(&drv, fcc_template_driver_c, dsubs, sizeof dsubs / sizeof dsubs[0]);
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
