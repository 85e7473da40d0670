/* Behaviour of generated parsers on hand-built records: one test per rule of
 * TensorFlow's Example semantics (docs/semantics.md), through the code
 * featc generates for tests/specs/semantics.feat. */
/* test-specs: tests/specs/semantics.feat */
#include <math.h>
#include <stdio.h>

#include "featc/fc_fast.h"
#include "harness.h"
#include "semantics.h"
#include "wire.h"

static sem_t msg;
static fc_error err;

static int parse(const wbuf *ex)
{
    fc_error_clear(&err);
    return sem_t_parse(&msg, ex->b, ex->n, &err);
}

/* The record with every required feature present: s=1, f3=[1,2,3]. */
static void base_features(wbuf *feats)
{
    wbuf f;
    static const int64_t one = 1;
    static const float three[3] = {1, 2, 3};
    f.n = 0;
    f_int64_packed(&f, &one, 1);
    w_entry(feats, "s", &f);
    f.n = 0;
    f_float_packed(&f, three, 3);
    w_entry(feats, "f3", &f);
}

/* Example with the base features plus one more entry key=feature. */
static void with_entry(wbuf *ex, const char *key, const wbuf *feature)
{
    wbuf feats;
    feats.n = 0;
    ex->n = 0;
    base_features(&feats);
    w_entry(&feats, key, feature);
    w_example(ex, &feats);
}

static void test_minimal_and_defaults(void)
{
    wbuf feats, ex;
    feats.n = ex.n = 0;
    base_features(&feats);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_OK);
    CHECK(msg.s == 1);
    CHECK(msg.f3[0] == 1.0f && msg.f3[1] == 2.0f && msg.f3[2] == 3.0f);
    CHECK(msg.d == 7); /* default */
    CHECK(msg.b2[0].size == 1 && msg.b2[0].data[0] == 'x' && msg.b2[1].data[0] == 'y');
    CHECK(msg.ab == 0.5f);
    CHECK(msg.v_count == 0 && msg.vb_count == 0 && msg.r_count == 0);
    CHECK(sem_t_has(&msg, SEM_T_S) && sem_t_has(&msg, SEM_T_F3));
    CHECK(!sem_t_has(&msg, SEM_T_D) && !sem_t_has(&msg, SEM_T_V));
}

static void test_packed_and_unpacked(void)
{
    wbuf f, ex;
    static const int64_t vals[3] = {13, -1, INT64_MIN};
    static const float fl[3] = {1.5f, -0.0f, 3e38f};
    f.n = 0;
    f_int64_unpacked(&f, vals, 3);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK);
    CHECK(msg.v_count == 3 && msg.v[0] == 13 && msg.v[1] == -1 && msg.v[2] == INT64_MIN);
    f.n = 0;
    f_int64_packed(&f, vals, 3);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK);
    CHECK(msg.v_count == 3 && msg.v[0] == 13 && msg.v[1] == -1 && msg.v[2] == INT64_MIN);
    f.n = 0;
    f_float_unpacked(&f, fl, 3);
    with_entry(&ex, "f3", &f); /* a later f3 replaces the base one */
    CHECK(parse(&ex) == FC_OK);
    /* (float): where floats are evaluated in a wider type (FLT_EVAL_METHOD
     * 2, x87), the constant 3e38f keeps its exact decimal value; the cast
     * rounds it to the float the record holds. */
    CHECK(msg.f3[0] == 1.5f && signbit(msg.f3[1]) && msg.f3[2] == (float)3e38f);
}

