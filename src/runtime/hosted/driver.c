/* The JSON dump driver and printer: see fc_driver.h. */
#include "featc/fc_driver.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "featc/fc_input.h"
#include "wire.h"

/* ------------------------------------------------------------ floats
 *
 * fc_float_shortest prints what the loop
 *     for (p = 6; p <= 9; p++) { snprintf(buf, n, "%.*g", p, v); if (strtof(buf) == v) break; }
 * prints (the first %g precision from 6 that reads back), without printf
 * or strtof: the digits are computed exactly, with integers.  A float32 is
 * M x 2^E (M < 2^24); a decimal q x 10^s is compared with such a value
 * exactly as q x 5^s x 2^s against M' x 2^E', in a small bignum.  %.pg's
 * digits are v rounded to p significant digits, ties to even (glibc's
 * printf rounds exactly, in the default rounding mode); they read back as
 * v when they lie inside v's rounding interval (its ends included when M
 * is even: strtof rounds ties to even).  Most floats are decided in
 * doubles first (scaled_shortest); the exact path takes what is too close
 * to call there.  tests/unit/test_text.c compares it with that loop. */

#define BN_WORDS 14 /* 448 bits: the largest product here is below 2^400 */

typedef struct bn {
    uint32_t w[BN_WORDS]; /* least significant first */
    unsigned n;           /* words in use */
} bn;

static void bn_set(bn *a, uint64_t v)
{
    a->w[0] = (uint32_t)v;
    a->w[1] = (uint32_t)(v >> 32);
    a->n = a->w[1] != 0 ? 2u : a->w[0] != 0 ? 1u : 0u;
}

static void bn_mul_small(bn *a, uint32_t m)
{
    uint64_t carry = 0;
    unsigned i;
    for (i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry != 0 && a->n < BN_WORDS)
        a->w[a->n++] = (uint32_t)carry;
}

static void bn_mul_pow5(bn *a, unsigned e)
{
    while (e >= 13) {
        bn_mul_small(a, 1220703125u); /* 5^13 */
        e -= 13;
    }
    if (e > 0) {
        uint32_t m = 1;
        while (e-- > 0)
            m *= 5;
        bn_mul_small(a, m);
    }
}

static void bn_shl(bn *a, unsigned s)
{
    unsigned words = s / 32, bits = s % 32, i;
    if (a->n == 0)
        return;
    if (a->n + words + 1 > BN_WORDS) { /* never with float32's range */
        a->n = 0;
        return;
    }
    a->w[a->n + words] = 0;
    for (i = a->n; i-- > 0;) {
        if (bits != 0)
            a->w[i + words + 1] |= a->w[i] >> (32 - bits);
        a->w[i + words] = a->w[i] << bits;
    }
    for (i = 0; i < words; i++)
        a->w[i] = 0;
    a->n += words + 1;
    while (a->n > 0 && a->w[a->n - 1] == 0)
        a->n--;
}

static int bn_cmp(const bn *a, const bn *b)
{
    unsigned i;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (i = a->n; i-- > 0;)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* The sign of q x 10^s - m x 2^e. */
static int cmp_dec_bin(uint64_t q, int s, uint64_t m, int e)
{
    bn a, b;
    bn_set(&a, q);
    bn_set(&b, m);
    if (s >= 0)
        bn_mul_pow5(&a, (unsigned)s);
    else
        bn_mul_pow5(&b, (unsigned)-s);
    /* now a x 2^s against b x 2^e */
    if (s > e)
        bn_shl(&a, (unsigned)(s - e));
    else if (e > s)
        bn_shl(&b, (unsigned)(e - s));
    return bn_cmp(&a, &b);
}

static const uint64_t pow10_u64[] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u,
                                     10000000u, 100000000u, 1000000000u, 10000000000u};

/* v = m x 2^e > 0 rounded to p significant digits: *q (p digits) x 10^*s. */
static void round_to_digits(uint64_t m, int e, double v, int p, uint64_t *q, int *s)
{
    int k = (int)floor(log10(v)), t;
    uint64_t d;
    /* k: 10^k <= v < 10^(k+1), exactly */
    while (cmp_dec_bin(1, k, m, e) > 0)
        k--;
    while (cmp_dec_bin(1, k + 1, m, e) <= 0)
        k++;
    t = k - p + 1;
    /* d = floor(v / 10^t): a guess in double, then exactly */
    d = (uint64_t)(t >= 0 ? v / pow(10.0, t) : v * pow(10.0, -t));
    while (d > 0 && cmp_dec_bin(d, t, m, e) > 0)
        d--;
    while (cmp_dec_bin(d + 1, t, m, e) <= 0)
        d++;
    /* round half to even: (2d + 1) x 10^t against 2v */
    {
        int c = cmp_dec_bin(2 * d + 1, t, m, e + 1);
        if (c < 0 || (c == 0 && (d & 1) != 0))
            d++;
    }
    if (d == pow10_u64[p]) { /* 9.99.. rounded up to 10.0.. */
        d /= 10;
        t++;
    }
    *q = d;
    *s = t;
}

/* q x 10^s reads back (strtof, ties to even) as m x 2^e, the float32 with
 * mantissa m (subnormal when e is -149 and m < 2^23). */
