/* CRC-32C: portable slicing-by-8 and hardware paths chosen at run time.
 * Builds for small targets choose smaller tables instead: -DFC_CRC_SMALL
 * (one 256-entry table, 1 KB instead of 8 KB) or -DFC_CRC_TINY (16
 * entries, 64 bytes); both leave out the hardware paths.
 *
 * The hardware paths run three independent CRC streams over three adjacent
 * blocks (the crc32 instruction has a latency of about three cycles and a
 * throughput of one per cycle, so one stream leaves two thirds of the unit
 * idle), then combine them: crc(A || B) = shift_|B|(crc(A)) ^ crc0(B), where
 * shift_N advances a register over N zero bytes (tables in crc32c_tables.h).
 */
#include "featc/fc_crc32c.h"

#include <string.h>

#include "crc32c_tables.h"

/* The small table builds are for targets without a CRC instruction. */
#if defined(FC_CRC_SMALL) || defined(FC_CRC_TINY)
#ifndef FC_NO_HW_CRC
#define FC_NO_HW_CRC 1
#endif
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(FC_NO_HW_CRC)
#define FC_CRC_X86 1
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && !defined(FC_NO_HW_CRC)
#define FC_CRC_ARM 1
#include <arm_acle.h>
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

static inline uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#if !defined(FC_CRC_SMALL) && !defined(FC_CRC_TINY)
static inline uint64_t load_le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}
#endif

