/* featc runtime: the fast path of generated parsers.
 *
 * A generated NAME_parse first tries its fast path: one pass over a record
 * laid out the way protobuf serializers write it, with the key dispatch
 * (a switch the compiler wrote) and these small inline readers.  The fast
 * path accepts only that layout:
 *
 *   - an Example is one Features block (a SequenceExample: at most one
 *     context block, then at most one FeatureLists block), nothing else;
 *   - every map entry is exactly key (field 1) then value (field 2);
 *   - a wanted key occurs once, and its Feature is not empty;
 *   - a Feature holds exactly one list, of the spec's type; a float or int64
 *     list is one packed run (an empty list has none);
 *   - counts are those the spec allows.
 *
 * Every function returns 1 when the bytes are of that layout and 0
 * otherwise.  On 0 the generated parser starts again on the general path
 * (fc_ex_scan and the typed decoders, or fc_seq_parse), which accepts every
 * record TensorFlow accepts and words the error of every record it rejects.
 * So the fast path never decides what a record means: where it accepts, the
 * general path gives the same values (the differential tests compare both
 * with the protobuf-c oracle).  Nothing here allocates; lengths are checked
 * against the bytes left before they are used.
 */
#ifndef FEATC_FC_FAST_H
#define FEATC_FC_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fc_example.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A varint as protobuf's ReadVarint64 reads it (fc_ex_scan's rule): at most
 * 10 bytes, bits past 64 dropped.  Small, so that it inlines: lengths are
 * mostly one byte.  Packed int64 runs have a faster loop of their own. */
static inline int fc_fast_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = 0;
    unsigned shift;
    if (p < end && *p < 0x80u) {
        *v = *p;
        *pp = p + 1;
        return 1;
    }
    for (shift = 0; shift < 70u && p < end; shift += 7u) {
        uint8_t b = *p++;
        if (shift < 64u)
            x |= (uint64_t)(b & 0x7Fu) << shift;
        if ((b & 0x80u) == 0) {
            *v = x;
            *pp = p;
            return 1;
        }
    }
    return 0;
}

/* A field of tag byte `tag` (wire type 2) at *pp: its body [*body, *body +
 * *len) lies within end, and *pp moves past it. */
static inline int fc_fast_field(const uint8_t **pp, const uint8_t *end, uint8_t tag,
                                const uint8_t **body, size_t *len)
{
    const uint8_t *p = *pp;
    uint64_t n;
    if (p >= end || *p != tag)
        return 0;
    p++;
    if (p < end && *p < 0x80u) {
        n = *p++;
    } else if (!fc_fast_varint(&p, end, &n)) {
        return 0;
    }
    if (n > (uint64_t)(end - p))
        return 0;
    *body = p;
    *len = (size_t)n;
    *pp = p + n;
    return 1;
}

/* An optional field of tag byte `tag` at *pp (a SequenceExample's context
 * or feature_lists): its body [*body, *bend), empty when the record does not
 * have it there; 0 when it overruns end. */
static inline int fc_fast_block(const uint8_t **pp, const uint8_t *end, uint8_t tag,
                                const uint8_t **body, const uint8_t **bend)
{
    size_t n = 0;
    *body = *pp;
    if (*pp < end && **pp == tag && !fc_fast_field(pp, end, tag, body, &n))
        return 0;
    *bend = *body + n;
    return 1;
}

/* One map entry: key then value, nothing else. */
typedef struct fc_fast_entry {
    const uint8_t *key;
    size_t key_len;
    const uint8_t *val;
    size_t val_len;
} fc_fast_entry;

static inline int fc_fast_next(const uint8_t **pp, const uint8_t *end, fc_fast_entry *e)
{
    const uint8_t *body, *q;
    size_t len;
    if (!fc_fast_field(pp, end, 0x0a, &body, &len))
        return 0;
    q = body;
    return fc_fast_field(&q, body + len, 0x0a, &e->key, &e->key_len) &&
           fc_fast_field(&q, body + len, 0x12, &e->val, &e->val_len) && q == body + len;
}