static int reads_back(uint64_t q, int s, uint64_t m, int e)
{
    int hi = cmp_dec_bin(q, s, 2 * m + 1, e - 1), lo;
    if (hi > 0 || (hi == 0 && (m & 1) != 0))
        return 0;
    if (m == ((uint64_t)1 << 23) && e > -149) /* a power of two: the gap below is half */
        lo = cmp_dec_bin(q, s, 4 * m - 1, e - 2);
    else
        lo = cmp_dec_bin(q, s, 2 * m - 1, e - 1);
    return lo > 0 || (lo == 0 && (m & 1) == 0);
}

/* %.pg of q x 10^s (q has p digits): trailing zeros dropped. */
static size_t format_g(char *buf, int neg, uint64_t q, int s, int p)
{
    char dig[10];
    int nd = p, x = s + p - 1, i;
    size_t n = 0;
    for (i = p; i-- > 0;) {
        dig[i] = (char)('0' + (int)(q % 10));
        q /= 10;
    }
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    if (neg)
        buf[n++] = '-';
    if (x < -4 || x >= p) {
        int ax = x < 0 ? -x : x;
        buf[n++] = dig[0];
        if (nd > 1) {
            buf[n++] = '.';
            for (i = 1; i < nd; i++)
                buf[n++] = dig[i];
        }
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        if (ax >= 10) {
            buf[n++] = (char)('0' + ax / 10);
            buf[n++] = (char)('0' + ax % 10);
        } else {
            buf[n++] = '0';
            buf[n++] = (char)('0' + ax);
        }
    } else if (x >= 0) {
        for (i = 0; i <= x; i++)
            buf[n++] = i < nd ? dig[i] : '0';
        if (nd > x + 1) {
            buf[n++] = '.';
            for (i = x + 1; i < nd; i++)
                buf[n++] = dig[i];
        }
    } else {
        buf[n++] = '0';
        buf[n++] = '.';
        for (i = x + 1; i < 0; i++)
            buf[n++] = '0';
        for (i = 0; i < nd; i++)
            buf[n++] = dig[i];
    }
    buf[n] = '\0';
    return n;
}

/* The fast path: the same decisions in double arithmetic, taken only
 * where the error cannot change them (else the exact path decides).
 * a x 10^j with |j| <= 56 costs at most three roundings, and a digit count
 * one more: a relative error below 1e-15; MARGIN is far above it. */
#define MARGIN 1e-13

