/* CRC-32C: portable slicing-by-8 and hardware paths chosen at run time.
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

static inline uint64_t load_le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

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

#if defined(FC_CRC_X86) || defined(FC_CRC_ARM)
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

/* One stream, 8 bytes at a time, then the last bytes; returns the CRC. */
#define FC_CRC_1WAY_TAIL(STEP64, STEP8)                                                  \
    while (len >= 8) {                                                                   \
        c0 = STEP64(c0, load_le64(p));                                                   \
        p += 8;                                                                          \
        len -= 8;                                                                        \
    }                                                                                    \
    while (len > 0) {                                                                    \
        c0 = STEP8(c0, *p);                                                              \
        p++;                                                                             \
        len--;                                                                           \
    }                                                                                    \
    return ~c0

/* The three-stream loop, written once for both instruction sets: long
 * blocks, then short ones, then one stream.  STEP64(c, w) and STEP8(c, b)
 * update a 32-bit register c. */
#define FC_CRC_HW_BODY(STEP64, STEP8)                                                    \
    const unsigned char *p = (const unsigned char *)buf;                                 \
    uint32_t c0 = ~crc;                                                                  \
    while (FC_CRC_ALIGN && len > 0 && ((uintptr_t)p & 7u) != 0) {                       \
        c0 = STEP8(c0, *p);                                                              \
        p++;                                                                             \
        len--;                                                                           \
    }                                                                                    \
    FC_CRC_3WAY_BLOCKS(STEP64, FC_CRC32C_LONG_BLOCK, fc_crc32c_shift_long)             \
    FC_CRC_3WAY_BLOCKS(STEP64, FC_CRC32C_SHORT_BLOCK, fc_crc32c_shift_short)           \
    FC_CRC_1WAY_TAIL(STEP64, STEP8)

#define FC_CRC_HW_1WAY_BODY(STEP64, STEP8)                                               \
    const unsigned char *p = (const unsigned char *)buf;                                 \
    uint32_t c0 = ~crc;                                                                  \
    FC_CRC_1WAY_TAIL(STEP64, STEP8)

#if defined(FC_CRC_X86)
/* x86 loads 8 unaligned bytes at full speed: no byte steps up to alignment
 * (they made a 64-byte record's CRC slower than the one-stream loop). */
#define FC_CRC_ALIGN 0
#define X86_STEP64(c, w) ((uint32_t)_mm_crc32_u64((c), (w)))
#define X86_STEP8(c, b) (_mm_crc32_u8((c), (b)))

__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const void *buf,
                                                             size_t len)
{
    FC_CRC_HW_BODY(X86_STEP64, X86_STEP8);
}

__attribute__((target("sse4.2"))) static uint32_t crc_sse42_1way(uint32_t crc,
                                                                  const void *buf, size_t len)
{
    FC_CRC_HW_1WAY_BODY(X86_STEP64, X86_STEP8);
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

const char *fc_crc32c_impl(void)
{
    return fc_crc32c_hw_available() ? "sse4.2" : "portable";
}

#elif defined(FC_CRC_ARM)
#define FC_CRC_ALIGN 1
#define ARM_STEP64(c, w) (__crc32cd((c), (w)))
#define ARM_STEP8(c, b) (__crc32cb((c), (b)))

__attribute__((target("+crc"))) static uint32_t crc_armv8(uint32_t crc, const void *buf,
                                                           size_t len)
{
    FC_CRC_HW_BODY(ARM_STEP64, ARM_STEP8);
}

__attribute__((target("+crc"))) static uint32_t crc_armv8_1way(uint32_t crc, const void *buf,
                                                                size_t len)
{
    FC_CRC_HW_1WAY_BODY(ARM_STEP64, ARM_STEP8);
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

const char *fc_crc32c_impl(void)
{
    return "portable";
}
#endif
