/* Generates runtime/core/crc32c_tables.h: the slicing-by-8 tables of CRC-32C
 * (Castagnoli, reflected polynomial 0x82F63B78), the single tables of the
 * small builds (FC_CRC_SMALL: 256 entries, a byte per step; FC_CRC_TINY: 16
 * entries, half a byte per step), and the "shift" tables used to
 * combine the three interleaved hardware streams (and the two streams of a
 * 64-byte step), the lead-in registers
 * for reading a buffer in whole words that end at its end, and the
 * constants of carry-less multiplication folding.
 *
 * shift_N(c) is the CRC register reached from register c after N zero bytes.
 * It is linear in c over GF(2), so it is tabulated per byte of c:
 *   shift_N(c) = S[0][c & 0xff] ^ S[1][(c >> 8) & 0xff] ^ S[2][...] ^ S[3][c >> 24]
 *
 * Usage: gen_crc32c_tables > crc32c_tables.h   (the output is committed; the
 * test suite regenerates it and compares.)
 */
#include <stdint.h>
#include <stdio.h>

#define POLY 0x82F63B78u
/* Block sizes of the three-stream hardware loop; crc32c.c uses the same.
 * 2048 rather than 8192: records of 6-24 KB then take the long blocks too
 * (6.8 KB: 21 -> 25 GB/s here), and at 64 KB and more the two extra table
 * lookups per 6 KB are lost in the noise. */
#define LONG_BLOCK 2048u
#define SHORT_BLOCK 256u
/* The hybrid loop of crc32c.c (VPCLMULQDQ folding beside three crc32
 * streams): superblocks of HYB_GROUPS groups of 256 bytes folded, then
 * three stretches of HYB_GROUPS x HYB_STEPS x 8 bytes, one per stream. */
#ifndef HYB_GROUPS
#define HYB_GROUPS 16u
#endif
#ifndef HYB_STEPS
#define HYB_STEPS 8u
#endif
#define HYB_STRETCH (HYB_GROUPS * HYB_STEPS * 8u)
#define HYB_SUPER (HYB_GROUPS * 256u + 3u * HYB_STRETCH)

static uint32_t slice[8][256];

/* One zero byte through the register, bit by bit. */
static uint32_t zero_byte(uint32_t c)
{
    int k;
    for (k = 0; k < 8; k++)
        c = (c & 1u) ? (c >> 1) ^ POLY : c >> 1;
    return c;
}

/* The register that one zero byte takes to c: zero_byte run backwards.
 * POLY has its top bit set and c >> 1 has not, so that bit of c tells
 * whether POLY was added. */
static uint32_t unzero_byte(uint32_t c)
{
    int k;
    for (k = 0; k < 8; k++)
        c = (c & 0x80000000u) ? ((c ^ POLY) << 1) | 1u : c << 1;
    return c;
}

/* The register after n zero bytes from c, by repeated squaring of the
 * one-byte operator represented as a 32x32 GF(2) matrix. */
static uint32_t mat_times(const uint32_t *mat, uint32_t vec)
{
    uint32_t sum = 0;
    int i = 0;
    while (vec != 0) {
        if (vec & 1u)
            sum ^= mat[i];
        vec >>= 1;
        i++;
    }
    return sum;
}

static void shift_operator(uint32_t n, uint32_t out[32])
{
    uint32_t op[32], sq[32], tmp[32];
    int i;
    /* op = identity; sq = one zero byte */
    for (i = 0; i < 32; i++) {
        op[i] = 1u << i;
        sq[i] = zero_byte(1u << i);
    }
    while (n != 0) {
        if (n & 1u) {
            for (i = 0; i < 32; i++)
                tmp[i] = mat_times(sq, op[i]);
            for (i = 0; i < 32; i++)
                op[i] = tmp[i];
        }
        for (i = 0; i < 32; i++)
            tmp[i] = mat_times(sq, sq[i]);
        for (i = 0; i < 32; i++)
            sq[i] = tmp[i];
        n >>= 1;
    }
    for (i = 0; i < 32; i++)
        out[i] = op[i];
}

/* x^e mod P as a register: bit 31 is x^0, and each zero bit through the
 * register multiplies by x. */
static uint32_t xpow_mod(unsigned e)
{
    uint32_t c = 0x80000000u;
    while (e-- > 0)
        c = (c & 1u) ? (c >> 1) ^ POLY : c >> 1;
    return c;
}

/* The folding constants that move 16 bytes D bytes further on.  A 16-byte
 * chunk, read little-endian into two 64-bit halves, is the message bits
 * 0-63 (x^127..x^64 of the chunk) and 64-127 (x^63..x^0).  Moving it 8D
 * bits on multiplies it by x^(8D); modulo P that is
 *     lo x (x^(63+8D) mod P) x x^64  +  hi x (x^(8D-1) mod P) x x^64,
 * which a 64 x 64-bit carry-less product of each half with the constant
 * below computes in the same bit order (the constant's register in the top
 * half: the product's bit i+j is the sum of the halves' bits i and j). */
static void print_fold(uint32_t d)
{
    printf("    {0x%08x00000000u, 0x%08x00000000u}, /* %u bytes */\n", xpow_mod(63 + 8 * d),
           xpow_mod(8 * d - 1), d);
}

static void print_table(const char *name, const uint32_t *t, int n)
{
    int i;
    printf("    { /* %s */\n", name);
    for (i = 0; i < n; i++) {
        if (i % 6 == 0)
            printf("        ");
        printf("0x%08xu,", t[i]);
        printf((i % 6 == 5 || i == n - 1) ? "\n" : " ");
    }
    printf("    },\n");
}

