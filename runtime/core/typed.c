/* featc runtime: `as TYPE [dims]`, the tensor type a feature asks for.
 *
 * After a record is parsed, the values of a feature with `as` are
 * converted into the struct member beside them (extra->as->offset):
 *
 *   int64 as int8 .. int32   narrowed; a value out of the type's range is
 *                            an error (tf.cast wraps it silently: a
 *                            deliberate difference, semantics.md)
 *   float as float16         rounded to nearest even (IEEE binary16, its
 *                            bits in a uint16_t); a finite value that
 *                            would round to infinity is an error
 *   bytes as T[dims]         tf.io.decode_raw(value, T, little_endian=True)
 *                            reshaped to dims: TensorFlow's two texts when
 *                            the length does not fit
 *
 * A FixedLenSequence feature's rows are converted as one run of values,
 * and a feature list's values frame by frame (fc_seq_as_lists), a list of
 * RaggedFeature frames after its frames are built (same layout as VarLen
 * frames: each frame's values at frame * max).
 * Nothing here allocates; the record's values stay in the struct as parsed.
 */
#include <string.h>

#include <featc/fc_fast.h>
#include <featc/fc_sequence.h>

/* Whose values are converted: a feature (role 0), a context feature (1)
 * or frame `frame` of a feature list (2), and its `as`. */
typedef struct who {
    const char *key;
    size_t key_len;
    int role;
    size_t frame;
    const fc_field_as *as;
} who;

/* "Key: K.  ", "Context feature: K.  " or "Feature list: K, Index: T.  ",
 * as the parser's texts begin. */
static fc_msg begin(const who *w, fc_error *err)
{
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, w->role == 2 ? "Feature list: " : w->role == 1 ? "Context feature: " : "Key: ");
    fc_msg_mem(&m, w->key, w->key_len);
    if (w->role == 2) {
        fc_msg_str(&m, ", Index: ");
        fc_msg_u64(&m, w->frame);
    }
    fc_msg_str(&m, ".  ");
    return m;
}

/* IEEE binary16 bits of x, rounded to nearest even; *over when a finite x
 * rounds to infinity.  (float32 has 8 exponent bits, binary16 5.) */
uint16_t fc_as_half(float x, int *over)
{
    uint32_t b, mant, sign;
    int exp;
    memcpy(&b, &x, sizeof b);
    sign = (b >> 16) & 0x8000u;
    exp = (int)((b >> 23) & 0xffu);
    mant = b & 0x7fffffu;
    *over = 0;
    if (exp == 0xff) /* inf; nan as Eigen's half (TF's cast) makes it: 0x7e00 */
        return (uint16_t)(sign | (mant != 0 ? 0x7e00u : 0x7c00u));
    exp -= 127 - 15;
    if (exp >= 0x1f) {
        *over = 1;
        return (uint16_t)(sign | 0x7c00u);
    }
    if (exp <= 0) { /* a subnormal half, or zero */
        uint32_t shift, full, half, rest;
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        shift = (uint32_t)(14 - exp);
        full = mant >> shift;
        rest = mant & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rest > half || (rest == half && (full & 1u)))
            full++;
        return (uint16_t)(sign | full);
    }
    {
        uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
            h++; /* may carry into the exponent: right, up to infinity */
        if ((h & 0x7c00u) == 0x7c00u) {
            *over = 1;
            return (uint16_t)(sign | 0x7c00u);
        }
        return (uint16_t)(sign | h);
    }
}

static int narrow(const who *w, const int64_t *v, size_t n, unsigned char *out, fc_error *err)
{
    int as = w->as->type;
    int64_t lo = 0, hi = -1;
    (void)fc_as_range(as, &lo, &hi); /* the compiler gives int64 no other `as` */
    size_t k;
    for (k = 0; k < n; k++) {
        int64_t x;
        memcpy(&x, v + k, sizeof x);
        if (x < lo || x > hi) {
            fc_msg m = begin(w, err);
            fc_msg_str(&m, "Value ");
            fc_msg_i64(&m, x);
            fc_msg_str(&m, " at index ");
            fc_msg_u64(&m, k);
            fc_msg_str(&m, " is out of the range of ");
            fc_msg_str(&m, fc_as_name(as));
            fc_msg_str(&m, " (");
            fc_msg_i64(&m, lo);
            fc_msg_str(&m, " to ");
            fc_msg_i64(&m, hi);
            fc_msg_str(&m, ")");
            return FC_ERR_PARSE;
        }
        fc_fast_store_narrow(as, out, k, x); /* out: the `as` member, aligned */
    }
    return FC_OK;
}

static int to_half(const who *w, const float *v, size_t n, unsigned char *out, fc_error *err)
{
    size_t k;
    for (k = 0; k < n; k++) {
        float x;
        int over;
        uint16_t h;
        memcpy(&x, v + k, sizeof x);
        h = fc_as_half(x, &over);
        if (over) {
            fc_msg m = begin(w, err);
            fc_msg_str(&m, "Value at index ");
            fc_msg_u64(&m, k);
            fc_msg_str(&m, " is out of the range of float16 (its magnitude rounds past 65504)");
            return FC_ERR_PARSE;
        }
        memcpy(out + 2 * k, &h, 2);
    }
    return FC_OK;
}