/* TF's test vectors (docs/tf-semantics.md 1.2): packed and non-packed "age". */
static void test_tf_vectors(void)
{
    unsigned char b[64];
    size_t n;
    fc_feature_ref ref;
    int64_t v = 0;
    /* 0a0e 0a0c 0a03616765 1205 1a03 0a01 0d: Feature bytes start at 9 */
    n = h_unhex("0a0e0a0c0a03616765" "12051a030a010d", b);
    ref.data = b + 11;
    ref.size = 5;
    ref.offset = 11;
    ref.entry = 1;
    CHECK(n == 16);
    CHECK(fc_ex_fixed_int64(&ref, &v, 1, NULL) == FC_OK && v == 13);
    n = h_unhex("0a0d0a0b0a03616765" "12041a02080d", b);
    ref.data = b + 11;
    ref.size = 4;
    CHECK(n == 15);
    CHECK(fc_ex_fixed_int64(&ref, &v, 1, NULL) == FC_OK && v == 13);
    /* age = [-1]: a 10-byte varint */
    n = h_unhex("0a170a150a03616765120e1a0c0a0affffffffffffffffff01", b);
    ref.data = b + 11;
    ref.size = 14;
    CHECK(fc_ex_fixed_int64(&ref, &v, 1, NULL) == FC_OK && v == -1);
    (void)n;
}

static void test_last_duplicate_wins(void)
{
    wbuf feats, ex, f;
    static const int64_t a = 5, b = 6;
    feats.n = ex.n = 0;
    base_features(&feats);
    f.n = 0;
    f_int64_packed(&f, &a, 1);
    w_entry(&feats, "d", &f);
    f.n = 0;
    f_int64_packed(&f, &b, 1);
    w_entry(&feats, "d", &f);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_OK && msg.d == 6);
    /* across two Features blocks (concatenated Examples): also the last */
    ex.n = 0;
    feats.n = 0;
    base_features(&feats);
    f.n = 0;
    f_int64_packed(&f, &a, 1);
    w_entry(&feats, "d", &f);
    w_example(&ex, &feats);
    feats.n = 0;
    f.n = 0;
    f_int64_packed(&f, &b, 1);
    w_entry(&feats, "d", &f);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_OK && msg.d == 6);
}

static void test_empty_last_duplicate_skipped(void)
{
    /* TF's single-Example path skips a Feature{} before marking the key
     * seen: the earlier non-empty duplicate is used. */
    wbuf feats, ex, f, empty;
    static const int64_t a = 5;
    feats.n = ex.n = empty.n = 0;
    base_features(&feats);
    f.n = 0;
    f_int64_packed(&f, &a, 1);
    w_entry(&feats, "d", &f);
    w_entry(&feats, "d", &empty);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_OK && msg.d == 5 && sem_t_has(&msg, SEM_T_D));
}

static void test_empty_feature(void)
{
    wbuf empty, ex, feats;
    empty.n = 0;
    /* FixedLen with a default: Feature{} is missing -> default */
    with_entry(&ex, "d", &empty);
    CHECK(parse(&ex) == FC_OK && msg.d == 7 && !sem_t_has(&msg, SEM_T_D));
    /* VarLen: Feature{} -> zero values */
    with_entry(&ex, "v", &empty);
    CHECK(parse(&ex) == FC_OK && msg.v_count == 0);
    /* required FixedLen: Feature{} -> the required error */
    feats.n = ex.n = 0;
    w_entry(&feats, "s", &empty);
    {
        wbuf f;
        static const float three[3] = {1, 2, 3};
        f.n = 0;
        f_float_packed(&f, three, 3);
        w_entry(&feats, "f3", &f);
    }
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Feature: s (data type: int64) is required but could not be found.");
}

static void test_empty_list_is_present(void)
{
    /* an empty list of the right type is "present with 0 values": for a
     * FixedLen feature that is a count error, never the default */
    wbuf f, ex;
    f.n = 0;
    f_int64_packed(&f, NULL, 0);
    with_entry(&ex, "d", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message,
                   "Key: d.  Can't parse serialized Example: Some int64_list slice was not parsed. "
                   "Number of int64 values != expected.  Values size: 0 but output shape: []");
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK && msg.v_count == 0 && sem_t_has(&msg, SEM_T_V));
}

