/* See oracle.h.  Test code: it may use stdio and an arena on the stack. */
#include "oracle.h"

#include <math.h>
#include <string.h>

#include <featc/fc_json.h>
#include <featc/fc_fallback.h>

static unsigned char arena_mem[8u << 20];

/* A Feature{} as it stands for itself: no kind, no values. */
static const FcPb__Feature no_kind = FC_PB__FEATURE__INIT;

/* The entry TensorFlow's single-Example path would use for key: the last
 * occurrence whose Feature has a list (Feature{} never counts).  With
 * last_any (its batched path, for a sparse key): the last occurrence, a
 * Feature{} included. */
static const FcPb__Feature *pick(const FcPb__Example *ex, const char *key, size_t key_len,
                                 int last_any)
{
    size_t i;
    if (ex->features == NULL)
        return NULL;
    for (i = ex->features->n_feature; i-- > 0;) {
        const FcPb__FeatureEntry *e = ex->features->feature[i];
        if (e->key.len != key_len || (key_len != 0 && memcmp(e->key.data, key, key_len) != 0))
            continue;
        if (e->value != NULL && e->value->kind_case != FC_PB__FEATURE__KIND__NOT_SET)
            return e->value;
        if (last_any)
            return &no_kind;
    }
    return NULL;
}

fc_type oracle_kind_type(const FcPb__Feature *f)
{
    switch (f->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST: return FC_TYPE_BYTES;
    case FC_PB__FEATURE__KIND_FLOAT_LIST: return FC_TYPE_FLOAT;
    case FC_PB__FEATURE__KIND_INT64_LIST: return FC_TYPE_INT64;
    default: return FC_TYPE_NONE;
    }
}

size_t oracle_kind_count(const FcPb__Feature *f)
{
    switch (f->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST: return f->bytes_list->n_value;
    case FC_PB__FEATURE__KIND_FLOAT_LIST: return f->float_list->n_value;
    case FC_PB__FEATURE__KIND_INT64_LIST: return f->int64_list->n_value;
    default: return 0;
    }
}

fc_type oracle_value_type(const fc_fb_value *v)
{
    switch (v->kind) {
    case FC_FB_BYTES: return FC_TYPE_BYTES;
    case FC_FB_FLOAT: return FC_TYPE_FLOAT;
    case FC_FB_INT64: return FC_TYPE_INT64;
    default: return FC_TYPE_NONE;
    }
}

void oracle_copy_view(const fc_fb_value *v, unsigned char *dst, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (v->kind == FC_FB_INT64) {
            memcpy(dst + i * sizeof(int64_t), &v->int64s[i], sizeof(int64_t));
        } else if (v->kind == FC_FB_FLOAT) {
            memcpy(dst + i * sizeof(float), &v->floats[i], sizeof(float));
        } else {
            fc_bytes b;
            b.data = v->bytes[i].data;
            b.size = v->bytes[i].len;
            memcpy(dst + i * sizeof b, &b, sizeof b);
        }
    }
}

void oracle_copy_values(const FcPb__Feature *f, unsigned char *dst, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (f->kind_case == FC_PB__FEATURE__KIND_INT64_LIST) {
            memcpy(dst + i * sizeof(int64_t), &f->int64_list->value[i], sizeof(int64_t));
        } else if (f->kind_case == FC_PB__FEATURE__KIND_FLOAT_LIST) {
            memcpy(dst + i * sizeof(float), &f->float_list->value[i], sizeof(float));
        } else {
            fc_bytes b;
            b.data = f->bytes_list->value[i].data;
            b.size = f->bytes_list->value[i].len;
            memcpy(dst + i * sizeof b, &b, sizeof b);
        }
    }
}

static size_t count_of(const fc_field_desc *f, const unsigned char *m)
{
    size_t n;
    memcpy(&n, m + f->count_offset, sizeof n);
    return n;
}

/* The values field f holds in struct m: its shape's, its count's, or its
 * rows' (FixedLenSequence: the count is of rows). */
static size_t values_of(const fc_field_desc *f, const unsigned char *m)
{
    return f->kind == FC_KIND_FIXED  ? f->elems
           : f->kind == FC_KIND_ROWS ? count_of(f, m) * f->elems
                                     : count_of(f, m);
}

/* Sort key of entry k: its indices, then its value (int64 numerically,
 * float by bits, bytes bytewise then by length). */
