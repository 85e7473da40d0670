/* TensorFlow's hash buckets: FarmHash Fingerprint64 against TensorFlow's
 * test vectors (string_to_hash_bucket_op_test.py) and FarmHash's published
 * Fingerprint64 values, covering every length class (0-16, 17-32, 33-64,
 * longer, and lengths that are not a multiple of 64). */
#include <featc/fc_hash.h>

#include <stdlib.h>

#include "harness.h"

static uint64_t fp_repeat(char c, size_t n)
{
    static char buf[8192];
    memset(buf, c, n);
    return fc_fingerprint64(buf, n);
}

static void test_tensorflow_vectors(void)
{
    /* string_to_hash_bucket_fast(['a', 'b', 'c', 'd'], 10) == [9, 2, 2, 5] */
    CHECK(fc_fingerprint64("a", 1) == UINT64_C(12917804110809363939));
    CHECK(fc_fingerprint64("b", 1) == UINT64_C(11795596070477164822));
    CHECK(fc_fingerprint64("c", 1) == UINT64_C(11430444447143000872));
    CHECK(fc_fingerprint64("d", 1) == UINT64_C(4470636696479570465));
    CHECK(fc_hash_bucket("a", 1, 10) == 9 && fc_hash_bucket("b", 1, 10) == 2);
    CHECK(fc_hash_bucket("c", 1, 10) == 2 && fc_hash_bucket("d", 1, 10) == 5);
    /* one bucket maps everything to 0 */
    CHECK(fc_hash_bucket("a", 1, 1) == 0 && fc_hash_bucket("xyz", 3, 1) == 0);
}

static void test_farmhash_vectors(void)
{
    static const char quick[] = "The quick brown fox jumps over the lazy dog";
    static const char session[] = "session_20b9ed23-cc36-4177-8661-b2a6d4a71c18";
    CHECK(fc_fingerprint64("", 0) == UINT64_C(11160318154034397263));
    CHECK(fc_fingerprint64("hello", 5) == UINT64_C(13009744463427800296));
    CHECK(fc_fingerprint64("hello world", 11) == UINT64_C(6381520714923946011));
    CHECK(fc_fingerprint64("1234567890123456", 16) == UINT64_C(17239105360639788068));
    CHECK(fc_fingerprint64(quick, sizeof quick - 1) == UINT64_C(12375473906752639284));
    CHECK(fc_fingerprint64(session, sizeof session - 1) == UINT64_C(16528987318367749121));
    CHECK(fp_repeat('a', 64) == UINT64_C(5893282057753879417));
    CHECK(fp_repeat('b', 128) == UINT64_C(17638211491968783095));
    CHECK(fp_repeat('c', 256) == UINT64_C(726802415163973935));
    CHECK(fp_repeat('d', 512) == UINT64_C(11981075791954381165));
    CHECK(fp_repeat('e', 1000) == UINT64_C(9485535561285839443));
    CHECK(fp_repeat('f', 2000) == UINT64_C(12587369799272928147));
    CHECK(fp_repeat('g', 5000) == UINT64_C(15389559131033639025));
}

/* Byte patterns s[i] = (i * 31 + n) & 255 of every length class, as Google's
 * C++ FarmHash fingerprints them (tests/unit/farmhash_vectors.cjs). */
static void test_length_classes(void)
{
    static const struct {
        size_t n;
        uint64_t fp;
    } v[] = {
        {0, UINT64_C(11160318154034397263)},    {1, UINT64_C(5161771770385946686)},
        {3, UINT64_C(3881891251826894387)},     {4, UINT64_C(8468049347932461059)},
        {7, UINT64_C(6078383079216981503)},     {8, UINT64_C(9901880615561625405)},
        {15, UINT64_C(13106618912259366839)},   {16, UINT64_C(4545274242216762777)},
        {17, UINT64_C(5390039372907065113)},    {24, UINT64_C(9429245808056857479)},
        {31, UINT64_C(4839693783567692583)},    {32, UINT64_C(8393969894142579479)},
        {33, UINT64_C(2540744553031049424)},    {48, UINT64_C(9326474574319166038)},
        {63, UINT64_C(17617577245107015177)},   {64, UINT64_C(14029730253488668250)},
        {65, UINT64_C(10013784310086586998)},   {96, UINT64_C(325904190217598952)},
        {127, UINT64_C(11486543687349451404)},  {128, UINT64_C(11398955279458834785)},
        {129, UINT64_C(7799955965929995600)},   {200, UINT64_C(1551609336156076505)},
        {255, UINT64_C(4085028810393253957)},   {256, UINT64_C(7145140203327253461)},
        {257, UINT64_C(5905111716467588254)},   {300, UINT64_C(112150958250028146)},
        {1000, UINT64_C(11632869640110837379)},
    };
    static unsigned char b[1000];
    size_t k, i;
    for (k = 0; k < sizeof v / sizeof v[0]; k++) {
        for (i = 0; i < v[k].n; i++)
            b[i] = (unsigned char)((i * 31 + v[k].n) & 255);
        CHECK_MSG(fc_fingerprint64(b, v[k].n) == v[k].fp, "length %zu", v[k].n);
    }
}

/* An int64 is hashed as its decimal text (TF's as_string). */
static void test_int64_as_text(void)
{
    CHECK(fc_hash_bucket_int64(0, 1000) == fc_hash_bucket("0", 1, 1000));
    CHECK(fc_hash_bucket_int64(-17, 1000) == fc_hash_bucket("-17", 3, 1000));
    CHECK(fc_hash_bucket_int64(INT64_MIN, 97) ==
          fc_hash_bucket("-9223372036854775808", 20, 97));
    CHECK(fc_hash_bucket_int64(INT64_MAX, 97) == fc_hash_bucket("9223372036854775807", 19, 97));
}

/* No read outside the input at any length or alignment (ASan). */
static void test_lengths_and_alignment(void)
{
    size_t len, off;
    uint64_t acc = 0;
    for (len = 0; len <= 300; len++)
        for (off = 0; off < 8; off++) {
            unsigned char *p = (unsigned char *)malloc(len + off + 1);
            CHECK(p != NULL);
            if (p == NULL)
                return;
            memset(p, (int)(len * 7 + 1), len + off + 1);
            if (off == 0)
                acc ^= fc_fingerprint64(p, len) + len;
            /* the same bytes at another alignment hash the same */
            CHECK(fc_fingerprint64(p + off, len) == fc_fingerprint64(p + (off ? 0 : 1), len));
            free(p);
        }
    CHECK(acc != 0);
}

int main(void)
{
    RUN(test_tensorflow_vectors);
    RUN(test_farmhash_vectors);
    RUN(test_length_classes);
    RUN(test_int64_as_text);
    RUN(test_lengths_and_alignment);
    return harness_report("hash");
}