static void test_type_mismatch(void)
{
    wbuf f, ex;
    static const float x = 1.0f;
    f.n = 0;
    f_float_packed(&f, &x, 1);
    with_entry(&ex, "d", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: d.  Data types don't match. Data type: float but expected type: int64");
    CHECK_CONTAINS(err.message, "(at byte ");
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: v.  Data types don't match. Expected type: int64, Actual type: float");
    /* even an empty list of another type is a mismatch */
    f.n = 0;
    f_float_packed(&f, NULL, 0);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Data types don't match");
}

static void test_counts(void)
{
    wbuf f, ex;
    static const float two[2] = {1, 2};
    static const float five[5] = {1, 2, 3, 4, 5};
    static const char *const three[3] = {"a", "b", "c"};
    f.n = 0;
    f_float_packed(&f, two, 2);
    with_entry(&ex, "f3", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message,
                   "Key: f3.  Can't parse serialized Example: Some float_list slice was not parsed. "
                   "Number of float values != expected.  Values size: 2 but output shape: [3]");
    f.n = 0;
    f_float_unpacked(&f, five, 5); /* too many, unpacked: never written past the array */
    with_entry(&ex, "f3", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Values size: 5 but output shape: [3]");
    f.n = 0;
    f_bytes(&f, three, 3);
    with_entry(&ex, "b2", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Number of bytes values != expected.  Values size: 3 but output shape: [2]");
}

static void test_rows(void)
{
    wbuf f, ex;
    static const float four[4] = {1, 2, 3, 4};
    static const float eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    f.n = 0;
    f_float_packed(&f, four, 4);
    with_entry(&ex, "r", &f);
    CHECK(parse(&ex) == FC_OK && msg.r_count == 2 && msg.r[1][0] == 3.0f && msg.r[1][1] == 4.0f);
    f.n = 0;
    f_float_packed(&f, four, 3);
    with_entry(&ex, "r", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message,
                   "Error while parsing feature with key r: number of elements should be divisible by 2, "
                   "found 3 instead. Number of float values is not a multiple of stride length. Saw 3 "
                   "values but output shape is: [?,2]");
    f.n = 0;
    f_float_packed(&f, eight, 8); /* 4 rows, bound 3 */
    with_entry(&ex, "r", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "exceeds the bound declared in the spec: 4 rows");
    f.n = 0;
    f_float_packed(&f, NULL, 0); /* zero rows */
    with_entry(&ex, "r", &f);
    CHECK(parse(&ex) == FC_OK && msg.r_count == 0);
}

static void test_varlen_bound(void)
{
    wbuf f, ex;
    static const int64_t five[5] = {1, 2, 3, 4, 5};
    f.n = 0;
    f_int64_packed(&f, five, 4);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK && msg.v_count == 4 && msg.v[3] == 4);
    f.n = 0;
    f_int64_packed(&f, five, 5);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: v.  Number of int64 values exceeds the bound declared in the spec: 5 values but max 4");
}

static void test_unknown_top_level_fields(void)
{
    wbuf feats, ex;
    feats.n = ex.n = 0;
    base_features(&feats);
    w_byte(&ex, 0x10); /* field 2 varint, 10 bytes */
    w_varint(&ex, UINT64_MAX);
    w_byte(&ex, 0x19); /* field 3 fixed64 */
    w_mem(&ex, "12345678", 8);
    w_example(&ex, &feats);
    w_byte(&ex, 0x25); /* field 4 fixed32 */
    w_mem(&ex, "1234", 4);
    w_len(&ex, 0x2A, "junk", 4); /* field 5 bytes */
    CHECK(parse(&ex) == FC_OK && msg.s == 1);
    /* a group is refused, as TF refuses it */
    w_byte(&ex, 0x33);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Could not parse example input");
}

static void test_structural_errors(void)
{
    wbuf feats, ex, e;
    /* an unknown field inside Features */
    feats.n = ex.n = 0;
    base_features(&feats);
    w_len(&feats, 0x12, "x", 1);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Could not parse example input, value: '\\n\\'\\n\\n\\n\\001s\\022");
    CHECK_CONTAINS(err.message, "\\022\\001x': a Features field is not a map entry at byte 38");
    /* a Features length that overruns the record */
    feats.n = ex.n = 0;
    base_features(&feats);
    w_example(&ex, &feats);
    ex.b[1] = (unsigned char)(ex.b[1] + 5);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Features length overruns the record at byte 0");
    CHECK(err.offset == 0);
    /* a truncated varint (record ends inside a length) */
    ex.n = 0;
    w_byte(&ex, 0x0A);
    w_byte(&ex, 0x80);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Features length is not a valid varint at byte 0");
    /* an 11-byte length varint is named as such, not as an overrun */
    {
        int i;
        ex.n = 0;
        w_byte(&ex, 0x0A);
        for (i = 0; i < 10; i++)
            w_byte(&ex, 0x80);
        w_byte(&ex, 0x00);
        CHECK(parse(&ex) == FC_ERR_PARSE);
        CHECK_CONTAINS(err.message, "Features length is not a valid varint");
        /* a 10-byte one is read (TensorFlow's ReadVarint32 reads 10): an
         * empty Features, so the required features are what is missing */
        ex.n = 0;
        w_byte(&ex, 0x0A);
        for (i = 0; i < 9; i++)
            w_byte(&ex, 0x80);
        w_byte(&ex, 0x00);
        CHECK(parse(&ex) == FC_ERR_PARSE);
        CHECK_CONTAINS(err.message, "is required but could not be found");
        /* a map entry length of 11 bytes */
        feats.n = ex.n = 0;
        w_byte(&feats, 0x0A);
        for (i = 0; i < 10; i++)
            w_byte(&feats, 0x80);
        w_byte(&feats, 0x00);
        w_example(&ex, &feats);
        CHECK(parse(&ex) == FC_ERR_PARSE);
        CHECK_CONTAINS(err.message, "map entry length is not a valid varint");
    }
    /* a map entry with three fields */
    feats.n = ex.n = e.n = 0;
    w_len(&e, 0x0A, "s", 1);
    w_len(&e, 0x12, "", 0);
    w_len(&e, 0x12, "", 0);
    w_len(&feats, 0x0A, e.b, e.n);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "map entry has more than a key and a value");
}

static void test_value_before_key(void)
{
    wbuf feats, ex, e, f;
    static const int64_t v = 42;
    feats.n = ex.n = e.n = f.n = 0;
    base_features(&feats);
    f_int64_packed(&f, &v, 1);
    w_len(&e, 0x12, f.b, f.n);
    w_len(&e, 0x0A, "d", 1);
    w_len(&feats, 0x0A, e.b, e.n);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_OK && msg.d == 42);
}

