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

/* The small readers are inlined into the generated switch even where the
 * compiler's size heuristics would not: each case then tests the bytes of
 * its own feature type and count, nothing else.  A build for size (-Os,
 * which defines __OPTIMIZE_SIZE__) leaves the choice to the compiler. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__OPTIMIZE_SIZE__)
#define FC_FAST_INLINE static inline __attribute__((always_inline))
#else
#define FC_FAST_INLINE static inline
#endif

/* How a generated NAME_fast is declared: static, and, when the build
 * optimises for size, kept out of line, so that its frame and the general
 * path's are never on the stack at once (the deepest stack of the parse
 * is the larger of the two, not their sum). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__OPTIMIZE_SIZE__)
#define FC_FAST_ENTRY static __attribute__((noinline))
#else
#define FC_FAST_ENTRY static
#endif

/* Without the fast path, generated parsers go straight to the general
 * path: the same values and errors, slower, and smaller.  It is off in a
 * build for size (-Os, which defines __OPTIMIZE_SIZE__: the microcontroller
 * builds of docs/embedded.md) and with -DFC_NO_FAST_PATH; -DFC_FAST_PATH=1
 * keeps it in a build for size.  Generated code tests FC_FAST_PATH, so the
 * fast path folds away. */
#ifndef FC_FAST_PATH
#if defined(FC_NO_FAST_PATH) || defined(__OPTIMIZE_SIZE__)
#define FC_FAST_PATH 0
#else
#define FC_FAST_PATH 1
#endif
#endif

/* A varint as protobuf's ReadVarint64 reads it (fc_ex_scan's rule): at most
 * 10 bytes, bits past 64 dropped.  Small, so that it inlines: lengths are
 * mostly one byte.  Packed int64 runs have a faster loop of their own. */