#if defined(FC_CRC_TINY)
/* Half a byte per step through a 16-entry table: 64 bytes of tables. */
uint32_t fc_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint32_t c = ~crc;
    while (len-- > 0) {
        c ^= *p++;
        c = fc_crc32c_nibble[c & 15u] ^ (c >> 4);
        c = fc_crc32c_nibble[c & 15u] ^ (c >> 4);
    }
    return ~c;
}
#elif defined(FC_CRC_SMALL)
/* A byte per step through one 256-entry table: 1 KB of tables. */
uint32_t fc_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint32_t c = ~crc;
    while (len-- > 0)
        c = fc_crc32c_byte[(c ^ *p++) & 0xffu] ^ (c >> 8);
    return ~c;
}
#else
uint32_t fc_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint32_t c = ~crc;
    while (len > 0 && ((uintptr_t)p & 7u) != 0) {
        c = fc_crc32c_slice8[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
        len--;
    }
    while (len >= 8) {
        uint64_t w = load_le64(p) ^ c;
        c = fc_crc32c_slice8[7][w & 0xffu] ^ fc_crc32c_slice8[6][(w >> 8) & 0xffu] ^
            fc_crc32c_slice8[5][(w >> 16) & 0xffu] ^ fc_crc32c_slice8[4][(w >> 24) & 0xffu] ^
            fc_crc32c_slice8[3][(w >> 32) & 0xffu] ^ fc_crc32c_slice8[2][(w >> 40) & 0xffu] ^
            fc_crc32c_slice8[1][(w >> 48) & 0xffu] ^ fc_crc32c_slice8[0][w >> 56];
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        c = fc_crc32c_slice8[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
        len--;
    }
    return ~c;
}
#endif

/* Both CRCs of one TFRecord record (header at h, length bytes of data), with
 * the CRC function given. */
static inline int record_good(uint32_t (*crc)(uint32_t, const void *, size_t),
                              const unsigned char *h, size_t length)
{
    return fc_crc32c_mask(crc(0, h, 8)) == load_le32(h + 8) &&
           fc_crc32c_mask(crc(0, h + 12, length)) == load_le32(h + 12 + length);
}

/* The table path has no latency chain to hide: one record after another. */
static size_t records_portable(const unsigned char *const rec[], const size_t len[], size_t n)
{
    size_t k;
    for (k = 0; k < n; k++)
        if (!record_good(fc_crc32c_portable, rec[k], len[k]))
            return k;
    return n;
}

#if defined(FC_CRC_X86) || defined(FC_CRC_ARM)
static inline uint16_t load_le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t shift_crc(const uint32_t table[4][256], uint32_t c)
{
    return table[0][c & 0xffu] ^ table[1][(c >> 8) & 0xffu] ^ table[2][(c >> 16) & 0xffu] ^
           table[3][c >> 24];
}
#endif

/* Three streams over three adjacent blocks of BLOCK bytes each, combined
 * with the shift table for BLOCK bytes. */
#define FC_CRC_3WAY_BLOCKS(STEP64, BLOCK, SHIFT)                                          \
    while (len >= 3 * (BLOCK)) {                                                         \
        uint32_t c1 = 0, c2 = 0;                                                         \
        const unsigned char *end = p + (BLOCK);                                          \
        do {                                                                             \
            c0 = STEP64(c0, load_le64(p));                                               \
            c1 = STEP64(c1, load_le64(p + (BLOCK)));                                     \
            c2 = STEP64(c2, load_le64(p + 2 * (BLOCK)));                                 \
            p += 8;                                                                      \
        } while (p < end);                                                               \
        c0 = shift_crc(SHIFT, c0) ^ c1;                                                  \
        c0 = shift_crc(SHIFT, c0) ^ c2;                                                  \
        p += 2 * (BLOCK);                                                                \
        len -= 3 * (BLOCK);                                                              \
    }

/* One stream over buf[0, len), 8 bytes at a time, then the last 0-7 bytes in
 * at most three steps (4, 2, 1 bytes) instead of up to seven dependent byte
 * steps.  Updates c, p and len. */
#define FC_CRC_1WAY(I, c, p, len)                                                        \
    do {                                                                                 \
        while ((len) >= 8) {                                                             \
            (c) = I##_STEP64((c), load_le64(p));                                         \
            (p) += 8;                                                                    \
            (len) -= 8;                                                                  \
        }                                                                                \
        if ((len) & 4u) {                                                                \
            (c) = I##_STEP32((c), load_le32(p));                                         \
            (p) += 4;                                                                    \
        }                                                                                \
        if ((len) & 2u) {                                                                \
            (c) = I##_STEP16((c), load_le16(p));                                         \
            (p) += 2;                                                                    \
        }                                                                                \
        if ((len) & 1u)                                                                  \
            (c) = I##_STEP8((c), *(p));                                                  \
    } while (0)

/* The three-stream loop, written once for both instruction sets: long
 * blocks, then short ones, then 64 bytes at a time in two streams of 32
 * (the second one's four steps run beside the first's, and one table shift
 * joins them: 64-byte buffers about 5% faster than one stream, 200-700 bytes
 * about 7-10%), then one stream.  I##_STEP64(c, w) and its 32-,
 * 16- and 8-bit siblings update a 32-bit register c. */
#define FC_CRC_HW_BODY(I)                                                                \
    const unsigned char *p = (const unsigned char *)buf;                                 \
    uint32_t c0 = ~crc;                                                                  \
    while (FC_CRC_ALIGN && len > 0 && ((uintptr_t)p & 7u) != 0) {                       \
        c0 = I##_STEP8(c0, *p);                                                          \
        p++;                                                                             \
        len--;                                                                           \
    }                                                                                    \
    FC_CRC_3WAY_BLOCKS(I##_STEP64, FC_CRC32C_LONG_BLOCK, fc_crc32c_shift_long)         \
    FC_CRC_3WAY_BLOCKS(I##_STEP64, FC_CRC32C_SHORT_BLOCK, fc_crc32c_shift_short)       \
    while (len >= 64) {                                                                  \
        uint32_t c1 = 0;                                                                 \
        c0 = I##_STEP64(c0, load_le64(p));                                               \
        c1 = I##_STEP64(c1, load_le64(p + 32));                                          \
        c0 = I##_STEP64(c0, load_le64(p + 8));                                           \
        c1 = I##_STEP64(c1, load_le64(p + 40));                                          \
        c0 = I##_STEP64(c0, load_le64(p + 16));                                          \
        c1 = I##_STEP64(c1, load_le64(p + 48));                                          \
        c0 = I##_STEP64(c0, load_le64(p + 24));                                          \
        c1 = I##_STEP64(c1, load_le64(p + 56));                                          \
        c0 = shift_crc(fc_crc32c_shift_32, c0) ^ c1;                                     \
        p += 64;                                                                         \
        len -= 64;                                                                       \
    }                                                                                    \
    FC_CRC_1WAY(I, c0, p, len);                                                          \
    return ~c0

/* The plain loop the benchmark measures against: one stream, 8 bytes at a
 * time, then one byte at a time. */
#define FC_CRC_HW_PLAIN_BODY(I)                                                          \
    const unsigned char *p = (const unsigned char *)buf;                                 \
    uint32_t c0 = ~crc;                                                                  \
    for (; len >= 8; len -= 8, p += 8)                                                   \
        c0 = I##_STEP64(c0, load_le64(p));                                               \
    for (; len > 0; len--, p++)                                                          \
        c0 = I##_STEP8(c0, *p);                                                          \
    return ~c0

/* TFRecord records four at a time: the length CRC (one step) and the data
 * CRC of each.  The four records' data is read in lockstep, so that four
 * chains of dependent steps overlap where one chain would wait on each
 * step's latency.  Each record's data is read in whole 8-byte words that end
 * at its end: the first word starts lead = (-length mod 8) bytes early (in
 * the header, which is there) with those bytes cleared, from the register
 * fc_crc32c_lead[lead] that reaches the initial register over them.  No
 * lane then has a tail of 1-7 bytes.  A group holding an empty record, and
 * the last 0-3 records, are checked one at a time; so is a group with a
 * record of BIG bytes or more, where ONE has a faster path than four
 * lanes of crc32 steps (folding on x86). */
#define FC_CRC_LANE(I, X)                                                                \
    size_t lead##X = (0u - len[k + X]) & 7u;                                             \
    const unsigned char *q##X = rec[k + X] + 12 - lead##X;                               \
    size_t e##X = len[k + X] + lead##X;                                                  \
    uint64_t c##X = I##_STEP64W(fc_crc32c_lead[lead##X],                                 \
                                load_le64(q##X) & (~(uint64_t)0 << (8u * lead##X)))

#define FC_CRC_LANE_GOOD(I, X)                                                           \
    (fc_crc32c_mask(~I##_STEP64(0xffffffffu, load_le64(rec[k + X]))) ==                  \
         load_le32(rec[k + X] + 8) &&                                                    \
     fc_crc32c_mask(~(uint32_t)c##X) == load_le32(q##X + e##X))

#define FC_CRC_HW_RECORDS_BODY(I, ONE, BIG)                                              \
    size_t k;                                                                            \
    for (k = 0; k + 4 <= n; k += 4) {                                                    \
        size_t j, both;                                                                  \
        if (len[k] == 0 || len[k + 1] == 0 || len[k + 2] == 0 || len[k + 3] == 0)        \
            break;                                                                       \
        if (len[k] >= (BIG) || len[k + 1] >= (BIG) || len[k + 2] >= (BIG) ||             \
            len[k + 3] >= (BIG)) { /* one at a time, each by ONE's fastest path */       \
            for (j = k; j < k + 4; j++)                                                  \
                if (!record_good(ONE, rec[j], len[j]))                                   \
                    return j;                                                            \
            continue;                                                                    \
        }                                                                                \
        {                                                                                \
            FC_CRC_LANE(I, 0);                                                           \
            FC_CRC_LANE(I, 1);                                                           \
            FC_CRC_LANE(I, 2);                                                           \
            FC_CRC_LANE(I, 3);                                                           \
            both = e0 < e1 ? e0 : e1;                                                    \
            both = both < e2 ? both : e2;                                                \
            both = both < e3 ? both : e3;                                                \
            for (j = 8; j < both; j += 8) {                                              \
                c0 = I##_STEP64W(c0, load_le64(q0 + j));                                 \
                c1 = I##_STEP64W(c1, load_le64(q1 + j));                                 \
                c2 = I##_STEP64W(c2, load_le64(q2 + j));                                 \
                c3 = I##_STEP64W(c3, load_le64(q3 + j));                                 \
            }                                                                            \
            for (j = both; j < e0; j += 8)                                               \
                c0 = I##_STEP64W(c0, load_le64(q0 + j));                                 \
            for (j = both; j < e1; j += 8)                                               \
                c1 = I##_STEP64W(c1, load_le64(q1 + j));                                 \
            for (j = both; j < e2; j += 8)                                               \
                c2 = I##_STEP64W(c2, load_le64(q2 + j));                                 \
            for (j = both; j < e3; j += 8)                                               \
                c3 = I##_STEP64W(c3, load_le64(q3 + j));                                 \
            if (!FC_CRC_LANE_GOOD(I, 0))                                                 \
                return k;                                                                \
            if (!FC_CRC_LANE_GOOD(I, 1))                                                 \
                return k + 1;                                                            \
            if (!FC_CRC_LANE_GOOD(I, 2))                                                 \
                return k + 2;                                                            \
            if (!FC_CRC_LANE_GOOD(I, 3))                                                 \
                return k + 3;                                                            \
        }                                                                                \
    }                                                                                    \
    for (; k < n; k++)                                                                   \
        if (!record_good(ONE, rec[k], len[k]))                                           \
            return k;                                                                    \
    return n

#if defined(FC_CRC_X86)
/* x86 loads 8 unaligned bytes at full speed: no byte steps up to alignment
 * (they made a 64-byte record's CRC slower than the one-stream loop). */
#define FC_CRC_ALIGN 0
#define X86_STEP64(c, w) ((uint32_t)_mm_crc32_u64((c), (w)))
/* The same step on a 64-bit register whose top half is zero: no
 * zero-extension between steps. */
#define X86_STEP64W(c, w) (_mm_crc32_u64((c), (w)))
#define X86_STEP32(c, w) (_mm_crc32_u32((c), (w)))
#define X86_STEP16(c, w) (_mm_crc32_u16((c), (w)))
#define X86_STEP8(c, b) (_mm_crc32_u8((c), (b)))

__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const void *buf,
                                                             size_t len)
{
    FC_CRC_HW_BODY(X86);
}

__attribute__((target("sse4.2"))) static uint32_t crc_sse42_1way(uint32_t crc,
                                                                  const void *buf, size_t len)
{
    FC_CRC_HW_PLAIN_BODY(X86);
}

/* ---- Folding by carry-less multiplication, for long buffers.
 *
 * The crc32 instruction takes 8 bytes a cycle at best, however many streams
 * run.  Folding takes the buffer 16 bytes (a 128-bit lane) at a time: a
 * lane's CRC register contribution moves D bytes on by two 64 x 64-bit
 * carry-less products with constants (fc_crc32c_fold, and
 * gen_crc32c_tables.c for why they are right), XORed into the lane D bytes
 * further.  Four accumulators of 16 bytes (PCLMULQDQ) fold 64 bytes a
 * step, eight of 32 bytes (the 256-bit VPCLMULQDQ of AVX2-era CPUs) 256
 * bytes.  At the end they fold into one another, and the crc32 instruction
 * reduces the last 16 bytes (lane_register) and takes the tail: a
 * message's CRC register over its bytes is the same over the folded lane
 * and what follows.  The register ~crc enters XORed into the first 4
 * bytes, as the instruction itself takes it. */
#define FC_CRC_FOLD_MIN 256 /* shorter: the crc32 streams are as fast (measured) */

#define FOLD_TARGET "sse4.2,pclmul"
#define VFOLD_TARGET "sse4.2,pclmul,avx,avx2,vpclmulqdq"

static inline __attribute__((target(FOLD_TARGET))) __m128i fold16(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* The constants {lo, hi} of a folding distance (fc_crc32c_fold[i] or
 * fc_crc32c_fold_gap), in each 128-bit lane. */
static inline __attribute__((target(FOLD_TARGET))) __m128i fold_k16(const uint64_t k[2])
{
    return _mm_set_epi64x((long long)k[1], (long long)k[0]);
}

static inline __attribute__((target(FOLD_TARGET))) __m128i load16(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* The CRC register of a message whose bytes folded into the lane x. */
static inline __attribute__((target(FOLD_TARGET))) uint32_t lane_register(__m128i x)
{
    uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));
    return (uint32_t)_mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(x, 1));
}

__attribute__((target(FOLD_TARGET))) static uint32_t crc_pclmul(uint32_t crc, const void *buf,
                                                                size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    __m128i x0, x1, x2, x3, k;
    if (len < FC_CRC_FOLD_MIN)
        return crc_sse42(crc, buf, len);
    x0 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128((int)~crc));
    x1 = load16(p + 16);
    x2 = load16(p + 32);
    x3 = load16(p + 48);
    p += 64;
    len -= 64;
    k = fold_k16(fc_crc32c_fold[2]); /* 64 bytes on */
    while (len >= 64) {
        x0 = _mm_xor_si128(fold16(x0, k), load16(p));
        x1 = _mm_xor_si128(fold16(x1, k), load16(p + 16));
        x2 = _mm_xor_si128(fold16(x2, k), load16(p + 32));
        x3 = _mm_xor_si128(fold16(x3, k), load16(p + 48));
        p += 64;
        len -= 64;
    }
    k = fold_k16(fc_crc32c_fold[0]); /* 16 bytes on */
    x0 = _mm_xor_si128(fold16(x0, k), x1);
    x0 = _mm_xor_si128(fold16(x0, k), x2);
    x0 = _mm_xor_si128(fold16(x0, k), x3);
    return crc_sse42(~lane_register(x0), p, len);
}

static inline __attribute__((target(VFOLD_TARGET))) __m256i fold32(__m256i x, __m256i k)
{
    return _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
                            _mm256_clmulepi64_epi128(x, k, 0x11));
}

static inline __attribute__((target(VFOLD_TARGET))) __m256i fold_k32(const uint64_t k[2])
{
    return _mm256_set_epi64x((long long)k[1], (long long)k[0], (long long)k[1],
                             (long long)k[0]);
}

static inline __attribute__((target(VFOLD_TARGET))) __m256i load32(const unsigned char *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* The register c moved over the n zero bytes of the constant k (the
 * register of x^(8n-33) mod P, gen_crc32c_tables.c). */
static inline __attribute__((target(FOLD_TARGET))) uint32_t shift_clmul(uint32_t c, uint32_t k)
{
    __m128i m = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c), _mm_cvtsi32_si128((int)k), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(m));
}

/* Eight 32-byte accumulators y0..y7 (named: an array stays in memory),
 * loaded from p, or folded by k and XORed with the next 256 bytes at p. */
#define VFOLD_LOAD(p)                                                                     \
    do {                                                                                  \
        y0 = load32(p);                                                                   \
        y1 = load32((p) + 32);                                                            \
        y2 = load32((p) + 64);                                                            \
        y3 = load32((p) + 96);                                                            \
        y4 = load32((p) + 128);                                                           \
        y5 = load32((p) + 160);                                                           \
        y6 = load32((p) + 192);                                                           \
        y7 = load32((p) + 224);                                                           \
    } while (0)
#define VFOLD_STEP(k, p)                                                                  \
    do {                                                                                  \
        y0 = _mm256_xor_si256(fold32(y0, (k)), load32(p));                                \
        y1 = _mm256_xor_si256(fold32(y1, (k)), load32((p) + 32));                         \
        y2 = _mm256_xor_si256(fold32(y2, (k)), load32((p) + 64));                         \
        y3 = _mm256_xor_si256(fold32(y3, (k)), load32((p) + 96));                         \
        y4 = _mm256_xor_si256(fold32(y4, (k)), load32((p) + 128));                        \
        y5 = _mm256_xor_si256(fold32(y5, (k)), load32((p) + 160));                        \
        y6 = _mm256_xor_si256(fold32(y6, (k)), load32((p) + 192));                        \
        y7 = _mm256_xor_si256(fold32(y7, (k)), load32((p) + 224));                        \
    } while (0)

/* The eight accumulators into one register: that of the message up to the
 * end of the last group folded.  A tree: y0-y3 fold 128 bytes on into
 * y4-y7, then y4-y5 64 bytes on into y6-y7, then y6 32 bytes on into y7
 * (three folds deep, not seven), and y7's low lane 16 bytes on into its
 * high one. */
#define VFOLD_REDUCE(c)                                                                   \
    do {                                                                                  \
        __m256i k_ = fold_k32(fc_crc32c_fold[3]); /* 128 bytes on */                     \
        y4 = _mm256_xor_si256(fold32(y0, k_), y4);                                        \
        y5 = _mm256_xor_si256(fold32(y1, k_), y5);                                        \
        y6 = _mm256_xor_si256(fold32(y2, k_), y6);                                        \
        y7 = _mm256_xor_si256(fold32(y3, k_), y7);                                        \
        k_ = fold_k32(fc_crc32c_fold[2]); /* 64 bytes on */                              \
        y6 = _mm256_xor_si256(fold32(y4, k_), y6);                                        \
        y7 = _mm256_xor_si256(fold32(y5, k_), y7);                                        \
        y7 = _mm256_xor_si256(fold32(y6, fold_k32(fc_crc32c_fold[1])), y7); /* 32 on */  \
        (c) = lane_register(_mm_xor_si128(                                                \
            fold16(_mm256_castsi256_si128(y7), fold_k16(fc_crc32c_fold[0])),              \
            _mm256_extracti128_si256(y7, 1)));                                            \
    } while (0)

#define HYB_STRETCH (FC_CRC32C_HYB_GROUPS * FC_CRC32C_HYB_STEPS * 8u)
#define HYB_SUPER (FC_CRC32C_HYB_GROUPS * 256u + 3u * HYB_STRETCH)

/* Folding runs on the carry-less multiplier and the crc32 instruction on
 * its own unit: on long buffers both work at once.  Each superblock is
 * HYB_GROUPS groups of 256 bytes, folded, then three stretches of
 * HYB_STRETCH bytes, one per crc32 stream; each group's folding is
 * interleaved with HYB_STEPS steps of each stream.  The accumulators fold
 * over the streams' stretches to the next superblock, each stream's
 * register moves over the rest of the superblock to its next stretch, and
 * at the end the four parts' registers, moved to the end, add up. */
__attribute__((target(VFOLD_TARGET))) static uint32_t crc_vpclmul(uint32_t crc, const void *buf,
                                                                 size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    __m256i y0, y1, y2, y3, y4, y5, y6, y7, k;
    uint64_t c1 = 0, c2 = 0, c3 = 0;
    uint32_t c;
    size_t g, t;
    if (len < FC_CRC_FOLD_MIN)
        return crc_sse42(crc, buf, len);
    VFOLD_LOAD(p);
    y0 = _mm256_xor_si256(y0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)~crc));
    if (len >= HYB_SUPER) {
        const __m256i k256 = fold_k32(fc_crc32c_fold[4]), kgap = fold_k32(fc_crc32c_fold_gap);
        for (;;) {
            const unsigned char *s = p + FC_CRC32C_HYB_GROUPS * 256u;
            for (g = 0; g < FC_CRC32C_HYB_GROUPS; g++) {
                if (g > 0)
                    VFOLD_STEP(k256, p + 256 * g);
                for (t = 0; t < FC_CRC32C_HYB_STEPS; t += 4) { /* STEPS % 4 == 0 */
                    const unsigned char *q = s + 8 * (g * FC_CRC32C_HYB_STEPS + t);
                    c1 = _mm_crc32_u64(c1, load_le64(q));
                    c2 = _mm_crc32_u64(c2, load_le64(q + HYB_STRETCH));
                    c3 = _mm_crc32_u64(c3, load_le64(q + 2 * HYB_STRETCH));
                    c1 = _mm_crc32_u64(c1, load_le64(q + 8));
                    c2 = _mm_crc32_u64(c2, load_le64(q + 8 + HYB_STRETCH));
                    c3 = _mm_crc32_u64(c3, load_le64(q + 8 + 2 * HYB_STRETCH));
                    c1 = _mm_crc32_u64(c1, load_le64(q + 16));
                    c2 = _mm_crc32_u64(c2, load_le64(q + 16 + HYB_STRETCH));
                    c3 = _mm_crc32_u64(c3, load_le64(q + 16 + 2 * HYB_STRETCH));
                    c1 = _mm_crc32_u64(c1, load_le64(q + 24));
                    c2 = _mm_crc32_u64(c2, load_le64(q + 24 + HYB_STRETCH));
                    c3 = _mm_crc32_u64(c3, load_le64(q + 24 + 2 * HYB_STRETCH));
                }
            }
            p += HYB_SUPER;
            len -= HYB_SUPER;
            if (len < HYB_SUPER)
                break;
            VFOLD_STEP(kgap, p);
            c1 = shift_clmul((uint32_t)c1, fc_crc32c_hyb_shift[0]);
            c2 = shift_clmul((uint32_t)c2, fc_crc32c_hyb_shift[0]);
            c3 = shift_clmul((uint32_t)c3, fc_crc32c_hyb_shift[0]);
        }
        /* the end of the last superblock: the folded part's register, and
         * the streams', each moved there */
        VFOLD_REDUCE(c);
        c = shift_clmul(c, fc_crc32c_hyb_shift[3]) ^
            shift_clmul((uint32_t)c1, fc_crc32c_hyb_shift[2]) ^
            shift_clmul((uint32_t)c2, fc_crc32c_hyb_shift[1]) ^ (uint32_t)c3;
        return crc_sse42(~c, p, len);
    }
    p += 256;
    len -= 256;
    k = fold_k32(fc_crc32c_fold[4]); /* 256 bytes on */
    while (len >= 256) {
        VFOLD_STEP(k, p);
        p += 256;
        len -= 256;
    }
    VFOLD_REDUCE(c);
    return crc_sse42(~c, p, len);
}

