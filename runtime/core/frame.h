/* What the runtime's TFRecord files share (not installed): the framing's
 * byte order and length check, the inflaters' configuration and state
 * access, and zlib's allocator over an arena.  reader.c reads records,
 * inflate.c decompresses what it reads (inflate.h), seek.c places a reader
 * (random access, splits, sync, GZIP members), writer.c writes them,
 * frame.c frames one record, names compressions and reads a reader's raw
 * source, map.c maps files.  See featc/fc_record.h for the contract. */
#ifndef FEATC_FRAME_H
#define FEATC_FRAME_H

#include "featc/fc_record.h"

#include "featc/fc_crc32c.h"

#include <string.h>

#ifndef FC_NO_ZLIB
#include <zlib.h>
typedef char fc_zstream_fits_[(sizeof(z_stream) <= FC_ZSTREAM_STORAGE) ? 1 : -1];
#endif

/* ISA-L's inflate (x86-64 builds with FC_WITH_ISAL, which the Makefile sets
 * when libisal-dev is there), for readers whose work area holds its state;
 * zlib for the others.  zactive is 1 for zlib, 2 for ISA-L, whose state
 * lives in the arena with a pointer to it in zs. */
#if !defined(FC_NO_ZLIB) && defined(FC_WITH_ISAL) && defined(__x86_64__)
#include <isa-l/igzip_lib.h>
/* Weak: libfeatc.a links without ISA-L (Debian has no libisal.a, so a
 * fully static program cannot have it) and uses it when the program does */
#pragma weak isal_inflate
#pragma weak isal_inflate_init
#pragma weak isal_read_gzip_header
#define FC_ISAL 1
#define ISAL_ARENA FC_INFLATE_ARENA_SIZE

/* ISA-L's state, and the header of the GZIP member it reads: read by
 * isal_read_gzip_header into this one, which lasts from call to call.
 * (isal_inflate reads the header into a header of its own that does not
 * last: it forgets the header's flags between two calls, so a header that
 * arrives in two reads, such as a 12-byte detection read then the rest of a
 * file name, was misread as deflate data: intel/isa-l#224.) */
typedef struct isal_room {
    struct inflate_state st; /* (first: a pointer to it is one to the room) */
    struct isal_gzip_header gz;
} isal_room;
typedef char fc_isal_fits_[(sizeof(isal_room) + 16u <= ISAL_ARENA) ? 1 : -1];

/* Whether the program linked ISA-L. */
static inline int isal_linked(void)
{
    return isal_inflate != NULL && isal_inflate_init != NULL && isal_read_gzip_header != NULL;
}
#endif
#define ZIN_MIN (16u * 1024u) /* the least input buffer of an fd reader */

enum { SRC_MEM = 1, SRC_FD = 2 };

/* ------------------------------------------------------------ byte order */

static inline uint64_t le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The masked CRC of a header's length field (p[0..8)) matches p[8..12). */
static inline int length_crc_ok(const unsigned char *p)
{
    return fc_crc32c_mask(fc_crc32c(0, p, 8)) == le32(p + 8);
}

static inline void put_le64(unsigned char *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_le32(unsigned char *p, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void copy_error(fc_error *dst, const fc_error *src)
{
    if (dst != NULL && dst != src)
        *dst = *src;
}

/* ------------------------------------------------------------ the reader */

static inline fc_status reader_fail(fc_reader *r)
{
    r->failed = 1;
    return (fc_status)r->err.status;
}

/* Reads up to n raw bytes of r's source (its fd or pull function) into p,
 * *got 0 at its end; FC_AGAIN (a pull source with nothing now) fails
 * nothing (frame.c: the reader and its inflaters share it). */
fc_status fc_source_read(fc_reader *r, unsigned char *p, size_t n, size_t *got);
/* An fd reader's compression from its first bytes (reader.c). */
fc_status fc_reader_detect_fd(fc_reader *r);
/* Makes at least need bytes from the reader's place available in its
 * buffer (at r->buf + r->start), reading or inflating as a record read
 * would; FC_OK, else the status (fewer bytes at the end of the data is
 * FC_OK: the caller looks at r->end - r->start). */
fc_status fc_reader_fill_to(fc_reader *r, uint64_t need);

#ifndef FC_NO_ZLIB
/* zlib's zalloc and zfree over the caller's arena (frame.c) */
voidpf fc_zarena_alloc(voidpf opaque, uInt items, uInt size);
void fc_zarena_free(voidpf opaque, voidpf address);

static inline z_stream *rzs(fc_reader *r)
{
    return (z_stream *)(void *)r->zs.bytes;
}

#ifdef FC_ISAL
/* What an ISA-L reader keeps in zs: its state, and where the member (or
 * ZLIB stream) being read starts, compressed and decompressed, so that zlib
 * can take over there (isal_takeover). */
typedef struct isal_slot {
    struct inflate_state *st;
    uint64_t member_raw;
    uint64_t member_pos;
} isal_slot;
typedef char fc_isal_slot_fits_[(sizeof(isal_slot) <= FC_ZSTREAM_STORAGE) ? 1 : -1];

static inline isal_slot slot_of(const fc_reader *r)
{
    isal_slot k;
    memcpy(&k, r->zs.bytes, sizeof k);
    return k;
}

static inline struct inflate_state *ris(const fc_reader *r)
{
    return slot_of(r).st;
}

/* The ISA-L state to read a new member or stream with. */
static inline void isal_begin(fc_reader *r, struct inflate_state *st)
{
    memset(&((isal_room *)(void *)st)->gz, 0, sizeof(struct isal_gzip_header));
    isal_inflate_init(st);
    st->crc_flag = r->compression == FC_COMPRESSION_GZIP ? ISAL_GZIP : ISAL_ZLIB;
}
#endif

/* The compressed input not yet taken by the decompressor. */
static inline uint64_t zin_left(const fc_reader *r)
{
#ifdef FC_ISAL
    if (r->zactive == 2)
        return ris(r)->avail_in;
#endif
    return ((const z_stream *)(const void *)r->zs.bytes)->avail_in;
}

static inline void zin_set(fc_reader *r, const unsigned char *p, size_t n)
{
#ifdef FC_ISAL
    if (r->zactive == 2) {
        ris(r)->next_in = (uint8_t *)(uintptr_t)p;
        ris(r)->avail_in = (uint32_t)n;
        return;
    }
#endif
    rzs(r)->next_in = (Bytef *)(uintptr_t)p;
    rzs(r)->avail_in = (uInt)n;
}
#endif /* FC_NO_ZLIB */

#endif /* FEATC_FRAME_H */