FC_FAST_INLINE int fc_fast_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
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
FC_FAST_INLINE int fc_fast_field(const uint8_t **pp, const uint8_t *end, uint8_t tag,
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
FC_FAST_INLINE int fc_fast_block(const uint8_t **pp, const uint8_t *end, uint8_t tag,
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

/* Any layout of key then value (fc_fast_next's general case). */
FC_FAST_INLINE int fc_fast_next_any(const uint8_t **pp, const uint8_t *end, fc_fast_entry *e)
{
    const uint8_t *body, *q;
    size_t len;
    if (!fc_fast_field(pp, end, 0x0a, &body, &len))
        return 0;
    q = body;
    return fc_fast_field(&q, body + len, 0x0a, &e->key, &e->key_len) &&
           fc_fast_field(&q, body + len, 0x12, &e->val, &e->val_len) && q == body + len;
}

/* One map entry.  Written out for what nearly every entry is: an entry
 * length of one or two bytes, a key shorter than 128 bytes, a value length
 * of one or two bytes; other lengths take fc_fast_next_any. */
FC_FAST_INLINE int fc_fast_next(const uint8_t **pp, const uint8_t *end, fc_fast_entry *e)
{
    const uint8_t *p = *pp, *q, *ee;
    size_t n, k, v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* an entry under 128 bytes: "0x0a n 0x0a k" as one word, then the
     * value's "0x12 v" right after the key, v the rest of the entry */
    if (end - p >= 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        if ((w & UINT32_C(0x80FF80FF)) == UINT32_C(0x000A000A)) {
            n = (w >> 8) & 0xFFu;
            k = w >> 24;
            q = p + 4 + k;
            if (n <= (size_t)(end - p) - 2u && k + 4u <= n && q[0] == 0x12 &&
                q[1] == n - k - 4u) {
                e->key = p + 4;
                e->key_len = k;
                e->val = q + 2;
                e->val_len = q[1];
                *pp = p + 2 + n;
                return 1;
            }
        }
    }
#endif
    if (end - p < 6 || p[0] != 0x0a)
        return fc_fast_next_any(pp, end, e);
    if (p[1] < 0x80u) {
        n = p[1];
        q = p + 2;
    } else if (p[2] < 0x80u) {
        n = (size_t)(p[1] & 0x7Fu) | (size_t)p[2] << 7;
        q = p + 3;
    } else {
        return fc_fast_next_any(pp, end, e);
    }
    /* the entry [q, q + n) within end; its key's tag and length byte, and
     * the value's tag and first length byte, within the entry */
    if (n > (size_t)(end - q) || n < 4 || q[0] != 0x0a || q[1] >= 0x80u || (k = q[1]) > n - 4)
        return fc_fast_next_any(pp, end, e);
    ee = q + n;
    e->key = q + 2;
    e->key_len = k;
    q += 2 + k;
    if (q[0] != 0x12)
        return fc_fast_next_any(pp, end, e);
    if (q[1] < 0x80u) {
        v = q[1];
        q += 2;
    } else if (ee - q > 2 && q[2] < 0x80u) {
        v = (size_t)(q[1] & 0x7Fu) | (size_t)q[2] << 7;
        q += 3;
    } else {
        return fc_fast_next_any(pp, end, e);
    }
    if (v != (size_t)(ee - q))
        return fc_fast_next_any(pp, end, e);
    e->val = q;
    e->val_len = v;
    *pp = ee;
    return 1;
}

/* The list of a Feature [val, val + len): exactly one, of tag `tag`
 * (0x0a bytes_list, 0x12 float_list, 0x1a int64_list).  A Feature{} fails:
 * it marks nothing, and the general path knows what that means. */
FC_FAST_INLINE int fc_fast_list(const uint8_t *val, size_t len, uint8_t tag, const uint8_t **lb,
                                size_t *ll)
{
    const uint8_t *p = val;
    return fc_fast_field(&p, val + len, tag, lb, ll) && p == val + len;
}

/* The packed run filling a float or int64 list body [lb, lb + ll) exactly;
 * an empty body has none. */
FC_FAST_INLINE int fc_fast_run(const uint8_t *lb, size_t ll, const uint8_t **rb, size_t *rl)
{
    const uint8_t *p = lb;
    if (ll == 0) {
        *rb = lb;
        *rl = 0;
        return 1;
    }
    if (ll >= 2 && ll <= 129 && lb[0] == 0x0a && lb[1] == ll - 2) { /* one-byte length */
        *rb = lb + 2;
        *rl = ll - 2;
        return 1;
    }
    return fc_fast_field(&p, lb + ll, 0x0a, rb, rl) && p == lb + ll;
}

/* [val, val + len) is the list `tag` holding one field 1 (a packed run, or
 * a single bytes value), both lengths one byte: "tag len-2 0x0a len-4", the
 * body [val + 4, val + len).  The shape of nearly every Feature under 130
 * bytes, tested as one word. */
FC_FAST_INLINE int fc_fast_short(const uint8_t *val, size_t len, uint8_t tag)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t w;
    if (len - 4u > 125u) /* len outside [4, 129] */
        return 0;
    memcpy(&w, val, 4);
    return w == ((uint32_t)tag | (uint32_t)(len - 2u) << 8 | UINT32_C(0x0a0000) |
                 (uint32_t)(len - 4u) << 24);
#else
    return len >= 4 && len <= 129 && val[0] == tag && val[1] == len - 2 && val[2] == 0x0a &&
           val[3] == len - 4;
#endif
}

/* The packed run of a float or int64 Feature [val, val + len). */
FC_FAST_INLINE int fc_fast_packed(const uint8_t *val, size_t len, uint8_t tag, const uint8_t **rb,
                                  size_t *rl)
{
    const uint8_t *lb;
    size_t ll;
    if (fc_fast_short(val, len, tag)) {
        *rb = val + 4;
        *rl = len - 4;
        return 1;
    }
    return fc_fast_list(val, len, tag, &lb, &ll) && fc_fast_run(lb, ll, rb, rl);
}

/* A frame of a FeatureList at p whose frame and list lengths are one byte:
 * "0x0a n+2 tag n", its list body [p + 4, p + 4 + n) within end, *n set.
 * The four bytes are tested as one word.  0 for any other frame. */
FC_FAST_INLINE int fc_fast_frame_head(const uint8_t *p, const uint8_t *end, uint8_t tag,
                                      size_t *n)
{
    size_t k;
    if (end - p < 4)
        return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    {
        uint32_t w;
        memcpy(&w, p, 4);
        k = w >> 24;
        if (k > 125u || w != (UINT32_C(0x0a) | (uint32_t)(k + 2u) << 8 | (uint32_t)tag << 16 |
                              (uint32_t)k << 24))
            return 0;
    }
#else
    k = p[3];
    if (k > 125u || p[0] != 0x0a || p[1] != k + 2u || p[2] != tag)
        return 0;
#endif
    if (k > (size_t)(end - p) - 4u)
        return 0;
    *n = k;
    return 1;
}

/* A frame at p holding one list of one field whose three lengths are one
 * byte: "0x0a n+4 tag n+2 0x0a n" and n bytes (a packed run, or a single
 * bytes value) within end; *n set.  The six bytes are compared with the
 * word they must be, computed from n (little-endian hosts; elsewhere 0,
 * and fc_fast_frame_head takes the frame). */
FC_FAST_INLINE int fc_fast_frame_run(const uint8_t *p, const uint8_t *end, uint8_t tag,
                                     size_t *n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w, k;
    if (end - p < 8)
        return 0;
    memcpy(&w, p, 8);
    k = (w >> 40) & 0xFFu;
    /* n <= 123: n + 4 is one byte, and no sum below carries */
    if (k > 123u || (w & UINT64_C(0xFFFFFFFFFFFF)) !=
                        (UINT64_C(0x000A0200040A) | (uint64_t)tag << 16) +
                            k * UINT64_C(0x010001000100) ||
        k > (uint64_t)(end - p) - 6u)
        return 0;
    *n = (size_t)k;
    return 1;
#else
    (void)p;
    (void)end;
    (void)tag;
    (void)n;
    return 0;
#endif
}

/* The value of the varint at the start of little-endian word w whose stop
 * bits (the high bits that are clear, ~w & 0x80..80) are stop, not 0: the
 * bytes up to the first stop, their 7-bit groups squeezed together. */
FC_FAST_INLINE uint64_t fc_fast_word_bits(uint64_t w, uint64_t stop)
{
    uint64_t x = w & (stop ^ (stop - 1u)) & UINT64_C(0x7F7F7F7F7F7F7F7F);
    x = ((x & UINT64_C(0x7F007F007F007F00)) >> 1) | (x & UINT64_C(0x007F007F007F007F));
    x = ((x & UINT64_C(0x3FFF00003FFF0000)) >> 2) | (x & UINT64_C(0x00003FFF00003FFF));
    return ((x & UINT64_C(0x0FFFFFFF00000000)) >> 4) | (x & UINT64_C(0x000000000FFFFFFF));
}

/* ---- values of one Feature, by type: from its packed run (int64, float)
 * or list body (bytes); VarLen (at most cap, *n the count) and FixedLen
 * (exactly n). */

/* fc_int64_run and fc_int64_frames, the packed int64 readers: fc_example.h. */


/* A varint that is exactly the bytes [p, p + n): each but the last with
 * its high bit, at most 10, bits past 64 dropped (fc_fast_varint's rule). */
FC_FAST_INLINE int fc_fast_varint_exact(const uint8_t *p, size_t n, uint64_t *v)
{
    uint64_t x;
    size_t i;
    if (n - 1u > 9u || p[n - 1] >= 0x80u) /* n outside [1, 10], or no last byte */
        return 0;
    x = (uint64_t)p[n - 1] << (7u * (n - 1));
    for (i = 0; i + 1 < n; i++) {
        if (p[i] < 0x80u)
            return 0;
        x |= (uint64_t)(p[i] & 0x7Fu) << (7u * i);
    }
    *v = x;
    return 1;
}

/* A scalar is one varint filling the run. */
FC_FAST_INLINE int fc_fast_fixed_int64_run(const uint8_t *rb, size_t rl, int64_t *dst, size_t n)
{
    size_t k = 0;
    if (n == 1) {
        uint64_t v;
        if (!fc_fast_varint_exact(rb, rl, &v))
            return 0;
        *dst = (int64_t)v;
        return 1;
    }
    return fc_int64_run(rb, rl, dst, n, &k) && k == n;
}

/* Floats copied as they are on little-endian hosts. */
FC_FAST_INLINE void fc_fast_copy_floats(float *dst, const uint8_t *rb, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n > 0) /* dst is NULL only for a shape with a 0 (n 0) */
        memcpy(dst, rb, 4 * n);
#else
    size_t k;
    for (k = 0; k < n; k++) {
        uint32_t u = (uint32_t)rb[4 * k] | (uint32_t)rb[4 * k + 1] << 8 |
                     (uint32_t)rb[4 * k + 2] << 16 | (uint32_t)rb[4 * k + 3] << 24;
        memcpy(&dst[k], &u, 4);
    }
#endif
}

