/* The generated serializers, checked inside the differential checkers
 * (check.c, seq_check.c) on every record the parser accepts, corpus and
 * random alike, and on random structs filled directly:
 *
 *   - size: _encoded_size == the length _serialize writes; a buffer one byte
 *     short gives FC_ERR_NO_SPACE with the size needed;
 *   - round trip: parse(serialize(x)) holds x's values bit for bit (NaN
 *     payloads, -0.0, bytes contents), and the presence bits of the
 *     features the rule of fc_serialize.h writes, computed here again;
 *   - fixpoint: serialize(parse(serialize(x))) == serialize(x);
 *   - with FC_WRITE_DEFAULTS every FixedLen feature is written.
 * Serialized records are also appended to the TFRecord file named by
 * $FEATC_RT_OUT (at most RT_KEEP of them), which tests/oracle/canonical.py
 * re-serializes with Python's protobuf (deterministic=True) and compares
 * byte for byte.
 *
 * The includer defines rnd() and, before including, RT_SEQ for a
 * sequence_example. */
#ifndef FEATC_TEST_ROUNDTRIP_H
#define FEATC_TEST_ROUNDTRIP_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_serialize.h>

#include "wire.h" /* fc_type_size, fc_load_size: struct access shared with the runtime */

#define RT_KEEP 4000

static long rt_passed, rt_failed, rt_kept;
static FILE *rt_out;

static inline size_t rt_below(size_t n)
{
    return n == 0 ? 0 : (size_t)(rnd() % n);
}

static inline void rt_keep(const void *data, size_t len)
{
    static int opened;
    const char *path;
    if (!opened) {
        opened = 1;
        path = getenv("FEATC_RT_OUT");
        if (path != NULL && *path != '\0')
            rt_out = fopen(path, "wb");
    }
    if (rt_out == NULL || rt_kept >= RT_KEEP)
        return;
    {
        unsigned char *buf = (unsigned char *)malloc(len + 16);
        size_t n;
        if (buf == NULL)
            return;
        n = fc_record_frame(buf, len + 16, data, len);
        if (n == len + 16 && fwrite(buf, 1, n, rt_out) == n)
            rt_kept++;
        free(buf);
    }
}

/* -------------------------------------------------------- struct access */

static inline void rt_set_size(unsigned char *msg, size_t off, size_t v)
{
    memcpy(msg + off, &v, sizeof v);
}

/* n values of type t at a and b, equal bit for bit (bytes: contents). */
static inline int rt_values_equal(fc_type t, const unsigned char *a, const unsigned char *b,
                                  size_t n)
{
    size_t i;
    if (t != FC_TYPE_BYTES)
        return n == 0 || memcmp(a, b, n * fc_type_size(t)) == 0;
    for (i = 0; i < n; i++) {
        fc_bytes x, y;
        memcpy(&x, a + i * sizeof x, sizeof x);
        memcpy(&y, b + i * sizeof y, sizeof y);
        if (x.size != y.size || (x.size > 0 && memcmp(x.data, y.data, x.size) != 0))
            return 0;
    }
    return 1;
}

/* The values field f holds in msg, and how many. */
static inline const unsigned char *rt_field(const fc_field_desc *f, const unsigned char *msg,
                                            size_t *n)
{
    switch (f->kind) {
    case FC_KIND_FIXED: *n = f->elems; break;
    case FC_KIND_VARLEN: *n = fc_load_size(msg + f->count_offset); break;
    case FC_KIND_ROWS: *n = fc_load_size(msg + f->count_offset) * f->elems; break;
    default: *n = 0; return NULL;
    }
    return msg + f->value_offset;
}

/* The rule of fc_serialize.h, written again: is field i of msg written? */
static inline int rt_field_written(const fc_field_desc *f, const unsigned char *msg, int present,
                            unsigned flags)
{
    size_t n;
    const unsigned char *v = rt_field(f, msg, &n);
    if (v == NULL)
        return 0;
    if (present)
        return 1;
    if (f->kind == FC_KIND_FIXED) {
        if (f->default_value == NULL || (flags & FC_WRITE_DEFAULTS) != 0)
            return 1;
        return !rt_values_equal(f->type, v, (const unsigned char *)f->default_value, n);
    }
    return n > 0 || (f->kind == FC_KIND_ROWS && fc_load_size(msg + f->count_offset) > 0);
}

