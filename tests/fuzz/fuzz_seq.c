/* libFuzzer harness for generated SequenceExample parsers: the code featc
 * generates for tests/specs/seqsem.feat (every context and feature-list
 * kind and policy), on arbitrary bytes.
 *
 * The parser must not crash or read outside the record (ASan), must give
 * the same verdict with and without an error struct, must say why when it
 * rejects (an offset inside the record when it gives one), and what it
 * accepts must be well formed: counts and frame counts within the declared
 * bounds, fixed lists present unless allow_missing, uniform VarLen frames,
 * bytes values inside the record or the spec's defaults, and the same
 * values on a second parse. */
/* test-specs: tests/specs/seqsem.feat */
#include <stdlib.h>
#include <string.h>

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
    return 0;
}