FC_FAST_INLINE int fc_fast_float_run(const uint8_t *rb, size_t rl, float *dst, size_t cap,
                                     size_t *n)
{
    if (rl % 4u != 0 || rl / 4u > cap)
        return 0;
    fc_fast_copy_floats(dst, rb, rl / 4u);
    *n = rl / 4u;
    return 1;
}

/* A copy of a size known where it is generated. */
FC_FAST_INLINE int fc_fast_fixed_float_run(const uint8_t *rb, size_t rl, float *dst, size_t n)
{
    if (rl != 4u * n)
        return 0;
    fc_fast_copy_floats(dst, rb, n);
    return 1;
}

/* Bytes values, as views into the record, from a bytes_list body. */
FC_FAST_INLINE int fc_fast_bytes_body(const uint8_t *lb, size_t ll, fc_bytes *dst, size_t cap,
                                      size_t *n)
{
    const uint8_t *le = lb + ll;
    size_t k = 0;
    while (lb < le) {
        if (k == cap || !fc_fast_field(&lb, le, 0x0a, &dst[k].data, &dst[k].size))
            return 0;
        k++;
    }
    *n = k;
    return 1;
}

FC_FAST_INLINE int fc_fast_fixed_bytes_body(const uint8_t *lb, size_t ll, fc_bytes *dst,
                                            size_t n)
{
    size_t k = 0;
    return fc_fast_bytes_body(lb, ll, dst, n, &k) && k == n;
}