static int entry_cmp(const fc_field_desc *f, const int64_t *ix, const unsigned char *vals,
                     size_t a, size_t b)
{
    unsigned r;
    for (r = 0; r < f->rank; r++)
        if (ix[a * f->rank + r] != ix[b * f->rank + r])
            return ix[a * f->rank + r] < ix[b * f->rank + r] ? -1 : 1;
    if (f->type == FC_TYPE_INT64) {
        int64_t x, y;
        memcpy(&x, vals + a * 8, 8);
        memcpy(&y, vals + b * 8, 8);
        return x < y ? -1 : x > y;
    } else if (f->type == FC_TYPE_FLOAT) {
        uint32_t x, y;
        memcpy(&x, vals + a * 4, 4);
        memcpy(&y, vals + b * 4, 4);
        return x < y ? -1 : x > y;
    } else {
        fc_bytes x, y;
        int c;
        memcpy(&x, vals + a * sizeof x, sizeof x);
        memcpy(&y, vals + b * sizeof y, sizeof y);
        c = memcmp(x.data, y.data, x.size < y.size ? x.size : y.size);
        return c != 0 ? c : (x.size < y.size ? -1 : x.size > y.size);
    }
}

/* A SparseFeature from its index and value fields, written out again:
 * counts must agree, at most max entries, then a plain insertion sort. */
static int sparse_build(const fc_message_desc *md, size_t i, unsigned char *m)
{
    const fc_field_desc *f = &md->fields[i];
    const fc_field_desc *vf = &md->fields[f->extra->sparse_fields[f->rank]];
    size_t n = count_of(vf, m), k, j, ts = f->type == FC_TYPE_INT64   ? 8
                                          : f->type == FC_TYPE_FLOAT ? 4
                                                                     : sizeof(fc_bytes);
    int64_t *ix = (int64_t *)(void *)(m + f->extra->indices_offset);
    unsigned char *vals = m + f->value_offset;
    uint32_t *present = (uint32_t *)(void *)(m + md->present_offset);
    unsigned r, vi = f->extra->sparse_fields[f->rank];
    for (r = 0; r < f->rank; r++)
        if (count_of(&md->fields[f->extra->sparse_fields[r]], m) != n)
            return 0;
    if (n > f->max)
        return 0;
    memcpy(vals, m + vf->value_offset, n * ts);
    for (r = 0; r < f->rank; r++)
        for (k = 0; k < n; k++)
            memcpy(&ix[k * f->rank + r],
                   m + md->fields[f->extra->sparse_fields[r]].value_offset + k * 8, 8);
    memcpy(m + f->count_offset, &n, sizeof n);
    if (!f->extra->already_sorted)
        for (k = 1; k < n; k++)
            for (j = k; j > 0 && entry_cmp(f, ix, vals, j, j - 1) < 0; j--) {
                unsigned char t[sizeof(fc_bytes)];
                int64_t tix;
                for (r = 0; r < f->rank; r++) {
                    tix = ix[j * f->rank + r];
                    ix[j * f->rank + r] = ix[(j - 1) * f->rank + r];
                    ix[(j - 1) * f->rank + r] = tix;
                }
                memcpy(t, vals + j * ts, ts);
                memcpy(vals + j * ts, vals + (j - 1) * ts, ts);
                memcpy(vals + (j - 1) * ts, t, ts);
            }
    if ((present[vi / 32] >> (vi % 32)) & 1u)
        present[i / 32] |= 1u << (i % 32);
    return 1;
}

/* A RaggedFeature from its values and partitions, written out again: each
 * partition turned into row splits by its definition in RaggedTensor
 * (from_row_splits, _row_lengths, _row_starts, _row_limits, _value_rowids,
 * _uniform_row_length), then checked the way validate=True checks. */
