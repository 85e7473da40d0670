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
#include <stdlib.h>
#include <string.h>

#include "seqsem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static seq_s a, b;
static seq_a aa;

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