static inline int rt_fields_equal(const fc_field_desc *fields, size_t nf, const unsigned char *a,
                           const unsigned char *b, char *why, size_t whysize)
{
    size_t i;
    for (i = 0; i < nf; i++) {
        size_t na, nb;
        const unsigned char *va = rt_field(&fields[i], a, &na);
        const unsigned char *vb = rt_field(&fields[i], b, &nb);
        if (va == NULL)
            continue;
        if (na != nb || !rt_values_equal(fields[i].type, va, vb, na)) {
            snprintf(why, whysize, "feature \"%s\": %zu values before, %zu after, or they differ",
                     fields[i].key, na, nb);
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ random values */

static unsigned char rt_pool[(1u << 21) + 4096];

static inline int64_t rt_int64(void)
{
    static const int64_t special[] = {0, 1, -1, 127, 128, -128, 16383, 16384, INT64_MAX, INT64_MIN,
                                      (int64_t)1 << 35, -((int64_t)1 << 35)};
    switch (rt_below(4)) {
    case 0: return special[rt_below(sizeof special / sizeof special[0])];
    case 1: return -(int64_t)rt_below(1000) - 1; /* 10-byte varints */
    case 2: return (int64_t)rt_below(300);
    default: return (int64_t)rnd();
    }
}

static inline float rt_float(void)
{
    static const uint32_t special[] = {
        /* NaNs: quiet, negative, with a payload, signalling, all ones */
        0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7f800001u, 0x7fffffffu,
        0x7f800000u, 0xff800000u, /* +-inf */
        0x00000000u, 0x80000000u, /* +-0 */
        0x00000001u, 0x807fffffu, /* denormals */
        0x7f7fffffu, 0x3f800000u};
    uint32_t u;
    float f;
    switch (rt_below(3)) {
    case 0: u = special[rt_below(sizeof special / sizeof special[0])]; break;
    case 1: u = (uint32_t)rnd(); break;
    default: f = (float)((double)(int64_t)rt_below(2000000) / 1000.0 - 1000.0); return f;
    }
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline fc_bytes rt_bytes(void)
{
    fc_bytes b;
    size_t r = rt_below(100);
    b.data = rt_pool + rt_below(4096);
    if (r < 10)
        b.size = 0, b.data = r < 5 ? NULL : b.data; /* empty, with and without data */
    else if (r < 12)
        b.size = 127 + rt_below(16400); /* 1- to 3-byte length prefixes */
    else if (r == 12 && rt_below(8) == 0)
        b.size = (1u << 21) - rt_below(3) + 1u; /* over 2 MiB: a 4-byte prefix */
    else
        b.size = rt_below(24);
    return b;
}

static inline void rt_fill(fc_type t, unsigned char *dst, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (t == FC_TYPE_INT64) {
            int64_t v = rt_int64();
            memcpy(dst + i * sizeof v, &v, sizeof v);
        } else if (t == FC_TYPE_FLOAT) {
            float v = rt_float();
            memcpy(dst + i * sizeof v, &v, sizeof v);
        } else {
            fc_bytes v = rt_bytes();
            memcpy(dst + i * sizeof v, &v, sizeof v);
        }
    }
}

/* A count in [0, max], biased to 0, 1 and max. */
static inline size_t rt_count(size_t max)
{
    switch (rt_below(6)) {
    case 0: return 0;
    case 1: return max < 1 ? max : 1;
    case 2: return max;
    default: return rt_below((max < 40 ? max : 40) + 1);
    }
}

/* n values (of type t) at v made ones `as` takes (the struct must parse
 * back): integers folded into the type's range, floats into float16's,
 * bytes values of the tensor's length. */
static inline void rt_fit_as(fc_type t, const fc_field_as *as, unsigned char *v, size_t n)
{
    size_t k;
    for (k = 0; k < n; k++) {
        if (t == FC_TYPE_INT64) {
            int64_t lo = 0, hi = 0, x;
            (void)fc_as_range(as->type, &lo, &hi);
            memcpy(&x, v + 8 * k, 8);
            /* folded into [lo, hi] (a value in range is kept) */
            x = lo + (int64_t)(((uint64_t)x - (uint64_t)lo) % ((uint64_t)hi - (uint64_t)lo + 1u));
            memcpy(v + 8 * k, &x, 8);
        } else if (t == FC_TYPE_FLOAT) {
            float x;
            memcpy(&x, v + 4 * k, 4);
            if (isfinite(x) && fabsf(x) >= 65504.0f)
                x = fmodf(x, 65504.0f);
            memcpy(v + 4 * k, &x, 4);
        } else {
            fc_bytes b;
            b.size = as->elems * fc_as_size(as->type);
            b.data = rt_pool + rt_below(4096);
            memcpy(v + k * sizeof b, &b, sizeof b);
        }
    }
}

/* Random values for every keyed field of a Features map; presence bits at
 * random.  SparseFeatures get consistent components (one count, indices in
 * range); RaggedFeature components are left empty and absent. */
static inline void rt_fill_fields(const fc_field_desc *fields, size_t nf, unsigned char *msg,
                           uint32_t *present, unsigned bit_base)
{
    size_t i, k;
    for (i = 0; i < nf; i++) {
        const fc_field_desc *f = &fields[i];
        unsigned char *v = msg + f->value_offset;
        if (rt_below(4) == 0)
            fc_bit_set(present, bit_base + (unsigned)i);
        switch (f->kind) {
        case FC_KIND_FIXED:
            if (f->default_value != NULL && rt_below(3) == 0)
                memcpy(v, f->default_value, f->elems * fc_type_size(f->type));
            else
                rt_fill(f->type, v, f->elems);
            break;
        case FC_KIND_VARLEN: {
            size_t n = rt_count(f->max);
            rt_set_size(msg, f->count_offset, n);
            rt_fill(f->type, v, n);
            break;
        }
        case FC_KIND_ROWS: {
            size_t rows = rt_count(f->max);
            while (rows * f->elems > 4096)
                rows /= 2;
            rt_set_size(msg, f->count_offset, rows);
            rt_fill(f->type, v, rows * f->elems);
            break;
        }
        default:
            break;
        }
        if (f->extra->as != NULL && (f->kind == FC_KIND_FIXED || f->kind == FC_KIND_VARLEN ||
                                     f->kind == FC_KIND_ROWS))
            rt_fit_as(f->type, f->extra->as, v,
                      f->kind == FC_KIND_FIXED  ? f->elems
                      : f->kind == FC_KIND_ROWS ? fc_load_size(msg + f->count_offset) * f->elems
                                                : fc_load_size(msg + f->count_offset));
    }
    /* SparseFeatures may share index and value fields: one count for all,
     * indices below every dense size */
    {
        size_t n = SIZE_MAX, dim = SIZE_MAX;
        for (i = 0; i < nf; i++) {
            const fc_field_desc *f = &fields[i];
            if (f->kind != FC_KIND_SPARSE)
                continue;
            n = f->max < n ? f->max : n;
            for (k = 0; k <= f->rank; k++) {
                const fc_field_desc *g = &fields[f->extra->sparse_fields[k]];
                n = g->max < n ? g->max : n;
                if (k < f->rank && f->dims[k] < dim)
                    dim = f->dims[k];
            }
        }
        n = n == SIZE_MAX ? 0 : rt_count(n);
        for (i = 0; i < nf; i++) {
            const fc_field_desc *f = &fields[i];
            if (f->kind != FC_KIND_SPARSE)
                continue;
            for (k = 0; k <= f->rank; k++) {
                const fc_field_desc *g = &fields[f->extra->sparse_fields[k]];
                rt_set_size(msg, g->count_offset, n);
                if (k == f->rank && f->extra->as != NULL) /* values the type holds */
                    rt_fit_as(g->type, f->extra->as, msg + g->value_offset, n);
                if (k < f->rank) {
                    size_t j;
                    for (j = 0; j < n; j++) {
                        int64_t idx = (int64_t)rt_below(dim);
                        memcpy(msg + g->value_offset + j * sizeof idx, &idx, sizeof idx);
                    }
                }
            }
        }
    }
    for (i = 0; i < nf; i++) {
        const fc_field_desc *f = &fields[i];
        if (f->kind == FC_KIND_SPARSE) {
            continue;
        } else if (f->kind == FC_KIND_RAGGED) {
            unsigned p;
            const fc_field_desc *g = &fields[f->extra->sparse_fields[0]];
            rt_set_size(msg, g->count_offset, 0);
            present[(bit_base + f->extra->sparse_fields[0]) / 32] &=
                ~((uint32_t)1 << ((bit_base + f->extra->sparse_fields[0]) % 32));
            for (p = 0; p < f->extra->nparts; p++) {
                if (f->extra->parts[p].kind == FC_PART_UNIFORM_ROW_LENGTH)
                    continue;
                g = &fields[f->extra->parts[p].field];
                rt_set_size(msg, g->count_offset, 0);
                present[(bit_base + f->extra->parts[p].field) / 32] &=
                    ~((uint32_t)1 << ((bit_base + f->extra->parts[p].field) % 32));
            }
        }
    }
}

static inline void rt_fail(const char *where, const char *what, const char *detail)
{
    if (rt_failed < 10)
        fprintf(stderr, "%s: serializer: %s%s%s\n", where, what, detail[0] ? ": " : "", detail);
    rt_failed++;
}

/* ------------------------------------------------------------ the checks */

static unsigned char *rt_buf, *rt_buf2, *rt_y;
static size_t rt_cap;

/* At exit: the rooms freed, so that the checkers leave nothing for
 * LeakSanitizer to find even when it does not scan globals. */
static void rt_release(void)
{
    free(rt_buf);
    free(rt_buf2);
    free(rt_y);
    rt_buf = rt_buf2 = rt_y = NULL;
}

static inline int rt_room(size_t size, size_t msg_size)
{
    if (rt_y == NULL) {
        rt_y = (unsigned char *)calloc(1, msg_size);
        if (rt_y != NULL && atexit(rt_release) != 0)
            return 0;
    }
    if (size + 1 > rt_cap) {
        free(rt_buf);
        free(rt_buf2);
        rt_cap = size + 1 + size / 2;
        rt_buf = (unsigned char *)malloc(rt_cap);
        rt_buf2 = (unsigned char *)malloc(rt_cap);
    }
    return rt_buf != NULL && rt_buf2 != NULL && rt_y != NULL;
}

/* Size, NO_SPACE, serialize, parse back, fixpoint: the part common to both
 * kinds of message.  Returns the length written, or 0 after a failure. */
typedef struct rt_ops {
    fc_status (*size)(const void *desc, const void *msg, unsigned flags, size_t *size,
                      fc_error *err);
    fc_status (*serialize)(const void *desc, const void *msg, unsigned flags, void *buf,
                           size_t cap, size_t *len, fc_error *err);
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    size_t msg_size;
} rt_ops;

static inline size_t rt_serialize_parse(const rt_ops *ops, const void *desc, const void *x,
                                        unsigned flags, const char *where)
{
    size_t size = 0, len = 0, len2 = 0;
    fc_error err;
    int rc;
    err.message[0] = '\0';
    if ((rc = ops->size(desc, x, flags, &size, &err)) != FC_OK) {
        rt_fail(where, "encoded_size fails", err.message);
        return 0;
    }
    if (!rt_room(size, ops->msg_size)) {
        rt_fail(where, "out of memory", "");
        return 0;
    }
    rc = ops->serialize(desc, x, flags, rt_buf, size - 1, &len, &err);
    if (rc != FC_ERR_NO_SPACE || len != size) {
        rt_fail(where, "a buffer one byte short is not FC_ERR_NO_SPACE with the size needed",
                err.message);
        return 0;
    }
    rc = ops->serialize(desc, x, flags, rt_buf, rt_cap, &len, &err);
    if (rc != FC_OK || len != size) {
        rt_fail(where, "serialize fails or writes another size than encoded_size", err.message);
        return 0;
    }
    if ((rc = ops->parse(rt_y, rt_buf, len, &err)) != FC_OK) {
        rt_fail(where, "the serialized record does not parse", err.message);
        return 0;
    }
    rc = ops->serialize(desc, rt_y, flags, rt_buf2, rt_cap, &len2, &err);
    if (rc != FC_OK || len2 != len || memcmp(rt_buf, rt_buf2, len) != 0) {
        rt_fail(where, "serialize(parse(serialize(x))) != serialize(x)", err.message);
        return 0;
    }
    return len;
}

static inline fc_status rt_ex_size(const void *d, const void *m, unsigned f, size_t *s, fc_error *e)
{
    return fc_ex_encoded_size((const fc_message_desc *)d, m, f, s, e);
}

static inline fc_status rt_ex_serialize(const void *d, const void *m, unsigned f, void *b,
                                        size_t c, size_t *l, fc_error *e)
{
    return fc_ex_serialize((const fc_message_desc *)d, m, f, b, c, l, e);
}

static inline fc_status rt_seq_size(const void *d, const void *m, unsigned f, size_t *s,
                                    fc_error *e)
{
    return fc_seq_encoded_size((const fc_seq_desc *)d, m, f, s, e);
}

static inline fc_status rt_seq_serialize(const void *d, const void *m, unsigned f, void *b,
                                         size_t c, size_t *l, fc_error *e)
{
    return fc_seq_serialize((const fc_seq_desc *)d, m, f, b, c, l, e);
}

/* Presence after the round trip: the bits of the keyed fields written. */
static inline int rt_presence_ok(const fc_field_desc *fields, size_t nf, const unsigned char *x,
                                 const uint32_t *px, const uint32_t *py, unsigned flags,
                                 char *why, size_t whysize)
{
    size_t i;
    for (i = 0; i < nf; i++) {
        int want, got;
        if (fields[i].kind == FC_KIND_SPARSE || fields[i].kind == FC_KIND_RAGGED)
            continue;
        want = rt_field_written(&fields[i], x, fc_bit_get(px, (unsigned)i), flags);
        got = fc_bit_get(py, (unsigned)i);
        if (want != got) {
            snprintf(why, whysize, "feature \"%s\": %s but %s after the round trip",
                     fields[i].key, want ? "written" : "not written", got ? "present" : "absent");
            return 0;
        }
    }
    return 1;
}

/* One Example struct x through the serializer. */
static inline void rt_example(const fc_message_desc *md, const unsigned char *x, unsigned flags,
                              const char *where)
{
    rt_ops ops;
    char why[256];
    size_t len;
    ops.size = rt_ex_size;
    ops.serialize = rt_ex_serialize;
    ops.parse = md->parse;
    ops.msg_size = md->size;
    len = rt_serialize_parse(&ops, md, x, flags, where);
    if (len == 0)
        return;
    if (!rt_fields_equal(md->fields, md->nfields, x, rt_y, why, sizeof why) ||
        !rt_presence_ok(md->fields, md->nfields, x,
                        (const uint32_t *)(const void *)(x + md->present_offset),
                        (const uint32_t *)(const void *)(rt_y + md->present_offset), flags, why,
                        sizeof why)) {
        rt_fail(where, "parse(serialize(x)) != x", why);
        return;
    }
    rt_keep(rt_buf, len);
    rt_passed++;
}

/* A random Example struct. */
static inline void rt_random_example(const fc_message_desc *md, unsigned char *x)
{
    memset(x, 0, md->size);
    md->init(x);
    memset(x + md->present_offset, 0, ((md->nfields + 31) / 32) * sizeof(uint32_t));
    rt_fill_fields(md->fields, md->nfields, x, (uint32_t *)(void *)(x + md->present_offset), 0);
}

/* Lists of a SequenceExample: frames, counts and values equal. */
static inline int rt_lists_equal(const fc_seq_desc *sd, const unsigned char *a,
                                 const unsigned char *b, char *why, size_t whysize)
{
    size_t j, f;
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        size_t fa = fc_load_size(a + l->frames_offset), fb = fc_load_size(b + l->frames_offset);
        size_t ts = fc_type_size(l->type), stride = l->kind != FC_KIND_FIXED ? l->max : l->elems;
        if (fa != fb) {
            snprintf(why, whysize, "feature list \"%s\": %zu frames before, %zu after", l->key,
                     fa, fb);
            return 0;
        }
        for (f = 0; f < fa; f++) {
            size_t na = l->elems, nb = l->elems;
            if (l->kind != FC_KIND_FIXED) {
                na = fc_load_size(a + l->count_offset + f * sizeof(size_t));
                nb = fc_load_size(b + l->count_offset + f * sizeof(size_t));
            }
            if (na != nb || !rt_values_equal(l->type, a + l->value_offset + f * stride * ts,
                                             b + l->value_offset + f * stride * ts, na)) {
                snprintf(why, whysize, "feature list \"%s\", frame %zu: values differ", l->key, f);
                return 0;
            }
        }
    }
    return 1;
}

static inline void rt_sequence(const fc_seq_desc *sd, const unsigned char *x, unsigned flags,
                               const char *where)
{
    rt_ops ops;
    char why[256];
    size_t len, j;
    const uint32_t *px = (const uint32_t *)(const void *)(x + sd->present_offset);
    const uint32_t *py;
    ops.size = rt_seq_size;
    ops.serialize = rt_seq_serialize;
    ops.parse = sd->parse;
    ops.msg_size = sd->size;
    len = rt_serialize_parse(&ops, sd, x, flags, where);
    if (len == 0)
        return;
    py = (const uint32_t *)(const void *)(rt_y + sd->present_offset);
    if (!rt_fields_equal(sd->context, sd->ncontext, x, rt_y, why, sizeof why) ||
        !rt_presence_ok(sd->context, sd->ncontext, x, px, py, flags, why, sizeof why) ||
        !rt_lists_equal(sd, x, rt_y, why, sizeof why)) {
        rt_fail(where, "parse(serialize(x)) != x", why);
        return;
    }
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        unsigned bit = (unsigned)(sd->ncontext + j);
        int want = fc_bit_get(px, bit) || fc_load_size(x + l->frames_offset) > 0 ||
                   (l->kind == FC_KIND_FIXED && !l->allow_missing);
        if (want != fc_bit_get(py, bit)) {
            snprintf(why, sizeof why, "feature list \"%s\": %s but %s after the round trip",
                     l->key, want ? "written" : "not written",
                     fc_bit_get(py, bit) ? "present" : "absent");
            rt_fail(where, "presence", why);
            return;
        }
    }
    rt_keep(rt_buf, len);
    rt_passed++;
}

/* A random SequenceExample struct: aligned lists share one frame count,
 * uniform lists one count per frame. */
static inline void rt_random_sequence(const fc_seq_desc *sd, unsigned char *x)
{
    size_t j, f, aligned = 16;
    uint32_t *present = (uint32_t *)(void *)(x + sd->present_offset);
    for (j = 0; j < sd->nlists; j++)
        if (sd->lists[j].max_frames < aligned)
            aligned = sd->lists[j].max_frames;
    aligned = rt_count(aligned);
    memset(x, 0, sd->size);
    sd->init(x);
    memset(present, 0, ((sd->ncontext + sd->nlists + 31) / 32) * sizeof(uint32_t));
    rt_fill_fields(sd->context, sd->ncontext, x, present, 0);
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        size_t frames = sd->aligned ? aligned : rt_count(l->max_frames < 16 ? l->max_frames : 16);
        size_t ts = fc_type_size(l->type), uniform = rt_count(l->max < 8 ? l->max : 8);
        if (frames > l->max_frames)
            frames = l->max_frames;
        if (rt_below(4) == 0)
            fc_bit_set(present, (unsigned)(sd->ncontext + j));
        rt_set_size(x, l->frames_offset, frames);
        for (f = 0; f < frames; f++) {
            const fc_field_as *as = l->kind != FC_KIND_RAGGED ? l->extra->as : NULL;
            if (l->kind == FC_KIND_VARLEN) {
                size_t n = l->uniform ? uniform : rt_count(l->max < 8 ? l->max : 8);
                rt_set_size(x, l->count_offset + f * sizeof(size_t), n);
                rt_fill(l->type, x + l->value_offset + f * l->max * ts, n);
                if (as != NULL)
                    rt_fit_as(l->type, as, x + l->value_offset + f * l->max * ts, n);
            } else {
                rt_fill(l->type, x + l->value_offset + f * l->elems * ts, l->elems);
                if (as != NULL)
                    rt_fit_as(l->type, as, x + l->value_offset + f * l->elems * ts, l->elems);
            }
        }
    }
    /* RaggedFeature lists read empty lists (and are built empty), as an
     * Example's RaggedFeatures in rt_fill_fields */
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        unsigned p;
        if (l->kind != FC_KIND_RAGGED)
            continue;
        for (p = 0; p <= l->extra->nparts; p++) {
            size_t k = p == 0 ? l->extra->sparse_fields[0] : l->extra->parts[p - 1].field;
            unsigned bit = (unsigned)(sd->ncontext + k);
            if (p > 0 && l->extra->parts[p - 1].kind == FC_PART_UNIFORM_ROW_LENGTH)
                continue;
            rt_set_size(x, sd->lists[k].frames_offset, 0);
            present[bit / 32] &= ~((uint32_t)1 << (bit % 32));
        }
        rt_set_size(x, l->frames_offset, 0);
        present[(sd->ncontext + j) / 32] &= ~((uint32_t)1 << ((sd->ncontext + j) % 32));
    }
}