static const double pow10_f64[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static double scale10(double a, int j)
{
    if (j >= 0) {
        while (j > 22) {
            a *= 1e22;
            j -= 22;
        }
        return a * pow10_f64[j];
    }
    while (j < -22) {
        a /= 1e22;
        j += 22;
    }
    return a / pow10_f64[-j];
}

/* The whole choice in one scale: v, and the ends of its rounding
 * interval, times 10^(8-k) (v's nine digits before the point), then for p
 * from 6 the digits rounded at p and whether they lie inside: three
 * scalings and a multiplication per p.  1 with *q, *s, *p; 0 when a
 * decision is too close to call (the exact path then decides). */
static int scaled_shortest(uint64_t m, int e, double a, uint64_t *q, int *s, int *pp)
{
    static const double tenth[4] = {1e-3, 1e-2, 1e-1, 1}; /* x9 to p digits, p = 6..9 */
    int bits = 24, k, p;
    double x9, hi9, lo9, hi, lo;
    if (m < ((uint64_t)1 << 23)) { /* subnormal */
        uint64_t t = m;
        for (bits = 0; t != 0; t >>= 1)
            bits++;
    }
    /* 2^b <= a < 2^(b+1): k is floor(b log10 2) or one more */
    k = (int)floor((double)(e + bits - 1) * 0.30102999566398120);
    x9 = scale10(a, 8 - k);
    if (x9 >= 1e9) {
        k++;
        x9 = scale10(a, 8 - k);
    }
    if (x9 < 1e8 * (1 + MARGIN) || x9 >= 1e9 * (1 - MARGIN))
        return 0;
    hi = ldexp((double)(2 * m + 1), e - 1);
    if (m == ((uint64_t)1 << 23) && e > -149)
        lo = ldexp((double)(4 * m - 1), e - 2);
    else
        lo = ldexp((double)(2 * m - 1), e - 1);
    hi9 = scale10(hi, 8 - k);
    lo9 = scale10(lo, 8 - k);
    for (p = 6; p <= 9; p++) {
        double x = x9 * tenth[p - 6], f = floor(x), d9; /* one more rounding */
        uint64_t d;
        if (fabs(x - f - 0.5) <= x * MARGIN)
            return 0;
        d = (uint64_t)f + (x - f > 0.5 ? 1u : 0u);
        d9 = (double)d * pow10_f64[9 - p]; /* exact: at most 10^9 */
        if (d9 > hi9 * (1 + MARGIN) || d9 < lo9 * (1 - MARGIN))
            continue;
        if (!(d9 < hi9 * (1 - MARGIN) && d9 > lo9 * (1 + MARGIN)))
            return 0;
        *s = k - p + 1;
        if (d == pow10_u64[p]) {
            d /= 10;
            ++*s;
        }
        *q = d;
        *pp = p;
        return 1;
    }
    return 0; /* never: nine digits always read back */
}

size_t fc_float_shortest(char *buf, float v)
{
    uint32_t u, frac;
    int bexp, e, p, s = 0;
    uint64_t m, q = 0;
    double a;
    memcpy(&u, &v, sizeof u);
    frac = u & 0x7fffffu;
    bexp = (int)((u >> 23) & 0xffu);
    if (bexp == 0xff) {
        const char *t = frac != 0 ? "nan" : (u >> 31) != 0 ? "-inf" : "inf";
        strcpy(buf, t);
        return strlen(t);
    }
    if (bexp == 0 && frac == 0) {
        strcpy(buf, (u >> 31) != 0 ? "-0" : "0");
        return (u >> 31) != 0 ? 2u : 1u;
    }
    if (bexp == 0) {
        m = frac;
        e = -149;
    } else {
        m = frac | 0x800000u;
        e = bexp - 150;
    }
    a = fabs((double)v);
    if (!scaled_shortest(m, e, a, &q, &s, &p)) {
        /* too close to call in doubles: exactly */
        for (p = 6; p <= 9; p++) {
            round_to_digits(m, e, a, p, &q, &s);
            if (reads_back(q, s, m, e))
                break;
        }
    }
    if (p > 9)
        p = 9; /* never: 9 digits always read back */
    return format_g(buf, (u >> 31) != 0, q, s, p);
}

size_t fc_json_float_chars(char *buf, float v)
{
    size_t n = fc_float_shortest(buf + 1, v);
    if (isnan(v) || isinf(v)) {
        buf[0] = '"';
        buf[n + 1] = '"';
        buf[n + 2] = '\0';
        return n + 2;
    }
    if (v == 0 && signbit(v)) {
        memcpy(buf, "-0.0", 5); /* "-0" reads back as the integer 0 */
        return 4;
    }
    memmove(buf, buf + 1, n + 1);
    return n;
}

void fc_json_float(FILE *f, float v)
{
    char buf[FC_FLOAT_CHARS + 2];
    fwrite(buf, 1, fc_json_float_chars(buf, v), f);
}

void fc_json_string(FILE *f, const void *data, size_t n, int utf8)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = (const uint8_t *)data;
    char out[512]; /* written in chunks: one stdio call per 500 bytes or so */
    size_t i, u, o = 0;
    out[o++] = '"';
    for (i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (o > sizeof out - 8) {
            fwrite(out, 1, o, f);
            o = 0;
        }
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        switch (c) {
        case '"': out[o++] = '\\'; out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; out[o++] = '\\'; break;
        case '\n': out[o++] = '\\'; out[o++] = 'n'; break;
        case '\r': out[o++] = '\\'; out[o++] = 'r'; break;
        case '\t': out[o++] = '\\'; out[o++] = 't'; break;
        case '\b': out[o++] = '\\'; out[o++] = 'b'; break;
        case '\f': out[o++] = '\\'; out[o++] = 'f'; break;
        default:
            if (!utf8 || c < 0x80) {
                /* a control, or a byte as U+00XX */
                memcpy(out + o, "\\u00", 4);
                out[o + 4] = hex[c >> 4];
                out[o + 5] = hex[c & 15];
                o += 6;
            } else if ((u = fc_utf8_seq(p + i, n - i)) > 1) {
                memcpy(out + o, p + i, u);
                o += u;
                i += u - 1;
            } else {
                /* not UTF-8: the byte as a lone low surrogate, as Python's
                 * surrogateescape (PEP 383) reads it, so that
                 * s.encode("utf-8", "surrogateescape") gives the bytes back */
                memcpy(out + o, "\\udc", 4);
                out[o + 4] = hex[c >> 4];
                out[o + 5] = hex[c & 15];
                o += 6;
            }
            break;
        }
    }
    out[o++] = '"';
    fwrite(out, 1, o, f);
}

void fc_json_bytes(FILE *f, const void *data, size_t n)
{
    fc_json_string(f, data, n, 0);
}

static void json_value(FILE *f, fc_type t, const unsigned char *base, size_t i)
{
    if (t == FC_TYPE_INT64) {
        int64_t v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fprintf(f, "%lld", (long long)v);
    } else if (t == FC_TYPE_FLOAT) {
        float v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fc_json_float(f, v);
    } else {
        fc_bytes v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fc_json_bytes(f, v.data, v.size);
    }
}

/* Values [*pos, ...) shaped by dims[level..rank). */
static void json_nested(FILE *f, fc_type t, unsigned rank, const size_t *dims,
                        const unsigned char *base, unsigned level, size_t *pos)
{
    size_t i;
    if (level == rank) {
        json_value(f, t, base, (*pos)++);
        return;
    }
    fputc('[', f);
    for (i = 0; i < dims[level]; i++) {
        if (i > 0)
            fputc(',', f);
        json_nested(f, t, rank, dims, base, level + 1, pos);
    }
    fputc(']', f);
}

/* values [from, from + n) as a flat list */
static void json_flat(FILE *f, fc_type t, const unsigned char *base, size_t from, size_t n)
{
    size_t k;
    fputc('[', f);
    for (k = 0; k < n; k++) {
        if (k > 0)
            fputc(',', f);
        json_value(f, t, base, from + k);
    }
    fputc(']', f);
}

