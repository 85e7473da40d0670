/* The tf.train.Example wire format as TensorFlow's fast single-Example parser
 * reads it; see fc_example.h and docs/semantics.md.
 *
 * Security model: the record is untrusted.  Every length is read as a varint
 * of at most 10 bytes, checked to fit 32 bits (as protobuf's ReadVarint32
 * would keep them) and checked against the bytes that remain in its enclosing
 * message before anything is read through it.  No recursion, no allocation.
 */
#include "featc/fc_example.h"
#include "featc/fc_fast.h"
#include "featc/fc_hash.h"

#include "wire.h"

#include <string.h>

/* ------------------------------------------------------------ wire helpers */

#define TAG_LEN1 FC_TAG_LEN1
#define TAG_LEN2 FC_TAG_LEN2
#define TAG_LEN3 FC_TAG_LEN3
#define TAG_VARINT1 0x08u
#define TAG_FIXED32_1 0x0Du

/* A varint of at most 10 bytes, as protobuf's ReadVarint64: bits past 64 in
 * the tenth byte are dropped.  NULL if it runs past end or is longer.  The
 * generated parsers' fast path reads varints with the same function. */
static const uint8_t *rd_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    return fc_fast_varint(&p, end, v) ? p : NULL;
}

/* A length or tag: a varint whose value fits 32 bits.  TensorFlow's
 * ReadVarint32 would silently keep the low 32 bits of a larger one; featc
 * refuses it. */
const uint8_t *fc_wire_len(const uint8_t *p, const uint8_t *end, uint32_t *v)
{
    uint64_t x;
    if (p < end && *p < 0x80u) { /* the common one-byte case */
        *v = *p;
        return p + 1;
    }
    p = rd_varint(p, end, &x);
    if (p == NULL || x > UINT32_MAX)
        return NULL;
    *v = (uint32_t)x;
    return p;
}

/* Skips the body of one field whose tag was read: NULL when it is a group
 * (wire types 3, 4), an invalid wire type, or runs past end. */
const uint8_t *fc_wire_skip_body(const uint8_t *p, const uint8_t *end, uint32_t tag)
{
    uint64_t v;
    uint32_t n;
    switch (tag & 7u) {
    case 0:
        return rd_varint(p, end, &v);
    case 1:
        return (end - p >= 8) ? p + 8 : NULL;
    case 2:
        p = fc_wire_len(p, end, &n);
        return (p != NULL && (size_t)(end - p) >= n) ? p + n : NULL;
    case 5:
        return (end - p >= 4) ? p + 4 : NULL;
    default:
        return NULL;
    }
}

/* Checks that [p, end) is a sequence of well-formed protobuf fields (any
 * field number but 0, wire types 0, 1, 2, 5) and returns NULL or end. */
static const uint8_t *skip_fields(const uint8_t *p, const uint8_t *end, const uint8_t **bad)
{
    while (p < end) {
        uint32_t tag;
        const uint8_t *start = p;
        p = fc_wire_len(p, end, &tag);
        if (p == NULL || (tag >> 3) == 0 || (p = fc_wire_skip_body(p, end, tag)) == NULL) {
            *bad = start;
            return NULL;
        }
    }
    return end;
}

const fc_field_extra fc_field_plain = {0, 0, 0, 0, 0, {0}, 0, 0, NULL, 0, 0, NULL};
const fc_field_extra fc_field_for_sparse = {0, 0, 0, 0, 0, {0}, 0, 1, NULL, 0, 0, NULL};
const fc_field_extra fc_field_for_ragged = {0, 0, 0, 0, 0, {0}, 0, 2, NULL, 0, 0, NULL};

/* ------------------------------------------------------ packed int64 runs */

/* fc_int64_run's loops.  Two varints per step while 16 bytes remain: both
 * ends come from the stop bits (the clear high bits) of two words read at
 * rb, so the step to the next pair waits on one load, not on two loads one
 * after the other.  Then one varint per word: a word at rb while 8 bytes
 * remain; in the last 7, the run's last word shifted down, so that its
 * zero top bytes stop a varint the run cuts short (it then ends past re).
 * A varint of 9 or 10 bytes, and a run shorter than a word, go byte by
 * byte.  SQUEEZE(w, stop) is the value of the varint at the start of word
 * w whose stop bits are stop. */