/* A single bytes value [rb, rb + rl) (what fc_fast_short or
 * fc_fast_frame_run found). */
FC_FAST_INLINE int fc_fast_bytes_run(const uint8_t *rb, size_t rl, fc_bytes *dst, size_t cap,
                                     size_t *n)
{
    if (cap < 1)
        return 0;
    dst[0].data = rb;
    dst[0].size = rl;
    *n = 1;
    return 1;
}

FC_FAST_INLINE int fc_fast_fixed_bytes_run(const uint8_t *rb, size_t rl, fc_bytes *dst, size_t n)
{
    size_t k = 0;
    return n == 1 && fc_fast_bytes_run(rb, rl, dst, n, &k);
}

/* ---- by type.  The generated switch calls fc_fast_fixed, fc_fast_varlen
 * and fc_fast_frames with a constant type, so after inlining each of the
 * switches below is one branch.  Values go to dst, at most cap of them with
 * the count in *n, or, when n is NULL, exactly cap (FixedLen). */

/* The wire tag of a list of type t in a Feature. */
FC_FAST_INLINE uint8_t fc_fast_list_tag(fc_type t)
{
    return t == FC_TYPE_INT64 ? 0x1a : t == FC_TYPE_FLOAT ? 0x12 : 0x0a;
}

/* A packed run (int64, float) or a single bytes value [rb, rb + rl). */
FC_FAST_INLINE int fc_fast_run_values(fc_type t, const uint8_t *rb, size_t rl, void *dst,
                                      size_t cap, size_t *n)
{
    switch (t) {
    case FC_TYPE_INT64:
        return n != NULL ? fc_int64_run(rb, rl, (int64_t *)dst, cap, n)
                         : fc_fast_fixed_int64_run(rb, rl, (int64_t *)dst, cap);
    case FC_TYPE_FLOAT:
        return n != NULL ? fc_fast_float_run(rb, rl, (float *)dst, cap, n)
                         : fc_fast_fixed_float_run(rb, rl, (float *)dst, cap);
    default:
        return n != NULL ? fc_fast_bytes_run(rb, rl, (fc_bytes *)dst, cap, n)
                         : fc_fast_fixed_bytes_run(rb, rl, (fc_bytes *)dst, cap);
    }
}

