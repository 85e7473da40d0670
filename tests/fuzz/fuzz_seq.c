/* libFuzzer harness for generated SequenceExample parsers: the code featc
 * generates for tests/specs/seqsem.feat (every context and feature-list
 * kind and policy) and tests/specs/seqragged.feat (RaggedFeatures in the
 * context and in feature lists), on arbitrary bytes.
 *
 * The parser must not crash or read outside the record (ASan), must give
 * the same verdict with and without an error struct, must say why when it
 * rejects (an offset inside the record when it gives one), and what it
 * accepts must be well formed: counts and frame counts within the declared
 * bounds, fixed lists present unless allow_missing, uniform VarLen frames,
 * bytes values inside the record or the spec's defaults, and the same
 * values on a second parse. */
/* test-specs: tests/specs/seqsem.feat tests/specs/seqragged.feat */
#include <stdlib.h>
#include <string.h>

#include "seqragged.h"
#include "seqsem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static seq_s a, b, c;
static seq_a aa;

/* The serializer on an accepted record, into a buffer of exactly the size
 * it announces: the bytes parse back to the same frames and values and
 * serialize again to the same bytes. */
static void check_serializer(const seq_s *m)
{
    size_t size = seq_s_encoded_size(m, FC_OMIT_DEFAULTS), len = 0, len2 = 0, t;
    uint8_t *buf, *buf2;
    fc_error err;
    if (size == 0)
        abort();
    buf = (uint8_t *)malloc(size);
    buf2 = (uint8_t *)malloc(size);
    if (buf == NULL || buf2 == NULL)
        abort();
    if (seq_s_serialize(m, FC_OMIT_DEFAULTS, buf, size, &len, &err) != FC_OK || len != size ||
        seq_s_parse(&c, buf, len, &err) != FC_OK)
        abort();
    if (memcmp(m->present, c.present, sizeof m->present) != 0 || m->c != c.c ||
        memcmp(m->cd, c.cd, sizeof m->cd) != 0 || m->cv_count != c.cv_count ||
        m->fr_frames != c.fr_frames || m->fm_frames != c.fm_frames ||
        m->v_frames != c.v_frames || m->vu_frames != c.vu_frames ||
        memcmp(m->fr, c.fr, m->fr_frames * sizeof m->fr[0]) != 0 ||
        memcmp(m->fm, c.fm, m->fm_frames * sizeof m->fm[0]) != 0)
        abort();
    for (t = 0; t < m->vu_frames; t++)
        if (m->vu_count[t] != c.vu_count[t] ||
            memcmp(m->vu[t], c.vu[t], m->vu_count[t] * sizeof m->vu[t][0]) != 0)
            abort();
    for (t = 0; t < m->v_frames; t++)
        if (m->v_count[t] != c.v_count[t])
            abort();
    if (seq_s_serialize(&c, FC_OMIT_DEFAULTS, buf2, size, &len2, &err) != FC_OK || len2 != len ||
        memcmp(buf, buf2, len) != 0)
        abort();
    free(buf);
    free(buf2);
}

static int inside(const fc_bytes *v, const uint8_t *rec, size_t len)
{
    return v->size == 0 || (v->data >= rec && v->data <= rec + len &&
                            v->size <= (size_t)(rec + len - v->data));
}

static void check_accepted(const seq_s *m, const uint8_t *rec, size_t len)
{
    size_t t, k;
    if (m->cv_count > SEQ_S_CV_MAX || m->fr_frames > SEQ_S_FR_FRAMES_MAX ||
        m->fm_frames > SEQ_S_FM_FRAMES_MAX || m->v_frames > SEQ_S_V_FRAMES_MAX ||
        m->vu_frames > SEQ_S_VU_FRAMES_MAX)
        abort();
    if (!seq_s_has(m, SEQ_S_C) || !seq_s_has(m, SEQ_S_FR))
        abort(); /* required */
    if (!seq_s_has(m, SEQ_S_CD) && (m->cd[0] != 1.0f || m->cd[1] != 2.0f))
        abort(); /* the default */
    for (k = 0; k < m->cv_count; k++)
        if (!inside(&m->cv[k], rec, len))
            abort();
    for (t = 0; t < m->v_frames; t++) {
        if (m->v_count[t] > SEQ_S_V_MAX)
            abort();
        for (k = 0; k < m->v_count[t]; k++)
            if (!inside(&m->v[t][k], rec, len))
                abort();
    }
    for (t = 0; t < m->vu_frames; t++)
        if (m->vu_count[t] > SEQ_S_VU_MAX || m->vu_count[t] != m->vu_count[0])
            abort(); /* uniform */
}