static void print_shift(const char *cname, uint32_t n)
{
    uint32_t op[32];
    uint32_t t[4][256];
    int b, v;
    char label[32];
    shift_operator(n, op);
    for (b = 0; b < 4; b++)
        for (v = 0; v < 256; v++)
            t[b][v] = mat_times(op, (uint32_t)v << (8 * b));
    printf("static const uint32_t %s[4][256] = {\n", cname);
    for (b = 0; b < 4; b++) {
        snprintf(label, sizeof label, "byte %d", b);
        print_table(label, t[b], 256);
    }
    printf("};\n\n");
}

int main(void)
{
    int k, n;
    char label[32];
    for (n = 0; n < 256; n++)
        slice[0][n] = zero_byte((uint32_t)n);
    for (k = 1; k < 8; k++)
        for (n = 0; n < 256; n++)
            slice[k][n] = (slice[k - 1][n] >> 8) ^ slice[0][slice[k - 1][n] & 0xffu];

    printf("/* Generated by runtime/gen/gen_crc32c_tables.c; do not edit. */\n");
    printf("#ifndef FEATC_CRC32C_TABLES_H\n#define FEATC_CRC32C_TABLES_H\n\n");
    printf("#define FC_CRC32C_LONG_BLOCK %uu\n", LONG_BLOCK);
    printf("#define FC_CRC32C_SHORT_BLOCK %uu\n\n", SHORT_BLOCK);
    printf("static const uint32_t fc_crc32c_slice8[8][256] = {\n");
    for (k = 0; k < 8; k++) {
        snprintf(label, sizeof label, "slice %d", k);
        print_table(label, slice[k], 256);
    }
    printf("};\n\n");
    /* The table of FC_CRC_SMALL: slice 0 alone, as an object of its own,
     * so that the build does not keep the other seven. */
    printf("static const uint32_t fc_crc32c_byte[256] = {\n");
    for (n = 0; n < 256; n++)
        printf("%s0x%08xu,%s", n % 6 == 0 ? "    " : " ", slice[0][n],
               (n % 6 == 5 || n == 255) ? "\n" : "");
    printf("};\n\n");
    /* nibble[n]: four zero bits through register n, for FC_CRC_TINY. */
    printf("static const uint32_t fc_crc32c_nibble[16] = {\n");
    for (n = 0; n < 16; n++) {
        uint32_t c = (uint32_t)n;
        for (k = 0; k < 4; k++)
            c = (c & 1u) ? (c >> 1) ^ POLY : c >> 1;
        printf("%s0x%08xu,%s", n % 4 == 0 ? "    " : " ", c, n % 4 == 3 ? "\n" : "");
    }
    printf("};\n\n");
    print_shift("fc_crc32c_shift_long", LONG_BLOCK);
    print_shift("fc_crc32c_shift_short", SHORT_BLOCK);
    print_shift("fc_crc32c_shift_32", 32);
    /* lead[k]: the register from which k zero bytes reach the initial
     * register 0xffffffff.  A buffer whose length is not a multiple of 8 is
     * then read in whole 8-byte words ending at its end: the first word
     * starts k bytes early, with those k bytes cleared, from lead[k]. */
    printf("static const uint32_t fc_crc32c_lead[8] = {\n");
    for (k = 0; k < 8; k++) {
        uint32_t c = 0xffffffffu, back;
        for (n = 0; n < k; n++)
            c = unzero_byte(c);
        for (back = c, n = 0; n < k; n++)
            back = zero_byte(back);
        if (back != 0xffffffffu)
            return 1;
        printf("%s0x%08xu,%s", k % 4 == 0 ? "    " : " ", c, k % 4 == 3 ? "\n" : "");
    }
    printf("};\n\n");
    /* fold[k]: {lo, hi} for 16 x 2^k bytes, k = 0..4 (16 to 256 bytes):
     * the distances of the folding loops and of their reductions. */
    printf("static const uint64_t fc_crc32c_fold[5][2] = {\n");
    for (k = 0; k < 5; k++)
        print_fold(16u << k);
    printf("};\n\n");
    /* The hybrid loop: the folding distance from a superblock's last group
     * to the next one's first, and the registers x^(8n-33) mod P that move
     * a crc32 register over n zero bytes (one carry-less product, then the
     * crc32 instruction from 0 over its low 64 bits): from one stream's
     * stretch to the same stream's next one, and from the end of the folded
     * part or of stream 1 or 2 to the end of the superblock. */
    printf("#define FC_CRC32C_HYB_GROUPS %uu\n", HYB_GROUPS);
    printf("#define FC_CRC32C_HYB_STEPS %uu\n", HYB_STEPS);
    printf("static const uint64_t fc_crc32c_fold_gap[2] = {0x%08x00000000u, 0x%08x00000000u};\n",
           xpow_mod(63 + 8 * (256u + 3u * HYB_STRETCH)), xpow_mod(8 * (256u + 3u * HYB_STRETCH) - 1));
    printf("static const uint32_t fc_crc32c_hyb_shift[4] = {\n");
    printf("    0x%08xu, /* %u bytes: a stream's next stretch */\n",
           xpow_mod(8 * (HYB_SUPER - HYB_STRETCH) - 33), HYB_SUPER - HYB_STRETCH);
    for (k = 1; k <= 3; k++)
        printf("    0x%08xu, /* %u bytes */\n", xpow_mod(8 * (unsigned)k * HYB_STRETCH - 33),
               (unsigned)k * HYB_STRETCH);
    printf("};\n\n");
    printf("#endif /* FEATC_CRC32C_TABLES_H */\n");
    return 0;
}
