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

#include <featc/fc_json.h>
#include <featc/fc_fallback.h>

#include "wire.h" /* fc_type_size */

static unsigned char arena_mem[8u << 20];

/* Frames of a list in the struct. */
static size_t frames_of(const fc_list_desc *l, const unsigned char *m)
{
    size_t n;
    memcpy(&n, m + l->frames_offset, sizeof n);
    return n;
}

static size_t frame_count(const fc_list_desc *l, const unsigned char *m, size_t t)
{
    size_t n;
    memcpy(&n, m + l->count_offset + t * sizeof n, sizeof n);
    return n;
}

/* Frame t of list l with `as`: where its values and typed values are,
 * and how many it has. */
static size_t frame_of(const fc_list_desc *l, const unsigned char *m, size_t t, size_t *vat,
                       size_t *tat)
{
    const fc_field_as *x = l->extra->as;
    size_t per = l->kind == FC_KIND_FIXED ? l->elems : l->max;
    size_t n = l->kind == FC_KIND_VARLEN ? frame_count(l, m, t) : l->elems;
    *vat = l->value_offset + t * per * fc_type_size(l->type);
    *tat = x->offset + t * per * x->elems * fc_as_size(x->type);
    return n;
}

/* Frames of list l when it has `as`, else 0. */
static size_t typed_frames(const fc_list_desc *l, const unsigned char *m)
{
    return l->extra == NULL || l->extra->as == NULL ? 0 : frames_of(l, m);
}

/* `as` on feature lists: each frame's values converted as a field's
 * (oracle_typed_values) into the list's typed member; 0 where featc must
 * refuse the record. */
static int typed_lists(const fc_seq_desc *sd, unsigned char *m)
{
    size_t i, t, vat, tat, n;
    for (i = 0; i < sd->nlists; i++)
        for (t = 0; t < typed_frames(&sd->lists[i], m); t++) {
            n = frame_of(&sd->lists[i], m, t, &vat, &tat);
            if (!oracle_typed_values(sd->lists[i].type, sd->lists[i].extra->as, m + vat, n,
                                     m + tat))
                return 0;
        }
    return 1;
}

/* Those typed values as text, frame after frame. */
static void typed_lists_text(FILE *f, const fc_seq_desc *sd, const unsigned char *m)
{
    size_t i, t, vat, tat, n;
    for (i = 0; i < sd->nlists; i++)
        for (t = 0; t < typed_frames(&sd->lists[i], m); t++) {
            n = frame_of(&sd->lists[i], m, t, &vat, &tat);
            oracle_typed_text(f, sd->lists[i].c_name, sd->lists[i].extra->as, m + tat,
                              n * sd->lists[i].extra->as->elems);
        }
}

/* Feature list i, a RaggedFeature: every list it reads has the same frames
 * (featc's rule), and frame t of the values is partitioned by frame t of
 * each partition list, as one record's feature would be. */