/* One RaggedFeature's values and splits in a struct: an Example's or a
 * context's, or one frame of a feature list. */
typedef struct ragged_view {
    fc_type type;
    const fc_field_extra *x;
    const unsigned char *values;
    const unsigned char *splits[FC_MAX_RANK];
    size_t top; /* items of the outermost level */
} ragged_view;

/* The view of frame t (0 for a feature) whose values are at values and
 * count at count_at, frame stride max values. */
static void ragged_view_at(ragged_view *v, fc_type type, const fc_field_extra *x,
                           const unsigned char *m, size_t value_offset, size_t max,
                           size_t count, size_t t)
{
    unsigned q;
    v->type = type;
    v->x = x;
    v->values = m + value_offset + t * max * fc_type_size(type);
    for (q = 0; q < x->nparts; q++)
        v->splits[q] = m + x->parts[q].splits_offset +
                       t * (x->parts[q].max_rows + 1u) * (x->split64 ? 8u : 4u);
    v->top = x->nparts > 0 ? fc_load_size(m + x->parts[0].rows_offset + t * sizeof(size_t))
                           : count;
}

static int64_t split_at(const ragged_view *v, unsigned q, size_t k)
{
    if (v->x->split64) {
        int64_t w;
        memcpy(&w, v->splits[q] + k * 8, 8);
        return w;
    } else {
        int32_t w;
        memcpy(&w, v->splits[q] + k * 4, 4);
        return w;
    }
}

/* Items [from, to) of partition level q (the values past the last level)
 * as nested lists: a RaggedFeature as parse_single_example returns it. */
static void json_ragged(FILE *f, const ragged_view *v, unsigned q, size_t from, size_t to)
{
    size_t k;
    if (q == v->x->nparts) {
        json_flat(f, v->type, v->values, from, to - from);
        return;
    }
    fputc('[', f);
    for (k = from; k < to; k++) {
        if (k > from)
            fputc(',', f);
        json_ragged(f, v, q + 1, (size_t)split_at(v, q, k), (size_t)split_at(v, q, k + 1));
    }
    fputc(']', f);
}

/* {"NAME":VALUE,...} of fields (an Example's features, a SequenceExample's
 * context). */
static void json_fields(FILE *f, const fc_field_desc *fields, size_t n, const unsigned char *m)
{
    size_t i, k;
    int first = 1;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        const fc_field_desc *fd = &fields[i];
        const unsigned char *vals = m + fd->value_offset;
        size_t pos = 0, count = fd->kind != FC_KIND_FIXED ? fc_load_size(m + fd->count_offset) : 0;
        if (fd->extra->hidden)
            continue; /* read for a SparseFeature, not a feature of the spec */
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, fd->key, fd->key_len, 1);
        fputc(':', f);
        switch (fd->kind) {
        case FC_KIND_RAGGED: {
            ragged_view v;
            ragged_view_at(&v, fd->type, fd->extra, m, fd->value_offset, 0, count, 0);
            json_ragged(f, &v, 0, 0, v.top);
            break;
        }
        case FC_KIND_SPARSE: {
            /* parse_single_example's SparseTensor */
            const int64_t *ix = (const int64_t *)(const void *)(m + fd->extra->indices_offset);
            fputs("{\"indices\":[", f);
            for (k = 0; k < count; k++) {
                unsigned r;
                fputs(k > 0 ? ",[" : "[", f);
                for (r = 0; r < fd->rank; r++)
                    fprintf(f, "%s%lld", r > 0 ? "," : "", (long long)ix[k * fd->rank + r]);
                fputc(']', f);
            }
            fputs("],\"values\":", f);
            json_flat(f, fd->type, vals, 0, count);
            fputs(",\"dense_shape\":[", f);
            for (k = 0; k < fd->rank; k++)
                fprintf(f, "%s%zu", k > 0 ? "," : "", fd->dims[k]);
            fputs("]}", f);
            break;
        }
        case FC_KIND_FIXED:
            json_nested(f, fd->type, fd->rank, fd->dims, vals, 0, &pos);
            break;
        case FC_KIND_VARLEN:
            json_flat(f, fd->type, vals, 0, count);
            break;
        default:
            fputc('[', f);
            for (k = 0; k < count; k++) {
                if (k > 0)
                    fputc(',', f);
                json_nested(f, fd->type, fd->rank, fd->dims, vals, 0, &pos);
            }
            fputc(']', f);
            break;
        }
    }
    fputc('}', f);
}

void fc_json_features(FILE *f, const fc_message_desc *md, const void *msg)
{
    json_fields(f, md->fields, md->nfields, (const unsigned char *)msg);
}

void fc_json_context(FILE *f, const fc_seq_desc *sd, const void *msg)
{
    json_fields(f, sd->context, sd->ncontext, (const unsigned char *)msg);
}

