/* The hosted runtime's one float printer (fc_float_shortest, fc_json_float),
 * shared by the JSON driver, featc cat --json and featc cat's text format:
 * pinned spellings, and the round trip of float32 bit patterns.  And the
 * core's integer pieces of messages (fc_msg_u64, fc_msg_i64), which print
 * without 64-bit division, against printf.  And keys as text: the UTF-8
 * validator, keys in messages (fc_msg_mem) and in JSON (fc_json_string). */
#include <inttypes.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_json.h>

#include "float_reference.h"
#include "harness.h"

/* fc_json_float's output for v, through a memory stream. */
static const char *json_of(float v)
{
    static char out[64];
    FILE *f = fmemopen(out, sizeof out, "w");
    memset(out, 0, sizeof out);
    if (f == NULL)
        return "";
    fc_json_float(f, v);
    fclose(f);
    return out;
}

static float float_of_bits(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static uint32_t bits_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static void test_spellings(void)
{
    static const struct {
        float v;
        const char *shortest, *json;
    } cases[] = {
        {0.0f, "0", "0"},
        {1.0f, "1", "1"},
        {100.0f, "100", "100"},          /* not 1e+02 */
        {0.1f, "0.1", "0.1"},            /* not 0.100000001 */
        {-2.5f, "-2.5", "-2.5"},
        {1e8f, "1e+08", "1e+08"},
        {16777216.0f, "16777216", "16777216"},
        {3.14159274f, "3.1415927", "3.1415927"},     /* 8 digits suffice */
        {FLT_MAX, "3.4028235e+38", "3.4028235e+38"},
        {FLT_MIN, "1.1754944e-38", "1.1754944e-38"},
        {1.40129846e-45f, "1.4013e-45", "1.4013e-45"}, /* the smallest subnormal */
    };
    char buf[FC_FLOAT_CHARS];
    size_t i, n;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        n = fc_float_shortest(buf, cases[i].v);
        CHECK_MSG(strcmp(buf, cases[i].shortest) == 0 && n == strlen(buf), "%s vs %s", buf,
                  cases[i].shortest);
        CHECK_MSG(strcmp(json_of(cases[i].v), cases[i].json) == 0, "%s vs %s",
                  json_of(cases[i].v), cases[i].json);
    }
    /* what JSON has no numbers for, and the sign of zero */
    CHECK(strcmp(json_of(-0.0f), "-0.0") == 0);
    CHECK(strcmp(json_of(NAN), "\"nan\"") == 0);
    CHECK(strcmp(json_of(INFINITY), "\"inf\"") == 0);
    CHECK(strcmp(json_of(-INFINITY), "\"-inf\"") == 0);
    n = fc_float_shortest(buf, -0.0f);
    CHECK(strcmp(buf, "-0") == 0 && n == 2);
    n = fc_float_shortest(buf, -INFINITY);
    CHECK(strcmp(buf, "-inf") == 0 && n == 4);
}

/* Every finite bit pattern tried reads back to itself, and no shorter
 * %g precision would have. */
static void test_round_trip(void)
{
    char buf[FC_FLOAT_CHARS], shorter[FC_FLOAT_CHARS];
    unsigned k;
    for (k = 0; k < 200000; k++) {
        uint32_t u = (uint32_t)(h_rand() >> 32);
        float v = float_of_bits(u), back;
        int prec;
        if (!isfinite(v))
            continue;
        fc_float_shortest(buf, v);
        back = strtof(buf, NULL);
        CHECK_MSG(bits_of(back) == u || (v == 0 && back == 0 && signbit(back) == signbit(v)),
                  "0x%08x printed %s", (unsigned)u, buf);
        for (prec = 6; prec < 9; prec++) {
            snprintf(shorter, sizeof shorter, "%.*g", prec, (double)v);
            if (strtof(shorter, NULL) == v) {
                CHECK_MSG(strlen(buf) <= strlen(shorter), "0x%08x: %s, but %s reads back",
                          (unsigned)u, buf, shorter);
                break;
            }
        }
    }
}

static unsigned long g_compared;

