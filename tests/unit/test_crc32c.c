/* CRC-32C: known answers, mask properties, and every implementation
 * agreeing with the portable one on every length and alignment. */
#include <featc/fc.h>

#include "harness.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static void check_value(crc_fn f, const void *p, size_t n, uint32_t want, const char *what)
{
    uint32_t got = f(0, p, n);
    CHECK_MSG(got == want, "%s: got 0x%08x, want 0x%08x", what, got, want);
}

static void known_answers_with(crc_fn f)
{
    unsigned char buf[48];
    int i;
    /* LevelDB's and TensorFlow's test data, RFC 3720 B.4 */
    static const unsigned char iscsi[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    check_value(f, "123456789", 9, 0xe3069283u, "123456789");
    check_value(f, "", 0, 0x00000000u, "empty");
    check_value(f, "foo", 3, 0xcfc4ae1du, "foo");
    memset(buf, 0, 32);
    check_value(f, buf, 32, 0x8a9136aau, "32 x 0x00");
    memset(buf, 0xff, 32);
    check_value(f, buf, 32, 0x62a8ab43u, "32 x 0xff");
    for (i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    check_value(f, buf, 32, 0x46dd794eu, "0..31");
    for (i = 0; i < 32; i++)
        buf[i] = (unsigned char)(31 - i);
    check_value(f, buf, 32, 0x113fdb5cu, "31..0");
    check_value(f, iscsi, 48, 0xd9963a56u, "iSCSI read PDU");
    check_value(f, iscsi, 41, 0xdd1b19beu, "iSCSI PDU, first 41 bytes");
    check_value(f, iscsi + 1, 44, 0x4930c4b1u, "iSCSI PDU, bytes 1..44");
    /* Extend: crc(a || b) == crc(crc(a), b) */
    CHECK(f(f(0, "hello ", 6), "world", 5) == f(0, "hello world", 11));
}

static void test_known_answers_dispatch(void)
{
    known_answers_with(fc_crc32c);
}

static void test_known_answers_portable(void)
{
    known_answers_with(fc_crc32c_portable);
}

static void test_known_answers_hw(void)
{
    if (!fc_crc32c_hw_available()) {
        printf("test_crc32c: no hardware CRC-32C on this CPU; hardware cases run the "
               "portable path\n");
    }
    known_answers_with(fc_crc32c_hw);
    known_answers_with(fc_crc32c_hw_1way);
}

static void test_mask(void)
{
    int i;
    CHECK(fc_crc32c_mask(0) == 0xa282ead8u);
    CHECK(fc_crc32c_mask(0xcfc4ae1du) == 0xfebe8a61u);
    for (i = 0; i < 100000; i++) {
        uint32_t c = (uint32_t)h_rand();
        CHECK(fc_crc32c_unmask(fc_crc32c_mask(c)) == c);
        CHECK(fc_crc32c_mask(c) != c);
        CHECK(fc_crc32c_mask(fc_crc32c_mask(c)) != c);
        CHECK(fc_crc32c_unmask(fc_crc32c_unmask(fc_crc32c_mask(fc_crc32c_mask(c)))) == c);
    }
}

/* Every length 0..4096 at every alignment 0..15: hardware (3-stream and
 * 1-stream) against portable. */
static void test_hw_agrees_every_length_alignment(void)
{
    static unsigned char buf[4096 + 16 + 16];
    size_t len, align;
    h_fill_random(buf, sizeof buf);
    for (align = 0; align < 16; align++) {
        for (len = 0; len <= 4096; len++) {
            uint32_t want = fc_crc32c_portable(0, buf + align, len);
            uint32_t seed = (uint32_t)len * 2654435761u;
            CHECK_MSG(fc_crc32c_hw(0, buf + align, len) == want, "len %zu align %zu", len,
                      align);
            CHECK_MSG(fc_crc32c_hw_1way(0, buf + align, len) == want, "1way len %zu align %zu",
                      len, align);
            CHECK_MSG(fc_crc32c(0, buf + align, len) == want, "dispatch len %zu align %zu",
                      len, align);
            /* a non-zero starting crc too */
            CHECK(fc_crc32c_hw(seed, buf + align, len) == fc_crc32c_portable(seed, buf + align, len));
        }
    }
}

/* Each hardware path this CPU runs (on x86-64: the three crc32 streams,
 * PCLMULQDQ and VPCLMULQDQ folding), whatever fc_crc32c would choose:
 * every length 0..4096 at every alignment 0..15 with two starting
 * registers, lengths around the hybrid loop's superblocks, and long
 * buffers of random lengths, against portable. */
static void test_variants_agree(void)
{
    static unsigned char buf[4096 + 16 + 16], big[(1u << 18) + 16];
    const char *name;
    fc_crc32c_fn f;
    int v, i;
    h_fill_random(buf, sizeof buf);
    h_fill_random(big, sizeof big);
    for (v = 0; (f = fc_crc32c_variant(v, &name)) != NULL; v++) {
        size_t len, align;
        printf("test_crc32c: path %s\n", name);
        for (align = 0; align < 16; align++) {
            for (len = 0; len <= 4096; len++) {
                uint32_t seed = (uint32_t)len * 2654435761u;
                CHECK_MSG(f(0, buf + align, len) == fc_crc32c_portable(0, buf + align, len),
                          "%s: len %zu align %zu", name, len, align);
                CHECK_MSG(f(seed, buf + align, len) ==
                              fc_crc32c_portable(seed, buf + align, len),
                          "%s: len %zu align %zu, register %08x", name, len, align,
                          (unsigned)seed);
            }
        }
        /* around 1-3 superblocks of the hybrid loop (7168 bytes) */
        for (i = 0; i < 3 * 300; i++) {
            size_t n = (size_t)(i / 300 + 1) * 7168u + (size_t)(i % 300) - 150u;
            CHECK_MSG(f(0, big + 3, n) == fc_crc32c_portable(0, big + 3, n), "%s: len %zu", name,
                      n);
        }
        for (i = 0; i < 64; i++) {
            size_t n = (size_t)h_rand() % (1u << 18), at = (size_t)h_rand() % 16;
            CHECK_MSG(f(0, big + at, n) == fc_crc32c_portable(0, big + at, n),
                      "%s: len %zu align %zu", name, n, at);
        }
    }
    CHECK(fc_crc32c_variant(-1, &name) == NULL);
    CHECK(v >= (fc_crc32c_hw_available() ? 1 : 0));
#if defined(__x86_64__)
    {
        /* the runtime's choice is one of the kernels this CPU runs: the
         * crc32 streams alone, or "sse4.2+" one of the folding ones */
        const char *impl = fc_crc32c_impl();
        int found = !fc_crc32c_hw_available() ? strcmp(impl, "portable") == 0
                                              : strcmp(impl, "sse4.2") == 0;
        for (i = 1; !found && fc_crc32c_variant(i, &name) != NULL; i++)
            found = strncmp(impl, "sse4.2+", 7) == 0 && strcmp(impl + 7, name) == 0;
        CHECK_MSG(found, "fc_crc32c_impl() says %s, which is no kernel this CPU runs", impl);
    }
#endif
}

/* Lengths around the block sizes of the 3-stream loop (3 x 2048, 3 x 256)
 * and their multiples. */
static void test_hw_agrees_block_boundaries(void)
{
    static unsigned char buf[3 * 8192 * 3 + 64];
    static const size_t bases[] = {768, 1536, 6144, 6912, 12288, 24576, 49152, 73728};
    size_t b, d, align;
    h_fill_random(buf, sizeof buf);
    for (b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        for (d = 0; d < 17; d++) {
            for (align = 0; align < 16; align += 3) {
                size_t len = bases[b] + d - 8;
                CHECK_MSG(fc_crc32c_hw(0, buf + align, len) ==
                              fc_crc32c_portable(0, buf + align, len),
                          "len %zu align %zu", len, align);
            }
        }
    }
}

/* Runs of framed records, checked four at a time, against the first bad
 * record found one at a time with the portable CRC: every run length 1..40
 * (whole groups of four and leftovers), lengths 0..300 and now and then a
 * long one (some past 7168 bytes, checked alone by folding on x86-64), and
 * one damaged byte (length CRC, data or data CRC) in some record, or none. */
static void test_records_agrees(void)
{
    static unsigned char buf[40 * (9100 + 16) + 8];
    const unsigned char *rec[40];
    size_t len[40];
    int round;
    for (round = 0; round < 20000; round++) {
        size_t n = (size_t)round % 40 + 1, at = (size_t)h_rand() % 8, k, want = n;
        for (k = 0; k < n; k++) {
            static unsigned char data[9100];
            len[k] = (size_t)h_rand() % 301;
            if (h_rand() % 50 == 0)
                len[k] = 768 + (size_t)h_rand() % 1300;
            if (h_rand() % 200 == 0) /* past the folding's superblock: checked alone */
                len[k] = 7000 + (size_t)h_rand() % 2100;
            h_fill_random(data, len[k]);
            rec[k] = buf + at;
            at += fc_record_frame(buf + at, sizeof buf - at, data, len[k]);
        }
        if (round % 3 != 0) {
            size_t bad = (size_t)h_rand() % n, where;
            switch (h_rand() % 3) {
            case 0: where = 8 + (size_t)h_rand() % 4; break;
            case 1: where = len[bad] == 0 ? 8 : 12 + (size_t)h_rand() % len[bad]; break;
            default: where = 12 + len[bad] + (size_t)h_rand() % 4; break;
            }
            ((unsigned char *)(uintptr_t)rec[bad])[where] ^= (unsigned char)(1u << (h_rand() % 8));
        }
        for (k = 0; k < n; k++) {
            const unsigned char *h = rec[k];
            uint32_t lc = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 |
                          (uint32_t)h[11] << 24;
            const unsigned char *t = h + 12 + len[k];
            uint32_t dc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
                          (uint32_t)t[3] << 24;
            if (fc_crc32c_mask(fc_crc32c_portable(0, h, 8)) != lc ||
                fc_crc32c_mask(fc_crc32c_portable(0, h + 12, len[k])) != dc) {
                want = k;
                break;
            }
        }
        CHECK_MSG(fc_crc32c_records(rec, len, n) == want, "round %d: %zu records, want %zu",
                  round, n, want);
        CHECK(round % 3 == 0 ? want == n : want < n);
    }
    CHECK(fc_crc32c_records(rec, len, 0) == 0);
}

static void test_empty_record_framing(void)
{
    /* TensorFlow: an empty record is 000000000000000029039807d8ea82a2 */
    static const unsigned char want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0x29, 0x03, 0x98, 0x07,
                                           0xd8, 0xea, 0x82, 0xa2};
    unsigned char out[16];
    CHECK(fc_record_frame(out, sizeof out, "", 0) == 16);
    CHECK(memcmp(out, want, 16) == 0);
    CHECK(fc_record_frame(out, 15, "", 0) == 0);
}

int main(void)
{
    printf("test_crc32c: implementation %s\n", fc_crc32c_impl());
    RUN(test_known_answers_dispatch);
    RUN(test_known_answers_portable);
    RUN(test_known_answers_hw);
    RUN(test_mask);
    RUN(test_hw_agrees_every_length_alignment);
    RUN(test_variants_agree);
    RUN(test_hw_agrees_block_boundaries);
    RUN(test_records_agrees);
    RUN(test_empty_record_framing);
    return harness_report("crc32c");
}