void fc_json_feature_lists(FILE *f, const fc_seq_desc *sd, const void *msg)
{
    const unsigned char *m = (const unsigned char *)msg;
    size_t j, t;
    int first = 1;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        const unsigned char *vals = m + l->value_offset;
        size_t frames = fc_load_size(m + l->frames_offset), pos = 0;
        if (l->extra != NULL && l->extra->hidden)
            continue; /* read for a RaggedFeature, not a feature of the spec */
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, l->key, l->key_len, 1);
        fputs(":[", f);
        for (t = 0; t < frames; t++) {
            if (t > 0)
                fputc(',', f);
            if (l->kind == FC_KIND_RAGGED) {
                ragged_view v;
                ragged_view_at(&v, l->type, l->extra, m, l->value_offset, l->max,
                               fc_load_size(m + l->count_offset + t * sizeof(size_t)), t);
                json_ragged(f, &v, 0, 0, v.top);
            } else if (l->kind == FC_KIND_VARLEN)
                json_flat(f, l->type, vals, t * l->max,
                          fc_load_size(m + l->count_offset + t * sizeof(size_t)));
            else
                json_nested(f, l->type, l->rank, l->dims, vals, 0, &pos);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

/* ------------------------------------------------------------ batches */

static void json_i64s(FILE *f, const int64_t *v, size_t n)
{
    size_t k;
    fputc('[', f);
    for (k = 0; k < n; k++) {
        if (k > 0)
            fputc(',', f);
        fprintf(f, "%lld", (long long)v[k]);
    }
    fputc(']', f);
}

static void json_shape(FILE *f, const fc_column *c)
{
    json_i64s(f, c->shape, c->rank);
}

/* {"shape":[...],"values":[...]} */
static void json_dense(FILE *f, fc_type t, const fc_column *c)
{
    fputs("{\"shape\":", f);
    json_shape(f, c);
    fputs(",\"values\":", f);
    json_flat(f, t, (const unsigned char *)c->values, 0, c->nvalues);
    fputc('}', f);
}

/* A VarLen column: sparse {"indices","values","dense_shape"} or ragged
 * {"values","row_splits"} (for lists, the splits over frames then over
 * values). */
static void json_varlen(FILE *f, fc_type t, const fc_column *c, unsigned width, int ragged)
{
    size_t k;
    if (ragged) {
        fputs("{\"values\":", f);
        json_flat(f, t, (const unsigned char *)c->values, 0, c->nvalues);
        fputs(",\"row_splits\":", f);
        if (width == 3) {
            fputc('[', f);
            json_i64s(f, c->row_splits, (size_t)c->shape[0] + 1);
            fputc(',', f);
            json_i64s(f, c->inner_splits, c->nframes + 1);
            fputc(']', f);
        } else {
            json_i64s(f, c->row_splits, (size_t)c->shape[0] + 1);
        }
        fputc('}', f);
        return;
    }
    fputs("{\"indices\":[", f);
    for (k = 0; k < c->nindices; k++) {
        if (k > 0)
            fputc(',', f);
        json_i64s(f, c->indices + k * width, width);
    }
    fputs("],\"values\":", f);
    json_flat(f, t, (const unsigned char *)c->values, 0, c->nvalues);
    fputs(",\"dense_shape\":", f);
    json_shape(f, c);
    fputc('}', f);
}

/* A RaggedFeature column: {"values","row_splits"}, the splits a list of
 * split lists (batch first) when it has partitions; for a feature list,
 * always a list: over frames, over each frame's top level, then one per
 * partition. */
static void json_batch_ragged(FILE *f, fc_type type, const fc_field_extra *x, int list,
                              const fc_column *c)
{
    unsigned q;
    int nested = x->nparts > 0 || list;
    fputs("{\"values\":", f);
    json_flat(f, type, (const unsigned char *)c->values, 0, c->nvalues);
    fputs(",\"row_splits\":", f);
    if (nested)
        fputc('[', f);
    json_i64s(f, c->row_splits, (size_t)c->shape[0] + 1);
    if (list) {
        fputc(',', f);
        json_i64s(f, c->inner_splits, c->nframes + 1);
    }
    for (q = 0; q < x->nparts; q++) {
        fputc(',', f);
        json_i64s(f, c->part_splits[q], c->part_nsplits[q]);
    }
    if (nested)
        fputc(']', f);
    fputc('}', f);
}

static void json_batch_fields(FILE *f, const fc_field_desc *fields, size_t n,
                              const fc_column *cols, int ragged)
{
    size_t i;
    int first = 1;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        if (fields[i].extra->hidden)
            continue;
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, fields[i].key, fields[i].key_len, 1);
        fputc(':', f);
        if (fields[i].kind == FC_KIND_RAGGED)
            json_batch_ragged(f, fields[i].type, fields[i].extra, 0, &cols[i]);
        else if (fields[i].kind == FC_KIND_SPARSE)
            json_varlen(f, fields[i].type, &cols[i], fields[i].rank + 1, 0);
        else if (fields[i].kind == FC_KIND_VARLEN)
            json_varlen(f, fields[i].type, &cols[i], 2, ragged);
        else
            json_dense(f, fields[i].type, &cols[i]);
    }
    fputc('}', f);
}

void fc_json_batch_features(FILE *f, const fc_message_desc *md, const fc_column *cols,
                            int ragged)
{
    json_batch_fields(f, md->fields, md->nfields, cols, ragged);
}

void fc_json_batch_context(FILE *f, const fc_seq_desc *sd, const fc_column *cols, int ragged)
{
    json_batch_fields(f, sd->context, sd->ncontext, cols, ragged);
}

