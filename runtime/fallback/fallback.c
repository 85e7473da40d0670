/* Generic Example / SequenceExample decoding on top of protobuf-c.
 *
 * Two steps: a schema walker checks the wire format and names the first
 * problem with its byte offset (protobuf-c's unpack only says "no"), then
 * protobuf-c decodes into arena memory, and the maps are normalised (sorted,
 * last duplicate wins) the way standard protobuf presents them.
 */
#include "featc/fc_fallback.h"

#include "fc_example.pb-c.h"

#include <stddef.h>
#include <string.h>

/* ------------------------------------------------- protobuf-c allocator */

static void *pbc_alloc(void *data, size_t size)
{
    return fc_arena_alloc((fc_arena *)data, size);
}

static void pbc_free(void *data, void *ptr)
{
    (void)data;
    (void)ptr;
}

/* -------------------------------------------------------------------- UTF-8 */

int fc_utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0, u;
    for (; i < n; i += u)
        if (s[i] < 0x80)
            u = 1; /* ASCII, most keys: no call */
        else if ((u = fc_utf8_seq(s + i, n - i)) == 0)
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ walker */

enum msg_type {
    M_EXAMPLE, M_SEQEX, M_FEATURES, M_FENTRY, M_FEATURE, M_BYTES, M_FLOATS, M_INT64S,
    M_FLISTS, M_FLENTRY, M_FLIST
};

/* What a field holds, when it is not a message. */
enum { C_UNKNOWN = -1, C_STRING = -2, C_BYTES = -3, C_FLOAT = -4, C_INT64 = -5 };

static const char *const msg_names[] = {
    "Example", "SequenceExample", "Features", "Features map entry", "Feature", "BytesList",
    "FloatList", "Int64List", "FeatureLists", "FeatureLists map entry", "FeatureList"};

static int child_of(int msg, uint64_t field)
{
    switch (msg) {
    case M_EXAMPLE: return field == 1 ? M_FEATURES : C_UNKNOWN;
    case M_SEQEX: return field == 1 ? M_FEATURES : field == 2 ? M_FLISTS : C_UNKNOWN;
    case M_FEATURES: return field == 1 ? M_FENTRY : C_UNKNOWN;
    case M_FENTRY: return field == 1 ? C_STRING : field == 2 ? M_FEATURE : C_UNKNOWN;
    case M_FEATURE:
        return field == 1 ? M_BYTES : field == 2 ? M_FLOATS : field == 3 ? M_INT64S : C_UNKNOWN;
    case M_BYTES: return field == 1 ? C_BYTES : C_UNKNOWN;
    case M_FLOATS: return field == 1 ? C_FLOAT : C_UNKNOWN;
    case M_INT64S: return field == 1 ? C_INT64 : C_UNKNOWN;
    case M_FLISTS: return field == 1 ? M_FLENTRY : C_UNKNOWN;
    case M_FLENTRY: return field == 1 ? C_STRING : field == 2 ? M_FLIST : C_UNKNOWN;
    case M_FLIST: return field == 1 ? M_FEATURE : C_UNKNOWN;
    default: return C_UNKNOWN;
    }
}

typedef struct walker {
    const uint8_t *base;
    fc_error *err;
    int strict;
    int skip_unknown; /* FC_FALLBACK_SKIP_UNKNOWN */
    int overlong;     /* a tag or length of 6 to 10 bytes was seen */
} walker;

#define WALK_MAX_DEPTH 8

/* "<what> <num><after> in <message> at byte <offset>" (num omitted when
 * UINT64_MAX, after when NULL). */
static int walk_fail_x(walker *w, const uint8_t *at, int msg, const char *what, uint64_t num,
                       const char *after)
{
    fc_msg m = fc_error_begin(w->err, FC_ERR_PARSE, FC_NO_INDEX, (uint64_t)(at - w->base));
    fc_msg_str(&m, what);
    if (num != UINT64_MAX) {
        fc_msg_str(&m, " ");
        fc_msg_u64(&m, num);
    }
    if (after != NULL)
        fc_msg_str(&m, after);
    fc_msg_str(&m, " in ");
    fc_msg_str(&m, msg_names[msg]);
    fc_msg_str(&m, " at byte ");
    fc_msg_u64(&m, (uint64_t)(at - w->base));
    return -1;
}

static int walk_fail(walker *w, const uint8_t *at, int msg, const char *what, uint64_t num)
{
    return walk_fail_x(w, at, msg, what, num, NULL);
}

/* Reads a varint of at most max_bytes bytes; NULL if it is cut short or
 * longer.  Values, tags and lengths take 10 bytes at most, as protobuf's
 * readers (and TensorFlow's ReadVarint32, and the generated parsers) take
 * them; protobuf-c reads tags and lengths of 5 bytes at most, so a record
 * with a longer one is handed to it re-encoded (canonical() below). */
static const uint8_t *read_varint_n(const uint8_t *p, const uint8_t *end, uint64_t *out,
                                    int max_bytes)
{
    uint64_t v = 0;
    int shift = 0;
    while (p < end && shift < 7 * max_bytes) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 63);
        if ((b & 0x80) == 0) {
            *out = v;
            return p;
        }
        shift += 7;
    }
    return NULL;
}

