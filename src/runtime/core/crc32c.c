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
#include <nmmintrin.h>
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
 * the last 0-3 records, are checked one at a time. */
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

#define FC_CRC_HW_RECORDS_BODY(I, ONE)                                                   \
    size_t k;                                                                            \
    for (k = 0; k + 4 <= n; k += 4) {                                                    \
        size_t j, both;                                                                  \
        if (len[k] == 0 || len[k + 1] == 0 || len[k + 2] == 0 || len[k + 3] == 0)        \
            break;                                                                       \
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

__attribute__((target("sse4.2"))) static size_t records_sse42(const unsigned char *const rec[],
                                                               const size_t len[], size_t n)
{
    FC_CRC_HW_RECORDS_BODY(X86, crc_sse42);
}

int fc_crc32c_hw_available(void)
{
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

uint32_t fc_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    return crc_sse42(crc, buf, len);
}

uint32_t fc_crc32c_hw_1way(uint32_t crc, const void *buf, size_t len)
{
    return crc_sse42_1way(crc, buf, len);
}

uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len)
{
    if (__builtin_cpu_supports("sse4.2"))
        return crc_sse42(crc, buf, len);
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
    return fc_crc32c_hw_available() ? "sse4.2" : "portable";
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
    FC_CRC_HW_RECORDS_BODY(ARM, crc_armv8);
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