static void same_as_reference(float v)
{
    char got[FC_FLOAT_CHARS], want[FC_FLOAT_CHARS];
    size_t n = fc_float_shortest(got, v), m = reference_shortest(want, v);
    g_compared++;
    CHECK_MSG(n == m && strcmp(got, want) == 0, "0x%08x: %s, printf and strtof give %s",
              (unsigned)bits_of(v), got, want);
    n = fc_float_point_chars(got, v);
    m = reference_add_point(want, m);
    CHECK_MSG(n == m && strcmp(got, want) == 0, "0x%08x: %s with a point, expected %s",
              (unsigned)bits_of(v), got, want);
}

/* fc_float_shortest against the printf/strtof loop, byte for byte, where
 * the exact digits matter most: random bit patterns, both ends of every
 * binade, subnormals, integers and halves whose digits end on a tie at 6
 * to 8 digits, and the floats nearest each power of ten and its
 * neighbours. */
static void test_against_printf(void)
{
    unsigned k, b;
    int e;
    for (k = 0; k < 100000; k++)
        same_as_reference(float_of_bits((uint32_t)(h_rand() >> 32)));
    for (b = 0; b < 255; b++) {
        static const uint32_t ends[] = {0, 1, 2, 3, 0x400000, 0x7ffffd, 0x7ffffe, 0x7fffff};
        for (k = 0; k < sizeof ends / sizeof ends[0]; k++) {
            same_as_reference(float_of_bits(b << 23 | ends[k]));
            same_as_reference(float_of_bits(0x80000000u | b << 23 | ends[k]));
        }
    }
    for (k = 1; k < 5000; k++) /* the smallest subnormals, then a sample */
        same_as_reference(float_of_bits(k));
    for (k = 5000; k < 0x800000; k += 997)
        same_as_reference(float_of_bits(k));
    for (k = 1000005; k < 16777216; k += 211) /* ...5: a tie at 6 digits */
        same_as_reference((float)k);
    for (k = 1000000; k < 8388608; k += 113) /* ...5 after the point: a tie at 7 */
        same_as_reference((float)k + 0.5f);
    for (k = 10000000; k < 16777216; k += 157) /* 8 digits: ties at 6 and 7 */
        same_as_reference((float)k);
    for (e = -46; e <= 39; e++) {
        char dec[32];
        float v;
        int d;
        for (d = 1; d <= 9; d++) {
            snprintf(dec, sizeof dec, "%de%d", d, e);
            v = strtof(dec, NULL);
            same_as_reference(v);
            same_as_reference(nextafterf(v, 0));
            same_as_reference(nextafterf(v, INFINITY));
            snprintf(dec, sizeof dec, "%d.5e%d", d, e);
            same_as_reference(strtof(dec, NULL));
            snprintf(dec, sizeof dec, "%d.0000005e%d", d, e);
            same_as_reference(strtof(dec, NULL));
        }
    }
    CHECK_MSG(g_compared > 250000, "only %lu floats compared", g_compared);
}

static void check_u64(uint64_t v)
{
    char buf[64], want[64];
    fc_msg m;
    fc_msg_init(&m, buf, sizeof buf);
    fc_msg_u64(&m, v);
    snprintf(want, sizeof want, "%" PRIu64, v);
    CHECK_MSG(strcmp(buf, want) == 0, "fc_msg_u64 gives %s for %s", buf, want);
}

static void check_i64(int64_t v)
{
    char buf[64], want[64];
    size_t n;
    fc_msg m;
    fc_msg_init(&m, buf, sizeof buf);
    fc_msg_i64(&m, v);
    snprintf(want, sizeof want, "%" PRId64, v);
    CHECK_MSG(strcmp(buf, want) == 0, "fc_msg_i64 gives %s for %s", buf, want);
    memset(buf, '#', sizeof buf); /* not what fc_msg_i64 left */
    n = fc_int64_chars(buf, v);
    CHECK_MSG(n == strlen(want) && memcmp(buf, want, n) == 0,
              "fc_int64_chars gives %.*s for %s", (int)n, buf, want);
}