/* The list of a Feature [val, val + len): exactly one, of tag `tag`
 * (0x0a bytes_list, 0x12 float_list, 0x1a int64_list).  A Feature{} fails:
 * it marks nothing, and the general path knows what that means. */
static inline int fc_fast_list(const uint8_t *val, size_t len, uint8_t tag, const uint8_t **lb,
                               size_t *ll)
{
    const uint8_t *p = val;
    return fc_fast_field(&p, val + len, tag, lb, ll) && p == val + len;
}

/* A packed run filling the list body exactly; an empty body has none. */
static inline int fc_fast_run(const uint8_t *lb, size_t ll, const uint8_t **rb, size_t *rl)
{
    const uint8_t *p = lb;
    if (ll == 0) {
        *rb = lb;
        *rl = 0;
        return 1;
    }
    return fc_fast_field(&p, lb + ll, 0x0a, rb, rl) && p == lb + ll;
}

/* Up to 8 varints bytes from one little-endian word: the bytes up to the
 * first without its high bit, their 7-bit groups squeezed together.  *len
 * gets the bytes used; 0 when all 8 have the high bit (a 9- or 10-byte
 * varint: the byte loop takes it). */
static inline uint64_t fc_fast_word_varint(uint64_t w, unsigned *len)
{
    uint64_t stop = ~w & UINT64_C(0x8080808080808080), x;
    if (stop == 0) {
        *len = 0;
        return 0;
    }
    x = w & (stop ^ (stop - 1u)) & UINT64_C(0x7F7F7F7F7F7F7F7F);
    x = ((x & UINT64_C(0x7F007F007F007F00)) >> 1) | (x & UINT64_C(0x007F007F007F007F));
    x = ((x & UINT64_C(0x3FFF00003FFF0000)) >> 2) | (x & UINT64_C(0x00003FFF00003FFF));
    x = ((x & UINT64_C(0x0FFFFFFF00000000)) >> 4) | (x & UINT64_C(0x000000000FFFFFFF));
#if defined(__GNUC__)
    *len = (unsigned)__builtin_ctzll(stop) / 8u + 1u;
#else
    {
        unsigned n = 1;
        while ((stop & 0x80u) == 0) {
            stop >>= 8;
            n++;
        }
        *len = n;
    }
#endif
    return x;
}

/* The values of an int64 Feature, at most cap of them; *n their count. */
static inline int fc_fast_int64_list(const uint8_t *val, size_t len, int64_t *dst, size_t cap,
                                     size_t *n)
{
    const uint8_t *lb, *rb, *re;
    size_t ll, rl, k = 0;
    if (!fc_fast_list(val, len, 0x1a, &lb, &ll) || !fc_fast_run(lb, ll, &rb, &rl))
        return 0;
    re = rb + rl;
    while (rb < re) {
        uint64_t v;
        unsigned used = 0;
        if (k == cap)
            return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (re - rb >= 8) {
            uint64_t w;
            memcpy(&w, rb, 8);
            v = fc_fast_word_varint(w, &used);
            rb += used;
        }
#endif
        if (used == 0 && !fc_fast_varint(&rb, re, &v))
            return 0;
        dst[k++] = (int64_t)v;
    }
    *n = k;
    return 1;
}

/* The values of a float Feature: the packed run copied as it is on
 * little-endian hosts. */