static void test_varints(void)
{
    wbuf f, ex, list;
    /* an 11-byte varint is refused */
    f.n = list.n = 0;
    w_byte(&list, 0x08);
    {
        int i;
        for (i = 0; i < 10; i++)
            w_byte(&list, 0xFF);
        w_byte(&list, 0x01);
    }
    w_len(&f, 0x1A, list.b, list.n);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: v.  Can't parse serialized Example: Parsing int64_list failed");
    /* 08 ff*9 7f: bits past 64 dropped, -1 (as protobuf and TF) */
    f.n = list.n = 0;
    w_byte(&list, 0x08);
    {
        int i;
        for (i = 0; i < 9; i++)
            w_byte(&list, 0xFF);
        w_byte(&list, 0x7F);
    }
    w_len(&f, 0x1A, list.b, list.n);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK && msg.v_count == 1 && msg.v[0] == -1);
    /* a varint cut by the end of the packed run */
    f.n = list.n = 0;
    {
        unsigned char run[2] = {0x80, 0x80};
        w_len(&list, 0x0A, run, 2);
    }
    w_len(&f, 0x1A, list.b, list.n);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "truncated or over-long varint");
}

/* Every packed-int64 loop this CPU can run (fc_varint_loops_variant), and
 * last the entry points that choose among them: their count. */
static int varint_loops(const fc_varint_loops *out[8])
{
    static const fc_varint_loops chosen = {"fc_int64_run/fc_int64_frames", fc_int64_run,
                                           fc_int64_frames};
    int n = 0;
    while (n < 7 && (out[n] = fc_varint_loops_variant(n)) != NULL)
        n++;
    out[n++] = &chosen;
    return n;
}

