/* What the files of the C emitter share (not installed), each calling only
 * the ones before it: emit_feature.c (templates, C spelling, one feature's
 * pieces), emit_sequence.c (a SequenceExample's parts), emit_segments.c (a
 * segments block's batcher), emit.c (an Example's parts, one message, the
 * files). */
#ifndef FEATC_EMIT_H
#define FEATC_EMIT_H

#include "spec.h"

typedef struct subst {
    const char *name;
    const char *value;
} subst;

typedef struct msg_parts {
    /* both kinds */
    sbuf enm, constants, members, defaults, init, batch, parser, counts, fast_defaults;
    /* example: field table, missing order, lookup, general-path decoder
     * (each field's case, and the calls), required checks, what is built
     * after decoding, fast path */
    sbuf descs, order, lookup, decode_cases, decode, missing, finish, fast, absent, append, direct;
    /* sequence_example: context and list tables and their references,
     * lookups, fast path */
    sbuf cdescs, ldescs, cref, corder_ref, lref, lorder_ref, clookup, llookup;
    sbuf cfast, cabsent, lfast, labsent;
} msg_parts;

/* The text buffers one emitter fills, listed by a NAME_bufs function: freed
 * together, and failed if any of them failed. */
#define MAX_PARTS 40

/* emit_feature.c */
void fcc_expand(sbuf *b, const char *tpl, const subst *subs, size_t nsubs);
const char *fcc_c_elem_type(fc_type t);
/* An `as` type's C element type (float16: its bits, uint16_t) and its
 * enumerator (FC_AS_UINT8 ...). */
const char *fcc_as_c_type(int as);
const char *fcc_as_macro(int as);
void fcc_comment_key(sbuf *b, const char *s, size_t n);
void fcc_describe(sbuf *b, const schema_feature *f);
void fcc_describe_list(sbuf *b, const schema_feature *f);
void fcc_emit_desc_head(sbuf *b, const schema_feature *f);
void fcc_emit_batch_append(sbuf *b, const schema_message *m);
void fcc_emit_fast_feature(sbuf *cases, sbuf *absent, const schema_feature *f, size_t i);
void fcc_emit_field_extra(sbuf *b, const schema_message *m, const schema_feature *f);
int fcc_emit_lookup(sbuf *b, const schema_feature *group, size_t n, const char *minus);
int fcc_has_extra(const schema_feature *f);
const char *fcc_str_or_empty(const sbuf *b);
const char *fcc_type_enum(fc_type t);
int fcc_parts_failed(sbuf *const *all, size_t n);
void fcc_parts_free(sbuf *const *all, size_t n);
void fcc_c_string(sbuf *b, const char *s, size_t n);
void fcc_value_ptr(sbuf *b, const char *m, const schema_feature *f);
void fcc_emit_feature_constants(sbuf *b, const schema_feature *f);
void fcc_emit_feature_member(sbuf *b, const schema_feature *f);
void fcc_emit_default_array(sbuf *b, const schema_message *m, const schema_feature *f);
void fcc_emit_default_copy(sbuf *b, const char *indent, const schema_message *m,
                           const schema_feature *f);
void fcc_emit_ragged_parts(sbuf *b, const schema_message *m, const schema_feature *f);
void fcc_emit_field_desc(sbuf *b, sbuf *extras, const schema_message *m,
                         const schema_feature *f, int last);
void fcc_emit_as_member(sbuf *b, const schema_feature *f);
void fcc_emit_batch_bytes(sbuf *b, const schema_feature *f, int list);

/* emit_direct.c */
void fcc_emit_batch_direct(sbuf *b, const schema_message *m);

/* emit_sequence.c */
void fcc_emit_list_constants(sbuf *b, const schema_feature *f);
void fcc_emit_list_desc(sbuf *b, sbuf *extras, const schema_message *m,
                        const schema_feature *f, int last);
void fcc_emit_list_member(sbuf *b, const schema_feature *f);
int fcc_sequence_parts(msg_parts *mp, const schema_message *m);

/* emit_segments.c */
int fcc_emit_segments(const schema_message *m, sbuf *hdr, sbuf *src);

#endif /* FEATC_EMIT_H */