#define FC_INT64_RUN_LOOPS(SQUEEZE)                                                         \
    const uint8_t *re = rb + rl;                                                        \
    size_t k = 0;                                                                       \
    while (re - rb >= 16 && cap - k >= 2) {                                             \
        uint64_t w0, w1, w2, s0, s1, s0b;                                               \
        unsigned l1, end2;                                                              \
        memcpy(&w0, rb, 8);                                                             \
        memcpy(&w1, rb + 8, 8);                                                         \
        s0 = ~w0 & UINT64_C(0x8080808080808080);                                        \
        s1 = ~w1 & UINT64_C(0x8080808080808080);                                        \
        s0b = s0 & (s0 - 1u);                                                           \
        if (s0 == 0 || (s0b == 0 && s1 == 0))                                           \
            break; /* a varint of 9+ bytes */                                           \
        l1 = (unsigned)__builtin_ctzll(s0) / 8u + 1u;                                   \
        end2 = s0b != 0 ? (unsigned)__builtin_ctzll(s0b) / 8u + 1u                      \
                        : (unsigned)__builtin_ctzll(s1) / 8u + 9u;                      \
        if (end2 - l1 > 8u)                                                             \
            break;                                                                      \
        memcpy(&w2, rb + l1, 8);                                                        \
        dst[k] = (int64_t)SQUEEZE(w0, s0);                                              \
        dst[k + 1] = (int64_t)SQUEEZE(w2, ~w2 & UINT64_C(0x8080808080808080));          \
        k += 2;                                                                         \
        rb += end2;                                                                     \
        if (end2 == 2u * l1) {                                                          \
            /* two of one length: while the next has it too, one word each, */         \
            /* at a fixed stride, so that no load waits on the one before */            \
            const uint64_t stop1 = s0 ^ s0b, high = (s0 ^ (s0 - 1u)) & UINT64_C(0x8080808080808080); \
            while (re - rb >= 8 && k < cap) {                                           \
                uint64_t w;                                                             \
                memcpy(&w, rb, 8);                                                      \
                if ((w & high) != (high ^ stop1))                                       \
                    break;                                                              \
                dst[k++] = (int64_t)SQUEEZE(w, stop1);                                  \
                rb += l1;                                                               \
            }                                                                           \
        }                                                                               \
    }                                                                                   \
    while (rb < re) {                                                                   \
        size_t left = (size_t)(re - rb);                                                \
        uint64_t w, stop = 0;                                                           \
        unsigned used;                                                                  \
        if (k == cap)                                                                   \
            return 0;                                                                   \
        if (left >= 8u) {                                                               \
            memcpy(&w, rb, 8);                                                          \
            stop = ~w & UINT64_C(0x8080808080808080);                                   \
        } else if (rl >= 8u) {                                                          \
            memcpy(&w, re - 8, 8);                                                      \
            w >>= 8u * (8u - left);                                                     \
            stop = ~w & UINT64_C(0x8080808080808080);                                   \
        }                                                                               \
        if (stop == 0) {                                                                \
            uint64_t v;                                                                 \
            if ((rb = rd_varint(rb, re, &v)) == NULL)                                   \
                return 0;                                                               \
            dst[k++] = (int64_t)v;                                                      \
            continue;                                                                   \
        }                                                                               \
        used = (unsigned)__builtin_ctzll(stop) / 8u + 1u;                               \
        if (used > left)                                                                \
            return 0; /* cut short by the run's end */                                  \
        dst[k++] = (int64_t)SQUEEZE(w, stop);                                           \
        rb += used;                                                                     \
    }                                                                                   \
    *n = k;                                                                             \
    return 1

/* Frames of one int64 each, "0x0a n+4 0x1a n+2 0x0a n" and a varint of
 * exactly n bytes (1-8), the layout protobuf writes; what fc_int64_frames
 * takes from *pp.  The header is one 6-byte compare, computed from n; the
 * varint is read from one word, its stop bit checked to be where the
 * frame's length says (fc_fast_varint_exact's rule).  SQUEEZE_N(v, n) is
 * the value of the n-byte varint at the start of word v. */
#define FC_INT64_FRAMES_LOOP(SQUEEZE_N)                                                     \
    const uint8_t *p = *pp;                                                             \
    size_t k = 0;                                                                       \
    while (k < max && end - p >= 14) {                                                  \
        uint64_t w, v, n, high;                                                         \
        memcpy(&w, p, 8);                                                               \
        n = (w >> 40) & 0xFFu;                                                          \
        if (n - 1u > 7u || (w & UINT64_C(0xFFFFFFFFFFFF)) !=                            \
                               UINT64_C(0x000A021A040A) + n * UINT64_C(0x010001000100)) \
            break;                                                                      \
        memcpy(&v, p + 6, 8);                                                           \
        /* the high bits of the n bytes: all set but the last */                        \
        high = UINT64_C(0x8080808080808080) >> (64u - 8u * n);                          \
        if ((v & high) != (high >> 8))                                                  \
            break;                                                                      \
        dst[k++] = (int64_t)SQUEEZE_N(v, n);                                            \
        p += 6u + n;                                                                    \
    }                                                                                   \
    *pp = p;                                                                            \
    return k

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define WORD_SQUEEZE_N(v, n) fc_fast_word_bits((v), UINT64_C(0x80) << (8u * (n) - 8u))

static int int64_run_words(const uint8_t *rb, size_t rl, int64_t *dst, size_t cap, size_t *n)
{
    FC_INT64_RUN_LOOPS(fc_fast_word_bits);
}

static size_t int64_frames_words(const uint8_t **pp, const uint8_t *end, int64_t *dst,
                                 size_t max)
{
    FC_INT64_FRAMES_LOOP(WORD_SQUEEZE_N);
}
#define INT64_WORDS 1
#endif

/* Any host: byte by byte. */
static int int64_run_bytes(const uint8_t *rb, size_t rl, int64_t *dst, size_t cap, size_t *n)
{
    const uint8_t *re = rb + rl;
    size_t k = 0;
    while (rb < re) {
        uint64_t v;
        if (k == cap || (rb = rd_varint(rb, re, &v)) == NULL)
            return 0;
        dst[k++] = (int64_t)v;
    }
    *n = k;
    return 1;
}

static size_t int64_frames_bytes(const uint8_t **pp, const uint8_t *end, int64_t *dst,
                                 size_t max)
{
    const uint8_t *p = *pp;
    size_t k = 0;
    while (k < max && end - p >= 14) {
        size_t n = p[5];
        uint64_t v;
        if (n - 1u > 7u || p[0] != 0x0a || p[1] != n + 4u || p[2] != 0x1a || p[3] != n + 2u ||
            p[4] != 0x0a || !fc_fast_varint_exact(p + 6, n, &v))
            break;
        dst[k++] = (int64_t)v;
        p += 6u + n;
    }
    *pp = p;
    return k;
}

/* A build for size (-Os) leaves pext out: the CPU check links libgcc's
 * CPU model, 5.4 KB on x86-64.  -DFC_NO_BMI2 does so in any build. */
#if defined(INT64_WORDS) && defined(__x86_64__) && !defined(FC_NO_BMI2) && \
    !defined(__OPTIMIZE_SIZE__)
#include <immintrin.h>
#define INT64_PEXT 1