/* A list body [lb, lb + ll): bytes fields, or the packed run that fills it. */
FC_FAST_INLINE int fc_fast_body_values(fc_type t, const uint8_t *lb, size_t ll, void *dst,
                                       size_t cap, size_t *n)
{
    const uint8_t *rb;
    size_t rl;
    if (t == FC_TYPE_BYTES)
        return n != NULL ? fc_fast_bytes_body(lb, ll, (fc_bytes *)dst, cap, n)
                         : fc_fast_fixed_bytes_body(lb, ll, (fc_bytes *)dst, cap);
    return fc_fast_run(lb, ll, &rb, &rl) && fc_fast_run_values(t, rb, rl, dst, cap, n);
}

/* A Feature [val, val + len) holding one list of type t. */
FC_FAST_INLINE int fc_fast_feature_values(fc_type t, const uint8_t *val, size_t len, void *dst,
                                          size_t cap, size_t *n)
{
    const uint8_t *b;
    size_t bl;
    if (t != FC_TYPE_BYTES)
        return fc_fast_packed(val, len, fc_fast_list_tag(t), &b, &bl) &&
               fc_fast_run_values(t, b, bl, dst, cap, n);
    if (fc_fast_short(val, len, 0x0a)) /* one value */
        return fc_fast_run_values(t, val + 4, len - 4, dst, cap, n);
    return fc_fast_list(val, len, 0x0a, &b, &bl) && fc_fast_body_values(t, b, bl, dst, cap, n);
}

/* What the generated switch calls with a map entry.  FixedLen: exactly n
 * values of type t.  VarLen: at most max, the count stored. */
FC_FAST_INLINE int fc_fast_fixed(fc_type t, const fc_fast_entry *e, void *dst, size_t n)
{
    return fc_fast_feature_values(t, e->val, e->val_len, dst, n, NULL);
}

FC_FAST_INLINE int fc_fast_varlen(fc_type t, const fc_fast_entry *e, void *dst, size_t max,
                                  size_t *count)
{
    return fc_fast_feature_values(t, e->val, e->val_len, dst, max, count);
}

/* ---- typed tensors (`as`) on the direct batch path: the record's values
 * decoded first, then made the tensor's.  0 for a value the tensor does
 * not hold: the record goes to the per-record path, which says why. */

/* v, already within type as's range, stored as dst[k]. */
FC_FAST_INLINE void fc_fast_store_narrow(int as, void *dst, size_t k, int64_t v)
{
    switch (as) {
    case FC_AS_INT8: ((int8_t *)dst)[k] = (int8_t)v; break;
    case FC_AS_UINT8: ((uint8_t *)dst)[k] = (uint8_t)v; break;
    case FC_AS_INT16: ((int16_t *)dst)[k] = (int16_t)v; break;
    case FC_AS_UINT16: ((uint16_t *)dst)[k] = (uint16_t)v; break;
    default: ((int32_t *)dst)[k] = (int32_t)v; break;
    }
}

/* n int64s narrowed to type as (int8 ... int32) into dst. */
FC_FAST_INLINE int fc_fast_narrow(int as, const int64_t *v, size_t n, void *dst)
{
    int64_t lo = 0, hi = 0;
    size_t k;
    if (!fc_as_range(as, &lo, &hi))
        return 0;
    for (k = 0; k < n; k++) {
        if (v[k] < lo || v[k] > hi)
            return 0;
        fc_fast_store_narrow(as, dst, k, v[k]);
    }
    return 1;
}