static sqr_s ra_, rb_, rc_;

/* Splits k of a RaggedFeature's partition q (frame t; t = 0 for a context
 * feature), as int64. */
static int64_t split_of(const fc_field_extra *x, const unsigned char *m, unsigned q, size_t t,
                        size_t k)
{
    const unsigned char *sp = m + x->parts[q].splits_offset +
                              t * (x->parts[q].max_rows + 1) * (x->split64 ? 8u : 4u);
    if (x->split64) {
        int64_t v;
        memcpy(&v, sp + k * 8, 8);
        return v;
    } else {
        int32_t v;
        memcpy(&v, sp + k * 4, 4);
        return v;
    }
}

static size_t size_at(const unsigned char *m, size_t off)
{
    size_t v;
    memcpy(&v, m + off, sizeof v);
    return v;
}

/* An accepted RaggedFeature (extra x, values count, bound max) of frame t is
 * a well-formed RaggedTensor: every level's splits start at 0, never
 * decrease, stay within their bound and end at the items inside. */
static void check_ragged(const fc_field_extra *x, const unsigned char *m, size_t t, size_t count,
                         size_t max)
{
    size_t inner = count, k;
    unsigned q;
    if (count > max)
        abort();
    for (q = x->nparts; q-- > 0;) {
        size_t rows = size_at(m, x->parts[q].rows_offset + t * sizeof(size_t));
        if (rows > x->parts[q].max_rows || split_of(x, m, q, t, 0) != 0 ||
            split_of(x, m, q, t, rows) != (int64_t)inner)
            abort();
        for (k = 0; k < rows; k++)
            if (split_of(x, m, q, t, k + 1) < split_of(x, m, q, t, k))
                abort();
        inner = rows;
    }
}

/* Two parses of seqragged.feat hold the same RaggedFeatures: presence,
 * frames, counts and every level's rows and splits (values past a count
 * are unspecified). */
static int same_ragged(const sqr_s *x, const sqr_s *y)
{
    const fc_seq_desc *sd = &sqr_s_desc;
    const unsigned char *a = (const unsigned char *)x, *b = (const unsigned char *)y;
    size_t i, t, k;
    unsigned q;
    if (memcmp(x->present, y->present, sizeof x->present) != 0 ||
        x->cpart_rows0 != y->cpart_rows0 || x->cpart_count != y->cpart_count ||
        memcmp(x->cpart_splits0, y->cpart_splits0, (x->cpart_rows0 + 1) * 4) != 0)
        return 0;
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        size_t frames = size_at(a, l->frames_offset);
        if (l->kind != FC_KIND_RAGGED)
            continue;
        if (frames != size_at(b, l->frames_offset))
            return 0;
        for (t = 0; t < frames; t++) {
            size_t n = size_at(a, l->count_offset + t * sizeof(size_t));
            if (n != size_at(b, l->count_offset + t * sizeof(size_t)))
                return 0;
            size_t at = l->value_offset + t * l->max * fc_type_size(l->type);
            if (l->type != FC_TYPE_BYTES && memcmp(a + at, b + at, n * fc_type_size(l->type)) != 0)
                return 0;
            for (q = 0; q < l->extra->nparts; q++) {
                size_t rows = size_at(a, l->extra->parts[q].rows_offset + t * sizeof(size_t));
                if (rows != size_at(b, l->extra->parts[q].rows_offset + t * sizeof(size_t)))
                    return 0;
                for (k = 0; k <= rows; k++)
                    if (split_of(l->extra, a, q, t, k) != split_of(l->extra, b, q, t, k))
                        return 0;
            }
        }
    }
    return 1;
}