/* pext keeps the bits of w that the mask selects, squeezed together: the
 * 7-bit groups up to the first stop bit, or of the first n bytes. */
#define PEXT_SQUEEZE(w, stop) \
    _pext_u64((w), ((stop) ^ ((stop) - 1u)) & UINT64_C(0x7F7F7F7F7F7F7F7F))
#define PEXT_SQUEEZE_N(v, n) _pext_u64((v), UINT64_C(0x7F7F7F7F7F7F7F7F) >> (64u - 8u * (n)))

__attribute__((target("bmi,bmi2"))) static int int64_run_pext(const uint8_t *rb, size_t rl,
                                                                int64_t *dst, size_t cap,
                                                                size_t *n)
{
    FC_INT64_RUN_LOOPS(PEXT_SQUEEZE);
}

__attribute__((target("bmi,bmi2"))) static size_t int64_frames_pext(const uint8_t **pp,
                                                                     const uint8_t *end,
                                                                     int64_t *dst, size_t max)
{
    FC_INT64_FRAMES_LOOP(PEXT_SQUEEZE_N);
}

/* pext is one instruction of 3 cycles on Intel since Haswell and on AMD
 * since Zen 3; AMD's families 15h and 17h (Excavator, Zen, Zen 2) run it in
 * microcode, tens of cycles and more by the mask, slower than the shifts. */
static int pext_is_fast(void)
{
    return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") &&
           !__builtin_cpu_is("amdfam17h");
}
#endif

static const fc_varint_loops varint_loops[] = {
    {"bytes", int64_run_bytes, int64_frames_bytes},
#if defined(INT64_WORDS)
    {"words", int64_run_words, int64_frames_words},
#endif
#if defined(INT64_PEXT)
    {"pext", int64_run_pext, int64_frames_pext},
#endif
};
#define VARINT_LOOPS (sizeof varint_loops / sizeof varint_loops[0])

/* The loops for this CPU: the last of varint_loops, unless that is pext
 * and pext is slow here. */
static const fc_varint_loops *varint_best(void)
{
#if defined(INT64_PEXT)
    if (!pext_is_fast())
        return &varint_loops[VARINT_LOOPS - 2];
#endif
    return &varint_loops[VARINT_LOOPS - 1];
}

int fc_int64_run(const uint8_t *rb, size_t rl, int64_t *dst, size_t cap, size_t *n)
{
    return varint_best()->run(rb, rl, dst, cap, n);
}

size_t fc_int64_frames(const uint8_t **pp, const uint8_t *end, int64_t *dst, size_t max)
{
    return varint_best()->frames(pp, end, dst, max);
}

const fc_varint_loops *fc_varint_loops_variant(int i)
{
    if (i < 0 || (size_t)i >= VARINT_LOOPS)
        return NULL;
#if defined(INT64_PEXT)
    if (varint_loops[i].run == int64_run_pext && !__builtin_cpu_supports("bmi2"))
        return NULL;
#endif
    return &varint_loops[i];
}

const char *fc_varint_impl(void)
{
    return varint_best()->name;
}

/* ------------------------------------------------------------ the scan */

/* TensorFlow's text, "Could not parse example input, value: '<the record,
 * escaped>'", with the record cut to its first FC_TF_VALUE_PREFIX bytes
 * ("'..." when cut), then what is wrong and where. */
static int scan_fail(fc_error *err, const uint8_t *base, const uint8_t *end, const uint8_t *at,
                     const char *what)
{
    size_t off = (size_t)(at - base), len = (size_t)(end - base);
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, off);
    fc_msg_str(&m, FC_TF_BAD_EXAMPLE "'");
    fc_msg_cescape(&m, base, len < FC_TF_VALUE_PREFIX ? len : FC_TF_VALUE_PREFIX);
    fc_msg_str(&m, "'");
    fc_msg_str(&m, len > FC_TF_VALUE_PREFIX ? "...: " : ": ");
    fc_msg_str(&m, what);
    fc_msg_at(&m, off);
    return FC_ERR_PARSE;
}

/* A length-delimited value at p: its bounds, or NULL. */
const uint8_t *fc_wire_delimited(const uint8_t *p, const uint8_t *end, const uint8_t **body,
                                 uint32_t *n)
{
    p = fc_wire_len(p, end, n);
    if (p == NULL || (size_t)(end - p) < *n)
        return NULL;
    *body = p;
    return p + *n;
}

static int scan_entry(const uint8_t *base, const uint8_t *rend, const uint8_t *p, const uint8_t *eend,
                      fc_ex_lookup_fn lookup, const void *ctx, const fc_field_desc *batched,
                      fc_feature_ref *refs, size_t nrefs, fc_ex_scan_info *info, fc_error *err)
{
    const uint8_t *key = NULL, *val = NULL;
    uint32_t key_len = 0, val_len = 0;
    int n, i;
    /* Exactly two fields, each the key (1) or the value (2), in either order;
     * a repeated field overwrites (TensorFlow's ParseFeatureMapEntry). */
    for (n = 0; n < 2; n++) {
        uint32_t tag, len;
        const uint8_t *body, *at = p;
        if (p >= eend)
            return scan_fail(err, base, rend, at, "map entry ends before its key and value");
        p = fc_wire_len(p, eend, &tag);
        if (p == NULL)
            return scan_fail(err, base, rend, at, "malformed tag in map entry");
        if (tag != TAG_LEN1 && tag != TAG_LEN2)
            return scan_fail(err, base, rend, at, "map entry field is neither key (1) nor value (2)");
        p = fc_wire_delimited(p, eend, &body, &len);
        if (p == NULL)
            return scan_fail(err, base, rend, at,
                             tag == TAG_LEN1 ? "map entry key overruns its entry"
                                             : "map entry value overruns its entry");
        if (tag == TAG_LEN1) {
            key = body;
            key_len = len;
        } else {
            val = body;
            val_len = len;
        }
    }
    if (p != eend)
        return scan_fail(err, base, rend, p, "map entry has more than a key and a value");
    info->entries++;
    i = lookup(ctx, key != NULL ? key : (const uint8_t *)"", key_len);
    if (i < 0 || (size_t)i >= nrefs)
        return FC_OK; /* not wanted */
    if (val_len == 0) {
        /* Feature{}: it never marks a key in TF's single path; in its
         * batched path it is the last entry of a VarLen (sparse) key like
         * any other, an empty row */
        if (batched != NULL && batched[i].kind == FC_KIND_VARLEN) {
            refs[i].data = val != NULL ? val : eend;
            refs[i].size = 0;
            refs[i].offset = (size_t)(refs[i].data - base);
            refs[i].entry = info->entries;
        }
        return FC_OK;
    }
    if (val[0] != TAG_LEN1 && val[0] != TAG_LEN2 && val[0] != TAG_LEN3) {
        info->bad_kind_entry = info->entries;
        info->bad_kind_field = i;
        info->bad_kind_byte = val[0];
        info->bad_kind_offset = (size_t)(val - base);
        return FC_OK;
    }
    refs[i].data = val;
    refs[i].size = val_len;
    refs[i].offset = (size_t)(val - base);
    refs[i].entry = info->entries;
    return FC_OK;
}