/* n floats as float16 bits into dst. */
FC_FAST_INLINE int fc_fast_halves(const float *v, size_t n, uint16_t *dst)
{
    size_t k;
    for (k = 0; k < n; k++) {
        int over;
        dst[k] = fc_as_half(v[k], &over);
        if (over)
            return 0;
    }
    return 1;
}

/* A VarLen int64 feature narrowed to type as: its packed run decoded one
 * varint at a time (fc_fast_varint's rule, the run's) straight into dst,
 * at most cap values, the count in *n; 0 for a value out of the type's
 * range, more than cap, or any other layout (the per-record path then). */
FC_FAST_INLINE int fc_fast_varlen_narrow(int as, const fc_fast_entry *e, void *dst, size_t cap,
                                         size_t *n)
{
    const uint8_t *rb, *end;
    size_t rl, k = 0;
    int64_t lo = 0, hi = 0;
    if (!fc_as_range(as, &lo, &hi) || !fc_fast_packed(e->val, e->val_len, 0x1a, &rb, &rl))
        return 0;
    end = rb + rl;
    while (rb < end) {
        uint64_t u;
        int64_t v;
        if (k == cap || !fc_fast_varint(&rb, end, &u))
            return 0;
        v = (int64_t)u;
        if (v < lo || v > hi)
            return 0;
        fc_fast_store_narrow(as, dst, k++, v);
    }
    *n = k;
    return 1;
}

/* A VarLen float feature as float16 bits: its packed run, each float
 * rounded as fc_as_half rounds it, at most cap, the count in *n; 0 for a
 * float past float16's range, more than cap, or another layout. */
FC_FAST_INLINE int fc_fast_varlen_halves(const fc_fast_entry *e, uint16_t *dst, size_t cap,
                                         size_t *n)
{
    const uint8_t *rb;
    size_t rl, k;
    if (!fc_fast_packed(e->val, e->val_len, 0x12, &rb, &rl) || rl % 4u != 0 || rl / 4u > cap)
        return 0;
    for (k = 0; k < rl / 4u; k++) {
        uint32_t u = (uint32_t)rb[4 * k] | (uint32_t)rb[4 * k + 1] << 8 |
                     (uint32_t)rb[4 * k + 2] << 16 | (uint32_t)rb[4 * k + 3] << 24;
        float x;
        int over;
        memcpy(&x, &u, 4);
        dst[k] = fc_as_half(x, &over);
        if (over)
            return 0;
    }
    *n = rl / 4u;
    return 1;
}

/* decode_raw: the bytes b as n little-endian elements of es bytes each,
 * into dst in the host's order; 0 unless b holds exactly that many. */
FC_FAST_INLINE int fc_fast_raw(const fc_bytes *b, size_t es, size_t n, void *dst)
{
    const uint16_t one = 1;
    size_t k, j;
    if (b->size != es * n)
        return 0;
    if (es == 1 || *(const uint8_t *)&one == 1) { /* (a little-endian host) */
        if (b->size > 0)
            memcpy(dst, b->data, b->size);
        return 1;
    }
    for (k = 0; k < n; k++)
        for (j = 0; j < es; j++)
            ((uint8_t *)dst)[k * es + j] = b->data[k * es + es - 1 - j];
    return 1;
}

/* FixedLen frames of `stride` floats, or of one int64, laid out as protobuf
 * writes them (what fc_fast_frame_run takes): a run of them from *pp, at
 * most max, into dst, *pp moved past them; the count is returned, and the
 * loop in fc_fast_frames takes a frame of any other layout.  Floats
 * (little-endian hosts): every frame is the same six header bytes, one
 * constant, and 4 * stride bytes, so no frame waits on the one before.  An
 * int64: fc_int64_frames, in the runtime.  0 for other types. */