void fc_json_batch_feature_lists(FILE *f, const fc_seq_desc *sd, const fc_column *cols,
                                 int ragged)
{
    size_t j;
    int first = 1;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        if (l->extra != NULL && l->extra->hidden)
            continue;
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, l->key, l->key_len, 1);
        fputc(':', f);
        if (l->kind == FC_KIND_RAGGED)
            json_batch_ragged(f, l->type, l->extra, 1, &cols[sd->ncontext + j]);
        else if (l->kind == FC_KIND_VARLEN)
            json_varlen(f, l->type, &cols[sd->ncontext + j], 3, ragged);
        else
            json_dense(f, l->type, &cols[sd->ncontext + j]);
    }
    fputc('}', f);
}

/* TF's feature_list_lengths: the fixed-frame lists. */
void fc_json_batch_lengths(FILE *f, const fc_seq_desc *sd, const fc_column *cols)
{
    size_t j;
    int first = 1;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_column *c = &cols[sd->ncontext + j];
        if (sd->lists[j].kind != FC_KIND_FIXED)
            continue;
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, sd->lists[j].key, sd->lists[j].key_len, 1);
        fputc(':', f);
        json_i64s(f, c->lengths, (size_t)c->shape[0]);
    }
    fputc('}', f);
}

/* Records of the batch being gathered: copies (a reader's views do not
 * outlive the next record), with where they came from. */
typedef struct batch_buf {
    unsigned char *data;
    size_t used, cap;
    size_t n;
    size_t *offsets, *lengths;
    uint64_t *index, *file_offset;
    const char **path;
    fc_bytes *views;
} batch_buf;

static int batch_add(batch_buf *b, const fc_record *rec, uint64_t n, const char *path)
{
    if (rec->length > b->cap - b->used) {
        size_t cap = b->cap * 2 > b->used + rec->length ? b->cap * 2 : b->used + rec->length;
        unsigned char *d = (unsigned char *)realloc(b->data, cap > 0 ? cap : 1);
        if (d == NULL)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    if (rec->length > 0)
        memcpy(b->data + b->used, rec->data, rec->length);
    b->offsets[b->n] = b->used;
    b->lengths[b->n] = rec->length;
    b->index[b->n] = n;
    b->file_offset[b->n] = rec->offset;
    b->path[b->n] = path;
    b->used += rec->length;
    b->n++;
    return 0;
}

/* What the driver loop needs to know of a message kind. */
typedef struct driver_kind {
    size_t size;
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    const fc_message_desc *md;
    const fc_seq_desc *sd;
} driver_kind;

/* {"WHAT":N,"error":"record I (offset O of PATH): MESSAGE"}, the error
 * object of the dump contract (WHAT is "record" or "batch"). */
static void print_error(const char *what, uint64_t n, uint64_t index, uint64_t offset,
                        const char *path, const char *message)
{
    char text[FC_ERROR_MSG_SIZE + 256];
    snprintf(text, sizeof text, "record %llu (offset %llu of %s): %s", (unsigned long long)index,
             (unsigned long long)offset, path, message);
    printf("{\"%s\":%llu,\"error\":", what, (unsigned long long)n);
    fc_json_string(stdout, text, strlen(text), 1);
    fputs("}\n", stdout);
}

/* Parses and prints batch k; returns 0, or 1 when it failed. */
static int batch_flush(const driver_kind *dk, batch_buf *b, uint64_t k, fc_column *cols,
                       void *scratch, int ragged)
{
    fc_error err;
    size_t i, n = b->n; /* 0: the one empty batch of an input without records */
    int rc;
    for (i = 0; i < n; i++) {
        /* b->data stays NULL while every record so far was empty */
        b->views[i].data = b->data != NULL ? b->data + b->offsets[i] : NULL;
        b->views[i].size = b->lengths[i];
    }
    rc = dk->md != NULL ? fc_batch_parse(dk->md, cols, scratch, b->views, n, &err)
                        : fc_batch_parse_seq(dk->sd, cols, scratch, b->views, n, &err);
    b->n = 0;
    b->used = 0;
    if (rc != FC_OK) {
        size_t r = (size_t)err.record;
        if (err.record < n) {
            print_error("batch", k, b->index[r], b->file_offset[r], b->path[r], err.message);
        } else { /* not a record's: a buffer (the driver binds them all) */
            printf("{\"batch\":%llu,\"error\":", (unsigned long long)k);
            fc_json_string(stdout, err.message, strlen(err.message), 1);
            fputs("}\n", stdout);
        }
        return 1;
    }
    printf("{\"batch\":%llu,", (unsigned long long)k);
    if (dk->md != NULL) {
        fputs("\"features\":", stdout);
        fc_json_batch_features(stdout, dk->md, cols, ragged);
    } else {
        fputs("\"context\":", stdout);
        fc_json_batch_context(stdout, dk->sd, cols, ragged);
        fputs(",\"feature_lists\":", stdout);
        fc_json_batch_feature_lists(stdout, dk->sd, cols, ragged);
        fputs(",\"lengths\":", stdout);
        fc_json_batch_lengths(stdout, dk->sd, cols);
    }
    fputs("}\n", stdout);
    return 0;
}

static void print_record(const driver_kind *k, uint64_t n, const void *msg)
{
    printf("{\"record\":%llu,", (unsigned long long)n);
    if (k->md != NULL) {
        fputs("\"features\":", stdout);
        fc_json_features(stdout, k->md, msg);
    } else {
        fputs("\"context\":", stdout);
        fc_json_context(stdout, k->sd, msg);
        fputs(",\"feature_lists\":", stdout);
        fc_json_feature_lists(stdout, k->sd, msg);
    }
    fputs("}\n", stdout);
}

static const char *const driver_usage =
    "usage: %s [options] [FILE...]\n"
    "\n"
    "Prints one JSON object per record; with --batch, one per batch of B\n"
    "records in tf.io.parse_example's layout (VarLen features as\n"
    "SparseTensors, or with --ragged as values and row splits).  A FILE of -\n"
    "is standard input, also read when no FILE is given and it is not a\n"
    "terminal.\n"
    "\n"
    "options:\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto: detected)\n"
    "  --crc=verify|skip|none  (default verify)\n"
    "  -b, --batch=B           batches of B records (1 to 1000000)\n"
    "  --ragged                with --batch: VarLen as values and row splits\n"
    "  --max-record-size=N     largest record accepted, from any input (K/M/G\n"
    "                          suffixes; default 1G); bounds the memory used\n"
    "  -h, --help              this text\n"
    "\n"
    "exit status: 0 every record parsed; 1 some record failed to parse; 2 a\n"
    "file is unreadable or damaged; 64 usage error.\n";

/* A usage error: one line, and where the help is. */
static int usage(const char *prog, const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s%s\nTry '%s --help' for more information.\n", prog, what,
            arg != NULL ? " '" : "", arg != NULL ? arg : "", arg != NULL ? "'" : "", prog);
    return 64;
}