int fc_ex_scan(const void *data, size_t len, fc_ex_lookup_fn lookup, const void *ctx,
               fc_feature_ref *refs, size_t nrefs, fc_ex_scan_info *info, fc_error *err)
{
    return fc_ex_scan_batched(data, len, lookup, ctx, NULL, refs, nrefs, info, err);
}

int fc_ex_scan_batched(const void *data, size_t len, fc_ex_lookup_fn lookup, const void *ctx,
                       const struct fc_field_desc *fields, fc_feature_ref *refs, size_t nrefs,
                       fc_ex_scan_info *info, fc_error *err)
{
    const uint8_t *base = (const uint8_t *)data;
    const uint8_t *p = base, *end = base != NULL ? base + len : base;
    size_t i;
    for (i = 0; i < nrefs; i++) {
        refs[i].data = NULL;
        refs[i].size = 0;
        refs[i].offset = 0;
        refs[i].entry = 0;
    }
    memset(info, 0, sizeof *info);
    info->bad_kind_field = -1;
    if (len > 0 && data == NULL)
        return scan_fail(err, base, end, base, "no data");
    if (len > (size_t)INT32_MAX) /* protobuf's limit: a message is < 2 GiB */
        return scan_fail(err, base, end, base, "record of 2 GiB or more");
    while (p < end) {
        const uint8_t *at = p;
        if (*p == TAG_LEN1) { /* Example.features: merged, as protobuf merges */
            const uint8_t *fbody, *fend;
            uint32_t flen;
            p = fc_wire_delimited(p + 1, end, &fbody, &flen);
            if (p == NULL)
                return scan_fail(err, base, end, at,
                                 fc_wire_len(at + 1, end, &flen) == NULL
                                     ? "Features length is not a valid varint"
                                     : "Features length overruns the record");
            fend = fbody + flen;
            while (fbody < fend) {
                const uint8_t *ebody, *eat = fbody;
                uint32_t elen;
                int rc;
                if (*fbody != TAG_LEN1)
                    return scan_fail(err, base, end, eat, "a Features field is not a map entry");
                fbody = fc_wire_delimited(fbody + 1, fend, &ebody, &elen);
                if (fbody == NULL)
                    return scan_fail(err, base, end, eat,
                                     fc_wire_len(eat + 1, fend, &elen) == NULL
                                         ? "map entry length is not a valid varint"
                                         : "map entry length overruns its Features");
                rc = scan_entry(base, end, ebody, ebody + elen, lookup, ctx, fields, refs, nrefs,
                                info, err);
                if (rc != FC_OK)
                    return rc;
            }
        } else { /* an unknown top-level field: skipped, as TensorFlow does */
            uint32_t tag;
            const uint8_t *next = fc_wire_len(p, end, &tag);
            if (next == NULL || (tag >> 3) == 0)
                return scan_fail(err, base, end, at, "malformed or zero tag at top level");
            if ((tag & 7u) == 3 || (tag & 7u) == 4 || (tag & 7u) > 5)
                return scan_fail(err, base, end, at, "unsupported wire type (group) at top level");
            p = fc_wire_skip_body(next, end, tag);
            if (p == NULL)
                return scan_fail(err, base, end, at, "unknown top-level field overruns the record");
        }
    }
    return FC_OK;
}

/* ------------------------------------------------------------ list decoding */

static int fail_detail(fc_ex_detail *d, fc_ex_problem pr, fc_type actual, size_t count,
                       size_t offset, const char *what)
{
    if (d != NULL) {
        d->problem = pr;
        d->actual = actual;
        d->count = count;
        d->offset = offset;
        d->what = what;
    }
    return FC_ERR_PARSE;
}

/* A malformed list: at is where in r's bytes.  The message already names
 * the list's type ("Parsing int64_list failed."), so `what` does not. */
static int malformed(fc_ex_detail *d, const fc_feature_ref *r, const uint8_t *at, const char *what)
{
    return fail_detail(d, FC_EXP_MALFORMED, FC_TYPE_NONE, 0, r->offset + (size_t)(at - r->data),
                       what);
}

#define MALFORMED(at, what) malformed(d, r, at, what)

/* Opens the Feature of r: checks its type (first byte) against want and
 * returns the list body [*lb, *le).  A Feature{} (size 0) has no type and an
 * empty body.  Bytes after the first list are ignored (TensorFlow reads only
 * the first list) but must be well-formed fields. */