/* What this CPU can run: 0 none, 1 the crc32 instruction (SSE4.2), 2 and
 * PCLMULQDQ, 3 and the 256-bit VPCLMULQDQ with AVX2. */
static int x86_level(void)
{
    if (!__builtin_cpu_supports("sse4.2"))
        return 0;
    if (!__builtin_cpu_supports("pclmul"))
        return 1;
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("vpclmulqdq"))
        return 2;
    return 3;
}

/* The kernels for long buffers, by level: the crc32 streams, 128-bit and
 * 256-bit folding (each runs the streams below FC_CRC_FOLD_MIN bytes). */
static const fc_crc32c_fn x86_kernels[3] = {crc_sse42, crc_pclmul, crc_vpclmul};
static const char *const x86_names[3] = {"sse4.2", "pclmul", "vpclmulqdq"};

/* Which kernel is fastest is a property of the core, not of its feature
 * bits: 128-bit folding is half the streams' speed on AMD Zen 3 (12.9
 * against 23.8 GB/s at 64 KB) and 1.2x them on an Intel Xeon (15.2 against
 * 12.4).  So the first long buffer times each kernel this CPU runs over
 * the same 8 KB, in turns, 7 rounds, and keeps the fastest by its best
 * round (rdtsc ticks; some 20 microseconds, once per process).  The data's
 * values do not change a kernel's speed: the probe is zeros.  Threads that
 * race here each measure and store an index: any of them is a valid one. */