static const uint8_t *read_varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    return read_varint_n(p, end, out, 10);
}

/* A tag or a length: up to 10 bytes, a value that fits 32 bits (as the
 * generated parsers' fc_wire_len; TensorFlow would keep the low 32 bits of
 * a larger one).  *overlong is set when it is longer than protobuf-c reads. */
static const uint8_t *read_varint32(const uint8_t *p, const uint8_t *end, uint64_t *out,
                                    int *overlong)
{
    const uint8_t *q = read_varint_n(p, end, out, 10);
    if (q == NULL || *out > UINT32_MAX)
        return NULL;
    if (q - p > 5)
        *overlong = 1;
    return q;
}

/* Strict shape: one of each top-level field, map entries with exactly one
 * key and one value, at most one kind per Feature. */
static int walk_shape(walker *w, int msg, const uint8_t *at, const unsigned seen[4])
{
    if (!w->strict)
        return 0;
    if ((msg == M_EXAMPLE || msg == M_SEQEX) && (seen[1] > 1 || seen[2] > 1))
        return walk_fail_x(w, at, msg, "top-level field", seen[1] > 1 ? 1 : 2,
                           " occurs more than once (a concatenation of messages, or another "
                           "message type)");
    if ((msg == M_FENTRY || msg == M_FLENTRY) && seen[1] != 1)
        return walk_fail_x(w, at, msg, "key given", seen[1], " times (map entries have one)");
    if ((msg == M_FENTRY || msg == M_FLENTRY) && seen[2] != 1)
        return walk_fail_x(w, at, msg, "value given", seen[2], " times (map entries have one)");
    if (msg == M_FEATURE && seen[1] + seen[2] + seen[3] > 1)
        return walk_fail_x(w, at, msg, "kind set", seen[1] + seen[2] + seen[3],
                           " times (a Feature has one)");
    return 0;
}

static int walk_msg(walker *w, int msg, const uint8_t *p, const uint8_t *end, int depth)
{
    const uint8_t *start = p;
    unsigned seen[4] = {0, 0, 0, 0};
    int first_value_empty = 0;
    if (depth > WALK_MAX_DEPTH)
        return walk_fail(w, p, msg, "nesting too deep", UINT64_MAX);
    while (p < end) {
        const uint8_t *field_at = p;
        uint64_t tag, len = 0;
        unsigned wt;
        int child;
        p = read_varint32(p, end, &tag, &w->overlong);
        if (p == NULL)
            return walk_fail(w, field_at, msg, "truncated or overlong field tag", UINT64_MAX);
        wt = (unsigned)(tag & 7u);
        if ((tag >> 3) == 0)
            return walk_fail(w, field_at, msg, "field number 0", UINT64_MAX);
        child = child_of(msg, tag >> 3);
        if (wt == 3 || wt == 4 || wt > 5)
            return walk_fail(w, field_at, msg, "invalid wire type", wt);
        if (child == C_UNKNOWN) {
            uint64_t skip = 0;
            if (!(w->skip_unknown && (msg == M_EXAMPLE || msg == M_SEQEX)))
                return walk_fail(w, field_at, msg, "unknown field", tag >> 3);
            /* FC_FALLBACK_SKIP_UNKNOWN: skipped, as TensorFlow skips them */
            if (wt == 0) {
                p = read_varint(p, end, &skip);
                skip = 0;
            } else if (wt == 2) {
                p = read_varint32(p, end, &skip, &w->overlong);
            } else {
                skip = wt == 1 ? 8u : 4u;
            }
            if (p == NULL || skip > (uint64_t)(end - p))
                return walk_fail(w, field_at, msg, "truncated unknown field", tag >> 3);
            p += skip;
            continue;
        }
        seen[tag >> 3]++; /* known fields are numbered 1..3 */
        if (wt == 2) {
            p = read_varint32(p, end, &len, &w->overlong);
            if (p == NULL)
                return walk_fail(w, field_at, msg, "truncated or overlong length of field",
                                 tag >> 3);
            if (len > (uint64_t)(end - p))
                return walk_fail(w, field_at, msg, "truncated length-delimited field", tag >> 3);
        }
        if (child >= 0) {
            if (wt != 2)
                return walk_fail(w, field_at, msg, "message field with wire type", wt);
            /* protobuf-c 1.4 fails to merge an empty Feature into an empty
             * Feature (the first two values of one map entry both empty);
             * standard protobuf reads an empty Feature.  Only reachable with
             * FC_FALLBACK_LENIENT: the strict shape allows one value. */
            if (msg == M_FENTRY && (tag >> 3) == 2) { /* seen[2] counts this one */
                if (seen[2] == 2 && first_value_empty && len == 0 && !w->strict)
                    return walk_fail(w, field_at, msg,
                                     "second empty Feature value (protobuf-c cannot merge two "
                                     "empty Features)",
                                     UINT64_MAX);
                if (seen[2] == 1)
                    first_value_empty = len == 0;
            }
            if (walk_msg(w, child, p, p + len, depth + 1) != 0)
                return -1;
            p += len;
        } else if (child == C_STRING || child == C_BYTES) {
            if (wt != 2)
                return walk_fail(w, field_at, msg, "bytes field with wire type", wt);
            if (child == C_STRING && !fc_utf8_valid(p, (size_t)len))
                return walk_fail(w, field_at, msg, "key that is not valid UTF-8", UINT64_MAX);
            p += len;
        } else if (child == C_FLOAT) {
            if (wt == 5) {
                if (end - p < 4)
                    return walk_fail(w, field_at, msg, "truncated float", UINT64_MAX);
                p += 4;
            } else if (wt == 2) {
                if (len % 4 != 0)
                    return walk_fail(w, field_at, msg,
                                     "packed floats whose length is not a multiple of 4:", len);
                p += len;
            } else {
                return walk_fail(w, field_at, msg, "float field with wire type", wt);
            }
        } else { /* C_INT64 */
            if (wt == 0) {
                uint64_t v;
                p = read_varint(p, end, &v);
                if (p == NULL)
                    return walk_fail(w, field_at, msg, "truncated or overlong varint", UINT64_MAX);
            } else if (wt == 2) {
                const uint8_t *q = p, *qend = p + len;
                while (q < qend) {
                    uint64_t v;
                    const uint8_t *at = q;
                    q = read_varint(q, qend, &v);
                    if (q == NULL)
                        return walk_fail(w, at, msg, "truncated or overlong packed varint",
                                         UINT64_MAX);
                }
                p = qend;
            } else {
                return walk_fail(w, field_at, msg, "int64 field with wire type", wt);
            }
        }
    }
    return walk_shape(w, msg, start, seen);
}