FC_FAST_INLINE size_t fc_fast_scalar_frames(fc_type t, const uint8_t **pp, const uint8_t *end,
                                            void *dst, size_t stride, size_t max)
{
    if (t == FC_TYPE_INT64 && stride == 1u)
        return fc_int64_frames(pp, end, (int64_t *)dst, max);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    if (t == FC_TYPE_FLOAT && stride >= 1u && stride <= 30u) {
        const uint8_t *p = *pp;
        size_t k = 0;
        const uint64_t vb = 4u * (uint64_t)stride, step = 6u + vb;
        const uint64_t head = UINT64_C(0x0a) | (vb + 4u) << 8 | UINT64_C(0x12) << 16 |
                              (vb + 2u) << 24 | UINT64_C(0x0a) << 32 | vb << 40;
        float *out = (float *)dst;
        while (k < max && (uint64_t)(end - p) >= step) {
            uint64_t w;
            memcpy(&w, p, 8); /* step >= 10 bytes are there */
            if ((w & UINT64_C(0xFFFFFFFFFFFF)) != head)
                break;
            memcpy(out + k * stride, p + 6, (size_t)vb);
            p += step;
            k++;
        }
        *pp = p;
        return k;
    }
#endif
    (void)pp;
    (void)end;
    (void)dst;
    (void)stride;
    (void)max;
    return 0;
}

/* One frame of a FeatureList at *pp (within end), a Feature of values of
 * type t, into dst: exactly cap of them (count NULL: FixedLen) or at most
 * cap with the count in *count (VarLen); *pp moved past it.  A frame of one
 * run or one bytes value with one-byte lengths (fc_fast_frame_run) goes
 * straight to that run; one whose frame and list lengths are one byte
 * (fc_fast_frame_head: several bytes values, say) to its list body; others
 * take the field readers.  An empty frame fails (the general path). */
FC_FAST_INLINE int fc_fast_frame(fc_type t, const uint8_t **pp, const uint8_t *end, void *dst,
                                 size_t cap, size_t *count)
{
    const uint8_t *p = *pp, *f;
    size_t fl;
    int ok;
    if (t != FC_TYPE_BYTES && fc_fast_frame_run(p, end, fc_fast_list_tag(t), &fl)) {
        f = p + 6;
        *pp = f + fl;
        return fc_fast_run_values(t, f, fl, dst, cap, count);
    }
    if (fc_fast_frame_head(p, end, fc_fast_list_tag(t), &fl)) {
        f = p + 4;
        *pp = f + fl;
        return fc_fast_body_values(t, f, fl, dst, cap, count);
    }
    ok = fc_fast_field(&p, end, 0x0a, &f, &fl) &&
         fc_fast_feature_values(t, f, fl, dst, cap, count);
    *pp = p;
    return ok;
}

/* A FeatureList (the value of a feature_lists entry): frames, each a
 * Feature of `stride` values of type t (counts NULL: FixedLen, exactly
 * stride) or of at most stride values (counts[k] set: VarLen), at most
 * max_frames of them, frame k at dst + k * stride values (fc_fast_frame
 * reads each).  An empty FeatureList or an empty frame fails (the general
 * path). */
FC_FAST_INLINE int fc_fast_frames(fc_type t, const fc_fast_entry *e, void *dst, size_t stride,
                                  size_t max_frames, size_t *counts, size_t *frames)
{
    const uint8_t *p = e->val, *end = e->val + e->val_len;
    const size_t row = stride * fc_type_size(t);
    unsigned char *out = (unsigned char *)dst;
    size_t k = 0;
    if (p == end)
        return 0;
    while (p < end) {
        if (counts == NULL) {
            k += fc_fast_scalar_frames(t, &p, end, out + k * row, stride, max_frames - k);
            if (p == end)
                break;
        }
        if (k == max_frames ||
            !fc_fast_frame(t, &p, end, out + k * row, stride, counts != NULL ? &counts[k] : NULL))
            return 0;
        k++;
    }
    *frames = k;
    return 1;
}

/* Marks field i seen; 0 when it was already (a repeated key: the general
 * path applies TensorFlow's last-wins rule). */
FC_FAST_INLINE int fc_fast_mark(uint32_t *seen, unsigned i)
{
    if (fc_bit_get(seen, i))
        return 0;
    fc_bit_set(seen, i);
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_FAST_H */
