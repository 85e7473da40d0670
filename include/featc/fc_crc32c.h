/* CRC-32C (Castagnoli), shaped like zlib's crc32():
 *
 *     uint32_t c = fc_crc32c(0, buf, len);        // whole buffer
 *     c = fc_crc32c(c, more, more_len);            // extend
 *
 * fc_crc32c(0, "123456789", 9) == 0xE3069283.  The hardware path (SSE4.2 on
 * x86-64, with VPCLMULQDQ folding for long buffers where the CPU has it;
 * the CRC32 extension on ARMv8) is chosen at run time; the portable
 * slicing-by-8 path is used everywhere else.  All of them give the same value.
 *
 * TFRecord stores CRCs masked (LevelDB's mask): fc_crc32c_mask() and
 * fc_crc32c_unmask() convert.
 */
#ifndef FEATC_FC_CRC32C_H
#define FEATC_FC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len);

/* The portable table implementation, always available. */
uint32_t fc_crc32c_portable(uint32_t crc, const void *buf, size_t len);

/* Nonzero when this CPU and build have a hardware CRC-32C path. */
int fc_crc32c_hw_available(void);
/* The hardware implementation; only call it when fc_crc32c_hw_available(). */
uint32_t fc_crc32c_hw(uint32_t crc, const void *buf, size_t len);
/* The hardware instruction in one stream, without interleaving: the baseline
 * the benchmark compares against.  Only when fc_crc32c_hw_available(). */
uint32_t fc_crc32c_hw_1way(uint32_t crc, const void *buf, size_t len);
/* TFRecord framing: rec[i] points at a record's 12-byte header (length,
 * masked CRC of the length), followed by len[i] bytes of data and their
 * masked CRC; the caller has checked that all of it is there.  Returns the
 * number of records, from the first, whose two CRCs both match: n when all
 * do.  Short records are checked four at a time, so that four chains of
 * dependent CRC steps overlap: for 100-byte records that is about three
 * times faster than one record after another. */
size_t fc_crc32c_records(const unsigned char *const rec[], const size_t len[], size_t n);
/* Name of the implementation fc_crc32c() uses: on x86-64 "sse4.2" (three
 * streams of the crc32 instruction), "sse4.2+pclmul" or "sse4.2+vpclmulqdq"
 * (from 256 bytes, carry-less multiplication folding: 128-bit, or 256-bit
 * beside the crc32 streams), whichever of those this CPU runs fastest, timed
 * once at first use; "armv8-crc" on ARMv8; else "portable". */
const char *fc_crc32c_impl(void);

/* For tests and benchmarks: the i-th hardware path (from 0) that this build
 * has and this CPU runs, its name in *name (when name is not NULL); NULL
 * past the last.  On x86-64: "sse4.2" (three streams of the crc32
 * instruction), "pclmul" and "vpclmulqdq" (folding from 256 bytes, the
 * crc32 instruction below that; fc_crc32c takes the one this CPU runs
 * fastest: see fc_crc32c_impl). */
typedef uint32_t (*fc_crc32c_fn)(uint32_t crc, const void *buf, size_t len);
fc_crc32c_fn fc_crc32c_variant(int i, const char **name);

#define FC_CRC32C_MASK_DELTA 0xa282ead8u

static inline uint32_t fc_crc32c_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + FC_CRC32C_MASK_DELTA;
}

static inline uint32_t fc_crc32c_unmask(uint32_t masked)
{
    uint32_t rot = masked - FC_CRC32C_MASK_DELTA;
    return (rot >> 17) | (rot << 15);
}

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_CRC32C_H */