/* fc_fallback_check; *overlong: the accepted reading has a tag or length
 * longer than protobuf-c reads. */
static fc_status check(const void *data, size_t len, fc_payload_kind want, int flags,
                       fc_payload_kind *kind, fc_error *err, int *overlong)
{
    const uint8_t *p = (const uint8_t *)data;
    fc_error e_ex, e_seq;
    walker w;
    int ok_ex = 0, ok_seq = 0;
    if (p == NULL)
        len = 0;
    fc_error_clear(&e_ex);
    fc_error_clear(&e_seq);
    w.base = p;
    w.strict = (flags & FC_FALLBACK_LENIENT) == 0;
    w.skip_unknown = (flags & FC_FALLBACK_SKIP_UNKNOWN) != 0;
    *kind = FC_PAYLOAD_OTHER;
    if (want == FC_PAYLOAD_EXAMPLE || want == FC_PAYLOAD_AUTO) {
        w.err = &e_ex;
        w.overlong = 0;
        ok_ex = walk_msg(&w, M_EXAMPLE, p, p + len, 0) == 0;
        if (ok_ex) {
            *kind = FC_PAYLOAD_EXAMPLE;
            *overlong = w.overlong;
            return FC_OK;
        }
    }
    if (want == FC_PAYLOAD_SEQUENCE_EXAMPLE || want == FC_PAYLOAD_AUTO) {
        w.err = &e_seq;
        w.overlong = 0;
        ok_seq = walk_msg(&w, M_SEQEX, p, p + len, 0) == 0;
        if (ok_seq) {
            *kind = FC_PAYLOAD_SEQUENCE_EXAMPLE;
            *overlong = w.overlong;
            return FC_OK;
        }
    }
    if (err != NULL) {
        /* Report the reading that got further into the bytes. */
        const fc_error *best;
        fc_msg m;
        if (want == FC_PAYLOAD_EXAMPLE)
            best = &e_ex;
        else if (want == FC_PAYLOAD_SEQUENCE_EXAMPLE)
            best = &e_seq;
        else
            best = e_seq.offset > e_ex.offset && e_seq.status != FC_OK ? &e_seq : &e_ex;
        m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, best->offset);
        fc_msg_str(&m, want == FC_PAYLOAD_EXAMPLE            ? "not an Example: "
                       : want == FC_PAYLOAD_SEQUENCE_EXAMPLE ? "not a SequenceExample: "
                                                             : "not an Example or SequenceExample: ");
        fc_msg_str(&m, best->message);
    }
    return FC_ERR_PARSE;
}

fc_status fc_fallback_check(const void *data, size_t len, fc_payload_kind want, int flags,
                            fc_payload_kind *kind, fc_error *err)
{
    int overlong = 0;
    return check(data, len, want, flags, kind, err, &overlong);
}