int oracle_ragged(const fc_field_extra *x, fc_type type, size_t max, unsigned char *m,
                  size_t value_offset, size_t count_offset, size_t t, const unsigned char *src,
                  size_t n, const int64_t *const *psrc, const size_t *pn)
{
    size_t inner, ts = type == FC_TYPE_INT64 ? 8 : type == FC_TYPE_FLOAT ? 4 : sizeof(fc_bytes);
    unsigned q;
    static int64_t sp[1u << 20];
    if (n > max)
        return 0;
    memcpy(m + value_offset + t * max * ts, src, n * ts);
    memcpy(m + count_offset + t * sizeof n, &n, sizeof n);
    inner = n;
    for (q = x->nparts; q-- > 0;) {
        const fc_part_desc *pd = &x->parts[q];
        const int64_t *xs = psrc[q];
        size_t c = pn[q], rows = 0, k, ss = x->split64 ? 8 : 4;
        unsigned char *splits = m + pd->splits_offset + t * (pd->max_rows + 1) * ss;
        switch (pd->kind) {
        case FC_PART_ROW_SPLITS:
            if (c == 0) {
                if (inner != 0)
                    return 0;
                sp[0] = 0;
                rows = 0;
                break;
            }
            for (k = 0; k < c; k++)
                sp[k] = xs[k];
            rows = c - 1;
            break;
        case FC_PART_ROW_LENGTHS:
            sp[0] = 0;
            for (k = 0; k < c; k++) {
                if (xs[k] < 0 || xs[k] > (int64_t)inner)
                    return 0;
                sp[k + 1] = sp[k] + xs[k];
            }
            rows = c;
            break;
        case FC_PART_ROW_STARTS:
            for (k = 0; k < c; k++)
                sp[k] = xs[k];
            sp[c] = (int64_t)inner;
            rows = c;
            break;
        case FC_PART_ROW_LIMITS:
            sp[0] = 0;
            for (k = 0; k < c; k++)
                sp[k + 1] = xs[k];
            rows = c;
            break;
        case FC_PART_VALUE_ROWIDS:
            if (c != inner)
                return 0;
            rows = c > 0 ? (size_t)(xs[c - 1] < 0 ? 0 : xs[c - 1] + 1) : 0;
            if (c > 0 && (xs[c - 1] < 0 || (uint64_t)xs[c - 1] >= pd->max_rows))
                return 0;
            for (k = 0; k <= rows; k++) {
                size_t cnt = 0, j;
                for (j = 0; j < c; j++)
                    if (xs[j] < (int64_t)k)
                        cnt++;
                sp[k] = (int64_t)cnt;
            }
            for (k = 1; k < c; k++)
                if (xs[k] < xs[k - 1])
                    return 0;
            if (c > 0 && xs[0] < 0)
                return 0;
            break;
        default:
            if (inner % pd->length != 0)
                return 0;
            rows = inner / pd->length;
            for (k = 0; k <= rows; k++)
                sp[k] = (int64_t)(k * pd->length);
            break;
        }
        if (rows > pd->max_rows)
            return 0;
        /* validate: starts at 0, never decreases, ends at the items */
        if (sp[0] != 0 || sp[rows] != (int64_t)inner)
            return 0;
        for (k = 0; k < rows; k++)
            if (sp[k + 1] < sp[k])
                return 0;
        memcpy(m + pd->rows_offset + t * sizeof rows, &rows, sizeof rows);
        for (k = 0; k <= rows; k++) {
            if (x->split64) {
                memcpy(splits + k * 8, &sp[k], 8);
            } else {
                int32_t w = (int32_t)sp[k];
                memcpy(splits + k * 4, &w, 4);
            }
        }
        inner = rows;
    }
    return 1;
}

int oracle_ragged_field(const fc_field_desc *fields, size_t present_offset, size_t i,
                        unsigned char *m)
{
    const fc_field_desc *f = &fields[i];
    const fc_field_extra *x = f->extra;
    const fc_field_desc *vf = &fields[x->sparse_fields[0]];
    uint32_t *present = (uint32_t *)(void *)(m + present_offset);
    const int64_t *psrc[FC_MAX_RANK];
    size_t pn[FC_MAX_RANK];
    unsigned q, vi = x->sparse_fields[0];
    for (q = 0; q < x->nparts; q++) {
        const fc_field_desc *pf = &fields[x->parts[q].field];
        int uniform = x->parts[q].kind == FC_PART_UNIFORM_ROW_LENGTH;
        psrc[q] = uniform ? NULL : (const int64_t *)(const void *)(m + pf->value_offset);
        pn[q] = uniform ? 0 : count_of(pf, m);
    }
    if (!oracle_ragged(x, f->type, f->max, m, f->value_offset, f->count_offset, 0,
                       m + vf->value_offset, count_of(vf, m), psrc, pn))
        return 0;
    if ((present[vi / 32] >> (vi % 32)) & 1u)
        present[i / 32] |= 1u << (i % 32);
    return 1;
}