/* Calls each(ctx, rec, path) for every record of the files in turn.  A
 * file that cannot be read or framed to its end is reported on stderr and
 * makes the result 2; each returning nonzero stops everything (-1). */
static int for_each_record(const char *prog, const fc_input_options *opt, char **files,
                           int nfiles, int (*each)(void *, const fc_record *, const char *),
                           void *ctx)
{
    int i, rc = 0;
    for (i = 0; i < nfiles; i++) {
        const char *path = files[i];
        fc_input in;
        fc_record rec;
        int s = fc_input_open(&in, path, opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK)
            if (each(ctx, &rec, path) != 0) {
                fc_input_close(&in);
                return -1;
            }
        if (s != FC_END) {
            fflush(stdout);
            fprintf(stderr, "%s: %s: %s\n", prog, path, in.err.message);
            rc = 2;
        }
        fc_input_close(&in);
    }
    return rc;
}

/* Every record through the single-record parser. */
typedef struct records_run {
    const driver_kind *k;
    void *msg;
    uint64_t n;
    int failed;
} records_run;

static int print_one(void *ctx, const fc_record *rec, const char *path)
{
    records_run *r = (records_run *)ctx;
    fc_error err;
    fc_error_clear(&err);
    if (r->k->parse(r->msg, rec->data, rec->length, &err) == FC_OK) {
        print_record(r->k, r->n, r->msg);
    } else {
        print_error("record", r->n, rec->index, rec->offset, path, err.message);
        r->failed = 1;
    }
    r->n++;
    return 0;
}

static int run_records(const char *prog, const driver_kind *k, const fc_input_options *opt,
                       char **files, int nfiles)
{
    records_run r;
    int rc;
    r.k = k;
    r.n = 0;
    r.failed = 0;
    r.msg = calloc(1, k->size);
    if (r.msg == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 2;
    }
    rc = for_each_record(prog, opt, files, nfiles, print_one, &r);
    free(r.msg);
    return rc != 0 ? rc : r.failed;
}

/* Records in batches of bsize (the last may be smaller), across files. */
typedef struct batches_run {
    const char *prog;
    const driver_kind *k;
    batch_buf b;
    size_t bsize;
    fc_column *cols;
    void *scratch;
    int ragged, failed;
    uint64_t batches;
} batches_run;

static int add_to_batch(void *ctx, const fc_record *rec, const char *path)
{
    batches_run *r = (batches_run *)ctx;
    if (batch_add(&r->b, rec, rec->index, path) != 0) {
        fprintf(stderr, "%s: out of memory\n", r->prog);
        return -1;
    }
    if (r->b.n == r->bsize &&
        batch_flush(r->k, &r->b, r->batches++, r->cols, r->scratch, r->ragged) != 0)
        r->failed = 1;
    return 0;
}