#define PROBE_BYTES (8u * 1024u) /* past one superblock of the hybrid loop */
#define PROBE_ROUNDS 7

static int long_kernel = -1;

static int choose_long_kernel(void)
{
    static unsigned char probe[PROBE_BYTES];
    uint64_t best[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    volatile uint32_t sink = 0;
    int level = x86_level(), v, r, pick = 0;
    for (r = 0; r < PROBE_ROUNDS; r++)
        for (v = 0; v < level && v < 3; v++) {
            uint64_t t0 = __rdtsc(), t;
            sink ^= x86_kernels[v](0, probe, PROBE_BYTES);
            t = __rdtsc() - t0;
            if (t < best[v])
                best[v] = t;
        }
    for (v = 1; v < level && v < 3; v++)
        if (best[v] < best[pick])
            pick = v;
    (void)sink;
    __atomic_store_n(&long_kernel, pick, __ATOMIC_RELAXED);
    return pick;
}

static int long_kernel_index(void)
{
    int k = __atomic_load_n(&long_kernel, __ATOMIC_RELAXED);
    return k >= 0 ? k : choose_long_kernel();
}

/* The fastest path for a buffer of len bytes (level >= 1). */
static uint32_t crc_x86(uint32_t crc, const void *buf, size_t len)
{
    if (len >= FC_CRC_FOLD_MIN)
        return x86_kernels[long_kernel_index()](crc, buf, len);
    return crc_sse42(crc, buf, len);
}

__attribute__((target("sse4.2"))) static size_t records_sse42(const unsigned char *const rec[],
                                                               const size_t len[], size_t n)
{
    /* four lanes of crc32 steps are as fast as folding a record alone, up
     * to the superblocks of the hybrid loop (when folding is the faster) */
    FC_CRC_HW_RECORDS_BODY(X86, crc_x86, long_kernel_index() > 0 ? HYB_SUPER : SIZE_MAX);
}

int fc_crc32c_hw_available(void)
{
    return x86_level() >= 1;
}

uint32_t fc_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    return crc_x86(crc, buf, len);
}