static int ragged_list(const fc_seq_desc *sd, size_t i, unsigned char *m)
{
    const fc_list_desc *l = &sd->lists[i];
    const fc_field_extra *x = l->extra;
    const fc_list_desc *vl = &sd->lists[x->sparse_fields[0]];
    uint32_t *present = (uint32_t *)(void *)(m + sd->present_offset);
    size_t frames = frames_of(vl, m), t, bit = sd->ncontext + i,
           vbit = sd->ncontext + x->sparse_fields[0];
    unsigned q;
    for (q = 0; q < x->nparts; q++)
        if (x->parts[q].kind != FC_PART_UNIFORM_ROW_LENGTH &&
            frames_of(&sd->lists[x->parts[q].field], m) != frames)
            return 0;
    for (t = 0; t < frames; t++) {
        const int64_t *psrc[FC_MAX_RANK];
        size_t pn[FC_MAX_RANK];
        for (q = 0; q < x->nparts; q++) {
            const fc_list_desc *pl = &sd->lists[x->parts[q].field];
            int uniform = x->parts[q].kind == FC_PART_UNIFORM_ROW_LENGTH;
            psrc[q] = uniform ? NULL
                              : (const int64_t *)(const void *)(m + pl->value_offset +
                                                                t * pl->max * sizeof(int64_t));
            pn[q] = uniform ? 0 : frame_count(pl, m, t);
        }
        if (!oracle_ragged(x, l->type, l->max, m, l->value_offset, l->count_offset, t,
                           m + vl->value_offset + t * vl->max * fc_type_size(vl->type),
                           frame_count(vl, m, t), psrc, pn))
            return 0;
    }
    memcpy(m + l->frames_offset, &frames, sizeof frames);
    if ((present[vbit / 32] >> (vbit % 32)) & 1u)
        present[bit / 32] |= 1u << (bit % 32);
    return 1;
}

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
        const fc_fb_value *f = e != NULL ? e->value : NULL;
        int set = f != NULL && f->kind != FC_FB_NONE;
        size_t n = set ? f->n : 0;
        if (fd->kind == FC_KIND_RAGGED)
            continue; /* built below from the fields it reads */
        if (set && oracle_value_type(f) != fd->type)
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
                oracle_copy_view(f, m + fd->value_offset, n);
        } else {
            if (n > fd->max)
                return FC_ERR_PARSE; /* the spec's bound */
            if (n > 0)
                oracle_copy_view(f, m + fd->value_offset, n);
            memcpy(m + fd->count_offset, &n, sizeof n);
        }
        if (f != NULL)
            present[i / 32] |= 1u << (i % 32);
    }
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        const fc_fb_feature_list *e = fc_fallback_find_list(&fb, l->key, l->key_len);
        size_t frames = 0, bit = sd->ncontext + i;
        if (l->kind == FC_KIND_RAGGED)
            continue; /* built below from the lists it reads */
        if (e == NULL) {
            if (l->kind == FC_KIND_FIXED && !l->allow_missing)
                return FC_ERR_PARSE; /* required */
        } else {
            frames = e->n_frames;
            for (t = 0; t < frames; t++) { /* types first: TF's length scan */
                const fc_fb_value *f = &e->frames[t];
                if (f->kind != FC_FB_NONE && oracle_value_type(f) != l->type)
                    return FC_ERR_PARSE;
            }
            if (frames > l->max_frames)
                return FC_ERR_PARSE;
            for (t = 0; t < frames; t++) {
                const fc_fb_value *f = &e->frames[t];
                size_t n = f->n;
                size_t per = l->kind == FC_KIND_FIXED ? l->elems : l->max;
                if (l->kind == FC_KIND_FIXED ? n != l->elems : n > l->max)
                    return FC_ERR_PARSE;
                if (l->uniform && n != e->frames[0].n)
                    return FC_ERR_PARSE;
                oracle_copy_view(f, m + l->value_offset + t * per * fc_type_size(l->type), n);
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
    for (i = 0; i < sd->ncontext; i++)
        if (sd->context[i].kind == FC_KIND_RAGGED &&
            !oracle_ragged_field(sd->context, sd->present_offset, i, m))
            return FC_ERR_PARSE;
    for (i = 0; i < sd->nlists; i++)
        if (sd->lists[i].kind == FC_KIND_RAGGED && !ragged_list(sd, i, m))
            return FC_ERR_PARSE;
    return oracle_typed(sd->context, sd->ncontext, m) && typed_lists(sd, m) ? FC_OK
                                                                                 : FC_ERR_PARSE;
}

void seq_oracle_json(const fc_seq_desc *sd, const void *msg, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) {
        snprintf(buf, cap, "(fmemopen failed)");
        return;
    }
    fc_json_context(f, sd, msg);
    oracle_typed_json(f, sd->context, sd->ncontext, msg);
    fputc(' ', f);
    fc_json_feature_lists(f, sd, msg);
    typed_lists_text(f, sd, (const unsigned char *)msg);
    fclose(f);
}