/* ------------------------------------------------------ canonical varints */

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80u) {
        out[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* The message [p, end), which the walker accepted as msg, into out (room for
 * cap bytes) with every tag and every length of a message field re-encoded
 * in its fewest bytes, so that protobuf-c, which reads tags and lengths of
 * 5 bytes at most, reads it; values and other fields' bodies are copied as
 * they are.  A child is written 5 bytes on (room for any length) and moved
 * back once its length is known.  Returns the bytes written, or SIZE_MAX
 * when cap is too small. */
static size_t canonical(int msg, const uint8_t *p, const uint8_t *end, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int ignored = 0;
    while (p < end) {
        uint64_t tag = 0, len = 0, v = 0;
        const uint8_t *body;
        int child;
        p = read_varint32(p, end, &tag, &ignored); /* the walker checked every read */
        if (cap - n < 5)
            return SIZE_MAX;
        n += put_varint(out + n, tag);
        child = child_of(msg, tag >> 3);
        switch (tag & 7u) {
        case 0:
            body = p;
            p = read_varint(p, end, &v);
            break;
        case 1:
            body = p;
            p += 8;
            break;
        case 5:
            body = p;
            p += 4;
            break;
        default: /* 2 */
            p = read_varint32(p, end, &len, &ignored);
            if (child >= 0) {
                size_t k;
                if (cap - n < 5)
                    return SIZE_MAX;
                k = canonical(child, p, p + len, out + n + 5, cap - n - 5);
                if (k == SIZE_MAX)
                    return SIZE_MAX;
                {
                    size_t h = put_varint(out + n, k);
                    memmove(out + n + h, out + n + 5, k);
                    n += h + k;
                }
                p += len;
                continue;
            }
            if (cap - n < 5)
                return SIZE_MAX;
            n += put_varint(out + n, len);
            body = p;
            p += len;
            break;
        }
        if ((size_t)(p - body) > cap - n)
            return SIZE_MAX;
        memcpy(out + n, body, (size_t)(p - body));
        n += (size_t)(p - body);
    }
    return n;
}

/* ------------------------------------------------------------ normalising */

static const FcPb__Feature empty_feature = FC_PB__FEATURE__INIT;
static const FcPb__FeatureList empty_feature_list = FC_PB__FEATURE_LIST__INIT;

typedef struct keyed {
    const uint8_t *key;
    size_t key_len;
    const void *value;
} keyed;

static int key_cmp(const keyed *a, const keyed *b)
{
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = n > 0 ? memcmp(a->key, b->key, n) : 0;
    if (c != 0)
        return c;
    return a->key_len < b->key_len ? -1 : a->key_len > b->key_len ? 1 : 0;
}

/* Stable bottom-up merge sort (no recursion, no malloc: tmp comes from the arena). */
static void sort_keyed(keyed *v, keyed *tmp, size_t n)
{
    size_t width, i;
    keyed *src = v, *dst = tmp;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            size_t lo = i, mid = i + width < n ? i + width : n;
            size_t hi = i + 2 * width < n ? i + 2 * width : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                dst[k++] = key_cmp(&src[b], &src[a]) < 0 ? src[b++] : src[a++];
            while (a < mid)
                dst[k++] = src[a++];
            while (b < hi)
                dst[k++] = src[b++];
        }
        {
            keyed *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

/* Sorts entries by key and keeps the last occurrence of each key. */
static size_t normalise(keyed *v, size_t n, fc_arena *arena, int *nomem)
{
    keyed *tmp;
    size_t i, out = 0;
    for (i = 1; i < n && key_cmp(&v[i - 1], &v[i]) < 0; i++)
        ;
    if (i >= n)
        return n; /* in order, no key twice: as writers leave them */
    tmp = (keyed *)fc_arena_alloc(arena, n * sizeof *tmp);
    if (tmp == NULL) {
        *nomem = 1;
        return 0;
    }
    sort_keyed(v, tmp, n);
    for (i = 0; i < n; i++) {
        if (i + 1 < n && key_cmp(&v[i], &v[i + 1]) == 0)
            continue; /* a later duplicate wins */
        v[out++] = v[i];
    }
    return out;
}

/* fc_fb_bytes shows protobuf-c's bytes values in place. */
typedef char fc_fb_bytes_fits_[(sizeof(fc_fb_bytes) == sizeof(ProtobufCBinaryData) &&
                                offsetof(fc_fb_bytes, len) == offsetof(ProtobufCBinaryData, len) &&
                                offsetof(fc_fb_bytes, data) == offsetof(ProtobufCBinaryData, data))
                                   ? 1
                                   : -1];

static void value_of(const FcPb__Feature *f, fc_fb_value *v)
{
    memset(v, 0, sizeof *v);
    if (f->kind_case == FC_PB__FEATURE__KIND_BYTES_LIST && f->bytes_list != NULL) {
        v->kind = FC_FB_BYTES;
        v->n = f->bytes_list->n_value;
        v->bytes = (const fc_fb_bytes *)(const void *)f->bytes_list->value;
    } else if (f->kind_case == FC_PB__FEATURE__KIND_FLOAT_LIST && f->float_list != NULL) {
        v->kind = FC_FB_FLOAT;
        v->n = f->float_list->n_value;
        v->floats = f->float_list->value;
    } else if (f->kind_case == FC_PB__FEATURE__KIND_INT64_LIST && f->int64_list != NULL) {
        v->kind = FC_FB_INT64;
        v->n = f->int64_list->n_value;
        v->int64s = f->int64_list->value;
    }
}

/* The view of the normalised entries (values FcPb__Feature, or
 * FcPb__FeatureList), in the arena; 0, or -1 when it is exhausted. */
static int make_view(fc_fallback *out, const keyed *fv, size_t nf, const keyed *lv, size_t nl,
                     fc_arena *arena)
{
    size_t i, j;
    fc_fb_value *vals;
    if (nf > 0) {
        out->features = (fc_fb_feature *)fc_arena_alloc(arena, nf * sizeof *out->features);
        vals = (fc_fb_value *)fc_arena_alloc(arena, nf * sizeof *vals);
        if (out->features == NULL || vals == NULL)
            return -1;
        for (i = 0; i < nf; i++) {
            value_of((const FcPb__Feature *)fv[i].value, &vals[i]);
            out->features[i].key = fv[i].key;
            out->features[i].key_len = fv[i].key_len;
            out->features[i].value = &vals[i];
        }
        out->n_features = nf;
    }
    if (nl > 0) {
        out->feature_lists =
            (fc_fb_feature_list *)fc_arena_alloc(arena, nl * sizeof *out->feature_lists);
        if (out->feature_lists == NULL)
            return -1;
        for (i = 0; i < nl; i++) {
            const FcPb__FeatureList *l = (const FcPb__FeatureList *)lv[i].value;
            fc_fb_feature_list *o = &out->feature_lists[i];
            o->key = lv[i].key;
            o->key_len = lv[i].key_len;
            o->n_frames = l->n_feature;
            o->frames = NULL;
            if (l->n_feature == 0)
                continue;
            if (l->n_feature > SIZE_MAX / sizeof *vals)
                return -1;
            vals = (fc_fb_value *)fc_arena_alloc(arena, l->n_feature * sizeof *vals);
            if (vals == NULL)
                return -1;
            for (j = 0; j < l->n_feature; j++)
                value_of(l->feature[j] != NULL ? l->feature[j] : &empty_feature, &vals[j]);
            o->frames = vals;
        }
        out->n_feature_lists = nl;
    }
    return 0;
}

static fc_status decode_nomem(fc_error *err, const fc_arena *a)
{
    fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "fallback decoder arena of ");
    fc_msg_u64(&m, a->size);
    fc_msg_str(&m, " bytes exhausted; retry with a larger one");
    return FC_ERR_NO_MEMORY;
}

fc_status fc_fallback_decode(const void *data, size_t len, fc_payload_kind want, int flags,
                             fc_arena *arena, fc_fallback *out, fc_error *err)
{
    ProtobufCAllocator alloc;
    const FcPb__Features *features = NULL;
    const FcPb__FeatureLists *lists = NULL;
    fc_payload_kind kind;
    fc_status st;
    int nomem = 0, overlong = 0;
    keyed *fv = NULL, *lv = NULL;
    size_t i, nf = 0, nl = 0;
    memset(out, 0, sizeof *out);
    st = check(data, len, want, flags, &kind, err, &overlong);
    if (st != FC_OK)
        return st;
    if (overlong) {
        /* canonical encodings are never longer, but a child is first written
         * 5 bytes on, which may run up to 4 bytes past its field's end at
         * each level of nesting */
        size_t cap = len + 5 * (WALK_MAX_DEPTH + 2), n;
        uint8_t *copy = (uint8_t *)fc_arena_alloc(arena, cap);
        if (copy == NULL)
            return decode_nomem(err, arena);
        n = canonical(kind == FC_PAYLOAD_EXAMPLE ? M_EXAMPLE : M_SEQEX, (const uint8_t *)data,
                      (const uint8_t *)data + len, copy, cap);
        if (n == SIZE_MAX) {
            fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "could not re-encode the record's long varints for protobuf-c");
            return FC_ERR_PARSE;
        }
        data = copy;
        len = n;
    }
    alloc.alloc = pbc_alloc;
    alloc.free = pbc_free;
    alloc.allocator_data = arena;
    arena->exhausted = 0;
    out->kind = kind;
    if (kind == FC_PAYLOAD_EXAMPLE) {
        FcPb__Example *ex = fc_pb__example__unpack(&alloc, len, (const uint8_t *)data);
        if (ex == NULL)
            goto unpack_failed;
        out->message = ex;
        features = ex->features;
    } else {
        FcPb__SequenceExample *sx =
            fc_pb__sequence_example__unpack(&alloc, len, (const uint8_t *)data);
        if (sx == NULL)
            goto unpack_failed;
        out->message = sx;
        features = sx->context;
        lists = sx->feature_lists;
    }
    if (features != NULL && features->n_feature > 0) {
        keyed *v = (keyed *)fc_arena_alloc(arena, features->n_feature * sizeof *v);
        if (v == NULL)
            return decode_nomem(err, arena);
        for (i = 0; i < features->n_feature; i++) {
            const FcPb__FeatureEntry *e = features->feature[i];
            v[i].key = e->key.data;
            v[i].key_len = e->key.len;
            v[i].value = e->value != NULL ? e->value : &empty_feature;
        }
        nf = normalise(v, features->n_feature, arena, &nomem);
        if (nomem)
            return decode_nomem(err, arena);
        fv = v;
    }
    if (lists != NULL && lists->n_feature_list > 0) {
        keyed *v = (keyed *)fc_arena_alloc(arena, lists->n_feature_list * sizeof *v);
        if (v == NULL)
            return decode_nomem(err, arena);
        for (i = 0; i < lists->n_feature_list; i++) {
            const FcPb__FeatureListEntry *e = lists->feature_list[i];
            v[i].key = e->key.data;
            v[i].key_len = e->key.len;
            v[i].value = e->value != NULL ? e->value : &empty_feature_list;
        }
        nl = normalise(v, lists->n_feature_list, arena, &nomem);
        if (nomem)
            return decode_nomem(err, arena);
        lv = v;
    }
    out->has_features = features != NULL;
    out->has_feature_lists = lists != NULL;
    if (make_view(out, fv, nf, lv, nl, arena) != 0)
        return decode_nomem(err, arena);
    return FC_OK;

unpack_failed:
    if (arena->exhausted)
        return decode_nomem(err, arena);
    {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "protobuf-c could not unpack a record the wire check accepted as ");
        fc_msg_str(&m, kind == FC_PAYLOAD_EXAMPLE ? "an Example" : "a SequenceExample");
    }
    return FC_ERR_PARSE;
}