fc_crc32c_fn fc_crc32c_variant(int i, const char **name)
{
    if (i < 0 || i >= x86_level())
        return NULL;
    if (name != NULL)
        *name = x86_names[i];
    return x86_kernels[i];
}

uint32_t fc_crc32c_hw_1way(uint32_t crc, const void *buf, size_t len)
{
    return crc_sse42_1way(crc, buf, len);
}

uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len)
{
    if (__builtin_cpu_supports("sse4.2"))
        return crc_x86(crc, buf, len);
    return fc_crc32c_portable(crc, buf, len);
}

size_t fc_crc32c_records(const unsigned char *const rec[], const size_t len[], size_t n)
{
    if (__builtin_cpu_supports("sse4.2"))
        return records_sse42(rec, len, n);
    return records_portable(rec, len, n);
}

const char *fc_crc32c_impl(void)
{
    static const char *const impl[3] = {"sse4.2", "sse4.2+pclmul", "sse4.2+vpclmulqdq"};
    return x86_level() >= 1 ? impl[long_kernel_index()] : "portable";
}

#elif defined(FC_CRC_ARM)
#define FC_CRC_ALIGN 1
#define ARM_STEP64(c, w) (__crc32cd((c), (w)))
#define ARM_STEP64W(c, w) ((uint64_t)__crc32cd((uint32_t)(c), (w)))
#define ARM_STEP32(c, w) (__crc32cw((c), (w)))
#define ARM_STEP16(c, w) (__crc32ch((c), (w)))
#define ARM_STEP8(c, b) (__crc32cb((c), (b)))