static int open_list(const fc_feature_ref *r, fc_type want, const uint8_t **lb,
                     const uint8_t **le, fc_ex_detail *d)
{
    const uint8_t *p, *end, *bad = NULL;
    uint32_t n;
    fc_type got;
    if (r->size == 0) {
        *lb = *le = r->data;
        return FC_OK;
    }
    p = r->data;
    end = p + r->size;
    switch (p[0]) {
    case TAG_LEN1: got = FC_TYPE_BYTES; break;
    case TAG_LEN2: got = FC_TYPE_FLOAT; break;
    case TAG_LEN3: got = FC_TYPE_INT64; break;
    default: got = FC_TYPE_NONE; break;
    }
    if (got != want)
        return fail_detail(d, FC_EXP_TYPE, got, 0, r->offset, NULL);
    p = fc_wire_delimited(p + 1, end, lb, &n);
    if (p == NULL)
        return MALFORMED(r->data + 1, "list length overruns the Feature");
    *le = *lb + n;
    if (skip_fields(p, end, &bad) == NULL)
        return MALFORMED(bad, "malformed bytes after the list");
    return FC_OK;
}

int fc_wire_int64s(const fc_feature_ref *r, int64_t *dst, size_t cap, size_t *count,
                   fc_ex_detail *d)
{
    const fc_type want = FC_TYPE_INT64;
    const uint8_t *p, *end, *bad = NULL;
    size_t k = 0;
    uint64_t v;
    int rc = open_list(r, want, &p, &end, d);
    if (rc != FC_OK)
        return rc;
    if (p < end && *p == TAG_LEN1) { /* packed: one run; later chunks are ignored */
        const uint8_t *rb, *re;
        uint32_t n;
        const uint8_t *after = fc_wire_delimited(p + 1, end, &rb, &n);
        if (after == NULL)
            return MALFORMED(p, "packed run overruns the list");
        re = rb + n;
        while (rb < re) {
            const uint8_t *at = rb;
            if (*rb < 0x80u) {
                v = *rb++;
            } else {
                rb = rd_varint(rb, re, &v);
                if (rb == NULL)
                    return MALFORMED(at, "truncated or over-long varint");
            }
            if (k < cap)
                dst[k] = (int64_t)v;
            k++;
        }
        if (skip_fields(after, end, &bad) == NULL)
            return MALFORMED(bad, "malformed bytes after the packed run");
    } else if (p < end) {
        if (*p != TAG_VARINT1)
            return MALFORMED(p, "element with a tag other than 0x0a or 0x08");
        while (p < end) { /* unpacked: every element must be tag 0x08 */
            const uint8_t *at = p;
            if (*p != TAG_VARINT1)
                return MALFORMED(at, "unpacked element with a tag other than 0x08");
            p = rd_varint(p + 1, end, &v);
            if (p == NULL)
                return MALFORMED(at, "truncated or over-long varint");
            if (k < cap)
                dst[k] = (int64_t)v;
            k++;
        }
    }
    *count = k;
    return FC_OK;
}

static float load_float_le(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                 (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

int fc_wire_floats(const fc_feature_ref *r, float *dst, size_t cap, size_t *count,
                   fc_ex_detail *d)
{
    const fc_type want = FC_TYPE_FLOAT;
    const uint8_t *p, *end, *bad = NULL;
    size_t k = 0;
    int rc = open_list(r, want, &p, &end, d);
    if (rc != FC_OK)
        return rc;
    if (p < end && *p == TAG_LEN1) { /* packed */
        const uint8_t *rb;
        uint32_t n;
        size_t m, j;
        const uint8_t *after = fc_wire_delimited(p + 1, end, &rb, &n);
        if (after == NULL)
            return MALFORMED(p, "packed run overruns the list");
        /* TensorFlow drops 1-3 stray bytes at the end of a packed run on
         * little-endian hosts; protobuf refuses them, and so does featc. */
        if (n % 4u != 0)
            return MALFORMED(p, "packed run length is not a multiple of 4");
        m = n / 4u;
        for (j = 0; j < m && j < cap; j++)
            dst[j] = load_float_le(rb + 4 * j);
        k = m;
        if (skip_fields(after, end, &bad) == NULL)
            return MALFORMED(bad, "malformed bytes after the packed run");
    } else if (p < end) {
        if (*p != TAG_FIXED32_1)
            return MALFORMED(p, "element with a tag other than 0x0a or 0x0d");
        while (p < end) {
            if (*p != TAG_FIXED32_1)
                return MALFORMED(p, "unpacked element with a tag other than 0x0d");
            if (end - p < 5)
                return MALFORMED(p, "truncated float");
            if (k < cap)
                dst[k] = load_float_le(p + 1);
            k++;
            p += 5;
        }
    }
    *count = k;
    return FC_OK;
}

int fc_wire_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t cap, size_t *count,
                  fc_ex_detail *d)
{
    const fc_type want = FC_TYPE_BYTES;
    const uint8_t *p, *end;
    size_t k = 0;
    int rc = open_list(r, want, &p, &end, d);
    if (rc != FC_OK)
        return rc;
    while (p < end) {
        const uint8_t *at = p, *body;
        uint32_t n;
        if (*p != TAG_LEN1)
            return MALFORMED(at, "element with a tag other than 0x0a");
        p = fc_wire_delimited(p + 1, end, &body, &n);
        if (p == NULL)
            return MALFORMED(at, "value overruns the list");
        if (k < cap) {
            dst[k].data = body;
            dst[k].size = n;
        }
        k++;
    }
    *count = k;
    return FC_OK;
}

/* The count rules, shared by the three types. */
static int check_fixed(int rc, size_t k, size_t n, const fc_feature_ref *r, fc_ex_detail *d)
{
    if (rc != FC_OK)
        return rc;
    if (k != n)
        return fail_detail(d, FC_EXP_COUNT, FC_TYPE_NONE, k, r->offset, NULL);
    return FC_OK;
}

static int check_varlen(int rc, size_t k, size_t max, size_t *count, const fc_feature_ref *r,
                        fc_ex_detail *d)
{
    if (rc != FC_OK)
        return rc;
    if (k > max)
        return fail_detail(d, FC_EXP_BOUND, FC_TYPE_NONE, k, r->offset, NULL);
    *count = k;
    return FC_OK;
}

static int check_rows(int rc, size_t k, size_t stride, size_t max_rows, size_t *rows,
                      const fc_feature_ref *r, fc_ex_detail *d)
{
    if (rc != FC_OK)
        return rc;
    if (k % stride != 0)
        return fail_detail(d, FC_EXP_STRIDE, FC_TYPE_NONE, k, r->offset, NULL);
    if (k / stride > max_rows)
        return fail_detail(d, FC_EXP_BOUND, FC_TYPE_NONE, k, r->offset, NULL);
    *rows = k / stride;
    return FC_OK;
}

int fc_ex_fixed_int64(const fc_feature_ref *r, int64_t *dst, size_t n, fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_int64s(r, dst, n, &k, d);
    return check_fixed(rc, k, n, r, d);
}

int fc_ex_fixed_float(const fc_feature_ref *r, float *dst, size_t n, fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_floats(r, dst, n, &k, d);
    return check_fixed(rc, k, n, r, d);
}

int fc_ex_fixed_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t n, fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_bytes(r, dst, n, &k, d);
    return check_fixed(rc, k, n, r, d);
}