/* The packed int64 reader of the generated fast path (fc_int64_run, and
 * each loop it can choose from on this CPU: bytes, words, BMI2's pext)
 * against the plain byte loop: random runs of varints of 1-11 bytes
 * (non-canonical, 9-10 bytes, and too long), sometimes cut short, under
 * random caps; each run in a buffer of exactly its size, so that the
 * sanitizers see any read past either end. */
static void test_fast_int64_run_agrees(void)
{
    const fc_varint_loops *loops[8];
    int round, v, variants = varint_loops(loops);
    CHECK_MSG(variants >= 2, "no loop to choose from");
    for (round = 0; round < 100000; round++) {
        uint8_t tmp[40 * 11];
        int64_t got[48], want[48];
        size_t len = 0, count = (size_t)h_rand() % 40, cap = (size_t)h_rand() % 44, i, k = 0;
        const uint8_t *p, *end;
        uint8_t *run;
        int ok = 1;
        for (i = 0; i < count; i++) {
            unsigned r = (unsigned)h_rand() % 100, bytes, b;
            bytes = r < 30 ? 6 : r < 50 ? 1 + (unsigned)h_rand() % 5
                                : r < 95 ? 7 + (unsigned)h_rand() % 4 : 11;
            for (b = 0; b < bytes; b++)
                tmp[len++] = (uint8_t)((h_rand() & 0x7f) | (b + 1 < bytes ? 0x80 : 0));
        }
        if (len > 0 && h_rand() % 4 == 0)
            len -= 1 + (size_t)h_rand() % (len < 3 ? len : 3);
        run = (uint8_t *)malloc(len > 0 ? len : 1);
        memcpy(run, tmp, len);
        for (p = run, end = run + len; p < end;) {
            uint64_t x;
            if (k == cap || !fc_fast_varint(&p, end, &x)) {
                ok = 0;
                break;
            }
            want[k++] = (int64_t)x;
        }
        for (v = 0; v < variants; v++) {
            size_t n = 0;
            int gok = loops[v]->run(run, len, got, cap, &n);
            CHECK_MSG(gok == ok, "%s, round %d: %zu bytes, cap %zu: got %d, bytes %d", loops[v]->name,
                      round, len, cap, gok, ok);
            if (ok && gok) {
                CHECK_MSG(n == k, "%s, round %d: %zu values, want %zu", loops[v]->name, round, n, k);
                CHECK_MSG(k == 0 || memcmp(got, want, k * sizeof got[0]) == 0,
                          "%s, round %d: values differ", loops[v]->name, round);
            }
        }
        free(run);
    }
}

/* fc_int64_frames and each of its loops against the rule written out here:
 * a frame is taken while 14 bytes remain (its word of varint is read whole)
 * when it is "0x0a n+4 0x1a n+2 0x0a n" and a varint of exactly n bytes,
 * 1 <= n <= 8.  Random lists of such frames with one spoiled at random (a
 * header byte, n of 0 or 9, a stop bit early or late), cut short at random,
 * under random maxima; each list in a buffer of exactly its size. */