__attribute__((target("+crc"))) static uint32_t crc_armv8(uint32_t crc, const void *buf,
                                                           size_t len)
{
    FC_CRC_HW_BODY(ARM);
}

__attribute__((target("+crc"))) static uint32_t crc_armv8_1way(uint32_t crc, const void *buf,
                                                                size_t len)
{
    FC_CRC_HW_PLAIN_BODY(ARM);
}

__attribute__((target("+crc"))) static size_t records_armv8(const unsigned char *const rec[],
                                                             const size_t len[], size_t n)
{
    FC_CRC_HW_RECORDS_BODY(ARM, crc_armv8, SIZE_MAX);
}

fc_crc32c_fn fc_crc32c_variant(int i, const char **name)
{
    if (i != 0 || !fc_crc32c_hw_available())
        return NULL;
    if (name != NULL)
        *name = "armv8-crc";
    return crc_armv8;
}

int fc_crc32c_hw_available(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0;
}

uint32_t fc_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    return crc_armv8(crc, buf, len);
}

uint32_t fc_crc32c_hw_1way(uint32_t crc, const void *buf, size_t len)
{
    return crc_armv8_1way(crc, buf, len);
}

uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len)
{
    if (fc_crc32c_hw_available())
        return crc_armv8(crc, buf, len);
    return fc_crc32c_portable(crc, buf, len);
}

size_t fc_crc32c_records(const unsigned char *const rec[], const size_t len[], size_t n)
{
    if (fc_crc32c_hw_available())
        return records_armv8(rec, len, n);
    return records_portable(rec, len, n);
}

const char *fc_crc32c_impl(void)
{
    return fc_crc32c_hw_available() ? "armv8-crc" : "portable";
}

#else
int fc_crc32c_hw_available(void)
{
    return 0;
}

uint32_t fc_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    return fc_crc32c_portable(crc, buf, len);
}

uint32_t fc_crc32c_hw_1way(uint32_t crc, const void *buf, size_t len)
{
    return fc_crc32c_portable(crc, buf, len);
}

fc_crc32c_fn fc_crc32c_variant(int i, const char **name)
{
    (void)i;
    (void)name;
    return NULL;
}

uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len)
{
    return fc_crc32c_portable(crc, buf, len);
}

size_t fc_crc32c_records(const unsigned char *const rec[], const size_t len[], size_t n)
{
    return records_portable(rec, len, n);
}

const char *fc_crc32c_impl(void)
{
    return "portable";
}
#endif