int fc_ex_varlen_int64(const fc_feature_ref *r, int64_t *dst, size_t max, size_t *count,
                       fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_int64s(r, dst, max, &k, d);
    return check_varlen(rc, k, max, count, r, d);
}

int fc_ex_varlen_float(const fc_feature_ref *r, float *dst, size_t max, size_t *count,
                       fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_floats(r, dst, max, &k, d);
    return check_varlen(rc, k, max, count, r, d);
}

int fc_ex_varlen_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t max, size_t *count,
                       fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_bytes(r, dst, max, &k, d);
    return check_varlen(rc, k, max, count, r, d);
}

/* Rows are stored up to max_rows * stride values: a record with more rows
 * than the bound is an error, so nothing past the array is ever written. */
int fc_ex_rows_int64(const fc_feature_ref *r, int64_t *dst, size_t stride, size_t max_rows,
                     size_t *rows, fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_int64s(r, dst, stride * max_rows, &k, d);
    return check_rows(rc, k, stride, max_rows, rows, r, d);
}

int fc_ex_rows_float(const fc_feature_ref *r, float *dst, size_t stride, size_t max_rows,
                     size_t *rows, fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_floats(r, dst, stride * max_rows, &k, d);
    return check_rows(rc, k, stride, max_rows, rows, r, d);
}

int fc_ex_rows_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t stride, size_t max_rows,
                     size_t *rows, fc_ex_detail *d)
{
    size_t k = 0;
    int rc = fc_wire_bytes(r, dst, stride * max_rows, &k, d);
    return check_rows(rc, k, stride, max_rows, rows, r, d);
}

/* ------------------------------------------------------------ generic path */

const char *fc_type_tf_name(fc_type t)
{
    switch (t) {
    case FC_TYPE_BYTES: return "string";
    case FC_TYPE_FLOAT: return "float";
    case FC_TYPE_INT64: return "int64";
    default: return "invalid";
    }
}

const char *fc_wire_list_name(fc_type t)
{
    switch (t) {
    case FC_TYPE_BYTES: return "bytes";
    case FC_TYPE_FLOAT: return "float";
    default: return "int64";
    }
}

/* Decodes field i of a message at msg through the descriptor (an
 * fc_ex_decode_fn). */
static int decode_field(const fc_message_desc *md, void *msg, const fc_feature_ref *refs, size_t i,
                        fc_ex_detail *d)
{
    const fc_field_desc *f = &md->fields[i];
    const fc_feature_ref *r = &refs[i];
    void *vals = (unsigned char *)msg + f->value_offset;
    size_t *count = (size_t *)(void *)((unsigned char *)msg + f->count_offset);
    switch (f->kind) {
    case FC_KIND_FIXED:
        if (f->type == FC_TYPE_INT64)
            return fc_ex_fixed_int64(r, (int64_t *)vals, f->elems, d);
        if (f->type == FC_TYPE_FLOAT)
            return fc_ex_fixed_float(r, (float *)vals, f->elems, d);
        return fc_ex_fixed_bytes(r, (fc_bytes *)vals, f->elems, d);
    case FC_KIND_VARLEN:
        if (f->type == FC_TYPE_INT64)
            return fc_ex_varlen_int64(r, (int64_t *)vals, f->max, count, d);
        if (f->type == FC_TYPE_FLOAT)
            return fc_ex_varlen_float(r, (float *)vals, f->max, count, d);
        return fc_ex_varlen_bytes(r, (fc_bytes *)vals, f->max, count, d);
    default:
        if (f->type == FC_TYPE_INT64)
            return fc_ex_rows_int64(r, (int64_t *)vals, f->elems, f->max, count, d);
        if (f->type == FC_TYPE_FLOAT)
            return fc_ex_rows_float(r, (float *)vals, f->elems, f->max, count, d);
        return fc_ex_rows_bytes(r, (fc_bytes *)vals, f->elems, f->max, count, d);
    }
}

/* The single path's texts (FastParseSingleExample): "Key: K.  " and TF's
 * text, then featc's detail, which for counts and strides is the batched
 * path's text (batch_error keeps only that in a batch). */