static int parse_as(const fc_message_desc *md, void *out, const void *data, size_t len,
                    int batched)
{
    fc_arena arena;
    fc_fallback fb;
    unsigned char *m = (unsigned char *)out;
    uint32_t *present = (uint32_t *)(void *)(m + md->present_offset);
    size_t i;
    fc_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (fc_fallback_decode(data, len, FC_PAYLOAD_EXAMPLE,
                           FC_FALLBACK_LENIENT | FC_FALLBACK_SKIP_UNKNOWN, &arena, &fb, NULL) !=
        FC_OK)
        return FC_ERR_PARSE;
    md->init(out);
    for (i = 0; i < md->nfields; i++) {
        const fc_field_desc *fd = &md->fields[i];
        const FcPb__Feature *f;
        unsigned char *vals = m + fd->value_offset;
        size_t n, cnt;
        if (fd->kind == FC_KIND_SPARSE || fd->kind == FC_KIND_RAGGED)
            continue; /* built below from its fields */
        f = pick((const FcPb__Example *)fb.message, fd->key, fd->key_len, batched && fd->kind == FC_KIND_VARLEN);
        if (f == NULL) {
            if (fd->kind == FC_KIND_FIXED && fd->default_value == NULL)
                return FC_ERR_PARSE; /* required */
            if (fd->kind != FC_KIND_FIXED) {
                cnt = 0;
                memcpy(m + fd->count_offset, &cnt, sizeof cnt);
            }
            continue; /* init filled the default */
        }
        if (f != &no_kind && oracle_kind_type(f) != fd->type)
            return FC_ERR_PARSE;
        n = oracle_kind_count(f);
        switch (fd->kind) {
        case FC_KIND_FIXED:
            if (n != fd->elems)
                return FC_ERR_PARSE;
            if (n > 0)
                oracle_copy_values(f, vals, n);
            break;
        case FC_KIND_VARLEN:
            if (n > fd->max)
                return FC_ERR_PARSE;
            oracle_copy_values(f, vals, n);
            memcpy(m + fd->count_offset, &n, sizeof n);
            break;
        default:
            if (n % fd->elems != 0 || n / fd->elems > fd->max)
                return FC_ERR_PARSE;
            oracle_copy_values(f, vals, n);
            cnt = n / fd->elems;
            memcpy(m + fd->count_offset, &cnt, sizeof cnt);
            break;
        }
        present[i / 32] |= 1u << (i % 32);
    }
    for (i = 0; i < md->nfields; i++)
        if ((md->fields[i].kind == FC_KIND_SPARSE && !sparse_build(md, i, m)) ||
            (md->fields[i].kind == FC_KIND_RAGGED &&
             !oracle_ragged_field(md->fields, md->present_offset, i, m)))
            return FC_ERR_PARSE;
    return oracle_typed(md->fields, md->nfields, m) ? FC_OK : FC_ERR_PARSE;
}

/* ------------------------------------------------------------ `as` */

/* float32 -> IEEE binary16 bits as Eigen's half (TensorFlow's cast) gives
 * them, by arithmetic in double (rint rounds to nearest even), not by bit
 * surgery as runtime/core/typed.c does; *over for a finite x that rounds
 * to infinity.  NaN: 0x7e00 with x's sign, Eigen's. */
static uint16_t half_reference(float x, int *over)
{
    double a = fabs((double)x);
    uint16_t sign = signbit(x) ? 0x8000u : 0u;
    int e;
    double q;
    *over = 0;
    if (isnan(x))
        return (uint16_t)(sign | 0x7e00u);
    if (isinf(x))
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 65520.0) {
        *over = 1;
        return (uint16_t)(sign | 0x7c00u);
    }
    if (a < ldexp(1.0, -14)) /* subnormal: units of 2^-24 */
        return (uint16_t)(sign | (uint16_t)rint(a * ldexp(1.0, 24)));
    (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    e -= 1;
    q = rint((a / ldexp(1.0, e) - 1.0) * 1024.0);
    if (q == 1024.0) {
        q = 0.0;
        e++;
    }
    return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)q);
}