/* The entry points of the checkers: desc is an fc_message_desc, or an
 * fc_seq_desc when seq. */
static inline void rt_one(const void *desc, int seq, const unsigned char *x, unsigned flags,
                          const char *where)
{
    if (seq)
        rt_sequence((const fc_seq_desc *)desc, x, flags, where);
    else
        rt_example((const fc_message_desc *)desc, x, flags, where);
}

/* An accepted record: with FC_OMIT_DEFAULTS, and every fifth time also with
 * FC_WRITE_DEFAULTS. */
static inline void rt_check(const void *desc, int seq, const unsigned char *x, const char *where)
{
    static unsigned long n;
    rt_one(desc, seq, x, FC_OMIT_DEFAULTS, where);
    if (n++ % 5 == 0)
        rt_one(desc, seq, x, FC_WRITE_DEFAULTS, where);
}

/* count random structs, filled directly. */
static inline void rt_random_structs(const void *desc, int seq, long count)
{
    long i;
    size_t size = seq ? ((const fc_seq_desc *)desc)->size : ((const fc_message_desc *)desc)->size;
    unsigned char *x = (unsigned char *)calloc(1, size);
    if (x == NULL) {
        rt_fail("random structs", "out of memory", "");
        return;
    }
    for (i = 0; i < count; i++) {
        char where[64];
        snprintf(where, sizeof where, "random struct %ld", i);
        if (seq)
            rt_random_sequence((const fc_seq_desc *)desc, x);
        else
            rt_random_example((const fc_message_desc *)desc, x);
        rt_one(desc, seq, x, rt_below(3) == 0 ? FC_WRITE_DEFAULTS : FC_OMIT_DEFAULTS, where);
    }
    free(x);
}

#endif /* FEATC_TEST_ROUNDTRIP_H */