static void test_fast_int64_frames_agree(void)
{
    const fc_varint_loops *loops[8];
    int round, v, variants = varint_loops(loops);
    for (round = 0; round < 50000; round++) {
        uint8_t tmp[40 * 16], *buf;
        int64_t want[40], got[40];
        size_t starts[41], count = (size_t)h_rand() % 40, max = (size_t)h_rand() % 42, len = 0,
                           i, k = 0, spoil = (size_t)h_rand() % 48;
        for (i = 0; i < count; i++) {
            size_t n = 1 + (size_t)h_rand() % 8, b;
            uint8_t *f = tmp + len;
            uint64_t x = 0;
            starts[i] = len;
            f[0] = 0x0a;
            f[1] = (uint8_t)(n + 4);
            f[2] = 0x1a;
            f[3] = (uint8_t)(n + 2);
            f[4] = 0x0a;
            f[5] = (uint8_t)n;
            for (b = 0; b < n; b++) {
                uint8_t g = (uint8_t)(h_rand() & 0x7f);
                x |= (uint64_t)g << (7 * b);
                f[6 + b] = (uint8_t)(g | (b + 1 < n ? 0x80 : 0));
            }
            want[i] = (int64_t)x;
            len += 6 + n;
            if (i == spoil) {
                switch (h_rand() % 5) {
                case 0: /* a header byte */
                    f[h_rand() % 6] ^= (uint8_t)(1u << (h_rand() % 8));
                    break;
                case 1: /* a varint longer than 8 bytes, or none */
                    f[5] = (uint8_t)(h_rand() % 2 ? 9 : 0);
                    break;
                case 2: /* a stop bit early (one byte: none) */
                    if (n > 1)
                        f[6 + h_rand() % (n - 1)] &= 0x7f;
                    else
                        f[6] |= 0x80;
                    break;
                case 3: /* stops late */
                    f[6 + n - 1] |= 0x80;
                    break;
                default: /* a different field in the frame */
                    f[2] = 0x12;
                    break;
                }
            }
        }
        starts[count] = len;
        if (len > 0 && h_rand() % 3 == 0)
            len -= 1 + (size_t)h_rand() % (len < 8 ? len : 8);
        buf = (uint8_t *)malloc(len > 0 ? len : 1);
        memcpy(buf, tmp, len);
        /* the rule */
        for (k = 0; k < count && k < max && len - starts[k] >= 14; k++) {
            const uint8_t *f = buf + starts[k];
            size_t n = f[5], b;
            int good = n >= 1 && n <= 8 && f[0] == 0x0a && f[1] == n + 4 && f[2] == 0x1a &&
                       f[3] == n + 2 && f[4] == 0x0a;
            uint64_t x = 0;
            for (b = 0; good && b < n; b++) {
                good = (f[6 + b] >= 0x80) == (b + 1 < n);
                x |= (uint64_t)(f[6 + b] & 0x7f) << (7 * b);
            }
            if (!good)
                break;
            want[k] = (int64_t)x;
        }
        for (v = 0; v < variants; v++) {
            const uint8_t *p = buf;
            size_t got_n = loops[v]->frames(&p, buf + len, got, max);
            CHECK_MSG(got_n == k, "%s, round %d: %zu frames, want %zu", loops[v]->name, round, got_n, k);
            CHECK_MSG(p == buf + starts[k < count ? k : count], "%s, round %d: stopped at %td",
                      loops[v]->name, round, p - buf);
            CHECK_MSG(got_n != k || k == 0 || memcmp(got, want, k * sizeof got[0]) == 0,
                      "%s, round %d: values differ", loops[v]->name, round);
        }
        free(buf);
    }
}

static void test_list_length_overrun(void)
{
    wbuf f, ex;
    static const int64_t v[2] = {1, 2};
    f.n = 0;
    f_int64_packed(&f, v, 2);
    f.b[1] = (unsigned char)(f.b[1] + 3); /* the list claims 3 more bytes */
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "list length overruns the Feature");
    /* a bytes value longer than its list */
    {
        static const char *const one[1] = {"abc"};
        f.n = 0;
        f_bytes(&f, one, 1);
        f.b[3] = 9;
        with_entry(&ex, "vb", &f);
        CHECK(parse(&ex) == FC_ERR_PARSE);
        CHECK_CONTAINS(err.message, "Could not get num elements in bytes_list. value overruns the list (at byte 48)");
    }
}

static void test_unsupported_datatype(void)
{
    wbuf f, ex;
    f.n = 0;
    w_len(&f, 0x22, "", 0); /* field 4: not a list */
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: v.  Unsupported datatype.");
    /* an unconfigured key may hold anything */
    with_entry(&ex, "not_in_spec", &f);
    CHECK(parse(&ex) == FC_OK);
}