static int run_batches(const char *prog, const driver_kind *k, const fc_input_options *opt,
                       char **files, int nfiles, size_t bsize, int ragged)
{
    unsigned forms = ragged ? FC_BATCH_RAGGED : FC_BATCH_SPARSE;
    size_t ncols = k->md != NULL ? k->md->nfields : k->sd->ncontext + k->sd->nlists;
    size_t need = k->md != NULL ? fc_batch_bind(k->md, NULL, bsize, forms, NULL, 0)
                                : fc_batch_bind_seq(k->sd, NULL, bsize, forms, NULL, 0);
    void *block = need > 0 ? malloc(need) : NULL;
    batches_run r;
    int rc;
    memset(&r, 0, sizeof r);
    r.prog = prog;
    r.k = k;
    r.bsize = bsize;
    r.ragged = ragged;
    r.cols = (fc_column *)calloc(ncols + 1, sizeof *r.cols);
    r.scratch = calloc(1, k->size);
    r.b.offsets = (size_t *)calloc(bsize, sizeof *r.b.offsets);
    r.b.lengths = (size_t *)calloc(bsize, sizeof *r.b.lengths);
    r.b.index = (uint64_t *)calloc(bsize, sizeof *r.b.index);
    r.b.file_offset = (uint64_t *)calloc(bsize, sizeof *r.b.file_offset);
    r.b.path = (const char **)calloc(bsize, sizeof *r.b.path);
    r.b.views = (fc_bytes *)calloc(bsize, sizeof *r.b.views);
    if (r.cols == NULL || r.scratch == NULL || block == NULL || r.b.offsets == NULL ||
        r.b.lengths == NULL || r.b.index == NULL || r.b.file_offset == NULL ||
        r.b.path == NULL || r.b.views == NULL) {
        fprintf(stderr, "%s: out of memory: a batch of %zu records at the spec's bounds needs "
                "%zu bytes\n", prog, bsize, need);
        rc = 2;
    } else {
        if (k->md != NULL)
            fc_batch_bind(k->md, r.cols, bsize, forms, block, need);
        else
            fc_batch_bind_seq(k->sd, r.cols, bsize, forms, block, need);
        rc = for_each_record(prog, opt, files, nfiles, add_to_batch, &r);
        if (rc == -1)
            rc = 2; /* out of memory */
        /* the last, partial batch; or, for input that held no record, one
         * empty batch, as parse_example gives outputs of leading dimension 0 */
        else if ((r.b.n > 0 || (rc == 0 && r.batches == 0)) &&
                 batch_flush(k, &r.b, r.batches++, r.cols, r.scratch, ragged) != 0)
            r.failed = 1;
        if (rc == 0)
            rc = r.failed;
    }
    free(r.b.data);
    free(r.b.offsets);
    free(r.b.lengths);
    free(r.b.index);
    free(r.b.file_offset);
    free(r.b.path);
    free(r.b.views);
    free(block);
    free(r.scratch);
    free(r.cols);
    return rc;
}

enum { OPT_CRC = 0x100, OPT_RAGGED, OPT_MAX_RECORD };
static const struct option driver_long[] = {
    {"compression", required_argument, NULL, 'c'},
    {"crc", required_argument, NULL, OPT_CRC},
    {"batch", required_argument, NULL, 'b'},
    {"ragged", no_argument, NULL, OPT_RAGGED},
    {"max-record-size", required_argument, NULL, OPT_MAX_RECORD},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static int driver_run(int argc, char **argv, const driver_kind *k)
{
    static char dash[] = "-", *stdin_only[] = {dash, NULL};
    const char *prog = argc > 0 ? argv[0] : "driver";
    fc_input_options opt;
    int nfiles, rc, ragged = 0, o;
    size_t bsize = 0;
    char **files;
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    opt.crc_policy = FC_CRC_VERIFY;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":c:b:h", driver_long, NULL)) != -1) {
        const char *a = argv[optind - 1];
        switch (o) {
        case 'c':
            if (fc_input_parse_compression(optarg, &opt.compression) != 0)
                return usage(prog, "unknown compression", optarg);
            break;
        case OPT_CRC:
            if (fc_input_parse_crc(optarg, &opt.crc_policy) != 0)
                return usage(prog, "unknown CRC policy", optarg);
            break;
        case 'b': {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || v == 0 || v > 1000000)
                return usage(prog, "--batch wants a batch size from 1 to 1000000, not", optarg);
            bsize = (size_t)v;
            break;
        }
        case OPT_RAGGED:
            ragged = 1;
            break;
        case OPT_MAX_RECORD:
            if (fc_input_parse_size(optarg, &opt.max_record_size) != 0 || opt.max_record_size == 0)
                return usage(prog, "bad size (a number, with K, M or G)", optarg);
            break;
        case 'h':
            printf(driver_usage, prog);
            return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
        case ':':
            return usage(prog, "option needs a value", a);
        default:
            return usage(prog, "unknown option (or a value it does not take)", a);
        }
    }
    files = argv + optind;
    nfiles = argc - optind;
    if (nfiles == 0) {
        if (isatty(STDIN_FILENO))
            return usage(prog, "no input file (standard input is a terminal)", NULL);
        files = stdin_only;
        nfiles = 1;
    }
    if (ragged && bsize == 0)
        return usage(prog, "--ragged goes with --batch", NULL);
    rc = bsize > 0 ? run_batches(prog, k, &opt, files, nfiles, bsize, ragged)
                   : run_records(prog, k, &opt, files, nfiles);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing standard output\n", prog);
        return 2;
    }
    return rc;
}

int fc_driver_main(int argc, char **argv, const fc_message_desc *md)
{
    driver_kind k;
    k.size = md->size;
    k.parse = md->parse;
    k.md = md;
    k.sd = NULL;
    return driver_run(argc, argv, &k);
}

int fc_driver_seq_main(int argc, char **argv, const fc_seq_desc *sd)
{
    driver_kind k;
    k.size = sd->size;
    k.parse = sd->parse;
    k.md = NULL;
    k.sd = sd;
    return driver_run(argc, argv, &k);
}