static inline int fc_fast_float_list(const uint8_t *val, size_t len, float *dst, size_t cap,
                                 size_t *n)
{
    const uint8_t *lb, *rb;
    size_t ll, rl, k;
    if (!fc_fast_list(val, len, 0x12, &lb, &ll) || !fc_fast_run(lb, ll, &rb, &rl) ||
        rl % 4u != 0 || rl / 4u > cap)
        return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (rl > 0 && dst != NULL) /* dst is NULL only for a shape with a 0 (cap 0) */
        memcpy(dst, rb, rl);
#else
    for (k = 0; k < rl / 4u; k++) {
        uint32_t u = (uint32_t)rb[4 * k] | (uint32_t)rb[4 * k + 1] << 8 |
                     (uint32_t)rb[4 * k + 2] << 16 | (uint32_t)rb[4 * k + 3] << 24;
        memcpy(&dst[k], &u, 4);
    }
#endif
    k = rl / 4u;
    *n = k;
    return 1;
}

/* The values of a bytes Feature, as views into the record. */
static inline int fc_fast_bytes_list(const uint8_t *val, size_t len, fc_bytes *dst, size_t cap,
                                size_t *n)
{
    const uint8_t *lb, *le;
    size_t ll, k = 0;
    if (!fc_fast_list(val, len, 0x0a, &lb, &ll))
        return 0;
    le = lb + ll;
    while (lb < le) {
        if (k == cap || !fc_fast_field(&lb, le, 0x0a, &dst[k].data, &dst[k].size))
            return 0;
        k++;
    }
    *n = k;
    return 1;
}

/* FixedLen: exactly n values.  VarLen: at most max, the count stored. */
#define FC_FAST_DEFINE(T, CT)                                                                 \
    static inline int fc_fast_fixed_##T(const fc_fast_entry *e, CT *dst, size_t n)            \
    {                                                                                         \
        size_t k = 0;                                                                         \
        return fc_fast_##T##_list(e->val, e->val_len, dst, n, &k) && k == n;                      \
    }                                                                                         \
    static inline int fc_fast_varlen_##T(const fc_fast_entry *e, CT *dst, size_t max,         \
                                         size_t *count)                                       \
    {                                                                                         \
        return fc_fast_##T##_list(e->val, e->val_len, dst, max, count);                           \
    }
FC_FAST_DEFINE(int64, int64_t)
FC_FAST_DEFINE(float, float)
FC_FAST_DEFINE(bytes, fc_bytes)
#undef FC_FAST_DEFINE

/* A FeatureList (the value of a feature_lists entry): frames, each a
 * Feature of `stride` values (counts NULL: FixedLen, exactly stride) or of
 * at most stride values (counts[t] set: VarLen), at most max_frames of them.
 * An empty FeatureList or an empty frame fails (the general path). */
#define FC_FAST_FRAMES(T, CT)                                                                 \
    static inline int fc_fast_frames_##T(const fc_fast_entry *e, CT *dst, size_t stride,       \
                                         size_t max_frames, size_t *counts, size_t *frames)    \
    {                                                                                         \
        const uint8_t *p = e->val, *end = e->val + e->val_len, *f;                            \
        size_t t = 0, fl, n = 0;                                                              \
        if (p == end)                                                                         \
            return 0;                                                                         \
        while (p < end) {                                                                     \
            if (t == max_frames || !fc_fast_field(&p, end, 0x0a, &f, &fl) ||                  \
                !fc_fast_##T##_list(f, fl, dst + t * stride, stride, &n))                     \
                return 0;                                                                     \
            if (counts != NULL)                                                               \
                counts[t] = n;                                                                \
            else if (n != stride)                                                             \
                return 0;                                                                     \
            t++;                                                                              \
        }                                                                                     \
        *frames = t;                                                                          \
        return 1;                                                                             \
    }
FC_FAST_FRAMES(int64, int64_t)
FC_FAST_FRAMES(float, float)
FC_FAST_FRAMES(bytes, fc_bytes)
#undef FC_FAST_FRAMES

/* Marks field i seen; 0 when it was already (a repeated key: the general
 * path applies TensorFlow's last-wins rule). */
static inline int fc_fast_mark(uint32_t *seen, unsigned i)
{
    uint32_t bit = (uint32_t)1u << (i % 32u);
    if (seen[i / 32u] & bit)
        return 0;
    seen[i / 32u] |= bit;
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_FAST_H */