static void test_first_kind_and_first_chunk(void)
{
    wbuf f, ex, list;
    static const int64_t a[2] = {1, 2}, b[1] = {9};
    static const float x = 1.0f;
    /* int64_list then float_list in one Feature: TF reads the first */
    f.n = 0;
    f_int64_packed(&f, a, 2);
    f_float_packed(&f, &x, 1);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK && msg.v_count == 2 && msg.v[1] == 2);
    /* two packed runs in one list: TF reads the first run only */
    f.n = list.n = 0;
    {
        wbuf run;
        run.n = 0;
        w_varint(&run, 1);
        w_varint(&run, 2);
        w_len(&list, 0x0A, run.b, run.n);
        run.n = 0;
        w_varint(&run, (uint64_t)b[0]);
        w_len(&list, 0x0A, run.b, run.n);
    }
    w_len(&f, 0x1A, list.b, list.n);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_OK && msg.v_count == 2);
    /* garbage after the first list: featc refuses (TF ignores it) */
    f.n = 0;
    f_int64_packed(&f, a, 2);
    w_byte(&f, 0xFF);
    with_entry(&ex, "v", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "malformed bytes after the list");
}

static void test_packed_float_remainder(void)
{
    wbuf f, ex, list;
    unsigned char run[7] = {0, 0, 0x80, 0x3F, 1, 2, 3};
    f.n = list.n = 0;
    w_len(&list, 0x0A, run, 7);
    w_len(&f, 0x12, list.b, list.n);
    with_entry(&ex, "ab", &f);
    CHECK(parse(&ex) == FC_OK); /* "ab" is not the key: the key is "a/b" */
    with_entry(&ex, "a/b", &f);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Parsing float_list failed. packed run length is not a multiple of 4");
}

static void test_error_precedence(void)
{
    /* two bad features: TF reports the one whose map entry comes last */
    wbuf feats, ex, f;
    static const float x = 1.0f;
    feats.n = ex.n = 0;
    base_features(&feats);
    f.n = 0;
    f_float_packed(&f, &x, 1);
    w_entry(&feats, "v", &f); /* wrong type */
    w_entry(&feats, "d", &f); /* wrong type, later */
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: d.");
    /* missing features are reported after present ones, by key order */
    feats.n = ex.n = 0;
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Feature: f3 (data type: float) is required");
    /* a bad present feature wins over a missing one */
    feats.n = ex.n = 0;
    w_entry(&feats, "v", &f);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Key: v.");
    /* an unsupported first byte on an earlier duplicate is still an error */
    feats.n = ex.n = 0;
    base_features(&feats);
    f.n = 0;
    w_len(&f, 0x22, "", 0);
    w_entry(&feats, "d", &f);
    f.n = 0;
    {
        static const int64_t five = 5;
        f_int64_packed(&f, &five, 1);
    }
    w_entry(&feats, "d", &f);
    w_example(&ex, &feats);
    CHECK(parse(&ex) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Unsupported datatype.");
}

static void test_empty_record(void)
{
    CHECK(sem_t_parse(&msg, "", 0, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "Feature: f3 (data type: float) is required");
    CHECK(sem_t_parse(&msg, NULL, 0, NULL) == FC_ERR_PARSE); /* err may be NULL */
}

static void test_init(void)
{
    sem_t m;
    sem_t_init(&m);
    CHECK(m.d == 7 && m.ab == 0.5f && m.b2[1].size == 1 && m.v_count == 0);
    CHECK(sem_t_desc.nfields == SEM_T_FIELD_COUNT);
    CHECK(strcmp(sem_t_desc.fields[SEM_T_AB].key, "a/b") == 0);
}

int main(void)
{
    RUN(test_minimal_and_defaults);
    RUN(test_packed_and_unpacked);
    RUN(test_tf_vectors);
    RUN(test_last_duplicate_wins);
    RUN(test_empty_last_duplicate_skipped);
    RUN(test_empty_feature);
    RUN(test_empty_list_is_present);
    RUN(test_type_mismatch);
    RUN(test_counts);
    RUN(test_rows);
    RUN(test_varlen_bound);
    RUN(test_unknown_top_level_fields);
    RUN(test_structural_errors);
    RUN(test_value_before_key);
    RUN(test_varints);
    RUN(test_fast_int64_run_agrees);
    RUN(test_fast_int64_frames_agree);
    RUN(test_list_length_overrun);
    RUN(test_unsupported_datatype);
    RUN(test_first_kind_and_first_chunk);
    RUN(test_packed_float_remainder);
    RUN(test_error_precedence);
    RUN(test_empty_record);
    RUN(test_init);
    return harness_report("example");
}