FC_NOINLINE static int report_detail(const fc_field_desc *f, const fc_ex_detail *d,
                                     fc_error *err)
{
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, d->offset);
    if (d->problem == FC_EXP_STRIDE) {
        fc_msg_str(&m, FC_TF_STRIDE_KEY);
        fc_msg_mem(&m, f->key, f->key_len);
        fc_msg_str(&m, FC_TF_STRIDE_MID);
        fc_msg_u64(&m, f->elems);
        fc_msg_str(&m, ", found ");
        fc_msg_u64(&m, d->count);
        fc_msg_str(&m, FC_TF_STRIDE_END);
    } else {
        fc_msg_key(&m, f);
    }
    switch (d->problem) {
    case FC_EXP_TYPE:
        fc_msg_str(&m, "Data types don't match. ");
        if (f->kind == FC_KIND_VARLEN) {
            fc_msg_str(&m, "Expected type: ");
            fc_msg_str(&m, fc_type_tf_name(f->type));
            fc_msg_str(&m, ", Actual type: ");
            fc_msg_str(&m, fc_type_tf_name(d->actual));
        } else {
            fc_msg_str(&m, "Data type: ");
            fc_msg_str(&m, fc_type_tf_name(d->actual));
            fc_msg_str(&m, " but expected type: ");
            fc_msg_str(&m, fc_type_tf_name(f->type));
        }
        break;
    case FC_EXP_MALFORMED:
    case FC_EXP_COUNT: {
        /* TF's single path: a malformed list, or a bytes_list with too many
         * values, fails as it is read; any other count when the slice is
         * checked */
        const char *list = fc_wire_list_name(f->type);
        int read = d->problem == FC_EXP_MALFORMED || (f->type == FC_TYPE_BYTES && d->count > f->elems);
        fc_msg_str(&m, FC_TF_CANT_PARSE ": ");
        if (d->problem == FC_EXP_MALFORMED && f->type == FC_TYPE_BYTES && f->kind != FC_KIND_FIXED) {
            /* TF's single path counts a variable-length bytes_list first */
            fc_msg_str(&m, "Could not get num elements in bytes_list. ");
        } else {
            fc_msg_str(&m, read ? "Parsing " : "Some ");
            fc_msg_str(&m, list);
            fc_msg_str(&m, read ? "_list failed. " : FC_TF_SLICE_NOT_PARSED);
        }
        if (d->problem == FC_EXP_MALFORMED) {
            fc_msg_str(&m, d->what != NULL ? d->what : "malformed list");
            break;
        }
        fc_msg_str(&m, "Number of ");
        fc_msg_str(&m, list);
        fc_msg_str(&m, " values != expected.  Values size: ");
        fc_msg_u64(&m, d->count);
        fc_msg_str(&m, " but output shape: ");
        fc_msg_shape(&m, f->rank, f->dims, f->kind == FC_KIND_ROWS);
        break;
    }
    case FC_EXP_STRIDE:
        fc_msg_str(&m, "Number of ");
        fc_msg_str(&m, fc_wire_list_name(f->type));
        fc_msg_str(&m, " values is not a multiple of stride length. Saw ");
        fc_msg_u64(&m, d->count);
        fc_msg_str(&m, " values but output shape is: ");
        fc_msg_shape(&m, f->rank, f->dims, f->kind == FC_KIND_ROWS);
        break;
    case FC_EXP_BOUND:
        fc_msg_str(&m, "Number of ");
        fc_msg_str(&m, fc_wire_list_name(f->type));
        if (f->kind == FC_KIND_ROWS) {
            fc_msg_str(&m, " values exceeds the bound declared in the spec: ");
            fc_msg_u64(&m, d->count / f->elems);
            fc_msg_str(&m, " rows of shape ");
            fc_msg_shape(&m, f->rank, f->dims, f->kind == FC_KIND_ROWS);
            fc_msg_str(&m, " but max ");
        } else {
            fc_msg_str(&m, " values exceeds the bound declared in the spec: ");
            fc_msg_u64(&m, d->count);
            fc_msg_str(&m, " values but max ");
        }
        fc_msg_u64(&m, f->max);
        break;
    default:
        fc_msg_str(&m, "internal error");
        break;
    }
    fc_msg_paren_at(&m, d->offset);
    return FC_ERR_PARSE;
}

FC_NOINLINE static int report_bad_kind(const fc_message_desc *md, const fc_ex_scan_info *info,
                                       fc_error *err)
{
    const fc_field_desc *f = &md->fields[info->bad_kind_field];
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, info->bad_kind_offset);
    fc_msg_key(&m, f);
    fc_msg_str(&m, "Unsupported datatype. (a Feature that starts with byte 0x");
    {
        static const char hex[] = "0123456789abcdef";
        char two[3];
        two[0] = hex[info->bad_kind_byte >> 4];
        two[1] = hex[info->bad_kind_byte & 15u];
        two[2] = 0;
        fc_msg_str(&m, two);
    }
    fc_msg_str(&m, ", not 0x0a, 0x12 or 0x1a,");
    fc_msg_at(&m, info->bad_kind_offset);
    fc_msg_str(&m, ")");
    return FC_ERR_PARSE;
}

int fc_ex_report(const fc_message_desc *md, void *scratch, const fc_feature_ref *refs,
                 const fc_ex_scan_info *info, fc_ex_decode_fn decode, fc_error *err)
{
    /* TensorFlow visits map entries from the last to the first and reports
     * the first failure it meets: the failure with the highest entry number. */
    size_t i, best = md->nfields;
    uint32_t best_entry = 0;
    fc_ex_detail d;
    for (i = 0; i < md->nfields; i++) {
        if (refs[i].entry == 0 || refs[i].entry < best_entry)
            continue;
        if (decode(md, scratch, refs, i, NULL) != FC_OK) {
            best = i;
            best_entry = refs[i].entry;
        }
    }
    if (info->bad_kind_entry > best_entry)
        return report_bad_kind(md, info, err);
    if (best < md->nfields) {
        /* the failure again, now with its detail: one detail on the stack,
         * and the texts' calls below the decoders' rather than on them */
        memset(&d, 0, sizeof d);
        (void)decode(md, scratch, refs, best, &d);
        return report_detail(&md->fields[best], &d, err);
    }
    {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "internal error");
    }
    return FC_ERR_PARSE;
}