static int host_little(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* count values of `type` at vals converted as x says into out; 0 where
 * featc must refuse them. */
int oracle_typed_values(fc_type type, const fc_field_as *x, const unsigned char *vals,
                        size_t count, unsigned char *out)
{
    size_t k, es = fc_as_size(x->type);
    for (k = 0; k < count; k++) {
        if (type == FC_TYPE_INT64) {
            int64_t v;
            int sgn = fc_as_name(x->type)[0] == 'i';
            int64_t hi = sgn ? (int64_t)((UINT64_C(1) << (8 * es - 1)) - 1)
                             : (int64_t)((UINT64_C(1) << (8 * es)) - 1);
            int64_t lo = sgn ? -hi - 1 : 0;
            memcpy(&v, vals + k * 8, 8);
            if (v < lo || v > hi)
                return 0;
            if (es == 1) {
                int8_t a = (int8_t)v;
                uint8_t b = (uint8_t)v;
                if (sgn) memcpy(out + k, &a, 1); else memcpy(out + k, &b, 1);
            } else if (es == 2) {
                int16_t a = (int16_t)v;
                uint16_t b = (uint16_t)v;
                if (sgn) memcpy(out + 2 * k, &a, 2); else memcpy(out + 2 * k, &b, 2);
            } else {
                int32_t a = (int32_t)v;
                memcpy(out + 4 * k, &a, 4);
            }
        } else if (type == FC_TYPE_FLOAT) {
            float v;
            int over;
            uint16_t h;
            memcpy(&v, vals + k * 4, 4);
            h = half_reference(v, &over);
            if (over)
                return 0;
            memcpy(out + 2 * k, &h, 2);
        } else {
            fc_bytes v;
            size_t j, b;
            memcpy(&v, vals + k * sizeof v, sizeof v);
            if (v.size != x->elems * es)
                return 0;
            /* the bytes as they are, each element reversed on a big-endian host */
            for (j = 0; j < x->elems; j++)
                for (b = 0; b < es; b++)
                    out[(k * x->elems + j) * es + b] =
                        v.data[j * es + (host_little() ? b : es - 1 - b)];
        }
    }
    return 1;
}

int oracle_typed(const fc_field_desc *fields, size_t n, unsigned char *m)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const fc_field_desc *f = &fields[i];
        const fc_field_as *x = f->extra->as;
        if (x != NULL &&
            !oracle_typed_values(f->type, x, m + f->value_offset, values_of(f, m),
                                 m + x->offset))
            return 0;
    }
    return 1;
}

void oracle_typed_text(FILE *f, const char *name, const fc_field_as *x, const unsigned char *p,
                       size_t total)
{
    size_t k;
    fprintf(f, " %s_as:", name);
    for (k = 0; k < total; k++, p += fc_as_size(x->type)) {
        switch (x->type) {
        case FC_AS_INT8: { int8_t v; memcpy(&v, p, 1); fprintf(f, " %d", v); break; }
        case FC_AS_UINT8: fprintf(f, " %u", *p); break;
        case FC_AS_INT16: { int16_t v; memcpy(&v, p, 2); fprintf(f, " %d", v); break; }
        case FC_AS_UINT16:
        case FC_AS_FLOAT16: { uint16_t v; memcpy(&v, p, 2); fprintf(f, " %u", v); break; }
        case FC_AS_INT32: { int32_t v; memcpy(&v, p, 4); fprintf(f, " %ld", (long)v); break; }
        case FC_AS_INT64: { int64_t v; memcpy(&v, p, 8); fprintf(f, " %lld", (long long)v); break; }
        case FC_AS_FLOAT32: { uint32_t v; memcpy(&v, p, 4); fprintf(f, " %08lx", (unsigned long)v); break; }
        default: { uint64_t v; memcpy(&v, p, 8); fprintf(f, " %016llx", (unsigned long long)v); break; }
        }
    }
}

/* The typed values of every field with `as`, as text after the JSON: each
 * element of its type, printed through its C type. */
static void typed_text(FILE *f, const fc_field_desc *fields, size_t n, const unsigned char *m)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const fc_field_as *x = fields[i].extra->as;
        size_t count;
        if (x == NULL)
            continue;
        count = values_of(&fields[i], m);
        oracle_typed_text(f, fields[i].c_name, x, m + x->offset, count * x->elems);
    }
}

void oracle_typed_json(FILE *f, const fc_field_desc *fields, size_t n, const void *msg)
{
    typed_text(f, fields, n, (const unsigned char *)msg);
}

int oracle_parse(const fc_message_desc *md, void *out, const void *data, size_t len)
{
    return parse_as(md, out, data, len, 0);
}

int oracle_parse_batched(const fc_message_desc *md, void *out, const void *data, size_t len)
{
    return parse_as(md, out, data, len, 1);
}

void oracle_json(const fc_message_desc *md, const void *msg, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) {
        snprintf(buf, cap, "(fmemopen failed)");
        return;
    }
    fc_json_features(f, md, msg);
    typed_text(f, md->fields, md->nfields, (const unsigned char *)msg);
    fclose(f);
}
