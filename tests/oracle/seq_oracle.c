/* The independent oracle for SequenceExample parsers: protobuf-c decodes
 * the record (the fallback decoder, no featc wire code) and TensorFlow's
 * FastParseSequenceExample rules, plus the spec's bounds and policies, are
 * applied to the decoded message through the generated descriptor.  The
 * verdict does not depend on the order of the checks, so this is a plain
 * list of conditions; the parser's error order is pinned by the behaviour
 * tests instead.
 *
 * Where protobuf and TensorFlow read the same bytes differently (value
 * before key in a map entry, a Feature with two lists, bytes after a frame's
 * list) the oracle follows protobuf: the record generator of seq_check.c
 * does not produce those. */
#include "seq_oracle.h"

#include "oracle.h"

#include <string.h>

#include <featc/fc_driver.h>
#include <featc/fc_fallback.h>

#include "wire.h" /* fc_type_size */

static unsigned char arena_mem[8u << 20];

int seq_oracle_parse(const fc_seq_desc *sd, void *out, const void *data, size_t len)
{
    fc_arena arena;
    fc_fallback fb;
    unsigned char *m = (unsigned char *)out;
    uint32_t *present = (uint32_t *)(void *)(m + sd->present_offset);
    size_t i, t, aligned_frames = (size_t)-1;
    fc_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (fc_fallback_decode(data, len, FC_PAYLOAD_SEQUENCE_EXAMPLE,
                           FC_FALLBACK_LENIENT | FC_FALLBACK_SKIP_UNKNOWN, &arena, &fb, NULL) !=
        FC_OK)
        return FC_ERR_PARSE;
    sd->init(out);
    /* context: the last occurrence of a key wins, Feature{} included */
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *fd = &sd->context[i];
        const fc_fb_feature *e = fc_fallback_find(&fb, fd->key, fd->key_len);
        const FcPb__Feature *f = e != NULL ? e->value : NULL;
        int set = f != NULL && f->kind_case != FC_PB__FEATURE__KIND__NOT_SET;
        size_t n = set ? oracle_kind_count(f) : 0;
        if (set && oracle_kind_type(f) != fd->type)
            return FC_ERR_PARSE;
        if (fd->kind == FC_KIND_FIXED) {
            size_t def = fd->default_value != NULL ? fd->elems : 0;
            size_t length = def > n ? def : n;
            if (length != fd->elems)
                return FC_ERR_PARSE; /* Inconsistent max number of elements */
            if (f == NULL && def == 0)
                return FC_ERR_PARSE; /* required */
            if (f != NULL && n != length)
                return FC_ERR_PARSE; /* Unexpected number of elements */
            if (f != NULL && n > 0)
                oracle_copy_values(f, m + fd->value_offset, n);
        } else {
            if (n > fd->max)
                return FC_ERR_PARSE; /* the spec's bound */
            if (n > 0)
                oracle_copy_values(f, m + fd->value_offset, n);
            memcpy(m + fd->count_offset, &n, sizeof n);
        }
        if (f != NULL)
            present[i / 32] |= 1u << (i % 32);
    }
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        const fc_fb_feature_list *e = fc_fallback_find_list(&fb, l->key, l->key_len);
        size_t frames = 0, bit = sd->ncontext + i;
        if (e == NULL) {
            if (l->kind == FC_KIND_FIXED && !l->allow_missing)
                return FC_ERR_PARSE; /* required */
        } else {
            frames = e->value->n_feature;
            for (t = 0; t < frames; t++) { /* types first: TF's length scan */
                const FcPb__Feature *f = e->value->feature[t];
                if (f->kind_case != FC_PB__FEATURE__KIND__NOT_SET && oracle_kind_type(f) != l->type)
                    return FC_ERR_PARSE;
            }
            if (frames > l->max_frames)
                return FC_ERR_PARSE;
            for (t = 0; t < frames; t++) {
                const FcPb__Feature *f = e->value->feature[t];
                size_t n = oracle_kind_count(f);
                size_t per = l->kind == FC_KIND_FIXED ? l->elems : l->max;
                if (l->kind == FC_KIND_FIXED ? n != l->elems : n > l->max)
                    return FC_ERR_PARSE;
                if (l->uniform && n != oracle_kind_count(e->value->feature[0]))
                    return FC_ERR_PARSE;
                oracle_copy_values(f, m + l->value_offset + t * per * fc_type_size(l->type), n);
                if (l->kind == FC_KIND_VARLEN)
                    memcpy(m + l->count_offset + t * sizeof(size_t), &n, sizeof n);
            }
            if (sd->aligned) {
                if (aligned_frames == (size_t)-1)
                    aligned_frames = frames;
                else if (aligned_frames != frames)
                    return FC_ERR_PARSE;
            }
            present[bit / 32] |= 1u << (bit % 32);
        }
        memcpy(m + l->frames_offset, &frames, sizeof frames);
    }
    return FC_OK;
}

void seq_oracle_json(const fc_seq_desc *sd, const void *msg, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) {
        snprintf(buf, cap, "(fmemopen failed)");
        return;
    }
    fc_json_context(f, sd, msg);
    fputc(' ', f);
    fc_json_feature_lists(f, sd, msg);
    fclose(f);
}