void fc_hash_values(fc_type type, const unsigned char *values, size_t n, size_t nb, int64_t *ids)
{
    size_t k;
    for (k = 0; k < n; k++) {
        if (type == FC_TYPE_BYTES) {
            fc_bytes v;
            memcpy(&v, values + k * sizeof v, sizeof v);
            ids[k] = fc_hash_bucket(v.data, v.size, nb);
        } else {
            int64_t v;
            memcpy(&v, values + k * sizeof v, sizeof v);
            ids[k] = fc_hash_bucket_int64(v, nb);
        }
    }
}

void fc_ex_hash_fields(const fc_field_desc *fields, size_t n, void *msg)
{
    unsigned char *m = (unsigned char *)msg;
    size_t i, k;
    for (i = 0; i < n; i++) {
        const fc_field_desc *f = &fields[i];
        size_t count, nb = f->extra->hash_buckets;
        int64_t *ids;
        float *hot;
        if (nb == 0)
            continue;
        if (f->kind == FC_KIND_FIXED)
            count = f->elems;
        else
            memcpy(&count, m + f->count_offset, sizeof count);
        ids = (int64_t *)(void *)(m + f->extra->bucket_offset);
        hot = (float *)(void *)(m + f->extra->hot_offset);
        fc_hash_values(f->type, m + f->value_offset, count, nb, ids);
        if (f->extra->hot == FC_HOT_ONE) {
            memset(hot, 0, count * nb * sizeof(float));
            for (k = 0; k < count; k++)
                hot[k * nb + (size_t)ids[k]] = 1.0f;
        } else if (f->extra->hot == FC_HOT_MULTI) {
            memset(hot, 0, nb * sizeof(float));
            for (k = 0; k < count; k++)
                hot[(size_t)ids[k]] += 1.0f;
        }
    }
}

int fc_ex_parse_desc(const fc_message_desc *md, void *out, const void *data, size_t len,
                     fc_ex_lookup_fn lookup, const void *ctx, fc_feature_ref *refs, fc_error *err)
{
    unsigned char *m = (unsigned char *)out;
    uint32_t *present = (uint32_t *)(void *)(m + md->present_offset);
    fc_ex_scan_info info;
    size_t i, k;
    int hashed = 0, typed = 0;
    int rc = fc_ex_scan_batched(data, len, lookup, ctx, NULL, refs, md->nfields, &info, err);
    if (rc != FC_OK)
        return rc;
    memset(present, 0, ((md->nfields + 31u) / 32u) * sizeof(uint32_t));
    /* the decode (a generated _decode): the first problem stops it, and
     * fc_ex_report then finds the one TensorFlow reports */
    for (i = 0; i < md->nfields; i++) {
        const fc_field_desc *f = &md->fields[i];
        if (f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED)
            continue; /* built from their fields afterwards */
        if (refs[i].entry != 0) {
            if (decode_field(md, m, refs, i, NULL) != FC_OK)
                return fc_ex_report(md, out, refs, &info, decode_field, err);
            fc_bit_set(present, (unsigned)i);
        } else if (f->kind != FC_KIND_FIXED) {
            *(size_t *)(void *)(m + f->count_offset) = 0;
        }
    }
    if (info.bad_kind_entry != 0)
        return fc_ex_report(md, out, refs, &info, decode_field, err);
    /* defaults (a generated _defaults) */
    for (i = 0; i < md->nfields; i++) {
        const fc_field_desc *f = &md->fields[i];
        if (f->kind == FC_KIND_FIXED && f->default_value != NULL && f->elems > 0 &&
            !fc_bit_get(present, (unsigned)i))
            memcpy(m + f->value_offset, f->default_value, f->elems * fc_type_size(f->type));
        hashed |= f->extra->hash_buckets > 0;
        typed |= f->extra->as != NULL;
    }
    /* required features, in TensorFlow's order (by key) */
    for (k = 0; k < md->nfields; k++) {
        const fc_field_desc *f = &md->fields[md->missing_order[k]];
        if (f->kind == FC_KIND_FIXED && f->default_value == NULL &&
            !fc_bit_get(present, md->missing_order[k]))
            return fc_ex_missing(md, md->missing_order[k], err);
    }
    /* what is built from the values */
    for (i = 0; i < md->nfields; i++) {
        fc_kind kind = md->fields[i].kind;
        if (kind == FC_KIND_SPARSE && fc_ex_sparse(md, i, out, err) != FC_OK)
            return FC_ERR_PARSE;
        if (kind == FC_KIND_RAGGED && fc_ex_ragged(md, i, out, err) != FC_OK)
            return FC_ERR_PARSE;
    }
    if (hashed)
        fc_ex_hash_fields(md->fields, md->nfields, out);
    /* the defaults' walk found whether any field has `as`: a spec without
     * typed tensors takes no second walk over its fields per record */
    return typed ? fc_ex_as_fields(md->fields, md->nfields, out, 0, err) : FC_OK;
}

int fc_ex_missing(const fc_message_desc *md, size_t i, fc_error *err)
{
    const fc_field_desc *f = &md->fields[i];
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "Feature: ");
    fc_msg_mem(&m, f->key, f->key_len);
    fc_msg_str(&m, " (data type: ");
    fc_msg_str(&m, fc_type_tf_name(f->type));
    fc_msg_str(&m, ") is required but could not be found.");
    return FC_ERR_PARSE;
}
