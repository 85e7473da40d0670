/* libFuzzer harness for generated parsers: the code featc generates for
 * tests/specs/semantics.feat (one feature of every kind).
 *
 * The first input byte picks a mode:
 *   even: the remaining bytes are a record.  Whatever they are, the parser
 *         must not crash or read outside them (ASan), must give the same
 *         status with and without an error struct, must say why when it
 *         rejects (TF's text, an offset inside the record), and what it
 *         accepts must be well formed: counts within the declared bounds,
 *         bytes values inside the record or the spec's default, the same
 *         values on a second parse.  protobuf and TensorFlow disagree on
 *         some malformed wire forms (tests/oracle/oracle.h), so arbitrary
 *         bytes are not judged against the oracle.
 *   odd:  the remaining bytes drive tests/oracle/random_record.h, which
 *         builds a record (often invalid) inside the forms both agree on;
 *         the generated parser and the protobuf-c oracle must agree on
 *         accept/reject and on every value, as in `make differential`.
 * Every accepted record also goes through the generated serializer, into a
 * buffer of exactly the size it announces (ASan sees any overrun): the
 * bytes must parse back to the same values and presence, and serialize
 * again to the same bytes.
 */
/* test-specs: tests/specs/semantics.feat */
/* test-sources: tests/oracle/oracle.c */
#include <stdlib.h>
#include <string.h>

#include "../oracle/oracle.h"
#include "semantics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const fc_message_desc *const md = &sem_t_desc;

/* ---- randomness from the input; a PRNG seeded by it once it runs out */

static const uint8_t *in;
static size_t in_len, in_pos;
static unsigned long long prng;

static unsigned long long rnd(void)
{
    unsigned long long v = 0;
    int i;
    if (in_pos < in_len) {
        for (i = 0; i < 8; i++)
            v = (v << 8) | (in_pos < in_len ? in[in_pos++] : 0u);
        prng = prng * 6364136223846793005ull + v + 1442695040888963407ull;
        return v;
    }
    prng ^= prng << 13;
    prng ^= prng >> 7;
    prng ^= prng << 17;
    return prng;
}

#include "../oracle/random_record.h"

static sem_t msg_a, msg_b;
static char json_a[1 << 16], json_b[1 << 16];

static int inside(const uint8_t *p, size_t n, const uint8_t *lo, size_t len)
{
    return n == 0 || (p >= lo && p <= lo + len && n <= (size_t)(lo + len - p));
}

/* What an accepted record must look like. */
static void check_accepted(const sem_t *m, const uint8_t *rec, size_t len)
{
    size_t i;
    if (m->v_count > SEM_T_V_MAX || m->vb_count > SEM_T_VB_MAX || m->r_count > SEM_T_R_MAX)
        abort();
    for (i = 0; i < m->vb_count; i++)
        if (!inside(m->vb[i].data, m->vb[i].size, rec, len))
            abort();
    if (sem_t_has(m, SEM_T_B2)) {
        for (i = 0; i < SEM_T_B2_SIZE; i++)
            if (!inside(m->b2[i].data, m->b2[i].size, rec, len))
                abort();
    } else if (m->b2[0].size != 1 || m->b2[0].data[0] != 'x' || m->b2[1].size != 1 ||
               m->b2[1].data[0] != 'y') {
        abort(); /* the default */
    }
    /* required features */
    if (!sem_t_has(m, SEM_T_S) || !sem_t_has(m, SEM_T_F3))
        abort();
}

static sem_t msg_c;

static void check_serializer(const sem_t *m, unsigned flags)
{
    size_t size = sem_t_encoded_size(m, flags), len = 0, len2 = 0;
    uint8_t *buf, *buf2;
    fc_error err;
    if (size == 0)
        abort(); /* a parsed struct is always within its bounds */
    buf = (uint8_t *)malloc(size);
    buf2 = (uint8_t *)malloc(size);
    if (buf == NULL || buf2 == NULL)
        abort();
    if (sem_t_serialize(m, flags, buf, size, &len, &err) != FC_OK || len != size ||
        sem_t_parse(&msg_c, buf, len, &err) != FC_OK)
        abort();
    oracle_json(md, m, json_a, sizeof json_a);
    oracle_json(md, &msg_c, json_b, sizeof json_b);
    if (strcmp(json_a, json_b) != 0 ||
        (flags == FC_OMIT_DEFAULTS && memcmp(m->present, msg_c.present, sizeof m->present) != 0))
        abort();
    if (sem_t_serialize(&msg_c, flags, buf2, size, &len2, &err) != FC_OK || len2 != len ||
        memcmp(buf, buf2, len) != 0)
        abort();
    free(buf);
    free(buf2);
}

static void raw(const uint8_t *rec, size_t len)
{
    fc_error err;
    int a, b;
    memset(&err, 0, sizeof err);
    a = sem_t_parse(&msg_a, rec, len, &err);
    b = sem_t_parse(&msg_b, rec, len, NULL);
    if (a != b || (a != FC_OK && a != FC_ERR_PARSE))
        abort();
    if (a != FC_OK) {
        if (err.status != FC_ERR_PARSE || err.message[0] == '\0' ||
            memchr(err.message, '\0', sizeof err.message) == NULL)
            abort();
        if (err.offset != FC_NO_INDEX && err.offset > len)
            abort();
        return;
    }
    check_accepted(&msg_a, rec, len);
    oracle_json(md, &msg_a, json_a, sizeof json_a);
    oracle_json(md, &msg_b, json_b, sizeof json_b);
    if (strcmp(json_a, json_b) != 0 || memcmp(msg_a.present, msg_b.present, sizeof msg_a.present))
        abort();
    check_serializer(&msg_a, len > 0 && (rec[len - 1] & 1u) ? FC_WRITE_DEFAULTS : FC_OMIT_DEFAULTS);
}

static void structured(const uint8_t *seed, size_t n)
{
    static wbuf ex;
    fc_error err;
    uint8_t *rec;
    int a, b;
    in = seed;
    in_len = n;
    in_pos = 0;
    prng = 0x9e3779b97f4a7c15ull ^ n;
    random_record(md, &ex);
    /* an exact-size copy: ASan sees any read past the record */
    rec = (uint8_t *)malloc(ex.n > 0 ? ex.n : 1);
    if (rec == NULL)
        return;
    memcpy(rec, ex.b, ex.n);
    a = sem_t_parse(&msg_a, rec, ex.n, &err);
    b = oracle_parse(md, &msg_b, rec, ex.n);
    if (a != b)
        abort(); /* the generated parser and the oracle disagree on accept/reject */
    if (a == FC_OK) {
        check_accepted(&msg_a, rec, ex.n);
        oracle_json(md, &msg_a, json_a, sizeof json_a);
        oracle_json(md, &msg_b, json_b, sizeof json_b);
        if (strcmp(json_a, json_b) != 0 ||
            memcmp(msg_a.present, msg_b.present, sizeof msg_a.present) != 0)
            abort(); /* they disagree on a value */
        check_serializer(&msg_a, FC_OMIT_DEFAULTS);
    }
    free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] & 1)
        structured(data + 1, size - 1);
    else
        raw(data + 1, size - 1);
    return 0;
}