/* The RaggedFeature spec over the same bytes: the same verdict with and
 * without an error struct, well-formed tensors, values inside the record,
 * and the serializer's round trip. */
static void check_seqragged(const uint8_t *data, size_t size)
{
    const fc_seq_desc *sd = &sqr_s_desc;
    fc_error err;
    size_t i, t, k, len = 0, cap;
    uint8_t *buf;
    int r1 = sqr_s_parse(&ra_, data, size, &err), r2 = sqr_s_parse(&rb_, data, size, NULL);
    if (r1 != r2 || (r1 != FC_OK && r1 != FC_ERR_PARSE))
        abort();
    if (r1 != FC_OK) {
        if (err.message[0] == '\0' || strstr(err.message, "internal error") != NULL ||
            (err.offset != FC_NO_INDEX && err.offset > size))
            abort();
        return;
    }
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *f = &sd->context[i];
        if (f->kind == FC_KIND_RAGGED)
            check_ragged(f->extra, (const unsigned char *)&ra_, 0,
                         size_at((const unsigned char *)&ra_, f->count_offset), f->max);
    }
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        size_t frames = size_at((const unsigned char *)&ra_, l->frames_offset);
        if (frames > l->max_frames)
            abort();
        for (t = 0; t < frames && l->kind != FC_KIND_FIXED; t++) {
            size_t n = size_at((const unsigned char *)&ra_, l->count_offset + t * sizeof(size_t));
            if (l->kind == FC_KIND_RAGGED)
                check_ragged(l->extra, (const unsigned char *)&ra_, t, n, l->max);
            else if (n > l->max)
                abort();
        }
    }
    for (t = 0; t < ra_.flat_frames; t++)
        for (k = 0; k < ra_.flat_count[t]; k++)
            if (!inside(&ra_.flat[t][k], data, size))
                abort();
    if (!same_ragged(&ra_, &rb_))
        abort(); /* one parse, one result */
    cap = sqr_s_encoded_size(&ra_, FC_OMIT_DEFAULTS);
    buf = (uint8_t *)malloc(cap + 1);
    if (cap == 0 || buf == NULL ||
        sqr_s_serialize(&ra_, FC_OMIT_DEFAULTS, buf, cap, &len, &err) != FC_OK || len != cap ||
        sqr_s_parse(&rc_, buf, len, &err) != FC_OK)
        abort();
    if (!same_ragged(&ra_, &rc_))
        abort();
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fc_error err;
    int ra, rb;
    memset(&err, 0, sizeof err);
    ra = seq_s_parse(&a, data, size, &err);
    rb = seq_s_parse(&b, data, size, NULL);
    if (ra != rb || (ra != FC_OK && ra != FC_ERR_PARSE))
        abort();
    if (ra != FC_OK) {
        if (err.status != FC_ERR_PARSE || err.message[0] == '\0' ||
            strstr(err.message, "internal error") != NULL)
            abort();
        if (err.offset != FC_NO_INDEX && err.offset > size)
            abort();
    } else {
        check_accepted(&a, data, size);
        if (memcmp(a.present, b.present, sizeof a.present) != 0 || a.c != b.c ||
            a.fr_frames != b.fr_frames || a.v_frames != b.v_frames ||
            (a.fr_frames > 0 && memcmp(a.fr, b.fr, a.fr_frames * sizeof a.fr[0]) != 0))
            abort();
        check_serializer(&a);
    }
    /* the aligned message over the same bytes */
    if (seq_a_parse(&aa, data, size, &err) == FC_OK) {
        if ((seq_a_has(&aa, SEQ_A_Y) && aa.y_frames != aa.x_frames) ||
            (seq_a_has(&aa, SEQ_A_Z) && aa.z_frames != aa.x_frames) || !seq_a_has(&aa, SEQ_A_X))
            abort();
    } else if (strstr(err.message, "internal error") != NULL) {
        abort();
    }
    check_seqragged(data, size);
    return 0;
}