static int key_eq(const uint8_t *a, size_t an, const void *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

const fc_fb_feature *fc_fallback_find(const fc_fallback *fb, const void *key, size_t key_len)
{
    size_t i;
    for (i = 0; i < fb->n_features; i++)
        if (key_eq(fb->features[i].key, fb->features[i].key_len, key, key_len))
            return &fb->features[i];
    return NULL;
}

const fc_fb_feature_list *fc_fallback_find_list(const fc_fallback *fb, const void *key,
                                                size_t key_len)
{
    size_t i;
    for (i = 0; i < fb->n_feature_lists; i++)
        if (key_eq(fb->feature_lists[i].key, fb->feature_lists[i].key_len, key, key_len))
            return &fb->feature_lists[i];
    return NULL;
}

/* ------------------------------------------------------------ canonical
 *
 * fc_fallback_decode_canonical: the records real writers produce, decoded
 * without protobuf-c.  Accepted: each top-level field once and in order
 * (Example: features; SequenceExample: context, then feature_lists), map
 * entries of a key then a value, UTF-8 keys, Features of exactly one kind,
 * bytes values, packed floats, packed varint int64s (no varint longer than
 * protobuf writes).  Anything else is left to fc_fallback_decode, which
 * reads every layout; both give the same fc_fallback for these bytes. */

typedef struct cwalk {
    const uint8_t *p, *end;
} cwalk;

static int c_varint(cwalk *w, uint64_t *v)
{
    uint64_t r = 0;
    unsigned shift;
    for (shift = 0; shift < 64 && w->p < w->end; shift += 7) {
        uint8_t b = *w->p++;
        if (shift == 63 && b > 1)
            return 0;
        r |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

/* A length-delimited field with tag byte `tag`: its body. */
static int c_field(cwalk *w, uint8_t tag, cwalk *body)
{
    uint64_t n;
    if (w->end - w->p < 2 || *w->p != tag)
        return 0;
    w->p++;
    if (*w->p < 0x80) /* most lengths are one byte */
        n = *w->p++;
    else if (!c_varint(w, &n))
        return 0;
    if (n > (uint64_t)(w->end - w->p))
        return 0;
    body->p = w->p;
    body->end = w->p + n;
    w->p += n;
    return 1;
}

/* A Feature and its list, in one allocation. */
/* A Feature, its list and the list's values, in one allocation. */
typedef struct c_feature_mem {
    FcPb__Feature f;
    union {
        FcPb__BytesList b;
        FcPb__FloatList f;
        FcPb__Int64List i;
    } l;
} c_feature_mem;

static FcPb__Feature *c_feature(cwalk v, fc_arena *a)
{
    static const FcPb__Feature init = FC_PB__FEATURE__INIT;
    c_feature_mem *mem;
    cwalk list, packed;
    uint8_t tag = 0;
    size_t cap = 0, each = 0, n = 0, i;
    /* the kind and how many values: then one allocation */
    if (v.p < v.end) {
        tag = *v.p;
        if (!c_field(&v, tag, &list) || v.p != v.end)
            return NULL;
        packed.p = packed.end = list.p;
        if (tag == 0x0a) {
            cwalk c = list, b;
            while (c.p < c.end)
                if (!c_field(&c, 0x0a, &b) || ++cap == 0)
                    return NULL;
            each = sizeof(ProtobufCBinaryData);
        } else if (tag == 0x12 || tag == 0x1a) {
            if (list.p < list.end && (!c_field(&list, 0x0a, &packed) || list.p != list.end))
                return NULL;
            if (tag == 0x12) {
                if ((packed.end - packed.p) % 4 != 0)
                    return NULL;
                cap = (size_t)(packed.end - packed.p) / 4;
                each = sizeof(float);
            } else {
                const uint8_t *q;
                for (q = packed.p; q < packed.end; q++)
                    cap += (*q & 0x80) == 0; /* each varint ends on one */
                each = sizeof(int64_t);
            }
        } else {
            return NULL;
        }
    }
    /* sizeof *mem is a multiple of its pointers' alignment, and so of the values' */
    mem = (c_feature_mem *)fc_arena_alloc(a, sizeof *mem + cap * each);
    if (mem == NULL)
        return NULL;
    mem->f = init;
    if (tag == 0x0a) {
        static const FcPb__BytesList linit = FC_PB__BYTES_LIST__INIT;
        FcPb__BytesList *l = &mem->l.b;
        cwalk b;
        *l = linit;
        l->value = cap > 0 ? (ProtobufCBinaryData *)(void *)(mem + 1) : NULL;
        while (list.p < list.end) {
            if (!c_field(&list, 0x0a, &b) || n == cap)
                return NULL;
            l->value[n].data = (uint8_t *)(uintptr_t)b.p;
            l->value[n].len = (size_t)(b.end - b.p);
            n++;
        }
        l->n_value = n;
        mem->f.kind_case = FC_PB__FEATURE__KIND_BYTES_LIST;
        mem->f.bytes_list = l;
    } else if (tag == 0x12) {
        static const FcPb__FloatList linit = FC_PB__FLOAT_LIST__INIT;
        FcPb__FloatList *l = &mem->l.f;
        *l = linit;
        l->value = cap > 0 ? (float *)(void *)(mem + 1) : NULL;
        for (i = 0; i < cap; i++) {
            const uint8_t *q = packed.p + 4 * i;
            uint32_t u = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                         (uint32_t)q[3] << 24;
            memcpy(&l->value[i], &u, sizeof u);
        }
        l->n_value = cap;
        mem->f.kind_case = FC_PB__FEATURE__KIND_FLOAT_LIST;
        mem->f.float_list = l;
    } else if (tag == 0x1a) {
        static const FcPb__Int64List linit = FC_PB__INT64_LIST__INIT;
        FcPb__Int64List *l = &mem->l.i;
        *l = linit;
        l->value = cap > 0 ? (int64_t *)(void *)(mem + 1) : NULL;
        while (packed.p < packed.end) {
            uint64_t u;
            if (n == cap)
                return NULL;
            if (*packed.p < 0x80) /* one byte: most counts, ids and labels */
                u = *packed.p++;
            else if (!c_varint(&packed, &u))
                return NULL;
            l->value[n++] = (int64_t)u;
        }
        l->n_value = n;
        mem->f.kind_case = FC_PB__FEATURE__KIND_INT64_LIST;
        mem->f.int64_list = l;
    }
    return &mem->f; /* tag 0: Feature{} */
}

/* A map (Features or FeatureLists): its entries into *v (arena), n in *n;
 * lists: values are FeatureLists. */
static size_t c_count(cwalk w)
{
    size_t n = 0;
    cwalk b;
    while (w.p < w.end) {
        if (!c_field(&w, 0x0a, &b))
            return SIZE_MAX;
        n++;
    }
    return n;
}

static int c_map(cwalk m, int lists, fc_arena *a, keyed **v, size_t *n)
{
    size_t cap = c_count(m), k = 0;
    keyed *e;
    if (cap == SIZE_MAX)
        return 0;
    e = (keyed *)fc_arena_alloc(a, (cap + 1) * sizeof *e);
    if (e == NULL)
        return 0;
    while (m.p < m.end) {
        cwalk ent, key, val;
        if (k == cap || !c_field(&m, 0x0a, &ent) || !c_field(&ent, 0x0a, &key) ||
            !c_field(&ent, 0x12, &val) || ent.p != ent.end ||
            !fc_utf8_valid(key.p, (size_t)(key.end - key.p)))
            return 0;
        e[k].key = key.p;
        e[k].key_len = (size_t)(key.end - key.p);
        if (!lists) {
            e[k].value = c_feature(val, a);
        } else {
            static const FcPb__FeatureList linit = FC_PB__FEATURE_LIST__INIT;
            FcPb__FeatureList *fl = (FcPb__FeatureList *)fc_arena_alloc(a, sizeof *fl);
            size_t fcap = c_count(val), j = 0;
            if (fl == NULL || fcap == SIZE_MAX)
                return 0;
            *fl = linit;
            fl->feature = (FcPb__Feature **)fc_arena_alloc(a, (fcap + 1) * sizeof *fl->feature);
            if (fl->feature == NULL)
                return 0;
            while (val.p < val.end) {
                cwalk fb;
                if (j == fcap || !c_field(&val, 0x0a, &fb) ||
                    (fl->feature[j] = c_feature(fb, a)) == NULL)
                    return 0;
                j++;
            }
            fl->n_feature = j;
            if (j == 0)
                fl->feature = NULL;
            e[k].value = fl;
        }
        if (e[k].value == NULL)
            return 0;
        k++;
    }
    *v = e;
    *n = k;
    return 1;
}

fc_status fc_fallback_decode_canonical(const void *data, size_t len, fc_payload_kind want,
                                       fc_arena *arena, fc_fallback *out)
{
    static const FcPb__Example einit = FC_PB__EXAMPLE__INIT;
    static const FcPb__SequenceExample sinit = FC_PB__SEQUENCE_EXAMPLE__INIT;
    static const FcPb__Features finit = FC_PB__FEATURES__INIT;
    static const FcPb__FeatureLists linit = FC_PB__FEATURE_LISTS__INIT;
    cwalk w, feats, lists;
    int has_feats = 0, has_lists = 0, nomem = 0;
    keyed *fv = NULL, *lv = NULL;
    size_t nf = 0, nl = 0, i, used = arena->used;
    memset(out, 0, sizeof *out);
    if (data == NULL || len == 0 || len > (size_t)INT32_MAX)
        return FC_ERR_STATE;
    w.p = (const uint8_t *)data;
    w.end = w.p + len;
    if (*w.p == 0x0a) {
        if (!c_field(&w, 0x0a, &feats))
            goto no;
        has_feats = 1;
    }
    if (w.p < w.end && *w.p == 0x12) {
        if (!c_field(&w, 0x12, &lists))
            goto no;
        has_lists = 1;
    }
    if (w.p != w.end)
        goto no;
    /* auto: an Example when it can be one (no feature_lists) */
    if (want == FC_PAYLOAD_AUTO)
        want = has_lists ? FC_PAYLOAD_SEQUENCE_EXAMPLE : FC_PAYLOAD_EXAMPLE;
    if ((want == FC_PAYLOAD_EXAMPLE && has_lists) || want == FC_PAYLOAD_OTHER)
        goto no;
    if ((has_feats && !c_map(feats, 0, arena, &fv, &nf)) ||
        (has_lists && !c_map(lists, 1, arena, &lv, &nl)))
        goto no;
    out->kind = want;
    {
        FcPb__Features *F = NULL;
        FcPb__FeatureLists *L = NULL;
        FcPb__FeatureEntry *es; /* the entries, one array each */
        FcPb__FeatureListEntry *ls;
        if (has_feats) {
            F = (FcPb__Features *)fc_arena_alloc(arena, sizeof *F);
            if (F == NULL)
                goto no;
            *F = finit;
            F->n_feature = nf;
            F->feature = (FcPb__FeatureEntry **)fc_arena_alloc(arena, (nf + 1) * sizeof *F->feature);
            if (F->feature == NULL)
                goto no;
            es = (FcPb__FeatureEntry *)fc_arena_alloc(arena, (nf + 1) * sizeof *es);
            if (es == NULL)
                goto no;
            for (i = 0; i < nf; i++) {
                static const FcPb__FeatureEntry init = FC_PB__FEATURE_ENTRY__INIT;
                FcPb__FeatureEntry *e = &es[i];
                *e = init;
                e->key.data = (uint8_t *)(uintptr_t)fv[i].key;
                e->key.len = fv[i].key_len;
                e->value = (FcPb__Feature *)(uintptr_t)fv[i].value;
                F->feature[i] = e;
            }
        }
        if (has_lists) {
            L = (FcPb__FeatureLists *)fc_arena_alloc(arena, sizeof *L);
            if (L == NULL)
                goto no;
            *L = linit;
            L->n_feature_list = nl;
            L->feature_list = (FcPb__FeatureListEntry **)fc_arena_alloc(
                arena, (nl + 1) * sizeof *L->feature_list);
            if (L->feature_list == NULL)
                goto no;
            ls = (FcPb__FeatureListEntry *)fc_arena_alloc(arena, (nl + 1) * sizeof *ls);
            if (ls == NULL)
                goto no;
            for (i = 0; i < nl; i++) {
                static const FcPb__FeatureListEntry init = FC_PB__FEATURE_LIST_ENTRY__INIT;
                FcPb__FeatureListEntry *e = &ls[i];
                *e = init;
                e->key.data = (uint8_t *)(uintptr_t)lv[i].key;
                e->key.len = lv[i].key_len;
                e->value = (FcPb__FeatureList *)(uintptr_t)lv[i].value;
                L->feature_list[i] = e;
            }
        }
        if (want == FC_PAYLOAD_EXAMPLE) {
            FcPb__Example *ex = (FcPb__Example *)fc_arena_alloc(arena, sizeof *ex);
            if (ex == NULL)
                goto no;
            *ex = einit;
            ex->features = F;
            out->message = ex;
        } else {
            FcPb__SequenceExample *sx = (FcPb__SequenceExample *)fc_arena_alloc(arena, sizeof *sx);
            if (sx == NULL)
                goto no;
            *sx = sinit;
            sx->context = F;
            sx->feature_lists = L;
            out->message = sx;
        }
        out->has_features = F != NULL;
        out->has_feature_lists = L != NULL;
    }
    /* the normalised view, as fc_fallback_decode builds it */
    nf = normalise(fv, nf, arena, &nomem);
    nl = normalise(lv, nl, arena, &nomem);
    if (nomem)
        goto no;
    if (make_view(out, fv, nf, lv, nl, arena) != 0)
        goto no;
    return FC_OK;
no:
    memset(out, 0, sizeof *out);
    arena->used = used;
    arena->exhausted = 0;
    return FC_ERR_STATE;
}