/* decode_raw of one value into its as_elems elements at out. */
static int decode_raw(const who *w, const fc_bytes *v, unsigned char *out, fc_error *err)
{
    const fc_field_as *x = w->as;
    size_t es = fc_as_size(x->type), k, j;
    if (v->size % es != 0 || v->size / es != x->elems) {
        fc_msg m = begin(w, err);
        if (v->size % es != 0) {
            fc_msg_str(&m, "Input to DecodeRaw has length ");
            fc_msg_u64(&m, v->size);
            fc_msg_str(&m, " that is not a multiple of ");
            fc_msg_u64(&m, es);
            fc_msg_str(&m, ", the size of ");
            fc_msg_str(&m, fc_as_tf_name(x->type));
        } else {
            fc_msg_str(&m, "Input to reshape is a tensor with ");
            fc_msg_u64(&m, v->size / es);
            fc_msg_str(&m, " values, but the requested shape has ");
            fc_msg_u64(&m, x->elems);
        }
        return FC_ERR_PARSE;
    }
    if (es == 1) {
        if (v->size > 0)
            memcpy(out, v->data, v->size);
        return FC_OK;
    }
    /* little-endian elements into the host's order */
    for (k = 0; k < x->elems; k++) {
        uint64_t u = 0;
        const uint8_t *p = v->data + k * es;
        for (j = es; j-- > 0;)
            u = (u << 8) | p[j];
        if (es == 2) {
            uint16_t y = (uint16_t)u;
            memcpy(out + 2 * k, &y, 2);
        } else if (es == 4) {
            uint32_t y = (uint32_t)u;
            memcpy(out + 4 * k, &y, 4);
        } else {
            memcpy(out + 8 * k, &u, 8);
        }
    }
    return FC_OK;
}

/* Converts n values of type `type` at v into out. */
static int convert(const who *w, fc_type type, const unsigned char *v, size_t n,
                   unsigned char *out, fc_error *err)
{
    size_t k;
    int rc = FC_OK;
    if (type == FC_TYPE_INT64)
        return narrow(w, (const int64_t *)(const void *)v, n, out, err);
    if (type == FC_TYPE_FLOAT)
        return to_half(w, (const float *)(const void *)v, n, out, err);
    for (k = 0; k < n && rc == FC_OK; k++) {
        fc_bytes b;
        memcpy(&b, v + k * sizeof b, sizeof b);
        rc = decode_raw(w, &b, out + k * w->as->elems * fc_as_size(w->as->type), err);
    }
    return rc;
}

int fc_ex_as_fields(const fc_field_desc *fields, size_t n, void *msg, int context,
                    fc_error *err)
{
    unsigned char *m = (unsigned char *)msg;
    size_t i;
    for (i = 0; i < n; i++) {
        const fc_field_desc *f = &fields[i];
        who w;
        size_t count;
        if (f->extra->as == NULL)
            continue;
        w.key = f->key, w.key_len = f->key_len, w.role = context ? 1 : 0, w.frame = 0;
        if (f->kind == FC_KIND_RAGGED || f->kind == FC_KIND_SPARSE) {
            /* its values' key, the record's */
            const fc_field_desc *vf = &fields[f->extra->sparse_fields[f->kind == FC_KIND_SPARSE
                                                                          ? f->rank
                                                                          : 0]];
            w.key = vf->key;
            w.key_len = vf->key_len;
        }
        w.as = f->extra->as;
        if (f->kind == FC_KIND_FIXED)
            count = f->elems;
        else
            memcpy(&count, m + f->count_offset, sizeof count);
        if (f->kind == FC_KIND_ROWS) /* the count is of rows */
            count *= f->elems;
        if (convert(&w, f->type, m + f->value_offset, count, m + w.as->offset, err) != FC_OK)
            return FC_ERR_PARSE;
    }
    return FC_OK;
}

int fc_seq_as_lists(const fc_list_desc *lists, size_t n, void *msg, fc_error *err)
{
    unsigned char *m = (unsigned char *)msg;
    size_t i;
    for (i = 0; i < n; i++) {
        const fc_list_desc *l = &lists[i];
        size_t frames, t, stride;
        who w;
        if (l->extra == NULL || l->extra->as == NULL)
            continue;
        w.key = l->key, w.key_len = l->key_len, w.role = 2;
        if (l->kind == FC_KIND_RAGGED) { /* its value list's key, the record's */
            w.key = lists[l->extra->sparse_fields[0]].key;
            w.key_len = lists[l->extra->sparse_fields[0]].key_len;
        }
        w.as = l->extra->as;
        stride = l->kind == FC_KIND_FIXED ? l->elems : l->max; /* values per frame */
        memcpy(&frames, m + l->frames_offset, sizeof frames);
        for (t = 0; t < frames; t++) {
            size_t count = l->elems;
            if (l->kind != FC_KIND_FIXED)
                memcpy(&count, m + l->count_offset + t * sizeof count, sizeof count);
            w.frame = t;
            if (convert(&w, l->type, m + l->value_offset + t * stride * fc_type_size(l->type),
                        count, m + w.as->offset + t * stride * w.as->elems * fc_as_size(w.as->type),
                        err) != FC_OK)
                return FC_ERR_PARSE;
        }
    }
    return FC_OK;
}