static void test_integers(void)
{
    static const uint64_t edges[] = {
        0, 1, 9, 10, 99, 100, UINT32_MAX - 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
        UINT64_C(9999999999), UINT64_C(10000000000), UINT64_C(999999999999999999),
        UINT64_C(1000000000000000000), UINT64_C(9999999999999999999),
        UINT64_C(10000000000000000000), UINT64_MAX - 1, UINT64_MAX};
    size_t i;
    int k;
    for (i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_u64(edges[i]);
        check_i64((int64_t)edges[i]);
    }
    check_i64(INT64_MIN);
    check_i64(INT64_MAX);
    for (k = 0; k < 100000; k++) {
        uint64_t v = (uint64_t)h_rand() >> (k % 64);
        check_u64(v);
        check_i64((int64_t)v);
    }
}

/* fc_json_string(utf8 = 1)'s output for n bytes of s. */
static const char *json_text(const char *s, size_t n)
{
    static char buf[256];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    if (f == NULL)
        return "";
    fc_json_string(f, s, n, 1);
    fclose(f);
    return buf;
}

static void test_utf8(void)
{
    static const struct {
        const char *s;
        size_t n, want;
    } seqs[] = {
        {"a", 1, 1},
        {"\xc3\xa9", 2, 2},                 /* U+00E9 */
        {"\xe6\x97\xa5", 3, 3},             /* U+65E5 */
        {"\xf0\x9f\x98\x80", 4, 4},         /* U+1F600 */
        {"\xf4\x8f\xbf\xbf", 4, 4},         /* U+10FFFF, the last */
        {"\xc3", 1, 0},                     /* cut short */
        {"\xe6\x97", 2, 0},
        {"\xc0\x80", 2, 0},                 /* overlong NUL */
        {"\xe0\x9f\xbf", 3, 0},             /* overlong U+07FF */
        {"\xf0\x8f\xbf\xbf", 4, 0},         /* overlong U+FFFF */
        {"\xed\xa0\x80", 3, 0},             /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", 4, 0},         /* past U+10FFFF */
        {"\x80", 1, 0},                     /* a continuation byte */
        {"\xff", 1, 0},
        {"\xc3\x28", 2, 0},                 /* a lead byte without its continuation */
    };
    char buf[16], wide[64];
    fc_msg m;
    size_t k;
    for (k = 0; k < sizeof seqs / sizeof seqs[0]; k++)
        CHECK(fc_utf8_seq(seqs[k].s, seqs[k].n) == seqs[k].want);
    CHECK(fc_utf8_seq("", 0) == 0);
    /* messages: keys as text, the rest as \xNN */
    fc_msg_init(&m, wide, sizeof wide);
    fc_msg_mem(&m, "\xc3\xa9t\xff\\\n", 6);
    CHECK(strcmp(wide, "\xc3\xa9t\\xff\\x5c\\x0a") == 0);
    /* a cut never splits a character: 11 bytes fit before the "..." */
    fc_msg_init(&m, buf, sizeof buf);
    fc_msg_str(&m, "abcdefghij");
    fc_msg_mem(&m, "\xe6\x97\xa5", 3);
    CHECK(strcmp(buf, "abcdefghij...") == 0 && m.cut);
    fc_msg_init(&m, buf, sizeof buf);
    fc_msg_str(&m, "abcdefgh");
    fc_msg_mem(&m, "\xe6\x97\xa5", 3);
    CHECK(strcmp(buf, "abcdefgh\xe6\x97\xa5") == 0 && !m.cut);
    /* JSON: UTF-8 as it is, other bytes as lone surrogates, controls escaped */
    CHECK(strcmp(json_text("\xc3\xa9\xff\x01\"", 5), "\"\xc3\xa9\\udcff\\u0001\\\"\"") == 0);
    CHECK(strcmp(json_text("\xed\xa0\x80", 3), "\"\\udced\\udca0\\udc80\"") == 0);
    /* bytes values keep one code point per byte */
    {
        FILE *f = fmemopen(buf, sizeof buf, "w");
        if (f != NULL) {
            fc_json_bytes(f, "\xc3\xa9", 2);
            fclose(f);
            CHECK(strcmp(buf, "\"\\u00c3\\u00a9\"") == 0);
        }
    }
}

int main(void)
{
    RUN(test_utf8);
    RUN(test_integers);
    RUN(test_spellings);
    RUN(test_round_trip);
    RUN(test_against_printf);
    return harness_report("text");
}
